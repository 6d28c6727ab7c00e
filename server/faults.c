/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fault injection for client tests: a coordinator stall that queues requests
 * unprocessed and drains them in read order (as Kafka's request queue does
 * when its handler threads are blocked), injected error responses, delayed
 * responses and connections closed without an answer. Faults are set and
 * cleared through the admin endpoint; each is logged when set, hit and cleared.
 */
#include "server_int.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "kc_log.h"

#define LOG_COMP "faults"

/* A request read while the coordinator is stalled, waiting to be handled. */
typedef struct queued {
    uint64_t conn_id;
    char *peer_host;
    char *listener;
    uint8_t *data;
    size_t len;
    struct queued *next;
} queued_t;

struct kc_faults {
    kc_server_t *srv;
    kc_fault_t *list;
    int64_t next_id;
    queued_t *qhead, *qtail;
    size_t nqueued;
    struct event *stall_timer;
    bool draining;
};

static const char *kind_name(kc_fault_kind_t k)
{
    switch (k) {
    case KC_FAULT_STALL: return "stall";
    case KC_FAULT_ERROR: return "error";
    case KC_FAULT_DELAY: return "delay";
    case KC_FAULT_CLOSE: return "close";
    }
    return "?";
}

static void describe(const kc_fault_t *x, char *buf, size_t cap)
{
    int64_t now = kc_server_mono_ms();
    snprintf(buf, cap, "fault %lld (%s api_key=%d error_code=%d delay_ms=%lld remaining=%lld "
             "window_ms=%lld group_id=%s client_id=%s)",
             (long long)x->id, kind_name(x->kind), x->api_key, x->error_code,
             (long long)x->delay_ms, (long long)x->remaining,
             (long long)(x->until_ms == INT64_MAX ? -1 : x->until_ms - now),
             x->group_id ? x->group_id : "*", x->client_id ? x->client_id : "*");
}

kc_faults_t *kc_faults_new(kc_server_t *s)
{
    kc_faults_t *f = kc_xcalloc(1, sizeof(*f));
    f->srv = s;
    f->next_id = 1;
    return f;
}

static void fault_free(kc_fault_t *x)
{
    free(x->group_id);
    free(x->client_id);
    free(x);
}

static void drain(kc_faults_t *f)
{
    if (f->draining)
        return;
    f->draining = true;
    if (f->nqueued)
        kc_log_info(LOG_COMP, "coordinator stall over: handling %zu queued requests in read order",
                    f->nqueued);
    while (f->qhead) {
        queued_t *q = f->qhead;
        f->qhead = q->next;
        if (!f->qhead)
            f->qtail = NULL;
        f->nqueued--;
        kc_conn_info_t ci = {q->conn_id, q->peer_host, q->listener};
        /* As Kafka's handlers, a request whose connection is gone is still
         * handled; only its response is dropped. */
        kc_server_process_request(f->srv, &ci, q->data, q->len);
        free(q->peer_host);
        free(q->listener);
        free(q->data);
        free(q);
    }
    f->draining = false;
}

static void unlink_fault(kc_faults_t *f, kc_fault_t *x)
{
    for (kc_fault_t **pp = &f->list; *pp; pp = &(*pp)->next) {
        if (*pp == x) {
            *pp = x->next;
            return;
        }
    }
}

static void clear_fault(kc_faults_t *f, kc_fault_t *x, const char *why)
{
    char d[512];
    describe(x, d, sizeof(d));
    kc_log_info(LOG_COMP, "cleared %s after %llu hits: %s", d, (unsigned long long)x->hits, why);
    unlink_fault(f, x);
    fault_free(x);
}

static bool any_stall(const kc_faults_t *f, int64_t *until)
{
    bool found = false;
    int64_t u = 0;
    for (const kc_fault_t *x = f->list; x; x = x->next) {
        if (x->kind == KC_FAULT_STALL) {
            found = true;
            if (x->until_ms > u)
                u = x->until_ms;
        }
    }
    if (until)
        *until = u;
    return found;
}

/* Drops expired faults; drains the queue when no stall is left. */
static void expire(kc_faults_t *f)
{
    int64_t now = kc_server_mono_ms();
    kc_fault_t *x = f->list;
    while (x) {
        kc_fault_t *next = x->next;
        if (x->until_ms <= now)
            clear_fault(f, x, "its window ended");
        x = next;
    }
    if (!any_stall(f, NULL))
        drain(f);
}

static void stall_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_faults_t *f = arg;
    expire(f);
    int64_t until;
    if (any_stall(f, &until) && until != INT64_MAX) {
        int64_t ms = until - kc_server_mono_ms();
        struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
        evtimer_add(f->stall_timer, &tv);
    }
}

void kc_faults_free(kc_faults_t *f)
{
    if (!f)
        return;
    while (f->list) {
        kc_fault_t *x = f->list;
        f->list = x->next;
        fault_free(x);
    }
    drain(f);
    if (f->stall_timer)
        event_free(f->stall_timer);
    free(f);
}

int64_t kc_faults_add(kc_faults_t *f, const kc_fault_t *spec)
{
    kc_fault_t *x = kc_xcalloc(1, sizeof(*x));
    *x = *spec;
    x->id = f->next_id++;
    x->hits = 0;
    x->group_id = spec->group_id ? kc_xstrdup(spec->group_id) : NULL;
    x->client_id = spec->client_id ? kc_xstrdup(spec->client_id) : NULL;
    x->next = NULL;
    kc_fault_t **pp = &f->list;
    while (*pp)
        pp = &(*pp)->next;
    *pp = x;
    char d[512];
    describe(x, d, sizeof(d));
    kc_log_info(LOG_COMP, "set %s", d);
    if (x->until_ms != INT64_MAX || x->kind == KC_FAULT_STALL) {
        if (!f->stall_timer)
            f->stall_timer = evtimer_new(f->srv->base, stall_timer_cb, f);
        stall_timer_cb(-1, 0, f);
        /* Windows of non-stall faults end lazily when matched, or here. */
        if (x->kind != KC_FAULT_STALL && x->until_ms != INT64_MAX && !evtimer_pending(f->stall_timer, NULL)) {
            int64_t ms = x->until_ms - kc_server_mono_ms();
            if (ms < 0)
                ms = 0;
            struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
            evtimer_add(f->stall_timer, &tv);
        }
    }
    return x->id;
}

size_t kc_faults_clear(kc_faults_t *f, int64_t id)
{
    size_t n = 0;
    kc_fault_t *x = f->list;
    while (x) {
        kc_fault_t *next = x->next;
        if (id < 0 || x->id == id) {
            clear_fault(f, x, "cleared by the admin endpoint");
            n++;
        }
        x = next;
    }
    if (!any_stall(f, NULL))
        drain(f);
    return n;
}

const kc_fault_t *kc_faults_list(const kc_faults_t *f) { return f->list; }

size_t kc_faults_queued(const kc_faults_t *f) { return f->nqueued; }

bool kc_faults_stalled(const kc_faults_t *f, int64_t *until_ms)
{
    return f && any_stall(f, until_ms);
}

bool kc_faults_on_request(kc_faults_t *f, const kc_conn_info_t *conn, const uint8_t *data,
                          size_t len)
{
    if (!f || f->draining || !any_stall(f, NULL))
        return false;
    queued_t *q = kc_xcalloc(1, sizeof(*q));
    q->conn_id = conn->conn_id;
    q->peer_host = kc_xstrdup(conn->peer_host ? conn->peer_host : "");
    q->listener = kc_xstrdup(conn->listener ? conn->listener : "");
    q->data = kc_xmalloc(len ? len : 1);
    memcpy(q->data, data, len);
    q->len = len;
    if (f->qtail)
        f->qtail->next = q;
    else
        f->qhead = q;
    f->qtail = q;
    f->nqueued++;
    kc_log_info(LOG_COMP, "coordinator stalled: request from connection %llu queued unhandled "
                "(%zu queued)", (unsigned long long)conn->conn_id, f->nqueued);
    return true;
}

/* The group id a request names: the first body field of the single-group APIs. */
static bool request_group_id(const kc_req_t *req, kc_str_t *out)
{
    int16_t k = req->ctx.api_key, v = req->ctx.api_version;
    bool single = k == KC_API_JOIN_GROUP || k == KC_API_HEARTBEAT || k == KC_API_LEAVE_GROUP ||
                  k == KC_API_SYNC_GROUP || k == KC_API_OFFSET_COMMIT || k == KC_API_OFFSET_DELETE ||
                  (k == KC_API_OFFSET_FETCH && v < 8) || (k == KC_API_FIND_COORDINATOR && v < 4) ||
                  k == KC_API_CONSUMER_GROUP_HEARTBEAT;
    if (!single)
        return false;
    const kc_api_entry_t *e = kc_api_find(k);
    kc_reader_t r = *req->body;
    *out = kc_read_str(&r, v >= e->flexible_min, false);
    return !r.err && out->len >= 0;
}

static bool str_is(kc_str_t s, const char *c)
{
    return s.len >= 0 && strlen(c) == (size_t)s.len && memcmp(s.ptr, c, (size_t)s.len) == 0;
}

static bool matches(const kc_fault_t *x, const kc_req_t *req)
{
    if (x->api_key >= 0 && x->api_key != req->ctx.api_key)
        return false;
    if (x->client_id && !str_is(req->ctx.client_id, x->client_id))
        return false;
    if (x->group_id) {
        kc_str_t g;
        if (!request_group_id(req, &g) || !str_is(g, x->group_id))
            return false;
    }
    return true;
}

/* Counts a hit; the fault is cleared when it has no requests left. */
static void hit(kc_faults_t *f, kc_fault_t *x, const kc_req_t *req, const char *what)
{
    x->hits++;
    if (x->remaining > 0)
        x->remaining--;
    char d[512];
    describe(x, d, sizeof(d));
    kc_log_info(LOG_COMP, "hit %s: %s api %d v%d correlation id %d from connection %llu", d, what,
                req->ctx.api_key, req->ctx.api_version, req->ctx.correlation_id,
                (unsigned long long)req->ctx.conn_id);
    if (x->remaining == 0)
        clear_fault(f, x, "it applied to every request it was set for");
}

bool kc_faults_intercept(kc_faults_t *f, kc_req_t *req)
{
    if (!f || !f->list)
        return false;
    int64_t now = kc_server_mono_ms();
    for (kc_fault_t *x = f->list; x; x = x->next) {
        if (x->until_ms <= now || (x->kind != KC_FAULT_ERROR && x->kind != KC_FAULT_CLOSE) ||
            !matches(x, req))
            continue;
        if (x->kind == KC_FAULT_CLOSE) {
            uint64_t conn = req->ctx.conn_id;
            hit(f, x, req, "closing the connection without answering");
            f->srv->metrics.connections_closed_by_fault++;
            kc_net_close(f->srv->net, conn, "closed by a fault");
            return true;
        }
        kc_buf_t b;
        kc_buf_init(&b);
        if (kc_faults_error_body(req->ctx.api_key, req->ctx.api_version, x->error_code, &b) != 0) {
            kc_buf_deinit(&b);
            continue;
        }
        kc_req_respond(req, &b);
        kc_buf_deinit(&b);
        hit(f, x, req, "answered with its error code");
        return true;
    }
    return false;
}

int64_t kc_faults_response_delay(kc_faults_t *f, const kc_response_t *r)
{
    if (!f)
        return 0;
    int64_t now = kc_server_mono_ms();
    for (kc_fault_t *x = f->list; x; x = x->next) {
        if (x->kind != KC_FAULT_DELAY || x->until_ms <= now ||
            (x->api_key >= 0 && x->api_key != r->api_key))
            continue;
        int64_t d = x->delay_ms;
        x->hits++;
        if (x->remaining > 0 && --x->remaining == 0) {
            char desc[512];
            describe(x, desc, sizeof(desc));
            kc_log_info(LOG_COMP, "hit %s: response to connection %llu delayed", desc,
                        (unsigned long long)r->conn_id);
            clear_fault(f, x, "it applied to every response it was set for");
        } else {
            kc_log_debug(LOG_COMP, "response to connection %llu delayed %lld ms",
                         (unsigned long long)r->conn_id, (long long)d);
        }
        return d;
    }
    return 0;
}

/* ---- error responses, as each request's getErrorResponse builds them ---- */

int kc_faults_error_body(int16_t api_key, int16_t version, int16_t error_code, kc_buf_t *out)
{
    switch (api_key) {
    case KC_API_JOIN_GROUP: {
        kc_join_group_response_t m;
        kc_join_group_response_init(&m);
        m.error_code = error_code;
        m.generation_id = -1;
        m.protocol_name = version >= 7 ? KC_STR_NULL : kc_str("");
        m.leader = kc_str("");
        m.member_id = kc_str("");
        m.members.count = 0;
        return kc_join_group_response_encode(out, version, &m);
    }
    case KC_API_HEARTBEAT: {
        kc_heartbeat_response_t m;
        kc_heartbeat_response_init(&m);
        m.error_code = error_code;
        return kc_heartbeat_response_encode(out, version, &m);
    }
    case KC_API_SYNC_GROUP: {
        kc_sync_group_response_t m;
        kc_sync_group_response_init(&m);
        m.error_code = error_code;
        m.assignment = (kc_bytes_t){(const uint8_t *)"", 0};
        return kc_sync_group_response_encode(out, version, &m);
    }
    case KC_API_LEAVE_GROUP: {
        kc_leave_group_response_t m;
        kc_leave_group_response_init(&m);
        m.error_code = error_code;
        m.members.count = 0;
        return kc_leave_group_response_encode(out, version, &m);
    }
    default:
        return KC_EINVAL;
    }
}
