/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Classic-protocol interop of KIP-848 consumer groups, as Kafka 4's group
 * coordinator does it (GroupMetadataManager):
 *  - a classic consumer (JoinGroup/SyncGroup/Heartbeat/LeaveGroup, protocol
 *    type "consumer") inside a consumer group: it becomes a member with
 *    ClassicMemberMetadata, its assignment comes from the server assignor
 *    and is handed out by SyncGroup, and a Heartbeat answers
 *    REBALANCE_IN_PROGRESS when it must join again to catch up
 *    (classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
 *    classicGroupHeartbeatToConsumerGroup, classicGroupLeaveToConsumerGroup);
 *  - the online upgrade of a classic group when a ConsumerGroupHeartbeat
 *    member joins it (validateOnlineUpgrade, convertToConsumerGroup,
 *    ConsumerGroup.fromClassicGroup) and the downgrade of a consumer group
 *    whose last consumer-protocol member leaves while classic members remain
 *    (validateOnlineDowngrade*, convertToClassicGroup,
 *    ClassicGroup.fromConsumerGroup), under group.consumer.migration.policy;
 *  - the join and sync timeouts of classic members (join-<g>-<m>,
 *    sync-<g>-<m>), which fence the member as its session timeout does.
 *
 * Not here: the wire encoding of the classic APIs (classic.c sends the
 * answers), the consumer group machinery itself (consumer.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_int.h"
#include "consumer_protocol.h"
#include "kc_log.h"

#define LOG_COMP "group-coordinator"
#define KEY_BUF 1024
#define PROTOCOL_TYPE "consumer"

typedef kc_consumer_group_heartbeat_request_topic_partitions_t owned_tp_t;

static bool upgrade_enabled(const kc_coord_t *c)
{
    kc_migration_policy_t p = kc_coord_config(c)->group_consumer_migration_policy;
    return p == KC_MIGRATION_UPGRADE || p == KC_MIGRATION_BIDIRECTIONAL;
}

static bool downgrade_enabled(const kc_coord_t *c)
{
    kc_migration_policy_t p = kc_coord_config(c)->group_consumer_migration_policy;
    return p == KC_MIGRATION_DOWNGRADE || p == KC_MIGRATION_BIDIRECTIONAL;
}

static char *dup_view(kc_str_t s)
{
    return kc_xstrndup(s.ptr ? s.ptr : "", s.len > 0 ? (size_t)s.len : 0);
}

void kc_cs_classic_free(kc_cs_classic_t *cl)
{
    if (!cl)
        return;
    for (int32_t i = 0; i < cl->nprotocols; i++) {
        free(cl->protocols[i].name);
        free(cl->protocols[i].metadata);
    }
    free(cl->protocols);
    free(cl);
}

kc_cs_classic_t *kc_cs_classic_new(int32_t session_timeout_ms, const kc_group_protocol_t *ps,
                                  int32_t n)
{
    kc_cs_classic_t *cl = kc_xcalloc(1, sizeof(*cl));
    cl->session_timeout_ms = session_timeout_ms;
    cl->protocols = kc_xcalloc((size_t)n + 1, sizeof(*cl->protocols));
    for (int32_t i = 0; i < n; i++) {
        kc_group_protocol_t *p = &cl->protocols[cl->nprotocols++];
        p->name = kc_xstrdup(ps[i].name);
        p->metadata_len = ps[i].metadata_len;
        p->metadata = kc_xmalloc((size_t)p->metadata_len + 1);
        if (p->metadata_len)
            memcpy(p->metadata, ps[i].metadata, (size_t)p->metadata_len);
    }
    return cl;
}

/* The JoinGroup's protocols (the first of a repeated name wins, as in
 * ClassicGroupMember's protocol collection). */
static kc_cs_classic_t *classic_from_join(const kc_join_group_request_t *req)
{
    int32_t n = req->protocols.count > 0 ? req->protocols.count : 0;
    kc_group_protocol_t *ps = kc_xcalloc((size_t)n + 1, sizeof(*ps));
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        kc_str_t name = req->protocols.items[i].name;
        bool dup = false;
        for (int32_t j = 0; j < k && !dup; j++)
            dup = kc_str_eq_cstr(name, ps[j].name);
        if (dup || name.len < 0)
            continue;
        ps[k].name = dup_view(name);
        ps[k].metadata = (uint8_t *)req->protocols.items[i].metadata.ptr;
        ps[k].metadata_len =
            req->protocols.items[i].metadata.len > 0 ? req->protocols.items[i].metadata.len : 0;
        k++;
    }
    kc_cs_classic_t *cl = kc_cs_classic_new(req->session_timeout_ms, ps, k);
    for (int32_t i = 0; i < k; i++)
        free(ps[i].name);
    free(ps);
    return cl;
}

static bool classic_equal(const kc_cs_classic_t *a, const kc_cs_classic_t *b)
{
    if (!a || !b)
        return a == b;
    if (a->session_timeout_ms != b->session_timeout_ms || a->nprotocols != b->nprotocols)
        return false;
    for (int32_t i = 0; i < a->nprotocols; i++) {
        const kc_group_protocol_t *x = &a->protocols[i], *y = &b->protocols[i];
        if (strcmp(x->name, y->name) != 0 || x->metadata_len != y->metadata_len ||
            (x->metadata_len && memcmp(x->metadata, y->metadata, (size_t)x->metadata_len) != 0))
            return false;
    }
    return true;
}

static bool classic_supports(const kc_cs_classic_t *cl, kc_str_t name)
{
    for (int32_t i = 0; i < cl->nprotocols; i++)
        if (kc_str_eq_cstr(name, cl->protocols[i].name))
            return true;
    return false;
}

/* ---- the consumer embedded protocol ------------------------------------- */

/* ConsumerProtocol.deserializeConsumerProtocolSubscription / Assignment. */
static bool parse_subscription(const uint8_t *p, int32_t len, kc_arena_t *arena,
                               kc_consumer_protocol_subscription_t *out)
{
    return kc_consumer_protocol_read_subscription(p, len, KC_CONSUMER_PROTOCOL_PREFIXED, arena,
                                                  out) == 0;
}

static bool parse_assignment(const uint8_t *p, int32_t len, kc_arena_t *arena,
                             kc_consumer_protocol_assignment_t *out)
{
    return kc_consumer_protocol_read_assignment(p, len, arena, out) == 0;
}

/* Topic id of an existing topic; false when it does not exist. */
static bool topic_id_of(kc_coord_t *c, kc_str_t name, kc_uuid_t *id)
{
    const kc_topic_view_t *v = kc_coord_topic_view(c);
    int32_t parts;
    return v->topic_lookup && v->topic_lookup(v->ctx, name, &parts, id);
}

/* Adds the partitions of existing topics to a (toTopicPartitionMap: unknown
 * topics are left out). */
static void asg_add_named(kc_coord_t *c, kc_asg_t *a, kc_str_t topic, const kc_int32_array_t *ps)
{
    kc_uuid_t id;
    if (!topic_id_of(c, topic, &id))
        return;
    for (int32_t j = 0; j < ps->count; j++)
        kc_asg_add(a, id, ps->items[j]);
}

/* The owned partitions of a subscription in the heartbeat's shape (arena). */
static int32_t owned_from_subscription(kc_coord_t *c,
                                       const kc_consumer_protocol_subscription_t *sub,
                                       kc_arena_t *arena, owned_tp_t **out)
{
    int32_t n = sub->owned_partitions.count > 0 ? sub->owned_partitions.count : 0;
    *out = kc_arena_alloc(arena, sizeof(**out) * (size_t)(n + 1));
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        kc_uuid_t id;
        if (!topic_id_of(c, sub->owned_partitions.items[i].topic, &id))
            continue;
        (*out)[k].topic_id = id;
        (*out)[k].partitions = sub->owned_partitions.items[i].partitions;
        if ((*out)[k].partitions.count < 0)
            (*out)[k].partitions.count = 0;
        k++;
    }
    return k;
}

/* ConsumerProtocol.serializeAssignment of a partition set, in the version
 * of the member's subscription (capped to the newest known), appended to
 * out. Returns 0, or the encoder's error with out left as it was (logged). */
static int serialize_assignment(kc_coord_t *c, const kc_asg_t *a, int16_t version, kc_buf_t *out)
{
    const kc_topic_view_t *v = kc_coord_topic_view(c);
    if (version < 0)
        version = 0;
    if (version > KC_CONSUMER_PROTOCOL_ASSIGNMENT_MAX_VERSION)
        version = KC_CONSUMER_PROTOCOL_ASSIGNMENT_MAX_VERSION;
    kc_consumer_protocol_assignment_t asg;
    kc_consumer_protocol_assignment_init(&asg);
    kc_consumer_protocol_assignment_topic_partition_t *tps =
        kc_xcalloc((size_t)a->n + 1, sizeof(*tps));
    int32_t k = 0;
    for (int32_t i = 0; i < a->n; i++) {
        kc_str_t name;
        if (a->t[i].n == 0 || !v->topic_id_to_name ||
            !v->topic_id_to_name(v->ctx, a->t[i].topic_id, &name))
            continue;
        tps[k].topic = name;
        tps[k].partitions.items = a->t[i].p;
        tps[k].partitions.count = a->t[i].n;
        k++;
    }
    asg.assigned_partitions.items = tps;
    asg.assigned_partitions.count = k;
    size_t len = out->len;
    kc_write_int16(out, version);
    int rc = kc_consumer_protocol_assignment_encode(out, version, &asg);
    free(tps);
    if (rc != 0) {
        out->len = len;
        kc_log_error(LOG_COMP, "cannot encode a ConsumerProtocolAssignment v%d (%d)", version, rc);
    }
    return rc;
}

/* The version of the member's subscription; -1 when it has none. */
static int16_t member_protocol_version(const cs_member_t *m)
{
    if (!m->classic || m->classic->nprotocols == 0)
        return 0;
    int16_t v;
    return kc_consumer_protocol_version(m->classic->protocols[0].metadata,
                                        m->classic->protocols[0].metadata_len, &v)
               ? v
               : -1;
}

/* ---- timers --------------------------------------------------------------- */

static void join_timer_key(char *buf, size_t cap, kc_str_t g, const char *m)
{
    kc_timer_key(buf, cap, "join-", g, m);
}

static void sync_timer_key(char *buf, size_t cap, kc_str_t g, const char *m)
{
    kc_timer_key(buf, cap, "sync-", g, m);
}

/* consumerGroupFenceMemberOperation: the reason is in the timer's arg1. */
static void on_classic_timeout(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    (void)key;
    const kc_timer_t *t = kc_timer_current(c);
    cs_group_t *g = kc_consumer_group_find(c, (kc_str_t){t->group_id, (int32_t)t->group_id_len});
    cs_member_t *m = g ? kc_cs_member_find(g, kc_str(t->member_id)) : NULL;
    if (!m) {
        kc_log_debug(LOG_COMP, "[GroupId %s] Could not fence %s because the member does not exist.",
                     t->group_id, t->member_id);
        return;
    }
    const char *why = t->arg1 ? "the classic member failed to join within the rebalance timeout"
                              : "the member failed to sync within timeout";
    kc_log_info(LOG_COMP, "[GroupId %s] Member %s fenced from the group because %s.", g->group_id,
                m->member_id, why);
    kc_cs_fence_members(c, g, &m, 1, why, KC_COORD_EV_MEMBER_REMOVED, now_ms, res);
}

static void schedule_join_timeout_if_absent(kc_coord_t *c, const cs_group_t *g,
                                            const cs_member_t *m, int64_t now_ms)
{
    char key[KEY_BUF];
    join_timer_key(key, sizeof(key), kc_modern_group_id(&g->base), m->member_id);
    if (kc_timer_is_scheduled(c, key))
        return;
    kc_timer_schedule_args(c, key,
                           now_ms + (m->rebalance_timeout_ms > 0 ? m->rebalance_timeout_ms : 0),
                           on_classic_timeout, kc_modern_group_id(&g->base), m->member_id, 1, 0);
}

static void schedule_sync_timeout(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                                  int32_t timeout_ms, int64_t now_ms)
{
    char key[KEY_BUF];
    sync_timer_key(key, sizeof(key), kc_modern_group_id(&g->base), m->member_id);
    kc_timer_schedule_args(c, key, now_ms + (timeout_ms > 0 ? timeout_ms : 0), on_classic_timeout,
                           kc_modern_group_id(&g->base), m->member_id, 0, 0);
}

void kc_cs_classic_cancel_timers(kc_coord_t *c, kc_str_t group_id, const char *member_id)
{
    char key[KEY_BUF];
    join_timer_key(key, sizeof(key), group_id, member_id);
    kc_timer_cancel(c, key);
    sync_timer_key(key, sizeof(key), group_id, member_id);
    kc_timer_cancel(c, key);
}

/* ---- downgrade: consumer group -> classic group -------------------------- */

/* Converts g into a classic group made of its members but the skipped ones
 * (convertToClassicGroup); g is freed. */
static void convert_to_classic(kc_coord_t *c, cs_group_t *g, cs_member_t **skip, size_t nskip,
                               const char *reason, int64_t now_ms, kc_result_t *res)
{
    size_t n = 0;
    kc_classic_member_info_t *infos = kc_xcalloc(g->members.n + 1, sizeof(*infos));
    kc_buf_t *asg = kc_xcalloc(g->members.n + 1, sizeof(*asg));
    char **strs = kc_xcalloc(4 * g->members.n + 1, sizeof(*strs));
    kc_cs_classic_t **cls = kc_xcalloc(g->members.n + 1, sizeof(*cls));
    for (size_t i = 0; i < g->members.n; i++) {
        cs_member_t *m = cs_member_at(g, i);
        bool skipped = false;
        for (size_t j = 0; j < nskip && !skipped; j++)
            skipped = skip[j] == m;
        if (skipped || !m->classic)
            continue;
        kc_classic_member_info_t *in = &infos[n];
        strs[4 * n] = kc_xstrdup(m->member_id);
        strs[4 * n + 1] = m->instance_id ? kc_xstrdup(m->instance_id) : NULL;
        strs[4 * n + 2] = kc_xstrdup(m->client_id);
        strs[4 * n + 3] = kc_xstrdup(m->client_host);
        cls[n] = kc_cs_classic_new(m->classic->session_timeout_ms, m->classic->protocols,
                             m->classic->nprotocols);
        in->member_id = strs[4 * n];
        in->group_instance_id = strs[4 * n + 1];
        in->client_id = strs[4 * n + 2];
        in->client_host = strs[4 * n + 3];
        in->rebalance_timeout_ms = m->rebalance_timeout_ms;
        in->session_timeout_ms = m->classic->session_timeout_ms;
        in->protocols = cls[n]->protocols;
        in->nprotocols = cls[n]->nprotocols;
        kc_buf_init(&asg[n]);
        /* The classic group's record would carry a wrong assignment. */
        if (serialize_assignment(c, &m->target, member_protocol_version(m), &asg[n]) != 0)
            res->failed = true;
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        infos[i].assignment = asg[i].data;
        infos[i].assignment_len = (int32_t)asg[i].len;
    }
    char *group_id = kc_xstrdup(g->group_id);
    int32_t generation = g->group_epoch;
    kc_consumer_group_delete(c, g, res); /* the consumer group's tombstones */
    kc_classic_group_create_converted(c, group_id, generation, infos, n, reason, now_ms, res);
    kc_log_info(LOG_COMP, "[GroupId %s] Converted the consumer group to a classic group.",
                group_id);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 4; k++)
            free(strs[4 * i + (size_t)k]);
        kc_cs_classic_free(cls[i]);
        kc_buf_deinit(&asg[i]);
    }
    free(group_id);
    free(strs);
    free(cls);
    free(asg);
    free(infos);
}

bool kc_cs_classic_maybe_downgrade(kc_coord_t *c, cs_group_t *g, cs_member_t **leaving,
                                   size_t nleaving, int64_t now_ms, kc_result_t *res)
{
    /* validateOnlineDowngradeWithFencedMembers */
    size_t remaining = 0, classic = 0;
    for (size_t i = 0; i < g->members.n; i++) {
        bool gone = false;
        for (size_t j = 0; j < nleaving && !gone; j++)
            gone = leaving[j] == cs_member_at(g, i);
        if (gone)
            continue;
        remaining++;
        classic += cs_member_at(g, i)->classic != NULL;
    }
    if (classic != remaining)
        return false;
    if (remaining == 0) {
        kc_log_debug(LOG_COMP,
                     "Skip downgrading the consumer group %s to classic group because it's empty.",
                     g->group_id);
        return false;
    }
    if (!downgrade_enabled(c)) {
        kc_log_info(LOG_COMP,
                    "Cannot downgrade consumer group %s to classic group because the online "
                    "downgrade is disabled.",
                    g->group_id);
        return false;
    }
    if (remaining > (size_t)kc_coord_config(c)->group_max_size) {
        kc_log_info(LOG_COMP,
                    "Cannot downgrade consumer group %s to classic group because its group size is "
                    "greater than classic group max size.",
                    g->group_id);
        return false;
    }
    char reason[KEY_BUF];
    snprintf(reason, sizeof(reason),
             "Downgrade group %s from consumer to classic for member leaving.", g->group_id);
    convert_to_classic(c, g, leaving, nleaving, reason, now_ms, res);
    return true;
}

void kc_consumer_classic_convert_empty(kc_coord_t *c, kc_consumer_group_t *g, kc_result_t *res)
{
    char *group_id = kc_xstrdup(g->group_id);
    kc_consumer_group_delete(c, g, res);
    kc_log_info(LOG_COMP, "[GroupId %s] Converted the empty consumer group to a classic group.",
                group_id);
    free(group_id);
}

/* ---- upgrade: classic group -> consumer group ---------------------------- */

/* One online upgrade on its way through the steps below
 * (getOrMaybeCreateConsumerGroup of a classic group: validateOnlineUpgrade,
 * convertToConsumerGroup, ConsumerGroup.fromClassicGroup). */
typedef struct {
    kc_coord_t *c;
    kc_classic_group_t *classic;
    kc_str_t gid;
    int64_t now_ms;
    kc_result_t *res;
    char *msg;                                 /* cap bytes: the refusal's message */
    size_t cap;
    size_t n;                                  /* the classic group's members */
    kc_classic_member_info_t *infos;           /* their views (the classic group's) */
    kc_arena_t arena;
    kc_consumer_protocol_subscription_t *subs; /* each member's subscription */
    kc_consumer_protocol_assignment_t *asgs;   /* and assignment */
} upgrade_t;

/* The upgrade refused: the reason logged and in the error message. */
static int16_t upgrade_refused(upgrade_t *u, kc_log_level_t level, const char *why)
{
    kc_log(level, LOG_COMP, "Cannot upgrade classic group %.*s to consumer group %s.",
           (int)u->gid.len, u->gid.ptr, why);
    snprintf(u->msg, u->cap, "Cannot upgrade classic group %.*s to consumer group %s.",
             (int)u->gid.len, u->gid.ptr, why);
    return KC_ERR_GROUP_ID_NOT_FOUND;
}

/* maybeDeleteEmptyClassicGroup: an empty classic group is deleted. */
static void upgrade_empty(upgrade_t *u)
{
    char *id = dup_view(u->gid);
    kc_classic_group_convert_away(u->c, u->classic, u->now_ms, u->res);
    kc_log_info(LOG_COMP, "[GroupId %s] Converted the empty classic group to a consumer group.",
                id);
    free(id);
}

/* validateOnlineUpgrade: the policy, the embedded protocol, the size. */
static int16_t upgrade_validate(upgrade_t *u)
{
    const char *ptype = kc_classic_group_protocol_type(u->classic);
    if (!upgrade_enabled(u->c))
        return upgrade_refused(u, KC_LOG_INFO, "because online upgrade is disabled");
    if (!ptype || strcmp(ptype, PROTOCOL_TYPE) != 0)
        return upgrade_refused(u, KC_LOG_INFO,
                               "because the group does not use the consumer embedded protocol");
    if (u->n > (size_t)kc_coord_config(u->c)->group_consumer_max_size)
        return upgrade_refused(u, KC_LOG_INFO,
                               "because the group size exceeds the consumer group maximum size");
    return KC_ERR_NONE;
}

/* throwIfConsumerGroupIsFull after the conversion: a joiner that replaces
 * none of the static members needs one more place. */
static int16_t upgrade_check_capacity(upgrade_t *u, kc_str_t joining_instance_id)
{
    int32_t max_size = kc_coord_config(u->c)->group_consumer_max_size;
    bool replaces = false;
    for (size_t i = 0; i < u->n && joining_instance_id.len >= 0; i++)
        replaces = replaces || (u->infos[i].group_instance_id &&
                                kc_str_eq_cstr(joining_instance_id, u->infos[i].group_instance_id));
    if (!replaces && u->n >= (size_t)max_size) {
        snprintf(u->msg, u->cap,
                 "The consumer group has reached its maximum capacity of %d members.", max_size);
        return KC_ERR_GROUP_MAX_SIZE_REACHED;
    }
    return KC_ERR_NONE;
}

/* ConsumerGroup.fromClassicGroup, its deserialization: every subscription
 * and assignment must parse, and no assignment may carry user data (a
 * custom assignor's). */
static int16_t upgrade_parse_members(upgrade_t *u)
{
    const char *pname = kc_classic_group_protocol_name(u->classic);
    u->subs = kc_arena_alloc(&u->arena, u->n * sizeof(*u->subs));
    u->asgs = kc_arena_alloc(&u->arena, u->n * sizeof(*u->asgs));
    for (size_t i = 0; i < u->n; i++) {
        const kc_classic_member_info_t *in = &u->infos[i];
        const kc_group_protocol_t *p = NULL;
        for (int32_t k = 0; k < in->nprotocols && !p; k++)
            if (!pname || strcmp(in->protocols[k].name, pname) == 0)
                p = &in->protocols[k];
        kc_consumer_protocol_assignment_init(&u->asgs[i]);
        if (!p || !parse_subscription(p->metadata, p->metadata_len, &u->arena, &u->subs[i]) ||
            (in->assignment_len > 0 &&
             !parse_assignment(in->assignment, in->assignment_len, &u->arena, &u->asgs[i])))
            return upgrade_refused(u, KC_LOG_WARN,
                                   "because the embedded consumer protocol is malformed");
        if (u->asgs[i].user_data.len > 0)
            return upgrade_refused(
                u, KC_LOG_WARN,
                "because an unsupported custom assignor is in use. Please refer to the "
                "documentation or switch to a default assignor before re-attempting the upgrade");
    }
    return KC_ERR_NONE;
}

/* ConsumerGroup.fromClassicGroup: each member proposed (detached, freed
 * by the caller) with its classic assignment in assigned. */
static cs_member_t **upgrade_propose_members(upgrade_t *u)
{
    cs_member_t **ms = kc_xcalloc(u->n, sizeof(*ms));
    for (size_t i = 0; i < u->n; i++) {
        const kc_classic_member_info_t *in = &u->infos[i];
        const kc_consumer_protocol_subscription_t *sub = &u->subs[i];
        cs_member_t *m = ms[i] = kc_cs_member_proposed(NULL, in->member_id);
        m->instance_id = in->group_instance_id ? kc_xstrdup(in->group_instance_id) : NULL;
        m->rack_id = sub->rack_id.len >= 0 ? dup_view(sub->rack_id) : NULL;
        m->rebalance_timeout_ms = in->rebalance_timeout_ms;
        free(m->client_id);
        m->client_id = kc_xstrdup(in->client_id);
        free(m->client_host);
        m->client_host = kc_xstrdup(in->client_host);
        kc_cs_member_set_topics(m, sub->topics.items, sub->topics.count > 0 ? sub->topics.count : 0);
        m->classic = kc_cs_classic_new(in->session_timeout_ms, in->protocols, in->nprotocols);
        const kc_consumer_protocol_assignment_t *asg = &u->asgs[i];
        for (int32_t t = 0; t < asg->assigned_partitions.count; t++)
            asg_add_named(u->c, &m->assigned, asg->assigned_partitions.items[t].topic,
                          &asg->assigned_partitions.items[t].partitions);
    }
    return ms;
}

/* convertToConsumerGroup's records: the classic group's tombstone, then
 * the consumer group's as ConsumerGroup.createConsumerGroupRecords lays
 * them out, at the classic group's generation, every member stable; then
 * each member's session timeout. The proposed members ms are freed. */
static cs_group_t *upgrade_write_records(upgrade_t *u, cs_member_t **ms)
{
    kc_coord_t *c = u->c;
    int32_t generation = kc_classic_group_generation(u->classic);
    char *group_id = dup_view(u->gid); /* the classic group's, which goes first */
    kc_classic_group_convert_away(c, u->classic, u->now_ms, u->res);
    /* Kafka removes the classic group, then puts the consumer group: a new
     * entry of the groups table. */
    cs_group_t *g = kc_cs_group_new(c, group_id, strlen(group_id));
    free(group_id);
    for (size_t i = 0; i < u->n; i++)
        kc_cs_write_member_metadata(c, g, ms[i], u->res);
    kc_cs_write_group_epoch(c, g, generation, kc_cs_metadata_hash(c, g), u->res);
    for (size_t i = 0; i < u->n; i++)
        kc_cs_write_target_member(c, g, ms[i]->member_id, &ms[i]->assigned, u->res);
    kc_cs_write_target_epoch(c, g, generation, 0, u->res);
    kc_asg_t none = {0};
    for (size_t i = 0; i < u->n; i++) {
        /* Every partition counts as assigned at the classic generation. */
        kc_asg_epochs_fill(&ms[i]->assigned, generation);
        cs_current_t cur = {generation, generation, MS_STABLE, &ms[i]->assigned, &none};
        kc_cs_write_current(c, g, ms[i]->member_id, &cur, u->res);
        cs_member_t *m = kc_cs_member_find(g, kc_str(ms[i]->member_id));
        if (m)
            kc_cs_schedule_session(c, g, m, m->classic->session_timeout_ms, u->now_ms);
        kc_cs_member_free(ms[i]);
    }
    free(ms);
    kc_log_info(LOG_COMP, "[GroupId %s] Converted the classic group to a consumer group.",
                g->group_id);
    return g;
}

cs_group_t *kc_cs_classic_upgrade(kc_coord_t *c, kc_classic_group_t *classic,
                                  kc_str_t joining_instance_id, int64_t now_ms, kc_result_t *res,
                                  int16_t *error, char *msg, size_t cap)
{
    upgrade_t u = {.c = c, .classic = classic, .gid = kc_classic_group_id(classic),
                   .now_ms = now_ms, .res = res, .msg = msg, .cap = cap,
                   .n = kc_classic_group_members(classic, NULL, 0)};
    *error = KC_ERR_NONE;
    if (u.n == 0) {
        upgrade_empty(&u);
        return NULL;
    }
    if ((*error = upgrade_validate(&u)) != KC_ERR_NONE)
        return NULL;
    u.infos = kc_xcalloc(u.n, sizeof(*u.infos));
    kc_classic_group_members(classic, u.infos, u.n);
    kc_arena_init(&u.arena);
    cs_member_t **ms = NULL;
    if ((*error = upgrade_check_capacity(&u, joining_instance_id)) == KC_ERR_NONE &&
        (*error = upgrade_parse_members(&u)) == KC_ERR_NONE)
        ms = upgrade_propose_members(&u);
    kc_arena_deinit(&u.arena);
    free(u.infos); /* its views belong to the classic group, freed next */
    return ms ? upgrade_write_records(&u, ms) : NULL;
}

/* ---- classic members in a consumer group -------------------------------- */

/* validateConsumerGroupMember: the member, or NULL with *err set. */
static cs_member_t *validate_member(const cs_group_t *g, kc_str_t member_id, kc_str_t instance_id,
                                    int16_t *err)
{
    *err = KC_ERR_NONE;
    if (instance_id.len < 0) {
        cs_member_t *m = kc_cs_member_find(g, member_id);
        if (!m) {
            kc_log_debug(LOG_COMP, "Member %.*s is not a member of group %s.",
                         member_id.len > 0 ? (int)member_id.len : 0, member_id.ptr, g->group_id);
            *err = KC_ERR_UNKNOWN_MEMBER_ID;
        }
        return m;
    }
    cs_member_t *m = kc_cs_static_member(g, instance_id);
    if (!m) {
        kc_log_debug(LOG_COMP, "Member with instance id %.*s is not a member of group %s.",
                     (int)instance_id.len, instance_id.ptr, g->group_id);
        *err = KC_ERR_UNKNOWN_MEMBER_ID;
        return NULL;
    }
    if (!kc_str_eq_cstr(member_id, m->member_id)) {
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Static member %.*s of instance id %.*s is fenced by member %s.",
                    g->group_id, member_id.len > 0 ? (int)member_id.len : 0, member_id.ptr,
                    (int)instance_id.len, instance_id.ptr, m->member_id);
        *err = KC_ERR_FENCED_INSTANCE_ID;
        return NULL;
    }
    return m;
}

/* ConsumerGroup.supportsClassicProtocols for a non-empty group. */
static bool supports_protocols(const cs_group_t *g, const kc_join_group_request_t *req)
{
    if (!kc_str_eq_cstr(req->protocol_type, PROTOCOL_TYPE))
        return false;
    size_t nclassic = 0;
    for (size_t i = 0; i < g->members.n; i++)
        nclassic += cs_member_at(g, i)->classic != NULL;
    int32_t n = req->protocols.count > 0 ? req->protocols.count : 0;
    for (int32_t k = 0; k < n; k++) {
        size_t count = 0;
        for (size_t i = 0; i < g->members.n; i++)
            if (cs_member_at(g, i)->classic &&
                classic_supports(cs_member_at(g, i)->classic, req->protocols.items[k].name))
                count++;
        if (count == nclassic)
            return true;
    }
    return false;
}

/* The member's static replacement (replaceMember): a copy under the new
 * member id with epoch 0, the old one's records tombstoned. Returns the
 * new member. */
static cs_member_t *replace_static(kc_coord_t *c, cs_group_t *g, cs_member_t *old,
                                   const char *member_id, kc_result_t *res)
{
    cs_member_t *nm = kc_cs_member_proposed(old, member_id);
    kc_asg_t target = {0}, assigned = {0}, pending = {0};
    kc_asg_copy(&target, &old->target);
    kc_asg_copy(&assigned, &old->assigned);
    kc_asg_copy(&pending, &old->pending);
    int8_t state = old->state;
    char *old_id = kc_xstrdup(old->member_id);
    kc_cs_cancel_member_timers(c, g, old_id);
    kc_cs_write_member_tombstones(c, g, old_id, res);
    cs_member_t *m = kc_cs_write_member_metadata(c, g, nm, res);
    kc_cs_write_target_member(c, g, nm->member_id, &target, res);
    kc_cs_write_current(c, g, nm->member_id, &(cs_current_t){0, 0, state, &assigned, &pending},
                        res);
    kc_asg_free(&target);
    kc_asg_free(&assigned);
    kc_asg_free(&pending);
    kc_cs_member_free(nm);
    free(old_id);
    return m;
}

static void set_error(kc_classic_join_answer_t *out, int16_t error)
{
    out->error_code = error;
    out->generation_id = -1;
}

/* One JoinGroup of a classic member to a consumer group on its way through
 * the steps below (classicGroupJoinToConsumerGroup): the request, the
 * member it names or made, and what the steps found. */
typedef struct {
    kc_coord_t *c;
    const kc_request_ctx_t *ctx;
    const kc_join_group_request_t *req;
    kc_result_t *res;
    kc_classic_join_answer_t *out;
    cs_group_t *g;
    char *member_id;             /* the client's or a generated one (heap) */
    bool unknown_member;         /* the client sent no member id */
    kc_str_t instance_id;        /* the request's group instance id */
    cs_member_t *s;              /* the instance's current static member */
    kc_arena_t arena;            /* the subscription and the owned partitions */
    kc_consumer_protocol_subscription_t sub; /* the first protocol's subscription */
    owned_tp_t *owned;           /* the partitions the subscription owns */
    int32_t nowned;
    cs_member_t *m;              /* NULL until the member exists */
    bool downgrade;              /* the join converts the group to a classic group */
    int32_t rebalance_timeout_ms; /* v0 has none: the session timeout serves as both */
} classic_join_t;

/* The member id: the client's, or a Kafka Uuid for an unknown member, as
 * for consumer-protocol members. */
static void cj_member_id(classic_join_t *j)
{
    j->unknown_member = j->req->member_id.len <= 0;
    if (j->unknown_member) {
        char gen[23];
        kc_coord_random_kafka_uuid(j->c, gen);
        j->member_id = kc_xstrdup(gen);
    } else {
        j->member_id = dup_view(j->req->member_id);
    }
}

/* throwIfConsumerGroupIsFull, throwIfClassicProtocolIsNotSupported,
 * JoinGroupRequest.requiresKnownMemberId, then a known member id naming an
 * instance must be that instance's member
 * (getOrMaybeSubscribeStaticConsumerGroupMember, throwIfInstanceIdIsFenced). */
static int16_t cj_validate(classic_join_t *j)
{
    cs_group_t *g = j->g;
    int32_t max_size = kc_coord_config(j->c)->group_consumer_max_size;
    kc_str_t instance_id = j->instance_id;
    if (!kc_cs_static_member(g, instance_id) && g->members.n >= (size_t)max_size &&
        !kc_cs_member_find(g, kc_str(j->member_id))) {
        kc_log_info(LOG_COMP, "The consumer group has reached its maximum capacity of %d members.",
                    max_size);
        return KC_ERR_GROUP_MAX_SIZE_REACHED;
    }
    if (!supports_protocols(g, j->req)) {
        kc_log_info(LOG_COMP, "[GroupId %s] Member %s's protocols are not supported.", g->group_id,
                    j->member_id);
        return KC_ERR_INCONSISTENT_GROUP_PROTOCOL;
    }
    if (j->ctx->api_version >= 4 && j->unknown_member && instance_id.len < 0) {
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Dynamic member with unknown member id joins the consumer group. "
                    "Created a new member id %s and requesting the member to rejoin with this id.",
                    g->group_id, j->member_id);
        return KC_ERR_MEMBER_ID_REQUIRED;
    }
    j->s = kc_cs_static_member(g, instance_id);
    if (!j->unknown_member && j->s && strcmp(j->s->member_id, j->member_id) != 0) {
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Static member %s with instance id %.*s is fenced by existing "
                    "member %s.",
                    g->group_id, j->member_id, (int)instance_id.len, instance_id.ptr,
                    j->s->member_id);
        return KC_ERR_FENCED_INSTANCE_ID;
    }
    return KC_ERR_NONE;
}

/* deserializeSubscription: the first protocol's ConsumerProtocolSubscription. */
static int16_t cj_deserialize_subscription(classic_join_t *j)
{
    const kc_join_group_request_t *req = j->req;
    if (req->protocols.count <= 0 || req->protocols.items[0].name.len < 0 ||
        !parse_subscription(req->protocols.items[0].metadata.ptr,
                            req->protocols.items[0].metadata.len, &j->arena, &j->sub)) {
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Malformed embedded consumer protocol in subscription "
                    "deserialization from member %s.",
                    j->g->group_id, j->member_id);
        return KC_ERR_INCONSISTENT_GROUP_PROTOCOL;
    }
    return KC_ERR_NONE;
}

/* getOrMaybeSubscribeDynamicConsumerGroupMember: the member of that id, or
 * none yet for a new one (made by its first record, cj_update_member). */
static void cj_dynamic_member(classic_join_t *j)
{
    cs_group_t *g = j->g;
    j->m = kc_cs_member_find(g, kc_str(j->member_id));
    if (j->m)
        return;
    kc_log_info(LOG_COMP,
                "[GroupId %s] Member %s joins the consumer group using the classic protocol.",
                g->group_id, j->member_id);
    kc_coord_emit(j->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, j->member_id, "classic protocol",
                  g->group_epoch, 0, j->ctx->now_ms);
}

/* validateOnlineDowngradeWithReplacedMember: the replaced static member is
 * the last one using the consumer protocol, and the policy and the classic
 * group's size allow the downgrade. */
static bool cj_downgrade_with_replaced_member(const classic_join_t *j)
{
    const cs_group_t *g = j->g;
    size_t nclassic = 0;
    for (size_t i = 0; i < g->members.n; i++)
        nclassic += cs_member_at(g, i)->classic != NULL;
    if (j->s->classic || nclassic != g->members.n - 1)
        return false;
    if (!downgrade_enabled(j->c)) {
        kc_log_info(LOG_COMP,
                    "Cannot downgrade consumer group %s to classic group because the online "
                    "downgrade is disabled.",
                    g->group_id);
        return false;
    }
    if (g->members.n > (size_t)kc_coord_config(j->c)->group_max_size) {
        kc_log_info(LOG_COMP,
                    "Cannot downgrade consumer group %s to classic group because its group size "
                    "is greater than classic group max size.",
                    g->group_id);
        return false;
    }
    return true;
}

/* getOrMaybeSubscribeStaticConsumerGroupMember: a new instance's member, or
 * the instance's member, which an unknown member id replaces
 * (replaceMember). */
static void cj_static_member(classic_join_t *j)
{
    cs_group_t *g = j->g;
    kc_str_t instance_id = j->instance_id;
    if (!j->s) {
        j->m = kc_cs_member_find(g, kc_str(j->member_id));
        if (!j->m) {
            kc_coord_emit(j->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, j->member_id,
                          "classic protocol", g->group_epoch, 0, j->ctx->now_ms);
        }
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Static member %s with instance id %.*s joins the consumer "
                    "group using the classic protocol.",
                    g->group_id, j->member_id, (int)instance_id.len, instance_id.ptr);
        return;
    }
    j->downgrade = cj_downgrade_with_replaced_member(j);
    if (!j->unknown_member) {
        j->m = j->s; /* the member rejoins under its own id: it stays */
        return;
    }
    char *old_id = kc_xstrdup(j->s->member_id);
    j->m = replace_static(j->c, g, j->s, j->member_id, j->res);
    j->s = NULL; /* freed by its replacement */
    kc_log_info(LOG_COMP,
                "[GroupId %s] Static member with instance id %.*s re-joins the consumer group "
                "using the classic protocol. Created a new member %s to replace the existing "
                "member %s.",
                g->group_id, (int)instance_id.len, instance_id.ptr, j->member_id, old_id);
    kc_coord_emit_static_replaced(j->c, g->group_id, old_id, j->member_id, g->group_epoch,
                                  j->ctx->now_ms);
    kc_coord_emit(j->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, j->member_id,
                  "static member replaced (classic protocol)", g->group_epoch, 0, j->ctx->now_ms);
    free(old_id);
}

/* ConsumerGroupMember.Builder in classicGroupJoinToConsumerGroup: what the
 * join changes in the member, on a proposed member, then its record when
 * anything did (hasMemberSubscriptionChanged); a new member is made by
 * that record. Returns whether its subscription changed. */
static bool cj_update_member(classic_join_t *j)
{
    cs_group_t *g = j->g;
    cs_member_t *nm = kc_cs_member_proposed(j->m, j->member_id);
    bool changed = j->m == NULL, sub_changed = false;
    changed |= kc_str_update(&nm->instance_id, j->instance_id);
    changed |= kc_str_update(&nm->rack_id, j->sub.rack_id);
    int32_t rebalance_timeout = j->rebalance_timeout_ms;
    if (rebalance_timeout != -1 && rebalance_timeout != nm->rebalance_timeout_ms) {
        nm->rebalance_timeout_ms = rebalance_timeout;
        changed = true;
    }
    int32_t ntopics = j->sub.topics.count > 0 ? j->sub.topics.count : 0;
    if (!kc_cs_member_topics_equal(nm, j->sub.topics.items, ntopics)) {
        kc_cs_member_set_topics(nm, j->sub.topics.items, ntopics);
        changed = sub_changed = true;
    }
    if (nm->regex) {
        /* Regex subscription is not supported for classic members; the
         * regex's resolution goes when it was the last member using it. */
        kc_cs_maybe_delete_regex(j->c, g, j->m, NULL, j->res);
        free(nm->regex);
        nm->regex = NULL;
        changed = sub_changed = true;
    }
    changed |= kc_str_update(&nm->client_id, j->ctx->client_id.len >= 0 ? j->ctx->client_id : kc_str(""));
    changed |= kc_str_update(&nm->client_host, kc_str(j->ctx->client_host ? j->ctx->client_host : ""));
    kc_cs_classic_t *cl = classic_from_join(j->req);
    if (!classic_equal(cl, nm->classic)) {
        kc_cs_classic_free(nm->classic);
        nm->classic = cl;
        changed = true;
    } else {
        kc_cs_classic_free(cl);
    }
    if (changed)
        j->m = kc_cs_write_member_metadata(j->c, g, nm, j->res);
    kc_cs_member_free(nm);
    return sub_changed;
}

/* updateSubscriptionMetadata: the group epoch, bumped by a subscription
 * change or a change of the subscribed topics' metadata. */
static void cj_update_subscription_metadata(classic_join_t *j, bool sub_changed)
{
    int64_t hash = kc_cs_metadata_hash(j->c, j->g);
    if (sub_changed || hash != j->g->metadata_hash)
        kc_cs_bump_group_epoch(j->c, j->g, hash,
                               sub_changed ? "member subscription changed"
                                           : "subscribed topics metadata changed",
                               j->ctx->now_ms, j->res);
}

/* The JoinGroup answer: the member's id, epoch and first protocol. */
static void cj_answer(classic_join_t *j)
{
    j->out->member_id = kc_xstrdup(j->m->member_id);
    j->out->protocol_name = kc_xstrdup(j->m->classic->protocols[0].name);
    j->out->generation_id = j->m->member_epoch;
    j->out->error_code = KC_ERR_NONE;
}

/* The downgrade a replaced static member triggers: maybeReconcile unless
 * a rebalance is due anyway, then convertToClassicGroup. */
static void cj_downgrade(classic_join_t *j)
{
    cs_group_t *g = j->g;
    bool rebalance = g->assignment_epoch < g->group_epoch;
    if (!rebalance)
        kc_cs_reconcile(j->c, g, j->m, j->owned, j->nowned, j->res);
    cj_answer(j);
    char reason[KEY_BUF];
    snprintf(reason, sizeof(reason),
             "Downgrade group %s from consumer to classic with stale assignment.", g->group_id);
    convert_to_classic(j->c, g, NULL, 0, rebalance ? reason : NULL, j->ctx->now_ms, j->res);
}

/* maybeUpdateTargetAssignment, then maybeReconcile. */
static void cj_reconcile(classic_join_t *j)
{
    cs_group_t *g = j->g;
    if (g->group_epoch > g->assignment_epoch)
        kc_cs_update_target_assignment(j->c, g, j->ctx->now_ms, j->res);
    kc_cs_reconcile(j->c, g, j->m, j->owned, j->nowned, j->res);
    kc_cs_note_state(g);
    cj_answer(j);
}

/* cancelConsumerGroupJoinTimeout, scheduleConsumerGroupSessionTimeout and
 * scheduleConsumerGroupSyncTimeout: the member must sync within its
 * rebalance timeout. */
static void cj_schedule_timeouts(classic_join_t *j)
{
    char key[KEY_BUF];
    join_timer_key(key, sizeof(key), kc_modern_group_id(&j->g->base), j->m->member_id);
    kc_timer_cancel(j->c, key);
    kc_cs_schedule_session(j->c, j->g, j->m, j->m->classic->session_timeout_ms, j->ctx->now_ms);
    schedule_sync_timeout(j->c, j->g, j->m, j->rebalance_timeout_ms, j->ctx->now_ms);
}

/* The member's owned partitions, then the downgrade, or the assignment
 * and the timeouts. */
static void cj_finish(classic_join_t *j)
{
    j->nowned = owned_from_subscription(j->c, &j->sub, &j->arena, &j->owned);
    if (j->downgrade) {
        cj_downgrade(j);
    } else {
        cj_reconcile(j);
        cj_schedule_timeouts(j);
    }
}

void kc_consumer_classic_join(kc_coord_t *c, const kc_request_ctx_t *ctx, kc_consumer_group_t *g,
                              const kc_join_group_request_t *req, kc_result_t *res,
                              kc_classic_join_answer_t *out)
{
    memset(out, 0, sizeof(*out));
    out->generation_id = -1;
    if (kc_coord_config(c)->group_consumer_migration_policy == KC_MIGRATION_DISABLED) {
        /* throwIfClassicMemberCannotJoinConsumerGroup */
        kc_log_info(LOG_COMP,
                    "Cannot join the consumer group %s with the classic protocol because the group "
                    "migration is disabled.",
                    g->group_id);
        set_error(out, KC_ERR_INCONSISTENT_GROUP_PROTOCOL);
        return;
    }
    classic_join_t j = {
        .c = c, .ctx = ctx, .req = req, .res = res, .out = out, .g = g,
        .instance_id = req->group_instance_id,
        .rebalance_timeout_ms =
            ctx->api_version == 0 ? req->session_timeout_ms : req->rebalance_timeout_ms};
    size_t first_record = res->nrecords;
    cj_member_id(&j);
    kc_arena_init(&j.arena);
    int16_t err = cj_validate(&j);
    if (err == KC_ERR_NONE)
        err = cj_deserialize_subscription(&j);
    if (err == KC_ERR_MEMBER_ID_REQUIRED) {
        out->member_id = j.member_id; /* the client joins again with it */
        j.member_id = NULL;
    }
    if (err != KC_ERR_NONE) {
        set_error(out, err);
    } else {
        if (j.instance_id.len < 0)
            cj_dynamic_member(&j);
        else
            cj_static_member(&j);
        bool sub_changed = cj_update_member(&j);
        if (!j.m) { /* its record could not be written (res is failed) */
            set_error(out, KC_COORD_ERR_WRITE_FAILED);
        } else {
            cj_update_subscription_metadata(&j, sub_changed);
            cj_finish(&j);
        }
    }
    out->depends_on_records = kc_result_wrote_since(res, first_record);
    free(j.member_id);
    kc_arena_deinit(&j.arena);
}

/* throwIfRebalanceInProgress */
static bool rebalance_in_progress(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                                  int64_t now_ms)
{
    if (g->assignment_epoch > m->member_epoch && m->state != MS_UNREVOKED_PARTITIONS) {
        schedule_join_timeout_if_absent(c, g, m, now_ms);
        kc_log_debug(LOG_COMP,
                     "A new rebalance is triggered in group %s and member %s should rejoin to "
                     "catch up.",
                     g->group_id, m->member_id);
        return true;
    }
    return false;
}

int16_t kc_consumer_classic_sync(kc_coord_t *c, const kc_request_ctx_t *ctx, kc_consumer_group_t *g,
                                 const kc_sync_group_request_t *req, kc_buf_t *assignment)
{
    int16_t err;
    cs_member_t *m = validate_member(g, req->member_id, req->group_instance_id, &err);
    if (!m)
        return err;
    if (!m->classic) {
        kc_log_debug(LOG_COMP, "Member %s does not use the classic protocol.", m->member_id);
        return KC_ERR_UNKNOWN_MEMBER_ID;
    }
    if (req->generation_id != m->member_epoch)
        return KC_ERR_ILLEGAL_GENERATION;
    if ((req->protocol_type.len >= 0 && !kc_str_eq_cstr(req->protocol_type, PROTOCOL_TYPE)) ||
        (req->protocol_name.len >= 0 &&
         !kc_str_eq_cstr(req->protocol_name, m->classic->protocols[0].name)))
        return KC_ERR_INCONSISTENT_GROUP_PROTOCOL;
    if (rebalance_in_progress(c, g, m, ctx->now_ms))
        return KC_ERR_REBALANCE_IN_PROGRESS;
    char key[KEY_BUF];
    sync_timer_key(key, sizeof(key), kc_modern_group_id(&g->base), m->member_id);
    kc_timer_cancel(c, key);
    kc_cs_schedule_session(c, g, m, m->classic->session_timeout_ms, ctx->now_ms);
    /* Kafka's serializer would throw: an unexpected error. */
    if (serialize_assignment(c, &m->assigned, member_protocol_version(m), assignment) != 0)
        return KC_ERR_UNKNOWN_SERVER_ERROR;
    return KC_ERR_NONE;
}

/* ConsumerGroup.waitingOnUnreleasedPartition */
static bool waiting_on_unreleased(cs_group_t *g, const cs_member_t *m)
{
    if (m->state != MS_UNRELEASED_PARTITIONS)
        return false;
    for (int32_t i = 0; i < m->target.n; i++)
        for (int32_t j = 0; j < m->target.t[i].n; j++) {
            kc_uuid_t id = m->target.t[i].topic_id;
            int32_t p = m->target.t[i].p[j];
            if (!kc_asg_has(&m->assigned, id, p) && kc_cs_partition_epoch(g, id, p) != -1)
                return true;
        }
    return false;
}

int16_t kc_consumer_classic_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                      kc_consumer_group_t *g, const kc_heartbeat_request_t *req)
{
    int16_t err;
    cs_member_t *m = validate_member(g, req->member_id, req->group_instance_id, &err);
    if (!m)
        return err;
    if (!m->classic)
        return KC_ERR_UNKNOWN_MEMBER_ID;
    if (req->generation_id != m->member_epoch)
        return KC_ERR_ILLEGAL_GENERATION;
    kc_cs_schedule_session(c, g, m, m->classic->session_timeout_ms, ctx->now_ms);
    /* Join again to catch up with a new target, to finish a revocation, or
     * to collect partitions that were released meanwhile. */
    if (m->member_epoch < g->assignment_epoch || m->state == MS_UNREVOKED_PARTITIONS ||
        (m->state == MS_UNRELEASED_PARTITIONS && !waiting_on_unreleased(g, m))) {
        schedule_join_timeout_if_absent(c, g, m, ctx->now_ms);
        return KC_ERR_REBALANCE_IN_PROGRESS;
    }
    return KC_ERR_NONE;
}

void kc_consumer_classic_leave(kc_coord_t *c, const kc_request_ctx_t *ctx, kc_consumer_group_t *g,
                               const kc_str_t *member_ids, const kc_str_t *instance_ids,
                               const kc_str_t *reasons, int16_t *errors, int32_t n,
                               kc_result_t *res)
{
    cs_member_t **leaving = kc_xcalloc((size_t)n + 1, sizeof(*leaving));
    size_t nleaving = 0;
    for (int32_t i = 0; i < n; i++) {
        kc_str_t mid = member_ids[i], iid = instance_ids[i];
        char rbuf[512];
        snprintf(rbuf, sizeof(rbuf), "%.*s", reasons[i].len > 0 ? (int)reasons[i].len : 0,
                 reasons[i].ptr ? reasons[i].ptr : "");
        const char *reason = reasons[i].len >= 0 ? rbuf : "not provided";
        cs_member_t *m;
        errors[i] = KC_ERR_NONE;
        if (iid.len < 0) {
            m = kc_cs_member_find(g, mid);
            if (!m) {
                errors[i] = KC_ERR_UNKNOWN_MEMBER_ID;
                continue;
            }
            kc_log_info(LOG_COMP,
                        "[GroupId %s] Dynamic member %s has left group through explicit "
                        "`LeaveGroup` request; client reason: %s",
                        g->group_id, m->member_id, reason);
        } else {
            m = kc_cs_static_member(g, iid);
            if (!m) {
                errors[i] = KC_ERR_UNKNOWN_MEMBER_ID;
                continue;
            }
            /* An admin removes a static member by instance id alone. */
            if (mid.len > 0 && !kc_str_eq_cstr(mid, m->member_id)) {
                errors[i] = KC_ERR_FENCED_INSTANCE_ID;
                continue;
            }
            kc_log_info(LOG_COMP,
                        "[GroupId %s] Static member %.*s with instance id %.*s has left group "
                        "through explicit `LeaveGroup` request; client reason: %s",
                        g->group_id, mid.len > 0 ? (int)mid.len : 0, mid.ptr, (int)iid.len, iid.ptr,
                        reason);
        }
        leaving[nleaving++] = m;
    }
    kc_cs_fence_members(c, g, leaving, nleaving, "the member left the group",
                        KC_COORD_EV_MEMBER_REMOVED, ctx->now_ms, res);
    free(leaving);
}
