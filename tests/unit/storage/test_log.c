/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of storage/log.c and crc32c.c: appends, reads, offsets, validation, producer state, restart. */
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

static const kc_uuid_t TID = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};

static int setup(void **state)
{
    char *dir = calloc(1, 64);
    snprintf(dir, 64, "/tmp/kc-log-XXXXXX");
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

/* ---- CRC-32C vectors (RFC 3720 appendix B.4, and the "123456789" check value) ---- */

static void crc32c_vectors(void **state)
{
    (void)state;
    uint8_t buf[32];
    memset(buf, 0, sizeof(buf));
    assert_int_equal(kc_crc32c(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, sizeof(buf));
    assert_int_equal(kc_crc32c(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    assert_int_equal(kc_crc32c(0, buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)(31 - i);
    assert_int_equal(kc_crc32c(0, buf, 32), 0x113FDB5Cu);
    assert_int_equal(kc_crc32c(0, "123456789", 9), 0xE3069283u);
    /* Pieces chain into the whole. */
    uint32_t c = kc_crc32c(0, "1234", 4);
    assert_int_equal(kc_crc32c(c, "56789", 5), 0xE3069283u);
    assert_int_equal(kc_crc32c(0, "", 0), 0u);
}

/* The hardware path (when the processor has it) and the table agree on every
 * length and alignment, and both chain. */
static void crc32c_paths_agree(void **state)
{
    (void)state;
    uint8_t buf[300];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof(buf); i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    for (size_t off = 0; off < 9; off++)
        for (size_t len = 0; len + off <= sizeof(buf); len += 7) {
            uint32_t sw = kc_crc32c_sw(0, buf + off, len);
            assert_int_equal(kc_crc32c(0, buf + off, len), sw);
            size_t half = len / 2;
            uint32_t c = kc_crc32c(0, buf + off, half);
            assert_int_equal(kc_crc32c(c, buf + off + half, len - half), sw);
        }
    assert_int_equal(kc_crc32c_sw(0, "123456789", 9), 0xE3069283u);
    print_message("crc32c hardware path: %s\n", kc_crc32c_hw_available() ? "yes" : "no");
}

/* ---- batch builder ---- */

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

/* A magic 2 batch of n uncompressed records with timestamps ts0 + i. */
static void make_batch(kc_buf_t *out, int n, int64_t ts0, int64_t pid, int16_t epoch, int32_t seq)
{
    kc_buf_t recs, tail;
    kc_buf_init(&recs);
    kc_buf_init(&tail);
    for (int i = 0; i < n; i++) {
        kc_buf_t r;
        kc_buf_init(&r);
        char val[16];
        int vl = snprintf(val, sizeof(val), "v%d", i);
        kc_buf_append(&r, "\0", 1); /* attributes */
        varint(&r, i);              /* timestamp delta */
        varint(&r, i);              /* offset delta */
        varint(&r, -1);             /* null key */
        varint(&r, vl);
        kc_buf_append(&r, val, (size_t)vl);
        varint(&r, 0); /* headers */
        varint(&recs, (int64_t)r.len);
        kc_buf_append(&recs, r.data, r.len);
        kc_buf_deinit(&r);
    }
    put(&tail, 0, 2);                       /* attributes */
    put(&tail, (uint64_t)(n - 1), 4);       /* last offset delta */
    put(&tail, (uint64_t)ts0, 8);           /* base timestamp */
    put(&tail, (uint64_t)(ts0 + n - 1), 8); /* max timestamp */
    put(&tail, (uint64_t)pid, 8);
    put(&tail, (uint64_t)(uint16_t)epoch, 2);
    put(&tail, (uint64_t)(uint32_t)seq, 4);
    put(&tail, (uint64_t)n, 4);
    kc_buf_append(&tail, recs.data, recs.len);
    put(out, 0, 8);                            /* base offset */
    put(out, (uint64_t)(4 + 1 + 4 + tail.len), 4); /* batch length */
    put(out, 0xffffffffu, 4);                  /* partition leader epoch */
    kc_buf_append(out, "\2", 1);               /* magic */
    put(out, kc_crc32c(0, tail.data, tail.len), 4);
    kc_buf_append(out, tail.data, tail.len);
    kc_buf_deinit(&recs);
    kc_buf_deinit(&tail);
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

typedef struct {
    kc_store_t *store;
    kc_log_t *log;
} fx_t;

static void fx_open(fx_t *fx, const char *dir, int32_t max_message_bytes)
{
    assert_int_equal(kc_store_open(&fx->store, dir, MAP_SIZE), 0);
    kc_log_config_t cfg;
    kc_log_config_defaults(&cfg);
    if (max_message_bytes)
        cfg.max_message_bytes = max_message_bytes;
    fx->log = kc_log_new(fx->store, &cfg);
    assert_non_null(fx->log);
}

static void fx_close(fx_t *fx)
{
    kc_log_free(fx->log);
    kc_store_close(fx->store);
}

static void commit(fx_t *fx)
{
    assert_int_equal(kc_store_commit(fx->store), 0);
    kc_log_committed(fx->log);
}

static int64_t append(fx_t *fx, int32_t part, int n, int64_t ts0, int64_t pid, int16_t epoch,
                      int32_t seq, int16_t want_error)
{
    kc_buf_t b;
    kc_buf_init(&b);
    make_batch(&b, n, ts0, pid, epoch, seq);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx->log, TID, part, b.data, b.len, 9, NOW, &r), 0);
    kc_buf_deinit(&b);
    assert_int_equal(r.error_code, want_error);
    return r.base_offset;
}

/* ---- tests ---- */

static void append_then_read_after_commit(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    assert_int_equal(append(&fx, 0, 3, NOW, -1, -1, -1, 0), 0);
    assert_int_equal(append(&fx, 0, 2, NOW, -1, -1, -1, 0), 3);
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_end_offset, 5);
    assert_int_equal(o.high_watermark, 0); /* nothing durable yet */
    kc_buf_t out;
    kc_buf_init(&out);
    int16_t err = -1;
    assert_int_equal(kc_log_read(fx.log, TID, 0, 0, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(err, 0);
    assert_int_equal(out.len, 0);
    assert_int_equal(kc_store_commit(fx.store), 0);
    assert_true(kc_log_committed(fx.log));
    assert_false(kc_log_committed(fx.log));

    kc_buf_t b1, b2;
    kc_buf_init(&b1);
    kc_buf_init(&b2);
    make_batch(&b1, 3, NOW, -1, -1, -1);
    make_batch(&b2, 2, NOW, -1, -1, -1);
    assert_int_equal(kc_log_read(fx.log, TID, 0, 0, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(err, 0);
    assert_int_equal(o.high_watermark, 5);
    assert_int_equal(o.log_start_offset, 0);
    assert_int_equal(out.len, b1.len + b2.len);
    assert_int_equal(rd64(out.data), 0);
    assert_int_equal(rd64(out.data + b1.len), 3);
    /* Leader epoch rewritten to 0; everything from the magic byte on is as produced. */
    assert_memory_equal(out.data + 12, "\0\0\0\0", 4);
    assert_memory_equal(out.data + 16, b1.data + 16, b1.len - 16);
    assert_memory_equal(out.data + b1.len + 16, b2.data + 16, b2.len - 16);

    /* From the middle of the second batch: that whole batch. */
    kc_buf_reset(&out);
    assert_int_equal(kc_log_read(fx.log, TID, 0, 4, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(out.len, b2.len);
    assert_int_equal(rd64(out.data), 3);
    /* At the end: empty, no error; past it: out of range. */
    kc_buf_reset(&out);
    assert_int_equal(kc_log_read(fx.log, TID, 0, 5, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(err, 0);
    assert_int_equal(out.len, 0);
    assert_int_equal(kc_log_read(fx.log, TID, 0, 6, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(err, KC_LOG_ERR_OFFSET_OUT_OF_RANGE);
    assert_int_equal(kc_log_read(fx.log, TID, 0, -1, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(err, KC_LOG_ERR_OFFSET_OUT_OF_RANGE);
    /* Byte limits: min_one returns the whole first batch; otherwise exactly max bytes. */
    kc_buf_reset(&out);
    assert_int_equal(kc_log_read(fx.log, TID, 0, 0, 10, true, &out, &err, &o), 0);
    assert_int_equal(out.len, b1.len);
    kc_buf_reset(&out);
    assert_int_equal(kc_log_read(fx.log, TID, 0, 0, 10, false, &out, &err, &o), 0);
    assert_int_equal(out.len, 10);
    kc_buf_reset(&out);
    assert_int_equal(kc_log_read(fx.log, TID, 0, 0, (int32_t)b1.len + 5, true, &out, &err, &o), 0);
    assert_int_equal(out.len, b1.len + 5);
    /* Another partition is independent and empty. */
    assert_int_equal(kc_log_offsets(fx.log, TID, 1, &o), 0);
    assert_int_equal(o.log_end_offset, 0);
    kc_buf_deinit(&b1);
    kc_buf_deinit(&b2);
    kc_buf_deinit(&out);
    fx_close(&fx);
}

static void bad_batches_are_rejected(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 200);
    kc_buf_t b;
    kc_buf_init(&b);
    kc_log_append_result_t r;
#define APPEND(buf, len) kc_log_append(fx.log, TID, 0, (buf), (len), 9, NOW, &r)
    make_batch(&b, 3, NOW, -1, -1, -1);
    /* A flipped record byte: CRC mismatch. */
    b.data[b.len - 1] ^= 1;
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_CORRUPT_MESSAGE);
    assert_int_equal(r.base_offset, -1);
    b.data[b.len - 1] ^= 1;
    /* The leader epoch is outside the CRC. */
    b.data[13] = 7;
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, 0);
    /* Base offset must be 0. */
    b.data[7] = 1;
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    b.data[7] = 0;
    /* Old magic. */
    b.data[16] = 1;
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    b.data[16] = 9;
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_CORRUPT_MESSAGE);
    b.data[16] = 2;
    /* Truncated, empty, null. */
    assert_int_equal(APPEND(b.data, b.len - 1), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    assert_int_equal(APPEND(b.data, 11), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    assert_int_equal(APPEND(NULL, 0), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    /* Two batches in one partition's records. */
    kc_buf_t two;
    kc_buf_init(&two);
    kc_buf_append(&two, b.data, b.len);
    kc_buf_append(&b, two.data, two.len);
    kc_buf_deinit(&two);
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    /* Above message.max.bytes (200 here). */
    kc_buf_reset(&b);
    make_batch(&b, 40, NOW, -1, -1, -1);
    assert_true(b.len > 200);
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_MESSAGE_TOO_LARGE);
    /* A timestamp two hours ahead. */
    kc_buf_reset(&b);
    make_batch(&b, 2, NOW + 7200000, -1, -1, -1);
    assert_int_equal(APPEND(b.data, b.len), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_TIMESTAMP);
    assert_int_equal(r.record_error_index, 0);
#undef APPEND
    /* Only the one good append took an offset. */
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_end_offset, 3);
    kc_buf_deinit(&b);
    fx_close(&fx);
}

/* Refusals of the producer state (an old epoch, a sequence out of order)
 * carry the partition's log start offset and no message, as Kafka's. */
static void producer_state_refusals_answer_log_start(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    assert_int_equal(append(&fx, 0, 2, NOW, 7, 1, 0, 0), 0);
    const struct {
        int16_t epoch;
        int32_t seq;
        int16_t error;
    } cases[] = {{1, 5, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER},
                 {2, 3, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER},
                 {0, 2, KC_LOG_ERR_INVALID_PRODUCER_EPOCH}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kc_buf_t b;
        kc_buf_init(&b);
        make_batch(&b, 1, NOW, 7, cases[i].epoch, cases[i].seq);
        kc_log_append_result_t r;
        assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
        kc_buf_deinit(&b);
        assert_int_equal(r.error_code, cases[i].error);
        assert_int_equal(r.base_offset, -1);
        assert_int_equal(r.log_start_offset, 0);
        assert_null(r.error_message);
    }
    fx_close(&fx);
}

static void idempotent_producer_rules(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    assert_int_equal(append(&fx, 0, 2, NOW, 7, 0, 0, 0), 0);
    assert_int_equal(append(&fx, 0, 2, NOW, 7, 0, 0, 0), 0); /* retry: same offset */
    assert_int_equal(append(&fx, 0, 1, NOW, 7, 0, 5, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER), -1);
    assert_int_equal(append(&fx, 0, 3, NOW, 7, 0, 2, 0), 2);
    assert_int_equal(append(&fx, 0, 2, NOW, 7, 0, 0, 0), 0); /* older retry, still cached */
    /* A new epoch starts at sequence 0; an older epoch is fenced. */
    assert_int_equal(append(&fx, 0, 1, NOW, 7, 1, 5, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER), -1);
    assert_int_equal(append(&fx, 0, 1, NOW, 7, 1, 0, 0), 5);
    assert_int_equal(append(&fx, 0, 1, NOW, 7, 0, 5, KC_LOG_ERR_INVALID_PRODUCER_EPOCH), -1);
    /* A producer unknown to this partition may start at any sequence. */
    assert_int_equal(append(&fx, 0, 1, NOW, 8, 0, 42, 0), 6);
    /* Negative sequence with a producer id. */
    assert_int_equal(append(&fx, 0, 1, NOW, 9, 0, -1, KC_LOG_ERR_INVALID_RECORD), -1);
    commit(&fx);
    int64_t pid1, pid2;
    assert_int_equal(kc_log_next_producer_id(fx.log, &pid1), 0);
    assert_int_equal(kc_log_next_producer_id(fx.log, &pid2), 0);
    assert_int_equal(pid2, pid1 + 1);
    commit(&fx);
    fx_close(&fx);

    /* After a restart: offsets, duplicates and sequence state survive; ids are not reused. */
    fx_open(&fx, *state, 0);
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_end_offset, 7);
    assert_int_equal(o.high_watermark, 7);
    assert_int_equal(append(&fx, 0, 1, NOW, 7, 1, 0, 0), 5);
    assert_int_equal(append(&fx, 0, 1, NOW, 7, 1, 2, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER), -1);
    assert_int_equal(append(&fx, 0, 1, NOW, 7, 1, 1, 0), 7);
    assert_int_equal(append(&fx, 0, 1, NOW, 8, 0, 43, 0), 8);
    int64_t pid3;
    assert_int_equal(kc_log_next_producer_id(fx.log, &pid3), 0);
    assert_true(pid3 > pid2);
    fx_close(&fx);
}

static void failed_commit_forgets_pending_appends(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    assert_int_equal(append(&fx, 0, 2, NOW, -1, -1, -1, 0), 0);
    commit(&fx);
    assert_int_equal(append(&fx, 0, 2, NOW, 3, 0, 0, 0), 2);
    kc_store_abort(fx.store);
    kc_log_reset(fx.log);
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_end_offset, 2);
    /* The producer state of the lost append is gone too: sequence 0 is new again. */
    assert_int_equal(append(&fx, 0, 2, NOW, 3, 0, 0, 0), 2);
    commit(&fx);
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.high_watermark, 4);
    fx_close(&fx);
}

static void list_offsets_by_timestamp(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    int64_t off, ts;
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -3, &off, &ts), 0);
    assert_int_equal(off, -1);
    assert_int_equal(ts, -1);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -1, &off, &ts), 0);
    assert_int_equal(off, 0);
    append(&fx, 0, 3, NOW - 5000, -1, -1, -1, 0); /* offsets 0-2: ts NOW-5000 .. NOW-4998 */
    append(&fx, 0, 2, NOW, -1, -1, -1, 0);        /* offsets 3-4: ts NOW, NOW+1 */
    append(&fx, 0, 1, NOW - 9000, -1, -1, -1, 0); /* offset 5: ts NOW-9000 */
    /* Uncommitted appends are not visible. */
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -1, &off, &ts), 0);
    assert_int_equal(off, 0);
    commit(&fx);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -1, &off, &ts), 0);
    assert_int_equal(off, 6);
    assert_int_equal(ts, -1);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -2, &off, &ts), 0);
    assert_int_equal(off, 0);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW - 4999, &off, &ts), 0);
    assert_int_equal(off, 1);
    assert_int_equal(ts, NOW - 4999);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW - 100, &off, &ts), 0);
    assert_int_equal(off, 3);
    assert_int_equal(ts, NOW);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW + 2, &off, &ts), 0);
    assert_int_equal(off, -1);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -3, &off, &ts), 0);
    assert_int_equal(off, 4);
    assert_int_equal(ts, NOW + 1);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -7, &off, &ts), KC_EINVAL);
    fx_close(&fx);
}

static void delete_topic_removes_everything(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    append(&fx, 0, 2, NOW, 5, 0, 0, 0);
    append(&fx, 1, 2, NOW, -1, -1, -1, 0);
    kc_uuid_t other = TID;
    other.b[15] ^= 0xff;
    kc_buf_t b;
    kc_buf_init(&b);
    make_batch(&b, 1, NOW, -1, -1, -1);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx.log, other, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(r.error_code, 0);
    commit(&fx);
    assert_int_equal(kc_log_delete_topic(fx.log, TID), 0);
    commit(&fx);
    fx_close(&fx);
    fx_open(&fx, *state, 0);
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_end_offset, 0);
    assert_int_equal(kc_log_offsets(fx.log, TID, 1, &o), 0);
    assert_int_equal(o.log_end_offset, 0);
    assert_int_equal(kc_log_offsets(fx.log, other, 0, &o), 0);
    assert_int_equal(o.log_end_offset, 1);
    /* Producer 5 is unknown again: any sequence is accepted. */
    assert_int_equal(append(&fx, 0, 1, NOW, 5, 0, 9, 0), 0);
    kc_buf_deinit(&b);
    fx_close(&fx);
}

/* ---- DeleteRecords and retention ---- */

static void delete_records_moves_log_start_and_survives_restart(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    append(&fx, 0, 3, NOW, -1, -1, -1, 0);
    append(&fx, 0, 3, NOW, -1, -1, -1, 0);
    commit(&fx);
    int64_t low;
    int16_t err;
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 7, &low, &err), 0);
    assert_int_equal(err, KC_LOG_ERR_OFFSET_OUT_OF_RANGE);
    assert_int_equal(low, -1);
    /* Inside the second batch: the first batch goes, the second stays. */
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 4, &low, &err), 0);
    assert_int_equal(err, 0);
    assert_int_equal(low, 4);
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 1, &low, &err), 0);
    assert_int_equal(low, 4); /* never moves back */
    commit(&fx);
    kc_buf_t out;
    kc_buf_init(&out);
    kc_log_offsets_t o;
    assert_int_equal(kc_log_read(fx.log, TID, 0, 3, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(err, KC_LOG_ERR_OFFSET_OUT_OF_RANGE);
    fx_close(&fx);
    fx_open(&fx, *state, 0);
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_start_offset, 4);
    assert_int_equal(o.log_end_offset, 6);
    /* -1 is the high watermark; an empty log keeps its end after a restart. */
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, -1, &low, &err), 0);
    assert_int_equal(low, 6);
    commit(&fx);
    fx_close(&fx);
    fx_open(&fx, *state, 0);
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_start_offset, 6);
    assert_int_equal(o.log_end_offset, 6);
    assert_int_equal(append(&fx, 0, 1, NOW, -1, -1, -1, 0), 6);
    kc_buf_deinit(&out);
    fx_close(&fx);
}

/* A search by timestamp after DeleteRecords moved the log start into a
 * batch finds the first record at or after the log start, not the next
 * batch (FileRecords.searchForTimestamp's starting offset). */
static void list_offsets_by_timestamp_after_delete_records(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    append(&fx, 0, 3, NOW, -1, -1, -1, 0);       /* offsets 0-2 at NOW..NOW+2 */
    append(&fx, 0, 3, NOW + 100, -1, -1, -1, 0); /* offsets 3-5 at NOW+100..NOW+102 */
    commit(&fx);
    int64_t low, off, ts;
    int16_t err;
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 4, &low, &err), 0);
    commit(&fx);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, 0, &off, &ts), 0);
    assert_int_equal(off, 4);
    assert_int_equal(ts, NOW + 101);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW + 100, &off, &ts), 0);
    assert_int_equal(off, 4);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW + 102, &off, &ts), 0);
    assert_int_equal(off, 5);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -3, &off, &ts), 0);
    assert_int_equal(off, 5);
    assert_int_equal(ts, NOW + 102);
    fx_close(&fx);
}

/* A gzip batch of three records created at NOW, NOW + 10 and NOW + 5. */
static const uint8_t gzip_batch[] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5c, 0xff, 0xff, 0xff, 0xff,
    0x02, 0x6c, 0xe3, 0x48, 0x7c, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x8b, 0xcf,
    0xe5, 0x68, 0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x0a, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x03, 0x1f, 0x8b, 0x08,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x13, 0x60, 0x60, 0x60, 0x60, 0x64, 0x29, 0x33, 0x60,
    0x10, 0x60, 0x10, 0x61, 0x02, 0x32, 0x0c, 0x81, 0x0c, 0x2e, 0x16, 0x20, 0xc3, 0x88, 0x01, 0x00,
    0xfa, 0x01, 0x2f, 0xf0, 0x1b, 0x00, 0x00, 0x00};

/* A compressed batch is searched record by record, as Kafka decompresses
 * it: max timestamp names the record holding it, a timestamp the first
 * record at or after it. */
static void list_offsets_by_timestamp_in_compressed_batch(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx.log, TID, 0, gzip_batch, sizeof(gzip_batch), 9, NOW, &r),
                     0);
    assert_int_equal(r.error_code, 0);
    commit(&fx);
    int64_t off, ts;
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -3, &off, &ts), 0);
    assert_int_equal(off, 1);
    assert_int_equal(ts, NOW + 10);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW + 1, &off, &ts), 0);
    assert_int_equal(off, 1);
    assert_int_equal(ts, NOW + 10);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW, &off, &ts), 0);
    assert_int_equal(off, 0);
    assert_int_equal(ts, NOW);
    fx_close(&fx);
}

static void retention_deletes_old_and_excess_batches(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    append(&fx, 0, 2, NOW - 10000, -1, -1, -1, 0);
    append(&fx, 0, 2, NOW - 9000, -1, -1, -1, 0);
    append(&fx, 0, 2, NOW, -1, -1, -1, 0);
    append(&fx, 0, 2, NOW, -1, -1, -1, 0);
    commit(&fx);
    size_t deleted;
    bool more;
    /* Budget of one batch: one goes, more remain. */
    assert_int_equal(kc_log_apply_retention(fx.log, TID, 0, 5000, -1, NOW, 1, &deleted, &more), 0);
    assert_int_equal(deleted, 1);
    assert_true(more);
    assert_int_equal(kc_log_apply_retention(fx.log, TID, 0, 5000, -1, NOW, 10, &deleted, &more), 0);
    assert_int_equal(deleted, 1);
    assert_false(more);
    commit(&fx);
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_start_offset, 4);
    /* retention.bytes: keep at least that many bytes; one batch's worth keeps one batch. */
    kc_buf_t b;
    kc_buf_init(&b);
    make_batch(&b, 2, NOW, -1, -1, -1);
    assert_int_equal(kc_log_apply_retention(fx.log, TID, 0, -1, (int64_t)b.len, NOW, 10,
                                            &deleted, &more), 0);
    assert_int_equal(deleted, 1);
    commit(&fx);
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_start_offset, 6);
    assert_int_equal(o.log_end_offset, 8);
    /* Nothing to do: no limits. */
    assert_int_equal(kc_log_apply_retention(fx.log, TID, 0, -1, -1, NOW, 10, &deleted, &more), 0);
    assert_int_equal(deleted, 0);
    kc_buf_deinit(&b);
    fx_close(&fx);
}

/* A kc_log_topic_config_fn: partition index decides nothing; the topic id's
 * first byte picks the configs (TID has its own, OTHER_TID the defaults). */
static void topic_config_fn(void *ctx, kc_uuid_t topic_id, kc_log_topic_config_t *cfg)
{
    int *asked = ctx;
    (*asked)++;
    if (topic_id.b[0] != TID.b[0])
        return;
    cfg->max_message_bytes = 200;
    cfg->log_append_time = true;
    cfg->message_timestamp_after_max_ms = 0; /* ignored for LogAppendTime */
    cfg->flush_messages = 3;
}

static void topic_configs_apply_per_topic(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    int asked = 0;
    kc_log_set_topic_config(fx.log, topic_config_fn, &asked);
    kc_uuid_t other = TID;
    other.b[0] ^= 0xff;
    kc_buf_t b;
    kc_buf_init(&b);
    /* max.message.bytes of the topic, not the broker's */
    make_batch(&b, 20, NOW, -1, -1, -1);
    assert_true(b.len > 200);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_MESSAGE_TOO_LARGE);
    assert_int_equal(kc_log_append(fx.log, other, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.log_append_time, -1); /* CreateTime */
    /* LogAppendTime: timestamps far in the future are not checked, the broker
     * clock becomes the batch's max timestamp with the LogAppendTime bit, and
     * the response carries it. */
    kc_buf_reset(&b);
    make_batch(&b, 2, NOW + 86400000LL, 7, 0, 0);
    assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW + 5, &r), 0);
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.base_offset, 0);
    assert_int_equal(r.log_append_time, NOW + 5);
    /* A retried duplicate answers its batch's timestamp (UnifiedLog), on any topic. */
    assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW + 99, &r), 0);
    assert_int_equal(r.base_offset, 0);
    assert_int_equal(r.log_append_time, NOW + 5);
    kc_buf_reset(&b);
    make_batch(&b, 1, NOW - 7, 8, 0, 0);
    assert_int_equal(kc_log_append(fx.log, other, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(kc_log_append(fx.log, other, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(r.base_offset, 20);
    assert_int_equal(r.log_append_time, NOW - 7);
    commit(&fx);
    kc_buf_t got;
    kc_buf_init(&got);
    int16_t err;
    kc_log_offsets_t o;
    assert_int_equal(kc_log_read(fx.log, TID, 0, 0, 1 << 20, true, &got, &err, &o), 0);
    assert_int_equal(err, 0);
    assert_int_equal(got.data[22] & 0x08, 0x08); /* attributes: LogAppendTime */
    assert_int_equal((int64_t)rd64(got.data + 35), NOW + 5); /* max timestamp */
    assert_int_equal(kc_crc32c(0, got.data + 21, got.len - 21),
                     (uint32_t)(rd64(got.data + 17) >> 32));
    /* flush.messages: 2 unflushed records of TID are below 3 */
    assert_false(kc_log_flush_due(fx.log, -1));
    kc_buf_reset(&b);
    make_batch(&b, 1, NOW, -1, -1, -1);
    assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    commit(&fx);
    assert_true(kc_log_flush_due(fx.log, -1));
    kc_log_flushed(fx.log);
    assert_false(kc_log_flush_due(fx.log, 1000000));
    assert_int_equal(asked, 2); /* once per partition */
    kc_buf_deinit(&got);
    kc_buf_deinit(&b);
    fx_close(&fx);
}

/* The leader epoch a batch was stamped with (PartitionLeaderEpoch). */
static int32_t batch_epoch(const uint8_t *b)
{
    return (int32_t)(((uint32_t)b[12] << 24) | ((uint32_t)b[13] << 16) | ((uint32_t)b[14] << 8) |
                     b[15]);
}

static int32_t current_epoch(fx_t *fx, int32_t part)
{
    const kc_epoch_cache_t *c;
    assert_int_equal(kc_log_epoch_cache(fx->log, TID, part, &c, NULL), 0);
    return kc_epoch_cache_latest(c);
}

/* A new partition is at epoch 0; kc_log_make_leader starts a new epoch at the
 * log end, which later batches carry; the cache survives a restart, follows
 * DeleteRecords, and goes with the topic. */
static void leader_epochs_stamp_batches_and_survive_restart(void **state)
{
    fx_t fx;
    fx_open(&fx, *state, 0);
    assert_int_equal(current_epoch(&fx, 0), 0);
    assert_int_equal(append(&fx, 0, 2, NOW, -1, -1, -1, 0), 0);
    commit(&fx);
    assert_int_equal(kc_log_make_leader(fx.log, TID, 0, 2), 0);
    assert_int_equal(kc_log_make_leader(fx.log, TID, 0, 2), 0); /* already the epoch */
    assert_int_equal(current_epoch(&fx, 0), 2);
    assert_int_equal(append(&fx, 0, 1, NOW, -1, -1, -1, 0), 2);
    commit(&fx);
    /* Epoch 0 of partition 1 is never written: its first bump replaces it. */
    assert_int_equal(kc_log_make_leader(fx.log, TID, 1, 2), 0);
    commit(&fx);
    fx_close(&fx);

    fx_open(&fx, *state, 0);
    const kc_epoch_cache_t *c;
    kc_log_offsets_t o;
    assert_int_equal(kc_log_epoch_cache(fx.log, TID, 0, &c, &o), 0);
    assert_int_equal(c->n, 2);
    assert_int_equal(c->e[0].epoch, 0);
    assert_int_equal(c->e[0].start_offset, 0);
    assert_int_equal(c->e[1].epoch, 2);
    assert_int_equal(c->e[1].start_offset, 2);
    assert_int_equal(o.log_end_offset, 3);
    assert_int_equal(kc_log_epoch_cache(fx.log, TID, 1, &c, NULL), 0);
    assert_int_equal(c->n, 1);
    assert_int_equal(c->e[0].epoch, 2);
    kc_buf_t out;
    kc_buf_init(&out);
    int16_t err = -1;
    assert_int_equal(kc_log_read(fx.log, TID, 0, 0, 1 << 20, true, &out, &err, &o), 0);
    assert_int_equal(err, 0);
    kc_buf_t b2;
    kc_buf_init(&b2);
    make_batch(&b2, 2, NOW, -1, -1, -1);
    assert_int_equal(batch_epoch(out.data), 0);
    assert_int_equal(batch_epoch(out.data + b2.len), 2);
    assert_int_equal(rd64(out.data + b2.len), 2);
    kc_buf_deinit(&b2);
    kc_buf_deinit(&out);

    /* DeleteRecords past epoch 0: epoch 2 is the earliest, from the new start. */
    int64_t low;
    assert_int_equal(kc_log_delete_records(fx.log, TID, 0, 3, &low, &err), 0);
    assert_int_equal(err, 0);
    commit(&fx);
    fx_close(&fx);
    fx_open(&fx, *state, 0);
    assert_int_equal(kc_log_epoch_cache(fx.log, TID, 0, &c, NULL), 0);
    assert_int_equal(c->n, 1);
    assert_int_equal(c->e[0].epoch, 2);
    assert_int_equal(c->e[0].start_offset, 3);

    /* A failed commit forgets a bump. */
    assert_int_equal(kc_log_make_leader(fx.log, TID, 0, 4), 0);
    assert_int_equal(current_epoch(&fx, 0), 4);
    kc_store_abort(fx.store);
    kc_log_reset(fx.log);
    assert_int_equal(current_epoch(&fx, 0), 2);

    /* A deleted topic takes its epochs along. */
    assert_int_equal(kc_log_delete_topic(fx.log, TID), 0);
    commit(&fx);
    fx_close(&fx);
    fx_open(&fx, *state, 0);
    assert_int_equal(current_epoch(&fx, 0), 0);
    assert_int_equal(current_epoch(&fx, 1), 0);
    fx_close(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc32c_vectors),
        cmocka_unit_test(crc32c_paths_agree),
        cmocka_unit_test_setup_teardown(append_then_read_after_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_batches_are_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(producer_state_refusals_answer_log_start, setup, teardown),
        cmocka_unit_test_setup_teardown(idempotent_producer_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(failed_commit_forgets_pending_appends, setup, teardown),
        cmocka_unit_test_setup_teardown(list_offsets_by_timestamp, setup, teardown),
        cmocka_unit_test_setup_teardown(delete_topic_removes_everything, setup, teardown),
        cmocka_unit_test_setup_teardown(delete_records_moves_log_start_and_survives_restart,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(list_offsets_by_timestamp_after_delete_records, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(list_offsets_by_timestamp_in_compressed_batch, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(retention_deletes_old_and_excess_batches, setup, teardown),
        cmocka_unit_test_setup_teardown(topic_configs_apply_per_topic, setup, teardown),
        cmocka_unit_test_setup_teardown(leader_epochs_stamp_batches_and_survive_restart, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
