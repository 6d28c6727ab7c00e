/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "range" server-side assignor of KIP-848 consumer groups, after
 * Kafka's RangeAssignor: for each topic, the members subscribed to it, in
 * member id order, receive contiguous ranges of partitions, the first
 * (partitions % members) of them one partition more. Co-partitioned topics
 * therefore land on the same members. Not rack aware; not sticky across
 * membership changes (Kafka 4's range assignor keeps previous owners where
 * the quota allows; kcoord recomputes the ranges).
 */
#include <stdlib.h>

#include "consumer_int.h"

void kc_assignor_range(kc_assign_spec_t *s)
{
    for (int32_t t = 0; t < s->ntopics; t++) {
        int32_t n = 0;
        for (int32_t m = 0; m < s->nmembers; m++)
            n += s->members[m].subscribed[t] ? 1 : 0;
        if (n == 0)
            continue;
        int32_t parts = s->topics[t].partitions, per = parts / n, extra = parts % n;
        int32_t start = 0, i = 0;
        for (int32_t m = 0; m < s->nmembers; m++) {
            if (!s->members[m].subscribed[t])
                continue;
            int32_t len = per + (i < extra ? 1 : 0);
            for (int32_t p = start; p < start + len; p++)
                kc_asg_add(&s->members[m].target, s->topics[t].topic_id, p);
            start += len;
            i++;
        }
    }
}
