/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KIP-848 consumer groups: ConsumerGroupHeartbeat (join with epoch 0,
 * heartbeat, leave with -1, static leave with -2), ConsumerGroupDescribe,
 * their records (types 3, 5, 6, 7, 8, 16) and replay, the session and
 * rebalance (revocation) timeouts, subscription regexes resolved against
 * the topic list (regex.c), and the views the offsets module and
 * ListGroups need. Mirrors Kafka's GroupMetadataManager.consumerGroupHeartbeat,
 * ConsumerGroup, CurrentAssignmentBuilder and TargetAssignmentBuilder.
 *
 * Handlers change the group only by writing records, which the apply
 * steps of the replay turn into memory ("records" below). Classic-protocol
 * members and the classic/consumer conversions live in consumer_classic.c,
 * which uses the services at the end of this file.
 *
 * Not here yet: rack-aware assignment, per-partition assignment epochs
 * (KIP-1251).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_int.h"
#include "coord_priv.h"
#include "member_timers.h"
#include "replay.h"
#include "kc_log.h"

#define LOG_COMP "group-coordinator"

/* The value version of every consumer group record Kafka writes. */
#define REC_VERSION 0

#define EPOCH_LEAVE (-1)
#define EPOCH_STATIC_LEAVE KC_MODERN_EPOCH_STATIC_LEAVE
/* Topic names subscribed_to_id matches (longer ones never match). */
#define SUB_NAME_MAX 256
#define MSG_MAX 256
#define KEY_BUF 1024

/* ---- partition sets ------------------------------------------------------ */

static int uuid_cmp(kc_uuid_t a, kc_uuid_t b) { return cs_uuid_cmp(&a, &b); }

static void uuid_key_init(kc_uuid_t *dst, kc_uuid_t src) { *dst = src; }
static void uuid_key_free(kc_uuid_t *key) { (void)key; }

KC_KEYED_SETS_DEFINE(kc_asg, kc_asg_t, kc_asg_topic_t, t, topic_id, kc_uuid_t, uuid_cmp,
                     uuid_key_init, uuid_key_free)

bool kc_asg_is_empty(const kc_asg_t *a) { return kc_asg_count(a) == 0; }

/* ---- groups and members ----------------------------------------------------- */

static cs_group_t *group_get(kc_coord_t *c, const char *id, size_t len)
{
    return kc_group_get_typed(c, (kc_str_t){id, (int32_t)len}, KC_GROUP_CONSUMER);
}

/* A new group in the groups map and Kafka's groups table: table_seq 0 for a
 * new table entry, else the number of the entry it replaces. */
static cs_group_t *group_new(kc_coord_t *c, const char *id, size_t len, uint64_t table_seq)
{
    cs_group_t *g = kc_xcalloc(1, sizeof(*g));
    kc_modern_group_init(c, &g->modern, &kc_consumer_group_ops, (kc_str_t){id, (int32_t)len});
    kc_smap_init(&g->topic_refs);
    kc_smap_init(&g->regex_refs);
    kc_smap_init(&g->resolved);
    kc_smap_init(&g->assignor_refs);
    g->hash_version = -1;
    g->hash_checked_version = -1;
    g->subs_version = 1;
    /* Kafka's modern groups start at group epoch 1 without a record: the
     * first member gets epoch 1 unless its join changes the subscription,
     * the assignor or the metadata hash, which bumps the epoch to 2. */
    g->group_epoch = 1;
    g->table_seq = kc_groups_table_put(c, kc_modern_group_id(&g->base), table_seq);
    return g;
}

static void member_free(cs_member_t *m)
{
    if (!m)
        return;
    kc_modern_member_deinit(&m->modern);
    for (int32_t i = 0; i < m->ntopics; i++)
        free(m->topics[i]);
    free(m->topics);
    free(m->regex);
    free(m->server_assignor);
    kc_asg_free(&m->assigned);
    kc_asg_free(&m->pending);
    kc_asg_free(&m->target);
    kc_cs_classic_free(m->classic);
    free(m->subs);
    free(m);
}

static void resolved_free(cs_resolved_t *r)
{
    if (!r)
        return;
    for (int32_t i = 0; i < r->n; i++)
        free(r->topics[i]);
    free(r->topics);
    free(r);
}

static void free_resolved_entry(void *ctx, const char *key, void *val)
{
    (void)ctx;
    (void)key;
    resolved_free(val);
}

static void subs_topics_free(cs_group_t *g)
{
    for (int32_t i = 0; i < g->nsubs_topics; i++)
        free(g->subs_topics[i]);
    free(g->subs_topics);
    free(g->subs_ids);
    g->subs_topics = NULL;
    g->subs_ids = NULL;
    g->nsubs_topics = 0;
}

static void group_free(cs_group_t *g)
{
    kc_smap_foreach(&g->resolved, free_resolved_entry, NULL);
    kc_smap_deinit(&g->resolved);
    kc_smap_deinit(&g->regex_refs);
    kc_smap_deinit(&g->assignor_refs);
    for (size_t i = 0; i < g->members.n; i++)
        member_free(cs_member_at(g, i));
    kc_modern_group_deinit(&g->modern);
    kc_smap_deinit(&g->topic_refs);
    for (int32_t i = 0; i < g->nowners; i++)
        kc_int_map_free(&g->owners[i].epoch);
    free(g->owners);
    subs_topics_free(g);
    free(g);
}

static void group_free_base(kc_group_t *g) { group_free((cs_group_t *)g); }

static cs_member_t *member_get(const cs_group_t *g, const char *id, size_t len)
{
    return (cs_member_t *)kc_modern_members_get(&g->members, (kc_str_t){id, (int32_t)len});
}

/* -- partition owners -- */

/* The owners of a topic's partitions; g->owners is kept sorted by id. */
static cs_owner_t *owner_topic(cs_group_t *g, kc_uuid_t id, bool create)
{
    int32_t lo = 0, hi = g->nowners;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        int c = uuid_cmp(g->owners[mid].topic_id, id);
        if (c == 0)
            return &g->owners[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!create)
        return NULL;
    g->owners = kc_xrealloc(g->owners, (size_t)(g->nowners + 1) * sizeof(*g->owners));
    memmove(&g->owners[lo + 1], &g->owners[lo], (size_t)(g->nowners - lo) * sizeof(*g->owners));
    g->nowners++;
    cs_owner_t *o = &g->owners[lo];
    memset(o, 0, sizeof(*o));
    o->topic_id = id;
    return o;
}

static int32_t partition_epoch(cs_group_t *g, kc_uuid_t id, int32_t p)
{
    cs_owner_t *o = owner_topic(g, id, false);
    intptr_t epoch;
    if (!o || !kc_int_map_get(&o->epoch, p, &epoch))
        return -1;
    return (int32_t)epoch;
}

static void owners_set(cs_group_t *g, const kc_asg_t *a, int32_t epoch, bool release)
{
    for (int32_t i = 0; i < a->n; i++) {
        cs_owner_t *o = owner_topic(g, a->t[i].topic_id, !release);
        if (!o)
            continue;
        for (int32_t j = 0; j < a->t[i].n; j++) {
            if (release)
                kc_int_map_remove(&o->epoch, a->t[i].p[j]);
            else
                kc_int_map_put(&o->epoch, a->t[i].p[j], epoch);
        }
    }
}

/* dst, holding the partitions of src, takes src's assignment epochs. */
static void asg_take_epochs(kc_asg_t *dst, kc_asg_t *src)
{
    free(dst->epochs);
    dst->epochs = src->epochs;
    src->epochs = NULL;
}

/* Replaces the member's epochs, state and owned partitions, keeping the
 * group's partition owners in step (ConsumerGroup.updateMember). Takes
 * ownership of assigned and pending (their structs are reset). */
static void member_set_current(cs_group_t *g, cs_member_t *m, int32_t epoch, int32_t prev,
                               int8_t state, kc_asg_t *assigned, kc_asg_t *pending)
{
    if (kc_asg_equal(&m->assigned, assigned) && kc_asg_equal(&m->pending, pending)) {
        /* The same partitions (an epoch moving on): only the epochs change,
         * the member's and maybe those of its partitions. */
        asg_take_epochs(&m->assigned, assigned);
        asg_take_epochs(&m->pending, pending);
        kc_asg_free(assigned);
        kc_asg_free(pending);
        m->member_epoch = epoch;
        m->previous_member_epoch = prev;
        m->state = state;
        owners_set(g, &m->assigned, epoch, false);
        owners_set(g, &m->pending, epoch, false);
        return;
    }
    owners_set(g, &m->assigned, 0, true);
    owners_set(g, &m->pending, 0, true);
    kc_asg_free(&m->assigned);
    kc_asg_free(&m->pending);
    m->assigned = *assigned;
    m->pending = *pending;
    memset(assigned, 0, sizeof(*assigned));
    memset(pending, 0, sizeof(*pending));
    m->member_epoch = epoch;
    m->previous_member_epoch = prev;
    m->state = state;
    owners_set(g, &m->assigned, epoch, false);
    owners_set(g, &m->pending, epoch, false);
}

/* -- subscriptions -- */

static bool member_subscribes(const cs_member_t *m, const char *topic)
{
    int32_t lo = 0, hi = m->ntopics;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        int c = strcmp(m->topics[mid], topic);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Adds delta to a counter of a name -> count map (entries at 0 go). */
static void count_add(kc_smap_t *map, const char *key, int delta)
{
    size_t len = strlen(key);
    intptr_t n = (intptr_t)kc_smap_get(map, key, len) + delta;
    if (n <= 0)
        kc_smap_del(map, key, len);
    else
        kc_smap_put(map, key, len, (void *)n);
}

static int32_t regex_members(const cs_group_t *g, const char *regex)
{
    return regex ? (int32_t)(intptr_t)kc_smap_get(&g->regex_refs, regex, strlen(regex)) : 0;
}

/* Counts (delta +1) or uncounts (-1) the member's subscription: its topic
 * names, its regex and its server assignor. */
static void topic_refs_update(cs_group_t *g, const cs_member_t *m, int delta)
{
    for (int32_t i = 0; i < m->ntopics; i++)
        count_add(&g->topic_refs, m->topics[i], delta);
    if (m->regex)
        count_add(&g->regex_refs, m->regex, delta);
    if (m->server_assignor)
        count_add(&g->assignor_refs, m->server_assignor, delta);
    g->hash_version = -1;
}

static const cs_resolved_t *resolved_get(const cs_group_t *g, const char *regex)
{
    return regex ? kc_smap_get(&g->resolved, regex, strlen(regex)) : NULL;
}

static bool resolved_has(const cs_resolved_t *r, const char *topic)
{
    int32_t lo = 0, hi = r ? r->n : 0;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        int c = strcmp(r->topics[mid], topic);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Replaces (r NULL: removes) the resolution of a regex, keeping the topic
 * counts in step (ConsumerGroup.updateResolvedRegularExpression). Takes
 * ownership of r. */
static void resolved_set(cs_group_t *g, const char *regex, cs_resolved_t *r)
{
    size_t len = strlen(regex);
    cs_resolved_t *old = kc_smap_del(&g->resolved, regex, len);
    for (int32_t i = 0; old && i < old->n; i++)
        count_add(&g->topic_refs, old->topics[i], -1);
    resolved_free(old);
    g->hash_version = -1;
    g->subs_version++;
    if (!r)
        return;
    for (int32_t i = 0; i < r->n; i++)
        count_add(&g->topic_refs, r->topics[i], +1);
    kc_smap_put(&g->resolved, regex, len, r);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sets the member's topic list from a request's names (sorted, unique). */
static void member_set_topics(cs_group_t *g, cs_member_t *m, const kc_str_t *names, int32_t n)
{
    if (g)
        topic_refs_update(g, m, -1);
    for (int32_t i = 0; i < m->ntopics; i++)
        free(m->topics[i]);
    free(m->topics);
    m->topics = n > 0 ? kc_xcalloc((size_t)n, sizeof(*m->topics)) : NULL;
    m->ntopics = 0;
    m->subs_version = 0;
    for (int32_t i = 0; i < n; i++)
        m->topics[m->ntopics++] = kc_str_dup_or_null(names[i].len < 0 ? kc_str("") : names[i]);
    if (m->ntopics > 1)
        qsort(m->topics, (size_t)m->ntopics, sizeof(*m->topics), cmp_cstr);
    int32_t w = 0;
    for (int32_t i = 0; i < m->ntopics; i++) {
        if (w > 0 && strcmp(m->topics[w - 1], m->topics[i]) == 0) {
            free(m->topics[i]);
            continue;
        }
        m->topics[w++] = m->topics[i];
    }
    m->ntopics = w;
    if (g)
        topic_refs_update(g, m, +1);
}

static bool topics_equal(const cs_member_t *m, const kc_str_t *names, int32_t n)
{
    /* Compares as sets: the request may repeat or reorder names. */
    cs_member_t tmp = {0};
    member_set_topics(NULL, &tmp, names, n);
    bool eq = tmp.ntopics == m->ntopics;
    for (int32_t i = 0; eq && i < m->ntopics; i++)
        eq = strcmp(tmp.topics[i], m->topics[i]) == 0;
    for (int32_t i = 0; i < tmp.ntopics; i++)
        free(tmp.topics[i]);
    free(tmp.topics);
    return eq;
}

/* Whether the member subscribes to the topic, by name or through the
 * resolution of its regex. */
static bool member_subscribes_topic(const cs_group_t *g, const cs_member_t *m, const char *topic)
{
    return member_subscribes(m, topic) || resolved_has(resolved_get(g, m->regex), topic);
}

static void group_add_member(cs_group_t *g, cs_member_t *m)
{
    kc_modern_members_add(&g->members, &m->modern);
    topic_refs_update(g, m, +1);
}

/* Sets or clears (NULL) the member's instance id, keeping the index. */
static void member_set_instance_id(cs_group_t *g, cs_member_t *m, const char *instance_id)
{
    kc_modern_members_set_instance_id(&g->members, &m->modern, instance_id);
}

static void group_remove_member(cs_group_t *g, cs_member_t *m)
{
    owners_set(g, &m->assigned, 0, true);
    owners_set(g, &m->pending, 0, true);
    topic_refs_update(g, m, -1);
    kc_modern_members_remove(&g->members, &m->modern);
    member_free(m);
}

static cs_member_t *member_new(kc_str_t member_id)
{
    cs_member_t *m = kc_xcalloc(1, sizeof(*m));
    kc_modern_member_init(&m->modern, member_id);
    return m;
}

/* ---- group state, metadata hash ---------------------------------------- */

/* ConsumerGroup.ConsumerGroupState, as the Describe/List APIs print it. */
static const char *group_state_name(const cs_group_t *g)
{
    if (g->members.n == 0)
        return "Empty";
    if (g->group_epoch > g->assignment_epoch)
        return "Assigning";
    /* Newest first: members that joined last are the likeliest to be
     * still reconciling, so a rebalance's heartbeats stop early. */
    for (size_t i = g->members.n; i-- > 0;) {
        const cs_member_t *m = cs_member_at(g, i);
        if (m->state != MS_STABLE || m->member_epoch != g->assignment_epoch)
            return "Reconciling";
    }
    return "Stable";
}

typedef struct {
    kc_coord_t *c;
    kc_assign_topic_t *topics;
    int32_t n, cap;
} topic_collect_t;

static void collect_topic(void *ctx, const char *name, void *val)
{
    (void)val;
    topic_collect_t *tc = ctx;
    const kc_topic_view_t *v = &tc->c->topics;
    int32_t parts = 0;
    kc_uuid_t id;
    memset(&id, 0, sizeof(id));
    kc_str_t s = kc_str(name);
    if (v->topic_lookup) {
        if (!v->topic_lookup(v->ctx, s, &parts, &id))
            return;
    } else {
        return; /* without ids there is nothing to assign */
    }
    if (parts <= 0)
        return;
    if (tc->n == tc->cap) {
        tc->cap = tc->cap ? tc->cap * 2 : 8;
        tc->topics = kc_xrealloc(tc->topics, (size_t)tc->cap * sizeof(*tc->topics));
    }
    tc->topics[tc->n++] = (kc_assign_topic_t){name, id, parts};
}

static int cmp_topic_name(const void *a, const void *b)
{
    return strcmp(((const kc_assign_topic_t *)a)->name, ((const kc_assign_topic_t *)b)->name);
}

/* The subscribed topics that exist, sorted by name (caller frees topics). */
static void subscribed_topics(kc_coord_t *c, cs_group_t *g, topic_collect_t *tc)
{
    memset(tc, 0, sizeof(*tc));
    tc->c = c;
    kc_smap_foreach(&g->topic_refs, collect_topic, tc);
    if (tc->n > 1)
        qsort(tc->topics, (size_t)tc->n, sizeof(*tc->topics), cmp_topic_name);
}

/* A hash of the subscribed topics' names, ids and partition counts (the
 * role of Kafka's metadata hash, KIP-1101: a change bumps the group epoch).
 * kcoord's own function; 0 when nothing is subscribed. */
static int64_t metadata_hash(const topic_collect_t *tc)
{
    if (tc->n == 0)
        return 0;
    uint64_t h = 1469598103934665603ULL;
    for (int32_t i = 0; i < tc->n; i++) {
        for (const char *p = tc->topics[i].name; *p; p++)
            h = (h ^ (uint8_t)*p) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
        for (int k = 0; k < 16; k++)
            h = (h ^ tc->topics[i].topic_id.b[k]) * 1099511628211ULL;
        for (int k = 0; k < 4; k++)
            h = (h ^ (uint8_t)(tc->topics[i].partitions >> (8 * k))) * 1099511628211ULL;
    }
    return (int64_t)h;
}

/* The group's metadata hash, computed again only when its subscriptions
 * or the topics changed since the last time. */
static int64_t group_metadata_hash(kc_coord_t *c, cs_group_t *g)
{
    if (g->hash_version >= 0 && g->hash_version == c->topics_version)
        return g->cached_hash;
    topic_collect_t tc;
    subscribed_topics(c, g, &tc);
    g->cached_hash = metadata_hash(&tc);
    free(tc.topics);
    g->hash_version = c->topics_version;
    return g->cached_hash;
}

/* ---- records -------------------------------------------------------------- */

/*
 * The one mutation path (Kafka's coordinator runtime): every change of the
 * state records 3, 5, 6, 7, 8 and 16 hold goes through a writer below, which
 * appends the record and applies it to memory by kc_consumer_replay, the
 * function a load calls (kc_record_write_replay). A writer's arguments are
 * the new values; a member's new metadata is a proposed member
 * (member_proposed), as Kafka's ConsumerGroupMember.Builder. A member or
 * group pointer may be freed by the apply of a tombstone: callers look them
 * up again after writing.
 */

static void write_group_epoch(kc_coord_t *c, const cs_group_t *g, int32_t epoch, int64_t hash,
                              kc_result_t *res)
{
    kc_consumer_group_metadata_value_t val;
    kc_consumer_group_metadata_value_init(&val);
    val.epoch = epoch;
    val.metadata_hash = hash;
    kc_record_key_t key = kc_record_group_key(kc_modern_group_id(&g->base));
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_METADATA, &key, REC_VERSION, &val);
}

/* Record 5 from m, a proposed member or one of g's; returns g's member of
 * that id afterwards (NULL when the record could not be written). */
static cs_member_t *write_member_metadata(kc_coord_t *c, cs_group_t *g, const cs_member_t *m,
                                          kc_result_t *res)
{
    kc_consumer_group_member_metadata_value_t val;
    kc_consumer_group_member_metadata_value_init(&val);
    val.instance_id = kc_str(m->instance_id);
    val.rack_id = kc_str(m->rack_id);
    val.client_id = kc_str(m->client_id);
    val.client_host = kc_str(m->client_host);
    kc_str_t *names = m->ntopics ? kc_xcalloc((size_t)m->ntopics, sizeof(*names)) : NULL;
    for (int32_t i = 0; i < m->ntopics; i++)
        names[i] = kc_str(m->topics[i]);
    val.subscribed_topic_names.items = names;
    val.subscribed_topic_names.count = m->ntopics;
    val.subscribed_topic_regex = kc_str(m->regex);
    val.rebalance_timeout_ms = m->rebalance_timeout_ms;
    val.server_assignor = kc_str(m->server_assignor);
    kc_consumer_group_member_metadata_value_classic_member_metadata_t cmm;
    kc_consumer_group_member_metadata_value_classic_protocol_t *cps = NULL;
    if (m->classic) {
        cps = kc_xcalloc((size_t)m->classic->nprotocols + 1, sizeof(*cps));
        for (int32_t i = 0; i < m->classic->nprotocols; i++) {
            cps[i].name = kc_str(m->classic->protocols[i].name);
            cps[i].metadata = (kc_bytes_t){m->classic->protocols[i].metadata,
                                           m->classic->protocols[i].metadata_len};
        }
        cmm.session_timeout_ms = m->classic->session_timeout_ms;
        cmm.supported_protocols.items = cps;
        cmm.supported_protocols.count = m->classic->nprotocols;
        val.classic_member_metadata = &cmm;
    }
    char *member_id = kc_xstrdup(m->member_id);
    kc_record_key_t key = kc_record_member_key(kc_modern_group_id(&g->base), member_id);
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_MEMBER_METADATA, &key, REC_VERSION,
                           &val);
    free(names);
    free(cps);
    cs_member_t *now = member_get(g, member_id, strlen(member_id));
    free(member_id);
    return now;
}

static void write_target_member(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                                const kc_asg_t *a, kc_result_t *res)
{
    kc_consumer_group_target_assignment_member_value_t val;
    kc_consumer_group_target_assignment_member_value_init(&val);
    kc_consumer_group_target_assignment_member_value_topic_partition_t *tp =
        a->n ? kc_xcalloc((size_t)a->n, sizeof(*tp)) : NULL;
    int32_t n = 0;
    for (int32_t i = 0; i < a->n; i++) {
        if (a->t[i].n == 0)
            continue;
        tp[n].topic_id = a->t[i].topic_id;
        tp[n].partitions.items = a->t[i].p;
        tp[n].partitions.count = a->t[i].n;
        n++;
    }
    val.topic_partitions.items = tp;
    val.topic_partitions.count = n;
    kc_record_key_t key = kc_record_member_key(kc_modern_group_id(&g->base), member_id);
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, &key,
                           REC_VERSION, &val);
    free(tp);
}

static void write_target_epoch(kc_coord_t *c, const cs_group_t *g, int32_t epoch, int64_t now_ms,
                               kc_result_t *res)
{
    kc_consumer_group_target_assignment_metadata_value_t val;
    kc_consumer_group_target_assignment_metadata_value_init(&val);
    val.assignment_epoch = epoch;
    val.assignment_timestamp = now_ms;
    kc_record_key_t key = kc_record_group_key(kc_modern_group_id(&g->base));
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, &key,
                           REC_VERSION, &val);
}

typedef kc_consumer_group_current_member_assignment_value_topic_partitions_t cur_tp_t;

/* Record 8's topics of a (borrowed), each with the assignment epochs of
 * its partitions (null when a keeps none). */
static cur_tp_t *cur_tps(const kc_asg_t *a, int32_t *count)
{
    cur_tp_t *tp = a->n ? kc_xcalloc((size_t)a->n, sizeof(*tp)) : NULL;
    int32_t n = 0;
    int32_t *epochs = a->epochs;
    for (int32_t i = 0; i < a->n; i++) {
        if (a->t[i].n == 0)
            continue;
        tp[n].topic_id = a->t[i].topic_id;
        tp[n].partitions.items = a->t[i].p;
        tp[n].partitions.count = a->t[i].n;
        tp[n].assignment_epochs.items = epochs;
        tp[n].assignment_epochs.count = epochs ? a->t[i].n : -1;
        if (epochs)
            epochs += a->t[i].n;
        n++;
    }
    *count = n;
    return tp;
}

static void write_current(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                          const cs_current_t *cur, kc_result_t *res)
{
    kc_consumer_group_current_member_assignment_value_t val;
    kc_consumer_group_current_member_assignment_value_init(&val);
    val.member_epoch = cur->member_epoch;
    val.previous_member_epoch = cur->previous_member_epoch;
    val.state = cur->state;
    val.assigned_partitions.items = cur_tps(cur->assigned, &val.assigned_partitions.count);
    val.partitions_pending_revocation.items =
        cur_tps(cur->pending, &val.partitions_pending_revocation.count);
    kc_record_key_t key = kc_record_member_key(kc_modern_group_id(&g->base), member_id);
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, &key,
                           REC_VERSION, &val);
    free(val.assigned_partitions.items);
    free(val.partitions_pending_revocation.items);
}

/* Record 16: the topics a regex resolved to (r borrowed); r NULL = tombstone. */
static void write_regex(kc_coord_t *c, const cs_group_t *g, const char *regex,
                        const cs_resolved_t *r, kc_result_t *res)
{
    char *re = kc_xstrdup(regex); /* the apply may free the caller's copy */
    kc_record_key_t key = {.group_id = kc_str(g->group_id), .regex = kc_str(re)};
    if (!r) {
        kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_REGULAR_EXPRESSION, &key,
                               REC_VERSION, NULL);
        free(re);
        return;
    }
    kc_consumer_group_regular_expression_value_t val;
    kc_consumer_group_regular_expression_value_init(&val);
    kc_str_t *names = kc_xcalloc((size_t)r->n + 1, sizeof(*names));
    for (int32_t i = 0; i < r->n; i++)
        names[i] = kc_str(r->topics[i]);
    val.topics.items = names;
    val.topics.count = r->n;
    val.version = r->version;
    val.timestamp = r->timestamp_ms;
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_REGULAR_EXPRESSION, &key, REC_VERSION,
                           &val);
    free(names);
    free(re);
}

/* The member's three records tombstoned; the member is gone afterwards. */
static void write_member_tombstones(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                                    kc_result_t *res)
{
    /* Kafka's order: current assignment, target assignment, metadata. */
    static const int16_t types[] = {KC_RECORD_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
                                    KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
                                    KC_RECORD_CONSUMER_GROUP_MEMBER_METADATA};
    char *id = kc_xstrdup(member_id); /* member_id may be the member's own */
    kc_record_key_t key = kc_record_member_key(kc_modern_group_id(&g->base), id);
    for (size_t i = 0; i < KC_ARRAY_LEN(types); i++)
        kc_record_write_replay(c, res, types[i], &key, REC_VERSION, NULL);
    free(id);
}

/* The last member of a regex changing or dropping it takes the regex's
 * resolution along (maybeDeleteResolvedRegularExpression); m is still
 * counted in g, next_regex is its new regex (NULL: none). */
static void maybe_delete_regex(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                               const char *next_regex, kc_result_t *res)
{
    if (m && m->regex && (!next_regex || strcmp(next_regex, m->regex) != 0) &&
        regex_members(g, m->regex) == 1 && resolved_get(g, m->regex))
        write_regex(c, g, m->regex, NULL, res);
}

/* A detached copy of m's metadata (record 5's fields), for a handler to
 * change and write; m NULL: a new member of that id. No target nor
 * current assignment. Freed with member_free. */
static cs_member_t *member_proposed(const cs_member_t *m, const char *member_id, size_t len)
{
    cs_member_t *p = member_new((kc_str_t){member_id, (int32_t)len});
    if (!m)
        return p;
    kc_modern_member_copy_metadata(&p->modern, &m->modern);
    p->topics = m->ntopics ? kc_xcalloc((size_t)m->ntopics, sizeof(*p->topics)) : NULL;
    for (int32_t i = 0; i < m->ntopics; i++)
        p->topics[i] = kc_xstrdup(m->topics[i]);
    p->ntopics = m->ntopics;
    p->regex = m->regex ? kc_xstrdup(m->regex) : NULL;
    p->server_assignor = m->server_assignor ? kc_xstrdup(m->server_assignor) : NULL;
    if (m->classic)
        p->classic = kc_cs_classic_new(m->classic->session_timeout_ms, m->classic->protocols,
                                       m->classic->nprotocols);
    return p;
}

/* ---- timers ----------------------------------------------------------------- */

static void on_session_timeout(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res);
static void on_rebalance_timeout(kc_coord_t *c, const char *key, int64_t now_ms,
                                 kc_result_t *res);

static void schedule_session(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                             int64_t now_ms)
{
    kc_member_schedule_session(c, kc_modern_group_id(&g->base), m->member_id,
                               kc_coord_group_cfg(c, g->group_id)->group_consumer_session_timeout_ms,
                               now_ms, on_session_timeout);
}

static void schedule_rebalance(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                               int64_t now_ms)
{
    kc_member_schedule_rebalance(c, kc_modern_group_id(&g->base), m->member_id,
                                 m->rebalance_timeout_ms, m->member_epoch, now_ms,
                                 on_rebalance_timeout);
}

static void cancel_member_timers(kc_coord_t *c, const cs_group_t *g, const char *member_id)
{
    kc_member_cancel_timers(c, kc_modern_group_id(&g->base), member_id);
    kc_cs_classic_cancel_timers(c, kc_modern_group_id(&g->base), member_id);
}

/* ---- group epoch, state, events ------------------------------------------- */

/* The member's state as Kafka's MemberState names it. */
static const char *member_state_name(int8_t state)
{
    switch (state) {
    case MS_STABLE:
        return "stable";
    case MS_UNREVOKED_PARTITIONS:
        return "unrevoked_partitions";
    case MS_UNRELEASED_PARTITIONS:
        return "unreleased_partitions";
    default:
        return "unknown";
    }
}

static void bump_group_epoch(kc_coord_t *c, cs_group_t *g, int64_t hash, const char *reason,
                             int64_t now_ms, kc_result_t *res)
{
    write_group_epoch(c, g, g->group_epoch + 1, hash, res);
    kc_log_info(LOG_COMP, "[GroupId %s] Bumped group epoch to %d with metadata hash %lld (%s).",
                g->group_id, g->group_epoch, (long long)hash, reason);
    kc_coord_emit(c, KC_COORD_EV_GROUP_EPOCH_BUMPED, g->group_id, NULL, reason, g->group_epoch, 0,
                  now_ms);
}

/*
 * Logs the group's state (Empty, Assigning, Reconciling, Stable) when it
 * differs from the one last seen. The state derives from hard state, which
 * only changes along with records, so callers check only after writing some.
 */
static void note_state(cs_group_t *g)
{
    const char *state = group_state_name(g);
    const char *before = g->last_state ? g->last_state : "Empty";
    if (strcmp(before, state) != 0)
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Consumer group transitioned from %s to %s (group epoch %d, "
                    "assignment epoch %d, %zu members).",
                    g->group_id, before, state, g->group_epoch, g->assignment_epoch, g->members.n);
    g->last_state = state;
}

/* ---- fencing ---------------------------------------------------------------- */

/*
 * Removes members and bumps the group epoch once, as Kafka's
 * consumerGroupFenceMembers: tombstones for the members' records, then the
 * new group epoch with the refreshed metadata hash; or, when only classic
 * members would remain, the online downgrade to a classic group (g freed,
 * true returned). reason completes each member's event (left, fenced
 * because ...); ev is MEMBER_REMOVED or SESSION_EXPIRED.
 */
bool kc_cs_fence_members(kc_coord_t *c, cs_group_t *g, cs_member_t **ms, size_t n,
                         const char *reason, kc_coord_event_type_t ev, int64_t now_ms,
                         kc_result_t *res)
{
    if (n == 0)
        return false;
    /* The members' ids once each: the apply of a tombstone frees a member. */
    char **ids = kc_xcalloc(n, sizeof(*ids));
    size_t nids = 0;
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < i; j++)
            dup = dup || ms[j] == ms[i];
        if (dup)
            continue;
        ids[nids++] = kc_xstrdup(ms[i]->member_id);
        kc_coord_emit(c, ev, g->group_id, ms[i]->member_id, reason, g->group_epoch, 0, now_ms);
    }
    bool converted = kc_cs_classic_maybe_downgrade(c, g, ms, n, now_ms, res);
    for (size_t i = 0; i < nids && !converted; i++) {
        cs_member_t *m = member_get(g, ids[i], strlen(ids[i]));
        /* The last member of a regex takes its resolution along
         * (maybeDeleteResolvedRegularExpressions), after its tombstones. */
        bool last_of_regex =
            m->regex && regex_members(g, m->regex) == 1 && resolved_get(g, m->regex);
        char *regex = last_of_regex ? kc_xstrdup(m->regex) : NULL;
        cancel_member_timers(c, g, ids[i]);
        write_member_tombstones(c, g, ids[i], res);
        if (regex)
            write_regex(c, g, regex, NULL, res);
        free(regex);
    }
    for (size_t i = 0; i < nids; i++)
        free(ids[i]);
    free(ids);
    if (converted)
        return true;
    bump_group_epoch(c, g, group_metadata_hash(c, g), "member removed", now_ms, res);
    /* An emptied group's assignment epoch follows its group epoch, with the
     * timestamp of a new group (0), as Kafka's consumerGroupFenceMembers. */
    if (g->members.n == 0)
        write_target_epoch(c, g, g->group_epoch, 0, res);
    note_state(g);
    return false;
}

/* One member (consumerGroupFenceMember); true when g was converted and freed. */
static bool fence_member(kc_coord_t *c, cs_group_t *g, cs_member_t *m, const char *reason,
                         kc_coord_event_type_t ev, int64_t now_ms, kc_result_t *res)
{
    return kc_cs_fence_members(c, g, &m, 1, reason, ev, now_ms, res);
}

static void on_session_timeout(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    (void)key;
    const kc_timer_t *t = kc_timer_current(c);
    cs_group_t *g = group_get(c, t->group_id, t->group_id_len);
    cs_member_t *m = g ? member_get(g, t->member_id, strlen(t->member_id)) : NULL;
    if (!m)
        return;
    kc_log_info(LOG_COMP,
                "[GroupId %s] Member %s (instance id %s, epoch %d) fenced from the group because "
                "the member session expired.",
                g->group_id, m->member_id, m->instance_id ? m->instance_id : "none",
                m->member_epoch);
    fence_member(c, g, m, "the member session expired", KC_COORD_EV_SESSION_EXPIRED, now_ms, res);
}

static void on_rebalance_timeout(kc_coord_t *c, const char *key, int64_t now_ms,
                                 kc_result_t *res)
{
    (void)key;
    const kc_timer_t *t = kc_timer_current(c);
    cs_group_t *g = group_get(c, t->group_id, t->group_id_len);
    cs_member_t *m = g ? member_get(g, t->member_id, strlen(t->member_id)) : NULL;
    if (!m || m->member_epoch != t->arg1)
        return;
    kc_log_info(LOG_COMP,
                "[GroupId %s] Member %s (instance id %s, epoch %d) fenced from the group because "
                "it failed to transition from epoch %d within %dms.",
                g->group_id, m->member_id, m->instance_id ? m->instance_id : "none",
                m->member_epoch, t->arg1, m->rebalance_timeout_ms);
    fence_member(c, g, m, "it failed to revoke its partitions within the rebalance timeout",
                 KC_COORD_EV_MEMBER_REMOVED, now_ms, res);
}

/* ---- target assignment ---------------------------------------------------- */

/* The server assignor the group uses: the one most members ask for, else
 * the first configured (ConsumerGroup.computePreferredServerAssignor). */
static uint32_t timeline_slot(const char *id, uint64_t cap);
static uint64_t timeline_capacity(size_t n);

/* The assignor most members name (ConsumerGroup.preferredServerAssignor);
 * of several named as often, the first in the iteration order of Kafka's
 * hash table of assignor names (the same table order as for members). */
static const char *group_assignor(const kc_coord_t *c, const cs_group_t *g)
{
    const kc_smap_t *m = &g->assignor_refs;
    /* No member names one (count_add keeps only positive counts): the
     * default, without walking the map's slots. */
    if (m->count == 0)
        return c->cfg.group_consumer_assignors[0];
    const char *best = NULL;
    intptr_t best_n = 0;
    uint32_t best_slot = 0;
    size_t named = 0;
    for (size_t i = 0; i < m->nslots; i++)
        for (const kc_smap_entry_t *e = m->slots[i]; e; e = e->next)
            named += (intptr_t)e->val > 0;
    uint64_t cap = timeline_capacity(named);
    for (size_t i = 0; i < m->nslots; i++)
        for (const kc_smap_entry_t *e = m->slots[i]; e; e = e->next) {
            intptr_t n = (intptr_t)e->val;
            if (n <= 0)
                continue;
            uint32_t slot = timeline_slot(e->key, cap);
            if (n > best_n ||
                (n == best_n && best &&
                 (slot < best_slot || (slot == best_slot && strcmp(e->key, best) < 0)))) {
                best = e->key;
                best_n = n;
                best_slot = slot;
            }
        }
    return best ? best : c->cfg.group_consumer_assignors[0];
}

static int cmp_member_id(const void *a, const void *b)
{
    return strcmp((*(cs_member_t *const *)a)->member_id, (*(cs_member_t *const *)b)->member_id);
}

/* Sets s[t] for every topic of tc (sorted by name) found in names (sorted,
 * unique). */
static void mark_subscribed(const topic_collect_t *tc, const char *const *names, int32_t n, bool *s)
{
    int32_t t = 0, k = 0;
    while (t < tc->n && k < n) {
        int c = strcmp(tc->topics[t].name, names[k]);
        if (c == 0) {
            s[t++] = true;
            k++;
        } else if (c < 0) {
            t++;
        } else {
            k++;
        }
    }
}

static int cmp_sub_id(const void *a, const void *b)
{
    return uuid_cmp(((const cs_sub_id_t *)a)->id, ((const cs_sub_id_t *)b)->id);
}

/*
 * Keeps the members' subscription rows (which of tc's topics each member
 * subscribes to) across target assignments: they depend only on the
 * member's names and regex (a change resets the member's subs_version),
 * the regexes' resolutions (resolved_set bumps the group's) and tc's
 * names, compared here with those of the last assignment. Also notes
 * the topics' ids as of now, for subs_row_lookup.
 */
static void subs_topics_check(kc_coord_t *c, cs_group_t *g, const topic_collect_t *tc)
{
    bool same = g->nsubs_topics == tc->n;
    for (int32_t i = 0; same && i < tc->n; i++)
        same = strcmp(g->subs_topics[i], tc->topics[i].name) == 0;
    if (!same) {
        subs_topics_free(g);
        g->subs_topics = kc_xcalloc((size_t)(tc->n ? tc->n : 1), sizeof(*g->subs_topics));
        g->subs_ids = kc_xcalloc((size_t)(tc->n ? tc->n : 1), sizeof(*g->subs_ids));
        for (int32_t i = 0; i < tc->n; i++)
            g->subs_topics[i] = kc_xstrdup(tc->topics[i].name);
        g->nsubs_topics = tc->n;
        g->subs_version++;
    }
    /* The ids as of now (a topic may have been recreated under its name). */
    for (int32_t i = 0; i < tc->n; i++)
        g->subs_ids[i] = (cs_sub_id_t){tc->topics[i].topic_id, i};
    if (tc->n > 1)
        qsort(g->subs_ids, (size_t)tc->n, sizeof(*g->subs_ids), cmp_sub_id);
    g->subs_ids_version = c->topics_version;
}

/* Whether the member's subscription row answers subscribed_to_id for the
 * topic id: the row and the ids are current and the id is one of them.
 * Sets *subscribed from the row. */
static bool subs_row_lookup(const kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                            kc_uuid_t id, bool *subscribed)
{
    if (m->subs_version != g->subs_version || g->subs_ids_version != c->topics_version ||
        !g->subs_ids)
        return false;
    int32_t lo = 0, hi = g->nsubs_topics;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        int cmp = uuid_cmp(g->subs_ids[mid].id, id);
        if (cmp == 0) {
            int32_t k = g->subs_ids[mid].index;
            if (strlen(g->subs_topics[k]) >= SUB_NAME_MAX)
                return false; /* as subscribed_to_id's own limit */
            *subscribed = m->subs[k];
            return true;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Kafka's SubscriptionType (ConsumerGroup.subscriptionType): homogeneous
 * when every member subscribes to the same topic names (those that do not
 * exist included) and none to a regex, or every member to one same regex
 * and none to names; heterogeneous otherwise. */
static int subscription_type(const cs_group_t *g)
{
    size_t n = g->members.n, regexes = 0;
    intptr_t regex_count = 0;
    for (size_t i = 0; i < g->regex_refs.nslots; i++)
        for (const kc_smap_entry_t *e = g->regex_refs.slots[i]; e; e = e->next)
            if ((intptr_t)e->val > 0) {
                regexes++;
                regex_count = (intptr_t)e->val;
            }
    if (regexes == 0) {
        for (size_t i = 0; i < g->topic_refs.nslots; i++)
            for (const kc_smap_entry_t *e = g->topic_refs.slots[i]; e; e = e->next)
                if ((intptr_t)e->val > 0 && (size_t)(intptr_t)e->val != n)
                    return KC_SUBS_HETEROGENEOUS;
        return KC_SUBS_HOMOGENEOUS;
    }
    if (regexes > 1 || (size_t)regex_count != n)
        return KC_SUBS_HETEROGENEOUS;
    for (size_t i = 0; i < n; i++)
        if (cs_member_at(g, i)->ntopics > 0)
            return KC_SUBS_HETEROGENEOUS;
    return KC_SUBS_HOMOGENEOUS;
}

/*
 * Computes the target assignment of the group's epoch and writes a record 7
 * for every member whose part changed, then record 6 (TargetAssignmentBuilder).
 */
static void update_target_assignment(kc_coord_t *c, cs_group_t *g, int64_t now_ms,
                                     kc_result_t *res)
{
    topic_collect_t tc;
    subscribed_topics(c, g, &tc);
    size_t nm = g->members.n;
    cs_member_t **sorted = kc_xcalloc(nm ? nm : 1, sizeof(*sorted));
    for (size_t i = 0; i < nm; i++)
        sorted[i] = cs_member_at(g, i);
    qsort(sorted, nm, sizeof(*sorted), cmp_member_id);
    kc_assign_member_t *am = kc_xcalloc(nm ? nm : 1, sizeof(*am));
    subs_topics_check(c, g, &tc);
    size_t row = (size_t)(tc.n ? tc.n : 1);
    for (size_t i = 0; i < nm; i++) {
        cs_member_t *m = sorted[i];
        am[i].member_id = m->member_id;
        am[i].instance_id = m->instance_id;
        am[i].previous = &m->target;
        if (m->subs_version != g->subs_version) {
            /* The member's names and its regex's topics are sorted as
             * tc.topics is: merge them in rather than search each topic. */
            m->subs = kc_xrealloc(m->subs, row * sizeof(*m->subs));
            memset(m->subs, 0, row * sizeof(*m->subs));
            mark_subscribed(&tc, (const char *const *)m->topics, m->ntopics, m->subs);
            const cs_resolved_t *r = resolved_get(g, m->regex);
            if (r)
                mark_subscribed(&tc, (const char *const *)r->topics, r->n, m->subs);
            m->subs_version = g->subs_version;
        }
        am[i].subscribed = m->subs;
    }
    kc_assign_spec_t spec = {tc.topics, tc.n, am, (int32_t)nm, subscription_type(g)};
    const char *assignor = group_assignor(c, g);
    if (strcmp(assignor, "range") == 0)
        kc_assignor_range(&spec);
    else
        kc_assignor_uniform(&spec);
    for (size_t i = 0; i < nm; i++) {
        if (!kc_asg_equal(&sorted[i]->target, &am[i].target))
            write_target_member(c, g, sorted[i]->member_id, &am[i].target, res);
        kc_asg_free(&am[i].target);
    }
    write_target_epoch(c, g, g->group_epoch, now_ms, res);
    free(am);
    free(sorted);
    free(tc.topics);
}

/* ---- subscription regexes ------------------------------------------------- */

/*
 * Kafka resolves a group's regexes off the request path (an executor task
 * keyed "regex-<group>") and applies the result as a later write; kcoord
 * does the same with a timer due at once, so the heartbeat that asked for
 * the refresh is answered first and the resolution is its own write.
 */
static void regex_key(char *buf, size_t cap, kc_str_t g)
{
    kc_timer_key(buf, cap, "regex-", g, NULL);
}

/* Time and version of the last resolution (INT64_MIN: none), Kafka's
 * lastResolvedRegularExpressionRefreshTimeMs/Version; all of a group's
 * regexes are resolved together. */
static void last_resolution(const cs_group_t *g, int64_t *time_ms, int64_t *version)
{
    *time_ms = INT64_MIN;
    *version = INT64_MIN;
    const kc_smap_t *m = &g->resolved;
    for (size_t i = 0; i < m->nslots; i++)
        for (const kc_smap_entry_t *e = m->slots[i]; e; e = e->next) {
            const cs_resolved_t *r = e->val;
            if (r->timestamp_ms > *time_ms)
                *time_ms = r->timestamp_ms;
            if (r->version > *version)
                *version = r->version;
        }
}

typedef struct {
    char **names;
    int32_t n, cap;
} name_list_t;

static void collect_name(void *arg, kc_str_t name)
{
    name_list_t *l = arg;
    if (name.len < 0)
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->names = kc_xrealloc(l->names, (size_t)l->cap * sizeof(*l->names));
    }
    l->names[l->n++] = kc_xstrndup(name.ptr ? name.ptr : "", (size_t)name.len);
}

typedef struct {
    kc_coord_t *c;
    cs_group_t *g;
    const name_list_t *topics;
    int64_t now_ms;
    bool changed;
    kc_result_t *res;
    kc_buf_t regexes; /* names for the log line */
} refresh_ctx_t;

static void refresh_one(void *arg, const char *regex, void *val)
{
    (void)val;
    refresh_ctx_t *rc = arg;
    cs_resolved_t *r = kc_xcalloc(1, sizeof(*r));
    r->version = rc->c->topics_version;
    r->timestamp_ms = rc->now_ms;
    char err[256];
    kc_regex_t *re = kc_regex_compile(regex, strlen(regex), err, sizeof(err));
    if (!re)
        kc_log_error(LOG_COMP,
                     "[GroupId %s] Couldn't parse regular expression '%s' due to `%s`. Ignoring it.",
                     rc->g->group_id, regex, err);
    /* Topic names come sorted, so the resolved list is too. */
    for (int32_t i = 0; re && i < rc->topics->n; i++) {
        const char *t = rc->topics->names[i];
        if (kc_regex_matches(re, t, strlen(t))) {
            r->topics = kc_xrealloc(r->topics, (size_t)(r->n + 1) * sizeof(*r->topics));
            r->topics[r->n++] = kc_xstrdup(t);
        }
    }
    kc_regex_free(re);
    const cs_resolved_t *old = resolved_get(rc->g, regex);
    bool same = old && old->n == r->n;
    for (int32_t i = 0; same && i < r->n; i++)
        same = strcmp(old->topics[i], r->topics[i]) == 0;
    if (!same && (old || r->n > 0))
        rc->changed = true; /* an unresolved regex counts as resolved to nothing */
    if (rc->regexes.len)
        kc_buf_append(&rc->regexes, ", ", 2);
    kc_buf_append(&rc->regexes, regex, strlen(regex));
    write_regex(rc->c, rc->g, regex, r, rc->res);
    resolved_free(r);
}

/* The resolution task finishing (handleRegularExpressionsResult): record 16
 * for every regex of the group, and a new group epoch when a resolution or
 * the subscribed topics' metadata changed. */
static void on_regex_refresh(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    (void)key;
    const kc_timer_t *t = kc_timer_current(c);
    cs_group_t *g = group_get(c, t->group_id, t->group_id_len);
    if (!g || g->regex_refs.count == 0)
        return;
    name_list_t topics = {0};
    if (c->topics.topic_names)
        c->topics.topic_names(c->topics.ctx, collect_name, &topics);
    if (topics.n > 1)
        qsort(topics.names, (size_t)topics.n, sizeof(*topics.names), cmp_cstr);
    refresh_ctx_t rc = {c, g, &topics, now_ms, false, res, {0}};
    kc_buf_init(&rc.regexes);
    /* refresh_one changes g->resolved only, so walking regex_refs is safe. */
    kc_smap_foreach(&g->regex_refs, refresh_one, &rc);
    kc_log_info(LOG_COMP, "[GroupId %s] Scanned %d topics to refresh regular expressions [%.*s] in 0ms.",
                g->group_id, topics.n, (int)rc.regexes.len, (const char *)rc.regexes.data);
    kc_buf_deinit(&rc.regexes);
    for (int32_t i = 0; i < topics.n; i++)
        free(topics.names[i]);
    free(topics.names);
    int64_t hash = group_metadata_hash(c, g);
    if (rc.changed || hash != g->metadata_hash)
        bump_group_epoch(c, g, hash, "subscription regexes resolved to other topics", now_ms, res);
    note_state(g);
}

/*
 * Starts a resolution of the group's regexes when one is due
 * (GroupMetadataManager.maybeUpdateRegularExpressions): require is set when
 * the heartbeat brought a regex no member had; otherwise a refresh is due
 * when a regex is unresolved, a topic was created since the last
 * resolution, or the last one is older than the refresh interval; never
 * while one is pending nor within the minimum interval of the last.
 */
static void maybe_refresh_regexes(kc_coord_t *c, cs_group_t *g, bool require, int64_t now_ms)
{
    if (!require && g->regex_refs.count == 0)
        return;
    char key[KEY_BUF];
    regex_key(key, sizeof(key), kc_modern_group_id(&g->base));
    if (kc_timer_is_scheduled(c, key))
        return;
    int64_t last_ms, last_version;
    last_resolution(g, &last_ms, &last_version);
    if (last_ms != INT64_MIN && now_ms <= last_ms + c->cfg.group_consumer_regex_refresh_min_interval_ms)
        return;
    require = require || g->regex_refs.count != g->resolved.count ||
              last_version < c->new_topics_version || last_ms == INT64_MIN ||
              now_ms > last_ms + c->cfg.group_consumer_regex_refresh_interval_ms;
    if (require && g->regex_refs.count > 0)
        kc_timer_schedule_args(c, key, now_ms, on_regex_refresh, kc_modern_group_id(&g->base),
                               NULL, 0, 0);
}

void kc_coord_topic_created(kc_coord_t *c, kc_str_t topic)
{
    (void)topic;
    c->topics_version++;
    c->new_topics_version = c->topics_version;
}

void kc_coord_topic_updated(kc_coord_t *c, kc_str_t topic)
{
    (void)topic;
    c->topics_version++;
}

/* ---- reconciliation (CurrentAssignmentBuilder) ---------------------------- */

typedef kc_consumer_group_heartbeat_request_topic_partitions_t owned_tp_t;
typedef struct {
    const owned_tp_t *items;
    int32_t count; /* -1 = not reported */
} owned_t;

/* Whether the member still reports owning any of the given partitions
 * (not reported counts as "still owns"). */
static bool owns_any(owned_t owned, const kc_asg_t *a)
{
    if (owned.count < 0)
        return true;
    for (int32_t i = 0; i < owned.count; i++) {
        const kc_asg_topic_t *t = kc_asg_find(a, owned.items[i].topic_id);
        if (!t)
            continue;
        for (int32_t j = 0; j < owned.items[i].partitions.count; j++)
            if (kc_asg_has(a, owned.items[i].topic_id, owned.items[i].partitions.items[j]))
                return true;
    }
    return false;
}

static bool subscribed_to_id(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                             kc_uuid_t id)
{
    const kc_topic_view_t *v = &c->topics;
    if (!v->topic_id_to_name)
        return true;
    /* The row of the last target assignment holds the answer for the
     * topics it covers while neither the topics nor the subscription
     * changed since (the view maps the name to the id and back). */
    bool subscribed;
    if (subs_row_lookup(c, g, m, id, &subscribed))
        return subscribed;
    kc_str_t name;
    if (!v->topic_id_to_name(v->ctx, id, &name) || name.len < 0)
        return false;
    char buf[SUB_NAME_MAX];
    if ((size_t)name.len >= sizeof(buf))
        return false;
    memcpy(buf, name.ptr, (size_t)name.len);
    buf[name.len] = '\0';
    return member_subscribes_topic(g, m, buf);
}

/*
 * Moves the member towards its target (CurrentAssignmentBuilder.build and
 * computeNextAssignment): partitions no longer in the target are revoked
 * first (UNREVOKED_PARTITIONS, epoch unchanged); once the member reports
 * them gone it takes the target epoch and the target partitions that no
 * other member still owns (UNRELEASED_PARTITIONS while some are held).
 * Returns true when the member changed (its record 8 is written then);
 * *assigned_changed tells whether its
 * assigned partitions did.
 */
static bool reconcile(kc_coord_t *c, cs_group_t *g, cs_member_t *m, owned_t owned,
                      bool *assigned_changed, kc_result_t *res)
{
    int32_t target_epoch = g->assignment_epoch;
    *assigned_changed = false;
    /* The common case of a new epoch: a stable member already holds exactly
     * its target, to which it subscribes; it only takes the epoch (what the
     * general path below computes, without building the sets). */
    if (m->state == MS_STABLE && m->member_epoch != target_epoch && m->pending.n == 0 &&
        kc_asg_equal(&m->assigned, &m->target)) {
        bool subscribed = true;
        for (int32_t i = 0; i < m->target.n && subscribed; i++)
            subscribed = m->target.t[i].n == 0 || subscribed_to_id(c, g, m, m->target.t[i].topic_id);
        if (subscribed) {
            cs_current_t cur = {target_epoch, m->member_epoch, MS_STABLE, &m->assigned,
                                &m->pending};
            write_current(c, g, m->member_id, &cur, res);
            return true;
        }
    }
    switch (m->state) {
    case MS_STABLE:
        if (m->member_epoch == target_epoch)
            return false;
        break;
    case MS_UNREVOKED_PARTITIONS:
        if (owns_any(owned, &m->pending))
            return false;
        break;
    case MS_UNRELEASED_PARTITIONS:
    default:
        break;
    }
    kc_asg_t assigned = {0}, revoke = {0}, add = {0};
    bool unreleased = false;
    /* Union of topics of the current assignment and the target. */
    const kc_asg_t *cur = &m->assigned, *tgt = &m->target;
    for (int pass = 0; pass < 2; pass++) {
        const kc_asg_t *src = pass == 0 ? cur : tgt;
        for (int32_t i = 0; i < src->n; i++) {
            kc_uuid_t id = src->t[i].topic_id;
            if (pass == 1 && kc_asg_find(cur, id))
                continue; /* done in pass 0 */
            bool subscribed = subscribed_to_id(c, g, m, id);
            const kc_asg_topic_t *ct = kc_asg_find(cur, id);
            const kc_asg_topic_t *tt = subscribed ? kc_asg_find(tgt, id) : NULL;
            for (int32_t j = 0; ct && j < ct->n; j++) {
                if (tt && kc_asg_has(tgt, id, ct->p[j]))
                    kc_asg_add(&assigned, id, ct->p[j]);
                else
                    kc_asg_add(&revoke, id, ct->p[j]);
            }
            for (int32_t j = 0; tt && j < tt->n; j++) {
                int32_t p = tt->p[j];
                if (ct && kc_asg_has(cur, id, p))
                    continue;
                if (partition_epoch(g, id, p) != -1 && !kc_asg_has(&m->pending, id, p))
                    unreleased = true;
                else
                    kc_asg_add(&add, id, p);
            }
        }
    }
    int32_t epoch = m->member_epoch, prev = m->previous_member_epoch;
    int8_t state;
    kc_asg_t pending = {0};
    if (!kc_asg_is_empty(&revoke) && owns_any(owned, &revoke)) {
        state = MS_UNREVOKED_PARTITIONS;
        pending = revoke;
        memset(&revoke, 0, sizeof(revoke));
        kc_asg_free(&add);
    } else {
        for (int32_t i = 0; i < add.n; i++)
            for (int32_t j = 0; j < add.t[i].n; j++)
                kc_asg_add(&assigned, add.t[i].topic_id, add.t[i].p[j]);
        kc_asg_free(&add);
        state = unreleased ? MS_UNRELEASED_PARTITIONS : MS_STABLE;
        if (epoch != target_epoch) {
            prev = epoch;
            epoch = target_epoch;
        }
    }
    kc_asg_free(&revoke);
    /* Kept and revoking partitions keep the epoch they were assigned at,
     * the new ones take the target's (KIP-1251). */
    kc_asg_epochs_carry(&assigned, &m->assigned, target_epoch);
    kc_asg_epochs_carry(&pending, &m->assigned, target_epoch);
    bool changed = epoch != m->member_epoch || prev != m->previous_member_epoch ||
                   state != m->state || !kc_asg_equal(&assigned, &m->assigned) ||
                   !kc_asg_equal(&pending, &m->pending);
    if (changed) {
        *assigned_changed = !kc_asg_equal(&assigned, &m->assigned);
        write_current(c, g, m->member_id, &(cs_current_t){epoch, prev, state, &assigned, &pending},
                      res);
    }
    kc_asg_free(&assigned);
    kc_asg_free(&pending);
    return changed;
}

/* ---- responses ---------------------------------------------------------------- */

static void send_hb(kc_result_t *res, const kc_request_ctx_t *ctx,
                    const kc_consumer_group_heartbeat_response_t *r, bool depends_on_records)
{
    if (!depends_on_records) {
        kc_result_respond(res, ctx, r, NULL);
        return;
    }
    kc_consumer_group_heartbeat_response_t e;
    kc_consumer_group_heartbeat_response_init(&e);
    e.error_code = KC_COORD_ERR_WRITE_FAILED;
    kc_result_respond(res, ctx, r, &e);
}

static void send_hb_error(kc_result_t *res, const kc_request_ctx_t *ctx, int16_t error,
                          const char *message)
{
    kc_consumer_group_heartbeat_response_t r;
    kc_consumer_group_heartbeat_response_init(&r);
    r.error_code = error;
    r.error_message = kc_str(message);
    send_hb(res, ctx, &r, false);
}

/* The order in which a java.util.HashSet built from these names (as Kafka
 * keeps a member's subscribed topic names) iterates them: by bucket of the
 * names' String.hashCode, spread and masked by the set's capacity, names of
 * one bucket in their order here. */
static uint32_t java_bucket(kc_str_t s, uint32_t mask)
{
    uint32_t h = (uint32_t)kc_java_string_hash(s.ptr, s.len > 0 ? (size_t)s.len : 0);
    return (h ^ (h >> 16)) & mask;
}

static void java_hash_set_order(kc_str_t *names, int32_t n)
{
    uint32_t want = (uint32_t)((float)n / 0.75f) + 1, cap = 16;
    while (cap < want)
        cap <<= 1;
    for (int32_t i = 1; i < n; i++) {
        kc_str_t x = names[i];
        uint32_t bx = java_bucket(x, cap - 1);
        int32_t j = i - 1;
        while (j >= 0 && java_bucket(names[j], cap - 1) > bx) {
            names[j + 1] = names[j];
            j--;
        }
        names[j + 1] = x;
    }
}

/* The order in which Kafka's TimelineHashMap of a group's members (keyed by
 * member id) iterates them, which ConsumerGroupDescribe follows: slot by
 * slot of a table that doubled from 2 slots whenever it got 3/4 full (so
 * sized by the most members the group had at once), a slot being a
 * Fibonacci hash of the id's String.hashCode; the members of one slot
 * last-added first (kcoord's join order stands for Kafka's insertion). */
static uint32_t timeline_slot(const char *id, uint64_t cap)
{
    uint32_t h = (uint32_t)kc_java_string_hash(id, strlen(id));
    int log2size = 0;
    while ((1ULL << log2size) <= cap)
        log2size++;
    uint64_t x = (uint64_t)(int64_t)(int32_t)h * 0x9E3779B97F4A7C15ULL;
    return (uint32_t)(x >> (65 - log2size));
}

/* The slots of a Kafka timeline hash table that has held n entries and was
 * put to again at that size: BaseHashTable grows before it knows whether a
 * put adds or replaces, and a group's members and assignor counts are put
 * again with every change (a member's join alone writes two records). */
static uint64_t timeline_capacity(size_t n)
{
    uint64_t cap = 2;
    for (size_t k = 1; k <= n + (n > 0); k++)
        if ((double)k * 0.75 > (double)cap)
            cap *= 2;
    return cap;
}

static void timeline_member_order(const cs_group_t *g, size_t *order)
{
    uint64_t cap = timeline_capacity(g->members.hw);
    size_t n = g->members.n;
    uint32_t *slot = kc_xmalloc((n + 1) * sizeof(*slot));
    for (size_t i = 0; i < n; i++) {
        /* Later joiners first within a slot: fill in reverse join order,
         * then sort stably by slot. */
        order[i] = n - 1 - i;
        slot[n - 1 - i] = timeline_slot(cs_member_at(g, n - 1 - i)->member_id, cap);
    }
    for (size_t i = 1; i < n; i++) {
        size_t x = order[i];
        size_t j = i;
        while (j > 0 && slot[order[j - 1]] > slot[x]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    free(slot);
}

/* ---- request validation (throwIfConsumerGroupHeartbeatRequestIsInvalid) -------- */

static bool assignor_supported(const kc_coord_t *c, kc_str_t name)
{
    for (int i = 0; i < c->cfg.group_consumer_nassignors; i++)
        if (kc_str_eq_cstr(name, c->cfg.group_consumer_assignors[i]))
            return true;
    return false;
}

static int16_t validate_request(const kc_coord_t *c, const kc_request_ctx_t *ctx,
                                const kc_consumer_group_heartbeat_request_t *req, char *msg,
                                size_t cap)
{
    int32_t epoch = req->member_epoch;
    if (req->member_id.len <= 0 && (ctx->api_version >= 1 || epoch > 0 || epoch == EPOCH_LEAVE)) {
        snprintf(msg, cap, "MemberId can't be empty.");
        return KC_ERR_INVALID_REQUEST;
    }
    int16_t err = kc_modern_validate_ids(req->group_id, req->instance_id, req->rack_id, msg, cap);
    if (err != KC_ERR_NONE)
        return err;
    if (epoch == 0) {
        if (req->rebalance_timeout_ms == -1) {
            snprintf(msg, cap, "RebalanceTimeoutMs must be provided in first request.");
            return KC_ERR_INVALID_REQUEST;
        }
        if (req->topic_partitions.count != 0) {
            snprintf(msg, cap, "TopicPartitions must be empty when (re-)joining.");
            return KC_ERR_INVALID_REQUEST;
        }
        if (req->subscribed_topic_names.count < 0 && req->subscribed_topic_regex.len < 0) {
            snprintf(msg, cap,
                     "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when "
                     "(re-)joining.");
            return KC_ERR_INVALID_REQUEST;
        }
    } else if (epoch == EPOCH_STATIC_LEAVE) {
        if (req->instance_id.len < 0) {
            snprintf(msg, cap, "InstanceId can't be null.");
            return KC_ERR_INVALID_REQUEST;
        }
    } else if (epoch < EPOCH_STATIC_LEAVE) {
        snprintf(msg, cap, "MemberEpoch is invalid.");
        return KC_ERR_INVALID_REQUEST;
    }
    if (req->server_assignor.len >= 0 && !assignor_supported(c, req->server_assignor)) {
        snprintf(msg, cap, "ServerAssignor %.*s is not supported. Supported assignors: %s%s%s.",
                 (int)req->server_assignor.len, req->server_assignor.ptr,
                 c->cfg.group_consumer_assignors[0],
                 c->cfg.group_consumer_nassignors > 1 ? ", " : "",
                 c->cfg.group_consumer_nassignors > 1 ? c->cfg.group_consumer_assignors[1] : "");
        return KC_ERR_UNSUPPORTED_ASSIGNOR;
    }
    return KC_ERR_NONE;
}

/* ---- leave ---------------------------------------------------------------------- */

static void heartbeat_leave(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_consumer_group_heartbeat_request_t *req, kc_result_t *res)
{
    char msg[MSG_MAX];
    cs_group_t *g = group_get(c, req->group_id.ptr, (size_t)req->group_id.len);
    if (!g) {
        /* GroupMetadataManager.consumerGroup: a group of another type is
         * named as such. */
        bool other = kc_group_get(c, req->group_id) != NULL;
        snprintf(msg, sizeof(msg),
                 other ? "Group %.*s is not a consumer group." : "Group %.*s not found.",
                 (int)req->group_id.len, req->group_id.ptr);
        send_hb_error(res, ctx, KC_ERR_GROUP_ID_NOT_FOUND, msg);
        return;
    }
    kc_modern_member_t *found;
    int16_t err = kc_modern_group_find_member(&g->modern, req->member_id, req->instance_id,
                                              &found, msg, sizeof(msg));
    if (err != KC_ERR_NONE) {
        send_hb_error(res, ctx, err, msg);
        return;
    }
    cs_member_t *m = (cs_member_t *)found;
    kc_consumer_group_heartbeat_response_t r;
    kc_consumer_group_heartbeat_response_init(&r);
    r.member_id = req->member_id;
    r.member_epoch = req->member_epoch;
    if (req->member_epoch == EPOCH_STATIC_LEAVE) {
        /* The member stays, epoch -2, holding its assignment for a
         * replacement until its session expires. */
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Static member %s with instance id %s (epoch %d) temporarily left "
                    "the consumer group.",
                    g->group_id, m->member_id, m->instance_id, m->member_epoch);
        kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, g->group_id, m->member_id,
                      "static member left temporarily (epoch -2)", g->group_epoch, 0, ctx->now_ms);
        kc_asg_t none = {0}, kept = {0};
        kc_member_cancel_rebalance(c, kc_modern_group_id(&g->base), m->member_id);
        /* Its partitions count as assigned at epoch 0 from here on: the
         * member that takes the instance over commits them, an old epoch of
         * this one is fenced. */
        kc_asg_copy(&kept, &m->assigned);
        kc_asg_epochs_fill(&kept, 0);
        write_current(c, g, m->member_id,
                      &(cs_current_t){EPOCH_STATIC_LEAVE, m->member_epoch, m->state, &kept, &none},
                      res);
        kc_asg_free(&kept);
        note_state(g);
    } else {
        kc_log_info(LOG_COMP, "[GroupId %s] Member %s (instance id %s, epoch %d) left the consumer group.",
                    g->group_id, m->member_id, m->instance_id ? m->instance_id : "none",
                    m->member_epoch);
        /* May convert the group to a classic one (g is gone then). */
        fence_member(c, g, m, "the member left the group", KC_COORD_EV_MEMBER_REMOVED, ctx->now_ms,
                     res);
    }
    send_hb(res, ctx, &r, true);
}

/* ---- join and heartbeat ------------------------------------------------------- */

/* Whether owned (as reported) is contained in the member's assignment. */
static bool owned_subset(owned_t owned, const kc_asg_t *a)
{
    if (owned.count < 0)
        return false;
    for (int32_t i = 0; i < owned.count; i++)
        for (int32_t j = 0; j < owned.items[i].partitions.count; j++)
            if (!kc_asg_has(a, owned.items[i].topic_id, owned.items[i].partitions.items[j]))
                return false;
    return true;
}

static int16_t validate_epoch(const cs_member_t *m, int32_t epoch, owned_t owned, char *msg,
                              size_t cap)
{
    if (epoch > m->member_epoch) {
        snprintf(msg, cap,
                 "The consumer group member has a greater member epoch (%d) than the one known "
                 "by the group coordinator (%d). The member must abandon all its partitions and "
                 "rejoin.",
                 epoch, m->member_epoch);
        return KC_ERR_FENCED_MEMBER_EPOCH;
    }
    if (epoch < m->member_epoch &&
        (epoch != m->previous_member_epoch || !owned_subset(owned, &m->assigned))) {
        snprintf(msg, cap,
                 "The consumer group member has a smaller member epoch (%d) than the one known "
                 "by the group coordinator (%d). The member must abandon all its partitions and "
                 "rejoin.",
                 epoch, m->member_epoch);
        return KC_ERR_FENCED_MEMBER_EPOCH;
    }
    return KC_ERR_NONE;
}

typedef kc_consumer_group_heartbeat_request_topic_partitions_t resp_tp_t;

/* The order in which a java.util.HashSet (or HashMap) of these partition
 * numbers iterates them, as Kafka lists a member's partitions: by bucket
 * (the number masked by the table's capacity, which grows from 16 while
 * more than 3/4 full), in number order within a bucket. Returns a copy in
 * the arena. */
static uint32_t int_set_mask;

static int cmp_int_set(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    uint32_t bx = (uint32_t)x & int_set_mask, by = (uint32_t)y & int_set_mask;
    if (bx != by)
        return bx < by ? -1 : 1;
    return x < y ? -1 : x > y;
}

int32_t *kc_cs_java_int_set_order(const int32_t *p, int32_t n, kc_arena_t *arena)
{
    int32_t *out = kc_arena_alloc(arena, sizeof(*out) * (size_t)(n + 1));
    memcpy(out, p, sizeof(*out) * (size_t)n);
    uint64_t cap = 16;
    while ((uint64_t)n * 4 > cap * 3)
        cap <<= 1;
    bool sorted_already = true;
    for (int32_t i = 0; i < n && sorted_already; i++)
        sorted_already = (uint64_t)(uint32_t)out[i] < cap;
    if (sorted_already)
        return out; /* every number is its own bucket: ascending */
    int_set_mask = (uint32_t)(cap - 1);
    qsort(out, (size_t)n, sizeof(*out), cmp_int_set);
    return out;
}

static kc_consumer_group_heartbeat_response_assignment_t *
response_assignment(const kc_asg_t *a, kc_arena_t *arena)
{
    kc_consumer_group_heartbeat_response_assignment_t *out = kc_arena_alloc(arena, sizeof(*out));
    memset(out, 0, sizeof(*out));
    out->topic_partitions.items = kc_arena_alloc(arena, sizeof(resp_tp_t) * (size_t)(a->n + 1));
    out->topic_partitions.count = 0;
    for (int32_t i = 0; i < a->n; i++) {
        if (a->t[i].n == 0)
            continue;
        resp_tp_t *tp = &out->topic_partitions.items[out->topic_partitions.count++];
        tp->topic_id = a->t[i].topic_id;
        tp->partitions.items = kc_cs_java_int_set_order(a->t[i].p, a->t[i].n, arena);
        tp->partitions.count = a->t[i].n;
    }
    return out;
}

/* One ConsumerGroupHeartbeat on its way through the steps below (Kafka's
 * GroupMetadataManager.consumerGroupHeartbeat): the request, the group and
 * member it found or made, and what the steps found changed. */
typedef struct {
    kc_coord_t *c;
    const kc_request_ctx_t *ctx;
    const kc_consumer_group_heartbeat_request_t *req;
    kc_result_t *res;
    char *msg;              /* MSG_MAX bytes: the error message of a refused heartbeat */
    int32_t epoch;          /* the request's member epoch */
    owned_t owned;          /* the partitions the member reports owning */
    cs_group_t *g;          /* NULL until the group exists */
    char gen_id[23];        /* a member id generated for a v0 join */
    kc_str_t member_id;     /* the client's or the generated one */
    cs_member_t *m;         /* NULL until the member exists */
    cs_member_t *replaced;  /* static member (epoch -2) being taken over */
    cs_member_t *nm;        /* the proposed member once the request changes the metadata */
    bool is_new;            /* a member joining */
    kc_str_t new_regex;     /* the request's regex (null: unchanged) */
    bool regex_changed, regex_is_new, regex_resolved;
    bool sub_changed;
} cs_heartbeat_t;

/* getOrMaybeCreateConsumerGroup: the group, or, for a joining member, a
 * classic group converted (online upgrade); refused when a group of
 * another type holds the id or the member is not joining. */
static int16_t hb_find_group(cs_heartbeat_t *h)
{
    kc_str_t id = h->req->group_id;
    h->g = group_get(h->c, id.ptr, (size_t)id.len);
    if (h->g)
        return KC_ERR_NONE;
    kc_classic_group_t *classic = kc_classic_group_find(h->c, id);
    bool streams = kc_coord_streams_group_find(h->c, id) != NULL;
    if (h->epoch != 0 || streams) {
        snprintf(h->msg, MSG_MAX,
                 classic || streams ? "Group %.*s is not a consumer group."
                                    : "Consumer group %.*s not found.",
                 (int)id.len, id.ptr);
        return KC_ERR_GROUP_ID_NOT_FOUND;
    }
    if (!classic)
        return KC_ERR_NONE;
    int16_t err = KC_ERR_NONE;
    h->g = kc_cs_classic_upgrade(h->c, classic, h->req->instance_id, h->ctx->now_ms, h->res, &err,
                                 h->msg, MSG_MAX);
    return err;
}

/* getOrMaybeSubscribeStaticConsumerGroupMember: a static member joining
 * replaces one that left with epoch -2; one rejoining must be the
 * instance's current member. */
static int16_t hb_find_static_member(cs_heartbeat_t *h)
{
    const kc_consumer_group_heartbeat_request_t *req = h->req;
    cs_member_t *s = h->g ? kc_cs_static_member(h->g, req->instance_id) : NULL;
    if (h->epoch == 0) {
        /* A classic-protocol static member is replaced without leaving first. */
        int16_t err = s && s->classic ? KC_ERR_NONE
                                      : kc_modern_static_join_check(s ? &s->modern : NULL,
                                                                    h->member_id,
                                                                    req->instance_id, h->msg,
                                                                    MSG_MAX);
        if (err != KC_ERR_NONE)
            return err;
        h->replaced = s;
        /* A known dynamic id now claiming an instance is not new. */
        h->is_new = !(h->m && h->m != s);
        return KC_ERR_NONE;
    }
    /* Not joining: the group exists (hb_find_group). */
    kc_modern_member_t *found;
    int16_t err = kc_modern_group_find_member(&h->g->modern, h->member_id, req->instance_id,
                                              &found, h->msg, MSG_MAX);
    h->m = (cs_member_t *)found;
    return err;
}

/* The member: the client's id, or one generated for a v0 join (a Kafka
 * Uuid); dynamic (getOrMaybeSubscribeDynamicConsumerGroupMember) or
 * static; then the group's size limit and the member's epoch. */
static int16_t hb_find_member(cs_heartbeat_t *h)
{
    const kc_consumer_group_heartbeat_request_t *req = h->req;
    h->member_id = req->member_id;
    if (h->member_id.len <= 0) {
        kc_coord_random_kafka_uuid(h->c, h->gen_id);
        h->member_id = kc_str(h->gen_id);
    }
    h->m = h->g ? member_get(h->g, h->member_id.ptr, (size_t)h->member_id.len) : NULL;
    int16_t err = KC_ERR_NONE;
    if (req->instance_id.len >= 0) {
        err = hb_find_static_member(h);
    } else if (h->epoch == 0) {
        h->is_new = h->m == NULL;
    } else if (!h->m) {
        snprintf(h->msg, MSG_MAX, "Member %.*s is not a member of group %.*s.",
                 (int)h->member_id.len, h->member_id.ptr, (int)req->group_id.len,
                 req->group_id.ptr);
        err = KC_ERR_UNKNOWN_MEMBER_ID;
    }
    if (err)
        return err;
    if (h->is_new && h->g && !h->replaced &&
        h->g->members.n >= (size_t)h->c->cfg.group_consumer_max_size) {
        snprintf(h->msg, MSG_MAX,
                 "The consumer group has reached its maximum capacity of %d members.",
                 h->c->cfg.group_consumer_max_size);
        return KC_ERR_GROUP_MAX_SIZE_REACHED;
    }
    if (h->m && h->epoch != 0)
        return validate_epoch(h->m, h->epoch, h->owned, h->msg, MSG_MAX);
    return KC_ERR_NONE;
}

/* throwIfRegularExpressionIsInvalid: a regex no member of the group has
 * yet must compile. */
static int16_t hb_check_regex(cs_heartbeat_t *h)
{
    kc_str_t re_s = h->ctx->api_version >= 1 ? h->req->subscribed_topic_regex : KC_STR_NULL;
    cs_member_t *m = h->m;
    h->new_regex = re_s;
    h->regex_changed = re_s.len >= 0 &&
                       !(re_s.len == 0 ? (!m || !m->regex)
                                       : (m && m->regex && kc_str_eq_cstr(re_s, m->regex)));
    if (h->regex_changed && re_s.len > 0) {
        char *re_text = kc_str_dup_or_null(re_s);
        h->regex_is_new = !h->g || regex_members(h->g, re_text) == 0;
        free(re_text);
    }
    if (!h->regex_is_new)
        return KC_ERR_NONE;
    char rerr[160];
    kc_regex_t *re = kc_regex_compile(re_s.ptr, (size_t)re_s.len, rerr, sizeof(rerr));
    if (!re) {
        snprintf(h->msg, MSG_MAX,
                 "SubscribedTopicRegex `%.*s` is not a valid regular expression: %s.",
                 (int)re_s.len, re_s.ptr, rerr);
        return KC_ERR_INVALID_REGULAR_EXPRESSION;
    }
    kc_regex_free(re);
    return KC_ERR_NONE;
}

/* A static member rejoining under a new member id
 * (ConsumerGroupMember.Builder from the old member): the new id takes over
 * the old member's subscription, target and assignment; the old one's
 * records are tombstoned. */
static void hb_replace_static_member(cs_heartbeat_t *h)
{
    cs_group_t *g = h->g;
    cs_member_t *old = h->replaced;
    cs_member_t *nm = member_proposed(old, h->member_id.ptr, (size_t)h->member_id.len);
    /* The client fields come with the new member's own metadata. */
    free(nm->client_id);
    nm->client_id = kc_xstrdup("");
    free(nm->client_host);
    nm->client_host = kc_xstrdup("");
    kc_cs_classic_free(nm->classic);
    nm->classic = NULL;
    kc_asg_t target = {0}, assigned = {0}, none = {0};
    kc_asg_copy(&target, &old->target);
    kc_asg_copy(&assigned, &old->assigned);
    int8_t state = old->state == MS_UNREVOKED_PARTITIONS ? MS_STABLE : old->state;
    char *old_id = kc_xstrdup(old->member_id);
    kc_log_info(LOG_COMP,
                "[GroupId %s] Static member with instance id %s re-joins the consumer group "
                "using the consumer protocol. Created a new member %s to replace the existing "
                "member %s.",
                g->group_id, nm->instance_id, nm->member_id, old_id);
    kc_coord_emit_static_replaced(h->c, g->group_id, old_id, nm->member_id, g->group_epoch,
                                  h->ctx->now_ms);
    kc_coord_emit(h->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, nm->member_id,
                  "static member replaced", g->group_epoch, 0, h->ctx->now_ms);
    cancel_member_timers(h->c, g, old_id);
    write_member_tombstones(h->c, g, old_id, h->res);
    h->m = write_member_metadata(h->c, g, nm, h->res);
    write_target_member(h->c, g, nm->member_id, &target, h->res);
    write_current(h->c, g, nm->member_id, &(cs_current_t){0, 0, state, &assigned, &none}, h->res);
    h->replaced = NULL;
    h->is_new = false;
    kc_asg_free(&target);
    kc_asg_free(&assigned);
    member_free(nm);
    free(old_id);
}

/* The request is accepted: the group exists from here on; a static member
 * rejoining under a new member id replaces the old one. A new member is
 * made by its first record (hb_update_member). */
static void hb_create_member(cs_heartbeat_t *h)
{
    const kc_consumer_group_heartbeat_request_t *req = h->req;
    if (!h->g) {
        h->g = group_new(h->c, req->group_id.ptr, (size_t)req->group_id.len, 0);
        kc_log_info(LOG_COMP, "[GroupId %s] Created consumer group.", h->g->group_id);
    }
    if (h->replaced)
        hb_replace_static_member(h);
}

/* The log line and event of a member the heartbeat made. */
static void hb_member_joined(cs_heartbeat_t *h)
{
    const kc_consumer_group_heartbeat_request_t *req = h->req;
    cs_group_t *g = h->g;
    cs_member_t *m = h->m;
    if (req->instance_id.len >= 0)
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Static member %s with instance id %.*s joins the consumer "
                    "group using the consumer protocol.",
                    g->group_id, m->member_id, (int)req->instance_id.len, req->instance_id.ptr);
    else
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Member %s joins the consumer group using the consumer protocol.",
                    g->group_id, m->member_id);
    kc_coord_emit(h->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, m->member_id, NULL,
                  g->group_epoch, 0, h->ctx->now_ms);
}

/* The proposed member (copy on write): a copy of the member's metadata, or
 * a new member, made at the first change the request brings. */
static cs_member_t *hb_proposed(cs_heartbeat_t *h)
{
    if (!h->nm)
        h->nm = member_proposed(h->m, h->member_id.ptr, (size_t)h->member_id.len);
    return h->nm;
}

/* The member's metadata with the request's changes so far. */
static const cs_member_t *hb_meta(const cs_heartbeat_t *h) { return h->nm ? h->nm : h->m; }

/* A string field (at offset off in cs_member_t) the request may change. */
static void hb_update_str(cs_heartbeat_t *h, size_t off, kc_str_t s)
{
    if (kc_str_changes(s, *(char *const *)((const char *)hb_meta(h) + off)))
        kc_str_update((char **)((char *)hb_proposed(h) + off), s);
}

/* maybeUpdateRegularExpressions: the request's regex into the proposed
 * member; the last member of the old regex tombstones its resolution;
 * a regex already resolved for other members (or dropped for topic names)
 * bumps the group epoch now, a new one once it is resolved. */
static void hb_update_regex(cs_heartbeat_t *h)
{
    cs_group_t *g = h->g;
    kc_str_t re = h->new_regex;
    const char *cur = hb_meta(h)->regex;
    /* A static member's replacement took over the old member's regex. */
    if (h->regex_changed && (re.len == 0 ? !cur : cur && kc_str_eq_cstr(re, cur)))
        h->regex_changed = false;
    if (!h->regex_changed)
        return;
    char *next = re.len > 0 ? kc_str_dup_or_null(re) : NULL;
    maybe_delete_regex(h->c, g, h->m, next, h->res);
    h->regex_resolved = cur != NULL;
    cs_member_t *nm = hb_proposed(h);
    free(nm->regex);
    nm->regex = next;
    if (next)
        h->regex_resolved = !h->regex_is_new && resolved_get(g, next) != NULL;
    kc_log_debug(LOG_COMP, "[GroupId %s] Member %s updated its subscribed regex to: %s.",
                 g->group_id, nm->member_id, next ? next : "");
}

/* updateMemberSubscription: what the request changes in the member's
 * metadata (a null field is unchanged), on a proposed member made at the
 * first change, then its record when anything did; a new member is made by
 * that record. Returns whether the group's preferred assignor changed. */
static bool hb_update_member(cs_heartbeat_t *h)
{
    const kc_consumer_group_heartbeat_request_t *req = h->req;
    cs_group_t *g = h->g;
    bool is_new = h->m == NULL;
    if (is_new)
        hb_proposed(h);
    if (hb_meta(h)->classic) {
        /* A classic member now speaking the consumer protocol. */
        cs_member_t *nm = hb_proposed(h);
        kc_cs_classic_free(nm->classic);
        nm->classic = NULL;
    }
    hb_update_str(h, offsetof(cs_member_t, instance_id), req->instance_id);
    hb_update_str(h, offsetof(cs_member_t, rack_id), req->rack_id);
    if (req->rebalance_timeout_ms != -1 &&
        req->rebalance_timeout_ms != hb_meta(h)->rebalance_timeout_ms)
        hb_proposed(h)->rebalance_timeout_ms = req->rebalance_timeout_ms;
    hb_update_str(h, offsetof(cs_member_t, server_assignor), req->server_assignor);
    if (req->subscribed_topic_names.count >= 0 &&
        !topics_equal(hb_meta(h), req->subscribed_topic_names.items,
                      req->subscribed_topic_names.count)) {
        member_set_topics(NULL, hb_proposed(h), req->subscribed_topic_names.items,
                          req->subscribed_topic_names.count);
        h->sub_changed = true;
    }
    hb_update_regex(h);
    hb_update_str(h, offsetof(cs_member_t, client_id),
                  h->ctx->client_id.len >= 0 ? h->ctx->client_id : kc_str(""));
    hb_update_str(h, offsetof(cs_member_t, client_host),
                  kc_str(h->ctx->client_host ? h->ctx->client_host : ""));
    bool assignor_changed = false;
    if (h->nm) {
        char *assignor_before = kc_xstrdup(group_assignor(h->c, g));
        h->m = write_member_metadata(h->c, g, h->nm, h->res);
        assignor_changed = h->m && strcmp(assignor_before, group_assignor(h->c, g)) != 0;
        free(assignor_before);
        member_free(h->nm);
        h->nm = NULL;
    }
    if (is_new && h->m)
        hb_member_joined(h);
    return assignor_changed;
}

/* The group epoch, bumped by a subscription or assignor change, or by a
 * change of the subscribed topics' metadata, looked at (as Kafka's
 * updateSubscriptionMetadata) when one of those changed or a topic changed
 * since the last look (Kafka's metadata refresh); a new regex waits for
 * its resolution, which bumps the epoch itself. Then
 * updateTargetAssignmentIfNeeded. */
static void hb_update_group(cs_heartbeat_t *h, bool assignor_changed)
{
    kc_coord_t *c = h->c;
    cs_group_t *g = h->g;
    bool subscription = h->sub_changed || h->regex_resolved;
    bool look = subscription || assignor_changed || !g->has_group_record ||
                g->hash_checked_version != c->topics_version;
    int64_t hash = look ? group_metadata_hash(c, g) : g->metadata_hash;
    g->hash_checked_version = c->topics_version;
    if (subscription || assignor_changed || hash != g->metadata_hash)
        bump_group_epoch(c, g, hash,
                         subscription       ? "member subscription changed"
                         : assignor_changed ? "preferred server assignor changed"
                                            : "subscribed topics metadata changed",
                         h->ctx->now_ms, h->res);
    maybe_refresh_regexes(c, g, h->regex_is_new, h->ctx->now_ms);
    if (g->group_epoch > g->assignment_epoch)
        update_target_assignment(c, g, h->ctx->now_ms, h->res);
}

/* maybeReconcile: the member towards its target, then its rebalance and
 * session timeouts (scheduleConsumerGroupSessionTimeout /
 * RebalanceTimeout). Returns whether its assigned partitions changed. */
static bool hb_reconcile(cs_heartbeat_t *h)
{
    cs_group_t *g = h->g;
    cs_member_t *m = h->m;
    bool assigned_changed;
    if (reconcile(h->c, g, m, h->owned, &assigned_changed, h->res)) {
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Member %s new assignment state: epoch=%d, previousEpoch=%d, "
                    "state=%s, assignedPartitions=%lld, partitionsPendingRevocation=%lld.",
                    g->group_id, m->member_id, m->member_epoch, m->previous_member_epoch,
                    member_state_name(m->state), (long long)kc_asg_count(&m->assigned),
                    (long long)kc_asg_count(&m->pending));
        if (m->state == MS_UNREVOKED_PARTITIONS) {
            schedule_rebalance(h->c, g, m, h->ctx->now_ms);
        } else {
            kc_member_cancel_rebalance(h->c, kc_modern_group_id(&g->base), m->member_id);
        }
    }
    schedule_session(h->c, g, m, h->ctx->now_ms);
    return assigned_changed;
}

/* The answer: the member's id and epoch, and its assignment when it joined,
 * sent a full request, or its assigned partitions changed. */
static void hb_respond(cs_heartbeat_t *h, size_t first_record, bool assigned_changed)
{
    const kc_consumer_group_heartbeat_request_t *req = h->req;
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_heartbeat_response_t r;
    kc_consumer_group_heartbeat_response_init(&r);
    r.member_id = kc_str(h->m->member_id);
    r.member_epoch = h->m->member_epoch;
    r.heartbeat_interval_ms = kc_coord_group_cfg(h->c, h->g->group_id)->group_consumer_heartbeat_interval_ms;
    bool full = req->rebalance_timeout_ms != -1 &&
                (req->subscribed_topic_names.count >= 0 || req->subscribed_topic_regex.len >= 0) &&
                req->topic_partitions.count >= 0;
    if (h->epoch == 0 || full || assigned_changed)
        r.assignment = response_assignment(&h->m->assigned, &arena);
    if (h->res->nrecords > first_record)
        note_state(h->g);
    send_hb(h->res, h->ctx, &r, kc_result_wrote_since(h->res, first_record));
    kc_arena_deinit(&arena);
}

void kc_coord_consumer_group_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                       const kc_consumer_group_heartbeat_request_t *req,
                                       kc_result_t *res)
{
    char msg[MSG_MAX];
    cs_heartbeat_t h = {.c = c, .ctx = ctx, .req = req, .res = res, .msg = msg,
                        .epoch = req->member_epoch,
                        .owned = {req->topic_partitions.items, req->topic_partitions.count}};
    int16_t err = validate_request(c, ctx, req, msg, sizeof(msg));
    if (err) {
        send_hb_error(res, ctx, err, h.msg);
        return;
    }
    if (!c->loaded) {
        send_hb_error(res, ctx, KC_ERR_COORDINATOR_LOAD_IN_PROGRESS, NULL);
        return;
    }
    if (req->member_epoch == EPOCH_LEAVE || req->member_epoch == EPOCH_STATIC_LEAVE) {
        heartbeat_leave(c, ctx, req, res);
        return;
    }
    size_t first_record = res->nrecords;
    if ((err = hb_find_group(&h)) != KC_ERR_NONE || (err = hb_find_member(&h)) != KC_ERR_NONE ||
        (err = hb_check_regex(&h)) != KC_ERR_NONE) {
        send_hb_error(res, ctx, err, h.msg);
        return;
    }
    hb_create_member(&h);
    bool assignor_changed = hb_update_member(&h);
    if (!h.m) { /* its record could not be written (res is failed) */
        send_hb_error(res, ctx, KC_COORD_ERR_WRITE_FAILED, NULL);
        return;
    }
    hb_update_group(&h, assignor_changed);
    bool assigned_changed = hb_reconcile(&h);
    hb_respond(&h, first_record, assigned_changed);
}

/* ---- ConsumerGroupDescribe ----------------------------------------------------- */

typedef kc_consumer_group_describe_response_topic_partitions_t desc_tp_t;

/* A member's assignment or target as ConsumerGroupDescribe gives it: the
 * partitions of a (then those of also, partitions pending revocation that
 * the member still holds, appended after a's of the same topic, as Kafka's
 * asConsumerGroupDescribeMember accumulates them); topics the topic view
 * no longer knows are left out. */
static void describe_assignment2(kc_coord_t *c, const kc_asg_t *a, const kc_asg_t *also,
                                 kc_consumer_group_describe_response_assignment_t *out,
                                 kc_arena_t *arena)
{
    int32_t nb = also ? also->n : 0;
    out->topic_partitions.items =
        kc_arena_alloc(arena, sizeof(desc_tp_t) * (size_t)(a->n + nb + 1));
    out->topic_partitions.count = 0;
    for (int32_t pass = 0; pass < 2; pass++) {
        const kc_asg_t *src = pass == 0 ? a : also;
        for (int32_t i = 0; src && i < src->n; i++) {
            const kc_asg_topic_t *first = pass == 0 ? &src->t[i] : kc_asg_find(a, src->t[i].topic_id);
            if (pass == 1 && first && first->n > 0)
                continue; /* merged into the topic's entry in the first pass */
            const kc_asg_topic_t *more = pass == 0 && also ? kc_asg_find(also, src->t[i].topic_id)
                                                          : NULL;
            int32_t n = src->t[i].n + (more ? more->n : 0);
            if (n == 0)
                continue;
            kc_str_t name = kc_str("");
            if (c->topics.topic_id_to_name &&
                !c->topics.topic_id_to_name(c->topics.ctx, src->t[i].topic_id, &name))
                continue;
            if (name.len < 0)
                name = kc_str("");
            desc_tp_t *tp = &out->topic_partitions.items[out->topic_partitions.count++];
            memset(tp, 0, sizeof(*tp));
            tp->topic_id = src->t[i].topic_id;
            tp->topic_name = name;
            int32_t *p = kc_arena_alloc(arena, sizeof(*p) * (size_t)(n + 1));
            memcpy(p, kc_cs_java_int_set_order(src->t[i].p, src->t[i].n, arena),
                   sizeof(*p) * (size_t)src->t[i].n);
            if (more)
                memcpy(p + src->t[i].n, kc_cs_java_int_set_order(more->p, more->n, arena),
                       sizeof(*p) * (size_t)more->n);
            tp->partitions.items = p;
            tp->partitions.count = n;
        }
    }
}

static void describe_assignment(kc_coord_t *c, const kc_asg_t *a,
                                kc_consumer_group_describe_response_assignment_t *out,
                                kc_arena_t *arena)
{
    describe_assignment2(c, a, NULL, out, arena);
}

static bool assignment_describable(const kc_request_ctx_t *ctx,
                                   const kc_consumer_group_describe_response_assignment_t *a)
{
    for (int32_t i = 0; i < a->topic_partitions.count; i++)
        if (!kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_TOPIC,
                                   a->topic_partitions.items[i].topic_name))
            return false;
    return true;
}

static bool assignments_describable(const kc_request_ctx_t *ctx,
                                    const kc_consumer_group_describe_response_described_group_t *dg)
{
    for (int32_t j = 0; j < dg->members.count; j++)
        if (!assignment_describable(ctx, &dg->members.items[j].assignment) ||
            !assignment_describable(ctx, &dg->members.items[j].target_assignment))
            return false;
    return true;
}

void kc_coord_consumer_group_describe(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                      const kc_consumer_group_describe_request_t *req,
                                      kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_consumer_group_describe_response_t r;
    kc_consumer_group_describe_response_init(&r);
    int32_t n = req->group_ids.count > 0 ? req->group_ids.count : 0;
    r.groups.items = kc_arena_alloc(&arena, sizeof(*r.groups.items) * (size_t)(n + 1));
    r.groups.count = n;
    for (int32_t i = 0; i < n; i++) {
        kc_consumer_group_describe_response_described_group_t *dg = &r.groups.items[i];
        memset(dg, 0, sizeof(*dg));
        dg->group_id = req->group_ids.items[i];
        dg->group_state = kc_str("");
        dg->assignor_name = kc_str("");
        dg->error_message = KC_STR_NULL;
        dg->authorized_operations = INT32_MIN;
        dg->members.count = 0;
        kc_str_t gid = req->group_ids.items[i];
        cs_group_t *g = NULL;
        /* KafkaApis.handleConsumerGroupDescribe: DESCRIBE on the group. */
        if (!kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_GROUP, gid)) {
            dg->error_code = KC_ERR_GROUP_AUTHORIZATION_FAILED;
            continue;
        }
        /* GroupCoordinatorService.consumerGroupDescribe: an empty id is
         * INVALID_GROUP_ID, without a message. */
        if (gid.len <= 0) {
            dg->error_code = KC_ERR_INVALID_GROUP_ID;
            continue;
        }
        if (!c->loaded) {
            dg->error_code = KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
            continue;
        }
        if (gid.len >= 0)
            g = group_get(c, gid.ptr ? gid.ptr : "", (size_t)gid.len);
        if (!g) {
            dg->error_code = KC_ERR_GROUP_ID_NOT_FOUND;
            char *m = kc_arena_alloc(&arena, MSG_MAX);
            /* GroupMetadataManager.consumerGroup: another type is named. */
            bool classic = kc_group_get(c, gid) != NULL;
            snprintf(m, MSG_MAX,
                     classic ? "Group %.*s is not a consumer group." : "Group %.*s not found.",
                     gid.len > 0 ? (int)gid.len : 0, gid.ptr ? gid.ptr : "");
            dg->error_message = kc_str(m);
            continue;
        }
        dg->group_state = kc_str(group_state_name(g));
        dg->group_epoch = g->group_epoch;
        dg->assignment_epoch = g->assignment_epoch;
        dg->assignor_name = kc_str(group_assignor(c, g));
        if (req->include_authorized_operations)
            dg->authorized_operations = kc_request_authorized_ops(
                ctx, KC_RES_GROUP, gid, (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11));
        dg->members.items = kc_arena_alloc(&arena, sizeof(*dg->members.items) * (g->members.n + 1));
        dg->members.count = (int32_t)g->members.n;
        size_t *order = kc_arena_alloc(&arena, sizeof(*order) * (g->members.n + 1));
        timeline_member_order(g, order);
        for (size_t j = 0; j < g->members.n; j++) {
            const cs_member_t *m = cs_member_at(g, order[j]);
            kc_consumer_group_describe_response_member_t *dm = &dg->members.items[j];
            memset(dm, 0, sizeof(*dm));
            dm->member_id = kc_str(m->member_id);
            dm->instance_id = kc_str(m->instance_id);
            dm->rack_id = kc_str(m->rack_id);
            dm->member_epoch = m->member_epoch;
            dm->client_id = kc_str(m->client_id);
            dm->client_host = kc_str(m->client_host);
            dm->subscribed_topic_names.items =
                kc_arena_alloc(&arena, sizeof(kc_str_t) * (size_t)(m->ntopics + 1));
            dm->subscribed_topic_names.count = m->ntopics;
            for (int32_t t = 0; t < m->ntopics; t++)
                dm->subscribed_topic_names.items[t] = kc_str(m->topics[t]);
            java_hash_set_order(dm->subscribed_topic_names.items, m->ntopics);
            dm->subscribed_topic_regex = kc_str(m->regex ? m->regex : "");
            describe_assignment2(c, &m->assigned, &m->pending, &dm->assignment, &arena);
            describe_assignment(c, &m->target, &dm->target_assignment, &arena);
            dm->member_type = m->classic ? 0 : 1; /* classic or consumer protocol */
        }
        /* With an authorizer, a group whose members hold a topic the client
         * may not describe is not shown (KafkaApis.handleConsumerGroupDescribe). */
        if (ctx->authorize && !assignments_describable(ctx, dg)) {
            dg->error_code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
            dg->error_message = kc_str("The group has described topic(s) that the client is not "
                                       "authorized to describe.");
            dg->members.count = 0;
        }
    }
    kc_result_respond(res, ctx, &r, NULL);
    kc_arena_deinit(&arena);
}

/* ---- replay ------------------------------------------------------------------------ */

static cs_group_t *replay_group(kc_coord_t *c, kc_str_t id)
{
    cs_group_t *g = group_get(c, id.ptr ? id.ptr : "", (size_t)id.len);
    if (g)
        return g;
    /* Offsets replayed before the group's records made a simple classic
     * group; it has no record and gives way, the consumer group taking its
     * place in the groups table (getOrMaybeCreatePersistedConsumerGroup). */
    uint64_t seq = kc_classic_group_drop_simple(c, id);
    return group_new(c, id.ptr ? id.ptr : "", (size_t)id.len, seq);
}

static cs_member_t *replay_member(cs_group_t *g, kc_str_t id)
{
    cs_member_t *m = member_get(g, id.ptr ? id.ptr : "", (size_t)id.len);
    if (!m) {
        m = member_new(id);
        group_add_member(g, m);
    }
    return m;
}

/* Record 8's partitions of one kind with their assignment epochs: each
 * topic's own when it has one per partition, else dflt (a record written
 * before KIP-1251 has none; ConsumerGroupMember.updateWith). */
static void asg_from_tps(const cs_group_t *g, kc_asg_t *a, const cur_tp_t *tps, int32_t n,
                         int32_t dflt)
{
    for (int32_t i = 0; i < n; i++)
        kc_asg_add_all(a, tps[i].topic_id, tps[i].partitions.items, tps[i].partitions.count);
    kc_asg_epochs_fill(a, dflt);
    for (int32_t i = 0; i < n; i++) {
        const kc_int32_array_t *ps = &tps[i].partitions, *es = &tps[i].assignment_epochs;
        if (es->count >= 0 && es->count == ps->count)
            kc_asg_epochs_put(a, tps[i].topic_id, ps->items, es->items, ps->count);
        else if (es->count >= 0)
            kc_log_error(LOG_COMP,
                         "[GroupId %s] Size of assignment epochs %d is not equal to partitions %d "
                         "of a topic. Using default epoch %d for all its partitions.",
                         g->group_id, es->count, ps->count > 0 ? ps->count : 0, dflt);
    }
}

/* What every apply step below gets (modern/replay.h): the coordinator, the
 * record's group (a cs_group_t, NULL when none yet) and ids, and its value
 * (r after the version; NULL for a tombstone). Each returns 0 or KC_EINVAL
 * for a value it cannot decode. */
typedef kc_modern_record_t cs_apply_t;

/* ConsumerGroupRegularExpression (type 16): a regex's resolved topics. */
static int apply_regex(const cs_apply_t *a)
{
    char *regex = kc_str_dup_or_null(a->mid);
    if (!a->r) {
        if (a->g)
            resolved_set(a->g, regex, NULL);
        free(regex);
        return 0;
    }
    kc_consumer_group_regular_expression_value_t v;
    if (KC_MODERN_VALUE(a, kc_consumer_group_regular_expression_value, v) != 0) {
        free(regex);
        return KC_EINVAL;
    }
    cs_group_t *g = replay_group(a->c, a->gid);
    cs_resolved_t *rr = kc_xcalloc(1, sizeof(*rr));
    rr->version = v.version;
    rr->timestamp_ms = v.timestamp;
    int32_t n = v.topics.count > 0 ? v.topics.count : 0;
    rr->topics = kc_xcalloc((size_t)n + 1, sizeof(*rr->topics));
    for (int32_t i = 0; i < n; i++)
        if (v.topics.items[i].len >= 0)
            rr->topics[rr->n++] = kc_str_dup_or_null(v.topics.items[i]);
    qsort(rr->topics, (size_t)rr->n, sizeof(*rr->topics), cmp_cstr);
    int32_t w = 0;
    for (int32_t i = 0; i < rr->n; i++) {
        if (w > 0 && strcmp(rr->topics[w - 1], rr->topics[i]) == 0) {
            free(rr->topics[i]);
            continue;
        }
        rr->topics[w++] = rr->topics[i];
    }
    rr->n = w;
    if (v.version > a->c->topics_version)
        a->c->topics_version = v.version;
    resolved_set(g, regex, rr);
    free(regex);
    return 0;
}

/* ConsumerGroupMetadata (type 3): the group epoch and metadata hash; its
 * tombstone removes the group. */
static int apply_group_metadata(const cs_apply_t *a)
{
    cs_group_t *g = a->g;
    if (!a->r) {
        if (g) {
            kc_modern_group_remove(a->c, &g->modern);
            group_free(g);
        }
        return 0;
    }
    kc_consumer_group_metadata_value_t v;
    if (KC_MODERN_VALUE(a, kc_consumer_group_metadata_value, v) != 0)
        return KC_EINVAL;
    g = replay_group(a->c, a->gid);
    kc_modern_group_replay_metadata(&g->modern, v.epoch, v.metadata_hash);
    return 0;
}

/* ConsumerGroupTargetAssignmentMetadata (type 6): the assignment epoch. */
static int apply_target_metadata(const cs_apply_t *a)
{
    if (!a->r)
        return 0;
    kc_consumer_group_target_assignment_metadata_value_t v;
    if (KC_MODERN_VALUE(a, kc_consumer_group_target_assignment_metadata_value, v) != 0)
        return KC_EINVAL;
    replay_group(a->c, a->gid)->assignment_epoch = v.assignment_epoch;
    return 0;
}

/* The classic side of a member (ClassicMemberMetadata), NULL for a
 * consumer-protocol member. */
static kc_cs_classic_t *classic_from_record(
    const kc_consumer_group_member_metadata_value_classic_member_metadata_t *cm)
{
    if (!cm)
        return NULL;
    int32_t np = cm->supported_protocols.count > 0 ? cm->supported_protocols.count : 0;
    kc_cs_classic_t *cl = kc_xcalloc(1, sizeof(*cl));
    cl->session_timeout_ms = cm->session_timeout_ms;
    cl->protocols = kc_xcalloc((size_t)np + 1, sizeof(*cl->protocols));
    for (int32_t i = 0; i < np; i++) {
        kc_group_protocol_t *gp = &cl->protocols[cl->nprotocols++];
        kc_str_t name = cm->supported_protocols.items[i].name;
        kc_bytes_t md = cm->supported_protocols.items[i].metadata;
        gp->name = kc_str_dup_or_null(name.len >= 0 ? name : kc_str(""));
        gp->metadata_len = md.len > 0 ? md.len : 0;
        gp->metadata = kc_xmalloc((size_t)gp->metadata_len + 1);
        if (gp->metadata_len)
            memcpy(gp->metadata, md.ptr, (size_t)gp->metadata_len);
    }
    return cl;
}

/* ConsumerGroupMemberMetadata (type 5): the member's subscription and
 * client; its tombstone removes the member. */
static int apply_member_metadata(const cs_apply_t *a)
{
    if (!a->r) {
        cs_member_t *m = a->g ? member_get(a->g, a->mid.ptr ? a->mid.ptr : "", (size_t)a->mid.len)
                              : NULL;
        if (m)
            group_remove_member(a->g, m);
        return 0;
    }
    kc_consumer_group_member_metadata_value_t v;
    if (KC_MODERN_VALUE(a, kc_consumer_group_member_metadata_value, v) != 0)
        return KC_EINVAL;
    cs_group_t *g = replay_group(a->c, a->gid);
    cs_member_t *m = replay_member(g, a->mid);
    char *instance_id = kc_str_dup_or_null(v.instance_id);
    member_set_instance_id(g, m, instance_id);
    free(instance_id);
    kc_modern_member_replay_metadata(&m->modern, v.rack_id, v.client_id, v.client_host,
                                     v.rebalance_timeout_ms);
    /* The subscription is counted in the group: uncount the old one. */
    topic_refs_update(g, m, -1);
    member_set_topics(NULL, m, v.subscribed_topic_names.items,
                      v.subscribed_topic_names.count > 0 ? v.subscribed_topic_names.count : 0);
    free(m->regex);
    m->regex = v.subscribed_topic_regex.len > 0 ? kc_str_dup_or_null(v.subscribed_topic_regex) : NULL;
    m->subs_version = 0;
    free(m->server_assignor);
    m->server_assignor = kc_str_dup_or_null(v.server_assignor);
    topic_refs_update(g, m, +1);
    kc_cs_classic_free(m->classic);
    m->classic = classic_from_record(v.classic_member_metadata);
    return 0;
}

/* ConsumerGroupTargetAssignmentMember (type 7): the member's target. */
static int apply_target_member(const cs_apply_t *a)
{
    cs_member_t *m =
        a->g ? member_get(a->g, a->mid.ptr ? a->mid.ptr : "", (size_t)a->mid.len) : NULL;
    if (!a->r) {
        if (m)
            kc_asg_free(&m->target);
        return 0;
    }
    kc_consumer_group_target_assignment_member_value_t v;
    if (KC_MODERN_VALUE(a, kc_consumer_group_target_assignment_member_value, v) != 0)
        return KC_EINVAL;
    m = replay_member(replay_group(a->c, a->gid), a->mid);
    kc_asg_free(&m->target);
    for (int32_t i = 0; i < v.topic_partitions.count; i++)
        kc_asg_add_all(&m->target, v.topic_partitions.items[i].topic_id,
                       v.topic_partitions.items[i].partitions.items,
                       v.topic_partitions.items[i].partitions.count);
    return 0;
}

/* ConsumerGroupCurrentMemberAssignment (type 8): the member's epochs,
 * state and owned partitions. */
static int apply_current_assignment(const cs_apply_t *a)
{
    cs_member_t *m =
        a->g ? member_get(a->g, a->mid.ptr ? a->mid.ptr : "", (size_t)a->mid.len) : NULL;
    kc_asg_t assigned = {0}, pending = {0};
    if (!a->r) {
        if (m)
            member_set_current(a->g, m, 0, 0, MS_STABLE, &assigned, &pending);
        return 0;
    }
    kc_consumer_group_current_member_assignment_value_t v;
    if (KC_MODERN_VALUE(a, kc_consumer_group_current_member_assignment_value, v) != 0)
        return KC_EINVAL;
    cs_group_t *g = replay_group(a->c, a->gid);
    m = replay_member(g, a->mid);
    /* A static member that left (epoch -2) falls back to 0. */
    int32_t dflt = v.member_epoch > 0 ? v.member_epoch : 0;
    asg_from_tps(g, &assigned, v.assigned_partitions.items,
                 v.assigned_partitions.count > 0 ? v.assigned_partitions.count : 0, dflt);
    asg_from_tps(g, &pending, v.partitions_pending_revocation.items,
                 v.partitions_pending_revocation.count > 0 ? v.partitions_pending_revocation.count
                                                           : 0,
                 dflt);
    member_set_current(g, m, v.member_epoch, v.previous_member_epoch, v.state, &assigned,
                       &pending);
    return 0;
}

static const kc_modern_apply_step_t apply_steps[] = {
    {KC_RECORD_CONSUMER_GROUP_REGULAR_EXPRESSION, apply_regex},
    {KC_RECORD_CONSUMER_GROUP_METADATA, apply_group_metadata},
    {KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, apply_target_metadata},
    {KC_RECORD_CONSUMER_GROUP_MEMBER_METADATA, apply_member_metadata},
    {KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, apply_target_member},
    {KC_RECORD_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, apply_current_assignment},
};

int kc_consumer_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                       size_t value_len, const void *msg)
{
    return kc_modern_replay(c, KC_GROUP_CONSUMER, key, key_len, value, value_len, msg,
                            apply_steps, KC_ARRAY_LEN(apply_steps));
}

void kc_consumer_loaded(kc_coord_t *c, int64_t now_ms)
{
    /* As Kafka's first metadata image after a load: newer than every
     * replayed resolution, so each regex group refreshes on its next
     * heartbeat (once the minimum interval has passed). */
    c->topics_version++;
    c->new_topics_version = c->topics_version;
    size_t n;
    kc_group_t **gs = kc_groups_list(c, KC_GROUP_CONSUMER, &n);
    for (size_t i = 0; i < n; i++) {
        cs_group_t *g = (cs_group_t *)gs[i];
        g->last_state = group_state_name(g);
        for (size_t j = 0; j < g->members.n; j++) {
            cs_member_t *m = cs_member_at(g, j);
            schedule_session(c, g, m, now_ms);
            if (m->state == MS_UNREVOKED_PARTITIONS)
                schedule_rebalance(c, g, m, now_ms);
        }
    }
    free(gs);
}

void kc_consumer_unload_all(kc_coord_t *c)
{
    kc_modern_groups_unload(c, KC_GROUP_CONSUMER, group_free_base);
}

/* ---- views for other modules ------------------------------------------------------ */

kc_consumer_group_t *kc_consumer_group_find(kc_coord_t *c, kc_str_t group_id)
{
    if (group_id.len < 0)
        return NULL;
    return group_get(c, group_id.ptr ? group_id.ptr : "", (size_t)group_id.len);
}

bool kc_consumer_group_is_empty(const kc_consumer_group_t *g) { return g->members.n == 0; }

bool kc_consumer_group_is_subscribed_to(const kc_consumer_group_t *g, kc_str_t topic)
{
    return topic.len >= 0 &&
           kc_smap_get(&g->topic_refs, topic.ptr ? topic.ptr : "", (size_t)topic.len) != NULL;
}

static void collect_regex(void *arg, const char *regex, void *val)
{
    (void)val;
    name_list_t *l = arg;
    collect_name(l, kc_str(regex));
}

void kc_consumer_group_delete(kc_coord_t *c, kc_consumer_group_t *g, kc_result_t *res)
{
    /* ConsumerGroup.createGroupTombstoneRecords: the members' records
     * (none for an Empty group), the target assignment metadata, the
     * regexes' resolutions, the subscription metadata (type 4, which kcoord
     * never writes but Kafka tombstones) and the group epoch last, whose
     * apply removes the group. */
    char key[KEY_BUF];
    regex_key(key, sizeof(key), kc_modern_group_id(&g->base));
    kc_timer_cancel(c, key);
    kc_log_info(LOG_COMP, "[GroupId %s] Consumer group transitioned from %s to Dead (group epoch %d).",
                g->group_id, group_state_name(g), g->group_epoch);
    while (g->members.n > 0) {
        const char *member_id = cs_member_at(g, 0)->member_id;
        cancel_member_timers(c, g, member_id);
        write_member_tombstones(c, g, member_id, res);
        if (res->failed)
            return;
    }
    name_list_t regexes = {0};
    kc_smap_foreach(&g->resolved, collect_regex, &regexes);
    kc_record_key_t rkey = kc_record_group_key(kc_modern_group_id(&g->base));
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, &rkey,
                           REC_VERSION, NULL);
    for (int32_t i = 0; i < regexes.n; i++) {
        write_regex(c, g, regexes.names[i], NULL, res);
        free(regexes.names[i]);
    }
    free(regexes.names);
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_PARTITION_METADATA, &rkey, REC_VERSION,
                           NULL);
    /* the key's, g goes with the tombstone */
    char *group_id = kc_xstrndup(g->group_id, g->group_id_len);
    rkey = kc_record_group_key((kc_str_t){group_id, (int32_t)g->group_id_len});
    kc_record_write_replay(c, res, KC_RECORD_CONSUMER_GROUP_METADATA, &rkey, REC_VERSION, NULL);
    free(group_id);
}

/* createAssignmentEpochValidator: a partition of the commit must be
 * assigned to the member or pending its revocation, at an epoch no newer
 * than the commit's; else the whole commit is STALE_MEMBER_EPOCH
 * (ILLEGAL_GENERATION for a classic member). */
static int16_t check_partition_epoch(const kc_commit_validator_t *v, kc_str_t topic,
                                     kc_uuid_t topic_id, int32_t partition)
{
    const cs_member_t *m = v->member;
    int32_t epoch = 0;
    bool held = kc_asg_epoch(&m->assigned, topic_id, partition, &epoch) ||
                kc_asg_epoch(&m->pending, topic_id, partition, &epoch);
    int16_t err = kc_modern_commit_partition_epoch(v, held, epoch, "partition", topic, partition);
    return err == KC_ERR_STALE_MEMBER_EPOCH && m->classic ? KC_ERR_ILLEGAL_GENERATION : err;
}

int16_t kc_consumer_group_validate_offset_commit(kc_consumer_group_t *g, kc_str_t member_id,
                                                 kc_str_t group_instance_id, int32_t member_epoch,
                                                 bool transactional, int16_t api_version,
                                                 kc_commit_validator_t *v)
{
    if (member_epoch < 0 && g->members.n == 0)
        return KC_ERR_NONE;
    /* TxnOffsetCommit checks the member only when it names one. */
    if (transactional && member_epoch == -1 && member_id.len <= 0 && group_instance_id.len < 0)
        return KC_ERR_NONE;
    cs_member_t *m = member_id.len > 0 ? member_get(g, member_id.ptr, (size_t)member_id.len) : NULL;
    if (!m)
        return KC_ERR_UNKNOWN_MEMBER_ID;
    if (!transactional && !m->classic && api_version < 9)
        return KC_ERR_UNSUPPORTED_VERSION;
    int16_t err = kc_modern_validate_commit_epoch(&g->base, &m->modern, member_epoch,
                                                  check_partition_epoch, v);
    return err == KC_ERR_STALE_MEMBER_EPOCH && m->classic ? KC_ERR_ILLEGAL_GENERATION : err;
}


/* ---- the group abstraction (groups.h) ---------------------------------------------- */

static cs_group_t *consumer_of(const kc_group_t *g) { return (cs_group_t *)g; }

static const char *consumer_state_name(const kc_group_t *g)
{
    return group_state_name(consumer_of(g));
}

static void consumer_delete(kc_coord_t *c, kc_group_t *base, int64_t now_ms, const char *reason,
                            kc_result_t *res)
{
    cs_group_t *g = consumer_of(base);
    kc_coord_emit(c, KC_COORD_EV_GROUP_DELETED, g->group_id, NULL, reason, g->group_epoch, 0,
                  now_ms);
    kc_consumer_group_delete(c, g, res);
}

static int16_t consumer_validate_offset_commit(kc_coord_t *c, kc_group_t *g,
                                               const kc_offset_commit_args_t *a,
                                               kc_commit_validator_t *v)
{
    (void)c;
    return kc_consumer_group_validate_offset_commit(consumer_of(g), a->member_id,
                                                    a->group_instance_id,
                                                    a->generation_id_or_member_epoch,
                                                    a->transactional, a->api_version, v);
}

static bool consumer_is_subscribed_to_topic(const kc_group_t *g, kc_str_t topic)
{
    return kc_consumer_group_is_subscribed_to(consumer_of(g), topic);
}

static void consumer_maybe_delete_expired(kc_coord_t *c, kc_group_t *base, int64_t now_ms,
                                          kc_result_t *res)
{
    cs_group_t *g = consumer_of(base);
    if (g->members.n != 0 || kc_offsets_group_has_offsets(c, kc_str(g->group_id)))
        return;
    kc_log_info(LOG_COMP, "[GroupId %s] Consumer group is empty and all its offsets expired: deleting it.",
                g->group_id);
    consumer_delete(c, base, now_ms, "offsets expired", res);
}

/* ConsumerGroup.validateOffsetFetch: a classic member's stale epoch is an
 * illegal generation. */
static int16_t consumer_validate_offset_fetch(const kc_group_t *g, kc_str_t member_id,
                                              int32_t member_epoch, int16_t api_version)
{
    const kc_modern_member_t *m;
    int16_t err = kc_modern_group_validate_offset_fetch(g, member_id, member_epoch, api_version, &m);
    return err == KC_ERR_STALE_MEMBER_EPOCH && ((const cs_member_t *)m)->classic
               ? KC_ERR_ILLEGAL_GENERATION
               : err;
}

const kc_group_ops_t kc_consumer_group_ops = {
    .type = KC_GROUP_CONSUMER,
    .type_name = "consumer",
    .id = kc_modern_group_id,
    .state_name = consumer_state_name,
    .protocol_type = kc_modern_group_protocol_type,
    .table_seq = kc_modern_group_table_seq,
    .validate_delete = kc_modern_group_validate_delete,
    .delete = consumer_delete,
    .validate_offset_commit = consumer_validate_offset_commit,
    .validate_offset_fetch = consumer_validate_offset_fetch,
    .validate_offset_delete = kc_modern_group_validate_offset_delete,
    .offsets_expire = kc_modern_group_offsets_expire,
    .is_subscribed_to_topic = consumer_is_subscribed_to_topic,
    .maybe_delete_expired = consumer_maybe_delete_expired,
};

/* ---- read-only introspection (admin views) ------------------------------------- */

typedef struct {
    kc_topic_partitions_view_t *tps;
    char **names; /* NUL-terminated copies of the topic names */
    int32_t n;
} tp_views_t;

static void tp_views_fill(kc_coord_t *c, const kc_asg_t *a, tp_views_t *v)
{
    v->tps = kc_xcalloc((size_t)a->n + 1, sizeof(*v->tps));
    v->names = kc_xcalloc((size_t)a->n + 1, sizeof(*v->names));
    v->n = 0;
    for (int32_t i = 0; i < a->n; i++) {
        if (a->t[i].n == 0)
            continue;
        kc_str_t name = KC_STR_NULL;
        if (!c->topics.topic_id_to_name ||
            !c->topics.topic_id_to_name(c->topics.ctx, a->t[i].topic_id, &name))
            name = KC_STR_NULL;
        v->names[v->n] = name.len >= 0 ? kc_xstrndup(name.ptr ? name.ptr : "", (size_t)name.len) : NULL;
        v->tps[v->n] = (kc_topic_partitions_view_t){a->t[i].topic_id, v->names[v->n], a->t[i].p,
                                                     a->t[i].n};
        v->n++;
    }
}

static void tp_views_free(tp_views_t *v)
{
    for (int32_t i = 0; i < v->n; i++)
        free(v->names[i]);
    free(v->names);
    free(v->tps);
}

static void inspect_group(kc_coord_t *c, cs_group_t *g, kc_group_view_fn fn, void *arg)
{
    size_t n = g->members.n;
    kc_consumer_member_view_t *mv = kc_xcalloc(n + 1, sizeof(*mv));
    tp_views_t *views = kc_xcalloc(3 * n + 1, sizeof(*views));
    for (size_t i = 0; i < n; i++) {
        const cs_member_t *m = cs_member_at(g, i);
        tp_views_fill(c, &m->assigned, &views[3 * i]);
        tp_views_fill(c, &m->pending, &views[3 * i + 1]);
        tp_views_fill(c, &m->target, &views[3 * i + 2]);
        mv[i] = (kc_consumer_member_view_t){
            .member_id = m->member_id,
            .instance_id = m->instance_id,
            .rack_id = m->rack_id,
            .client_id = m->client_id,
            .client_host = m->client_host,
            .member_epoch = m->member_epoch,
            .previous_member_epoch = m->previous_member_epoch,
            .state = member_state_name(m->state),
            .rebalance_timeout_ms = m->rebalance_timeout_ms,
            .session_deadline_ms =
                kc_member_session_deadline(c, kc_modern_group_id(&g->base), m->member_id),
            .server_assignor = m->server_assignor,
            .subscribed_topics = (const char *const *)m->topics,
            .nsubscribed_topics = m->ntopics,
            .subscribed_regex = m->regex,
            .assigned = views[3 * i].tps,
            .nassigned = views[3 * i].n,
            .pending_revocation = views[3 * i + 1].tps,
            .npending_revocation = views[3 * i + 1].n,
            .target = views[3 * i + 2].tps,
            .ntarget = views[3 * i + 2].n,
        };
    }
    kc_group_view_t v = {
        .group_id = g->group_id,
        .type = "consumer",
        .state = group_state_name(g),
        .generation_id = g->group_epoch,
        .protocol_type = "consumer",
        .group_epoch = g->group_epoch,
        .assignment_epoch = g->assignment_epoch,
        .assignor = group_assignor(c, g),
        .consumer_members = mv,
        .nconsumer_members = n,
    };
    fn(arg, &v);
    for (size_t i = 0; i < 3 * n; i++)
        tp_views_free(&views[i]);
    free(views);
    free(mv);
}

void kc_consumer_inspect_all(kc_coord_t *c, kc_group_view_fn fn, void *arg)
{
    size_t n;
    kc_group_t **gs = kc_groups_list(c, KC_GROUP_CONSUMER, &n);
    for (size_t i = 0; i < n; i++)
        inspect_group(c, (cs_group_t *)gs[i], fn, arg);
    free(gs);
}

bool kc_consumer_inspect_one(kc_coord_t *c, kc_str_t group_id, kc_group_view_fn fn, void *arg)
{
    cs_group_t *g = kc_consumer_group_find(c, group_id);
    if (!g)
        return false;
    inspect_group(c, g, fn, arg);
    return true;
}

/* ---- services for the classic protocol interop (consumer_classic.c) ------------- */

cs_group_t *kc_cs_group_new(kc_coord_t *c, const char *group_id, size_t len)
{
    return group_new(c, group_id, len, 0);
}

cs_member_t *kc_cs_member_find(const cs_group_t *g, kc_str_t member_id)
{
    return (cs_member_t *)kc_modern_members_get(&g->members, member_id);
}

cs_member_t *kc_cs_static_member(const cs_group_t *g, kc_str_t instance_id)
{
    return (cs_member_t *)kc_modern_members_static(&g->members, instance_id);
}

cs_member_t *kc_cs_member_proposed(const cs_member_t *m, const char *member_id)
{
    return member_proposed(m, member_id, strlen(member_id));
}

void kc_cs_member_free(cs_member_t *m) { member_free(m); }

void kc_cs_member_set_topics(cs_member_t *m, const kc_str_t *names, int32_t n)
{
    member_set_topics(NULL, m, names, n);
}

bool kc_cs_member_topics_equal(const cs_member_t *m, const kc_str_t *names, int32_t n)
{
    return topics_equal(m, names, n);
}

void kc_cs_maybe_delete_regex(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                              const char *next_regex, kc_result_t *res)
{
    maybe_delete_regex(c, g, m, next_regex, res);
}

int32_t kc_cs_partition_epoch(cs_group_t *g, kc_uuid_t topic_id, int32_t partition)
{
    return partition_epoch(g, topic_id, partition);
}

int64_t kc_cs_metadata_hash(kc_coord_t *c, cs_group_t *g) { return group_metadata_hash(c, g); }

void kc_cs_bump_group_epoch(kc_coord_t *c, cs_group_t *g, int64_t hash, const char *reason,
                            int64_t now_ms, kc_result_t *res)
{
    bump_group_epoch(c, g, hash, reason, now_ms, res);
}

void kc_cs_note_state(cs_group_t *g) { note_state(g); }

void kc_cs_write_group_epoch(kc_coord_t *c, const cs_group_t *g, int32_t epoch, int64_t hash,
                             kc_result_t *res)
{
    write_group_epoch(c, g, epoch, hash, res);
}

cs_member_t *kc_cs_write_member_metadata(kc_coord_t *c, cs_group_t *g, const cs_member_t *m,
                                         kc_result_t *res)
{
    return write_member_metadata(c, g, m, res);
}

void kc_cs_write_target_member(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                               const kc_asg_t *a, kc_result_t *res)
{
    write_target_member(c, g, member_id, a, res);
}

void kc_cs_write_target_epoch(kc_coord_t *c, const cs_group_t *g, int32_t epoch, int64_t now_ms,
                              kc_result_t *res)
{
    write_target_epoch(c, g, epoch, now_ms, res);
}

void kc_cs_write_current(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                         const cs_current_t *cur, kc_result_t *res)
{
    write_current(c, g, member_id, cur, res);
}

void kc_cs_write_member_tombstones(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                                   kc_result_t *res)
{
    write_member_tombstones(c, g, member_id, res);
}

void kc_cs_update_target_assignment(kc_coord_t *c, cs_group_t *g, int64_t now_ms,
                                    kc_result_t *res)
{
    update_target_assignment(c, g, now_ms, res);
}

bool kc_cs_reconcile(kc_coord_t *c, cs_group_t *g, cs_member_t *m, const owned_tp_t *owned,
                     int32_t owned_count, kc_result_t *res)
{
    owned_t o = {owned, owned_count};
    bool assigned_changed;
    return reconcile(c, g, m, o, &assigned_changed, res);
}

void kc_cs_schedule_session(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                            int32_t timeout_ms, int64_t now_ms)
{
    kc_member_schedule_session(c, kc_modern_group_id(&g->base), m->member_id, timeout_ms, now_ms,
                               on_session_timeout);
}

void kc_cs_cancel_member_timers(kc_coord_t *c, const cs_group_t *g, const char *member_id)
{
    cancel_member_timers(c, g, member_id);
}
