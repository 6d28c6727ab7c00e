/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KIP-848 consumer group benchmark, in process: drives the coordinator API
 * directly on a driven clock, so the figures are the coordinator's own
 * processing time (request decoded, handled, response encoded), without
 * sockets, storage or heartbeat waits. On a shared machine the figures
 * vary from run to run: the join figures are medians, with their spread
 * (fastest and slowest join).
 *
 *   kcoord-consumer-bench [MEMBERS [TOPICS PARTITIONS_PER_TOPIC [SECONDS [JOINS]]]]
 *       defaults: 1000 members, 100 topics x 100 partitions, 2 s of steady
 *       heartbeats, the median of 5 joins.
 *
 * Figures:
 *   - heartbeats/s of the MEMBERS-member group at steady state (every
 *     member reconciled; heartbeats carry no subscription or owned
 *     partitions, as a KIP-848 client's do when nothing changed).
 *     Target: >= 50,000/s.
 *   - one more member joining: the coordinator time of the join heartbeat
 *     (new group epoch and target assignment of every partition over
 *     MEMBERS + 1 members), and the total coordinator time from that join
 *     until every member is reconciled (the members giving up partitions
 *     report them revoked, every member takes the new epoch, the new member
 *     receives its partitions), counted up to the last heartbeat that
 *     changed a member (the round that only confirms is not counted).
 *     Target: < 10 ms.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coord.h"
#include "kc_log.h"
#include "kc_msgs.h"
#include "wire.h"

static int ntopics = 100, nparts = 100;
static char **topic_names;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}


/* ---- topics: "bench-<i>", id bytes {0x42, i, i >> 8} --------------------------- */

static int topic_of(kc_str_t name)
{
    if (name.len < 7 || memcmp(name.ptr, "bench-", 6) != 0)
        return -1;
    int i = 0;
    for (int32_t k = 6; k < name.len; k++) {
        if (name.ptr[k] < '0' || name.ptr[k] > '9')
            return -1;
        i = i * 10 + (name.ptr[k] - '0');
    }
    return i < ntopics ? i : -1;
}

static kc_uuid_t topic_id(int i)
{
    kc_uuid_t id;
    memset(&id, 0, sizeof(id));
    id.b[0] = 0x42;
    id.b[1] = (uint8_t)i;
    id.b[2] = (uint8_t)(i >> 8);
    return id;
}

static bool tv_exists(void *ctx, kc_str_t topic)
{
    (void)ctx;
    return topic_of(topic) >= 0;
}

static bool tv_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *id)
{
    (void)ctx;
    int i = topic_of(topic);
    if (i < 0)
        return false;
    *partitions = nparts;
    *id = topic_id(i);
    return true;
}

static bool tv_name(void *ctx, kc_uuid_t id, kc_str_t *name)
{
    (void)ctx;
    int i = id.b[1] | (id.b[2] << 8);
    if (id.b[0] != 0x42 || i >= ntopics)
        return false;
    *name = kc_str(topic_names[i]);
    return true;
}

static void tv_names(void *ctx, void (*fn)(void *arg, kc_str_t name), void *arg)
{
    (void)ctx;
    for (int i = 0; i < ntopics; i++)
        fn(arg, kc_str(topic_names[i]));
}

/* ---- members ---------------------------------------------------------------------- */

typedef kc_consumer_group_heartbeat_request_topic_partitions_t tp_t;

typedef struct {
    char id[40];
    int32_t epoch;
    tp_t *owned;      /* what the member owns (arrays owned by the struct) */
    int32_t nowned;
    bool report;      /* send the owned partitions with the next heartbeat */
} member_t;

static kc_coord_t *coord;
static int64_t clock_ms = 1;
static double coord_ms;   /* coordinator time accumulated by round_of() */
static double settled_ms; /* coord_ms after the last round that changed a member */

static void set_owned(member_t *m, const kc_consumer_group_heartbeat_response_assignment_t *a)
{
    for (int32_t i = 0; i < m->nowned; i++)
        free(m->owned[i].partitions.items);
    free(m->owned);
    m->nowned = a->topic_partitions.count;
    m->owned = calloc((size_t)m->nowned + 1, sizeof(*m->owned));
    for (int32_t i = 0; i < m->nowned; i++) {
        const tp_t *s = &a->topic_partitions.items[i];
        m->owned[i].topic_id = s->topic_id;
        m->owned[i].partitions.count = s->partitions.count;
        m->owned[i].partitions.items = malloc(sizeof(int32_t) * ((size_t)s->partitions.count + 1));
        memcpy(m->owned[i].partitions.items, s->partitions.items,
               sizeof(int32_t) * (size_t)s->partitions.count);
    }
}

/* The request of m's next heartbeat, encoded. */
static void encode_request(const member_t *m, bool join, kc_buf_t *wire)
{
    kc_consumer_group_heartbeat_request_t req;
    kc_consumer_group_heartbeat_request_init(&req);
    req.group_id = kc_str("bench-group");
    req.member_id = kc_str(m->id);
    req.member_epoch = join ? 0 : m->epoch;
    kc_str_t *names = NULL;
    if (join) {
        names = calloc((size_t)ntopics, sizeof(*names));
        for (int i = 0; i < ntopics; i++)
            names[i] = kc_str(topic_names[i]);
        req.subscribed_topic_names.items = names;
        req.subscribed_topic_names.count = ntopics;
        req.rebalance_timeout_ms = 300000;
        req.topic_partitions.count = 0;
    } else if (m->report) {
        req.topic_partitions.items = m->owned;
        req.topic_partitions.count = m->nowned;
    }
    kc_buf_init(wire);
    kc_consumer_group_heartbeat_request_encode(wire, 1, &req);
    free(names);
}

/* What the coordinator does with one heartbeat: decode, handle (the
 * response is encoded inside). */
static void handle(const kc_buf_t *wire, kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_reader_t r;
    kc_reader_init(&r, wire->data, wire->len);
    kc_consumer_group_heartbeat_request_t in;
    kc_consumer_group_heartbeat_request_init(&in);
    kc_consumer_group_heartbeat_request_decode(&r, 1, &arena, &in);
    kc_request_ctx_t ctx = {1, 1, 68, 1, kc_str("bench"), "/127.0.0.1", clock_ms};
    kc_coord_consumer_group_heartbeat(coord, &ctx, &in, res);
    kc_arena_deinit(&arena);
}

/* The client's side of a response: epoch, assignment (acknowledged with
 * the next heartbeat). Returns the error code; *changed tells whether the
 * coordinator moved the member (new epoch or assignment), *acked whether
 * this heartbeat carried an acknowledgement. */
static int16_t apply_response(member_t *m, const kc_result_t *res, bool *changed, bool *acked)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_heartbeat_response_t resp;
    kc_consumer_group_heartbeat_response_init(&resp);
    kc_reader_t r;
    kc_reader_init(&r, res->responses[0].body.data, res->responses[0].body.len);
    kc_consumer_group_heartbeat_response_decode(&r, 1, &arena, &resp);
    int16_t err = resp.error_code;
    *acked = m->report;
    *changed = false;
    m->report = false;
    if (err == 0) {
        *changed = m->epoch != resp.member_epoch || resp.assignment;
        m->epoch = resp.member_epoch;
        if (resp.assignment) {
            set_owned(m, resp.assignment);
            m->report = true;
        }
    }
    kc_arena_deinit(&arena);
    return err;
}

/* One heartbeat of each of the n members: the requests are encoded first,
 * then the coordinator's work on all of them is timed (thread CPU time, so
 * other processes on a shared machine do not count), then the clients read
 * their responses. Returns whether the coordinator moved any member;
 * *acks tells whether any heartbeat acknowledged an assignment. Exits on an
 * error. */
static bool round_of(member_t *ms, int n, bool join, bool *acks)
{
    kc_buf_t *wires = calloc((size_t)n, sizeof(*wires));
    kc_result_t *res = calloc((size_t)n, sizeof(*res));
    for (int i = 0; i < n; i++) {
        encode_request(&ms[i], join, &wires[i]);
        kc_result_init(&res[i]);
    }
    double t0 = cpu_ms();
    for (int i = 0; i < n; i++)
        handle(&wires[i], &res[i]);
    coord_ms += cpu_ms() - t0;
    bool any = false;
    if (acks)
        *acks = false;
    for (int i = 0; i < n; i++) {
        bool changed, acked;
        if (apply_response(&ms[i], &res[i], &changed, &acked) != 0) {
            fprintf(stderr, "heartbeat of %s failed\n", ms[i].id);
            exit(1);
        }
        any |= changed;
        if (acks)
            *acks |= acked;
        kc_result_deinit(&res[i]);
        kc_buf_deinit(&wires[i]);
    }
    free(res);
    free(wires);
    return any;
}

/* Heartbeats every member until a full round neither moves a member nor
 * carries an acknowledgement and every member is at the same epoch; returns
 * the rounds in which the coordinator moved a member. settled_ms is
 * coord_ms after the last of them: from then on the coordinator's state is
 * final (later heartbeats only acknowledge). */
static int reconcile(member_t *ms, int n)
{
    int moved = 0;
    for (int round = 1; round < 1000; round++) {
        bool acks;
        bool any = round_of(ms, n, false, &acks);
        bool same = true;
        for (int i = 1; i < n; i++)
            same &= ms[i].epoch == ms[0].epoch;
        if (any) {
            settled_ms = coord_ms;
            moved++;
        } else if (same && !acks) {
            return moved;
        }
    }
    fprintf(stderr, "the group did not reconcile\n");
    exit(1);
}

static int64_t owned_total(const member_t *ms, int n)
{
    int64_t t = 0;
    for (int i = 0; i < n; i++)
        for (int32_t k = 0; k < ms[i].nowned; k++)
            t += ms[i].owned[k].partitions.count;
    return t;
}

#define CYCLES_MAX 101
static int CYCLES = 5;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int nmembers = argc > 1 ? atoi(argv[1]) : 1000;
    if (argc > 3) {
        ntopics = atoi(argv[2]);
        nparts = atoi(argv[3]);
    }
    double seconds = argc > 4 ? atof(argv[4]) : 2.0;
    if (argc > 5)
        CYCLES = atoi(argv[5]);
    if (nmembers < 1 || ntopics < 1 || ntopics > 65535 || nparts < 1 || seconds <= 0 ||
        CYCLES < 1 || CYCLES > CYCLES_MAX) {
        fprintf(stderr, "usage: %s [MEMBERS [TOPICS PARTITIONS_PER_TOPIC [SECONDS [JOINS]]]]\n",
                argv[0]);
        return 2;
    }
    kc_log_set_level(KC_LOG_WARN); /* a line per join would dominate the timing */
    topic_names = calloc((size_t)ntopics, sizeof(*topic_names));
    for (int i = 0; i < ntopics; i++) {
        topic_names[i] = malloc(24);
        snprintf(topic_names[i], 24, "bench-%d", i);
    }
    kc_topic_view_t view = {tv_exists, NULL, tv_lookup, tv_name, tv_names};
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    coord = kc_coord_new(&cfg, &view);
    kc_coord_seed(coord, 1);
    kc_coord_loaded(coord, clock_ms);

    member_t *ms = calloc((size_t)nmembers + 1, sizeof(*ms));
    for (int i = 0; i <= nmembers; i++)
        snprintf(ms[i].id, sizeof(ms[i].id), "member-%06d", i);
    printf("consumer group: %d members, %d topics x %d partitions (%d partitions)\n", nmembers,
           ntopics, nparts, ntopics * nparts);
    double t0 = now_ms();
    for (int i = 0; i < nmembers; i++)
        round_of(&ms[i], 1, true, NULL);
    int rounds = reconcile(ms, nmembers);
    printf("  formed in %.0f ms wall (%d heartbeat rounds)\n", now_ms() - t0, rounds);
    if (owned_total(ms, nmembers) != (int64_t)ntopics * nparts) {
        fprintf(stderr, "not every partition is owned\n");
        return 1;
    }

    /* Steady state: round-robin heartbeats, the clock advancing with them. */
    uint64_t n = 0;
    coord_ms = 0;
    double wall0 = now_ms();
    while (now_ms() - wall0 < seconds * 1e3) {
        if (round_of(ms, nmembers, false, NULL)) {
            fprintf(stderr, "a steady heartbeat changed a member\n");
            return 1;
        }
        n += (uint64_t)nmembers;
        clock_ms += 1;
    }
    printf("  steady heartbeats: %" PRIu64 " in %.0f ms of coordinator time: %.0f heartbeats/s "
           "(target >= 50000)\n",
           n, coord_ms, (double)n / (coord_ms / 1e3));

    /* One more member joins; time the coordinator until all are reconciled.
     * It leaves again (not timed) and the next one joins: the median of
     * CYCLES joins is printed. */
    double join_ms[CYCLES_MAX], total_ms[CYCLES_MAX];
    for (int cycle = 0; cycle < CYCLES; cycle++) {
        member_t *j = &ms[nmembers];
        snprintf(j->id, sizeof(j->id), "joiner-%06d", cycle);
        coord_ms = settled_ms = 0;
        round_of(j, 1, true, NULL);
        join_ms[cycle] = coord_ms;
        rounds = reconcile(ms, nmembers + 1);
        total_ms[cycle] = settled_ms;
        if (owned_total(ms, nmembers + 1) != (int64_t)ntopics * nparts) {
            fprintf(stderr, "not every partition is owned after the join\n");
            return 1;
        }
        j->epoch = -1;
        j->report = false;
        round_of(j, 1, false, NULL);
        set_owned(j, &(kc_consumer_group_heartbeat_response_assignment_t){0});
        reconcile(ms, nmembers);
    }
    qsort(join_ms, (size_t)CYCLES, sizeof(double), cmp_double);
    qsort(total_ms, (size_t)CYCLES, sizeof(double), cmp_double);
    printf("  member %d joins (median [min-max] of %d): join heartbeat (new target assignment) "
           "%.2f ms [%.2f-%.2f]; fully reconciled after %.2f ms [%.2f-%.2f] of coordinator time, "
           "%d heartbeat rounds (target < 10)\n",
           nmembers + 1, CYCLES, join_ms[CYCLES / 2], join_ms[0], join_ms[CYCLES - 1],
           total_ms[CYCLES / 2], total_ms[0], total_ms[CYCLES - 1], rounds);
    kc_coord_free(coord);
    for (int i = 0; i <= nmembers; i++)
        set_owned(&ms[i], &(kc_consumer_group_heartbeat_response_assignment_t){0});
    free(ms);
    for (int i = 0; i < ntopics; i++)
        free(topic_names[i]);
    free(topic_names);
    return 0;
}
