/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for what a SASL client sends the server side (server/sasl.c,
 * server/scram.c) and for the SCRAM credentials kcoord reads. Input: one
 * byte whose low two bits select the part, then:
 *   0  the text of sasl.credentials.file (kc_credentials_parse); every
 *      credential that loads formats and parses back to itself
 *   1  a SCRAM exchange against the users "user" and "a,b=c" (password
 *      "pencil", both mechanisms): u8 flags (bit 0 SCRAM-SHA-512, bit 1 the
 *      client-final gets a correct proof), u16 length and the client-first
 *      message, then the client-final message. With bit 1 the final
 *      message is cut at its first ",p=" and the proof the password gives
 *      is appended, so the exchange can complete: a correct proof never
 *      fails as a wrong one, a forged one never passes, and the
 *      server-final is the server signature
 *   2  a SASL/PLAIN token (kc_sasl_plain_split): three parts that together
 *      with the two NULs are the whole token
 *   3  u8 (bit 0 SCRAM-SHA-512) and a credential's text form
 *      (kc_scram_credential_parse), which round-trips when it parses
 */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "kc_fuzz.h"
#include "kc_scram.h"
#include "server_int.h"

#define PASSWORD "pencil"
#define SERVER_NONCE "fuzzservernonce"

static const uint8_t salt[] = "kcoord-fuzz-salt";

static kc_credentials_t *creds;
static uint8_t salted[2][KC_SCRAM_MAX_KEY]; /* SaltedPassword per mechanism */

static const EVP_MD *md(kc_scram_mech_t m)
{
    return m == KC_SCRAM_SHA_512 ? EVP_sha512() : EVP_sha256();
}

static size_t klen(kc_scram_mech_t m)
{
    return m == KC_SCRAM_SHA_512 ? 64 : 32;
}

/* The credentials of both users for both mechanisms, made once. */
static void setup(void)
{
    if (creds)
        return;
    kc_buf_t text;
    kc_buf_init(&text);
    for (int m = 0; m < 2; m++) {
        kc_scram_credential_t c;
        KC_FUZZ_CHECK(kc_scram_credential_make((kc_scram_mech_t)m, PASSWORD, salt, sizeof(salt) - 1,
                                               KC_SCRAM_MIN_ITERATIONS, &c) == 0,
                      "credential");
        char f[512];
        kc_scram_credential_format(&c, f, sizeof(f));
        for (int u = 0; u < 2; u++) {
            const char *user = u ? "a,b=c" : "user";
            kc_buf_append(&text, user, strlen(user));
            kc_buf_append(&text, " ", 1);
            const char *mn = kc_scram_mech_name((kc_scram_mech_t)m);
            kc_buf_append(&text, mn, strlen(mn));
            kc_buf_append(&text, " ", 1);
            kc_buf_append(&text, f, strlen(f));
            kc_buf_append(&text, "\n", 1);
        }
        KC_FUZZ_CHECK(PKCS5_PBKDF2_HMAC(PASSWORD, (int)strlen(PASSWORD), salt,
                                        (int)sizeof(salt) - 1, KC_SCRAM_MIN_ITERATIONS,
                                        md((kc_scram_mech_t)m), (int)klen((kc_scram_mech_t)m),
                                        salted[m]) == 1,
                      "pbkdf2");
    }
    char err[256];
    creds = kc_credentials_parse((const char *)text.data, text.len, "fuzz", err, sizeof(err));
    KC_FUZZ_CHECK(creds && kc_credentials_count(creds) == 4, "credentials: %s", err);
    kc_buf_deinit(&text);
}

static void hmac(kc_scram_mech_t m, const uint8_t *key, size_t kl, const void *d, size_t n,
                 uint8_t *out)
{
    unsigned int ol = 0;
    KC_FUZZ_CHECK(HMAC(md(m), key, (int)kl, d, n, out, &ol) && ol == klen(m), "hmac");
}

static void same_credential(const kc_scram_credential_t *a, const kc_scram_credential_t *b)
{
    size_t kl = klen(a->mech);
    KC_FUZZ_CHECK(a->mech == b->mech && a->iterations == b->iterations &&
                      a->salt_len == b->salt_len && memcmp(a->salt, b->salt, a->salt_len) == 0 &&
                      memcmp(a->stored_key, b->stored_key, kl) == 0 &&
                      memcmp(a->server_key, b->server_key, kl) == 0,
                  "credential does not round-trip");
}

static void credential_roundtrip(const kc_scram_credential_t *c)
{
    char f[512];
    kc_scram_credential_format(c, f, sizeof(f));
    kc_scram_credential_t back;
    KC_FUZZ_CHECK(kc_scram_credential_parse(c->mech, f, &back) == 0, "formatted %s", f);
    same_credential(c, &back);
}

static void fuzz_credentials_file(const uint8_t *d, size_t n)
{
    char err[512] = "";
    kc_credentials_t *cs = kc_credentials_parse((const char *)d, n, "fuzz", err, sizeof(err));
    if (!cs) {
        KC_FUZZ_CHECK(err[0] != '\0', "a file refused without a reason");
        return;
    }
    for (int m = 0; m < 2; m++) {
        const kc_scram_credential_t *c = kc_credentials_find(cs, "user", (kc_scram_mech_t)m);
        if (c)
            credential_roundtrip(c);
    }
    kc_credentials_free(cs);
}

static void fuzz_scram(kc_fuzz_in_t *in)
{
    setup();
    uint8_t flags = kc_fuzz_u8(in);
    kc_scram_mech_t m = (flags & 1) ? KC_SCRAM_SHA_512 : KC_SCRAM_SHA_256;
    bool sign = (flags & 2) != 0;
    size_t firstn;
    const uint8_t *first = kc_fuzz_take(in, kc_fuzz_u16(in), &firstn);
    size_t finaln;
    const uint8_t *final = kc_fuzz_take(in, in->left, &finaln);

    kc_scram_server_t s;
    kc_scram_server_init(&s, m);
    kc_buf_t out;
    kc_buf_init(&out);
    const char *cm = NULL;
    char reason[512];
    kc_scram_result_t r =
        kc_scram_server_first(&s, creds, first, firstn, SERVER_NONCE, &out, &cm, reason,
                              sizeof(reason));
    KC_FUZZ_CHECK((r == KC_SCRAM_FAIL_MSG) == (cm != NULL), "client message without FAIL_MSG");
    if (r != KC_SCRAM_OK) {
        KC_FUZZ_CHECK(reason[0] != '\0' && out.len == 0, "a failure without a reason");
        KC_FUZZ_CHECK(kc_scram_server_final(&s, final, finaln, &out, &cm, reason,
                                            sizeof(reason)) == KC_SCRAM_FAIL,
                      "a failed exchange went on");
        goto done;
    }
    KC_FUZZ_CHECK(s.state == 1 && out.len == strlen(s.server_first) &&
                      memcmp(out.data, s.server_first, out.len) == 0 &&
                      strncmp(s.server_first, "r=", 2) == 0,
                  "server-first message");
    KC_FUZZ_CHECK(strstr(s.nonce, SERVER_NONCE) != NULL, "server nonce missing");

    kc_buf_t msg;
    kc_buf_init(&msg);
    uint8_t server_sig[KC_SCRAM_MAX_KEY];
    size_t kl = klen(m);
    if (sign) {
        /* final without proof, then ",p=" and the proof of "pencil". */
        const uint8_t *p = NULL;
        for (size_t i = 0; i + 3 <= finaln; i++)
            if (memcmp(final + i, ",p=", 3) == 0) {
                p = final + i;
                break;
            }
        size_t bare = p ? (size_t)(p - final) : finaln;
        kc_buf_append(&msg, final, bare);
        kc_buf_t am;
        kc_buf_init(&am);
        kc_buf_append(&am, s.client_first_bare, strlen(s.client_first_bare));
        kc_buf_append(&am, ",", 1);
        kc_buf_append(&am, s.server_first, strlen(s.server_first));
        kc_buf_append(&am, ",", 1);
        kc_buf_append(&am, final, bare);
        uint8_t client_key[KC_SCRAM_MAX_KEY], stored[KC_SCRAM_MAX_KEY], sig[KC_SCRAM_MAX_KEY],
            proof[KC_SCRAM_MAX_KEY], server_key[KC_SCRAM_MAX_KEY];
        hmac(m, salted[m], kl, "Client Key", 10, client_key);
        unsigned int dl = 0;
        KC_FUZZ_CHECK(EVP_Digest(client_key, kl, stored, &dl, md(m), NULL) == 1, "digest");
        hmac(m, stored, kl, am.data, am.len, sig);
        for (size_t i = 0; i < kl; i++)
            proof[i] = client_key[i] ^ sig[i];
        hmac(m, salted[m], kl, "Server Key", 10, server_key);
        hmac(m, server_key, kl, am.data, am.len, server_sig);
        kc_buf_deinit(&am);
        char b64[2 * KC_SCRAM_MAX_KEY];
        EVP_EncodeBlock((unsigned char *)b64, proof, (int)kl);
        kc_buf_append(&msg, ",p=", 3);
        kc_buf_append(&msg, b64, strlen(b64));
    } else {
        kc_buf_append(&msg, final, finaln);
    }
    kc_buf_t fin;
    kc_buf_init(&fin);
    r = kc_scram_server_final(&s, msg.data, msg.len, &fin, &cm, reason, sizeof(reason));
    if (r == KC_SCRAM_OK) {
        KC_FUZZ_CHECK(sign, "an exchange completed with a proof the fuzzer made up");
        char b64[2 * KC_SCRAM_MAX_KEY];
        EVP_EncodeBlock((unsigned char *)b64, server_sig, (int)kl);
        KC_FUZZ_CHECK(fin.len == 2 + strlen(b64) && memcmp(fin.data, "v=", 2) == 0 &&
                          memcmp(fin.data + 2, b64, strlen(b64)) == 0,
                      "server-final is not the server signature");
        KC_FUZZ_CHECK(s.state == 2, "state after success");
    } else {
        KC_FUZZ_CHECK(fin.len == 0 && reason[0] != '\0', "a failure without a reason");
        KC_FUZZ_CHECK(!sign || strcmp(reason, "Invalid client credentials") != 0,
                      "the correct proof was refused");
    }
    kc_buf_deinit(&fin);
    kc_buf_deinit(&msg);
done:
    kc_buf_deinit(&out);
    kc_scram_server_deinit(&s);
}

static void fuzz_plain(const uint8_t *d, size_t n)
{
    char authz[256], name[256], pw[1024];
    int nt = kc_sasl_plain_split(d, n, authz, sizeof(authz), name, sizeof(name), pw, sizeof(pw));
    size_t nuls = 0;
    for (size_t i = 0; i < n; i++)
        nuls += d[i] == 0;
    if (nt == 3) {
        KC_FUZZ_CHECK(nuls == 2 && strlen(authz) + strlen(name) + strlen(pw) + 2 == n,
                      "PLAIN parts are not the token");
        KC_FUZZ_CHECK(memcmp(d, authz, strlen(authz)) == 0, "authzid");
    } else if (nt == -1) {
        KC_FUZZ_CHECK(nuls == 2 && n > 255, "a short PLAIN token did not fit");
    } else {
        KC_FUZZ_CHECK(nt == (nuls >= 3 ? 4 : (int)nuls + 1), "token count %d for %zu NULs", nt,
                      nuls);
    }
}

static void fuzz_credential(kc_fuzz_in_t *in)
{
    kc_scram_mech_t m = (kc_fuzz_u8(in) & 1) ? KC_SCRAM_SHA_512 : KC_SCRAM_SHA_256;
    char *text = kc_xmalloc(in->left + 1);
    memcpy(text, in->p, in->left);
    text[in->left] = '\0';
    kc_scram_credential_t c;
    if (kc_scram_credential_parse(m, text, &c) == 0) {
        KC_FUZZ_CHECK(c.mech == m && c.iterations >= KC_SCRAM_MIN_ITERATIONS && c.salt_len > 0,
                      "parsed credential");
        credential_roundtrip(&c);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_fuzz_in_t in = {data, size};
    switch (kc_fuzz_u8(&in) & 3) {
    case 0:
        fuzz_credentials_file(in.p, in.left);
        break;
    case 1:
        fuzz_scram(&in);
        break;
    case 2:
        fuzz_plain(in.p, in.left);
        break;
    default:
        fuzz_credential(&in);
        break;
    }
    return 0;
}
