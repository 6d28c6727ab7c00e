/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Streams group (KIP-1071) benchmark, in process, on the coordinator API
 * (no sockets, no storage): each figure includes decoding the request bytes
 * and encoding the response, as a broker loop would. Times are the
 * process's CPU time, so a busy machine does not skew them.
 *
 *   kcoord-streams-bench [MEMBERS [SUBTOPOLOGIES PARTITIONS [STANDBYS]]]
 *       (default 300 members, 100 subtopologies x 64 partitions, 1 standby)
 *
 * Prints:
 *   - steady-state heartbeats/s: every member of a Stable group heartbeats
 *     with null owned-task lists (what a settled Kafka Streams member sends),
 *     round after round; target >= 50,000/s for 300 members;
 *   - the sticky assignor alone, from scratch and again with its own result
 *     as the previous assignment (ms); target < 20 ms for 100 x 64 tasks over
 *     300 members with one standby;
 *   - a whole rebalance step through the coordinator: one more member joins
 *     the Stable group (topology configured, target computed for every
 *     member, records built), in ms.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coord.h"
#include "coord_priv.h"
#include "kc_log.h"
#include "kc_msgs.h"
#include "streams_int.h"
#include "wire.h"

static int32_t nsubs = 100, nparts = 64, nmembers = 300, nstandby = 1;

/* CPU time of this process: the figures are the coordinator's cost, not
 * the share of a busy machine it happened to get. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Topics "src-<i>" (source) and "app-<i>-changelog" exist with nparts
 * each, in a hash map as the broker's topic table keeps them. */
static kc_smap_t topic_table;

static bool tv_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *id)
{
    (void)ctx;
    if (topic.len <= 0)
        return false;
    void *v = kc_smap_get(&topic_table, topic.ptr, (size_t)topic.len);
    if (!v)
        return false;
    intptr_t n = (intptr_t)v;
    memset(id, 0, sizeof(*id));
    id->b[0] = (uint8_t)n;
    id->b[1] = (uint8_t)(n >> 8);
    *partitions = nparts;
    return true;
}

static bool tv_exists(void *ctx, kc_str_t topic)
{
    int32_t p;
    kc_uuid_t id;
    return tv_lookup(ctx, topic, &p, &id);
}

static const kc_topic_view_t VIEW = {tv_exists, NULL, tv_lookup, NULL};

typedef struct {
    char member_id[40];
    char process_id[40];
    int32_t epoch;
    kc_buf_t steady; /* encoded steady heartbeat (refreshed when the epoch moves) */
} member_t;

static kc_streams_group_heartbeat_request_subtopology_t *subs_req;
static kc_streams_group_heartbeat_request_topic_info_t *changelogs;
static kc_str_t *sources;
static char (*names)[32];

static void build_topology(void)
{
    subs_req = calloc((size_t)nsubs, sizeof(*subs_req));
    changelogs = calloc((size_t)nsubs, sizeof(*changelogs));
    sources = calloc((size_t)nsubs, sizeof(*sources));
    names = calloc((size_t)nsubs * 3, sizeof(*names));
    for (int32_t s = 0; s < nsubs; s++) {
        snprintf(names[3 * s], 32, "%d", s);
        snprintf(names[3 * s + 1], 32, "src-%d", s);
        snprintf(names[3 * s + 2], 32, "app-%d-changelog", s);
        kc_smap_put(&topic_table, names[3 * s + 1], strlen(names[3 * s + 1]), (void *)(intptr_t)(2 * s + 1));
        kc_smap_put(&topic_table, names[3 * s + 2], strlen(names[3 * s + 2]), (void *)(intptr_t)(2 * s + 2));
        sources[s] = kc_str(names[3 * s + 1]);
        changelogs[s].name = kc_str(names[3 * s + 2]);
        subs_req[s].subtopology_id = kc_str(names[3 * s]);
        subs_req[s].source_topics.items = &sources[s];
        subs_req[s].source_topics.count = 1;
        subs_req[s].state_changelog_topics.items = &changelogs[s];
        subs_req[s].state_changelog_topics.count = 1;
    }
}

/* One heartbeat from bytes: decode, handle, return the response's epoch. */
static int32_t call(kc_coord_t *c, const kc_buf_t *bytes, int64_t now, kc_result_t *res,
                    kc_arena_t *arena)
{
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    kc_reader_t r;
    kc_reader_init(&r, bytes->data, bytes->len);
    if (kc_streams_group_heartbeat_request_decode(&r, 1, arena, &req) != 0) {
        fprintf(stderr, "decode failed\n");
        exit(1);
    }
    kc_request_ctx_t ctx = {1, 1, 88, 1, kc_str("bench"), "/127.0.0.1", now};
    kc_coord_streams_group_heartbeat(c, &ctx, &req, res, NULL);
    kc_streams_group_heartbeat_response_t resp;
    kc_streams_group_heartbeat_response_init(&resp);
    kc_reader_init(&r, res->responses[res->nresponses - 1].body.data,
                   res->responses[res->nresponses - 1].body.len);
    kc_streams_group_heartbeat_response_decode(&r, 1, arena, &resp);
    if (resp.error_code != 0) {
        fprintf(stderr, "heartbeat error %d: %.*s\n", resp.error_code,
                resp.error_message.len > 0 ? (int)resp.error_message.len : 0,
                resp.error_message.ptr);
        exit(1);
    }
    return resp.member_epoch;
}

static void encode_hb(kc_buf_t *out, member_t *m, int32_t epoch, bool full_report)
{
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("bench-app");
    req.member_id = kc_str(m->member_id);
    req.member_epoch = epoch;
    req.process_id = kc_str(m->process_id);
    kc_streams_group_heartbeat_request_topology_t topo;
    kc_streams_group_heartbeat_request_task_ids_t none = {kc_str("0"), {NULL, 0}};
    if (epoch == 0) {
        topo.epoch = 1;
        topo.subtopologies.items = subs_req;
        topo.subtopologies.count = nsubs;
        req.topology = &topo;
        req.rebalance_timeout_ms = 30000;
    }
    if (epoch == 0 || full_report) {
        /* Joining members report empty task lists, as Kafka requires; later
         * an empty report: the bench's members own nothing locally, which
         * lets revocations complete at once. */
        req.active_tasks.items = &none;
        req.active_tasks.count = 0;
        req.standby_tasks.items = &none;
        req.standby_tasks.count = 0;
        req.warmup_tasks.items = &none;
        req.warmup_tasks.count = 0;
    }
    kc_buf_reset(out);
    kc_streams_group_heartbeat_request_encode(out, 1, &req);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        nmembers = atoi(argv[1]);
    if (argc > 3) {
        nsubs = atoi(argv[2]);
        nparts = atoi(argv[3]);
    }
    if (argc > 4)
        nstandby = atoi(argv[4]);
    if (nmembers <= 0 || nsubs <= 0 || nparts <= 0 || nstandby < 0) {
        fprintf(stderr, "usage: kcoord-streams-bench [MEMBERS [SUBTOPOLOGIES PARTITIONS [STANDBYS]]]\n");
        return 2;
    }
    kc_log_set_level(KC_LOG_WARN);
    kc_smap_init(&topic_table);
    build_topology();
    printf("streams group: %d members, %d subtopologies x %d partitions (stateful), %d standby\n",
           nmembers, nsubs, nparts, nstandby);

    /* ---- the sticky assignor alone ---- */
    kc_st_subtopology_t *st = calloc((size_t)nsubs, sizeof(*st));
    for (int32_t s = 0; s < nsubs; s++)
        st[s] = (kc_st_subtopology_t){names[3 * s], nparts, true};
    /* The assignor wants subtopologies sorted by id. */
    for (int32_t i = 1; i < nsubs; i++)
        for (int32_t j = i; j > 0 && strcmp(st[j - 1].subtopology_id, st[j].subtopology_id) > 0; j--) {
            kc_st_subtopology_t t = st[j];
            st[j] = st[j - 1];
            st[j - 1] = t;
        }
    kc_st_member_t *am = calloc((size_t)nmembers, sizeof(*am));
    kc_tasks_tuple_t *prev = calloc((size_t)nmembers, sizeof(*prev));
    char (*mids)[40] = calloc((size_t)nmembers, sizeof(*mids));
    for (int32_t i = 0; i < nmembers; i++) {
        snprintf(mids[i], 40, "member-%05d", i);
        am[i] = (kc_st_member_t){mids[i], mids[i], NULL, {0}, {0}};
    }
    double best_fresh = 1e9, best_sticky = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        for (int32_t i = 0; i < nmembers; i++) {
            kc_tasks_free(&am[i].active);
            kc_tasks_free(&am[i].standby);
            am[i].previous = NULL;
        }
        kc_st_spec_t spec = {st, nsubs, am, nmembers, nstandby};
        double t0 = now_ms();
        kc_assignor_streams_sticky(&spec);
        double t1 = now_ms();
        if (t1 - t0 < best_fresh)
            best_fresh = t1 - t0;
        for (int32_t i = 0; i < nmembers; i++) {
            kc_tasks_tuple_free(&prev[i]);
            prev[i].active = am[i].active;
            prev[i].standby = am[i].standby;
            memset(&am[i].active, 0, sizeof(am[i].active));
            memset(&am[i].standby, 0, sizeof(am[i].standby));
            am[i].previous = &prev[i];
        }
        t0 = now_ms();
        kc_assignor_streams_sticky(&spec);
        t1 = now_ms();
        if (t1 - t0 < best_sticky)
            best_sticky = t1 - t0;
    }
    printf("assignment (sticky assignor, %d tasks + %d standbys): from scratch %.2f ms, "
           "with the previous assignment %.2f ms (best of 5; target < 20 ms)\n",
           nsubs * nparts, nsubs * nparts * nstandby, best_fresh, best_sticky);

    /* ---- a Stable group through the coordinator ---- */
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_streams_initial_rebalance_delay_ms = 0;
    cfg.group_streams_assignment_interval_ms = 0;
    cfg.group_streams_num_standby_replicas = nstandby;
    kc_coord_t *c = kc_coord_new(&cfg, &VIEW);
    kc_coord_seed(c, 1);
    kc_coord_loaded(c, 0);
    member_t *ms = calloc((size_t)nmembers + 1, sizeof(*ms));
    kc_result_t res;
    kc_result_init(&res);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_buf_t req;
    kc_buf_init(&req);
    int64_t now = 1000;
    for (int32_t i = 0; i < nmembers; i++) {
        snprintf(ms[i].member_id, sizeof(ms[i].member_id), "member-%05d", i);
        snprintf(ms[i].process_id, sizeof(ms[i].process_id), "process-%05d", i);
        kc_buf_init(&ms[i].steady);
        encode_hb(&req, &ms[i], 0, false);
        ms[i].epoch = call(c, &req, now, &res, &arena);
        kc_result_reset(&res);
        kc_arena_reset(&arena);
    }
    /* Converge: full (empty) reports until every member is at the group's epoch. */
    for (int round = 0; round < 10; round++)
        for (int32_t i = 0; i < nmembers; i++) {
            encode_hb(&req, &ms[i], ms[i].epoch, true);
            ms[i].epoch = call(c, &req, now, &res, &arena);
            kc_result_reset(&res);
            kc_arena_reset(&arena);
        }
    for (int32_t i = 0; i < nmembers; i++)
        encode_hb(&ms[i].steady, &ms[i], ms[i].epoch, false);

    int rounds = 0;
    double t0 = now_ms(), t1 = t0;
    while (t1 - t0 < 2000.0) {
        for (int32_t i = 0; i < nmembers; i++) {
            call(c, &ms[i].steady, now, &res, &arena);
            kc_result_reset(&res);
            kc_arena_reset(&arena);
        }
        rounds++;
        now += 10;
        t1 = now_ms();
    }
    double hbs = (double)rounds * nmembers / ((t1 - t0) / 1000.0);
    printf("steady-state heartbeats: %.0f/s (%d rounds of %d members; target >= 50,000/s)\n", hbs,
           rounds, nmembers);

    /* One more member joins: a whole rebalance step. */
    member_t *extra = &ms[nmembers];
    snprintf(extra->member_id, sizeof(extra->member_id), "member-extra");
    snprintf(extra->process_id, sizeof(extra->process_id), "process-extra");
    encode_hb(&req, extra, 0, false);
    double j0 = now_ms();
    call(c, &req, now, &res, &arena);
    double j1 = now_ms();
    printf("rebalance step (a member joins a Stable group of %d: configure, assign, %zu records): "
           "%.2f ms\n",
           nmembers, res.nrecords, j1 - j0);
    kc_result_reset(&res);

    for (int32_t i = 0; i <= nmembers; i++)
        kc_buf_deinit(&ms[i].steady);
    for (int32_t i = 0; i < nmembers; i++) {
        kc_tasks_tuple_free(&prev[i]);
        kc_tasks_free(&am[i].active);
        kc_tasks_free(&am[i].standby);
    }
    free(ms);
    free(prev);
    free(am);
    free(mids);
    free(st);
    kc_buf_deinit(&req);
    kc_result_deinit(&res);
    kc_arena_deinit(&arena);
    kc_coord_free(c);
    free(subs_req);
    free(changelogs);
    free(sources);
    free(names);
    kc_smap_deinit(&topic_table);
    return 0;
}
