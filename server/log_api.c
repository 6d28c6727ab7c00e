/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log APIs: Produce, Fetch (with long polls woken by produce commits),
 * with incremental fetch sessions (KIP-227), ListOffsets, InitProducerId
 * (idempotent producers only), CreatePartitions, DeleteTopics and
 * DeleteRecords, answered as Kafka's KafkaApis and ReplicaManager answer
 * them on a single broker that leads every partition (at the leader epochs
 * of server/leader_epochs.c); the periodic retention task
 * (LogManager.cleanupLogs) and the log cleaner (LogCleaner's CleanerThread).
 */
#include "server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <event2/event.h>

#include "kc_log.h"
#include "legacy.h"


static const kc_uuid_t zero_uuid;

/* ---- Produce ---- */

/* One Produce request as KafkaApis.handleProduceRequest carries it through
 * its steps; the request and response live in req's arena. */
typedef struct {
    kc_req_t *req;
    int16_t v;
    bool acks_ok;        /* acks is 0, 1 or -1 */
    bool txn_denied;     /* transactional records without WRITE on their transactional id */
    kc_str_t transactional_id;
    bool any_error;      /* some partition failed (acks=0 then closes the connection) */
    bool storage_failed; /* some append met a storage error */
} produce_t;

/* A partition's answer before its append: ProduceResponse.PartitionResponse's
 * defaults (offsets and times -1, no record errors, no leader). */
static void produce_partition_init(kc_produce_response_partition_produce_response_t *rp,
                                   int32_t index)
{
    memset(rp, 0, sizeof(*rp));
    rp->index = index;
    rp->base_offset = -1;
    rp->log_append_time_ms = -1;
    rp->log_start_offset = -1;
    rp->record_errors.count = 0;
    rp->error_message = KC_STR_NULL;
    rp->current_leader = (kc_produce_response_leader_id_and_epoch_t){-1, -1};
}

/* KafkaApis.handleProduceRequest's authorization of a topic: 0 with WRITE on
 * it (an unknown topic id passes, to be answered UNKNOWN_TOPIC_ID), else the
 * error of its every partition; a denied transactional id fails every topic. */
static int16_t produce_authorize_topic(const produce_t *p,
                                       const kc_produce_request_topic_produce_data_t *t,
                                       const kc_topic_t *topic)
{
    bool authorized =
        (p->v >= 13 && !topic) ||
        kc_req_authorized(p->req, KC_OP_WRITE, KC_RES_TOPIC, topic ? kc_str(topic->name) : t->name);
    if (p->txn_denied)
        return KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    return authorized ? KC_ERR_NONE : KC_ERR_TOPIC_AUTHORIZATION_FAILED;
}

/* The checks before a partition's append: KafkaApis' unknown topics and
 * partitions, then ReplicaManager.appendRecords' required acks. 0 or the error. */
static int16_t produce_check_partition(const produce_t *p, const kc_topic_t *topic, int32_t index)
{
    if (!topic)
        return p->v >= 13 ? KC_ERR_UNKNOWN_TOPIC_ID : KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (index < 0 || index >= topic->partitions)
        return KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (!p->acks_ok)
        return KC_ERR_INVALID_REQUIRED_ACKS;
    return KC_ERR_NONE;
}

/*
 * LogValidator's conversion, as Kafka 3.9 served produce v0-2: a message set
 * of magic 0/1 becomes one magic 2 batch in converted, and *recs and *recs_len
 * then point at it (other records are left as they are). Returns 0, or the
 * error with its message in rp->error_message.
 */
static int16_t produce_convert_legacy(const produce_t *p, const kc_topic_t *topic, int32_t index,
                                      kc_buf_t *converted, const uint8_t **recs, size_t *recs_len,
                                      kc_produce_response_partition_produce_response_t *rp)
{
    kc_server_t *s = p->req->srv;
    int magic = kc_records_magic(*recs, *recs_len);
    if (p->v >= 3 || (magic != 0 && magic != 1))
        return KC_ERR_NONE;
    const char *why = NULL;
    int16_t cerr = kc_legacy_convert(*recs, *recs_len,
                                     (size_t)s->cfg->legacy_decompression_max_bytes, converted,
                                     &why);
    if (cerr == KC_ERR_MESSAGE_TOO_LARGE)
        kc_log_warn("server",
                    "produce to %s-%d: a magic %d message set decompresses beyond "
                    "legacy.decompression.max.bytes (%lld); answered MESSAGE_TOO_LARGE",
                    topic->name, index, magic, (long long)s->cfg->legacy_decompression_max_bytes);
    if (cerr) {
        rp->error_message = kc_str(why);
        return cerr;
    }
    *recs = converted->data;
    *recs_len = converted->len;
    return KC_ERR_NONE;
}

/* A string of the arena: the bytes of the buffer. */
static kc_str_t arena_str(kc_arena_t *a, const char *p, size_t n)
{
    char *copy = kc_arena_alloc(a, n + 1);
    memcpy(copy, p, n);
    return (kc_str_t){copy, (int32_t)n};
}

/*
 * The record errors of an append (LogValidator.processRecordErrors): one
 * RecordError per record rejected, with validateKey's message for a missing
 * key (a timestamp's has none, as kcoord's other timestamp errors); for
 * INVALID_RECORD the partition's message names how many there are and shows
 * the first three (RecordValidationException's, Java's List.toString).
 */
static void produce_record_errors(kc_req_t *req, const kc_topic_t *topic, int32_t partition,
                                  const kc_log_append_result_t *ar,
                                  kc_produce_response_partition_produce_response_t *rp)
{
    const kc_log_record_error_t *e = (const kc_log_record_error_t *)(const void *)ar->record_errors.data;
    size_t n = ar->record_errors.len / sizeof(*e);
    char text[512];
    int tl = snprintf(text, sizeof(text),
                      "Compacted topic cannot accept message without key in topic partition %s-%d",
                      topic->name, partition);
    kc_str_t no_key = arena_str(req->arena, text, (size_t)KC_MIN(tl, (int)sizeof(text) - 1));
    kc_produce_response_batch_index_and_error_message_t *items =
        kc_arena_alloc(req->arena, n * sizeof(*items));
    kc_buf_t msg;
    kc_buf_init(&msg);
    char head[160];
    int hl = snprintf(head, sizeof(head),
                      "One or more records have been rejected due to %zu record errors in total, "
                      "and only showing the first three errors at most: [",
                      n);
    kc_buf_append(&msg, head, (size_t)hl);
    for (size_t i = 0; i < n; i++) {
        bool key = e[i].why == KC_LOG_RECORD_NO_KEY;
        items[i].batch_index = e[i].batch_index;
        items[i].batch_index_error_message = key ? no_key : KC_STR_NULL;
        if (i < 3) {
            char one[600];
            int ol = key ? snprintf(one, sizeof(one), "%sRecordError(batchIndex=%d, message='%.*s')",
                                    i ? ", " : "", e[i].batch_index, no_key.len, no_key.ptr)
                         : snprintf(one, sizeof(one), "%sRecordError(batchIndex=%d, message=null)",
                                    i ? ", " : "", e[i].batch_index);
            kc_buf_append(&msg, one, (size_t)KC_MIN(ol, (int)sizeof(one) - 1));
        }
    }
    kc_buf_append(&msg, "]", 1);
    rp->record_errors.items = items;
    rp->record_errors.count = (int32_t)n;
    if (rp->error_code == KC_ERR_INVALID_RECORD)
        rp->error_message = arena_str(req->arena, (const char *)msg.data, msg.len);
    kc_buf_deinit(&msg);
}

/* Whether the first batch of a partition's records is transactional
 * (magic 2, the attributes' transactional bit), as RecordBatch.isTransactional. */
static bool first_batch_transactional(const uint8_t *recs, size_t len)
{
    return len >= 61 && recs[16] == 2 && (recs[22] & 0x10);
}

/*
 * A transactional batch (magic 2, attribute bit 4) joins its producer's
 * transaction before its append: Produce v12 and later (transaction
 * version 2) add the partition, earlier versions must have added it with
 * AddPartitionsToTxn (ReplicaManager's verification, with
 * AddPartitionsToTxnManager's answers to the producer). KC_ERR_NONE or the
 * partition's error, with *msg its message when Kafka gives one.
 */
static int16_t produce_join_transaction(produce_t *p, const kc_topic_t *topic, int32_t partition,
                                        const uint8_t *recs, size_t len, const char **msg)
{
    *msg = NULL;
    if (!first_batch_transactional(recs, len))
        return KC_ERR_NONE; /* not transactional; the log validates the rest */
    kc_reader_t r;
    kc_reader_init(&r, recs + 43, 10);
    int64_t pid = kc_read_int64(&r);
    int16_t epoch = kc_read_int16(&r);
    kc_txn_partition_t part = {topic->name, partition};
    kc_txn_coord_t *txn = p->req->srv->txn;
    int16_t err;
    if (p->v >= 12) {
        err = kc_txn_add_partitions(txn, p->req->ctx.now_ms, p->transactional_id, pid, epoch,
                                    &part, 1, 2, p->req->res);
    } else {
        err = kc_txn_verify_partition(txn, p->transactional_id, pid, epoch, &part);
        /* ReplicaManager's postVerificationCallback words the errors it
         * translates for the producer. */
        if (err == KC_ERR_TRANSACTION_ABORTABLE && p->v < 11) {
            err = KC_ERR_INVALID_TXN_STATE;
            *msg = "Partition was not added to the transaction";
        } else if (err == KC_ERR_CONCURRENT_TRANSACTIONS) {
            err = KC_ERR_NOT_ENOUGH_REPLICAS;
            *msg = "Unable to verify the partition has been added to the transaction. "
                   "Underlying error: CONCURRENT_TRANSACTIONS";
        }
    }
    return err == KC_ERR_PRODUCER_FENCED ? KC_ERR_INVALID_PRODUCER_EPOCH : err;
}

/* UnifiedLog.appendAsLeader of one checked partition: converts legacy
 * records, appends, and fills rp from the append's result. */
static void produce_append(produce_t *p, const kc_topic_t *topic,
                           const kc_produce_request_partition_produce_data_t *pd,
                           kc_produce_response_partition_produce_response_t *rp)
{
    kc_req_t *req = p->req;
    const uint8_t *recs = pd->records.ptr;
    size_t recs_len = pd->records.len > 0 ? (size_t)pd->records.len : 0;
    kc_buf_t converted;
    kc_buf_init(&converted);
    int16_t cerr = produce_convert_legacy(p, topic, pd->index, &converted, &recs, &recs_len, rp);
    if (cerr) {
        rp->error_code = cerr;
        kc_buf_deinit(&converted);
        return;
    }
    const char *why;
    int16_t terr = produce_join_transaction(p, topic, pd->index, recs, recs_len, &why);
    if (terr) {
        rp->error_code = terr;
        if (why)
            rp->error_message = kc_str(why);
        kc_buf_deinit(&converted);
        return;
    }
    kc_log_append_result_t ar;
    int rc = kc_log_append(req->srv->log, topic->id, pd->index, recs, recs_len, p->v,
                           req->ctx.now_ms, &ar);
    kc_buf_deinit(&converted);
    if (rc != 0)
        p->storage_failed = true;
    rp->error_code = ar.error_code;
    rp->base_offset = ar.base_offset;
    rp->log_append_time_ms = ar.log_append_time;
    rp->log_start_offset = ar.log_start_offset;
    if (ar.error_message)
        rp->error_message = kc_str(ar.error_message);
    if (ar.record_errors.len > 0) {
        produce_record_errors(req, topic, pd->index, &ar, rp);
    } else if (ar.record_error_index >= 0) {
        kc_produce_response_batch_index_and_error_message_t *e =
            kc_arena_alloc(req->arena, sizeof(*e));
        e->batch_index = ar.record_error_index;
        e->batch_index_error_message = KC_STR_NULL;
        rp->record_errors.items = e;
        rp->record_errors.count = 1;
    }
    kc_buf_deinit(&ar.record_errors);
}

/* One topic of the request (ReplicaManager.appendRecords per partition):
 * authorizes it, then checks and appends each partition into rt. */
static void produce_topic(produce_t *p, const kc_produce_request_topic_produce_data_t *t,
                          kc_produce_response_topic_produce_response_t *rt)
{
    kc_req_t *req = p->req;
    kc_server_t *s = req->srv;
    const kc_topic_t *topic = p->v >= 13 ? kc_topics_find_id(s->topics, t->topic_id)
                                         : kc_topics_find(s->topics, t->name);
    rt->name = t->name;
    rt->topic_id = t->topic_id;
    int16_t denied = produce_authorize_topic(p, t, topic);
    int32_t np = t->partition_data.count > 0 ? t->partition_data.count : 0;
    rt->partition_responses.items =
        kc_arena_alloc(req->arena, (size_t)(np ? np : 1) * sizeof(*rt->partition_responses.items));
    rt->partition_responses.count = np;
    for (int32_t j = 0; j < np; j++) {
        const kc_produce_request_partition_produce_data_t *pd = &t->partition_data.items[j];
        kc_produce_response_partition_produce_response_t *rp = &rt->partition_responses.items[j];
        produce_partition_init(rp, pd->index);
        rp->error_code = denied ? denied : produce_check_partition(p, topic, pd->index);
        if (!rp->error_code)
            produce_append(p, topic, pd, rp);
        if (rp->error_code)
            p->any_error = true;
    }
}

/* The answer should this iteration's commit fail: what was appended is gone,
 * so every partition that succeeded fails with KAFKA_STORAGE_ERROR. */
static void produce_storage_error_answer(kc_produce_response_t *resp)
{
    for (int32_t i = 0; i < resp->responses.count; i++) {
        for (int32_t j = 0; j < resp->responses.items[i].partition_responses.count; j++) {
            kc_produce_response_partition_produce_response_t *rp =
                &resp->responses.items[i].partition_responses.items[j];
            if (rp->error_code == 0) {
                rp->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
                rp->base_offset = -1;
                rp->log_append_time_ms = -1;
                rp->log_start_offset = -1;
            }
        }
    }
}

/* KafkaApis' sendResponseCallback: acks=0 sends nothing (and closes the
 * connection when a partition failed); otherwise the answer, with the
 * commit-failure answer as its error body. 0 or the encoder's error. */
static int produce_respond(const produce_t *p, int16_t acks, kc_produce_response_t *resp)
{
    kc_req_t *req = p->req;
    kc_server_t *s = req->srv;
    if (acks == 0) {
        /* No response. Kafka closes the connection when a partition failed, so the
         * producer learns of it by reconnecting; otherwise the connection is read again. */
        if (p->any_error)
            kc_net_close(s->net, req->ctx.conn_id, "acks=0 produce failed");
        else
            kc_net_request_done(s->net, req->ctx.conn_id);
        return 0;
    }
    kc_buf_t b;
    kc_buf_init(&b);
    int rc = kc_produce_response_encode(&b, p->v, resp);
    if (rc != 0)
        return kc_req_respond_encoded(req, rc, &b);
    kc_response_t *r = kc_req_respond(req, &b);
    kc_buf_deinit(&b);
    produce_storage_error_answer(resp);
    if (kc_produce_response_encode(&r->error_body, p->v, resp) != 0)
        kc_buf_reset(&r->error_body);
    return 0;
}

/*
 * Produce as KafkaApis.handleProduceRequest and ReplicaManager.appendRecords
 * answer it. v0-2 are served as Kafka 3.9 served them: message sets of magic
 * 0/1 are converted to one magic 2 batch (LogValidator's conversion); Kafka 4
 * rejects these versions but still advertises MinVersion 0 (KAFKA-18659).
 */
int kc_handle_produce(kc_req_t *req)
{
    int16_t v = req->ctx.api_version;
    kc_produce_request_t rq;
    kc_produce_request_init(&rq);
    if (kc_produce_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    produce_t p = {.req = req, .v = v};
    p.acks_ok = rq.acks == 0 || rq.acks == 1 || rq.acks == -1;
    /* Transactional records (RequestUtils.hasTransactionalRecords: the first
     * batch of some partition) need a transactional id with WRITE on it;
     * without, every partition gets TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
     * Idempotent records need no ACL beyond the topics' (none since
     * Kafka 3.0). */
    p.transactional_id = rq.transactional_id;
    bool transactional = false;
    for (int32_t i = 0; i < rq.topic_data.count; i++)
        for (int32_t j = 0; j < rq.topic_data.items[i].partition_data.count; j++) {
            kc_bytes_t r = rq.topic_data.items[i].partition_data.items[j].records;
            transactional |= first_batch_transactional(r.ptr, r.len > 0 ? (size_t)r.len : 0);
        }
    p.txn_denied = transactional && (kc_str_is_null(rq.transactional_id) ||
                                     !kc_req_authorized(req, KC_OP_WRITE, KC_RES_TRANSACTIONAL_ID,
                                                        rq.transactional_id));
    kc_produce_response_t resp;
    kc_produce_response_init(&resp);
    resp.throttle_time_ms = 0;
    resp.node_endpoints.count = 0;
    int32_t nt = rq.topic_data.count > 0 ? rq.topic_data.count : 0;
    resp.responses.items =
        kc_arena_alloc(req->arena, (size_t)(nt ? nt : 1) * sizeof(*resp.responses.items));
    resp.responses.count = nt;
    for (int32_t i = 0; i < nt; i++)
        produce_topic(&p, &rq.topic_data.items[i], &resp.responses.items[i]);
    if (p.storage_failed)
        kc_log_warn("server", "produce: a storage error failed some partitions");
    return produce_respond(&p, rq.acks, &resp);
}

/* ---- Fetch ---- */

typedef enum { CTX_SESSIONLESS, CTX_FULL, CTX_INCREMENTAL, CTX_ERROR } fetch_ctx_kind_t;

/* One partition to read, from the request or from the fetch session. */
typedef struct {
    kc_str_t topic;
    kc_uuid_t topic_id;
    int32_t partition;
    int64_t fetch_offset, log_start_offset;
    int32_t max_bytes;
    /* Read results. */
    int16_t error_code;
    bool erroneous; /* refused before reading (KafkaApis' erroneous list) */
    int32_t current_leader_epoch, last_fetched_epoch; /* -1: not given */
    int32_t leader_epoch; /* the partition's epoch, known once fencing was checked */
    int32_t diverging_epoch; /* with diverging_end: the epoch the log and the fetcher diverge at */
    int64_t diverging_end;   /* >= 0: that epoch ends there (the answer's DivergingEpoch) */
    int64_t high_watermark, log_start, last_stable;
    size_t start, end; /* record bytes in the data buffer */
    size_t ab_start, ab_end; /* aborted transactions (kc_log_aborted_txn_t) in the aborted buffer */
} fetch_item_t;

/*
 * FetchManager.newContext (KIP-227). On the first evaluation (first) an
 * incremental request updates its session and advances the epoch; a parked
 * request re-evaluated later finds the session at the next epoch. A full
 * request (epoch 0) closes the session it names and gets a new one when the
 * response is built; epoch -1 closes it and stays sessionless.
 */
static fetch_ctx_kind_t fetch_context(kc_server_t *s, const kc_fetch_request_t *rq, int16_t v,
                                      int64_t now_ms, bool first, int16_t *error_code,
                                      kc_fetch_session_t **session)
{
    *session = NULL;
    *error_code = 0;
    if (v < 7)
        return CTX_SESSIONLESS;
    if (rq->session_epoch == 0 || rq->session_epoch == -1) {
        if (rq->session_id != 0 && first)
            kc_fetch_sessions_remove(s->fetch_sessions, rq->session_id);
        return rq->session_epoch == 0 ? CTX_FULL : CTX_SESSIONLESS;
    }
    kc_fetch_session_t *fs = kc_fetch_sessions_get(s->fetch_sessions, rq->session_id);
    if (!fs) {
        *error_code = KC_ERR_FETCH_SESSION_ID_NOT_FOUND;
        return CTX_ERROR;
    }
    if (!first) {
        if (fs->epoch != kc_fetch_next_epoch(rq->session_epoch)) {
            *error_code = KC_ERR_INVALID_FETCH_SESSION_EPOCH;
            return CTX_ERROR;
        }
        *session = fs;
        return CTX_INCREMENTAL;
    }
    if (fs->epoch != rq->session_epoch) {
        *error_code = KC_ERR_INVALID_FETCH_SESSION_EPOCH;
        return CTX_ERROR;
    }
    if (fs->uses_topic_ids != (v >= 13)) {
        *error_code = KC_ERR_FETCH_SESSION_TOPIC_ID_ERROR;
        return CTX_ERROR;
    }
    for (int32_t i = 0; i < KC_MAX(rq->topics.count, 0); i++) {
        const kc_fetch_request_topic_t *t = &rq->topics.items[i];
        char *name = kc_xstrndup(t->topic.ptr ? t->topic.ptr : "", (size_t)KC_MAX(t->topic.len, 0));
        for (int32_t j = 0; j < KC_MAX(t->partitions.count, 0); j++) {
            const kc_fetch_request_partition_t *p = &t->partitions.items[j];
            kc_fetch_session_partition_t sp = {
                v >= 13 ? "" : name, v >= 13 ? t->topic_id : zero_uuid, p->partition,
                p->fetch_offset, p->log_start_offset, p->partition_max_bytes, -1, -1,
                v >= 9 ? p->current_leader_epoch : -1, v >= 12 ? p->last_fetched_epoch : -1};
            kc_fetch_session_upsert(fs, &sp);
        }
        free(name);
    }
    for (int32_t i = 0; i < KC_MAX(rq->forgotten_topics_data.count, 0); i++) {
        const kc_fetch_request_forgotten_topic_t *t = &rq->forgotten_topics_data.items[i];
        for (int32_t j = 0; j < KC_MAX(t->partitions.count, 0); j++)
            kc_fetch_session_forget(fs, t->topic, v >= 13 ? t->topic_id : zero_uuid,
                                    t->partitions.items[j]);
    }
    if (fs->n == 0) {
        kc_fetch_sessions_remove(s->fetch_sessions, fs->id);
        return CTX_SESSIONLESS;
    }
    kc_fetch_sessions_touch(s->fetch_sessions, fs, now_ms);
    fs->epoch = kc_fetch_next_epoch(fs->epoch);
    *session = fs;
    return CTX_INCREMENTAL;
}

/* One evaluation of a Fetch request (KafkaApis.handleFetchRequest through
 * ReplicaManager.fetchMessages): the request and response live in arena,
 * the partitions' record bytes in data, items on the heap. */
typedef struct {
    kc_server_t *s;
    const kc_request_ctx_t *ctx;
    int16_t v;
    kc_arena_t arena;
    kc_fetch_request_t rq;
    kc_fetch_response_t resp;
    fetch_ctx_kind_t kind;
    kc_fetch_session_t *fs; /* the session of an incremental fetch */
    fetch_item_t *items;
    size_t nitems;
    kc_buf_t data;
    kc_buf_t aborted; /* READ_COMMITTED: the partitions' aborted transactions */
    /* ReplicaManager.readFromLog's state */
    bool follower;  /* the replica id names a follower */
    bool min_one;   /* the next partition with data returns at least one batch */
    int64_t limit;  /* the response's byte limit */
    int64_t bytes;  /* record bytes read so far */
    bool any_error; /* some partition is answered at once */
} fetch_t;

/* A partition's answer without data: FetchResponse.partitionResponse's
 * defaults (offsets -1, no epochs, no leader, no snapshot). */
static void fetch_partition_init(kc_fetch_response_partition_data_t *rp, int32_t partition,
                                 int16_t error_code)
{
    memset(rp, 0, sizeof(*rp));
    rp->partition_index = partition;
    rp->error_code = error_code;
    rp->high_watermark = -1;
    rp->last_stable_offset = -1;
    rp->log_start_offset = -1;
    rp->diverging_epoch = (kc_fetch_response_epoch_end_offset_t){-1, -1};
    rp->current_leader = (kc_fetch_response_leader_id_and_epoch_t){-1, -1};
    rp->snapshot_id = (kc_fetch_response_snapshot_id_t){-1, -1};
    rp->preferred_read_replica = -1;
    rp->aborted_transactions.count = 0;
    rp->records = (kc_bytes_t){(const uint8_t *)"", 0};
}

/* The partitions to read (FetchContext.foreachPartition): the session's, in
 * its order, for an incremental fetch, else the request's. */
static void fetch_collect_items(fetch_t *f)
{
    const kc_fetch_request_t *rq = &f->rq;
    size_t nitems = 0;
    if (f->kind == CTX_INCREMENTAL) {
        nitems = f->fs->n;
    } else {
        for (int32_t i = 0; i < KC_MAX(rq->topics.count, 0); i++)
            nitems += (size_t)KC_MAX(rq->topics.items[i].partitions.count, 0);
    }
    fetch_item_t *items = kc_xcalloc(nitems ? nitems : 1, sizeof(*items));
    f->items = items;
    f->nitems = nitems;
    if (f->kind == CTX_INCREMENTAL) {
        for (size_t i = 0; i < f->fs->n; i++) {
            const kc_fetch_session_partition_t *sp = &f->fs->parts[i];
            items[i].topic = kc_str(sp->topic);
            items[i].topic_id = sp->topic_id;
            items[i].partition = sp->partition;
            items[i].fetch_offset = sp->fetch_offset;
            items[i].log_start_offset = sp->log_start_offset;
            items[i].max_bytes = sp->max_bytes;
            items[i].current_leader_epoch = sp->current_leader_epoch;
            items[i].last_fetched_epoch = sp->last_fetched_epoch;
            items[i].diverging_end = -1;
        }
        return;
    }
    size_t k = 0;
    for (int32_t i = 0; i < KC_MAX(rq->topics.count, 0); i++) {
        const kc_fetch_request_topic_t *t = &rq->topics.items[i];
        for (int32_t j = 0; j < KC_MAX(t->partitions.count, 0); j++, k++) {
            const kc_fetch_request_partition_t *p = &t->partitions.items[j];
            items[k].topic = t->topic;
            items[k].topic_id = t->topic_id;
            items[k].partition = p->partition;
            items[k].fetch_offset = p->fetch_offset;
            items[k].log_start_offset = p->log_start_offset;
            items[k].max_bytes = p->partition_max_bytes;
            items[k].current_leader_epoch = f->v >= 9 ? p->current_leader_epoch : -1;
            items[k].last_fetched_epoch = f->v >= 12 ? p->last_fetched_epoch : -1;
            items[k].diverging_end = -1;
        }
    }
}

/* KafkaApis.handleFetchRequest's refusals before reading (its erroneous
 * list): READ on the topic, or CLUSTER_ACTION on the cluster for a
 * follower's fetch; then an unknown topic or partition. True when refused. */
static bool fetch_refuse(const fetch_t *f, fetch_item_t *it, const kc_topic_t *topic)
{
    int16_t v = f->v;
    if ((topic || v < 13 || f->follower) &&
        (f->follower ? !kc_request_authorized(f->ctx, KC_OP_CLUSTER_ACTION, KC_RES_CLUSTER,
                                              kc_str(KC_CLUSTER_RESOURCE_NAME))
                     : !kc_request_authorized(f->ctx, KC_OP_READ, KC_RES_TOPIC,
                                              topic ? kc_str(topic->name) : it->topic)))
        it->error_code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
    else if (!topic)
        it->error_code = v >= 13 ? KC_ERR_UNKNOWN_TOPIC_ID : KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    else if (it->partition < 0 || it->partition >= topic->partitions)
        it->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    else
        return false;
    it->erroneous = true;
    return true;
}

/* The epoch checks of Partition.fetchRecords: true when the partition is
 * answered without reading (an error, or where its epoch diverges). */
static bool fetch_check_epochs(const fetch_t *f, fetch_item_t *it, const kc_topic_t *topic)
{
    if (it->current_leader_epoch < 0 && it->last_fetched_epoch < 0)
        return false;
    const kc_epoch_cache_t *c;
    kc_log_offsets_t lo;
    if (kc_log_epoch_cache(f->s->log, topic->id, it->partition, &c, &lo) != 0) {
        it->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
        return true;
    }
    /* Partition.localLogWithEpochOrThrow: a negative epoch means none
     * (FetchRequest's optional epoch); an older one is fenced, a newer one
     * unknown. */
    it->leader_epoch = kc_epoch_cache_latest(c);
    if (it->current_leader_epoch >= 0) {
        it->error_code = kc_leader_epoch_check(it->leader_epoch, it->current_leader_epoch);
        if (it->error_code)
            return true;
    }
    /* v12+ LastFetchedEpoch (Partition.validateFetchOffsetAndMaybeGetDivergingEpoch):
     * the end of the fetcher's last epoch in this log; none (an epoch newer
     * than any the log knows) or a fetch offset below the log start is out
     * of range; an epoch the log left earlier, or one that ends before the
     * fetch offset, diverges there. */
    if (it->last_fetched_epoch >= 0) {
        int32_t epoch;
        int64_t end;
        kc_epoch_cache_end_offset_for(c, it->last_fetched_epoch, lo.log_end_offset, &epoch, &end);
        if (epoch == KC_EPOCH_UNDEFINED || end == KC_EPOCH_UNDEFINED_OFFSET ||
            it->fetch_offset < lo.log_start_offset) {
            it->error_code = KC_ERR_OFFSET_OUT_OF_RANGE;
            return true;
        }
        if (epoch < it->last_fetched_epoch || end < it->fetch_offset) {
            it->diverging_epoch = epoch;
            it->diverging_end = end;
            it->high_watermark = lo.high_watermark;
            it->last_stable = lo.last_stable_offset;
            it->log_start = lo.log_start_offset;
            return true; /* answered at once */
        }
    }
    return false;
}

/* True when the got bytes at p do not hold the whole first batch (its
 * length field, at bytes 8-11 of the batch, counts what follows it). */
static bool first_batch_cut(const uint8_t *p, size_t got)
{
    return got < 12 ||
           got < 12 + (size_t)(((uint32_t)p[8] << 24) | ((uint32_t)p[9] << 16) |
                               ((uint32_t)p[10] << 8) | p[11]);
}

/* UnifiedLog.read of one partition within the partition's and the
 * response's byte limits, appended to f->data: false when the read failed
 * (its error in it). */
static bool fetch_read_log(fetch_t *f, fetch_item_t *it, const kc_topic_t *topic)
{
    int64_t room = f->limit - f->bytes;
    int32_t max = (int32_t)KC_MIN((int64_t)it->max_bytes, room < 0 ? 0 : room);
    int16_t err = 0;
    kc_log_offsets_t offs;
    size_t before = f->data.len;
    /* FetchParams.isolation: a consumer's READ_COMMITTED reads up to the
     * last stable offset (a follower's fetch would read the whole log). */
    int isolation = f->v >= 4 && !f->follower && f->rq.isolation_level == 1
                        ? KC_LOG_READ_COMMITTED
                        : KC_LOG_READ_UNCOMMITTED;
    it->ab_start = it->ab_end = f->aborted.len;
    if (kc_log_read_isolated(f->s->log, topic->id, it->partition, it->fetch_offset, max,
                             f->min_one, isolation, &f->data, &f->aborted, &err, &offs) != 0) {
        f->aborted.len = it->ab_start;
        it->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
        return false;
    }
    it->error_code = err;
    if (err)
        return false; /* A failed read knows no offsets (ReplicaManager.createLogReadResult). */
    it->high_watermark = offs.high_watermark;
    it->last_stable = offs.last_stable_offset;
    it->log_start = offs.log_start_offset;
    /* From v3 a first batch cut by the byte limits is left out, as the
     * client can go on with a larger limit (ReplicaManager.readFromLog). */
    size_t got = f->data.len - before;
    if (f->v >= 3 && got > 0 && first_batch_cut(f->data.data + before, got)) {
        f->data.len = before;
        f->aborted.len = it->ab_start;
    }
    it->ab_end = f->aborted.len;
    it->end = f->data.len;
    if (f->data.len > before) {
        f->min_one = false;
        f->bytes += (int64_t)(f->data.len - before);
    }
    return true;
}

/* ReplicaManager.readFromLog over every partition: v3+ has a response byte
 * limit and returns at least one batch of the first partition with data;
 * v0-2 has a hard limit. */
static void fetch_read_items(fetch_t *f)
{
    const kc_fetch_request_t *rq = &f->rq;
    f->follower = (f->v <= 14 ? rq->replica_id : rq->replica_state.replica_id) >= 0;
    f->min_one = f->v >= 3;
    f->limit = f->v >= 3 && rq->max_bytes >= 0 ? rq->max_bytes : INT32_MAX;
    f->bytes = 0;
    f->any_error = false;
    for (size_t k = 0; k < f->nitems; k++) {
        fetch_item_t *it = &f->items[k];
        it->high_watermark = -1;
        it->last_stable = -1;
        it->log_start = -1;
        it->start = it->end = f->data.len;
        it->ab_start = it->ab_end = f->aborted.len;
        const kc_topic_t *topic = f->v >= 13 ? kc_topics_find_id(f->s->topics, it->topic_id)
                                             : kc_topics_find(f->s->topics, it->topic);
        if (fetch_refuse(f, it, topic) || fetch_check_epochs(f, it, topic) ||
            !fetch_read_log(f, it, topic))
            f->any_error = true;
    }
}

/* FullFetchContext: a new session of every partition read, if the cache has
 * room; its id (0: none) goes into the response. */
static void fetch_new_session(fetch_t *f)
{
    kc_fetch_session_partition_t *sp =
        kc_arena_alloc(&f->arena, (f->nitems ? f->nitems : 1) * sizeof(*sp));
    for (size_t k = 0; k < f->nitems; k++) {
        const fetch_item_t *it = &f->items[k];
        char *name = kc_arena_alloc(&f->arena, (size_t)KC_MAX(it->topic.len, 0) + 1);
        if (it->topic.len > 0)
            memcpy(name, it->topic.ptr, (size_t)it->topic.len);
        name[KC_MAX(it->topic.len, 0)] = '\0';
        sp[k] = (kc_fetch_session_partition_t){
            f->v >= 13 ? "" : name, f->v >= 13 ? it->topic_id : zero_uuid, it->partition,
            it->fetch_offset, it->log_start_offset, it->max_bytes, it->high_watermark,
            it->log_start, it->current_leader_epoch, it->last_fetched_epoch};
    }
    f->resp.session_id = kc_fetch_sessions_create(f->s->fetch_sessions, f->ctx->now_ms,
                                                  f->v >= 13, sp, f->nitems);
}

/* FetchContext.updateAndGenerateResponseData: which partitions the response
 * carries (true in the returned arena array of nitems), and the session it
 * names. IncrementalFetchContext carries only partitions with news; those
 * that returned records move to the end of the session, so others get their
 * turn. */
static bool *fetch_update_session(fetch_t *f)
{
    size_t n = f->nitems;
    bool *carry = kc_arena_alloc(&f->arena, (n ? n : 1) * sizeof(bool));
    for (size_t k = 0; k < n; k++)
        carry[k] = true;
    if (f->kind == CTX_INCREMENTAL) {
        bool *to_end = kc_arena_alloc(&f->arena, (n ? n : 1) * sizeof(bool));
        for (size_t k = 0; k < n; k++) {
            const fetch_item_t *it = &f->items[k];
            carry[k] = kc_fetch_session_must_respond(&f->fs->parts[k], it->error_code,
                                                     it->end - it->start, it->high_watermark,
                                                     it->log_start, true);
            to_end[k] = carry[k] && it->end > it->start;
        }
        kc_fetch_session_reorder(f->fs, to_end);
        f->resp.session_id = f->fs->id;
    } else if (f->kind == CTX_FULL) {
        fetch_new_session(f);
    }
    return carry;
}

/* One partition's answer from what was read (FetchResponse.partitionResponse). */
static void fetch_partition_data(fetch_t *f, const fetch_item_t *it,
                                 kc_fetch_response_partition_data_t *rp)
{
    fetch_partition_init(rp, it->partition, it->error_code);
    rp->high_watermark = it->high_watermark;
    rp->last_stable_offset = it->last_stable;
    rp->log_start_offset = it->log_start;
    if (it->diverging_end >= 0)
        rp->diverging_epoch =
            (kc_fetch_response_epoch_end_offset_t){it->diverging_epoch, it->diverging_end};
    /* A refused partition has the generated default (an empty list);
     * a read one null unless reading committed data, and a failed
     * read null (no fetch data). */
    rp->aborted_transactions.count =
        it->erroneous ? 0 : (f->rq.isolation_level == 1 && !it->error_code ? 0 : -1);
    size_t nab = (it->ab_end - it->ab_start) / sizeof(kc_log_aborted_txn_t);
    if (rp->aborted_transactions.count == 0 && nab > 0) {
        /* The aborted transactions of what was read (FetchResponse's
         * AbortedTransactions, v4+), from the log's transaction index. */
        const kc_log_aborted_txn_t *a =
            (const kc_log_aborted_txn_t *)(const void *)(f->aborted.data + it->ab_start);
        kc_fetch_response_aborted_transaction_t *items =
            kc_arena_alloc(&f->arena, nab * sizeof(*items));
        for (size_t i = 0; i < nab; i++)
            items[i] = (kc_fetch_response_aborted_transaction_t){a[i].producer_id,
                                                                 a[i].first_offset};
        rp->aborted_transactions.items = items;
        rp->aborted_transactions.count = (int32_t)nab;
    }
    rp->records = (kc_bytes_t){it->end > it->start ? f->data.data + it->start
                                                   : (const uint8_t *)"",
                               (int32_t)(it->end - it->start)};
    /* v16+ (KIP-951): a fenced fetcher learns the current leader and its
     * epoch at once (this broker, in the response's NodeEndpoints). */
    if (f->v >= 16 && it->error_code == KC_ERR_FENCED_LEADER_EPOCH)
        rp->current_leader =
            (kc_fetch_response_leader_id_and_epoch_t){f->s->cfg->node_id, it->leader_epoch};
}

/* v16+: the endpoint of the leader named by a partition's CurrentLeader
 * (KafkaApis.handleFetchRequest's nodeEndpoints): this broker, as the
 * listener of the request advertises it. */
static void fetch_node_endpoints(fetch_t *f)
{
    kc_fetch_response_t *resp = &f->resp;
    for (int32_t i = 0; i < resp->responses.count; i++)
        for (int32_t j = 0; j < resp->responses.items[i].partitions.count; j++)
            if (resp->responses.items[i].partitions.items[j].current_leader.leader_id >= 0) {
                kc_fetch_response_node_endpoint_t *ne = kc_arena_alloc(&f->arena, sizeof(*ne));
                memset(ne, 0, sizeof(*ne));
                ne->node_id = f->s->cfg->node_id;
                kc_server_advertised(f->s, f->ctx->conn_id, &ne->host, &ne->port);
                ne->rack = KC_STR_NULL;
                resp->node_endpoints.items = ne;
                resp->node_endpoints.count = 1;
                return;
            }
}

/* The response's topics: the partitions read, then those refused before
 * reading (KafkaApis puts its erroneous list last); consecutive partitions
 * of one topic share a topic entry (FetchResponse.toMessage). */
static void fetch_build_topics(fetch_t *f, const bool *carry)
{
    size_t n = f->nitems, ntopics = 0, npd = 0;
    kc_fetch_response_t *resp = &f->resp;
    resp->responses.items =
        kc_arena_alloc(&f->arena, (n ? n : 1) * sizeof(*resp->responses.items));
    kc_fetch_response_partition_data_t *pds =
        kc_arena_alloc(&f->arena, (n ? n : 1) * sizeof(*pds));
    const fetch_item_t *prev = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < n; k++) {
            if (!carry[k] || f->items[k].erroneous != (pass == 1))
                continue;
            const fetch_item_t *it = &f->items[k];
            bool same = prev && (f->v >= 13 ? memcmp(prev->topic_id.b, it->topic_id.b, 16) == 0
                                            : kc_str_eq(prev->topic, it->topic));
            kc_fetch_response_fetchable_topic_response_t *rt;
            if (!same) {
                rt = &resp->responses.items[ntopics++];
                memset(rt, 0, sizeof(*rt));
                rt->topic = it->topic;
                rt->topic_id = it->topic_id;
                rt->partitions.items = &pds[npd];
                rt->partitions.count = 0;
            } else {
                rt = &resp->responses.items[ntopics - 1];
            }
            /* Partitions of one topic entry are contiguous in pds. */
            rt->partitions.count++;
            fetch_partition_data(f, it, &pds[npd++]);
            prev = it;
        }
    }
    resp->responses.count = (int32_t)ntopics;
}

/* Fills f->resp as KafkaApis.handleFetchRequest answers now; false, with
 * nothing filled, when the request should wait instead (not final, no
 * error, fewer than MinBytes readable, MaxWaitMs > 0). */
static bool fetch_answer(fetch_t *f, bool first, bool final)
{
    const kc_fetch_request_t *rq = &f->rq;
    int16_t session_error;
    f->kind = fetch_context(f->s, rq, f->v, f->ctx->now_ms, first, &session_error, &f->fs);
    if (f->kind == CTX_ERROR) {
        /* SessionErrorContext: the error alone, sessionless, answered at once. */
        f->resp.error_code = session_error;
        return true;
    }
    fetch_collect_items(f);
    fetch_read_items(f);
    if (!final && !f->any_error && f->nitems > 0 && rq->max_wait_ms > 0 &&
        f->bytes < rq->min_bytes)
        return false;
    fetch_build_topics(f, fetch_update_session(f));
    fetch_node_endpoints(f);
    return true;
}

/* Encodes f->resp into res. 0, or KC_EIO (logged) when it does not encode. */
static int fetch_respond(const fetch_t *f, kc_result_t *res)
{
    kc_buf_t b;
    kc_buf_init(&b);
    int rc = kc_fetch_response_encode(&b, f->v, &f->resp);
    if (rc != 0) {
        kc_log_error("server", "cannot encode a Fetch v%d response (%d)", f->v, rc);
        rc = KC_EIO;
    } else {
        kc_req_t rr = {.srv = f->s, .ctx = *f->ctx, .res = res};
        kc_req_respond(&rr, &b);
    }
    kc_buf_deinit(&b);
    return rc;
}

/*
 * Builds the Fetch response from the committed log. With final false and a
 * request that would wait (no error, fewer than MinBytes readable,
 * MaxWaitMs > 0), appends nothing and sets *wait. first marks the request's
 * first evaluation (it updates its fetch session). 0 or KC_EINVAL/KC_EIO.
 */
static int fetch_eval(kc_server_t *s, const kc_request_ctx_t *ctx, const uint8_t *body,
                      size_t body_len, bool first, bool final, kc_result_t *res, bool *wait,
                      int32_t *max_wait_ms)
{
    fetch_t f = {.s = s, .ctx = ctx, .v = ctx->api_version};
    kc_arena_init(&f.arena);
    kc_buf_init(&f.data);
    kc_buf_init(&f.aborted);
    kc_reader_t r;
    kc_reader_init(&r, body, body_len);
    kc_fetch_request_init(&f.rq);
    int rc = 0;
    *wait = false;
    if (kc_fetch_request_decode(&r, f.v, &f.arena, &f.rq) != 0) {
        rc = KC_EINVAL;
    } else if (f.v >= 4 && f.rq.isolation_level != 0 && f.rq.isolation_level != 1) {
        /* IsolationLevel.forId fails: FetchRequest.getErrorResponse. */
        kc_reader_init(&r, body, body_len);
        kc_req_t rr = {.srv = s, .ctx = *ctx, .res = res, .arena = &f.arena};
        rc = kc_req_respond_error(&rr, &r, KC_ERR_UNKNOWN_SERVER_ERROR);
    } else {
        *max_wait_ms = f.rq.max_wait_ms;
        kc_fetch_response_init(&f.resp);
        f.resp.throttle_time_ms = 0;
        f.resp.session_id = 0;
        f.resp.node_endpoints.count = 0;
        f.resp.responses.count = 0;
        if (fetch_answer(&f, first, final))
            rc = fetch_respond(&f, res);
        else
            *wait = true;
    }
    free(f.items);
    kc_buf_deinit(&f.data);
    kc_buf_deinit(&f.aborted);
    kc_arena_deinit(&f.arena);
    return rc;
}

int kc_handle_fetch(kc_req_t *req)
{
    const uint8_t *body = req->body->p;
    size_t len = kc_reader_left(req->body);
    bool wait;
    int32_t max_wait = 0;
    int rc = fetch_eval(req->srv, &req->ctx, body, len, true, false, req->res, &wait, &max_wait);
    if (rc == 0 && wait)
        kc_server_park_fetch(req->srv, &req->ctx, body, len, max_wait);
    return rc;
}

int kc_fetch_complete(kc_server_t *s, const kc_request_ctx_t *ctx, const uint8_t *body,
                      size_t len, bool final, kc_result_t *res, bool *completed)
{
    bool wait;
    int32_t max_wait;
    int rc = fetch_eval(s, ctx, body, len, false, final, res, &wait, &max_wait);
    *completed = rc != 0 || !wait;
    return rc;
}

/* ---- ListOffsets ---- */

/* The oldest ListOffsets version that knows a special timestamp
 * (ReplicaManager.timestampMinSupportedVersion); 0 for another negative one. */
static int16_t list_offsets_timestamp_min_version(int64_t ts)
{
    switch (ts) {
    case -1: /* latest */
    case -2: /* earliest */
        return 1;
    case -3: /* max timestamp (KIP-734) */
        return 7;
    case -4: /* earliest local (KIP-405) */
        return 8;
    case -5: /* latest tiered (KIP-1005) */
        return 9;
    case -6: /* earliest pending upload (KIP-1023) */
        return 11;
    default:
        return 0;
    }
}

/*
 * The leader epoch a ListOffsets answer carries (UnifiedLog.fetchOffsetByTimestamp,
 * Partition.fetchOffsetForTimestamp): latest, the current epoch; earliest
 * (and earliest local: kcoord keeps no remote log), the cache's earliest
 * epoch when it starts at the log start; a record found by timestamp or as
 * the maximum timestamp, the epoch its batch was stamped with (found_epoch;
 * Kafka reads the batch's too, where the cache might no longer reach: the
 * maximum timestamp may lie below the log start); nothing found, none.
 */
static int32_t list_offsets_epoch(const kc_epoch_cache_t *epochs, int64_t ts, int64_t off,
                                  int32_t found_epoch)
{
    const kc_epoch_entry_t *earliest = kc_epoch_cache_earliest(epochs);
    if (ts == -1)
        return kc_epoch_cache_latest(epochs);
    if (ts == -2 || ts == -4)
        return earliest && earliest->start_offset <= off ? earliest->epoch : KC_EPOCH_UNDEFINED;
    if (off >= 0 && (ts >= 0 || ts == -3))
        return found_epoch;
    return KC_EPOCH_UNDEFINED;
}

static void list_offsets_partition(kc_req_t *req, const kc_topic_t *topic, int16_t v,
                                   int8_t isolation, const kc_list_offsets_request_partition_t *p,
                                   kc_list_offsets_response_partition_response_t *rp)
{
    kc_server_t *s = req->srv;
    if (!topic || p->partition_index < 0 || p->partition_index >= topic->partitions) {
        rp->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    int64_t ts = p->timestamp;
    if (v >= 1 && ts < 0 &&
        (list_offsets_timestamp_min_version(ts) == 0 || v < list_offsets_timestamp_min_version(ts))) {
        rp->error_code = KC_ERR_UNSUPPORTED_VERSION;
        return;
    }
    int64_t off = -1, found = -1;
    int32_t found_epoch = KC_EPOCH_UNDEFINED;
    kc_log_offsets_t offs;
    const kc_epoch_cache_t *epochs;
    if (kc_log_epoch_cache(s->log, topic->id, p->partition_index, &epochs, &offs) != 0) {
        rp->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
        return;
    }
    /* Partition.localLogWithEpochOrThrow: a newer epoch is unknown, an
     * older one fenced; -1 alone asks for no check (-2 is fenced too). */
    if (v >= 4 && p->current_leader_epoch != -1) {
        rp->error_code = kc_leader_epoch_check(kc_epoch_cache_latest(epochs),
                                               p->current_leader_epoch);
        if (rp->error_code)
            return;
    }
    int rc = 0;
    if (ts == -5 || ts == -6) {
        /* Latest tiered / earliest pending upload: no remote storage. */
    } else {
        rc = kc_log_find_offset(s->log, topic->id, p->partition_index, ts, &off, &found,
                                &found_epoch);
    }
    if (rc != 0) {
        rp->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
        return;
    }
    /* Partition.fetchOffsetForTimestamp: under READ_COMMITTED the last
     * fetchable offset is the last stable offset: latest answers it, and an
     * offset found at or above it is none. */
    if (isolation == KC_LOG_READ_COMMITTED) {
        if (ts == -1) {
            off = offs.last_stable_offset;
        } else if ((ts >= 0 || ts == -3) && off >= offs.last_stable_offset) {
            off = found = -1;
            found_epoch = KC_EPOCH_UNDEFINED;
        }
    }
    rp->error_code = KC_ERR_NONE;
    if (v == 0) {
        /* Legacy offsets: the requested offset, as a one-element list. */
        if (off >= 0 && p->max_num_offsets > 0) {
            int64_t *z = kc_arena_alloc(req->arena, sizeof(int64_t));
            *z = off;
            rp->old_style_offsets = (kc_int64_array_t){z, 1};
        }
        return;
    }
    rp->offset = off;
    rp->timestamp = found;
    if (v >= 4)
        rp->leader_epoch = list_offsets_epoch(epochs, ts, off, found_epoch);
}

/* TopicPartition.hashCode, spread as Scala's mutable.HashMap spreads it. */
static int32_t topic_partition_hash(kc_str_t topic, int32_t partition)
{
    uint32_t h = (uint32_t)kc_java_topic_partition_hash(topic.ptr, (size_t)KC_MAX(topic.len, 0),
                                                        partition);
    return (int32_t)(h ^ (h >> 16));
}

typedef struct {
    kc_str_t topic;
    int32_t hash; /* topic_partition_hash */
    int32_t topic_hash; /* the topic's Java hash */
    kc_list_offsets_response_partition_response_t resp;
} list_offsets_entry_t;

/* Sorts e (stable) as a Scala mutable.HashMap of cap slots iterates:
 * by slot, then by hash within a slot. */
static void sort_scala_hash_map(list_offsets_entry_t *e, size_t n, uint32_t cap)
{
    for (size_t i = 1; i < n; i++) {
        list_offsets_entry_t x = e[i];
        uint32_t bx = (uint32_t)x.hash & (cap - 1);
        size_t j = i;
        while (j > 0) {
            uint32_t by = (uint32_t)e[j - 1].hash & (cap - 1);
            if (by < bx || (by == bx && e[j - 1].hash <= x.hash))
                break;
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
}

/* A partition's answer before it is looked up, or failed with error:
 * timestamp, offset and leader epoch -1, no legacy offsets. */
static void list_offsets_partition_init(kc_list_offsets_response_partition_response_t *rp,
                                        int32_t partition_index, int16_t error)
{
    memset(rp, 0, sizeof(*rp));
    rp->partition_index = partition_index;
    rp->error_code = error;
    rp->timestamp = -1;
    rp->offset = -1;
    rp->leader_epoch = -1;
    rp->old_style_offsets = (kc_int64_array_t){NULL, 0};
}

/* One topic of a ListOffsets answer with every requested partition failed
 * with `error` (timestamp, offset and leader epoch -1); allocated from the
 * request's arena. */
static void list_offsets_topic_error(kc_req_t *req, const kc_list_offsets_request_topic_t *t,
                                     kc_list_offsets_response_topic_response_t *rt,
                                     int16_t error)
{
    int32_t np = KC_MAX(t->partitions.count, 0);
    rt->name = t->name;
    rt->partitions.items =
        kc_arena_alloc(req->arena, (size_t)(np ? np : 1) * sizeof(*rt->partitions.items));
    rt->partitions.count = np;
    for (int32_t j = 0; j < np; j++)
        list_offsets_partition_init(&rt->partitions.items[j],
                                    t->partitions.items[j].partition_index, error);
}

/* A ListOffsets request in KafkaApis.handleListOffsetRequest's steps: the
 * map of the partitions the client may describe, in req's arena. */
typedef struct {
    kc_req_t *req;
    int16_t v;
    const kc_list_offsets_request_t *rq;
    int32_t nt;              /* requested topics */
    bool *denied;            /* per requested topic: no DESCRIBE on it */
    size_t ndenied;
    list_offsets_entry_t *e; /* the map's entries, in insertion order until sorted */
    size_t ne;
    size_t nkeys; /* puts into the map, repeated keys too (its table grows by them) */
} list_offsets_t;

/* True when the request lists partition j of topic i more than once (its
 * map of partitions then holds one entry, answered INVALID_REQUEST). */
static bool list_offsets_listed_twice(const kc_list_offsets_request_t *rq, int32_t i, int32_t j)
{
    kc_str_t name = rq->topics.items[i].name;
    int32_t index = rq->topics.items[i].partitions.items[j].partition_index;
    for (int32_t i2 = 0; i2 < KC_MAX(rq->topics.count, 0); i2++) {
        const kc_list_offsets_request_topic_t *t2 = &rq->topics.items[i2];
        for (int32_t j2 = 0; j2 < KC_MAX(t2->partitions.count, 0); j2++)
            if ((i2 != i || j2 != j) && kc_str_eq(t2->name, name) &&
                t2->partitions.items[j2].partition_index == index)
                return true;
    }
    return false;
}

/* mutable.HashMap.put of a partition's answer: a new key is appended, a
 * repeated key keeps its place and takes the new value. */
static void list_offsets_put(list_offsets_t *lo, kc_str_t topic,
                             const kc_list_offsets_response_partition_response_t *rp)
{
    size_t at = lo->ne;
    for (size_t k = 0; k < lo->ne && at == lo->ne; k++)
        if (kc_str_eq(lo->e[k].topic, topic) &&
            lo->e[k].resp.partition_index == rp->partition_index)
            at = k;
    lo->nkeys++;
    if (at == lo->ne) {
        lo->e[at].topic = topic;
        lo->e[at].hash = topic_partition_hash(topic, rp->partition_index);
        lo->e[at].topic_hash = kc_java_str_hash(topic);
        lo->ne++;
    }
    lo->e[at].resp = *rp;
}

/* KafkaApis.handleListOffsetRequest's split of the request: DESCRIBE on each
 * topic, then ReplicaManager.fetchOffset of each partition of the topics
 * the client may describe, into the map. */
static void list_offsets_authorize_and_fetch(list_offsets_t *lo)
{
    kc_req_t *req = lo->req;
    const kc_list_offsets_request_t *rq = lo->rq;
    for (int32_t i = 0; i < lo->nt; i++) {
        const kc_list_offsets_request_topic_t *t = &rq->topics.items[i];
        /* DESCRIBE on the topic (KafkaApis.handleListOffsetRequest). */
        lo->denied[i] = !kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_TOPIC, t->name);
        if (lo->denied[i]) {
            lo->ndenied++;
            continue;
        }
        const kc_topic_t *topic = kc_topics_find(req->srv->topics, t->name);
        for (int32_t j = 0; j < KC_MAX(t->partitions.count, 0); j++) {
            const kc_list_offsets_request_partition_t *p = &t->partitions.items[j];
            kc_list_offsets_response_partition_response_t rp;
            list_offsets_partition_init(&rp, p->partition_index, KC_ERR_NONE);
            if (list_offsets_listed_twice(rq, i, j))
                rp.error_code = KC_ERR_INVALID_REQUEST;
            else
                list_offsets_partition(req, topic, lo->v, lo->v >= 2 ? rq->isolation_level : 0,
                                       p, &rp);
            list_offsets_put(lo, t->name, &rp);
        }
    }
}

/* Scala's groupBy of the map by topic: topics in the order of the immutable
 * HashMap it builds (each topic's first entry, in trie order), each topic's
 * partitions a mutable.HashMap of their own. Allocates resp->topics with
 * room for the denied topics, and fills the grouped ones. */
static void list_offsets_group_by_topic(list_offsets_t *lo, kc_list_offsets_response_t *resp)
{
    kc_req_t *req = lo->req;
    list_offsets_entry_t *e = lo->e;
    size_t ne = lo->ne;
    /* Group by topic: the first entry of each topic, in trie order. */
    size_t *firsts = kc_arena_alloc(req->arena, (ne ? ne : 1) * sizeof(size_t));
    size_t nf = 0;
    for (size_t k = 0; k < ne; k++) {
        bool seen = false;
        for (size_t f = 0; f < nf && !seen; f++)
            seen = kc_str_eq(e[firsts[f]].topic, e[k].topic);
        if (!seen)
            firsts[nf++] = k;
    }
    /* Topics in the order of the immutable HashMap groupBy builds. */
    int32_t *hs = kc_arena_alloc(req->arena, (ne ? ne : 1) * sizeof(*hs));
    for (size_t k = 0; k < ne; k++)
        hs[k] = e[k].topic_hash;
    kc_scala_hash_order(hs, firsts, nf);

    size_t room = nf + lo->ndenied;
    resp->topics.items =
        kc_arena_alloc(req->arena, (room ? room : 1) * sizeof(*resp->topics.items));
    resp->topics.count = 0;
    list_offsets_entry_t *group = kc_arena_alloc(req->arena, (ne ? ne : 1) * sizeof(*group));
    for (size_t f = 0; f < nf; f++) {
        kc_str_t name = e[firsts[f]].topic;
        size_t ng = 0;
        for (size_t k = 0; k < ne; k++)
            if (kc_str_eq(e[k].topic, name))
                group[ng++] = e[k];
        /* Each topic's partitions are a map of their own. */
        sort_scala_hash_map(group, ng, (uint32_t)kc_scala_hash_cap(ng));
        kc_list_offsets_response_topic_response_t *rt = &resp->topics.items[resp->topics.count++];
        rt->name = name;
        rt->partitions.items = kc_arena_alloc(req->arena, ng * sizeof(*rt->partitions.items));
        rt->partitions.count = (int32_t)ng;
        for (size_t k = 0; k < ng; k++)
            rt->partitions.items[k] = group[k].resp;
    }
}

/*
 * ListOffsets as KafkaApis and ReplicaManager.fetchOffset answer it. The
 * partitions the client may describe become one map entry per partition (a
 * partition listed twice is one entry, INVALID_REQUEST); the answer groups
 * them by topic in the iteration orders of Kafka's Scala maps: topics in
 * immutable.HashMap order, partitions of a topic in mutable.HashMap order.
 * Topics the client may not describe follow, as requested.
 */
int kc_handle_list_offsets(kc_req_t *req)
{
    int16_t v = req->ctx.api_version;
    kc_list_offsets_request_t rq;
    kc_list_offsets_request_init(&rq);
    kc_reader_t start = *req->body;
    if (kc_list_offsets_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_list_offsets_response_t resp;
    kc_list_offsets_response_init(&resp);
    resp.throttle_time_ms = 0;
    int32_t nt = rq.topics.count > 0 ? rq.topics.count : 0;
    /* IsolationLevel.forId fails: ListOffsetsRequest.getErrorResponse. */
    if (v >= 2 && rq.isolation_level != 0 && rq.isolation_level != 1)
        return kc_req_respond_error(req, &start, KC_ERR_UNKNOWN_SERVER_ERROR);
    size_t np_all = 0;
    for (int32_t i = 0; i < nt; i++)
        np_all += (size_t)KC_MAX(rq.topics.items[i].partitions.count, 0);
    list_offsets_t lo = {.req = req, .v = v, .rq = &rq, .nt = nt};
    lo.e = kc_arena_alloc(req->arena, (np_all ? np_all : 1) * sizeof(*lo.e));
    lo.denied = kc_arena_alloc(req->arena, (size_t)(nt ? nt : 1) * sizeof(bool));
    list_offsets_authorize_and_fetch(&lo);
    sort_scala_hash_map(lo.e, lo.ne, (uint32_t)kc_scala_hash_cap(lo.nkeys));
    list_offsets_group_by_topic(&lo, &resp);
    for (int32_t i = 0; i < nt; i++) {
        if (!lo.denied[i])
            continue;
        list_offsets_topic_error(req, &rq.topics.items[i],
                                 &resp.topics.items[resp.topics.count++],
                                 KC_ERR_TOPIC_AUTHORIZATION_FAILED);
    }
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_list_offsets_response_encode(&b, v, &resp), &b);
}

/* ---- transaction markers ---- */

int kc_server_write_txn_marker(kc_server_t *s, const char *topic, int32_t partition,
                               int64_t producer_id, int16_t producer_epoch, bool commit,
                               int16_t transaction_version)
{
    const kc_topic_t *t = kc_topics_find(s->topics, kc_str(topic));
    if (!t || partition < 0 || partition >= t->partitions) {
        kc_log_info("server", "no %s marker of producer %lld for %s-%d: the partition is gone",
                    commit ? "COMMIT" : "ABORT", (long long)producer_id, topic, partition);
        return 0;
    }
    kc_log_marker_result_t mr;
    /* The coordinator epoch: the one __transaction_state partition's leader epoch, 0. */
    int rc = kc_log_write_marker(s->log, t->id, partition, producer_id, producer_epoch, commit, 0,
                                 transaction_version, kc_server_wall_ms(), &mr);
    if (rc != 0) {
        kc_log_error("server", "the %s marker of producer %lld for %s-%d failed (%d)",
                     commit ? "COMMIT" : "ABORT", (long long)producer_id, topic, partition, rc);
        return -1;
    }
    if (mr.error_code != KC_ERR_NONE)
        /* Kafka's marker channel gives up on the partition for such an answer. */
        kc_log_warn("server", "the %s marker of producer %lld epoch %d for %s-%d was refused (%d)",
                    commit ? "COMMIT" : "ABORT", (long long)producer_id, producer_epoch, topic,
                    partition, mr.error_code);
    return 0;
}

/* ---- InitProducerId ---- */


int kc_handle_init_producer_id(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_init_producer_id_request_t rq;
    kc_init_producer_id_request_init(&rq);
    if (kc_init_producer_id_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_init_producer_id_response_t resp;
    kc_init_producer_id_response_init(&resp);
    resp.throttle_time_ms = 0;
    resp.producer_id = -1;
    resp.producer_epoch = -1;
    if (kc_str_is_null(rq.transactional_id) &&
        !kc_req_authorized_cluster(req, KC_OP_IDEMPOTENT_WRITE) &&
        !kc_req_authorized_any(req, KC_OP_WRITE, KC_RES_TOPIC)) {
        /* An idempotent producer needs IDEMPOTENT_WRITE on the cluster or
         * WRITE on some topic (KafkaApis.handleInitProducerIdRequest). */
        resp.error_code = KC_ERR_CLUSTER_AUTHORIZATION_FAILED;
    } else if (!kc_str_is_null(rq.transactional_id)) {
        resp.error_code =
            kc_txn_api_init_producer_id(req, &rq, &resp.producer_id, &resp.producer_epoch);
    } else {
        int64_t pid;
        if (kc_log_next_producer_id(s->log, &pid) != 0) {
            resp.error_code = KC_ERR_COORDINATOR_NOT_AVAILABLE;
        } else {
            resp.error_code = KC_ERR_NONE;
            resp.producer_id = pid;
            resp.producer_epoch = 0;
        }
    }
    kc_buf_t b;
    kc_buf_init(&b);
    int rc = kc_init_producer_id_response_encode(&b, v, &resp);
    if (rc != 0)
        return kc_req_respond_encoded(req, rc, &b);
    kc_response_t *r = kc_req_respond(req, &b);
    kc_buf_deinit(&b);
    if (resp.error_code == KC_ERR_NONE) {
        /* The id block may not have been persisted: never hand out the id then. */
        resp.error_code = KC_ERR_COORDINATOR_NOT_AVAILABLE;
        resp.producer_id = -1;
        resp.producer_epoch = -1;
        if (kc_init_producer_id_response_encode(&r->error_body, v, &resp) != 0)
            kc_buf_reset(&r->error_body);
    }
    return 0;
}

/* ---- CreatePartitions ---- */

int kc_handle_create_partitions(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_create_partitions_request_t rq;
    kc_create_partitions_request_init(&rq);
    if (kc_create_partitions_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_create_partitions_response_t resp;
    kc_create_partitions_response_init(&resp);
    resp.throttle_time_ms = 0;
    int32_t n = rq.topics.count > 0 ? rq.topics.count : 0;
    kc_create_partitions_response_topic_result_t *out =
        kc_arena_alloc(req->arena, (size_t)(n ? n : 1) * sizeof(*out));
    int32_t nout = 0;
    for (int32_t i = 0; i < n; i++) {
        kc_create_partitions_request_topic_t *t = &rq.topics.items[i];
        bool seen = false, dup = false;
        for (int32_t j = 0; j < n; j++) {
            if (j != i && kc_str_eq(rq.topics.items[j].name, t->name)) {
                dup = true;
                seen = seen || j < i;
            }
        }
        if (seen)
            continue; /* a duplicated name is answered once */
        kc_create_partitions_response_topic_result_t *r = &out[nout++];
        r->name = t->name;
        r->error_code = KC_ERR_NONE;
        r->error_message = KC_STR_NULL;
        char msg[256];
        const kc_topic_t *topic = kc_topics_find(s->topics, t->name);
        if (dup) {
            r->error_code = KC_ERR_INVALID_REQUEST;
            r->error_message = kc_str("Duplicate topic name.");
        } else if (!kc_req_authorized(req, KC_OP_ALTER, KC_RES_TOPIC, t->name)) {
            /* ALTER on the topic (ControllerApis.createPartitions). */
            r->error_code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        } else if (!topic) {
            r->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        } else if (t->count == topic->partitions) {
            snprintf(msg, sizeof(msg), "Topic already has %d partition(s).", topic->partitions);
            r->error_code = KC_ERR_INVALID_PARTITIONS;
        } else if (t->count < topic->partitions) {
            snprintf(msg, sizeof(msg),
                     "The topic %.*s currently has %d partition(s); %d would not be an increase.",
                     (int)t->name.len, t->name.ptr, topic->partitions, t->count);
            r->error_code = KC_ERR_INVALID_PARTITIONS;
        } else if (t->assignments.count >= 0 &&
                   t->assignments.count != t->count - topic->partitions) {
            snprintf(msg, sizeof(msg),
                     "Attempted to add %d additional partition(s), but only %d assignment(s) "
                     "were specified.",
                     t->count - topic->partitions, t->assignments.count);
            r->error_code = KC_ERR_INVALID_REPLICA_ASSIGNMENT;
        } else {
            for (int32_t a = 0; a < t->assignments.count && r->error_code == 0; a++) {
                kc_int32_array_t ids = t->assignments.items[a].broker_ids;
                if (ids.count != 1 || ids.items[0] != s->cfg->node_id) {
                    snprintf(msg, sizeof(msg),
                             "The manual partition assignment includes a broker that is not "
                             "registered or a replication factor other than 1.");
                    r->error_code = KC_ERR_INVALID_REPLICA_ASSIGNMENT;
                }
            }
            if (r->error_code == 0 && !rq.validate_only) {
                int32_t before = topic->partitions;
                if (kc_topics_set_partitions(s->topics, t->name, t->count) != 0) {
                    r->error_code = KC_ERR_UNKNOWN_SERVER_ERROR;
                } else {
                    kc_log_info("server", "topic %s: partitions %d -> %d", topic->name, before,
                                t->count);
                    kc_coord_topic_updated(s->coord, t->name);
                }
            }
        }
        if (r->error_code != 0 && r->error_code != KC_ERR_UNKNOWN_TOPIC_OR_PARTITION &&
            kc_str_is_null(r->error_message)) {
            size_t len = strlen(msg);
            char *p = kc_arena_alloc(req->arena, len + 1);
            memcpy(p, msg, len);
            r->error_message = (kc_str_t){p, (int32_t)len};
        }
    }
    resp.results.items = out;
    resp.results.count = nout;
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_create_partitions_response_encode(&b, v, &resp), &b);
}

/* ---- DeleteTopics ---- */

static bool uuid_eq(kc_uuid_t a, kc_uuid_t b)
{
    return memcmp(a.b, b.b, 16) == 0;
}

/* Deletes one topic: its log, its committed offsets, then the topic itself. */
static int16_t delete_topic(kc_req_t *req, const kc_topic_t *topic)
{
    kc_server_t *s = req->srv;
    kc_uuid_t id = topic->id;
    char *name = kc_xstrdup(topic->name);
    int16_t err = KC_ERR_NONE;
    if (kc_log_delete_topic(s->log, id) != 0 || kc_topics_delete(s->topics, kc_str(name)) != 0) {
        err = KC_ERR_UNKNOWN_SERVER_ERROR;
    } else {
        kc_coord_topic_deleted(s->coord, kc_str(name), req->ctx.now_ms, req->res);
        kc_log_info("server", "deleted topic %s", name);
    }
    free(name);
    return err;
}

/* A DeleteTopics request in ControllerApis.deleteTopics' steps: the
 * requested (name, id) entries and the results so far, in req's arena. */
typedef struct {
    kc_req_t *req;
    const kc_delete_topics_request_delete_topic_state_t *in; /* v0-5 names, v6 either */
    int32_t n;
    bool cluster_delete; /* DELETE on the cluster */
    kc_delete_topics_response_deletable_topic_result_t *out;
    int32_t nout;
} delete_topics_t;

/* Appends one result. */
static void delete_topics_result(delete_topics_t *d, kc_str_t name, kc_uuid_t id, int16_t code,
                                 kc_str_t msg)
{
    kc_delete_topics_response_deletable_topic_result_t *r = &d->out[d->nout++];
    r->name = name;
    r->topic_id = id;
    r->error_code = code;
    r->error_message = msg;
}

/* ControllerApis.deleteTopics' checks of the request before any lookup:
 * neither or both of name and id, then a name or id listed more than once
 * (answered once). True when entry i was answered (or left out). */
static bool delete_topics_refuse_invalid(delete_topics_t *d, int32_t i)
{
    const kc_delete_topics_request_delete_topic_state_t *in = d->in;
    bool by_id = kc_str_is_null(in[i].name);
    if (by_id && uuid_eq(in[i].topic_id, zero_uuid)) {
        delete_topics_result(d, KC_STR_NULL, zero_uuid, KC_ERR_INVALID_REQUEST,
                             kc_str("Neither topic name nor id were specified."));
        return true;
    }
    if (!by_id && !uuid_eq(in[i].topic_id, zero_uuid)) {
        delete_topics_result(d, in[i].name, in[i].topic_id, KC_ERR_INVALID_REQUEST,
                             kc_str("You may not specify both topic name and topic id."));
        return true;
    }
    bool dup = false, first = true;
    for (int32_t j = 0; j < d->n; j++) {
        if (j == i || kc_str_is_null(in[j].name) != by_id)
            continue;
        bool same = by_id ? uuid_eq(in[j].topic_id, in[i].topic_id)
                          : kc_str_eq(in[j].name, in[i].name) && uuid_eq(in[j].topic_id, zero_uuid);
        if (same) {
            dup = true;
            if (j < i)
                first = false;
        }
    }
    if (dup && first)
        delete_topics_result(d, by_id ? KC_STR_NULL : in[i].name,
                             by_id ? in[i].topic_id : zero_uuid, KC_ERR_INVALID_REQUEST,
                             kc_str(by_id ? "Duplicate topic id." : "Duplicate topic name."));
    return dup;
}

/* DELETE on the cluster or the topic; without DESCRIBE a client does not
 * learn whether a named topic exists (ControllerApis.deleteTopics). True
 * when entry i was answered TOPIC_AUTHORIZATION_FAILED. */
static bool delete_topics_refuse_unauthorized(delete_topics_t *d, int32_t i,
                                              const kc_topic_t *topic)
{
    if (d->cluster_delete)
        return false;
    const kc_delete_topics_request_delete_topic_state_t *in = &d->in[i];
    bool by_id = kc_str_is_null(in->name);
    kc_str_t nm = topic ? kc_str(topic->name) : in->name;
    bool describable = kc_req_authorized(d->req, KC_OP_DESCRIBE, KC_RES_TOPIC, nm);
    bool deletable = kc_req_authorized(d->req, KC_OP_DELETE, KC_RES_TOPIC, nm);
    if (!by_id && !describable) {
        delete_topics_result(d, in->name, zero_uuid, KC_ERR_TOPIC_AUTHORIZATION_FAILED,
                             KC_STR_NULL);
        return true;
    }
    if (topic && !deletable) {
        delete_topics_result(d, by_id && !describable ? KC_STR_NULL : nm,
                             by_id ? in->topic_id : zero_uuid, KC_ERR_TOPIC_AUTHORIZATION_FAILED,
                             KC_STR_NULL);
        return true;
    }
    return false;
}

/* True when another entry of the other kind (a name for an id, an id for a
 * name) names the same topic: answered once, on the name's entry. */
static bool delete_topics_refuse_named_twice(delete_topics_t *d, int32_t i,
                                             const kc_topic_t *topic)
{
    kc_server_t *s = d->req->srv;
    const kc_delete_topics_request_delete_topic_state_t *in = d->in;
    bool by_id = kc_str_is_null(in[i].name);
    bool both = false;
    for (int32_t j = 0; j < d->n && !both; j++) {
        if (j == i || kc_str_is_null(in[j].name) == by_id)
            continue;
        const kc_topic_t *o = kc_str_is_null(in[j].name)
                                  ? kc_topics_find_id(s->topics, in[j].topic_id)
                                  : kc_topics_find(s->topics, in[j].name);
        both = o == topic;
    }
    if (both && !by_id)
        delete_topics_result(d, in[i].name, topic->id, KC_ERR_INVALID_REQUEST,
                             kc_str("The provided topic name maps to an ID that was already "
                                    "supplied."));
    return both;
}

/* One entry through ControllerApis.deleteTopics: the request checks,
 * authorization, existence, then the deletion. */
static void delete_topics_entry(delete_topics_t *d, int32_t i)
{
    kc_req_t *req = d->req;
    kc_server_t *s = req->srv;
    const kc_delete_topics_request_delete_topic_state_t *in = &d->in[i];
    if (delete_topics_refuse_invalid(d, i))
        return;
    bool by_id = kc_str_is_null(in->name);
    const kc_topic_t *topic = by_id ? kc_topics_find_id(s->topics, in->topic_id)
                                    : kc_topics_find(s->topics, in->name);
    if (delete_topics_refuse_unauthorized(d, i, topic))
        return;
    if (!topic) {
        if (by_id)
            delete_topics_result(d, KC_STR_NULL, in->topic_id, KC_ERR_UNKNOWN_TOPIC_ID,
                                 KC_STR_NULL);
        else
            delete_topics_result(d, in->name, zero_uuid, KC_ERR_UNKNOWN_TOPIC_OR_PARTITION,
                                 KC_STR_NULL);
        return;
    }
    if (delete_topics_refuse_named_twice(d, i, topic))
        return;
    kc_str_t name = {kc_arena_alloc(req->arena, strlen(topic->name) + 1), 0};
    memcpy((char *)name.ptr, topic->name, strlen(topic->name));
    name.len = (int32_t)strlen(topic->name);
    kc_uuid_t id = topic->id;
    int16_t err = delete_topic(req, topic);
    delete_topics_result(d, name, id, err, KC_STR_NULL);
}

/* DeleteTopics as Kafka's controller answers it (ControllerApis.deleteTopics):
 * each entry in request order, bad entries and duplicates refused first. */
int kc_handle_delete_topics(kc_req_t *req)
{
    int16_t v = req->ctx.api_version;
    kc_delete_topics_request_t rq;
    kc_delete_topics_request_init(&rq);
    if (kc_delete_topics_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    /* One list of (name, id) entries: v0-5 names, v6 either. */
    int32_t n = v >= 6 ? KC_MAX(rq.topics.count, 0) : KC_MAX(rq.topic_names.count, 0);
    kc_delete_topics_request_delete_topic_state_t *in =
        kc_arena_alloc(req->arena, (size_t)(n ? n : 1) * sizeof(*in));
    for (int32_t i = 0; i < n; i++) {
        if (v >= 6) {
            in[i] = rq.topics.items[i];
        } else {
            in[i].name = rq.topic_names.items[i];
            in[i].topic_id = zero_uuid;
        }
    }
    kc_delete_topics_response_t resp;
    kc_delete_topics_response_init(&resp);
    resp.throttle_time_ms = 0;
    delete_topics_t d = {.req = req, .in = in, .n = n};
    d.out = kc_arena_alloc(req->arena, (size_t)(n ? n : 1) * sizeof(*d.out));
    d.cluster_delete = kc_req_authorized_cluster(req, KC_OP_DELETE);
    for (int32_t i = 0; i < n; i++)
        delete_topics_entry(&d, i);
    resp.responses.items = d.out;
    resp.responses.count = d.nout;
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_delete_topics_response_encode(&b, v, &resp), &b);
}

/* ---- DeleteRecords ---- */

int kc_handle_delete_records(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_delete_records_request_t rq;
    kc_delete_records_request_init(&rq);
    if (kc_delete_records_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_delete_records_response_t resp;
    kc_delete_records_response_init(&resp);
    resp.throttle_time_ms = 0;
    int32_t nt = KC_MAX(rq.topics.count, 0);
    resp.topics.items = kc_arena_alloc(req->arena, (size_t)(nt ? nt : 1) * sizeof(*resp.topics.items));
    resp.topics.count = nt;
    bool changed = false;
    for (int32_t i = 0; i < nt; i++) {
        kc_delete_records_request_delete_records_topic_t *t = &rq.topics.items[i];
        kc_delete_records_response_delete_records_topic_result_t *rt = &resp.topics.items[i];
        const kc_topic_t *topic = kc_topics_find(s->topics, t->name);
        int32_t np = KC_MAX(t->partitions.count, 0);
        rt->name = t->name;
        rt->partitions.items =
            kc_arena_alloc(req->arena, (size_t)(np ? np : 1) * sizeof(*rt->partitions.items));
        rt->partitions.count = np;
        for (int32_t j = 0; j < np; j++) {
            kc_delete_records_request_delete_records_partition_t *p = &t->partitions.items[j];
            kc_delete_records_response_delete_records_partition_result_t *rp =
                &rt->partitions.items[j];
            rp->partition_index = p->partition_index;
            rp->low_watermark = -1;
            /* DELETE on the topic (KafkaApis.handleDeleteRecordsRequest). */
            if (!kc_req_authorized(req, KC_OP_DELETE, KC_RES_TOPIC, t->name)) {
                rp->error_code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
                continue;
            }
            if (!topic || p->partition_index < 0 || p->partition_index >= topic->partitions) {
                rp->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
                continue;
            }
            if (!kc_topic_cleanup_deletes(s, topic)) {
                /* Partition.deleteRecordsOnLeader (the response has no message) */
                kc_log_info("server",
                            "DeleteRecords on %s-%d refused: cleanup.policy has no delete",
                            topic->name, p->partition_index);
                rp->error_code = KC_ERR_POLICY_VIOLATION;
                continue;
            }
            kc_log_offsets_t before;
            int16_t err = 0;
            int64_t low = -1;
            if (kc_log_offsets(s->log, topic->id, p->partition_index, &before) != 0 ||
                kc_log_delete_records(s->log, topic->id, p->partition_index, p->offset, &low,
                                      &err) != 0) {
                rp->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
                continue;
            }
            rp->error_code = err;
            rp->low_watermark = err ? -1 : low;
            if (!err && low > before.log_start_offset) {
                changed = true;
                kc_log_info("server", "topic %s partition %d: log start offset %lld -> %lld",
                            topic->name, p->partition_index, (long long)before.log_start_offset,
                            (long long)low);
            }
        }
    }
    kc_buf_t b;
    kc_buf_init(&b);
    int rc = kc_delete_records_response_encode(&b, v, &resp);
    if (rc != 0)
        return kc_req_respond_encoded(req, rc, &b);
    kc_response_t *r = kc_req_respond(req, &b);
    kc_buf_deinit(&b);
    if (changed) {
        /* The new log start offsets reach storage with this iteration's commit. */
        for (int32_t i = 0; i < nt; i++)
            for (int32_t j = 0; j < resp.topics.items[i].partitions.count; j++) {
                kc_delete_records_response_delete_records_partition_result_t *rp =
                    &resp.topics.items[i].partitions.items[j];
                if (rp->error_code == 0) {
                    rp->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
                    rp->low_watermark = -1;
                }
            }
        if (kc_delete_records_response_encode(&r->error_body, v, &resp) != 0)
            kc_buf_reset(&r->error_body);
    }
    return 0;
}

/* ---- retention ---- */

/* Batches one timer run may delete: keeps each loop iteration short. */
#define RETENTION_BATCH_BUDGET 512

static void retention_arm(kc_server_t *s, int64_t delay_ms)
{
    if (delay_ms < 0)
        delay_ms = 0;
    struct timeval tv = {(time_t)(delay_ms / 1000), (suseconds_t)((delay_ms % 1000) * 1000)};
    evtimer_add(s->retention_timer, &tv);
}

/*
 * LogManager's cleanupLogs task: every log.retention.check.interval.ms, a
 * pass over every partition applies its topic's retention.ms and
 * retention.bytes. A pass is split across loop iterations: each run deletes
 * at most RETENTION_BATCH_BUDGET batches, then yields and continues from
 * where it stopped (by topic position and partition).
 */
static void retention_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_server_t *s = arg;
    int64_t now = kc_server_wall_ms();
    size_t budget = RETENTION_BATCH_BUDGET;
    while (budget > 0 && s->retention_topic < kc_topics_count(s->topics)) {
        const kc_topic_t *t = kc_topics_at(s->topics, s->retention_topic);
        if (s->retention_partition >= t->partitions) {
            s->retention_topic++;
            s->retention_partition = 0;
            continue;
        }
        if (!kc_topic_cleanup_deletes(s, t)) { /* UnifiedLog.deleteOldSegments: compact only */
            s->retention_topic++;
            s->retention_partition = 0;
            continue;
        }
        int64_t ms = kc_topic_retention_ms(s, t), bytes = kc_topic_retention_bytes(s, t);
        size_t deleted = 0;
        bool more = false;
        int rc = kc_log_apply_retention(s->log, t->id, s->retention_partition, ms, bytes, now,
                                        budget, &deleted, &more);
        if (rc != 0) {
            kc_log_warn("server", "retention of %s-%d failed (%d)", t->name,
                        s->retention_partition, rc);
            more = false;
        } else if (deleted > 0) {
            kc_log_info("server", "retention deleted %zu batches of %s-%d", deleted, t->name,
                        s->retention_partition);
        }
        budget -= KC_MIN(deleted, budget);
        if (!more)
            s->retention_partition++;
    }
    if (s->retention_topic < kc_topics_count(s->topics)) {
        retention_arm(s, 0); /* the pass goes on in the next iteration */
        return;
    }
    s->retention_topic = 0;
    s->retention_partition = 0;
    retention_arm(s, s->cfg->log_retention_check_interval_ms);
}

/* ---- flush scheduler ---- */

/* A timeval for ms, capped where libevent's arithmetic stays safe. */
static struct timeval ms_timeval(int64_t ms)
{
    if (ms < 0)
        ms = 0;
    if (ms > (int64_t)1000000000 * 1000)
        ms = (int64_t)1000000000 * 1000;
    return (struct timeval){(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
}

/* LogManager's kafka-log-flusher task: every log.flush.scheduler.interval.ms,
 * logs whose flush.ms has passed since their last flush are flushed. */
static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_server_t *s = arg;
    if (kc_server_maybe_flush(s, true))
        kc_log_debug("server", "scheduled flush to disk");
    struct timeval tv = ms_timeval(s->cfg->log_flush_scheduler_interval_ms);
    evtimer_add(s->flush_timer, &tv);
}

/* ---- log cleaner ---- */

/* Batch bytes one slice of a clean reads: keeps each loop iteration short. */
#define CLEAN_SLICE_BYTES ((size_t)1 << 20)

static void cleaner_arm(kc_server_t *s, int64_t delay_ms)
{
    struct timeval tv = ms_timeval(delay_ms);
    evtimer_add(s->cleaner_timer, &tv);
}

/*
 * LogCleanerManager.grabFilthiestCompactedLog: among the partitions of the
 * topics whose cleanup.policy has compact, the eligible one with the
 * largest dirty ratio. False when there is none.
 */
static bool cleaner_pick(kc_server_t *s, int64_t now, const kc_topic_t **topic,
                         int32_t *partition, kc_log_clean_candidate_t *best)
{
    *topic = NULL;
    for (size_t i = 0; i < kc_topics_count(s->topics); i++) {
        const kc_topic_t *t = kc_topics_at(s->topics, i);
        if (!kc_topic_cleanup_compacts(s, t))
            continue;
        for (int32_t p = 0; p < t->partitions; p++) {
            kc_log_clean_candidate_t c;
            if (kc_log_clean_evaluate(s->log, t->id, p, now, &c) != 0) {
                kc_log_warn("server", "cannot weigh %s-%d for cleaning", t->name, p);
                continue;
            }
            if (c.eligible && (!*topic || c.cleanable_ratio > best->cleanable_ratio)) {
                *topic = t;
                *partition = p;
                *best = c;
            }
        }
    }
    return *topic != NULL;
}

/*
 * The cleaner thread's loop (CleanerThread.doWork) on the event loop: picks
 * the filthiest compacted partition and cleans it one slice per loop
 * iteration (each slice's writes commit with that iteration), then looks
 * for the next at once; with nothing to clean it waits
 * log.cleaner.backoff.ms.
 */
static void cleaner_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_server_t *s = arg;
    int64_t now = kc_server_wall_ms();
    kc_uuid_t tid;
    int32_t partition;
    if (!kc_log_clean_busy(s->log, &tid, &partition)) {
        const kc_topic_t *t;
        kc_log_clean_candidate_t c;
        if (!cleaner_pick(s, now, &t, &partition, &c)) {
            cleaner_arm(s, s->cfg->log_cleaner_backoff_ms);
            return;
        }
        if (kc_log_clean_begin(s->log, t->id, partition, now) != 0) {
            kc_log_warn("server", "cannot start cleaning %s-%d", t->name, partition);
            cleaner_arm(s, s->cfg->log_cleaner_backoff_ms);
            return;
        }
        kc_log_info("server", "cleaning %s-%d: dirty ratio %.3f, offsets %lld to %lld", t->name,
                    partition, c.cleanable_ratio, (long long)c.first_dirty_offset,
                    (long long)c.first_uncleanable_offset);
        tid = t->id;
    }
    const kc_topic_t *t = kc_topics_find_id(s->topics, tid);
    bool done = false;
    kc_log_clean_stats_t st = {0};
    int rc = kc_log_clean_step(s->log, CLEAN_SLICE_BYTES, &done, &st);
    if (rc != 0) {
        kc_log_warn("server", "cleaning %s-%d failed (%d)", t ? t->name : "?", partition, rc);
        cleaner_arm(s, s->cfg->log_cleaner_backoff_ms);
        return;
    }
    if (done && st.end_offset > 0)
        kc_log_info("server",
                    "cleaned %s-%d up to offset %lld: %lld of %lld records removed, %lld batches "
                    "deleted and %lld rewritten, %lld bytes read, %lld kept",
                    t ? t->name : "?", partition, (long long)st.end_offset,
                    (long long)st.records_removed, (long long)st.records_read,
                    (long long)st.batches_deleted, (long long)st.batches_rewritten,
                    (long long)st.bytes_read, (long long)st.bytes_written);
    cleaner_arm(s, 0); /* the next slice, or the next partition */
}

void kc_log_api_start(kc_server_t *s)
{
    if (s->cfg->log_cleaner_enable) {
        s->cleaner_timer = evtimer_new(s->base, cleaner_cb, s);
        cleaner_arm(s, 0);
    }
    /* The default (Long.MAX_VALUE) never runs: the OS flushes. */
    if (s->cfg->log_flush_scheduler_interval_ms < INT64_MAX) {
        s->flush_timer = evtimer_new(s->base, flush_cb, s);
        struct timeval tv = ms_timeval(s->cfg->log_flush_scheduler_interval_ms);
        evtimer_add(s->flush_timer, &tv);
    }
    s->fetch_sessions = kc_fetch_sessions_new(s->cfg->max_incremental_fetch_session_cache_slots,
                                              KC_FETCH_SESSION_EVICTION_MS,
                                              (uint64_t)kc_server_wall_ms() ^ (uint64_t)(uintptr_t)s);
    s->retention_timer = evtimer_new(s->base, retention_cb, s);
    retention_arm(s, s->cfg->log_retention_check_interval_ms);
}

void kc_log_api_stop(kc_server_t *s)
{
    if (s->flush_timer)
        event_free(s->flush_timer);
    s->flush_timer = NULL;
    if (s->retention_timer)
        event_free(s->retention_timer);
    s->retention_timer = NULL;
    if (s->cleaner_timer)
        event_free(s->cleaner_timer);
    s->cleaner_timer = NULL;
    kc_fetch_sessions_free(s->fetch_sessions);
    s->fetch_sessions = NULL;
}
