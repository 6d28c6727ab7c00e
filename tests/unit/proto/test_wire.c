/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the wire primitives against hand-written byte vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire.h"

#define RD(r, ...)                                                                                 \
    static const uint8_t r##_bytes[] = {__VA_ARGS__};                                              \
    kc_reader_t r;                                                                                 \
    kc_reader_init(&r, r##_bytes, sizeof(r##_bytes))

static void assert_buf(const kc_buf_t *b, const uint8_t *want, size_t n)
{
    assert_int_equal(b->len, n);
    if (n)
        assert_memory_equal(b->data, want, n);
}

#define ASSERT_BUF(b, ...)                                                                         \
    do {                                                                                           \
        static const uint8_t want_[] = {__VA_ARGS__};                                              \
        assert_buf(b, want_, sizeof(want_));                                                       \
    } while (0)

static void test_fixed_ints_big_endian(void **state)
{
    (void)state;
    RD(r, 0xff, 0x12, 0x34, 0x80, 0x00, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
       0x08, 0xfe, 0xdc, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x00);
    assert_int_equal(kc_read_int8(&r), -1);
    assert_int_equal(kc_read_int16(&r), 0x1234);
    assert_int_equal(kc_read_int32(&r), INT32_MIN + 1);
    assert_true(kc_read_int64(&r) == INT64_C(0x0102030405060708));
    assert_int_equal(kc_read_uint16(&r), 0xfedc);
    assert_int_equal(kc_read_uint32(&r), 0xdeadbeefu);
    assert_true(kc_read_bool(&r));
    assert_false(kc_read_bool(&r));
    assert_int_equal(r.err, 0);
    assert_int_equal(kc_reader_left(&r), 0);

    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_int8(&b, -1);
    kc_write_int16(&b, 0x1234);
    kc_write_int32(&b, INT32_MIN + 1);
    kc_write_int64(&b, INT64_C(0x0102030405060708));
    kc_write_uint16(&b, 0xfedc);
    kc_write_uint32(&b, 0xdeadbeefu);
    kc_write_bool(&b, true);
    kc_write_bool(&b, false);
    assert_buf(&b, r_bytes, sizeof(r_bytes));
    kc_buf_deinit(&b);
}

static void test_float64_and_uuid(void **state)
{
    (void)state;
    /* 1.5 is 0x3FF8000000000000 in IEEE 754. */
    RD(r, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    assert_true(kc_read_float64(&r) == 1.5);
    kc_uuid_t u = kc_read_uuid(&r);
    assert_int_equal(u.b[0], 1);
    assert_int_equal(u.b[15], 16);
    assert_int_equal(r.err, 0);

    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_float64(&b, 1.5);
    kc_write_uuid(&b, u);
    assert_buf(&b, r_bytes, sizeof(r_bytes));
    kc_buf_deinit(&b);
}

static void test_uvarint_edges(void **state)
{
    (void)state;
    static const struct {
        uint32_t v;
        uint8_t bytes[5];
        size_t n;
    } cases[] = {
        {0, {0x00}, 1},
        {1, {0x01}, 1},
        {127, {0x7f}, 1},
        {128, {0x80, 0x01}, 2},
        {300, {0xac, 0x02}, 2},
        {16383, {0xff, 0x7f}, 2},
        {16384, {0x80, 0x80, 0x01}, 3},
        {INT32_MAX, {0xff, 0xff, 0xff, 0xff, 0x07}, 5},
        {UINT32_MAX, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
    };
    for (size_t i = 0; i < KC_ARRAY_LEN(cases); i++) {
        kc_buf_t b;
        kc_buf_init(&b);
        kc_write_uvarint(&b, cases[i].v);
        assert_buf(&b, cases[i].bytes, cases[i].n);
        kc_reader_t r;
        kc_reader_init(&r, cases[i].bytes, cases[i].n);
        assert_int_equal(kc_read_uvarint(&r), cases[i].v);
        assert_int_equal(r.err, 0);
        assert_int_equal(kc_reader_left(&r), 0);
        kc_buf_deinit(&b);
    }
}

static void test_uvarint_too_long_or_truncated(void **state)
{
    (void)state;
    /* Six bytes, all with the continuation bit. */
    RD(r1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    (void)kc_read_uvarint(&r1);
    assert_int_equal(r1.err, KC_EINVAL);
    /* Fifth byte carries bits beyond 32. */
    RD(r2, 0xff, 0xff, 0xff, 0xff, 0x1f);
    (void)kc_read_uvarint(&r2);
    assert_int_equal(r2.err, KC_EINVAL);
    /* Ends in the middle. */
    RD(r3, 0x80, 0x80);
    assert_int_equal(kc_read_uvarint(&r3), 0);
    assert_int_equal(r3.err, KC_EINVAL);
}

static void test_varint_zigzag(void **state)
{
    (void)state;
    static const struct {
        int32_t v;
        uint8_t bytes[5];
        size_t n;
    } cases[] = {
        {0, {0x00}, 1},
        {-1, {0x01}, 1},
        {1, {0x02}, 1},
        {-2, {0x03}, 1},
        {63, {0x7e}, 1},
        {-64, {0x7f}, 1},
        {64, {0x80, 0x01}, 2},
        {INT32_MAX, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
        {INT32_MIN, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
    };
    for (size_t i = 0; i < KC_ARRAY_LEN(cases); i++) {
        kc_buf_t b;
        kc_buf_init(&b);
        kc_write_varint(&b, cases[i].v);
        assert_buf(&b, cases[i].bytes, cases[i].n);
        kc_reader_t r;
        kc_reader_init(&r, cases[i].bytes, cases[i].n);
        assert_int_equal(kc_read_varint(&r), cases[i].v);
        assert_int_equal(r.err, 0);
        kc_buf_deinit(&b);
    }
}

static void test_varlong_zigzag(void **state)
{
    (void)state;
    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_varlong(&b, -1);
    ASSERT_BUF(&b, 0x01);
    kc_buf_reset(&b);
    kc_write_varlong(&b, INT64_MIN);
    ASSERT_BUF(&b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    kc_reader_t r;
    kc_reader_init(&r, b.data, b.len);
    assert_true(kc_read_varlong(&r) == INT64_MIN);
    assert_int_equal(r.err, 0);
    kc_buf_reset(&b);
    kc_write_varlong(&b, INT64_MAX);
    ASSERT_BUF(&b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    kc_reader_init(&r, b.data, b.len);
    assert_true(kc_read_varlong(&r) == INT64_MAX);
    kc_buf_reset(&b);
    kc_write_uvarlong(&b, UINT64_MAX);
    ASSERT_BUF(&b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    kc_reader_init(&r, b.data, b.len);
    assert_true(kc_read_uvarlong(&r) == UINT64_MAX);
    kc_buf_deinit(&b);
    /* A tenth byte with more than one bit overflows 64 bits. */
    RD(r2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02);
    (void)kc_read_uvarlong(&r2);
    assert_int_equal(r2.err, KC_EINVAL);
}

static void test_classic_and_compact_strings(void **state)
{
    (void)state;
    RD(r, 0x00, 0x03, 'a', 'b', 'c', /* classic "abc" */
       0x04, 'x', 'y', 'z',          /* compact "xyz" */
       0x00, 0x00,                   /* classic "" */
       0x01,                         /* compact "" */
       0xff, 0xff,                   /* classic null */
       0x00);                        /* compact null */
    kc_str_t s = kc_read_str(&r, false, false);
    assert_true(kc_str_eq_cstr(s, "abc"));
    s = kc_read_str(&r, true, false);
    assert_true(kc_str_eq_cstr(s, "xyz"));
    s = kc_read_str(&r, false, false);
    assert_int_equal(s.len, 0);
    s = kc_read_str(&r, true, false);
    assert_int_equal(s.len, 0);
    s = kc_read_str(&r, false, true);
    assert_true(kc_str_is_null(s));
    s = kc_read_str(&r, true, true);
    assert_true(kc_str_is_null(s));
    assert_int_equal(r.err, 0);
    assert_int_equal(kc_reader_left(&r), 0);

    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_str(&b, kc_str("abc"), false);
    kc_write_str(&b, kc_str("xyz"), true);
    kc_write_str(&b, kc_str(""), false);
    kc_write_str(&b, kc_str(""), true);
    kc_write_str(&b, KC_STR_NULL, false);
    kc_write_str(&b, KC_STR_NULL, true);
    assert_buf(&b, r_bytes, sizeof(r_bytes));
    kc_buf_deinit(&b);
}

static void test_null_string_where_not_nullable(void **state)
{
    (void)state;
    RD(r1, 0xff, 0xff);
    (void)kc_read_str(&r1, false, false);
    assert_int_equal(r1.err, KC_EINVAL);
    RD(r2, 0x00);
    (void)kc_read_str(&r2, true, false);
    assert_int_equal(r2.err, KC_EINVAL);
    /* -2 is never a valid length. */
    RD(r3, 0xff, 0xfe);
    (void)kc_read_str(&r3, false, true);
    assert_int_equal(r3.err, KC_EINVAL);
}

static void test_string_longer_than_input(void **state)
{
    (void)state;
    RD(r1, 0x00, 0x05, 'a', 'b');
    kc_str_t s = kc_read_str(&r1, false, false);
    assert_int_equal(r1.err, KC_EINVAL);
    assert_true(kc_str_is_null(s));
    RD(r2, 0x06, 'a');
    (void)kc_read_str(&r2, true, false);
    assert_int_equal(r2.err, KC_EINVAL);
}

static void test_bytes(void **state)
{
    (void)state;
    RD(r, 0x00, 0x00, 0x00, 0x02, 0xca, 0xfe, /* classic */
       0x03, 0xbe, 0xef,                      /* compact */
       0xff, 0xff, 0xff, 0xff,                /* classic null */
       0x00);                                 /* compact null */
    kc_bytes_t v = kc_read_bytes(&r, false, false);
    assert_int_equal(v.len, 2);
    assert_int_equal(v.ptr[1], 0xfe);
    v = kc_read_bytes(&r, true, false);
    assert_int_equal(v.len, 2);
    assert_int_equal(v.ptr[0], 0xbe);
    v = kc_read_bytes(&r, false, true);
    assert_int_equal(v.len, -1);
    v = kc_read_bytes(&r, true, true);
    assert_int_equal(v.len, -1);
    assert_int_equal(r.err, 0);

    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_bytes(&b, (kc_bytes_t){(const uint8_t *)"\xca\xfe", 2}, false);
    kc_write_bytes(&b, (kc_bytes_t){(const uint8_t *)"\xbe\xef", 2}, true);
    kc_write_bytes(&b, KC_BYTES_NULL, false);
    kc_write_bytes(&b, KC_BYTES_NULL, true);
    assert_buf(&b, r_bytes, sizeof(r_bytes));
    kc_buf_deinit(&b);
}

static void test_array_lengths(void **state)
{
    (void)state;
    RD(r, 0x00, 0x00, 0x00, 0x01, 0xaa, 0xaa, 0xaa, 0xaa, /* classic count 1 + one int32 */
       0xff, 0xff, 0xff, 0xff,                            /* classic null */
       0x00,                                              /* compact null */
       0x01);                                             /* compact empty */
    assert_int_equal(kc_read_array_len(&r, false, false, 4), 1);
    (void)kc_read_int32(&r);
    assert_int_equal(kc_read_array_len(&r, false, true, 4), -1);
    assert_int_equal(kc_read_array_len(&r, true, true, 4), -1);
    assert_int_equal(kc_read_array_len(&r, true, false, 4), 0);
    assert_int_equal(r.err, 0);

    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_array_len(&b, 3, false);
    kc_write_array_len(&b, -1, false);
    kc_write_array_len(&b, 3, true);
    kc_write_array_len(&b, -1, true);
    ASSERT_BUF(&b, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0x04, 0x00);
    kc_buf_deinit(&b);
}

static void test_null_array_where_not_nullable(void **state)
{
    (void)state;
    RD(r1, 0xff, 0xff, 0xff, 0xff);
    (void)kc_read_array_len(&r1, false, false, 1);
    assert_int_equal(r1.err, KC_EINVAL);
    RD(r2, 0x00);
    (void)kc_read_array_len(&r2, true, false, 1);
    assert_int_equal(r2.err, KC_EINVAL);
}

static void test_hostile_array_count_rejected(void **state)
{
    (void)state;
    /* Claims 2^31-1 elements with 4 bytes left. */
    RD(r1, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4);
    assert_int_equal(kc_read_array_len(&r1, false, false, 1), 0);
    assert_int_equal(r1.err, KC_EINVAL);
    /* Two int32 elements need 8 bytes; only 7 follow. */
    RD(r2, 0x00, 0x00, 0x00, 0x02, 1, 2, 3, 4, 5, 6, 7);
    (void)kc_read_array_len(&r2, false, false, 4);
    assert_int_equal(r2.err, KC_EINVAL);
    /* The same count is fine with 8 bytes. */
    RD(r3, 0x00, 0x00, 0x00, 0x02, 1, 2, 3, 4, 5, 6, 7, 8);
    assert_int_equal(kc_read_array_len(&r3, false, false, 4), 2);
    assert_int_equal(r3.err, 0);
    /* Compact count of UINT32_MAX-1 elements. */
    RD(r4, 0xff, 0xff, 0xff, 0xff, 0x0f, 0);
    (void)kc_read_array_len(&r4, true, false, 1);
    assert_int_equal(r4.err, KC_EINVAL);
}

static void test_truncated_input_is_sticky(void **state)
{
    (void)state;
    RD(r, 0x00, 0x01, 0x02);
    assert_int_equal(kc_read_int32(&r), 0);
    assert_int_equal(r.err, KC_EINVAL);
    /* Even a read that would fit now returns 0. */
    assert_int_equal(kc_read_int8(&r), 0);
    assert_int_equal(r.err, KC_EINVAL);
    assert_null(kc_read_raw(&r, 0));
    RD(r2, 0x01);
    assert_int_equal(kc_read_int16(&r2), 0);
    assert_int_equal(r2.err, KC_EINVAL);
    RD(r3, 1, 2, 3, 4, 5, 6, 7);
    assert_true(kc_read_int64(&r3) == 0);
    assert_int_equal(r3.err, KC_EINVAL);
    kc_reader_t r4;
    kc_reader_init(&r4, NULL, 0);
    assert_false(kc_read_bool(&r4));
    assert_int_equal(r4.err, KC_EINVAL);
}

static void test_read_raw(void **state)
{
    (void)state;
    RD(r, 1, 2, 3);
    const uint8_t *p = kc_read_raw(&r, 2);
    assert_non_null(p);
    assert_int_equal(p[1], 2);
    assert_null(kc_read_raw(&r, 2));
    assert_int_equal(r.err, KC_EINVAL);
}

static void test_tagged_fields_skipped(void **state)
{
    (void)state;
    /* Two tagged fields: tag 0 with 3 bytes, tag 300 with 1 byte; then 0x42. */
    RD(r, 0x02, 0x00, 0x03, 0xa, 0xb, 0xc, 0xac, 0x02, 0x01, 0xd, 0x42);
    kc_skip_tagged_fields(&r);
    assert_int_equal(r.err, 0);
    assert_int_equal(kc_read_int8(&r), 0x42);
    /* An empty section is one byte. */
    RD(r2, 0x00, 0x43);
    kc_skip_tagged_fields(&r2);
    assert_int_equal(kc_read_int8(&r2), 0x43);
    /* A field whose size runs past the end. */
    RD(r3, 0x01, 0x00, 0x05, 0xa);
    kc_skip_tagged_fields(&r3);
    assert_int_equal(r3.err, KC_EINVAL);
    /* A count larger than the fields present. */
    RD(r4, 0x7f, 0x00, 0x00);
    kc_skip_tagged_fields(&r4);
    assert_int_equal(r4.err, KC_EINVAL);
}

static void test_request_header_v1(void **state)
{
    (void)state;
    /* JoinGroup (11) v5, correlation 7, client id "rdk", then the body. */
    RD(r, 0x00, 0x0b, 0x00, 0x05, 0x00, 0x00, 0x00, 0x07, 0x00, 0x03, 'r', 'd', 'k', 0x99);
    kc_request_header_t h;
    assert_int_equal(kc_request_header_decode(&r, false, &h), 0);
    assert_int_equal(h.api_key, 11);
    assert_int_equal(h.api_version, 5);
    assert_int_equal(h.correlation_id, 7);
    assert_true(kc_str_eq_cstr(h.client_id, "rdk"));
    assert_int_equal((uint8_t)kc_read_int8(&r), 0x99);
    assert_int_equal(r.err, 0);
}

static void test_request_header_v2(void **state)
{
    (void)state;
    /* ApiVersions (18) v3, correlation 1, null client id (int16 -1 even in v2),
     * one unknown tagged field, then the body byte 0x55. */
    RD(r, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0x01, 0x05, 0x02, 0xaa,
       0xbb, 0x55);
    kc_request_header_t h;
    assert_int_equal(kc_request_header_decode(&r, true, &h), 0);
    assert_int_equal(h.api_key, 18);
    assert_int_equal(h.api_version, 3);
    assert_int_equal(h.correlation_id, 1);
    assert_true(kc_str_is_null(h.client_id));
    assert_int_equal(kc_read_int8(&r), 0x55);
    assert_int_equal(kc_reader_left(&r), 0);

    /* The classic int16 ClientId length is used in v2: 0x00 0x02 "ab". */
    RD(r2, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 'a', 'b', 0x00);
    assert_int_equal(kc_request_header_decode(&r2, true, &h), 0);
    assert_true(kc_str_eq_cstr(h.client_id, "ab"));
    assert_int_equal(kc_reader_left(&r2), 0);

    /* Truncated inside the client id. */
    RD(r3, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x05, 'a');
    assert_int_equal(kc_request_header_decode(&r3, true, &h), KC_EINVAL);
    /* Missing the tagged section. */
    RD(r4, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00);
    assert_int_equal(kc_request_header_decode(&r4, true, &h), KC_EINVAL);
}

static void test_response_headers(void **state)
{
    (void)state;
    kc_buf_t b;
    kc_buf_init(&b);
    kc_response_header_encode(&b, 0x01020304, false);
    ASSERT_BUF(&b, 0x01, 0x02, 0x03, 0x04);
    kc_buf_reset(&b);
    kc_response_header_encode(&b, -1, true);
    ASSERT_BUF(&b, 0xff, 0xff, 0xff, 0xff, 0x00);
    kc_buf_deinit(&b);
}

static void test_put_int32_at(void **state)
{
    (void)state;
    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_int32(&b, 0);
    kc_write_int8(&b, 9);
    kc_buf_put_int32_at(&b, 0, 5);
    ASSERT_BUF(&b, 0, 0, 0, 5, 9);
    /* Out of range offsets leave the buffer alone. */
    kc_buf_put_int32_at(&b, 2, 0x7f7f7f7f);
    ASSERT_BUF(&b, 0, 0, 0, 5, 9);
    kc_buf_deinit(&b);
}

static void test_str_helpers(void **state)
{
    (void)state;
    assert_true(kc_str_is_null(kc_str(NULL)));
    assert_true(kc_str_eq(KC_STR_NULL, KC_STR_NULL));
    assert_false(kc_str_eq(KC_STR_NULL, kc_str("")));
    assert_true(kc_str_eq(kc_str(""), kc_str("")));
    assert_false(kc_str_eq_cstr(kc_str("ab"), "abc"));
    assert_true(kc_str_eq_cstr(kc_str("abc"), "abc"));
    assert_true(kc_str_is_empty(kc_str("")));
    assert_true(kc_str_is_empty(KC_STR_NULL));
}

/* Strings that are not UTF-8 read as Java's UTF-8 decoder reads them (the
 * expected bytes are what new String(bytes, UTF_8).getBytes(UTF_8) gives on
 * OpenJDK 17): Unicode's maximal subparts, an encoded surrogate whole. */
static void test_str_utf8_as_java(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"plain ascii", "plain ascii"},
        {"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
        {"\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},           /* an overlong '/' */
        {"a\xe2\x82", "a\xef\xbf\xbd"},                         /* a truncated euro sign */
        {"\xe2\x82x", "\xef\xbf\xbdx"},
        {"\xed\xa0\x80", "\xef\xbf\xbd"},                         /* an encoded surrogate */
        {"\xed\xa0", "\xef\xbf\xbd"},
        {"\xed\x9f\xbf", "\xed\x9f\xbf"},                         /* U+D7FF */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* above U+10FFFF */
        /* Unicode's own example of maximal subparts (chapter 3, U+FFFD substitution). */
        {"\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
         "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd" "d"},
    };
    kc_arena_t a;
    kc_arena_init(&a);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kc_str_t in = kc_str(cases[i].in);
        kc_str_t out = kc_str_utf8(in, &a);
        assert_int_equal(out.len, (int32_t)strlen(cases[i].want));
        assert_memory_equal(out.ptr, cases[i].want, (size_t)out.len);
        /* Well-formed input is the same view, not a copy. */
        if (strcmp(cases[i].in, cases[i].want) == 0)
            assert_ptr_equal(out.ptr, in.ptr);
    }
    /* Through the reader, as the generated decoders read a STRING. */
    static const uint8_t wire[] = {0x00, 0x02, 0xff, 0xfe};
    kc_reader_t r;
    kc_reader_init(&r, wire, sizeof(wire));
    kc_str_t s = kc_read_str_utf8(&r, false, false, &a);
    assert_int_equal(r.err, 0);
    assert_int_equal(s.len, 6);
    assert_memory_equal(s.ptr, "\xef\xbf\xbd\xef\xbf\xbd", 6);
    assert_true(kc_str_is_null(kc_str_utf8(KC_STR_NULL, &a)));
    kc_arena_deinit(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_ints_big_endian),
        cmocka_unit_test(test_float64_and_uuid),
        cmocka_unit_test(test_uvarint_edges),
        cmocka_unit_test(test_uvarint_too_long_or_truncated),
        cmocka_unit_test(test_varint_zigzag),
        cmocka_unit_test(test_varlong_zigzag),
        cmocka_unit_test(test_classic_and_compact_strings),
        cmocka_unit_test(test_null_string_where_not_nullable),
        cmocka_unit_test(test_string_longer_than_input),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_array_lengths),
        cmocka_unit_test(test_null_array_where_not_nullable),
        cmocka_unit_test(test_hostile_array_count_rejected),
        cmocka_unit_test(test_truncated_input_is_sticky),
        cmocka_unit_test(test_read_raw),
        cmocka_unit_test(test_tagged_fields_skipped),
        cmocka_unit_test(test_request_header_v1),
        cmocka_unit_test(test_request_header_v2),
        cmocka_unit_test(test_response_headers),
        cmocka_unit_test(test_put_int32_at),
        cmocka_unit_test(test_str_helpers),
        cmocka_unit_test(test_str_utf8_as_java),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
