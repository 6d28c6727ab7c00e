/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Listeners by name and security protocol (listener.security.protocol.map),
 * the TLS context of SSL listeners, the SASL credentials, their reload on
 * SIGHUP, and the address each listener advertises.
 */
#include "server_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kc_log.h"
#include "kc_scram.h"
#include "kc_tls.h"

static int load_credentials(kc_server_t *s, kc_credentials_t **out)
{
    *out = NULL;
    if (!s->cfg->sasl_credentials_file[0])
        return 0;
    char err[512];
    *out = kc_credentials_load(s->cfg->sasl_credentials_file, err, sizeof(err));
    if (!*out) {
        kc_log_error("security", "%s", err);
        return -1;
    }
    return 0;
}

int kc_security_start(kc_server_t *s, bool listen)
{
    const kc_config_t *cfg = s->cfg;
    bool need_tls = false, need_sasl = false;
    for (size_t i = 0; i < cfg->nlisteners; i++) {
        const char *pn = kc_config_listener_protocol(cfg, cfg->listener[i].name);
        kc_security_protocol_t p;
        if (!pn || kc_security_protocol_parse(pn, &p) != 0) {
            /* Kafka: "No security protocol defined for listener NAME". */
            kc_log_error("security", "no security protocol defined for listener %s "
                                     "(listener.security.protocol.map)",
                         cfg->listener[i].name);
            return -1;
        }
        s->listener_protocol[i] = p;
        need_tls |= p == KC_SEC_SSL || p == KC_SEC_SASL_SSL;
        need_sasl |= p == KC_SEC_SASL_PLAINTEXT || p == KC_SEC_SASL_SSL;
    }
    if (need_tls) {
        char err[512];
        s->tls = kc_tls_new(cfg, err, sizeof(err));
        if (!s->tls) {
            kc_log_error("security", "TLS: %s", err);
            return -1;
        }
    }
    bool sasl_ssl = false;
    for (size_t i = 0; i < cfg->nlisteners; i++)
        sasl_ssl |= s->listener_protocol[i] == KC_SEC_SASL_SSL;
    if (sasl_ssl && strcasecmp(cfg->ssl_client_auth, "none") != 0)
        kc_log_warn("security", "ssl.client.auth applies to SSL listeners only; SASL_SSL "
                                "listeners ask for no client certificate (as Kafka without a "
                                "listener-prefixed setting)");
    if (need_sasl && !cfg->sasl_credentials_file[0])
        kc_log_warn("security", "SASL listeners without sasl.credentials.file: every "
                                "authentication fails");
    if (load_credentials(s, &s->credentials) != 0)
        return -1;
    if (s->credentials)
        kc_log_info("security", "%zu SASL credentials loaded from %s",
                    kc_credentials_count(s->credentials), cfg->sasl_credentials_file);
    for (size_t i = 0; i < cfg->nlisteners; i++) {
        uint16_t port = cfg->listener[i].port;
        if (listen) {
            kc_security_protocol_t p = s->listener_protocol[i];
            bool tls = p == KC_SEC_SSL || p == KC_SEC_SASL_SSL;
            if (kc_net_listen_secure(s->net, &cfg->listener[i], p, tls ? s->tls : NULL, &port) !=
                0)
                return -1;
            if (i == 0)
                s->bound_port = port;
        }
        s->listener_port[i] = port;
    }
    return 0;
}

void kc_security_stop(kc_server_t *s)
{
    kc_tls_free(s->tls);
    s->tls = NULL;
    kc_credentials_free(s->credentials);
    s->credentials = NULL;
}

void kc_security_reload(kc_server_t *s)
{
    char err[512];
    if (s->tls) {
        if (kc_tls_reload(s->tls, err, sizeof(err)) == 0)
            kc_log_info("security", "TLS key store and trust store reloaded; new connections "
                                    "use them");
        else
            kc_log_error("security", "TLS reload failed, keeping the previous certificates: %s",
                         err);
    }
    if (s->cfg->sasl_credentials_file[0]) {
        kc_credentials_t *cs;
        if (load_credentials(s, &cs) == 0) {
            kc_credentials_free(s->credentials);
            s->credentials = cs;
            kc_log_info("security", "%zu SASL credentials reloaded from %s",
                        kc_credentials_count(cs), s->cfg->sasl_credentials_file);
        } else {
            kc_log_error("security", "keeping the previous SASL credentials");
        }
    }
}

void kc_server_advertised(const kc_server_t *s, uint64_t conn_id, kc_str_t *host, int32_t *port)
{
    const kc_config_t *cfg = s->cfg;
    const char *name = kc_net_conn_listener(s->net, conn_id);
    *host = kc_str(s->adv_host);
    *port = s->adv_port;
    if (!name)
        return;
    /* The listener the request came in on, advertised under its name (Kafka
     * answers with the endpoints of the request's listener). */
    for (size_t i = 0; i < cfg->nadvertised; i++) {
        if (strcmp(cfg->advertised[i].name, name) == 0) {
            *host = kc_str(cfg->advertised[i].host);
            *port = cfg->advertised[i].port;
            return;
        }
    }
    for (size_t i = 0; i < cfg->nlisteners; i++) {
        if (strcmp(cfg->listener[i].name, name) == 0) {
            *host = kc_str(cfg->listener[i].host[0] ? cfg->listener[i].host : "localhost");
            *port = s->listener_port[i];
            return;
        }
    }
}
