/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topic table: every topic kcoord knows (name, topic id, partition
 * count), kept in memory and persisted through kc_store_topic_put. kcoord is
 * the only broker, so it leads every partition.
 */
#ifndef KC_TOPICS_H
#define KC_TOPICS_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"
#include "wire.h"

typedef struct {
    char *name;        /* NUL-terminated, owned by the table */
    kc_uuid_t id;      /* random v4-style UUID, never all-zero */
    int32_t partitions;
    /* Topic configs given at creation (Kafka's per-topic overrides, e.g.
     * retention.ms), name and value NUL-terminated, owned by the table. */
    size_t nconfigs;
    char **config_names;
    char **config_values;
} kc_topic_t;

typedef struct kc_topics kc_topics_t;

/* Empty table bound to store (borrowed; may be NULL for tests without storage). */
kc_topics_t *kc_topics_new(kc_store_t *store);
void kc_topics_free(kc_topics_t *t);
/* Loads every stored topic; 0 or KC_EIO. */
int kc_topics_load(kc_topics_t *t);

const kc_topic_t *kc_topics_find(const kc_topics_t *t, kc_str_t name);
const kc_topic_t *kc_topics_find_id(const kc_topics_t *t, kc_uuid_t id);
size_t kc_topics_count(const kc_topics_t *t);
/* Topics in creation order; i < kc_topics_count. Pointers stay valid until the topic is deleted. */
const kc_topic_t *kc_topics_at(const kc_topics_t *t, size_t i);

/*
 * Kafka's topic name rules (Topic.validate): 1-249 chars of [a-zA-Z0-9._-],
 * not "." or "..". Returns NULL when valid, else a message for the client.
 */
const char *kc_topic_name_invalid(kc_str_t name);

/*
 * Another topic whose name equals name once '.' and '_' are unified (Kafka's
 * Topic.hasCollision; CreateTopics answers INVALID_TOPIC_EXCEPTION), or NULL.
 */
const kc_topic_t *kc_topics_find_collision(const kc_topics_t *t, kc_str_t name);

/*
 * A random topic id as Kafka's Uuid.randomUuid makes them: version 4, never
 * 0 or 1, and no '-' in its base64 text. 0 or KC_EIO (no randomness).
 */
int kc_topic_id_random(kc_uuid_t *out);

/*
 * Creates a topic and writes it to the store's open transaction. Returns 0,
 * or KC_EINVAL for a bad name or partitions < 1; an existing name returns
 * KC_EEXIST with *out set to the existing topic; a store error (KC_ENOSPC,
 * KC_EIO) leaves the table unchanged. The caller checks collisions first.
 * If the later kc_store_commit fails, the table is ahead of the store:
 * rebuild it (kc_topics_free, kc_topics_new, kc_topics_load).
 */
int kc_topics_create(kc_topics_t *t, kc_str_t name, int32_t partitions, const kc_topic_t **out);
/* Raises the partition count (CreatePartitions); KC_EINVAL if not larger, KC_ENOENT if unknown. */
int kc_topics_set_partitions(kc_topics_t *t, kc_str_t name, int32_t partitions);
/*
 * Replaces the configs of a topic (n pairs, copied) and persists them in the
 * open transaction. 0, KC_ENOENT (unknown topic) or a store error (the
 * topic keeps its old configs).
 */
int kc_topics_set_configs(kc_topics_t *t, kc_str_t name, size_t n, const kc_str_t *names,
                          const kc_str_t *values);
/* The value of config name of topic, or NULL when the topic has no such override. */
const char *kc_topic_config(const kc_topic_t *topic, const char *name);
/* Deletes a topic (tombstone in the store); KC_ENOENT when unknown. */
int kc_topics_delete(kc_topics_t *t, kc_str_t name);

#endif
