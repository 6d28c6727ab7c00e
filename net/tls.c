/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TLS server context (see kc_tls.h). PEM stores as Kafka's
 * ssl.keystore.type=PEM reads them: one file (or property) holding the
 * private key and the certificate chain, the leaf certificate first.
 */
#include "kc_tls.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "kc_common.h"

struct kc_tls {
    const kc_config_t *cfg;
    SSL_CTX *ctx;
};

static void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *kc_tls_error_text(char *buf, size_t len)
{
    unsigned long e = ERR_get_error();
    if (e == 0)
        snprintf(buf, len, "%s", "");
    else
        ERR_error_string_n(e, buf, len);
    ERR_clear_error();
    return buf;
}

/* Reads a whole file into a NUL-terminated heap string; NULL if unreadable. */
static char *read_file(const char *path)
{
    kc_buf_t b;
    kc_buf_init(&b);
    if (kc_buf_read_file(&b, path) != 0) {
        kc_buf_deinit(&b);
        return NULL;
    }
    return (char *)b.data;
}

static int password_cb(char *buf, int size, int rwflag, void *u)
{
    (void)rwflag;
    const char *pw = u;
    int n = (int)strlen(pw);
    if (n > size)
        n = size;
    memcpy(buf, pw, (size_t)n);
    return n;
}

/* Loads key and certificate chain from PEM text into ctx. */
static int load_keystore(SSL_CTX *ctx, const kc_config_t *cfg, char *err, size_t errlen)
{
    char ebuf[256];
    char *text = NULL;
    const char *key_pem, *chain_pem, *origin;
    if (cfg->ssl_keystore_location[0]) {
        text = read_file(cfg->ssl_keystore_location);
        if (!text) {
            errf(err, errlen, "cannot read ssl.keystore.location %s", cfg->ssl_keystore_location);
            return -1;
        }
        key_pem = chain_pem = text;
        origin = cfg->ssl_keystore_location;
    } else if (cfg->ssl_keystore_certificate_chain[0] && cfg->ssl_keystore_key[0]) {
        key_pem = cfg->ssl_keystore_key;
        chain_pem = cfg->ssl_keystore_certificate_chain;
        origin = "ssl.keystore.certificate.chain/ssl.keystore.key";
    } else {
        errf(err, errlen, "an SSL listener needs ssl.keystore.location or "
                          "ssl.keystore.certificate.chain and ssl.keystore.key");
        return -1;
    }
    int rc = -1;
    BIO *kb = BIO_new_mem_buf(key_pem, -1);
    EVP_PKEY *key = PEM_read_bio_PrivateKey(kb, NULL, password_cb, cfg->ssl_key_password);
    BIO_free(kb);
    if (!key) {
        errf(err, errlen, "%s: no usable private key (%s)", origin,
             kc_tls_error_text(ebuf, sizeof(ebuf)));
        goto out;
    }
    BIO *cb = BIO_new_mem_buf(chain_pem, -1);
    int ncerts = 0;
    X509 *x;
    while ((x = PEM_read_bio_X509(cb, NULL, NULL, NULL)) != NULL) {
        int ok = ncerts == 0 ? SSL_CTX_use_certificate(ctx, x) : SSL_CTX_add1_chain_cert(ctx, x);
        X509_free(x);
        if (ok != 1) {
            BIO_free(cb);
            errf(err, errlen, "%s: certificate %d refused (%s)", origin, ncerts + 1,
                 kc_tls_error_text(ebuf, sizeof(ebuf)));
            goto out;
        }
        ncerts++;
    }
    BIO_free(cb);
    ERR_clear_error(); /* the end of the PEM text */
    if (ncerts == 0) {
        errf(err, errlen, "%s: no certificate", origin);
        goto out;
    }
    if (SSL_CTX_use_PrivateKey(ctx, key) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        errf(err, errlen, "%s: the private key does not match the certificate (%s)", origin,
             kc_tls_error_text(ebuf, sizeof(ebuf)));
        goto out;
    }
    rc = 0;
out:
    EVP_PKEY_free(key);
    free(text);
    return rc;
}

/* Trusted CAs for client certificates; *count gets how many were loaded. */
static int load_truststore(SSL_CTX *ctx, const kc_config_t *cfg, int *count, char *err,
                           size_t errlen)
{
    *count = 0;
    char *text = NULL;
    const char *pem;
    if (cfg->ssl_truststore_location[0]) {
        text = read_file(cfg->ssl_truststore_location);
        if (!text) {
            errf(err, errlen, "cannot read ssl.truststore.location %s",
                 cfg->ssl_truststore_location);
            return -1;
        }
        pem = text;
    } else if (cfg->ssl_truststore_certificates[0]) {
        pem = cfg->ssl_truststore_certificates;
    } else {
        return 0;
    }
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    STACK_OF(X509_NAME) *names = sk_X509_NAME_new_null();
    BIO *b = BIO_new_mem_buf(pem, -1);
    X509 *x;
    while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL) {
        X509_STORE_add_cert(store, x);
        X509_NAME *nm = X509_NAME_dup(X509_get_subject_name(x));
        if (nm)
            sk_X509_NAME_push(names, nm);
        X509_free(x);
        (*count)++;
    }
    BIO_free(b);
    ERR_clear_error();
    /* Tells clients which CAs their certificate should come from. */
    SSL_CTX_set_client_CA_list(ctx, names);
    free(text);
    return 0;
}

static SSL_CTX *build_ctx(const kc_config_t *cfg, char *err, size_t errlen)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        errf(err, errlen, "cannot create a TLS context");
        return NULL;
    }
    bool v12 = strstr(cfg->ssl_enabled_protocols, "TLSv1.2") != NULL;
    bool v13 = strstr(cfg->ssl_enabled_protocols, "TLSv1.3") != NULL;
    SSL_CTX_set_min_proto_version(ctx, v12 ? TLS1_2_VERSION : TLS1_3_VERSION);
    SSL_CTX_set_max_proto_version(ctx, v13 ? TLS1_3_VERSION : TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* No resumption: every connection is authenticated afresh, as Kafka's
     * SSLEngine-based layer does by default. */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(ctx, 0);
    char ebuf[256];
    if (cfg->ssl_cipher_suites[0] && SSL_CTX_set_cipher_list(ctx, cfg->ssl_cipher_suites) != 1) {
        errf(err, errlen, "ssl.cipher.suites: %s", kc_tls_error_text(ebuf, sizeof(ebuf)));
        goto fail;
    }
    if (load_keystore(ctx, cfg, err, errlen) != 0)
        goto fail;
    int ncas;
    if (load_truststore(ctx, cfg, &ncas, err, errlen) != 0)
        goto fail;
    int mode = SSL_VERIFY_NONE;
    if (strcasecmp(cfg->ssl_client_auth, "requested") == 0)
        mode = SSL_VERIFY_PEER;
    else if (strcasecmp(cfg->ssl_client_auth, "required") == 0)
        mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    if (mode != SSL_VERIFY_NONE && ncas == 0) {
        errf(err, errlen, "ssl.client.auth=%s needs a trust store (ssl.truststore.location or "
                          "ssl.truststore.certificates)", cfg->ssl_client_auth);
        goto fail;
    }
    SSL_CTX_set_verify(ctx, mode, NULL);
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

kc_tls_t *kc_tls_new(const kc_config_t *cfg, char *err, size_t errlen)
{
    SSL_CTX *ctx = build_ctx(cfg, err, errlen);
    if (!ctx)
        return NULL;
    kc_tls_t *t = kc_xcalloc(1, sizeof(*t));
    t->cfg = cfg;
    t->ctx = ctx;
    return t;
}

void kc_tls_free(kc_tls_t *t)
{
    if (!t)
        return;
    SSL_CTX_free(t->ctx);
    free(t);
}

int kc_tls_reload(kc_tls_t *t, char *err, size_t errlen)
{
    SSL_CTX *ctx = build_ctx(t->cfg, err, errlen);
    if (!ctx)
        return -1;
    /* Sessions made with the old context hold a reference to it. */
    SSL_CTX_free(t->ctx);
    t->ctx = ctx;
    return 0;
}

SSL *kc_tls_session(kc_tls_t *t, int fd, bool client_auth)
{
    SSL *ssl = SSL_new(t->ctx);
    if (!ssl)
        return NULL;
    if (!client_auth)
        SSL_set_verify(ssl, SSL_VERIFY_NONE, NULL);
    if (SSL_set_fd(ssl, fd) != 1) {
        SSL_free(ssl);
        return NULL;
    }
    SSL_set_accept_state(ssl);
    return ssl;
}

void kc_tls_principal(SSL *ssl, char *out, size_t outlen)
{
    X509 *peer = SSL_get1_peer_certificate(ssl);
    if (!peer) {
        snprintf(out, outlen, "User:ANONYMOUS");
        return;
    }
    BIO *b = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(b, X509_get_subject_name(peer), 0, XN_FLAG_RFC2253);
    char *dn = NULL;
    long n = BIO_get_mem_data(b, &dn);
    snprintf(out, outlen, "User:%.*s", (int)n, dn ? dn : "");
    BIO_free(b);
    X509_free(peer);
}
