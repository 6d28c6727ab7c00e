/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared declarations of the fuzz targets: each target file defines
 * LLVMFuzzerTestOneInput (libFuzzer's entry point) and is linked either with
 * libFuzzer (meson option fuzz, clang) or with replay_main.c, which runs every
 * corpus file through it as an ordinary test. Helpers here read the big-endian
 * framing of fuzzer inputs and stop the process on a broken invariant so that
 * both drivers report it as a crash.
 */
#ifndef KC_FUZZ_H
#define KC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry point: 0 always (a broken invariant aborts). data may be
 * NULL when size is 0; borrowed for the call. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message when an invariant of the target does not hold. */
#define KC_FUZZ_CHECK(cond, ...)                                                                 \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "fuzz invariant failed at %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
            abort();                                                                              \
        }                                                                                         \
    } while (0)

/* A consuming cursor over the fuzzer's input; reads past the end give 0. */
typedef struct {
    const uint8_t *p;
    size_t left;
} kc_fuzz_in_t;

static inline uint8_t kc_fuzz_u8(kc_fuzz_in_t *in)
{
    if (in->left == 0)
        return 0;
    in->left--;
    return *in->p++;
}

static inline uint16_t kc_fuzz_u16(kc_fuzz_in_t *in)
{
    uint16_t hi = kc_fuzz_u8(in);
    return (uint16_t)((hi << 8) | kc_fuzz_u8(in));
}

/* Up to n bytes (fewer at the end of the input); *got receives the count. */
static inline const uint8_t *kc_fuzz_take(kc_fuzz_in_t *in, size_t n, size_t *got)
{
    const uint8_t *p = in->p;
    *got = n < in->left ? n : in->left;
    in->p += *got;
    in->left -= *got;
    return p;
}

#endif
