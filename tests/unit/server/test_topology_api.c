/* SPDX-License-Identifier: Apache-2.0 */
/*
 * StreamsGroupTopologyDescriptionUpdate (API 93) through the broker, over an
 * in-process socket: answers without a store, request validation, and a
 * push against a stand-in streams group registered through
 * kc_topology_desc_set_groups, with the test store loaded from its shared object.
 * The crash cases run the broker in a child process that the test store
 * kills (_exit) before or after its set; the parent then starts a broker on
 * the same data directory and checks what survived and that the group
 * converges (asked to push again, then stored).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>

#include <cmocka.h>
#include <event2/event.h>

#include "internal.h"
#include "server_int.h"

#define API 93

/* ---- a stand-in streams group ------------------------------------------------- */

typedef struct {
    kc_topology_desc_state_t st;
    int32_t topology_epoch;
    int members;
} fake_group_t;

static fake_group_t fake;

/* The stand-in's writer: appends the record and applies it, as the streams
 * group's write applies it through its replay. */
static int fake_write(void *ctx, kc_str_t group_id, const kc_streams_group_metadata_value_t *v,
                      kc_result_t *res)
{
    (void)ctx;
    kc_record_key_t key = {.group_id = group_id};
    int rc = kc_record_write(res, KC_RECORD_STREAMS_GROUP_METADATA, &key, 0, v);
    if (rc == 0)
        kc_topology_desc_replay(&fake.st, v);
    return rc;
}

static int fake_lookup(void *ctx, kc_str_t group_id, kc_topology_desc_group_t *out)
{
    (void)ctx;
    if (!kc_str_eq_cstr(group_id, "app"))
        return kc_str_eq_cstr(group_id, "classic") ? -1 : 0;
    memset(out, 0, sizeof(*out));
    out->state = &fake.st;
    out->topology_epoch = fake.topology_epoch;
    out->empty = fake.members == 0;
    kc_streams_group_metadata_value_init(&out->metadata);
    out->metadata.epoch = 5;
    out->write = fake_write;
    return 1;
}

static bool fake_has_member(void *ctx, kc_str_t group_id, kc_str_t member_id)
{
    (void)ctx;
    (void)group_id;
    return fake.members > 0 && kc_str_eq_cstr(member_id, "m1");
}

static void fake_foreach(void *ctx, void (*fn)(void *arg, kc_str_t group_id), void *arg)
{
    (void)ctx;
    fn(arg, kc_str("app"));
}

static const kc_topology_desc_groups_t fake_groups = {NULL, fake_lookup, fake_has_member,
                                                      fake_foreach};

/* Replay of the group's type-17 records, as the streams group will do at start. */
static int replay_fake(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                       size_t value_len)
{
    (void)ctx;
    kc_reader_t r;
    kc_reader_init(&r, key, key_len);
    if (kc_read_int16(&r) != 17 || !value)
        return 0;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_init(&r, value, value_len);
    assert_int_equal(kc_read_int16(&r), 0);
    kc_streams_group_metadata_value_t v;
    kc_streams_group_metadata_value_init(&v);
    assert_int_equal(kc_streams_group_metadata_value_decode(&r, 0, &a, &v), 0);
    assert_int_equal(v.epoch, 5); /* the group's own fields survive the barrier writes */
    kc_topology_desc_replay(&fake.st, &v);
    kc_arena_deinit(&a);
    return 0;
}

/* ---- a broker on an in-process socket ------------------------------------------- */

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

static const char *extra_override;

/* dir NULL: a new temporary directory. plugin NULL: no store. */
static fx_t *fx_new(const char *dir, const char *plugin, const char *plugin_config)
{
    fx_t *fx = kc_xcalloc(1, sizeof(*fx));
    if (dir) {
        snprintf(fx->dir, sizeof(fx->dir), "%s", dir);
    } else {
        snprintf(fx->dir, sizeof(fx->dir), "/tmp/kc_topology_desc_api_XXXXXX");
        assert_non_null(mkdtemp(fx->dir));
    }
    kc_config_init(&fx->cfg);
    char err[256];
    assert_int_equal(kc_config_set(&fx->cfg, "log.dirs", fx->dir, err, sizeof(err)), 0);
    assert_int_equal(kc_config_set(&fx->cfg, "lmdb.map.size.bytes", "16777216", err, sizeof(err)),
                     0);
    if (plugin)
        assert_int_equal(kc_config_set(&fx->cfg, "group.streams.topology.description.plugin",
                                       plugin, err, sizeof(err)),
                         0);
    if (plugin_config)
        assert_int_equal(kc_config_set(&fx->cfg, "group.streams.topology.description.plugin.config",
                                       plugin_config, err, sizeof(err)),
                         0);
    if (extra_override)
        assert_int_equal(kc_config_override(&fx->cfg, extra_override, err, sizeof(err)), 0);
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
    /* The stand-in group, rebuilt from what the broker stored. */
    kc_topology_desc_state_init(&fake.st);
    fake.topology_epoch = 3;
    fake.members = 1;
    assert_int_equal(kc_store_replay(fx->srv->store, replay_fake, NULL), 0);
    kc_topology_desc_set_groups(fx->srv, &fake_groups, NULL, NULL);
    return fx;
}

static void fx_free(fx_t *fx, bool remove_dir)
{
    kc_server_free(fx->srv);
    event_free(fx->tick);
    event_base_free(fx->base);
    close(fx->client);
    kc_config_deinit(&fx->cfg);
    if (remove_dir) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
        assert_int_equal(system(cmd), 0);
    }
    free(fx);
}

/* Sends one API 93 v0 request. */
static void send_push(fx_t *fx, const char *group, const char *member, int32_t epoch, int32_t corr)
{
    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_int16(&b, API);
    kc_write_int16(&b, 0);
    kc_write_int32(&b, corr);
    kc_write_str(&b, kc_str("test"), false);
    kc_write_uvarint(&b, 0);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_streams_group_topology_description_update_request_t rq;
    kc_streams_group_topology_description_update_request_init(&rq);
    kc_streams_group_topology_description_update_request_fill_sample(&rq, 0, &a, 5);
    rq.group_id = kc_str(group);
    rq.member_id = kc_str(member);
    rq.topology_epoch = epoch;
    assert_int_equal(kc_streams_group_topology_description_update_request_encode(&b, 0, &rq), 0);
    uint8_t sz[4] = {(uint8_t)(b.len >> 24), (uint8_t)(b.len >> 16), (uint8_t)(b.len >> 8),
                     (uint8_t)b.len};
    assert_int_equal(write(fx->client, sz, 4), 4);
    assert_int_equal(write(fx->client, b.data, b.len), (ssize_t)b.len);
    kc_arena_deinit(&a);
    kc_buf_deinit(&b);
}

static bool readable(fx_t *fx)
{
    struct pollfd p = {fx->client, POLLIN, 0};
    return poll(&p, 1, 0) == 1;
}

static void read_n(fx_t *fx, uint8_t *buf, size_t n)
{
    size_t got = 0;
    int64_t deadline = now_ms() + 60000;
    while (got < n && now_ms() < deadline) {
        if (!readable(fx)) {
            kc_server_run_once(fx->srv);
            continue;
        }
        ssize_t r = read(fx->client, buf + got, n - got);
        assert_true(r > 0);
        got += (size_t)r;
    }
    assert_int_equal(got, n);
}

typedef struct {
    int32_t corr;
    int16_t error_code;
    char message[256];
    bool message_null;
} answer_t;

static answer_t read_answer(fx_t *fx)
{
    uint8_t sz[4];
    read_n(fx, sz, 4);
    uint32_t n = ((uint32_t)sz[0] << 24) | ((uint32_t)sz[1] << 16) | ((uint32_t)sz[2] << 8) | sz[3];
    uint8_t *buf = malloc(n);
    read_n(fx, buf, n);
    kc_reader_t r;
    kc_reader_init(&r, buf, n);
    answer_t ans;
    memset(&ans, 0, sizeof(ans));
    ans.corr = kc_read_int32(&r);
    kc_skip_tagged_fields(&r); /* response header v1 */
    kc_arena_t a;
    kc_arena_init(&a);
    kc_streams_group_topology_description_update_response_t rs;
    kc_streams_group_topology_description_update_response_init(&rs);
    assert_int_equal(kc_streams_group_topology_description_update_response_decode(&r, 0, &a, &rs), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    ans.error_code = rs.error_code;
    ans.message_null = kc_str_is_null(rs.error_message);
    if (!ans.message_null)
        snprintf(ans.message, sizeof(ans.message), "%.*s", rs.error_message.len, rs.error_message.ptr);
    kc_arena_deinit(&a);
    free(buf);
    return ans;
}

static bool store_file_exists(const char *dir)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/test-store/g-617070", dir); /* "app" in hex */
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_without_store_unsupported_version(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL, NULL, NULL);
    assert_null(kc_topology_desc_barrier(fx->srv));
    assert_null(kc_topology_desc_store(fx->srv));
    /* Advertised all the same (Kafka filters only the telemetry APIs). */
    const kc_api_entry_t *e = kc_api_find(API);
    assert_non_null(e);
    assert_int_equal(e->min_version, 0);
    assert_int_equal(e->max_version, 0);
    send_push(fx, "app", "m1", 3, 7);
    answer_t a = read_answer(fx);
    assert_int_equal(a.corr, 7);
    assert_int_equal(a.error_code, KC_ERR_UNSUPPORTED_VERSION);
    assert_string_equal(a.message,
                        "The broker has no streams group topology description plugin configured.");
    fx_free(fx, true);
}

static void test_request_validation(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL, "memory", NULL);
    struct {
        const char *group, *member;
        int32_t epoch;
        int16_t code;
        const char *message;
    } cases[] = {
        {"app", "", 3, KC_ERR_INVALID_REQUEST, "MemberId can't be empty."},
        {"", "", 3, KC_ERR_INVALID_REQUEST, "MemberId can't be empty."},
        {"", "m1", 3, KC_ERR_INVALID_REQUEST, "GroupId can't be empty."},
        {"nope", "m1", 3, KC_ERR_GROUP_ID_NOT_FOUND, "Group nope not found."},
        {"classic", "m1", 3, KC_ERR_GROUP_ID_NOT_FOUND, "Group classic is not a streams group."},
        {"app", "m2", 3, KC_ERR_UNKNOWN_MEMBER_ID, "Member m2 is not a member of group app."},
        {"app", "m1", 2, KC_ERR_INVALID_REQUEST,
         "Topology epoch 2 does not match the group's current topology epoch 3."},
    };
    for (size_t i = 0; i < KC_ARRAY_LEN(cases); i++) {
        send_push(fx, cases[i].group, cases[i].member, cases[i].epoch, (int32_t)i);
        answer_t a = read_answer(fx);
        assert_int_equal(a.corr, (int32_t)i);
        assert_int_equal(a.error_code, cases[i].code);
        assert_string_equal(a.message, cases[i].message);
    }
    assert_int_equal(fake.st.stored_epoch, -1); /* nothing was begun */
    fx_free(fx, true);
}

static int32_t durable_stored;

static int find_stored(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                       size_t value_len)
{
    kc_topology_desc_state_t saved = fake.st;
    replay_fake(ctx, key, key_len, value, value_len);
    durable_stored = fake.st.stored_epoch;
    fake.st = saved;
    return 0;
}

static void test_push_commits_barrier_before_store_call(void **state)
{
    (void)state;
    char cfg[256];
    /* The set takes 2 s: long enough to look at what is durable meanwhile. */
    snprintf(cfg, sizeof(cfg), "set=hang:2000*1");
    fx_t *fx = fx_new(NULL, KC_TEST_STORE_PATH, cfg);
    assert_non_null(kc_topology_desc_barrier(fx->srv));
    send_push(fx, "app", "m1", 3, 1);
    bool saw_barrier = false;
    int64_t deadline = now_ms() + 60000;
    while (!readable(fx) && now_ms() < deadline) {
        kc_server_run_once(fx->srv);
        durable_stored = -100;
        assert_int_equal(kc_store_replay(fx->srv->store, find_stored, NULL), 0);
        if (durable_stored == -2)
            saw_barrier = true;
    }
    assert_true(saw_barrier);
    answer_t a = read_answer(fx);
    assert_int_equal(a.error_code, KC_ERR_NONE);
    assert_true(a.message_null);
    assert_int_equal(fake.st.stored_epoch, 3);
    assert_true(store_file_exists(fx->dir));
    assert_int_equal(kc_store_replay(fx->srv->store, find_stored, NULL), 0);
    assert_int_equal(durable_stored, 3);
    fx_free(fx, true);
}

static void test_push_failures(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL, KC_TEST_STORE_PATH, "set=transient:busy*1");
    send_push(fx, "app", "m1", 3, 1);
    answer_t a = read_answer(fx);
    assert_int_equal(a.error_code, KC_ERR_STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED);
    assert_string_equal(a.message, "busy");
    assert_int_equal(fake.st.stored_epoch, -2);
    assert_int_equal(fake.st.failed_epoch, -1);
    fx_free(fx, true);
    /* A permanent failure records the failed epoch, durably. */
    char dir[64];
    snprintf(dir, sizeof(dir), "%s", "/tmp/kc_topology_desc_api_XXXXXX");
    assert_non_null(mkdtemp(dir));
    fx = fx_new(dir, KC_TEST_STORE_PATH, "set=permanent:too big");
    send_push(fx, "app", "m1", 3, 2);
    a = read_answer(fx);
    assert_int_equal(a.error_code, KC_ERR_STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED);
    assert_string_equal(a.message, "too big");
    assert_int_equal(fake.st.failed_epoch, 3);
    fx_free(fx, false);
    fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
    assert_int_equal(fake.st.failed_epoch, 3);
    assert_int_equal(fake.st.stored_epoch, -2);
    assert_false(kc_topology_desc_solicit(kc_topology_desc_barrier(fx->srv), &fake.st, 1, 1, 0, false, 3,
                                          kc_server_wall_ms()));
    fx_free(fx, true);
}

static void test_cleanup_cycle_deletes_and_finalizes(void **state)
{
    (void)state;
    extra_override = "offsets.retention.check.interval.ms=20";
    fx_t *fx = fx_new(NULL, KC_TEST_STORE_PATH, NULL);
    send_push(fx, "app", "m1", 3, 1);
    assert_int_equal(read_answer(fx).error_code, KC_ERR_NONE);
    assert_true(store_file_exists(fx->dir));
    /* Members with a stored description: the cycle leaves the group alone. */
    int64_t until = now_ms() + 200;
    while (now_ms() < until)
        kc_server_run_once(fx->srv);
    assert_true(store_file_exists(fx->dir));
    assert_int_equal(fake.st.stored_epoch, 3);
    /* The group empties (no offsets either): the next cycle deletes. */
    fake.members = 0;
    int64_t deadline = now_ms() + 60000;
    while ((fake.st.stored_epoch != -1 || store_file_exists(fx->dir)) && now_ms() < deadline)
        kc_server_run_once(fx->srv);
    assert_int_equal(fake.st.stored_epoch, -1);
    assert_false(store_file_exists(fx->dir));
    assert_true(kc_topology_desc_may_expire(kc_topology_desc_barrier(fx->srv), &fake.st));
    char dir[64];
    snprintf(dir, sizeof(dir), "%s", fx->dir);
    fx_free(fx, false);
    extra_override = NULL;
    fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
    assert_int_equal(fake.st.stored_epoch, -1); /* durable */
    fx_free(fx, true);
}

/*
 * Crash cases: the child runs a broker whose store _exits at the step; the
 * parent restarts on the same directory.
 */
static void crash_push(const char *action, bool want_file)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "%s", "/tmp/kc_topology_desc_api_XXXXXX");
    assert_non_null(mkdtemp(dir));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("KC_TEST_STORE_SET", action, 1);
        fx_t *fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
        send_push(fx, "app", "m1", 3, 1);
        int64_t deadline = now_ms() + 60000;
        while (now_ms() < deadline)
            kc_server_run_once(fx->srv);
        _exit(0); /* the store did not kill the broker */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 86);
    assert_int_equal(store_file_exists(dir), want_file);
    /* Restart: the -2 committed before the store call survived. */
    fx_t *fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
    assert_int_equal(fake.st.stored_epoch, -2);
    kc_topology_desc_t *m = kc_topology_desc_barrier(fx->srv);
    assert_int_equal(kc_topology_desc_describe_status(m, &fake.st, true, 3),
                     KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    /* Converges: the group is asked to push again, and the push settles it. */
    assert_true(kc_topology_desc_solicit(m, &fake.st, 1, 1, 0, false, 3, kc_server_wall_ms()));
    send_push(fx, "app", "m1", 3, 2);
    assert_int_equal(read_answer(fx).error_code, KC_ERR_NONE);
    assert_int_equal(fake.st.stored_epoch, 3);
    assert_true(store_file_exists(dir));
    fx_free(fx, false);
    fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
    assert_int_equal(fake.st.stored_epoch, 3);
    assert_int_equal(kc_topology_desc_describe_status(kc_topology_desc_barrier(fx->srv), &fake.st, true, 3),
                     KC_TOPOLOGY_DESC_STATUS_AVAILABLE);
    fx_free(fx, true);
}

/* The cleanup's delete, killed by the store before or after it removed the file. */
static void crash_cleanup(const char *action, bool want_file)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "%s", "/tmp/kc_topology_desc_api_XXXXXX");
    assert_non_null(mkdtemp(dir));
    fx_t *fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
    send_push(fx, "app", "m1", 3, 1);
    assert_int_equal(read_answer(fx).error_code, KC_ERR_NONE);
    fx_free(fx, false);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("KC_TEST_STORE_DELETE", action, 1);
        extra_override = "offsets.retention.check.interval.ms=20";
        fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
        fake.members = 0;
        int64_t deadline = now_ms() + 60000;
        while (now_ms() < deadline)
            kc_server_run_once(fx->srv);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 86);
    assert_int_equal(store_file_exists(dir), want_file);
    /* Restart: -2 keeps the group reclaimable; the next cycle finishes the job. */
    extra_override = "offsets.retention.check.interval.ms=20";
    fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
    extra_override = NULL;
    assert_int_equal(fake.st.stored_epoch, -2);
    fake.members = 0;
    int64_t deadline = now_ms() + 60000;
    while ((fake.st.stored_epoch != -1 || store_file_exists(dir)) && now_ms() < deadline)
        kc_server_run_once(fx->srv);
    assert_int_equal(fake.st.stored_epoch, -1);
    assert_false(store_file_exists(dir));
    fx_free(fx, false);
    fx = fx_new(dir, KC_TEST_STORE_PATH, NULL);
    assert_int_equal(fake.st.stored_epoch, -1);
    fx_free(fx, true);
}

static void test_cleanup_crash_before_store_call(void **state)
{
    (void)state;
    crash_cleanup("exit-before", true);
}

static void test_cleanup_crash_after_store_call(void **state)
{
    (void)state;
    crash_cleanup("exit-after", false);
}

/* DeleteGroups and conversion ops as the streams group will start them. */
static kc_topology_desc_outcome_t last_outcome;
static kc_topology_desc_op_kind_t last_kind;
static int outcomes;

static void on_outcome(void *arg, const kc_topology_desc_op_t *op,
                       const kc_topology_desc_outcome_t *out, kc_result_t *res)
{
    (void)arg;
    (void)res;
    last_outcome = *out;
    last_kind = op->kind;
    outcomes++;
}

static void run_delete_op(fx_t *fx, kc_topology_desc_op_kind_t kind)
{
    kc_topology_desc_group_t view;
    assert_int_equal(fake_lookup(NULL, kc_str("app"), &view), 1);
    kc_topology_desc_op_t *op =
        kc_topology_desc_delete_begin(kind, kc_str("app"), &view, &fx->srv->batch);
    assert_non_null(op);
    int before = outcomes;
    kc_topology_desc_run(fx->srv, op);
    int64_t deadline = now_ms() + 60000;
    while (outcomes == before && now_ms() < deadline)
        kc_server_run_once(fx->srv);
    assert_int_equal(outcomes, before + 1);
    assert_int_equal(last_kind, kind);
}

static void test_delete_group_and_conversion_outcomes(void **state)
{
    (void)state;
    fx_t *fx = fx_new(NULL, KC_TEST_STORE_PATH, "delete=transient:down*2");
    kc_topology_desc_set_groups(fx->srv, &fake_groups, on_outcome, NULL);
    send_push(fx, "app", "m1", 3, 1);
    assert_int_equal(read_answer(fx).error_code, KC_ERR_NONE);
    fake.members = 0;
    run_delete_op(fx, KC_TOPOLOGY_DESC_OP_DELETE_GROUP);
    assert_int_equal(last_outcome.error_code, KC_ERR_GROUP_DELETION_FAILED);
    assert_false(last_outcome.proceed);
    assert_int_equal(fake.st.stored_epoch, -2);
    assert_true(store_file_exists(fx->dir));
    run_delete_op(fx, KC_TOPOLOGY_DESC_OP_CONVERSION);
    assert_int_equal(last_outcome.error_code, KC_ERR_REBALANCE_IN_PROGRESS);
    assert_true(kc_topology_desc_conversion_throttled(&fake.st, kc_server_wall_ms()));
    run_delete_op(fx, KC_TOPOLOGY_DESC_OP_DELETE_GROUP);
    assert_int_equal(last_outcome.error_code, KC_ERR_NONE);
    assert_true(last_outcome.proceed);
    assert_int_equal(fake.st.stored_epoch, -1);
    assert_false(store_file_exists(fx->dir));
    fx_free(fx, true);
}

static void test_push_crash_before_store_call(void **state)
{
    (void)state;
    crash_push("exit-before", false);
}

static void test_push_crash_after_store_call(void **state)
{
    (void)state;
    crash_push("exit-after", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_store_unsupported_version),
        cmocka_unit_test(test_request_validation),
        cmocka_unit_test(test_push_commits_barrier_before_store_call),
        cmocka_unit_test(test_push_failures),
        cmocka_unit_test(test_cleanup_cycle_deletes_and_finalizes),
        cmocka_unit_test(test_push_crash_before_store_call),
        cmocka_unit_test(test_push_crash_after_store_call),
        cmocka_unit_test(test_cleanup_crash_before_store_call),
        cmocka_unit_test(test_cleanup_crash_after_store_call),
        cmocka_unit_test(test_delete_group_and_conversion_outcomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
