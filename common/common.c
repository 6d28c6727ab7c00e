/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation, byte buffer and arena helpers; see kc_common.h. */
#include "kc_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "kcoord: out of memory allocating %zu bytes\n", n);
    abort();
}

void *kc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *kc_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *kc_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *kc_xstrdup(const char *s)
{
    return kc_xstrndup(s, strlen(s));
}

char *kc_xstrndup(const char *s, size_t len)
{
    char *p = kc_xmalloc(len + 1);
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void kc_buf_init(kc_buf_t *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void kc_buf_deinit(kc_buf_t *b)
{
    free(b->data);
    kc_buf_init(b);
}

uint8_t *kc_buf_reserve(kc_buf_t *b, size_t n)
{
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len < n)
            cap *= 2;
        b->data = kc_xrealloc(b->data, cap);
        b->cap = cap;
    }
    return b->data + b->len;
}

void kc_buf_append(kc_buf_t *b, const void *p, size_t n)
{
    if (!n)
        return;
    memcpy(kc_buf_reserve(b, n), p, n);
    b->len += n;
}

void kc_buf_reset(kc_buf_t *b)
{
    b->len = 0;
}

struct kc_arena_chunk {
    kc_arena_chunk_t *next;
    size_t used;
    size_t cap;
    _Alignas(max_align_t) unsigned char mem[];
};

void kc_arena_init(kc_arena_t *a)
{
    a->head = NULL;
    a->total = 0;
}

void kc_arena_deinit(kc_arena_t *a)
{
    kc_arena_chunk_t *c = a->head;
    while (c) {
        kc_arena_chunk_t *next = c->next;
        free(c);
        c = next;
    }
    kc_arena_init(a);
}

/* Chunks up to this size survive a reset, so that the next request reuses
 * one instead of a malloc/free pair per request; bigger ones are freed.
 * AddressSanitizer builds free everything, so that a view kept past its
 * request is still reported as a use after free. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_KEEP_MAX 0
#else
#define ARENA_KEEP_MAX 65536
#endif

void kc_arena_reset(kc_arena_t *a)
{
    kc_arena_chunk_t *keep = NULL;
    kc_arena_chunk_t *c = a->head;
    while (c) {
        kc_arena_chunk_t *next = c->next;
        if (!keep && c->cap <= ARENA_KEEP_MAX)
            keep = c;
        else
            free(c);
        c = next;
    }
    a->head = keep;
    a->total = 0;
    if (keep) {
        keep->used = 0;
        keep->next = NULL;
    }
}

void *kc_arena_alloc(kc_arena_t *a, size_t n)
{
    const size_t align = _Alignof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    if (n == 0)
        n = align;
    kc_arena_chunk_t *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 4000 ? n : 4000;
        c = kc_xmalloc(sizeof(*c) + cap);
        c->cap = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->mem + c->used;
    c->used += n;
    a->total += n;
    memset(p, 0, n);
    return p;
}

int kc_buf_read_file(kc_buf_t *out, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return KC_EIO;
    size_t start = out->len;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        kc_buf_append(out, chunk, n);
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed) {
        out->len = start;
        return KC_EIO;
    }
    kc_buf_reserve(out, 1)[0] = '\0';
    return 0;
}

int32_t kc_java_string_hash(const char *s, size_t len)
{
    uint32_t h = 0;
    const uint8_t *p = (const uint8_t *)s;
    size_t i = 0;
    while (i < len) {
        uint32_t cp = 0xFFFD;
        size_t n = 1;
        uint8_t b = p[i];
        if (b < 0x80) {
            cp = b;
        } else if ((b & 0xE0) == 0xC0 && i + 1 < len && (p[i + 1] & 0xC0) == 0x80) {
            cp = ((uint32_t)(b & 0x1F) << 6) | (p[i + 1] & 0x3F);
            n = 2;
        } else if ((b & 0xF0) == 0xE0 && i + 2 < len && (p[i + 1] & 0xC0) == 0x80 &&
                   (p[i + 2] & 0xC0) == 0x80) {
            cp = ((uint32_t)(b & 0x0F) << 12) | ((uint32_t)(p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F);
            n = 3;
        } else if ((b & 0xF8) == 0xF0 && i + 3 < len && (p[i + 1] & 0xC0) == 0x80 &&
                   (p[i + 2] & 0xC0) == 0x80 && (p[i + 3] & 0xC0) == 0x80) {
            cp = ((uint32_t)(b & 0x07) << 18) | ((uint32_t)(p[i + 1] & 0x3F) << 12) |
                 ((uint32_t)(p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F);
            n = 4;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (0xD800 + (cp >> 10));
            h = 31 * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = 31 * h + cp;
        }
        i += n;
    }
    return (int32_t)h;
}

int32_t kc_java_topic_partition_hash(const char *topic, size_t len, int32_t partition)
{
    return (int32_t)(31u * (uint32_t)(31 + partition) + (uint32_t)kc_java_string_hash(topic, len));
}

size_t kc_java_hash_cap(size_t n)
{
    size_t cap = 16;
    while (n > cap * 3 / 4)
        cap <<= 1;
    return cap;
}

size_t kc_java_hash_slot(int32_t h, size_t cap)
{
    uint32_t u = (uint32_t)h;
    return (size_t)(u ^ (u >> 16)) & (cap - 1);
}

size_t kc_scala_hash_cap(size_t n)
{
    size_t cap = 16;
    for (size_t size = 0; size < n; size++)
        if (size + 1 >= cap * 3 / 4)
            cap <<= 1;
    return cap;
}
