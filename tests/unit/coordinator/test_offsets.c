/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of committed offsets (coordinator/offsets/offsets.c) through the
 * coordinator's public handlers: OffsetCommit, OffsetFetch and OffsetDelete
 * at several versions, validation against real classic groups built with
 * JoinGroup/SyncGroup, retention on a driven clock, topic deletion, and
 * replay of the emitted records. Responses are decoded with the generated
 * decoders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "coord_test.h"

/* ---- a fixture: topics, clock, record log --------------------------- */

typedef struct {
    const char *name;
    int32_t partitions;
    kc_uuid_t id;
    bool deleted;
} ttopic_t;

static ttopic_t topics_table[] = {
    {"foo", 3, {{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}, false},
    {"bar", 2, {{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, false},
    {"baz", 1, {{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}}, false},
};

static const ttopic_t *find_topic(kc_str_t name)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(topics_table); i++)
        if (!topics_table[i].deleted && kc_str_eq_cstr(name, topics_table[i].name))
            return &topics_table[i];
    return NULL;
}

static bool view_exists(void *ctx, kc_str_t topic)
{
    (void)ctx;
    return find_topic(topic) != NULL;
}

static bool view_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *id)
{
    (void)ctx;
    const ttopic_t *t = find_topic(topic);
    if (!t)
        return false;
    *partitions = t->partitions;
    *id = t->id;
    return true;
}

static bool view_id_to_name(void *ctx, kc_uuid_t id, kc_str_t *name)
{
    (void)ctx;
    for (size_t i = 0; i < KC_ARRAY_LEN(topics_table); i++)
        if (!topics_table[i].deleted && memcmp(topics_table[i].id.b, id.b, 16) == 0) {
            *name = kc_str(topics_table[i].name);
            return true;
        }
    return false;
}

static const kc_topic_view_t view = {view_exists, NULL, view_lookup, view_id_to_name};

/* The shared context (coord_test.h), and the result being built by the
 * helpers below with the bodies of its last response. */
typedef ct_t tctx_t;

static kc_result_t scratch;
static kc_buf_t last_body, last_error_body;

/* Logs the scratch result's records and keeps the last response's bodies;
 * returns how many records there were. */
static size_t settle(tctx_t *t)
{
    size_t n = scratch.nrecords;
    kc_buf_reset(&last_body);
    kc_buf_reset(&last_error_body);
    if (scratch.nresponses > 0) {
        kc_response_t *r = &scratch.responses[scratch.nresponses - 1];
        kc_buf_append(&last_body, r->body.data, r->body.len);
        kc_buf_append(&last_error_body, r->error_body.data, r->error_body.len);
    }
    ct_absorb(t, &scratch);
    return n;
}

static int setup(void **state)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(topics_table); i++)
        topics_table[i].deleted = false;
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_initial_rebalance_delay_ms = 0;
    cfg.offset_metadata_max_bytes = 10;
    kc_result_init(&scratch);
    kc_buf_init(&last_body);
    kc_buf_init(&last_error_body);
    *state = ct_new(&(ct_opts_t){.cfg = &cfg, .topics = &view, .seed = 42, .now_ms = 1000000});
    return 0;
}

static int teardown(void **state)
{
    ct_free(*state);
    kc_result_deinit(&scratch);
    kc_buf_deinit(&last_body);
    kc_buf_deinit(&last_error_body);
    return 0;
}

/*
 * A stand-in authorizer for the ACL tests: while acl_principal is set,
 * requests carry it and the hook below decides. User:alice may READ (and so
 * DESCRIBE) group "g" and topic "foo" only; User:admin may also DESCRIBE the
 * cluster; the decision for everyone else is no.
 */
static const char *acl_principal;

static bool fake_authorize(const void *arg, const char *principal, const char *host, int8_t op,
                           int8_t rtype, kc_str_t name)
{
    (void)arg;
    assert_string_equal(host, "/127.0.0.1");
    bool admin = strcmp(principal, "User:admin") == 0;
    if (!admin && strcmp(principal, "User:alice") != 0)
        return false;
    if (rtype == KC_RES_CLUSTER)
        return admin && op == KC_OP_DESCRIBE;
    if (op != KC_OP_READ && op != KC_OP_DESCRIBE)
        return false;
    return (rtype == KC_RES_GROUP && kc_str_eq_cstr(name, "g")) ||
           (rtype == KC_RES_TOPIC && kc_str_eq_cstr(name, "foo"));
}

static kc_request_ctx_t rctx(tctx_t *t, int16_t api_key, int16_t version)
{
    kc_request_ctx_t ctx = ct_rctx(t, api_key, version);
    ctx.principal = acl_principal;
    ctx.authorize = acl_principal ? fake_authorize : NULL;
    return ctx;
}

/* Advances the clock and fires the due timers. */
static void sleep_ms(tctx_t *t, int64_t ms) { ct_jump(t, ms); }

/* ---- OffsetCommit helpers -------------------------------------------- */

typedef struct {
    const char *topic;  /* NULL with version 10: use id */
    kc_uuid_t id;
    int32_t partition;
    int64_t offset;
    const char *metadata; /* NULL = null */
    int32_t leader_epoch;
} cpart_t;

typedef struct {
    int32_t generation;
    const char *member_id;
    const char *instance_id;
    int64_t retention_ms;
} cmeta_t;

static const cmeta_t NO_GROUP_INFO = {-1, "", NULL, -1};

/* Commits parts (one request topic per distinct consecutive topic) and decodes the answer. */
static kc_offset_commit_response_t commit(tctx_t *t, int16_t version, const char *group,
                                          cmeta_t meta, const cpart_t *parts, int n)
{
    kc_offset_commit_request_t req;
    kc_offset_commit_request_init(&req);
    req.group_id = kc_str(group);
    req.generation_id_or_member_epoch = meta.generation;
    req.member_id = kc_str(meta.member_id);
    req.group_instance_id = meta.instance_id ? kc_str(meta.instance_id) : KC_STR_NULL;
    req.retention_time_ms = meta.retention_ms;
    kc_offset_commit_request_topic_t topics[16];
    kc_offset_commit_request_partition_t ps[16][16];
    int nt = 0;
    for (int i = 0; i < n; i++) {
        bool same = nt > 0 && ((parts[i].topic && topics[nt - 1].name.ptr &&
                                kc_str_eq_cstr(topics[nt - 1].name, parts[i].topic)) ||
                               (!parts[i].topic && !topics[nt - 1].name.ptr &&
                                memcmp(topics[nt - 1].topic_id.b, parts[i].id.b, 16) == 0));
        if (!same) {
            memset(&topics[nt], 0, sizeof(topics[nt]));
            topics[nt].name = parts[i].topic ? kc_str(parts[i].topic) : (kc_str_t){NULL, 0};
            topics[nt].topic_id = parts[i].id;
            topics[nt].partitions.items = ps[nt];
            nt++;
        }
        kc_offset_commit_request_topic_t *tp = &topics[nt - 1];
        kc_offset_commit_request_partition_t *p = &ps[nt - 1][tp->partitions.count++];
        memset(p, 0, sizeof(*p));
        p->partition_index = parts[i].partition;
        p->committed_offset = parts[i].offset;
        p->committed_leader_epoch = parts[i].leader_epoch;
        p->commit_timestamp = -1;
        p->committed_metadata = parts[i].metadata ? kc_str(parts[i].metadata) : KC_STR_NULL;
    }
    req.topics.items = topics;
    req.topics.count = nt;
    kc_request_ctx_t ctx = rctx(t, KC_API_OFFSET_COMMIT, version);
    kc_coord_offset_commit(t->c, &ctx, &req, &scratch);
    assert_int_equal(scratch.nresponses, 1);
    settle(t);
    kc_offset_commit_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_offset_commit_response_decode(&r, version, &t->arena, &resp), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    return resp;
}

static void commit_one(tctx_t *t, int16_t version, const char *group, const char *topic,
                       int32_t partition, int64_t offset, const char *metadata)
{
    cpart_t p = {topic, {{0}}, partition, offset, metadata, -1};
    kc_offset_commit_response_t r = commit(t, version, group, NO_GROUP_INFO, &p, 1);
    assert_int_equal(r.topics.count, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 0);
}

/* ---- OffsetFetch helpers --------------------------------------------- */

/* Fetches one group at v0-7; topic NULL = all topics (v2+). */
static kc_offset_fetch_response_t fetch_single(tctx_t *t, int16_t version, const char *group,
                                               const char *topic, const int32_t *parts, int np)
{
    kc_offset_fetch_request_t req;
    kc_offset_fetch_request_init(&req);
    req.group_id = kc_str(group);
    kc_offset_fetch_request_topic_t tp;
    memset(&tp, 0, sizeof(tp));
    if (topic) {
        tp.name = kc_str(topic);
        tp.partition_indexes.items = (int32_t *)parts;
        tp.partition_indexes.count = np;
        req.topics.items = &tp;
        req.topics.count = 1;
    } else {
        req.topics.items = NULL;
        req.topics.count = -1;
    }
    kc_request_ctx_t ctx = rctx(t, KC_API_OFFSET_FETCH, version);
    kc_coord_offset_fetch(t->c, &ctx, &req, &scratch);
    assert_int_equal(scratch.nresponses, 1);
    assert_int_equal(settle(t), 0);
    kc_offset_fetch_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_offset_fetch_response_decode(&r, version, &t->arena, &resp), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    return resp;
}

static kc_offset_fetch_response_t fetch_groups(tctx_t *t, int16_t version,
                                               kc_offset_fetch_request_group_t *groups, int n)
{
    kc_offset_fetch_request_t req;
    kc_offset_fetch_request_init(&req);
    req.groups.items = groups;
    req.groups.count = n;
    kc_request_ctx_t ctx = rctx(t, KC_API_OFFSET_FETCH, version);
    kc_coord_offset_fetch(t->c, &ctx, &req, &scratch);
    settle(t);
    kc_offset_fetch_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_offset_fetch_response_decode(&r, version, &t->arena, &resp), 0);
    return resp;
}

/* Committed offset of one partition through OffsetFetch v8 (-1 if none). */
static int64_t fetched_offset(tctx_t *t, const char *group, const char *topic, int32_t partition)
{
    kc_offset_fetch_request_group_t g;
    memset(&g, 0, sizeof(g));
    kc_offset_fetch_request_topics_t tp;
    memset(&tp, 0, sizeof(tp));
    g.group_id = kc_str(group);
    g.member_id = KC_STR_NULL;
    g.member_epoch = -1;
    tp.name = kc_str(topic);
    tp.partition_indexes.items = &partition;
    tp.partition_indexes.count = 1;
    g.topics.items = &tp;
    g.topics.count = 1;
    kc_offset_fetch_response_t r = fetch_groups(t, 8, &g, 1);
    assert_int_equal(r.groups.count, 1);
    assert_int_equal(r.groups.items[0].error_code, 0);
    assert_int_equal(r.groups.items[0].topics.items[0].partitions.items[0].error_code, 0);
    return r.groups.items[0].topics.items[0].partitions.items[0].committed_offset;
}

/* ---- classic group helpers (JoinGroup v3 + SyncGroup v3) --------------- */

/* ConsumerProtocolSubscription v0 with the given topics. */
static void subscription(kc_buf_t *b, const char *const *topics, int n)
{
    kc_write_int16(b, 0);
    kc_write_int32(b, n);
    for (int i = 0; i < n; i++)
        kc_write_str(b, kc_str(topics[i]), false);
    kc_write_int32(b, -1);
}

typedef struct {
    char member_id[128];
    int32_t generation;
} member_t;

/* A Stable consumer group with one member subscribed to topics. */
static member_t make_stable_group(tctx_t *t, const char *group, const char *const *topics, int n)
{
    member_t m;
    memset(&m, 0, sizeof(m));
    kc_buf_t sub;
    kc_buf_init(&sub);
    subscription(&sub, topics, n);
    kc_join_group_request_t jr;
    kc_join_group_request_init(&jr);
    jr.group_id = kc_str(group);
    jr.session_timeout_ms = 30000;
    jr.rebalance_timeout_ms = 60000;
    jr.member_id = kc_str("");
    jr.protocol_type = kc_str("consumer");
    kc_join_group_request_protocol_t proto = {kc_str("range"), {sub.data, (int32_t)sub.len}};
    jr.protocols.items = &proto;
    jr.protocols.count = 1;
    kc_request_ctx_t ctx = rctx(t, KC_API_JOIN_GROUP, 3);
    kc_coord_join_group(t->c, &ctx, &jr, &scratch);
    kc_coord_tick(t->c, t->now, &scratch); /* initial delay 0 */
    settle(t);
    kc_join_group_response_t jresp;
    kc_reader_t r;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_join_group_response_decode(&r, 3, &t->arena, &jresp), 0);
    assert_int_equal(jresp.error_code, 0);
    assert_true(jresp.member_id.len > 0 && jresp.member_id.len < 127);
    memcpy(m.member_id, jresp.member_id.ptr, (size_t)jresp.member_id.len);
    m.generation = jresp.generation_id;

    kc_sync_group_request_t sr;
    kc_sync_group_request_init(&sr);
    sr.group_id = kc_str(group);
    sr.generation_id = m.generation;
    sr.member_id = kc_str(m.member_id);
    kc_sync_group_request_assignment_t as = {kc_str(m.member_id), {(const uint8_t *)"", 0}};
    sr.assignments.items = &as;
    sr.assignments.count = 1;
    ctx = rctx(t, KC_API_SYNC_GROUP, 3);
    kc_coord_sync_group(t->c, &ctx, &sr, &scratch);
    settle(t);
    kc_sync_group_response_t sresp;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_sync_group_response_decode(&r, 3, &t->arena, &sresp), 0);
    assert_int_equal(sresp.error_code, 0);
    kc_buf_deinit(&sub);
    return m;
}

/* ---- replay ------------------------------------------------------------ */

/* Body of an OffsetFetch v8 for all topics of the groups, against coordinator c. */
static void fetch_all_body(tctx_t *t, kc_coord_t *c, const char *const *groups, int n,
                           kc_buf_t *out)
{
    kc_offset_fetch_request_group_t g[8];
    memset(g, 0, sizeof(g));
    for (int i = 0; i < n; i++) {
        g[i].group_id = kc_str(groups[i]);
        g[i].member_id = KC_STR_NULL;
        g[i].member_epoch = -1;
        g[i].topics.count = -1;
    }
    kc_offset_fetch_request_t req;
    kc_offset_fetch_request_init(&req);
    req.groups.items = g;
    req.groups.count = n;
    kc_request_ctx_t ctx = rctx(t, KC_API_OFFSET_FETCH, 8);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_fetch(c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    kc_buf_append(out, res.responses[0].body.data, res.responses[0].body.len);
    kc_result_deinit(&res);
}

/* Rebuilds a coordinator from the logged records. */
static kc_coord_t *replayed(tctx_t *t) { return ct_replayed(t, false); }

static void assert_replay_identical(tctx_t *t, const char *const *groups, int n)
{
    kc_buf_t a, b;
    kc_buf_init(&a);
    kc_buf_init(&b);
    fetch_all_body(t, t->c, groups, n, &a);
    kc_coord_t *c2 = replayed(t);
    fetch_all_body(t, c2, groups, n, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    kc_coord_free(c2);
    kc_buf_deinit(&a);
    kc_buf_deinit(&b);
}

/* ---- tests ------------------------------------------------------------ */

/* KafkaApis' checks, made through the request's authorizer hook. */
static void acl_topics_of_commit_and_fetch_are_authorized(void **state)
{
    tctx_t *t = *state;
    acl_principal = "User:alice";
    cpart_t parts[] = {{"foo", {{0}}, 0, 5, "", -1}, {"bar", {{0}}, 1, 6, "", -1}};
    kc_offset_commit_response_t r = commit(t, 7, "g", NO_GROUP_INFO, parts, 2);
    assert_int_equal(r.topics.count, 2);
    for (int i = 0; i < 2; i++) {
        bool foo = kc_str_eq_cstr(r.topics.items[i].name, "foo");
        assert_int_equal(r.topics.items[i].partitions.items[0].error_code,
                         foo ? 0 : KC_ERR_TOPIC_AUTHORIZATION_FAILED);
    }
    /* v8: requested topics get the error per partition; all topics leave bar out. */
    kc_offset_fetch_request_group_t g;
    memset(&g, 0, sizeof(g));
    g.group_id = kc_str("g");
    g.member_id = KC_STR_NULL;
    g.member_epoch = -1;
    g.topics.count = -1;
    kc_offset_fetch_response_t f = fetch_groups(t, 8, &g, 1);
    assert_int_equal(f.groups.items[0].error_code, 0);
    assert_int_equal(f.groups.items[0].topics.count, 1);
    assert_true(kc_str_eq_cstr(f.groups.items[0].topics.items[0].name, "foo"));
    acl_principal = NULL;
    commit_one(t, 7, "g", "bar", 1, 9, "");
    acl_principal = "User:alice";
    f = fetch_groups(t, 8, &g, 1);
    assert_int_equal(f.groups.items[0].topics.count, 1);
    int32_t one = 1;
    kc_offset_fetch_request_topics_t tp;
    memset(&tp, 0, sizeof(tp));
    tp.name = kc_str("bar");
    tp.partition_indexes.items = &one;
    tp.partition_indexes.count = 1;
    g.topics.items = &tp;
    g.topics.count = 1;
    f = fetch_groups(t, 8, &g, 1);
    assert_int_equal(f.groups.items[0].topics.items[0].partitions.items[0].error_code,
                     KC_ERR_TOPIC_AUTHORIZATION_FAILED);
    assert_int_equal(f.groups.items[0].topics.items[0].partitions.items[0].committed_offset, -1);
    /* A group alice may not describe: the group-level error (v2+). */
    g.group_id = kc_str("h");
    f = fetch_groups(t, 8, &g, 1);
    assert_int_equal(f.groups.items[0].error_code, KC_ERR_GROUP_AUTHORIZATION_FAILED);
    /* Bob may do nothing: OffsetFetch v1 puts the group error on each partition. */
    acl_principal = "User:bob";
    kc_offset_fetch_response_t f1 = fetch_single(t, 1, "g", "foo", &one, 1);
    assert_int_equal(f1.topics.items[0].partitions.items[0].error_code,
                     KC_ERR_GROUP_AUTHORIZATION_FAILED);
    acl_principal = NULL;
    assert_int_equal(fetched_offset(t, "g", "bar", 1), 9);
}

static void acl_list_groups_filters_by_describe(void **state)
{
    tctx_t *t = *state;
    commit_one(t, 7, "g", "foo", 0, 1, "");
    commit_one(t, 7, "h", "foo", 0, 1, "");
    const char *principals[] = {"User:alice", "User:admin", "User:bob"};
    const int32_t want[] = {1, 2, 0};
    for (int i = 0; i < 3; i++) {
        acl_principal = principals[i];
        kc_list_groups_request_t req;
        kc_list_groups_request_init(&req);
        kc_request_ctx_t x = rctx(t, KC_API_LIST_GROUPS, 4);
        kc_coord_list_groups(t->c, &x, &req, &scratch);
        settle(t);
        kc_list_groups_response_t out;
        kc_reader_t rd;
        kc_reader_init(&rd, last_body.data, last_body.len);
        assert_int_equal(kc_list_groups_response_decode(&rd, 4, &t->arena, &out), 0);
        assert_int_equal(out.groups.count, want[i]);
        if (want[i] == 1)
            assert_true(kc_str_eq_cstr(out.groups.items[0].group_id, "g"));
    }
    acl_principal = NULL;
}

static void commit_v0_then_fetch_v1_round_trip(void **state)
{
    tctx_t *t = *state;
    cpart_t p[] = {{"foo", {{0}}, 0, 100, "m0", -1}, {"foo", {{0}}, 2, 102, NULL, -1}};
    kc_offset_commit_response_t r = commit(t, 0, "g", NO_GROUP_INFO, p, 2);
    assert_int_equal(r.topics.count, 1);
    assert_true(kc_str_eq_cstr(r.topics.items[0].name, "foo"));
    assert_int_equal(r.topics.items[0].partitions.count, 2);
    assert_int_equal(r.topics.items[0].partitions.items[0].partition_index, 0);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 0);
    assert_int_equal(r.topics.items[0].partitions.items[1].partition_index, 2);
    assert_int_equal(t->nrecs, 2);

    int32_t parts[] = {0, 1, 2};
    kc_offset_fetch_response_t f = fetch_single(t, 1, "g", "foo", parts, 3);
    assert_int_equal(f.topics.count, 1);
    assert_int_equal(f.topics.items[0].partitions.count, 3);
    assert_int_equal(f.topics.items[0].partitions.items[0].committed_offset, 100);
    assert_true(kc_str_eq_cstr(f.topics.items[0].partitions.items[0].metadata, "m0"));
    assert_int_equal(f.topics.items[0].partitions.items[1].committed_offset, -1);
    assert_true(kc_str_eq_cstr(f.topics.items[0].partitions.items[1].metadata, ""));
    assert_int_equal(f.topics.items[0].partitions.items[1].error_code, 0);
    assert_int_equal(f.topics.items[0].partitions.items[2].committed_offset, 102);
    /* A null metadata is stored as "". */
    assert_true(kc_str_eq_cstr(f.topics.items[0].partitions.items[2].metadata, ""));
}

static void commit_v7_leader_epoch_is_fetched_from_v5(void **state)
{
    tctx_t *t = *state;
    cpart_t p = {"bar", {{0}}, 1, 77, "x", 9};
    kc_offset_commit_response_t r = commit(t, 7, "g7", NO_GROUP_INFO, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 0);
    int32_t part = 1;
    kc_offset_fetch_response_t f = fetch_single(t, 7, "g7", "bar", &part, 1);
    assert_int_equal(f.error_code, 0);
    assert_int_equal(f.topics.items[0].partitions.items[0].committed_offset, 77);
    assert_int_equal(f.topics.items[0].partitions.items[0].committed_leader_epoch, 9);
    /* v4 has no leader epoch on the wire: it decodes as the default. */
    f = fetch_single(t, 4, "g7", "bar", &part, 1);
    assert_int_equal(f.topics.items[0].partitions.items[0].committed_leader_epoch, -1);
    assert_int_equal(f.topics.items[0].partitions.items[0].committed_offset, 77);
}

/* After GroupCoordinatorRecordHelpersTest.testNewOffsetCommitRecord: a commit
 * writes key type 1 with OffsetCommitKey v0 (group, topic, partition) and
 * value v4 with the offset, leader epoch, metadata, commit time and tagged
 * topic id. */
static void record_layout_matches_kafka(void **state)
{
    tctx_t *t = *state;
    cpart_t p = {"foo", {{0}}, 1, 5, "meta", 3};
    commit(t, 8, "grp", NO_GROUP_INFO, &p, 1);
    assert_int_equal(t->nrecs, 1);
    /* Key: type 1 then OffsetCommitKey v0. */
    kc_reader_t r;
    kc_reader_init(&r, t->recs[0].key.data, t->recs[0].key.len);
    assert_int_equal(kc_read_int16(&r), KC_RECORD_OFFSET_COMMIT);
    kc_offset_commit_key_t k;
    assert_int_equal(kc_offset_commit_key_decode(&r, 0, &t->arena, &k), 0);
    assert_true(kc_str_eq_cstr(k.group, "grp"));
    assert_true(kc_str_eq_cstr(k.topic, "foo"));
    assert_int_equal(k.partition, 1);
    assert_int_equal(kc_reader_left(&r), 0);
    /* Value: version 4 with the topic id tagged. */
    kc_reader_init(&r, t->recs[0].value.data, t->recs[0].value.len);
    assert_int_equal(kc_read_int16(&r), 4);
    kc_offset_commit_value_t v;
    assert_int_equal(kc_offset_commit_value_decode(&r, 4, &t->arena, &v), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    assert_int_equal(v.offset, 5);
    assert_int_equal(v.leader_epoch, 3);
    assert_true(kc_str_eq_cstr(v.metadata, "meta"));
    assert_int_equal(v.commit_timestamp, t->now);
    assert_memory_equal(v.topic_id.b, topics_table[0].id.b, 16);
}

/* After OffsetMetadataManagerTest.testGenericGroupOffsetCommitWithRetentionTime
 * and GroupCoordinatorRecordHelpersTest.testNewOffsetCommitRecordWithExpireTimestamp:
 * OffsetCommit v2 with a retention time writes value v1 whose expire
 * timestamp is the commit time plus the retention; that expiry wins over the
 * (much longer) retention config: the next check tombstones the offset, then
 * deletes the simple group. */
static void retention_time_v2_writes_value_v1_and_expires(void **state)
{
    tctx_t *t = *state;
    cpart_t p = {"foo", {{0}}, 0, 10, "", -1};
    cmeta_t meta = {-1, "", NULL, 5000};
    commit(t, 2, "ret", meta, &p, 1);
    kc_reader_t r;
    kc_reader_init(&r, t->recs[0].value.data, t->recs[0].value.len);
    assert_int_equal(kc_read_int16(&r), 1);
    kc_offset_commit_value_t v;
    assert_int_equal(kc_offset_commit_value_decode(&r, 1, &t->arena, &v), 0);
    assert_int_equal(v.expire_timestamp, t->now + 5000);
    assert_int_equal(v.commit_timestamp, t->now);
    assert_replay_identical(t, (const char *const[]){"ret"}, 1);

    /* The explicit expire timestamp wins over the (much longer) retention config. */
    sleep_ms(t, t->cfg.offsets_retention_check_interval_ms);
    assert_int_equal(fetched_offset(t, "ret", "foo", 0), -1);
    /* The tombstone, then the simple group's deletion. */
    assert_true(t->nrecs >= 2);
    assert_true(t->recs[1].tombstone);
    assert_null(kc_classic_group_find(t->c, kc_str("ret")));
}

static void batched_fetch_v8_and_null_topics(void **state)
{
    tctx_t *t = *state;
    commit_one(t, 8, "a", "foo", 0, 1, NULL);
    commit_one(t, 8, "a", "bar", 1, 2, "b1");
    commit_one(t, 8, "a", "foo", 2, 3, NULL);
    commit_one(t, 8, "b", "bar", 0, 4, NULL);

    kc_offset_fetch_request_group_t g[3];
    memset(g, 0, sizeof(g));
    kc_offset_fetch_request_topics_t tp;
    memset(&tp, 0, sizeof(tp));
    int32_t parts[] = {0, 1};
    tp.name = kc_str("bar");
    tp.partition_indexes.items = parts;
    tp.partition_indexes.count = 2;
    g[0].group_id = kc_str("a");
    g[0].topics.count = -1;
    g[1].group_id = kc_str("b");
    g[1].topics.items = &tp;
    g[1].topics.count = 1;
    g[2].group_id = kc_str("unknown");
    g[2].topics.count = -1;
    for (int i = 0; i < 3; i++) {
        g[i].member_id = KC_STR_NULL;
        g[i].member_epoch = -1;
    }
    kc_offset_fetch_response_t f = fetch_groups(t, 8, g, 3);
    assert_int_equal(f.groups.count, 3);
    /* Group a, all topics, in the order of Kafka's tables: foo and bar
     * share slot 0 of a 2-slot table, as do partitions 0 and 2 of foo, and
     * a slot lists its later put first. */
    const __typeof__(f.groups.items[0]) *ga = &f.groups.items[0];
    assert_true(kc_str_eq_cstr(ga->group_id, "a"));
    assert_int_equal(ga->error_code, 0);
    assert_int_equal(ga->topics.count, 2);
    assert_true(kc_str_eq_cstr(ga->topics.items[0].name, "bar"));
    assert_int_equal(ga->topics.items[0].partitions.count, 1);
    assert_int_equal(ga->topics.items[0].partitions.items[0].committed_offset, 2);
    assert_true(kc_str_eq_cstr(ga->topics.items[0].partitions.items[0].metadata, "b1"));
    assert_true(kc_str_eq_cstr(ga->topics.items[1].name, "foo"));
    assert_int_equal(ga->topics.items[1].partitions.count, 2);
    assert_int_equal(ga->topics.items[1].partitions.items[0].partition_index, 2);
    assert_int_equal(ga->topics.items[1].partitions.items[0].committed_offset, 3);
    assert_int_equal(ga->topics.items[1].partitions.items[1].partition_index, 0);
    assert_int_equal(ga->topics.items[1].partitions.items[1].committed_offset, 1);
    /* Group b, two partitions of bar. */
    const __typeof__(f.groups.items[0]) *gb = &f.groups.items[1];
    assert_int_equal(gb->topics.count, 1);
    assert_int_equal(gb->topics.items[0].partitions.items[0].committed_offset, 4);
    assert_int_equal(gb->topics.items[0].partitions.items[1].committed_offset, -1);
    /* Unknown group, all topics: no error, no topics. */
    assert_int_equal(f.groups.items[2].error_code, 0);
    assert_int_equal(f.groups.items[2].topics.count, 0);

    /* v2 null topics at the top level. */
    kc_offset_fetch_response_t f2 = fetch_single(t, 2, "a", NULL, NULL, 0);
    assert_int_equal(f2.error_code, 0);
    assert_int_equal(f2.topics.count, 2);
    assert_int_equal(f2.topics.items[1].partitions.count, 2);
    assert_replay_identical(t, (const char *const[]){"a", "b"}, 2);
}

/* OffsetMetadataManagerTest.testFetchOffsetsWithUnknownGroup: OffsetFetch of
 * partitions of a group that does not exist answers each of them with offset
 * -1 and no error, and creates no group. */
static void test_fetch_offsets_with_unknown_group(void **state)
{
    tctx_t *t = *state;
    int32_t parts[] = {0, 5};
    kc_offset_fetch_response_t f = fetch_single(t, 3, "nobody", "whatever", parts, 2);
    assert_int_equal(f.error_code, 0);
    assert_int_equal(f.topics.count, 1);
    assert_int_equal(f.topics.items[0].partitions.count, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(f.topics.items[0].partitions.items[i].partition_index, parts[i]);
        assert_int_equal(f.topics.items[0].partitions.items[i].committed_offset, -1);
        assert_int_equal(f.topics.items[0].partitions.items[i].error_code, 0);
    }
    assert_null(kc_classic_group_find(t->c, kc_str("nobody")));
}

static void commit_to_unknown_topic_or_partition(void **state)
{
    tctx_t *t = *state;
    cpart_t p[] = {
        {"foo", {{0}}, 0, 1, NULL, -1},
        {"foo", {{0}}, 3, 1, NULL, -1}, /* foo has 3 partitions */
        {"nope", {{0}}, 0, 1, NULL, -1},
        {"bar", {{0}}, 1, 1, NULL, -1},
    };
    kc_offset_commit_response_t r = commit(t, 8, "u", NO_GROUP_INFO, p, 4);
    /* Failed topic checks come first, then the coordinator's answer merged by topic. */
    assert_int_equal(r.topics.count, 3);
    assert_true(kc_str_eq_cstr(r.topics.items[0].name, "foo"));
    assert_int_equal(r.topics.items[0].partitions.count, 2);
    assert_int_equal(r.topics.items[0].partitions.items[0].partition_index, 3);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 3);
    assert_int_equal(r.topics.items[0].partitions.items[1].partition_index, 0);
    assert_int_equal(r.topics.items[0].partitions.items[1].error_code, 0);
    assert_true(kc_str_eq_cstr(r.topics.items[1].name, "nope"));
    assert_int_equal(r.topics.items[1].partitions.items[0].error_code, 3);
    assert_true(kc_str_eq_cstr(r.topics.items[2].name, "bar"));
    assert_int_equal(r.topics.items[2].partitions.items[0].error_code, 0);
    assert_int_equal(t->nrecs, 2);

    /* Records were written: the error body answers NOT_COORDINATOR where the
     * coordinator was asked, keeping the topic-check errors. */
    kc_offset_commit_response_t e;
    kc_reader_t rd;
    kc_reader_init(&rd, last_error_body.data, last_error_body.len);
    assert_int_equal(kc_offset_commit_response_decode(&rd, 8, &t->arena, &e), 0);
    assert_int_equal(e.topics.items[0].partitions.items[0].error_code, 3);
    assert_int_equal(e.topics.items[0].partitions.items[1].error_code, 16);
    assert_int_equal(e.topics.items[2].partitions.items[0].error_code, 16);

    /* Only unknown topics: the coordinator is not asked, no group appears. */
    cpart_t q = {"nope", {{0}}, 0, 1, NULL, -1};
    cmeta_t meta = {5, "m", NULL, -1};
    r = commit(t, 9, "ghost", meta, &q, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 3);
    assert_int_equal(last_error_body.len, 0);
    assert_null(kc_classic_group_find(t->c, kc_str("ghost")));
}

/* After OffsetMetadataManagerTest.testConsumerGroupOffsetCommitWithOffsetMetadataTooLarge:
 * metadata over offset.metadata.max.bytes (counted in Java chars) fails that
 * partition alone with OFFSET_METADATA_TOO_LARGE; the other partitions are
 * written. */
static void metadata_too_large_per_partition(void **state)
{
    tctx_t *t = *state;
    /* Limit 10, counted in Java chars: ten 2-byte characters fit. */
    cpart_t p[] = {
        {"foo", {{0}}, 0, 1, "0123456789", -1},
        {"foo", {{0}}, 1, 1, "0123456789A", -1},
        {"foo", {{0}}, 2, 1, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", -1},
    };
    kc_offset_commit_response_t r = commit(t, 3, "meta", NO_GROUP_INFO, p, 3);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 0);
    assert_int_equal(r.topics.items[0].partitions.items[1].error_code, 12);
    assert_int_equal(r.topics.items[0].partitions.items[2].error_code, 0);
    assert_int_equal(t->nrecs, 2);
    assert_int_equal(fetched_offset(t, "meta", "foo", 1), -1);
}

/* OffsetMetadataManagerTest.testOffsetCommitWithUnknownGroup: a commit with a
 * member id and a generation to a group that does not exist is
 * ILLEGAL_GENERATION up to v8 and GROUP_ID_NOT_FOUND from v9; nothing is
 * written and no group is created. */
static void test_offset_commit_with_unknown_group(void **state)
{
    tctx_t *t = *state;
    cpart_t p = {"foo", {{0}}, 0, 1, NULL, -1};
    cmeta_t meta = {3, "member", NULL, -1};
    kc_offset_commit_response_t r = commit(t, 8, "none", meta, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 22);
    r = commit(t, 9, "none", meta, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 69);
    assert_int_equal(t->nrecs, 0);
    assert_int_equal(last_error_body.len, 0);
    assert_null(kc_classic_group_find(t->c, kc_str("none")));
}

/* Runs one OffsetCommit with stderr (the broker log) captured; returns
 * whether the log contains needle. */
static bool commit_logs(tctx_t *t, int16_t version, const char *group, cmeta_t meta,
                        const cpart_t *parts, int n, const char *needle)
{
    fflush(stderr);
    FILE *f = tmpfile();
    assert_non_null(f);
    int saved = dup(fileno(stderr));
    assert_true(saved >= 0);
    assert_true(dup2(fileno(f), fileno(stderr)) >= 0);
    commit(t, version, group, meta, parts, n);
    fflush(stderr);
    assert_true(dup2(saved, fileno(stderr)) >= 0);
    close(saved);
    char buf[4096];
    rewind(f);
    size_t got = fread(buf, 1, sizeof(buf) - 1, f);
    buf[got] = 0;
    fclose(f);
    fputs(buf, stderr);
    return strstr(buf, needle) != NULL;
}

/* A group-less commit creates the simple group, logged in Kafka's words. */
static void simple_group_creation_is_logged(void **state)
{
    tctx_t *t = *state;
    cpart_t p = {"foo", {{0}}, 0, 1, NULL, -1};
    cmeta_t meta = {-1, "", NULL, -1};
    assert_true(commit_logs(t, 8, "simple", meta, &p, 1,
                            "[GroupId simple] Creating a simple consumer group via manual offset "
                            "commit."));
    assert_non_null(kc_classic_group_find(t->c, kc_str("simple")));
    /* The group exists now: no second creation. */
    assert_false(commit_logs(t, 8, "simple", meta, &p, 1, "Creating a simple consumer group"));
}

/* After OffsetMetadataManagerTest.testGenericGroupOffsetCommitWithIllegalGeneration,
 * testGenericGroupOffsetCommitWithUnknownMemberId,
 * testGenericGroupOffsetCommitWithoutMemberIdAndGeneration and
 * testGenericGroupOffsetCommitMaintainsSession: commits to a Stable classic
 * group with another generation (ILLEGAL_GENERATION), an unknown member or no
 * identity (UNKNOWN_MEMBER_ID) write nothing; the member's own commit is
 * stored and counts as a heartbeat, so commits 20 s apart keep its 30 s
 * session. */
static void commit_validated_by_classic_group(void **state)
{
    tctx_t *t = *state;
    const char *subs[] = {"foo"};
    member_t m = make_stable_group(t, "cg", subs, 1);
    size_t before = t->nrecs;
    cpart_t p = {"foo", {{0}}, 0, 50, NULL, -1};

    cmeta_t wrong_gen = {m.generation + 1, m.member_id, NULL, -1};
    kc_offset_commit_response_t r = commit(t, 8, "cg", wrong_gen, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 22);
    cmeta_t unknown = {m.generation, "someone-else", NULL, -1};
    r = commit(t, 8, "cg", unknown, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 25);
    /* No identity on a non-empty group. */
    r = commit(t, 8, "cg", NO_GROUP_INFO, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 25);
    assert_int_equal(t->nrecs, before);

    cmeta_t ok = {m.generation, m.member_id, NULL, -1};
    r = commit(t, 8, "cg", ok, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 0);
    assert_int_equal(fetched_offset(t, "cg", "foo", 0), 50);

    /* Commits count as heartbeats: 20 s + 20 s with a 30 s session keep the member. */
    sleep_ms(t, 20000);
    r = commit(t, 8, "cg", ok, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 0);
    sleep_ms(t, 20000);
    r = commit(t, 8, "cg", ok, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 0);
    assert_replay_identical(t, (const char *const[]){"cg"}, 1);
}

static void commit_v10_with_topic_ids(void **state)
{
    tctx_t *t = *state;
    kc_uuid_t unknown = {{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}};
    cpart_t p[] = {{NULL, topics_table[1].id, 0, 11, NULL, -1}, {NULL, unknown, 0, 1, NULL, -1}};
    kc_offset_commit_response_t r = commit(t, 10, "ids", NO_GROUP_INFO, p, 2);
    assert_int_equal(r.topics.count, 2);
    /* Unknown id first (topic checks), then the coordinator's topic. */
    assert_memory_equal(r.topics.items[0].topic_id.b, unknown.b, 16);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 100);
    assert_memory_equal(r.topics.items[1].topic_id.b, topics_table[1].id.b, 16);
    assert_int_equal(r.topics.items[1].partitions.items[0].error_code, 0);
    assert_int_equal(fetched_offset(t, "ids", "bar", 0), 11);

    /* Fetch v10 by id, with an unknown id answered after the known ones. */
    kc_offset_fetch_request_group_t g;
    memset(&g, 0, sizeof(g));
    kc_offset_fetch_request_topics_t tp[2];
    memset(tp, 0, sizeof(tp));
    int32_t part = 0;
    tp[0].topic_id = unknown;
    tp[1].topic_id = topics_table[1].id;
    for (int i = 0; i < 2; i++) {
        tp[i].partition_indexes.items = &part;
        tp[i].partition_indexes.count = 1;
    }
    g.group_id = kc_str("ids");
    g.member_id = KC_STR_NULL;
    g.member_epoch = -1;
    g.topics.items = tp;
    g.topics.count = 2;
    kc_offset_fetch_response_t f = fetch_groups(t, 10, &g, 1);
    const __typeof__(f.groups.items[0]) *gr = &f.groups.items[0];
    assert_int_equal(gr->topics.count, 2);
    assert_memory_equal(gr->topics.items[0].topic_id.b, topics_table[1].id.b, 16);
    assert_int_equal(gr->topics.items[0].partitions.items[0].committed_offset, 11);
    assert_memory_equal(gr->topics.items[1].topic_id.b, unknown.b, 16);
    assert_int_equal(gr->topics.items[1].partitions.items[0].error_code, 100);
    assert_int_equal(gr->topics.items[1].partitions.items[0].committed_offset, -1);

    /* All topics at v10 carry ids. */
    g.topics.count = -1;
    f = fetch_groups(t, 10, &g, 1);
    assert_int_equal(f.groups.items[0].topics.count, 1);
    assert_memory_equal(f.groups.items[0].topics.items[0].topic_id.b, topics_table[1].id.b, 16);
}

static void offsets_of_empty_consumer_group_expire_and_group_is_deleted(void **state)
{
    tctx_t *t = *state;
    const char *subs[] = {"foo"};
    member_t m = make_stable_group(t, "exp", subs, 1);
    cpart_t p = {"foo", {{0}}, 1, 9, NULL, -1};
    cmeta_t ok = {m.generation, m.member_id, NULL, -1};
    commit(t, 8, "exp", ok, &p, 1);

    /* The member's session ends: the group becomes Empty now. */
    sleep_ms(t, 30000);
    assert_true(kc_classic_group_is_empty_state(kc_classic_group_find(t->c, kc_str("exp"))));
    int64_t empty_since = t->now;
    /* Checks before the retention is over leave the offset alone. */
    while (t->now + t->cfg.offsets_retention_check_interval_ms <
           empty_since + t->cfg.offsets_retention_ms)
        sleep_ms(t, t->cfg.offsets_retention_check_interval_ms);
    assert_int_equal(fetched_offset(t, "exp", "foo", 1), 9);
    size_t before = t->nrecs;
    sleep_ms(t, t->cfg.offsets_retention_check_interval_ms);
    assert_int_equal(fetched_offset(t, "exp", "foo", 1), -1);
    assert_null(kc_classic_group_find(t->c, kc_str("exp")));
    /* Offset tombstone first, then the group's tombstone (type 2). */
    assert_int_equal(t->nrecs, before + 2);
    assert_true(t->recs[before].tombstone);
    kc_reader_t r;
    kc_reader_init(&r, t->recs[before].key.data, t->recs[before].key.len);
    assert_int_equal(kc_read_int16(&r), 1);
    assert_true(t->recs[before + 1].tombstone);
    kc_reader_init(&r, t->recs[before + 1].key.data, t->recs[before + 1].key.len);
    assert_int_equal(kc_read_int16(&r), 2);
    assert_replay_identical(t, (const char *const[]){"exp"}, 1);
}

/* OffsetFetch v9 of a consumer group with a member epoch but a null member
 * id: Kafka looks the null id up and answers UNKNOWN_SERVER_ERROR; a null
 * id with epoch -1 and the member's own id and epoch see the offsets. */
static void fetch_with_epoch_and_null_member_id(void **state)
{
    tctx_t *t = *state;
    kc_consumer_group_heartbeat_request_t hb;
    kc_consumer_group_heartbeat_request_init(&hb);
    hb.group_id = kc_str("cg");
    hb.member_id = kc_str("member-a");
    hb.member_epoch = 0;
    hb.rebalance_timeout_ms = 30000;
    hb.subscribed_topic_names.count = 0;
    hb.topic_partitions.count = 0;
    kc_request_ctx_t hctx = rctx(t, KC_API_CONSUMER_GROUP_HEARTBEAT, 1);
    kc_coord_consumer_group_heartbeat(t->c, &hctx, &hb, &scratch);
    settle(t);
    kc_consumer_group_heartbeat_response_t hr;
    kc_reader_t r;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_consumer_group_heartbeat_response_decode(&r, 1, &t->arena, &hr), 0);
    assert_int_equal(hr.error_code, 0);
    assert_true(hr.member_epoch > 0);

    struct {
        kc_str_t member;
        int32_t epoch;
        int16_t want;
    } cases[] = {
        {KC_STR_NULL, hr.member_epoch, KC_ERR_UNKNOWN_SERVER_ERROR},
        {KC_STR_NULL, 0, KC_ERR_UNKNOWN_SERVER_ERROR},
        {KC_STR_NULL, -1, KC_ERR_NONE},
        {kc_str("member-a"), hr.member_epoch, KC_ERR_NONE},
        {kc_str("nobody"), hr.member_epoch, KC_ERR_UNKNOWN_MEMBER_ID},
    };
    for (size_t i = 0; i < KC_ARRAY_LEN(cases); i++) {
        kc_offset_fetch_request_group_t g;
        memset(&g, 0, sizeof(g));
        g.group_id = kc_str("cg");
        g.topics.count = -1;
        g.member_id = cases[i].member;
        g.member_epoch = cases[i].epoch;
        kc_offset_fetch_response_t f = fetch_groups(t, 9, &g, 1);
        assert_int_equal(f.groups.count, 1);
        assert_int_equal(f.groups.items[0].error_code, cases[i].want);
    }
}

/* Topic names of group ord's offsets as OffsetFetch v8 lists them, comma-separated. */
static const char *all_topics_order(tctx_t *t)
{
    kc_offset_fetch_request_group_t g;
    memset(&g, 0, sizeof(g));
    g.group_id = kc_str("ord");
    g.topics.count = -1;
    g.member_id = KC_STR_NULL;
    g.member_epoch = -1;
    kc_offset_fetch_response_t f = fetch_groups(t, 8, &g, 1);
    static char out[256];
    out[0] = 0;
    for (int32_t i = 0; i < f.groups.items[0].topics.count; i++) {
        if (i)
            strcat(out, ",");
        strncat(out, f.groups.items[0].topics.items[i].name.ptr,
                (size_t)f.groups.items[0].topics.items[i].name.len);
    }
    return out;
}

/* OffsetFetch of all topics lists a group's offsets in the order of
 * Kafka's tables (slot, then the later put first): foo, bar and baz all
 * fall in slot 0 of the 4-slot table; bar's offsets deleted and committed
 * again make it a new entry, first in its slot. */
static void fetch_all_in_kafka_table_order_after_removal(void **state)
{
    tctx_t *t = *state;
    commit_one(t, 8, "ord", "foo", 0, 1, NULL);
    commit_one(t, 8, "ord", "bar", 0, 2, NULL);
    commit_one(t, 8, "ord", "baz", 0, 3, NULL);
    assert_string_equal(all_topics_order(t), "baz,bar,foo");
    kc_buf_t key;
    kc_buf_init(&key);
    kc_write_int16(&key, 1);
    kc_write_str(&key, kc_str("ord"), false);
    kc_write_str(&key, kc_str("bar"), false);
    kc_write_int32(&key, 0);
    assert_int_equal(ct_replay(t, &key, NULL), 0); /* a tombstone of bar-0, as if committed */
    kc_buf_deinit(&key);
    assert_string_equal(all_topics_order(t), "baz,foo");
    commit_one(t, 8, "ord", "bar", 0, 4, NULL);
    assert_string_equal(all_topics_order(t), "bar,baz,foo");
}

/* After OffsetMetadataManagerTest.testCleanupExpiredOffsets: a simple group's
 * offsets expire a retention after their own commit time: the older one goes
 * at the first check past it while the later one stays, and so does the
 * group. */
static void simple_group_offsets_expire_from_commit_time(void **state)
{
    tctx_t *t = *state;
    commit_one(t, 5, "simple", "foo", 0, 1, NULL);
    sleep_ms(t, t->cfg.offsets_retention_ms / 2);
    commit_one(t, 5, "simple", "bar", 0, 2, NULL);
    /* First offset is past retention at the next check after retention. */
    while (t->now < 1000000 + t->cfg.offsets_retention_ms)
        sleep_ms(t, t->cfg.offsets_retention_check_interval_ms);
    assert_int_equal(fetched_offset(t, "simple", "foo", 0), -1);
    assert_int_equal(fetched_offset(t, "simple", "bar", 0), 2);
    assert_non_null(kc_classic_group_find(t->c, kc_str("simple")));
}

/* After OffsetMetadataManagerTest.testGenericGroupOffsetDeleteWithErrors and
 * testGenericGroupOffsetDelete: OffsetDelete of an empty group id is
 * INVALID_GROUP_ID and of an unknown group GROUP_ID_NOT_FOUND; on a classic
 * group an unknown topic is UNKNOWN_TOPIC_OR_PARTITION, a subscribed one
 * GROUP_SUBSCRIBED_TO_TOPIC, and another topic's offsets are deleted with one
 * tombstone per stored offset. */
static void offset_delete_errors_and_tombstones(void **state)
{
    tctx_t *t = *state;
    kc_offset_delete_request_t req;
    kc_offset_delete_request_init(&req);
    kc_offset_delete_request_topic_t tps[3];
    kc_offset_delete_request_partition_t ps[3][2];
    memset(tps, 0, sizeof(tps));
    memset(ps, 0, sizeof(ps));
    const char *names[] = {"foo", "bar", "nope"};
    for (int i = 0; i < 3; i++) {
        tps[i].name = kc_str(names[i]);
        ps[i][0].partition_index = 0;
        ps[i][1].partition_index = 1;
        tps[i].partitions.items = ps[i];
        tps[i].partitions.count = 2;
    }
    req.topics.items = tps;
    req.topics.count = 3;
    kc_offset_delete_response_t resp;
    kc_reader_t r;

#define DELETE(group)                                                                          \
    do {                                                                                       \
        req.group_id = kc_str(group);                                                          \
        kc_request_ctx_t ctx_ = rctx(t, KC_API_OFFSET_DELETE, 0);                              \
        kc_coord_offset_delete(t->c, &ctx_, &req, &scratch);                                    \
        settle(t);                                                                             \
        kc_reader_init(&r, last_body.data, last_body.len);                               \
        assert_int_equal(kc_offset_delete_response_decode(&r, 0, &t->arena, &resp), 0);       \
    } while (0)

    DELETE("");
    assert_int_equal(resp.error_code, 24);
    DELETE("missing");
    assert_int_equal(resp.error_code, 69);
    assert_int_equal(resp.topics.count, 0);

    const char *subs[] = {"foo"};
    member_t m = make_stable_group(t, "del", subs, 1);
    cmeta_t ok = {m.generation, m.member_id, NULL, -1};
    cpart_t p[] = {{"foo", {{0}}, 0, 1, NULL, -1}, {"bar", {{0}}, 0, 2, NULL, -1}};
    commit(t, 8, "del", ok, p, 2);
    size_t before = t->nrecs;
    DELETE("del");
    assert_int_equal(resp.error_code, 0);
    assert_int_equal(resp.topics.count, 3);
    assert_true(kc_str_eq_cstr(resp.topics.items[0].name, "nope"));
    assert_int_equal(resp.topics.items[0].partitions.items[0].error_code, 3);
    assert_int_equal(resp.topics.items[0].partitions.items[1].error_code, 3);
    assert_true(kc_str_eq_cstr(resp.topics.items[1].name, "foo"));
    assert_int_equal(resp.topics.items[1].partitions.items[0].error_code, 86);
    assert_int_equal(resp.topics.items[1].partitions.items[1].error_code, 86);
    assert_true(kc_str_eq_cstr(resp.topics.items[2].name, "bar"));
    assert_int_equal(resp.topics.items[2].partitions.items[0].error_code, 0);
    assert_int_equal(resp.topics.items[2].partitions.items[1].error_code, 0);
    /* One tombstone: bar-0 had an offset, bar-1 did not. */
    assert_int_equal(t->nrecs, before + 1);
    assert_true(t->recs[before].tombstone);
    assert_true(last_error_body.len > 0);
    assert_int_equal(fetched_offset(t, "del", "bar", 0), -1);
    assert_int_equal(fetched_offset(t, "del", "foo", 0), 1);
    assert_replay_identical(t, (const char *const[]){"del"}, 1);
#undef DELETE
}

/* After OffsetMetadataManagerTest.testOnTopicsDeletedWithZeroTopicId:
 * deleting a topic tombstones its offsets in every group and leaves the other
 * topics' offsets. */
static void topic_deletion_tombstones_every_group(void **state)
{
    tctx_t *t = *state;
    commit_one(t, 8, "g1", "foo", 0, 1, NULL);
    commit_one(t, 8, "g1", "foo", 1, 1, NULL);
    commit_one(t, 8, "g1", "bar", 0, 1, NULL);
    commit_one(t, 8, "g2", "foo", 2, 1, NULL);
    size_t before = t->nrecs;
    topics_table[0].deleted = true;
    kc_coord_topic_deleted(t->c, kc_str("foo"), t->now, &scratch);
    settle(t);
    assert_int_equal(t->nrecs, before + 3);
    for (size_t i = before; i < t->nrecs; i++)
        assert_true(t->recs[i].tombstone);
    kc_offset_fetch_response_t f = fetch_single(t, 2, "g1", NULL, NULL, 0);
    assert_int_equal(f.topics.count, 1);
    assert_true(kc_str_eq_cstr(f.topics.items[0].name, "bar"));
    f = fetch_single(t, 2, "g2", NULL, NULL, 0);
    assert_int_equal(f.topics.count, 0);
    assert_replay_identical(t, (const char *const[]){"g1", "g2"}, 2);
}

static void legacy_record_type0_replays(void **state)
{
    tctx_t *t = *state;
    kc_buf_t key, value;
    kc_buf_init(&key);
    kc_buf_init(&value);
    kc_write_int16(&key, 0);
    kc_write_str(&key, kc_str("old"), false);
    kc_write_str(&key, kc_str("foo"), false);
    kc_write_int32(&key, 2);
    kc_write_int16(&value, 0);
    kc_write_int64(&value, 1234);
    kc_write_str(&value, kc_str("legacy"), false);
    kc_write_int64(&value, 55);
    /* A coordinator loading a log that holds the legacy record. */
    tctx_t *old =
        ct_new(&(ct_opts_t){.cfg = &t->cfg, .topics = &view, .now_ms = t->now, .unloaded = true});
    assert_int_equal(ct_replay(old, &key, &value), 0);
    /* Truncated values and unknown versions are rejected. */
    assert_int_equal(kc_coord_replay(old->c, key.data, key.len, value.data, value.len - 1),
                     KC_EINVAL);
    value.data[1] = 5;
    assert_int_equal(kc_coord_replay(old->c, key.data, key.len, value.data, value.len), KC_EINVAL);
    ct_load(old);
    assert_int_equal(fetched_offset(old, "old", "foo", 2), 1234);
    int32_t part = 2;
    kc_offset_fetch_response_t f = fetch_single(old, 1, "old", "foo", &part, 1);
    assert_true(kc_str_eq_cstr(f.topics.items[0].partitions.items[0].metadata, "legacy"));
    ct_free(old);
    kc_buf_deinit(&key);
    kc_buf_deinit(&value);
}

static void requests_while_loading_get_load_in_progress(void **state)
{
    tctx_t *t = *state;
    kc_coord_t *saved = t->c;
    t->c = kc_coord_new(&t->cfg, &view);
    cpart_t p = {"foo", {{0}}, 0, 1, NULL, -1};
    kc_offset_commit_response_t r = commit(t, 8, "g", NO_GROUP_INFO, &p, 1);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, 14);
    int32_t part = 0;
    kc_offset_fetch_response_t f = fetch_single(t, 5, "g", "foo", &part, 1);
    assert_int_equal(f.error_code, 14);
    assert_int_equal(f.topics.count, 0);
    f = fetch_single(t, 1, "g", "foo", &part, 1);
    assert_int_equal(f.topics.items[0].partitions.items[0].error_code, 14);
    assert_int_equal(t->nrecs, 0);
    kc_coord_free(t->c);
    t->c = saved;
}

/* ---- TxnOffsetCommit ---------------------------------------------------- */

#define TXN_PID 5000

/* TxnOffsetCommit of one partition of "foo" by producer TXN_PID; the partition's error. */
static int16_t txn_commit(tctx_t *t, int16_t version, const char *group, cmeta_t meta,
                          const char *topic, int32_t partition, int64_t offset,
                          int16_t txn_error)
{
    kc_txn_offset_commit_request_t req;
    kc_txn_offset_commit_request_init(&req);
    req.transactional_id = kc_str("tx");
    req.group_id = kc_str(group);
    req.producer_id = TXN_PID;
    req.producer_epoch = 0;
    req.generation_id_or_member_epoch = meta.generation;
    req.member_id = kc_str(meta.member_id);
    req.group_instance_id = meta.instance_id ? kc_str(meta.instance_id) : KC_STR_NULL;
    kc_txn_offset_commit_request_topic_t tp;
    memset(&tp, 0, sizeof(tp));
    kc_txn_offset_commit_request_partition_t part;
    memset(&part, 0, sizeof(part));
    tp.name = kc_str(topic);
    if (version >= 6 && find_topic(tp.name))
        tp.topic_id = find_topic(tp.name)->id; /* v6 names topics by id */
    part.partition_index = partition;
    part.committed_offset = offset;
    part.committed_leader_epoch = -1;
    part.committed_metadata = kc_str("m");
    tp.partitions.items = &part;
    tp.partitions.count = 1;
    req.topics.items = &tp;
    req.topics.count = 1;
    kc_request_ctx_t ctx = rctx(t, KC_API_TXN_OFFSET_COMMIT, version);
    kc_coord_txn_offset_commit(t->c, &ctx, &req, txn_error, &scratch);
    assert_int_equal(scratch.nresponses, 1);
    settle(t);
    kc_txn_offset_commit_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_txn_offset_commit_response_decode(&r, version, &t->arena, &resp), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    assert_int_equal(resp.topics.count, 1);
    assert_int_equal(resp.topics.items[0].partitions.count, 1);
    assert_int_equal(resp.topics.items[0].partitions.items[0].partition_index, partition);
    return resp.topics.items[0].partitions.items[0].error_code;
}

/* OffsetFetch v7 of one partition with RequireStable: its error, *offset its offset. */
static int16_t fetch_stable(tctx_t *t, const char *group, const char *topic, int32_t partition,
                            int64_t *offset)
{
    kc_offset_fetch_request_t req;
    kc_offset_fetch_request_init(&req);
    req.group_id = kc_str(group);
    req.require_stable = true;
    kc_offset_fetch_request_topic_t tp;
    memset(&tp, 0, sizeof(tp));
    tp.name = kc_str(topic);
    tp.partition_indexes.items = &partition;
    tp.partition_indexes.count = 1;
    req.topics.items = &tp;
    req.topics.count = 1;
    kc_request_ctx_t ctx = rctx(t, KC_API_OFFSET_FETCH, 7);
    kc_coord_offset_fetch(t->c, &ctx, &req, &scratch);
    settle(t);
    kc_offset_fetch_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, last_body.data, last_body.len);
    assert_int_equal(kc_offset_fetch_response_decode(&r, 7, &t->arena, &resp), 0);
    *offset = resp.topics.items[0].partitions.items[0].committed_offset;
    return resp.topics.items[0].partitions.items[0].error_code;
}

/* The end of TXN_PID's transaction as its marker in the group's offsets partition does it. */
static void txn_end(tctx_t *t, const char *group, bool commit)
{
    kc_coord_txn_offsets_end(t->c, TXN_PID, commit,
                             kc_coord_offsets_partition_for(t->c, kc_str(group)), &scratch);
    settle(t);
}

static void txn_offsets_pending_until_the_commit_marker(void **state)
{
    tctx_t *t = *state;
    const char *subs[] = {"foo"};
    member_t m = make_stable_group(t, "cg", subs, 1);
    cmeta_t member = {m.generation, m.member_id, NULL, -1};
    int64_t off;
    assert_int_equal(txn_commit(t, 3, "cg", member, "foo", 0, 70, KC_ERR_NONE), KC_ERR_NONE);
    /* Invisible to OffsetFetch; unstable with RequireStable. */
    assert_int_equal(fetched_offset(t, "cg", "foo", 0), -1);
    assert_int_equal(fetch_stable(t, "cg", "foo", 0, &off), KC_ERR_UNSTABLE_OFFSET_COMMIT);
    assert_int_equal(off, -1);
    /* A marker in another offsets partition leaves them pending. */
    int32_t mine = kc_coord_offsets_partition_for(t->c, kc_str("cg"));
    kc_coord_txn_offsets_end(t->c, TXN_PID, true, (mine + 1) % 50, &scratch);
    assert_int_equal(settle(t), 0);
    ct_check_replay(t);
    txn_end(t, "cg", true);
    assert_int_equal(fetched_offset(t, "cg", "foo", 0), 70);
    assert_int_equal(fetch_stable(t, "cg", "foo", 0, &off), KC_ERR_NONE);
    assert_int_equal(off, 70);
    /* An aborted transaction's offsets are dropped. */
    assert_int_equal(txn_commit(t, 3, "cg", member, "foo", 0, 80, KC_ERR_NONE), KC_ERR_NONE);
    assert_int_equal(fetch_stable(t, "cg", "foo", 0, &off), KC_ERR_UNSTABLE_OFFSET_COMMIT);
    ct_check_replay(t);
    txn_end(t, "cg", false);
    assert_int_equal(fetch_stable(t, "cg", "foo", 0, &off), KC_ERR_NONE);
    assert_int_equal(off, 70);
    assert_replay_identical(t, (const char *const[]){"cg"}, 1);
}

static void txn_offset_commit_checks(void **state)
{
    tctx_t *t = *state;
    const char *subs[] = {"foo"};
    member_t m = make_stable_group(t, "cg", subs, 1);
    size_t before = t->nrecs;
    cmeta_t wrong_gen = {m.generation + 1, m.member_id, NULL, -1};
    assert_int_equal(txn_commit(t, 3, "cg", wrong_gen, "foo", 0, 1, KC_ERR_NONE),
                     KC_ERR_ILLEGAL_GENERATION);
    cmeta_t unknown = {m.generation, "someone-else", NULL, -1};
    assert_int_equal(txn_commit(t, 3, "cg", unknown, "foo", 0, 1, KC_ERR_NONE),
                     KC_ERR_UNKNOWN_MEMBER_ID);
    cmeta_t unknown_instance = {m.generation, m.member_id, "inst", -1};
    assert_int_equal(txn_commit(t, 3, "cg", unknown_instance, "foo", 0, 1, KC_ERR_NONE),
                     KC_ERR_UNKNOWN_MEMBER_ID);
    /* An unknown group with a generation. */
    cmeta_t gen = {5, "x", NULL, -1};
    assert_int_equal(txn_commit(t, 6, "nogroup", gen, "foo", 0, 1, KC_ERR_NONE),
                     KC_ERR_GROUP_ID_NOT_FOUND);
    assert_int_equal(txn_commit(t, 5, "nogroup", gen, "foo", 0, 1, KC_ERR_NONE),
                     KC_ERR_ILLEGAL_GENERATION);
    /* The transaction coordinator's verdict, after the topic checks. */
    assert_int_equal(txn_commit(t, 3, "cg", NO_GROUP_INFO, "foo", 0, 1, KC_ERR_PRODUCER_FENCED),
                     KC_ERR_PRODUCER_FENCED);
    assert_int_equal(txn_commit(t, 3, "cg", NO_GROUP_INFO, "nope", 0, 1, KC_ERR_PRODUCER_FENCED),
                     KC_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(txn_commit(t, 3, "cg", NO_GROUP_INFO, "foo", 9, 1, KC_ERR_NONE),
                     KC_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(t->nrecs, before);
    /* No member named: a transactional commit is accepted even while the
     * group has members (an OffsetCommit would get UNKNOWN_MEMBER_ID). */
    assert_int_equal(txn_commit(t, 3, "cg", NO_GROUP_INFO, "foo", 1, 11, KC_ERR_NONE),
                     KC_ERR_NONE);
    assert_int_equal(t->nrecs, before + 1);
    txn_end(t, "cg", true);
    assert_int_equal(fetched_offset(t, "cg", "foo", 1), 11);
    assert_replay_identical(t, (const char *const[]){"cg"}, 1);
}

static void txn_offsets_of_a_deleted_group_are_dropped(void **state)
{
    tctx_t *t = *state;
    /* A simple group made by the transactional commit itself. */
    assert_int_equal(txn_commit(t, 3, "sg", NO_GROUP_INFO, "foo", 0, 5, KC_ERR_NONE),
                     KC_ERR_NONE);
    kc_delete_groups_request_t req;
    kc_delete_groups_request_init(&req);
    kc_str_t names[1] = {kc_str("sg")};
    req.groups_names.items = names;
    req.groups_names.count = 1;
    kc_request_ctx_t ctx = rctx(t, KC_API_DELETE_GROUPS, 2);
    kc_coord_delete_groups(t->c, &ctx, &req, &scratch);
    assert_true(settle(t) > 0);
    /* The commit marker finds nothing of the group left. */
    txn_end(t, "sg", true);
    int64_t off;
    assert_int_equal(fetch_stable(t, "sg", "foo", 0, &off), KC_ERR_NONE);
    assert_int_equal(off, -1);
    ct_check_replay(t);
}

/* At the commit marker a transactional offset is kept only where no
 * non-transactional commit of the partition was written after it (Kafka
 * keeps the newer by record offset, OffsetMetadataManager
 * .replayEndTransactionMarker); the deletion of the partition's offset
 * drops the pending one (OffsetMetadataManager.replay of a tombstone);
 * over a replay too. */
static void txn_offset_loses_to_a_newer_plain_commit(void **state)
{
    tctx_t *t = *state;
    /* Written before the transactional one: the transaction's wins. */
    commit_one(t, 8, "sg", "foo", 0, 10, "");
    assert_int_equal(txn_commit(t, 3, "sg", NO_GROUP_INFO, "foo", 0, 20, KC_ERR_NONE),
                     KC_ERR_NONE);
    /* Written after it: the plain commit stays. */
    assert_int_equal(txn_commit(t, 3, "sg", NO_GROUP_INFO, "foo", 1, 21, KC_ERR_NONE),
                     KC_ERR_NONE);
    commit_one(t, 8, "sg", "foo", 1, 31, "");
    /* Written after, then deleted: the deletion drops the pending offset too. */
    assert_int_equal(txn_commit(t, 3, "sg", NO_GROUP_INFO, "foo", 2, 22, KC_ERR_NONE),
                     KC_ERR_NONE);
    commit_one(t, 8, "sg", "foo", 2, 32, "");
    kc_offset_delete_request_t del;
    kc_offset_delete_request_init(&del);
    kc_offset_delete_request_partition_t dp = {.partition_index = 2};
    kc_offset_delete_request_topic_t dt = {.name = kc_str("foo"), .partitions = {&dp, 1}};
    del.group_id = kc_str("sg");
    del.topics.items = &dt;
    del.topics.count = 1;
    kc_request_ctx_t dctx = rctx(t, KC_API_OFFSET_DELETE, 0);
    kc_coord_offset_delete(t->c, &dctx, &del, &scratch);
    assert_int_equal(settle(t), 2); /* the offset's tombstone and the pending one's */
    assert_int_equal(fetched_offset(t, "sg", "foo", 2), -1);
    int64_t off;
    assert_int_equal(fetch_stable(t, "sg", "foo", 2, &off), KC_ERR_NONE);
    /* Written after, then the transaction wrote the partition again: its newer offset wins. */
    assert_int_equal(txn_commit(t, 3, "sg", NO_GROUP_INFO, "bar", 0, 23, KC_ERR_NONE),
                     KC_ERR_NONE);
    commit_one(t, 8, "sg", "bar", 0, 33, "");
    assert_int_equal(txn_commit(t, 3, "sg", NO_GROUP_INFO, "bar", 0, 43, KC_ERR_NONE),
                     KC_ERR_NONE);
    ct_check_replay(t);
    txn_end(t, "sg", true);
    assert_int_equal(fetched_offset(t, "sg", "foo", 0), 20);
    assert_int_equal(fetched_offset(t, "sg", "foo", 1), 31);
    assert_int_equal(fetched_offset(t, "sg", "foo", 2), -1);
    assert_int_equal(fetched_offset(t, "sg", "bar", 0), 43);
    assert_int_equal(fetch_stable(t, "sg", "foo", 1, &off), KC_ERR_NONE);
    assert_int_equal(off, 31);
    assert_replay_identical(t, (const char *const[]){"sg"}, 1);
}

/* Retention keeps an expired offset of a partition a transaction holds a
 * pending offset of, and the group with it (OffsetMetadataManager
 * .cleanupExpiredOffsets); after the transaction they expire. */
static void txn_pending_offsets_hold_off_expiry(void **state)
{
    tctx_t *t = *state;
    commit_one(t, 5, "eg", "foo", 0, 1, NULL);
    commit_one(t, 5, "eg", "foo", 1, 2, NULL);
    int64_t start = t->now;
    assert_int_equal(txn_commit(t, 3, "eg", NO_GROUP_INFO, "foo", 0, 7, KC_ERR_NONE),
                     KC_ERR_NONE);
    while (t->now < start + t->cfg.offsets_retention_ms + t->cfg.offsets_retention_check_interval_ms)
        sleep_ms(t, t->cfg.offsets_retention_check_interval_ms);
    /* foo-1 expired; foo-0 stays while the transaction holds an offset of it. */
    assert_int_equal(fetched_offset(t, "eg", "foo", 1), -1);
    assert_int_equal(fetched_offset(t, "eg", "foo", 0), 1);
    ct_check_replay(t);
    txn_end(t, "eg", false);
    sleep_ms(t, t->cfg.offsets_retention_check_interval_ms);
    assert_int_equal(fetched_offset(t, "eg", "foo", 0), -1);
    assert_null(kc_classic_group_find(t->c, kc_str("eg")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(commit_v0_then_fetch_v1_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(commit_v7_leader_epoch_is_fetched_from_v5, setup, teardown),
        cmocka_unit_test_setup_teardown(record_layout_matches_kafka, setup, teardown),
        cmocka_unit_test_setup_teardown(retention_time_v2_writes_value_v1_and_expires, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(batched_fetch_v8_and_null_topics, setup, teardown),
        cmocka_unit_test_setup_teardown(fetch_with_epoch_and_null_member_id, setup, teardown),
        cmocka_unit_test_setup_teardown(fetch_all_in_kafka_table_order_after_removal, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_fetch_offsets_with_unknown_group, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(commit_to_unknown_topic_or_partition, setup, teardown),
        cmocka_unit_test_setup_teardown(metadata_too_large_per_partition, setup, teardown),
        cmocka_unit_test_setup_teardown(simple_group_creation_is_logged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_offset_commit_with_unknown_group, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(commit_validated_by_classic_group, setup, teardown),
        cmocka_unit_test_setup_teardown(commit_v10_with_topic_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(offsets_of_empty_consumer_group_expire_and_group_is_deleted,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(simple_group_offsets_expire_from_commit_time, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(offset_delete_errors_and_tombstones, setup, teardown),
        cmocka_unit_test_setup_teardown(topic_deletion_tombstones_every_group, setup, teardown),
        cmocka_unit_test_setup_teardown(legacy_record_type0_replays, setup, teardown),
        cmocka_unit_test_setup_teardown(acl_topics_of_commit_and_fetch_are_authorized, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(acl_list_groups_filters_by_describe, setup, teardown),
        cmocka_unit_test_setup_teardown(requests_while_loading_get_load_in_progress, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(txn_offsets_pending_until_the_commit_marker, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(txn_offset_commit_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(txn_offsets_of_a_deleted_group_are_dropped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(txn_offset_loses_to_a_newer_plain_commit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(txn_pending_offsets_hold_off_expiry, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
