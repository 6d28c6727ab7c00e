/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The built-in "lmdb" topology-description store: one description per
 * group in an LMDB environment of its own, <log.dirs>/topology-descriptions,
 * deliberately apart from the coordinator's environment and transactions
 * (the -2 barrier, not a shared transaction, keeps the two consistent).
 *
 * Entry: key = the group id (a longer id than LMDB's key limit is keyed by
 * 0xff then its SHA-256); value = big-endian u32 epoch, u32 group id length,
 * the group id, the description bytes. Every call is one LMDB transaction,
 * durable when it completes. Thread-safe (MDB_NOTLS; LMDB serialises writers).
 */
#include <errno.h>
#include <lmdb.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kc_common.h"
#include "kcoord/topology_store.h"

/* Reserved, not allocated: LMDB maps it lazily. */
#define MAP_SIZE ((size_t)256 << 20)

typedef struct {
    MDB_env *env;
    MDB_dbi dbi;
    size_t max_key;
} lmdb_store_t;

const kc_topology_store_ops_t *kc_topology_store_lmdb_ops(void);

static int lm_init(const kc_topology_store_config_t *cfg, void **state, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/topology-descriptions", cfg->data_dir ? cfg->data_dir : ".");
    if (mkdir(cfg->data_dir ? cfg->data_dir : ".", 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", cfg->data_dir, strerror(errno));
        return -1;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    lmdb_store_t *s = kc_xcalloc(1, sizeof(*s));
    MDB_txn *txn = NULL;
    int rc = mdb_env_create(&s->env);
    if (rc == 0)
        rc = mdb_env_set_mapsize(s->env, MAP_SIZE);
    if (rc == 0)
        rc = mdb_env_open(s->env, dir, MDB_NOTLS, 0644);
    if (rc == 0)
        rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, NULL, 0, &s->dbi);
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (rc != 0) {
        snprintf(err, errlen, "cannot open LMDB in %s: %s", dir, mdb_strerror(rc));
        if (txn)
            mdb_txn_abort(txn);
        mdb_env_close(s->env);
        free(s);
        return -1;
    }
    s->max_key = (size_t)mdb_env_get_maxkeysize(s->env);
    *state = s;
    return 0;
}

static void lm_close(void *state)
{
    lmdb_store_t *s = state;
    mdb_env_close(s->env);
    free(s);
}

/* The key of a group: its id, or 0xff + SHA-256 when too long. */
static MDB_val lm_key(lmdb_store_t *s, const char *g, size_t glen, uint8_t buf[1 + 32])
{
    if (glen > 0 && glen <= s->max_key)
        return (MDB_val){glen, (void *)g};
    buf[0] = 0xff;
    SHA256((const unsigned char *)g, glen, buf + 1);
    return (MDB_val){33, buf};
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void fail(kc_topology_store_done_fn done, void *token, const char *what, int rc)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "LMDB topology store: %s failed: %s", what, mdb_strerror(rc));
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_TRANSIENT, msg, NULL, 0};
    done(token, &r);
}

static void lm_set(void *state, const char *g, size_t glen, int32_t epoch, const uint8_t *d,
                   size_t len, kc_topology_store_done_fn done, void *token)
{
    lmdb_store_t *s = state;
    uint8_t kb[33];
    MDB_val k = lm_key(s, g, glen, kb);
    size_t vlen = 8 + glen + len;
    uint8_t *v = kc_xmalloc(vlen);
    put32(v, (uint32_t)epoch);
    put32(v + 4, (uint32_t)glen);
    memcpy(v + 8, g, glen);
    if (len)
        memcpy(v + 8 + glen, d, len);
    MDB_val val = {vlen, v};
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc == 0) {
        rc = mdb_put(txn, s->dbi, &k, &val, 0);
        if (rc == 0)
            rc = mdb_txn_commit(txn);
        else
            mdb_txn_abort(txn);
    }
    free(v);
    if (rc != 0) {
        fail(done, token, "set", rc);
        return;
    }
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_OK, NULL, NULL, 0};
    done(token, &r);
}

static void lm_get(void *state, const char *g, size_t glen, int32_t epoch,
                   kc_topology_store_done_fn done, void *token)
{
    lmdb_store_t *s = state;
    uint8_t kb[33];
    MDB_val k = lm_key(s, g, glen, kb), val;
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        fail(done, token, "get", rc);
        return;
    }
    rc = mdb_get(txn, s->dbi, &k, &val);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_NOT_FOUND, NULL, NULL, 0};
    if (rc == 0 && val.mv_size >= 8) {
        const uint8_t *p = val.mv_data;
        uint32_t stored_glen = get32(p + 4);
        if ((int32_t)get32(p) == epoch && stored_glen == glen && 8 + (size_t)glen <= val.mv_size &&
            memcmp(p + 8, g, glen) == 0) {
            r.status = KC_TOPOLOGY_STORE_OK;
            r.data = p + 8 + glen;
            r.len = val.mv_size - 8 - glen;
        }
    } else if (rc != 0 && rc != MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        fail(done, token, "get", rc);
        return;
    }
    /* done copies the bytes before returning: the transaction may end after. */
    done(token, &r);
    mdb_txn_abort(txn);
}

static void lm_del(void *state, const char *g, size_t glen, kc_topology_store_done_fn done,
                   void *token)
{
    lmdb_store_t *s = state;
    uint8_t kb[33];
    MDB_val k = lm_key(s, g, glen, kb);
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc == 0) {
        rc = mdb_del(txn, s->dbi, &k, NULL);
        if (rc == 0 || rc == MDB_NOTFOUND)
            rc = mdb_txn_commit(txn);
        else
            mdb_txn_abort(txn);
    }
    if (rc != 0) {
        fail(done, token, "delete", rc);
        return;
    }
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_OK, NULL, NULL, 0};
    done(token, &r);
}

static const kc_topology_store_ops_t lm_ops = {
    KC_TOPOLOGY_STORE_ABI_VERSION, sizeof(kc_topology_store_ops_t), "lmdb",
    lm_init, lm_close, lm_set, lm_get, lm_del,
};

const kc_topology_store_ops_t *kc_topology_store_lmdb_ops(void)
{
    return &lm_ops;
}
