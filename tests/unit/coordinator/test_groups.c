/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group abstraction and the one groups map (coordinator/groups.c):
 * a group id names one group whatever its type, and ListGroups treats
 * every type alike, as Kafka's GroupMetadataManager.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coord_test.h"

static const kc_topic_view_t topics = {0};

/* A context still loading: the tests replay records, then end the load. */
static ct_t *ctx_new(void)
{
    return ct_new(&(ct_opts_t){.topics = &topics, .seed = 1, .unloaded = true});
}

/* Replays a ConsumerGroupMetadata record (type 3) of group g, epoch 5. */
static int replay_consumer_group(ct_t *t, const char *g)
{
    kc_consumer_group_metadata_key_t k;
    kc_consumer_group_metadata_key_init(&k);
    k.group_id = kc_str(g);
    kc_consumer_group_metadata_value_t v;
    kc_consumer_group_metadata_value_init(&v);
    v.epoch = 5;
    kc_buf_t key, value;
    kc_buf_init(&key);
    kc_buf_init(&value);
    kc_write_int16(&key, KC_RECORD_CONSUMER_GROUP_METADATA);
    assert_int_equal(kc_consumer_group_metadata_key_encode(&key, 0, &k), 0);
    kc_write_int16(&value, 0);
    assert_int_equal(kc_consumer_group_metadata_value_encode(&value, 0, &v), 0);
    int rc = ct_replay(t, &key, &value);
    kc_buf_deinit(&key);
    kc_buf_deinit(&value);
    return rc;
}

/* Replays a GroupMetadata record (type 2) of classic group g with one
 * member of the "consumer" protocol type. */
static int replay_classic_group(ct_t *t, const char *g)
{
    kc_group_metadata_key_t k;
    kc_group_metadata_key_init(&k);
    k.group = kc_str(g);
    kc_group_metadata_value_member_metadata_t m = {
        .member_id = kc_str("m-1"), .group_instance_id = KC_STR_NULL,
        .client_id = kc_str("c"), .client_host = kc_str("/127.0.0.1"),
        .rebalance_timeout = 30000, .session_timeout = 10000,
        .subscription = {(const uint8_t *)"", 0}, .assignment = {(const uint8_t *)"", 0}};
    kc_group_metadata_value_t v;
    kc_group_metadata_value_init(&v);
    v.protocol_type = kc_str("consumer");
    v.generation = 3;
    v.protocol = kc_str("range");
    v.leader = kc_str("m-1");
    v.current_state_timestamp = 0;
    v.members.items = &m;
    v.members.count = 1;
    kc_buf_t key, value;
    kc_buf_init(&key);
    kc_buf_init(&value);
    kc_write_int16(&key, KC_RECORD_GROUP_METADATA);
    assert_int_equal(kc_group_metadata_key_encode(&key, 0, &k), 0);
    kc_write_int16(&value, 3);
    assert_int_equal(kc_group_metadata_value_encode(&value, 3, &v), 0);
    int rc = ct_replay(t, &key, &value);
    kc_buf_deinit(&key);
    kc_buf_deinit(&value);
    return rc;
}

/* ListGroups v5 with an optional states filter; returns the number of
 * groups listed and the type of the first one in type (when any). */
static int32_t list_groups(kc_coord_t *c, const char *state, char *type, size_t cap)
{
    kc_str_t states[1] = {kc_str(state ? state : "")};
    kc_list_groups_request_t req;
    kc_list_groups_request_init(&req);
    if (state) {
        req.states_filter.items = states;
        req.states_filter.count = 1;
    }
    kc_request_ctx_t ctx = {.conn_id = 1, .api_key = KC_API_LIST_GROUPS, .api_version = 5,
                            .client_id = kc_str("c"), .client_host = "/127.0.0.1"};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_list_groups(c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_list_groups_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_list_groups_response_decode(&r, 5, &a, &resp), 0);
    assert_int_equal(resp.error_code, 0);
    int32_t n = resp.groups.count;
    if (n > 0 && type)
        snprintf(type, cap, "%.*s", (int)resp.groups.items[0].group_type.len,
                 resp.groups.items[0].group_type.ptr);
    kc_arena_deinit(&a);
    kc_result_deinit(&res);
    return n;
}

/* A classic group record replayed for an id a consumer group holds is
 * skipped as one Kafka's replay refuses ("not a classic group"): the id
 * still names the one consumer group, not two groups of two types. */
static void replay_of_another_type_is_skipped(void **state)
{
    (void)state;
    ct_t *t = ctx_new();
    assert_int_equal(replay_consumer_group(t, "g"), 0);
    assert_int_not_equal(replay_classic_group(t, "g"), 0);
    ct_load(t);
    char type[16] = "";
    assert_int_equal(list_groups(t->c, NULL, type, sizeof(type)), 1);
    assert_string_equal(type, "consumer");
    ct_free(t);
}

/* The reverse: a consumer group record over a classic group with members. */
static void consumer_record_over_classic_group_is_skipped(void **state)
{
    (void)state;
    ct_t *t = ctx_new();
    assert_int_equal(replay_classic_group(t, "g"), 0);
    assert_int_not_equal(replay_consumer_group(t, "g"), 0);
    ct_load(t);
    char type[16] = "";
    assert_int_equal(list_groups(t->c, NULL, type, sizeof(type)), 1);
    assert_string_equal(type, "classic");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testListGroups:
 * GroupMetadataManager.listGroups trims and lower-cases the states filter for
 * every group type, consumer groups included. */
static void list_groups_state_filter_is_trimmed_for_every_type(void **state)
{
    (void)state;
    ct_t *t = ctx_new();
    assert_int_equal(replay_consumer_group(t, "cg"), 0);
    ct_load(t);
    char type[16] = "";
    assert_int_equal(list_groups(t->c, " EMPTY ", type, sizeof(type)), 1);
    assert_string_equal(type, "consumer");
    assert_int_equal(list_groups(t->c, "stable", NULL, 0), 0);
    ct_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replay_of_another_type_is_skipped),
        cmocka_unit_test(consumer_record_over_classic_group_is_skipped),
        cmocka_unit_test(list_groups_state_filter_is_trimmed_for_every_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
