/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared shapes of KIP-848 consumer groups inside coordinator/: partition
 * sets keyed by topic id (the assignments of Kafka's ConsumerGroupMember and
 * TargetAssignmentBuilder) and the server-side assignor interface (Kafka's
 * ConsumerGroupPartitionAssignor). Not part of the public coord.h contract.
 */
#ifndef KC_CONSUMER_INT_H
#define KC_CONSUMER_INT_H

#include <string.h>

#include "coord_priv.h"
#include "int_map.h"
#include "int_set.h"
#include "keyed_sets.h"
#include "group.h"

/* The partitions of one topic, sorted ascending, no duplicates. */
typedef struct {
    kc_uuid_t topic_id;
    union {
        kc_int_set_t set; /* the partitions, for the int_set functions */
        struct {
            int32_t *p;
            int32_t n, cap;
        };
    };
} kc_asg_topic_t;

/* A set of topic partitions: topics sorted by id bytes. Owns its arrays;
 * zero-initialised is the empty set. A member's owned partitions keep the
 * epoch each was assigned at (epochs, keyed_sets.h); targets keep none. */
typedef struct {
    kc_asg_topic_t *t;
    int32_t n, cap;
    int32_t *epochs;
} kc_asg_t;

/* kc_asg_free, _copy, _find, _add, _has, _remove, _equal, _count
 * (keyed_sets.h), keyed by topic id. */
KC_KEYED_SETS_DECLARE(kc_asg, kc_asg_t, kc_asg_topic_t, kc_uuid_t);
bool kc_asg_is_empty(const kc_asg_t *a);

/* Orders topic ids as memcmp of their 16 bytes does (<0, 0, >0), without
 * the call: two big-endian 64-bit halves. */
static inline uint64_t cs_uuid_half(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline int cs_uuid_cmp(const kc_uuid_t *a, const kc_uuid_t *b)
{
    uint64_t x = cs_uuid_half(a->b), y = cs_uuid_half(b->b);
    if (x == y) {
        x = cs_uuid_half(a->b + 8);
        y = cs_uuid_half(b->b + 8);
    }
    return x < y ? -1 : x > y;
}

/* One subscribed topic that exists, as the assignor sees it. */
typedef struct {
    const char *name;
    kc_uuid_t topic_id;
    int32_t partitions;
} kc_assign_topic_t;

/* One member: which of the spec's topics it subscribes to (subscribed[i]
 * for topics[i]), its current target (borrowed, for stickiness), the new
 * target the assignor fills (owned by the caller, empty on entry) and its
 * group instance id (borrowed; NULL for a dynamic member). */
typedef struct {
    const char *member_id;
    const bool *subscribed;
    const kc_asg_t *previous;
    kc_asg_t target;
    const char *instance_id;
} kc_assign_member_t;

/* Input and output of one assignment: topics sorted by name, members
 * sorted by member id. Every partition of a topic goes to exactly one
 * subscribed member (none when no member subscribes). */
typedef struct {
    const kc_assign_topic_t *topics;
    int32_t ntopics;
    kc_assign_member_t *members;
    int32_t nmembers;
    /* Kafka's SubscriptionType of the group: KC_SUBS_HOMOGENEOUS or
     * KC_SUBS_HETEROGENEOUS, or 0 to tell from the members' subscribed
     * topics. */
    int subscription_type;
} kc_assign_spec_t;

#define KC_SUBS_HOMOGENEOUS 1
#define KC_SUBS_HETEROGENEOUS 2

/* Kafka's UniformAssignor ("uniform", the default): balanced (member
 * counts differ by at most one for homogeneous subscriptions) and sticky
 * (a partition stays with its previous owner while that keeps the
 * balance). */
void kc_assignor_uniform(kc_assign_spec_t *spec);
/* A copy (in arena) of n partition numbers in the order a Java HashSet of
 * them iterates, the order Kafka lists a member's partitions in. */
int32_t *kc_cs_java_int_set_order(const int32_t *p, int32_t n, kc_arena_t *arena);
/* Kafka's RangeAssignor ("range"): per topic, contiguous ranges over the
 * subscribed members, the first ones one larger; members in Kafka's order,
 * static ones first by group instance id, then dynamic ones by member id
 * (the spec's order). */
void kc_assignor_range(kc_assign_spec_t *spec);

/* A compiled subscription regex (regex.c, PCRE2). */
typedef struct kc_regex kc_regex_t;
/* Compiles a pattern of len bytes (UTF-8) for whole-subject matching, as
 * Java's Matcher.matches(). NULL when it does not compile, with a message
 * (PCRE2's, with the offset) written to err. Free with kc_regex_free. */
kc_regex_t *kc_regex_compile(const char *pattern, size_t len, char *err, size_t errcap);
/* True when the whole subject matches; a match that exceeds the
 * backtracking budget counts as no match. Not thread-safe (shared match
 * data). */
bool kc_regex_matches(kc_regex_t *re, const char *subject, size_t len);
void kc_regex_free(kc_regex_t *re); /* NULL is fine */

/* ---- consumer groups (consumer.c), shared with consumer_classic.c ------- */

/*
 * What a member that joined through the classic protocol (JoinGroup) keeps
 * besides the consumer-group member fields: Kafka's
 * ConsumerGroupMemberMetadataValue.ClassicMemberMetadata (record 5, tag 0).
 * Owned by its member.
 */
typedef struct {
    int32_t session_timeout_ms;
    kc_group_protocol_t *protocols; /* as the last JoinGroup listed them */
    int32_t nprotocols;
} kc_cs_classic_t;

void kc_cs_classic_free(kc_cs_classic_t *cl);
/* A classic side with a copy of the n protocols ps. */
kc_cs_classic_t *kc_cs_classic_new(int32_t session_timeout_ms, const kc_group_protocol_t *ps,
                                   int32_t n);

/* ConsumerGroupCurrentMemberAssignmentValue.State */
#define MS_STABLE 0
#define MS_UNREVOKED_PARTITIONS 1
#define MS_UNRELEASED_PARTITIONS 2

/*
 * A member (Kafka's ConsumerGroupMember). Hard state, rebuilt by replay:
 * everything but the timers. Metadata comes from record 5, the epochs,
 * state and owned partitions from record 8, the target from record 7.
 */
typedef struct {
    KC_MODERN_MEMBER_BASE; /* ids, client, rebalance timeout, epochs, state (MS_*) */
    char **topics;         /* subscribed topic names, sorted, unique */
    int32_t ntopics;
    char *regex;           /* SubscribedTopicRegex; NULL = none */
    char *server_assignor;
    kc_asg_t assigned;     /* owned, acknowledged or being assigned */
    kc_asg_t pending;      /* partitions pending revocation */
    kc_asg_t target;       /* the member's part of the target assignment */
    kc_cs_classic_t *classic; /* NULL: the member uses the consumer protocol */
    /* memory-only: the member's row of the subscription matrix of the last
     * target assignment (one flag per name of the group's subs_topics),
     * valid while subs_version is the group's (0: to compute again) */
    bool *subs;
    uint64_t subs_version;
} cs_member_t;

/* A member's new current assignment (record 8's fields), as a handler
 * writes it; the partition sets are borrowed. */
typedef struct {
    int32_t member_epoch, previous_member_epoch;
    int8_t state;
    const kc_asg_t *assigned, *pending;
} cs_current_t;

/* Owner epoch of each partition of one topic (-1 = free), Kafka's
 * ConsumerGroup.currentPartitionEpoch; memory-only, derived from members. */
typedef struct {
    kc_uuid_t topic_id;
    kc_int_map_t epoch; /* partition -> epoch; a free partition is absent */
} cs_owner_t;

/* The topics a subscription regex resolved to (record 16, Kafka's
 * ResolvedRegularExpression): names sorted, unique. */
typedef struct {
    char **topics;
    int32_t n;
    int64_t version;      /* topics_version of the resolution */
    int64_t timestamp_ms; /* when it was resolved */
} cs_resolved_t;

/* A topic id of a group's subs_topics and the topic's index there. */
typedef struct {
    kc_uuid_t id;
    int32_t index;
} cs_sub_id_t;

struct kc_consumer_group {
    /* group id, epochs of records 3 and 6, members (cs_member_t, cs_member_at) */
    KC_MODERN_GROUP_BASE;
    /* subscribed topic name -> count (intptr) of members subscribing by
     * name plus resolved regexes holding it (Kafka's SubscriptionCount) */
    kc_smap_t topic_refs;
    kc_smap_t regex_refs;      /* subscribed regex -> member count (intptr) */
    kc_smap_t resolved;        /* regex -> cs_resolved_t * (record 16) */
    cs_owner_t *owners;
    int32_t nowners;
    kc_smap_t assignor_refs;   /* memory-only: server assignor -> member count (intptr) */
    /* memory-only: the metadata hash of the subscribed topics as of
     * topics_version hash_version (-1: to compute again) */
    int64_t hash_version;
    int64_t cached_hash;
    int64_t hash_checked_version; /* memory-only: topics_version when a heartbeat last looked */
    /* memory-only: the sorted topic names the last target assignment was
     * computed over, and the version of the members' subscription rows
     * (bumped when those names or a regex resolution change; >= 1) */
    char **subs_topics;
    int32_t nsubs_topics;
    uint64_t subs_version;
    /* memory-only: the ids of subs_topics (sorted by id, with the topic's
     * index) as the topic view gave them at topics_version subs_ids_version */
    cs_sub_id_t *subs_ids;
    int64_t subs_ids_version;
};

typedef struct kc_consumer_group cs_group_t;

/* The group's i-th member in join order. */
static inline cs_member_t *cs_member_at(const cs_group_t *g, size_t i)
{
    return (cs_member_t *)g->members.items[i];
}

/*
 * Services of consumer.c for consumer_classic.c (the same steps the
 * ConsumerGroupHeartbeat handler takes). Groups and members are owned by
 * the coordinator; "res" receives the records in Kafka's layouts.
 */
/* A new consumer group in the groups map and a new entry of Kafka's groups
 * table (a conversion removes the group it replaces first). */
cs_group_t *kc_cs_group_new(kc_coord_t *c, const char *group_id, size_t len);
cs_member_t *kc_cs_member_find(const cs_group_t *g, kc_str_t member_id);
cs_member_t *kc_cs_static_member(const cs_group_t *g, kc_str_t instance_id);
/* A proposed member (ConsumerGroupMember.Builder): a detached copy of m's
 * metadata under member_id (m NULL: a new member), for the caller to change
 * and write with kc_cs_write_member_metadata, then free with
 * kc_cs_member_free. */
cs_member_t *kc_cs_member_proposed(const cs_member_t *m, const char *member_id);
void kc_cs_member_free(cs_member_t *m);
/* Sets a proposed member's subscribed topic names (any order, duplicates
 * allowed). */
void kc_cs_member_set_topics(cs_member_t *m, const kc_str_t *names, int32_t n);
bool kc_cs_member_topics_equal(const cs_member_t *m, const kc_str_t *names, int32_t n);
/* Tombstones the resolution of m's regex (record 16) when m, a member of g,
 * is its last member and moves to next_regex (NULL: none)
 * (maybeDeleteResolvedRegularExpression). */
void kc_cs_maybe_delete_regex(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                              const char *next_regex, kc_result_t *res);
/* Epoch of the member owning the partition, -1 when free. */
int32_t kc_cs_partition_epoch(cs_group_t *g, kc_uuid_t topic_id, int32_t partition);
/* Metadata hash of the subscribed topics as they are now. */
int64_t kc_cs_metadata_hash(kc_coord_t *c, cs_group_t *g);
/* Next group epoch with that metadata hash: record 3, a log line and a
 * KC_COORD_EV_GROUP_EPOCH_BUMPED event completed by reason. */
void kc_cs_bump_group_epoch(kc_coord_t *c, cs_group_t *g, int64_t hash, const char *reason,
                            int64_t now_ms, kc_result_t *res);
/* Logs the group's state when it changed since last logged. */
void kc_cs_note_state(cs_group_t *g);
/*
 * The record writers (consumer.c, "records"): each appends its record and
 * applies it to memory through the load path (kc_record_write_replay), the
 * one way consumer group state changes. A member tombstoned is freed.
 */
void kc_cs_write_group_epoch(kc_coord_t *c, const cs_group_t *g, int32_t epoch, int64_t hash,
                             kc_result_t *res);
/* Record 5 from m (proposed or g's); returns g's member of that id after it
 * (NULL when the record could not be written: res is failed). */
cs_member_t *kc_cs_write_member_metadata(kc_coord_t *c, cs_group_t *g, const cs_member_t *m,
                                         kc_result_t *res);
void kc_cs_write_target_member(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                               const kc_asg_t *a, kc_result_t *res);
void kc_cs_write_target_epoch(kc_coord_t *c, const cs_group_t *g, int32_t epoch, int64_t now_ms,
                              kc_result_t *res);
void kc_cs_write_current(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                         const cs_current_t *cur, kc_result_t *res);
void kc_cs_write_member_tombstones(kc_coord_t *c, const cs_group_t *g, const char *member_id,
                                   kc_result_t *res);
/* Computes the target assignment of the group epoch (records 7 and 6). */
void kc_cs_update_target_assignment(kc_coord_t *c, cs_group_t *g, int64_t now_ms,
                                    kc_result_t *res);
/* CurrentAssignmentBuilder: moves m towards its target given the partitions
 * it reports owning (count -1 = not reported); true when m changed (its
 * record 8 written). */
bool kc_cs_reconcile(kc_coord_t *c, cs_group_t *g, cs_member_t *m,
                     const kc_consumer_group_heartbeat_request_topic_partitions_t *owned,
                     int32_t owned_count, kc_result_t *res);
/* Cancels every timer of the member (session, rebalance, classic join/sync). */
void kc_cs_cancel_member_timers(kc_coord_t *c, const cs_group_t *g, const char *member_id);
/* (Re)arms the member's session timeout. */
void kc_cs_schedule_session(kc_coord_t *c, const cs_group_t *g, const cs_member_t *m,
                            int32_t timeout_ms, int64_t now_ms);
/* Removes members from g (consumerGroupFenceMembers): tombstones and one
 * group epoch bump, or, when only classic members would remain and the
 * policy allows it, the conversion of g into a classic group (g is freed
 * then, and true returned). Duplicates in ms are ignored. reason completes
 * each member's event ev (KC_COORD_EV_MEMBER_REMOVED or
 * KC_COORD_EV_SESSION_EXPIRED). */
bool kc_cs_fence_members(kc_coord_t *c, cs_group_t *g, cs_member_t **ms, size_t n,
                         const char *reason, kc_coord_event_type_t ev, int64_t now_ms,
                         kc_result_t *res);

/* consumer_classic.c hooks called by consumer.c. */
/* Cancels the classic member timers (join-<g>-<m>, sync-<g>-<m>). */
void kc_cs_classic_cancel_timers(kc_coord_t *c, const char *group_id, const char *member_id);
/* Online downgrade when fencing: true when g was converted (and freed). */
bool kc_cs_classic_maybe_downgrade(kc_coord_t *c, cs_group_t *g, cs_member_t **leaving,
                                   size_t nleaving, int64_t now_ms, kc_result_t *res);
/*
 * A ConsumerGroupHeartbeat joining (epoch 0) a classic group (Kafka's
 * getOrMaybeCreateConsumerGroup): an empty classic group is deleted, a
 * non-empty one validated and converted (validateOnlineUpgrade,
 * convertToConsumerGroup). Returns the consumer group to join, or NULL
 * with *error and msg set (GROUP_ID_NOT_FOUND: the upgrade is refused;
 * GROUP_MAX_SIZE_REACHED: no place left for the joiner once converted);
 * NULL with error 0 when the classic group was empty (the caller creates
 * the consumer group).
 */
cs_group_t *kc_cs_classic_upgrade(kc_coord_t *c, kc_classic_group_t *classic,
                                  kc_str_t joining_instance_id, int64_t now_ms, kc_result_t *res,
                                  int16_t *error, char *msg, size_t cap);

#endif
