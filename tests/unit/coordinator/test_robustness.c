/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Coordinator cases found by the fuzz targets (tests/fuzz): hostile but
 * well-formed requests and records must be handled without undefined
 * behaviour or leaks (the sanitizer build checks both).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coord_test.h"

static bool any_topic(void *ctx, kc_str_t topic)
{
    (void)ctx;
    return topic.len > 0;
}

static const kc_topic_view_t topics = {.topic_exists = any_topic};

/* A context on a view where every named topic exists; loaded unless asked. */
static ct_t *ctx_new(bool unloaded, int64_t now_ms)
{
    return ct_new(&(ct_opts_t){.topics = &topics, .seed = 1, .now_ms = now_ms,
                               .unloaded = unloaded});
}

/* Commits offset 5 of t/0 for group_id (no member, generation -1). */
static void commit(kc_coord_t *c, kc_str_t group_id, int16_t version, int64_t retention_ms,
                   kc_result_t *res)
{
    kc_offset_commit_request_partition_t p = {.partition_index = 0, .committed_offset = 5,
                                              .committed_leader_epoch = -1,
                                              .commit_timestamp = -1,
                                              .committed_metadata = kc_str("")};
    kc_offset_commit_request_topic_t t = {.name = kc_str("t"), .partitions = {&p, 1}};
    kc_offset_commit_request_t req;
    kc_offset_commit_request_init(&req);
    req.group_id = group_id;
    req.member_id = kc_str("");
    req.retention_time_ms = retention_ms;
    req.topics.items = &t;
    req.topics.count = 1;
    kc_request_ctx_t ctx = {.conn_id = 1, .correlation_id = 7, .api_key = KC_API_OFFSET_COMMIT,
                            .api_version = version, .client_id = kc_str("c"),
                            .client_host = "/127.0.0.1", .now_ms = 1700000000000LL};
    kc_coord_offset_commit(c, &ctx, &req, res);
}

static int16_t commit_partition_error(const kc_result_t *res, int16_t version)
{
    assert_int_equal(res->nresponses, 1);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_offset_commit_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, res->responses[0].body.data, res->responses[0].body.len);
    assert_int_equal(kc_offset_commit_response_decode(&r, version, &a, &resp), 0);
    assert_int_equal(resp.topics.count, 1);
    assert_int_equal(resp.topics.items[0].partitions.count, 1);
    int16_t err = resp.topics.items[0].partitions.items[0].error_code;
    kc_arena_deinit(&a);
    return err;
}

/* OffsetCommit v2-4 with a retention time so large that now + retention
 * overflows: Kafka's long arithmetic wraps; no signed overflow here. */
static void offset_commit_with_huge_retention_time(void **state)
{
    (void)state;
    ct_t *t = ctx_new(false, 0);
    kc_result_t res;
    kc_result_init(&res);
    commit(t->c, kc_str("g"), 2, INT64_MAX, &res);
    ct_keep(t, &res);
    assert_int_equal(commit_partition_error(&res, 2), 0);
    assert_int_equal(res.nrecords, 1);
    kc_result_deinit(&res);
    ct_free(t);
}

static size_t listed_groups(kc_coord_t *c)
{
    kc_result_t res;
    kc_result_init(&res);
    kc_list_groups_request_t req;
    kc_list_groups_request_init(&req);
    kc_request_ctx_t ctx = {.conn_id = 2, .api_key = KC_API_LIST_GROUPS, .api_version = 3,
                            .client_id = kc_str("c"), .client_host = "/127.0.0.1"};
    kc_coord_list_groups(c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_list_groups_response_t resp;
    kc_reader_t r;
    kc_reader_init(&r, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_list_groups_response_decode(&r, 3, &a, &resp), 0);
    size_t n = (size_t)resp.groups.count;
    kc_arena_deinit(&a);
    kc_result_deinit(&res);
    return n;
}

/* A group id holding a NUL byte is one group, not a new one (and a leaked
 * one) per record replayed: the group map is keyed by every byte. */
static void replay_group_id_with_nul_byte(void **state)
{
    (void)state;
    static const char id[] = {'a', '\0', 'b'};
    kc_str_t group_id = {id, 3};
    ct_t *src = ctx_new(false, 0);
    kc_result_t res;
    kc_result_init(&res);
    commit(src->c, group_id, 8, -1, &res);
    ct_keep(src, &res);
    assert_int_equal(commit_partition_error(&res, 8), 0);
    assert_int_equal(res.nrecords, 1);

    ct_t *t = ctx_new(true, 0);
    const kc_record_t *rec = &res.records[0];
    for (int i = 0; i < 2; i++)
        assert_int_equal(ct_replay(t, &rec->key, &rec->value), 0);
    ct_load(t);
    assert_int_equal(listed_groups(t->c), 1);
    kc_result_deinit(&res);
    ct_free(t);
    ct_free(src);
}

/* A stored commit timestamp near INT64_MIN: the retention check's
 * now - timestamp wraps as in Kafka instead of overflowing. */
static void expire_offset_with_extreme_commit_timestamp(void **state)
{
    (void)state;
    kc_offset_commit_key_t k;
    kc_offset_commit_key_init(&k);
    k.group = kc_str("g");
    k.topic = kc_str("t");
    kc_offset_commit_value_t v;
    kc_offset_commit_value_init(&v);
    v.offset = 1;
    v.metadata = kc_str("");
    v.commit_timestamp = INT64_MIN + 1000;
    kc_buf_t key, value;
    kc_buf_init(&key);
    kc_buf_init(&value);
    kc_write_int16(&key, KC_RECORD_OFFSET_COMMIT);
    assert_int_equal(kc_offset_commit_key_encode(&key, 0, &k), 0);
    kc_write_int16(&value, 3);
    assert_int_equal(kc_offset_commit_value_encode(&value, 3, &v), 0);

    ct_t *t = ctx_new(true, 1700000000000LL);
    assert_int_equal(ct_replay(t, &key, &value), 0);
    ct_load(t);
    kc_result_t res;
    kc_result_init(&res);
    t->now += 30LL * 24 * 3600 * 1000;
    kc_coord_tick(t->c, t->now, &res);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 0);
    kc_result_deinit(&res);
    ct_free(t);
    kc_buf_deinit(&key);
    kc_buf_deinit(&value);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offset_commit_with_huge_retention_time),
        cmocka_unit_test(replay_group_id_with_nul_byte),
        cmocka_unit_test(expire_offset_with_extreme_commit_timestamp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
