/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the partition-keyed map of the modern group types
 * (coordinator/modern/int_map.c), against a plain array as the model. The
 * map alone: no coordinator, so no replay check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "int_map.h"

/* Keys that land in few slots (multiples of a power of two) and keys at
 * the ends of the int32 range, put, overwritten and removed in an order
 * that makes runs wrap around the table's end; every step is checked
 * against the model. */
static void test_matches_model(void **state)
{
    (void)state;
    enum { N = 600 };
    int32_t keys[N];
    intptr_t model[N];
    bool present[N];
    for (int i = 0; i < N; i++) {
        keys[i] = i < 200 ? i * 1024 : i < 400 ? INT32_MAX - (i - 200) : (i - 400) * 7;
        present[i] = false;
    }
    /* keys of the third kind repeat some of the first (multiples of 7168) */
    kc_int_map_t m = {0};
    uint32_t rng = 12345;
    for (int step = 0; step < 20000; step++) {
        rng = rng * 1103515245u + 12345u;
        int i = (int)((rng >> 8) % N);
        int op = (int)((rng >> 4) % 3);
        if (op < 2) {
            kc_int_map_put(&m, keys[i], step);
            for (int j = 0; j < N; j++)
                if (keys[j] == keys[i]) {
                    present[j] = true;
                    model[j] = step;
                }
        } else {
            bool was = present[i];
            assert_int_equal(kc_int_map_remove(&m, keys[i]), was);
            for (int j = 0; j < N; j++)
                if (keys[j] == keys[i])
                    present[j] = false;
        }
        if (step % 97 == 0 || step > 19900) {
            int32_t n = 0;
            for (int j = 0; j < N; j++) {
                intptr_t v = -1;
                assert_int_equal(kc_int_map_get(&m, keys[j], &v), present[j]);
                if (present[j])
                    assert_int_equal(v, model[j]);
                bool first = true;
                for (int k = 0; k < j; k++)
                    first = first && keys[k] != keys[j];
                n += present[j] && first;
            }
            assert_int_equal(m.n, n);
        }
    }
    kc_int_map_free(&m);
    assert_int_equal(m.n, 0);
    assert_null(m.slots);
}

/* Memory follows the entries, not the largest key: INT32_MAX costs one
 * slot of a 16-slot table; negative keys are never stored. */
static void test_large_and_negative_keys(void **state)
{
    (void)state;
    kc_int_map_t m = {0};
    intptr_t v;
    assert_false(kc_int_map_get(&m, 0, &v));
    assert_false(kc_int_map_remove(&m, 0));
    kc_int_map_put(&m, INT32_MAX, 3);
    kc_int_map_put(&m, 1 << 29, 4);
    kc_int_map_put(&m, -1, 5);
    kc_int_map_put(&m, INT32_MIN, 6);
    assert_int_equal(m.n, 2);
    assert_int_equal(m.cap, 16);
    assert_true(kc_int_map_get(&m, INT32_MAX, &v));
    assert_int_equal(v, 3);
    assert_true(kc_int_map_get(&m, 1 << 29, &v));
    assert_int_equal(v, 4);
    assert_false(kc_int_map_get(&m, -1, &v));
    assert_false(kc_int_map_remove(&m, -1));
    kc_int_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_model),
        cmocka_unit_test(test_large_and_negative_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
