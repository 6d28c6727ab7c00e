/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka wire primitives: a bounded reader with a sticky error flag and
 * writers that append to a kc_buf_t. Big-endian integers, classic and compact
 * (flexible) strings, bytes and arrays, unsigned varints and tagged-field
 * sections, as the Kafka protocol defines them. No allocation except through
 * the arena passed in; never reads past r->end.
 */
#ifndef KC_WIRE_H
#define KC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kc_common.h"
#include "kc_errors.h"

/* A string view; len -1 = null. Not NUL-terminated. */
typedef struct {
    const char *ptr;
    int32_t len;
} kc_str_t;

/* A byte-string view; len -1 = null. */
typedef struct {
    const uint8_t *ptr;
    int32_t len;
} kc_bytes_t;

typedef struct {
    uint8_t b[16];
} kc_uuid_t;

typedef struct {
    int32_t *items;
    int32_t count; /* -1 = null */
} kc_int32_array_t;

typedef struct {
    kc_str_t *items;
    int32_t count; /* -1 = null */
} kc_str_array_t;

#define KC_STR_NULL ((kc_str_t){NULL, -1})
#define KC_BYTES_NULL ((kc_bytes_t){NULL, -1})
/* A view of a NUL-terminated C string (NULL gives the null string). */
kc_str_t kc_str(const char *s);
bool kc_str_eq(kc_str_t a, kc_str_t b);
bool kc_str_eq_cstr(kc_str_t a, const char *s);
static inline bool kc_str_is_null(kc_str_t s) { return s.len < 0; }
static inline bool kc_str_is_empty(kc_str_t s) { return s.len <= 0; }

/* Bounded reader over one frame. err is sticky: once set, reads return 0/null. */
typedef struct {
    const uint8_t *p;
    const uint8_t *end;
    int err; /* 0 or KC_EINVAL */
} kc_reader_t;

void kc_reader_init(kc_reader_t *r, const void *data, size_t len);
static inline size_t kc_reader_left(const kc_reader_t *r) { return (size_t)(r->end - r->p); }

int8_t kc_read_int8(kc_reader_t *r);
int16_t kc_read_int16(kc_reader_t *r);
int32_t kc_read_int32(kc_reader_t *r);
int64_t kc_read_int64(kc_reader_t *r);
uint16_t kc_read_uint16(kc_reader_t *r);
uint32_t kc_read_uint32(kc_reader_t *r);
double kc_read_float64(kc_reader_t *r);
bool kc_read_bool(kc_reader_t *r);
kc_uuid_t kc_read_uuid(kc_reader_t *r);
uint32_t kc_read_uvarint(kc_reader_t *r);
uint64_t kc_read_uvarlong(kc_reader_t *r);
int32_t kc_read_varint(kc_reader_t *r);   /* zig-zag */
int64_t kc_read_varlong(kc_reader_t *r);  /* zig-zag */
/* compact = flexible encoding. A null where not nullable sets err. */
kc_str_t kc_read_str(kc_reader_t *r, bool compact, bool nullable);
/* A STRING as Kafka reads one (Java's new String(bytes, UTF_8)): s itself
 * when it is well-formed UTF-8 (or arena is NULL), else a copy in arena in
 * which every ill-formed sequence is one U+FFFD, so two ids that differ
 * only in bytes that are not UTF-8 name the same group, as in Kafka. */
kc_str_t kc_str_utf8(kc_str_t s, kc_arena_t *arena);
/* kc_read_str, then kc_str_utf8: what the generated decoders read. */
kc_str_t kc_read_str_utf8(kc_reader_t *r, bool compact, bool nullable, kc_arena_t *arena);
kc_bytes_t kc_read_bytes(kc_reader_t *r, bool compact, bool nullable);
/* Array count (-1 = null); sets err when the count exceeds the bytes left
 * divided by min_elem_size, so a hostile count cannot force a big allocation. */
int32_t kc_read_array_len(kc_reader_t *r, bool compact, bool nullable, size_t min_elem_size);
/* Skips a whole tagged-field section (count, then tag/size/bytes). */
void kc_skip_tagged_fields(kc_reader_t *r);
/* Takes n raw bytes (a view), or NULL with err set. */
const uint8_t *kc_read_raw(kc_reader_t *r, size_t n);

void kc_write_int8(kc_buf_t *b, int8_t v);
void kc_write_int16(kc_buf_t *b, int16_t v);
void kc_write_int32(kc_buf_t *b, int32_t v);
void kc_write_int64(kc_buf_t *b, int64_t v);
void kc_write_uint16(kc_buf_t *b, uint16_t v);
void kc_write_uint32(kc_buf_t *b, uint32_t v);
void kc_write_float64(kc_buf_t *b, double v);
void kc_write_bool(kc_buf_t *b, bool v);
void kc_write_uuid(kc_buf_t *b, kc_uuid_t v);
void kc_write_uvarint(kc_buf_t *b, uint32_t v);
void kc_write_uvarlong(kc_buf_t *b, uint64_t v);
void kc_write_varint(kc_buf_t *b, int32_t v);
void kc_write_varlong(kc_buf_t *b, int64_t v);
void kc_write_str(kc_buf_t *b, kc_str_t s, bool compact);
void kc_write_bytes(kc_buf_t *b, kc_bytes_t s, bool compact);
void kc_write_array_len(kc_buf_t *b, int32_t count, bool compact);
/* Overwrites 4 bytes at offset (for size prefixes written after the body). */
void kc_buf_put_int32_at(kc_buf_t *b, size_t offset, int32_t v);

/* Request header v1/v2 (v2 adds a tagged section; ClientId stays int16-length). */
typedef struct {
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    kc_str_t client_id;
} kc_request_header_t;

/* Decodes the header; flexible selects v2. KC_EINVAL if truncated. */
int kc_request_header_decode(kc_reader_t *r, bool flexible, kc_request_header_t *h);
/* Response header v0 (correlation id) or v1 (plus an empty tagged section). */
void kc_response_header_encode(kc_buf_t *b, int32_t correlation_id, bool flexible);

#endif
