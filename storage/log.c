/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partition log on LMDB: batch validation (Kafka's LogValidator and
 * UnifiedLog.analyzeAndValidateRecords), offset assignment, idempotent and
 * transactional producer state, transaction markers and the aborted
 * transaction index, reads by offset (at an isolation level) and lookups by
 * timestamp.
 *
 * Databases (all integers big-endian):
 *   "plog":      topic id (16) | partition (4) | base offset (8) -> the batch
 *                bytes (BaseOffset and PartitionLeaderEpoch rewritten)
 *   "pproducer": topic id | partition | producer id (8) -> u8 version 1,
 *                i16 epoch, u8 n, i32 coordinator epoch (-1), i64 first
 *                offset of the ongoing transaction (-1: none), i64 last
 *                timestamp (of its last batch or marker), n x {i32
 *                first seq, i32 last seq, i64 first offset, i64 last offset,
 *                i64 timestamp} (the last five batches, oldest first);
 *                version 0 has none of the i32 and i64 (no transaction)
 *   "pmeta":     "producer_id_block_end" -> i64;
 *                "ls" | topic id | partition -> i64 log start offset, written
 *                when DeleteRecords or retention moves it, or compaction
 *                deletes a batch (Kafka's log-start-offset-checkpoint);
 *                once written it is the log start offset at load;
 *                "le" | topic id | partition -> the leader epoch cache
 *                (kc_epoch_cache_encode; Kafka's leader-epoch-checkpoint),
 *                written when it changes; absent: epoch 0 from the log start;
 *                "ab" | topic id | partition | last offset (8) -> u8
 *                version 0, i64 producer id, i64 first offset, i64 last
 *                stable offset: the aborted transaction index (Kafka's
 *                AbortedTxn entries of the .txnindex files), keyed by the
 *                offset of the ABORT marker;
 *                "sg" and "cp" keys of compacted topics (log_clean.c)
 * Batch keys sort by offset within a partition, so the batch holding an
 * offset is the greatest key not above (topic id, partition, offset).
 *
 * Moving the log start offset deletes at once only the batches that
 * retention examined; batches left below it (DeleteRecords) are removed by
 * later retention passes, a bounded number per call. Reads never see them.
 */
#include "log.h"

#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "epoch_cache.h"
#include "legacy.h"
#include "kc_log.h"
#include "log_int.h"

static const char PID_KEY[] = "producer_id_block_end";
#define LS_KEY_LEN 22 /* "ls" | topic id | partition */
#define LE_KEY_LEN 22 /* "le" | topic id | partition */
#define AB_KEY_LEN 30 /* "ab" | topic id | partition | last offset */
#define AB_VALUE_LEN 25
#define PRODUCER_V1_HEADER 24 /* version, epoch, n, coordinator epoch, txn start, last timestamp */

/* ---- config, lifecycle ---- */

void kc_log_config_defaults(kc_log_config_t *cfg)
{
    cfg->max_message_bytes = 1024 * 1024 + LOG_OVERHEAD;
    cfg->message_timestamp_before_max_ms = INT64_MAX;
    cfg->message_timestamp_after_max_ms = 3600000;
    cfg->cleaner_dedupe_buffer_size = 134217728;
}

static int read_i64_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                       size_t value_len)
{
    if (key_len != sizeof(PID_KEY) - 1 || memcmp(key, PID_KEY, key_len) != 0)
        return 0;
    if (value_len != 8)
        return KC_EIO;
    *(int64_t *)ctx = (int64_t)rd64(value);
    return 1;
}

static int load_producer_ids(kc_log_t *l)
{
    int64_t end = 0;
    int rc = kc_store_scan(l->store, l->db_meta, PID_KEY, sizeof(PID_KEY) - 1,
                           sizeof(PID_KEY) - 1, false, read_i64_fn, &end);
    if (rc < 0)
        return rc;
    l->next_producer_id = end;
    l->producer_id_block_end = end;
    return 0;
}

kc_log_t *kc_log_new(kc_store_t *store, const kc_log_config_t *cfg)
{
    kc_log_t *l = kc_xcalloc(1, sizeof(*l));
    l->store = store;
    if (cfg)
        l->cfg = *cfg;
    else
        kc_log_config_defaults(&l->cfg);
    l->cap = 64;
    l->tab = kc_xcalloc(l->cap, sizeof(*l->tab));
    if (kc_store_dbi_open(store, "plog", &l->db_batches) != 0 ||
        kc_store_dbi_open(store, "pproducer", &l->db_producers) != 0 ||
        kc_store_dbi_open(store, "pmeta", &l->db_meta) != 0 || load_producer_ids(l) != 0) {
        kc_log_error("log", "cannot open the partition log databases");
        kc_log_free(l);
        return NULL;
    }
    return l;
}

static void part_free(part_t *p)
{
    if (!p)
        return;
    free(p->producers);
    free(p->ended);
    kc_log_seg_free(p);
    kc_epoch_cache_deinit(&p->epochs);
    free(p);
}

static void drop_all(kc_log_t *l)
{
    for (size_t i = 0; i < l->cap; i++) {
        part_free(l->tab[i]);
        l->tab[i] = NULL;
    }
    l->count = 0;
}

void kc_log_free(kc_log_t *l)
{
    if (!l)
        return;
    kc_log_clean_abort(l);
    drop_all(l);
    free(l->tab);
    free(l);
}

void kc_log_reset(kc_log_t *l)
{
    kc_log_clean_abort(l); /* what it wrote since the last commit is gone */
    drop_all(l);
    if (load_producer_ids(l) != 0)
        kc_log_error("log", "cannot reload the producer id counter");
}

bool kc_log_committed(kc_log_t *l)
{
    bool advanced = false;
    for (size_t i = 0; i < l->cap; i++) {
        part_t *p = l->tab[i];
        if (p)
            p->clean_pending = p->trim_pending = false;
        if (p && p->dirty) {
            int64_t lso = kc_log_part_lso(p);
            if (p->hw != p->leo)
                advanced = true;
            p->hw = p->leo;
            p->nended = 0; /* their markers are below the high watermark now */
            p->dirty = false;
            if (kc_log_part_lso(p) != lso)
                advanced = true;
        }
    }
    return advanced;
}

void kc_log_set_topic_config(kc_log_t *l, kc_log_topic_config_fn fn, void *ctx)
{
    l->topic_config = fn;
    l->topic_config_ctx = ctx;
    for (size_t i = 0; i < l->cap; i++)
        if (l->tab[i])
            l->tab[i]->tc_ready = false;
}

void kc_log_topic_config_changed(kc_log_t *l, kc_uuid_t topic_id)
{
    for (size_t i = 0; i < l->cap; i++)
        if (l->tab[i] && memcmp(l->tab[i]->topic_id.b, topic_id.b, 16) == 0)
            l->tab[i]->tc_ready = false;
}

/* The configs of p's topic, asked for on first use. */
const kc_log_topic_config_t *kc_log_part_config(kc_log_t *l, part_t *p)
{
    if (!p->tc_ready) {
        kc_log_topic_config_t *c = &p->tc;
        c->max_message_bytes = l->cfg.max_message_bytes;
        c->message_timestamp_before_max_ms = l->cfg.message_timestamp_before_max_ms;
        c->message_timestamp_after_max_ms = l->cfg.message_timestamp_after_max_ms;
        c->log_append_time = false;
        c->flush_messages = c->flush_ms = INT64_MAX;
        bool was_compact = c->compact;
        c->compact = false;
        c->segment_bytes = 1073741824;
        c->segment_ms = 604800000;
        c->delete_retention_ms = 86400000;
        c->min_compaction_lag_ms = 0;
        c->max_compaction_lag_ms = INT64_MAX;
        c->min_cleanable_dirty_ratio = 0.5;
        if (l->topic_config)
            l->topic_config(l->topic_config_ctx, p->topic_id, c);
        /* Segments are kept up to date only while the topic compacts. */
        if (c->compact != was_compact)
            kc_log_seg_free(p);
        p->tc_ready = true;
    }
    return &p->tc;
}

bool kc_log_flush_due(kc_log_t *l, int64_t since_flush_ms)
{
    for (size_t i = 0; i < l->cap; i++) {
        part_t *p = l->tab[i];
        if (!p || p->hw <= p->recovery_point)
            continue;
        const kc_log_topic_config_t *tc = kc_log_part_config(l, p);
        if (p->hw - p->recovery_point >= tc->flush_messages)
            return true;
        if (since_flush_ms >= 0 && since_flush_ms >= tc->flush_ms)
            return true;
    }
    return false;
}

void kc_log_flushed(kc_log_t *l)
{
    for (size_t i = 0; i < l->cap; i++)
        if (l->tab[i])
            l->tab[i]->recovery_point = l->tab[i]->hw;
}

/* ---- partition table ---- */

static size_t part_hash(kc_uuid_t tid, int32_t partition)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 16; i++) {
        h ^= tid.b[i];
        h *= 1099511628211ull;
    }
    h ^= (uint32_t)partition;
    h *= 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

static bool part_is(const part_t *p, kc_uuid_t tid, int32_t partition)
{
    return p->partition == partition && memcmp(p->topic_id.b, tid.b, 16) == 0;
}

static void tab_insert(part_t **tab, size_t cap, part_t *p)
{
    size_t i = part_hash(p->topic_id, p->partition) & (cap - 1);
    while (tab[i])
        i = (i + 1) & (cap - 1);
    tab[i] = p;
}

static void tab_rebuild(kc_log_t *l, size_t cap)
{
    part_t **old = l->tab;
    size_t old_cap = l->cap;
    l->tab = kc_xcalloc(cap, sizeof(*l->tab));
    l->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            tab_insert(l->tab, cap, old[i]);
    free(old);
}

typedef struct {
    int64_t base, last;
    bool found;
} edge_ctx_t;

static int edge_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                   size_t value_len)
{
    edge_ctx_t *e = ctx;
    if (key_len != KEY_LEN || value_len < BATCH_HEADER)
        return KC_EIO;
    e->base = (int64_t)rd64(key + 20);
    e->last = e->base + (int32_t)rd32(value + OFF_LAST_OFFSET_DELTA);
    e->found = true;
    return 1;
}

static int producer_load_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                            size_t value_len)
{
    part_t *p = ctx;
    if (key_len != KEY_LEN || value_len < 4 || value[0] > 1 || value[3] > PRODUCER_BATCHES)
        return KC_EIO;
    size_t head = value[0] == 0 ? 4 : PRODUCER_V1_HEADER;
    if (value_len != head + (size_t)value[3] * 32)
        return KC_EIO;
    if (p->nproducers == p->producers_cap) {
        p->producers_cap = p->producers_cap ? p->producers_cap * 2 : 4;
        p->producers = kc_xrealloc(p->producers, p->producers_cap * sizeof(producer_t));
    }
    producer_t *pr = &p->producers[p->nproducers++];
    memset(pr, 0, sizeof(*pr));
    pr->producer_id = (int64_t)rd64(key + 20);
    pr->epoch = (int16_t)rd16(value + 1);
    pr->n = value[3];
    pr->coordinator_epoch = value[0] == 0 ? -1 : (int32_t)rd32(value + 4);
    pr->txn_first_offset = value[0] == 0 ? -1 : (int64_t)rd64(value + 8);
    pr->last_timestamp = value[0] == 0 ? -1 : (int64_t)rd64(value + 16);
    if (pr->txn_first_offset >= 0)
        p->ongoing++;
    for (uint8_t i = 0; i < pr->n; i++) {
        const uint8_t *b = value + head + 32 * i;
        pr->b[i].first_seq = (int32_t)rd32(b);
        pr->b[i].last_seq = (int32_t)rd32(b + 4);
        pr->b[i].first_offset = (int64_t)rd64(b + 8);
        pr->b[i].last_offset = (int64_t)rd64(b + 16);
        pr->b[i].timestamp = (int64_t)rd64(b + 24);
    }
    return 0;
}

typedef struct {
    int64_t offset;
} ls_ctx_t;

static void ls_key(uint8_t *k, kc_uuid_t tid, int32_t partition)
{
    k[0] = 'l';
    k[1] = 's';
    memcpy(k + 2, tid.b, 16);
    be32(k + 18, (uint32_t)partition);
}

static int ls_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                 size_t value_len)
{
    (void)key;
    if (key_len != LS_KEY_LEN || value_len != 8)
        return KC_EIO;
    ((ls_ctx_t *)ctx)->offset = (int64_t)rd64(value);
    return 1;
}

static void le_key(uint8_t *k, kc_uuid_t tid, int32_t partition)
{
    k[0] = 'l';
    k[1] = 'e';
    memcpy(k + 2, tid.b, 16);
    be32(k + 18, (uint32_t)partition);
}

typedef struct {
    kc_epoch_cache_t *epochs;
    bool found;
} le_ctx_t;

static int le_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                 size_t value_len)
{
    (void)key;
    le_ctx_t *e = ctx;
    if (key_len != LE_KEY_LEN || kc_epoch_cache_decode(e->epochs, value, value_len) != 0)
        return KC_EIO;
    e->found = true;
    return 1;
}

/* Writes p's leader epoch cache into the open transaction. */
static int store_epochs(kc_log_t *l, const part_t *p)
{
    uint8_t k[LE_KEY_LEN];
    le_key(k, p->topic_id, p->partition);
    kc_buf_t v;
    kc_buf_init(&v);
    kc_epoch_cache_encode(&p->epochs, &v);
    int rc = kc_store_put(l->store, l->db_meta, k, LE_KEY_LEN, v.data, v.len);
    kc_buf_deinit(&v);
    return rc;
}

/* Finds or loads the state of a partition; NULL (logged) on storage failure. */
part_t *kc_log_part_get(kc_log_t *l, kc_uuid_t tid, int32_t partition)
{
    size_t i = part_hash(tid, partition) & (l->cap - 1);
    while (l->tab[i]) {
        if (part_is(l->tab[i], tid, partition))
            return l->tab[i];
        i = (i + 1) & (l->cap - 1);
    }
    part_t *p = kc_xcalloc(1, sizeof(*p));
    p->topic_id = tid;
    p->partition = partition;
    uint8_t k[KEY_LEN];
    edge_ctx_t first = {0, 0, false}, last = {0, 0, false};
    batch_key(k, tid, partition, 0);
    int rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, false, edge_fn, &first);
    if (rc >= 0) {
        batch_key(k, tid, partition, INT64_MAX);
        rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, true, edge_fn, &last);
    }
    if (rc >= 0)
        rc = kc_store_scan(l->store, l->db_producers, k, PKEY_LEN, PKEY_LEN, false,
                           producer_load_fn, p);
    ls_ctx_t ls = {-1};
    if (rc >= 0) {
        uint8_t lk[LS_KEY_LEN];
        ls_key(lk, tid, partition);
        rc = kc_store_scan(l->store, l->db_meta, lk, LS_KEY_LEN, LS_KEY_LEN, false, ls_fn, &ls);
    }
    le_ctx_t le = {&p->epochs, false};
    if (rc >= 0) {
        uint8_t ek[LE_KEY_LEN];
        le_key(ek, tid, partition);
        rc = kc_store_scan(l->store, l->db_meta, ek, LE_KEY_LEN, LE_KEY_LEN, false, le_fn, &le);
    }
    if (rc < 0) {
        kc_log_error("log", "cannot load the state of partition %d (%d)", partition, rc);
        part_free(p);
        return NULL;
    }
    p->log_start = first.found ? first.base : 0;
    p->leo = last.found ? last.last + 1 : 0;
    /* The stored start wins once written: everything deleted (the log is
     * empty at its old end), or a first batch compacted away (the start
     * stays where it was, as Kafka keeps a cleaned segment's base offset). */
    if (ls.offset >= 0)
        p->log_start = ls.offset;
    if (p->log_start > p->leo)
        p->leo = p->log_start;
    p->hw = p->leo;
    p->recovery_point = p->leo; /* what a restart finds counts as flushed, as Kafka's recovery */
    /* A partition created at leader epoch 0 keeps no cache until its epoch
     * changes (as a log written before kcoord kept epochs: its batches say 0). */
    if (!le.found)
        kc_epoch_cache_assign(&p->epochs, 0, p->log_start);
    p->size_bytes = -1;
    if ((l->count + 1) * 2 > l->cap)
        tab_rebuild(l, l->cap * 2);
    tab_insert(l->tab, l->cap, p);
    l->count++;
    return p;
}

/* ---- record walking ---- */

typedef int (*record_fn)(void *ctx, int32_t index, int64_t timestamp_delta, int32_t offset_delta,
                         int32_t key_len);

/*
 * Walks the uncompressed records of a batch (bytes after the header); each
 * must parse exactly to its declared length and the count must match.
 * Returns 0, fn's non-zero value, or KC_EINVAL with *why set.
 */
static int walk_records(const uint8_t *p, size_t len, int32_t count, record_fn fn, void *ctx,
                        const char **why)
{
    kc_reader_t r;
    kc_reader_init(&r, p, len);
    for (int32_t i = 0; i < count; i++) {
        int32_t rlen = kc_read_varint(&r);
        if (r.err || rlen < 0 || (size_t)rlen > kc_reader_left(&r)) {
            *why = "Invalid record size";
            return KC_EINVAL;
        }
        kc_reader_t b;
        kc_reader_init(&b, r.p, (size_t)rlen);
        r.p += rlen;
        kc_read_int8(&b); /* attributes, unused */
        int64_t ts_delta = kc_read_varlong(&b);
        int32_t off_delta = kc_read_varint(&b);
        int32_t klen = kc_read_varint(&b);
        if (klen >= 0)
            kc_read_raw(&b, (size_t)klen);
        int32_t vlen = kc_read_varint(&b);
        if (vlen >= 0)
            kc_read_raw(&b, (size_t)vlen);
        int32_t nh = kc_read_varint(&b);
        if (nh < 0) {
            *why = "Found invalid number of record headers";
            return KC_EINVAL;
        }
        for (int32_t h = 0; h < nh && !b.err; h++) {
            int32_t hk = kc_read_varint(&b);
            if (hk < 0) {
                *why = "Invalid negative header key size";
                return KC_EINVAL;
            }
            kc_read_raw(&b, (size_t)hk);
            int32_t hv = kc_read_varint(&b);
            if (hv >= 0)
                kc_read_raw(&b, (size_t)hv);
        }
        if (b.err || kc_reader_left(&b) != 0 || klen < -1 || vlen < -1) {
            *why = "Invalid record: the payload does not match its declared size";
            return KC_EINVAL;
        }
        if (fn) {
            int rc = fn(ctx, i, ts_delta, off_delta, klen);
            if (rc)
                return rc;
        }
    }
    if (kc_reader_left(&r) != 0) {
        *why = "Incorrect declared batch size, records still remaining in file";
        return KC_EINVAL;
    }
    return 0;
}

typedef struct {
    int64_t base_ts, now, before_max, after_max, max_ts;
    int32_t bad_ts_index;
    bool check_ts;         /* the records' timestamps are checked (uncompressed) */
    bool compacted;        /* records need a key (LogValidator.validateKey) */
    bool no_key;           /* some record has none */
    kc_buf_t *errors;      /* kc_log_record_error_t of each record rejected (compacted topics) */
} validate_ctx_t;

/* LogValidator.validateRecord: the key (compacted topics), then the timestamp. */
static int validate_record_fn(void *ctx, int32_t index, int64_t ts_delta, int32_t offset_delta,
                              int32_t key_len)
{
    validate_ctx_t *v = ctx;
    (void)offset_delta; /* Kafka trusts the header's offset range for uncompressed batches */
    int64_t ts = v->base_ts + ts_delta;
    if (v->compacted && key_len < 0) {
        v->no_key = true;
        kc_log_record_error_t e = {index, KC_LOG_RECORD_NO_KEY};
        kc_buf_append(v->errors, &e, sizeof(e));
        return 0;
    }
    if (!v->check_ts)
        return 0;
    if (ts > v->max_ts)
        v->max_ts = ts;
    if ((v->before_max != INT64_MAX && v->now - ts > v->before_max) ||
        ts - v->now > v->after_max) {
        if (v->bad_ts_index < 0)
            v->bad_ts_index = index;
        if (v->compacted) {
            kc_log_record_error_t e = {index, KC_LOG_RECORD_BAD_TIMESTAMP};
            kc_buf_append(v->errors, &e, sizeof(e));
        }
    }
    return 0;
}

/* ---- append ---- */

static int32_t seq_add(int32_t seq, int32_t delta)
{
    /* DefaultRecordBatch.incrementSequence: wraps past INT32_MAX to 0. */
    if (seq > INT32_MAX - delta)
        return delta - (INT32_MAX - seq) - 1;
    return seq + delta;
}

producer_t *kc_log_producer_find(part_t *p, int64_t pid)
{
    for (size_t i = 0; i < p->nproducers; i++)
        if (p->producers[i].producer_id == pid)
            return &p->producers[i];
    return NULL;
}

static int producer_store(kc_log_t *l, const part_t *p, const producer_t *pr)
{
    uint8_t k[KEY_LEN];
    batch_key(k, p->topic_id, p->partition, pr->producer_id);
    uint8_t v[PRODUCER_V1_HEADER + 32 * PRODUCER_BATCHES];
    v[0] = 1;
    be16(v + 1, (uint16_t)pr->epoch);
    v[3] = pr->n;
    be32(v + 4, (uint32_t)pr->coordinator_epoch);
    be64(v + 8, (uint64_t)pr->txn_first_offset);
    be64(v + 16, (uint64_t)pr->last_timestamp);
    for (uint8_t i = 0; i < pr->n; i++) {
        uint8_t *b = v + PRODUCER_V1_HEADER + 32 * i;
        be32(b, (uint32_t)pr->b[i].first_seq);
        be32(b + 4, (uint32_t)pr->b[i].last_seq);
        be64(b + 8, (uint64_t)pr->b[i].first_offset);
        be64(b + 16, (uint64_t)pr->b[i].last_offset);
        be64(b + 24, (uint64_t)pr->b[i].timestamp);
    }
    return kc_store_put(l->store, l->db_producers, k, KEY_LEN, v,
                        PRODUCER_V1_HEADER + 32 * (size_t)pr->n);
}

/* A new producer state in p (epoch -1, as ProducerStateEntry.empty). */
static producer_t *producer_add(part_t *p, int64_t pid)
{
    if (p->nproducers == p->producers_cap) {
        p->producers_cap = p->producers_cap ? p->producers_cap * 2 : 4;
        p->producers = kc_xrealloc(p->producers, p->producers_cap * sizeof(producer_t));
    }
    producer_t *pr = &p->producers[p->nproducers++];
    memset(pr, 0, sizeof(*pr));
    pr->producer_id = pid;
    pr->epoch = -1;
    pr->coordinator_epoch = -1;
    pr->txn_first_offset = -1;
    pr->last_timestamp = -1;
    return pr;
}

int64_t kc_log_part_lso(const part_t *p)
{
    /* ProducerStateManager.firstUnstableOffset over the ongoing and the
     * not yet committed ended transactions; UnifiedLog.lastStableOffset
     * bounds it by the high watermark, maybeIncrementFirstUnstableOffset by
     * the log start offset. */
    int64_t lso = p->hw;
    for (size_t i = 0; p->ongoing > 0 && i < p->nproducers; i++)
        if (p->producers[i].txn_first_offset >= 0 && p->producers[i].txn_first_offset < lso)
            lso = p->producers[i].txn_first_offset;
    for (size_t i = 0; i < p->nended; i++)
        if (p->ended[i] < lso)
            lso = p->ended[i];
    return KC_MAX(lso, p->log_start);
}

static void fail(kc_log_append_result_t *out, int16_t code, const char *msg)
{
    out->error_code = code;
    out->error_message = msg;
    out->base_offset = -1;
    out->log_append_time = -1;
    out->log_start_offset = -1;
}

/* A batch the producer state refuses (ProducerAppendInfo's exceptions):
 * ReplicaManager answers them with the partition's log start offset and
 * without a message, as any exception not of record validation. */
static void fail_producer_state(kc_log_append_result_t *out, int16_t code, int64_t log_start)
{
    fail(out, code, NULL);
    out->log_start_offset = log_start;
}

int kc_log_append(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, const uint8_t *records,
                  size_t len, int16_t produce_version, int64_t now_ms,
                  kc_log_append_result_t *out)
{
    memset(out, 0, sizeof(*out));
    out->record_error_index = -1;
    /* ProduceRequest.validateRecords: exactly one batch of magic 2. A trailing
     * fragment shorter than a batch is not a batch (Kafka's iterator stops). */
    if (!records || len < LOG_OVERHEAD ||
        (size_t)(int32_t)rd32(records + OFF_LENGTH) + LOG_OVERHEAD > len ||
        (int32_t)rd32(records + OFF_LENGTH) < 0) {
        fail(out, KC_LOG_ERR_INVALID_RECORD,
             "Produce requests must have at least one record batch per partition");
        return 0;
    }
    size_t size = (size_t)rd32(records + OFF_LENGTH) + LOG_OVERHEAD;
    if (size < LOG_OVERHEAD + 14 || len < OFF_MAGIC + 1) {
        fail(out, KC_LOG_ERR_CORRUPT_MESSAGE,
             "Record size is less than the minimum record overhead (14)");
        return 0;
    }
    int8_t magic = (int8_t)records[OFF_MAGIC];
    if (magic < 0 || magic > 2) {
        fail(out, KC_LOG_ERR_CORRUPT_MESSAGE, "Invalid magic found in record");
        return 0;
    }
    if (magic != 2) {
        fail(out, KC_LOG_ERR_INVALID_RECORD,
             "Produce requests are only allowed to contain record batches with magic version 2");
        return 0;
    }
    if (size < BATCH_HEADER) {
        fail(out, KC_LOG_ERR_CORRUPT_MESSAGE, "Record batch is smaller than its header");
        return 0;
    }
    int16_t attrs = (int16_t)rd16(records + OFF_ATTRIBUTES);
    int compression = attrs & ATTR_COMPRESSION;
    if (produce_version < 7 && compression == COMPRESSION_ZSTD) {
        fail(out, KC_LOG_ERR_UNSUPPORTED_COMPRESSION_TYPE,
             "Produce requests with version below 7 are not allowed to use ZStandard compression");
        return 0;
    }
    size_t rest = len - size;
    if (rest >= LOG_OVERHEAD && (int32_t)rd32(records + size + OFF_LENGTH) >= 0 &&
        (size_t)rd32(records + size + OFF_LENGTH) + LOG_OVERHEAD <= rest) {
        fail(out, KC_LOG_ERR_INVALID_RECORD,
             "Produce requests are only allowed to contain exactly one record batch per partition");
        return 0;
    }
    if ((int64_t)rd64(records + OFF_BASE_OFFSET) != 0) {
        fail(out, KC_LOG_ERR_INVALID_RECORD, "The baseOffset of the record batch should be 0");
        return 0;
    }
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p) {
        fail(out, KC_LOG_ERR_KAFKA_STORAGE_ERROR, NULL);
        return KC_EIO;
    }
    const kc_log_topic_config_t *tc = kc_log_part_config(l, p);
    if (size > (size_t)tc->max_message_bytes) {
        fail(out, KC_LOG_ERR_MESSAGE_TOO_LARGE,
             "The record batch size exceeds the maximum configured value (max.message.bytes)");
        return 0;
    }
    if (kc_crc32c(0, records + OFF_ATTRIBUTES, size - OFF_ATTRIBUTES) != rd32(records + OFF_CRC)) {
        fail(out, KC_LOG_ERR_CORRUPT_MESSAGE, "Record is corrupt (stored crc does not match)");
        return 0;
    }
    int32_t last_delta = (int32_t)rd32(records + OFF_LAST_OFFSET_DELTA);
    int32_t count = (int32_t)rd32(records + OFF_RECORD_COUNT);
    int64_t base_ts = (int64_t)rd64(records + OFF_BASE_TIMESTAMP);
    int64_t max_ts = (int64_t)rd64(records + OFF_MAX_TIMESTAMP);
    int64_t pid = (int64_t)rd64(records + OFF_PRODUCER_ID);
    int16_t epoch = (int16_t)rd16(records + OFF_PRODUCER_EPOCH);
    int32_t base_seq = (int32_t)rd32(records + OFF_BASE_SEQUENCE);
    /* LogValidator.validateBatch */
    if (last_delta < 0) {
        fail(out, KC_LOG_ERR_INVALID_RECORD, "Batch has an invalid offset range");
        return 0;
    }
    if (count <= 0) {
        fail(out, KC_LOG_ERR_INVALID_RECORD, "Invalid reported count for record batch");
        return 0;
    }
    if ((int64_t)last_delta + 1 != count) {
        fail(out, KC_LOG_ERR_INVALID_RECORD, "Inconsistent batch offset range and count of records");
        return 0;
    }
    if (attrs & ATTR_CONTROL) {
        fail(out, KC_LOG_ERR_INVALID_RECORD, "Clients are not allowed to write control records");
        return 0;
    }
    if (pid >= 0 && base_seq < 0) {
        fail(out, KC_LOG_ERR_INVALID_RECORD, "Invalid sequence number in record batch");
        return 0;
    }
    bool rewrite_ts = false;
    /* Timestamps are checked for CreateTime topics only (LogValidator.validateTimestamp). */
    int64_t before_max = tc->log_append_time ? INT64_MAX : tc->message_timestamp_before_max_ms;
    int64_t after_max = tc->log_append_time ? INT64_MAX : tc->message_timestamp_after_max_ms;
    validate_ctx_t v = {base_ts, now_ms,  before_max,    after_max, INT64_MIN, -1,
                        true,    tc->compact, false, &out->record_errors};
    if (compression != 0 && tc->compact && compression != COMPRESSION_ZSTD) {
        /* A compacted topic's compressed records are opened for their keys
         * (LogValidator.validateMessagesAndAssignOffsetsCompressed); zstd,
         * which kcoord cannot read, is not. */
        kc_buf_t plain;
        kc_buf_init(&plain);
        const char *why = "Failed to decompress the record batch";
        v.check_ts = false; /* compressed: the header's timestamps stand in, below */
        int rc = kc_records_decompress(compression, records + BATCH_HEADER, size - BATCH_HEADER,
                                       (size_t)1 << 28, &plain);
        if (rc == 0)
            rc = walk_records(plain.data, plain.len, count, validate_record_fn, &v, &why);
        kc_buf_deinit(&plain);
        if (rc != 0) {
            fail(out, KC_LOG_ERR_INVALID_RECORD, why);
            out->record_errors.len = 0; /* a malformed batch has no record errors */
            return 0;
        }
    }
    if (compression == 0) {
        const char *why = NULL;
        if (walk_records(records + BATCH_HEADER, size - BATCH_HEADER, count, validate_record_fn,
                         &v, &why) != 0) {
            fail(out, KC_LOG_ERR_INVALID_RECORD, why);
            out->record_errors.len = 0;
            return 0;
        }
    }
    /* LogValidator.processRecordErrors: any timestamp error makes the batch's
     * error INVALID_TIMESTAMP, else the keys' INVALID_RECORD (the server
     * writes its message, which names the topic partition). */
    if (v.no_key && v.bad_ts_index < 0) {
        fail(out, KC_LOG_ERR_INVALID_RECORD, NULL);
        out->log_start_offset = p->log_start; /* ReplicaManager's processFailedRecord */
        return 0;
    }
    if (compression == 0) {
        if (v.bad_ts_index >= 0) {
            fail(out, KC_LOG_ERR_INVALID_TIMESTAMP,
                 "One or more records have been rejected due to invalid timestamp");
            out->record_error_index = v.bad_ts_index;
            return 0;
        }
        /* CreateTime topics: the broker writes the real maximum and the CreateTime type. */
        if (!tc->log_append_time && (v.max_ts != max_ts || (attrs & ATTR_LOG_APPEND_TIME))) {
            max_ts = v.max_ts;
            rewrite_ts = true;
        }
    } else if ((before_max != INT64_MAX && now_ms - base_ts > before_max) ||
               (after_max != INT64_MAX && max_ts - now_ms > after_max)) {
        /* Compressed batches are not opened: their header timestamps stand in. */
        fail(out, KC_LOG_ERR_INVALID_TIMESTAMP,
             "One or more records have been rejected due to invalid timestamp");
        out->record_error_index = 0;
        return 0;
    } else if (!tc->log_append_time && (attrs & ATTR_LOG_APPEND_TIME)) {
        rewrite_ts = true; /* the topic's type replaces the producer's */
    }
    /* LogAppendTime topics: the broker's clock is the batch's maximum timestamp
     * (MemoryRecordsBuilder / setMaxTimestamp(LOG_APPEND_TIME, now)). */
    if (tc->log_append_time) {
        max_ts = now_ms;
        rewrite_ts = true;
    }

    /* ProducerStateManager: duplicates, epoch and sequence checks. */
    producer_t *pr = pid >= 0 ? kc_log_producer_find(p, pid) : NULL;
    int32_t last_seq = pid >= 0 ? seq_add(base_seq, last_delta) : -1;
    if (pr) {
        if (epoch == pr->epoch) {
            for (uint8_t i = 0; i < pr->n; i++) {
                if (pr->b[i].first_seq == base_seq && pr->b[i].last_seq == last_seq) {
                    /* UnifiedLog answers a duplicate with its batch's timestamp
                     * as the log append time, whatever the timestamp type. */
                    out->base_offset = pr->b[i].first_offset;
                    out->log_append_time = pr->b[i].timestamp;
                    out->log_start_offset = p->log_start;
                    return 0;
                }
            }
        }
        if (epoch < pr->epoch) {
            fail_producer_state(out, KC_LOG_ERR_INVALID_PRODUCER_EPOCH, p->log_start);
            return 0;
        }
        if (epoch != pr->epoch) {
            if (base_seq != 0) {
                fail_producer_state(out, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, p->log_start);
                return 0;
            }
        } else {
            int32_t cur = pr->n ? pr->b[pr->n - 1].last_seq : -1;
            bool in_seq = (int64_t)base_seq == (int64_t)cur + 1 ||
                          (base_seq == 0 && cur == INT32_MAX);
            if (!in_seq) {
                fail_producer_state(out, KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, p->log_start);
                return 0;
            }
        }
        /* ProducerAppendInfo.appendDataBatch: while its transaction is
         * ongoing, a producer writes transactional batches only. */
        if (pr->txn_first_offset >= 0 && !(attrs & ATTR_TRANSACTIONAL)) {
            fail_producer_state(out, KC_LOG_ERR_INVALID_TXN_STATE, p->log_start);
            return 0;
        }
    }

    /* Assign offsets: rewrite BaseOffset and PartitionLeaderEpoch (outside the
     * CRC), writing the batch straight into its LMDB value. */
    int64_t base = p->leo;
    uint8_t k[KEY_LEN];
    batch_key(k, topic_id, partition, base);
    uint8_t *copy;
    int rc = kc_store_put_reserve(l->store, l->db_batches, k, KEY_LEN, size, &copy);
    if (rc == 0) {
        memcpy(copy, records, size);
        be64(copy + OFF_BASE_OFFSET, (uint64_t)base);
        /* The current leader epoch (UnifiedLog.appendAsLeader stamps it). */
        be32(copy + OFF_LEADER_EPOCH, (uint32_t)kc_epoch_cache_latest(&p->epochs));
        if (rewrite_ts) {
            attrs = (int16_t)(tc->log_append_time ? attrs | ATTR_LOG_APPEND_TIME
                                                  : attrs & ~ATTR_LOG_APPEND_TIME);
            be16(copy + OFF_ATTRIBUTES, (uint16_t)attrs);
            be64(copy + OFF_MAX_TIMESTAMP, (uint64_t)max_ts);
            be32(copy + OFF_CRC, kc_crc32c(0, copy + OFF_ATTRIBUTES, size - OFF_ATTRIBUTES));
        }
    }
    if (rc == 0 && pid >= 0) {
        if (!pr) {
            pr = producer_add(p, pid);
            pr->epoch = epoch;
        }
        /* A transactional batch begins the producer's transaction here. */
        if ((attrs & ATTR_TRANSACTIONAL) && pr->txn_first_offset < 0) {
            pr->txn_first_offset = base;
            p->ongoing++;
        }
        if (epoch != pr->epoch) {
            pr->epoch = epoch; /* a new epoch forgets the batches of the old one */
            pr->n = 0;
        }
        if (pr->n == PRODUCER_BATCHES) {
            memmove(&pr->b[0], &pr->b[1], (PRODUCER_BATCHES - 1) * sizeof(batch_meta_t));
            pr->n--;
        }
        pr->b[pr->n++] = (batch_meta_t){base_seq, last_seq, base, base + last_delta, max_ts};
        pr->last_timestamp = max_ts;
        rc = producer_store(l, p, pr);
    }
    if (rc == 0 && tc->compact)
        rc = kc_log_seg_appended(l, p, tc, base, size, max_ts, now_ms);
    if (rc != 0) {
        fail(out, KC_LOG_ERR_KAFKA_STORAGE_ERROR, NULL);
        return rc;
    }
    p->leo = base + count;
    p->dirty = true;
    if (p->size_bytes >= 0)
        p->size_bytes += (int64_t)size;
    out->base_offset = base;
    out->log_append_time = tc->log_append_time ? now_ms : -1;
    out->log_start_offset = p->log_start;
    return 0;
}

/* ---- the aborted transaction index ---- */

static void ab_key(uint8_t *k, kc_uuid_t tid, int32_t partition, int64_t last_offset)
{
    k[0] = 'a';
    k[1] = 'b';
    memcpy(k + 2, tid.b, 16);
    be32(k + 18, (uint32_t)partition);
    be64(k + 22, (uint64_t)last_offset);
}

typedef struct {
    kc_buf_t *out;
    int64_t upper;  /* entries whose first offset is below it; INT64_MAX: all */
    bool as_fetch;  /* kc_log_aborted_txn_t, else kc_log_aborted_entry_t */
} ab_scan_ctx_t;

/* TransactionIndex.collectAbortedTxns: the entries are in marker order, and
 * once one's last stable offset reaches the upper bound no later entry can
 * begin below it (TxnIndexSearchResult.isComplete). */
static int ab_scan_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len)
{
    ab_scan_ctx_t *a = ctx;
    if (key_len != AB_KEY_LEN || value_len != AB_VALUE_LEN || value[0] != 0)
        return KC_EIO;
    kc_log_aborted_entry_t e = {(int64_t)rd64(value + 1), (int64_t)rd64(value + 9),
                                (int64_t)rd64(key + 22), (int64_t)rd64(value + 17)};
    if (e.first_offset < a->upper) {
        if (a->as_fetch) {
            kc_log_aborted_txn_t t = {e.producer_id, e.first_offset};
            kc_buf_append(a->out, &t, sizeof(t));
        } else {
            kc_buf_append(a->out, &e, sizeof(e));
        }
    }
    return e.last_stable_offset >= a->upper ? 1 : 0;
}

int kc_log_aborted_delete(kc_log_t *l, const part_t *p, int64_t marker_offset)
{
    uint8_t k[AB_KEY_LEN];
    ab_key(k, p->topic_id, p->partition, marker_offset);
    return kc_store_del(l->store, l->db_meta, k, AB_KEY_LEN);
}

int kc_log_aborted_index(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t from,
                         kc_buf_t *out)
{
    uint8_t k[AB_KEY_LEN];
    ab_key(k, topic_id, partition, KC_MAX(from, 0));
    ab_scan_ctx_t a = {out, INT64_MAX, false};
    int rc = kc_store_scan(l->store, l->db_meta, k, AB_KEY_LEN, AB_KEY_LEN - 8, false, ab_scan_fn,
                           &a);
    return rc < 0 ? rc : 0;
}

typedef struct {
    int64_t below;
    int64_t *last; /* marker offsets of the entries below */
    size_t n, cap;
} ab_trim_ctx_t;

static int ab_trim_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len)
{
    (void)value;
    ab_trim_ctx_t *t = ctx;
    if (key_len != AB_KEY_LEN || value_len != AB_VALUE_LEN)
        return KC_EIO;
    int64_t last = (int64_t)rd64(key + 22);
    if (last >= t->below)
        return 1;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->last = kc_xrealloc(t->last, t->cap * sizeof(*t->last));
    }
    t->last[t->n++] = last;
    return 0;
}

/* Drops the aborted transaction entries of p whose marker lies below its
 * log start offset, in the open transaction (Kafka deletes the .txnindex
 * of each segment deleted). 0 or the store's error. */
static int ab_trim(kc_log_t *l, const part_t *p)
{
    uint8_t k[AB_KEY_LEN];
    ab_key(k, p->topic_id, p->partition, 0);
    ab_trim_ctx_t t = {p->log_start, NULL, 0, 0};
    int rc = kc_store_scan(l->store, l->db_meta, k, AB_KEY_LEN, AB_KEY_LEN - 8, false, ab_trim_fn,
                           &t);
    if (rc > 0)
        rc = 0;
    for (size_t i = 0; rc == 0 && i < t.n; i++) {
        ab_key(k, p->topic_id, p->partition, t.last[i]);
        rc = kc_store_del(l->store, l->db_meta, k, AB_KEY_LEN);
    }
    free(t.last);
    return rc;
}

/* ---- transaction markers ---- */

#define MARKER_RECORDS_LEN 17 /* one record: length varint + a 16-byte body */
#define MARKER_BATCH_LEN (BATCH_HEADER + MARKER_RECORDS_LEN)

/* The control batch of an end transaction marker at base, as
 * MemoryRecords.writeEndTransactionalMarker lays it out. */
static void marker_batch(uint8_t *b, int64_t base, int32_t leader_epoch, int16_t attrs, int64_t ts,
                         int64_t pid, int16_t epoch, bool commit, int32_t coordinator_epoch)
{
    memset(b, 0, MARKER_BATCH_LEN);
    be64(b + OFF_BASE_OFFSET, (uint64_t)base);
    be32(b + OFF_LENGTH, MARKER_BATCH_LEN - LOG_OVERHEAD);
    be32(b + OFF_LEADER_EPOCH, (uint32_t)leader_epoch);
    b[OFF_MAGIC] = 2;
    be16(b + OFF_ATTRIBUTES, (uint16_t)attrs);
    be32(b + OFF_LAST_OFFSET_DELTA, 0);
    be64(b + OFF_BASE_TIMESTAMP, (uint64_t)ts);
    be64(b + OFF_MAX_TIMESTAMP, (uint64_t)ts);
    be64(b + OFF_PRODUCER_ID, (uint64_t)pid);
    be16(b + OFF_PRODUCER_EPOCH, (uint16_t)epoch);
    be32(b + OFF_BASE_SEQUENCE, UINT32_MAX); /* RecordBatch.NO_SEQUENCE */
    be32(b + OFF_RECORD_COUNT, 1);
    uint8_t *r = b + BATCH_HEADER;
    r[0] = 16 << 1; /* record length 16 (zigzag varint) */
    r[1] = 0;       /* attributes */
    r[2] = 0;       /* timestamp delta */
    r[3] = 0;       /* offset delta */
    r[4] = 4 << 1;  /* key: ControlRecordType, version 0 */
    be16(r + 5, 0);
    be16(r + 7, commit ? 1 : 0);
    r[9] = 6 << 1; /* value: EndTxnMarker, version 0 */
    be16(r + 10, 0);
    be32(r + 12, (uint32_t)coordinator_epoch);
    r[16] = 0; /* no headers */
    be32(b + OFF_CRC, kc_crc32c(0, b + OFF_ATTRIBUTES, MARKER_BATCH_LEN - OFF_ATTRIBUTES));
}

static void marker_fail(kc_log_marker_result_t *out, int16_t code)
{
    out->error_code = code;
    out->offset = -1;
}

int kc_log_write_marker(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t producer_id,
                        int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                        int16_t transaction_version, int64_t now_ms, kc_log_marker_result_t *out)
{
    out->error_code = 0;
    out->offset = -1;
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p) {
        marker_fail(out, KC_LOG_ERR_KAFKA_STORAGE_ERROR);
        return KC_EIO;
    }
    const kc_log_topic_config_t *tc = kc_log_part_config(l, p);
    producer_t *pr = kc_log_producer_find(p, producer_id);
    int16_t current = pr ? pr->epoch : -1;
    bool ongoing = pr && pr->txn_first_offset >= 0;
    /* ProducerAppendInfo.checkProducerEpoch: from transaction version 2 the
     * coordinator bumps the epoch for every marker, so an equal epoch is a
     * late marker too, unless the transaction already ended (a retry). */
    bool stale = transaction_version >= 2 ? producer_epoch <= current : producer_epoch < current;
    if (stale && !(transaction_version >= 2 && producer_epoch == current &&
                   (!ongoing || producer_epoch == INT16_MAX))) {
        marker_fail(out, KC_LOG_ERR_INVALID_PRODUCER_EPOCH);
        return 0;
    }
    /* checkCoordinatorEpoch */
    if (pr && pr->coordinator_epoch > coordinator_epoch) {
        marker_fail(out, KC_LOG_ERR_TRANSACTION_COORDINATOR_FENCED);
        return 0;
    }
    int64_t base = p->leo;
    int16_t attrs = ATTR_TRANSACTIONAL | ATTR_CONTROL;
    if (tc->log_append_time)
        attrs |= ATTR_LOG_APPEND_TIME;
    uint8_t k[KEY_LEN];
    batch_key(k, topic_id, partition, base);
    uint8_t *b;
    int rc = kc_store_put_reserve(l->store, l->db_batches, k, KEY_LEN, MARKER_BATCH_LEN, &b);
    if (rc == 0)
        marker_batch(b, base, kc_epoch_cache_latest(&p->epochs), attrs, now_ms, producer_id,
                     producer_epoch, commit, coordinator_epoch);
    int64_t first = ongoing ? pr->txn_first_offset : -1;
    if (rc == 0 && !commit && first >= 0) {
        /* ProducerStateManager.lastStableOffset(completedTxn): the first
         * offset of another producer's ongoing transaction, else the offset
         * after the marker. */
        int64_t lso = base + 1;
        for (size_t i = 0; i < p->nproducers; i++) {
            const producer_t *q = &p->producers[i];
            if (q->producer_id != producer_id && q->txn_first_offset >= 0 &&
                q->txn_first_offset < lso)
                lso = q->txn_first_offset;
        }
        uint8_t ak[AB_KEY_LEN], av[AB_VALUE_LEN];
        ab_key(ak, topic_id, partition, base);
        av[0] = 0;
        be64(av + 1, (uint64_t)producer_id);
        be64(av + 9, (uint64_t)first);
        be64(av + 17, (uint64_t)lso);
        rc = kc_store_put(l->store, l->db_meta, ak, AB_KEY_LEN, av, AB_VALUE_LEN);
    }
    /* ProducerStateEntry.update: the marker's epoch (a new one forgets the
     * batches), its coordinator epoch, no transaction ongoing. */
    producer_t next;
    if (pr) {
        next = *pr;
    } else {
        memset(&next, 0, sizeof(next));
        next.producer_id = producer_id;
        next.epoch = producer_epoch;
    }
    if (next.epoch != producer_epoch) {
        next.epoch = producer_epoch;
        next.n = 0;
    }
    next.coordinator_epoch = coordinator_epoch;
    next.txn_first_offset = -1;
    next.last_timestamp = now_ms;
    if (rc == 0)
        rc = producer_store(l, p, &next);
    if (rc == 0 && tc->compact)
        rc = kc_log_seg_appended(l, p, tc, base, MARKER_BATCH_LEN, now_ms, now_ms);
    if (rc != 0) {
        marker_fail(out, KC_LOG_ERR_KAFKA_STORAGE_ERROR);
        return rc;
    }
    if (!pr)
        pr = producer_add(p, producer_id);
    *pr = next;
    if (first >= 0) {
        p->ongoing--;
        /* The transaction bounds the last stable offset until the marker commits. */
        if (p->nended == p->ended_cap) {
            p->ended_cap = p->ended_cap ? p->ended_cap * 2 : 4;
            p->ended = kc_xrealloc(p->ended, p->ended_cap * sizeof(*p->ended));
        }
        p->ended[p->nended++] = first;
    }
    p->leo = base + 1;
    p->dirty = true;
    if (p->size_bytes >= 0)
        p->size_bytes += MARKER_BATCH_LEN;
    out->offset = base;
    return 0;
}

/* ---- reads ---- */

int kc_log_offsets(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, kc_log_offsets_t *out)
{
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    out->log_start_offset = p->log_start;
    out->high_watermark = p->hw;
    out->last_stable_offset = kc_log_part_lso(p);
    out->log_end_offset = p->leo;
    return 0;
}

typedef struct {
    kc_buf_t *out;
    int64_t offset, hw;
    size_t used, limit;
    bool min_one, first;
    kc_log_t *l;
    part_t *p;
    int64_t seg_end; /* a read ends with the segment of its first batch (LogSegment.read) */
    int64_t upper;   /* the first offset not returned (LogSegment.fetchUpperBoundOffset) */
} read_ctx_t;

static int read_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                   size_t value_len)
{
    read_ctx_t *r = ctx;
    if (key_len != KEY_LEN || value_len < BATCH_HEADER)
        return KC_EIO;
    int64_t base = (int64_t)rd64(key + 20);
    int64_t last = base + (int32_t)rd32(value + OFF_LAST_OFFSET_DELTA);
    if (base >= r->hw) {
        r->upper = base;
        return 1;
    }
    if (last < r->offset)
        return 0;
    if (r->first) {
        r->seg_end = kc_log_seg_end(r->l, r->p, base);
    } else if (base >= r->seg_end) {
        r->upper = base;
        return 1;
    }
    if (r->first && r->min_one && value_len > r->limit)
        r->limit = value_len;
    r->first = false;
    size_t room = r->limit - r->used;
    size_t n = KC_MIN(room, value_len);
    kc_buf_append(r->out, value, n);
    r->used += n;
    if (r->used >= r->limit) {
        r->upper = last + 1; /* a batch cut short counts as read: its end is the bound */
        return 1;
    }
    return 0;
}


int kc_log_read(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t offset,
                int32_t max_bytes, bool min_one, kc_buf_t *out, int16_t *error_code,
                kc_log_offsets_t *offsets)
{
    return kc_log_read_isolated(l, topic_id, partition, offset, max_bytes, min_one,
                                KC_LOG_READ_UNCOMMITTED, out, NULL, error_code, offsets);
}

int kc_log_read_isolated(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t offset,
                         int32_t max_bytes, bool min_one, int isolation, kc_buf_t *out,
                         kc_buf_t *aborted, int16_t *error_code, kc_log_offsets_t *offsets)
{
    *error_code = 0;
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    offsets->log_start_offset = p->log_start;
    offsets->high_watermark = p->hw;
    offsets->last_stable_offset = kc_log_part_lso(p);
    offsets->log_end_offset = p->leo;
    if (offset < p->log_start || offset > p->leo) {
        *error_code = KC_LOG_ERR_OFFSET_OUT_OF_RANGE;
        return 0;
    }
    /* UnifiedLog.read: the high watermark, or for TXN_COMMITTED the last
     * stable offset, is where the read ends. */
    bool committed = isolation == KC_LOG_READ_COMMITTED;
    int64_t max_offset = committed ? offsets->last_stable_offset : p->hw;
    if (offset >= max_offset || (max_bytes <= 0 && !min_one))
        return 0;
    read_ctx_t r = {out,     offset, max_offset, 0, max_bytes > 0 ? (size_t)max_bytes : 0,
                    min_one, true,   l,          p, INT64_MAX,
                    max_offset};
    uint8_t k[KEY_LEN];
    batch_key(k, topic_id, partition, offset);
    size_t before = out->len;
    int rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, true, read_fn, &r);
    if (rc < 0)
        return rc;
    /* LocalLog.addAbortedTransactions: the aborted transactions whose
     * marker is at or after the fetch offset and that began before the
     * first offset not returned. */
    if (committed && aborted && out->len > before) {
        uint8_t ak[AB_KEY_LEN];
        ab_key(ak, topic_id, partition, offset);
        ab_scan_ctx_t a = {aborted, r.upper, true};
        rc = kc_store_scan(l->store, l->db_meta, ak, AB_KEY_LEN, AB_KEY_LEN - 8, false,
                           ab_scan_fn, &a);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int kc_log_producers(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, kc_buf_t *out)
{
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    for (size_t i = 0; i < p->nproducers; i++) {
        const producer_t *pr = &p->producers[i];
        kc_log_producer_state_t st = {pr->producer_id,
                                      pr->epoch,
                                      pr->n ? pr->b[pr->n - 1].last_seq : -1,
                                      pr->last_timestamp,
                                      pr->coordinator_epoch,
                                      pr->txn_first_offset};
        kc_buf_append(out, &st, sizeof(st));
    }
    return 0;
}

int kc_log_last_stable_offset(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t *out)
{
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    *out = kc_log_part_lso(p);
    return 0;
}

typedef struct {
    int64_t target; /* >= 0: first record at or after; -3: max timestamp */
    int64_t start;  /* the log start offset: records before it are gone */
    int64_t hw;
    int64_t best_ts, best_offset;
    int32_t best_epoch; /* the PartitionLeaderEpoch of best_offset's batch */
    bool done;
} ts_ctx_t;

typedef struct {
    int64_t base_ts, want;
    bool exact; /* want == timestamp (max search) instead of >= */
    int32_t min_delta; /* records of a smaller offset delta are before the log start */
    int32_t index;
    int64_t ts;
} find_ctx_t;

static int find_record_fn(void *ctx, int32_t index, int64_t ts_delta, int32_t offset_delta,
                          int32_t key_len)
{
    (void)key_len;
    find_ctx_t *f = ctx;
    int64_t ts = f->base_ts + ts_delta;
    if (offset_delta < f->min_delta)
        return 0;
    if (f->exact ? ts == f->want : ts >= f->want) {
        f->index = offset_delta;
        f->ts = ts;
        (void)index;
        return 1;
    }
    return 0;
}

static int ts_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                 size_t value_len)
{
    ts_ctx_t *t = ctx;
    if (key_len != KEY_LEN || value_len < BATCH_HEADER)
        return KC_EIO;
    int64_t base = (int64_t)rd64(key + 20);
    if (base >= t->hw)
        return 1;
    int32_t last_delta = (int32_t)rd32(value + OFF_LAST_OFFSET_DELTA);
    if (base + last_delta < t->start)
        return 0; /* the batch the scan starts from may end before the log start */
    if (rd32(value + OFF_RECORD_COUNT) == 0)
        return 0; /* a batch compaction left empty has no record to find */
    int64_t max_ts = (int64_t)rd64(value + OFF_MAX_TIMESTAMP);
    bool compressed = (rd16(value + OFF_ATTRIBUTES) & ATTR_COMPRESSION) != 0;
    int64_t want = t->target >= 0 ? t->target : max_ts;
    if (t->target >= 0 ? max_ts < t->target : (t->best_offset >= 0 && max_ts <= t->best_ts))
        return 0;
    int64_t off = compressed && t->target < 0 ? base + last_delta : KC_MAX(base, t->start);
    int64_t ts = max_ts;
    /* A compressed batch is searched record by record too, as Kafka
     * decompresses it (zstd, which kcoord cannot read, keeps the bounds). */
    kc_buf_t plain;
    kc_buf_init(&plain);
    const uint8_t *recs = value + BATCH_HEADER;
    size_t recs_len = value_len - BATCH_HEADER;
    if (compressed &&
        kc_records_decompress(rd16(value + OFF_ATTRIBUTES) & ATTR_COMPRESSION, recs, recs_len,
                              (size_t)1 << 28, &plain) == 0) {
        compressed = false;
        recs = plain.data;
        recs_len = plain.len;
    }
    if (!compressed) {
        /* A search by timestamp finds the first record at or after the log
         * start (FileRecords.searchForTimestamp's starting offset). */
        int32_t min_delta = t->target >= 0 && t->start > base ? (int32_t)(t->start - base) : 0;
        find_ctx_t f = {(int64_t)rd64(value + OFF_BASE_TIMESTAMP), want, t->target < 0, min_delta,
                        -1, -1};
        const char *why;
        int rc = walk_records(recs, recs_len, (int32_t)rd32(value + OFF_RECORD_COUNT),
                              find_record_fn, &f, &why);
        kc_buf_deinit(&plain);
        if (rc < 0)
            return KC_EIO;
        if (f.index >= 0) {
            off = base + f.index;
            ts = f.ts;
        }
    }
    kc_buf_deinit(&plain);
    t->best_offset = off;
    t->best_ts = ts;
    t->best_epoch = (int32_t)rd32(value + OFF_LEADER_EPOCH);
    return t->target >= 0 ? 1 : 0;
}

int kc_log_list_offset(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t timestamp,
                       int64_t *offset, int64_t *found_timestamp)
{
    int32_t epoch;
    return kc_log_find_offset(l, topic_id, partition, timestamp, offset, found_timestamp, &epoch);
}

int kc_log_find_offset(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t timestamp,
                       int64_t *offset, int64_t *found_timestamp, int32_t *leader_epoch)
{
    *offset = -1;
    *found_timestamp = -1;
    *leader_epoch = KC_EPOCH_UNDEFINED;
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    if (timestamp == -2 || timestamp == -4) {
        *offset = p->log_start;
        return 0;
    }
    if (timestamp == -1) {
        *offset = p->hw;
        return 0;
    }
    if (timestamp != -3 && timestamp < 0)
        return KC_EINVAL;
    ts_ctx_t t = {timestamp, p->log_start, p->hw, -1, -1, KC_EPOCH_UNDEFINED, false};
    uint8_t k[KEY_LEN];
    batch_key(k, topic_id, partition, p->log_start);
    /* From the batch holding the log start offset, which may begin before it. */
    int rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, true, ts_fn, &t);
    if (rc < 0)
        return rc;
    if (t.best_offset >= 0) {
        *offset = t.best_offset;
        *found_timestamp = t.best_ts;
        *leader_epoch = t.best_epoch < 0 ? KC_EPOCH_UNDEFINED : t.best_epoch;
    }
    return 0;
}

/* ---- leader epochs ---- */

int kc_log_epoch_cache(kc_log_t *l, kc_uuid_t topic_id, int32_t partition,
                       const kc_epoch_cache_t **out, kc_log_offsets_t *offsets)
{
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    *out = &p->epochs;
    if (offsets) {
        offsets->log_start_offset = p->log_start;
        offsets->high_watermark = p->hw;
        offsets->last_stable_offset = kc_log_part_lso(p);
        offsets->log_end_offset = p->leo;
    }
    return 0;
}

int kc_log_make_leader(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int32_t leader_epoch)
{
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    /* Partition.makeLeader: the new epoch starts at the log end offset. */
    if (!kc_epoch_cache_assign(&p->epochs, leader_epoch, p->leo))
        return 0;
    return store_epochs(l, p);
}

/* ---- topics and producer ids ---- */

int kc_log_delete_topic(kc_log_t *l, kc_uuid_t topic_id)
{
    int rc = kc_store_del_prefix(l->store, l->db_batches, topic_id.b, 16);
    if (rc == 0)
        rc = kc_store_del_prefix(l->store, l->db_producers, topic_id.b, 16);
    if (rc == 0) {
        uint8_t lk[LS_KEY_LEN];
        ls_key(lk, topic_id, 0);
        rc = kc_store_del_prefix(l->store, l->db_meta, lk, 18);
    }
    if (rc == 0)
        rc = kc_log_clean_delete_topic(l, topic_id);
    if (rc == 0) {
        uint8_t ek[LE_KEY_LEN];
        le_key(ek, topic_id, 0);
        rc = kc_store_del_prefix(l->store, l->db_meta, ek, 18);
    }
    if (rc == 0) {
        uint8_t ak[AB_KEY_LEN];
        ab_key(ak, topic_id, 0, 0);
        rc = kc_store_del_prefix(l->store, l->db_meta, ak, 18);
    }
    if (rc)
        return rc;
    for (size_t i = 0; i < l->cap; i++) {
        part_t *p = l->tab[i];
        if (p && memcmp(p->topic_id.b, topic_id.b, 16) == 0) {
            part_free(p);
            l->tab[i] = NULL;
            l->count--;
        }
    }
    tab_rebuild(l, l->cap); /* removal broke probe chains */
    return 0;
}

int kc_log_next_producer_id(kc_log_t *l, int64_t *out)
{
    if (l->next_producer_id >= l->producer_id_block_end) {
        uint8_t v[8];
        int64_t end = l->next_producer_id + PRODUCER_ID_BLOCK;
        be64(v, (uint64_t)end);
        int rc = kc_store_put(l->store, l->db_meta, PID_KEY, sizeof(PID_KEY) - 1, v, 8);
        if (rc)
            return rc;
        l->producer_id_block_end = end;
    }
    *out = l->next_producer_id++;
    return 0;
}

/* ---- log start offset: DeleteRecords and retention ---- */

/* Writes p's raised log start offset, and the leader epoch cache cut to
 * it (UnifiedLog.maybeIncrementLogStartOffset's truncateFromStart). */
int kc_log_store_log_start(kc_log_t *l, part_t *p)
{
    uint8_t k[LS_KEY_LEN], v[8];
    ls_key(k, p->topic_id, p->partition);
    be64(v, (uint64_t)p->log_start);
    int rc = kc_store_put(l->store, l->db_meta, k, LS_KEY_LEN, v, 8);
    if (rc == 0 && kc_epoch_cache_truncate_from_start(&p->epochs, p->log_start))
        rc = store_epochs(l, p);
    if (rc == 0)
        rc = ab_trim(l, p);
    return rc;
}

typedef struct {
    int64_t base, last, max_ts;
    size_t size;
} batch_info_t;

typedef struct {
    batch_info_t *b;
    size_t n, cap;
    int64_t hw;
    int64_t total; /* sizing walk: sum of sizes */
} scan_ctx_t;

static int collect_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len)
{
    scan_ctx_t *c = ctx;
    if (key_len != KEY_LEN || value_len < BATCH_HEADER)
        return KC_EIO;
    int64_t base = (int64_t)rd64(key + 20);
    if (base >= c->hw)
        return 1;
    if (!c->b) {
        c->total += (int64_t)value_len;
        return 0;
    }
    c->b[c->n++] = (batch_info_t){base, base + (int32_t)rd32(value + OFF_LAST_OFFSET_DELTA),
                                  (int64_t)rd64(value + OFF_MAX_TIMESTAMP), value_len};
    return c->n == c->cap ? 1 : 0;
}

/*
 * Deletes from the start of p the batches that keep holds false for, at
 * most max_batches, then raises the log start offset past them. The batch
 * at or above the high watermark is never touched. Sets *more when the
 * budget ran out with deletable batches left.
 */
static int trim_front(kc_log_t *l, part_t *p, int64_t retention_ms, int64_t retention_bytes,
                      int64_t now_ms, size_t max_batches, size_t *deleted, bool *more)
{
    *deleted = 0;
    *more = false;
    if (max_batches == 0)
        return 0;
    /* Scans read what is committed: start past batches deleted but not yet committed. */
    uint8_t k[KEY_LEN];
    batch_key(k, p->topic_id, p->partition, p->deleted_upto);
    if (retention_bytes >= 0 && p->size_bytes < 0) {
        scan_ctx_t sz = {NULL, 0, 0, p->hw, 0};
        int rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, false, collect_fn,
                               &sz);
        if (rc < 0)
            return rc;
        p->size_bytes = sz.total;
    }
    scan_ctx_t c = {kc_xcalloc(max_batches + 1, sizeof(batch_info_t)), 0, max_batches + 1, p->hw, 0};
    batch_key(k, p->topic_id, p->partition, p->deleted_upto);
    int rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, false, collect_fn, &c);
    if (rc < 0)
        goto out;
    rc = 0;
    size_t i = 0;
    for (; i < c.n && i < max_batches; i++) {
        const batch_info_t *b = &c.b[i];
        /* UnifiedLog.deleteOldSegments: log start, retention.ms, retention.bytes breaches. */
        bool below_start = b->last < p->log_start;
        bool too_old = retention_ms >= 0 && now_ms - b->max_ts > retention_ms;
        bool too_big = retention_bytes >= 0 && p->size_bytes >= 0 &&
                       p->size_bytes - (int64_t)b->size >= retention_bytes;
        if (!below_start && !too_old && !too_big)
            break;
        batch_key(k, p->topic_id, p->partition, b->base);
        rc = kc_store_del(l->store, l->db_batches, k, KEY_LEN);
        if (rc)
            goto out;
        if (p->size_bytes >= 0)
            p->size_bytes -= (int64_t)b->size;
        (*deleted)++;
    }
    if (*deleted > 0) {
        int64_t next = i < c.n ? c.b[i].base : p->hw;
        p->deleted_upto = next;
        p->trim_pending = true;
        if (next > p->log_start) {
            p->log_start = next;
            rc = kc_log_store_log_start(l, p);
        }
        for (size_t j = 0; rc == 0 && j < *deleted; j++)
            rc = kc_log_seg_trimmed(l, p, c.b[j].base, c.b[j].size);
        if (p->clean_pending) {
            /* The sizes read here are those before the cleaner's pending
             * rewrites: count them again once this is committed. */
            p->size_bytes = -1;
            kc_log_seg_free(p);
        }
    }
    *more = i == max_batches && c.n > max_batches;
out:
    free(c.b);
    return rc;
}

int kc_log_delete_records(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t offset,
                          int64_t *low_watermark, int16_t *error_code)
{
    *low_watermark = -1;
    *error_code = 0;
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p) {
        *error_code = KC_LOG_ERR_KAFKA_STORAGE_ERROR;
        return KC_EIO;
    }
    if (offset == -1)
        offset = p->hw;
    if (offset < 0 || offset > p->hw) {
        *error_code = KC_LOG_ERR_OFFSET_OUT_OF_RANGE;
        return 0;
    }
    if (offset > p->log_start) {
        p->log_start = offset;
        int rc = kc_log_store_log_start(l, p);
        size_t n;
        bool more;
        if (rc == 0)
            rc = trim_front(l, p, -1, -1, 0, KC_LOG_TRIM_BATCHES, &n, &more);
        if (rc) {
            *error_code = KC_LOG_ERR_KAFKA_STORAGE_ERROR;
            return rc;
        }
    }
    *low_watermark = p->log_start;
    return 0;
}

int kc_log_apply_retention(kc_log_t *l, kc_uuid_t topic_id, int32_t partition,
                           int64_t retention_ms, int64_t retention_bytes, int64_t now_ms,
                           size_t max_batches, size_t *deleted, bool *more)
{
    *deleted = 0;
    *more = false;
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    if (p->hw <= 0 && p->log_start == 0)
        return 0;
    /* The cleaner rewrote batches of it in the open transaction: the sizes
     * that retention.bytes weighs are those of the next pass. */
    if (p->clean_pending)
        return 0;
    return trim_front(l, p, retention_ms, retention_bytes, now_ms, max_batches, deleted, more);
}
