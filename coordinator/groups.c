/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one groups map of every group type, the order of Kafka's groups
 * tables, and the APIs that treat every group type alike through its ops
 * (groups.h): ListGroups and DeleteGroups.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "kc_log.h"
#include "topology_desc.h"

#define LOG_COMP "group-coordinator"

/* ---- the groups map ------------------------------------------------------ */

kc_group_t *kc_group_get(kc_coord_t *c, kc_str_t group_id)
{
    if (group_id.len < 0)
        return NULL;
    return kc_smap_get(&c->groups, group_id.ptr ? group_id.ptr : "", (size_t)group_id.len);
}

void *kc_group_get_typed(kc_coord_t *c, kc_str_t group_id, kc_group_type_t type)
{
    kc_group_t *g = kc_group_get(c, group_id);
    return g && g->ops->type == type ? g : NULL;
}

void kc_group_put(kc_coord_t *c, kc_group_t *g)
{
    kc_str_t id = g->ops->id(g);
    kc_group_t *old = kc_smap_get(&c->groups, id.ptr, (size_t)id.len);
    if (old && old != g)
        kc_log_error(LOG_COMP, "group %.*s of type %s replaces one of type %s still in memory",
                     (int)id.len, id.ptr, g->ops->type_name, old->ops->type_name);
    kc_smap_put(&c->groups, id.ptr, (size_t)id.len, g);
}

void kc_group_remove(kc_coord_t *c, const kc_group_t *g)
{
    kc_str_t id = g->ops->id(g);
    if (kc_smap_get(&c->groups, id.ptr, (size_t)id.len) == g)
        kc_smap_del(&c->groups, id.ptr, (size_t)id.len);
}

bool kc_group_replay_allowed(kc_coord_t *c, kc_str_t group_id, kc_group_type_t type)
{
    kc_group_t *g = kc_group_get(c, group_id);
    if (!g || g->ops->type == type)
        return true;
    if (g->ops->type == KC_GROUP_CLASSIC && type != KC_GROUP_CLASSIC &&
        kc_classic_group_is_simple((kc_classic_group_t *)g))
        return true;
    static const kc_group_ops_t *const ops_of[] = {
        [KC_GROUP_CLASSIC] = &kc_classic_group_ops,
        [KC_GROUP_CONSUMER] = &kc_consumer_group_ops,
        [KC_GROUP_STREAMS] = &kc_streams_group_ops,
    };
    kc_log_warn(LOG_COMP, "Skipping a %s group record of group %.*s: it is a %s group",
                ops_of[type]->type_name, (int)group_id.len, group_id.ptr ? group_id.ptr : "",
                g->ops->type_name);
    return false;
}

kc_group_t **kc_groups_list(const kc_coord_t *c, kc_group_type_t type, size_t *n)
{
    kc_group_t **out = kc_xcalloc(c->groups.count + 1, sizeof(*out));
    *n = 0;
    for (size_t i = 0; i < c->groups.nslots; i++)
        for (kc_smap_entry_t *e = c->groups.slots[i]; e; e = e->next)
            if (((kc_group_t *)e->val)->ops->type == type)
                out[(*n)++] = e->val;
    return out;
}

/* ---- Kafka's groups tables ------------------------------------------------ */

/* The __consumer_offsets partition of a group (Kafka's topicPartitionFor:
 * Utils.abs of the hash, which maps INT32_MIN to 0). */
static int group_partition_of(const kc_coord_t *c, const char *group_id, size_t len)
{
    int32_t h = kc_java_string_hash(group_id, len);
    int64_t a = h == INT32_MIN ? 0 : (h < 0 ? -(int64_t)h : h);
    return (int)(a % c->cfg.offsets_topic_num_partitions);
}

static int group_partition(const kc_coord_t *c, kc_str_t group_id)
{
    return group_partition_of(c, group_id.ptr, group_id.len > 0 ? (size_t)group_id.len : 0);
}

/*
 * Each partition's groups live in a TimelineHashMap (BaseHashTable):
 * capacity 2 at first, doubled before a put that would bring it past three
 * quarters full (checked even when the put replaces an entry); a key's slot
 * is the top bits of its hash times the 64-bit golden ratio; a slot keeps
 * its entries in insertion order, a replaced entry keeping its place.
 */
static uint32_t groups_table_cap(const kc_coord_t *c, int partition)
{
    return c->groups_table_cap[partition] ? c->groups_table_cap[partition] : 2;
}

uint64_t kc_groups_table_put(kc_coord_t *c, kc_str_t group_id, uint64_t old_seq)
{
    int p = group_partition(c, group_id);
    uint32_t cap = groups_table_cap(c, p);
    if (((size_t)c->groups_table_size[p] + 1) * 3 > (size_t)cap * 4 && cap < (1u << 30))
        cap *= 2;
    c->groups_table_cap[p] = cap;
    if (!old_seq)
        c->groups_table_size[p]++;
    return old_seq ? old_seq : ++c->groups_table_seq;
}

void kc_groups_table_remove(kc_coord_t *c, kc_str_t group_id)
{
    int p = group_partition(c, group_id);
    if (c->groups_table_size[p] > 0)
        c->groups_table_size[p]--;
}


/*
 * Rank of each partition in the order Kafka's coordinator runtime visits
 * them: its partitions sit in a ConcurrentHashMap keyed by TopicPartition
 * (hash 31 * (31 + partition) + hash("__consumer_offsets")), iterated bin
 * by bin; 50 entries make it 128 bins wide (16, doubled each time it
 * reaches three quarters), without collisions.
 */
static int *partition_ranks(const kc_coord_t *c)
{
    static const char topic[] = "__consumer_offsets";
    int n = c->cfg.offsets_topic_num_partitions;
    uint32_t cap = 16;
    while ((size_t)n >= (size_t)cap / 4 * 3)
        cap *= 2;
    uint32_t th = (uint32_t)kc_java_string_hash(topic, sizeof(topic) - 1);
    uint32_t *bin = kc_xcalloc((size_t)n, sizeof(*bin));
    int *rank = kc_xcalloc((size_t)n, sizeof(*rank));
    for (int p = 0; p < n; p++) {
        uint32_t h = 31u * (31u + (uint32_t)p) + th;
        bin[p] = ((h ^ (h >> 16)) & 0x7fffffffu) & (cap - 1);
    }
    /* Partitions sharing a bin follow one another in partition order. */
    for (int p = 0; p < n; p++) {
        rank[p] = 0;
        for (int q = 0; q < n; q++)
            if (bin[q] < bin[p] || (bin[q] == bin[p] && q < p))
                rank[p]++;
    }
    free(bin);
    return rank;
}

/*
 * kc_groups_order_by_partition: the order in which Kafka answers a batch of group ids (DescribeGroups,
 * DeleteGroups): GroupCoordinatorService puts null ids first, then gathers
 * the others per __consumer_offsets partition in a java.util.HashMap keyed
 * by TopicPartition and answers partition by partition in that map's
 * order: bucket of the TopicPartition hash, then, as computeIfAbsent puts a
 * new entry at the head of its bucket, the partition seen last first. Each
 * partition's ids keep the request order. Writes the permutation into
 * order.
 */
void kc_groups_order_by_partition(const kc_coord_t *c, const kc_str_t *ids, size_t n,
                                  size_t *order)
{
    static const char topic[] = "__consumer_offsets";
    int *part = kc_xcalloc(n ? n : 1, sizeof(*part));
    int *distinct = kc_xcalloc(n ? n : 1, sizeof(*distinct)); /* partitions, first-seen order */
    size_t nd = 0, o = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i].len < 0) {
            part[i] = -1;
            order[o++] = i;
            continue;
        }
        part[i] = group_partition_of(c, ids[i].ptr ? ids[i].ptr : "", (size_t)ids[i].len);
        size_t k = 0;
        while (k < nd && distinct[k] != part[i])
            k++;
        if (k == nd)
            distinct[nd++] = part[i];
    }
    uint32_t cap = 16;
    while (nd > (size_t)cap / 4 * 3)
        cap *= 2;
    uint32_t th = (uint32_t)kc_java_string_hash(topic, sizeof(topic) - 1);
    for (uint32_t b = 0; b < cap && o < n; b++) {
        for (size_t k = nd; k-- > 0;) {
            uint32_t h = 31u * (31u + (uint32_t)distinct[k]) + th;
            if (((h ^ (h >> 16)) & (cap - 1)) != b)
                continue;
            for (size_t i = 0; i < n; i++)
                if (part[i] == distinct[k])
                    order[o++] = i;
        }
    }
    free(part);
    free(distinct);
}

/* One id of a partition's run and its place in a java.util.HashSet. */
typedef struct {
    uint32_t bucket;
    size_t pos, id;
} hashset_entry_t;

static int cmp_hashset_entry(const void *a, const void *b)
{
    const hashset_entry_t *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * DeleteGroups: GroupCoordinatorService passes each partition's ids through
 * a java.util.HashSet (new HashSet<>(list), sized for the list: at least 16
 * buckets, never resized) before the coordinator answers them, so within a
 * partition the ids come in that set's order: bucket, then insertion. order
 * holds the ids partition by partition (order_by_partition); null ids stay
 * first.
 */
static void order_partitions_as_hash_sets(const kc_coord_t *c, const kc_str_t *ids, size_t *order,
                                          size_t n)
{
    size_t i = 0;
    while (i < n && ids[order[i]].len < 0)
        i++;
    hashset_entry_t *run = kc_xcalloc(n ? n : 1, sizeof(*run));
    while (i < n) {
        kc_str_t first = ids[order[i]];
        int p = group_partition_of(c, first.ptr ? first.ptr : "", (size_t)first.len);
        size_t j = i;
        while (j < n && group_partition_of(c, ids[order[j]].ptr ? ids[order[j]].ptr : "",
                                           (size_t)ids[order[j]].len) == p)
            j++;
        size_t len = j - i;
        /* HashSet(Collection): initial capacity max(size / .75 + 1, 16),
         * rounded up to a power of two. */
        size_t want = (size_t)((float)len / .75f) + 1, cap = 16;
        if (want < 16)
            want = 16;
        while (cap < want)
            cap *= 2;
        for (size_t k = 0; k < len; k++) {
            kc_str_t id = ids[order[i + k]];
            uint32_t h = (uint32_t)kc_java_string_hash(id.ptr ? id.ptr : "", (size_t)id.len);
            run[k] = (hashset_entry_t){(h ^ (h >> 16)) & (uint32_t)(cap - 1), k, order[i + k]};
        }
        qsort(run, len, sizeof(*run), cmp_hashset_entry);
        for (size_t k = 0; k < len; k++)
            order[i + k] = run[k].id;
        i = j;
    }
    free(run);
}

static uint32_t groups_table_slot(kc_str_t group_id, uint32_t cap)
{
    unsigned bits = 0;
    while ((1u << bits) < cap)
        bits++;
    int64_t h = kc_java_string_hash(group_id.ptr, group_id.len > 0 ? (size_t)group_id.len : 0);
    uint64_t prod = (uint64_t)h * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(prod >> (64 - bits));
}


/* ---- ListGroups ------------------------------------------------------------ */

static bool str_ieq_c(kc_str_t a, const char *b)
{
    /* Kafka trims the states filter and compares lower-cased. */
    const char *p = a.ptr ? a.ptr : "";
    int32_t len = a.len > 0 ? a.len : 0;
    while (len > 0 && isspace((unsigned char)p[0])) {
        p++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)p[len - 1]))
        len--;
    if ((size_t)len != strlen(b))
        return false;
    for (int32_t i = 0; i < len; i++)
        if (tolower((unsigned char)p[i]) != tolower((unsigned char)b[i]))
            return false;
    return true;
}

static bool str_ieq_exact(kc_str_t a, const char *b)
{
    if (a.len < 0 || (size_t)a.len != strlen(b))
        return false;
    for (int32_t i = 0; i < a.len; i++)
        if (tolower((unsigned char)a.ptr[i]) != tolower((unsigned char)b[i]))
            return false;
    return true;
}

/* One group of any type as ListGroups lists it, with its place in
 * Kafka's groups tables. */
typedef struct {
    kc_str_t group_id;
    const char *protocol_type;
    const char *state;
    const char *type;
    uint64_t seq;
    int rank;
    uint32_t slot;
} listed_t;

/* Kafka's table iterators unpack a slot and hand its entries out from the
 * last one put: within a slot, the later entry comes first. */
static int cmp_listed(const void *a, const void *b)
{
    const listed_t *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/* Puts the groups in the order Kafka lists them: partition by partition,
 * each partition's table (shared by every group type, as Kafka's one
 * groups map) in its own order. */
static void sort_in_table_order(const kc_coord_t *c, listed_t *l, size_t n)
{
    int *rank = partition_ranks(c);
    for (size_t i = 0; i < n; i++) {
        int p = group_partition(c, l[i].group_id);
        l[i].rank = rank[p];
        l[i].slot = groups_table_slot(l[i].group_id, groups_table_cap(c, p));
    }
    free(rank);
    if (n > 1)
        qsort(l, n, sizeof(*l), cmp_listed);
}


typedef struct {
    listed_t *all;
    size_t n;
    const kc_str_t *states;
    int32_t nstates;
    const kc_str_t *types;
    int32_t ntypes;
    const kc_request_ctx_t *ctx;
    bool all_groups; /* DESCRIBE on the cluster: no per-group check */
} list_ctx_t;

/* GroupMetadataManager.listGroups' filter: the states trimmed and compared
 * without case, the types by name without case. */
static bool listed_passes(const list_ctx_t *l, const kc_group_t *g, const char *state)
{
    bool state_ok = l->nstates == 0, type_ok = l->ntypes == 0;
    for (int32_t s = 0; s < l->nstates && !state_ok; s++)
        state_ok = str_ieq_c(l->states[s], state);
    for (int32_t t = 0; t < l->ntypes && !type_ok; t++)
        type_ok = str_ieq_exact(l->types[t], g->ops->type_name);
    return state_ok && type_ok;
}

static void list_one(kc_group_t *g, list_ctx_t *l)
{
    kc_str_t id = g->ops->id(g);
    const char *state = g->ops->state_name(g);
    if (!listed_passes(l, g, state) ||
        (!l->all_groups && !kc_request_authorized(l->ctx, KC_OP_DESCRIBE, KC_RES_GROUP, id)))
        return;
    l->all[l->n++] = (listed_t){id, g->ops->protocol_type(g), state, g->ops->type_name,
                                g->ops->table_seq(g), 0, 0};
}

void kc_coord_list_groups(kc_coord_t *c, const kc_request_ctx_t *ctx,
                          const kc_list_groups_request_t *req, kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_list_groups_response_t r;
    kc_list_groups_response_init(&r);
    r.error_code = c->loaded ? KC_ERR_NONE : KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    r.groups.count = 0;
    r.groups.items = NULL;
    list_ctx_t l = {
        .all = kc_xcalloc(c->groups.count + 1, sizeof(listed_t)),
        .states = req->states_filter.items,
        .nstates = ctx->api_version >= 4 && req->states_filter.count > 0 ? req->states_filter.count : 0,
        .types = req->types_filter.items,
        .ntypes = ctx->api_version >= 5 && req->types_filter.count > 0 ? req->types_filter.count : 0,
        .ctx = ctx,
        /* KafkaApis.handleListGroupsRequest: DESCRIBE on the cluster lists
         * every group, else only the groups the principal may DESCRIBE. */
        .all_groups = kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_CLUSTER,
                                            kc_str(KC_CLUSTER_RESOURCE_NAME)),
    };
    for (kc_group_type_t t = KC_GROUP_CLASSIC; c->loaded && t <= KC_GROUP_STREAMS; t++) {
        size_t ng;
        kc_group_t **gs = kc_groups_list(c, t, &ng);
        for (size_t i = 0; i < ng; i++)
            list_one(gs[i], &l);
        free(gs);
    }
    sort_in_table_order(c, l.all, l.n);
    r.groups.items = l.n ? kc_arena_alloc(&arena, l.n * sizeof(*r.groups.items)) : NULL;
    for (size_t i = 0; i < l.n; i++) {
        __typeof__(r.groups.items[0]) *lg = &r.groups.items[r.groups.count++];
        lg->group_id = l.all[i].group_id;
        lg->protocol_type = kc_str(l.all[i].protocol_type);
        lg->group_state = kc_str(l.all[i].state);
        lg->group_type = kc_str(l.all[i].type);
    }
    free(l.all);
    kc_result_respond(res, ctx, &r, NULL);
    kc_arena_deinit(&arena);
}

/* ---- DeleteGroups ---------------------------------------------------------- */

/* KafkaApis keeps each distinct group id once (the null id too); writes
 * them, in request order, into ids and returns their number. */
static size_t distinct_group_ids(const kc_delete_groups_request_t *req, kc_str_t *ids)
{
    kc_smap_t seen;
    kc_smap_init(&seen);
    bool seen_null = false;
    size_t n = 0;
    for (int32_t i = 0; i < req->groups_names.count; i++) {
        kc_str_t gid = req->groups_names.items[i];
        const char *p = gid.ptr ? gid.ptr : "";
        if (gid.len < 0 ? seen_null : kc_smap_get(&seen, p, (size_t)gid.len) != NULL)
            continue;
        if (gid.len < 0)
            seen_null = true;
        else
            kc_smap_put(&seen, p, (size_t)gid.len, &seen);
        ids[n++] = gid;
    }
    kc_smap_deinit(&seen);
    return n;
}

typedef struct {
    const kc_topology_desc_failed_t *failed; /* the store's failed deletions */
    size_t nfailed;
    size_t deleted_offsets;
    kc_buf_t deleted; /* ids deleted, for the log line */
} delete_ctx_t;

/* GroupMetadataManager.deleteGroups for one id: the group's own check,
 * then (streams) the topology-description store's failed delete, then its
 * offsets and its records. Fills d's error. */
static void delete_one(kc_coord_t *c, const kc_request_ctx_t *ctx, kc_str_t gid, delete_ctx_t *dc,
                       __typeof__(((kc_delete_groups_response_t *)0)->results.items[0]) *d,
                       kc_result_t *res)
{
    kc_group_t *g = kc_group_get(c, gid);
    d->error_code = g ? g->ops->validate_delete(g) : KC_ERR_GROUP_ID_NOT_FOUND;
    if (d->error_code != KC_ERR_NONE)
        return;
    /* The store's delete failed: the group is kept (at -2). */
    for (size_t i = 0; i < dc->nfailed; i++)
        if (kc_str_eq(dc->failed[i].group_id, gid)) {
            d->error_code = kc_topology_desc_deletion_error(dc->failed[i].error_code, ctx->api_version);
            if (ctx->api_version >= 3 && dc->failed[i].message && *dc->failed[i].message)
                d->error_message = kc_str(dc->failed[i].message);
            return;
        }
    size_t before = res->nrecords;
    kc_offsets_delete_group(c, gid, res);
    dc->deleted_offsets += res->nrecords - before;
    if (dc->deleted.len)
        kc_buf_append(&dc->deleted, ", ", 2);
    kc_buf_append(&dc->deleted, gid.ptr ? gid.ptr : "", (size_t)gid.len);
    g->ops->delete(c, g, ctx->now_ms, "DeleteGroups", res);
}

void kc_coord_delete_groups(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_delete_groups_request_t *req, kc_result_t *res)
{
    kc_coord_delete_groups_failed(c, ctx, req, NULL, 0, res);
}

void kc_coord_delete_groups_failed(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                   const kc_delete_groups_request_t *req,
                                   const kc_topology_desc_failed_t *failed, size_t nfailed,
                                   kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_delete_groups_response_t r;
    kc_delete_groups_response_init(&r);
    size_t n = req->groups_names.count > 0 ? (size_t)req->groups_names.count : 0;
    r.results.count = 0;
    r.results.items = n ? kc_arena_alloc(&arena, n * sizeof(*r.results.items)) : NULL;
    size_t records_before = res->nrecords;
    delete_ctx_t dc = {failed, nfailed, 0, {0}};
    kc_buf_init(&dc.deleted);
    kc_str_t *ids = kc_arena_alloc(&arena, (n ? n : 1) * sizeof(*ids));
    size_t nids = distinct_group_ids(req, ids);
    /* The coordinator answers them partition by partition, each
     * partition's ids through a java.util.HashSet. */
    size_t *order = kc_arena_alloc(&arena, (nids ? nids : 1) * sizeof(*order));
    kc_groups_order_by_partition(c, ids, nids, order);
    order_partitions_as_hash_sets(c, ids, order, nids);
    for (size_t k = 0; k < nids; k++) {
        kc_str_t gid = ids[order[k]];
        __typeof__(r.results.items[0]) *d = &r.results.items[r.results.count++];
        d->group_id = gid.len >= 0 ? gid : kc_str("");
        d->error_code = KC_ERR_NONE;
        d->error_message = KC_STR_NULL;
        if (gid.len < 0)
            d->error_code = KC_ERR_INVALID_GROUP_ID;
        /* KafkaApis.handleDeleteGroupsRequest: DELETE on the group. */
        else if (!kc_request_authorized(ctx, KC_OP_DELETE, KC_RES_GROUP, gid))
            d->error_code = KC_ERR_GROUP_AUTHORIZATION_FAILED;
        else if (!c->loaded)
            d->error_code = KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
        else
            delete_one(c, ctx, gid, &dc, d, res);
    }
    if (c->loaded)
        kc_log_info(LOG_COMP, "The following groups were deleted: %.*s. A total of %zu offsets were removed.",
                    (int)dc.deleted.len, dc.deleted.len ? (const char *)dc.deleted.data : "",
                    dc.deleted_offsets);
    kc_buf_deinit(&dc.deleted);
    /* The answer if the commit of the tombstones fails. */
    bool with_records = kc_result_wrote_since(res, records_before);
    kc_delete_groups_response_t err = r;
    if (with_records) {
        size_t nr = (size_t)r.results.count;
        err.results.items = kc_arena_alloc(&arena, (nr ? nr : 1) * sizeof(*err.results.items));
        for (size_t i = 0; i < nr; i++) {
            err.results.items[i] = r.results.items[i];
            if (err.results.items[i].error_code == KC_ERR_NONE)
                err.results.items[i].error_code = KC_COORD_ERR_WRITE_FAILED;
        }
    }
    kc_result_respond(res, ctx, &r, with_records ? &err : NULL);
    kc_arena_deinit(&arena);
}

int32_t kc_coord_offsets_partition_for(const kc_coord_t *c, kc_str_t group_id)
{
    return group_partition_of(c, group_id.ptr ? group_id.ptr : "",
                              (size_t)KC_MAX(group_id.len, 0));
}
