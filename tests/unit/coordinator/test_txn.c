/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator (coordinator/include/txn.h) on a driven
 * clock, against the behaviour of Kafka's TransactionCoordinator: new ids
 * and epoch bumps, the recovery checks of InitProducerId v3+, fencing an
 * Ongoing transaction, AddPartitionsToTxn, EndTxn before and with
 * transaction version 2 (epoch bumps, retries, empty aborts), epoch
 * exhaustion, the timeout abort, the expiry of ids, the order of ids as
 * Kafka's tables give it, and a load that
 * completes a transaction a Prepare record left open. Every test ends by
 * replaying the records it produced into a fresh coordinator and comparing
 * every id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kc_errors.h"
#include "kc_msgs.h"
#include "txn.h"

#define T0 1000000

typedef struct {
    int64_t pid;
    int16_t epoch;
    bool commit;
    size_t nparts;
    char first[64];
} marker_call_t;

typedef struct {
    kc_txn_coord_t *t;
    kc_txn_config_t cfg;
    kc_result_t res;     /* every record of the test, in order */
    int64_t next_pid;
    int16_t pid_error;   /* what the allocator answers when set */
    marker_call_t markers[16];
    size_t nmarkers;
} fx_t;

static int16_t next_pid(void *ctx, int64_t *out)
{
    fx_t *f = ctx;
    if (f->pid_error)
        return f->pid_error;
    *out = f->next_pid++;
    return KC_ERR_NONE;
}

static int write_markers(void *ctx, int64_t pid, int16_t epoch, bool commit, int16_t tv,
                         const kc_txn_partition_t *parts, size_t n, kc_result_t *res)
{
    (void)tv;
    (void)res;
    fx_t *f = ctx;
    assert_true(f->nmarkers < 16);
    marker_call_t *m = &f->markers[f->nmarkers++];
    m->pid = pid;
    m->epoch = epoch;
    m->commit = commit;
    m->nparts = n;
    snprintf(m->first, sizeof(m->first), "%s-%d", parts[0].topic, parts[0].partition);
    return 0;
}

static kc_txn_coord_t *new_coord(fx_t *f)
{
    kc_txn_env_t env = {next_pid, write_markers, f};
    return kc_txn_new(&f->cfg, &env);
}

static int setup(void **state)
{
    fx_t *f = calloc(1, sizeof(*f));
    kc_txn_config_defaults(&f->cfg);
    f->next_pid = 1000;
    kc_result_init(&f->res);
    f->t = new_coord(f);
    kc_txn_loaded(f->t, T0, &f->res);
    *state = f;
    return 0;
}

/* The replay check: a fresh coordinator fed every record holds the same ids. */
typedef struct {
    const kc_txn_coord_t *other;
    size_t n;
} cmp_t;

static void compare_one(void *ctx, const kc_txn_meta_t *m)
{
    cmp_t *c = ctx;
    c->n++;
    const kc_txn_meta_t *o =
        kc_txn_find(c->other, (kc_str_t){m->transactional_id, (int32_t)strlen(m->transactional_id)});
    assert_non_null(o);
    assert_int_equal(o->producer_id, m->producer_id);
    assert_int_equal(o->prev_producer_id, m->prev_producer_id);
    assert_int_equal(o->next_producer_id, m->next_producer_id);
    assert_int_equal(o->producer_epoch, m->producer_epoch);
    assert_int_equal(o->timeout_ms, m->timeout_ms);
    assert_int_equal(o->state, m->state);
    assert_int_equal(o->start_ms, m->start_ms);
    assert_int_equal(o->last_update_ms, m->last_update_ms);
    assert_int_equal(o->client_transaction_version, m->client_transaction_version);
    assert_int_equal(o->npartitions, m->npartitions);
    for (size_t i = 0; i < m->npartitions; i++) {
        assert_string_equal(o->partitions[i].topic, m->partitions[i].topic);
        assert_int_equal(o->partitions[i].partition, m->partitions[i].partition);
    }
}

static void count_one(void *ctx, const kc_txn_meta_t *m)
{
    (void)m;
    (*(size_t *)ctx)++;
}

/* A fresh coordinator fed every record of the test, in order. */
static kc_txn_coord_t *replay_all(fx_t *f)
{
    kc_txn_coord_t *r = new_coord(f);
    for (size_t i = 0; i < f->res.nrecords; i++) {
        const kc_record_t *rec = &f->res.records[i];
        assert_int_equal(kc_txn_replay(r, rec->key.data, rec->key.len,
                                       rec->tombstone ? NULL : rec->value.data, rec->value.len),
                         0);
    }
    return r;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    kc_txn_coord_t *r = replay_all(f);
    cmp_t c = {r, 0};
    kc_txn_foreach(f->t, compare_one, &c);
    size_t n = 0;
    kc_txn_foreach(r, count_one, &n);
    assert_int_equal(n, c.n);
    assert_false(f->res.failed);
    kc_txn_free(r);
    kc_txn_free(f->t);
    kc_result_deinit(&f->res);
    free(f);
    return 0;
}

static const kc_txn_meta_t *find(fx_t *f, const char *id)
{
    return kc_txn_find(f->t, kc_str(id));
}

static int16_t init_pid(fx_t *f, const char *id, int64_t now, int64_t exp_pid, int16_t exp_epoch,
                        int64_t *pid, int16_t *epoch)
{
    return kc_txn_init_producer_id(f->t, now, kc_str(id), 60000, exp_pid, exp_epoch, &f->res, pid,
                                   epoch);
}

static int16_t add(fx_t *f, const char *id, int64_t now, int64_t pid, int16_t epoch,
                   const char *topic, int32_t partition, int16_t tv)
{
    kc_txn_partition_t p = {topic, partition};
    return kc_txn_add_partitions(f->t, now, kc_str(id), pid, epoch, &p, 1, tv, &f->res);
}

static int16_t end(fx_t *f, const char *id, int64_t now, int64_t pid, int16_t epoch, bool commit,
                   int16_t tv, int64_t *out_pid, int16_t *out_epoch)
{
    return kc_txn_end(f->t, now, kc_str(id), pid, epoch, commit, tv, &f->res, out_pid, out_epoch);
}

/* ---- InitProducerId ---- */

static void init_new_id_then_bumps(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(pid, 1000);
    assert_int_equal(epoch, 0);
    const kc_txn_meta_t *m = find(f, "tx");
    assert_non_null(m);
    assert_int_equal(m->state, KC_TXN_EMPTY);
    assert_int_equal(m->timeout_ms, 60000);
    assert_int_equal(m->start_ms, -1);
    assert_int_equal(m->last_update_ms, T0);
    assert_int_equal(f->res.nrecords, 1);
    /* Without an expected pair, every InitProducerId bumps the epoch. */
    assert_int_equal(init_pid(f, "tx", T0 + 1, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(pid, 1000);
    assert_int_equal(epoch, 1);
    assert_int_equal(find(f, "tx")->last_producer_epoch, -1);
}

static void init_rejects_bad_requests(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    assert_int_equal(init_pid(f, "", T0, -1, -1, &pid, &epoch), KC_ERR_INVALID_REQUEST);
    assert_int_equal(init_pid(f, "tx", T0, 5, -1, &pid, &epoch), KC_ERR_INVALID_REQUEST);
    assert_int_equal(kc_txn_init_producer_id(f->t, T0, kc_str("tx"), 0, -1, -1, &f->res, &pid,
                                             &epoch),
                     KC_ERR_INVALID_TRANSACTION_TIMEOUT);
    assert_int_equal(kc_txn_init_producer_id(f->t, T0, kc_str("tx"), 900001, -1, -1, &f->res,
                                             &pid, &epoch),
                     KC_ERR_INVALID_TRANSACTION_TIMEOUT);
    assert_int_equal(pid, -1);
    assert_int_equal(epoch, -1);
    f->pid_error = KC_ERR_COORDINATOR_NOT_AVAILABLE;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_COORDINATOR_NOT_AVAILABLE);
    assert_null(find(f, "tx"));
    assert_int_equal(f->res.nrecords, 0);
}

static void init_recovery_with_expected_epoch(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    /* A producer recovering with its pid/epoch: the epoch moves on. */
    assert_int_equal(init_pid(f, "tx", T0, 1000, 0, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(epoch, 1);
    assert_int_equal(find(f, "tx")->last_producer_epoch, 0);
    /* Its retry (the answer was lost): the same epoch again. */
    assert_int_equal(init_pid(f, "tx", T0, 1000, 0, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(epoch, 1);
    /* Another producer id, or an epoch neither current nor last: fenced. */
    assert_int_equal(init_pid(f, "tx", T0, 999, 1, &pid, &epoch), KC_ERR_PRODUCER_FENCED);
    assert_int_equal(init_pid(f, "tx", T0, 1000, 7, &pid, &epoch), KC_ERR_PRODUCER_FENCED);
    assert_int_equal(pid, -1);
}

static void init_fences_an_ongoing_transaction(void **state)
{
    fx_t *f = *state;
    int64_t pid, opid;
    int16_t epoch, oepoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0 + 5, pid, epoch, "t", 0, 0), KC_ERR_NONE);
    /* A second producer with the same id: the transaction is aborted with
     * the next epoch, and the client is told to retry. */
    assert_int_equal(init_pid(f, "tx", T0 + 10, -1, -1, &opid, &oepoch),
                     KC_ERR_CONCURRENT_TRANSACTIONS);
    assert_int_equal(f->nmarkers, 1);
    assert_false(f->markers[0].commit);
    assert_int_equal(f->markers[0].pid, pid);
    assert_int_equal(f->markers[0].epoch, epoch + 1);
    assert_string_equal(f->markers[0].first, "t-0");
    const kc_txn_meta_t *m = find(f, "tx");
    assert_int_equal(m->state, KC_TXN_COMPLETE_ABORT);
    assert_int_equal(m->npartitions, 0);
    assert_int_equal(m->producer_epoch, epoch + 1);
    /* The zombie is fenced; the retry gets the epoch after the abort's. */
    assert_int_equal(add(f, "tx", T0 + 11, pid, epoch, "t", 1, 0), KC_ERR_PRODUCER_FENCED);
    assert_int_equal(end(f, "tx", T0 + 11, pid, epoch, true, 0, &opid, &oepoch),
                     KC_ERR_PRODUCER_FENCED);
    assert_int_equal(init_pid(f, "tx", T0 + 12, -1, -1, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(opid, pid);
    assert_int_equal(oepoch, epoch + 2);
}

static void init_rotates_an_exhausted_epoch(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    for (int i = 0; i < 32766; i++)
        assert_int_equal(init_pid(f, "tx", T0, pid, epoch, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(epoch, 32766);
    int64_t old = pid;
    assert_int_equal(init_pid(f, "tx", T0, pid, epoch, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(pid, 1001);
    assert_int_equal(epoch, 0);
    assert_int_equal(find(f, "tx")->prev_producer_id, old);
    /* The old producer retrying with its exhausted epoch is recognised. */
    assert_int_equal(init_pid(f, "tx", T0, old, 32766, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(pid, 1001);
}

/* ---- AddPartitionsToTxn ---- */

static void add_partitions_checks_and_starts(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    assert_int_equal(add(f, "tx", T0, 1, 0, "t", 0, 0), KC_ERR_INVALID_PRODUCER_ID_MAPPING);
    assert_int_equal(add(f, "", T0, 1, 0, "t", 0, 0), KC_ERR_INVALID_REQUEST);
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    /* No partition yet: nothing to verify (and no array to search). */
    kc_txn_partition_t none = {"t", 0};
    assert_int_equal(kc_txn_verify_partition(f->t, kc_str("tx"), pid, epoch, &none),
                     KC_ERR_TRANSACTION_ABORTABLE);
    assert_int_equal(add(f, "tx", T0, pid + 1, epoch, "t", 0, 0),
                     KC_ERR_INVALID_PRODUCER_ID_MAPPING);
    assert_int_equal(add(f, "tx", T0, pid, (int16_t)(epoch + 1), "t", 0, 0),
                     KC_ERR_PRODUCER_FENCED);
    assert_int_equal(add(f, "tx", T0 + 7, pid, epoch, "t", 1, 0), KC_ERR_NONE);
    const kc_txn_meta_t *m = find(f, "tx");
    assert_int_equal(m->state, KC_TXN_ONGOING);
    assert_int_equal(m->start_ms, T0 + 7);
    size_t records = f->res.nrecords;
    /* Already in the transaction: nothing written. */
    assert_int_equal(add(f, "tx", T0 + 8, pid, epoch, "t", 1, 0), KC_ERR_NONE);
    assert_int_equal(f->res.nrecords, records);
    assert_int_equal(add(f, "tx", T0 + 9, pid, epoch, "a", 3, 0), KC_ERR_NONE);
    m = find(f, "tx");
    assert_int_equal(m->npartitions, 2);
    assert_string_equal(m->partitions[0].topic, "a");
    assert_int_equal(m->start_ms, T0 + 7);
    assert_int_equal(m->last_update_ms, T0 + 9);
    kc_txn_partition_t in = {"a", 3}, out = {"a", 4};
    assert_int_equal(kc_txn_verify_partition(f->t, kc_str("tx"), pid, epoch, &in), KC_ERR_NONE);
    assert_int_equal(kc_txn_verify_partition(f->t, kc_str("tx"), pid, epoch, &out),
                     KC_ERR_TRANSACTION_ABORTABLE);
    assert_int_equal(kc_txn_verify_partition(f->t, kc_str("tx"), pid, (int16_t)(epoch + 1), &in),
                     KC_ERR_PRODUCER_FENCED);
}

/* ---- EndTxn ---- */

static void end_tv1_commit_and_retries(void **state)
{
    fx_t *f = *state;
    int64_t pid, opid;
    int16_t epoch, oepoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(end(f, "tx", T0, pid, epoch, true, 0, &opid, &oepoch),
                     KC_ERR_INVALID_TXN_STATE);
    assert_int_equal(end(f, "nope", T0, pid, epoch, true, 0, &opid, &oepoch),
                     KC_ERR_INVALID_PRODUCER_ID_MAPPING);
    assert_int_equal(add(f, "tx", T0, pid, epoch, "t", 0, 0), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0, pid, epoch, "t", 1, 0), KC_ERR_NONE);
    assert_int_equal(end(f, "tx", T0 + 3, pid, (int16_t)(epoch + 1), true, 0, &opid, &oepoch),
                     KC_ERR_PRODUCER_FENCED);
    size_t before = f->res.nrecords;
    assert_int_equal(end(f, "tx", T0 + 3, pid, epoch, true, 0, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(opid, -1);
    assert_int_equal(oepoch, -1);
    /* PrepareCommit, the markers, CompleteCommit. */
    assert_int_equal(f->res.nrecords, before + 2);
    assert_int_equal(f->nmarkers, 1);
    assert_true(f->markers[0].commit);
    assert_int_equal(f->markers[0].nparts, 2);
    assert_int_equal(f->markers[0].epoch, epoch);
    const kc_txn_meta_t *m = find(f, "tx");
    assert_int_equal(m->state, KC_TXN_COMPLETE_COMMIT);
    assert_int_equal(m->npartitions, 0);
    assert_int_equal(m->producer_epoch, epoch);
    /* A retry of the commit succeeds without writing; an abort does not. */
    before = f->res.nrecords;
    assert_int_equal(end(f, "tx", T0 + 4, pid, epoch, true, 0, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(end(f, "tx", T0 + 4, pid, epoch, false, 0, &opid, &oepoch),
                     KC_ERR_INVALID_TXN_STATE);
    assert_int_equal(f->res.nrecords, before);
    /* The next transaction starts from CompleteCommit. */
    assert_int_equal(add(f, "tx", T0 + 5, pid, epoch, "t", 2, 0), KC_ERR_NONE);
    assert_int_equal(find(f, "tx")->start_ms, T0 + 5);
    assert_int_equal(end(f, "tx", T0 + 6, pid, epoch, false, 0, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(find(f, "tx")->state, KC_TXN_COMPLETE_ABORT);
    assert_false(f->markers[1].commit);
}

static void end_tv2_bumps_the_epoch(void **state)
{
    fx_t *f = *state;
    int64_t pid, opid;
    int16_t epoch, oepoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0, pid, epoch, "t", 0, 2), KC_ERR_NONE);
    assert_int_equal(end(f, "tx", T0 + 1, pid, epoch, true, 2, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(opid, pid);
    assert_int_equal(oepoch, epoch + 1);
    /* The markers carry the bumped epoch, which fences the old one. */
    assert_int_equal(f->markers[0].epoch, epoch + 1);
    const kc_txn_meta_t *m = find(f, "tx");
    assert_int_equal(m->state, KC_TXN_COMPLETE_COMMIT);
    assert_int_equal(m->last_producer_epoch, epoch);
    assert_int_equal(m->client_transaction_version, 2);
    /* A retry with the epoch before the bump: the current pid and epoch. */
    size_t before = f->res.nrecords;
    assert_int_equal(end(f, "tx", T0 + 2, pid, epoch, true, 2, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(oepoch, epoch + 1);
    assert_int_equal(end(f, "tx", T0 + 2, pid, epoch, false, 2, &opid, &oepoch),
                     KC_ERR_INVALID_TXN_STATE);
    assert_int_equal(f->res.nrecords, before);
    /* A commit with the current epoch and no transaction. */
    assert_int_equal(end(f, "tx", T0 + 2, pid, (int16_t)(epoch + 1), true, 2, &opid, &oepoch),
                     KC_ERR_INVALID_TXN_STATE);
    /* An abort with no transaction bumps the epoch and writes no marker. */
    assert_int_equal(end(f, "tx", T0 + 3, pid, (int16_t)(epoch + 1), false, 2, &opid, &oepoch),
                     KC_ERR_NONE);
    assert_int_equal(oepoch, epoch + 2);
    assert_int_equal(f->nmarkers, 1);
    assert_int_equal(find(f, "tx")->state, KC_TXN_COMPLETE_ABORT);
    assert_int_equal(end(f, "tx", T0 + 4, pid, epoch, false, 2, &opid, &oepoch),
                     KC_ERR_PRODUCER_FENCED);
}

static void end_tv2_overflow_moves_to_the_next_producer_id(void **state)
{
    fx_t *f = *state;
    int64_t pid, opid;
    int16_t epoch, oepoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    for (int i = 0; i < 32766; i++)
        assert_int_equal(init_pid(f, "tx", T0, pid, epoch, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(epoch, 32766);
    assert_int_equal(add(f, "tx", T0, pid, epoch, "t", 0, 2), KC_ERR_NONE);
    assert_int_equal(end(f, "tx", T0 + 1, pid, epoch, true, 2, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(opid, 1001);
    assert_int_equal(oepoch, 0);
    assert_int_equal(f->markers[0].pid, pid);
    assert_int_equal(f->markers[0].epoch, 32767);
    const kc_txn_meta_t *m = find(f, "tx");
    assert_int_equal(m->prev_producer_id, pid);
    assert_int_equal(m->next_producer_id, -1);
    /* The retry with the old pid at the exhausted epoch is recognised. */
    assert_int_equal(end(f, "tx", T0 + 2, pid, 32766, true, 2, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(opid, 1001);
    assert_int_equal(oepoch, 0);
}

/* ---- timers and load ---- */

static void timed_out_transaction_is_aborted_and_fenced(void **state)
{
    fx_t *f = *state;
    int64_t pid, opid;
    int16_t epoch, oepoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0 + 100, pid, epoch, "t", 0, 2), KC_ERR_NONE);
    assert_int_equal(kc_txn_next_deadline(f->t), T0 + f->cfg.abort_interval_ms);
    /* A check at start + timeout itself: not timed out yet. */
    kc_txn_tick(f->t, T0 + 100 + 60000, &f->res);
    assert_int_equal(find(f, "tx")->state, KC_TXN_ONGOING);
    assert_int_equal(kc_txn_next_deadline(f->t), T0 + 100 + 60000 + f->cfg.abort_interval_ms);
    kc_txn_tick(f->t, kc_txn_next_deadline(f->t), &f->res);
    const kc_txn_meta_t *m = find(f, "tx");
    assert_int_equal(m->state, KC_TXN_COMPLETE_ABORT);
    assert_int_equal(m->producer_epoch, epoch + 1);
    assert_int_equal(f->nmarkers, 1);
    assert_false(f->markers[0].commit);
    assert_int_equal(f->markers[0].epoch, epoch + 1);
    /* The producer is fenced; its EndTxn with the epoch before the bump
     * counts as a retry, which a commit cannot be after an abort. */
    assert_int_equal(add(f, "tx", T0 + 80000, pid, epoch, "t", 0, 2), KC_ERR_PRODUCER_FENCED);
    assert_int_equal(end(f, "tx", T0 + 80000, pid, epoch, true, 2, &opid, &oepoch),
                     KC_ERR_INVALID_TXN_STATE);
}

static void idle_ids_expire(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    f->cfg.id_expiration_ms = 5000000;
    kc_txn_free(f->t);
    f->t = new_coord(f);
    kc_txn_loaded(f->t, T0, &f->res);
    assert_int_equal(init_pid(f, "idle", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(init_pid(f, "busy", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(add(f, "busy", T0, pid, epoch, "t", 0, 0), KC_ERR_NONE);
    /* The first expiry pass, an hour in: nothing has been idle that long. */
    kc_txn_tick(f->t, T0 + 3600000, &f->res);
    assert_non_null(find(f, "idle"));
    kc_txn_tick(f->t, T0 + 2 * 3600000, &f->res);
    assert_null(find(f, "idle"));
    assert_true(f->res.records[f->res.nrecords - 1].tombstone);
    /* An Ongoing transaction does not expire (its timeout aborted it, and
     * the abort is a fresh update). */
    assert_non_null(find(f, "busy"));
}

/* ---- Kafka's order of ids ---- */

/*
 * 60 ids of __transaction_state partition 7 (the table of that partition
 * resizes from 16 bins to 32, 64 and 128) and 20 others, created in this
 * order, then every ninth expired; order_kafka is the order in which Java
 * 17's ConcurrentHashMap, one per partition as TransactionStateManager
 * keeps them, hands them out partition by partition after the same puts
 * and removals (what ListTransactions answers on Kafka 4.4).
 */
static const char *const order_ids[] = {
    "txn-20", "txn-57", "txn-134", "txn-215", "txn-260", "txn-297", "txn-341", "txn-378",
    "txn-422", "txn-459", "txn-503", "txn-585", "txn-666", "txn-710", "txn-747", "txn-792",
    "txn-828", "txn-873", "txn-909", "txn-954", "txn-1030", "txn-1067", "txn-1111", "txn-1148",
    "txn-1193", "txn-1229", "txn-1274", "txn-1355", "txn-1436", "txn-1481", "txn-1517", "txn-1562",
    "txn-1599", "txn-1643", "txn-1724", "txn-1805", "txn-1850", "txn-1887", "txn-1931", "txn-1968",
    "txn-2002", "txn-2039", "txn-2084", "txn-2165", "txn-2246", "txn-2291", "txn-2327", "txn-2372",
    "txn-2408", "txn-2453", "txn-2534", "txn-2615", "txn-2660", "txn-2697", "txn-2741", "txn-2778",
    "txn-2822", "txn-2859", "txn-2903", "txn-2985", "other-0", "other-1", "other-2", "other-3",
    "other-4", "other-5", "other-6", "other-7", "other-8", "other-9", "other-10", "other-11",
    "other-12", "other-13", "other-14", "other-15", "other-16", "other-17", "other-18", "other-19",
};
static const char *const order_removed[] = {
    "txn-20", "txn-459", "txn-909", "txn-1355", "txn-1850", "txn-2291", "txn-2741", "other-3",
    "other-12",
};
static const char *const order_kafka[] = {
    "txn-1030", "txn-1193", "txn-2084", "txn-710", "txn-873", "txn-954", "txn-1229", "txn-792",
    "txn-1067", "txn-1148", "txn-2039", "txn-828", "txn-666", "txn-422", "txn-747", "txn-503",
    "txn-260", "txn-1931", "txn-2822", "txn-585", "txn-341", "txn-2903", "txn-2660", "txn-2985",
    "txn-215", "txn-378", "txn-1724", "txn-2615", "txn-1887", "txn-2778", "txn-134", "txn-1805",
    "txn-297", "txn-1968", "txn-2859", "txn-1562", "txn-2453", "txn-57", "txn-1643", "txn-2534",
    "txn-2697", "txn-1481", "txn-2372", "txn-1436", "txn-2327", "txn-1517", "txn-2408", "txn-1111",
    "txn-2002", "txn-1274", "txn-2165", "txn-1599", "txn-2246", "other-9", "other-8", "other-7",
    "other-19", "other-6", "other-18", "other-5", "other-17", "other-4", "other-16", "other-15",
    "other-2", "other-14", "other-1", "other-0", "other-13", "other-11", "other-10",
};

typedef struct {
    const char *ids[128];
    size_t n;
} seen_t;

static void seen_one(void *ctx, const kc_txn_meta_t *m)
{
    seen_t *s = ctx;
    assert_true(s->n < 128);
    s->ids[s->n++] = m->transactional_id;
}

static void assert_order(const kc_txn_coord_t *t, const char *const *expected, size_t n)
{
    seen_t seen = {{0}, 0};
    kc_txn_foreach(t, seen_one, &seen);
    assert_int_equal(seen.n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(seen.ids[i], expected[i]);
}

static void assert_kafka_order(const kc_txn_coord_t *t)
{
    assert_order(t, order_kafka, sizeof(order_kafka) / sizeof(order_kafka[0]));
}

static bool is_removed(const char *id)
{
    for (size_t i = 0; i < sizeof(order_removed) / sizeof(order_removed[0]); i++)
        if (strcmp(order_removed[i], id) == 0)
            return true;
    return false;
}

static void ids_in_kafkas_order(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    f->cfg.id_expiration_ms = 5000000;
    kc_txn_free(f->t);
    f->t = new_coord(f);
    kc_txn_loaded(f->t, T0, &f->res);
    size_t n = sizeof(order_ids) / sizeof(order_ids[0]);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(init_pid(f, order_ids[i], T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    /* The kept ids are used again; the others expire at the second pass. */
    for (size_t i = 0; i < n; i++)
        if (!is_removed(order_ids[i]))
            assert_int_equal(init_pid(f, order_ids[i], T0 + 3000000, -1, -1, &pid, &epoch),
                             KC_ERR_NONE);
    kc_txn_tick(f->t, T0 + 3600000, &f->res);
    kc_txn_tick(f->t, T0 + 2 * 3600000, &f->res);
    assert_kafka_order(f->t);
    /* A load of the same records, in order, builds the same tables. */
    kc_txn_coord_t *r = replay_all(f);
    assert_kafka_order(r);
    kc_txn_free(r);
}

/*
 * 11 ids of partition 0 that share bin 5 of a 16-bin table: the put of the
 * ninth finds 8 in its bin and grows the table (tryPresize), which splits
 * the bin. bin_kafka: Java 17's ConcurrentHashMap after the same puts.
 */
static const char *const bin_ids[] = {
    "bin-1063", "bin-1838", "bin-4637", "bin-5528", "bin-5979", "bin-6095",
    "bin-9056", "bin-9100", "bin-9551", "bin-11808", "bin-12375",
};
static const char *const bin_kafka[] = {
    "bin-4637", "bin-5528", "bin-9056", "bin-6095", "bin-1838", "bin-1063",
    "bin-12375", "bin-9551", "bin-11808", "bin-5979", "bin-9100",
};

static void ids_of_one_bin_in_kafkas_order(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    for (size_t i = 0; i < sizeof(bin_ids) / sizeof(bin_ids[0]); i++)
        assert_int_equal(init_pid(f, bin_ids[i], T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_order(f->t, bin_kafka, sizeof(bin_kafka) / sizeof(bin_kafka[0]));
}

static void load_completes_a_prepared_transaction(void **state)
{
    fx_t *f = *state;
    int64_t pid;
    int16_t epoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0, pid, epoch, "t", 0, 0), KC_ERR_NONE);
    /* A PrepareCommit written by hand, as a store might hold it last. */
    kc_transaction_log_value_t v;
    kc_transaction_log_value_init(&v);
    v.producer_id = pid;
    v.producer_epoch = epoch;
    v.transaction_timeout_ms = 60000;
    v.transaction_status = KC_TXN_PREPARE_COMMIT;
    int32_t ids[] = {0};
    kc_transaction_log_value_partitions_schema_t ps = {kc_str("t"), {ids, 1}};
    v.transaction_partitions.items = &ps;
    v.transaction_partitions.count = 1;
    v.transaction_last_update_timestamp_ms = T0;
    v.transaction_start_timestamp_ms = T0;
    kc_buf_t k, val;
    kc_buf_init(&k);
    kc_buf_init(&val);
    kc_write_int16(&k, KC_TXN_RECORD_TYPE);
    kc_transaction_log_key_t key = {.transactional_id = kc_str("tx")};
    assert_int_equal(kc_transaction_log_key_encode(&k, 0, &key), 0);
    kc_write_int16(&val, 1);
    assert_int_equal(kc_transaction_log_value_encode(&val, 1, &v), 0);
    kc_result_add_record(&f->res, &k, &val);
    kc_txn_coord_t *r = new_coord(f);
    for (size_t i = 0; i < f->res.nrecords; i++)
        assert_int_equal(kc_txn_replay(r, f->res.records[i].key.data, f->res.records[i].key.len,
                                       f->res.records[i].value.data, f->res.records[i].value.len),
                         0);
    assert_int_equal(kc_txn_find(r, kc_str("tx"))->state, KC_TXN_PREPARE_COMMIT);
    kc_txn_loaded(r, T0 + 50, &f->res);
    assert_int_equal(f->nmarkers, 1);
    assert_true(f->markers[0].commit);
    assert_int_equal(kc_txn_find(r, kc_str("tx"))->state, KC_TXN_COMPLETE_COMMIT);
    /* The records of both coordinators are in f->res: the test's own
     * coordinator takes the completion too, for the replay check. */
    kc_txn_free(f->t);
    f->t = r;
}

/* The value of a record of tx in state status, encoded at version. */
static void encode_value(kc_buf_t *val, int16_t version, int8_t status)
{
    kc_transaction_log_value_t v;
    kc_transaction_log_value_init(&v);
    v.producer_id = 1;
    v.transaction_timeout_ms = 100;
    v.transaction_status = status;
    v.transaction_partitions.count = -1;
    kc_write_int16(val, version);
    assert_int_equal(kc_transaction_log_value_encode(val, version, &v), 0);
}

static void replay_rejects_bad_records(void **state)
{
    fx_t *f = *state;
    static const uint8_t key_v1[] = {0, 1, 0, 2, 'a', 'b'};
    static const uint8_t key[] = {0, KC_TXN_RECORD_TYPE, 0, 2, 'a', 'b'};
    static const uint8_t version_9[] = {0, 9, 1, 2, 3};
    /* Another key type or value version: ignored, as Kafka's loader does. */
    assert_int_equal(kc_txn_replay(f->t, key_v1, sizeof(key_v1), version_9, sizeof(version_9)), 0);
    assert_int_equal(kc_txn_replay(f->t, key, sizeof(key), version_9, sizeof(version_9)), 0);
    assert_int_equal(kc_txn_replay(f->t, key, 3, NULL, 0), KC_EINVAL);
    kc_buf_t val;
    kc_buf_init(&val);
    encode_value(&val, 0, 9);
    assert_int_equal(kc_txn_replay(f->t, key, sizeof(key), val.data, val.len), KC_EINVAL);
    kc_buf_reset(&val);
    encode_value(&val, 1, KC_TXN_ONGOING);
    assert_int_equal(kc_txn_replay(f->t, key, sizeof(key), val.data, val.len - 3), KC_EINVAL);
    assert_null(find(f, "ab"));
    assert_int_equal(kc_txn_replay(f->t, key, sizeof(key), val.data, val.len), 0);
    assert_int_equal(find(f, "ab")->state, KC_TXN_ONGOING);
    /* The test's records do not hold it: a tombstone for the replay check. */
    assert_int_equal(kc_txn_replay(f->t, key, sizeof(key), NULL, 0), 0);
    assert_null(find(f, "ab"));
    kc_buf_deinit(&val);
}

/* ---- events ---- */

typedef struct {
    char line[16][96];
    size_t n;
} events_t;

static void on_event(void *arg, const kc_coord_event_t *ev)
{
    events_t *e = arg;
    assert_true(e->n < 16);
    assert_null(ev->group_id);
    snprintf(e->line[e->n++], sizeof(e->line[0]), "%s %s %lld/%d %s %lld",
             kc_coord_event_name(ev->type), ev->transactional_id, (long long)ev->producer_id,
             ev->producer_epoch, ev->reason ? ev->reason : "-", (long long)ev->duration_ms);
}

/* The event sink sees each step of a transaction with its transactional id,
 * the producer after the change and why an abort was; replay tells it nothing. */
static void events_of_transactions(void **state)
{
    fx_t *f = *state;
    events_t ev = {0};
    kc_txn_set_event_sink(f->t, on_event, &ev);
    int64_t pid, opid;
    int16_t epoch, oepoch;
    assert_int_equal(init_pid(f, "tx", T0, -1, -1, &pid, &epoch), KC_ERR_NONE);
    assert_int_equal(ev.n, 0);
    assert_int_equal(add(f, "tx", T0 + 10, pid, epoch, "t", 0, 2), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0 + 11, pid, epoch, "t", 1, 2), KC_ERR_NONE); /* no event */
    assert_int_equal(end(f, "tx", T0 + 30, pid, epoch, true, 2, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0 + 40, opid, oepoch, "t", 0, 2), KC_ERR_NONE);
    assert_int_equal(end(f, "tx", T0 + 45, opid, oepoch, false, 2, &opid, &oepoch), KC_ERR_NONE);
    assert_int_equal(add(f, "tx", T0 + 50, opid, oepoch, "t", 0, 2), KC_ERR_NONE);
    int64_t deadline = 0;
    while (find(f, "tx")->state == KC_TXN_ONGOING) {
        deadline = kc_txn_next_deadline(f->t);
        assert_true(deadline <= T0 + 50 + 60000 + f->cfg.abort_interval_ms);
        kc_txn_tick(f->t, deadline, &f->res);
    }
    assert_int_equal(add(f, "tx", deadline + 1, opid, oepoch + 1, "t", 0, 2), KC_ERR_NONE);
    int64_t npid;
    int16_t nepoch;
    assert_int_equal(init_pid(f, "tx", deadline + 2, -1, -1, &npid, &nepoch),
                     KC_ERR_CONCURRENT_TRANSACTIONS);
    char want[16][96];
    size_t n = 0;
#define WANT(...) snprintf(want[n++], sizeof(want[0]), __VA_ARGS__)
    WANT("transaction_begun tx %lld/%d - 0", (long long)pid, epoch);
    WANT("transaction_prepare_commit tx %lld/%d - 0", (long long)pid, epoch + 1);
    WANT("transaction_committed tx %lld/%d - 20", (long long)pid, epoch + 1);
    WANT("transaction_begun tx %lld/%d - 0", (long long)pid, epoch + 1);
    WANT("transaction_prepare_abort tx %lld/%d client 0", (long long)pid, epoch + 2);
    WANT("transaction_aborted tx %lld/%d client 5", (long long)pid, epoch + 2);
    WANT("transaction_begun tx %lld/%d - 0", (long long)pid, epoch + 2);
    WANT("transaction_timed_out tx %lld/%d - 0", (long long)pid, epoch + 2);
    WANT("transaction_prepare_abort tx %lld/%d timed_out 0", (long long)pid, epoch + 3);
    WANT("transaction_aborted tx %lld/%d timed_out %lld", (long long)pid, epoch + 3,
         (long long)(deadline - (T0 + 50)));
    WANT("transaction_begun tx %lld/%d - 0", (long long)pid, epoch + 3);
    WANT("producer_fenced tx %lld/%d - 0", (long long)pid, epoch + 3);
    WANT("transaction_prepare_abort tx %lld/%d producer_fenced 0", (long long)pid, epoch + 4);
    WANT("transaction_aborted tx %lld/%d producer_fenced 1", (long long)pid, epoch + 4);
#undef WANT
    assert_int_equal(ev.n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(ev.line[i], want[i]);
    /* Replaying the records into a coordinator with a sink tells it nothing. */
    events_t none = {0};
    kc_txn_coord_t *r = new_coord(f);
    kc_txn_set_event_sink(r, on_event, &none);
    for (size_t i = 0; i < f->res.nrecords; i++) {
        const kc_record_t *rec = &f->res.records[i];
        kc_txn_replay(r, rec->key.data, rec->key.len, rec->tombstone ? NULL : rec->value.data,
                      rec->value.len);
    }
    assert_int_equal(none.n, 0);
    kc_txn_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(init_new_id_then_bumps, setup, teardown),
        cmocka_unit_test_setup_teardown(init_rejects_bad_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(init_recovery_with_expected_epoch, setup, teardown),
        cmocka_unit_test_setup_teardown(init_fences_an_ongoing_transaction, setup, teardown),
        cmocka_unit_test_setup_teardown(init_rotates_an_exhausted_epoch, setup, teardown),
        cmocka_unit_test_setup_teardown(add_partitions_checks_and_starts, setup, teardown),
        cmocka_unit_test_setup_teardown(end_tv1_commit_and_retries, setup, teardown),
        cmocka_unit_test_setup_teardown(end_tv2_bumps_the_epoch, setup, teardown),
        cmocka_unit_test_setup_teardown(end_tv2_overflow_moves_to_the_next_producer_id, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(timed_out_transaction_is_aborted_and_fenced, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(idle_ids_expire, setup, teardown),
        cmocka_unit_test_setup_teardown(ids_in_kafkas_order, setup, teardown),
        cmocka_unit_test_setup_teardown(ids_of_one_bin_in_kafkas_order, setup, teardown),
        cmocka_unit_test_setup_teardown(load_completes_a_prepared_transaction, setup, teardown),
        cmocka_unit_test_setup_teardown(replay_rejects_bad_records, setup, teardown),
        cmocka_unit_test_setup_teardown(events_of_transactions, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
