/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of server/scram.c: credentials, the credentials file, the SCRAM server exchange. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "kc_scram.h"

/* RFC 7677 section 3: SCRAM-SHA-256, user "user", password "pencil". */
static const uint8_t rfc_salt[16] = {0x5b, 0x6d, 0x99, 0x68, 0x9d, 0x12, 0x35, 0x8e,
                                     0xec, 0xa0, 0x4b, 0x14, 0x12, 0x36, 0xfa, 0x81};

static kc_credentials_t *rfc_credentials(void)
{
    kc_scram_credential_t c;
    assert_int_equal(kc_scram_credential_make(KC_SCRAM_SHA_256, "pencil", rfc_salt,
                                              sizeof(rfc_salt), 4096, &c),
                     0);
    char text[512], line[600];
    kc_scram_credential_format(&c, text, sizeof(text));
    snprintf(line, sizeof(line), "# comment\n\nuser SCRAM-SHA-256 %s\n", text);
    char err[256] = "";
    kc_credentials_t *cs = kc_credentials_parse(line, strlen(line), "test", err, sizeof(err));
    assert_non_null(cs);
    assert_int_equal(kc_credentials_count(cs), 1);
    return cs;
}

static kc_scram_result_t step(kc_scram_server_t *s, const kc_credentials_t *cs, const char *msg,
                              kc_buf_t *out, const char **cm)
{
    char reason[256];
    kc_buf_reset(out);
    if (s->state == 0)
        return kc_scram_server_first(s, cs, (const uint8_t *)msg, strlen(msg),
                                     "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", out, cm, reason,
                                     sizeof(reason));
    return kc_scram_server_final(s, (const uint8_t *)msg, strlen(msg), out, cm, reason,
                                 sizeof(reason));
}

static void rfc7677_exchange(void **state)
{
    (void)state;
    kc_credentials_t *cs = rfc_credentials();
    kc_scram_server_t s;
    kc_scram_server_init(&s, KC_SCRAM_SHA_256);
    kc_buf_t out;
    kc_buf_init(&out);
    const char *cm;
    assert_int_equal(step(&s, cs, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", &out, &cm), KC_SCRAM_OK);
    const char *sf = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                     "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    assert_int_equal(out.len, strlen(sf));
    assert_memory_equal(out.data, sf, out.len);
    assert_int_equal(step(&s, cs,
                          "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                          "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                          &out, &cm),
                     KC_SCRAM_OK);
    const char *v = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";
    assert_int_equal(out.len, strlen(v));
    assert_memory_equal(out.data, v, out.len);
    assert_int_equal(s.state, 2);
    assert_string_equal(s.username, "user");
    kc_scram_server_deinit(&s);
    kc_buf_deinit(&out);
    kc_credentials_free(cs);
}

static void wrong_proof_and_nonce(void **state)
{
    (void)state;
    kc_credentials_t *cs = rfc_credentials();
    kc_buf_t out;
    kc_buf_init(&out);
    const char *cm;
    kc_scram_server_t s;
    /* A proof of another password: the generic failure (a SaslException in Kafka). */
    kc_scram_server_init(&s, KC_SCRAM_SHA_256);
    assert_int_equal(step(&s, cs, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", &out, &cm), KC_SCRAM_OK);
    assert_int_equal(step(&s, cs,
                          "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                          "p=AHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                          &out, &cm),
                     KC_SCRAM_FAIL);
    assert_null(cm);
    kc_scram_server_deinit(&s);
    /* Another nonce in the final message. */
    kc_scram_server_init(&s, KC_SCRAM_SHA_256);
    assert_int_equal(step(&s, cs, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", &out, &cm), KC_SCRAM_OK);
    assert_int_equal(step(&s, cs,
                          "c=biws,r=rOprNGfwEbeRWgbNEkqOxxx,"
                          "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                          &out, &cm),
                     KC_SCRAM_FAIL);
    kc_scram_server_deinit(&s);
    /* Unknown user, the wrong mechanism, an authorization id of another user. */
    kc_scram_server_init(&s, KC_SCRAM_SHA_256);
    assert_int_equal(step(&s, cs, "n,,n=bob,r=abc", &out, &cm), KC_SCRAM_FAIL);
    kc_scram_server_deinit(&s);
    kc_scram_server_init(&s, KC_SCRAM_SHA_512);
    assert_int_equal(step(&s, cs, "n,,n=user,r=abc", &out, &cm), KC_SCRAM_FAIL);
    kc_scram_server_deinit(&s);
    kc_scram_server_init(&s, KC_SCRAM_SHA_256);
    assert_int_equal(step(&s, cs, "n,a=admin,n=user,r=abc", &out, &cm), KC_SCRAM_FAIL_MSG);
    assert_string_equal(cm, "Authentication failed: Client requested an authorization id that "
                            "is different from username");
    kc_scram_server_deinit(&s);
    /* Malformed messages: channel binding asked for, no nonce, garbage. */
    const char *bad[] = {"p=tls-unique,,n=user,r=abc", "n,,n=user", "n,,r=abc", "", "n,,n=us=er,r=a"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        kc_scram_server_init(&s, KC_SCRAM_SHA_256);
        assert_int_equal(step(&s, cs, bad[i], &out, &cm), KC_SCRAM_FAIL);
        kc_scram_server_deinit(&s);
    }
    kc_buf_deinit(&out);
    kc_credentials_free(cs);
}

/* A client of our own for SCRAM-SHA-512 (no RFC vector): the proof as RFC 5802 defines it. */
static void sha512_exchange_and_escaped_name(void **state)
{
    (void)state;
    uint8_t salt[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    kc_scram_credential_t c;
    assert_int_equal(kc_scram_credential_make(KC_SCRAM_SHA_512, "s3cret", salt, sizeof(salt),
                                              4096, &c),
                     0);
    char text[512], file[700];
    kc_scram_credential_format(&c, text, sizeof(text));
    snprintf(file, sizeof(file), "a,b=c SCRAM-SHA-512 %s\n", text);
    char err[256];
    kc_credentials_t *cs = kc_credentials_parse(file, strlen(file), "t", err, sizeof(err));
    assert_non_null(cs);
    kc_scram_server_t s;
    kc_scram_server_init(&s, KC_SCRAM_SHA_512);
    kc_buf_t out;
    kc_buf_init(&out);
    const char *cm;
    const char *cf_bare = "n=a=2Cb=3Dc,r=nonce1";
    char cf[64];
    snprintf(cf, sizeof(cf), "n,,%s", cf_bare);
    assert_int_equal(step(&s, cs, cf, &out, &cm), KC_SCRAM_OK);
    assert_string_equal(s.username, "a,b=c");
    char sf[256];
    snprintf(sf, sizeof(sf), "%.*s", (int)out.len, (const char *)out.data);
    char without_proof[256];
    /* As librdkafka before 2.6.1 sends it: its nonce once more in front of
     * the server's (accepted as Kafka 3.9 does). */
    snprintf(without_proof, sizeof(without_proof), "c=biws,r=nonce1nonce1%s",
             "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
    uint8_t salted[64], ck[64], sk[64], sig[64], proof[64];
    unsigned int l;
    PKCS5_PBKDF2_HMAC("s3cret", 6, salt, sizeof(salt), 4096, EVP_sha512(), 64, salted);
    HMAC(EVP_sha512(), salted, 64, (const uint8_t *)"Client Key", 10, ck, &l);
    EVP_Digest(ck, 64, sk, &l, EVP_sha512(), NULL);
    char am[700];
    snprintf(am, sizeof(am), "%s,%s,%s", cf_bare, sf, without_proof);
    HMAC(EVP_sha512(), sk, 64, (const uint8_t *)am, strlen(am), sig, &l);
    for (int i = 0; i < 64; i++)
        proof[i] = ck[i] ^ sig[i];
    char p64[100], final[400];
    EVP_EncodeBlock((uint8_t *)p64, proof, 64);
    snprintf(final, sizeof(final), "%s,p=%s", without_proof, p64);
    assert_int_equal(step(&s, cs, final, &out, &cm), KC_SCRAM_OK);
    assert_true(out.len > 2 && memcmp(out.data, "v=", 2) == 0);
    kc_scram_server_deinit(&s);
    kc_buf_deinit(&out);
    kc_credentials_free(cs);
}

static void credential_text_and_plain(void **state)
{
    (void)state;
    uint8_t salt[4] = {9, 9, 9, 9};
    kc_scram_credential_t c, d;
    assert_int_equal(kc_scram_credential_make(KC_SCRAM_SHA_256, "pw", salt, 4, 4095, &c),
                     KC_EINVAL);
    assert_int_equal(kc_scram_credential_make(KC_SCRAM_SHA_256, "pw", salt, 4, 5000, &c), 0);
    char text[512];
    kc_scram_credential_format(&c, text, sizeof(text));
    assert_non_null(strstr(text, "iterations=5000"));
    assert_int_equal(kc_scram_credential_parse(KC_SCRAM_SHA_256, text, &d), 0);
    assert_memory_equal(&c.stored_key, &d.stored_key, 32);
    assert_memory_equal(&c.server_key, &d.server_key, 32);
    assert_int_equal(d.iterations, 5000);
    /* A SHA-256 credential is not a SHA-512 one (key length). */
    assert_int_equal(kc_scram_credential_parse(KC_SCRAM_SHA_512, text, &d), KC_EINVAL);
    assert_true(kc_scram_check_password(&c, "pw"));
    assert_false(kc_scram_check_password(&c, "pW"));
    assert_false(kc_scram_check_password(&c, ""));

    const char *bad_files[] = {
        "alice SCRAM-SHA-256\n",
        "alice SCRAM-SHA-1 salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096\n",
        "alice SCRAM-SHA-256 salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096\n",
        "alice SCRAM-SHA-256 password=secret\n",
    };
    for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
        char err[256] = "";
        assert_null(kc_credentials_parse(bad_files[i], strlen(bad_files[i]), "f", err,
                                         sizeof(err)));
        assert_true(strncmp(err, "f:1:", 4) == 0);
    }
    char twice[1200];
    snprintf(twice, sizeof(twice), "u SCRAM-SHA-256 %s\nu SCRAM-SHA-256 %s\n", text, text);
    char err[256] = "";
    assert_null(kc_credentials_parse(twice, strlen(twice), "f", err, sizeof(err)));
    assert_non_null(strstr(err, "f:2:"));
    char low[600];
    snprintf(low, sizeof(low), "u SCRAM-SHA-256 %.*siterations=100\n",
             (int)(strstr(text, "iterations=") - text), text);
    assert_null(kc_credentials_parse(low, strlen(low), "f", err, sizeof(err)));
}

/* Hostile bytes at each step: refused, never a crash (run under ASan/UBSan). */
static void random_messages_refused(void **state)
{
    (void)state;
    kc_credentials_t *cs = rfc_credentials();
    const char *seeds[] = {"n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
                           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                           "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="};
    uint32_t x = 12345;
    kc_buf_t out;
    kc_buf_init(&out);
    for (int i = 0; i < 3000; i++) {
        uint8_t msg[200];
        const char *seed = seeds[i % 2];
        size_t len = strlen(seed);
        memcpy(msg, seed, len);
        for (int k = 0; k < 1 + i % 6; k++) {
            x = x * 1103515245u + 12345u;
            size_t at = (x >> 8) % len;
            x = x * 1103515245u + 12345u;
            msg[at] = (uint8_t)(x >> 16);
        }
        x = x * 1103515245u + 12345u;
        if (x % 7 == 0)
            len = (x >> 8) % len;
        kc_scram_server_t s;
        kc_scram_server_init(&s, KC_SCRAM_SHA_256);
        const char *cm;
        char reason[256];
        kc_buf_reset(&out);
        if (i % 2 == 0) {
            kc_scram_server_first(&s, cs, msg, len, NULL, &out, &cm, reason, sizeof(reason));
        } else {
            assert_int_equal(step(&s, cs, seeds[0], &out, &cm), KC_SCRAM_OK);
            kc_buf_reset(&out);
            /* A changed final message never authenticates. */
            kc_scram_result_t r =
                kc_scram_server_final(&s, msg, len, &out, &cm, reason, sizeof(reason));
            if (len != strlen(seed) || memcmp(msg, seed, len) != 0)
                assert_int_not_equal(r, KC_SCRAM_OK);
        }
        kc_scram_server_deinit(&s);
    }
    kc_buf_deinit(&out);
    kc_credentials_free(cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc7677_exchange),
        cmocka_unit_test(wrong_proof_and_nonce),
        cmocka_unit_test(sha512_exchange_and_escaped_name),
        cmocka_unit_test(credential_text_and_plain),
        cmocka_unit_test(random_messages_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
