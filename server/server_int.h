/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Interface between the files of server/: the server state, the request
 * passed to handlers and the dispatch table. Not used outside server/.
 */
#ifndef KC_SERVER_INT_H
#define KC_SERVER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "coord.h"
#include "fetch_session.h"
#include "kc_acl.h"
#include "kc_common.h"
#include "kc_config.h"
#include "kc_msgs.h"
#include "kc_net.h"
#include "kc_server.h"
#include "log.h"
#include "store.h"
#include "topology_desc.h"
#include "topology_store.h"
#include "group_configs.h"
#include "topics.h"
#include "txn.h"
#include "wire.h"

struct event;
struct kc_credentials;

/*
 * A Fetch request waiting for MinBytes (Kafka's DelayedFetch): re-evaluated
 * after every commit that advanced a high watermark, answered with what is
 * there when MaxWaitMs passes. The request body is kept, the client id is not.
 */
typedef struct kc_parked_fetch {
    kc_server_t *srv;
    struct event *timer;
    kc_request_ctx_t ctx;
    kc_buf_t body;
    char *principal, *client_host; /* owned copies behind ctx's views (authorization) */
    struct kc_parked_fetch *next, *prev;
} kc_parked_fetch_t;

/* ---- fault injection (server/faults.c) ---- */

typedef enum {
    KC_FAULT_STALL, /* requests are queued unprocessed until until_ms, then drained in read order */
    KC_FAULT_ERROR, /* matching requests are answered error_code without being handled */
    KC_FAULT_DELAY, /* responses to matching requests are written delay_ms later */
    KC_FAULT_CLOSE, /* the connection of a matching request is closed without an answer */
    KC_FAULT_COORDINATOR, /* group APIs answer error_code (14, 15 or 16) until until_ms */
} kc_fault_kind_t;

/* One armed fault. Strings are owned (NULL = any). */
typedef struct kc_fault {
    int64_t id;
    kc_fault_kind_t kind;
    int16_t api_key;      /* -1 = every API (error and close need one) */
    int16_t error_code;   /* error */
    int64_t remaining;    /* requests it still applies to; -1 = no limit */
    int64_t delay_ms;     /* delay */
    int64_t until_ms;     /* monotonic ms when it expires; INT64_MAX = until cleared */
    char *group_id;       /* error/close/delay: only requests naming this group */
    char *client_id;      /* error/close/delay: only requests from this client id */
    uint64_t hits;
    struct kc_fault *next;
} kc_fault_t;

typedef struct kc_faults kc_faults_t;

/* Counters behind GET /metrics (server.c counts, admin.c prints). */
#define KC_METRICS_MAX_API 128
#define KC_METRICS_MAX_VERSION 32
#define KC_METRICS_LATENCY_BUCKETS 12
/* A latency histogram in seconds, cumulative buckets over kc_metrics_latency_bounds_s
 * (100 us to 1 s), as Prometheus prints it. */
typedef struct {
    uint64_t bucket[KC_METRICS_LATENCY_BUCKETS];
    uint64_t count;
    double sum_seconds;
} kc_latency_hist_t;
extern const double kc_metrics_latency_bounds_s[KC_METRICS_LATENCY_BUCKETS];
/* Counts one observation of us microseconds (negative counts as 0). */
void kc_latency_observe(kc_latency_hist_t *h, int64_t us);

typedef struct {
    uint64_t requests[KC_METRICS_MAX_API][KC_METRICS_MAX_VERSION];
    uint64_t bytes_in, bytes_out;        /* framed bytes, size prefix included */
    uint64_t connections_closed_by_fault;
    kc_latency_hist_t commit;            /* LMDB commit latency */
    /* From a coordinator timer's deadline to its firing (session, rebalance,
     * join, sync, assignment and streams timers). */
    kc_latency_hist_t timer_lateness;
} kc_metrics_t;

struct kc_server {
    const kc_config_t *cfg;
    struct event_base *base;
    kc_net_t *net;
    kc_store_t *store;
    kc_topics_t *topics;
    kc_group_configs_t *group_configs; /* dynamic group configs (server/group_configs.c) */
    kc_log_t *log;
    kc_coord_t *coord;
    kc_txn_coord_t *txn; /* the transaction coordinator (server/txn_api.c) */
    kc_topic_view_t topic_view;
    struct event *coord_timer;
    struct event *sigint_ev, *sigterm_ev;
    /* Records and responses produced during the current loop iteration. */
    kc_result_t batch;
    kc_result_t spare; /* the previous batch, emptied, kept for its memory */
    kc_parked_fetch_t *parked;
    kc_fetch_sessions_t *fetch_sessions;
    struct event *retention_timer;
    struct event *cleaner_timer;   /* the log cleaner; NULL when log.cleaner.enable=false */
    struct event *flush_timer;     /* log.flush.scheduler.interval.ms; NULL when never */
    int64_t last_flush_ms;         /* monotonic time of the last kc_store_sync */
    uint64_t coord_unflushed;      /* coordinator records committed since then */
    size_t retention_topic;        /* where the current retention pass stands */
    int32_t retention_partition;
    kc_arena_t arena; /* per request */
    uint32_t requests_seen; /* requests handed up in the current loop pass */
    kc_buf_t resp_head; /* scratch: the response header being sent */
    uint16_t bound_port;
    char adv_host[256];
    int32_t adv_port;
    bool stopping;
    kc_faults_t *faults;
    kc_metrics_t metrics;
    struct kc_admin *admin;
    struct delayed_response *delayed; /* responses held back by a delay fault */
    struct kc_topology_desc_glue *topology_desc; /* topology-description store; NULL = feature off */
    /* Security (server/security.c, server/sasl.c). */
    kc_security_protocol_t listener_protocol[KC_MAX_LISTENERS]; /* by cfg->listener index */
    uint16_t listener_port[KC_MAX_LISTENERS]; /* bound (or configured) port of each */
    kc_tls_t *tls;                         /* SSL and SASL_SSL listeners; NULL when none */
    struct kc_credentials *credentials;    /* sasl.credentials.file; NULL when unset */
    struct event *sighup_ev;
    kc_authorizer_t *authz; /* NULL = no authorizer (authorizer.class.name empty) */
    /* Internal topics of streams groups whose creation failed lately (group.c). */
    struct kc_topic_creation_error *topic_creation_errors;
    kc_store_dbi_t acl_dbi;
    bool acl_dbi_open;
};

/* The topic view's topic_creation_error (ctx: the server): the message of
 * the internal topic's failed creation while it is remembered, or NULL. */
const char *kc_topic_creation_error(void *ctx, kc_str_t topic, int64_t now_ms);
/* Forgets every remembered creation error (at shutdown). */
void kc_topic_creation_errors_free(kc_server_t *s);

/* One decoded request header plus what a handler needs. */
typedef struct {
    kc_server_t *srv;
    kc_request_ctx_t ctx;
    kc_reader_t *body; /* positioned after the request header */
    kc_arena_t *arena;
    kc_result_t *res; /* append the response(s) here */
} kc_req_t;

/* Returns 0, or KC_EINVAL when the body is malformed (the connection is closed). */
typedef int (*kc_handler_fn)(kc_req_t *req);

typedef struct {
    int16_t api_key;
    int16_t min_version;
    int16_t max_version;
    int16_t flexible_min; /* first flexible version; INT16_MAX if never */
    const char *name;
    kc_handler_fn handler;
} kc_api_entry_t;

/* The dispatch table, sorted by api key; ApiVersions is built from it. */
extern const kc_api_entry_t kc_api_table[];
extern const size_t kc_api_table_len;
const kc_api_entry_t *kc_api_find(int16_t api_key);

/* Appends a response (body copied from b) for req to req->res. */
kc_response_t *kc_req_respond(kc_req_t *req, const kc_buf_t *b);
/*
 * Appends the response a handler encoded into b, where rc is the encoder's
 * status, and frees b. Returns 0, or KC_EIO after logging an encoding
 * failure (the caller's connection is then closed rather than left muted).
 */
int kc_req_respond_encoded(kc_req_t *req, int rc, kc_buf_t *b);
/*
 * Answers req with Kafka's getErrorResponse(code) for its API and version,
 * generated from the response schema (net/proto: the code on every error
 * field, the request's arrays echoed). body is the request body as it was
 * before decoding. Returns as kc_req_respond_encoded.
 */
int kc_req_respond_error(kc_req_t *req, const kc_reader_t *body, int16_t code);

/* Broker handlers (server/broker.c). */
int kc_handle_api_versions(kc_req_t *req);
int kc_handle_metadata(kc_req_t *req);
int kc_handle_find_coordinator(kc_req_t *req);
int kc_handle_create_topics(kc_req_t *req);
int kc_handle_describe_cluster(kc_req_t *req);
/* kc_java_string_hash of a wire string (a null string hashes as empty). */
static inline int32_t kc_java_str_hash(kc_str_t s)
{
    return kc_java_string_hash(s.ptr, s.len > 0 ? (size_t)s.len : 0);
}
/* Orders idx[0..n) (indexes into hashes, the keys' Java hashes) as Scala's
 * immutable HashMap and HashSet, hash tries, iterate their keys. */
void kc_scala_hash_order(const int32_t *hashes, size_t *idx, size_t n);

/* Log handlers (server/log_api.c). */
int kc_handle_produce(kc_req_t *req);
int kc_handle_fetch(kc_req_t *req);
int kc_handle_list_offsets(kc_req_t *req);
int kc_handle_init_producer_id(kc_req_t *req);
int kc_handle_create_partitions(kc_req_t *req);
int kc_handle_delete_topics(kc_req_t *req);
int kc_handle_delete_records(kc_req_t *req);
/*
 * Writes a COMMIT (commit) or ABORT control batch of the producer into a
 * partition, in the open batch (the transaction coordinator's markers,
 * server/log_api.c). A partition of a topic that no longer exists is
 * skipped, as Kafka drops a partition without a leader. 0, or -1 (logged).
 */
int kc_server_write_txn_marker(kc_server_t *s, const char *topic, int32_t partition,
                               int64_t producer_id, int16_t producer_epoch, bool commit,
                               int16_t transaction_version);

/* Transaction handlers (server/txn_api.c). */
/* The transaction coordinator of a server, with the settings of cc. */
kc_txn_coord_t *kc_txn_api_new(kc_server_t *s, const kc_coord_config_t *cc);
/* InitProducerId with a transactional id (KafkaApis.handleInitProducerIdRequest
 * and TC.handleInitProducerId): a Kafka error code, with *pid and *epoch. */
int16_t kc_txn_api_init_producer_id(kc_req_t *req, const kc_init_producer_id_request_t *rq,
                                    int64_t *pid, int16_t *epoch);
int kc_handle_add_partitions_to_txn(kc_req_t *req);
int kc_handle_add_offsets_to_txn(kc_req_t *req);
int kc_handle_end_txn(kc_req_t *req);
int kc_handle_txn_offset_commit(kc_req_t *req);
int kc_handle_describe_transactions(kc_req_t *req);
int kc_handle_list_transactions(kc_req_t *req);
/* DescribeProducers: the producer states of partitions (server/txn_api.c). */
int kc_handle_describe_producers(kc_req_t *req);

/* Sets up fetch sessions and arms the retention task / frees them (server/log_api.c). */
void kc_log_api_start(kc_server_t *s);
void kc_log_api_stop(kc_server_t *s);
/* Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS. */
#define KC_FETCH_SESSION_EVICTION_MS 120000

/* Leader epochs (server/leader_epochs.c). */
int kc_handle_offset_for_leader_epoch(kc_req_t *req);
/*
 * At start: every partition becomes kcoord's at a new leader epoch, as far
 * on from its last one as Kafka's epochs are when its only broker restarts,
 * committed before anything is served (a store that refuses it leaves the
 * epochs as they were, logged).
 */
void kc_server_lead_partitions(kc_server_t *s);
/* A partition's current leader epoch; -1 when its log cannot be read. */
int32_t kc_server_leader_epoch(kc_server_t *s, const kc_topic_t *topic, int32_t partition);
/* Partition.checkCurrentLeaderEpoch of a client's epoch against the current
 * one: 0, FENCED_LEADER_EPOCH (older) or UNKNOWN_LEADER_EPOCH (newer). */
int16_t kc_leader_epoch_check(int32_t current, int32_t client);

/* Configs (server/configs.c). */
int kc_handle_describe_configs(kc_req_t *req);
/* Alter configs (server/alter_configs.c). */
int kc_handle_incremental_alter_configs(kc_req_t *req);
int kc_handle_alter_configs(kc_req_t *req);

/* ConfigResource.Type ids. */
#define KC_CONFIG_RESOURCE_TOPIC 2
#define KC_CONFIG_RESOURCE_BROKER 4
#define KC_CONFIG_RESOURCE_BROKER_LOGGER 8
#define KC_CONFIG_RESOURCE_CLIENT_METRICS 16
#define KC_CONFIG_RESOURCE_GROUP 32

/* DescribeConfigsResponse.ConfigType. */
enum {
    KC_CONFIG_TYPE_BOOLEAN = 1,
    KC_CONFIG_TYPE_STRING = 2,
    KC_CONFIG_TYPE_INT = 3,
    KC_CONFIG_TYPE_LONG = 5,
    KC_CONFIG_TYPE_DOUBLE = 6,
    KC_CONFIG_TYPE_LIST = 7,
};

/*
 * ConfigDef's parsing of a value of config name: type INT, LONG or BOOLEAN
 * (the value trimmed; min: the atLeast bound, INT64_MIN for none), or a
 * STRING that must be one of the comma-separated words. False with
 * Kafka's "Invalid value V for configuration N: reason" in msg.
 */
bool kc_config_value_check(const char *name, int8_t type, int64_t min, const char *words,
                           kc_str_t value, char *msg, size_t len);
/* Kafka's Topic.validate message for name (arena-owned), NULL when valid. */
const char *kc_topic_validate_message(kc_arena_t *a, kc_str_t name);
/* True when name is a topic config (LogConfig). */
bool kc_topic_config_known(kc_str_t name);
/* The default of a LIST topic config (cleanup.policy: "delete"), NULL for
 * another type or an unknown name. */
const char *kc_topic_config_list_default(const char *name);

/* ---- dynamic group configs (server/group_configs.c) ---- */

/* group.streams.max.standby.replicas, a constant in kcoord (Kafka's default). */
#define KC_STREAMS_MAX_STANDBY_REPLICAS 2

/* One config of Kafka 4.4's GroupConfig. */
typedef struct {
    const char *name;
    int8_t type;               /* KC_CONFIG_TYPE_* */
    bool internal;             /* defineInternal: described only when set */
    const char *default_value; /* GroupConfig's; NULL: null */
    int64_t at_least;          /* ConfigDef's atLeast bound, INT64_MIN for none */
    const char *broker_name;   /* the broker property it defaults to, NULL for none */
    const char *doc;
} kc_group_config_def_t;

/* GroupConfig.CONFIG_DEF, in definition order. */
extern const kc_group_config_def_t kc_group_config_defs[];
extern const size_t kc_group_config_ndefs;
/* The definition of name, NULL when GroupConfig has none. */
const kc_group_config_def_t *kc_group_config_def(kc_str_t name);
/* The i-th config in DescribeConfigs' order, NULL past the last. */
const kc_group_config_def_t *kc_group_config_describe_at(size_t i);
/*
 * GroupConfig.validate of a group's whole set of overrides (n pairs, values
 * not null): names, then values parsed in definition order, then the
 * broker's bounds (cfg's group.consumer.* and group.streams.* min/max,
 * Kafka's defaults for the properties kcoord lacks), the assignor name,
 * session timeout above heartbeat interval and the DLQ topic name. Returns
 * KC_ERR_NONE or KC_ERR_INVALID_CONFIG with Kafka's message in msg.
 */
int16_t kc_group_configs_check(const kc_config_t *cfg, size_t n, const kc_str_t *names,
                               const kc_str_t *values, char *msg, size_t len);
/* GroupConfigManager.updateGroupConfig: hands the stored overrides of
 * group_id, bounded by the broker's properties (GroupConfig.evaluate), to
 * the coordinator (none: clears them). */
void kc_group_configs_apply(kc_server_t *s, kc_str_t group_id);
/* The same for every group with stored configs (start-up, reload). */
void kc_group_configs_apply_all(kc_server_t *s);
/* The streams heartbeat interval of group_id in ms: its
 * streams.heartbeat.interval.ms bounded as above, else the broker's
 * group.streams.heartbeat.interval.ms. */
int32_t kc_group_streams_heartbeat_interval_ms(const kc_server_t *s, kc_str_t group_id);
/*
 * Checks the configs of a CreateTopics topic as LogConfig.validate does:
 * an unknown name or a null value, or a retention value that is not a Long
 * (retention.ms below -1), answers INVALID_CONFIG with a message in msg.
 * Returns the Kafka error code (0 = valid).
 */
/*
 * Fills r->configs (arena-owned) with every topic config and its effective
 * value for a topic created with the n config pairs names/values (already
 * checked), sorted by name, each with read-only false and its source
 * (TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG), as Kafka's
 * ReplicationControlManager answers CreateTopics v5+.
 */
void kc_topic_creation_configs(const kc_server_t *s, kc_arena_t *a, size_t n,
                               const kc_str_t *names, const kc_str_t *values,
                               kc_create_topics_response_creatable_topic_result_t *r);
int16_t kc_topic_configs_check(size_t n, const kc_str_t *names, const kc_str_t *values,
                               char *msg, size_t msglen);
/*
 * CreateTopics as Kafka's controller answers it (ControllerApis.createTopics,
 * ReplicationControlManager.createTopics), for req's principal. Names listed
 * more than once, the metadata log's name and names the principal may not
 * create leave the request; the rest are checked in Kafka's order (name,
 * existence, configs, placement) against the topics that existed before the
 * request, then created. *out (req's arena, *nout entries) lists them in
 * request order, then the duplicated names and then the refused ones, each
 * group in the order of Kafka's hash sets; a failed topic has its error code
 * and message there.
 */
void kc_create_topics_run(kc_req_t *req, const kc_create_topics_request_t *rq,
                          kc_create_topics_response_creatable_topic_result_t **out,
                          int32_t *nout);
/* Creates a topic with partitions and the n config pairs (already checked)
 * in the open transaction, and makes it known to the coordinator's topic
 * view, as Kafka's controller creates one; *out (may be NULL) the topic.
 * 0, or a store error (nothing to make known). */
int kc_topic_create(kc_server_t *s, kc_str_t name, int32_t partitions, size_t n,
                    const kc_str_t *names, const kc_str_t *values, const kc_topic_t **out);
/* A topic's effective retention.ms / retention.bytes (its override, else the broker's). */
int64_t kc_topic_retention_ms(const kc_server_t *s, const kc_topic_t *topic);
/* True when the topic's cleanup.policy (its override, else
 * log.cleanup.policy) includes delete (LogConfig.delete): retention and
 * DeleteRecords apply only then. */
bool kc_topic_cleanup_deletes(const kc_server_t *s, const kc_topic_t *topic);
/* True when it includes compact (LogConfig.compact): the log cleaner compacts it. */
bool kc_topic_cleanup_compacts(const kc_server_t *s, const kc_topic_t *topic);
/* Fills cfg (holding the broker's values) with a topic's overrides of the
 * configs the log acts on: max.message.bytes, message.timestamp.before.max.ms,
 * message.timestamp.after.max.ms, message.timestamp.type, flush.messages
 * (default log.flush.interval.messages), flush.ms (default
 * kc_config_log_flush_ms), and for compaction cleanup.policy, segment.bytes,
 * segment.ms, delete.retention.ms, min/max.compaction.lag.ms and
 * min.cleanable.dirty.ratio (defaults log.cleanup.policy, log.segment.bytes,
 * log.roll.ms/hours, log.cleaner.*). topic NULL: the broker's values. */
void kc_topic_log_config(const kc_server_t *s, const kc_topic_t *topic, kc_log_topic_config_t *cfg);
/*
 * The flush policy (Kafka's log.flush.*, flush.messages, flush.ms) over the
 * LMDB environment, which holds the partition log and the coordinator's
 * records (Kafka's __consumer_offsets, flushed by the same broker defaults):
 * flushes (kc_store_sync) when a partition has reached its flush.messages
 * unflushed records, when the coordinator's records have reached
 * log.flush.interval.messages, or, with check_time, when a partition or the
 * coordinator has unflushed records and its flush.ms has passed since the
 * last flush. Returns true when it flushed; a failed flush stops the
 * process (status 1), as Kafka halts when its last log directory fails
 * (server/server.c).
 */
bool kc_server_maybe_flush(kc_server_t *s, bool check_time);
int64_t kc_topic_retention_bytes(const kc_server_t *s, const kc_topic_t *topic);
/* The wall clock in ms (server.c). */
int64_t kc_server_wall_ms(void);
/*
 * Re-evaluates a parked Fetch (body = request body after the header): when
 * it can complete (or final is set) its response is appended to res and
 * *completed set. 0, or KC_EINVAL/KC_EIO (the request is dropped).
 */
int kc_fetch_complete(kc_server_t *s, const kc_request_ctx_t *ctx, const uint8_t *body,
                      size_t len, bool final, kc_result_t *res, bool *completed);
/* Encodes the ApiVersions v0 body answering a version above our maximum (KIP-511). */
void kc_api_versions_unsupported_body(kc_buf_t *out);

/* ACLs (server/acls.c). */
/* (Re)loads the authorizer from storage; no-op (authz NULL) when authorizer.class.name is "". */
int kc_acls_load(kc_server_t *s);
void kc_acls_free(kc_server_t *s);
/* Points ctx's authorize hook at the server's authorizer (left NULL when off). */
void kc_acls_set_ctx(kc_server_t *s, kc_request_ctx_t *ctx);
/* Kafka's AuthHelper.authorize for the request's principal and host (true when ACLs are off). */
bool kc_req_authorized(const kc_req_t *req, int8_t op, int8_t rtype, kc_str_t name);
/* The same on the cluster resource ("kafka-cluster"). */
bool kc_req_authorized_cluster(const kc_req_t *req, int8_t op);
/* AuthHelper.authorizeByResourceType: op allowed on some resource of rtype. */
bool kc_req_authorized_any(const kc_req_t *req, int8_t op, int8_t rtype);
/* Kafka's authorizedOperations: the bits (1 << KC_OP_*) of candidates the principal may do. */
int32_t kc_req_authorized_ops(const kc_req_t *req, int8_t rtype, kc_str_t name,
                              int32_t candidates);
int kc_handle_create_acls(kc_req_t *req);
int kc_handle_describe_acls(kc_req_t *req);
int kc_handle_delete_acls(kc_req_t *req);

/* Group handlers (server/group.c): decode, then call the coordinator. */
int kc_handle_join_group(kc_req_t *req);
int kc_handle_sync_group(kc_req_t *req);
int kc_handle_heartbeat(kc_req_t *req);
int kc_handle_leave_group(kc_req_t *req);
int kc_handle_offset_commit(kc_req_t *req);
int kc_handle_offset_fetch(kc_req_t *req);
int kc_handle_offset_delete(kc_req_t *req);
int kc_handle_describe_groups(kc_req_t *req);
int kc_handle_list_groups(kc_req_t *req);
int kc_handle_delete_groups(kc_req_t *req);
int kc_handle_consumer_group_heartbeat(kc_req_t *req);
int kc_handle_consumer_group_describe(kc_req_t *req);
int kc_handle_streams_group_heartbeat(kc_req_t *req);
int kc_handle_streams_group_describe(kc_req_t *req);

/* Parks a Fetch request (body copied) for at most delay_ms (server.c). */
void kc_server_park_fetch(kc_server_t *s, const kc_request_ctx_t *ctx, const uint8_t *body,
                          size_t len, int64_t delay_ms);

/*
 * Routing of one request frame (server.c), after the stall check. The fault
 * layer calls it when it drains its queue.
 */
void kc_server_process_request(kc_server_t *s, const kc_conn_info_t *conn, const uint8_t *data,
                               size_t len);
int64_t kc_server_mono_ms(void);

/* Faults (server/faults.c). Every fault is logged when set, hit and cleared. */
/* s may be NULL (unit tests): then no timers run and windows end when next matched. */
kc_faults_t *kc_faults_new(kc_server_t *s);
/* Drains a pending stall queue (answers nothing itself), then frees. NULL is accepted. */
void kc_faults_free(kc_faults_t *f);
/* Arms a copy of spec (its strings are copied); returns the new fault id. */
int64_t kc_faults_add(kc_faults_t *f, const kc_fault_t *spec);
/* Clears fault id, or every fault when id < 0; returns how many were cleared.
 * Clearing a stall drains its queue at once. */
size_t kc_faults_clear(kc_faults_t *f, int64_t id);
/* The armed faults (list, not to be modified) and the number of queued requests. */
const kc_fault_t *kc_faults_list(const kc_faults_t *f);
size_t kc_faults_queued(const kc_faults_t *f);
/* True while a stall holds the coordinator; *until_ms gets its end. */
bool kc_faults_stalled(const kc_faults_t *f, int64_t *until_ms);
/* A frame arrived: true when it was queued behind a stall (the caller stops there). */
bool kc_faults_on_request(kc_faults_t *f, const kc_conn_info_t *conn, const uint8_t *data,
                          size_t len);
/*
 * Called before a request is handled (body positioned after the header).
 * Returns true when a fault took the request: its error response has been
 * appended to req->res, or its connection closed.
 */
bool kc_faults_intercept(kc_faults_t *f, kc_req_t *req);
/* Delay in ms to add to a response of this request (0 = none). */
int64_t kc_faults_response_delay(kc_faults_t *f, const kc_response_t *r);
/* The API's name for logs and JSON: "stall", "error", "delay", "close", "coordinator". */
const char *kc_faults_kind_name(kc_fault_kind_t k);
/* True for the APIs a group coordinator answers. */
bool kc_faults_is_group_api(int16_t api_key);
/* True for the APIs a coordinator fault hits: the group APIs, and those the
 * transaction coordinator answers (InitProducerId, AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn, DescribeTransactions, ListTransactions) and
 * TxnOffsetCommit. */
bool kc_faults_is_coordinator_api(int16_t api_key);
/*
 * Parses the JSON body of POST /v1/faults (text, len bytes) into spec; windows
 * start at now_ms (monotonic). 0, or KC_EINVAL with a reason in err. On success
 * spec's group_id/client_id are heap copies: free them with
 * kc_faults_spec_deinit (kc_faults_add copies them again).
 */
int kc_faults_parse_spec(const char *text, size_t len, int64_t now_ms, kc_fault_t *spec,
                         char *err, size_t errlen);
void kc_faults_spec_deinit(kc_fault_t *spec);

/* ---- topology-description store (server/topology_api.c, KIP-1331) ---- */

/*
 * Opens the store named by group.streams.topology.description.plugin (none:
 * the feature is off, s->topology_desc stays NULL) and arms the cleanup cycle
 * (every offsets.retention.check.interval.ms). KC_EINVAL when the store
 * cannot be loaded or started (logged; kcoord does not start).
 */
int kc_topology_desc_start(kc_server_t *s);
/* Closes the store; outstanding completions are dropped (their -2 is durable). */
void kc_topology_desc_stop(kc_server_t *s);
/*
 * The commit step calls this after every commit attempt: the ops begun in
 * the iteration (whose -2 was in the batch, or already durable) get their
 * store call now; after a failed commit they are dropped and their clients
 * answered NOT_COORDINATOR.
 */
void kc_topology_desc_after_commit(kc_server_t *s, bool failed);
/* StreamsGroupTopologyDescriptionUpdate v0 (API 93). */
int kc_handle_streams_group_topology_description_update(kc_req_t *req);

/*
 * Wiring for the streams groups: their view (lookup, member check,
 * iteration; see topology_desc.h) and a function receiving the outcome of
 * the DeleteGroups and conversion ops. kc_topology_desc_start registers the
 * coordinator's streams groups and the held requests below; tests replace
 * them with stand-ins. outcome_fn runs on the loop after the
 * op's final record was appended to res (s->batch): tombstone the group or
 * answer GROUP_DELETION_FAILED (DELETE_GROUP), re-run the classic join and
 * call kc_topology_desc_finalize_after_delete, or answer
 * REBALANCE_IN_PROGRESS (CONVERSION).
 */
typedef void (*kc_topology_desc_outcome_fn)(void *arg, const kc_topology_desc_op_t *op,
                                    const kc_topology_desc_outcome_t *out, kc_result_t *res);
void kc_topology_desc_set_groups(kc_server_t *s, const kc_topology_desc_groups_t *groups,
                         kc_topology_desc_outcome_fn fn, void *arg);
/* The barrier module (solicit/describe rules, *_begin), NULL when the feature is off. */
kc_topology_desc_t *kc_topology_desc_barrier(kc_server_t *s);
/* The store, for StreamsGroupDescribe's get calls; NULL when off. */
kc_topology_store_t *kc_topology_desc_store(kc_server_t *s);
/* Takes an op from kc_topology_desc_delete_begin (DELETE_GROUP, CONVERSION):
 * its store call runs after this iteration's commit. */
void kc_topology_desc_run(kc_server_t *s, kc_topology_desc_op_t *op);
/*
 * The client requests that wait for the store (KIP-1331). start is the
 * request body before decoding (copied: the request is decoded again when
 * its store calls completed and answered from s->batch then):
 * - StreamsGroupDescribe with IncludeTopologyDescription: a get per group
 *   whose stored epoch is its topology epoch, then the coordinator's
 *   describe with the descriptions;
 * - DeleteGroups: a delete through the barrier for each empty streams group
 *   whose store may hold something; a failed one answers
 *   GROUP_DELETION_FAILED (UNKNOWN_SERVER_ERROR below v3) and is kept;
 * - JoinGroup of a new member on an empty streams group (the conversion to
 *   classic): the delete first, REBALANCE_IN_PROGRESS when it fails or its
 *   back-off is open (the group stays a streams group at -2).
 * Without a store (or nothing to ask) they call the coordinator directly.
 * Return 0 or what kc_req_respond_encoded returns.
 */
int kc_topology_desc_streams_group_describe(kc_req_t *req, const kc_reader_t *start,
                                    const kc_streams_group_describe_request_t *rq);
int kc_topology_desc_delete_groups(kc_req_t *req, const kc_reader_t *start,
                           const kc_delete_groups_request_t *rq);
int kc_topology_desc_join_group(kc_req_t *req, const kc_reader_t *start, const kc_join_group_request_t *rq);
/*
 * Security (server/security.c): resolves each listener's security protocol,
 * builds the TLS context and loads the SASL credentials, then binds the
 * listeners when listen is set. 0, or -1 after logging why (the broker does
 * not start). kc_security_stop frees what start made.
 */
int kc_security_start(kc_server_t *s, bool listen);
void kc_security_stop(kc_server_t *s);
/* SIGHUP: re-reads the TLS stores and the credentials file; a failure keeps the old ones. */
void kc_security_reload(kc_server_t *s);
/*
 * The host and port that Metadata and FindCoordinator give a request that
 * came in on connection conn_id: the advertised listener of the same name,
 * else that listener's own address, else the first listener's.
 */
void kc_server_advertised(const kc_server_t *s, uint64_t conn_id, kc_str_t *host, int32_t *port);
/*
 * SASL (server/sasl.c): a frame of a SASL_PLAINTEXT/SASL_SSL connection
 * before (re-)authentication completes, or after its session expired.
 * Returns true when the frame was taken (answered, or the connection closed),
 * false when it goes on to the normal request path.
 */
bool kc_sasl_on_frame(kc_server_t *s, const kc_conn_info_t *conn, const uint8_t *data,
                      size_t len);
/* SaslHandshake / SaslAuthenticate outside an exchange: ILLEGAL_SASL_STATE, as KafkaApis. */
/*
 * Splits a SASL/PLAIN token "authzid NUL authcid NUL password" (RFC 4616, as
 * Kafka's PlainSaslServer) into NUL-terminated copies in the three buffers.
 * Returns 3, the token count when it is not 3 (1, 2, or 4 for more), or -1
 * when a part does not fit its buffer (the buffers are then unspecified).
 * tok may be NULL when len is 0.
 */
int kc_sasl_plain_split(const uint8_t *tok, size_t len, char *authz, size_t authzlen,
                        char *name, size_t namelen, char *pw, size_t pwlen);
int kc_handle_sasl_handshake(kc_req_t *req);
int kc_handle_sasl_authenticate(kc_req_t *req);

/* Admin HTTP endpoint (server/admin.c); no-op when admin.listeners is empty. */
int kc_admin_start(kc_server_t *s);
void kc_admin_stop(kc_server_t *s);
/* The query string of GET /v1/events ("since=N&stream=1|true|0|false", both
 * optional): NULL with *since and *stream set from what is given, or the
 * message of the 400 answer. */
const char *kc_admin_events_query(const char *q, uint64_t *since, bool *stream);
/* A non-negative decimal sequence number (since, Last-Event-ID); false
 * (out untouched) when v is not one or does not fit. */
bool kc_admin_parse_seq(const char *v, uint64_t *out);
/* The id of DELETE /v1/faults/<id>: a positive decimal, else -1. */
int64_t kc_admin_fault_id(const char *text);
/* Counts the error codes of one response body (kcoord_errors_total); a no-op
 * when the endpoint is off or the body does not decode. */
void kc_admin_count_response(kc_server_t *s, int16_t api_key, int16_t api_version,
                             const kc_buf_t *body);

#endif
