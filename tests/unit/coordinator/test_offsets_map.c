/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the committed-offsets store (coordinator/offsets/offsets_map.c).
 * They drive the map alone, with no coordinator, records or replay, so they
 * do not run in the shared context of coord_test.h and its replay check.
 */
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

static void topic_names_are_shared_between_groups(void **state)
{
    (void)state;
    kc_offsets_map_t m;
    kc_offsets_map_init(&m);
    kc_offsets_map_stats_t st;
    kc_offsets_map_stats(&m, &st);
    assert_int_equal(st.pool_bytes, 0); /* nothing reserved before the first put */
    kc_offset_entry_t e = entry(7, NULL);
    assert_true(kc_offsets_map_put(&m, S("g1"), S("orders"), 0, &e));
    assert_true(kc_offsets_map_put(&m, S("g2"), S("orders"), 0, &e));
    assert_true(kc_offsets_map_put(&m, S("g2"), S("payments"), 0, &e));
    const kc_offsets_topic_t *t1 = kc_offsets_group_topic(kc_offsets_map_group(&m, S("g1")), S("orders"));
    const kc_offsets_topic_t *t2 = kc_offsets_group_topic(kc_offsets_map_group(&m, S("g2")), S("orders"));
    assert_non_null(t1);
    assert_non_null(t2);
    assert_ptr_equal(t1->name, t2->name);
    assert_int_equal(t1->name_len, 6);
    assert_string_equal(t1->name, "orders");
    kc_offsets_map_stats(&m, &st);
    assert_int_equal(st.topic_names, 2);
    assert_true(st.pool_bytes > 0);

    /* The name outlives the first group that used it, and goes with the last. */
    assert_int_equal(kc_offsets_map_remove_group(&m, S("g1")), 1);
    t2 = kc_offsets_group_topic(kc_offsets_map_group(&m, S("g2")), S("orders"));
    assert_string_equal(t2->name, "orders");
    kc_offsets_map_stats(&m, &st);
    assert_int_equal(st.topic_names, 2);
    assert_true(kc_offsets_map_remove(&m, S("g2"), S("orders"), 0));
    kc_offsets_map_stats(&m, &st);
    assert_int_equal(st.topic_names, 1);
    assert_true(kc_offsets_map_remove(&m, S("g2"), S("payments"), 0));
    kc_offsets_map_stats(&m, &st);
    assert_int_equal(st.topic_names, 0);
    assert_int_equal(m.ngroups, 0);
    kc_offsets_map_deinit(&m);
}

/* Fills groups x topics x partitions with distinct offsets and metadata every third entry. */
static void fill(kc_offsets_map_t *m, int groups, int topics, int parts, int64_t base)
{
    char g[32], t[32], meta[32];
    for (int i = 0; i < groups; i++) {
        snprintf(g, sizeof(g), "group-%d", i);
        for (int j = 0; j < topics; j++) {
            snprintf(t, sizeof(t), "topic-%d", j);
            for (int p = 0; p < parts; p++) {
                int64_t off = base + (int64_t)i * 1000000 + j * 10000 + p;
                snprintf(meta, sizeof(meta), "m%lld", (long long)off);
                kc_offset_entry_t e = entry(off, p % 3 == 0 ? meta : NULL);
                kc_offsets_map_put(m, S(g), S(t), p, &e);
            }
        }
    }
}

static void check(const kc_offsets_map_t *m, int groups, int topics, int parts, int64_t base)
{
    char g[32], t[32], meta[32];
    for (int i = 0; i < groups; i++) {
        snprintf(g, sizeof(g), "group-%d", i);
        for (int j = 0; j < topics; j++) {
            snprintf(t, sizeof(t), "topic-%d", j);
            for (int p = 0; p < parts; p++) {
                int64_t off = base + (int64_t)i * 1000000 + j * 10000 + p;
                const kc_offset_entry_t *e = kc_offsets_map_get(m, S(g), S(t), p);
                assert_non_null(e);
                assert_int_equal(e->offset, off);
                assert_int_equal(e->partition, p);
                assert_int_equal(e->commit_timestamp_ms, 1000 + off);
                if (p % 3 == 0) {
                    snprintf(meta, sizeof(meta), "m%lld", (long long)off);
                    assert_int_equal(e->metadata_len, (int32_t)strlen(meta));
                    assert_memory_equal(e->metadata, meta, strlen(meta));
                } else {
                    assert_null(e->metadata);
                }
            }
            assert_null(kc_offsets_map_get(m, S(g), S(t), parts));
        }
    }
}

static void arrays_keep_entries_while_growing_through_every_size(void **state)
{
    (void)state;
    kc_offsets_map_t m;
    kc_offsets_map_init(&m);
    /* 3000 partitions: scanned, then indexed, then past the pool's largest class. */
    fill(&m, 2, 3, 3000, 0);
    check(&m, 2, 3, 3000, 0);
    assert_int_equal(m.noffsets, 2 * 3 * 3000);
    /* Replacing keeps the count and the new values. */
    fill(&m, 2, 3, 3000, 5);
    check(&m, 2, 3, 3000, 5);
    assert_int_equal(m.noffsets, 2 * 3 * 3000);
    /* Remove the even partitions; the odd ones stay reachable. */
    for (int p = 0; p < 3000; p += 2)
        assert_true(kc_offsets_map_remove(&m, S("group-1"), S("topic-2"), p));
    for (int p = 0; p < 3000; p++) {
        const kc_offset_entry_t *e = kc_offsets_map_get(&m, S("group-1"), S("topic-2"), p);
        if (p % 2 == 0) {
            assert_null(e);
        } else {
            assert_non_null(e);
            assert_int_equal(e->offset, 5 + 1000000 + 20000 + p);
        }
    }
    kc_offsets_map_deinit(&m);
}

static void freed_blocks_are_reused(void **state)
{
    (void)state;
    kc_offsets_map_t m;
    kc_offsets_map_init(&m);
    fill(&m, 20, 10, 12, 0);
    kc_offsets_map_stats_t before;
    kc_offsets_map_stats(&m, &before);
    char g[32];
    for (int i = 0; i < 20; i++) {
        snprintf(g, sizeof(g), "group-%d", i);
        assert_int_equal(kc_offsets_map_remove_group(&m, S(g)), 10 * 12);
    }
    assert_int_equal(m.noffsets, 0);
    kc_offsets_map_stats_t empty;
    kc_offsets_map_stats(&m, &empty);
    assert_int_equal(empty.topic_names, 0);
    assert_true(empty.pool_free_bytes > 0);
    /* The same shape again fits in what was freed: no new chunk. */
    fill(&m, 20, 10, 12, 100);
    check(&m, 20, 10, 12, 100);
    kc_offsets_map_stats_t after;
    kc_offsets_map_stats(&m, &after);
    assert_int_equal(after.pool_bytes, before.pool_bytes);
    kc_offsets_map_deinit(&m);
}

static void a_group_removed_and_recreated_is_a_new_group(void **state)
{
    (void)state;
    kc_offsets_map_t m;
    kc_offsets_map_init(&m);
    kc_offset_entry_t e = entry(1, "x");
    /* The group and topic put last are remembered; removal must forget them. */
    assert_true(kc_offsets_map_put(&m, S("g"), S("t"), 0, &e));
    assert_true(kc_offsets_map_put(&m, S("g"), S("u"), 0, &e));
    assert_true(kc_offsets_map_remove(&m, S("g"), S("t"), 0));
    assert_true(kc_offsets_map_put(&m, S("g"), S("u"), 1, &e));
    assert_int_equal(kc_offsets_group_topic(kc_offsets_map_group(&m, S("g")), S("u"))->nparts, 2);
    assert_int_equal(kc_offsets_map_remove_group(&m, S("g")), 2);
    assert_true(kc_offsets_map_put(&m, S("g"), S("u"), 1, &e));
    const kc_offsets_group_t *g = kc_offsets_map_group(&m, S("g"));
    assert_non_null(g);
    assert_int_equal(g->noffsets, 1);
    assert_int_equal(g->ntopics, 1);
    assert_int_equal(m.noffsets, 1);
    kc_offsets_map_deinit(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_get_replace_remove),
        cmocka_unit_test(empty_names_and_negative_partitions_are_keys),
        cmocka_unit_test(random_operations_match_model),
        cmocka_unit_test(topic_names_are_shared_between_groups),
        cmocka_unit_test(arrays_keep_entries_while_growing_through_every_size),
        cmocka_unit_test(freed_blocks_are_reused),
        cmocka_unit_test(a_group_removed_and_recreated_is_a_new_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
