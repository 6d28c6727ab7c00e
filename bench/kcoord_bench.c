/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kcoord-bench: end-to-end figures of a running broker, measured over the
 * Kafka protocol with the generated codec. Prints one line per figure with
 * its target. Never run by the tests.
 *
 *   kcoord-bench --kcoord PATH           start PATH on a free port with a temp data dir
 *   kcoord-bench --bootstrap HOST:PORT   use a broker that is already running
 *   --reference HOST:PORT                run the same loads there too, print ratios
 *   --rdkafka-mock                       use librdkafka's mock cluster as the reference
 *   --kafka-reference                    start Apache Kafka 4.4 (tests/reference) as the
 *                                        reference, time and measure it as kcoord; with
 *                                        --rdkafka-mock the mock is measured too, in the
 *                                        same run
 *   --duration SEC (default 3)  --replay-offsets N (default 1000000)
 *   --warmup SEC (default 0): run each load that long, untimed, before its figure
 *   --data-dir DIR                       data directory for --kcoord, kept afterwards
 *   --commit-conns N (default 8): connections of the offset-commit load
 *   --only heartbeats|rebalance|commits|produce|timers|transactions|replay: just that figure
 *                                        (for profiling)
 *   --only consumer: the KIP-848 consumer group figures, measured in process
 *                    by kcoord-consumer-bench (next to this program), which
 *                    this runs with its defaults
 *   --broker-pid PID: with --bootstrap, report that process's CPU per figure
 *   --produce-only                       only the produce and latency figures
 *   environment: KC_BENCH_LOGS=1 shows kcoord's log lines, KC_BENCH_DEBUG=1 probe timings,
 *                KC_REFERENCE_SCRIPT another reference_kafka.py (and its KC_REFERENCE_*)
 *
 * Figures: start to first ApiVersions answer and to a group coordinator
 * that answers, idle RSS, heartbeats/s over
 * 200 connections, 100-member rebalance (join+sync), durable offsets/s,
 * produce throughput (acks=1, batches of 100 records of 1 KiB, MB/s of
 * record values and records/s), produce-to-consume latency p50/p99 (a
 * long-polling fetcher, one record in flight), replay of N stored offsets
 * at start, the lateness of a rebalance timer p50/p99/max, transactions/s
 * of one transactional producer (each: 10 records to 2 partitions, a
 * group's offsets, commit) and the READ_COMMITTED produce-to-consume
 * latency p50/p99 of one committed record per transaction. Under the
 * heartbeat, rebalance and commit figures, the broker's own CPU time for
 * them (when its pid is known), a figure that a busy machine disturbs far
 * less than the wall-clock ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#ifdef KC_HAVE_RDKAFKA_MOCK
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#endif

#include "kc_common.h"
#include "kc_msgs.h"
#include "crc32c.h"
#include "wire.h"

#define HB_CONNS 200
#define RB_MEMBERS 100
#define OC_CONNS 8
#define OC_PARTITIONS 100
#define ERR_COORDINATOR_LOAD_IN_PROGRESS 14
#define ERR_COORDINATOR_NOT_AVAILABLE 15
#define ERR_NOT_COORDINATOR 16
#define ERR_REBALANCE_IN_PROGRESS 27
#define ERR_MEMBER_ID_REQUIRED 79

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- targets and API versions ------------------------------------------- */

typedef struct {
    char host[256];
    int port;
    int16_t max_version[128]; /* from ApiVersions; -1 = unsupported */
    pid_t pid;                /* the broker process, for its CPU time; <= 0 unknown */
    const char *name;         /* in the CPU lines: "kcoord", "Kafka" */
} target_t;

/*
 * CPU time the broker process has used, summed over its threads from
 * /proc/PID/task/TID/schedstat (ns on the CPU): on a shared, noisy machine
 * this says how much processing a figure cost, independent of how long the
 * broker waited for a core. -1 when the broker's pid is unknown (--bootstrap
 * without --broker-pid, the in-process mock). Threads that end between two
 * readings take their time with them: the brokers measured keep theirs.
 */
static double broker_cpu_ms(const target_t *t)
{
    if (t->pid <= 0)
        return -1;
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    unsigned long long total = 0;
    int threads = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat", (int)t->pid, e->d_name);
        FILE *f = fopen(path, "r");
        unsigned long long ns;
        if (f && fscanf(f, "%llu", &ns) == 1) {
            total += ns;
            threads++;
        }
        if (f)
            fclose(f);
    }
    closedir(d);
    return threads > 0 ? (double)total / 1e6 : -1;
}

/* Broker CPU used by the measured part of the last figure, in ms (-1 unknown),
 * and how many operations (heartbeats, offsets) that part completed. */
static double figure_cpu_ms = -1;
static uint64_t figure_ops;

static double cpu_since(const target_t *t, double before)
{
    double after = broker_cpu_ms(t);
    return before < 0 || after < 0 ? -1 : after - before;
}

static int parse_hostport(const char *s, target_t *t)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || (size_t)(colon - s) >= sizeof(t->host))
        return -1;
    memcpy(t->host, s, (size_t)(colon - s));
    t->host[colon - s] = '\0';
    t->port = atoi(colon + 1);
    return t->port > 0 && t->port < 65536 ? 0 : -1;
}

/* Version to use: our preference, capped by what the broker offers. */
static int16_t use_version(const target_t *t, int api, int16_t want)
{
    int16_t max = t->max_version[api];
    return max < 0 ? -1 : KC_MIN(want, max);
}

static bool request_flexible(int api, int16_t v)
{
    switch (api) {
    case KC_API_API_VERSIONS: return v >= KC_API_VERSIONS_REQUEST_FLEXIBLE_MIN;
    case KC_API_JOIN_GROUP: return v >= KC_JOIN_GROUP_REQUEST_FLEXIBLE_MIN;
    case KC_API_SYNC_GROUP: return v >= KC_SYNC_GROUP_REQUEST_FLEXIBLE_MIN;
    case KC_API_HEARTBEAT: return v >= KC_HEARTBEAT_REQUEST_FLEXIBLE_MIN;
    case KC_API_OFFSET_COMMIT: return v >= KC_OFFSET_COMMIT_REQUEST_FLEXIBLE_MIN;
    case KC_API_OFFSET_FETCH: return v >= KC_OFFSET_FETCH_REQUEST_FLEXIBLE_MIN;
    case KC_API_FIND_COORDINATOR: return v >= KC_FIND_COORDINATOR_REQUEST_FLEXIBLE_MIN;
    case KC_API_CREATE_TOPICS: return v >= KC_CREATE_TOPICS_REQUEST_FLEXIBLE_MIN;
    case KC_API_PRODUCE: return v >= KC_PRODUCE_REQUEST_FLEXIBLE_MIN;
    case KC_API_FETCH: return v >= KC_FETCH_REQUEST_FLEXIBLE_MIN;
    case KC_API_INIT_PRODUCER_ID: return v >= KC_INIT_PRODUCER_ID_REQUEST_FLEXIBLE_MIN;
    case KC_API_ADD_PARTITIONS_TO_TXN: return v >= KC_ADD_PARTITIONS_TO_TXN_REQUEST_FLEXIBLE_MIN;
    case KC_API_ADD_OFFSETS_TO_TXN: return v >= KC_ADD_OFFSETS_TO_TXN_REQUEST_FLEXIBLE_MIN;
    case KC_API_TXN_OFFSET_COMMIT: return v >= KC_TXN_OFFSET_COMMIT_REQUEST_FLEXIBLE_MIN;
    case KC_API_END_TXN: return v >= KC_END_TXN_REQUEST_FLEXIBLE_MIN;
    default: return false;
    }
}

/* Starts a frame: size placeholder plus request header v1/v2. */
static void frame_begin(kc_buf_t *b, int api, int16_t v, int32_t corr)
{
    kc_buf_reset(b);
    kc_write_int32(b, 0);
    kc_write_int16(b, (int16_t)api);
    kc_write_int16(b, v);
    kc_write_int32(b, corr);
    kc_write_str(b, kc_str("kcoord-bench"), false);
    if (request_flexible(api, v))
        kc_write_uvarint(b, 0);
}

static void frame_end(kc_buf_t *b)
{
    kc_buf_put_int32_at(b, 0, (int32_t)(b->len - 4));
}

/* Positions r after the response header of api/version. */
static int32_t read_response_header(kc_reader_t *r, int api, int16_t v)
{
    int32_t corr = kc_read_int32(r);
    if (api != KC_API_API_VERSIONS && request_flexible(api, v))
        kc_skip_tagged_fields(r);
    return corr;
}

/* ---- blocking calls (start-up probe, ApiVersions) ------------------------ */

static int connect_blocking(const target_t *t)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)t->port)};
    if (inet_pton(AF_INET, strcmp(t->host, "localhost") == 0 ? "127.0.0.1" : t->host,
                  &sa.sin_addr) != 1)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static int read_full(int fd, void *p, size_t n, int timeout_ms)
{
    uint8_t *b = p;
    while (n) {
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, timeout_ms) != 1)
            return -1;
        ssize_t r = read(fd, b, n);
        if (r <= 0)
            return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

/* One request/response on a blocking socket; body of the response in *resp. */
static int roundtrip(int fd, kc_buf_t *req, kc_buf_t *resp, int timeout_ms)
{
    if (write(fd, req->data, req->len) != (ssize_t)req->len)
        return -1;
    uint8_t sz[4];
    if (read_full(fd, sz, 4, timeout_ms))
        return -1;
    uint32_t n = ((uint32_t)sz[0] << 24) | ((uint32_t)sz[1] << 16) | ((uint32_t)sz[2] << 8) | sz[3];
    if (n > (64u << 20))
        return -1;
    kc_buf_reset(resp);
    uint8_t *dst = kc_buf_reserve(resp, n);
    if (read_full(fd, dst, n, timeout_ms))
        return -1;
    resp->len = n;
    return 0;
}

/* Sends ApiVersions v0 and fills t->max_version. 0 or -1. */
static int fetch_api_versions(int fd, target_t *t, int timeout_ms)
{
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    kc_arena_t arena;
    kc_arena_init(&arena);
    int rc = -1;
    frame_begin(&req, KC_API_API_VERSIONS, 0, 1);
    kc_api_versions_request_t m;
    kc_api_versions_request_init(&m);
    kc_api_versions_request_encode(&req, 0, &m);
    frame_end(&req);
    if (roundtrip(fd, &req, &resp, timeout_ms))
        goto out;
    kc_reader_t r;
    kc_reader_init(&r, resp.data, resp.len);
    if (read_response_header(&r, KC_API_API_VERSIONS, 0) != 1)
        goto out;
    kc_api_versions_response_t av;
    if (kc_api_versions_response_decode(&r, 0, &arena, &av) || av.error_code)
        goto out;
    for (int i = 0; i < 128; i++)
        t->max_version[i] = -1;
    for (int32_t i = 0; i < av.api_keys.count; i++) {
        int16_t k = av.api_keys.items[i].api_key;
        if (k >= 0 && k < 128)
            t->max_version[k] = av.api_keys.items[i].max_version;
    }
    rc = 0;
out:
    kc_arena_deinit(&arena);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    return rc;
}

/* Connects (retrying until deadline) and asks ApiVersions. 0 or -1. Tries
 * every 0.2 ms for 100 ms, then every ms (a JVM takes seconds). */
static int probe(target_t *t, double deadline)
{
    double start = now_s();
    while (now_s() < deadline) {
        int fd = connect_blocking(t);
        if (fd >= 0) {
            double tc = now_s();
            int rc = fetch_api_versions(fd, t, 2000);
            if (getenv("KC_BENCH_DEBUG"))
                fprintf(stderr, "probe: connected at %.6f, answer %d after %.2f ms\n", tc, rc,
                        (now_s() - tc) * 1e3);
            close(fd);
            if (rc == 0)
                return 0;
        }
        usleep(now_s() - start < 0.1 ? 200 : 1000);
    }
    return -1;
}

/* ---- async connections -------------------------------------------------- */

typedef struct conn conn_t;
typedef void (*resp_fn)(conn_t *c, kc_reader_t *r);

typedef struct run run_t;
struct run {
    struct event_base *base;
    target_t *target;
    int active; /* connections still working (commit loads) */
    bool failed;
    bool (*finished)(run_t *run); /* group phases: checked after each response */
    struct conn **conns;
    int nconns;
    int32_t gen0;       /* generation before the measured rebalance */
    double settled_at;  /* when the group phase predicate first held */
};

struct conn {
    run_t *run;
    int fd;
    struct event *rev, *wev;
    kc_buf_t in;      /* received bytes; frames are parsed from in_off */
    size_t in_off;
    kc_buf_t pend;    /* request bytes the socket did not take yet */
    size_t pend_off;
    int32_t corr;
    int api;
    int16_t version;
    resp_fn on_resp;
    kc_buf_t out;
    kc_arena_t arena;
    struct event *timer;
    int index;
    /* group membership */
    char group[64];
    char member_id[256];
    int32_t generation;
    bool leader;
    bool metadata_changed; /* joins with subscription_changed */
    int state; /* MS_* */
    kc_str_t members[RB_MEMBERS + 1];
    int32_t member_count;
    char member_buf[(RB_MEMBERS + 1) * 128];
    /* counters */
    uint64_t ok;
    uint64_t partitions_ok;
    int64_t next_offset;
    int todo; /* generic work counter */
    /* pipelined requests (produce load): responses come in request order */
    bool pipelined;
    int32_t acked; /* correlation id of the last response read */
};

static void conn_fail(conn_t *c, const char *why)
{
    fprintf(stderr, "kcoord-bench: connection %d: %s\n", c->index, why);
    c->run->failed = true;
    event_base_loopbreak(c->run->base);
}

/*
 * Requests are written straight to the socket (one send per request, no
 * write event unless the socket is full) and responses read with one recv
 * per readiness: the bench spends as little as it can per round trip, so
 * that the figures measure the broker.
 */
static void write_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    conn_t *c = arg;
    while (c->pend_off < c->pend.len) {
        ssize_t w = send(fd, c->pend.data + c->pend_off, c->pend.len - c->pend_off, MSG_NOSIGNAL);
        if (w > 0) {
            c->pend_off += (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        conn_fail(c, "socket error");
        return;
    }
    kc_buf_reset(&c->pend);
    c->pend_off = 0;
    event_del(c->wev);
}

/* Writes c->out (a whole frame) after whatever is still pending. */
static void conn_write(conn_t *c)
{
    if (c->pend.len > c->pend_off) {
        kc_buf_append(&c->pend, c->out.data, c->out.len);
        return;
    }
    ssize_t w = send(c->fd, c->out.data, c->out.len, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        conn_fail(c, "socket error");
        return;
    }
    size_t done = w > 0 ? (size_t)w : 0;
    if (done == c->out.len)
        return;
    kc_buf_reset(&c->pend);
    c->pend_off = 0;
    kc_buf_append(&c->pend, c->out.data + done, c->out.len - done);
    event_add(c->wev, NULL);
}

static void conn_send(conn_t *c, resp_fn fn)
{
    frame_end(&c->out);
    c->on_resp = fn;
    conn_write(c);
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    conn_t *c = arg;
    uint8_t *dst = kc_buf_reserve(&c->in, 65536);
    ssize_t got = recv(fd, dst, 65536, 0);
    if (got <= 0) {
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        conn_fail(c, got == 0 ? "closed by broker" : "socket error");
        return;
    }
    c->in.len += (size_t)got;
    while (!c->run->failed) {
        size_t avail = c->in.len - c->in_off;
        if (avail < 4)
            break;
        const uint8_t *p = c->in.data + c->in_off;
        uint32_t n = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
        if (n > (64u << 20)) {
            conn_fail(c, "oversized response");
            return;
        }
        if (avail < 4 + (size_t)n)
            break;
        c->in_off += 4 + (size_t)n;
        kc_reader_t r;
        kc_reader_init(&r, p + 4, n);
        int32_t corr = read_response_header(&r, c->api, c->version);
        resp_fn fn = c->on_resp;
        int32_t want_corr = c->pipelined ? c->acked + 1 : c->corr;
        if (c->pipelined)
            c->acked = corr;
        else
            c->on_resp = NULL;
        kc_arena_reset(&c->arena);
        if (corr != want_corr || !fn) {
            conn_fail(c, "unexpected correlation id");
            return;
        }
        fn(c, &r); /* may send the next request; never touches c->in */
        if (c->run->finished && c->run->finished(c->run))
            event_base_loopbreak(c->run->base);
    }
    if (c->in_off == c->in.len) {
        kc_buf_reset(&c->in);
        c->in_off = 0;
    } else if (c->in_off > 0) {
        memmove(c->in.data, c->in.data + c->in_off, c->in.len - c->in_off);
        c->in.len -= c->in_off;
        c->in_off = 0;
    }
}

/* Loops of the bench: epoll changelist (no epoll_ctl when a write event is
 * added and removed in one iteration), no locking. */
static struct event_base *bench_base_new(void)
{
    struct event_config *cfg = event_config_new();
    if (!cfg)
        return event_base_new();
    event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
    event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
    struct event_base *b = event_base_new_with_config(cfg);
    event_config_free(cfg);
    return b ? b : event_base_new();
}

static conn_t *conn_new(run_t *run, int index)
{
    int fd = connect_blocking(run->target);
    if (fd < 0) {
        fprintf(stderr, "kcoord-bench: cannot connect to %s:%d\n", run->target->host,
                run->target->port);
        return NULL;
    }
    evutil_make_socket_nonblocking(fd);
    conn_t *c = kc_xcalloc(1, sizeof(*c));
    c->run = run;
    c->index = index;
    c->generation = -1;
    c->fd = fd;
    kc_buf_init(&c->out);
    kc_buf_init(&c->in);
    kc_buf_init(&c->pend);
    kc_arena_init(&c->arena);
    c->rev = event_new(run->base, fd, EV_READ | EV_PERSIST, read_cb, c);
    c->wev = event_new(run->base, fd, EV_WRITE | EV_PERSIST, write_cb, c);
    event_add(c->rev, NULL);
    return c;
}

static void conn_free(conn_t *c)
{
    if (!c)
        return;
    if (c->timer)
        event_free(c->timer);
    event_free(c->rev);
    event_free(c->wev);
    close(c->fd);
    kc_buf_deinit(&c->out);
    kc_buf_deinit(&c->in);
    kc_buf_deinit(&c->pend);
    kc_arena_deinit(&c->arena);
    free(c);
}

/* Begins a request on c; returns the version, or -1 when unsupported. */
static int16_t conn_begin(conn_t *c, int api, int16_t want)
{
    int16_t v = use_version(c->run->target, api, want);
    if (v < 0) {
        conn_fail(c, "API not supported by the broker");
        return -1;
    }
    c->api = api;
    c->version = v;
    c->corr++;
    frame_begin(&c->out, api, v, c->corr);
    return v;
}

static void done_one(conn_t *c)
{
    if (--c->run->active == 0)
        event_base_loopbreak(c->run->base);
}

/* ---- classic group member state machine --------------------------------- */

enum { MS_JOIN, MS_SYNC, MS_STABLE };

static const uint8_t subscription[] = {0, 1, 0, 0, 0, 1, 0, 5, 'b', 'e', 'n', 'c', 'h',
                                       0xff, 0xff, 0xff, 0xff}; /* v1, ["bench"], null userdata */
/* The same with one byte of user data: the rejoin of the measured rebalance. */
static const uint8_t subscription_changed[] = {0, 1, 0, 0, 0, 1, 0, 5, 'b', 'e', 'n', 'c', 'h',
                                               0, 0, 0, 1, '1'};

typedef struct {
    bool flood;    /* heartbeat back-to-back (load) instead of paced */
    int pace_ms;   /* heartbeat interval when not flooding */
    bool quiesce;  /* send no heartbeats at all */
} member_mode_t;

static member_mode_t member_mode;

static void send_join(conn_t *c);
static void send_heartbeat(conn_t *c);

/* REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID: join again. */
static bool rejoin_needed(conn_t *c, int16_t error_code)
{
    if (error_code == 25)
        c->member_id[0] = '\0';
    return error_code == ERR_REBALANCE_IN_PROGRESS || error_code == 22 || error_code == 25;
}

static void hb_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    send_heartbeat(arg);
}

static void schedule_heartbeat(conn_t *c)
{
    if (member_mode.quiesce)
        return;
    if (member_mode.flood) {
        send_heartbeat(c);
        return;
    }
    if (!c->timer)
        c->timer = evtimer_new(c->run->base, hb_timer_cb, c);
    struct timeval tv = {0, member_mode.pace_ms * 1000};
    evtimer_add(c->timer, &tv);
}

static void on_heartbeat(conn_t *c, kc_reader_t *r)
{
    kc_heartbeat_response_t m;
    if (kc_heartbeat_response_decode(r, c->version, &c->arena, &m)) {
        conn_fail(c, "bad HeartbeatResponse");
        return;
    }
    if (rejoin_needed(c, m.error_code)) {
        send_join(c);
        return;
    }
    if (m.error_code) {
        conn_fail(c, "heartbeat error");
        return;
    }
    c->ok++;
    schedule_heartbeat(c);
}

static void send_heartbeat(conn_t *c)
{
    if (conn_begin(c, KC_API_HEARTBEAT, 3) < 0)
        return;
    kc_heartbeat_request_t m;
    kc_heartbeat_request_init(&m);
    m.group_id = kc_str(c->group);
    m.generation_id = c->generation;
    m.member_id = kc_str(c->member_id);
    kc_heartbeat_request_encode(&c->out, c->version, &m);
    conn_send(c, on_heartbeat);
}

static void on_sync(conn_t *c, kc_reader_t *r)
{
    kc_sync_group_response_t m;
    /* Some brokers (librdkafka's mock) send a null assignment with an
     * error, which SyncGroup v3 does not allow: read the error first. */
    kc_reader_t head = *r;
    if (c->version >= 1)
        kc_read_int32(&head);
    int16_t early = kc_read_int16(&head);
    if (!head.err && early) {
        if (rejoin_needed(c, early) || ++c->todo < 20) {
            send_join(c);
            return;
        }
        conn_fail(c, "sync error");
        return;
    }
    if (kc_sync_group_response_decode(r, c->version, &c->arena, &m)) {
        conn_fail(c, "bad SyncGroupResponse");
        return;
    }
    c->todo = 0;
    c->state = MS_STABLE;
    schedule_heartbeat(c);
}

static void send_sync(conn_t *c)
{
    if (conn_begin(c, KC_API_SYNC_GROUP, 3) < 0)
        return;
    kc_sync_group_request_t m;
    kc_sync_group_request_init(&m);
    m.group_id = kc_str(c->group);
    m.generation_id = c->generation;
    m.member_id = kc_str(c->member_id);
    kc_sync_group_request_assignment_t as[RB_MEMBERS + 1];
    static const uint8_t empty_assignment[] = {0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    if (c->leader) {
        for (int32_t i = 0; i < c->member_count; i++) {
            as[i].member_id = c->members[i];
            as[i].assignment = (kc_bytes_t){empty_assignment, (int32_t)sizeof(empty_assignment)};
        }
        m.assignments.items = as;
        m.assignments.count = c->member_count;
    } else {
        m.assignments.count = 0;
    }
    kc_sync_group_request_encode(&c->out, c->version, &m);
    c->state = MS_SYNC;
    conn_send(c, on_sync);
}

static void on_join(conn_t *c, kc_reader_t *r)
{
    kc_join_group_response_t m;
    if (kc_join_group_response_decode(r, c->version, &c->arena, &m)) {
        conn_fail(c, "bad JoinGroupResponse");
        return;
    }
    if (m.error_code == ERR_MEMBER_ID_REQUIRED || (m.error_code == 0 && m.member_id.len > 0)) {
        if (m.member_id.len <= 0 || (size_t)m.member_id.len >= sizeof(c->member_id)) {
            conn_fail(c, "bad member id");
            return;
        }
        memcpy(c->member_id, m.member_id.ptr, (size_t)m.member_id.len);
        c->member_id[m.member_id.len] = '\0';
    }
    if (m.error_code == ERR_MEMBER_ID_REQUIRED || rejoin_needed(c, m.error_code)) {
        send_join(c);
        return;
    }
    if (m.error_code) {
        conn_fail(c, "join error");
        return;
    }
    c->generation = m.generation_id;
    c->leader = kc_str_eq(m.leader, m.member_id);
    c->member_count = 0;
    if (c->leader) {
        size_t used = 0;
        for (int32_t i = 0; i < m.members.count && i <= RB_MEMBERS; i++) {
            kc_str_t id = m.members.items[i].member_id;
            if (id.len < 0 || used + (size_t)id.len > sizeof(c->member_buf)) {
                conn_fail(c, "too many members");
                return;
            }
            memcpy(c->member_buf + used, id.ptr, (size_t)id.len);
            c->members[i] = (kc_str_t){c->member_buf + used, id.len};
            used += (size_t)id.len;
            c->member_count++;
        }
    }
    send_sync(c);
}

static void send_join(conn_t *c)
{
    if (conn_begin(c, KC_API_JOIN_GROUP, 5) < 0)
        return;
    kc_join_group_request_t m;
    kc_join_group_request_init(&m);
    m.group_id = kc_str(c->group);
    m.session_timeout_ms = 6000; /* Kafka's group.min.session.timeout.ms */
    m.rebalance_timeout_ms = 30000;
    m.member_id = kc_str(c->member_id);
    m.protocol_type = kc_str("consumer");
    kc_join_group_request_protocol_t p = {kc_str("range"),
                                          {subscription, (int32_t)sizeof(subscription)}};
    if (c->metadata_changed)
        p.metadata = (kc_bytes_t){subscription_changed, (int32_t)sizeof(subscription_changed)};
    m.protocols.items = &p;
    m.protocols.count = 1;
    kc_join_group_request_encode(&c->out, c->version, &m);
    c->state = MS_JOIN;
    conn_send(c, on_join);
}

/* Periodic check of the group predicate (catches settling with no traffic). */
static void check_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    run_t *run = arg;
    if (run->finished && run->finished(run))
        event_base_loopbreak(run->base);
}

/*
 * Runs the loop until run->finished holds (group phases) or run->active
 * drops to 0 (commit loads), a connection fails, or timeout_s passes.
 */
static int run_loop(run_t *run, double timeout_s)
{
    struct timeval tv = {(time_t)timeout_s,
                         (suseconds_t)((timeout_s - (double)(time_t)timeout_s) * 1e6)};
    struct event *check = NULL;
    if (run->finished) {
        if (run->finished(run))
            return 0;
        check = event_new(run->base, -1, EV_PERSIST, check_cb, run);
        struct timeval every = {0, 10000};
        event_add(check, &every);
    }
    double deadline = now_s() + timeout_s;
    event_base_loopexit(run->base, &tv);
    event_base_dispatch(run->base);
    if (check)
        event_free(check);
    if (run->failed)
        return -1;
    if (run->finished)
        return run->finished(run) ? 0 : -1;
    return run->active == 0 || now_s() >= deadline ? 0 : -1;
}

/* Lets the loop run for ms milliseconds. */
static void run_for(run_t *run, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    event_base_loopexit(run->base, &tv);
    event_base_dispatch(run->base);
}

/* Every member Stable (each in its own group, or all in one generation). */
static bool all_stable(run_t *run, bool same_generation)
{
    for (int i = 0; i < run->nconns; i++) {
        conn_t *c = run->conns[i];
        if (c->state != MS_STABLE || (same_generation && c->generation != run->conns[0]->generation))
            return false;
    }
    return true;
}

static bool hb_formed(run_t *run)
{
    return all_stable(run, false);
}

/* One generation for all, unchanged for 500 ms of paced heartbeats. */
static bool rb_settled(run_t *run)
{
    if (!all_stable(run, true)) {
        run->settled_at = 0;
        return false;
    }
    if (run->settled_at == 0)
        run->settled_at = now_s();
    return now_s() - run->settled_at >= 0.5;
}

static bool rb_rebalanced(run_t *run)
{
    if (!all_stable(run, true))
        return false;
    return run->conns[0]->generation != run->gen0;
}

static bool none_in_flight(run_t *run)
{
    for (int i = 0; i < run->nconns; i++)
        if (run->conns[i]->on_resp)
            return false;
    return true;
}

static int left_ok; /* members whose LeaveGroup answered without error */

static void on_leave(conn_t *c, kc_reader_t *r)
{
    /* An error (the member gone already) changes nothing here. */
    kc_leave_group_response_t m;
    if (kc_leave_group_response_decode(r, c->version, &c->arena, &m) == 0 && !m.error_code &&
        m.members.count == 1 && !m.members.items[0].error_code)
        left_ok++;
    c->state = MS_JOIN;
    done_one(c);
}

/*
 * After a group figure, untimed: the members stop heartbeating and leave
 * their groups (LeaveGroup v3), as consumers that close do. Otherwise the
 * broker expires them a session timeout later, in the middle of a later
 * figure (cheap for kcoord, not for Kafka, which writes records for it).
 */
static void leave_all(run_t *run)
{
    member_mode.quiesce = true;
    for (int i = 0; i < run->nconns; i++)
        if (run->conns[i]->timer)
            evtimer_del(run->conns[i]->timer);
    run->finished = none_in_flight;
    if (run_loop(run, 10))
        return;
    run->finished = NULL;
    run->active = 0;
    left_ok = 0;
    for (int i = 0; i < run->nconns; i++) {
        conn_t *c = run->conns[i];
        if (!c->member_id[0] || conn_begin(c, KC_API_LEAVE_GROUP, 3) < 0)
            continue;
        kc_leave_group_request_t m;
        kc_leave_group_request_init(&m);
        m.group_id = kc_str(c->group);
        kc_leave_group_request_member_identity_t who = {kc_str(c->member_id), KC_STR_NULL,
                                                        KC_STR_NULL};
        m.members.items = &who;
        m.members.count = 1;
        kc_leave_group_request_encode(&c->out, c->version, &m);
        run->active++;
        conn_send(c, on_leave);
    }
    int asked = run->active;
    if (asked > 0)
        run_loop(run, 10);
    if (getenv("KC_BENCH_DEBUG"))
        fprintf(stderr, "leave: %d of %d members left\n", left_ok, asked);
}

/* ---- figure: heartbeats per second -------------------------------------- */

static double bench_heartbeats(target_t *t, double duration, const char *tag)
{
    conn_t *cs[HB_CONNS] = {0};
    run_t run = {.base = bench_base_new(), .target = t, .conns = cs, .nconns = HB_CONNS};
    double rate = -1;
    member_mode = (member_mode_t){false, 1000, false};
    for (int i = 0; i < HB_CONNS; i++) {
        if (!(cs[i] = conn_new(&run, i)))
            goto out;
        snprintf(cs[i]->group, sizeof(cs[i]->group), "kcb-hb-%s-%d-%d", tag, (int)getpid(), i);
        send_join(cs[i]);
    }
    run.finished = hb_formed;
    if (run_loop(&run, 60)) {
        fprintf(stderr, "kcoord-bench: %s: groups did not form\n", tag);
        goto out;
    }
    run.finished = NULL;
    /* Switch every member to back-to-back heartbeats. */
    member_mode.flood = true;
    for (int i = 0; i < HB_CONNS; i++) {
        if (cs[i]->timer && evtimer_pending(cs[i]->timer, NULL)) {
            evtimer_del(cs[i]->timer);
            send_heartbeat(cs[i]);
        }
        cs[i]->ok = 0;
    }
    double t0 = now_s(), cpu0 = broker_cpu_ms(t);
    run_for(&run, (int)(duration * 1000));
    double t1 = now_s();
    figure_cpu_ms = cpu_since(t, cpu0);
    if (run.failed)
        goto out;
    uint64_t n = 0;
    for (int i = 0; i < HB_CONNS; i++)
        n += cs[i]->ok;
    figure_ops = n;
    rate = (double)n / (t1 - t0);
    leave_all(&run);
out:
    for (int i = 0; i < HB_CONNS; i++)
        conn_free(cs[i]);
    event_base_free(run.base);
    return rate;
}

/* ---- figure: 100-member rebalance ---------------------------------------- */

static double bench_rebalance(target_t *t, const char *tag)
{
    conn_t *cs[RB_MEMBERS] = {0};
    run_t run = {.base = bench_base_new(), .target = t, .conns = cs, .nconns = RB_MEMBERS};
    double ms = -1;
    char group[64];
    snprintf(group, sizeof(group), "kcb-rb-%s-%d", tag, (int)getpid());
    /* Form the group: members heartbeat every 50 ms and rejoin when a
     * rebalance starts, until all share one generation. */
    member_mode = (member_mode_t){false, 50, false};
    for (int i = 0; i < RB_MEMBERS; i++) {
        if (!(cs[i] = conn_new(&run, i)))
            goto out;
        snprintf(cs[i]->group, sizeof(cs[i]->group), "%s", group);
        send_join(cs[i]);
    }
    run.finished = rb_settled;
    if (run_loop(&run, 30)) {
        int st[3] = {0, 0, 0};
        for (int i = 0; i < RB_MEMBERS; i++)
            st[cs[i]->state]++;
        fprintf(stderr,
                "kcoord-bench: %s: the 100-member group did not settle in 30 s "
                "(joining %d, syncing %d, stable %d)\n",
                tag, st[MS_JOIN], st[MS_SYNC], st[MS_STABLE]);
        goto out;
    }
    /* Quiesce: no new heartbeats, let those in flight finish. */
    member_mode.quiesce = true;
    for (int i = 0; i < RB_MEMBERS; i++)
        if (cs[i]->timer)
            evtimer_del(cs[i]->timer);
    run.finished = none_in_flight;
    if (run_loop(&run, 10) || !all_stable(&run, true)) {
        fprintf(stderr, "kcoord-bench: %s: the 100-member group did not stay stable\n", tag);
        goto out;
    }
    /*
     * Measured: every member rejoins at once, with changed metadata (a new
     * subscription user data), so that whichever join the broker takes
     * first starts the rebalance. With unchanged metadata, a follower whose
     * join came before the leader's would be answered at once with the
     * current generation (as Kafka does, and kcoord after it) and, sending
     * no heartbeats, would never hear of the rebalance. The join completes
     * when all have joined, then every member syncs.
     */
    run.gen0 = cs[0]->generation;
    run.finished = rb_rebalanced;
    double t0 = now_s(), cpu0 = broker_cpu_ms(t);
    for (int i = 0; i < RB_MEMBERS; i++) {
        cs[i]->metadata_changed = true;
        send_join(cs[i]);
    }
    if (run_loop(&run, 60)) {
        int st[3] = {0, 0, 0}, old = 0;
        for (int i = 0; i < RB_MEMBERS; i++) {
            st[cs[i]->state]++;
            old += cs[i]->generation == run.gen0;
        }
        fprintf(stderr,
                "kcoord-bench: %s: the rebalance did not complete in 60 s (joining %d, "
                "syncing %d, stable %d; %d in the old generation)\n",
                tag, st[MS_JOIN], st[MS_SYNC], st[MS_STABLE], old);
        goto out;
    }
    ms = (now_s() - t0) * 1e3;
    figure_cpu_ms = cpu_since(t, cpu0);
    leave_all(&run);
out:
    for (int i = 0; i < RB_MEMBERS; i++)
        conn_free(cs[i]);
    event_base_free(run.base);
    return ms;
}

/* ---- offset commits ------------------------------------------------------ */

static const char *oc_topic = "kcoord-bench-offsets";

typedef struct {
    double deadline; /* timed mode */
    int groups_per_conn; /* fill mode: commit each of these groups once */
    const char *prefix;
} commit_mode_t;

static commit_mode_t commit_mode;

static void send_commit(conn_t *c);

static void on_commit(conn_t *c, kc_reader_t *r)
{
    kc_offset_commit_response_t m;
    if (kc_offset_commit_response_decode(r, c->version, &c->arena, &m)) {
        conn_fail(c, "bad OffsetCommitResponse");
        return;
    }
    for (int32_t i = 0; i < m.topics.count; i++)
        for (int32_t j = 0; j < m.topics.items[i].partitions.count; j++) {
            if (m.topics.items[i].partitions.items[j].error_code) {
                conn_fail(c, "offset commit error");
                return;
            }
            c->partitions_ok++;
        }
    c->ok++;
    if (commit_mode.deadline > 0 ? now_s() >= commit_mode.deadline
                                 : (int)c->ok >= commit_mode.groups_per_conn) {
        done_one(c);
        return;
    }
    send_commit(c);
}

static void send_commit(conn_t *c)
{
    if (conn_begin(c, KC_API_OFFSET_COMMIT, 7) < 0)
        return;
    if (commit_mode.deadline <= 0)
        snprintf(c->group, sizeof(c->group), "%s-%d-%" PRIu64, commit_mode.prefix, c->index,
                 c->ok);
    kc_offset_commit_request_t m;
    kc_offset_commit_request_init(&m);
    m.group_id = kc_str(c->group);
    m.generation_id_or_member_epoch = -1;
    m.member_id = kc_str("");
    kc_offset_commit_request_partition_t ps[OC_PARTITIONS];
    for (int i = 0; i < OC_PARTITIONS; i++) {
        ps[i] = (kc_offset_commit_request_partition_t){i, c->next_offset, -1, -1, kc_str("")};
    }
    c->next_offset++;
    kc_offset_commit_request_topic_t tp;
    memset(&tp, 0, sizeof(tp));
    tp.name = kc_str(oc_topic);
    tp.partitions.items = ps;
    tp.partitions.count = OC_PARTITIONS;
    m.topics.items = &tp;
    m.topics.count = 1;
    kc_offset_commit_request_encode(&c->out, c->version, &m);
    conn_send(c, on_commit);
}

/* Creates topic `name` with `partitions` partitions (an existing topic is fine). */
static int create_topic(target_t *t, const char *name, int32_t partitions)
{
    int fd = connect_blocking(t);
    if (fd < 0)
        return -1;
    int16_t v = use_version(t, KC_API_CREATE_TOPICS, 4);
    int rc = -1;
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    kc_arena_t arena;
    kc_arena_init(&arena);
    if (v < 0)
        goto out;
    frame_begin(&req, KC_API_CREATE_TOPICS, v, 7);
    kc_create_topics_request_t m;
    kc_create_topics_request_init(&m);
    kc_create_topics_request_creatable_topic_t ct;
    memset(&ct, 0, sizeof(ct));
    ct.name = kc_str(name);
    ct.num_partitions = partitions;
    ct.replication_factor = 1;
    m.topics.items = &ct;
    m.topics.count = 1;
    kc_create_topics_request_encode(&req, v, &m);
    frame_end(&req);
    if (roundtrip(fd, &req, &resp, 10000))
        goto out;
    kc_reader_t r;
    kc_reader_init(&r, resp.data, resp.len);
    read_response_header(&r, KC_API_CREATE_TOPICS, v);
    kc_create_topics_response_t cr;
    if (kc_create_topics_response_decode(&r, v, &arena, &cr) || cr.topics.count != 1)
        goto out;
    int16_t ec = cr.topics.items[0].error_code;
    rc = (ec == 0 || ec == 36 /* TOPIC_ALREADY_EXISTS */) ? 0 : -1;
out:
    close(fd);
    kc_arena_deinit(&arena);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    return rc;
}

/* Timed mode (deadline) or fill mode (groups_per_conn groups per connection).
 * Returns committed partitions per second, or -1. */
static double run_commits(target_t *t, int conns, commit_mode_t mode, const char *tag)
{
    conn_t *cs[64] = {0};
    run_t run = {.base = bench_base_new(), .target = t};
    double rate = -1;
    commit_mode = mode;
    conns = KC_MIN(conns, 64);
    for (int i = 0; i < conns; i++) {
        if (!(cs[i] = conn_new(&run, i)))
            goto out;
        snprintf(cs[i]->group, sizeof(cs[i]->group), "kcb-oc-%s-%d-%d", tag, (int)getpid(), i);
    }
    double t0 = now_s(), cpu0 = broker_cpu_ms(t);
    if (commit_mode.deadline > 0)
        commit_mode.deadline = t0 + mode.deadline;
    run.active = conns;
    for (int i = 0; i < conns; i++)
        send_commit(cs[i]);
    if (run_loop(&run, mode.deadline > 0 ? mode.deadline + 30 : 600))
        goto out;
    double t1 = now_s();
    figure_cpu_ms = cpu_since(t, cpu0);
    uint64_t n = 0;
    for (int i = 0; i < conns; i++)
        n += cs[i]->partitions_ok;
    figure_ops = n;
    rate = (double)n / (t1 - t0);
out:
    for (int i = 0; i < conns; i++)
        conn_free(cs[i]);
    event_base_free(run.base);
    return rate;
}

/* ---- produce throughput and produce-to-consume latency ------------------- */

#define PR_CONNS 4            /* producer connections, one partition each */
#define PR_BATCH_RECORDS 100  /* records per Produce request (one batch) */
#define PR_IN_FLIGHT 5        /* Java producer's max.in.flight.requests.per.connection */
#define PR_RECORD_BYTES 1024  /* value size; keys are null */
#define LAT_MAX_SAMPLES 5000
#define LAT_MAX_WAIT_MS 500

static const char *pr_topic = "kcoord-bench-produce";
static const char *lat_topic = "kcoord-bench-latency";

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Appends one uncompressed magic-2 record batch to b: n records with null
 * keys, no headers and value_bytes-byte values (at most PR_RECORD_BYTES,
 * at least 8) whose first 8 bytes hold stamp_ns (big endian); producer id,
 * epoch and base sequence as given (-1: idempotence off), attributes attrs
 * (0x10: transactional), base offset 0 as producers send it; the CRC-32C
 * covers attributes to the end.
 */
static void build_batch_of(kc_buf_t *b, int n, int value_bytes, int64_t stamp_ns, int64_t pid,
                           int16_t epoch, int32_t seq, int16_t attrs)
{
    static uint8_t value[PR_RECORD_BYTES];
    size_t start = b->len;
    int64_t ts = wall_ms();
    for (int i = 0; i < 8; i++)
        value[i] = (uint8_t)((uint64_t)stamp_ns >> (56 - 8 * i));
    kc_write_int64(b, 0);  /* baseOffset */
    kc_write_int32(b, 0);  /* batchLength, patched below */
    kc_write_int32(b, -1); /* partitionLeaderEpoch */
    kc_write_int8(b, 2);   /* magic */
    kc_write_uint32(b, 0); /* crc, patched below */
    kc_write_int16(b, attrs);
    kc_write_int32(b, n - 1);
    kc_write_int64(b, ts);
    kc_write_int64(b, ts);
    kc_write_int64(b, pid);
    kc_write_int16(b, epoch);
    kc_write_int32(b, seq);
    kc_write_int32(b, n);
    kc_buf_t rec;
    kc_buf_init(&rec);
    for (int i = 0; i < n; i++) {
        kc_buf_reset(&rec);
        kc_write_int8(&rec, 0);      /* attributes */
        kc_write_varlong(&rec, 0);   /* timestampDelta */
        kc_write_varint(&rec, i);    /* offsetDelta */
        kc_write_varint(&rec, -1);   /* null key */
        kc_write_varint(&rec, value_bytes);
        kc_buf_append(&rec, value, (size_t)value_bytes);
        kc_write_varint(&rec, 0);    /* headers */
        kc_write_varint(b, (int32_t)rec.len);
        kc_buf_append(b, rec.data, rec.len);
    }
    kc_buf_deinit(&rec);
    kc_buf_put_int32_at(b, start + 8, (int32_t)(b->len - start - 12));
    uint32_t crc = kc_crc32c(0, b->data + start + 21, b->len - start - 21);
    kc_buf_put_int32_at(b, start + 17, (int32_t)crc);
}

/* A batch of the produce figures: PR_RECORD_BYTES values, no producer. */
static void build_batch(kc_buf_t *b, int n, int64_t stamp_ns)
{
    build_batch_of(b, n, PR_RECORD_BYTES, stamp_ns, -1, -1, -1, 0);
}

/* Encodes the body of a Produce request (acks=1, version v) of one batch of
 * nrecords to topic/partition into out, after its header. */
static void produce_body(kc_buf_t *out, int16_t v, const char *topic, int32_t partition,
                         int nrecords, int64_t stamp_ns)
{
    kc_buf_t batch;
    kc_buf_init(&batch);
    build_batch(&batch, nrecords, stamp_ns);
    kc_produce_request_t m;
    kc_produce_request_init(&m);
    m.acks = 1;
    m.timeout_ms = 30000;
    kc_produce_request_partition_produce_data_t pd;
    memset(&pd, 0, sizeof(pd));
    pd.index = partition;
    pd.records = (kc_bytes_t){batch.data, (int32_t)batch.len};
    kc_produce_request_topic_produce_data_t td;
    memset(&td, 0, sizeof(td));
    td.name = kc_str(topic);
    td.partition_data.items = &pd;
    td.partition_data.count = 1;
    m.topic_data.items = &td;
    m.topic_data.count = 1;
    kc_produce_request_encode(out, v, &m);
    kc_buf_deinit(&batch);
}

/* Begins a Produce request (acks=1) of one batch to topic/partition. */
static int encode_produce(conn_t *c, const char *topic, int32_t partition, int nrecords,
                          int64_t stamp_ns)
{
    if (conn_begin(c, KC_API_PRODUCE, 8) < 0)
        return -1;
    produce_body(&c->out, c->version, topic, partition, nrecords, stamp_ns);
    return 0;
}

/* The partition's error code of a ProduceResponse (version v), its base
 * offset in *base; -1 when it does not decode. */
static int16_t decode_produce_result(kc_reader_t *r, int16_t v, kc_arena_t *arena, int64_t *base)
{
    kc_produce_response_t m;
    if (kc_produce_response_decode(r, v, arena, &m) || m.responses.count != 1 ||
        m.responses.items[0].partition_responses.count != 1)
        return -1;
    kc_produce_response_partition_produce_response_t *p =
        &m.responses.items[0].partition_responses.items[0];
    *base = p->base_offset;
    return p->error_code;
}

static int16_t produce_result(conn_t *c, kc_reader_t *r, int64_t *base)
{
    return decode_produce_result(r, c->version, &c->arena, base);
}

/*
 * Creates topic `name` with `partitions` partitions and waits, by a real
 * request, until each partition takes a record: Kafka answers CreateTopics
 * before its partitions have a leader (a Produce then fails with
 * UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER for a moment);
 * kcoord takes the record at once. 0 or -1.
 */
static int create_produce_topic(target_t *t, const char *name, int32_t partitions)
{
    if (create_topic(t, name, partitions))
        return -1;
    int fd = connect_blocking(t);
    int16_t v = use_version(t, KC_API_PRODUCE, 8);
    if (fd < 0 || v < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    kc_arena_t arena;
    kc_arena_init(&arena);
    int rc = 0;
    double deadline = now_s() + 60;
    for (int32_t p = 0; p < partitions && rc == 0;) {
        frame_begin(&req, KC_API_PRODUCE, v, p + 1);
        produce_body(&req, v, name, p, 1, 0);
        frame_end(&req);
        int64_t base;
        int16_t ec = -1;
        if (roundtrip(fd, &req, &resp, 30000) == 0) {
            kc_reader_t r;
            kc_reader_init(&r, resp.data, resp.len);
            read_response_header(&r, KC_API_PRODUCE, v);
            kc_arena_reset(&arena);
            ec = decode_produce_result(&r, v, &arena, &base);
        }
        if (ec == 0) {
            p++;
        } else if ((ec == 3 || ec == 5 || ec == 6) && now_s() < deadline) {
            usleep(10000); /* UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER */
        } else {
            fprintf(stderr, "kcoord-bench: %s-%d takes no record (error %d)\n", name, (int)p,
                    ec);
            rc = -1;
        }
    }
    close(fd);
    kc_arena_deinit(&arena);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    return rc;
}

/* The topics of the produce figures, ready to take records. 0 or -1. */
static int create_produce_topics(target_t *t)
{
    return create_produce_topic(t, pr_topic, PR_CONNS) || create_produce_topic(t, lat_topic, 1)
               ? -1
               : 0;
}

static double pr_deadline;

static void on_produce_load(conn_t *c, kc_reader_t *r);

/* Resends the request built once in c->out, with the next correlation id. */
static void resend(conn_t *c, resp_fn fn)
{
    c->corr++;
    kc_buf_put_int32_at(&c->out, 8, c->corr);
    c->on_resp = fn;
    conn_write(c);
}

static void on_produce_load(conn_t *c, kc_reader_t *r)
{
    int64_t base;
    int16_t ec = produce_result(c, r, &base);
    if (ec) {
        fprintf(stderr, "kcoord-bench: produce error %d\n", ec);
        conn_fail(c, "produce failed");
        return;
    }
    c->ok++;
    if (now_s() < pr_deadline)
        resend(c, on_produce_load);
    else if (c->acked == c->corr)
        done_one(c); /* nothing left in flight */
}

/* acks=1 Produce of PR_BATCH_RECORDS x PR_RECORD_BYTES batches on PR_CONNS
 * connections, up to PR_IN_FLIGHT requests written ahead on each (kcoord,
 * like Kafka, reads the next one only after answering the current one), for
 * `duration` seconds; records/s in *recs, MB/s returned. */
static double bench_produce(target_t *t, double duration, double *recs)
{
    conn_t *cs[PR_CONNS] = {0};
    run_t run = {.base = bench_base_new(), .target = t};
    double mbps = -1;
    *recs = -1;
    for (int i = 0; i < PR_CONNS; i++) {
        if (!(cs[i] = conn_new(&run, i)))
            goto out;
        if (encode_produce(cs[i], pr_topic, i, PR_BATCH_RECORDS, 0))
            goto out;
        frame_end(&cs[i]->out);
        cs[i]->pipelined = true;
        cs[i]->corr--;
        cs[i]->acked = cs[i]->corr;
    }
    double t0 = now_s();
    pr_deadline = t0 + duration;
    run.active = PR_CONNS;
    for (int i = 0; i < PR_CONNS; i++)
        for (int k = 0; k < PR_IN_FLIGHT; k++)
            resend(cs[i], on_produce_load);
    if (run_loop(&run, duration + 30))
        goto out;
    double secs = now_s() - t0;
    uint64_t n = 0;
    for (int i = 0; i < PR_CONNS; i++)
        n += cs[i]->ok * PR_BATCH_RECORDS;
    *recs = (double)n / secs;
    mbps = (double)n * PR_RECORD_BYTES / 1e6 / secs;
out:
    for (int i = 0; i < PR_CONNS; i++)
        conn_free(cs[i]);
    event_base_free(run.base);
    return mbps;
}

/*
 * Latency: a fetcher long-polls (max_wait_ms 500, min_bytes 1) at the next
 * offset while a producer sends one timestamped record (acks=1); the sample
 * is the time from just before the Produce is written to the Fetch answer
 * holding the record. One record in flight, so samples do not queue.
 */
typedef struct {
    conn_t *producer, *fetcher;
    int64_t next_offset; /* -1 until the warm-up record is acknowledged */
    int64_t sent_ns;
    bool got, acked;
    double deadline;
    double samples[LAT_MAX_SAMPLES];
    int nsamples;
} lat_t;

static lat_t lat;

static void lat_fetch(void);
static void lat_iteration(void);

static void on_lat_produce(conn_t *c, kc_reader_t *r)
{
    int64_t base;
    int16_t ec = produce_result(c, r, &base);
    if (ec) {
        fprintf(stderr, "kcoord-bench: produce error %d\n", ec);
        conn_fail(c, "produce failed");
        return;
    }
    if (lat.next_offset < 0) { /* warm-up record: start measuring after it */
        lat.next_offset = base + 1;
        lat_iteration();
        return;
    }
    lat.acked = true;
    if (lat.got)
        lat_iteration();
}

/* Finds the first data record at or after from in a fetched record set
 * (with last, the last one); returns its stamp (from the value) or -1, its
 * offset in *offset. *end (when not NULL) becomes the offset after the
 * last whole batch read (a control batch included), or stays as it was
 * when there is none. */
static int64_t find_stamp_from(kc_bytes_t recs, int64_t from, bool last, int64_t *offset,
                               int64_t *end)
{
    kc_reader_t r;
    kc_reader_init(&r, recs.ptr, recs.len > 0 ? (size_t)recs.len : 0);
    int64_t found = -1;
    while (kc_reader_left(&r) >= 61) {
        int64_t base = kc_read_int64(&r);
        int32_t blen = kc_read_int32(&r);
        if (blen < 49 || (size_t)blen > kc_reader_left(&r))
            break; /* partial batch at the end */
        const uint8_t *body = kc_read_raw(&r, (size_t)blen);
        kc_reader_t b;
        kc_reader_init(&b, body, (size_t)blen);
        kc_read_raw(&b, 4 + 1 + 4);        /* leader epoch, magic, crc */
        int16_t attrs = kc_read_int16(&b);
        int32_t last_delta = kc_read_int32(&b);
        kc_read_raw(&b, 8 + 8 + 8 + 2 + 4); /* to the record count */
        int32_t count = kc_read_int32(&b);
        if (b.err || (attrs & 7) != 0)
            break;
        if (end)
            *end = base + last_delta + 1;
        if ((found >= 0 && !last) || (attrs & 0x20))
            continue; /* a control batch holds no stamps */
        for (int32_t i = 0; i < count; i++) {
            int32_t len = kc_read_varint(&b);
            if (b.err || len < 0 || (size_t)len > kc_reader_left(&b))
                break;
            kc_reader_t rec;
            kc_reader_init(&rec, kc_read_raw(&b, (size_t)len), (size_t)len);
            kc_read_int8(&rec);
            kc_read_varlong(&rec);
            int64_t off = base + kc_read_varint(&rec);
            int32_t klen = kc_read_varint(&rec);
            if (klen > 0)
                kc_read_raw(&rec, (size_t)klen);
            int32_t vlen = kc_read_varint(&rec);
            if (rec.err || vlen < 8)
                continue;
            int64_t stamp = kc_read_int64(&rec);
            if (!rec.err && off >= from) {
                *offset = off;
                found = stamp;
                if (!last)
                    break;
            }
        }
        if (found >= 0 && !last && !end)
            break;
    }
    return found;
}

/* The first record at or after lat.next_offset: find_stamp_from. */
static int64_t find_stamp(kc_bytes_t recs, int64_t *offset)
{
    return find_stamp_from(recs, lat.next_offset, false, offset, NULL);
}

static void on_lat_fetch(conn_t *c, kc_reader_t *r)
{
    int64_t now = now_ns();
    kc_fetch_response_t m;
    if (kc_fetch_response_decode(r, c->version, &c->arena, &m) || m.error_code ||
        m.responses.count != 1 || m.responses.items[0].partitions.count != 1) {
        conn_fail(c, "bad FetchResponse");
        return;
    }
    kc_fetch_response_partition_data_t *p = &m.responses.items[0].partitions.items[0];
    if (p->error_code) {
        fprintf(stderr, "kcoord-bench: fetch error %d\n", p->error_code);
        conn_fail(c, "fetch failed");
        return;
    }
    int64_t off = -1;
    int64_t stamp = find_stamp(p->records, &off);
    if (stamp < 0) { /* the long poll ended without the record: poll again */
        lat_fetch();
        return;
    }
    if (stamp == lat.sent_ns && lat.nsamples < LAT_MAX_SAMPLES)
        lat.samples[lat.nsamples++] = (double)(now - stamp) / 1e6;
    lat.next_offset = off + 1;
    lat.got = true;
    if (lat.acked)
        lat_iteration();
}

/* Encodes a sessionless Fetch (version v) of partition 0 of topic from
 * offset, long-polling (max_wait_ms LAT_MAX_WAIT_MS, min_bytes 1), at
 * isolation level isolation (1: READ_COMMITTED), into out after its header. */
static void fetch_body(kc_buf_t *out, int16_t v, const char *topic, int64_t offset,
                       int8_t isolation)
{
    kc_fetch_request_t m;
    kc_fetch_request_init(&m);
    m.replica_id = -1;
    m.max_wait_ms = LAT_MAX_WAIT_MS;
    m.min_bytes = 1;
    m.max_bytes = 1 << 20;
    m.isolation_level = isolation;
    kc_fetch_request_partition_t fp;
    memset(&fp, 0, sizeof(fp));
    fp.partition = 0;
    fp.current_leader_epoch = -1;
    fp.fetch_offset = offset;
    fp.last_fetched_epoch = -1;
    fp.log_start_offset = -1;
    fp.partition_max_bytes = 1 << 20;
    kc_fetch_request_topic_t ft;
    memset(&ft, 0, sizeof(ft));
    ft.topic = kc_str(topic);
    ft.partitions.items = &fp;
    ft.partitions.count = 1;
    m.topics.items = &ft;
    m.topics.count = 1;
    kc_fetch_request_encode(out, v, &m);
}

static void lat_fetch(void)
{
    conn_t *c = lat.fetcher;
    if (conn_begin(c, KC_API_FETCH, 11) < 0)
        return;
    fetch_body(&c->out, c->version, lat_topic, lat.next_offset, 0);
    conn_send(c, on_lat_fetch);
}

static void lat_iteration(void)
{
    if (lat.nsamples >= LAT_MAX_SAMPLES || now_s() >= lat.deadline) {
        lat.producer->run->active = 0;
        event_base_loopbreak(lat.producer->run->base);
        return;
    }
    lat.got = lat.acked = false;
    lat_fetch(); /* written first, so the fetch is usually parked when the record lands */
    lat.sent_ns = now_ns();
    if (encode_produce(lat.producer, lat_topic, 0, 1, lat.sent_ns) == 0)
        conn_send(lat.producer, on_lat_produce);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs the latency loop for `duration` seconds; p50 and p99 in ms, or -1. */
static int bench_latency(target_t *t, double duration, double *p50, double *p99)
{
    run_t run = {.base = bench_base_new(), .target = t};
    int rc = -1;
    *p50 = *p99 = -1;
    memset(&lat, 0, sizeof(lat));
    lat.next_offset = -1;
    lat.producer = conn_new(&run, 0);
    lat.fetcher = conn_new(&run, 1);
    if (!lat.producer || !lat.fetcher)
        goto out;
    lat.deadline = now_s() + duration;
    run.active = 1;
    if (encode_produce(lat.producer, lat_topic, 0, 1, 0))
        goto out;
    conn_send(lat.producer, on_lat_produce);
    if (run_loop(&run, duration + 30) || lat.nsamples == 0)
        goto out;
    qsort(lat.samples, (size_t)lat.nsamples, sizeof(double), cmp_double);
    *p50 = lat.samples[(lat.nsamples - 1) / 2];
    *p99 = lat.samples[(int)((lat.nsamples - 1) * 0.99)];
    rc = 0;
out:
    conn_free(lat.producer);
    conn_free(lat.fetcher);
    event_base_free(run.base);
    return rc;
}

/* ---- transactions ---------------------------------------------------------- */

/*
 * A transactional producer on one blocking connection, as Kafka's producer
 * runs a transaction: InitProducerId once, then per transaction Produce
 * (with AddPartitionsToTxn first, and AddOffsetsToTxn before the offsets,
 * unless the broker offers transaction version 2: Produce v12, EndTxn v5),
 * TxnOffsetCommit of a group's offsets, EndTxn. A step answered
 * CONCURRENT_TRANSACTIONS (the previous transaction still completing) or
 * NOT_ENOUGH_REPLICAS (Kafka's word for it before v12) is sent again after
 * TX_RETRY_US, and counted.
 */
#define TX_RECORDS 10        /* records per transaction, half to each partition */
#define TX_RECORD_BYTES 100  /* their value size */
#define TX_RETRY_US 1000
#define ERR_NOT_ENOUGH_REPLICAS 19
#define ERR_CONCURRENT_TRANSACTIONS 51

static const char *tx_topic = "kcoord-bench-txn";
static const char *txl_topic = "kcoord-bench-txn-latency";

typedef struct {
    const target_t *t;
    int fd;
    int32_t corr;
    kc_buf_t req, resp;
    kc_arena_t arena;
    kc_reader_t r; /* the last answer */
    char tid[64];
    int64_t pid;
    int16_t epoch;
    int32_t seq[2];
    bool tv2;
    uint64_t retries;
    double step_s[4]; /* time in AddPartitionsToTxn, Produce, the offsets, EndTxn */
} txp_t;

/* Sends the request framed in p->req and reads its answer into *r (valid
 * until the next call); 0 or -1. */
static int txp_roundtrip(txp_t *p, int api, int16_t v, kc_reader_t *r)
{
    frame_end(&p->req);
    if (roundtrip(p->fd, &p->req, &p->resp, 30000))
        return -1;
    kc_reader_init(r, p->resp.data, p->resp.len);
    read_response_header(r, api, v);
    kc_arena_reset(&p->arena);
    return 0;
}

/* One call of message msg (its request m) at version v; decodes the
 * answer into *out; evaluates to 0 or -1. */
#define TXP_CALL(p, API, msg, v, m, out)                                                          \
    (frame_begin(&(p)->req, API, v, ++(p)->corr),                                                  \
     kc_##msg##_request_encode(&(p)->req, v, m) ||                                                 \
             txp_roundtrip(p, API, v, &(p)->r)                                                     \
         ? -1                                                                                      \
         : kc_##msg##_response_decode(&(p)->r, v, &(p)->arena, out) ? -1 : 0)

/* Whether err asks for the step again (and counts it). */
static bool txp_retry(txp_t *p, int16_t err)
{
    if (err != ERR_CONCURRENT_TRANSACTIONS && err != ERR_NOT_ENOUGH_REPLICAS &&
        err != ERR_COORDINATOR_LOAD_IN_PROGRESS && err != ERR_COORDINATOR_NOT_AVAILABLE &&
        err != ERR_NOT_COORDINATOR)
        return false;
    p->retries++;
    usleep(TX_RETRY_US);
    return true;
}

static void txp_close(txp_t *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    kc_buf_deinit(&p->req);
    kc_buf_deinit(&p->resp);
    kc_arena_deinit(&p->arena);
}

/* Connects, waits (up to 120 s: Kafka creates its transaction log on the
 * first lookup) for the transaction coordinator of tid and initialises the
 * producer. 0 or -1 (closed). */
static int txp_open(txp_t *p, const target_t *t, const char *tid)
{
    memset(p, 0, sizeof(*p));
    p->t = t;
    kc_buf_init(&p->req);
    kc_buf_init(&p->resp);
    kc_arena_init(&p->arena);
    snprintf(p->tid, sizeof(p->tid), "%s", tid);
    p->fd = connect_blocking(t);
    int16_t vf = use_version(t, KC_API_FIND_COORDINATOR, 4);
    int16_t vi = use_version(t, KC_API_INIT_PRODUCER_ID, 4);
    int16_t vp = use_version(t, KC_API_PRODUCE, 12), ve = use_version(t, KC_API_END_TXN, 5);
    if (p->fd < 0 || vf < 1 || vi < 0 || vp < 3 || ve < 0 ||
        use_version(t, KC_API_TXN_OFFSET_COMMIT, 5) < 0)
        goto fail;
    p->tv2 = vp >= 12 && ve >= 5;
    double deadline = now_s() + 120;
    for (;;) {
        kc_find_coordinator_request_t f;
        kc_find_coordinator_request_init(&f);
        f.key_type = 1;
        kc_str_t key = kc_str(p->tid);
        if (vf >= 4)
            f.coordinator_keys = (kc_str_array_t){&key, 1};
        else
            f.key = key;
        kc_find_coordinator_response_t fr;
        if (TXP_CALL(p, KC_API_FIND_COORDINATOR, find_coordinator, vf, &f, &fr))
            goto fail;
        int16_t err = vf >= 4 ? (fr.coordinators.count == 1 ? fr.coordinators.items[0].error_code
                                                             : -1)
                              : fr.error_code;
        if (err == 0)
            break;
        if (getenv("KC_BENCH_DEBUG"))
            fprintf(stderr, "txn coordinator of %s: error %d\n", p->tid, err);
        if (now_s() > deadline)
            goto fail;
        usleep(10000);
    }
    for (;;) {
        kc_init_producer_id_request_t m;
        kc_init_producer_id_request_init(&m);
        m.transactional_id = kc_str(p->tid);
        m.transaction_timeout_ms = 60000;
        kc_init_producer_id_response_t ir;
        if (TXP_CALL(p, KC_API_INIT_PRODUCER_ID, init_producer_id, vi, &m, &ir))
            goto fail;
        if (ir.error_code == 0) {
            p->pid = ir.producer_id;
            p->epoch = ir.producer_epoch;
            return 0;
        }
        if (now_s() > deadline || !txp_retry(p, ir.error_code)) {
            fprintf(stderr, "kcoord-bench: InitProducerId of %s: error %d\n", tid, ir.error_code);
            goto fail;
        }
    }
fail:
    fprintf(stderr, "kcoord-bench: no transactional producer %s (%s)\n", tid,
            p->fd < 0 ? "no connection" : "no coordinator or producer id");
    txp_close(p);
    return -1;
}

/* AddPartitionsToTxn v3 of topic's partitions [0, n): 0 or -1. */
static int txp_add_partitions(txp_t *p, const char *topic, int32_t n)
{
    int16_t v = use_version(p->t, KC_API_ADD_PARTITIONS_TO_TXN, 3);
    int32_t parts[2] = {0, 1};
    for (;;) {
        kc_add_partitions_to_txn_request_t m;
        kc_add_partitions_to_txn_request_init(&m);
        m.v3_and_below_transactional_id = kc_str(p->tid);
        m.v3_and_below_producer_id = p->pid;
        m.v3_and_below_producer_epoch = p->epoch;
        kc_add_partitions_to_txn_request_topic_t tp = {kc_str(topic), {parts, n}};
        m.v3_and_below_topics.items = &tp;
        m.v3_and_below_topics.count = 1;
        kc_add_partitions_to_txn_response_t r;
        if (v < 0 || TXP_CALL(p, KC_API_ADD_PARTITIONS_TO_TXN, add_partitions_to_txn, v, &m, &r))
            return -1;
        int16_t err = 0;
        for (int32_t i = 0; i < r.results_by_topic_v3_and_below.count; i++) {
            const kc_add_partitions_to_txn_response_topic_result_v3_and_below_t *rt =
                &r.results_by_topic_v3_and_below.items[i];
            for (int32_t j = 0; j < rt->results_by_partition.count && !err; j++)
                err = rt->results_by_partition.items[j].partition_error_code;
        }
        if (!err)
            return 0;
        if (!txp_retry(p, err))
            return -1;
    }
}

/* A Produce (acks=all) of one batch of per_partition records to each of
 * topic's partitions [0, n), values stamped with stamp_ns. 0 or -1. */
static int txp_produce(txp_t *p, const char *topic, int32_t n, int per_partition, int64_t stamp_ns)
{
    int16_t v = use_version(p->t, KC_API_PRODUCE, 12);
    kc_buf_t batch[2];
    for (;;) {
        kc_produce_request_t m;
        kc_produce_request_init(&m);
        m.transactional_id = kc_str(p->tid);
        m.acks = -1;
        m.timeout_ms = 30000;
        kc_produce_request_partition_produce_data_t pd[2];
        memset(pd, 0, sizeof(pd));
        for (int32_t i = 0; i < n; i++) {
            kc_buf_init(&batch[i]);
            build_batch_of(&batch[i], per_partition, TX_RECORD_BYTES, stamp_ns, p->pid, p->epoch,
                           p->seq[i], 0x10);
            pd[i].index = i;
            pd[i].records = (kc_bytes_t){batch[i].data, (int32_t)batch[i].len};
        }
        kc_produce_request_topic_produce_data_t td;
        memset(&td, 0, sizeof(td));
        td.name = kc_str(topic);
        td.partition_data.items = pd;
        td.partition_data.count = n;
        m.topic_data.items = &td;
        m.topic_data.count = 1;
        kc_produce_response_t r;
        int rc = TXP_CALL(p, KC_API_PRODUCE, produce, v, &m, &r);
        for (int32_t i = 0; i < n; i++)
            kc_buf_deinit(&batch[i]);
        if (rc || r.responses.count != 1)
            return -1;
        int16_t err = 0;
        for (int32_t i = 0; i < r.responses.items[0].partition_responses.count; i++)
            if (!err)
                err = r.responses.items[0].partition_responses.items[i].error_code;
        if (!err) {
            for (int32_t i = 0; i < n; i++)
                p->seq[i] += per_partition;
            return 0;
        }
        if (!txp_retry(p, err)) {
            fprintf(stderr, "kcoord-bench: transactional produce error %d\n", err);
            return -1;
        }
    }
}

/* AddOffsetsToTxn (unless TV2) and TxnOffsetCommit of offsets for group
 * on topic's partitions [0, n). 0 or -1. */
static int txp_send_offsets(txp_t *p, const char *group, const char *topic, int32_t n,
                            int64_t offset)
{
    int16_t va = use_version(p->t, KC_API_ADD_OFFSETS_TO_TXN, 4);
    int16_t vc = use_version(p->t, KC_API_TXN_OFFSET_COMMIT, 5);
    while (!p->tv2) {
        kc_add_offsets_to_txn_request_t m = {kc_str(p->tid), p->pid, p->epoch, kc_str(group)};
        kc_add_offsets_to_txn_response_t r;
        if (va < 0 || TXP_CALL(p, KC_API_ADD_OFFSETS_TO_TXN, add_offsets_to_txn, va, &m, &r))
            return -1;
        if (!r.error_code)
            break;
        if (!txp_retry(p, r.error_code))
            return -1;
    }
    for (;;) {
        kc_txn_offset_commit_request_t m;
        kc_txn_offset_commit_request_init(&m);
        m.transactional_id = kc_str(p->tid);
        m.group_id = kc_str(group);
        m.producer_id = p->pid;
        m.producer_epoch = p->epoch;
        kc_txn_offset_commit_request_partition_t parts[2];
        for (int32_t i = 0; i < n; i++)
            parts[i] = (kc_txn_offset_commit_request_partition_t){i, offset, -1, kc_str("")};
        kc_txn_offset_commit_request_topic_t tp;
        memset(&tp, 0, sizeof(tp));
        tp.name = kc_str(topic);
        tp.partitions.items = parts;
        tp.partitions.count = n;
        m.topics.items = &tp;
        m.topics.count = 1;
        kc_txn_offset_commit_response_t r;
        if (TXP_CALL(p, KC_API_TXN_OFFSET_COMMIT, txn_offset_commit, vc, &m, &r))
            return -1;
        int16_t err = 0;
        for (int32_t i = 0; i < r.topics.count; i++)
            for (int32_t j = 0; j < r.topics.items[i].partitions.count; j++)
                if (!err)
                    err = r.topics.items[i].partitions.items[j].error_code;
        if (!err)
            return 0;
        if (!txp_retry(p, err)) {
            fprintf(stderr, "kcoord-bench: TxnOffsetCommit error %d\n", err);
            return -1;
        }
    }
}

/* EndTxn commit; under TV2 the producer continues with the producer id and
 * epoch of the answer (a new id once the epoch is exhausted), its
 * sequences from 0. 0 or -1. */
static int txp_commit(txp_t *p)
{
    int16_t v = use_version(p->t, KC_API_END_TXN, 5);
    for (;;) {
        kc_end_txn_request_t m = {kc_str(p->tid), p->pid, p->epoch, true};
        kc_end_txn_response_t r;
        if (TXP_CALL(p, KC_API_END_TXN, end_txn, v, &m, &r))
            return -1;
        if (!r.error_code) {
            if (v >= 5 && r.producer_id >= 0 && r.producer_epoch >= 0) {
                p->pid = r.producer_id;
                p->epoch = r.producer_epoch;
                p->seq[0] = p->seq[1] = 0;
            }
            return 0;
        }
        if (!txp_retry(p, r.error_code)) {
            fprintf(stderr, "kcoord-bench: EndTxn error %d\n", r.error_code);
            return -1;
        }
    }
}

/* One transaction of the throughput figure (the k-th): 0 or -1. */
static int txp_transaction(txp_t *p, const char *group, int64_t k)
{
    double t0 = now_s();
    if (!p->tv2 && txp_add_partitions(p, tx_topic, 2))
        return -1;
    double t1 = now_s();
    if (txp_produce(p, tx_topic, 2, TX_RECORDS / 2, now_ns()))
        return -1;
    double t2 = now_s();
    if (txp_send_offsets(p, group, tx_topic, 2, k))
        return -1;
    double t3 = now_s();
    if (txp_commit(p))
        return -1;
    double t4 = now_s();
    p->step_s[0] += t1 - t0;
    p->step_s[1] += t2 - t1;
    p->step_s[2] += t3 - t2;
    p->step_s[3] += t4 - t3;
    return 0;
}

/* Transactions/s of one producer for `duration` seconds (after one
 * untimed transaction); the steps sent again in *retries, the ms per
 * transaction in each step (AddPartitionsToTxn, Produce, the offsets,
 * EndTxn) in step_ms. -1 on failure. */
static double bench_transactions(target_t *t, double duration, const char *tag,
                                 double *retries, double step_ms[4])
{
    char tid[64], group[64];
    snprintf(tid, sizeof(tid), "kcoord-bench-txn-%s-%d", tag, (int)getpid());
    snprintf(group, sizeof(group), "kcoord-bench-txn-group-%s-%d", tag, (int)getpid());
    txp_t p;
    *retries = -1;
    if (txp_open(&p, t, tid))
        return -1;
    double tps = -1;
    if (txp_transaction(&p, group, 0))
        goto out;
    p.retries = 0;
    memset(p.step_s, 0, sizeof(p.step_s));
    double t0 = now_s(), end = t0 + duration;
    int64_t n = 0;
    while (now_s() < end) {
        if (txp_transaction(&p, group, n + 1))
            goto out;
        n++;
    }
    tps = (double)n / (now_s() - t0);
    *retries = (double)p.retries;
    for (int i = 0; i < 4; i++)
        step_ms[i] = n > 0 ? p.step_s[i] * 1e3 / (double)n : -1;
out:
    txp_close(&p);
    return tps;
}

/*
 * READ_COMMITTED latency: a transactional producer commits one record per
 * transaction (Produce, then EndTxn; AddPartitionsToTxn first without
 * TV2) while a consumer thread long-polls Fetch (READ_COMMITTED,
 * fetch_body) at the next offset. The sample is the time
 * from just before the record's Produce is written to the Fetch answer that
 * holds it: the producer's two round trips, the broker's markers and last
 * stable offset, and the parked fetch's answer. One transaction in flight:
 * the next starts once the record was received.
 */
typedef struct {
    const target_t *t;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int64_t received; /* stamp of the last record received, under mu */
    bool stop, failed;
    double samples[LAT_MAX_SAMPLES];
    int nsamples;
} txl_t;

static void *txl_consumer(void *arg)
{
    txl_t *l = arg;
    int fd = connect_blocking(l->t);
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    kc_arena_t arena;
    kc_arena_init(&arena);
    int64_t next = 0;
    int32_t corr = 0;
    int16_t v = use_version(l->t, KC_API_FETCH, 11);
    bool failed = fd < 0 || v < 4;
    for (;;) {
        pthread_mutex_lock(&l->mu);
        bool stop = l->stop;
        pthread_mutex_unlock(&l->mu);
        if (stop || failed)
            break;
        frame_begin(&req, KC_API_FETCH, v, ++corr);
        fetch_body(&req, v, txl_topic, next, 1);
        frame_end(&req);
        if (roundtrip(fd, &req, &resp, 30000)) {
            failed = true;
            break;
        }
        int64_t now = now_ns();
        kc_reader_t r;
        kc_reader_init(&r, resp.data, resp.len);
        read_response_header(&r, KC_API_FETCH, v);
        kc_arena_reset(&arena);
        kc_fetch_response_t fr;
        if (kc_fetch_response_decode(&r, v, &arena, &fr) || fr.error_code ||
            fr.responses.count != 1 || fr.responses.items[0].partitions.count != 1 ||
            fr.responses.items[0].partitions.items[0].error_code) {
            fprintf(stderr, "kcoord-bench: READ_COMMITTED fetch failed\n");
            failed = true;
            break;
        }
        int64_t off = -1;
        int64_t stamp =
            find_stamp_from(fr.responses.items[0].partitions.items[0].records, next, true, &off,
                            &next);
        if (stamp < 0)
            continue;
        pthread_mutex_lock(&l->mu);
        if (l->nsamples < LAT_MAX_SAMPLES)
            l->samples[l->nsamples++] = (double)(now - stamp) / 1e6;
        l->received = stamp;
        pthread_cond_signal(&l->cond);
        pthread_mutex_unlock(&l->mu);
    }
    pthread_mutex_lock(&l->mu);
    l->failed = failed;
    pthread_cond_signal(&l->cond);
    pthread_mutex_unlock(&l->mu);
    if (fd >= 0)
        close(fd);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    kc_arena_deinit(&arena);
    return NULL;
}

/* Commits one record stamped stamp_ns (> 0) and waits up to 30 s for the
 * consumer to receive it. 0 or -1. */
static int txl_one(txl_t *l, txp_t *p, int64_t stamp_ns)
{
    if ((!p->tv2 && txp_add_partitions(p, txl_topic, 1)) ||
        txp_produce(p, txl_topic, 1, 1, stamp_ns) || txp_commit(p))
        return -1;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    int rc = 0;
    pthread_mutex_lock(&l->mu);
    while (l->received != stamp_ns && !l->failed && rc == 0)
        rc = pthread_cond_timedwait(&l->cond, &l->mu, &until);
    int out = l->received == stamp_ns ? 0 : -1;
    pthread_mutex_unlock(&l->mu);
    return out;
}

/* Runs the READ_COMMITTED latency loop for `duration` seconds; p50 and p99
 * in ms, or -1. */
static int bench_txn_latency(target_t *t, double duration, const char *tag, double *p50,
                             double *p99)
{
    static txl_t l;
    char tid[64];
    snprintf(tid, sizeof(tid), "kcoord-bench-txl-%s-%d", tag, (int)getpid());
    *p50 = *p99 = -1;
    memset(&l, 0, sizeof(l));
    l.t = t;
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cond, NULL);
    txp_t p;
    int rc = -1;
    if (txp_open(&p, t, tid))
        goto out;
    pthread_t th;
    if (pthread_create(&th, NULL, txl_consumer, &l)) {
        txp_close(&p);
        goto out;
    }
    /* A warm-up transaction (stamp 1), its sample dropped. */
    bool ok = txl_one(&l, &p, 1) == 0;
    if (!ok)
        fprintf(stderr, "kcoord-bench: the first committed record was not received\n");
    pthread_mutex_lock(&l.mu);
    l.nsamples = 0;
    pthread_mutex_unlock(&l.mu);
    double end = now_s() + duration;
    while (ok && now_s() < end && l.nsamples < LAT_MAX_SAMPLES)
        ok = txl_one(&l, &p, now_ns()) == 0;
    pthread_mutex_lock(&l.mu);
    l.stop = true;
    pthread_mutex_unlock(&l.mu);
    /* The consumer's last long poll ends within its max wait. */
    pthread_join(th, NULL);
    txp_close(&p);
    if (!ok || l.nsamples == 0)
        goto out;
    qsort(l.samples, (size_t)l.nsamples, sizeof(double), cmp_double);
    *p50 = l.samples[(l.nsamples - 1) / 2];
    *p99 = l.samples[(int)((l.nsamples - 1) * 0.99)];
    rc = 0;
out:
    pthread_mutex_destroy(&l.mu);
    pthread_cond_destroy(&l.cond);
    return rc;
}

/* ---- coordinator timer lateness ------------------------------------------ */

/*
 * How late the coordinator's rebalance timer fires: member A forms a classic
 * group with a rebalance timeout of TL_REBALANCE_MS, then member B joins and
 * A never rejoins, so B's JoinGroup is answered when the timer expires and A
 * is removed. Lateness = B's join round trip - TL_REBALANCE_MS (one loopback
 * round trip included, and down to -1 ms: the deadline is counted in whole
 * milliseconds), over TL_SAMPLES groups of their own.
 */
#define TL_SAMPLES 40
#define TL_REBALANCE_MS 100

/* One blocking JoinGroup v5 (session timeout 10 s: A must outlive the
 * rebalance timeout); 0 with *m decoded (pointing into resp), or -1. */
static int tl_join(int fd, const char *group, const char *member_id, kc_arena_t *arena,
                   kc_buf_t *resp, kc_join_group_response_t *m)
{
    kc_buf_t req;
    kc_buf_init(&req);
    int rc = -1;
    frame_begin(&req, KC_API_JOIN_GROUP, 5, 1);
    kc_join_group_request_t j;
    kc_join_group_request_init(&j);
    j.group_id = kc_str(group);
    j.session_timeout_ms = 10000;
    j.rebalance_timeout_ms = TL_REBALANCE_MS;
    j.member_id = kc_str(member_id);
    j.protocol_type = kc_str("consumer");
    kc_join_group_request_protocol_t p = {kc_str("range"),
                                          {subscription, (int32_t)sizeof(subscription)}};
    j.protocols.items = &p;
    j.protocols.count = 1;
    kc_join_group_request_encode(&req, 5, &j);
    frame_end(&req);
    if (roundtrip(fd, &req, resp, 10000) == 0) {
        kc_reader_t r;
        kc_reader_init(&r, resp->data, resp->len);
        if (read_response_header(&r, KC_API_JOIN_GROUP, 5) == 1 &&
            kc_join_group_response_decode(&r, 5, arena, m) == 0)
            rc = 0;
    }
    kc_buf_deinit(&req);
    return rc;
}

/* A new dynamic member's two joins (MEMBER_ID_REQUIRED, then with the id);
 * the second one timed in *ms. 0 when it succeeded. */
static int tl_member(int fd, const char *group, kc_arena_t *arena, kc_buf_t *resp,
                     kc_join_group_response_t *m, char *id, size_t id_size, double *ms)
{
    if (tl_join(fd, group, "", arena, resp, m) || m->error_code != ERR_MEMBER_ID_REQUIRED ||
        m->member_id.len <= 0 || (size_t)m->member_id.len >= id_size)
        return -1;
    memcpy(id, m->member_id.ptr, (size_t)m->member_id.len);
    id[m->member_id.len] = '\0';
    double t0 = now_s();
    if (tl_join(fd, group, id, arena, resp, m) || m->error_code)
        return -1;
    *ms = (now_s() - t0) * 1e3;
    return 0;
}

/* A alone in a new group: joined and synced. 0 or -1. */
static int tl_form(int fd, const char *group, kc_arena_t *arena, kc_buf_t *resp)
{
    kc_join_group_response_t m;
    char id[256];
    double ms;
    if (tl_member(fd, group, arena, resp, &m, id, sizeof(id), &ms))
        return -1;
    kc_buf_t req;
    kc_buf_init(&req);
    frame_begin(&req, KC_API_SYNC_GROUP, 3, 2);
    kc_sync_group_request_t sg;
    kc_sync_group_request_init(&sg);
    sg.group_id = kc_str(group);
    sg.generation_id = m.generation_id;
    sg.member_id = kc_str(id);
    static const uint8_t empty_assignment[] = {0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    kc_sync_group_request_assignment_t as = {kc_str(id),
                                             {empty_assignment, (int32_t)sizeof(empty_assignment)}};
    sg.assignments.items = &as;
    sg.assignments.count = 1;
    kc_sync_group_request_encode(&req, 3, &sg);
    frame_end(&req);
    int rc = -1;
    if (roundtrip(fd, &req, resp, 10000) == 0) {
        kc_reader_t r;
        kc_reader_init(&r, resp->data, resp->len);
        kc_sync_group_response_t sr;
        if (read_response_header(&r, KC_API_SYNC_GROUP, 3) == 2 &&
            kc_sync_group_response_decode(&r, 3, arena, &sr) == 0 && sr.error_code == 0)
            rc = 0;
    }
    kc_buf_deinit(&req);
    return rc;
}

/* Lateness p50, p99 and max in ms; 0, or -1 when a sample failed. */
static int bench_timer_lateness(target_t *t, const char *tag, double *p50, double *p99,
                                double *max)
{
    double samples[TL_SAMPLES];
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_buf_t resp;
    kc_buf_init(&resp);
    int rc = 0;
    *p50 = *p99 = *max = -1;
    for (int i = 0; i < TL_SAMPLES && rc == 0; i++) {
        char group[64], id[256];
        snprintf(group, sizeof(group), "kcoord-bench-timer-%s-%d", tag, i);
        int a = connect_blocking(t), b = connect_blocking(t);
        kc_join_group_response_t m;
        double ms = 0;
        rc = a < 0 || b < 0 || tl_form(a, group, &arena, &resp) ||
                     tl_member(b, group, &arena, &resp, &m, id, sizeof(id), &ms)
                 ? -1
                 : 0;
        samples[i] = ms - TL_REBALANCE_MS;
        if (a >= 0)
            close(a);
        if (b >= 0)
            close(b);
        kc_arena_reset(&arena);
    }
    kc_arena_deinit(&arena);
    kc_buf_deinit(&resp);
    if (rc)
        return -1;
    qsort(samples, TL_SAMPLES, sizeof(double), cmp_double);
    *p50 = samples[(TL_SAMPLES - 1) / 2];
    *p99 = samples[(int)((TL_SAMPLES - 1) * 0.99)];
    *max = samples[TL_SAMPLES - 1];
    return 0;
}

/* ---- kcoord process control ---------------------------------------------- */

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/*
 * Settings both brokers get with the same value: kcoord as --override,
 * Kafka (--kafka-reference) in its server.properties.
 */
static const char *const shared_settings[] = {"group.initial.rebalance.delay.ms=0", NULL};

/*
 * Settings of Kafka's only. kcoord keeps offsets in LMDB, not in a topic:
 * one partition of __consumer_offsets means one coordinator load to wait
 * for, as kcoord has one store. The replication factors of 1 (and
 * log.flush.interval.messages at its default, as kcoord's) come from
 * tests/reference/reference_kafka.py.
 */
static const char *const kafka_only_settings[] = {"offsets.topic.num.partitions=1", NULL};

/* What an interrupted bench would leave behind: the brokers it started
 * (the Kafka JVM runs in a process group of its own, which a Ctrl-C does
 * not reach) and the directories it made. */
static volatile pid_t kafka_pid = -1, kcoord_pid = -1;
static const char *volatile cleanup_dirs[2];

/* SIGINT, SIGTERM, SIGHUP: stops the brokers, removes the directories (with
 * async-signal-safe calls only), then dies of the signal. */
static void on_fatal_signal(int sig)
{
    pid_t pids[2] = {kafka_pid, kcoord_pid};
    for (int i = 0; i < 2; i++)
        if (pids[i] > 0)
            kill(i == 0 ? -pids[i] : pids[i], SIGTERM);
    for (int i = 0; i < 2; i++) {
        if (pids[i] <= 0)
            continue;
        struct timespec tick = {0, 10000000};
        for (int k = 0; k < 6000 && waitpid(pids[i], NULL, WNOHANG) == 0; k++)
            nanosleep(&tick, NULL);
        kill(i == 0 ? -pids[i] : pids[i], SIGKILL);
        waitpid(pids[i], NULL, 0);
    }
    for (int i = 0; i < 2; i++) {
        const char *d = cleanup_dirs[i];
        pid_t rm = d ? fork() : -1;
        if (rm == 0) {
            execl("/bin/rm", "rm", "-rf", "--", d, (char *)NULL);
            _exit(127);
        }
        if (rm > 0)
            waitpid(rm, NULL, 0);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Starts kcoord; returns its pid and the time of exec in *t_exec. */
static pid_t start_kcoord(const char *path, int port, const char *dir, double *t_exec)
{
    char listeners[64], logdirs[512];
    snprintf(listeners, sizeof(listeners), "listeners=PLAINTEXT://127.0.0.1:%d", port);
    snprintf(logdirs, sizeof(logdirs), "log.dirs=%s", dir);
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)path;
    argv[n++] = "--override";
    argv[n++] = listeners;
    argv[n++] = "--override";
    argv[n++] = logdirs;
    for (int i = 0; shared_settings[i]; i++) {
        argv[n++] = "--override";
        argv[n++] = (char *)shared_settings[i];
    }
    /* The produce figure writes about 1 GB in its seconds at the target
     * rate: a map larger than the default 1 GiB keeps it from filling. */
    argv[n++] = "--override";
    argv[n++] = "lmdb.map.size.bytes=17179869184";
    argv[n] = NULL;
    *t_exec = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0 && !getenv("KC_BENCH_LOGS"))
            dup2(devnull, 2);
        execv(path, argv);
        _exit(127);
    }
    kcoord_pid = pid;
    return pid;
}

/* Stops a broker the bench started: SIGTERM to pid (to its process group
 * when `group`), SIGKILL after timeout_s seconds. */
static void stop_broker(pid_t pid, bool group, int timeout_s)
{
    if (pid <= 0)
        return;
    kill(group ? -pid : pid, SIGTERM);
    for (int i = 0; i < timeout_s * 100; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        usleep(10000);
    }
    kill(group ? -pid : pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void stop_kcoord(pid_t pid)
{
    kcoord_pid = -1;
    stop_broker(pid, false, 5);
}

/* Removes a data directory the bench made (its name holds no quote). */
static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "kcoord-bench: could not remove %s\n", dir);
}

#ifndef KC_REFERENCE_SCRIPT
#define KC_REFERENCE_SCRIPT "tests/reference/reference_kafka.py"
#endif

/*
 * Starts the reference Kafka 4.4 in dir (an empty directory): runs
 * `python3 tests/reference/reference_kafka.py --prepare dir SETTINGS...`
 * (KC_REFERENCE_SCRIPT names another copy), which writes server.properties
 * with shared_settings and kafka_only_settings, formats the storage in a JVM
 * of its own (timed there: *format_s) and prints the port and the broker's
 * command line; then execs that JVM (kafka.Kafka) in its own process group,
 * in dir, its output in dir/kafka.log. Returns the JVM's pid, or -1; sets
 * t's host and port and the time of exec in *t_exec.
 */
static pid_t start_kafka(const char *dir, target_t *t, double *t_exec, double *format_s)
{
    const char *script = getenv("KC_REFERENCE_SCRIPT");
    if (!script || !*script)
        script = KC_REFERENCE_SCRIPT;
    char *args[32];
    int n = 0;
    args[n++] = "python3";
    args[n++] = (char *)script;
    args[n++] = "--prepare";
    args[n++] = (char *)dir;
    for (int i = 0; shared_settings[i]; i++)
        args[n++] = (char *)shared_settings[i];
    for (int i = 0; kafka_only_settings[i]; i++)
        args[n++] = (char *)kafka_only_settings[i];
    args[n] = NULL;
    int p[2];
    if (pipe(p))
        return -1;
    pid_t prep = fork();
    if (prep == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        execvp(args[0], args);
        _exit(127);
    }
    close(p[1]);
    kc_buf_t out;
    kc_buf_init(&out);
    for (;;) {
        uint8_t *dst = kc_buf_reserve(&out, 65536);
        ssize_t got = read(p[0], dst, 65536);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        out.len += (size_t)got;
    }
    close(p[0]);
    int st = -1;
    pid_t pid = -1;
    char **argv = NULL;
    if (prep < 0 || waitpid(prep, &st, 0) != prep || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "kcoord-bench: %s --prepare failed\n", script);
        goto out;
    }
    kc_buf_append(&out, "", 1);
    /* "port N", "format_s S", then one argument a line. */
    char *text = (char *)out.data;
    size_t nlines = 0;
    for (char *c = text; *c; c++)
        nlines += *c == '\n';
    argv = kc_xcalloc(nlines + 2, sizeof(char *));
    int port = -1, argc = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (port < 0 && sscanf(line, "port %d", &port) == 1)
            continue;
        if (argc == 0 && strncmp(line, "format_s ", 9) == 0) {
            *format_s = atof(line + 9);
            continue;
        }
        argv[argc++] = line;
    }
    if (port <= 0 || argc < 2) {
        fprintf(stderr, "kcoord-bench: %s --prepare printed no command line\n", script);
        goto out;
    }
    snprintf(t->host, sizeof(t->host), "127.0.0.1");
    t->port = port;
    *t_exec = now_s();
    pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        int log = chdir(dir) == 0 ? open("kafka.log", O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
        if (devnull < 0 || log < 0)
            _exit(127);
        dup2(devnull, 0);
        dup2(log, 1);
        dup2(log, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid > 0) {
        setpgid(pid, pid); /* also here, so that the group exists before any kill */
        kafka_pid = pid;
    }
out:
    free(argv);
    kc_buf_deinit(&out);
    return pid;
}

static long rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/*
 * FindCoordinator then OffsetFetch of group: 1 = answered (with a committed
 * offset of partition 0 when need_offset), 0 = no coordinator yet or it is
 * still loading (Kafka answers COORDINATOR_NOT_AVAILABLE while it creates
 * __consumer_offsets, then NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS
 * until it has loaded the partition), -1 = error.
 */
static int loaded_check(target_t *t, const char *group, bool need_offset)
{
    int fd = connect_blocking(t);
    if (fd < 0)
        return -1;
    int rc = -1;
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    kc_arena_t arena;
    kc_arena_init(&arena);
    if (t->max_version[KC_API_FIND_COORDINATOR] < 0 && fetch_api_versions(fd, t, 5000))
        goto out;
    int16_t v = use_version(t, KC_API_FIND_COORDINATOR, 2);
    frame_begin(&req, KC_API_FIND_COORDINATOR, v, 1);
    kc_find_coordinator_request_t fc;
    kc_find_coordinator_request_init(&fc);
    fc.key = kc_str(group);
    kc_find_coordinator_request_encode(&req, v, &fc);
    frame_end(&req);
    if (roundtrip(fd, &req, &resp, 5000))
        goto out;
    kc_reader_t r;
    kc_reader_init(&r, resp.data, resp.len);
    read_response_header(&r, KC_API_FIND_COORDINATOR, v);
    kc_find_coordinator_response_t fr;
    if (kc_find_coordinator_response_decode(&r, v, &arena, &fr))
        goto out;
    if (fr.error_code) {
        rc = 0;
        goto out;
    }
    v = use_version(t, KC_API_OFFSET_FETCH, 5);
    frame_begin(&req, KC_API_OFFSET_FETCH, v, 2);
    kc_offset_fetch_request_t of;
    kc_offset_fetch_request_init(&of);
    of.group_id = kc_str(group);
    int32_t part0 = 0;
    kc_offset_fetch_request_topic_t ot;
    memset(&ot, 0, sizeof(ot));
    ot.name = kc_str(oc_topic);
    ot.partition_indexes.items = &part0;
    ot.partition_indexes.count = 1;
    of.topics.items = &ot;
    of.topics.count = 1;
    kc_offset_fetch_request_encode(&req, v, &of);
    frame_end(&req);
    if (roundtrip(fd, &req, &resp, 5000))
        goto out;
    kc_reader_init(&r, resp.data, resp.len);
    read_response_header(&r, KC_API_OFFSET_FETCH, v);
    kc_offset_fetch_response_t orsp;
    if (kc_offset_fetch_response_decode(&r, v, &arena, &orsp))
        goto out;
    int16_t ec = orsp.error_code;
    if (!ec && orsp.topics.count > 0 && orsp.topics.items[0].partitions.count > 0)
        ec = orsp.topics.items[0].partitions.items[0].error_code;
    if (ec == ERR_COORDINATOR_LOAD_IN_PROGRESS || ec == ERR_COORDINATOR_NOT_AVAILABLE ||
        ec == ERR_NOT_COORDINATOR)
        rc = 0;
    else if (ec == 0 && !need_offset)
        rc = 1;
    else if (ec == 0 && orsp.topics.count > 0 && orsp.topics.items[0].partitions.count > 0 &&
             orsp.topics.items[0].partitions.items[0].committed_offset >= 0)
        rc = 1;
out:
    close(fd);
    kc_arena_deinit(&arena);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    return rc;
}

/* Waits until the broker's group coordinator answers for a group (see
 * loaded_check), asking every 2 ms. 0, or -1 at the deadline. */
static int await_coordinator(target_t *t, double deadline)
{
    while (now_s() < deadline) {
        if (loaded_check(t, "kcoord-bench-ready", false) == 1)
            return 0;
        usleep(2000);
    }
    return -1;
}

/* ---- output --------------------------------------------------------------- */

static void figure(const char *name, double v, const char *unit, const char *target)
{
    if (v < 0)
        printf("%-40s %12s %-10s (target %s)\n", name, "FAILED", "", target);
    else
        printf("%-40s %12.2f %-10s (target %s)\n", name, v, unit, target);
    fflush(stdout);
}

/* A figure that may be negative: FAILED unless ok. */
static void figure_signed(const char *name, bool ok, double v, const char *unit,
                          const char *target)
{
    if (!ok)
        printf("%-40s %12s %-10s (target %s)\n", name, "FAILED", "", target);
    else
        printf("%-40s %12.2f %-10s (target %s)\n", name, v, unit, target);
    fflush(stdout);
}

/* The broker CPU line under a figure ("  NAME CPU per WHAT" in us per
 * operation, or "  of which NAME CPU" in ms when what is NULL); returns the
 * value printed, -1 when unknown. */
static double cpu_figure(const target_t *t, const char *what)
{
    char label[96];
    double v = -1;
    if (figure_cpu_ms < 0)
        return -1;
    if (what && figure_ops > 0) {
        v = figure_cpu_ms * 1e3 / (double)figure_ops;
        snprintf(label, sizeof(label), "  %s CPU per %s", t->name, what);
        printf("%-40s %12.2f %-10s\n", label, v, "us");
    } else if (!what) {
        v = figure_cpu_ms;
        snprintf(label, sizeof(label), "  of which %s CPU", t->name);
        printf("%-40s %12.2f %-10s\n", label, v, "ms");
    }
    fflush(stdout);
    return v;
}

/* Ours against the reference's (named ref_name), higher is better: the
 * ratio is ours / reference. Nothing unless both were measured (a failed
 * figure says FAILED above). */
static void compare(const char *name, const char *ref_name, double ours, double ref,
                    const char *unit)
{
    if (ours >= 0 && ref > 0)
        printf("%-40s %12.0f %-10s %s %.0f, ratio %.2fx\n", name, ours, unit, ref_name, ref,
               ours / ref);
}

/* For figures where lower is better: the ratio is reference / ours. */
static void compare_low(const char *name, const char *ref_name, double ours, double ref,
                        const char *unit)
{
    if (ours > 0 && ref >= 0)
        printf("%-40s %12.3f %-10s %s %.3f, ratio %.2fx (%s / ours)\n", name, ours, unit,
               ref_name, ref, ref / ours, ref_name);
}

/* --only: run just the named figure (heartbeats, rebalance, commits, produce,
 * replay); NULL = all. */
static const char *only;

static bool want(const char *name)
{
    return !only || strcmp(only, name) == 0;
}

/* A broker's figures; -1 = not measured. CPU: us per operation, ms for the
 * rebalance. */
typedef struct {
    double start_ms, ready_ms, rss_mib;
    double hb, hb_cpu, rb, rb_cpu, oc, oc_cpu;
    double pr_mbps, pr_recs, lat_p50, lat_p99;
    double tl_p50, tl_p99, tl_max;
    double tx_tps, tx_retries, txl_p50, txl_p99;
} figures_t;

static void figures_init(figures_t *f)
{
    double *v = (double *)f;
    for (size_t i = 0; i < sizeof(*f) / sizeof(double); i++)
        v[i] = -1;
}

/*
 * Start figures of a broker the bench started at t_exec that has just
 * answered its first ApiVersions: that time, the time until its group
 * coordinator answers (await_coordinator) and the RSS of pid 300 ms later.
 * 0, or -1 when the coordinator never answered.
 */
static int start_figures(target_t *t, pid_t pid, double t_exec, double timeout_s,
                         const char *prefix, bool with_targets, figures_t *f)
{
    char label[96];
    f->start_ms = (now_s() - t_exec) * 1e3;
    snprintf(label, sizeof(label), "%sstart to first ApiVersions", prefix);
    figure(label, f->start_ms, "ms", with_targets ? "< 20 ms" : "-");
    int rc = await_coordinator(t, t_exec + timeout_s);
    if (rc == 0)
        f->ready_ms = (now_s() - t_exec) * 1e3;
    snprintf(label, sizeof(label), "%sstart to group coordinator ready", prefix);
    figure(label, f->ready_ms, "ms", "-");
    usleep(300000);
    long kib = rss_kib(pid);
    f->rss_mib = kib < 0 ? -1 : (double)kib / 1024.0;
    snprintf(label, sizeof(label), "%sidle RSS", prefix);
    figure(label, f->rss_mib, "MiB", with_targets ? "< 8 MiB" : "-");
    return rc;
}

/* A broker the loads run against. */
typedef struct {
    target_t *t;
    const char *prefix; /* of its labels: "" for the broker measured (which also
                         * gets the targets), "Kafka " or "reference " */
    const char *tag;    /* keeps the groups of two brokers apart */
    bool mock;          /* librdkafka's mock: it never forms the 100-member group,
                         * and the bench made its topics with it */
    figures_t *f;
} side_t;

/*
 * Figure fig (0 heartbeats, 1 rebalance, 2 commits, 3 produce and latency)
 * run once on sd for `seconds`, untimed, with groups of its own: a JVM
 * measured from a cold start spends its first seconds compiling. Produce
 * warms up with the latency load alone (one record in flight), which runs
 * the same produce and fetch code without writing a gigabyte that the OS
 * would still be writing back during the figure.
 */
static void warm_up(side_t *sd, int fig, double seconds, int commit_conns)
{
    char tag[16];
    snprintf(tag, sizeof(tag), "%sw", sd->tag);
    double p50, p99;
    if (fig == 0)
        bench_heartbeats(sd->t, seconds, tag);
    else if (fig == 1)
        bench_rebalance(sd->t, tag);
    else if (fig == 2)
        run_commits(sd->t, commit_conns, (commit_mode_t){seconds, 0, NULL}, tag);
    else if (fig == 3)
        bench_latency(sd->t, seconds, &p50, &p99);
    else if (fig == 5) {
        double steps[4];
        bench_transactions(sd->t, seconds, tag, &p50, steps);
    }
}

/*
 * Runs the load figures as --only and --produce-only choose (heartbeats, the
 * rebalance, offset commits, then produce throughput with the latency right
 * after it) and prints each, after `warmup` seconds of the same load when
 * warmup > 0. Each figure runs on every side in turn before the next
 * figure, so that on a shared machine the figures compared are measured
 * seconds apart, under much the same load from elsewhere.
 */
static void run_loads(side_t *sides, int n, bool produce_only, double duration, double warmup,
                      int commit_conns)
{
    char label[96];
#define LABEL(text) (snprintf(label, sizeof(label), "%s%s", sd->prefix, text), label)
#define TARGET(text) (*sd->prefix ? "-" : text)
    for (int fig = produce_only ? 3 : 0; fig < (produce_only ? 4 : 6); fig++) {
        static const char *const names[] = {"heartbeats", "rebalance", "commits", "produce",
                                            "timers", "transactions"};
        if (!want(names[fig]))
            continue;
        for (side_t *sd = sides; sd < sides + n; sd++) {
            target_t *t = sd->t;
            figures_t *f = sd->f;
            if ((fig == 1 || fig == 4) && sd->mock)
                continue;
            if (fig == 2 && !sd->mock && create_topic(t, oc_topic, OC_PARTITIONS))
                fprintf(stderr, "kcoord-bench: could not create %s\n", oc_topic);
            if (fig == 3 && !sd->mock && create_produce_topics(t))
                fprintf(stderr, "kcoord-bench: could not create the produce topics\n");
            if (fig == 5 && !sd->mock &&
                (create_produce_topic(t, tx_topic, 2) || create_produce_topic(t, txl_topic, 1)))
                fprintf(stderr, "kcoord-bench: could not create the transaction topics\n");
            if (warmup > 0)
                warm_up(sd, fig, warmup, commit_conns);
            figure_cpu_ms = -1;
            if (fig == 0) {
                f->hb = bench_heartbeats(t, duration, sd->tag);
                figure(LABEL("heartbeats/s (200 connections)"), f->hb, "/s",
                       TARGET(">= 50000/s"));
                f->hb_cpu = cpu_figure(t, "heartbeat");
            } else if (fig == 1) {
                f->rb = bench_rebalance(t, sd->tag);
                figure(LABEL("100-member rebalance (join+sync)"), f->rb, "ms",
                       TARGET("< 20 ms"));
                f->rb_cpu = cpu_figure(t, NULL);
            } else if (fig == 2) {
                f->oc = run_commits(t, commit_conns, (commit_mode_t){duration, 0, NULL}, sd->tag);
                char text[64];
                snprintf(text, sizeof(text), "durable offsets/s (%d conns x %d)", commit_conns,
                         OC_PARTITIONS);
                figure(LABEL(text), f->oc, "/s", TARGET(">= 200000/s"));
                f->oc_cpu = cpu_figure(t, "offset");
            } else if (fig == 3) {
                f->pr_mbps = bench_produce(t, duration, &f->pr_recs);
                figure(LABEL("produce MB/s (acks=1, 100 x 1 KiB)"), f->pr_mbps, "MB/s",
                       TARGET(">= 200 MB/s"));
                figure(LABEL("produce records/s"), f->pr_recs, "/s", "-");
                bench_latency(t, duration, &f->lat_p50, &f->lat_p99);
                figure(LABEL("produce-to-consume latency p50"), f->lat_p50, "ms", "-");
                figure(LABEL("produce-to-consume latency p99"), f->lat_p99, "ms",
                       TARGET("< 5 ms"));
            } else if (fig == 4) {
                /* Signed: a coordinator counts whole milliseconds, as Kafka
                 * does, so a deadline can fall up to 1 ms before the
                 * request's arrival + the timeout. */
                bool ok = bench_timer_lateness(t, sd->tag, &f->tl_p50, &f->tl_p99, &f->tl_max) == 0;
                figure_signed(LABEL("rebalance timer lateness p50"), ok, f->tl_p50, "ms",
                              TARGET("-"));
                figure_signed(LABEL("rebalance timer lateness p99"), ok, f->tl_p99, "ms",
                              TARGET("< 1 ms"));
                figure_signed(LABEL("rebalance timer lateness max"), ok, f->tl_max, "ms",
                              TARGET("-"));
            } else if (fig == 5) {
                double steps[4];
                f->tx_tps = bench_transactions(t, duration, sd->tag, &f->tx_retries, steps);
                figure(LABEL("transactions/s (10 records, 2 partitions, offsets)"), f->tx_tps,
                       "/s", TARGET("-"));
                if (f->tx_tps >= 0)
                    printf("  ms per transaction: AddPartitionsToTxn %.3f, Produce %.3f, "
                           "offsets %.3f, EndTxn %.3f\n",
                           steps[0], steps[1], steps[2], steps[3]);
                figure(LABEL("  steps sent again (CONCURRENT_TRANSACTIONS)"), f->tx_retries, "",
                       TARGET("-"));
                bench_txn_latency(t, duration, sd->tag, &f->txl_p50, &f->txl_p99);
                figure(LABEL("read_committed produce-to-consume p50"), f->txl_p50, "ms",
                       TARGET("-"));
                figure(LABEL("read_committed produce-to-consume p99"), f->txl_p99, "ms",
                       TARGET("-"));
            }
        }
    }
#undef LABEL
#undef TARGET
}

/* The ratios of every figure both brokers have. */
static void compare_all(const figures_t *o, const figures_t *r, const char *ref_name)
{
    compare_low("start to first ApiVersions", ref_name, o->start_ms, r->start_ms, "ms");
    compare_low("start to group coordinator ready", ref_name, o->ready_ms, r->ready_ms, "ms");
    compare_low("idle RSS", ref_name, o->rss_mib, r->rss_mib, "MiB");
    compare("heartbeats/s", ref_name, o->hb, r->hb, "/s");
    compare_low("  broker CPU per heartbeat", ref_name, o->hb_cpu, r->hb_cpu, "us");
    compare_low("100-member rebalance", ref_name, o->rb, r->rb, "ms");
    compare_low("  broker CPU of the rebalance", ref_name, o->rb_cpu, r->rb_cpu, "ms");
    compare("offsets/s", ref_name, o->oc, r->oc, "/s");
    compare_low("  broker CPU per offset", ref_name, o->oc_cpu, r->oc_cpu, "us");
    compare("produce MB/s", ref_name, o->pr_mbps, r->pr_mbps, "MB/s");
    compare_low("produce-to-consume latency p50", ref_name, o->lat_p50, r->lat_p50, "ms");
    compare_low("produce-to-consume latency p99", ref_name, o->lat_p99, r->lat_p99, "ms");
    compare_low("rebalance timer lateness p50", ref_name, o->tl_p50, r->tl_p50, "ms");
    compare_low("rebalance timer lateness p99", ref_name, o->tl_p99, r->tl_p99, "ms");
    compare_low("rebalance timer lateness max", ref_name, o->tl_max, r->tl_max, "ms");
    compare("transactions/s", ref_name, o->tx_tps, r->tx_tps, "/s");
    compare_low("read_committed produce-to-consume p50", ref_name, o->txl_p50, r->txl_p50, "ms");
    compare_low("read_committed produce-to-consume p99", ref_name, o->txl_p99, r->txl_p99, "ms");
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s (--kcoord PATH | --bootstrap HOST:PORT)\n"
            "          [--reference HOST:PORT | --rdkafka-mock | --kafka-reference]\n"
            "          (--kafka-reference with --rdkafka-mock: both, in one run)\n"
            "          [--duration SEC] [--warmup SEC] [--replay-offsets N]\n"
            "          [--data-dir DIR (kept afterwards; default a temporary one)]\n"
            "          [--commit-conns N] [--produce-only]\n"
            "          [--only heartbeats|rebalance|commits|produce|timers|transactions|replay|\n"
            "                  consumer]\n"
            "          [--broker-pid PID (with --bootstrap: report its CPU)]\n",
            argv0);
}

int main(int argc, char **argv)
{
    const char *kcoord = NULL, *bootstrap = NULL, *reference = NULL;
    bool mock = false, kafka_ref = false;
    double duration = 3, warmup = 0;
    long replay_offsets = 1000000;
    static const struct option opts[] = {
        {"kcoord", required_argument, NULL, 'k'},
        {"bootstrap", required_argument, NULL, 'b'},
        {"reference", required_argument, NULL, 'r'},
        {"rdkafka-mock", no_argument, NULL, 'm'},
        {"kafka-reference", no_argument, NULL, 'K'},
        {"duration", required_argument, NULL, 'd'},
        {"warmup", required_argument, NULL, 'w'},
        {"replay-offsets", required_argument, NULL, 'n'},
        {"data-dir", required_argument, NULL, 'D'},
        {"commit-conns", required_argument, NULL, 'c'},
        {"produce-only", no_argument, NULL, 'p'},
        {"only", required_argument, NULL, 'o'},
        {"broker-pid", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    const char *keep_dir = NULL;
    int commit_conns = OC_CONNS;
    bool produce_only = false;
    pid_t given_pid = -1;
    while ((ch = getopt_long(argc, argv, "k:b:r:mKd:w:n:D:c:po:P:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'k': kcoord = optarg; break;
        case 'b': bootstrap = optarg; break;
        case 'r': reference = optarg; break;
        case 'm': mock = true; break;
        case 'K': kafka_ref = true; break;
        case 'd': duration = atof(optarg); break;
        case 'w': warmup = atof(optarg); break;
        case 'n': replay_offsets = atol(optarg); break;
        case 'D': keep_dir = optarg; break;
        case 'c': commit_conns = atoi(optarg); break;
        case 'p': produce_only = true; break;
        case 'o': only = optarg; break;
        case 'P': given_pid = (pid_t)atoi(optarg); break;
        default: usage(argv[0]); return ch == 'h' ? 0 : 2;
        }
    }
    if (only && strcmp(only, "consumer") == 0) {
        /* The consumer group figures are the coordinator's own time: they
         * drive its API in process, no broker needed. */
        char path[4096];
        const char *slash = strrchr(argv[0], '/');
        int n = slash ? (int)(slash - argv[0] + 1) : 0;
        snprintf(path, sizeof(path), "%.*skcoord-consumer-bench", n, argv[0]);
        execl(path, path, (char *)NULL);
        fprintf(stderr, "kcoord-bench: cannot run %s: %s\n", path, strerror(errno));
        return 1;
    }
    /* One reference, or Kafka and the mock both, measured in the same run. */
    bool two_refs = mock && kafka_ref && !reference;
    if ((!kcoord && !bootstrap && !mock) || duration <= 0 || warmup < 0 || commit_conns < 1 ||
        commit_conns > 64 ||
        ((int)(reference != NULL) + (int)mock + (int)kafka_ref > 1 && !two_refs)) {
        usage(argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    signal(SIGHUP, on_fatal_signal);

    target_t ours = {.name = "kcoord", .pid = -1}, ref = {.name = "reference", .pid = -1};
    target_t mref = {.name = "mock", .pid = -1};
    figures_t fo, fr, fm;
    figures_init(&fo);
    figures_init(&fr);
    figures_init(&fm);
    bool have_ours = false, have_ref = false, have_mref = false;
    pid_t pid = -1, kpid = -1;
    char dir[512] = "/tmp/kcoord-bench-XXXXXX";
    char kdir[64] = "/tmp/kcoord-bench-kafka-XXXXXX";
    bool have_kdir = false;
    int status = 0;

    if (keep_dir && (strlen(keep_dir) >= sizeof(dir) || strchr(keep_dir, '\''))) {
        fprintf(stderr, "kcoord-bench: unusable --data-dir\n");
        return 2;
    }
    if (kcoord) {
        if (keep_dir)
            snprintf(dir, sizeof(dir), "%s", keep_dir);
        else if (!mkdtemp(dir)) {
            perror("mkdtemp");
            return 1;
        } else {
            cleanup_dirs[0] = dir;
        }
        snprintf(ours.host, sizeof(ours.host), "127.0.0.1");
        ours.port = free_port();
        double t_exec;
        pid = start_kcoord(kcoord, ours.port, dir, &t_exec);
        ours.pid = pid;
        if (getenv("KC_BENCH_DEBUG"))
            fprintf(stderr, "exec at %.6f\n", t_exec);
        if (pid < 0 || probe(&ours, t_exec + 10)) {
            fprintf(stderr, "kcoord-bench: %s did not answer ApiVersions\n", kcoord);
            stop_kcoord(pid);
            return 1;
        }
        if (start_figures(&ours, pid, t_exec, 10, "", true, &fo))
            fprintf(stderr, "kcoord-bench: kcoord's group coordinator did not answer\n");
        have_ours = true;
    } else if (bootstrap) {
        if (parse_hostport(bootstrap, &ours) || probe(&ours, now_s() + 10)) {
            fprintf(stderr, "kcoord-bench: no broker at %s\n", bootstrap);
            return 1;
        }
        ours.pid = given_pid;
        have_ours = true;
    }

#ifdef KC_HAVE_RDKAFKA_MOCK
    rd_kafka_t *mock_rk = NULL;
    rd_kafka_mock_cluster_t *mcluster = NULL;
    if (mock) {
        char err[256];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_conf_set(conf, "log_level", "0", err, sizeof(err));
        mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
        mcluster = mock_rk ? rd_kafka_mock_cluster_new(mock_rk, 1) : NULL;
        if (!mcluster) {
            fprintf(stderr, "kcoord-bench: cannot start the librdkafka mock cluster\n");
            return 1;
        }
        rd_kafka_mock_topic_create(mcluster, oc_topic, OC_PARTITIONS, 1);
        rd_kafka_mock_topic_create(mcluster, pr_topic, PR_CONNS, 1);
        rd_kafka_mock_topic_create(mcluster, lat_topic, 1, 1);
        rd_kafka_mock_topic_create(mcluster, tx_topic, 2, 1);
        rd_kafka_mock_topic_create(mcluster, txl_topic, 1, 1);
        const char *boot = rd_kafka_mock_cluster_bootstraps(mcluster);
        if (two_refs) {
            if (parse_hostport(boot, &mref) || probe(&mref, now_s() + 10)) {
                fprintf(stderr, "kcoord-bench: the mock cluster does not answer\n");
                status = 1;
                goto out;
            }
            have_mref = true;
        } else {
            reference = boot;
        }
    }
#else
    if (mock) {
        fprintf(stderr, "kcoord-bench: built without librdkafka; --rdkafka-mock unavailable\n");
        return 2;
    }
#endif
    if (reference) {
        if (parse_hostport(reference, &ref) || probe(&ref, now_s() + 10)) {
            fprintf(stderr, "kcoord-bench: no reference broker at %s\n", reference);
            status = 1;
            goto out;
        }
        have_ref = true;
    }

    if (kafka_ref) {
        ref.name = "Kafka";
        if (!mkdtemp(kdir)) {
            perror("mkdtemp");
            status = 1;
            goto out;
        }
        have_kdir = true;
        double t_exec = 0, format_s = -1;
        cleanup_dirs[1] = kdir;
        kpid = start_kafka(kdir, &ref, &t_exec, &format_s);
        ref.pid = kpid;
        if (kpid > 0)
            figure("Kafka storage format (a JVM of its own)", format_s * 1e3, "ms", "-");
        if (kpid < 0) {
            status = 1;
            goto out;
        }
        if (probe(&ref, t_exec + 180) ||
            start_figures(&ref, kpid, t_exec, 180, "Kafka ", false, &fr)) {
            fprintf(stderr, "kcoord-bench: Kafka did not start; its output is kept in %s\n",
                    kdir);
            have_kdir = false;
            cleanup_dirs[1] = NULL;
            status = 1;
            goto out;
        }
        have_ref = true;
    }
    char ref_prefix[32];
    snprintf(ref_prefix, sizeof(ref_prefix), "%s ", ref.name);
    side_t sides[3];
    int nsides = 0;
    if (have_ours)
        sides[nsides++] = (side_t){&ours, "", "k", false, &fo};
    if (have_ref)
        sides[nsides++] = (side_t){&ref, ref_prefix, "r", mock && !two_refs, &fr};
    if (have_mref)
        sides[nsides++] = (side_t){&mref, "mock ", "m", true, &fm};
    run_loads(sides, nsides, produce_only, duration, warmup, commit_conns);
    if (have_ref) {
        if (kafka_ref && kcoord && replay_offsets > 0 && !produce_only && want("replay"))
            printf("%-40s %12s (restart with the offsets loaded: not measured)\n",
                   "Kafka replay of stored offsets", "-");
        if (kpid > 0) {
            kafka_pid = -1;
            stop_broker(kpid, true, 60);
            kpid = -1;
        }
        if (have_ours)
            compare_all(&fo, &fr, ref.name);
    }
    if (have_mref && have_ours)
        compare_all(&fo, &fm, mref.name);

    if (kcoord && replay_offsets > 0 && !produce_only && want("replay")) {
        /* Fill: groups of 100 partitions until replay_offsets are stored
         * (the topic exists already unless the commit figure was skipped). */
        if (!want("commits") && create_topic(&ours, oc_topic, OC_PARTITIONS))
            fprintf(stderr, "kcoord-bench: could not create %s\n", oc_topic);
        int groups = (int)((replay_offsets + OC_PARTITIONS - 1) / OC_PARTITIONS);
        int per_conn = (groups + commit_conns - 1) / commit_conns;
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "kcb-rp-%d", (int)getpid());
        double fill = run_commits(&ours, commit_conns, (commit_mode_t){0, per_conn, prefix}, "f");
        if (fill < 0) {
            figure("replay of stored offsets", -1, "ms", "< 350 ms for 1M");
        } else {
            stop_kcoord(pid);
            double t_exec;
            pid = start_kcoord(kcoord, ours.port, dir, &t_exec);
            ours.pid = pid;
            char last[96];
            snprintf(last, sizeof(last), "%s-%d-%d", prefix, commit_conns - 1, per_conn - 1);
            int st = -1;
            memset(ours.max_version, 0xff, sizeof(ours.max_version));
            double t_probe = 0;
            while (now_s() < t_exec + 60) {
                if (t_probe == 0 && probe(&ours, t_exec + 60) == 0)
                    t_probe = now_s();
                st = loaded_check(&ours, last, true);
                if (st != 0)
                    break;
                usleep(500);
            }
            double t_done = now_s();
            printf("stored offsets: %ld (%d groups)\n",
                   (long)per_conn * commit_conns * OC_PARTITIONS, per_conn * commit_conns);
            figure("restart to offsets served", st == 1 ? (t_done - t_exec) * 1e3 : -1, "ms",
                   "< 350 ms for 1M");
            if (st == 1 && t_probe > 0)
                figure("  of which after first answer", (t_done - t_probe) * 1e3, "ms", "-");
        }
    }
out:
#ifdef KC_HAVE_RDKAFKA_MOCK
    if (mcluster)
        rd_kafka_mock_cluster_destroy(mcluster);
    if (mock_rk)
        rd_kafka_destroy(mock_rk);
#endif
    if (kpid > 0) {
        kafka_pid = -1;
        stop_broker(kpid, true, 60);
    }
    if (have_kdir)
        remove_dir(kdir);
    if (pid > 0)
        stop_kcoord(pid);
    if (kcoord && !keep_dir)
        remove_dir(dir);
    return status;
}
