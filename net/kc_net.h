/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Listeners and connections with Kafka's exact framing: read the 4-byte size,
 * then at most that many bytes and never a byte of the next request; then
 * the connection is muted (not read at all) until its response has been
 * written, as Kafka's SocketServer mutes a channel with a request in flight.
 * Knows nothing of API keys or groups: it hands whole frames up and writes
 * whole frames down. Connections are named by a uint64 conn id that is never
 * reused; a response for a connection that is gone is dropped.
 */
#ifndef KC_NET_H
#define KC_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kc_config.h"

struct event_base;
typedef struct kc_net kc_net_t;

typedef struct {
    int32_t max_request_bytes; /* socket.request.max.bytes: larger frames close the connection */
    int64_t idle_timeout_ms;   /* connections.max.idle.ms: no read/write for this long closes */
    /* max.connections (<= 0 = no limit): at the limit
     * the listeners stop accepting, so new connections wait in the backlog
     * until one closes, as Kafka's Acceptor waits for a connection slot. */
    int32_t max_connections;
    /* max.connections.per.ip: an accepted connection beyond it is closed at
     * once (Kafka's TooManyConnectionsException); <= 0 = no limit. Overrides per address:
     * max.connections.per.ip.overrides, borrowed (NULL = none). */
    int32_t max_connections_per_ip;
    const char *max_connections_per_ip_overrides;
} kc_net_config_t;

/* The connection a request came in on; valid during the callback only. */
typedef struct {
    uint64_t conn_id;
    const char *peer_host; /* "/127.0.0.1", as Kafka prints client hosts */
    const char *listener;  /* listener name, e.g. "PLAINTEXT" */
    const char *principal; /* Kafka principal, "User:ANONYMOUS" without authentication */
} kc_conn_info_t;

typedef struct kc_conn kc_conn_t;
/*
 * The connection's Kafka principal as a string ("User:alice"), borrowed for
 * the connection's life. Minimal version: every connection is
 * "User:ANONYMOUS" until authentication (SASL, TLS client certificates)
 * sets another.
 */
const char *kc_conn_principal(const kc_conn_t *c);

typedef struct {
    /*
     * One complete request frame, without its size prefix (header + body).
     * data is valid during the call only. The connection stays muted until
     * kc_net_send (response) or kc_net_request_done (no response) is called
     * for it, now or later.
     */
    void (*on_request)(void *ctx, const kc_conn_info_t *conn, const uint8_t *data, size_t len);
    /* The connection is gone (peer closed, I/O error, idle, bad frame, kc_net_close). */
    void (*on_close)(void *ctx, uint64_t conn_id);
    void *ctx;
} kc_net_handler_t;

/* handler is copied; base is borrowed and must outlive the kc_net_t. */
kc_net_t *kc_net_new(struct event_base *base, const kc_net_config_t *cfg,
                     const kc_net_handler_t *handler);
/* Closes every listener and connection (without on_close calls). NULL is accepted. */
void kc_net_free(kc_net_t *n);

/*
 * Binds and listens on l (host "" = every interface, port 0 = any free port).
 * *bound_port (may be NULL) receives the port actually bound.
 * Returns 0 or KC_EIO (logged, naming the address).
 */
int kc_net_listen(kc_net_t *n, const kc_listener_t *l, uint16_t *bound_port);
/* Stops accepting new connections (graceful shutdown); existing ones stay. */
void kc_net_stop_listening(kc_net_t *n);

/*
 * Takes ownership of a connected socket (made non-blocking here), e.g. an
 * accepted one or one end of a socketpair in tests. Returns 0 and *conn_id.
 */
int kc_net_adopt(kc_net_t *n, int fd, const char *peer_host, const char *listener,
                 uint64_t *conn_id);

/*
 * Queues one response frame (data = response header + body; the 4-byte size
 * is prepended here) and ends the request in flight: once everything queued
 * has been written, the connection is read again. Returns 0, or KC_ENOENT
 * when the connection is gone (the response is dropped), KC_EINVAL when no
 * request is in flight or the frame exceeds INT32_MAX.
 */
int kc_net_send(kc_net_t *n, uint64_t conn_id, const void *data, size_t len);
/*
 * kc_net_send of the frame head followed by body (either may be empty), so
 * that a response header and body need not be joined first. Both are
 * borrowed for the call only: what the socket does not take at once is
 * copied. Same returns as kc_net_send.
 */
int kc_net_send_parts(kc_net_t *n, uint64_t conn_id, const void *head, size_t head_len,
                      const void *body, size_t body_len);
/* Ends a request that has no response (e.g. acks=0 produce): unmutes. */
int kc_net_request_done(kc_net_t *n, uint64_t conn_id);
/* Closes a connection (e.g. after a malformed request), logging why. */
void kc_net_close(kc_net_t *n, uint64_t conn_id, const char *why);

bool kc_net_conn_exists(const kc_net_t *n, uint64_t conn_id);
/* Bytes read from the connection's socket so far (0 if gone). */
uint64_t kc_net_bytes_read(const kc_net_t *n, uint64_t conn_id);
size_t kc_net_conn_count(const kc_net_t *n);
/* Connections with response bytes not yet written to their socket (graceful shutdown). */
size_t kc_net_pending_output(const kc_net_t *n);

#endif
