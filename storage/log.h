/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partition log: record batches (magic 2) of every topic partition,
 * stored in LMDB as they were produced except for the BaseOffset and
 * PartitionLeaderEpoch the broker assigns, plus the idempotent-producer
 * state of each partition (Kafka's ProducerStateManager) and the producer
 * id counter.
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
 */
#ifndef KC_STORAGE_LOG_H
#define KC_STORAGE_LOG_H

#include <stdbool.h>
#include <stdint.h>

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
} kc_log_append_result_t;

/*
 * Validates and appends the records of one produce partition (exactly one
 * magic 2 batch, as ProduceRequest.validateRecords demands from v3) at the
 * log end offset, as UnifiedLog.appendAsLeader with LogValidator and
 * ProducerStateManager do: INVALID_RECORD (no batch, a second batch, other
 * magic, base offset not 0, inconsistent counts or offsets, control batch,
 * negative sequence, malformed uncompressed records), UNSUPPORTED_COMPRESSION_TYPE
 * (zstd below produce v7), MESSAGE_TOO_LARGE (batch above max_message_bytes),
 * CORRUPT_MESSAGE (bad size, magic or CRC-32C), INVALID_TIMESTAMP,
 * INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER. A retried batch that
 * matches one of the producer's last five batches is not appended again: the
 * result names its original offset (Kafka answers NONE, not
 * DUPLICATE_SEQUENCE_NUMBER). produce_version selects the version rules;
 * now_ms is the broker clock. Returns 0 (see out->error_code), or the
 * store's KC_ENOSPC/KC_EIO (out holds KAFKA_STORAGE_ERROR).
 */
int kc_log_append(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, const uint8_t *records,
                  size_t len, int16_t produce_version, int64_t now_ms,
                  kc_log_append_result_t *out);

/* Marks every pending append committed (call after a successful kc_store_commit).
 * Returns true when some high watermark advanced (parked fetches may complete). */
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
    int64_t high_watermark; /* = last stable offset: kcoord has no transactions */
    int64_t log_end_offset;
} kc_log_offsets_t;

/* Offsets of a partition (an unknown partition is empty: all 0). 0 or KC_EIO. */
int kc_log_offsets(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, kc_log_offsets_t *out);

/*
 * Appends to out the committed batches of a partition from the one holding
 * offset, as Kafka's LogSegment.read returns them: whole batches while they
 * fit in max_bytes, then the leading bytes of the next batch up to exactly
 * max_bytes (clients drop a partial batch); with min_one, a first batch
 * larger than max_bytes is returned whole (KIP-74). *error_code: 0, or
 * OFFSET_OUT_OF_RANGE when offset is below the log start offset or above
 * the log end offset. 0 or KC_EIO.
 */
int kc_log_read(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t offset,
                int32_t max_bytes, bool min_one, kc_buf_t *out, int16_t *error_code,
                kc_log_offsets_t *offsets);

/*
 * ListOffsets for one partition: timestamp -2 (earliest) / -4 (earliest
 * local) give the log start offset, -1 the high watermark, -3 the record
 * with the largest timestamp, >= 0 the first record whose timestamp is at
 * least timestamp (the batch's first offset when the batch is compressed).
 * Nothing found: *offset = *found_timestamp = -1. Special timestamps
 * answer *found_timestamp = -1. 0, KC_EINVAL (other negative timestamp), KC_EIO.
 */
int kc_log_list_offset(kc_log_t *l, kc_uuid_t topic_id, int32_t partition, int64_t timestamp,
                       int64_t *offset, int64_t *found_timestamp);

/* Deletes every batch and producer state of a topic in the open transaction. 0 or store error. */
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
 * now, the rest by later kc_log_apply_retention calls. *low_watermark: the
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
 * batch kept (the high watermark when none is left). At most max_batches are
 * deleted; *more tells that deletable batches remain. The first call with a
 * size limit sums the partition's batch sizes once. Writes join the open
 * transaction. 0 or the store's error.
 */
int kc_log_apply_retention(kc_log_t *l, kc_uuid_t topic_id, int32_t partition,
                           int64_t retention_ms, int64_t retention_bytes, int64_t now_ms,
                           size_t max_batches, size_t *deleted, bool *more);

/* Kafka error codes the log returns. */
enum {
    KC_LOG_ERR_OFFSET_OUT_OF_RANGE = 1,
    KC_LOG_ERR_CORRUPT_MESSAGE = 2,
    KC_LOG_ERR_MESSAGE_TOO_LARGE = 10,
    KC_LOG_ERR_INVALID_TIMESTAMP = 32,
    KC_LOG_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER = 45,
    KC_LOG_ERR_INVALID_PRODUCER_EPOCH = 47,
    KC_LOG_ERR_KAFKA_STORAGE_ERROR = 56,
    KC_LOG_ERR_UNSUPPORTED_COMPRESSION_TYPE = 76,
    KC_LOG_ERR_INVALID_RECORD = 87,
};

#endif
