/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writes the seed corpus of the fuzz targets into <out>/<target>/ (run by
 * hand when schemas or input formats change; the files are committed):
 *   codec    every request and response of every API at every version,
 *            from the generated _fill_sample encoders;
 *   header   request headers v1 and v2;
 *   records  every record type from _fill_sample, and the records a small
 *            classic-group scenario and committed, aborted, open and
 *            prepared transactions make the coordinators emit;
 *   coord    scenarios of the group APIs (join, sync, heartbeat, commit,
 *            fetch, leave, delete, timers, reload, transactional offsets
 *            and their markers) and one request of each
 *            group API at every version;
 *   topology a store's answers to get, set and del: descriptions from the
 *            _fill_sample of StreamsGroupTopologyDescriptionUpdate, stored
 *            as kc_topology_desc_encode writes them, and failures.
 * The seeds of sasl, admin and config are text, written by hand.
 * Usage: seed_writer OUT_DIR. Exits 1 when a file cannot be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kc_fuzz_coord.h"
#include "topology_desc.h"

static const char *out_dir;
static int failed;

static void write_seed(const char *target, const char *name, const kc_buf_t *b)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", out_dir, target);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        failed = 1;
    snprintf(path, sizeof(path), "%s/%s/%s", out_dir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || (b->len && fwrite(b->data, 1, b->len, f) != b->len))
        failed = 1;
    if (f && fclose(f) != 0)
        failed = 1;
}

static void snake(const char *name, char *out, size_t cap)
{
    size_t j = 0;
    for (size_t i = 0; name[i] && j + 2 < cap; i++) {
        char ch = name[i];
        if (ch >= 'A' && ch <= 'Z') {
            if (i)
                out[j++] = '_';
            ch = (char)(ch - 'A' + 'a');
        }
        out[j++] = ch;
    }
    out[j] = 0;
}

/* ---- codec ----------------------------------------------------------- */

static void write_codec(void)
{
    for (size_t i = 0; i < kc_msg_descs_count; i++) {
        const kc_msg_desc_t *d = &kc_msg_descs[i];
        if (d->api_key < 0)
            continue;
        char sn[128];
        snake(d->name, sn, sizeof(sn));
        for (int16_t v = d->min_version; v <= d->max_version; v++) {
            kc_arena_t a;
            kc_arena_init(&a);
            void *m = kc_xcalloc(1, d->size);
            d->fill_sample(m, v, &a, 1);
            kc_buf_t b;
            kc_buf_init(&b);
            kc_write_int16(&b, (int16_t)(d->api_key | (d->is_response ? 0x8000 : 0)));
            kc_write_int16(&b, v);
            if (d->encode(&b, v, m) == 0) {
                char name[160];
                snprintf(name, sizeof(name), "%s_v%d", sn, v);
                write_seed("codec", name, &b);
            }
            kc_buf_deinit(&b);
            free(m);
            kc_arena_deinit(&a);
        }
    }
}

/* ---- header ---------------------------------------------------------- */

static void write_header(void)
{
    static const struct {
        const char *name;
        bool flexible;
        const char *client_id; /* NULL: null string */
    } hs[] = {{"v1_client", false, "rdkafka"},
              {"v1_null_client", false, NULL},
              {"v2_client", true, "consumer-1"},
              {"v2_empty_client", true, ""}};
    for (size_t i = 0; i < KC_ARRAY_LEN(hs); i++) {
        kc_buf_t b;
        kc_buf_init(&b);
        kc_write_int8(&b, hs[i].flexible ? 1 : 0);
        kc_write_int16(&b, KC_API_JOIN_GROUP);
        kc_write_int16(&b, hs[i].flexible ? 9 : 5);
        kc_write_int32(&b, 42);
        kc_write_str(&b, kc_str(hs[i].client_id), false);
        if (hs[i].flexible) {
            kc_write_uvarint(&b, 1); /* one tagged field */
            kc_write_uvarint(&b, 0);
            kc_write_uvarint(&b, 2);
            kc_write_int16(&b, 7);
        }
        write_seed("header", hs[i].name, &b);
        kc_buf_deinit(&b);
    }
}

/* ---- coord ops ------------------------------------------------------- */

static size_t api_index(int16_t api_key)
{
    for (size_t i = 0; i < kc_fuzz_group_apis_count; i++)
        if (kc_fuzz_group_apis[i] == api_key)
            return i;
    abort();
}

/* Appends a request op: the body of m encoded at version v. */
static void op_req(kc_buf_t *ops, int16_t api_key, int16_t v, const void *m)
{
    const kc_msg_desc_t *d = kc_msg_desc_for_api(api_key, false);
    kc_buf_t body;
    kc_buf_init(&body);
    if (d->encode(&body, v, m) != 0 || body.len > UINT16_MAX) {
        fprintf(stderr, "seed_writer: cannot encode %s v%d\n", d->name, v);
        abort();
    }
    kc_write_int8(ops, 0);
    kc_write_int8(ops, (int8_t)api_index(api_key));
    kc_write_int8(ops, (int8_t)(v - d->min_version));
    kc_write_uint16(ops, (uint16_t)body.len);
    kc_buf_append(ops, body.data, body.len);
    kc_buf_deinit(&body);
}

static void op_tick(kc_buf_t *ops, uint16_t ms)
{
    kc_write_int8(ops, 1);
    kc_write_uint16(ops, ms);
}

static void op_hours(kc_buf_t *ops, uint8_t hours)
{
    kc_write_int8(ops, 2);
    kc_write_int8(ops, (int8_t)hours);
}

static void op_reload(kc_buf_t *ops) { kc_write_int8(ops, 3); }

static void op_marker(kc_buf_t *ops, bool commit)
{
    kc_write_int8(ops, 4);
    kc_write_int8(ops, commit ? 1 : 0);
}

/* TxnOffsetCommit v3 of t0/0 for group "g" by producer pid, without a member. */
static void txn_commit(kc_buf_t *ops, int64_t pid, int64_t offset)
{
    kc_txn_offset_commit_request_partition_t p = {.partition_index = 0, .committed_offset = offset,
                                                  .committed_leader_epoch = -1,
                                                  .committed_metadata = kc_str("")};
    kc_txn_offset_commit_request_topic_t t = {.name = kc_str("t0"), .partitions = {&p, 1}};
    kc_txn_offset_commit_request_t m;
    kc_txn_offset_commit_request_init(&m);
    m.transactional_id = kc_str("tx");
    m.group_id = kc_str("g");
    m.producer_id = pid;
    m.producer_epoch = 0;
    m.topics.items = &t;
    m.topics.count = 1;
    op_req(ops, KC_API_TXN_OFFSET_COMMIT, 3, &m);
}

static kc_bytes_t bytes_of(const char *s) { return (kc_bytes_t){(const uint8_t *)s, (int32_t)strlen(s)}; }

static void join(kc_buf_t *ops, int16_t v, const char *member, const char *instance)
{
    kc_join_group_request_protocol_t p = {kc_str("range"), bytes_of("\0\0\0\0\0\1\0\2t0\0\0\0\0")};
    kc_join_group_request_t m;
    kc_join_group_request_init(&m);
    m.group_id = kc_str("g");
    m.session_timeout_ms = 10000;
    m.rebalance_timeout_ms = 30000;
    m.member_id = kc_str(member);
    m.group_instance_id = v >= 5 ? kc_str(instance) : KC_STR_NULL;
    m.protocol_type = kc_str("consumer");
    m.protocols.items = &p;
    m.protocols.count = 1;
    op_req(ops, KC_API_JOIN_GROUP, v, &m);
}

static void sync(kc_buf_t *ops, int16_t v, const char *member, int32_t gen, bool leader)
{
    kc_sync_group_request_assignment_t a[2] = {
        {kc_str("#0"), bytes_of("\0\0\0\0\0\1\0\2t0\0\0\0\1\0\0\0\0\0\0\0\0")},
        {kc_str("#1"), bytes_of("\0\0\0\0\0\1\0\2t0\0\0\0\1\0\0\0\1\0\0\0\0")}};
    kc_sync_group_request_t m;
    kc_sync_group_request_init(&m);
    m.group_id = kc_str("g");
    m.generation_id = gen;
    m.member_id = kc_str(member);
    if (v >= 5) {
        m.protocol_type = kc_str("consumer");
        m.protocol_name = kc_str("range");
    }
    m.assignments.items = a;
    m.assignments.count = leader ? 2 : 0;
    op_req(ops, KC_API_SYNC_GROUP, v, &m);
}

static void heartbeat(kc_buf_t *ops, int16_t v, const char *member, int32_t gen)
{
    kc_heartbeat_request_t m;
    kc_heartbeat_request_init(&m);
    m.group_id = kc_str("g");
    m.generation_id = gen;
    m.member_id = kc_str(member);
    op_req(ops, KC_API_HEARTBEAT, v, &m);
}

static void commit(kc_buf_t *ops, int16_t v, const char *member, int32_t gen)
{
    kc_offset_commit_request_partition_t p[2];
    for (int i = 0; i < 2; i++) {
        memset(&p[i], 0, sizeof(p[i]));
        p[i].partition_index = i;
        p[i].committed_offset = 10 + i;
        p[i].committed_leader_epoch = -1;
        p[i].commit_timestamp = -1;
        p[i].committed_metadata = kc_str("meta");
    }
    kc_offset_commit_request_topic_t t;
    memset(&t, 0, sizeof(t));
    t.name = kc_str("t0");
    t.topic_id.b[15] = 1;
    t.partitions.items = p;
    t.partitions.count = 2;
    kc_offset_commit_request_t m;
    kc_offset_commit_request_init(&m);
    m.group_id = kc_str("g");
    m.generation_id_or_member_epoch = gen;
    m.member_id = kc_str(member);
    m.topics.items = &t;
    m.topics.count = 1;
    op_req(ops, KC_API_OFFSET_COMMIT, v, &m);
}

static void fetch_all(kc_buf_t *ops)
{
    kc_offset_fetch_request_t m;
    kc_offset_fetch_request_init(&m);
    m.group_id = kc_str("g");
    m.topics.count = -1;
    op_req(ops, KC_API_OFFSET_FETCH, 7, &m);
}

static void describe_list(kc_buf_t *ops)
{
    kc_str_t g = kc_str("g");
    kc_describe_groups_request_t d;
    kc_describe_groups_request_init(&d);
    d.groups.items = &g;
    d.groups.count = 1;
    op_req(ops, KC_API_DESCRIBE_GROUPS, 5, &d);
    kc_list_groups_request_t l;
    kc_list_groups_request_init(&l);
    op_req(ops, KC_API_LIST_GROUPS, 4, &l);
}

static void leave(kc_buf_t *ops, const char *member)
{
    kc_leave_group_request_member_identity_t mi = {kc_str(member), KC_STR_NULL, KC_STR_NULL};
    kc_leave_group_request_t m;
    kc_leave_group_request_init(&m);
    m.group_id = kc_str("g");
    m.members.items = &mi;
    m.members.count = 1;
    op_req(ops, KC_API_LEAVE_GROUP, 3, &m);
}

static void delete_offsets_and_group(kc_buf_t *ops)
{
    kc_offset_delete_request_partition_t p = {0};
    kc_offset_delete_request_topic_t t = {kc_str("t0"), {&p, 1}};
    kc_offset_delete_request_t od;
    kc_offset_delete_request_init(&od);
    od.group_id = kc_str("g");
    od.topics.items = &t;
    od.topics.count = 1;
    op_req(ops, KC_API_OFFSET_DELETE, 0, &od);
    kc_str_t g = kc_str("g");
    kc_delete_groups_request_t dg;
    kc_delete_groups_request_init(&dg);
    dg.groups_names.items = &g;
    dg.groups_names.count = 1;
    op_req(ops, KC_API_DELETE_GROUPS, 2, &dg);
}

static void write_coord(void)
{
    kc_buf_t b;
    kc_buf_init(&b);

    /* One consumer: join (member id required), sync, heartbeat, commit,
     * fetch, reload, leave, delete. */
    kc_write_int8(&b, 1);
    join(&b, 5, "", NULL);
    join(&b, 5, "#0", NULL);
    op_tick(&b, 1);
    sync(&b, 3, "#0", 1, true);
    heartbeat(&b, 3, "#0", 1);
    commit(&b, 8, "#0", 1);
    fetch_all(&b);
    describe_list(&b);
    op_reload(&b);
    heartbeat(&b, 3, "#0", 1);
    fetch_all(&b);
    leave(&b, "#0");
    delete_offsets_and_group(&b);
    fetch_all(&b);
    write_seed("coord", "one_member_lifecycle", &b);
    kc_buf_reset(&b);

    /* Two consumers on Kafka's 3 s delay; the second joins during the
     * rebalance; the follower misses heartbeats and expires. */
    kc_write_int8(&b, 0);
    join(&b, 5, "", NULL);
    join(&b, 5, "#0", NULL);
    join(&b, 5, "", NULL);
    join(&b, 5, "#1", NULL);
    op_tick(&b, 3100);
    sync(&b, 3, "#0", 1, true);
    sync(&b, 3, "#1", 1, false);
    commit(&b, 8, "#1", 1);
    op_tick(&b, 5000);
    heartbeat(&b, 3, "#0", 1);
    op_tick(&b, 6000);
    heartbeat(&b, 3, "#0", 1);
    join(&b, 5, "#0", NULL);
    op_tick(&b, 30000);
    describe_list(&b);
    op_hours(&b, 200);
    fetch_all(&b);
    write_seed("coord", "two_members_expiry", &b);
    kc_buf_reset(&b);

    /* Static members (KIP-345) at v5, then an old v0 join and a commit by
     * a simple (memberless) consumer. */
    kc_write_int8(&b, 1);
    join(&b, 5, "", "instance-a");
    op_tick(&b, 1);
    sync(&b, 3, "#0", 1, true);
    join(&b, 5, "", "instance-a");
    heartbeat(&b, 3, "#0", 1);
    op_reload(&b);
    join(&b, 0, "", NULL);
    commit(&b, 2, "", -1);
    op_tick(&b, 40000);
    write_seed("coord", "static_member_and_v0", &b);
    kc_buf_reset(&b);

    /* Transactional offsets: one committed by its marker, one kept
     * pending over a reload and then aborted, fetched in between. */
    kc_write_int8(&b, 1);
    txn_commit(&b, 5, 10);
    fetch_all(&b);
    op_marker(&b, true);
    fetch_all(&b);
    txn_commit(&b, 6, 20);
    op_reload(&b);
    fetch_all(&b);
    op_marker(&b, false);
    fetch_all(&b);
    write_seed("coord", "transactional_offsets", &b);
    kc_buf_reset(&b);

    /* One request of each group API at each version, from _fill_sample. */
    for (size_t i = 0; i < kc_fuzz_group_apis_count; i++) {
        const kc_msg_desc_t *d = kc_msg_desc_for_api(kc_fuzz_group_apis[i], false);
        char sn[128];
        snake(d->name, sn, sizeof(sn));
        for (int16_t v = d->min_version; v <= d->max_version; v++) {
            kc_arena_t a;
            kc_arena_init(&a);
            void *m = kc_xcalloc(1, d->size);
            d->fill_sample(m, v, &a, 1);
            kc_write_int8(&b, 1);
            op_req(&b, d->api_key, v, m);
            op_tick(&b, 60000);
            char name[160];
            snprintf(name, sizeof(name), "%s_v%d", sn, v);
            write_seed("coord", name, &b);
            kc_buf_reset(&b);
            free(m);
            kc_arena_deinit(&a);
        }
    }
    kc_buf_deinit(&b);
}

/* ---- records --------------------------------------------------------- */

static void put_record(kc_buf_t *b, const kc_buf_t *key, const kc_buf_t *value, bool tombstone)
{
    kc_write_int8(b, tombstone ? 1 : 0);
    kc_write_uint16(b, (uint16_t)key->len);
    kc_buf_append(b, key->data, key->len);
    kc_write_uint16(b, (uint16_t)(tombstone ? 0 : value->len));
    if (!tombstone)
        kc_buf_append(b, value->data, value->len);
}

static const kc_msg_desc_t *record_desc(int16_t type, bool key)
{
    for (size_t i = 0; i < kc_msg_descs_count; i++) {
        const kc_msg_desc_t *d = &kc_msg_descs[i];
        size_t n = strlen(d->name);
        bool is_key = n > 3 && strcmp(d->name + n - 3, "Key") == 0;
        if (d->record_type == type && is_key == key)
            return d;
    }
    return NULL;
}

static void write_records(void)
{
    /* Every record type the schemas know, each value version. */
    for (int16_t type = 0; type < 64; type++) {
        const kc_msg_desc_t *kd = record_desc(type, true), *vd = record_desc(type, false);
        if (!kd || !vd)
            continue;
        char sn[128];
        snake(vd->name, sn, sizeof(sn));
        for (int16_t v = vd->min_version; v <= vd->max_version; v++) {
            kc_arena_t a;
            kc_arena_init(&a);
            void *km = kc_xcalloc(1, kd->size), *vm = kc_xcalloc(1, vd->size);
            kd->fill_sample(km, kd->min_version, &a, 1);
            vd->fill_sample(vm, v, &a, 1);
            kc_buf_t key, value, b;
            kc_buf_init(&key);
            kc_buf_init(&value);
            kc_buf_init(&b);
            kc_write_int16(&key, type);
            kc_write_int16(&value, v);
            if (kd->encode(&key, kd->min_version, km) == 0 && vd->encode(&value, v, vm) == 0 &&
                key.len <= UINT16_MAX && value.len <= UINT16_MAX) {
                put_record(&b, &key, &value, false);
                put_record(&b, &key, &value, true);
                put_record(&b, &key, &value, false);
                char name[160];
                snprintf(name, sizeof(name), "%s_v%d", sn, v);
                write_seed("records", name, &b);
            }
            kc_buf_deinit(&key);
            kc_buf_deinit(&value);
            kc_buf_deinit(&b);
            free(km);
            free(vm);
            kc_arena_deinit(&a);
        }
    }

    /* The records a real scenario emits, in order. */
    kc_coord_t *c = kc_fuzz_coord_new(true);
    kc_coord_loaded(c, 1000);
    kc_result_t res;
    kc_result_init(&res);
    kc_buf_t out;
    kc_buf_init(&out);
    kc_request_ctx_t ctx = {.conn_id = 1, .client_id = kc_str("seed"),
                            .client_host = "/127.0.0.1", .now_ms = 1000};
    kc_join_group_request_protocol_t p = {kc_str("range"), bytes_of("\0\0\0\0\0\0")};
    kc_join_group_request_t j;
    kc_join_group_request_init(&j);
    j.group_id = kc_str("g");
    j.session_timeout_ms = 10000;
    j.rebalance_timeout_ms = 10000;
    j.member_id = kc_str("");
    j.group_instance_id = kc_str("static-1");
    j.protocol_type = kc_str("consumer");
    j.protocols.items = &p;
    j.protocols.count = 1;
    ctx.api_key = KC_API_JOIN_GROUP;
    ctx.api_version = 5;
    kc_coord_join_group(c, &ctx, &j, &res);
    kc_coord_tick(c, 1001, &res);
    kc_offset_commit_request_partition_t op = {.partition_index = 1, .committed_offset = 5,
                                               .committed_leader_epoch = -1,
                                               .commit_timestamp = -1,
                                               .committed_metadata = kc_str("m")};
    kc_offset_commit_request_topic_t ot = {.name = kc_str("t1"), .partitions = {&op, 1}};
    kc_offset_commit_request_t oc;
    kc_offset_commit_request_init(&oc);
    oc.group_id = kc_str("simple");
    oc.topics.items = &ot;
    oc.topics.count = 1;
    ctx.api_key = KC_API_OFFSET_COMMIT;
    ctx.api_version = 8;
    kc_coord_offset_commit(c, &ctx, &oc, &res);
    for (size_t i = 0; i < res.nrecords; i++)
        put_record(&out, &res.records[i].key, &res.records[i].value, res.records[i].tombstone);
    write_seed("records", "scenario_static_member_and_commit", &out);
    kc_buf_deinit(&out);
    kc_result_deinit(&res);
    kc_coord_free(c);
}

/* One transaction of id on t0/0 and t1/1 with a transactional offset of
 * group "g-txn": ended (commit or abort, the group coordinator told) unless
 * end is false. */
static void seed_txn(kc_coord_t *c, kc_txn_coord_t *t, const char *id, bool end, bool commit,
                     kc_result_t *res)
{
    int64_t pid;
    int16_t epoch;
    kc_str_t tid = kc_str(id), group = kc_str("g-txn");
    if (kc_txn_init_producer_id(t, 1000, tid, 60000, -1, -1, res, &pid, &epoch) != 0)
        return;
    int32_t op = kc_coord_offsets_partition_for(c, group);
    kc_txn_partition_t parts[3] = {{"__consumer_offsets", op}, {"t0", 0}, {"t1", 1}};
    kc_txn_add_partitions(t, 1000, tid, pid, epoch, parts, 3, 2, res);
    kc_txn_offset_commit_request_partition_t p = {.partition_index = 0, .committed_offset = 7,
                                                  .committed_leader_epoch = -1,
                                                  .committed_metadata = kc_str("")};
    kc_txn_offset_commit_request_topic_t tp = {.name = kc_str("t0"), .partitions = {&p, 1}};
    kc_txn_offset_commit_request_t req;
    kc_txn_offset_commit_request_init(&req);
    req.transactional_id = tid;
    req.group_id = group;
    req.producer_id = pid;
    req.producer_epoch = epoch;
    req.topics.items = &tp;
    req.topics.count = 1;
    kc_request_ctx_t ctx = {.conn_id = 1, .client_id = kc_str("seed"),
                            .client_host = "/127.0.0.1", .now_ms = 1000,
                            .api_key = KC_API_TXN_OFFSET_COMMIT, .api_version = 4};
    kc_coord_txn_offset_commit(c, &ctx, &req, 0, res);
    if (!end)
        return;
    int64_t out_pid;
    int16_t out_epoch;
    if (kc_txn_end(t, 1000, tid, pid, epoch, commit, 2, res, &out_pid, &out_epoch) == 0)
        kc_coord_txn_offsets_end(c, pid, commit, op, res);
}

/* The records of committed, aborted and open transactions (types 100 and
 * 101), and the same up to tx-commit's PrepareCommit (a transaction left
 * prepared, which the load completes). */
static void write_txn_records(void)
{
    kc_coord_t *c = kc_fuzz_coord_new(true);
    kc_coord_loaded(c, 1000);
    int64_t next_pid = 1000;
    kc_txn_coord_t *t = kc_fuzz_txn_new(&next_pid);
    kc_result_t res;
    kc_result_init(&res);
    kc_txn_loaded(t, 1000, &res);
    seed_txn(c, t, "tx-abort", true, false, &res);
    seed_txn(c, t, "tx-open", false, false, &res);
    seed_txn(c, t, "tx-commit", true, true, &res);
    size_t last_state = 0; /* the last transaction state record: tx-commit's Complete */
    for (size_t i = 0; i < res.nrecords; i++)
        if (kc_txn_is_record(res.records[i].key.data, res.records[i].key.len))
            last_state = i;
    kc_buf_t out;
    kc_buf_init(&out);
    for (size_t i = 0; i < res.nrecords; i++) {
        if (i == last_state)
            write_seed("records", "scenario_transactions_prepared", &out);
        put_record(&out, &res.records[i].key, &res.records[i].value, res.records[i].tombstone);
    }
    write_seed("records", "scenario_transactions", &out);
    kc_buf_deinit(&out);
    kc_result_deinit(&res);
    kc_txn_free(t);
    kc_coord_free(c);
}

/* call (u8), status (u32), message length (u8, 0xff none), message, bytes. */
static void topology_seed(const char *name, uint8_t call, uint32_t status, const char *msg,
                          const kc_buf_t *desc)
{
    kc_buf_t b;
    kc_buf_init(&b);
    kc_write_int8(&b, (int8_t)call);
    kc_write_int32(&b, (int32_t)status);
    kc_write_int8(&b, (int8_t)(msg ? strlen(msg) : 0xff));
    if (msg)
        kc_buf_append(&b, msg, strlen(msg));
    if (desc)
        kc_buf_append(&b, desc->data, desc->len);
    write_seed("topology", name, &b);
    kc_buf_deinit(&b);
}

static void write_topology(void)
{
    for (int seed = 1; seed <= 3; seed++) {
        kc_arena_t a;
        kc_arena_init(&a);
        kc_streams_group_topology_description_update_request_t rq;
        kc_streams_group_topology_description_update_request_init(&rq);
        kc_streams_group_topology_description_update_request_fill_sample(&rq, 0, &a,
                                                                          (uint32_t)seed * 7);
        kc_buf_t d;
        kc_buf_init(&d);
        if (kc_topology_desc_encode(&rq.topology_description, &d) != 0)
            failed = 1;
        char name[64];
        snprintf(name, sizeof(name), "get_ok_%d", seed);
        topology_seed(name, 0, KC_TOPOLOGY_STORE_OK, NULL, &d);
        snprintf(name, sizeof(name), "set_ok_%d", seed);
        topology_seed(name, 1, KC_TOPOLOGY_STORE_OK, NULL, &d);
        kc_buf_deinit(&d);
        kc_arena_deinit(&a);
    }
    kc_buf_t v0;
    kc_buf_init(&v0);
    kc_write_int16(&v0, 0);
    topology_seed("get_version_only", 0, KC_TOPOLOGY_STORE_OK, "", &v0);
    kc_buf_deinit(&v0);
    topology_seed("get_not_found", 0, KC_TOPOLOGY_STORE_NOT_FOUND, NULL, NULL);
    topology_seed("get_transient", 0, KC_TOPOLOGY_STORE_TRANSIENT, "disk busy", NULL);
    topology_seed("set_permanent", 1, KC_TOPOLOGY_STORE_PERMANENT, "too large", NULL);
    topology_seed("del_ok", 2, KC_TOPOLOGY_STORE_OK, NULL, NULL);
    topology_seed("get_unknown_status", 0, 77, "what", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    out_dir = argv[1];
    write_codec();
    write_header();
    write_records();
    write_txn_records();
    write_coord();
    write_topology();
    if (failed)
        fprintf(stderr, "seed_writer: some files could not be written\n");
    return failed;
}
