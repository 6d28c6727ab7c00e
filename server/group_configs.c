/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dynamic group configs (ConfigResource GROUP, KIP-848): the names Kafka
 * 4.4's GroupConfig defines with their types, defaults, broker synonyms and
 * documentation; GroupConfig.validate, which IncrementalAlterConfigs and
 * AlterConfigs apply to a group's whole set of overrides; and
 * GroupConfigManager.updateGroupConfig, which bounds the stored values by
 * the broker's group.*.min/max properties (GroupConfig.evaluate) and hands
 * the ones the coordinator acts on to it. DescribeConfigs of a group is in
 * configs.c. Does not store anything: storage/group_configs.c does.
 */
#include "server_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kc_log.h"

#define NO_MIN INT64_MIN

/*
 * GroupConfig.CONFIG_DEF in its definition order (the order ConfigDef.parse
 * checks the values in). The defaults are Kafka's: those of a broker
 * property kcoord has come from kcoord's value of it when described.
 */
const kc_group_config_def_t kc_group_config_defs[] = {
    {"consumer.session.timeout.ms", KC_CONFIG_TYPE_INT, false, "45000", 1,
     "group.consumer.session.timeout.ms",
     "The timeout to detect client failures when using the consumer group protocol."},
    {"consumer.heartbeat.interval.ms", KC_CONFIG_TYPE_INT, false, "5000", 1,
     "group.consumer.heartbeat.interval.ms",
     "The heartbeat interval given to the members of a consumer group."},
    {"consumer.assignment.interval.ms", KC_CONFIG_TYPE_INT, false, "1000", 0,
     "group.consumer.assignment.interval.ms",
     "The interval between assignment updates for a consumer group."},
    {"consumer.assignor.offload.enable", KC_CONFIG_TYPE_BOOLEAN, true, "true", NO_MIN,
     "group.consumer.assignor.offload.enable",
     "Whether to offload consumer group assignment to a group coordinator background thread."},
    {"share.session.timeout.ms", KC_CONFIG_TYPE_INT, false, "45000", 1,
     "group.share.session.timeout.ms",
     "The timeout to detect client failures when using the share group protocol."},
    {"share.heartbeat.interval.ms", KC_CONFIG_TYPE_INT, false, "5000", 1,
     "group.share.heartbeat.interval.ms",
     "The heartbeat interval given to the members of a share group."},
    {"share.record.lock.duration.ms", KC_CONFIG_TYPE_INT, false, "30000", 1000,
     "group.share.record.lock.duration.ms",
     "The record acquisition lock duration in milliseconds for share groups."},
    {"share.delivery.count.limit", KC_CONFIG_TYPE_INT, false, "5", 2,
     "group.share.delivery.count.limit",
     "The maximum number of delivery attempts for a record delivered to a share group."},
    {"share.partition.max.record.locks", KC_CONFIG_TYPE_INT, false, "2000", 100,
     "group.share.partition.max.record.locks",
     "Share-group record lock limit per share-partition."},
    {"share.auto.offset.reset", KC_CONFIG_TYPE_STRING, false, "latest", NO_MIN, NULL,
     "The strategy to initialize the share-partition start offset. <ul><li>earliest: "
     "automatically reset the offset to the earliest offset</li><li>latest: automatically "
     "reset the offset to the latest offset</li><li>by_duration:&lt;duration&gt;: "
     "automatically reset the offset to a configured duration from the current timestamp. "
     "&lt;duration&gt; must be specified in ISO8601 format (PnDTnHnMn.nS). Negative duration "
     "is not allowed.</li><li>anything else: throw exception to the share consumer.</li></ul>"},
    {"share.isolation.level", KC_CONFIG_TYPE_STRING, false, "read_uncommitted", NO_MIN, NULL,
     "Controls how to read records written transactionally. If set to \"read_committed\", the "
     "share group will only deliver transactional records which have been committed. If set "
     "to \"read_uncommitted\", the share group will return all messages, even transactional "
     "messages which have been aborted. Non-transactional records will be returned "
     "unconditionally in either mode."},
    {"share.renew.acknowledge.enable", KC_CONFIG_TYPE_BOOLEAN, false, "true", NO_MIN, NULL,
     "Whether the renew acknowledge type is enabled for the share group."},
    {"share.assignment.interval.ms", KC_CONFIG_TYPE_INT, false, "1000", 0,
     "group.share.assignment.interval.ms",
     "The interval between assignment updates for a share group."},
    {"share.assignor.offload.enable", KC_CONFIG_TYPE_BOOLEAN, true, "true", NO_MIN,
     "group.share.assignor.offload.enable",
     "Whether to offload share group assignment to a group coordinator background thread."},
    {"streams.session.timeout.ms", KC_CONFIG_TYPE_INT, false, "45000", 1,
     "group.streams.session.timeout.ms",
     "The timeout to detect client failures when using the streams group protocol."},
    {"streams.heartbeat.interval.ms", KC_CONFIG_TYPE_INT, false, "5000", 1,
     "group.streams.heartbeat.interval.ms", "The heartbeat interval given to the members."},
    {"streams.num.standby.replicas", KC_CONFIG_TYPE_INT, false, "0", 0,
     "group.streams.num.standby.replicas", "The number of standby replicas for each task."},
    {"streams.initial.rebalance.delay.ms", KC_CONFIG_TYPE_INT, false, "3000", 0,
     "group.streams.initial.rebalance.delay.ms",
     "The amount of time the group coordinator will wait for more streams clients to join a "
     "new group before performing the first rebalance. A longer delay means potentially fewer "
     "rebalances."},
    {"streams.assignment.interval.ms", KC_CONFIG_TYPE_INT, false, "1000", 0,
     "group.streams.assignment.interval.ms",
     "The interval between assignment updates for a streams group."},
    {"streams.assignor.offload.enable", KC_CONFIG_TYPE_BOOLEAN, true, "true", NO_MIN,
     "group.streams.assignor.offload.enable",
     "Whether to offload streams group assignment to a group coordinator background thread."},
    {"streams.task.offset.interval.ms", KC_CONFIG_TYPE_INT, true, "60000", 1,
     "group.streams.task.offset.interval.ms",
     "The interval in which the warmup task changelog offsets on a client are updated on the "
     "broker. The offsets are sent with the next heartbeat after this time has passed."},
    {"streams.num.warmup.replicas", KC_CONFIG_TYPE_INT, true, "2", 0,
     "group.streams.num.warmup.replicas", "The maximum number of warmup task replicas."},
    {"streams.rack.aware.assignment.tags", KC_CONFIG_TYPE_LIST, false, "", NO_MIN,
     "group.streams.rack.aware.assignment.tags",
     "List of client tag keys used to distribute standby replicas across Kafka Streams "
     "instances. When configured, and the used broker-side assignor supports it, it will make "
     "a best-effort to distribute standby tasks over each client tag dimension."},
    {"streams.acceptable.recovery.lag", KC_CONFIG_TYPE_LONG, true, "10000", 0,
     "group.streams.acceptable.recovery.lag",
     "The maximum acceptable lag (number of offsets to catch up) for a client to be considered "
     "caught-up enough to receive an active task assignment."},
    {"streams.assignor.name", KC_CONFIG_TYPE_STRING, false, NULL, NO_MIN, "group.streams.assignors",
     "The task assignor to use for this streams group, selected by short name from the "
     "assignors registered via the broker configuration group.streams.assignors. When unset, "
     "the group defaults to the first assignor configured in the broker's "
     "group.streams.assignors setting. Changing the assignor does not trigger a rebalance for "
     "the group; the new assignor takes effect on the next rebalance."},
    {"errors.deadletterqueue.topic.name", KC_CONFIG_TYPE_STRING, false, "", NO_MIN, NULL,
     "The name of the topic to be used as the dead-letter queue (DLQ) topic for this share "
     "group. If blank (the default), the group does not have a DLQ topic."},
    {"errors.deadletterqueue.copy.record.enable", KC_CONFIG_TYPE_BOOLEAN, false, "false", NO_MIN,
     NULL,
     "When writing onto the dead-letter queue topic, whether to copy the original record onto "
     "the DLQ topic, or just write a record containing the context information headers."},
};
const size_t kc_group_config_ndefs = KC_ARRAY_LEN(kc_group_config_defs);

/*
 * The order DescribeConfigs lists a group's configs in: the internal ones
 * first (from AbstractConfig.originals), then the others in the order of
 * the java.util.HashMap of their names that AbstractConfig.nonInternalValues
 * iterates (ConfigHelperUtils.createResponseConfig).
 */
static const char *const describe_order[] = {
    "consumer.assignor.offload.enable",
    "share.assignor.offload.enable",
    "streams.assignor.offload.enable",
    "streams.task.offset.interval.ms",
    "streams.num.warmup.replicas",
    "streams.acceptable.recovery.lag",
    "consumer.session.timeout.ms",
    "streams.assignor.name",
    "consumer.assignment.interval.ms",
    "errors.deadletterqueue.copy.record.enable",
    "share.auto.offset.reset",
    "streams.rack.aware.assignment.tags",
    "share.renew.acknowledge.enable",
    "streams.initial.rebalance.delay.ms",
    "share.session.timeout.ms",
    "streams.assignment.interval.ms",
    "share.heartbeat.interval.ms",
    "streams.heartbeat.interval.ms",
    "share.delivery.count.limit",
    "errors.deadletterqueue.topic.name",
    "consumer.heartbeat.interval.ms",
    "share.record.lock.duration.ms",
    "share.assignment.interval.ms",
    "share.isolation.level",
    "streams.session.timeout.ms",
    "share.partition.max.record.locks",
    "streams.num.standby.replicas",
};

const kc_group_config_def_t *kc_group_config_def(kc_str_t name)
{
    for (size_t i = 0; i < KC_ARRAY_LEN(kc_group_config_defs); i++)
        if (kc_str_eq(name, kc_str(kc_group_config_defs[i].name)))
            return &kc_group_config_defs[i];
    return NULL;
}

const kc_group_config_def_t *kc_group_config_describe_at(size_t i)
{
    _Static_assert(KC_ARRAY_LEN(describe_order) == KC_ARRAY_LEN(kc_group_config_defs),
                   "every group config is described");
    return i < KC_ARRAY_LEN(describe_order) ? kc_group_config_def(kc_str(describe_order[i])) : NULL;
}

/* ---- the broker's bounds (GroupCoordinatorConfig, ShareGroupConfig) ---- */

/*
 * The broker properties that bound a group config: kcoord's value where it
 * has the property, else Kafka's default (kcoord has no share groups, a
 * constant standby maximum and no consumer assignment interval).
 */
typedef struct {
    const char *name; /* the group config */
    enum { RANGE, AT_MOST, AT_LEAST } kind;
    int32_t min, max;
} bound_t;

static void bounds_of(const kc_config_t *cfg, bound_t *out, size_t *n)
{
    size_t k = 0;
    /* GroupConfig.validateValues' order. */
    out[k++] = (bound_t){"consumer.heartbeat.interval.ms", RANGE,
                         cfg->group_consumer_min_heartbeat_interval_ms,
                         cfg->group_consumer_max_heartbeat_interval_ms};
    out[k++] = (bound_t){"consumer.session.timeout.ms", RANGE,
                         cfg->group_consumer_min_session_timeout_ms,
                         cfg->group_consumer_max_session_timeout_ms};
    out[k++] = (bound_t){"consumer.assignment.interval.ms", RANGE, 0, 15000};
    out[k++] = (bound_t){"share.heartbeat.interval.ms", RANGE, 5000, 15000};
    out[k++] = (bound_t){"share.session.timeout.ms", RANGE, 45000, 60000};
    out[k++] = (bound_t){"share.record.lock.duration.ms", RANGE, 15000, 60000};
    out[k++] = (bound_t){"share.delivery.count.limit", RANGE, 2, 10};
    out[k++] = (bound_t){"share.partition.max.record.locks", RANGE, 100, 4000};
    out[k++] = (bound_t){"share.assignment.interval.ms", RANGE, 0, 15000};
    out[k++] = (bound_t){"streams.heartbeat.interval.ms", RANGE,
                         cfg->group_streams_min_heartbeat_interval_ms,
                         cfg->group_streams_max_heartbeat_interval_ms};
    out[k++] = (bound_t){"streams.session.timeout.ms", RANGE,
                         cfg->group_streams_min_session_timeout_ms,
                         cfg->group_streams_max_session_timeout_ms};
    out[k++] = (bound_t){"streams.num.standby.replicas", AT_MOST, 0, KC_STREAMS_MAX_STANDBY_REPLICAS};
    out[k++] = (bound_t){"streams.assignment.interval.ms", RANGE, 0, 15000};
    out[k++] = (bound_t){"streams.task.offset.interval.ms", AT_LEAST, 15000, 0};
    out[k++] = (bound_t){"streams.num.warmup.replicas", AT_MOST, 0, 20};
    *n = k;
}

#define NBOUNDS 16

/* ---- GroupConfig.validate ---- */

/* The value of config name among the n pairs (the last one), or NULL. */
static const kc_str_t *pair_value(size_t n, const kc_str_t *names, const kc_str_t *values,
                                  const char *name)
{
    const kc_str_t *v = NULL;
    for (size_t i = 0; i < n; i++)
        if (kc_str_eq(names[i], kc_str(name)))
            v = &values[i];
    return v;
}

/* The trimmed value as a C string in buf (cut at len - 1 bytes). */
static const char *trimmed(kc_str_t v, char *buf, size_t len)
{
    const char *p = v.ptr ? v.ptr : "";
    size_t n = (size_t)KC_MAX(v.len, 0);
    while (n && isspace((unsigned char)*p))
        p++, n--;
    while (n && isspace((unsigned char)p[n - 1]))
        n--;
    n = KC_MIN(n, len - 1);
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* Java's Duration.parse of an ISO-8601 duration (PnDTnHnMn.nS, signs
 * allowed), true with its sign in *negative. */
static bool iso_duration(const char *s, bool *negative)
{
    bool neg = false, any = false;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (toupper((unsigned char)*s++) != 'P')
        return false;
    bool time = false, seen_nonzero_neg = false;
    const char *units = "D";
    while (*s) {
        if (toupper((unsigned char)*s) == 'T') {
            if (time)
                return false;
            time = true;
            units = "HMS";
            s++;
            if (!*s)
                return false;
            continue;
        }
        bool sign = false;
        if (*s == '-' || *s == '+')
            sign = *s++ == '-';
        if (!isdigit((unsigned char)*s))
            return false;
        bool nonzero = false;
        while (isdigit((unsigned char)*s))
            nonzero |= *s++ != '0';
        char u = (char)toupper((unsigned char)*s);
        if ((*s == '.' || *s == ',')) {
            s++;
            while (isdigit((unsigned char)*s))
                nonzero |= *s++ != '0';
            u = (char)toupper((unsigned char)*s);
            if (u != 'S')
                return false;
        }
        const char *at = strchr(units, u);
        if (!u || !at)
            return false;
        units = at + 1;
        s++;
        any = true;
        if (nonzero && sign)
            seen_nonzero_neg = true;
    }
    *negative = neg ^ seen_nonzero_neg;
    return any;
}

/* ShareGroupAutoOffsetResetStrategy.Validator. */
static bool valid_auto_offset_reset(const char *v)
{
    if (strcasecmp(v, "earliest") == 0 || strcasecmp(v, "latest") == 0)
        return true;
    if (strncasecmp(v, "by_duration:", 12) != 0)
        return false;
    bool negative;
    return iso_duration(v + 12, &negative) && !negative;
}

/* Splits a trimmed LIST value at commas with the spaces around them
 * (String.split("\\s*,\\s*", -1)); true when two entries are equal. */
static bool list_has_duplicates(const char *v)
{
    char *copy = kc_xstrndup(v, strlen(v));
    const char *items[64];
    size_t n = 0;
    bool dup = false;
    char *p = copy;
    while (p && n < KC_ARRAY_LEN(items)) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        size_t l = strlen(p);
        while (l && isspace((unsigned char)p[l - 1]))
            p[--l] = '\0';
        for (size_t i = 0; i < n && !dup; i++)
            dup = strcmp(items[i], p) == 0;
        items[n++] = p;
        if (!comma)
            break;
        p = comma + 1;
        while (isspace((unsigned char)*p))
            p++;
    }
    free(copy);
    return dup;
}

int16_t kc_group_configs_check(const kc_config_t *cfg, size_t n, const kc_str_t *names,
                               const kc_str_t *values, char *msg, size_t len)
{
    /* validateNames */
    for (size_t i = 0; i < n; i++) {
        if (!kc_group_config_def(names[i])) {
            snprintf(msg, len, "Unknown group config name: %.*s", (int)KC_MIN(KC_MAX(names[i].len, 0), 249),
                     names[i].ptr ? names[i].ptr : "");
            return KC_ERR_INVALID_CONFIG;
        }
    }
    char buf[512];
    const kc_str_t *tags = pair_value(n, names, values, "streams.rack.aware.assignment.tags");
    if (tags && list_has_duplicates(trimmed(*tags, buf, sizeof(buf)))) {
        snprintf(msg, len, "streams.rack.aware.assignment.tags must not contain duplicate tag keys.");
        return KC_ERR_INVALID_CONFIG;
    }
    /* CONFIG_DEF.parse, in definition order. */
    int64_t num[KC_ARRAY_LEN(kc_group_config_defs)];
    bool has[KC_ARRAY_LEN(kc_group_config_defs)];
    for (size_t d = 0; d < KC_ARRAY_LEN(kc_group_config_defs); d++) {
        const kc_group_config_def_t *def = &kc_group_config_defs[d];
        const kc_str_t *v = pair_value(n, names, values, def->name);
        has[d] = v != NULL;
        num[d] = 0;
        if (!v)
            continue;
        const char *t = trimmed(*v, buf, sizeof(buf));
        bool ok = true;
        switch (def->type) {
        case KC_CONFIG_TYPE_INT:
        case KC_CONFIG_TYPE_LONG:
        case KC_CONFIG_TYPE_BOOLEAN:
            ok = kc_config_value_check(def->name, def->type, def->at_least, NULL, *v, msg, len);
            if (ok && def->type != KC_CONFIG_TYPE_BOOLEAN)
                num[d] = strtoll(t, NULL, 10);
            break;
        default:
            if (strcmp(def->name, "share.isolation.level") == 0) {
                ok = kc_config_value_check(def->name, def->type, NO_MIN,
                                           "read_committed,read_uncommitted", *v, msg, len);
            } else if (strcmp(def->name, "share.auto.offset.reset") == 0 &&
                       !valid_auto_offset_reset(t)) {
                snprintf(msg, len,
                         "Invalid value %.*s for configuration %s: Invalid value `%s` for "
                         "configuration %s. The value must be either 'earliest', 'latest' or of "
                         "the format 'by_duration:<PnDTnHnMn.nS>'.",
                         (int)KC_MIN(KC_MAX(v->len, 0), 64), v->ptr ? v->ptr : "", def->name, t,
                         def->name);
                ok = false;
            }
            break;
        }
        if (!ok)
            return KC_ERR_INVALID_CONFIG;
    }
    /* validateValues: the broker's bounds. */
    bound_t b[NBOUNDS];
    size_t nb;
    bounds_of(cfg, b, &nb);
    for (size_t i = 0; i < nb; i++) {
        const kc_group_config_def_t *def = kc_group_config_def(kc_str(b[i].name));
        size_t d = (size_t)(def - kc_group_config_defs);
        if (!has[d])
            continue;
        int64_t x = num[d];
        if (b[i].kind == RANGE && (x < b[i].min || x > b[i].max)) {
            snprintf(msg, len, "%s must be in the range %d to %d inclusive.", b[i].name, b[i].min,
                     b[i].max);
            return KC_ERR_INVALID_CONFIG;
        }
        if (b[i].kind == AT_MOST && x > b[i].max) {
            snprintf(msg, len, "%s must be less than or equal to %d", b[i].name, b[i].max);
            return KC_ERR_INVALID_CONFIG;
        }
        if (b[i].kind == AT_LEAST && x < b[i].min) {
            snprintf(msg, len, "%s must be greater than or equal to %d", b[i].name, b[i].min);
            return KC_ERR_INVALID_CONFIG;
        }
    }
    /* The selected streams assignor must be one the broker has. */
    const kc_str_t *assignor = pair_value(n, names, values, "streams.assignor.name");
    if (assignor && !kc_str_eq(*assignor, kc_str("sticky"))) {
        snprintf(msg, len,
                 "streams.assignor.name '%.*s' is not a registered task assignor. Registered "
                 "assignors are: [sticky].",
                 (int)KC_MIN(KC_MAX(assignor->len, 0), 249), assignor->ptr ? assignor->ptr : "");
        return KC_ERR_INVALID_CONFIG;
    }
    /* The session timeout must exceed the heartbeat interval. */
    static const struct {
        const char *session, *heartbeat;
    } pairs[] = {
        {"consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"},
        {"share.session.timeout.ms", "share.heartbeat.interval.ms"},
        {"streams.session.timeout.ms", "streams.heartbeat.interval.ms"},
    };
    int64_t dflt[][2] = {
        {cfg->group_consumer_session_timeout_ms, cfg->group_consumer_heartbeat_interval_ms},
        {45000, 5000},
        {cfg->group_streams_session_timeout_ms, cfg->group_streams_heartbeat_interval_ms},
    };
    for (size_t i = 0; i < KC_ARRAY_LEN(pairs); i++) {
        size_t ds = (size_t)(kc_group_config_def(kc_str(pairs[i].session)) - kc_group_config_defs);
        size_t dh = (size_t)(kc_group_config_def(kc_str(pairs[i].heartbeat)) - kc_group_config_defs);
        if (!has[ds] && !has[dh])
            continue;
        int64_t session = has[ds] ? num[ds] : dflt[i][0];
        int64_t heartbeat = has[dh] ? num[dh] : dflt[i][1];
        if (session <= heartbeat) {
            snprintf(msg, len, "%s must be greater than %s", pairs[i].session, pairs[i].heartbeat);
            return KC_ERR_INVALID_CONFIG;
        }
    }
    const kc_str_t *dlq = pair_value(n, names, values, "errors.deadletterqueue.topic.name");
    if (dlq && dlq->len >= 2 && memcmp(dlq->ptr, "__", 2) == 0) {
        snprintf(msg, len,
                 "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'");
        return KC_ERR_INVALID_CONFIG;
    }
    return KC_ERR_NONE;
}

/* ---- GroupConfigManager.updateGroupConfig ---- */

/* The int override name of c bounded as GroupConfig.evaluate bounds it, or -1. */
static int64_t evaluated(const kc_config_t *cfg, const kc_group_config_t *c, const char *name)
{
    const char *v = kc_group_config_value(c, name);
    if (!v)
        return -1;
    char buf[64];
    int64_t x = strtoll(trimmed(kc_str(v), buf, sizeof(buf)), NULL, 10);
    bound_t b[NBOUNDS];
    size_t nb;
    bounds_of(cfg, b, &nb);
    for (size_t i = 0; i < nb; i++) {
        if (strcmp(b[i].name, name) != 0)
            continue;
        if (b[i].kind != AT_MOST && x < b[i].min)
            x = b[i].min;
        if (b[i].kind != AT_LEAST && x > b[i].max)
            x = b[i].max;
        if (x != strtoll(buf, NULL, 10))
            kc_log_warn("config",
                        "The group config '%s' for group '%s' has value %s which is outside the "
                        "broker's allowed range. The effective value will be capped to %lld.",
                        name, c->group_id, buf, (long long)x);
    }
    return x;
}

void kc_group_configs_apply(kc_server_t *s, kc_str_t group_id)
{
    const kc_group_config_t *c = kc_group_configs_find(s->group_configs, group_id);
    if (!c) {
        kc_coord_set_group_overrides(s->coord, group_id, NULL);
        return;
    }
    const kc_config_t *cfg = s->cfg;
    kc_group_overrides_t o;
    kc_group_overrides_init(&o);
    o.consumer_session_timeout_ms = (int32_t)evaluated(cfg, c, "consumer.session.timeout.ms");
    o.consumer_heartbeat_interval_ms = (int32_t)evaluated(cfg, c, "consumer.heartbeat.interval.ms");
    o.streams_session_timeout_ms = (int32_t)evaluated(cfg, c, "streams.session.timeout.ms");
    o.streams_heartbeat_interval_ms = (int32_t)evaluated(cfg, c, "streams.heartbeat.interval.ms");
    o.streams_num_standby_replicas = (int32_t)evaluated(cfg, c, "streams.num.standby.replicas");
    o.streams_initial_rebalance_delay_ms =
        (int32_t)evaluated(cfg, c, "streams.initial.rebalance.delay.ms");
    o.streams_assignment_interval_ms = (int32_t)evaluated(cfg, c, "streams.assignment.interval.ms");
    o.streams_task_offset_interval_ms =
        (int32_t)evaluated(cfg, c, "streams.task.offset.interval.ms");
    o.streams_acceptable_recovery_lag = evaluated(cfg, c, "streams.acceptable.recovery.lag");
    kc_coord_set_group_overrides(s->coord, group_id, &o);
}

int32_t kc_group_streams_heartbeat_interval_ms(const kc_server_t *s, kc_str_t group_id)
{
    const kc_group_config_t *c = kc_group_configs_find(s->group_configs, group_id);
    int64_t v = c ? evaluated(s->cfg, c, "streams.heartbeat.interval.ms") : -1;
    return v >= 0 ? (int32_t)v : s->cfg->group_streams_heartbeat_interval_ms;
}

void kc_group_configs_apply_all(kc_server_t *s)
{
    for (size_t i = 0; i < kc_group_configs_count(s->group_configs); i++) {
        const kc_group_config_t *c = kc_group_configs_at(s->group_configs, i);
        kc_group_configs_apply(s, (kc_str_t){c->group_id, (int32_t)c->group_id_len});
    }
}
