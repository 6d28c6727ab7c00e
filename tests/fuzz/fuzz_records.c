/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for record replay (kc_coord_replay, kc_txn_replay), the load
 * path of __consumer_offsets and of the transaction state. Input: records
 * as u8 flags (bit 0: tombstone), u16 key length, key, u16 value length,
 * value. A fresh group coordinator and transaction coordinator replay them
 * all, each record going where the server sends it (kc_txn_is_record), and
 * finish loading; then the group coordinator answers ListGroups,
 * DescribeGroups and OffsetFetch for every group it lists, the transaction
 * coordinator is asked to add a partition to, commit, abort and re-init
 * every transactional id it holds, and both run their timers a month ahead:
 * whatever state hostile records built must be served without a crash and
 * with responses that decode whole. The transaction coordinator's records
 * must replay into a fresh one; it is then unloaded and loads the input
 * again.
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

/* The records of res replay into a fresh transaction coordinator. */
static void check_txn_records(const kc_result_t *res)
{
    int64_t next_pid = 0;
    kc_txn_coord_t *t = kc_fuzz_txn_new(&next_pid);
    for (size_t i = 0; i < res->nrecords; i++) {
        const kc_record_t *r = &res->records[i];
        KC_FUZZ_CHECK(kc_txn_is_record(r->key.data, r->key.len), "txn wrote a group record");
        int rc = kc_txn_replay(t, r->key.data, r->key.len, r->tombstone ? NULL : r->value.data,
                               r->value.len);
        KC_FUZZ_CHECK(rc == 0, "a record the txn coordinator wrote does not replay (%d)", rc);
    }
    kc_txn_free(t);
}

#define MAX_IDS 16

/* The producers of the pending transactional offsets replayed (type 100:
 * the key ends with the producer id) and their group's offsets partition. */
typedef struct {
    int64_t pid[MAX_IDS];
    int32_t partition[MAX_IDS];
    size_t n;
} pending_list_t;

static void note_pending(kc_coord_t *c, pending_list_t *l, const uint8_t *key, size_t klen)
{
    kc_reader_t r;
    kc_reader_init(&r, key, klen);
    if (kc_read_int16(&r) != 100 || l->n == MAX_IDS)
        return;
    kc_str_t group = kc_read_str(&r, false, false);
    kc_read_str(&r, false, false);
    kc_read_int32(&r);
    int64_t pid = kc_read_int64(&r);
    if (r.err)
        return;
    l->pid[l->n] = pid;
    l->partition[l->n++] = kc_coord_offsets_partition_for(c, group);
}

typedef struct {
    char *ids[MAX_IDS];
    size_t n;
} id_list_t;

static void collect_id(void *ctx, const kc_txn_meta_t *m)
{
    id_list_t *l = ctx;
    if (l->n < MAX_IDS)
        l->ids[l->n++] = kc_xstrdup(m->transactional_id);
}

/* Drives the transaction APIs on every loaded id: add a partition, end
 * (commit for even, abort for odd ids, with the stored producer and with
 * one off by one epoch), InitProducerId, then the timers. */
static void drive_txn(kc_txn_coord_t *t, int64_t now)
{
    id_list_t l = {.n = 0};
    kc_txn_foreach(t, collect_id, &l);
    kc_result_t res;
    kc_result_init(&res);
    for (size_t i = 0; i < l.n; i++) {
        kc_str_t id = kc_str(l.ids[i]);
        const kc_txn_meta_t *m = kc_txn_find(t, id);
        if (!m) { /* Dead, or an id cut at a NUL byte by the view */
            free(l.ids[i]);
            continue;
        }
        int64_t pid = m->producer_id;
        int16_t epoch = m->producer_epoch;
        kc_txn_partition_t part = {"t0", (int32_t)i};
        kc_txn_add_partitions(t, now, id, pid, epoch, &part, 1, (int16_t)(i % 3 == 0 ? 0 : 2),
                              &res);
        kc_txn_verify_partition(t, id, pid, epoch, &part);
        int64_t out_pid;
        int16_t out_epoch, out_epoch2;
        kc_txn_end(t, now, id, pid, (int16_t)(epoch - (int16_t)(i & 2 ? 1 : 0)), (i & 1) == 0,
                   (int16_t)(i % 3 == 0 ? 0 : 2), &res, &out_pid, &out_epoch);
        kc_txn_init_producer_id(t, now, id, 60000, i & 4 ? pid : -1, i & 4 ? epoch : -1, &res,
                                &out_pid, &out_epoch2);
        free(l.ids[i]);
    }
    kc_txn_tick(t, now + 30LL * 24 * 3600 * 1000, &res);
    check_txn_records(&res);
    kc_result_deinit(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_fuzz_in_t in = {data, size};
    kc_coord_t *c = kc_fuzz_coord_new(false);
    int64_t next_pid = 1000;
    kc_txn_coord_t *txn = kc_fuzz_txn_new(&next_pid);
    pending_list_t pending = {.n = 0};
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
        const uint8_t *v = tombstone ? NULL : value;
        size_t vl = tombstone ? 0 : vlen;
        int rc = kc_txn_is_record(key, klen) ? kc_txn_replay(txn, key, klen, v, vl)
                                             : kc_coord_replay(c, key, klen, v, vl);
        KC_FUZZ_CHECK(rc == 0 || rc == KC_EINVAL, "replay returned %d", rc);
        if (rc == 0)
            note_pending(c, &pending, key, klen);
        free(key);
        free(value);
    }
    int64_t now = 1700000000000LL;
    kc_coord_loaded(c, now);
    kc_result_t res;
    kc_result_init(&res);
    kc_txn_loaded(txn, now, &res);
    check_txn_records(&res);
    kc_result_reset(&res);
    drive_txn(txn, now);
    /* Unloaded, the coordinator holds nothing and loads the same records
     * again (as after a failed commit). */
    kc_txn_unload(txn);
    KC_FUZZ_CHECK(kc_txn_next_deadline(txn) == INT64_MAX, "an unloaded txn coordinator has timers");
    in = (kc_fuzz_in_t){data, size};
    for (int n = 0; in.left > 0 && n < MAX_RECORDS; n++) {
        bool tombstone = (kc_fuzz_u8(&in) & 1) != 0;
        size_t klen, vlen;
        const uint8_t *kp = kc_fuzz_take(&in, kc_fuzz_u16(&in), &klen);
        const uint8_t *vp = kc_fuzz_take(&in, kc_fuzz_u16(&in), &vlen);
        if (kc_txn_is_record(kp, klen))
            kc_txn_replay(txn, kp, klen, tombstone ? NULL : vp, tombstone ? 0 : vlen);
    }
    kc_txn_loaded(txn, now, &res);
    kc_result_reset(&res);
    kc_txn_free(txn);
    query_groups(c, now, &res);
    /* The transaction markers of the pending offsets' producers: commit
     * for even, abort for odd entries (twice: the second finds nothing). */
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < pending.n; i++)
            kc_coord_txn_offsets_end(c, pending.pid[i], (i & 1) == 0, pending.partition[i], &res);
    KC_FUZZ_CHECK(res.nresponses == 0, "transaction markers answered a request");
    kc_result_reset(&res);
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
