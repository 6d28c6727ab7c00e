/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Server wiring: start-up (storage, topics, coordinator replay, listeners),
 * request routing by api key, the per-iteration commit step that releases
 * held responses, coordinator timers, parked Fetch long polls and shutdown.
 */
#include "server_int.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <unistd.h>
#include <time.h>

#include <event2/event.h>

#include "kc_log.h"

static int64_t wall_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

int64_t kc_server_wall_ms(void)
{
    return wall_us() / 1000;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t kc_server_mono_ms(void)
{
    return mono_ms();
}

static struct timeval ms_tv(int64_t ms)
{
    if (ms < 0)
        ms = 0;
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
    return tv;
}

static bool topic_exists(void *ctx, kc_str_t topic)
{
    kc_server_t *s = ctx;
    return kc_topics_find(s->topics, topic) != NULL;
}

static bool topic_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *topic_id)
{
    kc_server_t *s = ctx;
    const kc_topic_t *t = kc_topics_find(s->topics, topic);
    if (!t)
        return false;
    *partitions = t->partitions;
    *topic_id = t->id;
    return true;
}

static bool topic_id_to_name(void *ctx, kc_uuid_t topic_id, kc_str_t *name)
{
    kc_server_t *s = ctx;
    const kc_topic_t *t = kc_topics_find_id(s->topics, topic_id);
    if (!t)
        return false;
    *name = kc_str(t->name);
    return true;
}

static void topic_names(void *ctx, void (*fn)(void *arg, kc_str_t name), void *arg)
{
    kc_server_t *s = ctx;
    size_t n = kc_topics_count(s->topics);
    for (size_t i = 0; i < n; i++)
        fn(arg, kc_str(kc_topics_at(s->topics, i)->name));
}

/* ---- responses ---- */

kc_response_t *kc_req_respond(kc_req_t *req, const kc_buf_t *b)
{
    kc_result_t *res = req->res;
    if (res->nresponses == res->responses_cap) {
        res->responses_cap = res->responses_cap ? res->responses_cap * 2 : 8;
        res->responses = kc_xrealloc(res->responses, res->responses_cap * sizeof(kc_response_t));
    }
    kc_response_t *r = &res->responses[res->nresponses++];
    memset(r, 0, sizeof(*r));
    r->conn_id = req->ctx.conn_id;
    r->correlation_id = req->ctx.correlation_id;
    r->api_key = req->ctx.api_key;
    r->api_version = req->ctx.api_version;
    kc_buf_init(&r->body);
    kc_buf_init(&r->error_body);
    kc_buf_append(&r->body, b->data, b->len);
    return r;
}

int kc_req_respond_encoded(kc_req_t *req, int rc, kc_buf_t *b)
{
    if (rc != 0) {
        kc_log_error("server", "cannot encode response to api %d v%d (%d)", req->ctx.api_key,
                     req->ctx.api_version, rc);
        kc_buf_deinit(b);
        return KC_EIO;
    }
    kc_req_respond(req, b);
    kc_buf_deinit(b);
    return 0;
}

int kc_req_respond_error(kc_req_t *req, const kc_reader_t *body, int16_t code)
{
    kc_buf_t b;
    kc_buf_init(&b);
    kc_reader_t r = *body;
    int rc = kc_msg_error_response_encode(req->ctx.api_key, req->ctx.api_version, &r, req->arena,
                                          code, &b);
    return kc_req_respond_encoded(req, rc, &b);
}

/* A response held back by a delay fault, written when its timer fires. */
typedef struct delayed_response {
    kc_server_t *srv;
    struct event *ev;
    uint64_t conn_id;
    kc_buf_t frame;
    struct delayed_response *next, *prev;
} delayed_response_t;

static void delayed_free(kc_server_t *s, delayed_response_t *d)
{
    if (d->prev)
        d->prev->next = d->next;
    else
        s->delayed = d->next;
    if (d->next)
        d->next->prev = d->prev;
    event_free(d->ev);
    kc_buf_deinit(&d->frame);
    free(d);
}

static void delayed_send_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    delayed_response_t *d = arg;
    kc_net_send(d->srv->net, d->conn_id, d->frame.data, d->frame.len);
    delayed_free(d->srv, d);
}

/* Frames one response (header + body) and hands it to net/; dropped if the connection is gone. */
static void send_response(kc_server_t *s, const kc_response_t *r, bool use_error_body)
{
    const kc_buf_t *body = use_error_body && r->error_body.len > 0 ? &r->error_body : &r->body;
    const kc_api_entry_t *e = kc_api_find(r->api_key);
    /* ApiVersions always answers with header v0 (KIP-511). */
    bool flexible = e && r->api_key != KC_API_API_VERSIONS && r->api_version >= e->flexible_min;
    s->metrics.bytes_out += (uint64_t)body->len + 4;
    if (s->admin)
        kc_admin_count_response(s, r->api_key, r->api_version, body);
    int64_t delay = kc_faults_response_delay(s->faults, r);
    if (delay > 0) {
        /* One request in flight per connection: delaying keeps the order. */
        delayed_response_t *d = kc_xcalloc(1, sizeof(*d));
        d->srv = s;
        d->conn_id = r->conn_id;
        kc_buf_init(&d->frame);
        kc_response_header_encode(&d->frame, r->correlation_id, flexible);
        kc_buf_append(&d->frame, body->data, body->len);
        d->ev = evtimer_new(s->base, delayed_send_cb, d);
        d->next = s->delayed;
        if (s->delayed)
            s->delayed->prev = d;
        s->delayed = d;
        struct timeval tv = ms_tv(delay);
        evtimer_add(d->ev, &tv);
        return;
    }
    kc_buf_reset(&s->resp_head);
    kc_response_header_encode(&s->resp_head, r->correlation_id, flexible);
    s->metrics.bytes_out += s->resp_head.len;
    int rc = kc_net_send_parts(s->net, r->conn_id, s->resp_head.data, s->resp_head.len,
                               body->data, body->len);
    if (rc == KC_ENOENT)
        kc_log_debug("server", "dropping response to closed connection %llu",
                     (unsigned long long)r->conn_id);
}

/* ---- coordinator load ---- */

typedef struct {
    kc_server_t *s;
    uint64_t n, bad;
} replay_ctx_t;

static int replay_one(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len)
{
    replay_ctx_t *rc = ctx;
    rc->n++;
    int err = kc_txn_is_record(key, key_len)
                  ? kc_txn_replay(rc->s->txn, key, key_len, value, value_len)
                  : kc_coord_replay(rc->s->coord, key, key_len, value, value_len);
    if (err != 0)
        rc->bad++;
    return 0;
}

static int load_coordinator(kc_server_t *s)
{
    int64_t t0 = mono_ms();
    replay_ctx_t rc = {s, 0, 0};
    int err = kc_store_replay(s->store, replay_one, &rc);
    if (err != 0) {
        kc_log_error("server", "replaying stored records failed (%d)", err);
        return err;
    }
    kc_coord_loaded(s->coord, kc_server_wall_ms());
    /* Completes what a Prepare record left open; the records join the first commit. */
    kc_txn_loaded(s->txn, kc_server_wall_ms(), &s->batch);
    if (rc.bad)
        kc_log_warn("server", "%llu stored records could not be parsed and were skipped",
                    (unsigned long long)rc.bad);
    kc_log_info("server", "loaded %llu coordinator records in %lld ms", (unsigned long long)rc.n,
                (long long)(mono_ms() - t0));
    return 0;
}

static void wake_parked(kc_server_t *s, kc_result_t *res);

const double kc_metrics_latency_bounds_s[KC_METRICS_LATENCY_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0};

static int64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void kc_latency_observe(kc_latency_hist_t *h, int64_t us)
{
    double sec = us > 0 ? (double)us / 1e6 : 0;
    h->count++;
    h->sum_seconds += sec;
    for (size_t i = 0; i < KC_METRICS_LATENCY_BUCKETS; i++)
        if (sec <= kc_metrics_latency_bounds_s[i])
            h->bucket[i]++;
}

/* ---- the commit step ---- */

/* kc_log_topic_config_fn over the topic table. */
static void topic_log_config(void *ctx, kc_uuid_t topic_id, kc_log_topic_config_t *cfg)
{
    kc_server_t *s = ctx;
    kc_topic_log_config(s, kc_topics_find_id(s->topics, topic_id), cfg);
}

bool kc_server_maybe_flush(kc_server_t *s, bool check_time)
{
    int64_t since = mono_ms() - s->last_flush_ms;
    bool due = s->coord_unflushed > 0 &&
               (s->coord_unflushed >= (uint64_t)s->cfg->log_flush_interval_messages ||
                (check_time && since >= kc_config_log_flush_ms(s->cfg)));
    if (!due && !kc_log_flush_due(s->log, check_time ? since : -1))
        return false;
    if (kc_store_sync(s->store) != 0) {
        /* Kafka takes the log directory offline here, and halts when it was
         * the last one. A later fdatasync may succeed although the pages of
         * the failed one were dropped, so kcoord does not try again: it stops
         * before answering the requests this flush was for (none of them is
         * acknowledged), and a new process reopens the committed data. */
        kc_log_error("server", "flush to disk failed; records since the last flush may be lost "
                               "on an OS crash; stopping the broker");
        _exit(1);
    }
    kc_log_flushed(s->log);
    s->coord_unflushed = 0;
    s->last_flush_ms = mono_ms();
    return true;
}

/* The earliest deadline of the group and transaction coordinators (ms). */
static int64_t next_deadline(const kc_server_t *s)
{
    return KC_MIN(kc_coord_next_deadline(s->coord), kc_txn_next_deadline(s->txn));
}

static void arm_coord_timer(kc_server_t *s)
{
    int64_t deadline = next_deadline(s);
    if (deadline == INT64_MAX) {
        evtimer_del(s->coord_timer);
        return;
    }
    /* In microseconds: the loop's precise timer wakes at the deadline itself,
     * not up to a millisecond before or after it. */
    int64_t wait_us = deadline * 1000 - wall_us();
    int64_t stall_until;
    if (kc_faults_stalled(s->faults, &stall_until)) {
        /* A stalled coordinator fires no timers either; look again when it ends. */
        int64_t left = stall_until == INT64_MAX ? 1000 : stall_until - mono_ms();
        if (wait_us < left * 1000)
            wait_us = left * 1000;
    }
    if (wait_us < 0)
        wait_us = 0;
    struct timeval tv = {(time_t)(wait_us / 1000000), (suseconds_t)(wait_us % 1000000)};
    evtimer_add(s->coord_timer, &tv);
}

/*
 * Fires the coordinator timers that are due, unless a fault stalls the
 * coordinator, and counts how late the earliest of them fires. Called by the
 * timer and before every request, so that a request read in the same loop
 * iteration as a deadline finds the deadline's effects (a heartbeat 1 ms
 * after a member's session deadline is answered UNKNOWN_MEMBER_ID), as the
 * expiry enqueued by Kafka's timer runs before a later request.
 */
static void fire_due_timers(kc_server_t *s)
{
    int64_t now_us = wall_us(), deadline = next_deadline(s);
    if (deadline == INT64_MAX || deadline * 1000 > now_us || kc_faults_stalled(s->faults, NULL))
        return;
    kc_latency_observe(&s->metrics.timer_lateness, now_us - deadline * 1000);
    kc_coord_tick(s->coord, now_us / 1000, &s->batch);
    kc_txn_tick(s->txn, now_us / 1000, &s->batch);
}

static void release(kc_server_t *s, kc_result_t *res, bool failed)
{
    for (size_t i = 0; i < res->nresponses; i++) {
        const kc_response_t *r = &res->responses[i];
        /* A body that could not be encoded and no error body to send instead
         * (kc_result_t.failed): closing is the one answer that claims nothing. */
        if (failed && r->body.len == 0 && r->error_body.len == 0)
            kc_net_close(s->net, r->conn_id, "response could not be encoded");
        else
            send_response(s, r, failed);
    }
    kc_result_reset(res);
}

/* After a failed commit: drop memory state and rebuild it from what is durable. */
static void reload_after_failure(kc_server_t *s)
{
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_unload(s->coord, &res);
    kc_txn_unload(s->txn);
    release(s, &res, false);
    kc_result_deinit(&res);
    kc_topics_free(s->topics);
    s->topics = kc_topics_new(s->store);
    if (kc_topics_load(s->topics) != 0)
        kc_log_error("server", "reloading topics failed");
    /* The log asks for the reloaded topics' configs again. */
    kc_log_set_topic_config(s->log, topic_log_config, s);
    kc_group_configs_free(s->group_configs);
    s->group_configs = kc_group_configs_new(s->store);
    if (kc_group_configs_load(s->group_configs) != 0)
        kc_log_error("server", "reloading the group configs failed");
    kc_group_configs_apply_all(s);
    if (load_coordinator(s) != 0)
        kc_log_error("server", "reloading the coordinator failed");
    if (kc_acls_load(s) != 0)
        kc_log_error("server", "reloading the ACLs failed");
}

void kc_server_commit(kc_server_t *s)
{
    kc_result_t *b = &s->batch;
    bool failed = b->failed, advanced = false;
    if (failed) {
        /* Something of the batch could not be encoded (logged by the
         * coordinator): as after a failed commit, nothing of the iteration
         * is written and memory is rebuilt from what is durable. */
        kc_log_error("server", "dropping the %zu records of an iteration that could not be "
                               "encoded; reloading the coordinator", b->nrecords);
        kc_store_abort(s->store);
        kc_log_reset(s->log);
    } else if (b->nrecords == 0 && b->nresponses == 0 && !kc_store_pending(s->store)) {
        kc_topology_desc_after_commit(s, false);
        arm_coord_timer(s);
        return;
    }
    for (size_t i = 0; i < b->nrecords && !failed; i++) {
        kc_record_t *r = &b->records[i];
        kc_store_append(s->store, r->key.data, r->key.len, r->tombstone ? NULL : r->value.data,
                        r->tombstone ? 0 : r->value.len);
    }
    if (!failed && kc_store_pending(s->store)) {
        int64_t c0 = mono_us();
        int rc = kc_store_commit(s->store);
        kc_latency_observe(&s->metrics.commit, mono_us() - c0);
        if (rc != 0) {
            kc_log_error("server", "commit of %zu records failed (%d); reloading the coordinator",
                         b->nrecords, rc);
            failed = true;
            kc_log_reset(s->log);
        } else {
            advanced = kc_log_committed(s->log);
            s->coord_unflushed += b->nrecords;
            /* Before the responses, as UnifiedLog.append flushes in the request. */
            kc_server_maybe_flush(s, false);
        }
    }
    /* Swap the batch out: sending can trigger nothing re-entrant, but reload
     * appends. The two results trade places, keeping their arrays. */
    kc_result_t done = *b;
    *b = s->spare;
    release(s, &done, failed);
    s->spare = done;
    if (failed && kc_store_failed(s->store)) {
        /* Nothing can be read back or written any more: as Kafka halts when
         * its last log directory fails, kcoord stops at once, and a new
         * process reopens the data from the last complete commit. */
        kc_log_error("server", "the data directory's LMDB environment failed (a commit's meta "
                               "page could not be written); stopping the broker");
        _exit(1);
    }
    if (failed)
        reload_after_failure(s);
    kc_topology_desc_after_commit(s, failed);
    if (advanced && s->parked) {
        /* Fetch responses depend on no record: they go out at once. */
        kc_result_t woken;
        kc_result_init(&woken);
        wake_parked(s, &woken);
        release(s, &woken, false);
        kc_result_deinit(&woken);
    }
    arm_coord_timer(s);
}

static void coord_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    fire_due_timers(arg);
}

/* ---- parked fetches ---- */

static void parked_unlink_free(kc_server_t *s, kc_parked_fetch_t *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        s->parked = p->next;
    if (p->next)
        p->next->prev = p->prev;
    event_free(p->timer);
    kc_buf_deinit(&p->body);
    free(p->principal);
    free(p->client_host);
    free(p);
}

/* MaxWaitMs passed: answer with whatever is readable now. */
static void parked_fire(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_parked_fetch_t *p = arg;
    kc_server_t *s = p->srv;
    bool done;
    if (kc_fetch_complete(s, &p->ctx, p->body.data, p->body.len, true, &s->batch, &done) != 0)
        kc_net_close(s->net, p->ctx.conn_id, "fetch failed");
    parked_unlink_free(s, p);
}

void kc_server_park_fetch(kc_server_t *s, const kc_request_ctx_t *ctx, const uint8_t *body,
                          size_t len, int64_t delay_ms)
{
    kc_parked_fetch_t *p = kc_xcalloc(1, sizeof(*p));
    p->srv = s;
    p->ctx = *ctx;
    p->ctx.client_id = KC_STR_NULL;
    p->principal = ctx->principal ? kc_xstrdup(ctx->principal) : NULL;
    p->client_host = ctx->client_host ? kc_xstrdup(ctx->client_host) : NULL;
    p->ctx.principal = p->principal;
    p->ctx.client_host = p->client_host;
    kc_buf_init(&p->body);
    kc_buf_append(&p->body, body, len);
    p->timer = evtimer_new(s->base, parked_fire, p);
    p->next = s->parked;
    if (s->parked)
        s->parked->prev = p;
    s->parked = p;
    struct timeval tv = ms_tv(delay_ms);
    evtimer_add(p->timer, &tv);
}

/* New data is readable: complete the parked fetches that now have MinBytes. */
static void wake_parked(kc_server_t *s, kc_result_t *res)
{
    kc_parked_fetch_t *p = s->parked;
    while (p) {
        kc_parked_fetch_t *next = p->next;
        bool done = false;
        if (kc_fetch_complete(s, &p->ctx, p->body.data, p->body.len, false, res, &done) != 0)
            kc_net_close(s->net, p->ctx.conn_id, "fetch failed");
        if (done)
            parked_unlink_free(s, p);
        p = next;
    }
}

/* ---- request routing ---- */

static void close_bad(kc_server_t *s, const kc_conn_info_t *conn, const char *what,
                      int16_t api_key, int16_t api_version, const uint8_t *data, size_t len)
{
    char hex[3 * 16 + 1] = "";
    for (size_t i = 0; i < len && i < 16; i++)
        snprintf(hex + 3 * i, 4, "%02x ", data[i]);
    kc_log_warn("server",
                "closing connection %llu from %s: %s (api key %d, version %d, %zu bytes: %s)",
                (unsigned long long)conn->conn_id, conn->peer_host, what, api_key, api_version,
                len, hex);
    kc_net_close(s->net, conn->conn_id, what);
}

static void on_request(void *ctx, const kc_conn_info_t *conn, const uint8_t *data, size_t len)
{
    kc_server_t *s = ctx;
    if (s->stopping) {
        /* Shutting down: requests already taken in are answered, new ones
         * are not (Kafka stops its processors before its request handlers). */
        kc_net_close(s->net, conn->conn_id, "shutting down");
        return;
    }
    s->requests_seen++;
    s->metrics.bytes_in += len + 4;
    if (kc_sasl_on_frame(s, conn, data, len))
        return;
    if (kc_faults_on_request(s->faults, conn, data, len))
        return;
    kc_server_process_request(s, conn, data, len);
}

void kc_server_process_request(kc_server_t *s, const kc_conn_info_t *conn, const uint8_t *data,
                               size_t len)
{
    kc_reader_t r;
    kc_reader_init(&r, data, len);
    int16_t api_key = kc_read_int16(&r);
    int16_t api_version = kc_read_int16(&r);
    if (r.err) {
        close_bad(s, conn, "truncated request header", -1, -1, data, len);
        return;
    }
    const kc_api_entry_t *e = kc_api_find(api_key);
    if (!e) {
        /* Kafka cannot parse a header with an unknown api key and closes. */
        close_bad(s, conn, "unknown api key", api_key, api_version, data, len);
        return;
    }
    kc_reader_init(&r, data, len);
    kc_request_header_t h;
    if (kc_request_header_decode(&r, api_version >= e->flexible_min, &h) != 0) {
        close_bad(s, conn, "malformed request header", api_key, api_version, data, len);
        return;
    }
    bool supported = api_version >= e->min_version && api_version <= e->max_version;
    kc_arena_reset(&s->arena);
    kc_req_t req = {.srv = s, .body = &r, .arena = &s->arena, .res = &s->batch};
    req.ctx.conn_id = conn->conn_id;
    req.ctx.correlation_id = h.correlation_id;
    req.ctx.api_key = api_key;
    req.ctx.api_version = api_version;
    req.ctx.client_id = h.client_id;
    req.ctx.client_host = conn->peer_host;
    fire_due_timers(s);
    req.ctx.now_ms = kc_server_wall_ms();
    req.ctx.principal = conn->principal;
    kc_acls_set_ctx(s, &req.ctx);
    if (!supported) {
        if (api_key == KC_API_API_VERSIONS) {
            /* KIP-511: answer a v0 body naming our ApiVersions range; the
             * client retries. Kafka does so for every unsupported version. */
            kc_buf_t b;
            kc_buf_init(&b);
            kc_api_versions_unsupported_body(&b);
            kc_response_t *resp = kc_req_respond(&req, &b);
            resp->api_version = 0;
            kc_buf_deinit(&b);
            return;
        }
        /* Kafka fails to parse the request (UnsupportedVersionException) and closes. */
        close_bad(s, conn, "unsupported version", api_key, api_version, data, len);
        return;
    }
    if (api_key >= 0 && api_key < KC_METRICS_MAX_API && api_version >= 0 &&
        api_version < KC_METRICS_MAX_VERSION)
        s->metrics.requests[api_key][api_version]++;
    if (kc_faults_intercept(s->faults, &req))
        return;
    size_t before = s->batch.nresponses;
    int rc = e->handler(&req);
    if (rc != 0) {
        /* Drop anything the handler queued for this request, then close as Kafka does. */
        while (s->batch.nresponses > before) {
            kc_response_t *x = &s->batch.responses[--s->batch.nresponses];
            kc_buf_deinit(&x->body);
            kc_buf_deinit(&x->error_body);
        }
        close_bad(s, conn,
                  rc == KC_EINVAL     ? "malformed request body"
                  : rc == KC_EVERSION ? "unsupported version"
                                      : "internal error",
                  api_key, api_version, data, len);
    }
}

static void on_close(void *ctx, uint64_t conn_id)
{
    kc_server_t *s = ctx;
    /* Parked fetches of a closed connection are never answered. */
    kc_parked_fetch_t *p = s->parked;
    while (p) {
        kc_parked_fetch_t *next = p->next;
        if (p->ctx.conn_id == conn_id)
            parked_unlink_free(s, p);
        p = next;
    }
}

/* ---- lifecycle ---- */

kc_server_t *kc_server_new(const kc_config_t *cfg, struct event_base *base, bool listen)
{
    int64_t t0 = mono_ms();
    kc_server_t *s = kc_xcalloc(1, sizeof(*s));
    s->cfg = cfg;
    s->base = base;
    kc_result_init(&s->batch);
    kc_result_init(&s->spare);
    kc_buf_init(&s->resp_head);
    kc_arena_init(&s->arena);
    if (kc_store_open(&s->store, cfg->log_dirs, (uint64_t)cfg->lmdb_map_size_bytes) != 0) {
        kc_log_error("server", "cannot open storage in %s", cfg->log_dirs);
        goto fail;
    }
    kc_store_set_limits(s->store, (uint64_t)cfg->lmdb_map_max_bytes,
                        (uint64_t)cfg->lmdb_free_space_warn_bytes);
    s->topics = kc_topics_new(s->store);
    if (kc_topics_load(s->topics) != 0) {
        kc_log_error("server", "cannot load topics from %s", cfg->log_dirs);
        goto fail;
    }
    s->group_configs = kc_group_configs_new(s->store);
    if (kc_group_configs_load(s->group_configs) != 0) {
        kc_log_error("server", "cannot load the group configs from %s", cfg->log_dirs);
        goto fail;
    }
    kc_log_config_t lc;
    kc_log_config_defaults(&lc);
    lc.max_message_bytes = cfg->message_max_bytes;
    lc.message_timestamp_before_max_ms = cfg->log_message_timestamp_before_max_ms;
    lc.message_timestamp_after_max_ms = cfg->log_message_timestamp_after_max_ms;
    lc.cleaner_dedupe_buffer_size = cfg->log_cleaner_dedupe_buffer_size;
    s->log = kc_log_new(s->store, &lc);
    if (!s->log)
        goto fail;
    kc_log_set_topic_config(s->log, topic_log_config, s);
    kc_server_lead_partitions(s);
    s->last_flush_ms = mono_ms();
    kc_coord_config_t cc;
    kc_coord_config_defaults(&cc);
    kc_config_coord(cfg, &cc);
    s->topic_view.topic_exists = topic_exists;
    s->topic_view.topic_lookup = topic_lookup;
    s->topic_view.topic_id_to_name = topic_id_to_name;
    s->topic_view.topic_names = topic_names;
    s->topic_view.topic_creation_error = kc_topic_creation_error;
    s->topic_view.ctx = s;
    s->coord = kc_coord_new(&cc, &s->topic_view);
    s->txn = kc_txn_api_new(s, &cc);
    kc_group_configs_apply_all(s);
    uint64_t seed;
    if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
        seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    kc_coord_seed(s->coord, seed);
    s->coord_timer = evtimer_new(base, coord_timer_cb, s);
    s->faults = kc_faults_new(s);
    kc_net_config_t nc = {cfg->socket_request_max_bytes, cfg->connections_max_idle_ms,
                          cfg->max_connections, cfg->max_connections_per_ip,
                          cfg->max_connections_per_ip_overrides};
    kc_net_handler_t h = {on_request, on_close, s};
    s->net = kc_net_new(base, &nc, &h);
    if (kc_security_start(s, listen) != 0)
        goto fail;
    /* What clients are told: the advertised listener, else the first listener. */
    const kc_listener_t *adv = cfg->nadvertised ? &cfg->advertised[0] : &cfg->listener[0];
    snprintf(s->adv_host, sizeof(s->adv_host), "%s", adv->host[0] ? adv->host : "localhost");
    s->adv_port = cfg->nadvertised ? adv->port : (listen ? s->bound_port : adv->port);
    if (load_coordinator(s) != 0 || kc_acls_load(s) != 0)
        goto fail;
    if (listen && kc_admin_start(s) != 0)
        goto fail;
    if (kc_topology_desc_start(s) != 0)
        goto fail;
    kc_log_api_start(s);
    kc_log_info("server", "kcoord node %d ready in %lld ms (%zu topics, advertised %s:%d)",
                cfg->node_id, (long long)(mono_ms() - t0), kc_topics_count(s->topics),
                s->adv_host, s->adv_port);
    arm_coord_timer(s);
    return s;
fail:
    kc_server_free(s);
    return NULL;
}

void kc_server_free(kc_server_t *s)
{
    if (!s)
        return;
    if (s->coord && s->store) {
        kc_server_commit(s);
    }
    kc_admin_stop(s);
    kc_faults_free(s->faults);
    s->faults = NULL;
    if (s->coord && s->store)
        kc_server_commit(s);
    while (s->parked)
        parked_unlink_free(s, s->parked);
    while (s->delayed)
        delayed_free(s, s->delayed);
    kc_topic_creation_errors_free(s);
    kc_topology_desc_stop(s);
    kc_log_api_stop(s);
    kc_net_free(s->net);
    kc_security_stop(s);
    if (s->sighup_ev)
        event_free(s->sighup_ev);
    if (s->coord_timer)
        event_free(s->coord_timer);
    if (s->sigint_ev)
        event_free(s->sigint_ev);
    if (s->sigterm_ev)
        event_free(s->sigterm_ev);
    kc_coord_free(s->coord);
    kc_txn_free(s->txn);
    kc_acls_free(s);
    kc_topics_free(s->topics);
    kc_group_configs_free(s->group_configs);
    kc_log_free(s->log);
    kc_store_close(s->store);
    kc_result_deinit(&s->batch);
    kc_result_deinit(&s->spare);
    kc_buf_deinit(&s->resp_head);
    kc_arena_deinit(&s->arena);
    free(s);
}

/*
 * Group commit: when this iteration has records to commit, requests that
 * became ready while it ran (typically the next requests of the connections
 * answered by the previous commit) join the same commit through a few more
 * non-blocking passes, instead of each waiting for a commit of its own.
 * Bounded, so a steady stream cannot hold a commit back. An iteration
 * without records (heartbeats, fetches) goes to the commit step at once,
 * which then only sends its answers.
 */
#define BURST_PASSES 4

void kc_server_run_once(kc_server_t *s)
{
    s->requests_seen = 0;
    event_base_loop(s->base, EVLOOP_ONCE);
    for (int i = 0; i < BURST_PASSES && !s->stopping && s->requests_seen > 0 &&
                    s->batch.nrecords > 0;
         i++) {
        s->requests_seen = 0;
        event_base_loop(s->base, EVLOOP_NONBLOCK);
    }
    kc_server_commit(s);
}

/* How long a stopping broker keeps writing the answers it owes before it
 * closes the remaining connections anyway. */
#define SHUTDOWN_DRAIN_MS 5000

static void drain_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

/*
 * Graceful shutdown, after the listeners are closed: commit what the last
 * iteration produced, answer every parked request (a long-poll Fetch with
 * what is readable now, a parked JoinGroup or SyncGroup NOT_COORDINATOR, as
 * when Kafka's coordinator resigns, so clients look for the coordinator
 * again), then keep writing until every answer has left or
 * SHUTDOWN_DRAIN_MS passed.
 */
static void shutdown_gracefully(kc_server_t *s)
{
    kc_server_commit(s);
    size_t fetches = 0;
    while (s->parked) {
        kc_parked_fetch_t *p = s->parked;
        bool done;
        if (kc_fetch_complete(s, &p->ctx, p->body.data, p->body.len, true, &s->batch, &done) != 0)
            kc_net_close(s->net, p->ctx.conn_id, "fetch failed");
        parked_unlink_free(s, p);
        fetches++;
    }
    kc_server_commit(s);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_unload(s->coord, &res);
    size_t groups = res.nresponses;
    release(s, &res, false);
    kc_result_deinit(&res);
    kc_log_info("server", "shutting down: answered %zu parked fetches and %zu parked group requests",
                fetches, groups);
    int64_t deadline = mono_ms() + SHUTDOWN_DRAIN_MS;
    struct event *tick = event_new(s->base, -1, EV_PERSIST, drain_tick, NULL);
    struct timeval tv = ms_tv(50);
    event_add(tick, &tv);
    while (kc_net_pending_output(s->net) > 0 && mono_ms() < deadline)
        event_base_loop(s->base, EVLOOP_ONCE);
    event_free(tick);
    if (kc_net_pending_output(s->net) > 0)
        kc_log_warn("server", "closing %zu connections with unsent answers after %d ms",
                    kc_net_pending_output(s->net), SHUTDOWN_DRAIN_MS);
}

void kc_server_run(kc_server_t *s)
{
    while (!s->stopping)
        kc_server_run_once(s);
    shutdown_gracefully(s);
}

void kc_server_stop(kc_server_t *s)
{
    if (s->stopping)
        return;
    s->stopping = true;
    kc_net_stop_listening(s->net);
    event_base_loopbreak(s->base);
}

static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    kc_log_info("server", "received signal %d, shutting down", (int)sig);
    kc_server_stop(arg);
}

static void sighup_cb(evutil_socket_t sig, short what, void *arg)
{
    (void)sig;
    (void)what;
    kc_log_info("server", "received SIGHUP, reloading certificates and credentials");
    kc_security_reload(arg);
}

void kc_server_install_signals(kc_server_t *s)
{
    s->sighup_ev = evsignal_new(s->base, SIGHUP, sighup_cb, s);
    event_add(s->sighup_ev, NULL);
    s->sigint_ev = evsignal_new(s->base, SIGINT, signal_cb, s);
    s->sigterm_ev = evsignal_new(s->base, SIGTERM, signal_cb, s);
    event_add(s->sigint_ev, NULL);
    event_add(s->sigterm_ev, NULL);
    signal(SIGPIPE, SIG_IGN);
}

kc_net_t *kc_server_net(kc_server_t *s)
{
    return s->net;
}

uint16_t kc_server_port(const kc_server_t *s)
{
    return s->bound_port;
}
