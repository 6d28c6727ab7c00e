/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology-description barrier (KIP-1331, KAFKA-20748): the -2 write
 * before every operation that disturbs the store, the final write after it,
 * the solicitation back-off, the describe rule and the stored byte format.
 * Pure: makes no store call itself (see topology_desc.h for the steps), and
 * changes the epochs the records hold only through the group's writer.
 */
#include "topology_desc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kafka's fixed client-visible texts. */
#define MSG_DELETE_FAILED "Topology description plugin failed to delete the topology."
#define MSG_SET_PERMANENT "Topology description plugin failed."
#define MSG_SET_TRANSIENT "Plugin failure (no cause)."

struct kc_topology_desc {
    kc_topology_desc_config_t cfg;
    uint64_t rng;
};

void kc_topology_desc_config_defaults(kc_topology_desc_config_t *cfg)
{
    cfg->plugin_configured = false;
    cfg->backoff_initial_ms = 30000;
    cfg->backoff_max_ms = 3600000;
    cfg->backoff_jitter_percent = 20;
}

kc_topology_desc_t *kc_topology_desc_new(const kc_topology_desc_config_t *cfg, uint64_t seed)
{
    kc_topology_desc_t *m = kc_xcalloc(1, sizeof(*m));
    m->cfg = *cfg;
    m->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
    return m;
}

void kc_topology_desc_free(kc_topology_desc_t *m)
{
    free(m);
}

bool kc_topology_desc_enabled(const kc_topology_desc_t *m)
{
    return m && m->cfg.plugin_configured;
}

void kc_topology_desc_state_init(kc_topology_desc_state_t *st)
{
    memset(st, 0, sizeof(*st));
    st->stored_epoch = KC_TOPOLOGY_DESC_EPOCH_NONE;
    st->failed_epoch = -1;
}

void kc_topology_desc_replay(kc_topology_desc_state_t *st, const kc_streams_group_metadata_value_t *v)
{
    st->stored_epoch = v->stored_description_topology_epoch;
    st->failed_epoch = v->failed_description_topology_epoch;
}

void kc_topology_desc_fill_metadata(const kc_topology_desc_state_t *st,
                                    kc_streams_group_metadata_value_t *v)
{
    v->stored_description_topology_epoch = st->stored_epoch;
    v->failed_description_topology_epoch = st->failed_epoch;
}

static void fmt(char *out, size_t outlen, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *out, size_t outlen, const char *f, ...)
{
    if (!out || !outlen)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(out, outlen, f, ap);
    va_end(ap);
}

void kc_topology_desc_write(kc_str_t group_id, kc_topology_desc_group_t *g, int32_t stored,
                            int32_t failed, kc_result_t *res)
{
    kc_streams_group_metadata_value_t val = g->metadata;
    val.stored_description_topology_epoch = stored;
    val.failed_description_topology_epoch = failed;
    g->write(g->write_ctx, group_id, &val, res);
}

/* ---- back-off (StreamsGroupTopologyDescriptionBackoff) ------------------ */

static double next_unit(kc_topology_desc_t *m)
{
    /* xorshift64*: a uniform double in [0, 1). */
    m->rng ^= m->rng >> 12;
    m->rng ^= m->rng << 25;
    m->rng ^= m->rng >> 27;
    uint64_t x = m->rng * 2685821657736338717ULL;
    return (double)(x >> 11) / 9007199254740992.0;
}

/* Kafka's ExponentialBackoff(initial, 2, max, jitter).backoff(attempts). */
int64_t kc_topology_desc_backoff_delay(kc_topology_desc_t *m, int32_t attempts)
{
    int64_t max = m->cfg.backoff_max_ms;
    int64_t initial = KC_MIN(m->cfg.backoff_initial_ms, max);
    if (max <= initial)
        return initial;
    int64_t term = initial;
    for (int32_t i = 0; i < attempts && term < max; i++)
        term *= 2;
    term = KC_MIN(term, max);
    double jitter = m->cfg.backoff_jitter_percent / 100.0;
    double factor = jitter > 0 ? 1.0 - jitter + 2.0 * jitter * next_unit(m) : 1.0;
    int64_t value = (int64_t)(factor * (double)term);
    return KC_MIN(value, max);
}

bool kc_topology_desc_backoff_active(const kc_topology_desc_state_t *st, int32_t epoch,
                                     int64_t now_ms)
{
    return st->backoff_armed && st->backoff_epoch == epoch && now_ms < st->backoff_until_ms;
}

/* computeNextEntry: the same epoch continues the chain, another starts it again. */
static void backoff_arm(kc_topology_desc_t *m, kc_topology_desc_state_t *st, int32_t epoch,
                        int64_t now_ms)
{
    int32_t attempts = st->backoff_armed && st->backoff_epoch == epoch ? st->backoff_attempts + 1 : 0;
    st->backoff_armed = true;
    st->backoff_epoch = epoch;
    st->backoff_attempts = attempts;
    st->backoff_until_ms = now_ms + kc_topology_desc_backoff_delay(m, attempts);
}

/* armIfNotActive */
static bool backoff_arm_if_not_active(kc_topology_desc_t *m, kc_topology_desc_state_t *st,
                                      int32_t epoch, int64_t now_ms)
{
    if (kc_topology_desc_backoff_active(st, epoch, now_ms))
        return false;
    backoff_arm(m, st, epoch, now_ms);
    return true;
}

/* armOrExtend: a late completion at an older epoch leaves a newer entry alone. */
static void backoff_arm_or_extend(kc_topology_desc_t *m, kc_topology_desc_state_t *st,
                                  int32_t epoch, int64_t now_ms)
{
    if (st->backoff_armed && st->backoff_epoch > epoch)
        return;
    backoff_arm(m, st, epoch, now_ms);
}

/* clear(groupId, epoch) */
static void backoff_clear(kc_topology_desc_state_t *st, int32_t epoch)
{
    if (st->backoff_armed && st->backoff_epoch == epoch)
        st->backoff_armed = false;
}

/* ---- rules ---------------------------------------------------------------- */

bool kc_topology_desc_solicit(kc_topology_desc_t *m, kc_topology_desc_state_t *st,
                              int16_t api_version, int32_t member_epoch, int16_t error_code,
                              bool stale_topology, int32_t topology_epoch, int64_t now_ms)
{
    /* A v0 client cannot read the flag, and arming for it would only grow the window. */
    if (api_version < 1 || !kc_topology_desc_enabled(m) || member_epoch < 0)
        return false;
    if (error_code != KC_ERR_NONE || topology_epoch < 0 || stale_topology)
        return false;
    if (st->stored_epoch == topology_epoch || st->failed_epoch == topology_epoch)
        return false;
    return backoff_arm_if_not_active(m, st, topology_epoch, now_ms);
}

int8_t kc_topology_desc_describe_status(const kc_topology_desc_t *m,
                                        const kc_topology_desc_state_t *st, bool has_topology,
                                        int32_t topology_epoch)
{
    if (!kc_topology_desc_enabled(m) || !has_topology)
        return KC_TOPOLOGY_DESC_STATUS_NOT_STORED;
    /* Only a real epoch (>= 0) equal to the current one is reliably stored. */
    if (st->stored_epoch < 0 || st->stored_epoch != topology_epoch)
        return KC_TOPOLOGY_DESC_STATUS_NOT_STORED;
    return KC_TOPOLOGY_DESC_STATUS_AVAILABLE;
}

int8_t kc_topology_desc_get_status(kc_topology_store_status_t status)
{
    switch (status) {
    case KC_TOPOLOGY_STORE_OK:
        return KC_TOPOLOGY_DESC_STATUS_AVAILABLE;
    case KC_TOPOLOGY_STORE_NOT_FOUND:
        return KC_TOPOLOGY_DESC_STATUS_NOT_STORED;
    case KC_TOPOLOGY_STORE_TRANSIENT:
    case KC_TOPOLOGY_STORE_PERMANENT:
        break;
    }
    return KC_TOPOLOGY_DESC_STATUS_ERROR;
}

/* ---- operations ------------------------------------------------------------ */

static kc_topology_desc_op_t *op_new(kc_topology_desc_op_kind_t kind, kc_str_t group_id,
                                     kc_topology_desc_state_t *st)
{
    kc_topology_desc_op_t *op = kc_xcalloc(1, sizeof(*op));
    op->kind = kind;
    op->group_id_len = (size_t)(group_id.len > 0 ? group_id.len : 0);
    op->group_id = kc_xstrndup(group_id.ptr, op->group_id_len);
    op->topology_epoch = -1;
    kc_buf_init(&op->description);
    st->ops_in_flight++;
    return op;
}

void kc_topology_desc_op_free(kc_topology_desc_op_t *op)
{
    if (!op)
        return;
    free(op->group_id);
    kc_buf_deinit(&op->description);
    free(op);
}

static kc_str_t op_group(const kc_topology_desc_op_t *op)
{
    return (kc_str_t){op->group_id, (int32_t)op->group_id_len};
}

int16_t kc_topology_desc_push_validate(const kc_topology_desc_t *m, bool loaded, int lookup,
                                       const kc_topology_desc_group_t *g, bool member_known,
                                       kc_str_t group_id, kc_str_t member_id,
                                       int32_t topology_epoch, char *msg, size_t msglen)
{
    int gl = group_id.len > 0 ? group_id.len : 0, ml = member_id.len > 0 ? member_id.len : 0;
    fmt(msg, msglen, "%s", "");
    if (!kc_topology_desc_enabled(m)) {
        fmt(msg, msglen, "The broker has no streams group topology description plugin configured.");
        return KC_ERR_UNSUPPORTED_VERSION;
    }
    if (ml == 0) {
        fmt(msg, msglen, "MemberId can't be empty.");
        return KC_ERR_INVALID_REQUEST;
    }
    if (gl == 0) {
        fmt(msg, msglen, "GroupId can't be empty.");
        return KC_ERR_INVALID_REQUEST;
    }
    if (!loaded)
        return KC_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    if (lookup == 0) {
        fmt(msg, msglen, "Group %.*s not found.", gl, group_id.ptr);
        return KC_ERR_GROUP_ID_NOT_FOUND;
    }
    if (lookup < 0 || !g) {
        fmt(msg, msglen, "Group %.*s is not a streams group.", gl, group_id.ptr);
        return KC_ERR_GROUP_ID_NOT_FOUND;
    }
    if (!member_known) {
        fmt(msg, msglen, "Member %.*s is not a member of group %.*s.", ml, member_id.ptr, gl,
            group_id.ptr);
        return KC_ERR_UNKNOWN_MEMBER_ID;
    }
    if (topology_epoch != g->topology_epoch) {
        fmt(msg, msglen,
            "Topology epoch %d does not match the group's current topology epoch %d.",
            topology_epoch, g->topology_epoch);
        return KC_ERR_INVALID_REQUEST;
    }
    if (msg && msglen)
        msg[0] = '\0';
    return KC_ERR_NONE;
}

/* markStoredDescriptionTopologyEpochUncertain: false = no store call. */
static bool mark_uncertain(kc_str_t group_id, kc_topology_desc_group_t *g, bool mark_when_none,
                           kc_result_t *res)
{
    if (!g)
        return false;
    /* Deletes only target empty groups; one revived since the caller looked drops out. */
    if (!mark_when_none && !g->empty)
        return false;
    int32_t stored = g->state->stored_epoch;
    if (stored == KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN)
        return true;
    if (stored == KC_TOPOLOGY_DESC_EPOCH_NONE && !mark_when_none)
        return false;
    kc_topology_desc_write(group_id, g, KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN, g->state->failed_epoch,
                           res);
    return true;
}

kc_topology_desc_op_t *kc_topology_desc_push_begin(kc_str_t group_id, kc_topology_desc_group_t *g,
                                                   int32_t topology_epoch,
                                                   const uint8_t *description, size_t len,
                                                   kc_result_t *res)
{
    if (!mark_uncertain(group_id, g, true, res))
        return NULL;
    kc_topology_desc_op_t *op = op_new(KC_TOPOLOGY_DESC_OP_PUSH, group_id, g->state);
    op->call_set = true;
    op->topology_epoch = topology_epoch;
    kc_buf_append(&op->description, description, len);
    return op;
}

bool kc_topology_desc_cleanup_eligible(const kc_topology_desc_t *m,
                                       const kc_topology_desc_group_t *g)
{
    return kc_topology_desc_enabled(m) && g && g->empty && !g->has_offsets &&
           g->state->stored_epoch != KC_TOPOLOGY_DESC_EPOCH_NONE;
}

bool kc_topology_desc_delete_needed(const kc_topology_desc_t *m, const kc_topology_desc_group_t *g)
{
    return kc_topology_desc_enabled(m) && g && g->empty &&
           g->state->stored_epoch != KC_TOPOLOGY_DESC_EPOCH_NONE;
}

bool kc_topology_desc_may_expire(const kc_topology_desc_t *m, const kc_topology_desc_state_t *st)
{
    return !(kc_topology_desc_enabled(m) && st->stored_epoch != KC_TOPOLOGY_DESC_EPOCH_NONE);
}

bool kc_topology_desc_conversion_throttled(const kc_topology_desc_state_t *st, int64_t now_ms)
{
    return kc_topology_desc_backoff_active(st, KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN, now_ms);
}

kc_topology_desc_op_t *kc_topology_desc_delete_begin(kc_topology_desc_op_kind_t kind,
                                                     kc_str_t group_id,
                                                     kc_topology_desc_group_t *g,
                                                     kc_result_t *res)
{
    if (kind == KC_TOPOLOGY_DESC_OP_PUSH || !mark_uncertain(group_id, g, false, res))
        return NULL;
    return op_new(kind, group_id, g->state);
}

void kc_topology_desc_finalize_after_delete(kc_str_t group_id, kc_topology_desc_group_t *g,
                                            kc_result_t *res)
{
    if (!g || g->state->stored_epoch == KC_TOPOLOGY_DESC_EPOCH_NONE)
        return;
    /* Still -2: no push raced, the store is empty. Anything else: a push wrote
     * its epoch while the delete was in flight, and the delete may have wiped
     * it: force -2 so the group is asked to push again. */
    int32_t stored = g->state->stored_epoch == KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN
                         ? KC_TOPOLOGY_DESC_EPOCH_NONE
                         : KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN;
    kc_topology_desc_write(group_id, g, stored, g->state->failed_epoch, res);
}

int16_t kc_topology_desc_deletion_error(int16_t code, int16_t api_version)
{
    if (code == KC_ERR_GROUP_DELETION_FAILED && api_version < 3)
        return KC_ERR_UNKNOWN_SERVER_ERROR;
    return code;
}

static void set_outcome(kc_topology_desc_outcome_t *out, int16_t code, const char *message)
{
    out->error_code = code;
    snprintf(out->message, sizeof(out->message), "%s", message ? message : "");
}

/* setStored/FailedDescriptionTopologyEpoch: never move either epoch back. */
static void push_final_write(kc_str_t group_id, kc_topology_desc_group_t *g, int32_t pushed,
                             bool permanent, kc_result_t *res)
{
    int32_t stored = g->state->stored_epoch, failed = g->state->failed_epoch;
    if (permanent)
        failed = KC_MAX(failed, pushed);
    else if (stored == KC_TOPOLOGY_DESC_EPOCH_NONE)
        /* The -2 this push wrote is gone: only a delete's finalize clears it,
         * so a delete raced this set and may have run after it. */
        stored = KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN;
    else
        stored = KC_MAX(stored, pushed);
    kc_topology_desc_write(group_id, g, stored, failed, res);
}

void kc_topology_desc_complete(kc_topology_desc_t *m, const kc_topology_desc_op_t *op,
                               kc_topology_desc_group_t *g, kc_topology_store_status_t status,
                               const char *message, int64_t now_ms, kc_result_t *res,
                               kc_topology_desc_outcome_t *out)
{
    memset(out, 0, sizeof(*out));
    kc_str_t gid = op_group(op);
    if (g && g->state->ops_in_flight > 0)
        g->state->ops_in_flight--;
    bool ok = status == KC_TOPOLOGY_STORE_OK;
    switch (op->kind) {
    case KC_TOPOLOGY_DESC_OP_PUSH:
        if (status == KC_TOPOLOGY_STORE_TRANSIENT || status == KC_TOPOLOGY_STORE_NOT_FOUND) {
            if (g)
                backoff_arm_or_extend(m, g->state, op->topology_epoch, now_ms);
            set_outcome(out, KC_ERR_STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED,
                        message ? message : MSG_SET_TRANSIENT);
            return;
        }
        if (!g) {
            snprintf(out->message, sizeof(out->message), "Group %.*s not found.", gid.len,
                     gid.ptr);
            out->error_code = KC_ERR_GROUP_ID_NOT_FOUND;
            return;
        }
        push_final_write(gid, g, op->topology_epoch, !ok, res);
        backoff_clear(g->state, op->topology_epoch);
        if (ok)
            set_outcome(out, KC_ERR_NONE, NULL);
        else
            set_outcome(out, KC_ERR_STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED,
                        message ? message : MSG_SET_PERMANENT);
        return;
    case KC_TOPOLOGY_DESC_OP_CLEANUP:
    case KC_TOPOLOGY_DESC_OP_DELETE_GROUP:
        if (!ok) {
            /* Stays -2: still delete-eligible, and re-soliciting if revived. */
            if (op->kind == KC_TOPOLOGY_DESC_OP_DELETE_GROUP)
                set_outcome(out, KC_ERR_GROUP_DELETION_FAILED, MSG_DELETE_FAILED);
            return;
        }
        if (g)
            g->state->backoff_armed = false;
        kc_topology_desc_finalize_after_delete(gid, g, res);
        out->proceed = op->kind == KC_TOPOLOGY_DESC_OP_DELETE_GROUP;
        return;
    case KC_TOPOLOGY_DESC_OP_CONVERSION:
        if (!ok) {
            /* Classic clients rejoin at once on REBALANCE_IN_PROGRESS: the
             * window keeps them from hammering a failing store. */
            if (g)
                backoff_arm_if_not_active(m, g->state, KC_TOPOLOGY_DESC_EPOCH_UNCERTAIN, now_ms);
            set_outcome(out, KC_ERR_REBALANCE_IN_PROGRESS, NULL);
            return;
        }
        if (g)
            g->state->backoff_armed = false;
        out->proceed = true;
        return;
    }
}

/* ---- description bytes ------------------------------------------------------- */

#define STORED_FORMAT_VERSION 0

/* The request, stored and describe structures have the same shape under
 * different generated names: one copy routine for each pair. */
#define COPY_NODE(dst, src)                                                                        \
    do {                                                                                           \
        (dst)->name = (src)->name;                                                                 \
        (dst)->node_type = (src)->node_type;                                                       \
        (dst)->source_topics = (src)->source_topics;                                               \
        (dst)->sink_topic = (src)->sink_topic;                                                     \
        (dst)->stores = (src)->stores;                                                             \
        (dst)->successors = (src)->successors;                                                     \
    } while (0)

#define COPY_ARRAY_ALLOC(dst, src, arena)                                                          \
    do {                                                                                           \
        (dst).count = (src).count;                                                                 \
        (dst).items = (src).count > 0                                                              \
                          ? kc_arena_alloc(arena, sizeof(*(dst).items) * (size_t)(src).count)     \
                          : NULL;                                                                  \
    } while (0)

#define COPY_DESCRIPTION(dst, src, arena)                                                          \
    do {                                                                                           \
        COPY_ARRAY_ALLOC((dst)->subtopologies, (src)->subtopologies, arena);                       \
        for (int32_t i_ = 0; i_ < (src)->subtopologies.count; i_++) {                              \
            (dst)->subtopologies.items[i_].subtopology_id =                                        \
                (src)->subtopologies.items[i_].subtopology_id;                                     \
            COPY_ARRAY_ALLOC((dst)->subtopologies.items[i_].nodes,                                 \
                             (src)->subtopologies.items[i_].nodes, arena);                         \
            for (int32_t j_ = 0; j_ < (src)->subtopologies.items[i_].nodes.count; j_++)            \
                COPY_NODE(&(dst)->subtopologies.items[i_].nodes.items[j_],                         \
                          &(src)->subtopologies.items[i_].nodes.items[j_]);                        \
        }                                                                                          \
        COPY_ARRAY_ALLOC((dst)->global_stores, (src)->global_stores, arena);                       \
        for (int32_t i_ = 0; i_ < (src)->global_stores.count; i_++) {                              \
            COPY_NODE(&(dst)->global_stores.items[i_].source,                                      \
                      &(src)->global_stores.items[i_].source);                                     \
            COPY_NODE(&(dst)->global_stores.items[i_].processor,                                   \
                      &(src)->global_stores.items[i_].processor);                                  \
        }                                                                                          \
    } while (0)

int kc_topology_desc_encode(const kc_streams_group_topology_description_update_request_topology_description_t *d,
                            kc_buf_t *out)
{
    kc_arena_t arena;
    kc_arena_init(&arena);
    kc_stored_topology_description_t s;
    kc_stored_topology_description_init(&s);
    COPY_DESCRIPTION(&s, d, &arena);
    kc_write_int16(out, STORED_FORMAT_VERSION);
    int rc = kc_stored_topology_description_encode(out, 0, &s);
    kc_arena_deinit(&arena);
    return rc == 0 ? 0 : KC_EINVAL;
}

int kc_topology_desc_decode(const uint8_t *data, size_t len, kc_arena_t *arena,
                            kc_streams_group_describe_response_topology_description_t *out)
{
    kc_reader_t r;
    kc_reader_init(&r, data, len);
    int16_t version = kc_read_int16(&r);
    if (r.err || version != STORED_FORMAT_VERSION)
        return KC_EINVAL;
    kc_stored_topology_description_t s;
    kc_stored_topology_description_init(&s);
    if (kc_stored_topology_description_decode(&r, 0, arena, &s) != 0 || r.err ||
        kc_reader_left(&r) != 0)
        return KC_EINVAL;
    COPY_DESCRIPTION(out, &s, arena);
    return 0;
}
