/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for what kcoord takes from a topology-description store
 * plugin's answers (server/topology_store.c, coordinator/streams/
 * topology_desc.c). A store built into the target answers every call with
 * what the input says, on the store's worker thread, through the real
 * kc_topology_store_t; the broker's side then reads the answer as
 * StreamsGroupDescribe does. Input:
 *   u8   call: low two bits 0/3 get, 1 set, 2 del; bit 2: the store
 *        completes the call twice; bit 3: it keeps the token and completes
 *        the call once more after its callback ran (a late completion)
 *   u32  the status the store answers (any value, as a plugin may)
 *   u8   message length m (0xff: no message, NULL)
 *   m    message bytes (a NUL ends the message early, as C strings do)
 *   rest the description bytes: a get's answer, a set's argument
 * Checks: the callback runs once on the loop thread with the store's status
 * and message and, for a get that succeeded, its bytes, and a second or
 * late completion is ignored; a set hands the
 * store exactly the bytes given. Bytes that decode as a stored description
 * (kc_topology_desc_decode) point into the answer, encode into a
 * StreamsGroupDescribe v1 response and decode back, and that encodes
 * to the same bytes.
 */
#include <string.h>

#include <event2/event.h>

#include "kc_fuzz.h"
#include "server_int.h"
#include "topology_desc.h"
#include "topology_store.h"

/* The answer the store gives next; written before the call is submitted
 * (the submit takes the store's lock, which orders it for the worker). */
static struct {
    uint32_t status;
    const char *message;
    const uint8_t *data;
    size_t len;
    const uint8_t *set_in; /* what a set received */
    size_t set_len;
    bool set_seen;
    bool twice, keep;
    kc_topology_store_done_fn late_done; /* kept for a late completion */
    void *late_token;
} answer;

static int fz_init(const kc_topology_store_config_t *cfg, void **state, char *err, size_t errlen)
{
    *state = &answer;
    return 0;
}

static void fz_close(void *state) {}

static void fz_answer(kc_topology_store_done_fn done, void *token, bool with_data)
{
    kc_topology_store_result_t r = {(kc_topology_store_status_t)answer.status, answer.message,
                                    with_data ? answer.data : NULL, with_data ? answer.len : 0};
    done(token, &r);
    if (answer.twice)
        done(token, &r);
    if (answer.keep) {
        answer.late_done = done;
        answer.late_token = token;
    }
}

static void fz_set(void *state, const char *g, size_t glen, int32_t epoch, const uint8_t *d,
                   size_t len, kc_topology_store_done_fn done, void *token)
{
    KC_FUZZ_CHECK(glen == 5 && memcmp(g, "group", 6) == 0 && epoch == 3, "set arguments");
    KC_FUZZ_CHECK(len == answer.len && (len == 0 || memcmp(d, answer.data, len) == 0),
                  "the store got other bytes than the set was given");
    answer.set_seen = true;
    fz_answer(done, token, false);
}

static void fz_get(void *state, const char *g, size_t glen, int32_t epoch,
                   kc_topology_store_done_fn done, void *token)
{
    KC_FUZZ_CHECK(glen == 5 && memcmp(g, "group", 6) == 0 && epoch == 3, "get arguments");
    fz_answer(done, token, true);
}

static void fz_del(void *state, const char *g, size_t glen, kc_topology_store_done_fn done,
                   void *token)
{
    KC_FUZZ_CHECK(glen == 5 && memcmp(g, "group", 6) == 0, "del arguments");
    fz_answer(done, token, false);
}

static const kc_topology_store_ops_t fz_ops = {
    KC_TOPOLOGY_STORE_ABI_VERSION, sizeof(kc_topology_store_ops_t), "fuzz",
    fz_init, fz_close, fz_set, fz_get, fz_del,
};

static struct event_base *base;
static kc_topology_store_t *store;

typedef struct {
    int calls;
    uint32_t status;
    char *message;
    uint8_t *data;
    size_t len;
} got_t;

static void on_done(void *arg, const kc_topology_store_result_t *res)
{
    got_t *g = arg;
    g->calls++;
    g->status = (uint32_t)res->status;
    g->message = res->message ? kc_xstrdup(res->message) : NULL;
    g->len = res->len;
    g->data = kc_xmalloc(res->len ? res->len : 1);
    if (res->len)
        memcpy(g->data, res->data, res->len);
}

static void setup(void)
{
    if (store)
        return;
    base = event_base_new();
    char err[256];
    store = kc_topology_store_open_ops(base, &fz_ops, "", "", 1, err, sizeof(err));
    KC_FUZZ_CHECK(store, "store: %s", err);
}

/* Decoded bytes re-encode through the StreamsGroupDescribe response. */
static void describe_roundtrip(const uint8_t *data, size_t len)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_describe_response_topology_description_t d;
    memset(&d, 0, sizeof(d));
    if (kc_topology_desc_decode(data, len, &arena, &d) != 0) {
        kc_arena_deinit(&arena);
        return;
    }
    for (int32_t i = 0; i < d.subtopologies.count; i++) {
        const kc_str_t *id = &d.subtopologies.items[i].subtopology_id;
        /* Inside the stored bytes, or (bytes that were not UTF-8) their
         * U+FFFD copy, which is well-formed: read again, the same view. */
        if (id->len > 0 && !((const uint8_t *)id->ptr >= data &&
                             (const uint8_t *)id->ptr + id->len <= data + len))
            KC_FUZZ_CHECK(kc_str_utf8(*id, &arena).ptr == id->ptr,
                          "a subtopology id outside the stored bytes, not UTF-8");
    }
    kc_streams_group_describe_response_t resp;
    kc_streams_group_describe_response_init(&resp);
    kc_streams_group_describe_response_described_group_t g;
    memset(&g, 0, sizeof(g));
    g.error_message = KC_STR_NULL;
    resp.groups.items = &g;
    resp.groups.count = 1;
    g.group_id = (kc_str_t){"group", 5};
    g.group_state = (kc_str_t){"Stable", 6};
    g.assignor_name = (kc_str_t){"sticky", 6};
    g.members.count = 0;
    g.authorized_operations = INT32_MIN;
    g.topology_description = &d;
    g.topology_description_status = KC_TOPOLOGY_DESC_STATUS_AVAILABLE;
    kc_buf_t b1, b2;
    kc_buf_init(&b1);
    kc_buf_init(&b2);
    KC_FUZZ_CHECK(kc_streams_group_describe_response_encode(&b1, 1, &resp) == 0,
                  "a decoded description does not encode");
    kc_reader_t r;
    kc_reader_init(&r, b1.data, b1.len);
    kc_streams_group_describe_response_t back;
    kc_streams_group_describe_response_init(&back);
    KC_FUZZ_CHECK(kc_streams_group_describe_response_decode(&r, 1, &arena, &back) == 0 &&
                      kc_reader_left(&r) == 0,
                  "the response does not decode");
    KC_FUZZ_CHECK(back.groups.count == 1 && back.groups.items[0].topology_description,
                  "the description got lost");
    KC_FUZZ_CHECK(kc_streams_group_describe_response_encode(&b2, 1, &back) == 0 &&
                      b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0,
                  "the response does not re-encode the same");
    kc_buf_deinit(&b1);
    kc_buf_deinit(&b2);
    kc_arena_deinit(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    kc_fuzz_in_t in = {data, size};
    uint8_t cb = kc_fuzz_u8(&in);
    int call = cb & 3;
    uint32_t status = (uint32_t)kc_fuzz_u16(&in) << 16;
    status |= kc_fuzz_u16(&in);
    uint8_t ml = kc_fuzz_u8(&in);
    size_t mn = 0;
    const uint8_t *mp = ml == 0xff ? NULL : kc_fuzz_take(&in, ml, &mn);
    char *message = NULL;
    if (mp) {
        message = kc_xmalloc(mn + 1);
        memcpy(message, mp, mn);
        message[mn] = '\0';
    }
    /* Exactly the rest on the heap, so reading past the answer is seen. */
    size_t dn = in.left;
    uint8_t *desc = kc_xmalloc(dn ? dn : 1);
    if (dn)
        memcpy(desc, in.p, dn);
    answer.status = status;
    answer.message = message;
    answer.data = desc;
    answer.len = dn;
    answer.set_seen = false;
    answer.twice = (cb & 4) != 0;
    answer.keep = (cb & 8) != 0;

    got_t got;
    memset(&got, 0, sizeof(got));
    if (call == 1)
        kc_topology_store_set(store, "group", 5, 3, desc, dn, on_done, &got);
    else if (call == 2)
        kc_topology_store_del(store, "group", 5, on_done, &got);
    else
        kc_topology_store_get(store, "group", 5, 3, on_done, &got);
    while (got.calls == 0)
        event_base_loop(base, EVLOOP_ONCE);
    if (answer.late_done) {
        /* The job was delivered and freed: this completion must be ignored. */
        kc_topology_store_result_t late = {KC_TOPOLOGY_STORE_OK, "late", NULL, 0};
        answer.late_done(answer.late_token, &late);
        answer.late_done = NULL;
    }
    event_base_loop(base, EVLOOP_NONBLOCK);
    KC_FUZZ_CHECK(got.calls == 1 && kc_topology_store_pending(store) == 0, "callback count");
    KC_FUZZ_CHECK(got.status == status, "status %u became %u", status, got.status);
    KC_FUZZ_CHECK((message == NULL) == (got.message == NULL) &&
                      (!message || strcmp(message, got.message) == 0),
                  "the store's message changed");
    KC_FUZZ_CHECK(call != 1 || answer.set_seen, "the set did not reach the store");
    bool ok_get = call != 1 && call != 2 && status == KC_TOPOLOGY_STORE_OK;
    if (ok_get)
        KC_FUZZ_CHECK(got.len == dn && (dn == 0 || memcmp(got.data, desc, dn) == 0),
                      "the description bytes changed");
    else
        KC_FUZZ_CHECK(got.len == 0, "bytes with a status that carries none");

    int8_t st = kc_topology_desc_get_status((kc_topology_store_status_t)got.status);
    KC_FUZZ_CHECK(st == KC_TOPOLOGY_DESC_STATUS_AVAILABLE ||
                      st == KC_TOPOLOGY_DESC_STATUS_NOT_STORED ||
                      st == KC_TOPOLOGY_DESC_STATUS_ERROR,
                  "describe status %d for store status %u", st, got.status);
    KC_FUZZ_CHECK((st == KC_TOPOLOGY_DESC_STATUS_AVAILABLE) == (got.status == KC_TOPOLOGY_STORE_OK),
                  "store status %u served as available", got.status);
    if (ok_get)
        describe_roundtrip(got.data, got.len);
    free(got.message);
    free(got.data);
    free(message);
    free(desc);
    return 0;
}
