/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SASL on SASL_PLAINTEXT and SASL_SSL listeners, as Kafka's
 * SaslServerAuthenticator: before authentication a connection may send
 * ApiVersions (once) and SaslHandshake; any other request closes it.
 * SaslHandshake v0 is followed by raw SASL tokens framed by their length,
 * v1 by SaslAuthenticate requests. Mechanisms PLAIN, SCRAM-SHA-256 and
 * SCRAM-SHA-512 against the salted credentials of sasl.credentials.file.
 * A failed authentication is logged, answered after
 * connection.failed.authentication.delay.ms and the connection closed.
 * KIP-368: with connections.max.reauth.ms the session has a lifetime, a
 * SaslHandshake on an authenticated connection starts re-authentication
 * (same mechanism, same principal), and a request arriving after the
 * session expired closes the connection.
 */
#include "server_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <openssl/crypto.h>

#include "kc_log.h"
#include "kc_scram.h"

typedef enum {
    ST_INITIAL,              /* nothing received yet */
    ST_HANDSHAKE_OR_VERSIONS, /* a valid Kafka request came: ApiVersions or SaslHandshake */
    ST_HANDSHAKE,            /* ApiVersions answered: SaslHandshake only */
    ST_AUTHENTICATE,         /* tokens of the chosen mechanism */
    ST_REAUTH_BAD_MECHANISM, /* re-authentication asked for another mechanism */
    ST_COMPLETE,
    ST_FAILED,
} sasl_state_t;

typedef enum { MECH_PLAIN, MECH_SCRAM_SHA_256, MECH_SCRAM_SHA_512 } mech_t;

static const char *const mech_names[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};

typedef struct {
    kc_server_t *srv;
    uint64_t conn_id;
    sasl_state_t state;
    bool kafka_headers; /* SaslHandshake v1+: tokens come in SaslAuthenticate */
    mech_t mech;
    kc_scram_server_t scram;
    bool reauthenticating;
    mech_t prev_mech;
    char prev_principal[320];
    int64_t session_expires_ms; /* monotonic; INT64_MAX = no lifetime */
    int64_t last_reauth_start_ms;
    bool reauth_started;
    struct event *fail_ev; /* delayed answer and close of a failed authentication */
    kc_buf_t fail_frame;
    bool fail_has_frame;
    char *fail_why;
} sasl_conn_t;

static void sasl_conn_free(void *p)
{
    sasl_conn_t *sc = p;
    kc_scram_server_deinit(&sc->scram);
    if (sc->fail_ev)
        event_free(sc->fail_ev);
    kc_buf_deinit(&sc->fail_frame);
    free(sc->fail_why);
    free(sc);
}

/* Kafka prints ApiKeys by enum name: "FindCoordinator" -> "FIND_COORDINATOR". */
static void api_enum_name(int16_t api_key, char *out, size_t outlen)
{
    const kc_api_entry_t *e = kc_api_find(api_key);
    if (!e) {
        snprintf(out, outlen, "%d", api_key);
        return;
    }
    size_t o = 0;
    for (const char *p = e->name; *p && o + 2 < outlen; p++) {
        if (p != e->name && isupper((unsigned char)*p))
            out[o++] = '_';
        out[o++] = (char)toupper((unsigned char)*p);
    }
    out[o] = '\0';
}

static bool mechanism_enabled(const kc_server_t *s, const char *mech)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s->cfg->sasl_enabled_mechanisms);
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        if (strcmp(t, mech) == 0)
            return true;
    return false;
}

/* The enabled mechanisms as the handshake response lists them. */
static kc_str_array_t enabled_list(kc_server_t *s, kc_arena_t *arena)
{
    kc_str_array_t a = {kc_arena_alloc(arena, 3 * sizeof(kc_str_t)), 0};
    const char *p = s->cfg->sasl_enabled_mechanisms;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t n = strcspn(p, ", ");
        if (n > 0 && a.count < 3)
            a.items[a.count++] = (kc_str_t){p, (int32_t)n};
        p += n;
    }
    return a;
}

static void send_frame(kc_server_t *s, uint64_t conn_id, const kc_buf_t *b)
{
    s->metrics.bytes_out += b->len + 4;
    kc_net_send(s->net, conn_id, b->data, b->len);
}

/* ---- failure: log, wait, answer, close ---- */

static void fail_fire(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    sasl_conn_t *sc = arg;
    kc_server_t *s = sc->srv;
    if (sc->fail_has_frame) {
        s->metrics.bytes_out += sc->fail_frame.len + 4;
        kc_net_send_close(s->net, sc->conn_id, sc->fail_frame.data, sc->fail_frame.len,
                          sc->fail_why);
    } else {
        kc_net_close(s->net, sc->conn_id, sc->fail_why);
    }
}

/*
 * An AuthenticationException in Kafka: logged as "Failed authentication",
 * the response (frame, may be NULL) is written after the failed
 * authentication delay and the connection closed.
 */
static void auth_failed(sasl_conn_t *sc, const kc_conn_info_t *conn, const char *why,
                        const kc_buf_t *frame)
{
    kc_server_t *s = sc->srv;
    kc_log_info("sasl", "Failed %sauthentication with %s (connection %llu on %s) (%s)",
                sc->reauthenticating ? "re-" : "", conn->peer_host,
                (unsigned long long)conn->conn_id, conn->listener, why);
    sc->state = ST_FAILED;
    free(sc->fail_why);
    sc->fail_why = kc_xstrdup("authentication failed");
    sc->fail_has_frame = frame != NULL;
    kc_buf_reset(&sc->fail_frame);
    if (frame)
        kc_buf_append(&sc->fail_frame, frame->data, frame->len);
    int32_t delay = s->cfg->connection_failed_authentication_delay_ms;
    if (!sc->fail_ev)
        sc->fail_ev = evtimer_new(s->base, fail_fire, sc);
    struct timeval tv = {delay / 1000, (delay % 1000) * 1000};
    evtimer_add(sc->fail_ev, &tv);
}

/* Not an authentication failure (bad request, wrong API): closed at once. */
static void close_unexpected(kc_server_t *s, const kc_conn_info_t *conn, const char *why)
{
    kc_log_warn("sasl", "closing connection %llu from %s on %s: %s",
                (unsigned long long)conn->conn_id, conn->peer_host, conn->listener, why);
    kc_net_close(s->net, conn->conn_id, why);
}

/* ---- mechanisms ---- */

typedef enum { EV_CONTINUE, EV_COMPLETE, EV_FAIL } eval_t;

int kc_sasl_plain_split(const uint8_t *tok, size_t len, char *authz, size_t authzlen,
                        char *name, size_t namelen, char *pw, size_t pwlen)
{
    const uint8_t *z1 = len ? memchr(tok, 0, len) : NULL;
    const uint8_t *z2 = z1 ? memchr(z1 + 1, 0, len - (size_t)(z1 + 1 - tok)) : NULL;
    int ntok = 1 + (z1 != NULL) + (z2 != NULL);
    if (z2 && memchr(z2 + 1, 0, len - (size_t)(z2 + 1 - tok)))
        ntok = 4;
    if (ntok != 3)
        return ntok;
    size_t la = (size_t)(z1 - tok), ln = (size_t)(z2 - z1 - 1), lp = len - (size_t)(z2 + 1 - tok);
    if (la >= authzlen || ln >= namelen || lp >= pwlen)
        return -1;
    memcpy(authz, tok, la);
    authz[la] = '\0';
    memcpy(name, z1 + 1, ln);
    name[ln] = '\0';
    memcpy(pw, z2 + 1, lp);
    pw[lp] = '\0';
    return 3;
}

/*
 * Evaluates one client token: out gets the server's token. On EV_FAIL,
 * client_msg is what SaslAuthenticate v1+ tells the client and reason what
 * the log says.
 */
static eval_t evaluate(sasl_conn_t *sc, const uint8_t *tok, size_t len, kc_buf_t *out,
                       char *client_msg, size_t cmlen, char *reason, size_t rlen,
                       char *user, size_t userlen)
{
    kc_server_t *s = sc->srv;
    const char *phase = sc->reauthenticating ? "re-authentication" : "authentication";
    if (sc->mech == MECH_PLAIN) {
        char authz[256], name[256], pw[1024];
        int ntok = kc_sasl_plain_split(tok, len, authz, sizeof(authz), name, sizeof(name), pw,
                                       sizeof(pw));
        if (ntok > 0 && ntok != 3) {
            snprintf(client_msg, cmlen, "Invalid SASL/PLAIN response: expected 3 tokens, got %d",
                     ntok);
            snprintf(reason, rlen, "%s", client_msg);
            return EV_FAIL;
        }
        if (ntok < 0) {
            snprintf(client_msg, cmlen, "Authentication failed: Invalid username or password");
            snprintf(reason, rlen, "%s", client_msg);
            return EV_FAIL;
        }
        eval_t r = EV_FAIL;
        if (!name[0]) {
            snprintf(client_msg, cmlen, "Authentication failed: username not specified");
        } else if (!pw[0]) {
            snprintf(client_msg, cmlen, "Authentication failed: password not specified");
        } else {
            const kc_scram_credential_t *c =
                kc_credentials_find(s->credentials, name, KC_SCRAM_SHA_256);
            if (!c)
                c = kc_credentials_find(s->credentials, name, KC_SCRAM_SHA_512);
            if (!c || !kc_scram_check_password(c, pw))
                snprintf(client_msg, cmlen,
                         "Authentication failed: Invalid username or password");
            else if (authz[0] && strcmp(authz, name) != 0)
                snprintf(client_msg, cmlen, "Authentication failed: Client requested an "
                                            "authorization id that is different from username");
            else
                r = EV_COMPLETE;
        }
        OPENSSL_cleanse(pw, sizeof(pw));
        if (r == EV_FAIL)
            snprintf(reason, rlen, "%s (user %s)", client_msg, name);
        snprintf(user, userlen, "%s", name);
        return r;
    }
    const char *cm = NULL;
    kc_scram_result_t r;
    bool first = sc->scram.state == 0;
    if (first)
        r = kc_scram_server_first(&sc->scram, s->credentials, tok, len, NULL, out, &cm, reason,
                                  rlen);
    else
        r = kc_scram_server_final(&sc->scram, tok, len, out, &cm, reason, rlen);
    if (r == KC_SCRAM_OK) {
        snprintf(user, userlen, "%s", sc->scram.username);
        return first ? EV_CONTINUE : EV_COMPLETE;
    }
    if (r == KC_SCRAM_FAIL_MSG)
        snprintf(client_msg, cmlen, "%s", cm);
    else
        snprintf(client_msg, cmlen,
                 "Authentication failed during %s due to invalid credentials with SASL "
                 "mechanism %s",
                 phase, mech_names[sc->mech]);
    if (sc->scram.username[0] && !strstr(reason, sc->scram.username)) {
        size_t l = strlen(reason);
        snprintf(reason + l, rlen - l, " (user %s)", sc->scram.username);
    }
    return EV_FAIL;
}

/* Authentication done: principal, session lifetime (ms, 0 = none) returned. */
static int64_t complete(sasl_conn_t *sc, const char *user, char *err, size_t errlen)
{
    kc_server_t *s = sc->srv;
    char principal[320];
    snprintf(principal, sizeof(principal), "User:%s", user);
    if (sc->reauthenticating && strcmp(principal, sc->prev_principal) != 0) {
        /* KafkaPrincipal prints type.name here. */
        const char *pn = sc->prev_principal + 5;
        snprintf(err, errlen, "Cannot change principals during re-authentication from User.%s: "
                              "User.%s", pn, user);
        return -1;
    }
    kc_net_set_principal(s->net, sc->conn_id, principal);
    sc->state = ST_COMPLETE;
    int64_t lifetime = s->cfg->connections_max_reauth_ms;
    sc->session_expires_ms = lifetime > 0 ? kc_server_mono_ms() + lifetime : INT64_MAX;
    kc_log_debug("sasl", "connection %llu %sauthenticated as %s with %s (session lifetime %lld ms)",
                 (unsigned long long)sc->conn_id, sc->reauthenticating ? "re-" : "", principal,
                 mech_names[sc->mech], (long long)lifetime);
    sc->reauthenticating = false;
    return lifetime > 0 ? lifetime : 0;
}

/* ---- raw tokens (after SaslHandshake v0) ---- */

static void handle_raw_token(sasl_conn_t *sc, const kc_conn_info_t *conn, const uint8_t *data,
                             size_t len)
{
    kc_server_t *s = sc->srv;
    if (sc->state == ST_REAUTH_BAD_MECHANISM) {
        auth_failed(sc, conn, "re-authentication with another mechanism", NULL);
        return;
    }
    kc_buf_t out;
    kc_buf_init(&out);
    char cm[300], reason[400] = "", user[256] = "";
    eval_t r = evaluate(sc, data, len, &out, cm, sizeof(cm), reason, sizeof(reason), user,
                        sizeof(user));
    if (r == EV_COMPLETE) {
        char err[600];
        if (complete(sc, user, err, sizeof(err)) < 0) {
            /* No Kafka framing here: nothing tells the client why. */
            auth_failed(sc, conn, err, NULL);
            kc_buf_deinit(&out);
            return;
        }
    }
    if (r == EV_FAIL)
        auth_failed(sc, conn, reason[0] ? reason : cm, NULL);
    else
        send_frame(s, conn->conn_id, &out); /* PLAIN's empty token is a 0-length frame */
    kc_buf_deinit(&out);
}

/* ---- Kafka requests during authentication ---- */

/* Frames a response (header + body) into out. */
static void frame_response(kc_buf_t *out, int32_t correlation_id, bool flexible,
                           const kc_buf_t *body)
{
    kc_response_header_encode(out, correlation_id, flexible);
    kc_buf_append(out, body->data, body->len);
}

static void handle_authenticate(sasl_conn_t *sc, const kc_conn_info_t *conn, const uint8_t *data,
                                size_t len)
{
    kc_server_t *s = sc->srv;
    kc_reader_t r;
    kc_reader_init(&r, data, len);
    int16_t api_key = kc_read_int16(&r);
    int16_t version = kc_read_int16(&r);
    const kc_api_entry_t *e = r.err ? NULL : kc_api_find(api_key);
    kc_request_header_t h;
    kc_reader_init(&r, data, len);
    if (!e || kc_request_header_decode(&r, version >= e->flexible_min, &h) != 0) {
        close_unexpected(s, conn, "malformed request during SASL authentication");
        return;
    }
    kc_arena_reset(&s->arena);
    kc_buf_t body, frame;
    kc_buf_init(&body);
    kc_buf_init(&frame);
    if (api_key != KC_API_SASL_AUTHENTICATE) {
        char name[64], msg[160];
        api_enum_name(api_key, name, sizeof(name));
        snprintf(msg, sizeof(msg), "Unexpected Kafka request of type %s during SASL authentication.",
                 name);
        /* The request's own error response carrying ILLEGAL_SASL_STATE. */
        bool ok = version >= e->min_version && version <= e->max_version &&
                  kc_msg_error_response_encode(api_key, version, &r, &s->arena,
                                               KC_ERR_ILLEGAL_SASL_STATE, &body) == 0;
        if (ok)
            frame_response(&frame, h.correlation_id,
                           api_key != KC_API_API_VERSIONS && version >= e->flexible_min, &body);
        auth_failed(sc, conn, msg, ok ? &frame : NULL);
        goto out;
    }
    if (version < e->min_version || version > e->max_version) {
        close_unexpected(s, conn, "unsupported SaslAuthenticate version");
        goto out;
    }
    kc_sasl_authenticate_request_t rq;
    kc_sasl_authenticate_request_init(&rq);
    if (kc_sasl_authenticate_request_decode(&r, version, &s->arena, &rq) != 0) {
        close_unexpected(s, conn, "malformed SaslAuthenticate request");
        goto out;
    }
    kc_sasl_authenticate_response_t resp;
    kc_sasl_authenticate_response_init(&resp);
    bool flexible = version >= e->flexible_min;
    if (sc->state == ST_REAUTH_BAD_MECHANISM) {
        /* Thrown before any response is built: closed without one. */
        char why[200];
        snprintf(why, sizeof(why), "SASL mechanism requested by client is not supported for "
                                   "re-authentication of mechanism '%s'",
                 mech_names[sc->prev_mech]);
        auth_failed(sc, conn, why, NULL);
        goto out;
    }
    kc_buf_t tok;
    kc_buf_init(&tok);
    char cm[700], reason[700] = "", user[256] = "";
    eval_t ev = evaluate(sc, rq.auth_bytes.ptr ? rq.auth_bytes.ptr : (const uint8_t *)"",
                         rq.auth_bytes.len > 0 ? (size_t)rq.auth_bytes.len : 0, &tok, cm,
                         sizeof(cm), reason, sizeof(reason), user, sizeof(user));
    int64_t lifetime = 0;
    if (ev == EV_COMPLETE) {
        char err[600];
        lifetime = complete(sc, user, err, sizeof(err));
        if (lifetime < 0) {
            snprintf(cm, sizeof(cm), "%s", err);
            snprintf(reason, sizeof(reason), "%s", err);
            ev = EV_FAIL;
        }
    }
    if (ev == EV_FAIL) {
        resp.error_code = KC_ERR_SASL_AUTHENTICATION_FAILED;
        resp.error_message = kc_str(cm);
        resp.auth_bytes = (kc_bytes_t){(const uint8_t *)"", 0};
        if (kc_sasl_authenticate_response_encode(&body, version, &resp) == 0)
            frame_response(&frame, h.correlation_id, flexible, &body);
        auth_failed(sc, conn, reason[0] ? reason : cm, frame.len ? &frame : NULL);
        kc_buf_deinit(&tok);
        goto out;
    }
    resp.error_code = KC_ERR_NONE;
    resp.error_message = KC_STR_NULL;
    resp.auth_bytes = (kc_bytes_t){tok.len ? tok.data : (const uint8_t *)"", (int32_t)tok.len};
    resp.session_lifetime_ms = lifetime;
    if (kc_sasl_authenticate_response_encode(&body, version, &resp) == 0) {
        frame_response(&frame, h.correlation_id, flexible, &body);
        send_frame(s, conn->conn_id, &frame);
    } else {
        close_unexpected(s, conn, "cannot encode the SaslAuthenticate response");
    }
    kc_buf_deinit(&tok);
out:
    kc_buf_deinit(&body);
    kc_buf_deinit(&frame);
}

/*
 * ApiVersions or SaslHandshake before authentication. Returns true when the
 * frame was handled here, false for an ApiVersions the normal path answers.
 */
static bool handle_kafka_request(sasl_conn_t *sc, const kc_conn_info_t *conn, const uint8_t *data,
                                 size_t len)
{
    kc_server_t *s = sc->srv;
    kc_reader_t r;
    kc_reader_init(&r, data, len);
    int16_t api_key = kc_read_int16(&r);
    int16_t version = kc_read_int16(&r);
    const kc_api_entry_t *e = r.err ? NULL : kc_api_find(api_key);
    kc_request_header_t h;
    kc_reader_init(&r, data, len);
    bool initial = sc->state == ST_INITIAL;
    if (!e || (api_key != KC_API_API_VERSIONS && api_key != KC_API_SASL_HANDSHAKE) ||
        kc_request_header_decode(&r, version >= e->flexible_min, &h) != 0) {
        char name[64], msg[400];
        if (e)
            api_enum_name(api_key, name, sizeof(name));
        else
            snprintf(name, sizeof(name), "%d", r.err ? -1 : api_key);
        snprintf(msg, sizeof(msg), "Unexpected Kafka request of type %s during SASL handshake.",
                 name);
        if (initial)
            snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
                     " Invalid request, potential reasons: kafka client configured with the "
                     "wrong security protocol, it does not support KIP-43 or it is not a kafka "
                     "client.");
        close_unexpected(s, conn, msg);
        return true;
    }
    if (sc->state == ST_INITIAL)
        sc->state = ST_HANDSHAKE_OR_VERSIONS;
    if (api_key == KC_API_API_VERSIONS) {
        if (sc->state != ST_HANDSHAKE_OR_VERSIONS) {
            close_unexpected(s, conn, "Unexpected ApiVersions request received during SASL "
                                      "authentication");
            return true;
        }
        /* Answered by the normal path; an unsupported version (KIP-511 retry) keeps the state. */
        if (version >= e->min_version && version <= e->max_version)
            sc->state = ST_HANDSHAKE;
        return false;
    }
    if (version < e->min_version || version > e->max_version) {
        close_unexpected(s, conn, "unsupported SaslHandshake version");
        return true;
    }
    kc_arena_reset(&s->arena);
    kc_sasl_handshake_request_t rq;
    kc_sasl_handshake_request_init(&rq);
    if (kc_sasl_handshake_request_decode(&r, version, &s->arena, &rq) != 0) {
        close_unexpected(s, conn, "malformed SaslHandshake request");
        return true;
    }
    char mech[64];
    snprintf(mech, sizeof(mech), "%.*s", rq.mechanism.len > 0 ? (int)rq.mechanism.len : 0,
             rq.mechanism.ptr ? rq.mechanism.ptr : "");
    sc->kafka_headers = version >= 1;
    kc_sasl_handshake_response_t resp;
    kc_sasl_handshake_response_init(&resp);
    resp.mechanisms = enabled_list(s, &s->arena);
    kc_buf_t body, frame;
    kc_buf_init(&body);
    kc_buf_init(&frame);
    int m = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(mech, mech_names[i]) == 0)
            m = i;
    if (m < 0 || !mechanism_enabled(s, mech)) {
        resp.error_code = KC_ERR_UNSUPPORTED_SASL_MECHANISM;
        kc_sasl_handshake_response_encode(&body, version, &resp);
        frame_response(&frame, h.correlation_id, false, &body);
        char why[120];
        snprintf(why, sizeof(why), "Unsupported SASL mechanism %s", mech);
        auth_failed(sc, conn, why, &frame);
    } else {
        resp.error_code = KC_ERR_NONE;
        kc_sasl_handshake_response_encode(&body, version, &resp);
        frame_response(&frame, h.correlation_id, false, &body);
        if (sc->reauthenticating && (mech_t)m != sc->prev_mech) {
            sc->state = ST_REAUTH_BAD_MECHANISM;
        } else {
            sc->mech = (mech_t)m;
            kc_scram_server_deinit(&sc->scram);
            kc_scram_server_init(&sc->scram, m == MECH_SCRAM_SHA_512 ? KC_SCRAM_SHA_512
                                                                     : KC_SCRAM_SHA_256);
            sc->state = ST_AUTHENTICATE;
        }
        send_frame(s, conn->conn_id, &frame);
    }
    kc_buf_deinit(&body);
    kc_buf_deinit(&frame);
    return true;
}

/* Minimum time between two re-authentications (KafkaChannel). */
#define MIN_REAUTH_INTERVAL_MS 1000

bool kc_sasl_on_frame(kc_server_t *s, const kc_conn_info_t *conn, const uint8_t *data, size_t len)
{
    kc_security_protocol_t proto = kc_net_conn_protocol(s->net, conn->conn_id);
    if (proto != KC_SEC_SASL_PLAINTEXT && proto != KC_SEC_SASL_SSL)
        return false;
    sasl_conn_t *sc = kc_net_conn_data(s->net, conn->conn_id);
    if (!sc) {
        sc = kc_xcalloc(1, sizeof(*sc));
        sc->srv = s;
        sc->conn_id = conn->conn_id;
        sc->state = ST_INITIAL;
        sc->session_expires_ms = INT64_MAX;
        kc_buf_init(&sc->fail_frame);
        kc_scram_server_init(&sc->scram, KC_SCRAM_SHA_256);
        kc_net_set_conn_data(s->net, conn->conn_id, sc, sasl_conn_free);
    }
    switch (sc->state) {
    case ST_COMPLETE: {
        int16_t api_key = len >= 2 ? (int16_t)((data[0] << 8) | data[1]) : -1;
        int64_t now = kc_server_mono_ms();
        if (api_key == KC_API_SASL_HANDSHAKE && sc->session_expires_ms != INT64_MAX &&
            (!sc->reauth_started || now - sc->last_reauth_start_ms >= MIN_REAUTH_INTERVAL_MS)) {
            /* KIP-368: re-authentication on the same connection. */
            sc->reauth_started = true;
            sc->last_reauth_start_ms = now;
            sc->reauthenticating = true;
            sc->prev_mech = sc->mech;
            snprintf(sc->prev_principal, sizeof(sc->prev_principal), "%s",
                     kc_net_principal(s->net, conn->conn_id));
            sc->state = ST_HANDSHAKE;
            kc_log_debug("sasl", "connection %llu begins re-authentication",
                         (unsigned long long)conn->conn_id);
            return handle_kafka_request(sc, conn, data, len);
        }
        if (now > sc->session_expires_ms) {
            kc_log_info("sasl", "closing connection %llu from %s on %s: SASL session expired "
                                "(connections.max.reauth.ms) without re-authentication",
                        (unsigned long long)conn->conn_id, conn->peer_host, conn->listener);
            kc_net_close(s->net, conn->conn_id, "session expired");
            return true;
        }
        return false;
    }
    case ST_INITIAL:
    case ST_HANDSHAKE_OR_VERSIONS:
    case ST_HANDSHAKE:
        return handle_kafka_request(sc, conn, data, len);
    case ST_AUTHENTICATE:
    case ST_REAUTH_BAD_MECHANISM:
        if (sc->kafka_headers)
            handle_authenticate(sc, conn, data, len);
        else
            handle_raw_token(sc, conn, data, len);
        return true;
    case ST_FAILED:
        return true; /* closing: nothing more is read */
    }
    return true;
}

/* ---- SaslHandshake / SaslAuthenticate outside an exchange (KafkaApis) ---- */

int kc_handle_sasl_handshake(kc_req_t *req)
{
    kc_sasl_handshake_request_t rq;
    kc_sasl_handshake_request_init(&rq);
    if (kc_sasl_handshake_request_decode(req->body, req->ctx.api_version, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_sasl_handshake_response_t resp;
    kc_sasl_handshake_response_init(&resp);
    resp.error_code = KC_ERR_ILLEGAL_SASL_STATE;
    resp.mechanisms = (kc_str_array_t){NULL, 0};
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_sasl_handshake_response_encode(&b, req->ctx.api_version,
                                                                         &resp),
                                  &b);
}

int kc_handle_sasl_authenticate(kc_req_t *req)
{
    kc_sasl_authenticate_request_t rq;
    kc_sasl_authenticate_request_init(&rq);
    if (kc_sasl_authenticate_request_decode(req->body, req->ctx.api_version, req->arena, &rq) !=
        0)
        return KC_EINVAL;
    kc_sasl_authenticate_response_t resp;
    kc_sasl_authenticate_response_init(&resp);
    resp.error_code = KC_ERR_ILLEGAL_SASL_STATE;
    resp.error_message = kc_str("SaslAuthenticate request received after successful authentication");
    resp.auth_bytes = (kc_bytes_t){(const uint8_t *)"", 0};
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(
        req, kc_sasl_authenticate_response_encode(&b, req->ctx.api_version, &resp), &b);
}
