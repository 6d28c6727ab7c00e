/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SASL credentials and the server side of the SCRAM exchange (RFC 5802,
 * RFC 7677) for SCRAM-SHA-256 and SCRAM-SHA-512, with OpenSSL's PBKDF2 and
 * HMAC. Only salted credentials are kept (salt, StoredKey, ServerKey,
 * iterations: Kafka's ScramCredential); SASL/PLAIN passwords are checked
 * against them too, so no password is stored anywhere. No I/O besides
 * reading the credentials file; no logging.
 */
#ifndef KC_SCRAM_H
#define KC_SCRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kc_common.h"

typedef enum { KC_SCRAM_SHA_256, KC_SCRAM_SHA_512 } kc_scram_mech_t;

/* Kafka's ScramMechanism.minIterations for both hashes. */
#define KC_SCRAM_MIN_ITERATIONS 4096
#define KC_SCRAM_DEFAULT_ITERATIONS 4096
#define KC_SCRAM_MAX_KEY 64  /* SHA-512 output */
#define KC_SCRAM_MAX_SALT 64

typedef struct {
    kc_scram_mech_t mech;
    uint8_t salt[KC_SCRAM_MAX_SALT];
    size_t salt_len;
    uint8_t stored_key[KC_SCRAM_MAX_KEY];
    uint8_t server_key[KC_SCRAM_MAX_KEY];
    int32_t iterations;
} kc_scram_credential_t;

/* "SCRAM-SHA-256" / "SCRAM-SHA-512" <-> mechanism; parse returns -1 when unknown. */
int kc_scram_mech_parse(const char *name, kc_scram_mech_t *out);
const char *kc_scram_mech_name(kc_scram_mech_t m);

/*
 * Derives the credential of password (UTF-8 bytes, as Kafka uses them) with
 * salt and iterations (>= KC_SCRAM_MIN_ITERATIONS): SaltedPassword =
 * PBKDF2(password, salt, i), StoredKey = H(HMAC(SaltedPassword, "Client Key")),
 * ServerKey = HMAC(SaltedPassword, "Server Key"). 0, or KC_EINVAL.
 */
int kc_scram_credential_make(kc_scram_mech_t m, const char *password, const uint8_t *salt,
                             size_t salt_len, int32_t iterations, kc_scram_credential_t *out);
/* Kafka's text form "salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>" into out. */
void kc_scram_credential_format(const kc_scram_credential_t *c, char *out, size_t outlen);
/* Parses that form for mechanism m; 0, or KC_EINVAL (bad field, iterations below the minimum). */
int kc_scram_credential_parse(kc_scram_mech_t m, const char *text, kc_scram_credential_t *out);
/* True when password derives c's StoredKey (constant-time compare): SASL/PLAIN. */
bool kc_scram_check_password(const kc_scram_credential_t *c, const char *password);

/*
 * The credentials file: one credential a line, "USER MECHANISM CREDENTIAL"
 * (CREDENTIAL in the text form above), blank lines and '#' comments ignored.
 * NULL with a reason (naming the line) in err when unreadable or malformed.
 */
typedef struct kc_credentials kc_credentials_t;
kc_credentials_t *kc_credentials_load(const char *path, char *err, size_t errlen);
/* Parses the file's text (origin names it in messages). */
kc_credentials_t *kc_credentials_parse(const char *text, size_t len, const char *origin,
                                       char *err, size_t errlen);
void kc_credentials_free(kc_credentials_t *cs);
size_t kc_credentials_count(const kc_credentials_t *cs);
/* The user's credential for m, or NULL. cs may be NULL (no file: nobody). */
const kc_scram_credential_t *kc_credentials_find(const kc_credentials_t *cs, const char *user,
                                                 kc_scram_mech_t m);

/*
 * One SCRAM exchange, server side. Results of the steps:
 * KC_SCRAM_OK (out holds the message to send), KC_SCRAM_FAIL (SaslException
 * in Kafka: the client is told only the generic "invalid credentials"),
 * KC_SCRAM_FAIL_MSG (SaslAuthenticationException: *client_msg is Kafka's
 * message for the client). reason always says what happened, for the log.
 */
typedef enum { KC_SCRAM_OK = 0, KC_SCRAM_FAIL = 1, KC_SCRAM_FAIL_MSG = 2 } kc_scram_result_t;

typedef struct {
    kc_scram_mech_t mech;
    int state; /* 0 = expects client-first, 1 = expects client-final, 2 = done, 3 = failed */
    kc_scram_credential_t cred;
    char username[256];
    char *client_first_bare;
    char *server_first;
    char *nonce; /* client nonce + server nonce */
} kc_scram_server_t;

void kc_scram_server_init(kc_scram_server_t *s, kc_scram_mech_t m);
void kc_scram_server_deinit(kc_scram_server_t *s);
/*
 * client-first-message -> server-first-message. server_nonce (printable, no
 * ',') is appended to the client's nonce; NULL draws 32 random characters.
 * Unknown user: KC_SCRAM_FAIL, as Kafka.
 */
kc_scram_result_t kc_scram_server_first(kc_scram_server_t *s, const kc_credentials_t *cs,
                                        const uint8_t *msg, size_t len, const char *server_nonce,
                                        kc_buf_t *out, const char **client_msg, char *reason,
                                        size_t reasonlen);
/* client-final-message -> server-final-message ("v=..."); a wrong proof is KC_SCRAM_FAIL. */
kc_scram_result_t kc_scram_server_final(kc_scram_server_t *s, const uint8_t *msg, size_t len,
                                        kc_buf_t *out, const char **client_msg, char *reason,
                                        size_t reasonlen);

/* `kcoord scram-credential ARGS` (server/scram_tool.c); returns the exit status. */
int kc_scram_tool_main(int argc, char **argv);

#endif
