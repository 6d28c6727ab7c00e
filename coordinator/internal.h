/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Coordinator internals shared by its modules (classic groups, offsets,
 * timers, records). Not installed; nothing outside coordinator/ includes it.
 */
#ifndef KC_COORD_INTERNAL_H
#define KC_COORD_INTERNAL_H

#include <string.h>

#include "coord.h"
#include "groups.h"

/*
 * The error a client gets when the records its response depends on fail to
 * commit. The store is a local LMDB environment, so that is a storage
 * failure, which Kafka's coordinator maps to NOT_COORDINATOR
 * (CoordinatorOperationExceptionHelper): the client looks the coordinator up
 * again and retries.
 */
#define KC_COORD_ERR_WRITE_FAILED KC_ERR_NOT_COORDINATOR

/* ---- results -------------------------------------------------------- */

/* A timer's key "<prefix><group>-<member>" ("<prefix><group>" when
 * member_id is NULL), truncated to cap - 1 bytes as snprintf would. A group
 * id may hold any byte: each of its NUL, '\' and '-' bytes is written
 * after a '\' (NUL as '0'), so that two groups never share a key. Built on
 * every heartbeat, so no format parsing. */
void kc_timer_key(char *buf, size_t cap, const char *prefix, kc_str_t group_id,
                  const char *member_id);
/*
 * The fields of a record key: the type's <Type>Key message (version 0) takes
 * those its schema has. group_id always (GroupMetadataKey calls it Group);
 * member_id for the member records (types 5, 7, 8, 19, 21, 22); regex for
 * type 16 (RegularExpression); topic and partition for types 1 and 100,
 * and producer_id for type 100 (kcoord's pending transactional offset). Views,
 * borrowed for the call.
 */
typedef struct {
    kc_str_t group_id;
    kc_str_t member_id;
    kc_str_t regex;
    kc_str_t topic;
    int32_t partition;
    int64_t producer_id; /* type 100 (TxnOffsetCommit) */
} kc_record_key_t;

/*
 * The one way the coordinator writes a record (the writers of every group
 * type call it). Appends to res the record of type (KC_RECORD_*): key =
 * int16 type + the type's Key message built from key; value = int16
 * value_version + value, the generated Value struct of that type (e.g. a
 * kc_group_metadata_value_t for KC_RECORD_GROUP_METADATA) encoded at that
 * version; value NULL = tombstone. Returns 0, or the encoder's error
 * (KC_EINVAL, KC_EVERSION; KC_EINVAL for a type kcoord has no codec for):
 * then nothing is appended, the bytes built are discarded, one line names
 * the record and the error, and res is marked failed (kc_result_t.failed).
 */
int kc_record_write(kc_result_t *res, int16_t type, const kc_record_key_t *key,
                    int16_t value_version, const void *value);
/* The keys of the group records (types 2, 3, 4, 6, 17, 20, 23) and of the
 * member records (types 5, 7, 8, 19, 21, 22); strings borrowed, the group id
 * whole (it may hold NUL bytes). */
static inline kc_record_key_t kc_record_group_key(kc_str_t group_id)
{
    return (kc_record_key_t){.group_id = group_id};
}
static inline kc_record_key_t kc_record_member_key(kc_str_t group_id, const char *member_id)
{
    return (kc_record_key_t){.group_id = group_id, .member_id = kc_str(member_id)};
}
/*
 * Whether the response being built depends on records: true when a record
 * was appended since res held first records, or when res is failed (a
 * record that could not be encoded counts, so its response gets the error
 * body it would have had). Callers decide on it whether to give an error
 * body.
 */
bool kc_result_wrote_since(const kc_result_t *res, size_t first);
/*
 * The write of the modern groups (consumer, streams) and of committed
 * offsets, as Kafka's coordinator runtime has it: as kc_record_write, then
 * the record appended is applied to c's memory by its type's replay, the
 * function a load calls for every stored record (given value as the
 * decoded value, as Kafka's runtime replays the record objects it wrote).
 * Handlers change no state the records hold except through here, so live
 * state and a replay of the records cannot drift apart. Returns 0, the
 * encoder's error, or the replay's (res then failed, one line logged).
 * kc_record_write_encoded_replay takes the value's message already encoded
 * (the bytes after the version; copied), for the streams topology, whose
 * bytes the group also keeps to compare with later heartbeats.
 */
int kc_record_write_replay(kc_coord_t *c, kc_result_t *res, int16_t type,
                           const kc_record_key_t *key, int16_t value_version, const void *value);
int kc_record_write_encoded_replay(kc_coord_t *c, kc_result_t *res, int16_t type,
                                   const kc_record_key_t *key, int16_t value_version,
                                   const kc_buf_t *value);
/*
 * Answers the request of ctx (conn id, correlation id, api key and version):
 * msg is the generated response struct of ctx->api_key (e.g. a
 * kc_heartbeat_response_t for Heartbeat), encoded at ctx->api_version;
 * error_msg (NULL = none) the same struct with the answer to send instead
 * when the records of the batch fail to commit. Both are encoded now, views
 * in them may be released after the call. An encoding failure is not sent
 * half-written: the failing body is dropped with one log line and res is
 * marked failed; a response whose error body failed loses its body too (the
 * server then closes the connection rather than answer wrongly).
 */
void kc_result_respond(kc_result_t *res, const kc_request_ctx_t *ctx, const void *msg,
                       const void *error_msg);

/* ---- timers --------------------------------------------------------- */

/*
 * Timers are keyed like Kafka's ("heartbeat-<group>-<member>", "join-<group>",
 * "offsets-expiration"). Scheduling an existing key replaces it. A firing
 * timer receives its key and finds its target by name, so no pointer can
 * dangle.
 */
typedef void (*kc_timer_fn)(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res);
void kc_timer_schedule(kc_coord_t *c, const char *key, int64_t deadline_ms, kc_timer_fn fn);
void kc_timer_cancel(kc_coord_t *c, const char *key);
bool kc_timer_is_scheduled(const kc_coord_t *c, const char *key);
/* The deadline of the timer of key, in ms on the clock that drives the
 * coordinator (the now_ms of its requests and ticks); -1 when none is armed. */
int64_t kc_timer_deadline(const kc_coord_t *c, const char *key);

/* ---- coordinator state seen by its modules -------------------------- */

/* The offsets module's state (the pointer kc_offsets_new returned). */
void *kc_coord_offsets_state(kc_coord_t *c);
const kc_coord_config_t *kc_coord_config(const kc_coord_t *c);
const kc_topic_view_t *kc_coord_topic_view(const kc_coord_t *c);

/* ---- strings of the group types ------------------------------------- */

/* A NUL-terminated copy of s (which may hold NUL bytes; free it), NULL for
 * a null string. */
char *kc_str_dup_or_null(kc_str_t s);
/* Kafka's rule for an optional member field of a request: s sent (not
 * null) and different from the stored cur (NULL: unset) replaces it.
 * kc_str_changes says whether it would; kc_str_update replaces *slot with
 * a copy of s when it does and returns whether it did. */
static inline bool kc_str_changes(kc_str_t s, const char *cur)
{
    return s.len >= 0 && (!cur || strlen(cur) != (size_t)s.len ||
                          (s.len > 0 && memcmp(s.ptr, cur, (size_t)s.len) != 0));
}
bool kc_str_update(char **slot, kc_str_t s);

/* ---- the group types' ops (groups.h) --------------------------------- */

extern const kc_group_ops_t kc_classic_group_ops;  /* classic/classic.c */
extern const kc_group_ops_t kc_consumer_group_ops; /* consumer/consumer.c */
extern const kc_group_ops_t kc_streams_group_ops;  /* streams/streams.c */

/* Replay guard: whether a record of a group of that type may be replayed
 * for group_id. Kafka's replay fails ("not a consumer group") when a
 * group of another type holds the id, except a simple classic group (no
 * protocol type, no member), which gives way; kcoord skips such a record
 * as one it cannot parse. */
bool kc_group_replay_allowed(kc_coord_t *c, kc_str_t group_id, kc_group_type_t type);

/* ---- classic groups as seen by other modules ------------------------ */

typedef struct kc_classic_group kc_classic_group_t;

/* One protocol of a classic member (JoinGroup Protocols[]): name and
 * metadata (for "consumer": a ConsumerProtocolSubscription). */
typedef struct {
    char *name;
    uint8_t *metadata;
    int32_t metadata_len;
} kc_group_protocol_t;

/* NULL when there is no group of that id. */
kc_classic_group_t *kc_classic_group_find(kc_coord_t *c, kc_str_t group_id);
/* Finds or creates an Empty group with no protocol type ("simple" group of
 * group-less commits); creation writes no record (as Kafka). */
kc_classic_group_t *kc_classic_group_find_or_create(kc_coord_t *c, kc_str_t group_id);
bool kc_classic_group_is_empty_state(const kc_classic_group_t *g);   /* state Empty */
/* A "simple" group: Empty, no protocol type, no member, no pending join
 * (made by offsets alone); a group of another type replaces it. */
bool kc_classic_group_is_simple(const kc_classic_group_t *g);
/*
 * OffsetCommit validation for a classic group, as Kafka's
 * ClassicGroup.validateOffsetCommit: returns a Kafka error code (0 = accept):
 * COORDINATOR_NOT_AVAILABLE (Dead), UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID,
 * ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS.
 */
int16_t kc_classic_group_validate_offset_commit(kc_classic_group_t *g, kc_str_t member_id,
                                                kc_str_t group_instance_id,
                                                int32_t generation_id, bool is_transactional,
                                                int16_t api_version);
/* Extends the committing member's session, as a commit counts as a heartbeat;
 * called after a commit passed validation. Does nothing unless the group is
 * Stable or PreparingRebalance and member_id is one of its members (Kafka's
 * OffsetMetadataManager.validateOffsetCommit). */
void kc_classic_group_touch_member(kc_coord_t *c, kc_classic_group_t *g, kc_str_t member_id,
                                   int64_t now_ms);
/* True when the group's members (consumer protocol) subscribe to topic
 * (OffsetDelete: GROUP_SUBSCRIBED_TO_TOPIC). */
bool kc_classic_group_is_subscribed_to(const kc_classic_group_t *g, kc_str_t topic);
/* Offsets retention: whether the group's offsets may expire now and from
 * which time; Kafka's ClassicGroup.offsetExpirationCondition. Sets
 * *base_timestamp_ms to the current state timestamp of an Empty group that
 * has one, or to -1 meaning "each offset's own commit timestamp" (group
 * without protocol type, Stable consumer group with known subscriptions,
 * Empty group without a state timestamp). */
bool kc_classic_group_offsets_expire(const kc_classic_group_t *g, int64_t *base_timestamp_ms);
/* OffsetDelete validation (ClassicGroup.validateOffsetDelete): 0,
 * GROUP_ID_NOT_FOUND (Dead) or NON_EMPTY_GROUP (not Empty and its protocol
 * type is not "consumer"). */
int16_t kc_classic_group_validate_offset_delete(const kc_classic_group_t *g);
kc_str_t kc_classic_group_id(const kc_classic_group_t *g);
/* Removes an Empty classic group so that a group of another type takes its
 * id (Kafka's maybeDeleteEmptyClassicGroup): writes its tombstone into res
 * and returns true. With res NULL (replay) only a group without protocol
 * type (a "simple" group holding offsets) is dropped, from memory; Kafka's
 * getOrMaybeCreatePersistedStreamsGroup replaces those the same way. False
 * when there is no such group. Offsets are kept. */
bool kc_classic_group_delete_empty(kc_coord_t *c, kc_str_t group_id, kc_result_t *res);


/* ---- consumer (KIP-848) groups as seen by other modules ------------- */

typedef struct kc_consumer_group kc_consumer_group_t;

/* NULL when there is no consumer group of that id. */
kc_consumer_group_t *kc_consumer_group_find(kc_coord_t *c, kc_str_t group_id);
bool kc_consumer_group_is_empty(const kc_consumer_group_t *g);
/* DeleteGroups of a consumer group: writes its tombstones to res and frees
 * it (g is invalid afterwards). The caller checked that it is Empty and
 * deleted its offsets first, as Kafka's deleteGroups does. */
void kc_consumer_group_delete(kc_coord_t *c, kc_consumer_group_t *g, kc_result_t *res);
/* OffsetCommit and TxnOffsetCommit validation
 * (ConsumerGroup.validateOffsetCommit): 0, UNKNOWN_MEMBER_ID,
 * UNSUPPORTED_VERSION (a consumer-protocol member committing below
 * OffsetCommit v9) or STALE_MEMBER_EPOCH for an epoch newer than the
 * member's (ILLEGAL_GENERATION for a classic member). A negative epoch is
 * accepted while the group has no member, and a transactional commit
 * naming no member (epoch -1, no member id, no instance id) always. An
 * older epoch leaves *v (check NULL on entry) to judge each partition by
 * the epoch the member was assigned it at (KIP-1251, groups.h). */
int16_t kc_consumer_group_validate_offset_commit(kc_consumer_group_t *g, kc_str_t member_id,
                                                 kc_str_t group_instance_id, int32_t member_epoch,
                                                 bool transactional, int16_t api_version,
                                                 kc_commit_validator_t *v);

/* True when a member subscribes to topic by name or through a resolved
 * regex (ModernGroup.isSubscribedToTopic): OffsetDelete answers
 * GROUP_SUBSCRIBED_TO_TOPIC and retention keeps the topic's offsets. */
bool kc_consumer_group_is_subscribed_to(const kc_consumer_group_t *g, kc_str_t topic);

/* ---- classic <-> consumer interop (consumer_classic.c, classic.c) ------ */

/* A classic member as a conversion sees it; views borrowed from its owner. */
typedef struct {
    const char *member_id;
    const char *group_instance_id; /* NULL = dynamic */
    const char *client_id;
    const char *client_host;
    int32_t rebalance_timeout_ms;
    int32_t session_timeout_ms;
    const kc_group_protocol_t *protocols;
    int32_t nprotocols;
    const uint8_t *assignment; /* ConsumerProtocolAssignment bytes; may be empty */
    int32_t assignment_len;
} kc_classic_member_info_t;

/* Replay: drops the classic group of that id if it is a simple group (Empty,
 * no protocol type, no members; made for offsets replayed before the group's
 * records) so a consumer group can take the id, as Kafka's
 * getOrMaybeCreatePersistedConsumerGroup replaces it. Returns the dropped
 * group's groups-table number, which the new group takes over (its entry
 * stays, see kc_groups_table_put), or 0 when none was dropped. */
uint64_t kc_classic_group_drop_simple(kc_coord_t *c, kc_str_t group_id);
int32_t kc_classic_group_generation(const kc_classic_group_t *g);
const char *kc_classic_group_protocol_type(const kc_classic_group_t *g); /* NULL = none */
const char *kc_classic_group_protocol_name(const kc_classic_group_t *g); /* NULL = none */
/* Fills out (cap entries) with the members in Kafka's iteration order;
 * returns the member count. Views valid until the group changes. */
size_t kc_classic_group_members(const kc_classic_group_t *g, kc_classic_member_info_t *out,
                                size_t cap);
/* Removes a classic group that becomes a consumer group: parked JoinGroup
 * and SyncGroup requests are answered REBALANCE_IN_PROGRESS, its timers
 * cancelled, its tombstone written (convertToConsumerGroup's first half). */
void kc_classic_group_convert_away(kc_coord_t *c, kc_classic_group_t *g, int64_t now_ms,
                                   kc_result_t *res);
/*
 * Creates the classic group a consumer group becomes (ClassicGroup.
 * fromConsumerGroup + createClassicGroupRecords): state Stable, protocol
 * type "consumer", the given generation and members (copied) with their
 * assignments, the protocol chosen by vote; writes its record, arms the
 * members' heartbeats and, with a reason, starts a rebalance.
 */
void kc_classic_group_create_converted(kc_coord_t *c, const char *group_id, int32_t generation,
                                       const kc_classic_member_info_t *members, size_t n,
                                       const char *rebalance_reason, int64_t now_ms,
                                       kc_result_t *res);

/* The JoinGroup answer for a classic member of a consumer group. */
typedef struct {
    int16_t error_code;
    char *member_id;         /* heap copy the caller frees; NULL = "" (errors) */
    int32_t generation_id;   /* the member epoch; -1 on errors */
    char *protocol_name;     /* heap copy the caller frees; NULL on errors */
    bool depends_on_records;
} kc_classic_join_answer_t;

/* JoinGroup of a classic member to a non-empty consumer group
 * (classicGroupJoinToConsumerGroup); the caller sends the answer. */
void kc_consumer_classic_join(kc_coord_t *c, const kc_request_ctx_t *ctx,
                              kc_consumer_group_t *g, const kc_join_group_request_t *req,
                              kc_result_t *res, kc_classic_join_answer_t *out);
/* SyncGroup to a non-empty consumer group (classicGroupSyncToConsumerGroup):
 * returns the error, or 0 with the member's ConsumerProtocolAssignment
 * appended to assignment. */
int16_t kc_consumer_classic_sync(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                 kc_consumer_group_t *g, const kc_sync_group_request_t *req,
                                 kc_buf_t *assignment);
/* Heartbeat to a consumer group (classicGroupHeartbeatToConsumerGroup). */
int16_t kc_consumer_classic_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                      kc_consumer_group_t *g, const kc_heartbeat_request_t *req);
/* LeaveGroup members leaving a consumer group (classicGroupLeaveToConsumerGroup):
 * sets errors[i] per member and fences the valid ones together. g may be
 * freed (downgrade). */
void kc_consumer_classic_leave(kc_coord_t *c, const kc_request_ctx_t *ctx, kc_consumer_group_t *g,
                               const kc_str_t *member_ids, const kc_str_t *instance_ids,
                               const kc_str_t *reasons, int16_t *errors, int32_t n,
                               kc_result_t *res);
/* A classic JoinGroup to an empty consumer group: its tombstones are
 * written and it is freed, the join goes on as for a new classic group. */
void kc_consumer_classic_convert_empty(kc_coord_t *c, kc_consumer_group_t *g, kc_result_t *res);

/* ---- streams (KIP-1071) groups as seen by other modules -------------- */

/* Groups are found with kc_coord_streams_group_find (coord.h). */
bool kc_streams_group_is_empty(const kc_streams_group_t *g);
/* DeleteGroups: writes the group's tombstones (StreamsGroup.
 * createGroupTombstoneRecords order) and frees it; the caller checked that
 * it is Empty and deleted its offsets first. */
void kc_streams_group_delete(kc_coord_t *c, kc_streams_group_t *g, kc_result_t *res);
/* OffsetCommit and TxnOffsetCommit validation
 * (StreamsGroup.validateOffsetCommit): 0, UNKNOWN_MEMBER_ID,
 * UNSUPPORTED_VERSION (OffsetCommit below v9) or STALE_MEMBER_EPOCH (an
 * epoch newer than the member's, or an older one while the group has no
 * topology), with a message in msg. A transactional commit naming no
 * member (epoch -1, no member id, no instance id) is accepted. An older
 * epoch leaves *v (check NULL on entry) to judge each partition by the
 * epoch the member was assigned its task at (KIP-1251, groups.h). */
int16_t kc_streams_group_validate_offset_commit(kc_streams_group_t *g, kc_str_t member_id,
                                                kc_str_t group_instance_id, int32_t member_epoch,
                                                bool transactional, int16_t api_version,
                                                kc_commit_validator_t *v, char *msg, size_t cap);
/* OffsetDelete: whether a non-Empty group's topology reads the topic as a
 * source or repartition source topic (StreamsGroup.isSubscribedToTopic). */
bool kc_streams_group_is_subscribed_to(const kc_streams_group_t *g, kc_str_t topic);
/* Empty, NotReady, Assigning, Reconciling, Stable (static string). */
const char *kc_streams_group_state(const kc_streams_group_t *g);
/* Calls fn for every streams group; fn must not create or delete groups. */
void kc_streams_group_foreach(kc_coord_t *c, void (*fn)(kc_streams_group_t *g, void *arg),
                              void *arg);

/* ---- offsets as seen by the group modules --------------------------- */

/* Replays an offset record (types 0 and 1); value NULL = tombstone. */
int kc_offsets_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len, const void *msg);
bool kc_offsets_group_has_offsets(kc_coord_t *c, kc_str_t group_id);
/* Tombstones every offset of the group (DeleteGroups). */
void kc_offsets_delete_group(kc_coord_t *c, kc_str_t group_id, kc_result_t *res);
/* Arms the periodic retention check (called from kc_coord_loaded). */
void kc_offsets_loaded(kc_coord_t *c, int64_t now_ms);
/* Module state lifecycle, called by kc_coord_new/kc_coord_free/unload. */
void *kc_offsets_new(void);
void kc_offsets_free(void *offsets);

/* ---- streams groups: admin views and events (streams.c) ------------- */

/* Introspection (kc_coord_inspect_groups/_group) of streams groups: every
 * one, or the one of that id (false, fn not called, when none). */
void kc_streams_inspect_all(kc_coord_t *c, kc_group_view_fn fn, void *arg);
bool kc_streams_inspect_one(kc_coord_t *c, kc_str_t group_id, kc_group_view_fn fn, void *arg);
int32_t kc_streams_group_epoch(const kc_streams_group_t *g);
/* Removes the member of that id, if any (Kafka's streamsGroupFenceMember:
 * tombstones, group epoch bump) and emits ev (MEMBER_REMOVED or
 * SESSION_EXPIRED, with reason) then GROUP_EPOCH_BUMPED. */
void kc_streams_fence_member_event(kc_coord_t *c, kc_streams_group_t *g, const char *member_id,
                                   kc_coord_event_type_t ev, const char *reason, int64_t now_ms,
                                   kc_result_t *res);

#endif
