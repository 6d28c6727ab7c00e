/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "range" server-side assignor of KIP-848 consumer groups, after
 * Kafka's RangeAssignor: for each topic, the members subscribed to it
 * receive contiguous ranges of partitions, the first (partitions % members)
 * of them one partition more. Members take their ranges in Kafka's order:
 * static members first, by group instance id, so that a static member
 * coming back under a new member id finds its ranges again; then dynamic
 * members by member id. Co-partitioned topics therefore land on the same
 * members. Not rack aware, and not sticky: like Kafka's, the ranges are
 * recomputed from the order at each assignment.
 */
#include <stdlib.h>
#include <string.h>

#include "consumer_int.h"

/* RangeAssignor.sortMemberIds over indexes into the spec's members (which
 * are in member id order): instance ids compared as strings, a static
 * member before a dynamic one, two dynamic members by member id. strcmp
 * orders UTF-8 bytes as Java's compareTo orders UTF-16 units except for
 * characters above U+FFFF against U+E000-U+FFFF. */
static int cmp_range_order(const void *a, const void *b, void *arg)
{
    const kc_assign_member_t *ms = arg;
    int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    const char *x = ms[i].instance_id, *y = ms[j].instance_id;
    if (x && y)
        return strcmp(x, y);
    if (x || y)
        return x ? -1 : 1;
    return i < j ? -1 : i > j;
}

void kc_assignor_range(kc_assign_spec_t *s)
{
    int32_t *order = kc_xcalloc(s->nmembers ? (size_t)s->nmembers : 1, sizeof(*order));
    for (int32_t m = 0; m < s->nmembers; m++)
        order[m] = m;
    qsort_r(order, (size_t)s->nmembers, sizeof(*order), cmp_range_order, s->members);
    for (int32_t t = 0; t < s->ntopics; t++) {
        int32_t n = 0;
        for (int32_t m = 0; m < s->nmembers; m++)
            n += s->members[m].subscribed[t] ? 1 : 0;
        if (n == 0)
            continue;
        int32_t parts = s->topics[t].partitions, per = parts / n, extra = parts % n;
        int32_t start = 0, i = 0;
        for (int32_t k = 0; k < s->nmembers; k++) {
            kc_assign_member_t *m = &s->members[order[k]];
            if (!m->subscribed[t])
                continue;
            int32_t len = per + (i < extra ? 1 : 0);
            for (int32_t p = start; p < start + len; p++)
                kc_asg_add(&m->target, s->topics[t].topic_id, p);
            start += len;
            i++;
        }
    }
    free(order);
}
