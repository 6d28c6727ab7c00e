/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Incremental fetch sessions (KIP-227), as Kafka's FetchSession and
 * FetchSessionCacheShard keep them on one shard: a session remembers the
 * partitions a consumer fetches (with their last fetch offset and the high
 * watermark and log start offset last sent), so that later requests name
 * only what changed and responses carry only partitions with news.
 *
 * Pure bookkeeping: no clock reads, no I/O; now_ms comes from the caller.
 * Session ids are random in [1, INT32_MAX) from a seeded generator.
 */
#ifndef KC_FETCH_SESSION_H
#define KC_FETCH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* One partition of a session (Kafka's CachedPartition). */
typedef struct {
    char *topic;        /* owned; "" in sessions that use topic ids */
    kc_uuid_t topic_id; /* zero in sessions that use names */
    int32_t partition;
    /* From the last request that named the partition. */
    int64_t fetch_offset;
    int64_t log_start_offset; /* the follower's; -1 from consumers */
    int32_t max_bytes;
    /* What the last response carrying the partition said. */
    int64_t high_watermark;
    int64_t local_log_start_offset;
    /* From the last request too (-1: not given): an incremental fetch is
     * checked against them as a full one is. */
    int32_t current_leader_epoch, last_fetched_epoch;
} kc_fetch_session_partition_t;

typedef struct {
    int32_t id;
    int32_t epoch; /* the epoch the next request must carry */
    bool uses_topic_ids;
    int64_t creation_ms, last_used_ms;
    bool evictable; /* unused for eviction_ms at the last touch: may make room */
    kc_fetch_session_partition_t *parts; /* in fetch order */
    size_t n, cap;
} kc_fetch_session_t;

typedef struct kc_fetch_sessions kc_fetch_sessions_t;

/*
 * A cache of at most max_slots sessions (max.incremental.fetch.session.cache.slots);
 * a session unused for eviction_ms (Kafka: 120000) may be evicted for a new
 * one. seed drives session id choice.
 */
kc_fetch_sessions_t *kc_fetch_sessions_new(int32_t max_slots, int64_t eviction_ms, uint64_t seed);
void kc_fetch_sessions_free(kc_fetch_sessions_t *c);
size_t kc_fetch_sessions_count(const kc_fetch_sessions_t *c);

/* The session with id, or NULL. Valid until the next call that creates or removes sessions. */
kc_fetch_session_t *kc_fetch_sessions_get(kc_fetch_sessions_t *c, int32_t id);
/* Removes a session; false if there was none. */
bool kc_fetch_sessions_remove(kc_fetch_sessions_t *c, int32_t id);

/*
 * FetchSessionCacheShard.maybeCreateSession for a consumer: when a slot is
 * free, or an entry can be evicted (the least recently used one when unused
 * for eviction_ms, else the smallest evictable session if it has fewer than
 * n partitions), creates a session of the n partitions (copied) with epoch 1
 * and returns its id; otherwise returns 0 (the response is sessionless).
 */
int32_t kc_fetch_sessions_create(kc_fetch_sessions_t *c, int64_t now_ms, bool uses_topic_ids,
                                 const kc_fetch_session_partition_t *parts, size_t n);
/* Records a use of the session at now_ms (FetchSessionCacheShard.touch). */
void kc_fetch_sessions_touch(kc_fetch_sessions_t *c, kc_fetch_session_t *s, int64_t now_ms);

/* Index of a partition in the session (by topic id when the session uses ids), or -1. */
ptrdiff_t kc_fetch_session_find(const kc_fetch_session_t *s, kc_str_t topic, kc_uuid_t topic_id,
                                int32_t partition);
/*
 * FetchSession.update, one partition at a time: adds p (copied) at the end,
 * or updates the request fields of the partition already there. Returns true
 * when it was added.
 */
bool kc_fetch_session_upsert(kc_fetch_session_t *s, const kc_fetch_session_partition_t *p);
/* Removes a partition; false if absent. */
bool kc_fetch_session_forget(kc_fetch_session_t *s, kc_str_t topic, kc_uuid_t topic_id,
                             int32_t partition);
/* Moves the partitions whose to_end flag is set (s->n flags) to the end, keeping order. */
void kc_fetch_session_reorder(kc_fetch_session_t *s, const bool *to_end);

/*
 * CachedPartition.maybeUpdateResponseData: whether an incremental response
 * must carry the partition (records, a changed high watermark or log start
 * offset, or an error). With update, remembers what is sent (an error
 * forgets the high watermark).
 */
bool kc_fetch_session_must_respond(kc_fetch_session_partition_t *p, int16_t error_code,
                                   size_t records_len, int64_t high_watermark,
                                   int64_t log_start_offset, bool update);

/* FetchMetadata.nextEpoch: epoch + 1, wrapping from INT32_MAX to 1; -1 stays -1. */
int32_t kc_fetch_next_epoch(int32_t epoch);

#endif
