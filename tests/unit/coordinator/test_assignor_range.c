/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The range assignor's member order (coordinator/consumer/assignor_range.c),
 * Kafka's RangeAssignor.sortMemberIds: static members first by group
 * instance id, then dynamic members by member id, whatever order their
 * member ids put them in. The assignor is driven alone, with no
 * coordinator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "consumer_int.h"

static const kc_uuid_t TOPIC_ID = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};

static void assert_range(const kc_asg_t *a, int32_t from, int32_t to)
{
    assert_int_equal(kc_asg_count(a), to - from);
    for (int32_t p = from; p < to; p++)
        assert_true(kc_asg_has(a, TOPIC_ID, p));
}

/* Three members on a topic of 7 partitions, in member id order: a dynamic
 * one ("a"), static "i2" ("b"), static "i1" ("c"). Kafka orders them i1,
 * i2, then the dynamic one: c gets 0-2, b 3-4, a 5-6. */
static void static_members_first_by_instance_id(void **state)
{
    (void)state;
    kc_assign_topic_t topics[1] = {{"t", TOPIC_ID, 7}};
    bool sub[3] = {true, true, true};
    kc_asg_t none[3] = {{0}};
    kc_assign_member_t m[3] = {{"a", &sub[0], &none[0], {0}, NULL},
                               {"b", &sub[1], &none[1], {0}, "i2"},
                               {"c", &sub[2], &none[2], {0}, "i1"}};
    kc_assign_spec_t spec = {topics, 1, m, 3, KC_SUBS_HOMOGENEOUS};
    kc_assignor_range(&spec);
    assert_range(&m[2].target, 0, 3);
    assert_range(&m[1].target, 3, 5);
    assert_range(&m[0].target, 5, 7);
    for (int i = 0; i < 3; i++)
        kc_asg_free(&m[i].target);
}

/* Dynamic members alone keep the member id order of the spec. */
static void dynamic_members_by_member_id(void **state)
{
    (void)state;
    kc_assign_topic_t topics[1] = {{"t", TOPIC_ID, 3}};
    bool sub[2] = {true, true};
    kc_asg_t none[2] = {{0}};
    kc_assign_member_t m[2] = {{"a", &sub[0], &none[0], {0}, NULL},
                               {"b", &sub[1], &none[1], {0}, NULL}};
    kc_assign_spec_t spec = {topics, 1, m, 2, KC_SUBS_HOMOGENEOUS};
    kc_assignor_range(&spec);
    assert_range(&m[0].target, 0, 2);
    assert_range(&m[1].target, 2, 3);
    for (int i = 0; i < 2; i++)
        kc_asg_free(&m[i].target);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(static_members_first_by_instance_id),
        cmocka_unit_test(dynamic_members_by_member_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
