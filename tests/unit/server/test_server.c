/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for server/: the broker answers over an in-process socket,
 * checked byte for byte for ApiVersions (v0, v3, and the KIP-511 fallback),
 * Metadata auto-creation, closes on bad requests, the dispatch table, and a
 * burst of commits from many connections answered by one loop iteration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>

#include <cmocka.h>
#include <event2/event.h>

#include "kc_common.h"
#include "kc_config.h"
#include "kc_msgs.h"
#include "kc_net.h"
#include "kc_server.h"
#include "server_int.h"
#include "wire.h"
#include "crc32c.h"

typedef struct {
    char dir[64];
    kc_config_t cfg;
    struct event_base *base;
    struct event *tick;
    kc_server_t *srv;
    int client;
} fx_t;

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what, (void)arg;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static fx_t *fx_new(const char *override)
{
    fx_t *fx = kc_xcalloc(1, sizeof(*fx));
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/kc_server_test_XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    kc_config_init(&fx->cfg);
    char err[256];
    assert_int_equal(kc_config_set(&fx->cfg, "log.dirs", fx->dir, err, sizeof(err)), 0);
    assert_int_equal(kc_config_set(&fx->cfg, "lmdb.map.size.bytes", "16777216", err, sizeof(err)),
                     0);
    if (override)
        assert_int_equal(kc_config_override(&fx->cfg, override, err, sizeof(err)), 0);
    fx->base = event_base_new();
    fx->tick = event_new(fx->base, -1, EV_PERSIST, tick_cb, NULL);
    struct timeval tv = {0, 5000};
    event_add(fx->tick, &tv);
    fx->srv = kc_server_new(&fx->cfg, fx->base, false);
    assert_non_null(fx->srv);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fx->client = sv[1];
    assert_int_equal(kc_net_adopt(kc_server_net(fx->srv), sv[0], "/127.0.0.1", "PLAINTEXT", NULL),
                     0);
    return fx;
}

static void fx_free(fx_t *fx)
{
    kc_server_free(fx->srv);
    event_free(fx->tick);
    event_base_free(fx->base);
    close(fx->client);
    kc_config_deinit(&fx->cfg);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
    assert_int_equal(system(cmd), 0);
    free(fx);
}

static void send_all(fx_t *fx, const kc_buf_t *b)
{
    uint8_t sz[4] = {(uint8_t)(b->len >> 24), (uint8_t)(b->len >> 16), (uint8_t)(b->len >> 8),
                     (uint8_t)b->len};
    assert_int_equal(write(fx->client, sz, 4), 4);
    assert_int_equal(write(fx->client, b->data, b->len), (ssize_t)b->len);
}

/* Runs the server until the client can read, or 5 s pass. */
static bool wait_readable(fx_t *fx)
{
    int64_t deadline = now_ms() + 5000;
    while (now_ms() < deadline) {
        struct pollfd p = {fx->client, POLLIN, 0};
        if (poll(&p, 1, 0) == 1)
            return true;
        kc_server_run_once(fx->srv);
    }
    return false;
}

static void read_n(fx_t *fx, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        assert_true(wait_readable(fx));
        ssize_t r = read(fx->client, buf + got, n - got);
        assert_true(r > 0);
        got += (size_t)r;
    }
}

/* Reads one response frame into out (without the size). */
static void read_frame(fx_t *fx, kc_buf_t *out)
{
    uint8_t sz[4];
    read_n(fx, sz, 4);
    uint32_t n = ((uint32_t)sz[0] << 24) | ((uint32_t)sz[1] << 16) | ((uint32_t)sz[2] << 8) | sz[3];
    assert_true(n < 1000000);
    kc_buf_reset(out);
    read_n(fx, kc_buf_reserve(out, n), n);
    out->len = n;
}

static bool wait_closed(fx_t *fx)
{
    int64_t deadline = now_ms() + 5000;
    while (now_ms() < deadline) {
        struct pollfd p = {fx->client, POLLIN, 0};
        if (poll(&p, 1, 0) == 1) {
            uint8_t b[256];
            ssize_t r = read(fx->client, b, sizeof(b));
            if (r == 0)
                return true;
            continue;
        }
        kc_server_run_once(fx->srv);
    }
    return false;
}

static void header(kc_buf_t *b, int16_t key, int16_t version, int32_t corr, bool flexible)
{
    kc_write_int16(b, key);
    kc_write_int16(b, version);
    kc_write_int32(b, corr);
    kc_write_str(b, kc_str("test"), false);
    if (flexible)
        kc_write_uvarint(b, 0);
}

/* What the broker must advertise (protocol.md section 1, capped to the schemas). */
static const int16_t expected_ranges[][3] = {
    {0, 0, 13},  {1, 0, 18},  {2, 0, 11}, {3, 0, 13},  {8, 0, 10}, {9, 0, 10},
    {10, 0, 6},  {11, 0, 9},  {12, 0, 4}, {13, 0, 5},  {14, 0, 5}, {15, 0, 6},
    {16, 0, 5},  {17, 0, 1},  {18, 0, 5}, {19, 0, 7},  {20, 0, 6}, {21, 0, 2},
    {22, 0, 5},  {23, 0, 4},  {24, 0, 5}, {25, 0, 4},  {26, 0, 5}, {28, 0, 6},
    {29, 0, 3},  {30, 0, 3},  {31, 0, 3}, {32, 0, 4},  {33, 0, 2}, {36, 0, 2},
    {37, 0, 3},  {42, 0, 3},  {44, 0, 1}, {47, 0, 0},  {60, 0, 2}, {61, 0, 0},
    {65, 0, 0},  {66, 0, 2},  {68, 0, 1}, {69, 0, 1},  {88, 0, 1}, {89, 0, 1},
    {93, 0, 0},
};

static void be16(kc_buf_t *b, int v)
{
    uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    kc_buf_append(b, x, 2);
}

static void be32(kc_buf_t *b, int32_t v)
{
    uint8_t x[4] = {(uint8_t)((uint32_t)v >> 24), (uint8_t)((uint32_t)v >> 16),
                    (uint8_t)((uint32_t)v >> 8), (uint8_t)v};
    kc_buf_append(b, x, 4);
}

/*
 * Sends one request of api key/version whose body is in body and returns a
 * reader over the response body (after the correlation id and, for a
 * flexible response header, its tagged fields), copied into arena.
 */
static kc_reader_t roundtrip(fx_t *fx, int16_t key, int16_t version, const kc_buf_t *body,
                             kc_arena_t *arena)
{
    const kc_api_entry_t *e = kc_api_find(key);
    assert_non_null(e);
    bool flexible = version >= e->flexible_min;
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    header(&req, key, version, 77, flexible);
    kc_buf_append(&req, body->data, body->len);
    send_all(fx, &req);
    read_frame(fx, &resp);
    uint8_t *copy = kc_arena_alloc(arena, resp.len);
    memcpy(copy, resp.data, resp.len);
    kc_reader_t r;
    kc_reader_init(&r, copy, resp.len);
    assert_int_equal(kc_read_int32(&r), 77);
    if (flexible && key != 18) /* ApiVersions answers with header v0 */
        assert_int_equal(kc_read_uvarint(&r), 0);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    return r;
}

static void test_api_versions_v0_bytes(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_buf_t req, resp, want;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    kc_buf_init(&want);
    header(&req, 18, 0, 7, false);
    send_all(fx, &req);
    read_frame(fx, &resp);
    be32(&want, 7);
    be16(&want, 0);
    be32(&want, (int32_t)KC_ARRAY_LEN(expected_ranges));
    for (size_t i = 0; i < KC_ARRAY_LEN(expected_ranges); i++)
        for (int k = 0; k < 3; k++)
            be16(&want, expected_ranges[i][k]);
    assert_int_equal(resp.len, want.len);
    assert_memory_equal(resp.data, want.data, want.len);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    kc_buf_deinit(&want);
    fx_free(fx);
}

/* One feature of an ApiVersions answer: compact name, two int16 (min and
 * max, or the finalized max and min levels), no tagged fields. */
static void feature(kc_buf_t *b, const char *name, int a, int c)
{
    uint8_t n = (uint8_t)(strlen(name) + 1);
    kc_buf_append(b, &n, 1);
    kc_buf_append(b, name, strlen(name));
    be16(b, a);
    be16(b, c);
    kc_buf_append(b, "\0", 1);
}

/* A tagged field: tag, size, value (sizes below 128). */
static void tagged(kc_buf_t *b, uint8_t tag, const kc_buf_t *value)
{
    uint8_t size = (uint8_t)value->len;
    kc_buf_append(b, &tag, 1);
    kc_buf_append(b, &size, 1);
    kc_buf_append(b, value->data, value->len);
}

static void test_api_versions_v3_bytes_header_v0(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_buf_t req, resp, want;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    kc_buf_init(&want);
    header(&req, 18, 3, 9, true);
    kc_write_str(&req, kc_str("librdkafka"), true);
    kc_write_str(&req, kc_str("2.0.2"), true);
    kc_write_uvarint(&req, 0);
    send_all(fx, &req);
    read_frame(fx, &resp);
    be32(&want, 9); /* header v0: no tagged section even though the body is flexible */
    be16(&want, 0);
    uint8_t count = (uint8_t)(KC_ARRAY_LEN(expected_ranges) + 1);
    kc_buf_append(&want, &count, 1);
    for (size_t i = 0; i < KC_ARRAY_LEN(expected_ranges); i++) {
        for (int k = 0; k < 3; k++)
            be16(&want, expected_ranges[i][k]);
        kc_buf_append(&want, "\0", 1);
    }
    be32(&want, 0); /* throttle */
    /* Tagged fields: SupportedFeatures (before v4 the features of minimum 0
     * are left out: metadata.version alone), FinalizedFeaturesEpoch 1,
     * FinalizedFeatures (the levels above 0). */
    kc_buf_append(&want, "\3", 1);
    kc_buf_t f;
    kc_buf_init(&f);
    kc_buf_append(&f, "\2", 1);
    feature(&f, "metadata.version", 33, 33);
    tagged(&want, 0, &f);
    kc_buf_append(&want, "\1\x08\0\0\0\0\0\0\0\1", 10);
    kc_buf_reset(&f);
    kc_buf_append(&f, "\5", 1);
    feature(&f, "group.version", 1, 1);
    feature(&f, "metadata.version", 33, 33);
    feature(&f, "streams.version", 1, 1);
    feature(&f, "transaction.version", 2, 2);
    tagged(&want, 2, &f);
    kc_buf_deinit(&f);
    assert_int_equal(resp.len, want.len);
    assert_memory_equal(resp.data, want.data, want.len);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    kc_buf_deinit(&want);
    fx_free(fx);
}

/* ApiVersions v4+: Kafka 4.4's features as kcoord claims them (those it
 * implements supported 0-1 and finalized at 1, metadata.version 33, the
 * others supported 0-0 and not finalized), with a finalized features
 * epoch; none in an error answer. */
static void test_api_versions_v4_features(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_api_versions_request_t rq;
    kc_api_versions_request_init(&rq);
    rq.client_software_name = kc_str("kcoord-test");
    rq.client_software_version = kc_str("1.0");
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_api_versions_request_encode(&body, 4, &rq), 0);
    kc_reader_t r = roundtrip(fx, 18, 4, &body, &arena);
    kc_api_versions_response_t m;
    kc_api_versions_response_init(&m);
    assert_int_equal(kc_api_versions_response_decode(&r, 4, &arena, &m), 0);
    assert_int_equal(m.error_code, 0);
    static const struct {
        const char *name;
        int16_t min, max;
    } supported[] = {{"group.version", 0, 1},      {"kraft.version", 0, 0},
                     {"metadata.version", 33, 33}, {"share.version", 0, 0},
                     {"streams.version", 0, 1},    {"transaction.version", 0, 2},
                     {"eligible.leader.replicas.version", 0, 0}};
    assert_int_equal(m.supported_features.count, KC_ARRAY_LEN(supported));
    for (size_t i = 0; i < KC_ARRAY_LEN(supported); i++) {
        assert_true(kc_str_eq_cstr(m.supported_features.items[i].name, supported[i].name));
        assert_int_equal(m.supported_features.items[i].min_version, supported[i].min);
        assert_int_equal(m.supported_features.items[i].max_version, supported[i].max);
    }
    assert_int_equal(m.finalized_features.count, 4);
    assert_true(kc_str_eq_cstr(m.finalized_features.items[0].name, "group.version"));
    assert_int_equal(m.finalized_features.items[0].min_version_level, 1);
    assert_int_equal(m.finalized_features.items[0].max_version_level, 1);
    assert_true(kc_str_eq_cstr(m.finalized_features.items[1].name, "metadata.version"));
    assert_int_equal(m.finalized_features.items[1].min_version_level, 33);
    assert_int_equal(m.finalized_features.items[1].max_version_level, 33);
    assert_true(kc_str_eq_cstr(m.finalized_features.items[2].name, "streams.version"));
    /* transaction.version 2: the Java producer's KIP-890 transactions. */
    assert_true(kc_str_eq_cstr(m.finalized_features.items[3].name, "transaction.version"));
    assert_int_equal(m.finalized_features.items[3].min_version_level, 2);
    assert_int_equal(m.finalized_features.items[3].max_version_level, 2);
    assert_int_equal(m.finalized_features_epoch, 1);
    assert_false(m.zk_migration_ready);
    /* An invalid request is answered without features. */
    kc_buf_reset(&body);
    rq.client_software_name = kc_str("-bad");
    assert_int_equal(kc_api_versions_request_encode(&body, 4, &rq), 0);
    r = roundtrip(fx, 18, 4, &body, &arena);
    kc_api_versions_response_init(&m);
    assert_int_equal(kc_api_versions_response_decode(&r, 4, &arena, &m), 0);
    assert_int_equal(m.error_code, 42);
    assert_int_equal(m.supported_features.count, 0);
    assert_int_equal(m.finalized_features.count, 0);
    assert_int_equal(m.finalized_features_epoch, -1);
    kc_buf_deinit(&body);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void test_api_versions_v3_bad_software_name_is_invalid_request(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    header(&req, 18, 3, 4, true);
    kc_write_str(&req, kc_str("-bad"), true);
    kc_write_str(&req, kc_str("1.0"), true);
    kc_write_uvarint(&req, 0);
    send_all(fx, &req);
    read_frame(fx, &resp);
    static const uint8_t want[] = {0, 0, 0, 4, 0, 42, 1, 0, 0, 0, 0, 0};
    assert_int_equal(resp.len, sizeof(want));
    assert_memory_equal(resp.data, want, sizeof(want));
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    fx_free(fx);
}

static void test_api_versions_unsupported_version_fallback(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    header(&req, 18, 127, 0x01020304, true);
    kc_buf_append(&req, "\xff\xfe\xfd future body", 15);
    send_all(fx, &req);
    read_frame(fx, &resp);
    static const uint8_t want[] = {1, 2, 3, 4, 0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 5};
    assert_int_equal(resp.len, sizeof(want));
    assert_memory_equal(resp.data, want, sizeof(want));
    /* The connection stays usable: a v0 request right after is answered. */
    kc_buf_reset(&req);
    header(&req, 18, 0, 5, false);
    send_all(fx, &req);
    read_frame(fx, &resp);
    assert_memory_equal(resp.data, "\0\0\0\5\0\0", 6);
    /* A negative version is unsupported too (RequestContext treats every
     * unsupported ApiVersions version alike): same v0 fallback. */
    kc_buf_reset(&req);
    header(&req, 18, -1, 0x01020304, false);
    send_all(fx, &req);
    read_frame(fx, &resp);
    assert_int_equal(resp.len, sizeof(want));
    assert_memory_equal(resp.data, want, sizeof(want));
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
    fx_free(fx);
}

static void metadata_v1(fx_t *fx, int32_t corr, const char *topic, kc_arena_t *arena,
                        kc_metadata_response_t *out)
{
    kc_buf_t req, resp;
    kc_buf_init(&req);
    kc_buf_init(&resp);
    header(&req, 3, 1, corr, false);
    kc_write_array_len(&req, 1, false);
    kc_write_str(&req, kc_str(topic), false);
    send_all(fx, &req);
    read_frame(fx, &resp);
    kc_reader_t r;
    kc_reader_init(&r, resp.data, resp.len);
    assert_int_equal(kc_read_int32(&r), corr);
    /* Keep the bytes alive in the arena: decoded strings are views. */
    uint8_t *copy = kc_arena_alloc(arena, resp.len);
    memcpy(copy, resp.data, resp.len);
    kc_reader_init(&r, copy + 4, resp.len - 4);
    kc_metadata_response_init(out);
    assert_int_equal(kc_metadata_response_decode(&r, 1, arena, out), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    kc_buf_deinit(&req);
    kc_buf_deinit(&resp);
}

static kc_metadata_request_topic_t named(const char *name)
{
    kc_metadata_request_topic_t t;
    memset(&t, 0, sizeof(t));
    t.name = kc_str(name);
    return t;
}

static kc_metadata_request_topic_t with_id(kc_uuid_t id)
{
    kc_metadata_request_topic_t t;
    memset(&t, 0, sizeof(t));
    t.name = KC_STR_NULL;
    t.topic_id = id;
    return t;
}

static void test_metadata_auto_creates_topic(void **state)
{
    (void)state;
    fx_t *fx = fx_new("num.partitions=3");
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_metadata_response_t m;
    metadata_v1(fx, 1, "orders", &arena, &m);
    assert_int_equal(m.brokers.count, 1);
    assert_int_equal(m.brokers.items[0].node_id, 1);
    assert_int_equal(m.controller_id, 1);
    assert_int_equal(m.topics.count, 1);
    assert_true(kc_str_eq_cstr(m.topics.items[0].name, "orders"));
    /* Kafka 4 reports a topic it sends for creation as UNKNOWN_TOPIC_OR_PARTITION. */
    assert_int_equal(m.topics.items[0].error_code, 3);
    metadata_v1(fx, 2, "orders", &arena, &m);
    assert_int_equal(m.topics.count, 1);
    assert_int_equal(m.topics.items[0].error_code, 0);
    assert_int_equal(m.topics.items[0].partitions.count, 3);
    for (int32_t p = 0; p < 3; p++) {
        assert_int_equal(m.topics.items[0].partitions.items[p].partition_index, p);
        assert_int_equal(m.topics.items[0].partitions.items[p].leader_id, 1);
    }
    /* A bad name is never created. */
    metadata_v1(fx, 3, "bad/name", &arena, &m);
    assert_int_equal(m.topics.items[0].error_code, 17);
    /* Invalid names first, then the topics sent for creation in the order of
     * a java.util.HashMap ("zeta" in bucket 0, "alpha" in 7); neither the
     * offsets topic nor a colliding name is created. */
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("x.y"), 1, NULL), 0);
    kc_metadata_request_topic_t ts[] = {named("alpha"), named("bad name"), named("zeta"),
                                        named("__consumer_offsets"), named("x_y")};
    kc_metadata_request_t rq;
    kc_metadata_request_init(&rq);
    rq.topics.items = ts;
    rq.topics.count = 5;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_metadata_request_encode(&body, 4, &rq), 0);
    kc_reader_t r = roundtrip(fx, 3, 4, &body, &arena);
    kc_metadata_response_init(&m);
    assert_int_equal(kc_metadata_response_decode(&r, 4, &arena, &m), 0);
    kc_buf_deinit(&body);
    assert_int_equal(m.topics.count, 5);
    assert_true(kc_str_eq_cstr(m.topics.items[0].name, "bad name"));
    assert_int_equal(m.topics.items[0].error_code, 17);
    for (int i = 1; i < 5; i++)
        assert_int_equal(m.topics.items[i].error_code, 3);
    assert_non_null(kc_topics_find(fx->srv->topics, kc_str("alpha")));
    assert_non_null(kc_topics_find(fx->srv->topics, kc_str("zeta")));
    assert_null(kc_topics_find(fx->srv->topics, kc_str("__consumer_offsets")));
    assert_null(kc_topics_find(fx->srv->topics, kc_str("x_y")));
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void test_metadata_without_auto_creation(void **state)
{
    (void)state;
    fx_t *fx = fx_new("auto.create.topics.enable=false");
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_metadata_response_t m;
    metadata_v1(fx, 1, "orders", &arena, &m);
    assert_int_equal(m.topics.items[0].error_code, 3);
    metadata_v1(fx, 2, "orders", &arena, &m);
    assert_int_equal(m.topics.items[0].error_code, 3);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void find_coordinator_v4(fx_t *fx, int8_t key_type, kc_str_t key, kc_arena_t *arena,
                                kc_find_coordinator_response_t *out)
{
    kc_find_coordinator_request_t rq;
    kc_find_coordinator_request_init(&rq);
    rq.key_type = key_type;
    rq.coordinator_keys.items = &key;
    rq.coordinator_keys.count = 1;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_find_coordinator_request_encode(&body, 4, &rq), 0);
    kc_reader_t r = roundtrip(fx, 10, 4, &body, arena);
    kc_find_coordinator_response_init(out);
    assert_int_equal(kc_find_coordinator_response_decode(&r, 4, arena, out), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    kc_buf_deinit(&body);
}

/* FindCoordinator v4+: an empty (not null) message for a found coordinator
 * and for errors of a known key type; an unknown key type carries the
 * error's message, as Kafka's request-wide error answer does. */
static void test_find_coordinator_v4_error_messages(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_find_coordinator_response_t m;
    find_coordinator_v4(fx, 0, kc_str("g1"), &arena, &m);
    assert_int_equal(m.coordinators.count, 1);
    assert_int_equal(m.coordinators.items[0].error_code, 0);
    assert_int_equal(m.coordinators.items[0].node_id, 1);
    assert_false(kc_str_is_null(m.coordinators.items[0].error_message));
    assert_int_equal(m.coordinators.items[0].error_message.len, 0);
    /* SHARE before v6: INVALID_REQUEST, still an empty message. */
    find_coordinator_v4(fx, 2, kc_str("g1"), &arena, &m);
    assert_int_equal(m.coordinators.items[0].error_code, 42);
    assert_false(kc_str_is_null(m.coordinators.items[0].error_message));
    assert_int_equal(m.coordinators.items[0].error_message.len, 0);
    find_coordinator_v4(fx, 3, kc_str("g1"), &arena, &m);
    assert_int_equal(m.coordinators.items[0].error_code, 42);
    assert_int_equal(m.coordinators.items[0].node_id, -1);
    assert_int_equal(m.coordinators.items[0].port, -1);
    assert_true(m.coordinators.items[0].error_message.len > 0);
    assert_non_null(strstr(m.coordinators.items[0].error_message.ptr, "malformed"));
    kc_arena_deinit(&arena);
    fx_free(fx);
}

/* Metadata at version v for topics (NULL name: by id), decoded into out. */
static void metadata_call(fx_t *fx, int16_t v, kc_metadata_request_topic_t *topics, int32_t n,
                          bool topic_ops, bool cluster_ops, kc_arena_t *arena,
                          kc_metadata_response_t *out)
{
    kc_metadata_request_t rq;
    kc_metadata_request_init(&rq);
    rq.topics.items = topics;
    rq.topics.count = n;
    rq.allow_auto_topic_creation = false;
    rq.include_topic_authorized_operations = topic_ops;
    rq.include_cluster_authorized_operations = cluster_ops;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_metadata_request_encode(&body, v, &rq), 0);
    kc_reader_t r = roundtrip(fx, 3, v, &body, arena);
    kc_metadata_response_init(out);
    assert_int_equal(kc_metadata_response_decode(&r, v, arena, out), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    kc_buf_deinit(&body);
}

/*
 * Metadata answers in KafkaApis' order: known topics first (request order),
 * then the unknown ones in the order of Java's HashSet of the requested
 * names; unknown topics get authorized operations when asked, Kafka's
 * internal names are flagged internal even though they do not exist, and
 * the cluster's operations include CREATE.
 */
static void test_metadata_order_and_unknown_topics(void **state)
{
    (void)state;
    fx_t *fx = fx_new("auto.create.topics.enable=false");
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("known"), 1, &created), 0);
    kc_metadata_response_t m;
    /* Buckets of a 16-slot table: "zeta" 0, "alpha" 7, "m" 13 (Java hashes). */
    kc_metadata_request_topic_t ts[] = {named("m"), named("zeta"), named("known"),
                                        named("alpha"), named("zeta")};
    metadata_call(fx, 9, ts, 5, true, false, &arena, &m);
    assert_int_equal(m.topics.count, 4);
    assert_true(kc_str_eq_cstr(m.topics.items[0].name, "known"));
    assert_int_equal(m.topics.items[0].error_code, 0);
    assert_true(kc_str_eq_cstr(m.topics.items[1].name, "zeta"));
    assert_true(kc_str_eq_cstr(m.topics.items[2].name, "alpha"));
    assert_true(kc_str_eq_cstr(m.topics.items[3].name, "m"));
    for (int i = 1; i < 4; i++) {
        assert_int_equal(m.topics.items[i].error_code, 3);
        assert_int_equal(m.topics.items[i].topic_authorized_operations, 3576);
    }
    /* Beyond four names, Kafka's Scala set of them: hash trie order. */
    const char *seven[] = {"t0", "t1", "t2", "t3", "t4", "t5", "t6"};
    kc_metadata_request_topic_t many[7];
    for (int i = 0; i < 7; i++) {
        assert_int_equal(kc_topics_create(fx->srv->topics, kc_str(seven[i]), 1, NULL), 0);
        many[i] = named(seven[i]);
    }
    metadata_call(fx, 9, many, 7, false, false, &arena, &m);
    const char *trie_order[] = {"t0", "t3", "t6", "t2", "t1", "t4", "t5"};
    assert_int_equal(m.topics.count, 7);
    for (int i = 0; i < 7; i++)
        assert_true(kc_str_eq_cstr(m.topics.items[i].name, trie_order[i]));
    metadata_call(fx, 9, many, 4, false, false, &arena, &m);
    for (int i = 0; i < 4; i++) /* up to four: request order */
        assert_true(kc_str_eq_cstr(m.topics.items[i].name, seven[i]));
    kc_metadata_request_topic_t internal[] = {named("__consumer_offsets")};
    metadata_call(fx, 9, internal, 1, false, true, &arena, &m);
    assert_int_equal(m.topics.items[0].error_code, 3);
    assert_true(m.topics.items[0].is_internal);
    assert_int_equal(m.topics.items[0].topic_authorized_operations, INT32_MIN);
    assert_int_equal(m.cluster_authorized_operations, 8096);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

/*
 * Topic ids: before v12 a null name or an id fails the request with
 * INVALID_REQUEST (no brokers, no cluster id); from v12 one id makes the
 * request by id and its names are ignored, unknown ids answered first; a
 * null name without any id fails with UNKNOWN_SERVER_ERROR.
 */
static void test_metadata_topic_ids(void **state)
{
    (void)state;
    fx_t *fx = fx_new("auto.create.topics.enable=false");
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("known"), 2, &created), 0);
    kc_uuid_t id = created->id, unknown;
    memset(&unknown, 7, sizeof(unknown));
    kc_metadata_response_t m;

    kc_metadata_request_topic_t v10[] = {with_id(id)};
    metadata_call(fx, 10, v10, 1, false, false, &arena, &m);
    assert_int_equal(m.brokers.count, 0);
    assert_true(kc_str_is_null(m.cluster_id));
    assert_int_equal(m.controller_id, -1);
    assert_int_equal(m.topics.count, 1);
    assert_int_equal(m.topics.items[0].error_code, 42);
    assert_true(kc_str_eq_cstr(m.topics.items[0].name, ""));

    kc_metadata_request_topic_t mixed[] = {named("known"), with_id(unknown), with_id(id)};
    metadata_call(fx, 12, mixed, 3, false, false, &arena, &m);
    assert_int_equal(m.brokers.count, 1);
    assert_int_equal(m.topics.count, 2);
    assert_int_equal(m.topics.items[0].error_code, 100);
    assert_true(kc_str_is_null(m.topics.items[0].name));
    assert_int_equal(m.topics.items[1].error_code, 0);
    assert_true(kc_str_eq_cstr(m.topics.items[1].name, "known"));
    assert_int_equal(m.topics.items[1].partitions.count, 2);

    kc_uuid_t zero;
    memset(&zero, 0, sizeof(zero));
    kc_metadata_request_topic_t null_name[] = {named("known"), with_id(zero)};
    metadata_call(fx, 13, null_name, 2, false, false, &arena, &m);
    assert_int_equal(m.error_code, -1);
    assert_int_equal(m.brokers.count, 0);
    assert_int_equal(m.topics.count, 2);
    assert_int_equal(m.topics.items[1].error_code, -1);
    assert_true(kc_str_eq_cstr(m.topics.items[1].name, ""));
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static kc_create_topics_request_creatable_topic_t new_topic(const char *name, int32_t parts,
                                                            int16_t rf)
{
    kc_create_topics_request_creatable_topic_t t;
    memset(&t, 0, sizeof(t));
    t.name = kc_str(name);
    t.num_partitions = parts;
    t.replication_factor = rf;
    return t;
}

static void create_topics_v7(fx_t *fx, kc_create_topics_request_creatable_topic_t *ts, int32_t n,
                             bool validate_only, kc_arena_t *arena,
                             kc_create_topics_response_t *out)
{
    kc_create_topics_request_t rq;
    kc_create_topics_request_init(&rq);
    rq.topics.items = ts;
    rq.topics.count = n;
    rq.validate_only = validate_only;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_create_topics_request_encode(&body, 7, &rq), 0);
    kc_reader_t r = roundtrip(fx, 19, 7, &body, arena);
    kc_create_topics_response_init(out);
    assert_int_equal(kc_create_topics_response_decode(&r, 7, arena, out), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    kc_buf_deinit(&body);
}

static void expect_result(const kc_create_topics_response_t *m, int32_t i, const char *name,
                          int16_t err, const char *msg)
{
    assert_true(i < m->topics.count);
    const kc_create_topics_response_creatable_topic_result_t *r = &m->topics.items[i];
    if (!kc_str_eq_cstr(r->name, name) || r->error_code != err ||
        (msg ? !kc_str_eq_cstr(r->error_message, msg) : !kc_str_is_null(r->error_message)))
        fail_msg("result %d: %.*s %d %.*s", i, (int)r->name.len, r->name.ptr, r->error_code,
                 (int)KC_MAX(r->error_message.len, 0),
                 r->error_message.ptr ? r->error_message.ptr : "");
}

/*
 * CreateTopics as Kafka's controller answers it: checks in Kafka's order
 * (name, existence, configs, replication factor, partitions), collisions
 * only with topics that existed before the request, duplicated names after
 * the other results in the order of Kafka's hash set, __cluster_metadata
 * refused, __consumer_offsets existing, an id for a validated topic, and
 * every topic failed when the request asks for more than 10000 partitions.
 */
static void test_create_topics_kafka_order_and_messages(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_create_topics_response_t m;
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("a.b"), 1, &created), 0);

    kc_create_topics_request_creatable_topic_config_t bad_cfg[] = {
        {kc_str("retention.ms"), kc_str("soon")}};
    kc_create_topics_request_creatable_topic_config_t null_cfg[] = {
        {kc_str("x.unknown"), kc_str("1")},
        {kc_str("retention.ms"), KC_STR_NULL},
        {kc_str("segment.ms"), KC_STR_NULL}};
    kc_create_topics_request_creatable_topic_t ts[] = {
        new_topic("d-zeta", 1, 1),   new_topic("a_b", 1, 1),       new_topic("a b", 1, 1),
        new_topic("d-alpha", 1, 1),  new_topic("rf-first", 0, 0),  new_topic("cfg-first", 0, 1),
        new_topic("nulls", 1, 1),    new_topic("d-zeta", 2, 1),    new_topic("d-alpha", 1, 1),
        new_topic("__cluster_metadata", 1, 1), new_topic("__consumer_offsets", 1, 1),
        new_topic("x.y", 1, 1),      new_topic("x_y", 1, 1),
    };
    ts[5].configs.items = bad_cfg;
    ts[5].configs.count = 1;
    ts[6].configs.items = null_cfg;
    ts[6].configs.count = 3;
    create_topics_v7(fx, ts, (int32_t)KC_ARRAY_LEN(ts), false, &arena, &m);
    assert_int_equal(m.topics.count, 11);
    expect_result(&m, 0, "a_b", 17, "Topic 'a_b' collides with existing topic: a.b");
    expect_result(&m, 1, "a b", 17,
                  "Topic name is invalid: 'a b' contains one or more characters other than "
                  "ASCII alphanumerics, '.', '_' and '-'");
    expect_result(&m, 2, "rf-first", 38,
                  "Replication factor must be larger than 0, or -1 to use the default value.");
    expect_result(&m, 3, "cfg-first", 40,
                  "Invalid value soon for configuration retention.ms: Not a number of type LONG");
    expect_result(&m, 4, "nulls", 40,
                  "Null value not supported for topic configs: retention.ms,segment.ms");
    expect_result(&m, 5, "__consumer_offsets", 36, "Topic '__consumer_offsets' already exists.");
    /* Created in the same request: no collision. */
    expect_result(&m, 6, "x.y", 0, NULL);
    expect_result(&m, 7, "x_y", 0, NULL);
    /* Java HashSet buckets of "d-zeta" and "d-alpha". */
    expect_result(&m, 8, "d-zeta", 42, "Duplicate topic name.");
    expect_result(&m, 9, "d-alpha", 42, "Duplicate topic name.");
    assert_int_equal(m.topics.items[8].num_partitions, -1);
    expect_result(&m, 10, "__cluster_metadata", 42,
                  "Creation of internal topic __cluster_metadata is prohibited.");

    kc_create_topics_request_creatable_topic_t meta[] = {new_topic("__cluster_metadata", 1, 1)};
    create_topics_v7(fx, meta, 1, false, &arena, &m);
    expect_result(&m, 0, "__cluster_metadata", 42,
                  "Creation of internal topic __cluster_metadata is prohibited.");

    kc_create_topics_request_creatable_topic_t v[] = {new_topic("validated", 2, 1)};
    create_topics_v7(fx, v, 1, true, &arena, &m);
    expect_result(&m, 0, "validated", 0, NULL);
    kc_uuid_t zero;
    memset(&zero, 0, sizeof(zero));
    assert_memory_not_equal(&m.topics.items[0].topic_id, &zero, sizeof(zero));
    assert_null(kc_topics_find(fx->srv->topics, kc_str("validated")));

    /* A timeout of 0 or less: a deadline already passed, nothing created. */
    kc_create_topics_request_t trq;
    kc_create_topics_request_init(&trq);
    kc_create_topics_request_creatable_topic_t late[] = {new_topic("late", 1, 1),
                                                         new_topic("late", 1, 1)};
    trq.topics.items = late;
    trq.topics.count = 2;
    trq.timeout_ms = 0;
    kc_buf_t tb;
    kc_buf_init(&tb);
    assert_int_equal(kc_create_topics_request_encode(&tb, 7, &trq), 0);
    kc_reader_t tr = roundtrip(fx, 19, 7, &tb, &arena);
    kc_create_topics_response_init(&m);
    assert_int_equal(kc_create_topics_response_decode(&tr, 7, &arena, &m), 0);
    kc_buf_deinit(&tb);
    assert_int_equal(m.topics.count, 2);
    expect_result(&m, 0, "late", 7, NULL);
    expect_result(&m, 1, "late", 7, NULL);
    assert_null(kc_topics_find(fx->srv->topics, kc_str("late")));

    kc_create_topics_request_creatable_topic_t big[] = {new_topic("big1", 6000, 1),
                                                        new_topic("big2", 5000, 1)};
    create_topics_v7(fx, big, 2, false, &arena, &m);
    expect_result(&m, 0, "big1", 44, "Excessively large number of partitions per request.");
    expect_result(&m, 1, "big2", 44, "Excessively large number of partitions per request.");
    assert_null(kc_topics_find(fx->srv->topics, kc_str("big1")));
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void list_offsets_call(fx_t *fx, int16_t v, const char *topic,
                              kc_list_offsets_request_partition_t *ps, int32_t n, int8_t isolation,
                              kc_arena_t *arena, kc_list_offsets_response_t *out)
{
    kc_list_offsets_request_topic_t t;
    memset(&t, 0, sizeof(t));
    t.name = kc_str(topic);
    t.partitions.items = ps;
    t.partitions.count = n;
    kc_list_offsets_request_t rq;
    kc_list_offsets_request_init(&rq);
    rq.replica_id = -1;
    rq.isolation_level = isolation;
    rq.topics.items = &t;
    rq.topics.count = 1;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_list_offsets_request_encode(&body, v, &rq), 0);
    kc_reader_t r = roundtrip(fx, 2, v, &body, arena);
    kc_list_offsets_response_init(out);
    assert_int_equal(kc_list_offsets_response_decode(&r, v, arena, out), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    kc_buf_deinit(&body);
}

static kc_list_offsets_request_partition_t lo_part(int32_t p, int64_t ts, int32_t epoch)
{
    kc_list_offsets_request_partition_t x = {p, epoch, ts, 1};
    return x;
}

/*
 * ListOffsets as ReplicaManager.fetchOffset answers it: special timestamps
 * newer than the request's version (and unknown negative ones) are
 * UNSUPPORTED_VERSION; the leader epoch is checked (newer unknown, older
 * fenced) and reported for earliest and latest even on an empty partition;
 * a partition listed twice is one INVALID_REQUEST entry; partitions come in
 * the iteration order of Kafka's Scala hash map; an unknown isolation level
 * fails every partition with UNKNOWN_SERVER_ERROR.
 */
static void test_list_offsets_kafka_answers(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("lo"), 4, &created), 0);
    kc_list_offsets_response_t m;
    kc_list_offsets_request_partition_t a[] = {lo_part(0, -3, -1)};
    list_offsets_call(fx, 6, "lo", a, 1, 0, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].error_code, 35);
    list_offsets_call(fx, 7, "lo", a, 1, 0, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].error_code, 0);
    a[0] = lo_part(0, -7, -1);
    list_offsets_call(fx, 11, "lo", a, 1, 0, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].error_code, 35);
    assert_int_equal(m.topics.items[0].partitions.items[0].offset, -1);

    kc_list_offsets_request_partition_t e[] = {lo_part(0, -2, -1), lo_part(1, -1, 0),
                                               lo_part(2, -1, 1), lo_part(3, -2, -2)};
    list_offsets_call(fx, 9, "lo", e, 4, 0, &arena, &m);
    assert_int_equal(m.topics.count, 1);
    assert_int_equal(m.topics.items[0].partitions.count, 4);
    /* The Scala map's order of lo-0..lo-3: 3, 2, 1, 0. */
    const kc_list_offsets_response_partition_response_t *r = m.topics.items[0].partitions.items;
    assert_int_equal(r[0].partition_index, 3);
    assert_int_equal(r[0].error_code, 74); /* FENCED_LEADER_EPOCH */
    assert_int_equal(r[1].partition_index, 2);
    assert_int_equal(r[1].error_code, 75); /* UNKNOWN_LEADER_EPOCH */
    assert_int_equal(r[2].partition_index, 1);
    assert_int_equal(r[2].error_code, 0);
    assert_int_equal(r[2].leader_epoch, 0);
    assert_int_equal(r[3].partition_index, 0);
    assert_int_equal(r[3].offset, 0);
    assert_int_equal(r[3].leader_epoch, 0); /* earliest of an empty partition */

    kc_list_offsets_request_partition_t d[] = {lo_part(1, -1, -1), lo_part(1, -2, -1),
                                               lo_part(0, -1, -1)};
    list_offsets_call(fx, 9, "lo", d, 3, 0, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.count, 2);
    r = m.topics.items[0].partitions.items;
    assert_int_equal(r[0].partition_index, 1);
    assert_int_equal(r[0].error_code, 42);
    assert_int_equal(r[0].offset, -1);
    assert_int_equal(r[1].partition_index, 0);
    assert_int_equal(r[1].error_code, 0);

    list_offsets_call(fx, 9, "lo", d, 3, 2, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.count, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(m.topics.items[0].partitions.items[i].error_code, -1);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

/*
 * Fetch: partitions refused before reading (unknown partition or topic)
 * come after those read, with an empty aborted-transactions list; a failed
 * read (offset out of range) reports no offsets.
 */
static void test_fetch_refused_partitions_last(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("f"), 1, &created), 0);
    kc_fetch_request_partition_t ps[3];
    memset(ps, 0, sizeof(ps));
    int32_t idx[] = {3, 0, 0};
    int64_t off[] = {0, 0, 5};
    for (int i = 0; i < 3; i++) {
        ps[i].partition = idx[i];
        ps[i].current_leader_epoch = -1;
        ps[i].fetch_offset = off[i];
        ps[i].last_fetched_epoch = -1;
        ps[i].log_start_offset = -1;
        ps[i].partition_max_bytes = 1 << 20;
    }
    kc_fetch_request_topic_t t;
    memset(&t, 0, sizeof(t));
    t.topic = kc_str("f");
    t.partitions.items = ps;
    t.partitions.count = 2;
    kc_fetch_request_t rq;
    kc_fetch_request_init(&rq);
    rq.replica_id = -1;
    rq.max_wait_ms = 0;
    rq.min_bytes = 1;
    rq.topics.items = &t;
    rq.topics.count = 1;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_fetch_request_encode(&body, 11, &rq), 0);
    kc_reader_t r = roundtrip(fx, 1, 11, &body, &arena);
    kc_fetch_response_t m;
    kc_fetch_response_init(&m);
    assert_int_equal(kc_fetch_response_decode(&r, 11, &arena, &m), 0);
    /* One topic entry: the partitions of one topic stay together. */
    assert_int_equal(m.responses.count, 1);
    assert_int_equal(m.responses.items[0].partitions.count, 2);
    assert_int_equal(m.responses.items[0].partitions.items[0].partition_index, 0);
    assert_int_equal(m.responses.items[0].partitions.items[0].error_code, 0);
    assert_int_equal(m.responses.items[0].partitions.items[0].aborted_transactions.count, -1);
    assert_int_equal(m.responses.items[0].partitions.items[1].partition_index, 3);
    assert_int_equal(m.responses.items[0].partitions.items[1].error_code, 3);
    assert_int_equal(m.responses.items[0].partitions.items[1].aborted_transactions.count, 0);

    t.partitions.items = &ps[2];
    t.partitions.count = 1;
    kc_buf_reset(&body);
    assert_int_equal(kc_fetch_request_encode(&body, 11, &rq), 0);
    r = roundtrip(fx, 1, 11, &body, &arena);
    kc_fetch_response_init(&m);
    assert_int_equal(kc_fetch_response_decode(&r, 11, &arena, &m), 0);
    const kc_fetch_response_partition_data_t *p = &m.responses.items[0].partitions.items[0];
    assert_int_equal(p->error_code, 1); /* OFFSET_OUT_OF_RANGE */
    assert_int_equal(p->high_watermark, -1);
    assert_int_equal(p->last_stable_offset, -1);
    assert_int_equal(p->log_start_offset, -1);
    kc_buf_deinit(&body);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void put_be(kc_buf_t *b, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        uint8_t x = (uint8_t)(v >> (8 * i));
        kc_buf_append(b, &x, 1);
    }
}

/* One magic 2 batch of n uncompressed records of 20 bytes, base offset 0. */
static void record_batch(kc_buf_t *out, int n)
{
    kc_buf_t tail;
    kc_buf_init(&tail);
    put_be(&tail, 0, 2);                     /* attributes */
    put_be(&tail, (uint64_t)(n - 1), 4);     /* last offset delta */
    put_be(&tail, 1700000000000ull, 8);      /* base timestamp */
    put_be(&tail, 1700000000000ull, 8);      /* max timestamp */
    put_be(&tail, UINT64_MAX, 8);            /* producer id -1 */
    put_be(&tail, 0xffff, 2);                /* producer epoch -1 */
    put_be(&tail, 0xffffffffu, 4);           /* base sequence -1 */
    put_be(&tail, (uint64_t)n, 4);
    for (int i = 0; i < n; i++) {
        /* length 26, attributes, ts delta 0, offset delta i, null key, value 20, no headers */
        uint8_t head[] = {52, 0, 0, (uint8_t)(2 * i), 1, 40};
        kc_buf_append(&tail, head, sizeof(head));
        kc_buf_append(&tail, "01234567890123456789", 20);
        kc_buf_append(&tail, "\0", 1);
    }
    put_be(out, 0, 8);
    put_be(out, 4 + 1 + 4 + tail.len, 4);
    put_be(out, 0xffffffffu, 4);
    kc_buf_append(out, "\2", 1);
    put_be(out, kc_crc32c(0, tail.data, tail.len), 4);
    kc_buf_append(out, tail.data, tail.len);
    kc_buf_deinit(&tail);
}

static void produce_v7(fx_t *fx, const char *topic, int32_t partition, int n, kc_arena_t *arena)
{
    kc_buf_t batch, body;
    kc_buf_init(&batch);
    kc_buf_init(&body);
    record_batch(&batch, n);
    kc_produce_request_partition_produce_data_t pd = {partition,
                                                      {batch.data, (int32_t)batch.len}};
    kc_produce_request_topic_produce_data_t td;
    memset(&td, 0, sizeof(td));
    td.name = kc_str(topic);
    td.partition_data.items = &pd;
    td.partition_data.count = 1;
    kc_produce_request_t rq;
    kc_produce_request_init(&rq);
    rq.acks = -1;
    rq.timeout_ms = 30000;
    rq.topic_data.items = &td;
    rq.topic_data.count = 1;
    assert_int_equal(kc_produce_request_encode(&body, 7, &rq), 0);
    kc_reader_t r = roundtrip(fx, 0, 7, &body, arena);
    kc_produce_response_t m;
    kc_produce_response_init(&m);
    assert_int_equal(kc_produce_response_decode(&r, 7, arena, &m), 0);
    assert_int_equal(m.responses.items[0].partition_responses.items[0].error_code, 0);
    kc_buf_deinit(&batch);
    kc_buf_deinit(&body);
}

static void fetch_two(fx_t *fx, int16_t v, const char *topic, kc_uuid_t id, int32_t pmax,
                      int8_t isolation, kc_arena_t *arena, kc_fetch_response_t *out)
{
    kc_fetch_request_partition_t ps[2];
    memset(ps, 0, sizeof(ps));
    for (int i = 0; i < 2; i++) {
        ps[i].partition = i;
        ps[i].current_leader_epoch = -1;
        ps[i].last_fetched_epoch = -1;
        ps[i].log_start_offset = -1;
        ps[i].partition_max_bytes = pmax;
    }
    kc_fetch_request_topic_t t;
    memset(&t, 0, sizeof(t));
    if (v >= 13)
        t.topic_id = id;
    else
        t.topic = kc_str(topic);
    t.partitions.items = ps;
    t.partitions.count = 2;
    kc_fetch_request_t rq;
    kc_fetch_request_init(&rq);
    rq.replica_id = -1;
    rq.min_bytes = 1;
    rq.isolation_level = isolation;
    rq.topics.items = &t;
    rq.topics.count = 1;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_fetch_request_encode(&body, v, &rq), 0);
    kc_reader_t r = roundtrip(fx, 1, v, &body, arena);
    kc_fetch_response_init(out);
    assert_int_equal(kc_fetch_response_decode(&r, v, arena, out), 0);
    kc_buf_deinit(&body);
}

/*
 * Fetch byte limits as ReplicaManager.readFromLog applies them: from v3 the
 * first partition with data returns its first batch whatever the limit, and
 * a first batch the limit cuts is left out of later partitions (v0-2 keep
 * the cut bytes). An unknown isolation level fails the request with
 * UNKNOWN_SERVER_ERROR, in every partition before v13.
 */
static void test_fetch_limits_and_isolation(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("mb"), 2, &created), 0);
    kc_uuid_t id = created->id;
    produce_v7(fx, "mb", 0, 3, &arena);
    produce_v7(fx, "mb", 1, 1, &arena);
    kc_fetch_response_t m;
    fetch_two(fx, 4, "mb", id, 10, 0, &arena, &m);
    assert_int_equal(m.responses.items[0].partitions.count, 2);
    assert_true(m.responses.items[0].partitions.items[0].records.len > 10);
    assert_int_equal(m.responses.items[0].partitions.items[1].records.len, 0);
    assert_int_equal(m.responses.items[0].partitions.items[1].high_watermark, 1);
    fetch_two(fx, 2, "mb", id, 10, 0, &arena, &m);
    assert_int_equal(m.responses.items[0].partitions.items[0].records.len, 10);
    assert_int_equal(m.responses.items[0].partitions.items[1].records.len, 10);

    fetch_two(fx, 12, "mb", id, 1 << 20, 2, &arena, &m);
    assert_int_equal(m.error_code, -1);
    assert_int_equal(m.responses.count, 1);
    assert_int_equal(m.responses.items[0].partitions.count, 2);
    assert_int_equal(m.responses.items[0].partitions.items[1].error_code, -1);
    assert_int_equal(m.responses.items[0].partitions.items[1].high_watermark, -1);
    assert_int_equal(m.responses.items[0].partitions.items[1].records.len, 0);
    fetch_two(fx, 13, "mb", id, 1 << 20, 2, &arena, &m);
    assert_int_equal(m.error_code, -1);
    assert_int_equal(m.responses.count, 0);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

/* record_batch as producer pid's transactional batch at sequence 0, its
 * timestamps ts. */
static void txn_batch(kc_buf_t *out, int n, int64_t pid, int64_t ts)
{
    record_batch(out, n);
    uint8_t *b = out->data;
    b[21] = 0;
    b[22] = 0x10; /* isTransactional */
    for (int i = 0; i < 8; i++) {
        b[27 + i] = (uint8_t)((uint64_t)ts >> (56 - 8 * i));
        b[35 + i] = (uint8_t)((uint64_t)ts >> (56 - 8 * i));
        b[43 + i] = (uint8_t)((uint64_t)pid >> (56 - 8 * i));
    }
    memset(b + 51, 0, 6); /* epoch 0, base sequence 0 */
    uint32_t crc = kc_crc32c(0, b + 21, out->len - 21);
    for (int i = 0; i < 4; i++)
        b[17 + i] = (uint8_t)(crc >> (24 - 8 * i));
}

/* Appends straight into the log, as a produce the server let through would. */
static void log_txn_append(fx_t *fx, kc_uuid_t id, int n, int64_t pid, int64_t ts, int64_t want)
{
    kc_buf_t b;
    kc_buf_init(&b);
    txn_batch(&b, n, pid, ts);
    kc_log_append_result_t r;
    assert_int_equal(kc_log_append(fx->srv->log, id, 0, b.data, b.len, 9, ts, &r), 0);
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.base_offset, want);
    kc_buf_deinit(&r.record_errors);
    kc_buf_deinit(&b);
}

static void log_marker(fx_t *fx, kc_uuid_t id, int64_t pid, bool commit, int64_t want)
{
    kc_log_marker_result_t r;
    assert_int_equal(
        kc_log_write_marker(fx->srv->log, id, 0, pid, 0, commit, 0, 0, 1700000000000LL, &r), 0);
    assert_int_equal(r.error_code, 0);
    assert_int_equal(r.offset, want);
}

static void log_commit(fx_t *fx)
{
    assert_int_equal(kc_store_commit(fx->srv->store), 0);
    kc_log_committed(fx->srv->log);
}

static kc_buf_t fetch_iso_body(int16_t v, const char *topic, int64_t offset, int8_t isolation,
                               int32_t max_wait_ms)
{
    kc_fetch_request_partition_t p;
    memset(&p, 0, sizeof(p));
    p.current_leader_epoch = -1;
    p.fetch_offset = offset;
    p.last_fetched_epoch = -1;
    p.log_start_offset = -1;
    p.partition_max_bytes = 1 << 20;
    kc_fetch_request_topic_t t;
    memset(&t, 0, sizeof(t));
    t.topic = kc_str(topic);
    t.partitions.items = &p;
    t.partitions.count = 1;
    kc_fetch_request_t rq;
    kc_fetch_request_init(&rq);
    rq.replica_id = -1;
    rq.min_bytes = 1;
    rq.max_wait_ms = max_wait_ms;
    rq.max_bytes = 1 << 20;
    rq.isolation_level = isolation;
    rq.topics.items = &t;
    rq.topics.count = 1;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_fetch_request_encode(&body, v, &rq), 0);
    return body;
}

static const kc_fetch_response_partition_data_t *fetch_iso(fx_t *fx, int16_t v, const char *topic,
                                                            int64_t offset, int8_t isolation,
                                                            kc_arena_t *arena)
{
    kc_buf_t body = fetch_iso_body(v, topic, offset, isolation, 0);
    kc_reader_t r = roundtrip(fx, 1, v, &body, arena);
    kc_fetch_response_t *m = kc_arena_alloc(arena, sizeof(*m));
    kc_fetch_response_init(m);
    assert_int_equal(kc_fetch_response_decode(&r, v, arena, m), 0);
    kc_buf_deinit(&body);
    assert_int_equal(m->responses.count, 1);
    return &m->responses.items[0].partitions.items[0];
}

/* The base offsets of the batches in records; returns how many. */
static int batch_bases(kc_bytes_t records, int64_t *out, int max)
{
    int n = 0;
    for (size_t pos = 0; pos + 61 <= (size_t)records.len && n < max; n++) {
        const uint8_t *b = records.ptr + pos;
        int64_t base = 0;
        for (int i = 0; i < 8; i++)
            base = (base << 8) | b[i];
        out[n] = base;
        pos += 12 + (((size_t)b[8] << 24) | ((size_t)b[9] << 16) | ((size_t)b[10] << 8) | b[11]);
    }
    return n;
}

/*
 * Fetch and ListOffsets at READ_COMMITTED (KIP-98): a read stops at the last
 * stable offset and lists the aborted transactions of what it returns; the
 * latest offset is the LSO and a record found at or above it is none.
 * READ_UNCOMMITTED reads to the high watermark with no aborted list.
 */
static void test_fetch_and_list_offsets_read_committed(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("tx"), 1, &created), 0);
    kc_uuid_t id = created->id;
    produce_v7(fx, "tx", 0, 2, &arena);                /* 0-1 */
    log_txn_append(fx, id, 2, 100, 1700000000000LL, 2); /* 2-3 */
    log_marker(fx, id, 100, false, 4);                   /* abort */
    log_txn_append(fx, id, 1, 101, 1700000009000LL, 5); /* 5: ongoing */
    log_commit(fx);

    int64_t b[8];
    const kc_fetch_response_partition_data_t *p = fetch_iso(fx, 12, "tx", 0, 1, &arena);
    assert_int_equal(p->error_code, 0);
    assert_int_equal(p->high_watermark, 6);
    assert_int_equal(p->last_stable_offset, 5);
    assert_int_equal(batch_bases(p->records, b, 8), 3);
    assert_int_equal(b[2], 4);
    assert_int_equal(p->aborted_transactions.count, 1);
    assert_int_equal(p->aborted_transactions.items[0].producer_id, 100);
    assert_int_equal(p->aborted_transactions.items[0].first_offset, 2);
    p = fetch_iso(fx, 4, "tx", 0, 1, &arena);
    assert_int_equal(p->last_stable_offset, 5);
    assert_int_equal(p->aborted_transactions.count, 1);
    p = fetch_iso(fx, 12, "tx", 5, 1, &arena);
    assert_int_equal(p->records.len, 0);
    assert_int_equal(p->aborted_transactions.count, 0);
    p = fetch_iso(fx, 12, "tx", 0, 0, &arena);
    assert_int_equal(batch_bases(p->records, b, 8), 4);
    assert_int_equal(p->last_stable_offset, 5);
    assert_int_equal(p->aborted_transactions.count, -1);

    kc_list_offsets_response_t m;
    kc_list_offsets_request_partition_t q[] = {lo_part(0, -1, -1)};
    list_offsets_call(fx, 9, "tx", q, 1, 1, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].offset, 5);
    list_offsets_call(fx, 9, "tx", q, 1, 0, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].offset, 6);
    q[0] = lo_part(0, 1700000005000LL, -1);
    list_offsets_call(fx, 9, "tx", q, 1, 0, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].offset, 5);
    list_offsets_call(fx, 9, "tx", q, 1, 1, &arena, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].offset, -1);
    assert_int_equal(m.topics.items[0].partitions.items[0].timestamp, -1);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

/* A parked READ_COMMITTED fetch waits while only uncommitted transactional
 * data lies past its offset, and completes once a commit moves the LSO. */
static void test_parked_read_committed_fetch_waits_for_the_lso(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("tw"), 1, &created), 0);
    kc_uuid_t id = created->id;
    log_txn_append(fx, id, 2, 300, 1700000000000LL, 0);
    log_commit(fx);
    kc_buf_t body = fetch_iso_body(12, "tw", 0, 1, 30000);
    kc_buf_t req;
    kc_buf_init(&req);
    header(&req, 1, 12, 55, true);
    kc_buf_append(&req, body.data, body.len);
    send_all(fx, &req);
    /* Served and parked within a few iterations: nothing comes back. */
    for (int i = 0; i < 50; i++)
        kc_server_run_once(fx->srv);
    struct pollfd pf = {fx->client, POLLIN, 0};
    assert_int_equal(poll(&pf, 1, 0), 0);
    /* The commit marker goes into the next iteration's commit with a produce. */
    log_marker(fx, id, 300, true, 2);
    kc_buf_t batch, pbody;
    kc_buf_init(&batch);
    kc_buf_init(&pbody);
    record_batch(&batch, 1);
    kc_produce_request_partition_produce_data_t pd = {0, {batch.data, (int32_t)batch.len}};
    kc_produce_request_topic_produce_data_t td;
    memset(&td, 0, sizeof(td));
    td.name = kc_str("tw");
    td.partition_data.items = &pd;
    td.partition_data.count = 1;
    kc_produce_request_t prq;
    kc_produce_request_init(&prq);
    prq.acks = -1;
    prq.timeout_ms = 30000;
    prq.topic_data.items = &td;
    prq.topic_data.count = 1;
    assert_int_equal(kc_produce_request_encode(&pbody, 7, &prq), 0);
    kc_buf_reset(&req);
    header(&req, 0, 7, 66, false);
    kc_buf_append(&req, pbody.data, pbody.len);
    send_all(fx, &req);
    kc_buf_deinit(&batch);
    kc_buf_deinit(&pbody);
    /* Two answers, the fetch's and the produce's, in either order. */
    kc_buf_t resp;
    kc_buf_init(&resp);
    bool got = false;
    for (int i = 0; i < 2 && !got; i++) {
        read_frame(fx, &resp);
        kc_reader_t r;
        kc_reader_init(&r, resp.data, resp.len);
        if (kc_read_int32(&r) != 55)
            continue;
        kc_read_uvarint(&r);
        kc_fetch_response_t m;
        kc_fetch_response_init(&m);
        assert_int_equal(kc_fetch_response_decode(&r, 12, &arena, &m), 0);
        const kc_fetch_response_partition_data_t *p = &m.responses.items[0].partitions.items[0];
        assert_true(p->last_stable_offset >= 3);
        int64_t b[8];
        assert_true(batch_bases(p->records, b, 8) >= 2);
        assert_int_equal(b[0], 0);
        assert_int_equal(b[1], 2);
        assert_int_equal(p->aborted_transactions.count, 0);
        got = true;
    }
    assert_true(got);
    kc_buf_deinit(&resp);
    kc_buf_deinit(&req);
    kc_buf_deinit(&body);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void expect_config(const char *name, const char *value, int16_t err, const char *msg)
{
    kc_str_t n = kc_str(name), v = kc_str(value);
    char got[512] = "";
    int16_t e = kc_topic_configs_check(1, &n, &v, got, sizeof(got));
    if (e != err || (msg && strcmp(got, msg) != 0))
        fail_msg("%s=%s: %d %s", name, value, e, got);
}

/* Topic config values as Kafka 4.4's LogConfig checks them. */
static void test_topic_config_values(void **state)
{
    (void)state;
    expect_config("segment.bytes", "100", 40,
                  "Invalid value 100 for configuration segment.bytes: Value must be at least "
                  "1048576");
    expect_config("segment.bytes", "1048576", 0, NULL);
    expect_config("compression.gzip.level", "10", 40,
                  "Invalid value 10 for configuration compression.gzip.level: Value must be "
                  "between 1 and 9 or equal to -1");
    expect_config("compression.gzip.level", "-1", 0, NULL);
    expect_config("compression.lz4.level", "18", 40,
                  "Invalid value 18 for configuration compression.lz4.level: Value must be no "
                  "more than 17");
    expect_config("compression.zstd.level", "-131073", 40,
                  "Invalid value -131073 for configuration compression.zstd.level: Value must be "
                  "at least -131072");
    expect_config("min.cleanable.dirty.ratio", "2", 40,
                  "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be "
                  "no more than 1");
    expect_config("leader.replication.throttled.replicas", "0:1, 2:x", 40,
                  "Invalid value [0:1, 2:x] for configuration "
                  "leader.replication.throttled.replicas: leader.replication.throttled.replicas "
                  "must be the literal '*' or a list of replicas in the following format: "
                  "[partitionId]:[brokerId],[partitionId]:[brokerId],...");
    expect_config("leader.replication.throttled.replicas", " * ", 0, NULL);
    expect_config("follower.replication.throttled.replicas", "0:1,1:1", 0, NULL);
    expect_config("remote.storage.enable", " TRUE ", 40,
                  "Tiered Storage functionality is disabled in the broker. Topic cannot be "
                  "configured with remote log storage.");
    expect_config("remote.storage.enable", "false", 0, NULL);
    expect_config("message.format.version", "3.0-IV1", 40,
                  "Unknown topic config name: message.format.version");
}

static const kc_fetch_response_partition_data_t *fetch_one(fx_t *fx, const char *topic,
                                                            int64_t offset, int32_t leader_epoch,
                                                            int32_t last_epoch, kc_arena_t *arena)
{
    kc_fetch_request_partition_t p;
    memset(&p, 0, sizeof(p));
    p.current_leader_epoch = leader_epoch;
    p.fetch_offset = offset;
    p.last_fetched_epoch = last_epoch;
    p.log_start_offset = -1;
    p.partition_max_bytes = 1 << 20;
    kc_fetch_request_topic_t t;
    memset(&t, 0, sizeof(t));
    t.topic = kc_str(topic);
    t.partitions.items = &p;
    t.partitions.count = 1;
    kc_fetch_request_t rq;
    kc_fetch_request_init(&rq);
    rq.replica_id = -1;
    rq.min_bytes = 1;
    rq.topics.items = &t;
    rq.topics.count = 1;
    kc_buf_t body;
    kc_buf_init(&body);
    assert_int_equal(kc_fetch_request_encode(&body, 12, &rq), 0);
    kc_reader_t r = roundtrip(fx, 1, 12, &body, arena);
    kc_fetch_response_t *m = kc_arena_alloc(arena, sizeof(*m));
    kc_fetch_response_init(m);
    assert_int_equal(kc_fetch_response_decode(&r, 12, arena, m), 0);
    kc_buf_deinit(&body);
    return &m->responses.items[0].partitions.items[0];
}

/*
 * Fetch leader epochs (Partition.fetchRecords): CurrentLeaderEpoch newer
 * than 0 is UNKNOWN_LEADER_EPOCH, a negative one no check; LastFetchedEpoch
 * newer than any epoch is OFFSET_OUT_OF_RANGE, epoch 0 with a fetch offset
 * beyond the log end answers a diverging epoch (0, log end).
 */
static void test_fetch_leader_epochs(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_arena_t arena;
    kc_arena_init(&arena);
    const kc_topic_t *created;
    assert_int_equal(kc_topics_create(fx->srv->topics, kc_str("le"), 1, &created), 0);
    produce_v7(fx, "le", 0, 2, &arena);
    const kc_fetch_response_partition_data_t *p = fetch_one(fx, "le", 1, 1, -1, &arena);
    assert_int_equal(p->error_code, 75);
    assert_int_equal(p->high_watermark, -1);
    p = fetch_one(fx, "le", 1, -2, -1, &arena);
    assert_int_equal(p->error_code, 0);
    assert_true(p->records.len > 0);
    p = fetch_one(fx, "le", 1, 0, 3, &arena);
    assert_int_equal(p->error_code, 1);
    p = fetch_one(fx, "le", 5, 0, 0, &arena);
    assert_int_equal(p->error_code, 0);
    assert_int_equal(p->diverging_epoch.epoch, 0);
    assert_int_equal(p->diverging_epoch.end_offset, 2);
    assert_int_equal(p->high_watermark, 2);
    assert_int_equal(p->records.len, 0);
    p = fetch_one(fx, "le", 2, 0, 0, &arena);
    assert_int_equal(p->error_code, 0);
    assert_int_equal(p->diverging_epoch.epoch, -1);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void test_pipelined_probe_answered_in_order(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL);
    kc_buf_t a, b, resp;
    kc_buf_init(&a);
    kc_buf_init(&b);
    kc_buf_init(&resp);
    header(&a, 18, 0, 100, false);
    header(&b, 3, 0, 101, false);
    kc_write_array_len(&b, 0, false);
    send_all(fx, &a);
    send_all(fx, &b);
    read_frame(fx, &resp);
    assert_memory_equal(resp.data, "\0\0\0\x64", 4);
    read_frame(fx, &resp);
    assert_memory_equal(resp.data, "\0\0\0\x65", 4);
    kc_buf_deinit(&a);
    kc_buf_deinit(&b);
    kc_buf_deinit(&resp);
    fx_free(fx);
}

static void expect_close(const uint8_t *frame, size_t len)
{
    fx_t *fx = fx_new(NULL);
    kc_buf_t req;
    kc_buf_init(&req);
    kc_buf_append(&req, frame, len);
    send_all(fx, &req);
    assert_true(wait_closed(fx));
    kc_buf_deinit(&req);
    fx_free(fx);
}

static void test_bad_requests_close_the_connection(void **state)
{
    (void)state;
    /* Metadata v1 whose topic array promises more than the frame holds. */
    static const uint8_t truncated[] = {0, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 5, 0, 1, 'x'};
    expect_close(truncated, sizeof(truncated));
    /* Unknown api key. */
    static const uint8_t unknown[] = {0x03, 0xe7, 0, 0, 0, 0, 0, 1, 0xff, 0xff};
    expect_close(unknown, sizeof(unknown));
    /* Metadata v14 does not exist: Kafka cannot parse it and closes. */
    static const uint8_t unsupported[] = {0, 3, 0, 14, 0, 0, 0, 1, 0xff, 0xff, 0, 1, 0};
    expect_close(unsupported, sizeof(unsupported));
    /* A header cut short. */
    static const uint8_t short_header[] = {0, 18, 0};
    expect_close(short_header, sizeof(short_header));
}

/*
 * Group commit: OffsetCommits that are ready on many connections at once
 * (more than one epoll batch of libevent, which starts at 32 events) are
 * all processed and answered by a single loop iteration, hence one commit.
 */
static void test_burst_of_commits_answered_by_one_iteration(void **state)
{
    (void)state;
    enum { NCONN = 40 };
    fx_t *fx = fx_new("num.partitions=1");
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_metadata_response_t m;
    metadata_v1(fx, 1, "burst", &arena, &m);
    metadata_v1(fx, 2, "burst", &arena, &m);
    assert_int_equal(m.topics.items[0].error_code, 0);

    int clients[NCONN];
    kc_buf_t req;
    kc_buf_init(&req);
    for (int i = 0; i < NCONN; i++) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        clients[i] = sv[1];
        assert_int_equal(
            kc_net_adopt(kc_server_net(fx->srv), sv[0], "/127.0.0.1", "PLAINTEXT", NULL), 0);
    }
    /* Let the loop see the new connections before the burst. */
    kc_server_run_once(fx->srv);
    for (int i = 0; i < NCONN; i++) {
        char group[32];
        snprintf(group, sizeof(group), "burst-%d", i);
        kc_buf_reset(&req);
        kc_buf_append(&req, "\0\0\0\0", 4);
        header(&req, 8, 2, 100 + i, false);
        kc_offset_commit_request_t oc;
        kc_offset_commit_request_init(&oc);
        oc.group_id = kc_str(group);
        oc.generation_id_or_member_epoch = -1;
        oc.member_id = kc_str("");
        kc_offset_commit_request_partition_t part = {0};
        part.partition_index = 0;
        part.committed_offset = 42 + i;
        part.committed_leader_epoch = -1;
        part.commit_timestamp = -1;
        part.committed_metadata = kc_str("");
        kc_offset_commit_request_topic_t topic;
        memset(&topic, 0, sizeof(topic));
        topic.name = kc_str("burst");
        topic.partitions.items = &part;
        topic.partitions.count = 1;
        oc.topics.items = &topic;
        oc.topics.count = 1;
        assert_int_equal(kc_offset_commit_request_encode(&req, 2, &oc), 0);
        kc_buf_put_int32_at(&req, 0, (int32_t)(req.len - 4));
        assert_int_equal(write(clients[i], req.data, req.len), (ssize_t)req.len);
    }
    kc_server_run_once(fx->srv);
    for (int i = 0; i < NCONN; i++) {
        struct pollfd p = {clients[i], POLLIN, 0};
        assert_int_equal(poll(&p, 1, 0), 1);
        uint8_t resp[64];
        ssize_t n = read(clients[i], resp, sizeof(resp));
        /* size, correlation id, throttle, [topic "burst" [partition 0, error 0]] */
        assert_true(n >= 12);
        kc_reader_t r;
        kc_reader_init(&r, resp, (size_t)n);
        assert_int_equal(kc_read_int32(&r), n - 4);
        assert_int_equal(kc_read_int32(&r), 100 + i);
        kc_offset_commit_response_t cr;
        kc_offset_commit_response_init(&cr);
        assert_int_equal(kc_offset_commit_response_decode(&r, 2, &arena, &cr), 0);
        assert_int_equal(cr.topics.count, 1);
        assert_int_equal(cr.topics.items[0].partitions.count, 1);
        assert_int_equal(cr.topics.items[0].partitions.items[0].error_code, 0);
        close(clients[i]);
    }
    kc_buf_deinit(&req);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

/* Frames a request whose header carries client_id (int16 string). */
static void frame_request(kc_buf_t *b, int16_t key, int16_t version, int32_t corr,
                          const char *client_id)
{
    kc_buf_reset(b);
    kc_buf_append(b, "\0\0\0\0", 4);
    kc_write_int16(b, key);
    kc_write_int16(b, version);
    kc_write_int32(b, corr);
    kc_write_str(b, kc_str(client_id), false);
}

/* OffsetCommit v2 of offset for group simple-g, topic t partition 0. */
static void offset_commit_v2(kc_buf_t *b, int32_t corr, int64_t offset)
{
    frame_request(b, 8, 2, corr, "test");
    kc_offset_commit_request_t oc;
    kc_offset_commit_request_init(&oc);
    oc.group_id = kc_str("simple-g");
    oc.generation_id_or_member_epoch = -1;
    oc.member_id = kc_str("");
    kc_offset_commit_request_partition_t part = {0};
    part.committed_offset = offset;
    part.committed_leader_epoch = -1;
    part.commit_timestamp = -1;
    part.committed_metadata = kc_str("");
    kc_offset_commit_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.name = kc_str("t");
    topic.partitions.items = &part;
    topic.partitions.count = 1;
    oc.topics.items = &topic;
    oc.topics.count = 1;
    assert_int_equal(kc_offset_commit_request_encode(b, 2, &oc), 0);
    kc_buf_put_int32_at(b, 0, (int32_t)(b->len - 4));
}

/* The partition error of the OffsetCommit v2 answer on fx->client. */
static int16_t offset_commit_error(fx_t *fx, int32_t corr, kc_arena_t *arena)
{
    kc_buf_t resp;
    kc_buf_init(&resp);
    read_frame(fx, &resp);
    uint8_t *copy = kc_arena_alloc(arena, resp.len);
    memcpy(copy, resp.data, resp.len);
    kc_reader_t r;
    kc_reader_init(&r, copy, resp.len);
    assert_int_equal(kc_read_int32(&r), corr);
    kc_offset_commit_response_t cr;
    kc_offset_commit_response_init(&cr);
    assert_int_equal(kc_offset_commit_response_decode(&r, 2, arena, &cr), 0);
    assert_int_equal(cr.topics.count, 1);
    assert_int_equal(cr.topics.items[0].partitions.count, 1);
    kc_buf_deinit(&resp);
    return cr.topics.items[0].partitions.items[0].error_code;
}

/* What the store holds: offset records of simple-g, and the members of the
 * GroupMetadata records (every record must parse). */
typedef struct {
    int offsets;
    int groups;
    int members;
} stored_t;

static int count_stored(void *arg, const uint8_t *key, size_t key_len, const uint8_t *value,
                        size_t value_len)
{
    stored_t *st = arg;
    kc_reader_t r;
    kc_reader_init(&r, key, key_len);
    int16_t type = kc_read_int16(&r);
    if (type == KC_RECORD_OFFSET_COMMIT) {
        st->offsets++;
    } else if (type == KC_RECORD_GROUP_METADATA && value) {
        kc_arena_t arena;
        kc_arena_init(&arena);
        kc_reader_init(&r, value, value_len);
        int16_t version = kc_read_int16(&r);
        kc_group_metadata_value_t v;
        kc_group_metadata_value_init(&v);
        assert_int_equal(kc_group_metadata_value_decode(&r, version, &arena, &v), 0);
        assert_int_equal(kc_reader_left(&r), 0);
        st->groups++;
        st->members += v.members.count;
        kc_arena_deinit(&arena);
    }
    return 0;
}

/*
 * An iteration whose result could not be encoded commits nothing. A classic
 * member whose client id has the longest length a header allows gets a
 * member id over 32767 bytes, which the JoinGroup answer cannot carry: the
 * rebalance completing on the timer fails to encode. An OffsetCommit of the
 * same iteration is not written and gets NOT_COORDINATOR (the failed-commit
 * answer); the joining connection, whose answer has no error body, is
 * closed; the broker goes on serving.
 */
static void test_unencodable_iteration_commits_nothing(void **state)
{
    (void)state;
    fx_t *fx = fx_new("group.initial.rebalance.delay.ms=0");
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_metadata_response_t m;
    metadata_v1(fx, 1, "t", &arena, &m);
    metadata_v1(fx, 2, "t", &arena, &m);
    assert_int_equal(m.topics.items[0].error_code, 0);

    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(kc_net_adopt(kc_server_net(fx->srv), sv[0], "/127.0.0.1", "PLAINTEXT", NULL),
                     0);
    char *client = malloc(32768);
    memset(client, 'c', 32767);
    client[32767] = '\0';
    static const uint8_t sub[] = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0xff, 0xff, 0xff, 0xff};
    kc_join_group_request_protocol_t p = {0};
    p.name = kc_str("range");
    p.metadata = (kc_bytes_t){sub, sizeof(sub)};
    kc_join_group_request_t jr;
    kc_join_group_request_init(&jr);
    jr.group_id = kc_str("big");
    jr.session_timeout_ms = 10000;
    jr.rebalance_timeout_ms = 10000;
    jr.member_id = kc_str("");
    jr.protocol_type = kc_str("consumer");
    jr.protocols.items = &p;
    jr.protocols.count = 1;
    kc_buf_t req;
    kc_buf_init(&req);
    frame_request(&req, KC_API_JOIN_GROUP, 3, 5, client);
    assert_int_equal(kc_join_group_request_encode(&req, 3, &jr), 0);
    kc_buf_put_int32_at(&req, 0, (int32_t)(req.len - 4));
    assert_int_equal(write(sv[1], req.data, req.len), (ssize_t)req.len);
    /* This iteration creates the group (its empty record commits) and arms
     * the rebalance timer, due at once. */
    kc_server_run_once(fx->srv);
    stored_t st = {0};
    assert_int_equal(kc_store_replay(fx->srv->store, count_stored, &st), 0);
    assert_int_equal(st.groups, 1);

    /* The next iteration fires the timer and reads the commit. */
    offset_commit_v2(&req, 6, 42);
    assert_int_equal(write(fx->client, req.data, req.len), (ssize_t)req.len);
    kc_server_run_once(fx->srv);
    assert_int_equal(offset_commit_error(fx, 6, &arena), KC_ERR_NOT_COORDINATOR);
    memset(&st, 0, sizeof(st));
    assert_int_equal(kc_store_replay(fx->srv->store, count_stored, &st), 0);
    assert_int_equal(st.offsets, 0);
    assert_int_equal(st.groups, 1);
    assert_int_equal(st.members, 0);
    /* Nothing half-written reached the joining client: it is disconnected. */
    uint8_t b[64];
    assert_int_equal(read(sv[1], b, sizeof(b)), 0);

    /* The broker keeps serving: the commit, sent again, is written. */
    offset_commit_v2(&req, 7, 42);
    assert_int_equal(write(fx->client, req.data, req.len), (ssize_t)req.len);
    assert_int_equal(offset_commit_error(fx, 7, &arena), KC_ERR_NONE);
    memset(&st, 0, sizeof(st));
    assert_int_equal(kc_store_replay(fx->srv->store, count_stored, &st), 0);
    assert_int_equal(st.offsets, 1);
    close(sv[1]);
    free(client);
    kc_buf_deinit(&req);
    kc_arena_deinit(&arena);
    fx_free(fx);
}

static void test_dispatch_table_consistency(void **state)
{
    (void)state;
    assert_int_equal(kc_api_table_len, KC_ARRAY_LEN(expected_ranges));
    for (size_t i = 0; i < kc_api_table_len; i++) {
        const kc_api_entry_t *e = &kc_api_table[i];
        if (i > 0)
            assert_true(e->api_key > kc_api_table[i - 1].api_key);
        assert_int_equal(e->api_key, expected_ranges[i][0]);
        assert_int_equal(e->min_version, expected_ranges[i][1]);
        assert_int_equal(e->max_version, expected_ranges[i][2]);
        assert_true(e->min_version <= e->max_version);
        assert_non_null(e->handler);
        assert_non_null(e->name);
        assert_ptr_equal(kc_api_find(e->api_key), e);
    }
    assert_null(kc_api_find(27)); /* WriteTxnMarkers: between brokers only */
    assert_int_equal(kc_api_find(23)->flexible_min, 4);
    assert_int_equal(kc_api_find(60)->flexible_min, 0);
    assert_int_equal(kc_api_find(21)->flexible_min, 2);
    assert_int_equal(kc_api_find(32)->flexible_min, 4);
    assert_null(kc_api_find(-1));
    assert_int_equal(kc_api_find(0)->flexible_min, 9);
    assert_int_equal(kc_api_find(22)->flexible_min, 2);
    /* First flexible versions from protocol.md section 1. */
    assert_int_equal(kc_api_find(18)->flexible_min, 3);
    assert_int_equal(kc_api_find(3)->flexible_min, 9);
    assert_int_equal(kc_api_find(1)->flexible_min, 12);
    assert_int_equal(kc_api_find(11)->flexible_min, 6);
    assert_int_equal(kc_api_find(47)->flexible_min, INT16_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_versions_v0_bytes),
        cmocka_unit_test(test_api_versions_v3_bytes_header_v0),
        cmocka_unit_test(test_api_versions_v4_features),
        cmocka_unit_test(test_api_versions_v3_bad_software_name_is_invalid_request),
        cmocka_unit_test(test_api_versions_unsupported_version_fallback),
        cmocka_unit_test(test_metadata_auto_creates_topic),
        cmocka_unit_test(test_metadata_without_auto_creation),
        cmocka_unit_test(test_find_coordinator_v4_error_messages),
        cmocka_unit_test(test_metadata_order_and_unknown_topics),
        cmocka_unit_test(test_metadata_topic_ids),
        cmocka_unit_test(test_create_topics_kafka_order_and_messages),
        cmocka_unit_test(test_list_offsets_kafka_answers),
        cmocka_unit_test(test_fetch_refused_partitions_last),
        cmocka_unit_test(test_fetch_limits_and_isolation),
        cmocka_unit_test(test_topic_config_values),
        cmocka_unit_test(test_fetch_leader_epochs),
        cmocka_unit_test(test_fetch_and_list_offsets_read_committed),
        cmocka_unit_test(test_parked_read_committed_fetch_waits_for_the_lso),
        cmocka_unit_test(test_pipelined_probe_answered_in_order),
        cmocka_unit_test(test_bad_requests_close_the_connection),
        cmocka_unit_test(test_burst_of_commits_answered_by_one_iteration),
        cmocka_unit_test(test_unencodable_iteration_commits_nothing),
        cmocka_unit_test(test_dispatch_table_consistency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
