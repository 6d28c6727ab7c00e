/* SPDX-License-Identifier: Apache-2.0 */
/* The partition-keyed map of the modern group types (int_map.h). */
#include "int_map.h"

#include <stdlib.h>
#include <string.h>

#include "kc_common.h"

static uint32_t slot_of(int32_t key, int32_t cap)
{
    /* Fibonacci hashing spreads runs of consecutive partitions. */
    return ((uint32_t)key * 2654435761u) & (uint32_t)(cap - 1);
}

static int32_t find(const kc_int_map_t *m, int32_t key)
{
    if (key < 0 || m->cap == 0)
        return -1;
    for (uint32_t i = slot_of(key, m->cap);; i = (i + 1) & (uint32_t)(m->cap - 1)) {
        if (m->slots[i].key == key)
            return (int32_t)i;
        if (m->slots[i].key < 0)
            return -1;
    }
}

bool kc_int_map_get(const kc_int_map_t *m, int32_t key, intptr_t *val)
{
    int32_t i = find(m, key);
    if (i < 0)
        return false;
    *val = m->slots[i].val;
    return true;
}

static void insert(kc_int_map_slot_t *slots, int32_t cap, int32_t key, intptr_t val)
{
    uint32_t i = slot_of(key, cap);
    while (slots[i].key >= 0 && slots[i].key != key)
        i = (i + 1) & (uint32_t)(cap - 1);
    slots[i] = (kc_int_map_slot_t){key, val};
}

void kc_int_map_put(kc_int_map_t *m, int32_t key, intptr_t val)
{
    if (key < 0)
        return;
    int32_t i = find(m, key);
    if (i >= 0) {
        m->slots[i].val = val;
        return;
    }
    /* At most half full, so probes stay short and one slot is always empty. */
    if (2 * (m->n + 1) > m->cap) {
        int32_t ncap = m->cap ? 2 * m->cap : 16;
        kc_int_map_slot_t *ns = kc_xmalloc((size_t)ncap * sizeof(*ns));
        for (int32_t k = 0; k < ncap; k++)
            ns[k].key = -1;
        for (int32_t k = 0; k < m->cap; k++)
            if (m->slots[k].key >= 0)
                insert(ns, ncap, m->slots[k].key, m->slots[k].val);
        free(m->slots);
        m->slots = ns;
        m->cap = ncap;
    }
    insert(m->slots, m->cap, key, val);
    m->n++;
}

bool kc_int_map_remove(kc_int_map_t *m, int32_t key)
{
    int32_t f = find(m, key);
    if (f < 0)
        return false;
    uint32_t mask = (uint32_t)(m->cap - 1), hole = (uint32_t)f;
    /* Backward shift: move up each later entry of the run whose home slot
     * does not lie between the hole and it (cyclically). */
    for (uint32_t j = (hole + 1) & mask; m->slots[j].key >= 0; j = (j + 1) & mask) {
        uint32_t home = slot_of(m->slots[j].key, m->cap);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    m->slots[hole].key = -1;
    m->n--;
    return true;
}

void kc_int_map_free(kc_int_map_t *m)
{
    free(m->slots);
    memset(m, 0, sizeof(*m));
}
