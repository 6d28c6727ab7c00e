/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broker configuration: one table of properties (name, type, default, target
 * field, validator, doc), Kafka's property names where Kafka has one; the
 * group coordinator's rows are those it declares (coord_config.h). Values
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

#include "coord_config.h"

/* One parsed listener: "NAME://host:port". host "" = every interface. */
typedef struct {
    char name[64];  /* listener name, e.g. "PLAINTEXT" */
    char host[256]; /* without IPv6 brackets */
    uint16_t port;
} kc_listener_t;

#define KC_MAX_LISTENERS 8
#define KC_CONF_MAX_PROPERTIES 128

/* The kc_config_t field of a coordinator property, by kind (coord_config.h). */
#define KC_CONF_COORD_CTYPE_INT int32_t
#define KC_CONF_COORD_CTYPE_LONG int64_t
#define KC_CONF_COORD_CTYPE_BOOL bool
#define KC_CONF_COORD_CTYPE_MINUTES int64_t
#define KC_CONF_COORD_CTYPE_ASSIGNORS char *
#define KC_CONF_COORD_CTYPE_MIGRATION char *
#define KC_CONF_COORD_CTYPE_BOUND int32_t
#define KC_CONF_COORD_FIELD(kind, name, dflt, min, max, field, doc)                                \
    KC_CONF_COORD_CTYPE_##kind field;

typedef struct {
    char *listeners;            /* listeners = PLAINTEXT://127.0.0.1:9092 */
    char *advertised_listeners; /* advertised.listeners = "" (same as listeners) */
    int32_t node_id;            /* node.id = 1 */
    char *log_dirs;             /* log.dirs = ./data (one directory) */
    int32_t num_partitions;     /* num.partitions = 1 */
    bool auto_create_topics_enable;     /* auto.create.topics.enable = true */
    int32_t default_replication_factor; /* default.replication.factor = 1 (only 1) */
    /* The group coordinator's properties (coord_config.h), one field each:
     * named as the kc_coord_config_t field it sets (group_max_size), or for
     * a BOUND by its own name (group_consumer_min_session_timeout_ms);
     * offsets_retention_ms holds offsets.retention.minutes in ms, the
     * assignors and the migration policy hold their text. */
    KC_COORD_PROPERTIES(KC_CONF_COORD_FIELD)
#undef KC_CONF_COORD_FIELD
#undef KC_CONF_COORD_CTYPE_INT
#undef KC_CONF_COORD_CTYPE_LONG
#undef KC_CONF_COORD_CTYPE_BOOL
#undef KC_CONF_COORD_CTYPE_MINUTES
#undef KC_CONF_COORD_CTYPE_ASSIGNORS
#undef KC_CONF_COORD_CTYPE_MIGRATION
#undef KC_CONF_COORD_CTYPE_BOUND
    /* KIP-1331 topology-description store: "" = off, "memory", "lmdb" or a
     * shared object path; free text for the store; worker threads; the
     * re-solicitation back-off (constants in Kafka). */
    char *group_streams_topology_description_plugin;        /* "" */
    char *group_streams_topology_description_plugin_config; /* "" */
    int32_t group_streams_topology_description_plugin_threads;  /* 2 */
    int64_t group_streams_topology_description_backoff_initial_ms; /* 30000 */
    int64_t group_streams_topology_description_backoff_max_ms;     /* 3600000 */
    int32_t group_streams_topology_description_backoff_jitter_percent; /* 20 */
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
    /* Compaction (Kafka's log.cleanup.policy, log.segment.bytes, log.roll.*
     * and log.cleaner.*): the topic defaults and the cleaner's own. */
    char *log_cleanup_policy;                       /* "delete" */
    int32_t log_segment_bytes;                      /* 1073741824 */
    char *log_roll_ms;                              /* "" = use log.roll.hours */
    int32_t log_roll_hours;                         /* 168 */
    bool log_cleaner_enable;                        /* true */
    int64_t log_cleaner_backoff_ms;                 /* 15000 */
    int64_t log_cleaner_dedupe_buffer_size;         /* 134217728 */
    char *log_cleaner_min_cleanable_ratio;          /* "0.5" (a double) */
    int64_t log_cleaner_delete_retention_ms;        /* 86400000 */
    int64_t log_cleaner_min_compaction_lag_ms;      /* 0 */
    int64_t log_cleaner_max_compaction_lag_ms;      /* INT64_MAX */
    /* Flush policy (Kafka's log.flush.*): records committed to LMDB are
     * flushed to the disk after this many unflushed records of a partition,
     * or when log.flush.interval.ms (else log.flush.scheduler.interval.ms)
     * has passed since the last flush, checked every
     * log.flush.scheduler.interval.ms. INT64_MAX = left to the OS. */
    int64_t log_flush_interval_messages;            /* INT64_MAX */
    char *log_flush_interval_ms;                    /* "" = not set */
    int64_t log_flush_scheduler_interval_ms;        /* INT64_MAX */
    /* kcoord's bound on a decompressed magic 0/1 message set (Produce v0-2);
     * Kafka bounds only the converted batch (message.max.bytes). */
    int64_t legacy_decompression_max_bytes;         /* 67108864 */
    int32_t max_incremental_fetch_session_cache_slots; /* 1000 */
    int32_t socket_request_max_bytes;               /* 104857600 */
    int64_t connections_max_idle_ms;                /* 600000 */
    int32_t max_connections;                        /* 2147483647: all listeners together */
    int32_t max_connections_per_ip;                 /* 2147483647 */
    char *max_connections_per_ip_overrides;         /* "host:n,ip:n" = "" */
    /* ACLs are on when authorizer.class.name is non-empty (any value: the
     * built-in StandardAuthorizer); "" = no authorizer, everything allowed. */
    char *authorizer_class_name;                    /* "" */
    char *super_users;                              /* "User:a;User:b" = "" */
    bool allow_everyone_if_no_acl_found;            /* false */
    char *cluster_id;           /* 22-char base64url Kafka Uuid */
    int64_t lmdb_map_size_bytes; /* 1 GiB: the map's starting size */
    int64_t lmdb_map_max_bytes;  /* 0: the map grows as far as the file system allows */
    int64_t lmdb_free_space_warn_bytes; /* 1 GiB; 0 = no warning */
    char *log_level;            /* debug, info, warn, error */
    char *admin_listeners;      /* admin.listeners = "" (admin HTTP endpoint off) */
    int32_t admin_events_max;   /* 1000: the admin endpoint's event ring */
    /* Security (listeners by security protocol, TLS, SASL). */
    char *listener_security_protocol_map; /* NAME:PROTOCOL,... (Kafka's default map) */
    char *ssl_keystore_type;              /* PEM (the only type kcoord reads) */
    char *ssl_keystore_location;          /* PEM file: private key and certificate chain */
    char *ssl_keystore_certificate_chain; /* PEM text of the chain (instead of a file) */
    char *ssl_keystore_key;               /* PEM text of the private key (instead of a file) */
    char *ssl_key_password;               /* password of an encrypted private key */
    char *ssl_truststore_type;            /* PEM */
    char *ssl_truststore_location;        /* PEM file of trusted CA certificates */
    char *ssl_truststore_certificates;    /* PEM text of trusted CA certificates */
    char *ssl_client_auth;                /* none, requested, required */
    char *ssl_enabled_protocols;          /* TLSv1.2,TLSv1.3 */
    char *ssl_cipher_suites;              /* "" = OpenSSL's defaults */
    char *sasl_enabled_mechanisms;        /* PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 */
    char *sasl_credentials_file;          /* kcoord: SCRAM credentials, one user a line */
    int64_t connections_max_reauth_ms;    /* 0 = no session lifetime (KIP-368) */
    int32_t connection_failed_authentication_delay_ms; /* 100 */
    int32_t admin_events_stream_max_bytes; /* 1 MiB: a slow event stream's output bound */

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
    /* 0: the field holds the value as written; n > 0 (INT, LONG): the field
     * is an int64_t holding the value times n (offsets.retention.minutes is
     * kept in ms). min and max apply to the value as written. */
    int64_t scale;
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
void kc_config_deinit(kc_config_t *c);
/*
 * Sets every field of out that a coordinator property sets (the rows of
 * KC_COORD_PROPERTIES but the BOUND ones) from c; other fields are left as
 * they are, so start from kc_coord_config_defaults. The assignor names are
 * static strings.
 */
void kc_config_coord(const kc_config_t *c, kc_coord_config_t *out);

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

/* The checks across properties that Kafka's GroupCoordinatorConfig makes
 * once every source is read (the consumer session timeout within its
 * minimum and maximum, the heartbeat interval below it); 0 or -1 with err. */
int kc_config_validate(const kc_config_t *c, char *err, size_t errlen);

/*
 * max.connections.per.ip.overrides ("host:count,host:count"): the count for
 * the address ip (compared as text), -1 when none names it, -2 when the
 * list is malformed.
 */
int32_t kc_config_ip_override(const char *overrides, const char *ip);
/*
 * The broker's effective retention.ms default: log.retention.ms if set,
 * else log.retention.minutes x 60000 if set, else log.retention.hours x
 * 3600000; any negative result is -1 (unlimited), as in Kafka.
 * *source_name (may be NULL) gets the property that supplied it.
 */
int64_t kc_config_log_retention_ms(const kc_config_t *c, const char **source_name);
/* The broker's segment.ms default: log.roll.ms when set, else
 * log.roll.hours x 3600000 (KafkaConfig.logRollTimeMillis). */
int64_t kc_config_log_roll_ms(const kc_config_t *c);
/* log.cleaner.min.cleanable.ratio as a number. */
double kc_config_log_cleaner_min_cleanable_ratio(const kc_config_t *c);
/* The broker's flush.ms default: log.flush.interval.ms when set, else
 * log.flush.scheduler.interval.ms (KafkaConfig.logFlushIntervalMs). */
int64_t kc_config_log_flush_ms(const kc_config_t *c);

/*
 * Parses Kafka listener syntax "NAME://host:port[,NAME://host:port...]"
 * ("[::1]" for IPv6 hosts, empty host = all interfaces). Names must be
 * distinct. Returns the count (>= 1) or -1 with err set.
 */
int kc_listeners_parse(const char *spec, kc_listener_t *out, size_t max, char *err, size_t errlen);

/*
 * The security protocol of listener `name` through listener.security.protocol.map
 * ("PLAINTEXT", "SSL", "SASL_PLAINTEXT" or "SASL_SSL"; static strings), or NULL
 * when the map has no entry for it (Kafka refuses to start then).
 */
const char *kc_config_listener_protocol(const kc_config_t *c, const char *name);

#endif
