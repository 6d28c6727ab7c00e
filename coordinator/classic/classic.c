/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 * DescribeGroups, ListGroups, DeleteGroups), mirroring Kafka's
 * GroupMetadataManager (classic part), ClassicGroup, ClassicGroupMember and
 * ClassicGroupState: the group state machine, static membership (KIP-345),
 * MEMBER_ID_REQUIRED (KIP-394), SkipAssignment (KIP-814), the keyed timers
 * (heartbeat-<group>-<member>, join-<group>, sync-<group>), the
 * GroupMetadata record (type 2) and its replay. Offsets live in offsets.c.
 *
 * State changes are applied in memory at once; the records they imply go
 * into the result, and the caller sends the result's responses only after
 * the records have committed (so a sync answer never precedes the durable
 * assignment).
 */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classic_int.h"
#include "consumer_protocol.h"
#include "kc_log.h"
#include "topology_desc.h"

#define LOG_COMP "group-coordinator"

/* Value version Kafka writes for GroupMetadataValue today. */
#define GROUP_METADATA_VALUE_VERSION 3
/* Every group operation a client may be granted, as a bit field
 * (READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS): what Kafka
 * reports when no authorizer is configured. */
#define GROUP_AUTHORIZED_OPERATIONS ((1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11))

/* ---- model --------------------------------------------------------------- */

static const char *const state_names[] = {"Empty", "PreparingRebalance", "CompletingRebalance",
                                          "Stable", "Dead"};

/* Legal previous states of each state. */
static const unsigned valid_previous[] = {
    [CLASSIC_EMPTY] = 1u << CLASSIC_PREPARING_REBALANCE,
    [CLASSIC_PREPARING_REBALANCE] = (1u << CLASSIC_STABLE) | (1u << CLASSIC_COMPLETING_REBALANCE) | (1u << CLASSIC_EMPTY),
    [CLASSIC_COMPLETING_REBALANCE] = 1u << CLASSIC_PREPARING_REBALANCE,
    [CLASSIC_STABLE] = 1u << CLASSIC_COMPLETING_REBALANCE,
    [CLASSIC_DEAD] = (1u << CLASSIC_STABLE) | (1u << CLASSIC_PREPARING_REBALANCE) | (1u << CLASSIC_COMPLETING_REBALANCE) |
                (1u << CLASSIC_EMPTY) | (1u << CLASSIC_DEAD),
};

/* ---- small helpers ------------------------------------------------------- */

static char *dup_str(kc_str_t s) { return s.len < 0 ? NULL : kc_xstrndup(s.ptr, (size_t)s.len); }

/* A copy that is never NULL (a null string gives ""). */
static char *dup_nn(kc_str_t s) { return kc_xstrndup(s.ptr, s.len > 0 ? (size_t)s.len : 0); }

static bool str_eq_c(kc_str_t a, const char *b)
{
    if (a.len < 0 || !b)
        return a.len < 0 && !b;
    return strlen(b) == (size_t)a.len && memcmp(a.ptr, b, (size_t)a.len) == 0;
}

static bool cstr_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static const char *or_null(const char *s) { return s ? s : "null"; }

static bool strset_has(const strset_t *s, const char *v, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->items[i]) == len && memcmp(s->items[i], v, len) == 0)
            return true;
    return false;
}

/* Appends v even if present (a list, not a set). */
static void strlist_append(strset_t *s, const char *v, size_t len)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->items = kc_xrealloc(s->items, s->cap * sizeof(*s->items));
    }
    s->items[s->n++] = kc_xstrndup(v, len);
}

static void strset_add(strset_t *s, const char *v, size_t len)
{
    if (strset_has(s, v, len))
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->items = kc_xrealloc(s->items, s->cap * sizeof(*s->items));
    }
    s->items[s->n++] = kc_xstrndup(v, len);
}

static bool strset_del(strset_t *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->items[i], v) == 0) {
            free(s->items[i]);
            memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof(*s->items));
            s->n--;
            return true;
        }
    }
    return false;
}

static void strset_clear(strset_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    s->n = 0;
}

static void strset_free(strset_t *s)
{
    strset_clear(s);
    free(s->items);
    s->items = NULL;
    s->cap = 0;
}

/* Joins the set's strings as "[a, b]" into buf. */
static const char *strset_fmt(const strset_t *s, char *buf, size_t cap)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, cap - o, "[");
    for (size_t i = 0; i < s->n && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", s->items[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "]");
    return buf;
}

static const char *join_reason(kc_str_t reason, char *buf, size_t cap)
{
    if (reason.len <= 0)
        return "not provided";
    snprintf(buf, cap, "%.*s", (int)reason.len, reason.ptr);
    return buf;
}

static classic_parked_t park(const kc_request_ctx_t *ctx)
{
    classic_parked_t p = {true, ctx->conn_id, ctx->correlation_id, ctx->api_key, ctx->api_version};
    return p;
}

static kc_request_ctx_t parked_ctx(const classic_parked_t *p)
{
    kc_request_ctx_t ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.conn_id = p->conn_id;
    ctx.correlation_id = p->correlation_id;
    ctx.api_key = p->api_key;
    ctx.api_version = p->api_version;
    return ctx;
}

static void heartbeat_key(char *buf, size_t cap, kc_str_t group_id, const char *member_id)
{
    kc_timer_key(buf, cap, "heartbeat-", group_id, member_id);
}

#define KEY_BUF 1024

/* ---- members ------------------------------------------------------------- */

static void member_set_protocols(classic_member_t *m, const kc_join_group_request_t *req)
{
    for (int32_t i = 0; i < m->nprotocols; i++) {
        free(m->protocols[i].name);
        free(m->protocols[i].metadata);
    }
    free(m->protocols);
    m->protocols = NULL;
    m->nprotocols = 0;
    int32_t n = req->protocols.count > 0 ? req->protocols.count : 0;
    if (n == 0)
        return;
    m->protocols = kc_xcalloc((size_t)n, sizeof(*m->protocols));
    for (int32_t i = 0; i < n; i++) {
        kc_str_t name = req->protocols.items[i].name;
        kc_bytes_t md = req->protocols.items[i].metadata;
        bool dup = false; /* protocol names are a map key: the first one wins */
        for (int32_t j = 0; j < m->nprotocols; j++)
            if (str_eq_c(name, m->protocols[j].name))
                dup = true;
        if (dup || name.len < 0)
            continue;
        classic_protocol_t *p = &m->protocols[m->nprotocols++];
        p->name = dup_str(name);
        p->metadata_len = md.len > 0 ? md.len : 0;
        p->metadata = kc_xmalloc(p->metadata_len ? (size_t)p->metadata_len : 1);
        if (p->metadata_len)
            memcpy(p->metadata, md.ptr, (size_t)p->metadata_len);
    }
}

static void member_free(classic_member_t *m)
{
    if (!m)
        return;
    free(m->member_id);
    free(m->group_instance_id);
    free(m->client_id);
    free(m->client_host);
    free(m->protocol_type);
    for (int32_t i = 0; i < m->nprotocols; i++) {
        free(m->protocols[i].name);
        free(m->protocols[i].metadata);
    }
    free(m->protocols);
    free(m->assignment);
    free(m);
}

static void member_set_assignment(classic_member_t *m, const uint8_t *data, int32_t len)
{
    free(m->assignment);
    m->assignment_len = len > 0 ? len : 0;
    m->assignment = kc_xmalloc(m->assignment_len ? (size_t)m->assignment_len : 1);
    if (data && m->assignment_len)
        memcpy(m->assignment, data, (size_t)m->assignment_len);
}

static const classic_protocol_t *member_protocol(const classic_member_t *m, const char *name)
{
    if (!name)
        return NULL;
    for (int32_t i = 0; i < m->nprotocols; i++)
        if (strcmp(m->protocols[i].name, name) == 0)
            return &m->protocols[i];
    return NULL;
}

static bool member_supports(const classic_member_t *m, const char *name)
{
    return member_protocol(m, name) != NULL;
}

/* Same protocols, same metadata, same order (ClassicGroupMember.matches). */
static bool member_matches(const classic_member_t *m, const kc_join_group_request_t *req)
{
    int32_t n = req->protocols.count > 0 ? req->protocols.count : 0;
    if (n != m->nprotocols)
        return false;
    for (int32_t i = 0; i < n; i++) {
        const classic_protocol_t *p = &m->protocols[i];
        kc_bytes_t md = req->protocols.items[i].metadata;
        int32_t mdlen = md.len > 0 ? md.len : 0;
        if (!str_eq_c(req->protocols.items[i].name, p->name) || mdlen != p->metadata_len ||
            (mdlen && memcmp(md.ptr, p->metadata, (size_t)mdlen) != 0))
            return false;
    }
    return true;
}

static bool member_awaiting_join(const classic_member_t *m) { return m->join.active; }
static bool member_awaiting_sync(const classic_member_t *m) { return m->sync.active; }

static bool member_has_satisfied_heartbeat(const classic_member_t *m)
{
    if (m->is_new)
        return false;
    return member_awaiting_join(m) || member_awaiting_sync(m);
}

/* ---- group basics -------------------------------------------------------- */

static classic_member_t *group_member(const kc_classic_group_t *g, const char *member_id, size_t len)
{
    for (size_t i = 0; i < g->nmembers; i++)
        if (strlen(g->members[i]->member_id) == len &&
            memcmp(g->members[i]->member_id, member_id, len) == 0)
            return g->members[i];
    return NULL;
}

static classic_member_t *group_member_s(const kc_classic_group_t *g, kc_str_t member_id)
{
    if (member_id.len < 0)
        return NULL;
    return group_member(g, member_id.ptr ? member_id.ptr : "", (size_t)member_id.len);
}

static classic_member_t *group_static_member(const kc_classic_group_t *g, kc_str_t instance_id)
{
    if (instance_id.len < 0)
        return NULL;
    for (size_t i = 0; i < g->nmembers; i++)
        if (g->members[i]->group_instance_id && str_eq_c(instance_id, g->members[i]->group_instance_id))
            return g->members[i];
    return NULL;
}

static bool group_is_leader(const kc_classic_group_t *g, const char *member_id)
{
    return g->leader_id && member_id && strcmp(g->leader_id, member_id) == 0;
}

static bool group_is_pending(const kc_classic_group_t *g, kc_str_t member_id)
{
    return member_id.len >= 0 && strset_has(&g->pending_join, member_id.ptr ? member_id.ptr : "",
                                            (size_t)member_id.len);
}

static int32_t group_rebalance_timeout(const kc_classic_group_t *g)
{
    int32_t t = 0;
    for (size_t i = 0; i < g->nmembers; i++)
        t = KC_MAX(t, g->members[i]->rebalance_timeout_ms);
    return t;
}

static bool group_all_joined(const kc_classic_group_t *g)
{
    return (size_t)g->num_awaiting_join == g->nmembers && g->pending_join.n == 0;
}

static void set_cstr(char **dst, const char *v)
{
    free(*dst);
    *dst = v ? kc_xstrdup(v) : NULL;
}

/*
 * Moves the group to state `to`, logging one line with the generation, the
 * member that caused it (m; NULL when the group's own timer or a reason that
 * names the members did) and the reason.
 */
static void group_transition(kc_classic_group_t *g, classic_state_t to, int64_t now_ms,
                             const classic_member_t *m, const char *reason)
{
    /* Illegal transitions are programming errors, as in Kafka. */
    assert(valid_previous[to] & (1u << g->state));
    if (!(valid_previous[to] & (1u << g->state))) {
        kc_log_error(LOG_COMP, "Group %s should be in one of the previous states of %s but is in %s",
                     g->group_id, state_names[to], state_names[g->state]);
        abort();
    }
    size_t rl = strlen(reason);
    const char *stop = rl > 0 && reason[rl - 1] == '.' ? "" : "."; /* Kafka's reasons may end in one */
    if (m)
        kc_log_info(LOG_COMP,
                    "Group %s transitioned from %s to %s in generation %d (member %s, group "
                    "instance id %s): %s%s",
                    g->group_id, state_names[g->state], state_names[to], g->generation_id,
                    m->member_id, or_null(m->group_instance_id), reason, stop);
    else
        kc_log_info(LOG_COMP, "Group %s transitioned from %s to %s in generation %d: %s%s",
                    g->group_id, state_names[g->state], state_names[to], g->generation_id, reason,
                    stop);
    g->previous_state = g->state;
    g->state = to;
    g->current_state_timestamp = now_ms;
}

/* The classic group of that id (len bytes), NULL when none or of another type. */
static kc_classic_group_t *classic_get(kc_coord_t *c, const char *group_id, size_t len)
{
    return kc_group_get_typed(c, (kc_str_t){group_id, (int32_t)len}, KC_GROUP_CLASSIC);
}

static kc_classic_group_t *group_new(const char *group_id, size_t len, classic_state_t state,
                                     int64_t now_ms)
{
    kc_classic_group_t *g = kc_xcalloc(1, sizeof(*g));
    g->base.ops = &kc_classic_group_ops;
    g->group_id = kc_xstrndup(group_id, len);
    g->group_id_len = len;
    g->state = state;
    g->previous_state = CLASSIC_DEAD;
    g->current_state_timestamp = now_ms;
    return g;
}

static void group_free(kc_classic_group_t *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nmembers; i++)
        member_free(g->members[i]);
    free(g->members);
    free(g->group_id);
    free(g->protocol_type);
    free(g->protocol_name);
    free(g->leader_id);
    strset_free(&g->pending_join);
    strset_free(&g->pending_sync);
    strset_free(&g->subscribed_topics);
    free(g);
}


static uint32_t member_bucket(const classic_member_t *m, uint32_t cap)
{
    return (m->id_hash ^ (m->id_hash >> 16)) & (cap - 1);
}

static int cmp_member_table_order(const void *a, const void *b, void *arg)
{
    const classic_member_t *x = *(classic_member_t *const *)a, *y = *(classic_member_t *const *)b;
    uint32_t cap = *(const uint32_t *)arg;
    uint32_t bx = member_bucket(x, cap), by = member_bucket(y, cap);
    if (bx != by)
        return bx < by ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Puts m into the member table as HashMap.put does for a new key: it goes
 * last in its bucket; the table (16 buckets at first) doubles once it holds
 * more than three quarters of its capacity, and never shrinks. Iteration
 * is bucket by bucket, each in insertion order.
 */
static void group_insert_member(kc_classic_group_t *g, classic_member_t *m)
{
    if (g->nmembers == g->members_cap) {
        g->members_cap = g->members_cap ? g->members_cap * 2 : 8;
        g->members = kc_xrealloc(g->members, g->members_cap * sizeof(*g->members));
    }
    m->seq = ++g->member_seq;
    m->id_hash = (uint32_t)kc_java_string_hash(m->member_id, strlen(m->member_id));
    if (!g->members_table_cap)
        g->members_table_cap = 16;
    if (g->nmembers + 1 > (size_t)g->members_table_cap / 4 * 3) {
        /* The table grows: every bucket changes, sort again. */
        g->members_table_cap *= 2;
        g->members[g->nmembers++] = m;
        qsort_r(g->members, g->nmembers, sizeof(*g->members), cmp_member_table_order,
                &g->members_table_cap);
        return;
    }
    /* The newest entry goes after every member of a bucket up to its own. */
    uint32_t b = member_bucket(m, g->members_table_cap);
    size_t lo = 0, hi = g->nmembers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (member_bucket(g->members[mid], g->members_table_cap) <= b)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&g->members[lo + 1], &g->members[lo], (g->nmembers - lo) * sizeof(*g->members));
    g->members[lo] = m;
    g->nmembers++;
}

/* ClassicGroup.add: the first member sets the protocol type and leads. */
static void group_add(kc_classic_group_t *g, classic_member_t *m, const classic_parked_t *join)
{
    if (g->nmembers == 0)
        set_cstr(&g->protocol_type, m->protocol_type);
    if (!g->leader_id)
        g->leader_id = kc_xstrdup(m->member_id);
    group_insert_member(g, m);
    if (join) {
        m->join = *join;
        g->num_awaiting_join++;
    } else {
        m->join.active = false;
    }
    strset_del(&g->pending_join, m->member_id);
}

/* ClassicGroup.remove: also drops pending join/sync entries; a new leader is
 * the first remaining member. Returns the removed member (caller frees). */
static classic_member_t *group_detach(kc_classic_group_t *g, const char *member_id)
{
    classic_member_t *removed = NULL;
    for (size_t i = 0; i < g->nmembers; i++) {
        if (strcmp(g->members[i]->member_id, member_id) == 0) {
            removed = g->members[i];
            memmove(&g->members[i], &g->members[i + 1], (g->nmembers - i - 1) * sizeof(*g->members));
            g->nmembers--;
            break;
        }
    }
    if (removed && member_awaiting_join(removed))
        g->num_awaiting_join--;
    if (group_is_leader(g, member_id)) {
        set_cstr(&g->leader_id, g->nmembers ? g->members[0]->member_id : NULL);
    }
    strset_del(&g->pending_join, member_id);
    strset_del(&g->pending_sync, member_id);
    return removed;
}

static void group_remove(kc_classic_group_t *g, const char *member_id)
{
    char *id = kc_xstrdup(member_id); /* member_id may belong to the member */
    member_free(group_detach(g, id));
    free(id);
}

static bool group_supports_protocols(const kc_classic_group_t *g, kc_str_t protocol_type,
                                     const kc_join_group_request_t *req)
{
    int32_t n = req->protocols.count > 0 ? req->protocols.count : 0;
    if (g->state == CLASSIC_EMPTY)
        return protocol_type.len > 0 && n > 0;
    if (!g->protocol_type || !str_eq_c(protocol_type, g->protocol_type))
        return false;
    for (int32_t i = 0; i < n; i++) {
        kc_str_t name = req->protocols.items[i].name;
        size_t count = 0;
        for (size_t j = 0; j < g->nmembers; j++)
            for (int32_t k = 0; k < g->members[j]->nprotocols; k++)
                if (str_eq_c(name, g->members[j]->protocols[k].name))
                    count++;
        if (count == g->nmembers)
            return true;
    }
    return false;
}


/* Bucket of a string key in a java.util.HashMap holding n entries (default
 * capacity 16, doubled whenever n exceeds three quarters of it). */
static uint32_t java_hashmap_bucket(const char *key, size_t n)
{
    uint32_t cap = 16;
    while (n > (size_t)cap / 4 * 3)
        cap *= 2;
    uint32_t h = (uint32_t)kc_java_string_hash(key, strlen(key));
    return (h ^ (h >> 16)) & (cap - 1);
}

/* The group id, every byte of it (it may hold NUL). */
static kc_str_t group_id_of(const kc_classic_group_t *g)
{
    return (kc_str_t){g->group_id, (int32_t)g->group_id_len};
}

/* Records a put of g into its partition's table; old is the group it
 * replaces (still in the map) or NULL. */
static void groups_table_put(kc_coord_t *c, kc_classic_group_t *g, const kc_classic_group_t *old)
{
    g->table_seq = kc_groups_table_put(c, group_id_of(g), old ? old->table_seq : 0);
}

/* Records the removal of g from its partition's table (which never shrinks). */
static void groups_table_remove(kc_coord_t *c, const kc_classic_group_t *g)
{
    kc_groups_table_remove(c, group_id_of(g));
}

/*
 * Protocol vote (ClassicGroup.selectProtocol): among the protocols every
 * member supports, each member votes for the first one it lists; the most
 * votes wins. Kafka counts the votes in a HashMap and keeps the first
 * maximum it iterates over, so a tie goes to the protocol in the lowest
 * hash bucket, then to the one voted for first.
 */
static const char *group_select_protocol(const kc_classic_group_t *g)
{
    if (g->nmembers == 0)
        return NULL;
    const char **names = kc_xcalloc(g->nmembers, sizeof(*names));
    size_t *votes = kc_xcalloc(g->nmembers, sizeof(*votes));
    size_t n = 0;
    for (size_t j = 0; j < g->nmembers; j++) {
        const classic_member_t *m = g->members[j];
        const char *vote = NULL;
        for (int32_t k = 0; k < m->nprotocols && !vote; k++) {
            bool common = true;
            for (size_t x = 0; x < g->nmembers && common; x++)
                common = member_supports(g->members[x], m->protocols[k].name);
            if (common)
                vote = m->protocols[k].name;
        }
        if (!vote)
            continue;
        size_t v = 0;
        while (v < n && strcmp(names[v], vote) != 0)
            v++;
        if (v == n)
            names[n++] = vote;
        votes[v]++;
    }
    const char *best = NULL;
    size_t best_votes = 0;
    uint32_t best_bucket = 0;
    for (size_t v = 0; v < n; v++) {
        uint32_t bucket = java_hashmap_bucket(names[v], n);
        if (!best || votes[v] > best_votes || (votes[v] == best_votes && bucket < best_bucket)) {
            best = names[v];
            best_votes = votes[v];
            best_bucket = bucket;
        }
    }
    free(names);
    free(votes);
    return best;
}

/* Adds the topics of a ConsumerProtocolSubscription to out. As Kafka, reads
 * it at version 0 (Topics, UserData: the layout every version starts with)
 * whatever its version prefix says; false when that does not parse. */
static bool parse_subscription(const uint8_t *p, int32_t len, kc_arena_t *arena, strset_t *out)
{
    kc_consumer_protocol_subscription_t sub;
    if (kc_consumer_protocol_read_subscription(p, len, 0, arena, &sub) != 0)
        return false;
    for (int32_t i = 0; i < sub.topics.count; i++)
        strset_add(out, sub.topics.items[i].ptr ? sub.topics.items[i].ptr : "",
                   (size_t)sub.topics.items[i].len);
    return true;
}

/* ClassicGroup.computeSubscribedTopics. */
static void group_compute_subscribed_topics(kc_classic_group_t *g)
{
    strset_clear(&g->subscribed_topics);
    g->subscribed_known = false;
    if (!g->protocol_type || strcmp(g->protocol_type, "consumer") != 0)
        return;
    if (g->nmembers == 0) {
        g->subscribed_known = true;
        return;
    }
    if (!g->protocol_name)
        return;
    kc_arena_t arena;
    kc_arena_init(&arena);
    bool ok = true;
    for (size_t i = 0; i < g->nmembers && ok; i++) {
        const classic_protocol_t *p = member_protocol(g->members[i], g->protocol_name);
        ok = p && parse_subscription(p->metadata, p->metadata_len, &arena, &g->subscribed_topics);
    }
    kc_arena_deinit(&arena);
    if (!ok) {
        kc_log_warn(LOG_COMP,
                    "Failed to parse Consumer Protocol consumer:%s of group %s. Consumer group "
                    "coordinator is not aware of the subscribed topics.",
                    g->protocol_name, g->group_id);
        strset_clear(&g->subscribed_topics);
        return;
    }
    g->subscribed_known = true;
}

static void group_init_next_generation(kc_classic_group_t *g, int64_t now_ms, const char *why)
{
    g->generation_id++;
    if (g->nmembers) {
        set_cstr(&g->protocol_name, group_select_protocol(g));
        group_compute_subscribed_topics(g);
        group_transition(g, CLASSIC_COMPLETING_REBALANCE, now_ms, NULL, why);
    } else {
        set_cstr(&g->protocol_name, NULL);
        group_compute_subscribed_topics(g);
        group_transition(g, CLASSIC_EMPTY, now_ms, NULL, "no member is left");
    }
    strset_clear(&g->pending_sync);
}

/* ClassicGroup.validateMember: returns 0 or the Kafka error. */
static int16_t group_validate_member(const kc_classic_group_t *g, kc_str_t member_id,
                                     kc_str_t group_instance_id, const char *operation)
{
    if (group_instance_id.len >= 0) {
        const classic_member_t *s = group_static_member(g, group_instance_id);
        if (!s)
            return KC_ERR_UNKNOWN_MEMBER_ID;
        if (!str_eq_c(member_id, s->member_id)) {
            kc_log_info(LOG_COMP,
                        "[GroupId %s] Request memberId=%.*s for static member with "
                        "groupInstanceId=%.*s is fenced by existing memberId=%s during operation %s "
                        "(generation %d)",
                        g->group_id, member_id.len > 0 ? (int)member_id.len : 0,
                        member_id.ptr ? member_id.ptr : "", (int)group_instance_id.len,
                        group_instance_id.ptr ? group_instance_id.ptr : "", s->member_id, operation,
                        g->generation_id);
            return KC_ERR_FENCED_INSTANCE_ID;
        }
    }
    if (!group_member_s(g, member_id))
        return KC_ERR_UNKNOWN_MEMBER_ID;
    return KC_ERR_NONE;
}

/* ---- responses ------------------------------------------------------------ */

typedef struct {
    int16_t error_code;
    int32_t generation_id;
    const char *protocol_type;
    const char *protocol_name;
    const char *leader;
    bool skip_assignment;
    const char *member_id;
    const kc_classic_group_t *members_of; /* non-NULL: list the members (leader) */
} join_answer_t;

/* The JoinGroup response of an answer at version; arrays from arena. */
static void fill_join(kc_join_group_response_t *out, int16_t version, const join_answer_t *a,
                      kc_arena_t *arena)
{
    kc_join_group_response_t r;
    kc_join_group_response_init(&r);
    r.error_code = a->error_code;
    r.generation_id = a->generation_id;
    r.protocol_type = kc_str(a->protocol_type);
    /* Before v7 the protocol name is a non-null string; from v7 an empty one is null. */
    if (version < 7)
        r.protocol_name = kc_str(a->protocol_name ? a->protocol_name : "");
    else
        r.protocol_name = kc_str(a->protocol_name && *a->protocol_name ? a->protocol_name : NULL);
    r.leader = kc_str(a->leader ? a->leader : "");
    r.skip_assignment = a->skip_assignment;
    r.member_id = kc_str(a->member_id ? a->member_id : "");
    const kc_classic_group_t *g = a->members_of;
    if (g && g->nmembers) {
        r.members.count = (int32_t)g->nmembers;
        r.members.items = kc_arena_alloc(arena, g->nmembers * sizeof(*r.members.items));
        for (size_t i = 0; i < g->nmembers; i++) {
            const classic_member_t *m = g->members[i];
            const classic_protocol_t *p = member_protocol(m, g->protocol_name);
            r.members.items[i].member_id = kc_str(m->member_id);
            r.members.items[i].group_instance_id = kc_str(m->group_instance_id);
            r.members.items[i].metadata =
                p ? (kc_bytes_t){p->metadata, p->metadata_len} : (kc_bytes_t){(const uint8_t *)"", 0};
        }
    } else {
        r.members.count = 0;
        r.members.items = NULL;
    }
    *out = r;
}

static void send_join(kc_result_t *res, const classic_parked_t *p, const join_answer_t *a,
                      bool depends_on_records)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_join_group_response_t r, err;
    fill_join(&r, p->api_version, a, &arena);
    if (depends_on_records) {
        join_answer_t e = {KC_COORD_ERR_WRITE_FAILED, -1, NULL, NULL, NULL, false, "", NULL};
        fill_join(&err, p->api_version, &e, &arena);
    }
    kc_request_ctx_t ctx = parked_ctx(p);
    kc_result_respond(res, &ctx, &r, depends_on_records ? &err : NULL);
    kc_arena_deinit(&arena);
}

static void send_join_error(kc_result_t *res, const kc_request_ctx_t *ctx, int16_t error,
                            const char *member_id)
{
    classic_parked_t p = park(ctx);
    join_answer_t a = {error, -1, NULL, NULL, NULL, false, member_id, NULL};
    send_join(res, &p, &a, false);
}

/* Completes a member's parked join (ClassicGroup.completeJoinFuture). */
static bool complete_join_future(kc_classic_group_t *g, classic_member_t *m, const join_answer_t *a,
                                 kc_result_t *res, bool depends_on_records)
{
    if (!member_awaiting_join(m))
        return false;
    classic_parked_t p = m->join;
    m->join.active = false;
    g->num_awaiting_join--;
    send_join(res, &p, a, depends_on_records);
    return true;
}

static void send_sync(kc_result_t *res, const classic_parked_t *p, int16_t error,
                      const char *protocol_type, const char *protocol_name, const uint8_t *assignment,
                      int32_t assignment_len, bool depends_on_records)
{
    kc_sync_group_response_t r, err;
    kc_sync_group_response_init(&r);
    r.error_code = error;
    r.protocol_type = kc_str(protocol_type);
    r.protocol_name = kc_str(protocol_name);
    r.assignment = (kc_bytes_t){assignment ? assignment : (const uint8_t *)"", assignment_len};
    kc_sync_group_response_init(&err);
    err.error_code = KC_COORD_ERR_WRITE_FAILED;
    err.assignment = (kc_bytes_t){(const uint8_t *)"", 0};
    kc_request_ctx_t ctx = parked_ctx(p);
    kc_result_respond(res, &ctx, &r, depends_on_records ? &err : NULL);
}

static void send_sync_error(kc_result_t *res, const kc_request_ctx_t *ctx, int16_t error)
{
    classic_parked_t p = park(ctx);
    send_sync(res, &p, error, NULL, NULL, NULL, 0, false);
}

static bool complete_sync_future(classic_member_t *m, int16_t error, const char *protocol_type,
                                 const char *protocol_name, kc_result_t *res,
                                 bool depends_on_records)
{
    if (!member_awaiting_sync(m))
        return false;
    classic_parked_t p = m->sync;
    m->sync.active = false;
    send_sync(res, &p, error, protocol_type, protocol_name, m->assignment, m->assignment_len,
              depends_on_records);
    return true;
}

static void send_heartbeat(kc_result_t *res, const kc_request_ctx_t *ctx, int16_t error)
{
    kc_heartbeat_response_t r;
    kc_heartbeat_response_init(&r);
    r.error_code = error;
    kc_result_respond(res, ctx, &r, NULL);
}

/* ---- records ------------------------------------------------------------- */

/*
 * Appends the group's GroupMetadata record (GroupCoordinatorRecordHelpers.
 * newGroupMetadataRecord; as_new_empty = newEmptyGroupMetadataRecord).
 * Members carry the metadata of the selected protocol and their assignment.
 */
static void write_group_record(kc_classic_group_t *g, bool as_new_empty, kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_group_metadata_value_t v;
    kc_group_metadata_value_init(&v);
    v.protocol_type = kc_str(as_new_empty ? "" : (g->protocol_type ? g->protocol_type : ""));
    v.generation = as_new_empty ? 0 : g->generation_id;
    v.protocol = kc_str(as_new_empty ? NULL : g->protocol_name);
    v.leader = kc_str(as_new_empty ? NULL : g->leader_id);
    v.current_state_timestamp = g->current_state_timestamp;
    size_t n = as_new_empty ? 0 : g->nmembers;
    v.members.count = (int32_t)n;
    v.members.items = n ? kc_arena_alloc(&arena, n * sizeof(*v.members.items)) : NULL;
    for (size_t i = 0; i < n; i++) {
        const classic_member_t *m = g->members[i];
        const classic_protocol_t *p = member_protocol(m, g->protocol_name);
        __typeof__(v.members.items[0]) *mm = &v.members.items[i];
        mm->member_id = kc_str(m->member_id);
        mm->group_instance_id = kc_str(m->group_instance_id);
        mm->client_id = kc_str(m->client_id);
        mm->client_host = kc_str(m->client_host);
        mm->rebalance_timeout = m->rebalance_timeout_ms;
        mm->session_timeout = m->session_timeout_ms;
        mm->subscription =
            p ? (kc_bytes_t){p->metadata, p->metadata_len} : (kc_bytes_t){(const uint8_t *)"", 0};
        mm->assignment = (kc_bytes_t){m->assignment ? m->assignment : (const uint8_t *)"",
                                      m->assignment_len};
    }
    kc_record_key_t key = {.group_id = kc_str(g->group_id)};
    kc_record_write(res, KC_RECORD_GROUP_METADATA, &key, GROUP_METADATA_VALUE_VERSION, &v);
    kc_arena_deinit(&arena);
}

static void write_group_tombstone(const char *group_id, kc_result_t *res)
{
    kc_record_key_t key = {.group_id = kc_str(group_id)};
    kc_record_write(res, KC_RECORD_GROUP_METADATA, &key, 0, NULL);
}

/* ---- timers and the rebalance machinery ------------------------------- */

static void complete_join(kc_coord_t *c, kc_classic_group_t *g, int64_t now_ms, kc_result_t *res,
                          const char *why);
static void prepare_rebalance(kc_coord_t *c, kc_classic_group_t *g, const char *reason,
                              int64_t now_ms, kc_result_t *res);

/* The group of the firing timer (every byte of its group id). */
static kc_classic_group_t *timer_group(kc_coord_t *c)
{
    const kc_timer_t *t = kc_timer_current(c);
    return t->group_id ? classic_get(c, t->group_id, t->group_id_len) : NULL;
}

static void on_heartbeat_expired(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res);

static void schedule_heartbeat(kc_coord_t *c, kc_classic_group_t *g, const char *member_id,
                               int64_t timeout_ms, int64_t now_ms)
{
    char key[KEY_BUF];
    heartbeat_key(key, sizeof(key), group_id_of(g), member_id);
    kc_timer_schedule_args(c, key, now_ms + timeout_ms, on_heartbeat_expired, group_id_of(g),
                           member_id, 0, 0);
}

static void cancel_heartbeat(kc_coord_t *c, kc_classic_group_t *g, const char *member_id)
{
    char key[KEY_BUF];
    heartbeat_key(key, sizeof(key), group_id_of(g), member_id);
    kc_timer_cancel(c, key);
}

static void join_key(char *buf, size_t cap, kc_str_t group_id)
{
    kc_timer_key(buf, cap, "join-", group_id, NULL);
}

static void sync_key(char *buf, size_t cap, kc_str_t group_id)
{
    kc_timer_key(buf, cap, "sync-", group_id, NULL);
}

static void on_join_expired(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    kc_classic_group_t *g = timer_group(c);
    if (!g) {
        kc_log_debug(LOG_COMP, "Cannot find the group, skipping rebalance stage (%s).", key);
        return;
    }
    complete_join(c, g, now_ms, res, "the rebalance timeout passed before every member rejoined");
}

static void on_initial_delay_expired(kc_coord_t *c, const char *key, int64_t now_ms,
                                     kc_result_t *res)
{
    const kc_timer_t *t = kc_timer_current(c);
    kc_classic_group_t *g = timer_group(c);
    if (!g) {
        kc_log_debug(LOG_COMP, "Cannot find the group, skipping the initial rebalance stage (%s).",
                     key);
        return;
    }
    int32_t delay_ms = t->arg1, remaining_ms = t->arg2;
    if (g->new_member_added && remaining_ms != 0) {
        /* InitialDelayedJoin: a member arrived during the delay, wait again. */
        g->new_member_added = false;
        int32_t new_delay = KC_MIN(c->cfg.group_initial_rebalance_delay_ms, remaining_ms);
        int32_t new_remaining = KC_MAX(remaining_ms - delay_ms, 0);
        char jk[KEY_BUF];
        join_key(jk, sizeof(jk), group_id_of(g));
        kc_timer_schedule_args(c, jk, now_ms + new_delay, on_initial_delay_expired, group_id_of(g),
                               NULL, new_delay, new_remaining);
    } else {
        complete_join(c, g, now_ms, res, "group.initial.rebalance.delay.ms passed without a new member");
    }
}

static void maybe_complete_join_phase(kc_coord_t *c, kc_classic_group_t *g, int64_t now_ms,
                                      kc_result_t *res)
{
    if (g->state != CLASSIC_PREPARING_REBALANCE)
        return;
    if (g->previous_state == CLASSIC_EMPTY)
        return; /* the initial rebalance completes on its delay timer */
    if (!group_all_joined(g))
        return;
    complete_join(c, g, now_ms, res, "every member has rejoined");
}

static bool group_can_rebalance(const kc_classic_group_t *g)
{
    return (valid_previous[CLASSIC_PREPARING_REBALANCE] & (1u << g->state)) != 0;
}

static void maybe_prepare_rebalance_or_complete_join(kc_coord_t *c, kc_classic_group_t *g,
                                                     const char *reason, int64_t now_ms,
                                                     kc_result_t *res)
{
    if (group_can_rebalance(g))
        prepare_rebalance(c, g, reason, now_ms, res);
    else
        maybe_complete_join_phase(c, g, now_ms, res);
}

/* Answers every parked sync and restarts the members' session timers. */
static void propagate_assignment(kc_coord_t *c, kc_classic_group_t *g, int16_t error,
                                 int64_t now_ms, kc_result_t *res, bool depends_on_records)
{
    const char *ptype = error == KC_ERR_NONE ? g->protocol_type : NULL;
    const char *pname = error == KC_ERR_NONE ? g->protocol_name : NULL;
    for (size_t i = 0; i < g->nmembers; i++) {
        classic_member_t *m = g->members[i];
        if (m->assignment_len == 0 && error == KC_ERR_NONE)
            kc_log_warn(LOG_COMP, "Sending empty assignment to member %s of %s for generation %d with no errors",
                        m->member_id, g->group_id, g->generation_id);
        if (complete_sync_future(m, error, ptype, pname, res, depends_on_records))
            schedule_heartbeat(c, g, m->member_id, m->session_timeout_ms, now_ms);
    }
}

static void reset_and_propagate_assignment_with_error(kc_coord_t *c, kc_classic_group_t *g,
                                                      int16_t error, int64_t now_ms,
                                                      kc_result_t *res)
{
    assert(g->state == CLASSIC_COMPLETING_REBALANCE);
    for (size_t i = 0; i < g->nmembers; i++)
        member_set_assignment(g->members[i], NULL, 0);
    propagate_assignment(c, g, error, now_ms, res, false);
}

static void remove_sync_expiration(kc_coord_t *c, kc_classic_group_t *g)
{
    char key[KEY_BUF];
    strset_clear(&g->pending_sync);
    sync_key(key, sizeof(key), group_id_of(g));
    kc_timer_cancel(c, key);
}

static void prepare_rebalance(kc_coord_t *c, kc_classic_group_t *g, const char *reason,
                              int64_t now_ms, kc_result_t *res)
{
    if (g->state == CLASSIC_COMPLETING_REBALANCE)
        reset_and_propagate_assignment_with_error(c, g, KC_ERR_REBALANCE_IN_PROGRESS, now_ms, res);
    remove_sync_expiration(c, g);

    bool initial = g->state == CLASSIC_EMPTY;
    char jk[KEY_BUF];
    join_key(jk, sizeof(jk), group_id_of(g));
    if (initial) {
        /* A new group: give the other members time to join (InitialDelayedJoin). */
        int32_t delay = c->cfg.group_initial_rebalance_delay_ms;
        int32_t remaining = KC_MAX(group_rebalance_timeout(g) - delay, 0);
        kc_timer_schedule_args(c, jk, now_ms + delay, on_initial_delay_expired, group_id_of(g),
                               NULL, delay, remaining);
    }
    group_transition(g, CLASSIC_PREPARING_REBALANCE, now_ms, NULL, reason);
    kc_log_info(LOG_COMP,
                "Preparing to rebalance group %s in state %s with old generation %d (reason: %s).",
                g->group_id, state_names[g->state], g->generation_id, reason);
    kc_coord_emit(c, KC_COORD_EV_REBALANCE_STARTED, g->group_id, NULL, reason, g->generation_id, 0,
                  now_ms);
    if (initial)
        return;
    if (group_all_joined(g)) {
        complete_join(c, g, now_ms, res, "every member has rejoined");
    } else {
        kc_timer_schedule_args(c, jk, now_ms + group_rebalance_timeout(g), on_join_expired,
                               group_id_of(g), NULL, 0, 0);
    }
}

/* ClassicGroup.maybeElectNewJoinedLeader. */
static bool maybe_elect_new_joined_leader(kc_classic_group_t *g)
{
    if (!g->leader_id)
        return false;
    classic_member_t *leader = group_member(g, g->leader_id, strlen(g->leader_id));
    if (leader && member_awaiting_join(leader))
        return true;
    for (size_t i = 0; i < g->nmembers; i++) {
        if (member_awaiting_join(g->members[i])) {
            const classic_member_t *m = g->members[i];
            char protocols[1024];
            size_t o = 0;
            protocols[0] = 0;
            for (int32_t k = 0; k < m->nprotocols && o < sizeof(protocols); k++)
                o += (size_t)snprintf(protocols + o, sizeof(protocols) - o, "%s%s", k ? ", " : "",
                                      m->protocols[k].name);
            /* Kafka prints the whole member (ClassicGroupMember.toString). */
            kc_log_info(LOG_COMP,
                        "Group leader [memberId: %s, groupInstanceId: %s] failed to join before the "
                        "rebalance timeout. Member ClassicGroupMember(memberId='%s', "
                        "groupInstanceId='%s', clientId='%s', clientHost='%s', "
                        "rebalanceTimeoutMs=%d, sessionTimeoutMs=%d, protocolType='%s', "
                        "supportedProtocols=[%s]) was elected as the new leader.",
                        g->leader_id, leader && leader->group_instance_id ? leader->group_instance_id : "None",
                        m->member_id, m->group_instance_id ? m->group_instance_id : "", m->client_id,
                        m->client_host, m->rebalance_timeout_ms, m->session_timeout_ms,
                        or_null(m->protocol_type), protocols);
            set_cstr(&g->leader_id, g->members[i]->member_id);
            return true;
        }
    }
    kc_log_info(LOG_COMP,
                "Group leader [memberId: %s, groupInstanceId: %s] failed to join before the rebalance "
                "timeout and the group couldn't proceed to the next generation because no member "
                "joined.",
                g->leader_id, leader && leader->group_instance_id ? leader->group_instance_id : "None");
    return false;
}

static void on_sync_expired(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res);

static void complete_join(kc_coord_t *c, kc_classic_group_t *g, int64_t now_ms, kc_result_t *res,
                          const char *why)
{
    char jk[KEY_BUF];
    join_key(jk, sizeof(jk), group_id_of(g));
    kc_timer_cancel(c, jk);

    /* Dynamic members that did not rejoin in time are removed. */
    strset_t gone = {0};
    for (size_t i = 0; i < g->nmembers;) {
        classic_member_t *m = g->members[i];
        if (!member_awaiting_join(m) && !m->group_instance_id) {
            strset_add(&gone, m->member_id, strlen(m->member_id));
            cancel_heartbeat(c, g, m->member_id);
            kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, g->group_id, m->member_id,
                          "not rejoined before the rebalance timeout", g->generation_id, 0, now_ms);
            group_remove(g, m->member_id);
            continue;
        }
        i++;
    }
    if (gone.n) {
        char buf[2048];
        kc_log_info(LOG_COMP, "Group %s removed dynamic members who haven't joined: %s", g->group_id,
                    strset_fmt(&gone, buf, sizeof(buf)));
    }
    strset_free(&gone);

    if (g->state == CLASSIC_DEAD) {
        kc_log_info(LOG_COMP, "Group %s is dead, skipping rebalance stage.", g->group_id);
        return;
    }
    if (!maybe_elect_new_joined_leader(g) && g->nmembers) {
        kc_log_error(LOG_COMP, "Group %s could not complete rebalance because no members rejoined.",
                     g->group_id);
        kc_timer_schedule_args(c, jk, now_ms + group_rebalance_timeout(g), on_join_expired,
                               group_id_of(g), NULL, 0, 0);
        return;
    }
    int64_t rebalance_started_ms = g->current_state_timestamp;
    group_init_next_generation(g, now_ms, why);
    /* A rebalance no member is left in also completes, to Empty. */
    kc_coord_emit(c, KC_COORD_EV_REBALANCE_COMPLETED, g->group_id, NULL,
                  g->state == CLASSIC_EMPTY ? "no member is left: the group is Empty" : NULL,
                  g->generation_id, KC_MAX(now_ms - rebalance_started_ms, 0), now_ms);
    if (g->state == CLASSIC_EMPTY) {
        kc_log_info(LOG_COMP, "Group %s with generation %d is now empty.", g->group_id,
                    g->generation_id);
        write_group_record(g, false, res);
        return;
    }
    kc_log_info(LOG_COMP, "Stabilized group %s generation %d with %zu members.", g->group_id,
                g->generation_id, g->nmembers);
    for (size_t i = 0; i < g->nmembers; i++) {
        classic_member_t *m = g->members[i];
        join_answer_t a = {KC_ERR_NONE,          g->generation_id, g->protocol_type, g->protocol_name,
                           g->leader_id,      false,            m->member_id,
                           group_is_leader(g, m->member_id) ? g : NULL};
        complete_join_future(g, m, &a, res, false);
        schedule_heartbeat(c, g, m->member_id, m->session_timeout_ms, now_ms);
        m->is_new = false;
        strset_add(&g->pending_sync, m->member_id, strlen(m->member_id));
    }
    char sk[KEY_BUF];
    sync_key(sk, sizeof(sk), group_id_of(g));
    kc_timer_schedule_args(c, sk, now_ms + group_rebalance_timeout(g), on_sync_expired,
                           group_id_of(g), NULL, g->generation_id, 0);
}

static void on_sync_expired(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    const kc_timer_t *t = kc_timer_current(c);
    kc_classic_group_t *g = timer_group(c);
    if (!g) {
        kc_log_debug(LOG_COMP, "Received notification of sync expiration for an unknown classic group (%s).", key);
        return;
    }
    if (t->arg1 != g->generation_id) {
        kc_log_error(LOG_COMP,
                     "Received unexpected notification of sync expiration for %s with an old "
                     "generation %d while the group has %d.",
                     g->group_id, t->arg1, g->generation_id);
        return;
    }
    if (g->state != CLASSIC_COMPLETING_REBALANCE && g->state != CLASSIC_STABLE) {
        kc_log_error(LOG_COMP,
                     "Received unexpected notification of sync expiration after group %s already "
                     "transitioned to %s state.",
                     g->group_id, state_names[g->state]);
        return;
    }
    if (g->pending_sync.n == 0)
        return;
    strset_t pending = {0};
    for (size_t i = 0; i < g->pending_sync.n; i++)
        strset_add(&pending, g->pending_sync.items[i], strlen(g->pending_sync.items[i]));
    for (size_t i = 0; i < pending.n; i++) {
        kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, g->group_id, pending.items[i],
                      "no SyncGroup before the rebalance timeout", g->generation_id, 0, now_ms);
        group_remove(g, pending.items[i]);
        cancel_heartbeat(c, g, pending.items[i]);
    }
    char buf[2048], reason[2200];
    strset_fmt(&pending, buf, sizeof(buf));
    kc_log_debug(LOG_COMP, "Group %s removed members who haven't sent their sync requests: %s",
                g->group_id, buf);
    snprintf(reason, sizeof(reason), "Removing %s on pending sync request expiration", buf);
    strset_free(&pending);
    prepare_rebalance(c, g, reason, now_ms, res);
}

static void remove_member_and_update_group(kc_coord_t *c, kc_classic_group_t *g, classic_member_t *m,
                                           const char *reason, int64_t now_ms, kc_result_t *res)
{
    /* A new member may still wait in JoinGroup: answer it before it goes. */
    join_answer_t a = {KC_ERR_UNKNOWN_MEMBER_ID, -1, NULL, NULL, NULL, false, "", NULL};
    complete_join_future(g, m, &a, res, false);
    kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, g->group_id, m->member_id, reason,
                  g->generation_id, 0, now_ms);
    group_remove(g, m->member_id);
    if (g->state == CLASSIC_STABLE || g->state == CLASSIC_COMPLETING_REBALANCE)
        maybe_prepare_rebalance_or_complete_join(c, g, reason, now_ms, res);
    else if (g->state == CLASSIC_PREPARING_REBALANCE && group_all_joined(g))
        complete_join(c, g, now_ms, res, "every remaining member has rejoined");
}

static void on_heartbeat_expired(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    const kc_timer_t *t = kc_timer_current(c);
    kc_classic_group_t *g = timer_group(c);
    const char *member_id = t->member_id;
    if (!g) {
        kc_log_debug(LOG_COMP,
                     "Received notification of heartbeat expiration for member %s after group %s had "
                     "already been deleted or upgraded.",
                     or_null(member_id), or_null(t->group_id));
        (void)key;
        return;
    }
    if (g->state == CLASSIC_DEAD) {
        kc_log_info(LOG_COMP,
                    "Received notification of heartbeat expiration for member %s after group %s had "
                    "already been unloaded or deleted.",
                    member_id, g->group_id);
        return;
    }
    if (strset_has(&g->pending_join, member_id, strlen(member_id))) {
        kc_log_info(LOG_COMP,
                    "Pending member %s in group %s has been removed after session timeout expiration.",
                    member_id, g->group_id);
        kc_coord_emit(c, KC_COORD_EV_SESSION_EXPIRED, g->group_id, member_id, NULL,
                      g->generation_id, 0, now_ms);
        kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, g->group_id, member_id,
                      "pending member session expired", g->generation_id, 0, now_ms);
        group_remove(g, member_id);
        if (g->state == CLASSIC_PREPARING_REBALANCE && group_all_joined(g))
            complete_join(c, g, now_ms, res, "every remaining member has rejoined");
        return;
    }
    classic_member_t *m = group_member(g, member_id, strlen(member_id));
    if (!m) {
        kc_log_debug(LOG_COMP, "Member %s has already been removed from the group.", member_id);
        return;
    }
    if (!member_has_satisfied_heartbeat(m)) {
        kc_log_info(LOG_COMP,
                    "Member %s in group %s has failed, removing it from the group. (group instance "
                    "id %s, generation %d, session timeout %d ms)",
                    m->member_id, g->group_id, or_null(m->group_instance_id), g->generation_id,
                    m->session_timeout_ms);
        kc_coord_emit(c, KC_COORD_EV_SESSION_EXPIRED, g->group_id, m->member_id, NULL,
                      g->generation_id, 0, now_ms);
        char reason[KEY_BUF];
        snprintf(reason, sizeof(reason), "removing member %s on heartbeat expiration.", m->member_id);
        remove_member_and_update_group(c, g, m, reason, now_ms, res);
    }
}

/* ---- JoinGroup ------------------------------------------------------------ */

typedef struct {
    kc_coord_t *c;
    const kc_request_ctx_t *ctx;
    const kc_join_group_request_t *req;
    kc_result_t *res;
    int32_t rebalance_timeout_ms;
    char reason_buf[512];
    const char *reason;
} join_call_t;

static void update_member(kc_classic_group_t *g, classic_member_t *m, const join_call_t *j,
                          const classic_parked_t *join)
{
    member_set_protocols(m, j->req);
    m->rebalance_timeout_ms = j->rebalance_timeout_ms;
    m->session_timeout_ms = j->req->session_timeout_ms;
    if (join && !member_awaiting_join(m))
        g->num_awaiting_join++;
    else if (!join && member_awaiting_join(m))
        g->num_awaiting_join--;
    if (join) {
        if (member_awaiting_join(m))
            kc_log_debug(LOG_COMP, "Member %s of group %s replaced its pending JoinGroup",
                         m->member_id, g->group_id);
        m->join = *join;
    } else {
        m->join.active = false;
    }
}

static void update_member_then_rebalance(join_call_t *j, kc_classic_group_t *g, classic_member_t *m,
                                         const char *reason)
{
    classic_parked_t p = park(j->ctx);
    update_member(g, m, j, &p);
    maybe_prepare_rebalance_or_complete_join(j->c, g, reason, j->ctx->now_ms, j->res);
}

static void add_member_then_rebalance(join_call_t *j, kc_classic_group_t *g, const char *member_id)
{
    const kc_join_group_request_t *req = j->req;
    classic_member_t *m = kc_xcalloc(1, sizeof(*m));
    m->member_id = kc_xstrdup(member_id);
    m->group_instance_id = dup_str(req->group_instance_id);
    m->client_id = dup_str(j->ctx->client_id.len >= 0 ? j->ctx->client_id : kc_str(""));
    m->client_host = kc_xstrdup(j->ctx->client_host ? j->ctx->client_host : "");
    m->rebalance_timeout_ms = j->rebalance_timeout_ms;
    m->session_timeout_ms = req->session_timeout_ms;
    m->protocol_type = dup_str(req->protocol_type.len >= 0 ? req->protocol_type : kc_str(""));
    member_set_protocols(m, req);
    member_set_assignment(m, NULL, 0);
    m->is_new = true;

    if (g->state == CLASSIC_PREPARING_REBALANCE && g->previous_state == CLASSIC_EMPTY)
        g->new_member_added = true;
    classic_parked_t p = park(j->ctx);
    group_add(g, m, &p);
    kc_coord_emit(j->c, KC_COORD_EV_MEMBER_JOINED, g->group_id, m->member_id, NULL,
                  g->generation_id, 0, j->ctx->now_ms);
    /* A member waiting in its first JoinGroup cannot heartbeat; bound the
     * wait with the new-member join timeout instead. */
    schedule_heartbeat(j->c, g, m->member_id, j->c->cfg.group_new_member_join_timeout_ms,
                       j->ctx->now_ms);
    char reason[1024];
    snprintf(reason, sizeof(reason), "Adding new member %s with group instance id %s; client reason: %s",
             member_id, or_null(m->group_instance_id), j->reason);
    maybe_prepare_rebalance_or_complete_join(j->c, g, reason, j->ctx->now_ms, j->res);
}

/* ClassicGroup.replaceStaticMember: the old member's parked requests are
 * fenced; the new member inherits its place, fields and assignment. */
static classic_member_t *replace_static_member(kc_classic_group_t *g, classic_member_t *old,
                                          const char *new_member_id, kc_result_t *res)
{
    size_t idx = 0;
    while (idx < g->nmembers && g->members[idx] != old)
        idx++;
    assert(idx < g->nmembers);
    kc_log_info(LOG_COMP,
                "[GroupId %s] Static member %s with group instance id %s is fenced in generation %d: "
                "member %s replaced it%s%s.",
                g->group_id, old->member_id, or_null(old->group_instance_id), g->generation_id,
                new_member_id,
                member_awaiting_join(old) ? "; its pending JoinGroup is answered FENCED_INSTANCE_ID" : "",
                member_awaiting_sync(old) ? "; its pending SyncGroup is answered FENCED_INSTANCE_ID" : "");
    join_answer_t fenced = {KC_ERR_FENCED_INSTANCE_ID, -1, NULL, NULL, "", false, old->member_id, NULL};
    complete_join_future(g, old, &fenced, res, false);
    if (member_awaiting_sync(old)) {
        classic_parked_t p = old->sync;
        old->sync.active = false;
        send_sync(res, &p, KC_ERR_FENCED_INSTANCE_ID, NULL, NULL, NULL, 0, false);
    }
    classic_member_t *m = kc_xcalloc(1, sizeof(*m));
    *m = *old;
    m->member_id = kc_xstrdup(new_member_id);
    m->join.active = false;
    m->sync.active = false;
    /* Kafka removes the old id and puts the new one: it goes last in the
     * bucket of the new id. */
    memmove(&g->members[idx], &g->members[idx + 1], (g->nmembers - idx - 1) * sizeof(*g->members));
    g->nmembers--;
    group_insert_member(g, m);
    if (group_is_leader(g, old->member_id))
        set_cstr(&g->leader_id, new_member_id);
    free(old->member_id);
    free(old); /* the other fields moved to m */
    return m;
}

static void update_static_member_then_rebalance(join_call_t *j, kc_classic_group_t *g,
                                                classic_member_t *old, const char *new_member_id)
{
    kc_coord_t *c = j->c;
    int64_t now = j->ctx->now_ms;
    char *current_leader = g->leader_id ? kc_xstrdup(g->leader_id) : NULL;
    char *iid = kc_xstrdup(old->group_instance_id);
    kc_coord_emit_static_replaced(c, g->group_id, old->member_id, new_member_id, g->generation_id,
                                  now);
    classic_member_t *m = replace_static_member(g, old, new_member_id, j->res);
    schedule_heartbeat(c, g, m->member_id, m->session_timeout_ms, now);
    classic_parked_t p = park(j->ctx);
    update_member(g, m, j, &p);
    char reason[1024];

    if (g->state == CLASSIC_STABLE) {
        const char *selected = group_select_protocol(g);
        if (cstr_eq(g->protocol_name ? g->protocol_name : "", selected ? selected : "")) {
            kc_log_info(LOG_COMP, "Static member which joins during Stable stage and doesn't affect "
                                  "the selected protocol will not trigger a rebalance.");
            write_group_record(g, false, j->res);
            join_answer_t a;
            if (j->ctx->api_version >= 9) {
                bool is_leader = group_is_leader(g, m->member_id);
                a = (join_answer_t){KC_ERR_NONE,     g->generation_id, g->protocol_type, g->protocol_name,
                                    g->leader_id, is_leader,        m->member_id,     is_leader ? g : NULL};
            } else {
                /* Older clients must not act as leader: name the previous leader. */
                a = (join_answer_t){KC_ERR_NONE,       g->generation_id, g->protocol_type, g->protocol_name,
                                    current_leader, false,            m->member_id,     NULL};
            }
            complete_join_future(g, m, &a, j->res, true);
        } else {
            snprintf(reason, sizeof(reason),
                     "Group's selectedProtocol will change because static member %s with instance id "
                     "%s joined with change of protocol; client reason: %s",
                     m->member_id, iid, j->reason);
            maybe_prepare_rebalance_or_complete_join(c, g, reason, now, j->res);
        }
    } else if (g->state == CLASSIC_COMPLETING_REBALANCE) {
        /* The leader may already hold the old member id: rebalance again. */
        snprintf(reason, sizeof(reason),
                 "Updating metadata for static member %s with instance id %s; client reason: %s",
                 m->member_id, iid, j->reason);
        prepare_rebalance(c, g, reason, now, j->res);
    } else if (g->state == CLASSIC_EMPTY || g->state == CLASSIC_DEAD) {
        kc_log_error(LOG_COMP, "Group %s was not supposed to be in the state %s when the unknown static member %s rejoins.",
                     g->group_id, state_names[g->state], iid);
        join_answer_t a = {KC_ERR_UNKNOWN_SERVER_ERROR, -1, NULL, NULL, NULL, false, "", NULL};
        complete_join_future(g, m, &a, j->res, false);
    } else {
        maybe_complete_join_phase(c, g, now, j->res);
    }
    free(current_leader);
    free(iid);
}

static void join_new_member(join_call_t *j, kc_classic_group_t *g)
{
    const kc_join_group_request_t *req = j->req;
    if (g->state == CLASSIC_DEAD) {
        send_join_error(j->res, j->ctx, KC_ERR_COORDINATOR_NOT_AVAILABLE, "");
        return;
    }
    if (!group_supports_protocols(g, req->protocol_type, req)) {
        send_join_error(j->res, j->ctx, KC_ERR_INCONSISTENT_GROUP_PROTOCOL, "");
        return;
    }
    char uuid[37];
    kc_coord_random_uuid(j->c, uuid);
    kc_str_t prefix = req->group_instance_id.len >= 0 ? req->group_instance_id : j->ctx->client_id;
    char *new_id = kc_xmalloc((size_t)KC_MAX(prefix.len, 0) + 38);
    snprintf(new_id, (size_t)KC_MAX(prefix.len, 0) + 38, "%.*s-%s", (int)KC_MAX(prefix.len, 0),
             prefix.ptr ? prefix.ptr : "", uuid);

    if (req->group_instance_id.len >= 0) {
        classic_member_t *existing = group_static_member(g, req->group_instance_id);
        if (existing) {
            kc_log_info(LOG_COMP,
                        "Static member with groupInstanceId=%s and unknown member id joins group %s "
                        "in %s state. Replacing previously mapped member %s with this "
                        "groupInstanceId.",
                        existing->group_instance_id, g->group_id, state_names[g->state],
                        existing->member_id);
            update_static_member_then_rebalance(j, g, existing, new_id);
        } else {
            kc_log_info(LOG_COMP,
                        "Static member with groupInstanceId=%.*s and unknown member id joins group "
                        "%s in %s state. Created a new member id %s for this member and added to "
                        "the group.",
                        (int)req->group_instance_id.len, req->group_instance_id.ptr, g->group_id,
                        state_names[g->state], new_id);
            add_member_then_rebalance(j, g, new_id);
        }
    } else if (j->ctx->api_version >= 4) {
        /* KIP-394: hand out the id, remember it as pending, wait for the rejoin. */
        kc_log_info(LOG_COMP,
                    "Dynamic member with unknown member id joins group %s in %s state. Created a new "
                    "member id %s and requesting the member to rejoin with this id.",
                    g->group_id, state_names[g->state], new_id);
        strset_add(&g->pending_join, new_id, strlen(new_id));
        schedule_heartbeat(j->c, g, new_id, req->session_timeout_ms, j->ctx->now_ms);
        send_join_error(j->res, j->ctx, KC_ERR_MEMBER_ID_REQUIRED, new_id);
    } else {
        kc_log_info(LOG_COMP,
                    "Dynamic member with unknown member id joins group %s in state %s. Created a new "
                    "member id %s and added the member to the group.",
                    g->group_id, state_names[g->state], new_id);
        add_member_then_rebalance(j, g, new_id);
    }
    free(new_id);
}

static void join_existing_member(join_call_t *j, kc_classic_group_t *g)
{
    const kc_join_group_request_t *req = j->req;
    char *member_id = dup_nn(req->member_id);
    char reason[1024];
    if (g->state == CLASSIC_DEAD) {
        send_join_error(j->res, j->ctx, KC_ERR_COORDINATOR_NOT_AVAILABLE, member_id);
    } else if (!group_supports_protocols(g, req->protocol_type, req)) {
        send_join_error(j->res, j->ctx, KC_ERR_INCONSISTENT_GROUP_PROTOCOL, member_id);
    } else if (group_is_pending(g, req->member_id)) {
        if (req->group_instance_id.len >= 0) {
            /* Kafka treats this as an internal error (a pending member is dynamic). */
            send_join_error(j->res, j->ctx, KC_ERR_UNKNOWN_SERVER_ERROR, "");
        } else {
            kc_log_info(LOG_COMP,
                        "Pending dynamic member with id %s joins group %s in %s state. Adding to the "
                        "group now.",
                        member_id, g->group_id, state_names[g->state]);
            add_member_then_rebalance(j, g, member_id);
        }
    } else {
        int16_t err = group_validate_member(g, req->member_id, req->group_instance_id, "join-group");
        if (err) {
            send_join_error(j->res, j->ctx, err, member_id);
            goto out;
        }
        classic_member_t *m = group_member_s(g, req->member_id);
        const char *st = state_names[g->state];
        switch (g->state) {
        case CLASSIC_PREPARING_REBALANCE:
            snprintf(reason, sizeof(reason), "Member %s is joining group during %s; client reason: %s",
                     member_id, st, j->reason);
            update_member_then_rebalance(j, g, m, reason);
            break;
        case CLASSIC_COMPLETING_REBALANCE:
            if (member_matches(m, req)) {
                /* Probably a lost JoinGroup response: answer with the current generation. */
                classic_parked_t p = park(j->ctx);
                join_answer_t a = {KC_ERR_NONE,     g->generation_id, g->protocol_type, g->protocol_name,
                                   g->leader_id, false,            member_id,
                                   group_is_leader(g, member_id) ? g : NULL};
                send_join(j->res, &p, &a, false);
            } else {
                snprintf(reason, sizeof(reason),
                         "Updating metadata for member %s during %s; client reason: %s", member_id, st,
                         j->reason);
                update_member_then_rebalance(j, g, m, reason);
            }
            break;
        case CLASSIC_STABLE:
            if (group_is_leader(g, member_id)) {
                /* A leader's JoinGroup forces a rebalance (e.g. topic metadata changed). */
                snprintf(reason, sizeof(reason), "Leader %s re-joining group during %s; client reason: %s",
                         member_id, st, j->reason);
                update_member_then_rebalance(j, g, m, reason);
            } else if (!member_matches(m, req)) {
                snprintf(reason, sizeof(reason),
                         "Updating metadata for member %s during %s; client reason: %s", member_id, st,
                         j->reason);
                update_member_then_rebalance(j, g, m, reason);
            } else {
                classic_parked_t p = park(j->ctx);
                join_answer_t a = {KC_ERR_NONE,     g->generation_id, g->protocol_type, g->protocol_name,
                                   g->leader_id, false,            member_id,        NULL};
                send_join(j->res, &p, &a, false);
            }
            break;
        case CLASSIC_EMPTY:
        case CLASSIC_DEAD:
            kc_log_warn(LOG_COMP,
                        "Attempt to add rejoining member %s of group %s in unexpected group state %s",
                        member_id, g->group_id, st);
            send_join_error(j->res, j->ctx, KC_ERR_UNKNOWN_MEMBER_ID, member_id);
            break;
        }
    }
out:
    free(member_id);
}

static bool accept_joining_member(const kc_coord_t *c, const kc_classic_group_t *g,
                                  kc_str_t member_id)
{
    const classic_member_t *m = group_member_s(g, member_id);
    switch (g->state) {
    case CLASSIC_EMPTY:
    case CLASSIC_DEAD:
        return true;
    case CLASSIC_PREPARING_REBALANCE:
        return (m && member_awaiting_join(m)) || g->num_awaiting_join < c->cfg.group_max_size;
    case CLASSIC_COMPLETING_REBALANCE:
    case CLASSIC_STABLE:
        return m || g->nmembers < (size_t)c->cfg.group_max_size;
    }
    return false;
}

void kc_coord_join_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                         const kc_join_group_request_t *req, kc_result_t *res)
{
    char *mid = dup_nn(req->member_id);
    if (req->group_id.len <= 0) {
        send_join_error(res, ctx, KC_ERR_INVALID_GROUP_ID, mid);
        goto out;
    }
    if (req->session_timeout_ms < c->cfg.group_min_session_timeout_ms ||
        req->session_timeout_ms > c->cfg.group_max_session_timeout_ms) {
        send_join_error(res, ctx, KC_ERR_INVALID_SESSION_TIMEOUT, mid);
        goto out;
    }
    if (!c->loaded) {
        send_join_error(res, ctx, KC_ERR_COORDINATOR_LOAD_IN_PROGRESS, "");
        goto out;
    }

    join_call_t j;
    memset(&j, 0, sizeof(j));
    j.c = c;
    j.ctx = ctx;
    j.req = req;
    j.res = res;
    /* v0 has no rebalance timeout: the session timeout serves as both. */
    j.rebalance_timeout_ms =
        ctx->api_version == 0 ? req->session_timeout_ms : req->rebalance_timeout_ms;
    j.reason = join_reason(req->reason, j.reason_buf, sizeof(j.reason_buf));

    bool unknown_member = req->member_id.len <= 0;
    /* A streams group of that id: an Empty one becomes a classic group when
     * a new member joins (its records are tombstoned, its offsets kept), a
     * non-empty one answers INCONSISTENT_GROUP_PROTOCOL
     * (GroupMetadataManager.classicGroupJoin). */
    kc_streams_group_t *sg = kc_coord_streams_group_find(c, req->group_id);
    if (sg) {
        if (!kc_streams_group_is_empty(sg)) {
            send_join_error(res, ctx, KC_ERR_INCONSISTENT_GROUP_PROTOCOL, "");
            goto out;
        }
        if (unknown_member && c->topology_desc) {
            /* The store may still hold its description: the caller deletes it
             * through the barrier first (server/topology_api.c); until then
             * the join is retried (KIP-1331). */
            kc_topology_desc_group_t view;
            if (kc_coord_streams_group_view(c, req->group_id, &view) == 1 &&
                kc_topology_desc_delete_needed(c->topology_desc, &view)) {
                send_join_error(res, ctx, KC_ERR_REBALANCE_IN_PROGRESS, "");
                goto out;
            }
        }
        if (unknown_member) {
            kc_log_info(LOG_COMP, "[GroupId %.*s] Converted the empty streams group to a classic group.",
                        (int)req->group_id.len, req->group_id.ptr);
            kc_streams_group_delete(c, sg, res);
        }
    }
    kc_consumer_group_t *consumer = kc_consumer_group_find(c, req->group_id);
    if (consumer && !kc_consumer_group_is_empty(consumer)) {
        /* A classic member joining a consumer group (classicGroupJoinToConsumerGroup). */
        kc_classic_join_answer_t ca;
        kc_consumer_classic_join(c, ctx, consumer, req, res, &ca);
        classic_parked_t p = park(ctx);
        join_answer_t a = {ca.error_code, ca.generation_id,
                           ca.error_code == KC_ERR_NONE ? "consumer" : NULL, ca.protocol_name,
                           NULL, false, ca.member_id ? ca.member_id : "", NULL};
        send_join(res, &p, &a, ca.depends_on_records);
        free(ca.member_id);
        free(ca.protocol_name);
        goto out;
    }
    if (consumer)
        kc_consumer_classic_convert_empty(c, consumer, res);
    kc_classic_group_t *g = classic_get(c, req->group_id.ptr, (size_t)req->group_id.len);
    bool is_new_group = g == NULL;
    if (!g) {
        if (!unknown_member) {
            send_join_error(res, ctx, KC_ERR_UNKNOWN_MEMBER_ID, mid);
            goto out;
        }
        g = group_new(req->group_id.ptr, (size_t)req->group_id.len, CLASSIC_EMPTY, ctx->now_ms);
        groups_table_put(c, g, NULL);
        kc_group_put(c, &g->base);
        kc_log_info(LOG_COMP, "Created classic group %s", g->group_id);
    }
    size_t records_before = res->nrecords;

    if (!accept_joining_member(c, g, req->member_id)) {
        if (!unknown_member)
            group_remove(g, mid);
        kc_log_info(LOG_COMP, "Group %s is full (group.max.size %d): member %s cannot join",
                    g->group_id, c->cfg.group_max_size, mid);
        send_join_error(res, ctx, KC_ERR_GROUP_MAX_SIZE_REACHED, "");
    } else if (unknown_member) {
        join_new_member(&j, g);
    } else {
        join_existing_member(&j, g);
    }

    if (is_new_group && res->nrecords == records_before)
        write_group_record(g, true, res);
out:
    free(mid);
}

/* ---- SyncGroup ------------------------------------------------------------ */

static bool protocol_inconsistent(kc_str_t requested, const char *group_value)
{
    return requested.len >= 0 && !str_eq_c(requested, group_value);
}

static void remove_pending_sync_member(kc_coord_t *c, kc_classic_group_t *g, const char *member_id)
{
    strset_del(&g->pending_sync, member_id);
    char key[KEY_BUF];
    sync_key(key, sizeof(key), group_id_of(g));
    switch (g->state) {
    case CLASSIC_DEAD:
    case CLASSIC_EMPTY:
    case CLASSIC_PREPARING_REBALANCE:
        kc_timer_cancel(c, key);
        break;
    case CLASSIC_COMPLETING_REBALANCE:
    case CLASSIC_STABLE:
        if (g->pending_sync.n == 0)
            kc_timer_cancel(c, key);
        break;
    }
}

/* One SyncGroup on its way through the steps below (classicGroupSync): the
 * request, and the classic group and member it names. */
typedef struct {
    kc_coord_t *c;
    const kc_request_ctx_t *ctx;
    const kc_sync_group_request_t *req;
    kc_result_t *res;
    kc_classic_group_t *g;  /* NULL: no classic group of that id */
    classic_member_t *m;    /* the member, once validated */
} sync_call_t;

/* classicGroupSyncToConsumerGroup: the answer waits for the iteration's
 * commit like every other. */
static void sync_to_consumer_group(sync_call_t *s, kc_consumer_group_t *consumer)
{
    const kc_sync_group_request_t *req = s->req;
    kc_buf_t asg;
    kc_buf_init(&asg);
    int16_t err = kc_consumer_classic_sync(s->c, s->ctx, consumer, req, &asg);
    char *ptype = err || req->protocol_type.len < 0 ? NULL : dup_str(req->protocol_type);
    char *pname = err || req->protocol_name.len < 0 ? NULL : dup_str(req->protocol_name);
    classic_parked_t p = park(s->ctx);
    send_sync(s->res, &p, err, ptype, pname, asg.data, (int32_t)asg.len, false);
    free(ptype);
    free(pname);
    kc_buf_deinit(&asg);
}

/* validateSyncGroup: the group alive, the member, its generation, the
 * protocol type and name. */
static int16_t validate_sync_group(const sync_call_t *s)
{
    const kc_classic_group_t *g = s->g;
    const kc_sync_group_request_t *req = s->req;
    if (g->state == CLASSIC_DEAD)
        return KC_ERR_COORDINATOR_NOT_AVAILABLE;
    int16_t err = group_validate_member(g, req->member_id, req->group_instance_id, "sync-group");
    if (err)
        return err;
    if (req->generation_id != g->generation_id)
        return KC_ERR_ILLEGAL_GENERATION;
    if (protocol_inconsistent(req->protocol_type, g->protocol_type) ||
        protocol_inconsistent(req->protocol_name, g->protocol_name))
        return KC_ERR_INCONSISTENT_GROUP_PROTOCOL;
    return KC_ERR_NONE;
}

/* The leader's assignment: every member's (the last entry of a member
 * wins; a member without one gets an empty one), the group's record, then
 * setAndPropagateAssignment and the transition to Stable. */
static void sync_leader_assignment(sync_call_t *s)
{
    kc_classic_group_t *g = s->g;
    const kc_sync_group_request_t *req = s->req;
    size_t nstatic = 0;
    for (size_t i = 0; i < g->nmembers; i++)
        nstatic += g->members[i]->group_instance_id != NULL;
    kc_log_info(LOG_COMP,
                "Assignment received from leader %s for group %s for generation %d. The group has "
                "%zu members, %zu of which are static.",
                s->m->member_id, g->group_id, g->generation_id, g->nmembers, nstatic);
    int32_t n = req->assignments.count > 0 ? req->assignments.count : 0;
    strset_t missing = {0};
    for (size_t i = 0; i < g->nmembers; i++) {
        classic_member_t *x = g->members[i];
        bool found = false;
        for (int32_t k = n - 1; k >= 0 && !found; k--) {
            if (str_eq_c(req->assignments.items[k].member_id, x->member_id)) {
                kc_bytes_t a = req->assignments.items[k].assignment;
                member_set_assignment(x, a.ptr, a.len);
                found = true;
            }
        }
        if (!found) {
            strset_add(&missing, x->member_id, strlen(x->member_id));
            member_set_assignment(x, NULL, 0);
        }
    }
    if (missing.n) {
        char buf[2048];
        kc_log_warn(LOG_COMP, "Setting empty assignments for members %s of %s for generation %d.",
                    strset_fmt(&missing, buf, sizeof(buf)), g->group_id, g->generation_id);
    }
    strset_free(&missing);
    /* The record goes out with this result; the answers wait for its commit. */
    write_group_record(g, false, s->res);
    propagate_assignment(s->c, g, KC_ERR_NONE, s->ctx->now_ms, s->res, true);
    group_transition(g, CLASSIC_STABLE, s->ctx->now_ms, s->m, "the leader sent the assignment");
}

/* CompletingRebalance: the member's answer is parked until the leader's
 * assignment; the leader's SyncGroup brings it. */
static void sync_completing_rebalance(sync_call_t *s)
{
    classic_member_t *m = s->m;
    if (member_awaiting_sync(m))
        kc_log_debug(LOG_COMP, "Member %s of group %s replaced its pending SyncGroup",
                     m->member_id, s->g->group_id);
    m->sync = park(s->ctx);
    remove_pending_sync_member(s->c, s->g, m->member_id);
    if (group_is_leader(s->g, m->member_id))
        sync_leader_assignment(s);
}

/* Stable: the member's current assignment. */
static void sync_stable(sync_call_t *s)
{
    kc_classic_group_t *g = s->g;
    remove_pending_sync_member(s->c, g, s->m->member_id);
    classic_parked_t p = park(s->ctx);
    send_sync(s->res, &p, KC_ERR_NONE, g->protocol_type, g->protocol_name, s->m->assignment,
              s->m->assignment_len, false);
}

void kc_coord_sync_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                         const kc_sync_group_request_t *req, kc_result_t *res)
{
    /* From v5 the protocol type and name are mandatory; KafkaApis rejects
     * their absence before anything else. */
    if (ctx->api_version >= 5 && (req->protocol_type.len < 0 || req->protocol_name.len < 0)) {
        send_sync_error(res, ctx, KC_ERR_INCONSISTENT_GROUP_PROTOCOL);
        return;
    }
    if (req->group_id.len <= 0) {
        send_sync_error(res, ctx, KC_ERR_INVALID_GROUP_ID);
        return;
    }
    if (!c->loaded) {
        send_sync_error(res, ctx, KC_ERR_COORDINATOR_LOAD_IN_PROGRESS);
        return;
    }
    sync_call_t s = {.c = c, .ctx = ctx, .req = req, .res = res,
                     .g = classic_get(c, req->group_id.ptr, (size_t)req->group_id.len)};
    kc_consumer_group_t *consumer = s.g ? NULL : kc_consumer_group_find(c, req->group_id);
    if (consumer && !kc_consumer_group_is_empty(consumer)) {
        sync_to_consumer_group(&s, consumer);
        return;
    }
    if (!s.g || s.g->state == CLASSIC_EMPTY) {
        send_sync_error(res, ctx, KC_ERR_UNKNOWN_MEMBER_ID);
        return;
    }
    int16_t err = validate_sync_group(&s);
    if (err) {
        send_sync_error(res, ctx, err);
        return;
    }
    s.m = group_member_s(s.g, req->member_id);
    switch (s.g->state) {
    case CLASSIC_PREPARING_REBALANCE:
        send_sync_error(res, ctx, KC_ERR_REBALANCE_IN_PROGRESS);
        break;
    case CLASSIC_COMPLETING_REBALANCE:
        sync_completing_rebalance(&s);
        break;
    case CLASSIC_STABLE:
        sync_stable(&s);
        break;
    case CLASSIC_EMPTY:
    case CLASSIC_DEAD:
        send_sync_error(res, ctx, KC_ERR_UNKNOWN_SERVER_ERROR);
        break;
    }
}

/* ---- Heartbeat ------------------------------------------------------------ */

void kc_coord_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                        const kc_heartbeat_request_t *req, kc_result_t *res)
{
    if (req->group_id.len <= 0) {
        send_heartbeat(res, ctx, KC_ERR_INVALID_GROUP_ID);
        return;
    }
    if (!c->loaded) {
        /* Kafka answers heartbeats blindly while the group loads. */
        send_heartbeat(res, ctx, KC_ERR_NONE);
        return;
    }
    kc_classic_group_t *g = classic_get(c, req->group_id.ptr, (size_t)req->group_id.len);
    if (!g) {
        kc_consumer_group_t *consumer = kc_consumer_group_find(c, req->group_id);
        send_heartbeat(res, ctx, consumer ? kc_consumer_classic_heartbeat(c, ctx, consumer, req)
                                    : KC_ERR_UNKNOWN_MEMBER_ID);
        return;
    }
    if (g->state == CLASSIC_DEAD) {
        send_heartbeat(res, ctx, KC_ERR_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    int16_t err = group_validate_member(g, req->member_id, req->group_instance_id, "heartbeat");
    if (!err && req->generation_id != g->generation_id)
        err = KC_ERR_ILLEGAL_GENERATION;
    if (err) {
        send_heartbeat(res, ctx, err);
        return;
    }
    classic_member_t *m = group_member_s(g, req->member_id);
    switch (g->state) {
    case CLASSIC_EMPTY:
        send_heartbeat(res, ctx, KC_ERR_UNKNOWN_MEMBER_ID);
        break;
    case CLASSIC_PREPARING_REBALANCE:
        schedule_heartbeat(c, g, m->member_id, m->session_timeout_ms, ctx->now_ms);
        send_heartbeat(res, ctx, KC_ERR_REBALANCE_IN_PROGRESS);
        break;
    case CLASSIC_COMPLETING_REBALANCE:
    case CLASSIC_STABLE:
        schedule_heartbeat(c, g, m->member_id, m->session_timeout_ms, ctx->now_ms);
        send_heartbeat(res, ctx, KC_ERR_NONE);
        break;
    case CLASSIC_DEAD:
        break;
    }
}

/* ---- LeaveGroup ----------------------------------------------------------- */

typedef struct {
    kc_str_t member_id;
    kc_str_t group_instance_id;
    kc_str_t reason;
    int16_t error_code;
} leave_item_t;

static void send_leave(kc_result_t *res, const kc_request_ctx_t *ctx, int16_t top_error,
                       const leave_item_t *items, int32_t n)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_leave_group_response_t r;
    kc_leave_group_response_init(&r);
    if (ctx->api_version < 3) {
        /* One member, its error carried at the top level. */
        int16_t e = top_error;
        for (int32_t i = 0; i < n && e == KC_ERR_NONE; i++)
            e = items[i].error_code;
        r.error_code = e;
        r.members.count = 0;
    } else {
        r.error_code = top_error;
        r.members.count = n;
        r.members.items = n ? kc_arena_alloc(&arena, (size_t)n * sizeof(*r.members.items)) : NULL;
        for (int32_t i = 0; i < n; i++) {
            r.members.items[i].member_id = items[i].member_id.len >= 0 ? items[i].member_id : kc_str("");
            r.members.items[i].group_instance_id = items[i].group_instance_id;
            r.members.items[i].error_code = items[i].error_code;
        }
    }
    kc_result_respond(res, ctx, &r, NULL);
    kc_arena_deinit(&arena);
}

/* The MEMBER_REMOVED event of a member leaving through LeaveGroup. */
static void emit_member_left(kc_coord_t *c, const kc_classic_group_t *g, const char *member_id,
                             const char *reason, int64_t now_ms)
{
    char why[600];
    snprintf(why, sizeof(why), "LeaveGroup (client reason: %s)", reason);
    kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, g->group_id, member_id, why, g->generation_id, 0,
                  now_ms);
}

/* removeCurrentMemberFromClassicGroup: its pending JoinGroup answers
 * UNKNOWN_MEMBER_ID before it goes. */
static void remove_current_member(kc_coord_t *c, kc_classic_group_t *g, classic_member_t *m,
                                  const char *reason, int64_t now_ms, kc_result_t *res)
{
    cancel_heartbeat(c, g, m->member_id);
    kc_log_info(LOG_COMP,
                "[Group %s] Member %s has left group through explicit `LeaveGroup` request; client "
                "reason: %s (group instance id %s, generation %d)",
                g->group_id, m->member_id, reason, or_null(m->group_instance_id), g->generation_id);
    join_answer_t a = {KC_ERR_UNKNOWN_MEMBER_ID, -1, NULL, NULL, NULL, false, "", NULL};
    complete_join_future(g, m, &a, res, false);
    emit_member_left(c, g, m->member_id, reason, now_ms);
    group_remove(g, m->member_id);
}

/* One LeaveGroup on its way through the steps below (classicGroupLeave):
 * the request's member identities, each with its error, and the ids of
 * the accepted leaves. */
typedef struct {
    kc_coord_t *c;
    const kc_request_ctx_t *ctx;
    kc_result_t *res;
    leave_item_t *items;  /* the member identities (one below v3) */
    int32_t n;
    strset_t left;        /* ids of the accepted leaves, in request order, as Kafka lists them */
} leave_call_t;

/* The request's member identities: below v3 its one member id. */
static void leave_identities(leave_call_t *l, const kc_leave_group_request_t *req)
{
    if (l->ctx->api_version < 3) {
        l->n = 1;
        l->items = kc_xcalloc(1, sizeof(*l->items));
        l->items[0].member_id = req->member_id;
        l->items[0].group_instance_id = KC_STR_NULL;
        l->items[0].reason = KC_STR_NULL;
        return;
    }
    l->n = req->members.count > 0 ? req->members.count : 0;
    l->items = kc_xcalloc((size_t)(l->n ? l->n : 1), sizeof(*l->items));
    for (int32_t i = 0; i < l->n; i++) {
        l->items[i].member_id = req->members.items[i].member_id;
        l->items[i].group_instance_id = req->members.items[i].group_instance_id;
        l->items[i].reason = req->members.items[i].reason;
    }
}

/* classicGroupLeaveToConsumerGroup */
static void leave_to_consumer_group(leave_call_t *l, kc_consumer_group_t *consumer)
{
    int32_t n = l->n;
    kc_str_t *ids = kc_xcalloc((size_t)n + 1, 3 * sizeof(*ids));
    int16_t *errors = kc_xcalloc((size_t)n + 1, sizeof(*errors));
    for (int32_t i = 0; i < n; i++) {
        ids[i] = l->items[i].member_id;
        ids[n + i] = l->items[i].group_instance_id;
        ids[2 * n + i] = l->items[i].reason;
    }
    kc_consumer_classic_leave(l->c, l->ctx, consumer, ids, ids + n, ids + 2 * n, errors, n,
                              l->res);
    for (int32_t i = 0; i < n; i++)
        l->items[i].error_code = errors[i];
    send_leave(l->res, l->ctx, KC_ERR_NONE, l->items, n);
    free(ids);
    free(errors);
}

/* A pending member leaves (as classicGroupLeaveToClassicGroup removes one
 * that never joined with its id). */
static void leave_pending_member(leave_call_t *l, kc_classic_group_t *g, kc_str_t member_id,
                                 const char *reason)
{
    char *id = dup_nn(member_id);
    emit_member_left(l->c, g, id, reason, l->ctx->now_ms);
    group_remove(g, id);
    cancel_heartbeat(l->c, g, id);
    kc_log_info(LOG_COMP,
                "[Group %s] Pending member %s has left group through explicit `LeaveGroup` "
                "request; client reason: %s",
                g->group_id, id, reason);
    strlist_append(&l->left, id, strlen(id));
    free(id);
}

/* classicGroupLeaveToClassicGroup for one member identity: a static member
 * removed by an admin by instance id alone, a pending member, or a
 * validated current member. */
static void leave_member(leave_call_t *l, kc_classic_group_t *g, leave_item_t *it)
{
    char rbuf[512];
    const char *reason = it->reason.len >= 0
                             ? (snprintf(rbuf, sizeof(rbuf), "%.*s", (int)it->reason.len,
                                         it->reason.ptr ? it->reason.ptr : ""),
                                rbuf)
                             : "not provided";
    if (it->member_id.len <= 0) {
        classic_member_t *m = group_static_member(g, it->group_instance_id);
        if (m) {
            remove_current_member(l->c, g, m, reason, l->ctx->now_ms, l->res);
            strlist_append(&l->left, "", 0);
        } else {
            it->error_code = KC_ERR_UNKNOWN_MEMBER_ID;
        }
    } else if (group_is_pending(g, it->member_id)) {
        leave_pending_member(l, g, it->member_id, reason);
    } else {
        int16_t err = group_validate_member(g, it->member_id, it->group_instance_id, "leave-group");
        if (err) {
            it->error_code = err;
        } else {
            classic_member_t *m = group_member_s(g, it->member_id);
            strlist_append(&l->left, m->member_id, strlen(m->member_id));
            remove_current_member(l->c, g, m, reason, l->ctx->now_ms, l->res);
        }
    }
}

/* classicGroupLeaveToClassicGroup: each member identity, then, when any
 * member left, maybePrepareRebalanceOrCompleteJoin (Stable,
 * CompletingRebalance) or maybeCompleteJoinPhase (PreparingRebalance). */
static void leave_to_classic_group(leave_call_t *l, kc_classic_group_t *g)
{
    for (int32_t i = 0; i < l->n; i++)
        leave_member(l, g, &l->items[i]);
    if (l->left.n) {
        char buf[2048], reason[2200];
        strset_fmt(&l->left, buf, sizeof(buf));
        buf[0] = '(';
        buf[strlen(buf) - 1] = ')';
        snprintf(reason, sizeof(reason), "explicit `LeaveGroup` request for %s members.", buf);
        if (g->state == CLASSIC_STABLE || g->state == CLASSIC_COMPLETING_REBALANCE)
            maybe_prepare_rebalance_or_complete_join(l->c, g, reason, l->ctx->now_ms, l->res);
        else if (g->state == CLASSIC_PREPARING_REBALANCE)
            maybe_complete_join_phase(l->c, g, l->ctx->now_ms, l->res);
    }
    send_leave(l->res, l->ctx, KC_ERR_NONE, l->items, l->n);
}

void kc_coord_leave_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                          const kc_leave_group_request_t *req, kc_result_t *res)
{
    leave_call_t l = {.c = c, .ctx = ctx, .res = res};
    leave_identities(&l, req);
    if (req->group_id.len <= 0) {
        send_leave(res, ctx, KC_ERR_INVALID_GROUP_ID, NULL, 0);
    } else if (!c->loaded) {
        send_leave(res, ctx, KC_ERR_COORDINATOR_LOAD_IN_PROGRESS, NULL, 0);
    } else {
        kc_classic_group_t *g = classic_get(c, req->group_id.ptr, (size_t)req->group_id.len);
        kc_consumer_group_t *consumer = g ? NULL : kc_consumer_group_find(c, req->group_id);
        if (consumer) {
            leave_to_consumer_group(&l, consumer);
        } else if (!g) {
            for (int32_t i = 0; i < l.n; i++)
                l.items[i].error_code = KC_ERR_UNKNOWN_MEMBER_ID;
            send_leave(res, ctx, KC_ERR_NONE, l.items, l.n);
        } else if (g->state == CLASSIC_DEAD) {
            send_leave(res, ctx, KC_ERR_COORDINATOR_NOT_AVAILABLE, NULL, 0);
        } else {
            leave_to_classic_group(&l, g);
        }
    }
    strset_free(&l.left);
    free(l.items);
}

/* ---- DescribeGroups / ListGroups / DeleteGroups --------------------------- */

void kc_coord_describe_groups(kc_coord_t *c, const kc_request_ctx_t *ctx,
                              const kc_describe_groups_request_t *req, kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_describe_groups_response_t r;
    kc_describe_groups_response_init(&r);
    int32_t n = req->groups.count > 0 ? req->groups.count : 0;
    r.groups.count = n;
    r.groups.items = n ? kc_arena_alloc(&arena, (size_t)n * sizeof(*r.groups.items)) : NULL;
    size_t *order = kc_arena_alloc(&arena, (size_t)(n ? n : 1) * sizeof(*order));
    kc_groups_order_by_partition(c, req->groups.items, (size_t)n, order);
    for (int32_t i = 0; i < n; i++) {
        __typeof__(r.groups.items[0]) *d = &r.groups.items[i];
        kc_str_t gid = req->groups.items[order[i]];
        d->error_code = KC_ERR_NONE;
        d->error_message = KC_STR_NULL;
        d->group_id = gid.len >= 0 ? gid : kc_str("");
        d->group_state = kc_str("");
        d->protocol_type = kc_str("");
        d->protocol_data = kc_str("");
        d->members.count = 0;
        d->members.items = NULL;
        d->authorized_operations = INT32_MIN;
        if (gid.len < 0) {
            d->error_code = KC_ERR_INVALID_GROUP_ID;
            continue;
        }
        /* KafkaApis.handleDescribeGroupsRequest: DESCRIBE on the group. */
        if (!kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_GROUP, gid)) {
            d->error_code = KC_ERR_GROUP_AUTHORIZATION_FAILED;
            continue;
        }
        if (!c->loaded) {
            d->error_code = KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
            continue;
        }
        kc_classic_group_t *g = classic_get(c, gid.ptr ? gid.ptr : "", (size_t)gid.len);
        if (!g) {
            d->group_state = kc_str("Dead");
            /* Before v6 an unknown group is a Dead group without error, so
             * it also gets its authorized operations (KafkaApis sets them
             * on every error-free entry). */
            if (ctx->api_version >= 3 && ctx->api_version < 6 && req->include_authorized_operations)
                d->authorized_operations = kc_request_authorized_ops(
                    ctx, KC_RES_GROUP, gid, GROUP_AUTHORIZED_OPERATIONS);
            if (ctx->api_version >= 6) {
                /* GroupMetadataManager.classicGroup: a group of another type
                 * is "not a classic group". */
                bool other_type = kc_group_get(c, gid) != NULL;
                d->error_code = KC_ERR_GROUP_ID_NOT_FOUND;
                size_t cap = (size_t)gid.len + 48;
                char *msg = kc_arena_alloc(&arena, cap);
                snprintf(msg, cap, other_type ? "Group %.*s is not a classic group." : "Group %.*s not found.",
                         (int)gid.len, gid.ptr ? gid.ptr : "");
                d->error_message = kc_str(msg);
            }
            continue;
        }
        bool stable = g->state == CLASSIC_STABLE;
        d->group_state = kc_str(state_names[g->state]);
        d->protocol_type = kc_str(g->protocol_type ? g->protocol_type : "");
        if (stable)
            d->protocol_data = kc_str(g->protocol_name ? g->protocol_name : "");
        d->members.count = (int32_t)g->nmembers;
        d->members.items =
            g->nmembers ? kc_arena_alloc(&arena, g->nmembers * sizeof(*d->members.items)) : NULL;
        for (size_t k = 0; k < g->nmembers; k++) {
            const classic_member_t *m = g->members[k];
            __typeof__(d->members.items[0]) *dm = &d->members.items[k];
            dm->member_id = kc_str(m->member_id);
            dm->group_instance_id = kc_str(m->group_instance_id);
            dm->client_id = kc_str(m->client_id);
            dm->client_host = kc_str(m->client_host);
            const classic_protocol_t *p = stable ? member_protocol(m, g->protocol_name) : NULL;
            dm->member_metadata =
                p ? (kc_bytes_t){p->metadata, p->metadata_len} : (kc_bytes_t){(const uint8_t *)"", 0};
            dm->member_assignment = (kc_bytes_t){m->assignment ? m->assignment : (const uint8_t *)"",
                                                 m->assignment_len};
        }
        if (ctx->api_version >= 3 && req->include_authorized_operations)
            d->authorized_operations =
                kc_request_authorized_ops(ctx, KC_RES_GROUP, gid, GROUP_AUTHORIZED_OPERATIONS);
    }
    kc_result_respond(res, ctx, &r, NULL);
    kc_arena_deinit(&arena);
}

typedef struct {
    kc_classic_group_t **items;
    size_t n;
} group_list_t;

static int cmp_group(const void *a, const void *b)
{
    return strcmp((*(kc_classic_group_t *const *)a)->group_id, (*(kc_classic_group_t *const *)b)->group_id);
}

/* The classic groups, as a new array of *n entries (to free). */
static kc_classic_group_t **classic_groups(kc_coord_t *c, size_t *n)
{
    return (kc_classic_group_t **)kc_groups_list(c, KC_GROUP_CLASSIC, n);
}

static void cancel_group_timers(kc_coord_t *c, kc_classic_group_t *g)
{
    char key[KEY_BUF];
    join_key(key, sizeof(key), group_id_of(g));
    kc_timer_cancel(c, key);
    sync_key(key, sizeof(key), group_id_of(g));
    kc_timer_cancel(c, key);
    for (size_t i = 0; i < g->pending_join.n; i++)
        cancel_heartbeat(c, g, g->pending_join.items[i]);
    for (size_t i = 0; i < g->nmembers; i++)
        cancel_heartbeat(c, g, g->members[i]->member_id);
}

/* Removes the group from memory (state Dead), answering nothing. */
static void drop_group(kc_coord_t *c, kc_classic_group_t *g, int64_t now_ms, const char *why)
{
    cancel_group_timers(c, g);
    group_transition(g, CLASSIC_DEAD, now_ms, NULL, why);
    groups_table_remove(c, g);
    kc_group_remove(c, &g->base);
    group_free(g);
}

/* ---- replay, load, unload ------------------------------------------------- */

int kc_classic_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len, const void *msg)
{
    (void)msg; /* classic groups change memory directly (Kafka's exception) */
    int rc = KC_EINVAL;
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_reader_t r;
    kc_reader_init(&r, key, key_len);
    (void)kc_read_int16(&r);
    kc_group_metadata_key_t k;
    kc_group_metadata_key_init(&k);
    if (kc_group_metadata_key_decode(&r, 0, &arena, &k) != 0 || r.err || k.group.len < 0)
        goto out;
    kc_classic_group_t *old = classic_get(c, k.group.ptr ? k.group.ptr : "", (size_t)k.group.len);
    if (!value) {
        if (old) {
            groups_table_remove(c, old);
            kc_group_remove(c, &old->base);
            cancel_group_timers(c, old);
            group_free(old);
        }
        rc = 0;
        goto out;
    }
    if (!kc_group_replay_allowed(c, k.group, KC_GROUP_CLASSIC))
        goto out;
    kc_reader_init(&r, value, value_len);
    int16_t version = kc_read_int16(&r);
    if (r.err || version < 0 || version > KC_GROUP_METADATA_VALUE_MAX_VERSION)
        goto out;
    kc_group_metadata_value_t v;
    kc_group_metadata_value_init(&v);
    if (kc_group_metadata_value_decode(&r, version, &arena, &v) != 0 || r.err)
        goto out;

    int32_t nm = v.members.count > 0 ? v.members.count : 0;
    kc_classic_group_t *g = group_new(k.group.ptr ? k.group.ptr : "", (size_t)k.group.len,
                                      nm ? CLASSIC_STABLE : CLASSIC_EMPTY, v.current_state_timestamp);
    g->generation_id = v.generation;
    g->protocol_type = v.protocol_type.len > 0 ? dup_str(v.protocol_type) : NULL;
    g->protocol_name = dup_str(v.protocol);
    g->leader_id = dup_str(v.leader);
    g->current_state_timestamp = version >= 2 ? v.current_state_timestamp : -1;
    for (int32_t i = 0; i < nm; i++) {
        const __typeof__(v.members.items[0]) *mm = &v.members.items[i];
        classic_member_t *m = kc_xcalloc(1, sizeof(*m));
        m->member_id = dup_str(mm->member_id.len >= 0 ? mm->member_id : kc_str(""));
        m->group_instance_id = dup_str(mm->group_instance_id);
        m->client_id = dup_str(mm->client_id.len >= 0 ? mm->client_id : kc_str(""));
        m->client_host = dup_str(mm->client_host.len >= 0 ? mm->client_host : kc_str(""));
        m->session_timeout_ms = mm->session_timeout;
        m->rebalance_timeout_ms = mm->rebalance_timeout == -1 ? mm->session_timeout : mm->rebalance_timeout;
        m->protocol_type = kc_xstrdup(g->protocol_type ? g->protocol_type : "");
        m->nprotocols = 1;
        m->protocols = kc_xcalloc(1, sizeof(*m->protocols));
        m->protocols[0].name = kc_xstrdup(g->protocol_name ? g->protocol_name : "");
        m->protocols[0].metadata_len = mm->subscription.len > 0 ? mm->subscription.len : 0;
        m->protocols[0].metadata = kc_xmalloc((size_t)m->protocols[0].metadata_len + 1);
        if (m->protocols[0].metadata_len)
            memcpy(m->protocols[0].metadata, mm->subscription.ptr, (size_t)m->protocols[0].metadata_len);
        member_set_assignment(m, mm->assignment.ptr, mm->assignment.len);
        group_insert_member(g, m);
    }
    if (!g->leader_id && g->nmembers)
        g->leader_id = kc_xstrdup(g->members[0]->member_id);
    group_compute_subscribed_topics(g);
    groups_table_put(c, g, old);
    if (old) {
        kc_group_remove(c, &old->base);
        group_free(old);
    }
    kc_group_put(c, &g->base);
    rc = 0;
out:
    kc_arena_deinit(&arena);
    return rc;
}

void kc_classic_loaded(kc_coord_t *c, int64_t now_ms)
{
    group_list_t l;
    l.items = classic_groups(c, &l.n);
    if (l.n)
        qsort(l.items, l.n, sizeof(*l.items), cmp_group);
    kc_result_t res;
    kc_result_init(&res);
    for (size_t i = 0; i < l.n; i++) {
        kc_classic_group_t *g = l.items[i];
        kc_log_info(LOG_COMP, "Loaded classic group %s with %zu members.", g->group_id, g->nmembers);
        for (size_t k = 0; k < g->nmembers; k++)
            schedule_heartbeat(c, g, g->members[k]->member_id, g->members[k]->session_timeout_ms, now_ms);
        if (g->nmembers > (size_t)c->cfg.group_max_size) {
            char reason[1024];
            snprintf(reason, sizeof(reason),
                     "Freshly-loaded group %s (size %zu) is over capacity %d. Rebalancing in order to "
                     "give a chance for consumers to commit offsets",
                     g->group_id, g->nmembers, c->cfg.group_max_size);
            prepare_rebalance(c, g, reason, now_ms, &res);
        }
    }
    /* Loaded groups hold no parked request, so nothing can be answered here. */
    assert(res.nresponses == 0);
    kc_result_deinit(&res);
    free(l.items);
}

void kc_classic_unload_all(kc_coord_t *c, kc_result_t *res)
{
    group_list_t l;
    l.items = classic_groups(c, &l.n);
    for (size_t i = 0; i < l.n; i++) {
        kc_classic_group_t *g = l.items[i];
        kc_log_info(LOG_COMP, "[GroupId=%s] Unloading group metadata for generation %d.", g->group_id,
                    g->generation_id);
        for (size_t k = 0; k < g->nmembers; k++) {
            classic_member_t *m = g->members[k];
            join_answer_t a = {KC_ERR_NOT_COORDINATOR, -1, NULL, NULL, NULL, false, m->member_id, NULL};
            complete_join_future(g, m, &a, res, false);
            if (member_awaiting_sync(m)) {
                classic_parked_t p = m->sync;
                m->sync.active = false;
                send_sync(res, &p, KC_ERR_NOT_COORDINATOR, NULL, NULL, NULL, 0, false);
            }
        }
        cancel_group_timers(c, g);
        kc_group_remove(c, &g->base);
        group_free(g);
    }
    free(l.items);
    /* A reload starts from a fresh table, as a new coordinator shard. */
    size_t nparts = (size_t)c->cfg.offsets_topic_num_partitions;
    memset(c->groups_table_cap, 0, nparts * sizeof(*c->groups_table_cap));
    memset(c->groups_table_size, 0, nparts * sizeof(*c->groups_table_size));
    c->groups_table_seq = 0;
}

/* ---- the group abstraction (groups.h) -------------------------------------- */

static kc_classic_group_t *classic_of(const kc_group_t *g) { return (kc_classic_group_t *)g; }

static kc_str_t classic_id(const kc_group_t *g) { return group_id_of(classic_of(g)); }

static const char *classic_state_name(const kc_group_t *g)
{
    return state_names[classic_of(g)->state];
}

static const char *classic_protocol_type(const kc_group_t *g)
{
    const char *p = classic_of(g)->protocol_type;
    return p ? p : "";
}

static uint64_t classic_table_seq(const kc_group_t *g) { return classic_of(g)->table_seq; }

/* ClassicGroup.validateDeleteGroup. */
static int16_t classic_validate_delete(const kc_group_t *base)
{
    const kc_classic_group_t *g = classic_of(base);
    if (g->state == CLASSIC_DEAD)
        return KC_ERR_GROUP_ID_NOT_FOUND;
    return g->state == CLASSIC_EMPTY ? KC_ERR_NONE : KC_ERR_NON_EMPTY_GROUP;
}

static void classic_delete(kc_coord_t *c, kc_group_t *base, int64_t now_ms, const char *reason,
                           kc_result_t *res)
{
    kc_classic_group_t *g = classic_of(base);
    write_group_tombstone(g->group_id, res);
    kc_coord_emit(c, KC_COORD_EV_GROUP_DELETED, g->group_id, NULL, reason, g->generation_id, 0,
                  now_ms);
    drop_group(c, g, now_ms, "deleted by a DeleteGroups request");
}

static int16_t classic_validate_offset_commit(kc_coord_t *c, kc_group_t *base,
                                              const kc_offset_commit_args_t *a,
                                              kc_commit_validator_t *v)
{
    (void)v; /* a classic group checks the generation only */
    kc_classic_group_t *g = classic_of(base);
    int16_t err = kc_classic_group_validate_offset_commit(
        g, a->member_id, a->group_instance_id, a->generation_id_or_member_epoch, a->transactional,
        a->api_version);
    if (err == KC_ERR_NONE && !a->transactional)
        kc_classic_group_touch_member(c, g, a->member_id, a->now_ms);
    return err;
}

static int16_t classic_validate_offset_delete(const kc_group_t *g)
{
    return kc_classic_group_validate_offset_delete(classic_of(g));
}

static bool classic_is_subscribed_to_topic(const kc_group_t *g, kc_str_t topic)
{
    return kc_classic_group_is_subscribed_to(classic_of(g), topic);
}

/* GroupCoordinatorShard.cleanupGroupMetadata: an Empty group whose offsets
 * all expired is deleted. */
static void classic_maybe_delete_expired(kc_coord_t *c, kc_group_t *base, int64_t now_ms,
                                         kc_result_t *res)
{
    (void)now_ms;
    kc_classic_group_t *g = classic_of(base);
    if (g->state != CLASSIC_EMPTY || kc_offsets_group_has_offsets(c, kc_str(g->group_id)))
        return;
    kc_log_info(LOG_COMP, "Group %s is empty and all its offsets expired: deleting it.", g->group_id);
    write_group_tombstone(g->group_id, res);
    int64_t when = g->current_state_timestamp >= 0 ? g->current_state_timestamp : 0;
    kc_coord_emit(c, KC_COORD_EV_GROUP_DELETED, g->group_id, NULL, "offsets expired",
                  g->generation_id, 0, when);
    drop_group(c, g, when, "it is empty and all its offsets expired");
}

static bool classic_offsets_expire(const kc_group_t *g, int64_t *base_timestamp_ms)
{
    return kc_classic_group_offsets_expire(classic_of(g), base_timestamp_ms);
}

/* ClassicGroup.validateOffsetFetch: a Dead group has none to show. */
static int16_t classic_validate_offset_fetch(const kc_group_t *g, kc_str_t member_id,
                                             int32_t member_epoch, int16_t api_version)
{
    (void)member_id;
    (void)member_epoch;
    (void)api_version;
    return classic_of(g)->state == CLASSIC_DEAD ? KC_ERR_GROUP_ID_NOT_FOUND : KC_ERR_NONE;
}

const kc_group_ops_t kc_classic_group_ops = {
    .type = KC_GROUP_CLASSIC,
    .type_name = "classic",
    .id = classic_id,
    .state_name = classic_state_name,
    .protocol_type = classic_protocol_type,
    .table_seq = classic_table_seq,
    .validate_delete = classic_validate_delete,
    .delete = classic_delete,
    .validate_offset_commit = classic_validate_offset_commit,
    .validate_offset_fetch = classic_validate_offset_fetch,
    .validate_offset_delete = classic_validate_offset_delete,
    .offsets_expire = classic_offsets_expire,
    .is_subscribed_to_topic = classic_is_subscribed_to_topic,
    .maybe_delete_expired = classic_maybe_delete_expired,
};

/* ---- the offsets module's view ------------------------------------------ */

kc_classic_group_t *kc_classic_group_find(kc_coord_t *c, kc_str_t group_id)
{
    if (group_id.len < 0)
        return NULL;
    return classic_get(c, group_id.ptr ? group_id.ptr : "", (size_t)group_id.len);
}

kc_classic_group_t *kc_classic_group_find_or_create(kc_coord_t *c, kc_str_t group_id)
{
    kc_classic_group_t *g = kc_classic_group_find(c, group_id);
    if (g || group_id.len < 0)
        return g;
    g = group_new(group_id.ptr ? group_id.ptr : "", (size_t)group_id.len, CLASSIC_EMPTY, -1);
    groups_table_put(c, g, NULL);
    kc_group_put(c, &g->base);
    return g;
}

bool kc_classic_group_is_empty_state(const kc_classic_group_t *g) { return g->state == CLASSIC_EMPTY; }

bool kc_classic_group_is_simple(const kc_classic_group_t *g)
{
    return g->state == CLASSIC_EMPTY && !g->protocol_type && !g->nmembers && !g->pending_join.n;
}

int16_t kc_classic_group_validate_offset_commit(kc_classic_group_t *g, kc_str_t member_id,
                                                kc_str_t group_instance_id,
                                                int32_t generation_id, bool is_transactional,
                                                int16_t api_version)
{
    (void)api_version;
    if (g->state == CLASSIC_DEAD)
        return KC_ERR_COORDINATOR_NOT_AVAILABLE;
    if (generation_id < 0 && g->state == CLASSIC_EMPTY)
        return KC_ERR_NONE; /* admin client or group-less consumer */
    if (generation_id >= 0 || member_id.len > 0 || group_instance_id.len >= 0) {
        int16_t err = group_validate_member(g, member_id.len >= 0 ? member_id : kc_str(""),
                                            group_instance_id,
                                            is_transactional ? "txn-offset-commit" : "offset-commit");
        if (err)
            return err;
        if (generation_id != g->generation_id)
            return KC_ERR_ILLEGAL_GENERATION;
    } else if (!is_transactional && g->state != CLASSIC_EMPTY) {
        return KC_ERR_UNKNOWN_MEMBER_ID;
    }
    if (!is_transactional && g->state == CLASSIC_COMPLETING_REBALANCE)
        return KC_ERR_REBALANCE_IN_PROGRESS;
    return KC_ERR_NONE;
}

void kc_classic_group_touch_member(kc_coord_t *c, kc_classic_group_t *g, kc_str_t member_id,
                                   int64_t now_ms)
{
    if (g->state != CLASSIC_STABLE && g->state != CLASSIC_PREPARING_REBALANCE)
        return;
    classic_member_t *m = group_member_s(g, member_id);
    if (m)
        schedule_heartbeat(c, g, m->member_id, m->session_timeout_ms, now_ms);
}

int16_t kc_classic_group_validate_offset_delete(const kc_classic_group_t *g)
{
    switch (g->state) {
    case CLASSIC_DEAD:
        return KC_ERR_GROUP_ID_NOT_FOUND;
    case CLASSIC_STABLE:
    case CLASSIC_PREPARING_REBALANCE:
    case CLASSIC_COMPLETING_REBALANCE:
        if (!g->protocol_type || strcmp(g->protocol_type, "consumer") != 0)
            return KC_ERR_NON_EMPTY_GROUP;
        return KC_ERR_NONE;
    case CLASSIC_EMPTY:
        return KC_ERR_NONE;
    }
    return KC_ERR_NONE;
}

kc_str_t kc_classic_group_id(const kc_classic_group_t *g) { return kc_str(g->group_id); }

bool kc_classic_group_is_subscribed_to(const kc_classic_group_t *g, kc_str_t topic)
{
    if (g->subscribed_known)
        return topic.len >= 0 && strset_has(&g->subscribed_topics, topic.ptr ? topic.ptr : "", (size_t)topic.len);
    return g->protocol_type && strcmp(g->protocol_type, "consumer") == 0;
}

bool kc_classic_group_offsets_expire(const kc_classic_group_t *g, int64_t *base_timestamp_ms)
{
    *base_timestamp_ms = -1; /* -1: measure from each offset's commit timestamp */
    if (!g->protocol_type || !*g->protocol_type)
        return true; /* simple group */
    if (g->state == CLASSIC_EMPTY) {
        *base_timestamp_ms = g->current_state_timestamp;
        return true;
    }
    return strcmp(g->protocol_type, "consumer") == 0 && g->subscribed_known && g->state == CLASSIC_STABLE;
}

bool kc_classic_group_delete_empty(kc_coord_t *c, kc_str_t group_id, kc_result_t *res)
{
    kc_classic_group_t *g = kc_classic_group_find(c, group_id);
    if (!g || g->state != CLASSIC_EMPTY || (!res && g->protocol_type))
        return false;
    if (res)
        write_group_tombstone(g->group_id, res);
    drop_group(c, g, g->current_state_timestamp, "a streams group of the same id replaces it");
    return true;
}

/* ---- read-only introspection (admin views) -------------------------------- */

static void inspect_one(const kc_coord_t *c, const kc_classic_group_t *g, kc_group_view_fn fn,
                        void *arg)
{
    kc_member_view_t *mv = g->nmembers ? kc_xcalloc(g->nmembers, sizeof(*mv)) : NULL;
    for (size_t i = 0; i < g->nmembers; i++) {
        const classic_member_t *m = g->members[i];
        char key[KEY_BUF];
        heartbeat_key(key, sizeof(key), group_id_of(g), m->member_id);
        mv[i] = (kc_member_view_t){
            .member_id = m->member_id,
            .group_instance_id = m->group_instance_id,
            .client_id = m->client_id,
            .client_host = m->client_host,
            .session_timeout_ms = m->session_timeout_ms,
            .rebalance_timeout_ms = m->rebalance_timeout_ms,
            .assignment = m->assignment,
            .assignment_len = m->assignment ? m->assignment_len : 0,
            .awaiting_join = m->join.active,
            .awaiting_sync = m->sync.active,
            .session_deadline_ms = kc_timer_deadline(c, key),
        };
    }
    kc_group_view_t v = {
        .group_id = g->group_id,
        .type = "classic",
        .state = state_names[g->state],
        .generation_id = g->generation_id,
        .protocol_type = g->protocol_type,
        .protocol_name = g->protocol_name,
        .leader_id = g->leader_id,
        .members = mv,
        .nmembers = g->nmembers,
    };
    fn(arg, &v);
    free(mv);
}

void kc_coord_inspect_groups(kc_coord_t *c, kc_group_view_fn fn, void *arg)
{
    size_t n;
    kc_classic_group_t **gs = classic_groups(c, &n);
    for (size_t i = 0; i < n; i++)
        inspect_one(c, gs[i], fn, arg);
    free(gs);
    kc_consumer_inspect_all(c, fn, arg);
    kc_streams_inspect_all(c, fn, arg);
}

bool kc_coord_inspect_group(kc_coord_t *c, kc_str_t group_id, kc_group_view_fn fn, void *arg)
{
    if (group_id.len < 0)
        return false;
    const kc_classic_group_t *g =
        classic_get(c, group_id.ptr ? group_id.ptr : "", (size_t)group_id.len);
    if (!g)
        return kc_consumer_inspect_one(c, group_id, fn, arg) ||
               kc_streams_inspect_one(c, group_id, fn, arg);
    inspect_one(c, g, fn, arg);
    return true;
}

/* ---- conversions between classic and consumer groups ---------------------- */

uint64_t kc_classic_group_drop_simple(kc_coord_t *c, kc_str_t group_id)
{
    kc_classic_group_t *g = kc_classic_group_find(c, group_id);
    if (!g || !kc_classic_group_is_simple(g))
        return 0;
    /* Not drop_group: the table entry stays for the group that replaces it
     * (a put of an existing key keeps its place). */
    uint64_t seq = g->table_seq;
    cancel_group_timers(c, g);
    group_transition(g, CLASSIC_DEAD, g->current_state_timestamp, NULL,
                     "a consumer group of the same id replaces it");
    kc_group_remove(c, &g->base);
    group_free(g);
    return seq;
}

int32_t kc_classic_group_generation(const kc_classic_group_t *g) { return g->generation_id; }
const char *kc_classic_group_protocol_type(const kc_classic_group_t *g) { return g->protocol_type; }
const char *kc_classic_group_protocol_name(const kc_classic_group_t *g) { return g->protocol_name; }

size_t kc_classic_group_members(const kc_classic_group_t *g, kc_classic_member_info_t *out,
                                size_t cap)
{
    for (size_t i = 0; i < g->nmembers && i < cap; i++) {
        const classic_member_t *m = g->members[i];
        out[i] = (kc_classic_member_info_t){m->member_id,         m->group_instance_id,
                                            m->client_id,         m->client_host,
                                            m->rebalance_timeout_ms, m->session_timeout_ms,
                                            m->protocols,         m->nprotocols,
                                            m->assignment,        m->assignment_len};
    }
    return g->nmembers;
}

void kc_classic_group_convert_away(kc_coord_t *c, kc_classic_group_t *g, int64_t now_ms,
                                   kc_result_t *res)
{
    /* completeAllJoinFutures / completeAllSyncFutures(REBALANCE_IN_PROGRESS) */
    for (size_t i = 0; i < g->nmembers; i++) {
        classic_member_t *m = g->members[i];
        join_answer_t a = {KC_ERR_REBALANCE_IN_PROGRESS, -1, NULL, NULL, NULL, false, m->member_id,
                           NULL};
        complete_join_future(g, m, &a, res, false);
        complete_sync_future(m, KC_ERR_REBALANCE_IN_PROGRESS, NULL, NULL, res, false);
    }
    write_group_tombstone(g->group_id, res);
    drop_group(c, g, now_ms, "it was converted to a consumer group");
}

void kc_classic_group_create_converted(kc_coord_t *c, const char *group_id, int32_t generation,
                                       const kc_classic_member_info_t *members, size_t n,
                                       const char *rebalance_reason, int64_t now_ms,
                                       kc_result_t *res)
{
    kc_classic_group_t *g = group_new(group_id, strlen(group_id), CLASSIC_STABLE, now_ms);
    g->generation_id = generation;
    for (size_t i = 0; i < n; i++) {
        const kc_classic_member_info_t *in = &members[i];
        classic_member_t *m = kc_xcalloc(1, sizeof(*m));
        m->member_id = kc_xstrdup(in->member_id);
        m->group_instance_id = in->group_instance_id ? kc_xstrdup(in->group_instance_id) : NULL;
        m->client_id = kc_xstrdup(in->client_id);
        m->client_host = kc_xstrdup(in->client_host);
        m->rebalance_timeout_ms = in->rebalance_timeout_ms;
        m->session_timeout_ms = in->session_timeout_ms;
        m->protocol_type = kc_xstrdup("consumer");
        m->protocols = kc_xcalloc((size_t)in->nprotocols + 1, sizeof(*m->protocols));
        for (int32_t k = 0; k < in->nprotocols; k++) {
            classic_protocol_t *p = &m->protocols[m->nprotocols++];
            p->name = kc_xstrdup(in->protocols[k].name);
            p->metadata_len = in->protocols[k].metadata_len;
            p->metadata = kc_xmalloc((size_t)p->metadata_len + 1);
            if (p->metadata_len)
                memcpy(p->metadata, in->protocols[k].metadata, (size_t)p->metadata_len);
        }
        member_set_assignment(m, in->assignment, in->assignment_len);
        group_add(g, m, NULL);
    }
    set_cstr(&g->protocol_name, group_select_protocol(g));
    group_compute_subscribed_topics(g);
    groups_table_put(c, g, NULL);
    kc_group_put(c, &g->base);
    write_group_record(g, false, res);
    for (size_t i = 0; i < g->nmembers; i++)
        schedule_heartbeat(c, g, g->members[i]->member_id, g->members[i]->session_timeout_ms,
                           now_ms);
    if (rebalance_reason)
        prepare_rebalance(c, g, rebalance_reason, now_ms, res);
}
