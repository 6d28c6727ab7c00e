/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The dynamic group configs (Kafka's ConfigResource GROUP, KIP-848's
 * GroupConfig): for each group id that has overrides, its config names and
 * values, kept in memory and persisted in the store's "group_configs"
 * database, one entry per group. Kafka keeps them in its metadata log as
 * ConfigRecords, beside the topic configs; kcoord keeps them beside its
 * topic table. Knows no config rule: the names and values are checked by
 * server/ before they get here.
 *
 * A group's configs are independent of the group itself: they can be set
 * before the group exists and outlive its deletion, as in Kafka.
 */
#ifndef KC_GROUP_CONFIGS_H
#define KC_GROUP_CONFIGS_H

#include <stdbool.h>
#include <stddef.h>

#include "store.h"
#include "wire.h"

/* One group's overrides; strings NUL-terminated, owned by the table. */
typedef struct {
    char *group_id;
    size_t group_id_len; /* a group id may hold NUL bytes */
    size_t nconfigs;
    char **names;
    char **values;
} kc_group_config_t;

typedef struct kc_group_configs kc_group_configs_t;

/* Empty table bound to store (borrowed; NULL: memory only, for tests). */
kc_group_configs_t *kc_group_configs_new(kc_store_t *store);
void kc_group_configs_free(kc_group_configs_t *t);
/* Loads every committed entry; 0 or KC_EIO (unreadable database or entry). */
int kc_group_configs_load(kc_group_configs_t *t);

/* The overrides of group_id, or NULL when it has none. Valid until the next change. */
const kc_group_config_t *kc_group_configs_find(const kc_group_configs_t *t, kc_str_t group_id);
/* The value of config name in c, or NULL. */
const char *kc_group_config_value(const kc_group_config_t *c, const char *name);
size_t kc_group_configs_count(const kc_group_configs_t *t);
/* Entries in no particular order; i < kc_group_configs_count. */
const kc_group_config_t *kc_group_configs_at(const kc_group_configs_t *t, size_t i);

/*
 * Replaces the overrides of group_id by the n pairs names/values (copied;
 * n == 0 removes the entry) and writes them to the store's open
 * transaction. 0, or a store error (KC_ENOSPC, KC_EIO) with the table
 * unchanged. If the later kc_store_commit fails, the table is ahead of the
 * store: rebuild it (kc_group_configs_free, _new, _load).
 */
int kc_group_configs_set(kc_group_configs_t *t, kc_str_t group_id, size_t n,
                         const kc_str_t *names, const kc_str_t *values);

#endif
