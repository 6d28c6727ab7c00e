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
 * heterogeneous ones are filled least-loaded first and then rebalanced
 * topic by topic (kcoord's own, member id order). Pure code, deterministic
 * for a given input.
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

static int32_t java_string_hash(const char *s)
{
    /* Member ids are ASCII in practice; other bytes count as Latin-1. */
    uint32_t h = 0;
    for (; *s; s++)
        h = 31 * h + (uint8_t)*s;
    return (int32_t)h;
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

/* ---- homogeneous subscriptions (UniformHomogeneousAssignmentBuilder) ---- */

static void assign_homogeneous(kc_assign_spec_t *s, const topic_index_t *ix, const int64_t *base,
                               int32_t *owner)
{
    int32_t nm = s->nmembers, nt = s->ntopics;
    int64_t total_parts = base[nt];
    int32_t *morder = kc_xmalloc((size_t)nm * sizeof(*morder));
    int32_t *mhash = kc_xmalloc((size_t)nm * sizeof(*mhash));
    for (int32_t m = 0; m < nm; m++) {
        morder[m] = m;
        mhash[m] = java_string_hash(s->members[m].member_id);
    }
    java_order(morder, nm, mhash);
    int32_t *thash = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(*thash));
    int32_t *torder = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(*torder));
    int32_t nsub = 0;
    for (int32_t t = 0; t < nt; t++) {
        thash[t] = java_uuid_hash(s->topics[t].topic_id);
        if (s->members[0].subscribed[t])
            torder[nsub++] = t;
    }
    java_order(torder, nsub, thash);

    /* Partitions nobody holds in the previous target, topic by topic. */
    bool *held = kc_xcalloc((size_t)(total_parts ? total_parts : 1), sizeof(*held));
    for (int32_t m = 0; m < nm; m++) {
        const kc_asg_t *prev = s->members[m].previous;
        for (int32_t i = 0; prev && i < prev->n; i++) {
            int32_t t = topic_index(ix, prev->t[i].topic_id);
            for (int32_t j = 0; t >= 0 && j < prev->t[i].n; j++) {
                int32_t p = prev->t[i].p[j];
                if (p >= 0 && p < s->topics[t].partitions)
                    held[base[t] + p] = true;
            }
        }
    }
    int64_t *unassigned = kc_xmalloc((size_t)(total_parts ? total_parts : 1) * sizeof(int64_t));
    int64_t nun = 0, total = 0;
    for (int32_t k = 0; k < nsub; k++) {
        int32_t t = torder[k];
        for (int32_t p = 0; p < s->topics[t].partitions; p++)
            if (!held[base[t] + p])
                unassigned[nun++] = base[t] + p;
        total += s->topics[t].partitions;
    }
    int64_t minq = total / nm, extra_left = total % nm;
    int64_t *quota_left = kc_xcalloc((size_t)nm, sizeof(*quota_left));

    /* Each member keeps what it held up to its quota, in its previous
     * target's topic order (a hash map of topic ids) and partition order. */
    int32_t *ptorder = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(*ptorder));
    for (int32_t k = 0; k < nm; k++) {
        int32_t m = morder[k];
        int64_t quota = minq;
        bool has_extra = false;
        if (extra_left > 0) {
            quota++;
            has_extra = true;
        }
        const kc_asg_t *prev = s->members[m].previous;
        int32_t np = 0;
        for (int32_t i = 0; prev && i < prev->n && np < nt; i++) {
            int32_t t = topic_index(ix, prev->t[i].topic_id);
            if (t < 0 || !s->members[m].subscribed[t])
                continue;
            ptorder[np++] = i;
        }
        /* Order the previous target's topics by their ids' hash codes. */
        int32_t *ph = kc_xmalloc((size_t)(prev && prev->n ? prev->n : 1) * sizeof(*ph));
        for (int32_t i = 0; prev && i < prev->n; i++)
            ph[i] = java_uuid_hash(prev->t[i].topic_id);
        java_order(ptorder, np, ph);
        free(ph);
        for (int32_t q = 0; q < np; q++) {
            const kc_asg_topic_t *pt = &prev->t[ptorder[q]];
            int32_t t = topic_index(ix, pt->topic_id);
            int32_t valid = 0;
            for (int32_t j = 0; j < pt->n; j++)
                valid += pt->p[j] >= 0 && pt->p[j] < s->topics[t].partitions;
            if (valid <= quota) {
                for (int32_t j = 0; j < pt->n; j++)
                    if (pt->p[j] >= 0 && pt->p[j] < s->topics[t].partitions)
                        owner[base[t] + pt->p[j]] = m;
                quota -= valid;
                continue;
            }
            for (int32_t j = 0; j < pt->n; j++) {
                int32_t p = pt->p[j];
                if (p < 0 || p >= s->topics[t].partitions)
                    continue;
                if (quota > 0) {
                    quota--;
                    owner[base[t] + p] = m;
                } else {
                    unassigned[nun++] = base[t] + p;
                }
            }
        }
        if (quota > 0 && has_extra && nm - k > extra_left) {
            quota--;
            has_extra = false;
        }
        quota_left[m] = quota;
        if (has_extra)
            extra_left--;
    }
    /* The members with quota left take the unassigned partitions in order. */
    int64_t next = 0;
    for (int32_t k = 0; k < nm; k++) {
        int32_t m = morder[k];
        for (int64_t i = 0; i < quota_left[m] && next < nun; i++)
            owner[unassigned[next++]] = m;
    }
    free(ptorder);
    free(quota_left);
    free(unassigned);
    free(held);
    free(torder);
    free(thash);
    free(mhash);
    free(morder);
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
    int64_t *count = kc_xcalloc((size_t)nm, sizeof(*count));
    topic_index_t ix;
    topic_index_init(&ix, s);

    /* Sticky start: previous owners keep what they still subscribe to. */
    for (int32_t m = 0; m < nm; m++) {
        const kc_asg_t *prev = s->members[m].previous;
        for (int32_t i = 0; prev && i < prev->n; i++) {
            int32_t t = topic_index(&ix, prev->t[i].topic_id);
            if (t < 0 || !s->members[m].subscribed[t])
                continue;
            for (int32_t j = 0; j < prev->t[i].n; j++) {
                int32_t p = prev->t[i].p[j];
                if (p >= 0 && p < s->topics[t].partitions && owner[base[t] + p] == -1) {
                    owner[base[t] + p] = m;
                    count[m]++;
                }
            }
        }
    }

    bool homogeneous = true;
    for (int32_t m = 1; m < nm && homogeneous; m++)
        homogeneous = memcmp(s->members[m].subscribed, s->members[0].subscribed,
                             (size_t)nt * sizeof(bool)) == 0;

    if (homogeneous) {
        for (int64_t i = 0; i < total; i++)
            owner[i] = -1;
        assign_homogeneous(s, &ix, base, owner);
    } else {
        /* Unowned partitions go to the least loaded subscriber. */
        for (int32_t t = 0; t < nt; t++) {
            for (int32_t p = 0; p < s->topics[t].partitions; p++) {
                if (owner[base[t] + p] != -1)
                    continue;
                int32_t best = -1;
                for (int32_t m = 0; m < nm; m++)
                    if (s->members[m].subscribed[t] && (best < 0 || count[m] < count[best]))
                        best = m;
                if (best >= 0) {
                    owner[base[t] + p] = best;
                    count[best]++;
                }
            }
        }
        /* Rebalance: move a partition when its owner holds two or more than
         * the least loaded member that could take it. */
        for (int pass = 0; pass < 32; pass++) {
            bool moved = false;
            for (int32_t t = 0; t < nt; t++) {
                for (int32_t p = 0; p < s->topics[t].partitions; p++) {
                    int32_t o = owner[base[t] + p];
                    int32_t best = -1;
                    for (int32_t m = 0; m < nm; m++)
                        if (s->members[m].subscribed[t] && (best < 0 || count[m] < count[best]))
                            best = m;
                    if (o >= 0 && best >= 0 && count[o] > count[best] + 1) {
                        owner[base[t] + p] = best;
                        count[o]--;
                        count[best]++;
                        moved = true;
                    }
                }
            }
            if (!moved)
                break;
        }
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
    free(count);
    free(owner);
    free(base);
}
