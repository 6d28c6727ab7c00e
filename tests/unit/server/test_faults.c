/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for server/faults.c without sockets: parsing of fault specs (the
 * POST /v1/faults body), matching by API, group id and client id, counts, the
 * coordinator window, and the error responses (generated from the schemas)
 * per API and version.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kc_common.h"
#include "kc_msgs.h"
#include "server_int.h"
#include "wire.h"

static int parse(const char *json, kc_fault_t *spec, char *err)
{
    return kc_faults_parse_spec(json, strlen(json), 1000, spec, err, 256);
}

static void test_parse_error_defaults_to_next_request(void **state)
{
    (void)state;
    kc_fault_t f;
    char err[256];
    assert_int_equal(parse("{\"type\":\"error\",\"api_key\":12,\"error_code\":27,"
                           "\"group_id\":\"g\",\"client_id\":\"c\"}", &f, err), 0);
    assert_int_equal(f.kind, KC_FAULT_ERROR);
    assert_int_equal(f.api_key, 12);
    assert_int_equal(f.error_code, 27);
    assert_int_equal(f.remaining, 1);
    assert_true(f.until_ms == INT64_MAX);
    assert_string_equal(f.group_id, "g");
    assert_string_equal(f.client_id, "c");
    kc_faults_spec_deinit(&f);
}

static void test_parse_window_starts_now(void **state)
{
    (void)state;
    kc_fault_t f;
    char err[256];
    assert_int_equal(parse("{\"type\":\"coordinator\",\"error_code\":14,\"duration_ms\":500}",
                           &f, err), 0);
    assert_int_equal(f.kind, KC_FAULT_COORDINATOR);
    assert_int_equal(f.api_key, -1);
    assert_int_equal(f.until_ms, 1500);
    assert_int_equal(f.remaining, -1);
    kc_faults_spec_deinit(&f);
    assert_int_equal(parse("{\"type\":\"stall\",\"duration_ms\":0}", &f, err), 0);
    assert_int_equal(f.until_ms, 1000);
    kc_faults_spec_deinit(&f);
}

static void test_parse_rejects_bad_specs(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[]",
        "{\"type\":\"error\"",
        "{\"type\":\"nope\"}",
        "{\"type\":\"stall\"}",
        "{\"type\":\"error\",\"api_key\":12}",                     /* error_code 0 */
        "{\"type\":\"error\",\"api_key\":99,\"error_code\":15}",   /* not served */
        "{\"type\":\"error\",\"api_key\":-3,\"error_code\":15}",
        "{\"type\":\"error\",\"api_key\":\"12\",\"error_code\":15}",
        "{\"type\":\"close\"}",
        "{\"type\":\"delay\",\"delay_ms\":0}",
        "{\"type\":\"coordinator\",\"error_code\":27,\"duration_ms\":10}",
        "{\"type\":\"coordinator\",\"error_code\":15}",
        "{\"type\":\"coordinator\",\"error_code\":15,\"duration_ms\":10,\"api_key\":3}",
        "{\"type\":\"error\",\"api_key\":12,\"error_code\":15,\"group_id\":7}",
        "{\"type\":\"error\",\"api_key\":12,\"error_code\":15,\"count\":0}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        kc_fault_t f;
        char err[256];
        if (parse(bad[i], &f, err) != KC_EINVAL)
            fail_msg("accepted %s", bad[i]);
        assert_true(err[0] != '\0');
        assert_null(f.group_id);
    }
}

/* A request of api at version with body b, as the dispatcher hands it over. */
typedef struct {
    kc_result_t res;
    kc_arena_t arena;
    kc_reader_t r;
    kc_req_t req;
} call_t;

static void call_init(call_t *c, int16_t api, int16_t version, const kc_buf_t *b,
                      const char *client_id)
{
    memset(c, 0, sizeof(*c));
    kc_result_init(&c->res);
    kc_arena_init(&c->arena);
    kc_reader_init(&c->r, b->data, b->len);
    c->req.body = &c->r;
    c->req.arena = &c->arena;
    c->req.res = &c->res;
    c->req.ctx.conn_id = 7;
    c->req.ctx.correlation_id = 42;
    c->req.ctx.api_key = api;
    c->req.ctx.api_version = version;
    c->req.ctx.client_id = kc_str(client_id);
}

static void call_deinit(call_t *c)
{
    kc_result_deinit(&c->res);
    kc_arena_deinit(&c->arena);
}

static void heartbeat_body(kc_buf_t *b, const char *group)
{
    kc_heartbeat_request_t m;
    kc_heartbeat_request_init(&m);
    m.group_id = kc_str(group);
    m.generation_id = 1;
    m.member_id = kc_str("m");
    kc_buf_init(b);
    assert_int_equal(kc_heartbeat_request_encode(b, 4, &m), 0);
}

static int16_t heartbeat_code(const call_t *c)
{
    assert_int_equal(c->res.nresponses, 1);
    kc_reader_t r;
    kc_reader_init(&r, c->res.responses[0].body.data, c->res.responses[0].body.len);
    kc_heartbeat_response_t m;
    kc_arena_t a;
    kc_arena_init(&a);
    assert_int_equal(kc_heartbeat_response_decode(&r, 4, &a, &m), 0);
    kc_arena_deinit(&a);
    return m.error_code;
}

static void add(kc_faults_t *f, const char *json)
{
    kc_fault_t spec;
    char err[256];
    if (parse(json, &spec, err) != 0)
        fail_msg("%s: %s", json, err);
    spec.until_ms = spec.until_ms == INT64_MAX ? INT64_MAX : INT64_MAX - 1;
    kc_faults_add(f, &spec);
    kc_faults_spec_deinit(&spec);
}

static bool intercept(kc_faults_t *f, const char *group, const char *client, int16_t *code)
{
    kc_buf_t b;
    heartbeat_body(&b, group);
    call_t c;
    call_init(&c, KC_API_HEARTBEAT, 4, &b, client);
    bool took = kc_faults_intercept(f, &c.req);
    if (took)
        *code = heartbeat_code(&c);
    call_deinit(&c);
    kc_buf_deinit(&b);
    return took;
}

static void test_error_fault_matches_group_and_client_then_clears(void **state)
{
    (void)state;
    kc_faults_t *f = kc_faults_new(NULL);
    add(f, "{\"type\":\"error\",\"api_key\":12,\"error_code\":27,\"count\":2,"
           "\"group_id\":\"g1\",\"client_id\":\"c1\"}");
    int16_t code = 0;
    assert_false(intercept(f, "g2", "c1", &code));
    assert_false(intercept(f, "g1", "c2", &code));
    assert_true(intercept(f, "g1", "c1", &code));
    assert_int_equal(code, 27);
    assert_int_equal(kc_faults_list(f)->remaining, 1);
    assert_true(intercept(f, "g1", "c1", &code));
    assert_null(kc_faults_list(f));
    assert_false(intercept(f, "g1", "c1", &code));
    kc_faults_free(f);
}

static void test_coordinator_fault_hits_group_apis_only(void **state)
{
    (void)state;
    kc_faults_t *f = kc_faults_new(NULL);
    add(f, "{\"type\":\"coordinator\",\"error_code\":16,\"duration_ms\":60000}");
    int16_t code = 0;
    assert_true(intercept(f, "a", "c", &code));
    assert_int_equal(code, 16);
    assert_true(intercept(f, "b", "c", &code));
    assert_int_equal(kc_faults_list(f)->remaining, -1);
    /* Metadata is not a group API: untouched. */
    kc_metadata_request_t m;
    kc_metadata_request_init(&m);
    m.topics.count = 0;
    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_metadata_request_encode(&b, 9, &m), 0);
    call_t c;
    call_init(&c, KC_API_METADATA, 9, &b, "c");
    assert_false(kc_faults_intercept(f, &c.req));
    call_deinit(&c);
    kc_buf_deinit(&b);
    assert_int_equal(kc_faults_clear(f, -1), 1);
    assert_false(intercept(f, "a", "c", &code));
    kc_faults_free(f);
}

static void test_offset_commit_error_on_every_partition(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_offset_commit_request_t rq;
    kc_offset_commit_request_init(&rq);
    rq.group_id = kc_str("g");
    rq.member_id = kc_str("m");
    rq.topics.count = 2;
    rq.topics.items = kc_arena_alloc(&a, 2 * sizeof(*rq.topics.items));
    for (int i = 0; i < 2; i++) {
        memset(&rq.topics.items[i], 0, sizeof(rq.topics.items[i]));
        rq.topics.items[i].name = kc_str(i ? "t1" : "t0");
        rq.topics.items[i].partitions.count = i + 1;
        rq.topics.items[i].partitions.items =
            kc_arena_alloc(&a, (size_t)(i + 1) * sizeof(kc_offset_commit_request_partition_t));
        for (int j = 0; j <= i; j++) {
            kc_offset_commit_request_partition_t *p = &rq.topics.items[i].partitions.items[j];
            memset(p, 0, sizeof(*p));
            p->partition_index = 10 * i + j;
            p->committed_offset = 5;
            p->committed_leader_epoch = -1;
            p->commit_timestamp = -1;
            p->committed_metadata = KC_STR_NULL;
        }
    }
    for (int16_t v = 2; v <= 9; v++) {
        kc_buf_t b, out;
        kc_buf_init(&b);
        kc_buf_init(&out);
        assert_int_equal(kc_offset_commit_request_encode(&b, v, &rq), 0);
        kc_reader_t r;
        kc_reader_init(&r, b.data, b.len);
        assert_int_equal(kc_msg_error_response_encode(KC_API_OFFSET_COMMIT, v, &r, &a, 14, &out), 0);
        kc_reader_t rr;
        kc_reader_init(&rr, out.data, out.len);
        kc_offset_commit_response_t m;
        assert_int_equal(kc_offset_commit_response_decode(&rr, v, &a, &m), 0);
        assert_int_equal(m.topics.count, 2);
        assert_int_equal(m.topics.items[1].partitions.count, 2);
        assert_int_equal(m.topics.items[1].partitions.items[1].partition_index, 11);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j <= i; j++)
                assert_int_equal(m.topics.items[i].partitions.items[j].error_code, 14);
        kc_buf_deinit(&b);
        kc_buf_deinit(&out);
    }
    kc_arena_deinit(&a);
}

static void test_find_coordinator_error_names_no_node(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_find_coordinator_request_t rq;
    kc_find_coordinator_request_init(&rq);
    kc_str_t keys[2] = {kc_str("g1"), kc_str("g2")};
    rq.coordinator_keys.items = keys;
    rq.coordinator_keys.count = 2;
    kc_buf_t b, out;
    kc_buf_init(&b);
    kc_buf_init(&out);
    assert_int_equal(kc_find_coordinator_request_encode(&b, 4, &rq), 0);
    kc_reader_t r;
    kc_reader_init(&r, b.data, b.len);
    assert_int_equal(kc_msg_error_response_encode(KC_API_FIND_COORDINATOR, 4, &r, &a, 15, &out), 0);
    kc_reader_t rr;
    kc_reader_init(&rr, out.data, out.len);
    kc_find_coordinator_response_t m;
    assert_int_equal(kc_find_coordinator_response_decode(&rr, 4, &a, &m), 0);
    assert_int_equal(m.coordinators.count, 2);
    assert_int_equal(m.coordinators.items[1].node_id, -1);
    assert_int_equal(m.coordinators.items[1].port, -1);
    assert_int_equal(m.coordinators.items[1].error_code, 15);
    assert_int_equal(m.coordinators.items[1].error_message.len,
                     (int)strlen("The coordinator is not available."));
    kc_buf_deinit(&b);
    kc_buf_deinit(&out);
    kc_arena_deinit(&a);
}

static void test_error_response_rejects_truncated_body(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    static const uint8_t junk[] = {0x00, 0x01, 'g', 0x00, 0x00, 0x00, 0x05};
    kc_reader_t r;
    kc_reader_init(&r, junk, sizeof(junk));
    kc_buf_t out;
    kc_buf_init(&out);
    assert_int_equal(kc_msg_error_response_encode(KC_API_OFFSET_COMMIT, 2, &r, &a, 14, &out),
                     KC_EINVAL);
    assert_int_equal(kc_msg_error_response_encode(KC_API_DESCRIBE_GROUPS, 0, &r, &a, 14, &out),
                     KC_EINVAL);
    kc_buf_deinit(&out);
    kc_arena_deinit(&a);
}

typedef struct {
    int16_t want;
    int seen, wrong;
} codes_t;

static void see_code(void *arg, int16_t code)
{
    codes_t *c = arg;
    c->seen++;
    if (code != c->want)
        c->wrong++;
}

/* Every API kcoord serves, at every version, gets an error response that
 * decodes and carries the injected code in every ErrorCode it has. */
static void test_error_response_for_every_api(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    for (size_t i = 0; i < kc_api_table_len; i++) {
        const kc_api_entry_t *e = &kc_api_table[i];
        const kc_msg_desc_t *rqd = kc_msg_desc_for_api(e->api_key, false);
        const kc_msg_desc_t *rsd = kc_msg_desc_for_api(e->api_key, true);
        assert_non_null(rqd);
        assert_non_null(rsd);
        int total = 0;
        for (int16_t v = e->min_version; v <= e->max_version; v++) {
            for (uint32_t seed = 1; seed <= 3; seed++) {
                kc_arena_reset(&a);
                void *rq = kc_arena_alloc(&a, rqd->size);
                rqd->fill_sample(rq, v, &a, seed);
                kc_buf_t b, out;
                kc_buf_init(&b);
                kc_buf_init(&out);
                assert_int_equal(rqd->encode(&b, v, rq), 0);
                kc_reader_t r;
                kc_reader_init(&r, b.data, b.len);
                int rc = kc_msg_error_response_encode(e->api_key, v, &r, &a, 15, &out);
                if (rc == KC_ENOENT) {
                    /* Only a Produce with acks=0 goes unanswered. */
                    assert_int_equal(e->api_key, KC_API_PRODUCE);
                    assert_int_equal(((kc_produce_request_t *)rq)->acks, 0);
                } else {
                    if (rc != 0)
                        fail_msg("%s v%d: no error response (%d)", e->name, v, rc);
                    void *m = kc_arena_alloc(&a, rsd->size);
                    kc_reader_t rr;
                    kc_reader_init(&rr, out.data, out.len);
                    if (rsd->decode(&rr, v, &a, m) != 0 || rr.p != rr.end)
                        fail_msg("%s v%d: the error response does not decode", e->name, v);
                    codes_t c = {15, 0, 0};
                    rsd->visit_errors(m, v, see_code, &c);
                    if (c.wrong)
                        fail_msg("%s v%d: %d error codes are not the injected one", e->name,
                                 v, c.wrong);
                    total += c.seen;
                }
                kc_buf_deinit(&b);
                kc_buf_deinit(&out);
            }
        }
        if (total == 0)
            fail_msg("%s: the code never reached a response", e->name);
    }
    kc_arena_deinit(&a);
}

/* InitProducerId of v version (a transactional id, or NULL); whether a fault
 * took it, with the answer's code in *code. */
static bool intercept_init(kc_faults_t *f, int16_t v, const char *txn_id, int16_t *code)
{
    kc_init_producer_id_request_t m;
    kc_init_producer_id_request_init(&m);
    m.transactional_id = txn_id ? kc_str(txn_id) : KC_STR_NULL;
    m.transaction_timeout_ms = 60000;
    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_init_producer_id_request_encode(&b, v, &m), 0);
    call_t c;
    call_init(&c, KC_API_INIT_PRODUCER_ID, v, &b, "c");
    bool took = kc_faults_intercept(f, &c.req);
    if (took) {
        kc_reader_t r;
        kc_reader_init(&r, c.res.responses[0].body.data, c.res.responses[0].body.len);
        kc_init_producer_id_response_t resp;
        assert_int_equal(kc_init_producer_id_response_decode(&r, v, &c.arena, &resp), 0);
        assert_int_equal(resp.producer_id, -1);
        *code = resp.error_code;
    }
    call_deinit(&c);
    kc_buf_deinit(&b);
    return took;
}

/* The transaction coordinator's APIs are coordinator APIs too; InitProducerId
 * only with a transactional id. */
static void test_coordinator_fault_hits_transaction_apis(void **state)
{
    (void)state;
    kc_faults_t *f = kc_faults_new(NULL);
    add(f, "{\"type\":\"coordinator\",\"error_code\":14,\"duration_ms\":60000}");
    int16_t code = 0;
    for (int16_t v = 0; v <= 5; v += 5) {
        code = 0;
        assert_true(intercept_init(f, v, "tx", &code));
        assert_int_equal(code, 14);
        assert_false(intercept_init(f, v, NULL, &code));
    }
    assert_int_equal(kc_faults_clear(f, -1), 1);
    kc_fault_t spec;
    char err[256];
    assert_int_equal(parse("{\"type\":\"coordinator\",\"error_code\":15,\"duration_ms\":1,"
                           "\"api_key\":26}", &spec, err), 0);
    kc_faults_spec_deinit(&spec);
    assert_int_not_equal(parse("{\"type\":\"coordinator\",\"error_code\":15,\"duration_ms\":1,"
                               "\"api_key\":3}", &spec, err), 0);
    assert_string_equal(err, "api key 3 is not a coordinator API");
    kc_faults_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_error_defaults_to_next_request),
        cmocka_unit_test(test_parse_window_starts_now),
        cmocka_unit_test(test_parse_rejects_bad_specs),
        cmocka_unit_test(test_error_fault_matches_group_and_client_then_clears),
        cmocka_unit_test(test_coordinator_fault_hits_group_apis_only),
        cmocka_unit_test(test_coordinator_fault_hits_transaction_apis),
        cmocka_unit_test(test_offset_commit_error_on_every_partition),
        cmocka_unit_test(test_find_coordinator_error_names_no_node),
        cmocka_unit_test(test_error_response_rejects_truncated_body),
        cmocka_unit_test(test_error_response_for_every_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
