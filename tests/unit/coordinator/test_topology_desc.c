/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology-description barrier (coordinator/streams/topology_desc.c) on its own:
 * a fake streams group, a fake store and a fake durable log. Every
 * operation is driven through its three steps (-2 write and commit, store
 * call, final write and commit); a crash drops what was not committed and
 * rebuilds the group from the committed records, as a restart replays them.
 * There is no coordinator here (the group, the store and the log are the
 * harness's own: the group's writer applies each record it appends, and
 * restart() is its replay), so these tests do not run in the shared context
 * of coord_test.h; the barrier inside real streams groups is checked there,
 * through test_streams.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"
#include "topology_desc.h"

#define GROUP "app"

/* ---- harness ---------------------------------------------------------------- */

typedef struct {
    kc_buf_t key, value;
    bool tombstone;
} logged_t;

typedef struct {
    /* the durable log (committed records, in order) */
    logged_t log[256];
    size_t nlog;
    /* the fake streams group (exists = not tombstoned) */
    bool exists;
    kc_topology_desc_state_t st;
    int32_t topology_epoch;
    int members;
    bool has_offsets;
    /* the fake store: what it holds for GROUP */
    bool store_has;
    int32_t store_epoch;
    int store_sets, store_dels;
    kc_topology_desc_t *m;
    int64_t now;
} h_t;

/* The fake group's writer: the record is appended, then applied to the
 * group, as the streams group's applies it through its replay. */
static int fake_write(void *ctx, kc_str_t group_id, const kc_streams_group_metadata_value_t *v,
                      kc_result_t *res)
{
    h_t *h = ctx;
    kc_record_key_t key = {.group_id = group_id};
    int rc = kc_record_write(res, KC_RECORD_STREAMS_GROUP_METADATA, &key, 0, v);
    if (rc == 0)
        kc_topology_desc_replay(&h->st, v);
    return rc;
}

static kc_topology_desc_group_t view(h_t *h)
{
    kc_topology_desc_group_t g;
    memset(&g, 0, sizeof(g));
    g.state = &h->st;
    g.topology_epoch = h->topology_epoch;
    g.empty = h->members == 0;
    g.has_offsets = h->has_offsets;
    kc_streams_group_metadata_value_init(&g.metadata);
    g.metadata.epoch = 7;
    g.metadata.metadata_hash = 42;
    g.write = fake_write;
    g.write_ctx = h;
    return g;
}

/* The group as a lookup at completion time sees it (NULL when gone). */
static kc_topology_desc_group_t *lookup(h_t *h, kc_topology_desc_group_t *tmp)
{
    if (!h->exists)
        return NULL;
    *tmp = view(h);
    return tmp;
}

static h_t *h_new(int32_t jitter_percent)
{
    h_t *h = calloc(1, sizeof(*h));
    kc_topology_desc_config_t cfg;
    kc_topology_desc_config_defaults(&cfg);
    cfg.plugin_configured = true;
    cfg.backoff_jitter_percent = jitter_percent;
    h->m = kc_topology_desc_new(&cfg, 1);
    h->exists = true;
    kc_topology_desc_state_init(&h->st);
    h->topology_epoch = 3;
    h->members = 1;
    h->now = 1000000;
    return h;
}

static void h_free(h_t *h)
{
    for (size_t i = 0; i < h->nlog; i++) {
        kc_buf_deinit(&h->log[i].key);
        kc_buf_deinit(&h->log[i].value);
    }
    kc_topology_desc_free(h->m);
    free(h);
}

/* The commit: the result's records become durable. */
static void commit(h_t *h, kc_result_t *res)
{
    for (size_t i = 0; i < res->nrecords; i++) {
        assert_true(h->nlog < KC_ARRAY_LEN(h->log));
        logged_t *l = &h->log[h->nlog++];
        kc_buf_init(&l->key);
        kc_buf_init(&l->value);
        kc_buf_append(&l->key, res->records[i].key.data, res->records[i].key.len);
        l->tombstone = res->records[i].tombstone;
        if (!l->tombstone)
            kc_buf_append(&l->value, res->records[i].value.data, res->records[i].value.len);
    }
    kc_result_reset(res);
}

/* Tombstone of the group's metadata record (DeleteGroups, conversion). */
static void write_tombstone(kc_result_t *res)
{
    kc_record_key_t key = kc_record_group_key(kc_str(GROUP));
    assert_int_equal(kc_record_write(res, KC_RECORD_STREAMS_GROUP_METADATA, &key, 0, NULL), 0);
}

/* A restart: memory is lost, the group is rebuilt from the committed log.
 * The fake group starts as a streams group that has not stored anything. */
static void restart(h_t *h)
{
    kc_topology_desc_state_init(&h->st);
    h->exists = true;
    for (size_t i = 0; i < h->nlog; i++) {
        kc_reader_t r;
        kc_reader_init(&r, h->log[i].key.data, h->log[i].key.len);
        assert_int_equal(kc_read_int16(&r), 17);
        if (h->log[i].tombstone) {
            h->exists = false;
            kc_topology_desc_state_init(&h->st);
            continue;
        }
        kc_arena_t a;
        kc_arena_init(&a);
        kc_reader_init(&r, h->log[i].value.data, h->log[i].value.len);
        assert_int_equal(kc_read_int16(&r), 0);
        kc_streams_group_metadata_value_t v;
        kc_streams_group_metadata_value_init(&v);
        assert_int_equal(kc_streams_group_metadata_value_decode(&r, 0, &a, &v), 0);
        assert_int_equal(v.epoch, 7); /* the group's own fields are kept */
        assert_int_equal(v.metadata_hash, 42);
        h->exists = true;
        kc_topology_desc_replay(&h->st, &v);
        /* What the streams group writes back keeps the barrier's epochs. */
        kc_streams_group_metadata_value_t w;
        kc_streams_group_metadata_value_init(&w);
        kc_topology_desc_fill_metadata(&h->st, &w);
        assert_int_equal(w.stored_description_topology_epoch, v.stored_description_topology_epoch);
        assert_int_equal(w.failed_description_topology_epoch, v.failed_description_topology_epoch);
        kc_arena_deinit(&a);
    }
}

/* What a committed stored epoch promises about the store. */
static void assert_agree(h_t *h)
{
    if (!h->exists)
        return;
    if (h->st.stored_epoch >= 0) {
        assert_true(h->store_has);
        assert_int_equal(h->store_epoch, h->st.stored_epoch);
    } else if (h->st.stored_epoch == KC_TOPOLOGY_DESC_EPOCH_NONE) {
        assert_false(h->store_has);
    } else {
        assert_int_equal(h->st.stored_epoch, KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN);
    }
}

static void store_call(h_t *h, const kc_topology_desc_op_t *op)
{
    if (op->call_set) {
        h->store_has = true;
        h->store_epoch = op->topology_epoch;
        h->store_sets++;
    } else {
        h->store_has = false;
        h->store_dels++;
    }
}

static bool heartbeat_solicits(h_t *h)
{
    return kc_topology_desc_solicit(h->m, &h->st, 1, 5, KC_ERR_NONE, false, h->topology_epoch,
                                    h->now);
}

enum crash {
    CRASH_NONE,
    CRASH_BEFORE_BARRIER_COMMIT,
    CRASH_AFTER_BARRIER_COMMIT,
    CRASH_AFTER_STORE_CALL,
    CRASH_AFTER_FINAL_COMMIT,
};

static kc_topology_desc_op_t *begin(h_t *h, kc_topology_desc_op_kind_t kind, kc_result_t *res)
{
    kc_topology_desc_group_t tmp, *g = lookup(h, &tmp);
    if (kind == KC_TOPOLOGY_DESC_OP_PUSH) {
        static const uint8_t desc[] = {0, 0, 1, 1, 0};
        return kc_topology_desc_push_begin(kc_str(GROUP), g, h->topology_epoch, desc,
                                           sizeof(desc), res);
    }
    return kc_topology_desc_delete_begin(kind, kc_str(GROUP), g, res);
}

/*
 * Runs one operation through its steps with a successful store, crashing at
 * the given point (then restarting). Returns the outcome when it completed.
 */
static kc_topology_desc_outcome_t run_op(h_t *h, kc_topology_desc_op_kind_t kind, enum crash crash)
{
    kc_topology_desc_outcome_t out;
    memset(&out, 0, sizeof(out));
    out.error_code = -100; /* "did not complete" */
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_op_t *op = begin(h, kind, &res);
    assert_non_null(op);
    /* Step 1 wrote -2 (or found it): the store is not called before it commits. */
    assert_int_equal(h->st.stored_epoch, KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN);
    if (crash == CRASH_BEFORE_BARRIER_COMMIT) {
        kc_result_reset(&res);
        restart(h);
        goto out;
    }
    commit(h, &res);
    if (crash == CRASH_AFTER_BARRIER_COMMIT) {
        restart(h);
        goto out;
    }
    store_call(h, op);
    if (crash == CRASH_AFTER_STORE_CALL) {
        restart(h);
        goto out;
    }
    kc_topology_desc_group_t tmp, *g = lookup(h, &tmp);
    kc_topology_desc_complete(h->m, op, g, KC_TOPOLOGY_STORE_OK, NULL, h->now, &res, &out);
    if (out.proceed) {
        /* DeleteGroups tombstones; a conversion replaces the group by a classic one. */
        write_tombstone(&res);
        h->exists = false;
        if (kind == KC_TOPOLOGY_DESC_OP_CONVERSION)
            kc_topology_desc_finalize_after_delete(kc_str(GROUP), lookup(h, &tmp), &res);
    }
    commit(h, &res);
    if (crash == CRASH_AFTER_FINAL_COMMIT)
        restart(h);
out:
    assert_agree(h);
    kc_topology_desc_op_free(op);
    kc_result_deinit(&res);
    return out;
}

/* A stored description at epoch 3, committed. */
static void stored_at_3(h_t *h)
{
    kc_topology_desc_outcome_t out = run_op(h, KC_TOPOLOGY_DESC_OP_PUSH, CRASH_NONE);
    assert_int_equal(out.error_code, KC_ERR_NONE);
    assert_int_equal(h->st.stored_epoch, 3);
}

/* ---- push ----------------------------------------------------------------------- */

/* After GroupCoordinatorServiceTopologyDescriptionTest.testPushMarksUncertainBeforePluginSetThenAdvances
 * and testUpdateSuccessPersistsStoredEpoch: a push writes the -2 barrier
 * before the store's set and the pushed epoch once the set succeeded; the
 * epoch survives a restart, the group is no longer asked for the
 * description and Describe may serve it. */
static void test_push_writes_barrier_then_pushed_epoch(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    assert_true(heartbeat_solicits(h));
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_group_t g = view(h);
    static const uint8_t desc[] = {1, 2, 3};
    kc_topology_desc_op_t *op = kc_topology_desc_push_begin(kc_str(GROUP), &g, 3, desc, 3, &res);
    assert_non_null(op);
    assert_true(op->call_set);
    assert_int_equal(op->description.len, 3);
    assert_int_equal(res.nrecords, 1); /* the -2 barrier */
    assert_int_equal(h->st.stored_epoch, -2);
    assert_int_equal(h->st.ops_in_flight, 1);
    commit(h, &res);
    store_call(h, op);
    kc_topology_desc_outcome_t out;
    kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_OK, NULL, h->now, &res, &out);
    assert_int_equal(out.error_code, KC_ERR_NONE);
    assert_string_equal(out.message, "");
    assert_int_equal(res.nrecords, 1);
    assert_int_equal(h->st.stored_epoch, 3);
    assert_int_equal(h->st.ops_in_flight, 0);
    commit(h, &res);
    restart(h);
    assert_int_equal(h->st.stored_epoch, 3);
    assert_agree(h);
    /* Stored: no more solicitation, describe serves it. */
    h->now += 10 * 3600000LL;
    assert_false(heartbeat_solicits(h));
    assert_int_equal(kc_topology_desc_describe_status(h->m, &h->st, true, 3),
                     KC_TOPOLOGY_DESC_STATUS_AVAILABLE);
    kc_topology_desc_op_free(op);
    kc_result_deinit(&res);
    h_free(h);
}

/* After GroupMetadataManagerTest.testMarkUncertainIdempotentWhenAlreadyUncertain
 * and GroupCoordinatorServiceTopologyDescriptionTest.testUpdateSkipsPluginWhenBarrierWriteFindsGroupGone:
 * a second push while the group is at -2 writes no second barrier record
 * but still goes to the store; a group gone before the barrier gets no push
 * and no record. */
static void test_push_on_uncertain_writes_no_second_barrier(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_group_t g = view(h);
    kc_topology_desc_op_t *a = kc_topology_desc_push_begin(kc_str(GROUP), &g, 3, NULL, 0, &res);
    kc_topology_desc_op_t *b = kc_topology_desc_push_begin(kc_str(GROUP), &g, 3, NULL, 0, &res);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(res.nrecords, 1);
    assert_int_equal(h->st.ops_in_flight, 2);
    /* A group gone between validation and the barrier: no op, no record. */
    assert_null(kc_topology_desc_push_begin(kc_str(GROUP), NULL, 3, NULL, 0, &res));
    assert_int_equal(res.nrecords, 1);
    kc_topology_desc_op_free(a);
    kc_topology_desc_op_free(b);
    kc_result_deinit(&res);
    h_free(h);
}

static void test_push_crash_points_converge(void **state)
{
    (void)state;
    for (int c = CRASH_BEFORE_BARRIER_COMMIT; c <= CRASH_AFTER_FINAL_COMMIT; c++) {
        h_t *h = h_new(0);
        run_op(h, KC_TOPOLOGY_DESC_OP_PUSH, (enum crash)c);
        /* After the restart the back-off is gone; the group is asked again
         * unless the final write committed. */
        bool done = c == CRASH_AFTER_FINAL_COMMIT;
        assert_int_equal(h->st.stored_epoch, done ? 3 : c == CRASH_BEFORE_BARRIER_COMMIT ? -1 : -2);
        assert_int_equal(heartbeat_solicits(h), !done);
        if (!done) {
            kc_topology_desc_outcome_t out = run_op(h, KC_TOPOLOGY_DESC_OP_PUSH, CRASH_NONE);
            assert_int_equal(out.error_code, KC_ERR_NONE);
        }
        assert_int_equal(h->st.stored_epoch, 3);
        assert_true(h->store_has);
        assert_int_equal(h->store_epoch, 3);
        assert_false(heartbeat_solicits(h));
        h_free(h);
    }
}

static void test_push_crash_on_older_stored_epoch(void **state)
{
    (void)state;
    /* Epoch 3 stored, topology moves to 4, the push of 4 crashes after the
     * store call: describe must not serve 3 (nor 4) until 4 is confirmed. */
    h_t *h = h_new(0);
    stored_at_3(h);
    h->topology_epoch = 4;
    assert_int_equal(kc_topology_desc_describe_status(h->m, &h->st, true, 4),
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    run_op(h, KC_TOPOLOGY_DESC_OP_PUSH, CRASH_AFTER_STORE_CALL);
    assert_int_equal(h->st.stored_epoch, -2);
    assert_int_equal(kc_topology_desc_describe_status(h->m, &h->st, true, 4),
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    assert_true(heartbeat_solicits(h));
    run_op(h, KC_TOPOLOGY_DESC_OP_PUSH, CRASH_NONE);
    assert_int_equal(h->st.stored_epoch, 4);
    assert_int_equal(kc_topology_desc_describe_status(h->m, &h->st, true, 4),
                     KC_TOPOLOGY_DESC_STATUS_AVAILABLE);
    h_free(h);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testUpdateTransientFailureWritesNoRecord
 * and testUpdatePluginFutureWithNullCauseIsTreatedAsTransient: a transient
 * store failure answers STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED with the
 * store's message (a generic one when it gave none), writes no record (the
 * group stays at -2) and extends the back-off to its second window. */
static void test_push_transient_failure_backs_off(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    assert_true(heartbeat_solicits(h)); /* window 30 s */
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_group_t g = view(h);
    kc_topology_desc_op_t *op = kc_topology_desc_push_begin(kc_str(GROUP), &g, 3, NULL, 0, &res);
    commit(h, &res);
    kc_topology_desc_outcome_t out;
    kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_TRANSIENT, "backend busy", h->now,
                              &res, &out);
    assert_int_equal(out.error_code, KC_ERR_STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED);
    assert_string_equal(out.message, "backend busy");
    assert_int_equal(res.nrecords, 0); /* stays -2 */
    assert_int_equal(h->st.stored_epoch, -2);
    /* The failure extended the chain: second window, 60 s from now. */
    assert_int_equal(h->st.backoff_attempts, 1);
    h->now += 59999;
    assert_false(heartbeat_solicits(h));
    h->now += 1;
    assert_true(heartbeat_solicits(h));
    /* No message from the store: Kafka's generic text. */
    kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_TRANSIENT, NULL, h->now, &res, &out);
    assert_string_equal(out.message, "Plugin failure (no cause).");
    kc_topology_desc_op_free(op);
    kc_result_deinit(&res);
    h_free(h);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testUpdatePermanentFailurePersistsFailedEpoch
 * and testHeartbeatSkipsFlagWhenFailedAtCurrentEpoch: a permanent store
 * failure answers STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED and makes the
 * failed epoch durable; no heartbeat is asked again at that epoch, one is at
 * the next; a failure of an older epoch never moves the failed epoch back. */
static void test_push_permanent_failure_stops_soliciting_until_epoch_changes(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    assert_true(heartbeat_solicits(h));
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_group_t g = view(h);
    kc_topology_desc_op_t *op = kc_topology_desc_push_begin(kc_str(GROUP), &g, 3, NULL, 0, &res);
    commit(h, &res);
    kc_topology_desc_outcome_t out;
    kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_PERMANENT, "too large", h->now,
                              &res, &out);
    assert_int_equal(out.error_code, KC_ERR_STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED);
    assert_string_equal(out.message, "too large");
    assert_int_equal(h->st.failed_epoch, 3);
    assert_int_equal(h->st.stored_epoch, -2);
    commit(h, &res);
    restart(h); /* the failed epoch is durable */
    assert_int_equal(h->st.failed_epoch, 3);
    for (int i = 0; i < 5; i++) {
        h->now += 2 * 3600000LL;
        assert_false(heartbeat_solicits(h));
    }
    h->topology_epoch = 4;
    assert_true(heartbeat_solicits(h));
    /* An older permanent failure never moves the failed epoch back. */
    kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_PERMANENT, NULL, h->now, &res, &out);
    assert_string_equal(out.message, "Topology description plugin failed.");
    assert_int_equal(h->st.failed_epoch, 3);
    op->topology_epoch = 2;
    kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_PERMANENT, NULL, h->now, &res, &out);
    assert_int_equal(h->st.failed_epoch, 3);
    kc_topology_desc_op_free(op);
    kc_result_deinit(&res);
    h_free(h);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testUpdateGroupDisappearsBetweenPluginSuccessAndWriteDropsBackoffEntry:
 * a push whose store call succeeds after its group was deleted answers
 * GROUP_ID_NOT_FOUND and writes nothing. */
static void test_push_completing_on_deleted_group(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_group_t g = view(h);
    kc_topology_desc_op_t *op = kc_topology_desc_push_begin(kc_str(GROUP), &g, 3, NULL, 0, &res);
    kc_result_reset(&res);
    kc_topology_desc_outcome_t out;
    kc_topology_desc_complete(h->m, op, NULL, KC_TOPOLOGY_STORE_OK, NULL, h->now, &res, &out);
    assert_int_equal(out.error_code, KC_ERR_GROUP_ID_NOT_FOUND);
    assert_string_equal(out.message, "Group app not found.");
    assert_int_equal(res.nrecords, 0);
    kc_topology_desc_op_free(op);
    kc_result_deinit(&res);
    h_free(h);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testUpdateReturnsUnsupportedVersionWhenNoPlugin,
 * testUpdateRejectsEmptyMemberId, testUpdateRejectsEmptyGroupId and
 * GroupMetadataManagerTest.testValidateStreamsGroupTopologyDescriptionUpdateThrowsWhenGroupAbsent,
 * testValidateStreamsGroupTopologyDescriptionUpdateThrowsWhenMemberAbsent and
 * testValidateStreamsGroupTopologyDescriptionUpdateRejectsStaleEpoch: the
 * service's checks first (no store: UNSUPPORTED_VERSION; an empty member or
 * group id: INVALID_REQUEST; not loaded: COORDINATOR_LOAD_IN_PROGRESS), then
 * the group's (absent or not a streams group: GROUP_ID_NOT_FOUND; not a
 * member: UNKNOWN_MEMBER_ID; another topology epoch: INVALID_REQUEST), each
 * with its message. */
static void test_push_validate(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    kc_topology_desc_group_t g = view(h);
    char msg[256];
    kc_str_t gid = kc_str(GROUP), mid = kc_str("m1");
    /* GroupCoordinatorService's checks come first, in its order. */
    assert_int_equal(kc_topology_desc_push_validate(NULL, true, 1, &g, true, gid, mid, 3, msg,
                                                    sizeof(msg)),
                     KC_ERR_UNSUPPORTED_VERSION);
    assert_string_equal(msg,
                        "The broker has no streams group topology description plugin configured.");
    assert_int_equal(kc_topology_desc_push_validate(h->m, false, 1, &g, true, gid, kc_str(""), 3,
                                                    msg, sizeof(msg)),
                     KC_ERR_INVALID_REQUEST);
    assert_string_equal(msg, "MemberId can't be empty.");
    assert_int_equal(kc_topology_desc_push_validate(h->m, false, 1, &g, true, KC_STR_NULL, mid, 3,
                                                    msg, sizeof(msg)),
                     KC_ERR_INVALID_REQUEST);
    assert_string_equal(msg, "GroupId can't be empty.");
    assert_int_equal(kc_topology_desc_push_validate(h->m, false, 1, &g, true, gid, mid, 3, msg,
                                                    sizeof(msg)),
                     KC_ERR_COORDINATOR_LOAD_IN_PROGRESS);
    assert_string_equal(msg, "");
    assert_int_equal(kc_topology_desc_push_validate(h->m, true, 0, NULL, false, gid, mid, 3, msg, sizeof(msg)),
                     KC_ERR_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Group app not found.");
    assert_int_equal(kc_topology_desc_push_validate(h->m, true, -1, NULL, false, gid, mid, 3, msg, sizeof(msg)),
                     KC_ERR_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Group app is not a streams group.");
    assert_int_equal(kc_topology_desc_push_validate(h->m, true, 1, &g, false, gid, mid, 3, msg, sizeof(msg)),
                     KC_ERR_UNKNOWN_MEMBER_ID);
    assert_string_equal(msg, "Member m1 is not a member of group app.");
    assert_int_equal(kc_topology_desc_push_validate(h->m, true, 1, &g, true, gid, mid, 2, msg, sizeof(msg)),
                     KC_ERR_INVALID_REQUEST);
    assert_string_equal(msg, "Topology epoch 2 does not match the group's current topology epoch 3.");
    assert_int_equal(kc_topology_desc_push_validate(h->m, true, 1, &g, true, gid, mid, 3, msg, sizeof(msg)),
                     KC_ERR_NONE);
    h_free(h);
}

/* ---- the three deletes ---------------------------------------------------------- */

/* After GroupMetadataManagerTest.testMarkUncertainSkipsNoneWhenMarkWhenNoneFalse
 * and testMarkUncertainSkipsRevivedGroupForDeleteCallers: a delete of a group
 * with nothing stored, or of one a member came back to since the caller
 * looked, gets no store call and writes no record. */
static void test_delete_begin_skips_none_and_revived_groups(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    kc_result_t res;
    kc_result_init(&res);
    h->members = 0;
    kc_topology_desc_group_t g = view(h);
    /* Nothing stored: no delete owed, no record. */
    assert_false(kc_topology_desc_delete_needed(h->m, &g));
    assert_null(kc_topology_desc_delete_begin(KC_TOPOLOGY_DESC_OP_DELETE_GROUP, kc_str(GROUP), &g,
                                              &res));
    assert_int_equal(res.nrecords, 0);
    h->members = 1;
    stored_at_3(h);
    /* A member came back since the caller looked: the delete drops out. */
    g = view(h);
    assert_false(kc_topology_desc_delete_needed(h->m, &g));
    assert_null(kc_topology_desc_delete_begin(KC_TOPOLOGY_DESC_OP_CLEANUP, kc_str(GROUP), &g,
                                              &res));
    assert_int_equal(res.nrecords, 0);
    assert_int_equal(h->st.stored_epoch, 3);
    kc_result_deinit(&res);
    h_free(h);
}

/* After GroupCoordinatorShardTest.testListStreamsGroupsNeedingTopologyCleanupFiltersByAllPredicates
 * and testListStreamsGroupsNeedingTopologyCleanupIncludesUncertainEpoch: a
 * group is due a cleanup delete only with no member, no offsets left and a
 * stored epoch other than -1 (-2 included); it may expire only at -1. */
static void test_cleanup_eligibility(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    stored_at_3(h);
    kc_topology_desc_group_t g = view(h);
    assert_false(kc_topology_desc_cleanup_eligible(h->m, &g)); /* a member */
    h->members = 0;
    h->has_offsets = true;
    g = view(h);
    assert_false(kc_topology_desc_cleanup_eligible(h->m, &g)); /* offsets not expired */
    assert_false(kc_topology_desc_may_expire(h->m, &h->st));
    h->has_offsets = false;
    g = view(h);
    assert_true(kc_topology_desc_cleanup_eligible(h->m, &g));
    h->st.stored_epoch = -2;
    assert_true(kc_topology_desc_cleanup_eligible(h->m, &g)); /* -2 counts as present */
    assert_false(kc_topology_desc_may_expire(h->m, &h->st));
    h->st.stored_epoch = -1;
    assert_false(kc_topology_desc_cleanup_eligible(h->m, &g));
    assert_true(kc_topology_desc_may_expire(h->m, &h->st));
    h_free(h);
}

static void run_delete_crash_points(kc_topology_desc_op_kind_t kind)
{
    for (int c = CRASH_BEFORE_BARRIER_COMMIT; c <= CRASH_AFTER_FINAL_COMMIT; c++) {
        h_t *h = h_new(0);
        stored_at_3(h);
        h->members = 0;
        kc_topology_desc_outcome_t out = run_op(h, kind, (enum crash)c);
        if (c == CRASH_AFTER_FINAL_COMMIT) {
            assert_int_equal(out.error_code, KC_ERR_NONE);
            assert_int_equal(out.proceed, kind != KC_TOPOLOGY_DESC_OP_CLEANUP);
        }
        /* Whatever survived the crash is still owed a delete (or done). */
        kc_topology_desc_group_t tmp, *g = lookup(h, &tmp);
        bool finished = kind == KC_TOPOLOGY_DESC_OP_CLEANUP ? h->st.stored_epoch == -1 : !h->exists;
        assert_int_equal(finished, c == CRASH_AFTER_FINAL_COMMIT);
        if (!finished) {
            assert_true(kc_topology_desc_delete_needed(h->m, g));
            if (kind == KC_TOPOLOGY_DESC_OP_CLEANUP)
                assert_true(kc_topology_desc_cleanup_eligible(h->m, g));
            /* -2 also re-solicits, should the group come back. */
            if (h->st.stored_epoch == -2)
                assert_true(heartbeat_solicits(h));
            out = run_op(h, kind, CRASH_NONE);
            assert_int_equal(out.error_code, KC_ERR_NONE);
        }
        /* Converged: the store holds nothing, nothing is owed. */
        assert_false(h->store_has);
        if (kind == KC_TOPOLOGY_DESC_OP_CLEANUP) {
            assert_int_equal(h->st.stored_epoch, -1);
            assert_true(kc_topology_desc_may_expire(h->m, &h->st));
        } else {
            assert_false(h->exists);
        }
        h_free(h);
    }
}

static void test_cleanup_crash_points_converge(void **state)
{
    (void)state;
    run_delete_crash_points(KC_TOPOLOGY_DESC_OP_CLEANUP);
}

static void test_delete_groups_crash_points_converge(void **state)
{
    (void)state;
    run_delete_crash_points(KC_TOPOLOGY_DESC_OP_DELETE_GROUP);
}

static void test_conversion_crash_points_converge(void **state)
{
    (void)state;
    run_delete_crash_points(KC_TOPOLOGY_DESC_OP_CONVERSION);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testCleanupCycleSkipsClearOnPluginFailure
 * and testDeleteGroupsPluginFailureReturnsGroupDeletionFailed: a failed store
 * delete, for the cleanup or for DeleteGroups, writes no record and leaves
 * the group at -2; DeleteGroups answers GROUP_DELETION_FAILED with a fixed
 * message rather than the store's, UNKNOWN_SERVER_ERROR below v3. */
static void test_delete_failure_keeps_uncertain(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    stored_at_3(h);
    h->members = 0;
    kc_topology_desc_op_kind_t kinds[] = {KC_TOPOLOGY_DESC_OP_CLEANUP,
                                          KC_TOPOLOGY_DESC_OP_DELETE_GROUP};
    for (size_t i = 0; i < KC_ARRAY_LEN(kinds); i++) {
        kc_result_t res;
        kc_result_init(&res);
        kc_topology_desc_group_t g = view(h);
        kc_topology_desc_op_t *op = kc_topology_desc_delete_begin(kinds[i], kc_str(GROUP), &g, &res);
        assert_non_null(op);
        commit(h, &res);
        kc_topology_desc_outcome_t out;
        kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_TRANSIENT, "down", h->now, &res,
                                  &out);
        assert_int_equal(res.nrecords, 0);
        assert_false(out.proceed);
        assert_int_equal(h->st.stored_epoch, -2);
        if (kinds[i] == KC_TOPOLOGY_DESC_OP_DELETE_GROUP) {
            assert_int_equal(out.error_code, KC_ERR_GROUP_DELETION_FAILED);
            assert_string_equal(out.message,
                                "Topology description plugin failed to delete the topology.");
        } else {
            assert_int_equal(out.error_code, KC_ERR_NONE);
        }
        kc_topology_desc_op_free(op);
        kc_result_deinit(&res);
    }
    assert_int_equal(kc_topology_desc_deletion_error(KC_ERR_GROUP_DELETION_FAILED, 3),
                     KC_ERR_GROUP_DELETION_FAILED);
    assert_int_equal(kc_topology_desc_deletion_error(KC_ERR_GROUP_DELETION_FAILED, 2),
                     KC_ERR_UNKNOWN_SERVER_ERROR);
    assert_int_equal(kc_topology_desc_deletion_error(KC_ERR_NON_EMPTY_GROUP, 1),
                     KC_ERR_NON_EMPTY_GROUP);
    h_free(h);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testClassicJoinFailsWhenPluginDeleteFailsAndDoesNotConvert
 * and testClassicJoinThrottlesPluginDeleteAfterFailure: a failed store delete
 * for a conversion answers the classic join REBALANCE_IN_PROGRESS and leaves
 * a streams group at -2; the next conversion delete is held back for 30 s,
 * which does not hold back asking a member for the description. */
static void test_conversion_failure_rejects_join_and_throttles(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    stored_at_3(h);
    h->members = 0;
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_group_t g = view(h);
    assert_true(kc_topology_desc_delete_needed(h->m, &g));
    assert_false(kc_topology_desc_conversion_throttled(&h->st, h->now));
    kc_topology_desc_op_t *op =
        kc_topology_desc_delete_begin(KC_TOPOLOGY_DESC_OP_CONVERSION, kc_str(GROUP), &g, &res);
    commit(h, &res);
    kc_topology_desc_outcome_t out;
    kc_topology_desc_complete(h->m, op, &g, KC_TOPOLOGY_STORE_PERMANENT, "no", h->now, &res, &out);
    assert_int_equal(out.error_code, KC_ERR_REBALANCE_IN_PROGRESS);
    assert_false(out.proceed);
    assert_int_equal(h->st.stored_epoch, -2); /* still a streams group at -2 */
    assert_true(kc_topology_desc_conversion_throttled(&h->st, h->now));
    assert_true(kc_topology_desc_conversion_throttled(&h->st, h->now + 29999));
    assert_false(kc_topology_desc_conversion_throttled(&h->st, h->now + 30000));
    /* The conversion window does not hold back solicitation at the real epoch. */
    h->members = 1;
    assert_true(heartbeat_solicits(h));
    kc_topology_desc_op_free(op);
    kc_result_deinit(&res);
    h_free(h);
}

/* ---- the delete-vs-push race ------------------------------------------------------ */

/*
 * A push and a cleanup delete both in flight on the same group (the push
 * validated while a member was there; the member left and the offsets
 * expired). Whatever order the store applied them and whatever order they
 * complete, the group ends at -2 and is asked to push again.
 */
static void race(bool set_first_in_store, bool push_completes_first)
{
    h_t *h = h_new(0);
    stored_at_3(h);
    h->topology_epoch = 4;
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_group_t g = view(h);
    kc_topology_desc_op_t *push = kc_topology_desc_push_begin(kc_str(GROUP), &g, 4, NULL, 0, &res);
    commit(h, &res);
    h->members = 0;
    g = view(h);
    kc_topology_desc_op_t *del =
        kc_topology_desc_delete_begin(KC_TOPOLOGY_DESC_OP_CLEANUP, kc_str(GROUP), &g, &res);
    assert_non_null(del);
    assert_int_equal(res.nrecords, 0); /* already -2 */
    assert_int_equal(h->st.ops_in_flight, 2);
    if (set_first_in_store) {
        store_call(h, push);
        store_call(h, del);
    } else {
        store_call(h, del);
        store_call(h, push);
    }
    kc_topology_desc_outcome_t out;
    kc_topology_desc_op_t *first = push_completes_first ? push : del;
    kc_topology_desc_op_t *second = push_completes_first ? del : push;
    kc_topology_desc_complete(h->m, first, &g, KC_TOPOLOGY_STORE_OK, NULL, h->now, &res, &out);
    commit(h, &res);
    kc_topology_desc_complete(h->m, second, &g, KC_TOPOLOGY_STORE_OK, NULL, h->now, &res, &out);
    commit(h, &res);
    assert_int_equal(h->st.stored_epoch, -2);
    assert_int_equal(h->st.ops_in_flight, 0);
    restart(h);
    assert_int_equal(h->st.stored_epoch, -2);
    assert_agree(h);
    assert_int_equal(kc_topology_desc_describe_status(h->m, &h->st, true, 4),
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    /* A member returns: it is asked to push, and the push settles it. */
    h->members = 1;
    assert_true(heartbeat_solicits(h));
    run_op(h, KC_TOPOLOGY_DESC_OP_PUSH, CRASH_NONE);
    assert_int_equal(h->st.stored_epoch, 4);
    assert_true(h->store_has);
    kc_topology_desc_op_free(push);
    kc_topology_desc_op_free(del);
    kc_result_deinit(&res);
    h_free(h);
}

static void test_race_push_completes_while_delete_in_flight(void **state)
{
    (void)state;
    race(true, true);
    race(false, true);
}

static void test_race_delete_completes_before_push(void **state)
{
    (void)state;
    race(true, false);
    race(false, false);
}

/* ---- back-off and rules ---------------------------------------------------------- */

/* After StreamsGroupTopologyDescriptionBackoffTest.testFirstArmUsesInitialDelay,
 * testArmIfNotActiveAdvancesAttemptsAfterExpiredWindowAtSameEpoch,
 * testConsecutiveArmsAdvanceAttemptsUpToCap and
 * testDifferentEpochResetsAttempts: each time a heartbeat is asked for the
 * description a window opens, 30 s doubling up to 1 h, in which the group is
 * not asked again at that epoch; a new topology epoch starts again at 30 s. */
static void test_backoff_doubles_to_one_hour(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    int64_t expected[] = {30000, 60000, 120000, 240000, 480000, 960000, 1920000, 3600000, 3600000};
    for (size_t i = 0; i < KC_ARRAY_LEN(expected); i++) {
        assert_true(heartbeat_solicits(h));
        assert_int_equal(h->st.backoff_until_ms - h->now, expected[i]);
        h->now += expected[i] - 1;
        assert_false(heartbeat_solicits(h));
        h->now += 1;
    }
    /* A new epoch starts the chain again. */
    h->topology_epoch = 9;
    assert_true(heartbeat_solicits(h));
    assert_int_equal(h->st.backoff_until_ms - h->now, 30000);
    h_free(h);
}

/* After StreamsGroupTopologyDescriptionBackoffTest.testProductionWiringUsesJitter:
 * with 20 % jitter the first delay falls within 24 s..36 s and spreads over
 * that range; a delay at the cap stays within 80 %..100 % of one hour. */
static void test_backoff_jitter_bounds(void **state)
{
    (void)state;
    h_t *h = h_new(20);
    int64_t lo = INT64_MAX, hi = 0;
    for (int i = 0; i < 2000; i++) {
        int64_t d = kc_topology_desc_backoff_delay(h->m, 0);
        lo = KC_MIN(lo, d);
        hi = KC_MAX(hi, d);
        assert_true(d >= 24000 && d < 36000);
        d = kc_topology_desc_backoff_delay(h->m, 30);
        assert_true(d >= 2880000 && d <= 3600000); /* capped at the maximum */
    }
    assert_true(lo < 25000 && hi > 35000); /* the jitter really spreads */
    h_free(h);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testHeartbeatSkipsFlagOnV0Request,
 * testHeartbeatSkipsFlagForDepartingMember,
 * testHeartbeatSkipsFlagWhenStaleTopologyStatusPresent,
 * testUncertainStoredEpochSolicitsOnHeartbeat,
 * testHeartbeatNeverSetsFlagWithoutPlugin and
 * testDescribeSetsNotStoredWhenNoPluginConfigured: a heartbeat is never asked
 * for the description at v0, when leaving, with an error, with a stale
 * topology or without a topology, and none of these opens a back-off window;
 * -2 counts as not stored; without a store no heartbeat is asked and
 * Describe answers NOT_STORED. */
static void test_solicit_rule(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    /* v0 clients, leaves, errors, stale topology, no topology: never. */
    assert_false(kc_topology_desc_solicit(h->m, &h->st, 0, 5, 0, false, 3, h->now));
    assert_false(kc_topology_desc_solicit(h->m, &h->st, 1, -1, 0, false, 3, h->now));
    assert_false(kc_topology_desc_solicit(h->m, &h->st, 1, 5, KC_ERR_FENCED_MEMBER_EPOCH, false,
                                          3, h->now));
    assert_false(kc_topology_desc_solicit(h->m, &h->st, 1, 5, 0, true, 3, h->now));
    assert_false(kc_topology_desc_solicit(h->m, &h->st, 1, 5, 0, false, -1, h->now));
    assert_false(h->st.backoff_armed); /* none of these armed the back-off */
    /* -2 reads as not stored. */
    h->st.stored_epoch = -2;
    assert_true(kc_topology_desc_solicit(h->m, &h->st, 1, 0, 0, false, 3, h->now));
    /* No store configured: never. */
    kc_topology_desc_config_t cfg;
    kc_topology_desc_config_defaults(&cfg);
    kc_topology_desc_t *off = kc_topology_desc_new(&cfg, 1);
    kc_topology_desc_state_t st;
    kc_topology_desc_state_init(&st);
    assert_false(kc_topology_desc_solicit(off, &st, 1, 5, 0, false, 3, h->now));
    assert_int_equal(kc_topology_desc_describe_status(off, &st, true, 3),
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    kc_topology_desc_free(off);
    h_free(h);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testDescribeAtUncertainEpochYieldsNotStored,
 * testDescribeFiltersNonEligibleGroupsToNotStored,
 * testDescribeAttachesAvailableWhenPluginReturnsTopology,
 * testDescribeMarksNotStoredWhenPluginReturnsNullDescription and
 * testDescribeMarksErrorWhenPluginFails: the store is asked only for a group
 * with a topology whose stored epoch is the topology epoch (-1, -2 and an
 * older epoch are NOT_STORED); a description found is AVAILABLE, none
 * NOT_STORED, a store failure ERROR. */
static void test_describe_rule(void **state)
{
    (void)state;
    h_t *h = h_new(0);
    int32_t stored[] = {-1, -2, 2, 3};
    int8_t want[] = {KC_TOPOLOGY_DESC_STATUS_NOT_STORED, KC_TOPOLOGY_DESC_STATUS_NOT_STORED,
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED, KC_TOPOLOGY_DESC_STATUS_AVAILABLE};
    for (size_t i = 0; i < KC_ARRAY_LEN(stored); i++) {
        h->st.stored_epoch = stored[i];
        assert_int_equal(kc_topology_desc_describe_status(h->m, &h->st, true, 3), want[i]);
    }
    assert_int_equal(kc_topology_desc_describe_status(h->m, &h->st, false, 3),
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    assert_int_equal(kc_topology_desc_get_status(KC_TOPOLOGY_STORE_OK),
                     KC_TOPOLOGY_DESC_STATUS_AVAILABLE);
    assert_int_equal(kc_topology_desc_get_status(KC_TOPOLOGY_STORE_NOT_FOUND),
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    assert_int_equal(kc_topology_desc_get_status(KC_TOPOLOGY_STORE_TRANSIENT),
                     KC_TOPOLOGY_DESC_STATUS_ERROR);
    assert_int_equal(kc_topology_desc_get_status(KC_TOPOLOGY_STORE_PERMANENT),
                     KC_TOPOLOGY_DESC_STATUS_ERROR);
    h_free(h);
}

/* ---- description bytes ------------------------------------------------------------- */

static void test_description_round_trip(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_streams_group_topology_description_update_request_t rq;
    kc_streams_group_topology_description_update_request_init(&rq);
    kc_streams_group_topology_description_update_request_fill_sample(&rq, 0, &a, 11);
    const kc_streams_group_topology_description_update_request_topology_description_t *d =
        &rq.topology_description;
    assert_true(d->subtopologies.count > 0);
    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_topology_desc_encode(d, &b), 0);
    assert_int_equal(b.data[0], 0); /* format version 0 */
    assert_int_equal(b.data[1], 0);
    kc_streams_group_describe_response_topology_description_t out;
    memset(&out, 0, sizeof(out));
    assert_int_equal(kc_topology_desc_decode(b.data, b.len, &a, &out), 0);
    assert_int_equal(out.subtopologies.count, d->subtopologies.count);
    for (int32_t i = 0; i < d->subtopologies.count; i++) {
        assert_true(kc_str_eq(out.subtopologies.items[i].subtopology_id,
                              d->subtopologies.items[i].subtopology_id));
        assert_int_equal(out.subtopologies.items[i].nodes.count,
                         d->subtopologies.items[i].nodes.count);
        for (int32_t j = 0; j < d->subtopologies.items[i].nodes.count; j++) {
            assert_true(kc_str_eq(out.subtopologies.items[i].nodes.items[j].name,
                                  d->subtopologies.items[i].nodes.items[j].name));
            assert_true(kc_str_eq(out.subtopologies.items[i].nodes.items[j].sink_topic,
                                  d->subtopologies.items[i].nodes.items[j].sink_topic));
            assert_int_equal(out.subtopologies.items[i].nodes.items[j].node_type,
                             d->subtopologies.items[i].nodes.items[j].node_type);
            assert_int_equal(out.subtopologies.items[i].nodes.items[j].successors.count,
                             d->subtopologies.items[i].nodes.items[j].successors.count);
        }
    }
    assert_int_equal(out.global_stores.count, d->global_stores.count);
    for (int32_t i = 0; i < d->global_stores.count; i++)
        assert_true(kc_str_eq(out.global_stores.items[i].processor.name,
                              d->global_stores.items[i].processor.name));
    /* Garbage, a truncation and an unknown format version do not decode. */
    assert_int_equal(kc_topology_desc_decode(b.data, b.len - 1, &a, &out), KC_EINVAL);
    b.data[1] = 9;
    assert_int_equal(kc_topology_desc_decode(b.data, b.len, &a, &out), KC_EINVAL);
    assert_int_equal(kc_topology_desc_decode(NULL, 0, &a, &out), KC_EINVAL);
    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_writes_barrier_then_pushed_epoch),
        cmocka_unit_test(test_push_on_uncertain_writes_no_second_barrier),
        cmocka_unit_test(test_push_crash_points_converge),
        cmocka_unit_test(test_push_crash_on_older_stored_epoch),
        cmocka_unit_test(test_push_transient_failure_backs_off),
        cmocka_unit_test(test_push_permanent_failure_stops_soliciting_until_epoch_changes),
        cmocka_unit_test(test_push_completing_on_deleted_group),
        cmocka_unit_test(test_push_validate),
        cmocka_unit_test(test_delete_begin_skips_none_and_revived_groups),
        cmocka_unit_test(test_cleanup_eligibility),
        cmocka_unit_test(test_cleanup_crash_points_converge),
        cmocka_unit_test(test_delete_groups_crash_points_converge),
        cmocka_unit_test(test_conversion_crash_points_converge),
        cmocka_unit_test(test_delete_failure_keeps_uncertain),
        cmocka_unit_test(test_conversion_failure_rejects_join_and_throttles),
        cmocka_unit_test(test_race_push_completes_while_delete_in_flight),
        cmocka_unit_test(test_race_delete_completes_before_push),
        cmocka_unit_test(test_backoff_doubles_to_one_hour),
        cmocka_unit_test(test_backoff_jitter_bounds),
        cmocka_unit_test(test_solicit_rule),
        cmocka_unit_test(test_describe_rule),
        cmocka_unit_test(test_description_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
