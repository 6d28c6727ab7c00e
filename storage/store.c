/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The LMDB environment behind kc_store_t: the compacted record log, its key
 * index, the topic table and the directory lock. Sees only opaque bytes.
 *
 * Log entry layout (DBI "log"): key = big-endian u64 position, value =
 * big-endian u32 key length, the record key, the record value. Positions
 * grow by one per appended record; compaction removes entries but never
 * renumbers, so walking "log" in key order is walking commit order.
 *
 * Index entry (DBI "index"): key = the record key, value = big-endian u64
 * position. LMDB keys are limited (mdb_env_get_maxkeysize, 511 bytes by
 * default); a longer record key is indexed by a fixed-size stand-in of
 * exactly the maximum length (its first bytes, then the SHA-256 of the whole
 * key). Plain keys are always shorter than the maximum, so the two forms
 * never meet, and the full key kept in the log entry is compared before an
 * older entry is treated as the same key.
 *
 * Map full: LMDB needs free pages even to delete, so a map that filled up
 * completely could never be emptied again. When a transaction hits
 * MDB_MAP_FULL the store enters "full" mode: the map grows by a small
 * reserve (like a file system's reserved blocks) and only deletions
 * (tombstones, topic deletes) are accepted; appends get KC_ENOSPC. Once
 * deletions have freed an eighth of the configured size, normal writes
 * resume.
 */
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <lmdb.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "kc_log.h"

#define STORE_FORMAT_VERSION 1u
#define LOG_HDR 4u /* u32 key length in front of each log value */

struct kc_store {
    MDB_env *env;
    MDB_dbi dbi_log;
    MDB_dbi dbi_index;
    MDB_dbi dbi_topics;
    MDB_dbi dbi_meta;
    MDB_txn *txn;            /* open write transaction, or NULL */
    int err;                 /* sticky error of txn (0 or KC_E*) */
    uint64_t next_pos;       /* position of the next appended record */
    uint64_t committed_next; /* next_pos as of the last commit */
    size_t max_key;          /* mdb_env_get_maxkeysize */
    uint64_t map_size;       /* map size in bytes (lmdb.map.size.bytes, then as grown) */
    uint64_t map_max;        /* lmdb.map.max.bytes; 0 = only the file system limits growth */
    uint64_t grows;          /* times the map grew since open */
    uint64_t page_size;      /* LMDB's page size */
    kc_buf_t redo;           /* the writes of txn (see "the write transaction" below) */
    uint8_t *reserved;       /* value of the last put_reserve, not yet copied to redo */
    size_t reserved_len;
    size_t reserved_at;      /* where its bytes go in redo */
    uint64_t free_warn;      /* lmdb.free.space.warn.bytes; 0 = no warning */
    bool free_low;           /* the last check found less free space than free_warn */
    int64_t free_checked_s;  /* monotonic second of the last check */
    bool full;               /* only deletions accepted (see top of file) */
    uint64_t used_at_full;   /* used_bytes() when full mode began */
    bool hit_full;           /* the open txn saw MDB_MAP_FULL */
    uint64_t syncs;          /* successful kc_store_sync calls */
    bool opened;             /* mdb_env_open succeeded */
    int lock_fd;
    char *dir;
};

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static uint64_t get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Converts an LMDB return code to a KC_E* status, logging failures. */
static int lmdb_err(const kc_store_t *s, int rc, const char *what)
{
    if (rc == 0)
        return 0;
    if (rc == MDB_MAP_FULL) {
        kc_log_error("storage",
                     "%s: LMDB map full in %s (raise lmdb.map.max.bytes or free disk space)", what,
                     s && s->dir ? s->dir : "?");
        return KC_ENOSPC;
    }
    kc_log_error("storage", "%s: %s", what, mdb_strerror(rc));
    return KC_EIO;
}

/* mkdir -p with mode 0755; 0 or KC_EIO. */
static int make_dirs(const char *dir)
{
    char *p = kc_xstrdup(dir);
    int rc = 0;
    for (char *q = p + 1; ; q++) {
        if (*q == '/' || *q == '\0') {
            char c = *q;
            *q = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                kc_log_error("storage", "cannot create directory %s: %s", p, strerror(errno));
                rc = KC_EIO;
                break;
            }
            *q = c;
            if (c == '\0')
                break;
        }
    }
    free(p);
    return rc;
}

static int take_lock(kc_store_t *s)
{
    size_t n = strlen(s->dir) + sizeof("/kcoord.lock");
    char *path = kc_xmalloc(n);
    snprintf(path, n, "%s/kcoord.lock", s->dir);
    int rc = 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        kc_log_error("storage", "cannot open lock file %s: %s", path, strerror(errno));
        rc = KC_EIO;
        goto out;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = {0};
        ssize_t r = pread(fd, pid, sizeof(pid) - 1, 0);
        if (r > 0)
            pid[strcspn(pid, "\n")] = '\0';
        kc_log_error("storage",
                     "data directory %s is in use by another kcoord (pid %s); "
                     "each data directory serves one broker",
                     s->dir, r > 0 && pid[0] ? pid : "unknown");
        close(fd);
        rc = KC_EIO;
        goto out;
    }
    char pid[32];
    int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len)
        kc_log_warn("storage", "cannot write pid to %s: %s", path, strerror(errno));
    s->lock_fd = fd;
out:
    free(path);
    return rc;
}

/* Checks or writes the format version; runs in the open write txn. */
static int check_format(kc_store_t *s, MDB_txn *txn)
{
    MDB_val k = {sizeof("format") - 1, (void *)"format"};
    MDB_val v;
    int rc = mdb_get(txn, s->dbi_meta, &k, &v);
    if (rc == MDB_NOTFOUND) {
        uint8_t buf[4];
        put_be32(buf, STORE_FORMAT_VERSION);
        v.mv_size = 4;
        v.mv_data = buf;
        return lmdb_err(s, mdb_put(txn, s->dbi_meta, &k, &v, 0), "write format version");
    }
    if (rc != 0)
        return lmdb_err(s, rc, "read format version");
    if (v.mv_size != 4 || get_be32(v.mv_data) != STORE_FORMAT_VERSION) {
        kc_log_error("storage", "%s holds an unknown storage format", s->dir);
        return KC_EIO;
    }
    return 0;
}

static void update_full_mode(kc_store_t *s);

int kc_store_open(kc_store_t **out, const char *dir, uint64_t map_size)
{
    *out = NULL;
    if (!dir || !*dir || map_size == 0)
        return KC_EINVAL;
    kc_store_t *s = kc_xcalloc(1, sizeof(*s));
    s->lock_fd = -1;
    kc_buf_init(&s->redo);
    s->dir = kc_xstrdup(dir);
    s->map_size = map_size;
    MDB_txn *txn = NULL;
    int rc = make_dirs(dir);
    if (rc)
        goto out;
    rc = take_lock(s);
    if (rc)
        goto out;

    int mrc = mdb_env_create(&s->env);
    if (mrc) {
        s->env = NULL;
        rc = lmdb_err(s, mrc, "create environment");
        goto out;
    }
    if ((mrc = mdb_env_set_mapsize(s->env, (size_t)map_size)) ||
        (mrc = mdb_env_set_maxdbs(s->env, 16))) {
        rc = lmdb_err(s, mrc, "configure environment");
        goto out;
    }
    /* NOSYNC: a commit writes its pages with write(2) and does not wait for
     * the disk; kc_store_sync flushes when the flush policy says (Kafka's
     * log.flush.* properties). Without MDB_WRITEMAP the committed pages are in
     * the page cache, so a killed process loses nothing; LMDB keeps the
     * database consistent across an OS crash on a file system that keeps
     * write order, which may then undo the commits since the last sync.
     * NOTLS lets a read transaction live beside the write transaction of the
     * same thread. */
    mrc = mdb_env_open(s->env, dir, MDB_NOTLS | MDB_NOSYNC, 0644);
    if (mrc) {
        rc = lmdb_err(s, mrc, "open environment");
        goto out;
    }
    s->opened = true;
    int dead = 0;
    mdb_reader_check(s->env, &dead);
    s->max_key = (size_t)mdb_env_get_maxkeysize(s->env);
    MDB_envinfo info;
    MDB_stat st;
    if ((mrc = mdb_env_info(s->env, &info)) || (mrc = mdb_env_stat(s->env, &st))) {
        rc = lmdb_err(s, mrc, "read environment");
        goto out;
    }
    /* LMDB raises the map to the data in use (a map grown before a restart). */
    s->map_size = KC_MAX(map_size, (uint64_t)info.me_mapsize);
    s->page_size = st.ms_psize;

    if ((mrc = mdb_txn_begin(s->env, NULL, 0, &txn))) {
        rc = lmdb_err(s, mrc, "begin");
        goto out;
    }
    if ((mrc = mdb_dbi_open(txn, "log", MDB_CREATE, &s->dbi_log)) ||
        (mrc = mdb_dbi_open(txn, "index", MDB_CREATE, &s->dbi_index)) ||
        (mrc = mdb_dbi_open(txn, "topics", MDB_CREATE, &s->dbi_topics)) ||
        (mrc = mdb_dbi_open(txn, "meta", MDB_CREATE, &s->dbi_meta))) {
        rc = lmdb_err(s, mrc, "open databases");
        goto out;
    }
    rc = check_format(s, txn);
    if (rc)
        goto out;

    /* The next position follows the last live entry; a position freed by
     * compaction at the tail may be reused, which keeps order intact. */
    MDB_cursor *cur;
    if ((mrc = mdb_cursor_open(txn, s->dbi_log, &cur))) {
        rc = lmdb_err(s, mrc, "cursor");
        goto out;
    }
    MDB_val k, v;
    mrc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
    if (mrc == 0 && k.mv_size == 8)
        s->next_pos = get_be64(k.mv_data) + 1;
    mdb_cursor_close(cur);
    if (mrc != 0 && mrc != MDB_NOTFOUND) {
        rc = lmdb_err(s, mrc, "read log tail");
        goto out;
    }
    s->committed_next = s->next_pos;
    mrc = mdb_txn_commit(txn);
    txn = NULL;
    if (mrc) {
        rc = lmdb_err(s, mrc, "commit");
        goto out;
    }
out:
    if (txn)
        mdb_txn_abort(txn);
    if (rc) {
        kc_store_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

void kc_store_abort(kc_store_t *s)
{
    if (!s || (!s->txn && !s->err))
        return;
    if (s->txn)
        mdb_txn_abort(s->txn);
    s->txn = NULL;
    s->reserved = NULL;
    s->err = 0;
    s->next_pos = s->committed_next;
    update_full_mode(s);
}

void kc_store_close(kc_store_t *s)
{
    if (!s)
        return;
    kc_store_abort(s);
    if (s->env) {
        /* A clean shutdown flushes, as Kafka flushes its logs on close. */
        if (s->opened)
            kc_store_sync(s);
        mdb_env_close(s->env);
    }
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* releases the flock */
    kc_buf_deinit(&s->redo);
    free(s->dir);
    free(s);
}

/* ---- the write transaction and its redo list ---- */

/*
 * Every write of the open transaction is also kept, bytes copied, in a redo
 * list (s->redo: a sequence of write_op_t headers, each followed by its key
 * and value). LMDB can only enlarge the map with no transaction open, and a
 * transaction that hit MDB_MAP_FULL is dead; the redo list lets the store
 * abort it, enlarge the map and write the same operations again on the same
 * committed state, so that the caller never sees the growth. A value put
 * with MDB_RESERVE is written by the caller after kc_store_put_reserve
 * returns; its bytes are copied into the list at the next store call
 * (s->reserved), before anything can move the page.
 */
typedef enum { OP_APPEND, OP_TOPIC, OP_PUT, OP_RESERVE, OP_DEL, OP_DEL_PREFIX } write_kind_t;

typedef struct {
    uint8_t kind;    /* write_kind_t */
    bool has_value;  /* false: a deletion (tombstone, topic delete, del) */
    MDB_dbi db;      /* OP_PUT, OP_RESERVE, OP_DEL, OP_DEL_PREFIX */
    size_t key_len;
    size_t value_len;
} write_op_t;

/* Capacity of the redo list kept from one transaction to the next. */
#define REDO_KEEP_MAX ((size_t)16 << 20)

static const char *const write_what[] = {"append record", "write topic", "put", "put",
                                         "delete", "delete range"};

/* Copies the bytes of the last kc_store_put_reserve into the redo list. */
static void reserved_settle(kc_store_t *s)
{
    if (!s->reserved)
        return;
    memcpy(s->redo.data + s->reserved_at, s->reserved, s->reserved_len);
    s->reserved = NULL;
}

/* Opens the write transaction when needed; returns the sticky error. */
static int txn_ensure(kc_store_t *s)
{
    reserved_settle(s);
    if (s->err)
        return s->err;
    if (s->txn)
        return 0;
    int rc = mdb_txn_begin(s->env, NULL, 0, &s->txn);
    if (rc) {
        s->txn = NULL;
        return lmdb_err(s, rc, "begin write transaction");
    }
    if (s->redo.cap > REDO_KEEP_MAX) {
        /* After a transaction of unusual size, give its memory back. */
        kc_buf_deinit(&s->redo);
        kc_buf_init(&s->redo);
    }
    kc_buf_reset(&s->redo);
    return 0;
}

static int txn_fail(kc_store_t *s, int rc, const char *what)
{
    if (rc == MDB_MAP_FULL)
        s->hit_full = true;
    s->err = lmdb_err(s, rc, what);
    return s->err;
}

/* Bytes in use: pages up to the last one written, minus the free list;
 * *free_pages (may be NULL) gets the pages of the free list. */
static uint64_t used_bytes(kc_store_t *s, uint64_t *free_pages)
{
    MDB_envinfo info;
    MDB_stat st;
    if (mdb_env_info(s->env, &info) || mdb_env_stat(s->env, &st))
        return UINT64_MAX;
    uint64_t pages = (uint64_t)info.me_last_pgno + 1, listed = 0;
    MDB_txn *txn;
    if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))
        return UINT64_MAX;
    MDB_cursor *cur;
    if (mdb_cursor_open(txn, 0 /* the free-page database */, &cur) == 0) {
        MDB_val k, v;
        while (mdb_cursor_get(cur, &k, &v, MDB_NEXT) == 0) {
            if (v.mv_size >= sizeof(size_t)) {
                size_t n;
                memcpy(&n, v.mv_data, sizeof(n));
                listed += n;
            }
        }
        mdb_cursor_close(cur);
    }
    mdb_txn_abort(txn);
    if (free_pages)
        *free_pages = listed;
    return (pages - KC_MIN(listed, pages)) * st.ms_psize;
}

/* Bytes the data file may still grow by: the free space of its file system
 * for unprivileged users (UINT64_MAX when it cannot be read). */
static uint64_t disk_free(const kc_store_t *s)
{
    struct statvfs fs;
    if (statvfs(s->dir, &fs) != 0)
        return UINT64_MAX;
    return (uint64_t)fs.f_bavail * fs.f_frsize;
}

/* Logs when the free space of the data directory's file system falls under
 * lmdb.free.space.warn.bytes, and when it is back; at most once a second. */
static void free_space_check(kc_store_t *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    if (s->free_warn == 0 || (int64_t)ts.tv_sec == s->free_checked_s)
        return;
    s->free_checked_s = (int64_t)ts.tv_sec;
    uint64_t avail = disk_free(s);
    if (avail == UINT64_MAX)
        return;
    bool low = avail < s->free_warn;
    if (low && !s->free_low)
        kc_log_warn("storage",
                    "the file system of %s has %" PRIu64 " bytes free, under "
                    "lmdb.free.space.warn.bytes (%" PRIu64 "); writes fail when it is full",
                    s->dir, avail, s->free_warn);
    else if (!low && s->free_low)
        kc_log_info("storage", "the file system of %s has %" PRIu64 " bytes free again", s->dir,
                    avail);
    s->free_low = low;
}

/*
 * The map size to grow to from s->map_size so that at least need more bytes
 * fit: twice the size (or more when need asks), no more than
 * lmdb.map.max.bytes and no more than the data file can reach on its file
 * system. 0 when the map cannot grow.
 */
static uint64_t grown_size(kc_store_t *s, uint64_t need)
{
    uint64_t cur = s->map_size;
    if (s->map_max && cur >= s->map_max)
        return 0;
    uint64_t want = KC_MAX(cur * 2, cur + need);
    if (s->map_max)
        want = KC_MIN(want, s->map_max);
    int fd;
    struct stat st;
    uint64_t room = disk_free(s);
    if (room != UINT64_MAX && mdb_env_get_fd(s->env, &fd) == 0 && fstat(fd, &st) == 0)
        want = KC_MIN(want, (uint64_t)st.st_size + room);
    want -= want % s->page_size;
    return want > cur ? want : 0;
}

/* Sets the map to size with no transaction open; true on success (logged). */
static bool map_resize(kc_store_t *s, uint64_t size)
{
    int mrc = mdb_env_set_mapsize(s->env, (size_t)size);
    if (mrc) {
        kc_log_error("storage", "cannot grow the LMDB map of %s to %" PRIu64 " bytes: %s", s->dir,
                     size, mdb_strerror(mrc));
        return false;
    }
    kc_log_info("storage", "the LMDB map of %s grew from %" PRIu64 " to %" PRIu64 " bytes%s",
                s->dir, s->map_size, size,
                s->map_max && size >= s->map_max ? " (lmdb.map.max.bytes)" : "");
    s->map_size = size;
    s->grows++;
    return true;
}

static int write_exec(kc_store_t *s, const write_op_t *op, const void *key, const void *value,
                      uint8_t **reserved);

/*
 * The open transaction hit MDB_MAP_FULL: aborts it, grows the map and writes
 * the redo list again in a new transaction. True when that worked and the
 * failed operation can be tried again; false when the map cannot grow (the
 * transaction's writes are then gone and s->err is set; s->txn, when not
 * NULL, is a transaction in error for kc_store_commit or kc_store_abort to
 * drop).
 */
static bool grow_and_redo(kc_store_t *s, size_t extra)
{
    if (s->txn)
        mdb_txn_abort(s->txn);
    s->txn = NULL;
    s->next_pos = s->committed_next;
    uint64_t size = grown_size(s, 2 * ((uint64_t)s->redo.len + extra));
    int mrc = MDB_MAP_FULL;
    if (size && map_resize(s, size) && (mrc = mdb_txn_begin(s->env, NULL, 0, &s->txn)) == 0) {
        for (size_t at = 0; at < s->redo.len && mrc == 0;) {
            write_op_t op;
            memcpy(&op, s->redo.data + at, sizeof(op));
            const uint8_t *key = s->redo.data + at + sizeof(op);
            const uint8_t *value = key + op.key_len;
            uint8_t *dst = NULL;
            mrc = write_exec(s, &op, key, op.kind == OP_RESERVE ? NULL : value,
                             op.kind == OP_RESERVE ? &dst : NULL);
            if (mrc == 0 && dst)
                memcpy(dst, value, op.value_len);
            at += sizeof(op) + op.key_len + op.value_len;
        }
        if (mrc == 0)
            return true;
    }
    /* The writes of the transaction are lost to the caller: the sticky error
     * makes the commit report it, as without growth. */
    txn_fail(s, mrc, size ? "write after growing the map" : "write");
    return false;
}

/*
 * Runs one write in the open transaction, growing the map once when it is
 * full, and adds it to the redo list. Errors as kc_store_append.
 */
static int write_op(kc_store_t *s, const write_op_t *op, const void *key, const void *value,
                    uint8_t **reserved)
{
    int rc = txn_ensure(s);
    if (rc)
        return rc;
    if (op->has_value && s->full) {
        s->err = KC_ENOSPC;
        return s->err;
    }
    int mrc = write_exec(s, op, key, value, reserved);
    if (mrc == MDB_MAP_FULL) {
        if (!grow_and_redo(s, op->key_len + op->value_len))
            return s->err;
        mrc = write_exec(s, op, key, value, reserved);
    }
    if (mrc)
        return txn_fail(s, mrc, write_what[op->kind]);
    size_t bytes = op->key_len + op->value_len; /* deletions have no value */
    uint8_t *p = kc_buf_reserve(&s->redo, sizeof(*op) + bytes);
    memcpy(p, op, sizeof(*op));
    memcpy(p + sizeof(*op), key, op->key_len);
    if (op->kind == OP_RESERVE) {
        s->reserved = *reserved;
        s->reserved_len = op->value_len;
        s->reserved_at = s->redo.len + sizeof(*op) + op->key_len;
    } else if (value && op->value_len) {
        memcpy(p + sizeof(*op) + op->key_len, value, op->value_len);
    }
    s->redo.len += sizeof(*op) + bytes;
    return 0;
}

/* Runs after a transaction ended (no transaction open): grows the map ahead
 * of need, enters or leaves full mode. */
static void update_full_mode(kc_store_t *s)
{
    MDB_envinfo info;
    if (mdb_env_info(s->env, &info) != 0)
        return;
    uint64_t high = ((uint64_t)info.me_last_pgno + 1) * s->page_size;
    if (s->hit_full && !s->full) {
        s->hit_full = false;
        uint64_t reserve = KC_MAX(s->map_size / 32, (uint64_t)256 * 1024);
        uint64_t size = KC_MAX((uint64_t)info.me_mapsize, s->map_size) + reserve;
        if (mdb_env_set_mapsize(s->env, (size_t)size) == 0) {
            s->full = true;
            s->used_at_full = used_bytes(s, NULL);
            kc_log_warn("storage",
                        "%s is full (%" PRIu64 " bytes%s): only deletions are accepted until "
                        "space is freed",
                        s->dir, s->map_size,
                        s->map_max && s->map_size >= s->map_max
                            ? ", lmdb.map.max.bytes"
                            : ", the most its file system can hold");
        }
        return;
    }
    s->hit_full = false;
    if (!s->full) {
        /* The pages in use come close to the end of the map: grow now, while
         * no transaction has to be written again. */
        uint64_t size;
        if (high > s->map_size - s->map_size / 8 && (size = grown_size(s, 0)) != 0)
            map_resize(s, size);
        return;
    }
    /* Room on the file system again (or a map that had reached it): grow
     * out of full mode. */
    uint64_t size = grown_size(s, 0);
    if (size >= s->map_size + s->map_size / 8 && map_resize(s, size)) {
        s->full = false;
        kc_log_info("storage", "%s can grow again; writes resume", s->dir);
        return;
    }
    /* LMDB may report map full with some pages still on its free list, so
     * measure what was freed since, not an absolute level. */
    uint64_t used = used_bytes(s, NULL);
    if (used != UINT64_MAX && used + s->map_size / 8 <= s->used_at_full) {
        s->full = false;
        mdb_env_set_mapsize(s->env, (size_t)s->map_size); /* LMDB keeps it >= data in use */
        kc_log_info("storage", "%s has free space again; writes resume", s->dir);
    }
}

/* Builds the index key of a record key into buf (size max_key). */
static MDB_val index_key(const kc_store_t *s, const void *key, size_t key_len, uint8_t *buf)
{
    MDB_val ik;
    if (key_len < s->max_key) {
        ik.mv_size = key_len;
        ik.mv_data = (void *)key;
        return ik;
    }
    size_t prefix = s->max_key - SHA256_DIGEST_LENGTH;
    memcpy(buf, key, prefix);
    SHA256(key, key_len, buf + prefix);
    ik.mv_size = s->max_key;
    ik.mv_data = buf;
    return ik;
}

/* The record log's append (see kc_store_append) in the open transaction; an LMDB code. */
static int exec_append(kc_store_t *s, const void *key, size_t key_len, const void *value,
                       size_t value_len)
{
    uint8_t ibuf[1024];
    uint8_t *big = NULL;
    uint8_t *kb = ibuf;
    if (s->max_key > sizeof(ibuf))
        kb = big = kc_xmalloc(s->max_key);
    MDB_val ik = index_key(s, key, key_len, kb);

    MDB_val pv;
    int mrc = mdb_get(s->txn, s->dbi_index, &ik, &pv);
    if (mrc == 0) {
        if (pv.mv_size != 8) {
            kc_log_error("storage", "corrupt index entry (%zu bytes)", pv.mv_size);
            mrc = MDB_CORRUPTED;
            goto out;
        }
        uint8_t oldk[8];
        memcpy(oldk, pv.mv_data, 8);
        MDB_val ok = {8, oldk};
        if (ik.mv_data == kb) {
            /* Stand-in key: make sure the older entry holds the same key. */
            MDB_val ov;
            mrc = mdb_get(s->txn, s->dbi_log, &ok, &ov);
            if (mrc == 0 && (ov.mv_size < LOG_HDR + key_len ||
                             get_be32(ov.mv_data) != key_len ||
                             memcmp((uint8_t *)ov.mv_data + LOG_HDR, key, key_len) != 0)) {
                kc_log_error("storage", "index stand-in collision for a %zu-byte key", key_len);
                mrc = MDB_CORRUPTED;
                goto out;
            }
        }
        mrc = mdb_del(s->txn, s->dbi_log, &ok, NULL);
        if (mrc && mrc != MDB_NOTFOUND)
            goto out;
        mrc = value ? 0 : mdb_del(s->txn, s->dbi_index, &ik, NULL);
        if (mrc)
            goto out;
    } else if (mrc != MDB_NOTFOUND) {
        goto out;
    }
    mrc = 0;
    if (!value)
        goto out; /* a tombstone stores nothing */

    uint8_t posb[8];
    put_be64(posb, s->next_pos);
    MDB_val lk = {8, posb};
    MDB_val lv = {LOG_HDR + key_len + value_len, NULL};
    mrc = mdb_put(s->txn, s->dbi_log, &lk, &lv, MDB_APPEND | MDB_RESERVE);
    if (mrc)
        goto out;
    uint8_t *dst = lv.mv_data;
    put_be32(dst, (uint32_t)key_len);
    memcpy(dst + LOG_HDR, key, key_len);
    if (value_len)
        memcpy(dst + LOG_HDR + key_len, value, value_len);
    MDB_val iv = {8, posb};
    mrc = mdb_put(s->txn, s->dbi_index, &ik, &iv, 0);
    if (mrc == 0)
        s->next_pos++;
out:
    free(big);
    return mrc;
}

static bool has_prefix(const MDB_val *k, const void *prefix, size_t prefix_len)
{
    return k->mv_size >= prefix_len && memcmp(k->mv_data, prefix, prefix_len) == 0;
}

/* Deletes the keys of db that start with prefix; an LMDB code. */
static int exec_del_prefix(kc_store_t *s, MDB_dbi db, const void *prefix, size_t prefix_len)
{
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(s->txn, db, &cur);
    if (mrc)
        return mrc;
    MDB_val k = {prefix_len, (void *)prefix}, v;
    mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    while (mrc == 0 && has_prefix(&k, prefix, prefix_len)) {
        mrc = mdb_cursor_del(cur, 0);
        if (mrc)
            break;
        k.mv_size = prefix_len;
        k.mv_data = (void *)prefix;
        mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    }
    mdb_cursor_close(cur);
    return mrc == MDB_NOTFOUND ? 0 : mrc;
}

/* Runs one write in the open transaction; an LMDB code. value is NULL for
 * a deletion and for OP_RESERVE, whose value's place goes to *reserved. */
static int write_exec(kc_store_t *s, const write_op_t *op, const void *key, const void *value,
                      uint8_t **reserved)
{
    MDB_val k = {op->key_len, (void *)key};
    MDB_val v = {op->value_len, (void *)(value ? value : "")};
    int mrc;
    switch ((write_kind_t)op->kind) {
    case OP_APPEND:
        return exec_append(s, key, op->key_len, op->has_value ? value ? value : "" : NULL,
                           op->value_len);
    case OP_TOPIC:
    case OP_PUT:
        if (op->has_value)
            return mdb_put(s->txn, op->kind == OP_TOPIC ? s->dbi_topics : op->db, &k, &v, 0);
        mrc = mdb_del(s->txn, op->kind == OP_TOPIC ? s->dbi_topics : op->db, &k, NULL);
        return mrc == MDB_NOTFOUND ? 0 : mrc;
    case OP_RESERVE:
        v.mv_data = NULL;
        mrc = mdb_put(s->txn, op->db, &k, &v, MDB_RESERVE);
        *reserved = mrc ? NULL : v.mv_data;
        return mrc;
    case OP_DEL:
        mrc = mdb_del(s->txn, op->db, &k, NULL);
        return mrc == MDB_NOTFOUND ? 0 : mrc;
    case OP_DEL_PREFIX:
        return exec_del_prefix(s, op->db, key, op->key_len);
    }
    return MDB_INVALID;
}

int kc_store_append(kc_store_t *s, const void *key, size_t key_len, const void *value,
                    size_t value_len)
{
    if (!key || key_len == 0 || key_len > UINT32_MAX - LOG_HDR ||
        (value && value_len > SIZE_MAX - LOG_HDR - key_len))
        return KC_EINVAL;
    write_op_t op = {OP_APPEND, value != NULL, 0, key_len, value ? value_len : 0};
    return write_op(s, &op, key, value, NULL);
}

int kc_store_topic_put(kc_store_t *s, const char *name, const void *value, size_t value_len)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > s->max_key)
        return KC_EINVAL;
    write_op_t op = {OP_TOPIC, value != NULL, 0, n, value ? value_len : 0};
    return write_op(s, &op, name, value, NULL);
}

bool kc_store_pending(const kc_store_t *s)
{
    return s && (s->txn != NULL || s->err != 0);
}

int kc_store_commit(kc_store_t *s)
{
    reserved_settle(s);
    if (s->err) {
        int err = s->err;
        kc_log_error("storage", "dropping the write transaction after an error (%d)", err);
        kc_store_abort(s);
        return err;
    }
    if (!s->txn)
        return 0;
    int mrc = mdb_txn_commit(s->txn);
    s->txn = NULL;
    if (mrc == MDB_MAP_FULL) {
        /* The commit itself needed pages (the free list's): grow, write the
         * transaction again and commit once more. */
        if (grow_and_redo(s, 0)) {
            mrc = mdb_txn_commit(s->txn);
        } else {
            if (s->txn)
                mdb_txn_abort(s->txn);
            s->err = 0; /* reported below, as this commit's error */
        }
        s->txn = NULL;
    }
    int rc = 0;
    if (mrc) {
        if (mrc == MDB_MAP_FULL)
            s->hit_full = true;
        s->next_pos = s->committed_next;
        rc = lmdb_err(s, mrc, "commit");
    } else {
        s->committed_next = s->next_pos;
    }
    update_full_mode(s);
    free_space_check(s);
    return rc;
}

int kc_store_sync(kc_store_t *s)
{
    int mrc = mdb_env_sync(s->env, 1);
    if (mrc)
        return lmdb_err(s, mrc, "sync");
    s->syncs++;
    return 0;
}

bool kc_store_failed(kc_store_t *s)
{
    MDB_txn *txn = NULL;
    int mrc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (mrc == 0)
        mdb_txn_abort(txn);
    return mrc == MDB_PANIC;
}

uint64_t kc_store_sync_count(const kc_store_t *s)
{
    return s->syncs;
}

void kc_store_set_limits(kc_store_t *s, uint64_t map_max, uint64_t free_warn)
{
    s->map_max = map_max;
    s->free_warn = free_warn;
    s->free_checked_s = -1;
    free_space_check(s);
}

void kc_store_stats(kc_store_t *s, kc_store_stats_t *out)
{
    memset(out, 0, sizeof(*out));
    out->map_size = s->map_size;
    out->map_max = s->map_max;
    out->grows = s->grows;
    out->full = s->full;
    out->page_size = s->page_size;
    MDB_envinfo info;
    if (mdb_env_info(s->env, &info) == 0)
        out->high_water = ((uint64_t)info.me_last_pgno + 1) * s->page_size;
    uint64_t used = used_bytes(s, &out->free_pages);
    out->used = used == UINT64_MAX ? out->high_water : used;
    out->disk_free = disk_free(s);
}

/* Read view: the open write transaction (pending writes visible) or a fresh
 * read-only one (*own set, to be aborted by the caller). */
static int read_txn(kc_store_t *s, MDB_txn **txn, bool *own)
{
    if (s->txn) {
        if (s->err)
            return s->err;
        *txn = s->txn;
        *own = false;
        return 0;
    }
    *own = true;
    int mrc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    return mrc ? lmdb_err(s, mrc, "begin read transaction") : 0;
}

static int walk(kc_store_t *s, MDB_dbi dbi, bool log, kc_store_record_fn fn, void *ctx)
{
    MDB_txn *txn;
    bool own;
    int rc = read_txn(s, &txn, &own);
    if (rc)
        return rc;
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(txn, dbi, &cur);
    if (mrc) {
        rc = lmdb_err(s, mrc, "cursor");
        goto out;
    }
    MDB_val k, v;
    for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        const uint8_t *vp = v.mv_data;
        if (log) {
            if (k.mv_size != 8 || v.mv_size < LOG_HDR ||
                get_be32(vp) > v.mv_size - LOG_HDR) {
                kc_log_error("storage", "corrupt log entry (%zu bytes)", v.mv_size);
                rc = KC_EIO;
                break;
            }
            size_t kl = get_be32(vp);
            rc = fn(ctx, vp + LOG_HDR, kl, vp + LOG_HDR + kl, v.mv_size - LOG_HDR - kl);
        } else {
            rc = fn(ctx, k.mv_data, k.mv_size, vp, v.mv_size);
        }
        if (rc)
            break;
    }
    if (!rc && mrc != MDB_NOTFOUND)
        rc = lmdb_err(s, mrc, "walk");
    mdb_cursor_close(cur);
out:
    if (own)
        mdb_txn_abort(txn);
    return rc;
}

/*
 * Finds LMDB's map of data.mdb in /proc/self/maps (LMDB does not tell where
 * it mapped the file unless MDB_FIXEDMAP is used) and returns its address
 * and the length in use (pages 0 .. last written), or NULL.
 */
static void *map_in_use(kc_store_t *s, size_t *len)
{
    int fd;
    struct stat st;
    MDB_envinfo info;
    MDB_stat ms;
    if (mdb_env_get_fd(s->env, &fd) != 0 || fstat(fd, &st) != 0 ||
        mdb_env_info(s->env, &info) != 0 || mdb_env_stat(s->env, &ms) != 0)
        return NULL;
    FILE *f = fopen("/proc/self/maps", "re");
    if (f == NULL)
        return NULL;
    void *addr = NULL;
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi, off, ino;
        unsigned maj, min;
        char perms[8];
        size_t ll = strcspn(line, "\n");
        line[ll] = '\0';
        if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &lo, &hi, perms, &off, &maj, &min, &ino) ==
                7 &&
            ino == (unsigned long)st.st_ino && off == 0 && perms[3] == 's' &&
            ll >= sizeof("/data.mdb") - 1 &&
            strcmp(line + ll - (sizeof("/data.mdb") - 1), "/data.mdb") == 0) {
            addr = (void *)lo;
            *len = KC_MIN(((size_t)info.me_last_pgno + 1) * ms.ms_psize, (size_t)(hi - lo));
            break;
        }
    }
    fclose(f);
    return addr;
}

/* Maps and reads the pages of [p, p+len) (see kc_store_replay). */
typedef struct {
    const volatile uint8_t *p;
    size_t len;
    atomic_bool stop;
} prefault_t;

static void *prefault_run(void *arg)
{
    prefault_t *pf = arg;
#ifdef MADV_POPULATE_READ
    madvise((void *)pf->p, pf->len, MADV_POPULATE_READ);
#endif
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < pf->len && !atomic_load_explicit(&pf->stop, memory_order_relaxed);
         i += page)
        (void)pf->p[i];
    return NULL;
}

/* Up to this size the map in use is mapped inline; above it, on a second thread. */
#define PREFAULT_INLINE_MAX ((size_t)16 << 20)

/* True when the coordinator log fills at least half of the pages in use. */
static bool log_dominates(kc_store_t *s, size_t used)
{
    MDB_txn *txn;
    bool own;
    MDB_stat st;
    if (read_txn(s, &txn, &own) != 0)
        return false;
    bool r = mdb_stat(txn, s->dbi_log, &st) == 0 &&
             (st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages) * st.ms_psize * 2 >=
                 used;
    if (own)
        mdb_txn_abort(txn);
    return r;
}

int kc_store_replay(kc_store_t *s, kc_store_record_fn fn, void *ctx)
{
    /*
     * The walk reads every log page once, and on a fresh process the first
     * read of each page of the map costs far more than the records it holds
     * (a page fault, and on virtual machines a page-table fill in the
     * hypervisor). That cost is per process, not per thread. A small map is
     * mapped in one call; a big one, when the log is most of it (the
     * partition log shares the map and may be far bigger), is mapped and
     * read by a second thread while this one replays, so the walk finds its
     * pages ready. Afterwards the pages are dropped from the page tables,
     * which keeps them out of the broker's resident set: LMDB's map is a
     * read-only shared file mapping and the page cache keeps them.
     */
    size_t len = 0;
    void *map = map_in_use(s, &len);
    prefault_t pf = {map, len, false};
    pthread_t th;
    bool threaded = false;
    if (map != NULL && len <= PREFAULT_INLINE_MAX) {
#ifdef MADV_POPULATE_READ
        madvise(map, len, MADV_POPULATE_READ);
#endif
    } else if (map != NULL && log_dominates(s, len)) {
        threaded = pthread_create(&th, NULL, prefault_run, &pf) == 0;
    }
    int rc = walk(s, s->dbi_log, true, fn, ctx);
    if (threaded) {
        atomic_store(&pf.stop, true);
        pthread_join(th, NULL);
    }
    if (map != NULL)
        madvise(map, len, MADV_DONTNEED);
    return rc;
}

int kc_store_topics_foreach(kc_store_t *s, kc_store_record_fn fn, void *ctx)
{
    return walk(s, s->dbi_topics, false, fn, ctx);
}

uint64_t kc_store_record_count(kc_store_t *s)
{
    MDB_txn *txn;
    bool own;
    if (read_txn(s, &txn, &own))
        return 0;
    MDB_stat st;
    uint64_t n = mdb_stat(txn, s->dbi_log, &st) == 0 ? (uint64_t)st.ms_entries : 0;
    if (own)
        mdb_txn_abort(txn);
    return n;
}

/* ---- generic named databases ---- */

int kc_store_dbi_open(kc_store_t *s, const char *name, kc_store_dbi_t *out)
{
    if (s->txn) {
        /* A database opened inside a write transaction that later aborts is lost: open
         * them before any write. */
        return KC_EINVAL;
    }
    MDB_txn *txn;
    int mrc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (mrc)
        return lmdb_err(s, mrc, "begin");
    MDB_dbi dbi;
    mrc = mdb_dbi_open(txn, name, MDB_CREATE, &dbi);
    if (mrc) {
        mdb_txn_abort(txn);
        return mrc == MDB_DBS_FULL ? KC_EINVAL : lmdb_err(s, mrc, "open database");
    }
    mrc = mdb_txn_commit(txn);
    if (mrc)
        return lmdb_err(s, mrc, "commit");
    *out = dbi;
    return 0;
}

int kc_store_put(kc_store_t *s, kc_store_dbi_t db, const void *key, size_t key_len,
                 const void *value, size_t value_len)
{
    if (!key || key_len == 0 || key_len > s->max_key || (!value && value_len))
        return KC_EINVAL;
    write_op_t op = {OP_PUT, true, db, key_len, value_len};
    return write_op(s, &op, key, value, NULL);
}

int kc_store_put_reserve(kc_store_t *s, kc_store_dbi_t db, const void *key, size_t key_len,
                         size_t value_len, uint8_t **out)
{
    *out = NULL;
    if (!key || key_len == 0 || key_len > s->max_key || value_len == 0)
        return KC_EINVAL;
    write_op_t op = {OP_RESERVE, true, db, key_len, value_len};
    return write_op(s, &op, key, NULL, out);
}

int kc_store_del(kc_store_t *s, kc_store_dbi_t db, const void *key, size_t key_len)
{
    if (!key || key_len == 0 || key_len > s->max_key)
        return KC_EINVAL;
    write_op_t op = {OP_DEL, false, db, key_len, 0};
    return write_op(s, &op, key, NULL, NULL);
}

int kc_store_del_prefix(kc_store_t *s, kc_store_dbi_t db, const void *prefix, size_t prefix_len)
{
    if (!prefix || prefix_len == 0 || prefix_len > s->max_key)
        return KC_EINVAL;
    write_op_t op = {OP_DEL_PREFIX, false, db, prefix_len, 0};
    return write_op(s, &op, prefix, NULL, NULL);
}

int kc_store_scan(kc_store_t *s, kc_store_dbi_t db, const void *from, size_t from_len,
                  size_t prefix_len, bool floor, kc_store_record_fn fn, void *ctx)
{
    if (!from || from_len == 0 || prefix_len > from_len || from_len > s->max_key)
        return KC_EINVAL;
    MDB_txn *txn;
    int mrc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (mrc)
        return lmdb_err(s, mrc, "begin read transaction");
    MDB_cursor *cur;
    int rc = 0;
    mrc = mdb_cursor_open(txn, db, &cur);
    if (mrc) {
        mdb_txn_abort(txn);
        return lmdb_err(s, mrc, "cursor");
    }
    MDB_val k = {from_len, (void *)from}, v;
    mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    bool exact = mrc == 0 && k.mv_size == from_len && memcmp(k.mv_data, from, from_len) == 0;
    if (floor && !exact) {
        /* Step back to the entry before from, if it shares the prefix. */
        MDB_val pk, pv;
        int prc = mdb_cursor_get(cur, &pk, &pv, mrc == 0 ? MDB_PREV : MDB_LAST);
        if (prc == 0 && has_prefix(&pk, from, prefix_len)) {
            k = pk;
            v = pv;
            mrc = 0;
        } else if (mrc == 0) {
            k.mv_size = from_len;
            k.mv_data = (void *)from;
            mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
        }
    }
    for (; mrc == 0 && has_prefix(&k, from, prefix_len);
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        rc = fn(ctx, k.mv_data, k.mv_size, v.mv_data, v.mv_size);
        if (rc)
            break;
    }
    if (!rc && mrc != 0 && mrc != MDB_NOTFOUND)
        rc = lmdb_err(s, mrc, "scan");
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    return rc;
}
