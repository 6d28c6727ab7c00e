/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for net/tls.c and TLS connections in net/conn.c: key store
 * errors named in the message, then a real handshake on a loopback SSL
 * listener against an OpenSSL client thread: the request frame arrives,
 * the principal is the client certificate's subject DN, the answer goes back.
 * Certificates are made in memory for each run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "kc_common.h"
#include "kc_config.h"
#include "kc_net.h"
#include "kc_tls.h"

typedef struct {
    char *cert; /* PEM */
    char *key;  /* PEM */
} pem_pair_t;

static char *bio_string(BIO *b)
{
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);
    char *s = kc_xcalloc(1, (size_t)n + 1);
    memcpy(s, p, (size_t)n);
    return s;
}

/* A self-signed EC certificate for the subject entries given (O, OU, CN). */
static pem_pair_t make_cert(const char *o, const char *ou, const char *cn)
{
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    assert_non_null(key);
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -60);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, key);
    X509_NAME *nm = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(nm, "O", MBSTRING_ASC, (const unsigned char *)o, -1, -1, 0);
    if (ou)
        X509_NAME_add_entry_by_txt(nm, "OU", MBSTRING_ASC, (const unsigned char *)ou, -1, -1, 0);
    X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, nm);
    assert_true(X509_sign(x, key, EVP_sha256()) > 0);
    BIO *cb = BIO_new(BIO_s_mem()), *kb = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(cb, x);
    PEM_write_bio_PrivateKey(kb, key, NULL, NULL, 0, NULL, NULL);
    pem_pair_t p = {bio_string(cb), bio_string(kb)};
    BIO_free(cb);
    BIO_free(kb);
    X509_free(x);
    EVP_PKEY_free(key);
    return p;
}

static void pem_free(pem_pair_t *p)
{
    free(p->cert);
    free(p->key);
}

static void set(kc_config_t *c, const char *k, const char *v)
{
    char err[256];
    assert_int_equal(kc_config_set(c, k, v, err, sizeof(err)), 0);
}

static void keystore_errors(void **state)
{
    (void)state;
    pem_pair_t a = make_cert("kcoord", NULL, "server-a");
    pem_pair_t b = make_cert("kcoord", NULL, "server-b");
    kc_config_t c;
    kc_config_init(&c);
    char err[512] = "";
    /* Nothing given. */
    assert_null(kc_tls_new(&c, err, sizeof(err)));
    assert_non_null(strstr(err, "ssl.keystore.location"));
    /* An unreadable file. */
    set(&c, "ssl.keystore.location", "/nonexistent/keystore.pem");
    assert_null(kc_tls_new(&c, err, sizeof(err)));
    assert_non_null(strstr(err, "cannot read ssl.keystore.location"));
    set(&c, "ssl.keystore.location", "");
    /* A key of another certificate. */
    set(&c, "ssl.keystore.certificate.chain", a.cert);
    set(&c, "ssl.keystore.key", b.key);
    assert_null(kc_tls_new(&c, err, sizeof(err)));
    assert_non_null(strstr(err, "does not match"));
    /* The right key. */
    set(&c, "ssl.keystore.key", a.key);
    kc_tls_t *t = kc_tls_new(&c, err, sizeof(err));
    assert_non_null(t);
    kc_tls_free(t);
    /* Client certificates asked for without a trust store. */
    set(&c, "ssl.client.auth", "required");
    assert_null(kc_tls_new(&c, err, sizeof(err)));
    assert_non_null(strstr(err, "trust store"));
    set(&c, "ssl.truststore.certificates", b.cert);
    t = kc_tls_new(&c, err, sizeof(err));
    assert_non_null(t);
    /* A reload that fails keeps the context. */
    set(&c, "ssl.keystore.key", "garbage");
    assert_int_equal(kc_tls_reload(t, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "private key"));
    kc_tls_free(t);
    kc_config_deinit(&c);
    pem_free(&a);
    pem_free(&b);
}

/* ---- a handshake through kc_net ---- */

typedef struct {
    uint16_t port;
    pem_pair_t client;
    char server_cn[64]; /* what the client saw */
    uint8_t answer[64];
    size_t answer_len;
    int ok;
} client_arg_t;

static void *client_main(void *p)
{
    client_arg_t *a = p;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    BIO *cb = BIO_new_mem_buf(a->client.cert, -1), *kb = BIO_new_mem_buf(a->client.key, -1);
    X509 *x = PEM_read_bio_X509(cb, NULL, NULL, NULL);
    EVP_PKEY *k = PEM_read_bio_PrivateKey(kb, NULL, NULL, NULL);
    SSL_CTX_use_certificate(ctx, x);
    SSL_CTX_use_PrivateKey(ctx, k);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(a->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    SSL *ssl = NULL;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        goto out;
    ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1)
        goto out;
    X509 *peer = SSL_get1_peer_certificate(ssl);
    if (peer) {
        X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, a->server_cn,
                                  sizeof(a->server_cn));
        X509_free(peer);
    }
    /* Two frames in one TLS record: the second must wait for the first's answer. */
    const uint8_t frames[] = {0, 0, 0, 3, 'o', 'n', 'e', 0, 0, 0, 3, 't', 'w', 'o'};
    if (SSL_write(ssl, frames, sizeof(frames)) != (int)sizeof(frames))
        goto out;
    size_t got = 0;
    while (got < 14) {
        int r = SSL_read(ssl, a->answer + got, (int)(sizeof(a->answer) - got));
        if (r <= 0)
            goto out;
        got += (size_t)r;
    }
    a->answer_len = got;
    a->ok = 1;
out:
    if (ssl) {
        SSL_shutdown(ssl);
        SSL_free(ssl);
    }
    close(fd);
    X509_free(x);
    EVP_PKEY_free(k);
    BIO_free(cb);
    BIO_free(kb);
    SSL_CTX_free(ctx);
    return NULL;
}

typedef struct {
    kc_net_t *net;
    int nrequests;
    char principal[256];
    char frames[2][8];
} fx_t;

static void on_request(void *ctx, const kc_conn_info_t *conn, const uint8_t *data, size_t len)
{
    fx_t *fx = ctx;
    if (fx->nrequests < 2)
        snprintf(fx->frames[fx->nrequests], sizeof(fx->frames[0]), "%.*s", (int)len, data);
    fx->nrequests++;
    const char *p = kc_net_principal(fx->net, conn->conn_id);
    snprintf(fx->principal, sizeof(fx->principal), "%s", p ? p : "(gone)");
    assert_int_equal(kc_net_conn_protocol(fx->net, conn->conn_id), KC_SEC_SSL);
    /* Answered at once: the echo of the frame. */
    kc_net_send(fx->net, conn->conn_id, data, len);
}

static void on_close(void *ctx, uint64_t conn_id)
{
    (void)ctx;
    (void)conn_id;
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void handshake_principal_and_framing(void **state)
{
    (void)state;
    pem_pair_t server = make_cert("kcoord", NULL, "localhost");
    client_arg_t a;
    memset(&a, 0, sizeof(a));
    a.client = make_cert("kcoord unit", "net", "client1");
    kc_config_t c;
    kc_config_init(&c);
    set(&c, "ssl.keystore.certificate.chain", server.cert);
    set(&c, "ssl.keystore.key", server.key);
    set(&c, "ssl.client.auth", "required");
    set(&c, "ssl.truststore.certificates", a.client.cert);
    char err[256];
    kc_tls_t *tls = kc_tls_new(&c, err, sizeof(err));
    assert_non_null(tls);
    struct event_base *base = event_base_new();
    fx_t fx;
    memset(&fx, 0, sizeof(fx));
    kc_net_config_t nc = {1 << 20, 60000};
    kc_net_handler_t h = {on_request, on_close, &fx};
    fx.net = kc_net_new(base, &nc, &h);
    kc_listener_t l = {"SSL", "127.0.0.1", 0};
    /* A TLS listener needs a context, a plain one must not have one. */
    assert_int_equal(kc_net_listen_secure(fx.net, &l, KC_SEC_SSL, NULL, NULL), KC_EINVAL);
    assert_int_equal(kc_net_listen_secure(fx.net, &l, KC_SEC_SSL, tls, &a.port), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, client_main, &a), 0);
    struct event *tick = event_new(base, -1, EV_PERSIST, tick_cb, NULL);
    struct timeval tv = {0, 5000};
    event_add(tick, &tv);
    int64_t deadline = now_ms() + 20000;
    while (fx.nrequests < 2 && now_ms() < deadline)
        event_base_loop(base, EVLOOP_ONCE);
    /* Let the last answer be written before the client is joined. */
    for (int i = 0; i < 20; i++)
        event_base_loop(base, EVLOOP_NONBLOCK);
    pthread_join(th, NULL);
    event_free(tick);
    assert_int_equal(fx.nrequests, 2);
    assert_string_equal(fx.frames[0], "one");
    assert_string_equal(fx.frames[1], "two");
    /* Kafka's DefaultKafkaPrincipalBuilder: User: + the subject DN, RFC 2253 order. */
    assert_string_equal(fx.principal, "User:CN=client1,OU=net,O=kcoord unit");
    assert_true(a.ok);
    assert_string_equal(a.server_cn, "localhost");
    assert_int_equal(a.answer_len, 14);
    assert_memory_equal(a.answer, "\0\0\0\3one\0\0\0\3two", 14);
    kc_net_free(fx.net);
    event_base_free(base);
    kc_tls_free(tls);
    kc_config_deinit(&c);
    pem_free(&server);
    pem_free(&a.client);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keystore_errors),
        cmocka_unit_test(handshake_principal_and_framing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
