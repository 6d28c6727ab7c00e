/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for whole request handling without sockets: a coordinator on
 * a fake clock is fed a sequence of operations read from the input,
 *   0x00 request  u8 api index (kc_fuzz_group_apis), u8 version offset,
 *                 u16 body length, body: decoded at that version and, when it
 *                 decodes, handed to the coordinator;
 *   0x01 tick     u16 ms;  0x02 long tick  u8 hours;
 *   0x03 reload   unload (answers parked requests), replay the record log,
 *                 loaded;
 *   0x04 marker   u8 (bit 0: commit): the transaction marker of the last
 *                 TxnOffsetCommit's producer in its group's offsets
 *                 partition (kc_coord_txn_offsets_end);
 * (op bytes are taken modulo 5; the first input byte, before the ops, picks
 * a 0 ms initial rebalance delay when odd). A member id "#n" in a request
 * (also in SyncGroup assignments and LeaveGroup members) is replaced
 * by the n-th member id the coordinator handed out, so inputs can reach the
 * states after a join. Every record emitted is replayed at once into a
 * second coordinator. Invariants: no crash or sanitizer report; every
 * response answers a request given and answers it at most once; every
 * response body decodes whole; every emitted record replays; the replayed
 * coordinator answers nothing. "At most once", not "exactly once": as in
 * Kafka (ClassicGroup.updateMember replaces the member's join future), a
 * JoinGroup parked for a member is never answered once the same member
 * joins again from another connection. With KC_FUZZ_TRACE set in the environment
 * every response is printed (to read what a corpus input does).
 */
#include <string.h>

#include "kc_fuzz.h"
#include "kc_fuzz_coord.h"

#define MAX_OPS 200
#define MAX_REQS 256
#define MEMBER_SLOTS 8

typedef struct {
    kc_buf_t key, value;
    bool tombstone;
} rec_t;

typedef struct {
    kc_coord_t *c, *mirror;
    int64_t now;
    uint32_t nreqs;
    uint8_t answered[MAX_REQS];
    rec_t *log;
    size_t nlog, log_cap;
    char *members[MEMBER_SLOTS];
    size_t next_member;
    kc_arena_t arena;
    bool trace; /* environment KC_FUZZ_TRACE set: print every response */
    /* the last TxnOffsetCommit decoded: its producer and group's partition */
    bool has_txn;
    int64_t txn_pid;
    int32_t txn_partition;
} state_t;

static void learn_member(state_t *s, kc_str_t id)
{
    if (id.len <= 0)
        return;
    for (size_t i = 0; i < MEMBER_SLOTS; i++)
        if (s->members[i] && kc_str_eq_cstr(id, s->members[i]))
            return;
    size_t slot = s->next_member++ % MEMBER_SLOTS;
    free(s->members[slot]);
    s->members[slot] = kc_xstrndup(id.ptr, (size_t)id.len);
}

/* Member ids handed out by JoinGroup, for the "#n" substitution. */
static void learn_from_join(state_t *s, const kc_response_t *resp)
{
    kc_join_group_response_t jr;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, resp->body.data, resp->body.len);
    if (kc_join_group_response_decode(&r, resp->api_version, &a, &jr) == 0) {
        learn_member(s, jr.member_id);
        for (int32_t i = 0; i < jr.members.count; i++)
            learn_member(s, jr.members.items[i].member_id);
    }
    kc_arena_deinit(&a);
}

static void substitute(state_t *s, kc_str_t *id)
{
    if (id->len < 1 || id->len > 2 || id->ptr[0] != '#')
        return;
    size_t slot = id->len == 2 ? (uint8_t)id->ptr[1] % MEMBER_SLOTS : 0;
    if (s->members[slot])
        *id = kc_str(s->members[slot]);
}

static void substitute_members(state_t *s, int16_t api_key, void *m)
{
    switch (api_key) {
    case KC_API_JOIN_GROUP:
        substitute(s, &((kc_join_group_request_t *)m)->member_id);
        break;
    case KC_API_SYNC_GROUP: {
        kc_sync_group_request_t *sg = m;
        substitute(s, &sg->member_id);
        for (int32_t i = 0; i < sg->assignments.count; i++)
            substitute(s, &sg->assignments.items[i].member_id);
        break;
    }
    case KC_API_HEARTBEAT:
        substitute(s, &((kc_heartbeat_request_t *)m)->member_id);
        break;
    case KC_API_LEAVE_GROUP: {
        kc_leave_group_request_t *l = m;
        substitute(s, &l->member_id);
        for (int32_t i = 0; i < l->members.count; i++)
            substitute(s, &l->members.items[i].member_id);
        break;
    }
    case KC_API_OFFSET_COMMIT:
        substitute(s, &((kc_offset_commit_request_t *)m)->member_id);
        break;
    case KC_API_TXN_OFFSET_COMMIT:
        substitute(s, &((kc_txn_offset_commit_request_t *)m)->member_id);
        break;
    default:
        break;
    }
}

static void append_record(state_t *s, const kc_record_t *rec)
{
    if (s->nlog == s->log_cap) {
        s->log_cap = s->log_cap ? 2 * s->log_cap : 32;
        s->log = kc_xrealloc(s->log, s->log_cap * sizeof(*s->log));
    }
    rec_t *r = &s->log[s->nlog++];
    kc_buf_init(&r->key);
    kc_buf_init(&r->value);
    kc_buf_append(&r->key, rec->key.data, rec->key.len);
    if (!rec->tombstone)
        kc_buf_append(&r->value, rec->value.data, rec->value.len);
    r->tombstone = rec->tombstone;
}

static int replay_one(kc_coord_t *c, const rec_t *r)
{
    return kc_coord_replay(c, r->key.data, r->key.len, r->tombstone ? NULL : r->value.data,
                           r->tombstone ? 0 : r->value.len);
}

/* Checks and consumes one result of the primary coordinator. */
static void absorb(state_t *s, kc_result_t *res)
{
    for (size_t i = 0; i < res->nresponses; i++) {
        const kc_response_t *resp = &res->responses[i];
        uint64_t seq = resp->conn_id - 1;
        KC_FUZZ_CHECK(resp->conn_id >= 1 && seq < s->nreqs &&
                          resp->correlation_id == (int32_t)seq,
                      "response to a request never given (conn %llu, correlation %d)",
                      (unsigned long long)resp->conn_id, resp->correlation_id);
        KC_FUZZ_CHECK(s->answered[seq] == 0, "request %llu answered twice (api key %d)",
                      (unsigned long long)seq, resp->api_key);
        s->answered[seq] = 1;
        if (s->trace) {
            fprintf(stderr, "t=%lld request %llu api %d v%d answered:", (long long)s->now,
                    (unsigned long long)seq, resp->api_key, resp->api_version);
            for (size_t j = 0; j < resp->body.len && j < 24; j++)
                fprintf(stderr, " %02x", resp->body.data[j]);
            fputc('\n', stderr);
        }
        kc_fuzz_check_response_body(resp->api_key, resp->api_version, &resp->body);
        if (resp->error_body.len)
            kc_fuzz_check_response_body(resp->api_key, resp->api_version, &resp->error_body);
        if (resp->api_key == KC_API_JOIN_GROUP)
            learn_from_join(s, resp);
    }
    for (size_t i = 0; i < res->nrecords; i++) {
        append_record(s, &res->records[i]);
        int rc = replay_one(s->mirror, &s->log[s->nlog - 1]);
        KC_FUZZ_CHECK(rc == 0, "record %zu emitted by the coordinator does not replay (%d)",
                      s->nlog - 1, rc);
    }
    kc_result_reset(res);
}

static void op_request(state_t *s, kc_fuzz_in_t *in, kc_result_t *res)
{
    int16_t api_key = kc_fuzz_group_apis[kc_fuzz_u8(in) % kc_fuzz_group_apis_count];
    uint8_t voff = kc_fuzz_u8(in);
    size_t len;
    const uint8_t *body = kc_fuzz_take(in, kc_fuzz_u16(in), &len);
    const kc_msg_desc_t *d = kc_msg_desc_for_api(api_key, false);
    if (!d || s->nreqs >= MAX_REQS)
        return;
    int16_t version = (int16_t)(d->min_version + voff % (d->max_version - d->min_version + 1));
    void *m = kc_arena_alloc(&s->arena, d->size);
    kc_reader_t r;
    kc_reader_init(&r, body, len);
    if (d->decode(&r, version, &s->arena, m) != 0)
        return;
    substitute_members(s, api_key, m);
    if (api_key == KC_API_TXN_OFFSET_COMMIT) {
        const kc_txn_offset_commit_request_t *t = m;
        s->has_txn = true;
        s->txn_pid = t->producer_id;
        s->txn_partition = kc_coord_offsets_partition_for(s->c, t->group_id);
    }
    uint32_t seq = s->nreqs++;
    kc_request_ctx_t ctx = {
        .conn_id = (uint64_t)seq + 1,
        .correlation_id = (int32_t)seq,
        .api_key = api_key,
        .api_version = version,
        .client_id = kc_str("fuzz"),
        .client_host = "/127.0.0.1",
        .now_ms = s->now,
    };
    KC_FUZZ_CHECK(kc_fuzz_coord_dispatch(s->c, &ctx, m, res), "api %d not routed", api_key);
}

static void op_reload(state_t *s, kc_result_t *res)
{
    kc_coord_unload(s->c, res);
    absorb(s, res);
    for (size_t i = 0; i < s->nlog; i++) {
        int rc = replay_one(s->c, &s->log[i]);
        KC_FUZZ_CHECK(rc == 0, "record %zu does not replay on reload (%d)", i, rc);
    }
    kc_coord_loaded(s->c, s->now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    state_t s;
    memset(&s, 0, sizeof(s));
    s.trace = getenv("KC_FUZZ_TRACE") != NULL;
    kc_fuzz_in_t in = {data, size};
    /* The first byte picks the initial rebalance delay: Kafka's 3 s or 0. */
    s.c = kc_fuzz_coord_new(kc_fuzz_u8(&in) & 1);
    s.mirror = kc_fuzz_coord_new(false);
    s.now = 1700000000000LL;
    kc_coord_loaded(s.c, s.now);
    kc_arena_init(&s.arena);
    kc_result_t res;
    kc_result_init(&res);

    for (int ops = 0; in.left > 0 && ops < MAX_OPS; ops++) {
        switch (kc_fuzz_u8(&in) % 5) {
        case 0:
            op_request(&s, &in, &res);
            break;
        case 1:
            s.now += kc_fuzz_u16(&in);
            kc_coord_tick(s.c, s.now, &res);
            break;
        case 2:
            s.now += (int64_t)kc_fuzz_u8(&in) * 3600 * 1000;
            kc_coord_tick(s.c, s.now, &res);
            break;
        case 3:
            op_reload(&s, &res);
            break;
        default: {
            bool commit = (kc_fuzz_u8(&in) & 1) != 0;
            if (s.has_txn)
                kc_coord_txn_offsets_end(s.c, s.txn_pid, commit, s.txn_partition, &res);
            KC_FUZZ_CHECK(res.nresponses == 0, "a transaction marker answered a request");
            break;
        }
        }
        absorb(&s, &res);
        kc_arena_reset(&s.arena);
        int64_t next = kc_coord_next_deadline(s.c);
        KC_FUZZ_CHECK(next == INT64_MAX || next > s.now - 1000000000LL,
                      "timer deadline far in the past");
    }

    /* Unloading answers the parked requests, still at most once each. */
    kc_coord_unload(s.c, &res);
    absorb(&s, &res);

    /* The replayed copy loads and runs its timers without answering anyone. */
    kc_coord_loaded(s.mirror, s.now);
    kc_coord_tick(s.mirror, s.now + 30LL * 24 * 3600 * 1000, &res);
    KC_FUZZ_CHECK(res.nresponses == 0, "the replayed coordinator answered %zu requests",
                  res.nresponses);
    kc_result_deinit(&res);

    for (size_t i = 0; i < s.nlog; i++) {
        kc_buf_deinit(&s.log[i].key);
        kc_buf_deinit(&s.log[i].value);
    }
    free(s.log);
    for (size_t i = 0; i < MEMBER_SLOTS; i++)
        free(s.members[i]);
    kc_arena_deinit(&s.arena);
    kc_coord_free(s.c);
    kc_coord_free(s.mirror);
    return 0;
}
