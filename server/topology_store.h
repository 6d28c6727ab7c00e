/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology-description store as the broker runs it: the store named by
 * group.streams.topology.description.plugin (built-in "memory" or "lmdb",
 * or a shared object loaded with dlopen, see <kcoord/topology_store.h>) and
 * the worker threads that call it off the event loop.
 *
 * A call (set, get, del) is queued and returns at once. A worker thread
 * takes it and calls the store; the store completes it (from any thread,
 * at any time); the completion is queued and an eventfd wakes the loop,
 * which runs the caller's callback on the loop thread. Callbacks run in the
 * order the store completed the calls. With more than one thread, calls run
 * concurrently, so a set and a del of one group really race.
 */
#ifndef KC_TOPOLOGY_STORE_INT_H
#define KC_TOPOLOGY_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kcoord/topology_store.h"

struct event_base;
typedef struct kc_topology_store kc_topology_store_t;

/* The built-in stores. */
const kc_topology_store_ops_t *kc_topology_store_memory_ops(void);
const kc_topology_store_ops_t *kc_topology_store_lmdb_ops(void); /* storage/topology_store_lmdb.c */

/*
 * Resolves name: "memory", "lmdb", else the path of a shared object (dlopen,
 * then its KC_TOPOLOGY_STORE_ENTRY). Checks the ABI version and the struct
 * size. *handle gets the dlopen handle (NULL for built-ins; dlclose it after
 * closing the store). NULL with a reason in err.
 */
const kc_topology_store_ops_t *kc_topology_store_resolve(const char *name, void **handle, char *err,
                                                 size_t errlen);

/*
 * Loads and initialises the store named name (see kc_topology_store_resolve) with
 * data_dir and args, and starts threads (>= 1) workers whose completions
 * are delivered on base. NULL with a reason in err.
 */
kc_topology_store_t *kc_topology_store_open(struct event_base *base, const char *name, const char *data_dir,
                            const char *args, int threads, char *err, size_t errlen);
/* Same with a store given directly (tests). */
kc_topology_store_t *kc_topology_store_open_ops(struct event_base *base, const kc_topology_store_ops_t *ops,
                                const char *data_dir, const char *args, int threads, char *err,
                                size_t errlen);
/*
 * Clean shutdown: calls not yet started are completed TRANSIENT ("kcoord is
 * shutting down") without reaching the store; running ones are waited for;
 * the store is closed (it completes what it still holds); then every
 * pending callback runs, here, on the calling (loop) thread. NULL accepted.
 */
void kc_topology_store_close(kc_topology_store_t *t);

const char *kc_topology_store_name(const kc_topology_store_t *t);

/*
 * Completion, on the loop thread. res->message and res->data are valid
 * during the callback only.
 */
typedef void (*kc_topology_store_cb)(void *arg, const kc_topology_store_result_t *res);

/* Each copies its arguments; cb runs exactly once (also on shutdown). */
void kc_topology_store_set(kc_topology_store_t *t, const char *group_id, size_t group_id_len, int32_t epoch,
                   const uint8_t *description, size_t len, kc_topology_store_cb cb, void *arg);
void kc_topology_store_get(kc_topology_store_t *t, const char *group_id, size_t group_id_len, int32_t epoch,
                   kc_topology_store_cb cb, void *arg);
void kc_topology_store_del(kc_topology_store_t *t, const char *group_id, size_t group_id_len, kc_topology_store_cb cb,
                   void *arg);

/* Calls queued or running and not yet delivered to their callbacks. */
size_t kc_topology_store_pending(const kc_topology_store_t *t);

#endif
