/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fetch session cache (KIP-227): sessions in an array (the cache is
 * small, at most max.incremental.fetch.session.cache.slots), eviction by
 * Kafka's rules, and the per-partition change tracking of incremental
 * responses. See fetch_session.h.
 */
#include "fetch_session.h"

#include <stdlib.h>
#include <string.h>

#include "kc_common.h"

struct kc_fetch_sessions {
    int32_t max_slots;
    int64_t eviction_ms;
    uint64_t rng;
    kc_fetch_session_t **s;
    size_t n, cap;
};

kc_fetch_sessions_t *kc_fetch_sessions_new(int32_t max_slots, int64_t eviction_ms, uint64_t seed)
{
    kc_fetch_sessions_t *c = kc_xcalloc(1, sizeof(*c));
    c->max_slots = max_slots < 0 ? 0 : max_slots;
    c->eviction_ms = eviction_ms;
    c->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
    return c;
}

static void session_free(kc_fetch_session_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->parts[i].topic);
    free(s->parts);
    free(s);
}

void kc_fetch_sessions_free(kc_fetch_sessions_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        session_free(c->s[i]);
    free(c->s);
    free(c);
}

size_t kc_fetch_sessions_count(const kc_fetch_sessions_t *c)
{
    return c->n;
}

static ptrdiff_t index_of(const kc_fetch_sessions_t *c, int32_t id)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->s[i]->id == id)
            return (ptrdiff_t)i;
    return -1;
}

kc_fetch_session_t *kc_fetch_sessions_get(kc_fetch_sessions_t *c, int32_t id)
{
    ptrdiff_t i = id == 0 ? -1 : index_of(c, id);
    return i < 0 ? NULL : c->s[i];
}

static void remove_at(kc_fetch_sessions_t *c, size_t i)
{
    session_free(c->s[i]);
    c->s[i] = c->s[--c->n];
}

bool kc_fetch_sessions_remove(kc_fetch_sessions_t *c, int32_t id)
{
    ptrdiff_t i = id == 0 ? -1 : index_of(c, id);
    if (i < 0)
        return false;
    remove_at(c, (size_t)i);
    return true;
}

void kc_fetch_sessions_touch(kc_fetch_sessions_t *c, kc_fetch_session_t *s, int64_t now_ms)
{
    s->last_used_ms = now_ms;
    s->evictable = now_ms - s->creation_ms > c->eviction_ms;
}

/* FetchSessionCacheShard.tryEvict for a non-privileged session of size partitions. */
static bool try_evict(kc_fetch_sessions_t *c, size_t size, int64_t now_ms)
{
    if (c->n == 0)
        return false;
    size_t lru = 0;
    for (size_t i = 1; i < c->n; i++)
        if (c->s[i]->last_used_ms < c->s[lru]->last_used_ms ||
            (c->s[i]->last_used_ms == c->s[lru]->last_used_ms && c->s[i]->id < c->s[lru]->id))
            lru = i;
    if (now_ms - c->s[lru]->last_used_ms > c->eviction_ms) {
        remove_at(c, lru);
        return true;
    }
    /* The smallest evictable session by (size, id); the newcomer (size, id 0) must be larger. */
    ptrdiff_t best = -1;
    for (size_t i = 0; i < c->n; i++) {
        const kc_fetch_session_t *s = c->s[i];
        if (!s->evictable)
            continue;
        if (best < 0 || s->n < c->s[best]->n || (s->n == c->s[best]->n && s->id < c->s[best]->id))
            best = (ptrdiff_t)i;
    }
    if (best < 0 || size <= c->s[best]->n)
        return false;
    remove_at(c, (size_t)best);
    return true;
}

static int32_t new_id(kc_fetch_sessions_t *c)
{
    for (;;) {
        /* xorshift64* */
        c->rng ^= c->rng >> 12;
        c->rng ^= c->rng << 25;
        c->rng ^= c->rng >> 27;
        uint64_t r = c->rng * 2685821657736338717ull;
        int32_t id = (int32_t)(1 + (r >> 33) % (uint64_t)(INT32_MAX - 1));
        if (index_of(c, id) < 0)
            return id;
    }
}

static void part_copy(kc_fetch_session_partition_t *dst, const kc_fetch_session_partition_t *src)
{
    *dst = *src;
    dst->topic = kc_xstrdup(src->topic ? src->topic : "");
}

int32_t kc_fetch_sessions_create(kc_fetch_sessions_t *c, int64_t now_ms, bool uses_topic_ids,
                                 const kc_fetch_session_partition_t *parts, size_t n)
{
    if (!(c->n < (size_t)c->max_slots || try_evict(c, n, now_ms)))
        return 0;
    kc_fetch_session_t *s = kc_xcalloc(1, sizeof(*s));
    s->id = new_id(c);
    s->epoch = kc_fetch_next_epoch(0);
    s->uses_topic_ids = uses_topic_ids;
    s->creation_ms = now_ms;
    s->cap = n ? n : 1;
    s->parts = kc_xcalloc(s->cap, sizeof(*s->parts));
    for (size_t i = 0; i < n; i++)
        part_copy(&s->parts[i], &parts[i]);
    s->n = n;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->s = kc_xrealloc(c->s, c->cap * sizeof(*c->s));
    }
    c->s[c->n++] = s;
    kc_fetch_sessions_touch(c, s, now_ms);
    return s->id;
}

ptrdiff_t kc_fetch_session_find(const kc_fetch_session_t *s, kc_str_t topic, kc_uuid_t topic_id,
                                int32_t partition)
{
    for (size_t i = 0; i < s->n; i++) {
        const kc_fetch_session_partition_t *p = &s->parts[i];
        if (p->partition != partition)
            continue;
        if (s->uses_topic_ids ? memcmp(p->topic_id.b, topic_id.b, 16) == 0
                              : kc_str_eq(kc_str(p->topic), topic))
            return (ptrdiff_t)i;
    }
    return -1;
}

bool kc_fetch_session_upsert(kc_fetch_session_t *s, const kc_fetch_session_partition_t *p)
{
    ptrdiff_t i = kc_fetch_session_find(s, kc_str(p->topic ? p->topic : ""), p->topic_id,
                                        p->partition);
    if (i >= 0) {
        /* CachedPartition.updateRequestParams */
        s->parts[i].fetch_offset = p->fetch_offset;
        s->parts[i].log_start_offset = p->log_start_offset;
        s->parts[i].max_bytes = p->max_bytes;
        s->parts[i].current_leader_epoch = p->current_leader_epoch;
        s->parts[i].last_fetched_epoch = p->last_fetched_epoch;
        return false;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->parts = kc_xrealloc(s->parts, s->cap * sizeof(*s->parts));
    }
    part_copy(&s->parts[s->n++], p);
    return true;
}

bool kc_fetch_session_forget(kc_fetch_session_t *s, kc_str_t topic, kc_uuid_t topic_id,
                             int32_t partition)
{
    ptrdiff_t i = kc_fetch_session_find(s, topic, topic_id, partition);
    if (i < 0)
        return false;
    free(s->parts[i].topic);
    memmove(&s->parts[i], &s->parts[i + 1], (s->n - (size_t)i - 1) * sizeof(*s->parts));
    s->n--;
    return true;
}

void kc_fetch_session_reorder(kc_fetch_session_t *s, const bool *to_end)
{
    if (s->n == 0)
        return;
    kc_fetch_session_partition_t *tmp = kc_xcalloc(s->n, sizeof(*tmp));
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < s->n; i++)
            if (to_end[i] == (pass == 1))
                tmp[k++] = s->parts[i];
    memcpy(s->parts, tmp, s->n * sizeof(*tmp));
    free(tmp);
}

bool kc_fetch_session_must_respond(kc_fetch_session_partition_t *p, int16_t error_code,
                                   size_t records_len, int64_t high_watermark,
                                   int64_t log_start_offset, bool update)
{
    bool must = records_len > 0;
    if (p->high_watermark != high_watermark) {
        must = true;
        if (update)
            p->high_watermark = high_watermark;
    }
    if (p->local_log_start_offset != log_start_offset) {
        must = true;
        if (update)
            p->local_log_start_offset = log_start_offset;
    }
    if (error_code != 0) {
        if (update)
            p->high_watermark = -1;
        must = true;
    }
    return must;
}

int32_t kc_fetch_next_epoch(int32_t epoch)
{
    if (epoch < 0)
        return -1;
    return epoch == INT32_MAX ? 1 : epoch + 1;
}
