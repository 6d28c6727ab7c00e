/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmocka tests of KIP-848 consumer groups on a driven clock: join, scale
 * out and in with no partition owned twice, revocation before assignment,
 * the lost-response retry, session and rebalance timeouts, static leave and
 * replacement, the invalid-epoch answers, and replay of the records.
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

typedef kc_consumer_group_current_member_assignment_value_topic_partitions_t cur_tp_ex_t;

enum {
    E_NONE = 0,
    E_ILLEGAL_GENERATION = 22,
    E_UNKNOWN_MEMBER_ID = 25,
    E_INVALID_REQUEST = 42,
    E_GROUP_ID_NOT_FOUND = 69,
    E_FENCED_INSTANCE_ID = 82,
    E_FENCED_MEMBER_EPOCH = 110,
    E_UNRELEASED_INSTANCE_ID = 111,
    E_UNSUPPORTED_ASSIGNOR = 112,
    E_STALE_MEMBER_EPOCH = 113,
};

#define NPART 6

/* ---- a topic view with one topic "t" of NPART partitions --------------- */

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

static const kc_topic_view_t VIEW = {tv_exists, NULL, tv_lookup, tv_name};

/* ---- context: coord_test.h, with this file's topic view ----------------- */

typedef ct_t ctx_t;

static ctx_t *ctx_new(void) { return ct_new(&(ct_opts_t){.topics = &VIEW, .seed = 7}); }

/* ---- a simulated consumer ----------------------------------------------- */

typedef struct {
    char member_id[64];
    const char *instance_id;
    int32_t epoch;
    bool owned[NPART];   /* what the client believes it owns */
    bool joined;
} client_t;

typedef struct {
    int16_t error;
    char message[256];
    int32_t epoch;
    int32_t interval;
    bool has_assignment;
    bool assigned[NPART];
} hb_t;

typedef struct {
    int32_t epoch;          /* INT32_MIN: use the client's */
    bool send_owned;        /* report owned partitions */
    bool send_names;        /* send the subscription and rebalance timeout */
    const char *assignor;
    int16_t version;
    kc_str_t group_id;      /* ptr NULL: "g" */
} hb_opts_t;

static hb_t send_hb(ctx_t *t, client_t *cl, hb_opts_t o)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_heartbeat_request_t req;
    kc_consumer_group_heartbeat_request_init(&req);
    req.group_id = o.group_id.ptr ? o.group_id : kc_str("g");
    req.member_id = kc_str(cl->member_id);
    req.member_epoch = o.epoch == INT32_MIN ? cl->epoch : o.epoch;
    req.instance_id = kc_str(cl->instance_id);
    req.server_assignor = kc_str(o.assignor);
    kc_str_t names[1] = {kc_str("t")};
    if (o.send_names || req.member_epoch == 0) {
        req.subscribed_topic_names.items = names;
        req.subscribed_topic_names.count = 1;
        req.rebalance_timeout_ms = 30000;
    }
    kc_consumer_group_heartbeat_request_topic_partitions_t tp;
    int32_t parts[NPART];
    tp.topic_id = TOPIC_ID;
    tp.partitions.items = parts;
    tp.partitions.count = 0;
    if (req.member_epoch == 0) {
        req.topic_partitions.items = &tp;
        req.topic_partitions.count = 0;
    } else if (o.send_owned) {
        for (int p = 0; p < NPART; p++)
            if (cl->owned[p])
                parts[tp.partitions.count++] = p;
        req.topic_partitions.items = &tp;
        req.topic_partitions.count = 1;
    }
    kc_request_ctx_t ctx = {1, 1, 68, o.version, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_heartbeat(t->c, &ctx, &req, &res);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 1);
    kc_consumer_group_heartbeat_response_t r;
    kc_consumer_group_heartbeat_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_consumer_group_heartbeat_response_decode(&rd, o.version, &arena, &r), 0);
    hb_t h;
    memset(&h, 0, sizeof(h));
    h.error = r.error_code;
    if (r.error_message.len > 0)
        snprintf(h.message, sizeof(h.message), "%.*s", (int)r.error_message.len,
                 r.error_message.ptr);
    h.epoch = r.member_epoch;
    h.interval = r.heartbeat_interval_ms;
    if (r.assignment) {
        h.has_assignment = true;
        for (int32_t i = 0; i < r.assignment->topic_partitions.count; i++) {
            assert_memory_equal(r.assignment->topic_partitions.items[i].topic_id.b, TOPIC_ID.b, 16);
            for (int32_t j = 0; j < r.assignment->topic_partitions.items[i].partitions.count; j++)
                h.assigned[r.assignment->topic_partitions.items[i].partitions.items[j]] = true;
        }
    }
    if (h.error == E_NONE) {
        if (r.member_id.len > 0)
            snprintf(cl->member_id, sizeof(cl->member_id), "%.*s", (int)r.member_id.len,
                     r.member_id.ptr);
        cl->epoch = h.epoch;
        cl->joined = h.epoch >= 0;
        /* The client applies the assignment at once (revokes, then takes). */
        if (h.has_assignment)
            memcpy(cl->owned, h.assigned, sizeof(cl->owned));
    }
    kc_result_deinit(&res);
    kc_arena_deinit(&arena);
    return h;
}

static hb_t join(ctx_t *t, client_t *cl)
{
    return send_hb(t, cl, (hb_opts_t){0, false, true, NULL, 1});
}

static hb_t beat(ctx_t *t, client_t *cl)
{
    return send_hb(t, cl, (hb_opts_t){INT32_MIN, true, false, NULL, 1});
}

static int owned_count(const client_t *cl)
{
    int n = 0;
    for (int p = 0; p < NPART; p++)
        n += cl->owned[p];
    return n;
}

/* No partition is owned by two clients. */
static void assert_disjoint(client_t *cls, int n)
{
    for (int p = 0; p < NPART; p++) {
        int owners = 0;
        for (int i = 0; i < n; i++)
            owners += cls[i].joined && cls[i].owned[p];
        assert_true(owners <= 1);
    }
}

/* Heartbeats every client until all are reconciled (bounded rounds). */
static void converge(ctx_t *t, client_t *cls, int n)
{
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < n; i++) {
            if (!cls[i].joined)
                continue;
            hb_t h = beat(t, &cls[i]);
            assert_int_equal(h.error, E_NONE);
            assert_disjoint(cls, n);
        }
    }
}

static void set_id(client_t *cl, const char *id)
{
    memset(cl, 0, sizeof(*cl));
    snprintf(cl->member_id, sizeof(cl->member_id), "%s", id);
}

/* ---- tests ------------------------------------------------------------------ */

/* After GroupMetadataManagerTest.testMemberJoinsEmptyConsumerGroup and
 * testConsumerGroupHeartbeatFullResponse: the first member's join of a new
 * group bumps it to epoch 2 and gets every partition and the 5 s heartbeat
 * interval; a steady heartbeat carries no assignment. */
static void test_join_gets_all_partitions_and_interval(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    hb_t h = join(t, &a);
    assert_int_equal(h.error, E_NONE);
    /* A new group is at epoch 1; the first subscription bumps it to 2. */
    assert_int_equal(h.epoch, 2);
    assert_int_equal(h.interval, 5000);
    assert_true(h.has_assignment);
    assert_int_equal(owned_count(&a), NPART);
    /* A steady heartbeat carries no assignment. */
    h = send_hb(t, &a, (hb_opts_t){INT32_MIN, false, false, NULL, 1});
    assert_int_equal(h.error, E_NONE);
    assert_false(h.has_assignment);
    assert_int_equal(h.epoch, 2);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testMemberIdGeneration and
 * GroupCoordinatorServiceTest.testConsumerHeartbeatRequestValidation: at v0 a
 * join without member id gets one generated by the coordinator (a Kafka Uuid
 * string); from v1 the client must send its own, else INVALID_REQUEST naming
 * MemberId. */
static void test_v0_join_generates_member_id(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "");
    hb_t h = send_hb(t, &a, (hb_opts_t){0, false, true, NULL, 0});
    assert_int_equal(h.error, E_NONE);
    /* Kafka's Uuid.randomUuid().toString(): 22 URL-safe base64 characters, no '-'. */
    assert_int_equal(strlen(a.member_id), 22);
    assert_null(strchr(a.member_id, '-'));
    /* v1 requires the client's own id. */
    client_t b;
    set_id(&b, "");
    h = send_hb(t, &b, (hb_opts_t){0, false, true, NULL, 1});
    assert_int_equal(h.error, E_INVALID_REQUEST);
    assert_true(strstr(h.message, "MemberId") != NULL);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testReconciliationProcess: a second member
 * gets the new epoch but no partition while the first still owns them all;
 * the first is asked to revoke half, keeping its epoch, and the second gets
 * them only once the revocation is reported. */
static void test_revocation_before_assignment(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    join(t, &c[0]);
    assert_int_equal(owned_count(&c[0]), NPART);
    hb_t h = join(t, &c[1]);
    assert_int_equal(h.error, E_NONE);
    /* b gets the new epoch but nothing yet: a still owns everything. */
    assert_int_equal(h.epoch, 3);
    assert_int_equal(owned_count(&c[1]), 0);
    /* a is asked to revoke half, keeping its epoch. */
    h = beat(t, &c[0]);
    assert_int_equal(h.epoch, 2);
    assert_true(h.has_assignment);
    assert_int_equal(owned_count(&c[0]), NPART / 2);
    /* b still waits until a reports the revocation. */
    h = send_hb(t, &c[1], (hb_opts_t){INT32_MIN, true, false, NULL, 1});
    assert_int_equal(owned_count(&c[1]), 0);
    h = beat(t, &c[0]);
    assert_int_equal(h.epoch, 3);
    h = beat(t, &c[1]);
    assert_int_equal(owned_count(&c[1]), NPART / 2);
    assert_disjoint(c, 2);
    ct_free(t);
}

static void test_scale_out_and_in_never_owns_twice(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[5];
    for (int i = 0; i < 5; i++) {
        char id[16];
        snprintf(id, sizeof(id), "member-%d", i);
        set_id(&c[i], id);
    }
    join(t, &c[0]);
    for (int i = 1; i < 5; i++) {
        assert_int_equal(join(t, &c[i]).error, E_NONE);
        converge(t, c, 5);
    }
    int total = 0;
    for (int i = 0; i < 5; i++) {
        assert_true(owned_count(&c[i]) >= 1 && owned_count(&c[i]) <= 2);
        total += owned_count(&c[i]);
    }
    assert_int_equal(total, NPART);
    for (int i = 4; i >= 1; i--) {
        hb_t h = send_hb(t, &c[i], (hb_opts_t){-1, false, false, NULL, 1});
        assert_int_equal(h.error, E_NONE);
        assert_int_equal(h.epoch, -1);
        c[i].joined = false;
        converge(t, c, 5);
    }
    assert_int_equal(owned_count(&c[0]), NPART);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testConsumerGroupMemberEpochValidation: a
 * member whose answer with the bumped epoch was lost heartbeats with the
 * previous epoch and its owned partitions, and is given the current epoch;
 * the previous epoch without owned partitions, or an epoch above the
 * coordinator's, is FENCED_MEMBER_EPOCH. */
static void test_lost_response_previous_epoch_accepted(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    join(t, &c[0]);
    join(t, &c[1]);
    beat(t, &c[0]); /* revoke half */
    client_t before = c[0];
    hb_t h = beat(t, &c[0]); /* epoch bump to 3; pretend the answer is lost */
    assert_int_equal(h.epoch, 3);
    c[0] = before; /* still at epoch 2 with its 3 partitions */
    h = beat(t, &c[0]);
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, 3);
    /* Previous epoch without owned partitions is fenced. */
    c[0].epoch = 2;
    h = send_hb(t, &c[0], (hb_opts_t){2, false, false, NULL, 1});
    assert_int_equal(h.error, E_FENCED_MEMBER_EPOCH);
    /* A newer epoch than the coordinator's is fenced too. */
    h = send_hb(t, &c[0], (hb_opts_t){9, true, false, NULL, 1});
    assert_int_equal(h.error, E_FENCED_MEMBER_EPOCH);
    assert_true(strstr(h.message, "9") != NULL);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testSessionTimeoutExpiration: a member that
 * stops heartbeating is removed when its session ends; the remaining member
 * gets every partition and the removed one's heartbeat is UNKNOWN_MEMBER_ID.
 */
static void test_session_expiry_fences_member(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    join(t, &c[0]);
    join(t, &c[1]);
    converge(t, c, 2);
    /* Only a keeps heartbeating. */
    for (int i = 0; i < 10; i++) {
        ct_sleep(t, 5000);
        assert_int_equal(beat(t, &c[0]).error, E_NONE);
    }
    c[1].joined = false;
    converge(t, c, 2);
    assert_int_equal(owned_count(&c[0]), NPART);
    hb_t h = beat(t, &c[1]);
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testConsumerGroupHeartbeatWithGroupConfig
 * (consumerGroupSessionTimeoutMs(groupId), consumerGroupHeartbeatIntervalMs):
 * a group's dynamic configs reach its members at their next heartbeat; the
 * session timer each heartbeat arms has the group's timeout; removing them
 * brings back the broker's. */
static void test_group_config_overrides_interval_and_session(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    assert_int_equal(join(t, &c[0]).interval, 5000);
    kc_group_overrides_t o;
    kc_group_overrides_init(&o);
    o.consumer_heartbeat_interval_ms = 7000;
    o.consumer_session_timeout_ms = 50000;
    kc_coord_set_group_overrides(t->c, kc_str("g"), &o);
    assert_int_equal(beat(t, &c[0]).interval, 7000);
    assert_int_equal(join(t, &c[1]).interval, 7000);
    converge(t, c, 2);
    /* Only a heartbeats: b outlives the broker's 45 s, not the group's 50 s. */
    for (int i = 0; i < 9; i++) {
        ct_sleep(t, 5000);
        assert_int_equal(beat(t, &c[0]).error, E_NONE);
    }
    ct_sleep(t, 1000);
    assert_int_equal(beat(t, &c[0]).error, E_NONE);
    hb_t h = beat(t, &c[1]);
    assert_int_equal(h.error, E_NONE);
    for (int i = 0; i < 11; i++) {
        ct_sleep(t, 5000);
        assert_int_equal(beat(t, &c[0]).error, E_NONE);
    }
    assert_int_equal(beat(t, &c[1]).error, E_UNKNOWN_MEMBER_ID);
    /* No overrides: the broker's interval again. */
    kc_coord_set_group_overrides(t->c, kc_str("g"), NULL);
    assert_int_equal(beat(t, &c[0]).interval, 5000);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testRebalanceTimeoutExpiration: a member
 * asked to revoke partitions that keeps reporting them is removed when the
 * rebalance timeout (30 s) ends, though it heartbeats; the other member then
 * gets every partition. */
static void test_rebalance_timeout_fences_unrevoking_member(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    join(t, &c[0]);
    join(t, &c[1]);
    /* a is asked to revoke but keeps reporting every partition. */
    client_t stubborn = c[0];
    beat(t, &c[0]);
    for (int i = 0; i < 5; i++) { /* until 25 s */
        ct_sleep(t, 5000);
        c[0] = stubborn;
        c[0].joined = true;
        assert_int_equal(beat(t, &c[0]).error, E_NONE);
        beat(t, &c[1]);
    }
    ct_sleep(t, 5000); /* past the 30 s rebalance timeout */
    c[0] = stubborn;
    hb_t h = beat(t, &c[0]);
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    c[0].joined = false;
    beat(t, &c[1]);
    beat(t, &c[1]);
    assert_int_equal(owned_count(&c[1]), NPART);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testStaticMemberGetsBackAssignmentUponRejoin,
 * testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId
 * and testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins:
 * a static member leaving with epoch -2 keeps its partitions reserved; a new
 * member id with the same instance id takes them back; another join with that
 * instance id is UNRELEASED_INSTANCE_ID and the old member id is
 * FENCED_INSTANCE_ID. */
static void test_static_leave_and_rejoin(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    c[0].instance_id = "instance-a";
    join(t, &c[0]);
    join(t, &c[1]);
    converge(t, c, 2);
    bool kept[NPART];
    memcpy(kept, c[0].owned, sizeof(kept));
    hb_t h = send_hb(t, &c[0], (hb_opts_t){-2, false, false, NULL, 1});
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, -2);
    /* The instance is reserved: b does not get a's partitions. */
    c[0].joined = false;
    converge(t, c, 2);
    assert_int_equal(owned_count(&c[1]), NPART / 2);
    /* A new member id with the same instance takes a's place and partitions. */
    client_t a2;
    set_id(&a2, "member-a2");
    a2.instance_id = "instance-a";
    h = join(t, &a2);
    assert_int_equal(h.error, E_NONE);
    assert_memory_equal(a2.owned, kept, sizeof(kept));
    /* While a2 holds it, another join with that instance is refused. */
    client_t a3;
    set_id(&a3, "member-a3");
    a3.instance_id = "instance-a";
    h = join(t, &a3);
    assert_int_equal(h.error, E_UNRELEASED_INSTANCE_ID);
    /* The old member id is fenced by the instance. */
    c[0].epoch = 1;
    h = send_hb(t, &c[0], (hb_opts_t){INT32_MIN, true, false, NULL, 1});
    assert_int_equal(h.error, E_FENCED_INSTANCE_ID);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testSessionTimeoutExpirationStaticMember: a
 * static member that left with epoch -2 and is not replaced is removed when
 * its session ends, and its partitions go to the other member. */
static void test_static_member_expires_after_leave(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    c[0].instance_id = "instance-a";
    join(t, &c[0]);
    join(t, &c[1]);
    converge(t, c, 2);
    send_hb(t, &c[0], (hb_opts_t){-2, false, false, NULL, 1});
    c[0].joined = false;
    for (int i = 0; i < 10; i++) {
        ct_sleep(t, 5000);
        beat(t, &c[1]);
    }
    converge(t, c, 2);
    assert_int_equal(owned_count(&c[1]), NPART);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testUnknownGroupId,
 * testUnknownMemberIdJoinsConsumerGroup and
 * GroupCoordinatorServiceTest.testConsumerHeartbeatRequestValidation:
 * heartbeats and leaves to an unknown group (GROUP_ID_NOT_FOUND), a static
 * leave without instance id and epochs below -2 (INVALID_REQUEST), an unknown
 * server assignor (UNSUPPORTED_ASSIGNOR), a join without rebalance timeout or
 * subscription (no record), and an unknown member of a known group
 * (UNKNOWN_MEMBER_ID). */
static void test_invalid_requests(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    /* Heartbeat to a group that does not exist. */
    hb_t h = send_hb(t, &a, (hb_opts_t){3, true, false, NULL, 1});
    assert_int_equal(h.error, E_GROUP_ID_NOT_FOUND);
    h = send_hb(t, &a, (hb_opts_t){-1, false, false, NULL, 1});
    assert_int_equal(h.error, E_GROUP_ID_NOT_FOUND);
    /* Static leave without an instance id; epochs below -2. */
    h = send_hb(t, &a, (hb_opts_t){-2, false, false, NULL, 1});
    assert_int_equal(h.error, E_INVALID_REQUEST);
    assert_true(strstr(h.message, "InstanceId") != NULL);
    h = send_hb(t, &a, (hb_opts_t){-3, false, false, NULL, 1});
    assert_int_equal(h.error, E_INVALID_REQUEST);
    /* Unknown server assignor. */
    h = send_hb(t, &a, (hb_opts_t){0, false, true, "sticky", 1});
    assert_int_equal(h.error, E_UNSUPPORTED_ASSIGNOR);
    assert_true(strstr(h.message, "sticky") != NULL);
    /* Join without a rebalance timeout or subscription. */
    kc_consumer_group_heartbeat_request_t req;
    kc_consumer_group_heartbeat_request_init(&req);
    req.group_id = kc_str("g");
    req.member_id = kc_str("member-z");
    req.member_epoch = 0;
    kc_request_ctx_t ctx = {1, 1, 68, 1, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_heartbeat(t->c, &ctx, &req, &res);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 1);
    assert_int_equal(res.nrecords, 0);
    kc_result_deinit(&res);
    /* Known group, unknown member. */
    join(t, &a);
    client_t b;
    set_id(&b, "member-b");
    h = send_hb(t, &b, (hb_opts_t){1, true, false, NULL, 1});
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    h = send_hb(t, &b, (hb_opts_t){-1, false, false, NULL, 1});
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    ct_free(t);
}

/* The group check of an OffsetCommit at v9 by member_id with epoch, then
 * (when it leaves one) the check of partition p of "t". */
static int16_t commit_check(kc_consumer_group_t *g, const char *member_id, int32_t epoch,
                            int32_t p)
{
    kc_commit_validator_t v = {0};
    int16_t err = kc_consumer_group_validate_offset_commit(g, kc_str(member_id), KC_STR_NULL, epoch, false, 9, &v);
    if (err == E_NONE && v.check)
        err = v.check(&v, kc_str("t"), TOPIC_ID, p);
    return err;
}

/* After ConsumerGroupTest.testValidateOffsetCommitWithEpochValidation and
 * testValidateOffsetFetch: a consumer-protocol member commits with its
 * current epoch, a newer one is STALE_MEMBER_EPOCH, an older one too for a
 * partition assigned to it at a later epoch (KIP-1251), and an unknown
 * member UNKNOWN_MEMBER_ID; a fetch with another epoch is
 * STALE_MEMBER_EPOCH, one without member id and epoch -1 is accepted. */
static void test_offset_commit_member_epoch(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    kc_consumer_group_t *g = kc_consumer_group_find(t->c, kc_str("g"));
    assert_non_null(g);
    kc_commit_validator_t v = {0};
    assert_int_equal(kc_consumer_group_validate_offset_commit(g, kc_str("member-a"), KC_STR_NULL, 2, false, 9, &v), 0);
    assert_null(v.check);
    assert_int_equal(commit_check(g, "member-a", 3, 0), E_STALE_MEMBER_EPOCH);
    /* Epoch 1 is older than 2, at which the member got partition 0. */
    assert_int_equal(commit_check(g, "member-a", 1, 0), E_STALE_MEMBER_EPOCH);
    assert_int_equal(commit_check(g, "nobody", 2, 0), E_UNKNOWN_MEMBER_ID);
    const kc_group_ops_t *ops = &kc_consumer_group_ops;
    assert_int_equal(ops->validate_offset_fetch(&g->base, kc_str("member-a"), 3, 9),
                     E_STALE_MEMBER_EPOCH);
    assert_int_equal(ops->validate_offset_fetch(&g->base, KC_STR_NULL, -1, 9), 0);
    /* An epoch without a member id: Kafka looks the null id up and fails. */
    assert_int_equal(ops->validate_offset_fetch(&g->base, KC_STR_NULL, 2, 9),
                     KC_ERR_UNKNOWN_SERVER_ERROR);
    /* Below v9 the request carries neither. */
    assert_int_equal(ops->validate_offset_fetch(&g->base, kc_str("member-a"), 3, 8), 0);
    ct_free(t);
}

/* The assignment epoch of partition p of "t" held by member_id (pending:
 * among the partitions it revokes); -1 when it holds none. */
static int32_t held_epoch(ctx_t *t, const char *member_id, int32_t p, bool pending)
{
    kc_consumer_group_t *g = kc_consumer_group_find(t->c, kc_str("g"));
    assert_non_null(g);
    cs_member_t *m = kc_cs_member_find(g, kc_str(member_id));
    assert_non_null(m);
    int32_t e;
    return kc_asg_epoch(pending ? &m->pending : &m->assigned, TOPIC_ID, p, &e) ? e : -1;
}

/* OffsetCommit v9 of partitions ps[0..n) of "t" by member_id at epoch;
 * each partition's error goes in errs, in order. */
static void commit_parts(ctx_t *t, const char *member_id, int32_t epoch, const int32_t *ps,
                         int32_t n, int16_t *errs)
{
    kc_offset_commit_request_t req;
    kc_offset_commit_request_init(&req);
    req.group_id = kc_str("g");
    req.generation_id_or_member_epoch = epoch;
    req.member_id = kc_str(member_id);
    kc_offset_commit_request_partition_t parts[NPART];
    memset(parts, 0, sizeof(parts));
    for (int32_t i = 0; i < n; i++) {
        parts[i].partition_index = ps[i];
        parts[i].committed_offset = 100 + ps[i];
        parts[i].committed_leader_epoch = -1;
        parts[i].commit_timestamp = -1;
        parts[i].committed_metadata = kc_str("");
    }
    kc_offset_commit_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.name = kc_str("t");
    topic.partitions.items = parts;
    topic.partitions.count = n;
    req.topics.items = &topic;
    req.topics.count = 1;
    kc_request_ctx_t x = ct_rctx(t, KC_API_OFFSET_COMMIT, 9);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_commit(t->c, &x, &req, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    kc_offset_commit_response_t out;
    kc_offset_commit_response_init(&out);
    kc_reader_t rd = ct_body(t, x.correlation_id);
    assert_int_equal(kc_offset_commit_response_decode(&rd, 9, &t->arena, &out), 0);
    assert_int_equal(out.topics.count, 1);
    assert_int_equal(out.topics.items[0].partitions.count, n);
    for (int32_t i = 0; i < n; i++)
        errs[i] = out.topics.items[0].partitions.items[i].error_code;
}

/* TxnOffsetCommit at version of partitions ps[0..n) of "t" by member_id at
 * epoch for producer 7; each partition's error goes in errs, in order. */
static void txn_commit_parts(ctx_t *t, int16_t version, const char *member_id, int32_t epoch,
                             const int32_t *ps, int32_t n, int16_t *errs)
{
    kc_txn_offset_commit_request_t req;
    kc_txn_offset_commit_request_init(&req);
    req.transactional_id = kc_str("tx");
    req.group_id = kc_str("g");
    req.producer_id = 7;
    req.generation_id_or_member_epoch = epoch;
    req.member_id = kc_str(member_id);
    kc_txn_offset_commit_request_partition_t parts[NPART];
    memset(parts, 0, sizeof(parts));
    for (int32_t i = 0; i < n; i++) {
        parts[i].partition_index = ps[i];
        parts[i].committed_offset = 200 + ps[i];
        parts[i].committed_leader_epoch = -1;
        parts[i].committed_metadata = kc_str("");
    }
    kc_txn_offset_commit_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.name = kc_str("t");
    topic.topic_id = TOPIC_ID;
    topic.partitions.items = parts;
    topic.partitions.count = n;
    req.topics.items = &topic;
    req.topics.count = 1;
    kc_request_ctx_t x = ct_rctx(t, KC_API_TXN_OFFSET_COMMIT, version);
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_txn_offset_commit(t->c, &x, &req, KC_ERR_NONE, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
    kc_txn_offset_commit_response_t out;
    kc_txn_offset_commit_response_init(&out);
    kc_reader_t rd = ct_body(t, x.correlation_id);
    assert_int_equal(kc_txn_offset_commit_response_decode(&rd, version, &t->arena, &out), 0);
    assert_int_equal(out.topics.count, 1);
    assert_int_equal(out.topics.items[0].partitions.count, n);
    for (int32_t i = 0; i < n; i++)
        errs[i] = out.topics.items[0].partitions.items[i].error_code;
}

/* After ConsumerGroupTest.testValidateOffsetCommitWithAssignmentEpoch and
 * CurrentAssignmentBuilderTest (KIP-1251): a partition keeps the epoch it
 * was assigned at while its member moves to later epochs without a change,
 * and through its revocation; a partition newly assigned, or given back
 * after a revocation, takes the target epoch. A commit with an older member
 * epoch passes for partitions held (assigned or pending revocation) since
 * that epoch or before, and fails whole with STALE_MEMBER_EPOCH when one
 * partition is not. A restart restores the epochs. */
static void test_offset_commit_assignment_epochs(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[3];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    set_id(&c[2], "member-c");
    join(t, &c[0]);
    for (int32_t p = 0; p < NPART; p++)
        assert_int_equal(held_epoch(t, "member-a", p, false), 2);
    /* b joins (epoch 3): a revokes half at epoch 2, then takes epoch 3;
     * what it keeps stays at epoch 2. */
    join(t, &c[1]);
    beat(t, &c[0]);
    assert_int_equal(c[0].epoch, 2);
    beat(t, &c[0]);
    assert_int_equal(c[0].epoch, 3);
    bool kept[NPART];
    memcpy(kept, c[0].owned, sizeof(kept));
    assert_int_equal(owned_count(&c[0]), NPART / 2);
    kc_consumer_group_t *g = kc_consumer_group_find(t->c, kc_str("g"));
    for (int32_t p = 0; p < NPART; p++) {
        assert_int_equal(held_epoch(t, "member-a", p, false), kept[p] ? 2 : -1);
        assert_int_equal(commit_check(g, "member-a", 2, p),
                         kept[p] ? E_NONE : E_STALE_MEMBER_EPOCH);
        assert_int_equal(commit_check(g, "member-a", 1, p), E_STALE_MEMBER_EPOCH);
    }
    /* b gets the other half at epoch 3: an older epoch does not commit them. */
    beat(t, &c[1]);
    for (int32_t p = 0; p < NPART; p++) {
        assert_int_equal(held_epoch(t, "member-b", p, false), kept[p] ? -1 : 3);
        if (!kept[p]) {
            assert_int_equal(commit_check(g, "member-b", 2, p), E_STALE_MEMBER_EPOCH);
            assert_int_equal(commit_check(g, "member-b", 3, p), E_NONE);
        }
    }
    /* The whole commit fails with the partition that does not pass, and
     * none is written. */
    int32_t ps[NPART], n = 0, mine = -1, other = -1;
    for (int32_t p = 0; p < NPART; p++) {
        if (kept[p] && mine < 0)
            mine = p;
        if (!kept[p] && other < 0)
            other = p;
    }
    ps[n++] = mine;
    int16_t errs[NPART];
    commit_parts(t, "member-a", 2, ps, n, errs);
    assert_int_equal(errs[0], E_NONE);
    ps[n++] = other;
    size_t nrecs = t->nrecs;
    commit_parts(t, "member-a", 2, ps, n, errs);
    assert_int_equal(errs[0], E_STALE_MEMBER_EPOCH);
    assert_int_equal(errs[1], E_STALE_MEMBER_EPOCH);
    assert_int_equal(t->nrecs, nrecs);
    /* So does a transactional commit (commitTransactionalOffset throws):
     * ILLEGAL_GENERATION before v6, STALE_MEMBER_EPOCH from v6 (KIP-1319). */
    txn_commit_parts(t, 5, "member-a", 2, ps, n, errs);
    assert_int_equal(errs[0], E_ILLEGAL_GENERATION);
    assert_int_equal(errs[1], E_ILLEGAL_GENERATION);
    txn_commit_parts(t, 6, "member-a", 2, ps, n, errs);
    assert_int_equal(errs[0], E_STALE_MEMBER_EPOCH);
    assert_int_equal(errs[1], E_STALE_MEMBER_EPOCH);
    assert_int_equal(t->nrecs, nrecs);
    txn_commit_parts(t, 6, "member-a", 2, ps, 1, errs);
    assert_int_equal(errs[0], E_NONE);
    assert_int_equal(t->nrecs, nrecs + 1);
    /* c joins (epoch 4): a revokes one of its partitions, assigned at
     * epoch 2, and keeps epoch 3 meanwhile; epoch 2 still commits the
     * partition pending revocation. */
    join(t, &c[2]);
    hb_t h = beat(t, &c[0]);
    assert_int_equal(h.epoch, 3);
    int32_t revoking = -1;
    for (int32_t p = 0; p < NPART; p++)
        if (held_epoch(t, "member-a", p, true) >= 0)
            revoking = p;
    assert_true(revoking >= 0);
    assert_int_equal(held_epoch(t, "member-a", revoking, true), 2);
    assert_int_equal(commit_check(g, "member-a", 2, revoking), E_NONE);
    converge(t, c, 3);
    /* A restart brings the epochs back as they were (the replay check at
     * the end compares every one of them too). */
    int32_t before[NPART];
    for (int32_t p = 0; p < NPART; p++)
        before[p] = held_epoch(t, "member-a", p, false);
    ct_restart(t, false);
    for (int32_t p = 0; p < NPART; p++)
        assert_int_equal(held_epoch(t, "member-a", p, false), before[p]);
    /* b and c leave: a gets everything back, what it never gave up at
     * epoch 2, the rest (revoked before) at the epoch it is given them. */
    for (int i = 1; i < 3; i++) {
        assert_int_equal(send_hb(t, &c[i], (hb_opts_t){-1, false, false, NULL, 1}).error, E_NONE);
        c[i].joined = false;
    }
    converge(t, c, 3);
    assert_int_equal(owned_count(&c[0]), NPART);
    for (int32_t p = 0; p < NPART; p++)
        assert_int_equal(held_epoch(t, "member-a", p, false), before[p] == 2 ? 2 : c[0].epoch);
    assert_true(c[0].epoch > 4);
    ct_free(t);
}

/* Replays a hand-made record 8 of member "m" at epoch: partitions 3 and 1
 * of "t" (in that order) with epochs es (NULL: none, as records written
 * before KIP-1251; nes of them) and partition 0 pending revocation without
 * epochs. */
static void replay_current(ctx_t *t, int32_t epoch, const int32_t *es, int32_t nes)
{
    kc_consumer_group_current_member_assignment_key_t k;
    kc_consumer_group_current_member_assignment_key_init(&k);
    k.group_id = kc_str("g");
    k.member_id = kc_str("m");
    int32_t assigned[2] = {3, 1}, pending[1] = {0};
    cur_tp_ex_t a = {.topic_id = TOPIC_ID, .partitions = {assigned, 2},
                     .assignment_epochs = {(int32_t *)es, es ? nes : -1}};
    cur_tp_ex_t r = {.topic_id = TOPIC_ID, .partitions = {pending, 1},
                     .assignment_epochs = {NULL, -1}};
    kc_consumer_group_current_member_assignment_value_t v;
    kc_consumer_group_current_member_assignment_value_init(&v);
    v.member_epoch = epoch;
    v.previous_member_epoch = epoch;
    v.state = 1;
    v.assigned_partitions.items = &a;
    v.assigned_partitions.count = 1;
    v.partitions_pending_revocation.items = &r;
    v.partitions_pending_revocation.count = 1;
    kc_buf_t key, value;
    kc_buf_init(&key);
    kc_buf_init(&value);
    kc_write_int16(&key, KC_RECORD_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT);
    assert_int_equal(kc_consumer_group_current_member_assignment_key_encode(&key, 0, &k), 0);
    kc_write_int16(&value, 0);
    assert_int_equal(kc_consumer_group_current_member_assignment_value_encode(&value, 0, &v), 0);
    assert_int_equal(ct_replay(t, &key, &value), 0);
    kc_buf_deinit(&key);
    kc_buf_deinit(&value);
}

/* ConsumerGroupMember.updateWith: the epochs of a record, in the record's
 * partition order; a record without them (written before KIP-1251), or
 * with as many as not its partitions, puts every partition at the member
 * epoch, at 0 for a static member that left (epoch -2). */
static void test_replay_assignment_epochs(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    replay_current(t, 7, (const int32_t[]){5, 6}, 2);
    assert_int_equal(held_epoch(t, "m", 3, false), 5);
    assert_int_equal(held_epoch(t, "m", 1, false), 6);
    assert_int_equal(held_epoch(t, "m", 0, true), 7);
    replay_current(t, 7, NULL, 0);
    assert_int_equal(held_epoch(t, "m", 3, false), 7);
    assert_int_equal(held_epoch(t, "m", 1, false), 7);
    replay_current(t, 8, (const int32_t[]){5}, 1);
    assert_int_equal(held_epoch(t, "m", 3, false), 8);
    assert_int_equal(held_epoch(t, "m", 1, false), 8);
    replay_current(t, -2, NULL, 0);
    assert_int_equal(held_epoch(t, "m", 1, false), 0);
    assert_int_equal(held_epoch(t, "m", 0, true), 0);
    ct_free(t);
}

/* A replayed record 8 may name any partition, up to 2^31-1 (Kafka stores
 * what the record holds): the group's partition owners take one entry per
 * partition named, not an array as long as the largest index (which took
 * GiBs, and overflowed its size past 2^30), and give them up when the
 * member's next record no longer names them. */
static void test_replay_huge_partition_index(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    int32_t huge[3] = {1, 1 << 29, INT32_MAX};
    for (int round = 0; round < 2; round++) {
        kc_consumer_group_current_member_assignment_key_t k;
        kc_consumer_group_current_member_assignment_key_init(&k);
        k.group_id = kc_str("g");
        k.member_id = kc_str("m");
        cur_tp_ex_t a = {.topic_id = TOPIC_ID, .partitions = {huge, round == 0 ? 3 : 1},
                         .assignment_epochs = {NULL, -1}};
        kc_consumer_group_current_member_assignment_value_t v;
        kc_consumer_group_current_member_assignment_value_init(&v);
        v.member_epoch = 7;
        v.previous_member_epoch = 6;
        v.state = 0;
        v.assigned_partitions.items = &a;
        v.assigned_partitions.count = 1;
        kc_buf_t key, value;
        kc_buf_init(&key);
        kc_buf_init(&value);
        kc_write_int16(&key, KC_RECORD_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT);
        assert_int_equal(kc_consumer_group_current_member_assignment_key_encode(&key, 0, &k), 0);
        kc_write_int16(&value, 0);
        assert_int_equal(kc_consumer_group_current_member_assignment_value_encode(&value, 0, &v),
                         0);
        assert_int_equal(ct_replay(t, &key, &value), 0);
        kc_buf_deinit(&key);
        kc_buf_deinit(&value);
        assert_int_equal(held_epoch(t, "m", INT32_MAX, false), round == 0 ? 7 : -1);
        assert_int_equal(held_epoch(t, "m", 1, false), 7);
        kc_consumer_group_t *g = kc_consumer_group_find(t->c, kc_str("g"));
        assert_int_equal(g->nowners, 1);
        assert_int_equal(g->owners[0].epoch.n, round == 0 ? 3 : 1);
        assert_true(g->owners[0].epoch.cap <= 16);
    }
    ct_free(t);
}

/* Two groups whose ids differ only after a NUL byte (Kafka's ids are
 * length-delimited and may hold any byte), each with a member "m": each
 * member's session timer finds its own group and fences its member (the
 * timers, their keys and the records keyed by the group id took the id up
 * to the NUL: neither member was fenced, and the records named group "g"). */
static void test_group_ids_differing_after_nul(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    static const char a[] = {'g', '\0', 'a'}, b[] = {'g', '\0', 'b'};
    kc_str_t ids[2] = {{a, 3}, {b, 3}};
    for (int i = 0; i < 2; i++) {
        client_t cl; /* "m": the id a client chose, as KIP-848 lets it */
        set_id(&cl, "m");
        assert_int_equal(send_hb(t, &cl, (hb_opts_t){0, false, true, NULL, 1, ids[i]}).error,
                         E_NONE);
    }
    for (int i = 0; i < 2; i++)
        assert_int_equal(kc_consumer_group_find(t->c, ids[i])->members.n, 1);
    assert_null(kc_consumer_group_find(t->c, kc_str("g")));
    ct_check_replay(t);
    ct_sleep(t, 45000 + 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(kc_consumer_group_find(t->c, ids[i])->members.n, 0);
    assert_null(kc_consumer_group_find(t->c, kc_str("g")));
    ct_free(t);
}

static void test_range_assignor(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    send_hb(t, &c[0], (hb_opts_t){0, false, true, "range", 1});
    send_hb(t, &c[1], (hb_opts_t){0, false, true, "range", 1});
    converge(t, c, 2);
    /* member-a (first id) gets the first range. */
    for (int p = 0; p < NPART; p++)
        assert_int_equal(c[0].owned[p], p < NPART / 2);
    ct_free(t);
}

/* Replays the compacted record log into a fresh coordinator. */
static kc_coord_t *replay_all(ctx_t *t) { return ct_replayed(t, true); }

static void describe(kc_coord_t *c, kc_buf_t *out)
{
    kc_consumer_group_describe_request_t req;
    kc_consumer_group_describe_request_init(&req);
    kc_str_t ids[1] = {kc_str("g")};
    req.group_ids.items = ids;
    req.group_ids.count = 1;
    kc_request_ctx_t ctx = {1, 1, 69, 1, kc_str("client"), "/127.0.0.1", 0};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_describe(c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    kc_buf_append(out, res.responses[0].body.data, res.responses[0].body.len);
    kc_result_deinit(&res);
}

/* Authorizer stand-in: "User:reader" may describe group "g" and topic
 * "t"; "User:blind" only the group; anyone else nothing. */
static bool describe_authorize(const void *arg, const char *principal, const char *host,
                               int8_t op, int8_t rtype, kc_str_t name)
{
    (void)arg;
    (void)host;
    if (op != KC_OP_DESCRIBE)
        return false;
    if (rtype == KC_RES_GROUP)
        return kc_str_eq_cstr(name, "g") &&
               (strcmp(principal, "User:reader") == 0 || strcmp(principal, "User:blind") == 0);
    return rtype == KC_RES_TOPIC && kc_str_eq_cstr(name, "t") &&
           strcmp(principal, "User:reader") == 0;
}

static kc_consumer_group_describe_response_described_group_t
describe_as(kc_coord_t *c, const char *principal, kc_arena_t *arena)
{
    kc_consumer_group_describe_request_t req;
    kc_consumer_group_describe_request_init(&req);
    kc_str_t ids[1] = {kc_str("g")};
    req.group_ids.items = ids;
    req.group_ids.count = 1;
    req.include_authorized_operations = true;
    kc_request_ctx_t ctx = {1, 1, 69, 1, kc_str("client"), "/127.0.0.1", 0};
    ctx.principal = principal;
    ctx.authorize = describe_authorize;
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_describe(c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    /* Decoded views point into the body: decode a copy that lives in the arena. */
    uint8_t *copy = kc_arena_alloc(arena, res.responses[0].body.len);
    memcpy(copy, res.responses[0].body.data, res.responses[0].body.len);
    kc_reader_t r;
    kc_reader_init(&r, copy, res.responses[0].body.len);
    kc_consumer_group_describe_response_t out;
    assert_int_equal(kc_consumer_group_describe_response_decode(&r, 1, arena, &out), 0);
    kc_result_deinit(&res);
    assert_int_equal(out.groups.count, 1);
    return out.groups.items[0];
}

/* Kafka's epochs around an emptied group: a member subscribed to nothing
 * joins a new group at epoch 1 (no bump); when the last member leaves, the
 * assignment epoch follows the bumped group epoch. */
static void test_epochs_of_new_and_emptied_groups(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    hb_t h = join(t, &a);
    assert_int_equal(h.epoch, 2);
    h = send_hb(t, &a, (hb_opts_t){-1, false, false, NULL, 1});
    assert_int_equal(h.error, E_NONE);
    kc_consumer_group_t *g = kc_consumer_group_find(t->c, kc_str("g"));
    assert_non_null(g);
    assert_int_equal(g->group_epoch, 3);
    assert_int_equal(g->assignment_epoch, 3);
    /* The same after a restart (the target assignment metadata record). */
    kc_coord_t *r = replay_all(t);
    g = kc_consumer_group_find(r, kc_str("g"));
    assert_non_null(g);
    assert_int_equal(g->group_epoch, 3);
    assert_int_equal(g->assignment_epoch, 3);
    kc_coord_free(r);
    ct_free(t);
}

/* GroupCoordinatorServiceTest.testConsumerGroupDescribeInvalidGroupId:
 * ConsumerGroupDescribe of an empty group id answers INVALID_GROUP_ID for it,
 * without an error message. */
static void test_consumer_group_describe_invalid_group_id(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    kc_consumer_group_describe_request_t req;
    kc_consumer_group_describe_request_init(&req);
    kc_str_t ids[1] = {kc_str("")};
    req.group_ids.items = ids;
    req.group_ids.count = 1;
    kc_request_ctx_t ctx = {1, 1, 69, 1, kc_str("client"), "/127.0.0.1", 0};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_describe(t->c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    kc_consumer_group_describe_response_t out;
    assert_int_equal(kc_consumer_group_describe_response_decode(&rd, 1, &arena, &out), 0);
    assert_int_equal(out.groups.count, 1);
    assert_int_equal(out.groups.items[0].error_code, KC_ERR_INVALID_GROUP_ID);
    assert_true(out.groups.items[0].error_message.len < 0);
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    ct_free(t);
}

/* KafkaApis.handleConsumerGroupDescribe's checks, through the authorizer hook. */
static void test_describe_checks_group_and_assigned_topics(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[1];
    set_id(&c[0], "member-a");
    join(t, &c[0]);
    converge(t, c, 1);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_describe_response_described_group_t g =
        describe_as(t->c, "User:reader", &arena);
    assert_int_equal(g.error_code, 0);
    assert_int_equal(g.members.count, 1);
    assert_int_equal(g.authorized_operations, 1 << KC_OP_DESCRIBE);
    g = describe_as(t->c, "User:blind", &arena);
    assert_int_equal(g.error_code, KC_ERR_TOPIC_AUTHORIZATION_FAILED);
    assert_int_equal(g.members.count, 0);
    g = describe_as(t->c, "User:nobody", &arena);
    assert_int_equal(g.error_code, KC_ERR_GROUP_AUTHORIZATION_FAILED);
    kc_arena_deinit(&arena);
    ct_free(t);
}

static void test_replay_rebuilds_mid_reconciliation(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[3];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    set_id(&c[2], "member-c");
    c[2].instance_id = "instance-c";
    join(t, &c[0]);
    join(t, &c[1]);
    beat(t, &c[0]); /* a is now revoking */
    join(t, &c[2]);
    kc_buf_t before, after;
    kc_buf_init(&before);
    kc_buf_init(&after);
    describe(t->c, &before);
    kc_coord_t *r = replay_all(t);
    describe(r, &after);
    assert_int_equal(before.len, after.len);
    assert_memory_equal(before.data, after.data, before.len);
    /* The rebuilt coordinator continues the reconciliation. */
    kc_coord_free(t->c);
    t->c = r;
    converge(t, c, 3);
    int total = 0;
    for (int i = 0; i < 3; i++)
        total += owned_count(&c[i]);
    assert_int_equal(total, NPART);
    kc_buf_deinit(&before);
    kc_buf_deinit(&after);
    ct_free(t);
}

/* DeleteGroups v2 of "g" through the coordinator; returns the group's error. */
static int16_t delete_group(ctx_t *t)
{
    kc_delete_groups_request_t req;
    kc_delete_groups_request_init(&req);
    kc_str_t ids[1] = {kc_str("g")};
    req.groups_names.items = ids;
    req.groups_names.count = 1;
    kc_request_ctx_t ctx = {1, 1, 42, 2, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_delete_groups(t->c, &ctx, &req, &res);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 1);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_delete_groups_response_t out;
    kc_delete_groups_response_init(&out);
    assert_int_equal(kc_delete_groups_response_decode(&rd, 2, &arena, &out), 0);
    assert_int_equal(out.results.count, 1);
    int16_t err = out.results.items[0].error_code;
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    return err;
}

/* DescribeGroups v6 of "g": error code and message. */
static int16_t describe_classic(ctx_t *t, char *msg, size_t cap)
{
    kc_describe_groups_request_t req;
    kc_describe_groups_request_init(&req);
    kc_str_t ids[1] = {kc_str("g")};
    req.groups.items = ids;
    req.groups.count = 1;
    kc_request_ctx_t ctx = {1, 1, 15, 6, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_describe_groups(t->c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_describe_groups_response_t out;
    kc_describe_groups_response_init(&out);
    assert_int_equal(kc_describe_groups_response_decode(&rd, 6, &arena, &out), 0);
    assert_int_equal(out.groups.count, 1);
    int16_t err = out.groups.items[0].error_code;
    kc_str_t m = out.groups.items[0].error_message;
    snprintf(msg, cap, "%.*s", m.len < 0 ? 0 : (int)m.len, m.ptr ? m.ptr : "");
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    return err;
}

/* After GroupMetadataManagerTest.testConsumerGroupDelete: DeleteGroups of a
 * consumer group is NON_EMPTY_GROUP while it has members, then writes the
 * group's tombstones; classic DescribeGroups v6 calls it "not a classic
 * group" (GroupMetadataManager.classicGroup), then not found. */
static void test_delete_and_describe_consumer_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    char msg[128];
    assert_int_equal(describe_classic(t, msg, sizeof(msg)), 69 /* GROUP_ID_NOT_FOUND */);
    assert_string_equal(msg, "Group g is not a classic group.");
    assert_int_equal(delete_group(t), 68 /* NON_EMPTY_GROUP */);
    assert_non_null(kc_consumer_group_find(t->c, kc_str("g")));
    hb_t left = send_hb(t, &a, (hb_opts_t){-1, false, false, NULL, 1});
    assert_int_equal(left.error, 0);
    assert_int_equal(left.epoch, -1);
    assert_int_equal(delete_group(t), 0);
    assert_null(kc_consumer_group_find(t->c, kc_str("g")));
    assert_int_equal(delete_group(t), 69 /* GROUP_ID_NOT_FOUND */);
    assert_int_equal(describe_classic(t, msg, sizeof(msg)), 69);
    assert_string_equal(msg, "Group g not found.");
    /* The last record is the group epoch tombstone: a replay has no group. */
    assert_true(t->nrecs > 0 && t->recs[t->nrecs - 1].tombstone);
    kc_coord_t *r = replay_all(t);
    assert_null(kc_consumer_group_find(r, kc_str("g")));
    kc_coord_free(r);
    ct_free(t);
}

/* After UniformHomogeneousAssignmentBuilderTest.testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics:
 * a third member added to two that share ten partitions leaves each member 3
 * or 4, and the two first keep only partitions they had. */
static void test_uniform_assignor_balanced_and_sticky(void **state)
{
    (void)state;
    kc_assign_topic_t topics[1] = {{"t", TOPIC_ID, 10}};
    bool sub[3] = {true, true, true};
    kc_asg_t prev[3] = {{0}};
    for (int p = 0; p < 10; p++)
        kc_asg_add(&prev[p % 2], TOPIC_ID, p);
    kc_assign_member_t m[3] = {{"a", &sub[0], &prev[0], {0}},
                               {"b", &sub[1], &prev[1], {0}},
                               {"c", &sub[2], &prev[2], {0}}};
    kc_assign_spec_t spec = {topics, 1, m, 3};
    kc_assignor_uniform(&spec);
    int64_t total = 0;
    for (int i = 0; i < 3; i++) {
        int64_t n = kc_asg_count(&m[i].target);
        assert_true(n == 3 || n == 4);
        total += n;
        /* a and b keep only partitions they had. */
        for (int p = 0; p < 10 && i < 2; p++)
            if (kc_asg_has(&m[i].target, TOPIC_ID, p))
                assert_true(kc_asg_has(&prev[i], TOPIC_ID, p));
    }
    assert_int_equal(total, 10);
    for (int i = 0; i < 3; i++) {
        kc_asg_free(&m[i].target);
        kc_asg_free(&prev[i]);
    }
}

/* ConsumerGroupDescribe lists members in the order of Kafka's
 * TimelineHashMap of member ids: for m-a, m-b, m-c (a table of 4 slots)
 * that is m-b, m-a, m-c, whatever the join order. */
static void test_describe_member_order(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[3];
    set_id(&c[0], "m-a");
    set_id(&c[1], "m-b");
    set_id(&c[2], "m-c");
    for (int i = 0; i < 3; i++)
        join(t, &c[i]);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_describe_response_described_group_t dg =
        describe_as(t->c, "User:reader", &arena);
    assert_int_equal(dg.members.count, 3);
    assert_true(kc_str_eq_cstr(dg.members.items[0].member_id, "m-b"));
    assert_true(kc_str_eq_cstr(dg.members.items[1].member_id, "m-a"));
    assert_true(kc_str_eq_cstr(dg.members.items[2].member_id, "m-c"));
    kc_arena_deinit(&arena);
    ct_free(t);
}

/* After ConsumerGroupTest.testPreferredServerAssignor: assignors named by as
 * many members: Kafka keeps the first of its hash table of names, "uniform"
 * before "range" (not the alphabetical first). */
static void test_preferred_assignor_tie(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    assert_int_equal(send_hb(t, &a, (hb_opts_t){0, false, true, "range", 1}).error, E_NONE);
    assert_int_equal(send_hb(t, &b, (hb_opts_t){0, false, true, "uniform", 1}).error, E_NONE);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_describe_response_described_group_t dg =
        describe_as(t->c, "User:reader", &arena);
    assert_true(kc_str_eq_cstr(dg.assignor_name, "uniform"));
    kc_arena_deinit(&arena);
    ct_free(t);
}

/* ConsumerGroupMemberTest.testAsConsumerGroupDescribeMemberWithSameTopicPendingRevocation:
 * ConsumerGroupDescribe of a member still revoking partitions of a topic it
 * keeps others of lists that topic once, with the kept partitions first and
 * the ones pending revocation after (Kafka's asConsumerGroupDescribeMember);
 * its target assignment has only the kept half. */
static void test_as_consumer_group_describe_member_with_same_topic_pending_revocation(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "member-a");
    set_id(&c[1], "member-b");
    join(t, &c[0]);
    join(t, &c[1]);
    beat(t, &c[0]); /* told to revoke half */
    assert_int_equal(owned_count(&c[0]), NPART / 2);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_describe_response_described_group_t dg =
        describe_as(t->c, "User:reader", &arena);
    assert_int_equal(dg.members.count, 2);
    for (int32_t i = 0; i < dg.members.count; i++) {
        kc_consumer_group_describe_response_member_t *m = &dg.members.items[i];
        if (!kc_str_eq_cstr(m->member_id, "member-a"))
            continue;
        assert_int_equal(m->assignment.topic_partitions.count, 1);
        assert_int_equal(m->assignment.topic_partitions.items[0].partitions.count, NPART);
        /* The kept half first. */
        for (int32_t k = 0; k < NPART / 2; k++)
            assert_true(c[0].owned[m->assignment.topic_partitions.items[0].partitions.items[k]]);
        assert_int_equal(m->target_assignment.topic_partitions.items[0].partitions.count,
                         NPART / 2);
    }
    kc_arena_deinit(&arena);
    ct_free(t);
}

/* Partitions are listed in Java HashSet order: 20..39 (a table of 32)
 * iterate 32..39 first; sets whose numbers fit the table stay ascending. */
static void test_java_int_set_order(void **state)
{
    (void)state;
    kc_arena_t arena;
    kc_arena_init(&arena);
    int32_t in[40];
    for (int i = 0; i < 40; i++)
        in[i] = i;
    int32_t *o = kc_cs_java_int_set_order(in + 20, 20, &arena);
    for (int i = 0; i < 8; i++)
        assert_int_equal(o[i], 32 + i);
    for (int i = 8; i < 20; i++)
        assert_int_equal(o[i], 12 + i);
    o = kc_cs_java_int_set_order(in, 40, &arena);
    for (int i = 0; i < 40; i++)
        assert_int_equal(o[i], i);
    int32_t two[2] = {3, 17};
    o = kc_cs_java_int_set_order(two, 2, &arena);
    assert_int_equal(o[0], 17);
    assert_int_equal(o[1], 3);
    kc_arena_deinit(&arena);
}

/* Two members: their joins put each member twice, which grows Kafka's
 * table to 4 slots (it grows before telling an add from a replace), where
 * m-a comes before m-c. */
static void test_describe_member_order_two(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t c[2];
    set_id(&c[0], "m-a");
    set_id(&c[1], "m-c");
    for (int i = 0; i < 2; i++)
        join(t, &c[i]);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_describe_response_described_group_t dg =
        describe_as(t->c, "User:reader", &arena);
    assert_int_equal(dg.members.count, 2);
    assert_true(kc_str_eq_cstr(dg.members.items[0].member_id, "m-a"));
    assert_true(kc_str_eq_cstr(dg.members.items[1].member_id, "m-c"));
    kc_arena_deinit(&arena);
    ct_free(t);
}

static void assert_partitions(const kc_asg_t *a, const int32_t *want, int32_t n)
{
    assert_int_equal(kc_asg_count(a), n);
    for (int32_t i = 0; i < n; i++)
        assert_true(kc_asg_has(a, TOPIC_ID, want[i]));
}

/* Kafka's UniformHomogeneousAssignmentBuilder walks the members in the order
 * of a java.util.HashMap of their ids (here member-two, member-three,
 * member-one), the last ones taking the extra partitions, and gives the
 * released partitions to the members with quota left in that order. */
static void test_uniform_assignor_follows_kafka_member_order(void **state)
{
    (void)state;
    kc_assign_topic_t topics[1] = {{"t", TOPIC_ID, 7}};
    bool sub[3] = {true, true, true};
    kc_asg_t none[3] = {{0}};
    kc_assign_member_t m[3] = {{"member-one", &sub[0], &none[0], {0}},
                               {"member-three", &sub[1], &none[1], {0}},
                               {"member-two", &sub[2], &none[2], {0}}};
    kc_assign_spec_t spec = {topics, 1, m, 3};
    kc_assignor_uniform(&spec);
    assert_partitions(&m[2].target, (int32_t[]){0, 1}, 2);
    assert_partitions(&m[1].target, (int32_t[]){2, 3}, 2);
    assert_partitions(&m[0].target, (int32_t[]){4, 5, 6}, 3);
    /* member-three leaves: its partitions go to member-two first. */
    kc_assign_member_t m2[2] = {{"member-one", &sub[0], &m[0].target, {0}},
                                {"member-two", &sub[2], &m[2].target, {0}}};
    kc_assign_spec_t spec2 = {topics, 1, m2, 2};
    kc_assignor_uniform(&spec2);
    assert_partitions(&m2[1].target, (int32_t[]){0, 1, 2}, 3);
    assert_partitions(&m2[0].target, (int32_t[]){3, 4, 5, 6}, 4);
    for (int i = 0; i < 3; i++)
        kc_asg_free(&m[i].target);
    for (int i = 0; i < 2; i++)
        kc_asg_free(&m2[i].target);
}

/* Different subscriptions: Kafka's UniformHeterogeneousAssignmentBuilder
 * deals a topic's unassigned partitions round-robin over its least loaded
 * subscribers in Kafka's member order (member-three, then member-one). */
static void test_uniform_assignor_heterogeneous_as_kafka(void **state)
{
    (void)state;
    kc_assign_topic_t topics[1] = {{"t", TOPIC_ID, 5}};
    bool yes = true, no = false;
    kc_asg_t none[3] = {{0}};
    kc_assign_member_t m[3] = {{"member-one", &yes, &none[0], {0}},
                               {"member-three", &yes, &none[1], {0}},
                               {"member-two", &no, &none[2], {0}}};
    kc_assign_spec_t spec = {topics, 1, m, 3};
    kc_assignor_uniform(&spec);
    assert_partitions(&m[1].target, (int32_t[]){0, 2, 4}, 3);
    assert_partitions(&m[0].target, (int32_t[]){1, 3}, 2);
    assert_int_equal(kc_asg_count(&m[2].target), 0);
    /* A previous target that is too unbalanced moves partitions from the
     * most loaded member's highest partitions. */
    kc_asg_t prev = {0};
    for (int p = 0; p < 5; p++)
        kc_asg_add(&prev, TOPIC_ID, p);
    kc_assign_member_t m2[3] = {{"member-one", &yes, &prev, {0}},
                                {"member-three", &yes, &none[1], {0}},
                                {"member-two", &no, &none[2], {0}}};
    kc_assign_spec_t spec2 = {topics, 1, m2, 3};
    kc_assignor_uniform(&spec2);
    assert_partitions(&m2[0].target, (int32_t[]){0, 1, 2}, 3);
    assert_partitions(&m2[1].target, (int32_t[]){3, 4}, 2);
    for (int i = 0; i < 3; i++) {
        kc_asg_free(&m[i].target);
        kc_asg_free(&m2[i].target);
    }
    kc_asg_free(&prev);
    /* Kafka's subscription type decides the builder: the same topics but
     * a heterogeneous group (one member also names a missing topic) deal
     * the partitions round-robin instead of in quotas. */
    kc_assign_member_t m3[2] = {{"member-one", &yes, &none[0], {0}},
                                {"member-two", &yes, &none[1], {0}}};
    kc_assign_spec_t spec3 = {topics, 1, m3, 2, KC_SUBS_HETEROGENEOUS};
    kc_assignor_uniform(&spec3);
    assert_partitions(&m3[1].target, (int32_t[]){0, 2, 4}, 3);
    assert_partitions(&m3[0].target, (int32_t[]){1, 3}, 2);
    kc_assign_spec_t spec4 = {topics, 1, m3, 2, KC_SUBS_HOMOGENEOUS};
    for (int i = 0; i < 2; i++)
        kc_asg_free(&m3[i].target);
    kc_assignor_uniform(&spec4);
    assert_partitions(&m3[1].target, (int32_t[]){0, 1}, 2);
    assert_partitions(&m3[0].target, (int32_t[]){2, 3, 4}, 3);
    for (int i = 0; i < 2; i++)
        kc_asg_free(&m3[i].target);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_gets_all_partitions_and_interval),
        cmocka_unit_test(test_v0_join_generates_member_id),
        cmocka_unit_test(test_revocation_before_assignment),
        cmocka_unit_test(test_scale_out_and_in_never_owns_twice),
        cmocka_unit_test(test_lost_response_previous_epoch_accepted),
        cmocka_unit_test(test_session_expiry_fences_member),
        cmocka_unit_test(test_group_config_overrides_interval_and_session),
        cmocka_unit_test(test_rebalance_timeout_fences_unrevoking_member),
        cmocka_unit_test(test_static_leave_and_rejoin),
        cmocka_unit_test(test_static_member_expires_after_leave),
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_offset_commit_member_epoch),
        cmocka_unit_test(test_offset_commit_assignment_epochs),
        cmocka_unit_test(test_replay_assignment_epochs),
        cmocka_unit_test(test_replay_huge_partition_index),
        cmocka_unit_test(test_group_ids_differing_after_nul),
        cmocka_unit_test(test_range_assignor),
        cmocka_unit_test(test_replay_rebuilds_mid_reconciliation),
        cmocka_unit_test(test_uniform_assignor_balanced_and_sticky),
        cmocka_unit_test(test_delete_and_describe_consumer_group),
        cmocka_unit_test(test_describe_checks_group_and_assigned_topics),
        cmocka_unit_test(test_epochs_of_new_and_emptied_groups),
        cmocka_unit_test(test_describe_member_order),
        cmocka_unit_test(test_describe_member_order_two),
        cmocka_unit_test(test_java_int_set_order),
        cmocka_unit_test(test_as_consumer_group_describe_member_with_same_topic_pending_revocation),
        cmocka_unit_test(test_preferred_assignor_tie),
        cmocka_unit_test(test_uniform_assignor_follows_kafka_member_order),
        cmocka_unit_test(test_uniform_assignor_heterogeneous_as_kafka),
        cmocka_unit_test(test_consumer_group_describe_invalid_group_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
