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
#include "kc_common.h"
#include "kc_config.h"
#include "kc_msgs.h"
#include "kc_net.h"
#include "kc_server.h"
#include "log.h"
#include "store.h"
#include "topics.h"
#include "wire.h"

struct event;

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
#define KC_METRICS_COMMIT_BUCKETS 12
typedef struct {
    uint64_t requests[KC_METRICS_MAX_API][KC_METRICS_MAX_VERSION];
    uint64_t bytes_in, bytes_out;        /* framed bytes, size prefix included */
    uint64_t connections_closed_by_fault;
    /* LMDB commit latency, cumulative histogram over KC_METRICS_COMMIT_BOUNDS_US */
    uint64_t commit_bucket[KC_METRICS_COMMIT_BUCKETS];
    uint64_t commit_count;
    double commit_sum_seconds;
} kc_metrics_t;
extern const double kc_metrics_commit_bounds_s[KC_METRICS_COMMIT_BUCKETS];

struct kc_server {
    const kc_config_t *cfg;
    struct event_base *base;
    kc_net_t *net;
    kc_store_t *store;
    kc_topics_t *topics;
    kc_log_t *log;
    kc_coord_t *coord;
    kc_topic_view_t topic_view;
    struct event *coord_timer;
    struct event *sigint_ev, *sigterm_ev;
    /* Records and responses produced during the current loop iteration. */
    kc_result_t batch;
    kc_result_t spare; /* the previous batch, emptied, kept for its memory */
    kc_parked_fetch_t *parked;
    kc_fetch_sessions_t *fetch_sessions;
    struct event *retention_timer;
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
};

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

/* Broker handlers (server/broker.c). */
int kc_handle_api_versions(kc_req_t *req);
int kc_handle_metadata(kc_req_t *req);
int kc_handle_find_coordinator(kc_req_t *req);
int kc_handle_create_topics(kc_req_t *req);

/* Log handlers (server/log_api.c). */
int kc_handle_produce(kc_req_t *req);
int kc_handle_fetch(kc_req_t *req);
int kc_handle_list_offsets(kc_req_t *req);
int kc_handle_init_producer_id(kc_req_t *req);
int kc_handle_create_partitions(kc_req_t *req);
int kc_handle_delete_topics(kc_req_t *req);
int kc_handle_delete_records(kc_req_t *req);
/* Sets up fetch sessions and arms the retention task / frees them (server/log_api.c). */
void kc_log_api_start(kc_server_t *s);
void kc_log_api_stop(kc_server_t *s);
/* Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS. */
#define KC_FETCH_SESSION_EVICTION_MS 120000

/* Configs (server/configs.c). */
int kc_handle_describe_configs(kc_req_t *req);
/*
 * Checks the configs of a CreateTopics topic as LogConfig.validate does:
 * an unknown name or a null value, or a retention value that is not a Long
 * (retention.ms below -1), answers INVALID_CONFIG with a message in msg.
 * Returns the Kafka error code (0 = valid).
 */
int16_t kc_topic_configs_check(size_t n, const kc_str_t *names, const kc_str_t *values,
                               char *msg, size_t msglen);
/* A topic's effective retention.ms / retention.bytes (its override, else the broker's). */
int64_t kc_topic_retention_ms(const kc_server_t *s, const kc_topic_t *topic);
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
/*
 * Encodes the error response Kafka's getErrorResponse gives for api_key at
 * version with error_code into out. body (the request body after its header,
 * read through a copy; NULL reads as an empty request) gives the entries that
 * per-partition and per-group responses repeat, each carrying the code; arrays
 * come from arena and views point into body, so encode before releasing either.
 * KC_EINVAL when the body does not decode or the API has no builder here.
 */
int kc_faults_error_response(int16_t api_key, int16_t version, const kc_reader_t *body,
                             kc_arena_t *arena, int16_t error_code, kc_buf_t *out);
/* Kafka's default message for error code (Errors.message()), or NULL when unknown here. */
const char *kc_faults_error_message(int16_t code);
/* The API's name for logs and JSON: "stall", "error", "delay", "close", "coordinator". */
const char *kc_faults_kind_name(kc_fault_kind_t k);
/* True for the APIs a group coordinator answers (those a coordinator fault hits). */
bool kc_faults_is_group_api(int16_t api_key);
/*
 * Parses the JSON body of POST /v1/faults (text, len bytes) into spec; windows
 * start at now_ms (monotonic). 0, or KC_EINVAL with a reason in err. On success
 * spec's group_id/client_id are heap copies: free them with
 * kc_faults_spec_deinit (kc_faults_add copies them again).
 */
int kc_faults_parse_spec(const char *text, size_t len, int64_t now_ms, kc_fault_t *spec,
                         char *err, size_t errlen);
void kc_faults_spec_deinit(kc_fault_t *spec);

/* Admin HTTP endpoint (server/admin.c); no-op when admin.listeners is empty. */
int kc_admin_start(kc_server_t *s);
void kc_admin_stop(kc_server_t *s);

#endif
