/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Coordinator lifecycle, results, keyed timers and the replay dispatch by
 * record type. The group protocols live in classic.c, consumer.c and offsets.c; this
 * file holds no group rule.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "groups.h"
#include "kc_log.h"

/* ---- config ------------------------------------------------------------ */

/* Each property's default text (KC_COORD_PROPERTIES, coord_config.h) into
 * its field, by kind. The texts are conf/'s defaults too, which it checks
 * at every start (and its unit test checks that both read them alike). */
#define DEFAULT_INT(cfg, field, text) (cfg)->field = (int32_t)strtol(text, NULL, 10);
#define DEFAULT_LONG(cfg, field, text) (cfg)->field = strtoll(text, NULL, 10);
#define DEFAULT_BOOL(cfg, field, text) (cfg)->field = strcmp(text, "true") == 0;
#define DEFAULT_MINUTES(cfg, field, text)                                                          \
    (cfg)->field = strtoll(text, NULL, 10) * KC_COORD_MS_PER_MINUTE;
#define DEFAULT_ASSIGNORS(cfg, field, text) kc_coord_config_set_assignors(cfg, text);
#define DEFAULT_MIGRATION(cfg, field, text) kc_coord_config_set_migration(cfg, text);
#define DEFAULT_BOUND(cfg, field, text)
#define DEFAULT_OF(kind, name, text, min, max, field, doc) DEFAULT_##kind(cfg, field, text)

void kc_coord_config_defaults(kc_coord_config_t *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    KC_COORD_PROPERTIES(DEFAULT_OF)
}

#undef DEFAULT_OF
#undef DEFAULT_BOUND
#undef DEFAULT_MIGRATION
#undef DEFAULT_ASSIGNORS
#undef DEFAULT_MINUTES
#undef DEFAULT_BOOL
#undef DEFAULT_LONG
#undef DEFAULT_INT

/* ---- string map -------------------------------------------------------- */

static uint64_t smap_hash(const char *k, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)k[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void kc_smap_init(kc_smap_t *m)
{
    m->nslots = 64;
    m->slots = kc_xcalloc(m->nslots, sizeof(*m->slots));
    m->count = 0;
}

void kc_smap_deinit(kc_smap_t *m)
{
    for (size_t i = 0; i < m->nslots; i++) {
        kc_smap_entry_t *e = m->slots[i];
        while (e) {
            kc_smap_entry_t *n = e->next;
            free(e->key);
            free(e);
            e = n;
        }
    }
    free(m->slots);
    m->slots = NULL;
    m->nslots = m->count = 0;
}

static kc_smap_entry_t **smap_find(const kc_smap_t *m, const char *key, size_t len)
{
    kc_smap_entry_t **pp = &m->slots[smap_hash(key, len) & (m->nslots - 1)];
    while (*pp) {
        if ((*pp)->key_len == len && memcmp((*pp)->key, key, len) == 0)
            return pp;
        pp = &(*pp)->next;
    }
    return pp;
}

void *kc_smap_get(const kc_smap_t *m, const char *key, size_t len)
{
    kc_smap_entry_t **pp = smap_find(m, key, len);
    return *pp ? (*pp)->val : NULL;
}

static void smap_grow(kc_smap_t *m)
{
    size_t n = m->nslots * 2;
    kc_smap_entry_t **slots = kc_xcalloc(n, sizeof(*slots));
    for (size_t i = 0; i < m->nslots; i++) {
        kc_smap_entry_t *e = m->slots[i];
        while (e) {
            kc_smap_entry_t *next = e->next;
            size_t j = smap_hash(e->key, e->key_len) & (n - 1);
            e->next = slots[j];
            slots[j] = e;
            e = next;
        }
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = n;
}

void kc_smap_put(kc_smap_t *m, const char *key, size_t len, void *val)
{
    kc_smap_entry_t **pp = smap_find(m, key, len);
    if (*pp) {
        (*pp)->val = val;
        return;
    }
    kc_smap_entry_t *e = kc_xcalloc(1, sizeof(*e));
    e->key = kc_xstrndup(key, len);
    e->key_len = len;
    e->val = val;
    *pp = e;
    if (++m->count > m->nslots)
        smap_grow(m);
}

void *kc_smap_del(kc_smap_t *m, const char *key, size_t len)
{
    kc_smap_entry_t **pp = smap_find(m, key, len);
    kc_smap_entry_t *e = *pp;
    if (!e)
        return NULL;
    void *val = e->val;
    *pp = e->next;
    free(e->key);
    free(e);
    m->count--;
    return val;
}

void kc_smap_foreach(const kc_smap_t *m, void (*fn)(void *ctx, const char *key, void *val),
                     void *ctx)
{
    for (size_t i = 0; i < m->nslots; i++)
        for (kc_smap_entry_t *e = m->slots[i]; e; e = e->next)
            fn(ctx, e->key, e->val);
}

/* ---- results ----------------------------------------------------------- */

void kc_result_init(kc_result_t *res) { memset(res, 0, sizeof(*res)); }

void kc_result_reset(kc_result_t *res)
{
    for (size_t i = 0; i < res->nrecords; i++) {
        kc_buf_deinit(&res->records[i].key);
        kc_buf_deinit(&res->records[i].value);
    }
    for (size_t i = 0; i < res->nresponses; i++) {
        kc_buf_deinit(&res->responses[i].body);
        kc_buf_deinit(&res->responses[i].error_body);
    }
    res->nrecords = 0;
    res->nresponses = 0;
    res->failed = false;
}

void kc_result_deinit(kc_result_t *res)
{
    kc_result_reset(res);
    free(res->records);
    free(res->responses);
    memset(res, 0, sizeof(*res));
}

void kc_result_add_record(kc_result_t *res, kc_buf_t *key, kc_buf_t *value)
{
    if (res->nrecords == res->records_cap) {
        res->records_cap = res->records_cap ? res->records_cap * 2 : 8;
        res->records = kc_xrealloc(res->records, res->records_cap * sizeof(*res->records));
    }
    kc_record_t *r = &res->records[res->nrecords++];
    memset(r, 0, sizeof(*r));
    r->key = *key;
    kc_buf_init(key);
    r->tombstone = value == NULL;
    if (value) {
        r->value = *value;
        kc_buf_init(value);
    } else {
        kc_buf_init(&r->value);
    }
}

bool kc_result_wrote_since(const kc_result_t *res, size_t first)
{
    return res->nrecords > first || res->failed;
}

/* Appends l bytes of s to buf (n used of cap, one kept for the NUL). */
static void key_append(char *buf, size_t cap, size_t *n, const char *s, size_t l)
{
    if (l > cap - 1 - *n)
        l = cap - 1 - *n;
    memcpy(buf + *n, s, l);
    *n += l;
}

void kc_timer_key(char *buf, size_t cap, const char *prefix, kc_str_t g, const char *m)
{
    size_t n = 0;
    key_append(buf, cap, &n, prefix, strlen(prefix));
    for (int32_t i = 0; i < g.len; i++) {
        char ch = g.ptr[i];
        if (ch == '\0' || ch == '\\' || ch == '-')
            key_append(buf, cap, &n, "\\", 1);
        key_append(buf, cap, &n, ch == '\0' ? "0" : &ch, 1);
    }
    if (m) {
        key_append(buf, cap, &n, "-", 1);
        key_append(buf, cap, &n, m, strlen(m));
    }
    buf[n] = '\0';
}

/* ---- records: one codec table by record type --------------------------- */

/* Encoders of a type's Key message (version 0, from the key's fields) and
 * Value message (at the given version, from its generated struct). */
typedef int (*record_key_fn)(kc_buf_t *out, const kc_record_key_t *k);
typedef int (*record_value_fn)(kc_buf_t *out, int16_t version, const void *v);
/* A record type's replay: the stored key and value (NULL: a tombstone),
 * and msg, the value's generated struct when the live path wrote it (the
 * bytes were encoded from it) or NULL when it comes from storage. */
typedef int (*record_replay_fn)(kc_coord_t *c, const uint8_t *key, size_t key_len,
                                const uint8_t *value, size_t value_len, const void *msg);

/* Key messages made of GroupId, or of GroupId and MemberId. */
#define GROUP_KEY(msg)                                                                             \
    static int msg##_key(kc_buf_t *out, const kc_record_key_t *k)                                  \
    {                                                                                              \
        kc_##msg##_key_t m;                                                                        \
        kc_##msg##_key_init(&m);                                                                   \
        m.group_id = k->group_id;                                                                  \
        return kc_##msg##_key_encode(out, 0, &m);                                                  \
    }
#define MEMBER_KEY(msg)                                                                            \
    static int msg##_key(kc_buf_t *out, const kc_record_key_t *k)                                  \
    {                                                                                              \
        kc_##msg##_key_t m;                                                                        \
        kc_##msg##_key_init(&m);                                                                   \
        m.group_id = k->group_id;                                                                  \
        m.member_id = k->member_id;                                                                \
        return kc_##msg##_key_encode(out, 0, &m);                                                  \
    }
#define VALUE(msg)                                                                                 \
    static int msg##_value(kc_buf_t *out, int16_t version, const void *v)                          \
    {                                                                                              \
        return kc_##msg##_value_encode(out, version, v);                                           \
    }

static int offset_commit_key(kc_buf_t *out, const kc_record_key_t *k)
{
    kc_offset_commit_key_t m;
    kc_offset_commit_key_init(&m);
    m.group = k->group_id;
    m.topic = k->topic;
    m.partition = k->partition;
    return kc_offset_commit_key_encode(out, 0, &m);
}

static int txn_offset_commit_key(kc_buf_t *out, const kc_record_key_t *k)
{
    kc_txn_offset_commit_key_t m;
    kc_txn_offset_commit_key_init(&m);
    m.group = k->group_id;
    m.topic = k->topic;
    m.partition = k->partition;
    m.producer_id = k->producer_id;
    return kc_txn_offset_commit_key_encode(out, 0, &m);
}

static int group_metadata_key(kc_buf_t *out, const kc_record_key_t *k)
{
    kc_group_metadata_key_t m;
    kc_group_metadata_key_init(&m);
    m.group = k->group_id;
    return kc_group_metadata_key_encode(out, 0, &m);
}

static int consumer_group_regular_expression_key(kc_buf_t *out, const kc_record_key_t *k)
{
    kc_consumer_group_regular_expression_key_t m;
    kc_consumer_group_regular_expression_key_init(&m);
    m.group_id = k->group_id;
    m.regular_expression = k->regex;
    return kc_consumer_group_regular_expression_key_encode(out, 0, &m);
}

GROUP_KEY(consumer_group_metadata)
GROUP_KEY(consumer_group_partition_metadata)
GROUP_KEY(consumer_group_target_assignment_metadata)
MEMBER_KEY(consumer_group_member_metadata)
MEMBER_KEY(consumer_group_target_assignment_member)
MEMBER_KEY(consumer_group_current_member_assignment)
GROUP_KEY(streams_group_metadata)
GROUP_KEY(streams_group_target_assignment_metadata)
GROUP_KEY(streams_group_topology)
MEMBER_KEY(streams_group_member_metadata)
MEMBER_KEY(streams_group_target_assignment_member)
MEMBER_KEY(streams_group_current_member_assignment)
VALUE(offset_commit)
VALUE(txn_offset_commit)
VALUE(group_metadata)
VALUE(consumer_group_metadata)
VALUE(consumer_group_partition_metadata)
VALUE(consumer_group_target_assignment_metadata)
VALUE(consumer_group_member_metadata)
VALUE(consumer_group_target_assignment_member)
VALUE(consumer_group_current_member_assignment)
VALUE(consumer_group_regular_expression)
VALUE(streams_group_metadata)
VALUE(streams_group_target_assignment_metadata)
VALUE(streams_group_topology)
VALUE(streams_group_member_metadata)
VALUE(streams_group_target_assignment_member)
VALUE(streams_group_current_member_assignment)

#define CODEC(msg) msg##_key, msg##_value

/*
 * Every record type kcoord knows, indexed by its generated number: the
 * schema's name (for logs), the codec the writers use and the group type's
 * replay. Type 0 is only read back; type 4 is only tombstoned, and ignored
 * at load as numbers missing here are.
 */
static const struct {
    const char *name;
    record_key_fn key;
    record_value_fn value;
    record_replay_fn replay;
} record_types[] = {
    [KC_RECORD_LEGACY_OFFSET_COMMIT] = {"LegacyOffsetCommit", NULL, NULL, kc_offsets_replay},
    [KC_RECORD_OFFSET_COMMIT] = {"OffsetCommit", CODEC(offset_commit), kc_offsets_replay},
    [KC_RECORD_GROUP_METADATA] = {"GroupMetadata", CODEC(group_metadata), kc_classic_replay},
    [KC_RECORD_CONSUMER_GROUP_METADATA] = {"ConsumerGroupMetadata",
                                           CODEC(consumer_group_metadata), kc_consumer_replay},
    [KC_RECORD_CONSUMER_GROUP_PARTITION_METADATA] = {"ConsumerGroupPartitionMetadata",
                                                     CODEC(consumer_group_partition_metadata),
                                                     NULL},
    [KC_RECORD_CONSUMER_GROUP_MEMBER_METADATA] = {"ConsumerGroupMemberMetadata",
                                                  CODEC(consumer_group_member_metadata),
                                                  kc_consumer_replay},
    [KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA] =
        {"ConsumerGroupTargetAssignmentMetadata",
         CODEC(consumer_group_target_assignment_metadata), kc_consumer_replay},
    [KC_RECORD_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER] =
        {"ConsumerGroupTargetAssignmentMember", CODEC(consumer_group_target_assignment_member),
         kc_consumer_replay},
    [KC_RECORD_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT] =
        {"ConsumerGroupCurrentMemberAssignment", CODEC(consumer_group_current_member_assignment),
         kc_consumer_replay},
    [KC_RECORD_CONSUMER_GROUP_REGULAR_EXPRESSION] = {"ConsumerGroupRegularExpression",
                                                     CODEC(consumer_group_regular_expression),
                                                     kc_consumer_replay},
    [KC_RECORD_STREAMS_GROUP_METADATA] = {"StreamsGroupMetadata", CODEC(streams_group_metadata),
                                          kc_streams_replay},
    [KC_RECORD_STREAMS_GROUP_MEMBER_METADATA] = {"StreamsGroupMemberMetadata",
                                                 CODEC(streams_group_member_metadata),
                                                 kc_streams_replay},
    [KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA] =
        {"StreamsGroupTargetAssignmentMetadata", CODEC(streams_group_target_assignment_metadata),
         kc_streams_replay},
    [KC_RECORD_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER] =
        {"StreamsGroupTargetAssignmentMember", CODEC(streams_group_target_assignment_member),
         kc_streams_replay},
    [KC_RECORD_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT] =
        {"StreamsGroupCurrentMemberAssignment", CODEC(streams_group_current_member_assignment),
         kc_streams_replay},
    [KC_RECORD_STREAMS_GROUP_TOPOLOGY] = {"StreamsGroupTopology", CODEC(streams_group_topology),
                                          kc_streams_replay},
    [KC_RECORD_TXN_OFFSET_COMMIT] = {"TxnOffsetCommit", CODEC(txn_offset_commit),
                                     kc_offsets_replay},
};

static bool record_type_known(int16_t type)
{
    return type >= 0 && (size_t)type < KC_ARRAY_LEN(record_types) && record_types[type].name;
}

/* Why an encoder refused, for the log line. */
static const char *encode_error_text(int rc)
{
    switch (rc) {
    case KC_EVERSION:
        return "the version is not supported";
    case KC_EINVAL:
        return "a field does not fit (a string over 32767 bytes, a null where none is allowed, "
               "or a value the version cannot carry)";
    default:
        return "encoder error";
    }
}

/* kc_record_write and the *_replay writers: the value is the struct value
 * or, when encoded is set, those bytes. */
static int record_write(kc_result_t *res, int16_t type, const kc_record_key_t *key,
                        int16_t value_version, const void *value, const kc_buf_t *encoded)
{
    bool codec = record_type_known(type) && record_types[type].key;
    bool tombstone = value == NULL && encoded == NULL;
    kc_buf_t k, v;
    kc_buf_init(&k);
    kc_buf_init(&v);
    int rc = KC_EINVAL;
    if (codec) {
        kc_write_int16(&k, type);
        rc = record_types[type].key(&k, key);
    }
    if (rc == 0 && !tombstone) {
        kc_write_int16(&v, value_version);
        if (encoded)
            kc_buf_append(&v, encoded->data, encoded->len);
        else
            rc = record_types[type].value(&v, value_version, value);
    }
    if (rc != 0) {
        int glen = key->group_id.len < 0 ? 0 : (int)KC_MIN(key->group_id.len, 256);
        kc_log_error("coordinator",
                     "cannot encode the %s record (type %d%s, value version %d) of group %.*s: "
                     "%s; the records of this iteration are not committed",
                     record_type_known(type) ? record_types[type].name : "unknown", type,
                     tombstone ? ", tombstone" : "", value_version, glen,
                     key->group_id.ptr ? key->group_id.ptr : "",
                     codec ? encode_error_text(rc) : "kcoord writes no record of this type");
        kc_buf_deinit(&k);
        kc_buf_deinit(&v);
        res->failed = true;
        return rc;
    }
    kc_result_add_record(res, &k, tombstone ? NULL : &v);
    return 0;
}

int kc_record_write(kc_result_t *res, int16_t type, const kc_record_key_t *key,
                    int16_t value_version, const void *value)
{
    return record_write(res, type, key, value_version, value, NULL);
}


/* Applies the record just appended at index i through the load path, with
 * msg, the value it was encoded from (NULL: none). */
static int replay_appended(kc_coord_t *c, kc_result_t *res, size_t i, const void *msg)
{
    const kc_record_t *r = &res->records[i];
    int16_t type = (int16_t)((r->key.data[0] << 8) | r->key.data[1]);
    if (!record_type_known(type) || !record_types[type].replay)
        return 0; /* a type load ignores too (type 4) */
    int rc = record_types[type].replay(c, r->key.data, r->key.len,
                                       r->tombstone ? NULL : r->value.data, r->value.len, msg);
    if (rc != 0) {
        kc_log_error("coordinator",
                     "a record the coordinator wrote does not replay (%d); the records of this "
                     "iteration are not committed",
                     rc);
        res->failed = true;
    }
    return rc;
}

int kc_record_write_replay(kc_coord_t *c, kc_result_t *res, int16_t type,
                           const kc_record_key_t *key, int16_t value_version, const void *value)
{
    size_t i = res->nrecords;
    int rc = record_write(res, type, key, value_version, value, NULL);
    return rc != 0 ? rc : replay_appended(c, res, i, value);
}

int kc_record_write_encoded_replay(kc_coord_t *c, kc_result_t *res, int16_t type,
                                   const kc_record_key_t *key, int16_t value_version,
                                   const kc_buf_t *value)
{
    size_t i = res->nrecords;
    int rc = record_write(res, type, key, value_version, NULL, value);
    return rc != 0 ? rc : replay_appended(c, res, i, NULL);
}

/* ---- responses ----------------------------------------------------------- */

/* Appends a response taking the bytes of body and error_body (NULL = none). */
static void result_take_response(kc_result_t *res, const kc_request_ctx_t *ctx, kc_buf_t *body,
                                 kc_buf_t *error_body)
{
    if (res->nresponses == res->responses_cap) {
        res->responses_cap = res->responses_cap ? res->responses_cap * 2 : 8;
        res->responses = kc_xrealloc(res->responses, res->responses_cap * sizeof(*res->responses));
    }
    kc_response_t *r = &res->responses[res->nresponses++];
    memset(r, 0, sizeof(*r));
    r->conn_id = ctx->conn_id;
    r->correlation_id = ctx->correlation_id;
    r->api_key = ctx->api_key;
    r->api_version = ctx->api_version;
    r->body = *body;
    kc_buf_init(body);
    if (error_body) {
        r->error_body = *error_body;
        kc_buf_init(error_body);
    } else {
        kc_buf_init(&r->error_body);
    }
}

void kc_result_respond(kc_result_t *res, const kc_request_ctx_t *ctx, const void *msg,
                       const void *error_msg)
{
    const kc_msg_desc_t *d = kc_msg_desc_for_api(ctx->api_key, true);
    kc_buf_t body = {0}, err = {0}; /* kc_buf_init's empty buffers */
    int rc = d ? d->encode(&body, ctx->api_version, msg) : KC_EINVAL;
    int erc = d && error_msg ? d->encode(&err, ctx->api_version, error_msg) : 0;
    if (rc != 0 || erc != 0) {
        kc_log_error("coordinator",
                     "cannot encode the %s to API %d v%d (connection %llu, correlation id %d): "
                     "%s; the records of this iteration are not committed",
                     rc != 0 ? "response" : "error response", ctx->api_key, ctx->api_version,
                     (unsigned long long)ctx->conn_id, ctx->correlation_id,
                     d ? encode_error_text(rc != 0 ? rc : erc) : "no response schema");
        res->failed = true;
        /* Without its error body, the body could claim what is not committed. */
        kc_buf_reset(&body);
        if (erc != 0)
            kc_buf_reset(&err);
    }
    /* Takes the bytes of both (err holds none without error_msg): nothing
     * is left to free. */
    result_take_response(res, ctx, &body, error_msg ? &err : NULL);
}

/* ---- timers: a min-heap on (deadline, seq) plus a key index ------------ */

static bool timer_before(const kc_timer_t *a, const kc_timer_t *b)
{
    return a->deadline_ms < b->deadline_ms || (a->deadline_ms == b->deadline_ms && a->seq < b->seq);
}

static void heap_swap(kc_coord_t *c, size_t i, size_t j)
{
    kc_timer_t *t = c->heap[i];
    c->heap[i] = c->heap[j];
    c->heap[j] = t;
    c->heap[i]->heap_index = i;
    c->heap[j]->heap_index = j;
}

static void heap_up(kc_coord_t *c, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!timer_before(c->heap[i], c->heap[p]))
            break;
        heap_swap(c, i, p);
        i = p;
    }
}

static void heap_down(kc_coord_t *c, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->nheap && timer_before(c->heap[l], c->heap[m]))
            m = l;
        if (r < c->nheap && timer_before(c->heap[r], c->heap[m]))
            m = r;
        if (m == i)
            break;
        heap_swap(c, i, m);
        i = m;
    }
}

static void heap_remove(kc_coord_t *c, kc_timer_t *t)
{
    size_t i = t->heap_index;
    assert(i < c->nheap && c->heap[i] == t);
    c->nheap--;
    if (i != c->nheap) {
        c->heap[i] = c->heap[c->nheap];
        c->heap[i]->heap_index = i;
        heap_down(c, i);
        heap_up(c, i);
    }
}

static bool cstr_same(const char *a, const char *b)
{
    return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

/* Whether t carries that group id (ptr NULL: none). */
static bool group_same(const kc_timer_t *t, const char *ptr, size_t len)
{
    if (!t->group_id || !ptr)
        return !t->group_id == !ptr;
    return t->group_id_len == len && memcmp(t->group_id, ptr, len) == 0;
}

static void timer_free(kc_timer_t *t)
{
    if (!t)
        return;
    free(t->key);
    free(t->group_id);
    free(t->member_id);
    free(t);
}

void kc_timer_schedule_args(kc_coord_t *c, const char *key, int64_t deadline_ms, kc_timer_fn fn,
                            kc_str_t group_id, const char *member_id, int32_t arg1,
                            int32_t arg2)
{
    kc_timer_t *t = kc_smap_get(&c->timers, key, strlen(key));
    size_t glen = group_id.len > 0 ? (size_t)group_id.len : 0;
    if (t && t->fn == fn && group_same(t, group_id.ptr, glen) &&
        cstr_same(t->member_id, member_id)) {
        /* Rescheduled (a heartbeat's session timer): moved in place. */
        t->deadline_ms = deadline_ms;
        t->seq = c->timer_seq++;
        t->arg1 = arg1;
        t->arg2 = arg2;
        heap_up(c, t->heap_index);
        heap_down(c, t->heap_index);
        return;
    }
    kc_timer_cancel(c, key);
    t = kc_xcalloc(1, sizeof(*t));
    t->key = kc_xstrdup(key);
    t->deadline_ms = deadline_ms;
    t->seq = c->timer_seq++;
    t->fn = fn;
    t->group_id = group_id.ptr ? kc_xstrndup(group_id.ptr, glen) : NULL;
    t->group_id_len = glen;
    t->member_id = member_id ? kc_xstrdup(member_id) : NULL;
    t->arg1 = arg1;
    t->arg2 = arg2;
    if (c->nheap == c->heap_cap) {
        c->heap_cap = c->heap_cap ? c->heap_cap * 2 : 64;
        c->heap = kc_xrealloc(c->heap, c->heap_cap * sizeof(*c->heap));
    }
    t->heap_index = c->nheap;
    c->heap[c->nheap++] = t;
    heap_up(c, t->heap_index);
    kc_smap_put(&c->timers, key, strlen(key), t);
}

void kc_timer_schedule(kc_coord_t *c, const char *key, int64_t deadline_ms, kc_timer_fn fn)
{
    kc_timer_schedule_args(c, key, deadline_ms, fn, (kc_str_t){NULL, -1}, NULL, 0, 0);
}

void kc_timer_cancel(kc_coord_t *c, const char *key)
{
    kc_timer_t *t = kc_smap_del(&c->timers, key, strlen(key));
    if (!t)
        return;
    heap_remove(c, t);
    timer_free(t);
}

bool kc_timer_is_scheduled(const kc_coord_t *c, const char *key)
{
    return kc_smap_get(&c->timers, key, strlen(key)) != NULL;
}

int64_t kc_timer_deadline(const kc_coord_t *c, const char *key)
{
    const kc_timer_t *t = kc_smap_get(&c->timers, key, strlen(key));
    return t ? t->deadline_ms : -1;
}

const kc_timer_t *kc_timer_current(const kc_coord_t *c) { return c->firing; }

int64_t kc_coord_next_deadline(const kc_coord_t *c)
{
    return c->nheap ? c->heap[0]->deadline_ms : INT64_MAX;
}

void kc_coord_tick(kc_coord_t *c, int64_t now_ms, kc_result_t *res)
{
    while (c->nheap && c->heap[0]->deadline_ms <= now_ms) {
        kc_timer_t *t = c->heap[0];
        heap_remove(c, t);
        kc_smap_del(&c->timers, t->key, strlen(t->key));
        const kc_timer_t *prev = c->firing;
        c->firing = t;
        t->fn(c, t->key, now_ms, res);
        c->firing = prev;
        timer_free(t);
    }
}

static void timers_clear(kc_coord_t *c)
{
    for (size_t i = 0; i < c->nheap; i++)
        timer_free(c->heap[i]);
    c->nheap = 0;
    kc_smap_deinit(&c->timers);
    kc_smap_init(&c->timers);
}

/* ---- ids --------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

bool kc_request_authorized(const kc_request_ctx_t *ctx, int8_t op, int8_t resource_type,
                           kc_str_t name)
{
    return ctx->authorize == NULL ||
           ctx->authorize(ctx->authorize_arg, ctx->principal ? ctx->principal : "User:ANONYMOUS",
                          ctx->client_host, op, resource_type, name);
}

int32_t kc_request_authorized_ops(const kc_request_ctx_t *ctx, int8_t resource_type,
                                  kc_str_t name, int32_t candidates)
{
    if (ctx->authorize == NULL)
        return candidates;
    int32_t out = 0;
    for (int op = 0; op < 31; op++)
        if ((candidates & (1 << op)) && kc_request_authorized(ctx, (int8_t)op, resource_type, name))
            out |= 1 << op;
    return out;
}

void kc_coord_seed(kc_coord_t *c, uint64_t seed) { c->rng = seed; }

void kc_coord_random_uuid(kc_coord_t *c, char out[37])
{
    uint8_t b[16];
    uint64_t hi = splitmix64(&c->rng), lo = splitmix64(&c->rng);
    for (int i = 0; i < 8; i++) {
        b[i] = (uint8_t)(hi >> (56 - 8 * i));
        b[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* IETF variant */
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
}

void kc_coord_random_kafka_uuid(kc_coord_t *c, char out[23])
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (;;) {
        uint8_t b[16];
        uint64_t hi = splitmix64(&c->rng), lo = splitmix64(&c->rng);
        for (int i = 0; i < 8; i++) {
            b[i] = (uint8_t)(hi >> (56 - 8 * i));
            b[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
        }
        b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* a version 4 UUID, as java.util.UUID's */
        b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
        size_t o = 0;
        for (int i = 0; i < 15; i += 3) {
            uint32_t v = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];
            out[o++] = b64[(v >> 18) & 63];
            out[o++] = b64[(v >> 12) & 63];
            out[o++] = b64[(v >> 6) & 63];
            out[o++] = b64[v & 63];
        }
        out[o++] = b64[b[15] >> 2];
        out[o++] = b64[(b[15] & 3) << 4];
        out[o] = '\0';
        /* The version bits already rule out the reserved ids 0 and 1. */
        if (strchr(out, '-') == NULL)
            return;
    }
}

/* ---- lifecycle --------------------------------------------------------- */

kc_coord_t *kc_coord_new(const kc_coord_config_t *cfg, const kc_topic_view_t *topics)
{
    kc_coord_t *c = kc_xcalloc(1, sizeof(*c));
    if (cfg)
        c->cfg = *cfg;
    else
        kc_coord_config_defaults(&c->cfg);
    if (topics)
        c->topics = *topics;
    if (c->cfg.offsets_topic_num_partitions < 1)
        c->cfg.offsets_topic_num_partitions = 1;
    c->groups_table_cap =
        kc_xcalloc((size_t)c->cfg.offsets_topic_num_partitions, sizeof(*c->groups_table_cap));
    c->groups_table_size =
        kc_xcalloc((size_t)c->cfg.offsets_topic_num_partitions, sizeof(*c->groups_table_size));
    kc_smap_init(&c->groups);
    kc_smap_init(&c->timers);
    kc_smap_init(&c->group_cfgs);
    c->offsets = kc_offsets_new();
    c->rng = 0x6b636f6f7264ULL;
    return c;
}

static void free_group_cfg(void *ctx, const char *key, void *val)
{
    (void)ctx;
    (void)key;
    free(val);
}

void kc_group_overrides_init(kc_group_overrides_t *o)
{
    *o = (kc_group_overrides_t){-1, -1, -1, -1, -1, -1, -1, -1, -1};
}

void kc_coord_set_group_overrides(kc_coord_t *c, kc_str_t group_id, const kc_group_overrides_t *o)
{
    const char *id = group_id.ptr ? group_id.ptr : "";
    size_t len = (size_t)KC_MAX(group_id.len, 0);
    free(kc_smap_del(&c->group_cfgs, id, len));
    if (!o)
        return;
    kc_coord_config_t *g = kc_xmalloc(sizeof(*g));
    *g = c->cfg;
    bool any = false;
#define OVERRIDE(field, cfg_field)                                                                 \
    if (o->field >= 0) {                                                                           \
        g->cfg_field = o->field;                                                                   \
        any = true;                                                                                \
    }
    OVERRIDE(consumer_session_timeout_ms, group_consumer_session_timeout_ms)
    OVERRIDE(consumer_heartbeat_interval_ms, group_consumer_heartbeat_interval_ms)
    OVERRIDE(streams_session_timeout_ms, group_streams_session_timeout_ms)
    OVERRIDE(streams_heartbeat_interval_ms, group_streams_heartbeat_interval_ms)
    OVERRIDE(streams_num_standby_replicas, group_streams_num_standby_replicas)
    OVERRIDE(streams_initial_rebalance_delay_ms, group_streams_initial_rebalance_delay_ms)
    OVERRIDE(streams_assignment_interval_ms, group_streams_assignment_interval_ms)
    OVERRIDE(streams_task_offset_interval_ms, group_streams_task_offset_interval_ms)
    OVERRIDE(streams_acceptable_recovery_lag, group_streams_acceptable_recovery_lag)
#undef OVERRIDE
    if (any)
        kc_smap_put(&c->group_cfgs, id, len, g);
    else
        free(g);
}

const kc_coord_config_t *kc_coord_group_cfg(const kc_coord_t *c, const char *group_id)
{
    if (c->group_cfgs.count == 0)
        return &c->cfg;
    const kc_coord_config_t *g = kc_smap_get(&c->group_cfgs, group_id, strlen(group_id));
    return g ? g : &c->cfg;
}

void kc_coord_set_event_sink(kc_coord_t *c, kc_coord_event_fn fn, void *arg)
{
    c->event_fn = fn;
    c->event_arg = arg;
}

const char *kc_coord_event_name(kc_coord_event_type_t type)
{
    static const char *const names[KC_COORD_EV_COUNT] = {
        "member_joined", "rebalance_started", "rebalance_completed",
        "member_removed", "session_expired", "group_deleted", "group_epoch_bumped",
        "transaction_begun", "transaction_prepare_commit", "transaction_prepare_abort",
        "transaction_committed", "transaction_aborted", "transaction_timed_out",
        "producer_fenced",
    };
    return (unsigned)type < KC_COORD_EV_COUNT ? names[type] : "unknown";
}

void kc_coord_emit(kc_coord_t *c, kc_coord_event_type_t type, const char *group_id,
                   const char *member_id, const char *reason, int32_t generation_id,
                   int64_t duration_ms, int64_t now_ms)
{
    if (!c->event_fn || !c->loaded)
        return;
    const kc_group_t *g = group_id ? kc_group_get(c, kc_str(group_id)) : NULL;
    kc_coord_event_t ev = {.type = type,
                           .group_id = group_id,
                           .member_id = member_id,
                           .reason = reason,
                           .generation_id = generation_id,
                           .duration_ms = duration_ms,
                           .time_ms = now_ms,
                           .group_type = g ? g->ops->type_name : NULL,
                           .producer_id = -1,
                           .producer_epoch = -1};
    c->event_fn(c->event_arg, &ev);
}

void kc_coord_emit_static_replaced(kc_coord_t *c, const char *group_id, const char *old_member_id,
                                   const char *new_member_id, int32_t generation_id,
                                   int64_t now_ms)
{
    char reason[512];
    snprintf(reason, sizeof(reason), "fenced: member %.400s joined with its group instance id",
             new_member_id);
    kc_coord_emit(c, KC_COORD_EV_MEMBER_REMOVED, group_id, old_member_id, reason, generation_id, 0,
                  now_ms);
}

void kc_coord_free(kc_coord_t *c)
{
    if (!c)
        return;
    kc_result_t res;
    kc_result_init(&res);
    kc_classic_unload_all(c, &res);
    kc_result_deinit(&res);
    kc_consumer_unload_all(c);
    kc_streams_unload_all(c);
    timers_clear(c);
    kc_smap_deinit(&c->timers);
    kc_smap_deinit(&c->groups);
    kc_smap_foreach(&c->group_cfgs, free_group_cfg, NULL);
    kc_smap_deinit(&c->group_cfgs);
    free(c->heap);
    free(c->groups_table_cap);
    free(c->groups_table_size);
    kc_offsets_free(c->offsets);
    free(c);
}

char *kc_str_dup_or_null(kc_str_t s)
{
    return s.len < 0 ? NULL : kc_xstrndup(s.ptr ? s.ptr : "", (size_t)s.len);
}

bool kc_str_update(char **slot, kc_str_t s)
{
    if (!kc_str_changes(s, *slot))
        return false;
    free(*slot);
    *slot = kc_str_dup_or_null(s);
    return true;
}

void kc_instance_index_set(kc_smap_t *index, void *m, char **slot, const char *instance_id)
{
    if (*slot && kc_smap_get(index, *slot, strlen(*slot)) == m)
        kc_smap_del(index, *slot, strlen(*slot));
    free(*slot);
    *slot = instance_id ? kc_xstrdup(instance_id) : NULL;
    if (*slot)
        kc_smap_put(index, *slot, strlen(*slot), m);
}

void *kc_coord_offsets_state(kc_coord_t *c) { return c->offsets; }
const kc_coord_config_t *kc_coord_config(const kc_coord_t *c) { return &c->cfg; }
const kc_topic_view_t *kc_coord_topic_view(const kc_coord_t *c) { return &c->topics; }

int kc_coord_replay(kc_coord_t *c, const uint8_t *key, size_t key_len, const uint8_t *value,
                    size_t value_len)
{
    if (!key || key_len < 2)
        return KC_EINVAL;
    int16_t type = (int16_t)((key[0] << 8) | key[1]);
    if (record_type_known(type) && record_types[type].replay)
        return record_types[type].replay(c, key, key_len, value, value_len, NULL);
    kc_log_debug("coordinator", "Ignoring record of type %d during load", type);
    return 0;
}

void kc_coord_loaded(kc_coord_t *c, int64_t now_ms)
{
    c->loaded = true;
    kc_classic_loaded(c, now_ms);
    kc_consumer_loaded(c, now_ms);
    kc_streams_loaded(c, now_ms);
    kc_offsets_loaded(c, now_ms);
}

bool kc_coord_is_loaded(const kc_coord_t *c) { return c->loaded; }

void kc_coord_unload(kc_coord_t *c, kc_result_t *res)
{
    kc_classic_unload_all(c, res);
    kc_consumer_unload_all(c);
    kc_streams_unload_all(c);
    timers_clear(c);
    kc_offsets_free(c->offsets);
    c->offsets = kc_offsets_new();
    c->loaded = false;
}
