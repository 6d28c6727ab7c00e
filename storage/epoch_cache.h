/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A partition's leader epoch cache, as Kafka's LeaderEpochFileCache keeps
 * it (the leader-epoch-checkpoint of a log directory): the leader epochs the
 * log has had, each with the offset of its first record, epochs and offsets
 * both increasing. The last entry is the current leader epoch; the end
 * offset of an older epoch is the start offset of the next one
 * (endOffsetFor), which is what OffsetForLeaderEpoch answers and what Fetch's
 * diverging-epoch check compares.
 *
 * Pure: no storage, no clock. The partition log (storage/log.c) keeps one
 * per partition and persists it with kc_epoch_cache_encode whenever a call
 * here reports a change.
 */
#ifndef KC_EPOCH_CACHE_H
#define KC_EPOCH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kc_common.h"

/* RecordBatch.NO_PARTITION_LEADER_EPOCH / EpochEndOffset's UNDEFINED_EPOCH(_OFFSET). */
#define KC_EPOCH_UNDEFINED (-1)
#define KC_EPOCH_UNDEFINED_OFFSET (-1)

typedef struct {
    int32_t epoch;
    int64_t start_offset;
} kc_epoch_entry_t;

typedef struct {
    kc_epoch_entry_t *e; /* owned; n entries, epochs and start offsets increasing */
    size_t n, cap;
} kc_epoch_cache_t;

void kc_epoch_cache_init(kc_epoch_cache_t *c);
void kc_epoch_cache_deinit(kc_epoch_cache_t *c);

/* The current (latest) epoch, or KC_EPOCH_UNDEFINED when the cache is empty. */
int32_t kc_epoch_cache_latest(const kc_epoch_cache_t *c);
/* The earliest entry, or NULL when the cache is empty. */
const kc_epoch_entry_t *kc_epoch_cache_earliest(const kc_epoch_cache_t *c);

/*
 * LeaderEpochFileCache.assign: records that epoch starts at start_offset.
 * Nothing changes when it is the latest epoch already, starting at or
 * before start_offset; otherwise the entries of that epoch or a later one,
 * and those starting at or after start_offset, are dropped first (the
 * entries stay monotonic). A negative epoch or offset is refused (Kafka
 * throws). Returns true when the cache changed.
 */
bool kc_epoch_cache_assign(kc_epoch_cache_t *c, int32_t epoch, int64_t start_offset);

/*
 * LeaderEpochFileCache.truncateFromStart, when the log start offset moves
 * to start_offset (DeleteRecords, retention): the entries starting at or
 * before it are dropped and the last of them comes back starting at
 * start_offset, so the earliest epoch still starts at the log start.
 * Returns true when the cache changed.
 */
bool kc_epoch_cache_truncate_from_start(kc_epoch_cache_t *c, int64_t start_offset);

/*
 * LeaderEpochFileCache.endOffsetFor: the epoch and end offset to answer for
 * a requested epoch on a log ending at log_end_offset:
 *   - KC_EPOCH_UNDEFINED asked: (UNDEFINED, UNDEFINED_OFFSET);
 *   - the latest epoch: (it, log_end_offset);
 *   - an epoch newer than any known: (UNDEFINED, UNDEFINED_OFFSET);
 *   - an epoch older than the earliest known: (the requested epoch, the
 *     earliest entry's start offset), as the records before are gone;
 *   - otherwise (the greatest known epoch <= requested, the start offset of
 *     the first epoch after requested).
 */
void kc_epoch_cache_end_offset_for(const kc_epoch_cache_t *c, int32_t requested,
                                   int64_t log_end_offset, int32_t *epoch, int64_t *end_offset);

/*
 * LeaderEpochFileCache.epochForOffset: the epoch of the entry starting at
 * offset, else of the last entry starting before it; KC_EPOCH_UNDEFINED
 * when every entry starts after it.
 */
int32_t kc_epoch_cache_epoch_for_offset(const kc_epoch_cache_t *c, int64_t offset);

/*
 * The stored form: u8 version 0, u32 count, count x {i32 epoch, i64 start
 * offset}, big-endian. encode appends to out; decode replaces c's entries
 * and returns 0, or KC_EINVAL for bytes that are not a monotonic cache (c
 * then unchanged).
 */
void kc_epoch_cache_encode(const kc_epoch_cache_t *c, kc_buf_t *out);
int kc_epoch_cache_decode(kc_epoch_cache_t *c, const uint8_t *p, size_t len);

#endif
