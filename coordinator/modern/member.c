/* SPDX-License-Identifier: Apache-2.0 */
/* The members of modern groups (member.h). */
#include "member.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static char *dup_or_empty(kc_str_t s) { return kc_str_dup_or_null(s.len >= 0 ? s : kc_str("")); }

static char *dup_nullable(const char *s) { return s ? kc_xstrdup(s) : NULL; }

void kc_modern_member_init(kc_modern_member_t *m, kc_str_t member_id)
{
    memset(m, 0, sizeof(*m));
    m->member_id = dup_or_empty(member_id);
    m->client_id = kc_xstrdup("");
    m->client_host = kc_xstrdup("");
    m->rebalance_timeout_ms = -1;
}

void kc_modern_member_deinit(kc_modern_member_t *m)
{
    free(m->member_id);
    free(m->instance_id);
    free(m->rack_id);
    free(m->client_id);
    free(m->client_host);
}

void kc_modern_member_copy_metadata(kc_modern_member_t *dst, const kc_modern_member_t *src)
{
    free(dst->instance_id);
    dst->instance_id = dup_nullable(src->instance_id);
    free(dst->rack_id);
    dst->rack_id = dup_nullable(src->rack_id);
    free(dst->client_id);
    dst->client_id = kc_xstrdup(src->client_id);
    free(dst->client_host);
    dst->client_host = kc_xstrdup(src->client_host);
    dst->rebalance_timeout_ms = src->rebalance_timeout_ms;
}

void kc_modern_member_replay_metadata(kc_modern_member_t *m, kc_str_t rack_id, kc_str_t client_id,
                                      kc_str_t client_host, int32_t rebalance_timeout_ms)
{
    free(m->rack_id);
    m->rack_id = kc_str_dup_or_null(rack_id);
    free(m->client_id);
    m->client_id = dup_or_empty(client_id);
    free(m->client_host);
    m->client_host = dup_or_empty(client_host);
    m->rebalance_timeout_ms = rebalance_timeout_ms;
}

void kc_modern_members_init(kc_modern_members_t *ms)
{
    memset(ms, 0, sizeof(*ms));
    kc_smap_init(&ms->by_id);
    kc_smap_init(&ms->by_instance);
}

void kc_modern_members_deinit(kc_modern_members_t *ms)
{
    free(ms->items);
    kc_smap_deinit(&ms->by_id);
    kc_smap_deinit(&ms->by_instance);
}

void kc_modern_members_add(kc_modern_members_t *ms, kc_modern_member_t *m)
{
    if (ms->n == ms->cap) {
        ms->cap = ms->cap ? ms->cap * 2 : 8;
        ms->items = kc_xrealloc(ms->items, ms->cap * sizeof(*ms->items));
    }
    ms->items[ms->n++] = m;
    if (ms->n > ms->hw)
        ms->hw = ms->n;
    kc_smap_put(&ms->by_id, m->member_id, strlen(m->member_id), m);
    if (m->instance_id)
        kc_smap_put(&ms->by_instance, m->instance_id, strlen(m->instance_id), m);
}

void kc_modern_members_remove(kc_modern_members_t *ms, kc_modern_member_t *m)
{
    kc_smap_del(&ms->by_id, m->member_id, strlen(m->member_id));
    if (m->instance_id &&
        kc_smap_get(&ms->by_instance, m->instance_id, strlen(m->instance_id)) == m)
        kc_smap_del(&ms->by_instance, m->instance_id, strlen(m->instance_id));
    for (size_t i = 0; i < ms->n; i++)
        if (ms->items[i] == m) {
            memmove(&ms->items[i], &ms->items[i + 1], (ms->n - i - 1) * sizeof(*ms->items));
            ms->n--;
            break;
        }
}

kc_modern_member_t *kc_modern_members_get(const kc_modern_members_t *ms, kc_str_t member_id)
{
    if (member_id.len < 0)
        return NULL;
    return kc_smap_get(&ms->by_id, member_id.ptr ? member_id.ptr : "", (size_t)member_id.len);
}

kc_modern_member_t *kc_modern_members_static(const kc_modern_members_t *ms, kc_str_t instance_id)
{
    if (instance_id.len < 0)
        return NULL;
    return kc_smap_get(&ms->by_instance, instance_id.ptr ? instance_id.ptr : "",
                       (size_t)instance_id.len);
}

void kc_modern_members_set_instance_id(kc_modern_members_t *ms, kc_modern_member_t *m,
                                       const char *instance_id)
{
    kc_instance_index_set(&ms->by_instance, m, &m->instance_id, instance_id);
}
