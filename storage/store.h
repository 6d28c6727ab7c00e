/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The LMDB environment of kcoord: the coordinator record log (the analogue of
 * __consumer_offsets) and the topic table. Sees only opaque bytes; knows no
 * group rule.
 *
 * Record log: DBI "log" maps a big-endian u64 position to (key, value); DBI
 * "index" maps a record key to its latest position. Appending a record for a
 * key deletes the older entry of that key in the same transaction; a
 * tombstone deletes both (compaction on write), so replay cost follows live
 * state. DBI "topics" maps a topic name to its stored description.
 *
 * Writes go to one write transaction opened lazily by the first write and
 * committed by kc_store_commit (one per event-loop iteration). Errors are
 * sticky: after a failed write, later writes do nothing and commit returns
 * the first error and aborts the transaction.
 *
 * Map growth: the map starts at map_size bytes and grows when it fills
 * (doubling, as far as lmdb.map.max.bytes and the free space of the file
 * system allow): ahead of need after a commit that leaves less than an
 * eighth free, and on MDB_MAP_FULL by writing the open transaction again in
 * a larger map, which the caller does not see. Only when the map cannot
 * grow does a write get KC_ENOSPC; the store then accepts only deletions
 * (tombstones, topic deletes), using a small reserve beyond the map, until
 * deletions have freed an eighth of it or it can grow again. Nothing
 * committed is lost.
 *
 * A record key longer than LMDB's key limit (511 bytes) is indexed by a
 * digest stand-in; the full key is kept in the log entry and checked.
 */
#ifndef KC_STORE_H
#define KC_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kc_common.h"

typedef struct kc_store kc_store_t;

/*
 * Opens (creating if needed) the environment in directory dir, with a map of
 * map_size bytes. Takes an exclusive lock file in dir: a second kcoord on
 * the same directory gets KC_EIO with a log line naming the directory.
 * Returns 0, KC_EIO; *out is owned by the caller (kc_store_close).
 */
int kc_store_open(kc_store_t **out, const char *dir, uint64_t map_size);
/*
 * Sets the most the map may grow to (lmdb.map.max.bytes; 0 = only the file
 * system's free space limits it) and the free space of the data directory's
 * file system under which a warning is logged (lmdb.free.space.warn.bytes;
 * 0 = none), checked now and at most once a second after commits.
 */
void kc_store_set_limits(kc_store_t *s, uint64_t map_max, uint64_t free_warn);

/* Sizes of the environment, in bytes unless named otherwise (GET /metrics, /v1/health). */
typedef struct {
    uint64_t map_size;   /* the map as it is now */
    uint64_t map_max;    /* lmdb.map.max.bytes, 0 = none */
    uint64_t high_water; /* pages up to the last one written (the data file's used length) */
    uint64_t used;       /* high_water less the pages on LMDB's free list */
    uint64_t free_pages; /* pages on the free list, reused by later writes */
    uint64_t page_size;
    uint64_t grows;      /* times the map grew since open */
    uint64_t disk_free;  /* free space of the file system (UINT64_MAX: unknown) */
    bool full;           /* only deletions accepted (the map cannot grow) */
} kc_store_stats_t;
/* Fills *out; reads LMDB's free list (a read transaction). */
void kc_store_stats(kc_store_t *s, kc_store_stats_t *out);

/* Aborts an open transaction and closes. NULL is accepted. */
void kc_store_close(kc_store_t *s);
/* Drops every write since the last commit and clears the sticky error. */
void kc_store_abort(kc_store_t *s);

/*
 * Appends a record (value NULL = tombstone) to the open transaction, opening
 * it when needed. Bytes are copied. Returns 0, KC_EINVAL (empty key; not
 * sticky), or the sticky KC_ENOSPC/KC_EIO of the transaction.
 */
int kc_store_append(kc_store_t *s, const void *key, size_t key_len, const void *value,
                    size_t value_len);
/* Puts (value non-NULL) or deletes (value NULL) a topic entry; errors as kc_store_append. */
int kc_store_topic_put(kc_store_t *s, const char *name, const void *value, size_t value_len);
/* True while a write transaction holds uncommitted writes (or a sticky error
 * for kc_store_commit to report). */
bool kc_store_pending(const kc_store_t *s);
/*
 * Commits the open transaction (no-op when none): atomic and visible to
 * later reads and, once this returns, to a restarted process even after a
 * SIGKILL (the pages are in the OS page cache), but not flushed to the disk:
 * an OS crash or power loss may undo the commits since the last
 * kc_store_sync (LMDB's MDB_NOSYNC, the database stays consistent). A
 * commit that finds the map full grows it and commits again once. Returns
 * 0, KC_ENOSPC (map full and unable to grow), or KC_EIO; on error every
 * write since the last commit is gone and the error is logged.
 */
int kc_store_commit(kc_store_t *s);
/*
 * Flushes every committed transaction to the disk (mdb_env_sync, an
 * fdatasync of the data file); kc_store_close does it too. The broker calls
 * it as Kafka's log.flush.* policy says. Returns 0 or KC_EIO (logged).
 */
int kc_store_sync(kc_store_t *s);
/*
 * True when the LMDB environment can no longer be used at all: a commit's
 * meta page could not be written (LMDB's MDB_PANIC, every later
 * transaction, reads too, fails until the environment is opened again by a
 * new process). Called after a failed commit.
 */
bool kc_store_failed(kc_store_t *s);
/* Number of successful kc_store_sync calls since open (for tests and metrics). */
uint64_t kc_store_sync_count(const kc_store_t *s);

/*
 * Calls fn for every live record in commit order; stops at a non-zero return
 * and returns it. key/value point into the map and are valid only during the
 * call: copy what you keep. A pending write transaction is visible to the
 * walk. fn runs on the calling thread; for a big log a second thread reads
 * the pages ahead and is joined before the return. Returns 0, fn's value,
 * or KC_EIO (corrupt entry, LMDB error).
 */
typedef int (*kc_store_record_fn)(void *ctx, const uint8_t *key, size_t key_len,
                                  const uint8_t *value, size_t value_len);
int kc_store_replay(kc_store_t *s, kc_store_record_fn fn, void *ctx);

/* Calls fn for every stored topic entry (key = name bytes). */
int kc_store_topics_foreach(kc_store_t *s, kc_store_record_fn fn, void *ctx);

/*
 * Generic named databases (the partition log keeps its batches and producer
 * state in its own). Keys are compared as bytes, so big-endian integers sort
 * numerically. Writes join the same write transaction as kc_store_append and
 * share its sticky error.
 */
typedef unsigned int kc_store_dbi_t;
/* Opens (creating) the database name; 0, KC_EINVAL (too many databases), KC_EIO. */
int kc_store_dbi_open(kc_store_t *s, const char *name, kc_store_dbi_t *out);
/* Puts key -> value (bytes copied). Errors as kc_store_append; key longer than LMDB allows: KC_EINVAL. */
int kc_store_put(kc_store_t *s, kc_store_dbi_t db, const void *key, size_t key_len,
                 const void *value, size_t value_len);
/*
 * Puts key -> value_len bytes (>= 1) that the caller writes at *out before
 * any other call on the store (LMDB's MDB_RESERVE: no intermediate copy).
 * Errors as kc_store_put; *out is NULL on error.
 */
int kc_store_put_reserve(kc_store_t *s, kc_store_dbi_t db, const void *key, size_t key_len,
                         size_t value_len, uint8_t **out);
/* Deletes key (absent is fine); errors as kc_store_append. */
int kc_store_del(kc_store_t *s, kc_store_dbi_t db, const void *key, size_t key_len);
/* Deletes every key that starts with prefix (prefix_len >= 1); errors as kc_store_append. */
int kc_store_del_prefix(kc_store_t *s, kc_store_dbi_t db, const void *prefix, size_t prefix_len);

/*
 * Walks the keys of db that start with the first prefix_len bytes of from,
 * in key order, beginning at from (from_len >= prefix_len) or, with floor,
 * at the greatest key <= from that has the prefix (when there is one).
 * Reads what is committed only (a fresh read transaction), never the open
 * write transaction. fn's pointers are valid during the call only; a
 * non-zero return stops the walk and is returned. 0, fn's value, KC_EIO.
 */
int kc_store_scan(kc_store_t *s, kc_store_dbi_t db, const void *from, size_t from_len,
                  size_t prefix_len, bool floor, kc_store_record_fn fn, void *ctx);

/* Number of live records, pending writes included (for logs and the benchmark). */
uint64_t kc_store_record_count(kc_store_t *s);

#endif
