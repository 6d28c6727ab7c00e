/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broker side of the topology-description store (KIP-1331): starting the
 * store, StreamsGroupTopologyDescriptionUpdate (API 93), the periodic
 * cleanup cycle, and running the barrier's operations in order: the -2
 * record commits with the iteration's batch, the store call starts only
 * after that commit (kc_topology_desc_after_commit), and its completion, back on
 * the loop, writes the final record and releases the answer with the next
 * commit. What needs the streams groups goes through the
 * kc_topology_desc_groups_t of the coordinator (kc_coord_topology_desc_groups,
 * registered at start; kc_topology_desc_set_groups replaces it in tests), and the
 * requests that wait for the store (describe, DeleteGroups, the classic
 * conversion) are held here until their calls complete.
 */
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"
#include "server_int.h"

#define COMP "topology-store"

typedef struct store_job {
    kc_server_t *s;
    kc_topology_desc_op_t *op;
    bool has_request;        /* push: the API 93 request to answer */
    kc_request_ctx_t ctx;    /* conn id, correlation id, api key/version (strings unused) */
    struct store_job *next;
} store_job_t;

struct kc_topology_desc_glue {
    kc_topology_desc_t *barrier;
    kc_topology_store_t *store;
    kc_topology_desc_groups_t groups;
    kc_topology_desc_outcome_fn outcome_fn;
    void *outcome_arg;
    store_job_t *waiting_head, *waiting_tail; /* begun; their store call waits for the commit */
    size_t cleanup_in_flight;                 /* ops of the current cleanup cycle */
    struct event *cleanup_timer;
    struct event *kick;                       /* wakes the loop to send aborted answers */
    bool stopping;
};

kc_topology_desc_t *kc_topology_desc_barrier(kc_server_t *s)
{
    return s->topology_desc ? s->topology_desc->barrier : NULL;
}

kc_topology_store_t *kc_topology_desc_store(kc_server_t *s)
{
    return s->topology_desc ? s->topology_desc->store : NULL;
}

void kc_topology_desc_set_groups(kc_server_t *s, const kc_topology_desc_groups_t *groups,
                         kc_topology_desc_outcome_fn fn, void *arg)
{
    if (!s->topology_desc)
        return;
    s->topology_desc->groups = *groups;
    s->topology_desc->outcome_fn = fn;
    s->topology_desc->outcome_arg = arg;
}

/* 1 streams group, 0 none, -1 another type; out filled for 1. */
static int lookup(struct kc_topology_desc_glue *g, kc_str_t group_id, kc_topology_desc_group_t *out)
{
    if (!g->groups.lookup)
        return 0;
    return g->groups.lookup(g->groups.ctx, group_id, out);
}

/* Appends an API 93 response for ctx to res. */
static void respond_update(kc_server_t *s, const kc_request_ctx_t *ctx, kc_result_t *res,
                           int16_t code, const char *message, bool after_records)
{
    kc_streams_group_topology_description_update_response_t rs;
    kc_streams_group_topology_description_update_response_init(&rs);
    rs.error_code = code;
    rs.error_message = message && *message ? kc_str(message) : KC_STR_NULL;
    kc_buf_t b;
    kc_buf_init(&b);
    kc_req_t req = {.srv = s, .ctx = *ctx, .res = res};
    int rc = kc_streams_group_topology_description_update_response_encode(&b, ctx->api_version, &rs);
    if (rc != 0) {
        kc_log_error(COMP, "cannot encode a StreamsGroupTopologyDescriptionUpdate response (%d)", rc);
        kc_buf_deinit(&b);
        return;
    }
    kc_response_t *r = kc_req_respond(&req, &b);
    kc_buf_reset(&b);
    if (after_records) {
        /* The final record failed to commit: the client retries elsewhere. */
        rs.error_code = KC_ERR_NOT_COORDINATOR;
        rs.error_message = KC_STR_NULL;
        if (kc_streams_group_topology_description_update_response_encode(&b, ctx->api_version,
                                                                         &rs) == 0)
            kc_buf_append(&r->error_body, b.data, b.len);
    }
    kc_buf_deinit(&b);
}

struct held_request;
static void held_step(struct held_request *h);

/* A job dropped at shutdown: the request it held is released (not answered). */
static void job_drop(store_job_t *j)
{
    if (j->op->user)
        held_step((struct held_request *)(uintptr_t)j->op->user);
}

static void job_free(store_job_t *j)
{
    kc_topology_desc_op_free(j->op);
    free(j);
}

/* Queues an op begun in this iteration; its store call waits for the commit. */
static void enqueue(kc_server_t *s, kc_topology_desc_op_t *op, const kc_request_ctx_t *ctx)
{
    store_job_t *j = kc_xcalloc(1, sizeof(*j));
    j->s = s;
    j->op = op;
    if (ctx) {
        j->has_request = true;
        j->ctx = *ctx;
        j->ctx.client_id = KC_STR_NULL;
        j->ctx.client_host = NULL;
    }
    struct kc_topology_desc_glue *g = s->topology_desc;
    if (g->waiting_tail)
        g->waiting_tail->next = j;
    else
        g->waiting_head = j;
    g->waiting_tail = j;
}

void kc_topology_desc_run(kc_server_t *s, kc_topology_desc_op_t *op)
{
    if (!s->topology_desc) {
        kc_topology_desc_op_free(op);
        return;
    }
    enqueue(s, op, NULL);
}

/* The store answered (loop thread): final write, then the answer or the outcome. */
static void job_done(void *arg, const kc_topology_store_result_t *r)
{
    store_job_t *j = arg;
    kc_server_t *s = j->s;
    struct kc_topology_desc_glue *g = s->topology_desc;
    const kc_topology_desc_op_t *op = j->op;
    if (op->kind == KC_TOPOLOGY_DESC_OP_CLEANUP && g->cleanup_in_flight > 0)
        g->cleanup_in_flight--;
    if (g->stopping) {
        /* Shutting down: the durable -2 is what the next start heals from. */
        job_drop(j);
        job_free(j);
        return;
    }
    kc_str_t gid = {op->group_id, (int32_t)op->group_id_len};
    kc_topology_desc_group_t view;
    int found = lookup(g, gid, &view);
    size_t before = s->batch.nrecords;
    kc_topology_desc_outcome_t out;
    kc_topology_desc_complete(g->barrier, op, found == 1 ? &view : NULL, r->status, r->message,
                              kc_server_wall_ms(), &s->batch, &out);
    kc_log_info(COMP, "%s of group %.*s: store %s %s%s",
                op->kind == KC_TOPOLOGY_DESC_OP_PUSH ? "push" : "delete", gid.len, gid.ptr,
                r->status == KC_TOPOLOGY_STORE_OK ? "ok" : "failed", r->message ? r->message : "",
                found == 1 ? "" : " (group gone)");
    switch (op->kind) {
    case KC_TOPOLOGY_DESC_OP_PUSH:
        if (j->has_request)
            respond_update(s, &j->ctx, &s->batch, out.error_code, out.message,
                           s->batch.nrecords > before);
        break;
    case KC_TOPOLOGY_DESC_OP_CLEANUP:
        break;
    case KC_TOPOLOGY_DESC_OP_DELETE_GROUP:
    case KC_TOPOLOGY_DESC_OP_CONVERSION:
        if (g->outcome_fn)
            g->outcome_fn(g->outcome_arg, op, &out, &s->batch);
        break;
    }
    job_free(j);
}

/* ---- client requests held until their store calls complete ----------------------- */

/*
 * StreamsGroupDescribe (gets), DeleteGroups (deletes) and a classic
 * JoinGroup converting a streams group (delete): the request's answer waits
 * for its store calls (the connection stays muted meanwhile, as Kafka's
 * channel does until the response). Then the request is decoded again from
 * a copy of its body and answered by the coordinator with what the store
 * said, into the iteration's batch.
 */
typedef struct held_request {
    kc_server_t *s;
    kc_request_ctx_t ctx;     /* strings point at the copies below */
    char *client_id, *client_host, *principal;
    kc_buf_t body;            /* the request body as received */
    size_t pending;           /* store calls not answered yet */
    /* StreamsGroupDescribe: one entry per get (group id and data owned) */
    kc_topology_desc_fetched_t *fetched;
    size_t nfetched;
    /* DeleteGroups: the groups whose delete failed (group id owned) */
    kc_topology_desc_failed_t *failed;
    size_t nfailed;
    char msg[256];            /* the failure message (one for every group) */
    /* JoinGroup: the conversion's outcome */
    bool proceed;
    int16_t error_code;
} held_request_t;

typedef struct {
    held_request_t *h;
    size_t index; /* into fetched */
} store_get_t;

static held_request_t *held_new(kc_req_t *req, const kc_reader_t *start)
{
    held_request_t *h = kc_xcalloc(1, sizeof(*h));
    h->s = req->srv;
    h->ctx = req->ctx;
    if (req->ctx.client_id.len >= 0) {
        h->client_id = kc_xstrndup(req->ctx.client_id.ptr ? req->ctx.client_id.ptr : "",
                                   (size_t)req->ctx.client_id.len);
        h->ctx.client_id = (kc_str_t){h->client_id, req->ctx.client_id.len};
    }
    h->client_host = req->ctx.client_host ? kc_xstrdup(req->ctx.client_host) : NULL;
    h->ctx.client_host = h->client_host;
    h->principal = req->ctx.principal ? kc_xstrdup(req->ctx.principal) : NULL;
    h->ctx.principal = h->principal;
    kc_buf_init(&h->body);
    kc_buf_append(&h->body, start->p, (size_t)(start->end - start->p));
    return h;
}

static void held_free(held_request_t *h)
{
    for (size_t i = 0; i < h->nfetched; i++) {
        free((char *)h->fetched[i].group_id.ptr);
        free((uint8_t *)h->fetched[i].data);
    }
    free(h->fetched);
    for (size_t i = 0; i < h->nfailed; i++)
        free((char *)h->failed[i].group_id.ptr);
    free(h->failed);
    kc_buf_deinit(&h->body);
    free(h->client_id);
    free(h->client_host);
    free(h->principal);
    free(h);
}

/* Every store call answered: the coordinator answers the request now. */
static void held_finish(held_request_t *h)
{
    kc_server_t *s = h->s;
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_reader_t r = {h->body.data, h->body.data + h->body.len, 0};
    h->ctx.now_ms = kc_server_wall_ms();
    switch (h->ctx.api_key) {
    case KC_API_STREAMS_GROUP_DESCRIBE: {
        kc_streams_group_describe_request_t rq;
        kc_streams_group_describe_request_init(&rq);
        if (kc_streams_group_describe_request_decode(&r, h->ctx.api_version, &arena, &rq) == 0)
            kc_coord_streams_group_describe_fetched(s->coord, &h->ctx, &rq, h->fetched,
                                                    h->nfetched, &s->batch);
        break;
    }
    case KC_API_DELETE_GROUPS: {
        kc_delete_groups_request_t rq;
        kc_delete_groups_request_init(&rq);
        if (kc_delete_groups_request_decode(&r, h->ctx.api_version, &arena, &rq) == 0)
            kc_coord_delete_groups_failed(s->coord, &h->ctx, &rq, h->failed, h->nfailed,
                                          &s->batch);
        break;
    }
    case KC_API_JOIN_GROUP: {
        if (h->proceed) {
            kc_join_group_request_t rq;
            kc_join_group_request_init(&rq);
            if (kc_join_group_request_decode(&r, h->ctx.api_version, &arena, &rq) == 0)
                kc_coord_join_group(s->coord, &h->ctx, &rq, &s->batch);
            break;
        }
        kc_req_t req = {.srv = s, .ctx = h->ctx, .body = &r, .arena = &arena, .res = &s->batch};
        kc_req_respond_error(&req, &r, h->error_code);
        break;
    }
    default:
        break;
    }
    kc_arena_deinit(&arena);
    held_free(h);
}

/* One store call of h answered (loop thread). */
static void held_step(struct held_request *h)
{
    if (--h->pending > 0)
        return;
    if (h->s->topology_desc->stopping) {
        held_free(h); /* shutting down: the client reconnects elsewhere */
        return;
    }
    held_finish(h);
}

static void held_get_done(void *arg, const kc_topology_store_result_t *r)
{
    store_get_t *gj = arg;
    held_request_t *h = gj->h;
    kc_topology_desc_fetched_t *f = &h->fetched[gj->index];
    free(gj);
    f->status = r->status;
    if (r->status == KC_TOPOLOGY_STORE_OK) {
        uint8_t *copy = kc_xmalloc(r->len ? r->len : 1);
        if (r->len)
            memcpy(copy, r->data, r->len);
        f->data = copy;
        f->len = r->len;
    } else if (r->status != KC_TOPOLOGY_STORE_NOT_FOUND) {
        kc_log_warn(COMP, "get of group %.*s epoch %d failed: %s", f->group_id.len,
                    f->group_id.ptr, f->topology_epoch, r->message ? r->message : "");
    }
    held_step(h);
}

/* The outcome of a DELETE_GROUP or CONVERSION op (op->user is its held request). */
static void held_outcome(void *arg, const kc_topology_desc_op_t *op,
                         const kc_topology_desc_outcome_t *out, kc_result_t *res)
{
    kc_server_t *s = arg;
    held_request_t *h = (held_request_t *)(uintptr_t)op->user;
    if (!h)
        return;
    if (op->kind == KC_TOPOLOGY_DESC_OP_DELETE_GROUP && !out->proceed) {
        h->failed = kc_xrealloc(h->failed, (h->nfailed + 1) * sizeof(*h->failed));
        kc_topology_desc_failed_t *f = &h->failed[h->nfailed++];
        f->group_id = (kc_str_t){kc_xstrndup(op->group_id, op->group_id_len),
                                 (int32_t)op->group_id_len};
        f->error_code = out->error_code;
        snprintf(h->msg, sizeof(h->msg), "%s", out->message);
        f->message = h->msg;
    } else if (op->kind == KC_TOPOLOGY_DESC_OP_CONVERSION) {
        h->proceed = out->proceed;
        h->error_code = out->error_code;
        if (out->proceed) {
            /* The store holds nothing now: -1, then the join converts. */
            kc_str_t gid = {op->group_id, (int32_t)op->group_id_len};
            kc_topology_desc_group_t view;
            if (kc_coord_streams_group_view(s->coord, gid, &view) == 1)
                kc_topology_desc_finalize_after_delete(gid, &view, res);
        }
    }
    held_step(h);
}

/* The -2 of a held request's op did not commit: no store call; the group
 * (DeleteGroups) or the join answers NOT_COORDINATOR and the client retries. */
static void held_abort(kc_server_t *s, const kc_topology_desc_op_t *op)
{
    kc_topology_desc_outcome_t out;
    memset(&out, 0, sizeof(out));
    out.error_code = KC_ERR_NOT_COORDINATOR;
    held_outcome(s, op, &out, &s->batch);
}

/* Starts a DELETE_GROUP or CONVERSION op on behalf of h. */
static void held_run(held_request_t *h, kc_topology_desc_op_t *op)
{
    op->user = (uint64_t)(uintptr_t)h;
    h->pending++;
    kc_topology_desc_run(h->s, op);
}

int kc_topology_desc_streams_group_describe(kc_req_t *req, const kc_reader_t *start,
                                    const kc_streams_group_describe_request_t *rq)
{
    kc_server_t *s = req->srv;
    struct kc_topology_desc_glue *g = s->topology_desc;
    held_request_t *h = NULL;
    if (g && rq->include_topology_description && kc_coord_is_loaded(s->coord)) {
        for (int32_t i = 0; i < rq->group_ids.count; i++) {
            kc_str_t gid = rq->group_ids.items[i];
            kc_topology_desc_group_t view;
            if (lookup(g, gid, &view) != 1 ||
                kc_topology_desc_describe_status(g->barrier, view.state, view.topology_epoch >= 0,
                                                 view.topology_epoch) !=
                    KC_TOPOLOGY_DESC_STATUS_AVAILABLE)
                continue;
            if (!h)
                h = held_new(req, start);
            h->fetched = kc_xrealloc(h->fetched, (h->nfetched + 1) * sizeof(*h->fetched));
            kc_topology_desc_fetched_t *f = &h->fetched[h->nfetched];
            memset(f, 0, sizeof(*f));
            f->group_id = (kc_str_t){kc_xstrndup(gid.ptr, (size_t)gid.len), gid.len};
            f->topology_epoch = view.topology_epoch;
            f->status = KC_TOPOLOGY_STORE_TRANSIENT;
            h->nfetched++;
        }
    }
    if (!h) {
        kc_coord_streams_group_describe(s->coord, &req->ctx, rq, req->res);
        return 0;
    }
    /* Every get is counted before the first starts: a synchronous store
     * may answer inside kc_topology_store_get. */
    h->pending = h->nfetched + 1;
    for (size_t i = 0; i < h->nfetched; i++) {
        store_get_t *gj = kc_xcalloc(1, sizeof(*gj));
        gj->h = h;
        gj->index = i;
        kc_topology_store_get(g->store, h->fetched[i].group_id.ptr, (size_t)h->fetched[i].group_id.len,
                      h->fetched[i].topology_epoch, held_get_done, gj);
    }
    held_step(h);
    return 0;
}

int kc_topology_desc_delete_groups(kc_req_t *req, const kc_reader_t *start,
                           const kc_delete_groups_request_t *rq)
{
    kc_server_t *s = req->srv;
    struct kc_topology_desc_glue *g = s->topology_desc;
    held_request_t *h = NULL;
    if (g && kc_coord_is_loaded(s->coord)) {
        for (int32_t i = 0; i < rq->groups_names.count; i++) {
            kc_str_t gid = rq->groups_names.items[i];
            kc_topology_desc_group_t view;
            if (gid.len < 0 ||
                !kc_request_authorized(&req->ctx, KC_OP_DELETE, KC_RES_GROUP, gid) ||
                lookup(g, gid, &view) != 1 || !kc_topology_desc_delete_needed(g->barrier, &view))
                continue;
            bool dup = false;
            for (int32_t k = 0; k < i && !dup; k++)
                dup = kc_str_eq(rq->groups_names.items[k], gid);
            if (dup)
                continue;
            kc_topology_desc_op_t *op = kc_topology_desc_delete_begin(
                KC_TOPOLOGY_DESC_OP_DELETE_GROUP, gid, &view, req->res);
            if (!op)
                continue;
            if (!h) {
                h = held_new(req, start);
                h->pending = 1; /* released below, once every op is queued */
            }
            held_run(h, op);
        }
    }
    if (!h) {
        kc_coord_delete_groups(s->coord, &req->ctx, rq, req->res);
        return 0;
    }
    held_step(h);
    return 0;
}

int kc_topology_desc_join_group(kc_req_t *req, const kc_reader_t *start, const kc_join_group_request_t *rq)
{
    kc_server_t *s = req->srv;
    struct kc_topology_desc_glue *g = s->topology_desc;
    kc_topology_desc_group_t view;
    /* A new member joining an empty streams group converts it
     * (GroupMetadataManager.classicGroupJoin): its description goes first. */
    if (!g || rq->member_id.len > 0 || !kc_coord_is_loaded(s->coord) ||
        lookup(g, rq->group_id, &view) != 1 || !kc_topology_desc_delete_needed(g->barrier, &view)) {
        kc_coord_join_group(s->coord, &req->ctx, rq, req->res);
        return 0;
    }
    if (kc_topology_desc_conversion_throttled(view.state, req->ctx.now_ms)) {
        return kc_req_respond_error(req, start, KC_ERR_REBALANCE_IN_PROGRESS);
    }
    kc_topology_desc_op_t *op = kc_topology_desc_delete_begin(KC_TOPOLOGY_DESC_OP_CONVERSION,
                                                              rq->group_id, &view, req->res);
    if (!op) {
        kc_coord_join_group(s->coord, &req->ctx, rq, req->res);
        return 0;
    }
    held_request_t *h = held_new(req, start);
    held_run(h, op);
    return 0;
}

void kc_topology_desc_after_commit(kc_server_t *s, bool failed)
{
    struct kc_topology_desc_glue *g = s->topology_desc;
    if (!g || !g->waiting_head)
        return;
    store_job_t *list = g->waiting_head;
    g->waiting_head = g->waiting_tail = NULL;
    bool answered = false;
    while (list) {
        store_job_t *j = list;
        list = j->next;
        j->next = NULL;
        if (failed) {
            /* The -2 did not commit: no store call. The coordinator reloads
             * from what is durable; the client retries. */
            if (j->has_request) {
                respond_update(s, &j->ctx, &s->batch, KC_ERR_NOT_COORDINATOR, NULL, false);
                answered = true;
            }
            if (j->op->kind == KC_TOPOLOGY_DESC_OP_CLEANUP && g->cleanup_in_flight > 0)
                g->cleanup_in_flight--;
            if (j->op->user)
                held_abort(s, j->op);
            job_free(j);
            answered = true;
            continue;
        }
        const kc_topology_desc_op_t *op = j->op;
        if (op->call_set)
            kc_topology_store_set(g->store, op->group_id, op->group_id_len, op->topology_epoch,
                          op->description.data, op->description.len, job_done, j);
        else
            kc_topology_store_del(g->store, op->group_id, op->group_id_len, job_done, j);
    }
    if (answered)
        event_active(g->kick, EV_TIMEOUT, 0);
}

/* ---- StreamsGroupTopologyDescriptionUpdate (API 93) ------------------------------ */

int kc_handle_streams_group_topology_description_update(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    kc_streams_group_topology_description_update_request_t rq;
    kc_streams_group_topology_description_update_request_init(&rq);
    if (kc_streams_group_topology_description_update_request_decode(req->body, req->ctx.api_version,
                                                                    req->arena, &rq) != 0)
        return KC_EINVAL;
    struct kc_topology_desc_glue *g = s->topology_desc;
    char msg[512];
    kc_topology_desc_group_t view;
    bool loaded = kc_coord_is_loaded(s->coord);
    int found = g && loaded ? lookup(g, rq.group_id, &view) : 0;
    bool member = found == 1 && g->groups.has_member &&
                  g->groups.has_member(g->groups.ctx, rq.group_id, rq.member_id);
    int16_t code = kc_topology_desc_push_validate(
        g ? g->barrier : NULL, loaded, found, found == 1 ? &view : NULL, member, rq.group_id,
        rq.member_id, rq.topology_epoch, msg, sizeof(msg));
    if (code != KC_ERR_NONE) {
        respond_update(s, &req->ctx, req->res, code, msg, false);
        return 0;
    }
    kc_buf_t desc;
    kc_buf_init(&desc);
    if (kc_topology_desc_encode(&rq.topology_description, &desc) != 0) {
        kc_buf_deinit(&desc);
        return KC_EINVAL;
    }
    kc_topology_desc_op_t *op = kc_topology_desc_push_begin(rq.group_id, &view, rq.topology_epoch,
                                                            desc.data, desc.len, req->res);
    kc_buf_deinit(&desc);
    if (!op) {
        snprintf(msg, sizeof(msg), "Group %.*s not found.", rq.group_id.len, rq.group_id.ptr);
        respond_update(s, &req->ctx, req->res, KC_ERR_GROUP_ID_NOT_FOUND, msg, false);
        return 0;
    }
    enqueue(s, op, &req->ctx);
    return 0;
}

/* ---- the cleanup cycle (runOneStreamsTopologyCleanupCycle) ------------------------ */

static void cleanup_one(void *arg, kc_str_t group_id)
{
    kc_server_t *s = arg;
    struct kc_topology_desc_glue *g = s->topology_desc;
    kc_topology_desc_group_t view;
    if (lookup(g, group_id, &view) != 1 || !kc_topology_desc_cleanup_eligible(g->barrier, &view))
        return;
    kc_topology_desc_op_t *op =
        kc_topology_desc_delete_begin(KC_TOPOLOGY_DESC_OP_CLEANUP, group_id, &view, &s->batch);
    if (op) {
        g->cleanup_in_flight++;
        enqueue(s, op, NULL);
    }
}

static void cleanup_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_server_t *s = arg;
    struct kc_topology_desc_glue *g = s->topology_desc;
    /* Single flight: a tick while the previous cycle settles is skipped. */
    if (g->cleanup_in_flight > 0) {
        kc_log_warn(COMP, "topology-description cleanup skipped: %zu deletes of the previous "
                          "cycle are still in flight", g->cleanup_in_flight);
    } else if (kc_coord_is_loaded(s->coord) && g->groups.foreach) {
        g->groups.foreach(g->groups.ctx, cleanup_one, s);
    }
    struct timeval tv = {s->cfg->offsets_retention_check_interval_ms / 1000,
                         (s->cfg->offsets_retention_check_interval_ms % 1000) * 1000};
    evtimer_add(g->cleanup_timer, &tv);
}

static void kick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg; /* waking the loop is all: the iteration's commit step sends the answers */
}

/* ---- lifecycle -------------------------------------------------------------------- */

int kc_topology_desc_start(kc_server_t *s)
{
    const kc_config_t *cfg = s->cfg;
    const char *name = cfg->group_streams_topology_description_plugin;
    if (!name || !*name)
        return 0; /* the feature is off */
    char err[1024];
    kc_topology_store_t *store = kc_topology_store_open(s->base, name, cfg->log_dirs,
                                        cfg->group_streams_topology_description_plugin_config,
                                        cfg->group_streams_topology_description_plugin_threads,
                                        err, sizeof(err));
    if (!store) {
        kc_log_error(COMP, "group.streams.topology.description.plugin=%s: %s", name, err);
        return KC_EINVAL;
    }
    struct kc_topology_desc_glue *g = kc_xcalloc(1, sizeof(*g));
    g->store = store;
    kc_topology_desc_config_t tc;
    kc_topology_desc_config_defaults(&tc);
    tc.plugin_configured = true;
    tc.backoff_initial_ms = cfg->group_streams_topology_description_backoff_initial_ms;
    tc.backoff_max_ms = cfg->group_streams_topology_description_backoff_max_ms;
    tc.backoff_jitter_percent = cfg->group_streams_topology_description_backoff_jitter_percent;
    g->barrier = kc_topology_desc_new(&tc, (uint64_t)kc_server_wall_ms());
    g->kick = event_new(s->base, -1, 0, kick_cb, s);
    g->cleanup_timer = evtimer_new(s->base, cleanup_cb, s);
    s->topology_desc = g;
    /* The streams groups: their view for the barrier, and the requests they hold. */
    kc_topology_desc_groups_t groups;
    kc_coord_topology_desc_groups(s->coord, &groups);
    kc_topology_desc_set_groups(s, &groups, held_outcome, s);
    kc_coord_set_topology_desc(s->coord, g->barrier);
    struct timeval tv = {cfg->offsets_retention_check_interval_ms / 1000,
                         (cfg->offsets_retention_check_interval_ms % 1000) * 1000};
    evtimer_add(g->cleanup_timer, &tv);
    return 0;
}

void kc_topology_desc_stop(kc_server_t *s)
{
    struct kc_topology_desc_glue *g = s->topology_desc;
    if (!g)
        return;
    g->stopping = true;
    while (g->waiting_head) {
        store_job_t *j = g->waiting_head;
        g->waiting_head = j->next;
        job_drop(j);
        job_free(j);
    }
    kc_topology_store_close(g->store); /* runs every outstanding callback, which only frees */
    event_free(g->cleanup_timer);
    event_free(g->kick);
    kc_coord_set_topology_desc(s->coord, NULL);
    kc_topology_desc_free(g->barrier);
    free(g);
    s->topology_desc = NULL;
}
