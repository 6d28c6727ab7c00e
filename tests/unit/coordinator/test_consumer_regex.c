/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmocka tests of KIP-848 consumer groups subscribed by regex
 * (SubscribedTopicRegex) on a driven clock: resolution after the heartbeat
 * (a timer due at once), full-match semantics, INVALID_REGULAR_EXPRESSION,
 * refresh after a topic creation and the minimum interval, the record 16
 * and its tombstone, replay; and the consumer-group side of the offsets
 * module: OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC, offsets expiry and the
 * deletion of an empty group whose offsets are gone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "consumer_int.h"
#include "coord_test.h"

enum {
    E_NONE = 0,
    E_GROUP_SUBSCRIBED_TO_TOPIC = 86,
    E_INVALID_REGULAR_EXPRESSION = 128,
};

#define MAXT 8
#define NPART 2

/* ---- a topic view whose topics the test creates ---------------------------- */

typedef struct {
    const char *name;
    kc_uuid_t id;
} topic_t;

static topic_t topics[MAXT];
static int ntopics;
/* The group the request functions of these tests address. */
static const char *group_name = "g";

static void add_topic(const char *name)
{
    assert_true(ntopics < MAXT);
    topics[ntopics].name = name;
    memset(&topics[ntopics].id, 0, sizeof(kc_uuid_t));
    topics[ntopics].id.b[0] = (uint8_t)(ntopics + 1);
    ntopics++;
}

static int topic_index(kc_str_t name)
{
    for (int i = 0; i < ntopics; i++)
        if (kc_str_eq_cstr(name, topics[i].name))
            return i;
    return -1;
}

static int topic_index_id(kc_uuid_t id)
{
    for (int i = 0; i < ntopics; i++)
        if (memcmp(id.b, topics[i].id.b, 16) == 0)
            return i;
    return -1;
}

static bool tv_exists(void *ctx, kc_str_t topic)
{
    (void)ctx;
    return topic_index(topic) >= 0;
}

static bool tv_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *id)
{
    (void)ctx;
    int i = topic_index(topic);
    if (i < 0)
        return false;
    *partitions = NPART;
    *id = topics[i].id;
    return true;
}

static bool tv_name(void *ctx, kc_uuid_t id, kc_str_t *name)
{
    (void)ctx;
    int i = topic_index_id(id);
    if (i < 0)
        return false;
    *name = kc_str(topics[i].name);
    return true;
}

static void tv_names(void *ctx, void (*fn)(void *arg, kc_str_t name), void *arg)
{
    (void)ctx;
    for (int i = 0; i < ntopics; i++)
        fn(arg, kc_str(topics[i].name));
}

static const kc_topic_view_t VIEW = {tv_exists, NULL, tv_lookup, tv_name, tv_names};

/* ---- context: coord_test.h, with this file's topic view ------------------------ */

typedef ct_t ctx_t;
typedef ct_record_t rec_t;

static kc_coord_config_t config(void)
{
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    return cfg;
}

static ctx_t *ctx_new_cfg(const kc_coord_config_t *cfg)
{
    ntopics = 0;
    group_name = "g";
    return ct_new(&(ct_opts_t){.cfg = cfg, .topics = &VIEW, .seed = 7, .now_ms = 1000000});
}

static ctx_t *ctx_new(void)
{
    kc_coord_config_t cfg = config();
    return ctx_new_cfg(&cfg);
}

/* How many records of a type were written since record index from;
 * tombstones counted apart. */
static int count_records(const ctx_t *t, size_t from, int16_t type, bool tombstone)
{
    int n = 0;
    for (size_t i = from; i < t->nrecs; i++) {
        const rec_t *r = &t->recs[i];
        int16_t ty = (int16_t)((r->key.data[0] << 8) | r->key.data[1]);
        n += ty == type && r->tombstone == tombstone;
    }
    return n;
}

/* ---- a simulated consumer ----------------------------------------------------- */

typedef struct {
    char member_id[64];
    int32_t epoch;
    bool owned[MAXT][NPART];
} client_t;

typedef struct {
    int16_t error;
    char message[256];
    int32_t epoch;
    bool has_assignment;
} hb_t;

/* One heartbeat at v1; regex NULL = not sent (unchanged); names_n < 0 = no
 * topic names sent. Epoch 0 sends the rebalance timeout and no owned
 * partitions; other epochs report what the client owns. */
static hb_t heartbeat(ctx_t *t, client_t *cl, int32_t epoch, const char *regex, const char **names,
                      int32_t names_n)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_heartbeat_request_t req;
    kc_consumer_group_heartbeat_request_init(&req);
    req.group_id = kc_str(group_name);
    req.member_id = kc_str(cl->member_id);
    req.member_epoch = epoch;
    req.subscribed_topic_regex = regex ? kc_str(regex) : KC_STR_NULL;
    kc_str_t sn[MAXT];
    for (int32_t i = 0; i < names_n; i++)
        sn[i] = kc_str(names[i]);
    if (names_n >= 0) {
        req.subscribed_topic_names.items = sn;
        req.subscribed_topic_names.count = names_n;
    }
    if (epoch == 0)
        req.rebalance_timeout_ms = 30000;
    kc_consumer_group_heartbeat_request_topic_partitions_t tps[MAXT];
    int32_t parts[MAXT][NPART];
    req.topic_partitions.items = tps;
    req.topic_partitions.count = 0;
    if (epoch != 0)
        for (int i = 0; i < ntopics; i++) {
            int32_t n = 0;
            for (int p = 0; p < NPART; p++)
                if (cl->owned[i][p])
                    parts[i][n++] = p;
            if (n == 0)
                continue;
            tps[req.topic_partitions.count].topic_id = topics[i].id;
            tps[req.topic_partitions.count].partitions.items = parts[i];
            tps[req.topic_partitions.count].partitions.count = n;
            req.topic_partitions.count++;
        }
    kc_request_ctx_t ctx = {1, 1, 68, 1, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_consumer_group_heartbeat(t->c, &ctx, &req, &res);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 1);
    kc_consumer_group_heartbeat_response_t r;
    kc_consumer_group_heartbeat_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_consumer_group_heartbeat_response_decode(&rd, 1, &arena, &r), 0);
    hb_t h;
    memset(&h, 0, sizeof(h));
    h.error = r.error_code;
    if (r.error_message.len > 0)
        snprintf(h.message, sizeof(h.message), "%.*s", (int)r.error_message.len,
                 r.error_message.ptr);
    h.epoch = r.member_epoch;
    if (h.error == E_NONE) {
        cl->epoch = h.epoch;
        if (r.assignment) {
            h.has_assignment = true;
            memset(cl->owned, 0, sizeof(cl->owned));
            for (int32_t i = 0; i < r.assignment->topic_partitions.count; i++) {
                int ti = topic_index_id(r.assignment->topic_partitions.items[i].topic_id);
                assert_true(ti >= 0);
                for (int32_t j = 0; j < r.assignment->topic_partitions.items[i].partitions.count; j++)
                    cl->owned[ti][r.assignment->topic_partitions.items[i].partitions.items[j]] = true;
            }
        }
    }
    kc_result_deinit(&res);
    kc_arena_deinit(&arena);
    return h;
}

static hb_t join_regex(ctx_t *t, client_t *cl, const char *id, const char *regex)
{
    snprintf(cl->member_id, sizeof(cl->member_id), "%s", id);
    return heartbeat(t, cl, 0, regex, NULL, -1);
}

static hb_t beat(ctx_t *t, client_t *cl)
{
    return heartbeat(t, cl, cl->epoch, NULL, NULL, -1);
}

/* Number of partitions of topic name the client owns. */
static int owns(const client_t *cl, const char *name)
{
    int i = topic_index(kc_str(name));
    assert_true(i >= 0);
    int n = 0;
    for (int p = 0; p < NPART; p++)
        n += cl->owned[i][p];
    return n;
}

/* ---- regex subscriptions ---------------------------------------------------------- */

/* After GroupMetadataManagerTest.testConsumerGroupMemberJoinsWithNewRegex: a
 * member joining with a new regex is answered before the resolution (epoch 1,
 * nothing assigned, no record 16); the resolution is its own write, record 16
 * and a new group epoch, after which the member gets the partitions of the
 * matching topics. */
static void test_regex_resolved_after_heartbeat_then_assigned(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("orders");
    add_topic("orders-eu");
    add_topic("payments");
    client_t a = {0};
    hb_t h = join_regex(t, &a, "m-a", "orders.*");
    assert_int_equal(h.error, E_NONE);
    /* Answered before the resolution: epoch 1, nothing assigned yet. */
    assert_int_equal(h.epoch, 1);
    assert_true(h.has_assignment);
    assert_int_equal(owns(&a, "orders"), 0);
    assert_int_equal(count_records(t, 0, 16, false), 0);
    /* The resolution is its own write: record 16 and a new group epoch. */
    size_t mark = t->nrecs;
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, mark, 16, false), 1);
    assert_int_equal(count_records(t, mark, 3, false), 1);
    h = beat(t, &a);
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, 2);
    assert_int_equal(owns(&a, "orders"), NPART);
    assert_int_equal(owns(&a, "orders-eu"), NPART);
    assert_int_equal(owns(&a, "payments"), 0);
    ct_free(t);
}

static void test_regex_matches_whole_topic_name(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("foo");
    add_topic("foo1");
    add_topic("xfoo");
    client_t a = {0}, b = {0};
    join_regex(t, &a, "m-a", "foo");
    ct_sleep(t, 0);
    beat(t, &a);
    assert_int_equal(owns(&a, "foo"), NPART);
    assert_int_equal(owns(&a, "foo1"), 0);
    assert_int_equal(owns(&a, "xfoo"), 0);
    /* Alternation backtracks to a whole match, as Matcher.matches(). The
     * new regex waits for the minimum interval since the last resolution. */
    join_regex(t, &b, "m-b", "foo|foo1");
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, 0, 16, false), 1);
    ct_sleep(t, 10001);
    beat(t, &a);
    beat(t, &b);
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, 0, 16, false), 3);
    for (int i = 0; i < 4; i++) {
        beat(t, &a);
        beat(t, &b);
    }
    assert_int_equal(owns(&a, "foo") + owns(&b, "foo"), NPART);
    assert_int_equal(owns(&b, "foo1"), NPART);
    assert_int_equal(owns(&a, "xfoo") + owns(&b, "xfoo"), 0);
    ct_free(t);
}

static void test_pathological_regex_gives_up(void **state)
{
    (void)state;
    /* Exponential backtracking on a long subject (the b after the c defeats
     * PCRE2's required-character shortcut): the backtracking budget ends it
     * as no match. */
    char err[128];
    kc_regex_t *re = kc_regex_compile("(a+)+b", 6, err, sizeof(err));
    assert_non_null(re);
    const char *name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaacb";
    assert_false(kc_regex_matches(re, name, strlen(name)));
    assert_true(kc_regex_matches(re, "aab", 3));
    kc_regex_free(re);
}

/* After GroupMetadataManagerTest.testConsumerHeartbeatRegexValidation: a join
 * with an invalid regex is INVALID_REGULAR_EXPRESSION naming it and creates
 * nothing, so a valid join then starts the group at epoch 1; changing to an
 * invalid regex later fails too and leaves the member as it was. */
static void test_invalid_regex_is_invalid_regular_expression(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("orders");
    client_t a = {0};
    hb_t h = join_regex(t, &a, "m-a", "orders[");
    assert_int_equal(h.error, E_INVALID_REGULAR_EXPRESSION);
    assert_non_null(strstr(h.message, "orders["));
    assert_int_equal(t->nrecs, 0);
    /* Nothing was created: a valid join starts the group at epoch 1. */
    h = join_regex(t, &a, "m-a", "orders");
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, 1);
    /* Changing to a bad regex later fails too and keeps the member as it was. */
    ct_sleep(t, 0);
    beat(t, &a);
    h = heartbeat(t, &a, a.epoch, "(", NULL, -1);
    assert_int_equal(h.error, E_INVALID_REGULAR_EXPRESSION);
    h = beat(t, &a);
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(owns(&a, "orders"), NPART);
    ct_free(t);
}

/* Patterns are checked against RE2's syntax (Kafka compiles them with
 * RE2/J) and refused with RE2/J's descriptions, also where PCRE2 alone
 * would accept them or word the error otherwise. */
static void test_regex_syntax_is_re2s(void **state)
{
    (void)state;
    static const struct {
        const char *re, *err;
    } bad[] = {
        {"(unclosed", "missing closing )"},
        {"[abc", "missing closing ]"},
        {"abc)", "regexp/syntax: internal error"},
        {"a**", "invalid nested repetition operator"},
        {"a++", "invalid nested repetition operator"},
        {"*a", "missing argument to repetition operator"},
        {"x{2,1}", "invalid repeat count"},
        {"x{1001}", "invalid repeat count"},
        {"a\\", "trailing backslash at end of expression"},
        {"(?=x)y", "invalid or unsupported Perl syntax"},
        {"(?>a)", "invalid or unsupported Perl syntax"},
        {"(?i", "invalid or unsupported Perl syntax"},
        {"(a)\\1", "invalid escape sequence"},
        {"\\Z", "invalid escape sequence"},
        {"[z-a]", "invalid character class range"},
        {"[[:foo:]]", "invalid character class range"},
        {"\\p{Foo}", "invalid character class range"},
        {"(?<name", "invalid named capture"},
        {"(?<=a)b", "invalid named capture"},
    };
    char err[128];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        kc_regex_t *re = kc_regex_compile(bad[i].re, strlen(bad[i].re), err, sizeof(err));
        if (re)
            print_error("%s compiled\n", bad[i].re);
        assert_null(re);
        if (strcmp(err, bad[i].err) != 0)
            print_error("%s: %s\n", bad[i].re, err);
        assert_string_equal(err, bad[i].err);
    }
    static const char *const good[] = {"(?i)abc", "a{,3}", "[[:alpha:]]+", "\\pL", "(?P<n>x)",
                                       "[]a]", "\\Q", "a{1000}", "[\\d-z]", "\\x{41}", "x*?"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        kc_regex_t *re = kc_regex_compile(good[i], strlen(good[i]), err, sizeof(err));
        if (!re)
            print_error("%s: %s\n", good[i], err);
        assert_non_null(re);
        kc_regex_free(re);
    }
    kc_regex_t *re = kc_regex_compile("[\\d-z]+", 7, err, sizeof(err));
    assert_true(kc_regex_matches(re, "1-z", 3));
    assert_false(kc_regex_matches(re, "y", 1));
    kc_regex_free(re);
}

/* After GroupMetadataManagerTest.testConsumerGroupMemberJoinRefreshesExpiredRegexes:
 * a topic created after the resolution joins the assignment through the
 * resolution started by the first heartbeat past the minimum interval, not
 * before; with nothing new, the regex is resolved again only after the
 * refresh interval, with no epoch bump. */
static void test_created_topic_joins_after_min_interval(void **state)
{
    (void)state;
    kc_coord_config_t cfg = config();
    cfg.group_consumer_regex_refresh_min_interval_ms = 10000;
    cfg.group_consumer_regex_refresh_interval_ms = 40000;
    ctx_t *t = ctx_new_cfg(&cfg);
    add_topic("logs-a");
    client_t a = {0};
    join_regex(t, &a, "m-a", "logs-.*");
    ct_sleep(t, 0);
    beat(t, &a);
    int32_t epoch = a.epoch;
    assert_int_equal(owns(&a, "logs-a"), NPART);
    add_topic("logs-b");
    kc_coord_topic_created(t->c, kc_str("logs-b"));
    /* Within the minimum interval of the last resolution: no refresh. */
    ct_sleep(t, 5000);
    size_t mark = t->nrecs;
    beat(t, &a);
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, mark, 16, false), 0);
    assert_int_equal(a.epoch, epoch);
    /* Past it, the next heartbeat starts one; the topic joins the assignment. */
    ct_sleep(t, 5001);
    beat(t, &a);
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, mark, 16, false), 1);
    beat(t, &a);
    assert_true(a.epoch > epoch);
    assert_int_equal(owns(&a, "logs-b"), NPART);
    /* Nothing new: no refresh before the refresh interval. */
    mark = t->nrecs;
    ct_sleep(t, 20000);
    beat(t, &a);
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, mark, 16, false), 0);
    /* Past group.consumer.regex.refresh.interval.ms it refreshes; same topics,
     * same epoch. */
    epoch = a.epoch;
    ct_sleep(t, 21000);
    beat(t, &a);
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, mark, 16, false), 1);
    assert_int_equal(count_records(t, mark, 3, false), 0);
    beat(t, &a);
    assert_int_equal(a.epoch, epoch);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testConsumerGroupMemberPicksUpExistingResolvedRegularExpression
 * and testResolvedRegularExpressionsRemovedWhenMembersLeaveOrFenced: a member
 * joining with an already resolved regex needs no new resolution; the
 * resolution stays while a member uses the regex, and the last member to
 * switch away from it or to leave tombstones it. */
static void test_last_member_of_regex_tombstones_it(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("x1");
    add_topic("y1");
    client_t a = {0}, b = {0};
    join_regex(t, &a, "m-a", "x.*");
    ct_sleep(t, 0);
    join_regex(t, &b, "m-b", "x.*");
    /* An already resolved regex bumps the epoch at once, no new resolution. */
    assert_int_equal(count_records(t, 0, 16, false), 1);
    size_t mark = t->nrecs;
    heartbeat(t, &a, -1, NULL, NULL, -1);
    assert_int_equal(count_records(t, mark, 16, true), 0);
    /* b switches to another regex: the last member of x.* tombstones it. */
    ct_sleep(t, 20000);
    beat(t, &b);
    heartbeat(t, &b, b.epoch, "y.*", NULL, -1);
    assert_int_equal(count_records(t, mark, 16, true), 1);
    ct_sleep(t, 0);
    for (int i = 0; i < 3; i++)
        beat(t, &b);
    assert_int_equal(owns(&b, "y1"), NPART);
    assert_int_equal(owns(&b, "x1"), 0);
    /* Leaving tombstones y.* too. */
    mark = t->nrecs;
    heartbeat(t, &b, -1, NULL, NULL, -1);
    assert_int_equal(count_records(t, mark, 16, true), 1);
    ct_free(t);
}

/* GroupMetadataManagerTest.testConsumerGroupMemberJoinsWithUpdatedRegex: a
 * member switching to a regex no member has tombstones the old regex's
 * resolution at once, but the group epoch waits for the new resolution
 * (REGEX_UPDATED, not resolved); the resolution writes record 16 and bumps
 * the epoch once, and the member then moves to the new regex's topics. */
static void test_consumer_group_member_joins_with_updated_regex(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("p1");
    add_topic("q1");
    client_t a = {0};
    join_regex(t, &a, "m-a", "p.*");
    ct_sleep(t, 0);
    beat(t, &a);
    assert_int_equal(owns(&a, "p1"), NPART);
    ct_sleep(t, 10001);
    beat(t, &a);
    /* Switching to a regex no member has: its old resolution goes, but the
     * group epoch waits for the new one (REGEX_UPDATED, not resolved). */
    size_t mark = t->nrecs;
    hb_t h = heartbeat(t, &a, a.epoch, "q.*", NULL, -1);
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(count_records(t, mark, 16, true), 1);
    assert_int_equal(count_records(t, mark, 3, false), 0);
    ct_sleep(t, 0);
    assert_int_equal(count_records(t, mark, 16, false), 1);
    assert_int_equal(count_records(t, mark, 3, false), 1);
    for (int i = 0; i < 3; i++)
        beat(t, &a);
    assert_int_equal(owns(&a, "q1"), NPART);
    assert_int_equal(owns(&a, "p1"), 0);
    assert_int_equal(count_records(t, mark, 3, false), 1);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testConsumerGroupMemberClearsRegex: a member
 * subscribing by names and a regex gets the topics of both; dropping the
 * regex (an empty string) is a change already resolved, so the epoch goes up
 * at once and the regex's topic is revoked. */
static void test_regex_and_names_together(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("a1");
    add_topic("b1");
    client_t m = {0};
    snprintf(m.member_id, sizeof(m.member_id), "m");
    const char *names[] = {"b1"};
    heartbeat(t, &m, 0, "a.*", names, 1);
    assert_int_equal(owns(&m, "b1"), NPART);
    ct_sleep(t, 0);
    beat(t, &m);
    assert_int_equal(owns(&m, "a1"), NPART);
    assert_int_equal(owns(&m, "b1"), NPART);
    /* Dropping the regex (empty string) is a change already resolved: the
     * epoch goes up at once and a1 is revoked. */
    int32_t epoch = m.epoch;
    heartbeat(t, &m, m.epoch, "", NULL, -1);
    beat(t, &m);
    assert_true(m.epoch > epoch);
    assert_int_equal(owns(&m, "a1"), 0);
    assert_int_equal(owns(&m, "b1"), NPART);
    ct_free(t);
}

static void test_static_replacement_keeps_regex_resolution(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("s1");
    /* A static member joins, leaves with -2 and is replaced by a new member
     * id with the same instance id and regex (heartbeat() sends no instance
     * id, so the requests are made here). */
    kc_consumer_group_heartbeat_request_t req;
    kc_request_ctx_t ctx = {1, 1, 68, 1, kc_str("client"), "/127.0.0.1", 0};
    kc_result_t res;
    const char *ids[] = {"m-a", "m-a", "m-b"};
    const int32_t epochs[] = {0, -2, 0};
    for (int i = 0; i < 3; i++) {
        if (i == 1) {
            ct_sleep(t, 0); /* the regex is resolved */
            assert_int_equal(count_records(t, 0, 16, false), 1);
        }
        kc_consumer_group_heartbeat_request_init(&req);
        req.group_id = kc_str(group_name);
        req.member_id = kc_str(ids[i]);
        req.member_epoch = epochs[i];
        req.instance_id = kc_str("inst");
        if (epochs[i] == 0) {
            req.subscribed_topic_regex = kc_str("s.*");
            req.rebalance_timeout_ms = 30000;
            req.topic_partitions.count = 0;
        }
        ctx.now_ms = t->now;
        kc_result_init(&res);
        kc_coord_consumer_group_heartbeat(t->c, &ctx, &req, &res);
        ct_keep(t, &res);
        kc_result_deinit(&res);
    }
    /* The replacement kept the regex: no tombstone, the resolution stays. */
    assert_int_equal(count_records(t, 0, 16, true), 0);
    kc_consumer_group_t *g = kc_consumer_group_find(t->c, kc_str(group_name));
    assert_non_null(g);
    assert_true(kc_consumer_group_is_subscribed_to(g, kc_str("s1")));
    ct_free(t);
}

/* A coordinator rebuilt from every record written so far. */
static kc_coord_t *replay_all(ctx_t *t) { return ct_replayed(t, false); }

static void test_replay_keeps_resolved_regex(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("r1");
    add_topic("r2");
    client_t a = {0};
    join_regex(t, &a, "m-a", "r.*");
    ct_sleep(t, 0);
    beat(t, &a);
    int32_t epoch = a.epoch;
    assert_int_equal(owns(&a, "r1") + owns(&a, "r2"), 2 * NPART);
    kc_coord_t *r = replay_all(t);
    kc_coord_free(t->c);
    t->c = r;
    /* The replayed resolution counts: the heartbeat keeps epoch and
     * assignment without waiting for a new resolution. */
    size_t mark = t->nrecs;
    hb_t h = heartbeat(t, &a, a.epoch, "r.*", NULL, -1);
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(a.epoch, epoch);
    assert_int_equal(owns(&a, "r1") + owns(&a, "r2"), 2 * NPART);
    assert_int_equal(count_records(t, mark, 3, false), 0);
    /* The replayed member counts as the regex's subscriber: leaving
     * tombstones the resolution. */
    heartbeat(t, &a, -1, NULL, NULL, -1);
    assert_int_equal(count_records(t, mark, 16, true), 1);
    ct_free(t);
}

static void test_deleted_topic_leaves_assignment(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("d1");
    add_topic("d2");
    client_t a = {0};
    join_regex(t, &a, "m-a", "d.*");
    ct_sleep(t, 0);
    beat(t, &a);
    assert_int_equal(owns(&a, "d2"), NPART);
    int32_t epoch = a.epoch;
    /* d2 goes (the last topic of the view): the next heartbeat sees a new
     * metadata hash, bumps the epoch and revokes d2. */
    memset(a.owned[1], 0, sizeof(a.owned[1]));
    ntopics--;
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_topic_deleted(t->c, kc_str("d2"), t->now, &res);
    ct_keep(t, &res);
    kc_result_deinit(&res);
    beat(t, &a);
    beat(t, &a);
    assert_true(a.epoch > epoch);
    assert_int_equal(owns(&a, "d1"), NPART);
    ct_free(t);
}

/* A topic deleted and created again under its name has a new id: the
 * members subscribing to it by name give up the old id's partitions and
 * get the new id's (the coordinator's subscription rows and topic ids of
 * the last target assignment must not answer for the old id). */
static void test_recreated_topic_assigned_under_new_id(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("x");
    add_topic("y");
    const char *names[] = {"x", "y"};
    client_t a = {0}, b = {0};
    snprintf(a.member_id, sizeof(a.member_id), "m-a");
    snprintf(b.member_id, sizeof(b.member_id), "m-b");
    assert_int_equal(heartbeat(t, &a, 0, NULL, names, 2).error, E_NONE);
    assert_int_equal(heartbeat(t, &b, 0, NULL, names, 2).error, E_NONE);
    for (int i = 0; i < 4; i++) {
        beat(t, &a);
        beat(t, &b);
    }
    assert_int_equal(owns(&a, "y") + owns(&b, "y"), NPART);
    int32_t epoch = a.epoch;
    /* y is deleted and created again: same name, new id. The clients drop
     * the old partitions as a consumer does when the topic goes. */
    kc_result_t res;
    kc_result_init(&res);
    ntopics--;
    memset(a.owned[1], 0, sizeof(a.owned[1]));
    memset(b.owned[1], 0, sizeof(b.owned[1]));
    kc_coord_topic_deleted(t->c, kc_str("y"), t->now, &res);
    topics[ntopics].id.b[1] = 0x77;
    ntopics++;
    kc_coord_topic_created(t->c, kc_str("y"));
    ct_keep(t, &res);
    kc_result_deinit(&res);
    for (int i = 0; i < 4; i++) {
        beat(t, &a);
        beat(t, &b);
    }
    assert_true(a.epoch > epoch);
    assert_int_equal(a.epoch, b.epoch);
    /* Every partition of both topics is owned once, under the current ids
     * (heartbeat() fails on an id the view does not know). */
    assert_int_equal(owns(&a, "x") + owns(&b, "x"), NPART);
    assert_int_equal(owns(&a, "y") + owns(&b, "y"), NPART);
    ct_free(t);
}

/* After GroupMetadataManagerTest.testUpdatingSubscriptionTriggersNewTargetAssignment:
 * a member changing its subscription (other names, then a regex) is assigned
 * by the new one at once while the other member's is unchanged (the
 * coordinator keeps each member's subscription from one target assignment to
 * the next). */
static void test_subscription_change_reassigns(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("x");
    add_topic("y");
    const char *both[] = {"x", "y"}, *only_y[] = {"y"};
    client_t a = {0}, b = {0};
    snprintf(a.member_id, sizeof(a.member_id), "m-a");
    snprintf(b.member_id, sizeof(b.member_id), "m-b");
    assert_int_equal(heartbeat(t, &a, 0, NULL, both, 2).error, E_NONE);
    assert_int_equal(heartbeat(t, &b, 0, NULL, both, 2).error, E_NONE);
    for (int i = 0; i < 4; i++) {
        beat(t, &a);
        beat(t, &b);
    }
    assert_int_equal(owns(&a, "x") + owns(&a, "y"), NPART);
    assert_int_equal(owns(&b, "x") + owns(&b, "y"), NPART);
    /* a subscribes to y only: it holds no x and a share of y. */
    assert_int_equal(heartbeat(t, &a, a.epoch, NULL, only_y, 1).error, E_NONE);
    for (int i = 0; i < 4; i++) {
        beat(t, &a);
        beat(t, &b);
    }
    assert_int_equal(owns(&a, "x"), 0);
    assert_true(owns(&a, "y") >= 1);
    assert_int_equal(owns(&b, "x"), NPART);
    assert_int_equal(owns(&a, "y") + owns(&b, "y"), NPART);
    /* a subscribes to x through a regex (names emptied): once the regex
     * is resolved, a holds no y and a share of x. */
    assert_int_equal(heartbeat(t, &a, a.epoch, "x", NULL, 0).error, E_NONE);
    ct_sleep(t, 0);
    for (int i = 0; i < 4; i++) {
        beat(t, &a);
        beat(t, &b);
    }
    assert_int_equal(owns(&a, "y"), 0);
    assert_true(owns(&a, "x") >= 1);
    assert_int_equal(owns(&b, "y"), NPART);
    assert_int_equal(owns(&a, "x") + owns(&b, "x"), NPART);
    ct_free(t);
}

/* ---- offsets of consumer groups ---------------------------------------------------- */

static void commit(ctx_t *t, const char *topic, int32_t partition, const client_t *cl)
{
    kc_offset_commit_request_t req;
    kc_offset_commit_request_init(&req);
    req.group_id = kc_str(group_name);
    req.member_id = cl ? kc_str(cl->member_id) : kc_str("");
    req.generation_id_or_member_epoch = cl ? cl->epoch : -1;
    kc_offset_commit_request_partition_t p;
    memset(&p, 0, sizeof(p));
    p.partition_index = partition;
    p.committed_offset = 5;
    p.committed_leader_epoch = -1;
    p.committed_metadata = kc_str("");
    p.commit_timestamp = -1;
    kc_offset_commit_request_topic_t tp;
    memset(&tp, 0, sizeof(tp));
    tp.name = kc_str(topic);
    tp.partitions.items = &p;
    tp.partitions.count = 1;
    req.topics.items = &tp;
    req.topics.count = 1;
    kc_request_ctx_t ctx = {1, 2, 8, 9, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_commit(t->c, &ctx, &req, &res);
    ct_keep(t, &res);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_offset_commit_response_t r;
    kc_offset_commit_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_offset_commit_response_decode(&rd, 9, &arena, &r), 0);
    assert_int_equal(r.topics.items[0].partitions.items[0].error_code, E_NONE);
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
}

/* OffsetDelete of one partition: the group error, else the partition's. */
static int16_t offset_delete(ctx_t *t, const char *topic, int32_t partition)
{
    kc_offset_delete_request_t req;
    kc_offset_delete_request_init(&req);
    req.group_id = kc_str(group_name);
    kc_offset_delete_request_partition_t p = {0};
    p.partition_index = partition;
    kc_offset_delete_request_topic_t tp;
    memset(&tp, 0, sizeof(tp));
    tp.name = kc_str(topic);
    tp.partitions.items = &p;
    tp.partitions.count = 1;
    req.topics.items = &tp;
    req.topics.count = 1;
    kc_request_ctx_t ctx = {1, 3, 47, 0, kc_str("admin"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_delete(t->c, &ctx, &req, &res);
    ct_keep(t, &res);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_offset_delete_response_t r;
    kc_offset_delete_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_offset_delete_response_decode(&rd, 0, &arena, &r), 0);
    int16_t err = r.error_code;
    if (err == E_NONE) {
        assert_int_equal(r.topics.count, 1);
        err = r.topics.items[0].partitions.items[0].error_code;
    }
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    return err;
}

typedef struct {
    const char *topic;
    int32_t partition;
    bool found;
} want_t;

static void find_offset(void *arg, const kc_offset_view_t *o)
{
    want_t *w = arg;
    if (strcmp(o->topic, w->topic) == 0 && o->partition == w->partition)
        w->found = true;
}

static bool has_offset(ctx_t *t, const char *topic, int32_t partition)
{
    want_t w = {topic, partition, false};
    kc_coord_inspect_offsets(t->c, kc_str(group_name), find_offset, &w);
    return w.found;
}

/* After OffsetMetadataManagerTest.testConsumerGroupOffsetDeleteWithErrors:
 * OffsetDelete of a topic the consumer group subscribes to, by name or
 * through a regex, is GROUP_SUBSCRIBED_TO_TOPIC and keeps the offset; another
 * topic's offset is deleted, and once the member has left nothing is
 * subscribed. */
static void test_offset_delete_subscribed_topic(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    add_topic("named");
    add_topic("rx1");
    add_topic("other");
    client_t a = {0};
    snprintf(a.member_id, sizeof(a.member_id), "m-a");
    const char *names[] = {"named"};
    heartbeat(t, &a, 0, "rx.*", names, 1);
    ct_sleep(t, 0);
    beat(t, &a);
    commit(t, "named", 0, &a);
    commit(t, "rx1", 0, &a);
    commit(t, "other", 0, &a);
    /* Subscribed by name or through the regex: GROUP_SUBSCRIBED_TO_TOPIC. */
    assert_int_equal(offset_delete(t, "named", 0), E_GROUP_SUBSCRIBED_TO_TOPIC);
    assert_int_equal(offset_delete(t, "rx1", 0), E_GROUP_SUBSCRIBED_TO_TOPIC);
    assert_true(has_offset(t, "rx1", 0));
    assert_int_equal(offset_delete(t, "other", 0), E_NONE);
    assert_false(has_offset(t, "other", 0));
    /* Once the member has left, nothing is subscribed. */
    heartbeat(t, &a, -1, NULL, NULL, -1);
    assert_int_equal(offset_delete(t, "rx1", 0), E_NONE);
    assert_false(has_offset(t, "rx1", 0));
    ct_free(t);
}

/* After OffsetMetadataManagerTest.testCleanupExpiredOffsets: past the
 * retention, the offset of a topic the member does not subscribe to expires
 * while the subscribed one stays; once the group is empty its offset expires
 * a retention after the last commit, and the group is deleted with it
 * (tombstones of records 6 and 3). */
static void test_offsets_expire_then_empty_group_deleted(void **state)
{
    (void)state;
    kc_coord_config_t cfg = config();
    cfg.offsets_retention_ms = 60000;
    cfg.offsets_retention_check_interval_ms = 1000;
    ctx_t *t = ctx_new_cfg(&cfg);
    add_topic("sub");
    add_topic("old");
    client_t a = {0};
    snprintf(a.member_id, sizeof(a.member_id), "m-a");
    const char *names[] = {"sub"};
    heartbeat(t, &a, 0, NULL, names, 1);
    commit(t, "sub", 0, &a);
    commit(t, "old", 0, &a);
    /* Past the retention, while the member stays: the offset of the topic
     * it does not subscribe to expires, the subscribed one stays. */
    for (int i = 0; i < 7; i++) {
        ct_sleep(t, 10000);
        beat(t, &a);
    }
    ct_sleep(t, 2000);
    assert_false(has_offset(t, "old", 0));
    assert_true(has_offset(t, "sub", 0));
    assert_non_null(kc_consumer_group_find(t->c, kc_str(group_name)));
    /* The member leaves and an admin commits again: the empty group keeps
     * its offset for the retention after that commit, then the offset
     * expires and the group is deleted with it (tombstones 6, 3). */
    heartbeat(t, &a, -1, NULL, NULL, -1);
    commit(t, "sub", 0, NULL);
    ct_sleep(t, 30000);
    assert_true(has_offset(t, "sub", 0));
    assert_non_null(kc_consumer_group_find(t->c, kc_str(group_name)));
    size_t mark = t->nrecs;
    ct_sleep(t, 31000);
    assert_false(has_offset(t, "sub", 0));
    assert_null(kc_consumer_group_find(t->c, kc_str(group_name)));
    assert_int_equal(count_records(t, mark, 3, true), 1);
    assert_int_equal(count_records(t, mark, 6, true), 1);
    ct_free(t);
}

static void test_empty_group_without_offsets_deleted_at_next_check(void **state)
{
    (void)state;
    kc_coord_config_t cfg = config();
    cfg.offsets_retention_check_interval_ms = 1000;
    ctx_t *t = ctx_new_cfg(&cfg);
    add_topic("sub");
    client_t a = {0};
    join_regex(t, &a, "m-a", "s.*");
    ct_sleep(t, 0);
    ct_sleep(t, 1500);
    assert_non_null(kc_consumer_group_find(t->c, kc_str(group_name)));
    heartbeat(t, &a, -1, NULL, NULL, -1);
    /* As Kafka's cleanupGroupMetadata: no offset left to expire, so the
     * empty group is deleted by the next check. */
    ct_sleep(t, 1000);
    assert_null(kc_consumer_group_find(t->c, kc_str(group_name)));
    ct_free(t);
}

/* ---- ListGroups ---------------------------------------------------------------- */

/* ListGroups v5 with an optional type filter; writes the listed ids,
 * comma-separated, into out. */
static void list_groups(ctx_t *t, const char *type, char *out, size_t cap)
{
    kc_list_groups_request_t req;
    kc_list_groups_request_init(&req);
    kc_str_t types[1] = {kc_str(type)};
    if (type) {
        req.types_filter.items = types;
        req.types_filter.count = 1;
    }
    kc_request_ctx_t ctx = {1, 4, 16, 5, kc_str("admin"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_list_groups(t->c, &ctx, &req, &res);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_list_groups_response_t r;
    kc_list_groups_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_list_groups_response_decode(&rd, 5, &arena, &r), 0);
    size_t w = 0;
    out[0] = '\0';
    for (int32_t i = 0; i < r.groups.count; i++)
        w += (size_t)snprintf(out + w, cap - w, "%s%.*s", i ? "," : "",
                              (int)r.groups.items[i].group_id.len, r.groups.items[i].group_id.ptr);
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
}

static void test_list_groups_one_table_for_both_types(void **state)
{
    (void)state;
    /* The same ids created in the same order list in the same order,
     * whether each is a consumer group or a classic one: Kafka keeps both
     * types in one table per __consumer_offsets partition. */
    enum { N = 60 };
    static char ids[N][16];
    static char mixed[N * 16], classic_only[N * 16], consumers[N * 16], expected[N * 16];
    for (int pass = 0; pass < 2; pass++) {
        ctx_t *t = ctx_new();
        add_topic("lt");
        for (int i = 0; i < N; i++) {
            snprintf(ids[i], sizeof(ids[i]), "lg-%d", i);
            group_name = ids[i];
            client_t m = {0};
            if (pass == 0 && i % 3 == 1) {
                const char *names[] = {"lt"};
                snprintf(m.member_id, sizeof(m.member_id), "m-%d", i);
                assert_int_equal(heartbeat(t, &m, 0, NULL, names, 1).error, E_NONE);
            } else {
                commit(t, "lt", 0, NULL); /* a simple classic group */
            }
        }
        list_groups(t, NULL, pass == 0 ? mixed : classic_only, sizeof(mixed));
        if (pass == 0)
            list_groups(t, "consumer", consumers, sizeof(consumers));
        ct_free(t);
    }
    assert_string_equal(mixed, classic_only);
    /* The type filter keeps the consumer groups in that order. */
    size_t w = 0;
    expected[0] = '\0';
    char *save = NULL;
    for (char *id = strtok_r(mixed, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        int i = atoi(id + 3);
        if (i % 3 == 1)
            w += (size_t)snprintf(expected + w, sizeof(expected) - w, "%s%s", w ? "," : "", id);
    }
    assert_string_equal(consumers, expected);
}

/* Reorders the log: offsets (types 0, 1) first, then the other records,
 * each in log order (what compaction can leave). */
static void offsets_first(ctx_t *t)
{
    rec_t *order = calloc(t->nrecs, sizeof(*order));
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < t->nrecs; i++) {
            int16_t ty = (int16_t)((t->recs[i].key.data[0] << 8) | t->recs[i].key.data[1]);
            if ((ty <= 1) == (pass == 0))
                order[n++] = t->recs[i];
        }
    assert_int_equal(n, t->nrecs);
    memcpy(t->recs, order, n * sizeof(*order));
    free(order);
}

static void test_replayed_offsets_before_group_records(void **state)
{
    (void)state;
    /* Compaction can leave a group's offsets ahead of its group records in
     * the log: the simple classic group the offsets make on replay gives way
     * to the consumer group (getOrMaybeCreatePersistedConsumerGroup). */
    ctx_t *t = ctx_new();
    add_topic("o1");
    client_t a = {0};
    snprintf(a.member_id, sizeof(a.member_id), "m-a");
    const char *names[] = {"o1"};
    heartbeat(t, &a, 0, NULL, names, 1);
    commit(t, "o1", 0, &a);
    offsets_first(t);
    assert_true(((t->recs[0].key.data[0] << 8) | t->recs[0].key.data[1]) <= 1);
    kc_coord_t *c = replay_all(t);
    assert_null(kc_classic_group_find(c, kc_str("g")));
    assert_non_null(kc_consumer_group_find(c, kc_str("g")));
    kc_coord_free(t->c);
    t->c = c;
    char listed[256];
    list_groups(t, NULL, listed, sizeof(listed));
    assert_string_equal(listed, "g");
    assert_true(has_offset(t, "o1", 0));
    ct_free(t);
}

static void test_replayed_offsets_first_keep_table_order(void **state)
{
    (void)state;
    /* The consumer group replayed after its offsets takes the place of the
     * simple group they made (a put of an existing key keeps its entry), so
     * the groups list in the order their offsets came. */
    enum { N = 120 };
    static char ids[N][16];
    static char replayed[N * 16], by_offsets[N * 16], by_groups[N * 16];
    static client_t members[N];
    const char *names[] = {"o1"};
    ctx_t *t = ctx_new();
    add_topic("o1");
    for (int i = 0; i < N; i++) {
        snprintf(ids[i], sizeof(ids[i]), "rg-%d", i);
        group_name = ids[i];
        memset(&members[i], 0, sizeof(members[i]));
        snprintf(members[i].member_id, sizeof(members[i].member_id), "m-%d", i);
        assert_int_equal(heartbeat(t, &members[i], 0, NULL, names, 1).error, E_NONE);
    }
    for (int i = N - 1; i >= 0; i--) {
        group_name = ids[i];
        commit(t, "o1", 0, &members[i]);
    }
    offsets_first(t);
    kc_coord_t *c = replay_all(t);
    kc_coord_free(t->c);
    t->c = c;
    list_groups(t, "consumer", replayed, sizeof(replayed));
    ct_free(t);
    /* References: simple groups made in each order. */
    for (int pass = 0; pass < 2; pass++) {
        t = ctx_new();
        add_topic("o1");
        for (int k = 0; k < N; k++) {
            group_name = ids[pass == 0 ? N - 1 - k : k];
            commit(t, "o1", 0, NULL);
        }
        list_groups(t, NULL, pass == 0 ? by_offsets : by_groups, sizeof(replayed));
        ct_free(t);
    }
    assert_string_not_equal(by_offsets, by_groups);
    assert_string_not_equal(replayed, by_groups);
    /* Each consumer group keeps its simple group's entry, but its put still
     * grows a partition's table that it brings past three quarters (Kafka
     * checks before looking for the key), so two groups that shared a slot
     * of a 2-slot table may part: the order of the offsets but for those. */
    assert_string_equal(replayed,
        "rg-23,rg-115,rg-35,rg-103,rg-80,rg-9,rg-56,rg-119,rg-68,rg-31,rg-107,rg-76,rg-72,"
        "rg-27,rg-111,rg-48,rg-11,rg-93,rg-44,rg-89,rg-5,rg-52,rg-64,rg-19,rg-85,rg-1,"
        "rg-97,rg-60,rg-15,rg-112,rg-71,rg-26,rg-104,rg-34,rg-22,rg-59,rg-116,rg-30,"
        "rg-108,rg-67,rg-79,rg-42,rg-75,rg-38,rg-100,rg-83,rg-84,rg-0,rg-39,rg-92,rg-47,"
        "rg-10,rg-43,rg-8,rg-55,rg-63,rg-18,rg-4,rg-51,rg-88,rg-14,rg-96,rg-25,rg-113,"
        "rg-70,rg-82,rg-37,rg-101,rg-117,rg-58,rg-21,rg-105,rg-33,rg-78,rg-41,rg-74,rg-29,"
        "rg-95,rg-13,rg-46,rg-91,rg-7,rg-54,rg-109,rg-66,rg-3,rg-50,rg-87,rg-17,rg-99,"
        "rg-62,rg-81,rg-36,rg-102,rg-24,rg-114,rg-69,rg-32,rg-106,rg-118,rg-20,rg-57,"
        "rg-77,rg-40,rg-73,rg-28,rg-110,rg-12,rg-94,rg-49,rg-90,rg-45,rg-65,rg-6,rg-53,"
        "rg-61,rg-98,rg-16,rg-86,rg-2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regex_resolved_after_heartbeat_then_assigned),
        cmocka_unit_test(test_regex_matches_whole_topic_name),
        cmocka_unit_test(test_pathological_regex_gives_up),
        cmocka_unit_test(test_invalid_regex_is_invalid_regular_expression),
        cmocka_unit_test(test_regex_syntax_is_re2s),
        cmocka_unit_test(test_created_topic_joins_after_min_interval),
        cmocka_unit_test(test_last_member_of_regex_tombstones_it),
        cmocka_unit_test(test_consumer_group_member_joins_with_updated_regex),
        cmocka_unit_test(test_regex_and_names_together),
        cmocka_unit_test(test_replay_keeps_resolved_regex),
        cmocka_unit_test(test_static_replacement_keeps_regex_resolution),
        cmocka_unit_test(test_deleted_topic_leaves_assignment),
        cmocka_unit_test(test_offset_delete_subscribed_topic),
        cmocka_unit_test(test_offsets_expire_then_empty_group_deleted),
        cmocka_unit_test(test_empty_group_without_offsets_deleted_at_next_check),
        cmocka_unit_test(test_recreated_topic_assigned_under_new_id),
        cmocka_unit_test(test_subscription_change_reassigns),
        cmocka_unit_test(test_list_groups_one_table_for_both_types),
        cmocka_unit_test(test_replayed_offsets_before_group_records),
        cmocka_unit_test(test_replayed_offsets_first_keep_table_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
