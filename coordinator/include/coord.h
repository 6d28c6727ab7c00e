/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator: the only public header of coordinator/.
 *
 * Pure code, as Kafka's GroupCoordinatorShard: a handler takes a decoded
 * request and the current time (ms), changes in-memory group state, and
 * appends to a kc_result_t the records to persist and the responses to send
 * (one request can release several parked ones, e.g. the last JoinGroup of a
 * rebalance). No sockets, no libevent, no LMDB, no clock reads: time is an
 * argument, and timers are an internal queue the caller drives with
 * kc_coord_next_deadline()/kc_coord_tick().
 *
 * The caller (server/) writes the records of every result of one loop
 * iteration in one storage transaction and sends the responses only after it
 * has committed; if the commit fails it sends each response's error_body
 * instead (when set) and reloads the coordinator from storage. A result
 * marked failed (something in it could not be encoded) is handled as a
 * failed commit: none of its records is written.
 */
#ifndef KC_COORD_H
#define KC_COORD_H

#include <stdbool.h>
#include <stdint.h>

#include "coord_config.h"
#include "kc_acl_codes.h"
#include "kc_common.h"
#include "kc_msgs.h"
#include "wire.h"

typedef struct kc_coord kc_coord_t;

/* kc_coord_config_t, the coordinator's settings, and the properties that
 * set them are declared in coord_config.h. */


/* Fills every field with its property's default (KC_COORD_PROPERTIES), Kafka's. */
void kc_coord_config_defaults(kc_coord_config_t *cfg);

/*
 * What the coordinator needs to know about topics, without owning them:
 * OffsetCommit answers UNKNOWN_TOPIC_OR_PARTITION for a topic that does not
 * exist (as KafkaApis does before calling the coordinator). Borrowed; must
 * outlive the coordinator.
 */
typedef struct {
    bool (*topic_exists)(void *ctx, kc_str_t topic);
    void *ctx;
    /* Optional (NULL: topic_exists is used, every partition exists and ids
     * are unknown). Partition count and topic id (all-zero if none) of an
     * existing topic; false when the topic does not exist. */
    bool (*topic_lookup)(void *ctx, kc_str_t topic, int32_t *partitions, kc_uuid_t *topic_id);
    /* Optional (NULL: no id resolves). Name of the topic with this id; the
     * view stays valid until the topic is deleted; false when unknown
     * (OffsetCommit/OffsetFetch v10 answer UNKNOWN_TOPIC_ID). */
    bool (*topic_id_to_name)(void *ctx, kc_uuid_t topic_id, kc_str_t *name);
    /* Optional (NULL: no topic is listed, so subscription regexes resolve to
     * nothing). Calls fn with the name of every existing topic; the names
     * are views valid during the call. */
    void (*topic_names)(void *ctx, void (*fn)(void *arg, kc_str_t name), void *arg);
    /* Optional (NULL: none). The message of the last failed creation of this
     * internal topic of a streams group while it is remembered (KafkaApis
     * keeps it for two heartbeat intervals), else NULL: a heartbeat that
     * needs the topic names the failure in its MISSING_INTERNAL_TOPICS detail
     * and does not ask for the topic again meanwhile. */
    const char *(*topic_creation_error)(void *ctx, kc_str_t topic, int64_t now_ms);
} kc_topic_view_t;

/* Identity of the request being handled; strings are views valid for the call. */
typedef struct {
    uint64_t conn_id;        /* never reused while kcoord runs; 0 = no connection */
    int32_t correlation_id;
    int16_t api_key;
    int16_t api_version;
    kc_str_t client_id;
    const char *client_host; /* "/127.0.0.1", as Kafka prints it */
    int64_t now_ms;
    const char *principal;   /* "User:ANONYMOUS"; NULL = none known */
    /*
     * Optional authorizer (NULL: everything is allowed, as Kafka without
     * authorizer.class.name): true when this request's principal may do op
     * (KC_OP_*, kc_acl_codes.h) on the resource (KC_RES_*, name). The
     * coordinator asks where Kafka's KafkaApis asks before calling its group
     * coordinator (topics of OffsetCommit/OffsetFetch/OffsetDelete, the
     * groups of batched requests, ListGroups' filter).
     */
    bool (*authorize)(const void *arg, const char *principal, const char *host, int8_t op,
                      int8_t resource_type, kc_str_t name);
    const void *authorize_arg;
} kc_request_ctx_t;

/* ctx->authorize, or true when there is none. */
bool kc_request_authorized(const kc_request_ctx_t *ctx, int8_t op, int8_t resource_type,
                           kc_str_t name);
/* Kafka's authorizedOperations: the bits (1 << KC_OP_*) of candidates allowed on the resource. */
int32_t kc_request_authorized_ops(const kc_request_ctx_t *ctx, int8_t resource_type,
                                  kc_str_t name, int32_t candidates);

/* One record: key and value bytes as Kafka lays them out in __consumer_offsets
 * (int16 type + key struct; int16 version + value struct). Tombstone: no value. */
typedef struct {
    kc_buf_t key;
    kc_buf_t value;
    bool tombstone;
} kc_record_t;

/* One response ready to send: body only; net/ adds the size and header. */
typedef struct {
    uint64_t conn_id;
    int32_t correlation_id;
    int16_t api_key;
    int16_t api_version;
    /* Empty only in a failed result, when the body could not be encoded:
     * then it is never sent (error_body is, or, without one, the connection
     * is closed). */
    kc_buf_t body;
    /* Non-empty: the body to send instead when the records of the same
     * result fail to commit (e.g. every partition COORDINATOR_NOT_AVAILABLE). */
    kc_buf_t error_body;
} kc_response_t;

/* Output of one call; the caller owns it (init, consume, deinit). */
typedef struct {
    kc_record_t *records;
    size_t nrecords, records_cap;
    kc_response_t *responses;
    size_t nresponses, responses_cap;
    /* A record or a response body of this result could not be encoded (it
     * was dropped and logged). The caller must commit none of the records
     * and treat the result as a failed commit: reload the coordinator, whose
     * memory may hold what the dropped record described, and send the
     * error bodies. Stays set until kc_result_reset. */
    bool failed;
} kc_result_t;

void kc_result_init(kc_result_t *res);
void kc_result_deinit(kc_result_t *res);
/* Drops the content and the failed mark, keeps the memory. */
void kc_result_reset(kc_result_t *res);
/* Appends a record, taking the bytes of key and value (value NULL =
 * tombstone); the buffers are left empty and reusable. */
void kc_result_add_record(kc_result_t *res, kc_buf_t *key, kc_buf_t *value);

/* Ownership: the config is copied; topics is borrowed. */
kc_coord_t *kc_coord_new(const kc_coord_config_t *cfg, const kc_topic_view_t *topics);
void kc_coord_free(kc_coord_t *c);
/* Seeds the generator of member ids ("<client id>-<uuid>"); the server seeds
 * it from the system's entropy, tests with a constant. */
void kc_coord_seed(kc_coord_t *c, uint64_t seed);

/*
 * A group's dynamic configs that the coordinator acts on (Kafka's GroupConfig
 * as GroupConfigManager hands it to GroupMetadataManager): each field is the
 * group's override, or -1 when it has none and the broker's property
 * applies. The caller has validated them and bounded them by the broker's
 * group.*.min/max properties (GroupConfig.validate and evaluate).
 */
typedef struct {
    int32_t consumer_session_timeout_ms;
    int32_t consumer_heartbeat_interval_ms;
    int32_t streams_session_timeout_ms;
    int32_t streams_heartbeat_interval_ms;
    int32_t streams_num_standby_replicas;
    int32_t streams_initial_rebalance_delay_ms;
    int32_t streams_assignment_interval_ms;
    int32_t streams_task_offset_interval_ms;
    int64_t streams_acceptable_recovery_lag;
} kc_group_overrides_t;

/* Every field unset (-1). */
void kc_group_overrides_init(kc_group_overrides_t *o);

/*
 * Sets the overrides of group_id (copied; o NULL or all unset removes them),
 * as GroupConfigManager.updateGroupConfig: the server calls it for every
 * stored group config at start-up and after each change. A group need not
 * exist, and the overrides outlive it (and kc_coord_unload). They are read
 * where Kafka reads them, so a change acts from the group's next heartbeat
 * on: the heartbeat interval and the session timeout given to the member
 * answered (its session timer is re-armed with the new timeout), and in
 * streams groups the number of standby replicas (a change recomputes the
 * target assignment, as a change of Kafka's assignment configs does), the
 * initial rebalance delay of an empty group's first member, the assignment
 * interval, the task offset interval and the acceptable recovery lag.
 */
void kc_coord_set_group_overrides(kc_coord_t *c, kc_str_t group_id, const kc_group_overrides_t *o);

/*
 * Loading, as Kafka's coordinator loads __consumer_offsets: replay each
 * stored record in commit order, then call kc_coord_loaded(). Until then
 * every group request is answered COORDINATOR_LOAD_IN_PROGRESS.
 * kc_coord_replay returns 0, or KC_EINVAL for a record it cannot parse (the
 * caller logs it and goes on). value NULL = tombstone.
 */
int kc_coord_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                    size_t value_len);
/* Ends loading and arms timers (Kafka's onLoaded). */
void kc_coord_loaded(kc_coord_t *c, int64_t now_ms);
bool kc_coord_is_loaded(const kc_coord_t *c);
/*
 * Unloads every group, answering every parked request NOT_COORDINATOR into
 * res, and returns to the loading state (used after a failed commit, before
 * a fresh replay).
 */
void kc_coord_unload(kc_coord_t *c, kc_result_t *res);

/* Timers: earliest deadline in ms (INT64_MAX if none); tick fires all due. */
int64_t kc_coord_next_deadline(const kc_coord_t *c);
void kc_coord_tick(kc_coord_t *c, int64_t now_ms, kc_result_t *res);

/*
 * Request handlers. Each answers (now, or later through another call's
 * result) exactly once for every request it is given. Versions are those of
 * ctx->api_version; the request was decoded at that version.
 */
/* JoinGroup v0-9; Kafka's classic group join (GroupMetadataManager.classicGroupJoin). */
void kc_coord_join_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                         const kc_join_group_request_t *req, kc_result_t *res);
/* SyncGroup v0-5; classicGroupSync. */
void kc_coord_sync_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                         const kc_sync_group_request_t *req, kc_result_t *res);
/* Heartbeat v0-4; classicGroupHeartbeat. */
void kc_coord_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                        const kc_heartbeat_request_t *req, kc_result_t *res);
/* LeaveGroup v0-5 (batched members from v3); classicGroupLeave. */
void kc_coord_leave_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                          const kc_leave_group_request_t *req, kc_result_t *res);
/* OffsetCommit v0-10; OffsetMetadataManager.commitOffset. */
void kc_coord_offset_commit(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_offset_commit_request_t *req, kc_result_t *res);
/*
 * TxnOffsetCommit v0-6 (KafkaApis' topic checks and
 * OffsetMetadataManager.commitTransactionalOffset): each offset becomes a
 * pending offset of req->producer_id (kcoord's record type 100), invisible
 * to OffsetFetch until kc_coord_txn_offsets_end commits it. txn_error: the
 * transaction coordinator's verdict on the producer and its transaction,
 * got by the caller (KC_ERR_NONE, or the error of every partition that
 * passed the topic checks).
 */
void kc_coord_txn_offset_commit(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                const kc_txn_offset_commit_request_t *req, int16_t txn_error,
                                kc_result_t *res);
/*
 * The marker of producer_id's transaction in __consumer_offsets partition
 * offsets_partition: commit makes the producer's pending offsets of the
 * groups of that partition committed offsets, abort drops them (records
 * into res, applied). Nothing when the producer holds none.
 */
void kc_coord_txn_offsets_end(kc_coord_t *c, int64_t producer_id, bool commit,
                              int32_t offsets_partition, kc_result_t *res);
/* Calls fn with each group producer_id holds pending offsets of (not in a
 * stable order; the id borrowed for the call); fn must not change c. */
void kc_coord_txn_pending_groups(kc_coord_t *c, int64_t producer_id,
                                 void (*fn)(void *ctx, kc_str_t group_id), void *ctx);
/* The __consumer_offsets partition of a group (Kafka's partitionFor), for
 * AddOffsetsToTxn. */
int32_t kc_coord_offsets_partition_for(const kc_coord_t *c, kc_str_t group_id);
/* OffsetFetch v0-10 (batched groups from v8); RequireStable (v7+) answers
 * UNSTABLE_OFFSET_COMMIT for a partition a transaction holds an offset of. */
void kc_coord_offset_fetch(kc_coord_t *c, const kc_request_ctx_t *ctx,
                           const kc_offset_fetch_request_t *req, kc_result_t *res);
/* OffsetDelete v0. */
void kc_coord_offset_delete(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_offset_delete_request_t *req, kc_result_t *res);
/* DescribeGroups v0-6. */
void kc_coord_describe_groups(kc_coord_t *c, const kc_request_ctx_t *ctx,
                              const kc_describe_groups_request_t *req, kc_result_t *res);
/* ListGroups v0-5 (states filter v4, types filter v5). */
void kc_coord_list_groups(kc_coord_t *c, const kc_request_ctx_t *ctx,
                          const kc_list_groups_request_t *req, kc_result_t *res);
/* DeleteGroups v0-3. */
void kc_coord_delete_groups(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_delete_groups_request_t *req, kc_result_t *res);

/* ConsumerGroupHeartbeat v0-1 (KIP-848); GroupMetadataManager.consumerGroupHeartbeat:
 * join (epoch 0), heartbeat, leave (-1), static leave (-2). */
void kc_coord_consumer_group_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                       const kc_consumer_group_heartbeat_request_t *req,
                                       kc_result_t *res);
/* ConsumerGroupDescribe v0-1. */
void kc_coord_consumer_group_describe(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                      const kc_consumer_group_describe_request_t *req,
                                      kc_result_t *res);

/* An internal topic of a streams group that does not exist yet and that the
 * caller creates (Kafka's KafkaApis creates the topics the heartbeat result
 * lists) with the topic configs the topology gives it (cleanup.policy,
 * retention.ms, ... and the application's topic.* settings).
 * replication_factor -1 = the broker's default. */
typedef struct {
    char *name; /* owned */
    int32_t partitions;
    int16_t replication_factor;
    char **config_names;  /* nconfigs names, owned */
    char **config_values; /* their values, owned */
    size_t nconfigs;
} kc_streams_topic_to_create_t;

typedef struct {
    kc_streams_topic_to_create_t *items; /* owned */
    size_t n;
} kc_streams_topics_to_create_t;

/* Frees the list's content (the struct itself is the caller's). NULL ok. */
void kc_streams_topics_to_create_deinit(kc_streams_topics_to_create_t *t);

/*
 * StreamsGroupHeartbeat v0-1 (KIP-1071); GroupMetadataManager.streamsGroupHeartbeat:
 * join (epoch 0, the first joiner's topology initialises the group's),
 * heartbeat, leave (-1), static leave (-2). When the group's topology needs
 * internal topics that do not exist, the response carries status
 * MISSING_INTERNAL_TOPICS and *create (when not NULL; zero-initialised by
 * the caller) receives them: the caller owns the list, creates the topics
 * and frees it with kc_streams_topics_to_create_deinit.
 */
void kc_coord_streams_group_heartbeat(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                      const kc_streams_group_heartbeat_request_t *req,
                                      kc_result_t *res, kc_streams_topics_to_create_t *create);
/* StreamsGroupDescribe v0-1. TopologyDescriptionStatus is NOT_REQUESTED, or
 * NOT_STORED when IncludeTopologyDescription is set: no store is asked here
 * (kc_coord_streams_group_describe_fetched in topology_desc.h serves the store's). */
void kc_coord_streams_group_describe(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                     const kc_streams_group_describe_request_t *req,
                                     kc_result_t *res);

/*
 * Streams groups for the topology-description store (KIP-1331): find a
 * group, read its current topology epoch (-1 = no topology) and the
 * StoredDescriptionTopologyEpoch / FailedDescriptionTopologyEpoch pair of
 * record 17 (>= 0 an epoch, -1 none, -2 uncertain; the barrier of
 * topology_desc.h changes them through the writer of the view
 * kc_coord_streams_group_view fills, the group keeps the one copy). The
 * setter writes a record 17 carrying both values into res, whose apply sets
 * them; the group is borrowed and valid until the next coordinator call.
 */
typedef struct kc_streams_group kc_streams_group_t;
/* NULL when there is no streams group of that id. */
kc_streams_group_t *kc_coord_streams_group_find(kc_coord_t *c, kc_str_t group_id);
int32_t kc_streams_group_topology_epoch(const kc_streams_group_t *g);
int32_t kc_streams_group_stored_description_epoch(const kc_streams_group_t *g);
int32_t kc_streams_group_failed_description_epoch(const kc_streams_group_t *g);
void kc_streams_group_set_description_epochs(kc_coord_t *c, kc_streams_group_t *g, int32_t stored,
                                             int32_t failed, kc_result_t *res);

/*
 * Read-only introspection for the admin views (no JSON here). Views are
 * valid during the callback only: strings are NUL-terminated, borrowed from
 * the coordinator; NULL = none. Nothing is changed and no record is written.
 */
typedef struct {
    const char *member_id;
    const char *group_instance_id; /* NULL = dynamic member */
    const char *client_id;
    const char *client_host;       /* "/127.0.0.1" */
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms;
    const uint8_t *assignment;     /* as the leader sent it in SyncGroup; may be NULL */
    int32_t assignment_len;
    bool awaiting_join;            /* a JoinGroup of this member is parked */
    bool awaiting_sync;            /* a SyncGroup of this member is parked */
    /* When the member's heartbeat (session) expiry fires, in ms on the
     * clock that drives the coordinator (the now_ms of its requests and
     * ticks); -1 = none armed. The same for the modern members below. */
    int64_t session_deadline_ms;
} kc_member_view_t;

/* Partitions of one topic in a consumer group member's assignment. */
typedef struct {
    kc_uuid_t topic_id;
    const char *topic;          /* NULL when no topic has that id (any more) */
    const int32_t *partitions;  /* ascending */
    int32_t npartitions;
} kc_topic_partitions_view_t;

/* A member of a consumer (KIP-848) group. */
typedef struct {
    const char *member_id;
    const char *instance_id;    /* NULL = dynamic member */
    const char *rack_id;        /* NULL = none */
    const char *client_id;
    const char *client_host;
    int32_t member_epoch;
    int32_t previous_member_epoch;
    const char *state;          /* Kafka's MemberState: "stable", "unrevoked_partitions", ... */
    int32_t rebalance_timeout_ms;
    int64_t session_deadline_ms; /* the session timeout's deadline; -1 = none armed */
    const char *server_assignor; /* NULL = none asked for */
    const char *const *subscribed_topics; /* names, sorted */
    int32_t nsubscribed_topics;
    const char *subscribed_regex; /* NULL = none */
    const kc_topic_partitions_view_t *assigned;
    int32_t nassigned;
    const kc_topic_partitions_view_t *pending_revocation;
    int32_t npending_revocation;
    const kc_topic_partitions_view_t *target;
    int32_t ntarget;
} kc_consumer_member_view_t;

/* The partitions (tasks) of one subtopology of a streams group. */
typedef struct {
    const char *subtopology_id;
    const int32_t *partitions; /* ascending */
    int32_t npartitions;
} kc_subtopology_tasks_view_t;

/* Active, standby and warm-up tasks of a streams group member, each sorted
 * by subtopology id (Kafka's TasksTuple). */
typedef struct {
    const kc_subtopology_tasks_view_t *active, *standby, *warmup;
    int32_t nactive, nstandby, nwarmup;
} kc_tasks_view_t;

/* A member of a streams (KIP-1071) group. */
typedef struct {
    const char *member_id;
    const char *instance_id;   /* NULL = dynamic member */
    const char *rack_id;       /* NULL = none */
    const char *client_id;
    const char *client_host;
    const char *process_id;
    const char *user_endpoint_host; /* NULL = no user endpoint */
    int32_t user_endpoint_port;
    int32_t member_epoch;
    int32_t previous_member_epoch;
    const char *state;         /* Kafka's MemberState: "stable", "unrevoked_tasks", "unreleased_tasks" */
    int32_t topology_epoch;    /* the topology epoch the member last sent */
    int32_t rebalance_timeout_ms;
    int64_t session_deadline_ms; /* the session timeout's deadline; -1 = none armed */
    kc_tasks_view_t assigned;
    kc_tasks_view_t pending_revocation;
    kc_tasks_view_t target;
} kc_streams_member_view_t;

typedef struct {
    const char *group_id;
    const char *type;          /* "classic", "consumer" or "streams" */
    const char *state;         /* Kafka's state name, e.g. "PreparingRebalance", "Reconciling" */
    int32_t generation_id;     /* classic; a consumer group's group epoch */
    const char *protocol_type; /* NULL = none */
    const char *protocol_name; /* NULL = none */
    const char *leader_id;     /* NULL = none */
    const kc_member_view_t *members; /* classic groups */
    size_t nmembers;
    /* Consumer groups only (type "consumer"): */
    int32_t group_epoch;
    int32_t assignment_epoch;
    const char *assignor;      /* the server assignor the group uses */
    const kc_consumer_member_view_t *consumer_members;
    size_t nconsumer_members;
    /* Streams groups only (type "streams"; group_epoch, assignment_epoch
     * and assignor above apply too): -1 = no topology yet. */
    int32_t topology_epoch;
    /* The topology-description store's StoredDescriptionTopologyEpoch and
     * FailedDescriptionTopologyEpoch (>= 0 an epoch, -1 none, -2 uncertain). */
    int32_t stored_description_epoch;
    int32_t failed_description_epoch;
    /* The group's topology as its StreamsGroupTopologyRecord holds it
     * (subtopologies with their source, repartition and changelog topics),
     * borrowed for the call; NULL = none yet. */
    const kc_streams_group_topology_value_t *topology;
    const kc_streams_member_view_t *streams_members;
    size_t nstreams_members;
} kc_group_view_t;

typedef void (*kc_group_view_fn)(void *arg, const kc_group_view_t *g);
/* Calls fn for every group (classic, consumer, then streams), in no particular order. */
void kc_coord_inspect_groups(kc_coord_t *c, kc_group_view_fn fn, void *arg);
/* Calls fn for the group of that id; false (fn not called) when there is none. */
bool kc_coord_inspect_group(kc_coord_t *c, kc_str_t group_id, kc_group_view_fn fn, void *arg);

typedef struct {
    const char *topic;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;        /* -1 = none */
    int64_t commit_timestamp_ms;
    const char *metadata;        /* not NUL-terminated; metadata_len bytes */
    int32_t metadata_len;
} kc_offset_view_t;

/* Calls fn for every committed offset of the group (none: fn not called). */
void kc_coord_inspect_offsets(kc_coord_t *c, kc_str_t group_id,
                              void (*fn)(void *arg, const kc_offset_view_t *o), void *arg);

/* Deleting a topic removes its committed offsets in every group (tombstones). */
void kc_coord_topic_deleted(kc_coord_t *c, kc_str_t topic, int64_t now_ms, kc_result_t *res);
/* A topic was created: the next heartbeat of a consumer group subscribed by
 * regex refreshes the group's resolved regexes (Kafka's
 * lastMetadataImageWithNewTopics in GroupMetadataManager.onMetadataUpdate).
 * Writes nothing. */
void kc_coord_topic_created(kc_coord_t *c, kc_str_t topic);
/* A topic's partition count changed (CreatePartitions) or it was deleted
 * (kc_coord_topic_deleted calls it): consumer groups subscribed to it
 * compute their metadata hash again on their next heartbeat (Kafka's
 * requestMetadataRefresh). Writes nothing. */
void kc_coord_topic_updated(kc_coord_t *c, kc_str_t topic);

/*
 * Optional event sink (metrics, the admin event ring). The coordinator calls
 * fn synchronously, from inside the call that caused the event, for classic,
 * consumer and streams groups once loading is done (never during replay). For a
 * consumer or streams group generation_id carries the group epoch; MEMBER_REMOVED is a
 * leave or a fence (reason says which), SESSION_EXPIRED a session timeout. The event and its
 * strings are borrowed for the duration of the call; fn must not call back
 * into the coordinator.
 */
typedef enum {
    KC_COORD_EV_MEMBER_JOINED,       /* a new member joined (member_id) */
    KC_COORD_EV_REBALANCE_STARTED,   /* -> PreparingRebalance (reason) */
    KC_COORD_EV_REBALANCE_COMPLETED, /* PreparingRebalance -> CompletingRebalance: the
                                      * new generation_id, duration_ms since it started */
    KC_COORD_EV_MEMBER_REMOVED,      /* left, fenced or timed out (member_id, reason) */
    KC_COORD_EV_SESSION_EXPIRED,     /* a member's session timed out (member_id) */
    KC_COORD_EV_GROUP_DELETED,       /* DeleteGroups or offsets expiry */
    KC_COORD_EV_GROUP_EPOCH_BUMPED,  /* consumer group: new group epoch (reason) */
    /* The transaction coordinator's (txn.h, kc_txn_set_event_sink), about
     * transactional_id; group_id NULL. reason of the aborts: "client"
     * (EndTxn), "timed_out", "producer_fenced" or "loaded" (a PrepareAbort
     * completed after a load). */
    KC_COORD_EV_TXN_BEGUN,           /* Empty/Complete* -> Ongoing: first partitions added */
    KC_COORD_EV_TXN_PREPARE_COMMIT,  /* -> PrepareCommit */
    KC_COORD_EV_TXN_PREPARE_ABORT,   /* -> PrepareAbort (reason) */
    KC_COORD_EV_TXN_COMMITTED,       /* -> CompleteCommit, markers written; duration_ms since it began */
    KC_COORD_EV_TXN_ABORTED,         /* -> CompleteAbort (reason); duration_ms since it began */
    KC_COORD_EV_TXN_TIMED_OUT,       /* Ongoing past its timeout: the coordinator aborts it */
    KC_COORD_EV_TXN_PRODUCER_FENCED, /* InitProducerId while Ongoing: aborted, producer fenced */
    KC_COORD_EV_COUNT
} kc_coord_event_type_t;

/* The first transaction event type: those before it are group events. */
#define KC_COORD_EV_FIRST_TXN KC_COORD_EV_TXN_BEGUN

typedef struct {
    kc_coord_event_type_t type;
    const char *group_id;
    const char *member_id;  /* NULL when the event is about the group */
    const char *reason;     /* NULL = none */
    int32_t generation_id;  /* the group's generation after the event */
    int64_t duration_ms;    /* REBALANCE_COMPLETED and the transaction ends only, else 0 */
    int64_t time_ms;        /* the coordinator's now_ms of the event */
    const char *group_type; /* "classic", "consumer" or "streams"; NULL when the
                               coordinator holds no group of that id */
    const char *transactional_id; /* transaction events only, else NULL */
    int64_t producer_id;          /* transaction events: after the change; else -1 */
    int16_t producer_epoch;       /* likewise */
} kc_coord_event_t;

typedef void (*kc_coord_event_fn)(void *arg, const kc_coord_event_t *ev);
/* fn NULL removes the sink. */
void kc_coord_set_event_sink(kc_coord_t *c, kc_coord_event_fn fn, void *arg);
/* "member_joined", "rebalance_started", ..., "transaction_begun", ...; "unknown" out of range. */
const char *kc_coord_event_name(kc_coord_event_type_t type);

#endif
