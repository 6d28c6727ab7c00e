/* SPDX-License-Identifier: Apache-2.0 */
/* The replay driver of the modern groups' records (replay.h). */
#include "replay.h"

#include "internal.h"

/* Whether records of this type are keyed by the group id alone. */
static bool group_keyed(int16_t type)
{
    switch (type) {
    case KC_RECORD_CONSUMER_GROUP_METADATA:
    case KC_RECORD_CONSUMER_GROUP_PARTITION_METADATA:
    case KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA:
    case KC_RECORD_STREAMS_GROUP_METADATA:
    case KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA:
    case KC_RECORD_STREAMS_GROUP_TOPOLOGY:
        return true;
    default:
        return false;
    }
}

/* The key after its type: the group id, then (member and regex records)
 * the member id or the regex; neither may be null. */
static int read_key(kc_reader_t *r, int16_t type, kc_str_t *gid, kc_str_t *mid)
{
    *gid = kc_read_str(r, false, true);
    *mid = group_keyed(type) ? KC_STR_NULL : kc_read_str(r, false, true);
    if (r->err || gid->len < 0 || (!group_keyed(type) && mid->len < 0))
        return KC_EINVAL;
    return 0;
}

int kc_modern_replay(kc_coord_t *c, kc_group_type_t gt, const uint8_t *key, size_t key_len,
                     const uint8_t *value, size_t value_len, const void *msg,
                     const kc_modern_apply_step_t *steps, size_t nsteps)
{
    kc_reader_t kr;
    kc_reader_init(&kr, key, key_len);
    kc_modern_record_t rec = {.c = c, .type = kc_read_int16(&kr)};
    if (kr.err || read_key(&kr, rec.type, &rec.gid, &rec.mid) != 0)
        return KC_EINVAL;
    kc_group_t *held = kc_group_get(c, rec.gid);
    if (held && held->ops->type != gt && !kc_group_replay_allowed(c, rec.gid, gt))
        return KC_EINVAL;
    int (*apply)(const kc_modern_record_t *) = NULL;
    for (size_t i = 0; i < nsteps && !apply; i++)
        if (steps[i].type == rec.type)
            apply = steps[i].apply;
    kc_reader_t vr;
    if (value) {
        kc_reader_init(&vr, value, value_len);
        if (kc_read_int16(&vr) != 0 || vr.err) /* every value is version 0 */
            return KC_EINVAL;
        rec.r = &vr;
        rec.value = value;
        rec.value_len = value_len;
        rec.msg = msg;
    }
    rec.g = held && held->ops->type == gt ? held : NULL;
    if (!apply)
        return 0;
    kc_arena_t arena;
    kc_arena_init(&arena);
    rec.arena = &arena;
    int rc = apply(&rec);
    kc_arena_deinit(&arena);
    return rc;
}
