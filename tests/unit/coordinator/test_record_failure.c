/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Records and responses that cannot be encoded: the one record writer and
 * the response helper drop what they built and mark the result failed, so
 * that nothing half-written is committed or sent. The failure reachable from
 * a client: a classic member id is the client id (up to 32767 bytes, an
 * int16 string) plus "-" and a UUID, too long for the GroupMetadata record
 * and the JoinGroup response. Also the replay dispatch by record type.
 * These tests do not run in the shared context of coord_test.h and its
 * replay check: their results are failed on purpose, and the memory state
 * they leave is the one the server throws away (it reloads the coordinator
 * from what is durable), so there is no live state to compare.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

#define GROUP "big"
/* The longest int16-prefixed string. */
#define STR_MAX 32767

/* A client id of the longest length a request header can carry. */
static char *long_client_id(void)
{
    char *s = malloc(STR_MAX + 1);
    memset(s, 'c', STR_MAX);
    s[STR_MAX] = '\0';
    return s;
}

static kc_coord_t *coord_new(void)
{
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_initial_rebalance_delay_ms = 0;
    kc_coord_t *c = kc_coord_new(&cfg, NULL);
    kc_coord_seed(c, 7);
    kc_coord_loaded(c, 0);
    return c;
}

/* JoinGroup of a new dynamic member at version (v3: joins at once; v4+:
 * MEMBER_ID_REQUIRED with the member id to use). */
static void join(kc_coord_t *c, int16_t version, int32_t corr, const char *client_id,
                 kc_result_t *res)
{
    static const uint8_t sub[] = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0xff, 0xff, 0xff, 0xff};
    kc_join_group_request_protocol_t p = {0};
    p.name = kc_str("range");
    p.metadata = (kc_bytes_t){sub, sizeof(sub)};
    kc_join_group_request_t req;
    kc_join_group_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.session_timeout_ms = 10000;
    req.rebalance_timeout_ms = 10000;
    req.member_id = kc_str("");
    req.protocol_type = kc_str("consumer");
    req.protocols.items = &p;
    req.protocols.count = 1;
    kc_request_ctx_t ctx = {0};
    ctx.conn_id = (uint64_t)corr;
    ctx.correlation_id = corr;
    ctx.api_key = KC_API_JOIN_GROUP;
    ctx.api_version = version;
    ctx.client_id = kc_str(client_id);
    ctx.client_host = "/127.0.0.1";
    kc_coord_join_group(c, &ctx, &req, res);
}

static const kc_response_t *response_of(const kc_result_t *res, int32_t corr)
{
    for (size_t i = 0; i < res->nresponses; i++)
        if (res->responses[i].correlation_id == corr)
            return &res->responses[i];
    fail_msg("no response to correlation id %d", corr);
    return NULL;
}

/* The error code of a JoinGroup or SyncGroup answer (both start with
 * throttle time and error code from v1). */
static int16_t error_of(const kc_buf_t *b)
{
    assert_true(b->len >= 6);
    return (int16_t)((b->data[4] << 8) | b->data[5]);
}

/* Two members join at v3, the second with the longest client id: its member
 * id (client id, "-", UUID) no longer fits an int16 string. The join
 * answers that list it (the leader's, its own) do not encode: dropped, with
 * the result failed (in the server the batch is then dropped and the
 * coordinator reloaded). Left going, the leader's SyncGroup writes the
 * GroupMetadata record with that member: the record is not written, the
 * result is failed and the SyncGroup answer is only its failed-write error
 * body. */
static void test_member_id_too_long_for_the_group_record(void **state)
{
    (void)state;
    char *client = long_client_id();
    kc_coord_t *c = coord_new();
    kc_result_t res;
    kc_result_init(&res);
    join(c, 3, 1, "a", &res);
    join(c, 3, 2, client, &res);
    /* The new group's empty record encodes; the joins wait for the timer. */
    assert_false(res.failed);
    assert_int_equal(res.nrecords, 1);
    assert_int_equal(res.nresponses, 0);
    kc_result_reset(&res);

    kc_coord_tick(c, 0, &res);
    assert_true(res.failed);
    assert_int_equal(res.nrecords, 0);
    assert_int_equal(res.nresponses, 2);
    for (int32_t corr = 1; corr <= 2; corr++) {
        assert_int_equal(response_of(&res, corr)->body.len, 0);
        assert_int_equal(response_of(&res, corr)->error_body.len, 0);
    }
    /* kc_result_reset clears the mark with the content. */
    kc_result_reset(&res);
    assert_false(res.failed);

    kc_classic_member_info_t m[2];
    assert_int_equal(kc_classic_group_members(kc_classic_group_find(c, kc_str(GROUP)), m, 2), 2);
    const char *leader = strlen(m[0].member_id) < strlen(m[1].member_id) ? m[0].member_id
                                                                          : m[1].member_id;
    assert_int_equal(strlen(m[0].member_id) + strlen(m[1].member_id), 38 + STR_MAX + 37);
    kc_sync_group_request_t sync;
    kc_sync_group_request_init(&sync);
    sync.group_id = kc_str(GROUP);
    sync.generation_id = 1;
    sync.member_id = kc_str(leader);
    sync.assignments.count = 0;
    kc_request_ctx_t ctx = {0};
    ctx.conn_id = 1;
    ctx.correlation_id = 3;
    ctx.api_key = KC_API_SYNC_GROUP;
    ctx.api_version = 3;
    ctx.client_id = kc_str("a");
    ctx.client_host = "/127.0.0.1";
    kc_coord_sync_group(c, &ctx, &sync, &res);
    assert_true(res.failed);
    assert_int_equal(res.nrecords, 0);
    const kc_response_t *r = response_of(&res, 3);
    assert_int_equal(error_of(&r->body), KC_ERR_NONE);
    assert_int_equal(error_of(&r->error_body), KC_COORD_ERR_WRITE_FAILED);
    kc_result_deinit(&res);
    kc_coord_free(c);
    free(client);
}

/* From v4 the first join only hands out the member id: no record, and the
 * answer itself does not encode. It is dropped with no error body (the
 * server closes the connection). */
static void test_member_id_too_long_for_the_join_response(void **state)
{
    (void)state;
    char *client = long_client_id();
    kc_coord_t *c = coord_new();
    kc_result_t res;
    kc_result_init(&res);
    join(c, 4, 1, client, &res);
    assert_true(res.failed);
    assert_int_equal(res.nresponses, 1);
    assert_int_equal(res.responses[0].body.len, 0);
    assert_int_equal(res.responses[0].error_body.len, 0);
    /* An ordinary client id still joins. */
    kc_result_reset(&res);
    join(c, 4, 2, "ok", &res);
    assert_false(res.failed);
    assert_int_equal(res.nresponses, 1);
    assert_int_equal(error_of(&res.responses[0].body), KC_ERR_MEMBER_ID_REQUIRED);
    kc_result_deinit(&res);
    kc_coord_free(c);
    free(client);
}

/* The writer itself: a 40,000-byte group id does not fit GroupMetadataKey;
 * a type without a codec (0 is only read back) or unknown fails too; the
 * records already in the result stay, later ones are still appended, and
 * kc_result_wrote_since counts the failure. */
static void test_record_write_failures(void **state)
{
    (void)state;
    kc_result_t res;
    kc_result_init(&res);
    kc_record_key_t ok = kc_record_group_key(kc_str("g"));
    assert_int_equal(kc_record_write(&res, KC_RECORD_GROUP_METADATA, &ok, 0, NULL), 0);
    assert_false(kc_result_wrote_since(&res, 1));

    char *big = malloc(40001);
    memset(big, 'g', 40000);
    big[40000] = '\0';
    kc_record_key_t too_long = kc_record_group_key(kc_str(big));
    assert_int_equal(kc_record_write(&res, KC_RECORD_GROUP_METADATA, &too_long, 0, NULL),
                     KC_EINVAL);
    assert_true(res.failed);
    assert_int_equal(res.nrecords, 1);
    assert_true(kc_result_wrote_since(&res, 1));

    kc_group_metadata_value_t v;
    kc_group_metadata_value_init(&v);
    v.protocol_type = kc_str("");
    v.members.count = 0;
    assert_int_equal(kc_record_write(&res, KC_RECORD_GROUP_METADATA, &ok, 9, &v), KC_EVERSION);
    assert_int_equal(kc_record_write(&res, KC_RECORD_LEGACY_OFFSET_COMMIT, &ok, 0, NULL),
                     KC_EINVAL);
    assert_int_equal(kc_record_write(&res, 99, &ok, 0, NULL), KC_EINVAL);
    assert_int_equal(kc_record_write(&res, -1, &ok, 0, NULL), KC_EINVAL);
    assert_int_equal(res.nrecords, 1);

    assert_int_equal(kc_record_write(&res, KC_RECORD_GROUP_METADATA, &ok, 3, &v), 0);
    assert_int_equal(res.nrecords, 2);
    /* type 2, key "g"; version 3, then the value */
    static const uint8_t key[] = {0, 2, 0, 1, 'g'};
    assert_int_equal(res.records[1].key.len, sizeof(key));
    assert_memory_equal(res.records[1].key.data, key, sizeof(key));
    assert_int_equal(res.records[1].value.data[1], 3);
    kc_result_deinit(&res);
    free(big);
}

/* The context of a request of api_key at version from client "a". */
static kc_request_ctx_t heartbeat_ctx(int16_t api_key, int16_t version)
{
    kc_request_ctx_t ctx = {0};
    ctx.conn_id = 1;
    ctx.correlation_id = 1;
    ctx.api_key = api_key;
    ctx.api_version = version;
    ctx.client_id = kc_str("a");
    ctx.client_host = "/127.0.0.1";
    return ctx;
}

/* An id of 40,000 bytes: a compact string holds it, the records' int16
 * key strings do not. Free it. */
static char *id_too_long(void)
{
    char *big = malloc(40001);
    memset(big, 'm', 40000);
    big[40000] = '\0';
    return big;
}

/* A streams member joining group_id as member_id, with a one-subtopology
 * topology reading "in" (no topic view: MISSING_SOURCE_TOPICS). */
static void streams_join(kc_coord_t *c, const char *group_id, const char *member_id,
                         kc_result_t *res)
{
    kc_str_t source = kc_str("in");
    kc_streams_group_heartbeat_request_subtopology_t sub;
    memset(&sub, 0, sizeof(sub));
    sub.subtopology_id = kc_str("0");
    sub.source_topics.items = &source;
    sub.source_topics.count = 1;
    kc_streams_group_heartbeat_request_topology_t topo;
    memset(&topo, 0, sizeof(topo));
    topo.epoch = 1;
    topo.subtopologies.items = &sub;
    topo.subtopologies.count = 1;
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str(group_id);
    req.member_id = kc_str(member_id);
    req.member_epoch = 0;
    req.process_id = kc_str("p");
    req.rebalance_timeout_ms = 30000;
    req.topology = &topo;
    req.active_tasks.count = 0;
    req.standby_tasks.count = 0;
    req.warmup_tasks.count = 0;
    kc_request_ctx_t ctx = heartbeat_ctx(KC_API_STREAMS_GROUP_HEARTBEAT, 0);
    kc_coord_streams_group_heartbeat(c, &ctx, &req, res, NULL);
}

/* The error code of a StreamsGroupHeartbeat answer (after throttle time). */
static int16_t streams_error_of(const kc_buf_t *b)
{
    kc_streams_group_heartbeat_response_t r;
    kc_streams_group_heartbeat_response_init(&r);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t rd;
    kc_reader_init(&rd, b->data, b->len);
    assert_int_equal(kc_streams_group_heartbeat_response_decode(&rd, 0, &a, &r), 0);
    kc_arena_deinit(&a);
    return r.error_code;
}

/* A streams heartbeat carries ids in compact strings, longer than the
 * int16 strings of the records' keys. A 40,000-byte member id: its record
 * 19 is not written, so no member is made (the records' apply alone makes
 * one), and the heartbeat answers the failed-write error; a group id as
 * long: no topology record, the same answer. The results are failed. */
static void test_streams_ids_too_long_for_the_records(void **state)
{
    (void)state;
    char *big = id_too_long();
    kc_coord_t *c = coord_new();
    kc_result_t res;
    kc_result_init(&res);
    streams_join(c, "app", big, &res);
    assert_true(res.failed);
    assert_int_equal(res.nresponses, 1);
    assert_int_equal(streams_error_of(&res.responses[0].body), KC_COORD_ERR_WRITE_FAILED);
    kc_streams_group_t *g = kc_coord_streams_group_find(c, kc_str("app"));
    assert_non_null(g);
    assert_true(kc_streams_group_is_empty(g));
    kc_result_reset(&res);
    streams_join(c, big, "m", &res);
    assert_true(res.failed);
    assert_int_equal(res.nresponses, 1);
    assert_int_equal(streams_error_of(&res.responses[0].body), KC_COORD_ERR_WRITE_FAILED);
    kc_result_deinit(&res);
    kc_coord_free(c);
    free(big);
}

/* A consumer member joining GROUP as member_id (v1: the client's id),
 * subscribed to "t". */
static void consumer_join(kc_coord_t *c, const char *member_id, kc_result_t *res)
{
    kc_str_t topic = kc_str("t");
    kc_consumer_group_heartbeat_request_t req;
    kc_consumer_group_heartbeat_request_init(&req);
    req.group_id = kc_str(GROUP);
    req.member_id = kc_str(member_id);
    req.member_epoch = 0;
    req.rebalance_timeout_ms = 30000;
    req.subscribed_topic_names.items = &topic;
    req.subscribed_topic_names.count = 1;
    req.topic_partitions.count = 0;
    kc_request_ctx_t ctx = heartbeat_ctx(KC_API_CONSUMER_GROUP_HEARTBEAT, 1);
    kc_coord_consumer_group_heartbeat(c, &ctx, &req, res);
}

/* A ConsumerGroupHeartbeat carries its member id in a compact string,
 * longer than the int16 strings of the records' keys. A 40,000-byte member
 * id: its record 5 is not written, so no member is made (the record's apply
 * alone makes one), and the heartbeat answers the failed-write error; the
 * result is failed. */
static void test_consumer_member_id_too_long_for_the_records(void **state)
{
    (void)state;
    char *big = id_too_long();
    kc_coord_t *c = coord_new();
    kc_result_t res;
    kc_result_init(&res);
    consumer_join(c, big, &res);
    assert_true(res.failed);
    assert_int_equal(res.nresponses, 1);
    kc_consumer_group_heartbeat_response_t r;
    kc_consumer_group_heartbeat_response_init(&r);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_consumer_group_heartbeat_response_decode(&rd, 1, &a, &r), 0);
    assert_int_equal(r.error_code, KC_COORD_ERR_WRITE_FAILED);
    kc_arena_deinit(&a);
    kc_consumer_group_t *g = kc_consumer_group_find(c, kc_str(GROUP));
    assert_non_null(g);
    assert_true(kc_consumer_group_is_empty(g));
    kc_result_deinit(&res);
    kc_coord_free(c);
    free(big);
}

/* Replay dispatches by the generated record types: a type without a replay
 * (4, or unknown) is ignored, a known one goes to its group type. */
static void test_replay_dispatch(void **state)
{
    (void)state;
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    kc_coord_t *c = kc_coord_new(&cfg, NULL);
    static const uint8_t type4[] = {0, 4, 0, 1, 'g'};
    static const uint8_t type99[] = {0, 99};
    static const uint8_t neg[] = {0xff, 0xfe, 1};
    static const uint8_t v0[] = {0, 0};
    assert_int_equal(kc_coord_replay(c, type4, sizeof(type4), v0, sizeof(v0)), 0);
    assert_int_equal(kc_coord_replay(c, type99, sizeof(type99), NULL, 0), 0);
    assert_int_equal(kc_coord_replay(c, neg, sizeof(neg), NULL, 0), 0);
    assert_int_equal(kc_coord_replay(c, type4, 1, NULL, 0), KC_EINVAL);
    /* A GroupMetadata key that does not parse reaches the classic replay. */
    static const uint8_t bad2[] = {0, 2, 0, 9, 'g'};
    assert_int_equal(kc_coord_replay(c, bad2, sizeof(bad2), NULL, 0), KC_EINVAL);
    /* A tombstone of a group that does not exist is fine. */
    static const uint8_t ok2[] = {0, 2, 0, 1, 'g'};
    assert_int_equal(kc_coord_replay(c, ok2, sizeof(ok2), NULL, 0), 0);
    kc_coord_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_member_id_too_long_for_the_group_record),
        cmocka_unit_test(test_member_id_too_long_for_the_join_response),
        cmocka_unit_test(test_record_write_failures),
        cmocka_unit_test(test_streams_ids_too_long_for_the_records),
        cmocka_unit_test(test_consumer_member_id_too_long_for_the_records),
        cmocka_unit_test(test_replay_dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
