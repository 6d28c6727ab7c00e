/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A sorted set of int32 values: the partitions of one topic in a consumer
 * group's assignment, the task ids (partitions) of one subtopology in a
 * streams group's. Shared by the modern group types (KIP-848, KIP-1071).
 */
#ifndef KC_INT_SET_H
#define KC_INT_SET_H

#include <stdbool.h>
#include <stdint.h>

/* Values ascending and unique; zero-initialised is the empty set; owns p. */
typedef struct {
    int32_t *p;
    int32_t n, cap;
} kc_int_set_t;

/* Index of v in s (*found true), or where it would go (*found false). */
int32_t kc_int_set_pos(const kc_int_set_t *s, int32_t v, bool *found);
/* Adds v; false when it was there already. */
bool kc_int_set_add(kc_int_set_t *s, int32_t v);
/* Adds the n values of v (any order, repeats allowed); an empty set takes
 * an ascending run in one copy. */
void kc_int_set_add_all(kc_int_set_t *s, const int32_t *v, int32_t n);
/* Removes v; false when it was not there. */
bool kc_int_set_remove(kc_int_set_t *s, int32_t v);
bool kc_int_set_has(const kc_int_set_t *s, int32_t v);
bool kc_int_set_equal(const kc_int_set_t *a, const kc_int_set_t *b);
/* dst becomes a copy of src (dst's own array, if any, is not freed). */
void kc_int_set_copy(kc_int_set_t *dst, const kc_int_set_t *src);
void kc_int_set_free(kc_int_set_t *s);

#endif
