/* SPDX-License-Identifier: Apache-2.0 */
/* The sorted int32 set of the modern group types (int_set.h). */
#include "int_set.h"

#include <stdlib.h>
#include <string.h>

#include "kc_common.h"

int32_t kc_int_set_pos(const kc_int_set_t *s, int32_t v, bool *found)
{
    /* Appends are the common case: check past the last value first. */
    if (s->n && s->p[s->n - 1] < v) {
        *found = false;
        return s->n;
    }
    int32_t lo = 0, hi = s->n;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (s->p[mid] == v) {
            *found = true;
            return mid;
        }
        if (s->p[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

bool kc_int_set_add(kc_int_set_t *s, int32_t v)
{
    bool found;
    int32_t j = kc_int_set_pos(s, v, &found);
    if (found)
        return false;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->p = kc_xrealloc(s->p, (size_t)s->cap * sizeof(*s->p));
    }
    memmove(&s->p[j + 1], &s->p[j], (size_t)(s->n - j) * sizeof(*s->p));
    s->p[j] = v;
    s->n++;
    return true;
}

void kc_int_set_add_all(kc_int_set_t *s, const int32_t *v, int32_t n)
{
    bool ascending = s->n == 0 && n > 0;
    for (int32_t i = 1; i < n && ascending; i++)
        ascending = v[i - 1] < v[i];
    if (!ascending) {
        for (int32_t i = 0; i < n; i++)
            kc_int_set_add(s, v[i]);
        return;
    }
    if (s->cap < n) {
        s->cap = n;
        s->p = kc_xrealloc(s->p, (size_t)s->cap * sizeof(*s->p));
    }
    memcpy(s->p, v, (size_t)n * sizeof(*v));
    s->n = n;
}

bool kc_int_set_remove(kc_int_set_t *s, int32_t v)
{
    bool found;
    int32_t j = kc_int_set_pos(s, v, &found);
    if (!found)
        return false;
    memmove(&s->p[j], &s->p[j + 1], (size_t)(s->n - j - 1) * sizeof(*s->p));
    s->n--;
    return true;
}

bool kc_int_set_has(const kc_int_set_t *s, int32_t v)
{
    bool found;
    kc_int_set_pos(s, v, &found);
    return found;
}

bool kc_int_set_equal(const kc_int_set_t *a, const kc_int_set_t *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, (size_t)a->n * sizeof(*a->p)) == 0);
}

void kc_int_set_copy(kc_int_set_t *dst, const kc_int_set_t *src)
{
    dst->n = dst->cap = src->n;
    dst->p = kc_xmalloc((size_t)(src->n ? src->n : 1) * sizeof(*dst->p));
    if (src->n)
        memcpy(dst->p, src->p, (size_t)src->n * sizeof(*dst->p));
}

void kc_int_set_free(kc_int_set_t *s)
{
    free(s->p);
    memset(s, 0, sizeof(*s));
}
