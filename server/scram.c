/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCRAM credentials, the credentials file and the server side of the SCRAM
 * exchange (see kc_scram.h). Message syntax as Kafka's ScramMessages:
 * client-first "n,[a=authzid],n=saslname,r=nonce[,ext]", server-first
 * "r=nonce,s=salt,i=iterations", client-final "c=binding,r=nonce[,ext],p=proof",
 * server-final "v=signature".
 */
#include "kc_scram.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

static void fmt(char *out, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *out, size_t len, const char *f, ...)
{
    if (!out || len == 0)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(out, len, f, ap);
    va_end(ap);
}

static const EVP_MD *md_of(kc_scram_mech_t m)
{
    return m == KC_SCRAM_SHA_512 ? EVP_sha512() : EVP_sha256();
}

static size_t key_len(kc_scram_mech_t m)
{
    return m == KC_SCRAM_SHA_512 ? 64 : 32;
}

int kc_scram_mech_parse(const char *name, kc_scram_mech_t *out)
{
    if (strcmp(name, "SCRAM-SHA-256") == 0)
        *out = KC_SCRAM_SHA_256;
    else if (strcmp(name, "SCRAM-SHA-512") == 0)
        *out = KC_SCRAM_SHA_512;
    else
        return -1;
    return 0;
}

const char *kc_scram_mech_name(kc_scram_mech_t m)
{
    return m == KC_SCRAM_SHA_512 ? "SCRAM-SHA-512" : "SCRAM-SHA-256";
}

/* ---- base64 ---- */

static void b64_encode(const uint8_t *in, size_t n, char *out, size_t outlen)
{
    if (outlen < 4 * ((n + 2) / 3) + 1) {
        if (outlen)
            out[0] = '\0';
        return;
    }
    EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

/* Decodes base64 text of length n into out (at most max bytes); -1 when malformed. */
static int b64_decode(const char *in, size_t n, uint8_t *out, size_t max, size_t *outn)
{
    if (n % 4 != 0 || n == 0 || (n / 4) * 3 > max + 2)
        return -1;
    uint8_t tmp[3 * 128];
    if ((n / 4) * 3 > sizeof(tmp))
        return -1;
    int r = EVP_DecodeBlock(tmp, (const unsigned char *)in, (int)n);
    if (r < 0)
        return -1;
    size_t len = (size_t)r;
    if (in[n - 1] == '=')
        len--;
    if (in[n - 2] == '=')
        len--;
    if (len > max)
        return -1;
    memcpy(out, tmp, len);
    *outn = len;
    return 0;
}

/* ---- credentials ---- */

static void hmac(kc_scram_mech_t m, const uint8_t *key, size_t klen, const void *data, size_t n,
                 uint8_t *out)
{
    unsigned int olen = 0;
    HMAC(md_of(m), key, (int)klen, data, n, out, &olen);
}

static void hash(kc_scram_mech_t m, const uint8_t *data, size_t n, uint8_t *out)
{
    unsigned int olen = 0;
    EVP_Digest(data, n, out, &olen, md_of(m), NULL);
}

int kc_scram_credential_make(kc_scram_mech_t m, const char *password, const uint8_t *salt,
                             size_t salt_len, int32_t iterations, kc_scram_credential_t *out)
{
    if (iterations < KC_SCRAM_MIN_ITERATIONS || salt_len == 0 || salt_len > KC_SCRAM_MAX_SALT)
        return KC_EINVAL;
    size_t kl = key_len(m);
    uint8_t salted[KC_SCRAM_MAX_KEY], client_key[KC_SCRAM_MAX_KEY];
    if (PKCS5_PBKDF2_HMAC(password, (int)strlen(password), salt, (int)salt_len, iterations,
                          md_of(m), (int)kl, salted) != 1)
        return KC_EINVAL;
    memset(out, 0, sizeof(*out));
    out->mech = m;
    memcpy(out->salt, salt, salt_len);
    out->salt_len = salt_len;
    out->iterations = iterations;
    hmac(m, salted, kl, "Client Key", 10, client_key);
    hash(m, client_key, kl, out->stored_key);
    hmac(m, salted, kl, "Server Key", 10, out->server_key);
    OPENSSL_cleanse(salted, sizeof(salted));
    OPENSSL_cleanse(client_key, sizeof(client_key));
    return 0;
}

void kc_scram_credential_format(const kc_scram_credential_t *c, char *out, size_t outlen)
{
    char salt[2 * KC_SCRAM_MAX_SALT], sk[2 * KC_SCRAM_MAX_KEY], vk[2 * KC_SCRAM_MAX_KEY];
    size_t kl = key_len(c->mech);
    b64_encode(c->salt, c->salt_len, salt, sizeof(salt));
    b64_encode(c->stored_key, kl, sk, sizeof(sk));
    b64_encode(c->server_key, kl, vk, sizeof(vk));
    fmt(out, outlen, "salt=%s,stored_key=%s,server_key=%s,iterations=%d", salt, sk, vk,
        (int)c->iterations);
}

int kc_scram_credential_parse(kc_scram_mech_t m, const char *text, kc_scram_credential_t *out)
{
    memset(out, 0, sizeof(*out));
    out->mech = m;
    size_t kl = key_len(m);
    bool have_salt = false, have_sk = false, have_vk = false, have_i = false;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return KC_EINVAL;
        size_t klen = (size_t)(eq - p);
        const char *v = eq + 1;
        size_t vlen = len - klen - 1;
        size_t n = 0;
        if (klen == 4 && memcmp(p, "salt", 4) == 0) {
            if (b64_decode(v, vlen, out->salt, KC_SCRAM_MAX_SALT, &out->salt_len) != 0 ||
                out->salt_len == 0)
                return KC_EINVAL;
            have_salt = true;
        } else if (klen == 10 && memcmp(p, "stored_key", 10) == 0) {
            if (b64_decode(v, vlen, out->stored_key, KC_SCRAM_MAX_KEY, &n) != 0 || n != kl)
                return KC_EINVAL;
            have_sk = true;
        } else if (klen == 10 && memcmp(p, "server_key", 10) == 0) {
            if (b64_decode(v, vlen, out->server_key, KC_SCRAM_MAX_KEY, &n) != 0 || n != kl)
                return KC_EINVAL;
            have_vk = true;
        } else if (klen == 10 && memcmp(p, "iterations", 10) == 0) {
            char num[16];
            if (vlen == 0 || vlen >= sizeof(num))
                return KC_EINVAL;
            memcpy(num, v, vlen);
            num[vlen] = '\0';
            char *e;
            long it = strtol(num, &e, 10);
            if (*e || it < KC_SCRAM_MIN_ITERATIONS || it > INT32_MAX)
                return KC_EINVAL;
            out->iterations = (int32_t)it;
            have_i = true;
        } else {
            return KC_EINVAL;
        }
        p = end ? end + 1 : p + len;
    }
    return have_salt && have_sk && have_vk && have_i ? 0 : KC_EINVAL;
}

bool kc_scram_check_password(const kc_scram_credential_t *c, const char *password)
{
    kc_scram_credential_t d;
    if (kc_scram_credential_make(c->mech, password, c->salt, c->salt_len, c->iterations, &d) != 0)
        return false;
    bool ok = CRYPTO_memcmp(d.stored_key, c->stored_key, key_len(c->mech)) == 0;
    OPENSSL_cleanse(&d, sizeof(d));
    return ok;
}

/* ---- the credentials file ---- */

typedef struct {
    char *user;
    kc_scram_credential_t cred;
} cred_entry_t;

struct kc_credentials {
    cred_entry_t *v;
    size_t n, cap;
};

void kc_credentials_free(kc_credentials_t *cs)
{
    if (!cs)
        return;
    for (size_t i = 0; i < cs->n; i++) {
        free(cs->v[i].user);
        OPENSSL_cleanse(&cs->v[i].cred, sizeof(cs->v[i].cred));
    }
    free(cs->v);
    free(cs);
}

size_t kc_credentials_count(const kc_credentials_t *cs)
{
    return cs ? cs->n : 0;
}

kc_credentials_t *kc_credentials_parse(const char *text, size_t len, const char *origin,
                                       char *err, size_t errlen)
{
    kc_credentials_t *cs = kc_xcalloc(1, sizeof(*cs));
    size_t pos = 0;
    int lineno = 0;
    while (pos < len) {
        lineno++;
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        char line[1024];
        size_t ll = end - pos;
        if (ll >= sizeof(line)) {
            fmt(err, errlen, "%s:%d: line too long", origin, lineno);
            goto fail;
        }
        memcpy(line, text + pos, ll);
        line[ll] = '\0';
        pos = end + 1;
        char *save = NULL;
        char *user = strtok_r(line, " \t\r", &save);
        if (!user || user[0] == '#')
            continue;
        char *mech = strtok_r(NULL, " \t\r", &save);
        char *cred = strtok_r(NULL, " \t\r", &save);
        char *extra = strtok_r(NULL, " \t\r", &save);
        kc_scram_mech_t m;
        if (!mech || !cred || extra) {
            fmt(err, errlen, "%s:%d: expected USER MECHANISM CREDENTIAL", origin, lineno);
            goto fail;
        }
        if (kc_scram_mech_parse(mech, &m) != 0) {
            fmt(err, errlen, "%s:%d: unknown mechanism %s (SCRAM-SHA-256, SCRAM-SHA-512)",
                origin, lineno, mech);
            goto fail;
        }
        if (kc_credentials_find(cs, user, m)) {
            fmt(err, errlen, "%s:%d: a second %s credential for %s", origin, lineno, mech, user);
            goto fail;
        }
        if (cs->n == cs->cap) {
            cs->cap = cs->cap ? cs->cap * 2 : 8;
            cs->v = kc_xrealloc(cs->v, cs->cap * sizeof(*cs->v));
        }
        cred_entry_t *e = &cs->v[cs->n];
        if (kc_scram_credential_parse(m, cred, &e->cred) != 0) {
            fmt(err, errlen,
                "%s:%d: credential is not salt=..,stored_key=..,server_key=..,iterations=N "
                "(base64 keys of the hash's size, at least %d iterations)",
                origin, lineno, KC_SCRAM_MIN_ITERATIONS);
            goto fail;
        }
        e->user = kc_xstrdup(user);
        cs->n++;
    }
    return cs;
fail:
    kc_credentials_free(cs);
    return NULL;
}

kc_credentials_t *kc_credentials_load(const char *path, char *err, size_t errlen)
{
    kc_buf_t b;
    kc_buf_init(&b);
    if (kc_buf_read_file(&b, path) != 0) {
        kc_buf_deinit(&b);
        fmt(err, errlen, "cannot read sasl.credentials.file %s", path);
        return NULL;
    }
    kc_credentials_t *cs = kc_credentials_parse((const char *)b.data, b.len, path, err, errlen);
    kc_buf_deinit(&b);
    return cs;
}

const kc_scram_credential_t *kc_credentials_find(const kc_credentials_t *cs, const char *user,
                                                 kc_scram_mech_t m)
{
    if (!cs)
        return NULL;
    for (size_t i = 0; i < cs->n; i++)
        if (cs->v[i].cred.mech == m && strcmp(cs->v[i].user, user) == 0)
            return &cs->v[i].cred;
    return NULL;
}

/* ---- the exchange ---- */

void kc_scram_server_init(kc_scram_server_t *s, kc_scram_mech_t m)
{
    memset(s, 0, sizeof(*s));
    s->mech = m;
}

void kc_scram_server_deinit(kc_scram_server_t *s)
{
    free(s->client_first_bare);
    free(s->server_first);
    free(s->nonce);
    OPENSSL_cleanse(&s->cred, sizeof(s->cred));
    memset(s, 0, sizeof(*s));
}

/* Kafka's ScramFormatter.username: "=2C" -> ',', "=3D" -> '='; -1 on another '='. */
static int sasl_name_decode(const char *in, size_t n, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = in[i];
        if (ch == '=') {
            if (i + 2 < n && in[i + 1] == '2' && in[i + 2] == 'C')
                ch = ',';
            else if (i + 2 < n && in[i + 1] == '3' && in[i + 2] == 'D')
                ch = '=';
            else
                return -1;
            i += 2;
        }
        if (o + 1 >= outlen)
            return -1;
        out[o++] = ch;
    }
    out[o] = '\0';
    return 0;
}

static kc_scram_result_t fail(kc_scram_server_t *s, kc_scram_result_t r, char *reason,
                              size_t reasonlen, const char *why)
{
    s->state = 3;
    fmt(reason, reasonlen, "%s", why);
    return r;
}

kc_scram_result_t kc_scram_server_first(kc_scram_server_t *s, const kc_credentials_t *cs,
                                        const uint8_t *msg, size_t len, const char *server_nonce,
                                        kc_buf_t *out, const char **client_msg, char *reason,
                                        size_t reasonlen)
{
    *client_msg = NULL;
    if (s->state != 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "unexpected client-first message");
    char m[1024];
    if (len == 0 || len >= sizeof(m) || memchr(msg, '\0', len))
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-first message");
    memcpy(m, msg, len);
    m[len] = '\0';
    /* gs2 header: no channel binding ("n"), optional authzid. */
    if (strncmp(m, "n,", 2) != 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen,
                    "invalid client-first message (gs2 header)");
    char *authz = m + 2;
    char *comma = strchr(authz, ',');
    if (!comma)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-first message");
    *comma = '\0';
    char *bare = comma + 1;
    if (*authz && strncmp(authz, "a=", 2) != 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-first message");
    if (strncmp(bare, "n=", 2) != 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-first message (name)");
    char *name = bare + 2;
    char *name_end = strchr(name, ',');
    if (!name_end || strncmp(name_end, ",r=", 3) != 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-first message (nonce)");
    char *cnonce = name_end + 3;
    size_t cnonce_len = strcspn(cnonce, ",");
    if (cnonce_len == 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-first message (nonce)");
    if (sasl_name_decode(name, (size_t)(name_end - name), s->username, sizeof(s->username)) != 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid user name encoding");
    const kc_scram_credential_t *c = kc_credentials_find(cs, s->username, s->mech);
    if (!c) {
        char why[400];
        fmt(why, sizeof(why), "no %s credential for user %s", kc_scram_mech_name(s->mech),
            s->username);
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, why);
    }
    if (*authz) {
        char az[256];
        if (sasl_name_decode(authz + 2, strlen(authz + 2), az, sizeof(az)) != 0 ||
            strcmp(az, s->username) != 0) {
            *client_msg = "Authentication failed: Client requested an authorization id that is "
                          "different from username";
            return fail(s, KC_SCRAM_FAIL_MSG, reason, reasonlen, *client_msg);
        }
    }
    s->cred = *c;
    char rnd[33];
    if (!server_nonce) {
        /* Letters and digits, as Kafka's ScramFormatter.secureRandomString. */
        static const char alphabet[] =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        uint8_t r[32];
        if (RAND_bytes(r, sizeof(r)) != 1)
            return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "no random bytes for the nonce");
        for (size_t i = 0; i < sizeof(r); i++)
            rnd[i] = alphabet[r[i] % 62];
        rnd[32] = '\0';
        server_nonce = rnd;
    }
    size_t nl = cnonce_len + strlen(server_nonce);
    s->nonce = kc_xcalloc(1, nl + 1);
    memcpy(s->nonce, cnonce, cnonce_len);
    strcat(s->nonce, server_nonce);
    s->client_first_bare = kc_xstrdup(bare);
    char salt[2 * KC_SCRAM_MAX_SALT];
    b64_encode(s->cred.salt, s->cred.salt_len, salt, sizeof(salt));
    size_t sl = nl + strlen(salt) + 32;
    s->server_first = kc_xcalloc(1, sl);
    snprintf(s->server_first, sl, "r=%s,s=%s,i=%d", s->nonce, salt, (int)s->cred.iterations);
    kc_buf_append(out, s->server_first, strlen(s->server_first));
    s->state = 1;
    fmt(reason, reasonlen, "%s", "");
    return KC_SCRAM_OK;
}

kc_scram_result_t kc_scram_server_final(kc_scram_server_t *s, const uint8_t *msg, size_t len,
                                        kc_buf_t *out, const char **client_msg, char *reason,
                                        size_t reasonlen)
{
    *client_msg = NULL;
    if (s->state != 1)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "unexpected client-final message");
    char m[2048];
    if (len == 0 || len >= sizeof(m) || memchr(msg, '\0', len))
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-final message");
    memcpy(m, msg, len);
    m[len] = '\0';
    /* c=...,r=...[,ext...],p=... ; the proof is the last attribute. */
    char *p = strstr(m, ",p=");
    if (strncmp(m, "c=", 2) != 0 || !p)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-final message");
    char *r = strstr(m, ",r=");
    if (!r || r > p)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client-final message");
    /* Kafka 3.9's check: the nonce ends with the server-first nonce. librdkafka
     * before 2.6.1 (Debian's included) sends its own nonce once more in front,
     * which Kafka 3.8.1 to 3.9 accept; Kafka 4 compares for equality and
     * refuses those clients. */
    size_t rl = strcspn(r + 3, ","), nl = strlen(s->nonce);
    if (rl < nl || memcmp(r + 3 + rl - nl, s->nonce, nl) != 0)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen,
                    "Invalid client nonce in the final client message.");
    size_t kl = key_len(s->mech);
    uint8_t proof[KC_SCRAM_MAX_KEY];
    size_t proof_len = 0;
    const char *pb = p + 3;
    if (b64_decode(pb, strlen(pb), proof, sizeof(proof), &proof_len) != 0 || proof_len != kl)
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "invalid client proof");
    /* AuthMessage = client-first-bare "," server-first "," client-final-without-proof */
    kc_buf_t am;
    kc_buf_init(&am);
    kc_buf_append(&am, s->client_first_bare, strlen(s->client_first_bare));
    kc_buf_append(&am, ",", 1);
    kc_buf_append(&am, s->server_first, strlen(s->server_first));
    kc_buf_append(&am, ",", 1);
    kc_buf_append(&am, m, (size_t)(p - m));
    uint8_t sig[KC_SCRAM_MAX_KEY], client_key[KC_SCRAM_MAX_KEY], computed[KC_SCRAM_MAX_KEY];
    hmac(s->mech, s->cred.stored_key, kl, am.data, am.len, sig);
    for (size_t i = 0; i < kl; i++)
        client_key[i] = proof[i] ^ sig[i];
    hash(s->mech, client_key, kl, computed);
    if (CRYPTO_memcmp(computed, s->cred.stored_key, kl) != 0) {
        kc_buf_deinit(&am);
        return fail(s, KC_SCRAM_FAIL, reason, reasonlen, "Invalid client credentials");
    }
    uint8_t server_sig[KC_SCRAM_MAX_KEY];
    hmac(s->mech, s->cred.server_key, kl, am.data, am.len, server_sig);
    kc_buf_deinit(&am);
    char v[2 * KC_SCRAM_MAX_KEY];
    b64_encode(server_sig, kl, v, sizeof(v));
    kc_buf_append(out, "v=", 2);
    kc_buf_append(out, v, strlen(v));
    s->state = 2;
    fmt(reason, reasonlen, "%s", "");
    return KC_SCRAM_OK;
}
