/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared shapes of KIP-1071 streams groups inside coordinator/: task sets
 * keyed by subtopology id (Kafka's TasksTuple) and the task assignor
 * interface (Kafka's TaskAssignor with its GroupSpec). Not part of the
 * public coord.h contract.
 */
#ifndef KC_STREAMS_INT_H
#define KC_STREAMS_INT_H

#include "int_map.h"
#include "int_set.h"
#include "keyed_sets.h"
#include "group.h"
#include "coord_priv.h"
#include "topology_desc.h"

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
 * zero-initialised is the empty set. A member's owned and revoking active
 * tasks keep the epoch each was assigned at (epochs, keyed_sets.h); other
 * sets keep none. */
typedef struct {
    kc_tasks_sub_t *s;
    int32_t n, cap;
    int32_t *epochs;
} kc_tasks_t;

/* Active, standby and warm-up tasks of one member (Kafka's TasksTuple). */
typedef struct {
    kc_tasks_t active, standby, warmup;
} kc_tasks_tuple_t;

/* kc_tasks_free, _copy, _find, _add, _has, _remove, _equal, _count
 * (keyed_sets.h), keyed by subtopology id. */
KC_KEYED_SETS_DECLARE(kc_tasks, kc_tasks_t, kc_tasks_sub_t, const char *);
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

/* ---- streams groups (streams.c), shared with the unit tests -------------- */

/* One reported changelog offset of a task (TaskOffsets, TaskEndOffsets). */
typedef struct {
    char *subtopology_id;
    int32_t partition;
    int64_t offset;
} st_task_offset_t;

/* A member's last reported list: sorted by subtopology id (strcmp), then
 * partition; unique. Zero-initialised is the empty list. */
typedef struct {
    st_task_offset_t *items;
    int32_t n;
} st_task_offsets_t;

/*
 * A member (Kafka's StreamsGroupMember). Hard state, set only by the apply
 * of its records (the live path's writes and a load alike): metadata from
 * record 19, epochs, state and tasks from record 22, the target from record
 * 21. Memory-only: last_report (the last full owned-task
 * report, for the opt-in previous-epoch retry), the timers, and the task
 * offsets and task end offsets last reported in a heartbeat (Kafka's
 * StreamsGroup.taskOffsets, MemberTaskOffsets: no record, empty after a
 * load until reported again, gone with the member).
 */
typedef struct {
    KC_MODERN_MEMBER_BASE; /* ids, client, rebalance timeout, epochs, state (MS_*) */
    char *process_id;
    int32_t topology_epoch;
    char *endpoint_host; /* NULL: no user endpoint */
    int32_t endpoint_port;
    char **tag_keys, **tag_values;
    int32_t ntags;
    kc_tasks_tuple_t assigned;
    kc_tasks_tuple_t pending; /* pending revocation */
    kc_tasks_tuple_t target;
    bool has_target;       /* a record 21 exists (Kafka writes one for every new member) */
    bool has_last_report;
    kc_tasks_tuple_t last_report;
    st_task_offsets_t task_offsets, task_end_offsets; /* memory-only */
    uint64_t table_seq; /* memory-only: place in Kafka's members table (0 = not in it) */
} st_member_t;

/* Current active owner of each partition of one subtopology (assigned or
 * pending revocation; Kafka's currentActiveTaskProcessId); memory-only. */
typedef struct {
    kc_int_map_t owner; /* partition -> st_member_t *; an unowned task is absent */
} st_owner_t;

struct kc_streams_group {
    /* group id, epochs of records 17 and 20, members (st_member_t, st_member_at) */
    KC_MODERN_GROUP_BASE;
    int32_t validated_topology_epoch; /* record 17, -1 = none */
    int32_t last_num_standby;         /* record 17 LastAssignmentConfigs, -1 = none */
    /* record 17 tags 2 and 3 (Stored/FailedDescriptionTopologyEpoch) and the
     * memory-only back-off of the topology-description barrier: the one copy */
    kc_topology_desc_state_t td;
    /* storage behind the metadata value of kc_coord_streams_group_view */
    kc_streams_group_metadata_value_last_assignment_config_t view_cfg;
    char view_nbuf[16];
    /* memory-only: Kafka's members TimelineHashMap (its capacity, size and
     * an insertion counter), whose order Describe follows */
    uint32_t mtable_cap;
    uint32_t mtable_size;
    uint64_t mtable_seq;
    int64_t assignment_timestamp;     /* record 20 */
    /* record 23: the value bytes (after the version) and their decoding */
    kc_buf_t topo_bytes;
    kc_arena_t topo_arena;
    kc_streams_group_topology_value_t *topology; /* NULL: none yet */
    kc_smap_t owners;                 /* subtopology id -> st_owner_t * */
    /* memory-only */
    int32_t endpoint_information_epoch;
    char *shutdown_member_id;         /* ShutdownApplication requested by */
    struct st_config *cfg;            /* configured topology cache (NULL: none) */
};

/* The group's i-th member in join order. */
static inline st_member_t *st_member_at(const struct kc_streams_group *g, size_t i)
{
    return (st_member_t *)g->members.items[i];
}

#endif
