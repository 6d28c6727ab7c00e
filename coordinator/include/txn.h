/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator: Kafka's TransactionCoordinator and
 * TransactionStateManager for one broker that leads every partition.
 *
 * Pure code, like the group coordinator: no sockets, no libevent, no LMDB,
 * no clock reads (time is an argument). Every change of a transactional
 * id's state is a __transaction_state record appended to a kc_result_t and
 * applied to memory by the same replay a load runs, so live state and
 * replay cannot drift apart. The value is Kafka's (int16 version +
 * TransactionLogValue); the key is TransactionLogKey after the int16
 * KC_TXN_RECORD_TYPE, which stands in the place of __transaction_state's
 * key version 0 so that the records share kcoord's one record log with the
 * group coordinator's.
 *
 * Where Kafka writes PrepareCommit/PrepareAbort, sends WriteTxnMarkers to
 * the partition leaders and writes CompleteCommit/CompleteAbort when they
 * answered, this coordinator appends the Prepare record, has the caller
 * write the markers (kc_txn_env_t.write_markers, into the same batch of
 * records) and appends the Complete record at once: the three commit
 * together or not at all. A load that finds a Prepare record last (a store
 * written otherwise) completes it as Kafka's loader does.
 *
 * Error codes are Kafka's (KC_ERR_*), before the per-version mapping the
 * API layer does (PRODUCER_FENCED answered INVALID_PRODUCER_EPOCH to old
 * versions).
 */
#ifndef KC_TXN_H
#define KC_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord.h"

/* The first int16 of a transaction state record's key: kcoord's record
 * type 101, a number no __consumer_offsets record type has. */
#define KC_TXN_RECORD_TYPE 101

/* Whether a record key is a transaction state record's. */
bool kc_txn_is_record(const uint8_t *key, size_t key_len);

/* Transaction states, numbered as TransactionStatus in the log. */
typedef enum {
    KC_TXN_EMPTY = 0,
    KC_TXN_ONGOING = 1,
    KC_TXN_PREPARE_COMMIT = 2,
    KC_TXN_PREPARE_ABORT = 3,
    KC_TXN_COMPLETE_COMMIT = 4,
    KC_TXN_COMPLETE_ABORT = 5,
    KC_TXN_DEAD = 6,
    KC_TXN_PREPARE_EPOCH_FENCE = 7,
} kc_txn_state_t;

/* Kafka's name of a state (DescribeTransactions, ListTransactions); "Unknown" out of range. */
const char *kc_txn_state_name(kc_txn_state_t s);
/* The state of a name, or -1. */
int kc_txn_state_from_name(const char *name, size_t len);

/* Coordinator settings, Kafka's names and defaults. */
typedef struct {
    int32_t max_timeout_ms;            /* transaction.max.timeout.ms, 900000 */
    int64_t id_expiration_ms;          /* transactional.id.expiration.ms, 604800000 */
    int32_t abort_interval_ms;         /* transaction.abort.timed.out.transaction.cleanup.interval.ms, 10000 */
    int32_t remove_interval_ms;        /* transaction.remove.expired.transaction.cleanup.interval.ms, 3600000 */
    int16_t transaction_version;       /* the finalized transaction.version feature level, 2 */
    /* transaction.state.log.num.partitions, 50: the __transaction_state
     * partitions of the Kafka coordinator whose order ListTransactions
     * follows (an id belongs to abs(hash(id)) % n). */
    int32_t num_partitions;
} kc_txn_config_t;

/* Kafka's defaults. */
void kc_txn_config_defaults(kc_txn_config_t *cfg);

/* A partition of a transaction. */
typedef struct {
    const char *topic;
    int32_t partition;
} kc_txn_partition_t;

/* What the coordinator asks of the broker around it. */
typedef struct {
    /* A new producer id (shared with idempotent producers): KC_ERR_NONE with
     * *out, or the error to answer (COORDINATOR_NOT_AVAILABLE). */
    int16_t (*next_producer_id)(void *ctx, int64_t *out);
    /* Writes a COMMIT (commit) or ABORT control batch of producer_id and
     * producer_epoch into each partition, into the same batch as the records
     * of res. 0, or -1: then the coordinator marks res failed (nothing of
     * the batch may commit). transaction_version: the transaction's. */
    int (*write_markers)(void *ctx, int64_t producer_id, int16_t producer_epoch, bool commit,
                         int16_t transaction_version, const kc_txn_partition_t *parts,
                         size_t nparts, kc_result_t *res);
    void *ctx;
} kc_txn_env_t;

/* One transactional id as the coordinator holds it (read-only views). */
typedef struct {
    const char *transactional_id;
    int64_t producer_id;
    int64_t prev_producer_id;
    int64_t next_producer_id;
    int16_t producer_epoch;
    int16_t last_producer_epoch;     /* memory only, -1 after a load */
    int32_t timeout_ms;
    kc_txn_state_t state;
    const kc_txn_partition_t *partitions; /* sorted by topic, partition */
    size_t npartitions;
    int64_t start_ms;                /* -1 outside a transaction */
    int64_t last_update_ms;
    int16_t client_transaction_version;
} kc_txn_meta_t;

typedef struct kc_txn_coord kc_txn_coord_t;

/* A coordinator with nothing loaded; env is copied. Owned by the caller (kc_txn_free). */
kc_txn_coord_t *kc_txn_new(const kc_txn_config_t *cfg, const kc_txn_env_t *env);
void kc_txn_free(kc_txn_coord_t *t);
/* Forgets every id and returns to loading (after a failed commit, before a fresh replay). */
void kc_txn_unload(kc_txn_coord_t *t);

/*
 * Applies one stored record (key and value bytes as kc_result_t holds them;
 * value NULL = tombstone). 0; KC_EINVAL for bytes that do not decode or a
 * state that does not exist (nothing applied, the caller logs and goes on).
 * A key of another type, or a value version Kafka does not know, is
 * ignored, as Kafka's loader ignores them.
 */
int kc_txn_replay(kc_txn_coord_t *t, const uint8_t *key, size_t key_len, const uint8_t *value,
                  size_t value_len);
/* Ends loading: completes the transactions a Prepare record left open
 * (markers, then the Complete record, into res) and starts the timers. */
void kc_txn_loaded(kc_txn_coord_t *t, int64_t now_ms, kc_result_t *res);

/*
 * InitProducerId with a transactional id (TC.handleInitProducerId):
 * timeout_ms the client's transaction timeout; expected_pid/expected_epoch
 * v3+'s ProducerId/ProducerEpoch (-1, -1 = none). KC_ERR_NONE with *pid and
 * *epoch (records in res), or INVALID_REQUEST (empty id),
 * INVALID_TRANSACTION_TIMEOUT, CONCURRENT_TRANSACTIONS (a transaction is
 * being completed; for an Ongoing one after aborting it and fencing its
 * producer), PRODUCER_FENCED, or the producer id allocator's error.
 */
int16_t kc_txn_init_producer_id(kc_txn_coord_t *t, int64_t now_ms, kc_str_t transactional_id,
                                int32_t timeout_ms, int64_t expected_pid, int16_t expected_epoch,
                                kc_result_t *res, int64_t *pid, int16_t *epoch);

/*
 * AddPartitionsToTxn for one transaction (TC.handleAddPartitionsToTransaction;
 * also AddOffsetsToTxn with the group's offsets partition, and the implicit
 * add of transaction version 2's Produce and TxnOffsetCommit).
 * transaction_version: the client's (0 for AddPartitionsToTxn v0-3 and
 * AddOffsetsToTxn, 2 otherwise). KC_ERR_NONE (records in res when the
 * transaction changed) or INVALID_REQUEST, INVALID_PRODUCER_ID_MAPPING,
 * PRODUCER_FENCED, CONCURRENT_TRANSACTIONS.
 */
int16_t kc_txn_add_partitions(kc_txn_coord_t *t, int64_t now_ms, kc_str_t transactional_id,
                              int64_t pid, int16_t epoch, const kc_txn_partition_t *parts,
                              size_t nparts, int16_t transaction_version, kc_result_t *res);

/*
 * Whether a partition is in the producer's transaction
 * (TC.handleVerifyPartitionsInTransaction): KC_ERR_NONE, TRANSACTION_ABORTABLE
 * when it is not, or INVALID_REQUEST, INVALID_PRODUCER_ID_MAPPING,
 * PRODUCER_FENCED, CONCURRENT_TRANSACTIONS. Writes nothing.
 */
int16_t kc_txn_verify_partition(const kc_txn_coord_t *t, kc_str_t transactional_id, int64_t pid,
                                int16_t epoch, const kc_txn_partition_t *part);

/*
 * EndTxn (TC.endTransaction): commit or abort; transaction_version the
 * client's (2 for EndTxn v5+, else 0). KC_ERR_NONE with the producer id and
 * epoch EndTxn v5 answers in *out_pid and *out_epoch (-1, -1 otherwise; records
 * and markers in res), or INVALID_REQUEST, INVALID_PRODUCER_ID_MAPPING,
 * PRODUCER_FENCED, CONCURRENT_TRANSACTIONS, INVALID_TXN_STATE.
 */
int16_t kc_txn_end(kc_txn_coord_t *t, int64_t now_ms, kc_str_t transactional_id, int64_t pid,
                   int16_t epoch, bool commit, int16_t transaction_version, kc_result_t *res,
                   int64_t *out_pid, int16_t *out_epoch);

/* The transactional id, or NULL (also for Dead). The view lives until the next call that changes t. */
const kc_txn_meta_t *kc_txn_find(const kc_txn_coord_t *t, kc_str_t transactional_id);
/*
 * Calls fn for every transactional id (Dead ones left out) in the order
 * Kafka's TransactionStateManager walks them: __transaction_state partition
 * by partition, then each partition's ConcurrentHashMap of ids (its bins in
 * index order, a bin's ids in list order, as puts, removals and resizes
 * leave them; a bin Kafka would turn into a tree, 9 ids of one partition in
 * one bin of a table of 64 or more, keeps list order). fn must not change t.
 */
void kc_txn_foreach(const kc_txn_coord_t *t, void (*fn)(void *ctx, const kc_txn_meta_t *m),
                    void *ctx);

/* Optional event sink (metrics, the admin event ring): fn is called
 * synchronously for each KC_COORD_EV_TXN_* change made by the calls above,
 * never by replay; the event is borrowed for the call and fn must not call
 * back into t. fn NULL removes it. */
void kc_txn_set_event_sink(kc_txn_coord_t *t, kc_coord_event_fn fn, void *arg);

/* Timers (the timed-out transactions' abort, the expiration of ids):
 * earliest deadline in ms (INT64_MAX before kc_txn_loaded); tick runs what is due. */
int64_t kc_txn_next_deadline(const kc_txn_coord_t *t);
void kc_txn_tick(kc_txn_coord_t *t, int64_t now_ms, kc_result_t *res);

#endif
