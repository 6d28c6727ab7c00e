/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The dynamic group configs table (group_configs.h): an array of groups
 * with overrides, looked up by id (few groups have overrides), persisted
 * one entry per group in the store's "group_configs" database.
 *
 * Stored key: u8 version 0, then the group id, or, for a group id longer
 * than GROUP_KEY_MAX bytes, u8 1 and the group id's SHA-256 (LMDB keys are
 * short; the value holds the whole id).
 * Stored value (integers big-endian): u16 version 0, u32 group id length,
 * group id bytes, u16 config count, then per config u16 name length, name,
 * u32 value length, value (the layout of a topic entry's configs).
 */
#include "group_configs.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"

#define GROUP_KEY_MAX 400
#define GROUP_CONFIG_MAX 1024 /* pairs kept per group */
#define VALUE_VERSION 0

struct kc_group_configs {
    kc_store_t *store;
    kc_store_dbi_t dbi;
    bool dbi_open;
    kc_group_config_t **items;
    size_t count, cap;
};

static void entry_free(kc_group_config_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nconfigs; i++) {
        free(c->names[i]);
        free(c->values[i]);
    }
    free(c->names);
    free(c->values);
    free(c->group_id);
    free(c);
}

kc_group_configs_t *kc_group_configs_new(kc_store_t *store)
{
    kc_group_configs_t *t = kc_xcalloc(1, sizeof(*t));
    t->store = store;
    return t;
}

void kc_group_configs_free(kc_group_configs_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->count; i++)
        entry_free(t->items[i]);
    free(t->items);
    free(t);
}

static size_t index_of(const kc_group_configs_t *t, kc_str_t id)
{
    size_t n = id.len > 0 ? (size_t)id.len : 0;
    for (size_t i = 0; i < t->count; i++)
        if (t->items[i]->group_id_len == n && memcmp(t->items[i]->group_id, id.ptr, n) == 0)
            return i;
    return SIZE_MAX;
}

const kc_group_config_t *kc_group_configs_find(const kc_group_configs_t *t, kc_str_t group_id)
{
    size_t i = index_of(t, group_id);
    return i == SIZE_MAX ? NULL : t->items[i];
}

const char *kc_group_config_value(const kc_group_config_t *c, const char *name)
{
    for (size_t i = 0; c && i < c->nconfigs; i++)
        if (strcmp(c->names[i], name) == 0)
            return c->values[i];
    return NULL;
}

size_t kc_group_configs_count(const kc_group_configs_t *t)
{
    return t->count;
}

const kc_group_config_t *kc_group_configs_at(const kc_group_configs_t *t, size_t i)
{
    return t->items[i];
}

static int open_dbi(kc_group_configs_t *t)
{
    if (t->dbi_open || !t->store)
        return 0;
    int rc = kc_store_dbi_open(t->store, "group_configs", &t->dbi);
    if (rc == 0)
        t->dbi_open = true;
    return rc;
}

/* The stored key of a group id (at most 1 + SHA256_DIGEST_LENGTH or 1 + GROUP_KEY_MAX bytes). */
static size_t stored_key(kc_str_t id, uint8_t *out)
{
    size_t n = id.len > 0 ? (size_t)id.len : 0;
    if (n <= GROUP_KEY_MAX) {
        out[0] = 0;
        if (n)
            memcpy(out + 1, id.ptr, n);
        return 1 + n;
    }
    out[0] = 1;
    SHA256((const unsigned char *)id.ptr, n, out + 1);
    return 1 + SHA256_DIGEST_LENGTH;
}

static void put_be(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static uint32_t get_be(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = (v << 8) | p[i];
    return v;
}

static int persist(kc_group_configs_t *t, kc_str_t id, size_t n, const kc_str_t *names,
                   const kc_str_t *values)
{
    if (!t->store)
        return 0;
    int rc = open_dbi(t);
    if (rc != 0)
        return rc;
    uint8_t key[1 + GROUP_KEY_MAX];
    size_t kl = stored_key(id, key);
    if (n == 0)
        return kc_store_del(t->store, t->dbi, key, kl);
    kc_buf_t b;
    kc_buf_init(&b);
    uint8_t num[6];
    size_t idl = id.len > 0 ? (size_t)id.len : 0;
    put_be(num, VALUE_VERSION, 2);
    put_be(num + 2, (uint32_t)idl, 4);
    kc_buf_append(&b, num, 6);
    kc_buf_append(&b, id.ptr, idl);
    put_be(num, (uint32_t)n, 2);
    kc_buf_append(&b, num, 2);
    for (size_t i = 0; i < n; i++) {
        size_t nl = (size_t)KC_MAX(names[i].len, 0), vl = (size_t)KC_MAX(values[i].len, 0);
        put_be(num, (uint32_t)nl, 2);
        kc_buf_append(&b, num, 2);
        kc_buf_append(&b, names[i].ptr, nl);
        put_be(num, (uint32_t)vl, 4);
        kc_buf_append(&b, num, 4);
        kc_buf_append(&b, values[i].ptr, vl);
    }
    rc = kc_store_put(t->store, t->dbi, key, kl, b.data, b.len);
    kc_buf_deinit(&b);
    return rc;
}

static kc_group_config_t *entry_new(kc_str_t id, size_t n, const kc_str_t *names,
                                    const kc_str_t *values)
{
    kc_group_config_t *c = kc_xcalloc(1, sizeof(*c));
    c->group_id_len = id.len > 0 ? (size_t)id.len : 0;
    c->group_id = kc_xstrndup(id.ptr ? id.ptr : "", c->group_id_len);
    c->names = kc_xcalloc(n ? n : 1, sizeof(char *));
    c->values = kc_xcalloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        c->names[i] = kc_xstrndup(names[i].ptr ? names[i].ptr : "", (size_t)KC_MAX(names[i].len, 0));
        c->values[i] =
            kc_xstrndup(values[i].ptr ? values[i].ptr : "", (size_t)KC_MAX(values[i].len, 0));
    }
    c->nconfigs = n;
    return c;
}

/* Puts c in the table in place of an entry of the same id (freed). */
static void install(kc_group_configs_t *t, kc_group_config_t *c)
{
    kc_str_t id = {c->group_id, (int32_t)c->group_id_len};
    size_t i = index_of(t, id);
    if (i != SIZE_MAX) {
        entry_free(t->items[i]);
        t->items[i] = c;
        return;
    }
    if (t->count == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 8;
        t->items = kc_xrealloc(t->items, t->cap * sizeof(*t->items));
    }
    t->items[t->count++] = c;
}

int kc_group_configs_set(kc_group_configs_t *t, kc_str_t group_id, size_t n,
                         const kc_str_t *names, const kc_str_t *values)
{
    int rc = persist(t, group_id, n, names, values);
    if (rc != 0)
        return rc;
    size_t i = index_of(t, group_id);
    if (n == 0) {
        if (i != SIZE_MAX) {
            entry_free(t->items[i]);
            t->items[i] = t->items[--t->count];
        }
        return 0;
    }
    install(t, entry_new(group_id, n, names, values));
    return 0;
}

/* Parses one stored value; NULL when malformed. */
static kc_group_config_t *parse_value(const uint8_t *p, size_t n)
{
    if (n < 6 || get_be(p, 2) != VALUE_VERSION)
        return NULL;
    size_t idl = get_be(p + 2, 4);
    p += 6;
    n -= 6;
    if (n < idl + 2)
        return NULL;
    kc_str_t id = {(const char *)p, (int32_t)idl};
    p += idl;
    n -= idl;
    size_t cnt = get_be(p, 2);
    p += 2;
    n -= 2;
    if (cnt > GROUP_CONFIG_MAX)
        return NULL;
    kc_str_t *names = kc_xcalloc(cnt ? cnt : 1, sizeof(*names));
    kc_str_t *values = kc_xcalloc(cnt ? cnt : 1, sizeof(*values));
    kc_group_config_t *c = NULL;
    for (size_t i = 0; i < cnt; i++) {
        if (n < 2)
            goto out;
        size_t kl = get_be(p, 2);
        if (n < 2 + kl + 4)
            goto out;
        size_t vl = get_be(p + 2 + kl, 4);
        if (n - (2 + kl + 4) < vl)
            goto out;
        names[i] = (kc_str_t){(const char *)p + 2, (int32_t)kl};
        values[i] = (kc_str_t){(const char *)p + 2 + kl + 4, (int32_t)vl};
        p += 2 + kl + 4 + vl;
        n -= 2 + kl + 4 + vl;
    }
    if (n == 0)
        c = entry_new(id, cnt, names, values);
out:
    free(names);
    free(values);
    return c;
}

static int load_one(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                    size_t value_len)
{
    (void)key;
    (void)key_len;
    kc_group_configs_t *t = ctx;
    kc_group_config_t *c = parse_value(value, value_len);
    if (!c) {
        kc_log_error("storage", "malformed group config entry (%zu bytes)", value_len);
        return KC_EIO;
    }
    install(t, c);
    return 0;
}

int kc_group_configs_load(kc_group_configs_t *t)
{
    if (!t->store)
        return 0;
    if (open_dbi(t) != 0)
        return KC_EIO;
    for (uint8_t version = 0; version <= 1; version++) {
        int rc = kc_store_scan(t->store, t->dbi, &version, 1, 1, false, load_one, t);
        if (rc != 0)
            return KC_EIO;
    }
    return 0;
}
