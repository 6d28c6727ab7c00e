/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The replay driver of the modern groups' records (consumer group types 3,
 * 5, 6, 7, 8, 16; streams group types 17 to 23): the key read, the record
 * of a group another type holds skipped (kc_group_replay_allowed), the
 * group of that id found, the value's version checked; then the group
 * type's apply step for the record's type. It runs for every record a load
 * reads and every record the live path writes (kc_record_write_replay).
 */
#ifndef KC_MODERN_REPLAY_H
#define KC_MODERN_REPLAY_H

#include <string.h>

#include "groups.h"

/* One record as an apply step gets it. Views are valid for the call. */
typedef struct {
    kc_coord_t *c;
    int16_t type;          /* KC_RECORD_* */
    kc_str_t gid;          /* the key's group id */
    kc_str_t mid;          /* a member record's member id; a regex record's regex; else null */
    void *g;               /* the group type's group of that id; NULL: none yet */
    kc_reader_t *r;        /* the value after its version; NULL: a tombstone */
    const uint8_t *value;  /* the whole value, version included (NULL: a tombstone) */
    size_t value_len;
    kc_arena_t *arena;     /* for what the step decodes */
    const void *msg;       /* the value's generated struct on the live path (NULL: decode r) */
} kc_modern_record_t;

/* The record's value into v (a generated Value struct of prefix P, e.g.
 * kc_consumer_group_metadata_value): the writer's struct on the live path,
 * as Kafka's runtime replays the record objects it wrote, else decoded
 * from the stored bytes. 0, or KC_EINVAL for bytes that do not decode. */
#define KC_MODERN_VALUE(rec, P, v)                                                                 \
    ((rec)->msg ? (memcpy(&(v), (rec)->msg, sizeof(v)), 0)                                         \
                : (P##_init(&(v)),                                                                 \
                   P##_decode((rec)->r, 0, (rec)->arena, &(v)) != 0 || (rec)->r->err ? KC_EINVAL  \
                                                                                     : 0))

/* A group type's apply step for one record type: 0, or KC_EINVAL for a
 * value it cannot decode. */
typedef struct {
    int16_t type;
    int (*apply)(const kc_modern_record_t *rec);
} kc_modern_apply_step_t;

/*
 * Replays one stored record (key and value as kc_coord_replay gets them) of
 * a group of type gt (msg: its value's struct when the live path wrote it,
 * else NULL) through the step of its type among steps (nsteps; a
 * type without one is ignored). Keys: group records
 * (KC_RECORD_*_GROUP_METADATA, *_TARGET_ASSIGNMENT_METADATA, the streams
 * topology) carry the group id, a consumer group regex record the group id
 * and the regex, every other the group id and the member id; neither may
 * be null. Every value is version 0. Returns 0, or KC_EINVAL for a key or
 * value it cannot read and for a record of a group another type holds.
 */
int kc_modern_replay(kc_coord_t *c, kc_group_type_t gt, const uint8_t *key, size_t key_len,
                     const uint8_t *value, size_t value_len, const void *msg,
                     const kc_modern_apply_step_t *steps, size_t nsteps);

#endif
