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
typedef struct kc_tls kc_tls_t;

/* Kafka's SecurityProtocol of a listener (listener.security.protocol.map). */
typedef enum {
    KC_SEC_PLAINTEXT,
    KC_SEC_SSL,
    KC_SEC_SASL_PLAINTEXT,
    KC_SEC_SASL_SSL,
} kc_security_protocol_t;

/* "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL". */
const char *kc_security_protocol_name(kc_security_protocol_t p);
/* Parses one of those names; -1 when unknown. */
int kc_security_protocol_parse(const char *name, kc_security_protocol_t *out);
/* Kafka's principal of a connection nobody authenticated. */
#define KC_PRINCIPAL_ANONYMOUS "User:ANONYMOUS"

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
    const char *principal; /* Kafka principal, as kc_net_principal gives it */
} kc_conn_info_t;


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
/*
 * kc_net_listen for a listener of security protocol proto. SSL and SASL_SSL
 * need tls (borrowed; it must outlive the kc_net_t, and a kc_tls_reload is
 * seen by the connections accepted afterwards): each accepted connection
 * first completes a TLS handshake, driven by the loop without blocking;
 * a failed handshake is logged and closes the connection. Same returns.
 */
int kc_net_listen_secure(kc_net_t *n, const kc_listener_t *l, kc_security_protocol_t proto,
                         kc_tls_t *tls, uint16_t *bound_port);
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

/*
 * Queues one response frame like kc_net_send, then closes the connection
 * (logging why) once it has been written, without reading anything more:
 * Kafka's answer-then-close of a failed authentication. Same returns.
 */
int kc_net_send_close(kc_net_t *n, uint64_t conn_id, const void *data, size_t len,
                      const char *why);

/*
 * The authenticated principal of a connection, as Kafka's
 * DefaultKafkaPrincipalBuilder names it: "User:ANONYMOUS" on PLAINTEXT, on
 * SSL without a client certificate and on SASL listeners before SASL has
 * completed; "User:" + the client certificate's subject DN (RFC 2253) on SSL
 * with client authentication; "User:<name>" after SASL (kc_net_set_principal).
 * Valid until the connection's next principal change or close; NULL when
 * the connection is gone.
 */
const char *kc_net_principal(const kc_net_t *n, uint64_t conn_id);
/* Sets the principal (copied) after a SASL exchange; KC_ENOENT if gone. */
int kc_net_set_principal(kc_net_t *n, uint64_t conn_id, const char *principal);
/* The security protocol and the listener name of a connection (PLAINTEXT / NULL if gone). */
kc_security_protocol_t kc_net_conn_protocol(const kc_net_t *n, uint64_t conn_id);
const char *kc_net_conn_listener(const kc_net_t *n, uint64_t conn_id);
/*
 * Per-connection state of an upper layer: one slot, which server/sasl.c uses
 * for the SASL exchange of SASL_PLAINTEXT/SASL_SSL connections. data is owned
 * by the connection and released with free_fn (may be NULL) when replaced or
 * when the connection is freed. kc_net_conn_data returns NULL when unset/gone.
 */
int kc_net_set_conn_data(kc_net_t *n, uint64_t conn_id, void *data, void (*free_fn)(void *));
void *kc_net_conn_data(const kc_net_t *n, uint64_t conn_id);

bool kc_net_conn_exists(const kc_net_t *n, uint64_t conn_id);
/* Bytes read from the connection's socket so far (0 if gone). */
uint64_t kc_net_bytes_read(const kc_net_t *n, uint64_t conn_id);
size_t kc_net_conn_count(const kc_net_t *n);
/* Connections with response bytes not yet written to their socket (graceful shutdown). */
size_t kc_net_pending_output(const kc_net_t *n);

#endif
