/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The version-prefixed consumer embedded protocol (consumer_protocol.h):
 * Kafka's version checks, the fixed-version read of computeSubscribedTopics,
 * trailing bytes, and bytes too short for the prefix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "consumer_protocol.h"

/* Topics ["t"], UserData null: the v0 layout after the prefix. */
#define V0_BODY 0, 0, 0, 1, 0, 1, 't', 0xff, 0xff, 0xff, 0xff

static void test_subscription_versions(void **state)
{
    (void)state;
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_protocol_subscription_t s;
    static const uint8_t v0[] = {0, 0, V0_BODY};
    assert_int_equal(kc_consumer_protocol_read_subscription(v0, sizeof(v0),
                                                            KC_CONSUMER_PROTOCOL_PREFIXED,
                                                            &arena, &s),
                     0);
    assert_int_equal(s.topics.count, 1);
    assert_int_equal(s.user_data.len, -1);
    assert_int_equal(s.generation_id, -1);
    /* Read at its prefix, a v1 needs OwnedPartitions; read at 0 it does not. */
    static const uint8_t v1_short[] = {0, 1, V0_BODY};
    assert_int_equal(kc_consumer_protocol_read_subscription(v1_short, sizeof(v1_short),
                                                            KC_CONSUMER_PROTOCOL_PREFIXED,
                                                            &arena, &s),
                     KC_EINVAL);
    assert_int_equal(
        kc_consumer_protocol_read_subscription(v1_short, sizeof(v1_short), 0, &arena, &s), 0);
    /* A negative prefix is refused, unless the version is fixed. */
    static const uint8_t neg[] = {0x80, 0, V0_BODY};
    assert_int_equal(kc_consumer_protocol_read_subscription(neg, sizeof(neg),
                                                            KC_CONSUMER_PROTOCOL_PREFIXED,
                                                            &arena, &s),
                     KC_EINVAL);
    assert_int_equal(kc_consumer_protocol_read_subscription(neg, sizeof(neg), 0, &arena, &s), 0);
    /* A newer version reads as v3; bytes after the message are ignored. */
    static const uint8_t v7[] = {0, 7, V0_BODY, 0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0xff, 1, 2, 3};
    assert_int_equal(kc_consumer_protocol_read_subscription(v7, sizeof(v7),
                                                            KC_CONSUMER_PROTOCOL_PREFIXED,
                                                            &arena, &s),
                     0);
    assert_int_equal(s.owned_partitions.count, 0);
    assert_int_equal(s.generation_id, 5);
    assert_int_equal(s.rack_id.len, -1);
    /* No prefix at all. */
    static const uint8_t one[] = {0};
    int16_t v = 99;
    assert_false(kc_consumer_protocol_version(one, sizeof(one), &v));
    assert_false(kc_consumer_protocol_version(NULL, -1, &v));
    assert_true(kc_consumer_protocol_version(v7, sizeof(v7), &v));
    assert_int_equal(v, 7);
    assert_int_equal(kc_consumer_protocol_read_subscription(one, 1, 0, &arena, &s), KC_EINVAL);
    kc_arena_deinit(&arena);
}

static void test_assignment_versions(void **state)
{
    (void)state;
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_protocol_assignment_t a;
    /* [t: [0, 2]], UserData 2 bytes, at v5 (read as v3). */
    static const uint8_t v5[] = {0, 5, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 2, 0, 0, 0, 0,
                                 0, 0, 0, 2, 0, 0, 0, 2, 'u', 'd'};
    assert_int_equal(kc_consumer_protocol_read_assignment(v5, sizeof(v5), &arena, &a), 0);
    assert_int_equal(a.assigned_partitions.count, 1);
    assert_int_equal(a.assigned_partitions.items[0].partitions.count, 2);
    assert_int_equal(a.assigned_partitions.items[0].partitions.items[1], 2);
    assert_int_equal(a.user_data.len, 2);
    /* User data cut short, or a negative version: does not parse. */
    assert_int_equal(kc_consumer_protocol_read_assignment(v5, sizeof(v5) - 1, &arena, &a),
                     KC_EINVAL);
    static const uint8_t neg[] = {0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    assert_int_equal(kc_consumer_protocol_read_assignment(neg, sizeof(neg), &arena, &a),
                     KC_EINVAL);
    kc_arena_deinit(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subscription_versions),
        cmocka_unit_test(test_assignment_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
