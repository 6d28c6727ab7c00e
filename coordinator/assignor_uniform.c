/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "uniform" server-side assignor of KIP-848 consumer groups, after
 * Kafka's UniformAssignor: spreads the partitions of the subscribed topics
 * evenly over the members and keeps each partition with its previous owner
 * whenever that keeps the balance. Homogeneous subscriptions get exact
 * quotas (every member P/M or P/M+1 partitions); heterogeneous ones are
 * filled least-loaded first and then rebalanced topic by topic. Pure code,
 * deterministic for a given input; the exact choice of which member keeps
 * the extra partitions is kcoord's (member id order), not Kafka's hash order.
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
        int64_t sub_total = 0;
        for (int32_t t = 0; t < nt; t++)
            if (s->members[0].subscribed[t])
                sub_total += s->topics[t].partitions;
        int64_t minq = sub_total / nm, extra = sub_total % nm;
        int64_t *allowed = kc_xcalloc((size_t)nm, sizeof(*allowed));
        for (int32_t m = 0; m < nm; m++) {
            allowed[m] = minq;
            if (count[m] > minq && extra > 0) {
                allowed[m] = minq + 1;
                extra--;
            }
            count[m] = 0;
        }
        /* Trim: each member keeps its lowest partitions up to its quota. */
        for (int64_t i = 0; i < total; i++) {
            int32_t m = owner[i];
            if (m < 0)
                continue;
            if (count[m] < allowed[m])
                count[m]++;
            else
                owner[i] = -1;
        }
        /* Fill: members under the minimum quota first, then one extra each. */
        int64_t next = 0;
        for (int32_t m = 0; m < nm; m++) {
            while (count[m] < minq) {
                while (next < total && owner[next] != -1)
                    next++;
                if (next >= total)
                    break;
                owner[next] = m;
                count[m]++;
            }
        }
        for (int32_t m = 0; m < nm && extra > 0; m++) {
            if (count[m] != minq)
                continue;
            while (next < total && owner[next] != -1)
                next++;
            if (next >= total)
                break;
            owner[next] = m;
            count[m]++;
            extra--;
        }
        free(allowed);
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
