/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The committed-offsets store (see offsets_map.h): linear-probing indexes
 * that keep each key's hash next to its dense position, so growing and
 * backward-shift deletion never touch the keys themselves.
 */
#include "offsets_map.h"

#include <stdlib.h>
#include <string.h>

#define IDX_NONE UINT32_MAX

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

static void index_deinit(kc_offsets_index_t *ix)
{
    free(ix->slots);
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
static void index_reserve(kc_offsets_index_t *ix)
{
    uint32_t cap = ix->slots ? ix->mask + 1 : 0;
    if ((ix->count + 1) * 2 <= cap)
        return;
    uint32_t ncap = cap ? cap * 2 : 8;
    kc_offsets_slot_t *ns = kc_xcalloc(ncap, sizeof(*ns));
    for (uint32_t i = 0; i < cap; i++)
        if (ix->slots[i].ref != 0)
            index_place(ns, ncap - 1, ix->slots[i].hash, ix->slots[i].ref);
    free(ix->slots);
    ix->slots = ns;
    ix->mask = ncap - 1;
}

static void index_insert(kc_offsets_index_t *ix, uint32_t hash, uint32_t pos)
{
    index_reserve(ix);
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

/* ---- partitions ------------------------------------------------------ */

kc_offset_entry_t *kc_offsets_topic_partition(const kc_offsets_topic_t *t, int32_t partition)
{
    if (t == NULL || t->index.count == 0)
        return NULL;
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
    *dst = *src;
    dst->partition = partition;
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

static void topic_deinit(kc_offsets_topic_t *t)
{
    for (uint32_t i = 0; i < t->nparts; i++)
        entry_free(&t->parts[i]);
    free(t->parts);
    free(t->name);
    index_deinit(&t->index);
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

static void group_free(kc_offsets_group_t *g)
{
    for (uint32_t i = 0; i < g->ntopics; i++)
        topic_deinit(&g->topics[i]);
    free(g->topics);
    free(g->id);
    index_deinit(&g->index);
    free(g);
}

/* ---- groups ---------------------------------------------------------- */

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
    for (uint32_t i = 0; i < m->ngroups; i++)
        group_free(m->groups[i]);
    free(m->groups);
    index_deinit(&m->index);
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

bool kc_offsets_map_put(kc_offsets_map_t *m, kc_str_t group_id, kc_str_t topic,
                        int32_t partition, const kc_offset_entry_t *e)
{
    /* Group. */
    uint32_t gh = hash_bytes(group_id.ptr, str_len(group_id));
    uint32_t gpos = map_group_pos(m, group_id, gh);
    kc_offsets_group_t *g;
    if (gpos == IDX_NONE) {
        if (m->ngroups == m->groups_cap) {
            m->groups_cap = m->groups_cap ? m->groups_cap * 2 : 16;
            m->groups = kc_xrealloc(m->groups, m->groups_cap * sizeof(*m->groups));
        }
        g = kc_xcalloc(1, sizeof(*g));
        g->id_len = str_len(group_id);
        g->id = kc_xstrndup(group_id.ptr, (size_t)g->id_len);
        g->hash = gh;
        m->groups[m->ngroups] = g;
        index_insert(&m->index, gh, m->ngroups);
        m->ngroups++;
    } else {
        g = m->groups[gpos];
    }

    /* Topic. */
    uint32_t th = hash_bytes(topic.ptr, str_len(topic));
    uint32_t tpos = group_topic_pos(g, topic, th);
    if (tpos == IDX_NONE) {
        if (g->ntopics == g->topics_cap) {
            g->topics_cap = g->topics_cap ? g->topics_cap * 2 : 4;
            g->topics = kc_xrealloc(g->topics, g->topics_cap * sizeof(*g->topics));
        }
        kc_offsets_topic_t *t = &g->topics[g->ntopics];
        memset(t, 0, sizeof(*t));
        t->name_len = str_len(topic);
        t->name = kc_xstrndup(topic.ptr, (size_t)t->name_len);
        t->hash = th;
        tpos = g->ntopics;
        index_insert(&g->index, th, tpos);
        g->ntopics++;
    }
    kc_offsets_topic_t *t = &g->topics[tpos];

    /* Partition. */
    kc_offset_entry_t *pe = kc_offsets_topic_partition(t, partition);
    if (pe != NULL) {
        entry_set(pe, partition, e);
        return false;
    }
    if (t->nparts == t->parts_cap) {
        t->parts_cap = t->parts_cap ? t->parts_cap * 2 : 4;
        t->parts = kc_xrealloc(t->parts, t->parts_cap * sizeof(*t->parts));
    }
    pe = &t->parts[t->nparts];
    memset(pe, 0, sizeof(*pe));
    entry_set(pe, partition, e);
    index_insert(&t->index, hash_int32(partition), t->nparts);
    t->nparts++;
    g->noffsets++;
    m->noffsets++;
    return true;
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

static void map_drop_group_at(kc_offsets_map_t *m, uint32_t gpos)
{
    kc_offsets_group_t *g = m->groups[gpos];
    m->noffsets -= g->noffsets;
    DENSE_REMOVE(m->groups, m->ngroups, &m->index, gpos, GROUP_HASH);
    group_free(g);
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
    uint32_t ppos = (uint32_t)(pe - t->parts);
    entry_free(pe);
    DENSE_REMOVE(t->parts, t->nparts, &t->index, ppos, PART_HASH);
    g->noffsets--;
    m->noffsets--;
    if (t->nparts == 0) {
        topic_deinit(t);
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
