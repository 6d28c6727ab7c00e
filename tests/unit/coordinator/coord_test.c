/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared coordinator test context (coord_test.h) and the canonical dump
 * of a coordinator's durable state that its replay check compares.
 *
 * What the dump holds: every group of every type with every field that a
 * record carries or that replay rebuilds from records:
 *  - classic groups: state, generation, protocol type and name, leader,
 *    current state timestamp (Empty groups), each member's instance id,
 *    client id and host, timeouts, protocol type, the metadata of the
 *    selected protocol and the assignment; simple groups (made by offsets)
 *    are classic groups too;
 *  - consumer groups: group epoch, metadata hash, assignment epoch, whether
 *    a group record exists, the most members the group had at once (it
 *    sizes Kafka's members table), the instance-id index, the subscription
 *    counts by topic, regex and server assignor, the resolved regexes
 *    (topics, version, timestamp), the partition epochs derived from the
 *    members, the members' join order and, per member, every field of
 *    records 5, 7 and 8 (classic member metadata included);
 *  - streams groups: the fields of records 17 (epoch, metadata hash,
 *    validated topology epoch, last standby count, stored and failed
 *    description epochs), 20 and 23 (the topology bytes), the members
 *    table's capacity and size and each member's rank in it, the
 *    instance-id index, the active task owners and, per member, every field
 *    of records 19, 21 and 22;
 *  - committed offsets of every group: offset, leader epoch, metadata,
 *    commit and expire timestamps (the pending expiry data), topic id, and
 *    the rank and capacity of Kafka's offset tables (the order OffsetFetch
 *    lists them in);
 *  - Kafka's groups tables (ListGroups order): each partition's size, each
 *    group's rank in its partition.
 *
 * Left out, with the Kafka behaviour each follows:
 *  - a classic group in PreparingRebalance or CompletingRebalance: Kafka
 *    writes a classic group's record when a rebalance ends (SyncGroup of
 *    the leader, or a join round that leaves it Empty) and replays it as
 *    Empty or Stable (ClassicGroup.fromRecord), so a live group in the
 *    middle of a rebalance runs ahead of its record, in Kafka as here;
 *  - a simple classic group without offsets: Kafka creates it in memory
 *    for a group-less OffsetCommit (getOrMaybeCreateClassicGroup) without
 *    a record, and a load makes one only for replayed offsets;
 *  - a Stable classic group's current state timestamp: Kafka's leader
 *    SyncGroup writes the record before the move to Stable, so the record
 *    (and a replay) has the time the group entered CompletingRebalance;
 *  - a classic group's subscribed topics: Kafka computes them at each new
 *    generation (ClassicGroup.initNextGeneration) and at load, but a static
 *    member that rejoins a Stable group with a new subscription and the
 *    same selected protocol only has the group record written again
 *    (updateStaticMemberThenRebalanceOrCompleteJoin), so the live group
 *    keeps the old topics while a load computes the new ones;
 *  - classic members' other protocols, parked requests, is_new, the
 *    previous state, pending join and sync members, the awaiting count and
 *    the new-member flag: ClassicGroup keeps them in memory only, and a
 *    replayed member has the selected protocol alone
 *    (ClassicGroupMember built from GroupMetadataValue.MemberMetadata);
 *  - classic members' order: Kafka's ClassicGroup keeps them in a
 *    java.util.HashMap, whose capacity never shrinks while a loaded group's
 *    is sized by its members, so its order after a load may differ;
 *  - the capacity of Kafka's groups tables: Kafka's replay puts a classic
 *    group into its table for every GroupMetadata record (replay of
 *    GroupMetadataKey), the live path only when it creates the group, and a
 *    put grows a table even when it replaces, so a loaded table can be
 *    larger than the live one;
 *  - timers, deadlines and parked requests: Kafka arms timers again at
 *    load (onLoaded) and parks nothing across a load;
 *  - caches recomputed on demand: consumer groups' metadata hash cache,
 *    subscription rows and topic ids, logged states; streams groups'
 *    configured topology (Kafka's StreamsGroup.configuredTopology is
 *    memory-only, computed again from the metadata image);
 *  - streams members' last full owned-task report (kcoord's opt-in retry,
 *    memory-only by design), their reported task offsets and end offsets
 *    (Kafka's StreamsGroup keeps them in memory only), the endpoint
 *    information epoch and a requested shutdown (in memory in Kafka's
 *    StreamsGroup), and the barrier's back-off and ops in flight (Kafka's
 *    StreamsGroupTopologyDescriptionManager keeps them in memory);
 *  - streams groups' state left by the creating heartbeat: Kafka handles
 *    it on a new group object that replay replaces, so what it keeps in
 *    memory only is lost with it (design.md, streams groups).
 */
#include "coord_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classic/classic_int.h"
#include "consumer_int.h"
#include "offsets_map.h"
#include "streams_int.h"

/* ---- the context ---------------------------------------------------------- */

static kc_coord_t *coord_make(const ct_t *t)
{
    kc_coord_t *c = kc_coord_new(&t->cfg, t->topics);
    if (t->tdesc)
        kc_coord_set_topology_desc(c, t->tdesc);
    return c;
}

ct_t *ct_new(const ct_opts_t *opts)
{
    static const ct_opts_t none;
    if (!opts)
        opts = &none;
    ct_t *t = kc_xcalloc(1, sizeof(*t));
    if (opts->cfg)
        t->cfg = *opts->cfg;
    else
        kc_coord_config_defaults(&t->cfg);
    t->topics = opts->topics;
    t->tdesc = opts->tdesc;
    t->now = opts->now_ms;
    t->next_corr = 1;
    kc_arena_init(&t->arena);
    t->c = coord_make(t);
    kc_coord_seed(t->c, opts->seed);
    if (!opts->unloaded)
        kc_coord_loaded(t->c, t->now);
    return t;
}

void ct_free(ct_t *t)
{
    if (!t)
        return;
    ct_check_replay(t);
    kc_coord_free(t->c);
    for (size_t i = 0; i < t->nrecs; i++) {
        kc_buf_deinit(&t->recs[i].key);
        kc_buf_deinit(&t->recs[i].value);
    }
    for (size_t i = 0; i < t->nresps; i++) {
        kc_buf_deinit(&t->resps[i].body);
        kc_buf_deinit(&t->resps[i].error_body);
    }
    free(t->recs);
    free(t->resps);
    kc_arena_deinit(&t->arena);
    free(t);
}

static ct_record_t *log_record(ct_t *t, const uint8_t *key, size_t key_len,
                               const uint8_t *value, size_t value_len, bool tombstone)
{
    if (t->nrecs == t->recs_cap) {
        t->recs_cap = t->recs_cap ? t->recs_cap * 2 : 64;
        t->recs = kc_xrealloc(t->recs, t->recs_cap * sizeof(*t->recs));
    }
    ct_record_t *r = &t->recs[t->nrecs++];
    kc_buf_init(&r->key);
    kc_buf_init(&r->value);
    kc_buf_append(&r->key, key, key_len);
    if (!tombstone)
        kc_buf_append(&r->value, value, value_len);
    r->tombstone = tombstone;
    r->rejected = false;
    return r;
}

static void keep_responses(ct_t *t, const kc_result_t *res)
{
    for (size_t i = 0; i < res->nresponses; i++) {
        if (t->nresps == t->resps_cap) {
            t->resps_cap = t->resps_cap ? t->resps_cap * 2 : 64;
            t->resps = kc_xrealloc(t->resps, t->resps_cap * sizeof(*t->resps));
        }
        const kc_response_t *s = &res->responses[i];
        ct_response_t *r = &t->resps[t->nresps++];
        r->conn_id = s->conn_id;
        r->corr = s->correlation_id;
        r->api_key = s->api_key;
        r->version = s->api_version;
        kc_buf_init(&r->body);
        kc_buf_init(&r->error_body);
        kc_buf_append(&r->body, s->body.data, s->body.len);
        kc_buf_append(&r->error_body, s->error_body.data, s->error_body.len);
    }
}

void ct_keep(ct_t *t, const kc_result_t *res)
{
    for (size_t i = 0; i < res->nrecords && !res->failed; i++) {
        const kc_record_t *r = &res->records[i];
        log_record(t, r->key.data, r->key.len, r->value.data, r->value.len, r->tombstone);
    }
    keep_responses(t, res);
    if (getenv("KC_CT_EVERY") && kc_coord_is_loaded(t->c))
        ct_check_replay(t);
}

void ct_absorb(ct_t *t, kc_result_t *res)
{
    ct_keep(t, res);
    kc_result_reset(res);
}

void ct_absorb_uncommitted(ct_t *t, kc_result_t *res)
{
    keep_responses(t, res);
    kc_result_reset(res);
}

void ct_tick(ct_t *t)
{
    kc_result_t res;
    kc_result_init(&res);
    kc_coord_tick(t->c, t->now, &res);
    ct_absorb(t, &res);
    kc_result_deinit(&res);
}

void ct_sleep(ct_t *t, int64_t ms)
{
    int64_t until = t->now + ms;
    while (kc_coord_next_deadline(t->c) <= until) {
        if (kc_coord_next_deadline(t->c) > t->now)
            t->now = kc_coord_next_deadline(t->c);
        ct_tick(t);
    }
    t->now = until;
}

void ct_jump(ct_t *t, int64_t ms)
{
    t->now += ms;
    ct_tick(t);
}

kc_request_ctx_t ct_rctx(ct_t *t, int16_t api_key, int16_t version)
{
    kc_request_ctx_t x;
    memset(&x, 0, sizeof(x));
    x.correlation_id = t->next_corr++;
    x.conn_id = 100 + (uint64_t)x.correlation_id;
    x.api_key = api_key;
    x.api_version = version;
    x.client_id = kc_str("client");
    x.client_host = "/127.0.0.1";
    x.now_ms = t->now;
    return x;
}

ct_response_t *ct_find_resp(ct_t *t, int32_t corr)
{
    for (size_t i = t->nresps; i-- > 0;)
        if (t->resps[i].corr == corr)
            return &t->resps[i];
    return NULL;
}

static kc_reader_t reader_over_copy(ct_t *t, const kc_buf_t *b)
{
    uint8_t *p = kc_arena_alloc(&t->arena, b->len + 1);
    if (b->len)
        memcpy(p, b->data, b->len);
    kc_reader_t r;
    kc_reader_init(&r, p, b->len);
    return r;
}

kc_reader_t ct_body(ct_t *t, int32_t corr)
{
    ct_response_t *r = ct_find_resp(t, corr);
    assert_non_null(r);
    return reader_over_copy(t, &r->body);
}

kc_reader_t ct_result_body(ct_t *t, const kc_result_t *res, size_t i)
{
    assert_true(i < res->nresponses);
    return reader_over_copy(t, &res->responses[i].body);
}

char *ct_cstr(ct_t *t, kc_str_t s)
{
    size_t n = s.len > 0 ? (size_t)s.len : 0;
    char *p = kc_arena_alloc(&t->arena, n + 1);
    if (n)
        memcpy(p, s.ptr, n);
    p[n] = '\0';
    return p;
}

int ct_replay(ct_t *t, const kc_buf_t *key, const kc_buf_t *value)
{
    int rc = kc_coord_replay(t->c, key->data, key->len, value ? value->data : NULL,
                             value ? value->len : 0);
    ct_record_t *r = log_record(t, key->data, key->len, value ? value->data : NULL,
                                value ? value->len : 0, value == NULL);
    r->rejected = rc != 0;
    return rc;
}

void ct_load(ct_t *t) { kc_coord_loaded(t->c, t->now); }

static bool superseded(const ct_t *t, size_t i)
{
    for (size_t j = i + 1; j < t->nrecs; j++)
        if (t->recs[j].key.len == t->recs[i].key.len &&
            memcmp(t->recs[j].key.data, t->recs[i].key.data, t->recs[i].key.len) == 0)
            return true;
    return false;
}

void ct_replay_log(ct_t *t, kc_coord_t *c, bool compacted)
{
    for (size_t i = 0; i < t->nrecs; i++) {
        const ct_record_t *r = &t->recs[i];
        if (compacted && (r->tombstone || superseded(t, i)))
            continue;
        int rc = kc_coord_replay(c, r->key.data, r->key.len, r->tombstone ? NULL : r->value.data,
                                 r->value.len);
        if ((rc != 0) != r->rejected)
            fail_msg("replay %s record %zu of the log (type %d): %d",
                     r->rejected ? "accepted the rejected" : "rejected", i,
                     r->key.len >= 2 ? (r->key.data[0] << 8 | r->key.data[1]) : -1, rc);
    }
}

void ct_reload(ct_t *t)
{
    ct_replay_log(t, t->c, false);
    kc_coord_loaded(t->c, t->now);
}

kc_coord_t *ct_replayed(ct_t *t, bool compacted)
{
    kc_coord_t *c = coord_make(t);
    ct_replay_log(t, c, compacted);
    kc_coord_loaded(c, t->now);
    return c;
}

/* Keeps only what the log cleaner leaves: the last record of each key,
 * tombstones dropped. */
static void compact_log(ct_t *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nrecs; i++) {
        if (t->recs[i].tombstone || superseded(t, i)) {
            kc_buf_deinit(&t->recs[i].key);
            kc_buf_deinit(&t->recs[i].value);
            continue;
        }
        t->recs[n++] = t->recs[i];
    }
    t->nrecs = n;
}

void ct_restart(ct_t *t, bool compacted)
{
    if (compacted)
        compact_log(t);
    kc_coord_t *c = ct_replayed(t, false);
    kc_coord_free(t->c);
    t->c = c;
}

void ct_check_replay(ct_t *t)
{
    kc_coord_t *r = ct_replayed(t, false);
    ct_dump_t live = {0}, replayed = {0};
    ct_dump_state(t->c, NULL, &live);
    ct_dump_state(r, &live, &replayed);
    char *msg = ct_dump_diff(&live, &replayed);
    if (getenv("KC_CT_DUMP")) { /* to see what is compared */
        for (size_t i = 0; i < live.n; i++)
            print_message("dump: %s | %s | %s = %s\n", live.f[i].group, live.f[i].member,
                          live.f[i].field, live.f[i].value);
        for (size_t i = 0; i < live.nskipped; i++)
            print_message("dump: %s left out\n", live.skipped[i]);
    }
    ct_dump_free(&live);
    ct_dump_free(&replayed);
    kc_coord_free(r);
    if (msg) {
        static char buf[4096];
        snprintf(buf, sizeof(buf), "%s", msg);
        free(msg);
        fail_msg("live and replayed state differ after %zu records: %s", t->nrecs, buf);
    }
}

/* ---- the dump ------------------------------------------------------------- */

/* Where fields go: the dump, the group and member they belong to, and an
 * arena for the values being built. */
typedef struct {
    ct_dump_t *d;
    const char *group;
    const char *member;
    kc_arena_t *arena;
} dumper_t;

/* A printable copy of len bytes (\xNN for what is not printable ASCII). */
static char *escape(kc_arena_t *a, const char *s, size_t len)
{
    char *o = kc_arena_alloc(a, len * 4 + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '"')
            o[n++] = (char)ch;
        else
            n += (size_t)sprintf(o + n, "\\x%02x", ch);
    }
    o[n] = '\0';
    return o;
}

/* "null", or the string quoted and escaped. */
static const char *q(dumper_t *w, const char *s)
{
    if (!s)
        return "null";
    char *e = escape(w->arena, s, strlen(s));
    char *o = kc_arena_alloc(w->arena, strlen(e) + 3);
    sprintf(o, "\"%s\"", e);
    return o;
}

static const char *hex(dumper_t *w, const uint8_t *p, size_t n)
{
    char *o = kc_arena_alloc(w->arena, 2 * n + 3);
    o[0] = '0';
    o[1] = 'x';
    for (size_t i = 0; i < n; i++)
        sprintf(o + 2 + 2 * i, "%02x", p[i]);
    o[2 + 2 * n] = '\0';
    return o;
}

static const char *uuid_hex(dumper_t *w, kc_uuid_t id) { return hex(w, id.b, sizeof(id.b)); }

/* Adds the field of w's group and member with a printf value. */
static void put(dumper_t *w, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void put(dumper_t *w, const char *field, const char *fmt, ...)
{
    ct_dump_t *d = w->d;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 256;
        d->f = kc_xrealloc(d->f, d->cap * sizeof(*d->f));
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *v = kc_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(v, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ct_field_t *f = &d->f[d->n++];
    f->group = kc_xstrdup(w->group);
    f->member = kc_xstrdup(w->member ? w->member : "");
    f->field = kc_xstrdup(field);
    f->value = v;
}

/* Appends a printf to b (values are built in a kc_buf_t, then bdone). */
static void bprintf(kc_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bprintf(kc_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = (char *)kc_buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* A copy of b in the dumper's arena, NUL-terminated; b is freed. */
static const char *bdone(dumper_t *w, kc_buf_t *b)
{
    char *o = kc_arena_alloc(w->arena, b->len + 1);
    if (b->len)
        memcpy(o, b->data, b->len);
    o[b->len] = '\0';
    kc_buf_deinit(b);
    return o;
}

/* A copy (in the arena) of n pointers, sorted with cmp. */
static int cmp_slot_key(const void *a, const void *b)
{
    int32_t x = ((const kc_int_map_slot_t *)a)->key, y = ((const kc_int_map_slot_t *)b)->key;
    return (x > y) - (x < y);
}

/* The entries of m by key ascending, in the arena; *n of them. */
static kc_int_map_slot_t *sorted_slots(dumper_t *w, const kc_int_map_t *m, int32_t *n)
{
    kc_int_map_slot_t *o = kc_arena_alloc(w->arena, ((size_t)m->n + 1) * sizeof(*o));
    *n = 0;
    for (int32_t i = 0; i < m->cap; i++)
        if (m->slots[i].key >= 0)
            o[(*n)++] = m->slots[i];
    qsort(o, (size_t)*n, sizeof(*o), cmp_slot_key);
    return o;
}

static void *sorted_copy(dumper_t *w, void *const *items, size_t n,
                         int (*cmp)(const void *, const void *))
{
    void **o = kc_arena_alloc(w->arena, (n + 1) * sizeof(*o));
    if (n) {
        memcpy(o, items, n * sizeof(*o));
        qsort(o, n, sizeof(*o), cmp);
    }
    return o;
}

/* The entries of a kc_smap_t. */
typedef struct {
    const char **keys;
    void **vals;
    size_t n;
} kv_list_t;

static void collect_kv(void *ctx, const char *key, void *val)
{
    kv_list_t *l = ctx;
    l->keys[l->n] = key;
    l->vals[l->n] = val;
    l->n++;
}

/* The entries of m sorted by key; arrays in the arena. */
static kv_list_t sorted_kv(dumper_t *w, const kc_smap_t *m)
{
    kv_list_t l = {0};
    l.keys = kc_arena_alloc(w->arena, (m->count + 1) * sizeof(*l.keys));
    l.vals = kc_arena_alloc(w->arena, (m->count + 1) * sizeof(*l.vals));
    kc_smap_foreach(m, collect_kv, &l);
    /* keys and values sorted together (insertion sort: the maps are small) */
    for (size_t i = 1; i < l.n; i++)
        for (size_t j = i; j > 0 && strcmp(l.keys[j - 1], l.keys[j]) > 0; j--) {
            const char *k = l.keys[j];
            l.keys[j] = l.keys[j - 1];
            l.keys[j - 1] = k;
            void *v = l.vals[j];
            l.vals[j] = l.vals[j - 1];
            l.vals[j - 1] = v;
        }
    return l;
}

/* A count map (key -> intptr_t) as "{key=n, ...}". */
static const char *counts(dumper_t *w, const kc_smap_t *m)
{
    kv_list_t l = sorted_kv(w, m);
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "{");
    for (size_t i = 0; i < l.n; i++)
        bprintf(&b, "%s%s=%ld", i ? ", " : "", q(w, l.keys[i]), (long)(intptr_t)l.vals[i]);
    bprintf(&b, "}");
    return bdone(w, &b);
}

static const char *str_list(dumper_t *w, char *const *items, size_t n)
{
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "[");
    for (size_t i = 0; i < n; i++)
        bprintf(&b, "%s%s", i ? ", " : "", q(w, items[i]));
    bprintf(&b, "]");
    return bdone(w, &b);
}

static void int_list(kc_buf_t *b, const int32_t *p, int32_t n)
{
    bprintf(b, "[");
    for (int32_t i = 0; i < n; i++)
        bprintf(b, "%s%d", i ? "," : "", p[i]);
    bprintf(b, "]");
}

/* The partitions of one entry of a set, then "@[e,...]", their assignment
 * epochs, when the set keeps them (*epochs moves past them). */
static void parts_with_epochs(kc_buf_t *b, const int32_t *p, int32_t n, const int32_t **epochs)
{
    int_list(b, p, n);
    if (*epochs) {
        bprintf(b, "@");
        int_list(b, *epochs, n);
        *epochs += n;
    }
}

/* A consumer assignment: "{topic-id:[p,...]@[epoch,...], ...}" (empty
 * topics kept: they are part of what a member holds). */
static const char *asg(dumper_t *w, const kc_asg_t *a)
{
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "{");
    const int32_t *epochs = a->epochs;
    for (int32_t i = 0; i < a->n; i++) {
        bprintf(&b, "%s%s:", i ? ", " : "", uuid_hex(w, a->t[i].topic_id));
        parts_with_epochs(&b, a->t[i].p, a->t[i].n, &epochs);
    }
    bprintf(&b, "}");
    return bdone(w, &b);
}

/* A streams task set: "{subtopology:[p,...]@[epoch,...], ...}". */
static const char *tasks(dumper_t *w, const kc_tasks_t *t)
{
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "{");
    const int32_t *epochs = t->epochs;
    for (int32_t i = 0; i < t->n; i++) {
        bprintf(&b, "%s%s:", i ? ", " : "", q(w, t->s[i].subtopology_id));
        parts_with_epochs(&b, t->s[i].p, t->s[i].n, &epochs);
    }
    bprintf(&b, "}");
    return bdone(w, &b);
}

static void put_tuple(dumper_t *w, const char *name, const kc_tasks_tuple_t *t)
{
    char f[64];
    snprintf(f, sizeof(f), "%s.active", name);
    put(w, f, "%s", tasks(w, &t->active));
    snprintf(f, sizeof(f), "%s.standby", name);
    put(w, f, "%s", tasks(w, &t->standby));
    snprintf(f, sizeof(f), "%s.warmup", name);
    put(w, f, "%s", tasks(w, &t->warmup));
}

static const char *protocols(dumper_t *w, const kc_group_protocol_t *p, int32_t n)
{
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "[");
    for (int32_t i = 0; i < n; i++)
        bprintf(&b, "%s%s:%s", i ? ", " : "", q(w, p[i].name),
                hex(w, p[i].metadata, (size_t)p[i].metadata_len));
    bprintf(&b, "]");
    return bdone(w, &b);
}

/* ---- groups: the one place that knows how the coordinator keeps them ------- */

/* Calls fn for every group of c, whatever its type (groups.h's one map). */
static void each_group(kc_coord_t *c, void (*fn)(void *arg, kc_group_t *g), void *arg)
{
    static const kc_group_type_t types[] = {KC_GROUP_CLASSIC, KC_GROUP_CONSUMER,
                                            KC_GROUP_STREAMS};
    for (size_t k = 0; k < KC_ARRAY_LEN(types); k++) {
        size_t n;
        kc_group_t **gs = kc_groups_list(c, types[k], &n);
        for (size_t i = 0; i < n; i++)
            fn(arg, gs[i]);
        free(gs);
    }
}

/* ---- classic groups -------------------------------------------------------- */

static const char *const classic_states[] = {"Empty", "PreparingRebalance",
                                             "CompletingRebalance", "Stable", "Dead"};

static int cmp_classic_member(const void *a, const void *b)
{
    return strcmp((*(classic_member_t *const *)a)->member_id, (*(classic_member_t *const *)b)->member_id);
}

/* Why a live classic group is left out of the comparison (see the top), or
 * NULL when it is compared. */
static const char *classic_not_compared(kc_coord_t *c, const kc_classic_group_t *g)
{
    if (g->state != CLASSIC_EMPTY && g->state != CLASSIC_STABLE)
        return classic_states[g->state];
    if (!g->protocol_type && g->nmembers == 0 &&
        !kc_offsets_group_has_offsets(c, (kc_str_t){g->group_id, (int32_t)g->group_id_len}))
        return "simple group without offsets";
    return NULL;
}

static void dump_classic(dumper_t *w, const kc_classic_group_t *g)
{
    put(w, "type", "classic");
    put(w, "classic.state", "%s", classic_states[g->state]);
    put(w, "classic.generation", "%d", g->generation_id);
    put(w, "classic.protocol_type", "%s", q(w, g->protocol_type));
    put(w, "classic.protocol_name", "%s", q(w, g->protocol_name));
    put(w, "classic.leader", "%s", q(w, g->leader_id));
    /* A Stable group's own timestamp is left out: the leader's SyncGroup
     * writes the record while the group is still CompletingRebalance and
     * moves it to Stable after the write, so Kafka's record carries the
     * older time (classicGroupSyncToClassicGroup), which replay restores. */
    if (g->state == CLASSIC_EMPTY)
        put(w, "classic.current_state_timestamp", "%lld", (long long)g->current_state_timestamp);
    classic_member_t **ms = sorted_copy(w, (void *const *)g->members, g->nmembers, cmp_classic_member);
    for (size_t i = 0; i < g->nmembers; i++) {
        const classic_member_t *m = ms[i];
        dumper_t mw = *w;
        mw.member = escape(w->arena, m->member_id, strlen(m->member_id));
        put(&mw, "exists", "yes");
        put(&mw, "instance_id", "%s", q(w, m->group_instance_id));
        put(&mw, "client_id", "%s", q(w, m->client_id));
        put(&mw, "client_host", "%s", q(w, m->client_host));
        put(&mw, "rebalance_timeout_ms", "%d", m->rebalance_timeout_ms);
        put(&mw, "session_timeout_ms", "%d", m->session_timeout_ms);
        put(&mw, "protocol_type", "%s", q(w, m->protocol_type));
        const char *meta = "none";
        for (int32_t k = 0; k < m->nprotocols; k++)
            if (g->protocol_name && strcmp(m->protocols[k].name, g->protocol_name) == 0)
                meta = hex(w, m->protocols[k].metadata, (size_t)m->protocols[k].metadata_len);
        put(&mw, "selected_protocol_metadata", "%s", meta);
        put(&mw, "assignment", "%s", hex(w, m->assignment, (size_t)m->assignment_len));
    }
}

/* ---- consumer groups ------------------------------------------------------ */

static int cmp_cs_member(const void *a, const void *b)
{
    return strcmp((*(cs_member_t *const *)a)->member_id, (*(cs_member_t *const *)b)->member_id);
}

static const char *member_ids(dumper_t *w, const kc_smap_t *m, size_t off)
{
    kv_list_t l = sorted_kv(w, m);
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "{");
    for (size_t i = 0; i < l.n; i++)
        bprintf(&b, "%s%s=%s", i ? ", " : "", q(w, l.keys[i]),
                q(w, *(char *const *)((const char *)l.vals[i] + off)));
    bprintf(&b, "}");
    return bdone(w, &b);
}

static void dump_consumer_member(dumper_t *w, const cs_member_t *m)
{
    put(w, "exists", "yes");
    put(w, "instance_id", "%s", q(w, m->instance_id));
    put(w, "rack_id", "%s", q(w, m->rack_id));
    put(w, "client_id", "%s", q(w, m->client_id));
    put(w, "client_host", "%s", q(w, m->client_host));
    put(w, "subscribed_topic_names", "%s", str_list(w, m->topics, (size_t)m->ntopics));
    put(w, "subscribed_topic_regex", "%s", q(w, m->regex));
    put(w, "rebalance_timeout_ms", "%d", m->rebalance_timeout_ms);
    put(w, "server_assignor", "%s", q(w, m->server_assignor));
    put(w, "member_epoch", "%d", m->member_epoch);
    put(w, "previous_member_epoch", "%d", m->previous_member_epoch);
    put(w, "state", "%d", m->state);
    put(w, "assigned_partitions", "%s", asg(w, &m->assigned));
    put(w, "partitions_pending_revocation", "%s", asg(w, &m->pending));
    put(w, "target_assignment", "%s", asg(w, &m->target));
    if (m->classic) {
        put(w, "classic.session_timeout_ms", "%d", m->classic->session_timeout_ms);
        put(w, "classic.supported_protocols", "%s",
            protocols(w, m->classic->protocols, m->classic->nprotocols));
    } else {
        put(w, "classic", "none");
    }
}

static void dump_consumer(dumper_t *w, const kc_consumer_group_t *g)
{
    put(w, "type", "consumer");
    put(w, "consumer.group_epoch", "%d", g->group_epoch);
    put(w, "consumer.metadata_hash", "%lld", (long long)g->metadata_hash);
    put(w, "consumer.assignment_epoch", "%d", g->assignment_epoch);
    put(w, "consumer.has_group_record", "%s", g->has_group_record ? "yes" : "no");
    put(w, "consumer.members_high_water", "%zu", g->members.hw);
    put(w, "consumer.instance_ids", "%s",
        member_ids(w, &g->members.by_instance, offsetof(cs_member_t, member_id)));
    put(w, "consumer.subscribed_topic_counts", "%s", counts(w, &g->topic_refs));
    put(w, "consumer.subscribed_regex_counts", "%s", counts(w, &g->regex_refs));
    put(w, "consumer.server_assignor_counts", "%s", counts(w, &g->assignor_refs));
    kv_list_t rl = sorted_kv(w, &g->resolved);
    for (size_t i = 0; i < rl.n; i++) {
        const cs_resolved_t *r = rl.vals[i];
        char f[256];
        const char *re = escape(w->arena, rl.keys[i], strlen(rl.keys[i]));
        snprintf(f, sizeof(f), "consumer.resolved_regex[%s].topics", re);
        put(w, f, "%s", str_list(w, r->topics, (size_t)r->n));
        snprintf(f, sizeof(f), "consumer.resolved_regex[%s].version", re);
        put(w, f, "%lld", (long long)r->version);
        snprintf(f, sizeof(f), "consumer.resolved_regex[%s].timestamp_ms", re);
        put(w, f, "%lld", (long long)r->timestamp_ms);
    }
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "{");
    for (int32_t i = 0; i < g->nowners; i++) {
        const cs_owner_t *o = &g->owners[i];
        int32_t n;
        const kc_int_map_slot_t *e = sorted_slots(w, &o->epoch, &n);
        for (int32_t j = 0; j < n; j++)
            bprintf(&b, "%s%s-%d=%d", b.len > 1 ? ", " : "", uuid_hex(w, o->topic_id), e[j].key,
                    (int)e[j].val);
    }
    bprintf(&b, "}");
    put(w, "consumer.partition_epochs", "%s", bdone(w, &b));
    kc_buf_init(&b);
    bprintf(&b, "[");
    for (size_t i = 0; i < g->members.n; i++)
        bprintf(&b, "%s%s", i ? ", " : "", q(w, g->members.items[i]->member_id));
    bprintf(&b, "]");
    put(w, "consumer.member_order", "%s", bdone(w, &b));
    cs_member_t **ms =
        sorted_copy(w, (void *const *)g->members.items, g->members.n, cmp_cs_member);
    for (size_t i = 0; i < g->members.n; i++) {
        dumper_t mw = *w;
        mw.member = escape(w->arena, ms[i]->member_id, strlen(ms[i]->member_id));
        dump_consumer_member(&mw, ms[i]);
    }
    put(w, "consumer.members_by_id", "%zu", g->members.by_id.count);
}

/* ---- streams groups ------------------------------------------------------- */

static int cmp_st_member(const void *a, const void *b)
{
    return strcmp((*(st_member_t *const *)a)->member_id, (*(st_member_t *const *)b)->member_id);
}

static void dump_streams_member(dumper_t *w, const st_member_t *m, size_t table_rank)
{
    put(w, "exists", "yes");
    put(w, "instance_id", "%s", q(w, m->instance_id));
    put(w, "rack_id", "%s", q(w, m->rack_id));
    put(w, "client_id", "%s", q(w, m->client_id));
    put(w, "client_host", "%s", q(w, m->client_host));
    put(w, "process_id", "%s", q(w, m->process_id));
    put(w, "rebalance_timeout_ms", "%d", m->rebalance_timeout_ms);
    put(w, "topology_epoch", "%d", m->topology_epoch);
    if (m->endpoint_host)
        put(w, "user_endpoint", "%s:%d", q(w, m->endpoint_host), m->endpoint_port);
    else
        put(w, "user_endpoint", "null");
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "{");
    for (int32_t i = 0; i < m->ntags; i++)
        bprintf(&b, "%s%s=%s", i ? ", " : "", q(w, m->tag_keys[i]), q(w, m->tag_values[i]));
    bprintf(&b, "}");
    put(w, "client_tags", "%s", bdone(w, &b));
    put(w, "member_epoch", "%d", m->member_epoch);
    put(w, "previous_member_epoch", "%d", m->previous_member_epoch);
    put(w, "state", "%d", m->state);
    put_tuple(w, "assigned", &m->assigned);
    put_tuple(w, "pending_revocation", &m->pending);
    put_tuple(w, "target", &m->target);
    put(w, "has_target_record", "%s", m->has_target ? "yes" : "no");
    put(w, "members_table_rank", "%zu", table_rank);
}

/* Rank (1-based) of m among the members in Kafka's members table, by
 * insertion number; 0 when not in it. */
static size_t streams_table_rank(const kc_streams_group_t *g, const st_member_t *m)
{
    if (!m->table_seq)
        return 0;
    size_t rank = 1;
    for (size_t i = 0; i < g->members.n; i++)
        if (st_member_at(g, i)->table_seq && st_member_at(g, i)->table_seq < m->table_seq)
            rank++;
    return rank;
}

static void dump_streams(dumper_t *w, const kc_streams_group_t *g)
{
    put(w, "type", "streams");
    put(w, "streams.group_epoch", "%d", g->group_epoch);
    put(w, "streams.metadata_hash", "%lld", (long long)g->metadata_hash);
    put(w, "streams.validated_topology_epoch", "%d", g->validated_topology_epoch);
    put(w, "streams.last_num_standby_replicas", "%d", g->last_num_standby);
    put(w, "streams.stored_description_topology_epoch", "%d", g->td.stored_epoch);
    put(w, "streams.failed_description_topology_epoch", "%d", g->td.failed_epoch);
    put(w, "streams.assignment_epoch", "%d", g->assignment_epoch);
    put(w, "streams.assignment_timestamp", "%lld", (long long)g->assignment_timestamp);
    put(w, "streams.topology", "%s",
        g->topology ? hex(w, g->topo_bytes.data, g->topo_bytes.len) : "none");
    put(w, "streams.has_group_record", "%s", g->has_group_record ? "yes" : "no");
    put(w, "streams.members_table_capacity", "%u", g->mtable_cap);
    put(w, "streams.members_table_size", "%u", g->mtable_size);
    put(w, "streams.instance_ids", "%s",
        member_ids(w, &g->members.by_instance, offsetof(st_member_t, member_id)));
    kv_list_t ol = sorted_kv(w, &g->owners);
    kc_buf_t b;
    kc_buf_init(&b);
    bprintf(&b, "{");
    for (size_t i = 0; i < ol.n; i++) {
        const st_owner_t *o = ol.vals[i];
        int32_t n;
        const kc_int_map_slot_t *e = sorted_slots(w, &o->owner, &n);
        for (int32_t j = 0; j < n; j++)
            bprintf(&b, "%s%s-%d=%s", b.len > 1 ? ", " : "", q(w, ol.keys[i]), e[j].key,
                    q(w, ((const st_member_t *)e[j].val)->member_id));
    }
    bprintf(&b, "}");
    put(w, "streams.active_task_owners", "%s", bdone(w, &b));
    st_member_t **ms =
        sorted_copy(w, (void *const *)g->members.items, g->members.n, cmp_st_member);
    for (size_t i = 0; i < g->members.n; i++) {
        dumper_t mw = *w;
        mw.member = escape(w->arena, ms[i]->member_id, strlen(ms[i]->member_id));
        dump_streams_member(&mw, ms[i], streams_table_rank(g, ms[i]));
    }
    put(w, "streams.members_by_id", "%zu", g->members.by_id.count);
}

/* ---- groups tables, offsets ------------------------------------------------ */

/* The __consumer_offsets partition of a group id (Kafka's partitionFor). */
static int partition_of(const kc_coord_t *c, const char *id, size_t len)
{
    int32_t h = kc_java_string_hash(id, len);
    int64_t a = h == INT32_MIN ? 0 : (h < 0 ? -(int64_t)h : h);
    return (int)(a % c->cfg.offsets_topic_num_partitions);
}

typedef struct {
    const char *id;
    size_t len;
    kc_group_t *g;
    uint64_t table_seq;
    int partition;
} listed_t;

typedef struct {
    kc_coord_t *c;
    listed_t *items;
    size_t n, cap;
} group_list_t;

static void list_group(void *arg, kc_group_t *g)
{
    group_list_t *l = arg;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->items = kc_xrealloc(l->items, l->cap * sizeof(*l->items));
    }
    listed_t *e = &l->items[l->n++];
    e->g = g;
    e->id = g->ops->id(g);
    /* A classic group id may hold NUL bytes (its map key is all of it). */
    e->len = g->ops->type == KC_GROUP_CLASSIC ? ((const kc_classic_group_t *)g)->group_id_len
                                              : strlen(e->id);
    e->table_seq = g->ops->table_seq(g);
    e->partition = partition_of(l->c, e->id, e->len);
}

static int cmp_listed(const void *a, const void *b)
{
    const listed_t *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int r = memcmp(x->id, y->id, n);
    return r ? r : (x->len > y->len) - (x->len < y->len);
}

/* Rank (1-based) of e among the groups of its partition by insertion number. */
static size_t table_rank(const group_list_t *l, const listed_t *e)
{
    size_t rank = 1;
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].partition == e->partition && l->items[i].table_seq < e->table_seq)
            rank++;
    return rank;
}

static int cmp_topic(const void *a, const void *b)
{
    const kc_offsets_topic_t *x = *(const kc_offsets_topic_t *const *)a;
    const kc_offsets_topic_t *y = *(const kc_offsets_topic_t *const *)b;
    return strcmp(x->name, y->name);
}

static int cmp_entry(const void *a, const void *b)
{
    const kc_offset_entry_t *x = *(const kc_offset_entry_t *const *)a;
    const kc_offset_entry_t *y = *(const kc_offset_entry_t *const *)b;
    return (x->partition > y->partition) - (x->partition < y->partition);
}

static void dump_offsets(dumper_t *w, const kc_offsets_group_t *og)
{
    put(w, "offsets.table_capacity", "%u", og->kafka_cap);
    const kc_offsets_topic_t **ts = kc_arena_alloc(w->arena, (og->ntopics + 1) * sizeof(*ts));
    for (uint32_t i = 0; i < og->ntopics; i++)
        ts[i] = &og->topics[i];
    qsort(ts, og->ntopics, sizeof(*ts), cmp_topic);
    for (uint32_t i = 0; i < og->ntopics; i++) {
        const kc_offsets_topic_t *t = ts[i];
        const char *tn = escape(w->arena, t->name, (size_t)t->name_len);
        char f[512];
        uint32_t trank = 1;
        for (uint32_t k = 0; k < og->ntopics; k++)
            trank += og->topics[k].kafka_seq < t->kafka_seq;
        snprintf(f, sizeof(f), "offsets[%s].table_rank", tn);
        put(w, f, "%u", trank);
        snprintf(f, sizeof(f), "offsets[%s].table_capacity", tn);
        put(w, f, "%u", t->kafka_cap);
        const kc_offset_entry_t **es = kc_arena_alloc(w->arena, (t->nparts + 1) * sizeof(*es));
        for (uint32_t k = 0; k < t->nparts; k++)
            es[k] = &t->parts[k];
        qsort(es, t->nparts, sizeof(*es), cmp_entry);
        for (uint32_t k = 0; k < t->nparts; k++) {
            const kc_offset_entry_t *e = es[k];
            uint32_t prank = 1;
            for (uint32_t j = 0; j < t->nparts; j++)
                prank += t->parts[j].kafka_seq < e->kafka_seq;
            const char *meta = e->metadata ? escape(w->arena, e->metadata, (size_t)e->metadata_len)
                                           : "";
            snprintf(f, sizeof(f), "offsets[%s-%d]", tn, e->partition);
            size_t fl = strlen(f);
            snprintf(f + fl, sizeof(f) - fl, ".committed_offset");
            put(w, f, "%lld", (long long)e->offset);
            snprintf(f + fl, sizeof(f) - fl, ".leader_epoch");
            put(w, f, "%d", e->leader_epoch);
            snprintf(f + fl, sizeof(f) - fl, ".metadata");
            put(w, f, "\"%s\"", meta);
            snprintf(f + fl, sizeof(f) - fl, ".commit_timestamp_ms");
            put(w, f, "%lld", (long long)e->commit_timestamp_ms);
            snprintf(f + fl, sizeof(f) - fl, ".expire_timestamp_ms");
            put(w, f, "%lld", (long long)e->expire_timestamp_ms);
            snprintf(f + fl, sizeof(f) - fl, ".topic_id");
            put(w, f, "%s", uuid_hex(w, e->topic_id));
            snprintf(f + fl, sizeof(f) - fl, ".table_rank");
            put(w, f, "%u", prank);
        }
    }
}

static int cmp_field(const void *a, const void *b)
{
    const ct_field_t *x = a, *y = b;
    int r = strcmp(x->group, y->group);
    if (!r)
        r = strcmp(x->member, y->member);
    return r ? r : strcmp(x->field, y->field);
}

static bool in_list(char *const *ids, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ids[i], id) == 0)
            return true;
    return false;
}

void ct_dump_state(kc_coord_t *c, const ct_dump_t *like, ct_dump_t *out)
{
    memset(out, 0, sizeof(*out));
    kc_arena_t arena;
    kc_arena_init(&arena);
    group_list_t l = {c, NULL, 0, 0};
    each_group(c, list_group, &l);
    if (l.n)
        qsort(l.items, l.n, sizeof(*l.items), cmp_listed);
    /* The groups left out first: the ranks count the others only. */
    bool *skipped_partition = kc_arena_alloc(
        &arena, (size_t)c->cfg.offsets_topic_num_partitions * sizeof(*skipped_partition));
    memset(skipped_partition, 0,
           (size_t)c->cfg.offsets_topic_num_partitions * sizeof(*skipped_partition));
    size_t kept = 0;
    for (size_t i = 0; i < l.n; i++) {
        listed_t *e = &l.items[i];
        char *id = escape(&arena, e->id, e->len);
        bool skip = like ? in_list(like->skipped, like->nskipped, id)
                         : e->g->ops->type == KC_GROUP_CLASSIC &&
                               classic_not_compared(c, (const kc_classic_group_t *)e->g) != NULL;
        if (!skip) {
            l.items[kept++] = *e;
            continue;
        }
        out->skipped = kc_xrealloc(out->skipped, (out->nskipped + 1) * sizeof(*out->skipped));
        out->skipped[out->nskipped++] = kc_xstrdup(id);
        skipped_partition[e->partition] = true;
    }
    l.n = kept;
    for (size_t i = 0; i < l.n; i++) {
        const listed_t *e = &l.items[i];
        dumper_t w = {out, escape(&arena, e->id, e->len), NULL, &arena};
        put(&w, "table_rank", "%d/%zu", e->partition, table_rank(&l, e));
        if (e->g->ops->type == KC_GROUP_CLASSIC)
            dump_classic(&w, (const kc_classic_group_t *)e->g);
        else if (e->g->ops->type == KC_GROUP_CONSUMER)
            dump_consumer(&w, (const kc_consumer_group_t *)e->g);
        else
            dump_streams(&w, (const kc_streams_group_t *)e->g);
    }
    const kc_offsets_map_t *m = kc_offsets_map_of(c);
    for (uint32_t i = 0; i < m->ngroups; i++) {
        const kc_offsets_group_t *og = m->groups[i];
        dumper_t w = {out, escape(&arena, og->id, (size_t)og->id_len), NULL, &arena};
        dump_offsets(&w, og);
    }
    /* A partition whose table holds a group left out differs by it. */
    dumper_t w = {out, "", NULL, &arena};
    for (int32_t p = 0; p < c->cfg.offsets_topic_num_partitions; p++) {
        if (!c->groups_table_size[p] || skipped_partition[p])
            continue;
        char f[64];
        snprintf(f, sizeof(f), "groups_table[%d].size", p);
        put(&w, f, "%u", c->groups_table_size[p]);
    }
    free(l.items);
    kc_arena_deinit(&arena);
    if (out->n)
        qsort(out->f, out->n, sizeof(*out->f), cmp_field);
}

void ct_dump_free(ct_dump_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->f[i].group);
        free(d->f[i].member);
        free(d->f[i].field);
        free(d->f[i].value);
    }
    free(d->f);
    for (size_t i = 0; i < d->nskipped; i++)
        free(d->skipped[i]);
    free(d->skipped);
    memset(d, 0, sizeof(*d));
}

/* ---- the comparison ------------------------------------------------------- */

/* A malloc'ed printf. */
static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *o = kc_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(o, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return o;
}

static char *diff_msg(const ct_field_t *key, const char *live, const char *replayed)
{
    if (key->member[0])
        return xprintf("group \"%s\" member \"%s\": field %s: live %s, replayed %s", key->group,
                       key->member, key->field, live, replayed);
    return xprintf("group \"%s\": field %s: live %s, replayed %s", key->group, key->field, live,
                   replayed);
}

static const ct_field_t *find_field(const ct_dump_t *d, const char *group, const char *field)
{
    ct_field_t key = {(char *)group, (char *)"", (char *)field, NULL};
    return d->n ? bsearch(&key, d->f, d->n, sizeof(*d->f), cmp_field) : NULL;
}

/* A group of a's that b does not have. */
static char *missing_group(const ct_dump_t *a, const ct_dump_t *b, bool a_is_live)
{
    for (size_t i = 0; i < a->n; i++) {
        const ct_field_t *f = &a->f[i];
        if (f->member[0] || strcmp(f->field, "type") != 0 || find_field(b, f->group, "type"))
            continue;
        return xprintf("group \"%s\": %s has a %s group, %s has none", f->group,
                       a_is_live ? "live" : "replayed", f->value, a_is_live ? "replayed" : "live");
    }
    return NULL;
}

char *ct_dump_diff(const ct_dump_t *live, const ct_dump_t *replayed)
{
    char *msg = missing_group(live, replayed, true);
    if (!msg)
        msg = missing_group(replayed, live, false);
    if (msg)
        return msg;
    size_t i = 0, j = 0;
    while (i < live->n || j < replayed->n) {
        const ct_field_t *a = i < live->n ? &live->f[i] : NULL;
        const ct_field_t *b = j < replayed->n ? &replayed->f[j] : NULL;
        int r = !a ? 1 : !b ? -1 : cmp_field(a, b);
        if (r < 0)
            return diff_msg(a, a->value, "<none>");
        if (r > 0)
            return diff_msg(b, "<none>", b->value);
        if (strcmp(a->value, b->value) != 0)
            return diff_msg(a, a->value, b->value);
        i++;
        j++;
    }
    return NULL;
}
