/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "uniform" server-side assignor of KIP-848 consumer groups, after
 * Kafka's UniformAssignor: spreads the partitions of the subscribed topics
 * evenly over the members and keeps each partition with its previous owner
 * whenever that keeps the balance. Homogeneous subscriptions get exact
 * quotas (every member P/M or P/M+1 partitions), computed as Kafka's
 * UniformHomogeneousAssignmentBuilder does, walking members and topics in
 * the order Java's hash maps of member ids and topic ids iterate them (so
 * the same members and topics get the same partitions as on Kafka);
 * heterogeneous ones as its UniformHeterogeneousAssignmentBuilder does
 * (previous owners kept, the rest to the least loaded subscribers, then
 * topics balanced in Kafka's topic order). Pure code, deterministic for a
 * given input.
 */
#include <stdlib.h>
#include <string.h>

#include "consumer_int.h"

/* The spec's topics sorted by topic id, to find a topic of a previous
 * assignment by id in log time. */
typedef struct {
    kc_uuid_t id;
    int32_t index;
} topic_by_id_t;

typedef struct {
    topic_by_id_t *by_id;
    int32_t n;
} topic_index_t;

static int cmp_topic_id(const void *a, const void *b)
{
    return cs_uuid_cmp(&((const topic_by_id_t *)a)->id, &((const topic_by_id_t *)b)->id);
}

static void topic_index_init(topic_index_t *ix, const kc_assign_spec_t *s)
{
    ix->n = s->ntopics;
    ix->by_id = kc_xmalloc((size_t)(s->ntopics ? s->ntopics : 1) * sizeof(*ix->by_id));
    for (int32_t i = 0; i < s->ntopics; i++)
        ix->by_id[i] = (topic_by_id_t){s->topics[i].topic_id, i};
    qsort(ix->by_id, (size_t)s->ntopics, sizeof(*ix->by_id), cmp_topic_id);
}

static int32_t topic_index(const topic_index_t *ix, kc_uuid_t id)
{
    int32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        int c = cs_uuid_cmp(&ix->by_id[mid].id, &id);
        if (c == 0)
            return ix->by_id[mid].index;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* ---- Java hash-map iteration order ------------------------------------- */

/* The bucket a key of this hashCode falls in, in a java.util.HashMap of
 * capacity cap (HashMap.hash spreads the high bits). */
static uint32_t java_bucket(int32_t hash, uint32_t cap)
{
    uint32_t h = (uint32_t)hash;
    return (h ^ (h >> 16)) & (cap - 1);
}

/* The capacity of a java.util.HashMap (or a HashSet built from a
 * collection) holding n keys. */
static uint32_t java_capacity(int32_t n)
{
    uint32_t cap = 16;
    while ((uint64_t)n * 4 > (uint64_t)cap * 3)
        cap <<= 1;
    return cap;
}

static int32_t java_uuid_hash(kc_uuid_t id)
{
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; i++) {
        hi = hi << 8 | id.b[i];
        lo = lo << 8 | id.b[8 + i];
    }
    uint64_t h = hi ^ lo;
    return (int32_t)((uint32_t)(h >> 32) ^ (uint32_t)h);
}

/* Sorts idx[0..n) by bucket (keys[idx] hash codes), keeping the given
 * order within a bucket: the order a HashMap filled in that order iterates. */
static void java_order(int32_t *idx, int32_t n, const int32_t *hash)
{
    uint32_t cap = java_capacity(n);
    for (int32_t i = 1; i < n; i++) {
        int32_t x = idx[i];
        uint32_t bx = java_bucket(hash[x], cap);
        int32_t j = i - 1;
        while (j >= 0 && java_bucket(hash[idx[j]], cap) > bx) {
            idx[j + 1] = idx[j];
            j--;
        }
        idx[j + 1] = x;
    }
}

/* Kafka's member order, groupSpec.memberIds() (a HashMap of member ids):
 * the spec's member indexes in a new array to free. */
static int32_t *member_java_order(const kc_assign_spec_t *s)
{
    int32_t nm = s->nmembers;
    int32_t *order = kc_xmalloc((size_t)nm * sizeof(*order));
    int32_t *hash = kc_xmalloc((size_t)nm * sizeof(*hash));
    for (int32_t m = 0; m < nm; m++) {
        order[m] = m;
        hash[m] = kc_java_string_hash(s->members[m].member_id, strlen(s->members[m].member_id));
    }
    java_order(order, nm, hash);
    free(hash);
    return order;
}

/* Whether topic t has partition p (a previous target may name partitions
 * a topic no longer has). */
static bool has_partition(const kc_assign_spec_t *s, int32_t t, int32_t p)
{
    return p >= 0 && p < s->topics[t].partitions;
}

/* ---- homogeneous subscriptions (UniformHomogeneousAssignmentBuilder) ---- */

/* The builder's state; partitions are numbered base[t] + p. */
typedef struct {
    const kc_assign_spec_t *s;
    const topic_index_t *ix;
    const int64_t *base;
    int32_t *owner;       /* partition -> spec member index, -1 none */
    int32_t *morder;      /* members in groupSpec.memberIds() order */
    int32_t *torder;      /* subscribedTopicIds, in their HashSet's order */
    int32_t nsub;
    int64_t *unassigned;  /* unassignedPartitions */
    int64_t nun;
    int64_t min_quota;    /* minimumMemberQuota */
    int64_t extra_left;   /* remainingMembersToGetAnExtraPartition */
    int64_t *quota_left;  /* member -> quota left after revoking (potentiallyUnfilledMembers) */
    int32_t *ptorder;     /* one member's previous topics, in their HashMap's order */
} hom_t;

/* The members' order and the subscribed topics' order (every member
 * subscribes to the first member's topics). */
static void hom_orders(hom_t *h)
{
    const kc_assign_spec_t *s = h->s;
    int32_t nt = s->ntopics;
    h->morder = member_java_order(s);
    int32_t *thash = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(*thash));
    h->torder = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(*h->torder));
    for (int32_t t = 0; t < nt; t++) {
        thash[t] = java_uuid_hash(s->topics[t].topic_id);
        if (s->members[0].subscribed[t])
            h->torder[h->nsub++] = t;
    }
    java_order(h->torder, h->nsub, thash);
    free(thash);
}

/* build(): the partitions of the subscribed topics that nobody holds in
 * the previous target (groupSpec.isPartitionAssigned), topic by topic;
 * returns the subscribed topics' partition count. */
static int64_t hom_unassigned(hom_t *h)
{
    const kc_assign_spec_t *s = h->s;
    int64_t total_parts = h->base[s->ntopics];
    bool *held = kc_xcalloc((size_t)(total_parts ? total_parts : 1), sizeof(*held));
    int64_t nheld = 0; /* previous partitions, each time a member holds one */
    for (int32_t m = 0; m < s->nmembers; m++) {
        const kc_asg_t *prev = s->members[m].previous;
        for (int32_t i = 0; prev && i < prev->n; i++) {
            int32_t t = topic_index(h->ix, prev->t[i].topic_id);
            for (int32_t j = 0; t >= 0 && j < prev->t[i].n; j++)
                if (has_partition(s, t, prev->t[i].p[j])) {
                    held[h->base[t] + prev->t[i].p[j]] = true;
                    nheld++;
                }
        }
    }
    /* Room for every partition once, and for each revocation: targets
     * replayed from hostile records may hold a partition twice, and each
     * holder then revokes it. */
    h->unassigned = kc_xmalloc((size_t)(total_parts + nheld + 1) * sizeof(int64_t));
    int64_t total = 0;
    for (int32_t k = 0; k < h->nsub; k++) {
        int32_t t = h->torder[k];
        for (int32_t p = 0; p < s->topics[t].partitions; p++)
            if (!held[h->base[t] + p])
                h->unassigned[h->nun++] = h->base[t] + p;
        total += s->topics[t].partitions;
    }
    free(held);
    return total;
}

/* Member m's previous topics that it still subscribes to, into ptorder in
 * the order of its previous target's HashMap of topic ids; returns their
 * count. */
static int32_t hom_prev_topics(hom_t *h, int32_t m)
{
    const kc_assign_member_t *mem = &h->s->members[m];
    const kc_asg_t *prev = mem->previous;
    int32_t np = 0;
    for (int32_t i = 0; prev && i < prev->n && np < h->s->ntopics; i++) {
        int32_t t = topic_index(h->ix, prev->t[i].topic_id);
        if (t < 0 || !mem->subscribed[t])
            continue;
        h->ptorder[np++] = i;
    }
    int32_t *ph = kc_xmalloc((size_t)(prev && prev->n ? prev->n : 1) * sizeof(*ph));
    for (int32_t i = 0; prev && i < prev->n; i++)
        ph[i] = java_uuid_hash(prev->t[i].topic_id);
    java_order(h->ptorder, np, ph);
    free(ph);
    return np;
}

/* maybeRevokePartitions, one topic of member m's previous target: kept
 * whole when it fits in the quota, else partition by partition until the
 * quota is used up, the rest revoked (to unassignedPartitions); returns
 * the quota left. */
static int64_t hom_keep_topic(hom_t *h, int32_t m, const kc_asg_topic_t *pt, int64_t quota)
{
    const kc_assign_spec_t *s = h->s;
    int32_t t = topic_index(h->ix, pt->topic_id);
    int32_t valid = 0;
    for (int32_t j = 0; j < pt->n; j++)
        valid += has_partition(s, t, pt->p[j]);
    if (valid <= quota) {
        for (int32_t j = 0; j < pt->n; j++)
            if (has_partition(s, t, pt->p[j]))
                h->owner[h->base[t] + pt->p[j]] = m;
        return quota - valid;
    }
    for (int32_t j = 0; j < pt->n; j++) {
        int32_t p = pt->p[j];
        if (!has_partition(s, t, p))
            continue;
        if (quota > 0) {
            quota--;
            h->owner[h->base[t] + p] = m;
        } else {
            h->unassigned[h->nun++] = h->base[t] + p;
        }
    }
    return quota;
}

/* maybeRevokePartitions: each member, in member order, gets its quota
 * (one more while members are still to get an extra partition), keeps what
 * it held up to it and records the quota it has left. */
static void hom_revoke(hom_t *h)
{
    int32_t nm = h->s->nmembers;
    h->quota_left = kc_xcalloc((size_t)nm, sizeof(*h->quota_left));
    h->ptorder = kc_xmalloc((size_t)(h->s->ntopics ? h->s->ntopics : 1) * sizeof(*h->ptorder));
    for (int32_t k = 0; k < nm; k++) {
        int32_t m = h->morder[k];
        int64_t quota = h->min_quota;
        bool has_extra = false;
        if (h->extra_left > 0) {
            quota++;
            has_extra = true;
        }
        int32_t np = hom_prev_topics(h, m);
        for (int32_t q = 0; q < np; q++)
            quota = hom_keep_topic(h, m, &h->s->members[m].previous->t[h->ptorder[q]], quota);
        if (quota > 0 && has_extra && nm - k > h->extra_left) {
            quota--;
            has_extra = false;
        }
        h->quota_left[m] = quota;
        if (has_extra)
            h->extra_left--;
    }
}

/* assignRemainingPartitions: the members with quota left, in member order,
 * take the unassigned partitions in order. */
static void hom_assign_remaining(hom_t *h)
{
    int64_t next = 0;
    for (int32_t k = 0; k < h->s->nmembers; k++) {
        int32_t m = h->morder[k];
        for (int64_t i = 0; i < h->quota_left[m] && next < h->nun; i++)
            h->owner[h->unassigned[next++]] = m;
    }
}

/* UniformHomogeneousAssignmentBuilder.build: the unassigned partitions,
 * the quotas, the revocations over quota, then the unassigned partitions
 * to the members with room. owner: filled with spec member indices. */
static void assign_homogeneous(kc_assign_spec_t *s, const topic_index_t *ix, const int64_t *base,
                               int32_t *owner)
{
    hom_t h = {.s = s, .ix = ix, .base = base, .owner = owner};
    hom_orders(&h);
    int64_t total = hom_unassigned(&h);
    h.min_quota = total / s->nmembers;
    h.extra_left = total % s->nmembers;
    hom_revoke(&h);
    hom_assign_remaining(&h);
    free(h.ptorder);
    free(h.quota_left);
    free(h.unassigned);
    free(h.torder);
    free(h.morder);
}

/* ---- heterogeneous subscriptions (UniformHeterogeneousAssignmentBuilder) - */

/* Members are numbered by their place in Kafka's member order (k); owner
 * holds k or -1 here, sizes[k] the member's partition count so far. */
typedef struct {
    const int64_t *sizes;
    int32_t *sorted;
    int32_t n;
    int32_t least_end, next_least, most_start, most_end, next_most;
    int64_t least_count, most_count;
} balancer_t;

static const int64_t *cmp_sizes;

static int cmp_member_load(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    if (cmp_sizes[x] != cmp_sizes[y])
        return cmp_sizes[x] < cmp_sizes[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int64_t balancer_init(balancer_t *b, const int32_t *members, int32_t n)
{
    memcpy(b->sorted, members, (size_t)n * sizeof(*members));
    b->n = n;
    cmp_sizes = b->sizes;
    qsort(b->sorted, (size_t)n, sizeof(*b->sorted), cmp_member_load);
    b->least_end = 0;
    b->least_count = b->sizes[b->sorted[0]] - 1;
    b->next_least = 0;
    b->most_start = n;
    b->most_end = n;
    b->most_count = b->sizes[b->sorted[n - 1]] + 1;
    b->next_most = n - 1;
    return b->sizes[b->sorted[n - 1]] - b->sizes[b->sorted[0]];
}

static int32_t balancer_next_least(balancer_t *b)
{
    if (b->next_least >= b->least_end) {
        b->least_count++;
        while (b->least_end < b->n && b->sizes[b->sorted[b->least_end]] == b->least_count)
            b->least_end++;
        b->next_least = 0;
    }
    return b->sorted[b->next_least++];
}

static int32_t balancer_next_most(balancer_t *b)
{
    if (b->next_most < b->most_start) {
        if (b->most_end <= b->most_start && b->most_start > 0)
            b->most_count = b->sizes[b->sorted[b->most_start - 1]];
        else
            b->most_count--;
        while (b->most_start > 0 && b->sizes[b->sorted[b->most_start - 1]] == b->most_count)
            b->most_start--;
        b->next_most = b->most_end - 1;
    }
    if (b->next_most < 0)
        return -1;
    return b->sorted[b->next_most--];
}

static void balancer_exclude_most(balancer_t *b)
{
    int32_t k = b->sorted[b->next_most + 1];
    b->sorted[b->next_most + 1] = b->sorted[b->most_end - 1];
    b->sorted[b->most_end - 1] = k;
    b->most_end--;
}

static bool balancer_balanced(const balancer_t *b) { return b->most_count - b->least_count <= 1; }

typedef struct {
    const kc_assign_spec_t *s;
    const int32_t *nsubs;
} topic_cmp_ctx_t;

static topic_cmp_ctx_t topic_cmp;

static int64_t uuid_half_signed(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return (int64_t)v;
}

/* Kafka's topic order: most partitions per subscriber first, then fewer
 * subscribers first, then Uuid.compareTo (signed halves). */
static int cmp_topics(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    const kc_assign_spec_t *s = topic_cmp.s;
    double rx = (double)s->topics[x].partitions / topic_cmp.nsubs[x];
    double ry = (double)s->topics[y].partitions / topic_cmp.nsubs[y];
    if (rx != ry)
        return ry < rx ? -1 : 1;
    if (topic_cmp.nsubs[x] != topic_cmp.nsubs[y])
        return topic_cmp.nsubs[x] < topic_cmp.nsubs[y] ? -1 : 1;
    int64_t hx = uuid_half_signed(s->topics[x].topic_id.b), hy = uuid_half_signed(s->topics[y].topic_id.b);
    if (hx != hy)
        return hx < hy ? -1 : 1;
    hx = uuid_half_signed(s->topics[x].topic_id.b + 8);
    hy = uuid_half_signed(s->topics[y].topic_id.b + 8);
    return hx < hy ? -1 : hx > hy;
}

typedef struct {
    int32_t p, owner;
} part_owner_t;

static int cmp_part_owner(const void *a, const void *b)
{
    const part_owner_t *x = a, *y = b;
    if (x->owner != y->owner)
        return x->owner < y->owner ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;
}

static void het_assign(int32_t *owner, int64_t *sizes, int64_t at, int32_t k)
{
    if (owner[at] >= 0)
        sizes[owner[at]]--;
    owner[at] = k;
    sizes[k]++;
}

static int32_t het_balance_topic(const kc_assign_spec_t *s, int32_t t, const int64_t *base,
                                 int32_t *owner, int64_t *sizes, balancer_t *b,
                                 int32_t *const *subs, const int32_t *nsubs, int32_t nm)
{
    int32_t moved = 0, np = s->topics[t].partitions;
    if (balancer_init(b, subs[t], nsubs[t]) <= 1)
        return 0;
    part_owner_t *parts = kc_xmalloc((size_t)(np ? np : 1) * sizeof(*parts));
    for (int32_t p = 0; p < np; p++)
        parts[p] = (part_owner_t){p, owner[base[t] + p]};
    qsort(parts, (size_t)np, sizeof(*parts), cmp_part_owner);
    /* The range of parts each owner (k, or -1 at index nm) holds. */
    int32_t *start = kc_xmalloc((size_t)(nm + 1) * sizeof(*start));
    int32_t *end = kc_xmalloc((size_t)(nm + 1) * sizeof(*end));
    for (int32_t k = 0; k <= nm; k++)
        start[k] = end[k] = -1;
    for (int32_t i = 0; i < np; i++) {
        int32_t o = parts[i].owner < 0 ? nm : parts[i].owner;
        if (start[o] < 0)
            start[o] = i;
        end[o] = i + 1;
    }
    while (!balancer_balanced(b)) {
        int32_t most;
        for (;;) {
            most = balancer_next_most(b);
            if (most == -1)
                break;
            if (end[most] < 0 || end[most] - start[most] <= 0) {
                balancer_exclude_most(b);
                continue;
            }
            break;
        }
        if (most == -1)
            break;
        int32_t p = parts[end[most] - 1].p;
        end[most]--;
        int32_t least = balancer_next_least(b);
        if (balancer_balanced(b))
            break;
        het_assign(owner, sizes, base[t] + p, least);
        moved++;
    }
    free(end);
    free(start);
    free(parts);
    return moved;
}

/* owner: filled with spec member indices (or -1). */
static void assign_heterogeneous(kc_assign_spec_t *s, const topic_index_t *ix, const int64_t *base,
                                 int32_t *owner_out)
{
    int32_t nm = s->nmembers, nt = s->ntopics;
    int64_t total = base[nt];
    int32_t *jm = member_java_order(s);
    int32_t **subs = kc_xcalloc((size_t)nt, sizeof(*subs));
    int32_t *nsubs = kc_xcalloc((size_t)nt, sizeof(*nsubs));
    for (int32_t t = 0; t < nt; t++) {
        subs[t] = kc_xmalloc((size_t)nm * sizeof(**subs));
        for (int32_t k = 0; k < nm; k++)
            if (s->members[jm[k]].subscribed[t])
                subs[t][nsubs[t]++] = k;
    }
    int32_t *owner = kc_xmalloc((size_t)(total ? total : 1) * sizeof(*owner));
    for (int64_t i = 0; i < total; i++)
        owner[i] = -1;
    int64_t *sizes = kc_xcalloc((size_t)nm, sizeof(*sizes));
    /* Previous targets are kept for the topics still subscribed. */
    for (int32_t k = 0; k < nm; k++) {
        const kc_assign_member_t *mem = &s->members[jm[k]];
        for (int32_t i = 0; mem->previous && i < mem->previous->n; i++) {
            int32_t t = topic_index(ix, mem->previous->t[i].topic_id);
            if (t < 0 || !mem->subscribed[t])
                continue;
            sizes[k] += mem->previous->t[i].n;
            for (int32_t j = 0; j < mem->previous->t[i].n; j++) {
                int32_t p = mem->previous->t[i].p[j];
                if (has_partition(s, t, p))
                    owner[base[t] + p] = k;
            }
        }
    }
    balancer_t b = {sizes, kc_xmalloc((size_t)nm * sizeof(int32_t)), 0, 0, 0, 0, 0, 0, 0, 0};
    topic_cmp = (topic_cmp_ctx_t){s, nsubs};
    int32_t *sorted_topics = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(*sorted_topics));
    /* Unassigned partitions go to the least loaded subscribers, topic by
     * topic in Kafka's topic order. */
    int32_t nsorted = 0;
    for (int32_t t = 0; t < nt; t++) {
        bool any = false;
        for (int32_t p = 0; nsubs[t] > 0 && p < s->topics[t].partitions && !any; p++)
            any = owner[base[t] + p] == -1;
        if (any)
            sorted_topics[nsorted++] = t;
    }
    qsort(sorted_topics, (size_t)nsorted, sizeof(*sorted_topics), cmp_topics);
    for (int32_t i = 0; i < nsorted; i++) {
        int32_t t = sorted_topics[i];
        balancer_init(&b, subs[t], nsubs[t]);
        for (int32_t p = 0; p < s->topics[t].partitions; p++)
            if (owner[base[t] + p] == -1)
                het_assign(owner, sizes, base[t] + p, balancer_next_least(&b));
    }
    /* Then topics with two or more subscribers are balanced, round after
     * round, until a whole round moves nothing (at most 16 rounds). */
    nsorted = 0;
    for (int32_t t = 0; t < nt; t++)
        if (nsubs[t] >= 2)
            sorted_topics[nsorted++] = t;
    qsort(sorted_topics, (size_t)nsorted, sizeof(*sorted_topics), cmp_topics);
    int32_t last = -1;
    for (int round = 0; round < 16 && nsorted > 0; round++) {
        bool done = false;
        for (int32_t ti = 0; ti < nsorted; ti++) {
            if (ti == last) {
                done = true;
                break;
            }
            int32_t moved = het_balance_topic(s, sorted_topics[ti], base, owner, sizes, &b, subs,
                                              nsubs, nm);
            if (moved > 0 || last == -1)
                last = ti;
        }
        if (done)
            break;
    }
    for (int64_t i = 0; i < total; i++)
        owner_out[i] = owner[i] < 0 ? -1 : jm[owner[i]];
    free(sorted_topics);
    free(b.sorted);
    free(sizes);
    free(owner);
    for (int32_t t = 0; t < nt; t++)
        free(subs[t]);
    free(subs);
    free(nsubs);
    free(jm);
}

void kc_assignor_uniform(kc_assign_spec_t *s)
{
    int32_t nm = s->nmembers, nt = s->ntopics;
    if (nm == 0 || nt == 0)
        return;
    int64_t *base = kc_xcalloc((size_t)nt + 1, sizeof(*base));
    for (int32_t t = 0; t < nt; t++)
        base[t + 1] = base[t] + (s->topics[t].partitions > 0 ? s->topics[t].partitions : 0);
    int64_t total = base[nt];
    int32_t *owner = kc_xmalloc((size_t)(total ? total : 1) * sizeof(*owner));
    for (int64_t i = 0; i < total; i++)
        owner[i] = -1;
    topic_index_t ix;
    topic_index_init(&ix, s);

    bool homogeneous = true;
    if (s->subscription_type)
        homogeneous = s->subscription_type == KC_SUBS_HOMOGENEOUS;
    for (int32_t m = 1; m < nm && homogeneous; m++)
        homogeneous = memcmp(s->members[m].subscribed, s->members[0].subscribed,
                             (size_t)nt * sizeof(bool)) == 0;

    if (homogeneous) {
        assign_homogeneous(s, &ix, base, owner);
    } else {
        assign_heterogeneous(s, &ix, base, owner);
    }

    /* In topic id order, so that every add appends. */
    for (int32_t k = 0; k < nt; k++) {
        int32_t t = ix.by_id[k].index;
        for (int32_t p = 0; p < s->topics[t].partitions; p++) {
            int32_t m = owner[base[t] + p];
            if (m >= 0)
                kc_asg_add(&s->members[m].target, s->topics[t].topic_id, p);
        }
    }
    free(ix.by_id);
    free(owner);
    free(base);
}
