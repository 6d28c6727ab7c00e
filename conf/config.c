/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The property table and the three configuration sources (properties file,
 * KCOORD_* environment, command-line overrides). See kc_config.h.
 */
#include "kc_config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kc_common.h"

#define FIELD(f) offsetof(kc_config_t, f)

static void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int validate_listeners(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    kc_listener_t tmp[KC_MAX_LISTENERS];
    int n = kc_listeners_parse(value, tmp, KC_MAX_LISTENERS, err, errlen);
    if (n < 0)
        return -1;
    /* Each name's security protocol is looked up in listener.security.protocol.map
     * at start-up (the map may be given after this property). */
    memcpy(c->listener, tmp, sizeof(tmp));
    c->nlisteners = (size_t)n;
    return 0;
}

int32_t kc_config_ip_override(const char *overrides, const char *ip)
{
    const char *p = overrides ? overrides : "";
    size_t iplen = strlen(ip);
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = NULL;
        for (size_t i = 0; i < len; i++)
            if (p[i] == ':')
                colon = p + i; /* the last one: IPv6 addresses hold colons too */
        if (colon) {
            size_t hl = (size_t)(colon - p);
            while (hl > 0 && p[hl - 1] == ' ')
                hl--;
            char *endn;
            long n = strtol(colon + 1, &endn, 10);
            while (*endn == ' ')
                endn++;
            if (endn == colon + 1 || (endn != p + len) || n < 0 || n > INT32_MAX || hl == 0)
                return -2;
            if (hl == iplen && memcmp(p, ip, hl) == 0)
                return (int32_t)n;
        } else if (len > 0) {
            return -2;
        }
        p += len;
    }
    return -1;
}

/* max.connections.per.ip.overrides: "host:count,..." */
static int validate_ip_overrides(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    if (kc_config_ip_override(value, "") == -2) {
        snprintf(err, errlen, "expected host:count[,host:count...], got \"%s\"", value);
        return -1;
    }
    return 0;
}

/* admin.listeners: "" (off) or one "http://host:port"; host must be given. */
static int validate_admin_listeners(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    if (*value == '\0') {
        c->admin_port = -1;
        c->admin_host[0] = '\0';
        return 0;
    }
    /* The scheme is written "http" but parsed as a listener name, which is upper case. */
    char spec[512];
    snprintf(spec, sizeof(spec), "%s", value);
    for (char *p = spec; *p && *p != ':'; p++)
        *p = (char)toupper((unsigned char)*p);
    kc_listener_t tmp[1];
    int n = kc_listeners_parse(spec, tmp, 1, err, errlen);
    if (n < 0)
        return -1;
    if (n != 1 || strcmp(tmp[0].name, "HTTP") != 0 || tmp[0].host[0] == '\0') {
        errf(err, errlen, "admin.listeners must be one http://host:port address");
        return -1;
    }
    snprintf(c->admin_host, sizeof(c->admin_host), "%s", tmp[0].host);
    c->admin_port = tmp[0].port;
    return 0;
}

static int validate_advertised(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    if (*value == '\0') {
        c->nadvertised = 0;
        return 0;
    }
    kc_listener_t tmp[KC_MAX_LISTENERS];
    int n = kc_listeners_parse(value, tmp, KC_MAX_LISTENERS, err, errlen);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        /* Kafka refuses to advertise 0.0.0.0: clients could not connect to it. */
        if (tmp[i].host[0] == '\0' || strcmp(tmp[i].host, "0.0.0.0") == 0 ||
            strcmp(tmp[i].host, "::") == 0) {
            errf(err, errlen, "advertised listener %s needs a host clients can reach",
                 tmp[i].name);
            return -1;
        }
    }
    memcpy(c->advertised, tmp, sizeof(tmp));
    c->nadvertised = (size_t)n;
    return 0;
}

static const char *const security_protocols[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT",
                                                  "SASL_SSL"};

/* Finds name's protocol in a NAME:PROTOCOL,... map; NULL when absent or malformed. */
static const char *map_lookup(const char *map, const char *name, char *err, size_t errlen)
{
    const char *p = map;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char entry[160];
        if (len >= sizeof(entry)) {
            errf(err, errlen, "entry too long");
            return NULL;
        }
        memcpy(entry, p, len);
        entry[len] = '\0';
        char *colon = strchr(entry, ':');
        char *k = entry, *v = colon ? colon + 1 : NULL;
        if (colon)
            *colon = '\0';
        while (*k == ' ')
            k++;
        for (char *q = k + strlen(k); q > k && q[-1] == ' ';)
            *--q = '\0';
        while (v && *v == ' ')
            v++;
        for (char *q = v ? v + strlen(v) : NULL; q && q > v && q[-1] == ' ';)
            *--q = '\0';
        if (!v || !*k || !*v) {
            errf(err, errlen, "entry \"%s\" is not NAME:PROTOCOL", entry);
            return NULL;
        }
        const char *proto = NULL;
        for (size_t i = 0; i < KC_ARRAY_LEN(security_protocols); i++)
            if (strcasecmp(v, security_protocols[i]) == 0)
                proto = security_protocols[i];
        if (!proto) {
            errf(err, errlen, "unknown security protocol %s (PLAINTEXT, SSL, SASL_PLAINTEXT, "
                              "SASL_SSL)", v);
            return NULL;
        }
        /* Listener names are upper-cased (ListenerName.normalised). */
        if (name && strcasecmp(k, name) == 0)
            return proto;
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

static int validate_protocol_map(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    err[0] = '\0';
    map_lookup(value, NULL, err, errlen);
    return err[0] ? -1 : 0;
}

const char *kc_config_listener_protocol(const kc_config_t *c, const char *name)
{
    char err[160];
    return map_lookup(c->listener_security_protocol_map, name, err, sizeof(err));
}

static int validate_store_type(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    if (strcasecmp(value, "PEM") != 0) {
        errf(err, errlen, "kcoord reads PEM stores only");
        return -1;
    }
    return 0;
}

static int validate_client_auth(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    if (strcasecmp(value, "none") != 0 && strcasecmp(value, "requested") != 0 &&
        strcasecmp(value, "required") != 0) {
        errf(err, errlen, "must be none, requested or required");
        return -1;
    }
    return 0;
}

static int validate_tls_protocols(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", value);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (strcmp(t, "TLSv1.2") != 0 && strcmp(t, "TLSv1.3") != 0) {
            errf(err, errlen, "%s: kcoord speaks TLSv1.2 and TLSv1.3 only", t);
            return -1;
        }
        n++;
    }
    if (n == 0) {
        errf(err, errlen, "name at least one of TLSv1.2, TLSv1.3");
        return -1;
    }
    return 0;
}

static int validate_mechanisms(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", value);
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (strcmp(t, "PLAIN") != 0 && strcmp(t, "SCRAM-SHA-256") != 0 &&
            strcmp(t, "SCRAM-SHA-512") != 0) {
            errf(err, errlen, "mechanism %s is not served (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)",
                 t);
            return -1;
        }
    }
    return 0;
}

static int validate_log_dirs(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    if (*value == '\0') {
        errf(err, errlen, "must name a directory");
        return -1;
    }
    if (strchr(value, ',')) {
        errf(err, errlen, "kcoord uses a single data directory");
        return -1;
    }
    return 0;
}

static int validate_rf(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)value;
    if (c->default_replication_factor != 1) {
        errf(err, errlen, "a single broker supports only 1");
        return -1;
    }
    return 0;
}

static int b64url_val(char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '-')
        return 62;
    if (ch == '_')
        return 63;
    return -1;
}

/* Kafka's Uuid.fromString: 22 base64url chars (no padding) decoding to 16 bytes. */
static int validate_cluster_id(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    size_t len = strlen(value);
    bool ok = len == 22;
    for (size_t i = 0; ok && i < len; i++)
        ok = b64url_val(value[i]) >= 0;
    /* 22 chars carry 132 bits; the last 4 must be zero for exactly 16 bytes. */
    if (ok && (b64url_val(value[21]) & 0x0f) != 0)
        ok = false;
    if (!ok) {
        errf(err, errlen, "must be a 22-character base64url UUID (as kafka-storage random-uuid prints)");
        return -1;
    }
    return 0;
}

static int validate_log_level(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    static const char *names[] = {"debug", "info", "warn", "error"};
    for (size_t i = 0; i < KC_ARRAY_LEN(names); i++)
        if (strcasecmp(value, names[i]) == 0)
            return 0;
    errf(err, errlen, "must be one of debug, info, warn, error");
    return -1;
}

static int parse_int64(const char *s, int64_t *out);

static int validate_assignors(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    const char *names[2];
    if (kc_coord_assignors_parse(value, names, 2) <= 0) {
        errf(err, errlen, "must list one or more of uniform, range");
        return -1;
    }
    return 0;
}

/* group.consumer.migration.policy: one of Kafka's four names, case-insensitive. */
static int validate_migration_policy(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    if (kc_coord_migration_policy_parse(value) >= 0)
        return 0;
    errf(err, errlen, "must be one of disabled, upgrade, downgrade, bidirectional");
    return -1;
}

/* An optional integer: "" (not set) or a value in [INT32_MIN, INT64_MAX]. */
static int validate_opt_long(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    if (*value == '\0')
        return 0;
    int64_t v;
    if (parse_int64(value, &v) < 0) {
        errf(err, errlen, "not an integer");
        return -1;
    }
    return 0;
}

static int validate_opt_int(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    if (validate_opt_long(c, value, err, errlen) < 0)
        return -1;
    int64_t v;
    if (*value && (parse_int64(value, &v) < 0 || v < INT32_MIN || v > INT32_MAX)) {
        errf(err, errlen, "must be between %d and %d", INT32_MIN, INT32_MAX);
        return -1;
    }
    return 0;
}

/* log.cleanup.policy: a list of compact and delete (LogConfig's ValidList). */
static int validate_cleanup_policy(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    for (const char *p = value;;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, ",");
        size_t m = n;
        while (m > 0 && p[m - 1] == ' ')
            m--;
        if (!((m == 7 && memcmp(p, "compact", 7) == 0) || (m == 6 && memcmp(p, "delete", 6) == 0))) {
            errf(err, errlen, "each entry must be compact or delete");
            return -1;
        }
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* log.cleaner.min.cleanable.ratio: a number between 0 and 1 (ConfigDef.Range.between). */
static int validate_ratio(kc_config_t *c, const char *value, char *err, size_t errlen)
{
    (void)c;
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (!*value || *end || errno || !(v >= 0 && v <= 1)) {
        errf(err, errlen, "must be a number between 0 and 1");
        return -1;
    }
    return 0;
}

double kc_config_log_cleaner_min_cleanable_ratio(const kc_config_t *c)
{
    return c->log_cleaner_min_cleanable_ratio ? strtod(c->log_cleaner_min_cleanable_ratio, NULL)
                                              : 0.5;
}

int64_t kc_config_log_roll_ms(const kc_config_t *c)
{
    if (c->log_roll_ms && *c->log_roll_ms)
        return strtoll(c->log_roll_ms, NULL, 10);
    return (int64_t)c->log_roll_hours * 3600000;
}

int64_t kc_config_log_flush_ms(const kc_config_t *c)
{
    if (c->log_flush_interval_ms && *c->log_flush_interval_ms)
        return strtoll(c->log_flush_interval_ms, NULL, 10);
    return c->log_flush_scheduler_interval_ms;
}

int64_t kc_config_log_retention_ms(const kc_config_t *c, const char **source_name)
{
    int64_t ms;
    const char *src;
    if (c->log_retention_ms && *c->log_retention_ms) {
        ms = strtoll(c->log_retention_ms, NULL, 10);
        src = "log.retention.ms";
    } else if (c->log_retention_minutes && *c->log_retention_minutes) {
        ms = strtoll(c->log_retention_minutes, NULL, 10) * 60000;
        src = "log.retention.minutes";
    } else {
        ms = (int64_t)c->log_retention_hours * 3600000;
        src = "log.retention.hours";
    }
    if (source_name)
        *source_name = src;
    return ms < 0 ? -1 : ms;
}

/* A row of the table for each coordinator property (coord_config.h): its
 * kind gives the type, the validator and the scale. */
#define COORD_KIND_INT .type = KC_CONF_INT
#define COORD_KIND_LONG .type = KC_CONF_LONG
#define COORD_KIND_BOOL .type = KC_CONF_BOOL
#define COORD_KIND_MINUTES .type = KC_CONF_INT, .scale = KC_COORD_MS_PER_MINUTE
#define COORD_KIND_ASSIGNORS .type = KC_CONF_STRING, .validate = validate_assignors
#define COORD_KIND_MIGRATION .type = KC_CONF_STRING, .validate = validate_migration_policy
#define COORD_KIND_BOUND .type = KC_CONF_INT
#define COORD_ROW(kind, name_, dflt, lo, hi, field, doc_)                                          \
    {.name = name_, .default_value = dflt, .offset = FIELD(field), .min = lo, .max = hi,          \
     .doc = doc_, COORD_KIND_##kind},

static const kc_conf_property_t props[] = {
    {"listeners", KC_CONF_STRING, "PLAINTEXT://127.0.0.1:9092", FIELD(listeners), 0, 0,
     validate_listeners, "Addresses to listen on, NAME://host:port, comma-separated"},
    {"advertised.listeners", KC_CONF_STRING, "", FIELD(advertised_listeners), 0, 0,
     validate_advertised, "Addresses given to clients in Metadata; empty = listeners"},
    {"node.id", KC_CONF_INT, "1", FIELD(node_id), 0, INT32_MAX, NULL,
     "Broker id reported in Metadata and FindCoordinator"},
    {"log.dirs", KC_CONF_STRING, "./data", FIELD(log_dirs), 0, 0, validate_log_dirs,
     "Data directory holding the LMDB environment"},
    {"num.partitions", KC_CONF_INT, "1", FIELD(num_partitions), 1, INT32_MAX, NULL,
     "Partitions of an auto-created topic or a CreateTopics with -1"},
    {"auto.create.topics.enable", KC_CONF_BOOL, "true", FIELD(auto_create_topics_enable), 0, 0,
     NULL, "Create unknown topics named in Metadata requests"},
    {"default.replication.factor", KC_CONF_INT, "1", FIELD(default_replication_factor), 1,
     INT16_MAX, validate_rf, "Replication factor of new topics (a single broker: 1)"},
    KC_COORD_PROPERTIES(COORD_ROW)
    {"group.streams.topology.description.plugin", KC_CONF_STRING, "",
     FIELD(group_streams_topology_description_plugin), 0, 0, NULL,
     "Topology-description store of streams groups (KIP-1331): memory, lmdb or the path of a "
     "shared object; empty = off"},
    {"group.streams.topology.description.plugin.config", KC_CONF_STRING, "",
     FIELD(group_streams_topology_description_plugin_config), 0, 0, NULL,
     "Free text handed to the topology-description store when it starts"},
    {"group.streams.topology.description.plugin.threads", KC_CONF_INT, "2",
     FIELD(group_streams_topology_description_plugin_threads), 1, 64, NULL,
     "Worker threads that call the topology-description store off the event loop"},
    {"group.streams.topology.description.backoff.initial.ms", KC_CONF_LONG, "30000",
     FIELD(group_streams_topology_description_backoff_initial_ms), 1, INT64_MAX, NULL,
     "First wait before a topology description push is asked for again"},
    {"group.streams.topology.description.backoff.max.ms", KC_CONF_LONG, "3600000",
     FIELD(group_streams_topology_description_backoff_max_ms), 1, INT64_MAX, NULL,
     "Longest wait between two requests for a topology description push"},
    {"group.streams.topology.description.backoff.jitter.percent", KC_CONF_INT, "20",
     FIELD(group_streams_topology_description_backoff_jitter_percent), 0, 100, NULL,
     "Random spread of each back-off wait, in percent either way"},
    {"message.max.bytes", KC_CONF_INT, "1048588", FIELD(message_max_bytes), 0, INT32_MAX, NULL,
     "Largest record batch a produce request may append"},
    {"log.message.timestamp.before.max.ms", KC_CONF_LONG, "9223372036854775807",
     FIELD(log_message_timestamp_before_max_ms), 0, INT64_MAX, NULL,
     "How far a CreateTime record timestamp may lie behind the broker clock"},
    {"log.message.timestamp.after.max.ms", KC_CONF_LONG, "3600000",
     FIELD(log_message_timestamp_after_max_ms), 0, INT64_MAX, NULL,
     "How far a CreateTime record timestamp may lie ahead of the broker clock"},
    {"log.retention.ms", KC_CONF_STRING, "", FIELD(log_retention_ms), 0, 0, validate_opt_long,
     "Default retention.ms of topics; empty = use log.retention.minutes or hours"},
    {"log.retention.minutes", KC_CONF_STRING, "", FIELD(log_retention_minutes), 0, 0,
     validate_opt_int, "Default retention in minutes; empty = use log.retention.hours"},
    {"log.retention.hours", KC_CONF_INT, "168", FIELD(log_retention_hours), INT32_MIN, INT32_MAX,
     NULL, "Default retention in hours when neither .ms nor .minutes is set"},
    {"log.retention.bytes", KC_CONF_LONG, "-1", FIELD(log_retention_bytes), INT64_MIN,
     INT64_MAX, NULL, "Default retention.bytes of topics (-1 = no size limit)"},
    {"log.retention.check.interval.ms", KC_CONF_LONG, "300000",
     FIELD(log_retention_check_interval_ms), 1, INT64_MAX, NULL,
     "How often partitions are checked for batches retention removes"},
    {"log.cleanup.policy", KC_CONF_STRING, "delete", FIELD(log_cleanup_policy), 0, 0,
     validate_cleanup_policy, "Default cleanup.policy of topics: delete, compact or both"},
    {"log.segment.bytes", KC_CONF_INT, "1073741824", FIELD(log_segment_bytes), 14, INT32_MAX,
     NULL, "Default segment.bytes: a compacted partition's active segment rolls past it"},
    {"log.roll.ms", KC_CONF_STRING, "", FIELD(log_roll_ms), 0, 0, validate_opt_long,
     "Default segment.ms; empty = use log.roll.hours"},
    {"log.roll.hours", KC_CONF_INT, "168", FIELD(log_roll_hours), 1, INT32_MAX, NULL,
     "Default segment.ms in hours when log.roll.ms is not set"},
    {"log.cleaner.enable", KC_CONF_BOOL, "true", FIELD(log_cleaner_enable), 0, 0, NULL,
     "Whether the log cleaner compacts the topics whose cleanup.policy has compact"},
    {"log.cleaner.backoff.ms", KC_CONF_LONG, "15000", FIELD(log_cleaner_backoff_ms), 0,
     INT64_MAX, NULL, "How long the log cleaner waits when no partition is dirty enough"},
    {"log.cleaner.dedupe.buffer.size", KC_CONF_LONG, "134217728",
     FIELD(log_cleaner_dedupe_buffer_size), 24, INT64_MAX, NULL,
     "Memory for the keys one clean maps (24 bytes a key, 90% full at most)"},
    {"log.cleaner.min.cleanable.ratio", KC_CONF_STRING, "0.5",
     FIELD(log_cleaner_min_cleanable_ratio), 0, 0, validate_ratio,
     "Default min.cleanable.dirty.ratio: the dirty share of a log that gets it cleaned"},
    {"log.cleaner.delete.retention.ms", KC_CONF_LONG, "86400000",
     FIELD(log_cleaner_delete_retention_ms), 0, INT64_MAX, NULL,
     "Default delete.retention.ms: how long a clean keeps the tombstones it saw"},
    {"log.cleaner.min.compaction.lag.ms", KC_CONF_LONG, "0",
     FIELD(log_cleaner_min_compaction_lag_ms), 0, INT64_MAX, NULL,
     "Default min.compaction.lag.ms: records stay uncompacted at least this long"},
    {"log.cleaner.max.compaction.lag.ms", KC_CONF_LONG, "9223372036854775807",
     FIELD(log_cleaner_max_compaction_lag_ms), 1, INT64_MAX, NULL,
     "Default max.compaction.lag.ms: records stay uncompacted at most this long"},
    {"log.flush.interval.messages", KC_CONF_LONG, "9223372036854775807",
     FIELD(log_flush_interval_messages), 1, INT64_MAX, NULL,
     "Unflushed records of a partition that make the broker flush to disk"},
    {"log.flush.interval.ms", KC_CONF_STRING, "", FIELD(log_flush_interval_ms), 0, 0,
     validate_opt_long,
     "Longest time records stay unflushed; empty = log.flush.scheduler.interval.ms"},
    {"log.flush.scheduler.interval.ms", KC_CONF_LONG, "9223372036854775807",
     FIELD(log_flush_scheduler_interval_ms), 1, INT64_MAX, NULL,
     "How often the broker checks whether unflushed records are due"},
    {"legacy.decompression.max.bytes", KC_CONF_LONG, "67108864",
     FIELD(legacy_decompression_max_bytes), 1, INT64_MAX, NULL,
     "Largest decompressed magic 0/1 message set (Produce v0-2) the broker inflates"},
    {"max.incremental.fetch.session.cache.slots", KC_CONF_INT, "1000",
     FIELD(max_incremental_fetch_session_cache_slots), 0, INT32_MAX, NULL,
     "Incremental fetch sessions (KIP-227) the broker keeps"},
    {"socket.request.max.bytes", KC_CONF_INT, "104857600", FIELD(socket_request_max_bytes), 1,
     INT32_MAX, NULL, "Largest request frame; a bigger one closes the connection"},
    {"connections.max.idle.ms", KC_CONF_LONG, "600000", FIELD(connections_max_idle_ms), 1,
     INT64_MAX, NULL, "Idle connections are closed after this"},
    {"max.connections", KC_CONF_INT, "2147483647", FIELD(max_connections), 1, INT32_MAX, NULL,
     "Connections accepted at once over all listeners; a new one beyond waits in the backlog"},
    {"max.connections.per.ip", KC_CONF_INT, "2147483647", FIELD(max_connections_per_ip), 1,
     INT32_MAX, NULL, "Connections from one address; a new one beyond is closed at once"},
    {"max.connections.per.ip.overrides", KC_CONF_STRING, "",
     FIELD(max_connections_per_ip_overrides), 0, 0, validate_ip_overrides,
     "Per-address exceptions to max.connections.per.ip, host:count[,host:count...]"},
    {"authorizer.class.name", KC_CONF_STRING, "", FIELD(authorizer_class_name), 0, 0, NULL,
     "Non-empty turns ACLs on (kcoord's StandardAuthorizer, whatever the class named)"},
    {"super.users", KC_CONF_STRING, "", FIELD(super_users), 0, 0, NULL,
     "Principals allowed everything, separated by ';' (User:admin;User:ops)"},
    {"allow.everyone.if.no.acl.found", KC_CONF_BOOL, "false",
     FIELD(allow_everyone_if_no_acl_found), 0, 0, NULL,
     "With ACLs on, a resource no ACL names is open to everyone"},
    {"cluster.id", KC_CONF_STRING, "a2Nvb3JkLWNsdXN0ZXItMQ", FIELD(cluster_id), 0, 0,
     validate_cluster_id, "Cluster id reported in Metadata"},
    {"lmdb.map.size.bytes", KC_CONF_LONG, "1073741824", FIELD(lmdb_map_size_bytes), 1048576,
     INT64_MAX, NULL, "Starting size of the LMDB map; it grows when it fills"},
    {"lmdb.map.max.bytes", KC_CONF_LONG, "0", FIELD(lmdb_map_max_bytes), 0, INT64_MAX, NULL,
     "Most the LMDB map grows to (0 = as far as the file system's free space allows); "
     "beyond it writes fail with Kafka's storage errors"},
    {"lmdb.free.space.warn.bytes", KC_CONF_LONG, "1073741824", FIELD(lmdb_free_space_warn_bytes),
     0, INT64_MAX, NULL,
     "A warning is logged when the data directory's file system has less free space (0 = off)"},
    {"log.level", KC_CONF_STRING, "info", FIELD(log_level), 0, 0, validate_log_level,
     "Lowest level logged: debug, info, warn, error"},
    {"admin.listeners", KC_CONF_STRING, "", FIELD(admin_listeners), 0, 0,
     validate_admin_listeners,
     "Admin HTTP endpoint (faults, group views, metrics), http://host:port; empty = off"},
    {"admin.events.max", KC_CONF_INT, "1000", FIELD(admin_events_max), 1, 1000000, NULL,
     "Coordinator events the admin endpoint keeps for GET /v1/events"},
    {"listener.security.protocol.map", KC_CONF_STRING,
     "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
     FIELD(listener_security_protocol_map), 0, 0, validate_protocol_map,
     "Security protocol of each listener name, NAME:PROTOCOL, comma-separated"},
    {"ssl.keystore.type", KC_CONF_STRING, "PEM", FIELD(ssl_keystore_type), 0, 0,
     validate_store_type, "Format of the key store; kcoord reads PEM"},
    {"ssl.keystore.location", KC_CONF_STRING, "", FIELD(ssl_keystore_location), 0, 0, NULL,
     "PEM file with the server's private key and certificate chain (re-read on SIGHUP)"},
    {"ssl.keystore.certificate.chain", KC_CONF_STRING, "",
     FIELD(ssl_keystore_certificate_chain), 0, 0, NULL,
     "PEM text of the server's certificate chain, instead of ssl.keystore.location"},
    {"ssl.keystore.key", KC_CONF_STRING, "", FIELD(ssl_keystore_key), 0, 0, NULL,
     "PEM text of the server's private key, with ssl.keystore.certificate.chain"},
    {"ssl.key.password", KC_CONF_STRING, "", FIELD(ssl_key_password), 0, 0, NULL,
     "Password of an encrypted private key; empty = not encrypted"},
    {"ssl.truststore.type", KC_CONF_STRING, "PEM", FIELD(ssl_truststore_type), 0, 0,
     validate_store_type, "Format of the trust store; kcoord reads PEM"},
    {"ssl.truststore.location", KC_CONF_STRING, "", FIELD(ssl_truststore_location), 0, 0, NULL,
     "PEM file of CA certificates that client certificates are checked against"},
    {"ssl.truststore.certificates", KC_CONF_STRING, "", FIELD(ssl_truststore_certificates), 0,
     0, NULL, "PEM text of trusted CA certificates, instead of ssl.truststore.location"},
    {"ssl.client.auth", KC_CONF_STRING, "none", FIELD(ssl_client_auth), 0, 0,
     validate_client_auth, "Client certificates: none, requested or required"},
    {"ssl.enabled.protocols", KC_CONF_STRING, "TLSv1.2,TLSv1.3", FIELD(ssl_enabled_protocols), 0,
     0, validate_tls_protocols, "TLS versions accepted (TLSv1.2, TLSv1.3)"},
    {"ssl.cipher.suites", KC_CONF_STRING, "", FIELD(ssl_cipher_suites), 0, 0, NULL,
     "TLS 1.2 cipher list in OpenSSL syntax; empty = OpenSSL's defaults"},
    {"sasl.enabled.mechanisms", KC_CONF_STRING, "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
     FIELD(sasl_enabled_mechanisms), 0, 0, validate_mechanisms,
     "SASL mechanisms offered on SASL listeners"},
    {"sasl.credentials.file", KC_CONF_STRING, "", FIELD(sasl_credentials_file), 0, 0, NULL,
     "SCRAM credentials file (kcoord scram-credential), re-read on SIGHUP"},
    {"connections.max.reauth.ms", KC_CONF_LONG, "0", FIELD(connections_max_reauth_ms), 0,
     INT64_MAX, NULL, "SASL session lifetime before re-authentication (KIP-368); 0 = none"},
    {"connection.failed.authentication.delay.ms", KC_CONF_INT, "100",
     FIELD(connection_failed_authentication_delay_ms), 0, INT32_MAX, NULL,
     "Delay before a failed authentication is answered and the connection closed"},
    {"admin.events.stream.max.bytes", KC_CONF_INT, "1048576", FIELD(admin_events_stream_max_bytes),
     1024, 1073741824, NULL,
     "Unsent bytes an event stream (GET /v1/events as server-sent events) may hold "
     "before it is disconnected"},
};

_Static_assert(sizeof(props) / sizeof(props[0]) <= KC_CONF_MAX_PROPERTIES,
               "raise KC_CONF_MAX_PROPERTIES");

size_t kc_config_property_count(void)
{
    return KC_ARRAY_LEN(props);
}

const kc_conf_property_t *kc_config_property_at(size_t i)
{
    return i < KC_ARRAY_LEN(props) ? &props[i] : NULL;
}

const kc_conf_property_t *kc_config_property_find(const char *name)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(props); i++)
        if (strcmp(props[i].name, name) == 0)
            return &props[i];
    return NULL;
}

/* Kafka trims values before parsing (ConfigDef.parseType). */
static char *trimmed_copy(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return kc_xstrndup(s, n);
}

static int parse_int64(const char *s, int64_t *out)
{
    if (*s == '\0')
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int set_property(kc_config_t *c, const kc_conf_property_t *p, const char *raw, char *err,
                        size_t errlen)
{
    char *value = trimmed_copy(raw);
    char *field = (char *)c + p->offset;
    char why[256] = "";
    int rc = -1;

    switch (p->type) {
    case KC_CONF_INT:
    case KC_CONF_LONG: {
        int64_t v;
        if (parse_int64(value, &v) < 0) {
            snprintf(why, sizeof(why), "not an integer");
            goto out;
        }
        if (v < p->min || v > p->max) {
            snprintf(why, sizeof(why), "must be between %" PRId64 " and %" PRId64, p->min, p->max);
            goto out;
        }
        if (p->scale > 0)
            *(int64_t *)(void *)field = v * p->scale;
        else if (p->type == KC_CONF_INT)
            *(int32_t *)(void *)field = (int32_t)v;
        else
            *(int64_t *)(void *)field = v;
        break;
    }
    case KC_CONF_BOOL:
        if (strcasecmp(value, "true") == 0) {
            *(bool *)field = true;
        } else if (strcasecmp(value, "false") == 0) {
            *(bool *)field = false;
        } else {
            snprintf(why, sizeof(why), "must be true or false");
            goto out;
        }
        break;
    case KC_CONF_STRING:
        break;
    }
    if (p->validate && p->validate(c, value, why, sizeof(why)) < 0)
        goto out;
    if (p->type == KC_CONF_STRING) {
        char **slot = (char **)(void *)field;
        free(*slot);
        *slot = value;
        value = NULL;
    }
    rc = 0;
out:
    if (rc < 0)
        errf(err, errlen, "invalid value \"%s\" for configuration %s: %s", value, p->name, why);
    free(value);
    return rc;
}

int kc_config_set(kc_config_t *c, const char *key, const char *value, char *err, size_t errlen)
{
    const kc_conf_property_t *p = kc_config_property_find(key);
    if (!p) {
        errf(err, errlen, "unknown configuration %s", key);
        return -1;
    }
    int rc = set_property(c, p, value, err, errlen);
    if (rc == 0)
        c->explicitly_set[p - props] = true;
    return rc;
}

bool kc_config_value_string(const kc_config_t *c, const char *name, char *out, size_t outlen,
                            bool *is_set)
{
    const kc_conf_property_t *p = kc_config_property_find(name);
    if (!p || outlen == 0)
        return false;
    const char *field = (const char *)c + p->offset;
    switch (p->type) {
    case KC_CONF_INT:
    case KC_CONF_LONG: {
        int64_t v;
        if (p->scale > 0)
            v = *(const int64_t *)(const void *)field / p->scale;
        else if (p->type == KC_CONF_INT)
            v = *(const int32_t *)(const void *)field;
        else
            v = *(const int64_t *)(const void *)field;
        snprintf(out, outlen, "%" PRId64, v);
        break;
    }
    case KC_CONF_BOOL:
        snprintf(out, outlen, "%s", *(const bool *)field ? "true" : "false");
        break;
    case KC_CONF_STRING: {
        const char *v = *(char *const *)(const void *)field;
        snprintf(out, outlen, "%s", v ? v : "");
        break;
    }
    }
    if (is_set)
        *is_set = c->explicitly_set[p - props];
    return true;
}

/* A coordinator property's kc_config_t field into kc_coord_config_t, by
 * kind; the numbers are held alike (the minutes in ms already). */
#define TO_COORD_INT(out, c, field) (out)->field = (c)->field;
#define TO_COORD_LONG TO_COORD_INT
#define TO_COORD_BOOL TO_COORD_INT
#define TO_COORD_MINUTES TO_COORD_INT
#define TO_COORD_ASSIGNORS(out, c, field) kc_coord_config_set_assignors(out, (c)->field);
#define TO_COORD_MIGRATION(out, c, field) kc_coord_config_set_migration(out, (c)->field);
#define TO_COORD_BOUND(out, c, field)
#define TO_COORD(kind, name, dflt, lo, hi, field, doc) TO_COORD_##kind(out, c, field)

/* And the coordinator's field has the width of its kind's value. */
#define SAME_WIDTH(field)                                                                          \
    _Static_assert(sizeof(((kc_coord_config_t *)0)->field) == sizeof(((kc_config_t *)0)->field), \
                   #field " does not hold its kind's value");
#define WIDTH_INT(field) SAME_WIDTH(field)
#define WIDTH_LONG(field) SAME_WIDTH(field)
#define WIDTH_BOOL(field) SAME_WIDTH(field)
#define WIDTH_MINUTES(field) SAME_WIDTH(field)
#define WIDTH_ASSIGNORS(field)
#define WIDTH_MIGRATION(field)
#define WIDTH_BOUND(field)
#define WIDTH_OF(kind, name, dflt, lo, hi, field, doc) WIDTH_##kind(field)
KC_COORD_PROPERTIES(WIDTH_OF)

void kc_config_coord(const kc_config_t *c, kc_coord_config_t *out)
{
    KC_COORD_PROPERTIES(TO_COORD)
}

void kc_config_init(kc_config_t *c)
{
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < KC_ARRAY_LEN(props); i++) {
        char err[256];
        int rc = set_property(c, &props[i], props[i].default_value, err, sizeof(err));
        (void)rc;
        /* A default the table itself rejects is a programming error. */
        if (rc != 0) {
            fprintf(stderr, "kcoord: bad built-in default: %s\n", err);
            abort();
        }
    }
}

void kc_config_deinit(kc_config_t *c)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(props); i++) {
        if (props[i].type == KC_CONF_STRING) {
            char **slot = (char **)(void *)((char *)c + props[i].offset);
            free(*slot);
            *slot = NULL;
        }
    }
}

/* ---- java.util.Properties syntax ---- */

/* Reads one logical line (continuations joined) starting at *pos. Returns false at end. */
static bool next_logical_line(const char *text, size_t len, size_t *pos, kc_buf_t *line)
{
    kc_buf_reset(line);
    for (;;) {
        if (*pos >= len)
            return false;
        /* Skip leading whitespace of a natural line. */
        while (*pos < len && (text[*pos] == ' ' || text[*pos] == '\t' || text[*pos] == '\f'))
            (*pos)++;
        if (*pos >= len)
            return false;
        char ch = text[*pos];
        if (ch == '\n' || ch == '\r') {
            (*pos)++;
            continue; /* blank line */
        }
        if (ch == '#' || ch == '!') {
            while (*pos < len && text[*pos] != '\n' && text[*pos] != '\r')
                (*pos)++;
            continue;
        }
        break;
    }
    for (;;) {
        size_t start = *pos;
        while (*pos < len && text[*pos] != '\n' && text[*pos] != '\r')
            (*pos)++;
        size_t end = *pos;
        /* Skip the line terminator (\n, \r or \r\n). */
        if (*pos < len && text[*pos] == '\r') {
            (*pos)++;
            if (*pos < len && text[*pos] == '\n')
                (*pos)++;
        } else if (*pos < len && text[*pos] == '\n') {
            (*pos)++;
        }
        /* An odd number of trailing backslashes continues the line. */
        size_t bs = 0;
        while (end - bs > start && text[end - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 1) {
            kc_buf_append(line, text + start, end - start - 1);
            while (*pos < len && (text[*pos] == ' ' || text[*pos] == '\t' || text[*pos] == '\f'))
                (*pos)++;
            if (*pos >= len)
                break;
            continue;
        }
        kc_buf_append(line, text + start, end - start);
        break;
    }
    kc_buf_append(line, "", 1);
    return true;
}

static void put_utf8(kc_buf_t *b, uint32_t cp)
{
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xc0 | (cp >> 6));
        u[1] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 2;
    } else {
        u[0] = (uint8_t)(0xe0 | (cp >> 12));
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 3;
    }
    kc_buf_append(b, u, n);
}

/* Unescapes s[0..n) into out (NUL-terminated). -1 on a malformed \uXXXX. */
static int unescape(const char *s, size_t n, kc_buf_t *out)
{
    kc_buf_reset(out);
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch != '\\' || i + 1 >= n) {
            if (ch != '\\')
                kc_buf_append(out, &ch, 1);
            continue;
        }
        ch = s[++i];
        switch (ch) {
        case 't': kc_buf_append(out, "\t", 1); break;
        case 'n': kc_buf_append(out, "\n", 1); break;
        case 'r': kc_buf_append(out, "\r", 1); break;
        case 'f': kc_buf_append(out, "\f", 1); break;
        case 'u': {
            if (i + 4 >= n)
                return -1;
            uint32_t cp = 0;
            for (int k = 1; k <= 4; k++) {
                char h = s[i + (size_t)k];
                cp <<= 4;
                if (h >= '0' && h <= '9')
                    cp |= (uint32_t)(h - '0');
                else if (h >= 'a' && h <= 'f')
                    cp |= (uint32_t)(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F')
                    cp |= (uint32_t)(h - 'A' + 10);
                else
                    return -1;
            }
            i += 4;
            put_utf8(out, cp);
            break;
        }
        default: kc_buf_append(out, &ch, 1); break;
        }
    }
    kc_buf_append(out, "", 1);
    return 0;
}

int kc_properties_parse(const char *text, size_t len, kc_properties_fn fn, void *ctx)
{
    kc_buf_t line, key, value;
    kc_buf_init(&line);
    kc_buf_init(&key);
    kc_buf_init(&value);
    size_t pos = 0;
    int rc = 0;
    while (rc == 0 && next_logical_line(text, len, &pos, &line)) {
        const char *l = (const char *)line.data;
        size_t n = line.len - 1;
        /* The key ends at the first unescaped '=', ':' or whitespace. */
        size_t k = 0;
        while (k < n) {
            if (l[k] == '\\') {
                k += 2;
                continue;
            }
            if (l[k] == '=' || l[k] == ':' || l[k] == ' ' || l[k] == '\t' || l[k] == '\f')
                break;
            k++;
        }
        if (k > n)
            k = n;
        size_t v = k;
        while (v < n && (l[v] == ' ' || l[v] == '\t' || l[v] == '\f'))
            v++;
        if (v < n && (l[v] == '=' || l[v] == ':'))
            v++;
        while (v < n && (l[v] == ' ' || l[v] == '\t' || l[v] == '\f'))
            v++;
        if (unescape(l, k, &key) < 0 || unescape(l + v, n - v, &value) < 0) {
            rc = fn(ctx, NULL, l);
            if (rc == 0)
                rc = -1;
            break;
        }
        rc = fn(ctx, (const char *)key.data, (const char *)value.data);
    }
    kc_buf_deinit(&line);
    kc_buf_deinit(&key);
    kc_buf_deinit(&value);
    return rc;
}

typedef struct {
    kc_config_t *c;
    const char *origin;
    char *err;
    size_t errlen;
} parse_ctx_t;

static int set_from_file(void *ctx, const char *key, const char *value)
{
    parse_ctx_t *pc = ctx;
    if (!key) {
        errf(pc->err, pc->errlen, "%s: malformed \\u escape in line \"%s\"", pc->origin, value);
        return -1;
    }
    char why[512];
    if (kc_config_set(pc->c, key, value, why, sizeof(why)) < 0) {
        errf(pc->err, pc->errlen, "%s: %s", pc->origin, why);
        return -1;
    }
    return 0;
}

int kc_config_parse_properties(kc_config_t *c, const char *text, size_t len, const char *origin,
                               char *err, size_t errlen)
{
    parse_ctx_t pc = {c, origin, err, errlen};
    return kc_properties_parse(text, len, set_from_file, &pc) == 0 ? 0 : -1;
}

int kc_config_load_file(kc_config_t *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        errf(err, errlen, "cannot open config file %s: %s", path, strerror(errno));
        return -1;
    }
    kc_buf_t b;
    kc_buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        kc_buf_append(&b, chunk, n);
    int rc;
    if (ferror(f)) {
        errf(err, errlen, "cannot read config file %s", path);
        rc = -1;
    } else {
        rc = kc_config_parse_properties(c, (const char *)b.data, b.len, path, err, errlen);
    }
    fclose(f);
    kc_buf_deinit(&b);
    return rc;
}

#define ENV_PREFIX "KCOORD_"

int kc_config_load_env(kc_config_t *c, char *const *envp, char *err, size_t errlen)
{
    if (!envp)
        return 0;
    for (size_t i = 0; envp[i]; i++) {
        const char *e = envp[i];
        if (strncmp(e, ENV_PREFIX, strlen(ENV_PREFIX)) != 0)
            continue;
        const char *eq = strchr(e, '=');
        if (!eq)
            continue;
        const char *name = e + strlen(ENV_PREFIX);
        size_t nlen = (size_t)(eq - name);
        const kc_conf_property_t *found = NULL;
        for (size_t p = 0; p < KC_ARRAY_LEN(props) && !found; p++) {
            const char *pn = props[p].name;
            if (strlen(pn) != nlen)
                continue;
            bool same = true;
            for (size_t j = 0; j < nlen && same; j++) {
                char want = pn[j] == '.' ? '_' : (char)toupper((unsigned char)pn[j]);
                same = name[j] == want;
            }
            if (same)
                found = &props[p];
        }
        if (!found) {
            errf(err, errlen, "unknown configuration in environment variable %.*s",
                 (int)(eq - e), e);
            return -1;
        }
        char why[512];
        if (set_property(c, found, eq + 1, why, sizeof(why)) < 0) {
            errf(err, errlen, "environment variable %.*s: %s", (int)(eq - e), e, why);
            return -1;
        }
        c->explicitly_set[found - props] = true;
    }
    return 0;
}

int kc_config_override(kc_config_t *c, const char *kv, char *err, size_t errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        errf(err, errlen, "override \"%s\" is not key=value", kv);
        return -1;
    }
    char *raw = kc_xstrndup(kv, (size_t)(eq - kv));
    char *key = trimmed_copy(raw);
    int rc = kc_config_set(c, key, eq + 1, err, errlen);
    free(raw);
    free(key);
    return rc;
}

int kc_listeners_parse(const char *spec, kc_listener_t *out, size_t max, char *err, size_t errlen)
{
    size_t n = 0;
    const char *p = spec;
    while (*p == ' ')
        p++;
    if (*p == '\0') {
        errf(err, errlen, "no listener given");
        return -1;
    }
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[512];
        if (len >= sizeof(item)) {
            errf(err, errlen, "listener too long");
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        /* trim */
        char *s = item;
        while (*s == ' ')
            s++;
        size_t sl = strlen(s);
        while (sl > 0 && s[sl - 1] == ' ')
            s[--sl] = '\0';
        if (n >= max) {
            errf(err, errlen, "too many listeners (at most %zu)", max);
            return -1;
        }
        kc_listener_t *l = &out[n];
        memset(l, 0, sizeof(*l));
        char *sep = strstr(s, "://");
        if (!sep || sep == s || (size_t)(sep - s) >= sizeof(l->name)) {
            errf(err, errlen, "listener \"%s\" is not NAME://host:port", s);
            return -1;
        }
        memcpy(l->name, s, (size_t)(sep - s));
        /* Kafka upper-cases listener names (ListenerName.normalised). */
        for (char *q = l->name; *q; q++) {
            *q = (char)toupper((unsigned char)*q);
            if (!(isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_' ||
                  *q == '-')) {
                errf(err, errlen, "listener name \"%s\" has a character other than letters, "
                     "digits, '_' and '-'", l->name);
                return -1;
            }
        }
        char *hp = sep + 3;
        char *colon;
        if (*hp == '[') {
            char *rb = strchr(hp, ']');
            if (!rb || rb[1] != ':') {
                errf(err, errlen, "listener \"%s\": bad IPv6 address", s);
                return -1;
            }
            *rb = '\0';
            if (strlen(hp + 1) >= sizeof(l->host)) {
                errf(err, errlen, "listener \"%s\": host too long", s);
                return -1;
            }
            strcpy(l->host, hp + 1);
            colon = rb + 1;
        } else {
            colon = strrchr(hp, ':');
            if (!colon) {
                errf(err, errlen, "listener \"%s\" has no port", s);
                return -1;
            }
            size_t hl = (size_t)(colon - hp);
            if (hl >= sizeof(l->host) || memchr(hp, ':', hl)) {
                errf(err, errlen, "listener \"%s\": bad host", s);
                return -1;
            }
            memcpy(l->host, hp, hl);
        }
        int64_t port;
        if (parse_int64(colon + 1, &port) < 0 || port < 0 || port > 65535) {
            errf(err, errlen, "listener \"%s\": bad port", s);
            return -1;
        }
        l->port = (uint16_t)port;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(out[i].name, l->name) == 0) {
                errf(err, errlen, "listener name %s used twice", l->name);
                return -1;
            }
        }
        n++;
        if (!end)
            break;
        p = end + 1;
    }
    return (int)n;
}

/* The heartbeat interval and session timeout of one group type ("consumer",
 * "streams") and their bounds, as Kafka's GroupCoordinatorConfig requires
 * them at start-up, in its order. Writes the first broken rule to err and
 * returns -1, or returns 0. */
static int check_member_timeouts(const char *type, int32_t hb, int32_t min_hb, int32_t max_hb,
                                 int32_t st, int32_t min_st, int32_t max_st, char *err,
                                 size_t errlen)
{
    static const char *const GE = "greater than or equal to", *const LE = "less than or equal to";
    const struct {
        bool broken;
        const char *name, *relation, *bound;
    } rules[] = {
        {max_hb < min_hb, "max.heartbeat.interval.ms", GE, "min.heartbeat.interval.ms"},
        {hb < min_hb, "heartbeat.interval.ms", GE, "min.heartbeat.interval.ms"},
        {hb > max_hb, "heartbeat.interval.ms", LE, "max.heartbeat.interval.ms"},
        {max_st < min_st, "max.session.timeout.ms", GE, "min.session.timeout.ms"},
        {st < min_st, "session.timeout.ms", GE, "min.session.timeout.ms"},
        {st > max_st, "session.timeout.ms", LE, "max.session.timeout.ms"},
        {hb >= st, "heartbeat.interval.ms", "less than", "session.timeout.ms"},
    };
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (rules[i].broken) {
            snprintf(err, errlen, "group.%s.%s must be %s group.%s.%s", type, rules[i].name,
                     rules[i].relation, type, rules[i].bound);
            return -1;
        }
    }
    return 0;
}

int kc_config_validate(const kc_config_t *c, char *err, size_t errlen)
{
    if (c->lmdb_map_max_bytes != 0 && c->lmdb_map_max_bytes < c->lmdb_map_size_bytes) {
        snprintf(err, errlen,
                 "lmdb.map.max.bytes (%" PRId64 ") must be 0 or at least lmdb.map.size.bytes "
                 "(%" PRId64 ")",
                 c->lmdb_map_max_bytes, c->lmdb_map_size_bytes);
        return -1;
    }
    if (check_member_timeouts("consumer", c->group_consumer_heartbeat_interval_ms,
                              c->group_consumer_min_heartbeat_interval_ms,
                              c->group_consumer_max_heartbeat_interval_ms,
                              c->group_consumer_session_timeout_ms,
                              c->group_consumer_min_session_timeout_ms,
                              c->group_consumer_max_session_timeout_ms, err, errlen) != 0)
        return -1;
    return check_member_timeouts("streams", c->group_streams_heartbeat_interval_ms,
                                 c->group_streams_min_heartbeat_interval_ms,
                                 c->group_streams_max_heartbeat_interval_ms,
                                 c->group_streams_session_timeout_ms,
                                 c->group_streams_min_session_timeout_ms,
                                 c->group_streams_max_session_timeout_ms, err, errlen);
}
