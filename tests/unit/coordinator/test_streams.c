/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmocka tests of KIP-1071 streams groups on a driven clock: topology
 * initialisation and missing internal topics, stale and changed topologies,
 * the request rules of protocol.md 7.2 (each message names its rule), the
 * owned-task all-null / all-present rule, reconciliation without a task
 * active on two members, the previous-epoch retry (Kafka's default and the
 * kcoord opt-in), static leave and rejoin, session expiry, standbys on
 * another process, shutdown requests, the group size limit, and replay of
 * the records in the middle of a reconciliation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coord_test.h"
#include "streams_int.h"

enum {
    E_NONE = 0,
    E_UNKNOWN_MEMBER_ID = 25,
    E_INVALID_REQUEST = 42,
    E_GROUP_ID_NOT_FOUND = 69,
    E_GROUP_MAX_SIZE_REACHED = 81,
    E_FENCED_INSTANCE_ID = 82,
    E_FENCED_MEMBER_EPOCH = 110,
    E_UNRELEASED_INSTANCE_ID = 111,
    E_STALE_MEMBER_EPOCH = 113,
    E_STREAMS_INVALID_TOPOLOGY = 130,
};

#define NPART 4
#define MAXC 4

/* ---- topics: source "in" (NPART partitions), changelog created on demand -- */

static bool changelog_exists;
/* More topics a test creates: name -> partitions. */
static struct {
    const char *name;
    int32_t parts;
} extra_topics[8];
static int nextra_topics;

static bool tv_lookup(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *id)
{
    (void)ctx;
    memset(id, 0, sizeof(*id));
    for (int i = 0; i < nextra_topics; i++)
        if (kc_str_eq_cstr(topic, extra_topics[i].name)) {
            id->b[0] = (uint8_t)(10 + i);
            *partitions = extra_topics[i].parts;
            return true;
        }
    if (kc_str_eq_cstr(topic, "in")) {
        id->b[0] = 1;
        *partitions = NPART;
        return true;
    }
    if (kc_str_eq_cstr(topic, "two-partitions")) {
        id->b[0] = 3;
        *partitions = 2;
        return true;
    }
    if (changelog_exists && kc_str_eq_cstr(topic, "app-store-changelog")) {
        id->b[0] = 2;
        *partitions = NPART;
        return true;
    }
    return false;
}

static bool tv_exists(void *ctx, kc_str_t topic)
{
    int32_t p;
    kc_uuid_t id;
    return tv_lookup(ctx, topic, &p, &id);
}

/* The failed creation the server remembers for the changelog (NULL: none),
 * until creation_error_expires_ms. */
static const char *creation_error;
static int64_t creation_error_expires_ms;

static const char *tv_creation_error(void *ctx, kc_str_t topic, int64_t now_ms)
{
    (void)ctx;
    if (!creation_error || now_ms >= creation_error_expires_ms ||
        !kc_str_eq_cstr(topic, "app-store-changelog"))
        return NULL;
    return creation_error;
}

static const kc_topic_view_t VIEW = {.topic_exists = tv_exists, .topic_lookup = tv_lookup,
                                     .topic_creation_error = tv_creation_error};

/* ---- context: coord_test.h, with this file's topics and settings ----------- */

typedef ct_t ctx_t;

static ctx_t *ctx_new_cfg(void (*tweak)(kc_coord_config_t *))
{
    kc_coord_config_t cfg;
    kc_coord_config_defaults(&cfg);
    cfg.group_streams_initial_rebalance_delay_ms = 0;
    cfg.group_streams_assignment_interval_ms = 0;
    cfg.group_streams_session_timeout_ms = 10000;
    if (tweak)
        tweak(&cfg);
    ctx_t *t = ct_new(&(ct_opts_t){.cfg = &cfg, .topics = &VIEW, .seed = 7});
    t->now = 1000;
    changelog_exists = true;
    nextra_topics = 0;
    return t;
}

static ctx_t *ctx_new(void) { return ctx_new_cfg(NULL); }

/* The replay check, then the store the test may have made (with_store). */
static void ctx_free(ctx_t *t)
{
    kc_topology_desc_t *td = t->tdesc;
    ct_free(t);
    kc_topology_desc_free(td);
}

/* A new coordinator rebuilt from every record written so far. */
static void ctx_restart(ctx_t *t) { ct_restart(t, false); }

static const char *state_of(ctx_t *t)
{
    kc_streams_group_t *g = kc_coord_streams_group_find(t->c, kc_str("app"));
    return g ? kc_streams_group_state(g) : "none";
}

/* ---- a simulated streams client ------------------------------------------------ */

typedef struct {
    char member_id[64];
    const char *instance_id;
    const char *process_id;
    int32_t epoch;
    bool active[NPART], standby[NPART];
    bool joined;
} client_t;

typedef struct {
    int16_t error;
    char message[256];
    int32_t epoch;
    bool has_tasks;
    bool active[NPART], standby[NPART];
    int nstatus;
    int8_t status[8];
    char detail[8][256];
    int32_t endpoint_epoch;
    int nendpoints;
    bool description_required; /* TopologyDescriptionRequired */
    kc_streams_topics_to_create_t create;
} hb_t;

typedef enum { OWNED_ALL, OWNED_NULL, OWNED_MIX } owned_mode_t;

typedef struct {
    int32_t epoch;       /* INT32_MIN: the client's */
    owned_mode_t owned;
    int32_t topology_epoch;
    const char *changelog_override; /* NULL: the default changelog */
    int32_t changelog_partitions;
    int32_t rebalance_timeout;     /* 0: 30000 on join, else -1 */
    bool shutdown;
    bool regex;
    bool endpoint;
    int32_t endpoint_epoch;
    const char *rack;
    const char *group;
    const char *member; /* override the member id sent */
    const char *source; /* override the source topic */
    bool copartition;   /* a second source topic, copartitioned with the first */
    const struct offs *offsets, *end_offsets; /* TaskOffsets, TaskEndOffsets; NULL: null */
    /* The request's authorizer (NULL: none). */
    bool (*authorize)(const void *arg, const char *principal, const char *host, int8_t op,
                      int8_t resource_type, kc_str_t name);
} hb_opts_t;

/* A reported TaskOffsets or TaskEndOffsets list. */
typedef struct offs {
    kc_streams_group_heartbeat_request_task_offset_t items[8];
    int32_t n;
} offs_t;

static int32_t fill_ids(const bool *set, int32_t *parts)
{
    int32_t n = 0;
    for (int p = 0; p < NPART; p++)
        if (set[p])
            parts[n++] = p;
    return n;
}

/* The principal of the heartbeats (NULL: none). */
static const char *principal_override;

/* The TopicConfigs Kafka Streams sends for a changelog topic. */
static kc_streams_group_heartbeat_request_key_value_t changelog_configs[] = {
    {{"cleanup.policy", 14}, {"compact", 7}},
    {{"message.timestamp.type", 22}, {"CreateTime", 10}},
};

static hb_t send_hb(ctx_t *t, client_t *cl, hb_opts_t o)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str(o.group ? o.group : "app");
    req.member_id = kc_str(o.member ? o.member : cl->member_id);
    req.member_epoch = o.epoch == INT32_MIN ? cl->epoch : o.epoch;
    req.instance_id = kc_str(cl->instance_id);
    req.rack_id = kc_str(o.rack);
    req.process_id = kc_str(cl->process_id ? cl->process_id : cl->member_id);
    req.endpoint_information_epoch = o.endpoint_epoch;
    req.shutdown_application = o.shutdown;
    kc_streams_group_heartbeat_request_endpoint_t ep = {kc_str("localhost"), 8080};
    if (o.endpoint)
        req.user_endpoint = &ep;
    kc_streams_group_heartbeat_request_topology_t topo;
    kc_streams_group_heartbeat_request_subtopology_t sub;
    kc_streams_group_heartbeat_request_topic_info_t cl_topic;
    kc_str_t sources[2] = {kc_str("in"), kc_str("two-partitions")};
    int16_t both[2] = {0, 1};
    kc_streams_group_heartbeat_request_copartition_group_t cpg;
    memset(&cpg, 0, sizeof(cpg));
    cpg.source_topics.items = both;
    cpg.source_topics.count = 2;
    kc_str_t regex[1] = {kc_str("in.*")};
    if (o.source)
        sources[0] = kc_str(o.source);
    if (req.member_epoch == 0) {
        memset(&topo, 0, sizeof(topo));
        memset(&sub, 0, sizeof(sub));
        memset(&cl_topic, 0, sizeof(cl_topic));
        topo.epoch = o.topology_epoch;
        topo.subtopologies.items = &sub;
        topo.subtopologies.count = 1;
        sub.subtopology_id = kc_str("0");
        sub.source_topics.items = sources;
        sub.source_topics.count = o.copartition ? 2 : 1;
        if (o.copartition) {
            sub.copartition_groups.items = &cpg;
            sub.copartition_groups.count = 1;
        }
        sub.source_topic_regex.items = regex;
        sub.source_topic_regex.count = o.regex ? 1 : 0;
        cl_topic.name = kc_str(o.changelog_override ? o.changelog_override : "app-store-changelog");
        cl_topic.partitions = o.changelog_partitions;
        cl_topic.topic_configs.items = changelog_configs;
        cl_topic.topic_configs.count = KC_ARRAY_LEN(changelog_configs);
        sub.state_changelog_topics.items = &cl_topic;
        sub.state_changelog_topics.count = 1;
        req.topology = &topo;
        req.rebalance_timeout_ms = o.rebalance_timeout ? o.rebalance_timeout : 30000;
        /* A joining member owns nothing: three empty (not null) lists. */
        req.active_tasks.count = 0;
        req.standby_tasks.count = 0;
        req.warmup_tasks.count = 0;
    } else {
        req.rebalance_timeout_ms = o.rebalance_timeout ? o.rebalance_timeout : -1;
    }
    int32_t ap[NPART], sp[NPART];
    kc_streams_group_heartbeat_request_task_ids_t at = {kc_str("0"), {ap, 0}};
    kc_streams_group_heartbeat_request_task_ids_t st = {kc_str("0"), {sp, 0}};
    if (req.member_epoch != 0 && o.owned != OWNED_NULL) {
        at.partitions.count = fill_ids(cl->active, ap);
        st.partitions.count = fill_ids(cl->standby, sp);
        req.active_tasks.items = &at;
        req.active_tasks.count = 1;
        if (o.owned == OWNED_ALL) {
            req.standby_tasks.items = &st;
            req.standby_tasks.count = 1;
            req.warmup_tasks.items = NULL;
            req.warmup_tasks.count = 0;
        }
    }
    if (o.offsets) {
        req.task_offsets.items = (kc_streams_group_heartbeat_request_task_offset_t *)o.offsets->items;
        req.task_offsets.count = o.offsets->n;
    }
    if (o.end_offsets) {
        req.task_end_offsets.items = (kc_streams_group_heartbeat_request_task_offset_t *)o.end_offsets->items;
        req.task_end_offsets.count = o.end_offsets->n;
    }
    kc_request_ctx_t ctx = {1, 1, 88, 1, kc_str("client"), "/127.0.0.1", t->now};
    ctx.authorize = o.authorize;
    ctx.principal = principal_override;
    kc_result_t res;
    kc_result_init(&res);
    hb_t h;
    memset(&h, 0, sizeof(h));
    kc_coord_streams_group_heartbeat(t->c, &ctx, &req, &res, &h.create);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 1);
    kc_streams_group_heartbeat_response_t r;
    kc_streams_group_heartbeat_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_streams_group_heartbeat_response_decode(&rd, 1, &arena, &r), 0);
    h.error = r.error_code;
    if (r.error_message.len > 0)
        snprintf(h.message, sizeof(h.message), "%.*s", (int)r.error_message.len, r.error_message.ptr);
    h.epoch = r.member_epoch;
    for (int32_t i = 0; i < r.status.count && i < 8; i++) {
        h.status[h.nstatus] = r.status.items[i].status_code;
        snprintf(h.detail[h.nstatus], 256, "%.*s", (int)r.status.items[i].status_detail.len,
                 r.status.items[i].status_detail.ptr);
        h.nstatus++;
    }
    h.endpoint_epoch = r.endpoint_information_epoch;
    h.description_required = r.topology_description_required;
    h.nendpoints = r.partitions_by_user_endpoint.count;
    if (r.active_tasks.count >= 0) {
        h.has_tasks = true;
        assert_true(r.standby_tasks.count >= 0 && r.warmup_tasks.count >= 0);
        for (int32_t i = 0; i < r.active_tasks.count; i++)
            for (int32_t j = 0; j < r.active_tasks.items[i].partitions.count; j++)
                h.active[r.active_tasks.items[i].partitions.items[j]] = true;
        for (int32_t i = 0; i < r.standby_tasks.count; i++)
            for (int32_t j = 0; j < r.standby_tasks.items[i].partitions.count; j++)
                h.standby[r.standby_tasks.items[i].partitions.items[j]] = true;
    }
    if (h.error == E_NONE) {
        cl->epoch = h.epoch;
        cl->joined = h.epoch >= 0;
        if (h.has_tasks) {
            memcpy(cl->active, h.active, sizeof(cl->active));
            memcpy(cl->standby, h.standby, sizeof(cl->standby));
        }
    }
    kc_result_deinit(&res);
    kc_arena_deinit(&arena);
    return h;
}

static hb_t join(ctx_t *t, client_t *cl)
{
    return send_hb(t, cl, (hb_opts_t){.epoch = 0, .topology_epoch = 1});
}

static hb_t beat(ctx_t *t, client_t *cl)
{
    return send_hb(t, cl, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_ALL});
}

static void hb_free(hb_t *h) { kc_streams_topics_to_create_deinit(&h->create); }

static int count(const bool *b)
{
    int n = 0;
    for (int p = 0; p < NPART; p++)
        n += b[p];
    return n;
}

static bool has_status(const hb_t *h, int8_t code)
{
    for (int i = 0; i < h->nstatus; i++)
        if (h->status[i] == code)
            return true;
    return false;
}

/* No task is active on two clients at any time. */
static void assert_disjoint(client_t *cls, int n)
{
    for (int p = 0; p < NPART; p++) {
        int owners = 0;
        for (int i = 0; i < n; i++)
            owners += cls[i].joined && cls[i].active[p];
        assert_true(owners <= 1);
    }
}

static void converge(ctx_t *t, client_t *cls, int n)
{
    for (int round = 0; round < 10; round++)
        for (int i = 0; i < n; i++) {
            if (!cls[i].joined)
                continue;
            hb_t h = beat(t, &cls[i]);
            assert_int_equal(h.error, E_NONE);
            assert_disjoint(cls, n);
        }
}

static void set_id(client_t *cl, const char *id)
{
    memset(cl, 0, sizeof(*cl));
    snprintf(cl->member_id, sizeof(cl->member_id), "%s", id);
}

/* ---- tests ----------------------------------------------------------------------- */

/* After GroupMetadataManagerTest.testMemberJoinsEmptyStreamsGroup: the first
 * member's join creates the group with its topology (epoch 1) and answers
 * epoch 2 with every task active and no status; the group is Stable with no
 * description stored, and a steady heartbeat carries no tasks. */
static void test_first_joiner_initialises_topology_and_gets_all_tasks(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    hb_t h = join(t, &a);
    assert_int_equal(h.error, E_NONE);
    /* A new group starts at epoch 1; the first assignment is epoch 2. */
    assert_int_equal(h.epoch, 2);
    assert_true(h.has_tasks);
    assert_int_equal(count(a.active), NPART);
    assert_int_equal(h.nstatus, 0);
    assert_string_equal(state_of(t), "Stable");
    kc_streams_group_t *g = kc_coord_streams_group_find(t->c, kc_str("app"));
    assert_non_null(g);
    assert_int_equal(kc_streams_group_topology_epoch(g), 1);
    assert_int_equal(kc_streams_group_stored_description_epoch(g), -1);
    /* A steady heartbeat sends no tasks. */
    h = beat(t, &a);
    assert_int_equal(h.error, E_NONE);
    assert_false(h.has_tasks);
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupMemberJoiningWithMissingInternalTopic:
 * a join whose changelog topic does not exist gets the MISSING_INTERNAL_TOPICS
 * status naming it and asks for it to be created with the source topic's
 * partition count; no task is assigned and the group is NotReady. Once the
 * topic exists the next heartbeat assigns every task and the group is Stable. */
static void test_missing_internal_topics_are_listed_then_group_becomes_ready(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    changelog_exists = false;
    client_t a;
    set_id(&a, "member-a");
    hb_t h = join(t, &a);
    assert_int_equal(h.error, E_NONE);
    assert_true(has_status(&h, 3));
    assert_string_equal(h.detail[0], "Internal topics are missing: app-store-changelog");
    assert_int_equal(h.create.n, 1);
    assert_string_equal(h.create.items[0].name, "app-store-changelog");
    assert_int_equal(h.create.items[0].partitions, NPART);
    /* With the topology's configs of the topic, as KafkaApis creates it. */
    assert_int_equal(h.create.items[0].nconfigs, 2);
    assert_string_equal(h.create.items[0].config_names[0], "cleanup.policy");
    assert_string_equal(h.create.items[0].config_values[0], "compact");
    assert_string_equal(h.create.items[0].config_names[1], "message.timestamp.type");
    assert_string_equal(h.create.items[0].config_values[1], "CreateTime");
    assert_int_equal(count(a.active), 0);
    assert_string_equal(state_of(t), "NotReady");
    hb_free(&h);
    /* The caller created it: the next heartbeat configures and assigns. */
    changelog_exists = true;
    h = beat(t, &a);
    assert_int_equal(h.error, E_NONE);
    assert_false(has_status(&h, 3));
    assert_int_equal(count(a.active), NPART);
    assert_string_equal(state_of(t), "Stable");
    ctx_free(t);
}

/* CREATE on the cluster only for "admin"; CREATE on topics only on the
 * changelog's name for "creator". */
static bool create_acl(const void *arg, const char *principal, const char *host, int8_t op,
                       int8_t resource_type, kc_str_t name)
{
    (void)arg;
    (void)host;
    if (op != KC_OP_CREATE)
        return true;
    if (resource_type == KC_RES_CLUSTER)
        return principal && strcmp(principal, "User:admin") == 0;
    return resource_type == KC_RES_TOPIC && principal && strcmp(principal, "User:creator") == 0 &&
           kc_str_eq_cstr(name, "app-store-changelog");
}

/* KafkaApis.handleStreamsGroupHeartbeat: a principal without CREATE on the
 * cluster nor on the missing internal topic gets them named in the
 * MISSING_INTERNAL_TOPICS detail and nothing to create; CREATE on the
 * cluster, or on the topic itself, lets the caller create it. */
static void test_internal_topics_need_create(void **state)
{
    (void)state;
    static const struct {
        const char *principal;
        bool created;
    } cases[] = {{"User:reader", false}, {"User:admin", true}, {"User:creator", true}};
    for (size_t i = 0; i < KC_ARRAY_LEN(cases); i++) {
        ctx_t *t = ctx_new();
        changelog_exists = false;
        principal_override = cases[i].principal;
        client_t a;
        set_id(&a, "member-a");
        hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .authorize = create_acl});
        assert_int_equal(h.error, E_NONE);
        assert_true(has_status(&h, 3));
        if (cases[i].created) {
            assert_string_equal(h.detail[0], "Internal topics are missing: app-store-changelog");
            assert_int_equal(h.create.n, 1);
        } else {
            assert_string_equal(h.detail[0], "Internal topics are missing: app-store-changelog; "
                                             "Unauthorized to CREATE on topics app-store-changelog.");
            assert_int_equal(h.create.n, 0);
        }
        hb_free(&h);
        principal_override = NULL;
        ctx_free(t);
    }
}

/* KafkaApis.handleStreamsGroupHeartbeat with AutoTopicCreationManager's
 * error cache: while the changelog's last creation failure is remembered,
 * the MISSING_INTERNAL_TOPICS detail names it and the topic is not asked
 * for again; once it expires the caller is asked to create it again. */
static void test_internal_topic_creation_error_named(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    changelog_exists = false;
    creation_error = "Invalid value abc for configuration retention.ms: Not a number of type LONG";
    creation_error_expires_ms = t->now + 4000;
    client_t a;
    set_id(&a, "member-a");
    hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = 0, .topology_epoch = 1});
    assert_int_equal(h.error, E_NONE);
    assert_true(has_status(&h, 3));
    assert_string_equal(h.detail[0],
                        "Internal topics are missing: app-store-changelog; Creation failed: "
                        "app-store-changelog (Invalid value abc for configuration retention.ms: "
                        "Not a number of type LONG).");
    assert_int_equal(h.create.n, 0);
    hb_free(&h);
    ct_sleep(t, 4000);
    h = beat(t, &a);
    assert_true(has_status(&h, 3));
    assert_string_equal(h.detail[0], "Internal topics are missing: app-store-changelog");
    assert_int_equal(h.create.n, 1);
    assert_string_equal(h.create.items[0].name, "app-store-changelog");
    hb_free(&h);
    creation_error = NULL;
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupMemberJoiningWithStaleTopology:
 * a join with a topology epoch behind the group's gets the STALE_TOPOLOGY
 * status naming both epochs; a join with a newer epoch, or with the same
 * epoch and another topology, is INVALID_REQUEST and makes no member. */
static void test_stale_topology_status_and_update_rejected(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b, c;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    set_id(&c, "member-c");
    send_hb(t, &a, (hb_opts_t){.epoch = 0, .topology_epoch = 2});
    hb_t h = send_hb(t, &b, (hb_opts_t){.epoch = 0, .topology_epoch = 1});
    assert_int_equal(h.error, E_NONE);
    assert_true(has_status(&h, 0));
    assert_string_equal(h.detail[0], "The member's topology epoch 1 is behind the group's topology epoch 2.");
    h = send_hb(t, &c, (hb_opts_t){.epoch = 0, .topology_epoch = 3});
    assert_int_equal(h.error, E_INVALID_REQUEST);
    assert_string_equal(h.message, "Topology updates are not supported yet.");
    h = send_hb(t, &c, (hb_opts_t){.epoch = 0, .topology_epoch = 2, .changelog_override = "other"});
    assert_int_equal(h.error, E_INVALID_REQUEST);
    /* The rejected joins did not make c a member. */
    c.epoch = 1;
    h = send_hb(t, &c, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    ctx_free(t);
}

/* After GroupCoordinatorServiceTest.testStreamsHeartbeatRequestValidation:
 * each malformed heartbeat (empty member, group or rack id, a source-topic
 * regex, a changelog with a set partition count, an epoch below -2, a static
 * leave without instance id, mixed null task lists, a join without rebalance
 * timeout or topology) is refused with the message of its rule and creates
 * no group; then an unknown member, and a task outside the topology. */
static void test_request_rules_name_the_rule(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    struct {
        hb_opts_t o;
        int16_t err;
        const char *msg;
    } cases[] = {
        {{.epoch = 0, .topology_epoch = 1, .member = ""}, E_INVALID_REQUEST, "MemberId can't be empty."},
        {{.epoch = 0, .topology_epoch = 1, .group = ""}, E_INVALID_REQUEST, "GroupId can't be empty."},
        {{.epoch = 0, .topology_epoch = 1, .rack = ""}, E_INVALID_REQUEST, "RackId can't be empty."},
        {{.epoch = 0, .topology_epoch = 1, .regex = true}, E_INVALID_REQUEST,
         "Regular expressions for source topics are not supported yet."},
        {{.epoch = 0, .topology_epoch = 1, .changelog_partitions = 3}, E_STREAMS_INVALID_TOPOLOGY,
         "Changelog topic app-store-changelog must have an undefined partition count, but it is set to 3."},
        {{.epoch = -3}, E_INVALID_REQUEST, "MemberEpoch is -3, but must be greater than or equal to -2."},
        {{.epoch = -2}, E_INVALID_REQUEST, "InstanceId can't be null."},
        {{.epoch = 5, .owned = OWNED_MIX}, E_INVALID_REQUEST,
         "If one task-type is non-null, all must be non-null."},
        {{.epoch = 5, .owned = OWNED_NULL}, E_GROUP_ID_NOT_FOUND, "Streams group app not found."},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        hb_t h = send_hb(t, &a, cases[i].o);
        assert_int_equal(h.error, cases[i].err);
        assert_string_equal(h.message, cases[i].msg);
    }
    /* RebalanceTimeoutMs -1 and a missing topology on join. */
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("app");
    req.member_id = kc_str("m");
    req.member_epoch = 0;
    kc_request_ctx_t ctx = {1, 1, 88, 1, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_streams_group_heartbeat(t->c, &ctx, &req, &res, NULL);
    ct_keep(t, &res);
    assert_non_null(memmem(res.responses[0].body.data, res.responses[0].body.len,
                           "RebalanceTimeoutMs must be provided in first request.", 52));
    kc_result_reset(&res);
    req.rebalance_timeout_ms = 1000;
    req.active_tasks.count = 0;
    req.standby_tasks.count = 0;
    req.warmup_tasks.count = 0;
    kc_coord_streams_group_heartbeat(t->c, &ctx, &req, &res, NULL);
    ct_keep(t, &res);
    assert_non_null(memmem(res.responses[0].body.data, res.responses[0].body.len,
                           "Topology must be non-null when (re-)joining.", 44));
    kc_result_deinit(&res);
    /* No group was created by any of these. */
    assert_string_equal(state_of(t), "none");
    /* Unknown member; a task id outside the configured topology. */
    join(t, &a);
    hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_NULL, .member = "nobody"});
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    client_t bad = a;
    memset(bad.active, 0, sizeof(bad.active));
    bad.standby[0] = true;
    h = beat(t, &bad);
    assert_int_equal(h.error, E_NONE);
    kc_streams_group_heartbeat_request_task_ids_t out_of_range = {kc_str("0"), {(int32_t[]){NPART}, 1}};
    kc_streams_group_heartbeat_request_task_ids_t none = {kc_str("0"), {NULL, 0}};
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("app");
    req.member_id = kc_str("member-a");
    req.member_epoch = a.epoch;
    req.active_tasks.items = &out_of_range;
    req.active_tasks.count = 1;
    req.standby_tasks.items = &none;
    req.standby_tasks.count = 1;
    req.warmup_tasks.items = &none;
    req.warmup_tasks.count = 1;
    kc_result_init(&res);
    kc_coord_streams_group_heartbeat(t->c, &ctx, &req, &res, NULL);
    ct_keep(t, &res);
    assert_non_null(memmem(res.responses[0].body.data, res.responses[0].body.len,
                           "Task 4 for subtopology 0 is invalid", 35));
    kc_result_deinit(&res);
    ctx_free(t);
}

static void test_mixed_null_lists_rejected_and_null_means_unchanged(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    join(t, &a);
    join(t, &b);
    /* a must revoke two tasks; null lists do not prove the revocation. */
    hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_NONE);
    assert_true(h.has_tasks);
    assert_int_equal(count(h.active), 2);
    assert_string_equal(state_of(t), "Reconciling");
    int32_t epoch_before = a.epoch;
    /* Pretend the client still reports all four: no progress. */
    client_t still = a;
    for (int p = 0; p < NPART; p++)
        still.active[p] = true;
    h = beat(t, &still);
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, epoch_before);
    /* A mix is INVALID_REQUEST (KAFKA-20870). */
    h = send_hb(t, &a, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_MIX});
    assert_int_equal(h.error, E_INVALID_REQUEST);
    assert_string_equal(h.message, "If one task-type is non-null, all must be non-null.");
    /* The full report of the revoked set moves a to the new epoch. */
    h = beat(t, &a);
    assert_int_equal(h.error, E_NONE);
    assert_true(h.epoch > epoch_before);
    client_t cls[2] = {a, b};
    converge(t, cls, 2);
    assert_int_equal(count(cls[0].active) + count(cls[1].active), NPART);
    assert_int_equal(count(cls[0].active), 2);
    assert_string_equal(state_of(t), "Stable");
    ctx_free(t);
}

static void test_three_members_never_share_an_active_task(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t cls[3];
    set_id(&cls[0], "member-a");
    set_id(&cls[1], "member-b");
    set_id(&cls[2], "member-c");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(join(t, &cls[i]).error, E_NONE);
        assert_disjoint(cls, 3);
        converge(t, cls, 3);
    }
    int total = 0;
    for (int i = 0; i < 3; i++) {
        total += count(cls[i].active);
        assert_true(count(cls[i].active) >= 1 && count(cls[i].active) <= 2);
    }
    assert_int_equal(total, NPART);
    assert_string_equal(state_of(t), "Stable");
    /* One leaves: its tasks move to the others. */
    hb_t h = send_hb(t, &cls[1], (hb_opts_t){.epoch = -1, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, -1);
    cls[1].joined = false;
    converge(t, cls, 3);
    assert_int_equal(count(cls[0].active) + count(cls[2].active), NPART);
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupMemberEpochValidation: a
 * member whose answer with the bumped epoch was lost heartbeats with the
 * previous epoch and tasks within its assignment, and is given the current
 * epoch; the previous epoch with null task lists or with tasks outside its
 * assignment, or an epoch above the coordinator's, is FENCED_MEMBER_EPOCH. */
static void test_previous_epoch_retry(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    join(t, &a);
    join(t, &b);
    client_t cls[2] = {a, b};
    converge(t, cls, 2);
    a = cls[0];
    /* A third member makes a give one task up: a's new epoch is "lost". */
    client_t c;
    set_id(&c, "member-c");
    join(t, &c);
    client_t before = a;
    hb_t h = beat(t, &a);      /* revocation requested (same epoch) */
    h = beat(t, &a);           /* revoked: bumped epoch */
    assert_int_equal(h.error, E_NONE);
    assert_true(a.epoch > before.epoch);
    client_t lost = a;
    lost.epoch = before.epoch; /* the client never saw the bump */
    /* Full report contained in the assignment: accepted (Kafka). */
    h = beat(t, &lost);
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, a.epoch);
    /* All-null retry: fenced by default (Kafka trunk). */
    lost = a;
    lost.epoch = before.epoch;
    h = send_hb(t, &lost, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_FENCED_MEMBER_EPOCH);
    assert_non_null(strstr(h.message, "smaller member epoch"));
    /* A report not contained in the assignment: fenced. */
    lost = a;
    lost.epoch = before.epoch;
    for (int p = 0; p < NPART; p++)
        lost.active[p] = true;
    h = beat(t, &lost);
    assert_int_equal(h.error, E_FENCED_MEMBER_EPOCH);
    /* An epoch ahead: fenced. */
    lost = a;
    lost.epoch = a.epoch + 5;
    h = beat(t, &lost);
    assert_int_equal(h.error, E_FENCED_MEMBER_EPOCH);
    assert_non_null(strstr(h.message, "greater member epoch"));
    ctx_free(t);
}

static void opt_in(kc_coord_config_t *cfg)
{
    cfg->group_streams_accept_null_owned_tasks_on_previous_epoch = true;
}

static void test_previous_epoch_null_retry_accepted_with_opt_in(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(opt_in);
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    join(t, &a);
    join(t, &b);
    hb_t h = beat(t, &a); /* told to revoke two tasks: same epoch */
    assert_int_equal(h.error, E_NONE);
    int32_t old_epoch = a.epoch;
    h = beat(t, &a); /* revoked them: bumped */
    assert_int_equal(h.error, E_NONE);
    int32_t new_epoch = a.epoch;
    assert_int_equal(new_epoch, old_epoch + 1);
    client_t lost = a;
    lost.epoch = old_epoch;
    h = send_hb(t, &lost, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, new_epoch);
    assert_true(h.has_tasks); /* the lost assignment is sent again */
    assert_int_equal(count(h.active), 2);
    ctx_free(t);
}

/* After StreamsGroupStaticMemberGroupMetadataManagerTest.testStaticMemberLeaveWithLeaveGroupStaticMemberEpochAndRejoinWithNewMemberId:
 * a new member id with a static member's instance id is
 * UNRELEASED_INSTANCE_ID while that member is in the group; after its leave
 * with epoch -2 the new member id joins with the same active tasks, and the
 * old member id is FENCED_INSTANCE_ID. */
static void test_static_leave_and_rejoin_keeps_tasks(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    a.instance_id = "instance-a";
    a.process_id = "proc-a";
    join(t, &a);
    join(t, &b);
    client_t cls[2] = {a, b};
    converge(t, cls, 2);
    a = cls[0];
    bool had[NPART];
    memcpy(had, a.active, sizeof(had));
    /* Rejoin while still in the group: UNRELEASED_INSTANCE_ID. */
    client_t a2 = a;
    snprintf(a2.member_id, sizeof(a2.member_id), "member-a2");
    hb_t h = send_hb(t, &a2, (hb_opts_t){.epoch = 0, .topology_epoch = 1});
    assert_int_equal(h.error, E_UNRELEASED_INSTANCE_ID);
    /* Static leave keeps the member at -2 with its tasks. */
    h = send_hb(t, &a, (hb_opts_t){.epoch = -2, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(h.epoch, -2);
    /* The old id is fenced once replaced. */
    h = send_hb(t, &a2, (hb_opts_t){.epoch = 0, .topology_epoch = 1});
    assert_int_equal(h.error, E_NONE);
    assert_true(h.has_tasks);
    assert_memory_equal(h.active, had, sizeof(had));
    h = send_hb(t, &a, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_ALL});
    assert_int_equal(h.error, E_FENCED_INSTANCE_ID);
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsSessionTimeoutExpiration: a member
 * that stops heartbeating is removed once its session (10 s) ends; its
 * heartbeat is then UNKNOWN_MEMBER_ID and the other member gets every task. */
static void test_session_expiry_moves_tasks(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t cls[2];
    set_id(&cls[0], "member-a");
    set_id(&cls[1], "member-b");
    join(t, &cls[0]);
    join(t, &cls[1]);
    converge(t, cls, 2);
    /* b goes silent; a keeps heartbeating. */
    for (int i = 0; i < 12; i++) {
        ct_sleep(t, 1000);
        assert_int_equal(beat(t, &cls[0]).error, E_NONE);
    }
    kc_streams_group_t *g = kc_coord_streams_group_find(t->c, kc_str("app"));
    assert_non_null(g);
    hb_t h = beat(t, &cls[1]);
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    cls[1].joined = false;
    converge(t, cls, 2);
    assert_int_equal(count(cls[0].active), NPART);
    ctx_free(t);
}

static void standby_one(kc_coord_config_t *cfg) { cfg->group_streams_num_standby_replicas = 1; }

/* After StickyTaskAssignorTest.shouldAssignStandbyTasksToDifferentClientThanCorrespondingActiveTaskIsAssignedTo:
 * with one standby replica and two processes, every task's standby is on the
 * process that does not run it active. */
static void test_standby_on_other_process(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(standby_one);
    client_t cls[2];
    set_id(&cls[0], "member-a");
    set_id(&cls[1], "member-b");
    join(t, &cls[0]);
    join(t, &cls[1]);
    converge(t, cls, 2);
    for (int p = 0; p < NPART; p++) {
        assert_true(cls[0].active[p] != cls[1].active[p]);
        /* The standby is on the process without the active task. */
        assert_true(cls[0].standby[p] == cls[1].active[p]);
        assert_true(cls[1].standby[p] == cls[0].active[p]);
    }
    ctx_free(t);
}

static void view_epochs(void *arg, const kc_group_view_t *v)
{
    int32_t *e = arg;
    e[0] = v->group_epoch;
    e[1] = v->assignment_epoch;
}

/* After streams.CurrentAssignmentBuilderTest.testActiveDemotedToStandbyInPlace:
 * a task moving from a's active set to a's standby set is assigned as standby
 * in the same heartbeat that asks for the active one's revocation; once
 * converged b holds the standbys of a's tasks and runs them all when a
 * leaves. When the last member leaves, the empty target takes the group
 * epoch. */
static void test_role_changes_in_place_and_empty_group_target(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(standby_one);
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    hb_t h = join(t, &a);
    assert_int_equal(count(a.active), NPART);
    join(t, &b);
    h = beat(t, &a); /* half of a's tasks move to b: standbys at once */
    assert_int_equal(h.error, E_NONE);
    assert_true(h.has_tasks);
    assert_int_equal(count(h.active), NPART / 2);
    assert_int_equal(count(h.standby), NPART / 2);
    for (int p = 0; p < NPART; p++)
        assert_true(h.active[p] != h.standby[p]);
    assert_string_equal(state_of(t), "Reconciling");
    client_t cls[2] = {a, b};
    converge(t, cls, 2);
    a = cls[0];
    b = cls[1];
    assert_int_equal(count(b.standby), NPART / 2);
    /* a leaves: b's standbys become active, a as the last... */
    h = send_hb(t, &a, (hb_opts_t){.epoch = -1});
    assert_int_equal(h.error, E_NONE);
    h = beat(t, &b);
    assert_int_equal(count(h.active), NPART);
    h = send_hb(t, &b, (hb_opts_t){.epoch = -1});
    assert_int_equal(h.error, E_NONE);
    kc_streams_group_t *g = kc_coord_streams_group_find(t->c, kc_str("app"));
    assert_non_null(g);
    assert_string_equal(kc_streams_group_state(g), "Empty");
    int32_t epochs[2] = {0, 0};
    assert_true(kc_coord_inspect_group(t->c, kc_str("app"), view_epochs, epochs));
    assert_int_equal(epochs[1], epochs[0]);
    assert_int_equal(epochs[0], kc_streams_group_epoch(g));
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupMemberRequestingShutdownApplication:
 * a member's heartbeat asking to shut the application down is accepted, and
 * the other member's next heartbeat carries the SHUTDOWN_APPLICATION status
 * naming the member that asked. */
static void test_shutdown_application_status_reaches_everyone(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    join(t, &a);
    join(t, &b);
    hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_ALL, .shutdown = true});
    assert_int_equal(h.error, E_NONE);
    h = beat(t, &b);
    assert_true(has_status(&h, 4));
    assert_non_null(strstr(h.detail[h.nstatus - 1], "member-a encountered a fatal error"));
    ctx_free(t);
}

static void max_two(kc_coord_config_t *cfg) { cfg->group_streams_max_size = 2; }

/* GroupMetadataManagerTest.testStreamsNewMemberIsRejectedWithMaximumMembersIsReached:
 * with the size limit at 2 and two members, a third member's join is
 * GROUP_MAX_SIZE_REACHED with the capacity message; a known member rejoining
 * is not refused. */
static void test_streams_new_member_is_rejected_with_maximum_members_is_reached(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(max_two);
    client_t a, b, c;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    set_id(&c, "member-c");
    join(t, &a);
    join(t, &b);
    hb_t h = join(t, &c);
    assert_int_equal(h.error, E_GROUP_MAX_SIZE_REACHED);
    assert_string_equal(h.message, "The streams group has reached its maximum capacity of 2 members.");
    /* A known member rejoining is not refused. */
    assert_int_equal(join(t, &a).error, E_NONE);
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupEndpointInformationOnlyWhenEpochGreater
 * and testStreamsGroupEndpointInformationIncludesNewMember: the join that
 * creates the group gets its member's endpoint with endpoint epoch 0; a
 * second member's join gets both endpoints with a later epoch; a heartbeat
 * that already has that epoch gets no endpoint list. */
static void test_endpoints_sent_when_epoch_stale(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .endpoint = true});
    assert_int_equal(h.error, E_NONE);
    /* The creating heartbeat answers epoch 0 but sends the endpoints. */
    assert_int_equal(h.endpoint_epoch, 0);
    assert_int_equal(h.nendpoints, 1);
    client_t b;
    set_id(&b, "member-b");
    h = send_hb(t, &b, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .endpoint = true});
    assert_true(h.endpoint_epoch > 0);
    assert_int_equal(h.nendpoints, 2);
    int32_t ep = h.endpoint_epoch;
    h = send_hb(t, &b, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_NULL, .endpoint_epoch = ep});
    assert_int_equal(h.nendpoints, -1);
    assert_int_equal(h.endpoint_epoch, ep);
    ctx_free(t);
}

static void test_replay_mid_reconciliation_continues_with_same_epochs(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    join(t, &a);
    join(t, &b);
    /* a has been asked to revoke; restart before it does. */
    hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_NONE);
    assert_string_equal(state_of(t), "Reconciling");
    ctx_restart(t);
    assert_string_equal(state_of(t), "Reconciling");
    kc_streams_group_t *g = kc_coord_streams_group_find(t->c, kc_str("app"));
    assert_int_equal(kc_streams_group_topology_epoch(g), 1);
    /* The heartbeats go on with the epochs the clients hold. */
    h = beat(t, &b);
    assert_int_equal(h.error, E_NONE);
    h = beat(t, &a);
    assert_int_equal(h.error, E_NONE);
    client_t cls[2] = {a, b};
    converge(t, cls, 2);
    assert_int_equal(count(cls[0].active) + count(cls[1].active), NPART);
    assert_string_equal(state_of(t), "Stable");
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupMetadataReplayRoundTripsTopologyDescriptionEpochs:
 * the stored (-2) and failed (1) description epochs written in the group's
 * metadata record come back after a replay, and a later group epoch bump
 * keeps them. */
static void test_description_epochs_persist(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    kc_streams_group_t *g = kc_coord_streams_group_find(t->c, kc_str("app"));
    kc_result_t res;
    kc_result_init(&res);
    kc_streams_group_set_description_epochs(t->c, g, -2, 1, &res);
    assert_int_equal(res.nrecords, 1);
    ct_keep(t, &res);
    kc_result_deinit(&res);
    ctx_restart(t);
    g = kc_coord_streams_group_find(t->c, kc_str("app"));
    assert_int_equal(kc_streams_group_stored_description_epoch(g), -2);
    assert_int_equal(kc_streams_group_failed_description_epoch(g), 1);
    /* A later group epoch bump keeps them. */
    client_t b;
    set_id(&b, "member-b");
    join(t, &b);
    ctx_restart(t);
    g = kc_coord_streams_group_find(t->c, kc_str("app"));
    assert_int_equal(kc_streams_group_stored_description_epoch(g), -2);
    ctx_free(t);
}

static void test_sticky_assignor_balances_and_covers(void **state)
{
    (void)state;
    enum { NS = 10, NPARTS = 8, NM = 7 };
    kc_st_subtopology_t subs[NS];
    char ids[NS][8];
    for (int s = 0; s < NS; s++) {
        snprintf(ids[s], sizeof(ids[s]), "%d", s);
        subs[s] = (kc_st_subtopology_t){ids[s], NPARTS, s % 2 == 0};
    }
    /* ids sorted by strcmp: "0".."9" already are */
    kc_st_member_t m[NM];
    char mid[NM][8], pid[NM][8];
    for (int i = 0; i < NM; i++) {
        snprintf(mid[i], 8, "m%d", i);
        snprintf(pid[i], 8, "p%d", i / 2); /* two members per process */
        m[i] = (kc_st_member_t){mid[i], pid[i], NULL, {0}, {0}};
    }
    kc_st_spec_t spec = {subs, NS, m, NM, 1};
    kc_assignor_streams_sticky(&spec);
    int64_t total = 0;
    for (int s = 0; s < NS; s++)
        for (int p = 0; p < NPARTS; p++) {
            int owners = 0, standbys = 0;
            const char *active_proc = NULL;
            for (int i = 0; i < NM; i++) {
                if (kc_tasks_has(&m[i].active, ids[s], p)) {
                    owners++;
                    active_proc = pid[i];
                }
            }
            assert_int_equal(owners, 1);
            for (int i = 0; i < NM; i++)
                if (kc_tasks_has(&m[i].standby, ids[s], p)) {
                    standbys++;
                    assert_string_not_equal(pid[i], active_proc);
                }
            assert_int_equal(standbys, subs[s].stateful ? 1 : 0);
        }
    for (int i = 0; i < NM; i++) {
        int64_t n = kc_tasks_count(&m[i].active);
        total += n;
        assert_true(n >= (NS * NPARTS) / NM && n <= (NS * NPARTS) / NM + 1);
    }
    assert_int_equal(total, NS * NPARTS);
    /* Sticky: the same input with these as previous targets changes nothing. */
    kc_tasks_tuple_t prev[NM];
    kc_st_member_t m2[NM];
    for (int i = 0; i < NM; i++) {
        prev[i] = (kc_tasks_tuple_t){m[i].active, m[i].standby, {0}};
        m2[i] = (kc_st_member_t){mid[i], pid[i], &prev[i], {0}, {0}};
    }
    kc_st_spec_t spec2 = {subs, NS, m2, NM, 1};
    kc_assignor_streams_sticky(&spec2);
    for (int i = 0; i < NM; i++) {
        assert_true(kc_tasks_equal(&m2[i].active, &prev[i].active));
        kc_tasks_tuple_free(&prev[i]);
        kc_tasks_free(&m2[i].active);
        kc_tasks_free(&m2[i].standby);
    }
}

/* A classic JoinGroup v5 with an empty member id; returns its error code. */
static int16_t classic_join(ctx_t *t)
{
    kc_join_group_request_t req;
    kc_join_group_request_init(&req);
    req.group_id = kc_str("app");
    req.session_timeout_ms = 10000;
    req.rebalance_timeout_ms = 10000;
    req.member_id = kc_str("");
    req.protocol_type = kc_str("consumer");
    kc_join_group_request_protocol_t proto = {kc_str("range"), {NULL, 0}};
    req.protocols.items = &proto;
    req.protocols.count = 1;
    kc_request_ctx_t ctx = {2, 1, 11, 5, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_join_group(t->c, &ctx, &req, &res);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 1);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_join_group_response_t r;
    kc_join_group_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_join_group_response_decode(&rd, 5, &arena, &r), 0);
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    return r.error_code;
}

/* After GroupMetadataManagerTest.testClassicGroupJoinWithNonEmptyStreamsGroup
 * and testClassicGroupJoinWithEmptyStreamsGroup: a classic JoinGroup to a
 * streams group with a member is INCONSISTENT_GROUP_PROTOCOL; once the group
 * is empty the join makes it a classic group (MEMBER_ID_REQUIRED), which a
 * replay keeps. */
static void test_classic_join_refused_while_members_then_converts_empty_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    assert_int_equal(classic_join(t), 23); /* INCONSISTENT_GROUP_PROTOCOL */
    assert_non_null(kc_coord_streams_group_find(t->c, kc_str("app")));
    assert_int_equal(send_hb(t, &a, (hb_opts_t){.epoch = -1, .owned = OWNED_NULL}).error, E_NONE);
    assert_int_equal(classic_join(t), 79); /* MEMBER_ID_REQUIRED: a classic group now */
    assert_null(kc_coord_streams_group_find(t->c, kc_str("app")));
    assert_non_null(kc_classic_group_find(t->c, kc_str("app")));
    /* The conversion survives a restart (the streams records are tombstoned). */
    ctx_restart(t);
    assert_null(kc_coord_streams_group_find(t->c, kc_str("app")));
    ctx_free(t);
}

/* ---- the topology-description store (KIP-1331) ---------------------------------- */

/* A store is configured: back-off 1 s doubling to 4 s, no jitter. */
static void with_store(ctx_t *t)
{
    kc_topology_desc_config_t cfg;
    kc_topology_desc_config_defaults(&cfg);
    cfg.plugin_configured = true;
    cfg.backoff_initial_ms = 1000;
    cfg.backoff_max_ms = 4000;
    cfg.backoff_jitter_percent = 0;
    t->tdesc = kc_topology_desc_new(&cfg, 1);
    kc_coord_set_topology_desc(t->c, t->tdesc);
}

static kc_streams_group_t *app(ctx_t *t) { return kc_coord_streams_group_find(t->c, kc_str("app")); }

static void set_epochs(ctx_t *t, int32_t stored, int32_t failed)
{
    kc_result_t res;
    kc_result_init(&res);
    kc_streams_group_set_description_epochs(t->c, app(t), stored, failed, &res);
    ct_keep(t, &res);
    kc_result_deinit(&res);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testHeartbeatNeverSetsFlagWithoutPlugin,
 * testHeartbeatSetsTopologyDescriptionRequiredWhenStoredLags,
 * testHeartbeatArmSuppressReSolicitCycle,
 * testUncertainStoredEpochSolicitsOnHeartbeat,
 * testHeartbeatSkipsFlagWhenStoredMatchesCurrent and
 * testHeartbeatSkipsFlagWhenFailedAtCurrentEpoch: without a store no
 * heartbeat is asked for the topology description; with one a heartbeat is
 * asked, then not again inside the back-off window (1 s, then 2 s); -2 is
 * asked, a stored or failed epoch at the topology epoch is not; after a
 * replay the window is gone and the persisted epochs decide. */
static void test_description_required_solicited_with_backoff(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    /* Without a store nobody is asked. */
    assert_false(join(t, &a).description_required);
    assert_false(beat(t, &a).description_required);
    with_store(t);
    assert_true(beat(t, &a).description_required);
    /* Inside the window (1 s): not again. */
    assert_false(beat(t, &a).description_required);
    ct_sleep(t, 1100);
    assert_true(beat(t, &a).description_required);
    /* The second window doubles (2 s). */
    ct_sleep(t, 1100);
    assert_false(beat(t, &a).description_required);
    ct_sleep(t, 1000);
    assert_true(beat(t, &a).description_required);
    /* -2 reads as not stored; the stored epoch or a failed one stops it. */
    set_epochs(t, -2, -1);
    ct_sleep(t, 5000);
    assert_true(beat(t, &a).description_required);
    set_epochs(t, 1, -1);
    ct_sleep(t, 5000);
    assert_false(beat(t, &a).description_required);
    set_epochs(t, -1, 1);
    ct_sleep(t, 5000);
    assert_false(beat(t, &a).description_required);
    /* After a restart the window is gone and the persisted epochs decide. */
    set_epochs(t, -2, -1);
    ctx_restart(t);
    assert_true(beat(t, &a).description_required);
    ctx_free(t);
}

static void test_description_epochs_one_copy_in_the_view(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    with_store(t);
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    kc_topology_desc_group_t v;
    assert_int_equal(kc_coord_streams_group_view(t->c, kc_str("app"), &v), 1);
    assert_int_equal(v.topology_epoch, 1);
    assert_false(v.empty);
    assert_false(v.has_offsets);
    /* The barrier writes through the view: the group's accessors see it and
     * the record it writes keeps the group's own fields. */
    kc_result_t res;
    kc_result_init(&res);
    kc_topology_desc_op_t *op = kc_topology_desc_push_begin(kc_str("app"), &v, 1,
                                                            (const uint8_t *)"x", 1, &res);
    assert_non_null(op);
    assert_int_equal(kc_streams_group_stored_description_epoch(app(t)), -2);
    ct_keep(t, &res);
    kc_result_reset(&res);
    kc_topology_desc_op_free(op);
    int32_t group_epoch = v.metadata.epoch;
    assert_true(group_epoch > 0);
    ctx_restart(t);
    assert_int_equal(kc_streams_group_stored_description_epoch(app(t)), -2);
    assert_int_equal(kc_coord_streams_group_view(t->c, kc_str("app"), &v), 1);
    assert_int_equal(v.metadata.epoch, group_epoch);
    /* Another type of group, and none. */
    assert_int_equal(kc_coord_streams_group_view(t->c, kc_str("nope"), &v), 0);
    kc_topology_desc_groups_t groups;
    kc_coord_topology_desc_groups(t->c, &groups);
    assert_true(groups.has_member(groups.ctx, kc_str("app"), kc_str("member-a")));
    assert_false(groups.has_member(groups.ctx, kc_str("app"), kc_str("member-b")));
    assert_false(groups.has_member(groups.ctx, kc_str("nope"), kc_str("member-a")));
    kc_result_deinit(&res);
    ctx_free(t);
}

typedef struct {
    int16_t error;
    int8_t status;
    bool has_description;
    char node[64];
} desc_t;

static desc_t describe_with(ctx_t *t, const kc_topology_desc_fetched_t *f, size_t nf)
{
    kc_streams_group_describe_request_t req;
    kc_streams_group_describe_request_init(&req);
    kc_str_t ids[1] = {kc_str("app")};
    req.group_ids.items = ids;
    req.group_ids.count = 1;
    req.include_topology_description = true;
    kc_request_ctx_t ctx = {3, 1, 89, 1, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_streams_group_describe_fetched(t->c, &ctx, &req, f, nf, &res);
    assert_int_equal(res.nresponses, 1);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_describe_response_t r;
    kc_streams_group_describe_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_streams_group_describe_response_decode(&rd, 1, &arena, &r), 0);
    desc_t d = {r.groups.items[0].error_code, r.groups.items[0].topology_description_status,
                r.groups.items[0].topology_description != NULL, ""};
    if (d.has_description && r.groups.items[0].topology_description->subtopologies.count > 0) {
        kc_str_t n = r.groups.items[0].topology_description->subtopologies.items[0].nodes.items[0].name;
        snprintf(d.node, sizeof(d.node), "%.*s", (int)n.len, n.ptr);
    }
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    return d;
}

/* Authorizer stand-in: only "User:reader" may DESCRIBE group "app". */
static bool reader_may_describe(const void *arg, const char *principal, const char *host,
                                int8_t op, int8_t rtype, kc_str_t name)
{
    (void)arg;
    (void)host;
    return op == KC_OP_DESCRIBE && rtype == KC_RES_GROUP && kc_str_eq_cstr(name, "app") &&
           strcmp(principal, "User:reader") == 0;
}

static kc_streams_group_describe_response_described_group_t
describe_as(ctx_t *t, const char *principal, kc_arena_t *arena)
{
    kc_streams_group_describe_request_t req;
    kc_streams_group_describe_request_init(&req);
    kc_str_t ids[1] = {kc_str("app")};
    req.group_ids.items = ids;
    req.group_ids.count = 1;
    req.include_authorized_operations = true;
    kc_request_ctx_t ctx = {3, 1, 89, 1, kc_str("client"), "/127.0.0.1", t->now};
    ctx.principal = principal;
    ctx.authorize = reader_may_describe;
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_streams_group_describe(t->c, &ctx, &req, &res);
    assert_int_equal(res.nresponses, 1);
    uint8_t *copy = kc_arena_alloc(arena, res.responses[0].body.len);
    memcpy(copy, res.responses[0].body.data, res.responses[0].body.len);
    kc_reader_t rd;
    kc_reader_init(&rd, copy, res.responses[0].body.len);
    kc_streams_group_describe_response_t r;
    kc_streams_group_describe_response_init(&r);
    assert_int_equal(kc_streams_group_describe_response_decode(&rd, 1, arena, &r), 0);
    kc_result_deinit(&res);
    assert_int_equal(r.groups.count, 1);
    return r.groups.items[0];
}

/* KafkaApis.handleStreamsGroupDescribe: DESCRIBE on each group, and the
 * authorized operations computed from the authorizer. */
static void test_describe_checks_describe_on_the_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_describe_response_described_group_t g = describe_as(t, "User:reader", &arena);
    assert_int_equal(g.error_code, 0);
    assert_int_equal(g.members.count, 1);
    assert_int_equal(g.authorized_operations, 1 << KC_OP_DESCRIBE);
    g = describe_as(t, "User:nobody", &arena);
    assert_int_equal(g.error_code, KC_ERR_GROUP_AUTHORIZATION_FAILED);
    assert_int_equal(g.members.count, 0);
    kc_arena_deinit(&arena);
    ctx_free(t);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testDescribeAttachesAvailableWhenPluginReturnsTopology,
 * testDescribeMarksErrorWhenPluginFails,
 * testDescribeAtUncertainEpochYieldsNotStored,
 * testDescribeFiltersNonEligibleGroupsToNotStored and
 * testDescribeMarksNotStoredWhenPluginReturnsNullDescription: Describe with
 * the description asked for is AVAILABLE with the fetched description only
 * when the stored epoch is the topology epoch and the store returned it for
 * that epoch; nothing stored, -2, an older stored epoch, no answer or one
 * for another epoch, and the store finding nothing are NOT_STORED; a store
 * failure or bytes that do not decode are ERROR without a description. */
static void test_describe_serves_the_fetched_description(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    with_store(t);
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    /* The bytes a push hands the store. */
    kc_streams_group_topology_description_update_request_topology_description_node_t node;
    memset(&node, 0, sizeof(node));
    node.name = kc_str("KSTREAM-SOURCE-0000000000");
    node.node_type = 1;
    kc_str_t topics[1] = {kc_str("in")};
    node.source_topics.items = topics;
    node.source_topics.count = 1;
    node.sink_topic = KC_STR_NULL;
    kc_streams_group_topology_description_update_request_topology_description_subtopology_t sub;
    memset(&sub, 0, sizeof(sub));
    sub.subtopology_id = kc_str("0");
    sub.nodes.items = &node;
    sub.nodes.count = 1;
    kc_streams_group_topology_description_update_request_topology_description_t desc;
    memset(&desc, 0, sizeof(desc));
    desc.subtopologies.items = &sub;
    desc.subtopologies.count = 1;
    kc_buf_t bytes;
    kc_buf_init(&bytes);
    assert_int_equal(kc_topology_desc_encode(&desc, &bytes), 0);
    kc_topology_desc_fetched_t f = {kc_str("app"), 1, KC_TOPOLOGY_STORE_OK, bytes.data, bytes.len};

    /* Nothing stored (-1) and uncertain (-2): NOT_STORED whatever is fetched. */
    desc_t d = describe_with(t, &f, 1);
    assert_int_equal(d.status, KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    assert_false(d.has_description);
    set_epochs(t, -2, -1);
    assert_int_equal(describe_with(t, &f, 1).status, KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    /* Stored == the topology epoch: the fetched description. */
    set_epochs(t, 1, -1);
    d = describe_with(t, &f, 1);
    assert_int_equal(d.error, E_NONE);
    assert_int_equal(d.status, KC_TOPOLOGY_DESC_STATUS_AVAILABLE);
    assert_true(d.has_description);
    assert_string_equal(d.node, "KSTREAM-SOURCE-0000000000");
    /* No get answered for this epoch, or a get for another one: NOT_STORED. */
    assert_int_equal(describe_with(t, NULL, 0).status, KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    kc_topology_desc_fetched_t other = f;
    other.topology_epoch = 0;
    assert_int_equal(describe_with(t, &other, 1).status, KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    /* The store's failures. */
    kc_topology_desc_fetched_t nf = f;
    nf.status = KC_TOPOLOGY_STORE_NOT_FOUND;
    assert_int_equal(describe_with(t, &nf, 1).status, KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    nf.status = KC_TOPOLOGY_STORE_TRANSIENT;
    assert_int_equal(describe_with(t, &nf, 1).status, KC_TOPOLOGY_DESC_STATUS_ERROR);
    /* Bytes that do not decode: ERROR, no description. */
    kc_topology_desc_fetched_t bad = f;
    bad.len = 3;
    d = describe_with(t, &bad, 1);
    assert_int_equal(d.status, KC_TOPOLOGY_DESC_STATUS_ERROR);
    assert_false(d.has_description);
    /* Stored epoch behind the group's topology epoch: NOT_STORED. */
    set_epochs(t, 0, -1);
    assert_int_equal(describe_with(t, &f, 1).status, KC_TOPOLOGY_DESC_STATUS_NOT_STORED);
    kc_buf_deinit(&bytes);
    ctx_free(t);
}

static void short_retention(kc_coord_config_t *cfg)
{
    cfg->offsets_retention_check_interval_ms = 1000;
}

/* After StreamsGroupTest.testShouldExpireFalseWhenPluginConfiguredAndEpochStored,
 * testShouldExpireFalseWhenStoredEpochUncertain and
 * testShouldExpireTrueWhenStoredEpochIsDefault: with a store configured, an
 * empty streams group without offsets is kept while its stored epoch is a
 * topology epoch or -2, and while a store call is in flight; at -1 it
 * expires, and its tombstones replay. */
static void test_empty_group_expires_once_the_store_holds_nothing(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(short_retention);
    with_store(t);
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    set_epochs(t, 1, -1);
    assert_int_equal(send_hb(t, &a, (hb_opts_t){.epoch = -1, .owned = OWNED_NULL}).error, E_NONE);
    /* The store may hold its description (1, then -2): kept. */
    ct_sleep(t, 2500);
    assert_non_null(app(t));
    set_epochs(t, -2, -1);
    ct_sleep(t, 2500);
    assert_non_null(app(t));
    /* Nothing stored but a store call in flight (a push validated before the
     * member left): kept, so that the call's completion finds the group. */
    set_epochs(t, -1, -1);
    kc_topology_desc_group_t v;
    assert_int_equal(kc_coord_streams_group_view(t->c, kc_str("app"), &v), 1);
    v.state->ops_in_flight = 1;
    ct_sleep(t, 2500);
    assert_non_null(app(t));
    v.state->ops_in_flight = 0;
    ct_sleep(t, 2500);
    assert_null(app(t));
    /* The tombstones replay. */
    ctx_restart(t);
    assert_null(app(t));
    ctx_free(t);
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testClassicJoinDeletesTopologyBeforeConvertingEmptyStreamsGroup:
 * a classic join to an empty streams group whose description the store may
 * hold (stored epoch 1 or -2) is REBALANCE_IN_PROGRESS and converts nothing;
 * once the stored epoch is -1 the join converts the group. */
static void test_conversion_waits_for_the_store_delete(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    with_store(t);
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    set_epochs(t, 1, -1);
    assert_int_equal(send_hb(t, &a, (hb_opts_t){.epoch = -1, .owned = OWNED_NULL}).error, E_NONE);
    /* The store may hold the description: the join is retried, nothing converted. */
    assert_int_equal(classic_join(t), 27); /* REBALANCE_IN_PROGRESS */
    assert_non_null(app(t));
    set_epochs(t, -2, -1);
    assert_int_equal(classic_join(t), 27);
    assert_non_null(app(t));
    /* Deleted (-1): converted. */
    set_epochs(t, -1, -1);
    assert_int_equal(classic_join(t), 79);
    assert_null(app(t));
    assert_non_null(kc_classic_group_find(t->c, kc_str("app")));
    ctx_free(t);
}

static int16_t delete_group(ctx_t *t, int16_t version, const kc_topology_desc_failed_t *failed,
                            size_t nfailed, char *msg, size_t msglen)
{
    kc_delete_groups_request_t req;
    kc_delete_groups_request_init(&req);
    kc_str_t ids[1] = {kc_str("app")};
    req.groups_names.items = ids;
    req.groups_names.count = 1;
    kc_request_ctx_t ctx = {4, 1, 42, version, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_delete_groups_failed(t->c, &ctx, &req, failed, nfailed, &res);
    ct_keep(t, &res);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_delete_groups_response_t r;
    kc_delete_groups_response_init(&r);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_delete_groups_response_decode(&rd, version, &arena, &r), 0);
    int16_t code = r.results.items[0].error_code;
    kc_str_t m = r.results.items[0].error_message;
    snprintf(msg, msglen, "%.*s", m.len > 0 ? (int)m.len : 0, m.len > 0 ? m.ptr : "");
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    return code;
}

/* After GroupCoordinatorServiceTopologyDescriptionTest.testDeleteGroupsPluginFailureReturnsGroupDeletionFailed:
 * DeleteGroups of a group whose store delete failed answers the failure's
 * GROUP_DELETION_FAILED and message at v3 (UNKNOWN_SERVER_ERROR at v2) and
 * keeps the group; without a failure the group is deleted. */
static void test_delete_groups_keeps_a_group_whose_store_delete_failed(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    with_store(t);
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    assert_int_equal(send_hb(t, &a, (hb_opts_t){.epoch = -1, .owned = OWNED_NULL}).error, E_NONE);
    kc_topology_desc_failed_t f = {kc_str("app"), 134, "Topology description plugin failed to delete the topology."};
    char msg[256];
    assert_int_equal(delete_group(t, 3, &f, 1, msg, sizeof(msg)), 134);
    assert_string_equal(msg, "Topology description plugin failed to delete the topology.");
    assert_non_null(app(t));
    assert_int_equal(delete_group(t, 2, &f, 1, msg, sizeof(msg)), -1); /* UNKNOWN_SERVER_ERROR */
    assert_non_null(app(t));
    assert_int_equal(delete_group(t, 3, NULL, 0, msg, sizeof(msg)), E_NONE);
    assert_string_equal(msg, "");
    assert_null(app(t));
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupHeartbeatWithEmptyClassicGroup:
 * a streams join to the id of a simple classic group (made by an admin
 * offset commit) replaces it by a Stable streams group; after a replay the
 * streams group is there and keeps the committed offset. */
static void test_streams_join_takes_over_simple_classic_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    /* An admin commit makes a simple classic group holding an offset. */
    kc_offset_commit_request_partition_t part = {0, 42, -1, -1, kc_str("")};
    kc_offset_commit_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.name = kc_str("in");
    topic.partitions.items = &part;
    topic.partitions.count = 1;
    kc_offset_commit_request_t oc;
    kc_offset_commit_request_init(&oc);
    oc.group_id = kc_str("app");
    oc.generation_id_or_member_epoch = -1;
    oc.member_id = kc_str("");
    oc.topics.items = &topic;
    oc.topics.count = 1;
    kc_request_ctx_t ctx = {3, 1, 8, 2, kc_str("admin"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_commit(t->c, &ctx, &oc, &res);
    ct_keep(t, &res);
    kc_result_deinit(&res);
    assert_non_null(kc_classic_group_find(t->c, kc_str("app")));
    client_t a;
    set_id(&a, "member-a");
    assert_int_equal(join(t, &a).error, E_NONE);
    assert_null(kc_classic_group_find(t->c, kc_str("app")));
    assert_string_equal(state_of(t), "Stable");
    /* After a restart the offset's simple group gives way to the streams group. */
    ctx_restart(t);
    assert_null(kc_classic_group_find(t->c, kc_str("app")));
    assert_string_equal(state_of(t), "Stable");
    assert_true(kc_offsets_group_has_offsets(t->c, kc_str("app")));
    ctx_free(t);
}

static void retention_5s(kc_coord_config_t *cfg)
{
    cfg->offsets_retention_ms = 5000;
    cfg->offsets_retention_check_interval_ms = 1000;
}

static size_t tombstones_since(ctx_t *t, size_t from)
{
    size_t n = 0;
    for (size_t i = from; i < t->nrecs; i++)
        n += t->recs[i].tombstone;
    return n;
}

/* The assignment epoch of task 0-p held by member_id as an active task
 * (pending: among those it revokes); -1 when it holds none. */
static int32_t task_epoch(ctx_t *t, const char *member_id, int32_t p, bool pending)
{
    const kc_streams_group_t *g = app(t);
    assert_non_null(g);
    const st_member_t *m = (const st_member_t *)kc_modern_members_get(&g->members,
                                                                      kc_str(member_id));
    assert_non_null(m);
    int32_t e;
    return kc_tasks_epoch(pending ? &m->pending.active : &m->assigned.active, "0", p, &e) ? e
                                                                                           : -1;
}

/* The group check of an OffsetCommit at v9 by member_id with epoch, then
 * (when it leaves one) the check of partition p of topic. */
static int16_t task_commit_check(ctx_t *t, const char *member_id, int32_t epoch,
                                 const char *topic, int32_t p)
{
    kc_commit_validator_t v = {0};
    char msg[256];
    int16_t err = kc_streams_group_validate_offset_commit(app(t), kc_str(member_id), KC_STR_NULL, epoch, false, 9, &v,
                                                          msg, sizeof(msg));
    if (err == E_NONE && v.check)
        err = v.check(&v, kc_str(topic), (kc_uuid_t){{0}}, p);
    return err;
}

/* After StreamsGroupTest.testValidateOffsetCommitWithAssignmentEpoch and
 * the streams CurrentAssignmentBuilderTest (KIP-1251, as Kafka 4.4 does it
 * per task): an active task keeps the epoch it was assigned at while its
 * member moves to later epochs, and through its revocation; a task newly
 * assigned takes the target epoch. A commit with an older member epoch
 * passes for the source partitions of tasks held since that epoch or
 * before and is STALE_MEMBER_EPOCH for others, for topics outside the
 * topology and for a member without active tasks; a static member's leave
 * puts its tasks at epoch 0. A restart restores the epochs. */
static void test_offset_commit_task_assignment_epochs(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t cls[3];
    set_id(&cls[0], "member-a");
    set_id(&cls[1], "member-b");
    set_id(&cls[2], "member-c");
    cls[0].instance_id = "instance-a";
    join(t, &cls[0]);
    int32_t e0 = cls[0].epoch;
    for (int32_t p = 0; p < NPART; p++)
        assert_int_equal(task_epoch(t, "member-a", p, false), e0);
    assert_int_equal(task_commit_check(t, "member-a", e0 - 1, "in", 0), E_STALE_MEMBER_EPOCH);
    /* b joins: a revokes half at its epoch, then moves on; what it keeps
     * stays at its first epoch. */
    join(t, &cls[1]);
    beat(t, &cls[0]);
    assert_int_equal(cls[0].epoch, e0);
    int32_t revoking = -1;
    for (int32_t p = 0; p < NPART; p++)
        if (task_epoch(t, "member-a", p, true) >= 0)
            revoking = p;
    assert_true(revoking >= 0);
    assert_int_equal(task_epoch(t, "member-a", revoking, true), e0);
    converge(t, cls, 2);
    assert_true(cls[0].epoch > e0);
    int32_t e1 = cls[1].epoch;
    for (int32_t p = 0; p < NPART; p++) {
        assert_int_equal(task_epoch(t, "member-a", p, false), cls[0].active[p] ? e0 : -1);
        assert_int_equal(task_commit_check(t, "member-a", e0, "in", p),
                         cls[0].active[p] ? E_NONE : E_STALE_MEMBER_EPOCH);
        if (cls[1].active[p]) {
            assert_int_equal(task_epoch(t, "member-b", p, false), e1);
            assert_int_equal(task_commit_check(t, "member-b", e1 - 1, "in", p),
                             E_STALE_MEMBER_EPOCH);
        }
    }
    /* A topic the topology does not read. */
    assert_int_equal(task_commit_check(t, "member-a", e0, "elsewhere", 0), E_STALE_MEMBER_EPOCH);
    ctx_restart(t);
    for (int32_t p = 0; p < NPART; p++)
        assert_int_equal(task_epoch(t, "member-a", p, false), cls[0].active[p] ? e0 : -1);
    /* a leaves for a while (epoch -2): its tasks count as assigned at 0. */
    assert_int_equal(send_hb(t, &cls[0], (hb_opts_t){.epoch = -2, .owned = OWNED_NULL}).error,
                     E_NONE);
    for (int32_t p = 0; p < NPART; p++)
        assert_int_equal(task_epoch(t, "member-a", p, false), cls[0].active[p] ? 0 : -1);
    ctx_free(t);
}

/* Offsets of a streams group expire by commit time, except those of a live
 * group's source topics (StreamsGroup.isSubscribedToTopic); once the group
 * is empty and none is left, the group goes (no store configured). */
static void test_streams_offsets_expire_then_the_empty_group_goes(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(retention_5s);
    kc_offset_commit_request_partition_t part = {0, 42, -1, -1, kc_str("")};
    kc_offset_commit_request_topic_t topics[2];
    memset(topics, 0, sizeof(topics));
    topics[0].name = kc_str("in");
    topics[1].name = kc_str("two-partitions");
    for (int i = 0; i < 2; i++) {
        topics[i].partitions.items = &part;
        topics[i].partitions.count = 1;
    }
    kc_offset_commit_request_t oc;
    kc_offset_commit_request_init(&oc);
    oc.group_id = kc_str("app");
    oc.generation_id_or_member_epoch = -1;
    oc.member_id = kc_str("");
    oc.topics.items = topics;
    oc.topics.count = 2;
    kc_request_ctx_t ctx = {3, 1, 8, 2, kc_str("admin"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_commit(t->c, &ctx, &oc, &res);
    ct_keep(t, &res);
    kc_result_deinit(&res);
    client_t a;
    set_id(&a, "member-a");
    assert_int_equal(join(t, &a).error, E_NONE);
    size_t before = t->nrecs;
    ct_sleep(t, 6500);
    /* Only the offset of the topic the group does not read expired. */
    assert_int_equal(tombstones_since(t, before), 1);
    assert_true(kc_offsets_group_has_offsets(t->c, kc_str("app")));
    assert_non_null(app(t));
    assert_int_equal(send_hb(t, &a, (hb_opts_t){.epoch = -1, .owned = OWNED_NULL}).error, E_NONE);
    ct_sleep(t, 1500);
    assert_false(kc_offsets_group_has_offsets(t->c, kc_str("app")));
    assert_null(app(t));
    ctx_restart(t);
    assert_null(app(t));
    assert_false(kc_offsets_group_has_offsets(t->c, kc_str("app")));
    ctx_free(t);
}

static void short_rebalance(kc_coord_config_t *cfg) { cfg->group_streams_session_timeout_ms = 60000; }

/* After GroupMetadataManagerTest.testStreamsRebalanceTimeoutExpiration: a
 * member asked to revoke two tasks that keeps reporting all four is removed
 * when its rebalance timeout (5 s) ends, though it heartbeats; its next
 * heartbeat is UNKNOWN_MEMBER_ID. */
static void test_rebalance_timeout_fences_member_that_does_not_revoke(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(short_rebalance);
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    join(t, &a);
    join(t, &b);
    /* a is asked to revoke two tasks with a 5 s rebalance timeout and
     * keeps reporting all four. */
    client_t stubborn = a;
    for (int p = 0; p < NPART; p++)
        stubborn.active[p] = true;
    hb_t h = send_hb(t, &stubborn, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_ALL,
                                               .rebalance_timeout = 5000});
    assert_int_equal(h.error, E_NONE);
    assert_int_equal(count(h.active), 2);
    ct_sleep(t, 4000);
    for (int p = 0; p < NPART; p++)
        stubborn.active[p] = true;
    assert_int_equal(send_hb(t, &stubborn, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_ALL}).error,
                     E_NONE);
    ct_sleep(t, 2000);
    h = beat(t, &stubborn);
    assert_int_equal(h.error, E_UNKNOWN_MEMBER_ID);
    ctx_free(t);
}

/* After StreamsGroupStaticMemberGroupMetadataManagerTest.testStreamsStaticMemberTemporaryLeaveSessionTimeoutExpiration:
 * a static member that left with epoch -2 keeps its tasks reserved until its
 * session ends; then the other member gets every task and the instance id
 * may join again. */
static void test_static_member_at_minus_two_expires_with_its_session(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    a.instance_id = "instance-a";
    join(t, &a);
    join(t, &b);
    client_t cls[2] = {a, b};
    converge(t, cls, 2);
    assert_int_equal(send_hb(t, &cls[0], (hb_opts_t){.epoch = -2, .owned = OWNED_NULL}).error, E_NONE);
    /* Its tasks stay reserved while b heartbeats ... */
    for (int i = 0; i < 8; i++) {
        ct_sleep(t, 1000);
        assert_int_equal(beat(t, &cls[1]).error, E_NONE);
    }
    assert_int_equal(count(cls[1].active), 2);
    /* ... until the session of the departed static member expires. */
    cls[0].joined = false;
    for (int i = 0; i < 4; i++) {
        ct_sleep(t, 1000);
        assert_int_equal(beat(t, &cls[1]).error, E_NONE);
    }
    converge(t, cls, 2);
    assert_int_equal(count(cls[1].active), NPART);
    /* The instance id is free again. */
    client_t a2;
    set_id(&a2, "member-a2");
    a2.instance_id = "instance-a";
    assert_int_equal(join(t, &a2).error, E_NONE);
    ctx_free(t);
}

/* After GroupMetadataManagerTest.testStreamsGroupMemberJoiningWithMissingSourceTopic
 * and testStreamsGroupMemberJoiningWithIncorrectlyPartitionedTopic: a join
 * whose source topic is missing gets MISSING_SOURCE_TOPICS naming it and
 * nothing to create; a changelog topic that exists with another partition
 * count, or copartitioned source topics of different counts, get
 * INCORRECTLY_PARTITIONED_TOPICS and no task; the groups are NotReady. */
static void test_missing_source_and_incorrectly_partitioned_topics(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .group = "g-missing",
                                        .source = "nope"});
    assert_int_equal(h.error, E_NONE);
    assert_true(has_status(&h, 1));
    assert_string_equal(h.detail[0], "Source topics nope are missing.");
    assert_int_equal(h.create.n, 0);
    kc_streams_group_t *g = kc_coord_streams_group_find(t->c, kc_str("g-missing"));
    assert_string_equal(kc_streams_group_state(g), "NotReady");
    /* An existing changelog topic with 2 partitions where 4 are needed. */
    h = send_hb(t, &b, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .group = "g-wrong",
                                   .changelog_override = "two-partitions"});
    assert_int_equal(h.error, E_NONE);
    assert_true(has_status(&h, 2));
    assert_string_equal(h.detail[0],
                        "Existing topic two-partitions has different number of partitions: "
                        "expected 4, found 2");
    assert_int_equal(count(b.active), 0);
    g = kc_coord_streams_group_find(t->c, kc_str("g-wrong"));
    assert_string_equal(kc_streams_group_state(g), "NotReady");
    /* Copartitioned source topics with different partition counts. */
    client_t c;
    set_id(&c, "member-c");
    h = send_hb(t, &c, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .group = "g-copart",
                                   .copartition = true});
    assert_int_equal(h.error, E_NONE);
    assert_true(has_status(&h, 2));
    assert_string_equal(h.detail[0], "Following topics do not have the same number of partitions: "
                                     "[{in=4, two-partitions=2}]");
    assert_int_equal(count(c.active), 0);
    ctx_free(t);
}

/* How many records of that type the context kept whose key names member. */
static int records_of(ctx_t *t, int16_t type, const char *member)
{
    int n = 0;
    for (size_t i = 0; i < t->nrecs; i++) {
        const ct_record_t *r = &t->recs[i];
        if (r->key.len >= 2 && r->key.data[0] == (uint8_t)(type >> 8) &&
            r->key.data[1] == (uint8_t)type &&
            memmem(r->key.data, r->key.len, member, strlen(member)) != NULL)
            n++;
    }
    return n;
}

static void test_member_without_tasks_gets_a_target_record(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t cls[NPART + 1];
    char id[32];
    for (int i = 0; i <= NPART; i++) {
        snprintf(id, sizeof(id), "member-%d", i);
        set_id(&cls[i], id);
        assert_int_equal(join(t, &cls[i]).error, E_NONE);
    }
    converge(t, cls, NPART + 1);
    int empty = 0;
    for (int i = 0; i <= NPART; i++) {
        empty += count(cls[i].active) == 0;
        snprintf(id, sizeof(id), "member-%d", i);
        /* TargetAssignmentBuilder writes record 21 for every new member. */
        assert_true(records_of(t, 21, id) >= 1);
        assert_true(records_of(t, 22, id) >= 1);
    }
    assert_int_equal(empty, 1);
    ctx_free(t);
}

/* One raw heartbeat; returns the decoded response's error code and copies
 * its message (empty when null) into msg. */
static int16_t raw_hb(ctx_t *t, int16_t version, const kc_streams_group_heartbeat_request_t *req,
                      char *msg, size_t cap, kc_streams_group_heartbeat_response_t *out,
                      kc_arena_t *arena)
{
    kc_request_ctx_t ctx = {1, 1, 88, version, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_streams_group_heartbeat(t->c, &ctx, req, &res, NULL);
    ct_keep(t, &res);
    assert_int_equal(res.nresponses, 1);
    kc_streams_group_heartbeat_response_init(out);
    /* The decoded strings point into the body: keep a copy in the arena. */
    uint8_t *body = kc_arena_alloc(arena, res.responses[0].body.len + 1);
    memcpy(body, res.responses[0].body.data, res.responses[0].body.len);
    kc_reader_t rd;
    kc_reader_init(&rd, body, res.responses[0].body.len);
    assert_int_equal(kc_streams_group_heartbeat_response_decode(&rd, version, arena, out), 0);
    snprintf(msg, cap, "%.*s", out->error_message.len > 0 ? (int)out->error_message.len : 0,
             out->error_message.len > 0 ? out->error_message.ptr : "");
    kc_result_deinit(&res);
    return out->error_code;
}

/* The answers Kafka 4.4 gives that a differential run against it showed:
 * the topology's topic names checked before the request rules (internal
 * topics first), null task lists on a join, the group of a leave looked
 * up by id, and a v0 answer without the legacy recovery lag. */
static void test_topology_topic_names_join_lists_leave_and_v0_lag(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_heartbeat_response_t r;
    char msg[512];
    kc_str_t src[3] = {kc_str("bad topic"), kc_str("__consumer_offsets"), kc_str("in")};
    kc_streams_group_heartbeat_request_topic_info_t cl = {0};
    cl.name = kc_str("..");
    kc_streams_group_heartbeat_request_subtopology_t sub;
    memset(&sub, 0, sizeof(sub));
    sub.subtopology_id = kc_str("0");
    sub.source_topics.items = src;
    sub.source_topics.count = 3;
    sub.state_changelog_topics.items = &cl;
    sub.state_changelog_topics.count = 1;
    kc_streams_group_heartbeat_request_topology_t topo = {1, {&sub, 1}};
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("app");
    req.member_id = kc_str(""); /* the topic checks come first */
    req.rebalance_timeout_ms = 1000;
    req.topology = &topo;
    req.active_tasks.count = 0;
    req.standby_tasks.count = 0;
    req.warmup_tasks.count = 0;
    assert_int_equal(raw_hb(t, 1, &req, msg, sizeof(msg), &r, &arena), E_STREAMS_INVALID_TOPOLOGY);
    assert_string_equal(msg, "Use of Kafka internal topics __consumer_offsets in a Kafka Streams "
                             "topology is prohibited.");
    src[1] = kc_str("a/b");
    assert_int_equal(raw_hb(t, 1, &req, msg, sizeof(msg), &r, &arena), E_STREAMS_INVALID_TOPOLOGY);
    assert_string_equal(msg, "Topic names bad topic,a/b,.. are not valid topic names.");
    /* A null list on a join is not an empty one. */
    src[0] = kc_str("in");
    src[1] = kc_str("in");
    cl.name = kc_str("app-store-changelog");
    req.member_id = kc_str("m");
    req.standby_tasks.count = -1;
    assert_int_equal(raw_hb(t, 1, &req, msg, sizeof(msg), &r, &arena), E_INVALID_REQUEST);
    assert_string_equal(msg, "StandbyTasks must be empty when (re-)joining.");
    assert_string_equal(state_of(t), "none");
    /* A v0 answer leaves AcceptableRecoveryLagLegacy at 0. */
    req.standby_tasks.count = 0;
    req.process_id = kc_str("p");
    assert_int_equal(raw_hb(t, 0, &req, msg, sizeof(msg), &r, &arena), E_NONE);
    assert_int_equal(r.member_epoch, 2);
    assert_int_equal(r.acceptable_recovery_lag_legacy, 0);
    /* A leave of an unknown group, or of a group of another type. */
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("nope");
    req.member_id = kc_str("m");
    req.member_epoch = -1;
    assert_int_equal(raw_hb(t, 1, &req, msg, sizeof(msg), &r, &arena), E_GROUP_ID_NOT_FOUND);
    assert_string_equal(msg, "Group nope not found.");
    kc_arena_deinit(&arena);
    ctx_free(t);
}

/* A heartbeat of member `member` joining group "kafka-order" with topology
 * subs[0..nsubs). */
static int16_t join_topology(ctx_t *t, const char *member,
                             kc_streams_group_heartbeat_request_subtopology_t *subs, int32_t nsubs,
                             char *msg, size_t cap, kc_streams_group_heartbeat_response_t *r,
                             kc_arena_t *arena)
{
    kc_streams_group_heartbeat_request_topology_t topo = {1, {subs, nsubs}};
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("kafka-order");
    req.member_id = kc_str(member);
    req.process_id = kc_str(member);
    req.rebalance_timeout_ms = 1000;
    req.topology = &topo;
    req.active_tasks.count = 0;
    req.standby_tasks.count = 0;
    req.warmup_tasks.count = 0;
    return raw_hb(t, 1, &req, msg, cap, r, arena);
}

/* Kafka's internal-topic configuration, ordering and describe views: the
 * missing internal topics listed in the order of Kafka's HashMap, a
 * repartition topic's count decided from its writer even once it exists,
 * a repartition source topic nothing writes to refused, the missing source
 * topics sorted, and Describe listing members in the order of Kafka's
 * members table, topics sorted, with the configured partition counts. */
static void test_internal_topics_in_kafka_order_and_describe_views(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_heartbeat_response_t r;
    char msg[512];
    kc_str_t src[1] = {kc_str("in")};
    kc_str_t sink[1] = {kc_str("app-rep")};
    kc_streams_group_heartbeat_request_topic_info_t cl0[2], cl1, rep;
    memset(cl0, 0, sizeof(cl0));
    memset(&cl1, 0, sizeof(cl1));
    memset(&rep, 0, sizeof(rep));
    cl0[0].name = kc_str("app-a-changelog");
    cl0[1].name = kc_str("app-b-changelog");
    cl1.name = kc_str("app-c-changelog");
    rep.name = kc_str("app-rep");
    kc_streams_group_heartbeat_request_subtopology_t subs[2];
    memset(subs, 0, sizeof(subs));
    subs[0].subtopology_id = kc_str("0");
    subs[0].source_topics.items = src;
    subs[0].source_topics.count = 1;
    subs[0].repartition_sink_topics.items = sink;
    subs[0].repartition_sink_topics.count = 0;
    subs[0].state_changelog_topics.items = cl0;
    subs[0].state_changelog_topics.count = 2;
    subs[1].subtopology_id = kc_str("1");
    subs[1].repartition_source_topics.items = &rep;
    subs[1].repartition_source_topics.count = 1;
    subs[1].state_changelog_topics.items = &cl1;
    subs[1].state_changelog_topics.count = 1;
    /* Nothing writes to the repartition source topic: refused, no group. */
    assert_int_equal(join_topology(t, "m1", subs, 2, msg, sizeof(msg), &r, &arena),
                     E_STREAMS_INVALID_TOPOLOGY);
    assert_string_equal(msg, "Failed to compute number of partitions for all repartition topics, "
                             "because a repartition source topic is never used as a sink topic.");
    assert_null(kc_coord_streams_group_find(t->c, kc_str("kafka-order")));
    subs[0].repartition_sink_topics.count = 1;
    assert_int_equal(join_topology(t, "m1", subs, 2, msg, sizeof(msg), &r, &arena), E_NONE);
    assert_int_equal(r.status.count, 1);
    assert_int_equal(r.status.items[0].status_code, 3);
    assert_true(kc_str_eq_cstr(r.status.items[0].status_detail,
                               "Internal topics are missing: app-b-changelog, app-a-changelog, "
                               "app-rep and 1 additional topics"));
    /* Created with the counts Kafka decides: the repartition topic keeps
     * its count from "in" once it exists. */
    const char *made[4] = {"app-a-changelog", "app-b-changelog", "app-c-changelog", "app-rep"};
    for (int i = 0; i < 4; i++) {
        extra_topics[nextra_topics].name = made[i];
        extra_topics[nextra_topics++].parts = NPART;
    }
    assert_int_equal(join_topology(t, "m2", subs, 2, msg, sizeof(msg), &r, &arena), E_NONE);
    assert_int_equal(r.status.count, 0);
    assert_int_equal(join_topology(t, "m5", subs, 2, msg, sizeof(msg), &r, &arena), E_NONE);
    /* Describe: members m5, m2, m1 (the table's slot order, each slot
     * newest first); the configured counts of the internal topics. */
    kc_str_t gid = kc_str("kafka-order");
    kc_streams_group_describe_request_t dreq;
    kc_streams_group_describe_request_init(&dreq);
    dreq.group_ids.items = &gid;
    dreq.group_ids.count = 1;
    kc_request_ctx_t ctx = {1, 1, 89, 0, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_streams_group_describe(t->c, &ctx, &dreq, &res);
    kc_streams_group_describe_response_t d;
    kc_streams_group_describe_response_init(&d);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_streams_group_describe_response_decode(&rd, 0, &arena, &d), 0);
    assert_int_equal(d.groups.count, 1);
    const kc_streams_group_describe_response_described_group_t *dg = &d.groups.items[0];
    assert_int_equal(dg->members.count, 3);
    assert_true(kc_str_eq_cstr(dg->members.items[0].member_id, "m5"));
    assert_true(kc_str_eq_cstr(dg->members.items[1].member_id, "m2"));
    assert_true(kc_str_eq_cstr(dg->members.items[2].member_id, "m1"));
    const kc_streams_group_describe_response_subtopology_t *s0 = &dg->topology->subtopologies.items[0];
    assert_int_equal(s0->state_changelog_topics.count, 2);
    assert_true(kc_str_eq_cstr(s0->state_changelog_topics.items[0].name, "app-a-changelog"));
    assert_int_equal(s0->state_changelog_topics.items[0].partitions, NPART);
    assert_int_equal(dg->topology->subtopologies.items[1].repartition_source_topics.items[0].partitions,
                     NPART);
    kc_result_deinit(&res);
    /* Missing source topics: sorted, distinct, at most three named. */
    kc_str_t missing[5] = {kc_str("zz"), kc_str("yy"), kc_str("ww"), kc_str("yy"), kc_str("xx")};
    kc_streams_group_heartbeat_request_subtopology_t one;
    memset(&one, 0, sizeof(one));
    one.subtopology_id = kc_str("0");
    one.source_topics.items = missing;
    one.source_topics.count = 5;
    kc_streams_group_heartbeat_request_topology_t topo = {1, {&one, 1}};
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("other");
    req.member_id = kc_str("m");
    req.rebalance_timeout_ms = 1000;
    req.topology = &topo;
    req.active_tasks.count = 0;
    req.standby_tasks.count = 0;
    req.warmup_tasks.count = 0;
    assert_int_equal(raw_hb(t, 1, &req, msg, sizeof(msg), &r, &arena), E_NONE);
    assert_true(kc_str_eq_cstr(r.status.items[0].status_detail,
                               "Source topics ww, xx, yy and 1 additional topics are missing."));
    kc_arena_deinit(&arena);
    ctx_free(t);
}

/* The sticky assignor breaks ties as Kafka's PriorityQueue over the
 * processes (filled in processIdToState's HashMap order) does. */
static void test_sticky_assignor_ties_follow_kafka_heaps(void **state)
{
    (void)state;
    kc_st_subtopology_t sub = {"0", 2, false};
    kc_tasks_tuple_t had, none;
    memset(&had, 0, sizeof(had));
    memset(&none, 0, sizeof(none));
    kc_tasks_add(&had.active, "0", 0);
    kc_st_member_t ms[3];
    memset(ms, 0, sizeof(ms));
    const char *ids[3] = {"m1", "m2", "m3"}, *procs[3] = {"p-m1", "p-m2", "p-m3"};
    for (int i = 0; i < 3; i++) {
        ms[i].member_id = ids[i];
        ms[i].process_id = procs[i];
        ms[i].previous = i == 0 ? &had : &none;
    }
    kc_st_spec_t spec = {&sub, 1, ms, 3, 0};
    kc_assignor_streams_sticky(&spec);
    assert_int_equal(kc_tasks_count(&ms[0].active), 1);
    assert_int_equal(kc_tasks_count(&ms[1].active), 0);
    assert_int_equal(kc_tasks_count(&ms[2].active), 1);
    for (int i = 0; i < 3; i++) {
        kc_tasks_free(&ms[i].active);
        kc_tasks_free(&ms[i].standby);
    }
    kc_tasks_tuple_free(&had);
}

static void delay_one_second(kc_coord_config_t *cfg) { cfg->group_streams_initial_rebalance_delay_ms = 1000; }

/* Answers Kafka 4.4 gives around a new group and Describe: the delayed
 * first assignment of a group created by the heartbeat that armed the
 * delay finds no configured topology and does nothing (the next heartbeat
 * assigns); StreamsGroupDescribe answers empty ids (INVALID_GROUP_ID)
 * before the others; ConsumerGroupDescribe names a streams group as not a
 * consumer group; endpoint partitions list only the partitions a source
 * topic has. */
static void test_new_group_delay_describe_order_and_endpoint_partitions(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(delay_one_second);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_heartbeat_response_t r;
    char msg[512];
    kc_str_t src[2] = {kc_str("in"), kc_str("two-partitions")};
    kc_streams_group_heartbeat_request_subtopology_t sub;
    memset(&sub, 0, sizeof(sub));
    sub.subtopology_id = kc_str("0");
    sub.source_topics.items = src;
    sub.source_topics.count = 2;
    kc_streams_group_heartbeat_request_topology_t topo = {1, {&sub, 1}};
    kc_streams_group_heartbeat_request_endpoint_t ep = {kc_str("host-a"), 8080};
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("app");
    req.member_id = kc_str("m1");
    req.process_id = kc_str("p1");
    req.rebalance_timeout_ms = 30000;
    req.topology = &topo;
    req.user_endpoint = &ep;
    req.active_tasks.count = req.standby_tasks.count = req.warmup_tasks.count = 0;
    assert_int_equal(raw_hb(t, 1, &req, msg, sizeof(msg), &r, &arena), E_NONE);
    assert_int_equal(r.member_epoch, 1);
    assert_int_equal(r.status.count, 1);
    assert_int_equal(r.status.items[0].status_code, 5);
    ct_sleep(t, 1500);
    assert_string_equal(state_of(t), "Assigning");
    /* The next heartbeat configures the topology and assigns. */
    kc_streams_group_heartbeat_request_t hb;
    kc_streams_group_heartbeat_request_init(&hb);
    hb.group_id = kc_str("app");
    hb.member_id = kc_str("m1");
    hb.member_epoch = 1;
    hb.active_tasks.count = hb.standby_tasks.count = hb.warmup_tasks.count = 0;
    assert_int_equal(raw_hb(t, 1, &hb, msg, sizeof(msg), &r, &arena), E_NONE);
    assert_int_equal(r.member_epoch, 2);
    assert_int_equal(r.active_tasks.count, 1);
    assert_int_equal(r.active_tasks.items[0].partitions.count, NPART);
    /* Endpoints: "two-partitions" only has partitions 0 and 1. */
    assert_int_equal(r.partitions_by_user_endpoint.count, 1);
    const kc_streams_group_heartbeat_response_endpoint_to_partitions_t *e =
        &r.partitions_by_user_endpoint.items[0];
    assert_int_equal(e->active_partitions.count, 2);
    for (int32_t i = 0; i < 2; i++)
        assert_int_equal(e->active_partitions.items[i].partitions.count,
                         kc_str_eq_cstr(e->active_partitions.items[i].topic, "in") ? NPART : 2);
    /* Describe: the empty id first. */
    kc_str_t gids[3] = {kc_str("nope"), kc_str(""), kc_str("app")};
    kc_streams_group_describe_request_t dreq;
    kc_streams_group_describe_request_init(&dreq);
    dreq.group_ids.items = gids;
    dreq.group_ids.count = 3;
    kc_request_ctx_t ctx = {1, 1, 89, 0, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_streams_group_describe(t->c, &ctx, &dreq, &res);
    kc_streams_group_describe_response_t d;
    kc_streams_group_describe_response_init(&d);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_streams_group_describe_response_decode(&rd, 0, &arena, &d), 0);
    assert_int_equal(d.groups.count, 3);
    assert_int_equal(d.groups.items[0].error_code, 24);
    assert_int_equal(d.groups.items[0].group_id.len, 0);
    assert_true(d.groups.items[0].error_message.len < 0);
    assert_true(kc_str_eq_cstr(d.groups.items[1].group_id, "nope"));
    assert_true(kc_str_eq_cstr(d.groups.items[2].group_id, "app"));
    kc_result_reset(&res);
    /* ConsumerGroupDescribe of the streams group. */
    kc_str_t one = kc_str("app");
    kc_consumer_group_describe_request_t creq;
    kc_consumer_group_describe_request_init(&creq);
    creq.group_ids.items = &one;
    creq.group_ids.count = 1;
    kc_request_ctx_t cctx = {1, 1, 69, 0, kc_str("client"), "/127.0.0.1", t->now};
    kc_coord_consumer_group_describe(t->c, &cctx, &creq, &res);
    assert_non_null(memmem(res.responses[0].body.data, res.responses[0].body.len,
                           "Group app is not a consumer group.", 34));
    kc_result_deinit(&res);
    kc_arena_deinit(&arena);
    ctx_free(t);
}

static void test_duplicate_subtopology_ids_rejected_without_a_group(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    kc_str_t src[1] = {kc_str("in")};
    kc_streams_group_heartbeat_request_subtopology_t subs[2];
    memset(subs, 0, sizeof(subs));
    for (int i = 0; i < 2; i++) {
        subs[i].subtopology_id = kc_str("0");
        subs[i].source_topics.items = src;
        subs[i].source_topics.count = 1;
    }
    kc_streams_group_heartbeat_request_topology_t topo = {1, {subs, 2}};
    kc_streams_group_heartbeat_request_t req;
    kc_streams_group_heartbeat_request_init(&req);
    req.group_id = kc_str("app");
    req.member_id = kc_str("m");
    req.rebalance_timeout_ms = 1000;
    req.topology = &topo;
    req.active_tasks.count = 0;
    req.standby_tasks.count = 0;
    req.warmup_tasks.count = 0;
    kc_request_ctx_t ctx = {1, 1, 88, 1, kc_str("client"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_streams_group_heartbeat(t->c, &ctx, &req, &res, NULL);
    ct_keep(t, &res);
    assert_int_equal(res.nrecords, 0);
    /* UNKNOWN_SERVER_ERROR without a message, as Kafka's unexpected exception. */
    kc_streams_group_heartbeat_response_t r;
    kc_streams_group_heartbeat_response_init(&r);
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_reader_t rd;
    kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
    assert_int_equal(kc_streams_group_heartbeat_response_decode(&rd, 1, &arena, &r), 0);
    assert_int_equal(r.error_code, -1);
    assert_true(r.error_message.len < 0);
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    assert_string_equal(state_of(t), "none");
    ctx_free(t);
}

/* OffsetDelete of "in"/0 for group "app": the partition's error code (or
 * the top-level one when set). */
static int16_t offset_delete_in(ctx_t *t)
{
    kc_offset_delete_request_partition_t part = {0};
    kc_offset_delete_request_topic_t topic = {kc_str("in"), {&part, 1}};
    kc_offset_delete_request_t req;
    kc_offset_delete_request_init(&req);
    req.group_id = kc_str("app");
    req.topics.items = &topic;
    req.topics.count = 1;
    kc_request_ctx_t ctx = {4, 1, 47, 0, kc_str("admin"), "/127.0.0.1", t->now};
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
    if (err == 0) {
        assert_int_equal(r.topics.count, 1);
        err = r.topics.items[0].partitions.items[0].error_code;
    }
    kc_arena_deinit(&arena);
    kc_result_deinit(&res);
    return err;
}

/* After OffsetMetadataManagerTest.testStreamsGroupOffsetCommitWithStaleMemberEpoch
 * and testStreamsGroupOffsetDeleteWithErrors: a streams member's OffsetCommit
 * v9 with an epoch below or above its own is STALE_MEMBER_EPOCH and with its
 * own is accepted (v8 is UNSUPPORTED_VERSION); OffsetDelete of a source topic
 * of the live group is GROUP_SUBSCRIBED_TO_TOPIC, and once the group is
 * empty the offset is deleted. */
static void test_offset_commit_epochs_and_offset_delete(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a;
    set_id(&a, "member-a");
    join(t, &a);
    kc_offset_commit_request_partition_t part = {0, 42, -1, -1, kc_str("")};
    kc_offset_commit_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.name = kc_str("in");
    topic.partitions.items = &part;
    topic.partitions.count = 1;
    int16_t versions[] = {8, 9, 9, 9};
    int32_t epochs[] = {a.epoch, a.epoch, a.epoch + 1, a.epoch};
    int16_t want[] = {35, 113, 113, 0}; /* UNSUPPORTED_VERSION, STALE_MEMBER_EPOCH x2, NONE */
    for (int i = 0; i < 4; i++) {
        kc_offset_commit_request_t oc;
        kc_offset_commit_request_init(&oc);
        oc.group_id = kc_str("app");
        oc.generation_id_or_member_epoch = epochs[i] - (i == 1 ? 1 : 0);
        oc.member_id = kc_str("member-a");
        oc.topics.items = &topic;
        oc.topics.count = 1;
        kc_request_ctx_t ctx = {3, 1, 8, versions[i], kc_str("client"), "/127.0.0.1", t->now};
        kc_result_t res;
        kc_result_init(&res);
        kc_coord_offset_commit(t->c, &ctx, &oc, &res);
        ct_keep(t, &res);
        kc_arena_t arena;
        kc_arena_init(&arena);
        kc_offset_commit_response_t r;
        kc_offset_commit_response_init(&r);
        kc_reader_t rd;
        kc_reader_init(&rd, res.responses[0].body.data, res.responses[0].body.len);
        assert_int_equal(kc_offset_commit_response_decode(&rd, versions[i], &arena, &r), 0);
        assert_int_equal(r.topics.items[0].partitions.items[0].error_code, want[i]);
        kc_arena_deinit(&arena);
        kc_result_deinit(&res);
    }
    /* The live group reads "in": GROUP_SUBSCRIBED_TO_TOPIC; once Empty, deleted. */
    assert_int_equal(offset_delete_in(t), 86);
    assert_int_equal(send_hb(t, &a, (hb_opts_t){.epoch = -1, .owned = OWNED_NULL}).error, E_NONE);
    assert_int_equal(offset_delete_in(t), 0);
    assert_false(kc_offsets_group_has_offsets(t->c, kc_str("app")));
    ctx_free(t);
}

/* An admin commit to group_id (a simple classic group when there is none). */
static void admin_commit(ctx_t *t, const char *group_id)
{
    kc_offset_commit_request_partition_t part = {0, 42, -1, -1, kc_str("")};
    kc_offset_commit_request_topic_t topic;
    memset(&topic, 0, sizeof(topic));
    topic.name = kc_str("in");
    topic.partitions.items = &part;
    topic.partitions.count = 1;
    kc_offset_commit_request_t oc;
    kc_offset_commit_request_init(&oc);
    oc.group_id = kc_str(group_id);
    oc.generation_id_or_member_epoch = -1;
    oc.member_id = kc_str("");
    oc.topics.items = &topic;
    oc.topics.count = 1;
    kc_request_ctx_t ctx = {3, 1, 8, 2, kc_str("admin"), "/127.0.0.1", t->now};
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_offset_commit(t->c, &ctx, &oc, &res);
    ct_keep(t, &res);
    kc_result_deinit(&res);
}

/* ListGroups v5 (every type): the listed ids, comma-separated, into out. */
static void list_group_ids(ctx_t *t, char *out, size_t cap)
{
    kc_list_groups_request_t req;
    kc_list_groups_request_init(&req);
    kc_request_ctx_t ctx = {4, 1, 16, 5, kc_str("admin"), "/127.0.0.1", t->now};
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

/* Kafka keeps the groups of every type in one table per __consumer_offsets
 * partition, which ListGroups follows: ids created in the same order list
 * in the same order whether each is a streams group or a classic one. */
static void test_list_groups_one_table_with_streams_groups(void **state)
{
    (void)state;
    enum { N = 60 };
    static char ids[N][16];
    static char mixed[N * 16], classic_only[N * 16];
    for (int pass = 0; pass < 2; pass++) {
        ctx_t *t = ctx_new();
        for (int i = 0; i < N; i++) {
            snprintf(ids[i], sizeof(ids[i]), "sg-%d", i);
            if (pass == 0 && i % 3 == 1) {
                client_t a;
                set_id(&a, "member-a");
                hb_t h = send_hb(t, &a, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .group = ids[i]});
                assert_int_equal(h.error, E_NONE);
                hb_free(&h);
            } else {
                admin_commit(t, ids[i]);
            }
        }
        list_group_ids(t, pass == 0 ? mixed : classic_only, sizeof(mixed));
        ctx_free(t);
    }
    assert_string_equal(mixed, classic_only);
}

/* ---- admin views and events ---------------------------------------------------- */

typedef struct {
    int calls;
    char type[16], state[16];
    int32_t group_epoch, assignment_epoch, topology_epoch;
    size_t nmembers;
    /* per member (by index of cls): epoch, state, process, tasks seen */
    int32_t epoch[2];
    char mstate[2][32], process[2][40];
    int64_t session_deadline[2];
    int32_t stored_description_epoch, failed_description_epoch;
    bool active[2][NPART], standby[2][NPART];
    int nwarmup, npending;
    bool endpoint_ok;
} inspect_seen_t;

static void mark(bool *out, const kc_subtopology_tasks_view_t *v, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        assert_string_equal(v[i].subtopology_id, "0");
        for (int32_t k = 0; k < v[i].npartitions; k++)
            out[v[i].partitions[k]] = true;
    }
}

static void seen_group(void *arg, const kc_group_view_t *g)
{
    inspect_seen_t *s = arg;
    s->calls++;
    snprintf(s->type, sizeof(s->type), "%s", g->type);
    snprintf(s->state, sizeof(s->state), "%s", g->state);
    s->group_epoch = g->group_epoch;
    s->assignment_epoch = g->assignment_epoch;
    s->topology_epoch = g->topology_epoch;
    s->stored_description_epoch = g->stored_description_epoch;
    s->failed_description_epoch = g->failed_description_epoch;
    s->nmembers = g->nstreams_members;
    s->endpoint_ok = true;
    for (size_t i = 0; i < g->nstreams_members && i < 2; i++) {
        const kc_streams_member_view_t *m = &g->streams_members[i];
        int idx = strcmp(m->member_id, "member-a") == 0 ? 0 : 1;
        s->epoch[idx] = m->member_epoch;
        s->session_deadline[idx] = m->session_deadline_ms;
        snprintf(s->mstate[idx], sizeof(s->mstate[idx]), "%s", m->state);
        snprintf(s->process[idx], sizeof(s->process[idx]), "%s", m->process_id);
        mark(s->active[idx], m->assigned.active, m->assigned.nactive);
        mark(s->standby[idx], m->assigned.standby, m->assigned.nstandby);
        s->nwarmup += m->assigned.nwarmup;
        s->npending += m->pending_revocation.nactive + m->pending_revocation.nstandby +
                       m->pending_revocation.nwarmup;
        s->endpoint_ok = s->endpoint_ok && m->user_endpoint_host &&
                         strcmp(m->user_endpoint_host, "localhost") == 0 &&
                         m->user_endpoint_port == 8080;
    }
}

typedef struct {
    int n[KC_COORD_EV_COUNT];
    char last_member[KC_COORD_EV_COUNT][64];
    int32_t last_generation[KC_COORD_EV_COUNT];
} events_seen_t;

static void seen_event(void *arg, const kc_coord_event_t *ev)
{
    events_seen_t *e = arg;
    assert_string_equal(ev->group_id, "app");
    e->n[ev->type]++;
    snprintf(e->last_member[ev->type], sizeof(e->last_member[ev->type]), "%s",
             ev->member_id ? ev->member_id : "");
    e->last_generation[ev->type] = ev->generation_id;
}

static void test_inspect_and_events(void **state)
{
    (void)state;
    ctx_t *t = ctx_new_cfg(standby_one);
    events_seen_t ev = {0};
    kc_coord_set_event_sink(t->c, seen_event, &ev);
    inspect_seen_t s = {0};
    assert_false(kc_coord_inspect_group(t->c, kc_str("app"), seen_group, &s));
    client_t cls[2];
    set_id(&cls[0], "member-a");
    set_id(&cls[1], "member-b");
    cls[0].process_id = "process-a";
    cls[1].process_id = "process-b";
    hb_opts_t with_endpoint = {.epoch = 0, .topology_epoch = 1, .endpoint = true};
    for (int i = 0; i < 2; i++) {
        hb_t h = send_hb(t, &cls[i], with_endpoint);
        assert_int_equal(h.error, E_NONE);
        hb_free(&h);
    }
    converge(t, cls, 2);
    assert_true(kc_coord_inspect_group(t->c, kc_str("app"), seen_group, &s));
    assert_int_equal(s.calls, 1);
    assert_string_equal(s.type, "streams");
    assert_string_equal(s.state, "Stable");
    assert_int_equal(s.group_epoch, s.assignment_epoch);
    assert_int_equal(s.topology_epoch, 1);
    assert_int_equal(s.nmembers, 2);
    assert_true(s.endpoint_ok);
    assert_int_equal(s.nwarmup, 0);
    assert_int_equal(s.npending, 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(s.epoch[i], cls[i].epoch);
        assert_string_equal(s.mstate[i], "stable");
        assert_string_equal(s.process[i], cls[i].process_id);
        for (int p = 0; p < NPART; p++) {
            assert_int_equal(s.active[i][p], cls[i].active[p]);
            assert_int_equal(s.standby[i][p], cls[i].standby[p]);
        }
    }
    /* No description pushed: the store holds nothing, nothing failed. */
    assert_int_equal(s.stored_description_epoch, -1);
    assert_int_equal(s.failed_description_epoch, -1);
    /* A heartbeat re-arms the member's session timeout only. */
    ct_sleep(t, 1000);
    assert_int_equal(beat(t, &cls[0]).error, E_NONE);
    int64_t b_deadline = s.session_deadline[1];
    assert_true(kc_coord_inspect_group(t->c, kc_str("app"), seen_group, &s));
    assert_int_equal(s.session_deadline[0], t->now + 10000);
    assert_int_equal(s.session_deadline[1], b_deadline);
    assert_true(b_deadline > t->now && b_deadline <= t->now + 10000 - 1000);
    inspect_seen_t all = {0};
    kc_coord_inspect_groups(t->c, seen_group, &all);
    assert_int_equal(all.calls, 1);
    assert_int_equal(ev.n[KC_COORD_EV_MEMBER_JOINED], 2);
    assert_int_equal(ev.last_generation[KC_COORD_EV_GROUP_EPOCH_BUMPED], s.group_epoch);

    /* b goes silent: session_expired, then the epoch bump. */
    for (int i = 0; i < 12; i++) {
        ct_sleep(t, 1000);
        assert_int_equal(beat(t, &cls[0]).error, E_NONE);
    }
    assert_int_equal(ev.n[KC_COORD_EV_SESSION_EXPIRED], 1);
    assert_string_equal(ev.last_member[KC_COORD_EV_SESSION_EXPIRED], "member-b");
    assert_true(ev.last_generation[KC_COORD_EV_GROUP_EPOCH_BUMPED] > s.group_epoch);
    /* a leaves: member_removed. */
    hb_t h = send_hb(t, &cls[0], (hb_opts_t){.epoch = -1, .owned = OWNED_NULL});
    assert_int_equal(h.error, E_NONE);
    hb_free(&h);
    assert_int_equal(ev.n[KC_COORD_EV_MEMBER_REMOVED], 1);
    assert_string_equal(ev.last_member[KC_COORD_EV_MEMBER_REMOVED], "member-a");
    memset(&s, 0, sizeof(s));
    assert_true(kc_coord_inspect_group(t->c, kc_str("app"), seen_group, &s));
    assert_string_equal(s.state, "Empty");
    assert_int_equal(s.nmembers, 0);
    ctx_free(t);
}


/* ---- reported task offsets ---------------------------------------------------- */

#define OFF(sub, p, o) {kc_str(sub), (p), (o)}

/* A member's TaskOffsets (end = false) or TaskEndOffsets in Describe, as
 * "sub:partition=offset sub:partition=offset" ("" when empty; "absent"
 * when the member is not described). */
static void described_offsets(ctx_t *t, const char *member, bool end, char *out, size_t cap)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_describe_response_described_group_t g = describe_as(t, "User:reader", &arena);
    assert_int_equal(g.error_code, 0);
    snprintf(out, cap, "absent");
    for (int32_t i = 0; i < g.members.count; i++) {
        const kc_streams_group_describe_response_member_t *m = &g.members.items[i];
        if (!kc_str_eq_cstr(m->member_id, member))
            continue;
        const kc_streams_group_describe_response_task_offset_t *it =
            end ? m->task_end_offsets.items : m->task_offsets.items;
        int32_t n = end ? m->task_end_offsets.count : m->task_offsets.count;
        assert_true(n >= 0);
        size_t len = 0;
        out[0] = '\0';
        for (int32_t k = 0; k < n; k++)
            len += (size_t)snprintf(out + len, cap - len, "%s%.*s:%d=%lld", k ? " " : "",
                                    (int)it[k].subtopology_id.len, it[k].subtopology_id.ptr,
                                    it[k].partition, (long long)it[k].offset);
    }
    kc_arena_deinit(&arena);
}

static void assert_offsets(ctx_t *t, const char *member, const char *offsets, const char *end_offsets)
{
    char got[512];
    described_offsets(t, member, false, got, sizeof(got));
    assert_string_equal(got, offsets);
    described_offsets(t, member, true, got, sizeof(got));
    assert_string_equal(got, end_offsets);
}

/* After GroupMetadataManagerTest.testStreamsGroupDescribeReturnsPerMemberTaskOffsets
 * and testStreamsGroupHeartbeatRejectsDuplicateTaskOffsets: Describe lists
 * the task offsets each member last reported (Kafka's StreamsGroup.taskOffsets
 * / MemberTaskOffsets), null keeping a list and empty clearing it, sorted by
 * subtopology id then partition; a repeated entry refuses the heartbeat and
 * nothing is taken; memory only, gone with the member. */
static void test_reported_task_offsets_in_describe(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    hb_opts_t jo = {.epoch = 0, .topology_epoch = 1};
    hb_opts_t bo = {.epoch = INT32_MIN, .owned = OWNED_ALL};
    /* The join that creates the group: Kafka keeps them on a group object
     * that replay replaces, so they are lost. */
    offs_t first = {{OFF("0", 0, 5)}, 1};
    jo.offsets = &first;
    jo.end_offsets = &first;
    assert_int_equal(send_hb(t, &a, jo).error, E_NONE);
    assert_offsets(t, "member-a", "", "");

    offs_t o1 = {{OFF("2", 1, 7), OFF("10", 0, 8), OFF("0", 3, 9), OFF("1", -1, -1),
                  OFF("0", 0, INT64_C(1) << 40)}, 5};
    offs_t e1 = {{OFF("0", 1, 100), OFF("0", 0, 200)}, 2};
    bo.offsets = &o1;
    bo.end_offsets = &e1;
    assert_int_equal(send_hb(t, &a, bo).error, E_NONE);
    assert_offsets(t, "member-a", "0:0=1099511627776 0:3=9 1:-1=-1 10:0=8 2:1=7", "0:0=200 0:1=100");

    /* Null keeps the task offsets while the end offsets change. */
    offs_t e2 = {{OFF("0", 0, 300)}, 1};
    bo.offsets = NULL;
    bo.end_offsets = &e2;
    assert_int_equal(send_hb(t, &a, bo).error, E_NONE);
    assert_offsets(t, "member-a", "0:0=1099511627776 0:3=9 1:-1=-1 10:0=8 2:1=7", "0:0=300");
    /* Empty clears the task offsets, null keeps the end offsets. */
    offs_t none = {{OFF("", 0, 0)}, 0};
    bo.offsets = &none;
    bo.end_offsets = NULL;
    assert_int_equal(send_hb(t, &a, bo).error, E_NONE);
    assert_offsets(t, "member-a", "", "0:0=300");
    /* A heartbeat without either keeps both. */
    assert_int_equal(beat(t, &a).error, E_NONE);
    assert_offsets(t, "member-a", "", "0:0=300");

    /* A repeated entry: INVALID_REQUEST naming the first repeat in request
     * order, the task offsets before the end offsets; nothing is taken. */
    offs_t ok = {{OFF("0", 2, 1)}, 1};
    offs_t d1 = {{OFF("0", 1, 1), OFF("0", 0, 2), OFF("0", 0, 3), OFF("0", 1, 4)}, 4};
    offs_t d2 = {{OFF("0", 3, 1), OFF("0", 3, 1)}, 2};
    bo.offsets = &d1;
    bo.end_offsets = &ok;
    hb_t h = send_hb(t, &a, bo);
    assert_int_equal(h.error, E_INVALID_REQUEST);
    assert_string_equal(h.message, "Task offsets contain a duplicate entry for subtopology 0 and partition 0.");
    bo.offsets = &ok;
    bo.end_offsets = &d2;
    h = send_hb(t, &a, bo);
    assert_int_equal(h.error, E_INVALID_REQUEST);
    assert_string_equal(h.message, "Task offsets contain a duplicate entry for subtopology 0 and partition 3.");
    bo.offsets = &d2;
    bo.end_offsets = &d1;
    h = send_hb(t, &a, bo);
    assert_string_equal(h.message, "Task offsets contain a duplicate entry for subtopology 0 and partition 3.");
    assert_offsets(t, "member-a", "", "0:0=300");
    /* The member epoch is checked before. */
    bo.epoch = a.epoch + 1;
    assert_int_equal(send_hb(t, &a, bo).error, E_FENCED_MEMBER_EPOCH);
    bo.epoch = INT32_MIN;
    /* The same partition of two subtopologies is no repeat. */
    offs_t two = {{OFF("1", 0, 1), OFF("0", 0, 2)}, 2};
    bo.offsets = &two;
    bo.end_offsets = NULL;
    assert_int_equal(send_hb(t, &a, bo).error, E_NONE);
    assert_offsets(t, "member-a", "0:0=2 1:0=1", "0:0=300");

    /* A refused join makes no member. */
    hb_opts_t jb = {.epoch = 0, .topology_epoch = 1, .end_offsets = &d2};
    h = send_hb(t, &b, jb);
    assert_int_equal(h.error, E_INVALID_REQUEST);
    assert_offsets(t, "member-b", "absent", "absent");
    /* A join into the existing group keeps what it reported. */
    offs_t ob = {{OFF("0", 1, 11)}, 1};
    jb.offsets = &ob;
    jb.end_offsets = &none;
    assert_int_equal(send_hb(t, &b, jb).error, E_NONE);
    assert_offsets(t, "member-b", "0:1=11", "");
    /* Removed with the member: a rejoin under the same id starts empty. */
    assert_int_equal(send_hb(t, &b, (hb_opts_t){.epoch = -1, .owned = OWNED_NULL}).error, E_NONE);
    assert_offsets(t, "member-b", "absent", "absent");
    assert_int_equal(join(t, &b).error, E_NONE);
    assert_offsets(t, "member-b", "", "");
    assert_offsets(t, "member-a", "0:0=2 1:0=1", "0:0=300");

    /* Memory only: a coordinator rebuilt from the records has none. */
    ctx_restart(t);
    assert_offsets(t, "member-a", "", "");
    ctx_free(t);
}

/* A static member that left with -2 keeps its offsets; replaced under its
 * own member id it loses them (Kafka replays its tombstones after taking
 * the report), under a new one the new member has what it reported. */
static void test_static_rejoin_and_task_offsets(void **state)
{
    (void)state;
    ctx_t *t = ctx_new();
    client_t a, b;
    set_id(&a, "member-a");
    set_id(&b, "member-b");
    b.instance_id = "instance-b";
    assert_int_equal(join(t, &a).error, E_NONE);
    offs_t o = {{OFF("0", 0, 1)}, 1};
    offs_t o2 = {{OFF("0", 1, 2)}, 1};
    assert_int_equal(send_hb(t, &b, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .offsets = &o}).error, E_NONE);
    assert_offsets(t, "member-b", "0:0=1", "");
    assert_int_equal(send_hb(t, &b, (hb_opts_t){.epoch = -2, .owned = OWNED_NULL, .offsets = &o2}).error,
                     E_NONE);
    assert_offsets(t, "member-b", "0:0=1", "");
    assert_int_equal(
        send_hb(t, &b, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .offsets = &o2, .end_offsets = &o}).error,
        E_NONE);
    assert_offsets(t, "member-b", "", "");
    assert_int_equal(send_hb(t, &b, (hb_opts_t){.epoch = INT32_MIN, .owned = OWNED_ALL, .offsets = &o}).error,
                     E_NONE);
    assert_offsets(t, "member-b", "0:0=1", "");
    assert_int_equal(send_hb(t, &b, (hb_opts_t){.epoch = -2, .owned = OWNED_NULL}).error, E_NONE);
    client_t b2 = b;
    snprintf(b2.member_id, sizeof(b2.member_id), "member-b2");
    assert_int_equal(send_hb(t, &b2, (hb_opts_t){.epoch = 0, .topology_epoch = 1, .end_offsets = &o2}).error,
                     E_NONE);
    assert_offsets(t, "member-b", "absent", "absent");
    assert_offsets(t, "member-b2", "", "0:1=2");
    ctx_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_joiner_initialises_topology_and_gets_all_tasks),
        cmocka_unit_test(test_missing_internal_topics_are_listed_then_group_becomes_ready),
        cmocka_unit_test(test_internal_topics_need_create),
        cmocka_unit_test(test_internal_topic_creation_error_named),
        cmocka_unit_test(test_stale_topology_status_and_update_rejected),
        cmocka_unit_test(test_missing_source_and_incorrectly_partitioned_topics),
        cmocka_unit_test(test_request_rules_name_the_rule),
        cmocka_unit_test(test_duplicate_subtopology_ids_rejected_without_a_group),
        cmocka_unit_test(test_topology_topic_names_join_lists_leave_and_v0_lag),
        cmocka_unit_test(test_internal_topics_in_kafka_order_and_describe_views),
        cmocka_unit_test(test_sticky_assignor_ties_follow_kafka_heaps),
        cmocka_unit_test(test_new_group_delay_describe_order_and_endpoint_partitions),
        cmocka_unit_test(test_mixed_null_lists_rejected_and_null_means_unchanged),
        cmocka_unit_test(test_three_members_never_share_an_active_task),
        cmocka_unit_test(test_member_without_tasks_gets_a_target_record),
        cmocka_unit_test(test_previous_epoch_retry),
        cmocka_unit_test(test_offset_commit_task_assignment_epochs),
        cmocka_unit_test(test_previous_epoch_null_retry_accepted_with_opt_in),
        cmocka_unit_test(test_static_leave_and_rejoin_keeps_tasks),
        cmocka_unit_test(test_session_expiry_moves_tasks),
        cmocka_unit_test(test_standby_on_other_process),
        cmocka_unit_test(test_role_changes_in_place_and_empty_group_target),
        cmocka_unit_test(test_shutdown_application_status_reaches_everyone),
        cmocka_unit_test(test_streams_new_member_is_rejected_with_maximum_members_is_reached),
        cmocka_unit_test(test_endpoints_sent_when_epoch_stale),
        cmocka_unit_test(test_replay_mid_reconciliation_continues_with_same_epochs),
        cmocka_unit_test(test_description_epochs_persist),
        cmocka_unit_test(test_sticky_assignor_balances_and_covers),
        cmocka_unit_test(test_classic_join_refused_while_members_then_converts_empty_group),
        cmocka_unit_test(test_streams_join_takes_over_simple_classic_group),
        cmocka_unit_test(test_description_required_solicited_with_backoff),
        cmocka_unit_test(test_description_epochs_one_copy_in_the_view),
        cmocka_unit_test(test_describe_serves_the_fetched_description),
        cmocka_unit_test(test_empty_group_expires_once_the_store_holds_nothing),
        cmocka_unit_test(test_conversion_waits_for_the_store_delete),
        cmocka_unit_test(test_delete_groups_keeps_a_group_whose_store_delete_failed),
        cmocka_unit_test(test_streams_offsets_expire_then_the_empty_group_goes),
        cmocka_unit_test(test_list_groups_one_table_with_streams_groups),
        cmocka_unit_test(test_offset_commit_epochs_and_offset_delete),
        cmocka_unit_test(test_rebalance_timeout_fences_member_that_does_not_revoke),
        cmocka_unit_test(test_static_member_at_minus_two_expires_with_its_session),
        cmocka_unit_test(test_inspect_and_events),
        cmocka_unit_test(test_describe_checks_describe_on_the_group),
        cmocka_unit_test(test_reported_task_offsets_in_describe),
        cmocka_unit_test(test_static_rejoin_and_task_offsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
