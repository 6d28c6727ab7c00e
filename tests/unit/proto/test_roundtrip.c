/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Round trip of every generated message at every version: fill a sample with
 * non-default values, encode, decode, re-encode and compare the bytes; then
 * decode every truncated prefix of the encoding, which must fail cleanly, and
 * every single-byte corruption, which must not crash.
 * Covers the real schemas (kc_msgs.h) and the feature fixture.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kc_fixture_msgs.h"
#include "kc_msgs.h"

#define SEEDS 6

/* Encoding of a freshly initialised message (rc in *rc). */
static int encode_default(const kc_msg_desc_t *d, int16_t v, kc_buf_t *out)
{
    void *m = kc_xcalloc(1, d->size);
    d->init(m);
    int rc = d->encode(out, v, m);
    free(m);
    return rc;
}

static void roundtrip_one(const kc_msg_desc_t *d, int16_t v, uint32_t seed, size_t *differs)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    void *m = kc_xcalloc(1, d->size);
    void *m2 = kc_xcalloc(1, d->size);
    kc_buf_t b1, b2, bd;
    kc_buf_init(&b1);
    kc_buf_init(&b2);
    kc_buf_init(&bd);

    d->fill_sample(m, v, &arena, seed);
    int rc = d->encode(&b1, v, m);
    if (rc != 0)
        fail_msg("%s v%d seed %u: encode of sample failed (%d)", d->name, v, seed, rc);

    kc_reader_t r;
    kc_reader_init(&r, b1.data, b1.len);
    rc = d->decode(&r, v, &arena, m2);
    if (rc != 0)
        fail_msg("%s v%d seed %u: decode failed (%d)", d->name, v, seed, rc);
    if (kc_reader_left(&r) != 0)
        fail_msg("%s v%d seed %u: %zu bytes left after decode", d->name, v, seed,
                 kc_reader_left(&r));

    rc = d->encode(&b2, v, m2);
    if (rc != 0)
        fail_msg("%s v%d seed %u: re-encode failed (%d)", d->name, v, seed, rc);
    if (b1.len != b2.len || (b1.len && memcmp(b1.data, b2.data, b1.len) != 0))
        fail_msg("%s v%d seed %u: re-encoded bytes differ (%zu vs %zu)", d->name, v, seed, b1.len,
                 b2.len);

    /* Count samples that differ from the defaults (or versions without fields). */
    rc = encode_default(d, v, &bd);
    if (rc != 0 || bd.len <= (v >= d->flexible_min ? 1u : 0u) || bd.len != b1.len ||
        memcmp(bd.data, b1.data, b1.len) != 0)
        (*differs)++;

    /* Every strict prefix is truncated input: decoding must fail, not crash. */
    for (size_t n = 0; n < b1.len; n++) {
        uint8_t *copy = kc_xmalloc(n); /* exact size, so ASan sees overreads */
        if (n)
            memcpy(copy, b1.data, n);
        kc_arena_t a2;
        kc_arena_init(&a2);
        kc_reader_init(&r, n ? copy : NULL, n);
        rc = d->decode(&r, v, &a2, m2);
        if (rc == 0)
            fail_msg("%s v%d seed %u: decode of %zu/%zu bytes succeeded", d->name, v, seed, n,
                     b1.len);
        kc_arena_deinit(&a2);
        free(copy);
    }

    /* Corrupt bytes one at a time: decoding may fail but must not crash, and
     * whatever it accepts must encode again. */
    for (size_t i = 0; i < b1.len; i++) {
        uint8_t *copy = kc_xmalloc(b1.len);
        memcpy(copy, b1.data, b1.len);
        copy[i] ^= (uint8_t)(0x80u >> (seed + i) % 8);
        if (i % 3 == 0)
            copy[i] = 0xff;
        kc_arena_t a2;
        kc_arena_init(&a2);
        kc_reader_init(&r, copy, b1.len);
        if (d->decode(&r, v, &a2, m2) == 0) {
            kc_buf_t b3;
            kc_buf_init(&b3);
            rc = d->encode(&b3, v, m2);
            if (rc != 0)
                fail_msg("%s v%d seed %u: corrupt byte %zu decoded but does not encode (%d)",
                         d->name, v, seed, i, rc);
            kc_buf_deinit(&b3);
        }
        kc_arena_deinit(&a2);
        free(copy);
    }

    kc_buf_deinit(&b1);
    kc_buf_deinit(&b2);
    kc_buf_deinit(&bd);
    free(m);
    free(m2);
    kc_arena_deinit(&arena);
}

static void roundtrip_table(const kc_msg_desc_t *descs, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const kc_msg_desc_t *d = &descs[i];
        assert_true(d->min_version <= d->max_version);
        for (int16_t v = d->min_version; v <= d->max_version; v++) {
            size_t differs = 0;
            for (uint32_t seed = 0; seed < SEEDS; seed++)
                roundtrip_one(d, v, seed, &differs);
            if (differs == 0)
                fail_msg("%s v%d: every sample encoded like the defaults", d->name, v);
        }
    }
}

static void test_roundtrip_all_schemas(void **state)
{
    (void)state;
    assert_true(kc_msg_descs_count > 0);
    roundtrip_table(kc_msg_descs, kc_msg_descs_count);
}

static void test_roundtrip_feature_fixture(void **state)
{
    (void)state;
    assert_int_equal(kc_fixture_descs_count, 6);
    roundtrip_table(kc_fixture_descs, kc_fixture_descs_count);
}

static void test_versions_outside_range_rejected(void **state)
{
    (void)state;
    for (size_t i = 0; i < kc_msg_descs_count; i++) {
        const kc_msg_desc_t *d = &kc_msg_descs[i];
        void *m = kc_xcalloc(1, d->size);
        kc_buf_t b;
        kc_buf_init(&b);
        kc_arena_t a;
        kc_arena_init(&a);
        d->init(m);
        assert_int_equal(d->encode(&b, (int16_t)(d->max_version + 1), m), KC_EVERSION);
        assert_int_equal(d->encode(&b, -1, m), KC_EVERSION);
        assert_int_equal(b.len, 0);
        static const uint8_t zeros[64];
        kc_reader_t r;
        kc_reader_init(&r, zeros, sizeof(zeros));
        assert_int_equal(d->decode(&r, (int16_t)(d->max_version + 1), &a, m), KC_EVERSION);
        kc_arena_deinit(&a);
        kc_buf_deinit(&b);
        free(m);
    }
}

static void test_descriptor_flags(void **state)
{
    (void)state;
    for (size_t i = 0; i < kc_msg_descs_count; i++) {
        const kc_msg_desc_t *d = &kc_msg_descs[i];
        size_t n = strlen(d->name);
        bool req = n > 7 && strcmp(d->name + n - 7, "Request") == 0;
        bool resp = n > 8 && strcmp(d->name + n - 8, "Response") == 0;
        assert_int_equal(d->is_request, req);
        assert_int_equal(d->is_response, resp);
        if (d->api_key >= 0) {
            assert_true(req || resp);
            assert_ptr_equal(kc_msg_desc_for_api(d->api_key, resp), d);
        }
        assert_true(d->size > 0);
    }
    assert_null(kc_msg_desc_for_api(-5, false));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_schemas),
        cmocka_unit_test(test_roundtrip_feature_fixture),
        cmocka_unit_test(test_versions_outside_range_rejected),
        cmocka_unit_test(test_descriptor_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
