/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broker configuration: one table of properties (name, type, default, target
 * field, validator, doc), Kafka's property names where Kafka has one. Values
 * come from a server.properties-style file, then KCOORD_* environment
 * variables, then command-line overrides, each source overriding the one
 * before. Unknown keys and bad values are errors naming the key.
 * No I/O besides reading the config file; no logging.
 */
#ifndef KC_CONFIG_H
#define KC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One parsed listener: "NAME://host:port". host "" = every interface. */
typedef struct {
    char name[64];  /* listener name, e.g. "PLAINTEXT" */
    char host[256]; /* without IPv6 brackets */
    uint16_t port;
} kc_listener_t;

#define KC_MAX_LISTENERS 8
#define KC_CONF_MAX_PROPERTIES 64

typedef struct {
    char *listeners;            /* listeners = PLAINTEXT://127.0.0.1:9092 */
    char *advertised_listeners; /* advertised.listeners = "" (same as listeners) */
    int32_t node_id;            /* node.id = 1 */
    char *log_dirs;             /* log.dirs = ./data (one directory) */
    int32_t num_partitions;     /* num.partitions = 1 */
    bool auto_create_topics_enable;     /* auto.create.topics.enable = true */
    int32_t default_replication_factor; /* default.replication.factor = 1 (only 1) */
    int32_t group_initial_rebalance_delay_ms;       /* 3000 */
    int32_t group_min_session_timeout_ms;           /* 6000 */
    int32_t group_max_session_timeout_ms;           /* 1800000 */
    int32_t group_max_size;                         /* 2147483647 */
    int32_t group_classic_new_member_join_timeout_ms; /* 300000 (hard-coded in Kafka) */
    int32_t group_consumer_heartbeat_interval_ms;   /* 5000 */
    int32_t group_consumer_session_timeout_ms;      /* 45000 */
    int32_t group_consumer_max_size;                /* 2147483647 */
    char *group_consumer_assignors;                 /* uniform,range (names or Kafka class names) */
    int32_t group_streams_session_timeout_ms;       /* 45000 */
    int32_t group_streams_heartbeat_interval_ms;    /* 5000 */
    int32_t group_streams_max_size;                 /* 2147483647 */
    int32_t group_streams_num_standby_replicas;     /* 0 */
    int32_t group_streams_initial_rebalance_delay_ms; /* 3000 */
    int32_t group_streams_assignment_interval_ms;   /* 1000 */
    int32_t group_streams_task_offset_interval_ms;  /* 60000 */
    int64_t group_streams_acceptable_recovery_lag;  /* 10000 */
    bool group_streams_accept_null_owned_tasks_on_previous_epoch; /* false (kcoord's own) */
    int32_t offsets_retention_minutes;              /* 10080 */
    int64_t offsets_retention_check_interval_ms;    /* 600000 */
    int32_t offset_metadata_max_bytes;              /* 4096 */
    int32_t message_max_bytes;                      /* 1048588 */
    int64_t log_message_timestamp_before_max_ms;    /* INT64_MAX */
    int64_t log_message_timestamp_after_max_ms;     /* 3600000 */
    /* Broker retention defaults; log.retention.ms wins over .minutes, which
     * wins over .hours (KafkaConfig.logRetentionTimeMillis); "" = not set. */
    char *log_retention_ms;                         /* "" */
    char *log_retention_minutes;                    /* "" */
    int32_t log_retention_hours;                    /* 168 */
    int64_t log_retention_bytes;                    /* -1 = no size limit */
    int64_t log_retention_check_interval_ms;        /* 300000 */
    int32_t max_incremental_fetch_session_cache_slots; /* 1000 */
    int32_t socket_request_max_bytes;               /* 104857600 */
    int64_t connections_max_idle_ms;                /* 600000 */
    char *cluster_id;           /* 22-char base64url Kafka Uuid */
    int64_t lmdb_map_size_bytes; /* 1 GiB */
    char *log_level;            /* debug, info, warn, error */
    char *admin_listeners;      /* admin.listeners = "" (admin HTTP endpoint off) */
    int32_t admin_events_max;   /* 1000: the admin endpoint's event ring */

    /* Properties given by a source (file, environment, override), by index in
     * the property table; the rest hold their defaults (DescribeConfigs tells
     * STATIC_BROKER_CONFIG from DEFAULT_CONFIG by this). */
    bool explicitly_set[KC_CONF_MAX_PROPERTIES];

    /* Derived, filled by every successful set of listeners/advertised.listeners. */
    kc_listener_t listener[KC_MAX_LISTENERS];
    size_t nlisteners;
    kc_listener_t advertised[KC_MAX_LISTENERS];
    size_t nadvertised; /* 0 = advertise the listeners */
    /* Derived from admin.listeners ("http://host:port"); admin_port -1 = off. */
    char admin_host[256];
    int32_t admin_port;
} kc_config_t;

typedef enum { KC_CONF_INT, KC_CONF_LONG, KC_CONF_BOOL, KC_CONF_STRING } kc_conf_type_t;

/* One row of the property table. */
typedef struct {
    const char *name;
    kc_conf_type_t type;
    const char *default_value; /* as it would be written in the file */
    size_t offset;             /* of the field in kc_config_t */
    int64_t min, max;          /* range for INT/LONG */
    /* Extra check for a parsed value (NULL = none): 0, or -1 with a reason in err. */
    int (*validate)(kc_config_t *c, const char *value, char *err, size_t errlen);
    const char *doc;
} kc_conf_property_t;

/* The property table (read-only), e.g. for --help and the sample-file test. */
size_t kc_config_property_count(void);
const kc_conf_property_t *kc_config_property_at(size_t i);
const kc_conf_property_t *kc_config_property_find(const char *name);
/*
 * The current value of property name as text (Kafka's ConfigDef string
 * form) into out; returns false for an unknown name. *is_set (may be NULL)
 * tells whether a source gave it.
 */
bool kc_config_value_string(const kc_config_t *c, const char *name, char *out, size_t outlen,
                            bool *is_set);

/* Sets every property to its default. Pair with kc_config_deinit. */
void kc_config_init(kc_config_t *c);
/* The server assignor names of group.consumer.assignors, in order: fills
 * out with static strings ("uniform", "range"), returns how many (0..max). */
int kc_config_consumer_assignors(const kc_config_t *c, const char **out, int max);
void kc_config_deinit(kc_config_t *c);

/*
 * Sets one property from its text form (trimmed as Kafka's ConfigDef does).
 * Returns 0, or -1 with a message naming the key in err (unknown key, value
 * not of the property's type, out of range, rejected by the validator).
 */
int kc_config_set(kc_config_t *c, const char *key, const char *value, char *err, size_t errlen);

/*
 * Parses java.util.Properties text (key=value, key: value or key value;
 * '#'/'!' comment lines; backslash line continuation and escapes) and sets
 * each key. origin names the source in messages. 0 or -1 with err set.
 */
int kc_config_parse_properties(kc_config_t *c, const char *text, size_t len, const char *origin,
                               char *err, size_t errlen);
/*
 * The bare syntax: calls fn for every key/value pair in file order (escapes
 * resolved, value untrimmed); key is NULL (value = the raw line) for a line
 * with a malformed escape. Stops at the first non-zero return, which it returns.
 */
typedef int (*kc_properties_fn)(void *ctx, const char *key, const char *value);
int kc_properties_parse(const char *text, size_t len, kc_properties_fn fn, void *ctx);
/* Reads the file and parses it as above; -1 if unreadable. */
int kc_config_load_file(kc_config_t *c, const char *path, char *err, size_t errlen);
/*
 * Applies every KCOORD_* variable of envp (NULL-terminated "NAME=value"
 * strings): KCOORD_GROUP_MAX_SIZE sets group.max.size (upper case, dots
 * become underscores). An unknown KCOORD_* name is an error.
 */
int kc_config_load_env(kc_config_t *c, char *const *envp, char *err, size_t errlen);
/* Applies one "key=value" command-line override. */
int kc_config_override(kc_config_t *c, const char *kv, char *err, size_t errlen);

/*
 * The broker's effective retention.ms default: log.retention.ms if set,
 * else log.retention.minutes x 60000 if set, else log.retention.hours x
 * 3600000; any negative result is -1 (unlimited), as in Kafka.
 * *source_name (may be NULL) gets the property that supplied it.
 */
int64_t kc_config_log_retention_ms(const kc_config_t *c, const char **source_name);

/*
 * Parses Kafka listener syntax "NAME://host:port[,NAME://host:port...]"
 * ("[::1]" for IPv6 hosts, empty host = all interfaces). Names must be
 * distinct. Returns the count (>= 1) or -1 with err set.
 */
int kc_listeners_parse(const char *spec, kc_listener_t *out, size_t max, char *err, size_t errlen);

#endif
