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

#define MAX ((size_t)1048588)

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
    assert_int_equal(kc_legacy_convert(in, n + 5 /* partial trailing fragment */, MAX, &b, &why), 0);
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
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    /* second record's timestamp delta 500 (zig-zag 1000 = 0xe8 0x07) */
    const uint8_t rec1[] = {0x12, 0, 0xe8, 0x07, 2, 2, 'b', 2, 'y', 0};
    assert_memory_equal(b.data + 61 + 9, rec1, sizeof(rec1));
    kc_buf_deinit(&b);
    /* LogAppendTime attribute carries over to the batch */
    n = entry(in, 1, 0x08, 5, "a", "x");
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 0);
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
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 2);
    assert_non_null(why);
    n = entry(in, 0, 2 /* snappy */, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 76);
    n = entry(in, 1, 3 /* lz4 */, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 76);
    assert_int_equal(kc_legacy_convert(in, 5, MAX, &b, &why), 87);
    assert_int_equal(kc_legacy_convert(NULL, 0, MAX, &b, &why), 87);
    n = entry(in, 0, 0, 0, "a", "x");
    put(in + 8, 3, 4); /* record smaller than the overhead */
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 2);
    assert_int_equal(b.len, 0);
    kc_buf_deinit(&b);
}

/* gzip-compresses in[0..len) into out (a gzip stream, as legacy producers send). */
static size_t gzip_bytes(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    assert_int_equal(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                                  Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t n = cap - zs.avail_out;
    deflateEnd(&zs);
    return n;
}

/* One wrapper entry at producer offset w_off whose value is value[0..vlen). */
static size_t wrapper(uint8_t *p, int magic, uint8_t attrs, int64_t ts, int64_t w_off,
                      const uint8_t *value, size_t vlen)
{
    size_t o = 12, n = 0;
    uint8_t *r = p + o;
    n = 4;
    r[n++] = (uint8_t)magic;
    r[n++] = attrs;
    if (magic == 1)
        n += put(r + n, (uint64_t)ts, 8);
    n += put(r + n, 0xffffffffu, 4);
    n += put(r + n, vlen, 4);
    memcpy(r + n, value, vlen);
    n += vlen;
    put(r, (uint32_t)crc32(0L, r + 4, (uInt)(n - 4)), 4);
    put(p, (uint64_t)w_off, 8);
    put(p + 8, n, 4);
    return o + n;
}

/* Inflates a converted gzip batch's records section. */
static size_t gunzip_records(const kc_buf_t *b, uint8_t *out, size_t cap)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    assert_int_equal(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
    zs.next_in = b->data + 61;
    zs.avail_in = (uInt)(b->len - 61);
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
    assert_int_equal(zs.avail_in, 0);
    size_t n = cap - zs.avail_out;
    inflateEnd(&zs);
    return n;
}

static void test_gzip(void **state)
{
    (void)state;
    uint8_t inner[512], z[512], in[1024], plain[512];
    kc_buf_t b;
    const char *why = NULL;

    /* magic 1: relative inner offsets 0, 1; the wrapper carries the last (1) */
    size_t n = entry(inner, 1, 0, 1000, "a", "x");
    put(inner, 0, 8);
    size_t n2 = entry(inner + n, 1, 0, 1500, "b", "y");
    put(inner + n, 1, 8);
    n += n2;
    size_t zn = gzip_bytes(inner, n, z, sizeof(z));
    size_t wn = wrapper(in, 1, 1 /* gzip */, 1500, 1, z, zn);
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    assert_int_equal(get(b.data + 21, 2), 1); /* gzip, CreateTime */
    size_t pn = gunzip_records(&b, plain, sizeof(plain));
    const uint8_t rec0[] = {0x10, 0, 0, 0, 2, 'a', 2, 'x', 0};
    const uint8_t rec1[] = {0x12, 0, 0xe8, 0x07, 2, 2, 'b', 2, 'y', 0};
    assert_int_equal(pn, sizeof(rec0) + sizeof(rec1));
    assert_memory_equal(plain, rec0, sizeof(rec0));
    assert_memory_equal(plain + sizeof(rec0), rec1, sizeof(rec1));
    kc_buf_deinit(&b);

    /* a magic 1 wrapper with LogAppendTime gives its timestamp to the inner messages */
    wn = wrapper(in, 1, 1 | 0x08, 7777, 0, z, zn);
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, 7777, 7777);
    assert_int_equal(get(b.data + 21, 2), 0x09);
    kc_buf_deinit(&b);

    /* magic 0: absolute inner offsets (7, from entry()), no timestamps */
    n = entry(inner, 0, 0, 0, "k", "v0");
    n += entry(inner + n, 0, 0, 0, NULL, "v1");
    n += entry(inner + n, 0, 0, 0, NULL, "v2");
    zn = gzip_bytes(inner, n, z, sizeof(z));
    wn = wrapper(in, 0, 1, 0, 9, z, zn);
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 3, -1, -1);
    pn = gunzip_records(&b, plain, sizeof(plain));
    const uint8_t r0[] = {0x12, 0, 0, 0, 2, 'k', 4, 'v', '0', 0};
    assert_memory_equal(plain, r0, sizeof(r0));
    kc_buf_deinit(&b);

    /* inflated set larger than max_bytes */
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, wn, n - 1, &b, &why), 10);
    assert_non_null(why);
    assert_int_equal(kc_legacy_convert(in, wn, n, &b, &why), 0);
    kc_buf_reset(&b);

    /* truncated gzip stream */
    wn = wrapper(in, 0, 1, 0, 0, z, zn - 6);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 2);
    /* not gzip at all */
    wn = wrapper(in, 0, 1, 0, 0, inner, n);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 2);
    /* a gzip wrapper followed by another entry */
    wn = wrapper(in, 0, 1, 0, 0, z, zn);
    wn += entry(in + wn, 0, 0, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 87);
    /* inner magic differing from the wrapper's */
    wn = wrapper(in, 1, 1, 5, 0, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 87);
    /* compressed inner message */
    n = entry(inner, 0, 1, 0, "a", "x");
    zn = gzip_bytes(inner, n, z, sizeof(z));
    wn = wrapper(in, 0, 1, 0, 0, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 87);
    /* empty inner set */
    zn = gzip_bytes(inner, 0, z, sizeof(z));
    wn = wrapper(in, 0, 1, 0, 0, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 87);
    /* magic 1 wrapper offset below the last inner offset */
    n = entry(inner, 1, 0, 1, "a", "x"); /* inner offset 7 */
    zn = gzip_bytes(inner, n, z, sizeof(z));
    wn = wrapper(in, 1, 1, 1, 3, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 87);
    assert_int_equal(b.len, 0);
    kc_buf_deinit(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_magic0),
        cmocka_unit_test(test_magic1),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gzip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
