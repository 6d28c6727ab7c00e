/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uniform assignor on previous targets that well-formed groups never
 * have (coordinator/consumer/assignor_uniform.c): records replayed from a
 * hostile log can give two members the same partition. The assignor must
 * stay within its buffers (the sanitizer build checks) and still give no
 * partition to two members. The assignor is driven alone, with no
 * coordinator, records or replay, so the test does not run in the shared
 * context of coord_test.h and its replay check.
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

/* Three members each holding both partitions of the one topic: the
 * homogeneous builder revokes the extra copies, four revocations for two
 * partitions. */
static void overlapping_previous_targets(void **state)
{
    (void)state;
    kc_assign_topic_t topics[1] = {{"t", TOPIC_ID, 2}};
    bool sub[3] = {true, true, true};
    kc_asg_t prev[3] = {{0}};
    for (int m = 0; m < 3; m++)
        for (int p = 0; p < 2; p++)
            kc_asg_add(&prev[m], TOPIC_ID, p);
    kc_assign_member_t m[3] = {{"a", &sub[0], &prev[0], {0}},
                               {"b", &sub[1], &prev[1], {0}},
                               {"c", &sub[2], &prev[2], {0}}};
    kc_assign_spec_t spec = {topics, 1, m, 3, KC_SUBS_HOMOGENEOUS};
    kc_assignor_uniform(&spec);
    for (int p = 0; p < 2; p++) {
        int owners = 0;
        for (int i = 0; i < 3; i++)
            owners += kc_asg_has(&m[i].target, TOPIC_ID, p);
        assert_true(owners <= 1);
    }
    for (int i = 0; i < 3; i++) {
        kc_asg_free(&m[i].target);
        kc_asg_free(&prev[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlapping_previous_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
