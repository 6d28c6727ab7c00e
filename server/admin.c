/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The admin HTTP endpoint (admin.listeners, off by default): fault injection
 * (POST/GET/DELETE /v1/faults), a liveness probe (GET /v1/health), read-only group views (GET /v1/groups,
 * GET /v1/groups/{id}), a bounded ring of coordinator events (GET /v1/events),
 * Prometheus metrics (GET /metrics) and the console (GET /, static files
 * compiled in from console/). It runs on the
 * broker's loop, so every view is a consistent snapshot between two
 * requests. JSON field names are documented in docs/admin.md and kept stable.
 */
#include "server_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "console_assets.h"
#include "consumer_protocol.h"
#include "kc_log.h"

#define LOG_COMP "admin"

static const double rebalance_bounds_s[] = {0.1, 0.5, 1, 3, 5, 10, 30, 60, 300};
#define REBALANCE_BUCKETS KC_ARRAY_LEN(rebalance_bounds_s)

/* One coordinator event kept for GET /v1/events; the strings are owned. */
typedef struct {
    uint64_t seq;
    int64_t time_ms;
    kc_coord_event_type_t type;
    char *group_id;  /* "" for a transaction event */
    const char *group_type; /* static; NULL: unknown */
    char *member_id; /* NULL: about the group */
    char *reason;    /* NULL: none */
    int32_t generation;
    int64_t duration_ms;
    char *transactional_id; /* transaction events only, else NULL */
    int64_t producer_id;
    int16_t producer_epoch;
} ring_event_t;

/* The reasons of the transaction aborts, as the events and the metrics name them. */
static const char *const abort_reasons[] = {"client", "timed_out", "producer_fenced", "loaded"};
#define ABORT_REASONS KC_ARRAY_LEN(abort_reasons)

#define ERR_SLOTS 200

/* A client following GET /v1/events as server-sent events. */
typedef struct event_stream {
    struct kc_admin *admin;
    struct evhttp_request *rq;
    struct evhttp_connection *evcon;
    uint64_t id;
    char peer[64];
    struct event_stream *next, *prev;
} event_stream_t;

struct kc_admin {
    kc_server_t *srv;
    struct evhttp *http;
    uint16_t port;
    /* coordinator events, counted by the event sink */
    uint64_t events[KC_COORD_EV_COUNT];
    uint64_t txn_aborted[ABORT_REASONS]; /* TXN_ABORTED events by reason */
    uint64_t rebalance_bucket[REBALANCE_BUCKETS]; /* cumulative */
    double rebalance_sum_s;
    /* The event ring: at most ring_max events, oldest at ring_head. The
     * array grows (up to ring_max) as events arrive. */
    ring_event_t *ring;
    size_t ring_alloc, ring_len, ring_head, ring_max;
    uint64_t next_seq; /* the seq the next event gets; from 1 */
    uint64_t dropped;  /* events that fell out of the ring */
    event_stream_t *streams; /* open event streams */
    size_t nstreams;
    uint64_t next_stream_id;
    uint64_t streams_cut; /* streams disconnected for falling behind */
    struct event *keepalive;
    /* Error codes in responses, [api key][code + 1] (codes -1 to
     * ERR_SLOTS - 2), NONE included as Kafka's ErrorsPerSec counts it. */
    uint64_t (*errors)[ERR_SLOTS];
    kc_arena_t err_arena; /* scratch for decoding a response */
};

/* Seconds between the keepalive comments sent on an idle event stream. */
#define KC_ADMIN_STREAM_KEEPALIVE_S 15

static char *dup_or_null(const char *s) { return s ? kc_xstrdup(s) : NULL; }

static void ring_event_free(ring_event_t *e)
{
    free(e->group_id);
    free(e->member_id);
    free(e->reason);
    free(e->transactional_id);
}

static void ring_push(struct kc_admin *a, const kc_coord_event_t *ev)
{
    ring_event_t *slot;
    if (a->ring_len == a->ring_max) {
        slot = &a->ring[a->ring_head];
        ring_event_free(slot);
        a->ring_head = (a->ring_head + 1) % a->ring_alloc;
        a->dropped++;
    } else {
        if (a->ring_len == a->ring_alloc) {
            /* Only grows while nothing has been dropped, so head is 0. */
            size_t n = a->ring_alloc ? a->ring_alloc * 2 : 64;
            if (n > a->ring_max)
                n = a->ring_max;
            a->ring = kc_xrealloc(a->ring, n * sizeof(*a->ring));
            a->ring_alloc = n;
        }
        slot = &a->ring[(a->ring_head + a->ring_len) % a->ring_alloc];
        a->ring_len++;
    }
    *slot = (ring_event_t){
        .seq = a->next_seq++,
        .time_ms = ev->time_ms,
        .type = ev->type,
        .group_id = kc_xstrdup(ev->group_id ? ev->group_id : ""),
        .group_type = ev->group_type,
        .member_id = dup_or_null(ev->member_id),
        .reason = dup_or_null(ev->reason),
        .generation = ev->generation_id,
        .duration_ms = ev->duration_ms,
        .transactional_id = dup_or_null(ev->transactional_id),
        .producer_id = ev->producer_id,
        .producer_epoch = ev->producer_epoch,
    };
}

static json_t *jstr(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *event_json(const ring_event_t *e)
{
    if (e->type >= KC_COORD_EV_FIRST_TXN)
        return json_pack("{s:I,s:I,s:s,s:s,s:I,s:i,s:I,s:o}", "seq", (json_int_t)e->seq,
                         "time_ms", (json_int_t)e->time_ms, "type", kc_coord_event_name(e->type),
                         "transactional_id", e->transactional_id ? e->transactional_id : "",
                         "producer_id", (json_int_t)e->producer_id, "producer_epoch",
                         e->producer_epoch, "duration_ms", (json_int_t)e->duration_ms, "reason",
                         jstr(e->reason));
    return json_pack("{s:I,s:I,s:s,s:s,s:o,s:o,s:i,s:I,s:o}", "seq", (json_int_t)e->seq,
                     "time_ms", (json_int_t)e->time_ms, "type", kc_coord_event_name(e->type),
                     "group_id", e->group_id, "group_type", jstr(e->group_type), "member_id",
                     jstr(e->member_id), "generation", e->generation, "duration_ms",
                     (json_int_t)e->duration_ms, "reason", jstr(e->reason));
}

/* One server-sent event: "id: SEQ", "event: TYPE", "data: JSON", blank line. */
static void sse_frame(struct evbuffer *out, const ring_event_t *e)
{
    json_t *j = event_json(e);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    evbuffer_add_printf(out, "id: %llu\nevent: %s\ndata: %s\n\n", (unsigned long long)e->seq,
                        kc_coord_event_name(e->type), text ? text : "null");
    free(text);
}

/* Forgets a stream (its connection is going away). */
static void stream_remove(event_stream_t *st, const char *why)
{
    struct kc_admin *a = st->admin;
    if (st->prev)
        st->prev->next = st->next;
    else
        a->streams = st->next;
    if (st->next)
        st->next->prev = st->prev;
    a->nstreams--;
    kc_log_info(LOG_COMP, "event stream %llu to %s closed: %s (%zu open)",
                (unsigned long long)st->id, st->peer, why, a->nstreams);
    free(st);
}

/* The client closed the connection. */
static void stream_closed(struct evhttp_connection *evcon, void *arg)
{
    (void)evcon;
    event_stream_t *st = arg;
    /* evhttp detaches the unfinished reply of a connection that failed and
     * leaves it to us; otherwise the connection being freed frees it. */
    if (!evhttp_request_get_connection(st->rq))
        evhttp_request_free(st->rq);
    stream_remove(st, "the client went away");
}

/* Closes a stream from this side. */
static void stream_cut(event_stream_t *st, const char *why)
{
    struct evhttp_connection *evcon = st->evcon;
    evhttp_connection_set_closecb(evcon, NULL, NULL);
    stream_remove(st, why);
    evhttp_connection_free(evcon);
}

/*
 * Sends frame to one stream. A client that does not read is cut once the
 * output waiting for it would pass admin.events.stream.max.bytes, so a slow
 * reader cannot make kcoord's memory grow without bound. The stream may be
 * freed on return.
 */
static void stream_send(event_stream_t *st, struct evbuffer *frame)
{
    struct kc_admin *a = st->admin;
    struct bufferevent *bev = evhttp_connection_get_bufferevent(st->evcon);
    size_t pending = bev ? evbuffer_get_length(bufferevent_get_output(bev)) : 0;
    size_t max = (size_t)a->srv->cfg->admin_events_stream_max_bytes;
    if (pending + evbuffer_get_length(frame) > max) {
        kc_log_warn(LOG_COMP,
                    "event stream %llu to %s is not reading: %zu bytes unsent "
                    "(admin.events.stream.max.bytes=%zu), disconnecting it",
                    (unsigned long long)st->id, st->peer, pending, max);
        a->streams_cut++;
        stream_cut(st, "not reading");
        return;
    }
    struct evbuffer *copy = evbuffer_new();
    evbuffer_add(copy, evbuffer_pullup(frame, -1), evbuffer_get_length(frame));
    evhttp_send_reply_chunk(st->rq, copy);
    evbuffer_free(copy);
}

static void on_coord_event(void *arg, const kc_coord_event_t *ev)
{
    struct kc_admin *a = arg;
    if ((int)ev->type < 0 || ev->type >= KC_COORD_EV_COUNT)
        return;
    ring_push(a, ev);
    if (a->streams) {
        struct evbuffer *frame = evbuffer_new();
        sse_frame(frame, &a->ring[(a->ring_head + a->ring_len - 1) % a->ring_alloc]);
        for (event_stream_t *st = a->streams, *next; st; st = next) {
            next = st->next;
            stream_send(st, frame);
        }
        evbuffer_free(frame);
    }
    a->events[ev->type]++;
    if (ev->type == KC_COORD_EV_TXN_ABORTED)
        for (size_t i = 0; i < ABORT_REASONS; i++)
            if (ev->reason && strcmp(ev->reason, abort_reasons[i]) == 0)
                a->txn_aborted[i]++;
    if (ev->type == KC_COORD_EV_REBALANCE_COMPLETED) {
        double sec = (double)ev->duration_ms / 1000.0;
        a->rebalance_sum_s += sec;
        for (size_t i = 0; i < REBALANCE_BUCKETS; i++)
            if (sec <= rebalance_bounds_s[i])
                a->rebalance_bucket[i]++;
    }
}

/* ---- errors by code ---- */

typedef struct {
    struct kc_admin *a;
    int16_t api_key;
} err_count_t;

static void count_error(void *arg, int16_t code)
{
    err_count_t *c = arg;
    if (code >= -1 && code < ERR_SLOTS - 1)
        c->a->errors[c->api_key][code + 1]++;
}

void kc_admin_count_response(kc_server_t *s, int16_t api_key, int16_t api_version,
                             const kc_buf_t *body)
{
    struct kc_admin *a = s->admin;
    if (!a || api_key < 0 || api_key >= KC_METRICS_MAX_API)
        return;
    const kc_msg_desc_t *d = kc_msg_desc_for_api(api_key, true);
    if (!d)
        return;
    kc_arena_reset(&a->err_arena);
    void *m = kc_arena_alloc(&a->err_arena, d->size);
    kc_reader_t r;
    kc_reader_init(&r, body->data, body->len);
    if (d->decode(&r, api_version, &a->err_arena, m) != 0)
        return;
    err_count_t c = {a, api_key};
    d->visit_errors(m, api_version, count_error, &c);
}

/* ---- replies ---- */

/* Sends out as the body; the answer to a HEAD carries the length GET's body
 * would have and no body (RFC 9110, 9.3.2). */
static void send_reply(struct evhttp_request *rq, int code, const char *reason,
                       struct evbuffer *out)
{
    if (evhttp_request_get_command(rq) == EVHTTP_REQ_HEAD) {
        char len[24];
        snprintf(len, sizeof(len), "%zu", evbuffer_get_length(out));
        evhttp_add_header(evhttp_request_get_output_headers(rq), "Content-Length", len);
        evhttp_send_reply(rq, code, reason, NULL);
        return;
    }
    evhttp_send_reply(rq, code, reason, out);
}

static void reply_json(struct evhttp_request *rq, int code, json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    struct evbuffer *out = evbuffer_new();
    evbuffer_add(out, text ? text : "null", text ? strlen(text) : 4);
    evbuffer_add(out, "\n", 1);
    free(text);
    evhttp_add_header(evhttp_request_get_output_headers(rq), "Content-Type", "application/json");
    send_reply(rq, code, code == 200 ? "OK" : code == 201 ? "Created"
                            : code == 404 ? "Not Found" : "Bad Request", out);
    evbuffer_free(out);
}

static void reply_error(struct evhttp_request *rq, int code, const char *msg)
{
    reply_json(rq, code, json_pack("{s:s}", "error", msg));
}

/* ---- faults ---- */

static json_t *fault_json(const kc_fault_t *x)
{
    int64_t now = kc_server_mono_ms();
    json_t *j = json_object();
    json_object_set_new(j, "id", json_integer(x->id));
    json_object_set_new(j, "type", json_string(kc_faults_kind_name(x->kind)));
    if (x->api_key >= 0)
        json_object_set_new(j, "api_key", json_integer(x->api_key));
    if (x->kind == KC_FAULT_ERROR || x->kind == KC_FAULT_COORDINATOR)
        json_object_set_new(j, "error_code", json_integer(x->error_code));
    if (x->kind == KC_FAULT_DELAY)
        json_object_set_new(j, "delay_ms", json_integer(x->delay_ms));
    json_object_set_new(j, "remaining", json_integer(x->remaining));
    json_object_set_new(j, "remaining_ms",
                        json_integer(x->until_ms == INT64_MAX ? -1 : x->until_ms - now));
    json_object_set_new(j, "group_id", jstr(x->group_id));
    json_object_set_new(j, "client_id", jstr(x->client_id));
    json_object_set_new(j, "hits", json_integer((json_int_t)x->hits));
    return j;
}

static void get_faults(kc_server_t *s, struct evhttp_request *rq)
{
    json_t *arr = json_array();
    for (const kc_fault_t *x = kc_faults_list(s->faults); x; x = x->next)
        json_array_append_new(arr, fault_json(x));
    reply_json(rq, 200, json_pack("{s:o,s:I}", "faults", arr, "stall_queue",
                                  (json_int_t)kc_faults_queued(s->faults)));
}

static void post_fault(kc_server_t *s, struct evhttp_request *rq)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(rq);
    size_t n = evbuffer_get_length(in);
    if (n > 65536) {
        reply_error(rq, 400, "body too large");
        return;
    }
    char *text = kc_xmalloc(n + 1);
    evbuffer_copyout(in, text, n);
    text[n] = '\0';
    kc_fault_t spec;
    char err[256];
    int rc = kc_faults_parse_spec(text, n, kc_server_mono_ms(), &spec, err, sizeof(err));
    free(text);
    if (rc != 0) {
        reply_error(rq, 400, err);
        return;
    }
    int64_t id = kc_faults_add(s->faults, &spec);
    kc_faults_spec_deinit(&spec);
    for (const kc_fault_t *x = kc_faults_list(s->faults); x; x = x->next)
        if (x->id == id) {
            reply_json(rq, 201, fault_json(x));
            return;
        }
    reply_json(rq, 201, json_pack("{s:I}", "id", (json_int_t)id));
}

int64_t kc_admin_fault_id(const char *text)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    return *text && !*end && errno == 0 && v > 0 ? (int64_t)v : -1;
}

static void delete_faults(kc_server_t *s, struct evhttp_request *rq, const char *rest)
{
    int64_t id = -1;
    if (rest && *rest && (id = kc_admin_fault_id(rest)) < 0) {
        reply_error(rq, 404, "no such fault");
        return;
    }
    size_t n = kc_faults_clear(s->faults, id);
    if (id > 0 && n == 0) {
        reply_error(rq, 404, "no such fault");
        return;
    }
    reply_json(rq, 200, json_pack("{s:I}", "cleared", (json_int_t)n));
}

/* ---- groups ---- */

/* ConsumerProtocolAssignment: {"version" (its prefix), "partitions": {topic: [p...]},
 * "user_data_bytes"}; NULL if it does not parse (consumer_protocol.h). */
static json_t *decode_consumer_assignment(const uint8_t *data, int32_t len)
{
    int16_t version;
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_protocol_assignment_t a;
    if (!kc_consumer_protocol_version(data, len, &version) ||
        kc_consumer_protocol_read_assignment(data, len, &arena, &a) != 0) {
        kc_arena_deinit(&arena);
        return NULL;
    }
    json_t *parts = json_object();
    for (int32_t i = 0; i < a.assigned_partitions.count; i++) {
        const kc_consumer_protocol_assignment_topic_partition_t *tp = &a.assigned_partitions.items[i];
        json_t *arr = json_array();
        for (int32_t k = 0; k < tp->partitions.count; k++)
            json_array_append_new(arr, json_integer(tp->partitions.items[k]));
        json_object_setn_new(parts, tp->topic.ptr ? tp->topic.ptr : "", (size_t)tp->topic.len, arr);
    }
    int32_t ud = a.user_data.len < 0 ? 0 : a.user_data.len;
    kc_arena_deinit(&arena);
    return json_pack("{s:i,s:o,s:i}", "version", version, "partitions", parts, "user_data_bytes",
                     ud);
}

/* Partitions by topic name ({"topic": [p...]}); a topic whose id names no
 * topic any more is keyed by its id in hex. */
static json_t *partitions_json(const kc_topic_partitions_view_t *tps, int32_t n)
{
    json_t *o = json_object();
    for (int32_t i = 0; i < n; i++) {
        json_t *arr = json_array();
        for (int32_t k = 0; k < tps[i].npartitions; k++)
            json_array_append_new(arr, json_integer(tps[i].partitions[k]));
        char key[33];
        for (int b = 0; b < 16; b++)
            snprintf(key + 2 * b, 3, "%02x", tps[i].topic_id.b[b]);
        json_object_set_new(o, tps[i].topic ? tps[i].topic : key, arr);
    }
    return o;
}

/*
 * Adds a member's "session_deadline_ms" (when its session expires, ms since
 * the epoch) and "session_remaining_ms" (from now, 0 once due: a stalled
 * coordinator fires it when the stall ends), both null when no session
 * timer is armed. The server drives the coordinator's clock with its wall
 * clock (kc_server_wall_ms), so a coordinator deadline is a wall-clock time.
 */
static void add_session_deadline(json_t *jm, int64_t deadline_ms)
{
    int64_t now = kc_server_wall_ms();
    bool armed = deadline_ms >= 0;
    json_object_set_new(jm, "session_deadline_ms", armed ? json_integer(deadline_ms) : json_null());
    json_object_set_new(jm, "session_remaining_ms",
                        armed ? json_integer(deadline_ms > now ? deadline_ms - now : 0)
                              : json_null());
}

/* A KIP-848 consumer group: epochs, the assignor, and per member its
 * epochs, subscription and decoded partitions. */
static json_t *consumer_group_json(const kc_group_view_t *g)
{
    json_t *members = json_array();
    for (size_t i = 0; i < g->nconsumer_members; i++) {
        const kc_consumer_member_view_t *m = &g->consumer_members[i];
        json_t *topics = json_array();
        for (int32_t k = 0; k < m->nsubscribed_topics; k++)
            json_array_append_new(topics, json_string(m->subscribed_topics[k]));
        json_t *jm = json_pack(
            "{s:s,s:o,s:o,s:s,s:s,s:i,s:i,s:s,s:i,s:o,s:o,s:o}", "member_id", m->member_id,
            "instance_id", jstr(m->instance_id), "rack_id", jstr(m->rack_id), "client_id",
            m->client_id ? m->client_id : "", "client_host", m->client_host ? m->client_host : "",
            "member_epoch", m->member_epoch, "previous_member_epoch", m->previous_member_epoch,
            "state", m->state, "rebalance_timeout_ms", m->rebalance_timeout_ms, "server_assignor",
            jstr(m->server_assignor), "subscribed_topic_names", topics, "subscribed_topic_regex",
            jstr(m->subscribed_regex));
        add_session_deadline(jm, m->session_deadline_ms);
        json_object_set_new(jm, "assigned_partitions", partitions_json(m->assigned, m->nassigned));
        json_object_set_new(jm, "partitions_pending_revocation",
                            partitions_json(m->pending_revocation, m->npending_revocation));
        json_object_set_new(jm, "target_assignment", partitions_json(m->target, m->ntarget));
        json_array_append_new(members, jm);
    }
    return json_pack("{s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:o}", "group_id", g->group_id, "type", g->type,
                     "state", g->state, "group_epoch", g->group_epoch, "assignment_epoch",
                     g->assignment_epoch, "protocol_type", "consumer", "assignor", g->assignor,
                     "members", members);
}

/* Tasks by subtopology id ({"subtopology": [partition...]}). */
static json_t *subtopology_tasks_json(const kc_subtopology_tasks_view_t *t, int32_t n)
{
    json_t *o = json_object();
    for (int32_t i = 0; i < n; i++) {
        json_t *arr = json_array();
        for (int32_t k = 0; k < t[i].npartitions; k++)
            json_array_append_new(arr, json_integer(t[i].partitions[k]));
        json_object_set_new(o, t[i].subtopology_id, arr);
    }
    return o;
}

/* {"active": {...}, "standby": {...}, "warmup": {...}} */
static json_t *tasks_json(const kc_tasks_view_t *t)
{
    return json_pack("{s:o,s:o,s:o}", "active", subtopology_tasks_json(t->active, t->nactive),
                     "standby", subtopology_tasks_json(t->standby, t->nstandby), "warmup",
                     subtopology_tasks_json(t->warmup, t->nwarmup));
}

/* A length-delimited string from a record; null when it is not UTF-8. */
static json_t *jkstr(kc_str_t s)
{
    json_t *j = s.len >= 0 ? json_stringn(s.ptr, (size_t)s.len) : NULL;
    return j ? j : json_null();
}

static json_t *str_array_json(const kc_str_array_t *a)
{
    json_t *arr = json_array();
    for (int32_t i = 0; i < a->count; i++)
        json_array_append_new(arr, jkstr(a->items[i]));
    return arr;
}

/* Internal topics of a subtopology: [{"name", "partitions"}], 0 partitions
 * = as many as the source topics have. */
static json_t *topic_infos_json(const kc_streams_group_topology_value_topic_info_t *t, int32_t n)
{
    json_t *arr = json_array();
    for (int32_t i = 0; i < n; i++)
        json_array_append_new(arr, json_pack("{s:o,s:i}", "name", jkstr(t[i].name), "partitions",
                                             t[i].partitions));
    return arr;
}

/* A streams group's topology (StreamsGroupTopologyRecord): its epoch and
 * subtopologies; null before the first member sent one. */
static json_t *topology_json(const kc_streams_group_topology_value_t *t)
{
    if (!t)
        return json_null();
    json_t *subs = json_array();
    for (int32_t i = 0; i < t->subtopologies.count; i++) {
        const kc_streams_group_topology_value_subtopology_t *s = &t->subtopologies.items[i];
        json_array_append_new(
            subs, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "subtopology_id", jkstr(s->subtopology_id),
                            "source_topics", str_array_json(&s->source_topics),
                            "source_topic_regex", str_array_json(&s->source_topic_regex),
                            "repartition_source_topics",
                            topic_infos_json(s->repartition_source_topics.items,
                                             s->repartition_source_topics.count),
                            "repartition_sink_topics", str_array_json(&s->repartition_sink_topics),
                            "state_changelog_topics",
                            topic_infos_json(s->state_changelog_topics.items,
                                             s->state_changelog_topics.count)));
    }
    return json_pack("{s:i,s:o}", "epoch", t->epoch, "subtopologies", subs);
}

/* A KIP-1071 streams group: epochs, the assignor, and per member its
 * epochs, process, user endpoint and tasks. */
static json_t *streams_group_json(const kc_group_view_t *g)
{
    json_t *members = json_array();
    for (size_t i = 0; i < g->nstreams_members; i++) {
        const kc_streams_member_view_t *m = &g->streams_members[i];
        json_t *endpoint = m->user_endpoint_host
                               ? json_pack("{s:s,s:i}", "host", m->user_endpoint_host, "port",
                                           m->user_endpoint_port)
                               : json_null();
        json_t *jm = json_pack(
            "{s:s,s:o,s:o,s:s,s:s,s:s,s:o,s:i,s:i,s:s,s:i,s:i}", "member_id", m->member_id,
            "instance_id", jstr(m->instance_id), "rack_id", jstr(m->rack_id), "client_id",
            m->client_id ? m->client_id : "", "client_host", m->client_host ? m->client_host : "",
            "process_id", m->process_id ? m->process_id : "", "user_endpoint", endpoint,
            "member_epoch", m->member_epoch, "previous_member_epoch", m->previous_member_epoch,
            "state", m->state, "topology_epoch", m->topology_epoch, "rebalance_timeout_ms",
            m->rebalance_timeout_ms);
        add_session_deadline(jm, m->session_deadline_ms);
        json_object_set_new(jm, "assigned_tasks", tasks_json(&m->assigned));
        json_object_set_new(jm, "tasks_pending_revocation", tasks_json(&m->pending_revocation));
        json_object_set_new(jm, "target_assignment", tasks_json(&m->target));
        json_array_append_new(members, jm);
    }
    return json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:s,s:s,s:o,s:o}", "group_id", g->group_id,
                     "type", g->type, "state", g->state, "group_epoch", g->group_epoch,
                     "assignment_epoch", g->assignment_epoch, "topology_epoch", g->topology_epoch,
                     "stored_description_topology_epoch", g->stored_description_epoch,
                     "failed_description_topology_epoch", g->failed_description_epoch,
                     "protocol_type", "streams", "assignor", g->assignor, "topology",
                     topology_json(g->topology), "members", members);
}

static json_t *group_json(const kc_group_view_t *g)
{
    if (strcmp(g->type, "consumer") == 0)
        return consumer_group_json(g);
    if (strcmp(g->type, "streams") == 0)
        return streams_group_json(g);
    json_t *members = json_array();
    bool consumer = g->protocol_type && strcmp(g->protocol_type, "consumer") == 0;
    for (size_t i = 0; i < g->nmembers; i++) {
        const kc_member_view_t *m = &g->members[i];
        json_t *a = NULL;
        if (consumer && m->assignment_len > 0)
            a = decode_consumer_assignment(m->assignment, m->assignment_len);
        json_t *jm =
            json_pack("{s:s,s:o,s:s,s:s,s:i,s:i,s:b,s:b,s:i,s:o}", "member_id", m->member_id,
                      "group_instance_id", jstr(m->group_instance_id), "client_id",
                      m->client_id ? m->client_id : "", "client_host",
                      m->client_host ? m->client_host : "", "session_timeout_ms",
                      m->session_timeout_ms, "rebalance_timeout_ms", m->rebalance_timeout_ms,
                      "awaiting_join", m->awaiting_join, "awaiting_sync", m->awaiting_sync,
                      "assignment_bytes", m->assignment_len, "assignment", a ? a : json_null());
        add_session_deadline(jm, m->session_deadline_ms);
        json_array_append_new(members, jm);
    }
    return json_pack("{s:s,s:s,s:s,s:i,s:o,s:o,s:o,s:o}", "group_id", g->group_id, "type", g->type,
                     "state", g->state, "generation_id", g->generation_id, "protocol_type",
                     jstr(g->protocol_type), "protocol_name", jstr(g->protocol_name), "leader_id",
                     jstr(g->leader_id), "members", members);
}

/* Committed offsets with their lag; totals for the group. */
typedef struct {
    kc_server_t *s;
    json_t *arr;        /* NULL: totals only */
    int64_t lag_total;  /* over the partitions whose log end offset is known */
    int64_t partitions; /* committed partitions */
} offsets_ctx_t;

/*
 * The high watermark of a partition of kcoord's log (what a consumer can
 * read up to, the end offset kafka-consumer-groups.sh subtracts from), or -1
 * when the topic or partition does not exist (any more).
 */
static int64_t log_end_offset(kc_server_t *s, const char *topic, int32_t partition)
{
    const kc_topic_t *t = kc_topics_find(s->topics, kc_str(topic));
    kc_log_offsets_t lo;
    if (!t || partition < 0 || partition >= t->partitions ||
        kc_log_offsets(s->log, t->id, partition, &lo) != 0)
        return -1;
    return lo.high_watermark;
}

static void add_offset(void *arg, const kc_offset_view_t *o)
{
    offsets_ctx_t *oc = arg;
    int64_t end = log_end_offset(oc->s, o->topic, o->partition);
    int64_t lag = end < 0 ? -1 : end > o->offset ? end - o->offset : 0;
    oc->partitions++;
    if (lag >= 0)
        oc->lag_total += lag;
    if (!oc->arr)
        return;
    json_array_append_new(
        oc->arr,
        json_pack("{s:s,s:i,s:I,s:i,s:I,s:s#,s:o,s:o}", "topic", o->topic, "partition",
                  o->partition, "offset", (json_int_t)o->offset, "leader_epoch", o->leader_epoch,
                  "commit_timestamp_ms", (json_int_t)o->commit_timestamp_ms, "metadata",
                  o->metadata, (size_t)o->metadata_len, "log_end_offset",
                  end < 0 ? json_null() : json_integer(end), "lag",
                  lag < 0 ? json_null() : json_integer(lag)));
}

/* Adds "offsets" (when arr is wanted), "committed_partitions" and "lag_total" to g. */
static void add_lag(kc_server_t *s, json_t *g, bool with_offsets)
{
    const char *id = json_string_value(json_object_get(g, "group_id"));
    offsets_ctx_t oc = {s, with_offsets ? json_array() : NULL, 0, 0};
    kc_coord_inspect_offsets(s->coord, kc_str(id), add_offset, &oc);
    if (oc.arr)
        json_object_set_new(g, "offsets", oc.arr);
    json_object_set_new(g, "committed_partitions", json_integer(oc.partitions));
    json_object_set_new(g, "lag_total", json_integer(oc.lag_total));
}

static void add_group(void *arg, const kc_group_view_t *g)
{
    json_array_append_new(arg, group_json(g));
}

static void set_group(void *arg, const kc_group_view_t *g)
{
    *(json_t **)arg = group_json(g);
}

static void get_groups(kc_server_t *s, struct evhttp_request *rq)
{
    json_t *arr = json_array();
    kc_coord_inspect_groups(s->coord, add_group, arr);
    size_t i;
    json_t *g;
    json_array_foreach(arr, i, g)
        add_lag(s, g, false);
    reply_json(rq, 200, json_pack("{s:o}", "groups", arr));
}

static void get_group(kc_server_t *s, struct evhttp_request *rq, const char *raw_id)
{
    size_t n = 0;
    char *id = evhttp_uridecode(raw_id, 0, &n);
    json_t *g = NULL;
    if (id)
        kc_coord_inspect_group(s->coord, (kc_str_t){id, (int32_t)n}, set_group, &g);
    free(id);
    if (!g) {
        reply_error(rq, 404, "group not found");
        return;
    }
    add_lag(s, g, true);
    reply_json(rq, 200, g);
}

/* ---- transactions ---- */

/* A transaction is open from its first partition until its markers are written. */
static bool txn_open(kc_txn_state_t st)
{
    return st == KC_TXN_ONGOING || st == KC_TXN_PREPARE_COMMIT || st == KC_TXN_PREPARE_ABORT ||
           st == KC_TXN_PREPARE_EPOCH_FENCE;
}

static void add_pending_group(void *ctx, kc_str_t group_id)
{
    json_array_append_new(ctx, json_stringn(group_id.ptr, (size_t)group_id.len));
}

typedef struct {
    kc_server_t *s;
    json_t *arr;
    int64_t now_ms;
    size_t open;
} txns_ctx_t;

/* One transactional id as GET /v1/transactions lists it (docs/admin.md). */
static void add_transaction(void *ctx, const kc_txn_meta_t *m)
{
    txns_ctx_t *tc = ctx;
    bool open = txn_open(m->state);
    tc->open += open;
    json_t *parts = json_array();
    for (size_t i = 0; i < m->npartitions; i++)
        json_array_append_new(parts, json_pack("{s:s,s:i}", "topic", m->partitions[i].topic,
                                               "partition", m->partitions[i].partition));
    json_t *groups = json_array();
    kc_coord_txn_pending_groups(tc->s->coord, m->producer_id, add_pending_group, groups);
    bool started = m->start_ms >= 0;
    json_array_append_new(
        tc->arr,
        json_pack("{s:s,s:I,s:i,s:s,s:b,s:i,s:o,s:I,s:o,s:o,s:o}", "transactional_id",
                  m->transactional_id, "producer_id", (json_int_t)m->producer_id,
                  "producer_epoch", m->producer_epoch, "state", kc_txn_state_name(m->state),
                  "open", open, "timeout_ms", m->timeout_ms, "start_time_ms",
                  started ? json_integer(m->start_ms) : json_null(), "last_update_time_ms",
                  (json_int_t)m->last_update_ms, "age_ms",
                  open && started ? json_integer(tc->now_ms - m->start_ms) : json_null(),
                  "partitions", parts, "pending_offset_groups", groups));
}

static int cmp_transactional_id(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "transactional_id")),
                  json_string_value(json_object_get(*(json_t *const *)b, "transactional_id")));
}

/* GET /v1/transactions: every transactional id the coordinator keeps, open
 * or not (an id stays until transactional.id.expiration.ms), sorted by id. */
static void get_transactions(kc_server_t *s, struct evhttp_request *rq)
{
    txns_ctx_t tc = {s, json_array(), kc_server_wall_ms(), 0};
    kc_txn_foreach(s->txn, add_transaction, &tc);
    size_t n = json_array_size(tc.arr);
    json_t **items = kc_xcalloc(n + 1, sizeof(*items));
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(tc.arr, i));
    qsort(items, n, sizeof(*items), cmp_transactional_id);
    json_array_clear(tc.arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(tc.arr, items[i]);
    free(items);
    reply_json(rq, 200, json_pack("{s:I,s:o}", "open", (json_int_t)tc.open, "transactions", tc.arr));
}

static void count_open(void *ctx, const kc_txn_meta_t *m) { *(size_t *)ctx += txn_open(m->state); }

/* The transaction coordinator's gauge and counters (docs/admin.md). */
static void print_transaction_metrics(kc_server_t *s, struct evbuffer *o)
{
    const struct kc_admin *a = s->admin;
    size_t open = 0;
    kc_txn_foreach(s->txn, count_open, &open);
    evbuffer_add_printf(o,
                        "# HELP kcoord_transactions_open Transactions between their first "
                        "partition and their markers.\n"
                        "# TYPE kcoord_transactions_open gauge\nkcoord_transactions_open %zu\n"
                        "# HELP kcoord_transactions_committed_total Transactions committed "
                        "since start.\n"
                        "# TYPE kcoord_transactions_committed_total counter\n"
                        "kcoord_transactions_committed_total %llu\n"
                        "# HELP kcoord_transactions_aborted_total Transactions aborted since "
                        "start, by reason.\n"
                        "# TYPE kcoord_transactions_aborted_total counter\n",
                        open, (unsigned long long)a->events[KC_COORD_EV_TXN_COMMITTED]);
    for (size_t i = 0; i < ABORT_REASONS; i++)
        evbuffer_add_printf(o, "kcoord_transactions_aborted_total{reason=\"%s\"} %llu\n",
                            abort_reasons[i], (unsigned long long)a->txn_aborted[i]);
    evbuffer_add_printf(o, "# HELP kcoord_transaction_events_total Transaction events, by type.\n"
                           "# TYPE kcoord_transaction_events_total counter\n");
    for (int t = KC_COORD_EV_FIRST_TXN; t < KC_COORD_EV_COUNT; t++)
        evbuffer_add_printf(o, "kcoord_transaction_events_total{event=\"%s\"} %llu\n",
                            kc_coord_event_name((kc_coord_event_type_t)t),
                            (unsigned long long)a->events[t]);
}

/* ---- events ---- */

bool kc_admin_parse_seq(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (!(*v >= '0' && *v <= '9') || *end || errno != 0)
        return false;
    *out = n;
    return true;
}

const char *kc_admin_events_query(const char *q, uint64_t *since, bool *stream)
{
    struct evkeyvalq params;
    if (evhttp_parse_query_str(q, &params) != 0)
        return "bad query string";
    const char *why = NULL;
    const char *v = evhttp_find_header(&params, "since");
    if (v && !kc_admin_parse_seq(v, since))
        why = "since must be a non-negative integer";
    const char *sv = evhttp_find_header(&params, "stream");
    if (!why && sv) {
        if (strcmp(sv, "1") == 0 || strcmp(sv, "true") == 0)
            *stream = true;
        else if (strcmp(sv, "0") != 0 && strcmp(sv, "false") != 0)
            why = "stream must be 1, true, 0 or false";
    }
    evhttp_clear_headers(&params);
    return why;
}

/* Every KC_ADMIN_STREAM_KEEPALIVE_S an SSE comment goes to every stream, so
 * that proxies and clients with a read timeout keep it open, and a client that
 * vanished without a FIN is found when the write fails. */
static void keepalive_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct kc_admin *a = arg;
    if (!a->streams)
        return;
    struct evbuffer *frame = evbuffer_new();
    evbuffer_add_printf(frame, ": keepalive\n\n");
    for (event_stream_t *st = a->streams, *next; st; st = next) {
        next = st->next;
        stream_send(st, frame);
    }
    evbuffer_free(frame);
    struct timeval tv = {KC_ADMIN_STREAM_KEEPALIVE_S, 0};
    evtimer_add(a->keepalive, &tv);
}

/* The headers of an event stream (GET and HEAD alike). */
static void stream_headers(struct evhttp_request *rq)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(rq);
    evhttp_add_header(h, "Content-Type", "text/event-stream");
    evhttp_add_header(h, "Cache-Control", "no-cache");
}

/* Starts a server-sent-event stream: the kept events above since, then each new one. */
static void start_stream(struct kc_admin *a, struct evhttp_request *rq, uint64_t since)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(rq);
    event_stream_t *st = kc_xcalloc(1, sizeof(*st));
    st->admin = a;
    st->rq = rq;
    st->evcon = evcon;
    st->id = ++a->next_stream_id;
    char *host = NULL;
    uint16_t port = 0;
    evhttp_connection_get_peer(evcon, &host, &port);
    snprintf(st->peer, sizeof(st->peer), "%s:%u", host ? host : "?", port);
    stream_headers(rq);
    evhttp_send_reply_start(rq, 200, "OK");
    evhttp_connection_set_closecb(evcon, stream_closed, st);
    /* A stream is quiet between events: no read or write timeout (the
     * keepalive comments and admin.events.stream.max.bytes cover dead and
     * slow clients). */
    struct bufferevent *bev = evhttp_connection_get_bufferevent(evcon);
    if (bev)
        bufferevent_set_timeouts(bev, NULL, NULL);
    if (!evtimer_pending(a->keepalive, NULL)) {
        struct timeval tv = {KC_ADMIN_STREAM_KEEPALIVE_S, 0};
        evtimer_add(a->keepalive, &tv);
    }
    st->next = a->streams;
    if (a->streams)
        a->streams->prev = st;
    a->streams = st;
    a->nstreams++;
    kc_log_info(LOG_COMP, "event stream %llu to %s opened after seq %llu (%zu open)",
                (unsigned long long)st->id, st->peer, (unsigned long long)since, a->nstreams);
    struct evbuffer *frame = evbuffer_new();
    for (size_t i = 0; i < a->ring_len; i++) {
        const ring_event_t *e = &a->ring[(a->ring_head + i) % a->ring_alloc];
        if (e->seq > since)
            sse_frame(frame, e);
    }
    /* The backlog is bounded by the ring (admin.events.max), not by
     * admin.events.stream.max.bytes, which applies to what follows. */
    if (evbuffer_get_length(frame) > 0)
        evhttp_send_reply_chunk(rq, frame);
    evbuffer_free(frame);
}

static void get_events(kc_server_t *s, struct evhttp_request *rq, const struct evhttp_uri *u)
{
    struct kc_admin *a = s->admin;
    uint64_t since = 0;
    bool stream = false;
    const char *q = evhttp_uri_get_query(u);
    const char *why = q ? kc_admin_events_query(q, &since, &stream) : NULL;
    if (why) {
        reply_error(rq, 400, why);
        return;
    }
    const struct evkeyvalq *in = evhttp_request_get_input_headers(rq);
    const char *accept = evhttp_find_header(in, "Accept");
    if (accept && strstr(accept, "text/event-stream"))
        stream = true;
    if (stream && evhttp_request_get_command(rq) == EVHTTP_REQ_HEAD) {
        /* A stream's headers; it has no length to give. */
        stream_headers(rq);
        evhttp_send_reply(rq, 200, "OK", NULL);
        return;
    }
    if (stream) {
        /* A reconnecting EventSource resumes after the last id it saw. */
        const char *last = evhttp_find_header(in, "Last-Event-ID");
        if (last && !kc_admin_parse_seq(last, &since)) {
            reply_error(rq, 400, "Last-Event-ID must be a non-negative integer");
            return;
        }
    }
    if (since >= a->next_seq) {
        /* A seq this kcoord has not given yet: the client saw an earlier
         * run's events (kcoord restarted since, counting from 1 again), so
         * everything kept is new to it. */
        kc_log_info(LOG_COMP, "events after seq %llu asked for, which this run has not reached "
                              "(next %llu): sending every event kept",
                    (unsigned long long)since, (unsigned long long)a->next_seq);
        since = 0;
    }
    if (stream) {
        start_stream(a, rq, since);
        return;
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < a->ring_len; i++) {
        const ring_event_t *e = &a->ring[(a->ring_head + i) % a->ring_alloc];
        if (e->seq > since)
            json_array_append_new(arr, event_json(e));
    }
    reply_json(rq, 200, json_pack("{s:o,s:I,s:I}", "events", arr, "next_seq",
                                  (json_int_t)a->next_seq, "dropped", (json_int_t)a->dropped));
}

/* ---- metrics ---- */

/* The states each group type can be in (Kafka's names), printed even at 0. */
static const char *const classic_states[] = {"Empty", "PreparingRebalance", "CompletingRebalance",
                                             "Stable", "Dead"};
static const char *const consumer_states[] = {"Empty", "Assigning", "Reconciling", "Stable",
                                              "Dead"};
static const char *const streams_states[] = {"Empty", "NotReady", "Assigning", "Reconciling",
                                             "Stable", "Dead"};

/*
 * Prints kcoord_groups{type,state}. The groups of every type are counted
 * from the coordinator's own ListGroups v5 answer (type and state per
 * group), the way an admin client would see them.
 */
/* One kc_latency_hist_t in Prometheus' text format. */
static void print_latency_hist(struct evbuffer *o, const char *name, const char *help,
                               const kc_latency_hist_t *h)
{
    evbuffer_add_printf(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (size_t i = 0; i < KC_METRICS_LATENCY_BUCKETS; i++)
        evbuffer_add_printf(o, "%s_bucket{le=\"%g\"} %llu\n", name, kc_metrics_latency_bounds_s[i],
                            (unsigned long long)h->bucket[i]);
    evbuffer_add_printf(o, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n", name,
                        (unsigned long long)h->count, name, h->sum_seconds, name,
                        (unsigned long long)h->count);
}

static void print_group_counts(kc_server_t *s, struct evbuffer *o)
{
    uint64_t classic[KC_ARRAY_LEN(classic_states)] = {0};
    uint64_t consumer[KC_ARRAY_LEN(consumer_states)] = {0};
    uint64_t streams[KC_ARRAY_LEN(streams_states)] = {0};
    kc_list_groups_request_t lr;
    kc_list_groups_request_init(&lr);
    kc_request_ctx_t ctx = {.api_key = KC_API_LIST_GROUPS, .api_version = 5,
                            .client_id = kc_str("kcoord-admin"), .client_host = "/127.0.0.1",
                            .now_ms = kc_server_wall_ms()};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_list_groups(s->coord, &ctx, &lr, &res);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_list_groups_response_t m;
    kc_reader_t r;
    if (res.nresponses == 1) {
        kc_reader_init(&r, res.responses[0].body.data, res.responses[0].body.len);
        if (kc_list_groups_response_decode(&r, 5, &arena, &m) == 0) {
            for (int32_t i = 0; i < m.groups.count; i++) {
                const kc_list_groups_response_listed_group_t *g = &m.groups.items[i];
                bool is_consumer = kc_str_eq_cstr(g->group_type, "consumer");
                bool is_streams = kc_str_eq_cstr(g->group_type, "streams");
                const char *const *names = is_streams    ? streams_states
                                           : is_consumer ? consumer_states
                                                         : classic_states;
                uint64_t *counts = is_streams ? streams : is_consumer ? consumer : classic;
                size_t nnames = is_streams    ? KC_ARRAY_LEN(streams_states)
                                : is_consumer ? KC_ARRAY_LEN(consumer_states)
                                              : KC_ARRAY_LEN(classic_states);
                for (size_t k = 0; k < nnames; k++)
                    if (kc_str_eq_cstr(g->group_state, names[k]))
                        counts[k]++;
            }
        }
    }
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    evbuffer_add_printf(o, "# HELP kcoord_groups Groups, by type and state.\n"
                           "# TYPE kcoord_groups gauge\n");
    for (size_t i = 0; i < KC_ARRAY_LEN(classic_states); i++)
        evbuffer_add_printf(o, "kcoord_groups{type=\"classic\",state=\"%s\"} %llu\n",
                            classic_states[i], (unsigned long long)classic[i]);
    for (size_t i = 0; i < KC_ARRAY_LEN(consumer_states); i++)
        evbuffer_add_printf(o, "kcoord_groups{type=\"consumer\",state=\"%s\"} %llu\n",
                            consumer_states[i], (unsigned long long)consumer[i]);
    for (size_t i = 0; i < KC_ARRAY_LEN(streams_states); i++)
        evbuffer_add_printf(o, "kcoord_groups{type=\"streams\",state=\"%s\"} %llu\n",
                            streams_states[i], (unsigned long long)streams[i]);
}

static void get_metrics(kc_server_t *s, struct evhttp_request *rq)
{
    const kc_metrics_t *m = &s->metrics;
    struct evbuffer *o = evbuffer_new();
    evbuffer_add_printf(o, "# HELP kcoord_requests_total Requests handled, by API and version.\n"
                           "# TYPE kcoord_requests_total counter\n");
    for (int k = 0; k < KC_METRICS_MAX_API; k++) {
        const kc_api_entry_t *e = kc_api_find((int16_t)k);
        for (int v = 0; v < KC_METRICS_MAX_VERSION; v++)
            if (m->requests[k][v])
                evbuffer_add_printf(o,
                                    "kcoord_requests_total{api=\"%s\",api_key=\"%d\",version=\"%d\"} %llu\n",
                                    e ? e->name : "unknown", k, v,
                                    (unsigned long long)m->requests[k][v]);
    }
    const struct kc_admin *a = s->admin;
    evbuffer_add_printf(o, "# HELP kcoord_errors_total Error codes in responses, by API and code "
                           "(each top-level and per-entry ErrorCode; 0 is NONE).\n"
                           "# TYPE kcoord_errors_total counter\n");
    for (int k = 0; k < KC_METRICS_MAX_API; k++) {
        const kc_api_entry_t *e = kc_api_find((int16_t)k);
        for (int c = 0; c < ERR_SLOTS; c++)
            if (a->errors[k][c])
                evbuffer_add_printf(o, "kcoord_errors_total{api=\"%s\",api_key=\"%d\",code=\"%d\"} %llu\n",
                                    e ? e->name : "unknown", k, c - 1,
                                    (unsigned long long)a->errors[k][c]);
    }
    evbuffer_add_printf(o,
                        "# HELP kcoord_bytes_in_total Request bytes read, size prefixes included.\n"
                        "# TYPE kcoord_bytes_in_total counter\nkcoord_bytes_in_total %llu\n"
                        "# HELP kcoord_bytes_out_total Response bytes written, size prefixes included.\n"
                        "# TYPE kcoord_bytes_out_total counter\nkcoord_bytes_out_total %llu\n"
                        "# HELP kcoord_connections Open client connections.\n"
                        "# TYPE kcoord_connections gauge\nkcoord_connections %zu\n",
                        (unsigned long long)m->bytes_in, (unsigned long long)m->bytes_out,
                        kc_net_conn_count(s->net));
    evbuffer_add_printf(o,
                        "# HELP kcoord_lmdb_flushes_total Flushes of the LMDB environment to "
                        "the disk (the log.flush.* policy, shutdown).\n"
                        "# TYPE kcoord_lmdb_flushes_total counter\n"
                        "kcoord_lmdb_flushes_total %llu\n",
                        (unsigned long long)kc_store_sync_count(s->store));
    kc_store_stats_t st;
    kc_store_stats(s->store, &st);
    evbuffer_add_printf(o,
                        "# HELP kcoord_lmdb_map_size_bytes Size of the LMDB map now (it grows "
                        "when it fills).\n"
                        "# TYPE kcoord_lmdb_map_size_bytes gauge\nkcoord_lmdb_map_size_bytes %llu\n"
                        "# HELP kcoord_lmdb_map_max_bytes lmdb.map.max.bytes (0: no maximum).\n"
                        "# TYPE kcoord_lmdb_map_max_bytes gauge\nkcoord_lmdb_map_max_bytes %llu\n"
                        "# HELP kcoord_lmdb_used_bytes Pages in use, less LMDB's free list.\n"
                        "# TYPE kcoord_lmdb_used_bytes gauge\nkcoord_lmdb_used_bytes %llu\n"
                        "# HELP kcoord_lmdb_free_pages Pages on LMDB's free list.\n"
                        "# TYPE kcoord_lmdb_free_pages gauge\nkcoord_lmdb_free_pages %llu\n"
                        "# HELP kcoord_lmdb_map_grows_total Times the LMDB map grew since start.\n"
                        "# TYPE kcoord_lmdb_map_grows_total counter\n"
                        "kcoord_lmdb_map_grows_total %llu\n"
                        "# HELP kcoord_lmdb_full 1 while the map cannot grow and only deletions "
                        "are accepted.\n"
                        "# TYPE kcoord_lmdb_full gauge\nkcoord_lmdb_full %d\n",
                        (unsigned long long)st.map_size, (unsigned long long)st.map_max,
                        (unsigned long long)st.used, (unsigned long long)st.free_pages,
                        (unsigned long long)st.grows, st.full ? 1 : 0);
    if (st.disk_free != UINT64_MAX)
        evbuffer_add_printf(o,
                            "# HELP kcoord_data_dir_free_bytes Free space of the data "
                            "directory's file system.\n"
                            "# TYPE kcoord_data_dir_free_bytes gauge\n"
                            "kcoord_data_dir_free_bytes %llu\n",
                            (unsigned long long)st.disk_free);
    print_latency_hist(o, "kcoord_lmdb_commit_seconds", "LMDB commit latency (no flush).",
                       &m->commit);
    print_latency_hist(o, "kcoord_coordinator_timer_lateness_seconds",
                       "From a coordinator timer's deadline to its firing.", &m->timer_lateness);
    print_group_counts(s, o);
    size_t nf = 0;
    for (const kc_fault_t *x = kc_faults_list(s->faults); x; x = x->next)
        nf++;
    evbuffer_add_printf(o,
                        "# HELP kcoord_faults_active Faults armed through the admin endpoint.\n"
                        "# TYPE kcoord_faults_active gauge\nkcoord_faults_active %zu\n"
                        "# HELP kcoord_stall_queue Requests queued behind a coordinator stall.\n"
                        "# TYPE kcoord_stall_queue gauge\nkcoord_stall_queue %zu\n",
                        nf, kc_faults_queued(s->faults));
    evhttp_add_header(evhttp_request_get_output_headers(rq), "Content-Type",
                      "text/plain; version=0.0.4");
    evbuffer_add_printf(o, "# HELP kcoord_group_events_total Group events, by type.\n"
                           "# TYPE kcoord_group_events_total counter\n");
    for (int t = 0; t < KC_COORD_EV_FIRST_TXN; t++)
        evbuffer_add_printf(o, "kcoord_group_events_total{event=\"%s\"} %llu\n",
                            kc_coord_event_name((kc_coord_event_type_t)t),
                            (unsigned long long)a->events[t]);
    uint64_t done = a->events[KC_COORD_EV_REBALANCE_COMPLETED];
    evbuffer_add_printf(o,
                        "# HELP kcoord_rebalances_total Rebalances completed.\n"
                        "# TYPE kcoord_rebalances_total counter\nkcoord_rebalances_total %llu\n"
                        "# HELP kcoord_rebalance_seconds PreparingRebalance to CompletingRebalance.\n"
                        "# TYPE kcoord_rebalance_seconds histogram\n",
                        (unsigned long long)done);
    for (size_t i = 0; i < REBALANCE_BUCKETS; i++)
        evbuffer_add_printf(o, "kcoord_rebalance_seconds_bucket{le=\"%g\"} %llu\n",
                            rebalance_bounds_s[i], (unsigned long long)a->rebalance_bucket[i]);
    evbuffer_add_printf(o,
                        "kcoord_rebalance_seconds_bucket{le=\"+Inf\"} %llu\n"
                        "kcoord_rebalance_seconds_sum %.3f\n"
                        "kcoord_rebalance_seconds_count %llu\n",
                        (unsigned long long)done, a->rebalance_sum_s, (unsigned long long)done);
    print_transaction_metrics(s, o);
    evbuffer_add_printf(o,
                        "# HELP kcoord_event_streams Open GET /v1/events server-sent-event streams.\n"
                        "# TYPE kcoord_event_streams gauge\nkcoord_event_streams %zu\n"
                        "# HELP kcoord_event_streams_cut_total Event streams disconnected for not "
                        "reading (admin.events.stream.max.bytes).\n"
                        "# TYPE kcoord_event_streams_cut_total counter\n"
                        "kcoord_event_streams_cut_total %llu\n",
                        a->nstreams, (unsigned long long)a->streams_cut);
    send_reply(rq, 200, "OK", o);
    evbuffer_free(o);
}

/* ---- the console ---- */

/* The compiled-in console file at path ("/" is /index.html), or NULL. */
static const kc_console_asset_t *console_asset(const char *path)
{
    if (strcmp(path, "/") == 0)
        path = "/index.html";
    for (size_t i = 0; i < kc_console_nassets; i++)
        if (strcmp(kc_console_assets[i].path, path) == 0)
            return &kc_console_assets[i];
    return NULL;
}

/*
 * Serves a console file: revalidated on every load (no-cache with its
 * ETag; a matching If-None-Match answers 304), and a content security
 * policy that lets the page load only its own scripts and styles and call
 * only this endpoint.
 */
static void get_console(struct evhttp_request *rq, const kc_console_asset_t *f)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(rq);
    evhttp_add_header(h, "Cache-Control", "no-cache");
    evhttp_add_header(h, "ETag", f->etag);
    evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
    evhttp_add_header(h, "Referrer-Policy", "no-referrer");
    evhttp_add_header(h, "Content-Security-Policy",
                      "default-src 'none'; script-src 'self'; style-src 'self'; "
                      "img-src 'self'; connect-src 'self'; base-uri 'none'; "
                      "form-action 'none'; frame-ancestors 'none'");
    const char *inm = evhttp_find_header(evhttp_request_get_input_headers(rq), "If-None-Match");
    /* "*" matches any current representation (RFC 9110, 13.1.2). */
    if (inm && (strstr(inm, f->etag) || strcmp(inm, "*") == 0)) {
        evhttp_send_reply(rq, 304, "Not Modified", NULL);
        return;
    }
    evhttp_add_header(h, "Content-Type", f->content_type);
    struct evbuffer *out = evbuffer_new();
    evbuffer_add_reference(out, f->data, f->len, NULL, NULL);
    send_reply(rq, 200, "OK", out);
    evbuffer_free(out);
}

/* ---- routing ---- */

/* The methods path answers (an Allow header's value), NULL for no resource;
 * "*" is the server as a whole. */
static const char *allowed_methods(const char *path)
{
    if (strcmp(path, "*") == 0 || strcmp(path, "/v1/faults") == 0)
        return "GET, HEAD, POST, DELETE, OPTIONS";
    if (strncmp(path, "/v1/faults/", 11) == 0)
        return "DELETE, OPTIONS";
    if (console_asset(path) || strcmp(path, "/v1/health") == 0 || strcmp(path, "/metrics") == 0 ||
        strcmp(path, "/v1/groups") == 0 || (strncmp(path, "/v1/groups/", 11) == 0 && path[11]) ||
        strcmp(path, "/v1/events") == 0)
        return "GET, HEAD, OPTIONS";
    return NULL;
}

/* OPTIONS: 204 with the path's Allow, no body; 404 for no resource. */
static void reply_options(struct evhttp_request *rq, const char *path)
{
    const char *allow = allowed_methods(path);
    if (!allow) {
        reply_error(rq, 404, "no such endpoint");
        return;
    }
    evhttp_add_header(evhttp_request_get_output_headers(rq), "Allow", allow);
    evhttp_send_reply(rq, 204, "No Content", NULL);
}

static void route(struct evhttp_request *rq, void *arg)
{
    kc_server_t *s = arg;
    const char *uri = evhttp_request_get_uri(rq);
    enum evhttp_cmd_type cmd = evhttp_request_get_command(rq);
    if (cmd == EVHTTP_REQ_OPTIONS && uri && strcmp(uri, "*") == 0) {
        reply_options(rq, "*");
        return;
    }
    struct evhttp_uri *u = uri ? evhttp_uri_parse(uri) : NULL;
    const char *path = u ? evhttp_uri_get_path(u) : NULL;
    /* HEAD is GET without the body (send_reply drops it). */
    bool get = cmd == EVHTTP_REQ_GET || cmd == EVHTTP_REQ_HEAD;
    const kc_console_asset_t *asset = NULL;
    if (!path) {
        reply_error(rq, 400, "bad request line");
    } else if (cmd == EVHTTP_REQ_OPTIONS) {
        reply_options(rq, path);
    } else if (get && (asset = console_asset(path)) != NULL) {
        get_console(rq, asset);
    } else if (strcmp(path, "/v1/health") == 0 && get) {
        kc_store_stats_t st;
        kc_store_stats(s->store, &st);
        reply_json(rq, 200,
                   json_pack("{s:s,s:b,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:b}}", "status", "ok", "loaded",
                             kc_coord_is_loaded(s->coord), "storage", "map_size_bytes",
                             (json_int_t)st.map_size, "map_max_bytes", (json_int_t)st.map_max,
                             "used_bytes", (json_int_t)st.used, "free_pages",
                             (json_int_t)st.free_pages, "page_size_bytes",
                             (json_int_t)st.page_size, "map_grows", (json_int_t)st.grows, "full",
                             st.full));
    } else if (strcmp(path, "/metrics") == 0 && get) {
        get_metrics(s, rq);
    } else if (strcmp(path, "/v1/groups") == 0 && get) {
        get_groups(s, rq);
    } else if (strncmp(path, "/v1/groups/", 11) == 0 && path[11] && get) {
        get_group(s, rq, path + 11);
    } else if (strcmp(path, "/v1/transactions") == 0 && get) {
        get_transactions(s, rq);
    } else if (strcmp(path, "/v1/events") == 0 && get) {
        get_events(s, rq, u);
    } else if (strcmp(path, "/v1/faults") == 0 && get) {
        get_faults(s, rq);
    } else if (strcmp(path, "/v1/faults") == 0 && cmd == EVHTTP_REQ_POST) {
        post_fault(s, rq);
    } else if (strcmp(path, "/v1/faults") == 0 && cmd == EVHTTP_REQ_DELETE) {
        delete_faults(s, rq, NULL);
    } else if (strncmp(path, "/v1/faults/", 11) == 0 && cmd == EVHTTP_REQ_DELETE) {
        delete_faults(s, rq, path + 11);
    } else {
        reply_error(rq, 404, "no such endpoint");
    }
    if (u)
        evhttp_uri_free(u);
}

int kc_admin_start(kc_server_t *s)
{
    if (s->cfg->admin_port < 0)
        return 0;
    struct kc_admin *a = kc_xcalloc(1, sizeof(*a));
    a->ring_max = s->cfg->admin_events_max > 0 ? (size_t)s->cfg->admin_events_max : 1;
    a->next_seq = 1;
    a->srv = s;
    a->keepalive = evtimer_new(s->base, keepalive_cb, a);
    a->errors = kc_xcalloc(KC_METRICS_MAX_API, sizeof(*a->errors));
    kc_arena_init(&a->err_arena);
    a->http = evhttp_new(s->base);
    evhttp_set_allowed_methods(a->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
                                            EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS);
    evhttp_set_max_body_size(a->http, 65536);
    evhttp_set_gencb(a->http, route, s);
    struct evhttp_bound_socket *h =
        evhttp_bind_socket_with_handle(a->http, s->cfg->admin_host, (uint16_t)s->cfg->admin_port);
    if (!h) {
        kc_log_error(LOG_COMP, "cannot bind the admin endpoint to http://%s:%d",
                     s->cfg->admin_host, s->cfg->admin_port);
        evhttp_free(a->http);
        event_free(a->keepalive);
        free(a->errors);
        kc_arena_deinit(&a->err_arena);
        free(a);
        return KC_EIO;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    a->port = (uint16_t)s->cfg->admin_port;
    if (getsockname(evhttp_bound_socket_get_fd(h), (struct sockaddr *)&ss, &sl) == 0)
        a->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                  : ((struct sockaddr_in *)&ss)->sin_port);
    s->admin = a;
    kc_coord_set_event_sink(s->coord, on_coord_event, a);
    kc_txn_set_event_sink(s->txn, on_coord_event, a);
    kc_log_info(LOG_COMP, "admin endpoint listening on http://%s:%u", s->cfg->admin_host, a->port);
    return 0;
}

void kc_admin_stop(kc_server_t *s)
{
    if (!s->admin)
        return;
    kc_coord_set_event_sink(s->coord, NULL, NULL);
    kc_txn_set_event_sink(s->txn, NULL, NULL);
    while (s->admin->streams)
        stream_cut(s->admin->streams, "kcoord is stopping");
    evhttp_free(s->admin->http);
    event_free(s->admin->keepalive);
    free(s->admin->errors);
    kc_arena_deinit(&s->admin->err_arena);
    for (size_t i = 0; i < s->admin->ring_len; i++)
        ring_event_free(&s->admin->ring[(s->admin->ring_head + i) % s->admin->ring_alloc]);
    free(s->admin->ring);
    free(s->admin);
    s->admin = NULL;
}
