/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the committed-offsets store (coordinator/offsets_map.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "offsets_map.h"

static kc_str_t S(const char *s)
{
    return (kc_str_t){s, (int32_t)strlen(s)};
}

static kc_offset_entry_t entry(int64_t off, const char *meta)
{
    kc_offset_entry_t e;
    memset(&e, 0, sizeof(e));
    e.offset = off;
    e.commit_timestamp_ms = 1000 + off;
    e.expire_timestamp_ms = -1;
    e.leader_epoch = (int32_t)(off % 7);
    e.metadata = (char *)meta;
    e.metadata_len = meta ? (int32_t)strlen(meta) : 0;
    return e;
}

static void put_get_replace_remove(void **state)
{
    (void)state;
    kc_offsets_map_t m;
    kc_offsets_map_init(&m);
    kc_offset_entry_t e = entry(42, "hello");
    assert_true(kc_offsets_map_put(&m, S("g"), S("t"), 3, &e));
    const kc_offset_entry_t *got = kc_offsets_map_get(&m, S("g"), S("t"), 3);
    assert_non_null(got);
    assert_int_equal(got->offset, 42);
    assert_int_equal(got->partition, 3);
    assert_int_equal(got->metadata_len, 5);
    assert_memory_equal(got->metadata, "hello", 5);
    assert_null(kc_offsets_map_get(&m, S("g"), S("t"), 4));
    assert_null(kc_offsets_map_get(&m, S("g"), S("u"), 3));
    assert_null(kc_offsets_map_get(&m, S("h"), S("t"), 3));

    kc_offset_entry_t e2 = entry(43, "");
    assert_false(kc_offsets_map_put(&m, S("g"), S("t"), 3, &e2));
    got = kc_offsets_map_get(&m, S("g"), S("t"), 3);
    assert_int_equal(got->offset, 43);
    assert_null(got->metadata);
    assert_int_equal(m.noffsets, 1);

    assert_false(kc_offsets_map_remove(&m, S("g"), S("t"), 9));
    assert_true(kc_offsets_map_remove(&m, S("g"), S("t"), 3));
    assert_null(kc_offsets_map_group(&m, S("g")));
    assert_int_equal(m.noffsets, 0);
    assert_int_equal(m.ngroups, 0);
    kc_offsets_map_deinit(&m);
}

static void empty_names_and_negative_partitions_are_keys(void **state)
{
    (void)state;
    kc_offsets_map_t m;
    kc_offsets_map_init(&m);
    kc_offset_entry_t e = entry(1, NULL);
    assert_true(kc_offsets_map_put(&m, S(""), S(""), -1, &e));
    assert_true(kc_offsets_map_put(&m, S(""), S(""), 0, &e));
    assert_non_null(kc_offsets_map_get(&m, S(""), S(""), -1));
    assert_non_null(kc_offsets_map_get(&m, S(""), S(""), 0));
    assert_int_equal(kc_offsets_map_group(&m, S(""))->noffsets, 2);
    assert_int_equal(kc_offsets_map_remove_group(&m, S("")), 2);
    assert_int_equal(m.noffsets, 0);
    kc_offsets_map_deinit(&m);
}

/* Random puts and removes checked against a plain array model. */
#define NG 7
#define NT 5
#define NP 40
static void random_operations_match_model(void **state)
{
    (void)state;
    static int64_t model[NG][NT][NP];
    memset(model, 0xff, sizeof(model)); /* -1 = absent */
    kc_offsets_map_t m;
    kc_offsets_map_init(&m);
    char gname[16], tname[16];
    unsigned seed = 12345;
    size_t live = 0;
    for (int step = 0; step < 200000; step++) {
        seed = seed * 1103515245u + 12345u;
        int g = (int)((seed >> 8) % NG), t = (int)((seed >> 12) % NT), p = (int)((seed >> 16) % NP);
        bool del = ((seed >> 24) % 3) == 0;
        snprintf(gname, sizeof(gname), "group-%d", g);
        snprintf(tname, sizeof(tname), "topic-%d", t);
        if (del) {
            bool had = model[g][t][p] >= 0;
            assert_int_equal(kc_offsets_map_remove(&m, S(gname), S(tname), p), had);
            if (had)
                live--;
            model[g][t][p] = -1;
        } else {
            kc_offset_entry_t e = entry(step, (step & 1) ? "m" : NULL);
            bool fresh = model[g][t][p] < 0;
            assert_int_equal(kc_offsets_map_put(&m, S(gname), S(tname), p, &e), fresh);
            if (fresh)
                live++;
            model[g][t][p] = step;
        }
        assert_int_equal(m.noffsets, live);
    }
    for (int g = 0; g < NG; g++) {
        snprintf(gname, sizeof(gname), "group-%d", g);
        size_t in_group = 0;
        for (int t = 0; t < NT; t++) {
            snprintf(tname, sizeof(tname), "topic-%d", t);
            for (int p = 0; p < NP; p++) {
                const kc_offset_entry_t *e = kc_offsets_map_get(&m, S(gname), S(tname), p);
                if (model[g][t][p] < 0) {
                    assert_null(e);
                } else {
                    assert_non_null(e);
                    assert_int_equal(e->offset, model[g][t][p]);
                    in_group++;
                }
            }
        }
        kc_offsets_group_t *grp = kc_offsets_map_group(&m, S(gname));
        assert_int_equal(grp ? grp->noffsets : 0, in_group);
    }
    kc_offsets_map_deinit(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_get_replace_remove),
        cmocka_unit_test(empty_names_and_negative_partitions_are_keys),
        cmocka_unit_test(random_operations_match_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
