/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of storage/epoch_cache.c: the cases of Kafka's
 * LeaderEpochFileCacheTest under their names in snake case, the sequences
 * Kafka 4.4 was seen to answer across restarts of one broker, and the
 * stored form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "epoch_cache.h"

typedef struct {
    kc_epoch_cache_t c;
} fx_t;

static int setup(void **state)
{
    fx_t *fx = calloc(1, sizeof(*fx));
    kc_epoch_cache_init(&fx->c);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    kc_epoch_cache_deinit(&fx->c);
    free(fx);
    return 0;
}

/* Asserts the cache holds exactly the n (epoch, offset) pairs of want. */
static void assert_entries(const kc_epoch_cache_t *c, const int64_t (*want)[2], size_t n)
{
    assert_int_equal(c->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(c->e[i].epoch, want[i][0]);
        assert_int_equal(c->e[i].start_offset, want[i][1]);
    }
}

static void assert_end(const kc_epoch_cache_t *c, int32_t requested, int64_t leo, int32_t epoch,
                       int64_t offset)
{
    int32_t e;
    int64_t o;
    kc_epoch_cache_end_offset_for(c, requested, leo, &e, &o);
    assert_int_equal(e, epoch);
    assert_int_equal(o, offset);
}

static void should_add_epoch_and_message_offset_to_cache(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    assert_true(kc_epoch_cache_assign(c, 2, 10));
    assert_int_equal(kc_epoch_cache_latest(c), 2);
    assert_end(c, 2, 11, 2, 11);
    static const int64_t want[][2] = {{2, 10}};
    assert_entries(c, want, 1);
}

static void should_return_log_end_offset_if_latest_epoch_requested(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 5);
    kc_epoch_cache_assign(c, 3, 6);
    kc_epoch_cache_assign(c, 4, 7);
    assert_end(c, 4, 8, 4, 8);
}

static void should_return_undefined_offset_if_undefined_epoch_requested(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    assert_end(c, KC_EPOCH_UNDEFINED, 0, KC_EPOCH_UNDEFINED, KC_EPOCH_UNDEFINED_OFFSET);
    kc_epoch_cache_assign(c, 0, 0);
    assert_end(c, KC_EPOCH_UNDEFINED, 10, KC_EPOCH_UNDEFINED, KC_EPOCH_UNDEFINED_OFFSET);
}

static void should_return_undefined_on_an_empty_cache(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    assert_int_equal(kc_epoch_cache_latest(c), KC_EPOCH_UNDEFINED);
    assert_null(kc_epoch_cache_earliest(c));
    assert_end(c, 0, 0, KC_EPOCH_UNDEFINED, KC_EPOCH_UNDEFINED_OFFSET);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 0), KC_EPOCH_UNDEFINED);
}

static void should_not_overwrite_log_end_offset_for_a_leader_epoch_once_it_has_been_assigned(
    void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    assert_true(kc_epoch_cache_assign(c, 2, 9));
    assert_false(kc_epoch_cache_assign(c, 2, 10));
    static const int64_t want[][2] = {{2, 9}};
    assert_entries(c, want, 1);
}

static void should_enforce_monotonically_increasing_start_offsets(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 1);
    /* A later epoch at an earlier offset replaces the entries at or after it. */
    assert_true(kc_epoch_cache_assign(c, 3, 0));
    static const int64_t want[][2] = {{3, 0}};
    assert_entries(c, want, 1);
}

static void should_not_overwrite_offset_for_a_leader_epoch_once_it_has_been_assigned(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 6);
    kc_epoch_cache_assign(c, 2, 10);
    static const int64_t want[][2] = {{2, 6}};
    assert_entries(c, want, 1);
}

static void should_return_first_epoch_if_requested_epoch_less_than_first_epoch(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 5, 11);
    kc_epoch_cache_assign(c, 6, 12);
    kc_epoch_cache_assign(c, 7, 13);
    assert_end(c, 4, 0, 4, 11);
}

static void should_truncate_if_matching_epoch_but_earlier_starting_offset(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 5, 11);
    kc_epoch_cache_assign(c, 6, 12);
    kc_epoch_cache_assign(c, 7, 13);
    /* Epoch 7 again at an earlier offset: 6 and 7 are dropped, 7 restarts. */
    assert_true(kc_epoch_cache_assign(c, 7, 12));
    static const int64_t want[][2] = {{5, 11}, {7, 12}};
    assert_entries(c, want, 2);
}

static void should_get_first_offset_of_subsequent_epoch_when_offset_requested_for_previous_epoch(
    void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 1, 5);
    kc_epoch_cache_assign(c, 1, 6); /* ignored */
    kc_epoch_cache_assign(c, 2, 7);
    assert_end(c, 1, 8, 1, 7);
}

static void should_return_next_available_epoch_if_there_is_no_exact_epoch_for_the_one_requested(
    void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 0, 10);
    kc_epoch_cache_assign(c, 2, 13);
    kc_epoch_cache_assign(c, 4, 17);
    assert_end(c, 1, 20, 0, 13);
    assert_end(c, 2, 20, 2, 17);
    assert_end(c, 3, 20, 2, 17);
}

static void should_not_update_epoch_and_start_offset_if_it_did_not_change(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    assert_true(kc_epoch_cache_assign(c, 2, 6));
    assert_false(kc_epoch_cache_assign(c, 2, 7));
    static const int64_t want[][2] = {{2, 6}};
    assert_entries(c, want, 1);
}

static void should_return_invalid_offset_if_epoch_is_requested_which_is_not_currently_tracked(
    void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 100);
    assert_end(c, 3, 100, KC_EPOCH_UNDEFINED, KC_EPOCH_UNDEFINED_OFFSET);
}

static void should_support_epochs_that_do_not_start_from_zero(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 6);
    assert_end(c, 2, 7, 2, 7);
    assert_int_equal(kc_epoch_cache_latest(c), 2);
}

static void should_refuse_negative_epochs_and_offsets(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    assert_false(kc_epoch_cache_assign(c, -1, 0));
    assert_false(kc_epoch_cache_assign(c, 0, -1));
    assert_int_equal(c->n, 0);
}

static void should_update_saved_offset_when_offset_to_clear_to_is_between_epochs(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 6);
    kc_epoch_cache_assign(c, 3, 8);
    kc_epoch_cache_assign(c, 4, 11);
    assert_true(kc_epoch_cache_truncate_from_start(c, 9));
    static const int64_t want[][2] = {{3, 9}, {4, 11}};
    assert_entries(c, want, 2);
}

static void should_not_clear_anything_if_offset_to_first_offset(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 6);
    kc_epoch_cache_assign(c, 3, 8);
    assert_false(kc_epoch_cache_truncate_from_start(c, 6));
    assert_false(kc_epoch_cache_truncate_from_start(c, 5));
    static const int64_t want[][2] = {{2, 6}, {3, 8}};
    assert_entries(c, want, 2);
}

static void should_clear_earliest_on_epoch_boundary(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 6);
    kc_epoch_cache_assign(c, 3, 8);
    kc_epoch_cache_assign(c, 4, 11);
    assert_true(kc_epoch_cache_truncate_from_start(c, 8));
    static const int64_t want[][2] = {{3, 8}, {4, 11}};
    assert_entries(c, want, 2);
}

static void should_retain_latest_epoch_on_clear_all_earliest_and_update_its_offset(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 2, 6);
    kc_epoch_cache_assign(c, 3, 8);
    kc_epoch_cache_assign(c, 4, 11);
    assert_true(kc_epoch_cache_truncate_from_start(c, 15));
    static const int64_t want[][2] = {{4, 15}};
    assert_entries(c, want, 1);
    assert_int_equal(kc_epoch_cache_latest(c), 4);
}

static void should_find_the_epoch_of_an_offset(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 0, 0);
    kc_epoch_cache_assign(c, 2, 5);
    kc_epoch_cache_assign(c, 4, 9);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 0), 0);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 4), 0);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 5), 2);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 8), 2);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 9), 4);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 100), 4);
    kc_epoch_cache_truncate_from_start(c, 6);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 5), KC_EPOCH_UNDEFINED);
    assert_int_equal(kc_epoch_cache_epoch_for_offset(c, 6), 2);
}

/*
 * What Kafka 4.4 answered on one broker: a partition at epoch 0 with two
 * records, the broker restarted twice (each restart two epochs on), with
 * and without a record appended in between (the second bump then replaces
 * the epoch nothing was written in), then DeleteRecords.
 */
static void restarts_of_one_broker_as_kafka_answers_them(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 0, 0); /* topic created: epoch 0 at offset 0 */
    assert_end(c, 0, 2, 0, 2);
    assert_end(c, 1, 2, KC_EPOCH_UNDEFINED, KC_EPOCH_UNDEFINED_OFFSET);
    kc_epoch_cache_assign(c, 2, 2); /* first restart, log end 2 */
    assert_end(c, 0, 2, 0, 2);
    assert_end(c, 1, 2, 0, 2);
    assert_end(c, 2, 2, 2, 2);
    assert_end(c, 3, 2, KC_EPOCH_UNDEFINED, KC_EPOCH_UNDEFINED_OFFSET);
    kc_epoch_cache_assign(c, 4, 2); /* a second restart, nothing appended */
    static const int64_t want[][2] = {{0, 0}, {4, 2}};
    assert_entries(c, want, 2);
    assert_end(c, 2, 3, 0, 2);
    assert_end(c, 4, 3, 4, 3); /* a record appended at epoch 4 */
    kc_epoch_cache_truncate_from_start(c, 1);
    assert_end(c, 0, 3, 0, 2);
    kc_epoch_cache_truncate_from_start(c, 2); /* DeleteRecords to 2 */
    static const int64_t cut[][2] = {{4, 2}};
    assert_entries(c, cut, 1);
    assert_end(c, 0, 3, 0, 2);
    assert_end(c, 3, 3, 3, 2);
    kc_epoch_cache_truncate_from_start(c, 3);
    assert_end(c, 0, 3, 0, 3);
    /* A partition that never held a record: each restart replaces its epoch. */
    kc_epoch_cache_t empty;
    kc_epoch_cache_init(&empty);
    kc_epoch_cache_assign(&empty, 0, 0);
    kc_epoch_cache_assign(&empty, 2, 0);
    assert_int_equal(empty.n, 1);
    assert_end(&empty, 0, 0, 0, 0);
    assert_end(&empty, 2, 0, 2, 0);
    kc_epoch_cache_deinit(&empty);
}

static void stored_form_round_trips(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 0, 0);
    kc_epoch_cache_assign(c, 2, 7);
    kc_epoch_cache_assign(c, 70000, (int64_t)1 << 40);
    kc_buf_t b;
    kc_buf_init(&b);
    kc_epoch_cache_encode(c, &b);
    assert_int_equal(b.len, 5 + 3 * 12);
    kc_epoch_cache_t d;
    kc_epoch_cache_init(&d);
    assert_int_equal(kc_epoch_cache_decode(&d, b.data, b.len), 0);
    static const int64_t want[][2] = {{0, 0}, {2, 7}, {70000, (int64_t)1 << 40}};
    assert_entries(&d, want, 3);
    /* An empty cache too. */
    kc_epoch_cache_t e;
    kc_epoch_cache_init(&e);
    kc_buf_reset(&b);
    kc_epoch_cache_encode(&e, &b);
    assert_int_equal(kc_epoch_cache_decode(&d, b.data, b.len), 0);
    assert_int_equal(d.n, 0);
    kc_epoch_cache_deinit(&d);
    kc_buf_deinit(&b);
}

static void stored_form_rejects_bad_bytes(void **state)
{
    kc_epoch_cache_t *c = &((fx_t *)*state)->c;
    kc_epoch_cache_assign(c, 3, 4);
    /* version 1 */
    static const uint8_t v1[] = {1, 0, 0, 0, 0};
    assert_int_equal(kc_epoch_cache_decode(c, v1, sizeof(v1)), KC_EINVAL);
    /* a count the bytes do not hold */
    static const uint8_t short_[] = {0, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(kc_epoch_cache_decode(c, short_, sizeof(short_)), KC_EINVAL);
    /* epochs that do not increase */
    static const uint8_t flat[] = {0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
                                   0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2};
    assert_int_equal(kc_epoch_cache_decode(c, flat, sizeof(flat)), KC_EINVAL);
    /* a negative epoch */
    static const uint8_t neg[] = {0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_int_equal(kc_epoch_cache_decode(c, neg, sizeof(neg)), KC_EINVAL);
    assert_int_equal(kc_epoch_cache_decode(c, v1, 2), KC_EINVAL);
    /* The cache kept what it held. */
    static const int64_t want[][2] = {{3, 4}};
    assert_entries(c, want, 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(should_add_epoch_and_message_offset_to_cache),
        T(should_return_log_end_offset_if_latest_epoch_requested),
        T(should_return_undefined_offset_if_undefined_epoch_requested),
        T(should_return_undefined_on_an_empty_cache),
        T(should_not_overwrite_log_end_offset_for_a_leader_epoch_once_it_has_been_assigned),
        T(should_enforce_monotonically_increasing_start_offsets),
        T(should_not_overwrite_offset_for_a_leader_epoch_once_it_has_been_assigned),
        T(should_return_first_epoch_if_requested_epoch_less_than_first_epoch),
        T(should_truncate_if_matching_epoch_but_earlier_starting_offset),
        T(should_get_first_offset_of_subsequent_epoch_when_offset_requested_for_previous_epoch),
        T(should_return_next_available_epoch_if_there_is_no_exact_epoch_for_the_one_requested),
        T(should_not_update_epoch_and_start_offset_if_it_did_not_change),
        T(should_return_invalid_offset_if_epoch_is_requested_which_is_not_currently_tracked),
        T(should_support_epochs_that_do_not_start_from_zero),
        T(should_refuse_negative_epochs_and_offsets),
        T(should_update_saved_offset_when_offset_to_clear_to_is_between_epochs),
        T(should_not_clear_anything_if_offset_to_first_offset),
        T(should_clear_earliest_on_epoch_boundary),
        T(should_retain_latest_epoch_on_clear_all_earliest_and_update_its_offset),
        T(should_find_the_epoch_of_an_offset),
        T(restarts_of_one_broker_as_kafka_answers_them),
        T(stored_form_round_trips),
        T(stored_form_rejects_bad_bytes),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
