/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmocka tests of the classic-protocol interop of consumer groups on a
 * driven clock, after the cases of Kafka's GroupMetadataManagerTest: classic
 * members (JoinGroup/SyncGroup/Heartbeat/LeaveGroup) inside a consumer
 * group, their timeouts, the online upgrade and downgrade under
 * group.consumer.migration.policy, the conversions of empty groups, and
 * replay of the records written by a conversion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "consumer_int.h"
#include "coord_test.h"

enum {
    E_NONE = 0,
    E_ILLEGAL_GENERATION = 22,
    E_INCONSISTENT_GROUP_PROTOCOL = 23,
    E_UNKNOWN_MEMBER_ID = 25,
    E_REBALANCE_IN_PROGRESS = 27,
    E_GROUP_ID_NOT_FOUND = 69,
    E_MEMBER_ID_REQUIRED = 79,
    E_FENCED_INSTANCE_ID = 82,
};

#define NPART 6
#define GROUP "g"

static const kc_uuid_t TOPIC_ID = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};

static bool tv_exists(void *ctx, kc_str_t topic)
{
    (void)ctx;
    return kc_str_eq_cstr(topic, "t");
}

static bool tv_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *id)
{
    (void)ctx;
    if (!kc_str_eq_cstr(topic, "t"))
        return false;
    *partitions = NPART;
    *id = TOPIC_ID;
    return true;
}

static bool tv_name(void *ctx, kc_uuid_t id, kc_str_t *name)
{
    (void)ctx;
    if (memcmp(id.b, TOPIC_ID.b, 16) != 0)
        return false;
    *name = kc_str("t");
    return true;
}

static void tv_names(void *ctx, void (*fn)(void *arg, kc_str_t name), void *arg)
{
    (void)ctx;
    fn(arg, kc_str("t"));
}

static const kc_topic_view_t VIEW = {tv_exists, NULL, tv_lookup, tv_name, tv_names};

/* ---- context: coord_test.h, with this file's topic view and settings ------ */

typedef ct_t ctx_t;
typedef ct_response_t resp_t;
typedef ct_record_t rec_t;

static ctx_t *ctx_new_cfg(void (*tweak)(kc_coord_config_t *cfg))
{
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_initial_rebalance_delay_ms = 0;
    if (tweak)
        tweak(&cfg);
    return ct_new(&(ct_opts_t){.cfg = &cfg, .topics = &VIEW, .seed = 11});
}

static ctx_t *ctx_new(void) { return ctx_new_cfg(NULL); }

/* ---- a classic consumer ------------------------------------------------------ */

typedef struct {
    char member_id[64];
    const char *instance_id;
    const char *protocol; /* "range" unless set */
    const char *ptype;    /* "consumer" unless set */
    int32_t generation;
    bool owned[NPART]; /* what it owns (reported in its subscription) */
    int32_t session_ms, rebalance_ms;
    const char *raw_metadata; /* sent instead of the subscription when set */
} cl_t;

static void cl_init(cl_t *cl, const char *id)
{
    memset(cl, 0, sizeof(*cl));
    snprintf(cl->member_id, sizeof(cl->member_id), "%s", id);
    cl->generation = -1;
    cl->session_ms = 10000;
    cl->rebalance_ms = 20000;
}

/* ConsumerProtocolSubscription v1: topic "t" and the owned partitions. */
static kc_bytes_t cl_subscription(ctx_t *t, const cl_t *cl)
{
    kc_consumer_protocol_subscription_t s;
    kc_consumer_protocol_subscription_init(&s);
    kc_str_t *topics = kc_arena_alloc(&t->arena, sizeof(*topics));
    topics[0] = kc_str("t");
    s.topics.items = topics;
    s.topics.count = 1;
    kc_consumer_protocol_subscription_topic_partition_t *tp =
        kc_arena_alloc(&t->arena, sizeof(*tp));
    int32_t *parts = kc_arena_alloc(&t->arena, sizeof(int32_t) * NPART);
    tp->topic = kc_str("t");
    tp->partitions.items = parts;
    tp->partitions.count = 0;
    for (int p = 0; p < NPART; p++)
        if (cl->owned[p])
            parts[tp->partitions.count++] = p;
    s.owned_partitions.items = tp;
    s.owned_partitions.count = 1;
    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_int16(&b, 1);
    assert_int_equal(kc_consumer_protocol_subscription_encode(&b, 1, &s), 0);
    uint8_t *p = kc_arena_alloc(&t->arena, b.len);
    memcpy(p, b.data, b.len);
    kc_bytes_t out = {p, (int32_t)b.len};
    kc_buf_deinit(&b);
    return out;
}

/* Sends a JoinGroup; returns its correlation id (the answer may be parked). */
static int32_t cl_send_join(ctx_t *t, cl_t *cl, int16_t version)
{
    kc_join_group_request_t req;
    kc_join_group_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.session_timeout_ms = cl->session_ms;
    req.rebalance_timeout_ms = cl->rebalance_ms;
    req.member_id = kc_str(cl->member_id);
    req.group_instance_id = kc_str(cl->instance_id);
    req.protocol_type = kc_str(cl->ptype ? cl->ptype : "consumer");
    req.protocols.items = kc_arena_alloc(&t->arena, sizeof(*req.protocols.items));
    req.protocols.count = 1;
    req.protocols.items[0].name = kc_str(cl->protocol ? cl->protocol : "range");
    req.protocols.items[0].metadata =
        cl->raw_metadata
            ? (kc_bytes_t){(const uint8_t *)cl->raw_metadata, (int32_t)strlen(cl->raw_metadata)}
            : cl_subscription(t, cl);
    kc_request_ctx_t x = ct_rctx(t, KC_API_JOIN_GROUP, version);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_join_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    return x.correlation_id;
}

/* The JoinGroup answer of corr (must exist); records the member id and
 * generation on success or MEMBER_ID_REQUIRED. */
static int16_t cl_join_answer(ctx_t *t, cl_t *cl, int32_t corr, kc_join_group_response_t *out)
{
    resp_t *r = ct_find_resp(t, corr);
    assert_non_null(r);
    kc_join_group_response_t jr;
    kc_join_group_response_init(&jr);
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_join_group_response_decode(&rd, r->version, &t->arena, &jr), 0);
    if ((jr.error_code == E_NONE || jr.error_code == E_MEMBER_ID_REQUIRED) && jr.member_id.len > 0)
        snprintf(cl->member_id, sizeof(cl->member_id), "%.*s", (int)jr.member_id.len,
                 jr.member_id.ptr);
    if (jr.error_code == E_NONE)
        cl->generation = jr.generation_id;
    if (out)
        *out = jr;
    return jr.error_code;
}

/* JoinGroup v5, answered at once (a consumer group never parks it). */
static int16_t cl_join(ctx_t *t, cl_t *cl, kc_join_group_response_t *out)
{
    int32_t corr = cl_send_join(t, cl, 5);
    int16_t e = cl_join_answer(t, cl, corr, out);
    if (e == E_MEMBER_ID_REQUIRED) {
        corr = cl_send_join(t, cl, 5);
        e = cl_join_answer(t, cl, corr, out);
    }
    return e;
}

static void decode_assignment(const kc_bytes_t a, bool owned[NPART])
{
    memset(owned, 0, sizeof(bool) * NPART);
    if (a.len <= 0)
        return;
    kc_reader_t rd;
    kc_reader_init(&rd, a.ptr, (size_t)a.len);
    int16_t v = kc_read_int16(&rd);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_protocol_assignment_t asg;
    kc_consumer_protocol_assignment_init(&asg);
    assert_int_equal(kc_consumer_protocol_assignment_decode(&rd, v, &arena, &asg), 0);
    for (int32_t i = 0; i < asg.assigned_partitions.count; i++) {
        assert_true(kc_str_eq_cstr(asg.assigned_partitions.items[i].topic, "t"));
        for (int32_t j = 0; j < asg.assigned_partitions.items[i].partitions.count; j++)
            owned[asg.assigned_partitions.items[i].partitions.items[j]] = true;
    }
    kc_arena_deinit(&arena);
}

typedef struct {
    const char *ptype, *pname; /* NULL: the client's; "" = send null */
    int32_t generation;        /* INT32_MIN: the client's */
} sync_opts_t;

/* SyncGroup v5; on success the client takes the assignment (a cooperative
 * client gives up what is missing from it). Returns the error. */
static int16_t cl_sync_opts(ctx_t *t, cl_t *cl, sync_opts_t o)
{
    kc_sync_group_request_t req;
    kc_sync_group_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.generation_id = o.generation == INT32_MIN ? cl->generation : o.generation;
    req.member_id = kc_str(cl->member_id);
    req.group_instance_id = kc_str(cl->instance_id);
    req.protocol_type = kc_str(o.ptype ? (*o.ptype ? o.ptype : NULL) : "consumer");
    req.protocol_name =
        kc_str(o.pname ? (*o.pname ? o.pname : NULL) : (cl->protocol ? cl->protocol : "range"));
    kc_request_ctx_t x = ct_rctx(t, KC_API_SYNC_GROUP, 5);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_sync_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    resp_t *r = ct_find_resp(t, x.correlation_id);
    if (!r)
        return -1; /* parked (classic group completing its rebalance) */
    kc_sync_group_response_t sr;
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_sync_group_response_decode(&rd, 5, &t->arena, &sr), 0);
    if (sr.error_code == E_NONE) {
        assert_true(kc_str_eq_cstr(sr.protocol_type, "consumer"));
        decode_assignment(sr.assignment, cl->owned);
    }
    return sr.error_code;
}

static int16_t cl_sync(ctx_t *t, cl_t *cl)
{
    return cl_sync_opts(t, cl, (sync_opts_t){NULL, NULL, INT32_MIN});
}

static int16_t cl_heartbeat(ctx_t *t, cl_t *cl)
{
    kc_heartbeat_request_t req;
    kc_heartbeat_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.generation_id = cl->generation;
    req.member_id = kc_str(cl->member_id);
    req.group_instance_id = kc_str(cl->instance_id);
    kc_request_ctx_t x = ct_rctx(t, KC_API_HEARTBEAT, 4);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_heartbeat(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    resp_t *r = ct_find_resp(t, x.correlation_id);
    assert_non_null(r);
    kc_heartbeat_response_t hr;
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_heartbeat_response_decode(&rd, 4, &t->arena, &hr), 0);
    return hr.error_code;
}

/* LeaveGroup v5 of one member; returns the member's error. */
static int16_t cl_leave(ctx_t *t, const char *member_id, const char *instance_id)
{
    kc_leave_group_request_t req;
    kc_leave_group_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.members.items = kc_arena_alloc(&t->arena, sizeof(*req.members.items));
    req.members.count = 1;
    req.members.items[0].member_id = kc_str(member_id);
    req.members.items[0].group_instance_id = kc_str(instance_id);
    req.members.items[0].reason = KC_STR_NULL;
    kc_request_ctx_t x = ct_rctx(t, KC_API_LEAVE_GROUP, 5);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_leave_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    resp_t *r = ct_find_resp(t, x.correlation_id);
    assert_non_null(r);
    kc_leave_group_response_t lr;
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_leave_group_response_decode(&rd, 5, &t->arena, &lr), 0);
    assert_int_equal(lr.error_code, E_NONE);
    assert_int_equal(lr.members.count, 1);
    return lr.members.items[0].error_code;
}

/* The whole classic dance until the member is stable: join, sync, and join
 * again while the heartbeat says so (bounded). */
static void cl_settle(ctx_t *t, cl_t *cl)
{
    for (int round = 0; round < 6; round++) {
        assert_int_equal(cl_join(t, cl, NULL), E_NONE);
        assert_int_equal(cl_sync(t, cl), E_NONE);
        if (cl_heartbeat(t, cl) == E_NONE)
            return;
    }
    fail_msg("classic member %s did not settle", cl->member_id);
}

/* ---- a consumer-protocol member (ConsumerGroupHeartbeat v1) ---------------- */

typedef struct {
    char member_id[64];
    const char *instance_id;
    const char *regex; /* subscribes by this regex instead of the name "t" */
    int32_t epoch;
    bool owned[NPART];
} cm_t;

static int16_t cm_heartbeat(ctx_t *t, cm_t *m, int32_t epoch, char *msg, size_t cap)
{
    kc_consumer_group_heartbeat_request_t req;
    kc_consumer_group_heartbeat_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.member_id = kc_str(m->member_id);
    req.member_epoch = epoch;
    req.instance_id = kc_str(m->instance_id);
    kc_str_t names[1] = {kc_str("t")};
    kc_consumer_group_heartbeat_request_topic_partitions_t tp;
    int32_t parts[NPART];
    tp.topic_id = TOPIC_ID;
    tp.partitions.items = parts;
    tp.partitions.count = 0;
    if (epoch == 0 && m->regex) {
        req.subscribed_topic_regex = kc_str(m->regex);
        req.subscribed_topic_names.count = 0;
    } else if (epoch == 0) {
        req.subscribed_topic_names.items = names;
        req.subscribed_topic_names.count = 1;
    }
    if (epoch == 0) {
        req.rebalance_timeout_ms = 30000;
        req.topic_partitions.items = &tp;
        req.topic_partitions.count = 0;
    } else if (epoch > 0) {
        for (int p = 0; p < NPART; p++)
            if (m->owned[p])
                parts[tp.partitions.count++] = p;
        req.topic_partitions.items = &tp;
        req.topic_partitions.count = 1;
    }
    kc_request_ctx_t x = ct_rctx(t, KC_API_CONSUMER_GROUP_HEARTBEAT, 1);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_heartbeat(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    resp_t *r = ct_find_resp(t, x.correlation_id);
    assert_non_null(r);
    kc_consumer_group_heartbeat_response_t hr;
    kc_consumer_group_heartbeat_response_init(&hr);
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_consumer_group_heartbeat_response_decode(&rd, 1, &t->arena, &hr), 0);
    if (msg)
        snprintf(msg, cap, "%.*s", hr.error_message.len > 0 ? (int)hr.error_message.len : 0,
                 hr.error_message.ptr ? hr.error_message.ptr : "");
    if (hr.error_code == E_NONE) {
        m->epoch = hr.member_epoch;
        if (hr.assignment) {
            memset(m->owned, 0, sizeof(m->owned));
            for (int32_t i = 0; i < hr.assignment->topic_partitions.count; i++)
                for (int32_t j = 0; j < hr.assignment->topic_partitions.items[i].partitions.count;
                     j++)
                    m->owned[hr.assignment->topic_partitions.items[i].partitions.items[j]] = true;
        }
        if (epoch < 0)
            memset(m->owned, 0, sizeof(m->owned));
    }
    return hr.error_code;
}

static int16_t cm_join(ctx_t *t, cm_t *m) { return cm_heartbeat(t, m, 0, NULL, 0); }
static int16_t cm_beat(ctx_t *t, cm_t *m) { return cm_heartbeat(t, m, m->epoch, NULL, 0); }

static void cm_init(cm_t *m, const char *id)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->member_id, sizeof(m->member_id), "%s", id);
}

static int count(const bool owned[NPART])
{
    int n = 0;
    for (int p = 0; p < NPART; p++)
        n += owned[p];
    return n;
}

/* No partition owned by a classic and a consumer member at once. */
static void assert_disjoint(const cl_t *cls, int ncl, const cm_t *cms, int ncm)
{
    for (int p = 0; p < NPART; p++) {
        int owners = 0;
        for (int i = 0; i < ncl; i++)
            owners += cls[i].owned[p];
        for (int i = 0; i < ncm; i++)
            owners += cms[i].owned[p];
        assert_true(owners <= 1);
    }
}

/* ---- group views --------------------------------------------------------------- */

/* ConsumerGroupDescribe v1 of GROUP: the error, and each member's type
 * (0 classic, 1 consumer) in member order. */
static char last_describe_message[256];

static int16_t describe_consumer(ctx_t *t, kc_coord_t *c, int8_t *types, int32_t *n, kc_buf_t *raw)
{
    kc_consumer_group_describe_request_t req;
    kc_consumer_group_describe_request_init(&req);
    kc_str_t ids[1] = {kc_str(GROUP)};
    req.group_ids.items = ids;
    req.group_ids.count = 1;
    kc_request_ctx_t x = {
        1, 1, KC_API_CONSUMER_GROUP_DESCRIBE, 1, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_describe(c, &x, &req, &res);
    assert_int_equal(res.nresponses, 1);
    if (raw)
        kc_buf_append(raw, res.responses[0].body.data, res.responses[0].body.len);
    kc_consumer_group_describe_response_t out;
    kc_consumer_group_describe_response_init(&out);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_consumer_group_describe_response_decode(&rd, 1, &t->arena, &out), 0);
    int16_t err = out.groups.items[0].error_code;
    kc_str_t em = out.groups.items[0].error_message;
    snprintf(last_describe_message, sizeof(last_describe_message), "%.*s",
             em.len > 0 ? (int)em.len : 0, em.ptr ? em.ptr : "");
    if (n)
        *n = out.groups.items[0].members.count;
    for (int32_t i = 0; types && i < out.groups.items[0].members.count; i++)
        types[i] = out.groups.items[0].members.items[i].member_type;
    kc_result_deinit(&res);
    return err;
}

/* DescribeGroups v5 of GROUP: error, state and protocol type. */
static int16_t describe_classic(ctx_t *t, kc_coord_t *c, char *state, size_t cap, int32_t *nmembers)
{
    kc_describe_groups_request_t req;
    kc_describe_groups_request_init(&req);
    kc_str_t ids[1] = {kc_str(GROUP)};
    req.groups.items = ids;
    req.groups.count = 1;
    kc_request_ctx_t x = {1, 1, KC_API_DESCRIBE_GROUPS, 5, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_describe_groups(c, &x, &req, &res);
    kc_describe_groups_response_t out;
    kc_describe_groups_response_init(&out);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_describe_groups_response_decode(&rd, 5, &t->arena, &out), 0);
    snprintf(state, cap, "%.*s", (int)out.groups.items[0].group_state.len,
             out.groups.items[0].group_state.ptr);
    if (nmembers)
        *nmembers = out.groups.items[0].members.count;
    int16_t err = out.groups.items[0].error_code;
    kc_result_deinit(&res);
    return err;
}

static int listed_times; /* how often the last list_type saw GROUP */

/* ListGroups v5: the type ("classic"/"consumer") of GROUP, "" if absent. */
static void list_type(ctx_t *t, kc_coord_t *c, char *type, size_t cap)
{
    kc_list_groups_request_t req;
    kc_list_groups_request_init(&req);
    kc_request_ctx_t x = {1, 1, KC_API_LIST_GROUPS, 5, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_list_groups(c, &x, &req, &res);
    kc_list_groups_response_t out;
    kc_list_groups_response_init(&out);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_list_groups_response_decode(&rd, 5, &t->arena, &out), 0);
    type[0] = '\0';
    listed_times = 0;
    for (int32_t i = 0; i < out.groups.count; i++)
        if (kc_str_eq_cstr(out.groups.items[i].group_id, GROUP)) {
            snprintf(type, cap, "%.*s", (int)out.groups.items[i].group_type.len,
                     out.groups.items[i].group_type.ptr);
            listed_times++;
        }
    kc_result_deinit(&res);
}

/* Swaps the coordinator for one rebuilt from the compacted record log (a
 * restart). */
static void restart(ctx_t *t) { ct_restart(t, true); }

/* ---- tests: classic members in a consumer group ------------------------------- */

/* A consumer-protocol leave (or heartbeat) naming a classic group is
 * answered GROUP_ID_NOT_FOUND naming the other type, as Kafka's
 * consumerGroup lookup does. */
static void test_consumer_leave_of_classic_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cl_t b;
    cl_init(&b, "");
    /* A classic group with a member whose join waits for the rebalance. */
    assert_int_equal(cl_join_answer(t, &b, cl_send_join(t, &b, 5), NULL), E_MEMBER_ID_REQUIRED);
    cl_send_join(t, &b, 5);
    cm_t a;
    cm_init(&a, "member-a");
    char msg[256] = "";
    assert_int_equal(cm_heartbeat(t, &a, -1, msg, sizeof(msg)), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Group " GROUP " is not a consumer group.");
    assert_int_equal(cm_heartbeat(t, &a, 2, msg, sizeof(msg)), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Group " GROUP " is not a consumer group.");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testJoiningConsumerGroupWithNewDynamicMember:
 * a classic member joining a consumer group gets MEMBER_ID_REQUIRED with a
 * Kafka Uuid, then the new target epoch and the consumer protocol; it syncs
 * an empty assignment while the consumer-protocol member still holds the
 * partitions, and is told to rejoin for its half once they are revoked. The
 * group lists as a consumer group with one member of each type. */
static void test_classic_member_joins_consumer_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    assert_int_equal(count(a.owned), NPART);

    cl_t b;
    cl_init(&b, "");
    /* v5 without member id: MEMBER_ID_REQUIRED first, a generated id. */
    int32_t corr = cl_send_join(t, &b, 5);
    assert_int_equal(cl_join_answer(t, &b, corr, NULL), E_MEMBER_ID_REQUIRED);
    /* A Kafka Uuid (Uuid.randomUuid().toString()), not a java.util.UUID. */
    assert_int_equal(strlen(b.member_id), 22);
    assert_null(strchr(b.member_id, '-'));
    kc_join_group_response_t jr;
    corr = cl_send_join(t, &b, 7); /* v7+ names the protocol type */
    assert_int_equal(cl_join_answer(t, &b, corr, &jr), E_NONE);
    assert_true(kc_str_eq_cstr(jr.protocol_type, "consumer"));
    assert_true(kc_str_eq_cstr(jr.protocol_name, "range"));
    assert_int_equal(jr.members.count, 0);
    assert_int_equal(b.generation, 3); /* the new target epoch (the first join made it 2) */
    /* Its partitions are still a's: an empty assignment for now. */
    assert_int_equal(cl_sync(t, &b), E_NONE);
    assert_int_equal(count(b.owned), 0);
    assert_int_equal(cl_heartbeat(t, &b), E_NONE);
    assert_disjoint(&b, 1, &a, 1);

    /* a revokes half, then b is told to join again and gets them. */
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(count(a.owned), NPART / 2);
    assert_disjoint(&b, 1, &a, 1);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(cl_heartbeat(t, &b), E_REBALANCE_IN_PROGRESS);
    cl_settle(t, &b);
    assert_int_equal(count(b.owned), NPART / 2);
    assert_disjoint(&b, 1, &a, 1);

    int8_t types[4];
    int32_t n;
    assert_int_equal(describe_consumer(t, t->c, types, &n, NULL), E_NONE);
    assert_int_equal(n, 2);
    assert_int_equal(types[0] + types[1], 1); /* one classic (0), one consumer (1) */
    char type[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testReconciliationInJoiningConsumerGroupWithCooperativeProtocol:
 * a cooperative classic member reporting owned partitions revokes before a
 * new member gets them; it stays at its epoch until it has, then its
 * heartbeat asks it to rejoin for the new epoch. */
static void test_classic_member_revokes_before_reassignment(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cl_t b;
    cl_init(&b, "member-b");
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE); /* creates the consumer group */
    cl_settle(t, &b);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    cl_settle(t, &b);
    assert_int_equal(count(b.owned), NPART / 2);
    int32_t gen = b.generation;

    /* A third member: b must give up one partition. */
    cm_t c3;
    cm_init(&c3, "member-c");
    assert_int_equal(cm_join(t, &c3), E_NONE);
    assert_int_equal(cl_heartbeat(t, &b), E_REBALANCE_IN_PROGRESS);
    assert_int_equal(cl_join(t, &b, NULL), E_NONE);
    assert_int_equal(b.generation, gen); /* unrevoked: same epoch */
    assert_int_equal(cl_sync(t, &b), E_NONE);
    assert_int_equal(count(b.owned), NPART / 3);
    cl_t all[1] = {b};
    cm_t cms[2] = {a, c3};
    assert_disjoint(all, 1, cms, 2);
    /* Having revoked, the next heartbeat asks it to join for the new epoch. */
    assert_int_equal(cl_heartbeat(t, &b), E_REBALANCE_IN_PROGRESS);
    cl_settle(t, &b);
    assert_true(b.generation > gen);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cm_beat(t, &a), E_NONE);
        assert_int_equal(cm_beat(t, &c3), E_NONE);
    }
    cl_settle(t, &b);
    assert_int_equal(count(a.owned) + count(b.owned) + count(c3.owned), NPART);
    cl_t all2[1] = {b};
    cm_t cms2[2] = {a, c3};
    assert_disjoint(all2, 1, cms2, 2);
    ct_free(t);
}

static void disable_migration(kc_coord_config_t *cfg)
{
    cfg->group_consumer_migration_policy = KC_MIGRATION_DISABLED;
}

/* After GroupMetadataManagerTest.testJoiningConsumerGroupThrowsExceptionIfProtocolIsNotSupported,
 * testClassicGroupJoinToConsumerGroupFailsOnMalformedSubscriptionMetadata,
 * testClassicGroupSyncToConsumerGroupWithIllegalGeneration,
 * testClassicGroupSyncToConsumerGroupWithInconsistentGroupProtocol,
 * testClassicGroupSyncToConsumerGroupWithUnknownMemberId,
 * testClassicGroupHeartbeatToConsumerWithUnknownMember,
 * testClassicGroupHeartbeatToConsumerWithMemberNotUsingClassicProtocol,
 * testClassicGroupHeartbeatToConsumerWithIllegalGenerationId,
 * testClassicGroupLeaveToConsumerGroupWithoutValidLeaveGroupMember and
 * testClassicMemberJoinToConsumerGroupWithDisabledMigrationPolicy: the errors
 * of classicGroup{Join,Sync,Heartbeat,Leave}ToConsumerGroup. */
static void test_classic_requests_to_consumer_group_errors(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    cl_settle(t, &b);

    /* Another protocol type, or a protocol the classic members lack. */
    cl_t x;
    cl_init(&x, "member-x");
    x.ptype = "connect";
    assert_int_equal(cl_join(t, &x, NULL), E_INCONSISTENT_GROUP_PROTOCOL);
    cl_init(&x, "member-x");
    x.protocol = "roundrobin";
    assert_int_equal(cl_join(t, &x, NULL), E_INCONSISTENT_GROUP_PROTOCOL);
    /* A subscription that does not parse. */
    cl_init(&x, "member-x");
    x.raw_metadata = "\x00";
    assert_int_equal(cl_join(t, &x, NULL), E_INCONSISTENT_GROUP_PROTOCOL);

    /* SyncGroup: generation, protocol type and name must match. */
    assert_int_equal(cl_sync_opts(t, &b, (sync_opts_t){NULL, NULL, b.generation + 1}),
                     E_ILLEGAL_GENERATION);
    assert_int_equal(cl_sync_opts(t, &b, (sync_opts_t){"other", NULL, INT32_MIN}),
                     E_INCONSISTENT_GROUP_PROTOCOL);
    assert_int_equal(cl_sync_opts(t, &b, (sync_opts_t){NULL, "roundrobin", INT32_MIN}),
                     E_INCONSISTENT_GROUP_PROTOCOL);
    /* v5 must name both (KafkaApis), whatever the group type. */
    assert_int_equal(cl_sync_opts(t, &b, (sync_opts_t){"", "", INT32_MIN}),
                     E_INCONSISTENT_GROUP_PROTOCOL);
    assert_int_equal(cl_sync(t, &b), E_NONE);

    /* Unknown members, and a consumer-protocol member using classic APIs. */
    cl_t u;
    cl_init(&u, "nobody");
    u.generation = b.generation;
    assert_int_equal(cl_heartbeat(t, &u), E_UNKNOWN_MEMBER_ID);
    assert_int_equal(cl_sync(t, &u), E_UNKNOWN_MEMBER_ID);
    cl_t ac;
    cl_init(&ac, "member-a");
    ac.generation = a.epoch;
    assert_int_equal(cl_heartbeat(t, &ac), E_UNKNOWN_MEMBER_ID);
    assert_int_equal(cl_sync(t, &ac), E_UNKNOWN_MEMBER_ID);
    b.generation++;
    assert_int_equal(cl_heartbeat(t, &b), E_ILLEGAL_GENERATION);
    b.generation--;
    assert_int_equal(cl_leave(t, "nobody", NULL), E_UNKNOWN_MEMBER_ID);
    ct_free(t);

    /* Migration disabled: classic members cannot join a consumer group. */
    t = ctx_new_cfg(disable_migration);
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_init(&b, "member-b");
    assert_int_equal(cl_join(t, &b, NULL), E_INCONSISTENT_GROUP_PROTOCOL);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testClassicGroupHeartbeatToConsumerWithFencedInstanceId
 * and testJoiningConsumerGroupReplacingExistingStaticMember: a static classic
 * member's instance id is checked (another member id is FENCED_INSTANCE_ID),
 * a rejoin without member id replaces the old member, and an admin leave by
 * instance id alone removes it. */
static void test_classic_static_member_in_consumer_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    b.instance_id = "instance-b";
    cl_settle(t, &b);
    cl_t imp = b;
    snprintf(imp.member_id, sizeof(imp.member_id), "impostor");
    assert_int_equal(cl_heartbeat(t, &imp), E_FENCED_INSTANCE_ID);
    assert_int_equal(cl_leave(t, "impostor", "instance-b"), E_FENCED_INSTANCE_ID);
    /* A restarted instance joins without its old member id. */
    cl_t b2;
    cl_init(&b2, "");
    b2.instance_id = "instance-b";
    assert_int_equal(cl_join(t, &b2, NULL), E_NONE);
    assert_string_not_equal(b2.member_id, b.member_id);
    assert_int_equal(cl_heartbeat(t, &b), E_FENCED_INSTANCE_ID);
    int32_t n;
    assert_int_equal(describe_consumer(t, t->c, NULL, &n, NULL), E_NONE);
    assert_int_equal(n, 2);
    /* An admin removes it by instance id alone. */
    assert_int_equal(cl_leave(t, "", "instance-b"), E_NONE);
    assert_int_equal(describe_consumer(t, t->c, NULL, &n, NULL), E_NONE);
    assert_int_equal(n, 1);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testStaticMemberJoiningConsumerGroupWithUnmatchedMemberId:
 * a known classic member that joins with the instance id of another static
 * member is fenced (getOrMaybeSubscribeStaticConsumerGroupMember,
 * throwIfInstanceIdIsFenced): the static member stays and no second member
 * takes the joiner's id. */
static void test_classic_join_with_taken_instance_id_is_fenced(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b, c;
    cl_init(&b, "member-b");
    b.instance_id = "instance-b";
    cl_settle(t, &b);
    cl_init(&c, "member-c");
    cl_settle(t, &c);
    c.instance_id = "instance-b";
    assert_int_equal(cl_join_answer(t, &c, cl_send_join(t, &c, 5), NULL), E_FENCED_INSTANCE_ID);
    int32_t n;
    assert_int_equal(describe_consumer(t, t->c, NULL, &n, NULL), E_NONE);
    assert_int_equal(n, 3);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testConsumerGroupMemberUsingClassicProtocolFencedWhenSessionTimeout,
 * testConsumerGroupMemberUsingClassicProtocolFencedWhenJoinTimeout and
 * testClassicGroupHeartbeatToConsumerGroupMaintainsSession: a classic member
 * is fenced by its own session timeout (a heartbeat extends it), by the sync
 * timeout after a join, and by the join timeout after a REBALANCE_IN_PROGRESS
 * heartbeat. */
static void test_classic_member_timeouts(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    int32_t n;

    /* Session: 10 s of silence. */
    cl_t b;
    cl_init(&b, "member-b");
    cl_settle(t, &b);
    ct_sleep(t, 9000);
    assert_int_equal(cl_heartbeat(t, &b), E_NONE); /* a heartbeat extends it */
    assert_int_equal(cm_beat(t, &a), E_NONE);
    ct_sleep(t, 9000);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    ct_sleep(t, 1500);
    assert_int_equal(describe_consumer(t, t->c, NULL, &n, NULL), E_NONE);
    assert_int_equal(n, 1);
    assert_int_equal(cl_heartbeat(t, &b), E_UNKNOWN_MEMBER_ID);

    /* Sync: joined, never synced within the rebalance timeout (20 s). */
    cl_t s;
    cl_init(&s, "member-s");
    s.session_ms = 60000;
    assert_int_equal(cl_join(t, &s, NULL), E_NONE);
    ct_sleep(t, 19000);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(describe_consumer(t, t->c, NULL, &n, NULL), E_NONE);
    assert_int_equal(n, 2);
    ct_sleep(t, 2000);
    assert_int_equal(describe_consumer(t, t->c, NULL, &n, NULL), E_NONE);
    assert_int_equal(n, 1);

    /* Join: told to rejoin, never does within the rebalance timeout. */
    cl_t j;
    cl_init(&j, "member-j");
    j.session_ms = 60000;
    cl_settle(t, &j);
    cm_t c3;
    cm_init(&c3, "member-c");
    assert_int_equal(cm_join(t, &c3), E_NONE);
    assert_int_equal(cl_heartbeat(t, &j), E_REBALANCE_IN_PROGRESS);
    for (int i = 0; i < 4; i++) {
        ct_sleep(t, 4000);
        assert_int_equal(cl_heartbeat(t, &j), E_REBALANCE_IN_PROGRESS);
        cm_beat(t, &a);
        cm_beat(t, &c3);
    }
    ct_sleep(t, 4500);
    assert_int_equal(cl_heartbeat(t, &j), E_UNKNOWN_MEMBER_ID);
    ct_free(t);
}

/* After ConsumerGroupTest.testValidateOffsetCommitWithClassicProtocolMember:
 * a classic member's generation is its member epoch, older OffsetCommit
 * versions are fine, and a mismatch is ILLEGAL_GENERATION (for OffsetFetch
 * too). */
static void test_classic_member_offset_commit(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    cl_settle(t, &b);
    kc_consumer_group_t *g = kc_consumer_group_find(t->c, kc_str(GROUP));
    assert_non_null(g);
    kc_commit_validator_t v = {0};
    assert_int_equal(
        kc_consumer_group_validate_offset_commit(g, kc_str(b.member_id), KC_STR_NULL, b.generation, false, 2, &v),
        E_NONE);
    assert_null(v.check);
    assert_int_equal(
        kc_consumer_group_validate_offset_commit(g, kc_str(b.member_id), KC_STR_NULL, b.generation + 1, false, 8, &v),
        E_ILLEGAL_GENERATION);
    /* An older generation is judged per partition (KIP-1251): b got each of
     * its partitions at its present generation, and holds none of a's. */
    assert_int_equal(
        kc_consumer_group_validate_offset_commit(g, kc_str(b.member_id), KC_STR_NULL, b.generation - 1, false, 8, &v),
        E_NONE);
    assert_non_null(v.check);
    for (int32_t p = 0; p < 6; p++)
        assert_int_equal(v.check(&v, kc_str("t"), TOPIC_ID, p), E_ILLEGAL_GENERATION);
    assert_int_equal(
        kc_consumer_group_ops.validate_offset_fetch(&g->base, kc_str(b.member_id),
                                                    b.generation - 1, 9),
        E_ILLEGAL_GENERATION);
    ct_free(t);
}

/* ---- tests: conversions ------------------------------------------------------- */

/* A stable classic group of two members (the leader assigns 0-2 and 3-5,
 * with user data when given). */
static void classic_group_ud(ctx_t *t, cl_t *l, cl_t *f, const char *user_data)
{
    cl_init(l, "");
    cl_init(f, "");
    int32_t c1 = cl_send_join(t, l, 5);
    assert_int_equal(cl_join_answer(t, l, c1, NULL), E_MEMBER_ID_REQUIRED);
    int32_t c2 = cl_send_join(t, f, 5);
    assert_int_equal(cl_join_answer(t, f, c2, NULL), E_MEMBER_ID_REQUIRED);
    c1 = cl_send_join(t, l, 5);
    c2 = cl_send_join(t, f, 5);
    ct_sleep(t, 1);
    kc_join_group_response_t jr;
    assert_int_equal(cl_join_answer(t, l, c1, &jr), E_NONE);
    assert_int_equal(cl_join_answer(t, f, c2, NULL), E_NONE);
    if (!kc_str_eq_cstr(jr.leader, l->member_id)) {
        cl_t tmp = *l;
        *l = *f;
        *f = tmp;
    }
    /* The leader's SyncGroup carries both assignments. */
    kc_buf_t asg[2];
    for (int k = 0; k < 2; k++) {
        kc_consumer_protocol_assignment_t a;
        kc_consumer_protocol_assignment_init(&a);
        kc_consumer_protocol_assignment_topic_partition_t tp;
        int32_t parts[3] = {3 * k, 3 * k + 1, 3 * k + 2};
        tp.topic = kc_str("t");
        tp.partitions.items = parts;
        tp.partitions.count = 3;
        a.assigned_partitions.items = &tp;
        a.assigned_partitions.count = 1;
        if (user_data)
            a.user_data = (kc_bytes_t){(const uint8_t *)user_data, (int32_t)strlen(user_data)};
        kc_buf_init(&asg[k]);
        kc_write_int16(&asg[k], 1);
        kc_consumer_protocol_assignment_encode(&asg[k], 1, &a);
    }
    kc_sync_group_request_t req;
    kc_sync_group_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.generation_id = l->generation;
    req.member_id = kc_str(l->member_id);
    req.protocol_type = kc_str("consumer");
    req.protocol_name = kc_str("range");
    req.assignments.items = kc_arena_alloc(&t->arena, 2 * sizeof(*req.assignments.items));
    req.assignments.count = 2;
    req.assignments.items[0].member_id = kc_str(l->member_id);
    req.assignments.items[0].assignment = (kc_bytes_t){asg[0].data, (int32_t)asg[0].len};
    req.assignments.items[1].member_id = kc_str(f->member_id);
    req.assignments.items[1].assignment = (kc_bytes_t){asg[1].data, (int32_t)asg[1].len};
    kc_request_ctx_t x = ct_rctx(t, KC_API_SYNC_GROUP, 5);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_sync_group(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    kc_buf_deinit(&asg[0]);
    kc_buf_deinit(&asg[1]);
    assert_int_equal(cl_sync(t, f), E_NONE);
    l->owned[0] = l->owned[1] = l->owned[2] = true;
    assert_int_equal(count(f->owned), 3);
    char st[32];
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), NULL), E_NONE);
    assert_string_equal(st, "Stable");
}

static void classic_group(ctx_t *t, cl_t *l, cl_t *f) { classic_group_ud(t, l, f, NULL); }

/* After GroupMetadataManagerTest.testConsumerGroupHeartbeatWithStableClassicGroup:
 * online upgrade: the first ConsumerGroupHeartbeat member turns the classic
 * group into a consumer group keeping the members and their partitions; the
 * classic members are then reconciled through their rejoins. A restart right
 * after the conversion replays the same group. */
static void test_online_upgrade(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cl_t cls[2];
    classic_group(t, &cls[0], &cls[1]);
    int32_t gen = cls[0].generation;
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    assert_int_equal(a.epoch, gen + 1);
    assert_int_equal(count(a.owned), 0); /* everything is still held */
    char type[32], st[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    /* DescribeGroups below v6: not a classic group, so "Dead". */
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), NULL), E_NONE);
    assert_string_equal(st, "Dead");
    int8_t types[4];
    int32_t n;
    kc_buf_t before, after;
    kc_buf_init(&before);
    kc_buf_init(&after);
    assert_int_equal(describe_consumer(t, t->c, types, &n, &before), E_NONE);
    assert_int_equal(n, 3);
    restart(t);
    assert_int_equal(describe_consumer(t, t->c, NULL, NULL, &after), E_NONE);
    assert_int_equal(before.len, after.len);
    assert_memory_equal(before.data, after.data, before.len);
    kc_buf_deinit(&before);
    kc_buf_deinit(&after);

    /* The classic members still hold their generation, then catch up. */
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 2; i++) {
            int16_t e = cl_heartbeat(t, &cls[i]);
            if (e == E_REBALANCE_IN_PROGRESS) {
                assert_int_equal(cl_join(t, &cls[i], NULL), E_NONE);
                assert_int_equal(cl_sync(t, &cls[i]), E_NONE);
            } else {
                assert_int_equal(e, E_NONE);
            }
            assert_disjoint(cls, 2, &a, 1);
        }
        assert_int_equal(cm_beat(t, &a), E_NONE);
        assert_disjoint(cls, 2, &a, 1);
    }
    assert_int_equal(count(cls[0].owned) + count(cls[1].owned) + count(a.owned), NPART);
    assert_int_equal(count(a.owned), 2);
    ct_free(t);
}

static void policy_downgrade(kc_coord_config_t *cfg)
{
    cfg->group_consumer_migration_policy = KC_MIGRATION_DOWNGRADE;
}

static void consumer_max_one(kc_coord_config_t *cfg) { cfg->group_consumer_max_size = 1; }
static void consumer_max_two(kc_coord_config_t *cfg) { cfg->group_consumer_max_size = 2; }

/* After GroupMetadataManagerTest.testConsumerGroupHeartbeatWithCustomAssignorClassicGroup:
 * validateOnlineUpgrade refuses the upgrade, with Kafka's messages, when the
 * policy has no upgrade (and a non-zero epoch never converts), when the
 * classic group is larger than the consumer group maximum size (or leaves no
 * room for the joiner: GROUP_MAX_SIZE_REACHED), for another protocol type,
 * and for a custom assignor's user data; the classic group stays as it was.
 */
static void test_online_upgrade_refused(void **state)
{
    (void)state;
    char msg[256];
    ctx_t *t = ctx_new_cfg(policy_downgrade);
    cl_t cls[2];
    classic_group(t, &cls[0], &cls[1]);
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_heartbeat(t, &a, 0, msg, sizeof(msg)), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Cannot upgrade classic group g to consumer group because online "
                             "upgrade is disabled.");
    /* A non-zero epoch never converts. */
    assert_int_equal(cm_heartbeat(t, &a, 3, msg, sizeof(msg)), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Group g is not a consumer group.");
    assert_int_equal(cl_heartbeat(t, &cls[0]), E_NONE);
    ct_free(t);

    t = ctx_new_cfg(consumer_max_one);
    classic_group(t, &cls[0], &cls[1]);
    assert_int_equal(cm_heartbeat(t, &a, 0, msg, sizeof(msg)), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Cannot upgrade classic group g to consumer group because the group "
                             "size exceeds the consumer group maximum size.");
    ct_free(t);

    /* Room for the classic members but not for the joiner: the group stays. */
    t = ctx_new_cfg(consumer_max_two);
    classic_group(t, &cls[0], &cls[1]);
    assert_int_equal(cm_heartbeat(t, &a, 0, msg, sizeof(msg)), 81 /* GROUP_MAX_SIZE_REACHED */);
    char type[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "classic");
    ct_free(t);

    /* A group of another protocol type ("connect"). */
    t = ctx_new();
    cl_t w;
    cl_init(&w, "");
    w.ptype = "connect";
    int32_t corr = cl_send_join(t, &w, 5);
    assert_int_equal(cl_join_answer(t, &w, corr, NULL), E_MEMBER_ID_REQUIRED);
    corr = cl_send_join(t, &w, 5);
    ct_sleep(t, 1);
    assert_int_equal(cl_join_answer(t, &w, corr, NULL), E_NONE);
    assert_int_equal(cm_heartbeat(t, &a, 0, msg, sizeof(msg)), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Cannot upgrade classic group g to consumer group because the group "
                             "does not use the consumer embedded protocol.");
    ct_free(t);

    /* A custom assignor's user data would be lost: refused, nothing changes. */
    t = ctx_new();
    classic_group_ud(t, &cls[0], &cls[1], "sticky-state");
    assert_int_equal(cm_heartbeat(t, &a, 0, msg, sizeof(msg)), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Cannot upgrade classic group g to consumer group because an "
                             "unsupported custom assignor is in use. Please refer to the "
                             "documentation or switch to a default assignor before re-attempting "
                             "the upgrade.");
    char st[32];
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), NULL), E_NONE);
    assert_string_equal(st, "Stable");
    assert_int_equal(cl_heartbeat(t, &cls[0]), E_NONE);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testLastConsumerProtocolMemberLeavingConsumerGroup:
 * online downgrade: the last consumer-protocol member leaves, the classic
 * members remain in a classic group that rebalances; the group type changes
 * in every view and after a restart. */
static void test_online_downgrade_when_last_consumer_member_leaves(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    cl_settle(t, &b);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    cl_settle(t, &b);
    int32_t epoch = b.generation;
    assert_int_equal(cm_heartbeat(t, &a, -1, NULL, 0), E_NONE);

    char type[32], st[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "classic");
    int32_t n;
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), &n), E_NONE);
    assert_string_equal(st, "PreparingRebalance");
    assert_int_equal(n, 1);
    assert_int_equal(describe_consumer(t, t->c, NULL, NULL, NULL), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(last_describe_message, "Group g is not a consumer group.");
    restart(t);
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "classic");
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), &n), E_NONE);
    assert_string_equal(st, "Stable"); /* the record holds the converted, stable group */
    assert_int_equal(n, 1);
    /* The classic group goes on from the consumer group's epoch. */
    assert_int_equal(cl_heartbeat(t, &b), E_NONE);
    assert_true(epoch > 0);
    ct_free(t);
}

static void policy_upgrade(kc_coord_config_t *cfg)
{
    cfg->group_consumer_migration_policy = KC_MIGRATION_UPGRADE;
}

/* Without downgrade in the policy, the group stays a consumer group. */
static void test_no_downgrade_with_upgrade_policy(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(policy_upgrade);
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    cl_settle(t, &b);
    assert_int_equal(cm_heartbeat(t, &a, -1, NULL, 0), E_NONE);
    char type[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    int8_t types[2];
    int32_t n;
    assert_int_equal(describe_consumer(t, t->c, types, &n, NULL), E_NONE);
    assert_int_equal(n, 1);
    assert_int_equal(types[0], 0);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testLastConsumerProtocolMemberSessionTimeoutInConsumerGroup:
 * the consumer-protocol member's session expiry downgrades the group as a
 * leave does. */
static void test_downgrade_on_session_expiry(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    b.session_ms = 600000;
    cl_settle(t, &b);
    for (int i = 0; i < 10; i++) {
        ct_sleep(t, 5000);
        cl_heartbeat(t, &b);
    }
    char type[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "classic");
    ct_free(t);
}

/* After GroupMetadataManagerTest.testClassicGroupJoinWithEmptyConsumerGroup
 * and testConsumerGroupHeartbeatWithEmptyClassicGroup: empty groups convert
 * whatever the policy: an empty consumer group on a classic JoinGroup, an
 * empty classic group on a ConsumerGroupHeartbeat. */
static void test_empty_group_conversions(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(disable_migration);
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    assert_int_equal(cm_heartbeat(t, &a, -1, NULL, 0), E_NONE);
    char type[32], st[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    cl_t b;
    cl_init(&b, "");
    int32_t corr = cl_send_join(t, &b, 5);
    assert_int_equal(cl_join_answer(t, &b, corr, NULL), E_MEMBER_ID_REQUIRED);
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "classic");
    corr = cl_send_join(t, &b, 5);
    ct_sleep(t, 1);
    assert_int_equal(cl_join_answer(t, &b, corr, NULL), E_NONE);
    assert_int_equal(cl_sync(t, &b), E_NONE);
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), NULL), E_NONE);
    assert_string_equal(st, "Stable");
    restart(t);
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "classic");
    assert_int_equal(cl_leave(t, b.member_id, NULL), E_NONE);
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), NULL), E_NONE);
    assert_string_equal(st, "Empty");
    cm_init(&a, "member-a2");
    assert_int_equal(cm_join(t, &a), E_NONE);
    assert_int_equal(count(a.owned), NPART);
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    restart(t);
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    ct_free(t);
}

/* A restart in the middle of a mixed group's reconciliation: the replayed
 * coordinator answers the classic member as the original would have. */
static void test_restart_mid_reconciliation_with_classic_member(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    assert_int_equal(cl_join(t, &b, NULL), E_NONE);
    assert_int_equal(cl_sync(t, &b), E_NONE);
    kc_buf_t before, after;
    kc_buf_init(&before);
    kc_buf_init(&after);
    describe_consumer(t, t->c, NULL, NULL, &before);
    restart(t);
    describe_consumer(t, t->c, NULL, NULL, &after);
    assert_int_equal(before.len, after.len);
    assert_memory_equal(before.data, after.data, before.len);
    kc_buf_deinit(&before);
    kc_buf_deinit(&after);
    assert_int_equal(cl_heartbeat(t, &b), E_NONE);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(cl_heartbeat(t, &b), E_REBALANCE_IN_PROGRESS);
    cl_settle(t, &b);
    assert_int_equal(count(a.owned) + count(b.owned), NPART);
    assert_disjoint(&b, 1, &a, 1);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testLastStaticConsumerProtocolMemberReplacedByClassicProtocolMember:
 * a classic static member replacing the last consumer-protocol member (same
 * instance id) downgrades the group at once; it takes over the replaced
 * member's assignment (validateOnlineDowngradeWithReplacedMember). */
static void test_downgrade_on_static_replacement(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    a.instance_id = "instance-a";
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "member-b");
    cl_settle(t, &b);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    assert_int_equal(cm_beat(t, &a), E_NONE);
    cl_settle(t, &b);
    assert_int_equal(count(a.owned), NPART / 2);

    cl_t x;
    cl_init(&x, "");
    x.instance_id = "instance-a";
    memcpy(x.owned, a.owned, sizeof(x.owned)); /* the same instance, restarted */
    assert_int_equal(cl_join(t, &x, NULL), E_NONE);
    char type[32], st[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "classic");
    int32_t n;
    assert_int_equal(describe_classic(t, t->c, st, sizeof(st), &n), E_NONE);
    assert_string_equal(st, "Stable");
    assert_int_equal(n, 2);
    assert_int_equal(cl_sync(t, &x), E_NONE);
    assert_memory_equal(x.owned, a.owned, sizeof(x.owned));
    assert_int_equal(cl_heartbeat(t, &x), E_NONE);
    assert_int_equal(cl_heartbeat(t, &b), E_NONE);
    ct_free(t);
}

/* Records of that type (key's first two bytes) still live once compacted. */
static int live_records(const ctx_t *t, int16_t type)
{
    int n = 0;
    for (size_t i = 0; i < t->nrecs; i++) {
        const rec_t *r = &t->recs[i];
        if (((r->key.data[0] << 8) | r->key.data[1]) != type || r->tombstone)
            continue;
        bool superseded = false;
        for (size_t j = i + 1; j < t->nrecs && !superseded; j++)
            superseded = t->recs[j].key.len == r->key.len &&
                         memcmp(t->recs[j].key.data, r->key.data, r->key.len) == 0;
        n += !superseded;
    }
    return n;
}

/* After GroupMetadataManagerTest.testConsumerMemberWithRegexReplacedByClassicMemberWithSameSubscription:
 * a classic member replacing a static member that subscribed by regex drops
 * the regex, and with it the regex's resolution (record 16) when no other
 * member uses it (classicGroupJoinToConsumerGroup,
 * maybeUpdateRegularExpressions). */
static void test_classic_replacement_drops_regex_resolution(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a, c;
    cm_init(&a, "member-a");
    a.instance_id = "instance-a";
    a.regex = "t|u";
    assert_int_equal(cm_join(t, &a), E_NONE);
    ct_sleep(t, 1); /* the regex is resolved after the heartbeat */
    assert_int_equal(live_records(t, 16), 1);
    cm_init(&c, "member-c"); /* subscribes by name: no downgrade below */
    assert_int_equal(cm_join(t, &c), E_NONE);
    assert_int_equal(cm_beat(t, &a), E_NONE);

    cl_t x;
    cl_init(&x, "");
    x.instance_id = "instance-a";
    assert_int_equal(cl_join(t, &x, NULL), E_NONE);
    char type[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    assert_int_equal(live_records(t, 16), 0);
    restart(t);
    assert_int_equal(cl_sync(t, &x), E_NONE);
    assert_int_equal(cm_beat(t, &c), E_NONE);
    ct_free(t);
}

/* JoinGroup below v4 gets its member id without MEMBER_ID_REQUIRED. */
static void test_classic_join_v3_gets_member_id_at_once(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    cl_t b;
    cl_init(&b, "");
    int32_t corr = cl_send_join(t, &b, 3);
    assert_int_equal(cl_join_answer(t, &b, corr, NULL), E_NONE);
    assert_int_equal(strlen(b.member_id), 22);
    assert_true(b.generation > 0);
    ct_free(t);
}

/* OffsetCommit of partition 0 of "t" by a member; the partition's error. */
static int16_t commit(ctx_t *t, const char *member_id, int32_t generation, int16_t version)
{
    kc_offset_commit_request_t req;
    kc_offset_commit_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.generation_id_or_member_epoch = generation;
    req.member_id = kc_str(member_id);
    kc_offset_commit_request_partition_t part;
    memset(&part, 0, sizeof(part));
    part.partition_index = 0;
    part.committed_offset = 42;
    part.committed_leader_epoch = -1;
    part.commit_timestamp = -1;
    part.committed_metadata = kc_str("");
    kc_offset_commit_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.name = kc_str("t");
    topic.partitions.items = &part;
    topic.partitions.count = 1;
    req.topics.items = &topic;
    req.topics.count = 1;
    kc_request_ctx_t x = ct_rctx(t, KC_API_OFFSET_COMMIT, version);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_commit(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    resp_t *r = ct_find_resp(t, x.correlation_id);
    assert_non_null(r);
    kc_offset_commit_response_t out;
    kc_offset_commit_response_init(&out);
    kc_reader_t rd;
    kc_reader_init(&rd, r->body.data, r->body.len);
    assert_int_equal(kc_offset_commit_response_decode(&rd, version, &t->arena, &out), 0);
    return out.topics.items[0].partitions.items[0].error_code;
}

/* Offsets committed before the consumer group's records (a classic group
 * upgraded later) make a simple classic group on replay; the consumer
 * group's records replace it, so the id still names one consumer group
 * whose classic members go on after the restart. Failed before: both a
 * simple classic group and the consumer group came back, and the classic
 * member's heartbeat reached the empty classic group (UNKNOWN_MEMBER_ID). */
static void test_restart_after_offsets_keeps_one_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    cl_t cls[2];
    classic_group(t, &cls[0], &cls[1]);
    assert_int_equal(commit(t, cls[0].member_id, cls[0].generation, 2), E_NONE);
    cm_t a;
    cm_init(&a, "member-a");
    assert_int_equal(cm_join(t, &a), E_NONE);
    /* A classic member commits with its member epoch, on an old version. */
    assert_int_equal(commit(t, cls[1].member_id, cls[1].generation, 2), E_NONE);
    assert_int_equal(commit(t, cls[1].member_id, cls[1].generation + 5, 2), E_ILLEGAL_GENERATION);
    restart(t);
    char type[32];
    list_type(t, t->c, type, sizeof(type));
    assert_string_equal(type, "consumer");
    assert_int_equal(listed_times, 1);
    assert_int_equal(cl_heartbeat(t, &cls[0]), E_REBALANCE_IN_PROGRESS);
    ct_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classic_member_joins_consumer_group),
        cmocka_unit_test(test_consumer_leave_of_classic_group),
        cmocka_unit_test(test_classic_member_revokes_before_reassignment),
        cmocka_unit_test(test_classic_requests_to_consumer_group_errors),
        cmocka_unit_test(test_classic_static_member_in_consumer_group),
        cmocka_unit_test(test_classic_join_with_taken_instance_id_is_fenced),
        cmocka_unit_test(test_classic_member_timeouts),
        cmocka_unit_test(test_classic_member_offset_commit),
        cmocka_unit_test(test_online_upgrade),
        cmocka_unit_test(test_online_upgrade_refused),
        cmocka_unit_test(test_online_downgrade_when_last_consumer_member_leaves),
        cmocka_unit_test(test_no_downgrade_with_upgrade_policy),
        cmocka_unit_test(test_downgrade_on_session_expiry),
        cmocka_unit_test(test_empty_group_conversions),
        cmocka_unit_test(test_restart_mid_reconciliation_with_classic_member),
        cmocka_unit_test(test_downgrade_on_static_replacement),
        cmocka_unit_test(test_classic_join_v3_gets_member_id_at_once),
        cmocka_unit_test(test_restart_after_offsets_keeps_one_group),
        cmocka_unit_test(test_classic_replacement_drops_regex_resolution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
