/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every member of a modern group has, and the members of a group, as
 * Kafka's ModernGroupMember and ModernGroup keep them for consumer groups
 * (KIP-848) and streams groups (KIP-1071): the member's ids, its client, its
 * rebalance timeout, its epochs and state; the group's members in join
 * order, by member id and by group instance id. Each group type embeds a
 * kc_modern_member_t first in its member struct (KC_MODERN_MEMBER_BASE) and
 * a kc_modern_members_t in its group; the member's other fields, its
 * assignment and its records are the group type's.
 */
#ifndef KC_MODERN_MEMBER_H
#define KC_MODERN_MEMBER_H

#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"

#define KC_MODERN_MEMBER_FIELDS                                                                    \
    char *member_id;                                                                               \
    char *instance_id; /* NULL: a dynamic member */                                                \
    char *rack_id;     /* NULL: none */                                                            \
    char *client_id;                                                                               \
    char *client_host;                                                                             \
    int32_t rebalance_timeout_ms;                                                                  \
    int32_t member_epoch, previous_member_epoch;                                                   \
    int8_t state; /* the group type's MemberState */

/* The member epoch of a static member that left temporarily (heartbeat
 * with epoch -2), holding its assignment until its session expires. */
#define KC_MODERN_EPOCH_STATIC_LEAVE (-2)

/* The fields every modern member has; strings owned, NUL-terminated. */
typedef struct {
    KC_MODERN_MEMBER_FIELDS
} kc_modern_member_t;

/* First in a group type's member struct: the fields by their names and,
 * as `modern`, the kc_modern_member_t the functions below take. */
#define KC_MODERN_MEMBER_BASE                                                                      \
    union {                                                                                        \
        kc_modern_member_t modern;                                                                 \
        struct {                                                                                   \
            KC_MODERN_MEMBER_FIELDS                                                                \
        };                                                                                         \
    }

/* A member of that id (null: "") with Kafka's defaults: no instance id nor
 * rack, client id and host "", rebalance timeout -1, epochs 0. */
void kc_modern_member_init(kc_modern_member_t *m, kc_str_t member_id);
void kc_modern_member_deinit(kc_modern_member_t *m);
/* A proposed member's start (the Builder from a member): src's instance id,
 * rack, client id and host and rebalance timeout copied into dst, whose
 * own are freed. */
void kc_modern_member_copy_metadata(kc_modern_member_t *dst, const kc_modern_member_t *src);
/* The replay of a member metadata record's common fields: the rack (null:
 * none), the client id and host (null: ""), the rebalance timeout. */
void kc_modern_member_replay_metadata(kc_modern_member_t *m, kc_str_t rack_id, kc_str_t client_id,
                                      kc_str_t client_host, int32_t rebalance_timeout_ms);

/* The members of a group; the array and indexes are owned, the members
 * are the group type's (it frees them). */
typedef struct {
    kc_modern_member_t **items; /* in join order */
    size_t n, cap;
    size_t hw;                  /* memory-only: most members at once (Kafka's table size) */
    kc_smap_t by_id;            /* member id -> member */
    kc_smap_t by_instance;      /* group instance id -> member */
} kc_modern_members_t;

void kc_modern_members_init(kc_modern_members_t *ms);
void kc_modern_members_deinit(kc_modern_members_t *ms);
/* Adds m last, indexed by its ids. */
void kc_modern_members_add(kc_modern_members_t *ms, kc_modern_member_t *m);
/* Takes m out of the array and the indexes (m itself is not freed). */
void kc_modern_members_remove(kc_modern_members_t *ms, kc_modern_member_t *m);
/* The member of that id or group instance id; NULL for none or a null id. */
kc_modern_member_t *kc_modern_members_get(const kc_modern_members_t *ms, kc_str_t member_id);
kc_modern_member_t *kc_modern_members_static(const kc_modern_members_t *ms, kc_str_t instance_id);
/* Sets or clears (NULL) m's instance id (copied), keeping the index. */
void kc_modern_members_set_instance_id(kc_modern_members_t *ms, kc_modern_member_t *m,
                                       const char *instance_id);

#endif
