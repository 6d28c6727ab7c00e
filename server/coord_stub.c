/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Temporary stand-in for the coordinator library so the server links before
 * coordinator/ is implemented: results work, group requests go unanswered.
 * Removed once the coordinator is built.
 */
#include <stdlib.h>
#include <string.h>

#include "coord.h"

struct kc_coord {
    bool loaded;
};

void kc_coord_config_defaults(kc_coord_config_t *cfg)
{
    cfg->group_initial_rebalance_delay_ms = 3000;
    cfg->group_min_session_timeout_ms = 6000;
    cfg->group_max_session_timeout_ms = 1800000;
    cfg->group_max_size = INT32_MAX;
    cfg->group_new_member_join_timeout_ms = 300000;
    cfg->offsets_retention_ms = 10080LL * 60 * 1000;
    cfg->offsets_retention_check_interval_ms = 600000;
    cfg->offset_metadata_max_bytes = 4096;
}

void kc_result_init(kc_result_t *res)
{
    memset(res, 0, sizeof(*res));
}

void kc_result_reset(kc_result_t *res)
{
    for (size_t i = 0; i < res->nrecords; i++) {
        kc_buf_deinit(&res->records[i].key);
        kc_buf_deinit(&res->records[i].value);
    }
    for (size_t i = 0; i < res->nresponses; i++) {
        kc_buf_deinit(&res->responses[i].body);
        kc_buf_deinit(&res->responses[i].error_body);
    }
    res->nrecords = 0;
    res->nresponses = 0;
}

void kc_result_deinit(kc_result_t *res)
{
    kc_result_reset(res);
    free(res->records);
    free(res->responses);
    memset(res, 0, sizeof(*res));
}

kc_coord_t *kc_coord_new(const kc_coord_config_t *cfg, const kc_topic_view_t *topics)
{
    (void)cfg;
    (void)topics;
    return kc_xcalloc(1, sizeof(kc_coord_t));
}

void kc_coord_free(kc_coord_t *c)
{
    free(c);
}

int kc_coord_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                    size_t value_len)
{
    (void)c, (void)key, (void)key_len, (void)value, (void)value_len;
    return 0;
}

void kc_coord_loaded(kc_coord_t *c, int64_t now_ms)
{
    (void)now_ms;
    c->loaded = true;
}

bool kc_coord_is_loaded(const kc_coord_t *c)
{
    return c->loaded;
}

void kc_coord_unload(kc_coord_t *c, kc_result_t *res)
{
    (void)res;
    c->loaded = false;
}

int64_t kc_coord_next_deadline(const kc_coord_t *c)
{
    (void)c;
    return INT64_MAX;
}

void kc_coord_tick(kc_coord_t *c, int64_t now_ms, kc_result_t *res)
{
    (void)c, (void)now_ms, (void)res;
}

#define STUB(name, type)                                                                           \
    void name(kc_coord_t *c, const kc_request_ctx_t *ctx, const type *req, kc_result_t *res)       \
    {                                                                                              \
        (void)c, (void)ctx, (void)req, (void)res;                                                  \
    }
STUB(kc_coord_join_group, kc_join_group_request_t)
STUB(kc_coord_sync_group, kc_sync_group_request_t)
STUB(kc_coord_heartbeat, kc_heartbeat_request_t)
STUB(kc_coord_leave_group, kc_leave_group_request_t)
STUB(kc_coord_offset_commit, kc_offset_commit_request_t)
STUB(kc_coord_offset_fetch, kc_offset_fetch_request_t)
STUB(kc_coord_offset_delete, kc_offset_delete_request_t)
STUB(kc_coord_describe_groups, kc_describe_groups_request_t)
STUB(kc_coord_list_groups, kc_list_groups_request_t)
STUB(kc_coord_delete_groups, kc_delete_groups_request_t)

void kc_coord_topic_deleted(kc_coord_t *c, kc_str_t topic, int64_t now_ms, kc_result_t *res)
{
    (void)c, (void)topic, (void)now_ms, (void)res;
}
