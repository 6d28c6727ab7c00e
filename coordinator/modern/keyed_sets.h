/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sorted lists of (key, sorted int32 set) entries, the shape of a modern
 * member's assignment: a consumer member's partitions by topic id
 * (kc_asg_t, consumer_int.h), a streams member's tasks by subtopology id
 * (kc_tasks_t, streams_int.h). The list keeps its entries sorted by key and
 * owns them; zero-initialised is the empty list. An entry without a
 * partition may remain after a removal of another kind and counts as
 * absent when comparing.
 *
 * KC_KEYED_SETS_DEFINE(P, LIST_T, ENTRY_T, ITEMS, KEY, KEY_T, CMP, KEY_INIT,
 * KEY_FREE) defines, for a list type LIST_T { ENTRY_T *ITEMS; int32_t n,
 * cap; int32_t *epochs; } whose ENTRY_T has a key field KEY and a kc_int_set_t `set` (with
 * its count `n` readable), the functions declared by KC_KEYED_SETS_DECLARE:
 *
 *   P_free(l)               frees the entries; l is empty after
 *   P_copy(dst, src)        dst (freed first) becomes a copy of src
 *   P_find(l, key)          the entry of key, NULL when none
 *   P_add(l, key, p)        adds partition p under key (an entry made when needed)
 *   P_add_all(l, key, ps, n) adds the n partitions ps under key
 *   P_has(l, key, p)        whether p is under key
 *   P_remove(l, key, p)     removes p; an entry emptied goes; whether p was there
 *   P_equal(a, b)           the same partitions under the same keys
 *   P_count(l)              the partitions in all
 *
 * CMP(a, b) orders two KEY_T values (<0, 0, >0); KEY_INIT(&entry->KEY, key)
 * stores a key in a new entry (a copy it owns), KEY_FREE(&entry->KEY)
 * releases it.
 *
 * LIST_T also has an `int32_t *epochs`: the assignment epoch of each of its
 * partitions (KIP-1251; a member's owned partitions keep them), one per
 * partition in the list's order (entries by key, each entry's partitions
 * ascending), owned; NULL when the list keeps none. P_free and P_copy carry
 * them; P_add, P_add_all and P_remove change the partitions and drop them.
 *
 *   P_epoch(l, key, p, &e)  p's epoch in e; false when p is not in l or l
 *                           keeps no epochs
 *   P_epochs_fill(l, e)     every partition of l at epoch e
 *   P_epochs_carry(l, prev, fresh)  every partition of l at its epoch in
 *                           prev, fresh where prev lacks it (or its epochs)
 *   P_epochs_put(l, key, ps, es, n) the partitions ps[0..n) under key, those
 *                           l has, at epochs es (after P_epochs_fill)
 */
#ifndef KC_KEYED_SETS_H
#define KC_KEYED_SETS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "int_set.h"

#define KC_KEYED_SETS_DECLARE(P, LIST_T, ENTRY_T, KEY_T)                                           \
    void P##_free(LIST_T *l);                                                                      \
    void P##_copy(LIST_T *dst, const LIST_T *src);                                                 \
    const ENTRY_T *P##_find(const LIST_T *l, KEY_T key);                                           \
    void P##_add(LIST_T *l, KEY_T key, int32_t partition);                                         \
    void P##_add_all(LIST_T *l, KEY_T key, const int32_t *partitions, int32_t n);                  \
    bool P##_has(const LIST_T *l, KEY_T key, int32_t partition);                                   \
    bool P##_remove(LIST_T *l, KEY_T key, int32_t partition);                                      \
    bool P##_equal(const LIST_T *a, const LIST_T *b);                                              \
    int64_t P##_count(const LIST_T *l);                                                            \
    bool P##_epoch(const LIST_T *l, KEY_T key, int32_t partition, int32_t *epoch);                 \
    void P##_epochs_fill(LIST_T *l, int32_t epoch);                                                \
    void P##_epochs_carry(LIST_T *l, const LIST_T *prev, int32_t fresh);                           \
    void P##_epochs_put(LIST_T *l, KEY_T key, const int32_t *partitions, const int32_t *epochs,    \
                        int32_t n)

#define KC_KEYED_SETS_DEFINE(P, LIST_T, ENTRY_T, ITEMS, KEY, KEY_T, CMP, KEY_INIT, KEY_FREE)       \
    void P##_free(LIST_T *l)                                                                       \
    {                                                                                              \
        for (int32_t i = 0; i < l->n; i++) {                                                       \
            KEY_FREE(&l->ITEMS[i].KEY);                                                            \
            kc_int_set_free(&l->ITEMS[i].set);                                                     \
        }                                                                                          \
        free(l->ITEMS);                                                                            \
        free(l->epochs);                                                                           \
        memset(l, 0, sizeof(*l));                                                                  \
    }                                                                                              \
                                                                                                   \
    void P##_copy(LIST_T *dst, const LIST_T *src)                                                  \
    {                                                                                              \
        P##_free(dst);                                                                             \
        if (src->n == 0)                                                                           \
            return;                                                                                \
        dst->ITEMS = kc_xcalloc((size_t)src->n, sizeof(*dst->ITEMS));                              \
        dst->n = dst->cap = src->n;                                                                \
        for (int32_t i = 0; i < src->n; i++) {                                                     \
            KEY_INIT(&dst->ITEMS[i].KEY, src->ITEMS[i].KEY);                                       \
            kc_int_set_copy(&dst->ITEMS[i].set, &src->ITEMS[i].set);                               \
        }                                                                                          \
        int64_t ne = src->epochs ? P##_count(src) : 0;                                             \
        if (ne > 0) {                                                                              \
            dst->epochs = kc_xmalloc((size_t)ne * sizeof(*dst->epochs));                           \
            memcpy(dst->epochs, src->epochs, (size_t)ne * sizeof(*dst->epochs));                   \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* The index of key's entry (*found) or where it would go; appends,                           \
     * the common case, are checked first. */                                                     \
    static inline int32_t P##_pos(const LIST_T *l, KEY_T key, bool *found)                         \
    {                                                                                              \
        int32_t lo = 0, hi = l->n;                                                                 \
        if (l->n) {                                                                                \
            int c = CMP(l->ITEMS[l->n - 1].KEY, key);                                              \
            if (c <= 0) {                                                                          \
                *found = c == 0;                                                                   \
                return c == 0 ? l->n - 1 : l->n;                                                   \
            }                                                                                      \
        }                                                                                          \
        while (lo < hi) {                                                                          \
            int32_t mid = (lo + hi) / 2;                                                           \
            int c = CMP(l->ITEMS[mid].KEY, key);                                                   \
            if (c == 0) {                                                                          \
                *found = true;                                                                     \
                return mid;                                                                        \
            }                                                                                      \
            if (c < 0)                                                                             \
                lo = mid + 1;                                                                      \
            else                                                                                   \
                hi = mid;                                                                          \
        }                                                                                          \
        *found = false;                                                                            \
        return lo;                                                                                 \
    }                                                                                              \
                                                                                                   \
    const ENTRY_T *P##_find(const LIST_T *l, KEY_T key)                                            \
    {                                                                                              \
        bool found;                                                                                \
        int32_t i = P##_pos(l, key, &found);                                                       \
        return found ? &l->ITEMS[i] : NULL;                                                        \
    }                                                                                              \
                                                                                                   \
    /* The entry of key, made when there is none. */                                              \
    static ENTRY_T *P##_entry(LIST_T *l, KEY_T key)                                                \
    {                                                                                              \
        bool found;                                                                                \
        int32_t i = P##_pos(l, key, &found);                                                       \
        if (!found) {                                                                              \
            if (l->n == l->cap) {                                                                  \
                l->cap = l->cap ? l->cap * 2 : 4;                                                  \
                l->ITEMS = kc_xrealloc(l->ITEMS, (size_t)l->cap * sizeof(*l->ITEMS));              \
            }                                                                                      \
            memmove(&l->ITEMS[i + 1], &l->ITEMS[i], (size_t)(l->n - i) * sizeof(*l->ITEMS));       \
            memset(&l->ITEMS[i], 0, sizeof(l->ITEMS[i]));                                          \
            KEY_INIT(&l->ITEMS[i].KEY, key);                                                       \
            l->n++;                                                                                \
        }                                                                                          \
        return &l->ITEMS[i];                                                                       \
    }                                                                                              \
                                                                                                   \
    /* The partitions change: their epochs no longer line up. */                                  \
    static inline void P##_drop_epochs(LIST_T *l)                                                  \
    {                                                                                              \
        if (l->epochs) {                                                                           \
            free(l->epochs);                                                                       \
            l->epochs = NULL;                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    void P##_add(LIST_T *l, KEY_T key, int32_t partition)                                          \
    {                                                                                              \
        P##_drop_epochs(l);                                                                        \
        kc_int_set_add(&P##_entry(l, key)->set, partition);                                        \
    }                                                                                              \
                                                                                                   \
    void P##_add_all(LIST_T *l, KEY_T key, const int32_t *partitions, int32_t n)                   \
    {                                                                                              \
        if (n > 0) {                                                                               \
            P##_drop_epochs(l);                                                                    \
            kc_int_set_add_all(&P##_entry(l, key)->set, partitions, n);                            \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    bool P##_has(const LIST_T *l, KEY_T key, int32_t partition)                                    \
    {                                                                                              \
        const ENTRY_T *e = P##_find(l, key);                                                       \
        return e && kc_int_set_has(&e->set, partition);                                            \
    }                                                                                              \
                                                                                                   \
    bool P##_remove(LIST_T *l, KEY_T key, int32_t partition)                                       \
    {                                                                                              \
        bool found;                                                                                \
        int32_t i = P##_pos(l, key, &found);                                                       \
        if (!found || !kc_int_set_remove(&l->ITEMS[i].set, partition))                             \
            return false;                                                                          \
        P##_drop_epochs(l);                                                                        \
        if (l->ITEMS[i].n == 0) {                                                                  \
            KEY_FREE(&l->ITEMS[i].KEY);                                                            \
            kc_int_set_free(&l->ITEMS[i].set);                                                     \
            memmove(&l->ITEMS[i], &l->ITEMS[i + 1], (size_t)(l->n - i - 1) * sizeof(*l->ITEMS));   \
            l->n--;                                                                                \
        }                                                                                          \
        return true;                                                                               \
    }                                                                                              \
                                                                                                   \
    bool P##_equal(const LIST_T *a, const LIST_T *b)                                               \
    {                                                                                              \
        int32_t i = 0, j = 0;                                                                      \
        for (;;) {                                                                                 \
            while (i < a->n && a->ITEMS[i].n == 0)                                                 \
                i++;                                                                               \
            while (j < b->n && b->ITEMS[j].n == 0)                                                 \
                j++;                                                                               \
            if (i == a->n || j == b->n)                                                            \
                return i == a->n && j == b->n;                                                     \
            if (CMP(a->ITEMS[i].KEY, b->ITEMS[j].KEY) != 0 ||                                      \
                !kc_int_set_equal(&a->ITEMS[i].set, &b->ITEMS[j].set))                             \
                return false;                                                                      \
            i++;                                                                                   \
            j++;                                                                                   \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    int64_t P##_count(const LIST_T *l)                                                             \
    {                                                                                              \
        int64_t n = 0;                                                                             \
        for (int32_t i = 0; i < l->n; i++)                                                         \
            n += l->ITEMS[i].n;                                                                    \
        return n;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* Where the epochs of entry i start. */                                                      \
    static int64_t P##_epochs_at(const LIST_T *l, int32_t i)                                       \
    {                                                                                              \
        int64_t off = 0;                                                                           \
        for (int32_t k = 0; k < i; k++)                                                            \
            off += l->ITEMS[k].n;                                                                  \
        return off;                                                                                \
    }                                                                                              \
                                                                                                   \
    bool P##_epoch(const LIST_T *l, KEY_T key, int32_t partition, int32_t *epoch)                  \
    {                                                                                              \
        bool found;                                                                                \
        int32_t i = P##_pos(l, key, &found);                                                       \
        if (!found || !l->epochs)                                                                  \
            return false;                                                                          \
        int32_t j = kc_int_set_pos(&l->ITEMS[i].set, partition, &found);                           \
        if (!found)                                                                                \
            return false;                                                                          \
        *epoch = l->epochs[P##_epochs_at(l, i) + j];                                               \
        return true;                                                                               \
    }                                                                                              \
                                                                                                   \
    void P##_epochs_fill(LIST_T *l, int32_t epoch)                                                 \
    {                                                                                              \
        int64_t n = P##_count(l);                                                                  \
        P##_drop_epochs(l);                                                                        \
        if (n == 0)                                                                                \
            return;                                                                                \
        l->epochs = kc_xmalloc((size_t)n * sizeof(*l->epochs));                                    \
        for (int64_t k = 0; k < n; k++)                                                            \
            l->epochs[k] = epoch;                                                                  \
    }                                                                                              \
                                                                                                   \
    /* One walk over both lists, sorted alike. */                                                 \
    void P##_epochs_carry(LIST_T *l, const LIST_T *prev, int32_t fresh)                            \
    {                                                                                              \
        P##_epochs_fill(l, fresh);                                                                 \
        if (!l->epochs || !prev->epochs)                                                           \
            return;                                                                                \
        int64_t k = 0, poff = 0;                                                                   \
        int32_t pi = 0;                                                                            \
        for (int32_t i = 0; i < l->n; i++) {                                                       \
            while (pi < prev->n && CMP(prev->ITEMS[pi].KEY, l->ITEMS[i].KEY) < 0)                  \
                poff += prev->ITEMS[pi++].n;                                                       \
            const kc_int_set_t *ps = pi < prev->n &&                                               \
                                             CMP(prev->ITEMS[pi].KEY, l->ITEMS[i].KEY) == 0        \
                                         ? &prev->ITEMS[pi].set                                    \
                                         : NULL;                                                   \
            const kc_int_set_t *s = &l->ITEMS[i].set;                                              \
            int32_t pj = 0;                                                                        \
            for (int32_t j = 0; j < s->n; j++, k++) {                                              \
                while (ps && pj < ps->n && ps->p[pj] < s->p[j])                                    \
                    pj++;                                                                          \
                if (ps && pj < ps->n && ps->p[pj] == s->p[j])                                      \
                    l->epochs[k] = prev->epochs[poff + pj];                                        \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    void P##_epochs_put(LIST_T *l, KEY_T key, const int32_t *partitions, const int32_t *epochs,    \
                        int32_t n)                                                                 \
    {                                                                                              \
        bool found;                                                                                \
        int32_t i = P##_pos(l, key, &found);                                                       \
        if (!found || !l->epochs || n <= 0)                                                        \
            return;                                                                                \
        int32_t *out = l->epochs + P##_epochs_at(l, i);                                            \
        const kc_int_set_t *s = &l->ITEMS[i].set;                                                  \
        /* What this coordinator writes: the entry's partitions in order. */                      \
        if (n == s->n && memcmp(partitions, s->p, (size_t)n * sizeof(*partitions)) == 0) {         \
            memcpy(out, epochs, (size_t)n * sizeof(*epochs));                                      \
            return;                                                                                \
        }                                                                                          \
        for (int32_t k = 0; k < n; k++) {                                                          \
            int32_t j = kc_int_set_pos(s, partitions[k], &found);                                  \
            if (found)                                                                             \
                out[j] = epochs[k];                                                                \
        }                                                                                          \
    }

#endif
