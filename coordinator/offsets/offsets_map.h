/* SPDX-License-Identifier: Apache-2.0 */
/*
 * In-memory store of committed offsets: group id -> topic -> partition ->
 * committed offset, the shape of Kafka's OffsetMetadataManager.Offsets. Three
 * levels of open-addressing hash tables over dense arrays (a topic with few
 * partitions is scanned instead of indexed). Start-up replays every stored
 * offset through kc_offsets_map_put, so the map is built for that: partition
 * arrays come from a block pool carved out of big chunks (freed blocks are
 * reused, no malloc per topic), topic names are shared by every group that
 * has offsets for the topic, and the last group and topic used are tried
 * before hashing. Knows nothing about requests, records or groups' rules.
 */
#ifndef KC_OFFSETS_MAP_H
#define KC_OFFSETS_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kc_common.h"
#include "wire.h"

/* One committed offset (hard state: rebuilt by replaying OffsetCommit records). */
typedef struct {
    int64_t offset;
    int64_t commit_timestamp_ms;
    int64_t expire_timestamp_ms; /* -1 = none (only value v1 records carry one) */
    int32_t leader_epoch;        /* -1 = none */
    int32_t partition;
    kc_uuid_t topic_id;          /* all-zero = unknown */
    char *metadata;              /* owned (malloc); NULL when the metadata is "" */
    int32_t metadata_len;
    uint32_t kafka_seq;          /* insertion number in Kafka's partition table (kept by the map) */
} kc_offset_entry_t;

/* Slot of an open-addressing index: the key's hash and dense position + 1 (0 = empty). */
typedef struct {
    uint32_t hash;
    uint32_t ref;
} kc_offsets_slot_t;

typedef struct {
    kc_offsets_slot_t *slots;
    uint32_t mask; /* capacity - 1; capacity is a power of two, 0 when unallocated */
    uint32_t count;
} kc_offsets_index_t;

typedef struct {
    char *name; /* NUL-terminated; shared by the topics of this name of every group: read only */
    int32_t name_len;
    uint32_t hash;
    kc_offset_entry_t *parts; /* dense; order changes on removal; from the map's pool */
    uint32_t nparts, parts_cap;
    kc_offsets_index_t index; /* empty while nparts is small enough to scan */
    /* Kafka keeps a group's offsets in TimelineHashMaps (topic -> partition
     * -> offset), which list them by hash slot, then insertion: the
     * topic's insertion number in its group's table, the capacity of its
     * own partition table and the next partition insertion number. */
    uint32_t kafka_seq;
    uint32_t kafka_cap;
    uint32_t kafka_next;
} kc_offsets_topic_t;

typedef struct {
    char *id; /* owned, NUL-terminated */
    int32_t id_len;
    uint32_t hash;
    kc_offsets_topic_t *topics; /* dense; order changes on removal */
    uint32_t ntopics, topics_cap;
    kc_offsets_index_t index;
    size_t noffsets;
    uint32_t hot_topic; /* position + 1 of the topic put last, 0 = none */
    uint32_t kafka_cap;  /* capacity of Kafka's topic table of the group (see the topic's) */
    uint32_t kafka_next; /* next topic insertion number */
} kc_offsets_group_t;

typedef struct kc_offsets_pool kc_offsets_pool_t;

typedef struct {
    kc_offsets_group_t **groups; /* dense; pointers stay valid until the group is removed */
    uint32_t ngroups, groups_cap;
    kc_offsets_index_t index;
    size_t noffsets;
    kc_offsets_group_t *hot_group; /* the group put last, or NULL */
    kc_offsets_pool_t *pool;       /* partition blocks and topic names; NULL until the first put */
} kc_offsets_map_t;

void kc_offsets_map_init(kc_offsets_map_t *m);
void kc_offsets_map_deinit(kc_offsets_map_t *m);

/* The group's offsets, or NULL when it has none. */
kc_offsets_group_t *kc_offsets_map_group(const kc_offsets_map_t *m, kc_str_t group_id);
/* The topic's offsets within g, or NULL. */
kc_offsets_topic_t *kc_offsets_group_topic(const kc_offsets_group_t *g, kc_str_t topic);
/* The entry of a partition, or NULL. */
kc_offset_entry_t *kc_offsets_topic_partition(const kc_offsets_topic_t *t, int32_t partition);
/* Shortcut for the three lookups above. */
const kc_offset_entry_t *kc_offsets_map_get(const kc_offsets_map_t *m, kc_str_t group_id,
                                            kc_str_t topic, int32_t partition);

/*
 * Stores (replaces) an offset. e->metadata is borrowed and copied (its
 * length is e->metadata_len); e->partition is ignored. Returns true when the
 * partition had no offset before.
 */
bool kc_offsets_map_put(kc_offsets_map_t *m, kc_str_t group_id, kc_str_t topic,
                        int32_t partition, const kc_offset_entry_t *e);
/*
 * Removes an offset; a topic, then a group, left without offsets is removed
 * too. Returns true when there was an offset.
 */
bool kc_offsets_map_remove(kc_offsets_map_t *m, kc_str_t group_id, kc_str_t topic,
                           int32_t partition);
/* Removes every offset of a group; returns how many there were. */
size_t kc_offsets_map_remove_group(kc_offsets_map_t *m, kc_str_t group_id);

/*
 * Slot of a key in a Kafka TimelineHashMap (BaseHashTable) of capacity cap
 * (a power of two >= 2): the top bits of the key's Java hashCode times the
 * 64-bit golden ratio. A table starts with 2 slots and doubles before a put
 * that would bring it past three quarters full (counted as an addition even
 * when the put replaces); it never shrinks. The map keeps kafka_cap and the
 * insertion numbers by these rules, so callers can list a group's offsets
 * as Kafka does: by slot, then insertion number.
 */
uint32_t kc_offsets_kafka_slot(int32_t java_hash, uint32_t cap);

/* Memory held by the map (for logs and tests). */
typedef struct {
    size_t pool_bytes;     /* chunks reserved by the pool */
    size_t pool_free_bytes; /* of which in freed blocks, waiting for reuse */
    uint32_t topic_names;  /* distinct topic names held */
} kc_offsets_map_stats_t;
void kc_offsets_map_stats(const kc_offsets_map_t *m, kc_offsets_map_stats_t *out);

/* The committed offsets of a coordinator (offsets.c), borrowed: what its
 * unit tests compare between a live coordinator and a replayed one. */
struct kc_coord;
const kc_offsets_map_t *kc_offsets_map_of(struct kc_coord *c);

#endif
