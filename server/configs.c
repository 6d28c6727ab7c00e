/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Topic and broker configuration as Kafka reports it: the names a topic
 * config may have (LogConfig), the checks CreateTopics and the alter APIs
 * apply to them, the effective retention of a topic, and DescribeConfigs
 * for topics (resource type 2), this broker (type 4) and groups (type 32),
 * with Kafka's sources, read-only flags, synonyms and order
 * (ConfigHelper.describeConfigs). Altering is in alter_configs.c, the group
 * configs' definitions and checks in group_configs.c.
 */
#include "server_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>

#include "kc_log.h"

#define RESOURCE_TOPIC KC_CONFIG_RESOURCE_TOPIC
#define RESOURCE_BROKER KC_CONFIG_RESOURCE_BROKER
#define RESOURCE_GROUP KC_CONFIG_RESOURCE_GROUP

/* DescribeConfigsResponse.ConfigSource */
enum {
    SRC_TOPIC_CONFIG = 1,
    SRC_STATIC_BROKER_CONFIG = 4,
    SRC_DEFAULT_CONFIG = 5,
    SRC_GROUP_CONFIG = 8,
};

/* DescribeConfigsResponse.ConfigType */
enum {
    TYPE_BOOLEAN = KC_CONFIG_TYPE_BOOLEAN,
    TYPE_STRING = KC_CONFIG_TYPE_STRING,
    TYPE_INT = KC_CONFIG_TYPE_INT,
    TYPE_LONG = KC_CONFIG_TYPE_LONG,
    TYPE_DOUBLE = KC_CONFIG_TYPE_DOUBLE,
    TYPE_LIST = KC_CONFIG_TYPE_LIST,
};

/*
 * Every topic config of Kafka 4.4's LogConfig, sorted by name, with its type
 * and default, and the broker property supplying the default
 * (ServerTopicConfigSynonyms): where kcoord has that property its value
 * applies, else it is reported with LogConfig's default (DEFAULT_CONFIG).
 */
typedef struct {
    const char *name;
    int8_t type;
    const char *default_value;
    const char *broker_name; /* the synonym; NULL: none that Kafka reports */
    int64_t min;             /* LogConfig's atLeast bound of an INT or LONG, else NO_MIN */
} topic_entry_t;

#define LONG_MAX_STR "9223372036854775807"
#define NO_MIN INT64_MIN

static const topic_entry_t topic_entries[] = {
    {"cleanup.policy", TYPE_LIST, "delete", "log.cleanup.policy", NO_MIN},
    {"compression.gzip.level", TYPE_INT, "-1", "compression.gzip.level", NO_MIN},
    {"compression.lz4.level", TYPE_INT, "9", "compression.lz4.level", NO_MIN},
    {"compression.type", TYPE_STRING, "producer", "compression.type", NO_MIN},
    {"compression.zstd.level", TYPE_INT, "3", "compression.zstd.level", NO_MIN},
    {"delete.retention.ms", TYPE_LONG, "86400000", "log.cleaner.delete.retention.ms", 0},
    {"errors.deadletterqueue.group.enable", TYPE_BOOLEAN, "false", NULL, NO_MIN},
    {"file.delete.delay.ms", TYPE_LONG, "60000", "log.segment.delete.delay.ms", 0},
    {"flush.messages", TYPE_LONG, LONG_MAX_STR, "log.flush.interval.messages", 1},
    {"flush.ms", TYPE_LONG, LONG_MAX_STR, "log.flush.interval.ms", 0},
    {"follower.replication.throttled.replicas", TYPE_LIST, "", NULL, NO_MIN},
    {"index.interval.bytes", TYPE_INT, "4096", "log.index.interval.bytes", 0},
    {"leader.replication.throttled.replicas", TYPE_LIST, "", NULL, NO_MIN},
    {"local.retention.bytes", TYPE_LONG, "-2", "log.local.retention.bytes", -2},
    {"local.retention.ms", TYPE_LONG, "-2", "log.local.retention.ms", -2},
    {"max.compaction.lag.ms", TYPE_LONG, LONG_MAX_STR, "log.cleaner.max.compaction.lag.ms", 1},
    {"max.decompressed.message.bytes", TYPE_INT, "2147483639", "max.decompressed.message.bytes", 1},
    {"max.message.bytes", TYPE_INT, "1048588", "message.max.bytes", 0},
    {"message.timestamp.after.max.ms", TYPE_LONG, "3600000",
     "log.message.timestamp.after.max.ms", 0},
    {"message.timestamp.before.max.ms", TYPE_LONG, LONG_MAX_STR,
     "log.message.timestamp.before.max.ms", 0},
    {"message.timestamp.type", TYPE_STRING, "CreateTime", "log.message.timestamp.type", NO_MIN},
    {"min.cleanable.dirty.ratio", TYPE_DOUBLE, "0.5", "log.cleaner.min.cleanable.ratio", NO_MIN},
    {"min.compaction.lag.ms", TYPE_LONG, "0", "log.cleaner.min.compaction.lag.ms", 0},
    {"min.insync.replicas", TYPE_INT, "1", NULL, 1},
    {"preallocate", TYPE_BOOLEAN, "false", "log.preallocate", NO_MIN},
    {"remote.copy.lag.bytes", TYPE_LONG, "-1", "log.remote.copy.lag.bytes", -1},
    {"remote.copy.lag.ms", TYPE_LONG, "0", "log.remote.copy.lag.ms", -1},
    {"remote.log.copy.disable", TYPE_BOOLEAN, "false", NULL, NO_MIN},
    {"remote.log.delete.on.disable", TYPE_BOOLEAN, "false", NULL, NO_MIN},
    {"remote.storage.enable", TYPE_BOOLEAN, "false", NULL, NO_MIN},
    {"retention.bytes", TYPE_LONG, "-1", "log.retention.bytes", NO_MIN},
    {"retention.ms", TYPE_LONG, "604800000", "log.retention.ms", -1},
    {"segment.bytes", TYPE_INT, "1073741824", "log.segment.bytes", 1048576},
    {"segment.index.bytes", TYPE_INT, "10485760", "log.index.size.max.bytes", 4},
    {"segment.jitter.ms", TYPE_LONG, "0", NULL, 0},
    {"segment.ms", TYPE_LONG, "604800000", "log.roll.ms", 1},
    {"unclean.leader.election.enable", TYPE_BOOLEAN, "false", "unclean.leader.election.enable", NO_MIN},
};

/* The order DescribeConfigs lists a topic's configs in: that of the
 * java.util.HashMap of LogConfig's values (ConfigHelperUtils). */
static const char *const topic_describe_order[] = {
    "compression.type", "errors.deadletterqueue.group.enable", "remote.copy.lag.bytes",
    "remote.log.delete.on.disable", "leader.replication.throttled.replicas",
    "remote.storage.enable", "min.insync.replicas", "segment.jitter.ms",
    "remote.log.copy.disable", "local.retention.ms", "cleanup.policy", "flush.ms",
    "follower.replication.throttled.replicas", "compression.lz4.level", "segment.bytes",
    "retention.ms", "compression.gzip.level", "remote.copy.lag.ms", "flush.messages",
    "compression.zstd.level", "max.compaction.lag.ms", "file.delete.delay.ms",
    "max.message.bytes", "min.compaction.lag.ms", "message.timestamp.type",
    "local.retention.bytes", "preallocate", "index.interval.bytes",
    "min.cleanable.dirty.ratio", "unclean.leader.election.enable", "retention.bytes",
    "delete.retention.ms", "message.timestamp.after.max.ms", "max.decompressed.message.bytes",
    "message.timestamp.before.max.ms", "segment.ms", "segment.index.bytes",
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
    {"log.cleaner.backoff.ms", TYPE_LONG, true},
    {"log.cleaner.dedupe.buffer.size", TYPE_LONG, true},
    {"log.cleaner.delete.retention.ms", TYPE_LONG, true},
    {"log.cleaner.enable", TYPE_BOOLEAN, false},
    {"log.cleaner.max.compaction.lag.ms", TYPE_LONG, true},
    {"log.cleaner.min.cleanable.ratio", TYPE_DOUBLE, true},
    {"log.cleaner.min.compaction.lag.ms", TYPE_LONG, true},
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
    {"log.roll.hours", TYPE_INT, true},
    {"log.roll.ms", TYPE_LONG, true},
    {"log.segment.bytes", TYPE_INT, true},
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
    if (strcmp(name, "log.roll.ms") == 0) {
        out[1] = "log.roll.hours";
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

/* The override of a numeric topic config, else dflt. */
static int64_t topic_long(const kc_topic_t *topic, const char *name, int64_t dflt)
{
    const char *v = topic ? kc_topic_config(topic, name) : NULL;
    return v ? strtoll(v, NULL, 10) : dflt;
}

/* A topic's cleanup.policy: its override, else log.cleanup.policy. */
static const char *topic_cleanup_policy(const kc_server_t *s, const kc_topic_t *topic)
{
    const char *v = topic ? kc_topic_config(topic, "cleanup.policy") : NULL;
    return v ? v : s->cfg->log_cleanup_policy;
}

bool kc_topic_cleanup_deletes(const kc_server_t *s, const kc_topic_t *topic)
{
    return strstr(topic_cleanup_policy(s, topic), "delete") != NULL; /* entries: compact, delete */
}

bool kc_topic_cleanup_compacts(const kc_server_t *s, const kc_topic_t *topic)
{
    return strstr(topic_cleanup_policy(s, topic), "compact") != NULL;
}

void kc_topic_log_config(const kc_server_t *s, const kc_topic_t *topic, kc_log_topic_config_t *cfg)
{
    cfg->max_message_bytes =
        (int32_t)topic_long(topic, "max.message.bytes", s->cfg->message_max_bytes);
    cfg->message_timestamp_before_max_ms = topic_long(
        topic, "message.timestamp.before.max.ms", s->cfg->log_message_timestamp_before_max_ms);
    cfg->message_timestamp_after_max_ms = topic_long(
        topic, "message.timestamp.after.max.ms", s->cfg->log_message_timestamp_after_max_ms);
    const char *type = topic ? kc_topic_config(topic, "message.timestamp.type") : NULL;
    cfg->log_append_time = type && strstr(type, "LogAppendTime") != NULL;
    cfg->flush_messages =
        topic_long(topic, "flush.messages", s->cfg->log_flush_interval_messages);
    cfg->flush_ms = topic_long(topic, "flush.ms", kc_config_log_flush_ms(s->cfg));
    cfg->compact = kc_topic_cleanup_compacts(s, topic);
    cfg->segment_bytes = topic_long(topic, "segment.bytes", s->cfg->log_segment_bytes);
    cfg->segment_ms = topic_long(topic, "segment.ms", kc_config_log_roll_ms(s->cfg));
    cfg->delete_retention_ms =
        topic_long(topic, "delete.retention.ms", s->cfg->log_cleaner_delete_retention_ms);
    cfg->min_compaction_lag_ms =
        topic_long(topic, "min.compaction.lag.ms", s->cfg->log_cleaner_min_compaction_lag_ms);
    cfg->max_compaction_lag_ms =
        topic_long(topic, "max.compaction.lag.ms", s->cfg->log_cleaner_max_compaction_lag_ms);
    const char *ratio = topic ? kc_topic_config(topic, "min.cleanable.dirty.ratio") : NULL;
    cfg->min_cleanable_dirty_ratio =
        ratio ? strtod(ratio, NULL) : kc_config_log_cleaner_min_cleanable_ratio(s->cfg);
}

/* The value a topic has for entry e when it has no override (LogConfig from the broker). */
static void topic_default_value(const kc_server_t *s, const topic_entry_t *e, char *out,
                                size_t len)
{
    if (strcmp(e->name, "retention.ms") == 0)
        snprintf(out, len, "%lld", (long long)kc_config_log_retention_ms(s->cfg, NULL));
    else if (strcmp(e->name, "flush.ms") == 0)
        snprintf(out, len, "%lld", (long long)kc_config_log_flush_ms(s->cfg));
    else if (strcmp(e->name, "segment.ms") == 0)
        snprintf(out, len, "%lld", (long long)kc_config_log_roll_ms(s->cfg));
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

/* True when v is one of the comma-separated words of list (exact match). */
static bool one_of(const char *v, const char *list)
{
    size_t n = strlen(v);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && memcmp(p, v, n) == 0)
            return true;
        p += l + (e ? 1 : 0);
    }
    return false;
}

/* The value without its leading and trailing whitespace (space, tab, CR,
 * LF; a NUL ends neither), as ConfigDef trims a value before parsing it:
 * its start in *start, its length returned. */
static int value_trimmed(kc_str_t value, const char **start)
{
    const char *p = value.ptr ? value.ptr : "";
    int n = KC_MAX(value.len, 0);
    while (n > 0 && strchr(" \t\r\n", *p) && *p)
        p++, n--;
    while (n > 0 && strchr(" \t\r\n", p[n - 1]) && p[n - 1])
        n--;
    *start = p;
    return n;
}

/* Where a validator reports a failure: Kafka's reason in why, and the
 * value at fault in bad_entry (left as it is where Kafka shows the value
 * as given). */
typedef struct {
    char *why;
    size_t why_len;
    char *bad_entry;
    size_t bad_len;
} value_error_t;

/* ConfigDef's parsing and validator of one trimmed topic config value
 * (buf, which it may change): false on failure, reported in e. */
typedef bool (*value_validator_fn)(const topic_entry_t *te, char *buf, value_error_t *e);

/* The bounds of LogConfig's between() validators of numeric configs
 * (compression levels, max.decompressed.message.bytes) for x. */
static bool valid_number_range(const topic_entry_t *te, int64_t x, value_error_t *e)
{
    int64_t max = INT64_MAX;
    if (strcmp(te->name, "compression.gzip.level") == 0) {
        if (x != -1 && (x < 1 || x > 9)) {
            snprintf(e->why, e->why_len, "Value must be between 1 and 9 or equal to -1");
            return false;
        }
    } else if (strcmp(te->name, "compression.lz4.level") == 0) {
        if (x < 1) {
            snprintf(e->why, e->why_len, "Value must be at least 1");
            return false;
        }
        max = 17;
    } else if (strcmp(te->name, "compression.zstd.level") == 0) {
        if (x < -131072) {
            snprintf(e->why, e->why_len, "Value must be at least -131072");
            return false;
        }
        max = 22;
    } else if (strcmp(te->name, "max.decompressed.message.bytes") == 0) {
        max = 2147483639;
    }
    if (x > max) {
        snprintf(e->why, e->why_len, "Value must be no more than %lld", (long long)max);
        return false;
    }
    return true;
}

/* ConfigDef's INT and LONG parsing, then LogConfig's atLeast bound
 * (te->min) and its between() validators. */
static bool valid_number(const topic_entry_t *te, char *buf, value_error_t *e)
{
    int64_t x;
    bool is_int = te->type == TYPE_INT;
    if (!parse_long(buf, INT64_MIN, &x) || (is_int && (x < INT32_MIN || x > INT32_MAX))) {
        snprintf(e->why, e->why_len, "Not a number of type %s", is_int ? "INT" : "LONG");
        return false;
    }
    if (x < te->min) {
        snprintf(e->why, e->why_len, "Value must be at least %lld", (long long)te->min);
        return false;
    }
    return valid_number_range(te, x, e);
}

/* ConfigDef's DOUBLE parsing and min.cleanable.dirty.ratio's between(0, 1);
 * the message shows the parsed value as Java prints a double. */
static bool valid_double(const topic_entry_t *te, char *buf, value_error_t *e)
{
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (!buf[0] || *end || errno) {
        snprintf(e->why, e->why_len, "Not a number of type DOUBLE");
        return false;
    }
    if (!(d < 0 || d > 1))
        return true;
    if (d < 0)
        snprintf(e->why, e->why_len, "Value must be at least 0");
    else
        snprintf(e->why, e->why_len, "Value must be no more than 1");
    snprintf(e->bad_entry, e->bad_len, "%.15g", d);
    if (!strpbrk(e->bad_entry, ".eEn"))
        snprintf(e->bad_entry + strlen(e->bad_entry), e->bad_len - strlen(e->bad_entry), ".0");
    return false;
}

/* ConfigDef's BOOLEAN parsing (either word, in any case). */
static bool valid_boolean(const topic_entry_t *te, char *buf, value_error_t *e)
{
    if (strcasecmp(buf, "true") == 0 || strcasecmp(buf, "false") == 0)
        return true;
    snprintf(e->why, e->why_len, "Expected value to be either true or false");
    return false;
}

/* ConfigDef.ValidString / ValidList: v is one of the comma-separated words;
 * else Kafka's "String must be one of" naming them. */
static bool valid_word(const char *v, const char *words, value_error_t *e)
{
    if (one_of(v, words))
        return true;
    size_t used = (size_t)snprintf(e->why, e->why_len, "String must be one of: ");
    for (const char *p = words; *p && used < e->why_len;) {
        const char *end = strchr(p, ',');
        int l = end ? (int)(end - p) : (int)strlen(p);
        used += (size_t)snprintf(e->why + used, e->why_len - used, "%s%.*s",
                                 p == words ? "" : ", ", l, p);
        p += l + (end ? 1 : 0);
    }
    return false;
}

/* compression.type's ValidString. */
static bool valid_compression_type(const topic_entry_t *te, char *buf, value_error_t *e)
{
    return valid_word(buf, "uncompressed,zstd,lz4,snappy,gzip,producer", e);
}

/* message.timestamp.type's ValidString. */
static bool valid_timestamp_type(const topic_entry_t *te, char *buf, value_error_t *e)
{
    return valid_word(buf, "CreateTime,LogAppendTime", e);
}

/* cleanup.policy's ValidList: each entry (trimmed of spaces) compact or
 * delete; ValidList names the offending entry as the value. */
static bool valid_cleanup_policy(const topic_entry_t *te, char *buf, value_error_t *e)
{
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ')
            tok++;
        size_t tl = strlen(tok);
        while (tl && tok[tl - 1] == ' ')
            tok[--tl] = '\0';
        if (!valid_word(tok, "compact,delete", e)) {
            snprintf(e->bad_entry, e->bad_len, "%s", tok);
            return false;
        }
    }
    return true;
}

/* One entry of a throttled replica list: empty, or partitionId:brokerId. */
static bool throttled_replica_valid(const char *tok)
{
    if (!*tok)
        return true;
    const char *c = tok;
    if (*c < '0' || *c > '9')
        return false;
    while (*c >= '0' && *c <= '9')
        c++;
    if (*c != ':' || c[1] < '0' || c[1] > '9')
        return false;
    c++;
    while (*c >= '0' && *c <= '9')
        c++;
    return *c == '\0';
}

/* ThrottledReplicaListValidator: '*' or a list of partitionId:brokerId
 * entries; the message shows the list as Java prints it ([a, b]). */
static bool valid_throttled_replicas(const topic_entry_t *te, char *buf, value_error_t *e)
{
    bool ok = strcmp(buf, "*") == 0;
    size_t used = (size_t)snprintf(e->bad_entry, e->bad_len, "[");
    bool all = true;
    char list[256];
    snprintf(list, sizeof(list), "%s", buf);
    char *save = NULL;
    bool first = true;
    for (char *tok = buf[0] ? strtok_r(list, ",", &save) : NULL; tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok && strchr(" \t", *tok))
            tok++;
        size_t tl = strlen(tok);
        while (tl && strchr(" \t", tok[tl - 1]))
            tok[--tl] = '\0';
        all = all && throttled_replica_valid(tok);
        if (used < e->bad_len)
            used += (size_t)snprintf(e->bad_entry + used, e->bad_len - used, "%s%s",
                                     first ? "" : ", ", tok);
        first = false;
    }
    if (used < e->bad_len)
        snprintf(e->bad_entry + used, e->bad_len - used, "]");
    if (ok || all)
        return true;
    snprintf(e->why, e->why_len,
             "%s must be the literal '*' or a list of replicas in the following format: "
             "[partitionId]:[brokerId],[partitionId]:[brokerId],...",
             te->name);
    return false;
}

/* The validators of LogConfig's STRING and LIST configs, by name; the
 * others accept any value. */
static const struct {
    const char *name;
    value_validator_fn fn;
} string_validators[] = {
    {"cleanup.policy", valid_cleanup_policy},
    {"compression.type", valid_compression_type},
    {"follower.replication.throttled.replicas", valid_throttled_replicas},
    {"leader.replication.throttled.replicas", valid_throttled_replicas},
    {"message.timestamp.type", valid_timestamp_type},
};

/* The parser and validator of topic config te (ConfigDef.parseType by type,
 * then the key's validator); NULL when any value is accepted. */
static value_validator_fn value_validator(const topic_entry_t *te)
{
    switch (te->type) {
    case TYPE_INT:
    case TYPE_LONG:
        return valid_number;
    case TYPE_DOUBLE:
        return valid_double;
    case TYPE_BOOLEAN:
        return valid_boolean;
    default:
        for (size_t i = 0; i < KC_ARRAY_LEN(string_validators); i++)
            if (strcmp(te->name, string_validators[i].name) == 0)
                return string_validators[i].fn;
        return NULL;
    }
}

/*
 * ConfigDef's parsing and validators for one topic config value, as
 * LogConfig.validate applies them: the value is trimmed (to at most 255
 * bytes), then parsed by type (INT, LONG, DOUBLE, BOOLEAN) and checked
 * against the lower bound, or against the accepted words (compression.type,
 * message.timestamp.type, each entry of cleanup.policy). On failure, why
 * gets Kafka's reason, and bad_entry the list entry at fault (else it is
 * left as it is).
 */
static bool config_value_valid(const topic_entry_t *te, kc_str_t value, char *why, size_t len,
                               char *bad_entry, size_t bad_len)
{
    char buf[256];
    const char *start;
    int n = value_trimmed(value, &start);
    if (n >= (int)sizeof(buf))
        n = (int)sizeof(buf) - 1;
    memcpy(buf, start, (size_t)n);
    buf[n] = '\0';
    value_error_t e = {why, len, bad_entry, bad_len};
    value_validator_fn fn = value_validator(te);
    return !fn || fn(te, buf, &e);
}

static kc_str_t arena_copy(kc_arena_t *a, const char *s);
static kc_str_t value_shown(kc_arena_t *a, int8_t type, const char *v);

/* A non-empty LIST value with an empty entry ("a,,b", "a, "). */
static bool list_has_empty_entry(kc_str_t value)
{
    const char *p;
    int n = value_trimmed(value, &p);
    if (n == 0)
        return false;
    int run = 0; /* non-space characters in the current entry */
    for (int i = 0; i <= n; i++) {
        if (i == n || p[i] == ',') {
            if (run == 0)
                return true;
            run = 0;
        } else if (!strchr(" \t\r\n", p[i])) {
            run++;
        }
    }
    return false;
}

const char *kc_topic_validate_message(kc_arena_t *a, kc_str_t name)
{
    const char *bad = kc_topic_name_invalid(name);
    if (!bad || kc_str_is_null(name) || name.len == 0 || kc_str_eq(name, kc_str(".")) ||
        kc_str_eq(name, kc_str("..")))
        return bad;
    char msg[600];
    if (name.len > 249)
        snprintf(msg, sizeof(msg),
                 "Topic name is invalid: the length of '%.*s' is longer than the max allowed "
                 "length 249",
                 (int)KC_MIN(name.len, 400), name.ptr);
    else
        snprintf(msg, sizeof(msg),
                 "Topic name is invalid: '%.*s' contains one or more characters other than ASCII "
                 "alphanumerics, '.', '_' and '-'",
                 (int)name.len, name.ptr);
    return arena_copy(a, msg).ptr;
}

bool kc_config_value_check(const char *name, int8_t type, int64_t min, const char *words,
                           kc_str_t value, char *msg, size_t len)
{
    topic_entry_t te = {name, type, "", NULL, min};
    char why[256], entry[300];
    snprintf(entry, sizeof(entry), "%.*s", (int)KC_MIN(KC_MAX(value.len, 0), 64),
             value.ptr ? value.ptr : "");
    bool ok;
    if (words) {
        char buf[256];
        const char *start;
        int n = KC_MIN(value_trimmed(value, &start), (int)sizeof(buf) - 1);
        memcpy(buf, start, (size_t)n);
        buf[n] = '\0';
        value_error_t e = {why, sizeof(why), entry, sizeof(entry)};
        ok = valid_word(buf, words, &e);
    } else {
        ok = config_value_valid(&te, value, why, sizeof(why), entry, sizeof(entry));
    }
    if (!ok)
        snprintf(msg, len, "Invalid value %s for configuration %s: %s", entry, name, why);
    return ok;
}

const char *kc_topic_config_list_default(const char *name)
{
    for (size_t j = 0; j < KC_ARRAY_LEN(topic_entries); j++)
        if (strcmp(topic_entries[j].name, name) == 0)
            return topic_entries[j].type == TYPE_LIST ? topic_entries[j].default_value : NULL;
    return NULL;
}

bool kc_topic_config_known(kc_str_t name)
{
    for (size_t j = 0; j < KC_ARRAY_LEN(topic_entries); j++)
        if (kc_str_eq(name, kc_str(topic_entries[j].name)))
            return true;
    return false;
}

int16_t kc_topic_configs_check(size_t n, const kc_str_t *names, const kc_str_t *values,
                               char *msg, size_t msglen)
{
    for (size_t i = 0; i < n; i++) {
        kc_str_t nm = names[i];
        const topic_entry_t *te = NULL;
        for (size_t j = 0; j < KC_ARRAY_LEN(topic_entries) && !te; j++)
            if (kc_str_eq(nm, kc_str(topic_entries[j].name)))
                te = &topic_entries[j];
        int nl = nm.len > 0 ? (int)KC_MIN(nm.len, 249) : 0;
        const char *np = nm.ptr ? nm.ptr : "";
        if (!te) {
            /* LogConfig.validateNames */
            snprintf(msg, msglen, "Unknown topic config name: %.*s", nl, np);
            return KC_ERR_INVALID_CONFIG;
        }
        if (kc_str_is_null(values[i])) {
            snprintf(msg, msglen, "Null value not supported for topic configs: %.*s", nl, np);
            return KC_ERR_INVALID_CONFIG;
        }
        if (te->type == TYPE_LIST && strcmp(te->name, "cleanup.policy") == 0 &&
            list_has_empty_entry(values[i])) {
            /* ConfigDef.ValidList */
            snprintf(msg, msglen, "Configuration '%s' values must not be empty.", te->name);
            return KC_ERR_INVALID_CONFIG;
        }
        char why[256], entry[300];
        int vl = KC_MAX(values[i].len, 0);
        snprintf(entry, sizeof(entry), "%.*s", (int)KC_MIN(vl, 64),
                 values[i].ptr ? values[i].ptr : "");
        if (!config_value_valid(te, values[i], why, sizeof(why), entry, sizeof(entry))) {
            snprintf(msg, msglen, "Invalid value %s for configuration %.*s: %s", entry, nl, np,
                     why);
            return KC_ERR_INVALID_CONFIG;
        }
        /* LogConfig.validate: no remote storage without tiered storage on the broker. */
        const char *tv;
        int tl = value_trimmed(values[i], &tv);
        if (strcmp(te->name, "remote.storage.enable") == 0 && tl == 4 &&
            strncasecmp(tv, "true", 4) == 0) {
            snprintf(msg, msglen, "Tiered Storage functionality is disabled in the broker. Topic "
                                  "cannot be configured with remote log storage.");
            return KC_ERR_INVALID_CONFIG;
        }
    }
    /* LogConfig.validateValues over the topic's effective values. */
    int64_t min_lag = 0, max_lag = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const char *tv;
        int tl = value_trimmed(values[i], &tv);
        char buf[32];
        if (tl <= 0 || tl >= (int)sizeof(buf))
            continue;
        memcpy(buf, tv, (size_t)tl);
        buf[tl] = '\0';
        if (kc_str_eq(names[i], kc_str("min.compaction.lag.ms")))
            min_lag = strtoll(buf, NULL, 10);
        else if (kc_str_eq(names[i], kc_str("max.compaction.lag.ms")))
            max_lag = strtoll(buf, NULL, 10);
    }
    if (min_lag > max_lag) {
        snprintf(msg, msglen,
                 "conflict topic config setting min.compaction.lag.ms (%lld) > "
                 "max.compaction.lag.ms (%lld)",
                 (long long)min_lag, (long long)max_lag);
        return KC_ERR_INVALID_CONFIG;
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
    if (te->broker_name && kc_config_property_find(te->broker_name))
        nsyn += broker_synonyms(s->cfg, a, te->broker_name, true, syn + nsyn);
    else if (te->broker_name)
        syn[nsyn++] = (synonym_t){kc_str(te->broker_name), kc_str(te->default_value),
                                  SRC_DEFAULT_CONFIG};
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
    const char *bad = kc_topic_validate_message(a, r->resource_name);
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
    _Static_assert(KC_ARRAY_LEN(topic_describe_order) == KC_ARRAY_LEN(topic_entries),
                   "every topic config is described");
    for (size_t i = 0; i < KC_ARRAY_LEN(topic_describe_order); i++) {
        const topic_entry_t *te = NULL;
        for (size_t j = 0; j < KC_ARRAY_LEN(topic_entries) && !te; j++)
            if (strcmp(topic_entries[j].name, topic_describe_order[i]) == 0)
                te = &topic_entries[j];
        if (!te || !wanted(r, te->name))
            continue;
        synonym_t syn[7];
        kc_str_t value;
        const char *over = kc_topic_config(topic, te->name);
        if (over)
            over = value_shown(a, te->type, over).ptr;
        size_t nsyn = effective_topic_config(s, a, te, over, &value, syn);
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

/*
 * A group config's value as ConfigDef.convertToString shows it after
 * parsing the stored one: trimmed; a number as parsed; a boolean in lower
 * case; list entries trimmed and joined by commas.
 */
static kc_str_t value_shown(kc_arena_t *a, int8_t type, const char *v)
{
    char buf[512];
    const char *t;
    int n = KC_MIN(value_trimmed(kc_str(v), &t), (int)sizeof(buf) - 1);
    memcpy(buf, t, (size_t)n);
    buf[n] = '\0';
    if (type == TYPE_INT || type == TYPE_LONG) {
        snprintf(buf, sizeof(buf), "%lld", strtoll(buf, NULL, 10));
    } else if (type == TYPE_BOOLEAN) {
        for (char *p = buf; *p; p++)
            *p = (char)tolower((unsigned char)*p);
    } else if (type == TYPE_LIST) {
        char out[512];
        size_t used = 0;
        for (char *tok = strtok(buf, ","); tok && used < sizeof(out); tok = strtok(NULL, ",")) {
            kc_str_t e;
            const char *es;
            e.len = value_trimmed(kc_str(tok), &es);
            e.ptr = es;
            used += (size_t)snprintf(out + used, sizeof(out) - used, "%s%.*s", used ? "," : "",
                                     (int)e.len, e.ptr);
        }
        out[KC_MIN(used, sizeof(out) - 1)] = '\0';
        return arena_copy(a, out);
    }
    return arena_copy(a, buf);
}

/*
 * The broker-level default of group config def (AbstractKafkaConfig
 * .extractGroupConfigMap): kcoord's value of the broker property where it
 * has it (*set: given by a source), else Kafka's default; the streams
 * assignor's is the first registered assignor's name. NULL for none.
 */
static const char *group_default(const kc_server_t *s, const kc_group_config_def_t *def,
                                 char *buf, size_t len, bool *set)
{
    *set = false;
    if (!def->broker_name)
        return def->default_value;
    if (strcmp(def->name, "streams.assignor.name") == 0)
        return "sticky";
    if (kc_config_property_find(def->broker_name) &&
        kc_config_value_string(s->cfg, def->broker_name, buf, len, set))
        return buf;
    return def->default_value;
}

/* ConfigHelper.createGroupConfigEntry for every config of a group (none
 * stored: the defaults), as ConfigHelperUtils.createResponseConfig lists
 * them; an internal config only when the group or the broker sets it. */
static void describe_group(kc_server_t *s, kc_arena_t *a,
                           const kc_describe_configs_request_describe_configs_resource_t *r,
                           bool include_synonyms, bool include_documentation,
                           kc_describe_configs_response_describe_configs_result_t *out)
{
    if (r->resource_name.len <= 0) {
        out->error_code = KC_ERR_INVALID_REQUEST;
        out->error_message = kc_str("Group name must not be empty");
        return;
    }
    const kc_group_config_t *gc = kc_group_configs_find(s->group_configs, r->resource_name);
    entry_t *items = kc_arena_alloc(a, kc_group_config_ndefs * sizeof(*items));
    size_t n = 0;
    const kc_group_config_def_t *def;
    for (size_t i = 0; (def = kc_group_config_describe_at(i)) != NULL; i++) {
        const char *over = gc ? kc_group_config_value(gc, def->name) : NULL;
        char buf[512];
        bool broker_set;
        const char *dflt = group_default(s, def, buf, sizeof(buf), &broker_set);
        if ((def->internal && !over && !broker_set) || !wanted(r, def->name))
            continue;
        synonym_t syn[8];
        size_t nsyn = 0;
        kc_str_t value = dflt ? arena_copy(a, dflt) : KC_STR_NULL;
        if (over) {
            value = value_shown(a, def->type, over);
            syn[nsyn++] = (synonym_t){kc_str(def->name), value, SRC_GROUP_CONFIG};
        }
        if (def->broker_name && kc_config_property_find(def->broker_name))
            nsyn += broker_synonyms(s->cfg, a, def->broker_name, true, syn + nsyn);
        else if (def->broker_name && def->default_value)
            syn[nsyn++] = (synonym_t){kc_str(def->broker_name), arena_copy(a, dflt),
                                      SRC_DEFAULT_CONFIG};
        else if (def->broker_name)
            syn[nsyn++] = (synonym_t){kc_str(def->broker_name), kc_str("sticky"),
                                      SRC_DEFAULT_CONFIG};
        else if (def->default_value)
            syn[nsyn++] = (synonym_t){kc_str(def->name), kc_str(def->default_value),
                                      SRC_DEFAULT_CONFIG};
        fill_entry(a, &items[n], def->name, value, false, def->type, syn, nsyn, include_synonyms);
        if (include_documentation)
            items[n].documentation = kc_str(def->doc);
        n++;
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
        /* DESCRIBE_CONFIGS on the topic, or on the cluster for a broker
         * (ConfigHelper.handleDescribeConfigsRequest). */
        int16_t denied = KC_ERR_NONE;
        if (r->resource_type == RESOURCE_TOPIC &&
            !kc_req_authorized(req, KC_OP_DESCRIBE_CONFIGS, KC_RES_TOPIC, r->resource_name))
            denied = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
        else if (r->resource_type == RESOURCE_BROKER &&
                 !kc_req_authorized_cluster(req, KC_OP_DESCRIBE_CONFIGS))
            denied = KC_ERR_CLUSTER_AUTHORIZATION_FAILED;
        else if (r->resource_type == RESOURCE_GROUP &&
                 !kc_req_authorized(req, KC_OP_DESCRIBE_CONFIGS, KC_RES_GROUP, r->resource_name))
            denied = KC_ERR_GROUP_AUTHORIZATION_FAILED;
        if (denied != KC_ERR_NONE) {
            out->error_code = denied;
            out->error_message = kc_str(kc_error_message(denied));
        } else if (r->resource_type == RESOURCE_TOPIC) {
            describe_topic(s, req->arena, r, syn, out);
        } else if (r->resource_type == RESOURCE_BROKER) {
            describe_broker(s, req->arena, r, syn, out);
        } else if (r->resource_type == RESOURCE_GROUP) {
            describe_group(s, req->arena, r, syn, v >= 3 && rq.include_documentation, out);
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
