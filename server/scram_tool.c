/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `kcoord scram-credential`: prints the credentials-file lines of one user
 * (salted SCRAM credentials, never the password), to be appended to the
 * file named by sasl.credentials.file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "kc_scram.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: kcoord scram-credential [--mechanism M]... [--iterations N]\n"
            "                               [--password P | --password-file F] USER\n"
            "Prints \"USER MECHANISM salt=..,stored_key=..,server_key=..,iterations=N\" lines\n"
            "for sasl.credentials.file. The password is read from the first line of standard\n"
            "input unless given. M is SCRAM-SHA-256 or SCRAM-SHA-512 (default: both); N is at\n"
            "least %d (default %d). SASL/PLAIN logins are checked against these lines too.\n",
            KC_SCRAM_MIN_ITERATIONS, KC_SCRAM_DEFAULT_ITERATIONS);
}

static int read_line(FILE *f, char *buf, size_t len)
{
    if (!fgets(buf, (int)len, f))
        return -1;
    buf[strcspn(buf, "\r\n")] = '\0';
    return 0;
}

int kc_scram_tool_main(int argc, char **argv)
{
    kc_scram_mech_t mechs[2];
    int nmech = 0;
    long iterations = KC_SCRAM_DEFAULT_ITERATIONS;
    const char *user = NULL, *password = NULL, *password_file = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if ((strcmp(a, "--mechanism") == 0 || strcmp(a, "--iterations") == 0 ||
             strcmp(a, "--password") == 0 || strcmp(a, "--password-file") == 0) &&
            i + 1 >= argc) {
            fprintf(stderr, "kcoord scram-credential: %s needs an argument\n", a);
            return 2;
        }
        if (strcmp(a, "--mechanism") == 0) {
            kc_scram_mech_t m;
            if (kc_scram_mech_parse(argv[++i], &m) != 0 || nmech == 2) {
                fprintf(stderr, "kcoord scram-credential: unknown mechanism %s\n", argv[i]);
                return 2;
            }
            mechs[nmech++] = m;
        } else if (strcmp(a, "--iterations") == 0) {
            char *end;
            iterations = strtol(argv[++i], &end, 10);
            if (*end || iterations < KC_SCRAM_MIN_ITERATIONS || iterations > 100000000) {
                fprintf(stderr, "kcoord scram-credential: iterations must be at least %d\n",
                        KC_SCRAM_MIN_ITERATIONS);
                return 2;
            }
        } else if (strcmp(a, "--password") == 0) {
            password = argv[++i];
        } else if (strcmp(a, "--password-file") == 0) {
            password_file = argv[++i];
        } else if (a[0] == '-' || user) {
            usage(stderr);
            return 2;
        } else {
            user = a;
        }
    }
    if (!user || !user[0] || strpbrk(user, " \t\r\n#")) {
        fprintf(stderr, "kcoord scram-credential: give one USER without blanks or '#'\n");
        return 2;
    }
    if (nmech == 0) {
        mechs[nmech++] = KC_SCRAM_SHA_256;
        mechs[nmech++] = KC_SCRAM_SHA_512;
    }
    char pw[1024];
    if (!password) {
        FILE *f = password_file ? fopen(password_file, "r") : stdin;
        if (!f || read_line(f, pw, sizeof(pw)) != 0) {
            fprintf(stderr, "kcoord scram-credential: no password read\n");
            if (f && f != stdin)
                fclose(f);
            return 1;
        }
        if (f != stdin)
            fclose(f);
        password = pw;
    }
    if (!password[0]) {
        fprintf(stderr, "kcoord scram-credential: empty password\n");
        return 1;
    }
    for (int i = 0; i < nmech; i++) {
        uint8_t salt[32];
        kc_scram_credential_t c;
        char text[512];
        if (RAND_bytes(salt, sizeof(salt)) != 1 ||
            kc_scram_credential_make(mechs[i], password, salt, sizeof(salt), (int32_t)iterations,
                                     &c) != 0) {
            fprintf(stderr, "kcoord scram-credential: cannot derive the credential\n");
            return 1;
        }
        kc_scram_credential_format(&c, text, sizeof(text));
        printf("%s %s %s\n", user, kc_scram_mech_name(mechs[i]), text);
        OPENSSL_cleanse(&c, sizeof(c));
    }
    OPENSSL_cleanse(pw, sizeof(pw));
    return 0;
}
