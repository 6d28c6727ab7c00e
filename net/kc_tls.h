/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS for SSL and SASL_SSL listeners through OpenSSL: one server context
 * built from Kafka's PEM store properties (ssl.keystore.* / ssl.truststore.*),
 * ssl.client.auth, ssl.enabled.protocols and ssl.cipher.suites. The context
 * can be rebuilt (SIGHUP): connections accepted afterwards use the new
 * certificate, established ones keep the one they were made with.
 */
#ifndef KC_TLS_H
#define KC_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include "kc_config.h"

typedef struct kc_tls kc_tls_t;
typedef struct ssl_st SSL;

/*
 * Builds the context from cfg (read now; files are re-read by kc_tls_reload,
 * cfg is borrowed and must outlive the kc_tls_t). NULL with a reason in err
 * when the key store is missing or unreadable, the key does not match the
 * certificate, or ssl.client.auth asks for certificates without a trust store.
 */
kc_tls_t *kc_tls_new(const kc_config_t *cfg, char *err, size_t errlen);
void kc_tls_free(kc_tls_t *t);
/*
 * Rebuilds the context from the same properties (files re-read). On failure
 * the previous context stays in use; -1 with a reason in err.
 */
int kc_tls_reload(kc_tls_t *t, char *err, size_t errlen);
/*
 * A server-side session on the connected non-blocking socket fd, or NULL.
 * client_auth false asks for no client certificate whatever ssl.client.auth
 * says: Kafka applies the broker-wide ssl.client.auth to SSL listeners only,
 * not to SASL_SSL ones.
 */
SSL *kc_tls_session(kc_tls_t *t, int fd, bool client_auth);
/*
 * Kafka's principal for a finished handshake (DefaultKafkaPrincipalBuilder):
 * "User:" + the client certificate's subject DN in RFC 2253 form when the
 * client sent a certificate, else "User:ANONYMOUS". Written to out (truncated).
 */
void kc_tls_principal(SSL *ssl, char *out, size_t outlen);
/* The oldest OpenSSL error queued for this thread as text ("" when none); clears the queue. */
const char *kc_tls_error_text(char *buf, size_t len);

#endif
