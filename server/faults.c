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
#include <jansson.h>

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
    struct event *window_timer; /* the next end of a fault's window */
    bool draining;
};

const char *kc_faults_kind_name(kc_fault_kind_t k)
{
    switch (k) {
    case KC_FAULT_STALL: return "stall";
    case KC_FAULT_ERROR: return "error";
    case KC_FAULT_DELAY: return "delay";
    case KC_FAULT_CLOSE: return "close";
    case KC_FAULT_COORDINATOR: return "coordinator";
    }
    return "?";
}

static void describe(const kc_fault_t *x, char *buf, size_t cap)
{
    int64_t now = kc_server_mono_ms();
    snprintf(buf, cap, "fault %lld (%s api_key=%d error_code=%d delay_ms=%lld remaining=%lld "
             "window_ms=%lld group_id=%s client_id=%s)",
             (long long)x->id, kc_faults_kind_name(x->kind), x->api_key, x->error_code,
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

/*
 * The window timer: ends expired windows (a stall's drains its queue), then
 * waits for the next window end of any fault. libevent's clock may fire a
 * timer a little before kc_server_mono_ms reaches the end; the fault is then
 * still there and the timer is armed again for what is left (at least 1 ms).
 */
static void window_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_faults_t *f = arg;
    expire(f);
    int64_t next = INT64_MAX;
    for (const kc_fault_t *x = f->list; x; x = x->next)
        if (x->until_ms < next)
            next = x->until_ms;
    if (next == INT64_MAX) {
        evtimer_del(f->window_timer);
        return;
    }
    int64_t ms = KC_MAX(next - kc_server_mono_ms(), 1);
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
    evtimer_add(f->window_timer, &tv);
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
    if (f->window_timer)
        event_free(f->window_timer);
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
    /* Without a server (unit tests) windows end lazily, when next matched. */
    if (f->srv) {
        if (!f->window_timer)
            f->window_timer = evtimer_new(f->srv->base, window_timer_cb, f);
        window_timer_cb(-1, 0, f);
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
    if (f->window_timer)
        window_timer_cb(-1, 0, f);
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
        if (x->until_ms <= now ||
            (x->kind != KC_FAULT_ERROR && x->kind != KC_FAULT_CLOSE &&
             x->kind != KC_FAULT_COORDINATOR) ||
            (x->kind == KC_FAULT_COORDINATOR && !kc_faults_is_group_api(req->ctx.api_key)) ||
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
        int rc = kc_faults_error_response(req->ctx.api_key, req->ctx.api_version, req->body,
                                          req->arena, x->error_code, &b);
        if (rc == KC_ENOENT) {
            /* acks=0: Kafka sends no error response, the request is dropped. */
            kc_buf_deinit(&b);
            hit(f, x, req, "dropped without a response (acks=0)");
            return true;
        }
        if (rc != 0) {
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

/* ---- fault specs (the JSON body of POST /v1/faults) ---- */

/* Reads an optional integer member within [min, max]; false on a bad value. */
static bool opt_int(json_t *o, const char *name, int64_t min, int64_t max, int64_t *out,
                    char *err, size_t errlen)
{
    json_t *v = json_object_get(o, name);
    if (!v || json_is_null(v))
        return true;
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        snprintf(err, errlen, "%s must be an integer in [%lld, %lld]", name, (long long)min,
                 (long long)max);
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

bool kc_faults_is_group_api(int16_t api_key)
{
    switch (api_key) {
    case KC_API_OFFSET_COMMIT:
    case KC_API_OFFSET_FETCH:
    case KC_API_JOIN_GROUP:
    case KC_API_HEARTBEAT:
    case KC_API_LEAVE_GROUP:
    case KC_API_SYNC_GROUP:
    case KC_API_DESCRIBE_GROUPS:
    case KC_API_DELETE_GROUPS:
    case KC_API_OFFSET_DELETE:
    case KC_API_CONSUMER_GROUP_HEARTBEAT:
    case KC_API_CONSUMER_GROUP_DESCRIBE:
        return true;
    default:
        return false;
    }
}

void kc_faults_spec_deinit(kc_fault_t *spec)
{
    free(spec->group_id);
    free(spec->client_id);
    spec->group_id = spec->client_id = NULL;
}

int kc_faults_parse_spec(const char *text, size_t len, int64_t now_ms, kc_fault_t *spec,
                         char *err, size_t errlen)
{
    memset(spec, 0, sizeof(*spec));
    spec->api_key = -1;
    spec->remaining = -1;
    spec->until_ms = INT64_MAX;
    err[0] = '\0';
    json_error_t jerr;
    json_t *o = json_loadb(text, len, 0, &jerr);
    if (!o || !json_is_object(o)) {
        snprintf(err, errlen, "body is not a JSON object%s%s", o ? "" : ": ", o ? "" : jerr.text);
        json_decref(o);
        return KC_EINVAL;
    }
    const char *type = json_string_value(json_object_get(o, "type"));
    int64_t api = -1, code = 0, count = -1, duration = -1, delay = 0;
    bool ok = opt_int(o, "api_key", 0, KC_METRICS_MAX_API - 1, &api, err, errlen) &&
              opt_int(o, "error_code", -1, INT16_MAX, &code, err, errlen) &&
              opt_int(o, "count", 1, INT64_MAX, &count, err, errlen) &&
              opt_int(o, "duration_ms", 0, 86400000, &duration, err, errlen) &&
              opt_int(o, "delay_ms", 0, 86400000, &delay, err, errlen);
    json_t *g = json_object_get(o, "group_id"), *c = json_object_get(o, "client_id");
    if (ok && ((g && !json_is_string(g) && !json_is_null(g)) ||
               (c && !json_is_string(c) && !json_is_null(c)))) {
        snprintf(err, errlen, "group_id and client_id must be strings");
        ok = false;
    }
    if (ok) {
        if (type && strcmp(type, "stall") == 0) {
            spec->kind = KC_FAULT_STALL;
            if (duration < 0) {
                snprintf(err, errlen, "a stall needs duration_ms");
                ok = false;
            }
        } else if (type && (strcmp(type, "error") == 0 || strcmp(type, "close") == 0)) {
            spec->kind = type[0] == 'e' ? KC_FAULT_ERROR : KC_FAULT_CLOSE;
            const kc_api_entry_t *e = api >= 0 ? kc_api_find((int16_t)api) : NULL;
            kc_buf_t b;
            kc_buf_init(&b);
            kc_arena_t arena;
            kc_arena_init(&arena);
            if (!e) {
                snprintf(err, errlen, "%s needs the api_key of an API kcoord serves", type);
                ok = false;
            } else if (spec->kind == KC_FAULT_ERROR && code == 0) {
                snprintf(err, errlen, "an error fault needs a non-zero error_code");
                ok = false;
            } else if (spec->kind == KC_FAULT_ERROR &&
                       kc_faults_error_response(e->api_key, e->max_version, NULL, &arena,
                                                (int16_t)code, &b) != 0) {
                snprintf(err, errlen, "errors cannot be injected for api key %d",
                         e->api_key);
                ok = false;
            }
            kc_arena_deinit(&arena);
            kc_buf_deinit(&b);
            if (count < 0 && duration < 0)
                count = 1; /* "the next request" */
        } else if (type && strcmp(type, "coordinator") == 0) {
            /* The coordinator of the group is loading, gone or moved (Kafka's
             * CoordinatorRuntime answers these while a partition loads or
             * after it was unloaded). */
            spec->kind = KC_FAULT_COORDINATOR;
            if (code != 14 && code != 15 && code != 16) {
                snprintf(err, errlen, "a coordinator fault needs error_code 14 "
                         "(COORDINATOR_LOAD_IN_PROGRESS), 15 (COORDINATOR_NOT_AVAILABLE) "
                         "or 16 (NOT_COORDINATOR)");
                ok = false;
            } else if (duration < 0) {
                snprintf(err, errlen, "a coordinator fault needs duration_ms");
                ok = false;
            } else if (api >= 0 && !kc_faults_is_group_api((int16_t)api)) {
                snprintf(err, errlen, "api key %lld is not a group API", (long long)api);
                ok = false;
            }
        } else if (type && strcmp(type, "delay") == 0) {
            spec->kind = KC_FAULT_DELAY;
            if (delay <= 0) {
                snprintf(err, errlen, "a delay needs delay_ms > 0");
                ok = false;
            }
        } else {
            snprintf(err, errlen, "type must be stall, error, delay, close or coordinator");
            ok = false;
        }
    }
    if (ok) {
        spec->api_key = (int16_t)api;
        spec->error_code = (int16_t)code;
        spec->remaining = count;
        spec->delay_ms = delay;
        if (duration >= 0)
            spec->until_ms = now_ms + duration;
        if (g && json_is_string(g))
            spec->group_id = kc_xstrdup(json_string_value(g));
        if (c && json_is_string(c))
            spec->client_id = kc_xstrdup(json_string_value(c));
    }
    json_decref(o);
    return ok ? 0 : KC_EINVAL;
}

/* ---- error responses, as each request's getErrorResponse builds them ---- */

const char *kc_faults_error_message(int16_t code)
{
    /* Kafka's default message of the error (Errors.message()), for the
     * responses whose error response carries it. */
    switch (code) {
    case -1: return "The server experienced an unexpected error when processing the request.";
    case 7: return "The request timed out.";
    case 14: return "The coordinator is loading and hence can't process requests.";
    case 15: return "The coordinator is not available.";
    case 16: return "This is not the correct coordinator.";
    case 22: return "Specified group generation id is not valid.";
    case 25: return "The coordinator is not aware of this member.";
    case 27: return "The group is rebalancing, so a rejoin is needed.";
    case 29: return "Topic authorization failed.";
    case 30: return "Group authorization failed.";
    case 31: return "Cluster authorization failed.";
    case 42: return "This most likely occurs because of a request being malformed by the client "
                    "library or the message was sent to an incompatible broker. See the broker "
                    "logs for more details.";
    case 53: return "Transactional Id authorization failed.";
    case 54: return "Security features are disabled.";
    case 3: return "This server does not host this topic-partition.";
    case 5: return "There is no leader for this topic-partition as we are in the middle of a leadership election.";
    case 6: return "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.";
    case 19: return "Messages are rejected since there are fewer in-sync replicas than required.";
    case 35: return "The version of API is not supported.";
    case 56: return "Disk error when trying to access log file on the disk.";
    default: return NULL;
    }
}

static kc_str_t opt_str(const char *c) { return c ? kc_str(c) : KC_STR_NULL; }

/* Decodes the request when there is one; an absent body reads as an empty request. */
#define DECODE(name, rq)                                                                           \
    do {                                                                                           \
        name##_request_init(&rq);                                                                  \
        if (body) {                                                                                \
            kc_reader_t rr = *body;                                                                \
            if (name##_request_decode(&rr, version, arena, &rq) != 0)                              \
                return KC_EINVAL;                                                                  \
        }                                                                                          \
    } while (0)

#define ALLOC(arr, n) ((arr).count = (n), (arr).items = (n) > 0 ? kc_arena_alloc(arena, (size_t)(n) * sizeof(*(arr).items)) : NULL)

static int count_of(int32_t c) { return c < 0 ? 0 : c; }

int kc_faults_error_response(int16_t api_key, int16_t version, const kc_reader_t *body,
                             kc_arena_t *arena, int16_t error_code, kc_buf_t *out)
{
    switch (api_key) {
    case KC_API_SASL_HANDSHAKE: {
        kc_sasl_handshake_response_t m;
        kc_sasl_handshake_response_init(&m);
        m.error_code = error_code;
        m.mechanisms.count = 0;
        return kc_sasl_handshake_response_encode(out, version, &m);
    }
    case KC_API_SASL_AUTHENTICATE: {
        kc_sasl_authenticate_response_t m;
        kc_sasl_authenticate_response_init(&m);
        m.error_code = error_code;
        m.error_message = opt_str(kc_faults_error_message(error_code));
        m.auth_bytes = (kc_bytes_t){(const uint8_t *)"", 0};
        return kc_sasl_authenticate_response_encode(out, version, &m);
    }
    case KC_API_DESCRIBE_ACLS: {
        kc_describe_acls_response_t m;
        kc_describe_acls_response_init(&m);
        m.error_code = error_code;
        m.error_message = opt_str(kc_faults_error_message(error_code));
        m.resources.count = 0;
        return kc_describe_acls_response_encode(out, version, &m);
    }
    case KC_API_CREATE_ACLS: {
        /* One result per requested creation. */
        kc_create_acls_request_t rq;
        DECODE(kc_create_acls, rq);
        kc_create_acls_response_t m;
        kc_create_acls_response_init(&m);
        int n = count_of(rq.creations.count);
        ALLOC(m.results, n);
        for (int i = 0; i < n; i++) {
            m.results.items[i].error_code = error_code;
            m.results.items[i].error_message = opt_str(kc_faults_error_message(error_code));
        }
        return kc_create_acls_response_encode(out, version, &m);
    }
    case KC_API_DELETE_ACLS: {
        /* One result per requested filter, matching nothing. */
        kc_delete_acls_request_t rq;
        DECODE(kc_delete_acls, rq);
        kc_delete_acls_response_t m;
        kc_delete_acls_response_init(&m);
        int n = count_of(rq.filters.count);
        ALLOC(m.filter_results, n);
        for (int i = 0; i < n; i++) {
            m.filter_results.items[i].error_code = error_code;
            m.filter_results.items[i].error_message =
                opt_str(kc_faults_error_message(error_code));
            m.filter_results.items[i].matching_acls.count = 0;
        }
        return kc_delete_acls_response_encode(out, version, &m);
    }
    case KC_API_STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE: {
        kc_streams_group_topology_description_update_response_t m;
        kc_streams_group_topology_description_update_response_init(&m);
        m.error_code = error_code;
        m.error_message = opt_str(kc_faults_error_message(error_code));
        return kc_streams_group_topology_description_update_response_encode(out, version, &m);
    }
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
    case KC_API_LIST_GROUPS: {
        kc_list_groups_response_t m;
        kc_list_groups_response_init(&m);
        m.error_code = error_code;
        m.groups.count = 0;
        return kc_list_groups_response_encode(out, version, &m);
    }
    case KC_API_CONSUMER_GROUP_HEARTBEAT: {
        kc_consumer_group_heartbeat_response_t m;
        kc_consumer_group_heartbeat_response_init(&m);
        m.error_code = error_code;
        return kc_consumer_group_heartbeat_response_encode(out, version, &m);
    }
    case KC_API_OFFSET_COMMIT: {
        /* Every requested partition carries the error. */
        kc_offset_commit_request_t rq;
        DECODE(kc_offset_commit, rq);
        kc_offset_commit_response_t m;
        kc_offset_commit_response_init(&m);
        int nt = count_of(rq.topics.count);
        ALLOC(m.topics, nt);
        for (int i = 0; i < nt; i++) {
            const kc_offset_commit_request_topic_t *t = &rq.topics.items[i];
            kc_offset_commit_response_topic_response_t *o = &m.topics.items[i];
            memset(o, 0, sizeof(*o));
            o->name = t->name;
            o->topic_id = t->topic_id;
            int np = count_of(t->partitions.count);
            ALLOC(o->partitions, np);
            for (int j = 0; j < np; j++) {
                o->partitions.items[j].partition_index = t->partitions.items[j].partition_index;
                o->partitions.items[j].error_code = error_code;
            }
        }
        return kc_offset_commit_response_encode(out, version, &m);
    }
    case KC_API_OFFSET_FETCH: {
        /* v0-1: every requested partition; v2-7: the top-level code; v8+: every group. */
        kc_offset_fetch_request_t rq;
        DECODE(kc_offset_fetch, rq);
        kc_offset_fetch_response_t m;
        kc_offset_fetch_response_init(&m);
        if (version < 2) {
            int nt = count_of(rq.topics.count);
            ALLOC(m.topics, nt);
            for (int i = 0; i < nt; i++) {
                const kc_offset_fetch_request_topic_t *t = &rq.topics.items[i];
                kc_offset_fetch_response_topic_response_t *o = &m.topics.items[i];
                o->name = t->name;
                int np = count_of(t->partition_indexes.count);
                ALLOC(o->partitions, np);
                for (int j = 0; j < np; j++) {
                    kc_offset_fetch_response_partition_t *p = &o->partitions.items[j];
                    p->partition_index = t->partition_indexes.items[j];
                    p->committed_offset = -1;
                    p->committed_leader_epoch = -1;
                    p->metadata = kc_str("");
                    p->error_code = error_code;
                }
            }
        } else if (version < 8) {
            m.topics.count = 0;
            m.error_code = error_code;
        } else {
            int ng = count_of(rq.groups.count);
            ALLOC(m.groups, ng);
            for (int i = 0; i < ng; i++) {
                memset(&m.groups.items[i], 0, sizeof(m.groups.items[i]));
                m.groups.items[i].group_id = rq.groups.items[i].group_id;
                m.groups.items[i].error_code = error_code;
            }
        }
        return kc_offset_fetch_response_encode(out, version, &m);
    }
    case KC_API_FIND_COORDINATOR: {
        /* No node (id -1, host "", port -1); v4+: one entry per key. */
        kc_find_coordinator_request_t rq;
        DECODE(kc_find_coordinator, rq);
        kc_find_coordinator_response_t m;
        kc_find_coordinator_response_init(&m);
        kc_str_t msg = opt_str(kc_faults_error_message(error_code));
        if (version < 4) {
            m.error_code = error_code;
            m.error_message = msg;
            m.node_id = -1;
            m.host = kc_str("");
            m.port = -1;
            m.coordinators.count = 0;
        } else {
            int n = count_of(rq.coordinator_keys.count);
            ALLOC(m.coordinators, n);
            for (int i = 0; i < n; i++) {
                kc_find_coordinator_response_coordinator_t *c = &m.coordinators.items[i];
                c->key = rq.coordinator_keys.items[i];
                c->node_id = -1;
                c->host = kc_str("");
                c->port = -1;
                c->error_code = error_code;
                c->error_message = msg;
            }
        }
        return kc_find_coordinator_response_encode(out, version, &m);
    }
    case KC_API_DESCRIBE_GROUPS: {
        /* Every group: unknown state "", no protocol, no members. */
        kc_describe_groups_request_t rq;
        DECODE(kc_describe_groups, rq);
        kc_describe_groups_response_t m;
        kc_describe_groups_response_init(&m);
        int n = count_of(rq.groups.count);
        ALLOC(m.groups, n);
        for (int i = 0; i < n; i++) {
            kc_describe_groups_response_described_group_t *g = &m.groups.items[i];
            memset(g, 0, sizeof(*g));
            g->error_code = error_code;
            g->error_message = KC_STR_NULL;
            g->group_id = rq.groups.items[i];
            g->group_state = kc_str("");
            g->protocol_type = kc_str("");
            g->protocol_data = kc_str("");
            g->members.count = 0;
            g->authorized_operations = INT32_MIN;
        }
        return kc_describe_groups_response_encode(out, version, &m);
    }
    case KC_API_DELETE_GROUPS: {
        kc_delete_groups_request_t rq;
        DECODE(kc_delete_groups, rq);
        kc_delete_groups_response_t m;
        kc_delete_groups_response_init(&m);
        int n = count_of(rq.groups_names.count);
        ALLOC(m.results, n);
        for (int i = 0; i < n; i++) {
            m.results.items[i].group_id = rq.groups_names.items[i];
            m.results.items[i].error_code = error_code;
            m.results.items[i].error_message = KC_STR_NULL;
        }
        return kc_delete_groups_response_encode(out, version, &m);
    }
    case KC_API_OFFSET_DELETE: {
        kc_offset_delete_response_t m;
        kc_offset_delete_response_init(&m);
        m.error_code = error_code;
        m.topics.count = 0;
        return kc_offset_delete_response_encode(out, version, &m);
    }
    case KC_API_CONSUMER_GROUP_DESCRIBE: {
        kc_consumer_group_describe_request_t rq;
        DECODE(kc_consumer_group_describe, rq);
        kc_consumer_group_describe_response_t m;
        kc_consumer_group_describe_response_init(&m);
        int n = count_of(rq.group_ids.count);
        ALLOC(m.groups, n);
        for (int i = 0; i < n; i++) {
            kc_consumer_group_describe_response_described_group_t *g = &m.groups.items[i];
            memset(g, 0, sizeof(*g));
            g->error_code = error_code;
            g->error_message = KC_STR_NULL;
            g->group_id = rq.group_ids.items[i];
            g->group_state = kc_str("");
            g->assignor_name = kc_str("");
            g->members.count = 0;
            g->authorized_operations = INT32_MIN;
        }
        return kc_consumer_group_describe_response_encode(out, version, &m);
    }
    case KC_API_STREAMS_GROUP_HEARTBEAT: {
        kc_streams_group_heartbeat_response_t m;
        kc_streams_group_heartbeat_response_init(&m);
        m.error_code = error_code;
        m.error_message = opt_str(kc_faults_error_message(error_code));
        m.member_id = kc_str("");
        return kc_streams_group_heartbeat_response_encode(out, version, &m);
    }
    case KC_API_STREAMS_GROUP_DESCRIBE: {
        kc_streams_group_describe_request_t rq;
        DECODE(kc_streams_group_describe, rq);
        kc_streams_group_describe_response_t m;
        kc_streams_group_describe_response_init(&m);
        int n = count_of(rq.group_ids.count);
        ALLOC(m.groups, n);
        for (int i = 0; i < n; i++) {
            kc_streams_group_describe_response_described_group_t *g = &m.groups.items[i];
            memset(g, 0, sizeof(*g));
            g->error_code = error_code;
            g->error_message = KC_STR_NULL;
            g->group_id = rq.group_ids.items[i];
            g->group_state = kc_str("");
            g->assignor_name = KC_STR_NULL;
            g->members.count = 0;
            g->authorized_operations = INT32_MIN;
        }
        return kc_streams_group_describe_response_encode(out, version, &m);
    }
    case KC_API_PRODUCE: {
        /* Every partition: base offset -1, no append time, log start -1 and
         * the error's message; acks=0 gets no response at all. */
        kc_produce_request_t rq;
        DECODE(kc_produce, rq);
        if (body && rq.acks == 0)
            return KC_ENOENT;
        kc_produce_response_t m;
        kc_produce_response_init(&m);
        kc_str_t msg = opt_str(kc_faults_error_message(error_code));
        int nt = count_of(rq.topic_data.count);
        ALLOC(m.responses, nt);
        for (int i = 0; i < nt; i++) {
            const kc_produce_request_topic_produce_data_t *t = &rq.topic_data.items[i];
            kc_produce_response_topic_produce_response_t *o = &m.responses.items[i];
            memset(o, 0, sizeof(*o));
            o->name = t->name;
            o->topic_id = t->topic_id;
            int np = count_of(t->partition_data.count);
            ALLOC(o->partition_responses, np);
            for (int j = 0; j < np; j++) {
                kc_produce_response_partition_produce_response_t *x = &o->partition_responses.items[j];
                memset(x, 0, sizeof(*x));
                x->index = t->partition_data.items[j].index;
                x->error_code = error_code;
                x->base_offset = -1;
                x->log_append_time_ms = -1;
                x->log_start_offset = -1;
                x->record_errors.count = 0;
                x->error_message = msg;
                x->current_leader = (kc_produce_response_leader_id_and_epoch_t){-1, -1};
            }
        }
        return kc_produce_response_encode(out, version, &m);
    }
    case KC_API_FETCH: {
        /* v7+: the top-level code and the request's session id; below v13
         * also every partition (high watermark -1, no records). */
        kc_fetch_request_t rq;
        DECODE(kc_fetch, rq);
        kc_fetch_response_t m;
        kc_fetch_response_init(&m);
        m.error_code = error_code;
        m.session_id = rq.session_id;
        int nt = version < 13 ? count_of(rq.topics.count) : 0;
        ALLOC(m.responses, nt);
        for (int i = 0; i < nt; i++) {
            const kc_fetch_request_topic_t *t = &rq.topics.items[i];
            kc_fetch_response_fetchable_topic_response_t *o = &m.responses.items[i];
            memset(o, 0, sizeof(*o));
            o->topic = t->topic;
            o->topic_id = t->topic_id;
            int np = count_of(t->partitions.count);
            ALLOC(o->partitions, np);
            for (int j = 0; j < np; j++) {
                kc_fetch_response_partition_data_t *x = &o->partitions.items[j];
                memset(x, 0, sizeof(*x));
                x->partition_index = t->partitions.items[j].partition;
                x->error_code = error_code;
                x->high_watermark = -1;
                x->last_stable_offset = -1;
                x->log_start_offset = -1;
                x->diverging_epoch = (kc_fetch_response_epoch_end_offset_t){-1, -1};
                x->current_leader = (kc_fetch_response_leader_id_and_epoch_t){-1, -1};
                x->snapshot_id = (kc_fetch_response_snapshot_id_t){-1, -1};
                x->aborted_transactions.count = version >= 4 ? -1 : 0;
                x->preferred_read_replica = -1;
                x->records = (kc_bytes_t){(const uint8_t *)"", 0};
            }
        }
        return kc_fetch_response_encode(out, version, &m);
    }
    case KC_API_LIST_OFFSETS: {
        /* Every partition: offset and timestamp -1. */
        kc_list_offsets_request_t rq;
        DECODE(kc_list_offsets, rq);
        kc_list_offsets_response_t m;
        kc_list_offsets_response_init(&m);
        int nt = count_of(rq.topics.count);
        ALLOC(m.topics, nt);
        for (int i = 0; i < nt; i++) {
            const kc_list_offsets_request_topic_t *t = &rq.topics.items[i];
            kc_list_offsets_response_topic_response_t *o = &m.topics.items[i];
            o->name = t->name;
            int np = count_of(t->partitions.count);
            ALLOC(o->partitions, np);
            for (int j = 0; j < np; j++) {
                kc_list_offsets_response_partition_response_t *x = &o->partitions.items[j];
                memset(x, 0, sizeof(*x));
                x->partition_index = t->partitions.items[j].partition_index;
                x->error_code = error_code;
                x->old_style_offsets.count = 0;
                x->timestamp = -1;
                x->offset = -1;
                x->leader_epoch = -1;
            }
        }
        return kc_list_offsets_response_encode(out, version, &m);
    }
    case KC_API_METADATA: {
        /* No brokers; every requested topic (none for "all topics") with the
         * code, not internal, no partitions; v13+ the top-level code too. */
        kc_metadata_request_t rq;
        DECODE(kc_metadata, rq);
        kc_metadata_response_t m;
        kc_metadata_response_init(&m);
        m.brokers.count = 0;
        m.error_code = error_code;
        int nt = count_of(rq.topics.count);
        ALLOC(m.topics, nt);
        for (int i = 0; i < nt; i++) {
            kc_metadata_response_topic_response_t *o = &m.topics.items[i];
            memset(o, 0, sizeof(*o));
            o->error_code = error_code;
            o->name = rq.topics.items[i].name.len >= 0 ? rq.topics.items[i].name : kc_str("");
            o->topic_id = rq.topics.items[i].topic_id;
            o->partitions.count = 0;
            o->topic_authorized_operations = INT32_MIN;
        }
        return kc_metadata_response_encode(out, version, &m);
    }
    case KC_API_API_VERSIONS: {
        /* The code, no API list (UNSUPPORTED_VERSION: ApiVersions' own range). */
        kc_api_versions_response_t m;
        kc_api_versions_response_init(&m);
        m.error_code = error_code;
        m.api_keys.count = 0;
        if (error_code == KC_ERR_UNSUPPORTED_VERSION) {
            ALLOC(m.api_keys, 1);
            m.api_keys.items[0] = (kc_api_versions_response_api_version_t){
                KC_API_API_VERSIONS, KC_API_VERSIONS_REQUEST_MIN_VERSION,
                KC_API_VERSIONS_REQUEST_MAX_VERSION};
        }
        return kc_api_versions_response_encode(out, version, &m);
    }
    case KC_API_CREATE_TOPICS: {
        kc_create_topics_request_t rq;
        DECODE(kc_create_topics, rq);
        kc_create_topics_response_t m;
        kc_create_topics_response_init(&m);
        kc_str_t msg = opt_str(kc_faults_error_message(error_code));
        int nt = count_of(rq.topics.count);
        ALLOC(m.topics, nt);
        for (int i = 0; i < nt; i++) {
            kc_create_topics_response_creatable_topic_result_t *o = &m.topics.items[i];
            memset(o, 0, sizeof(*o));
            o->name = rq.topics.items[i].name;
            o->error_code = error_code;
            o->error_message = msg;
            o->num_partitions = -1;
            o->replication_factor = -1;
            o->configs.count = 0;
        }
        return kc_create_topics_response_encode(out, version, &m);
    }
    case KC_API_DELETE_TOPICS: {
        /* Every topic (by name, v6+ also by id); no message. */
        kc_delete_topics_request_t rq;
        DECODE(kc_delete_topics, rq);
        kc_delete_topics_response_t m;
        kc_delete_topics_response_init(&m);
        int nt = count_of(version >= 6 ? rq.topics.count : rq.topic_names.count);
        ALLOC(m.responses, nt);
        for (int i = 0; i < nt; i++) {
            kc_delete_topics_response_deletable_topic_result_t *o = &m.responses.items[i];
            memset(o, 0, sizeof(*o));
            if (version >= 6) {
                o->name = rq.topics.items[i].name;
                o->topic_id = rq.topics.items[i].topic_id;
            } else {
                o->name = rq.topic_names.items[i];
            }
            o->error_code = error_code;
            o->error_message = KC_STR_NULL;
        }
        return kc_delete_topics_response_encode(out, version, &m);
    }
    case KC_API_DELETE_RECORDS: {
        /* Every partition: low watermark -1. */
        kc_delete_records_request_t rq;
        DECODE(kc_delete_records, rq);
        kc_delete_records_response_t m;
        kc_delete_records_response_init(&m);
        int nt = count_of(rq.topics.count);
        ALLOC(m.topics, nt);
        for (int i = 0; i < nt; i++) {
            const kc_delete_records_request_delete_records_topic_t *t = &rq.topics.items[i];
            kc_delete_records_response_delete_records_topic_result_t *o = &m.topics.items[i];
            o->name = t->name;
            int np = count_of(t->partitions.count);
            ALLOC(o->partitions, np);
            for (int j = 0; j < np; j++) {
                o->partitions.items[j].partition_index = t->partitions.items[j].partition_index;
                o->partitions.items[j].low_watermark = -1;
                o->partitions.items[j].error_code = error_code;
            }
        }
        return kc_delete_records_response_encode(out, version, &m);
    }
    case KC_API_INIT_PRODUCER_ID: {
        kc_init_producer_id_response_t m;
        kc_init_producer_id_response_init(&m);
        m.error_code = error_code;
        m.producer_id = -1;
        m.producer_epoch = -1;
        return kc_init_producer_id_response_encode(out, version, &m);
    }
    case KC_API_DESCRIBE_CONFIGS: {
        /* Every resource: the code and message, no configs. */
        kc_describe_configs_request_t rq;
        DECODE(kc_describe_configs, rq);
        kc_describe_configs_response_t m;
        kc_describe_configs_response_init(&m);
        kc_str_t msg = opt_str(kc_faults_error_message(error_code));
        int n = count_of(rq.resources.count);
        ALLOC(m.results, n);
        for (int i = 0; i < n; i++) {
            kc_describe_configs_response_describe_configs_result_t *o = &m.results.items[i];
            memset(o, 0, sizeof(*o));
            o->error_code = error_code;
            o->error_message = msg;
            o->resource_type = rq.resources.items[i].resource_type;
            o->resource_name = rq.resources.items[i].resource_name;
            o->configs.count = 0;
        }
        return kc_describe_configs_response_encode(out, version, &m);
    }
    case KC_API_CREATE_PARTITIONS: {
        kc_create_partitions_request_t rq;
        DECODE(kc_create_partitions, rq);
        kc_create_partitions_response_t m;
        kc_create_partitions_response_init(&m);
        kc_str_t msg = opt_str(kc_faults_error_message(error_code));
        int n = count_of(rq.topics.count);
        ALLOC(m.results, n);
        for (int i = 0; i < n; i++) {
            m.results.items[i].name = rq.topics.items[i].name;
            m.results.items[i].error_code = error_code;
            m.results.items[i].error_message = msg;
        }
        return kc_create_partitions_response_encode(out, version, &m);
    }
    default:
        return KC_EINVAL;
    }
}
