/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Leader epochs: the epoch every partition moves to when kcoord starts, the
 * fencing checks of a client's CurrentLeaderEpoch, and OffsetForLeaderEpoch
 * (KafkaApis.handleOffsetForLeaderEpochRequest, ReplicaManager and
 * Partition.lastOffsetForLeaderEpoch). The epochs themselves live in the
 * partition log's leader epoch cache (storage/epoch_cache.h).
 *
 * kcoord is the only broker and leads every partition, so a partition's
 * leader epoch changes only when kcoord restarts, by as much as Kafka's does
 * when its only broker restarts (see KC_RESTART_EPOCH_BUMP).
 */
#include "server_int.h"

#include <string.h>

#include "kc_log.h"

/*
 * What a restart does to a partition's leader epoch. Kafka's controller
 * takes the leadership away from a broker that stops (the partition has no
 * leader: epoch + 1) and gives it back once the broker has registered again
 * and is unfenced (epoch + 1). Kafka 4.4 as one combined broker+controller,
 * restarted on its data directory after SIGTERM or SIGKILL alike, comes back
 * with every partition two epochs on, the new epoch starting at the log end
 * offset (Partition.makeLeader).
 */
#define KC_RESTART_EPOCH_BUMP 2

void kc_server_lead_partitions(kc_server_t *s)
{
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < kc_topics_count(s->topics) && rc == 0; i++) {
        const kc_topic_t *t = kc_topics_at(s->topics, i);
        for (int32_t p = 0; p < t->partitions && rc == 0; p++) {
            const kc_epoch_cache_t *c;
            rc = kc_log_epoch_cache(s->log, t->id, p, &c, NULL);
            if (rc == 0)
                rc = kc_log_make_leader(s->log, t->id, p,
                                        kc_epoch_cache_latest(c) + KC_RESTART_EPOCH_BUMP);
            n++;
        }
    }
    if (rc == 0)
        rc = kc_store_commit(s->store);
    if (rc != 0) {
        /* A full map refuses the new epochs: the partitions stay at the
         * epochs they had, which the batches they hold already carry. */
        kc_store_abort(s->store);
        kc_log_reset(s->log);
        kc_log_warn("server", "cannot store the new leader epochs (%d); partitions keep theirs",
                    rc);
        return;
    }
    if (n)
        kc_log_info("server", "leading %zu partitions, each %d leader epochs on", n,
                    KC_RESTART_EPOCH_BUMP);
}

int32_t kc_server_leader_epoch(kc_server_t *s, const kc_topic_t *topic, int32_t partition)
{
    const kc_epoch_cache_t *c;
    if (kc_log_epoch_cache(s->log, topic->id, partition, &c, NULL) != 0)
        return KC_EPOCH_UNDEFINED;
    return kc_epoch_cache_latest(c);
}

int16_t kc_leader_epoch_check(int32_t current, int32_t client)
{
    if (client < current)
        return KC_ERR_FENCED_LEADER_EPOCH;
    if (client > current)
        return KC_ERR_UNKNOWN_LEADER_EPOCH;
    return KC_ERR_NONE;
}

/* ---- OffsetForLeaderEpoch ---- */

typedef kc_offset_for_leader_epoch_response_epoch_end_offset_t epoch_end_offset_t;

/*
 * Partition.lastOffsetForLeaderEpoch of one partition kcoord leads (a
 * consumer's or a follower's: the replica id changes nothing): the
 * CurrentLeaderEpoch check (-1 alone means none; any other value is
 * compared), then the cache's end offset of the requested epoch, or
 * (-1, -1) when it has none.
 */
static void epoch_end_offset(kc_req_t *req, const kc_topic_t *topic,
                             const kc_offset_for_leader_epoch_request_offset_for_leader_partition_t *p,
                             epoch_end_offset_t *r)
{
    const kc_epoch_cache_t *c;
    kc_log_offsets_t offs;
    if (kc_log_epoch_cache(req->srv->log, topic->id, p->partition, &c, &offs) != 0) {
        r->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
        return;
    }
    if (p->current_leader_epoch != KC_EPOCH_UNDEFINED) {
        r->error_code = kc_leader_epoch_check(kc_epoch_cache_latest(c), p->current_leader_epoch);
        if (r->error_code)
            return;
    }
    int32_t epoch;
    int64_t end;
    kc_epoch_cache_end_offset_for(c, p->leader_epoch, offs.log_end_offset, &epoch, &end);
    /* UnifiedLog.endOffsetForEpoch: an undefined half answers neither. */
    if (epoch != KC_EPOCH_UNDEFINED && end != KC_EPOCH_UNDEFINED_OFFSET) {
        r->leader_epoch = epoch;
        r->end_offset = end;
    }
}

/* One requested topic, answered into rt: TOPIC_AUTHORIZATION_FAILED on every
 * partition when denied, else each partition's end offset, or
 * UNKNOWN_TOPIC_OR_PARTITION for a topic or partition kcoord does not have. */
static void offset_for_leader_topic(kc_req_t *req,
                                    const kc_offset_for_leader_epoch_request_offset_for_leader_topic_t *t,
                                    bool authorized,
                                    kc_offset_for_leader_epoch_response_offset_for_leader_topic_result_t *rt)
{
    const kc_topic_t *topic = kc_topics_find(req->srv->topics, t->topic);
    int32_t np = KC_MAX(t->partitions.count, 0);
    rt->topic = t->topic;
    rt->partitions.items = kc_arena_alloc(req->arena, (size_t)(np ? np : 1) * sizeof(epoch_end_offset_t));
    rt->partitions.count = np;
    for (int32_t j = 0; j < np; j++) {
        const kc_offset_for_leader_epoch_request_offset_for_leader_partition_t *p =
            &t->partitions.items[j];
        epoch_end_offset_t *r = &rt->partitions.items[j];
        memset(r, 0, sizeof(*r));
        r->partition = p->partition;
        r->leader_epoch = KC_EPOCH_UNDEFINED;
        r->end_offset = KC_EPOCH_UNDEFINED_OFFSET;
        if (!authorized)
            r->error_code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        else if (!topic || p->partition < 0 || p->partition >= topic->partitions)
            r->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        else
            epoch_end_offset(req, topic, p, r);
    }
}

/*
 * OffsetForLeaderEpoch as KafkaApis answers it: CLUSTER_ACTION on the
 * cluster (a follower) authorizes every topic, else DESCRIBE on each (the
 * consumers of KIP-320); the authorized topics are answered first, in
 * request order, then the denied ones. A topic listed twice is answered
 * twice.
 */
int kc_handle_offset_for_leader_epoch(kc_req_t *req)
{
    int16_t v = req->ctx.api_version;
    kc_offset_for_leader_epoch_request_t rq;
    kc_offset_for_leader_epoch_request_init(&rq);
    if (kc_offset_for_leader_epoch_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_offset_for_leader_epoch_response_t resp;
    kc_offset_for_leader_epoch_response_init(&resp);
    resp.throttle_time_ms = 0;
    int32_t nt = KC_MAX(rq.topics.count, 0);
    bool cluster = kc_req_authorized_cluster(req, KC_OP_CLUSTER_ACTION);
    bool *allowed = kc_arena_alloc(req->arena, (size_t)(nt ? nt : 1) * sizeof(bool));
    for (int32_t i = 0; i < nt; i++)
        allowed[i] = cluster ||
                     kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_TOPIC, rq.topics.items[i].topic);
    resp.topics.items =
        kc_arena_alloc(req->arena, (size_t)(nt ? nt : 1) * sizeof(*resp.topics.items));
    resp.topics.count = nt;
    int32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < nt; i++)
            if (allowed[i] == (pass == 0))
                offset_for_leader_topic(req, &rq.topics.items[i], allowed[i],
                                        &resp.topics.items[k++]);
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_offset_for_leader_epoch_response_encode(&b, v, &resp),
                                  &b);
}
