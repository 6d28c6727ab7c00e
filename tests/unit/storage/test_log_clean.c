/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of storage/log_clean.c: the produce validation of compacted
 * topics, segment rolls, how dirty a partition is, and cleans (latest value
 * per key at its original offset, tombstone horizons, a producer's last
 * batch, compressed batches, a crash between slices, the log start offset).
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
#include "legacy.h"
#include "log.h"

#define MAP_SIZE (32u << 20)
#define NOW 1700000000000LL
#define DAY 86400000LL

static const kc_uuid_t TID = {{7, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};

static int setup(void **state)
{
    char *dir = calloc(1, 64);
    snprintf(dir, 64, "/tmp/kc-clean-XXXXXX");
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

typedef struct {
    const char *key;   /* NULL: no key */
    const char *value; /* NULL: a tombstone */
} kv_t;

/* A magic 2 batch of the records kv[0..n), created at ts0 + i; codec 0 or 1 (gzip). */
static void make_batch(kc_buf_t *out, const kv_t *kv, int n, int64_t ts0, int64_t pid,
                       int16_t epoch, int32_t seq, int codec)
{
    kc_buf_t recs, tail;
    kc_buf_init(&recs);
    kc_buf_init(&tail);
    for (int i = 0; i < n; i++) {
        kc_buf_t r;
        kc_buf_init(&r);
        kc_buf_append(&r, "\0", 1);
        varint(&r, i); /* timestamp delta */
        varint(&r, i); /* offset delta */
        if (kv[i].key) {
            varint(&r, (int64_t)strlen(kv[i].key));
            kc_buf_append(&r, kv[i].key, strlen(kv[i].key));
        } else {
            varint(&r, -1);
        }
        if (kv[i].value) {
            varint(&r, (int64_t)strlen(kv[i].value));
            kc_buf_append(&r, kv[i].value, strlen(kv[i].value));
        } else {
            varint(&r, -1);
        }
        varint(&r, 0);
        varint(&recs, (int64_t)r.len);
        kc_buf_append(&recs, r.data, r.len);
        kc_buf_deinit(&r);
    }
    kc_buf_t packed;
    kc_buf_init(&packed);
    if (codec)
        assert_int_equal(kc_records_compress(codec, recs.data, recs.len, &packed), 0);
    else
        kc_buf_append(&packed, recs.data, recs.len);
    put(&tail, (uint64_t)codec, 2);
    put(&tail, (uint64_t)(n - 1), 4);
    put(&tail, (uint64_t)ts0, 8);
    put(&tail, (uint64_t)(ts0 + n - 1), 8);
    put(&tail, (uint64_t)pid, 8);
    put(&tail, (uint64_t)(uint16_t)epoch, 2);
    put(&tail, (uint64_t)(uint32_t)seq, 4);
    put(&tail, (uint64_t)n, 4);
    kc_buf_append(&tail, packed.data, packed.len);
    put(out, 0, 8);
    put(out, (uint64_t)(4 + 1 + 4 + tail.len), 4);
    put(out, 0xffffffffu, 4);
    kc_buf_append(out, "\2", 1);
    put(out, kc_crc32c(0, tail.data, tail.len), 4);
    kc_buf_append(out, tail.data, tail.len);
    kc_buf_deinit(&recs);
    kc_buf_deinit(&packed);
    kc_buf_deinit(&tail);
}

static uint64_t rd(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

static int64_t rvarint(const uint8_t **p)
{
    uint64_t u = 0;
    int shift = 0;
    for (;;) {
        uint8_t x = *(*p)++;
        u |= (uint64_t)(x & 0x7f) << shift;
        if (!(x & 0x80))
            break;
        shift += 7;
    }
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* What a read returns, batch by batch and record by record. */
typedef struct {
    int64_t offset, timestamp;
    char key[16], value[16];
    bool has_key, has_value;
} rec_t;

typedef struct {
    int64_t base, last, base_ts, max_ts, pid;
    int32_t count, seq;
    int16_t attrs;
    int first_rec, nrecs;
} batch_t;

typedef struct {
    batch_t b[256];
    int nb;
    rec_t r[1024];
    int nr;
} log_view_t;

/* Adds the batches of data to v. */
static void parse(const kc_buf_t *data, log_view_t *v)
{
    size_t pos = 0;
    while (pos + 61 <= data->len) {
        const uint8_t *h = data->data + pos;
        size_t size = (size_t)rd(h + 8, 4) + 12;
        assert_true(pos + size <= data->len);
        /* The CRC holds for a rewritten batch too. */
        assert_int_equal(kc_crc32c(0, h + 21, size - 21), (uint32_t)rd(h + 17, 4));
        batch_t *b = &v->b[v->nb++];
        b->base = (int64_t)rd(h, 8);
        b->attrs = (int16_t)rd(h + 21, 2);
        b->last = b->base + (int32_t)rd(h + 23, 4);
        b->base_ts = (int64_t)rd(h + 27, 8);
        b->max_ts = (int64_t)rd(h + 35, 8);
        b->pid = (int64_t)rd(h + 43, 8);
        b->seq = (int32_t)rd(h + 53, 4);
        b->count = (int32_t)rd(h + 57, 4);
        b->first_rec = v->nr;
        kc_buf_t plain;
        kc_buf_init(&plain);
        const uint8_t *p = h + 61, *end = h + size;
        if (b->attrs & 7) {
            assert_int_equal(kc_records_decompress(b->attrs & 7, p, size - 61, 1 << 20, &plain), 0);
            p = plain.data;
            end = plain.data + plain.len;
        }
        for (int32_t i = 0; i < b->count; i++) {
            rec_t *r = &v->r[v->nr++];
            rvarint(&p); /* length */
            p++;         /* attributes */
            r->timestamp = b->base_ts + rvarint(&p);
            r->offset = b->base + rvarint(&p);
            int64_t kl = rvarint(&p);
            r->has_key = kl >= 0;
            if (kl > 0) {
                memcpy(r->key, p, (size_t)kl);
                p += kl;
            }
            int64_t vl = rvarint(&p);
            r->has_value = vl >= 0;
            if (vl > 0) {
                memcpy(r->value, p, (size_t)vl);
                p += vl;
            }
            assert_int_equal(rvarint(&p), 0); /* headers */
        }
        assert_ptr_equal(p, end);
        kc_buf_deinit(&plain);
        b->nrecs = v->nr - b->first_rec;
        pos += size;
    }
}

/* ---- fixture ---- */

typedef struct {
    kc_store_t *store;
    kc_log_t *log;
    kc_log_topic_config_t tc; /* what the topic config function hands out */
} fx_t;

static void topic_config_fn(void *ctx, kc_uuid_t topic_id, kc_log_topic_config_t *cfg)
{
    (void)topic_id;
    const fx_t *fx = ctx;
    cfg->compact = fx->tc.compact;
    cfg->segment_bytes = fx->tc.segment_bytes;
    cfg->segment_ms = fx->tc.segment_ms;
    cfg->delete_retention_ms = fx->tc.delete_retention_ms;
    cfg->min_compaction_lag_ms = fx->tc.min_compaction_lag_ms;
    cfg->max_compaction_lag_ms = fx->tc.max_compaction_lag_ms;
    cfg->min_cleanable_dirty_ratio = fx->tc.min_cleanable_dirty_ratio;
    cfg->message_timestamp_after_max_ms = INT64_MAX;
}

static void fx_open(fx_t *fx, const char *dir)
{
    assert_int_equal(kc_store_open(&fx->store, dir, MAP_SIZE), 0);
    fx->log = kc_log_new(fx->store, NULL);
    assert_non_null(fx->log);
    kc_log_set_topic_config(fx->log, topic_config_fn, fx);
}

/* A compacted topic whose every batch more than 1 ms newer than its
 * segment's first rolls a new segment. */
static void fx_init(fx_t *fx, const char *dir)
{
    memset(fx, 0, sizeof(*fx));
    fx->tc.compact = true;
    fx->tc.segment_bytes = 1 << 30;
    fx->tc.segment_ms = 1;
    fx->tc.delete_retention_ms = DAY;
    fx->tc.max_compaction_lag_ms = INT64_MAX;
    fx->tc.min_cleanable_dirty_ratio = 0.5;
    fx_open(fx, dir);
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

/* Appends kv as one batch created at ts (committed); returns its base offset. */
static int64_t produce(fx_t *fx, const kv_t *kv, int n, int64_t ts, int64_t pid, int32_t seq,
                       int codec)
{
    kc_buf_t b;
    kc_buf_init(&b);
    make_batch(&b, kv, n, ts, pid, pid >= 0 ? 0 : -1, seq, codec);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx->log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    kc_buf_deinit(&b);
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.record_errors.len, 0);
    commit(fx);
    return r.base_offset;
}

/* Runs a whole clean at now in slices of budget bytes, each committed. */
static kc_log_clean_stats_t clean(fx_t *fx, int64_t now, size_t budget)
{
    kc_log_clean_candidate_t c;
    assert_int_equal(kc_log_clean_evaluate(fx->log, TID, 0, now, &c), 0);
    assert_true(c.eligible);
    assert_int_equal(kc_log_clean_begin(fx->log, TID, 0, now), 0);
    bool done = false;
    kc_log_clean_stats_t st;
    memset(&st, 0, sizeof(st));
    for (int i = 0; !done && i < 10000; i++) {
        assert_true(kc_log_clean_busy(fx->log, NULL, NULL));
        assert_int_equal(kc_log_clean_step(fx->log, budget, &done, &st), 0);
        commit(fx);
    }
    assert_true(done);
    assert_false(kc_log_clean_busy(fx->log, NULL, NULL));
    return st;
}

/* What a consumer reads from offset from to the high watermark, one fetch
 * after the other (each stops at the end of a segment). *fetches: how many. */
static void read_all_n(fx_t *fx, int64_t from, log_view_t *v, kc_log_offsets_t *o, int *fetches)
{
    memset(v, 0, sizeof(*v));
    *fetches = 0;
    for (;;) {
        kc_buf_t out;
        kc_buf_init(&out);
        int16_t err = -1;
        assert_int_equal(kc_log_read(fx->log, TID, 0, from, 1 << 20, true, &out, &err, o), 0);
        assert_int_equal(err, 0);
        int nb = v->nb;
        parse(&out, v);
        kc_buf_deinit(&out);
        if (v->nb == nb)
            return;
        (*fetches)++;
        from = v->b[v->nb - 1].last + 1;
    }
}

static void read_all(fx_t *fx, int64_t from, log_view_t *v, kc_log_offsets_t *o)
{
    int fetches;
    read_all_n(fx, from, v, o, &fetches);
}

static const rec_t *find(const log_view_t *v, int64_t offset)
{
    for (int i = 0; i < v->nr; i++)
        if (v->r[i].offset == offset)
            return &v->r[i];
    return NULL;
}

/* ---- produce validation ---- */

static void keyless_records_are_refused_on_a_compacted_topic(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    kc_buf_t b;
    kc_buf_init(&b);
    /* Records 1 and 3 lack a key: both named, the whole batch refused. */
    kv_t mixed[] = {{"a", "1"}, {NULL, "2"}, {"b", NULL}, {NULL, "4"}};
    make_batch(&b, mixed, 4, NOW, -1, -1, -1, 0);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    assert_int_equal(r.base_offset, -1);
    assert_int_equal(r.log_start_offset, 0);
    assert_int_equal(r.record_errors.len, 2 * sizeof(kc_log_record_error_t));
    const kc_log_record_error_t *e = (const kc_log_record_error_t *)(void *)r.record_errors.data;
    assert_int_equal(e[0].batch_index, 1);
    assert_int_equal(e[0].why, KC_LOG_RECORD_NO_KEY);
    assert_int_equal(e[1].batch_index, 3);
    kc_buf_deinit(&r.record_errors);
    /* The same in a gzip batch, which is opened for it. */
    kc_buf_reset(&b);
    make_batch(&b, mixed, 4, NOW, -1, -1, -1, 1);
    assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(r.error_code, KC_LOG_ERR_INVALID_RECORD);
    assert_int_equal(r.record_errors.len, 2 * sizeof(kc_log_record_error_t));
    kc_buf_deinit(&r.record_errors);
    /* Keys, a tombstone among them: accepted. */
    kv_t keyed[] = {{"a", "1"}, {"b", NULL}, {"", "empty key"}};
    assert_int_equal(produce(&fx, keyed, 3, NOW, -1, -1, 0), 0);
    assert_int_equal(produce(&fx, keyed, 3, NOW, -1, -1, 1), 3);
    /* A topic that does not compact takes records without keys. */
    fx.tc.compact = false;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    assert_int_equal(produce(&fx, mixed, 4, NOW, -1, -1, 0), 6);
    kc_buf_deinit(&b);
    fx_close(&fx);
}

/* ---- cleaning ---- */

static void clean_keeps_the_latest_record_of_each_key_at_its_offset(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    /* One segment per batch (segment.ms 1, timestamps 1 s apart). */
    kv_t b0[] = {{"a", "a0"}, {"b", "b0"}, {"c", "c0"}};
    kv_t b1[] = {{"a", "a1"}, {"a", "a2"}};
    kv_t b2[] = {{"b", "b1"}, {"d", "d0"}};
    kv_t b3[] = {{"a", "a3"}};
    kv_t b4[] = {{"c", "c1"}, {"b", "b2"}};
    produce(&fx, b0, 3, NOW, -1, -1, 0);         /* 0-2 */
    produce(&fx, b1, 2, NOW + 1000, -1, -1, 0);  /* 3-4 */
    produce(&fx, b2, 2, NOW + 2000, -1, -1, 0);  /* 5-6 */
    produce(&fx, b3, 1, NOW + 3000, -1, -1, 0);  /* 7 */
    produce(&fx, b4, 2, NOW + 4000, -1, -1, 0);  /* 8-9: the active segment */
    kc_log_clean_candidate_t c;
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 5000, &c), 0);
    assert_true(c.eligible);
    assert_int_equal(c.first_dirty_offset, 0);
    assert_int_equal(c.first_uncleanable_offset, 8); /* the active segment's base */
    assert_int_equal(c.clean_bytes, 0);
    assert_true(c.cleanable_bytes > 0);
    assert_true(c.cleanable_ratio == 1.0); /* nothing is clean yet */
    kc_log_clean_stats_t st = clean(&fx, NOW + 5000, 1 << 20);
    assert_int_equal(st.first_dirty_offset, 0);
    assert_int_equal(st.end_offset, 8);
    assert_int_equal(st.records_read, 8);
    assert_int_equal(st.records_removed, 4); /* a0, a1, a2, b0 */
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    assert_int_equal(o.log_start_offset, 0);
    assert_int_equal(o.high_watermark, 10);
    assert_int_equal(o.log_end_offset, 10);
    /* c0, b1, d0, a3 in the cleaned part; c1, b2 untouched in the active segment. */
    int64_t want[] = {2, 5, 6, 7, 8, 9};
    assert_int_equal(v.nr, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(v.r[i].offset, want[i]);
    assert_string_equal(find(&v, 2)->value, "c0");
    assert_string_equal(find(&v, 7)->value, "a3");
    assert_int_equal(find(&v, 2)->timestamp, NOW + 2); /* timestamps as produced */
    /* Batches keep their base and last offsets: 0-2 (now only 2), 3-4 gone. */
    assert_int_equal(v.nb, 4);
    assert_int_equal(v.b[0].base, 0);
    assert_int_equal(v.b[0].last, 2);
    assert_int_equal(v.b[0].count, 1);
    assert_int_equal(v.b[0].base_ts, NOW + 2); /* the first record kept */
    assert_int_equal(v.b[0].max_ts, NOW + 2);
    assert_int_equal(v.b[1].base, 5);
    /* A fetch inside the gap gets the next batch. */
    read_all(&fx, 3, &v, &o);
    assert_int_equal(v.b[0].base, 5);
    /* A fetch ends with a segment: the cleaned ones were merged into one. */
    int fetches;
    read_all_n(&fx, 0, &v, &o, &fetches);
    assert_int_equal(fetches, 2);
    /* Nothing dirty is left but the active segment. */
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 5000, &c), 0);
    assert_false(c.eligible);
    assert_int_equal(c.first_dirty_offset, 8);
    /* A new roll makes 8-9 dirty; their clean drops b1 (5) and c0 (2). */
    kv_t b5[] = {{"e", "e0"}};
    produce(&fx, b5, 1, NOW + 6000, -1, -1, 0);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 7000, &c), 0);
    assert_int_equal(c.first_dirty_offset, 8);
    assert_true(c.clean_bytes > 0 && c.cleanable_bytes > 0);
    fx.tc.min_cleanable_dirty_ratio = c.cleanable_ratio - 0.01;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    st = clean(&fx, NOW + 7000, 1 << 20);
    assert_int_equal(st.first_dirty_offset, 8);
    assert_int_equal(st.end_offset, 10);
    read_all(&fx, 0, &v, &o);
    int64_t want2[] = {6, 7, 8, 9, 10};
    assert_int_equal(v.nr, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(v.r[i].offset, want2[i]);
    /* The log start offset stays 0 though offsets 0-5 are gone, after a restart too. */
    fx_close(&fx);
    fx_open(&fx, *state);
    read_all(&fx, 0, &v, &o);
    assert_int_equal(o.log_start_offset, 0);
    assert_int_equal(o.log_end_offset, 11);
    assert_int_equal(v.nr, 5);
    int64_t off, ts;
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, -2, &off, &ts), 0);
    assert_int_equal(off, 0);
    assert_int_equal(kc_log_list_offset(fx.log, TID, 0, NOW, &off, &ts), 0);
    assert_int_equal(off, 6); /* the first record still there */
    /* The checkpoint survived: nothing is dirty. */
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 8000, &c), 0);
    assert_false(c.eligible);
    assert_int_equal(c.first_dirty_offset, 10);
    fx_close(&fx);
}

/* Appends kv as producer pid's transactional batch at ts (committed). */
static int64_t produce_txn(fx_t *fx, const kv_t *kv, int n, int64_t ts, int64_t pid, int32_t seq)
{
    kc_buf_t b;
    kc_buf_init(&b);
    make_batch(&b, kv, n, ts, pid, 0, seq, 0);
    b.data[22] |= 0x10; /* isTransactional */
    uint32_t crc = kc_crc32c(0, b.data + 21, b.len - 21);
    for (int i = 0; i < 4; i++)
        b.data[17 + i] = (uint8_t)(crc >> (24 - 8 * i));
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx->log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    kc_buf_deinit(&b);
    assert_int_equal(r.error_code, 0);
    commit(fx);
    return r.base_offset;
}

/* Writes producer pid's marker at ts (committed); returns its offset. */
static int64_t write_marker(fx_t *fx, int64_t pid, bool commit_, int64_t ts)
{
    kc_log_marker_result_t mr;
    assert_int_equal(kc_log_write_marker(fx->log, TID, 0, pid, 0, commit_, 0, 0, ts, &mr), 0);
    assert_int_equal(mr.error_code, 0);
    commit(fx);
    return mr.offset;
}

/*
 * Transactions in a clean (Cleaner.buildOffsetMap and cleanInto): aborted
 * records map no key and are removed, markers stay, committed
 * transactional records are compacted like others, and nothing at or above
 * the last stable offset is cleanable.
 */
static void a_clean_removes_aborted_records_and_keeps_markers(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    kv_t b0[] = {{"a", "a0"}, {"b", "b0"}};
    kv_t ta[] = {{"a", "a1"}, {"b", "b1"}};
    kv_t tb[] = {{"b", "b2"}, {"c", "c0"}};
    kv_t b8[] = {{"c", "c1"}};
    kv_t b9[] = {{"z", "z0"}};
    assert_int_equal(produce(&fx, b0, 2, NOW, -1, -1, 0), 0);          /* 0-1 */
    assert_int_equal(produce_txn(&fx, ta, 2, NOW + 1000, 2000, 0), 2); /* 2-3 */
    assert_int_equal(write_marker(&fx, 2000, false, NOW + 2000), 4);   /* aborted */
    assert_int_equal(produce_txn(&fx, tb, 2, NOW + 3000, 2001, 0), 5); /* 5-6 */
    assert_int_equal(write_marker(&fx, 2001, true, NOW + 4000), 7);    /* committed */
    assert_int_equal(produce(&fx, b8, 1, NOW + 5000, -1, -1, 0), 8);
    assert_int_equal(produce(&fx, b9, 1, NOW + 6000, -1, -1, 0), 9); /* active */
    clean(&fx, NOW + 7000, 1 << 20);
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    /* a0 stays (a1 was aborted); b0 goes (committed b2), c0 too (c1); the
     * aborted records go, their batch (the producer's last) left empty;
     * both markers stay. */
    int64_t want[] = {0, 4, 5, 7, 8, 9};
    assert_int_equal(v.nr, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(v.r[i].offset, want[i]);
    assert_string_equal(find(&v, 0)->value, "a0");
    assert_null(find(&v, 2));
    assert_string_equal(find(&v, 5)->value, "b2");
    assert_int_equal(v.b[1].base, 2);
    assert_int_equal(v.b[1].last, 3);
    assert_int_equal(v.b[1].count, 0);
    assert_int_equal(v.b[1].pid, 2000);
    assert_int_equal(v.b[1].attrs & 0x10, 0x10);
    assert_int_equal(v.b[2].base, 4);
    assert_int_equal(v.b[2].attrs & 0x30, 0x30);
    /* The committed batch was rewritten: its offsets, producer and flag as they were. */
    assert_int_equal(v.b[3].base, 5);
    assert_int_equal(v.b[3].last, 6);
    assert_int_equal(v.b[3].count, 1);
    assert_int_equal(v.b[3].pid, 2001);
    assert_int_equal(v.b[3].attrs & 0x10, 0x10);
    assert_int_equal(v.b[4].base, 7);
    assert_int_equal(v.b[4].attrs & 0x30, 0x30);
    kc_buf_t ab;
    kc_buf_init(&ab);
    assert_int_equal(kc_log_aborted_index(fx.log, TID, 0, 0, &ab), 0);
    assert_int_equal(ab.len, sizeof(kc_log_aborted_entry_t));
    /* A READ_COMMITTED reader still learns of the aborted transaction. */
    kc_buf_t out;
    kc_buf_init(&out);
    kc_buf_reset(&ab);
    int16_t err;
    assert_int_equal(kc_log_read_isolated(fx.log, TID, 0, 0, 1 << 20, true, KC_LOG_READ_COMMITTED,
                                          &out, &ab, &err, &o),
                     0);
    assert_int_equal(err, 0);
    assert_int_equal(ab.len, sizeof(kc_log_aborted_txn_t));
    assert_int_equal(((const kc_log_aborted_txn_t *)(const void *)ab.data)->producer_id, 2000);
    assert_int_equal(((const kc_log_aborted_txn_t *)(const void *)ab.data)->first_offset, 2);
    kc_buf_deinit(&out);
    kc_buf_deinit(&ab);
    /* An ongoing transaction at 10 holds the cleaner back there. */
    kv_t t4[] = {{"d", "d0"}};
    kv_t b5[] = {{"d", "d1"}};
    kv_t b6[] = {{"e", "e0"}};
    assert_int_equal(produce_txn(&fx, t4, 1, NOW + 8000, 2002, 0), 10);
    assert_int_equal(produce(&fx, b5, 1, NOW + 9000, -1, -1, 0), 11);
    assert_int_equal(produce(&fx, b6, 1, NOW + 10000, -1, -1, 0), 12);
    assert_int_equal(produce(&fx, b6, 1, NOW + 11000, -1, -1, 0), 13);
    kc_log_clean_candidate_t c;
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 12000, &c), 0);
    assert_int_equal(c.first_uncleanable_offset, 10);
    fx_close(&fx);
}

/* Interleaved transactions: a committed batch inside the offsets of
 * another producer's aborted transaction is cleaned as committed. */
static void interleaved_transactions_are_told_apart_in_a_clean(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    kv_t k0[] = {{"k", "k0"}};
    kv_t xa[] = {{"x", "xa"}};
    kv_t kb[] = {{"k", "kb"}};
    kv_t ka[] = {{"k", "ka"}};
    kv_t z[] = {{"z", "z0"}};
    assert_int_equal(produce(&fx, k0, 1, NOW, -1, -1, 0), 0);
    assert_int_equal(produce_txn(&fx, xa, 1, NOW + 1000, 3000, 0), 1); /* A */
    assert_int_equal(produce_txn(&fx, kb, 1, NOW + 2000, 3001, 0), 2); /* B */
    assert_int_equal(produce_txn(&fx, ka, 1, NOW + 3000, 3000, 1), 3); /* A */
    assert_int_equal(write_marker(&fx, 3000, false, NOW + 4000), 4);
    assert_int_equal(write_marker(&fx, 3001, true, NOW + 5000), 5);
    assert_int_equal(produce(&fx, z, 1, NOW + 6000, -1, -1, 0), 6);
    assert_int_equal(produce(&fx, z, 1, NOW + 7000, -1, -1, 0), 7); /* active */
    clean(&fx, NOW + 8000, 1 << 20);
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    /* k0 goes (committed kb), A's aborted records go: its first batch
     * deleted, its last left empty. */
    int64_t want[] = {2, 4, 5, 6, 7};
    assert_int_equal(v.nr, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(v.r[i].offset, want[i]);
    assert_string_equal(find(&v, 2)->value, "kb");
    assert_int_equal(v.b[0].base, 2);
    assert_int_equal(v.b[1].base, 3);
    assert_int_equal(v.b[1].count, 0);
    fx_close(&fx);
}

static const batch_t *batch_at(const log_view_t *v, int64_t base)
{
    for (int i = 0; i < v->nb; i++)
        if (v->b[i].base == base)
            return &v->b[i];
    return NULL;
}

/* One more segment of dirty data, and a clean of it at now. */
static void clean_again(fx_t *fx, int64_t ts, int64_t now)
{
    kv_t w[] = {{"w", "w"}};
    produce(fx, w, 1, ts, -1, -1, 0);
    fx->tc.min_cleanable_dirty_ratio = 0;
    kc_log_set_topic_config(fx->log, topic_config_fn, fx);
    clean(fx, now, 1 << 20);
}

/*
 * A marker whose transaction has no batch left (CleanedTransactionMetadata):
 * the first clean to find it so sets its delete horizon, the first clean
 * past the horizon removes it; an ABORT marker's index entry goes with it.
 */
static void markers_of_emptied_transactions_go_after_their_horizon(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    kv_t k1[] = {{"k", "k1"}};
    kv_t y1[] = {{"y", "y1"}};
    kv_t x1[] = {{"x", "x1"}};
    kv_t a1[] = {{"a", "a1"}};
    kv_t k2[] = {{"k", "k2"}};
    kv_t z[] = {{"z", "z0"}};
    assert_int_equal(produce_txn(&fx, k1, 1, NOW, 4000, 0), 0);       /* P */
    assert_int_equal(write_marker(&fx, 4000, true, NOW + 1000), 1);   /* commit P */
    assert_int_equal(produce_txn(&fx, a1, 1, NOW + 2000, 4100, 0), 2); /* Q */
    assert_int_equal(write_marker(&fx, 4100, false, NOW + 3000), 3);  /* abort Q */
    assert_int_equal(produce_txn(&fx, y1, 1, NOW + 4000, 4000, 1), 4); /* P */
    assert_int_equal(write_marker(&fx, 4000, true, NOW + 5000), 5);
    assert_int_equal(produce_txn(&fx, x1, 1, NOW + 6000, 4100, 1), 6); /* Q */
    assert_int_equal(write_marker(&fx, 4100, true, NOW + 7000), 7);
    assert_int_equal(produce(&fx, k2, 1, NOW + 8000, -1, -1, 0), 8);
    assert_int_equal(produce(&fx, z, 1, NOW + 9000, -1, -1, 0), 9); /* active */
    /* k1 is compacted away and a1 aborted: both batches go (neither is its
     * producer's last); their markers stay, as this clean met their batches. */
    clean(&fx, NOW + 10000, 1 << 20);
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    assert_null(batch_at(&v, 0));
    assert_null(batch_at(&v, 2));
    assert_non_null(batch_at(&v, 1));
    assert_int_equal(batch_at(&v, 1)->attrs & 0x40, 0);
    assert_non_null(batch_at(&v, 3));
    assert_int_equal(batch_at(&v, 3)->attrs & 0x40, 0);
    kc_buf_t ab;
    kc_buf_init(&ab);
    assert_int_equal(kc_log_aborted_index(fx.log, TID, 0, 0, &ab), 0);
    assert_int_equal(ab.len, sizeof(kc_log_aborted_entry_t));
    /* The next clean finds them empty: a horizon, the record as it was. */
    int64_t second = NOW + 20000;
    clean_again(&fx, NOW + 11000, second);
    read_all(&fx, 0, &v, &o);
    const batch_t *m = batch_at(&v, 1);
    assert_non_null(m);
    assert_int_equal(m->attrs & 0x70, 0x70);
    assert_int_equal(m->base_ts, second + DAY);
    assert_int_equal(m->nrecs, 1);
    assert_int_equal(v.r[m->first_rec].timestamp, NOW + 1000);
    assert_int_equal(batch_at(&v, 3)->attrs & 0x40, 0x40);
    assert_int_equal(batch_at(&v, 5)->attrs & 0x40, 0); /* its transaction has y1 */
    assert_int_equal(batch_at(&v, 7)->attrs & 0x40, 0); /* and this one x1 */
    /* Before the horizon they stay. */
    clean_again(&fx, NOW + 12000, second + DAY - 1);
    read_all(&fx, 0, &v, &o);
    assert_non_null(batch_at(&v, 1));
    /* Past it they go, and the aborted transaction's entry with its marker. */
    clean_again(&fx, NOW + 13000, second + DAY + 1);
    read_all(&fx, 0, &v, &o);
    assert_null(batch_at(&v, 1));
    assert_null(batch_at(&v, 3));
    assert_non_null(batch_at(&v, 5));
    assert_string_equal(find(&v, 4)->value, "y1");
    kc_buf_reset(&ab);
    assert_int_equal(kc_log_aborted_index(fx.log, TID, 0, 0, &ab), 0);
    assert_int_equal(ab.len, 0);
    kc_buf_t out;
    kc_buf_init(&out);
    int16_t err;
    assert_int_equal(kc_log_read_isolated(fx.log, TID, 0, 0, 1 << 20, true, KC_LOG_READ_COMMITTED,
                                          &out, &ab, &err, &o),
                     0);
    assert_true(out.len > 0);
    assert_int_equal(ab.len, 0);
    kc_buf_deinit(&out);
    kc_buf_deinit(&ab);
    fx_close(&fx);
}

static void tombstones_stay_until_their_delete_horizon(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    fx.tc.delete_retention_ms = 1000;
    fx.tc.min_cleanable_dirty_ratio = 0; /* the later cleans have little dirt */
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    kv_t b0[] = {{"a", "a0"}, {"b", "b0"}};
    kv_t b1[] = {{"a", NULL}};
    kv_t b2[] = {{"c", "c0"}};
    produce(&fx, b0, 2, NOW, -1, -1, 0);        /* 0-1 */
    produce(&fx, b1, 1, NOW + 1000, -1, -1, 0); /* 2: a's tombstone */
    produce(&fx, b2, 1, NOW + 2000, -1, -1, 0); /* 3: active */
    int64_t t1 = NOW + 10000;
    clean(&fx, t1, 1 << 20);
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    /* a0 is gone, the tombstone stays, its batch now carries the delete horizon. */
    assert_int_equal(v.nr, 3);
    assert_null(find(&v, 0));
    const rec_t *t = find(&v, 2);
    assert_non_null(t);
    assert_false(t->has_value);
    assert_int_equal(t->timestamp, NOW + 1000);
    assert_int_equal(v.b[1].base, 2);
    assert_true(v.b[1].attrs & 0x40);
    assert_int_equal(v.b[1].base_ts, t1 + 1000);
    /* A clean before the horizon keeps it; one after it drops it. */
    kv_t b3[] = {{"d", "d0"}};
    produce(&fx, b3, 1, NOW + 3000, -1, -1, 0); /* 4 */
    clean(&fx, t1 + 999, 1 << 20);
    read_all(&fx, 0, &v, &o);
    assert_non_null(find(&v, 2));
    kv_t b4[] = {{"e", "e0"}};
    produce(&fx, b4, 1, NOW + 4000, -1, -1, 0); /* 5 */
    clean(&fx, t1 + 1000, 1 << 20);
    read_all(&fx, 0, &v, &o);
    assert_null(find(&v, 2));
    assert_int_equal(v.nr, 4); /* b0 at 1, c0, d0, e0 */
    assert_int_equal(o.log_start_offset, 0);
    assert_int_equal(o.high_watermark, 6);
    fx_close(&fx);
}

static void a_producers_last_batch_stays_empty(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    kv_t b0[] = {{"a", "a0"}, {"b", "b0"}};
    kv_t b1[] = {{"a", "a1"}, {"b", "b1"}};
    kv_t b2[] = {{"c", "c0"}};
    produce(&fx, b0, 2, NOW, 1000, 0, 0);          /* 0-1, producer 1000 seq 0-1 */
    produce(&fx, b1, 2, NOW + 1000, -1, -1, 0);    /* 2-3 supersede them */
    produce(&fx, b2, 1, NOW + 2000, -1, -1, 0);    /* 4: active */
    clean(&fx, NOW + 3000, 1 << 20);
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    /* The producer's batch is left as an empty header with its offsets and sequence. */
    assert_int_equal(v.b[0].base, 0);
    assert_int_equal(v.b[0].last, 1);
    assert_int_equal(v.b[0].count, 0);
    assert_int_equal(v.b[0].pid, 1000);
    assert_int_equal(v.b[0].seq, 0);
    assert_int_equal(v.b[0].base_ts, -1);
    assert_int_equal(v.b[0].max_ts, NOW + 1);
    assert_int_equal(v.nr, 3);
    /* The producer goes on in sequence; its retried first batch is still a duplicate. */
    kc_buf_t b;
    kc_buf_init(&b);
    make_batch(&b, b0, 2, NOW, 1000, 0, 0, 0);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx.log, TID, 0, b.data, b.len, 9, NOW, &r), 0);
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.base_offset, 0);
    kv_t b3[] = {{"d", "d0"}};
    assert_int_equal(produce(&fx, b3, 1, NOW + 4000, 1000, 2, 0), 5);
    /* Now its last batch is 5: a clean that reaches batch 0 drops it. */
    kv_t b4[] = {{"e", "e0"}};
    produce(&fx, b4, 1, NOW + 5000, -1, -1, 0);
    fx.tc.min_cleanable_dirty_ratio = 0;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    clean(&fx, NOW + 6000, 1 << 20);
    read_all(&fx, 0, &v, &o);
    assert_int_equal(v.b[0].base, 2);
    kc_buf_deinit(&b);
    fx_close(&fx);
}

static void compressed_batches_are_rewritten_compressed(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    kv_t b0[] = {{"a", "a0"}, {"b", "b0"}, {"c", "c0"}};
    kv_t b1[] = {{"b", "b1"}};
    kv_t b2[] = {{"z", "z0"}};
    for (int codec = 1; codec <= 3; codec++) {
        produce(&fx, b0, 3, NOW + codec * 10000, -1, -1, codec);
        produce(&fx, b1, 1, NOW + codec * 10000 + 1000, -1, -1, 0);
        produce(&fx, b2, 1, NOW + codec * 10000 + 2000, -1, -1, 0);
        clean(&fx, NOW + codec * 10000 + 3000, 1 << 20);
        log_view_t v;
        kc_log_offsets_t o;
        read_all(&fx, (codec - 1) * 5, &v, &o);
        assert_int_equal(v.b[0].attrs & 7, codec);
        assert_int_equal(v.b[0].count, 2);
        assert_int_equal(v.b[0].last, (codec - 1) * 5 + 2);
        assert_string_equal(v.r[0].value, "a0");
        assert_string_equal(v.r[1].value, "c0");
        assert_int_equal(v.r[1].timestamp, NOW + codec * 10000 + 2);
    }
    fx_close(&fx);
}

/*
 * A clean in slices of one batch, the process gone before some slice's
 * commit: the store holds the slices committed before it, every key still
 * has its latest value, and a new clean finishes the work.
 */
static void a_crash_between_slices_loses_no_latest_value(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    char key[8], val[16];
    for (int i = 0; i < 40; i++) {
        snprintf(key, sizeof(key), "k%d", i % 4);
        snprintf(val, sizeof(val), "v%d", i);
        kv_t kv[] = {{key, val}};
        produce(&fx, kv, 1, NOW + i * 1000, -1, -1, 0);
    }
    assert_int_equal(kc_log_clean_begin(fx.log, TID, 0, NOW + 50000), 0);
    bool done = false;
    for (int i = 0; i < 50; i++) { /* the map, then half of the filtering */
        assert_int_equal(kc_log_clean_step(fx.log, 1, &done, NULL), 0);
        assert_false(done);
        commit(&fx);
    }
    assert_int_equal(kc_log_clean_step(fx.log, 1, &done, NULL), 0);
    kc_store_abort(fx.store); /* the last slice never committed */
    fx_close(&fx);
    fx_open(&fx, *state);
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    assert_int_equal(o.log_start_offset, 0);
    assert_int_equal(o.high_watermark, 40);
    assert_true(v.nr > 4 && v.nr < 40);
    for (int i = 36; i < 40; i++) {
        snprintf(val, sizeof(val), "v%d", i);
        assert_string_equal(find(&v, i)->value, val);
    }
    clean(&fx, NOW + 50000, 1);
    read_all(&fx, 0, &v, &o);
    /* k3's 35 stays: its 39 is in the active segment, which is not mapped. */
    assert_int_equal(v.nr, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(v.r[i].offset, 35 + i);
    fx_close(&fx);
}

static void segments_roll_by_size_and_time_and_lags_hold_cleans_back(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    fx.tc.segment_ms = 10000;
    fx.tc.segment_bytes = 250;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    kv_t kv[] = {{"a", "0123456789012345678901234567890123456789"}};
    /* 109 bytes a batch: two fit a segment. */
    for (int i = 0; i < 4; i++)
        produce(&fx, kv, 1, NOW + i, -1, -1, 0);
    kc_log_clean_candidate_t c;
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 10, &c), 0);
    assert_int_equal(c.first_uncleanable_offset, 2);
    /* By time: 10001 ms after the active segment's first batch. */
    fx.tc.segment_bytes = 1 << 30;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    produce(&fx, kv, 1, NOW + 2 + 10000, -1, -1, 0);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 20000, &c), 0);
    assert_int_equal(c.first_uncleanable_offset, 2); /* 10000 is not more than segment.ms */
    produce(&fx, kv, 1, NOW + 2 + 10001, -1, -1, 0);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 20000, &c), 0);
    assert_int_equal(c.first_uncleanable_offset, 5);
    assert_true(c.eligible);
    /* min.compaction.lag.ms: segments with records newer than the lag wait. */
    fx.tc.min_compaction_lag_ms = 15000;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 16000, &c), 0);
    assert_int_equal(c.first_uncleanable_offset, 2); /* segment 2-4 has NOW + 10002 */
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 14000, &c), 0);
    assert_int_equal(c.first_uncleanable_offset, 0);
    assert_false(c.eligible);
    /* max.compaction.lag.ms makes a partition below the dirty ratio due. */
    fx.tc.min_compaction_lag_ms = 0;
    fx.tc.min_cleanable_dirty_ratio = 1;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 20000, &c), 0);
    assert_false(c.eligible);
    fx.tc.max_compaction_lag_ms = 5000;
    kc_log_set_topic_config(fx.log, topic_config_fn, &fx);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 20000, &c), 0);
    assert_true(c.need_compaction_now);
    assert_true(c.eligible);
    /* The segments survive a restart. */
    fx_close(&fx);
    fx_open(&fx, *state);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 20000, &c), 0);
    assert_int_equal(c.first_uncleanable_offset, 5);
    /* A clean merges the cleaned segments (their sizes fit segment.bytes). */
    clean(&fx, NOW + 20000, 1 << 20);
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 20000, &c), 0);
    assert_int_equal(c.first_dirty_offset, 5);
    log_view_t v;
    kc_log_offsets_t o;
    read_all(&fx, 0, &v, &o);
    assert_int_equal(v.nr, 2); /* 4 (the latest a before the active segment) and 5 */
    assert_int_equal(v.r[0].offset, 4);
    fx_close(&fx);
}

static void deleting_the_topic_forgets_its_segments_and_clean(void **state)
{
    fx_t fx;
    fx_init(&fx, *state);
    kv_t kv[] = {{"a", "x"}};
    for (int i = 0; i < 5; i++)
        produce(&fx, kv, 1, NOW + i * 1000, -1, -1, 0);
    assert_int_equal(kc_log_clean_begin(fx.log, TID, 0, NOW + 9000), 0);
    assert_int_equal(kc_log_delete_topic(fx.log, TID), 0);
    assert_false(kc_log_clean_busy(fx.log, NULL, NULL));
    commit(&fx);
    kc_log_clean_candidate_t c;
    assert_int_equal(kc_log_clean_evaluate(fx.log, TID, 0, NOW + 9000, &c), 0);
    assert_false(c.eligible);
    kc_log_offsets_t o;
    assert_int_equal(kc_log_offsets(fx.log, TID, 0, &o), 0);
    assert_int_equal(o.log_end_offset, 0);
    fx_close(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(keyless_records_are_refused_on_a_compacted_topic, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(clean_keeps_the_latest_record_of_each_key_at_its_offset,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(tombstones_stay_until_their_delete_horizon, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_producers_last_batch_stays_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(compressed_batches_are_rewritten_compressed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_crash_between_slices_loses_no_latest_value, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(segments_roll_by_size_and_time_and_lags_hold_cleans_back,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_clean_removes_aborted_records_and_keeps_markers, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(interleaved_transactions_are_told_apart_in_a_clean, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(markers_of_emptied_transactions_go_after_their_horizon,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(deleting_the_topic_forgets_its_segments_and_clean, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
