/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for record replay (kc_coord_replay), the load path of
 * __consumer_offsets. Input: records as u8 flags (bit 0: tombstone),
 * u16 key length, key, u16 value length, value. A fresh coordinator replays
 * them all, finishes loading, then answers ListGroups, DescribeGroups and
 * OffsetFetch for every group it lists and runs its timers a month ahead:
 * whatever state hostile records built must be served without a crash and
 * with responses that decode whole.
 */
#include <string.h>

#include "kc_fuzz.h"
#include "kc_fuzz_coord.h"

#define MAX_RECORDS 64

static void check_and_reset(kc_result_t *res, size_t *answered)
{
    for (size_t i = 0; i < res->nresponses; i++) {
        kc_fuzz_check_response_body(res->responses[i].api_key, res->responses[i].api_version,
                                    &res->responses[i].body);
        (*answered)++;
    }
    kc_result_reset(res);
}

/* Asks about every listed group; returns the number of responses seen. */
static size_t query_groups(kc_coord_t *c, int64_t now, kc_result_t *res)
{
    size_t answered = 0;
    kc_request_ctx_t ctx = {
        .conn_id = 1, .client_id = kc_str("fuzz"), .client_host = "/127.0.0.1", .now_ms = now};
    kc_arena_t a;
    kc_arena_init(&a);

    kc_list_groups_request_t lreq;
    kc_list_groups_request_init(&lreq);
    ctx.api_key = KC_API_LIST_GROUPS;
    ctx.api_version = 5;
    kc_coord_list_groups(c, &ctx, &lreq, res);
    KC_FUZZ_CHECK(res->nresponses == 1, "ListGroups not answered once");
    kc_list_groups_response_t lresp;
    kc_reader_t r;
    kc_reader_init(&r, res->responses[0].body.data, res->responses[0].body.len);
    KC_FUZZ_CHECK(kc_list_groups_response_decode(&r, ctx.api_version, &a, &lresp) == 0,
                  "ListGroups response does not decode");
    /* The views point into res; copy the ids before the result is reset. */
    int32_t n = lresp.groups.count > 0 ? lresp.groups.count : 0;
    kc_str_t *ids = kc_arena_alloc(&a, sizeof(*ids) * (size_t)(n ? n : 1));
    for (int32_t i = 0; i < n; i++) {
        kc_str_t g = lresp.groups.items[i].group_id;
        char *copy = kc_arena_alloc(&a, (size_t)(g.len > 0 ? g.len : 0) + 1);
        if (g.len > 0)
            memcpy(copy, g.ptr, (size_t)g.len);
        ids[i] = (kc_str_t){copy, g.len > 0 ? g.len : 0};
    }
    check_and_reset(res, &answered);

    kc_describe_groups_request_t dreq;
    kc_describe_groups_request_init(&dreq);
    dreq.groups.items = ids;
    dreq.groups.count = n;
    ctx.api_key = KC_API_DESCRIBE_GROUPS;
    ctx.api_version = 5;
    kc_coord_describe_groups(c, &ctx, &dreq, res);
    check_and_reset(res, &answered);

    for (int32_t i = 0; i < n; i++) {
        kc_offset_fetch_request_t freq;
        kc_offset_fetch_request_init(&freq);
        freq.group_id = ids[i];
        freq.topics.count = -1; /* every committed offset of the group */
        ctx.api_key = KC_API_OFFSET_FETCH;
        ctx.api_version = 7;
        kc_coord_offset_fetch(c, &ctx, &freq, res);
        check_and_reset(res, &answered);
    }
    kc_arena_deinit(&a);
    return answered;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_fuzz_in_t in = {data, size};
    kc_coord_t *c = kc_fuzz_coord_new(false);
    for (int n = 0; in.left > 0 && n < MAX_RECORDS; n++) {
        bool tombstone = (kc_fuzz_u8(&in) & 1) != 0;
        size_t klen, vlen;
        const uint8_t *kp = kc_fuzz_take(&in, kc_fuzz_u16(&in), &klen);
        const uint8_t *vp = kc_fuzz_take(&in, kc_fuzz_u16(&in), &vlen);
        /* Exact-size copies, so ASan sees any read past either end. */
        uint8_t *key = klen ? kc_xmalloc(klen) : NULL;
        uint8_t *value = vlen ? kc_xmalloc(vlen) : NULL;
        if (klen)
            memcpy(key, kp, klen);
        if (vlen)
            memcpy(value, vp, vlen);
        int rc = kc_coord_replay(c, key, klen, tombstone ? NULL : value, tombstone ? 0 : vlen);
        KC_FUZZ_CHECK(rc == 0 || rc == KC_EINVAL, "replay returned %d", rc);
        free(key);
        free(value);
    }
    int64_t now = 1700000000000LL;
    kc_coord_loaded(c, now);
    kc_result_t res;
    kc_result_init(&res);
    query_groups(c, now, &res);
    kc_coord_tick(c, now + 30LL * 24 * 3600 * 1000, &res);
    size_t answered = 0;
    check_and_reset(&res, &answered);
    KC_FUZZ_CHECK(answered == 0, "timers answered %zu requests nobody made", answered);
    query_groups(c, now + 30LL * 24 * 3600 * 1000, &res);
    kc_result_deinit(&res);
    kc_coord_free(c);
    return 0;
}
