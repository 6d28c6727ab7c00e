/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: magic 0/1 message sets converted into one magic 2 batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <lz4.h>
#include <snappy-c.h>
#include <xxhash.h>
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
    n = entry(in, 0, 2 /* snappy: "x" is no snappy block */, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 2);
    n = entry(in, 1, 3 /* lz4: "x" is no LZ4 frame */, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 2);
    n = entry(in, 1, 4 /* zstd needs magic 2 */, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), 87);
    n = entry(in, 1, 5 /* no such codec */, 0, "a", "x");
    assert_int_equal(kc_legacy_convert(in, n, MAX, &b, &why), -1);
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

/* ---- snappy and lz4 ---- */

/* The magic 1 inner set of test_gzip (relative offsets 0, 1) and its records
 * as Kafka writes them in the magic 2 batch. */
static size_t inner_v1(uint8_t *inner)
{
    size_t n = entry(inner, 1, 0, 1000, "a", "x");
    put(inner, 0, 8);
    size_t n2 = entry(inner + n, 1, 0, 1500, "b", "y");
    put(inner + n, 1, 8);
    return n + n2;
}

static const uint8_t V1_RECORDS[] = {0x10, 0, 0, 0, 2, 'a', 2, 'x', 0,
                                     0x12, 0, 0xe8, 0x07, 2, 2, 'b', 2, 'y', 0};

/* xerial snappy-java's stream: header, then (BE length, raw block) blocks of
 * at most block bytes of input. */
static size_t xerial(const uint8_t *in, size_t len, size_t block, uint8_t *out)
{
    static const uint8_t hdr[16] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(out, hdr, 16);
    size_t o = 16;
    for (size_t pos = 0; pos < len; pos += block) {
        size_t n = len - pos < block ? len - pos : block;
        size_t cl = snappy_max_compressed_length(n);
        assert_int_equal(snappy_compress((const char *)in + pos, n, (char *)out + o + 4, &cl),
                         SNAPPY_OK);
        put(out + o, cl, 4);
        o += 4 + cl;
    }
    return o;
}

/* Reads the xerial stream of a converted snappy batch back. */
static size_t unxerial(const uint8_t *z, size_t zn, uint8_t *out)
{
    assert_true(zn >= 16);
    assert_int_equal(z[0], 0x82);
    assert_memory_equal(z + 1, "SNAPPY", 7);
    assert_int_equal(get(z + 8, 4), 1);
    assert_int_equal(get(z + 12, 4), 1);
    size_t pos = 16, o = 0;
    while (pos < zn) {
        size_t cl = (size_t)get(z + pos, 4), ul = 1 << 20;
        assert_int_equal(snappy_uncompress((const char *)z + pos + 4, cl, (char *)out + o, &ul),
                         SNAPPY_OK);
        assert_true(ul <= 32768);
        o += ul;
        pos += 4 + cl;
    }
    assert_int_equal(pos, zn);
    return o;
}

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * An LZ4 frame as Kafka's Lz4BlockOutputStream writes it: flg, bd, header
 * checksum over the descriptor or, broken (magic 0 producers, KAFKA-3160),
 * over magic number and descriptor; one block of the whole input (stored
 * uncompressed when asked), block checksums when flg says so.
 */
static size_t lz4_frame(const uint8_t *in, size_t len, uint8_t flg, bool broken_hc,
                        bool stored, uint8_t *out)
{
    le32(out, 0x184D2204u);
    out[4] = flg;
    out[5] = 0x40;
    out[6] = (uint8_t)((broken_hc ? XXH32(out, 6, 0) : XXH32(out + 4, 2, 0)) >> 8);
    size_t o = 7;
    int cl;
    if (stored) {
        memcpy(out + o + 4, in, len);
        cl = (int)len;
        le32(out + o, (uint32_t)cl | 0x80000000u);
    } else {
        cl = LZ4_compress_default((const char *)in, (char *)out + o + 4, (int)len,
                                  LZ4_compressBound((int)len));
        assert_true(cl > 0);
        le32(out + o, (uint32_t)cl);
    }
    o += 4 + (size_t)cl;
    if (flg & 0x10) {
        le32(out + o, XXH32(out + o - cl, (size_t)cl, 0));
        o += 4;
    }
    le32(out + o, 0);
    return o + 4;
}

/* Reads the LZ4 frame of a converted lz4 batch back, checking Kafka's magic 2 header. */
static size_t unlz4_frame(const uint8_t *z, size_t zn, uint8_t *out)
{
    assert_true(zn >= 11);
    assert_int_equal(z[0] | z[1] << 8 | z[2] << 16 | (uint32_t)z[3] << 24, 0x184D2204u);
    assert_int_equal(z[4], 0x60);
    assert_int_equal(z[5], 0x40);
    assert_int_equal(z[6], (uint8_t)(XXH32(z + 4, 2, 0) >> 8)); /* a correct checksum */
    size_t pos = 7, o = 0;
    for (;;) {
        uint32_t w = z[pos] | z[pos + 1] << 8 | z[pos + 2] << 16 | (uint32_t)z[pos + 3] << 24;
        pos += 4;
        if (w == 0)
            break;
        size_t n = w & 0x7fffffffu;
        if (w & 0x80000000u) {
            memcpy(out + o, z + pos, n);
            o += n;
        } else {
            int got = LZ4_decompress_safe((const char *)z + pos, (char *)out + o, (int)n, 65536);
            assert_true(got > 0);
            o += (size_t)got;
        }
        pos += n;
    }
    assert_int_equal(pos, zn);
    return o;
}

static void test_snappy(void **state)
{
    (void)state;
    uint8_t inner[512], z[1024], in[2048], plain[1 << 16];
    kc_buf_t b;
    const char *why = NULL;
    size_t n = inner_v1(inner);

    /* xerial framing (what Kafka's and the Java producer's snappy is), two blocks */
    size_t zn = xerial(inner, n, 40, z);
    size_t wn = wrapper(in, 1, 2 /* snappy */, 1500, 1, z, zn);
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    assert_int_equal(get(b.data + 21, 2), 2); /* snappy, CreateTime */
    size_t pn = unxerial(b.data + 61, b.len - 61, plain);
    assert_int_equal(pn, sizeof(V1_RECORDS));
    assert_memory_equal(plain, V1_RECORDS, sizeof(V1_RECORDS));
    kc_buf_reset(&b);

    /* a raw snappy block without the framing, as SnappyInputStream falls back to */
    size_t cl = snappy_max_compressed_length(n);
    assert_int_equal(snappy_compress((const char *)inner, n, (char *)z, &cl), SNAPPY_OK);
    wn = wrapper(in, 1, 2, 1500, 0, z, cl);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    kc_buf_reset(&b);

    /* two concatenated xerial streams */
    size_t h = (n / 2 / 16) * 16; /* split between the messages is not needed */
    zn = xerial(inner, h, 1 << 15, z);
    zn += xerial(inner + h, n - h, 1 << 15, z + zn);
    wn = wrapper(in, 1, 2, 1500, 1, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    kc_buf_reset(&b);

    /* a truncated block, and a bound smaller than the inner set */
    zn = xerial(inner, n, 1 << 15, z);
    wn = wrapper(in, 1, 2, 1500, 1, z, zn - 3);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 2);
    wn = wrapper(in, 1, 2, 1500, 1, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, n - 1, &b, &why), 10);
    assert_int_equal(kc_legacy_convert(in, wn, n, &b, &why), 0);
    kc_buf_reset(&b);

    /* an inner set above 32 KiB is written back in 32 KiB blocks */
    static uint8_t big[40000];
    size_t bn = 0;
    char val[200];
    memset(val, 'q', sizeof(val) - 1);
    val[sizeof(val) - 1] = '\0';
    for (int i = 0; bn + 300 < sizeof(big); i++) {
        size_t e = entry(big + bn, 0, 0, 0, NULL, val);
        bn += e;
    }
    static uint8_t bz[50000], bin[50000];
    zn = xerial(big, bn, 1 << 15, bz);
    wn = wrapper(bin, 0, 2, 0, 0, bz, zn);
    assert_int_equal(kc_legacy_convert(bin, wn, MAX, &b, &why), 0);
    pn = unxerial(b.data + 61, b.len - 61, plain);
    assert_true(pn > 32768);
    kc_buf_deinit(&b);
}

static void test_lz4(void **state)
{
    (void)state;
    uint8_t inner[512], z[1024], in[2048], plain[1024];
    kc_buf_t b;
    const char *why = NULL;
    size_t n = inner_v1(inner);

    /* magic 1: a correct header checksum; written back as Kafka's magic 2 frame */
    size_t zn = lz4_frame(inner, n, 0x60, false, false, z);
    size_t wn = wrapper(in, 1, 3 /* lz4 */, 1500, 1, z, zn);
    kc_buf_init(&b);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    assert_int_equal(get(b.data + 21, 2), 3);
    size_t pn = unlz4_frame(b.data + 61, b.len - 61, plain);
    assert_int_equal(pn, sizeof(V1_RECORDS));
    assert_memory_equal(plain, V1_RECORDS, sizeof(V1_RECORDS));
    kc_buf_reset(&b);

    /* magic 1 with the broken checksum of old producers: corrupt */
    zn = lz4_frame(inner, n, 0x60, true, false, z);
    wn = wrapper(in, 1, 3, 1500, 1, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 2);
    assert_int_equal(b.len, 0);

    /* magic 0 with the broken checksum (KAFKA-3160): accepted, as Kafka ignores it */
    uint8_t inner0[512];
    size_t n0 = entry(inner0, 0, 0, 0, "k", "v0");
    n0 += entry(inner0 + n0, 0, 0, 0, NULL, "v1");
    zn = lz4_frame(inner0, n0, 0x60, true, false, z);
    wn = wrapper(in, 0, 3, 0, 0, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, -1, -1);
    pn = unlz4_frame(b.data + 61, b.len - 61, plain);
    const uint8_t r0[] = {0x12, 0, 0, 0, 2, 'k', 4, 'v', '0', 0};
    assert_memory_equal(plain, r0, sizeof(r0));
    kc_buf_reset(&b);

    /* block checksums (checked), and an uncompressed block */
    zn = lz4_frame(inner, n, 0x70, false, true, z);
    wn = wrapper(in, 1, 3, 1500, 1, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 0);
    check_batch(&b, 2, 1000, 1500);
    kc_buf_reset(&b);
    z[zn - 6] ^= 1; /* the block checksum */
    wn = wrapper(in, 1, 3, 1500, 1, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 2);

    /* dependent blocks are not supported by Kafka's reader */
    zn = lz4_frame(inner, n, 0x40, false, false, z);
    wn = wrapper(in, 1, 3, 1500, 1, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 2);

    /* truncated frame (no end mark), and the decompression bound */
    zn = lz4_frame(inner, n, 0x60, false, false, z);
    wn = wrapper(in, 1, 3, 1500, 1, z, zn - 4);
    assert_int_equal(kc_legacy_convert(in, wn, MAX, &b, &why), 2);
    wn = wrapper(in, 1, 3, 1500, 1, z, zn);
    assert_int_equal(kc_legacy_convert(in, wn, n - 1, &b, &why), 10);
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
        cmocka_unit_test(test_snappy),
        cmocka_unit_test(test_lz4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
