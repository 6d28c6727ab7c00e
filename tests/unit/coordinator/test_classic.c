/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Classic group coordinator tests, after the classic cases of Kafka's
 * GroupMetadataManagerTest: a fake clock, requests built as generated
 * structs, responses decoded with the generated decoders, and after each
 * scenario a fresh coordinator rebuilt from the emitted records whose hard
 * state must equal the original's.
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

/* ---- test context: coord_test.h ---------------------------------------- */

typedef ct_t ctx_t;
typedef ct_response_t resp_t;
typedef ct_record_t rec_t;

static ctx_t *ctx_new_cfg(const kc_coord_config_t *cfg)
{
    return ct_new(&(ct_opts_t){.cfg = cfg, .seed = 42});
}

static ctx_t *ctx_new(void) { return ct_new(&(ct_opts_t){.seed = 42}); }

/* Consumer protocol subscription v0 to one topic. */
static kc_bytes_t subscription(ctx_t *t, const char *topic)
{
    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_int16(&b, 0);
    kc_write_int32(&b, 1);
    kc_write_str(&b, kc_str(topic), false);
    kc_write_int32(&b, -1);
    uint8_t *p = kc_arena_alloc(&t->arena, b.len);
    memcpy(p, b.data, b.len);
    kc_bytes_t out = {p, (int32_t)b.len};
    kc_buf_deinit(&b);
    return out;
}

typedef struct {
    const char *member_id;
    const char *instance_id;
    const char *protocol;  /* default "range" */
    const char *protocol2; /* a second protocol, listed after the first */
    const char *topic;     /* default "foo" */
    int32_t session_ms;    /* default 10000 */
    int32_t rebalance_ms;  /* default 10000 */
    int16_t version;       /* default 5 */
    const char *group;     /* default "grp" */
} join_args_t;

static int32_t send_join(ctx_t *t, join_args_t a)
{
    kc_join_group_request_t req;
    kc_join_group_request_init(&req);
    int16_t v = a.version ? a.version : 5;
    req.group_id = kc_str(a.group ? a.group : "grp");
    req.session_timeout_ms = a.session_ms ? a.session_ms : 10000;
    req.rebalance_timeout_ms = a.rebalance_ms ? a.rebalance_ms : 10000;
    req.member_id = kc_str(a.member_id ? a.member_id : "");
    req.group_instance_id = kc_str(a.instance_id);
    req.protocol_type = kc_str("consumer");
    req.protocols.count = a.protocol2 ? 2 : 1;
    req.protocols.items = kc_arena_alloc(&t->arena, 2 * sizeof(*req.protocols.items));
    req.protocols.items[0].name = kc_str(a.protocol ? a.protocol : "range");
    req.protocols.items[0].metadata = subscription(t, a.topic ? a.topic : "foo");
    req.protocols.items[1].name = kc_str(a.protocol2);
    req.protocols.items[1].metadata = subscription(t, a.topic ? a.topic : "foo");
    kc_request_ctx_t x = ct_rctx(t, KC_API_JOIN_GROUP, v);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_join_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    return x.correlation_id;
}

static bool join_resp(ctx_t *t, int32_t corr, kc_join_group_response_t *out)
{
    resp_t *r = ct_find_resp(t, corr);
    if (!r)
        return false;
    assert_int_equal(r->api_key, KC_API_JOIN_GROUP);
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_join_group_response_decode(&rd, r->version, &t->arena, out), 0);
    assert_int_equal(kc_reader_left(&rd), 0);
    return true;
}

static int32_t send_sync(ctx_t *t, const char *member_id, const char *instance_id, int32_t gen,
                         int nassign, const char **ids, const char **assignments, int16_t version)
{
    kc_sync_group_request_t req;
    kc_sync_group_request_init(&req);
    req.group_id = kc_str("grp");
    req.generation_id = gen;
    req.member_id = kc_str(member_id);
    req.group_instance_id = kc_str(instance_id);
    req.assignments.count = nassign;
    req.assignments.items = nassign ? kc_arena_alloc(&t->arena, (size_t)nassign * sizeof(*req.assignments.items)) : NULL;
    for (int i = 0; i < nassign; i++) {
        req.assignments.items[i].member_id = kc_str(ids[i]);
        req.assignments.items[i].assignment =
            (kc_bytes_t){(const uint8_t *)assignments[i], (int32_t)strlen(assignments[i])};
    }
    kc_request_ctx_t x = ct_rctx(t, KC_API_SYNC_GROUP, version ? version : 3);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_sync_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    return x.correlation_id;
}

static bool sync_resp(ctx_t *t, int32_t corr, kc_sync_group_response_t *out)
{
    resp_t *r = ct_find_resp(t, corr);
    if (!r)
        return false;
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_sync_group_response_decode(&rd, r->version, &t->arena, out), 0);
    return true;
}

static int16_t heartbeat(ctx_t *t, const char *member_id, const char *instance_id, int32_t gen)
{
    kc_heartbeat_request_t req;
    kc_heartbeat_request_init(&req);
    req.group_id = kc_str("grp");
    req.generation_id = gen;
    req.member_id = kc_str(member_id);
    req.group_instance_id = kc_str(instance_id);
    kc_request_ctx_t x = ct_rctx(t, KC_API_HEARTBEAT, 3);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_heartbeat(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    resp_t *r = ct_find_resp(t, x.correlation_id);
    assert_non_null(r);
    kc_heartbeat_response_t out;
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_heartbeat_response_decode(&rd, 3, &t->arena, &out), 0);
    return out.error_code;
}

/* Runs a full join + sync of one dynamic member; returns its member id. */
static char *join_and_sync_single(ctx_t *t)
{
    int32_t c1 = send_join(t, (join_args_t){0});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, c1, &jr));
    assert_int_equal(jr.error_code, 79);
    char *mid = ct_cstr(t, jr.member_id);
    int32_t c2 = send_join(t, (join_args_t){.member_id = mid});
    ct_jump(t, 3000);
    assert_true(join_resp(t, c2, &jr));
    assert_int_equal(jr.error_code, 0);
    const char *ids[] = {mid};
    const char *as[] = {"A1"};
    int32_t c3 = send_sync(t, mid, NULL, jr.generation_id, 1, ids, as, 3);
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, c3, &sr));
    assert_int_equal(sr.error_code, 0);
    return mid;
}

/* GroupMetadataManagerTest.testSyncGroupAsLeaderAppendFailureTransformsError:
 * the leader's SyncGroup writes the group record; when that write fails (a
 * storage error) the answer is NOT_COORDINATOR, as
 * appendGroupMetadataErrorToResponseError maps it. */
static void test_sync_group_as_leader_append_failure_transforms_error(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t c1 = send_join(t, (join_args_t){0});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, c1, &jr));
    char *mid = ct_cstr(t, jr.member_id);
    int32_t c2 = send_join(t, (join_args_t){.member_id = mid});
    ct_jump(t, 3000);
    assert_true(join_resp(t, c2, &jr));
    const char *ids[] = {mid};
    const char *as[] = {"A1"};
    int32_t c3 = send_sync(t, mid, NULL, jr.generation_id, 1, ids, as, 3);
    resp_t *r = ct_find_resp(t, c3);
    assert_non_null(r);
    assert_true(r->error_body.len > 0);
    kc_sync_group_response_t sr;
    kc_reader_t rd;
    kc_reader_init(&rd, r->error_body.data, r->error_body.len);
    assert_int_equal(kc_sync_group_response_decode(&rd, r->version, &t->arena, &sr), 0);
    assert_int_equal(sr.error_code, 16);
    ct_free(t);
}

/* ---- log capture: the broker logs to stderr ---------------------------- */

static int saved_stderr = -1;
static FILE *capture_file;

static void log_capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    assert_non_null(capture_file);
    saved_stderr = dup(fileno(stderr));
    assert_true(saved_stderr >= 0);
    assert_true(dup2(fileno(capture_file), fileno(stderr)) >= 0);
}

/* Restores stderr; returns what was logged meanwhile (arena memory). */
static char *log_capture_end(ctx_t *t)
{
    fflush(stderr);
    assert_true(dup2(saved_stderr, fileno(stderr)) >= 0);
    close(saved_stderr);
    long len = ftell(capture_file);
    assert_true(len >= 0);
    char *out = kc_arena_alloc(&t->arena, (size_t)len + 1);
    rewind(capture_file);
    size_t got = fread(out, 1, (size_t)len, capture_file);
    out[got] = 0;
    fclose(capture_file);
    fputs(out, stderr);
    return out;
}

/* ---- hard state and the replay check ----------------------------------- */

/* Describes the group through DescribeGroups v5 plus the latest record. */
static void describe(ctx_t *t, kc_coord_t *c, int16_t version, const char *group,
                     kc_describe_groups_response_t *out)
{
    kc_describe_groups_request_t req;
    kc_describe_groups_request_init(&req);
    kc_str_t g = kc_str(group);
    req.groups.items = &g;
    req.groups.count = 1;
    req.include_authorized_operations = true;
    kc_request_ctx_t x = ct_rctx(t, KC_API_DESCRIBE_GROUPS, version);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_describe_groups(c, &x, &req, &res);
    assert_int_equal(res.nresponses, 1);
    kc_reader_t rd;
    kc_buf_t copy;
    kc_buf_init(&copy);
    kc_buf_append(&copy, res.responses[0].body.data, res.responses[0].body.len);
    uint8_t *p = kc_arena_alloc(&t->arena, copy.len + 1);
    memcpy(p, copy.data, copy.len);
    kc_reader_init(&rd, p, copy.len);
    assert_int_equal(kc_describe_groups_response_decode(&rd, version, &t->arena, out), 0);
    kc_buf_deinit(&copy);
    kc_result_deinit(&res);
}

/* The last GroupMetadata record of the group (NULL if none was written). */
static const rec_t *last_record(ctx_t *t, const char *group)
{
    kc_buf_t key;
    kc_buf_init(&key);
    kc_write_int16(&key, 2);
    kc_group_metadata_key_t k;
    kc_group_metadata_key_init(&k);
    k.group = kc_str(group);
    kc_group_metadata_key_encode(&key, 0, &k);
    const rec_t *found = NULL;
    for (size_t i = 0; i < t->nrecs; i++)
        if (t->recs[i].key.len == key.len && memcmp(t->recs[i].key.data, key.data, key.len) == 0)
            found = &t->recs[i];
    kc_buf_deinit(&key);
    return found;
}

/* Rebuilds a coordinator from the records and compares what describe shows
 * (state, protocol, members with metadata and assignment) and the fields of
 * the last record (generation, leader, protocol) with the live group. */
static void check_replay(ctx_t *t, const char *group)
{
    kc_coord_t *c2 = ct_replayed(t, false);
    kc_describe_groups_response_t a, b;
    describe(t, t->c, 5, group, &a);
    describe(t, c2, 5, group, &b);
    assert_int_equal(a.groups.count, 1);
    assert_int_equal(b.groups.count, 1);
    __typeof__(a.groups.items[0]) *ga = &a.groups.items[0], *gb = &b.groups.items[0];
    assert_string_equal(ct_cstr(t, ga->group_state), ct_cstr(t, gb->group_state));
    assert_string_equal(ct_cstr(t, ga->protocol_type), ct_cstr(t, gb->protocol_type));
    assert_string_equal(ct_cstr(t, ga->protocol_data), ct_cstr(t, gb->protocol_data));
    assert_int_equal(ga->members.count, gb->members.count);
    for (int32_t i = 0; i < ga->members.count; i++) {
        __typeof__(ga->members.items[0]) *ma = &ga->members.items[i], *mb = &gb->members.items[i];
        assert_string_equal(ct_cstr(t, ma->member_id), ct_cstr(t, mb->member_id));
        assert_int_equal(ma->group_instance_id.len, mb->group_instance_id.len);
        assert_string_equal(ct_cstr(t, ma->client_id), ct_cstr(t, mb->client_id));
        assert_int_equal(ma->member_metadata.len, mb->member_metadata.len);
        assert_int_equal(ma->member_assignment.len, mb->member_assignment.len);
        if (ma->member_assignment.len)
            assert_memory_equal(ma->member_assignment.ptr, mb->member_assignment.ptr,
                                (size_t)ma->member_assignment.len);
    }
    /* Generation and leader: the replayed group's are those of the last record;
     * the live group, when Stable or Empty, must agree with its own record. */
    const rec_t *r = last_record(t, group);
    kc_classic_group_t *live = kc_classic_group_find(t->c, kc_str(group));
    kc_classic_group_t *re = kc_classic_group_find(c2, kc_str(group));
    if (r && !r->tombstone) {
        assert_non_null(re);
        kc_reader_t rd;
        kc_reader_init(&rd, r->value.data, r->value.len);
        assert_int_equal(kc_read_int16(&rd), 3);
        kc_group_metadata_value_t v;
        assert_int_equal(kc_group_metadata_value_decode(&rd, 3, &t->arena, &v), 0);
        assert_non_null(live);
        kc_result_t res;
        /* The generation of the record is the one members of the rebuilt
         * group are accepted at. */
        if (ga->members.count && strcmp(ct_cstr(t, ga->group_state), "Stable") == 0) {
            kc_heartbeat_request_t hb;
            kc_heartbeat_request_init(&hb);
            hb.group_id = kc_str(group);
            hb.generation_id = v.generation;
            hb.member_id = ga->members.items[0].member_id;
            hb.group_instance_id = ga->members.items[0].group_instance_id;
            kc_request_ctx_t x = ct_rctx(t, KC_API_HEARTBEAT, 3);
            kc_result_init(&res);
            kc_coord_heartbeat(c2, &x, &hb, &res);
            kc_heartbeat_response_t out;
            kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
            assert_int_equal(kc_heartbeat_response_decode(&rd, 3, &t->arena, &out), 0);
            assert_int_equal(out.error_code, 0);
            kc_result_deinit(&res);
        }
    } else {
        assert_null(re);
        assert_null(live);
    }
    kc_coord_free(c2);
}

/* ---- tests ------------------------------------------------------------- */

/* After GroupMetadataManagerTest.testGenerateRecordsOnNewClassicGroup and
 * testDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup: a
 * JoinGroup v5 without member id is answered MEMBER_ID_REQUIRED with a
 * generated id and persists the new group as empty; the rejoin with that id
 * waits out the initial delay (not answered at 2.999 s, answered at 3 s) and
 * opens generation 1 led by the member, whose SyncGroup gets its assignment.
 */
static void test_join_group_unknown_member_id_required(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t c1 = send_join(t, (join_args_t){0});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, c1, &jr));
    assert_int_equal(jr.error_code, 79); /* MEMBER_ID_REQUIRED */
    char *mid = ct_cstr(t, jr.member_id);
    assert_int_equal(strlen(mid), strlen("client-") + 36);
    assert_memory_equal(mid, "client-", 7);
    /* The new group is persisted as an empty group. */
    assert_int_equal(t->nrecs, 1);

    int32_t c2 = send_join(t, (join_args_t){.member_id = mid});
    assert_null(ct_find_resp(t, c2)); /* parked during the initial delay */
    ct_jump(t, 2999);
    assert_null(ct_find_resp(t, c2));
    ct_jump(t, 1);
    assert_true(join_resp(t, c2, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_int_equal(jr.generation_id, 1);
    assert_string_equal(ct_cstr(t, jr.leader), mid);
    assert_string_equal(ct_cstr(t, jr.protocol_name), "range");
    assert_int_equal(jr.members.count, 1);
    const char *ids[] = {mid};
    const char *as[] = {"A1"};
    int32_t c3 = send_sync(t, mid, NULL, 1, 1, ids, as, 3);
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, c3, &sr));
    assert_int_equal(sr.error_code, 0);
    assert_memory_equal(sr.assignment.ptr, "A1", 2);
    check_replay(t, "grp");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup:
 * below v4 a member without id is added at once (no MEMBER_ID_REQUIRED); its
 * JoinGroup is answered when the initial delay ends, at generation 1. */
static void test_join_group_v3_adds_member_without_member_id_required(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t c1 = send_join(t, (join_args_t){.version = 3});
    assert_null(ct_find_resp(t, c1));
    ct_jump(t, 3000);
    kc_join_group_response_t jr;
    assert_true(join_resp(t, c1, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_int_equal(jr.generation_id, 1);
    ct_free(t);
}

/* After GroupCoordinatorServiceTest.testJoinGroupInvalidGroupId and
 * testJoinGroupInvalidSessionTimeout, and
 * GroupMetadataManagerTest.testJoinGroupUnknownMemberNewGroup: an empty group
 * id, a session timeout below the minimum and an unknown member id for a new
 * group are refused without a record; a coordinator that is still loading
 * answers COORDINATOR_LOAD_IN_PROGRESS. */
static void test_join_group_invalid_inputs(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    kc_join_group_response_t jr;
    int32_t c = send_join(t, (join_args_t){.group = ""});
    assert_true(join_resp(t, c, &jr));
    assert_int_equal(jr.error_code, 24);
    c = send_join(t, (join_args_t){.session_ms = 5999});
    assert_true(join_resp(t, c, &jr));
    assert_int_equal(jr.error_code, 26);
    c = send_join(t, (join_args_t){.member_id = "ghost"});
    assert_true(join_resp(t, c, &jr));
    assert_int_equal(jr.error_code, 25);
    assert_int_equal(t->nrecs, 0);
    ct_free(t);

    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    kc_coord_t *c2 = kc_coord_new(&cfg, NULL);
    t = ctx_new();
    kc_join_group_request_t req;
    kc_join_group_request_init(&req);
    req.group_id = kc_str("grp");
    req.session_timeout_ms = 10000;
    req.member_id = kc_str("");
    req.protocol_type = kc_str("consumer");
    kc_request_ctx_t x = ct_rctx(t, KC_API_JOIN_GROUP, 5);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_join_group(c2, &x, &req, &res);
    ct_absorb(t, &res);
    assert_true(join_resp(t, x.correlation_id, &jr));
    assert_int_equal(jr.error_code, 14); /* COORDINATOR_LOAD_IN_PROGRESS */
    kc_result_deinit(&res);
    kc_coord_free(c2);
    ct_free(t);
}

/* GroupMetadataManagerTest.testResetRebalanceDelayWhenNewMemberJoinsGroupDuringInitialRebalance:
 * a second member joining during the initial delay extends it by another
 * delay, so neither join is answered before 6 s; then both are, the first
 * member leading with the member list. */
static void test_reset_rebalance_delay_when_new_member_joins_group_during_initial_rebalance(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t a = send_join(t, (join_args_t){.version = 3});
    ct_jump(t, 2000);
    int32_t b = send_join(t, (join_args_t){.version = 3});
    ct_jump(t, 1000); /* t=3000: a member arrived during the delay */
    assert_null(ct_find_resp(t, a));
    ct_jump(t, 2999);
    assert_null(ct_find_resp(t, b));
    ct_jump(t, 1); /* t=6000 */
    kc_join_group_response_t ja, jb;
    assert_true(join_resp(t, a, &ja));
    assert_true(join_resp(t, b, &jb));
    assert_int_equal(ja.generation_id, 1);
    assert_int_equal(ja.members.count, 2); /* first member leads */
    assert_int_equal(jb.members.count, 0);
    assert_string_equal(ct_cstr(t, jb.leader), ct_cstr(t, ja.member_id));
    ct_free(t);
}

/* Two members join and sync; the leader's assignment reaches both. */
static void two_member_group(ctx_t *t, char **leader, char **follower, int32_t *gen)
{
    int32_t a = send_join(t, (join_args_t){.version = 3});
    int32_t b = send_join(t, (join_args_t){.version = 3});
    /* The second member extends the initial delay once (3 s + 3 s). */
    ct_jump(t, 3000);
    assert_null(ct_find_resp(t, a));
    ct_jump(t, 3000);
    kc_join_group_response_t ja, jb;
    assert_true(join_resp(t, a, &ja));
    assert_true(join_resp(t, b, &jb));
    *leader = ct_cstr(t, ja.member_id);
    *follower = ct_cstr(t, jb.member_id);
    *gen = ja.generation_id;
    int32_t sf = send_sync(t, *follower, NULL, *gen, 0, NULL, NULL, 3);
    assert_null(ct_find_resp(t, sf));
    size_t nrec = t->nrecs;
    const char *ids[] = {*leader, *follower};
    const char *as[] = {"AL", "AF"};
    int32_t sl = send_sync(t, *leader, NULL, *gen, 2, ids, as, 3);
    assert_int_equal(t->nrecs, nrec + 1);
    kc_sync_group_response_t r;
    assert_true(sync_resp(t, sl, &r));
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.assignment.len, 2);
    assert_memory_equal(r.assignment.ptr, "AL", 2);
    assert_true(sync_resp(t, sf, &r));
    assert_int_equal(r.error_code, 0);
    assert_memory_equal(r.assignment.ptr, "AF", 2);
}

/* ClassicGroupTest.testSelectProtocol: two members list the same two
 * protocols in opposite orders, one vote each. Kafka keeps the first
 * maximum of a HashMap, so the tie goes by the names' hash buckets, not by
 * who joined first (checked against java.util.HashMap). */
static void test_select_protocol(void **state)
{
    (void)state;
    const char *first[] = {"cooperative-sticky", "roundrobin"};
    const char *second[] = {"range", "sticky"};
    for (int i = 0; i < 2; i++) {
        ctx_t *t = ctx_new();
        int32_t a = send_join(t, (join_args_t){.version = 3, .protocol = first[i],
                                               .protocol2 = second[i]});
        int32_t b = send_join(t, (join_args_t){.version = 3, .protocol = second[i],
                                               .protocol2 = first[i]});
        ct_jump(t, 3000);
        ct_jump(t, 3000);
        kc_join_group_response_t ja, jb;
        assert_true(join_resp(t, a, &ja));
        assert_true(join_resp(t, b, &jb));
        assert_int_equal(ja.error_code, 0);
        assert_string_equal(ct_cstr(t, ja.protocol_name), second[i]);
        assert_string_equal(ct_cstr(t, jb.protocol_name), second[i]);
        ct_free(t);
    }
}

/* A coordinator that accepts short sessions, as Kafka's test context
 * (group.min.session.timeout.ms = 10). */
static ctx_t *ctx_new_short_sessions(void)
{
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_min_session_timeout_ms = 10;
    return ctx_new_cfg(&cfg);
}

/* Joins n dynamic members with JoinGroup v3 (no MEMBER_ID_REQUIRED round)
 * and waits out the initial delay; ids[] gets their member ids, the
 * first being the leader. Returns the generation. */
static int32_t join_with_n_members(ctx_t *t, int n, int32_t rebalance_ms, int32_t session_ms,
                                   char **ids)
{
    int32_t corr[8];
    assert_true(n <= 8);
    for (int i = 0; i < n; i++)
        corr[i] = send_join(t, (join_args_t){.version = 3, .rebalance_ms = rebalance_ms,
                                             .session_ms = session_ms});
    for (int i = 0; i < 20 && !ct_find_resp(t, corr[0]); i++)
        ct_jump(t, 500);
    int32_t gen = -1;
    for (int i = 0; i < n; i++) {
        kc_join_group_response_t jr;
        assert_true(join_resp(t, corr[i], &jr));
        assert_int_equal(jr.error_code, 0);
        ids[i] = ct_cstr(t, jr.member_id);
        gen = jr.generation_id;
        assert_string_equal(ct_cstr(t, jr.leader), ids[0]);
    }
    return gen;
}

static int32_t send_sync_vn(ctx_t *t, int16_t version, const char *member_id, int32_t gen,
                            const char *ptype, const char *pname, int nassign, const char **ids,
                            const char **as)
{
    kc_sync_group_request_t req;
    kc_sync_group_request_init(&req);
    req.group_id = kc_str("grp");
    req.generation_id = gen;
    req.member_id = kc_str(member_id);
    req.protocol_type = kc_str(ptype);
    req.protocol_name = kc_str(pname);
    req.assignments.count = nassign;
    req.assignments.items =
        kc_arena_alloc(&t->arena, (size_t)(nassign ? nassign : 1) * sizeof(*req.assignments.items));
    for (int i = 0; i < nassign; i++) {
        req.assignments.items[i].member_id = kc_str(ids[i]);
        req.assignments.items[i].assignment =
            (kc_bytes_t){(const uint8_t *)as[i], (int32_t)strlen(as[i])};
    }
    kc_request_ctx_t x = ct_rctx(t, KC_API_SYNC_GROUP, version);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_sync_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    return x.correlation_id;
}

/* GroupMetadataManagerTest.testSyncGroupProtocolTypeAndNameWith: SyncGroup v5
 * carries the protocol type and name; a mismatch is rejected before the
 * group state is looked at, a match or an absent value is accepted and the
 * answer names the group's protocol. */
static void sync_group_protocol_type_and_name_with(int16_t version, const char *ptype,
                                                   const char *pname, int16_t expected_error)
{
    ctx_t *t = ctx_new();
    char *ids[2];
    int32_t gen = join_with_n_members(t, 2, 10000, 10000, ids);
    const char *as[] = {"A0"};
    int32_t sl = send_sync_vn(t, version, ids[0], gen, ptype, pname, 1, (const char **)ids, as);
    kc_sync_group_response_t r;
    assert_true(sync_resp(t, sl, &r));
    assert_int_equal(r.error_code, expected_error);
    if (expected_error) {
        assert_int_equal(r.protocol_type.len, -1);
        assert_int_equal(r.protocol_name.len, -1);
    } else if (version >= 5) {
        assert_string_equal(ct_cstr(t, r.protocol_type), "consumer");
        assert_string_equal(ct_cstr(t, r.protocol_name), "range");
    }
    int32_t sf = send_sync_vn(t, version, ids[1], gen, ptype, pname, 0, NULL, NULL);
    assert_true(sync_resp(t, sf, &r));
    assert_int_equal(r.error_code, expected_error);
    if (!expected_error && version >= 5) {
        assert_string_equal(ct_cstr(t, r.protocol_type), "consumer");
        assert_string_equal(ct_cstr(t, r.protocol_name), "range");
    }
    if (!expected_error)
        assert_int_equal(r.assignment.len, 0);
    ct_free(t);
}

/* GroupMetadataManagerTest.testSyncGroupReturnsAnErrorWhenProtocolTypeIsInconsistent:
 * a SyncGroup v5 naming another protocol type than the group's is
 * INCONSISTENT_GROUP_PROTOCOL, for the leader and the follower alike, with
 * null protocol fields. */
static void test_sync_group_returns_an_error_when_protocol_type_is_inconsistent(void **state)
{
    (void)state;
    sync_group_protocol_type_and_name_with(5, "protocolType", "range", 23);
}

/* GroupMetadataManagerTest.testSyncGroupReturnsAnErrorWhenProtocolNameIsInconsistent:
 * a SyncGroup v5 naming another protocol than the selected one is
 * INCONSISTENT_GROUP_PROTOCOL, for the leader and the follower alike. */
static void test_sync_group_returns_an_error_when_protocol_name_is_inconsistent(void **state)
{
    (void)state;
    sync_group_protocol_type_and_name_with(5, "consumer", "protocolName", 23);
}

/* GroupMetadataManagerTest.testSyncGroupSucceedWhenProtocolTypeAndNameAreNotProvided:
 * before v5 the fields do not exist and nothing is checked; both members
 * sync. */
static void test_sync_group_succeed_when_protocol_type_and_name_are_not_provided(void **state)
{
    (void)state;
    sync_group_protocol_type_and_name_with(4, NULL, NULL, 0);
}

/* From v5 KafkaApis requires both (SyncGroupRequest.
 * areMandatoryProtocolTypeAndNamePresent) and answers their absence
 * INCONSISTENT_GROUP_PROTOCOL before looking at the group. */
static void test_sync_group_v5_requires_protocol_type_and_name(void **state)
{
    (void)state;
    sync_group_protocol_type_and_name_with(5, NULL, NULL, 23);
    sync_group_protocol_type_and_name_with(5, "consumer", NULL, 23);
    sync_group_protocol_type_and_name_with(5, NULL, "range", 23);
    ctx_t *t = ctx_new();
    int32_t s = send_sync_vn(t, 5, "nobody", 1, NULL, "range", 0, NULL, NULL);
    kc_sync_group_response_t r;
    assert_true(sync_resp(t, s, &r));
    assert_int_equal(r.error_code, 23); /* not UNKNOWN_MEMBER_ID */
    ct_free(t);
}

/* GroupMetadataManagerTest.testSyncGroupSucceedWhenProtocolTypeAndNameAreConsistent:
 * a SyncGroup v5 naming the group's protocol type and name succeeds, and the
 * answers name them. */
static void test_sync_group_succeed_when_protocol_type_and_name_are_consistent(void **state)
{
    (void)state;
    sync_group_protocol_type_and_name_with(5, "consumer", "range", 0);
}

/* GroupMetadataManagerTest.testRebalanceTimesOutWhenSyncRequestIsNotReceived:
 * with nobody syncing, heartbeats do not stop the pending-sync expiration; at
 * the rebalance timeout every member is removed and the group, now Empty,
 * writes its record. */
static void test_rebalance_times_out_when_sync_request_is_not_received(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_short_sessions();
    char *ids[3];
    int32_t gen = join_with_n_members(t, 3, 5000, 5000, ids);
    ct_jump(t, 2500);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heartbeat(t, ids[i], NULL, gen), 0);
    size_t nrec = t->nrecs;
    ct_jump(t, 2500);
    assert_int_equal(t->nrecs, nrec + 1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heartbeat(t, ids[i], NULL, gen + 1), 25); /* UNKNOWN_MEMBER_ID */
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "Empty");
    assert_int_equal(d.groups.items[0].members.count, 0);
    check_replay(t, "grp");
    ct_free(t);
}

/* GroupMetadataManagerTest.testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers:
 * only the leader syncs; at the rebalance timeout the followers are removed
 * without a record and the group goes back to PreparingRebalance (the
 * leader's heartbeat says REBALANCE_IN_PROGRESS). */
static void test_rebalance_times_out_when_sync_request_is_not_received_from_followers(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_short_sessions();
    char *ids[3];
    int32_t gen = join_with_n_members(t, 3, 5000, 5000, ids);
    ct_jump(t, 2500);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heartbeat(t, ids[i], NULL, gen), 0);
    int32_t sl = send_sync(t, ids[0], NULL, gen, 0, NULL, NULL, 3);
    kc_sync_group_response_t r;
    assert_true(sync_resp(t, sl, &r));
    assert_int_equal(r.error_code, 0);
    assert_int_equal(heartbeat(t, ids[0], NULL, gen), 0);
    size_t nrec = t->nrecs;
    ct_jump(t, 2500);
    assert_int_equal(t->nrecs, nrec); /* PreparingRebalance writes nothing */
    assert_int_equal(heartbeat(t, ids[0], NULL, gen), 27); /* REBALANCE_IN_PROGRESS */
    assert_int_equal(heartbeat(t, ids[1], NULL, gen), 25);
    assert_int_equal(heartbeat(t, ids[2], NULL, gen), 25);
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "PreparingRebalance");
    ct_free(t);
}

/* GroupMetadataManagerTest.testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders:
 * only the followers sync; at the rebalance timeout the leader is removed,
 * the followers' parked SyncGroups are answered REBALANCE_IN_PROGRESS and no
 * record is written. */
static void test_rebalance_times_out_when_sync_request_is_not_received_from_leaders(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_short_sessions();
    char *ids[3];
    int32_t gen = join_with_n_members(t, 3, 5000, 5000, ids);
    ct_jump(t, 2500);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heartbeat(t, ids[i], NULL, gen), 0);
    int32_t s1 = send_sync(t, ids[1], NULL, gen, 0, NULL, NULL, 3);
    int32_t s2 = send_sync(t, ids[2], NULL, gen, 0, NULL, NULL, 3);
    assert_null(ct_find_resp(t, s1));
    assert_null(ct_find_resp(t, s2));
    size_t nrec = t->nrecs;
    ct_jump(t, 2500);
    assert_int_equal(t->nrecs, nrec);
    kc_sync_group_response_t r;
    assert_true(sync_resp(t, s1, &r));
    assert_int_equal(r.error_code, 27);
    assert_true(sync_resp(t, s2, &r));
    assert_int_equal(r.error_code, 27);
    assert_int_equal(heartbeat(t, ids[0], NULL, gen), 25);
    assert_int_equal(heartbeat(t, ids[1], NULL, gen), 27);
    assert_int_equal(heartbeat(t, ids[2], NULL, gen), 27);
    ct_free(t);
}

/* GroupMetadataManagerTest.testRebalanceDoesNotTimeOutWhenAllSyncAreReceived:
 * every member syncs, so the rebalance timeout removes nobody and the group
 * stays Stable. */
static void test_rebalance_does_not_time_out_when_all_sync_are_received(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_short_sessions();
    char *ids[3];
    int32_t gen = join_with_n_members(t, 3, 5000, 5000, ids);
    ct_jump(t, 2500);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heartbeat(t, ids[i], NULL, gen), 0);
    send_sync(t, ids[0], NULL, gen, 0, NULL, NULL, 3);
    send_sync(t, ids[1], NULL, gen, 0, NULL, NULL, 3);
    send_sync(t, ids[2], NULL, gen, 0, NULL, NULL, 3);
    ct_jump(t, 2500);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heartbeat(t, ids[i], NULL, gen), 0);
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "Stable");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testSyncGroupLeaderAfterFollower,
 * testSyncGroupFromIllegalGeneration and testSyncGroupFromUnknownMember: the
 * follower's SyncGroup waits for the leader's, whose assignments answer both;
 * a later SyncGroup v5 in Stable gets the stored assignment with the protocol
 * type and name, another generation is ILLEGAL_GENERATION and an unknown
 * member UNKNOWN_MEMBER_ID. */
static void test_join_and_sync_two_members(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    two_member_group(t, &l, &f, &gen);
    /* A late sync in Stable returns the stored assignment. */
    int32_t s = send_sync_vn(t, 5, f, gen, "consumer", "range", 0, NULL, NULL);
    kc_sync_group_response_t r;
    assert_true(sync_resp(t, s, &r));
    assert_int_equal(r.error_code, 0);
    assert_string_equal(ct_cstr(t, r.protocol_name), "range");
    assert_string_equal(ct_cstr(t, r.protocol_type), "consumer");
    s = send_sync(t, f, NULL, gen + 1, 0, NULL, NULL, 3);
    assert_true(sync_resp(t, s, &r));
    assert_int_equal(r.error_code, 22);
    s = send_sync(t, "nobody", NULL, gen, 0, NULL, NULL, 3);
    assert_true(sync_resp(t, s, &r));
    assert_int_equal(r.error_code, 25);
    check_replay(t, "grp");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testHeartbeatUnknownGroup,
 * testValidHeartbeat, testHeartbeatIllegalGeneration,
 * testHeartbeatUnknownMemberExistingGroup and
 * testHeartbeatDuringPreparingRebalance: the Heartbeat answers for an unknown
 * group, a member in Stable, another generation, an unknown member, and a
 * member while the group prepares a rebalance. */
static void test_heartbeat_errors_by_state(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    assert_int_equal(heartbeat(t, "m", NULL, 0), 25); /* unknown group */
    char *l, *f;
    int32_t gen;
    two_member_group(t, &l, &f, &gen);
    assert_int_equal(heartbeat(t, f, NULL, gen), 0);
    assert_int_equal(heartbeat(t, f, NULL, gen + 1), 22);
    assert_int_equal(heartbeat(t, "x", NULL, gen), 25);
    /* The leader rejoins: PreparingRebalance. */
    send_join(t, (join_args_t){.member_id = l, .version = 3});
    assert_int_equal(heartbeat(t, f, NULL, gen), 27);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testClassicGroupMemberSessionTimeout and
 * testClassicGroupMemberHeartbeatMaintainsSession: heartbeats keep the
 * leader's session; the follower, silent for its whole session, is removed
 * (UNKNOWN_MEMBER_ID) and the group rebalances, the leader rejoining alone at
 * the next generation. */
static void test_session_expiry_removes_member_and_rebalances(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    two_member_group(t, &l, &f, &gen);
    /* Sessions run from the join answer at t=6 s, 10 s long. */
    ct_jump(t, 9999); /* t=15.999 s */
    assert_int_equal(heartbeat(t, f, NULL, gen), 0);
    assert_int_equal(heartbeat(t, l, NULL, gen), 0);
    for (int i = 0; i < 2; i++) {
        ct_jump(t, 4999);
        assert_int_equal(heartbeat(t, l, NULL, gen), 0);
    }
    ct_jump(t, 2); /* t=25.999 s: the follower's session ends */
    /* The follower missed its session: gone, the group rebalances. */
    assert_int_equal(heartbeat(t, f, NULL, gen), 25);
    assert_int_equal(heartbeat(t, l, NULL, gen), 27);
    int32_t j = send_join(t, (join_args_t){.member_id = l, .version = 3});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, j, &jr));
    assert_int_equal(jr.generation_id, gen + 1);
    assert_int_equal(jr.members.count, 1);
    ct_free(t);
}

/* GroupMetadataManagerTest.testCompleteJoinRemoveNotYetRejoinedDynamicMembers:
 * the leader's rejoin starts a rebalance that the follower never joins; when
 * the rebalance timeout ends the join phase the follower is removed, and the
 * leader's join completes alone at the next generation. */
static void test_complete_join_remove_not_yet_rejoined_dynamic_members(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    two_member_group(t, &l, &f, &gen);
    int32_t j = send_join(t, (join_args_t){.member_id = l, .version = 3});
    ct_jump(t, 5000);
    assert_int_equal(heartbeat(t, f, NULL, gen), 27);
    assert_null(ct_find_resp(t, j));
    ct_jump(t, 5000); /* the rebalance timeout (10 s) */
    kc_join_group_response_t jr;
    assert_true(join_resp(t, j, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_int_equal(jr.generation_id, gen + 1);
    assert_int_equal(jr.members.count, 1);
    assert_int_equal(heartbeat(t, f, NULL, gen + 1), 25);
    const char *ids[] = {l};
    const char *as[] = {"ALL"};
    send_sync(t, l, NULL, gen + 1, 1, ids, as, 3);
    check_replay(t, "grp");
    ct_free(t);
}

/* A static leader and a dynamic follower, Stable. */
static void static_group(ctx_t *t, int16_t version, char **leader, char **follower, int32_t *gen)
{
    int32_t a = send_join(t, (join_args_t){.instance_id = "leader-instance", .version = version});
    int32_t b = send_join(t, (join_args_t){.version = 3});
    /* The second member extends the initial delay once (3 s + 3 s). */
    ct_jump(t, 3000);
    assert_null(ct_find_resp(t, a));
    ct_jump(t, 3000);
    kc_join_group_response_t ja, jb;
    assert_true(join_resp(t, a, &ja));
    assert_true(join_resp(t, b, &jb));
    *leader = ct_cstr(t, ja.member_id);
    assert_memory_equal(*leader, "leader-instance-", 16);
    assert_string_equal(ct_cstr(t, ja.leader), *leader);
    *follower = ct_cstr(t, jb.member_id);
    *gen = ja.generation_id;
    const char *ids[] = {*leader, *follower};
    const char *as[] = {"AL", "AF"};
    send_sync(t, *leader, "leader-instance", *gen, 2, ids, as, 3);
    send_sync(t, *follower, NULL, *gen, 0, NULL, NULL, 3);
}

/* Two static members (leader-instance, follower-instance) supporting range
 * and roundrobin, 15 s sessions, joined with JoinGroup v5 and synced:
 * Stable, range. */
static int32_t static_members_join_and_rebalance(ctx_t *t, char **leader, char **follower)
{
    int32_t a = send_join(t, (join_args_t){.instance_id = "leader-instance", .protocol2 = "roundrobin",
                                           .session_ms = 15000});
    int32_t b = send_join(t, (join_args_t){.instance_id = "follower-instance", .protocol2 = "roundrobin",
                                           .session_ms = 15000});
    ct_jump(t, 3000);
    ct_jump(t, 3000);
    kc_join_group_response_t ja, jb;
    assert_true(join_resp(t, a, &ja));
    assert_true(join_resp(t, b, &jb));
    assert_int_equal(ja.error_code, 0);
    assert_string_equal(ct_cstr(t, ja.protocol_name), "range");
    *leader = ct_cstr(t, ja.member_id);
    *follower = ct_cstr(t, jb.member_id);
    const char *ids[] = {*leader, *follower};
    const char *as[] = {"AL", "AF"};
    send_sync(t, *leader, "leader-instance", ja.generation_id, 2, ids, as, 3);
    int32_t sf = send_sync(t, *follower, "follower-instance", ja.generation_id, 0, NULL, NULL, 3);
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, sf, &sr));
    assert_int_equal(sr.error_code, 0);
    return ja.generation_id;
}

/* GroupMetadataManagerTest.testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged:
 * a static member rejoining a Stable group with an unknown member id and
 * protocols that change the group's vote triggers a rebalance; the old leader
 * does not rejoin, so the new member id leads (logged in Kafka's words) and
 * the protocol is roundrobin. */
static void test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_with_selected_protocol_changed(
    void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen = static_members_join_and_rebalance(t, &l, &f);
    size_t nrec = t->nrecs;
    int32_t j = send_join(t, (join_args_t){.instance_id = "follower-instance", .protocol = "roundrobin"});
    assert_null(ct_find_resp(t, j));
    assert_int_equal(t->nrecs, nrec);
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "PreparingRebalance");
    log_capture_begin();
    ct_jump(t, 10000);
    char *logged = log_capture_end(t);
    kc_join_group_response_t jr;
    assert_true(join_resp(t, j, &jr));
    assert_int_equal(jr.error_code, 0);
    char *nf = ct_cstr(t, jr.member_id);
    assert_string_not_equal(nf, f);
    assert_memory_equal(nf, "follower-instance-", 18);
    assert_int_equal(jr.generation_id, gen + 1);
    assert_string_equal(ct_cstr(t, jr.leader), nf);
    assert_string_equal(ct_cstr(t, jr.protocol_name), "roundrobin");
    char expect[1024];
    snprintf(expect, sizeof(expect),
             "Group leader [memberId: %s, groupInstanceId: leader-instance] failed to join before "
             "the rebalance timeout. Member ClassicGroupMember(memberId='%s', "
             "groupInstanceId='follower-instance', clientId='client', clientHost='/127.0.0.1', "
             "rebalanceTimeoutMs=10000, sessionTimeoutMs=10000, protocolType='consumer', "
             "supportedProtocols=[roundrobin]) was elected as the new leader.",
             l, nf);
    assert_non_null(strstr(logged, expect));
    assert_int_equal(jr.members.count, 2); /* the static leader stays */
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "CompletingRebalance");
    ct_free(t);
}

/* GroupMetadataManagerTest.testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged:
 * the same rejoin leaving the vote on range triggers no rebalance: the record
 * is rewritten and the new member id gets the current generation. */
static void test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_while_select_protocol_unchanged(
    void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen = static_members_join_and_rebalance(t, &l, &f);
    size_t nrec = t->nrecs;
    int32_t j = send_join(t, (join_args_t){.instance_id = "follower-instance", .protocol = "range"});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, j, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_int_equal(jr.generation_id, gen);
    assert_string_equal(ct_cstr(t, jr.leader), l);
    assert_string_equal(ct_cstr(t, jr.protocol_name), "range");
    assert_int_equal(t->nrecs, nrec + 1);
    check_replay(t, "grp");
    ct_free(t);
}

/* GroupMetadataManagerTest.testStaticMemberFenceDuplicateRejoinedFollower: in
 * PreparingRebalance, the old follower's parked JoinGroup is answered
 * FENCED_INSTANCE_ID at once when a JoinGroup with its instance id and no
 * member id arrives; the group keeps preparing. */
static void test_static_member_fence_duplicate_rejoined_follower(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    static_members_join_and_rebalance(t, &l, &f);
    send_join(t, (join_args_t){.version = 3, .protocol2 = "roundrobin"});
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "PreparingRebalance");
    int32_t old = send_join(t, (join_args_t){.member_id = f, .instance_id = "follower-instance",
                                             .protocol2 = "roundrobin"});
    assert_null(ct_find_resp(t, old));
    int32_t dup = send_join(t, (join_args_t){.instance_id = "follower-instance", .protocol2 = "roundrobin"});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, old, &jr));
    assert_int_equal(jr.error_code, 82); /* FENCED_INSTANCE_ID */
    assert_string_equal(ct_cstr(t, jr.member_id), f);
    assert_int_equal(jr.generation_id, -1);
    assert_int_equal(jr.leader.len, 0);
    assert_int_equal(jr.protocol_name.len, 0); /* v5: not nullable, empty */
    assert_null(ct_find_resp(t, dup));
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "PreparingRebalance");
    ct_free(t);
}

/* GroupMetadataManagerTest.testStaticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged:
 * in CompletingRebalance, the old follower's parked SyncGroup is answered
 * FENCED_INSTANCE_ID when a JoinGroup with its instance id and no member id
 * arrives (which writes nothing and is not answered yet), and the group
 * rebalances again since the leader may hold the old id. */
static void test_static_member_fence_duplicate_syncing_follower_after_member_id_changed(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen = static_members_join_and_rebalance(t, &l, &f);
    int32_t lj = send_join(t, (join_args_t){.member_id = l, .instance_id = "leader-instance",
                                            .protocol2 = "roundrobin"});
    assert_null(ct_find_resp(t, lj));
    int32_t fj = send_join(t, (join_args_t){.member_id = f, .instance_id = "follower-instance",
                                            .protocol2 = "roundrobin"});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, lj, &jr));
    assert_int_equal(jr.generation_id, gen + 1);
    assert_true(join_resp(t, fj, &jr));
    assert_int_equal(jr.generation_id, gen + 1);
    assert_string_equal(ct_cstr(t, jr.leader), l);
    int32_t fs = send_sync(t, f, "follower-instance", gen + 1, 0, NULL, NULL, 3);
    assert_null(ct_find_resp(t, fs));
    size_t nrec = t->nrecs;
    int32_t dup = send_join(t, (join_args_t){.instance_id = "follower-instance", .protocol2 = "roundrobin"});
    assert_int_equal(t->nrecs, nrec);
    assert_null(ct_find_resp(t, dup));
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, fs, &sr));
    assert_int_equal(sr.error_code, 82);
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "PreparingRebalance");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testStaticMemberRejoinWithLeaderIdAndUnknownMemberId
 * (skipping the assignment): the static leader rejoining a Stable group
 * without member id at JoinGroup v9 triggers no rebalance; the record is
 * rewritten, the new member id leads with skip_assignment and the member
 * list, and the old id is fenced. */
static void test_static_leader_rejoin_v9_skip_assignment(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    static_group(t, 9, &l, &f, &gen);
    size_t nrec = t->nrecs;
    log_capture_begin();
    int32_t j = send_join(t, (join_args_t){.instance_id = "leader-instance", .version = 9});
    char *logged = log_capture_end(t);
    /* The broker's own words for this event. */
    assert_non_null(strstr(logged, "Static member which joins during Stable stage and doesn't "
                                   "affect the selected protocol will not trigger a rebalance."));
    kc_join_group_response_t jr;
    assert_true(join_resp(t, j, &jr));
    assert_int_equal(jr.error_code, 0);
    char *nl = ct_cstr(t, jr.member_id);
    assert_string_not_equal(nl, l);
    assert_string_equal(ct_cstr(t, jr.leader), nl);
    assert_true(jr.skip_assignment);
    assert_int_equal(jr.members.count, 2);
    assert_int_equal(jr.generation_id, gen); /* no rebalance */
    assert_int_equal(t->nrecs, nrec + 1);
    /* The old member id is fenced. */
    assert_int_equal(heartbeat(t, l, "leader-instance", gen), 82);
    assert_int_equal(heartbeat(t, nl, "leader-instance", gen), 0);
    assert_int_equal(heartbeat(t, f, NULL, gen), 0);
    check_replay(t, "grp");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testStaticMemberRejoinWithLeaderIdAndUnknownMemberId
 * (not skipping the assignment): below v9 the answer names the old leader and
 * lists no members; the new member id's SyncGroup gets the replaced member's
 * assignment. */
static void test_static_leader_rejoin_below_v9_names_old_leader(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    static_group(t, 5, &l, &f, &gen);
    int32_t j = send_join(t, (join_args_t){.instance_id = "leader-instance", .version = 5});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, j, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_string_not_equal(ct_cstr(t, jr.member_id), l);
    assert_string_equal(ct_cstr(t, jr.leader), l);
    assert_int_equal(jr.members.count, 0);
    /* The replaced member keeps its assignment. */
    int32_t s = send_sync(t, ct_cstr(t, jr.member_id), "leader-instance", gen, 0, NULL, NULL, 3);
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, s, &sr));
    assert_int_equal(sr.error_code, 0);
    assert_memory_equal(sr.assignment.ptr, "AL", 2);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testJoinGroupReplaceStaticMember: while the
 * static leader's rejoin is parked, a JoinGroup with its instance id and no
 * member id replaces it: the parked join and the old id are fenced
 * (FENCED_INSTANCE_ID), and the new member id completes the rebalance once
 * the follower rejoins. */
static void test_static_member_replacement_fences_pending_join(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    static_group(t, 5, &l, &f, &gen);
    /* The static leader's rejoin starts a rebalance and waits for the follower. */
    int32_t jold = send_join(t, (join_args_t){.member_id = l, .instance_id = "leader-instance"});
    assert_null(ct_find_resp(t, jold));
    /* A new process with the same instance id replaces it. */
    int32_t jnew = send_join(t, (join_args_t){.instance_id = "leader-instance"});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, jold, &jr));
    assert_int_equal(jr.error_code, 82);
    assert_string_equal(ct_cstr(t, jr.member_id), l);
    assert_null(ct_find_resp(t, jnew));
    assert_int_equal(heartbeat(t, l, "leader-instance", gen), 82);
    /* The follower rejoins: everybody joined, the rebalance completes. */
    int32_t jf = send_join(t, (join_args_t){.member_id = f, .version = 3});
    assert_true(join_resp(t, jnew, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_int_equal(jr.generation_id, gen + 1);
    assert_string_equal(ct_cstr(t, jr.leader), ct_cstr(t, jr.member_id));
    assert_int_equal(jr.members.count, 2);
    assert_true(join_resp(t, jf, &jr));
    assert_int_equal(jr.error_code, 0);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testStaticMemberSyncAsLeaderWithInvalidMemberId:
 * a JoinGroup and a SyncGroup with a known instance id but another member id
 * are FENCED_INSTANCE_ID; a Heartbeat naming an unknown instance id is
 * UNKNOWN_MEMBER_ID. */
static void test_fenced_instance_id_with_stale_member_id(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    static_group(t, 5, &l, &f, &gen);
    kc_join_group_response_t jr;
    int32_t j = send_join(t, (join_args_t){.member_id = "leader-instance-stale", .instance_id = "leader-instance"});
    assert_true(join_resp(t, j, &jr));
    assert_int_equal(jr.error_code, 82);
    int32_t s = send_sync(t, "leader-instance-stale", "leader-instance", gen, 0, NULL, NULL, 3);
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, s, &sr));
    assert_int_equal(sr.error_code, 82);
    assert_int_equal(heartbeat(t, f, "unknown-instance", gen), 25);
    ct_free(t);
}

static kc_leave_group_response_t leave(ctx_t *t, int16_t version, const char *member_id,
                                       const char *instance_id)
{
    kc_leave_group_request_t req;
    kc_leave_group_request_init(&req);
    req.group_id = kc_str("grp");
    req.member_id = kc_str(version < 3 ? member_id : NULL);
    if (version >= 3) {
        req.members.count = 1;
        req.members.items = kc_arena_alloc(&t->arena, sizeof(*req.members.items));
        req.members.items[0].member_id = kc_str(member_id);
        req.members.items[0].group_instance_id = kc_str(instance_id);
        req.members.items[0].reason = KC_STR_NULL;
    } else {
        req.members.count = 0;
    }
    kc_request_ctx_t x = ct_rctx(t, KC_API_LEAVE_GROUP, version);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_leave_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    resp_t *r = ct_find_resp(t, x.correlation_id);
    assert_non_null(r);
    kc_leave_group_response_t out;
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_leave_group_response_decode(&rd, version, &t->arena, &out), 0);
    return out;
}

/* After GroupMetadataManagerTest.testStaticMembersUnknownInstanceBatchLeaveGroup,
 * testLeaveGroupUnknownMemberIdExistingGroup and testValidLeaveGroup:
 * LeaveGroup v3 of an unknown instance id fails for that member only, of a
 * known one removes it and rebalances; LeaveGroup v1 carries the member's
 * error at the top level; once the last member has left the group is Empty.
 */
static void test_leave_group_by_instance_id(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    static_group(t, 5, &l, &f, &gen);
    kc_leave_group_response_t r = leave(t, 3, "", "nope");
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.members.count, 1);
    assert_int_equal(r.members.items[0].error_code, 25);
    r = leave(t, 3, "", "leader-instance");
    assert_int_equal(r.members.items[0].error_code, 0);
    assert_int_equal(heartbeat(t, l, "leader-instance", gen), 25);
    assert_int_equal(heartbeat(t, f, NULL, gen), 27);
    /* v1: the member's error comes at the top level. */
    r = leave(t, 1, "ghost", NULL);
    assert_int_equal(r.error_code, 25);
    r = leave(t, 1, f, NULL);
    assert_int_equal(r.error_code, 0);
    /* Nobody left: the group is Empty at the next generation. */
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "Empty");
    check_replay(t, "grp");
    ct_free(t);
}

/* GroupMetadataManagerTest.testStaticMembersValidBatchLeaveGroup: both
 * static members leave by instance id in one LeaveGroup v3; the rebalance
 * reason lists the request's member ids (empty here), one per leave. */
static void test_static_members_valid_batch_leave_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    static_members_join_and_rebalance(t, &l, &f);
    kc_leave_group_request_t req;
    kc_leave_group_request_init(&req);
    req.group_id = kc_str("grp");
    req.members.count = 2;
    req.members.items = kc_arena_alloc(&t->arena, 2 * sizeof(*req.members.items));
    const char *iids[2] = {"leader-instance", "follower-instance"};
    for (int i = 0; i < 2; i++) {
        req.members.items[i].member_id = kc_str("");
        req.members.items[i].group_instance_id = kc_str(iids[i]);
        req.members.items[i].reason = KC_STR_NULL;
    }
    kc_request_ctx_t x = ct_rctx(t, KC_API_LEAVE_GROUP, 3);
    kc_result_t res;
    kc_result_init(&res);
    log_capture_begin();
    kc_coord_leave_group(t->c, &x, &req, &res);
    char *logged = log_capture_end(t);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    kc_leave_group_response_t out;
    kc_reader_t rd;
    resp_t *r = ct_find_resp(t, x.correlation_id);
    assert_non_null(r);
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_leave_group_response_decode(&rd, 3, &t->arena, &out), 0);
    assert_int_equal(out.error_code, 0);
    assert_int_equal(out.members.count, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(out.members.items[i].error_code, 0);
        assert_string_equal(ct_cstr(t, out.members.items[i].group_instance_id), iids[i]);
    }
    assert_non_null(strstr(logged, "(reason: explicit `LeaveGroup` request for (, ) members.)"));
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "Empty");
    check_replay(t, "grp");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testPendingMembersLeaveGroup: a pending
 * member (handed an id by MEMBER_ID_REQUIRED) leaves; its id is forgotten, so
 * a JoinGroup with it is UNKNOWN_MEMBER_ID. */
static void test_leave_pending_member(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t c = send_join(t, (join_args_t){0});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, c, &jr));
    char *mid = ct_cstr(t, jr.member_id);
    kc_leave_group_response_t r = leave(t, 3, mid, NULL);
    assert_int_equal(r.members.items[0].error_code, 0);
    /* The pending id is forgotten: joining with it is refused. */
    c = send_join(t, (join_args_t){.member_id = mid});
    assert_true(join_resp(t, c, &jr));
    assert_int_equal(jr.error_code, 25);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testJoinGroupShouldReceiveErrorIfGroupOverMaxSize:
 * with group.max.size 1 and one member, a new member's JoinGroup is
 * GROUP_MAX_SIZE_REACHED, without a member id. */
static void test_group_max_size_reached(void **state)
{
    (void)state;
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_max_size = 1;
    ctx_t *t = ctx_new_cfg(&cfg);
    join_and_sync_single(t);
    int32_t c = send_join(t, (join_args_t){.version = 3});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, c, &jr));
    assert_int_equal(jr.error_code, 81);
    assert_string_equal(ct_cstr(t, jr.member_id), "");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testDescribeGroupStable,
 * testDescribeGroupsBeforeV6GroupIdNotFoundException,
 * testDescribeGroupsGroupIdNotFoundException and testListGroups:
 * DescribeGroups of a Stable group, of an unknown one below v6 (Dead) and
 * from v6 (GROUP_ID_NOT_FOUND); ListGroups v5 with state and type filters;
 * DeleteGroups refusing the non-empty group, then deleting it with a
 * tombstone. */
static void test_describe_list_delete(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *mid = join_and_sync_single(t);
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_int_equal(d.groups.count, 1);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "Stable");
    assert_string_equal(ct_cstr(t, d.groups.items[0].protocol_data), "range");
    assert_int_equal(d.groups.items[0].members.count, 1);
    assert_string_equal(ct_cstr(t, d.groups.items[0].members.items[0].member_id), mid);
    assert_true(d.groups.items[0].members.items[0].member_metadata.len > 0);
    assert_int_equal(d.groups.items[0].authorized_operations, 3400);
    describe(t, t->c, 5, "other", &d);
    assert_int_equal(d.groups.items[0].error_code, 0);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "Dead");
    /* Error-free entries carry the authorized operations (KafkaApis). */
    assert_int_equal(d.groups.items[0].authorized_operations, 3400);
    assert_int_equal(d.groups.items[0].members.count, 0);
    describe(t, t->c, 6, "other", &d);
    assert_int_equal(d.groups.items[0].error_code, 69);
    assert_int_equal(d.groups.items[0].authorized_operations, INT32_MIN);
    assert_string_equal(ct_cstr(t, d.groups.items[0].error_message), "Group other not found.");

    /* ListGroups v5 with filters. */
    const char *filters[][2] = {{"STABLE", "Classic"}, {"empty", NULL}, {NULL, "consumer"}};
    int expect[] = {1, 0, 0};
    for (int i = 0; i < 3; i++) {
        kc_list_groups_request_t req;
        kc_list_groups_request_init(&req);
        kc_str_t s = kc_str(filters[i][0]), ty = kc_str(filters[i][1]);
        req.states_filter.items = &s;
        req.states_filter.count = filters[i][0] ? 1 : 0;
        req.types_filter.items = &ty;
        req.types_filter.count = filters[i][1] ? 1 : 0;
        kc_request_ctx_t x = ct_rctx(t, KC_API_LIST_GROUPS, 5);
        kc_result_t res;
        kc_result_init(&res);
        kc_coord_list_groups(t->c, &x, &req, &res);
        kc_list_groups_response_t out;
        kc_reader_t rd;
        kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
        assert_int_equal(kc_list_groups_response_decode(&rd, 5, &t->arena, &out), 0);
        assert_int_equal(out.groups.count, expect[i]);
        if (expect[i]) {
            assert_string_equal(ct_cstr(t, out.groups.items[0].group_type), "classic");
            assert_string_equal(ct_cstr(t, out.groups.items[0].protocol_type), "consumer");
        }
        kc_result_deinit(&res);
    }

    /* DeleteGroups: non-empty, unknown, then empty. */
    for (int round = 0; round < 2; round++) {
        kc_delete_groups_request_t req;
        kc_delete_groups_request_init(&req);
        kc_str_t names[2] = {kc_str("grp"), kc_str("other")};
        req.groups_names.items = names;
        req.groups_names.count = 2;
        kc_request_ctx_t x = ct_rctx(t, KC_API_DELETE_GROUPS, 2);
        kc_result_t res;
        kc_result_init(&res);
        log_capture_begin();
        kc_coord_delete_groups(t->c, &x, &req, &res);
        char *logged = log_capture_end(t);
        ct_keep(t, &res);
        /* One summary line per request, as GroupCoordinatorShard.deleteGroups. */
        assert_non_null(strstr(logged, round == 0 ? "The following groups were deleted: . A total "
                                                    "of 0 offsets were removed."
                                                  : "The following groups were deleted: grp. A "
                                                    "total of 0 offsets were removed."));
        kc_delete_groups_response_t out;
        kc_reader_t rd;
        kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
        assert_int_equal(kc_delete_groups_response_decode(&rd, 2, &t->arena, &out), 0);
        assert_int_equal(out.results.items[0].error_code, round == 0 ? 68 : 0);
        assert_int_equal(out.results.items[1].error_code, 69);
        assert_int_equal(res.nrecords, round == 0 ? 0 : 1);
        if (round == 1)
            assert_true(res.records[0].tombstone);
        ct_absorb(t, &res);
        kc_result_deinit(&res);
        if (round == 0)
            leave(t, 3, mid, NULL);
    }
    assert_null(kc_classic_group_find(t->c, kc_str("grp")));
    check_replay(t, "grp");
    ct_free(t);
}

/* ListGroups v5 group ids, comma-separated, as c lists them. */
static char *list_group_ids(ctx_t *t, kc_coord_t *c)
{
    kc_list_groups_request_t req;
    kc_list_groups_request_init(&req);
    kc_request_ctx_t x = ct_rctx(t, KC_API_LIST_GROUPS, 5);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_list_groups(c, &x, &req, &res);
    kc_list_groups_response_t out;
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_list_groups_response_decode(&rd, 5, &t->arena, &out), 0);
    char *ids = kc_arena_alloc(&t->arena, 1024);
    ids[0] = 0;
    for (int32_t i = 0; i < out.groups.count; i++) {
        if (i)
            strcat(ids, ",");
        strcat(ids, ct_cstr(t, out.groups.items[i].group_id));
    }
    kc_result_deinit(&res);
    return ids;
}

/* ListGroups lists the groups in the order Kafka visits them: the
 * __consumer_offsets partitions (50) in the order of the runtime's
 * ConcurrentHashMap, then each partition's TimelineHashMap by hash slot,
 * a slot's later entry first (its iterators hand a slot out from the last
 * entry), a deleted and re-created group going first in its slot. The
 * s-* groups all fall in grp-0's partition (12). The expected orders are
 * those Kafka's own BaseHashTable and a ConcurrentHashMap of
 * TopicPartitions give for the same puts and removal. */
static void test_list_groups_in_table_order(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    static const char *const names[] = {"grp-0", "grp-1", "grp-2", "grp-3", "s-4",
                                        "s-24", "s-143", "s-224", "s-305", "s-350",
                                        "s-387", "s-431", "s-468"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        send_join(t, (join_args_t){.group = names[i]});
    kc_delete_groups_request_t dreq;
    kc_delete_groups_request_init(&dreq);
    kc_str_t del = kc_str("s-4");
    dreq.groups_names.items = &del;
    dreq.groups_names.count = 1;
    kc_request_ctx_t x = ct_rctx(t, KC_API_DELETE_GROUPS, 2);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_delete_groups(t->c, &x, &dreq, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    send_join(t, (join_args_t){.group = "s-4"});
    const char *expected =
        "grp-1,s-468,s-350,s-224,s-4,s-431,s-305,s-24,grp-0,s-387,s-143,grp-3,grp-2";
    assert_string_equal(list_group_ids(t, t->c), expected);

    /* A coordinator rebuilt from the records lists them the same way.
     * Replaying a record of an existing group replaces it in place, but the
     * put still grows its full table (8 -> 16 slots), which reorders it. */
    const rec_t *r0 = NULL;
    for (size_t i = 0; i < t->nrecs; i++)
        if (t->recs[i].key.len > 5 && memcmp(t->recs[i].key.data + t->recs[i].key.len - 5, "grp-0", 5) == 0)
            r0 = &t->recs[i];
    assert_non_null(r0);
    for (int again = 0; again < 2; again++) {
        kc_coord_t *c2 = kc_coord_new(&t->cfg, NULL);
        ct_replay_log(t, c2, false);
        if (again)
            assert_int_equal(kc_coord_replay(c2, r0->key.data, r0->key.len, r0->value.data, r0->value.len), 0);
        kc_coord_loaded(c2, t->now);
        assert_string_equal(list_group_ids(t, c2),
                            again ? "grp-1,s-468,s-350,s-224,s-431,s-4,s-305,s-24,grp-0,s-387,s-143,grp-3,grp-2"
                                  : expected);
        kc_coord_free(c2);
    }
    ct_free(t);
}

/* GroupMetadataManagerTest.testNewMemberJoinExpiration: during a rebalance
 * that waits for a member with long timeouts, a new member's JoinGroup is
 * answered UNKNOWN_MEMBER_ID when the new-member join timeout (300 s) ends,
 * and only the first member stays. */
static void test_new_member_join_expiration(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t new_member_join_timeout = t->cfg.group_new_member_join_timeout_ms;
    assert_int_equal(new_member_join_timeout, 300000);
    int32_t a = send_join(t, (join_args_t){.version = 3, .session_ms = 5000 + new_member_join_timeout,
                                           .rebalance_ms = 2 * new_member_join_timeout});
    ct_jump(t, 3000);
    kc_join_group_response_t ja;
    assert_true(join_resp(t, a, &ja));
    assert_int_equal(ja.error_code, 0);
    char *first = ct_cstr(t, ja.member_id);
    int32_t b = send_join(t, (join_args_t){.version = 3, .session_ms = 10000, .rebalance_ms = 10000});
    assert_null(ct_find_resp(t, b));
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "PreparingRebalance");
    assert_int_equal(d.groups.items[0].members.count, 2);
    ct_jump(t, new_member_join_timeout - 1);
    assert_null(ct_find_resp(t, b));
    ct_jump(t, 1);
    kc_join_group_response_t jb;
    assert_true(join_resp(t, b, &jb));
    assert_int_equal(jb.error_code, 25);
    assert_int_equal(jb.member_id.len, 0);
    describe(t, t->c, 5, "grp", &d);
    assert_int_equal(d.groups.items[0].members.count, 1);
    assert_string_equal(ct_cstr(t, d.groups.items[0].members.items[0].member_id), first);
    ct_free(t);
}

/* Kafka keeps a classic group's members in a java.util.HashMap keyed by
 * member id, and everything that lists them (the leader's JoinGroup member
 * list, DescribeGroups, the record) and the choice of a new leader follow
 * its iteration order, not the join order. The member ids are those the
 * seeded generator hands out; the expected order is what a HashMap gives
 * for them (checked with java.util.HashMap). */
static void test_members_in_hash_map_order(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *ids[5];
    int32_t corr[5];
    for (int i = 0; i < 5; i++)
        corr[i] = send_join(t, (join_args_t){.version = 3});
    ct_jump(t, 3000);
    ct_jump(t, 3000);
    ct_jump(t, 3000);
    ct_jump(t, 1000);
    kc_join_group_response_t leader;
    memset(&leader, 0, sizeof(leader));
    for (int i = 0; i < 5; i++) {
        kc_join_group_response_t jr;
        assert_true(join_resp(t, corr[i], &jr));
        ids[i] = ct_cstr(t, jr.member_id);
        if (i == 0)
            leader = jr;
    }
    static const int order[5] = {0, 1, 4, 3, 2};
    assert_int_equal(leader.members.count, 5);
    for (int i = 0; i < 5; i++)
        assert_string_equal(ct_cstr(t, leader.members.items[i].member_id), ids[order[i]]);
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    for (int i = 0; i < 5; i++)
        assert_string_equal(ct_cstr(t, d.groups.items[0].members.items[i].member_id), ids[order[i]]);
    /* The leader leaves, then its successor: the next leader is the first
     * member the map iterates (ids[4]), not the earliest joiner (ids[2]). */
    leave(t, 3, ids[0], NULL);
    leave(t, 3, ids[1], NULL);
    for (int i = 2; i < 5; i++)
        corr[i] = send_join(t, (join_args_t){.version = 3, .member_id = ids[i]});
    for (int i = 2; i < 5; i++) {
        kc_join_group_response_t jr;
        assert_true(join_resp(t, corr[i], &jr));
        assert_int_equal(jr.error_code, 0);
        assert_string_equal(ct_cstr(t, jr.leader), ids[4]);
    }
    ct_free(t);

    /* Past 12 members the map doubles to 32 buckets, which reorders it. */
    t = ctx_new();
    char *many[14];
    int32_t mc[14];
    for (int i = 0; i < 14; i++)
        mc[i] = send_join(t, (join_args_t){.version = 3});
    for (int i = 0; i < 20 && !ct_find_resp(t, mc[0]); i++)
        ct_jump(t, 500);
    for (int i = 0; i < 14; i++) {
        kc_join_group_response_t jr;
        assert_true(join_resp(t, mc[i], &jr));
        many[i] = ct_cstr(t, jr.member_id);
        if (i == 0)
            leader = jr;
    }
    static const int order14[14] = {12, 0, 5, 1, 10, 3, 7, 8, 6, 4, 11, 9, 2, 13};
    assert_int_equal(leader.members.count, 14);
    for (int i = 0; i < 14; i++)
        assert_string_equal(ct_cstr(t, leader.members.items[i].member_id), many[order14[i]]);
    ct_free(t);
}

/* GroupMetadataManagerTest.testJoinGroupCompletionWhenPendingMemberTimesOut:
 * a pending member (handed an id by MEMBER_ID_REQUIRED, never rejoined) holds
 * the join phase back until its session expires; then the phase completes
 * with the members that did rejoin, CompletingRebalance with two members. */
static void test_join_group_completion_when_pending_member_times_out(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_short_sessions();
    char *ids[2];
    int32_t gen = join_with_n_members(t, 2, 10000, 5000, ids);
    const char *as[] = {"A0", "A1"};
    send_sync(t, ids[0], NULL, gen, 2, (const char **)ids, as, 3);
    int32_t p = send_join(t, (join_args_t){.version = 5, .session_ms = 2500});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, p, &jr));
    assert_int_equal(jr.error_code, 79);
    int32_t j0 = send_join(t, (join_args_t){.version = 3, .member_id = ids[0], .session_ms = 5000});
    int32_t j1 = send_join(t, (join_args_t){.version = 3, .member_id = ids[1], .session_ms = 5000});
    assert_null(ct_find_resp(t, j0));
    assert_null(ct_find_resp(t, j1));
    kc_describe_groups_response_t d;
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "PreparingRebalance");
    ct_jump(t, 2499);
    assert_null(ct_find_resp(t, j0));
    ct_jump(t, 1);
    assert_true(join_resp(t, j0, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_int_equal(jr.generation_id, gen + 1);
    assert_int_equal(jr.members.count, 2);
    assert_true(join_resp(t, j1, &jr));
    assert_int_equal(jr.error_code, 0);
    describe(t, t->c, 5, "grp", &d);
    assert_string_equal(ct_cstr(t, d.groups.items[0].group_state), "CompletingRebalance");
    assert_int_equal(d.groups.items[0].members.count, 2);
    ct_free(t);
}

/* A member that sends a second JoinGroup while its first is parked takes
 * the place of the first: Kafka overwrites the member's join future, so the
 * first request is never answered (its connection stays waiting, as on
 * Kafka) and the second gets the rebalance's answer. The same holds for a
 * parked SyncGroup. */
static void test_second_join_replaces_parked_join(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *ids[2];
    int32_t gen = join_with_n_members(t, 2, 10000, 10000, ids);
    const char *as[] = {"A0", "A1"};
    send_sync(t, ids[0], NULL, gen, 2, (const char **)ids, as, 3);
    send_sync(t, ids[1], NULL, gen, 0, NULL, NULL, 3);
    int32_t first = send_join(t, (join_args_t){.version = 3, .member_id = ids[1], .topic = "bar"});
    int32_t second = send_join(t, (join_args_t){.version = 3, .member_id = ids[1], .topic = "bar"});
    assert_null(ct_find_resp(t, first));
    assert_null(ct_find_resp(t, second));
    int32_t lj = send_join(t, (join_args_t){.version = 3, .member_id = ids[0]});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, lj, &jr));
    assert_int_equal(jr.generation_id, gen + 1);
    assert_true(join_resp(t, second, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_int_equal(jr.generation_id, gen + 1);
    assert_null(ct_find_resp(t, first));
    /* SyncGroup: the follower syncs twice, the leader's assignment answers
     * the second only. */
    int32_t s1 = send_sync(t, ids[1], NULL, gen + 1, 0, NULL, NULL, 3);
    int32_t s2 = send_sync(t, ids[1], NULL, gen + 1, 0, NULL, NULL, 3);
    send_sync(t, ids[0], NULL, gen + 1, 2, (const char **)ids, as, 3);
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, s2, &sr));
    assert_int_equal(sr.error_code, 0);
    assert_memory_equal(sr.assignment.ptr, "A1", 2);
    assert_null(ct_find_resp(t, s1));
    ct_jump(t, 60000); /* nothing ever answers them */
    assert_null(ct_find_resp(t, first));
    assert_null(ct_find_resp(t, s1));
    ct_free(t);
}

/* KafkaApis deletes the distinct group ids of a DeleteGroups request (v3
 * here): a repeated id gets one answer, not a second GROUP_ID_NOT_FOUND. */
static void test_delete_groups_answers_each_group_once(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    send_join(t, (join_args_t){0}); /* an Empty group with a pending member */
    kc_delete_groups_request_t req;
    kc_delete_groups_request_init(&req);
    kc_str_t names[3] = {kc_str("grp"), kc_str("other"), kc_str("grp")};
    req.groups_names.items = names;
    req.groups_names.count = 3;
    kc_request_ctx_t x = ct_rctx(t, KC_API_DELETE_GROUPS, 3);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_delete_groups(t->c, &x, &req, &res);
    ct_keep(t, &res);
    kc_delete_groups_response_t out;
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_delete_groups_response_decode(&rd, 3, &t->arena, &out), 0);
    assert_int_equal(out.results.count, 2);
    assert_string_equal(ct_cstr(t, out.results.items[0].group_id), "grp");
    assert_int_equal(out.results.items[0].error_code, 0);
    assert_string_equal(ct_cstr(t, out.results.items[1].group_id), "other");
    assert_int_equal(out.results.items[1].error_code, 69);
    /* v3 ErrorMessage: Kafka sets it only when the whole operation fails, not
     * for a per-group GROUP_ID_NOT_FOUND / NON_EMPTY_GROUP. */
    assert_int_equal(out.results.items[0].error_message.len, -1);
    assert_int_equal(out.results.items[1].error_message.len, -1);
    assert_int_equal(res.nrecords, 1);
    assert_true(res.records[0].tombstone);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    check_replay(t, "grp");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testClassicGroupOnUnloadedCompletingRebalance
 * and testClassicGroupOnUnloadedEmptyAndPreparingRebalance: unloading
 * (GroupMetadataManager.onUnloaded) answers every parked JoinGroup and
 * SyncGroup NOT_COORDINATOR and logs each group. */
static void test_unload_answers_parked_requests_not_coordinator(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *ids[2];
    int32_t gen = join_with_n_members(t, 2, 10000, 10000, ids);
    int32_t fs = send_sync(t, ids[1], NULL, gen, 0, NULL, NULL, 3);
    int32_t oj = send_join(t, (join_args_t){.version = 3, .group = "other"});
    assert_null(ct_find_resp(t, fs));
    assert_null(ct_find_resp(t, oj));
    kc_result_t res;
    kc_result_init(&res);
    log_capture_begin();
    kc_coord_unload(t->c, &res);
    char *logged = log_capture_end(t);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    kc_sync_group_response_t sr;
    assert_true(sync_resp(t, fs, &sr));
    assert_int_equal(sr.error_code, 16);
    kc_join_group_response_t jr;
    assert_true(join_resp(t, oj, &jr));
    assert_int_equal(jr.error_code, 16);
    assert_true(jr.member_id.len > 0);
    assert_non_null(strstr(logged, "[GroupId=grp] Unloading group metadata for generation 1."));
    assert_non_null(strstr(logged, "[GroupId=other] Unloading group metadata for generation 0."));
    ct_reload(t); /* the server loads the coordinator again */
    ct_free(t);
}

/* GroupMetadataManagerTest.testJoinGroupSecondJoinInconsistentProtocol: a
 * pending member rejoining without any protocol is refused
 * (INCONSISTENT_GROUP_PROTOCOL) and writes nothing; it stays pending, so its
 * next, valid join is accepted after the initial delay. */
static void test_join_group_second_join_inconsistent_protocol(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t c1 = send_join(t, (join_args_t){0});
    kc_join_group_response_t jr;
    assert_true(join_resp(t, c1, &jr));
    assert_int_equal(jr.error_code, 79);
    char *mid = ct_cstr(t, jr.member_id);

    kc_join_group_request_t req;
    kc_join_group_request_init(&req);
    req.group_id = kc_str("grp");
    req.session_timeout_ms = 10000;
    req.rebalance_timeout_ms = 10000;
    req.member_id = kc_str(mid);
    req.protocol_type = kc_str("consumer");
    req.protocols.count = 0;
    kc_request_ctx_t x = ct_rctx(t, KC_API_JOIN_GROUP, 5);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_join_group(t->c, &x, &req, &res);
    assert_int_equal(res.nrecords, 0);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    assert_true(join_resp(t, x.correlation_id, &jr));
    assert_int_equal(jr.error_code, 23);
    assert_string_equal(ct_cstr(t, jr.member_id), mid);

    int32_t c3 = send_join(t, (join_args_t){.member_id = mid});
    assert_null(ct_find_resp(t, c3));
    ct_jump(t, 3000);
    assert_true(join_resp(t, c3, &jr));
    assert_int_equal(jr.error_code, 0);
    assert_string_equal(ct_cstr(t, jr.member_id), mid);
    ct_free(t);
}

/* DescribeGroups ids, comma-separated, in the order the response lists them. */
static char *describe_order(ctx_t *t, const char *const *ids, int n)
{
    kc_describe_groups_request_t req;
    kc_describe_groups_request_init(&req);
    kc_str_t *g = kc_arena_alloc(&t->arena, (size_t)n * sizeof(*g));
    for (int i = 0; i < n; i++)
        g[i] = kc_str(ids[i]);
    req.groups.items = g;
    req.groups.count = n;
    kc_request_ctx_t x = ct_rctx(t, KC_API_DESCRIBE_GROUPS, 5);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_describe_groups(t->c, &x, &req, &res);
    kc_describe_groups_response_t out;
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_describe_groups_response_decode(&rd, 5, &t->arena, &out), 0);
    assert_int_equal(out.groups.count, n);
    char *s = kc_arena_alloc(&t->arena, 1024);
    s[0] = 0;
    for (int32_t i = 0; i < out.groups.count; i++) {
        if (i)
            strcat(s, ",");
        strcat(s, ct_cstr(t, out.groups.items[i].group_id));
    }
    kc_result_deinit(&res);
    return s;
}

/* Kafka answers a batch of group ids partition by partition (a HashMap of
 * __consumer_offsets partitions), not in request order. The expected
 * orders are what that HashMap gives for these ids (checked with Java). */
static void test_describe_and_delete_groups_answer_in_partition_order(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    const char *five[] = {"grp-0", "grp-1", "grp-2", "grp-3", "s-4", "other"};
    assert_string_equal(describe_order(t, five, 6), "grp-3,grp-1,grp-2,grp-0,s-4,other");
    /* 17 partitions: the map has grown to 32 buckets. */
    const char *many[] = {"grp-3", "grp-2", "grp-1", "grp-0", "s-4", "grp-10", "grp-20",
                          "grp-30", "grp-40", "a", "b", "c", "d", "e", "f", "g", "h", "i",
                          "j", "k"};
    assert_string_equal(describe_order(t, many, 20),
                        "a,grp-3,b,grp-10,grp-1,grp-2,grp-20,grp-0,s-4,c,d,k,i,j,g,h,e,grp-30,"
                        "grp-40,f");

    kc_delete_groups_request_t req;
    kc_delete_groups_request_init(&req);
    kc_str_t names[4] = {kc_str("grp-0"), kc_str("grp-1"), kc_str("grp-0"), kc_str("s-4")};
    req.groups_names.items = names;
    req.groups_names.count = 4;
    kc_request_ctx_t x = ct_rctx(t, KC_API_DELETE_GROUPS, 3);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_delete_groups(t->c, &x, &req, &res);
    ct_keep(t, &res);
    kc_delete_groups_response_t out;
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_delete_groups_response_decode(&rd, 3, &t->arena, &out), 0);
    assert_int_equal(out.results.count, 3);
    assert_string_equal(ct_cstr(t, out.results.items[0].group_id), "grp-1");
    assert_string_equal(ct_cstr(t, out.results.items[1].group_id), "grp-0");
    assert_string_equal(ct_cstr(t, out.results.items[2].group_id), "s-4");
    for (int i = 0; i < 3; i++)
        assert_int_equal(out.results.items[i].error_code, 69);
    kc_result_deinit(&res);
    ct_free(t);
}

/* With offsets.topic.num.partitions = 1 every group shares one partition:
 * DescribeGroups answers in request order, DeleteGroups in the order of a
 * java.util.HashSet of the distinct ids, and ListGroups walks the one
 * table slot by slot (the orders are those of Kafka 4.4 with one
 * __consumer_offsets partition). */
static void test_one_offsets_partition_orders(void **state)
{
    (void)state;
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    assert_int_equal(cfg.offsets_topic_num_partitions, 50);
    cfg.offsets_topic_num_partitions = 1;
    ctx_t *t = ctx_new_cfg(&cfg);
    const char *five[] = {"grp-0", "grp-1", "grp-2", "grp-3", "s-4", "other"};
    assert_string_equal(describe_order(t, five, 6), "grp-0,grp-1,grp-2,grp-3,s-4,other");
    const char *rev[] = {"other", "s-4", "grp-3", "grp-2", "grp-1", "grp-0"};
    assert_string_equal(describe_order(t, rev, 6), "other,s-4,grp-3,grp-2,grp-1,grp-0");

    kc_delete_groups_request_t req;
    kc_delete_groups_request_init(&req);
    kc_str_t names[4] = {kc_str("s-4"), kc_str("grp-1"), kc_str("s-4"), kc_str("grp-0")};
    req.groups_names.items = names;
    req.groups_names.count = 4;
    kc_request_ctx_t x = ct_rctx(t, KC_API_DELETE_GROUPS, 3);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_delete_groups(t->c, &x, &req, &res);
    ct_keep(t, &res);
    kc_delete_groups_response_t out;
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_delete_groups_response_decode(&rd, 3, &t->arena, &out), 0);
    assert_int_equal(out.results.count, 3);
    /* Through a HashSet of the partition's ids: buckets 8, 9 and 11. */
    assert_string_equal(ct_cstr(t, out.results.items[0].group_id), "grp-0");
    assert_string_equal(ct_cstr(t, out.results.items[1].group_id), "grp-1");
    assert_string_equal(ct_cstr(t, out.results.items[2].group_id), "s-4");
    kc_result_deinit(&res);

    static const char *const groups[] = {"grp-0", "grp-1", "grp-2", "grp-3", "s-4"};
    for (size_t i = 0; i < 5; i++)
        send_join(t, (join_args_t){.group = groups[i]});
    /* Five puts grow the table to 4 slots; their slots are 3, 1, 0, 2, 1. */
    assert_string_equal(list_group_ids(t, t->c), "grp-2,s-4,grp-1,grp-3,grp-0");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testOnLoadedSchedulesClassicGroupMemberHeartbeats:
 * a coordinator rebuilt from the records schedules the members' sessions when
 * the load ends, not before; nobody heartbeats, both sessions expire and the
 * emptied group writes its record. */
static void test_loaded_group_session_expires(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    char *l, *f;
    int32_t gen;
    two_member_group(t, &l, &f, &gen);
    /* Restart: replay the records, nobody heartbeats; both sessions expire. */
    kc_coord_t *c2 = kc_coord_new(&t->cfg, NULL);
    ct_replay_log(t, c2, false);
    assert_int_equal(kc_coord_next_deadline(c2), INT64_MAX);
    kc_coord_loaded(c2, 1000);
    assert_int_equal(kc_coord_next_deadline(c2), 11000);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_tick(c2, 11000, &res);
    /* The group emptied: one record at the next generation. */
    assert_int_equal(res.nrecords, 1);
    kc_classic_group_t *g = kc_classic_group_find(c2, kc_str("grp"));
    assert_true(kc_classic_group_is_empty_state(g));
    kc_result_deinit(&res);
    kc_coord_free(c2);
    ct_free(t);
}

/* Joins group g at v3 with one consumer-protocol member whose metadata is
 * meta, and completes the rebalance. */
static kc_classic_group_t *group_with_metadata(ctx_t *t, const char *g, const uint8_t *meta,
                                               size_t len)
{
    kc_join_group_request_t req;
    kc_join_group_request_init(&req);
    req.group_id = kc_str(g);
    req.session_timeout_ms = 10000;
    req.rebalance_timeout_ms = 10000;
    req.member_id = kc_str("");
    req.protocol_type = kc_str("consumer");
    kc_join_group_request_protocol_t p = {kc_str("range"), {meta, (int32_t)len}};
    req.protocols.items = &p;
    req.protocols.count = 1;
    kc_request_ctx_t x = ct_rctx(t, KC_API_JOIN_GROUP, 3);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_join_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    ct_jump(t, 0);
    kc_join_group_response_t jr;
    assert_true(join_resp(t, x.correlation_id, &jr));
    assert_int_equal(jr.error_code, 0);
    return kc_classic_group_find(t->c, kc_str(g));
}

/* After ClassicGroupTest.testComputeSubscribedTopicsHandlesMalformedMemberMetadata:
 * ClassicGroup.computeSubscribedTopics reads each subscription at version 0
 * (Topics, then UserData) whatever its version prefix: a subscription without
 * its UserData does not parse (the subscribed topics are unknown, so every
 * topic counts as subscribed), one with a negative prefix does. */
static void test_subscribed_topics_read_at_version_0(void **state)
{
    (void)state;
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_initial_rebalance_delay_ms = 0;
    ctx_t *t = ctx_new_cfg(&cfg);
    static const uint8_t no_user_data[] = {0, 0, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o'};
    kc_classic_group_t *g = group_with_metadata(t, "a", no_user_data, sizeof(no_user_data));
    assert_true(kc_classic_group_is_subscribed_to(g, kc_str("bar")));
    static const uint8_t negative[] = {0xff, 0xfe, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o',
                                       0xff, 0xff, 0xff, 0xff};
    g = group_with_metadata(t, "b", negative, sizeof(negative));
    assert_true(kc_classic_group_is_subscribed_to(g, kc_str("foo")));
    assert_false(kc_classic_group_is_subscribed_to(g, kc_str("bar")));
    /* Bytes after the v0 layout (later versions' fields) are not read. */
    static const uint8_t v9[] = {0, 9, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o', 0xff, 0xff, 0xff, 0xff,
                                 0xde, 0xad};
    g = group_with_metadata(t, "c", v9, sizeof(v9));
    assert_false(kc_classic_group_is_subscribed_to(g, kc_str("bar")));
    ct_free(t);
}

static void test_replay_rejects_garbage(void **state)
{
    (void)state;
    kc_coord_t *c = kc_coord_new(NULL, NULL);
    const uint8_t key[] = {0, 2, 0, 50, 'x'};
    assert_int_equal(kc_coord_replay(c, key, sizeof(key), NULL, 0), KC_EINVAL);
    const uint8_t key2[] = {0, 2, 0, 1, 'g'};
    const uint8_t val[] = {0, 3, 0, 9};
    assert_int_equal(kc_coord_replay(c, key2, sizeof(key2), val, sizeof(val)), KC_EINVAL);
    const uint8_t other[] = {0, 18, 0, 1, 'g'}; /* retired type 18: ignored */
    assert_int_equal(kc_coord_replay(c, other, sizeof(other), val, sizeof(val)), 0);
    kc_coord_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_group_unknown_member_id_required),
        cmocka_unit_test(test_join_group_v3_adds_member_without_member_id_required),
        cmocka_unit_test(test_join_group_invalid_inputs),
        cmocka_unit_test(test_reset_rebalance_delay_when_new_member_joins_group_during_initial_rebalance),
        cmocka_unit_test(test_join_and_sync_two_members),
        cmocka_unit_test(test_sync_group_as_leader_append_failure_transforms_error),
        cmocka_unit_test(test_select_protocol),
        cmocka_unit_test(test_sync_group_returns_an_error_when_protocol_type_is_inconsistent),
        cmocka_unit_test(test_sync_group_returns_an_error_when_protocol_name_is_inconsistent),
        cmocka_unit_test(test_sync_group_succeed_when_protocol_type_and_name_are_not_provided),
        cmocka_unit_test(test_sync_group_succeed_when_protocol_type_and_name_are_consistent),
        cmocka_unit_test(test_sync_group_v5_requires_protocol_type_and_name),
        cmocka_unit_test(test_rebalance_times_out_when_sync_request_is_not_received),
        cmocka_unit_test(test_rebalance_times_out_when_sync_request_is_not_received_from_followers),
        cmocka_unit_test(test_rebalance_times_out_when_sync_request_is_not_received_from_leaders),
        cmocka_unit_test(test_rebalance_does_not_time_out_when_all_sync_are_received),
        cmocka_unit_test(test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_with_selected_protocol_changed),
        cmocka_unit_test(test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_while_select_protocol_unchanged),
        cmocka_unit_test(test_static_member_fence_duplicate_rejoined_follower),
        cmocka_unit_test(test_static_member_fence_duplicate_syncing_follower_after_member_id_changed),
        cmocka_unit_test(test_list_groups_in_table_order),
        cmocka_unit_test(test_new_member_join_expiration),
        cmocka_unit_test(test_members_in_hash_map_order),
        cmocka_unit_test(test_join_group_completion_when_pending_member_times_out),
        cmocka_unit_test(test_second_join_replaces_parked_join),
        cmocka_unit_test(test_delete_groups_answers_each_group_once),
        cmocka_unit_test(test_static_members_valid_batch_leave_group),
        cmocka_unit_test(test_unload_answers_parked_requests_not_coordinator),
        cmocka_unit_test(test_join_group_second_join_inconsistent_protocol),
        cmocka_unit_test(test_describe_and_delete_groups_answer_in_partition_order),
        cmocka_unit_test(test_one_offsets_partition_orders),
        cmocka_unit_test(test_heartbeat_errors_by_state),
        cmocka_unit_test(test_session_expiry_removes_member_and_rebalances),
        cmocka_unit_test(test_complete_join_remove_not_yet_rejoined_dynamic_members),
        cmocka_unit_test(test_static_leader_rejoin_v9_skip_assignment),
        cmocka_unit_test(test_static_leader_rejoin_below_v9_names_old_leader),
        cmocka_unit_test(test_static_member_replacement_fences_pending_join),
        cmocka_unit_test(test_fenced_instance_id_with_stale_member_id),
        cmocka_unit_test(test_leave_group_by_instance_id),
        cmocka_unit_test(test_leave_pending_member),
        cmocka_unit_test(test_group_max_size_reached),
        cmocka_unit_test(test_describe_list_delete),
        cmocka_unit_test(test_loaded_group_session_expires),
        cmocka_unit_test(test_replay_rejects_garbage),
        cmocka_unit_test(test_subscribed_topics_read_at_version_0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
