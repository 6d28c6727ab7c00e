/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Temporary: the hand-written error responses of server/faults.c against the
 * ones generated from the schemas, for every API key, every version (and one
 * outside each end), several error codes and many request bodies (none,
 * empty, samples, truncated, junk, another version's encoding). Return codes
 * and output bytes must be identical. Removed with the hand-written code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kc_common.h"
#include "kc_msgs.h"
#include "server_int.h"
#include "wire.h"

static long compared, answered, refused;

static void compare_one(int16_t api, int16_t v, const uint8_t *body, size_t len, bool has_body,
                        int16_t code)
{
    kc_arena_t a1, a2;
    kc_arena_init(&a1);
    kc_arena_init(&a2);
    kc_buf_t o1, o2;
    kc_buf_init(&o1);
    kc_buf_init(&o2);
    static const uint8_t pre[] = {9, 8, 7};
    kc_buf_append(&o1, pre, sizeof(pre));
    kc_buf_append(&o2, pre, sizeof(pre));
    kc_reader_t r1, r2;
    kc_reader_init(&r1, body, len);
    kc_reader_init(&r2, body, len);
    int rc1 = kc_faults_error_response(api, v, has_body ? &r1 : NULL, &a1, code, &o1);
    int rc2 = kc_msg_error_response_encode(api, v, has_body ? &r2 : NULL, &a2, code, &o2);
    if (rc1 != rc2)
        fail_msg("api %d v%d code %d body %zu%s: rc %d (switch) vs %d (generated)", api, v, code,
                 len, has_body ? "" : " (none)", rc1, rc2);
    if (rc1 == 0 && (o1.len != o2.len || memcmp(o1.data, o2.data, o1.len) != 0))
        fail_msg("api %d v%d code %d body %zu%s: %zu bytes (switch) vs %zu (generated)", api, v,
                 code, len, has_body ? "" : " (none)", o1.len, o2.len);
    compared++;
    if (rc1 == 0)
        answered++;
    else
        refused++;
    kc_buf_deinit(&o1);
    kc_buf_deinit(&o2);
    kc_arena_deinit(&a1);
    kc_arena_deinit(&a2);
}

static const int16_t codes[] = {14, 15, 16, 35, 42, 3, 6, 19, 56, 31, 58, 0, -1, 999};

static void compare_body(int16_t api, int16_t v, const uint8_t *body, size_t len, bool has_body)
{
    for (size_t c = 0; c < sizeof(codes) / sizeof(codes[0]); c++)
        compare_one(api, v, body, len, has_body, codes[c]);
}

/* Encodes sample seed of the request at version ev into b; false when it does not encode. */
static bool sample(const kc_msg_desc_t *d, int16_t ev, uint32_t seed, kc_arena_t *a, kc_buf_t *b)
{
    void *m = kc_arena_alloc(a, d->size);
    d->fill_sample(m, ev, a, seed);
    if (d->is_request && d->api_key == KC_API_PRODUCE && seed % 4 == 0)
        ((kc_produce_request_t *)m)->acks = 0;
    if (d->api_key == KC_API_METADATA && seed % 3 == 0) {
        kc_metadata_request_t *mr = m;
        for (int32_t i = 0; i < mr->topics.count; i++)
            if (ev >= 10)
                mr->topics.items[i].name = KC_STR_NULL;
    }
    kc_buf_reset(b);
    return d->encode(b, ev, m) == 0;
}

static void test_switch_and_generated_agree(void **state)
{
    (void)state;
    static const uint8_t junk[] = {0x00, 0x01, 'g', 0x00, 0x00, 0x00, 0x05, 0xff, 0xff, 0x00};
    int16_t keys[64];
    size_t nk = 0;
    for (size_t i = 0; i < kc_api_table_len; i++)
        keys[nk++] = kc_api_table[i].api_key;
    keys[nk++] = 7;    /* no schema */
    keys[nk++] = 999;  /* no API */
    keys[nk++] = -1;
    for (size_t k = 0; k < nk; k++) {
        int16_t api = keys[k];
        const kc_msg_desc_t *d = kc_msg_desc_for_api(api, false);
        int16_t lo = d ? d->min_version : 0, hi = d ? d->max_version : 3;
        for (int16_t v = (int16_t)(lo - 1); v <= hi + 1; v++) {
            compare_body(api, v, NULL, 0, false);
            compare_body(api, v, (const uint8_t *)"", 0, true);
            compare_body(api, v, junk, sizeof(junk), true);
            if (!d)
                continue;
            kc_arena_t a;
            kc_arena_init(&a);
            kc_buf_t b;
            kc_buf_init(&b);
            for (uint32_t seed = 1; seed <= 12; seed++) {
                int16_t ev = seed == 11 ? (int16_t)(v - 1) : seed == 12 ? (int16_t)(v + 1) : v;
                if (ev < lo || ev > hi || !sample(d, ev, seed, &a, &b))
                    continue;
                compare_body(api, v, b.data, b.len, true);
                if (seed <= 2) {
                    compare_body(api, v, b.data, b.len / 2, true);
                    if (b.len)
                        compare_body(api, v, b.data, b.len - 1, true);
                }
            }
            kc_buf_deinit(&b);
            kc_arena_deinit(&a);
        }
    }
    print_message("compared %ld cases: %ld answered, %ld refused, all identical\n", compared,
                  answered, refused);
}

static void test_messages_agree(void **state)
{
    (void)state;
    for (int c = -2; c <= 200; c++) {
        const char *a = kc_faults_error_message((int16_t)c), *b = kc_error_message((int16_t)c);
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
            fail_msg("message of %d differs", c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages_agree),
        cmocka_unit_test(test_switch_and_generated_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
