/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What log.c and log_clean.c share inside storage/: the batch layout, the
 * state of a partition and of the log, and the calls between the two files.
 * Not for use outside storage/ (log.h is the log's interface).
 */
#ifndef KC_STORAGE_LOG_INT_H
#define KC_STORAGE_LOG_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "epoch_cache.h"
#include "log.h"

#define BATCH_HEADER 61          /* bytes before the first record */
#define LOG_OVERHEAD 12          /* BaseOffset + BatchLength */
#define PRODUCER_BATCHES 5       /* ProducerStateEntry.NUM_BATCHES_TO_RETAIN */
#define PRODUCER_ID_BLOCK 1000   /* ProducerIdManager block size */
#define KEY_LEN 28
#define PKEY_LEN 20

/* Batch header field offsets. */
#define OFF_BASE_OFFSET 0
#define OFF_LENGTH 8
#define OFF_LEADER_EPOCH 12
#define OFF_MAGIC 16
#define OFF_CRC 17
#define OFF_ATTRIBUTES 21
#define OFF_LAST_OFFSET_DELTA 23
#define OFF_BASE_TIMESTAMP 27
#define OFF_MAX_TIMESTAMP 35
#define OFF_PRODUCER_ID 43
#define OFF_PRODUCER_EPOCH 51
#define OFF_BASE_SEQUENCE 53
#define OFF_RECORD_COUNT 57

#define ATTR_COMPRESSION 0x07
#define ATTR_LOG_APPEND_TIME 0x08
#define ATTR_TRANSACTIONAL 0x10
#define ATTR_CONTROL 0x20
#define COMPRESSION_ZSTD 4

typedef struct {
    int32_t first_seq, last_seq;
    int64_t first_offset, last_offset, timestamp;
} batch_meta_t;

/* ProducerStateEntry: the producer's epoch, its last five batches, the
 * coordinator epoch of its last marker and the first offset of its ongoing
 * transaction. */
typedef struct {
    int64_t producer_id;
    int16_t epoch;
    uint8_t n;
    int32_t coordinator_epoch; /* of the last marker; -1 before any */
    int64_t txn_first_offset;  /* currentTxnFirstOffset; -1: no transaction ongoing */
    int64_t last_timestamp;    /* of its last batch or marker; -1 */
    batch_meta_t b[PRODUCER_BATCHES];
} producer_t;

/*
 * A segment of a compacted partition, as Kafka's LogSegment stands for the
 * cleaner: the batches from its base offset to the next segment's. Only the
 * roll points persist ("sg" keys of pmeta); the sizes and timestamps are
 * read from the batches once and then kept up to date.
 */
typedef struct {
    int64_t base;       /* first offset it holds (the first segment: where the log begins) */
    int64_t created_ms; /* broker clock when it was rolled (LogSegment.created) */
    int64_t size;       /* bytes of its stored batches (LogSegment.size) */
    int64_t first_ts;   /* max timestamp of its first batch (rollingBasedTimestamp); NO_FIRST_TS: none yet */
    int64_t largest_ts; /* largest batch max timestamp (maxTimestampSoFar); -1 */
} kc_log_seg_t;

#define NO_FIRST_TS INT64_MIN

struct kc_log_cleaner;

typedef struct part {
    kc_uuid_t topic_id;
    int32_t partition;
    int64_t log_start, hw, leo;
    producer_t *producers;
    size_t nproducers, producers_cap;
    bool dirty; /* pending appends since the last commit */
    int64_t size_bytes; /* sum of stored batch sizes; -1 until first needed */
    int64_t deleted_upto; /* batches below this base offset are deleted (maybe pending) */
    int64_t recovery_point; /* offsets below it were flushed by kc_log_flushed (or at load) */
    kc_log_topic_config_t tc; /* the topic's configs, valid when tc_ready */
    bool tc_ready;
    kc_epoch_cache_t epochs; /* the leader epochs; the last is the current one */
    /* Compaction (log_clean.c): the segments of a compacted partition,
     * oldest first, the last one active; valid when segs_ready. */
    kc_log_seg_t *segs;
    size_t nsegs, segs_cap;
    bool segs_ready;
    int64_t checkpoint; /* the cleaner checkpoint ("cp" of pmeta), -1 none; valid when checkpoint_ready */
    bool checkpoint_ready;
    bool clean_pending; /* the cleaner wrote to it in the open transaction */
    bool trim_pending;  /* retention or DeleteRecords deleted batches in it, likewise */
    /* First offsets of the transactions that a marker of the open
     * transaction ended (Kafka's unreplicatedTxns): they bound the last
     * stable offset until the marker is committed. */
    int64_t *ended;
    size_t nended, ended_cap;
    size_t ongoing; /* producers whose txn_first_offset >= 0 */
} part_t;

struct kc_log {
    kc_store_t *store;
    kc_log_config_t cfg;
    kc_store_dbi_t db_batches, db_producers, db_meta;
    part_t **tab; /* open addressing; cap is a power of two */
    size_t cap, count;
    int64_t next_producer_id, producer_id_block_end;
    kc_log_topic_config_fn topic_config;
    void *topic_config_ctx;
    struct kc_log_cleaner *cleaner; /* the clean in progress (log_clean.c), or NULL */
};

#define ATTR_DELETE_HORIZON 0x40 /* DefaultRecordBatch.DELETE_HORIZON_FLAG_MASK */

/* ---- big-endian helpers ---- */

static inline void be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static inline void be32(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static inline void be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static inline void batch_key(uint8_t *k, kc_uuid_t tid, int32_t partition, int64_t offset)
{
    memcpy(k, tid.b, 16);
    be32(k + 16, (uint32_t)partition);
    be64(k + 20, (uint64_t)offset);
}

/* ---- log.c, for log_clean.c ---- */

/* The state of a partition, loaded on first use; NULL (logged) on storage failure. */
part_t *kc_log_part_get(kc_log_t *l, kc_uuid_t tid, int32_t partition);
/* The configs of p's topic. */
const kc_log_topic_config_t *kc_log_part_config(kc_log_t *l, part_t *p);
/* Writes p's log start offset ("ls" of pmeta) and its leader epoch cache cut
 * to it in the open transaction. */
int kc_log_store_log_start(kc_log_t *l, part_t *p);
/* The producer id's state in p, or NULL. */
producer_t *kc_log_producer_find(part_t *p, int64_t pid);
/* Deletes the aborted transaction entry of p's ABORT marker at
 * marker_offset (absent is fine) in the open transaction. 0 or the store's error. */
int kc_log_aborted_delete(kc_log_t *l, const part_t *p, int64_t marker_offset);
/* The last stable offset of p (see kc_log_last_stable_offset). */
int64_t kc_log_part_lso(const part_t *p);

/* ---- log_clean.c, for log.c ---- */

/*
 * UnifiedLog.maybeRoll and LogSegment.append for a batch of size bytes and
 * maximum timestamp max_ts just appended at base to p, a partition of a
 * compacted topic: rolls a new active segment first when segment.bytes or
 * segment.ms says so. 0 or the store's error.
 */
int kc_log_seg_appended(kc_log_t *l, part_t *p, const kc_log_topic_config_t *tc, int64_t base,
                        size_t size, int64_t max_ts, int64_t now_ms);
/* A batch at base of p was deleted (size bytes) by retention or DeleteRecords;
 * segments left below the log start offset go. 0 or the store's error. */
int kc_log_seg_trimmed(kc_log_t *l, part_t *p, int64_t base, size_t size);
/* Where the segment holding offset ends (the next segment's base), for a
 * partition of a compacted topic; INT64_MAX otherwise or when its segments
 * cannot be known now. */
int64_t kc_log_seg_end(kc_log_t *l, part_t *p, int64_t offset);
/* Frees the compaction state of p. */
void kc_log_seg_free(part_t *p);
/* Deletes the segments and cleaner checkpoints of a topic in the open
 * transaction and abandons a clean of it. 0 or the store's error. */
int kc_log_clean_delete_topic(kc_log_t *l, kc_uuid_t topic_id);
/* Abandons the clean in progress (after a failed commit or when freeing the log). */
void kc_log_clean_abort(kc_log_t *l);

#endif
