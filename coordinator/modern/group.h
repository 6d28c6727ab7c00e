/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What consumer and streams groups share as Kafka's ModernGroup does: the
 * group id, the group epoch and metadata hash of the group's metadata
 * record, the assignment epoch of its target assignment, its members; and
 * the Group operations that read only those. Each modern group struct
 * starts with KC_MODERN_GROUP_BASE; the rest is the group type's.
 */
#ifndef KC_MODERN_GROUP_H
#define KC_MODERN_GROUP_H

#include "groups.h"
#include "member.h"

#define KC_MODERN_GROUP_FIELDS                                                                     \
    kc_group_t base; /* first: the group abstraction (groups.h) */                                 \
    char *group_id;                                                                                \
    size_t group_id_len; /* a Kafka group id may hold a NUL byte: the map key's length */          \
    int32_t group_epoch;          /* the group metadata record's */                                \
    int64_t metadata_hash;        /* the group metadata record's */                                \
    int32_t assignment_epoch;     /* the target assignment metadata record's */                    \
    kc_modern_members_t members;  /* of the group type's members */                                \
    bool has_group_record;        /* memory-only: a group metadata record was written or replayed */ \
    const char *last_state;       /* memory-only: the state last logged (static; NULL = Empty) */  \
    uint64_t table_seq;           /* memory-only: place in Kafka's groups table */

typedef struct {
    KC_MODERN_GROUP_FIELDS
} kc_modern_group_t;

/* First in a modern group struct: the fields by name and, as `modern`,
 * the kc_modern_group_t the functions below take. */
#define KC_MODERN_GROUP_BASE                                                                       \
    union {                                                                                        \
        kc_modern_group_t modern;                                                                  \
        struct {                                                                                   \
            KC_MODERN_GROUP_FIELDS                                                                 \
        };                                                                                         \
    }

/* A new group of that id (copied) and type, with no member, in the
 * coordinator's groups map (kc_group_put), not yet in the groups table. */
void kc_modern_group_init(kc_coord_t *c, kc_modern_group_t *g, const kc_group_ops_t *ops,
                          kc_str_t group_id);
/* The group's memory besides its members (the group type frees those). */
void kc_modern_group_deinit(kc_modern_group_t *g);
/* Takes g out of the groups table and map, as the replay of its metadata
 * tombstone does (the caller frees it). */
void kc_modern_group_remove(kc_coord_t *c, kc_modern_group_t *g);
/* Takes every group of type out of the map and frees it with free_group
 * (an unload). */
void kc_modern_groups_unload(kc_coord_t *c, kc_group_type_t type,
                             void (*free_group)(kc_group_t *g));

/* The replay of the group metadata record's common fields (record 3 or
 * 17): the group epoch and metadata hash; the group has its record. */
void kc_modern_group_replay_metadata(kc_modern_group_t *g, int32_t epoch, int64_t metadata_hash);

/* Group ops every modern group has: its id; its ListGroups protocol type,
 * the group type's name ("consumer", "streams"); its place in the groups
 * table. validate_delete: NON_EMPTY_GROUP while
 * it has members (validateDeleteGroup); offsets expire by each one's
 * commit timestamp (offsetExpirationCondition); every OffsetDelete is
 * accepted (validateOffsetDelete). */
kc_str_t kc_modern_group_id(const kc_group_t *g);
const char *kc_modern_group_protocol_type(const kc_group_t *g);
uint64_t kc_modern_group_table_seq(const kc_group_t *g);
int16_t kc_modern_group_validate_delete(const kc_group_t *g);
bool kc_modern_group_offsets_expire(const kc_group_t *g, int64_t *base_timestamp_ms);
int16_t kc_modern_group_validate_offset_delete(const kc_group_t *g);
/*
 * OffsetFetch (validateOffsetFetch) from v9, which carries the member id
 * and epoch: KC_ERR_NONE for none of them (or below v9), UNKNOWN_SERVER_ERROR
 * for an epoch without a member id (Kafka looks the null id up),
 * UNKNOWN_MEMBER_ID, or STALE_MEMBER_EPOCH when the epoch is not the
 * member's; *member is the member found (NULL when none).
 */
int16_t kc_modern_group_validate_offset_fetch(const kc_group_t *g, kc_str_t member_id,
                                              int32_t member_epoch, int16_t api_version,
                                              const kc_modern_member_t **member);

/*
 * OffsetCommit's epoch check of member m of modern group g
 * (ConsumerGroup/StreamsGroup.validateOffsetCommit once the member is
 * found): KC_ERR_NONE for m's epoch, STALE_MEMBER_EPOCH for a newer one;
 * for an older one KC_ERR_NONE with *v set up to run check on each
 * partition of the commit (KIP-1251), which the group type writes with
 * kc_modern_commit_partition_epoch.
 */
int16_t kc_modern_validate_commit_epoch(const kc_group_t *g, const kc_modern_member_t *m,
                                        int32_t member_epoch, kc_commit_check_fn *check,
                                        kc_commit_validator_t *v);
/* One partition (or task: subtopology and partition) of a commit whose
 * epoch is older than the member's (createAssignmentEpochValidator):
 * KC_ERR_NONE when the member holds it (held: assigned or pending
 * revocation) at an assignment_epoch no newer than the commit's, else
 * STALE_MEMBER_EPOCH, logged with what (e.g. "partition") and name-partition. */
int16_t kc_modern_commit_partition_epoch(const kc_commit_validator_t *v, bool held,
                                         int32_t assignment_epoch, const char *what,
                                         kc_str_t name, int32_t partition);

/*
 * The member a heartbeat after its join, or a leave, names: by member id
 * when instance_id is null, UNKNOWN_MEMBER_ID "Member <m> is not a member
 * of group <g>." when none; else the instance's static member
 * (throwIfStaticMemberIsUnknown, throwIfInstanceIdIsFenced):
 * UNKNOWN_MEMBER_ID "Instance id <i> is unknown." or FENCED_INSTANCE_ID
 * "Static member <m> with instance id <i> was fenced by member <current>."
 * when another member holds it. KC_ERR_NONE with *out; msg gets the message.
 */
int16_t kc_modern_group_find_member(const kc_modern_group_t *g, kc_str_t member_id,
                                    kc_str_t instance_id, kc_modern_member_t **out, char *msg,
                                    size_t cap);
/* A static member joining (epoch 0) as member_id under instance_id, whose
 * current member is s (NULL: none): only one that left with epoch -2 may
 * be replaced, else UNRELEASED_INSTANCE_ID "Static member <m> with
 * instance id <i> cannot join the group because the instance id is owned
 * by <current> member." (throwIfInstanceIdIsUnreleased). */
int16_t kc_modern_static_join_check(const kc_modern_member_t *s, kc_str_t member_id,
                                    kc_str_t instance_id, char *msg, size_t cap);

/* GroupCoordinatorService's checks of the ids every modern heartbeat
 * carries (throwIfEmptyString): INVALID_REQUEST "GroupId can't be empty."
 * (null counts as empty), "InstanceId can't be empty." or "RackId can't be
 * empty." (null is fine for those two), with the message in msg; else
 * KC_ERR_NONE. */
int16_t kc_modern_validate_ids(kc_str_t group_id, kc_str_t instance_id, kc_str_t rack_id,
                               char *msg, size_t cap);

#endif
