/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private layout of the coordinator object and of classic groups, shared by
 * coord.c (lifecycle, results, timers, replay dispatch) and classic.c (the
 * classic group protocol). Not part of the contract with the offsets module,
 * which uses internal.h only.
 */
#ifndef KC_COORD_PRIV_H
#define KC_COORD_PRIV_H

#include "internal.h"

/* ---- a small string-keyed hash map (chained) ------------------------- */

typedef struct kc_smap_entry {
    char *key;      /* NUL-terminated copy; may hold NUL bytes (a Kafka string can) */
    size_t key_len; /* the whole key's length */
    void *val;
    struct kc_smap_entry *next;
} kc_smap_entry_t;

typedef struct {
    kc_smap_entry_t **slots;
    size_t nslots;
    size_t count;
} kc_smap_t;

void kc_smap_init(kc_smap_t *m);
/* Frees the entries and keys, not the values. */
void kc_smap_deinit(kc_smap_t *m);
void *kc_smap_get(const kc_smap_t *m, const char *key, size_t len);
/* Inserts or replaces; the key is copied. */
void kc_smap_put(kc_smap_t *m, const char *key, size_t len, void *val);
/* Removes and returns the value (NULL if absent). */
void *kc_smap_del(kc_smap_t *m, const char *key, size_t len);
/* Calls fn for every entry; fn must not modify the map. */
void kc_smap_foreach(const kc_smap_t *m, void (*fn)(void *ctx, const char *key, void *val),
                     void *ctx);

/* A group's instance-id index (group instance id -> member): member m's
 * instance id field *slot becomes a copy of instance_id (NULL: dynamic),
 * and its entry moves with it; the old entry is removed only while it
 * points at m (another member may hold that id since). Kafka's
 * StaticMembers map, kept by the live path and replay alike. */
void kc_instance_index_set(kc_smap_t *index, void *m, char **slot, const char *instance_id);

/* ---- timers ----------------------------------------------------------- */

typedef struct kc_timer {
    char *key;
    int64_t deadline_ms;
    uint64_t seq;       /* insertion order; ties fire in scheduling order */
    size_t heap_index;
    kc_timer_fn fn;
    /* Arguments for the classic-group timers (memory-only). */
    char *group_id;      /* NUL-terminated, but may hold NUL bytes: */
    size_t group_id_len; /* its length */
    char *member_id;
    int32_t arg1, arg2;
} kc_timer_t;

/* Schedules a timer carrying a group id (every byte of it; ptr NULL: none),
 * member id (may be NULL) and two integers; replaces an existing timer of
 * the same key. */
void kc_timer_schedule_args(kc_coord_t *c, const char *key, int64_t deadline_ms, kc_timer_fn fn,
                            kc_str_t group_id, const char *member_id, int32_t arg1,
                            int32_t arg2);
/* The timer being fired (valid inside a kc_timer_fn only). */
const kc_timer_t *kc_timer_current(const kc_coord_t *c);

/* ---- the coordinator -------------------------------------------------- */

struct kc_coord {
    kc_coord_config_t cfg;
    kc_topic_view_t topics;
    bool loaded;
    kc_smap_t groups;     /* group id -> kc_group_t * of any type (groups.h) */
    /* Kafka keeps the groups of each __consumer_offsets partition in a
     * TimelineHashMap and ListGroups walks the partitions, then each table,
     * in hash order; these mirror those tables (memory-only, reset on
     * unload): capacity (0 = the initial 2) and size per partition, and an
     * insertion counter. */
    uint32_t *groups_table_cap;  /* cfg.offsets_topic_num_partitions entries */
    uint32_t *groups_table_size;
    uint64_t groups_table_seq;
    void *offsets;        /* offsets module state */
    /* timers */
    kc_smap_t timers;     /* key -> kc_timer_t * */
    kc_timer_t **heap;
    size_t nheap, heap_cap;
    uint64_t timer_seq;
    const kc_timer_t *firing;
    /* member id generation (UUID v4 from a seeded generator) */
    uint64_t rng;
    /* Versions of the topic metadata, standing for Kafka's metadata image
     * version: topics_version grows with every topic creation, deletion and
     * partition change (consumer groups cache their metadata hash under
     * it) and is raised
     * past the versions of replayed regex records at load;
     * new_topics_version is the version of the last creation (Kafka's
     * lastMetadataImageWithNewTopics). Memory-only. */
    int64_t topics_version;
    int64_t new_topics_version;
    kc_coord_event_fn event_fn; /* optional sink (kc_coord_set_event_sink) */
    void *event_arg;
    /* the topology-description barrier (KIP-1331); NULL = no store configured */
    struct kc_topology_desc *topology_desc;
    /* group id -> kc_coord_config_t *: cfg with the group's dynamic configs
     * applied (kc_coord_set_group_overrides); not group state, so kept
     * across unload. */
    kc_smap_t group_cfgs;
};

/* The settings of group group_id: cfg with the group's dynamic config
 * overrides applied, or &c->cfg when it has none. */
const kc_coord_config_t *kc_coord_group_cfg(const kc_coord_t *c, const char *group_id);

/* Calls the event sink, if any and once loaded. Strings are borrowed. */
void kc_coord_emit(kc_coord_t *c, kc_coord_event_type_t type, const char *group_id,
                   const char *member_id, const char *reason, int32_t generation_id,
                   int64_t duration_ms, int64_t now_ms);
/* A static member fenced by a new member of the same group instance id:
 * a member_removed event of old_member_id whose reason names the member
 * that replaced it (Kafka fences the old member with FENCED_INSTANCE_ID). */
void kc_coord_emit_static_replaced(kc_coord_t *c, const char *group_id, const char *old_member_id,
                                   const char *new_member_id, int32_t generation_id,
                                   int64_t now_ms);

/* Writes a random UUID in Kafka's text form (36 chars + NUL) into out. */
void kc_coord_random_uuid(kc_coord_t *c, char out[37]);
/* Writes a random id as Kafka's Uuid.randomUuid().toString() gives it (22
 * characters of URL-safe base64 + NUL, never one with a '-' nor the
 * reserved ids 0 and 1) into out. */
void kc_coord_random_kafka_uuid(kc_coord_t *c, char out[23]);

/* classic.c entry points used by coord.c */
int kc_classic_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len, const void *msg);
void kc_classic_loaded(kc_coord_t *c, int64_t now_ms);
/* Answers every parked request with error (NOT_COORDINATOR) and frees all groups. */
void kc_classic_unload_all(kc_coord_t *c, kc_result_t *res);

/* consumer.c entry points used by coord.c: replay of record types 3-8,
 * timers after load, and freeing every consumer group. */
int kc_consumer_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                       size_t value_len, const void *msg);
void kc_consumer_loaded(kc_coord_t *c, int64_t now_ms);
void kc_consumer_unload_all(kc_coord_t *c);
/* Introspection (kc_coord_inspect_groups/_group) of consumer groups:
 * every one, or the one of that id (false when none). */
void kc_consumer_inspect_all(kc_coord_t *c, kc_group_view_fn fn, void *arg);
bool kc_consumer_inspect_one(kc_coord_t *c, kc_str_t group_id, kc_group_view_fn fn, void *arg);

/* streams.c entry points used by coord.c: replay of record types 17, 19-23,
 * timers after load, and freeing every streams group. */
int kc_streams_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len, const void *msg);
void kc_streams_loaded(kc_coord_t *c, int64_t now_ms);
void kc_streams_unload_all(kc_coord_t *c);

#endif
