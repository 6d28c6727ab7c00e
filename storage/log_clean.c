/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log compaction of the partition log (cleanup.policy=compact), as Kafka's
 * LogCleaner, LogCleanerManager and Cleaner do it: the segments of a
 * compacted partition (rolled by UnifiedLog.maybeRoll's rules), how dirty a
 * partition is (LogToClean), and a clean in bounded slices (Cleaner.doClean:
 * buildOffsetMap, then cleanSegments with MemoryRecords.filterTo's rules).
 * Does not choose which partition to clean or when: the server does, every
 * log.cleaner.backoff.ms (server/log_api.c).
 *
 * Stored beside the log's own keys in "pmeta" (integers big-endian):
 *   "sg" | topic id | partition | base offset (8) -> u8 version 0,
 *        i64 created ms: a segment rolled at that offset (the first segment
 *        of a partition has none: it begins where the log begins)
 *   "cp" | topic id | partition -> i64 the cleaner checkpoint (Kafka's
 *        cleaner-offset-checkpoint: the first dirty offset)
 * Segment sizes and timestamps are not stored: the batch headers give them,
 * read once per partition when first needed.
 *
 * The offset map keys records by a 128-bit XXH3 digest of their key, as
 * Kafka's SkimpyOffsetMap keys them by an MD5 digest (a collision, as there,
 * would keep the wrong record; at 128 bits it does not happen).
 *
 * Transactions: cleaning stops at the last stable offset
 * (LogCleanerManager.cleanableOffsets), so every transaction it meets has
 * ended, and the aborted transaction index tells which were aborted. As
 * Kafka's buildOffsetMap, the records of aborted transactions and of
 * control batches are not mapped (an aborted record never removes an older
 * record of its key); committed transactional records are mapped and
 * cleaned like any other. The records of aborted transactions are removed
 * (Cleaner.shouldDiscardBatch; the producer's last batch stays as an empty
 * batch). A marker stays while a clean still meets a batch of its
 * transaction (CleanedTransactionMetadata); the first clean that meets
 * none gives it a delete horizon of delete.retention.ms, and the first
 * clean past the horizon removes it, an ABORT marker's aborted index entry
 * with it (a READ_COMMITTED consumer must never get an entry whose marker
 * is gone).
 * A producer's last batch is kept
 * (as an empty batch when nothing else of it is left), as Kafka keeps it
 * for every producer it still tracks (kcoord expires none).
 */
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "crc32c.h"
#include "kc_log.h"
#include "legacy.h"

#define META_KEY_LEN 22 /* tag (2) | topic id | partition */
#define SG_KEY_LEN 30   /* "sg" | topic id | partition | base offset */
#define SG_VALUE_LEN 9
#define MAP_ENTRY_BYTES 24  /* SkimpyOffsetMap: a 16-byte digest and an 8-byte offset */
#define MAP_LOAD_FACTOR 0.9 /* log.cleaner.io.buffer.load.factor */
#define DECOMPRESS_MAX ((size_t)1 << 28)

/* ---- keys ---- */

static void meta_key(uint8_t *k, char t0, char t1, kc_uuid_t tid, int32_t partition)
{
    k[0] = (uint8_t)t0;
    k[1] = (uint8_t)t1;
    memcpy(k + 2, tid.b, 16);
    be32(k + 18, (uint32_t)partition);
}

static void sg_key(uint8_t *k, kc_uuid_t tid, int32_t partition, int64_t base)
{
    meta_key(k, 's', 'g', tid, partition);
    be64(k + META_KEY_LEN, (uint64_t)base);
}

/* ---- segments ---- */

void kc_log_seg_free(part_t *p)
{
    free(p->segs);
    p->segs = NULL;
    p->nsegs = p->segs_cap = 0;
    p->segs_ready = false;
}

static kc_log_seg_t *seg_insert(part_t *p, size_t at, int64_t base, int64_t created_ms)
{
    if (p->nsegs == p->segs_cap) {
        p->segs_cap = p->segs_cap ? p->segs_cap * 2 : 8;
        p->segs = kc_xrealloc(p->segs, p->segs_cap * sizeof(*p->segs));
    }
    memmove(&p->segs[at + 1], &p->segs[at], (p->nsegs - at) * sizeof(*p->segs));
    p->nsegs++;
    p->segs[at] = (kc_log_seg_t){base, created_ms, 0, NO_FIRST_TS, -1};
    return &p->segs[at];
}

static void seg_remove(part_t *p, size_t at)
{
    memmove(&p->segs[at], &p->segs[at + 1], (p->nsegs - at - 1) * sizeof(*p->segs));
    p->nsegs--;
}

/* The segment holding offset: the last whose base is not above it (the
 * first for offsets before every base). */
static size_t seg_index(const part_t *p, int64_t offset)
{
    size_t lo = 0, hi = p->nsegs;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->segs[mid].base <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void seg_add_batch(kc_log_seg_t *s, int64_t size, int64_t max_ts)
{
    s->size += size;
    if (s->first_ts == NO_FIRST_TS)
        s->first_ts = max_ts;
    if (max_ts > s->largest_ts)
        s->largest_ts = max_ts;
}

static int sg_load_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len)
{
    part_t *p = ctx;
    if (key_len != SG_KEY_LEN || value_len != SG_VALUE_LEN || value[0] != 0)
        return KC_EIO;
    seg_insert(p, p->nsegs, (int64_t)rd64(key + META_KEY_LEN), (int64_t)rd64(value + 1));
    return 0;
}

typedef struct {
    part_t *p;
    size_t at; /* the segment of the previous batch: batches come in offset order */
} seg_stats_ctx_t;

static int seg_stats_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                        size_t value_len)
{
    seg_stats_ctx_t *c = ctx;
    if (key_len != KEY_LEN || value_len < BATCH_HEADER)
        return KC_EIO;
    int64_t base = (int64_t)rd64(key + 20);
    if (base >= c->p->hw)
        return 1;
    while (c->at + 1 < c->p->nsegs && c->p->segs[c->at + 1].base <= base)
        c->at++;
    seg_add_batch(&c->p->segs[c->at], (int64_t)value_len, (int64_t)rd64(value + OFF_MAX_TIMESTAMP));
    return 0;
}

/*
 * The segments of p: its roll points from the store, a first segment where
 * the log begins when none lies there, then the sizes and timestamps of the
 * committed batches.
 */
static int segs_load(kc_log_t *l, part_t *p, int64_t now_ms)
{
    kc_log_seg_free(p);
    uint8_t k[SG_KEY_LEN];
    sg_key(k, p->topic_id, p->partition, 0);
    int rc = kc_store_scan(l->store, l->db_meta, k, SG_KEY_LEN, META_KEY_LEN, false, sg_load_fn, p);
    if (rc >= 0) {
        if (p->nsegs == 0 || p->segs[0].base > p->log_start)
            seg_insert(p, 0, p->log_start, now_ms);
        uint8_t bk[KEY_LEN];
        batch_key(bk, p->topic_id, p->partition, p->deleted_upto);
        seg_stats_ctx_t c = {p, 0};
        rc = kc_store_scan(l->store, l->db_batches, bk, KEY_LEN, PKEY_LEN, false, seg_stats_fn, &c);
    }
    if (rc < 0) {
        kc_log_error("log", "cannot load the segments of partition %d (%d)", p->partition, rc);
        kc_log_seg_free(p);
        return KC_EIO;
    }
    p->segs_ready = true;
    return 0;
}

static int seg_store(kc_log_t *l, const part_t *p, const kc_log_seg_t *s)
{
    uint8_t k[SG_KEY_LEN], v[SG_VALUE_LEN];
    sg_key(k, p->topic_id, p->partition, s->base);
    v[0] = 0;
    be64(v + 1, (uint64_t)s->created_ms);
    return kc_store_put(l->store, l->db_meta, k, SG_KEY_LEN, v, SG_VALUE_LEN);
}

static int seg_unstore(kc_log_t *l, const part_t *p, int64_t base)
{
    uint8_t k[SG_KEY_LEN];
    sg_key(k, p->topic_id, p->partition, base);
    return kc_store_del(l->store, l->db_meta, k, SG_KEY_LEN);
}

int kc_log_seg_appended(kc_log_t *l, part_t *p, const kc_log_topic_config_t *tc, int64_t base,
                        size_t size, int64_t max_ts, int64_t now_ms)
{
    if (!p->segs_ready) {
        int rc = segs_load(l, p, now_ms);
        if (rc)
            return rc;
    }
    kc_log_seg_t *a = &p->segs[p->nsegs - 1];
    /* LogSegment.shouldRoll (segment.jitter.ms is not applied): the time
     * waited is the new batch's timestamp less the first batch's, or the
     * broker clock less the creation time when the first has none. */
    int64_t waited = a->first_ts != NO_FIRST_TS && a->first_ts >= 0 ? max_ts - a->first_ts
                                                                    : now_ms - a->created_ms;
    bool roll = a->size > tc->segment_bytes - (int64_t)size || (a->size > 0 && waited > tc->segment_ms);
    if (roll && base > a->base) {
        a = seg_insert(p, p->nsegs, base, now_ms);
        int rc = seg_store(l, p, a);
        if (rc)
            return rc;
    }
    seg_add_batch(a, (int64_t)size, max_ts);
    return 0;
}

int64_t kc_log_seg_end(kc_log_t *l, part_t *p, int64_t offset)
{
    if (!kc_log_part_config(l, p)->compact)
        return INT64_MAX;
    /* Loaded from what is committed: not while the open transaction writes to it. */
    if (!p->segs_ready && (p->dirty || p->clean_pending || p->trim_pending ||
                           segs_load(l, p, 0) != 0))
        return INT64_MAX;
    size_t i = seg_index(p, offset);
    return i + 1 < p->nsegs ? p->segs[i + 1].base : INT64_MAX;
}

int kc_log_seg_trimmed(kc_log_t *l, part_t *p, int64_t base, size_t size)
{
    if (!p->segs_ready)
        return 0;
    p->segs[seg_index(p, base)].size -= (int64_t)size;
    /* Segments wholly below the log start offset are deleted with their batches. */
    while (p->nsegs > 1 && p->segs[1].base <= p->log_start) {
        int rc = seg_unstore(l, p, p->segs[0].base);
        if (rc)
            return rc;
        seg_remove(p, 0);
    }
    return 0;
}

/* ---- the offset map (SkimpyOffsetMap) ---- */

typedef struct {
    uint64_t h0, h1;
    int64_t offset; /* -1: free */
} map_slot_t;

typedef struct {
    map_slot_t *slots;
    size_t nslots, used, max_used;
} offset_map_t;

static XXH128_hash_t key_digest(const uint8_t *key, size_t len)
{
    return XXH3_128bits(key, len);
}

static map_slot_t *map_find(offset_map_t *m, XXH128_hash_t h)
{
    size_t i = (size_t)h.low64 & (m->nslots - 1);
    while (m->slots[i].offset >= 0 && (m->slots[i].h0 != h.low64 || m->slots[i].h1 != h.high64))
        i = (i + 1) & (m->nslots - 1);
    return &m->slots[i];
}

static void map_grow(offset_map_t *m)
{
    map_slot_t *old = m->slots;
    size_t old_n = m->nslots;
    m->nslots = old_n ? old_n * 2 : 1024;
    m->slots = kc_xmalloc(m->nslots * sizeof(*m->slots));
    for (size_t i = 0; i < m->nslots; i++)
        m->slots[i].offset = -1;
    for (size_t i = 0; i < old_n; i++)
        if (old[i].offset >= 0) {
            XXH128_hash_t h = {old[i].h0, old[i].h1};
            *map_find(m, h) = old[i];
        }
    free(old);
}

/* Maps key to offset (a later offset of a key replaces the earlier). */
static void map_put(offset_map_t *m, const uint8_t *key, size_t len, int64_t offset)
{
    if ((m->used + 1) * 2 > m->nslots)
        map_grow(m);
    XXH128_hash_t h = key_digest(key, len);
    map_slot_t *s = map_find(m, h);
    if (s->offset < 0) {
        s->h0 = h.low64;
        s->h1 = h.high64;
        m->used++;
    }
    s->offset = offset;
}

/* The latest offset mapped for key, or -1. */
static int64_t map_get(offset_map_t *m, const uint8_t *key, size_t len)
{
    if (m->nslots == 0)
        return -1;
    return map_find(m, key_digest(key, len))->offset;
}

/* ---- records ---- */

typedef struct {
    const uint8_t *rest; /* the record body from its offset delta on */
    size_t rest_len;
    int8_t attrs;
    int64_t ts_delta;
    int32_t off_delta;
    const uint8_t *key;
    int32_t key_len; /* -1: null */
    bool has_value;
} rec_t;

/* The next record of r (DefaultRecord.readFrom); 0, or -1 when malformed. */
static int next_record(kc_reader_t *r, rec_t *out)
{
    int32_t len = kc_read_varint(r);
    if (r->err || len < 0 || (size_t)len > kc_reader_left(r))
        return -1;
    kc_reader_t b;
    kc_reader_init(&b, r->p, (size_t)len);
    r->p += len;
    out->attrs = kc_read_int8(&b);
    out->ts_delta = kc_read_varlong(&b);
    out->rest = b.p;
    out->off_delta = kc_read_varint(&b);
    out->key_len = kc_read_varint(&b);
    out->key = out->key_len > 0 ? kc_read_raw(&b, (size_t)out->key_len) : b.p;
    int32_t vlen = kc_read_varint(&b);
    out->has_value = vlen >= 0;
    if (vlen > 0)
        kc_read_raw(&b, (size_t)vlen);
    int32_t nh = kc_read_varint(&b);
    for (int32_t h = 0; h < nh && !b.err; h++) {
        int32_t hk = kc_read_varint(&b);
        if (hk < 0)
            return -1;
        kc_read_raw(&b, (size_t)hk);
        int32_t hv = kc_read_varint(&b);
        if (hv > 0)
            kc_read_raw(&b, (size_t)hv);
    }
    if (b.err || nh < 0 || out->key_len < -1 || vlen < -1 || kc_reader_left(&b) != 0)
        return -1;
    out->rest_len = (size_t)(b.end - out->rest);
    return 0;
}

/* The records of a stored batch, decompressed into plain when compressed.
 * 0, or -1 when kcoord cannot read them (zstd, a broken stream). */
static int batch_records(const uint8_t *v, size_t len, kc_buf_t *plain, kc_reader_t *r)
{
    int codec = rd16(v + OFF_ATTRIBUTES) & ATTR_COMPRESSION;
    if (codec == 0) {
        kc_reader_init(r, v + BATCH_HEADER, len - BATCH_HEADER);
        return 0;
    }
    if (kc_records_decompress(codec, v + BATCH_HEADER, len - BATCH_HEADER, DECOMPRESS_MAX,
                              plain) != 0)
        return -1;
    kc_reader_init(r, plain->data, plain->len);
    return 0;
}

/* ---- the clean in progress ---- */

enum { PHASE_MAP = 1, PHASE_FILTER = 2 };

struct kc_log_cleaner {
    kc_uuid_t topic_id;
    int32_t partition;
    int phase;
    int64_t now_ms;       /* Cleaner.doClean's currentTime: delete horizons are reckoned from it */
    int64_t first_dirty;  /* the map covers [first_dirty, upper) */
    int64_t upper;        /* the first uncleanable offset */
    int64_t pos;          /* where the next slice reads on */
    int64_t latest;       /* map.latestOffset: the last offset mapped, -1 */
    bool full;            /* the map filled up before upper */
    offset_map_t map;
    kc_log_clean_stats_t stats;
    kc_log_aborted_entry_t *aborted; /* the partition's aborted transactions, in marker order */
    size_t naborted;
    /* CleanedTransactionMetadata, over the filter phase's batches in offset
     * order: the aborted transactions by first offset and the next to
     * begin, the producers of aborted transactions begun and not yet ended
     * by their marker (observed: a batch of it was met), and the producers
     * of committed transactions whose batches were met. */
    kc_log_aborted_entry_t *by_first;
    size_t next_first;
    struct open_aborted {
        int64_t pid;
        bool observed;
    } *open;
    size_t nopen, open_cap;
    int64_t *committed;
    size_t ncommitted, committed_cap;
};

static int by_first_cmp(const void *a, const void *b)
{
    int64_t x = ((const kc_log_aborted_entry_t *)a)->first_offset;
    int64_t y = ((const kc_log_aborted_entry_t *)b)->first_offset;
    return x < y ? -1 : x > y;
}

static ssize_t open_find(const struct kc_log_cleaner *c, int64_t pid)
{
    for (size_t i = 0; i < c->nopen; i++)
        if (c->open[i].pid == pid)
            return (ssize_t)i;
    return -1;
}

/* consumeAbortedTxnsUpTo: the aborted transactions begun at or before offset. */
static void txn_begin_upto(struct kc_log_cleaner *c, int64_t offset)
{
    while (c->next_first < c->naborted && c->by_first[c->next_first].first_offset <= offset) {
        int64_t pid = c->by_first[c->next_first++].producer_id;
        if (open_find(c, pid) >= 0)
            continue;
        if (c->nopen == c->open_cap) {
            c->open_cap = c->open_cap ? c->open_cap * 2 : 8;
            c->open = kc_xrealloc(c->open, c->open_cap * sizeof(*c->open));
        }
        c->open[c->nopen++] = (struct open_aborted){pid, false};
    }
}

/* Removes pid from the committed producers met; true when it was there. */
static bool committed_take(struct kc_log_cleaner *c, int64_t pid)
{
    for (size_t i = 0; i < c->ncommitted; i++)
        if (c->committed[i] == pid) {
            c->committed[i] = c->committed[--c->ncommitted];
            return true;
        }
    return false;
}

/* CleanedTransactionMetadata.onBatchRead for a data batch. */
static void txn_on_batch(struct kc_log_cleaner *c, int64_t pid, int64_t last, bool transactional)
{
    txn_begin_upto(c, last);
    if (!transactional)
        return;
    ssize_t i = open_find(c, pid);
    if (i >= 0) {
        c->open[i].observed = true;
        return;
    }
    if (committed_take(c, pid)) {
        c->committed[c->ncommitted++] = pid; /* already there: put back */
        return;
    }
    if (c->ncommitted == c->committed_cap) {
        c->committed_cap = c->committed_cap ? c->committed_cap * 2 : 8;
        c->committed = kc_xrealloc(c->committed, c->committed_cap * sizeof(*c->committed));
    }
    c->committed[c->ncommitted++] = pid;
}

/*
 * CleanedTransactionMetadata.onControlBatchRead: true when the marker of
 * pid's transaction may go, because no batch of its transaction was met
 * (an ABORT whose batches are all gone, a COMMIT whose batches were all
 * compacted away) or it is empty already.
 */
static bool txn_on_marker(struct kc_log_cleaner *c, const uint8_t *v, size_t len, int64_t pid,
                          int64_t last)
{
    txn_begin_upto(c, last);
    if (rd32(v + OFF_RECORD_COUNT) == 0)
        return true;
    kc_buf_t plain;
    kc_buf_init(&plain);
    kc_reader_t r;
    rec_t rec;
    int type = -1;
    if (batch_records(v, len, &plain, &r) == 0 && next_record(&r, &rec) == 0 && rec.key_len >= 4)
        type = (int16_t)rd16(rec.key + 2); /* ControlRecordType: version, type */
    kc_buf_deinit(&plain);
    if (type == 0) { /* ABORT */
        ssize_t i = open_find(c, pid);
        if (i < 0)
            return true;
        bool observed = c->open[i].observed;
        c->open[i] = c->open[--c->nopen];
        return !observed;
    }
    if (type == 1) /* COMMIT */
        return !committed_take(c, pid);
    return false;
}

/*
 * Whether the batch of producer pid at offset belongs to an aborted
 * transaction. Entries are in marker order, so the first candidate is the
 * first entry whose marker lies past offset; once an entry's last stable
 * offset lies past offset, no later entry began at or before it
 * (TxnIndexSearchResult.isComplete).
 */
static bool in_aborted_txn(const struct kc_log_cleaner *c, int64_t pid, int64_t offset)
{
    size_t lo = 0, hi = c->naborted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->aborted[mid].last_offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < c->naborted; i++) {
        const kc_log_aborted_entry_t *e = &c->aborted[i];
        if (e->producer_id == pid && e->first_offset <= offset)
            return true;
        if (e->last_stable_offset > offset)
            break;
    }
    return false;
}

/* Batches whose records the offset map skips: control batches and those
 * of aborted transactions. */
static bool batch_unmapped(const struct kc_log_cleaner *c, const uint8_t *v, int64_t base)
{
    int16_t attrs = (int16_t)rd16(v + OFF_ATTRIBUTES);
    if (attrs & ATTR_CONTROL)
        return true;
    return (attrs & ATTR_TRANSACTIONAL) &&
           in_aborted_txn(c, (int64_t)rd64(v + OFF_PRODUCER_ID), base);
}

void kc_log_clean_abort(kc_log_t *l)
{
    struct kc_log_cleaner *c = l->cleaner;
    if (!c)
        return;
    free(c->map.slots);
    free(c->aborted);
    free(c->by_first);
    free(c->open);
    free(c->committed);
    free(c);
    l->cleaner = NULL;
}

bool kc_log_clean_busy(const kc_log_t *l, kc_uuid_t *topic_id, int32_t *partition)
{
    if (!l->cleaner)
        return false;
    if (topic_id)
        *topic_id = l->cleaner->topic_id;
    if (partition)
        *partition = l->cleaner->partition;
    return true;
}

int kc_log_clean_delete_topic(kc_log_t *l, kc_uuid_t topic_id)
{
    uint8_t k[META_KEY_LEN];
    meta_key(k, 's', 'g', topic_id, 0);
    int rc = kc_store_del_prefix(l->store, l->db_meta, k, 18);
    meta_key(k, 'c', 'p', topic_id, 0);
    if (rc == 0)
        rc = kc_store_del_prefix(l->store, l->db_meta, k, 18);
    if (l->cleaner && memcmp(l->cleaner->topic_id.b, topic_id.b, 16) == 0)
        kc_log_clean_abort(l);
    return rc;
}

static int cp_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                 size_t value_len)
{
    (void)key;
    if (key_len != META_KEY_LEN || value_len != 8)
        return KC_EIO;
    *(int64_t *)ctx = (int64_t)rd64(value);
    return 1;
}

static int checkpoint_get(kc_log_t *l, part_t *p, int64_t *out)
{
    if (!p->checkpoint_ready) {
        uint8_t k[META_KEY_LEN];
        meta_key(k, 'c', 'p', p->topic_id, p->partition);
        int64_t cp = -1;
        int rc = kc_store_scan(l->store, l->db_meta, k, META_KEY_LEN, META_KEY_LEN, false, cp_fn,
                               &cp);
        if (rc < 0)
            return rc;
        p->checkpoint = cp;
        p->checkpoint_ready = true;
    }
    *out = p->checkpoint;
    return 0;
}

static int checkpoint_put(kc_log_t *l, part_t *p, int64_t offset)
{
    uint8_t k[META_KEY_LEN], v[8];
    meta_key(k, 'c', 'p', p->topic_id, p->partition);
    be64(v, (uint64_t)offset);
    int rc = kc_store_put(l->store, l->db_meta, k, META_KEY_LEN, v, 8);
    if (rc == 0) {
        p->checkpoint = offset;
        p->checkpoint_ready = true;
    }
    return rc;
}

/* ---- how dirty a partition is ---- */

/* Sum of the sizes of the segments that hold offsets in [from, to). */
static int64_t segs_bytes(const part_t *p, int64_t from, int64_t to)
{
    int64_t sum = 0;
    for (size_t i = seg_index(p, from); i < p->nsegs && p->segs[i].base < to; i++)
        sum += p->segs[i].size;
    return sum;
}

int kc_log_clean_evaluate(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t now_ms,
                          kc_log_clean_candidate_t *out)
{
    memset(out, 0, sizeof(*out));
    part_t *p = kc_log_part_get(l, topic_id, partition);
    if (!p)
        return KC_EIO;
    const kc_log_topic_config_t *tc = kc_log_part_config(l, p);
    if (!tc->compact || p->hw <= p->log_start)
        return 0;
    if (!p->segs_ready) {
        /* Its batches are read from what is committed: not while writes of
         * the open transaction are in it. */
        if (p->dirty || p->clean_pending || p->trim_pending)
            return 0;
        int rc = segs_load(l, p, now_ms);
        if (rc)
            return rc;
    }
    int64_t cp;
    int rc = checkpoint_get(l, p, &cp);
    if (rc < 0)
        return rc;
    /* LogCleanerManager.cleanableOffsets */
    int64_t first_dirty = cp < p->log_start || cp > p->leo ? p->log_start : cp;
    const kc_log_seg_t *active = &p->segs[p->nsegs - 1];
    int64_t fu = KC_MIN(KC_MIN(p->hw, kc_log_part_lso(p)), active->base);
    if (tc->min_compaction_lag_ms > 0) {
        for (size_t i = seg_index(p, first_dirty); i + 1 < p->nsegs; i++)
            if (p->segs[i].largest_ts > now_ms - tc->min_compaction_lag_ms) {
                fu = KC_MIN(fu, p->segs[i].base);
                break;
            }
    }
    fu = KC_MAX(first_dirty, fu);
    /* calculateCleanableBytes: rounded down to the base of its segment. */
    size_t fi = seg_index(p, fu);
    int64_t fuo = fi + 1 < p->nsegs ? p->segs[fi].base : active->base;
    out->first_dirty_offset = first_dirty;
    out->first_uncleanable_offset = fuo;
    out->cleanable_bytes = segs_bytes(p, KC_MIN(first_dirty, fuo), fuo);
    out->clean_bytes = segs_bytes(p, INT64_MIN, first_dirty);
    int64_t total = out->clean_bytes + out->cleanable_bytes;
    if (total <= 0)
        return 0;
    out->cleanable_ratio = (double)out->cleanable_bytes / (double)total;
    /* maxCompactionDelay: the first batch timestamps of the dirty inactive segments. */
    int64_t earliest = INT64_MAX;
    for (size_t i = seg_index(p, first_dirty); i + 1 < p->nsegs; i++)
        if (p->segs[i].first_ts > 0 && p->segs[i].first_ts < earliest)
            earliest = p->segs[i].first_ts;
    int64_t lag = KC_MAX(tc->max_compaction_lag_ms, 0);
    out->need_compaction_now = earliest != INT64_MAX && earliest < now_ms - lag;
    out->eligible = (out->need_compaction_now && out->cleanable_bytes > 0) ||
                    out->cleanable_ratio > tc->min_cleanable_dirty_ratio;
    return 0;
}

int kc_log_clean_begin(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t now_ms)
{
    kc_log_clean_abort(l);
    kc_log_clean_candidate_t cand;
    int rc = kc_log_clean_evaluate(l, topic_id, partition, now_ms, &cand);
    if (rc)
        return rc;
    struct kc_log_cleaner *c = kc_xcalloc(1, sizeof(*c));
    c->topic_id = topic_id;
    c->partition = partition;
    c->phase = PHASE_MAP;
    c->now_ms = now_ms;
    c->first_dirty = c->pos = cand.first_dirty_offset;
    c->upper = cand.first_uncleanable_offset;
    c->latest = -1;
    c->stats.first_dirty_offset = cand.first_dirty_offset;
    int64_t entries = l->cfg.cleaner_dedupe_buffer_size / MAP_ENTRY_BYTES;
    c->map.max_used = (size_t)KC_MAX((double)entries * MAP_LOAD_FACTOR, 1.0);
    /* The aborted transactions the clean may meet (those begun below upper). */
    kc_buf_t ab;
    kc_buf_init(&ab);
    rc = kc_log_aborted_index(l, topic_id, partition, 0, &ab);
    if (rc) {
        kc_buf_deinit(&ab);
        free(c);
        return rc;
    }
    size_t n = ab.len / sizeof(kc_log_aborted_entry_t);
    const kc_log_aborted_entry_t *e = (const kc_log_aborted_entry_t *)(const void *)ab.data;
    c->aborted = kc_xcalloc(n ? n : 1, sizeof(*c->aborted));
    for (size_t i = 0; i < n; i++)
        if (e[i].first_offset < c->upper)
            c->aborted[c->naborted++] = e[i];
    kc_buf_deinit(&ab);
    c->by_first = kc_xcalloc(c->naborted ? c->naborted : 1, sizeof(*c->by_first));
    memcpy(c->by_first, c->aborted, c->naborted * sizeof(*c->by_first));
    qsort(c->by_first, c->naborted, sizeof(*c->by_first), by_first_cmp);
    l->cleaner = c;
    return 0;
}

/* ---- phase 1: the offset map (Cleaner.buildOffsetMap) ---- */

typedef struct {
    struct kc_log_cleaner *c;
    size_t budget, used;
    bool reached_end;
} map_ctx_t;

static int map_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                  size_t value_len)
{
    map_ctx_t *m = ctx;
    struct kc_log_cleaner *c = m->c;
    if (key_len != KEY_LEN || value_len < BATCH_HEADER)
        return KC_EIO;
    int64_t base = (int64_t)rd64(key + 20);
    if (base >= c->upper) {
        m->reached_end = true;
        return 1;
    }
    if (m->used >= m->budget)
        return 1;
    int64_t last = base + (int32_t)rd32(value + OFF_LAST_OFFSET_DELTA);
    if (last < c->pos) /* the batch the scan starts from may end before */
        return 0;
    m->used += value_len;
    kc_buf_t plain;
    kc_buf_init(&plain);
    kc_reader_t r;
    /* Markers and aborted records decide no key (Cleaner.buildOffsetMapForSegment). */
    if (!batch_unmapped(c, value, base) && batch_records(value, value_len, &plain, &r) == 0) {
        int32_t count = (int32_t)rd32(value + OFF_RECORD_COUNT);
        /* The map must take at least one batch, or a clean would never move on. */
        bool may_fill = c->latest >= c->first_dirty;
        rec_t rec;
        for (int32_t i = 0; i < count && next_record(&r, &rec) == 0; i++) {
            int64_t off = base + rec.off_delta;
            if (rec.key_len < 0 || off < c->first_dirty)
                continue;
            if (may_fill && c->map.used >= c->map.max_used) {
                c->full = true;
                kc_buf_deinit(&plain);
                return 1;
            }
            map_put(&c->map, rec.key, (size_t)rec.key_len, off);
        }
    }
    kc_buf_deinit(&plain);
    c->stats.bytes_read += (int64_t)value_len;
    c->latest = KC_MAX(c->latest, last);
    c->pos = last + 1;
    return 0;
}

/* ---- phase 2: filtering (cleanInto, MemoryRecords.filterTo) ---- */

/* The 61-byte header of a batch of count records in recs_len bytes; the CRC is computed. */
static void write_header(kc_buf_t *out, const uint8_t *orig, int16_t attrs, int64_t base_ts,
                         int64_t max_ts, int32_t count, const uint8_t *recs, size_t recs_len)
{
    uint8_t *h = kc_buf_reserve(out, BATCH_HEADER + recs_len);
    memcpy(h, orig, BATCH_HEADER); /* base offset, leader epoch, magic, producer fields */
    be32(h + OFF_LENGTH, (uint32_t)(BATCH_HEADER - LOG_OVERHEAD + recs_len));
    be16(h + OFF_ATTRIBUTES, (uint16_t)attrs);
    be64(h + OFF_BASE_TIMESTAMP, (uint64_t)base_ts);
    be64(h + OFF_MAX_TIMESTAMP, (uint64_t)max_ts);
    be32(h + OFF_RECORD_COUNT, (uint32_t)count);
    if (recs_len)
        memcpy(h + BATCH_HEADER, recs, recs_len);
    be32(h + OFF_CRC, kc_crc32c(0, h + OFF_ATTRIBUTES, BATCH_HEADER + recs_len - OFF_ATTRIBUTES));
    out->len += BATCH_HEADER + recs_len;
}

enum { ACT_KEEP, ACT_DELETE, ACT_REWRITE };

typedef struct {
    int64_t base;
    int kind;
    size_t at, len;  /* the new batch in the slice's output buffer (ACT_REWRITE) */
    size_t old_len;
} action_t;

typedef struct {
    kc_log_t *l;
    part_t *p;
    const kc_log_topic_config_t *tc;
    struct kc_log_cleaner *c;
    size_t budget, used;
    bool reached_end;
    kc_buf_t out;     /* new batches */
    action_t *acts;
    size_t nacts, acts_cap;
    int64_t *ab_del; /* ABORT markers removed: their index entries go */
    size_t nab_del, ab_del_cap;
} filter_ctx_t;

/* Cleaner.shouldRetainRecord of a record at off of a batch whose delete
 * horizon is horizon (-1: none): past the map, or the latest of its key
 * and not a tombstone past its horizon. */
static bool record_kept(struct kc_log_cleaner *c, const rec_t *rec, int64_t off, int64_t horizon)
{
    if (off > c->latest)
        return true;
    if (rec->key_len < 0)
        return false; /* invalid in a compacted log */
    return off >= map_get(&c->map, rec->key, (size_t)rec->key_len) &&
           (rec->has_value || horizon < 0 || c->now_ms < horizon);
}

/* The verdict on a batch left without records: deleted, or with
 * retain_empty an empty batch (DefaultRecordBatch.writeEmptyHeader)
 * appended to f->out, unless it is one already. */
static int emptied(filter_ctx_t *f, const uint8_t *v, size_t len, int16_t attrs, int64_t max_ts,
                   bool retain_empty)
{
    if (!retain_empty)
        return ACT_DELETE;
    int16_t ea = (int16_t)(attrs & (ATTR_LOG_APPEND_TIME | ATTR_TRANSACTIONAL | ATTR_CONTROL));
    size_t at = f->out.len;
    write_header(&f->out, v, ea, -1, max_ts, 0, NULL, 0);
    if (len == BATCH_HEADER && memcmp(f->out.data + at, v, BATCH_HEADER) == 0) {
        f->out.len = at;
        return ACT_KEEP;
    }
    return ACT_REWRITE;
}

/*
 * The verdict on a control batch (Cleaner's checkBatchRetention for
 * markers): kept while its transaction has batches left; then stamped with
 * a delete horizon of delete.retention.ms, and emptied once the horizon has
 * passed, an ABORT marker taking its index entry with it.
 */
static int filter_marker(filter_ctx_t *f, const uint8_t *v, size_t len, int64_t base,
                         bool retain_empty)
{
    struct kc_log_cleaner *c = f->c;
    int64_t last = base + (int32_t)rd32(v + OFF_LAST_OFFSET_DELTA);
    int16_t attrs = (int16_t)rd16(v + OFF_ATTRIBUTES);
    int64_t base_ts = (int64_t)rd64(v + OFF_BASE_TIMESTAMP);
    int64_t max_ts = (int64_t)rd64(v + OFF_MAX_TIMESTAMP);
    int32_t count = (int32_t)rd32(v + OFF_RECORD_COUNT);
    if (!txn_on_marker(c, v, len, (int64_t)rd64(v + OFF_PRODUCER_ID), last))
        return ACT_KEEP;
    if (count > 0 && !(attrs & ATTR_DELETE_HORIZON)) {
        /* The first clean to find it removable sets its horizon. */
        kc_buf_t plain;
        kc_buf_init(&plain);
        kc_reader_t r;
        rec_t rec;
        if (batch_records(v, len, &plain, &r) != 0 || next_record(&r, &rec) != 0 ||
            (attrs & ATTR_COMPRESSION) != 0) {
            kc_buf_deinit(&plain);
            return ACT_KEEP;
        }
        int64_t dr = f->tc->delete_retention_ms;
        int64_t horizon = c->now_ms > INT64_MAX - dr ? INT64_MAX : c->now_ms + dr;
        int64_t ts = (attrs & ATTR_LOG_APPEND_TIME) ? max_ts : base_ts + rec.ts_delta;
        kc_buf_t body, recs;
        kc_buf_init(&body);
        kc_buf_init(&recs);
        kc_buf_append(&body, &rec.attrs, 1);
        kc_write_varlong(&body, ts - horizon);
        kc_buf_append(&body, rec.rest, rec.rest_len);
        kc_write_varint(&recs, (int32_t)body.len);
        kc_buf_append(&recs, body.data, body.len);
        write_header(&f->out, v, (int16_t)(attrs | ATTR_DELETE_HORIZON), horizon, max_ts, 1,
                     recs.data, recs.len);
        kc_buf_deinit(&body);
        kc_buf_deinit(&recs);
        kc_buf_deinit(&plain);
        return ACT_REWRITE;
    }
    if (count > 0 && c->now_ms < base_ts)
        return ACT_KEEP; /* its horizon (the base timestamp) is still ahead */
    c->stats.records_read += count;
    c->stats.records_removed += count;
    if (f->nab_del == f->ab_del_cap) {
        f->ab_del_cap = f->ab_del_cap ? f->ab_del_cap * 2 : 16;
        f->ab_del = kc_xrealloc(f->ab_del, f->ab_del_cap * sizeof(*f->ab_del));
    }
    f->ab_del[f->nab_del++] = base;
    return emptied(f, v, len, attrs, max_ts, retain_empty);
}

/*
 * The cleaner's verdict on one batch (Cleaner.cleanInto's filter), the new
 * batch appended to f->out when it is rewritten.
 */
static int filter_batch(filter_ctx_t *f, const uint8_t *v, size_t len, int64_t base)
{
    struct kc_log_cleaner *c = f->c;
    int32_t last_delta = (int32_t)rd32(v + OFF_LAST_OFFSET_DELTA);
    int64_t last = base + last_delta;
    int16_t attrs = (int16_t)rd16(v + OFF_ATTRIBUTES);
    int64_t base_ts = (int64_t)rd64(v + OFF_BASE_TIMESTAMP);
    int64_t max_ts = (int64_t)rd64(v + OFF_MAX_TIMESTAMP);
    int64_t pid = (int64_t)rd64(v + OFF_PRODUCER_ID);
    int32_t count = (int32_t)rd32(v + OFF_RECORD_COUNT);
    bool log_append = (attrs & ATTR_LOG_APPEND_TIME) != 0;
    bool has_horizon = (attrs & ATTR_DELETE_HORIZON) != 0;
    int64_t horizon = has_horizon ? base_ts : -1; /* the base timestamp holds it */
    /* checkBatchRetention: the last batch of a producer, and the batch ending
     * at the high watermark, stay even when empty (RETAIN_EMPTY). */
    const producer_t *pr = pid >= 0 ? kc_log_producer_find(f->p, pid) : NULL;
    bool retain_empty = (pr && pr->n > 0 && pr->b[pr->n - 1].last_offset == last) ||
                        last + 1 == f->p->hw;
    if (attrs & ATTR_CONTROL)
        return filter_marker(f, v, len, base, retain_empty);
    txn_on_batch(c, pid, last, (attrs & ATTR_TRANSACTIONAL) != 0);
    /* Cleaner.shouldDiscardBatch: every record of an aborted transaction
     * goes, readable or not. */
    if ((attrs & ATTR_TRANSACTIONAL) && in_aborted_txn(c, pid, base)) {
        c->stats.records_read += count;
        c->stats.records_removed += count;
        return emptied(f, v, len, attrs, max_ts, retain_empty);
    }
    kc_buf_t plain;
    kc_buf_init(&plain);
    kc_reader_t r;
    if (batch_records(v, len, &plain, &r) != 0) {
        kc_buf_deinit(&plain);
        return ACT_KEEP; /* records kcoord cannot read stay as they are */
    }
    /* Which records stay (shouldRetainRecord), their bodies re-encoded
     * against the new base timestamp once it is known. */
    kc_reader_t scan = r;
    rec_t rec;
    int32_t kept = 0, i = 0;
    bool all = true, tombstone = false;
    int64_t first_ts = 0, new_max = -1;
    for (; i < count; i++) {
        if (next_record(&scan, &rec) != 0)
            break;
        c->stats.records_read++;
        if (!record_kept(c, &rec, base + rec.off_delta, horizon)) {
            all = false;
            c->stats.records_removed++;
            continue;
        }
        int64_t ts = log_append ? max_ts : base_ts + rec.ts_delta;
        if (kept == 0)
            first_ts = ts;
        if (ts > new_max)
            new_max = ts;
        if (!rec.has_value)
            tombstone = true;
        kept++;
    }
    if (i < count) { /* malformed: keep it whole */
        kc_buf_deinit(&plain);
        return ACT_KEEP;
    }
    int act;
    if (kept > 0) {
        bool set_horizon = tombstone && !has_horizon;
        if (all && !set_horizon) {
            kc_buf_deinit(&plain);
            return ACT_KEEP;
        }
        /* MemoryRecords.buildRetainedRecordsInto: base and last offsets,
         * producer fields and leader epoch as they were; the base timestamp
         * is the delete horizon, else the first record's timestamp. */
        int64_t new_base = first_ts;
        if (set_horizon) {
            int64_t dr = f->tc->delete_retention_ms;
            new_base = c->now_ms > INT64_MAX - dr ? INT64_MAX : c->now_ms + dr;
            attrs |= ATTR_DELETE_HORIZON;
        } else if (has_horizon) {
            new_base = base_ts;
        }
        kc_buf_t recs;
        kc_buf_init(&recs);
        scan = r;
        for (int32_t j = 0; j < count; j++) {
            next_record(&scan, &rec);
            if (!record_kept(c, &rec, base + rec.off_delta, horizon))
                continue;
            int64_t ts = log_append ? max_ts : base_ts + rec.ts_delta;
            kc_buf_t body;
            kc_buf_init(&body);
            kc_buf_append(&body, &rec.attrs, 1);
            kc_write_varlong(&body, ts - new_base);
            kc_buf_append(&body, rec.rest, rec.rest_len);
            kc_write_varint(&recs, (int32_t)body.len);
            kc_buf_append(&recs, body.data, body.len);
            kc_buf_deinit(&body);
        }
        int codec = attrs & ATTR_COMPRESSION;
        kc_buf_t packed;
        kc_buf_init(&packed);
        const kc_buf_t *payload = &recs;
        if (codec != 0) {
            if (kc_records_compress(codec, recs.data, recs.len, &packed) != 0) {
                kc_buf_deinit(&recs);
                kc_buf_deinit(&packed);
                kc_buf_deinit(&plain);
                return ACT_KEEP;
            }
            payload = &packed;
        }
        write_header(&f->out, v, attrs, new_base, log_append ? max_ts : new_max, kept,
                     payload->data, payload->len);
        kc_buf_deinit(&recs);
        kc_buf_deinit(&packed);
        act = ACT_REWRITE;
    } else {
        act = emptied(f, v, len, attrs, max_ts, retain_empty);
    }
    kc_buf_deinit(&plain);
    return act;
}

static int filter_fn(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                     size_t value_len)
{
    filter_ctx_t *f = ctx;
    struct kc_log_cleaner *c = f->c;
    if (key_len != KEY_LEN || value_len < BATCH_HEADER)
        return KC_EIO;
    int64_t base = (int64_t)rd64(key + 20);
    if (base > c->latest) {
        f->reached_end = true;
        return 1;
    }
    if (f->used >= f->budget)
        return 1;
    int64_t last = base + (int32_t)rd32(value + OFF_LAST_OFFSET_DELTA);
    c->pos = last + 1;
    /* Batches that retention or DeleteRecords removed (maybe in the open
     * transaction) are theirs to delete. */
    if (last < f->p->log_start || base < f->p->deleted_upto)
        return 0;
    f->used += value_len;
    c->stats.bytes_read += (int64_t)value_len;
    size_t at = f->out.len;
    int kind = filter_batch(f, value, value_len, base);
    if (kind == ACT_KEEP) {
        c->stats.bytes_written += (int64_t)value_len;
        return 0;
    }
    if (f->nacts == f->acts_cap) {
        f->acts_cap = f->acts_cap ? f->acts_cap * 2 : 32;
        f->acts = kc_xrealloc(f->acts, f->acts_cap * sizeof(*f->acts));
    }
    f->acts[f->nacts++] = (action_t){base, kind, at, f->out.len - at, value_len};
    return 0;
}

/* Cleaner.groupSegmentsBySize over the cleaned segments: each run of
 * segments below end whose sizes add up to at most segment.bytes becomes one. */
static int merge_segments(kc_log_t *l, part_t *p, const kc_log_topic_config_t *tc, int64_t end)
{
    for (size_t i = 0; i + 1 < p->nsegs && p->segs[i].base < end; i++) {
        while (i + 2 < p->nsegs && p->segs[i + 1].base < end &&
               p->segs[i].size + p->segs[i + 1].size <= tc->segment_bytes) {
            kc_log_seg_t *a = &p->segs[i], *b = &p->segs[i + 1];
            a->size += b->size;
            if (b->largest_ts > a->largest_ts)
                a->largest_ts = b->largest_ts;
            if (a->first_ts == NO_FIRST_TS)
                a->first_ts = b->first_ts;
            int rc = seg_unstore(l, p, b->base);
            if (rc)
                return rc;
            seg_remove(p, i + 1);
        }
    }
    return 0;
}

int kc_log_clean_step(kc_log_t *l, size_t budget_bytes, bool *done, kc_log_clean_stats_t *stats)
{
    *done = false;
    struct kc_log_cleaner *c = l->cleaner;
    if (!c) {
        *done = true;
        return 0;
    }
    part_t *p = kc_log_part_get(l, c->topic_id, c->partition);
    if (!p) {
        kc_log_clean_abort(l);
        return KC_EIO;
    }
    if (!p->segs_ready) { /* dropped (see trim_front): clean again later */
        kc_log_clean_abort(l);
        *done = true;
        return 0;
    }
    const kc_log_topic_config_t *tc = kc_log_part_config(l, p);
    uint8_t k[KEY_LEN];
    int rc;
    if (c->phase == PHASE_MAP) {
        map_ctx_t m = {c, KC_MAX(budget_bytes, 1), 0, false};
        batch_key(k, p->topic_id, p->partition, c->pos);
        rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, true, map_fn, &m);
        if (rc < 0) {
            kc_log_clean_abort(l);
            return rc;
        }
        if (!c->full && m.used < m.budget)
            m.reached_end = true; /* no batch left below upper */
        if (!c->full && !m.reached_end)
            return 0;
        /* Every dirty segment is mapped: the map ends where they end. */
        if (!c->full)
            c->latest = KC_MAX(c->latest, c->upper - 1);
        c->phase = PHASE_FILTER;
        c->pos = 0;
        return 0;
    }
    filter_ctx_t f = {l, p, tc, c, KC_MAX(budget_bytes, 1), 0, false, {NULL, 0, 0}, NULL, 0, 0,
                      NULL, 0, 0};
    batch_key(k, p->topic_id, p->partition, c->pos);
    rc = kc_store_scan(l->store, l->db_batches, k, KEY_LEN, PKEY_LEN, false, filter_fn, &f);
    if (rc >= 0 && f.used < f.budget)
        f.reached_end = true;
    bool deleted = false;
    for (size_t i = 0; rc >= 0 && i < f.nacts; i++) {
        const action_t *a = &f.acts[i];
        batch_key(k, p->topic_id, p->partition, a->base);
        int64_t delta;
        if (a->kind == ACT_DELETE) {
            rc = kc_store_del(l->store, l->db_batches, k, KEY_LEN);
            delta = -(int64_t)a->old_len;
            deleted = true;
            c->stats.batches_deleted++;
        } else {
            rc = kc_store_put(l->store, l->db_batches, k, KEY_LEN, f.out.data + a->at, a->len);
            delta = (int64_t)a->len - (int64_t)a->old_len;
            c->stats.bytes_written += (int64_t)a->len;
            c->stats.batches_rewritten++;
        }
        if (p->size_bytes >= 0)
            p->size_bytes += delta;
        p->segs[seg_index(p, a->base)].size += delta;
    }
    for (size_t i = 0; rc >= 0 && i < f.nab_del; i++)
        rc = kc_log_aborted_delete(l, p, f.ab_del[i]);
    if (f.nacts > 0)
        p->clean_pending = true;
    /* A first batch gone must not move the log start offset at the next load. */
    if (rc >= 0 && deleted)
        rc = kc_log_store_log_start(l, p);
    free(f.acts);
    free(f.ab_del);
    kc_buf_deinit(&f.out);
    if (rc >= 0 && f.reached_end) {
        int64_t end = c->latest + 1;
        rc = merge_segments(l, p, tc, end);
        if (rc >= 0)
            rc = checkpoint_put(l, p, end);
        if (rc >= 0) {
            c->stats.end_offset = end;
            if (stats)
                *stats = c->stats;
            p->clean_pending = true;
            *done = true;
            kc_log_clean_abort(l);
            return 0;
        }
    }
    if (rc < 0) {
        kc_log_clean_abort(l);
        return rc;
    }
    return 0;
}
