/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: magic 0/1 message sets converted into one magic 2 batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "crc32c.h"
#include "legacy.h"

static size_t put(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    return (size_t)n;
}

/* Appends one legacy entry (producer offset 7) with key/value (NULL key = null). */
static size_t entry(uint8_t *p, int magic, uint8_t attrs, int64_t ts, const char *key,
                    const char *value)
{
    uint8_t r[256];
    size_t n = 4;
    r[n++] = (uint8_t)magic;
    r[n++] = attrs;
    if (magic == 1)
        n += put(r + n, (uint64_t)ts, 8);
    n += put(r + n, key ? strlen(key) : 0xffffffffu, 4);
    if (key) {
        memcpy(r + n, key, strlen(key));
        n += strlen(key);
    }
    n += put(r + n, strlen(value), 4);
    memcpy(r + n, value, strlen(value));
    n += strlen(value);
    put(r, (uint32_t)crc32(0L, r + 4, (uInt)(n - 4)), 4);
    size_t o = put(p, 7, 8);
    o += put(p + o, n, 4);
    memcpy(p + o, r, n);
    return o + n;
}

static uint64_t get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static void check_batch(const kc_buf_t *b, int32_t count, int64_t base_ts, int64_t max_ts)
{
    assert_true(b->len > 61);
    assert_int_equal(get(b->data, 8), 0);
    assert_int_equal(get(b->data + 8, 4), b->len - 12);
    assert_int_equal(b->data[16], 2);
    assert_int_equal(get(b->data + 17, 4), kc_crc32c(0, b->data + 21, b->len - 21));
    assert_int_equal((int32_t)get(b->data + 23, 4), count - 1);
    assert_int_equal((int64_t)get(b->data + 27, 8), base_ts);
    assert_int_equal((int64_t)get(b->data + 35, 8), max_ts);
    assert_int_equal((int64_t)get(b->data + 43, 8), -1);
    assert_int_equal((int32_t)get(b->data + 57, 4), count);
}

static void test_magic0(void **state)
{
    (void)state;
    uint8_t in[512];
    size_t n = entry(in, 0, 0, 0, "k1", "v1");
    n += entry(in + n, 0, 0, 0, NULL, "v2");
    kc_buf_t b;
    kc_buf_init(&b);
    const char *why = NULL;
    assert_int_equal(kc_legacy_convert(in, n + 5 /* partial trailing fragment */, &b, &why), 0);
    check_batch(&b, 2, -1, -1);
    assert_int_equal(get(b.data + 21, 2), 0); /* CreateTime, uncompressed */
    /* first record: length, attrs 0, ts delta 0, offset delta 0, key "k1", "v1", 0 headers */
    const uint8_t rec0[] = {0x14, 0, 0, 0, 4, 'k', '1', 4, 'v', '1', 0};
    assert_memory_equal(b.data + 61, rec0, sizeof(rec0));
    /* second: null key (varint -1 = 1) */
    const uint8_t rec1[] = {0x10, 0, 0, 2, 1, 4, 'v', '2', 0};
    assert_memory_equal(b.data + 61 + sizeof(rec0), rec1, sizeof(rec1));
    assert_int_equal(b.len, 61 + sizeof(rec0) + sizeof(rec1));
    kc_buf_deinit(&b);
}

static void test_magic1(void **state)
{
    (void)state;
    uint8_t in[512];
    size_t n = entry(in, 1, 0, 1000, "a", "x");
    n += entry(in + n, 1, 0, 1500, "b", "y");
    kc_buf_t b;
    kc_buf_init(&b);
    const char *why = NULL;
    assert_int_equal(kc_legacy_convert(in, n, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    /* second record's timestamp delta 500 (zig-zag 1000 = 0xe8 0x07) */
    const uint8_t rec1[] = {0x12, 0, 0xe8, 0x07, 2, 2, 'b', 2, 'y', 0};
    assert_memory_equal(b.data + 61 + 9, rec1, sizeof(rec1));
    kc_buf_deinit(&b);
    /* LogAppendTime attribute carries over to the batch */
    n = entry(in, 1, 0x08, 5, "a", "x");
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, n, &b, &why), 0);
    assert_int_equal(get(b.data + 21, 2), 0x08);
    kc_buf_deinit(&b);
}

static void test_errors(void **state)
{
    (void)state;
    uint8_t in[512];
    kc_buf_t b;
    kc_buf_init(&b);
    const char *why = NULL;
    size_t n = entry(in, 1, 0, 1000, "a", "x");
    in[n - 1] ^= 1; /* CRC-32 mismatch */
    assert_int_equal(kc_legacy_convert(in, n, &b, &why), 2);
    assert_non_null(why);
    n = entry(in, 0, 1 /* gzip */, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, n, &b, &why), 76);
    assert_int_equal(kc_legacy_convert(in, 5, &b, &why), 87);
    assert_int_equal(kc_legacy_convert(NULL, 0, &b, &why), 87);
    n = entry(in, 0, 0, 0, "a", "x");
    put(in + 8, 3, 4); /* record smaller than the overhead */
    assert_int_equal(kc_legacy_convert(in, n, &b, &why), 2);
    assert_int_equal(b.len, 0);
    kc_buf_deinit(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_magic0),
        cmocka_unit_test(test_magic1),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
