/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kcoord topology-description store: the C interface of KIP-1331's
 * StreamsGroupTopologyDescriptionPlugin, for shared objects loaded by kcoord.
 *
 * Kafka Streams clients push a description of their processing topology
 * (StreamsGroupTopologyDescriptionUpdate, API 93) once per topology epoch;
 * kcoord hands it to a store and serves it back through StreamsGroupDescribe.
 * The store is named by the broker property
 * group.streams.topology.description.plugin: "memory", "lmdb" (built in), or
 * the path of a shared object exporting KC_TOPOLOGY_STORE_ENTRY. Unset = the
 * feature is off.
 *
 * This header is self-contained (C99, no kcoord headers) and installed with
 * kcoord as <kcoord/topology_store.h>.
 *
 * Threading and completion. kcoord calls set/get/del from its store worker
 * threads, never from its event loop, possibly from several threads at once:
 * a store must be thread-safe. Each call must complete exactly once by
 * calling done(token, &result), either before it returns (a synchronous
 * store) or later from any thread (an asynchronous one). kcoord copies what
 * the result points to before done returns. Calls on the same group can
 * overlap (a push racing a delete); kcoord's durable -2 barrier makes the
 * outcome safe whatever order the store applies them in.
 *
 * Contract (as Kafka's plugin): set with the same (group, epoch) carries the
 * same bytes and must be idempotent; del must be idempotent and succeed when
 * nothing is stored; get returns NOT_FOUND when the store holds no
 * description for that exact epoch.
 *
 * Description bytes are opaque to the store. kcoord writes an int16 format
 * version (0) followed by the TopologyDescription structure exactly as the
 * Kafka protocol encodes it in StreamsGroupTopologyDescriptionUpdate v0
 * (compact strings and arrays, tagged-field sections).
 */
#ifndef KCOORD_TOPOLOGY_STORE_H
#define KCOORD_TOPOLOGY_STORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of the structures below. */
#define KC_TOPOLOGY_STORE_ABI_VERSION 1u

/* The symbol a plugin exports: const kc_topology_store_ops_t *kc_topology_store_plugin(void). */
#define KC_TOPOLOGY_STORE_ENTRY "kc_topology_store_plugin"

/* Outcome of one call. */
typedef enum {
    KC_TOPOLOGY_STORE_OK = 0,
    /* get only: nothing stored for that group and epoch (served as NOT_STORED). */
    KC_TOPOLOGY_STORE_NOT_FOUND = 1,
    /* Retriable: set is solicited again after a per-group back-off (30 s doubling
     * to 1 h); del leaves the group to the next cleanup cycle. */
    KC_TOPOLOGY_STORE_TRANSIENT = 2,
    /* set: this epoch will never be accepted; kcoord stops soliciting a push
     * until the topology epoch changes. For get/del it counts as a failure. */
    KC_TOPOLOGY_STORE_PERMANENT = 3,
} kc_topology_store_status_t;

typedef struct {
    kc_topology_store_status_t status;
    /* Failure text returned to the pushing client (NULL = a generic one). */
    const char *message;
    /* get with KC_TOPOLOGY_STORE_OK: the description bytes. */
    const uint8_t *data;
    size_t len;
} kc_topology_store_result_t;

/* Completion: call exactly once per call; res and what it points to are borrowed.
 * kcoord logs and ignores a second completion, or one after close. */
typedef void (*kc_topology_store_done_fn)(void *token, const kc_topology_store_result_t *res);

/* Log levels for kc_topology_store_config_t.log. */
enum { KC_TOPOLOGY_STORE_LOG_DEBUG = 0, KC_TOPOLOGY_STORE_LOG_INFO = 1,
       KC_TOPOLOGY_STORE_LOG_WARN = 2, KC_TOPOLOGY_STORE_LOG_ERROR = 3 };

/* What init receives; valid during init only (copy what you keep). */
typedef struct {
    uint32_t abi_version;  /* KC_TOPOLOGY_STORE_ABI_VERSION of the broker */
    uint32_t struct_size;  /* sizeof(kc_topology_store_config_t) of the broker */
    const char *data_dir;  /* the broker's log.dirs */
    /* group.streams.topology.description.plugin.config: free text for the store ("" = none). */
    const char *args;
    /* Writes one line to the broker's log; thread-safe; may be called after init. */
    void (*log)(int level, const char *msg);
} kc_topology_store_config_t;

/*
 * A store. group_id is NUL-terminated and group_id_len bytes long (a Kafka
 * group id could contain a NUL byte). Strings and bytes are borrowed for the
 * duration of the call only.
 */
typedef struct {
    uint32_t abi_version;  /* KC_TOPOLOGY_STORE_ABI_VERSION the store was built with */
    uint32_t struct_size;  /* sizeof(kc_topology_store_ops_t) */
    const char *name;      /* for logs */
    /* Returns 0 and sets *state, or non-zero with a reason in err (kcoord then does not start). */
    int (*init)(const kc_topology_store_config_t *cfg, void **state, char *err, size_t errlen);
    /* Called once at shutdown, after every call kcoord started has been
     * dispatched; it must complete (done) any call still outstanding. */
    void (*close)(void *state);
    void (*set)(void *state, const char *group_id, size_t group_id_len, int32_t topology_epoch,
                const uint8_t *description, size_t len, kc_topology_store_done_fn done,
                void *token);
    void (*get)(void *state, const char *group_id, size_t group_id_len, int32_t topology_epoch,
                kc_topology_store_done_fn done, void *token);
    void (*del)(void *state, const char *group_id, size_t group_id_len,
                kc_topology_store_done_fn done, void *token);
} kc_topology_store_ops_t;

typedef const kc_topology_store_ops_t *(*kc_topology_store_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
