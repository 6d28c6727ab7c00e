/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared shapes of KIP-1071 streams groups inside coordinator/: task sets
 * keyed by subtopology id (Kafka's TasksTuple) and the task assignor
 * interface (Kafka's TaskAssignor with its GroupSpec). Not part of the
 * public coord.h contract.
 */
#ifndef KC_STREAMS_INT_H
#define KC_STREAMS_INT_H

#include "int_set.h"
#include "internal.h"

/* The partitions (task ids) of one subtopology, sorted ascending, unique. */
typedef struct {
    char *subtopology_id; /* owned, NUL-terminated */
    union {
        kc_int_set_t set; /* the partitions, for the int_set functions */
        struct {
            int32_t *p;
            int32_t n, cap;
        };
    };
} kc_tasks_sub_t;

/* A set of tasks: subtopologies sorted by id (strcmp). Owns its arrays;
 * zero-initialised is the empty set. */
typedef struct {
    kc_tasks_sub_t *s;
    int32_t n, cap;
} kc_tasks_t;

/* Active, standby and warm-up tasks of one member (Kafka's TasksTuple). */
typedef struct {
    kc_tasks_t active, standby, warmup;
} kc_tasks_tuple_t;

void kc_tasks_free(kc_tasks_t *t);
void kc_tasks_copy(kc_tasks_t *dst, const kc_tasks_t *src); /* dst is freed first */
void kc_tasks_add(kc_tasks_t *t, const char *subtopology_id, int32_t partition);
bool kc_tasks_has(const kc_tasks_t *t, const char *subtopology_id, int32_t partition);
/* Removes one task (and its subtopology when it was the last); false when absent. */
bool kc_tasks_remove(kc_tasks_t *t, const char *subtopology_id, int32_t partition);
bool kc_tasks_equal(const kc_tasks_t *a, const kc_tasks_t *b);
int64_t kc_tasks_count(const kc_tasks_t *t);
const kc_tasks_sub_t *kc_tasks_find(const kc_tasks_t *t, const char *subtopology_id);
void kc_tasks_tuple_free(kc_tasks_tuple_t *t);
void kc_tasks_tuple_copy(kc_tasks_tuple_t *dst, const kc_tasks_tuple_t *src);
bool kc_tasks_tuple_equal(const kc_tasks_tuple_t *a, const kc_tasks_tuple_t *b);
bool kc_tasks_tuple_is_empty(const kc_tasks_tuple_t *t);

/* One subtopology as the assignor sees it: its number of tasks (the
 * largest partition count of its source and repartition source topics) and
 * whether it has state (changelog topics), which makes it get standbys. */
typedef struct {
    const char *subtopology_id;
    int32_t partitions;
    bool stateful;
} kc_st_subtopology_t;

/* One member: its process id, its previous target (borrowed, for
 * stickiness) and the active and standby tasks the assignor fills (owned by
 * the caller, empty on entry). */
typedef struct {
    const char *member_id;
    const char *process_id;
    const kc_tasks_tuple_t *previous;
    kc_tasks_t active, standby;
} kc_st_member_t;

/* Input and output of one assignment: subtopologies sorted by id, members
 * sorted by member id. */
typedef struct {
    const kc_st_subtopology_t *subtopologies;
    int32_t nsubtopologies;
    kc_st_member_t *members;
    int32_t nmembers;
    int32_t num_standby_replicas; /* group.streams.num.standby.replicas */
} kc_st_spec_t;

/*
 * Kafka's StickyTaskAssignor ("sticky"): every active task goes to exactly
 * one member (its previous active owner while under quota, else a previous
 * standby owner, else the least loaded process and its least loaded
 * member); each stateful task gets up to num_standby_replicas standbys on
 * processes that do not hold the task yet. Balance is by process load
 * (tasks / members of the process). Ties are broken in the iteration
 * orders of Kafka's HashMaps and PriorityQueues, computed from Java's
 * String hash. Warm-up tasks are not produced (as Kafka's assignor).
 */
void kc_assignor_streams_sticky(kc_st_spec_t *spec);

#endif
