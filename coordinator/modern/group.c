/* SPDX-License-Identifier: Apache-2.0 */
/* The modern groups' shared part (group.h). */
#include "group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kc_log.h"

#define LOG_COMP "group-coordinator"

static const kc_modern_group_t *modern_of(const kc_group_t *g)
{
    return (const kc_modern_group_t *)g;
}

/* A request string's length for a message (null: 0). */
static int msg_len(kc_str_t s) { return s.len > 0 ? (int)s.len : 0; }

void kc_modern_group_init(kc_coord_t *c, kc_modern_group_t *g, const kc_group_ops_t *ops,
                          kc_str_t group_id)
{
    g->base.ops = ops;
    g->group_id = kc_str_dup_or_null(group_id.len >= 0 ? group_id : kc_str(""));
    g->group_id_len = (size_t)(group_id.len > 0 ? group_id.len : 0);
    kc_modern_members_init(&g->members);
    kc_group_put(c, &g->base);
}

void kc_modern_group_deinit(kc_modern_group_t *g)
{
    kc_modern_members_deinit(&g->members);
    free(g->group_id);
}

void kc_modern_group_remove(kc_coord_t *c, kc_modern_group_t *g)
{
    kc_groups_table_remove(c, kc_modern_group_id(&g->base));
    kc_group_remove(c, &g->base);
}

void kc_modern_groups_unload(kc_coord_t *c, kc_group_type_t type,
                             void (*free_group)(kc_group_t *g))
{
    size_t n;
    kc_group_t **gs = kc_groups_list(c, type, &n);
    for (size_t i = 0; i < n; i++) {
        kc_group_remove(c, gs[i]);
        free_group(gs[i]);
    }
    free(gs);
}

void kc_modern_group_replay_metadata(kc_modern_group_t *g, int32_t epoch, int64_t metadata_hash)
{
    g->group_epoch = epoch;
    g->metadata_hash = metadata_hash;
    g->has_group_record = true;
}

kc_str_t kc_modern_group_id(const kc_group_t *g)
{
    const kc_modern_group_t *m = modern_of(g);
    return (kc_str_t){m->group_id, (int32_t)m->group_id_len};
}

const char *kc_modern_group_protocol_type(const kc_group_t *g) { return g->ops->type_name; }

uint64_t kc_modern_group_table_seq(const kc_group_t *g) { return modern_of(g)->table_seq; }

int16_t kc_modern_group_validate_delete(const kc_group_t *g)
{
    return modern_of(g)->members.n == 0 ? KC_ERR_NONE : KC_ERR_NON_EMPTY_GROUP;
}

bool kc_modern_group_offsets_expire(const kc_group_t *g, int64_t *base_timestamp_ms)
{
    (void)g;
    *base_timestamp_ms = -1;
    return true;
}

int16_t kc_modern_group_validate_offset_delete(const kc_group_t *g)
{
    (void)g;
    return KC_ERR_NONE;
}

int16_t kc_modern_group_validate_offset_fetch(const kc_group_t *g, kc_str_t member_id,
                                              int32_t member_epoch, int16_t api_version,
                                              const kc_modern_member_t **member)
{
    *member = NULL;
    if (api_version < 9 || (member_id.len < 0 && member_epoch < 0))
        return KC_ERR_NONE;
    if (member_id.len < 0)
        return KC_ERR_UNKNOWN_SERVER_ERROR;
    *member = kc_modern_members_get(&modern_of(g)->members, member_id);
    if (!*member)
        return KC_ERR_UNKNOWN_MEMBER_ID;
    return member_epoch == (*member)->member_epoch ? KC_ERR_NONE : KC_ERR_STALE_MEMBER_EPOCH;
}

int16_t kc_modern_validate_commit_epoch(const kc_group_t *g, const kc_modern_member_t *m,
                                        int32_t member_epoch, kc_commit_check_fn *check,
                                        kc_commit_validator_t *v)
{
    if (member_epoch == m->member_epoch)
        return KC_ERR_NONE;
    if (member_epoch > m->member_epoch)
        return KC_ERR_STALE_MEMBER_EPOCH;
    *v = (kc_commit_validator_t){check, g, m, member_epoch};
    return KC_ERR_NONE;
}

int16_t kc_modern_commit_partition_epoch(const kc_commit_validator_t *v, bool held,
                                         int32_t assignment_epoch, const char *what,
                                         kc_str_t name, int32_t partition)
{
    if (held && v->member_epoch >= assignment_epoch)
        return KC_ERR_NONE;
    const kc_modern_member_t *m = v->member;
    if (!held)
        kc_log_info(LOG_COMP,
                    "[GroupId %s] OffsetCommit rejected: member %s, committing with epoch %d, "
                    "neither owns nor revokes %s %.*s-%d.",
                    modern_of(v->group)->group_id, m->member_id, v->member_epoch, what,
                    msg_len(name), name.ptr, partition);
    else
        kc_log_info(LOG_COMP,
                    "[GroupId %s] OffsetCommit rejected: member epoch %d is older than the "
                    "epoch %d member %s was assigned %s %.*s-%d at.",
                    modern_of(v->group)->group_id, v->member_epoch, assignment_epoch,
                    m->member_id, what, msg_len(name), name.ptr, partition);
    return KC_ERR_STALE_MEMBER_EPOCH;
}

int16_t kc_modern_validate_ids(kc_str_t group_id, kc_str_t instance_id, kc_str_t rack_id,
                               char *msg, size_t cap)
{
    const char *empty = group_id.len <= 0      ? "GroupId"
                        : instance_id.len == 0 ? "InstanceId"
                        : rack_id.len == 0     ? "RackId"
                                               : NULL;
    if (!empty)
        return KC_ERR_NONE;
    snprintf(msg, cap, "%s can't be empty.", empty);
    return KC_ERR_INVALID_REQUEST;
}

int16_t kc_modern_group_find_member(const kc_modern_group_t *g, kc_str_t member_id,
                                    kc_str_t instance_id, kc_modern_member_t **out, char *msg,
                                    size_t cap)
{
    if (instance_id.len < 0) {
        *out = kc_modern_members_get(&g->members, member_id);
        if (*out)
            return KC_ERR_NONE;
        snprintf(msg, cap, "Member %.*s is not a member of group %s.", msg_len(member_id),
                 member_id.ptr, g->group_id);
        return KC_ERR_UNKNOWN_MEMBER_ID;
    }
    *out = kc_modern_members_static(&g->members, instance_id);
    if (!*out) {
        snprintf(msg, cap, "Instance id %.*s is unknown.", msg_len(instance_id), instance_id.ptr);
        return KC_ERR_UNKNOWN_MEMBER_ID;
    }
    if (!kc_str_eq_cstr(member_id, (*out)->member_id)) {
        snprintf(msg, cap, "Static member %.*s with instance id %s was fenced by member %s.",
                 msg_len(member_id), member_id.ptr, (*out)->instance_id, (*out)->member_id);
        *out = NULL;
        return KC_ERR_FENCED_INSTANCE_ID;
    }
    return KC_ERR_NONE;
}

int16_t kc_modern_static_join_check(const kc_modern_member_t *s, kc_str_t member_id,
                                    kc_str_t instance_id, char *msg, size_t cap)
{
    if (!s || s->member_epoch == KC_MODERN_EPOCH_STATIC_LEAVE)
        return KC_ERR_NONE;
    snprintf(msg, cap,
             "Static member %.*s with instance id %.*s cannot join the group because the "
             "instance id is owned by %s member.",
             msg_len(member_id), member_id.ptr, msg_len(instance_id), instance_id.ptr,
             s->member_id);
    return KC_ERR_UNRELEASED_INSTANCE_ID;
}
