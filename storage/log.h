/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partition log: record batches (magic 2) of every topic partition,
 * stored in LMDB as they were produced except for the BaseOffset and
 * PartitionLeaderEpoch the broker assigns, plus the idempotent-producer
 * state of each partition (Kafka's ProducerStateManager), its leader epoch
 * cache (Kafka's LeaderEpochFileCache) and the producer id counter.
 *
 * Appends join the store's open write transaction (the one that also holds
 * the coordinator records of the loop iteration). Each partition has a log
 * start offset, a log end offset (next offset to assign, pending appends
 * included) and a high watermark: the log end offset as of the last
 * commit. Reads (Fetch, ListOffsets) see only offsets below the high
 * watermark, so a consumer never reads a record that a process crash could
 * undo (an OS crash can undo what was not flushed, as in Kafka);
 * kc_log_committed advances the high watermark after kc_store_commit.
 *
 * Partitions are named by topic id (a deleted and recreated topic starts
 * empty) and partition index. Their state is loaded from the store on
 * first use.
 *
 * Transactions (KIP-98), as UnifiedLog, ProducerStateManager and the
 * transaction index keep them: a transactional batch (attribute bit 4) of a
 * producer begins that producer's ongoing transaction in the partition at
 * its base offset unless one is ongoing; a control batch written by
 * kc_log_write_marker (COMMIT or ABORT) ends it. The last stable offset
 * (LSO) is the smallest first offset of an ongoing transaction, or of one
 * whose marker is not committed yet, else the high watermark; it never
 * passes the high watermark nor falls below the log start offset. An ABORT
 * marker of an ongoing transaction adds an entry to the partition's aborted
 * transaction index (Kafka's AbortedTxn: producer id, first offset, last
 * offset = the marker's, the LSO then). READ_COMMITTED reads stop at the
 * LSO and list the aborted transactions of what they return, from which
 * consumers drop the aborted records. Whether a partition was added to the
 * producer's transaction is the caller's check (the transaction
 * coordinator's), not the log's.
 */
#ifndef KC_STORAGE_LOG_H
#define KC_STORAGE_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "epoch_cache.h"
#include "kc_common.h"
#include "store.h"
#include "wire.h"

typedef struct kc_log kc_log_t;

typedef struct {
    /* message.max.bytes = 1048588: largest record batch accepted (bytes). */
    int32_t max_message_bytes;
    /* log.message.timestamp.before.max.ms = INT64_MAX and
     * log.message.timestamp.after.max.ms = 3600000: how far a CreateTime
     * record timestamp may lie behind / ahead of the broker clock (ms). */
    int64_t message_timestamp_before_max_ms;
    int64_t message_timestamp_after_max_ms;
    /* The log cleaner (CleanerConfig): log.cleaner.dedupe.buffer.size =
     * 134217728 bounds the keys one clean maps (24 bytes each, at most 90%
     * full, as Kafka's SkimpyOffsetMap with log.cleaner.io.buffer.load.factor
     * 0.9). */
    int64_t cleaner_dedupe_buffer_size;
} kc_log_config_t;

/* Kafka's defaults for kc_log_config_t. */
void kc_log_config_defaults(kc_log_config_t *cfg);

/*
 * Opens the log's databases in store (borrowed; must outlive the log) and
 * loads the producer id counter. Call before any write transaction is open.
 * Returns NULL on storage failure (logged).
 */
kc_log_t *kc_log_new(kc_store_t *store, const kc_log_config_t *cfg);
void kc_log_free(kc_log_t *l);

/* Per-append outcome, as Kafka's produce response reports it per partition. */
typedef struct {
    int16_t error_code;        /* Kafka error code; 0 = appended (or a known duplicate) */
    const char *error_message; /* static text, or NULL */
    int64_t base_offset;       /* offset of the batch's first record; -1 on error */
    int64_t log_append_time;   /* -1: the topic keeps CreateTime */
    int64_t log_start_offset;  /* -1 on error */
    int32_t record_error_index; /* first record rejected (INVALID_TIMESTAMP), or -1 */
    /* With record errors of a compacted topic (LogValidator.validateKey): one
     * kc_log_record_error_t per record rejected, in index order, timestamp
     * errors included; the caller frees it (kc_buf_deinit) whatever the result. */
    kc_buf_t record_errors;
} kc_log_append_result_t;

/* What a kc_log_append_result_t.record_errors entry says of a record. */
typedef struct {
    int32_t batch_index;
    int32_t why; /* KC_LOG_RECORD_NO_KEY or KC_LOG_RECORD_BAD_TIMESTAMP */
} kc_log_record_error_t;

enum {
    KC_LOG_RECORD_NO_KEY = 1,        /* "Compacted topic cannot accept message without key ..." */
    KC_LOG_RECORD_BAD_TIMESTAMP = 2, /* outside message.timestamp.before/after.max.ms */
};

/*
 * Validates and appends the records of one produce partition (exactly one
 * magic 2 batch, as ProduceRequest.validateRecords demands from v3) at the
 * log end offset, as UnifiedLog.appendAsLeader with LogValidator and
 * ProducerStateManager do: INVALID_RECORD (no batch, a second batch, other
 * magic, base offset not 0, inconsistent counts or offsets, control batch,
 * negative sequence, malformed uncompressed records), UNSUPPORTED_COMPRESSION_TYPE
 * (zstd below produce v7), MESSAGE_TOO_LARGE (batch above max_message_bytes),
 * CORRUPT_MESSAGE (bad size, magic or CRC-32C), INVALID_TIMESTAMP,
 * INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_TXN_STATE (a
 * non-transactional batch of a producer whose transaction is ongoing, as
 * ProducerAppendInfo.appendDataBatch), and on a topic
 * whose cleanup.policy has compact INVALID_RECORD for records without a key
 * (each named in out->record_errors; compressed batches are opened for it,
 * zstd ones, which kcoord cannot read, are not). A retried batch that
 * matches one of the producer's last five batches is not appended again: the
 * result names its original offset (Kafka answers NONE, not
 * DUPLICATE_SEQUENCE_NUMBER). A transactional batch with a producer id
 * begins the producer's transaction in the partition when none is ongoing
 * (its base offset becomes the transaction's first offset, kept with the
 * producer state). produce_version selects the version rules;
 * now_ms is the broker clock. Returns 0 (see out->error_code), or the
 * store's KC_ENOSPC/KC_EIO (out holds KAFKA_STORAGE_ERROR).
 */
int kc_log_append(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, const uint8_t *records,
                  size_t len, int16_t produce_version, int64_t now_ms,
                  kc_log_append_result_t *out);

/* Outcome of kc_log_write_marker. */
typedef struct {
    int16_t error_code; /* Kafka error code; 0 = written */
    int64_t offset;     /* the marker's offset; -1 on error */
} kc_log_marker_result_t;

/*
 * Writes a transaction marker of producer_id into a partition at its log
 * end offset, as the broker does for WriteTxnMarkers
 * (UnifiedLog.appendAsLeader with AppendOrigin.COORDINATOR): a control batch
 * (magic 2, attributes transactional|control, base sequence -1, timestamps
 * now_ms, the current leader epoch) of one record whose key is int16
 * version 0 + int16 type (0 ABORT, 1 COMMIT) and whose value is int16
 * version 0 + int32 coordinator_epoch (EndTransactionMarker).
 * ProducerAppendInfo.appendEndTxnMarker's checks come first, nothing being
 * written when they fail: INVALID_PRODUCER_EPOCH when producer_epoch is
 * older than the producer's (with transaction_version >= 2 also an equal
 * one, unless no transaction is ongoing: a retried marker), and
 * TRANSACTION_COORDINATOR_FENCED when coordinator_epoch is older than the
 * last marker's. Then the producer takes producer_epoch (a newer epoch
 * forgets its batches, as a new epoch does), its ongoing transaction ends,
 * and an ABORT of an ongoing transaction adds its entry to the aborted
 * transaction index. A marker for a producer without an ongoing
 * transaction is written all the same, with no index entry. Writes join the
 * open transaction. 0 (see out->error_code), or the store's KC_ENOSPC/KC_EIO
 * (out holds KAFKA_STORAGE_ERROR).
 */
int kc_log_write_marker(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t producer_id,
                        int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                        int16_t transaction_version, int64_t now_ms, kc_log_marker_result_t *out);

/* Marks every pending append committed (call after a successful kc_store_commit).
 * Returns true when some high watermark or last stable offset advanced
 * (parked fetches may complete). */
bool kc_log_committed(kc_log_t *l);
/*
 * A topic's configs that the log acts on (LogConfig): filled by the
 * kc_log_topic_config_fn given to kc_log_set_topic_config, over defaults
 * from kc_log_config_t (and INT64_MAX flush values, CreateTime).
 */
typedef struct {
    int32_t max_message_bytes;               /* max.message.bytes */
    int64_t message_timestamp_before_max_ms; /* message.timestamp.before.max.ms */
    int64_t message_timestamp_after_max_ms;  /* message.timestamp.after.max.ms */
    bool log_append_time;                    /* message.timestamp.type=LogAppendTime */
    int64_t flush_messages;                  /* flush.messages; INT64_MAX = never */
    int64_t flush_ms;                        /* flush.ms; INT64_MAX = never */
    /* Compaction (LogConfig; defaults from log.cleaner.* and log.segment.bytes, log.roll.*). */
    bool compact;                     /* cleanup.policy has compact */
    int64_t segment_bytes;            /* segment.bytes = 1073741824 */
    int64_t segment_ms;               /* segment.ms = 604800000 */
    int64_t delete_retention_ms;      /* delete.retention.ms = 86400000 */
    int64_t min_compaction_lag_ms;    /* min.compaction.lag.ms = 0 */
    int64_t max_compaction_lag_ms;    /* max.compaction.lag.ms = INT64_MAX */
    double min_cleanable_dirty_ratio; /* min.cleanable.dirty.ratio = 0.5 */
} kc_log_topic_config_t;

/*
 * Tells the configs of a topic id (cfg arrives holding the defaults). Asked
 * once per partition when it is first used, and again after
 * kc_log_topic_config_changed (a recreated topic has a new id). Without
 * one, every topic has the defaults.
 */
typedef void (*kc_log_topic_config_fn)(void *ctx, kc_uuid_t topic_id, kc_log_topic_config_t *cfg);
void kc_log_set_topic_config(kc_log_t *l, kc_log_topic_config_fn fn, void *ctx);
/* The configs of topic_id changed (IncrementalAlterConfigs): its partitions
 * ask for them again at their next use, as Kafka's LogManager.updateTopicConfig
 * gives the topic's logs their new LogConfig at once. */
void kc_log_topic_config_changed(kc_log_t *l, kc_uuid_t topic_id);
/*
 * The flush policy (Kafka's flush.messages and flush.ms of a topic,
 * defaulting to log.flush.interval.messages and log.flush.interval.ms):
 * true when some partition has committed records not yet flushed and either
 * at least its flush_messages of them (UnifiedLog.append's check) or, with
 * since_flush_ms >= 0 (the time since the last kc_store_sync), since_flush_ms
 * >= its flush_ms (LogManager.flushDirtyLogs). The caller then calls
 * kc_store_sync and kc_log_flushed.
 */
bool kc_log_flush_due(kc_log_t *l, int64_t since_flush_ms);
/* Marks every committed record flushed (after a successful kc_store_sync). */
void kc_log_flushed(kc_log_t *l);
/* Forgets the in-memory state after a failed commit; it reloads from the store. */
void kc_log_reset(kc_log_t *l);

typedef struct {
    int64_t log_start_offset;
    int64_t high_watermark;
    int64_t last_stable_offset; /* log_start_offset <= it <= high_watermark */
    int64_t log_end_offset;
} kc_log_offsets_t;

/* Offsets of a partition (an unknown partition is empty: all 0). 0 or KC_EIO. */
int kc_log_offsets(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, kc_log_offsets_t *out);

/*
 * The last stable offset of a partition (UnifiedLog.lastStableOffset): the
 * smallest first offset of a transaction that is ongoing or whose marker is
 * not yet committed, bounded by the high watermark, at least the log start
 * offset. What READ_COMMITTED consumers may read below, and ListOffsets'
 * latest offset for them. 0 or KC_EIO.
 */
int kc_log_last_stable_offset(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t *out);

/* A producer's state in a partition, as DescribeProducers reports it
 * (ProducerStateEntry). */
typedef struct {
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t last_sequence;            /* -1: none */
    int64_t last_timestamp;           /* of its last batch or marker; -1 */
    int32_t coordinator_epoch;        /* of its last marker; -1 */
    int64_t current_txn_start_offset; /* first offset of its ongoing transaction; -1 */
} kc_log_producer_state_t;

/* Appends to out a kc_log_producer_state_t for each producer the partition
 * keeps state of (UnifiedLog.activeProducers; kcoord expires none), pending
 * appends included. 0 or KC_EIO. */
int kc_log_producers(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, kc_buf_t *out);

/* An aborted transaction as a Fetch response lists it (AbortedTransaction). */
typedef struct {
    int64_t producer_id;
    int64_t first_offset;
} kc_log_aborted_txn_t;

/* Isolation levels of reads (IsolationLevel). */
enum {
    KC_LOG_READ_UNCOMMITTED = 0, /* up to the high watermark */
    KC_LOG_READ_COMMITTED = 1,   /* up to the last stable offset */
};

/*
 * Appends to out the committed batches of a partition from the one holding
 * offset, as Kafka's LogSegment.read returns them: whole batches while they
 * fit in max_bytes, then the leading bytes of the next batch up to exactly
 * max_bytes (clients drop a partial batch), and on a compacted topic no
 * further than the segment of the first batch; with min_one, a first batch
 * larger than max_bytes is returned whole (KIP-74). *error_code: 0, or
 * OFFSET_OUT_OF_RANGE when offset is below the log start offset or above
 * the log end offset. 0 or KC_EIO.
 */
int kc_log_read(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t offset,
                int32_t max_bytes, bool min_one, kc_buf_t *out, int16_t *error_code,
                kc_log_offsets_t *offsets);

/*
 * kc_log_read at an isolation level (UnifiedLog.read with FetchIsolation):
 * KC_LOG_READ_UNCOMMITTED is kc_log_read; KC_LOG_READ_COMMITTED returns
 * batches only below the last stable offset and, when aborted is not NULL,
 * appends to it (kc_log_aborted_txn_t, in marker order) the aborted
 * transactions that overlap what was read (UnifiedLog.collectAbortedTxns:
 * marker offset >= offset, first offset < the first offset not returned),
 * none when nothing is read. Errors as kc_log_read.
 */
int kc_log_read_isolated(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t offset,
                         int32_t max_bytes, bool min_one, int isolation, kc_buf_t *out,
                         kc_buf_t *aborted, int16_t *error_code, kc_log_offsets_t *offsets);

/* An entry of the aborted transaction index (Kafka's AbortedTxn). */
typedef struct {
    int64_t producer_id;
    int64_t first_offset;
    int64_t last_offset;        /* the ABORT marker's offset */
    int64_t last_stable_offset; /* the LSO when the marker was written */
} kc_log_aborted_entry_t;

/*
 * The committed aborted transaction index of a partition, for the cleaner,
 * inspection and tests: appends to out every kc_log_aborted_entry_t whose
 * last offset is at least from, in marker order. 0 or KC_EIO.
 */
int kc_log_aborted_index(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t from,
                         kc_buf_t *out);

/*
 * ListOffsets for one partition: timestamp -2 (earliest) / -4 (earliest
 * local) give the log start offset, -1 the high watermark, -3 the record
 * with the largest timestamp, >= 0 the first record whose timestamp is at
 * least timestamp (the batch's first offset when the batch is compressed).
 * Nothing found: *offset = *found_timestamp = -1. Special timestamps
 * answer *found_timestamp = -1. 0, KC_EINVAL (other negative timestamp), KC_EIO.
 * READ_COMMITTED callers take kc_log_offsets_t.last_stable_offset for -1
 * and treat a found offset at or above it as nothing found
 * (Partition.fetchOffsetForTimestamp's last fetchable offset).
 */
int kc_log_list_offset(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t timestamp,
                       int64_t *offset, int64_t *found_timestamp);
/* kc_log_list_offset, with *leader_epoch the PartitionLeaderEpoch of the
 * found record's batch (-1 when nothing was found or for a special
 * timestamp other than -3), as Kafka's searches by timestamp answer it. */
int kc_log_find_offset(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t timestamp,
                       int64_t *offset, int64_t *found_timestamp, int32_t *leader_epoch);

/*
 * The leader epoch cache of a partition (borrowed: valid until the next
 * call on the log), its last entry the current leader epoch that appends
 * stamp into their batches' PartitionLeaderEpoch; with offsets non-NULL,
 * also the partition's offsets. A partition that never changed epoch is at
 * epoch 0 from its log start. The cache follows the log start offset that
 * DeleteRecords and retention raise. 0 or KC_EIO.
 */
int kc_log_epoch_cache(kc_log_t *l, kc_uuid_t topic_id, int32_t partition,
                       const kc_epoch_cache_t **out, kc_log_offsets_t *offsets);

/*
 * Partition.makeLeader on the log: leader_epoch becomes the current epoch,
 * starting at the log end offset (kc_epoch_cache_assign; nothing changes
 * when it is the current epoch already). The changed cache is written in
 * the open transaction. 0 or the store's error (the cache in memory is then
 * ahead of the store: kc_log_reset after the failed commit).
 */
int kc_log_make_leader(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int32_t leader_epoch);

/* Deletes every batch, producer state and aborted transaction entry of a
 * topic in the open transaction. 0 or store error. */
int kc_log_delete_topic(kc_log_t *l, kc_uuid_t topic_id);

/*
 * A new producer id for InitProducerId without a transactional id (epoch 0
 * goes with it). Ids come from blocks of 1000 whose end is persisted, as
 * Kafka's ProducerIdManager hands them out, so a restart never reuses one.
 * 0 or the store's error.
 */
int kc_log_next_producer_id(kc_log_t *l, int64_t *out);

/*
 * DeleteRecords for one partition (ReplicaManager.deleteRecordsOnLocalLog,
 * UnifiedLog.maybeIncrementLogStartOffset): offset -1 means the high
 * watermark; an offset below 0 or above the high watermark answers
 * OFFSET_OUT_OF_RANGE in *error_code. A larger offset becomes the log start
 * offset (written in the open transaction; it may fall inside a batch, as in
 * Kafka) and at most KC_LOG_TRIM_BATCHES whole batches below it are deleted
 * now, the rest by later kc_log_apply_retention calls. Aborted transaction
 * entries whose marker lies below the new log start offset go with it (as
 * Kafka deletes a segment's transaction index). *low_watermark: the
 * log start offset after the call, -1 on error. 0 or the store's error.
 */
#define KC_LOG_TRIM_BATCHES 1024
int kc_log_delete_records(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t offset,
                          int64_t *low_watermark, int16_t *error_code);

/*
 * One retention pass over a partition, as UnifiedLog.deleteOldSegments with
 * whole batches standing in for segments: deletes from the start of the log
 * the committed batches that lie below the log start offset, whose largest
 * timestamp is more than retention_ms before now_ms (retention_ms < 0: no
 * time limit), or whose removal keeps the log at least retention_bytes large
 * (retention_bytes < 0: no size limit), stopping at the first batch that
 * none of these hold for, then raises the log start offset to the first
 * batch kept (the high watermark when none is left), dropping the aborted
 * transaction entries whose marker lies below it. At most max_batches are
 * deleted; *more tells that deletable batches remain. The first call with a
 * size limit sums the partition's batch sizes once. Writes join the open
 * transaction. 0 or the store's error.
 */
int kc_log_apply_retention(kc_log_t *l, kc_uuid_t topic_id, int32_t partition,
                           int64_t retention_ms, int64_t retention_bytes, int64_t now_ms,
                           size_t max_batches, size_t *deleted, bool *more);

/*
 * ---- Compaction (cleanup.policy=compact), as Kafka's LogCleaner ----
 *
 * A compacted partition is cut into segments as Kafka's log is: a batch
 * rolls a new active segment when the active one would pass segment.bytes
 * or its first batch's timestamp lies more than segment.ms before the new
 * batch's (UnifiedLog.maybeRoll). The cleaner never touches the active
 * segment, what lies at or above the high watermark, or segments whose
 * largest timestamp is within min.compaction.lag.ms of now.
 *
 * A clean (Cleaner.doClean) maps the latest offset of every key in the dirty
 * part [checkpoint, first uncleanable offset), then rewrites every batch
 * from the start of the log up to the end of what it mapped: a record stays
 * when no later record of its key was mapped, a tombstone (null value) only
 * until delete.retention.ms after the clean that first kept it (the batch's
 * delete horizon), a record without a key not at all. Offsets never change:
 * a rewritten batch keeps its base and last offsets, producer id, epoch and
 * base sequence; a batch left without records is deleted, except the last
 * batch of a producer and the batch ending at the high watermark, which stay
 * as empty batches. The log start offset, log end offset and high watermark
 * do not move. Cleaned segments are merged up to segment.bytes. Then the
 * checkpoint moves to the end of what was mapped.
 *
 * Transactions: nothing at or above the last stable offset is cleaned
 * (LogCleanerManager.cleanableOffsets), so every transaction a clean meets
 * has ended. Records of aborted transactions (by the aborted transaction
 * index) and of control batches are not mapped, so they never remove an
 * older record of their key (Cleaner.buildOffsetMap); committed
 * transactional records are cleaned as any others, and aborted ones are
 * removed (Cleaner.shouldDiscardBatch). A marker whose transaction has no
 * batch left gets a delete horizon (delete.retention.ms) from the clean
 * that finds it so, and goes with the first clean past it, an ABORT
 * marker's aborted transaction entry with it.
 *
 * A clean runs in slices, each of which reads at most a budget of batch
 * bytes and writes in the open transaction, so each commit holds either
 * none or all of a slice: between slices the log is partly cleaned, and
 * every key keeps its latest record.
 */

/* LogToClean: how dirty a compacted partition is. */
typedef struct {
    int64_t first_dirty_offset;      /* the cleaner checkpoint, at least the log start offset */
    int64_t first_uncleanable_offset; /* base of the first segment that cannot be cleaned */
    int64_t clean_bytes, cleanable_bytes;
    double cleanable_ratio;          /* cleanable / (clean + cleanable) */
    bool need_compaction_now;        /* a dirty segment is older than max.compaction.lag.ms */
    bool eligible; /* (need now and cleanable bytes) or ratio > min.cleanable.dirty.ratio */
} kc_log_clean_candidate_t;

/*
 * LogCleanerManager.grabFilthiestCompactedLog's look at one partition of a
 * compacted topic at now_ms. An empty or uncompacted partition is not
 * eligible. 0 or KC_EIO.
 */
int kc_log_clean_evaluate(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t now_ms,
                          kc_log_clean_candidate_t *out);

/* Starts cleaning a partition (evaluated eligible) as of now_ms; a clean in
 * progress is abandoned. 0 or KC_EIO. */
int kc_log_clean_begin(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t now_ms);

/* True while a clean is in progress; *topic_id and *partition (may be NULL) name it. */
bool kc_log_clean_busy(const kc_log_t *l, kc_uuid_t *topic_id, int32_t *partition);

/* What a finished clean did (CleanerStats). */
typedef struct {
    int64_t first_dirty_offset, end_offset; /* the checkpoint before and after */
    int64_t bytes_read, bytes_written;      /* batches rewritten or kept (written) */
    int64_t records_read, records_removed;
    int64_t batches_deleted, batches_rewritten;
} kc_log_clean_stats_t;

/*
 * One slice of the clean in progress: reads at most budget_bytes of batches
 * (at least one) and writes in the open transaction. *done tells that the
 * clean finished with this slice (its checkpoint is written, *stats filled,
 * may be NULL). A partition that cannot be read, or a failed write, ends the
 * clean (returned error). 0 or the store's error.
 */
int kc_log_clean_step(kc_log_t *l, size_t budget_bytes, bool *done, kc_log_clean_stats_t *stats);

/* Kafka error codes the log returns. */
enum {
    KC_LOG_ERR_OFFSET_OUT_OF_RANGE = 1,
    KC_LOG_ERR_CORRUPT_MESSAGE = 2,
    KC_LOG_ERR_MESSAGE_TOO_LARGE = 10,
    KC_LOG_ERR_INVALID_TIMESTAMP = 32,
    KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER = 45,
    KC_LOG_ERR_INVALID_PRODUCER_EPOCH = 47,
    KC_LOG_ERR_INVALID_TXN_STATE = 48,
    KC_LOG_ERR_TRANSACTION_COORDINATOR_FENCED = 52,
    KC_LOG_ERR_KAFKA_STORAGE_ERROR = 56,
    KC_LOG_ERR_UNSUPPORTED_COMPRESSION_TYPE = 76,
    KC_LOG_ERR_INVALID_RECORD = 87,
};

#endif
