/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small helpers shared by every folder: error codes, allocation that aborts
 * on exhaustion, a growable byte buffer and a per-request arena.
 * No I/O beyond the logger; safe to use from coordinator/ (pure code).
 */
#ifndef KC_COMMON_H
#define KC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* C status codes: 0 on success or one of these (never a Kafka error code). */
enum {
    KC_OK = 0,
    KC_EAGAIN = -11,  /* need more bytes */
    KC_EINVAL = -22,  /* malformed input or argument */
    KC_ENOMEM = -12,  /* size limit exceeded */
    KC_ENOSPC = -28,  /* storage full (LMDB MDB_MAP_FULL) */
    KC_EIO = -5,      /* storage or system failure */
    KC_ENOENT = -2,   /* not found */
    KC_EEXIST = -17,  /* already exists */
    KC_EVERSION = -95 /* version not supported */
};

#define KC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define KC_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Allocation that aborts the process when memory is exhausted. */
void *kc_xmalloc(size_t n);
void *kc_xcalloc(size_t n, size_t size);
void *kc_xrealloc(void *p, size_t n);
char *kc_xstrdup(const char *s);
/* Copy of len bytes plus a terminating NUL; s may be NULL when len is 0. */
char *kc_xstrndup(const char *s, size_t len);

/* Growable byte buffer; embedded (init/deinit). data is NULL while cap is 0. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
} kc_buf_t;

void kc_buf_init(kc_buf_t *b);
void kc_buf_deinit(kc_buf_t *b);
/* Makes room for n more bytes and returns a pointer to them (len unchanged). */
uint8_t *kc_buf_reserve(kc_buf_t *b, size_t n);
void kc_buf_append(kc_buf_t *b, const void *p, size_t n);
void kc_buf_reset(kc_buf_t *b);
/*
 * Appends the whole content of the file at path to out, followed by a NUL
 * that out->len does not count (so text can be read as a C string).
 * 0, or KC_EIO when the file cannot be opened or read (out then unchanged).
 */
int kc_buf_read_file(kc_buf_t *out, const char *path);

/*
 * Arena: bump allocator for one decoded request. Everything allocated from it
 * is freed at once by kc_arena_deinit or kc_arena_reset (reset may keep one
 * small chunk for reuse: everything handed out before is invalid either way).
 */
typedef struct kc_arena_chunk kc_arena_chunk_t;
typedef struct {
    kc_arena_chunk_t *head;
    size_t total; /* bytes handed out, for per-connection memory limits */
} kc_arena_t;

void kc_arena_init(kc_arena_t *a);
void kc_arena_deinit(kc_arena_t *a);
void kc_arena_reset(kc_arena_t *a);
/* n bytes, aligned for any scalar type, zero-filled. */
void *kc_arena_alloc(kc_arena_t *a, size_t n);

/* Java's String.hashCode over the UTF-16 code units of a UTF-8 string
 * (malformed bytes count as U+FFFD, as Kafka's string decoder replaces
 * them). Kafka iterates HashMaps keyed by strings, so the order it visits
 * them in (and the winner of a tie) follows this hash.
 */
int32_t kc_java_string_hash(const char *s, size_t len);

/* TopicPartition.hashCode of a topic (len bytes) and a partition:
 * 31 * (31 + partition) + the topic's String.hashCode. */
int32_t kc_java_topic_partition_hash(const char *topic, size_t len, int32_t partition);

/* The table size of a java.util.HashMap or HashSet after n insertions into
 * an empty one: 16, doubled whenever the size passes three quarters. */
size_t kc_java_hash_cap(size_t n);

/* The slot of a key of hashCode h in a java.util.HashMap of cap slots (a
 * power of two): (h ^ h >>> 16) & (cap - 1). A HashMap iterates its slots
 * in order, each slot's keys in the order they were inserted. */
size_t kc_java_hash_slot(int32_t h, size_t cap);

/* The table size of a Scala mutable.HashMap after n insertions into an
 * empty one: 16, doubled when an insertion brings it to three quarters.
 * It iterates its slots in order, each slot's keys by ascending hash. */
size_t kc_scala_hash_cap(size_t n);

#endif
