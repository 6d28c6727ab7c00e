/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group abstraction (Kafka's Group interface) and the one groups map.
 *
 * Every group, whatever its type, starts with a kc_group_t whose ops say
 * what the type does; the coordinator keeps all of them in one map keyed by
 * group id, as Kafka's GroupMetadataManager keeps one `groups` table, so a
 * group id names at most one group. ListGroups, DeleteGroups, the offsets
 * module and offset retention dispatch through the ops; the group types
 * themselves (classic/, consumer/, streams/) only meet in the conversions
 * between them.
 */
#ifndef KC_GROUPS_H
#define KC_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "coord.h"

typedef enum {
    KC_GROUP_CLASSIC,
    KC_GROUP_CONSUMER,
    KC_GROUP_STREAMS,
} kc_group_type_t;

typedef struct kc_group_ops kc_group_ops_t;

/* The first member of every group struct (kc_classic_group_t,
 * kc_consumer_group_t, kc_streams_group_t), so a group pointer and its
 * kc_group_t pointer are the same address. */
typedef struct kc_group {
    const kc_group_ops_t *ops;
} kc_group_t;

/* An OffsetCommit (or a member's commit through another API) as the group
 * validates it: the request's member id (never null: "" when absent),
 * group instance id (null when absent), generation id or member epoch, the
 * API version, the request time, and whether it is a TxnOffsetCommit. */
typedef struct {
    kc_str_t member_id;
    kc_str_t group_instance_id;
    int32_t generation_id_or_member_epoch;
    int16_t api_version;
    int64_t now_ms;
    bool transactional; /* TxnOffsetCommit (api_version is its version) */
} kc_offset_commit_args_t;

/*
 * What an OffsetCommit's group check leaves to each partition (Kafka's
 * CommitPartitionValidator): a commit carrying an older member epoch than
 * the member's is judged partition by partition against the epochs at
 * which the member was assigned them (KIP-1251). check NULL: nothing left
 * to check; else it answers KC_ERR_NONE or the error of the whole commit
 * (Kafka throws from the first partition that fails) for one partition.
 * group and member are borrowed from the coordinator and stay valid until
 * the next record is written.
 */
typedef struct kc_commit_validator kc_commit_validator_t;
typedef int16_t kc_commit_check_fn(const kc_commit_validator_t *v, kc_str_t topic,
                                   kc_uuid_t topic_id, int32_t partition);
struct kc_commit_validator {
    kc_commit_check_fn *check;
    const kc_group_t *group;
    const void *member;
    int32_t member_epoch; /* the commit's */
};

/* What a group type does, as Kafka's Group interface. Strings returned are
 * owned by the group and live as long as it does. */
struct kc_group_ops {
    kc_group_type_t type;
    const char *type_name; /* ListGroups' GroupType: "classic", "consumer", "streams" */
    /* The group id, every byte of it (a Kafka group id may hold NUL). */
    kc_str_t (*id)(const kc_group_t *g);
    /* The state as Kafka names it (ListGroups, logs): "Empty", "Stable"... */
    const char *(*state_name)(const kc_group_t *g);
    /* ListGroups' ProtocolType: the classic group's own ("" when none),
     * "consumer" or "streams" for the modern groups. */
    const char *(*protocol_type)(const kc_group_t *g);
    /* The group's insertion number in Kafka's groups table (memory-only). */
    uint64_t (*table_seq)(const kc_group_t *g);
    /* DeleteGroups (Group.validateDeleteGroup): KC_ERR_NONE when the group
     * may be deleted, else NON_EMPTY_GROUP or GROUP_ID_NOT_FOUND. */
    int16_t (*validate_delete)(const kc_group_t *g);
    /* Writes the group's tombstones into res (Group.createGroupTombstoneRecords)
     * and removes it from the coordinator; g is freed. reason is logged. */
    void (*delete)(kc_coord_t *c, kc_group_t *g, int64_t now_ms, const char *reason,
                   kc_result_t *res);
    /* OffsetCommit (Group.validateOffsetCommit): KC_ERR_NONE or the error
     * code of the whole commit, and in *v (check NULL on entry) what is left
     * to check per partition; a classic group also extends the committing
     * member's session, as a commit counts as its heartbeat. */
    int16_t (*validate_offset_commit)(kc_coord_t *c, kc_group_t *g,
                                      const kc_offset_commit_args_t *a, kc_commit_validator_t *v);
    /* OffsetFetch (Group.validateOffsetFetch) of member_id (null when
     * absent) at member_epoch (-1 when absent): KC_ERR_NONE, the error of
     * the group's answer, or GROUP_ID_NOT_FOUND when the group has no
     * offsets to show (a Dead classic group). */
    int16_t (*validate_offset_fetch)(const kc_group_t *g, kc_str_t member_id, int32_t member_epoch,
                                     int16_t api_version);
    /* OffsetDelete (Group.validateOffsetDelete): KC_ERR_NONE or the
     * top-level error. */
    int16_t (*validate_offset_delete)(const kc_group_t *g);
    /* Offset retention (Group.offsetExpirationCondition): whether the
     * group's offsets may expire now, and from which time: *base_timestamp_ms
     * is a time every offset's retention counts from, or -1 for each
     * offset's own commit timestamp. */
    bool (*offsets_expire)(const kc_group_t *g, int64_t *base_timestamp_ms);
    /* Whether the group consumes topic (Group.isSubscribedToTopic): an
     * OffsetDelete of its partitions is then GROUP_SUBSCRIBED_TO_TOPIC. */
    bool (*is_subscribed_to_topic)(const kc_group_t *g, kc_str_t topic);
    /* Offset retention, after every committed offset of the group expired:
     * deletes the group when it is empty (Group.isEmpty / shouldExpire),
     * writing its tombstones into res. */
    void (*maybe_delete_expired)(kc_coord_t *c, kc_group_t *g, int64_t now_ms, kc_result_t *res);
};

/* The group of that id, of any type; NULL when none (or id null). */
kc_group_t *kc_group_get(kc_coord_t *c, kc_str_t group_id);
/* The group of that id if it is of that type, else NULL. */
void *kc_group_get_typed(kc_coord_t *c, kc_str_t group_id, kc_group_type_t type);
/* Puts g under its id (ops->id, every byte: an id may hold NUL bytes). An
 * id names one group: a different group of that id must have been removed
 * first (a conversion removes the old group, then puts the new one). */
void kc_group_put(kc_coord_t *c, kc_group_t *g);
/* Removes the map entry of g (not freed). */
void kc_group_remove(kc_coord_t *c, const kc_group_t *g);
/* The groups of a type, in the map's order, as a new array of *n entries
 * (free it; the groups stay owned by the coordinator). The caller may
 * delete groups while it walks the array, only those not yet reached. */
kc_group_t **kc_groups_list(const kc_coord_t *c, kc_group_type_t type, size_t *n);
/*
 * Kafka keeps the groups of each __consumer_offsets partition, whatever
 * their type, in one table whose order ListGroups follows.
 * kc_groups_table_put records a put of group_id: old_seq 0 for a new entry
 * (returns its insertion number), else the number of the entry it replaces
 * (returned as is). kc_groups_table_remove records its removal.
 */
uint64_t kc_groups_table_put(kc_coord_t *c, kc_str_t group_id, uint64_t old_seq);
void kc_groups_table_remove(kc_coord_t *c, kc_str_t group_id);

/*
 * The order in which Kafka answers a batch of group ids (DescribeGroups,
 * DeleteGroups): null ids first, then partition by partition as
 * GroupCoordinatorService gathers them (see groups.c). Writes the
 * permutation of ids[0..n) into order.
 */
void kc_groups_order_by_partition(const kc_coord_t *c, const kc_str_t *ids, size_t n,
                                  size_t *order);

#endif
