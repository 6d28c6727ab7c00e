/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology-description barrier of KIP-1331 / KAFKA-20748, as pure
 * coordinator code: no threads, no libevent, no store calls, time passed in.
 *
 * A streams group hands its topology description to an external store
 * (include/kcoord/topology_store.h). The store is a side effect outside the
 * coordinator's transaction, so the group keeps, in its metadata record
 * (StreamsGroupMetadataValue, type 17, tagged field 2), what the store holds:
 *
 *   StoredDescriptionTopologyEpoch  >= 0  the store holds that epoch's description
 *                                   -1    the store holds nothing
 *                                   -2    uncertain: an operation touching the
 *                                         store was started and may not have finished
 *
 * and (tagged field 3) FailedDescriptionTopologyEpoch, the last epoch the
 * store rejected for good. Every operation that disturbs the store (a client
 * push, the periodic cleanup of expired empty groups, DeleteGroups, and the
 * conversion of an empty streams group to a classic group) runs in three
 * steps:
 *
 *   1. *_begin: writes -2 (a record appended to the caller's result) and
 *      returns an op describing the store call to make;
 *   2. the caller commits that result durably, THEN makes the store call
 *      (off the event loop), never before;
 *   3. kc_topology_desc_complete: with the store's outcome, writes the final
 *      value (pushed epoch / -1 / failed epoch) and says what to answer.
 *
 * -2 reads as "absent" when deciding to solicit a push and as "present" when
 * deciding whether a delete is owed, so a crash between any two steps heals
 * itself: the client is asked to push again, or the cleanup deletes. Source:
 * Kafka's GroupMetadataManager (markStoredDescriptionTopologyEpochUncertain,
 * setStored/FailedDescriptionTopologyEpoch,
 * finalizeStoredDescriptionTopologyEpochAfterDelete), GroupCoordinatorService
 * (streamsGroupTopologyDescriptionUpdate, the cleanup cycle, DeleteGroups,
 * classic-join conversion) and StreamsGroupTopologyDescriptionManager/Backoff.
 *
 * The streams group embeds a kc_topology_desc_state_t, replays it from its
 * type-17 record with kc_topology_desc_replay, and answers lookups through
 * kc_topology_desc_groups_t (below), which is all this module needs from it.
 * The barrier changes the two epochs only by the type-17 records it has the
 * group write (kc_topology_desc_group_t.write), whose apply sets them, as
 * Kafka's runtime replays the records a handler returns.
 */
#ifndef KC_TOPOLOGY_DESC_H
#define KC_TOPOLOGY_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "coord.h"
#include "kcoord/topology_store.h"

#define KC_TOPOLOGY_DESC_EPOCH_NONE (-1)      /* StreamsGroup.STORED_TOPOLOGY_EPOCH_NONE */
#define KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN (-2) /* StreamsGroup.STORED_TOPOLOGY_EPOCH_UNCERTAIN */

/* StreamsGroupDescribe v1 TopologyDescriptionStatus. */
enum {
    KC_TOPOLOGY_DESC_STATUS_NOT_REQUESTED = 0,
    KC_TOPOLOGY_DESC_STATUS_NOT_STORED = 1,
    KC_TOPOLOGY_DESC_STATUS_ERROR = 2,
    KC_TOPOLOGY_DESC_STATUS_AVAILABLE = 3,
};

/*
 * Settings. Kafka hard-codes the back-off (StreamsGroupTopologyDescriptionBackoff:
 * 30 s, x2, 1 h, jitter 0.2); kcoord makes them properties:
 * group.streams.topology.description.backoff.initial.ms, ...backoff.max.ms,
 * ...backoff.jitter.percent.
 */
typedef struct {
    bool plugin_configured;     /* group.streams.topology.description.plugin is set */
    int64_t backoff_initial_ms; /* 30000 */
    int64_t backoff_max_ms;     /* 3600000 */
    int32_t backoff_jitter_percent; /* 20: each delay is drawn from +-20% around the term */
} kc_topology_desc_config_t;

void kc_topology_desc_config_defaults(kc_topology_desc_config_t *cfg);

/*
 * Per streams group, embedded in the group. stored_epoch and failed_epoch
 * are hard state (record type 17, tagged fields 2 and 3; rebuilt by replay);
 * the rest is memory-only, lost on restart as in Kafka (the persisted epochs
 * drive convergence after a restart).
 */
typedef struct {
    int32_t stored_epoch; /* StoredDescriptionTopologyEpoch: >= 0, -1 or -2 */
    int32_t failed_epoch; /* FailedDescriptionTopologyEpoch: -1 = none */
    /* Re-solicitation back-off (one entry per group, keyed by topology epoch). */
    bool backoff_armed;
    int32_t backoff_epoch;    /* the epoch the entry is for (-2: conversion delete) */
    int32_t backoff_attempts; /* 0 for the first window */
    int64_t backoff_until_ms; /* no solicitation before this */
    uint32_t ops_in_flight;   /* ops begun and not completed */
} kc_topology_desc_state_t;

/* stored -1, failed -1, no back-off, nothing in flight. */
void kc_topology_desc_state_init(kc_topology_desc_state_t *st);
/* Replay of a StreamsGroupMetadataValue: takes its T2/T3 (soft state kept). */
void kc_topology_desc_replay(kc_topology_desc_state_t *st, const kc_streams_group_metadata_value_t *v);
/* Sets v's T2/T3 from st: the streams group calls it whenever it writes its
 * own type-17 record (group epoch, metadata hash), so that record keeps the
 * barrier's epochs. */
void kc_topology_desc_fill_metadata(const kc_topology_desc_state_t *st,
                                    kc_streams_group_metadata_value_t *v);

/*
 * A streams group as the barrier sees it, filled by the streams group.
 * Views are valid until the next coordinator call.
 */
typedef struct {
    /* embedded in the group: the barrier changes its memory-only part, the
     * two epochs only through write below */
    kc_topology_desc_state_t *state;
    int32_t topology_epoch;          /* the group's current topology epoch; -1 = none yet */
    bool empty;                      /* no members */
    bool has_offsets;                /* committed offsets remain (cleanup waits for expiry) */
    /* The group's current type-17 value; its T2/T3 are ignored (the barrier
     * writes its own). Arrays must stay valid until the next coordinator call. */
    kc_streams_group_metadata_value_t metadata;
    /* The group's writer of its type-17 record: appends the record of value
     * v to res and applies it to the group, state included (the streams
     * group's writes through the coordinator, write_ctx, and its replay).
     * Returns 0 or the write's error (res then failed, nothing applied). */
    int (*write)(void *write_ctx, kc_str_t group_id, const kc_streams_group_metadata_value_t *v,
                 kc_result_t *res);
    void *write_ctx;
} kc_topology_desc_group_t;

/*
 * What the barrier's callers need from the streams group; the streams group
 * provides it (server/ passes it to the API 93 handler and the cleanup
 * cycle). Group ids are views valid for the call.
 */
typedef struct {
    void *ctx;
    /* 1 = a streams group (out filled), 0 = no group of that id, -1 = a group of another type. */
    int (*lookup)(void *ctx, kc_str_t group_id, kc_topology_desc_group_t *out);
    /* Whether member_id is currently a member of the streams group group_id. */
    bool (*has_member)(void *ctx, kc_str_t group_id, kc_str_t member_id);
    /* Calls fn for every streams group (the cleanup cycle); fn must not add or remove groups. */
    void (*foreach)(void *ctx, void (*fn)(void *arg, kc_str_t group_id), void *arg);
} kc_topology_desc_groups_t;


/* Module object: settings and the jitter generator. */
typedef struct kc_topology_desc kc_topology_desc_t;
kc_topology_desc_t *kc_topology_desc_new(const kc_topology_desc_config_t *cfg, uint64_t seed);
void kc_topology_desc_free(kc_topology_desc_t *m); /* NULL accepted */
bool kc_topology_desc_enabled(const kc_topology_desc_t *m);

/*
 * Has the group write its type-17 record: metadata with
 * StoredDescriptionTopologyEpoch = stored and FailedDescriptionTopologyEpoch
 * = failed, whose apply sets the group's state to them (g->write).
 * Kafka's newStreamsGroupMetadataRecord.
 */
void kc_topology_desc_write(kc_str_t group_id, kc_topology_desc_group_t *g, int32_t stored,
                            int32_t failed, kc_result_t *res);

/* ---- heartbeat and describe rules ----------------------------------- */

/*
 * StreamsGroupHeartbeat: whether to set TopologyDescriptionRequired
 * (Kafka's maybeSetTopologyDescriptionRequired). True when the request is
 * v1+, a store is configured, member_epoch >= 0 (not a leave), the response
 * carries no error and no STALE_TOPOLOGY status, the group has a topology
 * epoch, stored != epoch (-2 counts as not stored), failed != epoch and no
 * back-off window for this epoch is open; returning true opens one
 * (back-off: 30 s, doubling per solicitation of the same epoch, capped at 1 h).
 */
bool kc_topology_desc_solicit(kc_topology_desc_t *m, kc_topology_desc_state_t *st,
                              int16_t api_version, int32_t member_epoch, int16_t error_code,
                              bool stale_topology, int32_t topology_epoch, int64_t now_ms);

/*
 * StreamsGroupDescribe v1 with IncludeTopologyDescription, for a group
 * without error: NOT_STORED, or AVAILABLE meaning "ask the store" (get for
 * (group, topology_epoch)); then map the get's outcome with
 * kc_topology_desc_get_status. A store is asked only when one is
 * configured, the group has a topology and stored == its epoch (>= 0).
 */
int8_t kc_topology_desc_describe_status(const kc_topology_desc_t *m,
                                        const kc_topology_desc_state_t *st, bool has_topology,
                                        int32_t topology_epoch);
/* get outcome -> status: OK AVAILABLE, NOT_FOUND NOT_STORED, failures ERROR. */
int8_t kc_topology_desc_get_status(kc_topology_store_status_t status);

/* ---- operations ------------------------------------------------------ */

typedef enum {
    KC_TOPOLOGY_DESC_OP_PUSH,         /* StreamsGroupTopologyDescriptionUpdate: set */
    KC_TOPOLOGY_DESC_OP_CLEANUP,      /* periodic cleanup of an expired empty group: del */
    KC_TOPOLOGY_DESC_OP_DELETE_GROUP, /* DeleteGroups: del before the tombstones */
    KC_TOPOLOGY_DESC_OP_CONVERSION,   /* classic JoinGroup on an empty streams group: del */
} kc_topology_desc_op_kind_t;

/* One operation between its -2 write and its completion. Owned by the caller. */
typedef struct {
    kc_topology_desc_op_kind_t kind;
    bool call_set;            /* the store call: set (push) or del (the others) */
    char *group_id;           /* NUL-terminated copy */
    size_t group_id_len;
    int32_t topology_epoch;   /* push: the pushed epoch */
    kc_buf_t description;     /* push: the bytes to set (kc_topology_desc_encode) */
    uint64_t user;            /* the caller's, untouched (e.g. a parked request id) */
} kc_topology_desc_op_t;

void kc_topology_desc_op_free(kc_topology_desc_op_t *op); /* NULL accepted */

/*
 * Push validation, every check of StreamsGroupTopologyDescriptionUpdate
 * (API 93) in Kafka's order: GroupCoordinatorService's
 * (UNSUPPORTED_VERSION "The broker has no streams group topology
 * description plugin configured." when m is NULL or has no plugin;
 * INVALID_REQUEST "MemberId can't be empty." / "GroupId can't be empty.";
 * COORDINATOR_LOAD_IN_PROGRESS while not loaded), then
 * GroupMetadataManager.validateStreamsGroupTopologyDescriptionUpdate's:
 * 0, or GROUP_ID_NOT_FOUND ("Group <g> not found." / "Group <g> is not a
 * streams group."), UNKNOWN_MEMBER_ID ("Member <m> is not a member of group
 * <g>.") or INVALID_REQUEST ("Topology epoch <e> does not match the group's
 * current topology epoch <c>."), with the message in msg. lookup is the
 * result of kc_topology_desc_groups_t.lookup.
 */
int16_t kc_topology_desc_push_validate(const kc_topology_desc_t *m, bool loaded, int lookup,
                                       const kc_topology_desc_group_t *g, bool member_known,
                                       kc_str_t group_id, kc_str_t member_id,
                                       int32_t topology_epoch, char *msg, size_t msglen);

/*
 * Step 1 of a push: writes -2 unless stored already is -2 (from any stored
 * value, -1 included) and returns the op (call set). g NULL (the group
 * vanished since validation) returns NULL: answer GROUP_ID_NOT_FOUND "Group
 * <g> not found." and call no store. description/len (copied) are the
 * bytes of kc_topology_desc_encode.
 */
kc_topology_desc_op_t *kc_topology_desc_push_begin(kc_str_t group_id, kc_topology_desc_group_t *g,
                                                   int32_t topology_epoch,
                                                   const uint8_t *description, size_t len,
                                                   kc_result_t *res);

/*
 * Cleanup eligibility (GroupCoordinatorShard.listStreamsGroupsNeedingTopologyCleanup):
 * a store is configured, the group is empty, has no committed offsets left,
 * and stored != -1 (a real epoch or -2).
 */
bool kc_topology_desc_cleanup_eligible(const kc_topology_desc_t *m,
                                       const kc_topology_desc_group_t *g);
/*
 * Whether a store delete is owed before the group's records go: a store is
 * configured, the group is empty (DeleteGroups deletes only empty groups; a
 * classic JoinGroup converts only an empty one, GroupMetadataManager.
 * classicGroupJoin) and stored != -1 (-2 included).
 */
bool kc_topology_desc_delete_needed(const kc_topology_desc_t *m, const kc_topology_desc_group_t *g);
/* Whether the group may be tombstoned by expiry (StreamsGroup.shouldExpire):
 * not while a store is configured and stored != -1. */
bool kc_topology_desc_may_expire(const kc_topology_desc_t *m, const kc_topology_desc_state_t *st);
/* While true, answer the classic JoinGroup REBALANCE_IN_PROGRESS without
 * touching the store: a previous conversion delete failed and its back-off
 * window is open (Kafka's isConversionDeleteThrottled). */
bool kc_topology_desc_conversion_throttled(const kc_topology_desc_state_t *st, int64_t now_ms);

/*
 * Step 1 of the three deletes (markStoredDescriptionTopologyEpochUncertain
 * with markWhenNone = false): returns NULL, writing nothing, when g is
 * NULL, not empty (revived since the caller looked) or stored is -1
 * (nothing to delete); else writes -2 unless already -2 and returns the op
 * (call del). kind is CLEANUP, DELETE_GROUP or CONVERSION.
 */
kc_topology_desc_op_t *kc_topology_desc_delete_begin(kc_topology_desc_op_kind_t kind,
                                                     kc_str_t group_id,
                                                     kc_topology_desc_group_t *g,
                                                     kc_result_t *res);

/* What the caller does once an op completed. */
typedef struct {
    int16_t error_code;  /* for the client: see kc_topology_desc_complete */
    char message[256];   /* "" = null */
    /* DELETE_GROUP: go on and tombstone the group. CONVERSION: re-run the
     * classic join, converting, then call kc_topology_desc_finalize_after_delete. */
    bool proceed;
} kc_topology_desc_outcome_t;

/*
 * Step 3. g is the group looked up again now (NULL when it is gone or no
 * longer a streams group); status/message are the store's (message may be
 * NULL). Writes the final record into res and fills out:
 * - PUSH: OK -> stored = max(stored, epoch), or -2 if stored is -1 (a delete
 *   raced and cleared the barrier: re-solicit); NONE. PERMANENT -> failed =
 *   max(failed, epoch); STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED with the
 *   message. TRANSIENT -> no record, back-off armed/extended;
 *   STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED. Group gone (OK/PERMANENT)
 *   -> GROUP_ID_NOT_FOUND "Group <g> not found.".
 * - CLEANUP: OK -> finalize (-2 -> -1; a real epoch a racing push wrote ->
 *   -2). Failure -> nothing (stays -2; the next cycle retries).
 * - DELETE_GROUP: OK -> finalize, proceed. Failure -> GROUP_DELETION_FAILED
 *   "Topology description plugin failed to delete the topology." (map it
 *   with kc_topology_desc_deletion_error for DeleteGroups below v3).
 * - CONVERSION: OK -> proceed (no record yet). Failure -> back-off window
 *   for conversion, REBALANCE_IN_PROGRESS; the group stays streams at -2.
 */
void kc_topology_desc_complete(kc_topology_desc_t *m, const kc_topology_desc_op_t *op,
                               kc_topology_desc_group_t *g, kc_topology_store_status_t status,
                               const char *message, int64_t now_ms, kc_result_t *res,
                               kc_topology_desc_outcome_t *out);

/*
 * The cleanup finalize (finalizeStoredDescriptionTopologyEpochAfterDelete)
 * after a successful del: stored -2 -> -1; a real epoch -> -2; -1 or g NULL
 * -> nothing. (kc_topology_desc_complete clears the group's back-off.)
 */
void kc_topology_desc_finalize_after_delete(kc_str_t group_id, kc_topology_desc_group_t *g,
                                            kc_result_t *res);

/* DeleteGroups per-group code: GROUP_DELETION_FAILED exists from v3; older
 * versions get UNKNOWN_SERVER_ERROR (as KafkaApis maps it). */
int16_t kc_topology_desc_deletion_error(int16_t code, int16_t api_version);

/* Back-off helpers, exposed for tests and the conversion path. */
int64_t kc_topology_desc_backoff_delay(kc_topology_desc_t *m, int32_t attempts);
bool kc_topology_desc_backoff_active(const kc_topology_desc_state_t *st, int32_t epoch,
                                     int64_t now_ms);

/* ---- description bytes ------------------------------------------------ */

/*
 * The bytes handed to the store: int16 format version 0, then the
 * StoredTopologyDescription v0 message (the TopologyDescription structure
 * of API 93 v0). Appends to out; 0 or KC_EINVAL (a string too long).
 */
int kc_topology_desc_encode(const kc_streams_group_topology_description_update_request_topology_description_t *d,
                            kc_buf_t *out);
/*
 * Decodes stored bytes into the StreamsGroupDescribe v1 structure (views
 * into data; arrays from arena). 0, or KC_EINVAL for bytes that do not
 * decode (answer ERROR) or an unknown format version.
 */
int kc_topology_desc_decode(const uint8_t *data, size_t len, kc_arena_t *arena,
                            kc_streams_group_describe_response_topology_description_t *out);

/* ---- provided by the streams groups (coordinator/streams.c) ---------- */

/* Gives the coordinator the barrier (borrowed; NULL = no store): heartbeats
 * solicit pushes, describe reads the stored epoch, expiry waits for -1. */
void kc_coord_set_topology_desc(kc_coord_t *c, kc_topology_desc_t *m);
/* The real kc_topology_desc_groups_t over c's streams groups (ctx = c). */
void kc_coord_topology_desc_groups(kc_coord_t *c, kc_topology_desc_groups_t *out);
/* lookup of that interface: 1 streams group (out filled), 0 none (or not
 * loaded yet), -1 a classic or consumer group of that id. */
int kc_coord_streams_group_view(kc_coord_t *c, kc_str_t group_id, kc_topology_desc_group_t *out);

/* One store get answered for StreamsGroupDescribe (views borrowed for the call). */
typedef struct {
    kc_str_t group_id;
    int32_t topology_epoch;            /* the epoch asked for */
    kc_topology_store_status_t status; /* the get's outcome */
    const uint8_t *data;               /* OK: the stored bytes */
    size_t len;
} kc_topology_desc_fetched_t;

/*
 * StreamsGroupDescribe v0-1 with the gets already answered: a group whose
 * stored epoch equals its current topology epoch reports the fetched
 * entry of that group and epoch (AVAILABLE with the decoded description,
 * NOT_STORED, or ERROR; no entry = NOT_STORED); the other groups as
 * kc_coord_streams_group_describe. The caller asks the store first (the
 * describe is answered when every get completed, as Kafka's
 * GroupCoordinatorService.streamsGroupDescribe composes its futures).
 */
void kc_coord_streams_group_describe_fetched(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                             const kc_streams_group_describe_request_t *req,
                                             const kc_topology_desc_fetched_t *fetched,
                                             size_t nfetched, kc_result_t *res);

/* A group whose store delete failed, for DeleteGroups (views borrowed). */
typedef struct {
    kc_str_t group_id;
    int16_t error_code;  /* GROUP_DELETION_FAILED (mapped below v3) */
    const char *message; /* v3 ErrorMessage; NULL = none */
} kc_topology_desc_failed_t;

/*
 * DeleteGroups where the streams groups listed in failed keep their
 * records and answer their error (the store's delete failed, GroupCoordinatorService
 * .deleteGroups); everything else as kc_coord_delete_groups. The caller ran
 * the store deletes first, through the barrier.
 */
void kc_coord_delete_groups_failed(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                   const kc_delete_groups_request_t *req,
                                   const kc_topology_desc_failed_t *failed, size_t nfailed,
                                   kc_result_t *res);

#endif
