/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker: wires configuration, storage, the coordinator and the network
 * layer onto one libevent loop, routes requests through the dispatch table,
 * and runs the durability path (records of one loop iteration commit once,
 * then the responses that waited for them are sent, in order).
 */
#ifndef KC_SERVER_H
#define KC_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "kc_config.h"

struct event_base;
typedef struct kc_server kc_server_t;
typedef struct kc_net kc_net_t;

/*
 * Opens storage under cfg->log_dirs, loads topics, replays the coordinator
 * records and binds the listeners (logging the load time and record count).
 * cfg and base are borrowed and must outlive the server. listen = false
 * skips the listeners (tests adopt sockets through kc_server_net).
 * Returns NULL on failure (logged).
 */
kc_server_t *kc_server_new(const kc_config_t *cfg, struct event_base *base, bool listen);
/* Commits what is pending, closes connections and storage. NULL is accepted. */
void kc_server_free(kc_server_t *s);

/* One loop iteration (blocks until an event) followed by the commit step. */
void kc_server_run_once(kc_server_t *s);
/* The commit step alone: append records, commit once, release held responses. */
void kc_server_commit(kc_server_t *s);
/* Runs until kc_server_stop (or SIGINT/SIGTERM when signals are installed). */
void kc_server_run(kc_server_t *s);
/* Graceful stop: stop accepting, finish the iteration, commit, return from kc_server_run. */
void kc_server_stop(kc_server_t *s);
/* Installs SIGINT/SIGTERM handlers that call kc_server_stop. */
void kc_server_install_signals(kc_server_t *s);

kc_net_t *kc_server_net(kc_server_t *s);
/* Port actually bound by the first listener (0 when not listening). */
uint16_t kc_server_port(const kc_server_t *s);

#endif
