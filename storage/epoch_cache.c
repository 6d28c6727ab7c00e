/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The leader epoch cache (Kafka's LeaderEpochFileCache): a short array of
 * (epoch, start offset) entries, increasing in both, and its stored form.
 * Kafka keeps a TreeMap; the array's order is that map's order.
 */
#include "epoch_cache.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY_BYTES 12 /* i32 epoch, i64 start offset */
#define HEADER_BYTES 5 /* u8 version, u32 count */

void kc_epoch_cache_init(kc_epoch_cache_t *c)
{
    memset(c, 0, sizeof(*c));
}

void kc_epoch_cache_deinit(kc_epoch_cache_t *c)
{
    free(c->e);
    memset(c, 0, sizeof(*c));
}

int32_t kc_epoch_cache_latest(const kc_epoch_cache_t *c)
{
    return c->n ? c->e[c->n - 1].epoch : KC_EPOCH_UNDEFINED;
}

const kc_epoch_entry_t *kc_epoch_cache_earliest(const kc_epoch_cache_t *c)
{
    return c->n ? &c->e[0] : NULL;
}

static void push(kc_epoch_cache_t *c, kc_epoch_entry_t x)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 4;
        c->e = kc_xrealloc(c->e, c->cap * sizeof(*c->e));
    }
    c->e[c->n++] = x;
}

bool kc_epoch_cache_assign(kc_epoch_cache_t *c, int32_t epoch, int64_t start_offset)
{
    if (epoch < 0 || start_offset < 0)
        return false;
    /* isUpdateNeeded */
    if (c->n) {
        const kc_epoch_entry_t *last = &c->e[c->n - 1];
        if (last->epoch == epoch && start_offset >= last->start_offset)
            return false;
    }
    /* maybeTruncateNonMonotonicEntries: from the newest entry back. */
    while (c->n && (c->e[c->n - 1].epoch >= epoch || c->e[c->n - 1].start_offset >= start_offset))
        c->n--;
    push(c, (kc_epoch_entry_t){epoch, start_offset});
    return true;
}

bool kc_epoch_cache_truncate_from_start(kc_epoch_cache_t *c, int64_t start_offset)
{
    size_t k = 0;
    while (k < c->n && c->e[k].start_offset <= start_offset)
        k++;
    if (k == 0)
        return false;
    /* The last entry dropped comes back, starting at the new log start. */
    kc_epoch_entry_t first = {c->e[k - 1].epoch, start_offset};
    bool changed = k > 1 || c->e[0].start_offset != start_offset;
    memmove(c->e + 1, c->e + k, (c->n - k) * sizeof(*c->e));
    c->n -= k - 1;
    c->e[0] = first;
    return changed;
}

void kc_epoch_cache_end_offset_for(const kc_epoch_cache_t *c, int32_t requested,
                                   int64_t log_end_offset, int32_t *epoch, int64_t *end_offset)
{
    *epoch = KC_EPOCH_UNDEFINED;
    *end_offset = KC_EPOCH_UNDEFINED_OFFSET;
    if (requested == KC_EPOCH_UNDEFINED)
        return; /* a bootstrapping follower, or records of the old formats */
    if (c->n && c->e[c->n - 1].epoch == requested) {
        /* The current epoch is still being written: it ends at the log end. */
        *epoch = requested;
        *end_offset = log_end_offset;
        return;
    }
    size_t higher = 0; /* the first entry of an epoch above requested */
    while (higher < c->n && c->e[higher].epoch <= requested)
        higher++;
    if (higher == c->n)
        return; /* newer than any epoch the log knows */
    /* Older than every entry: the records of the epochs before are gone, so
     * the requested epoch is answered as ending where the log now begins. */
    *epoch = higher == 0 ? requested : c->e[higher - 1].epoch;
    *end_offset = c->e[higher].start_offset;
}

int32_t kc_epoch_cache_epoch_for_offset(const kc_epoch_cache_t *c, int64_t offset)
{
    int32_t previous = KC_EPOCH_UNDEFINED;
    for (size_t i = 0; i < c->n; i++) {
        if (c->e[i].start_offset == offset)
            return c->e[i].epoch;
        if (c->e[i].start_offset > offset)
            return previous;
        previous = c->e[i].epoch;
    }
    return previous;
}

static void put_be(kc_buf_t *b, uint64_t v, int n)
{
    uint8_t *p = kc_buf_reserve(b, (size_t)n);
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
    b->len += (size_t)n;
}

static uint64_t get_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

void kc_epoch_cache_encode(const kc_epoch_cache_t *c, kc_buf_t *out)
{
    put_be(out, 0, 1);
    put_be(out, (uint64_t)c->n, 4);
    for (size_t i = 0; i < c->n; i++) {
        put_be(out, (uint32_t)c->e[i].epoch, 4);
        put_be(out, (uint64_t)c->e[i].start_offset, 8);
    }
}

int kc_epoch_cache_decode(kc_epoch_cache_t *c, const uint8_t *p, size_t len)
{
    if (len < HEADER_BYTES || p[0] != 0)
        return KC_EINVAL;
    uint64_t n = get_be(p + 1, 4);
    if ((len - HEADER_BYTES) / ENTRY_BYTES != n || (len - HEADER_BYTES) % ENTRY_BYTES != 0)
        return KC_EINVAL;
    kc_epoch_entry_t *e = n ? kc_xcalloc((size_t)n, sizeof(*e)) : NULL;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *q = p + HEADER_BYTES + ENTRY_BYTES * i;
        e[i].epoch = (int32_t)(uint32_t)get_be(q, 4);
        e[i].start_offset = (int64_t)get_be(q + 4, 8);
        if (e[i].epoch < 0 || e[i].start_offset < 0 ||
            (i > 0 && (e[i].epoch <= e[i - 1].epoch || e[i].start_offset <= e[i - 1].start_offset))) {
            free(e);
            return KC_EINVAL;
        }
    }
    free(c->e);
    c->e = e;
    c->n = c->cap = (size_t)n;
    return 0;
}
