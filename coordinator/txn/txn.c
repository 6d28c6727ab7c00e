/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator (txn.h): one entry per transactional id, a
 * __transaction_state record for every change, applied through replay.
 *
 * A change is computed as a transit (TxnTransitMetadata in Kafka: the
 * values the entry will have), encoded as a TransactionLogValue, appended
 * to the result and replayed into the entry. Kafka keeps the transit as a
 * pending state until its write completes; here the write of the whole
 * batch either commits or fails, and a failed batch makes the caller
 * reload every coordinator from what is durable, so no pending state is
 * kept. The last producer epoch, which Kafka keeps in memory only, is set
 * after the replay of a live change and is -1 after a load.
 */
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "kc_log.h"
#include "kc_msgs.h"
#include "txn.h"

/* Epochs at or past this are exhausted (Kafka's Short.MAX_VALUE - 1). */
#define EPOCH_EXHAUSTED 32766
#define EPOCH_MAX 32767

typedef struct {
    kc_txn_meta_t m;
    char *id;
    size_t id_len;
    kc_txn_partition_t *parts; /* topics owned */
    size_t nparts;
    uint32_t spread;           /* ConcurrentHashMap.spread of the id's Java hash */
    int32_t partition;         /* its __transaction_state partition */
} txn_t;

/* One bin of a ConcurrentHashMap: its ids in list order. */
typedef struct {
    txn_t **items;
    size_t n, cap;
} bin_t;

/* The shape of one partition's ConcurrentHashMap of ids (Kafka's
 * metadataPerTransactionalId): what fixes its iteration order. */
typedef struct {
    bin_t *bins;
    size_t nbins;    /* 0 until the first put, then 16, doubling */
    size_t count;
    size_t size_ctl; /* the count that makes it resize */
} chm_t;

struct kc_txn_coord {
    kc_txn_config_t cfg;
    kc_txn_env_t env;
    kc_smap_t ids; /* transactional id -> txn_t */
    chm_t *tables; /* one per __transaction_state partition */
    bool loaded;
    int64_t next_abort_ms, next_expire_ms;
    kc_coord_event_fn event_fn; /* NULL: none */
    void *event_arg;
};

/* The values an entry takes with a change (Kafka's TxnTransitMetadata). */
typedef struct {
    int64_t pid, prev_pid, next_pid;
    int16_t epoch, last_epoch;
    int32_t timeout_ms;
    kc_txn_state_t state;
    const kc_txn_partition_t *parts;
    size_t nparts;
    int64_t start_ms, last_update_ms;
    int16_t tv;
} transit_t;

static const char *const state_names[] = {
    "Empty",          "Ongoing",       "PrepareCommit", "PrepareAbort",
    "CompleteCommit", "CompleteAbort", "Dead",          "PrepareEpochFence",
};

const char *kc_txn_state_name(kc_txn_state_t s)
{
    return (unsigned)s < KC_ARRAY_LEN(state_names) ? state_names[s] : "Unknown";
}

int kc_txn_state_from_name(const char *name, size_t len)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(state_names); i++)
        if (strlen(state_names[i]) == len && memcmp(state_names[i], name, len) == 0)
            return (int)i;
    return -1;
}

void kc_txn_config_defaults(kc_txn_config_t *cfg)
{
    cfg->max_timeout_ms = 900000;
    cfg->id_expiration_ms = 604800000;
    cfg->abort_interval_ms = 10000;
    cfg->remove_interval_ms = 3600000;
    cfg->transaction_version = 2;
    cfg->num_partitions = 50;
}

kc_txn_coord_t *kc_txn_new(const kc_txn_config_t *cfg, const kc_txn_env_t *env)
{
    kc_txn_coord_t *t = kc_xcalloc(1, sizeof(*t));
    t->cfg = *cfg;
    t->env = *env;
    if (t->cfg.num_partitions < 1)
        t->cfg.num_partitions = 1;
    kc_smap_init(&t->ids);
    t->tables = kc_xcalloc((size_t)t->cfg.num_partitions, sizeof(*t->tables));
    t->next_abort_ms = t->next_expire_ms = INT64_MAX;
    return t;
}

/* ---- Kafka's order of ids ------------------------------------------------- */

#define CHM_INITIAL_BINS 16
#define CHM_TREEIFY_THRESHOLD 8
#define CHM_MIN_TREEIFY_CAPACITY 64

static void bin_push(bin_t *b, txn_t *x)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 4;
        b->items = kc_xrealloc(b->items, b->cap * sizeof(*b->items));
    }
    b->items[b->n++] = x;
}

/* The threshold of a table of n bins (ConcurrentHashMap's sizeCtl, 0.75 n). */
static size_t chm_threshold(size_t n) { return n - (n >> 2); }

/*
 * ConcurrentHashMap.transfer: every bin splits into the one of the same
 * index and the one n above it by the hash bit n. The longest tail of ids
 * going the same way (lastRun) moves as it is; the ids before it are pushed
 * one by one to the front of their new bin, so they end reversed, before it.
 */
static void chm_transfer(chm_t *c)
{
    size_t n = c->nbins;
    bin_t *nb = kc_xcalloc(2 * n, sizeof(*nb));
    for (size_t i = 0; i < n; i++) {
        bin_t *b = &c->bins[i];
        if (b->n == 0)
            continue;
        size_t last_run = 0;
        bool run_bit = b->items[0]->spread & n;
        for (size_t j = 1; j < b->n; j++) {
            bool bit = b->items[j]->spread & n;
            if (bit != run_bit) {
                run_bit = bit;
                last_run = j;
            }
        }
        for (size_t j = last_run; j-- > 0;) {
            txn_t *x = b->items[j];
            bin_push(&nb[(x->spread & n) ? i + n : i], x);
        }
        for (size_t j = last_run; j < b->n; j++)
            bin_push(&nb[run_bit ? i + n : i], b->items[j]);
        free(b->items);
    }
    free(c->bins);
    c->bins = nb;
    c->nbins = 2 * n;
    c->size_ctl = chm_threshold(2 * n);
}

/* ConcurrentHashMap.putVal of a new id: at the end of its bin; a bin that
 * held 8 or more grows a small table (tryPresize of twice its size), then
 * the count may resize it (addCount). */
static void chm_put(kc_txn_coord_t *t, txn_t *x)
{
    chm_t *c = &t->tables[x->partition];
    if (c->nbins == 0) {
        c->nbins = CHM_INITIAL_BINS;
        c->bins = kc_xcalloc(c->nbins, sizeof(*c->bins));
        c->size_ctl = chm_threshold(c->nbins);
    }
    bin_t *b = &c->bins[x->spread & (c->nbins - 1)];
    size_t before = b->n;
    bin_push(b, x);
    if (before >= CHM_TREEIFY_THRESHOLD && c->nbins < CHM_MIN_TREEIFY_CAPACITY) {
        size_t size = c->nbins << 1, want = CHM_INITIAL_BINS;
        while (want < size + (size >> 1) + 1)
            want <<= 1;
        while (want > c->size_ctl)
            chm_transfer(c);
    }
    c->count++;
    while (c->count >= c->size_ctl)
        chm_transfer(c);
}

static void chm_remove(kc_txn_coord_t *t, const txn_t *x)
{
    chm_t *c = &t->tables[x->partition];
    if (c->nbins == 0)
        return;
    bin_t *b = &c->bins[x->spread & (c->nbins - 1)];
    for (size_t j = 0; j < b->n; j++)
        if (b->items[j] == x) {
            memmove(&b->items[j], &b->items[j + 1], (b->n - j - 1) * sizeof(*b->items));
            b->n--;
            c->count--;
            return;
        }
}

static void chm_reset(kc_txn_coord_t *t)
{
    for (int32_t p = 0; p < t->cfg.num_partitions; p++) {
        chm_t *c = &t->tables[p];
        for (size_t i = 0; i < c->nbins; i++)
            free(c->bins[i].items);
        free(c->bins);
        memset(c, 0, sizeof(*c));
    }
}

/* Calls fn for every id in Kafka's order (kc_txn_foreach). */
static void walk_ordered(const kc_txn_coord_t *t, void (*fn)(void *ctx, txn_t *x), void *ctx)
{
    for (int32_t p = 0; p < t->cfg.num_partitions; p++) {
        const chm_t *c = &t->tables[p];
        for (size_t i = 0; i < c->nbins; i++)
            for (size_t j = 0; j < c->bins[i].n; j++)
                fn(ctx, c->bins[i].items[j]);
    }
}

static void parts_free(kc_txn_partition_t *parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)parts[i].topic);
    free(parts);
}

static void txn_free(txn_t *x)
{
    parts_free(x->parts, x->nparts);
    free(x->id);
    free(x);
}

static void free_one(void *ctx, const char *key, void *val)
{
    (void)ctx;
    (void)key;
    txn_free(val);
}

void kc_txn_unload(kc_txn_coord_t *t)
{
    kc_smap_foreach(&t->ids, free_one, NULL);
    kc_smap_deinit(&t->ids);
    kc_smap_init(&t->ids);
    chm_reset(t);
    t->loaded = false;
    t->next_abort_ms = t->next_expire_ms = INT64_MAX;
}

void kc_txn_free(kc_txn_coord_t *t)
{
    if (!t)
        return;
    kc_txn_unload(t);
    kc_smap_deinit(&t->ids);
    free(t->tables);
    free(t);
}

void kc_txn_set_event_sink(kc_txn_coord_t *t, kc_coord_event_fn fn, void *arg)
{
    t->event_fn = fn;
    t->event_arg = arg;
}

/* Tells the event sink of a change of x (its state after it). */
static void emit(kc_txn_coord_t *t, const txn_t *x, kc_coord_event_type_t type, const char *reason,
                 int64_t start_ms, int64_t now_ms)
{
    if (!t->event_fn)
        return;
    bool ended = type == KC_COORD_EV_TXN_COMMITTED || type == KC_COORD_EV_TXN_ABORTED;
    kc_coord_event_t ev = {
        .type = type,
        .reason = reason,
        .generation_id = -1,
        .duration_ms = ended && start_ms >= 0 ? now_ms - start_ms : 0,
        .time_ms = now_ms,
        .transactional_id = x->id,
        .producer_id = x->m.producer_id,
        .producer_epoch = x->m.producer_epoch,
    };
    t->event_fn(t->event_arg, &ev);
}

static txn_t *lookup(const kc_txn_coord_t *t, kc_str_t id)
{
    if (id.len <= 0)
        return NULL;
    txn_t *x = kc_smap_get(&t->ids, id.ptr, (size_t)id.len);
    return x && x->m.state != KC_TXN_DEAD ? x : NULL;
}

static int part_cmp(const void *a, const void *b)
{
    const kc_txn_partition_t *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

/* ---- records ------------------------------------------------------------- */

/* Replaces x's partitions by a sorted copy of parts without duplicates. */
static void set_parts(txn_t *x, const kc_txn_partition_t *parts, size_t n)
{
    kc_txn_partition_t *copy = n ? kc_xcalloc(n, sizeof(*copy)) : NULL;
    for (size_t i = 0; i < n; i++)
        copy[i] = (kc_txn_partition_t){kc_xstrdup(parts[i].topic), parts[i].partition};
    if (n > 1)
        qsort(copy, n, sizeof(*copy), part_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && part_cmp(&copy[k - 1], &copy[i]) == 0)
            free((char *)copy[i].topic);
        else
            copy[k++] = copy[i];
    }
    parts_free(x->parts, x->nparts);
    x->parts = copy;
    x->nparts = k;
    x->m.partitions = copy;
    x->m.npartitions = k;
}

int kc_txn_replay(kc_txn_coord_t *t, const uint8_t *key, size_t key_len, const uint8_t *value,
                  size_t value_len)
{
    kc_reader_t r;
    kc_reader_init(&r, key, key_len);
    int16_t key_type = kc_read_int16(&r);
    if (r.err)
        return KC_EINVAL;
    if (key_type != KC_TXN_RECORD_TYPE) {
        kc_log_warn("transaction-coordinator", "Ignoring a record with key type %d", key_type);
        return 0;
    }
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_transaction_log_key_t k;
    int rc = kc_transaction_log_key_decode(&r, 0, &arena, &k);
    if (rc != 0 || k.transactional_id.len <= 0) {
        kc_arena_deinit(&arena);
        return KC_EINVAL;
    }
    const char *id = k.transactional_id.ptr;
    size_t id_len = (size_t)k.transactional_id.len;
    if (!value) {
        txn_t *gone = kc_smap_del(&t->ids, id, id_len);
        if (gone) {
            chm_remove(t, gone);
            txn_free(gone);
        }
        kc_arena_deinit(&arena);
        return 0;
    }
    kc_reader_init(&r, value, value_len);
    int16_t version = kc_read_int16(&r);
    kc_transaction_log_value_t v;
    if (!r.err && (version < KC_TRANSACTION_LOG_VALUE_MIN_VERSION ||
                   version > KC_TRANSACTION_LOG_VALUE_MAX_VERSION)) {
        kc_log_warn("transaction-coordinator",
                    "Ignoring a record of transactional id %.*s with value version %d",
                    (int)KC_MIN(id_len, 256), id, version);
        kc_arena_deinit(&arena);
        return 0;
    }
    if (r.err || kc_transaction_log_value_decode(&r, version, &arena, &v) != 0 ||
        v.transaction_status < 0 || v.transaction_status > KC_TXN_PREPARE_EPOCH_FENCE) {
        kc_arena_deinit(&arena);
        return KC_EINVAL;
    }
    /* The partitions, flattened (ignored for Empty, as Kafka's loader does). */
    size_t n = 0;
    for (int32_t i = 0; i < v.transaction_partitions.count; i++)
        n += (size_t)KC_MAX(v.transaction_partitions.items[i].partition_ids.count, 0);
    if (v.transaction_status == KC_TXN_EMPTY)
        n = 0;
    kc_txn_partition_t *parts = n ? kc_arena_alloc(&arena, n * sizeof(*parts)) : NULL;
    size_t j = 0;
    for (int32_t i = 0; j < n && i < v.transaction_partitions.count; i++) {
        const kc_transaction_log_value_partitions_schema_t *ps = &v.transaction_partitions.items[i];
        char *topic = kc_arena_alloc(&arena, (size_t)KC_MAX(ps->topic.len, 0) + 1);
        if (ps->topic.len > 0)
            memcpy(topic, ps->topic.ptr, (size_t)ps->topic.len);
        topic[KC_MAX(ps->topic.len, 0)] = '\0';
        for (int32_t p = 0; p < ps->partition_ids.count; p++)
            parts[j++] = (kc_txn_partition_t){topic, ps->partition_ids.items[p]};
    }
    txn_t *x = kc_smap_get(&t->ids, id, id_len);
    if (!x) {
        x = kc_xcalloc(1, sizeof(*x));
        x->id = kc_xstrndup(id, id_len);
        x->id_len = id_len;
        x->m.transactional_id = x->id;
        /* TransactionStateManager.partitionFor: Utils.abs(hashCode) % n. */
        int32_t h = kc_java_string_hash(id, id_len);
        int64_t a = h == INT32_MIN ? 0 : (h < 0 ? -(int64_t)h : h);
        x->partition = (int32_t)(a % t->cfg.num_partitions);
        x->spread = ((uint32_t)h ^ ((uint32_t)h >> 16)) & 0x7fffffffu;
        kc_smap_put(&t->ids, x->id, id_len, x);
        chm_put(t, x);
    }
    x->m.producer_id = v.producer_id;
    x->m.prev_producer_id = v.previous_producer_id;
    x->m.next_producer_id = v.next_producer_id;
    x->m.producer_epoch = v.producer_epoch;
    x->m.last_producer_epoch = -1;
    x->m.timeout_ms = v.transaction_timeout_ms;
    x->m.state = (kc_txn_state_t)v.transaction_status;
    x->m.start_ms = v.transaction_start_timestamp_ms;
    x->m.last_update_ms = v.transaction_last_update_timestamp_ms;
    x->m.client_transaction_version = v.client_transaction_version;
    set_parts(x, parts, n);
    kc_arena_deinit(&arena);
    return 0;
}

bool kc_txn_is_record(const uint8_t *key, size_t key_len)
{
    return key_len >= 2 && ((key[0] << 8) | key[1]) == KC_TXN_RECORD_TYPE;
}

/* The key of an id's records: KC_TXN_RECORD_TYPE + TransactionLogKey. */
static void encode_key(kc_buf_t *k, const char *id, size_t id_len)
{
    kc_write_int16(k, KC_TXN_RECORD_TYPE);
    kc_transaction_log_key_t key = {.transactional_id = {id, (int32_t)id_len}};
    kc_transaction_log_key_encode(k, 0, &key);
}

/*
 * Appends the record of id's transit to res and applies it; a new entry for
 * an id not known yet. 0, or -1 with res failed (an encoding refused; one
 * line logged).
 */
static int write_transit(kc_txn_coord_t *t, const char *id, size_t id_len, const transit_t *tr,
                         kc_result_t *res)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_transaction_log_value_t v;
    kc_transaction_log_value_init(&v);
    v.producer_id = tr->pid;
    v.producer_epoch = tr->epoch;
    v.transaction_timeout_ms = tr->timeout_ms;
    v.transaction_status = (int8_t)tr->state;
    v.transaction_last_update_timestamp_ms = tr->last_update_ms;
    v.transaction_start_timestamp_ms = tr->start_ms;
    v.client_transaction_version = tr->tv;
    int16_t version = t->cfg.transaction_version >= 1 ? 1 : 0;
    if (version >= 1) {
        v.previous_producer_id = tr->prev_pid;
        v.next_producer_id = tr->next_pid;
    }
    if (tr->state == KC_TXN_EMPTY) {
        v.transaction_partitions.count = -1;
    } else {
        /* Grouped by topic; the partitions are sorted by topic. */
        size_t ntopics = 0;
        for (size_t i = 0; i < tr->nparts; i++)
            if (i == 0 || strcmp(tr->parts[i].topic, tr->parts[i - 1].topic) != 0)
                ntopics++;
        v.transaction_partitions.items =
            ntopics ? kc_arena_alloc(&arena, ntopics * sizeof(*v.transaction_partitions.items))
                    : NULL;
        v.transaction_partitions.count = 0;
        for (size_t i = 0; i < tr->nparts;) {
            size_t e = i;
            while (e < tr->nparts && strcmp(tr->parts[e].topic, tr->parts[i].topic) == 0)
                e++;
            kc_transaction_log_value_partitions_schema_t *ps =
                &v.transaction_partitions.items[v.transaction_partitions.count++];
            ps->topic = kc_str(tr->parts[i].topic);
            ps->partition_ids.items = kc_arena_alloc(&arena, (e - i) * sizeof(int32_t));
            ps->partition_ids.count = (int32_t)(e - i);
            for (size_t p = i; p < e; p++)
                ps->partition_ids.items[p - i] = tr->parts[p].partition;
            i = e;
        }
    }
    kc_buf_t k, val;
    kc_buf_init(&k);
    kc_buf_init(&val);
    encode_key(&k, id, id_len);
    kc_write_int16(&val, version);
    int rc = kc_transaction_log_value_encode(&val, version, &v);
    kc_arena_deinit(&arena);
    if (rc != 0 || id_len > INT16_MAX) {
        kc_log_error("transaction-coordinator",
                     "cannot encode the transaction state of %.*s (%d); the records of this "
                     "iteration are not committed",
                     (int)KC_MIN(id_len, 256), id, rc);
        kc_buf_deinit(&k);
        kc_buf_deinit(&val);
        res->failed = true;
        return -1;
    }
    size_t i = res->nrecords;
    kc_result_add_record(res, &k, &val);
    const kc_record_t *r = &res->records[i];
    if (kc_txn_replay(t, r->key.data, r->key.len, r->value.data, r->value.len) != 0) {
        kc_log_error("transaction-coordinator",
                     "a transaction state record does not replay; the records of this iteration "
                     "are not committed");
        res->failed = true;
        return -1;
    }
    txn_t *x = kc_smap_get(&t->ids, id, id_len);
    x->m.last_producer_epoch = tr->last_epoch;
    return 0;
}

/* The transit that keeps everything of x. */
static transit_t transit_of(const txn_t *x)
{
    return (transit_t){x->m.producer_id,    x->m.producer_id,   x->m.next_producer_id,
                       x->m.producer_epoch, x->m.last_producer_epoch, x->m.timeout_ms,
                       x->m.state,          x->parts,           x->nparts,
                       x->m.start_ms,       x->m.last_update_ms, x->m.client_transaction_version};
}

/* ---- completing a transaction --------------------------------------------- */

/*
 * The steps after a PrepareCommit/PrepareAbort of x was written
 * (TransactionMarkerChannelManager and TM.prepareComplete): the markers into
 * every partition, then CompleteCommit/CompleteAbort with no partitions, and
 * for an epoch that overflowed the next producer id at epoch 0. 0, or -1
 * with res failed.
 */
static int complete(kc_txn_coord_t *t, txn_t *x, int64_t now_ms, const char *reason,
                    kc_result_t *res)
{
    bool commit = x->m.state == KC_TXN_PREPARE_COMMIT;
    int64_t start_ms = x->m.start_ms;
    if (x->nparts && t->env.write_markers(t->env.ctx, x->m.producer_id, x->m.producer_epoch,
                                          commit, x->m.client_transaction_version, x->parts,
                                          x->nparts, res) != 0) {
        res->failed = true;
        return -1;
    }
    transit_t tr = transit_of(x);
    tr.state = commit ? KC_TXN_COMPLETE_COMMIT : KC_TXN_COMPLETE_ABORT;
    if (x->m.next_producer_id >= 0) {
        tr.pid = x->m.next_producer_id;
        tr.epoch = 0;
    }
    tr.next_pid = -1;
    tr.parts = NULL;
    tr.nparts = 0;
    tr.last_update_ms = now_ms;
    if (write_transit(t, x->id, x->id_len, &tr, res) != 0)
        return -1;
    emit(t, x, commit ? KC_COORD_EV_TXN_COMMITTED : KC_COORD_EV_TXN_ABORTED,
         commit ? NULL : reason, start_ms, now_ms);
    return 0;
}

/*
 * Writes PrepareCommit/PrepareAbort of x with the transit tr, then completes
 * it; reason: why an abort is (the events'). 0, KC_ERR_* of the producer
 * id allocator, or -1 with res failed.
 */
static int prepare_and_complete(kc_txn_coord_t *t, txn_t *x, const transit_t *tr, int64_t now_ms,
                                const char *reason, kc_result_t *res)
{
    if (write_transit(t, x->id, x->id_len, tr, res) != 0)
        return -1;
    bool commit = tr->state == KC_TXN_PREPARE_COMMIT;
    emit(t, x, commit ? KC_COORD_EV_TXN_PREPARE_COMMIT : KC_COORD_EV_TXN_PREPARE_ABORT,
         commit ? NULL : reason, -1, now_ms);
    return complete(t, x, now_ms, reason, res);
}

/*
 * The transit of a commit or abort (TM.prepareAbortOrCommit): with
 * transaction version 2 the epoch moves on at every end and, when it is
 * exhausted, a next producer id is allocated; before it the epoch stays.
 * empty_abort: an abort of no transaction (version 2 only), which starts
 * now. KC_ERR_NONE or the allocator's error.
 */
static int16_t end_transit(kc_txn_coord_t *t, const txn_t *x, bool commit, int16_t tv,
                           bool empty_abort, int64_t now_ms, transit_t *tr)
{
    *tr = transit_of(x);
    tr->state = commit ? KC_TXN_PREPARE_COMMIT : KC_TXN_PREPARE_ABORT;
    tr->next_pid = -1;
    tr->last_update_ms = now_ms;
    tr->tv = tv;
    if (tv >= 2) {
        if (x->m.producer_epoch >= EPOCH_EXHAUSTED) {
            int16_t err = t->env.next_producer_id(t->env.ctx, &tr->next_pid);
            if (err != KC_ERR_NONE)
                return err;
        }
        if (commit || x->m.producer_epoch < EPOCH_MAX)
            tr->epoch = (int16_t)(x->m.producer_epoch + 1);
        tr->last_epoch = x->m.producer_epoch;
        if (empty_abort) {
            tr->start_ms = now_ms;
            tr->parts = NULL;
            tr->nparts = 0;
        }
    }
    return KC_ERR_NONE;
}

/*
 * The coordinator's own abort of x's Ongoing transaction, fencing its
 * producer (TM.prepareFenceProducerEpoch and an endTransaction that is not
 * from the client), with the cluster's transaction version: the epoch moves
 * on by one, and the markers carry the new epoch. why: the event that
 * says what caused it (TXN_TIMED_OUT or TXN_PRODUCER_FENCED). KC_ERR_NONE,
 * the allocator's error, or -1 with res failed.
 */
static int internal_abort(kc_txn_coord_t *t, txn_t *x, int64_t now_ms, kc_coord_event_type_t why,
                          kc_result_t *res)
{
    transit_t tr;
    int16_t tv = t->cfg.transaction_version;
    if (tv >= 2) {
        int16_t err = end_transit(t, x, false, tv, false, now_ms, &tr);
        if (err != KC_ERR_NONE)
            return err;
    } else {
        tr = transit_of(x);
        tr.state = KC_TXN_PREPARE_ABORT;
        tr.next_pid = -1;
        tr.last_update_ms = now_ms;
        tr.tv = 0;
        if (x->m.producer_epoch < EPOCH_MAX)
            tr.epoch = (int16_t)(x->m.producer_epoch + 1);
        tr.last_epoch = -1;
    }
    emit(t, x, why, NULL, -1, now_ms);
    return prepare_and_complete(t, x, &tr, now_ms,
                                why == KC_COORD_EV_TXN_TIMED_OUT ? "timed_out" : "producer_fenced",
                                res);
}

/* ---- the APIs ------------------------------------------------------------- */

int16_t kc_txn_init_producer_id(kc_txn_coord_t *t, int64_t now_ms, kc_str_t transactional_id,
                                int32_t timeout_ms, int64_t expected_pid, int16_t expected_epoch,
                                kc_result_t *res, int64_t *pid, int16_t *epoch)
{
    *pid = -1;
    *epoch = -1;
    if ((expected_pid == -1) != (expected_epoch == -1) || transactional_id.len <= 0)
        return KC_ERR_INVALID_REQUEST;
    if (timeout_ms <= 0 || timeout_ms > t->cfg.max_timeout_ms)
        return KC_ERR_INVALID_TRANSACTION_TIMEOUT;
    bool expected = expected_pid != -1;
    txn_t *x = lookup(t, transactional_id);
    txn_t fresh;
    if (!x) {
        /* A new id: a producer id at epoch -1, Empty; nothing is kept
         * unless its record is written below. */
        memset(&fresh, 0, sizeof(fresh));
        int16_t err = t->env.next_producer_id(t->env.ctx, &fresh.m.producer_id);
        if (err != KC_ERR_NONE)
            return err;
        fresh.m.prev_producer_id = fresh.m.next_producer_id = -1;
        fresh.m.producer_epoch = fresh.m.last_producer_epoch = -1;
        fresh.m.state = KC_TXN_EMPTY;
        fresh.m.start_ms = -1;
        fresh.id = (char *)transactional_id.ptr;
        fresh.id_len = (size_t)transactional_id.len;
        x = &fresh;
    }
    const kc_txn_meta_t *m = &x->m;
    if (expected && !(m->producer_epoch == -1 || expected_pid == m->producer_id ||
                      (expected_pid == m->prev_producer_id && expected_epoch >= EPOCH_EXHAUSTED)))
        return KC_ERR_PRODUCER_FENCED;
    switch (m->state) {
    case KC_TXN_PREPARE_COMMIT:
    case KC_TXN_PREPARE_ABORT:
        return KC_ERR_CONCURRENT_TRANSACTIONS;
    case KC_TXN_ONGOING: {
        /* Fence the producer and abort its transaction; the client retries. */
        int rc = internal_abort(t, x, now_ms, KC_COORD_EV_TXN_PRODUCER_FENCED, res);
        return rc == 0 ? KC_ERR_CONCURRENT_TRANSACTIONS
                       : rc < 0 ? KC_ERR_COORDINATOR_NOT_AVAILABLE : (int16_t)rc;
    }
    case KC_TXN_EMPTY:
    case KC_TXN_COMPLETE_COMMIT:
    case KC_TXN_COMPLETE_ABORT:
        break;
    default:
        return KC_ERR_UNKNOWN_SERVER_ERROR;
    }
    transit_t tr = transit_of(x);
    tr.state = KC_TXN_EMPTY;
    tr.timeout_ms = timeout_ms;
    tr.parts = NULL;
    tr.nparts = 0;
    tr.start_ms = -1;
    tr.last_update_ms = now_ms;
    tr.next_pid = -1;
    if (m->producer_epoch >= EPOCH_EXHAUSTED && (!expected || expected_epoch == m->producer_epoch)) {
        /* The epoch is exhausted: a new producer id at epoch 0. */
        int16_t err = t->env.next_producer_id(t->env.ctx, &tr.pid);
        if (err != KC_ERR_NONE)
            return err;
        tr.epoch = 0;
        tr.last_epoch = expected ? m->producer_epoch : -1;
    } else if (!expected) {
        tr.epoch = (int16_t)(m->producer_epoch + 1);
        tr.last_epoch = -1;
    } else if (m->producer_epoch == -1 || expected_epoch == m->producer_epoch) {
        tr.epoch = (int16_t)(m->producer_epoch + 1);
        tr.last_epoch = m->producer_epoch;
    } else if (expected_epoch == m->last_producer_epoch) {
        /* A retry of an InitProducerId that succeeded: the same epoch again. */
        tr.epoch = m->producer_epoch;
        tr.last_epoch = m->last_producer_epoch;
    } else {
        return KC_ERR_PRODUCER_FENCED;
    }
    if (write_transit(t, x->id, x->id_len, &tr, res) != 0)
        return KC_ERR_COORDINATOR_NOT_AVAILABLE;
    *pid = tr.pid;
    *epoch = tr.epoch;
    return KC_ERR_NONE;
}

/* Whether every partition of parts is in x's transaction. */
static bool has_all(const txn_t *x, const kc_txn_partition_t *parts, size_t n)
{
    if (x->nparts == 0) /* x->parts may be NULL, which bsearch must not get */
        return n == 0;
    for (size_t i = 0; i < n; i++)
        if (x->nparts == 0 ||
            !bsearch(&parts[i], x->parts, x->nparts, sizeof(*x->parts), part_cmp))
            return false;
    return true;
}

int16_t kc_txn_add_partitions(kc_txn_coord_t *t, int64_t now_ms, kc_str_t transactional_id,
                              int64_t pid, int16_t epoch, const kc_txn_partition_t *parts,
                              size_t nparts, int16_t transaction_version, kc_result_t *res)
{
    if (transactional_id.len <= 0)
        return KC_ERR_INVALID_REQUEST;
    txn_t *x = lookup(t, transactional_id);
    if (!x || pid != x->m.producer_id)
        return KC_ERR_INVALID_PRODUCER_ID_MAPPING;
    if (epoch != x->m.producer_epoch)
        return KC_ERR_PRODUCER_FENCED;
    if (x->m.state == KC_TXN_PREPARE_COMMIT || x->m.state == KC_TXN_PREPARE_ABORT)
        return KC_ERR_CONCURRENT_TRANSACTIONS;
    if (x->m.state == KC_TXN_ONGOING && has_all(x, parts, nparts))
        return KC_ERR_NONE;
    kc_txn_partition_t *all = kc_xcalloc(x->nparts + nparts + 1, sizeof(*all));
    if (x->nparts)
        memcpy(all, x->parts, x->nparts * sizeof(*all));
    if (nparts)
        memcpy(all + x->nparts, parts, nparts * sizeof(*all));
    size_t n = x->nparts + nparts;
    qsort(all, n, sizeof(*all), part_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || part_cmp(&all[k - 1], &all[i]) != 0)
            all[k++] = all[i];
    transit_t tr = transit_of(x);
    if (x->m.state != KC_TXN_ONGOING)
        tr.start_ms = now_ms;
    tr.state = KC_TXN_ONGOING;
    tr.parts = all;
    tr.nparts = k;
    tr.last_update_ms = now_ms;
    tr.tv = transaction_version;
    bool begun = x->m.state != KC_TXN_ONGOING;
    int rc = write_transit(t, x->id, x->id_len, &tr, res);
    free(all);
    if (rc == 0 && begun)
        emit(t, x, KC_COORD_EV_TXN_BEGUN, NULL, -1, now_ms);
    return rc == 0 ? KC_ERR_NONE : KC_ERR_COORDINATOR_NOT_AVAILABLE;
}

int16_t kc_txn_verify_partition(const kc_txn_coord_t *t, kc_str_t transactional_id, int64_t pid,
                                int16_t epoch, const kc_txn_partition_t *part)
{
    if (transactional_id.len <= 0)
        return KC_ERR_INVALID_REQUEST;
    const txn_t *x = lookup(t, transactional_id);
    if (!x || pid != x->m.producer_id)
        return KC_ERR_INVALID_PRODUCER_ID_MAPPING;
    if (epoch != x->m.producer_epoch)
        return KC_ERR_PRODUCER_FENCED;
    if (x->m.state == KC_TXN_PREPARE_COMMIT || x->m.state == KC_TXN_PREPARE_ABORT)
        return KC_ERR_CONCURRENT_TRANSACTIONS;
    return has_all(x, part, 1) ? KC_ERR_NONE : KC_ERR_TRANSACTION_ABORTABLE;
}

/* EndTxn while the transaction is being completed: the same end again is
 * CONCURRENT_TRANSACTIONS (the client retries), the other INVALID_TXN_STATE. */
static int16_t end_while_preparing(kc_txn_state_t state, bool commit)
{
    return commit == (state == KC_TXN_PREPARE_COMMIT) ? KC_ERR_CONCURRENT_TRANSACTIONS
                                                      : KC_ERR_INVALID_TXN_STATE;
}

/* EndTxn before transaction version 2 (TC.endTransactionWithTV1). */
static int16_t end_tv1(kc_txn_coord_t *t, txn_t *x, int64_t now_ms, int64_t pid, int16_t epoch,
                       bool commit, kc_result_t *res)
{
    if (pid != x->m.producer_id)
        return KC_ERR_INVALID_PRODUCER_ID_MAPPING;
    if (epoch != x->m.producer_epoch)
        return KC_ERR_PRODUCER_FENCED;
    switch (x->m.state) {
    case KC_TXN_ONGOING:
        break;
    case KC_TXN_COMPLETE_COMMIT:
        return commit ? KC_ERR_NONE : KC_ERR_INVALID_TXN_STATE;
    case KC_TXN_COMPLETE_ABORT:
        return commit ? KC_ERR_INVALID_TXN_STATE : KC_ERR_NONE;
    case KC_TXN_PREPARE_COMMIT:
    case KC_TXN_PREPARE_ABORT:
        return end_while_preparing(x->m.state, commit);
    default:
        return KC_ERR_INVALID_TXN_STATE;
    }
    transit_t tr;
    end_transit(t, x, commit, 0, false, now_ms, &tr);
    return prepare_and_complete(t, x, &tr, now_ms, "client", res) == 0
               ? KC_ERR_NONE
               : KC_ERR_COORDINATOR_NOT_AVAILABLE;
}

/* EndTxn of transaction version 2 (TC.endTransaction). */
static int16_t end_tv2(kc_txn_coord_t *t, txn_t *x, int64_t now_ms, int64_t pid, int16_t epoch,
                       bool commit, kc_result_t *res, int64_t *out_pid, int16_t *out_epoch)
{
    const kc_txn_meta_t *m = &x->m;
    bool retry_overflow =
        m->prev_producer_id == pid && epoch == EPOCH_EXHAUSTED && m->producer_epoch == 0;
    bool retry_bump = m->producer_epoch == epoch + 1;
    bool retry = retry_overflow || retry_bump;
    if (pid != m->producer_id && !retry_overflow)
        return KC_ERR_INVALID_PRODUCER_ID_MAPPING;
    bool valid;
    switch (m->state) {
    case KC_TXN_ONGOING:
    case KC_TXN_EMPTY:
        valid = epoch == m->producer_epoch;
        break;
    case KC_TXN_PREPARE_COMMIT:
    case KC_TXN_PREPARE_ABORT:
        valid = retry_bump;
        break;
    default:
        valid = retry || epoch == m->producer_epoch;
        break;
    }
    if (!valid)
        return KC_ERR_PRODUCER_FENCED;
    bool empty_abort = false;
    switch (m->state) {
    case KC_TXN_ONGOING:
        break;
    case KC_TXN_COMPLETE_COMMIT:
        if (commit && retry)
            goto answered;
        if (commit || retry)
            return KC_ERR_INVALID_TXN_STATE;
        empty_abort = true;
        break;
    case KC_TXN_COMPLETE_ABORT:
        if (commit)
            return KC_ERR_INVALID_TXN_STATE;
        if (retry)
            goto answered;
        empty_abort = true;
        break;
    case KC_TXN_EMPTY:
        if (commit)
            return KC_ERR_INVALID_TXN_STATE;
        empty_abort = true;
        break;
    case KC_TXN_PREPARE_COMMIT:
    case KC_TXN_PREPARE_ABORT:
        return end_while_preparing(x->m.state, commit);
    default:
        return KC_ERR_INVALID_TXN_STATE;
    }
    transit_t tr;
    int16_t err = end_transit(t, x, commit, 2, empty_abort, now_ms, &tr);
    if (err != KC_ERR_NONE)
        return err;
    if (prepare_and_complete(t, x, &tr, now_ms, "client", res) != 0)
        return KC_ERR_COORDINATOR_NOT_AVAILABLE;
answered:
    *out_pid = x->m.producer_id;
    *out_epoch = x->m.producer_epoch;
    return KC_ERR_NONE;
}

int16_t kc_txn_end(kc_txn_coord_t *t, int64_t now_ms, kc_str_t transactional_id, int64_t pid,
                   int16_t epoch, bool commit, int16_t transaction_version, kc_result_t *res,
                   int64_t *out_pid, int16_t *out_epoch)
{
    *out_pid = -1;
    *out_epoch = -1;
    if (transactional_id.len <= 0)
        return KC_ERR_INVALID_REQUEST;
    txn_t *x = lookup(t, transactional_id);
    if (!x)
        return KC_ERR_INVALID_PRODUCER_ID_MAPPING;
    return transaction_version >= 2
               ? end_tv2(t, x, now_ms, pid, epoch, commit, res, out_pid, out_epoch)
               : end_tv1(t, x, now_ms, pid, epoch, commit, res);
}

/* ---- views ---------------------------------------------------------------- */

const kc_txn_meta_t *kc_txn_find(const kc_txn_coord_t *t, kc_str_t transactional_id)
{
    const txn_t *x = lookup(t, transactional_id);
    return x ? &x->m : NULL;
}

typedef struct {
    void (*fn)(void *ctx, const kc_txn_meta_t *m);
    void *ctx;
} each_t;

static void each_one(void *ctx, txn_t *x)
{
    each_t *e = ctx;
    if (x->m.state != KC_TXN_DEAD)
        e->fn(e->ctx, &x->m);
}

void kc_txn_foreach(const kc_txn_coord_t *t, void (*fn)(void *ctx, const kc_txn_meta_t *m),
                    void *ctx)
{
    each_t e = {fn, ctx};
    walk_ordered(t, each_one, &e);
}

/* ---- load and timers ------------------------------------------------------ */

/* The ids a pass acts on, collected first: acting changes the map. */
typedef struct {
    txn_t **items;
    size_t n, cap;
} txn_list_t;

static void list_add(txn_list_t *l, txn_t *x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->items = kc_xrealloc(l->items, l->cap * sizeof(*l->items));
    }
    l->items[l->n++] = x;
}

#define STATE_BIT(s) (1u << (s))

typedef struct {
    txn_list_t list;
    unsigned states;      /* STATE_BIT()s collected */
    int64_t before_ms;    /* with a timestamp before this (INT64_MAX: any) */
    bool by_start;        /* start + timeout (the abort) rather than last update (the expiry) */
} collect_t;

static void collect_one(void *ctx, txn_t *x)
{
    collect_t *c = ctx;
    if (!(c->states & STATE_BIT(x->m.state)))
        return;
    if (c->by_start ? x->m.start_ms + x->m.timeout_ms < c->before_ms
                    : x->m.last_update_ms <= c->before_ms)
        list_add(&c->list, x);
}

static txn_list_t collect(const kc_txn_coord_t *t, unsigned states, int64_t before_ms,
                          bool by_start)
{
    collect_t c = {{NULL, 0, 0}, states, before_ms, by_start};
    walk_ordered(t, collect_one, &c);
    return c.list;
}

void kc_txn_loaded(kc_txn_coord_t *t, int64_t now_ms, kc_result_t *res)
{
    txn_list_t l = collect(t, STATE_BIT(KC_TXN_PREPARE_COMMIT) | STATE_BIT(KC_TXN_PREPARE_ABORT),
                           INT64_MAX, false);
    for (size_t i = 0; i < l.n; i++) {
        kc_log_info("transaction-coordinator",
                    "Completing the %s transaction of transactional id %s after loading",
                    l.items[i]->m.state == KC_TXN_PREPARE_COMMIT ? "committed" : "aborted",
                    l.items[i]->id);
        complete(t, l.items[i], now_ms, "loaded", res);
    }
    free(l.items);
    t->loaded = true;
    t->next_abort_ms = now_ms + t->cfg.abort_interval_ms;
    t->next_expire_ms = now_ms + t->cfg.remove_interval_ms;
}

int64_t kc_txn_next_deadline(const kc_txn_coord_t *t)
{
    return KC_MIN(t->next_abort_ms, t->next_expire_ms);
}

void kc_txn_tick(kc_txn_coord_t *t, int64_t now_ms, kc_result_t *res)
{
    if (!t->loaded)
        return;
    if (now_ms >= t->next_abort_ms) {
        /* TC.abortTimedOutTransactions: Ongoing past start + timeout. */
        txn_list_t l = collect(t, STATE_BIT(KC_TXN_ONGOING), now_ms, true);
        for (size_t i = 0; i < l.n; i++) {
            txn_t *x = l.items[i];
            kc_log_info("transaction-coordinator",
                        "Aborting the transaction of transactional id %s (producer id %lld, "
                        "epoch %d) after its timeout of %d ms, fencing the producer",
                        x->id, (long long)x->m.producer_id, x->m.producer_epoch, x->m.timeout_ms);
            internal_abort(t, x, now_ms, KC_COORD_EV_TXN_TIMED_OUT, res);
        }
        free(l.items);
        t->next_abort_ms = now_ms + t->cfg.abort_interval_ms;
    }
    if (now_ms >= t->next_expire_ms) {
        /* TSM.removeExpiredTransactionalIds: a tombstone for each id idle
         * since transactional.id.expiration.ms, outside a transaction. */
        txn_list_t l = collect(t,
                               STATE_BIT(KC_TXN_EMPTY) | STATE_BIT(KC_TXN_COMPLETE_COMMIT) |
                                   STATE_BIT(KC_TXN_COMPLETE_ABORT),
                               now_ms - t->cfg.id_expiration_ms, false);
        for (size_t i = 0; i < l.n; i++) {
            txn_t *x = l.items[i];
            kc_log_info("transaction-coordinator", "Transactional id %s expired", x->id);
            kc_buf_t k;
            kc_buf_init(&k);
            encode_key(&k, x->id, x->id_len);
            size_t at = res->nrecords;
            kc_result_add_record(res, &k, NULL);
            kc_txn_replay(t, res->records[at].key.data, res->records[at].key.len, NULL, 0);
        }
        free(l.items);
        t->next_expire_ms = now_ms + t->cfg.remove_interval_ms;
    }
}
