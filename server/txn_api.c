/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction APIs, as KafkaApis hands them to Kafka's transaction and
 * group coordinators: InitProducerId with a transactional id,
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit,
 * DescribeTransactions and ListTransactions. Authorization and the topic
 * checks are here; the state machine is coordinator/txn (txn.h), the
 * pending transactional offsets the group coordinator's. The markers a
 * transaction's end writes go into the same batch as its records: control
 * batches into the data partitions (the partition log), and the end of the
 * pending offsets in the group coordinator for __consumer_offsets.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"
#include "server_int.h"

#define OFFSETS_TOPIC "__consumer_offsets"

/* ---- the coordinator's environment ---------------------------------------- */

static int16_t next_producer_id(void *ctx, int64_t *out)
{
    kc_server_t *s = ctx;
    return kc_log_next_producer_id(s->log, out) == 0 ? KC_ERR_NONE
                                                     : KC_ERR_COORDINATOR_NOT_AVAILABLE;
}

static int write_markers(void *ctx, int64_t producer_id, int16_t producer_epoch, bool commit,
                         int16_t transaction_version, const kc_txn_partition_t *parts,
                         size_t nparts, kc_result_t *res)
{
    kc_server_t *s = ctx;
    for (size_t i = 0; i < nparts; i++) {
        if (strcmp(parts[i].topic, OFFSETS_TOPIC) == 0) {
            kc_coord_txn_offsets_end(s->coord, producer_id, commit, parts[i].partition, res);
            continue;
        }
        if (kc_server_write_txn_marker(s, parts[i].topic, parts[i].partition, producer_id,
                                       producer_epoch, commit, transaction_version) != 0)
            return -1;
    }
    return 0;
}

kc_txn_coord_t *kc_txn_api_new(kc_server_t *s, const kc_coord_config_t *cc)
{
    kc_txn_config_t tc;
    kc_txn_config_defaults(&tc);
    tc.max_timeout_ms = cc->transaction_max_timeout_ms;
    tc.id_expiration_ms = cc->transactional_id_expiration_ms;
    tc.abort_interval_ms = cc->transaction_abort_interval_ms;
    tc.remove_interval_ms = cc->transaction_remove_interval_ms;
    tc.num_partitions = cc->transaction_state_log_num_partitions;
    kc_txn_env_t env = {next_producer_id, write_markers, s};
    return kc_txn_new(&tc, &env);
}

/* PRODUCER_FENCED came with the versions given (v4 of InitProducerId, v2 of
 * the others); older ones are told INVALID_PRODUCER_EPOCH. */
static int16_t fenced_for(int16_t err, int16_t version, int16_t fenced_from)
{
    return err == KC_ERR_PRODUCER_FENCED && version < fenced_from ? KC_ERR_INVALID_PRODUCER_EPOCH
                                                                  : err;
}

/* Answers req with m, a generated response of msg, and returns from the
 * handler; with_records (the batch holds records of the request) also
 * encodes err_m as the body to send should they not commit. */
#define RESPOND(req, msg, m, err_m, with_records)                                                  \
    do {                                                                                           \
        kc_buf_t b_;                                                                               \
        kc_buf_init(&b_);                                                                          \
        int rc_ = kc_##msg##_encode(&b_, (req)->ctx.api_version, (m));                             \
        if (rc_ != 0)                                                                              \
            return kc_req_respond_encoded((req), rc_, &b_);                                        \
        kc_response_t *r_ = kc_req_respond((req), &b_);                                            \
        kc_buf_deinit(&b_);                                                                        \
        if ((with_records) && kc_##msg##_encode(&r_->error_body, (req)->ctx.api_version,           \
                                                (err_m)) != 0)                                     \
            kc_buf_reset(&r_->error_body);                                                         \
        return 0;                                                                                  \
    } while (0)

/* ---- InitProducerId ------------------------------------------------------- */

int16_t kc_txn_api_init_producer_id(kc_req_t *req, const kc_init_producer_id_request_t *rq,
                                    int64_t *pid, int16_t *epoch)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    *pid = -1;
    *epoch = -1;
    if (!kc_req_authorized(req, KC_OP_WRITE, KC_RES_TRANSACTIONAL_ID, rq->transactional_id))
        return KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    /* transaction.two.phase.commit.enable is false, as Kafka's default. */
    if (rq->enable2_pc)
        return KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    if (rq->keep_prepared_txn)
        return KC_ERR_UNSUPPORTED_VERSION;
    int16_t err = kc_txn_init_producer_id(s->txn, req->ctx.now_ms, rq->transactional_id,
                                          rq->transaction_timeout_ms, rq->producer_id,
                                          rq->producer_epoch, req->res, pid, epoch);
    return fenced_for(err, v, 4);
}

/* ---- AddPartitionsToTxn --------------------------------------------------- */

typedef kc_add_partitions_to_txn_response_topic_result_t apt_topic_t;
typedef kc_add_partitions_to_txn_response_partition_result_t apt_part_t;

/* The answer of one transaction, into the topic results of v0-3 or of v4
 * and later (two shapes of the same). */
typedef struct {
    apt_topic_t *v4;
    kc_add_partitions_to_txn_response_topic_result_v3_and_below_t *v3;
    int32_t n;
} apt_out_t;

/* One partition's answer, its topic a view into the request. */
typedef struct {
    kc_str_t topic;
    int32_t partition;
    int16_t code;
    size_t first;  /* the entry of its topic's results: the first of that topic */
    size_t slot;   /* sort keys: the slot in the map Kafka iterates, */
    int64_t within; /* then the order within that slot */
} apt_entry_t;

static int apt_entry_cmp(const void *a, const void *b)
{
    const apt_entry_t *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->within > y->within) - (x->within < y->within);
}

/* By topic name, then partition, then the sort key within. */
static int apt_name_cmp(const void *a, const void *b)
{
    const apt_entry_t *x = a, *y = b;
    if (x->topic.len != y->topic.len)
        return x->topic.len < y->topic.len ? -1 : 1;
    int c = x->topic.len > 0 ? memcmp(x->topic.ptr, y->topic.ptr, (size_t)x->topic.len) : 0;
    if (c)
        return c;
    if (x->partition != y->partition)
        return x->partition < y->partition ? -1 : 1;
    return (x->within > y->within) - (x->within < y->within);
}

/*
 * Groups e[0..n) by topic, keeping their order within each topic: with
 * hashed, the topics as a java.util.HashMap of their names iterates them
 * (by slot, within a slot in the order each first comes), else in the
 * order each first comes. Sets each entry's first to its topic's first
 * entry. O(n log n).
 */
static void group_by_topic(apt_entry_t *e, size_t n, bool hashed)
{
    for (size_t i = 0; i < n; i++)
        e[i].within = (int64_t)i;
    qsort(e, n, sizeof(*e), apt_name_cmp);
    size_t ntopics = 0;
    for (size_t i = 0; i < n; i++)
        ntopics += i == 0 || !kc_str_eq(e[i].topic, e[i - 1].topic);
    size_t cap = kc_java_hash_cap(ntopics);
    for (size_t i = 0; i < n;) {
        /* A topic's run: where the topic first came, the slot of its name. */
        size_t end = i, pos = (size_t)e[i].within;
        for (; end < n && kc_str_eq(e[end].topic, e[i].topic); end++)
            pos = KC_MIN(pos, (size_t)e[end].within);
        size_t slot = hashed ? kc_java_hash_slot(kc_java_str_hash(e[i].topic), cap) : 0;
        for (; i < end; i++) {
            e[i].first = pos;
            e[i].slot = slot;
        }
    }
    for (size_t i = 0; i < n; i++)
        e[i].within = (int64_t)e[i].first * (int64_t)(n + 1) + e[i].within;
    qsort(e, n, sizeof(*e), apt_entry_cmp);
    for (size_t i = 0; i < n; i++)
        e[i].first = i > 0 && kc_str_eq(e[i].topic, e[i - 1].topic) ? e[i - 1].first : i;
}

/* Fills out from e[0..n) in that order, each run of entries of one topic
 * (the same first) one topic's results. */
#define FILL_TOPICS(TOPIC_T, out)                                                                  \
    do {                                                                                           \
        TOPIC_T *rts_ = kc_arena_alloc(req->arena, (n + 1) * sizeof(*rts_));                       \
        int32_t nt_ = 0;                                                                           \
        for (size_t i = 0; i < n;) {                                                               \
            size_t end_ = i;                                                                       \
            while (end_ < n && e[end_].first == i)                                                 \
                end_++;                                                                            \
            TOPIC_T *rt_ = &rts_[nt_++];                                                           \
            rt_->name = e[i].topic;                                                                \
            rt_->results_by_partition.items =                                                      \
                kc_arena_alloc(req->arena, (end_ - i + 1) *                                        \
                                               sizeof(*rt_->results_by_partition.items));          \
            rt_->results_by_partition.count = (int32_t)(end_ - i);                                 \
            for (size_t j = i; j < end_; j++) {                                                    \
                rt_->results_by_partition.items[j - i].partition_index = e[j].partition;           \
                rt_->results_by_partition.items[j - i].partition_error_code = e[j].code;           \
            }                                                                                      \
            i = end_;                                                                              \
        }                                                                                          \
        (out) = rts_;                                                                              \
        outp->n = nt_;                                                                             \
    } while (0)

static void fill_out(kc_req_t *req, apt_entry_t *e, size_t n, apt_out_t *outp)
{
    if (req->ctx.api_version <= 3)
        FILL_TOPICS(kc_add_partitions_to_txn_response_topic_result_v3_and_below_t, outp->v3);
    else
        FILL_TOPICS(apt_topic_t, outp->v4);
}

/* The request's partitions of one transaction as entries, in its order,
 * each topic of the request on its own. */
static apt_entry_t *entries(kc_req_t *req, const kc_add_partitions_to_txn_request_topic_t *ts,
                            int32_t nt, size_t *n)
{
    size_t total = 0;
    for (int32_t i = 0; i < nt; i++)
        total += (size_t)KC_MAX(ts[i].partitions.count, 0);
    apt_entry_t *e = kc_arena_alloc(req->arena, (total + 1) * sizeof(*e));
    *n = 0;
    for (int32_t i = 0; i < nt; i++) {
        size_t first = *n;
        for (int32_t j = 0; j < ts[i].partitions.count; j++)
            e[(*n)++] = (apt_entry_t){.topic = ts[i].name,
                                      .partition = ts[i].partitions.items[j],
                                      .first = first};
    }
    return e;
}

/*
 * The answer of one code for every partition
 * (AddPartitionsToTxnRequest.errorResponseForTransaction): the request's
 * topics and partitions in its order.
 */
static void fill_one_code(kc_req_t *req, apt_entry_t *e, size_t n, int16_t code, apt_out_t *out)
{
    for (size_t i = 0; i < n; i++)
        e[i].code = code;
    fill_out(req, e, n, out);
}

/*
 * The answer of codes per partition, which Kafka puts in a map of
 * TopicPartition before AddPartitionsToTxnResponse.topicCollectionForErrors
 * groups them by topic through a java.util.HashMap of names: partitions in
 * the order of that map (with scala, the Scala mutable.HashMap of KafkaApis'
 * failed checks; else the java.util.HashMap of the coordinator's
 * verification, filled from a HashSet of the same size), a partition named
 * twice once, with its last code; the topics in the order of the HashMap of
 * their names.
 */
static void fill_hashed(kc_req_t *req, apt_entry_t *e, size_t n, bool scala, apt_out_t *out)
{
    /* A partition named twice: its first place, its last code. */
    for (size_t i = 0; i < n; i++)
        e[i].within = (int64_t)i;
    qsort(e, n, sizeof(*e), apt_name_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && e[m - 1].partition == e[i].partition && kc_str_eq(e[m - 1].topic, e[i].topic))
            e[m - 1].code = e[i].code;
        else
            e[m++] = e[i];
    }
    size_t cap = scala ? kc_scala_hash_cap(m) : kc_java_hash_cap(m);
    for (size_t i = 0; i < m; i++) {
        int32_t h = kc_java_topic_partition_hash(e[i].topic.ptr, (size_t)KC_MAX(e[i].topic.len, 0),
                                                 e[i].partition);
        e[i].slot = kc_java_hash_slot(h, cap);
        /* Scala keeps a slot's keys by their spread hash, Java by insertion. */
        if (scala)
            e[i].within = (int32_t)((uint32_t)h ^ ((uint32_t)h >> 16));
    }
    qsort(e, m, sizeof(*e), apt_entry_cmp);
    group_by_topic(e, m, true);
    fill_out(req, e, m, out);
}

/* The partitions of entries as the coordinator takes them. */
static kc_txn_partition_t *partitions_of(kc_req_t *req, const apt_entry_t *e, size_t n)
{
    kc_txn_partition_t *parts = kc_arena_alloc(req->arena, (n + 1) * sizeof(*parts));
    for (size_t i = 0; i < n; i++) {
        char *topic = kc_arena_alloc(req->arena, (size_t)KC_MAX(e[i].topic.len, 0) + 1);
        if (e[i].topic.len > 0)
            memcpy(topic, e[i].topic.ptr, (size_t)e[i].topic.len);
        parts[i] = (kc_txn_partition_t){topic, e[i].partition};
    }
    return parts;
}

/*
 * One transaction of AddPartitionsToTxn (KafkaApis.handleAddPartitionsToTxnRequest):
 * from a client (v0-3) WRITE on the transactional id and on each topic (an
 * internal topic counts as not authorized); then known partitions; any
 * failure answers those codes and OPERATION_NOT_ATTEMPTED for the others.
 * Else the coordinator adds them (one code for every partition) or, with
 * verify (v4+ VerifyOnly, TC.handleVerifyPartitionsInTransaction), answers
 * per partition whether it is in the transaction. *wrote: records were added.
 */
static void add_partitions(kc_req_t *req, kc_str_t txn_id, int64_t pid, int16_t epoch,
                           const kc_add_partitions_to_txn_request_topic_t *ts, int32_t nt,
                           bool verify, apt_out_t *out, bool *wrote)
{
    kc_server_t *s = req->srv;
    bool client = req->ctx.api_version <= 3;
    size_t n;
    apt_entry_t *e = entries(req, ts, nt, &n);
    if (client && !kc_req_authorized(req, KC_OP_WRITE, KC_RES_TRANSACTIONAL_ID, txn_id)) {
        fill_one_code(req, e, n, KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, out);
        return;
    }
    bool failed = false;
    for (size_t i = 0; i < n; i++) {
        const kc_topic_t *topic = kc_topics_find(s->topics, e[i].topic);
        bool internal = kc_str_eq_cstr(e[i].topic, OFFSETS_TOPIC) ||
                        kc_str_eq_cstr(e[i].topic, "__transaction_state");
        int32_t p = e[i].partition;
        if (client && (internal || !kc_req_authorized(req, KC_OP_WRITE, KC_RES_TOPIC, e[i].topic)))
            e[i].code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        else if (!topic || p < 0 || p >= topic->partitions)
            e[i].code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        else
            e[i].code = KC_ERR_NONE;
        failed |= e[i].code != KC_ERR_NONE;
    }
    if (failed) {
        for (size_t i = 0; i < n; i++)
            if (e[i].code == KC_ERR_NONE)
                e[i].code = KC_ERR_OPERATION_NOT_ATTEMPTED;
        fill_hashed(req, e, n, true, out);
        return;
    }
    kc_txn_partition_t *parts = partitions_of(req, e, n);
    if (verify) {
        for (size_t i = 0; i < n; i++)
            e[i].code = kc_txn_verify_partition(s->txn, txn_id, pid, epoch, &parts[i]);
        fill_hashed(req, e, n, false, out);
        return;
    }
    size_t first = req->res->nrecords;
    int16_t err = kc_txn_add_partitions(s->txn, req->ctx.now_ms, txn_id, pid, epoch, parts, n,
                                        client ? 0 : 2, req->res);
    *wrote |= req->res->nrecords > first;
    fill_one_code(req, e, n, fenced_for(err, req->ctx.api_version, 2), out);
}

int kc_handle_add_partitions_to_txn(kc_req_t *req)
{
    int16_t v = req->ctx.api_version;
    kc_add_partitions_to_txn_request_t rq;
    kc_add_partitions_to_txn_request_init(&rq);
    kc_reader_t start = *req->body;
    if (kc_add_partitions_to_txn_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_add_partitions_to_txn_response_t resp, err_resp;
    kc_add_partitions_to_txn_response_init(&resp);
    bool wrote = false;
    if (v <= 3) {
        int32_t nt = KC_MAX(rq.v3_and_below_topics.count, 0);
        apt_out_t out = {0};
        add_partitions(req, rq.v3_and_below_transactional_id, rq.v3_and_below_producer_id,
                       rq.v3_and_below_producer_epoch, rq.v3_and_below_topics.items, nt, false,
                       &out, &wrote);
        resp.results_by_topic_v3_and_below.items = out.v3;
        resp.results_by_topic_v3_and_below.count = out.n;
    } else {
        /* From brokers only: CLUSTER_ACTION on the cluster. */
        if (!kc_req_authorized_cluster(req, KC_OP_CLUSTER_ACTION))
            return kc_req_respond_error(req, &start, KC_ERR_CLUSTER_AUTHORIZATION_FAILED);
        int32_t n = KC_MAX(rq.transactions.count, 0);
        for (int32_t i = 0; i < n; i++)
            if (kc_str_is_null(rq.transactions.items[i].transactional_id))
                return kc_req_respond_error(req, &start, KC_ERR_INVALID_REQUEST);
        resp.results_by_transaction.items = kc_arena_alloc(
            req->arena, (size_t)(n + 1) * sizeof(*resp.results_by_transaction.items));
        resp.results_by_transaction.count = n;
        for (int32_t i = 0; i < n; i++) {
            const kc_add_partitions_to_txn_request_transaction_t *t = &rq.transactions.items[i];
            kc_add_partitions_to_txn_response_transaction_result_t *rt =
                &resp.results_by_transaction.items[i];
            rt->transactional_id = t->transactional_id;
            int32_t nt = KC_MAX(t->topics.count, 0);
            apt_out_t out = {0};
            add_partitions(req, t->transactional_id, t->producer_id, t->producer_epoch,
                           t->topics.items, nt, t->verify_only, &out, &wrote);
            rt->topic_results.items = out.v4;
            rt->topic_results.count = out.n;
        }
    }
    err_resp = resp;
    if (wrote) {
        /* Should the records not commit: COORDINATOR_NOT_AVAILABLE where NONE was. */
        if (v <= 3) {
            int32_t nt = resp.results_by_topic_v3_and_below.count;
            err_resp.results_by_topic_v3_and_below.items = kc_arena_alloc(
                req->arena, (size_t)(nt + 1) * sizeof(*err_resp.results_by_topic_v3_and_below.items));
            for (int32_t i = 0; i < nt; i++) {
                const kc_add_partitions_to_txn_response_topic_result_v3_and_below_t *src =
                    &resp.results_by_topic_v3_and_below.items[i];
                kc_add_partitions_to_txn_response_topic_result_v3_and_below_t *dst =
                    &err_resp.results_by_topic_v3_and_below.items[i];
                *dst = *src;
                int32_t np = src->results_by_partition.count;
                dst->results_by_partition.items = kc_arena_alloc(
                    req->arena, (size_t)(np + 1) * sizeof(*dst->results_by_partition.items));
                for (int32_t j = 0; j < np; j++) {
                    dst->results_by_partition.items[j] = src->results_by_partition.items[j];
                    if (dst->results_by_partition.items[j].partition_error_code == KC_ERR_NONE)
                        dst->results_by_partition.items[j].partition_error_code =
                            KC_ERR_COORDINATOR_NOT_AVAILABLE;
                }
            }
        } else {
            err_resp.error_code = KC_ERR_COORDINATOR_NOT_AVAILABLE;
            err_resp.results_by_transaction.count = 0;
        }
    }
    RESPOND(req, add_partitions_to_txn_response, &resp, &err_resp, wrote);
}

/*
 * Declares rq, the request decoded as msg (start: its body before decoding),
 * and answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED without WRITE on its
 * transactional id, as KafkaApis does before it asks the coordinators.
 */
#define TXN_REQUEST(msg)                                                                           \
    kc_##msg##_t rq;                                                                               \
    kc_##msg##_init(&rq);                                                                          \
    kc_reader_t start = *req->body;                                                                \
    if (kc_##msg##_decode(req->body, req->ctx.api_version, req->arena, &rq) != 0)                  \
        return KC_EINVAL;                                                                          \
    if (!kc_req_authorized(req, KC_OP_WRITE, KC_RES_TRANSACTIONAL_ID, rq.transactional_id))        \
        return kc_req_respond_error(req, &start, KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED)

/* ---- AddOffsetsToTxn ------------------------------------------------------ */

int kc_handle_add_offsets_to_txn(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    TXN_REQUEST(add_offsets_to_txn_request);
    if (!kc_req_authorized(req, KC_OP_READ, KC_RES_GROUP, rq.group_id))
        return kc_req_respond_error(req, &start, KC_ERR_GROUP_AUTHORIZATION_FAILED);
    kc_txn_partition_t part = {OFFSETS_TOPIC, kc_coord_offsets_partition_for(s->coord, rq.group_id)};
    size_t first = req->res->nrecords;
    kc_add_offsets_to_txn_response_t resp, err_resp;
    kc_add_offsets_to_txn_response_init(&resp);
    resp.error_code = fenced_for(kc_txn_add_partitions(s->txn, req->ctx.now_ms, rq.transactional_id,
                                                       rq.producer_id, rq.producer_epoch, &part,
                                                       1, 0, req->res),
                                 v, 2);
    err_resp = resp;
    err_resp.error_code = KC_ERR_COORDINATOR_NOT_AVAILABLE;
    RESPOND(req, add_offsets_to_txn_response, &resp, &err_resp, req->res->nrecords > first);
}

/* ---- EndTxn --------------------------------------------------------------- */

int kc_handle_end_txn(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    TXN_REQUEST(end_txn_request);
    size_t first = req->res->nrecords;
    kc_end_txn_response_t resp, err_resp;
    kc_end_txn_response_init(&resp);
    /* EndTxn v5 and later: transaction version 2 (TransactionVersion.transactionVersionForEndTxn). */
    int16_t err = kc_txn_end(s->txn, req->ctx.now_ms, rq.transactional_id, rq.producer_id,
                             rq.producer_epoch, rq.committed, v > 4 ? 2 : 0, req->res,
                             &resp.producer_id, &resp.producer_epoch);
    resp.error_code = fenced_for(err, v, 2);
    err_resp = resp;
    err_resp.error_code = KC_ERR_COORDINATOR_NOT_AVAILABLE;
    err_resp.producer_id = -1;
    err_resp.producer_epoch = -1;
    RESPOND(req, end_txn_response, &resp, &err_resp, req->res->nrecords > first);
}

/* ---- TxnOffsetCommit ------------------------------------------------------ */

int kc_handle_txn_offset_commit(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    TXN_REQUEST(txn_offset_commit_request);
    if (!kc_req_authorized(req, KC_OP_READ, KC_RES_GROUP, rq.group_id))
        return kc_req_respond_error(req, &start, KC_ERR_GROUP_AUTHORIZATION_FAILED);
    /* The producer's transaction and the group's offsets partition: added by
     * v5 and later (transaction version 2), verified before (ReplicaManager's
     * verification; TRANSACTION_ABORTABLE from v4, INVALID_TXN_STATE before). */
    kc_txn_partition_t part = {OFFSETS_TOPIC, kc_coord_offsets_partition_for(s->coord, rq.group_id)};
    int16_t txn_err =
        v >= 5 ? kc_txn_add_partitions(s->txn, req->ctx.now_ms, rq.transactional_id,
                                       rq.producer_id, rq.producer_epoch, &part, 1, 2, req->res)
               : kc_txn_verify_partition(s->txn, rq.transactional_id, rq.producer_id,
                                         rq.producer_epoch, &part);
    if (txn_err == KC_ERR_PRODUCER_FENCED)
        txn_err = KC_ERR_INVALID_PRODUCER_EPOCH;
    else if (txn_err == KC_ERR_TRANSACTION_ABORTABLE && v < 4)
        txn_err = KC_ERR_INVALID_TXN_STATE;
    kc_coord_txn_offset_commit(s->coord, &req->ctx, &rq, txn_err, req->res);
    return 0;
}

/* ---- DescribeTransactions and ListTransactions ---------------------------- */

typedef kc_describe_transactions_response_transaction_state_t dt_state_t;
typedef kc_describe_transactions_response_topic_data_t dt_topic_t;

/* The state of one id (TC.handleDescribeTransactions), topics the client may
 * not describe left out. */
static void describe_one(kc_req_t *req, kc_str_t id, dt_state_t *out)
{
    memset(out, 0, sizeof(*out));
    out->transactional_id = id;
    /* An id not described keeps the fields' defaults: state "", times,
     * producer id and epoch 0. */
    out->transaction_state = kc_str("");
    if (!kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_TRANSACTIONAL_ID, id)) {
        out->error_code = KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        return;
    }
    if (id.len <= 0) {
        out->error_code = KC_ERR_INVALID_REQUEST;
        return;
    }
    const kc_txn_meta_t *m = kc_txn_find(req->srv->txn, id);
    if (!m) {
        out->error_code = KC_ERR_TRANSACTIONAL_ID_NOT_FOUND;
        return;
    }
    out->transaction_state = kc_str(kc_txn_state_name(m->state));
    out->transaction_timeout_ms = m->timeout_ms;
    out->transaction_start_time_ms = m->start_ms;
    out->producer_id = m->producer_id;
    out->producer_epoch = m->producer_epoch;
    /* The partitions as the HashSet of the transaction's metadata iterates
     * them (by slot; within one, in kcoord's order), grouped by topic in
     * the order each topic first comes. Views into the coordinator's
     * entry: encoded before anything changes it. */
    size_t np = m->npartitions, cap = kc_java_hash_cap(np);
    apt_entry_t *e = kc_arena_alloc(req->arena, (np + 1) * sizeof(*e));
    for (size_t i = 0; i < np; i++) {
        const kc_txn_partition_t *tp = &m->partitions[i];
        e[i] = (apt_entry_t){.topic = kc_str(tp->topic), .partition = tp->partition,
                             .within = (int64_t)i};
        e[i].slot = kc_java_hash_slot(
            kc_java_topic_partition_hash(tp->topic, strlen(tp->topic), tp->partition), cap);
    }
    qsort(e, np, sizeof(*e), apt_entry_cmp);
    group_by_topic(e, np, false);
    dt_topic_t *ts = kc_arena_alloc(req->arena, (np + 1) * sizeof(*ts));
    int32_t nt = 0;
    for (size_t i = 0; i < np;) {
        size_t end = i;
        while (end < np && e[end].first == i)
            end++;
        if (kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_TOPIC, e[i].topic)) {
            dt_topic_t *t = &ts[nt++];
            t->topic = e[i].topic;
            t->partitions.items = kc_arena_alloc(req->arena, (end - i) * sizeof(int32_t));
            t->partitions.count = (int32_t)(end - i);
            for (size_t j = i; j < end; j++)
                t->partitions.items[j - i] = e[j].partition;
        }
        i = end;
    }
    out->topics.items = ts;
    out->topics.count = nt;
}

int kc_handle_describe_transactions(kc_req_t *req)
{
    kc_describe_transactions_request_t rq;
    kc_describe_transactions_request_init(&rq);
    if (kc_describe_transactions_request_decode(req->body, req->ctx.api_version, req->arena,
                                                &rq) != 0)
        return KC_EINVAL;
    kc_describe_transactions_response_t resp;
    kc_describe_transactions_response_init(&resp);
    int32_t n = KC_MAX(rq.transactional_ids.count, 0);
    resp.transaction_states.items = kc_arena_alloc(req->arena, (size_t)(n + 1) * sizeof(dt_state_t));
    resp.transaction_states.count = n;
    for (int32_t i = 0; i < n; i++)
        describe_one(req, rq.transactional_ids.items[i], &resp.transaction_states.items[i]);
    RESPOND(req, describe_transactions_response, &resp, &resp, false);
}

typedef struct {
    kc_req_t *req;
    const kc_list_transactions_request_t *rq;
    unsigned states;           /* bits of the known state filters */
    bool any_state;            /* no state filter */
    pcre2_code *pattern;       /* NULL: none */
    pcre2_match_data *md;
    kc_list_transactions_response_transaction_state_t *items;
    int32_t n, cap;
} list_ctx_t;

static void list_one(void *ctx, const kc_txn_meta_t *m)
{
    list_ctx_t *l = ctx;
    const kc_list_transactions_request_t *rq = l->rq;
    if (!l->any_state && !(l->states & (1u << m->state)))
        return;
    if (rq->producer_id_filters.count > 0) {
        bool hit = false;
        for (int32_t i = 0; i < rq->producer_id_filters.count; i++)
            hit |= rq->producer_id_filters.items[i] == m->producer_id;
        if (!hit)
            return;
    }
    if (rq->duration_filter >= 0 && !(l->req->ctx.now_ms - m->start_ms > rq->duration_filter))
        return;
    size_t idlen = strlen(m->transactional_id);
    if (l->pattern && pcre2_match(l->pattern, (PCRE2_SPTR)m->transactional_id, idlen, 0,
                                  PCRE2_ANCHORED | PCRE2_ENDANCHORED, l->md, NULL) < 0)
        return;
    kc_str_t id = {m->transactional_id, (int32_t)idlen};
    if (!kc_req_authorized(l->req, KC_OP_DESCRIBE, KC_RES_TRANSACTIONAL_ID, id))
        return;
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 16;
        kc_list_transactions_response_transaction_state_t *items =
            kc_arena_alloc(l->req->arena, (size_t)cap * sizeof(*items));
        if (l->n)
            memcpy(items, l->items, (size_t)l->n * sizeof(*items));
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = (kc_list_transactions_response_transaction_state_t){
        id, m->producer_id, kc_str(kc_txn_state_name(m->state))};
}

int kc_handle_list_transactions(kc_req_t *req)
{
    kc_list_transactions_request_t rq;
    kc_list_transactions_request_init(&rq);
    if (kc_list_transactions_request_decode(req->body, req->ctx.api_version, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_list_transactions_response_t resp;
    kc_list_transactions_response_init(&resp);
    list_ctx_t l = {.req = req, .rq = &rq, .any_state = rq.state_filters.count <= 0};
    int32_t nf = KC_MAX(rq.state_filters.count, 0);
    resp.unknown_state_filters.items = kc_arena_alloc(req->arena, (size_t)(nf + 1) * sizeof(kc_str_t));
    resp.unknown_state_filters.count = 0;
    for (int32_t i = 0; i < nf; i++) {
        kc_str_t f = rq.state_filters.items[i];
        int st = kc_txn_state_from_name(f.ptr ? f.ptr : "", (size_t)KC_MAX(f.len, 0));
        if (st < 0 || st == KC_TXN_DEAD)
            resp.unknown_state_filters.items[resp.unknown_state_filters.count++] = f;
        else
            l.states |= 1u << st;
    }
    if (rq.transactional_id_pattern.len > 0) {
        int errcode;
        PCRE2_SIZE erroff;
        l.pattern = pcre2_compile((PCRE2_SPTR)rq.transactional_id_pattern.ptr,
                                  (PCRE2_SIZE)rq.transactional_id_pattern.len, PCRE2_UTF, &errcode,
                                  &erroff, NULL);
        if (!l.pattern) {
            resp.error_code = KC_ERR_INVALID_REGULAR_EXPRESSION;
            RESPOND(req, list_transactions_response, &resp, &resp, false);
        }
        l.md = pcre2_match_data_create_from_pattern(l.pattern, NULL);
    }
    kc_txn_foreach(req->srv->txn, list_one, &l);
    if (l.md)
        pcre2_match_data_free(l.md);
    if (l.pattern)
        pcre2_code_free(l.pattern);
    resp.transaction_states.items = l.items;
    resp.transaction_states.count = l.n;
    RESPOND(req, list_transactions_response, &resp, &resp, false);
}

/* ---- DescribeProducers ---------------------------------------------------- */

typedef kc_describe_producers_response_producer_state_t dp_state_t;

/* A producer state with its slot in Kafka's map and its place in the log's list. */
typedef struct {
    uint32_t slot;
    size_t at;
    const kc_log_producer_state_t *st;
} dp_sorted_t;

static int cmp_slot(const void *a, const void *b)
{
    const dp_sorted_t *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/*
 * One partition's producers (Partition.activeProducerState): the states
 * kc_log_producers keeps, in the order Kafka's ProducerStateManager map (a
 * Java HashMap<Long, ...>, resized past 3/4 full) iterates them: by slot,
 * then as they were added; or KAFKA_STORAGE_ERROR when the log cannot be
 * read.
 */
static void describe_producers_partition(kc_req_t *req, const kc_topic_t *topic,
                                         kc_describe_producers_response_partition_response_t *rp)
{
    kc_buf_t b;
    kc_buf_init(&b);
    if (kc_log_producers(req->srv->log, topic->id, rp->partition_index, &b) != 0) {
        kc_buf_deinit(&b);
        rp->error_code = KC_ERR_KAFKA_STORAGE_ERROR;
        return;
    }
    size_t n = b.len / sizeof(kc_log_producer_state_t);
    const kc_log_producer_state_t *ps = (const kc_log_producer_state_t *)b.data;
    uint32_t cap = 16;
    while (n > (size_t)cap * 3 / 4)
        cap <<= 1;
    dp_sorted_t *sorted = kc_arena_alloc(req->arena, (n + 1) * sizeof(*sorted));
    for (size_t i = 0; i < n; i++) {
        uint64_t pid = (uint64_t)ps[i].producer_id;
        uint32_t h = (uint32_t)(pid ^ (pid >> 32)); /* Long.hashCode */
        sorted[i] = (dp_sorted_t){(h ^ (h >> 16)) & (cap - 1), i, &ps[i]};
    }
    if (n > 1)
        qsort(sorted, n, sizeof(*sorted), cmp_slot);
    dp_state_t *out = kc_arena_alloc(req->arena, (n + 1) * sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        const kc_log_producer_state_t *st = sorted[i].st;
        out[i] = (dp_state_t){st->producer_id,       st->producer_epoch,
                              st->last_sequence,     st->last_timestamp,
                              st->coordinator_epoch, st->current_txn_start_offset};
    }
    kc_buf_deinit(&b);
    rp->active_producers.items = out;
    rp->active_producers.count = (int32_t)n;
}

/*
 * DescribeProducers (KafkaApis.handleDescribeProducersRequest): per topic,
 * a name Topic.validate refuses (INVALID_TOPIC_EXCEPTION with its message),
 * then READ on the topic (TOPIC_AUTHORIZATION_FAILED), then a topic kcoord
 * does not have (UNKNOWN_TOPIC_OR_PARTITION), each with its message on
 * every partition; else each partition's producers, or
 * UNKNOWN_TOPIC_OR_PARTITION without a message for a partition the topic
 * does not have (ReplicaManager.getPartitionOrError).
 */
int kc_handle_describe_producers(kc_req_t *req)
{
    kc_describe_producers_request_t rq;
    kc_describe_producers_request_init(&rq);
    if (kc_describe_producers_request_decode(req->body, req->ctx.api_version, req->arena, &rq) !=
        0)
        return KC_EINVAL;
    kc_describe_producers_response_t resp;
    kc_describe_producers_response_init(&resp);
    int32_t nt = KC_MAX(rq.topics.count, 0);
    resp.topics.items = kc_arena_alloc(req->arena, (size_t)(nt + 1) * sizeof(*resp.topics.items));
    resp.topics.count = nt;
    for (int32_t i = 0; i < nt; i++) {
        const kc_describe_producers_request_topic_request_t *t = &rq.topics.items[i];
        kc_describe_producers_response_topic_response_t *rt = &resp.topics.items[i];
        rt->name = t->name;
        const kc_topic_t *topic = NULL;
        int16_t topic_err = KC_ERR_NONE;
        const char *msg = kc_topic_validate_message(req->arena, t->name);
        if (msg) {
            topic_err = KC_ERR_INVALID_TOPIC_EXCEPTION;
        } else if (!kc_req_authorized(req, KC_OP_READ, KC_RES_TOPIC, t->name)) {
            topic_err = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        } else if (!(topic = kc_topics_find(req->srv->topics, t->name))) {
            topic_err = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (topic_err != KC_ERR_NONE && !msg)
            msg = kc_error_message(topic_err);
        int32_t np = KC_MAX(t->partition_indexes.count, 0);
        rt->partitions.items =
            kc_arena_alloc(req->arena, (size_t)(np + 1) * sizeof(*rt->partitions.items));
        rt->partitions.count = np;
        for (int32_t j = 0; j < np; j++) {
            kc_describe_producers_response_partition_response_t *rp = &rt->partitions.items[j];
            *rp = (kc_describe_producers_response_partition_response_t){0};
            rp->error_message = KC_STR_NULL;
            rp->partition_index = t->partition_indexes.items[j];
            if (topic_err != KC_ERR_NONE) {
                rp->error_code = topic_err;
                rp->error_message = kc_str(msg);
            } else if (rp->partition_index < 0 || rp->partition_index >= topic->partitions) {
                rp->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
            } else {
                describe_producers_partition(req, topic, rp);
            }
        }
    }
    RESPOND(req, describe_producers_response, &resp, &resp, false);
}
