/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The generated error responses (kc_msg_error_response_encode) against what
 * Kafka 4.4's getErrorResponse of each request builds: how many items are
 * echoed from the request and with which keys, the code in each of them, the
 * message where the version has the field, the fixed values (no node, offsets
 * -1) and the requests Kafka leaves unanswered. Each response is decoded with
 * the generated decoder and must use every byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kc_msgs.h"

typedef struct {
    kc_arena_t arena;
    kc_buf_t req, out;
} fx_t;

static int setup(void **state)
{
    fx_t *f = calloc(1, sizeof(*f));
    kc_arena_init(&f->arena);
    kc_buf_init(&f->req);
    kc_buf_init(&f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    kc_buf_deinit(&f->req);
    kc_buf_deinit(&f->out);
    kc_arena_deinit(&f->arena);
    free(f);
    return 0;
}

/* Encodes the request rq of api at v, builds its error response with code
 * and decodes that into resp (a response struct of the same API). */
static int error_response(fx_t *f, int16_t api, int16_t v, const void *rq, int16_t code,
                          void *resp)
{
    const kc_msg_desc_t *qd = kc_msg_desc_for_api(api, false);
    const kc_msg_desc_t *rd = kc_msg_desc_for_api(api, true);
    assert_non_null(qd);
    assert_non_null(rd);
    kc_buf_reset(&f->req);
    kc_buf_reset(&f->out);
    kc_reader_t r;
    if (rq) {
        assert_int_equal(qd->encode(&f->req, v, rq), 0);
        kc_reader_init(&r, f->req.data, f->req.len);
    }
    int rc = kc_msg_error_response_encode(api, v, rq ? &r : NULL, &f->arena, code, &f->out);
    if (rc != 0)
        return rc;
    kc_reader_t rr;
    kc_reader_init(&rr, f->out.data, f->out.len);
    assert_int_equal(rd->decode(&rr, v, &f->arena, resp), 0);
    assert_int_equal(kc_reader_left(&rr), 0);
    return 0;
}

static void assert_str(kc_str_t s, const char *want)
{
    if (!want) {
        assert_true(kc_str_is_null(s));
        return;
    }
    assert_false(kc_str_is_null(s));
    assert_int_equal(s.len, (int)strlen(want));
    assert_memory_equal(s.ptr, want, (size_t)s.len);
}

static kc_uuid_t uuid_of(uint8_t b)
{
    kc_uuid_t u;
    memset(&u, b, sizeof(u));
    return u;
}

/* OffsetCommitRequest: every partition sent, by topic name (by id from v10). */
static void test_offset_commit_echoes_every_partition(void **state)
{
    fx_t *f = *state;
    kc_offset_commit_request_t rq;
    kc_offset_commit_request_init(&rq);
    rq.group_id = kc_str("g");
    kc_offset_commit_request_topic_t topics[2];
    kc_offset_commit_request_partition_t parts[3];
    for (int j = 0; j < 3; j++) {
        memset(&parts[j], 0, sizeof(parts[j]));
        parts[j].partition_index = j == 0 ? 0 : 9 + j;
        parts[j].committed_leader_epoch = -1;
        parts[j].commit_timestamp = -1;
    }
    for (int i = 0; i < 2; i++) {
        memset(&topics[i], 0, sizeof(topics[i]));
        topics[i].partitions.items = i ? &parts[1] : &parts[0];
        topics[i].partitions.count = i ? 2 : 1;
    }
    topics[0].name = kc_str("t0");
    topics[1].name = kc_str("t1");
    rq.topics.items = topics;
    rq.topics.count = 2;
    kc_offset_commit_response_t m;
    assert_int_equal(error_response(f, KC_API_OFFSET_COMMIT, 8, &rq, 14, &m), 0);
    assert_int_equal(m.topics.count, 2);
    assert_str(m.topics.items[1].name, "t1");
    assert_int_equal(m.topics.items[0].partitions.count, 1);
    assert_int_equal(m.topics.items[1].partitions.count, 2);
    assert_int_equal(m.topics.items[1].partitions.items[1].partition_index, 11);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < m.topics.items[i].partitions.count; j++)
            assert_int_equal(m.topics.items[i].partitions.items[j].error_code, 14);

    topics[0].name = topics[1].name = kc_str("");
    topics[0].topic_id = uuid_of(1);
    topics[1].topic_id = uuid_of(2);
    assert_int_equal(error_response(f, KC_API_OFFSET_COMMIT, 10, &rq, 16, &m), 0);
    assert_int_equal(m.topics.count, 2);
    assert_memory_equal(m.topics.items[1].topic_id.b, uuid_of(2).b, 16);
    assert_int_equal(m.topics.items[1].partitions.items[0].error_code, 16);
}

/* FindCoordinatorRequest: before v4 the top-level error, its message from v1
 * and Node.noNode() (id -1, host "", port -1); from v4 one coordinator per key. */
static void test_find_coordinator_no_node_or_one_per_key(void **state)
{
    fx_t *f = *state;
    kc_find_coordinator_request_t rq;
    kc_find_coordinator_request_init(&rq);
    rq.key = kc_str("g");
    kc_find_coordinator_response_t m;
    assert_int_equal(error_response(f, KC_API_FIND_COORDINATOR, 3, &rq, 15, &m), 0);
    assert_int_equal(m.error_code, 15);
    assert_str(m.error_message, "The coordinator is not available.");
    assert_int_equal(m.node_id, -1);
    assert_str(m.host, "");
    assert_int_equal(m.port, -1);
    assert_int_equal(m.coordinators.count, 0);
    /* v0 has no message field. */
    assert_int_equal(error_response(f, KC_API_FIND_COORDINATOR, 0, &rq, 15, &m), 0);
    assert_int_equal(m.error_code, 15);
    assert_int_equal(m.node_id, -1);

    kc_find_coordinator_request_init(&rq);
    kc_str_t keys[3] = {kc_str("a"), kc_str("b"), kc_str("c")};
    rq.coordinator_keys.items = keys;
    rq.coordinator_keys.count = 3;
    assert_int_equal(error_response(f, KC_API_FIND_COORDINATOR, 6, &rq, 14, &m), 0);
    assert_int_equal(m.coordinators.count, 3);
    for (int i = 0; i < 3; i++) {
        const kc_find_coordinator_response_coordinator_t *c = &m.coordinators.items[i];
        assert_str(c->key, i == 0 ? "a" : i == 1 ? "b" : "c");
        assert_int_equal(c->node_id, -1);
        assert_str(c->host, "");
        assert_int_equal(c->port, -1);
        assert_int_equal(c->error_code, 14);
        assert_str(c->error_message,
                   "The coordinator is loading and hence can't process requests.");
    }
}

/* OffsetFetchRequest: v0-1 every partition (offset -1, metadata ""), v2-7 the
 * top-level error only, v8+ every group. */
static void test_offset_fetch_by_version(void **state)
{
    fx_t *f = *state;
    kc_offset_fetch_request_t rq;
    kc_offset_fetch_request_init(&rq);
    rq.group_id = kc_str("g");
    int32_t idx[2] = {3, 7};
    kc_offset_fetch_request_topic_t t = {kc_str("t"), {idx, 2}};
    rq.topics.items = &t;
    rq.topics.count = 1;
    kc_offset_fetch_response_t m;
    assert_int_equal(error_response(f, KC_API_OFFSET_FETCH, 1, &rq, 16, &m), 0);
    assert_int_equal(m.topics.count, 1);
    assert_str(m.topics.items[0].name, "t");
    assert_int_equal(m.topics.items[0].partitions.count, 2);
    for (int j = 0; j < 2; j++) {
        const kc_offset_fetch_response_partition_t *p = &m.topics.items[0].partitions.items[j];
        assert_int_equal(p->partition_index, idx[j]);
        assert_int_equal(p->committed_offset, -1);
        assert_str(p->metadata, "");
        assert_int_equal(p->error_code, 16);
    }
    assert_int_equal(error_response(f, KC_API_OFFSET_FETCH, 5, &rq, 16, &m), 0);
    assert_int_equal(m.error_code, 16);
    assert_int_equal(m.topics.count, 0);

    kc_offset_fetch_request_init(&rq);
    kc_offset_fetch_request_group_t groups[2];
    memset(groups, 0, sizeof(groups));
    for (int i = 0; i < 2; i++) {
        groups[i].group_id = kc_str(i ? "g2" : "g1");
        groups[i].member_id = KC_STR_NULL;
        groups[i].member_epoch = -1;
        groups[i].topics.count = -1;
    }
    rq.groups.items = groups;
    rq.groups.count = 2;
    assert_int_equal(error_response(f, KC_API_OFFSET_FETCH, 9, &rq, 30, &m), 0);
    assert_int_equal(m.groups.count, 2);
    assert_str(m.groups.items[1].group_id, "g2");
    assert_int_equal(m.groups.items[0].error_code, 30);
    assert_int_equal(m.groups.items[1].error_code, 30);
    assert_int_equal(m.groups.items[1].topics.count, 0);
}

/* ApiVersionsRequest: UNSUPPORTED_VERSION lists ApiVersions' own range
 * (KIP-511); any other code lists nothing. */
static void test_api_versions_lists_its_own_range(void **state)
{
    fx_t *f = *state;
    kc_api_versions_response_t m;
    assert_int_equal(error_response(f, KC_API_API_VERSIONS, 0, NULL, 35, &m), 0);
    assert_int_equal(m.error_code, 35);
    assert_int_equal(m.api_keys.count, 1);
    assert_int_equal(m.api_keys.items[0].api_key, 18);
    assert_int_equal(m.api_keys.items[0].min_version, 0);
    assert_int_equal(m.api_keys.items[0].max_version, KC_API_VERSIONS_REQUEST_MAX_VERSION);
    assert_int_equal(error_response(f, KC_API_API_VERSIONS, 3, NULL, 42, &m), 0);
    assert_int_equal(m.error_code, 42);
    assert_int_equal(m.api_keys.count, 0);
}

/* ProduceRequest: no response at all for acks=0; otherwise every partition
 * with base offset -1, no append time, log start -1 and the error's message. */
static void test_produce_acks_zero_unanswered(void **state)
{
    fx_t *f = *state;
    kc_produce_request_t rq;
    kc_produce_request_init(&rq);
    kc_produce_request_partition_produce_data_t pd[2] = {{1, KC_BYTES_NULL}, {4, KC_BYTES_NULL}};
    kc_produce_request_topic_produce_data_t td;
    memset(&td, 0, sizeof(td));
    td.name = kc_str("t");
    td.partition_data.items = pd;
    td.partition_data.count = 2;
    rq.topic_data.items = &td;
    rq.topic_data.count = 1;
    rq.acks = 0;
    kc_produce_response_t m;
    assert_int_equal(error_response(f, KC_API_PRODUCE, 9, &rq, 6, &m), KC_ENOENT);
    assert_int_equal(f->out.len, 0);
    rq.acks = -1;
    assert_int_equal(error_response(f, KC_API_PRODUCE, 9, &rq, 6, &m), 0);
    assert_int_equal(m.responses.count, 1);
    assert_str(m.responses.items[0].name, "t");
    assert_int_equal(m.responses.items[0].partition_responses.count, 2);
    const kc_produce_response_partition_produce_response_t *p =
        &m.responses.items[0].partition_responses.items[1];
    assert_int_equal(p->index, 4);
    assert_int_equal(p->error_code, 6);
    assert_int_equal(p->base_offset, -1);
    assert_int_equal(p->log_append_time_ms, -1);
    assert_int_equal(p->log_start_offset, -1);
    assert_int_equal(p->record_errors.count, 0);
    assert_str(p->error_message, "For requests intended only for the leader, this error "
                                 "indicates that the broker is not the current leader. For "
                                 "requests intended for any replica, this error indicates that "
                                 "the broker is not a replica of the topic partition.");
}

/* FetchRequest: the top-level code and the session id; before v13 also every
 * partition (high watermark -1, an empty aborted transactions list). */
static void test_fetch_partitions_before_v13(void **state)
{
    fx_t *f = *state;
    kc_fetch_request_t rq;
    kc_fetch_request_init(&rq);
    rq.session_id = 77;
    kc_fetch_request_partition_t part;
    memset(&part, 0, sizeof(part));
    part.partition = 2;
    part.current_leader_epoch = part.last_fetched_epoch = -1;
    part.log_start_offset = -1;
    part.high_watermark = INT64_MAX;
    kc_fetch_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.topic = kc_str("t");
    topic.topic_id = uuid_of(5);
    topic.partitions.items = &part;
    topic.partitions.count = 1;
    rq.topics.items = &topic;
    rq.topics.count = 1;
    kc_fetch_response_t m;
    assert_int_equal(error_response(f, KC_API_FETCH, 12, &rq, 56, &m), 0);
    assert_int_equal(m.error_code, 56);
    assert_int_equal(m.session_id, 77);
    assert_int_equal(m.responses.count, 1);
    assert_str(m.responses.items[0].topic, "t");
    const kc_fetch_response_partition_data_t *p = &m.responses.items[0].partitions.items[0];
    assert_int_equal(m.responses.items[0].partitions.count, 1);
    assert_int_equal(p->partition_index, 2);
    assert_int_equal(p->error_code, 56);
    assert_int_equal(p->high_watermark, -1);
    assert_int_equal(p->aborted_transactions.count, 0);
    assert_int_equal(p->records.len, 0);
    assert_int_equal(error_response(f, KC_API_FETCH, 13, &rq, 56, &m), 0);
    assert_int_equal(m.error_code, 56);
    assert_int_equal(m.session_id, 77);
    assert_int_equal(m.responses.count, 0);
}

/* MetadataRequest: every requested topic (a null name becomes ""), no
 * brokers; the top-level code from v13. */
static void test_metadata_null_name_becomes_empty(void **state)
{
    fx_t *f = *state;
    kc_metadata_request_t rq;
    kc_metadata_request_init(&rq);
    kc_metadata_request_topic_t t[2] = {{uuid_of(0), kc_str("a")}, {uuid_of(9), KC_STR_NULL}};
    rq.topics.items = t;
    rq.topics.count = 2;
    kc_metadata_response_t m;
    assert_int_equal(error_response(f, KC_API_METADATA, 12, &rq, 42, &m), 0);
    assert_int_equal(m.brokers.count, 0);
    assert_int_equal(m.topics.count, 2);
    assert_str(m.topics.items[0].name, "a");
    assert_str(m.topics.items[1].name, "");
    assert_memory_equal(m.topics.items[1].topic_id.b, uuid_of(9).b, 16);
    assert_int_equal(m.topics.items[1].error_code, 42);
    assert_int_equal(m.topics.items[1].partitions.count, 0);
    assert_int_equal(m.topics.items[1].topic_authorized_operations, INT32_MIN);
    assert_int_equal(m.error_code, 0); /* v12 has no top-level code */
    assert_int_equal(error_response(f, KC_API_METADATA, 13, &rq, 42, &m), 0);
    assert_int_equal(m.error_code, 42);
    /* All topics (null list): no topic at all. */
    rq.topics.count = -1;
    assert_int_equal(error_response(f, KC_API_METADATA, 13, &rq, 42, &m), 0);
    assert_int_equal(m.topics.count, 0);
}

/* DeleteTopicsRequest: topic names before v6, names and ids from v6. */
static void test_delete_topics_names_then_states(void **state)
{
    fx_t *f = *state;
    kc_delete_topics_request_t rq;
    kc_delete_topics_request_init(&rq);
    kc_str_t names[2] = {kc_str("x"), kc_str("y")};
    rq.topic_names.items = names;
    rq.topic_names.count = 2;
    kc_delete_topics_response_t m;
    assert_int_equal(error_response(f, KC_API_DELETE_TOPICS, 5, &rq, 41, &m), 0);
    assert_int_equal(m.responses.count, 2);
    assert_str(m.responses.items[1].name, "y");
    assert_int_equal(m.responses.items[1].error_code, 41);
    assert_true(kc_str_is_null(m.responses.items[1].error_message));

    kc_delete_topics_request_init(&rq);
    kc_delete_topics_request_delete_topic_state_t st = {KC_STR_NULL, uuid_of(3)};
    rq.topics.items = &st;
    rq.topics.count = 1;
    assert_int_equal(error_response(f, KC_API_DELETE_TOPICS, 6, &rq, 100, &m), 0);
    assert_int_equal(m.responses.count, 1);
    assert_true(kc_str_is_null(m.responses.items[0].name));
    assert_memory_equal(m.responses.items[0].topic_id.b, uuid_of(3).b, 16);
    assert_int_equal(m.responses.items[0].error_code, 100);
}

/* JoinGroupRequest: generation -1, no leader or member, protocol name ""
 * before v7 and null from v7; the body is not needed. */
static void test_join_group_protocol_name_by_version(void **state)
{
    fx_t *f = *state;
    kc_join_group_response_t m;
    assert_int_equal(error_response(f, KC_API_JOIN_GROUP, 6, NULL, 27, &m), 0);
    assert_int_equal(m.error_code, 27);
    assert_int_equal(m.generation_id, -1);
    assert_str(m.protocol_name, "");
    assert_str(m.leader, "");
    assert_str(m.member_id, "");
    assert_int_equal(m.members.count, 0);
    assert_int_equal(error_response(f, KC_API_JOIN_GROUP, 7, NULL, 27, &m), 0);
    assert_true(kc_str_is_null(m.protocol_name));
}

/* DescribeGroupsRequest: every group id with the code, state "", no members;
 * CreateAclsRequest: one result per creation with the error's message. */
static void test_one_item_per_group_or_creation(void **state)
{
    fx_t *f = *state;
    kc_describe_groups_request_t dg;
    kc_describe_groups_request_init(&dg);
    kc_str_t ids[3] = {kc_str("g1"), kc_str("g2"), kc_str("g3")};
    dg.groups.items = ids;
    dg.groups.count = 3;
    kc_describe_groups_response_t dm;
    assert_int_equal(error_response(f, KC_API_DESCRIBE_GROUPS, 5, &dg, 15, &dm), 0);
    assert_int_equal(dm.groups.count, 3);
    for (int i = 0; i < 3; i++) {
        assert_str(dm.groups.items[i].group_id, i == 0 ? "g1" : i == 1 ? "g2" : "g3");
        assert_int_equal(dm.groups.items[i].error_code, 15);
        assert_str(dm.groups.items[i].group_state, "");
        assert_int_equal(dm.groups.items[i].members.count, 0);
        assert_int_equal(dm.groups.items[i].authorized_operations, INT32_MIN);
    }

    kc_create_acls_request_t ca;
    kc_create_acls_request_init(&ca);
    kc_create_acls_request_acl_creation_t cr[2];
    memset(cr, 0, sizeof(cr));
    for (int i = 0; i < 2; i++) {
        cr[i].resource_type = 2;
        cr[i].resource_name = kc_str("t");
        cr[i].resource_pattern_type = 3;
        cr[i].principal = kc_str("User:a");
        cr[i].host = kc_str("*");
        cr[i].operation = 3;
        cr[i].permission_type = 3;
    }
    ca.creations.items = cr;
    ca.creations.count = 2;
    for (int16_t v = 0; v <= 3; v++) {
        kc_create_acls_response_t cm;
        assert_int_equal(error_response(f, KC_API_CREATE_ACLS, v, &ca, 31, &cm), 0);
        assert_int_equal(cm.results.count, 2);
        assert_int_equal(cm.results.items[1].error_code, 31);
        assert_str(cm.results.items[1].error_message, "Cluster authorization failed.");
    }
}

/* A body that does not decode fails where the response echoes the request,
 * not where it needs nothing of it; an API without schema fails. */
static void test_bodies_and_unknown_apis(void **state)
{
    fx_t *f = *state;
    static const uint8_t junk[] = {0x00, 0x01, 'g', 0x00, 0x00, 0x00, 0x05};
    kc_reader_t r;
    kc_reader_init(&r, junk, sizeof(junk));
    assert_int_equal(
        kc_msg_error_response_encode(KC_API_OFFSET_COMMIT, 2, &r, &f->arena, 14, &f->out),
        KC_EINVAL);
    assert_int_equal(
        kc_msg_error_response_encode(KC_API_DESCRIBE_GROUPS, 0, &r, &f->arena, 14, &f->out),
        KC_EINVAL);
    assert_int_equal(f->out.len, 0);
    assert_int_equal(
        kc_msg_error_response_encode(KC_API_HEARTBEAT, 0, &r, &f->arena, 14, &f->out), 0);
    static const uint8_t hb[] = {0x00, 0x0e};
    assert_int_equal(f->out.len, sizeof(hb));
    assert_memory_equal(f->out.data, hb, sizeof(hb));
    kc_buf_reset(&f->out);
    assert_int_equal(kc_msg_error_response_encode(7, 0, NULL, &f->arena, 14, &f->out), KC_EINVAL);
    assert_int_equal(kc_msg_error_response_encode(KC_API_HEARTBEAT, 5, NULL, &f->arena, 14,
                                                  &f->out),
                     KC_EVERSION);
    assert_int_equal(f->out.len, 0);
    assert_null(kc_error_message(999));
    assert_string_equal(kc_error_message(KC_ERR_NOT_COORDINATOR),
                        "This is not the correct coordinator.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_offset_commit_echoes_every_partition, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find_coordinator_no_node_or_one_per_key, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_offset_fetch_by_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_api_versions_lists_its_own_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_produce_acks_zero_unanswered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fetch_partitions_before_v13, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata_null_name_becomes_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_topics_names_then_states, setup, teardown),
        cmocka_unit_test_setup_teardown(test_join_group_protocol_name_by_version, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_one_item_per_group_or_creation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bodies_and_unknown_apis, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
