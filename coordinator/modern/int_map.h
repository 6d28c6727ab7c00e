/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A map from a non-negative int32 (a partition) to an intptr_t: the owner
 * epoch of each owned partition of a topic in a consumer group (Kafka's
 * currentPartitionEpoch), the owner of each active task of a subtopology in
 * a streams group. Its memory follows the number of entries, not the
 * largest key, so a replayed record naming partition 2^31-1 costs one
 * entry (Kafka keeps these in hash maps too). Open addressing, linear
 * probing, deletion by backward shift.
 */
#ifndef KC_INT_MAP_H
#define KC_INT_MAP_H

#include <stdbool.h>
#include <stdint.h>

/* One slot; key -1 marks it empty. */
typedef struct {
    int32_t key;
    intptr_t val;
} kc_int_map_slot_t;

/* Zero-initialised is the empty map; owns slots (cap a power of two or 0). */
typedef struct {
    kc_int_map_slot_t *slots;
    int32_t n, cap;
} kc_int_map_t;

/* The value of key in *val; false when key (or any negative key) is absent. */
bool kc_int_map_get(const kc_int_map_t *m, int32_t key, intptr_t *val);
/* Sets key (>= 0; a negative key is ignored) to val, adding it when absent. */
void kc_int_map_put(kc_int_map_t *m, int32_t key, intptr_t val);
/* Removes key; false when it was not there. */
bool kc_int_map_remove(kc_int_map_t *m, int32_t key);
void kc_int_map_free(kc_int_map_t *m);

#endif
