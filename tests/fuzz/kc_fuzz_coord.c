/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the coordinator fuzz targets (see kc_fuzz_coord.h):
 * fixed topics, request routing and the response decode check.
 */
#include <string.h>

#include "kc_fuzz.h"
#include "kc_fuzz_coord.h"
#include "kc_log.h"

const int16_t kc_fuzz_group_apis[] = {
    KC_API_JOIN_GROUP,      KC_API_SYNC_GROUP,     KC_API_HEARTBEAT,      KC_API_LEAVE_GROUP,
    KC_API_OFFSET_COMMIT,   KC_API_OFFSET_FETCH,   KC_API_OFFSET_DELETE,  KC_API_DESCRIBE_GROUPS,
    KC_API_LIST_GROUPS,     KC_API_DELETE_GROUPS,  KC_API_TXN_OFFSET_COMMIT,
};
const size_t kc_fuzz_group_apis_count = KC_ARRAY_LEN(kc_fuzz_group_apis);

static const struct {
    const char *name;
    int32_t partitions;
    uint8_t id;
} topics[] = {{"t0", 3, 1}, {"t1", 3, 2}, {"topic", 1, 3}};

static int find_topic(kc_str_t name)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(topics); i++)
        if (kc_str_eq_cstr(name, topics[i].name))
            return (int)i;
    return -1;
}

static bool topic_exists(void *ctx, kc_str_t topic)
{
    (void)ctx;
    return find_topic(topic) >= 0;
}

static bool topic_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *topic_id)
{
    (void)ctx;
    int i = find_topic(topic);
    if (i < 0)
        return false;
    *partitions = topics[i].partitions;
    memset(topic_id, 0, sizeof(*topic_id));
    topic_id->b[15] = topics[i].id;
    return true;
}

static bool topic_id_to_name(void *ctx, kc_uuid_t topic_id, kc_str_t *name)
{
    (void)ctx;
    for (size_t i = 0; i < 15; i++)
        if (topic_id.b[i] != 0)
            return false;
    for (size_t i = 0; i < KC_ARRAY_LEN(topics); i++) {
        if (topic_id.b[15] == topics[i].id) {
            *name = kc_str(topics[i].name);
            return true;
        }
    }
    return false;
}

const kc_topic_view_t kc_fuzz_topics = {
    .topic_exists = topic_exists,
    .ctx = NULL,
    .topic_lookup = topic_lookup,
    .topic_id_to_name = topic_id_to_name,
};

kc_coord_t *kc_fuzz_coord_new(bool quick)
{
    /* KC_FUZZ_QUIET (scripts/fuzz-campaign sets it): not even the errors a
     * hostile input makes the coordinator log, which at libFuzzer's speed
     * are gigabytes an hour. */
    kc_log_set_level(getenv("KC_FUZZ_QUIET") ? (kc_log_level_t)(KC_LOG_ERROR + 1) : KC_LOG_ERROR);
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    if (quick)
        cfg.group_initial_rebalance_delay_ms = 0;
    kc_coord_t *c = kc_coord_new(&cfg, &kc_fuzz_topics);
    kc_coord_seed(c, 7);
    return c;
}

static int16_t next_producer_id(void *ctx, int64_t *out)
{
    int64_t *next = ctx;
    *out = (*next)++;
    return 0;
}

static int write_markers(void *ctx, int64_t producer_id, int16_t producer_epoch, bool commit,
                         int16_t transaction_version, const kc_txn_partition_t *parts,
                         size_t nparts, kc_result_t *res)
{
    (void)ctx, (void)producer_id, (void)producer_epoch, (void)commit;
    (void)transaction_version, (void)res;
    for (size_t i = 0; i < nparts; i++)
        KC_FUZZ_CHECK(parts[i].topic != NULL, "marker for a partition without a topic");
    return 0;
}

kc_txn_coord_t *kc_fuzz_txn_new(int64_t *next_pid)
{
    kc_txn_config_t cfg;
    kc_txn_config_defaults(&cfg);
    kc_txn_env_t env = {next_producer_id, write_markers, next_pid};
    return kc_txn_new(&cfg, &env);
}

bool kc_fuzz_coord_dispatch(kc_coord_t *c, const kc_request_ctx_t *ctx, const void *m,
                            kc_result_t *res)
{
    switch (ctx->api_key) {
    case KC_API_JOIN_GROUP:
        kc_coord_join_group(c, ctx, m, res);
        return true;
    case KC_API_SYNC_GROUP:
        kc_coord_sync_group(c, ctx, m, res);
        return true;
    case KC_API_HEARTBEAT:
        kc_coord_heartbeat(c, ctx, m, res);
        return true;
    case KC_API_LEAVE_GROUP:
        kc_coord_leave_group(c, ctx, m, res);
        return true;
    case KC_API_OFFSET_COMMIT:
        kc_coord_offset_commit(c, ctx, m, res);
        return true;
    case KC_API_OFFSET_FETCH:
        kc_coord_offset_fetch(c, ctx, m, res);
        return true;
    case KC_API_OFFSET_DELETE:
        kc_coord_offset_delete(c, ctx, m, res);
        return true;
    case KC_API_DESCRIBE_GROUPS:
        kc_coord_describe_groups(c, ctx, m, res);
        return true;
    case KC_API_LIST_GROUPS:
        kc_coord_list_groups(c, ctx, m, res);
        return true;
    case KC_API_DELETE_GROUPS:
        kc_coord_delete_groups(c, ctx, m, res);
        return true;
    case KC_API_TXN_OFFSET_COMMIT:
        /* The transaction coordinator's verdict: the producer is fine. */
        kc_coord_txn_offset_commit(c, ctx, m, KC_ERR_NONE, res);
        return true;
    default:
        return false;
    }
}

void kc_fuzz_check_response_body(int16_t api_key, int16_t version, const kc_buf_t *body)
{
    const kc_msg_desc_t *d = kc_msg_desc_for_api(api_key, true);
    KC_FUZZ_CHECK(d != NULL, "response to unknown api key %d", api_key);
    kc_arena_t arena;
    kc_arena_init(&arena);
    void *m = kc_xcalloc(1, d->size);
    kc_reader_t r;
    kc_reader_init(&r, body->data, body->len);
    int rc = d->decode(&r, version, &arena, m);
    KC_FUZZ_CHECK(rc == 0, "%s v%d: the coordinator's response does not decode (%d)", d->name,
                  version, rc);
    KC_FUZZ_CHECK(kc_reader_left(&r) == 0, "%s v%d: %zu bytes after the coordinator's response",
                  d->name, version, kc_reader_left(&r));
    free(m);
    kc_arena_deinit(&arena);
}
