/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for conf/: properties syntax, source precedence, errors, sample file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coord.h"
#include "kc_common.h"
#include "kc_config.h"

static int parse(kc_config_t *c, const char *text, char *err, size_t errlen)
{
    return kc_config_parse_properties(c, text, strlen(text), "test", err, errlen);
}

static void test_connection_limits_and_ip_overrides(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[256];
    assert_int_equal(c.max_connections, INT32_MAX);
    assert_int_equal(c.max_connections_per_ip, INT32_MAX);
    assert_string_equal(c.authorizer_class_name, "");
    assert_false(c.allow_everyone_if_no_acl_found);
    assert_int_equal(kc_config_set(&c, "max.connections.per.ip.overrides",
                                   "127.0.0.2:3, ::1:7,10.0.0.1:0", err, sizeof(err)),
                     0);
    assert_int_equal(kc_config_ip_override(c.max_connections_per_ip_overrides, "127.0.0.2"), 3);
    assert_int_equal(kc_config_ip_override(c.max_connections_per_ip_overrides, "::1"), 7);
    assert_int_equal(kc_config_ip_override(c.max_connections_per_ip_overrides, "10.0.0.1"), 0);
    assert_int_equal(kc_config_ip_override(c.max_connections_per_ip_overrides, "127.0.0.1"), -1);
    assert_int_equal(kc_config_ip_override(c.max_connections_per_ip_overrides, "127.0.0."), -1);
    assert_int_equal(kc_config_ip_override("", "127.0.0.1"), -1);
    const char *bad[] = {"host", "host:", "host:x", ":3", "host:3x", "host:-1"};
    for (size_t i = 0; i < KC_ARRAY_LEN(bad); i++) {
        assert_int_equal(kc_config_set(&c, "max.connections.per.ip.overrides", bad[i], err,
                                       sizeof(err)),
                         -1);
        assert_non_null(strstr(err, "max.connections.per.ip.overrides"));
    }
    assert_int_equal(kc_config_set(&c, "max.connections", "0", err, sizeof(err)), -1);
    assert_int_equal(kc_config_set(&c, "allow.everyone.if.no.acl.found", "true", err,
                                   sizeof(err)),
                     0);
    assert_true(c.allow_everyone_if_no_acl_found);
    kc_config_deinit(&c);
}

static void test_defaults_are_kafkas(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    assert_string_equal(c.listeners, "PLAINTEXT://127.0.0.1:9092");
    assert_int_equal(c.nlisteners, 1);
    assert_string_equal(c.listener[0].host, "127.0.0.1");
    assert_int_equal(c.listener[0].port, 9092);
    assert_int_equal(c.node_id, 1);
    assert_string_equal(c.log_dirs, "./data");
    assert_int_equal(c.num_partitions, 1);
    assert_true(c.auto_create_topics_enable);
    assert_int_equal(c.group_initial_rebalance_delay_ms, 3000);
    assert_int_equal(c.group_min_session_timeout_ms, 6000);
    assert_int_equal(c.group_max_session_timeout_ms, 1800000);
    assert_int_equal(c.group_max_size, 2147483647);
    assert_int_equal(c.group_new_member_join_timeout_ms, 300000);
    assert_int_equal(c.offsets_retention_ms, 10080LL * 60 * 1000);
    assert_int_equal(c.offsets_retention_check_interval_ms, 600000);
    assert_int_equal(c.offset_metadata_max_bytes, 4096);
    assert_int_equal(c.socket_request_max_bytes, 104857600);
    assert_int_equal(c.connections_max_idle_ms, 600000);
    assert_int_equal(strlen(c.cluster_id), 22);
    assert_int_equal(c.nadvertised, 0);
    kc_config_deinit(&c);
}

static void test_properties_syntax(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[512] = "";
    const char *text = "# a comment\n"
                       "! another comment\n"
                       "\n"
                       "   node.id = 7   \n"
                       "num.partitions: 3\n"
                       "group.max.size 12\r\n"
                       "log.dirs=/tmp/kc\\\n"
                       "     oord\n"
                       "log.level=\\u0064ebug\n"
                       "auto.create.topics.enable=FALSE";
    assert_int_equal(parse(&c, text, err, sizeof(err)), 0);
    assert_int_equal(c.node_id, 7);
    assert_int_equal(c.num_partitions, 3);
    assert_int_equal(c.group_max_size, 12);
    assert_string_equal(c.log_dirs, "/tmp/kcoord");
    assert_string_equal(c.log_level, "debug");
    assert_false(c.auto_create_topics_enable);
    kc_config_deinit(&c);
}

static void test_unknown_key_names_key(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[512] = "";
    assert_int_equal(parse(&c, "node.id=2\nno.such.thing=1\n", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no.such.thing"));
    kc_config_deinit(&c);
}

static void test_bad_values_name_key(void **state)
{
    (void)state;
    static const char *bad[][2] = {
        {"node.id", "abc"},
        {"num.partitions", "0"},
        {"group.max.size", "2147483648"},
        {"auto.create.topics.enable", "yes"},
        {"default.replication.factor", "3"},
        {"cluster.id", "short"},
        {"log.level", "loud"},
        {"listeners", "PLAINTEXT://localhost"},
        {"listener.security.protocol.map", "CLIENT:TLS"},
        {"listener.security.protocol.map", "CLIENT"},
        {"ssl.keystore.type", "JKS"},
        {"ssl.client.auth", "maybe"},
        {"ssl.enabled.protocols", "TLSv1.1"},
        {"ssl.enabled.protocols", ""},
        {"sasl.enabled.mechanisms", "GSSAPI"},
        {"connections.max.reauth.ms", "-1"},
        {"advertised.listeners", "PLAINTEXT://0.0.0.0:9092"},
        {"log.dirs", "a,b"},
        {"socket.request.max.bytes", ""},
        {"group.consumer.migration.policy", "sideways"},
    };
    for (size_t i = 0; i < KC_ARRAY_LEN(bad); i++) {
        kc_config_t c;
        kc_config_init(&c);
        char err[512] = "";
        assert_int_equal(kc_config_set(&c, bad[i][0], bad[i][1], err, sizeof(err)), -1);
        assert_non_null(strstr(err, bad[i][0]));
        kc_config_deinit(&c);
    }
}

static void test_precedence_file_env_override(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[512] = "";
    assert_int_equal(parse(&c, "group.max.size=10\nnode.id=5\nnum.partitions=4\n", err, sizeof(err)),
                     0);
    char *env[] = {"PATH=/bin", "KCOORD_GROUP_MAX_SIZE=20", "KCOORD_NODE_ID=6", NULL};
    assert_int_equal(kc_config_load_env(&c, env, err, sizeof(err)), 0);
    assert_int_equal(kc_config_override(&c, "node.id=9", err, sizeof(err)), 0);
    assert_int_equal(c.num_partitions, 4); /* file only */
    assert_int_equal(c.group_max_size, 20); /* env over file */
    assert_int_equal(c.node_id, 9);         /* override over env */
    kc_config_deinit(&c);
}

static void test_env_errors_name_variable(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[512] = "";
    char *env1[] = {"KCOORD_NO_SUCH=1", NULL};
    assert_int_equal(kc_config_load_env(&c, env1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "KCOORD_NO_SUCH"));
    char *env2[] = {"KCOORD_GROUP_MAX_SIZE=many", NULL};
    assert_int_equal(kc_config_load_env(&c, env2, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "group.max.size"));
    assert_int_equal(kc_config_override(&c, "novalue", err, sizeof(err)), -1);
    kc_config_deinit(&c);
}

static void test_listener_syntax(void **state)
{
    (void)state;
    kc_listener_t l[4];
    char err[256];
    assert_int_equal(kc_listeners_parse("PLAINTEXT://:9092, INTERNAL://[::1]:19092", l, 4, err,
                                        sizeof(err)),
                     2);
    assert_string_equal(l[0].name, "PLAINTEXT");
    assert_string_equal(l[0].host, "");
    assert_int_equal(l[0].port, 9092);
    assert_string_equal(l[1].name, "INTERNAL");
    assert_string_equal(l[1].host, "::1");
    assert_int_equal(l[1].port, 19092);
    assert_int_equal(kc_listeners_parse("PLAINTEXT://a:1,PLAINTEXT://b:2", l, 4, err, sizeof(err)),
                     -1);
    assert_int_equal(kc_listeners_parse("PLAINTEXT://a:70000", l, 4, err, sizeof(err)), -1);
    /* Kafka normalises listener names to upper case (ListenerName.normalised). */
    assert_int_equal(kc_listeners_parse("plaintext://a:1", l, 4, err, sizeof(err)), 1);
    assert_string_equal(l[0].name, "PLAINTEXT");
    assert_int_equal(kc_listeners_parse("plaintext://a:1,PLAINTEXT://b:2", l, 4, err, sizeof(err)),
                     -1);
    assert_int_equal(kc_listeners_parse("a:1", l, 4, err, sizeof(err)), -1);
    assert_int_equal(kc_listeners_parse("", l, 4, err, sizeof(err)), -1);
}

static void test_listener_protocol_map(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[256];
    /* Kafka's default map names the four protocols after themselves. */
    assert_string_equal(kc_config_listener_protocol(&c, "SASL_SSL"), "SASL_SSL");
    assert_string_equal(kc_config_listener_protocol(&c, "PLAINTEXT"), "PLAINTEXT");
    assert_null(kc_config_listener_protocol(&c, "CLIENT"));
    /* Custom names; the listener names may be given before the map. */
    assert_int_equal(kc_config_set(&c, "listeners",
                                   "CLIENT://127.0.0.1:9093,internal://127.0.0.1:9094", err,
                                   sizeof(err)),
                     0);
    assert_int_equal(kc_config_set(&c, "listener.security.protocol.map",
                                   " CLIENT : sasl_ssl ,INTERNAL:PLAINTEXT", err, sizeof(err)),
                     0);
    assert_string_equal(kc_config_listener_protocol(&c, "CLIENT"), "SASL_SSL");
    assert_string_equal(kc_config_listener_protocol(&c, c.listener[1].name), "PLAINTEXT");
    assert_null(kc_config_listener_protocol(&c, "SSL"));
    kc_config_deinit(&c);
}

/* ---- the sample file against the table ---- */

typedef struct {
    bool seen[KC_CONF_MAX_PROPERTIES];
    int bad;
} sample_ctx_t;

static int check_sample_pair(void *ctx, const char *key, const char *value)
{
    sample_ctx_t *sc = ctx;
    assert_non_null(key);
    for (size_t i = 0; i < kc_config_property_count(); i++) {
        const kc_conf_property_t *p = kc_config_property_at(i);
        if (strcmp(p->name, key) == 0) {
            sc->seen[i] = true;
            if (strcmp(p->default_value, value) != 0) {
                print_error("%s: sample has \"%s\", default is \"%s\"\n", key, value,
                            p->default_value);
                sc->bad++;
            }
            return 0;
        }
    }
    print_error("sample file has unknown key %s\n", key);
    sc->bad++;
    return 0;
}

static void test_sample_file_matches_table(void **state)
{
    (void)state;
    FILE *f = fopen(KC_SAMPLE_CONF, "rb");
    assert_non_null(f);
    static char text[65536];
    size_t n = fread(text, 1, sizeof(text), f);
    fclose(f);
    assert_true(n > 0 && n < sizeof(text));
    assert_true(kc_config_property_count() <= KC_CONF_MAX_PROPERTIES);
    sample_ctx_t sc = {{false}, 0};
    assert_int_equal(kc_properties_parse(text, n, check_sample_pair, &sc), 0);
    assert_int_equal(sc.bad, 0);
    for (size_t i = 0; i < kc_config_property_count(); i++) {
        if (!sc.seen[i])
            print_error("sample file lacks %s\n", kc_config_property_at(i)->name);
        assert_true(sc.seen[i]);
    }
    /* And the file loads as a whole. */
    kc_config_t c;
    kc_config_init(&c);
    char err[512] = "";
    assert_int_equal(kc_config_load_file(&c, KC_SAMPLE_CONF, err, sizeof(err)), 0);
    kc_config_deinit(&c);
}

/* The streams heartbeat interval and session timeout keep within their
 * bounds, checked in the order of Kafka's GroupCoordinatorConfig: the
 * interval's bounds first, then the session's, then interval < session. */
static void test_streams_member_timeout_bounds(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[256] = "";
    assert_int_equal(c.group_streams_min_session_timeout_ms, 45000);
    assert_int_equal(c.group_streams_max_session_timeout_ms, 60000);
    assert_int_equal(c.group_streams_min_heartbeat_interval_ms, 5000);
    assert_int_equal(c.group_streams_max_heartbeat_interval_ms, 15000);
    static const struct {
        const char *set;
        const char *err; /* NULL: valid */
    } steps[] = {
        {"group.streams.heartbeat.interval.ms=500",
         "group.streams.heartbeat.interval.ms must be greater than or equal to "
         "group.streams.min.heartbeat.interval.ms"},
        {"group.streams.min.heartbeat.interval.ms=100", NULL},
        {"group.streams.max.heartbeat.interval.ms=50",
         "group.streams.max.heartbeat.interval.ms must be greater than or equal to "
         "group.streams.min.heartbeat.interval.ms"},
        {"group.streams.max.heartbeat.interval.ms=400",
         "group.streams.heartbeat.interval.ms must be less than or equal to "
         "group.streams.max.heartbeat.interval.ms"},
        {"group.streams.max.heartbeat.interval.ms=15000", NULL},
        {"group.streams.session.timeout.ms=3000",
         "group.streams.session.timeout.ms must be greater than or equal to "
         "group.streams.min.session.timeout.ms"},
        {"group.streams.min.session.timeout.ms=400",
         NULL},
        {"group.streams.session.timeout.ms=500",
         "group.streams.heartbeat.interval.ms must be less than "
         "group.streams.session.timeout.ms"},
        {"group.streams.max.session.timeout.ms=300",
         "group.streams.max.session.timeout.ms must be greater than or equal to "
         "group.streams.min.session.timeout.ms"},
        {"group.streams.min.session.timeout.ms=100",
         "group.streams.session.timeout.ms must be less than or equal to "
         "group.streams.max.session.timeout.ms"},
    };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        assert_int_equal(kc_config_override(&c, steps[i].set, err, sizeof(err)), 0);
        int rc = kc_config_validate(&c, err, sizeof(err));
        if (steps[i].err) {
            assert_int_equal(rc, -1);
            assert_string_equal(err, steps[i].err);
        } else {
            assert_int_equal(rc, 0);
        }
    }
    kc_config_deinit(&c);
}

/* The consumer session timeout keeps within its minimum and maximum and
 * above the heartbeat interval, as Kafka's GroupCoordinatorConfig checks. */
static void test_consumer_session_timeout_bounds(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    char err[256] = "";
    assert_int_equal(c.group_consumer_min_session_timeout_ms, 45000);
    assert_int_equal(c.group_consumer_max_session_timeout_ms, 60000);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), 0);
    assert_int_equal(kc_config_override(&c, "group.consumer.session.timeout.ms=3000", err,
                                        sizeof(err)),
                     0);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "group.consumer.session.timeout.ms must be greater than or equal "
                             "to group.consumer.min.session.timeout.ms");
    assert_int_equal(kc_config_override(&c, "group.consumer.min.session.timeout.ms=1000", err,
                                        sizeof(err)),
                     0);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "group.consumer.heartbeat.interval.ms must be less than "
                             "group.consumer.session.timeout.ms");
    assert_int_equal(kc_config_override(&c, "group.consumer.heartbeat.interval.ms=500", err,
                                        sizeof(err)),
                     0);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "group.consumer.heartbeat.interval.ms must be greater than or "
                             "equal to group.consumer.min.heartbeat.interval.ms");
    assert_int_equal(kc_config_override(&c, "group.consumer.min.heartbeat.interval.ms=100", err,
                                        sizeof(err)),
                     0);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), 0);
    assert_int_equal(kc_config_override(&c, "group.consumer.max.session.timeout.ms=900", err,
                                        sizeof(err)),
                     0);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "group.consumer.max.session.timeout.ms must be greater than or "
                             "equal to group.consumer.min.session.timeout.ms");
    assert_int_equal(kc_config_override(&c, "group.consumer.min.session.timeout.ms=1", err,
                                        sizeof(err)),
                     0);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "group.consumer.session.timeout.ms must be less than or equal to "
                             "group.consumer.max.session.timeout.ms");
    assert_int_equal(kc_config_override(&c, "group.consumer.min.session.timeout.ms=0", err,
                                        sizeof(err)),
                     -1);
    kc_config_deinit(&c);
}

/* group.consumer.migration.policy: Kafka's names, case-insensitive, default bidirectional. */
static void test_migration_policy(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int policy;
    } cases[] = {{"disabled", 0}, {"UPGRADE", 1}, {"Downgrade", 2}, {"bidirectional", 3}};
    kc_config_t c;
    kc_config_init(&c);
    kc_coord_config_t cc;
    kc_config_coord(&c, &cc);
    assert_int_equal(cc.group_consumer_migration_policy, 3);
    char err[512] = "";
    for (size_t i = 0; i < KC_ARRAY_LEN(cases); i++) {
        assert_int_equal(
            kc_config_set(&c, "group.consumer.migration.policy", cases[i].value, err, sizeof(err)), 0);
        kc_config_coord(&c, &cc);
        assert_int_equal(cc.group_consumer_migration_policy, cases[i].policy);
    }
    kc_config_deinit(&c);
}

/* ---- the coordinator's properties ---- */

/* Every coordinator property, a non-default value for it. */
static const char *const coord_settings[][2] = {
    {"group.initial.rebalance.delay.ms", "1234"},
    {"group.min.session.timeout.ms", "2345"},
    {"group.max.session.timeout.ms", "345678"},
    {"group.max.size", "17"},
    {"group.classic.new.member.join.timeout.ms", "4567"},
    {"group.consumer.heartbeat.interval.ms", "700"},
    {"group.consumer.session.timeout.ms", "9000"},
    {"group.consumer.min.session.timeout.ms", "8000"},
    {"group.consumer.max.session.timeout.ms", "20000"},
    {"group.consumer.min.heartbeat.interval.ms", "600"},
    {"group.consumer.max.heartbeat.interval.ms", "800"},
    {"group.consumer.max.size", "18"},
    {"group.consumer.assignors",
     " range, org.apache.kafka.coordinator.group.assignor.UniformAssignor"},
    {"group.consumer.regex.refresh.interval.ms", "55555"},
    {"group.consumer.regex.refresh.min.interval.ms", "4444"},
    {"group.consumer.migration.policy", "Upgrade"},
    {"group.streams.session.timeout.ms", "9100"},
    {"group.streams.heartbeat.interval.ms", "710"},
    {"group.streams.min.session.timeout.ms", "8100"},
    {"group.streams.max.session.timeout.ms", "20100"},
    {"group.streams.min.heartbeat.interval.ms", "610"},
    {"group.streams.max.heartbeat.interval.ms", "810"},
    {"group.streams.max.size", "19"},
    {"group.streams.num.standby.replicas", "2"},
    {"group.streams.initial.rebalance.delay.ms", "1500"},
    {"group.streams.assignment.interval.ms", "250"},
    {"group.streams.task.offset.interval.ms", "7777"},
    {"group.streams.acceptable.recovery.lag", "5000000000"},
    {"group.streams.kcoord.accept.null.owned.tasks.on.previous.epoch", "true"},
    {"offsets.retention.minutes", "2000000"},
    {"offsets.retention.check.interval.ms", "6000000000"},
    {"offset.metadata.max.bytes", "123"},
    {"offsets.topic.num.partitions", "7"},
    {"transaction.max.timeout.ms", "800000"},
    {"transactional.id.expiration.ms", "700000"},
    {"transaction.abort.timed.out.transaction.cleanup.interval.ms", "9000"},
    {"transaction.remove.expired.transaction.cleanup.interval.ms", "3500000"},
    {"transaction.state.log.num.partitions", "9"},
};

#define NAME_OF(kind, name, dflt, min, max, field, doc) name,
static const char *const coord_property_names[] = {KC_COORD_PROPERTIES(NAME_OF)};
#undef NAME_OF

/* Each coordinator property set in a properties file reaches its
 * kc_coord_config_t field (or, for the bounds the start-up checks read,
 * its kc_config_t field), in its unit; the list above names every property
 * the coordinator declares. */
static void test_every_coordinator_property_reaches_the_coordinator(void **state)
{
    (void)state;
    assert_int_equal(KC_ARRAY_LEN(coord_settings), KC_ARRAY_LEN(coord_property_names));
    for (size_t i = 0; i < KC_ARRAY_LEN(coord_property_names); i++) {
        size_t j = 0;
        while (j < KC_ARRAY_LEN(coord_settings) &&
               strcmp(coord_settings[j][0], coord_property_names[i]) != 0)
            j++;
        if (j == KC_ARRAY_LEN(coord_settings))
            print_error("no setting of %s\n", coord_property_names[i]);
        assert_true(j < KC_ARRAY_LEN(coord_settings));
        const kc_conf_property_t *p = kc_config_property_find(coord_property_names[i]);
        assert_non_null(p);
        assert_string_not_equal(p->default_value, coord_settings[j][1]);
    }
    char text[4096] = "";
    for (size_t i = 0; i < KC_ARRAY_LEN(coord_settings); i++) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof(text) - len, "%s=%s\n", coord_settings[i][0],
                 coord_settings[i][1]);
    }
    kc_config_t c;
    kc_config_init(&c);
    char err[512] = "";
    assert_int_equal(parse(&c, text, err, sizeof(err)), 0);
    assert_int_equal(kc_config_validate(&c, err, sizeof(err)), 0);
    kc_coord_config_t cc;
    memset(&cc, 0xa5, sizeof(cc)); /* a field nothing sets keeps this */
    kc_config_coord(&c, &cc);

    assert_int_equal(cc.group_initial_rebalance_delay_ms, 1234);
    assert_int_equal(cc.group_min_session_timeout_ms, 2345);
    assert_int_equal(cc.group_max_session_timeout_ms, 345678);
    assert_int_equal(cc.group_max_size, 17);
    assert_int_equal(cc.group_new_member_join_timeout_ms, 4567);
    assert_int_equal(cc.group_consumer_heartbeat_interval_ms, 700);
    assert_int_equal(cc.group_consumer_session_timeout_ms, 9000);
    assert_int_equal(c.group_consumer_min_session_timeout_ms, 8000);
    assert_int_equal(c.group_consumer_max_session_timeout_ms, 20000);
    assert_int_equal(c.group_consumer_min_heartbeat_interval_ms, 600);
    assert_int_equal(c.group_consumer_max_heartbeat_interval_ms, 800);
    assert_int_equal(cc.group_consumer_max_size, 18);
    assert_int_equal(cc.group_consumer_nassignors, 2);
    assert_string_equal(cc.group_consumer_assignors[0], "range");
    assert_string_equal(cc.group_consumer_assignors[1], "uniform");
    assert_int_equal(cc.group_consumer_regex_refresh_interval_ms, 55555);
    assert_int_equal(cc.group_consumer_regex_refresh_min_interval_ms, 4444);
    assert_int_equal(cc.group_consumer_migration_policy, KC_MIGRATION_UPGRADE);
    assert_int_equal(cc.group_streams_session_timeout_ms, 9100);
    assert_int_equal(cc.group_streams_heartbeat_interval_ms, 710);
    assert_int_equal(c.group_streams_min_session_timeout_ms, 8100);
    assert_int_equal(c.group_streams_max_session_timeout_ms, 20100);
    assert_int_equal(c.group_streams_min_heartbeat_interval_ms, 610);
    assert_int_equal(c.group_streams_max_heartbeat_interval_ms, 810);
    assert_int_equal(cc.group_streams_max_size, 19);
    assert_int_equal(cc.group_streams_num_standby_replicas, 2);
    assert_int_equal(cc.group_streams_initial_rebalance_delay_ms, 1500);
    assert_int_equal(cc.group_streams_assignment_interval_ms, 250);
    assert_int_equal(cc.group_streams_task_offset_interval_ms, 7777);
    assert_true(cc.group_streams_acceptable_recovery_lag == 5000000000LL);
    assert_true(cc.group_streams_accept_null_owned_tasks_on_previous_epoch);
    assert_true(cc.offsets_retention_ms == 2000000LL * 60 * 1000);
    assert_true(cc.offsets_retention_check_interval_ms == 6000000000LL);
    assert_int_equal(cc.offset_metadata_max_bytes, 123);
    assert_int_equal(cc.offsets_topic_num_partitions, 7);
    assert_int_equal(cc.transaction_max_timeout_ms, 800000);
    assert_int_equal(cc.transactional_id_expiration_ms, 700000);
    assert_int_equal(cc.transaction_abort_interval_ms, 9000);
    assert_int_equal(cc.transaction_remove_interval_ms, 3500000);
    assert_int_equal(cc.transaction_state_log_num_partitions, 9);

    /* What DescribeConfigs shows is the value as written. */
    char v[128];
    bool set = false;
    assert_true(kc_config_value_string(&c, "offsets.retention.minutes", v, sizeof(v), &set));
    assert_string_equal(v, "2000000");
    assert_true(set);
    assert_true(kc_config_value_string(&c, "group.consumer.assignors", v, sizeof(v), NULL));
    assert_string_equal(v, "range, org.apache.kafka.coordinator.group.assignor.UniformAssignor");
    assert_true(kc_config_value_string(&c, "group.consumer.migration.policy", v, sizeof(v), NULL));
    assert_string_equal(v, "Upgrade");
    kc_config_deinit(&c);
}

/* The coordinator's own defaults (kc_coord_config_defaults, for callers
 * without a configuration) are what the property table's defaults give. */
static void test_coordinator_defaults_are_the_tables(void **state)
{
    (void)state;
    kc_config_t c;
    kc_config_init(&c);
    kc_coord_config_t from_table, own;
    memset(&from_table, 0, sizeof(from_table));
    kc_config_coord(&c, &from_table);
    kc_coord_config_defaults(&own);
    assert_int_equal(own.group_initial_rebalance_delay_ms, 3000);
    assert_true(own.offsets_retention_ms == 10080LL * 60 * 1000);
    assert_int_equal(own.group_consumer_nassignors, 2);
    assert_string_equal(own.group_consumer_assignors[0], "uniform");
    assert_string_equal(own.group_consumer_assignors[1], "range");
    assert_int_equal(own.group_consumer_migration_policy, KC_MIGRATION_BIDIRECTIONAL);
    assert_false(own.group_streams_accept_null_owned_tasks_on_previous_epoch);
    /* Field by field: the assignor names are compared as text. */
    assert_int_equal(from_table.group_consumer_nassignors, own.group_consumer_nassignors);
    for (int i = 0; i < own.group_consumer_nassignors; i++)
        assert_string_equal(from_table.group_consumer_assignors[i],
                            own.group_consumer_assignors[i]);
    memcpy(from_table.group_consumer_assignors, own.group_consumer_assignors,
           sizeof(own.group_consumer_assignors));
    assert_memory_equal(&from_table, &own, sizeof(own));
    kc_config_deinit(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_are_kafkas),
        cmocka_unit_test(test_properties_syntax),
        cmocka_unit_test(test_unknown_key_names_key),
        cmocka_unit_test(test_bad_values_name_key),
        cmocka_unit_test(test_precedence_file_env_override),
        cmocka_unit_test(test_env_errors_name_variable),
        cmocka_unit_test(test_listener_syntax),
        cmocka_unit_test(test_listener_protocol_map),
        cmocka_unit_test(test_sample_file_matches_table),
        cmocka_unit_test(test_migration_policy),
        cmocka_unit_test(test_consumer_session_timeout_bounds),
        cmocka_unit_test(test_streams_member_timeout_bounds),
        cmocka_unit_test(test_connection_limits_and_ip_overrides),
        cmocka_unit_test(test_every_coordinator_property_reaches_the_coordinator),
        cmocka_unit_test(test_coordinator_defaults_are_the_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
