/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KIP-1071 streams groups: StreamsGroupHeartbeat (join with epoch 0,
 * heartbeat, leave with -1, static leave with -2), StreamsGroupDescribe,
 * their records (types 17, 19-23) and replay, the topology (initialised by
 * the first joiner), the configured topology (partition counts from the
 * topic view, missing internal topics handed to the caller for creation),
 * session, rebalance and initial-rebalance-delay timers, the task offsets
 * and end offsets members report (memory only, shown by Describe), and the views the
 * offsets module, ListGroups, DescribeGroups and DeleteGroups need. Mirrors
 * Kafka's GroupMetadataManager.streamsGroupHeartbeat, StreamsGroup,
 * InternalTopicManager, TargetAssignmentBuilder and CurrentAssignmentBuilder
 * (streams package). What the records hold changes only by their apply
 * steps, run for every record written as at load (see "records").
 *
 * Not here: topology updates (INVALID_REQUEST as in Kafka), source topic
 * regexes (INVALID_REQUEST as in Kafka), warm-up
 * refinement of the target (AssignmentRefiner: warm-up lists are carried,
 * stored and reconciled but the assignor produces none), per-partition
 * assignment epochs for offset commits
 * (KIP-1251), the topology-description store (KIP-1331, which hooks in
 * through kc_coord_streams_group_find and kc_streams_group_* in coord.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "member_timers.h"
#include "replay.h"
#include "kc_log.h"
#include "streams_int.h"
#include "topology_desc.h"

#define LOG_COMP "group-coordinator"
/* The value version of every streams group record Kafka writes. */
#define REC_VERSION 0

/* StreamsGroupCurrentMemberAssignmentValue.State (MemberState) */
#define MS_STABLE 1
#define MS_UNREVOKED 2
#define MS_UNRELEASED 3

/* StreamsGroupHeartbeatResponse status codes */
#define ST_STALE_TOPOLOGY 0
#define ST_MISSING_SOURCE_TOPICS 1
#define ST_INCORRECTLY_PARTITIONED_TOPICS 2
#define ST_MISSING_INTERNAL_TOPICS 3
#define ST_SHUTDOWN_APPLICATION 4
#define ST_ASSIGNMENT_DELAYED 5

#define EPOCH_LEAVE (-1)
#define EPOCH_STATIC_LEAVE KC_MODERN_EPOCH_STATIC_LEAVE
#define MSG_MAX 512
#define KEY_BUF 1024

typedef kc_streams_group_heartbeat_request_task_ids_t req_tasks_t;
typedef kc_streams_group_topology_value_t topo_t;
typedef kc_streams_group_topology_value_subtopology_t topo_sub_t;

/* ---- groups and members ------------------------------------------------ */

typedef struct st_config st_config_t;
typedef struct kc_streams_group st_group_t;
static void group_drop_config(st_group_t *g);

static bool cstr_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool str_is(kc_str_t s, const char *c)
{
    if (s.len < 0 || !c)
        return s.len < 0 && !c;
    return kc_str_eq_cstr(s, c);
}

static st_group_t *group_get(kc_coord_t *c, kc_str_t id)
{
    return kc_group_get_typed(c, id, KC_GROUP_STREAMS);
}

static st_group_t *group_new(kc_coord_t *c, kc_str_t id)
{
    st_group_t *g = kc_xcalloc(1, sizeof(*g));
    kc_modern_group_init(c, &g->modern, &kc_streams_group_ops, id);
    /* A new group starts at epoch 1 with an empty target assignment of
     * epoch 1 (as Kafka 4.4's StreamsGroup): the first computed assignment
     * is epoch 2, and epoch 0 stays reserved for joining members. */
    g->group_epoch = 1;
    g->assignment_epoch = 1;
    g->validated_topology_epoch = -1;
    g->last_num_standby = -1;
    kc_topology_desc_state_init(&g->td);
    kc_buf_init(&g->topo_bytes);
    kc_arena_init(&g->topo_arena);
    kc_smap_init(&g->owners);
    g->table_seq = kc_groups_table_put(c, kc_modern_group_id(&g->base), 0);
    return g;
}

static void task_offsets_free(st_task_offsets_t *o)
{
    for (int32_t i = 0; i < o->n; i++)
        free(o->items[i].subtopology_id);
    free(o->items);
    o->items = NULL;
    o->n = 0;
}

static void member_free(st_member_t *m)
{
    if (!m)
        return;
    kc_modern_member_deinit(&m->modern);
    free(m->process_id);
    free(m->endpoint_host);
    for (int32_t i = 0; i < m->ntags; i++) {
        free(m->tag_keys[i]);
        free(m->tag_values[i]);
    }
    free(m->tag_keys);
    free(m->tag_values);
    kc_tasks_tuple_free(&m->assigned);
    kc_tasks_tuple_free(&m->pending);
    kc_tasks_tuple_free(&m->target);
    kc_tasks_tuple_free(&m->last_report);
    task_offsets_free(&m->task_offsets);
    task_offsets_free(&m->task_end_offsets);
    free(m);
}

static void free_owner(void *ctx, const char *key, void *val)
{
    (void)ctx;
    (void)key;
    st_owner_t *o = val;
    kc_int_map_free(&o->owner);
    free(o);
}

static void group_free(st_group_t *g)
{
    for (size_t i = 0; i < g->members.n; i++)
        member_free(st_member_at(g, i));
    kc_modern_group_deinit(&g->modern);
    kc_smap_foreach(&g->owners, free_owner, NULL);
    kc_smap_deinit(&g->owners);
    kc_buf_deinit(&g->topo_bytes);
    kc_arena_deinit(&g->topo_arena);
    group_drop_config(g);
    free(g->shutdown_member_id);
    free(g);
}

static void group_free_base(kc_group_t *g) { group_free((st_group_t *)g); }

static st_member_t *member_get(const st_group_t *g, kc_str_t id)
{
    return (st_member_t *)kc_modern_members_get(&g->members, id);
}

static st_member_t *member_new(kc_str_t id)
{
    st_member_t *m = kc_xcalloc(1, sizeof(*m));
    kc_modern_member_init(&m->modern, id);
    m->process_id = kc_xstrdup("");
    m->topology_epoch = -1;
    m->endpoint_port = -1;
    m->state = MS_STABLE;
    return m;
}

/* A new member of that id with src's record-19 fields (instance, rack,
 * client, process, timeout, topology epoch, endpoint, tags), copied: the
 * member a record 19 is built from (StreamsGroupMember.Builder). */
static st_member_t *member_proposed(kc_str_t id, const st_member_t *src)
{
    st_member_t *m = member_new(id);
    if (!src)
        return m;
    kc_modern_member_copy_metadata(&m->modern, &src->modern);
    free(m->process_id);
    m->process_id = kc_xstrdup(src->process_id);
    m->topology_epoch = src->topology_epoch;
    m->endpoint_host = src->endpoint_host ? kc_xstrdup(src->endpoint_host) : NULL;
    m->endpoint_port = src->endpoint_port;
    m->ntags = src->ntags;
    m->tag_keys = kc_xcalloc((size_t)m->ntags + 1, sizeof(char *));
    m->tag_values = kc_xcalloc((size_t)m->ntags + 1, sizeof(char *));
    for (int32_t i = 0; i < m->ntags; i++) {
        m->tag_keys[i] = kc_xstrdup(src->tag_keys[i]);
        m->tag_values[i] = kc_xstrdup(src->tag_values[i]);
    }
    return m;
}

/* -- active task owners -- */

static st_owner_t *owner_sub(st_group_t *g, const char *sub, bool create)
{
    st_owner_t *o = kc_smap_get(&g->owners, sub, strlen(sub));
    if (!o && create) {
        o = kc_xcalloc(1, sizeof(*o));
        kc_smap_put(&g->owners, sub, strlen(sub), o);
    }
    return o;
}

static st_member_t *active_owner(st_group_t *g, const char *sub, int32_t p)
{
    st_owner_t *o = owner_sub(g, sub, false);
    intptr_t owner;
    if (!o || !kc_int_map_get(&o->owner, p, &owner))
        return NULL;
    return (st_member_t *)owner;
}

static void owners_set(st_group_t *g, const kc_tasks_t *t, st_member_t *m, bool release)
{
    for (int32_t i = 0; i < t->n; i++) {
        st_owner_t *o = owner_sub(g, t->s[i].subtopology_id, !release);
        if (!o)
            continue;
        for (int32_t j = 0; j < t->s[i].n; j++) {
            int32_t p = t->s[i].p[j];
            intptr_t cur;
            if (!release)
                kc_int_map_put(&o->owner, p, (intptr_t)m);
            else if (kc_int_map_get(&o->owner, p, &cur) && (st_member_t *)cur == m)
                kc_int_map_remove(&o->owner, p);
        }
    }
}

/* A member's current assignment as its record 22 holds it: epochs, state,
 * the tasks it owns and those pending revocation. */
typedef struct {
    int32_t epoch, prev;
    int8_t state;
    kc_tasks_tuple_t assigned, pending;
} st_current_t;

/* A copy of the member's current assignment. */
static void current_of(const st_member_t *m, st_current_t *out)
{
    *out = (st_current_t){.epoch = m->member_epoch,
                          .prev = m->previous_member_epoch,
                          .state = m->state};
    kc_tasks_tuple_copy(&out->assigned, &m->assigned);
    kc_tasks_tuple_copy(&out->pending, &m->pending);
}

static void current_free(st_current_t *cur)
{
    kc_tasks_tuple_free(&cur->assigned);
    kc_tasks_tuple_free(&cur->pending);
}

/* dst, holding the tasks of src, takes src's assignment epochs. */
static void tasks_take_epochs(kc_tasks_t *dst, kc_tasks_t *src)
{
    free(dst->epochs);
    dst->epochs = src->epochs;
    src->epochs = NULL;
}

/* Replaces the member's epochs, state and tasks, keeping the active owners
 * in step. Takes ownership of cur's tasks (reset to empty). */
static void member_set_current(st_group_t *g, st_member_t *m, st_current_t *cur)
{
    m->member_epoch = cur->epoch;
    m->previous_member_epoch = cur->prev;
    m->state = cur->state;
    if (kc_tasks_tuple_equal(&m->assigned, &cur->assigned) &&
        kc_tasks_tuple_equal(&m->pending, &cur->pending)) {
        /* The same tasks (an epoch moving on): the owners stay; the active
         * tasks' assignment epochs may change. */
        tasks_take_epochs(&m->assigned.active, &cur->assigned.active);
        tasks_take_epochs(&m->pending.active, &cur->pending.active);
        kc_tasks_tuple_free(&cur->assigned);
        kc_tasks_tuple_free(&cur->pending);
        return;
    }
    owners_set(g, &m->assigned.active, m, true);
    owners_set(g, &m->pending.active, m, true);
    kc_tasks_tuple_free(&m->assigned);
    kc_tasks_tuple_free(&m->pending);
    m->assigned = cur->assigned;
    m->pending = cur->pending;
    memset(&cur->assigned, 0, sizeof(cur->assigned));
    memset(&cur->pending, 0, sizeof(cur->pending));
    owners_set(g, &m->assigned.active, m, false);
    owners_set(g, &m->pending.active, m, false);
}

static void group_add_member(st_group_t *g, st_member_t *m)
{
    kc_modern_members_add(&g->members, &m->modern);
}

/*
 * Kafka keeps a streams group's members in a TimelineHashMap: every record
 * 19 or 22 of a member is a put (a new key takes the next insertion number,
 * a replaced one keeps its own), a tombstone a removal. The table starts at
 * capacity 2 and doubles before a put that would bring it past three
 * quarters full, also when the put replaces an entry; it never shrinks.
 */
static void mtable_put(st_group_t *g, st_member_t *m)
{
    uint32_t cap = g->mtable_cap ? g->mtable_cap : 2;
    if (((uint64_t)g->mtable_size + 1) * 3 > (uint64_t)cap * 4 && cap < (1u << 30))
        cap *= 2;
    g->mtable_cap = cap;
    if (!m->table_seq) {
        m->table_seq = ++g->mtable_seq;
        g->mtable_size++;
    }
}

/* The slot of a member id in a table of cap entries: the top bits of its
 * Java hash times the 64-bit golden ratio (BaseHashTable.findSlot). */
static uint32_t mtable_slot(const char *member_id, uint32_t cap)
{
    unsigned bits = 0;
    while ((1u << bits) < cap)
        bits++;
    int64_t h = kc_java_string_hash(member_id, strlen(member_id));
    uint64_t prod = (uint64_t)h * UINT64_C(0x9E3779B97F4A7C15);
    return bits ? (uint32_t)(prod >> (64 - bits)) : 0;
}

typedef struct {
    const st_member_t *m;
    uint32_t slot;
} mtable_pos_t;

static int cmp_mtable_pos(const void *a, const void *b)
{
    const mtable_pos_t *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    /* The iterator hands out a slot's entries last first. */
    return x->m->table_seq > y->m->table_seq ? -1 : x->m->table_seq < y->m->table_seq;
}

/* The group's members in the order Kafka's members map iterates them
 * (slot by slot, each slot's entries newest first); caller frees. */
static const st_member_t **members_in_table_order(const st_group_t *g)
{
    uint32_t cap = g->mtable_cap ? g->mtable_cap : 2;
    mtable_pos_t *pos = kc_xcalloc(g->members.n + 1, sizeof(*pos));
    for (size_t i = 0; i < g->members.n; i++) {
        pos[i].m = st_member_at(g, i);
        pos[i].slot = mtable_slot(st_member_at(g, i)->member_id, cap);
    }
    qsort(pos, g->members.n, sizeof(*pos), cmp_mtable_pos);
    const st_member_t **out = kc_xcalloc(g->members.n + 1, sizeof(*out));
    for (size_t i = 0; i < g->members.n; i++)
        out[i] = pos[i].m;
    free(pos);
    return out;
}

static void group_remove_member(st_group_t *g, st_member_t *m)
{
    if (m->table_seq && g->mtable_size > 0)
        g->mtable_size--;
    owners_set(g, &m->assigned.active, m, true);
    owners_set(g, &m->pending.active, m, true);
    kc_modern_members_remove(&g->members, &m->modern);
    if (g->members.n == 0) {
        free(g->shutdown_member_id);
        g->shutdown_member_id = NULL;
    }
    member_free(m);
}

/* ---- group state ------------------------------------------------------- */

/* StreamsGroup.maybeUpdateGroupState, as the Describe/List APIs print it. */
static const char *group_state_name(const st_group_t *g)
{
    if (g->members.n == 0)
        return "Empty";
    if (!g->topology || g->topology->epoch != g->validated_topology_epoch)
        return "NotReady";
    if (g->group_epoch > g->assignment_epoch)
        return "Assigning";
    for (size_t i = 0; i < g->members.n; i++) {
        const st_member_t *m = st_member_at(g, i);
        if (m->state != MS_STABLE || m->member_epoch != g->assignment_epoch)
            return "Reconciling";
    }
    return "Stable";
}

/* One log line when the group's state changed since the last call. */
static void note_state(st_group_t *g)
{
    const char *state = group_state_name(g);
    const char *before = g->last_state ? g->last_state : "Empty";
    if (strcmp(before, state) != 0)
        kc_log_info(LOG_COMP,
                    "[GroupId %s] Streams group transitioned from %s to %s (group epoch %d, "
                    "assignment epoch %d, %zu members).",
                    g->group_id, before, state, g->group_epoch, g->assignment_epoch, g->members.n);
    g->last_state = state;
}

/* ---- the topology ------------------------------------------------------ */

/* Replaces the group's topology with the record value (without the version
 * prefix); false when it does not decode. */
static bool group_set_topology(st_group_t *g, const uint8_t *bytes, size_t len)
{
    kc_buf_t nb;
    kc_buf_init(&nb);
    kc_buf_append(&nb, bytes, len);
    kc_arena_t na;
    kc_arena_init(&na);
    topo_t *t = kc_arena_alloc(&na, sizeof(*t));
    kc_streams_group_topology_value_init(t);
    kc_reader_t r;
    kc_reader_init(&r, nb.data, nb.len);
    if (kc_streams_group_topology_value_decode(&r, 0, &na, t) != 0 || r.err) {
        kc_buf_deinit(&nb);
        kc_arena_deinit(&na);
        return false;
    }
    kc_buf_deinit(&g->topo_bytes);
    kc_arena_deinit(&g->topo_arena);
    g->topo_bytes = nb;
    g->topo_arena = na;
    g->topology = t;
    group_drop_config(g);
    return true;
}

static void group_clear_topology(st_group_t *g)
{
    kc_buf_deinit(&g->topo_bytes);
    kc_arena_deinit(&g->topo_arena);
    kc_buf_init(&g->topo_bytes);
    kc_arena_init(&g->topo_arena);
    g->topology = NULL;
    group_drop_config(g);
}

typedef kc_streams_group_heartbeat_request_subtopology_t req_sub_t;

static int cmp_req_sub(const void *a, const void *b)
{
    const req_sub_t *x = *(const req_sub_t *const *)a, *y = *(const req_sub_t *const *)b;
    int32_t n = x->subtopology_id.len < y->subtopology_id.len ? x->subtopology_id.len
                                                              : y->subtopology_id.len;
    int c = n > 0 ? memcmp(x->subtopology_id.ptr, y->subtopology_id.ptr, (size_t)n) : 0;
    if (c)
        return c;
    return (x->subtopology_id.len > y->subtopology_id.len) - (x->subtopology_id.len < y->subtopology_id.len);
}

static void copy_topic_infos(kc_arena_t *a, const kc_streams_group_heartbeat_request_topic_info_t *in,
                             int32_t n, kc_streams_group_topology_value_topic_info_t **out,
                             int32_t *nout)
{
    n = n > 0 ? n : 0;
    *out = kc_arena_alloc(a, sizeof(**out) * (size_t)(n + 1));
    *nout = n;
    for (int32_t i = 0; i < n; i++) {
        kc_streams_group_topology_value_topic_info_t *o = &(*out)[i];
        memset(o, 0, sizeof(*o));
        o->name = in[i].name;
        o->partitions = in[i].partitions;
        o->replication_factor = in[i].replication_factor;
        int32_t nc = in[i].topic_configs.count > 0 ? in[i].topic_configs.count : 0;
        o->topic_configs.items = kc_arena_alloc(a, sizeof(*o->topic_configs.items) * (size_t)(nc + 1));
        o->topic_configs.count = nc;
        for (int32_t k = 0; k < nc; k++) {
            o->topic_configs.items[k].key = in[i].topic_configs.items[k].key;
            o->topic_configs.items[k].value = in[i].topic_configs.items[k].value;
        }
    }
}

static kc_int16_array_t copy_i16(kc_int16_array_t a)
{
    if (a.count < 0)
        a.count = 0;
    return a;
}

/* The request's topology as a record 23 value (without version), with the
 * subtopologies sorted by id (Kafka keeps them in a map). Returns false,
 * with the reason in why, when two subtopologies share an id (Kafka's map
 * construction fails: UNKNOWN_SERVER_ERROR) or when the value does not
 * encode (out is then left empty). */
static bool topology_from_request(const kc_streams_group_heartbeat_request_topology_t *rt,
                                  kc_buf_t *out, char *why, size_t why_cap)
{
    kc_arena_t a;
    kc_arena_init(&a);
    int32_t n = rt->subtopologies.count > 0 ? rt->subtopologies.count : 0;
    const req_sub_t **sorted = kc_arena_alloc(&a, sizeof(*sorted) * (size_t)(n + 1));
    for (int32_t i = 0; i < n; i++)
        sorted[i] = &rt->subtopologies.items[i];
    qsort(sorted, (size_t)n, sizeof(*sorted), cmp_req_sub);
    for (int32_t i = 1; i < n; i++)
        if (cmp_req_sub(&sorted[i - 1], &sorted[i]) == 0) {
            snprintf(why, why_cap, "duplicate key %.*s in the topology's subtopologies",
                     (int)sorted[i]->subtopology_id.len,
                     sorted[i]->subtopology_id.ptr ? sorted[i]->subtopology_id.ptr : "");
            kc_arena_deinit(&a);
            return false;
        }
    topo_t v;
    kc_streams_group_topology_value_init(&v);
    v.epoch = rt->epoch;
    v.subtopologies.items = kc_arena_alloc(&a, sizeof(*v.subtopologies.items) * (size_t)(n + 1));
    v.subtopologies.count = n;
    for (int32_t i = 0; i < n; i++) {
        const req_sub_t *s = sorted[i];
        topo_sub_t *o = &v.subtopologies.items[i];
        memset(o, 0, sizeof(*o));
        o->subtopology_id = s->subtopology_id;
        o->source_topics = s->source_topics;
        if (o->source_topics.count < 0)
            o->source_topics.count = 0;
        o->source_topic_regex = s->source_topic_regex;
        if (o->source_topic_regex.count < 0)
            o->source_topic_regex.count = 0;
        o->repartition_sink_topics = s->repartition_sink_topics;
        if (o->repartition_sink_topics.count < 0)
            o->repartition_sink_topics.count = 0;
        copy_topic_infos(&a, s->state_changelog_topics.items, s->state_changelog_topics.count,
                         &o->state_changelog_topics.items, &o->state_changelog_topics.count);
        copy_topic_infos(&a, s->repartition_source_topics.items, s->repartition_source_topics.count,
                         &o->repartition_source_topics.items, &o->repartition_source_topics.count);
        int32_t nc = s->copartition_groups.count > 0 ? s->copartition_groups.count : 0;
        o->copartition_groups.items =
            kc_arena_alloc(&a, sizeof(*o->copartition_groups.items) * (size_t)(nc + 1));
        o->copartition_groups.count = nc;
        for (int32_t k = 0; k < nc; k++) {
            o->copartition_groups.items[k].source_topics =
                copy_i16(s->copartition_groups.items[k].source_topics);
            o->copartition_groups.items[k].source_topic_regex =
                copy_i16(s->copartition_groups.items[k].source_topic_regex);
            o->copartition_groups.items[k].repartition_source_topics =
                copy_i16(s->copartition_groups.items[k].repartition_source_topics);
        }
    }
    int rc = kc_streams_group_topology_value_encode(out, 0, &v);
    kc_arena_deinit(&a);
    if (rc != 0) {
        kc_buf_reset(out);
        snprintf(why, why_cap, "it cannot be encoded as a StreamsGroupTopology record (%d)", rc);
        return false;
    }
    return true;
}

/* ---- the configured topology (InternalTopicManager.configureTopics) ----- */

struct st_config {
    bool ready;             /* no topic configuration problem */
    int8_t status;          /* -1 none, else 1, 2 or 3 */
    char detail[MSG_MAX];
    int64_t hash;           /* of the required topics that exist */
    int64_t topics_version; /* the coordinator's topics_version the hash was taken at */
    int32_t nsubs;
    int32_t *ntasks;        /* per subtopology of the topology (record order) */
    bool *stateful;
    kc_streams_topics_to_create_t create;
    /* The decided partition counts of the repartition topics (names owned). */
    char **rep_names;
    int32_t *rep_parts;
    int32_t nrep;
    /* A topology Kafka's configuration step throws on (StreamsInvalidTopology-
     * Exception): the heartbeat fails with this error and message. */
    int16_t error;
    char error_msg[MSG_MAX];
};

static void config_free(st_config_t *cf)
{
    free(cf->ntasks);
    free(cf->stateful);
    kc_streams_topics_to_create_deinit(&cf->create);
    for (int32_t i = 0; i < cf->nrep; i++)
        free(cf->rep_names[i]);
    free(cf->rep_names);
    free(cf->rep_parts);
    memset(cf, 0, sizeof(*cf));
}

/* The configured partition count of a repartition topic, or -1. */
static int32_t config_rep_parts(const st_config_t *cf, kc_str_t name)
{
    for (int32_t i = 0; i < cf->nrep; i++)
        if (kc_str_eq_cstr(name, cf->rep_names[i]))
            return cf->rep_parts[i];
    return -1;
}

static bool lookup_topic(kc_coord_t *c, kc_str_t name, int32_t *parts, kc_uuid_t *id)
{
    const kc_topic_view_t *v = &c->topics;
    memset(id, 0, sizeof(*id));
    *parts = 0;
    if (v->topic_lookup)
        return v->topic_lookup(v->ctx, name, parts, id);
    if (v->topic_exists && v->topic_exists(v->ctx, name)) {
        *parts = 1;
        return true;
    }
    return false;
}

/* A decided partition count for an internal topic (name -> count). */
typedef struct {
    kc_str_t name;
    int32_t parts;
} decided_t;

typedef struct {
    decided_t *d;
    int32_t n, cap;
} decided_list_t;

static int32_t decided_get(const decided_list_t *l, kc_str_t name)
{
    for (int32_t i = 0; i < l->n; i++)
        if (kc_str_eq(l->d[i].name, name))
            return l->d[i].parts;
    return -1;
}

static void decided_put(decided_list_t *l, kc_str_t name, int32_t parts)
{
    for (int32_t i = 0; i < l->n; i++)
        if (kc_str_eq(l->d[i].name, name)) {
            l->d[i].parts = parts;
            return;
        }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->d = kc_xrealloc(l->d, (size_t)l->cap * sizeof(*l->d));
    }
    l->d[l->n++] = (decided_t){name, parts};
}

/* Partition count of a topic: the existing topic's, else a decided one, else -1. */
static int32_t topic_parts(kc_coord_t *c, const decided_list_t *dl, kc_str_t name, uint64_t *hash)
{
    int32_t parts;
    kc_uuid_t id;
    if (lookup_topic(c, name, &parts, &id)) {
        if (hash) {
            for (int32_t i = 0; i < name.len; i++)
                *hash = (*hash ^ (uint8_t)name.ptr[i]) * 1099511628211ULL;
            *hash = (*hash ^ 0xff) * 1099511628211ULL;
            for (int k = 0; k < 16; k++)
                *hash = (*hash ^ id.b[k]) * 1099511628211ULL;
            for (int k = 0; k < 4; k++)
                *hash = (*hash ^ (uint8_t)(parts >> (8 * k))) * 1099511628211ULL;
        }
        return parts;
    }
    return decided_get(dl, name);
}

static void summarize(char *out, size_t cap, const kc_streams_topics_to_create_t *l)
{
    size_t off = 0;
    out[0] = '\0';
    for (size_t i = 0; i < l->n && i < 3; i++)
        off += (size_t)snprintf(out + off, off < cap ? cap - off : 0, "%s%s", i ? ", " : "",
                                l->items[i].name);
    if (l->n > 3 && off < cap)
        snprintf(out + off, cap - off, " and %zu additional topics", l->n - 3);
}

/* The declared partition count of a repartition source topic of the
 * topology (0 = flexible), or -1 when the name is not one. */
static int32_t repartition_declared(const topo_t *t, kc_str_t name)
{
    for (int32_t s = 0; s < t->subtopologies.count; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        for (int32_t i = 0; i < sub->repartition_source_topics.count; i++)
            if (kc_str_eq(sub->repartition_source_topics.items[i].name, name))
                return sub->repartition_source_topics.items[i].partitions;
    }
    return -1;
}

static int cmp_kstr(const void *a, const void *b)
{
    const kc_str_t *x = a, *y = b;
    int32_t n = x->len < y->len ? x->len : y->len;
    int c = n > 0 ? memcmp(x->ptr, y->ptr, (size_t)n) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Java's TreeMap.toString of topic -> partitions: "{a=4, b=2}". */
static void topic_counts(char *out, size_t cap, kc_coord_t *c, const decided_list_t *dl,
                         kc_str_t *names, int32_t n)
{
    qsort(names, (size_t)n, sizeof(*names), cmp_kstr);
    size_t off = (size_t)snprintf(out, cap, "{");
    for (int32_t i = 0; i < n && off < cap; i++) {
        if (i > 0 && cmp_kstr(&names[i - 1], &names[i]) == 0)
            continue;
        off += (size_t)snprintf(out + off, cap - off, "%s%.*s=%d", i ? ", " : "", (int)names[i].len,
                                names[i].ptr, topic_parts(c, dl, names[i], NULL));
    }
    if (off < cap)
        snprintf(out + off, cap - off, "}");
}

/*
 * CopartitionedTopicsEnforcer for one copartition group: the source topics
 * must have one partition count, which the group's repartition topics take
 * (all repartition topics: the fixed ones' common count, else the largest);
 * false with cf's status and detail set when the counts disagree.
 */
static bool enforce_copartition(kc_coord_t *c, const topo_t *t, const topo_sub_t *sub,
                                const kc_streams_group_topology_value_copartition_group_t *copartition,
                                decided_list_t *dl, st_config_t *cf)
{
    int32_t cap = copartition->source_topics.count + copartition->repartition_source_topics.count;
    if (cap <= 0)
        return true;
    kc_str_t *names = kc_xcalloc((size_t)cap, sizeof(*names));
    bool *repart = kc_xcalloc((size_t)cap, sizeof(*repart));
    int32_t n = 0;
    for (int32_t i = 0; i < copartition->source_topics.count; i++) {
        int16_t k = copartition->source_topics.items[i];
        if (k >= 0 && k < sub->source_topics.count)
            names[n++] = sub->source_topics.items[k];
    }
    for (int32_t i = 0; i < copartition->repartition_source_topics.count; i++) {
        int16_t k = copartition->repartition_source_topics.items[i];
        if (k >= 0 && k < sub->repartition_source_topics.count)
            names[n++] = sub->repartition_source_topics.items[k].name;
    }
    bool ok = true, all_repart = n > 0, any_fixed = false;
    int32_t nsrc = 0, src_parts = -1, max_parts = 0;
    for (int32_t i = 0; i < n; i++) {
        repart[i] = repartition_declared(t, names[i]) >= 0;
        all_repart = all_repart && repart[i];
        int32_t p = topic_parts(c, dl, names[i], NULL);
        if (p < 0)
            goto out; /* undecided: nothing to enforce */
        if (repart[i]) {
            max_parts = p > max_parts ? p : max_parts;
        } else {
            if (nsrc++ == 0)
                src_parts = p;
            else if (p != src_parts)
                ok = false;
        }
    }
    for (int32_t s = 0; s < t->subtopologies.count && !any_fixed; s++)
        for (int32_t i = 0; i < t->subtopologies.items[s].repartition_source_topics.count; i++)
            any_fixed = any_fixed || t->subtopologies.items[s].repartition_source_topics.items[i].partitions != 0;
    char list[MSG_MAX - 96];
    if (!ok) {
        kc_str_t *src = kc_xcalloc((size_t)n, sizeof(*src));
        int32_t m = 0;
        for (int32_t i = 0; i < n; i++)
            if (!repart[i])
                src[m++] = names[i];
        topic_counts(list, sizeof(list), c, dl, src, m);
        free(src);
        snprintf(cf->detail, sizeof(cf->detail),
                 "Following topics do not have the same number of partitions: [%s]", list);
        goto out;
    }
    int32_t use = src_parts;
    if (all_repart && any_fixed) {
        /* validateAndGetNumOfPartitions walks every fixed repartition topic. */
        use = -1;
        for (int32_t s = 0; s < t->subtopologies.count && ok; s++)
            for (int32_t i = 0; i < t->subtopologies.items[s].repartition_source_topics.count && ok; i++) {
                const kc_streams_group_topology_value_topic_info_t *ti =
                    &t->subtopologies.items[s].repartition_source_topics.items[i];
                if (ti->partitions == 0)
                    continue;
                int32_t p = topic_parts(c, dl, ti->name, NULL);
                if (use < 0)
                    use = p;
                else if (p != use)
                    ok = false;
            }
        if (!ok) {
            topic_counts(list, sizeof(list), c, dl, names, n);
            snprintf(cf->detail, sizeof(cf->detail),
                     "Following topics do not have the same number of partitions: [%s]", list);
            goto out;
        }
    } else if (all_repart) {
        use = max_parts;
    }
    for (int32_t i = 0; i < n && ok; i++) {
        if (!repart[i])
            continue;
        int32_t declared = repartition_declared(t, names[i]);
        int32_t p = topic_parts(c, dl, names[i], NULL);
        if (declared != 0 && p != use) {
            snprintf(cf->detail, sizeof(cf->detail),
                     "Number of partitions [%d] of repartition topic [%.*s] doesn't match number of "
                     "partitions [%d] of the source topic.",
                     p, (int)names[i].len, names[i].ptr, use);
            ok = false;
            break;
        }
        decided_put(dl, names[i], use);
    }
out:
    if (!ok)
        cf->status = ST_INCORRECTLY_PARTITIONED_TOPICS;
    free(names);
    free(repart);
    return ok;
}

/*
 * The distinct names of names[0..n) in the order a java.util.HashMap (or
 * HashSet) filled in that order iterates them: bucket by bucket (the Java
 * hash spread over a table of 16 entries, doubled while more than three
 * quarters full), each bucket in insertion order. Writes indexes of first
 * occurrences into out; returns their count.
 */
typedef struct {
    int32_t index;
    uint32_t bucket;
} jh_pos_t;

static int cmp_jh_pos(const void *a, const void *b)
{
    const jh_pos_t *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int32_t java_hash_order(const kc_str_t *names, int32_t n, int32_t *out)
{
    if (n <= 0)
        return 0;
    jh_pos_t *pos = kc_xcalloc((size_t)n, sizeof(*pos));
    int32_t nd = 0;
    for (int32_t i = 0; i < n; i++) {
        bool seen = false;
        for (int32_t k = 0; k < nd && !seen; k++)
            seen = kc_str_eq(names[pos[k].index], names[i]);
        if (!seen)
            pos[nd++].index = i;
    }
    uint32_t cap = 16;
    while ((uint32_t)nd > cap / 4 * 3)
        cap *= 2;
    for (int32_t k = 0; k < nd; k++) {
        kc_str_t s = names[pos[k].index];
        uint32_t h = (uint32_t)kc_java_string_hash(s.ptr ? s.ptr : "", s.len > 0 ? (size_t)s.len : 0);
        pos[k].bucket = (h ^ (h >> 16)) & (cap - 1);
    }
    qsort(pos, (size_t)nd, sizeof(*pos), cmp_jh_pos);
    for (int32_t k = 0; k < nd; k++)
        out[k] = pos[k].index;
    free(pos);
    return nd;
}

/* A hash of the names, ids and partition counts of the topology's topics
 * that exist (kcoord's function, the role of Kafka's metadata hash): a
 * change bumps the group epoch and reconfigures the topology. */
static int64_t topology_hash(kc_coord_t *c, const topo_t *t)
{
    uint64_t hash = 1469598103934665603ULL;
    decided_list_t none = {0};
    for (int32_t s = 0; s < t->subtopologies.count; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        for (int32_t i = 0; i < sub->source_topics.count; i++)
            topic_parts(c, &none, sub->source_topics.items[i], &hash);
        for (int32_t i = 0; i < sub->repartition_source_topics.count; i++)
            topic_parts(c, &none, sub->repartition_source_topics.items[i].name, &hash);
        for (int32_t i = 0; i < sub->state_changelog_topics.count; i++)
            topic_parts(c, &none, sub->state_changelog_topics.items[i].name, &hash);
    }
    return (int64_t)hash;
}

/* ConfiguredTopology's first check: every source topic exists, else
 * MISSING_SOURCE_TOPICS naming up to three of them (a TreeSet: sorted,
 * distinct). Also notes which subtopologies have state. False when the
 * status is set. */
static bool check_source_topics(kc_coord_t *c, const topo_t *t, st_config_t *cf,
                                decided_list_t *dl)
{
    kc_str_t *miss = NULL;
    int32_t nmissing = 0, miss_cap = 0;
    for (int32_t s = 0; s < cf->nsubs; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        cf->stateful[s] = sub->state_changelog_topics.count > 0;
        for (int32_t i = 0; i < sub->source_topics.count; i++) {
            kc_str_t name = sub->source_topics.items[i];
            if (topic_parts(c, dl, name, NULL) >= 0)
                continue;
            if (nmissing == miss_cap) {
                miss_cap = miss_cap ? miss_cap * 2 : 8;
                miss = kc_xrealloc(miss, (size_t)miss_cap * sizeof(*miss));
            }
            miss[nmissing++] = name;
        }
    }
    if (!nmissing)
        return true;
    qsort(miss, (size_t)nmissing, sizeof(*miss), cmp_kstr);
    int32_t distinct = 0;
    for (int32_t i = 0; i < nmissing; i++)
        if (distinct == 0 || cmp_kstr(&miss[distinct - 1], &miss[i]) != 0)
            miss[distinct++] = miss[i];
    char missing[MSG_MAX];
    size_t off = 0;
    missing[0] = '\0';
    for (int32_t i = 0; i < distinct && i < 3; i++)
        off += (size_t)snprintf(missing + off, off < sizeof(missing) ? sizeof(missing) - off : 0,
                                "%s%.*s", i ? ", " : "", (int)miss[i].len, miss[i].ptr);
    if (distinct > 3 && off < sizeof(missing))
        snprintf(missing + off, sizeof(missing) - off, " and %d additional topics", distinct - 3);
    free(miss);
    cf->status = ST_MISSING_SOURCE_TOPICS;
    snprintf(cf->detail, sizeof(cf->detail), "Source topics %s are missing.", missing);
    return false;
}

/* RepartitionTopics.setup: the fixed counts, then each repartition sink
 * topic without one takes the largest count among its subtopology's
 * repartition source topics (decided so far) and existing source topics,
 * round after round until all are known. False (with the error) when the
 * counts cannot all be decided. */
static bool setup_repartition_topics(kc_coord_t *c, const topo_t *t, st_config_t *cf,
                                     decided_list_t *dl)
{
    int32_t ns = cf->nsubs;
    for (int32_t s = 0; s < ns; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        for (int32_t i = 0; i < sub->repartition_source_topics.count; i++)
            if (sub->repartition_source_topics.items[i].partitions != 0)
                decided_put(dl, sub->repartition_source_topics.items[i].name,
                            sub->repartition_source_topics.items[i].partitions);
    }
    bool needed;
    do {
        needed = false;
        bool progress = false;
        for (int32_t s = 0; s < ns; s++) {
            const topo_sub_t *sub = &t->subtopologies.items[s];
            for (int32_t k = 0; k < sub->repartition_sink_topics.count; k++) {
                kc_str_t sink = sub->repartition_sink_topics.items[k];
                if (decided_get(dl, sink) >= 0)
                    continue;
                int32_t best = -1;
                for (int32_t i = 0; i < sub->repartition_source_topics.count; i++) {
                    int32_t p = decided_get(dl, sub->repartition_source_topics.items[i].name);
                    best = p > best ? p : best;
                }
                for (int32_t i = 0; i < sub->source_topics.count; i++) {
                    int32_t p;
                    kc_uuid_t id;
                    if (lookup_topic(c, sub->source_topics.items[i], &p, &id))
                        best = p > best ? p : best;
                }
                if (best < 0) {
                    needed = true;
                } else {
                    decided_put(dl, sink, best);
                    progress = true;
                }
            }
        }
        if (needed && !progress) {
            cf->error = KC_ERR_STREAMS_INVALID_TOPOLOGY;
            snprintf(cf->error_msg, sizeof(cf->error_msg),
                     "Failed to compute number of partitions for all repartition topics. There may "
                     "be loops in the topology that cannot be resolved.");
            return false;
        }
    } while (needed);
    for (int32_t s = 0; s < ns; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        for (int32_t i = 0; i < sub->repartition_source_topics.count; i++)
            if (decided_get(dl, sub->repartition_source_topics.items[i].name) < 0) {
                cf->error = KC_ERR_STREAMS_INVALID_TOPOLOGY;
                snprintf(cf->error_msg, sizeof(cf->error_msg),
                         "Failed to compute number of partitions for all repartition topics, "
                         "because a repartition source topic is never used as a sink topic.");
                return false;
            }
    }
    return true;
}

/* ChangelogTopics.setup: each subtopology's task count, the largest count
 * of the topics it reads (every subtopology reads something); then the
 * configured repartition counts, declared, else decided. False (with the
 * error) for a subtopology without source topics. */
static bool setup_task_counts(kc_coord_t *c, const topo_t *t, st_config_t *cf, decided_list_t *dl)
{
    for (int32_t s = 0; s < cf->nsubs; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        if (sub->source_topics.count <= 0 && sub->repartition_source_topics.count <= 0) {
            cf->error = KC_ERR_STREAMS_INVALID_TOPOLOGY;
            snprintf(cf->error_msg, sizeof(cf->error_msg), "No source topics found for subtopology %.*s",
                     (int)sub->subtopology_id.len, sub->subtopology_id.ptr);
            return false;
        }
        int32_t tasks = 0;
        for (int32_t i = 0; i < sub->source_topics.count; i++) {
            int32_t p = topic_parts(c, dl, sub->source_topics.items[i], NULL);
            tasks = p > tasks ? p : tasks;
        }
        for (int32_t i = 0; i < sub->repartition_source_topics.count; i++) {
            int32_t p = topic_parts(c, dl, sub->repartition_source_topics.items[i].name, NULL);
            tasks = p > tasks ? p : tasks;
        }
        cf->ntasks[s] = tasks;
    }
    for (int32_t s = 0; s < cf->nsubs; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        for (int32_t i = 0; i < sub->repartition_source_topics.count; i++) {
            const kc_streams_group_topology_value_topic_info_t *ti = &sub->repartition_source_topics.items[i];
            if (config_rep_parts(cf, ti->name) >= 0)
                continue;
            cf->rep_names = kc_xrealloc(cf->rep_names, (size_t)(cf->nrep + 1) * sizeof(*cf->rep_names));
            cf->rep_parts = kc_xrealloc(cf->rep_parts, (size_t)(cf->nrep + 1) * sizeof(*cf->rep_parts));
            cf->rep_names[cf->nrep] = kc_str_dup_or_null(ti->name);
            cf->rep_parts[cf->nrep++] = ti->partitions != 0 ? ti->partitions : decided_get(dl, ti->name);
        }
    }
    return true;
}

/* The internal topics as missingInternalTopics puts them into its HashMap:
 * the subtopologies by id (the configured subtopologies are a TreeMap),
 * each one's repartition then changelog topics in their own HashMaps'
 * order, with each one's count and replication factor (-1: the broker's
 * default). order[0..norder) is the map's order of the distinct names; a
 * later put of a name replaces the earlier value but keeps its place. */
typedef struct {
    kc_str_t *names;
    int32_t *parts;
    int16_t *rf;
    const kc_streams_group_topology_value_topic_info_t **info; /* its configs */
    int32_t n, cap;
    int32_t *order;
    int32_t norder;
} internal_topics_t;

static void internal_topics_add(internal_topics_t *it,
                                const kc_streams_group_topology_value_topic_info_t *ti,
                                int32_t parts, int16_t rf)
{
    if (it->n == it->cap) {
        it->cap = it->cap ? it->cap * 2 : 8;
        it->names = kc_xrealloc(it->names, (size_t)it->cap * sizeof(*it->names));
        it->parts = kc_xrealloc(it->parts, (size_t)it->cap * sizeof(*it->parts));
        it->rf = kc_xrealloc(it->rf, (size_t)it->cap * sizeof(*it->rf));
        it->info = kc_xrealloc(it->info, (size_t)it->cap * sizeof(*it->info));
    }
    it->names[it->n] = ti->name;
    it->parts[it->n] = parts;
    it->rf[it->n] = rf;
    it->info[it->n] = ti;
    it->n++;
}

static void internal_topics_collect(const topo_t *t, const st_config_t *cf, internal_topics_t *it)
{
    int32_t ns = cf->nsubs;
    int32_t *sorder = kc_xcalloc((size_t)ns + 1, sizeof(int32_t));
    for (int32_t s = 0; s < ns; s++)
        sorder[s] = s;
    for (int32_t a = 1; a < ns; a++)
        for (int32_t b = a; b > 0 && cmp_kstr(&t->subtopologies.items[sorder[b - 1]].subtopology_id,
                                              &t->subtopologies.items[sorder[b]].subtopology_id) > 0;
             b--) {
            int32_t x = sorder[b];
            sorder[b] = sorder[b - 1];
            sorder[b - 1] = x;
        }
    for (int32_t q = 0; q < ns; q++) {
        const topo_sub_t *sub = &t->subtopologies.items[sorder[q]];
        for (int pass = 0; pass < 2; pass++) {
            int32_t n = pass == 0 ? sub->repartition_source_topics.count : sub->state_changelog_topics.count;
            if (n <= 0)
                continue;
            const kc_streams_group_topology_value_topic_info_t *tis =
                pass == 0 ? sub->repartition_source_topics.items : sub->state_changelog_topics.items;
            kc_str_t *names = kc_xcalloc((size_t)n, sizeof(*names));
            int32_t *ord = kc_xcalloc((size_t)n, sizeof(*ord));
            for (int32_t i = 0; i < n; i++)
                names[i] = tis[i].name;
            int32_t nd = java_hash_order(names, n, ord);
            for (int32_t i = 0; i < nd; i++) {
                const kc_streams_group_topology_value_topic_info_t *ti = &tis[ord[i]];
                internal_topics_add(it, ti,
                                    pass == 0 ? config_rep_parts(cf, ti->name) : cf->ntasks[sorder[q]],
                                    ti->replication_factor != 0 ? ti->replication_factor : (int16_t)-1);
            }
            free(names);
            free(ord);
        }
    }
    free(sorder);
    it->order = kc_xcalloc((size_t)it->n + 1, sizeof(int32_t));
    it->norder = java_hash_order(it->names, it->n, it->order);
    for (int32_t i = 0; i < it->norder; i++)
        for (int32_t k = it->n - 1; k > it->order[i]; k--)
            if (kc_str_eq(it->names[k], it->names[it->order[i]])) {
                it->parts[it->order[i]] = it->parts[k];
                it->rf[it->order[i]] = it->rf[k];
                it->info[it->order[i]] = it->info[k];
                break;
            }
}

/* topology.requiredTopics(): the subtopologies in their HashMap's order,
 * each one's source, repartition source and changelog topics, as a new
 * array of *n names. */
static kc_str_t *required_topics(const topo_t *t, int32_t ns, int32_t *n)
{
    kc_str_t *ids = kc_xcalloc((size_t)ns + 1, sizeof(*ids));
    int32_t *hord = kc_xcalloc((size_t)ns + 1, sizeof(int32_t));
    for (int32_t s = 0; s < ns; s++)
        ids[s] = t->subtopologies.items[s].subtopology_id;
    int32_t nh = java_hash_order(ids, ns, hord);
    kc_str_t *req = NULL;
    int32_t nreq = 0, req_cap = 0;
    for (int32_t q = 0; q < nh; q++) {
        const topo_sub_t *sub = &t->subtopologies.items[hord[q]];
        int32_t total = sub->source_topics.count + sub->repartition_source_topics.count +
                        sub->state_changelog_topics.count;
        for (int32_t k = 0; k < total; k++) {
            int32_t j = k;
            kc_str_t name;
            if (j < sub->source_topics.count)
                name = sub->source_topics.items[j];
            else if ((j -= sub->source_topics.count) < sub->repartition_source_topics.count)
                name = sub->repartition_source_topics.items[j].name;
            else
                name = sub->state_changelog_topics.items[j - sub->repartition_source_topics.count].name;
            if (nreq == req_cap) {
                req_cap = req_cap ? req_cap * 2 : 8;
                req = kc_xrealloc(req, (size_t)req_cap * sizeof(*req));
            }
            req[nreq++] = name;
        }
    }
    free(hord);
    free(ids);
    *n = nreq;
    return req;
}

/*
 * missingInternalTopics: every internal topic goes into a HashMap; then,
 * walking the topology's required topics (a HashSet), each existing one
 * leaves the map, and an existing internal topic with another count is
 * INCORRECTLY_PARTITIONED_TOPICS. What is left is to be created, in the
 * map's order (MISSING_INTERNAL_TOPICS). False when a status is set.
 */
static bool check_internal_topics(kc_coord_t *c, const topo_t *t, st_config_t *cf)
{
    internal_topics_t it = {0};
    internal_topics_collect(t, cf, &it);
    bool *gone = kc_xcalloc((size_t)it.n + 1, sizeof(bool));
    int32_t nreq;
    kc_str_t *req = required_topics(t, cf->nsubs, &nreq);
    int32_t *rord = kc_xcalloc((size_t)nreq + 1, sizeof(int32_t));
    int32_t nr = java_hash_order(req, nreq, rord);
    for (int32_t q = 0; q < nr && cf->status < 0; q++) {
        kc_str_t name = req[rord[q]];
        int32_t parts;
        kc_uuid_t id;
        if (!lookup_topic(c, name, &parts, &id))
            continue;
        for (int32_t i = 0; i < it.norder; i++) {
            int32_t k = it.order[i];
            if (gone[k] || !kc_str_eq(it.names[k], name))
                continue;
            gone[k] = true;
            if (parts != it.parts[k]) {
                cf->status = ST_INCORRECTLY_PARTITIONED_TOPICS;
                snprintf(cf->detail, sizeof(cf->detail),
                         "Existing topic %.*s has different number of partitions: expected %d, "
                         "found %d",
                         (int)name.len, name.ptr, it.parts[k], parts);
            }
            break;
        }
    }
    free(rord);
    free(req);
    for (int32_t i = 0; i < it.norder && cf->status < 0; i++) {
        int32_t k = it.order[i];
        if (gone[k])
            continue;
        cf->create.items = kc_xrealloc(cf->create.items, (cf->create.n + 1) * sizeof(*cf->create.items));
        kc_streams_topic_to_create_t *tc = &cf->create.items[cf->create.n++];
        *tc = (kc_streams_topic_to_create_t){kc_str_dup_or_null(it.names[k]), it.parts[k], it.rf[k],
                                             NULL, NULL, 0};
        const kc_streams_group_topology_value_topic_info_t *ti = it.info[k];
        if (ti->topic_configs.count > 0) {
            tc->nconfigs = (size_t)ti->topic_configs.count;
            tc->config_names = kc_xcalloc(tc->nconfigs, sizeof(char *));
            tc->config_values = kc_xcalloc(tc->nconfigs, sizeof(char *));
            for (size_t j = 0; j < tc->nconfigs; j++) {
                tc->config_names[j] = kc_str_dup_or_null(ti->topic_configs.items[j].key);
                tc->config_values[j] = kc_str_dup_or_null(ti->topic_configs.items[j].value);
            }
        }
    }
    free(gone);
    free(it.order);
    free(it.names);
    free(it.parts);
    free(it.rf);
    free(it.info);
    if (cf->status == ST_INCORRECTLY_PARTITIONED_TOPICS)
        return false;
    if (cf->create.n) {
        char list[MSG_MAX - 64];
        summarize(list, sizeof(list), &cf->create);
        cf->status = ST_MISSING_INTERNAL_TOPICS;
        snprintf(cf->detail, sizeof(cf->detail), "Internal topics are missing: %s", list);
        return false;
    }
    return true;
}

/*
 * Configures the topology against the topics that exist
 * (InternalTopicManager.configureTopics): source topics must exist
 * (MISSING_SOURCE_TOPICS), repartition topics without a count take the
 * largest task count of the subtopologies writing to them, copartitioned
 * topics agree, changelog topics take the task count of their
 * subtopology; internal topics that do not exist are listed for creation
 * (MISSING_INTERNAL_TOPICS), an existing one with another count is
 * INCORRECTLY_PARTITIONED_TOPICS. cf->ready when none of these applies.
 */
static void configure(kc_coord_t *c, const topo_t *t, st_config_t *cf)
{
    memset(cf, 0, sizeof(*cf));
    cf->status = -1;
    cf->hash = topology_hash(c, t);
    int32_t ns = t->subtopologies.count > 0 ? t->subtopologies.count : 0;
    cf->nsubs = ns;
    cf->ntasks = kc_xcalloc((size_t)ns + 1, sizeof(int32_t));
    cf->stateful = kc_xcalloc((size_t)ns + 1, sizeof(bool));
    decided_list_t dl = {0};
    bool ok = check_source_topics(c, t, cf, &dl) && setup_repartition_topics(c, t, cf, &dl);
    /* Copartition groups (InternalTopicManager.enforceCopartitioning). */
    for (int32_t s = 0; ok && s < ns; s++) {
        const topo_sub_t *sub = &t->subtopologies.items[s];
        for (int32_t k = 0; ok && k < sub->copartition_groups.count; k++)
            ok = enforce_copartition(c, t, sub, &sub->copartition_groups.items[k], &dl, cf);
    }
    ok = ok && setup_task_counts(c, t, cf, &dl);
    free(dl.d);
    if (ok && check_internal_topics(c, t, cf))
        cf->ready = true;
}

static void group_drop_config(st_group_t *g)
{
    if (g->cfg) {
        config_free(g->cfg);
        free(g->cfg);
        g->cfg = NULL;
    }
}

/* The group's configured topology, recomputed only when the hash of its
 * topics changed (memory-only, like Kafka's configuredTopology). */
static const st_config_t *group_config(kc_coord_t *c, st_group_t *g)
{
    if (!g->topology)
        return NULL;
    /* The topics can only have changed with the topics version. */
    if (g->cfg && g->cfg->topics_version == c->topics_version)
        return g->cfg;
    int64_t hash = topology_hash(c, g->topology);
    if (!g->cfg || g->cfg->hash != hash) {
        group_drop_config(g);
        g->cfg = kc_xcalloc(1, sizeof(*g->cfg));
        configure(c, g->topology, g->cfg);
    }
    g->cfg->topics_version = c->topics_version;
    return g->cfg;
}

void kc_streams_topics_to_create_deinit(kc_streams_topics_to_create_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        kc_streams_topic_to_create_t *tc = &t->items[i];
        free(tc->name);
        for (size_t j = 0; j < tc->nconfigs; j++) {
            free(tc->config_names[j]);
            free(tc->config_values[j]);
        }
        free(tc->config_names);
        free(tc->config_values);
    }
    free(t->items);
    t->items = NULL;
    t->n = 0;
}

/* A deep copy of one topic of the list. */
static void topic_to_create_copy(kc_streams_topic_to_create_t *to,
                                 const kc_streams_topic_to_create_t *from)
{
    *to = *from;
    to->name = kc_xstrdup(from->name);
    if (!from->nconfigs)
        return;
    to->config_names = kc_xcalloc(from->nconfigs, sizeof(char *));
    to->config_values = kc_xcalloc(from->nconfigs, sizeof(char *));
    for (size_t j = 0; j < from->nconfigs; j++) {
        to->config_names[j] = kc_xstrdup(from->config_names[j]);
        to->config_values[j] = kc_xstrdup(from->config_values[j]);
    }
}

/* ---- records ------------------------------------------------------------ */

/*
 * The one mutation path (Kafka's coordinator runtime): a handler computes
 * the new values, and each writer below appends its record with
 * kc_record_write_replay, which applies it to memory through
 * kc_streams_replay, the apply_* steps a load runs. Nothing else changes
 * what the records hold. A writer's apply may create the member it writes
 * for (record 19) or free it (the tombstone of record 19) and the group
 * (the tombstone of record 17): callers look them up again after a write.
 */

/* Sets the value's LastAssignmentConfigs to num.standby.replicas = n (null,
 * as a new value has it, when n < 0); cfg and nbuf back it. */
static void metadata_set_num_standby(kc_streams_group_metadata_value_t *val,
                                     kc_streams_group_metadata_value_last_assignment_config_t *cfg,
                                     char nbuf[16], int32_t n)
{
    val->last_assignment_configs.items = NULL;
    val->last_assignment_configs.count = -1;
    if (n < 0)
        return;
    snprintf(nbuf, 16, "%d", n);
    cfg->key = kc_str("num.standby.replicas");
    cfg->value = kc_str(nbuf);
    val->last_assignment_configs.items = cfg;
    val->last_assignment_configs.count = 1;
}

/* The group's type-17 value (cfg and nbuf back its LastAssignmentConfigs). */
static void group_metadata_value(const st_group_t *g, kc_streams_group_metadata_value_t *val,
                                 kc_streams_group_metadata_value_last_assignment_config_t *cfg,
                                 char nbuf[16])
{
    kc_streams_group_metadata_value_init(val);
    val->epoch = g->group_epoch;
    val->metadata_hash = g->metadata_hash;
    val->validated_topology_epoch = g->validated_topology_epoch;
    metadata_set_num_standby(val, cfg, nbuf, g->last_num_standby);
    kc_topology_desc_fill_metadata(&g->td, val);
}

/* A type-17 value being built: the group's, changed by the caller, with
 * the storage behind its LastAssignmentConfigs. */
typedef struct {
    kc_streams_group_metadata_value_t v;
    kc_streams_group_metadata_value_last_assignment_config_t cfg;
    char nbuf[16];
} st_meta_t;

static void meta_of(const st_group_t *g, st_meta_t *m)
{
    group_metadata_value(g, &m->v, &m->cfg, m->nbuf);
}

static void write_group_metadata(kc_coord_t *c, kc_str_t group_id,
                                 const kc_streams_group_metadata_value_t *val, kc_result_t *res)
{
    kc_record_key_t key = kc_record_group_key(group_id);
    kc_record_write_replay(c, res, KC_RECORD_STREAMS_GROUP_METADATA, &key, REC_VERSION, val);
}

/* Record 19 of m, the member as it is to be (its apply creates the member
 * of that id when the group has none). */
static void write_member_metadata(kc_coord_t *c, const st_group_t *g, const st_member_t *m,
                                  kc_result_t *res)
{
    kc_streams_group_member_metadata_value_t val;
    kc_streams_group_member_metadata_value_init(&val);
    val.instance_id = kc_str(m->instance_id);
    val.rack_id = kc_str(m->rack_id);
    val.client_id = kc_str(m->client_id);
    val.client_host = kc_str(m->client_host);
    val.rebalance_timeout_ms = m->rebalance_timeout_ms;
    val.topology_epoch = m->topology_epoch;
    val.process_id = kc_str(m->process_id);
    kc_streams_group_member_metadata_value_endpoint_t ep;
    if (m->endpoint_host) {
        ep.host = kc_str(m->endpoint_host);
        ep.port = (uint16_t)m->endpoint_port;
        val.user_endpoint = &ep;
    }
    kc_streams_group_member_metadata_value_key_value_t *tags =
        kc_xcalloc((size_t)m->ntags + 1, sizeof(*tags));
    for (int32_t i = 0; i < m->ntags; i++) {
        tags[i].key = kc_str(m->tag_keys[i]);
        tags[i].value = kc_str(m->tag_values[i]);
    }
    val.client_tags.items = tags;
    val.client_tags.count = m->ntags;
    kc_record_key_t key = kc_record_member_key(kc_modern_group_id(&g->base), m->member_id);
    kc_record_write_replay(c, res, KC_RECORD_STREAMS_GROUP_MEMBER_METADATA, &key, REC_VERSION,
                           &val);
    free(tags);
}

typedef kc_streams_group_target_assignment_member_value_task_ids_t tgt_ids_t;
typedef kc_streams_group_current_member_assignment_value_task_ids_t cur_ids_t;

static tgt_ids_t *tgt_ids(const kc_tasks_t *t, int32_t *count)
{
    tgt_ids_t *o = kc_xcalloc((size_t)t->n + 1, sizeof(*o));
    int32_t n = 0;
    for (int32_t i = 0; i < t->n; i++) {
        if (t->s[i].n == 0)
            continue;
        o[n].subtopology_id = kc_str(t->s[i].subtopology_id);
        o[n].partitions.items = t->s[i].p;
        o[n].partitions.count = t->s[i].n;
        n++;
    }
    *count = n;
    return o;
}

/* Record 22's tasks of t (borrowed), each subtopology with the assignment
 * epochs of its partitions (null when t keeps none: all but active tasks). */
static cur_ids_t *cur_ids(const kc_tasks_t *t, int32_t *count)
{
    cur_ids_t *o = kc_xcalloc((size_t)t->n + 1, sizeof(*o));
    int32_t n = 0;
    int32_t *epochs = t->epochs;
    for (int32_t i = 0; i < t->n; i++) {
        if (t->s[i].n == 0)
            continue;
        o[n].subtopology_id = kc_str(t->s[i].subtopology_id);
        o[n].partitions.items = t->s[i].p;
        o[n].partitions.count = t->s[i].n;
        o[n].assignment_epochs.items = epochs;
        o[n].assignment_epochs.count = epochs ? t->s[i].n : -1;
        if (epochs)
            epochs += t->s[i].n;
        n++;
    }
    *count = n;
    return o;
}

static void write_target_member(kc_coord_t *c, const st_group_t *g, const char *member_id,
                                const kc_tasks_tuple_t *t, kc_result_t *res)
{
    kc_streams_group_target_assignment_member_value_t val;
    kc_streams_group_target_assignment_member_value_init(&val);
    val.active_tasks.items = tgt_ids(&t->active, &val.active_tasks.count);
    val.standby_tasks.items = tgt_ids(&t->standby, &val.standby_tasks.count);
    val.warmup_tasks.items = tgt_ids(&t->warmup, &val.warmup_tasks.count);
    kc_record_key_t key = kc_record_member_key(kc_modern_group_id(&g->base), member_id);
    kc_record_write_replay(c, res, KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, &key,
                           REC_VERSION, &val);
    free(val.active_tasks.items);
    free(val.standby_tasks.items);
    free(val.warmup_tasks.items);
}

static void write_target_metadata(kc_coord_t *c, const st_group_t *g, int32_t assignment_epoch,
                                  int64_t assignment_timestamp, kc_result_t *res)
{
    kc_streams_group_target_assignment_metadata_value_t val;
    kc_streams_group_target_assignment_metadata_value_init(&val);
    val.assignment_epoch = assignment_epoch;
    val.assignment_timestamp = assignment_timestamp;
    kc_record_key_t key = kc_record_group_key(kc_modern_group_id(&g->base));
    kc_record_write_replay(c, res, KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA, &key,
                           REC_VERSION, &val);
}

static void write_current(kc_coord_t *c, const st_group_t *g, const char *member_id,
                          const st_current_t *cur, kc_result_t *res)
{
    kc_streams_group_current_member_assignment_value_t val;
    kc_streams_group_current_member_assignment_value_init(&val);
    val.member_epoch = cur->epoch;
    val.previous_member_epoch = cur->prev;
    val.state = cur->state;
    val.active_tasks.items = cur_ids(&cur->assigned.active, &val.active_tasks.count);
    val.standby_tasks.items = cur_ids(&cur->assigned.standby, &val.standby_tasks.count);
    val.warmup_tasks.items = cur_ids(&cur->assigned.warmup, &val.warmup_tasks.count);
    val.active_tasks_pending_revocation.items =
        cur_ids(&cur->pending.active, &val.active_tasks_pending_revocation.count);
    val.standby_tasks_pending_revocation.items =
        cur_ids(&cur->pending.standby, &val.standby_tasks_pending_revocation.count);
    val.warmup_tasks_pending_revocation.items =
        cur_ids(&cur->pending.warmup, &val.warmup_tasks_pending_revocation.count);
    kc_record_key_t key = kc_record_member_key(kc_modern_group_id(&g->base), member_id);
    kc_record_write_replay(c, res, KC_RECORD_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, &key,
                           REC_VERSION, &val);
    free(val.active_tasks.items);
    free(val.standby_tasks.items);
    free(val.warmup_tasks.items);
    free(val.active_tasks_pending_revocation.items);
    free(val.standby_tasks_pending_revocation.items);
    free(val.warmup_tasks_pending_revocation.items);
}

static void write_topology(kc_coord_t *c, const st_group_t *g, const kc_buf_t *value,
                           kc_result_t *res)
{
    kc_record_key_t key = kc_record_group_key(kc_modern_group_id(&g->base));
    kc_record_write_encoded_replay(c, res, KC_RECORD_STREAMS_GROUP_TOPOLOGY, &key, REC_VERSION,
                                   value);
}

static void write_tombstone(kc_coord_t *c, int16_t type, kc_str_t group_id,
                            const char *member_id, kc_result_t *res)
{
    kc_record_key_t key = kc_record_member_key(group_id, member_id);
    kc_record_write_replay(c, res, type, &key, REC_VERSION, NULL);
}

/* The tombstones of a leaving member, in StreamsCoordinatorRecordHelpers
 * order; the last one's apply frees the member (the ids are copied first,
 * member_id may be the member's own). */
static void write_member_tombstones(kc_coord_t *c, const st_group_t *g, const char *member_id,
                                    kc_result_t *res)
{
    char *mid = kc_xstrdup(member_id);
    kc_str_t gid = {kc_xstrndup(g->group_id, g->group_id_len), (int32_t)g->group_id_len};
    write_tombstone(c, KC_RECORD_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, gid, mid, res);
    write_tombstone(c, KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, gid, mid, res);
    write_tombstone(c, KC_RECORD_STREAMS_GROUP_MEMBER_METADATA, gid, mid, res);
    free((char *)gid.ptr);
    free(mid);
}

/* ---- timers --------------------------------------------------------------- */

static void initial_key(char *buf, size_t cap, kc_str_t g)
{
    kc_timer_key(buf, cap, "initial-rebalance-timeout-", g, NULL);
}

static void on_session_timeout(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res);
static void on_rebalance_timeout(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res);

static void schedule_session(kc_coord_t *c, const st_group_t *g, const st_member_t *m,
                             int64_t now_ms)
{
    kc_member_schedule_session(c, kc_modern_group_id(&g->base), m->member_id,
                               kc_coord_group_cfg(c, g->group_id)->group_streams_session_timeout_ms,
                               now_ms, on_session_timeout);
}

static void schedule_rebalance(kc_coord_t *c, const st_group_t *g, const st_member_t *m,
                               int64_t now_ms)
{
    kc_member_schedule_rebalance(c, kc_modern_group_id(&g->base), m->member_id,
                                 m->rebalance_timeout_ms, m->member_epoch, now_ms,
                                 on_rebalance_timeout);
}

static void cancel_member_timers(kc_coord_t *c, const st_group_t *g, const char *member_id)
{
    kc_member_cancel_timers(c, kc_modern_group_id(&g->base), member_id);
}

static bool initial_delay_active(kc_coord_t *c, const st_group_t *g)
{
    char key[KEY_BUF];
    initial_key(key, sizeof(key), kc_modern_group_id(&g->base));
    return kc_timer_is_scheduled(c, key);
}

/* Removes a member and bumps the group epoch (streamsGroupFenceMember):
 * its tombstones free m. */
static void fence_member(kc_coord_t *c, st_group_t *g, st_member_t *m, kc_result_t *res)
{
    cancel_member_timers(c, g, m->member_id);
    write_member_tombstones(c, g, m->member_id, res);
    st_meta_t meta;
    meta_of(g, &meta);
    meta.v.epoch = g->group_epoch + 1;
    write_group_metadata(c, kc_modern_group_id(&g->base), &meta.v, res);
    /* The last member gone: the (empty) target takes the group epoch, with
     * timestamp 0 as a new group's, so the assignment interval does not
     * delay the next assignment. */
    if (g->members.n == 0)
        write_target_metadata(c, g, g->group_epoch, 0, res);
}

static void on_session_timeout(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    (void)key;
    (void)now_ms;
    const kc_timer_t *t = kc_timer_current(c);
    st_group_t *g = group_get(c, (kc_str_t){t->group_id, (int32_t)t->group_id_len});
    st_member_t *m = g ? member_get(g, kc_str(t->member_id)) : NULL;
    if (!m)
        return;
    kc_log_info(LOG_COMP, "[GroupId %s] Member %s fenced from the group because its session expired.",
                g->group_id, m->member_id);
    kc_streams_fence_member_event(c, g, m->member_id, KC_COORD_EV_SESSION_EXPIRED, "session expired", now_ms, res);
}

static void on_rebalance_timeout(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    (void)key;
    (void)now_ms;
    const kc_timer_t *t = kc_timer_current(c);
    st_group_t *g = group_get(c, (kc_str_t){t->group_id, (int32_t)t->group_id_len});
    st_member_t *m = g ? member_get(g, kc_str(t->member_id)) : NULL;
    if (!m || m->state != MS_UNREVOKED || m->member_epoch != t->arg1)
        return;
    kc_log_info(LOG_COMP,
                "[GroupId %s] Member %s fenced from the group because it failed to revoke its tasks "
                "of epoch %d within %d ms.",
                g->group_id, m->member_id, t->arg1, m->rebalance_timeout_ms);
    kc_streams_fence_member_event(c, g, m->member_id, KC_COORD_EV_MEMBER_REMOVED, "fenced: tasks not revoked within the rebalance timeout", now_ms, res);
}

/* ---- target assignment (TargetAssignmentBuilder) --------------------------- */

/* Computes the target of the group epoch with the sticky assignor and
 * writes a record 21 for each member whose part changed, then record 20. */
static void update_target(kc_coord_t *c, st_group_t *g, const st_config_t *cf, int64_t now_ms,
                          kc_result_t *res)
{
    /* The assignor sees the members in the order of Kafka's memberIds (a
     * HashMap filled from the members map) and, for stickiness, the tasks
     * each one currently has (TargetAssignmentBuilder). */
    size_t nm = g->members.n;
    const st_member_t **table = members_in_table_order(g);
    kc_str_t *names = kc_xcalloc(nm + 1, sizeof(*names));
    int32_t *ord = kc_xcalloc(nm + 1, sizeof(*ord));
    for (size_t i = 0; i < nm; i++)
        names[i] = kc_str(table[i]->member_id);
    java_hash_order(names, (int32_t)nm, ord);
    st_member_t **sorted = kc_xcalloc(nm ? nm : 1, sizeof(*sorted));
    for (size_t i = 0; i < nm; i++)
        sorted[i] = (st_member_t *)table[ord[i]];
    free(table);
    free(names);
    free(ord);
    kc_st_member_t *am = kc_xcalloc(nm ? nm : 1, sizeof(*am));
    for (size_t i = 0; i < nm; i++) {
        am[i].member_id = sorted[i]->member_id;
        am[i].process_id = sorted[i]->process_id;
        am[i].previous = &sorted[i]->assigned;
    }
    int32_t ns = cf && cf->ready && g->topology ? cf->nsubs : 0;
    kc_st_subtopology_t *subs = kc_xcalloc((size_t)ns + 1, sizeof(*subs));
    char **ids = kc_xcalloc((size_t)ns + 1, sizeof(*ids));
    for (int32_t s = 0; s < ns; s++) {
        ids[s] = kc_str_dup_or_null(g->topology->subtopologies.items[s].subtopology_id);
        subs[s] = (kc_st_subtopology_t){ids[s], cf->ntasks[s], cf->stateful[s]};
    }
    kc_st_spec_t spec = {subs, ns, am, (int32_t)nm,
                         kc_coord_group_cfg(c, g->group_id)->group_streams_num_standby_replicas};
    kc_assignor_streams_sticky(&spec);
    /* The target records' applies leave every member in place. */
    for (size_t i = 0; i < nm; i++) {
        kc_tasks_tuple_t nt = {am[i].active, am[i].standby, {0}};
        if (!sorted[i]->has_target || !kc_tasks_tuple_equal(&sorted[i]->target, &nt))
            write_target_member(c, g, sorted[i]->member_id, &nt, res);
        kc_tasks_tuple_free(&nt);
    }
    write_target_metadata(c, g, g->group_epoch, now_ms, res);
    kc_log_info(LOG_COMP, "[GroupId %s] Computed a new target assignment for epoch %d with 'sticky' assignor.",
                g->group_id, g->group_epoch);
    for (int32_t s = 0; s < ns; s++)
        free(ids[s]);
    free(ids);
    free(subs);
    free(am);
    free(sorted);
}

static void on_initial_delay(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    (void)key;
    const kc_timer_t *t = kc_timer_current(c);
    st_group_t *g = group_get(c, (kc_str_t){t->group_id, (int32_t)t->group_id_len});
    if (!g || g->members.n == 0 || g->group_epoch <= g->assignment_epoch || !g->topology)
        return;
    /* Kafka's timer uses the configured topology in memory and skips when
     * there is none (the group was created by the heartbeat that armed it). */
    if (!g->cfg) {
        kc_log_warn(LOG_COMP, "[GroupId %s] Cannot compute delayed target assignment: configured "
                    "topology is not present", g->group_id);
        return;
    }
    update_target(c, g, g->cfg, now_ms, res);
}

/* ---- reconciliation (CurrentAssignmentBuilder) ----------------------------- */

/* Whether member m's process holds task (sub, p) of the given kind through
 * another member (standby = 1, warm-up = 2) or, with self_too, any member. */
static bool process_holds(const st_group_t *g, const st_member_t *m, int kind, const char *sub,
                          int32_t p, bool self_too)
{
    for (size_t i = 0; i < g->members.n; i++) {
        const st_member_t *o = st_member_at(g, i);
        if ((o == m && !self_too) || strcmp(o->process_id, m->process_id) != 0)
            continue;
        const kc_tasks_t *a = kind == 1 ? &o->assigned.standby : &o->assigned.warmup;
        const kc_tasks_t *q = kind == 1 ? &o->pending.standby : &o->pending.warmup;
        if (kc_tasks_has(a, sub, p) || kc_tasks_has(q, sub, p))
            return true;
    }
    return false;
}

static bool unreleased(st_group_t *g, const st_member_t *m, int kind, const char *sub, int32_t p)
{
    st_member_t *owner = active_owner(g, sub, p);
    switch (kind) {
    case 0: /* active: owned elsewhere, or a replica of it on this process elsewhere */
        return owner != NULL || process_holds(g, m, 1, sub, p, false) ||
               process_holds(g, m, 2, sub, p, false);
    case 1: /* standby */
        return (owner && owner != m && strcmp(owner->process_id, m->process_id) == 0) ||
               process_holds(g, m, 1, sub, p, true) || process_holds(g, m, 2, sub, p, false);
    default: /* warm-up */
        return (owner && strcmp(owner->process_id, m->process_id) == 0) ||
               process_holds(g, m, 1, sub, p, false) || process_holds(g, m, 2, sub, p, true);
    }
}

static bool tasks_intersect(const kc_tasks_t *a, const kc_tasks_t *b)
{
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t j = 0; j < a->s[i].n; j++)
            if (kc_tasks_has(b, a->s[i].subtopology_id, a->s[i].p[j]))
                return true;
    return false;
}

/* hasNotReleased: without a report (owned NULL) the tasks count as held. */
static bool not_released(const kc_tasks_tuple_t *owned, const kc_tasks_tuple_t *revoke)
{
    if (!owned)
        return true;
    return tasks_intersect(&revoke->active, &owned->active) ||
           tasks_intersect(&revoke->standby, &owned->standby) ||
           tasks_intersect(&revoke->warmup, &owned->warmup);
}

static kc_tasks_t *kind_of(kc_tasks_tuple_t *t, int kind)
{
    return kind == 0 ? &t->active : kind == 1 ? &t->standby : &t->warmup;
}

static const kc_tasks_t *kind_in(const kc_tasks_tuple_t *t, int kind)
{
    return kind == 0 ? &t->active : kind == 1 ? &t->standby : &t->warmup;
}

/* The member's tasks sorted against its target (CurrentAssignmentBuilder's
 * first pass): kept, to revoke, and to add (those nobody else still holds;
 * has_unreleased when some are). */
typedef struct {
    kc_tasks_tuple_t assigned, revoke, add;
    bool has_unreleased;
} st_reconcile_t;

static void reconcile_sort(st_group_t *g, const st_member_t *m, st_reconcile_t *r)
{
    for (int kind = 0; kind < 3; kind++) {
        const kc_tasks_t *cur = kind_in(&m->assigned, kind), *tgt = kind_in(&m->target, kind);
        for (int32_t i = 0; i < cur->n; i++)
            for (int32_t j = 0; j < cur->s[i].n; j++) {
                const char *sub = cur->s[i].subtopology_id;
                int32_t p = cur->s[i].p[j];
                kc_tasks_add(kc_tasks_has(tgt, sub, p) ? kind_of(&r->assigned, kind)
                                                       : kind_of(&r->revoke, kind),
                             sub, p);
            }
        for (int32_t i = 0; i < tgt->n; i++)
            for (int32_t j = 0; j < tgt->s[i].n; j++) {
                const char *sub = tgt->s[i].subtopology_id;
                int32_t p = tgt->s[i].p[j];
                if (kc_tasks_has(cur, sub, p))
                    continue;
                if (unreleased(g, m, kind, sub, p))
                    r->has_unreleased = true;
                else
                    kc_tasks_add(kind_of(&r->add, kind), sub, p);
            }
    }
}

/*
 * Role changes of one task on this member take effect at once (Kafka
 * 4.4's CurrentAssignmentBuilder): an active task becoming a standby is
 * assigned as standby while the active one is still being revoked; a
 * standby becoming a warm-up (or back) is converted without a revocation;
 * a standby or warm-up becoming active needs no revocation either and
 * stays in place until the active task is granted. Returns whether tasks
 * remain to be revoked (and the member's report still shows them).
 */
static bool reconcile_role_changes(const st_member_t *m, const kc_tasks_tuple_t *owned,
                                   st_reconcile_t *r)
{
    for (int from = 0; from < 3; from++) {
        int to = from == 0 ? 1 : from == 1 ? 2 : 1;
        const kc_tasks_t *cur = kind_in(&m->assigned, from);
        for (int32_t i = 0; i < cur->n; i++)
            for (int32_t j = 0; j < cur->s[i].n; j++) {
                const char *sub = cur->s[i].subtopology_id;
                int32_t p = cur->s[i].p[j];
                if (!kc_tasks_remove(kind_of(&r->add, to), sub, p))
                    continue;
                kc_tasks_add(kind_of(&r->assigned, to), sub, p);
                if (from != 0)
                    kc_tasks_remove(kind_of(&r->revoke, from), sub, p);
            }
    }
    for (int from = 1; from < 3; from++) {
        const kc_tasks_t *cur = kind_in(&m->assigned, from);
        for (int32_t i = 0; i < cur->n; i++)
            for (int32_t j = 0; j < cur->s[i].n; j++)
                if (kc_tasks_has(&m->target.active, cur->s[i].subtopology_id, cur->s[i].p[j]))
                    kc_tasks_remove(kind_of(&r->revoke, from), cur->s[i].subtopology_id,
                                    cur->s[i].p[j]);
    }
    bool to_revoke = !kc_tasks_tuple_is_empty(&r->revoke) && not_released(owned, &r->revoke);
    for (int from = 1; from < 3; from++) {
        const kc_tasks_t *cur = kind_in(&m->assigned, from);
        for (int32_t i = 0; i < cur->n; i++)
            for (int32_t j = 0; j < cur->s[i].n; j++) {
                const char *sub = cur->s[i].subtopology_id;
                int32_t p = cur->s[i].p[j];
                bool promoted_now = !to_revoke && kc_tasks_has(&r->add.active, sub, p);
                if (kc_tasks_has(&m->target.active, sub, p) && !promoted_now)
                    kc_tasks_add(kind_of(&r->assigned, from), sub, p);
            }
    }
    return to_revoke;
}

/*
 * Moves the member towards its target: tasks no longer in the target are
 * revoked first (UNREVOKED_TASKS, epoch kept) until the member's report
 * shows them gone; then the member takes the target epoch and the target
 * tasks nobody else still holds (UNRELEASED_TASKS while some are held).
 * Returns true, with the new current assignment in out (the caller's to
 * free), when it differs from the member's.
 */
static bool reconcile(st_group_t *g, const st_member_t *m, const kc_tasks_tuple_t *owned,
                      st_current_t *out)
{
    int32_t target_epoch = g->assignment_epoch;
    int32_t epoch = m->member_epoch;
    switch (m->state) {
    case MS_STABLE:
        if (m->member_epoch == target_epoch)
            return false;
        break;
    case MS_UNREVOKED:
        if (not_released(owned, &m->pending))
            return false;
        epoch = m->member_epoch + 1;
        break;
    default:
        break;
    }
    st_reconcile_t r = {0};
    reconcile_sort(g, m, &r);
    bool to_revoke = reconcile_role_changes(m, owned, &r);
    int32_t new_epoch, new_prev = m->previous_member_epoch;
    int8_t state;
    kc_tasks_tuple_t pending = {0};
    if (to_revoke) {
        state = MS_UNREVOKED;
        new_epoch = epoch;
        pending = r.revoke;
        memset(&r.revoke, 0, sizeof(r.revoke));
    } else {
        for (int kind = 0; kind < 3; kind++) {
            kc_tasks_t *a = kind_of(&r.add, kind);
            for (int32_t i = 0; i < a->n; i++)
                for (int32_t j = 0; j < a->s[i].n; j++)
                    kc_tasks_add(kind_of(&r.assigned, kind), a->s[i].subtopology_id, a->s[i].p[j]);
        }
        state = r.has_unreleased ? MS_UNRELEASED : MS_STABLE;
        new_epoch = target_epoch;
    }
    kc_tasks_tuple_free(&r.add);
    kc_tasks_tuple_free(&r.revoke);
    /* Kept and revoking active tasks keep the epoch they were assigned at,
     * the new ones take the target's (KIP-1251). */
    kc_tasks_epochs_carry(&r.assigned.active, &m->assigned.active, target_epoch);
    kc_tasks_epochs_carry(&pending.active, &m->assigned.active, target_epoch);
    if (new_epoch != m->member_epoch)
        new_prev = m->member_epoch;
    bool changed = new_epoch != m->member_epoch || new_prev != m->previous_member_epoch ||
                   state != m->state || !kc_tasks_tuple_equal(&r.assigned, &m->assigned) ||
                   !kc_tasks_tuple_equal(&pending, &m->pending);
    if (changed) {
        *out = (st_current_t){new_epoch, new_prev, state, r.assigned, pending};
    } else {
        kc_tasks_tuple_free(&r.assigned);
        kc_tasks_tuple_free(&pending);
    }
    return changed;
}

/* ---- request checks ---------------------------------------------------------- */

/* A subtopology id as a C string (null: ""): a subtopology id is short, so
 * it goes in buf (64 bytes) when it fits instead of the heap. Free the
 * result with sub_cstr_free(result, buf). */
static char *sub_cstr(kc_str_t subtopology_id, char buf[64])
{
    size_t len = subtopology_id.len > 0 ? (size_t)subtopology_id.len : 0;
    char *sub = len < 64 ? buf : kc_xmalloc(len + 1);
    if (len)
        memcpy(sub, subtopology_id.ptr, len);
    sub[len] = '\0';
    return sub;
}

static void sub_cstr_free(char *sub, const char *buf)
{
    if (sub != buf)
        free(sub);
}

/* The n tasks p of one subtopology (a null id reads as ""), added to out:
 * the one step of every task list read from a request or a record. */
static void tasks_add_sub(kc_tasks_t *out, kc_str_t subtopology_id, const int32_t *p, int32_t n)
{
    if (n <= 0)
        return;
    char buf[64];
    char *sub = sub_cstr(subtopology_id, buf);
    kc_tasks_add_all(out, sub, p, n);
    sub_cstr_free(sub, buf);
}

static void tasks_from_request(kc_tasks_t *out, const req_tasks_t *items, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        tasks_add_sub(out, items[i].subtopology_id, items[i].partitions.items,
                      items[i].partitions.count);
}

/* -- reported task offsets (MemberTaskOffsets) -- */

typedef kc_streams_group_heartbeat_request_task_offset_t req_offset_t;

typedef struct {
    const req_offset_t *o;
    int32_t idx; /* place in the request's list */
} offset_pos_t;

static int cmp_req_str(kc_str_t a, kc_str_t b)
{
    size_t la = a.len > 0 ? (size_t)a.len : 0, lb = b.len > 0 ? (size_t)b.len : 0;
    int r = memcmp(a.ptr ? a.ptr : "", b.ptr ? b.ptr : "", la < lb ? la : lb);
    if (r)
        return r;
    return la < lb ? -1 : la > lb;
}

static int cmp_offset_pos(const void *a, const void *b)
{
    const offset_pos_t *x = a, *y = b;
    int r = cmp_req_str(x->o->subtopology_id, y->o->subtopology_id);
    if (r)
        return r;
    if (x->o->partition != y->o->partition)
        return x->o->partition < y->o->partition ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * One reported list (TaskOffsets or TaskEndOffsets), as
 * MemberTaskOffsets.toNestedMap reads it: the first entry, in request
 * order, whose subtopology id and partition an earlier entry already gave
 * refuses the request (INVALID_REQUEST, msg filled, out untouched).
 * Otherwise out holds the list sorted as Describe gives it (subtopology id,
 * then partition).
 */
static bool task_offsets_from_request(st_task_offsets_t *out, const req_offset_t *items, int32_t n,
                                      char *msg, size_t cap)
{
    memset(out, 0, sizeof(*out));
    if (n <= 0)
        return true;
    offset_pos_t *pos = kc_xcalloc((size_t)n, sizeof(*pos));
    for (int32_t i = 0; i < n; i++) {
        pos[i].o = &items[i];
        pos[i].idx = i;
    }
    qsort(pos, (size_t)n, sizeof(*pos), cmp_offset_pos);
    int32_t dup = -1;
    /* Entries of one key are sorted by place: the earliest repeat of all
     * is the smallest place among the entries that follow one of their key. */
    for (int32_t i = 1; i < n; i++)
        if (pos[i].o->partition == pos[i - 1].o->partition &&
            cmp_req_str(pos[i].o->subtopology_id, pos[i - 1].o->subtopology_id) == 0 &&
            (dup < 0 || pos[i].idx < dup))
            dup = pos[i].idx;
    if (dup >= 0) {
        kc_str_t sub = items[dup].subtopology_id;
        snprintf(msg, cap, "Task offsets contain a duplicate entry for subtopology %.*s and partition %d.",
                 sub.len > 0 ? (int)sub.len : 0, sub.ptr ? sub.ptr : "", items[dup].partition);
        free(pos);
        return false;
    }
    out->items = kc_xcalloc((size_t)n, sizeof(*out->items));
    out->n = n;
    for (int32_t i = 0; i < n; i++) {
        const req_offset_t *o = pos[i].o;
        out->items[i].subtopology_id = kc_str_dup_or_null(o->subtopology_id.len >= 0 ? o->subtopology_id : kc_str(""));
        out->items[i].partition = o->partition;
        out->items[i].offset = o->offset;
    }
    free(pos);
    return true;
}

/* Replaces *dst by *src (which is left empty). */
static void task_offsets_move(st_task_offsets_t *dst, st_task_offsets_t *src)
{
    task_offsets_free(dst);
    *dst = *src;
    memset(src, 0, sizeof(*src));
}

static void desc_task_offsets(const st_task_offsets_t *in, kc_arena_t *a,
                              kc_streams_group_describe_response_task_offset_t **items, int32_t *count)
{
    *items = kc_arena_alloc(a, sizeof(**items) * (size_t)(in->n + 1));
    *count = in->n;
    for (int32_t i = 0; i < in->n; i++) {
        (*items)[i].subtopology_id = kc_str(in->items[i].subtopology_id);
        (*items)[i].partition = in->items[i].partition;
        (*items)[i].offset = in->items[i].offset;
    }
}

static bool tasks_contained(const kc_tasks_t *owned, const kc_tasks_t *assigned)
{
    for (int32_t i = 0; i < owned->n; i++)
        for (int32_t j = 0; j < owned->s[i].n; j++)
            if (!kc_tasks_has(assigned, owned->s[i].subtopology_id, owned->s[i].p[j]))
                return false;
    return true;
}

static bool tuple_contained(const kc_tasks_tuple_t *owned, const kc_tasks_tuple_t *assigned)
{
    return tasks_contained(&owned->active, &assigned->active) &&
           tasks_contained(&owned->standby, &assigned->standby) &&
           tasks_contained(&owned->warmup, &assigned->warmup);
}

/* Kafka's Topic.isInternal. */
static bool topic_is_internal(kc_str_t n)
{
    return str_is(n, "__consumer_offsets") || str_is(n, "__transaction_state") ||
           str_is(n, "__share_group_state");
}

/* Kafka's Topic.isValid. */
static bool topic_name_valid(kc_str_t n)
{
    if (n.len <= 0 || n.len > 249 || str_is(n, ".") || str_is(n, ".."))
        return false;
    for (int32_t i = 0; i < n.len; i++) {
        char ch = n.ptr[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
            return false;
    }
    return true;
}

/* The topology's topics in Kafka's order (per subtopology: source,
 * repartition sink, repartition source, changelog), each name once. */
static size_t topology_topics(const kc_streams_group_heartbeat_request_topology_t *t,
                              kc_str_t **out)
{
    size_t cap = 0, n = 0;
    kc_str_t *v = NULL;
    for (int32_t i = 0; i < t->subtopologies.count; i++) {
        const req_sub_t *s = &t->subtopologies.items[i];
        int32_t total = s->source_topics.count + s->repartition_sink_topics.count +
                        s->repartition_source_topics.count + s->state_changelog_topics.count;
        for (int32_t k = 0; k < total; k++) {
            int32_t j = k;
            kc_str_t name;
            if (j < s->source_topics.count) {
                name = s->source_topics.items[j];
            } else if ((j -= s->source_topics.count) < s->repartition_sink_topics.count) {
                name = s->repartition_sink_topics.items[j];
            } else if ((j -= s->repartition_sink_topics.count) < s->repartition_source_topics.count) {
                name = s->repartition_source_topics.items[j].name;
            } else {
                j -= s->repartition_source_topics.count;
                name = s->state_changelog_topics.items[j].name;
            }
            bool seen = false;
            for (size_t q = 0; q < n && !seen; q++)
                seen = kc_str_eq(v[q], name);
            if (seen)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                v = kc_xrealloc(v, cap * sizeof(*v));
            }
            v[n++] = name;
        }
    }
    *out = v;
    return n;
}

/*
 * The checks KafkaApis makes on a heartbeat's topology before the group
 * coordinator sees the request: no internal Kafka topic, only valid topic
 * names (STREAMS_INVALID_TOPOLOGY, the offending names joined by commas),
 * and DESCRIBE on every topic (TOPIC_AUTHORIZATION_FAILED, no message).
 * *msg is allocated when an error comes with a message.
 */
static int16_t check_topology_topics(const kc_request_ctx_t *ctx,
                                     const kc_streams_group_heartbeat_request_t *req, char **msg)
{
    *msg = NULL;
    if (!req->topology)
        return KC_ERR_NONE;
    kc_str_t *names = NULL;
    size_t n = topology_topics(req->topology, &names);
    int16_t err = KC_ERR_NONE;
    for (int pass = 0; pass < 2 && !err; pass++) {
        kc_buf_t b;
        kc_buf_init(&b);
        for (size_t i = 0; i < n; i++) {
            bool bad = pass == 0 ? topic_is_internal(names[i]) : !topic_name_valid(names[i]);
            if (!bad)
                continue;
            if (b.len > 0)
                kc_buf_append(&b, ",", 1);
            kc_buf_append(&b, names[i].ptr, (size_t)names[i].len);
        }
        if (b.len > 0) {
            const char *pre = pass == 0 ? "Use of Kafka internal topics " : "Topic names ";
            const char *post = pass == 0 ? " in a Kafka Streams topology is prohibited."
                                         : " are not valid topic names.";
            size_t len = strlen(pre) + b.len + strlen(post) + 1;
            *msg = kc_xmalloc(len);
            snprintf(*msg, len, "%s%.*s%s", pre, (int)b.len, (const char *)b.data, post);
            err = KC_ERR_STREAMS_INVALID_TOPOLOGY;
        }
        kc_buf_deinit(&b);
    }
    for (size_t i = 0; i < n && !err; i++)
        if (!kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_TOPIC, names[i]))
            err = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
    free(names);
    return err;
}

/*
 * The request checks of GroupCoordinatorService (protocol.md 7.2), before
 * any group state is touched; each message names the rule that failed.
 */
static int16_t validate_request(const kc_streams_group_heartbeat_request_t *req, char *msg, size_t cap)
{
    if (req->topology) {
        for (int32_t i = 0; i < req->topology->subtopologies.count; i++)
            if (req->topology->subtopologies.items[i].source_topic_regex.count > 0) {
                snprintf(msg, cap, "Regular expressions for source topics are not supported yet.");
                return KC_ERR_INVALID_REQUEST;
            }
    }
    if (req->member_id.len == 0) {
        snprintf(msg, cap, "MemberId can't be empty.");
        return KC_ERR_INVALID_REQUEST;
    }
    int16_t err = kc_modern_validate_ids(req->group_id, req->instance_id, req->rack_id, msg, cap);
    if (err != KC_ERR_NONE)
        return err;
    int32_t epoch = req->member_epoch;
    if (epoch == 0) {
        if (req->rebalance_timeout_ms == -1) {
            snprintf(msg, cap, "RebalanceTimeoutMs must be provided in first request.");
            return KC_ERR_INVALID_REQUEST;
        }
        if (req->active_tasks.count != 0) { /* null is not empty either */
            snprintf(msg, cap, "ActiveTasks must be empty when (re-)joining.");
            return KC_ERR_INVALID_REQUEST;
        }
        if (req->standby_tasks.count != 0) {
            snprintf(msg, cap, "StandbyTasks must be empty when (re-)joining.");
            return KC_ERR_INVALID_REQUEST;
        }
        if (req->warmup_tasks.count != 0) {
            snprintf(msg, cap, "WarmupTasks must be empty when (re-)joining.");
            return KC_ERR_INVALID_REQUEST;
        }
        if (!req->topology) {
            snprintf(msg, cap, "Topology must be non-null when (re-)joining.");
            return KC_ERR_INVALID_REQUEST;
        }
        for (int32_t i = 0; i < req->topology->subtopologies.count; i++) {
            const req_sub_t *s = &req->topology->subtopologies.items[i];
            for (int32_t k = 0; k < s->state_changelog_topics.count; k++)
                if (s->state_changelog_topics.items[k].partitions != 0) {
                    snprintf(msg, cap,
                             "Changelog topic %.*s must have an undefined partition count, but it "
                             "is set to %d.",
                             (int)s->state_changelog_topics.items[k].name.len,
                             s->state_changelog_topics.items[k].name.ptr,
                             s->state_changelog_topics.items[k].partitions);
                    return KC_ERR_STREAMS_INVALID_TOPOLOGY;
                }
        }
    } else if (epoch == EPOCH_STATIC_LEAVE) {
        if (req->instance_id.len < 0) {
            snprintf(msg, cap, "InstanceId can't be null.");
            return KC_ERR_INVALID_REQUEST;
        }
    } else if (epoch < EPOCH_STATIC_LEAVE) {
        snprintf(msg, cap, "MemberEpoch is %d, but must be greater than or equal to -2.", epoch);
        return KC_ERR_INVALID_REQUEST;
    }
    bool any = req->active_tasks.count >= 0 || req->standby_tasks.count >= 0 ||
               req->warmup_tasks.count >= 0;
    bool all = req->active_tasks.count >= 0 && req->standby_tasks.count >= 0 &&
               req->warmup_tasks.count >= 0;
    if (any && !all) {
        snprintf(msg, cap, "If one task-type is non-null, all must be non-null.");
        return KC_ERR_INVALID_REQUEST;
    }
    if (epoch != 0 && req->topology) {
        snprintf(msg, cap, "Topology can only be provided when (re-)joining.");
        return KC_ERR_INVALID_REQUEST;
    }
    return KC_ERR_NONE;
}

/* throwIfStreamsGroupMemberEpochIsInvalid, plus kcoord's opt-in for an
 * all-null retry with the previous epoch. */
static int16_t validate_epoch(const kc_coord_t *c, const st_member_t *m, int32_t epoch,
                              const kc_tasks_tuple_t *owned, char *msg, size_t cap)
{
    if (epoch == 0)
        return KC_ERR_NONE;
    if (epoch > m->member_epoch) {
        snprintf(msg, cap,
                 "The streams group member has a greater member epoch (%d) than the one known by "
                 "the group coordinator (%d). The member must abandon all its partitions and rejoin.",
                 epoch, m->member_epoch);
        return KC_ERR_FENCED_MEMBER_EPOCH;
    }
    if (epoch < m->member_epoch) {
        bool ok = epoch == m->previous_member_epoch;
        if (ok && owned) {
            ok = tuple_contained(owned, &m->assigned);
        } else if (ok) {
            ok = c->cfg.group_streams_accept_null_owned_tasks_on_previous_epoch && m->has_last_report &&
                 tuple_contained(&m->last_report, &m->assigned);
        }
        if (!ok) {
            snprintf(msg, cap,
                     "The streams group member has a smaller member epoch (%d) than the one known "
                     "by the group coordinator (%d). The member must abandon all its partitions and "
                     "rejoin.",
                     epoch, m->member_epoch);
            return KC_ERR_FENCED_MEMBER_EPOCH;
        }
    }
    return KC_ERR_NONE;
}

/* throwIfRequestContainsInvalidTasks against the configured topology. */
static int16_t validate_tasks(const topo_t *t, const st_config_t *cf, const kc_tasks_t *tasks,
                              char *msg, size_t cap)
{
    for (int32_t i = 0; i < tasks->n; i++) {
        int32_t s = -1;
        for (int32_t k = 0; k < t->subtopologies.count && s < 0; k++)
            if (kc_str_eq_cstr(t->subtopologies.items[k].subtopology_id, tasks->s[i].subtopology_id))
                s = k;
        if (s < 0) {
            snprintf(msg, cap, "Subtopology %s does not exist in the topology.",
                     tasks->s[i].subtopology_id);
            return KC_ERR_INVALID_REQUEST;
        }
        for (int32_t j = 0; j < tasks->s[i].n; j++)
            if (tasks->s[i].p[j] < 0 || tasks->s[i].p[j] >= cf->ntasks[s]) {
                snprintf(msg, cap, "Task %d for subtopology %s is invalid. Number of tasks for this subtopology: %d",
                         tasks->s[i].p[j], tasks->s[i].subtopology_id, cf->ntasks[s]);
                return KC_ERR_INVALID_REQUEST;
            }
    }
    return KC_ERR_NONE;
}

/* ---- responses ----------------------------------------------------------------- */

typedef kc_streams_group_heartbeat_response_t hb_resp_t;

static void send_hb(kc_result_t *res, const kc_request_ctx_t *ctx, const hb_resp_t *r,
                    bool depends_on_records)
{
    hb_resp_t e;
    kc_streams_group_heartbeat_response_init(&e);
    e.error_code = KC_COORD_ERR_WRITE_FAILED;
    e.member_id = kc_str("");
    kc_result_respond(res, ctx, r, depends_on_records ? &e : NULL);
}

static void send_hb_error(kc_result_t *res, const kc_request_ctx_t *ctx, int16_t error,
                          const char *message)
{
    hb_resp_t r;
    kc_streams_group_heartbeat_response_init(&r);
    r.error_code = error;
    r.error_message = kc_str(message);
    r.member_id = kc_str("");
    send_hb(res, ctx, &r, false);
}

/* A heartbeat answer's task lists: the subtopologies in the order of the
 * member's HashMap of them (Kafka iterates it), the partitions sorted. */
static void resp_tasks(const kc_tasks_t *t, kc_arena_t *a, req_tasks_t **items, int32_t *count)
{
    *items = kc_arena_alloc(a, sizeof(**items) * (size_t)(t->n + 1));
    *count = 0;
    kc_str_t *ids = kc_xcalloc((size_t)t->n + 1, sizeof(*ids));
    int32_t *ord = kc_xcalloc((size_t)t->n + 1, sizeof(*ord));
    int32_t n = 0;
    int32_t *src = kc_xcalloc((size_t)t->n + 1, sizeof(*src));
    for (int32_t i = 0; i < t->n; i++)
        if (t->s[i].n > 0) {
            src[n] = i;
            ids[n++] = kc_str(t->s[i].subtopology_id);
        }
    n = java_hash_order(ids, n, ord);
    for (int32_t k = 0; k < n; k++) {
        const kc_tasks_sub_t *ts = &t->s[src[ord[k]]];
        req_tasks_t *o = &(*items)[(*count)++];
        o->subtopology_id = kc_str(ts->subtopology_id);
        o->partitions.items = ts->p;
        o->partitions.count = ts->n;
    }
    free(ids);
    free(ord);
    free(src);
}

typedef kc_streams_group_heartbeat_response_topic_partition_t resp_tp_t;

/* The topic partitions of a member's tasks: each task's partition of every
 * source and repartition source topic of its subtopology
 * (EndpointToPartitionsManager). */
/*
 * EndpointToPartitionsManager: for each subtopology of the tasks (in the
 * order of Kafka's map of them), its source and repartition source topics
 * in the order of the HashSet Kafka gathers them in, each with the task
 * partitions the topic has.
 */
static void endpoint_partitions(kc_coord_t *c, const st_group_t *g, const kc_tasks_t *t,
                                kc_arena_t *a, resp_tp_t **items, int32_t *count)
{
    int32_t cap = 0;
    const topo_t *tp = g->topology;
    for (int32_t i = 0; tp && i < t->n; i++)
        for (int32_t k = 0; k < tp->subtopologies.count; k++)
            if (kc_str_eq_cstr(tp->subtopologies.items[k].subtopology_id, t->s[i].subtopology_id))
                cap += tp->subtopologies.items[k].source_topics.count +
                       tp->subtopologies.items[k].repartition_source_topics.count;
    *items = kc_arena_alloc(a, sizeof(**items) * (size_t)(cap + 1));
    *count = 0;
    kc_str_t *subs = kc_xcalloc((size_t)t->n + 1, sizeof(*subs));
    int32_t *sord = kc_xcalloc((size_t)t->n + 1, sizeof(*sord));
    for (int32_t i = 0; i < t->n; i++)
        subs[i] = kc_str(t->s[i].subtopology_id);
    int32_t nsubs = java_hash_order(subs, t->n, sord);
    for (int32_t q = 0; tp && q < nsubs; q++) {
        const kc_tasks_sub_t *ts = &t->s[sord[q]];
        for (int32_t k = 0; k < tp->subtopologies.count; k++) {
            const topo_sub_t *s = &tp->subtopologies.items[k];
            if (!kc_str_eq_cstr(s->subtopology_id, ts->subtopology_id))
                continue;
            int32_t nsrc = s->source_topics.count + s->repartition_source_topics.count;
            kc_str_t *names = kc_xcalloc((size_t)nsrc + 1, sizeof(*names));
            int32_t *ord = kc_xcalloc((size_t)nsrc + 1, sizeof(*ord));
            for (int32_t x = 0; x < nsrc; x++)
                names[x] = x < s->source_topics.count
                               ? s->source_topics.items[x]
                               : s->repartition_source_topics.items[x - s->source_topics.count].name;
            int32_t nd = java_hash_order(names, nsrc, ord);
            for (int32_t x = 0; x < nd; x++) {
                int32_t parts;
                kc_uuid_t id;
                if (!lookup_topic(c, names[ord[x]], &parts, &id))
                    parts = 0;
                int32_t *ps = kc_arena_alloc(a, sizeof(int32_t) * (size_t)(ts->n + 1));
                int32_t np = 0;
                for (int32_t j = 0; j < ts->n; j++)
                    if (ts->p[j] < parts)
                        ps[np++] = ts->p[j];
                if (np == 0)
                    continue;
                resp_tp_t *o = &(*items)[(*count)++];
                o->topic = names[ord[x]];
                o->partitions.items = ps;
                o->partitions.count = np;
            }
            free(names);
            free(ord);
        }
    }
    free(subs);
    free(sord);
}

static void endpoint_of(kc_coord_t *c, const st_group_t *g, const st_member_t *m, hb_resp_t *r,
                        kc_arena_t *a)
{
    kc_streams_group_heartbeat_response_endpoint_to_partitions_t *e =
        &r->partitions_by_user_endpoint.items[r->partitions_by_user_endpoint.count++];
    memset(e, 0, sizeof(*e));
    e->user_endpoint.host = kc_str(m->endpoint_host);
    e->user_endpoint.port = (uint16_t)m->endpoint_port;
    endpoint_partitions(c, g, &m->assigned.active, a, &e->active_partitions.items,
                        &e->active_partitions.count);
    kc_tasks_t sb = {0};
    kc_tasks_copy(&sb, &m->assigned.standby);
    for (int32_t k = 0; k < m->assigned.warmup.n; k++)
        for (int32_t j = 0; j < m->assigned.warmup.s[k].n; j++)
            kc_tasks_add(&sb, m->assigned.warmup.s[k].subtopology_id, m->assigned.warmup.s[k].p[j]);
    endpoint_partitions(c, g, &sb, a, &e->standby_partitions.items, &e->standby_partitions.count);
    kc_tasks_free(&sb);
}

/* PartitionsByUserEndpoint: the other members in the order of Kafka's
 * members map, then the member answered (buildEndpointToPartitions). */
static void fill_endpoints(kc_coord_t *c, const st_group_t *g, const st_member_t *self, hb_resp_t *r,
                           kc_arena_t *a)
{
    int32_t n = 0;
    for (size_t i = 0; i < g->members.n; i++)
        n += st_member_at(g, i)->endpoint_host ? 1 : 0;
    r->partitions_by_user_endpoint.items =
        kc_arena_alloc(a, sizeof(*r->partitions_by_user_endpoint.items) * (size_t)(n + 1));
    r->partitions_by_user_endpoint.count = 0;
    const st_member_t **ordered = members_in_table_order(g);
    for (size_t i = 0; i < g->members.n; i++)
        if (ordered[i] != self && ordered[i]->endpoint_host)
            endpoint_of(c, g, ordered[i], r, a);
    if (self && self->endpoint_host)
        endpoint_of(c, g, self, r, a);
    free(ordered);
}

static void add_status(hb_resp_t *r, kc_arena_t *a, int8_t code, const char *detail)
{
    kc_streams_group_heartbeat_response_status_t *items =
        kc_arena_alloc(a, sizeof(*items) * (size_t)(r->status.count + 1));
    if (r->status.count > 0)
        memcpy(items, r->status.items, sizeof(*items) * (size_t)r->status.count);
    char *d = kc_arena_alloc(a, strlen(detail) + 1);
    strcpy(d, detail);
    items[r->status.count].status_code = code;
    items[r->status.count].status_detail = kc_str(d);
    r->status.items = items;
    r->status.count++;
}

/* ---- leave ----------------------------------------------------------------------- */

static void heartbeat_leave(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_streams_group_heartbeat_request_t *req, kc_result_t *res)
{
    char msg[MSG_MAX];
    st_group_t *g = group_get(c, req->group_id);
    if (!g) {
        /* A leave looks the group up by id whatever its type (streamsGroup). */
        bool other = kc_group_get(c, req->group_id) != NULL;
        snprintf(msg, sizeof(msg), other ? "Group %.*s is not a streams group." : "Group %.*s not found.",
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
    st_member_t *m = (st_member_t *)found;
    if (req->shutdown_application) {
        free(g->shutdown_member_id);
        g->shutdown_member_id = kc_str_dup_or_null(req->member_id);
    }
    size_t first = res->nrecords;
    hb_resp_t r;
    kc_streams_group_heartbeat_response_init(&r);
    r.member_id = req->member_id;
    r.member_epoch = req->member_epoch;
    if (req->member_epoch == EPOCH_STATIC_LEAVE) {
        kc_log_info(LOG_COMP, "[GroupId %s][MemberId %s] Static member %s with instance id %s temporarily left the streams group.",
                    g->group_id, m->member_id, m->member_id, m->instance_id);
        kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, g->group_id, m->member_id, "static member left temporarily (epoch -2)", g->group_epoch, 0, ctx->now_ms);
        st_current_t cur = {.epoch = EPOCH_STATIC_LEAVE,
                            .prev = m->member_epoch,
                            .state = m->state == MS_UNREVOKED ? MS_STABLE : m->state};
        kc_tasks_tuple_copy(&cur.assigned, &m->assigned);
        /* Its active tasks count as assigned at epoch 0 from here on: the
         * member that takes the instance over commits them, an old epoch of
         * this one is fenced. */
        kc_tasks_epochs_fill(&cur.assigned.active, 0);
        kc_member_cancel_rebalance(c, kc_modern_group_id(&g->base), m->member_id);
        write_current(c, g, m->member_id, &cur, res);
        current_free(&cur);
    } else {
        kc_log_info(LOG_COMP, "[GroupId %s][MemberId %s] Member %s left the streams group.",
                    g->group_id, m->member_id, m->member_id);
        kc_streams_fence_member_event(c, g, m->member_id, KC_COORD_EV_MEMBER_REMOVED, "left the group (epoch -1)", ctx->now_ms, res);
    }
    send_hb(res, ctx, &r, kc_result_wrote_since(res, first));
}

/* ---- heartbeat ------------------------------------------------------------------- */

static bool tags_equal(const st_member_t *m, const kc_streams_group_heartbeat_request_key_value_t *kv,
                       int32_t n)
{
    if (n != m->ntags)
        return false;
    for (int32_t i = 0; i < n; i++)
        if (!str_is(kv[i].key, m->tag_keys[i]) || !str_is(kv[i].value, m->tag_values[i]))
            return false;
    return true;
}

static void heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                      const kc_streams_group_heartbeat_request_t *req, kc_result_t *res,
                      kc_streams_topics_to_create_t *create);

void kc_coord_streams_group_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                      const kc_streams_group_heartbeat_request_t *req,
                                      kc_result_t *res, kc_streams_topics_to_create_t *create)
{
    heartbeat(c, ctx, req, res, create);
    st_group_t *g = c->loaded ? group_get(c, req->group_id) : NULL;
    if (g)
        note_state(g);
}

/* One StreamsGroupHeartbeat on its way through the steps below (Kafka's
 * GroupMetadataManager.streamsGroupHeartbeat): the request, what it
 * reported, the group, topology and member it found or made, and the
 * answer being built. Owns the buffers freed by hb_free. */
typedef struct {
    kc_coord_t *c;
    const kc_request_ctx_t *ctx;
    const kc_streams_group_heartbeat_request_t *req;
    kc_result_t *res;
    kc_streams_topics_to_create_t *create;
    char *msg;                    /* MSG_MAX bytes: the error message of a refused heartbeat */
    bool no_msg;                  /* refused without a message */
    int32_t epoch;                /* the request's member epoch */
    bool joining;
    st_group_t *g;                /* NULL until the group exists */
    kc_classic_group_t *empty_classic; /* an Empty classic group that gives way */
    kc_tasks_tuple_t owned_buf, *owned; /* the reported owned tasks (NULL: unchanged) */
    st_task_offsets_t rep_offsets, rep_end_offsets; /* reported (taken when non-null) */
    kc_buf_t req_topo;            /* the request's topology, as a record value */
    bool init_topology;           /* the request initialises the group's topology */
    topo_t *topo;                 /* the topology the group will have */
    st_config_t local_cf;         /* its configuration, when initialised here */
    const st_config_t *cf;
    st_member_t *m;               /* NULL until the member exists */
    st_member_t *replaced;        /* static member (epoch -2) being taken over; NULL once gone */
    st_member_t *nm;              /* the proposed member once the request changes the metadata */
    bool created, was_empty, is_new, was_replaced, replaced_same_id;
    kc_tasks_tuple_t old_assigned; /* the member's tasks before this heartbeat */
    char *old_endpoint;
    int32_t old_port;
    bool stale_topology;
    kc_arena_t arena;
    kc_streams_group_heartbeat_response_t r;
} st_heartbeat_t;

static void hb_free(st_heartbeat_t *h)
{
    config_free(&h->local_cf);
    kc_tasks_tuple_free(&h->owned_buf);
    task_offsets_free(&h->rep_offsets);
    task_offsets_free(&h->rep_end_offsets);
    kc_buf_deinit(&h->req_topo);
    free(h->old_endpoint);
    kc_tasks_tuple_free(&h->old_assigned);
    kc_arena_deinit(&h->arena);
}

/* getOrCreateStreamsGroup: the group; for a joining member none yet, or an
 * Empty classic group that gives way; refused when a group of another type
 * holds the id or the member is not joining. */
static int16_t hb_find_group(st_heartbeat_t *h)
{
    kc_str_t id = h->req->group_id;
    h->g = group_get(h->c, id);
    if (h->g)
        return KC_ERR_NONE;
    kc_classic_group_t *classic = h->joining ? kc_classic_group_find(h->c, id) : NULL;
    if (classic && kc_classic_group_is_empty_state(classic))
        h->empty_classic = classic;
    kc_group_t *held = kc_group_get(h->c, id);
    bool other = held != NULL && held != (kc_group_t *)h->empty_classic;
    if (h->joining && !other)
        return KC_ERR_NONE;
    snprintf(h->msg, MSG_MAX,
             other ? "Group %.*s is not a streams group." : "Streams group %.*s not found.",
             (int)id.len, id.ptr);
    return KC_ERR_GROUP_ID_NOT_FOUND;
}

/* getOrMaybeCreateStaticStreamsGroupMember's checks: a static member
 * joining replaces one that left with -2 (by a copy at epoch 0, under the
 * same or a new member id); one rejoining must be the instance's member. */
static int16_t hb_find_static_member(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_t *req = h->req;
    st_member_t *s =
        h->g ? (st_member_t *)kc_modern_members_static(&h->g->members, req->instance_id) : NULL;
    if (h->joining) {
        h->replaced = s;
        return kc_modern_static_join_check(s ? &s->modern : NULL, req->member_id,
                                           req->instance_id, h->msg, MSG_MAX);
    }
    /* Not joining: the group exists (hb_find_group). */
    kc_modern_member_t *found;
    int16_t err = kc_modern_group_find_member(&h->g->modern, req->member_id, req->instance_id,
                                              &found, h->msg, MSG_MAX);
    h->m = (st_member_t *)found;
    return err;
}

/* getOrMaybeCreate*StreamsGroupMember: the group's size limit, the member
 * (dynamic or static) and its epoch, with the owned tasks it reports. */
static int16_t hb_find_member(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_t *req = h->req;
    st_group_t *g = h->g;
    if (req->active_tasks.count >= 0) {
        tasks_from_request(&h->owned_buf.active, req->active_tasks.items, req->active_tasks.count);
        tasks_from_request(&h->owned_buf.standby, req->standby_tasks.items, req->standby_tasks.count);
        tasks_from_request(&h->owned_buf.warmup, req->warmup_tasks.items, req->warmup_tasks.count);
        h->owned = &h->owned_buf;
    }
    h->m = g ? member_get(g, req->member_id) : NULL;
    if (h->joining && g) {
        bool static_exists = kc_modern_members_static(&g->members, req->instance_id) != NULL;
        if (!static_exists && g->members.n >= (size_t)h->c->cfg.group_streams_max_size && !h->m) {
            snprintf(h->msg, MSG_MAX,
                     "The streams group has reached its maximum capacity of %d members.",
                     h->c->cfg.group_streams_max_size);
            return KC_ERR_GROUP_MAX_SIZE_REACHED;
        }
    }
    int16_t err = KC_ERR_NONE;
    if (req->instance_id.len >= 0) {
        err = hb_find_static_member(h);
    } else if (!h->joining && !h->m) {
        snprintf(h->msg, MSG_MAX, "Member %.*s is not a member of group %.*s.",
                 (int)req->member_id.len, req->member_id.ptr, (int)req->group_id.len,
                 req->group_id.ptr);
        err = KC_ERR_UNKNOWN_MEMBER_ID;
    }
    if (err == KC_ERR_NONE && h->m && !h->joining)
        err = validate_epoch(h->c, h->m, h->epoch, h->owned, h->msg, MSG_MAX);
    return err;
}

/* maybeUpdateTopology: the request's topology initialises the group's,
 * matches it, or is stale; then the topology the group will have. */
static int16_t hb_check_topology(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_t *req = h->req;
    st_group_t *g = h->g;
    if (req->topology) {
        char why[320];
        if (!topology_from_request(req->topology, &h->req_topo, why, sizeof(why))) {
            /* Kafka's map of the subtopologies throws an unexpected
             * exception: UNKNOWN_SERVER_ERROR without a message. */
            kc_log_warn(LOG_COMP, "[GroupId %.*s] Rejected a topology: %s.", (int)req->group_id.len,
                        req->group_id.ptr, why);
            h->no_msg = true;
            return KC_ERR_UNKNOWN_SERVER_ERROR;
        }
        if (!g || !g->topology) {
            h->init_topology = true;
        } else if (g->topology->epoch > req->topology->epoch) {
            kc_log_info(LOG_COMP, "[GroupId %s][MemberId %.*s] Member joined with stale topology epoch %d",
                        g->group_id, (int)req->member_id.len, req->member_id.ptr, req->topology->epoch);
        } else if (h->req_topo.len != g->topo_bytes.len ||
                   memcmp(h->req_topo.data, g->topo_bytes.data, h->req_topo.len) != 0) {
            snprintf(h->msg, MSG_MAX, "Topology updates are not supported yet.");
            return KC_ERR_INVALID_REQUEST;
        }
    }
    if (h->init_topology) {
        h->topo = kc_arena_alloc(&h->arena, sizeof(*h->topo));
        kc_streams_group_topology_value_init(h->topo);
        kc_reader_t rd;
        kc_reader_init(&rd, h->req_topo.data, h->req_topo.len);
        if (kc_streams_group_topology_value_decode(&rd, 0, &h->arena, h->topo) != 0 || rd.err) {
            snprintf(h->msg, MSG_MAX, "Topology could not be read.");
            return KC_ERR_INVALID_REQUEST;
        }
    } else if (g && g->topology) {
        h->topo = g->topology;
    } else {
        /* A group rebuilt from records without its topology record. */
        snprintf(h->msg, MSG_MAX, "The topology is null and the group topology is also null.");
        return KC_ERR_UNKNOWN_SERVER_ERROR;
    }
    return KC_ERR_NONE;
}

/* The configured topology (a new one is configured on the request's copy),
 * the reported tasks checked against it, then the reported offsets, the
 * task offsets before the end offsets (MemberTaskOffsets.update): a
 * duplicate refuses the request. */
static int16_t hb_configure(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_t *req = h->req;
    if (h->init_topology) {
        configure(h->c, h->topo, &h->local_cf);
        h->cf = &h->local_cf;
    } else {
        h->cf = group_config(h->c, h->g);
    }
    const st_config_t *cf = h->cf;
    if (cf->error) {
        snprintf(h->msg, MSG_MAX, "%s", cf->error_msg);
        return cf->error;
    }
    int16_t err;
    if (cf->ready && h->owned &&
        ((err = validate_tasks(h->topo, cf, &h->owned->active, h->msg, MSG_MAX)) ||
         (err = validate_tasks(h->topo, cf, &h->owned->standby, h->msg, MSG_MAX)) ||
         (err = validate_tasks(h->topo, cf, &h->owned->warmup, h->msg, MSG_MAX))))
        return err;
    if ((req->task_offsets.count >= 0 &&
         !task_offsets_from_request(&h->rep_offsets, req->task_offsets.items, req->task_offsets.count,
                                    h->msg, MSG_MAX)) ||
        (req->task_end_offsets.count >= 0 &&
         !task_offsets_from_request(&h->rep_end_offsets, req->task_end_offsets.items,
                                    req->task_end_offsets.count, h->msg, MSG_MAX)))
        return KC_ERR_INVALID_REQUEST;
    return KC_ERR_NONE;
}

/* The request is accepted: the group exists from here on (made in memory
 * before its first record, as Kafka's getOrMaybeCreateStreamsGroup), with
 * the topology the request initialised (its record's apply sets it) and
 * its configuration. */
static void hb_create_group(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_t *req = h->req;
    h->was_empty = !h->g || h->g->members.n == 0;
    h->created = !h->g;
    if (!h->g) {
        if (h->empty_classic) {
            kc_classic_group_delete_empty(h->c, req->group_id, h->res);
            kc_log_info(LOG_COMP, "[GroupId %.*s] Converted the empty classic group to a streams group.",
                        (int)req->group_id.len, req->group_id.ptr);
        }
        h->g = group_new(h->c, req->group_id);
        kc_log_info(LOG_COMP, "[GroupId %s] Created streams group.", h->g->group_id);
    }
    if (!h->init_topology)
        return;
    st_group_t *g = h->g;
    kc_log_info(LOG_COMP, "[GroupId %s][MemberId %.*s] Member initialized the topology with epoch %d",
                g->group_id, (int)req->member_id.len, req->member_id.ptr, req->topology->epoch);
    write_topology(h->c, g, &h->req_topo, h->res);
    /* The configuration computed on the request's copy is the group's. */
    g->cfg = kc_xmalloc(sizeof(*g->cfg));
    *g->cfg = h->local_cf;
    memset(&h->local_cf, 0, sizeof(h->local_cf));
    h->cf = g->cfg;
}

/* A static member rejoining (StreamsGroupMember.Builder from the old
 * member): the new member id takes over the old member at epoch 0. The
 * old one's records are tombstoned (their apply frees it), then the new
 * member's are written from a proposed copy. */
static void hb_replace_static_member(st_heartbeat_t *h)
{
    st_group_t *g = h->g;
    st_member_t *old = h->replaced;
    st_member_t *nm = member_proposed(h->req->member_id, old);
    kc_tasks_tuple_copy(&nm->target, &old->target);
    st_current_t cur = {.state = old->state == MS_UNREVOKED ? MS_STABLE : old->state};
    kc_tasks_tuple_copy(&cur.assigned, &old->assigned);
    kc_log_info(LOG_COMP, "[GroupId %s][MemberId %s] Static member with instance id %s re-joins the streams group. Created a new member %s to replace the existing member %s.",
                g->group_id, nm->member_id, nm->instance_id, nm->member_id, old->member_id);
    kc_coord_emit_static_replaced(h->c, g->group_id, old->member_id, nm->member_id, g->group_epoch,
                                  h->ctx->now_ms);
    kc_coord_emit(h->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, nm->member_id,
                  "static member replaced", g->group_epoch, 0, h->ctx->now_ms);
    cancel_member_timers(h->c, g, old->member_id);
    if (g->shutdown_member_id && strcmp(g->shutdown_member_id, old->member_id) == 0) {
        free(g->shutdown_member_id);
        g->shutdown_member_id = kc_xstrdup(nm->member_id);
    }
    write_member_tombstones(h->c, g, old->member_id, h->res);
    h->replaced = NULL;
    write_member_metadata(h->c, g, nm, h->res);
    write_target_member(h->c, g, nm->member_id, &nm->target, h->res);
    write_current(h->c, g, nm->member_id, &cur, h->res);
    current_free(&cur);
    h->m = member_get(g, h->req->member_id);
    member_free(nm);
}

/* The member: replaced, found, or (new) created by its record 19 in
 * hb_update_member; what it had before this heartbeat is noted. */
static void hb_create_member(st_heartbeat_t *h)
{
    st_group_t *g = h->g;
    h->replaced_same_id = h->replaced && kc_str_eq_cstr(h->req->member_id, h->replaced->member_id);
    if (h->replaced) {
        h->was_replaced = true;
        hb_replace_static_member(h);
    } else if (!h->m) {
        h->is_new = true;
        char *member_id = kc_str_dup_or_null(h->req->member_id);
        kc_log_info(LOG_COMP, "[GroupId %s][MemberId %s] Member joins the streams group.", g->group_id,
                    member_id);
        kc_coord_emit(h->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, member_id, NULL,
                      g->group_epoch, 0, h->ctx->now_ms);
        free(member_id);
    }
    const st_member_t *m = h->m;
    if (m)
        kc_tasks_tuple_copy(&h->old_assigned, &m->assigned);
    h->old_endpoint = m && m->endpoint_host ? kc_xstrdup(m->endpoint_host) : NULL;
    h->old_port = m ? m->endpoint_port : -1;
}

/* What the member reported and only memory keeps: its owned tasks and
 * (null: unchanged; the two lists each on their own) its task offsets. */
static void hb_take_reports(st_heartbeat_t *h)
{
    st_member_t *m = h->m;
    if (h->owned) {
        kc_tasks_tuple_copy(&m->last_report, h->owned);
        m->has_last_report = true;
    }
    /* Kafka keeps the offsets by member id in the group object: a group
     * this request creates is a copy that replay replaces, so they are lost
     * with it, and a static member replaced under its own member id loses
     * them to the replay of its tombstones. */
    if (!h->created && !h->replaced_same_id) {
        if (h->req->task_offsets.count >= 0)
            task_offsets_move(&m->task_offsets, &h->rep_offsets);
        if (h->req->task_end_offsets.count >= 0)
            task_offsets_move(&m->task_end_offsets, &h->rep_end_offsets);
    }
}

/* The proposed member (copy on write): a copy of the member's record-19
 * fields, or a new member, made at the first change the request brings. */
static st_member_t *hb_proposed(st_heartbeat_t *h)
{
    if (!h->nm)
        h->nm = member_proposed(h->req->member_id, h->m);
    return h->nm;
}

/* The member's metadata with the request's changes so far. */
static const st_member_t *hb_meta(const st_heartbeat_t *h) { return h->nm ? h->nm : h->m; }

/* A string field (at offset off in st_member_t) the request may change. */
static void hb_update_str(st_heartbeat_t *h, size_t off, kc_str_t s)
{
    if (kc_str_changes(s, *(char *const *)((const char *)hb_meta(h) + off)))
        kc_str_update((char **)((char *)hb_proposed(h) + off), s);
}

/* The client's tags, when sent and different. */
static void hb_update_tags(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_t *req = h->req;
    if (req->client_tags.count < 0 ||
        tags_equal(hb_meta(h), req->client_tags.items, req->client_tags.count))
        return;
    st_member_t *p = hb_proposed(h);
    for (int32_t i = 0; i < p->ntags; i++) {
        free(p->tag_keys[i]);
        free(p->tag_values[i]);
    }
    free(p->tag_keys);
    free(p->tag_values);
    p->ntags = req->client_tags.count;
    p->tag_keys = kc_xcalloc((size_t)p->ntags + 1, sizeof(char *));
    p->tag_values = kc_xcalloc((size_t)p->ntags + 1, sizeof(char *));
    for (int32_t i = 0; i < p->ntags; i++) {
        p->tag_keys[i] = kc_str_dup_or_null(req->client_tags.items[i].key);
        p->tag_values[i] = kc_str_dup_or_null(req->client_tags.items[i].value);
    }
}

/* The user endpoint: sent, or cleared by a join without one. */
static void hb_update_endpoint(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_endpoint_t *ep = h->req->user_endpoint;
    if (!ep && !h->joining)
        return;
    const st_member_t *cur = hb_meta(h);
    bool same = ep ? (str_is(ep->host, cur->endpoint_host) && ep->port == cur->endpoint_port)
                   : cur->endpoint_host == NULL;
    if (same)
        return;
    st_member_t *p = hb_proposed(h);
    free(p->endpoint_host);
    p->endpoint_host = ep ? kc_str_dup_or_null(ep->host) : NULL;
    p->endpoint_port = ep ? ep->port : -1;
}

/* The member's metadata (a null field is unchanged), on a proposed member
 * made at the first change: its record when anything changed, whose apply
 * makes a new member. Returns whether it changed. */
static bool hb_update_member(st_heartbeat_t *h)
{
    const kc_streams_group_heartbeat_request_t *req = h->req;
    if (h->is_new || !h->m)
        hb_proposed(h);
    hb_update_str(h, offsetof(st_member_t, instance_id), req->instance_id);
    hb_update_str(h, offsetof(st_member_t, rack_id), req->rack_id);
    if (req->rebalance_timeout_ms != -1 &&
        req->rebalance_timeout_ms != hb_meta(h)->rebalance_timeout_ms)
        hb_proposed(h)->rebalance_timeout_ms = req->rebalance_timeout_ms;
    if (req->topology && req->topology->epoch != hb_meta(h)->topology_epoch)
        hb_proposed(h)->topology_epoch = req->topology->epoch;
    hb_update_str(h, offsetof(st_member_t, client_id),
                  h->ctx->client_id.len >= 0 ? h->ctx->client_id : kc_str(""));
    hb_update_str(h, offsetof(st_member_t, client_host),
                  kc_str(h->ctx->client_host ? h->ctx->client_host : ""));
    hb_update_str(h, offsetof(st_member_t, process_id), req->process_id);
    hb_update_tags(h);
    hb_update_endpoint(h);
    if (!h->nm)
        return false;
    write_member_metadata(h->c, h->g, h->nm, h->res);
    h->m = member_get(h->g, req->member_id);
    member_free(h->nm);
    h->nm = NULL;
    return true;
}

/* A member behind the group's topology is told so; the group epoch is
 * bumped by a member change, a new metadata hash, validated topology epoch
 * or standby count; then the initial rebalance delay and the target
 * assignment (updateTargetAssignmentIfNeeded, within the assignment
 * interval). */
static void hb_update_group(st_heartbeat_t *h, bool recompute)
{
    kc_coord_t *c = h->c;
    st_group_t *g = h->g;
    st_member_t *m = h->m;
    const st_config_t *cf = h->cf;
    h->stale_topology = g->topology && m->topology_epoch < g->topology->epoch;
    if (h->stale_topology) {
        snprintf(h->msg, MSG_MAX,
                 "The member's topology epoch %d is behind the group's topology epoch %d.",
                 m->topology_epoch, g->topology->epoch);
        add_status(&h->r, &h->arena, ST_STALE_TOPOLOGY, h->msg);
    }
    if (cf->hash != g->metadata_hash) {
        kc_log_info(LOG_COMP, "[GroupId %s][MemberId %s] Computed new metadata hash: %lld.", g->group_id,
                    m->member_id, (long long)cf->hash);
        recompute = true;
    }
    int32_t validated = cf->ready ? g->topology->epoch : -1;
    /* streamsGroupAssignmentConfigs: the group's own configs over the broker's. */
    const kc_coord_config_t *gc = kc_coord_group_cfg(c, g->group_id);
    if (validated != g->validated_topology_epoch ||
        g->last_num_standby != gc->group_streams_num_standby_replicas)
        recompute = true;
    if (recompute || !g->has_group_record) {
        st_meta_t meta;
        meta_of(g, &meta);
        meta.v.epoch = g->group_epoch + 1;
        meta.v.metadata_hash = cf->hash;
        meta.v.validated_topology_epoch = validated;
        metadata_set_num_standby(&meta.v, &meta.cfg, meta.nbuf,
                                 gc->group_streams_num_standby_replicas);
        write_group_metadata(c, kc_modern_group_id(&g->base), &meta.v, h->res);
        kc_log_info(LOG_COMP, "[GroupId %s][MemberId %s] Bumped streams group epoch to %d with metadata hash %lld and validated topic epoch %d.",
                    g->group_id, m->member_id, g->group_epoch, (long long)g->metadata_hash, validated);
        kc_coord_emit(c, KC_COORD_EV_GROUP_EPOCH_BUMPED, g->group_id, NULL,
                      "member, topology or metadata changed", g->group_epoch, 0, h->ctx->now_ms);
    }
    int64_t now = h->ctx->now_ms;
    if (h->was_empty && gc->group_streams_initial_rebalance_delay_ms > 0 &&
        !initial_delay_active(c, g)) {
        char key[KEY_BUF];
        initial_key(key, sizeof(key), kc_modern_group_id(&g->base));
        kc_timer_schedule_args(c, key, now + gc->group_streams_initial_rebalance_delay_ms,
                               on_initial_delay, kc_modern_group_id(&g->base), NULL, 0, 0);
    }
    if (initial_delay_active(c, g)) {
        add_status(&h->r, &h->arena, ST_ASSIGNMENT_DELAYED,
                   "Assignment delayed due to the configured initial rebalance delay.");
    } else if (g->group_epoch > g->assignment_epoch) {
        if (g->assignment_timestamp > 0 &&
            now - g->assignment_timestamp < gc->group_streams_assignment_interval_ms)
            add_status(&h->r, &h->arena, ST_ASSIGNMENT_DELAYED,
                       "Assignment delayed due to the configured assignment interval.");
        else
            update_target(c, g, cf, now, h->res);
    }
}

/* maybeReconcile: the member towards its target, then its rebalance and
 * session timeouts; a shutdown request is noted. */
static void hb_reconcile(st_heartbeat_t *h)
{
    st_group_t *g = h->g;
    st_member_t *m = h->m;
    st_current_t cur = {0};
    bool changed = reconcile(g, m, h->owned, &cur);
    if (changed || h->was_replaced || h->is_new) {
        if (!changed)
            current_of(m, &cur);
        /* Its apply leaves the member in place, with the new state. */
        write_current(h->c, g, m->member_id, &cur, h->res);
        if (m->state == MS_UNREVOKED)
            schedule_rebalance(h->c, g, m, h->ctx->now_ms);
        else
            kc_member_cancel_rebalance(h->c, kc_modern_group_id(&g->base), m->member_id);
    }
    current_free(&cur);
    schedule_session(h->c, g, m, h->ctx->now_ms);
    if (h->req->shutdown_application) {
        free(g->shutdown_member_id);
        g->shutdown_member_id = kc_xstrdup(m->member_id);
    }
}

/* KafkaApis' CREATE check of the internal topics to create: allowed with
 * CREATE on the cluster, else each topic needs CREATE on itself. When some
 * may not be created, none is: true then, and out holds cf->detail followed
 * by the names refused. */
static bool create_unauthorized(const kc_request_ctx_t *ctx, const st_config_t *cf, char *out,
                                size_t cap)
{
    const kc_streams_topics_to_create_t *l = &cf->create;
    if (!l->n || kc_request_authorized(ctx, KC_OP_CREATE, KC_RES_CLUSTER, kc_str("kafka-cluster")))
        return false;
    size_t off = (size_t)snprintf(out, cap, "%s", cf->detail), start = off;
    for (size_t i = 0; i < l->n; i++) {
        if (kc_request_authorized(ctx, KC_OP_CREATE, KC_RES_TOPIC, kc_str(l->items[i].name)))
            continue;
        off += (size_t)snprintf(out + KC_MIN(off, cap), off < cap ? cap - off : 0, "%s%s",
                                off > start ? ", " : "; Unauthorized to CREATE on topics ",
                                l->items[i].name);
    }
    if (off == start)
        return false;
    snprintf(out + KC_MIN(off, cap), off < cap ? cap - off : 0, ".");
    return true;
}

/* KafkaApis' cached creation errors of the internal topics to create: when
 * some failed within their back-off, *detail (caller frees) is cf->detail
 * followed by up to three of them (topic and message) and a count of the
 * rest, and the result (caller frees) flags them: they are not asked for
 * again until their error expires. NULL and *detail NULL otherwise. */
static bool *creation_failures(kc_coord_t *c, int64_t now_ms, const st_config_t *cf,
                               char **detail)
{
    const kc_streams_topics_to_create_t *l = &cf->create;
    *detail = NULL;
    if (!c->topics.topic_creation_error || !l->n)
        return NULL;
    bool *failed = NULL;
    int32_t nfailed = 0;
    kc_str_t *names = kc_xcalloc(l->n, sizeof(*names));
    const char **errs = kc_xcalloc(l->n, sizeof(*errs));
    size_t cap = strlen(cf->detail) + 64;
    for (size_t i = 0; i < l->n; i++) {
        const char *err = c->topics.topic_creation_error(c->topics.ctx, kc_str(l->items[i].name),
                                                          now_ms);
        if (!err)
            continue;
        if (!failed)
            failed = kc_xcalloc(l->n, sizeof(*failed));
        failed[i] = true;
        names[nfailed] = kc_str(l->items[i].name);
        errs[nfailed++] = err;
        cap += strlen(l->items[i].name) + strlen(err) + 8;
    }
    if (failed) {
        /* They are listed in the order of the HashMap Kafka collects them in. */
        int32_t *ord = kc_xcalloc((size_t)nfailed, sizeof(*ord));
        java_hash_order(names, nfailed, ord);
        char *out = kc_xmalloc(cap);
        size_t off = (size_t)snprintf(out, cap, "%s", cf->detail);
        for (int32_t k = 0; k < nfailed && k < 3; k++)
            off += (size_t)snprintf(out + off, cap - off, "%s%.*s (%s)",
                                    k ? ", " : "; Creation failed: ", (int)names[ord[k]].len,
                                    names[ord[k]].ptr, errs[ord[k]]);
        if (nfailed > 3)
            off += (size_t)snprintf(out + off, cap - off, " and %d more", nfailed - 3);
        snprintf(out + off, cap - off, ".");
        free(ord);
        *detail = out;
    }
    free(names);
    free(errs);
    return failed;
}

/* The answer's statuses: the topology's (and the internal topics to
 * create, for the server), and an application shutdown asked for. */
static void hb_statuses(st_heartbeat_t *h)
{
    const st_config_t *cf = h->cf;
    kc_streams_topics_to_create_t *create = h->create;
    if (cf->status >= 0) {
        bool missing = cf->status == ST_MISSING_INTERNAL_TOPICS;
        bool unauthorized = missing && create_unauthorized(h->ctx, cf, h->msg, MSG_MAX);
        bool *failed = NULL;
        char *failures = NULL;
        if (missing && !unauthorized)
            failed = creation_failures(h->c, h->ctx->now_ms, cf, &failures);
        add_status(&h->r, &h->arena, cf->status,
                   unauthorized ? h->msg : failures ? failures : cf->detail);
        free(failures);
        if (missing && create && cf->create.n && !unauthorized) {
            create->items = kc_xcalloc(cf->create.n, sizeof(*create->items));
            for (size_t i = 0; i < cf->create.n; i++)
                if (!failed || !failed[i])
                    topic_to_create_copy(&create->items[create->n++], &cf->create.items[i]);
        }
        free(failed);
    }
    if (h->g->shutdown_member_id) {
        snprintf(h->msg, MSG_MAX,
                 "Streams group member %s encountered a fatal error and requested a shutdown for "
                 "the entire application.",
                 h->g->shutdown_member_id);
        add_status(&h->r, &h->arena, ST_SHUTDOWN_APPLICATION, h->msg);
    }
}

/* The answer: the member's id and epoch, the intervals, its tasks when it
 * joined, they changed or it retried, the endpoints when the client's
 * epoch of them is old, the statuses, whether the topology description is
 * wanted. */
static void hb_respond(st_heartbeat_t *h, size_t first_record)
{
    kc_coord_t *c = h->c;
    const kc_streams_group_heartbeat_request_t *req = h->req;
    st_group_t *g = h->g;
    st_member_t *m = h->m;
    kc_streams_group_heartbeat_response_t *r = &h->r;
    r->member_id = kc_str(m->member_id);
    r->member_epoch = m->member_epoch;
    const kc_coord_config_t *gc = kc_coord_group_cfg(c, g->group_id);
    r->heartbeat_interval_ms = gc->group_streams_heartbeat_interval_ms;
    r->task_offset_interval_ms = gc->group_streams_task_offset_interval_ms;
    /* Kafka sets only the v1 field: a v0 answer carries the v0-only
     * AcceptableRecoveryLagLegacy at its default, 0. */
    r->acceptable_recovery_lag = gc->group_streams_acceptable_recovery_lag;
    bool tasks_changed = !kc_tasks_tuple_equal(&h->old_assigned, &m->assigned);
    /* kcoord's opt-in retry with the previous epoch and null lists gets
     * the assignment again: its last response was lost. */
    bool retry = !h->owned && h->epoch > 0 && h->epoch == m->previous_member_epoch &&
                 c->cfg.group_streams_accept_null_owned_tasks_on_previous_epoch;
    if (h->joining || tasks_changed || retry) {
        resp_tasks(&m->assigned.active, &h->arena, &r->active_tasks.items, &r->active_tasks.count);
        resp_tasks(&m->assigned.standby, &h->arena, &r->standby_tasks.items, &r->standby_tasks.count);
        resp_tasks(&m->assigned.warmup, &h->arena, &r->warmup_tasks.items, &r->warmup_tasks.count);
    }
    bool endpoint_changed =
        !cstr_eq(h->old_endpoint, m->endpoint_host) || h->old_port != m->endpoint_port;
    if (endpoint_changed || (tasks_changed && m->endpoint_host))
        g->endpoint_information_epoch++;
    if (g->endpoint_information_epoch != req->endpoint_information_epoch)
        fill_endpoints(c, g, m, r, &h->arena);
    /* A group created by this request starts from endpoint epoch 0: Kafka
     * bumps a copy that replay then replaces, and answers 0. */
    if (h->created)
        g->endpoint_information_epoch = 0;
    r->endpoint_information_epoch = g->endpoint_information_epoch;
    hb_statuses(h);
    /* KIP-1331: ask for the topology description when the store lacks it
     * (GroupMetadataManager.maybeSetTopologyDescriptionRequired). */
    r->topology_description_required = kc_topology_desc_solicit(
        c->topology_desc, &g->td, h->ctx->api_version, req->member_epoch, r->error_code,
        h->stale_topology, g->topology ? g->topology->epoch : -1, h->ctx->now_ms);
    send_hb(h->res, h->ctx, r, kc_result_wrote_since(h->res, first_record));
    /* Kafka works on a new group object that replay then replaces: what it
     * keeps only in memory is lost with the copy. The configured topology
     * is computed again by the next heartbeat (until then the delayed
     * initial assignment finds none and does nothing, Describe shows the
     * topology's own counts), and a shutdown request is forgotten. */
    if (h->created) {
        group_drop_config(g);
        free(g->shutdown_member_id);
        g->shutdown_member_id = NULL;
    }
}

static void heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                      const kc_streams_group_heartbeat_request_t *req, kc_result_t *res,
                      kc_streams_topics_to_create_t *create)
{
    char *topo_msg;
    int16_t err = check_topology_topics(ctx, req, &topo_msg);
    if (err) {
        send_hb_error(res, ctx, err, topo_msg);
        free(topo_msg);
        return;
    }
    char msg[MSG_MAX];
    st_heartbeat_t h;
    memset(&h, 0, sizeof(h));
    h.msg = msg;
    err = validate_request(req, msg, sizeof(msg));
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
    h.c = c;
    h.ctx = ctx;
    h.req = req;
    h.res = res;
    h.create = create;
    h.epoch = req->member_epoch;
    h.joining = h.epoch == 0;
    if ((err = hb_find_group(&h)) != KC_ERR_NONE) {
        send_hb_error(res, ctx, err, h.msg);
        return;
    }
    kc_buf_init(&h.req_topo);
    kc_arena_init(&h.arena);
    kc_streams_group_heartbeat_response_init(&h.r);
    if ((err = hb_find_member(&h)) != KC_ERR_NONE || (err = hb_check_topology(&h)) != KC_ERR_NONE ||
        (err = hb_configure(&h)) != KC_ERR_NONE) {
        send_hb_error(res, ctx, err, h.no_msg ? NULL : h.msg);
        hb_free(&h);
        return;
    }
    size_t first_record = res->nrecords;
    hb_create_group(&h);
    hb_create_member(&h);
    bool changed = hb_update_member(&h);
    if (!h.m || !h.g->topology) {
        /* A record that makes the member or the topology could not be
         * written (res is failed: the server rebuilds memory from storage). */
        send_hb_error(res, ctx, KC_COORD_ERR_WRITE_FAILED, NULL);
        hb_free(&h);
        return;
    }
    hb_take_reports(&h);
    hb_update_group(&h, changed);
    hb_reconcile(&h);
    hb_respond(&h, first_record);
    hb_free(&h);
}

/* ---- StreamsGroupDescribe --------------------------------------------------------- */

typedef kc_streams_group_describe_response_task_ids_t desc_ids_t;

static void desc_tasks(const kc_tasks_t *t, kc_arena_t *a, desc_ids_t **items, int32_t *count)
{
    *items = kc_arena_alloc(a, sizeof(**items) * (size_t)(t->n + 1));
    *count = 0;
    for (int32_t i = 0; i < t->n; i++) {
        if (t->s[i].n == 0)
            continue;
        desc_ids_t *o = &(*items)[(*count)++];
        o->subtopology_id = kc_str(t->s[i].subtopology_id);
        o->partitions.items = t->s[i].p;
        o->partitions.count = t->s[i].n;
    }
}

static void desc_assignment(const kc_tasks_tuple_t *t, kc_streams_group_describe_response_assignment_t *o,
                            kc_arena_t *a)
{
    memset(o, 0, sizeof(*o));
    desc_tasks(&t->active, a, &o->active_tasks.items, &o->active_tasks.count);
    desc_tasks(&t->standby, a, &o->standby_tasks.items, &o->standby_tasks.count);
    desc_tasks(&t->warmup, a, &o->warmup_tasks.items, &o->warmup_tasks.count);
}

typedef kc_streams_group_describe_response_topic_info_t desc_ti_t;

static int cmp_desc_ti(const void *a, const void *b)
{
    return cmp_kstr(&((const desc_ti_t *)a)->name, &((const desc_ti_t *)b)->name);
}

/* Sorted by name; a ready configuration gives the configured counts
 * (changelog: the subtopology's task count; repartition: the declared or
 * decided count), else the topology's own. */
static void desc_topic_infos(const kc_streams_group_topology_value_topic_info_t *in, int32_t n,
                             const st_config_t *cf, int32_t ntasks, bool changelog, kc_arena_t *a,
                             desc_ti_t **items, int32_t *count)
{
    n = n > 0 ? n : 0;
    *items = kc_arena_alloc(a, sizeof(**items) * (size_t)(n + 1));
    *count = n;
    for (int32_t i = 0; i < n; i++) {
        desc_ti_t *o = &(*items)[i];
        memset(o, 0, sizeof(*o));
        o->name = in[i].name;
        o->partitions = in[i].partitions;
        if (cf && cf->ready && o->partitions == 0)
            o->partitions = changelog ? ntasks : config_rep_parts(cf, in[i].name);
        o->replication_factor = in[i].replication_factor;
        int32_t nc = in[i].topic_configs.count > 0 ? in[i].topic_configs.count : 0;
        o->topic_configs.items = kc_arena_alloc(a, sizeof(*o->topic_configs.items) * (size_t)(nc + 1));
        o->topic_configs.count = nc;
        for (int32_t k = 0; k < nc; k++) {
            o->topic_configs.items[k].key = in[i].topic_configs.items[k].key;
            o->topic_configs.items[k].value = in[i].topic_configs.items[k].value;
        }
    }
    qsort(*items, (size_t)n, sizeof(**items), cmp_desc_ti);
}

/* A copy of a string array, sorted. */
static kc_str_array_t sorted_strs(kc_str_array_t in, kc_arena_t *a)
{
    kc_str_array_t out = in;
    if (in.count <= 0)
        return out;
    out.items = kc_arena_alloc(a, sizeof(*out.items) * (size_t)in.count);
    memcpy(out.items, in.items, sizeof(*out.items) * (size_t)in.count);
    qsort(out.items, (size_t)in.count, sizeof(*out.items), cmp_kstr);
    return out;
}

void kc_coord_streams_group_describe(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                     const kc_streams_group_describe_request_t *req, kc_result_t *res)
{
    kc_coord_streams_group_describe_fetched(c, ctx, req, NULL, 0, res);
}

typedef kc_streams_group_describe_response_described_group_t desc_group_t;

/* KIP-1331: NOT_REQUESTED, or what the store's get answered for the
 * current topology epoch (fetched by the caller beforehand), with the
 * description when it is available. */
static void describe_topology_description(kc_coord_t *c, const st_group_t *g, kc_str_t gid,
                                          const kc_topology_desc_fetched_t *fetched,
                                          size_t nfetched, desc_group_t *dg, kc_arena_t *arena)
{
    int32_t te = g->topology ? g->topology->epoch : -1;
    int8_t st = kc_topology_desc_describe_status(c->topology_desc, &g->td, g->topology != NULL, te);
    if (st == KC_TOPOLOGY_DESC_STATUS_AVAILABLE) {
        st = KC_TOPOLOGY_DESC_STATUS_NOT_STORED; /* no get answered for this epoch */
        for (size_t f = 0; f < nfetched; f++) {
            if (fetched[f].topology_epoch != te || !kc_str_eq(fetched[f].group_id, gid))
                continue;
            st = kc_topology_desc_get_status(fetched[f].status);
            if (st == KC_TOPOLOGY_DESC_STATUS_AVAILABLE) {
                dg->topology_description = kc_arena_alloc(arena, sizeof(*dg->topology_description));
                if (kc_topology_desc_decode(fetched[f].data, fetched[f].len, arena,
                                            dg->topology_description) != 0) {
                    kc_log_warn(LOG_COMP, "[GroupId %s] The stored topology description of "
                                "epoch %d does not decode.", g->group_id, te);
                    dg->topology_description = NULL;
                    st = KC_TOPOLOGY_DESC_STATUS_ERROR;
                }
            }
            break;
        }
    }
    dg->topology_description_status = st;
}

/* The configured topology as the last heartbeat left it (none: the
 * topology's own counts), as Kafka's in-memory one. */
static kc_streams_group_describe_response_topology_t *describe_topology(const st_group_t *g,
                                                                         kc_arena_t *arena)
{
    const st_config_t *cf = g->cfg;
    kc_streams_group_describe_response_topology_t *t = kc_arena_alloc(arena, sizeof(*t));
    memset(t, 0, sizeof(*t));
    t->epoch = g->topology->epoch;
    int32_t ns = g->topology->subtopologies.count;
    t->subtopologies.items = kc_arena_alloc(arena, sizeof(*t->subtopologies.items) * (size_t)(ns + 1));
    t->subtopologies.count = ns;
    for (int32_t s = 0; s < ns; s++) {
        const topo_sub_t *in = &g->topology->subtopologies.items[s];
        kc_streams_group_describe_response_subtopology_t *o = &t->subtopologies.items[s];
        memset(o, 0, sizeof(*o));
        o->subtopology_id = in->subtopology_id;
        o->source_topics = sorted_strs(in->source_topics, arena);
        o->repartition_sink_topics = sorted_strs(in->repartition_sink_topics, arena);
        int32_t nt = cf && cf->ready ? cf->ntasks[s] : 0;
        desc_topic_infos(in->state_changelog_topics.items, in->state_changelog_topics.count, cf, nt,
                         true, arena, &o->state_changelog_topics.items,
                         &o->state_changelog_topics.count);
        desc_topic_infos(in->repartition_source_topics.items, in->repartition_source_topics.count,
                         cf, 0, false, arena, &o->repartition_source_topics.items,
                         &o->repartition_source_topics.count);
    }
    return t;
}

static void describe_member(const st_member_t *m, kc_streams_group_describe_response_member_t *dm,
                            kc_arena_t *arena)
{
    memset(dm, 0, sizeof(*dm));
    dm->member_id = kc_str(m->member_id);
    dm->member_epoch = m->member_epoch;
    dm->instance_id = kc_str(m->instance_id);
    dm->rack_id = kc_str(m->rack_id);
    dm->client_id = kc_str(m->client_id);
    dm->client_host = kc_str(m->client_host);
    dm->topology_epoch = m->topology_epoch;
    dm->process_id = kc_str(m->process_id);
    if (m->endpoint_host) {
        dm->user_endpoint = kc_arena_alloc(arena, sizeof(*dm->user_endpoint));
        dm->user_endpoint->host = kc_str(m->endpoint_host);
        dm->user_endpoint->port = (uint16_t)m->endpoint_port;
    }
    dm->client_tags.items = kc_arena_alloc(arena, sizeof(*dm->client_tags.items) * (size_t)(m->ntags + 1));
    dm->client_tags.count = m->ntags;
    for (int32_t k = 0; k < m->ntags; k++) {
        dm->client_tags.items[k].key = kc_str(m->tag_keys[k]);
        dm->client_tags.items[k].value = kc_str(m->tag_values[k]);
    }
    desc_task_offsets(&m->task_offsets, arena, &dm->task_offsets.items, &dm->task_offsets.count);
    desc_task_offsets(&m->task_end_offsets, arena, &dm->task_end_offsets.items,
                      &dm->task_end_offsets.count);
    desc_assignment(&m->assigned, &dm->assignment, arena);
    desc_assignment(&m->target, &dm->target_assignment, arena);
    dm->is_classic = false;
}

/* One group of the request (StreamsGroup.asDescribedGroup), or its error. */
static void describe_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                           const kc_streams_group_describe_request_t *req, kc_str_t gid,
                           const kc_topology_desc_fetched_t *fetched, size_t nfetched,
                           desc_group_t *dg, kc_arena_t *arena)
{
    if (!c->loaded) {
        dg->error_code = KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
        return;
    }
    st_group_t *g = group_get(c, gid);
    if (!g) {
        bool other = kc_group_get(c, gid) != NULL;
        dg->error_code = KC_ERR_GROUP_ID_NOT_FOUND;
        char *m = kc_arena_alloc(arena, MSG_MAX);
        snprintf(m, MSG_MAX, other ? "Group %.*s is not a streams group." : "Group %.*s not found.",
                 gid.len > 0 ? (int)gid.len : 0, gid.ptr ? gid.ptr : "");
        dg->error_message = kc_str(m);
        return;
    }
    dg->group_state = kc_str(group_state_name(g));
    dg->group_epoch = g->group_epoch;
    dg->assignment_epoch = g->assignment_epoch;
    dg->assignor_name = kc_str("sticky");
    if (req->include_authorized_operations)
        dg->authorized_operations = kc_request_authorized_ops(
            ctx, KC_RES_GROUP, gid, (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11));
    dg->topology_description_status = KC_TOPOLOGY_DESC_STATUS_NOT_REQUESTED;
    if (req->include_topology_description)
        describe_topology_description(c, g, gid, fetched, nfetched, dg, arena);
    if (g->topology)
        dg->topology = describe_topology(g, arena);
    dg->members.items = kc_arena_alloc(arena, sizeof(*dg->members.items) * (g->members.n + 1));
    dg->members.count = (int32_t)g->members.n;
    const st_member_t **ordered = members_in_table_order(g);
    for (size_t j = 0; j < g->members.n; j++)
        describe_member(ordered[j], &dg->members.items[j], arena);
    free(ordered);
}

void kc_coord_streams_group_describe_fetched(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                             const kc_streams_group_describe_request_t *req,
                                             const kc_topology_desc_fetched_t *fetched,
                                             size_t nfetched, kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_streams_group_describe_response_t r;
    kc_streams_group_describe_response_init(&r);
    int32_t n = req->group_ids.count > 0 ? req->group_ids.count : 0;
    r.groups.items = kc_arena_alloc(&arena, sizeof(*r.groups.items) * (size_t)(n + 1));
    r.groups.count = n;
    /* Kafka's order: the groups refused DESCRIBE (KafkaApis), then the
     * empty ids (INVALID_GROUP_ID, answered before any lookup), then the
     * others, each part in request order. */
    int32_t *order = kc_arena_alloc(&arena, sizeof(*order) * (size_t)(n + 1));
    bool *allowed = kc_arena_alloc(&arena, sizeof(*allowed) * (size_t)(n + 1));
    int32_t no = 0;
    for (int32_t i = 0; i < n; i++)
        allowed[i] = kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_GROUP, req->group_ids.items[i]);
    for (int pass = 0; pass < 3; pass++)
        for (int32_t i = 0; i < n; i++) {
            bool empty = req->group_ids.items[i].len <= 0;
            if ((pass == 0 && !allowed[i]) || (pass == 1 && allowed[i] && empty) ||
                (pass == 2 && allowed[i] && !empty))
                order[no++] = i;
        }
    for (int32_t i = 0; i < n; i++) {
        desc_group_t *dg = &r.groups.items[i];
        int32_t ri = order[i];
        kc_str_t gid = req->group_ids.items[ri];
        memset(dg, 0, sizeof(*dg));
        dg->group_id = gid;
        dg->group_state = kc_str("");
        dg->error_message = KC_STR_NULL;
        dg->authorized_operations = INT32_MIN;
        dg->assignor_name = KC_STR_NULL;
        /* KafkaApis.handleStreamsGroupDescribe: DESCRIBE on the group. */
        if (!allowed[ri]) {
            dg->error_code = KC_ERR_GROUP_AUTHORIZATION_FAILED;
        } else if (gid.len <= 0) {
            dg->group_id = kc_str("");
            dg->error_code = KC_ERR_INVALID_GROUP_ID;
        } else {
            describe_group(c, ctx, req, gid, fetched, nfetched, dg, &arena);
        }
    }
    kc_result_respond(res, ctx, &r, NULL);
    kc_arena_deinit(&arena);
}

/* ---- replay ------------------------------------------------------------------------ */

static st_group_t *replay_group(kc_coord_t *c, kc_str_t id)
{
    st_group_t *g = group_get(c, id);
    if (g)
        return g;
    /* Offsets replayed earlier made a simple classic group: it gives way. */
    kc_classic_group_delete_empty(c, id, NULL);
    return group_new(c, id);
}

static st_member_t *replay_member(st_group_t *g, kc_str_t id)
{
    st_member_t *m = member_get(g, id);
    if (!m) {
        m = member_new(id);
        group_add_member(g, m);
    }
    return m;
}

static void tasks_from_cur(kc_tasks_t *out, const cur_ids_t *items, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        tasks_add_sub(out, items[i].subtopology_id, items[i].partitions.items,
                      items[i].partitions.count);
}

/* Record 22's active tasks of one kind with their assignment epochs: each
 * subtopology's own when it has one per partition, else dflt (a record
 * written before KIP-1251 has none; TasksTupleWithEpochs). */
static void active_from_cur(const st_group_t *g, kc_tasks_t *out, const cur_ids_t *items,
                            int32_t n, int32_t dflt)
{
    tasks_from_cur(out, items, n);
    kc_tasks_epochs_fill(out, dflt);
    for (int32_t i = 0; i < n; i++) {
        const kc_int32_array_t *ps = &items[i].partitions, *es = &items[i].assignment_epochs;
        if (es->count >= 0 && es->count == ps->count) {
            char buf[64];
            char *sub = sub_cstr(items[i].subtopology_id, buf);
            kc_tasks_epochs_put(out, sub, ps->items, es->items, ps->count);
            sub_cstr_free(sub, buf);
        } else if (es->count >= 0) {
            kc_log_error(LOG_COMP,
                         "[GroupId %s] Size of assignment epochs %d is not equal to partitions %d "
                         "of subtopology %.*s. Using default epoch %d for all its partitions.",
                         g->group_id, es->count, ps->count > 0 ? ps->count : 0,
                         items[i].subtopology_id.len > 0 ? (int)items[i].subtopology_id.len : 0,
                         items[i].subtopology_id.ptr, dflt);
        }
    }
}

static void tasks_from_tgt(kc_tasks_t *out, const tgt_ids_t *items, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        tasks_add_sub(out, items[i].subtopology_id, items[i].partitions.items,
                      items[i].partitions.count);
}

/* What every apply step below gets (modern/replay.h): the coordinator, the
 * record's group (an st_group_t, NULL when none yet) and ids, and its value (r after the
 * version, value/value_len the whole of it; r NULL for a tombstone). Each
 * returns 0 or KC_EINVAL for a value it cannot decode. They run for every
 * record a load reads and every record the live path writes
 * (kc_record_write_replay): the one place where what the records hold, and
 * the indexes derived from it (members by id and instance id, the members
 * table, the active task owners), change. */
typedef kc_modern_record_t st_apply_t; /* the group: an st_group_t */

/* The group's num.standby.replicas when it last computed an assignment,
 * -1 when the record does not say. */
static int32_t last_num_standby(const kc_streams_group_metadata_value_t *v)
{
    int32_t n = -1;
    for (int32_t i = 0; i < v->last_assignment_configs.count; i++) {
        kc_str_t value = v->last_assignment_configs.items[i].value;
        if (kc_str_eq_cstr(v->last_assignment_configs.items[i].key, "num.standby.replicas") &&
            value.len > 0 && value.len < 12) {
            char buf[16];
            memcpy(buf, value.ptr, (size_t)value.len);
            buf[value.len] = '\0';
            n = atoi(buf);
        }
    }
    return n;
}

/* StreamsGroupMetadata (type 17): the group epoch, metadata hash,
 * validated topology epoch, topology-description epochs and assignment
 * configs; its tombstone removes the group. */
static int apply_group_metadata(const st_apply_t *a)
{
    st_group_t *g = a->g;
    if (!a->r) {
        if (g) {
            kc_modern_group_remove(a->c, &g->modern);
            group_free(g);
        }
        return 0;
    }
    kc_streams_group_metadata_value_t v;
    if (KC_MODERN_VALUE(a, kc_streams_group_metadata_value, v) != 0)
        return KC_EINVAL;
    g = replay_group(a->c, a->gid);
    kc_modern_group_replay_metadata(&g->modern, v.epoch, v.metadata_hash);
    g->validated_topology_epoch = v.validated_topology_epoch;
    kc_topology_desc_replay(&g->td, &v);
    g->last_num_standby = last_num_standby(&v);
    return 0;
}

/* StreamsGroupTargetAssignmentMetadata (type 20): the assignment epoch
 * and when it was computed. */
static int apply_target_metadata(const st_apply_t *a)
{
    if (!a->r)
        return 0;
    kc_streams_group_target_assignment_metadata_value_t v;
    if (KC_MODERN_VALUE(a, kc_streams_group_target_assignment_metadata_value, v) != 0)
        return KC_EINVAL;
    st_group_t *g = replay_group(a->c, a->gid);
    g->assignment_epoch = v.assignment_epoch;
    g->assignment_timestamp = v.assignment_timestamp;
    return 0;
}

/* StreamsGroupTopology (type 23): the topology, kept as its record value. */
static int apply_topology(const st_apply_t *a)
{
    if (!a->r) {
        if (a->g)
            group_clear_topology(a->g);
        return 0;
    }
    st_group_t *g = replay_group(a->c, a->gid);
    return group_set_topology(g, a->value + 2, a->value_len - 2) ? 0 : KC_EINVAL;
}

/* StreamsGroupMemberMetadata (type 19): the member's client, process,
 * endpoint and tags; its tombstone removes the member. */
/* The member a record names, NULL when none yet. */
static st_member_t *apply_member(const st_apply_t *a)
{
    return a->g ? member_get(a->g, a->mid) : NULL;
}

static int apply_member_metadata(const st_apply_t *a)
{
    if (!a->r) {
        st_member_t *m = apply_member(a);
        if (m)
            group_remove_member(a->g, m);
        return 0;
    }
    kc_streams_group_member_metadata_value_t v;
    if (KC_MODERN_VALUE(a, kc_streams_group_member_metadata_value, v) != 0)
        return KC_EINVAL;
    st_group_t *g = replay_group(a->c, a->gid);
    st_member_t *m = replay_member(g, a->mid);
    mtable_put(g, m);
    char *instance_id = kc_str_dup_or_null(v.instance_id);
    kc_modern_members_set_instance_id(&g->members, &m->modern, instance_id);
    free(instance_id);
    kc_modern_member_replay_metadata(&m->modern, v.rack_id, v.client_id, v.client_host,
                                     v.rebalance_timeout_ms);
    free(m->process_id);
    m->process_id = kc_str_dup_or_null(v.process_id.len >= 0 ? v.process_id : kc_str(""));
    m->topology_epoch = v.topology_epoch;
    free(m->endpoint_host);
    m->endpoint_host = v.user_endpoint ? kc_str_dup_or_null(v.user_endpoint->host) : NULL;
    m->endpoint_port = v.user_endpoint ? v.user_endpoint->port : -1;
    for (int32_t i = 0; i < m->ntags; i++) {
        free(m->tag_keys[i]);
        free(m->tag_values[i]);
    }
    free(m->tag_keys);
    free(m->tag_values);
    m->ntags = v.client_tags.count > 0 ? v.client_tags.count : 0;
    m->tag_keys = kc_xcalloc((size_t)m->ntags + 1, sizeof(char *));
    m->tag_values = kc_xcalloc((size_t)m->ntags + 1, sizeof(char *));
    for (int32_t i = 0; i < m->ntags; i++) {
        m->tag_keys[i] = kc_str_dup_or_null(v.client_tags.items[i].key);
        m->tag_values[i] = kc_str_dup_or_null(v.client_tags.items[i].value);
    }
    return 0;
}

/* StreamsGroupTargetAssignmentMember (type 21): the member's target. */
static int apply_target_member(const st_apply_t *a)
{
    if (!a->r) {
        st_member_t *m = apply_member(a);
        if (m) {
            kc_tasks_tuple_free(&m->target);
            m->has_target = false;
        }
        return 0;
    }
    kc_streams_group_target_assignment_member_value_t v;
    if (KC_MODERN_VALUE(a, kc_streams_group_target_assignment_member_value, v) != 0)
        return KC_EINVAL;
    st_member_t *m = replay_member(replay_group(a->c, a->gid), a->mid);
    kc_tasks_tuple_free(&m->target);
    m->has_target = true;
    tasks_from_tgt(&m->target.active, v.active_tasks.items, v.active_tasks.count);
    tasks_from_tgt(&m->target.standby, v.standby_tasks.items, v.standby_tasks.count);
    tasks_from_tgt(&m->target.warmup, v.warmup_tasks.items, v.warmup_tasks.count);
    return 0;
}

/* StreamsGroupCurrentMemberAssignment (type 22): the member's epochs,
 * state and owned tasks, with the active task owners. */
static int apply_current_assignment(const st_apply_t *a)
{
    st_current_t cur = {.state = MS_STABLE};
    if (!a->r) {
        st_member_t *m = apply_member(a);
        if (m) {
            member_set_current(a->g, m, &cur);
            mtable_put(a->g, m);
        }
        return 0;
    }
    kc_streams_group_current_member_assignment_value_t v;
    if (KC_MODERN_VALUE(a, kc_streams_group_current_member_assignment_value, v) != 0)
        return KC_EINVAL;
    st_group_t *g = replay_group(a->c, a->gid);
    st_member_t *m = replay_member(g, a->mid);
    mtable_put(g, m);
    cur = (st_current_t){.epoch = v.member_epoch, .prev = v.previous_member_epoch, .state = v.state};
    active_from_cur(g, &cur.assigned.active, v.active_tasks.items, v.active_tasks.count,
                    v.member_epoch);
    tasks_from_cur(&cur.assigned.standby, v.standby_tasks.items, v.standby_tasks.count);
    tasks_from_cur(&cur.assigned.warmup, v.warmup_tasks.items, v.warmup_tasks.count);
    active_from_cur(g, &cur.pending.active, v.active_tasks_pending_revocation.items,
                    v.active_tasks_pending_revocation.count, v.member_epoch);
    tasks_from_cur(&cur.pending.standby, v.standby_tasks_pending_revocation.items,
                   v.standby_tasks_pending_revocation.count);
    tasks_from_cur(&cur.pending.warmup, v.warmup_tasks_pending_revocation.items,
                   v.warmup_tasks_pending_revocation.count);
    member_set_current(g, m, &cur);
    return 0;
}

static const kc_modern_apply_step_t apply_steps[] = {
    {KC_RECORD_STREAMS_GROUP_METADATA, apply_group_metadata},
    {KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA, apply_target_metadata},
    {KC_RECORD_STREAMS_GROUP_TOPOLOGY, apply_topology},
    {KC_RECORD_STREAMS_GROUP_MEMBER_METADATA, apply_member_metadata},
    {KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, apply_target_member},
    {KC_RECORD_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, apply_current_assignment},
};

int kc_streams_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len, const void *msg)
{
    return kc_modern_replay(c, KC_GROUP_STREAMS, key, key_len, value, value_len, msg,
                            apply_steps, KC_ARRAY_LEN(apply_steps));
}

void kc_streams_loaded(kc_coord_t *c, int64_t now_ms)
{
    size_t n;
    kc_group_t **gs = kc_groups_list(c, KC_GROUP_STREAMS, &n);
    for (size_t i = 0; i < n; i++) {
        st_group_t *g = (st_group_t *)gs[i];
        for (size_t j = 0; j < g->members.n; j++) {
            st_member_t *m = st_member_at(g, j);
            schedule_session(c, g, m, now_ms);
            if (m->state == MS_UNREVOKED)
                schedule_rebalance(c, g, m, now_ms);
        }
    }
    free(gs);
}

void kc_streams_unload_all(kc_coord_t *c)
{
    kc_modern_groups_unload(c, KC_GROUP_STREAMS, group_free_base);
}

/* ---- views for other modules ------------------------------------------------------ */

kc_streams_group_t *kc_coord_streams_group_find(kc_coord_t *c, kc_str_t group_id)
{
    return group_get(c, group_id);
}

bool kc_streams_group_is_empty(const kc_streams_group_t *g) { return g->members.n == 0; }

int32_t kc_streams_group_topology_epoch(const kc_streams_group_t *g)
{
    return g->topology ? g->topology->epoch : -1;
}

int32_t kc_streams_group_stored_description_epoch(const kc_streams_group_t *g)
{
    return g->td.stored_epoch;
}

int32_t kc_streams_group_failed_description_epoch(const kc_streams_group_t *g)
{
    return g->td.failed_epoch;
}

void kc_streams_group_set_description_epochs(kc_coord_t *c, kc_streams_group_t *g, int32_t stored,
                                             int32_t failed, kc_result_t *res)
{
    st_meta_t meta;
    meta_of(g, &meta);
    meta.v.stored_description_topology_epoch = stored;
    meta.v.failed_description_topology_epoch = failed;
    write_group_metadata(c, kc_modern_group_id(&g->base), &meta.v, res);
}

void kc_streams_group_delete(kc_coord_t *c, kc_streams_group_t *g, kc_result_t *res)
{
    /* The applies free the members (tombstones of record 19) and then the
     * group (tombstone of record 17): the ids are copied first. */
    size_t n = g->members.n;
    kc_str_t gid = {kc_xstrndup(g->group_id, g->group_id_len), (int32_t)g->group_id_len};
    char **mids = kc_xcalloc(n + 1, sizeof(*mids));
    for (size_t i = 0; i < n; i++) {
        mids[i] = kc_xstrdup(st_member_at(g, i)->member_id);
        cancel_member_timers(c, g, mids[i]);
    }
    char key[KEY_BUF];
    initial_key(key, sizeof(key), gid);
    kc_timer_cancel(c, key);
    /* StreamsGroup.createGroupTombstoneRecords. */
    for (size_t i = 0; i < n; i++)
        write_tombstone(c, KC_RECORD_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, gid, mids[i], res);
    for (size_t i = 0; i < n; i++)
        write_tombstone(c, KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, gid, mids[i], res);
    write_tombstone(c, KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA, gid, NULL, res);
    for (size_t i = 0; i < n; i++)
        write_tombstone(c, KC_RECORD_STREAMS_GROUP_MEMBER_METADATA, gid, mids[i], res);
    write_tombstone(c, KC_RECORD_STREAMS_GROUP_METADATA, gid, NULL, res);
    write_tombstone(c, KC_RECORD_STREAMS_GROUP_TOPOLOGY, gid, NULL, res);
    /* A tombstone that could not be written (res is failed: the server
     * rebuilds memory from storage) leaves the group: it goes all the same,
     * so that the caller finds its id free. */
    g = group_get(c, gid);
    if (g) {
        kc_groups_table_remove(c, kc_modern_group_id(&g->base));
        kc_group_remove(c, &g->base);
        group_free(g);
    }
    for (size_t i = 0; i < n; i++)
        free(mids[i]);
    free(mids);
    free((char *)gid.ptr);
}

/* The subtopology reading topic as a source or repartition source topic
 * (StreamsTopology's source topic map); NULL when none. */
static const topo_sub_t *source_subtopology(const st_group_t *g, kc_str_t topic)
{
    for (int32_t s = 0; g->topology && s < g->topology->subtopologies.count; s++) {
        const topo_sub_t *sub = &g->topology->subtopologies.items[s];
        for (int32_t i = 0; i < sub->source_topics.count; i++)
            if (kc_str_eq(sub->source_topics.items[i], topic))
                return sub;
        for (int32_t i = 0; i < sub->repartition_source_topics.count; i++)
            if (kc_str_eq(sub->repartition_source_topics.items[i].name, topic))
                return sub;
    }
    return NULL;
}

/* StreamsGroup.createAssignmentEpochValidator: a partition of the commit
 * is the task of the subtopology reading its topic; the member must own
 * that active task or be revoking it, at an epoch no newer than the
 * commit's; else the whole commit is STALE_MEMBER_EPOCH. */
static int16_t check_task_epoch(const kc_commit_validator_t *v, kc_str_t topic,
                                kc_uuid_t topic_id, int32_t partition)
{
    (void)topic_id;
    const st_group_t *g = (const st_group_t *)v->group;
    const st_member_t *m = v->member;
    const topo_sub_t *sub = source_subtopology(g, topic);
    if (!sub)
        return kc_modern_commit_partition_epoch(v, false, 0, "a task of topic", topic,
                                                partition);
    char buf[64];
    char *id = sub_cstr(sub->subtopology_id, buf);
    int32_t epoch = 0;
    bool held = kc_tasks_epoch(&m->assigned.active, id, partition, &epoch) ||
                kc_tasks_epoch(&m->pending.active, id, partition, &epoch);
    sub_cstr_free(id, buf);
    return kc_modern_commit_partition_epoch(v, held, epoch, "task", sub->subtopology_id,
                                            partition);
}

int16_t kc_streams_group_validate_offset_commit(kc_streams_group_t *g, kc_str_t member_id,
                                                kc_str_t group_instance_id, int32_t member_epoch,
                                                bool transactional, int16_t api_version,
                                                kc_commit_validator_t *v, char *msg, size_t cap)
{
    if (member_epoch < 0 && g->members.n == 0)
        return KC_ERR_NONE;
    /* TxnOffsetCommit checks the member only when it names one. */
    if (transactional && member_epoch == -1 && member_id.len <= 0 && group_instance_id.len < 0)
        return KC_ERR_NONE;
    st_member_t *m = member_get(g, member_id);
    if (!m) {
        snprintf(msg, cap, "Member %.*s is not a member of group %s.", member_id.len > 0 ? (int)member_id.len : 0,
                 member_id.ptr ? member_id.ptr : "", g->group_id);
        return KC_ERR_UNKNOWN_MEMBER_ID;
    }
    if (!transactional && api_version < 9) {
        snprintf(msg, cap, "OffsetCommit version 9 or above must be used by members using the streams group protocol");
        return KC_ERR_UNSUPPORTED_VERSION;
    }
    if (kc_modern_validate_commit_epoch(&g->base, &m->modern, member_epoch, check_task_epoch, v) !=
        KC_ERR_NONE) {
        snprintf(msg, cap, "Received member epoch %d is newer than current member epoch %d.",
                 member_epoch, m->member_epoch);
        return KC_ERR_STALE_MEMBER_EPOCH;
    }
    if (v->check && !g->topology) {
        /* No topology to map the commit's topics to tasks: the whole
         * commit, whatever its partitions. */
        v->check = NULL;
        snprintf(msg, cap, "Member epoch %d is older than member %s's epoch %d and the group has "
                 "no topology to find its tasks in.", member_epoch, m->member_id, m->member_epoch);
        return KC_ERR_STALE_MEMBER_EPOCH;
    }
    return KC_ERR_NONE;
}


bool kc_streams_group_is_subscribed_to(const kc_streams_group_t *g, kc_str_t topic)
{
    return g->members.n != 0 && source_subtopology(g, topic) != NULL;
}

const char *kc_streams_group_state(const kc_streams_group_t *g) { return group_state_name(g); }

void kc_streams_group_foreach(kc_coord_t *c, void (*fn)(kc_streams_group_t *g, void *arg), void *arg)
{
    size_t n;
    kc_group_t **gs = kc_groups_list(c, KC_GROUP_STREAMS, &n);
    for (size_t i = 0; i < n; i++)
        fn((st_group_t *)gs[i], arg);
    free(gs);
}

/* ---- the topology-description barrier's view (KIP-1331) ------------------------- */

void kc_coord_set_topology_desc(kc_coord_t *c, kc_topology_desc_t *m) { c->topology_desc = m; }

/* The barrier's writes of record 17 (ctx: the coordinator), applied by its
 * replay like the group's own. */
static int view_write(void *ctx, kc_str_t group_id, const kc_streams_group_metadata_value_t *v,
                      kc_result_t *res)
{
    kc_record_key_t key = {.group_id = group_id};
    return kc_record_write_replay(ctx, res, KC_RECORD_STREAMS_GROUP_METADATA, &key, REC_VERSION,
                                  v);
}

static void fill_view(kc_coord_t *c, st_group_t *g, kc_topology_desc_group_t *out)
{
    out->state = &g->td;
    out->topology_epoch = g->topology ? g->topology->epoch : -1;
    out->empty = g->members.n == 0;
    out->has_offsets = kc_offsets_group_has_offsets(c, kc_str(g->group_id));
    group_metadata_value(g, &out->metadata, &g->view_cfg, g->view_nbuf);
    out->write = view_write;
    out->write_ctx = c;
}

int kc_coord_streams_group_view(kc_coord_t *c, kc_str_t group_id, kc_topology_desc_group_t *out)
{
    st_group_t *g = c->loaded ? group_get(c, group_id) : NULL;
    if (g) {
        fill_view(c, g, out);
        return 1;
    }
    if (kc_group_get(c, group_id))
        return -1;
    return 0;
}

static int view_lookup(void *ctx, kc_str_t group_id, kc_topology_desc_group_t *out)
{
    return kc_coord_streams_group_view(ctx, group_id, out);
}

static bool view_has_member(void *ctx, kc_str_t group_id, kc_str_t member_id)
{
    st_group_t *g = group_get(ctx, group_id);
    return g && kc_modern_members_get(&g->members, member_id) != NULL;
}

typedef struct {
    void (*fn)(void *arg, kc_str_t group_id);
    void *arg;
} view_each_t;

static void view_each(kc_streams_group_t *g, void *arg)
{
    view_each_t *e = arg;
    e->fn(e->arg, kc_str(g->group_id));
}

static void view_foreach(void *ctx, void (*fn)(void *arg, kc_str_t group_id), void *arg)
{
    kc_coord_t *c = ctx;
    if (!c->loaded)
        return;
    /* fn must not add or remove groups, so walking the map directly is safe. */
    view_each_t e = {fn, arg};
    kc_streams_group_foreach(c, view_each, &e);
}

void kc_coord_topology_desc_groups(kc_coord_t *c, kc_topology_desc_groups_t *out)
{
    out->ctx = c;
    out->lookup = view_lookup;
    out->has_member = view_has_member;
    out->foreach = view_foreach;
}

/* ---- the group abstraction (groups.h) ---------------------------------------------- */

static st_group_t *streams_of(const kc_group_t *g) { return (st_group_t *)g; }

static const char *streams_state_name(const kc_group_t *g) { return group_state_name(streams_of(g)); }

static void streams_delete(kc_coord_t *c, kc_group_t *base, int64_t now_ms, const char *reason,
                           kc_result_t *res)
{
    st_group_t *g = streams_of(base);
    kc_coord_emit(c, KC_COORD_EV_GROUP_DELETED, g->group_id, NULL, reason, g->group_epoch, 0,
                  now_ms);
    kc_streams_group_delete(c, g, res);
}

static int16_t streams_validate_offset_commit(kc_coord_t *c, kc_group_t *g,
                                              const kc_offset_commit_args_t *a,
                                              kc_commit_validator_t *v)
{
    (void)c;
    char why[256];
    int16_t err = kc_streams_group_validate_offset_commit(
        streams_of(g), a->member_id, a->group_instance_id, a->generation_id_or_member_epoch,
        a->transactional, a->api_version, v, why, sizeof(why));
    if (err != KC_ERR_NONE)
        kc_log_info(LOG_COMP, "[GroupId %s] OffsetCommit rejected: %s", streams_of(g)->group_id, why);
    return err;
}

static bool streams_is_subscribed_to_topic(const kc_group_t *g, kc_str_t topic)
{
    return kc_streams_group_is_subscribed_to(streams_of(g), topic);
}

/* StreamsGroup.shouldExpire: empty, and the topology-description store
 * holds nothing for it (the store's cleanup cycle gets it there). Not
 * while a store call is in flight either: a push validated before the
 * last member left can land after the cleanup's delete, and its completion
 * must find the group to mark it -2 for the next cycle (else its
 * description would stay in the store with no group). */
static void streams_maybe_delete_expired(kc_coord_t *c, kc_group_t *base, int64_t now_ms,
                                         kc_result_t *res)
{
    (void)now_ms;
    st_group_t *g = streams_of(base);
    if (g->members.n != 0 || g->td.ops_in_flight != 0 ||
        !kc_topology_desc_may_expire(c->topology_desc, &g->td))
        return;
    kc_log_info(LOG_COMP, "Streams group %s is empty and all its offsets expired: deleting it.",
                g->group_id);
    kc_streams_group_delete(c, g, res);
}

/* StreamsGroup.validateOffsetFetch. */
static int16_t streams_validate_offset_fetch(const kc_group_t *g, kc_str_t member_id,
                                             int32_t member_epoch, int16_t api_version)
{
    const kc_modern_member_t *m;
    return kc_modern_group_validate_offset_fetch(g, member_id, member_epoch, api_version, &m);
}

const kc_group_ops_t kc_streams_group_ops = {
    .type = KC_GROUP_STREAMS,
    .type_name = "streams",
    .id = kc_modern_group_id,
    .state_name = streams_state_name,
    .protocol_type = kc_modern_group_protocol_type,
    .table_seq = kc_modern_group_table_seq,
    .validate_delete = kc_modern_group_validate_delete,
    .delete = streams_delete,
    .validate_offset_commit = streams_validate_offset_commit,
    .validate_offset_fetch = streams_validate_offset_fetch,
    .validate_offset_delete = kc_modern_group_validate_offset_delete,
    .offsets_expire = kc_modern_group_offsets_expire,
    .is_subscribed_to_topic = streams_is_subscribed_to_topic,
    .maybe_delete_expired = streams_maybe_delete_expired,
};

/* ---- read-only introspection (admin views) and events ------------------------ */

/* Kafka's streams MemberState, lower case as the consumer views print it. */
static const char *member_state_view(int8_t state)
{
    switch (state) {
    case MS_STABLE:
        return "stable";
    case MS_UNREVOKED:
        return "unrevoked_tasks";
    case MS_UNRELEASED:
        return "unreleased_tasks";
    default:
        return "unknown";
    }
}

/* Views of one task set; the array is allocated (free it), the strings
 * and partitions are borrowed from t. */
static const kc_subtopology_tasks_view_t *tasks_view(const kc_tasks_t *t, int32_t *n)
{
    kc_subtopology_tasks_view_t *v = kc_xcalloc((size_t)t->n + 1, sizeof(*v));
    *n = 0;
    for (int32_t i = 0; i < t->n; i++)
        if (t->s[i].n > 0)
            v[(*n)++] = (kc_subtopology_tasks_view_t){t->s[i].subtopology_id, t->s[i].p, t->s[i].n};
    return v;
}

static kc_tasks_view_t tuple_view(const kc_tasks_tuple_t *t)
{
    kc_tasks_view_t v;
    v.active = tasks_view(&t->active, &v.nactive);
    v.standby = tasks_view(&t->standby, &v.nstandby);
    v.warmup = tasks_view(&t->warmup, &v.nwarmup);
    return v;
}

static void tuple_view_free(kc_tasks_view_t *v)
{
    free((void *)v->active);
    free((void *)v->standby);
    free((void *)v->warmup);
}

static void inspect_group(const kc_coord_t *c, st_group_t *g, kc_group_view_fn fn, void *arg)
{
    size_t n = g->members.n;
    kc_streams_member_view_t *mv = kc_xcalloc(n + 1, sizeof(*mv));
    for (size_t i = 0; i < n; i++) {
        const st_member_t *m = st_member_at(g, i);
        mv[i] = (kc_streams_member_view_t){
            .member_id = m->member_id,
            .instance_id = m->instance_id,
            .rack_id = m->rack_id,
            .client_id = m->client_id,
            .client_host = m->client_host,
            .process_id = m->process_id,
            .user_endpoint_host = m->endpoint_host,
            .user_endpoint_port = m->endpoint_host ? m->endpoint_port : -1,
            .member_epoch = m->member_epoch,
            .previous_member_epoch = m->previous_member_epoch,
            .state = member_state_view(m->state),
            .topology_epoch = m->topology_epoch,
            .rebalance_timeout_ms = m->rebalance_timeout_ms,
            .session_deadline_ms =
                kc_member_session_deadline(c, kc_modern_group_id(&g->base), m->member_id),
            .assigned = tuple_view(&m->assigned),
            .pending_revocation = tuple_view(&m->pending),
            .target = tuple_view(&m->target),
        };
    }
    kc_group_view_t v = {
        .group_id = g->group_id,
        .type = "streams",
        .state = group_state_name(g),
        .generation_id = g->group_epoch,
        .protocol_type = "streams",
        .group_epoch = g->group_epoch,
        .assignment_epoch = g->assignment_epoch,
        .assignor = "sticky",
        .topology_epoch = g->topology ? g->topology->epoch : -1,
        .stored_description_epoch = g->td.stored_epoch,
        .failed_description_epoch = g->td.failed_epoch,
        .topology = g->topology,
        .streams_members = mv,
        .nstreams_members = n,
    };
    fn(arg, &v);
    for (size_t i = 0; i < n; i++) {
        tuple_view_free(&mv[i].assigned);
        tuple_view_free(&mv[i].pending_revocation);
        tuple_view_free(&mv[i].target);
    }
    free(mv);
}

void kc_streams_inspect_all(kc_coord_t *c, kc_group_view_fn fn, void *arg)
{
    size_t n;
    kc_group_t **gs = kc_groups_list(c, KC_GROUP_STREAMS, &n);
    for (size_t i = 0; i < n; i++)
        inspect_group(c, (st_group_t *)gs[i], fn, arg);
    free(gs);
}

bool kc_streams_inspect_one(kc_coord_t *c, kc_str_t group_id, kc_group_view_fn fn, void *arg)
{
    st_group_t *g = group_id.len >= 0 ? group_get(c, group_id) : NULL;
    if (!g)
        return false;
    inspect_group(c, g, fn, arg);
    return true;
}

int32_t kc_streams_group_epoch(const kc_streams_group_t *g) { return g->group_epoch; }

void kc_streams_fence_member_event(kc_coord_t *c, kc_streams_group_t *g, const char *member_id,
                                   kc_coord_event_type_t ev, const char *reason, int64_t now_ms,
                                   kc_result_t *res)
{
    st_member_t *m = member_get(g, kc_str(member_id));
    if (!m)
        return;
    kc_coord_emit(c, ev, g->group_id, m->member_id, reason, g->group_epoch, 0, now_ms);
    fence_member(c, g, m, res);
    kc_coord_emit(c, KC_COORD_EV_GROUP_EPOCH_BUMPED, g->group_id, NULL, "member removed",
                  g->group_epoch, 0, now_ms);
    note_state(g);
}
