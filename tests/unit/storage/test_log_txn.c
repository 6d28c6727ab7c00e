/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of transactions in storage/log.c: transactional appends, COMMIT
 * and ABORT markers, the last stable offset, READ_COMMITTED reads with their
 * aborted transactions, epoch fencing by markers, restart, and retention of
 * the aborted transaction index.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crc32c.h"
#include "log.h"

#define MAP_SIZE (32u << 20)
#define NOW 1700000000000LL
#define TXN 0x10

static const kc_uuid_t TID = {{3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};

static int setup(void **state)
{
    char *dir = calloc(1, 64);
    snprintf(dir, 64, "/tmp/kc-txn-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    *state = dir;
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
    free(*state);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- batches ---- */

static void put(kc_buf_t *b, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        uint8_t x = (uint8_t)(v >> (8 * i));
        kc_buf_append(b, &x, 1);
    }
}

static void varint(kc_buf_t *b, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    do {
        uint8_t x = (uint8_t)(u & 0x7f);
        u >>= 7;
        if (u)
            x |= 0x80;
        kc_buf_append(b, &x, 1);
    } while (u);
}

static uint64_t rd(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* A magic 2 batch of n uncompressed keyless records with attributes attrs. */
static void make_batch(kc_buf_t *out, int n, int16_t attrs, int64_t pid, int16_t epoch,
                       int32_t seq)
{
    kc_buf_t recs, tail;
    kc_buf_init(&recs);
    kc_buf_init(&tail);
    for (int i = 0; i < n; i++) {
        kc_buf_t r;
        kc_buf_init(&r);
        kc_buf_append(&r, "\0", 1);
        varint(&r, i);
        varint(&r, i);
        varint(&r, -1);
        varint(&r, 2);
        kc_buf_append(&r, "vv", 2);
        varint(&r, 0);
        varint(&recs, (int64_t)r.len);
        kc_buf_append(&recs, r.data, r.len);
        kc_buf_deinit(&r);
    }
    put(&tail, (uint64_t)(uint16_t)attrs, 2);
    put(&tail, (uint64_t)(n - 1), 4);
    put(&tail, (uint64_t)NOW, 8);
    put(&tail, (uint64_t)(NOW + n - 1), 8);
    put(&tail, (uint64_t)pid, 8);
    put(&tail, (uint64_t)(uint16_t)epoch, 2);
    put(&tail, (uint64_t)(uint32_t)seq, 4);
    put(&tail, (uint64_t)n, 4);
    kc_buf_append(&tail, recs.data, recs.len);
    put(out, 0, 8);
    put(out, (uint64_t)(4 + 1 + 4 + tail.len), 4);
    put(out, 0xffffffffu, 4);
    kc_buf_append(out, "\2", 1);
    put(out, kc_crc32c(0, tail.data, tail.len), 4);
    kc_buf_append(out, tail.data, tail.len);
    kc_buf_deinit(&recs);
    kc_buf_deinit(&tail);
}

/* ---- fixture ---- */

typedef struct {
    kc_store_t *store;
    kc_log_t *log;
} fx_t;

static void fx_open(fx_t *fx, const char *dir)
{
    assert_int_equal(kc_store_open(&fx->store, dir, MAP_SIZE), 0);
    fx->log = kc_log_new(fx->store, NULL);
    assert_non_null(fx->log);
}

static void fx_close(fx_t *fx)
{
    kc_log_free(fx->log);
    kc_store_close(fx->store);
}

static bool commit(fx_t *fx)
{
    assert_int_equal(kc_store_commit(fx->store), 0);
    return kc_log_committed(fx->log);
}

/* Appends n records (not committed); returns the base offset (-1 on error). */
static int64_t append(fx_t *fx, int n, int16_t attrs, int64_t pid, int16_t epoch, int32_t seq,
                      int16_t want_error)
{
    kc_buf_t b;
    kc_buf_init(&b);
    make_batch(&b, n, attrs, pid, epoch, seq);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx->log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    kc_buf_deinit(&b);
    kc_buf_deinit(&r.record_errors);
    assert_int_equal(r.error_code, want_error);
    return r.base_offset;
}

/* Writes a marker (not committed); returns its offset (-1 on error). */
static int64_t marker(fx_t *fx, int64_t pid, int16_t epoch, bool commit_, int32_t coord_epoch,
                      int16_t tv, int16_t want_error)
{
    kc_log_marker_result_t r;
    assert_int_equal(
        kc_log_write_marker(fx->log, TID, 0, pid, epoch, commit_, coord_epoch, tv, NOW + 5, &r), 0);
    assert_int_equal(r.error_code, want_error);
    return r.offset;
}

static int64_t lso(fx_t *fx)
{
    int64_t v = -1;
    assert_int_equal(kc_log_last_stable_offset(fx->log, TID, 0, &v), 0);
    return v;
}

static kc_log_offsets_t offsets(fx_t *fx)
{
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx->log, TID, 0, &o), 0);
    return o;
}

/* The base offsets of the batches in out; returns how many. */
static int bases(const kc_buf_t *out, int64_t *b, int max)
{
    int n = 0;
    for (size_t pos = 0; pos + 61 <= out->len && n < max; n++) {
        b[n] = (int64_t)rd(out->data + pos, 8);
        pos += (size_t)rd(out->data + pos + 8, 4) + 12;
    }
    return n;
}

typedef struct {
    int64_t b[32];
    int nb;
    kc_log_aborted_txn_t a[16];
    int na;
    kc_log_offsets_t o;
} read_t;

static read_t read_at(fx_t *fx, int64_t from, int32_t max_bytes, int isolation)
{
    read_t r;
    memset(&r, 0, sizeof(r));
    kc_buf_t out, ab;
    kc_buf_init(&out);
    kc_buf_init(&ab);
    int16_t err = -1;
    assert_int_equal(kc_log_read_isolated(fx->log, TID, 0, from, max_bytes, false, isolation, &out,
                                          &ab, &err, &r.o),
                     0);
    assert_int_equal(err, 0);
    r.nb = bases(&out, r.b, 32);
    assert_true(ab.len % sizeof(kc_log_aborted_txn_t) == 0);
    r.na = (int)(ab.len / sizeof(kc_log_aborted_txn_t));
    assert_true(r.na <= 16);
    if (r.na)
        memcpy(r.a, ab.data, ab.len);
    kc_buf_deinit(&out);
    kc_buf_deinit(&ab);
    return r;
}

static int index_entries(fx_t *fx, kc_log_aborted_entry_t *e, int max)
{
    kc_buf_t out;
    kc_buf_init(&out);
    assert_int_equal(kc_log_aborted_index(fx->log, TID, 0, 0, &out), 0);
    int n = (int)(out.len / sizeof(*e));
    assert_true(n <= max);
    if (n)
        memcpy(e, out.data, out.len);
    kc_buf_deinit(&out);
    return n;
}

/* ---- tests ---- */

/* A transactional batch holds the LSO at its first offset until its COMMIT
 * marker is committed; the marker is the control batch Kafka's broker writes. */
static void transactional_append_then_commit_marker(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 2, 0, -1, -1, -1, 0), 0); /* 0-1: plain */
    assert_int_equal(append(&fx, 3, TXN, 7, 0, 0, 0), 2);  /* 2-4: producer 7's transaction */
    assert_true(commit(&fx));
    assert_int_equal(offsets(&fx).high_watermark, 5);
    assert_int_equal(offsets(&fx).last_stable_offset, 2);
    assert_int_equal(lso(&fx), 2);
    read_t u = read_at(&fx, 0, 1 << 20, KC_LOG_READ_UNCOMMITTED);
    assert_int_equal(u.nb, 2);
    read_t c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 1);
    assert_int_equal(c.b[0], 0);
    assert_int_equal(c.o.last_stable_offset, 2);
    c = read_at(&fx, 2, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 0);

    assert_int_equal(marker(&fx, 7, 0, true, 3, 0, 0), 5);
    /* Not committed yet: the transaction still holds the LSO. */
    assert_int_equal(lso(&fx), 2);
    assert_int_equal(offsets(&fx).log_end_offset, 6);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 6);
    assert_int_equal(offsets(&fx).high_watermark, 6);
    c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 3);
    assert_int_equal(c.b[2], 5);
    assert_int_equal(c.na, 0);
    assert_int_equal(index_entries(&fx, NULL, 0), 0);

    /* The marker's bytes. */
    kc_buf_t out;
    kc_buf_init(&out);
    int16_t err;
    kc_log_offsets_t o;
    assert_int_equal(kc_log_read(fx.log, TID, 0, 5, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(out.len, 78);
    const uint8_t *m = out.data;
    assert_int_equal(rd(m, 8), 5);                      /* base offset */
    assert_int_equal(rd(m + 8, 4), 66);                 /* length */
    assert_int_equal(m[16], 2);                         /* magic */
    assert_int_equal(rd(m + 17, 4), kc_crc32c(0, m + 21, 78 - 21));
    assert_int_equal(rd(m + 21, 2), 0x30);              /* transactional | control */
    assert_int_equal(rd(m + 23, 4), 0);                 /* last offset delta */
    assert_int_equal(rd(m + 27, 8), NOW + 5);           /* base timestamp */
    assert_int_equal(rd(m + 35, 8), NOW + 5);           /* max timestamp */
    assert_int_equal(rd(m + 43, 8), 7);                 /* producer id */
    assert_int_equal(rd(m + 51, 2), 0);                 /* producer epoch */
    assert_int_equal(rd(m + 53, 4), 0xffffffffu);       /* base sequence -1 */
    assert_int_equal(rd(m + 57, 4), 1);                 /* one record */
    static const uint8_t rec[] = {0x20, 0, 0, 0, 0x08, 0, 0, 0, 1, 0x0c, 0, 0, 0, 0, 0, 3, 0};
    assert_memory_equal(m + 61, rec, sizeof(rec));
    kc_buf_deinit(&out);

    /* The producer's next transaction goes on in sequence. */
    assert_int_equal(append(&fx, 1, TXN, 7, 0, 3, 0), 6);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 6);
    fx_close(&fx);
}

/* ABORT of an ongoing transaction adds (producer, first, last = marker, LSO)
 * to the index; markers of producers without a transaction add nothing. */
static void abort_marker_adds_an_aborted_index_entry(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 2, TXN, 9, 0, 0, 0), 0); /* 0-1 */
    assert_int_equal(marker(&fx, 9, 0, false, 0, 0, 0), 2);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 3);
    kc_log_aborted_entry_t e[4];
    assert_int_equal(index_entries(&fx, e, 4), 1);
    assert_int_equal(e[0].producer_id, 9);
    assert_int_equal(e[0].first_offset, 0);
    assert_int_equal(e[0].last_offset, 2);
    assert_int_equal(e[0].last_stable_offset, 3);
    /* No transaction ongoing: the markers are written, the index stays. */
    assert_int_equal(marker(&fx, 9, 0, false, 0, 0, 0), 3);
    assert_int_equal(marker(&fx, 11, 0, true, 0, 0, 0), 4);
    assert_true(commit(&fx));
    assert_int_equal(offsets(&fx).log_end_offset, 5);
    assert_int_equal(lso(&fx), 5);
    assert_int_equal(index_entries(&fx, e, 4), 1);
    read_t c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 4);
    assert_int_equal(c.na, 1);
    assert_int_equal(c.a[0].producer_id, 9);
    assert_int_equal(c.a[0].first_offset, 0);
    /* Reading past the marker lists it no more. */
    c = read_at(&fx, 3, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 2);
    assert_int_equal(c.na, 0);
    fx_close(&fx);
}

/* Two producers' transactions interleaved: the LSO is the first offset of
 * the oldest ongoing one, and an abort's entry records the other's start. */
static void lso_with_two_producers_interleaved(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 2, TXN, 1, 0, 0, 0), 0); /* A 0-1 */
    assert_int_equal(append(&fx, 2, TXN, 2, 0, 0, 0), 2); /* B 2-3 */
    assert_int_equal(append(&fx, 2, TXN, 1, 0, 2, 0), 4); /* A 4-5 */
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 0);
    assert_int_equal(marker(&fx, 1, 0, false, 0, 0, 0), 6); /* abort A */
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 2); /* B still open */
    kc_log_aborted_entry_t e[4];
    assert_int_equal(index_entries(&fx, e, 4), 1);
    assert_int_equal(e[0].producer_id, 1);
    assert_int_equal(e[0].first_offset, 0);
    assert_int_equal(e[0].last_offset, 6);
    assert_int_equal(e[0].last_stable_offset, 2);
    /* A reads below the LSO: A's first batch, and A's aborted transaction. */
    read_t c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 1);
    assert_int_equal(c.b[0], 0);
    assert_int_equal(c.na, 1);
    assert_int_equal(c.a[0].producer_id, 1);
    assert_int_equal(c.a[0].first_offset, 0);
    /* A plain batch after B's does not move the LSO. */
    assert_int_equal(append(&fx, 1, 0, -1, -1, -1, 0), 7);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 2);
    assert_int_equal(marker(&fx, 2, 0, true, 0, 0, 0), 8); /* commit B */
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 9);
    c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 6);
    assert_int_equal(c.na, 1);
    assert_int_equal(index_entries(&fx, e, 4), 1);
    fx_close(&fx);
}

/* The aborted transactions listed are those overlapping what was read:
 * marker at or after the fetch offset, first offset below the first offset
 * not returned. */
static void read_committed_lists_the_aborted_transactions_it_overlaps(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 1, 0, -1, -1, -1, 0), 0);  /* plain */
    assert_int_equal(append(&fx, 1, TXN, 3, 0, 0, 0), 1);   /* C */
    assert_int_equal(marker(&fx, 3, 0, false, 0, 0, 0), 2); /* abort C */
    assert_int_equal(append(&fx, 1, 0, -1, -1, -1, 0), 3);  /* plain */
    assert_int_equal(append(&fx, 1, TXN, 4, 0, 0, 0), 4);   /* D */
    assert_int_equal(marker(&fx, 4, 0, false, 0, 0, 0), 5); /* abort D */
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 6);
    kc_buf_t one;
    kc_buf_init(&one);
    make_batch(&one, 1, 0, -1, -1, -1);
    int32_t size1 = (int32_t)one.len;
    kc_buf_deinit(&one);
    read_t c = read_at(&fx, 0, size1, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 1);
    assert_int_equal(c.na, 0);
    c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 6);
    assert_int_equal(c.na, 2);
    assert_int_equal(c.a[0].producer_id, 3);
    assert_int_equal(c.a[0].first_offset, 1);
    assert_int_equal(c.a[1].producer_id, 4);
    assert_int_equal(c.a[1].first_offset, 4);
    c = read_at(&fx, 3, size1, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 1);
    assert_int_equal(c.na, 0);
    c = read_at(&fx, 3, 2 * size1, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 2);
    assert_int_equal(c.na, 1);
    assert_int_equal(c.a[0].producer_id, 4);
    /* READ_UNCOMMITTED lists none. */
    c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_UNCOMMITTED);
    assert_int_equal(c.nb, 6);
    assert_int_equal(c.na, 0);
    fx_close(&fx);
}

/* Producer-state checks of transactional appends (ProducerAppendInfo). */
static void transactional_appends_follow_producer_rules(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 2, TXN, 5, 0, 0, 0), 0);
    /* A non-transactional batch while the transaction is ongoing. */
    append(&fx, 1, 0, 5, 0, 2, KC_LOG_ERR_INVALID_TXN_STATE);
    append(&fx, 1, TXN, 5, 0, 3, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    /* A retried batch is its original. */
    assert_int_equal(append(&fx, 2, TXN, 5, 0, 0, 0), 0);
    assert_int_equal(append(&fx, 1, TXN, 5, 0, 2, 0), 2);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 0);
    assert_int_equal(marker(&fx, 5, 0, true, 0, 0, 0), 3);
    assert_true(commit(&fx));
    /* Ended: plain idempotent batches are fine again. */
    assert_int_equal(append(&fx, 1, 0, 5, 0, 3, 0), 4);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 5);
    fx_close(&fx);
}

/* A marker of a newer epoch fences the old one; stale markers are refused
 * and write nothing. */
static void a_marker_with_a_higher_epoch_fences_the_producer(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 2, TXN, 8, 0, 0, 0), 0);
    assert_true(commit(&fx));
    /* Transaction version 2: the coordinator writes the abort at epoch 1. */
    assert_int_equal(marker(&fx, 8, 1, false, 2, 2, 0), 2);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 3);
    append(&fx, 1, TXN, 8, 0, 2, KC_LOG_ERR_INVALID_PRODUCER_EPOCH);
    marker(&fx, 8, 0, true, 2, 0, KC_LOG_ERR_INVALID_PRODUCER_EPOCH);
    assert_int_equal(offsets(&fx).log_end_offset, 3);
    /* A retried version 2 marker at the current epoch, no transaction ongoing. */
    assert_int_equal(marker(&fx, 8, 1, false, 2, 2, 0), 3);
    /* An older coordinator epoch is fenced. */
    marker(&fx, 8, 2, false, 1, 2, KC_LOG_ERR_TRANSACTION_COORDINATOR_FENCED);
    /* The new epoch starts at sequence 0 with a new transaction. */
    append(&fx, 1, TXN, 8, 1, 2, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(append(&fx, 1, TXN, 8, 1, 0, 0), 4);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 4);
    /* Version 2 with a transaction ongoing: an equal epoch is a late marker. */
    marker(&fx, 8, 1, true, 2, 2, KC_LOG_ERR_INVALID_PRODUCER_EPOCH);
    assert_int_equal(offsets(&fx).log_end_offset, 5);
    /* Version 0: the same epoch ends it. */
    assert_int_equal(marker(&fx, 8, 1, true, 2, 0, 0), 5);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 6);
    fx_close(&fx);
}

/* Reopening the store keeps the ongoing transactions' first offsets, the
 * aborted index and so the LSO. */
static void restart_keeps_transactions_index_and_lso(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 2, TXN, 1, 0, 0, 0), 0);   /* A 0-1, left open */
    assert_int_equal(append(&fx, 1, TXN, 2, 0, 0, 0), 2);   /* B */
    assert_int_equal(marker(&fx, 2, 0, false, 4, 0, 0), 3); /* abort B */
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 0);
    fx_close(&fx);

    fx_open(&fx, *state);
    assert_int_equal(lso(&fx), 0);
    assert_int_equal(offsets(&fx).high_watermark, 4);
    kc_log_aborted_entry_t e[4];
    assert_int_equal(index_entries(&fx, e, 4), 1);
    assert_int_equal(e[0].producer_id, 2);
    assert_int_equal(e[0].first_offset, 2);
    assert_int_equal(e[0].last_offset, 3);
    assert_int_equal(e[0].last_stable_offset, 0);
    /* A's transaction is still ongoing: plain batches of A are refused. */
    append(&fx, 1, 0, 1, 0, 2, KC_LOG_ERR_INVALID_TXN_STATE);
    /* B's coordinator epoch survived too. */
    marker(&fx, 2, 0, false, 3, 0, KC_LOG_ERR_TRANSACTION_COORDINATOR_FENCED);
    assert_int_equal(marker(&fx, 1, 0, true, 4, 0, 0), 4);
    assert_true(commit(&fx));
    assert_int_equal(lso(&fx), 5);
    read_t c = read_at(&fx, 0, 1 << 20, KC_LOG_READ_COMMITTED);
    assert_int_equal(c.nb, 4);
    assert_int_equal(c.na, 1);
    assert_int_equal(c.a[0].producer_id, 2);
    fx_close(&fx);
    fx_open(&fx, *state);
    assert_int_equal(lso(&fx), 5);
    fx_close(&fx);
}

static int producers(fx_t *fx, kc_log_producer_state_t *out, int max)
{
    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_log_producers(fx->log, TID, 0, &b), 0);
    int n = (int)(b.len / sizeof(*out));
    assert_true(n <= max);
    if (n)
        memcpy(out, b.data, b.len);
    kc_buf_deinit(&b);
    return n;
}

static const kc_log_producer_state_t *producer(const kc_log_producer_state_t *ps, int n,
                                               int64_t pid)
{
    for (int i = 0; i < n; i++)
        if (ps[i].producer_id == pid)
            return &ps[i];
    fail_msg("no state of producer %lld", (long long)pid);
    return NULL;
}

/* What DescribeProducers reports: epoch, last sequence and timestamp,
 * coordinator epoch, the ongoing transaction's start; kept over a restart. */
static void producer_states_for_describe_producers(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 3, TXN, 21, 2, 0, 0), 0);  /* seq 0-2, ongoing */
    assert_int_equal(append(&fx, 1, TXN, 22, 0, 0, 0), 3);
    assert_int_equal(marker(&fx, 22, 1, true, 9, 2, 0), 4); /* ends 22's, epoch 1 */
    assert_true(commit(&fx));
    for (int round = 0; round < 2; round++) {
        kc_log_producer_state_t ps[4];
        int n = producers(&fx, ps, 4);
        assert_int_equal(n, 2);
        const kc_log_producer_state_t *a = producer(ps, n, 21);
        assert_int_equal(a->producer_epoch, 2);
        assert_int_equal(a->last_sequence, 2);
        assert_int_equal(a->last_timestamp, NOW + 2);
        assert_int_equal(a->coordinator_epoch, -1);
        assert_int_equal(a->current_txn_start_offset, 0);
        const kc_log_producer_state_t *b = producer(ps, n, 22);
        assert_int_equal(b->producer_epoch, 1);
        assert_int_equal(b->last_sequence, -1); /* the new epoch forgot the batches */
        assert_int_equal(b->last_timestamp, NOW + 5);
        assert_int_equal(b->coordinator_epoch, 9);
        assert_int_equal(b->current_txn_start_offset, -1);
        fx_close(&fx);
        fx_open(&fx, *state);
    }
    fx_close(&fx);
}

/* A failed commit forgets the marker: the transaction is ongoing again. */
static void a_failed_commit_forgets_the_marker(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 1, TXN, 6, 0, 0, 0), 0);
    assert_true(commit(&fx));
    assert_int_equal(marker(&fx, 6, 0, false, 0, 0, 0), 1);
    kc_store_abort(fx.store);
    kc_log_reset(fx.log);
    assert_int_equal(lso(&fx), 0);
    assert_int_equal(offsets(&fx).log_end_offset, 1);
    assert_int_equal(index_entries(&fx, NULL, 0), 0);
    fx_close(&fx);
}

/* DeleteRecords and retention drop the aborted entries below the log start
 * offset; the LSO never falls below it. */
static void retention_trims_the_aborted_index(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 2, TXN, 3, 0, 0, 0), 0);   /* C 0-1 */
    assert_int_equal(marker(&fx, 3, 0, false, 0, 0, 0), 2); /* abort C */
    assert_int_equal(append(&fx, 1, TXN, 4, 0, 0, 0), 3);   /* D */
    assert_int_equal(marker(&fx, 4, 0, false, 0, 0, 0), 4); /* abort D */
    assert_int_equal(append(&fx, 1, 0, -1, -1, -1, 0), 5);
    assert_int_equal(append(&fx, 2, TXN, 5, 0, 0, 0), 6);   /* E 6-7, open */
    assert_true(commit(&fx));
    kc_log_aborted_entry_t e[4];
    assert_int_equal(index_entries(&fx, e, 4), 2);
    int64_t low;
    int16_t err;
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 3, &low, &err), 0);
    assert_int_equal(err, 0);
    (void)commit(&fx); /* the high watermark stays */
    assert_int_equal(index_entries(&fx, e, 4), 1);
    assert_int_equal(e[0].producer_id, 4);
    /* An entry whose marker is at the log start stays. */
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 4, &low, &err), 0);
    (void)commit(&fx); /* the high watermark stays */
    assert_int_equal(index_entries(&fx, e, 4), 1);
    assert_int_equal(lso(&fx), 6);
    /* Past E's first offset: the LSO follows the log start. */
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 7, &low, &err), 0);
    (void)commit(&fx); /* the high watermark stays */
    assert_int_equal(lso(&fx), 7);
    assert_int_equal(index_entries(&fx, e, 4), 0);
    /* Retention by time drops what is left, the index with it. */
    assert_int_equal(marker(&fx, 5, 0, false, 0, 0, 0), 8);
    assert_int_equal(append(&fx, 1, 0, -1, -1, -1, 0), 9);
    assert_true(commit(&fx));
    assert_int_equal(index_entries(&fx, e, 4), 1);
    assert_int_equal(e[0].first_offset, 6);
    size_t deleted;
    bool more;
    assert_int_equal(kc_log_apply_retention(fx.log, TID, 0, 1, -1, NOW + 100000, 100, &deleted,
                                            &more),
                     0);
    assert_true(deleted > 0);
    (void)commit(&fx); /* the high watermark stays */
    assert_int_equal(offsets(&fx).log_start_offset, 10);
    assert_int_equal(index_entries(&fx, e, 4), 0);
    assert_int_equal(lso(&fx), 10);
    fx_close(&fx);
}

/* Deleting the topic deletes its aborted index. */
static void delete_topic_removes_the_aborted_index(void **state)
{
    fx_t fx;
    fx_open(&fx, *state);
    assert_int_equal(append(&fx, 1, TXN, 3, 0, 0, 0), 0);
    assert_int_equal(marker(&fx, 3, 0, false, 0, 0, 0), 1);
    assert_true(commit(&fx));
    kc_log_aborted_entry_t e[4];
    assert_int_equal(index_entries(&fx, e, 4), 1);
    assert_int_equal(kc_log_delete_topic(fx.log, TID), 0);
    (void)commit(&fx);
    assert_int_equal(index_entries(&fx, e, 4), 0);
    assert_int_equal(lso(&fx), 0);
    fx_close(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(transactional_append_then_commit_marker, setup, teardown),
        cmocka_unit_test_setup_teardown(abort_marker_adds_an_aborted_index_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(lso_with_two_producers_interleaved, setup, teardown),
        cmocka_unit_test_setup_teardown(read_committed_lists_the_aborted_transactions_it_overlaps,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(transactional_appends_follow_producer_rules, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_marker_with_a_higher_epoch_fences_the_producer, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(restart_keeps_transactions_index_and_lso, setup, teardown),
        cmocka_unit_test_setup_teardown(producer_states_for_describe_producers, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failed_commit_forgets_the_marker, setup, teardown),
        cmocka_unit_test_setup_teardown(retention_trims_the_aborted_index, setup, teardown),
        cmocka_unit_test_setup_teardown(delete_topic_removes_the_aborted_index, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
