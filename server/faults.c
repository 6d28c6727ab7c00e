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
    /* Without a server (unit tests) windows end lazily, when next matched.
     * A window of 0 ms has ended already: the callback frees x. */
    int64_t id = x->id;
    if (f->srv) {
        if (!f->window_timer)
            f->window_timer = evtimer_new(f->srv->base, window_timer_cb, f);
        window_timer_cb(-1, 0, f);
    }
    return id;
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
    /* The frame starts with the request header's api key. */
    const kc_api_entry_t *e = len >= 2 ? kc_api_find((int16_t)((data[0] << 8) | data[1])) : NULL;
    kc_log_info(LOG_COMP, "coordinator stalled: %s request from connection %llu queued unhandled "
                "(%zu queued)", e ? e->name : "unknown", (unsigned long long)conn->conn_id,
                f->nqueued);
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

/* Whether a coordinator fault hits req: a request of a coordinator API,
 * InitProducerId only with a transactional id (an idempotent producer's
 * needs no coordinator). */
static bool coordinator_request(const kc_req_t *req)
{
    if (!kc_faults_is_coordinator_api(req->ctx.api_key))
        return false;
    if (req->ctx.api_key != KC_API_INIT_PRODUCER_ID)
        return true;
    kc_reader_t r = *req->body;
    kc_str_t id = kc_read_str(&r, req->ctx.api_version >= KC_INIT_PRODUCER_ID_REQUEST_FLEXIBLE_MIN,
                              true);
    return !r.err && id.len >= 0;
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
            (x->kind == KC_FAULT_COORDINATOR && !coordinator_request(req)) ||
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
        int rc = kc_msg_error_response_encode(req->ctx.api_key, req->ctx.api_version, req->body,
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

/* The fields of a fault spec; any other is refused, so that a misspelt
 * one (a "group" meant as group_id) cannot widen a fault unseen. */
static const char *const spec_fields[] = {"type",        "api_key",  "error_code", "count",
                                          "duration_ms", "delay_ms", "group_id",   "client_id"};

static bool known_fields(json_t *o, char *err, size_t errlen)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        bool known = false;
        for (size_t i = 0; i < KC_ARRAY_LEN(spec_fields) && !known; i++)
            known = strcmp(key, spec_fields[i]) == 0;
        if (!known) {
            /* At most 64 bytes of the name, not cutting a UTF-8 sequence. */
            int n = (int)strnlen(key, 64);
            while (n > 0 && key[n] && ((unsigned char)key[n] & 0xc0) == 0x80)
                n--;
            snprintf(err, errlen, "unknown field \"%.*s\" (known: type, api_key, error_code, "
                     "count, duration_ms, delay_ms, group_id, client_id)", n, key);
            return false;
        }
    }
    return true;
}

bool kc_faults_is_coordinator_api(int16_t api_key)
{
    switch (api_key) {
    case KC_API_INIT_PRODUCER_ID:
    case KC_API_ADD_PARTITIONS_TO_TXN:
    case KC_API_ADD_OFFSETS_TO_TXN:
    case KC_API_END_TXN:
    case KC_API_TXN_OFFSET_COMMIT:
    case KC_API_DESCRIBE_TRANSACTIONS:
    case KC_API_LIST_TRANSACTIONS:
        return true;
    default:
        return kc_faults_is_group_api(api_key);
    }
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
    bool ok = known_fields(o, err, errlen) && opt_int(o, "api_key", 0, KC_METRICS_MAX_API - 1, &api, err, errlen) &&
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
                       kc_msg_error_response_encode(e->api_key, e->max_version, NULL, &arena,
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
            /* The coordinator of the group or transactional id is loading,
             * gone or moved (Kafka's CoordinatorRuntime and
             * TransactionStateManager answer these while a partition loads
             * or after it was unloaded). */
            spec->kind = KC_FAULT_COORDINATOR;
            if (code != 14 && code != 15 && code != 16) {
                snprintf(err, errlen, "a coordinator fault needs error_code 14 "
                         "(COORDINATOR_LOAD_IN_PROGRESS), 15 (COORDINATOR_NOT_AVAILABLE) "
                         "or 16 (NOT_COORDINATOR)");
                ok = false;
            } else if (duration < 0) {
                snprintf(err, errlen, "a coordinator fault needs duration_ms");
                ok = false;
            } else if (api >= 0 && !kc_faults_is_coordinator_api((int16_t)api)) {
                snprintf(err, errlen, "api key %lld is not a coordinator API", (long long)api);
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
