/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka wire primitives (see wire.h): a bounded big-endian reader whose error
 * flag is sticky, appending writers, varints and the request/response headers.
 * Every read checks the bytes left first; nothing here allocates.
 */
#include "wire.h"

#include <string.h>

/* Longest string Kafka accepts on the wire (its writers reject longer). */
#define KC_STR_MAX 0x7fff

kc_str_t kc_str(const char *s)
{
    if (!s)
        return KC_STR_NULL;
    size_t n = strlen(s);
    return (kc_str_t){s, n > INT32_MAX ? INT32_MAX : (int32_t)n};
}

bool kc_str_eq(kc_str_t a, kc_str_t b)
{
    if (a.len < 0 || b.len < 0)
        return a.len < 0 && b.len < 0;
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, (size_t)a.len) == 0);
}

bool kc_str_eq_cstr(kc_str_t a, const char *s)
{
    return kc_str_eq(a, kc_str(s));
}

void kc_reader_init(kc_reader_t *r, const void *data, size_t len)
{
    r->p = data;
    r->end = r->p ? r->p + len : r->p;
    r->err = 0;
}

/* Returns a pointer to n readable bytes and advances, or NULL with err set. */
static const uint8_t *take(kc_reader_t *r, size_t n)
{
    if (r->err)
        return NULL;
    if (kc_reader_left(r) < n) {
        r->err = KC_EINVAL;
        r->p = r->end;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

static uint64_t be_get(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

static void be_put(kc_buf_t *b, uint64_t v, size_t n)
{
    uint8_t *p = kc_buf_reserve(b, n);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    b->len += n;
}

int8_t kc_read_int8(kc_reader_t *r)
{
    const uint8_t *p = take(r, 1);
    return p ? (int8_t)p[0] : 0;
}

int16_t kc_read_int16(kc_reader_t *r)
{
    const uint8_t *p = take(r, 2);
    return p ? (int16_t)(uint16_t)be_get(p, 2) : 0;
}

int32_t kc_read_int32(kc_reader_t *r)
{
    const uint8_t *p = take(r, 4);
    return p ? (int32_t)(uint32_t)be_get(p, 4) : 0;
}

int64_t kc_read_int64(kc_reader_t *r)
{
    const uint8_t *p = take(r, 8);
    return p ? (int64_t)be_get(p, 8) : 0;
}

uint16_t kc_read_uint16(kc_reader_t *r)
{
    const uint8_t *p = take(r, 2);
    return p ? (uint16_t)be_get(p, 2) : 0;
}

uint32_t kc_read_uint32(kc_reader_t *r)
{
    const uint8_t *p = take(r, 4);
    return p ? (uint32_t)be_get(p, 4) : 0;
}

double kc_read_float64(kc_reader_t *r)
{
    const uint8_t *p = take(r, 8);
    if (!p)
        return 0.0;
    uint64_t bits = be_get(p, 8);
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

bool kc_read_bool(kc_reader_t *r)
{
    const uint8_t *p = take(r, 1);
    return p ? p[0] != 0 : false;
}

kc_uuid_t kc_read_uuid(kc_reader_t *r)
{
    kc_uuid_t u;
    const uint8_t *p = take(r, 16);
    if (p)
        memcpy(u.b, p, 16);
    else
        memset(u.b, 0, 16);
    return u;
}

/* Reads an unsigned LEB128 value of at most max_bytes bytes and value_bits bits. */
static uint64_t read_uvar(kc_reader_t *r, unsigned max_bytes, unsigned value_bits)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        const uint8_t *p = take(r, 1);
        if (!p)
            return 0;
        uint64_t part = p[0] & 0x7f;
        unsigned shift = 7 * i;
        /* The last byte may only carry the bits that are left. */
        if (shift + 7 > value_bits && (part >> (value_bits - shift)) != 0)
            break;
        v |= part << shift;
        if (!(p[0] & 0x80))
            return v;
    }
    r->err = KC_EINVAL;
    return 0;
}

uint32_t kc_read_uvarint(kc_reader_t *r)
{
    return (uint32_t)read_uvar(r, 5, 32);
}

uint64_t kc_read_uvarlong(kc_reader_t *r)
{
    return read_uvar(r, 10, 64);
}

int32_t kc_read_varint(kc_reader_t *r)
{
    uint32_t u = kc_read_uvarint(r);
    return (int32_t)((u >> 1) ^ (uint32_t)-(int32_t)(u & 1));
}

int64_t kc_read_varlong(kc_reader_t *r)
{
    uint64_t u = kc_read_uvarlong(r);
    return (int64_t)((u >> 1) ^ (uint64_t)-(int64_t)(u & 1));
}

/* Reads a length prefix: compact is uvarint len+1 (0 = null), classic is
 * int16 or int32 by `wide`. Returns -1 for null, -2 on error. */
static int64_t read_len(kc_reader_t *r, bool compact, bool wide)
{
    int64_t n;
    if (compact)
        n = (int64_t)kc_read_uvarint(r) - 1;
    else if (wide)
        n = kc_read_int32(r);
    else
        n = kc_read_int16(r);
    if (r->err || n < -1) {
        r->err = KC_EINVAL;
        return -2;
    }
    return n;
}

kc_str_t kc_read_str(kc_reader_t *r, bool compact, bool nullable)
{
    int64_t n = read_len(r, compact, false);
    if (n == -1 && nullable)
        return KC_STR_NULL;
    if (n < 0 || n > KC_STR_MAX) {
        r->err = KC_EINVAL;
        return KC_STR_NULL;
    }
    const uint8_t *p = take(r, (size_t)n);
    if (!p)
        return KC_STR_NULL;
    return (kc_str_t){(const char *)p, (int32_t)n};
}

/* The length of the well-formed UTF-8 sequence at p (at most n bytes), or
 * 0 and *bad the bytes that one U+FFFD replaces: Unicode's maximal subpart,
 * except that Java's decoder takes a lead byte ED with any continuation
 * byte as the start of a sequence (an encoded surrogate is replaced whole). */
static size_t utf8_seq(const uint8_t *p, size_t n, size_t *bad)
{
    uint8_t b = p[0];
    size_t len;
    uint8_t lo = 0x80, hi = 0xbf;
    if (b < 0x80)
        return 1;
    if (b >= 0xc2 && b <= 0xdf)
        len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
        len = 3;
        if (b == 0xe0)
            lo = 0xa0;
    } else if (b >= 0xf0 && b <= 0xf4) {
        len = 4;
        if (b == 0xf0)
            lo = 0x90;
        else if (b == 0xf4)
            hi = 0x8f;
    } else {
        *bad = 1;
        return 0;
    }
    size_t i = 1;
    for (; i < len && i < n; i++) {
        uint8_t c = p[i];
        if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xbf))
            break;
    }
    if (i == len && !(b == 0xed && p[1] >= 0xa0))
        return len;
    *bad = i;
    return 0;
}

kc_str_t kc_str_utf8(kc_str_t s, kc_arena_t *arena)
{
    if (s.len <= 0)
        return s;
    const uint8_t *p = (const uint8_t *)s.ptr;
    size_t n = (size_t)s.len, i = 0, bad;
    while (i < n) {
        size_t k = utf8_seq(p + i, n - i, &bad);
        if (!k)
            break;
        i += k;
    }
    if (i == n || !arena)
        return s;
    /* Each replaced byte becomes at most the three bytes of U+FFFD. */
    uint8_t *out = kc_arena_alloc(arena, 3 * n);
    memcpy(out, p, i);
    size_t o = i;
    while (i < n) {
        size_t k = utf8_seq(p + i, n - i, &bad);
        if (k) {
            memcpy(out + o, p + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i += bad;
        }
    }
    return (kc_str_t){(const char *)out, (int32_t)o};
}

kc_str_t kc_read_str_utf8(kc_reader_t *r, bool compact, bool nullable, kc_arena_t *arena)
{
    return kc_str_utf8(kc_read_str(r, compact, nullable), arena);
}

kc_bytes_t kc_read_bytes(kc_reader_t *r, bool compact, bool nullable)
{
    int64_t n = read_len(r, compact, true);
    if (n == -1 && nullable)
        return KC_BYTES_NULL;
    if (n < 0 || n > INT32_MAX) {
        r->err = KC_EINVAL;
        return KC_BYTES_NULL;
    }
    const uint8_t *p = take(r, (size_t)n);
    if (!p)
        return KC_BYTES_NULL;
    return (kc_bytes_t){p, (int32_t)n};
}

int32_t kc_read_array_len(kc_reader_t *r, bool compact, bool nullable, size_t min_elem_size)
{
    int64_t n = read_len(r, compact, true);
    if (n == -1 && nullable)
        return -1;
    if (n < 0 || n > INT32_MAX) {
        r->err = KC_EINVAL;
        return 0;
    }
    if (min_elem_size == 0)
        min_elem_size = 1;
    if ((uint64_t)n > kc_reader_left(r) / min_elem_size) {
        r->err = KC_EINVAL;
        return 0;
    }
    return (int32_t)n;
}

void kc_skip_tagged_fields(kc_reader_t *r)
{
    uint32_t count = kc_read_uvarint(r);
    for (uint32_t i = 0; i < count && !r->err; i++) {
        (void)kc_read_uvarint(r); /* tag */
        uint32_t size = kc_read_uvarint(r);
        (void)take(r, size);
    }
}

const uint8_t *kc_read_raw(kc_reader_t *r, size_t n)
{
    return take(r, n);
}

void kc_write_int8(kc_buf_t *b, int8_t v)
{
    be_put(b, (uint8_t)v, 1);
}

void kc_write_int16(kc_buf_t *b, int16_t v)
{
    be_put(b, (uint16_t)v, 2);
}

void kc_write_int32(kc_buf_t *b, int32_t v)
{
    be_put(b, (uint32_t)v, 4);
}

void kc_write_int64(kc_buf_t *b, int64_t v)
{
    be_put(b, (uint64_t)v, 8);
}

void kc_write_uint16(kc_buf_t *b, uint16_t v)
{
    be_put(b, v, 2);
}

void kc_write_uint32(kc_buf_t *b, uint32_t v)
{
    be_put(b, v, 4);
}

void kc_write_float64(kc_buf_t *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    be_put(b, bits, 8);
}

void kc_write_bool(kc_buf_t *b, bool v)
{
    be_put(b, v ? 1 : 0, 1);
}

void kc_write_uuid(kc_buf_t *b, kc_uuid_t v)
{
    kc_buf_append(b, v.b, 16);
}

void kc_write_uvarlong(kc_buf_t *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    kc_buf_append(b, tmp, n);
}

void kc_write_uvarint(kc_buf_t *b, uint32_t v)
{
    kc_write_uvarlong(b, v);
}

void kc_write_varint(kc_buf_t *b, int32_t v)
{
    kc_write_uvarint(b, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

void kc_write_varlong(kc_buf_t *b, int64_t v)
{
    kc_write_uvarlong(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void kc_write_str(kc_buf_t *b, kc_str_t s, bool compact)
{
    if (s.len < 0) {
        if (compact)
            kc_write_uvarint(b, 0);
        else
            kc_write_int16(b, -1);
        return;
    }
    if (compact)
        kc_write_uvarint(b, (uint32_t)s.len + 1);
    else
        kc_write_int16(b, (int16_t)s.len);
    kc_buf_append(b, s.ptr, (size_t)s.len);
}

void kc_write_bytes(kc_buf_t *b, kc_bytes_t s, bool compact)
{
    if (s.len < 0) {
        if (compact)
            kc_write_uvarint(b, 0);
        else
            kc_write_int32(b, -1);
        return;
    }
    if (compact)
        kc_write_uvarint(b, (uint32_t)s.len + 1);
    else
        kc_write_int32(b, s.len);
    kc_buf_append(b, s.ptr, (size_t)s.len);
}

void kc_write_array_len(kc_buf_t *b, int32_t count, bool compact)
{
    if (compact)
        kc_write_uvarint(b, count < 0 ? 0 : (uint32_t)count + 1);
    else
        kc_write_int32(b, count < 0 ? -1 : count);
}

void kc_buf_put_int32_at(kc_buf_t *b, size_t offset, int32_t v)
{
    if (offset > b->len || b->len - offset < 4)
        return;
    uint32_t u = (uint32_t)v;
    for (size_t i = 0; i < 4; i++)
        b->data[offset + i] = (uint8_t)(u >> (8 * (3 - i)));
}

int kc_request_header_decode(kc_reader_t *r, bool flexible, kc_request_header_t *h)
{
    h->api_key = kc_read_int16(r);
    h->api_version = kc_read_int16(r);
    h->correlation_id = kc_read_int32(r);
    /* ClientId keeps its int16 length even in header v2. */
    h->client_id = kc_read_str(r, false, true);
    if (flexible)
        kc_skip_tagged_fields(r);
    return r->err ? KC_EINVAL : 0;
}

void kc_response_header_encode(kc_buf_t *b, int32_t correlation_id, bool flexible)
{
    kc_write_int32(b, correlation_id);
    if (flexible)
        kc_write_uvarint(b, 0);
}
