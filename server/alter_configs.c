/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IncrementalAlterConfigs (API 44, KIP-339) and the legacy AlterConfigs
 * (API 33) as a single Kafka 4.4 broker with its KRaft controller answers
 * them: the broker's preprocessing (ConfigAdminManager.preprocess:
 * resources named twice, duplicated keys, null values, BROKER and
 * BROKER_LOGGER resources, unknown types), then the controller's part
 * (ControllerApis: ALTER_CONFIGS authorization; ConfigurationControlManager:
 * the new values, ControllerConfigurationValidator, the topic's existence)
 * for TOPIC and GROUP resources; the answer lists the resources in request
 * order (ConfigAdminManager.reassembleIncrementalResponse).
 *
 * A topic's changed configs are stored with the topic and act at once (the
 * log reads them for every append, fetch and retention pass); a group's go
 * to the group config table and to the coordinator. kcoord changes no
 * broker config at run time: it answers a change of one of its properties
 * as Kafka answers a change of a static one. The root logger stands for
 * kcoord's log.level; CLIENT_METRICS resources (KIP-714) are not served.
 */
#include "server_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"

/* AlterConfigOp.OpType */
enum { OP_SET = 0, OP_DELETE = 1, OP_APPEND = 2, OP_SUBTRACT = 3 };

#define MSG_MAX 1024
/* ConfigurationControlManager's DISALLOWED_CONFIG_VALUE_SIZE_ERROR bound. */
#define VALUE_MAX 32767

/* One config change of either API (legacy: op is SET). */
typedef struct {
    kc_str_t name, value;
    int8_t op;
} change_t;

/* One resource of the request and its answer. */
typedef struct {
    int8_t type;
    kc_str_t name;
    change_t *changes;
    int32_t nchanges;
    bool done;      /* answered (error or not) */
    int16_t error;
    kc_str_t message; /* null for none */
} resource_t;

typedef struct {
    kc_req_t *req;
    bool incremental;
    bool validate_only;
    resource_t *res;
    int32_t n;
} alter_t;

static void answer(alter_t *a, resource_t *r, int16_t error, const char *msg)
{
    r->done = true;
    r->error = error;
    if (msg) {
        size_t n = strlen(msg);
        char *p = kc_arena_alloc(a->req->arena, n + 1);
        memcpy(p, msg, n + 1);
        r->message = (kc_str_t){p, (int32_t)n};
    } else {
        r->message = KC_STR_NULL;
    }
}

static int str_n(kc_str_t s)
{
    return KC_MAX(s.len, 0);
}

static const char *str_p(kc_str_t s)
{
    return s.ptr ? s.ptr : "";
}

/* ---- BROKER and BROKER_LOGGER (the broker's preprocessing) ---- */

/* ConfigAdminManager.validateResourceNameIsCurrentNodeId (and
 * RuntimeLoggerManager's, with its own words): false with msg set. */
static bool node_id_ok(const kc_server_t *s, kc_str_t name, bool logger, char *msg)
{
    char buf[32];
    char *end = NULL;
    long id = 0;
    bool parsed = false;
    if (str_n(name) > 0 && str_n(name) < (int)sizeof(buf)) {
        memcpy(buf, name.ptr, (size_t)name.len);
        buf[name.len] = '\0';
        errno = 0;
        id = strtol(buf, &end, 10);
        /* Integer.parseInt: an optional sign, then digits only. */
        const char *digits = buf + (buf[0] == '-' || buf[0] == '+');
        parsed = !errno && end && !*end && *digits >= '0' && *digits <= '9' &&
                 id >= INT32_MIN && id <= INT32_MAX;
    }
    if (!parsed) {
        snprintf(msg, MSG_MAX, "Node id must be an integer, but it is: %.*s",
                 KC_MIN(str_n(name), 200), str_p(name));
        return false;
    }
    if (id != s->cfg->node_id) {
        if (logger)
            snprintf(msg, MSG_MAX, "Unexpected node id. Expected %d, but received %ld",
                     s->cfg->node_id, id);
        else
            snprintf(msg, MSG_MAX, "Unexpected broker id, expected %d, but received %.*s",
                     s->cfg->node_id, str_n(name), str_p(name));
        return false;
    }
    return true;
}

/* The LIST broker configs kcoord has (APPEND and SUBTRACT need one). */
static bool broker_list_config(const char *name)
{
    return strcmp(name, "log.cleanup.policy") == 0 || strcmp(name, "listeners") == 0 ||
           strcmp(name, "advertised.listeners") == 0 || strcmp(name, "log.dirs") == 0 ||
           strcmp(name, "super.users") == 0 || strcmp(name, "sasl.enabled.mechanisms") == 0;
}

/*
 * ConfigAdminManager.validateBrokerConfigChange on a broker none of whose
 * configs is dynamic: the changes are applied to the (empty) dynamic set,
 * then every config left in it that kcoord knows is one it cannot update.
 * Names kcoord does not know are accepted and ignored, as Kafka accepts
 * (and keeps) names it does not know.
 */
static void broker_change(alter_t *a, resource_t *r)
{
    kc_server_t *s = a->req->srv;
    char msg[MSG_MAX];
    if (str_n(r->name) > 0 && !node_id_ok(s, r->name, false, msg)) {
        answer(a, r, KC_ERR_INVALID_REQUEST, msg);
        return;
    }
    size_t used = 0;
    for (int32_t i = 0; i < r->nchanges; i++)
        if (r->changes[i].op < OP_SET || r->changes[i].op > OP_SUBTRACT) {
            snprintf(msg, sizeof(msg), "Unknown operations type %d", r->changes[i].op);
            answer(a, r, KC_ERR_INVALID_REQUEST, msg);
            return;
        }
    for (int32_t i = 0; i < r->nchanges; i++) {
        const change_t *c = &r->changes[i];
        char name[256];
        snprintf(name, sizeof(name), "%.*s", KC_MIN(str_n(c->name), 255), str_p(c->name));
        bool known = kc_config_property_find(name) != NULL;
        if (c->op == OP_APPEND || c->op == OP_SUBTRACT) {
            if (!known)
                snprintf(msg, sizeof(msg), "Unknown config name: %s", name);
            else if (!broker_list_config(name))
                snprintf(msg, sizeof(msg), "Config value %s is not allowed for config key: %s",
                         c->op == OP_APPEND ? "append" : "subtract", name);
            if (!known || !broker_list_config(name)) {
                answer(a, r, KC_ERR_INVALID_CONFIG, msg);
                return;
            }
        }
    }
    /* What is left set after the changes (each name appears once), in
     * request order. */
    char list[MSG_MAX];
    list[0] = '\0';
    for (int32_t i = 0; i < r->nchanges; i++) {
        const change_t *c = &r->changes[i];
        char name[256];
        snprintf(name, sizeof(name), "%.*s", KC_MIN(str_n(c->name), 255), str_p(c->name));
        if (c->op == OP_DELETE || !kc_config_property_find(name))
            continue;
        if (used < sizeof(list))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
                                     name);
    }
    if (used) {
        snprintf(msg, sizeof(msg), "Cannot update these configs dynamically: [%s]", list);
        answer(a, r, KC_ERR_INVALID_REQUEST, msg);
        return;
    }
    answer(a, r, KC_ERR_NONE, NULL);
}

/* log4j's levels and the kcoord level each stands for. */
static const struct {
    const char *name;
    kc_log_level_t level;
} log_levels[] = {
    {"DEBUG", KC_LOG_DEBUG}, {"ERROR", KC_LOG_ERROR}, {"FATAL", KC_LOG_ERROR},
    {"INFO", KC_LOG_INFO},   {"TRACE", KC_LOG_DEBUG}, {"WARN", KC_LOG_WARN},
};

/*
 * RuntimeLoggerManager.applyChangesForResource with one logger, "root",
 * standing for kcoord's log level (TRACE and DEBUG are debug, FATAL is
 * error): ALTER_CONFIGS on the cluster, the node id, then each change.
 */
static void logger_change(alter_t *a, resource_t *r)
{
    kc_req_t *req = a->req;
    char msg[MSG_MAX];
    if (!kc_req_authorized_cluster(req, KC_OP_ALTER_CONFIGS)) {
        answer(a, r, KC_ERR_CLUSTER_AUTHORIZATION_FAILED, NULL);
        return;
    }
    if (!node_id_ok(req->srv, r->name, true, msg)) {
        answer(a, r, KC_ERR_INVALID_REQUEST, msg);
        return;
    }
    int level = -1;
    for (int32_t i = 0; i < r->nchanges; i++) {
        const change_t *c = &r->changes[i];
        bool root = kc_str_eq(c->name, kc_str("root"));
        int16_t err = KC_ERR_NONE;
        if (c->op == OP_APPEND || c->op == OP_SUBTRACT) {
            snprintf(msg, sizeof(msg), "%s operation is not allowed for the BROKER_LOGGER resource",
                     c->op == OP_APPEND ? "APPEND" : "SUBTRACT");
            err = KC_ERR_INVALID_REQUEST;
        } else if (c->op != OP_SET && c->op != OP_DELETE) {
            snprintf(msg, sizeof(msg),
                     "Unknown operation type %d is not allowed for the BROKER_LOGGER resource",
                     c->op);
            err = KC_ERR_INVALID_REQUEST;
        } else if (!root) {
            snprintf(msg, sizeof(msg), "Logger %.*s does not exist!", KC_MIN(str_n(c->name), 249),
                     str_p(c->name));
            err = KC_ERR_INVALID_CONFIG;
        } else if (c->op == OP_DELETE) {
            snprintf(msg, sizeof(msg), "Removing the log level of the root logger is not allowed");
            err = KC_ERR_INVALID_REQUEST;
        } else {
            level = -1;
            for (size_t k = 0; k < KC_ARRAY_LEN(log_levels); k++)
                if (kc_str_eq(c->value, kc_str(log_levels[k].name)))
                    level = (int)log_levels[k].level;
            if (level < 0) {
                snprintf(msg, sizeof(msg),
                         "Cannot set the log level of root to %.*s as it is not a supported log "
                         "level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN",
                         KC_MIN(str_n(c->value), 64), str_p(c->value));
                err = KC_ERR_INVALID_CONFIG;
            }
        }
        if (err != KC_ERR_NONE) {
            answer(a, r, err, msg);
            return;
        }
    }
    if (!a->validate_only && level >= 0) {
        kc_log_set_level((kc_log_level_t)level);
        kc_log_warn("config", "Updated the log level of root");
    }
    answer(a, r, KC_ERR_NONE, NULL);
}

/* ---- the broker's preprocessing ---- */

static void preprocess(alter_t *a)
{
    char msg[MSG_MAX];
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t j = i + 1; j < a->n; j++)
            if (a->res[i].type == a->res[j].type && kc_str_eq(a->res[i].name, a->res[j].name)) {
                answer(a, &a->res[i], KC_ERR_INVALID_REQUEST,
                       "Each resource must appear at most once.");
                answer(a, &a->res[j], KC_ERR_INVALID_REQUEST,
                       "Each resource must appear at most once.");
            }
    for (int32_t i = 0; i < a->n; i++) {
        resource_t *r = &a->res[i];
        if (r->done)
            continue;
        bool dup = false;
        for (int32_t x = 0; x < r->nchanges && !dup; x++)
            for (int32_t y = x + 1; y < r->nchanges && !dup; y++)
                dup = kc_str_eq(r->changes[x].name, r->changes[y].name);
        if (dup) {
            answer(a, r, KC_ERR_INVALID_REQUEST, "Error due to duplicate config keys");
            continue;
        }
        size_t used = 0;
        for (int32_t x = 0; x < r->nchanges; x++) {
            const change_t *c = &r->changes[x];
            if (!kc_str_is_null(c->value) || (a->incremental && c->op == OP_DELETE))
                continue;
            if (used == 0)
                used = (size_t)snprintf(msg, sizeof(msg), "Null value not supported for : ");
            else if (used < sizeof(msg))
                used += (size_t)snprintf(msg + used, sizeof(msg) - used, ", ");
            if (used < sizeof(msg))
                used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%.*s",
                                         KC_MIN(str_n(c->name), 249), str_p(c->name));
        }
        if (used) {
            answer(a, r, KC_ERR_INVALID_REQUEST, msg);
            continue;
        }
        /* The legacy API has no BROKER_LOGGER; CLIENT_METRICS is not served. */
        if (r->type == KC_CONFIG_RESOURCE_BROKER_LOGGER && a->incremental) {
            logger_change(a, r);
        } else if (r->type == KC_CONFIG_RESOURCE_BROKER) {
            broker_change(a, r);
        } else if (r->type != KC_CONFIG_RESOURCE_TOPIC && r->type != KC_CONFIG_RESOURCE_GROUP) {
            snprintf(msg, sizeof(msg), "Unknown resource type %d", r->type);
            answer(a, r, KC_ERR_INVALID_REQUEST, msg);
        }
    }
}

/* ---- the controller's part (TOPIC and GROUP) ---- */

/* A resource's current dynamic configs and, being computed, its new ones. */
typedef struct {
    size_t n, cap;
    kc_str_t *names, *values;
} config_set_t;

static void set_put(kc_arena_t *ar, config_set_t *cs, kc_str_t name, kc_str_t value)
{
    for (size_t i = 0; i < cs->n; i++)
        if (kc_str_eq(cs->names[i], name)) {
            cs->values[i] = value;
            return;
        }
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 16;
        kc_str_t *nn = kc_arena_alloc(ar, cap * sizeof(*nn));
        kc_str_t *nv = kc_arena_alloc(ar, cap * sizeof(*nv));
        if (cs->n) {
            memcpy(nn, cs->names, cs->n * sizeof(*nn));
            memcpy(nv, cs->values, cs->n * sizeof(*nv));
        }
        cs->names = nn;
        cs->values = nv;
        cs->cap = cap;
    }
    cs->names[cs->n] = name;
    cs->values[cs->n++] = value;
}

static const kc_str_t *set_get(const config_set_t *cs, kc_str_t name)
{
    for (size_t i = 0; i < cs->n; i++)
        if (kc_str_eq(cs->names[i], name))
            return &cs->values[i];
    return NULL;
}

static void set_del(config_set_t *cs, kc_str_t name)
{
    for (size_t i = 0; i < cs->n; i++)
        if (kc_str_eq(cs->names[i], name)) {
            memmove(cs->names + i, cs->names + i + 1, (cs->n - i - 1) * sizeof(*cs->names));
            memmove(cs->values + i, cs->values + i + 1, (cs->n - i - 1) * sizeof(*cs->values));
            cs->n--;
            return;
        }
}

/* The stored configs of the resource. */
static void current_configs(alter_t *a, const resource_t *r, config_set_t *cs)
{
    kc_server_t *s = a->req->srv;
    memset(cs, 0, sizeof(*cs));
    if (r->type == KC_CONFIG_RESOURCE_TOPIC) {
        const kc_topic_t *t = kc_topics_find(s->topics, r->name);
        for (size_t i = 0; t && i < t->nconfigs; i++)
            set_put(a->req->arena, cs, kc_str(t->config_names[i]), kc_str(t->config_values[i]));
    } else {
        const kc_group_config_t *g = kc_group_configs_find(s->group_configs, r->name);
        for (size_t i = 0; g && i < g->nconfigs; i++)
            set_put(a->req->arena, cs, kc_str(g->names[i]), kc_str(g->values[i]));
    }
}

/* Whether name is a LIST config of the resource's type (ConfigSchema.isSplittable),
 * with its default in *dflt. Kafka's controller knows the types of topic and
 * broker configs only, so no group config is one (streams.rack.aware.assignment.tags
 * included). */
static bool splittable(const resource_t *r, kc_str_t name, const char **dflt)
{
    *dflt = NULL;
    if (r->type != KC_CONFIG_RESOURCE_TOPIC)
        return false;
    char buf[256];
    snprintf(buf, sizeof(buf), "%.*s", KC_MIN(str_n(name), 255), str_p(name));
    *dflt = kc_topic_config_list_default(buf);
    return *dflt != NULL;
}

/* Java's String.split(",") of s (trailing empty strings dropped, "" gives
 * [""]), into *out (arena-owned). Returns the count. */
static size_t java_split(kc_arena_t *ar, kc_str_t s, kc_str_t **out)
{
    int n = str_n(s);
    const char *p = str_p(s);
    size_t cnt = 0;
    *out = kc_arena_alloc(ar, ((size_t)n + 1) * sizeof(**out));
    int start = 0;
    for (int i = 0; i <= n; i++) {
        if (i == n || p[i] == ',') {
            (*out)[cnt++] = (kc_str_t){p + start, i - start};
            start = i + 1;
        }
    }
    if (n == 0)
        return 1; /* "".split(",") is [""] */
    while (cnt > 0 && (*out)[cnt - 1].len == 0)
        cnt--;
    return cnt;
}

/* ConfigurationControlManager.getParts: the non-empty parts of v (NULL:
 * the default dflt). */
static size_t parts_of(const kc_str_t *v, const char *dflt, kc_str_t *parts, size_t cap)
{
    kc_str_t s = v ? *v : kc_str(dflt ? dflt : "");
    size_t n = 0;
    int len = str_n(s), start = 0;
    for (int i = 0; i <= len; i++)
        if (i == len || s.ptr[i] == ',') {
            if (i > start && n < cap)
                parts[n++] = (kc_str_t){s.ptr + start, i - start};
            start = i + 1;
        }
    return n;
}

static kc_str_t join(kc_arena_t *ar, const kc_str_t *parts, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += (size_t)parts[i].len + 1;
    char *p = kc_arena_alloc(ar, total + 1);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            p[used++] = ',';
        memcpy(p + used, parts[i].ptr, (size_t)parts[i].len);
        used += (size_t)parts[i].len;
    }
    p[used] = '\0';
    return (kc_str_t){p, (int32_t)used};
}

/* incrementalAlterConfigResource's new values; false when r was answered. */
static bool apply_ops(alter_t *a, resource_t *r, config_set_t *cs, bool *changed)
{
    kc_arena_t *ar = a->req->arena;
    char msg[MSG_MAX];
    *changed = false;
    for (int32_t i = 0; i < r->nchanges; i++) {
        const change_t *c = &r->changes[i];
        const kc_str_t *cur = set_get(cs, c->name);
        kc_str_t nv = KC_STR_NULL;
        bool has = false;
        switch (c->op) {
        case OP_SET:
            nv = c->value;
            has = true;
            break;
        case OP_DELETE:
            break;
        default: {
            const char *dflt;
            const char *opname = c->op == OP_APPEND ? "APPEND" : "SUBTRACT";
            if (!splittable(r, c->name, &dflt)) {
                snprintf(msg, sizeof(msg), "Can't %s to key %.*s because its type is not LIST.",
                         opname, KC_MIN(str_n(c->name), 249), str_p(c->name));
                answer(a, r, KC_ERR_INVALID_CONFIG, msg);
                return false;
            }
            size_t cap = (size_t)str_n(cur ? *cur : kc_str(dflt)) + (size_t)str_n(c->value) + 2;
            kc_str_t *parts = kc_arena_alloc(ar, cap * sizeof(*parts));
            size_t np = parts_of(cur, dflt, parts, cap);
            kc_str_t *items;
            size_t ni = java_split(ar, c->value, &items);
            for (size_t k = 0; k < ni; k++) {
                size_t at = np;
                for (size_t j = 0; j < np && at == np; j++)
                    if (kc_str_eq(parts[j], items[k]))
                        at = j;
                if (c->op == OP_APPEND && at == np && np < cap)
                    parts[np++] = items[k];
                else if (c->op == OP_SUBTRACT && at < np) {
                    memmove(parts + at, parts + at + 1, (np - at - 1) * sizeof(*parts));
                    np--;
                }
            }
            nv = join(ar, parts, np);
            has = true;
            break;
        }
        }
        bool same = has ? (cur && kc_str_eq(*cur, nv)) : !cur;
        if (same)
            continue;
        *changed = true;
        if (has)
            set_put(ar, cs, c->name, nv);
        else
            set_del(cs, c->name);
    }
    return true;
}

/* ControllerApis.authorizeAlterResource; false when r was answered. */
static bool authorized(alter_t *a, resource_t *r)
{
    int16_t err = KC_ERR_NONE;
    if (r->type == KC_CONFIG_RESOURCE_TOPIC &&
        !kc_req_authorized(a->req, KC_OP_ALTER_CONFIGS, KC_RES_TOPIC, r->name))
        err = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
    else if (r->type == KC_CONFIG_RESOURCE_GROUP &&
             !kc_req_authorized(a->req, KC_OP_ALTER_CONFIGS, KC_RES_GROUP, r->name))
        err = KC_ERR_GROUP_AUTHORIZATION_FAILED;
    if (err == KC_ERR_NONE)
        return true;
    answer(a, r, err, kc_error_message(err));
    return false;
}

/* validateAlterConfig: the value sizes, ControllerConfigurationValidator
 * on the whole new set, then the topic's existence; false when answered. */
static bool validate(alter_t *a, resource_t *r, const config_set_t *cs)
{
    kc_server_t *s = a->req->srv;
    char msg[MSG_MAX];
    for (size_t i = 0; i < cs->n; i++)
        if (cs->values[i].len > VALUE_MAX) {
            answer(a, r, KC_ERR_INVALID_CONFIG,
                   "The configuration value cannot be added because it exceeds the maximum "
                   "value size of 32767 bytes.");
            return false;
        }
    int16_t err;
    if (r->type == KC_CONFIG_RESOURCE_TOPIC) {
        if (str_n(r->name) == 0) {
            answer(a, r, KC_ERR_INVALID_REQUEST, "Default topic resources are not allowed.");
            return false;
        }
        const char *bad = kc_topic_validate_message(a->req->arena, r->name);
        if (bad) {
            answer(a, r, KC_ERR_INVALID_TOPIC_EXCEPTION, bad);
            return false;
        }
        err = kc_topic_configs_check(cs->n, cs->names, cs->values, msg, sizeof(msg));
        if (err == KC_ERR_NONE && !kc_topics_find(s->topics, r->name)) {
            snprintf(msg, sizeof(msg), "The topic '%.*s' does not exist.", str_n(r->name),
                     str_p(r->name));
            err = KC_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        }
    } else {
        if (str_n(r->name) == 0) {
            answer(a, r, KC_ERR_INVALID_REQUEST, "Default group resources are not allowed.");
            return false;
        }
        err = kc_group_configs_check(s->cfg, cs->n, cs->names, cs->values, msg, sizeof(msg));
    }
    if (err != KC_ERR_NONE) {
        answer(a, r, err, msg);
        return false;
    }
    return true;
}

/* Stores the new set and makes it act. */
static void commit_set(alter_t *a, resource_t *r, const config_set_t *cs)
{
    kc_server_t *s = a->req->srv;
    int rc;
    if (r->type == KC_CONFIG_RESOURCE_TOPIC) {
        rc = kc_topics_set_configs(s->topics, r->name, cs->n, cs->names, cs->values);
        const kc_topic_t *t = kc_topics_find(s->topics, r->name);
        if (rc == 0 && t)
            kc_log_topic_config_changed(s->log, t->id);
    } else {
        rc = kc_group_configs_set(s->group_configs, r->name, cs->n, cs->names, cs->values);
        if (rc == 0)
            kc_group_configs_apply(s, r->name);
    }
    if (rc != 0) {
        answer(a, r, KC_ERR_UNKNOWN_SERVER_ERROR, NULL);
        return;
    }
    kc_log_info("config", "%s %.*s: %zu dynamic configs", r->type == KC_CONFIG_RESOURCE_TOPIC ?
                "topic" : "group", str_n(r->name), str_p(r->name), cs->n);
    answer(a, r, KC_ERR_NONE, NULL);
}

static void controller(alter_t *a)
{
    /* ConfigResource.Type.forId(op) is null for an unknown operation: the
     * controller's whole request fails (UNKNOWN_SERVER_ERROR for each of
     * the resources it got). */
    bool bad_op = false;
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t j = 0; !a->res[i].done && j < a->res[i].nchanges; j++)
            bad_op |= a->res[i].changes[j].op < OP_SET || a->res[i].changes[j].op > OP_SUBTRACT;
    for (int32_t i = 0; i < a->n; i++) {
        resource_t *r = &a->res[i];
        if (r->done)
            continue;
        if (bad_op) {
            answer(a, r, KC_ERR_UNKNOWN_SERVER_ERROR, NULL);
            continue;
        }
        if (!authorized(a, r))
            continue;
        config_set_t cs;
        bool changed = true;
        if (a->incremental) {
            current_configs(a, r, &cs);
            if (!apply_ops(a, r, &cs, &changed))
                continue;
        } else {
            memset(&cs, 0, sizeof(cs));
            for (int32_t j = 0; j < r->nchanges; j++)
                set_put(a->req->arena, &cs, r->changes[j].name, r->changes[j].value);
        }
        if (!validate(a, r, &cs))
            continue;
        if (a->validate_only || !changed)
            answer(a, r, KC_ERR_NONE, NULL);
        else
            commit_set(a, r, &cs);
    }
}

static int respond(alter_t *a)
{
    kc_req_t *req = a->req;
    int16_t v = req->ctx.api_version;
    kc_buf_t b;
    kc_buf_init(&b);
    int rc;
    if (a->incremental) {
        kc_incremental_alter_configs_response_t resp;
        kc_incremental_alter_configs_response_init(&resp);
        resp.responses.items =
            kc_arena_alloc(req->arena, (size_t)(a->n ? a->n : 1) * sizeof(*resp.responses.items));
        resp.responses.count = a->n;
        for (int32_t i = 0; i < a->n; i++) {
            kc_incremental_alter_configs_response_alter_configs_resource_response_t *o =
                &resp.responses.items[i];
            memset(o, 0, sizeof(*o));
            o->error_code = a->res[i].error;
            o->error_message = a->res[i].message;
            o->resource_type = a->res[i].type;
            o->resource_name = a->res[i].name;
        }
        rc = kc_incremental_alter_configs_response_encode(&b, v, &resp);
    } else {
        kc_alter_configs_response_t resp;
        kc_alter_configs_response_init(&resp);
        resp.responses.items =
            kc_arena_alloc(req->arena, (size_t)(a->n ? a->n : 1) * sizeof(*resp.responses.items));
        resp.responses.count = a->n;
        for (int32_t i = 0; i < a->n; i++) {
            kc_alter_configs_response_alter_configs_resource_response_t *o =
                &resp.responses.items[i];
            memset(o, 0, sizeof(*o));
            o->error_code = a->res[i].error;
            o->error_message = a->res[i].message;
            o->resource_type = a->res[i].type;
            o->resource_name = a->res[i].name;
        }
        rc = kc_alter_configs_response_encode(&b, v, &resp);
    }
    return kc_req_respond_encoded(req, rc, &b);
}

static void run(alter_t *a)
{
    preprocess(a);
    controller(a);
}

int kc_handle_incremental_alter_configs(kc_req_t *req)
{
    kc_incremental_alter_configs_request_t rq;
    kc_incremental_alter_configs_request_init(&rq);
    if (kc_incremental_alter_configs_request_decode(req->body, req->ctx.api_version, req->arena,
                                                    &rq) != 0)
        return KC_EINVAL;
    alter_t a = {req, true, rq.validate_only, NULL, KC_MAX(rq.resources.count, 0)};
    a.res = kc_arena_alloc(req->arena, (size_t)(a.n ? a.n : 1) * sizeof(*a.res));
    for (int32_t i = 0; i < a.n; i++) {
        const kc_incremental_alter_configs_request_alter_configs_resource_t *in =
            &rq.resources.items[i];
        resource_t *r = &a.res[i];
        memset(r, 0, sizeof(*r));
        r->type = in->resource_type;
        r->name = in->resource_name;
        r->message = KC_STR_NULL;
        r->nchanges = KC_MAX(in->configs.count, 0);
        r->changes = kc_arena_alloc(req->arena, (size_t)(r->nchanges ? r->nchanges : 1) *
                                                    sizeof(*r->changes));
        for (int32_t j = 0; j < r->nchanges; j++)
            r->changes[j] = (change_t){in->configs.items[j].name, in->configs.items[j].value,
                                       in->configs.items[j].config_operation};
    }
    run(&a);
    return respond(&a);
}

int kc_handle_alter_configs(kc_req_t *req)
{
    kc_alter_configs_request_t rq;
    kc_alter_configs_request_init(&rq);
    if (kc_alter_configs_request_decode(req->body, req->ctx.api_version, req->arena, &rq) != 0)
        return KC_EINVAL;
    alter_t a = {req, false, rq.validate_only, NULL, KC_MAX(rq.resources.count, 0)};
    a.res = kc_arena_alloc(req->arena, (size_t)(a.n ? a.n : 1) * sizeof(*a.res));
    for (int32_t i = 0; i < a.n; i++) {
        const kc_alter_configs_request_alter_configs_resource_t *in = &rq.resources.items[i];
        resource_t *r = &a.res[i];
        memset(r, 0, sizeof(*r));
        r->type = in->resource_type;
        r->name = in->resource_name;
        r->message = KC_STR_NULL;
        r->nchanges = KC_MAX(in->configs.count, 0);
        r->changes = kc_arena_alloc(req->arena, (size_t)(r->nchanges ? r->nchanges : 1) *
                                                    sizeof(*r->changes));
        for (int32_t j = 0; j < r->nchanges; j++)
            r->changes[j] =
                (change_t){in->configs.items[j].name, in->configs.items[j].value, OP_SET};
    }
    run(&a);
    return respond(&a);
}
