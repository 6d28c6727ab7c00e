/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Listeners, connections, exact framing and mute/unmute on libevent.
 * Reads go straight to recv() with an explicit byte limit (never more than
 * what is left of the current frame), so bytes of a pipelined next request
 * stay in the kernel buffer while a request is in flight. On SSL listeners
 * the same holds through SSL_read on the socket: decrypted bytes of a next
 * request stay in OpenSSL's record buffer, and unmuting looks there before
 * waiting for the socket.
 */
#include "kc_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "kc_common.h"
#include "kc_log.h"
#include "kc_tls.h"

#define READ_CHUNK 65536
#define NBUCKETS 256

typedef struct kc_conn kc_conn_t;
struct kc_conn {
    kc_net_t *net;
    uint64_t id;
    int fd;
    char peer_host[INET6_ADDRSTRLEN + 2];
    char listener[64];
    struct event *read_ev;
    struct event *write_ev;
    struct event *idle_ev;
    /* Idle expiry is lazy: activity only stamps last_active_ms; the timer,
     * armed once per idle period, re-arms itself for the rest of the period
     * when it finds activity since it was set. */
    int64_t last_active_ms;
    /* framing */
    uint8_t size_buf[4];
    size_t size_have;   /* bytes of the size prefix read */
    int32_t frame_size; /* valid once size_have == 4 */
    uint8_t *body;
    size_t body_have, body_cap;
    uint64_t bytes_read;
    /* state */
    bool in_flight; /* a request was handed up and not yet ended */
    /* read_ev is added. A connection with a request in flight keeps it
     * until it fires (the client sent more): only then is it removed, so a
     * client that waits for its answer, as Kafka clients do, costs no
     * epoll_ctl per request. Either way nothing is read while in flight. */
    bool read_armed;
    bool closed;
    /* TLS (SSL and SASL_SSL listeners): set from accept; handshaking until done. */
    SSL *ssl;
    bool handshaking;
    kc_security_protocol_t protocol;
    char *principal; /* NULL = User:ANONYMOUS */
    void *user;      /* upper layer's state (kc_net_set_conn_data) */
    void (*user_free)(void *);
    char *close_after_flush; /* why, when the connection closes once written */
    kc_buf_t out;
    size_t out_off;
    kc_conn_t *next_in_bucket;
    kc_conn_t *next_dead;
};

typedef struct {
    struct evconnlistener *lev;
    kc_net_t *net;
    char name[64];
    kc_security_protocol_t protocol;
    kc_tls_t *tls; /* SSL and SASL_SSL */
    struct event *resume; /* re-enables accepting after a pause */
} listener_t;

/* How long accepting pauses after accept() failed for lack of descriptors
 * or memory: retrying at once would spin the loop on the same error. */
#define ACCEPT_PAUSE_MS 1000

struct kc_net {
    struct event_base *base;
    kc_net_config_t cfg;
    kc_net_handler_t h;
    uint64_t next_id;
    kc_conn_t *buckets[NBUCKETS];
    size_t nconns;
    listener_t listeners[KC_MAX_LISTENERS];
    size_t nlisteners;
    kc_conn_t *dead; /* closed, freed by reap_ev outside their callbacks */
    bool at_max; /* max.connections reached: the listeners do not accept */
    struct event *reap_ev;
};

static kc_conn_t *conn_find(const kc_net_t *n, uint64_t id)
{
    for (kc_conn_t *c = n->buckets[id % NBUCKETS]; c; c = c->next_in_bucket)
        if (c->id == id)
            return c;
    return NULL;
}

static void conn_unlink(kc_net_t *n, kc_conn_t *c)
{
    kc_conn_t **pp = &n->buckets[c->id % NBUCKETS];
    while (*pp && *pp != c)
        pp = &(*pp)->next_in_bucket;
    if (*pp)
        *pp = c->next_in_bucket;
    n->nconns--;
}

static void conn_free(kc_conn_t *c)
{
    if (c->read_ev)
        event_free(c->read_ev);
    if (c->write_ev)
        event_free(c->write_ev);
    if (c->idle_ev)
        event_free(c->idle_ev);
    if (c->fd >= 0)
        close(c->fd);
    if (c->ssl)
        SSL_free(c->ssl);
    if (c->user && c->user_free)
        c->user_free(c->user);
    free(c->principal);
    free(c->close_after_flush);
    free(c->body);
    kc_buf_deinit(&c->out);
    free(c);
}

static void reap_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_net_t *n = arg;
    while (n->dead) {
        kc_conn_t *c = n->dead;
        n->dead = c->next_dead;
        conn_free(c);
    }
}

static void set_accepting(kc_net_t *n, bool on);

/* Closes now (socket, events), frees later: safe from the connection's own callbacks. */
static void conn_close(kc_conn_t *c, bool notify, const char *why)
{
    if (c->closed)
        return;
    kc_net_t *n = c->net;
    c->closed = true;
    kc_log_debug("net", "connection %llu from %s closed: %s", (unsigned long long)c->id,
                 c->peer_host, why);
    event_del(c->read_ev);
    event_del(c->write_ev);
    event_del(c->idle_ev);
    if (c->ssl && !c->handshaking) {
        /* close_notify, best effort: the socket is non-blocking. */
        SSL_shutdown(c->ssl);
        ERR_clear_error();
    }
    close(c->fd);
    c->fd = -1;
    conn_unlink(n, c);
    c->next_dead = n->dead;
    n->dead = c;
    event_active(n->reap_ev, EV_TIMEOUT, 0);
    if (n->at_max && n->nconns < (size_t)n->cfg.max_connections)
        set_accepting(n, true);
    if (notify && n->h.on_close)
        n->h.on_close(n->h.ctx, c->id);
}

static const char *conn_principal(const kc_conn_t *c)
{
    return c->principal ? c->principal : KC_PRINCIPAL_ANONYMOUS;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void arm_idle(kc_conn_t *c, int64_t ms)
{
    if (ms < 1)
        ms = 1;
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
    event_add(c->idle_ev, &tv);
}

/* Records activity; no timer operation (the hot path of every request). */
static void touch_idle(kc_conn_t *c)
{
    c->last_active_ms = mono_ms();
}

static void idle_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_conn_t *c = arg;
    int64_t idle = c->net->cfg.idle_timeout_ms;
    int64_t quiet = mono_ms() - c->last_active_ms;
    if (quiet < idle) {
        arm_idle(c, idle - quiet);
        return;
    }
    kc_log_info("net", "closing connection %llu from %s: idle for %lld ms",
                (unsigned long long)c->id, c->peer_host, (long long)idle);
    conn_close(c, true, "idle");
}

/* Returns bytes read (> 0), 0 when nothing is available, -1 when the connection was closed. */
static ssize_t conn_recv(kc_conn_t *c, void *dst, size_t want)
{
    if (c->ssl) {
        ERR_clear_error(); /* SSL_get_error reads this thread's queue */
        int r = SSL_read(c->ssl, dst, (int)KC_MIN(want, (size_t)INT32_MAX));
        if (r > 0) {
            c->bytes_read += (uint64_t)r;
            return r;
        }
        int e = SSL_get_error(c->ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
            return 0;
        char ebuf[256];
        const char *why = e == SSL_ERROR_ZERO_RETURN ? "closed by peer"
                          : e == SSL_ERROR_SYSCALL   ? (r == 0 || errno == 0 ? "closed by peer"
                                                                              : strerror(errno))
                                                     : kc_tls_error_text(ebuf, sizeof(ebuf));
        ERR_clear_error();
        conn_close(c, true, why);
        return -1;
    }
    ssize_t r = recv(c->fd, dst, want, 0);
    if (r > 0) {
        c->bytes_read += (uint64_t)r;
        return r;
    }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    conn_close(c, true, r == 0 ? "closed by peer" : strerror(errno));
    return -1;
}

static void frame_reset(kc_conn_t *c)
{
    c->size_have = 0;
    c->frame_size = 0;
    c->body_have = 0;
    if (c->body_cap > READ_CHUNK) {
        free(c->body);
        c->body = NULL;
        c->body_cap = 0;
    }
}

static bool tls_handshake(kc_conn_t *c);

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_conn_t *c = arg;
    kc_net_t *n = c->net;
    bool progressed = false;

    if (c->closed || (c->handshaking && !tls_handshake(c)))
        return;

    if (c->in_flight) {
        /* Muted: bytes of a next request stay in the kernel buffer. */
        event_del(c->read_ev);
        c->read_armed = false;
        return;
    }
    while (!c->in_flight && !c->closed) {
        if (c->size_have < 4) {
            ssize_t r = conn_recv(c, c->size_buf + c->size_have, 4 - c->size_have);
            if (r <= 0)
                break;
            progressed = true;
            c->size_have += (size_t)r;
            if (c->size_have < 4)
                continue;
            uint32_t u = ((uint32_t)c->size_buf[0] << 24) | ((uint32_t)c->size_buf[1] << 16) |
                         ((uint32_t)c->size_buf[2] << 8) | c->size_buf[3];
            int32_t size = (int32_t)u;
            if (size < 0 || size > n->cfg.max_request_bytes) {
                /* Kafka's InvalidReceiveException: the channel is closed. */
                kc_log_warn("net",
                            "closing connection %llu from %s: request size %d outside 0..%d "
                            "(socket.request.max.bytes)",
                            (unsigned long long)c->id, c->peer_host, size,
                            n->cfg.max_request_bytes);
                conn_close(c, true, "bad frame size");
                return;
            }
            c->frame_size = size;
        } else if (c->body_have < (size_t)c->frame_size) {
            size_t left = (size_t)c->frame_size - c->body_have;
            size_t want = KC_MIN(left, (size_t)READ_CHUNK);
            if (c->body_cap < c->body_have + want) {
                size_t cap = KC_MAX(c->body_cap * 2, c->body_have + want);
                cap = KC_MIN(cap, (size_t)c->frame_size);
                c->body = kc_xrealloc(c->body, cap);
                c->body_cap = cap;
            }
            ssize_t r = conn_recv(c, c->body + c->body_have, want);
            if (r <= 0)
                break;
            progressed = true;
            c->body_have += (size_t)r;
        }
        if (c->size_have == 4 && c->body_have == (size_t)c->frame_size) {
            /* A whole request: mute until it has been answered (read_ev is
             * removed lazily, see read_armed). */
            c->in_flight = true;
            kc_conn_info_t info = {c->id, c->peer_host, c->listener, conn_principal(c)};
            /* The callback may close c: it is then only freed by reap_cb, later. */
            n->h.on_request(n->h.ctx, &info, c->body ? c->body : (const uint8_t *)"",
                            c->body_have);
            frame_reset(c);
            break;
        }
    }
    if (progressed && !c->closed)
        touch_idle(c);
}

static void conn_unmute(kc_conn_t *c)
{
    c->in_flight = false;
    if (!c->read_armed) {
        event_add(c->read_ev, NULL);
        c->read_armed = true;
    }
    /* Data already in the kernel buffer makes the (level-triggered) read
     * event fire; what OpenSSL already decrypted (or holds in a record not
     * yet decrypted) does not, so it is looked at now. */
    if (c->ssl && (SSL_pending(c->ssl) > 0 || SSL_has_pending(c->ssl)))
        event_active(c->read_ev, EV_READ, 0);
}

/* Everything of the answer was written: unmute, or close when asked to. */
static void conn_flushed(kc_conn_t *c)
{
    if (c->close_after_flush) {
        kc_log_info("net", "closing connection %llu from %s: %s", (unsigned long long)c->id,
                    c->peer_host, c->close_after_flush);
        conn_close(c, true, c->close_after_flush);
        return;
    }
    conn_unmute(c);
}

/*
 * Drives the TLS handshake; true once it is done (the connection then reads
 * frames), false while it waits for the socket or after it failed (closed).
 */
static bool tls_handshake(kc_conn_t *c)
{
    ERR_clear_error();
    int r = SSL_do_handshake(c->ssl);
    if (r == 1) {
        c->handshaking = false;
        event_del(c->write_ev);
        if (!c->read_armed) {
            event_add(c->read_ev, NULL);
            c->read_armed = true;
        }
        touch_idle(c);
        if (c->protocol == KC_SEC_SSL) {
            char p[1024];
            kc_tls_principal(c->ssl, p, sizeof(p));
            c->principal = kc_xstrdup(p);
        }
        kc_log_debug("net", "connection %llu from %s on %s: %s handshake done (%s), principal %s",
                     (unsigned long long)c->id, c->peer_host, c->listener,
                     SSL_get_version(c->ssl), SSL_get_cipher_name(c->ssl),
                     c->principal ? c->principal : KC_PRINCIPAL_ANONYMOUS);
        return true;
    }
    int e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_WANT_READ) {
        event_del(c->write_ev);
        return false;
    }
    if (e == SSL_ERROR_WANT_WRITE) {
        event_add(c->write_ev, NULL);
        return false;
    }
    char ebuf[256];
    const char *why = e == SSL_ERROR_SYSCALL || e == SSL_ERROR_ZERO_RETURN
                          ? "connection closed during the handshake"
                          : kc_tls_error_text(ebuf, sizeof(ebuf));
    /* Kafka logs a failed SSL handshake as a failed authentication. */
    kc_log_info("net", "Failed authentication with %s (connection %llu on %s): SSL handshake "
                       "failed: %s",
                c->peer_host, (unsigned long long)c->id, c->listener, why);
    ERR_clear_error();
    conn_close(c, true, "SSL handshake failed");
    return false;
}

/* Writes what it can; returns false if the connection was closed. */
static bool conn_flush(kc_conn_t *c)
{
    while (c->out_off < c->out.len) {
        if (c->ssl) {
            size_t left = KC_MIN(c->out.len - c->out_off, (size_t)INT32_MAX);
            ERR_clear_error();
            int w = SSL_write(c->ssl, c->out.data + c->out_off, (int)left);
            if (w > 0) {
                c->out_off += (size_t)w;
                continue;
            }
            int e = SSL_get_error(c->ssl, w);
            if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
                event_add(c->write_ev, NULL);
                touch_idle(c);
                return true;
            }
            char ebuf[256];
            conn_close(c, true, e == SSL_ERROR_SYSCALL ? strerror(errno)
                                                       : kc_tls_error_text(ebuf, sizeof(ebuf)));
            ERR_clear_error();
            return false;
        }
        ssize_t w = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (w > 0) {
            c->out_off += (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            event_add(c->write_ev, NULL);
            touch_idle(c);
            return true;
        }
        conn_close(c, true, w < 0 ? strerror(errno) : "write failed");
        return false;
    }
    kc_buf_reset(&c->out);
    c->out_off = 0;
    event_del(c->write_ev);
    touch_idle(c);
    return true;
}

static void write_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kc_conn_t *c = arg;
    if (c->closed)
        return;
    if (c->handshaking) {
        if (tls_handshake(c))
            read_cb(fd, EV_READ, c); /* the client may have sent a request already */
        return;
    }
    if (conn_flush(c) && c->out.len == 0 && c->in_flight && c->out_off == 0)
        conn_flushed(c);
}

static void set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL, 0);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int conn_adopt(kc_net_t *n, int fd, const char *peer_host, const char *listener,
                      const listener_t *l, uint64_t *conn_id)
{
    set_nonblocking(fd);
    kc_conn_t *c = kc_xcalloc(1, sizeof(*c));
    if (l) {
        c->protocol = l->protocol;
        if (l->tls) {
            c->ssl = kc_tls_session(l->tls, fd, l->protocol == KC_SEC_SSL);
            if (!c->ssl) {
                free(c);
                return KC_EIO;
            }
            c->handshaking = true;
        }
    }
    c->net = n;
    c->id = n->next_id++;
    c->fd = fd;
    snprintf(c->peer_host, sizeof(c->peer_host), "%s", peer_host ? peer_host : "/unknown");
    snprintf(c->listener, sizeof(c->listener), "%s", listener ? listener : "PLAINTEXT");
    kc_buf_init(&c->out);
    c->read_ev = event_new(n->base, fd, EV_READ | EV_PERSIST, read_cb, c);
    c->write_ev = event_new(n->base, fd, EV_WRITE | EV_PERSIST, write_cb, c);
    c->idle_ev = evtimer_new(n->base, idle_cb, c);
    if (!c->read_ev || !c->write_ev || !c->idle_ev) {
        conn_free(c);
        return KC_EIO;
    }
    c->next_in_bucket = n->buckets[c->id % NBUCKETS];
    n->buckets[c->id % NBUCKETS] = c;
    n->nconns++;
    event_add(c->read_ev, NULL);
    c->read_armed = true;
    touch_idle(c);
    arm_idle(c, n->cfg.idle_timeout_ms);
    if (conn_id)
        *conn_id = c->id;
    kc_log_debug("net", "connection %llu from %s on %s", (unsigned long long)c->id,
                 c->peer_host, c->listener);
    return 0;
}

int kc_net_adopt(kc_net_t *n, int fd, const char *peer_host, const char *listener,
                 uint64_t *conn_id)
{
    return conn_adopt(n, fd, peer_host, listener, NULL, conn_id);
}

/* Appends the bytes of iov from offset skip on to c->out. */
static void out_append_from(kc_conn_t *c, const struct iovec *iov, int iovcnt, size_t skip)
{
    for (int i = 0; i < iovcnt; i++) {
        if (skip >= iov[i].iov_len) {
            skip -= iov[i].iov_len;
            continue;
        }
        kc_buf_append(&c->out, (const uint8_t *)iov[i].iov_base + skip, iov[i].iov_len - skip);
        skip = 0;
    }
}

int kc_net_send_parts(kc_net_t *n, uint64_t conn_id, const void *head, size_t head_len,
                      const void *body, size_t body_len)
{
    kc_conn_t *c = conn_find(n, conn_id);
    if (!c)
        return KC_ENOENT;
    size_t len = head_len + body_len;
    if (!c->in_flight || len > INT32_MAX || len < head_len)
        return KC_EINVAL;
    uint8_t sz[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                     (uint8_t)len};
    struct iovec iov[3] = {{sz, 4}, {(void *)head, head_len}, {(void *)body, body_len}};
    if (c->ssl) {
        /* One SSL_write of the whole frame, from c->out (SSL needs the same
         * buffer again when it asks to be called back). */
        bool idle = c->out.len == 0;
        out_append_from(c, iov, 3, 0);
        if (idle && conn_flush(c) && c->out.len == 0)
            conn_flushed(c);
        return 0;
    }
    if (c->out.len > 0) {
        /* Earlier bytes still wait for the socket: keep the order. */
        out_append_from(c, iov, 3, 0);
        return 0;
    }
    /* Nothing queued: write straight from the caller's memory, buffering
     * only what the socket does not take now. */
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 3};
    ssize_t w;
    do
        w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        conn_close(c, true, strerror(errno));
        return 0; /* closed; on_close was called */
    }
    size_t done = w > 0 ? (size_t)w : 0;
    if (done > 0)
        touch_idle(c);
    if (done == 4 + len) {
        conn_flushed(c);
        return 0;
    }
    out_append_from(c, iov, 3, done);
    c->out_off = 0;
    event_add(c->write_ev, NULL);
    return 0;
}

int kc_net_send(kc_net_t *n, uint64_t conn_id, const void *data, size_t len)
{
    return kc_net_send_parts(n, conn_id, data, len, NULL, 0);
}

int kc_net_request_done(kc_net_t *n, uint64_t conn_id)
{
    kc_conn_t *c = conn_find(n, conn_id);
    if (!c)
        return KC_ENOENT;
    if (!c->in_flight)
        return KC_EINVAL;
    if (c->out.len == 0)
        conn_flushed(c);
    return 0;
}

void kc_net_close(kc_net_t *n, uint64_t conn_id, const char *why)
{
    kc_conn_t *c = conn_find(n, conn_id);
    if (c)
        conn_close(c, true, why ? why : "closed");
}

int kc_net_send_close(kc_net_t *n, uint64_t conn_id, const void *data, size_t len,
                      const char *why)
{
    kc_conn_t *c = conn_find(n, conn_id);
    if (!c)
        return KC_ENOENT;
    if (!c->in_flight)
        return KC_EINVAL;
    free(c->close_after_flush);
    c->close_after_flush = kc_xstrdup(why ? why : "closed");
    return kc_net_send(n, conn_id, data, len);
}

static const char *const protocol_names[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};

const char *kc_security_protocol_name(kc_security_protocol_t p)
{
    return (size_t)p < KC_ARRAY_LEN(protocol_names) ? protocol_names[p] : "PLAINTEXT";
}

int kc_security_protocol_parse(const char *name, kc_security_protocol_t *out)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(protocol_names); i++) {
        if (name && strcmp(name, protocol_names[i]) == 0) {
            *out = (kc_security_protocol_t)i;
            return 0;
        }
    }
    return -1;
}

const char *kc_net_principal(const kc_net_t *n, uint64_t conn_id)
{
    const kc_conn_t *c = conn_find(n, conn_id);
    if (!c)
        return NULL;
    return conn_principal(c);
}

int kc_net_set_principal(kc_net_t *n, uint64_t conn_id, const char *principal)
{
    kc_conn_t *c = conn_find(n, conn_id);
    if (!c)
        return KC_ENOENT;
    free(c->principal);
    c->principal = principal ? kc_xstrdup(principal) : NULL;
    return 0;
}

kc_security_protocol_t kc_net_conn_protocol(const kc_net_t *n, uint64_t conn_id)
{
    const kc_conn_t *c = conn_find(n, conn_id);
    return c ? c->protocol : KC_SEC_PLAINTEXT;
}

const char *kc_net_conn_listener(const kc_net_t *n, uint64_t conn_id)
{
    const kc_conn_t *c = conn_find(n, conn_id);
    return c ? c->listener : NULL;
}

int kc_net_set_conn_data(kc_net_t *n, uint64_t conn_id, void *data, void (*free_fn)(void *))
{
    kc_conn_t *c = conn_find(n, conn_id);
    if (!c)
        return KC_ENOENT;
    if (c->user && c->user_free && c->user != data)
        c->user_free(c->user);
    c->user = data;
    c->user_free = free_fn;
    return 0;
}

void *kc_net_conn_data(const kc_net_t *n, uint64_t conn_id)
{
    const kc_conn_t *c = conn_find(n, conn_id);
    return c ? c->user : NULL;
}

bool kc_net_conn_exists(const kc_net_t *n, uint64_t conn_id)
{
    return conn_find(n, conn_id) != NULL;
}

uint64_t kc_net_bytes_read(const kc_net_t *n, uint64_t conn_id)
{
    const kc_conn_t *c = conn_find(n, conn_id);
    return c ? c->bytes_read : 0;
}

size_t kc_net_conn_count(const kc_net_t *n)
{
    return n->nconns;
}

size_t kc_net_pending_output(const kc_net_t *n)
{
    size_t k = 0;
    for (size_t b = 0; b < NBUCKETS; b++)
        for (const kc_conn_t *c = n->buckets[b]; c; c = c->next_in_bucket)
            k += c->out_off < c->out.len;
    return k;
}

static void format_peer(const struct sockaddr *sa, char *out, size_t outlen)
{
    char host[INET6_ADDRSTRLEN] = "unknown";
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, host,
                  sizeof(host));
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, host,
                  sizeof(host));
    snprintf(out, outlen, "/%s", host);
}

/* max.connections reached (on = false) or left (true): stop or resume accepting. */
static void set_accepting(kc_net_t *n, bool on)
{
    n->at_max = !on;
    for (size_t i = 0; i < n->nlisteners; i++) {
        if (!n->listeners[i].lev)
            continue;
        if (on)
            evconnlistener_enable(n->listeners[i].lev);
        else
            evconnlistener_disable(n->listeners[i].lev);
    }
    if (on)
        kc_log_info("net", "below max.connections (%d) again: accepting", n->cfg.max_connections);
    else
        kc_log_warn("net", "max.connections (%d) reached: new connections wait until one closes",
                    n->cfg.max_connections);
}

/* Open connections from peer ("/127.0.0.1"). */
static size_t conns_from(const kc_net_t *n, const char *peer)
{
    size_t k = 0;
    for (size_t b = 0; b < NBUCKETS; b++)
        for (const kc_conn_t *c = n->buckets[b]; c; c = c->next_in_bucket)
            k += strcmp(c->peer_host, peer) == 0;
    return k;
}

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa,
                      int socklen, void *arg)
{
    (void)lev;
    (void)socklen;
    listener_t *l = arg;
    kc_net_t *n = l->net;
    char peer[INET6_ADDRSTRLEN + 2];
    format_peer(sa, peer, sizeof(peer));
    int32_t per_ip = kc_config_ip_override(n->cfg.max_connections_per_ip_overrides, peer + 1);
    if (per_ip < 0)
        per_ip = n->cfg.max_connections_per_ip;
    if (per_ip < INT32_MAX && conns_from(n, peer) >= (size_t)per_ip) {
        /* ConnectionQuotas.inc: TooManyConnectionsException, the socket is closed. */
        kc_log_info("net", "rejected connection from %s: max.connections.per.ip (%d) reached",
                    peer, per_ip);
        close(fd);
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (conn_adopt(n, fd, peer, l->name, l, NULL) != 0) {
        kc_log_error("net", "cannot set up connection from %s", peer);
        close(fd);
    }
    if (!n->at_max && n->nconns >= (size_t)n->cfg.max_connections)
        set_accepting(n, false);
}

static void accept_resume_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    listener_t *l = arg;
    if (l->lev && !l->net->at_max) {
        evconnlistener_enable(l->lev);
        kc_log_info("net", "accepting connections on listener %s again", l->name);
    }
}

static void accept_error_cb(struct evconnlistener *lev, void *arg)
{
    listener_t *l = arg;
    int err = EVUTIL_SOCKET_ERROR();
    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
        /* The pending connection stays in the backlog; accepting again
         * before a descriptor is free would fail the same way in a loop. */
        evconnlistener_disable(lev);
        if (!l->resume)
            l->resume = evtimer_new(l->net->base, accept_resume_cb, l);
        struct timeval tv = {ACCEPT_PAUSE_MS / 1000, (ACCEPT_PAUSE_MS % 1000) * 1000};
        evtimer_add(l->resume, &tv);
        kc_log_warn("net", "accept on listener %s failed: %s; not accepting for %d ms", l->name,
                    evutil_socket_error_to_string(err), ACCEPT_PAUSE_MS);
        return;
    }
    kc_log_warn("net", "accept on listener %s failed: %s", l->name, evutil_socket_error_to_string(err));
}

int kc_net_listen(kc_net_t *n, const kc_listener_t *l, uint16_t *bound_port)
{
    return kc_net_listen_secure(n, l, KC_SEC_PLAINTEXT, NULL, bound_port);
}

int kc_net_listen_secure(kc_net_t *n, const kc_listener_t *l, kc_security_protocol_t proto,
                         kc_tls_t *tls, uint16_t *bound_port)
{
    if (n->nlisteners >= KC_MAX_LISTENERS)
        return KC_EINVAL;
    if ((proto == KC_SEC_SSL || proto == KC_SEC_SASL_SSL) != (tls != NULL))
        return KC_EINVAL;
    char port[8];
    snprintf(port, sizeof(port), "%u", (unsigned)l->port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    int gai = getaddrinfo(l->host[0] ? l->host : NULL, port, &hints, &res);
    if (gai != 0 || !res) {
        kc_log_error("net", "listener %s://%s:%u: cannot resolve host: %s", l->name, l->host,
                     (unsigned)l->port, gai_strerror(gai));
        return KC_EIO;
    }
    listener_t *slot = &n->listeners[n->nlisteners];
    slot->net = n;
    snprintf(slot->name, sizeof(slot->name), "%s", l->name);
    slot->protocol = proto;
    slot->tls = tls;
    slot->lev = evconnlistener_new_bind(n->base, accept_cb, slot,
                                        LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE |
                                            LEV_OPT_CLOSE_ON_EXEC,
                                        128, res->ai_addr, (int)res->ai_addrlen);
    freeaddrinfo(res);
    if (!slot->lev) {
        kc_log_error("net", "listener %s://%s:%u: cannot listen: %s", l->name, l->host,
                     (unsigned)l->port, strerror(errno));
        return KC_EIO;
    }
    evconnlistener_set_error_cb(slot->lev, accept_error_cb);
    if (n->at_max)
        evconnlistener_disable(slot->lev);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    uint16_t bp = l->port;
    if (getsockname(evconnlistener_get_fd(slot->lev), (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET)
            bp = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            bp = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    if (bound_port)
        *bound_port = bp;
    n->nlisteners++;
    kc_log_info("net", "listening on %s://%s:%u (%s)", l->name, l->host, (unsigned)bp,
                kc_security_protocol_name(proto));
    return 0;
}

void kc_net_stop_listening(kc_net_t *n)
{
    for (size_t i = 0; i < n->nlisteners; i++) {
        if (n->listeners[i].lev) {
            evconnlistener_free(n->listeners[i].lev);
            n->listeners[i].lev = NULL;
        }
        if (n->listeners[i].resume) {
            event_free(n->listeners[i].resume);
            n->listeners[i].resume = NULL;
        }
    }
}

kc_net_t *kc_net_new(struct event_base *base, const kc_net_config_t *cfg,
                     const kc_net_handler_t *handler)
{
    kc_net_t *n = kc_xcalloc(1, sizeof(*n));
    n->base = base;
    n->cfg = *cfg;
    if (n->cfg.max_connections <= 0)
        n->cfg.max_connections = INT32_MAX;
    if (n->cfg.max_connections_per_ip <= 0)
        n->cfg.max_connections_per_ip = INT32_MAX;
    n->h = *handler;
    n->next_id = 1;
    n->reap_ev = event_new(base, -1, 0, reap_cb, n);
    return n;
}

void kc_net_free(kc_net_t *n)
{
    if (!n)
        return;
    kc_net_stop_listening(n);
    for (size_t b = 0; b < NBUCKETS; b++) {
        while (n->buckets[b]) {
            kc_conn_t *c = n->buckets[b];
            conn_close(c, false, "shutdown");
        }
    }
    reap_cb(-1, 0, n);
    event_free(n->reap_ev);
    free(n);
}
