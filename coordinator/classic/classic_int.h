/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private layout of classic groups (classic.c), shared with the
 * coordinator's unit tests, which compare a live coordinator's groups with
 * those a replay of its records rebuilds. Nothing else reads these fields:
 * the other modules go through internal.h and groups.h.
 */
#ifndef KC_CLASSIC_INT_H
#define KC_CLASSIC_INT_H

#include "coord_priv.h"

/*
 * Group states (ClassicGroupState):
 *  Empty: no members; accepts joins (starting the initial delayed rebalance)
 *    and group-less offset commits; exits to PreparingRebalance or Dead.
 *  PreparingRebalance: join barrier; members rejoin until all known members
 *    have joined or the rebalance timeout removes the others; exits to
 *    CompletingRebalance (or Empty when nobody is left).
 *  CompletingRebalance: join answered, waiting for the leader's SyncGroup;
 *    exits to Stable, or back to PreparingRebalance on membership changes.
 *  Stable: assignment distributed; heartbeats keep members alive; any
 *    membership or metadata change goes back to PreparingRebalance.
 *  Dead: removed; every request is answered COORDINATOR_NOT_AVAILABLE.
 */
typedef enum { CLASSIC_EMPTY, CLASSIC_PREPARING_REBALANCE, CLASSIC_COMPLETING_REBALANCE, CLASSIC_STABLE, CLASSIC_DEAD } classic_state_t;

typedef kc_group_protocol_t classic_protocol_t;

/* A parked request: identity only, never a pointer to a connection. */
typedef struct {
    bool active;
    uint64_t conn_id;
    int32_t correlation_id;
    int16_t api_key;
    int16_t api_version;
} classic_parked_t;

/*
 * A member. Hard state (rebuilt by replay): member id, instance id, client
 * id/host, timeouts, the metadata of the selected protocol, the assignment.
 * Memory-only: the other protocols, parked join/sync, is_new.
 */
typedef struct {
    char *member_id;
    char *group_instance_id; /* NULL = dynamic member */
    char *client_id;
    char *client_host;
    int32_t rebalance_timeout_ms;
    int32_t session_timeout_ms;
    char *protocol_type;
    classic_protocol_t *protocols;
    int32_t nprotocols;
    uint8_t *assignment;
    int32_t assignment_len;
    classic_parked_t join;
    classic_parked_t sync;
    bool is_new;
    uint64_t seq;        /* insertion order in the group's member table */
    uint32_t id_hash;    /* Java hash of member_id */
} classic_member_t;

typedef struct {
    char **items;
    size_t n, cap;
} strset_t;

/*
 * A classic group. Hard state: group id, generation, protocol type/name,
 * leader, current state timestamp, members. Memory-only: state beyond
 * Empty/Stable, pending join/sync members, the awaiting count, the initial
 * delay flag and the subscribed topics cache.
 */
struct kc_classic_group {
    kc_group_t base; /* first: the group abstraction (groups.h) */
    char *group_id;
    size_t group_id_len; /* a group id may hold NUL bytes: the map key is all of it */
    classic_state_t state;
    classic_state_t previous_state;
    int32_t generation_id;
    char *protocol_type; /* NULL = none */
    char *protocol_name; /* NULL = none */
    char *leader_id;     /* NULL = none */
    int64_t current_state_timestamp; /* -1 = unknown */
    /* Kept in the order Kafka's ClassicGroup iterates its members (a
     * java.util.HashMap keyed by member id): the JoinGroup member list,
     * DescribeGroups, the record and the choice of a new leader follow it. */
    classic_member_t **members;
    size_t nmembers, members_cap;
    uint32_t members_table_cap; /* that HashMap's capacity (0 before the first put) */
    uint64_t member_seq;
    strset_t pending_join;
    strset_t pending_sync;
    int32_t num_awaiting_join;
    bool new_member_added;
    bool subscribed_known;
    strset_t subscribed_topics;
    uint64_t table_seq; /* insertion order in Kafka's groups table (memory-only) */
};

#endif
