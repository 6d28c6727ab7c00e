/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of storage/store.c against real LMDB in a temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "store.h"

#define MAP_SIZE (64u << 20)

typedef struct {
    char dir[64];
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/kc-store-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

/* Collected records of a replay, as "key=value" strings. */
typedef struct {
    char items[64][96];
    size_t n;
    size_t stop_after; /* 0 = never */
} seen_t;

static int collect(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                   size_t value_len)
{
    seen_t *s = ctx;
    if (s->n >= 64)
        return -1;
    snprintf(s->items[s->n], sizeof(s->items[0]), "%.*s=%.*s", (int)key_len, (const char *)key,
             (int)value_len, (const char *)value);
    s->n++;
    if (s->stop_after && s->n == s->stop_after)
        return 42;
    return 0;
}

static void put(kc_store_t *s, const char *k, const char *v)
{
    assert_int_equal(kc_store_append(s, k, strlen(k), v, v ? strlen(v) : 0), 0);
}

static void put_expect(kc_store_t *s, const char *k, int rc)
{
    assert_int_equal(kc_store_append(s, k, strlen(k), "v", 1), rc);
}

static seen_t *replay(kc_store_t *s)
{
    static seen_t seen;
    memset(&seen, 0, sizeof(seen));
    assert_int_equal(kc_store_replay(s, collect, &seen), 0);
    return &seen;
}

static void replay_returns_records_in_commit_order(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    assert_false(kc_store_pending(s));
    put(s, "zeta", "1");
    assert_true(kc_store_pending(s));
    put(s, "alpha", "2");
    assert_int_equal(kc_store_commit(s), 0);
    assert_false(kc_store_pending(s));
    put(s, "mid", "3");
    assert_int_equal(kc_store_commit(s), 0);
    seen_t *seen = replay(s);
    assert_int_equal(seen->n, 3);
    assert_string_equal(seen->items[0], "zeta=1");
    assert_string_equal(seen->items[1], "alpha=2");
    assert_string_equal(seen->items[2], "mid=3");
    assert_int_equal(kc_store_record_count(s), 3);
    kc_store_close(s);
}

static void newer_record_replaces_older_and_moves_to_the_end(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    put(s, "a", "1");
    put(s, "b", "1");
    put(s, "c", "1");
    assert_int_equal(kc_store_commit(s), 0);
    put(s, "a", "2");
    assert_int_equal(kc_store_commit(s), 0);
    put(s, "b", "2");
    put(s, "b", "3"); /* same key twice in one transaction */
    assert_int_equal(kc_store_commit(s), 0);
    seen_t *seen = replay(s);
    assert_int_equal(seen->n, 3);
    assert_string_equal(seen->items[0], "c=1");
    assert_string_equal(seen->items[1], "a=2");
    assert_string_equal(seen->items[2], "b=3");
    assert_int_equal(kc_store_record_count(s), 3);
    kc_store_close(s);
}

static void tombstone_removes_record_and_index(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    put(s, "a", "1");
    put(s, "b", "1");
    put(s, "c", "1");
    assert_int_equal(kc_store_commit(s), 0);
    put(s, "b", NULL);
    put(s, "nothing-here", NULL); /* tombstone of an unknown key is harmless */
    assert_int_equal(kc_store_commit(s), 0);
    seen_t *seen = replay(s);
    assert_int_equal(seen->n, 2);
    assert_string_equal(seen->items[0], "a=1");
    assert_string_equal(seen->items[1], "c=1");
    assert_int_equal(kc_store_record_count(s), 2);
    /* The index entry went too: a new "b" is a fresh record at the end. */
    put(s, "b", "9");
    put(s, "c", NULL);
    assert_int_equal(kc_store_commit(s), 0);
    seen = replay(s);
    assert_int_equal(seen->n, 2);
    assert_string_equal(seen->items[0], "a=1");
    assert_string_equal(seen->items[1], "b=9");
    kc_store_close(s);
}

static void empty_value_is_not_a_tombstone(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    assert_int_equal(kc_store_append(s, "k", 1, "", 0), 0);
    assert_int_equal(kc_store_commit(s), 0);
    seen_t *seen = replay(s);
    assert_int_equal(seen->n, 1);
    assert_string_equal(seen->items[0], "k=");
    assert_int_equal(kc_store_append(s, "", 0, "v", 1), KC_EINVAL);
    assert_int_equal(kc_store_append(s, NULL, 3, "v", 1), KC_EINVAL);
    kc_store_close(s);
}

static void replay_stops_at_callback_error(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    put(s, "a", "1");
    put(s, "b", "2");
    put(s, "c", "3");
    assert_int_equal(kc_store_commit(s), 0);
    seen_t seen;
    memset(&seen, 0, sizeof(seen));
    seen.stop_after = 2;
    assert_int_equal(kc_store_replay(s, collect, &seen), 42);
    assert_int_equal(seen.n, 2);
    kc_store_close(s);
}

static void uncommitted_writes_vanish_on_close(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    put(s, "kept", "1");
    assert_int_equal(kc_store_commit(s), 0);
    put(s, "lost", "2");
    put(s, "kept", NULL);
    /* Pending writes are visible to a walk before commit. */
    seen_t *seen = replay(s);
    assert_int_equal(seen->n, 1);
    assert_string_equal(seen->items[0], "lost=2");
    kc_store_close(s);

    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    seen = replay(s);
    assert_int_equal(seen->n, 1);
    assert_string_equal(seen->items[0], "kept=1");
    kc_store_close(s);
}

static void abort_drops_pending_writes(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    put(s, "a", "1");
    assert_int_equal(kc_store_commit(s), 0);
    put(s, "b", "1");
    kc_store_abort(s);
    assert_false(kc_store_pending(s));
    put(s, "c", "1");
    assert_int_equal(kc_store_commit(s), 0);
    seen_t *seen = replay(s);
    assert_int_equal(seen->n, 2);
    assert_string_equal(seen->items[0], "a=1");
    assert_string_equal(seen->items[1], "c=1");
    kc_store_close(s);
}

static void reopen_keeps_committed_data_and_order(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    put(s, "x", "1");
    put(s, "y", "1");
    put(s, "z", "1");
    assert_int_equal(kc_store_commit(s), 0);
    put(s, "z", NULL); /* frees the tail position */
    assert_int_equal(kc_store_commit(s), 0);
    kc_store_close(s);

    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    put(s, "w", "2");
    put(s, "x", "2");
    assert_int_equal(kc_store_commit(s), 0);
    kc_store_close(s);

    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    seen_t *seen = replay(s);
    assert_int_equal(seen->n, 3);
    assert_string_equal(seen->items[0], "y=1");
    assert_string_equal(seen->items[1], "w=2");
    assert_string_equal(seen->items[2], "x=2");
    kc_store_close(s);
}

static void second_open_of_same_dir_fails(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s, *s2 = (kc_store_t *)1;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    assert_int_equal(kc_store_open(&s2, f->dir, MAP_SIZE), KC_EIO);
    assert_null(s2);
    kc_store_close(s);
    assert_int_equal(kc_store_open(&s2, f->dir, MAP_SIZE), 0);
    kc_store_close(s2);
}

static void open_creates_missing_directories(void **state)
{
    fixture_t *f = *state;
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/a/b", f->dir);
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, sub, MAP_SIZE), 0);
    put(s, "k", "v");
    assert_int_equal(kc_store_commit(s), 0);
    kc_store_close(s);
    assert_int_equal(access(sub, F_OK), 0);
}

static void long_keys_are_indexed_and_compacted(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    static uint8_t k1[3000], k2[3000];
    memset(k1, 'k', sizeof(k1));
    memset(k2, 'k', sizeof(k2));
    k2[2999] = 'x'; /* same prefix, differs at the end */
    assert_int_equal(kc_store_append(s, k1, sizeof(k1), "1", 1), 0);
    assert_int_equal(kc_store_append(s, k2, sizeof(k2), "2", 1), 0);
    assert_int_equal(kc_store_append(s, k1, 511, "3", 1), 0); /* max-length prefix only */
    assert_int_equal(kc_store_commit(s), 0);
    assert_int_equal(kc_store_record_count(s), 3);
    assert_int_equal(kc_store_append(s, k1, sizeof(k1), "4", 1), 0);
    assert_int_equal(kc_store_append(s, k2, sizeof(k2), NULL, 0), 0);
    assert_int_equal(kc_store_commit(s), 0);
    assert_int_equal(kc_store_record_count(s), 2);
    kc_store_close(s);
}

/* Map full: fill a tiny map until KC_ENOSPC; nothing committed is lost and
 * the store works again once tombstones free space. */
static void map_full_returns_enospc_without_corruption(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, 256u * 1024), 0);
    kc_store_set_limits(s, 256u * 1024, 0); /* lmdb.map.max.bytes: no growth */
    char key[32], val[200];
    memset(val, 'v', sizeof(val));
    int committed = 0, rc = 0;
    for (int batch = 0; batch < 1000 && rc == 0; batch++) {
        for (int i = 0; i < 10; i++) {
            snprintf(key, sizeof(key), "key-%06d", batch * 10 + i);
            rc = kc_store_append(s, key, strlen(key), val, sizeof(val));
            if (rc)
                break;
        }
        int crc = kc_store_commit(s);
        if (rc == 0)
            rc = crc;
        else
            assert_int_equal(crc, rc); /* sticky: commit reports the first error */
        if (rc == 0)
            committed = (batch + 1) * 10;
    }
    assert_int_equal(rc, KC_ENOSPC);
    assert_true(committed > 0);
    assert_false(kc_store_pending(s));
    assert_int_equal(kc_store_record_count(s), (uint64_t)committed);

    /* While full, appends are refused but nothing committed is touched. */
    put_expect(s, "refused", KC_ENOSPC);
    assert_int_equal(kc_store_commit(s), KC_ENOSPC);
    assert_int_equal(kc_store_record_count(s), (uint64_t)committed);

    /* Free half the records with tombstones, a few per transaction. */
    for (int i = 0; i < committed / 2; i++) {
        snprintf(key, sizeof(key), "key-%06d", i);
        assert_int_equal(kc_store_append(s, key, strlen(key), NULL, 0), 0);
        if (i % 8 == 7)
            assert_int_equal(kc_store_commit(s), 0);
    }
    assert_int_equal(kc_store_commit(s), 0);
    put(s, "after", "full");
    assert_int_equal(kc_store_commit(s), 0);
    kc_store_close(s);

    assert_int_equal(kc_store_open(&s, f->dir, 256u * 1024), 0);
    assert_int_equal(kc_store_record_count(s), (uint64_t)(committed - committed / 2 + 1));
    kc_store_close(s);
}

/* kc_store_scan callback: checks a 3000-byte blob of one letter and stores it. */
static int count_blob(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len)
{
    (void)key;
    (void)key_len;
    assert_int_equal(value_len, 3000);
    for (size_t i = 0; i < value_len; i++)
        assert_int_equal(value[i], value[0]);
    *(int *)ctx = value[0];
    return 1;
}
/* Map growth: one transaction far bigger than the map (record log and a
 * reserved put) commits without an error, the map grows, and every write is
 * there after a reopen; a later growth ahead of need keeps commits working. */
static void map_grows_when_full(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, 256u * 1024), 0);
    kc_store_stats_t st0, st1;
    kc_store_stats(s, &st0);
    kc_store_dbi_t db;
    assert_int_equal(kc_store_dbi_open(s, "blobs", &db), 0);
    char key[32], val[200];
    memset(val, 'v', sizeof(val));
    for (int i = 0; i < 4000; i++) {
        snprintf(key, sizeof(key), "key-%06d", i);
        assert_int_equal(kc_store_append(s, key, strlen(key), val, sizeof(val)), 0);
        if (i % 500 == 0) {
            uint8_t *out;
            snprintf(key, sizeof(key), "blob-%06d", i);
            assert_int_equal(kc_store_put_reserve(s, db, key, strlen(key), 3000, &out), 0);
            memset(out, 'a' + i % 26, 3000);
        }
    }
    assert_int_equal(kc_store_commit(s), 0);
    kc_store_stats(s, &st1);
    assert_true(st1.map_size > st0.map_size);
    assert_true(st1.grows >= 1);
    assert_false(st1.full);
    assert_true(st1.used > 4000u * sizeof(val));
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 200; i++) {
            snprintf(key, sizeof(key), "more-%02d-%04d", round, i);
            assert_int_equal(kc_store_append(s, key, strlen(key), val, sizeof(val)), 0);
        }
        assert_int_equal(kc_store_commit(s), 0);
    }
    kc_store_close(s);

    assert_int_equal(kc_store_open(&s, f->dir, 256u * 1024), 0);
    assert_int_equal(kc_store_record_count(s), 4000u + 20u * 200u);
    assert_int_equal(kc_store_dbi_open(s, "blobs", &db), 0);
    for (int i = 0; i < 4000; i += 500) {
        snprintf(key, sizeof(key), "blob-%06d", i);
        int n = 0;
        assert_int_equal(kc_store_scan(s, db, key, strlen(key), strlen(key), false, count_blob, &n),
                         1);
        assert_int_equal(n, 'a' + i % 26);
    }
    kc_store_close(s);
}

static int count_topics(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                        size_t value_len)
{
    (void)key;
    (void)key_len;
    (void)value;
    (void)value_len;
    (*(int *)ctx)++;
    return 0;
}

static void topic_entries_put_and_delete(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    assert_int_equal(kc_store_topic_put(s, "t1", "x", 1), 0);
    assert_int_equal(kc_store_topic_put(s, "t2", "y", 1), 0);
    assert_int_equal(kc_store_commit(s), 0);
    assert_int_equal(kc_store_topic_put(s, "t1", NULL, 0), 0);
    assert_int_equal(kc_store_topic_put(s, "absent", NULL, 0), 0);
    assert_int_equal(kc_store_commit(s), 0);
    int n = 0;
    assert_int_equal(kc_store_topics_foreach(s, count_topics, &n), 0);
    assert_int_equal(n, 1);
    /* Topic entries are not coordinator records. */
    assert_int_equal(kc_store_record_count(s), 0);
    assert_int_equal(kc_store_topic_put(s, "", "x", 1), KC_EINVAL);
    kc_store_close(s);
}

/* Checks that replay hands over big-log records in order; stops at stop_at (0 = never). */
typedef struct {
    uint32_t n, stop_at;
    bool ordered;
} big_seen_t;

static int big_collect(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                       size_t value_len)
{
    big_seen_t *b = ctx;
    char want[16];
    snprintf(want, sizeof(want), "k%06u", b->n);
    if (key_len != strlen(want) || memcmp(key, want, key_len) != 0 || value_len != 1000 ||
        value[0] != (uint8_t)b->n || value[999] != (uint8_t)(b->n >> 8))
        b->ordered = false;
    b->n++;
    return b->stop_at && b->n == b->stop_at ? 42 : 0;
}

/* A log of tens of MiB is read ahead on a second thread; the walk must not notice. */
static void big_log_replays_every_record_in_order(void **state)
{
    fixture_t *f = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, f->dir, MAP_SIZE), 0);
    enum { N = 24000 };
    uint8_t value[1000];
    memset(value, 0x5a, sizeof(value));
    char key[16];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "k%06u", i);
        value[0] = (uint8_t)i;
        value[999] = (uint8_t)(i >> 8);
        assert_int_equal(kc_store_append(s, key, strlen(key), value, sizeof(value)), 0);
        if (i % 4000 == 3999)
            assert_int_equal(kc_store_commit(s), 0);
    }
    assert_int_equal(kc_store_commit(s), 0);
    assert_int_equal(kc_store_record_count(s), N);
    big_seen_t all = {0, 0, true};
    assert_int_equal(kc_store_replay(s, big_collect, &all), 0);
    assert_int_equal(all.n, N);
    assert_true(all.ordered);
    big_seen_t some = {0, 5000, true};
    assert_int_equal(kc_store_replay(s, big_collect, &some), 42);
    assert_int_equal(some.n, 5000);
    assert_true(some.ordered);
    kc_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(replay_returns_records_in_commit_order, setup, teardown),
        cmocka_unit_test_setup_teardown(newer_record_replaces_older_and_moves_to_the_end, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(tombstone_removes_record_and_index, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_value_is_not_a_tombstone, setup, teardown),
        cmocka_unit_test_setup_teardown(replay_stops_at_callback_error, setup, teardown),
        cmocka_unit_test_setup_teardown(uncommitted_writes_vanish_on_close, setup, teardown),
        cmocka_unit_test_setup_teardown(abort_drops_pending_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(reopen_keeps_committed_data_and_order, setup, teardown),
        cmocka_unit_test_setup_teardown(second_open_of_same_dir_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(open_creates_missing_directories, setup, teardown),
        cmocka_unit_test_setup_teardown(long_keys_are_indexed_and_compacted, setup, teardown),
        cmocka_unit_test_setup_teardown(map_grows_when_full, setup, teardown),
        cmocka_unit_test_setup_teardown(map_full_returns_enospc_without_corruption, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(topic_entries_put_and_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(big_log_replays_every_record_in_order, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
