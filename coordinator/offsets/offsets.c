/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Committed offsets, as Kafka's OffsetMetadataManager plus the parts of
 * KafkaApis that check topics before the coordinator sees a request:
 * OffsetCommit v0-10, OffsetFetch v0-10 (batched from v8), OffsetDelete v0,
 * the periodic retention check ("offsets-expiration"), topic deletion, and
 * the replay of OffsetCommit records (types 0 and 1, tombstones), and
 * TxnOffsetCommit's pending transactional offsets (kcoord's record type
 * 100), which the end of their transaction commits or drops.
 *
 * Every change of state goes through a record: a handler encodes the record,
 * adds it to the result and replays it at once, so the in-memory state after
 * a handler is exactly the state a restart rebuilds from the same records.
 * Group rules belong to the group modules (internal.h).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kc_log.h"
#include "offsets_map.h"

#define LOG "offsets"
#define EXPIRATION_TIMER "offsets-expiration"

/* The offsets one producer's open transaction committed
 * (OffsetMetadataManager.pendingTransactionalOffsets). superseded holds
 * the partitions of map a non-transactional commit was written for after
 * the transactional one (its entries' values unused): at the commit marker
 * Kafka keeps whichever record came later in the log, so those stay as
 * committed. Kafka compares the record offsets themselves; an offset that
 * an earlier marker committed counts here from that marker's record, so
 * two producers' transactions holding the same partition at once compare
 * by their markers, not by their TxnOffsetCommits. */
typedef struct {
    int64_t producer_id;
    kc_offsets_map_t map;
    kc_offsets_map_t superseded;
} pending_producer_t;

typedef struct {
    kc_offsets_map_t map;
    pending_producer_t **pending; /* few: one per producer with an open transaction */
    size_t npending, pending_cap;
} kc_offsets_t;

static kc_offsets_t *state_of(kc_coord_t *c)
{
    return (kc_offsets_t *)kc_coord_offsets_state(c);
}

void *kc_offsets_new(void)
{
    kc_offsets_t *o = kc_xcalloc(1, sizeof(*o));
    kc_offsets_map_init(&o->map);
    return o;
}

const kc_offsets_map_t *kc_offsets_map_of(struct kc_coord *c) { return &state_of(c)->map; }

void kc_offsets_free(void *offsets)
{
    kc_offsets_t *o = offsets;
    if (o == NULL)
        return;
    kc_offsets_map_deinit(&o->map);
    for (size_t i = 0; i < o->npending; i++) {
        kc_offsets_map_deinit(&o->pending[i]->map);
        kc_offsets_map_deinit(&o->pending[i]->superseded);
        free(o->pending[i]);
    }
    free(o->pending);
    free(o);
}

static kc_str_t str_of(const char *p, int32_t len)
{
    return (kc_str_t){p, len};
}

static bool uuid_is_zero(kc_uuid_t u)
{
    static const kc_uuid_t zero;
    return memcmp(u.b, zero.b, sizeof(u.b)) == 0;
}

static bool uuid_eq(kc_uuid_t a, kc_uuid_t b)
{
    return memcmp(a.b, b.b, sizeof(a.b)) == 0;
}

static bool same_str(kc_str_t a, kc_str_t b)
{
    int32_t al = a.len < 0 ? 0 : a.len, bl = b.len < 0 ? 0 : b.len;
    return al == bl && (al == 0 || memcmp(a.ptr, b.ptr, (size_t)al) == 0);
}

/*
 * Length of a string as Java's String.length() counts it (UTF-16 code
 * units), which is what Kafka compares with offset.metadata.max.bytes.
 */
static int64_t java_length(kc_str_t s)
{
    int64_t n = 0;
    for (int32_t i = 0; i < s.len; i++) {
        uint8_t b = (uint8_t)s.ptr[i];
        if ((b & 0xc0) != 0x80)
            n++;
        if (b >= 0xf0 && b <= 0xf7)
            n++; /* a 4-byte sequence is a surrogate pair */
    }
    return n;
}

/* Kafka's isMetadataInvalid: non-null metadata longer than
 * offset.metadata.max.bytes (in Java chars). */
static bool metadata_too_large(kc_str_t meta, int32_t max_bytes)
{
    return meta.len >= 0 && java_length(meta) > max_bytes;
}

/* ---- records ---------------------------------------------------------- */

/* OffsetCommitValue versions Kafka writes (GroupCoordinatorRecordHelpers):
 * 1 for an offset with an explicit expire timestamp, else 4 (flexible, the
 * topic id as tagged field 0 when known). */
#define VALUE_VERSION_EXPIRING 1
#define VALUE_VERSION 4

/* Decodes a value of record type 0 (version 0 only) or 1 (versions 0-4). */
static int decode_value(int16_t type, const uint8_t *value, size_t value_len, kc_offset_entry_t *e)
{
    kc_reader_t r;
    kc_reader_init(&r, value, value_len);
    int16_t version = kc_read_int16(&r);
    if (r.err || version < 0 || version > KC_OFFSET_COMMIT_VALUE_MAX_VERSION ||
        (type == KC_RECORD_LEGACY_OFFSET_COMMIT && version != 0))
        return KC_EINVAL;
    bool flexible = version >= 4;
    memset(e, 0, sizeof(*e));
    e->leader_epoch = -1;
    e->expire_timestamp_ms = -1;
    e->offset = kc_read_int64(&r);
    if (version >= 3)
        e->leader_epoch = kc_read_int32(&r);
    kc_str_t meta = kc_read_str(&r, flexible, false);
    e->commit_timestamp_ms = kc_read_int64(&r);
    if (version == 1)
        e->expire_timestamp_ms = kc_read_int64(&r);
    if (flexible) {
        uint32_t ntags = kc_read_uvarint(&r);
        for (uint32_t i = 0; i < ntags && !r.err; i++) {
            uint32_t tag = kc_read_uvarint(&r);
            uint32_t size = kc_read_uvarint(&r);
            if (tag == 0 && size == 16) {
                e->topic_id = kc_read_uuid(&r);
            } else {
                kc_read_raw(&r, size);
            }
        }
    }
    if (r.err)
        return KC_EINVAL;
    e->metadata = (char *)meta.ptr; /* borrowed until the map copies it */
    e->metadata_len = meta.len < 0 ? 0 : meta.len;
    return 0;
}

/* The pending offsets of a producer, created when create is set; NULL otherwise. */
static pending_producer_t *pending_of(kc_offsets_t *o, int64_t producer_id, bool create)
{
    for (size_t i = 0; i < o->npending; i++)
        if (o->pending[i]->producer_id == producer_id)
            return o->pending[i];
    if (!create)
        return NULL;
    if (o->npending == o->pending_cap) {
        o->pending_cap = o->pending_cap ? o->pending_cap * 2 : 4;
        o->pending = kc_xrealloc(o->pending, o->pending_cap * sizeof(*o->pending));
    }
    pending_producer_t *p = kc_xcalloc(1, sizeof(*p));
    p->producer_id = producer_id;
    kc_offsets_map_init(&p->map);
    kc_offsets_map_init(&p->superseded);
    o->pending[o->npending++] = p;
    return p;
}

static void pending_drop_if_empty(kc_offsets_t *o, pending_producer_t *p)
{
    if (p->map.noffsets > 0)
        return;
    for (size_t i = 0; i < o->npending; i++) {
        if (o->pending[i] == p) {
            o->pending[i] = o->pending[--o->npending];
            break;
        }
    }
    kc_offsets_map_deinit(&p->map);
    kc_offsets_map_deinit(&p->superseded);
    free(p);
}

/* A non-transactional commit of the partition (e) was replayed: the
 * pending offsets of it are superseded by it. Its tombstone (e NULL) drops
 * them, as Kafka's replay of one does (the writer tombstones their records
 * too, tombstones_add). */
static void pending_note_plain_commit(kc_offsets_t *o, kc_str_t group, kc_str_t topic,
                                      int32_t partition, const kc_offset_entry_t *e)
{
    for (size_t i = o->npending; i-- > 0;) {
        pending_producer_t *p = o->pending[i];
        if (!kc_offsets_map_get(&p->map, group, topic, partition))
            continue;
        if (e) {
            kc_offsets_map_put(&p->superseded, group, topic, partition, e);
        } else {
            kc_offsets_map_remove(&p->map, group, topic, partition);
            kc_offsets_map_remove(&p->superseded, group, topic, partition);
            pending_drop_if_empty(o, p);
        }
    }
}

int kc_offsets_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len, const void *msg)
{
    (void)msg; /* read from the bytes: their versions decide the fields */
    kc_reader_t r;
    kc_reader_init(&r, key, key_len);
    int16_t type = kc_read_int16(&r);
    kc_str_t group = kc_read_str(&r, false, false);
    kc_str_t topic = kc_read_str(&r, false, false);
    int32_t partition = kc_read_int32(&r);
    int64_t producer_id = type == KC_RECORD_TXN_OFFSET_COMMIT ? kc_read_int64(&r) : -1;
    if (r.err || (type != KC_RECORD_LEGACY_OFFSET_COMMIT && type != KC_RECORD_OFFSET_COMMIT &&
                  type != KC_RECORD_TXN_OFFSET_COMMIT))
        return KC_EINVAL;
    kc_offsets_t *o = state_of(c);
    pending_producer_t *pending = NULL;
    if (type == KC_RECORD_TXN_OFFSET_COMMIT) {
        pending = pending_of(o, producer_id, value != NULL);
        if (pending == NULL)
            return 0;
    }
    kc_offsets_map_t *map = pending ? &pending->map : &o->map;
    if (value == NULL) {
        kc_offsets_map_remove(map, group, topic, partition);
        if (pending) {
            kc_offsets_map_remove(&pending->superseded, group, topic, partition);
            pending_drop_if_empty(o, pending);
        } else {
            pending_note_plain_commit(o, group, topic, partition, NULL);
        }
        return 0;
    }
    kc_offset_entry_t e;
    if (decode_value(type, value, value_len, &e) != 0)
        return KC_EINVAL;
    /* The later record of the partition wins at the marker. */
    if (pending)
        kc_offsets_map_remove(&pending->superseded, group, topic, partition);
    else
        pending_note_plain_commit(o, group, topic, partition, &e);
    /* Offsets committed without group management live in a "simple" group:
     * an Empty classic group without protocol type, created on replay
     * unless the offsets belong to a consumer or streams group (Kafka's
     * OffsetMetadataManager.replay creates one only when no group has the
     * id). */
    if (kc_group_get(c, group) == NULL)
        kc_classic_group_find_or_create(c, group);
    kc_offsets_map_put(map, group, topic, partition, &e);
    return 0;
}

/* Writes the OffsetCommit record of the entry (tombstone when e is NULL)
 * into res and applies it (kc_record_write_replay). */
/* The OffsetCommitValue of an entry, and the version to write it at. */
static int16_t value_of(const kc_offset_entry_t *e, kc_offset_commit_value_t *v)
{
    kc_offset_commit_value_init(v);
    v->offset = e->offset;
    v->leader_epoch = e->leader_epoch;
    v->metadata = str_of(e->metadata ? e->metadata : "", e->metadata_len);
    v->commit_timestamp = e->commit_timestamp_ms;
    v->expire_timestamp = e->expire_timestamp_ms;
    v->topic_id = e->topic_id;
    return e->expire_timestamp_ms != -1 ? VALUE_VERSION_EXPIRING : VALUE_VERSION;
}

static void emit(kc_coord_t *c, kc_result_t *res, kc_str_t group, kc_str_t topic,
                 int32_t partition, const kc_offset_entry_t *e)
{
    kc_record_key_t key = {.group_id = group, .topic = topic, .partition = partition};
    kc_offset_commit_value_t v;
    int16_t version = e ? value_of(e, &v) : VALUE_VERSION;
    kc_record_write_replay(c, res, KC_RECORD_OFFSET_COMMIT, &key, version, e ? &v : NULL);
}

/* Tombstones written into res during a walk of the map and applied to it
 * only after (applying changes the map being walked); nothing else writes
 * into res in between. */
typedef struct {
    const kc_offsets_t *o;
    kc_result_t *res;
    size_t first; /* res->nrecords when the walk began */
    size_t n;     /* tombstones written */
} tombstones_t;

static tombstones_t tombstones_begin(kc_coord_t *c, kc_result_t *res)
{
    return (tombstones_t){state_of(c), res, res->nrecords, 0};
}

/* The tombstone of a committed offset, and of every transaction's pending
 * offset of the partition, which Kafka's replay of the tombstone drops
 * (OffsetMetadataManager.replay): written, so that a load without the
 * tombstone (compacted away with the offset) drops them too. */
static void tombstones_add(tombstones_t *t, kc_str_t group, kc_str_t topic, int32_t partition)
{
    kc_record_key_t key = {.group_id = group, .topic = topic, .partition = partition};
    if (kc_record_write(t->res, KC_RECORD_OFFSET_COMMIT, &key, VALUE_VERSION, NULL) == 0)
        t->n++;
    for (size_t i = 0; i < t->o->npending; i++) {
        if (!kc_offsets_map_get(&t->o->pending[i]->map, group, topic, partition))
            continue;
        key.producer_id = t->o->pending[i]->producer_id;
        if (kc_record_write(t->res, KC_RECORD_TXN_OFFSET_COMMIT, &key, VALUE_VERSION, NULL) == 0)
            t->n++;
    }
}

/* Applies every tombstone of t. */
static void tombstones_flush(kc_coord_t *c, tombstones_t *t)
{
    assert(t->first + t->n == t->res->nrecords);
    for (size_t i = t->first; i < t->first + t->n; i++) {
        const kc_record_t *r = &t->res->records[i];
        kc_offsets_replay(c, r->key.data, r->key.len, NULL, 0, NULL);
    }
}

static void tombstone_group(const kc_offsets_group_t *g, tombstones_t *t)
{
    kc_str_t gid = str_of(g->id, g->id_len);
    for (uint32_t i = 0; i < g->ntopics; i++) {
        const kc_offsets_topic_t *tp = &g->topics[i];
        for (uint32_t j = 0; j < tp->nparts; j++)
            tombstones_add(t, gid, str_of(tp->name, tp->name_len), tp->parts[j].partition);
    }
}

bool kc_offsets_group_has_offsets(kc_coord_t *c, kc_str_t group_id)
{
    return kc_offsets_map_group(&state_of(c)->map, group_id) != NULL;
}

static void pending_delete_group(kc_coord_t *c, kc_str_t group_id, kc_result_t *res);

void kc_offsets_delete_group(kc_coord_t *c, kc_str_t group_id, kc_result_t *res)
{
    pending_delete_group(c, group_id, res);
    const kc_offsets_group_t *g = kc_offsets_map_group(&state_of(c)->map, group_id);
    if (g == NULL)
        return;
    tombstones_t t = tombstones_begin(c, res);
    tombstone_group(g, &t);
    tombstones_flush(c, &t);
}

void kc_coord_topic_deleted(kc_coord_t *c, kc_str_t topic, int64_t now_ms, kc_result_t *res)
{
    (void)now_ms;
    kc_coord_topic_updated(c, topic);
    kc_offsets_map_t *m = &state_of(c)->map;
    tombstones_t t = tombstones_begin(c, res);
    for (uint32_t i = 0; i < m->ngroups; i++) {
        const kc_offsets_group_t *g = m->groups[i];
        const kc_offsets_topic_t *tp = kc_offsets_group_topic(g, topic);
        if (tp == NULL)
            continue;
        for (uint32_t j = 0; j < tp->nparts; j++)
            tombstones_add(&t, str_of(g->id, g->id_len), topic, tp->parts[j].partition);
    }
    if (t.n > 0)
        kc_log_info(LOG, "topic %.*s deleted: removing %zu committed offsets", (int)topic.len,
                    topic.ptr, t.n);
    tombstones_flush(c, &t);
}

/* ---- retention ---------------------------------------------------------- */

static bool pending_has(kc_coord_t *c, kc_str_t group, kc_str_t topic, int32_t partition);

/* Whether a transaction holds a pending offset of the group. */
static bool pending_has_group(kc_coord_t *c, kc_str_t group)
{
    const kc_offsets_t *o = state_of(c);
    for (size_t i = 0; i < o->npending; i++)
        if (kc_offsets_map_group(&o->pending[i]->map, group))
            return true;
    return false;
}

/*
 * Collects the group's expired offsets (OffsetMetadataManager
 * .cleanupExpiredOffsets); returns true when none would be left. A
 * consumer group's offsets expire retention after their commit (its
 * OffsetExpirationCondition), topics it subscribes to excepted.
 */
static bool collect_expired(kc_coord_t *c, const kc_group_t *grp, const kc_offsets_group_t *g,
                            int64_t now_ms, tombstones_t *t)
{
    if (g == NULL)
        return true;
    int64_t base = -1;
    if (!grp->ops->offsets_expire(grp, &base))
        return false;
    int64_t retention = kc_coord_config(c)->offsets_retention_ms;
    bool all = true;
    kc_str_t gid = str_of(g->id, g->id_len);
    for (uint32_t i = 0; i < g->ntopics; i++) {
        const kc_offsets_topic_t *tp = &g->topics[i];
        kc_str_t tname = str_of(tp->name, tp->name_len);
        if (grp->ops->is_subscribed_to_topic(grp, tname)) {
            all = false;
            continue;
        }
        for (uint32_t j = 0; j < tp->nparts; j++) {
            const kc_offset_entry_t *e = &tp->parts[j];
            bool expired;
            if (e->expire_timestamp_ms != -1)
                expired = now_ms >= e->expire_timestamp_ms;
            else
                /* Wraps on overflow (a hostile record's timestamp), as Java's long does. */
                expired = (int64_t)((uint64_t)now_ms -
                                    (uint64_t)(base >= 0 ? base : e->commit_timestamp_ms)) >=
                          retention;
            /* Not while a transaction holds a pending offset of the partition. */
            if (expired && !pending_has(c, gid, tname, e->partition))
                tombstones_add(t, gid, tname, e->partition);
            else
                all = false;
        }
    }
    /* Nor is the group deleted while a transaction holds offsets of it. */
    return all && !pending_has_group(c, gid);
}

/* The periodic cleanup (GroupCoordinatorShard.cleanupGroupMetadata). */
static void expiration_fired(kc_coord_t *c, const char *key, int64_t now_ms, kc_result_t *res)
{
    (void)key;
    kc_offsets_map_t *m = &state_of(c)->map;
    size_t total = 0;
    for (kc_group_type_t type = KC_GROUP_CLASSIC; type <= KC_GROUP_STREAMS; type++) {
        size_t n;
        kc_group_t **gs = kc_groups_list(c, type, &n);
        for (size_t i = 0; i < n; i++) {
            kc_group_t *grp = gs[i];
            kc_str_t id = grp->ops->id(grp);
            tombstones_t t = tombstones_begin(c, res);
            bool all = collect_expired(c, grp, kc_offsets_map_group(m, id), now_ms, &t);
            if (t.n > 0) {
                kc_log_info(LOG, "group %.*s: expired %zu committed offsets%s", (int)id.len,
                            id.ptr, t.n, all ? ", none left" : "");
                total += t.n;
            }
            tombstones_flush(c, &t);
            if (all)
                grp->ops->maybe_delete_expired(c, grp, now_ms, res);
        }
        free(gs);
    }
    if (total > 0)
        kc_log_info(LOG, "retention check removed %zu offsets", total);
    kc_timer_schedule(c, EXPIRATION_TIMER,
                      now_ms + kc_coord_config(c)->offsets_retention_check_interval_ms,
                      expiration_fired);
}

void kc_offsets_loaded(kc_coord_t *c, int64_t now_ms)
{
    kc_timer_schedule(c, EXPIRATION_TIMER,
                      now_ms + kc_coord_config(c)->offsets_retention_check_interval_ms,
                      expiration_fired);
}

/* ---- topics as the broker knows them ---------------------------------- */

/* Existence, partition count (-1 = not checked) and id of a topic by name. */
static bool topic_by_name(kc_coord_t *c, kc_str_t name, int32_t *partitions, kc_uuid_t *id)
{
    const kc_topic_view_t *v = kc_coord_topic_view(c);
    memset(id, 0, sizeof(*id));
    *partitions = -1;
    if (v == NULL)
        return false;
    if (v->topic_lookup != NULL)
        return v->topic_lookup(v->ctx, name, partitions, id);
    return v->topic_exists != NULL && v->topic_exists(v->ctx, name);
}

static bool topic_by_id(kc_coord_t *c, kc_uuid_t id, kc_str_t *name)
{
    const kc_topic_view_t *v = kc_coord_topic_view(c);
    if (v == NULL || v->topic_id_to_name == NULL || uuid_is_zero(id))
        return false;
    return v->topic_id_to_name(v->ctx, id, name);
}

/* ---- OffsetCommit --------------------------------------------------------- */

typedef __typeof__(((kc_offset_commit_response_t *)0)->topics.items[0]) commit_rtopic_t;
typedef __typeof__(((commit_rtopic_t *)0)->partitions.items[0]) commit_rpart_t;

/* One partition of the response, in the order Kafka's response builder adds them. */
typedef struct {
    int32_t topic;     /* index in the response topic list */
    int32_t partition;
    int16_t error;
    bool coordinator;  /* answered by the coordinator (not by the topic checks) */
} commit_entry_t;

typedef struct {
    kc_str_t name;
    kc_uuid_t id;
} commit_key_t;

/* One OffsetCommit on its way through the steps below: KafkaApis' checks
 * of each topic and partition, then OffsetMetadataManager.commitOffset for
 * the partitions they leave. */
typedef struct {
    kc_coord_t *c;
    const kc_request_ctx_t *ctx;
    const kc_offset_commit_request_t *req;
    kc_result_t *res;
    kc_arena_t arena;         /* the arrays below and the response's */
    int32_t ntopics;
    commit_key_t *keys;       /* each request topic's name and id */
    commit_entry_t *entries;  /* each request partition, in request order */
    size_t n;
    size_t ncoord;            /* the entries left for the coordinator */
} offset_commit_t;

/*
 * Builds the response as KafkaApis does: partitions failing the topic
 * checks first (one response topic per topic key), then the coordinator's
 * answer merged in. When append_failed is set, every coordinator partition
 * carries the write error (the body for a failed commit). Arrays come from
 * the commit's arena.
 */
static void fill_commit_response(kc_offset_commit_response_t *out, offset_commit_t *oc,
                                 bool append_failed)
{
    bool by_id = oc->ctx->api_version >= 10;
    const commit_key_t *keys = oc->keys;
    const commit_entry_t *entries = oc->entries;
    int32_t nkeys = oc->ntopics;
    size_t nentries = oc->n;
    kc_arena_t *arena = &oc->arena;
    int32_t *topic_of_key = kc_arena_alloc(arena, sizeof(int32_t) * (size_t)(nkeys + 1));
    commit_key_t *rkeys = kc_arena_alloc(arena, sizeof(commit_key_t) * (size_t)(nkeys * 2 + 1));
    int32_t *rcount = kc_arena_alloc(arena, sizeof(int32_t) * (size_t)(nkeys * 2 + 1));
    int32_t *etopic = kc_arena_alloc(arena, sizeof(int32_t) * (nentries + 1));
    int32_t nr = 0, nerr_topics = 0;
    for (int32_t k = 0; k < nkeys; k++)
        topic_of_key[k] = -1;

    /* Phase 1: topic check failures, grouped by topic key. */
    for (size_t i = 0; i < nentries; i++) {
        if (entries[i].coordinator)
            continue;
        const commit_key_t *k = &keys[entries[i].topic];
        int32_t t = -1;
        for (int32_t j = 0; j < nr && t < 0; j++)
            if (by_id ? uuid_eq(rkeys[j].id, k->id) : same_str(rkeys[j].name, k->name))
                t = j;
        if (t < 0) {
            t = nr++;
            rkeys[t] = *k;
        }
        etopic[i] = t;
        rcount[t]++;
    }
    nerr_topics = nr;
    /* Phase 2: the coordinator's topics (one per request topic), merged by key. */
    for (size_t i = 0; i < nentries; i++) {
        if (!entries[i].coordinator)
            continue;
        int32_t req_topic = entries[i].topic;
        if (topic_of_key[req_topic] < 0) {
            const commit_key_t *k = &keys[req_topic];
            int32_t t = -1;
            for (int32_t j = 0; j < nerr_topics && t < 0; j++)
                if (by_id ? uuid_eq(rkeys[j].id, k->id) : same_str(rkeys[j].name, k->name))
                    t = j;
            if (t < 0) {
                t = nr++;
                rkeys[t] = *k;
            }
            topic_of_key[req_topic] = t;
        }
        etopic[i] = topic_of_key[req_topic];
        rcount[etopic[i]]++;
    }

    kc_offset_commit_response_t resp;
    kc_offset_commit_response_init(&resp);
    resp.topics.count = nr;
    resp.topics.items = kc_arena_alloc(arena, sizeof(commit_rtopic_t) * (size_t)(nr + 1));
    for (int32_t t = 0; t < nr; t++) {
        commit_rtopic_t *rt = &resp.topics.items[t];
        rt->name = rkeys[t].name;
        rt->topic_id = rkeys[t].id;
        rt->partitions.items = kc_arena_alloc(arena, sizeof(commit_rpart_t) * (size_t)rcount[t]);
        rt->partitions.count = 0;
    }
    /* Error partitions precede coordinator ones inside a merged topic. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nentries; i++) {
            if (entries[i].coordinator != (pass == 1))
                continue;
            commit_rtopic_t *rt = &resp.topics.items[etopic[i]];
            commit_rpart_t *rp = &rt->partitions.items[rt->partitions.count++];
            rp->partition_index = entries[i].partition;
            rp->error_code = (append_failed && entries[i].coordinator) ? KC_COORD_ERR_WRITE_FAILED
                                                                       : entries[i].error;
        }
    }
    *out = resp;
}

/* KafkaApis.handleOffsetCommitRequest's check of request topic i: from
 * v10 known by id, then readable by the principal; before, readable first
 * (TOPIC_AUTHORIZATION_FAILED before any other check), then known by name.
 * Sets the topic's key and *npart (its partition count, -1 when not
 * checked); returns the error of all its partitions. */
static int16_t commit_check_topic(offset_commit_t *oc, int32_t i, int32_t *npart)
{
    const kc_offset_commit_request_topic_t *tp = &oc->req->topics.items[i];
    commit_key_t *key = &oc->keys[i];
    int16_t topic_err = KC_ERR_NONE;
    *npart = -1;
    if (oc->ctx->api_version >= 10) {
        key->id = tp->topic_id;
        key->name = str_of("", 0);
        kc_uuid_t ignored;
        if (!topic_by_id(oc->c, tp->topic_id, &key->name) ||
            !topic_by_name(oc->c, key->name, npart, &ignored))
            topic_err = KC_ERR_UNKNOWN_TOPIC_ID;
        else if (!kc_request_authorized(oc->ctx, KC_OP_READ, KC_RES_TOPIC, key->name))
            topic_err = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
    } else {
        key->name = tp->name;
        if (!kc_request_authorized(oc->ctx, KC_OP_READ, KC_RES_TOPIC, tp->name))
            topic_err = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        else if (!topic_by_name(oc->c, tp->name, npart, &key->id))
            topic_err = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    return topic_err;
}

/* KafkaApis.handleOffsetCommitRequest: each partition of each topic gets
 * its topic's error, or UNKNOWN_TOPIC_OR_PARTITION beyond the topic's
 * partitions; the others go to the coordinator. */
static void commit_check_topics(offset_commit_t *oc)
{
    const kc_offset_commit_request_t *req = oc->req;
    size_t nparts = 0;
    for (int32_t i = 0; i < oc->ntopics; i++)
        nparts += (size_t)(req->topics.items[i].partitions.count < 0
                               ? 0
                               : req->topics.items[i].partitions.count);
    oc->keys = kc_arena_alloc(&oc->arena, sizeof(*oc->keys) * (size_t)(oc->ntopics + 1));
    oc->entries = kc_arena_alloc(&oc->arena, sizeof(*oc->entries) * (nparts + 1));
    for (int32_t i = 0; i < oc->ntopics; i++) {
        const kc_offset_commit_request_topic_t *tp = &req->topics.items[i];
        int32_t npart;
        int16_t topic_err = commit_check_topic(oc, i, &npart);
        for (int32_t j = 0; j < tp->partitions.count; j++) {
            int32_t p = tp->partitions.items[j].partition_index;
            commit_entry_t *e = &oc->entries[oc->n++];
            e->topic = i;
            e->partition = p;
            e->error = topic_err;
            if (e->error == KC_ERR_NONE && npart >= 0 && (p < 0 || p >= npart))
                e->error = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
            e->coordinator = e->error == KC_ERR_NONE;
            oc->ncoord += e->coordinator;
        }
    }
}

/* OffsetMetadataManager.validateOffsetCommit: the group, a simple group
 * created for a commit from outside group management, then the group
 * type's own check of the member and generation (for consumer and streams
 * groups the member epoch stands in the generation's place). */
static int16_t commit_validate_group(offset_commit_t *oc, kc_commit_validator_t *v)
{
    const kc_offset_commit_request_t *req = oc->req;
    int16_t version = oc->ctx->api_version;
    if (!kc_coord_is_loaded(oc->c))
        return KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    kc_group_t *g = kc_group_get(oc->c, req->group_id);
    if (g == NULL) {
        if (req->generation_id_or_member_epoch >= 0)
            return version >= 9 ? KC_ERR_GROUP_ID_NOT_FOUND : KC_ERR_ILLEGAL_GENERATION;
        kc_log_info(LOG, "[GroupId %.*s] Creating a simple consumer group via manual offset commit.",
                    (int)req->group_id.len, req->group_id.ptr);
        g = (kc_group_t *)kc_classic_group_find_or_create(oc->c, req->group_id);
        if (g == NULL) /* a null group id: no group to check */
            return KC_ERR_NONE;
    }
    kc_offset_commit_args_t a = {
        req->member_id.len < 0 ? str_of("", 0) : req->member_id, req->group_instance_id,
        req->generation_id_or_member_epoch, version, oc->ctx->now_ms};
    return g->ops->validate_offset_commit(oc->c, g, &a, v);
}

/* commitOffset's look at each partition left, before anything is written:
 * OFFSET_METADATA_TOO_LARGE, else the group's check of the partition (v,
 * KIP-1251), whose first failure is the error of the whole commit, as the
 * exception Kafka throws from it. Returns KC_ERR_NONE or that error. */
static int16_t commit_check_partitions(offset_commit_t *oc, const kc_commit_validator_t *v)
{
    const kc_offset_commit_request_t *req = oc->req;
    int32_t max_bytes = kc_coord_config(oc->c)->offset_metadata_max_bytes;
    size_t k = 0;
    for (int32_t i = 0; i < oc->ntopics; i++) {
        const kc_offset_commit_request_topic_t *tp = &req->topics.items[i];
        for (int32_t j = 0; j < tp->partitions.count; j++, k++) {
            commit_entry_t *e = &oc->entries[k];
            if (!e->coordinator)
                continue;
            const kc_offset_commit_request_partition_t *part = &tp->partitions.items[j];
            kc_str_t meta = part->committed_metadata;
            if (metadata_too_large(meta, max_bytes)) {
                e->error = KC_ERR_OFFSET_METADATA_TOO_LARGE;
                continue;
            }
            int16_t err = v->check ? v->check(v, oc->keys[i].name, oc->keys[i].id,
                                              part->partition_index)
                                   : KC_ERR_NONE;
            if (err != KC_ERR_NONE)
                return err;
        }
    }
    return KC_ERR_NONE;
}

/* commitOffset: each partition left that passed its checks gets its
 * record, expiring after the request's retention time when it has one. */
static void commit_write_offsets(offset_commit_t *oc)
{
    const kc_offset_commit_request_t *req = oc->req;
    int64_t now = oc->ctx->now_ms;
    int64_t expire = -1;
    if (req->retention_time_ms != -1) /* wraps on overflow, as Java's long does */
        expire = (int64_t)((uint64_t)now + (uint64_t)req->retention_time_ms);
    size_t k = 0;
    for (int32_t i = 0; i < oc->ntopics; i++) {
        const kc_offset_commit_request_topic_t *tp = &req->topics.items[i];
        for (int32_t j = 0; j < tp->partitions.count; j++, k++) {
            commit_entry_t *e = &oc->entries[k];
            if (!e->coordinator || e->error != KC_ERR_NONE)
                continue;
            const kc_offset_commit_request_partition_t *part = &tp->partitions.items[j];
            kc_str_t meta = part->committed_metadata;
            kc_offset_entry_t oe;
            memset(&oe, 0, sizeof(oe));
            oe.offset = part->committed_offset;
            oe.leader_epoch = part->committed_leader_epoch;
            oe.metadata = (char *)(meta.len > 0 ? meta.ptr : NULL);
            oe.metadata_len = meta.len > 0 ? meta.len : 0;
            /* v1 carried the client's commit timestamp (used when set). */
            oe.commit_timestamp_ms = part->commit_timestamp != -1 ? part->commit_timestamp : now;
            oe.expire_timestamp_ms = expire;
            oe.topic_id = oc->keys[i].id;
            emit(oc->c, oc->res, req->group_id, oc->keys[i].name, part->partition_index, &oe);
        }
    }
}

/* The answer, with the body for a failed commit when records were written. */
static void commit_respond(offset_commit_t *oc, size_t first_record)
{
    kc_offset_commit_response_t body, error_body;
    fill_commit_response(&body, oc, false);
    bool with_records = kc_result_wrote_since(oc->res, first_record);
    if (with_records)
        fill_commit_response(&error_body, oc, true);
    kc_result_respond(oc->res, oc->ctx, &body, with_records ? &error_body : NULL);
}

void kc_coord_offset_commit(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_offset_commit_request_t *req, kc_result_t *res)
{
    offset_commit_t oc = {.c = c, .ctx = ctx, .req = req, .res = res,
                          .ntopics = req->topics.count < 0 ? 0 : req->topics.count};
    kc_arena_init(&oc.arena);
    commit_check_topics(&oc);
    size_t first_record = res->nrecords;
    /* The coordinator is only called with at least one partition left. */
    if (oc.ncoord > 0) {
        kc_commit_validator_t v = {0};
        int16_t group_err = commit_validate_group(&oc, &v);
        if (group_err == KC_ERR_NONE)
            group_err = commit_check_partitions(&oc, &v);
        if (group_err == KC_ERR_NONE) {
            commit_write_offsets(&oc);
        } else {
            for (size_t i = 0; i < oc.n; i++)
                if (oc.entries[i].coordinator)
                    oc.entries[i].error = group_err;
        }
    }
    commit_respond(&oc, first_record);
    kc_arena_deinit(&oc.arena);
}

/* ---- TxnOffsetCommit and the end of transactions -------------------------- */

typedef __typeof__(((kc_txn_offset_commit_response_t *)0)->topics.items[0]) txn_rtopic_t;
typedef __typeof__(((txn_rtopic_t *)0)->partitions.items[0]) txn_rpart_t;

/* STALE_MEMBER_EPOCH is TxnOffsetCommit v6's; older versions know
 * ILLEGAL_GENERATION, from the group's check and from a partition's alike. */
static int16_t txn_commit_error(int16_t err, int16_t version)
{
    return err == KC_ERR_STALE_MEMBER_EPOCH && version < 6 ? KC_ERR_ILLEGAL_GENERATION : err;
}

/*
 * OffsetMetadataManager.validateTransactionalOffsetCommit: a missing group
 * is created as a simple group for a commit without generation, else
 * GROUP_ID_NOT_FOUND (v6) or ILLEGAL_GENERATION; an existing one checks the
 * member as its type does for a transactional commit.
 */
static int16_t txn_validate_group(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                  const kc_txn_offset_commit_request_t *req,
                                  kc_commit_validator_t *v)
{
    int16_t version = ctx->api_version;
    kc_group_t *g = kc_group_get(c, req->group_id);
    if (g == NULL) {
        if (req->generation_id_or_member_epoch >= 0)
            return version >= 6 ? KC_ERR_GROUP_ID_NOT_FOUND : KC_ERR_ILLEGAL_GENERATION;
        g = (kc_group_t *)kc_classic_group_find_or_create(c, req->group_id);
        if (g == NULL)
            return KC_ERR_NONE;
    }
    kc_offset_commit_args_t a = {
        req->member_id.len < 0 ? str_of("", 0) : req->member_id, req->group_instance_id,
        req->generation_id_or_member_epoch, version, ctx->now_ms, true};
    return txn_commit_error(g->ops->validate_offset_commit(c, g, &a, v), version);
}

void kc_coord_txn_offset_commit(kc_coord_t *c, const kc_request_ctx_t *ctx,
                                const kc_txn_offset_commit_request_t *req, int16_t txn_error,
                                kc_result_t *res)
{
    int16_t version = ctx->api_version;
    kc_arena_t arena;
    kc_arena_init(&arena);
    int32_t ntopics = KC_MAX(req->topics.count, 0);
    kc_txn_offset_commit_response_t resp;
    kc_txn_offset_commit_response_init(&resp);
    resp.topics.items = kc_arena_alloc(&arena, sizeof(txn_rtopic_t) * (size_t)(ntopics + 1));
    resp.topics.count = ntopics;
    kc_str_t *names = kc_arena_alloc(&arena, sizeof(kc_str_t) * (size_t)(ntopics + 1));
    kc_uuid_t *ids = kc_arena_alloc(&arena, sizeof(kc_uuid_t) * (size_t)(ntopics + 1));
    size_t left = 0;
    /* KafkaApis.handleTxnOffsetCommitRequest's topic checks first. */
    for (int32_t i = 0; i < ntopics; i++) {
        const kc_txn_offset_commit_request_topic_t *tp = &req->topics.items[i];
        txn_rtopic_t *rt = &resp.topics.items[i];
        rt->name = tp->name;
        rt->topic_id = tp->topic_id;
        int32_t npart = -1;
        int16_t topic_err = KC_ERR_NONE;
        names[i] = tp->name;
        ids[i] = tp->topic_id;
        if (version >= 6) {
            names[i] = str_of("", 0);
            kc_uuid_t ignored;
            if (!topic_by_id(c, tp->topic_id, &names[i]) ||
                !topic_by_name(c, names[i], &npart, &ignored))
                topic_err = KC_ERR_UNKNOWN_TOPIC_ID;
        }
        if (topic_err == KC_ERR_NONE &&
            !kc_request_authorized(ctx, KC_OP_READ, KC_RES_TOPIC, names[i]))
            topic_err = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        else if (topic_err == KC_ERR_NONE && version < 6 &&
                 !topic_by_name(c, names[i], &npart, &ids[i]))
            topic_err = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        int32_t np = KC_MAX(tp->partitions.count, 0);
        rt->partitions.items = kc_arena_alloc(&arena, sizeof(txn_rpart_t) * (size_t)(np + 1));
        rt->partitions.count = np;
        for (int32_t j = 0; j < np; j++) {
            int32_t p = tp->partitions.items[j].partition_index;
            txn_rpart_t *rp = &rt->partitions.items[j];
            rp->partition_index = p;
            rp->error_code = topic_err;
            if (topic_err == KC_ERR_NONE && npart >= 0 && (p < 0 || p >= npart))
                rp->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
            /* -2: not answered yet, left for the coordinator. */
            if (rp->error_code == KC_ERR_NONE) {
                rp->error_code = -2;
                left++;
            }
        }
    }
    int16_t err = KC_ERR_NONE;
    kc_commit_validator_t v = {0};
    if (left > 0) {
        if (!kc_coord_is_loaded(c))
            err = KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
        else if (req->group_id.len <= 0)
            err = KC_ERR_INVALID_GROUP_ID;
        else if (txn_error != KC_ERR_NONE)
            err = txn_error;
        else
            err = txn_validate_group(c, ctx, req, &v);
    }
    if (err == KC_ERR_COORDINATOR_LOAD_IN_PROGRESS && version < 2)
        err = KC_ERR_COORDINATOR_NOT_AVAILABLE;
    int32_t max_bytes = kc_coord_config(c)->offset_metadata_max_bytes;
    /* Each partition whose metadata fits is judged first: one that does not
     * pass fails the coordinator's whole part of the request, nothing
     * written (commitTransactionalOffset throws). */
    for (int32_t i = 0; i < ntopics && err == KC_ERR_NONE && v.check; i++) {
        const kc_txn_offset_commit_request_topic_t *tp = &req->topics.items[i];
        for (int32_t j = 0; j < resp.topics.items[i].partitions.count && err == KC_ERR_NONE; j++) {
            const kc_txn_offset_commit_request_partition_t *part = &tp->partitions.items[j];
            kc_str_t meta = part->committed_metadata;
            if (resp.topics.items[i].partitions.items[j].error_code == -2 &&
                !metadata_too_large(meta, max_bytes))
                err = txn_commit_error(v.check(&v, names[i], ids[i], part->partition_index),
                                       version);
        }
    }
    size_t first_record = res->nrecords;
    for (int32_t i = 0; i < ntopics; i++) {
        const kc_txn_offset_commit_request_topic_t *tp = &req->topics.items[i];
        for (int32_t j = 0; j < resp.topics.items[i].partitions.count; j++) {
            txn_rpart_t *rp = &resp.topics.items[i].partitions.items[j];
            if (rp->error_code != -2)
                continue;
            const kc_txn_offset_commit_request_partition_t *part = &tp->partitions.items[j];
            kc_str_t meta = part->committed_metadata;
            if (err != KC_ERR_NONE) {
                rp->error_code = err;
                continue;
            }
            if (metadata_too_large(meta, max_bytes)) {
                rp->error_code = KC_ERR_OFFSET_METADATA_TOO_LARGE;
                continue;
            }
            rp->error_code = KC_ERR_NONE;
            kc_record_key_t key = {.group_id = req->group_id, .topic = names[i],
                                   .partition = part->partition_index,
                                   .producer_id = req->producer_id};
            kc_txn_offset_commit_value_t val;
            kc_txn_offset_commit_value_init(&val);
            val.offset = part->committed_offset;
            val.leader_epoch = part->committed_leader_epoch;
            val.metadata = meta.len > 0 ? meta : str_of("", 0);
            val.commit_timestamp = ctx->now_ms;
            val.topic_id = ids[i];
            kc_record_write_replay(c, res, KC_RECORD_TXN_OFFSET_COMMIT, &key, VALUE_VERSION, &val);
        }
    }
    kc_txn_offset_commit_response_t error_body = resp;
    bool with_records = kc_result_wrote_since(res, first_record);
    if (with_records) {
        error_body.topics.items =
            kc_arena_alloc(&arena, sizeof(txn_rtopic_t) * (size_t)(ntopics + 1));
        for (int32_t i = 0; i < ntopics; i++) {
            txn_rtopic_t *et = &error_body.topics.items[i];
            *et = resp.topics.items[i];
            et->partitions.items =
                kc_arena_alloc(&arena, sizeof(txn_rpart_t) * (size_t)(et->partitions.count + 1));
            for (int32_t j = 0; j < et->partitions.count; j++) {
                et->partitions.items[j] = resp.topics.items[i].partitions.items[j];
                if (et->partitions.items[j].error_code == KC_ERR_NONE)
                    et->partitions.items[j].error_code = KC_ERR_COORDINATOR_NOT_AVAILABLE;
            }
        }
    }
    kc_result_respond(res, ctx, &resp, with_records ? &error_body : NULL);
    kc_arena_deinit(&arena);
}

/* The pending offsets of producer p a walk acts on, collected first: the
 * records applied change the maps walked. */
typedef struct {
    kc_str_t group, topic;
    int32_t partition;
    const kc_offset_entry_t *e;
    bool superseded; /* a later non-transactional commit of the partition stays */
} pending_ref_t;

/* The pending offsets of p in groups of offsets_partition (-1: every group). */
static pending_ref_t *pending_collect(kc_coord_t *c, const pending_producer_t *p,
                                      int32_t offsets_partition, kc_str_t only_group,
                                      kc_arena_t *arena, size_t *n)
{
    pending_ref_t *refs = kc_arena_alloc(arena, sizeof(*refs) * (p->map.noffsets + 1));
    *n = 0;
    for (uint32_t gi = 0; gi < p->map.ngroups; gi++) {
        const kc_offsets_group_t *g = p->map.groups[gi];
        kc_str_t gid = str_of(g->id, g->id_len);
        if (only_group.len >= 0 && !same_str(gid, only_group))
            continue;
        if (offsets_partition >= 0 && kc_coord_offsets_partition_for(c, gid) != offsets_partition)
            continue;
        for (uint32_t ti = 0; ti < g->ntopics; ti++) {
            const kc_offsets_topic_t *tp = &g->topics[ti];
            for (uint32_t pi = 0; pi < tp->nparts; pi++)
                refs[(*n)++] = (pending_ref_t){
                    gid, str_of(tp->name, tp->name_len), tp->parts[pi].partition,
                    &tp->parts[pi],
                    kc_offsets_map_get(&p->superseded, gid, str_of(tp->name, tp->name_len),
                                       tp->parts[pi].partition) != NULL};
        }
    }
    return refs;
}

/* Writes the records that end the pending offsets refs of producer_id:
 * with commit, each not superseded as a committed offset first
 * (OffsetMetadataManager.replayEndTransactionMarker keeps the newer); then
 * the tombstones of the pending records. Applied after, since applying
 * frees the entries. */
static void pending_end(kc_coord_t *c, int64_t producer_id, bool commit, const pending_ref_t *refs,
                        size_t n, kc_result_t *res)
{
    size_t first = res->nrecords;
    for (size_t i = 0; i < n; i++) {
        if (commit && !refs[i].superseded) {
            kc_record_key_t key = {.group_id = refs[i].group, .topic = refs[i].topic,
                                   .partition = refs[i].partition};
            kc_offset_commit_value_t v;
            int16_t version = value_of(refs[i].e, &v);
            kc_record_write(res, KC_RECORD_OFFSET_COMMIT, &key, version, &v);
        }
        kc_record_key_t pkey = {.group_id = refs[i].group, .topic = refs[i].topic,
                                .partition = refs[i].partition, .producer_id = producer_id};
        kc_record_write(res, KC_RECORD_TXN_OFFSET_COMMIT, &pkey, VALUE_VERSION, NULL);
    }
    for (size_t i = first; i < res->nrecords; i++) {
        const kc_record_t *r = &res->records[i];
        kc_offsets_replay(c, r->key.data, r->key.len, r->tombstone ? NULL : r->value.data,
                          r->value.len, NULL);
    }
}

void kc_coord_txn_offsets_end(kc_coord_t *c, int64_t producer_id, bool commit,
                              int32_t offsets_partition, kc_result_t *res)
{
    pending_producer_t *p = pending_of(state_of(c), producer_id, false);
    if (p == NULL)
        return;
    kc_arena_t arena;
    kc_arena_init(&arena);
    size_t n;
    pending_ref_t *refs = pending_collect(c, p, offsets_partition, KC_STR_NULL, &arena, &n);
    pending_end(c, producer_id, commit, refs, n, res);
    kc_arena_deinit(&arena);
}

void kc_coord_txn_pending_groups(kc_coord_t *c, int64_t producer_id,
                                 void (*fn)(void *ctx, kc_str_t group_id), void *ctx)
{
    const pending_producer_t *p = pending_of(state_of(c), producer_id, false);
    for (uint32_t gi = 0; p && gi < p->map.ngroups; gi++)
        fn(ctx, str_of(p->map.groups[gi]->id, p->map.groups[gi]->id_len));
}

/* Whether a transaction holds an offset of the partition for the group. */
static bool pending_has(kc_coord_t *c, kc_str_t group, kc_str_t topic, int32_t partition)
{
    kc_offsets_t *o = state_of(c);
    for (size_t i = 0; i < o->npending; i++)
        if (kc_offsets_map_get(&o->pending[i]->map, group, topic, partition))
            return true;
    return false;
}

/* Drops the pending offsets of a deleted group, every producer's. */
static void pending_delete_group(kc_coord_t *c, kc_str_t group_id, kc_result_t *res)
{
    kc_offsets_t *o = state_of(c);
    for (size_t i = o->npending; i-- > 0;) {
        if (i >= o->npending)
            continue;
        pending_producer_t *p = o->pending[i];
        kc_arena_t arena;
        kc_arena_init(&arena);
        size_t n;
        pending_ref_t *refs = pending_collect(c, p, -1, group_id, &arena, &n);
        pending_end(c, p->producer_id, false, refs, n, res);
        kc_arena_deinit(&arena);
    }
}

/* ---- OffsetFetch ---------------------------------------------------------- */

typedef __typeof__(((kc_offset_fetch_response_t *)0)->groups.items[0]) fetch_group_t;
typedef __typeof__(((fetch_group_t *)0)->topics.items[0]) fetch_topic_t;
typedef __typeof__(((fetch_topic_t *)0)->partitions.items[0]) fetch_part_t;
typedef __typeof__(((kc_offset_fetch_response_t *)0)->topics.items[0]) fetch_v0_topic_t;
typedef __typeof__(((fetch_v0_topic_t *)0)->partitions.items[0]) fetch_v0_part_t;

/* A requested topic, whatever the request version. */
typedef struct {
    kc_str_t name;
    kc_uuid_t id;
    kc_int32_array_t partitions;
} fetch_req_topic_t;

static void fetch_part_none(fetch_part_t *p, int32_t partition, int16_t error)
{
    p->partition_index = partition;
    p->committed_offset = -1;
    p->committed_leader_epoch = -1;
    p->metadata = str_of("", 0);
    p->error_code = error;
}

static void fetch_part_set(fetch_part_t *p, const kc_offset_entry_t *e)
{
    p->partition_index = e->partition;
    p->committed_offset = e->offset;
    p->committed_leader_epoch = e->leader_epoch;
    p->metadata = str_of(e->metadata ? e->metadata : "", e->metadata_len);
    p->error_code = KC_ERR_NONE;
}

/* A topic or partition with its place in Kafka's table. */
typedef struct {
    uint32_t slot, seq;
    const void *item;
} kafka_ordered_t;

/* Kafka's table iterators hand a slot's entries out from the last put. */
static int cmp_kafka_order(const void *a, const void *b)
{
    const kafka_ordered_t *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->seq < y->seq) - (x->seq > y->seq);
}

/* All committed offsets of a group (OffsetMetadataManager.fetchAllOffsets)
 * in the order Kafka's tables list them: topics by slot, the later put
 * first within a slot, each topic's partitions the same way. */
/* An offset of the group, or with require_stable UNSTABLE_OFFSET_COMMIT
 * while a transaction holds an offset of the partition (fetchOffsets). */
static void fetch_part_offset(kc_coord_t *c, fetch_part_t *p, kc_str_t group, kc_str_t topic,
                              bool require_stable, const kc_offset_entry_t *e)
{
    if (require_stable && pending_has(c, group, topic, e->partition))
        fetch_part_none(p, e->partition, KC_ERR_UNSTABLE_OFFSET_COMMIT);
    else
        fetch_part_set(p, e);
}

static void fetch_all(kc_coord_t *c, const kc_request_ctx_t *ctx, int16_t version,
                      const kc_offsets_group_t *og, bool require_stable,
                      fetch_group_t *out, kc_arena_t *arena)
{
    out->topics.count = 0;
    out->topics.items = NULL;
    if (og == NULL)
        return;
    kafka_ordered_t *sorted = kc_arena_alloc(arena, sizeof(*sorted) * (og->ntopics + 1));
    for (uint32_t i = 0; i < og->ntopics; i++) {
        const kc_offsets_topic_t *tp = &og->topics[i];
        sorted[i] = (kafka_ordered_t){
            kc_offsets_kafka_slot(kc_java_string_hash(tp->name, (size_t)tp->name_len), og->kafka_cap),
            tp->kafka_seq, tp};
    }
    qsort(sorted, og->ntopics, sizeof(*sorted), cmp_kafka_order);
    out->topics.items = kc_arena_alloc(arena, sizeof(fetch_topic_t) * (og->ntopics + 1));
    for (uint32_t i = 0; i < og->ntopics; i++) {
        const kc_offsets_topic_t *tp = sorted[i].item;
        fetch_topic_t *rt = &out->topics.items[out->topics.count];
        rt->name = str_of(tp->name, tp->name_len);
        /* Clients do not see offsets of topics they may not describe (KafkaApis). */
        if (!kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_TOPIC, rt->name))
            continue;
        if (version >= 10) {
            /* Only ids go on the wire: a topic without one is left out. */
            int32_t npart;
            if (!topic_by_name(c, rt->name, &npart, &rt->topic_id) || uuid_is_zero(rt->topic_id))
                continue;
        }
        kafka_ordered_t *parts = kc_arena_alloc(arena, sizeof(*parts) * (tp->nparts + 1));
        for (uint32_t j = 0; j < tp->nparts; j++)
            parts[j] = (kafka_ordered_t){kc_offsets_kafka_slot(tp->parts[j].partition, tp->kafka_cap),
                                         tp->parts[j].kafka_seq, &tp->parts[j]};
        qsort(parts, tp->nparts, sizeof(*parts), cmp_kafka_order);
        rt->partitions.items = kc_arena_alloc(arena, sizeof(fetch_part_t) * (tp->nparts + 1));
        rt->partitions.count = (int32_t)tp->nparts;
        for (uint32_t j = 0; j < tp->nparts; j++)
            fetch_part_offset(c, &rt->partitions.items[j], str_of(og->id, og->id_len), rt->name,
                              require_stable, parts[j].item);
        out->topics.count++;
    }
}

/* One group of an OffsetFetch (KafkaApis.fetch*OffsetsForGroup and the
 * coordinator's fetchOffsets/fetchAllOffsets). topics NULL = all. */
static void fetch_group(kc_coord_t *c, const kc_request_ctx_t *ctx, int16_t version,
                        kc_str_t group_id, kc_str_t member_id, int32_t member_epoch,
                        bool require_stable, const fetch_req_topic_t *topics, int32_t ntopics,
                        fetch_group_t *out, kc_arena_t *arena)
{
    out->group_id = group_id;
    out->error_code = KC_ERR_NONE;
    out->topics.count = 0;
    out->topics.items = NULL;

    int16_t group_err = KC_ERR_NONE;
    if (!kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_GROUP, group_id))
        group_err = KC_ERR_GROUP_AUTHORIZATION_FAILED;
    else if (!kc_coord_is_loaded(c))
        group_err = KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    if (group_err != KC_ERR_NONE) {
        /* OffsetFetchResponse.groupError: a group-level code from v2, else
         * the code on every requested partition. */
        if (version >= 2 || topics == NULL) {
            out->error_code = group_err;
            return;
        }
        out->topics.items = kc_arena_alloc(arena, sizeof(fetch_topic_t) * (size_t)ntopics);
        for (int32_t i = 0; i < ntopics; i++) {
            fetch_topic_t *rt = &out->topics.items[out->topics.count++];
            rt->name = topics[i].name;
            rt->topic_id = topics[i].id;
            int32_t np = topics[i].partitions.count < 0 ? 0 : topics[i].partitions.count;
            rt->partitions.items = kc_arena_alloc(arena, sizeof(fetch_part_t) * (size_t)np);
            rt->partitions.count = np;
            for (int32_t j = 0; j < np; j++)
                fetch_part_none(&rt->partitions.items[j], topics[i].partitions.items[j],
                                group_err);
        }
        return;
    }

    /* OffsetMetadataManager.fetchOffsets: a missing group, or one whose
     * validation finds none (GROUP_ID_NOT_FOUND), has no offsets to show. */
    kc_group_t *g = kc_group_get(c, group_id);
    int16_t err = g ? g->ops->validate_offset_fetch(g, member_id, member_epoch, version)
                    : KC_ERR_GROUP_ID_NOT_FOUND;
    if (err != KC_ERR_NONE && err != KC_ERR_GROUP_ID_NOT_FOUND) {
        out->error_code = err;
        return;
    }
    const kc_offsets_group_t *og =
        err == KC_ERR_NONE ? kc_offsets_map_group(&state_of(c)->map, group_id) : NULL;

    if (topics == NULL) {
        fetch_all(c, ctx, version, og, require_stable, out, arena);
        return;
    }

    out->topics.items = kc_arena_alloc(arena, sizeof(fetch_topic_t) * (size_t)(ntopics + 1));
    /* Coordinator topics in request order, then topics whose id is unknown or
     * that the client may not describe (KafkaApis.fetchOffsetsForGroup). */
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t i = 0; i < ntopics; i++) {
            kc_str_t name = topics[i].name;
            bool unknown_id = false;
            if (version >= 10) {
                name = str_of("", 0);
                unknown_id = !topic_by_id(c, topics[i].id, &name) || name.len <= 0;
            }
            bool unauthorized =
                !unknown_id && !kc_request_authorized(ctx, KC_OP_DESCRIBE, KC_RES_TOPIC, name);
            if ((unknown_id || unauthorized) != (pass == 1))
                continue;
            fetch_topic_t *rt = &out->topics.items[out->topics.count++];
            rt->name = name;
            rt->topic_id = topics[i].id;
            int32_t np = topics[i].partitions.count < 0 ? 0 : topics[i].partitions.count;
            rt->partitions.items = kc_arena_alloc(arena, sizeof(fetch_part_t) * (size_t)np);
            rt->partitions.count = np;
            const kc_offsets_topic_t *ot =
                pass == 1 ? NULL : kc_offsets_group_topic(og, name);
            for (int32_t j = 0; j < np; j++) {
                int32_t p = topics[i].partitions.items[j];
                const kc_offset_entry_t *e = kc_offsets_topic_partition(ot, p);
                /* An offset stored under another id belongs to a deleted topic. */
                if (e != NULL && version >= 10 && !uuid_is_zero(e->topic_id) &&
                    !uuid_is_zero(topics[i].id) && !uuid_eq(e->topic_id, topics[i].id))
                    e = NULL;
                if (e != NULL)
                    fetch_part_offset(c, &rt->partitions.items[j], group_id, name,
                                      require_stable, e);
                else if (require_stable && pass == 0 && pending_has(c, group_id, name, p))
                    fetch_part_none(&rt->partitions.items[j], p, KC_ERR_UNSTABLE_OFFSET_COMMIT);
                else
                    fetch_part_none(&rt->partitions.items[j], p,
                                    unknown_id     ? KC_ERR_UNKNOWN_TOPIC_ID
                                    : unauthorized ? KC_ERR_TOPIC_AUTHORIZATION_FAILED
                                                   : KC_ERR_NONE);
            }
        }
    }
}

void kc_coord_offset_fetch(kc_coord_t *c, const kc_request_ctx_t *ctx,
                           const kc_offset_fetch_request_t *req, kc_result_t *res)
{
    int16_t version = ctx->api_version;
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_offset_fetch_response_t resp;
    kc_offset_fetch_response_init(&resp);

    if (version >= 8) {
        int32_t ngroups = req->groups.count < 0 ? 0 : req->groups.count;
        resp.groups.items = kc_arena_alloc(&arena, sizeof(fetch_group_t) * (size_t)(ngroups + 1));
        resp.groups.count = ngroups;
        for (int32_t i = 0; i < ngroups; i++) {
            const kc_offset_fetch_request_group_t *rg = &req->groups.items[i];
            fetch_req_topic_t *topics = NULL;
            int32_t nt = rg->topics.count;
            if (nt >= 0) {
                topics = kc_arena_alloc(&arena, sizeof(*topics) * (size_t)(nt + 1));
                for (int32_t j = 0; j < nt; j++) {
                    topics[j].name = rg->topics.items[j].name;
                    topics[j].id = rg->topics.items[j].topic_id;
                    topics[j].partitions = rg->topics.items[j].partition_indexes;
                }
            }
            fetch_group(c, ctx, version, rg->group_id, rg->member_id, rg->member_epoch,
                        req->require_stable, topics, nt < 0 ? 0 : nt, &resp.groups.items[i],
                        &arena);
        }
    } else {
        fetch_req_topic_t *topics = NULL;
        int32_t nt = req->topics.count;
        if (nt >= 0) {
            topics = kc_arena_alloc(&arena, sizeof(*topics) * (size_t)(nt + 1));
            for (int32_t j = 0; j < nt; j++) {
                topics[j].name = req->topics.items[j].name;
                memset(&topics[j].id, 0, sizeof(topics[j].id));
                topics[j].partitions = req->topics.items[j].partition_indexes;
            }
        }
        fetch_group_t g;
        memset(&g, 0, sizeof(g));
        fetch_group(c, ctx, version, req->group_id, KC_STR_NULL, -1, req->require_stable, topics,
                    nt < 0 ? 0 : nt, &g, &arena);
        /* Versions before 8 answer for one group at the top level. */
        resp.error_code = g.error_code;
        resp.topics.count = g.topics.count;
        resp.topics.items =
            kc_arena_alloc(&arena, sizeof(fetch_v0_topic_t) * (size_t)(g.topics.count + 1));
        for (int32_t i = 0; i < g.topics.count; i++) {
            fetch_v0_topic_t *rt = &resp.topics.items[i];
            rt->name = g.topics.items[i].name;
            int32_t np = g.topics.items[i].partitions.count;
            rt->partitions.count = np;
            rt->partitions.items = kc_arena_alloc(&arena, sizeof(fetch_v0_part_t) * (size_t)np);
            for (int32_t j = 0; j < np; j++) {
                const fetch_part_t *src = &g.topics.items[i].partitions.items[j];
                fetch_v0_part_t *dst = &rt->partitions.items[j];
                dst->partition_index = src->partition_index;
                dst->committed_offset = src->committed_offset;
                dst->committed_leader_epoch = src->committed_leader_epoch;
                dst->metadata = src->metadata;
                dst->error_code = src->error_code;
            }
        }
    }

    kc_result_respond(res, ctx, &resp, NULL);
    kc_arena_deinit(&arena);
}

/* ---- OffsetDelete --------------------------------------------------------- */

typedef __typeof__(((kc_offset_delete_response_t *)0)->topics.items[0]) delete_rtopic_t;
typedef __typeof__(((delete_rtopic_t *)0)->partitions.items[0]) delete_rpart_t;

/* An OffsetDelete answer carrying only a top-level error. */
static kc_offset_delete_response_t delete_error(int16_t error)
{
    kc_offset_delete_response_t resp;
    kc_offset_delete_response_init(&resp);
    resp.error_code = error;
    resp.topics.count = 0;
    return resp;
}

void kc_coord_offset_delete(kc_coord_t *c, const kc_request_ctx_t *ctx,
                            const kc_offset_delete_request_t *req, kc_result_t *res)
{
    int16_t group_err = KC_ERR_NONE;
    kc_group_t *g = NULL;
    /* GroupCoordinatorService.deleteOffsets, then OffsetMetadataManager.deleteOffsets. */
    if (req->group_id.len <= 0)
        group_err = KC_ERR_INVALID_GROUP_ID;
    else if (!kc_coord_is_loaded(c))
        group_err = KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    else if ((g = kc_group_get(c, req->group_id)) == NULL)
        group_err = KC_ERR_GROUP_ID_NOT_FOUND;
    else
        group_err = g->ops->validate_offset_delete(g);
    if (group_err != KC_ERR_NONE) {
        /* A top-level error replaces the whole answer (OffsetDeleteResponse.Builder.merge). */
        kc_offset_delete_response_t resp = delete_error(group_err);
        kc_result_respond(res, ctx, &resp, NULL);
        return;
    }

    kc_arena_t arena;
    kc_arena_init(&arena);
    int32_t ntopics = req->topics.count < 0 ? 0 : req->topics.count;
    kc_offset_delete_response_t resp;
    kc_offset_delete_response_init(&resp);
    resp.topics.items = kc_arena_alloc(&arena, sizeof(delete_rtopic_t) * (size_t)(ntopics + 1));
    resp.topics.count = 0;
    tombstones_t t = tombstones_begin(c, res);
    kc_offsets_group_t *og = kc_offsets_map_group(&state_of(c)->map, req->group_id);

    /* Topic checks first (KafkaApis), then the coordinator's per-topic answer. */
    int16_t *topic_err = kc_arena_alloc(&arena, sizeof(int16_t) * (size_t)(ntopics + 1));
    int32_t *npart = kc_arena_alloc(&arena, sizeof(int32_t) * (size_t)(ntopics + 1));
    for (int32_t i = 0; i < ntopics; i++) {
        kc_uuid_t id;
        npart[i] = -1;
        if (!kc_request_authorized(ctx, KC_OP_READ, KC_RES_TOPIC, req->topics.items[i].name))
            topic_err[i] = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        else
            topic_err[i] = topic_by_name(c, req->topics.items[i].name, &npart[i], &id)
                               ? KC_ERR_NONE
                               : KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t i = 0; i < ntopics; i++) {
            const kc_offset_delete_request_topic_t *rt = &req->topics.items[i];
            int32_t np = rt->partitions.count < 0 ? 0 : rt->partitions.count;
            bool subscribed =
                pass == 1 && topic_err[i] == KC_ERR_NONE && g->ops->is_subscribed_to_topic(g, rt->name);
            delete_rtopic_t *out = NULL;
            for (int32_t j = 0; j < np; j++) {
                int32_t p = rt->partitions.items[j].partition_index;
                int16_t err = topic_err[i];
                if (err == KC_ERR_NONE && npart[i] >= 0 && (p < 0 || p >= npart[i]))
                    err = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
                if ((err != KC_ERR_NONE) != (pass == 0))
                    continue;
                if (pass == 1) {
                    if (subscribed)
                        err = KC_ERR_GROUP_SUBSCRIBED_TO_TOPIC;
                    else if (kc_offsets_topic_partition(kc_offsets_group_topic(og, rt->name), p))
                        tombstones_add(&t, req->group_id, rt->name, p);
                }
                if (out == NULL) {
                    for (int32_t k = 0; k < resp.topics.count && out == NULL; k++)
                        if (same_str(resp.topics.items[k].name, rt->name))
                            out = &resp.topics.items[k];
                    if (out == NULL) {
                        out = &resp.topics.items[resp.topics.count++];
                        out->name = rt->name;
                        out->partitions.count = 0;
                        out->partitions.items = NULL;
                    }
                    /* Room for this topic's partitions on top of what is there. */
                    delete_rpart_t *grown = kc_arena_alloc(
                        &arena, sizeof(delete_rpart_t) * (size_t)(out->partitions.count + np));
                    if (out->partitions.count > 0)
                        memcpy(grown, out->partitions.items,
                               sizeof(delete_rpart_t) * (size_t)out->partitions.count);
                    out->partitions.items = grown;
                }
                delete_rpart_t *rp = &out->partitions.items[out->partitions.count++];
                rp->partition_index = p;
                rp->error_code = err;
            }
        }
    }
    tombstones_flush(c, &t);
    kc_offset_delete_response_t error_body = delete_error(KC_COORD_ERR_WRITE_FAILED);
    kc_result_respond(res, ctx, &resp, kc_result_wrote_since(res, t.first) ? &error_body : NULL);
    kc_arena_deinit(&arena);
}

/* ---- read-only introspection (admin views) ---- */

void kc_coord_inspect_offsets(kc_coord_t *c, kc_str_t group_id,
                              void (*fn)(void *arg, const kc_offset_view_t *o), void *arg)
{
    if (group_id.len < 0)
        return;
    const kc_offsets_group_t *g = kc_offsets_map_group(&state_of(c)->map, group_id);
    if (!g)
        return;
    for (uint32_t i = 0; i < g->ntopics; i++) {
        const kc_offsets_topic_t *t = &g->topics[i];
        for (uint32_t j = 0; j < t->nparts; j++) {
            const kc_offset_entry_t *e = &t->parts[j];
            kc_offset_view_t v = {
                .topic = t->name,
                .partition = e->partition,
                .offset = e->offset,
                .leader_epoch = e->leader_epoch,
                .commit_timestamp_ms = e->commit_timestamp_ms,
                .metadata = e->metadata ? e->metadata : "",
                .metadata_len = e->metadata ? e->metadata_len : 0,
            };
            fn(arg, &v);
        }
    }
}
