/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The committed-offsets store (see offsets_map.h): linear-probing indexes
 * that keep each key's hash next to its dense position, so growing and
 * backward-shift deletion never touch the keys themselves; a block pool for
 * the partition arrays; a table of shared topic names.
 *
 * Why a pool: replaying a million offsets at start used to cost one malloc
 * per topic name, three reallocs per partition array and several index and
 * topic-array allocations per topic, and most of the time went to malloc
 * and to page faults on the fresh heap. The pool hands out every array of
 * the map (partitions, topics, index slots) in a few size classes (1, 2, 3,
 * 4, 6, 8, 12, 16, ... 1024 times 64 bytes, one offset entry), carved from
 * chunks that grow from 64 KiB to 4 MiB; the big chunks are 2 MiB aligned,
 * asked for as transparent huge pages and populated in one call, so filling
 * them takes a handful of faults instead of one per 4 KiB page. A freed block
 * goes on its class's free list and is reused by the next array of that
 * class; chunks go back to the system only with the map. Arrays bigger than
 * the largest class come from malloc.
 */
#include "offsets_map.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define KC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KC_ASAN 1
#endif
#endif
#ifdef KC_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define IDX_NONE UINT32_MAX

/* A topic with at most this many partitions is scanned; a bigger one gets an index. */
#define PART_SCAN_MAX 16u
/* Blocks are multiples of 64 bytes (one offset entry); bigger than 64 KiB come from malloc. */
#define POOL_UNIT ((size_t)64)
#define POOL_MAX_BYTES ((size_t)1024 * POOL_UNIT)
#define CHUNK_MIN ((size_t)64 * 1024)
#define CHUNK_MAX ((size_t)4 * 1024 * 1024)
#define HUGE_PAGE ((size_t)2 * 1024 * 1024)
#define CHUNK_HDR ((size_t)64) /* keeps blocks 64-byte aligned */

/* Sizes of the pool's classes in POOL_UNITs: powers of two and their halfway points. */
static const uint32_t class_cap[] = {1,  2,  3,   4,   6,   8,   12,  16,  24,  32,
                                     48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
#define NCLASSES KC_ARRAY_LEN(class_cap)

typedef struct pool_chunk {
    struct pool_chunk *next;
    size_t size;  /* bytes, header included */
    bool mapped;  /* from mmap (else malloc) */
} pool_chunk_t;

typedef struct free_block {
    struct free_block *next;
} free_block_t;

/* A shared topic name; topics point at s. */
typedef struct {
    uint32_t refs;
    uint32_t hash;
    int32_t len;
    char s[];
} name_t;

struct kc_offsets_pool {
    pool_chunk_t *chunks;
    uint8_t *cur, *end; /* unused part of the newest chunk */
    size_t next_chunk;  /* size of the next chunk */
    size_t bytes;       /* in chunks */
    size_t free_bytes;  /* in free lists */
    free_block_t *free[NCLASSES];
    name_t **names; /* dense */
    uint32_t nnames, names_cap;
    kc_offsets_index_t names_ix;
};

static uint32_t hash_bytes(const char *p, int32_t len)
{
    /* FNV-1a, then a final mix so the low bits used by the index spread well. */
    uint32_t h = 2166136261u;
    for (int32_t i = 0; i < len; i++) {
        h ^= (uint8_t)p[i];
        h *= 16777619u;
    }
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    return h;
}

static uint32_t hash_int32(int32_t v)
{
    uint32_t h = (uint32_t)v;
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h;
}

static int32_t str_len(kc_str_t s)
{
    return s.len < 0 ? 0 : s.len;
}

static bool name_eq(const char *a, int32_t alen, kc_str_t b)
{
    int32_t blen = str_len(b);
    return alen == blen && (blen == 0 || memcmp(a, b.ptr, (size_t)blen) == 0);
}

/* ---- index ----------------------------------------------------------- */

static void *pool_get(kc_offsets_pool_t *p, size_t bytes);
static void pool_put(kc_offsets_pool_t *p, void *block, size_t bytes);

/* Frees ix's slots to p (NULL: the pool is going away as a whole). */
static void index_deinit(kc_offsets_pool_t *p, kc_offsets_index_t *ix)
{
    if (ix->slots != NULL)
        pool_put(p, ix->slots, (size_t)(ix->mask + 1) * sizeof(*ix->slots));
    memset(ix, 0, sizeof(*ix));
}

static void index_place(kc_offsets_slot_t *slots, uint32_t mask, uint32_t hash, uint32_t ref)
{
    uint32_t i = hash & mask;
    while (slots[i].ref != 0)
        i = (i + 1) & mask;
    slots[i].hash = hash;
    slots[i].ref = ref;
}

/* Makes room for one more key (load factor at most 1/2). */
static void index_reserve(kc_offsets_pool_t *p, kc_offsets_index_t *ix)
{
    uint32_t cap = ix->slots ? ix->mask + 1 : 0;
    if ((ix->count + 1) * 2 <= cap)
        return;
    uint32_t ncap = cap ? cap * 2 : 8;
    while ((ix->count + 1) * 2 > ncap)
        ncap *= 2;
    kc_offsets_slot_t *ns = pool_get(p, ncap * sizeof(*ns));
    memset(ns, 0, ncap * sizeof(*ns));
    for (uint32_t i = 0; i < cap; i++)
        if (ix->slots[i].ref != 0)
            index_place(ns, ncap - 1, ix->slots[i].hash, ix->slots[i].ref);
    if (ix->slots != NULL)
        pool_put(p, ix->slots, cap * sizeof(*ns));
    ix->slots = ns;
    ix->mask = ncap - 1;
}

static void index_insert(kc_offsets_pool_t *p, kc_offsets_index_t *ix, uint32_t hash,
                         uint32_t pos)
{
    index_reserve(p, ix);
    index_place(ix->slots, ix->mask, hash, pos + 1);
    ix->count++;
}

/* Slot holding ref pos+1 (which must be present). */
static uint32_t index_slot_of(const kc_offsets_index_t *ix, uint32_t hash, uint32_t pos)
{
    uint32_t i = hash & ix->mask;
    while (ix->slots[i].ref != pos + 1)
        i = (i + 1) & ix->mask;
    return i;
}

/* Empties slot i and shifts later members of its probe run back. */
static void index_remove_slot(kc_offsets_index_t *ix, uint32_t i)
{
    uint32_t mask = ix->mask;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (ix->slots[j].ref == 0)
            break;
        uint32_t home = ix->slots[j].hash & mask;
        /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
        bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            ix->slots[i] = ix->slots[j];
            i = j;
        }
    }
    ix->slots[i].ref = 0;
    ix->slots[i].hash = 0;
    ix->count--;
}

/* Removes dense element pos of an array indexed by ix, moving the last one into its place. */
#define DENSE_REMOVE(arr, n, ix, pos, hash_of)                                                    \
    do {                                                                                          \
        index_remove_slot((ix), index_slot_of((ix), hash_of((arr)[pos]), (pos)));                 \
        uint32_t last_ = (n) - 1;                                                                 \
        if ((pos) != last_) {                                                                     \
            uint32_t s_ = index_slot_of((ix), hash_of((arr)[last_]), last_);                      \
            (ix)->slots[s_].ref = (pos) + 1;                                                      \
            (arr)[pos] = (arr)[last_];                                                            \
        }                                                                                         \
        (n)--;                                                                                    \
    } while (0)

#define PART_HASH(e) hash_int32((e).partition)
#define TOPIC_HASH(t) ((t).hash)
#define GROUP_HASH(g) ((g)->hash)
#define NAME_HASH(n) ((n)->hash)

/* ---- pool ------------------------------------------------------------ */

static size_t class_bytes(uint32_t c)
{
    return (size_t)class_cap[c] * POOL_UNIT;
}

/* The smallest class holding bytes (at most POOL_MAX_BYTES). */
static uint32_t class_for(size_t bytes)
{
    uint32_t c = 0;
    while (class_bytes(c) < bytes)
        c++;
    return c;
}

/* Capacity after cap: +1 up to 4, then alternately x1.5 and x4/3, so that
 * arrays of 64-byte entries fill their class exactly. */
static uint32_t next_cap(uint32_t cap)
{
    if (cap < 4)
        return cap + 1;
    return (cap & (cap - 1)) == 0 ? cap + cap / 2 : cap + cap / 3;
}

static void pool_push(kc_offsets_pool_t *p, uint32_t c, void *block)
{
    free_block_t *b = block;
    b->next = p->free[c];
    p->free[c] = b;
    p->free_bytes += class_bytes(c);
    POISON(b, class_bytes(c));
}

/*
 * Maps a chunk of size bytes, populated at once; from 2 MiB on, 2 MiB
 * aligned and as huge pages where the system allows.
 */
static void *map_chunk(size_t size)
{
    if (size < HUGE_PAGE) {
        void *a = mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        return a == MAP_FAILED ? NULL : a;
    }
    size_t len = size + HUGE_PAGE;
    uint8_t *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uint8_t *a = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    size_t head = (size_t)(a - raw);
    if (head)
        munmap(raw, head);
    if (len - head > size)
        munmap(a + size, len - head - size);
#ifdef MADV_HUGEPAGE
    madvise(a, size, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    madvise(a, size, MADV_POPULATE_WRITE); /* one call instead of a fault per page */
#endif
    return a;
}

/* Starts a new chunk with room for at least need bytes; the old chunk's rest goes to the free lists. */
static void pool_new_chunk(kc_offsets_pool_t *p, size_t need)
{
    for (uint32_t c = NCLASSES; c-- > 0;)
        while ((size_t)(p->end - p->cur) >= class_bytes(c)) {
            UNPOISON(p->cur, class_bytes(c));
            pool_push(p, c, p->cur);
            p->cur += class_bytes(c);
        }
    size_t size = p->next_chunk;
    while (size < need + CHUNK_HDR)
        size *= 2;
    p->next_chunk = KC_MIN(p->next_chunk * 2, CHUNK_MAX);
    pool_chunk_t *ch = map_chunk(size);
    bool mapped = ch != NULL;
    if (ch == NULL)
        ch = kc_xmalloc(size);
    ch->next = p->chunks;
    ch->size = size;
    ch->mapped = mapped;
    p->chunks = ch;
    p->bytes += size;
    p->cur = (uint8_t *)ch + CHUNK_HDR;
    p->end = (uint8_t *)ch + size;
    POISON(p->cur, (size_t)(p->end - p->cur));
}

/* A block of at least bytes, uninitialised; malloc beyond POOL_MAX_BYTES. */
static void *pool_get(kc_offsets_pool_t *p, size_t bytes)
{
    if (bytes > POOL_MAX_BYTES)
        return kc_xmalloc(bytes);
    uint32_t c = class_for(bytes);
    size_t n = class_bytes(c);
    free_block_t *b = p->free[c];
    if (b != NULL) {
        UNPOISON(b, n);
        p->free[c] = b->next;
        p->free_bytes -= n;
        return b;
    }
    if ((size_t)(p->end - p->cur) < n)
        pool_new_chunk(p, n);
    void *r = p->cur;
    p->cur += n;
    UNPOISON(r, n);
    return r;
}

/* Gives back a block of pool_get(p, bytes). With p NULL (the pool is going
 * away as a whole) only a malloc'd block is freed. */
static void pool_put(kc_offsets_pool_t *p, void *block, size_t bytes)
{
    if (block == NULL)
        return;
    if (bytes > POOL_MAX_BYTES)
        free(block);
    else if (p != NULL)
        pool_push(p, class_for(bytes), block);
}

/* Moves the first used bytes of block (old_bytes long) to a new block of new_bytes. */
static void *pool_grow(kc_offsets_pool_t *p, void *block, size_t old_bytes, size_t new_bytes,
                       size_t used)
{
    if (old_bytes > POOL_MAX_BYTES)
        return kc_xrealloc(block, new_bytes);
    void *n = pool_get(p, new_bytes);
    if (used > 0)
        memcpy(n, block, used);
    pool_put(p, block, old_bytes);
    return n;
}

static kc_offsets_pool_t *pool_new(void)
{
    kc_offsets_pool_t *p = kc_xcalloc(1, sizeof(*p));
    p->next_chunk = CHUNK_MIN;
    return p;
}

static void pool_free_all(kc_offsets_pool_t *p)
{
    if (p == NULL)
        return;
    for (uint32_t i = 0; i < p->nnames; i++)
        free(p->names[i]);
    free(p->names);
    index_deinit(NULL, &p->names_ix);
    pool_chunk_t *ch = p->chunks;
    while (ch != NULL) {
        pool_chunk_t *next = ch->next;
        UNPOISON(ch, ch->size);
        if (ch->mapped)
            munmap(ch, ch->size);
        else
            free(ch);
        ch = next;
    }
    free(p);
}

/* ---- shared topic names ---------------------------------------------- */

static name_t *name_of(const char *s)
{
    return (name_t *)(void *)((char *)s - offsetof(name_t, s));
}

/* The shared name (one more reference), created when new. */
static name_t *name_ref(kc_offsets_pool_t *p, kc_str_t topic, uint32_t h)
{
    kc_offsets_index_t *ix = &p->names_ix;
    if (ix->count > 0) {
        for (uint32_t i = h & ix->mask; ix->slots[i].ref != 0; i = (i + 1) & ix->mask) {
            name_t *n = p->names[ix->slots[i].ref - 1];
            if (ix->slots[i].hash == h && name_eq(n->s, n->len, topic)) {
                n->refs++;
                return n;
            }
        }
    }
    int32_t len = str_len(topic);
    name_t *n = kc_xmalloc(sizeof(*n) + (size_t)len + 1);
    n->refs = 1;
    n->hash = h;
    n->len = len;
    if (len > 0)
        memcpy(n->s, topic.ptr, (size_t)len);
    n->s[len] = '\0';
    if (p->nnames == p->names_cap) {
        p->names_cap = p->names_cap ? p->names_cap * 2 : 16;
        p->names = kc_xrealloc(p->names, p->names_cap * sizeof(*p->names));
    }
    p->names[p->nnames] = n;
    index_insert(p, ix, h, p->nnames);
    p->nnames++;
    return n;
}

static void name_unref(kc_offsets_pool_t *p, name_t *n)
{
    if (--n->refs > 0)
        return;
    /* n's dense position, from its slot in the index. */
    kc_offsets_index_t *ix = &p->names_ix;
    uint32_t i = n->hash & ix->mask;
    while (p->names[ix->slots[i].ref - 1] != n)
        i = (i + 1) & ix->mask;
    uint32_t dpos = ix->slots[i].ref - 1;
    DENSE_REMOVE(p->names, p->nnames, ix, dpos, NAME_HASH);
    free(n);
}

/* ---- partitions ------------------------------------------------------ */

kc_offset_entry_t *kc_offsets_topic_partition(const kc_offsets_topic_t *t, int32_t partition)
{
    if (t == NULL)
        return NULL;
    if (t->index.slots == NULL) {
        for (uint32_t i = 0; i < t->nparts; i++)
            if (t->parts[i].partition == partition)
                return &t->parts[i];
        return NULL;
    }
    uint32_t h = hash_int32(partition);
    for (uint32_t i = h & t->index.mask;; i = (i + 1) & t->index.mask) {
        const kc_offsets_slot_t *s = &t->index.slots[i];
        if (s->ref == 0)
            return NULL;
        if (s->hash == h && t->parts[s->ref - 1].partition == partition)
            return &t->parts[s->ref - 1];
    }
}

static void entry_free(kc_offset_entry_t *e)
{
    free(e->metadata);
    e->metadata = NULL;
    e->metadata_len = 0;
}

static void entry_set(kc_offset_entry_t *dst, int32_t partition, const kc_offset_entry_t *src)
{
    char *old = dst->metadata;
    int32_t old_len = dst->metadata_len;
    uint32_t seq = dst->kafka_seq;
    *dst = *src;
    dst->partition = partition;
    dst->kafka_seq = seq;
    int32_t mlen = src->metadata_len > 0 ? src->metadata_len : 0;
    if (mlen == 0) {
        free(old);
        dst->metadata = NULL;
        dst->metadata_len = 0;
    } else if (old != NULL && old_len == mlen) {
        memcpy(old, src->metadata, (size_t)mlen); /* same size: reuse the allocation */
        dst->metadata = old;
        dst->metadata_len = mlen;
    } else {
        free(old);
        dst->metadata = kc_xstrndup(src->metadata, (size_t)mlen);
        dst->metadata_len = mlen;
    }
}

/* Appends a partition (not present) to t and returns its entry, uninitialised but for metadata. */
static kc_offset_entry_t *topic_append(kc_offsets_pool_t *p, kc_offsets_topic_t *t,
                                       int32_t partition)
{
    if (t->nparts == t->parts_cap) {
        uint32_t ncap = next_cap(t->parts_cap);
        t->parts = pool_grow(p, t->parts, t->parts_cap * sizeof(*t->parts),
                             ncap * sizeof(*t->parts), t->nparts * sizeof(*t->parts));
        t->parts_cap = ncap;
    }
    kc_offset_entry_t *pe = &t->parts[t->nparts];
    pe->metadata = NULL;
    pe->metadata_len = 0;
    pe->partition = partition;
    pe->kafka_seq = t->kafka_next++;
    if (t->index.slots != NULL) {
        index_insert(p, &t->index, hash_int32(partition), t->nparts);
    } else if (t->nparts + 1 > PART_SCAN_MAX) {
        for (uint32_t i = 0; i <= t->nparts; i++)
            index_insert(p, &t->index, hash_int32(t->parts[i].partition), i);
    }
    t->nparts++;
    return pe;
}

static void topic_remove_at(kc_offsets_topic_t *t, uint32_t pos)
{
    if (t->index.slots != NULL) {
        DENSE_REMOVE(t->parts, t->nparts, &t->index, pos, PART_HASH);
        return;
    }
    if (pos != t->nparts - 1)
        t->parts[pos] = t->parts[t->nparts - 1];
    t->nparts--;
}

/* Frees what t holds; the pool blocks and name go back to p unless p is NULL (pool going away). */
static void topic_deinit(kc_offsets_pool_t *p, kc_offsets_topic_t *t)
{
    for (uint32_t i = 0; i < t->nparts; i++)
        if (t->parts[i].metadata != NULL)
            entry_free(&t->parts[i]);
    pool_put(p, t->parts, t->parts_cap * sizeof(*t->parts));
    if (p != NULL)
        name_unref(p, name_of(t->name));
    index_deinit(p, &t->index);
}

/* ---- topics ---------------------------------------------------------- */

static uint32_t group_topic_pos(const kc_offsets_group_t *g, kc_str_t topic, uint32_t h)
{
    if (g->index.count == 0)
        return IDX_NONE;
    for (uint32_t i = h & g->index.mask;; i = (i + 1) & g->index.mask) {
        const kc_offsets_slot_t *s = &g->index.slots[i];
        if (s->ref == 0)
            return IDX_NONE;
        if (s->hash == h && name_eq(g->topics[s->ref - 1].name, g->topics[s->ref - 1].name_len, topic))
            return s->ref - 1;
    }
}

kc_offsets_topic_t *kc_offsets_group_topic(const kc_offsets_group_t *g, kc_str_t topic)
{
    if (g == NULL)
        return NULL;
    uint32_t pos = group_topic_pos(g, topic, hash_bytes(topic.ptr, str_len(topic)));
    return pos == IDX_NONE ? NULL : &g->topics[pos];
}

/* Frees g; p as for topic_deinit. */
static void group_free(kc_offsets_pool_t *p, kc_offsets_group_t *g)
{
    for (uint32_t i = 0; i < g->ntopics; i++)
        topic_deinit(p, &g->topics[i]);
    pool_put(p, g->topics, g->topics_cap * sizeof(*g->topics));
    free(g->id);
    index_deinit(p, &g->index);
    free(g);
}

/* ---- groups ---------------------------------------------------------- */

/* A put into a Kafka table holding size entries grows it first when needed. */
static void kafka_table_put(uint32_t *cap, uint32_t size)
{
    if (*cap == 0)
        *cap = 2;
    if (((uint64_t)size + 1) * 3 > (uint64_t)*cap * 4 && *cap < (1u << 30))
        *cap *= 2;
}

uint32_t kc_offsets_kafka_slot(int32_t java_hash, uint32_t cap)
{
    unsigned bits = 0;
    while ((1u << bits) < cap)
        bits++;
    if (bits == 0)
        return 0;
    uint64_t prod = (uint64_t)(int64_t)java_hash * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(prod >> (64 - bits));
}

static uint32_t map_group_pos(const kc_offsets_map_t *m, kc_str_t group_id, uint32_t h)
{
    if (m->index.count == 0)
        return IDX_NONE;
    for (uint32_t i = h & m->index.mask;; i = (i + 1) & m->index.mask) {
        const kc_offsets_slot_t *s = &m->index.slots[i];
        if (s->ref == 0)
            return IDX_NONE;
        const kc_offsets_group_t *g = m->groups[s->ref - 1];
        if (s->hash == h && name_eq(g->id, g->id_len, group_id))
            return s->ref - 1;
    }
}

void kc_offsets_map_init(kc_offsets_map_t *m)
{
    memset(m, 0, sizeof(*m));
}

void kc_offsets_map_deinit(kc_offsets_map_t *m)
{
    /* The pool goes as a whole: blocks and names are not handed back one by one. */
    for (uint32_t i = 0; i < m->ngroups; i++)
        group_free(NULL, m->groups[i]);
    free(m->groups);
    index_deinit(NULL, &m->index);
    pool_free_all(m->pool);
    memset(m, 0, sizeof(*m));
}

kc_offsets_group_t *kc_offsets_map_group(const kc_offsets_map_t *m, kc_str_t group_id)
{
    uint32_t pos = map_group_pos(m, group_id, hash_bytes(group_id.ptr, str_len(group_id)));
    return pos == IDX_NONE ? NULL : m->groups[pos];
}

const kc_offset_entry_t *kc_offsets_map_get(const kc_offsets_map_t *m, kc_str_t group_id,
                                            kc_str_t topic, int32_t partition)
{
    return kc_offsets_topic_partition(
        kc_offsets_group_topic(kc_offsets_map_group(m, group_id), topic), partition);
}

/* The group, created when new; the last group put is tried first (replay puts runs of one group). */
static kc_offsets_group_t *map_group_get_or_add(kc_offsets_map_t *m, kc_str_t group_id)
{
    kc_offsets_group_t *g = m->hot_group;
    if (g != NULL && name_eq(g->id, g->id_len, group_id))
        return g;
    uint32_t gh = hash_bytes(group_id.ptr, str_len(group_id));
    uint32_t gpos = map_group_pos(m, group_id, gh);
    if (gpos != IDX_NONE) {
        g = m->groups[gpos];
    } else {
        if (m->ngroups == m->groups_cap) {
            m->groups_cap = m->groups_cap ? m->groups_cap * 2 : 16;
            m->groups = kc_xrealloc(m->groups, m->groups_cap * sizeof(*m->groups));
        }
        g = kc_xcalloc(1, sizeof(*g));
        g->id_len = str_len(group_id);
        g->id = kc_xstrndup(group_id.ptr, (size_t)g->id_len);
        g->hash = gh;
        m->groups[m->ngroups] = g;
        index_insert(m->pool, &m->index, gh, m->ngroups);
        m->ngroups++;
    }
    m->hot_group = g;
    return g;
}

/* The topic of g, created when new; the last topic put in g is tried first. */
static kc_offsets_topic_t *group_topic_get_or_add(kc_offsets_pool_t *p, kc_offsets_group_t *g,
                                                  kc_str_t topic)
{
    if (g->hot_topic != 0) {
        kc_offsets_topic_t *t = &g->topics[g->hot_topic - 1];
        if (name_eq(t->name, t->name_len, topic))
            return t;
    }
    uint32_t th = hash_bytes(topic.ptr, str_len(topic));
    uint32_t tpos = group_topic_pos(g, topic, th);
    if (tpos == IDX_NONE) {
        if (g->ntopics == g->topics_cap) {
            uint32_t ncap = next_cap(g->topics_cap);
            g->topics = pool_grow(p, g->topics, g->topics_cap * sizeof(*g->topics),
                                  ncap * sizeof(*g->topics), g->ntopics * sizeof(*g->topics));
            g->topics_cap = ncap;
        }
        kc_offsets_topic_t *t = &g->topics[g->ntopics];
        memset(t, 0, sizeof(*t));
        name_t *n = name_ref(p, topic, th);
        t->name = n->s;
        t->name_len = n->len;
        t->hash = th;
        kafka_table_put(&g->kafka_cap, g->ntopics);
        t->kafka_seq = g->kafka_next++;
        tpos = g->ntopics;
        index_insert(p, &g->index, th, tpos);
        g->ntopics++;
    }
    g->hot_topic = tpos + 1;
    return &g->topics[tpos];
}

bool kc_offsets_map_put(kc_offsets_map_t *m, kc_str_t group_id, kc_str_t topic,
                        int32_t partition, const kc_offset_entry_t *e)
{
    if (m->pool == NULL)
        m->pool = pool_new();
    kc_offsets_group_t *g = map_group_get_or_add(m, group_id);
    kc_offsets_topic_t *t = group_topic_get_or_add(m->pool, g, topic);
    kafka_table_put(&t->kafka_cap, t->nparts); /* Kafka's put of the partition */
    kc_offset_entry_t *pe = kc_offsets_topic_partition(t, partition);
    if (pe != NULL) {
        entry_set(pe, partition, e);
        return false;
    }
    pe = topic_append(m->pool, t, partition);
    entry_set(pe, partition, e);
    g->noffsets++;
    m->noffsets++;
    return true;
}

static void map_drop_group_at(kc_offsets_map_t *m, uint32_t gpos)
{
    kc_offsets_group_t *g = m->groups[gpos];
    m->noffsets -= g->noffsets;
    if (m->hot_group == g)
        m->hot_group = NULL;
    DENSE_REMOVE(m->groups, m->ngroups, &m->index, gpos, GROUP_HASH);
    group_free(m->pool, g);
}

bool kc_offsets_map_remove(kc_offsets_map_t *m, kc_str_t group_id, kc_str_t topic,
                           int32_t partition)
{
    uint32_t gpos = map_group_pos(m, group_id, hash_bytes(group_id.ptr, str_len(group_id)));
    if (gpos == IDX_NONE)
        return false;
    kc_offsets_group_t *g = m->groups[gpos];
    uint32_t tpos = group_topic_pos(g, topic, hash_bytes(topic.ptr, str_len(topic)));
    if (tpos == IDX_NONE)
        return false;
    kc_offsets_topic_t *t = &g->topics[tpos];
    kc_offset_entry_t *pe = kc_offsets_topic_partition(t, partition);
    if (pe == NULL)
        return false;
    entry_free(pe);
    topic_remove_at(t, (uint32_t)(pe - t->parts));
    g->noffsets--;
    m->noffsets--;
    if (t->nparts == 0) {
        topic_deinit(m->pool, t);
        g->hot_topic = 0; /* positions move */
        DENSE_REMOVE(g->topics, g->ntopics, &g->index, tpos, TOPIC_HASH);
    }
    if (g->ntopics == 0)
        map_drop_group_at(m, gpos);
    return true;
}

size_t kc_offsets_map_remove_group(kc_offsets_map_t *m, kc_str_t group_id)
{
    uint32_t gpos = map_group_pos(m, group_id, hash_bytes(group_id.ptr, str_len(group_id)));
    if (gpos == IDX_NONE)
        return 0;
    size_t n = m->groups[gpos]->noffsets;
    map_drop_group_at(m, gpos);
    return n;
}

void kc_offsets_map_stats(const kc_offsets_map_t *m, kc_offsets_map_stats_t *out)
{
    memset(out, 0, sizeof(*out));
    if (m->pool == NULL)
        return;
    out->pool_bytes = m->pool->bytes;
    out->pool_free_bytes = m->pool->free_bytes;
    out->topic_names = m->pool->nnames;
}
