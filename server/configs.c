/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Topic and broker configuration as Kafka reports it: the names a topic
 * config may have (LogConfig), the checks CreateTopics applies to them, the
 * effective retention of a topic, and DescribeConfigs for topics (resource
 * type 2) and this broker (type 4), with Kafka's sources, read-only flags and
 * synonyms (ConfigHelper.describeConfigs). Does not alter configs
 * (IncrementalAlterConfigs is not served).
 */
#include "server_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"

#define RESOURCE_TOPIC 2
#define RESOURCE_BROKER 4

/* DescribeConfigsResponse.ConfigSource */
enum {
    SRC_TOPIC_CONFIG = 1,
    SRC_STATIC_BROKER_CONFIG = 4,
    SRC_DEFAULT_CONFIG = 5,
};

/* DescribeConfigsResponse.ConfigType */
enum { TYPE_BOOLEAN = 1, TYPE_STRING = 2, TYPE_INT = 3, TYPE_LONG = 5, TYPE_LIST = 7 };

/* DescribeConfigsResponse.ConfigType values not above */
enum { TYPE_DOUBLE = 6 };

/*
 * Every topic config of Kafka 3.9's LogConfig (a superset of 4.x), sorted by
 * name, with its type and default, and the broker property supplying the
 * default where kcoord has that property (ServerTopicConfigSynonyms); the
 * others always have LogConfig's default.
 */
typedef struct {
    const char *name;
    int8_t type;
    const char *default_value;
    const char *broker_name; /* NULL: not a kcoord property */
} topic_entry_t;

#define LONG_MAX_STR "9223372036854775807"

static const topic_entry_t topic_entries[] = {
    {"cleanup.policy", TYPE_LIST, "delete", "log.cleanup.policy"},
    {"compression.gzip.level", TYPE_INT, "-1", NULL},
    {"compression.lz4.level", TYPE_INT, "9", NULL},
    {"compression.type", TYPE_STRING, "producer", NULL},
    {"compression.zstd.level", TYPE_INT, "3", NULL},
    {"delete.retention.ms", TYPE_LONG, "86400000", NULL},
    {"file.delete.delay.ms", TYPE_LONG, "60000", NULL},
    {"flush.messages", TYPE_LONG, LONG_MAX_STR, "log.flush.interval.messages"},
    {"flush.ms", TYPE_LONG, LONG_MAX_STR, "log.flush.interval.ms"},
    {"follower.replication.throttled.replicas", TYPE_LIST, "", NULL},
    {"index.interval.bytes", TYPE_INT, "4096", NULL},
    {"leader.replication.throttled.replicas", TYPE_LIST, "", NULL},
    {"local.retention.bytes", TYPE_LONG, "-2", NULL},
    {"local.retention.ms", TYPE_LONG, "-2", NULL},
    {"max.compaction.lag.ms", TYPE_LONG, LONG_MAX_STR, NULL},
    {"max.message.bytes", TYPE_INT, "1048588", "message.max.bytes"},
    {"message.downconversion.enable", TYPE_BOOLEAN, "true", NULL},
    {"message.format.version", TYPE_STRING, "3.0-IV1", NULL},
    {"message.timestamp.after.max.ms", TYPE_LONG, "3600000", "log.message.timestamp.after.max.ms"},
    {"message.timestamp.before.max.ms", TYPE_LONG, LONG_MAX_STR,
     "log.message.timestamp.before.max.ms"},
    {"message.timestamp.difference.max.ms", TYPE_LONG, LONG_MAX_STR, NULL},
    {"message.timestamp.type", TYPE_STRING, "CreateTime", NULL},
    {"min.cleanable.dirty.ratio", TYPE_DOUBLE, "0.5", NULL},
    {"min.compaction.lag.ms", TYPE_LONG, "0", NULL},
    {"min.insync.replicas", TYPE_INT, "1", NULL},
    {"preallocate", TYPE_BOOLEAN, "false", NULL},
    {"remote.log.copy.disable", TYPE_BOOLEAN, "false", NULL},
    {"remote.log.delete.on.disable", TYPE_BOOLEAN, "false", NULL},
    {"remote.storage.enable", TYPE_BOOLEAN, "false", NULL},
    {"retention.bytes", TYPE_LONG, "-1", "log.retention.bytes"},
    {"retention.ms", TYPE_LONG, "604800000", "log.retention.ms"},
    {"segment.bytes", TYPE_INT, "1073741824", NULL},
    {"segment.index.bytes", TYPE_INT, "10485760", NULL},
    {"segment.jitter.ms", TYPE_LONG, "0", NULL},
    {"segment.ms", TYPE_LONG, "604800000", NULL},
    {"unclean.leader.election.enable", TYPE_BOOLEAN, "false", NULL},
};

/* Broker properties kcoord reports (its own properties, e.g. lmdb.map.size.bytes, are not Kafka's). */
typedef struct {
    const char *name;
    int8_t type;
    bool dynamic; /* DynamicBrokerConfig.AllDynamicConfigs: reported read-only = false */
} broker_entry_t;

static const broker_entry_t broker_entries[] = {
    {"advertised.listeners", TYPE_STRING, true},
    {"auto.create.topics.enable", TYPE_BOOLEAN, false},
    {"connections.max.idle.ms", TYPE_LONG, false},
    {"default.replication.factor", TYPE_INT, false},
    {"group.initial.rebalance.delay.ms", TYPE_INT, false},
    {"group.max.session.timeout.ms", TYPE_INT, false},
    {"group.max.size", TYPE_INT, false},
    {"group.min.session.timeout.ms", TYPE_INT, false},
    {"listeners", TYPE_STRING, true},
    {"log.cleanup.policy", TYPE_LIST, true},
    {"log.dirs", TYPE_STRING, false},
    {"log.flush.interval.messages", TYPE_LONG, true},
    {"log.flush.interval.ms", TYPE_LONG, true},
    {"log.flush.scheduler.interval.ms", TYPE_LONG, true},
    {"log.message.timestamp.after.max.ms", TYPE_LONG, true},
    {"log.message.timestamp.before.max.ms", TYPE_LONG, true},
    {"log.retention.bytes", TYPE_LONG, true},
    {"log.retention.check.interval.ms", TYPE_LONG, false},
    {"log.retention.hours", TYPE_INT, false},
    {"log.retention.minutes", TYPE_INT, false},
    {"log.retention.ms", TYPE_LONG, true},
    {"max.incremental.fetch.session.cache.slots", TYPE_INT, false},
    {"message.max.bytes", TYPE_INT, true},
    {"node.id", TYPE_INT, false},
    {"num.partitions", TYPE_INT, false},
    {"offset.metadata.max.bytes", TYPE_INT, false},
    {"offsets.retention.check.interval.ms", TYPE_LONG, false},
    {"offsets.retention.minutes", TYPE_INT, false},
    {"socket.request.max.bytes", TYPE_INT, false},
};

/* ---- broker values ---- */

/*
 * The static (given by a source) and default values of a broker property;
 * NULL where there is none (log.retention.ms and .minutes default to null,
 * as an empty value does). Strings are written to the buffers.
 */
static void broker_values(const kc_config_t *cfg, const char *name, char *stat, char *dflt,
                          size_t len, const char **stat_out, const char **dflt_out)
{
    *stat_out = *dflt_out = NULL;
    if (strcmp(name, "log.cleanup.policy") == 0) {
        snprintf(dflt, len, "delete");
        *dflt_out = dflt;
        return;
    }
    bool set = false;
    if (!kc_config_value_string(cfg, name, stat, len, &set))
        return;
    const kc_conf_property_t *p = kc_config_property_find(name);
    if (set && stat[0])
        *stat_out = stat;
    if (p && p->default_value[0]) {
        snprintf(dflt, len, "%s", p->default_value);
        *dflt_out = dflt;
    }
}

/* Broker synonyms of a property (DynamicBrokerConfig.brokerConfigSynonyms). */
static size_t broker_synonym_names(const char *name, const char **out)
{
    out[0] = name;
    if (strcmp(name, "log.retention.ms") == 0) {
        out[1] = "log.retention.minutes";
        out[2] = "log.retention.hours";
        return 3;
    }
    if (strcmp(name, "log.flush.interval.ms") == 0) {
        out[1] = "log.flush.scheduler.interval.ms";
        return 2;
    }
    return 1;
}

typedef struct {
    kc_str_t name, value;
    int8_t source;
} synonym_t;

/*
 * ConfigHelper.configSynonyms on a broker without dynamic configs: the static
 * values of the synonyms, then their defaults; for a broker property
 * (own_name) without the leading entries that are not name itself. Returns
 * the count (<= 6) written to out.
 */
static size_t broker_synonyms(const kc_config_t *cfg, kc_arena_t *a, const char *name,
                              bool own_name, synonym_t *out)
{
    const char *names[3];
    size_t nn = broker_synonym_names(name, names);
    synonym_t all[6];
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nn; i++) {
            char sb[512], db[512];
            const char *sv, *dv;
            broker_values(cfg, names[i], sb, db, sizeof(sb), &sv, &dv);
            const char *v = pass == 0 ? sv : dv;
            if (!v)
                continue;
            size_t vl = strlen(v);
            char *copy = kc_arena_alloc(a, vl + 1);
            memcpy(copy, v, vl + 1);
            all[n++] = (synonym_t){kc_str(names[i]), (kc_str_t){copy, (int32_t)vl},
                                   pass == 0 ? SRC_STATIC_BROKER_CONFIG : SRC_DEFAULT_CONFIG};
        }
    }
    size_t start = 0;
    while (own_name && start < n && strcmp(all[start].name.ptr, name) != 0)
        start++;
    memcpy(out, all + start, (n - start) * sizeof(*out));
    return n - start;
}

/* ---- topic values ---- */

int64_t kc_topic_retention_ms(const kc_server_t *s, const kc_topic_t *topic)
{
    const char *v = topic ? kc_topic_config(topic, "retention.ms") : NULL;
    if (v)
        return strtoll(v, NULL, 10);
    return kc_config_log_retention_ms(s->cfg, NULL);
}

int64_t kc_topic_retention_bytes(const kc_server_t *s, const kc_topic_t *topic)
{
    const char *v = topic ? kc_topic_config(topic, "retention.bytes") : NULL;
    if (v)
        return strtoll(v, NULL, 10);
    return s->cfg->log_retention_bytes;
}

int64_t kc_topic_flush_messages(const kc_server_t *s, const kc_topic_t *topic)
{
    const char *v = topic ? kc_topic_config(topic, "flush.messages") : NULL;
    if (v)
        return strtoll(v, NULL, 10);
    return s->cfg->log_flush_interval_messages;
}

int64_t kc_topic_flush_ms(const kc_server_t *s, const kc_topic_t *topic)
{
    const char *v = topic ? kc_topic_config(topic, "flush.ms") : NULL;
    if (v)
        return strtoll(v, NULL, 10);
    return kc_config_log_flush_ms(s->cfg);
}

/* The value a topic has for entry e when it has no override (LogConfig from the broker). */
static void topic_default_value(const kc_server_t *s, const topic_entry_t *e, char *out,
                                size_t len)
{
    if (strcmp(e->name, "retention.ms") == 0)
        snprintf(out, len, "%lld", (long long)kc_config_log_retention_ms(s->cfg, NULL));
    else if (strcmp(e->name, "flush.ms") == 0)
        snprintf(out, len, "%lld", (long long)kc_config_log_flush_ms(s->cfg));
    else if (!e->broker_name || !kc_config_value_string(s->cfg, e->broker_name, out, len, NULL))
        snprintf(out, len, "%s", e->default_value);
}

static bool parse_long(const char *v, int64_t lo, int64_t *out)
{
    if (!*v)
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || x < lo)
        return false;
    *out = x;
    return true;
}

/* Numeric topic configs kcoord acts on, with LogConfig's type and lower bound. */
typedef struct {
    const char *name;
    bool is_int; /* INT, else LONG */
    int64_t min;
} numeric_check_t;

static const numeric_check_t numeric_checks[] = {
    {"flush.messages", false, 1},
    {"flush.ms", false, 0},
    {"max.message.bytes", true, 0},
    {"retention.bytes", false, INT64_MIN},
    {"retention.ms", false, -1},
};

int16_t kc_topic_configs_check(size_t n, const kc_str_t *names, const kc_str_t *values,
                               char *msg, size_t msglen)
{
    for (size_t i = 0; i < n; i++) {
        kc_str_t nm = names[i];
        bool known = false;
        for (size_t j = 0; j < KC_ARRAY_LEN(topic_entries) && !known; j++)
            known = kc_str_eq(nm, kc_str(topic_entries[j].name));
        int nl = nm.len > 0 ? (int)KC_MIN(nm.len, 249) : 0;
        const char *np = nm.ptr ? nm.ptr : "";
        if (!known) {
            /* LogConfig.validateNames */
            snprintf(msg, msglen, "Unknown topic config name: %.*s", nl, np);
            return KC_ERR_INVALID_CONFIG;
        }
        if (kc_str_is_null(values[i])) {
            snprintf(msg, msglen, "Null value not supported for topic configs: %.*s", nl, np);
            return KC_ERR_INVALID_CONFIG;
        }
        const numeric_check_t *nc = NULL;
        for (size_t j = 0; j < KC_ARRAY_LEN(numeric_checks) && !nc; j++)
            if (kc_str_eq(nm, kc_str(numeric_checks[j].name)))
                nc = &numeric_checks[j];
        if (nc) {
            char buf[32];
            int vl = values[i].len;
            const char *vp = values[i].ptr ? values[i].ptr : "";
            /* Kafka trims, then parses the number, then checks the range. */
            int a = 0, b = vl;
            while (a < b && (vp[a] == ' ' || vp[a] == '\t'))
                a++;
            while (b > a && (vp[b - 1] == ' ' || vp[b - 1] == '\t'))
                b--;
            int64_t x = 0;
            bool parsed = b - a > 0 && b - a < (int)sizeof(buf);
            if (parsed) {
                memcpy(buf, vp + a, (size_t)(b - a));
                buf[b - a] = '\0';
                parsed = parse_long(buf, nc->is_int ? INT32_MIN : INT64_MIN, &x) &&
                         (!nc->is_int || x <= INT32_MAX);
            }
            if (!parsed || x < nc->min) {
                char why[64];
                if (parsed)
                    snprintf(why, sizeof(why), "Value must be at least %lld", (long long)nc->min);
                else
                    snprintf(why, sizeof(why), "Not a number of type %s", nc->is_int ? "INT" : "LONG");
                snprintf(msg, msglen, "Invalid value %.*s for configuration %.*s: %s",
                         (int)KC_MIN(KC_MAX(vl, 0), 64), vp, nl, np, why);
                return KC_ERR_INVALID_CONFIG;
            }
        }
    }
    return KC_ERR_NONE;
}

/* ---- DescribeConfigs ---- */

static kc_str_t arena_copy(kc_arena_t *a, const char *s)
{
    size_t n = strlen(s);
    char *p = kc_arena_alloc(a, n + 1);
    memcpy(p, s, n + 1);
    return (kc_str_t){p, (int32_t)n};
}

static bool wanted(const kc_describe_configs_request_describe_configs_resource_t *r,
                   const char *name)
{
    if (r->configuration_keys.count <= 0)
        return true; /* null or empty: every config */
    for (int32_t i = 0; i < r->configuration_keys.count; i++)
        if (kc_str_eq(r->configuration_keys.items[i], kc_str(name)))
            return true;
    return false;
}

typedef kc_describe_configs_response_describe_configs_resource_result_t entry_t;

static void fill_entry(kc_arena_t *a, entry_t *e, const char *name, kc_str_t value,
                       bool read_only, int8_t type, const synonym_t *syn, size_t nsyn,
                       bool include_synonyms)
{
    memset(e, 0, sizeof(*e));
    e->name = kc_str(name);
    e->value = value;
    e->read_only = read_only;
    e->config_source = nsyn ? syn[0].source : SRC_DEFAULT_CONFIG;
    e->is_default = e->config_source == SRC_DEFAULT_CONFIG;
    e->is_sensitive = false;
    e->config_type = type;
    e->documentation = KC_STR_NULL;
    size_t n = include_synonyms ? nsyn : 0;
    e->synonyms.items = kc_arena_alloc(a, (n ? n : 1) * sizeof(*e->synonyms.items));
    e->synonyms.count = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        e->synonyms.items[i].name = syn[i].name;
        e->synonyms.items[i].value = syn[i].value;
        e->synonyms.items[i].source = syn[i].source;
    }
}

/*
 * The effective value of topic config te (LogConfig over the broker's
 * properties): the topic's override over (NULL: none), else the broker
 * synonym's value, else LogConfig's default; and its synonyms, the override
 * first (at most 7 written to syn). Returns the number of synonyms; the
 * first one's source is the entry's (none: DEFAULT_CONFIG).
 */
static size_t effective_topic_config(const kc_server_t *s, kc_arena_t *a, const topic_entry_t *te,
                                     const char *over, kc_str_t *value, synonym_t *syn)
{
    size_t nsyn = 0;
    if (over) {
        *value = arena_copy(a, over);
        syn[nsyn++] = (synonym_t){kc_str(te->name), *value, SRC_TOPIC_CONFIG};
    } else {
        char buf[512];
        topic_default_value(s, te, buf, sizeof(buf));
        *value = arena_copy(a, buf);
    }
    if (te->broker_name)
        nsyn += broker_synonyms(s->cfg, a, te->broker_name, false, syn + nsyn);
    return nsyn;
}

void kc_topic_creation_configs(const kc_server_t *s, kc_arena_t *a, size_t n,
                               const kc_str_t *names, const kc_str_t *values,
                               kc_create_topics_response_creatable_topic_result_t *r)
{
    r->configs.items = kc_arena_alloc(a, KC_ARRAY_LEN(topic_entries) * sizeof(*r->configs.items));
    r->configs.count = (int32_t)KC_ARRAY_LEN(topic_entries);
    for (size_t i = 0; i < KC_ARRAY_LEN(topic_entries); i++) {
        const topic_entry_t *te = &topic_entries[i];
        char *over = NULL;
        for (size_t j = 0; j < n; j++) { /* the last one wins, as in Kafka's map */
            if (!kc_str_eq(names[j], kc_str(te->name)))
                continue;
            size_t vl = (size_t)KC_MAX(values[j].len, 0);
            over = kc_arena_alloc(a, vl + 1);
            if (vl)
                memcpy(over, values[j].ptr, vl);
            over[vl] = '\0';
        }
        synonym_t syn[7];
        kc_str_t value;
        size_t nsyn = effective_topic_config(s, a, te, over, &value, syn);
        kc_create_topics_response_creatable_topic_configs_t *c = &r->configs.items[i];
        memset(c, 0, sizeof(*c));
        c->name = kc_str(te->name);
        c->value = value;
        c->read_only = false;
        c->config_source = nsyn ? syn[0].source : SRC_DEFAULT_CONFIG;
        c->is_sensitive = false;
    }
}

static void describe_topic(kc_server_t *s, kc_arena_t *a,
                           const kc_describe_configs_request_describe_configs_resource_t *r,
                           bool include_synonyms,
                           kc_describe_configs_response_describe_configs_result_t *out)
{
    const char *bad = kc_topic_name_invalid(r->resource_name);
    if (bad) {
        out->error_code = KC_ERR_INVALID_TOPIC_EXCEPTION;
        out->error_message = arena_copy(a, bad);
        return;
    }
    const kc_topic_t *topic = kc_topics_find(s->topics, r->resource_name);
    if (!topic) {
        out->error_code = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    entry_t *items = kc_arena_alloc(a, KC_ARRAY_LEN(topic_entries) * sizeof(*items));
    size_t n = 0;
    for (size_t i = 0; i < KC_ARRAY_LEN(topic_entries); i++) {
        const topic_entry_t *te = &topic_entries[i];
        if (!wanted(r, te->name))
            continue;
        synonym_t syn[7];
        kc_str_t value;
        size_t nsyn = effective_topic_config(s, a, te, kc_topic_config(topic, te->name), &value,
                                             syn);
        fill_entry(a, &items[n++], te->name, value, false, te->type, syn, nsyn,
                   include_synonyms);
    }
    out->configs.items = items;
    out->configs.count = (int32_t)n;
}

static void describe_broker(kc_server_t *s, kc_arena_t *a,
                            const kc_describe_configs_request_describe_configs_resource_t *r,
                            bool include_synonyms,
                            kc_describe_configs_response_describe_configs_result_t *out)
{
    kc_str_t nm = r->resource_name;
    if (nm.len <= 0) {
        /* Dynamic cluster-wide defaults: kcoord has none. */
        out->configs.count = 0;
        return;
    }
    char buf[32];
    char *end = NULL;
    long id = -1;
    if (nm.len < (int32_t)sizeof(buf)) {
        memcpy(buf, nm.ptr, (size_t)nm.len);
        buf[nm.len] = '\0';
        errno = 0;
        id = strtol(buf, &end, 10);
    }
    char msg[320];
    if (nm.len >= (int32_t)sizeof(buf) || errno || !end || *end || end == buf) {
        snprintf(msg, sizeof(msg), "Broker id must be an integer, but it is: %.*s",
                 (int)KC_MIN(nm.len, 200), nm.ptr);
        out->error_code = KC_ERR_INVALID_REQUEST;
        out->error_message = arena_copy(a, msg);
        return;
    }
    if (id != s->cfg->node_id) {
        snprintf(msg, sizeof(msg),
                 "Unexpected broker id, expected %d or empty string, but received %.*s",
                 s->cfg->node_id, (int)nm.len, nm.ptr);
        out->error_code = KC_ERR_INVALID_REQUEST;
        out->error_message = arena_copy(a, msg);
        return;
    }
    entry_t *items = kc_arena_alloc(a, KC_ARRAY_LEN(broker_entries) * sizeof(*items));
    size_t n = 0;
    for (size_t i = 0; i < KC_ARRAY_LEN(broker_entries); i++) {
        const broker_entry_t *be = &broker_entries[i];
        if (!wanted(r, be->name))
            continue;
        char sb[512], db[512];
        const char *sv, *dv;
        broker_values(s->cfg, be->name, sb, db, sizeof(sb), &sv, &dv);
        const char *cur = sv ? sv : dv; /* null for an unset property without default */
        synonym_t syn[6];
        size_t nsyn = broker_synonyms(s->cfg, a, be->name, true, syn);
        fill_entry(a, &items[n++], be->name, cur ? arena_copy(a, cur) : KC_STR_NULL, !be->dynamic,
                   be->type, syn, nsyn, include_synonyms);
    }
    out->configs.items = items;
    out->configs.count = (int32_t)n;
}

int kc_handle_describe_configs(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_describe_configs_request_t rq;
    kc_describe_configs_request_init(&rq);
    if (kc_describe_configs_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_describe_configs_response_t resp;
    kc_describe_configs_response_init(&resp);
    resp.throttle_time_ms = 0;
    int32_t n = KC_MAX(rq.resources.count, 0);
    resp.results.items = kc_arena_alloc(req->arena, (size_t)(n ? n : 1) * sizeof(*resp.results.items));
    resp.results.count = n;
    /* v0 has no IncludeSynonyms and answers without synonyms. */
    bool syn = v >= 1 && rq.include_synonyms;
    for (int32_t i = 0; i < n; i++) {
        const kc_describe_configs_request_describe_configs_resource_t *r = &rq.resources.items[i];
        kc_describe_configs_response_describe_configs_result_t *out = &resp.results.items[i];
        memset(out, 0, sizeof(*out));
        out->resource_type = r->resource_type;
        out->resource_name = r->resource_name;
        /* The generated Java default of ErrorMessage is "", not null. */
        out->error_message = kc_str("");
        out->configs.count = 0;
        if (r->resource_type == RESOURCE_TOPIC) {
            describe_topic(s, req->arena, r, syn, out);
        } else if (r->resource_type == RESOURCE_BROKER) {
            describe_broker(s, req->arena, r, syn, out);
        } else {
            char msg[64];
            snprintf(msg, sizeof(msg), "Unsupported resource type: %d", r->resource_type);
            out->error_code = KC_ERR_INVALID_REQUEST;
            out->error_message = arena_copy(req->arena, msg);
        }
    }
    /* IsDefault exists in v0 only (later versions carry ConfigSource instead). */
    for (int32_t i = 0; i < n && v > 0; i++)
        for (int32_t j = 0; j < resp.results.items[i].configs.count; j++)
            resp.results.items[i].configs.items[j].is_default = false;
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_describe_configs_response_encode(&b, v, &resp), &b);
}
