/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topic table: topics in creation order plus two open-addressing hash
 * tables (by name, by topic id), persisted one entry per topic in the
 * store's "topics" database.
 *
 * Stored value (all integers big-endian):
 *   u16 version, u16 name length, name bytes, 16-byte topic id,
 *   i32 partition count, u64 creation sequence (restores creation order);
 *   version 1 adds u16 config count, then per config u16 name length, name,
 *   i32 value length, value. Version 0 entries (no configs) still load.
 */
#include "topics.h"

#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"

#define TOPIC_NAME_MAX 249
#define TOPIC_VALUE_VERSION 1
#define TOPIC_CONFIG_MAX 1024 /* pairs kept per topic */

typedef struct {
    kc_topic_t pub;
    uint64_t seq;
} topic_t;

struct kc_topics {
    kc_store_t *store;
    topic_t **order; /* creation order */
    size_t count;
    size_t order_cap;
    topic_t **by_name; /* open addressing, linear probing; cap is a power of two */
    topic_t **by_id;
    size_t hcap;
    uint64_t next_seq;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static bool name_eq(const topic_t *t, const char *name, size_t len)
{
    return strlen(t->pub.name) == len && memcmp(t->pub.name, name, len) == 0;
}

static uint64_t topic_hash(const topic_t *t, bool by_id)
{
    return by_id ? hash_bytes(t->pub.id.b, 16) : hash_bytes(t->pub.name, strlen(t->pub.name));
}

static void table_insert(topic_t **tab, size_t cap, topic_t *t, bool by_id)
{
    size_t i = (size_t)topic_hash(t, by_id) & (cap - 1);
    while (tab[i])
        i = (i + 1) & (cap - 1);
    tab[i] = t;
}

/* Removes t and shifts later entries of the cluster back (no tombstones). */
static void table_remove(topic_t **tab, size_t cap, const topic_t *t, bool by_id)
{
    size_t i = (size_t)topic_hash(t, by_id) & (cap - 1);
    while (tab[i] != t) {
        if (!tab[i])
            return;
        i = (i + 1) & (cap - 1);
    }
    tab[i] = NULL;
    for (size_t j = (i + 1) & (cap - 1); tab[j]; j = (j + 1) & (cap - 1)) {
        size_t home = (size_t)topic_hash(tab[j], by_id) & (cap - 1);
        /* Move tab[j] into the hole when its home is not in (i, j]. */
        bool in_range = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            tab[i] = tab[j];
            tab[j] = NULL;
            i = j;
        }
    }
}

static void grow_tables(kc_topics_t *t)
{
    if ((t->count + 1) * 2 <= t->hcap)
        return;
    size_t cap = t->hcap ? t->hcap * 2 : 16;
    topic_t **bn = kc_xcalloc(cap, sizeof(*bn));
    topic_t **bi = kc_xcalloc(cap, sizeof(*bi));
    for (size_t i = 0; i < t->count; i++) {
        table_insert(bn, cap, t->order[i], false);
        table_insert(bi, cap, t->order[i], true);
    }
    free(t->by_name);
    free(t->by_id);
    t->by_name = bn;
    t->by_id = bi;
    t->hcap = cap;
}

kc_topics_t *kc_topics_new(kc_store_t *store)
{
    kc_topics_t *t = kc_xcalloc(1, sizeof(*t));
    t->store = store;
    return t;
}

static void configs_free(kc_topic_t *p)
{
    for (size_t i = 0; i < p->nconfigs; i++) {
        free(p->config_names[i]);
        free(p->config_values[i]);
    }
    free(p->config_names);
    free(p->config_values);
    p->config_names = p->config_values = NULL;
    p->nconfigs = 0;
}

void kc_topics_free(kc_topics_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->count; i++) {
        free(t->order[i]->pub.name);
        configs_free(&t->order[i]->pub);
        free(t->order[i]);
    }
    free(t->order);
    free(t->by_name);
    free(t->by_id);
    free(t);
}

static topic_t *find_name(const kc_topics_t *t, const char *name, size_t len)
{
    if (!t->hcap)
        return NULL;
    size_t i = (size_t)hash_bytes(name, len) & (t->hcap - 1);
    for (; t->by_name[i]; i = (i + 1) & (t->hcap - 1))
        if (name_eq(t->by_name[i], name, len))
            return t->by_name[i];
    return NULL;
}

const kc_topic_t *kc_topics_find(const kc_topics_t *t, kc_str_t name)
{
    if (name.len <= 0 || !name.ptr)
        return NULL;
    topic_t *tp = find_name(t, name.ptr, (size_t)name.len);
    return tp ? &tp->pub : NULL;
}

const kc_topic_t *kc_topics_find_id(const kc_topics_t *t, kc_uuid_t id)
{
    if (!t->hcap)
        return NULL;
    size_t i = (size_t)hash_bytes(id.b, 16) & (t->hcap - 1);
    for (; t->by_id[i]; i = (i + 1) & (t->hcap - 1))
        if (memcmp(t->by_id[i]->pub.id.b, id.b, 16) == 0)
            return &t->by_id[i]->pub;
    return NULL;
}

size_t kc_topics_count(const kc_topics_t *t)
{
    return t->count;
}

const kc_topic_t *kc_topics_at(const kc_topics_t *t, size_t i)
{
    return i < t->count ? &t->order[i]->pub : NULL;
}

const char *kc_topic_name_invalid(kc_str_t name)
{
    if (name.len < 0 || (name.len > 0 && !name.ptr))
        return "Topic name is invalid: null is not allowed";
    if (name.len == 0)
        return "Topic name is invalid: the empty string is not allowed";
    if (name.len == 1 && name.ptr[0] == '.')
        return "Topic name is invalid: '.' is not allowed";
    if (name.len == 2 && name.ptr[0] == '.' && name.ptr[1] == '.')
        return "Topic name is invalid: '..' is not allowed";
    if (name.len > TOPIC_NAME_MAX)
        return "Topic name is invalid: longer than the max allowed length 249";
    for (int32_t i = 0; i < name.len; i++) {
        char c = name.ptr[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            return "Topic name is invalid: contains one or more characters other than ASCII "
                   "alphanumerics, '.', '_' and '-'";
    }
    return NULL;
}

const kc_topic_t *kc_topics_find_collision(const kc_topics_t *t, kc_str_t name)
{
    if (name.len <= 0 || !name.ptr ||
        (!memchr(name.ptr, '.', (size_t)name.len) && !memchr(name.ptr, '_', (size_t)name.len)))
        return NULL;
    for (size_t i = 0; i < t->count; i++) {
        const char *o = t->order[i]->pub.name;
        if (strlen(o) != (size_t)name.len || memcmp(o, name.ptr, (size_t)name.len) == 0)
            continue;
        bool same = true;
        for (int32_t j = 0; j < name.len && same; j++) {
            char a = o[j] == '.' ? '_' : o[j];
            char b = name.ptr[j] == '.' ? '_' : name.ptr[j];
            same = a == b;
        }
        if (same)
            return &t->order[i]->pub;
    }
    return NULL;
}

/* True when Kafka's Uuid.toString (URL-safe base64, no padding) has a '-'. */
static bool uuid_text_has_dash(const kc_uuid_t *id)
{
    /* 128 bits make 22 sextets; the last holds 2 bits and cannot be 62. */
    for (int bit = 0; bit + 6 <= 128; bit += 6) {
        unsigned v = 0;
        for (int k = 0; k < 6; k++) {
            int pos = bit + k;
            v = (v << 1) | ((id->b[pos / 8] >> (7 - pos % 8)) & 1u);
        }
        if (v == 62)
            return true;
    }
    return false;
}

int kc_topic_id_random(kc_uuid_t *out)
{
    for (int attempt = 0; attempt < 1000; attempt++) {
        if (RAND_bytes(out->b, 16) != 1)
            return KC_EIO;
        out->b[6] = (uint8_t)((out->b[6] & 0x0f) | 0x40); /* version 4 */
        out->b[8] = (uint8_t)((out->b[8] & 0x3f) | 0x80); /* IETF variant */
        /* The version bits rule out Kafka's reserved ids 0 and 1. */
        if (!uuid_text_has_dash(out))
            return 0;
    }
    return KC_EIO;
}

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static int persist(kc_topics_t *t, const topic_t *tp)
{
    if (!t->store)
        return 0;
    size_t nl = strlen(tp->pub.name);
    kc_buf_t b;
    kc_buf_init(&b);
    uint8_t hdr[4];
    put_u16(hdr, TOPIC_VALUE_VERSION);
    put_u16(hdr + 2, (uint16_t)nl);
    kc_buf_append(&b, hdr, 4);
    kc_buf_append(&b, tp->pub.name, nl);
    kc_buf_append(&b, tp->pub.id.b, 16);
    uint8_t num[8];
    uint32_t parts = (uint32_t)tp->pub.partitions;
    for (int i = 0; i < 4; i++)
        num[i] = (uint8_t)(parts >> (24 - 8 * i));
    kc_buf_append(&b, num, 4);
    for (int i = 0; i < 8; i++)
        num[i] = (uint8_t)(tp->seq >> (56 - 8 * i));
    kc_buf_append(&b, num, 8);
    put_u16(num, (uint16_t)tp->pub.nconfigs);
    kc_buf_append(&b, num, 2);
    for (size_t i = 0; i < tp->pub.nconfigs; i++) {
        size_t kl = strlen(tp->pub.config_names[i]), vl = strlen(tp->pub.config_values[i]);
        put_u16(num, (uint16_t)kl);
        kc_buf_append(&b, num, 2);
        kc_buf_append(&b, tp->pub.config_names[i], kl);
        for (int j = 0; j < 4; j++)
            num[j] = (uint8_t)((uint32_t)vl >> (24 - 8 * j));
        kc_buf_append(&b, num, 4);
        kc_buf_append(&b, tp->pub.config_values[i], vl);
    }
    int rc = kc_store_topic_put(t->store, tp->pub.name, b.data, b.len);
    kc_buf_deinit(&b);
    return rc;
}

static topic_t *add(kc_topics_t *t, const char *name, size_t len, kc_uuid_t id, int32_t parts,
                    uint64_t seq)
{
    topic_t *tp = kc_xcalloc(1, sizeof(*tp));
    tp->pub.name = kc_xstrndup(name, len);
    tp->pub.id = id;
    tp->pub.partitions = parts;
    tp->seq = seq;
    grow_tables(t);
    if (t->count == t->order_cap) {
        t->order_cap = t->order_cap ? t->order_cap * 2 : 16;
        t->order = kc_xrealloc(t->order, t->order_cap * sizeof(*t->order));
    }
    /* Keep creation order even when loaded out of order. */
    size_t at = t->count;
    while (at > 0 && t->order[at - 1]->seq > seq)
        at--;
    memmove(t->order + at + 1, t->order + at, (t->count - at) * sizeof(*t->order));
    t->order[at] = tp;
    t->count++;
    table_insert(t->by_name, t->hcap, tp, false);
    table_insert(t->by_id, t->hcap, tp, true);
    if (seq >= t->next_seq)
        t->next_seq = seq + 1;
    return tp;
}

static void drop(kc_topics_t *t, topic_t *tp)
{
    table_remove(t->by_name, t->hcap, tp, false);
    table_remove(t->by_id, t->hcap, tp, true);
    for (size_t i = 0; i < t->count; i++) {
        if (t->order[i] == tp) {
            memmove(t->order + i, t->order + i + 1, (t->count - i - 1) * sizeof(*t->order));
            t->count--;
            break;
        }
    }
    free(tp->pub.name);
    configs_free(&tp->pub);
    free(tp);
}

/* Parses the configs of a version 1 entry; false when malformed. */
static bool parse_configs(kc_topic_t *pub, const uint8_t *p, size_t n)
{
    if (n < 2)
        return false;
    size_t cnt = (size_t)((p[0] << 8) | p[1]);
    p += 2;
    n -= 2;
    if (cnt > TOPIC_CONFIG_MAX)
        return false;
    pub->config_names = kc_xcalloc(cnt ? cnt : 1, sizeof(char *));
    pub->config_values = kc_xcalloc(cnt ? cnt : 1, sizeof(char *));
    for (size_t i = 0; i < cnt; i++) {
        if (n < 2)
            return false;
        size_t kl = (size_t)((p[0] << 8) | p[1]);
        if (n < 2 + kl + 4)
            return false;
        const uint8_t *kp = p + 2;
        const uint8_t *q = kp + kl;
        size_t vl = ((size_t)q[0] << 24) | ((size_t)q[1] << 16) | ((size_t)q[2] << 8) | q[3];
        if (n - (2 + kl + 4) < vl)
            return false;
        pub->config_names[i] = kc_xstrndup((const char *)kp, kl);
        pub->config_values[i] = kc_xstrndup((const char *)q + 4, vl);
        pub->nconfigs = i + 1;
        p = q + 4 + vl;
        n -= 2 + kl + 4 + vl;
    }
    return n == 0;
}

static int load_one(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *v, size_t n)
{
    kc_topics_t *t = ctx;
    int version = n >= 4 ? (v[0] << 8) | v[1] : -1;
    if (version != 0 && version != 1)
        goto bad;
    size_t nl = (size_t)((v[2] << 8) | v[3]);
    size_t fixed = 4 + nl + 16 + 4 + 8;
    if ((version == 0 ? n != fixed : n < fixed) || nl != key_len || memcmp(v + 4, key, nl) != 0)
        goto bad;
    const uint8_t *p = v + 4 + nl;
    kc_uuid_t id;
    memcpy(id.b, p, 16);
    p += 16;
    int32_t parts = (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
                              ((uint32_t)p[2] << 8) | p[3]);
    p += 4;
    uint64_t seq = 0;
    for (int i = 0; i < 8; i++)
        seq = (seq << 8) | p[i];
    if (kc_topic_name_invalid((kc_str_t){(const char *)key, (int32_t)nl}) || parts < 1)
        goto bad;
    if (find_name(t, (const char *)key, nl) || kc_topics_find_id(t, id))
        return 0; /* already known */
    kc_topic_t cfg = {0};
    if (version == 1 && !parse_configs(&cfg, v + fixed, n - fixed)) {
        configs_free(&cfg);
        goto bad;
    }
    topic_t *tp = add(t, (const char *)key, nl, id, parts, seq);
    tp->pub.nconfigs = cfg.nconfigs;
    tp->pub.config_names = cfg.config_names;
    tp->pub.config_values = cfg.config_values;
    return 0;
bad:
    kc_log_error("storage", "unreadable topic entry %.*s", (int)KC_MIN(key_len, 249),
                 (const char *)key);
    return KC_EIO;
}

int kc_topics_load(kc_topics_t *t)
{
    if (!t->store)
        return 0;
    int rc = kc_store_topics_foreach(t->store, load_one, t);
    return rc ? KC_EIO : 0;
}

int kc_topics_create(kc_topics_t *t, kc_str_t name, int32_t partitions, const kc_topic_t **out)
{
    if (out)
        *out = NULL;
    if (kc_topic_name_invalid(name) || partitions < 1)
        return KC_EINVAL;
    topic_t *old = find_name(t, name.ptr, (size_t)name.len);
    if (old) {
        if (out)
            *out = &old->pub;
        return KC_EEXIST;
    }
    kc_uuid_t id;
    do {
        if (kc_topic_id_random(&id))
            return KC_EIO;
    } while (kc_topics_find_id(t, id));
    topic_t *tp = add(t, name.ptr, (size_t)name.len, id, partitions, t->next_seq);
    int rc = persist(t, tp);
    if (rc) {
        drop(t, tp);
        return rc;
    }
    if (out)
        *out = &tp->pub;
    return 0;
}

int kc_topics_set_partitions(kc_topics_t *t, kc_str_t name, int32_t partitions)
{
    topic_t *tp = name.len > 0 && name.ptr ? find_name(t, name.ptr, (size_t)name.len) : NULL;
    if (!tp)
        return KC_ENOENT;
    if (partitions <= tp->pub.partitions)
        return KC_EINVAL;
    int32_t before = tp->pub.partitions;
    tp->pub.partitions = partitions;
    int rc = persist(t, tp);
    if (rc)
        tp->pub.partitions = before;
    return rc;
}

int kc_topics_set_configs(kc_topics_t *t, kc_str_t name, size_t n, const kc_str_t *names,
                          const kc_str_t *values)
{
    topic_t *tp = name.len > 0 && name.ptr ? find_name(t, name.ptr, (size_t)name.len) : NULL;
    if (!tp)
        return KC_ENOENT;
    if (n > TOPIC_CONFIG_MAX)
        return KC_EINVAL;
    kc_topic_t old = tp->pub;
    tp->pub.nconfigs = n;
    tp->pub.config_names = kc_xcalloc(n ? n : 1, sizeof(char *));
    tp->pub.config_values = kc_xcalloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        tp->pub.config_names[i] = kc_xstrndup(names[i].ptr ? names[i].ptr : "",
                                              names[i].len > 0 ? (size_t)names[i].len : 0);
        tp->pub.config_values[i] = kc_xstrndup(values[i].ptr ? values[i].ptr : "",
                                               values[i].len > 0 ? (size_t)values[i].len : 0);
    }
    int rc = persist(t, tp);
    if (rc) {
        configs_free(&tp->pub);
        tp->pub.nconfigs = old.nconfigs;
        tp->pub.config_names = old.config_names;
        tp->pub.config_values = old.config_values;
        return rc;
    }
    configs_free(&old);
    return 0;
}

const char *kc_topic_config(const kc_topic_t *topic, const char *name)
{
    for (size_t i = topic->nconfigs; i-- > 0;)
        if (strcmp(topic->config_names[i], name) == 0)
            return topic->config_values[i];
    return NULL;
}

int kc_topics_delete(kc_topics_t *t, kc_str_t name)
{
    topic_t *tp = name.len > 0 && name.ptr ? find_name(t, name.ptr, (size_t)name.len) : NULL;
    if (!tp)
        return KC_ENOENT;
    if (t->store) {
        int rc = kc_store_topic_put(t->store, tp->pub.name, NULL, 0);
        if (rc)
            return rc;
    }
    drop(t, tp);
    return 0;
}
