/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the dynamic config checks (server/group_configs.c,
 * server/configs.c): GroupConfig.validate with the broker's bounds and the
 * topic checks IncrementalAlterConfigs applies, each message Kafka 4.4's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server_int.h"

static kc_config_t cfg;

static int setup(void **state)
{
    (void)state;
    kc_config_init(&cfg);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kc_config_deinit(&cfg);
    return 0;
}

/* kc_group_configs_check of the pairs name=value,... (NULL-terminated). */
static void expect_group(int16_t err, const char *msg, ...)
{
    kc_str_t names[8], values[8];
    size_t n = 0;
    va_list ap;
    va_start(ap, msg);
    for (const char *nm; (nm = va_arg(ap, const char *)) != NULL && n < 8; n++) {
        names[n] = kc_str(nm);
        values[n] = kc_str(va_arg(ap, const char *));
    }
    va_end(ap);
    char got[1024] = "";
    assert_int_equal(kc_group_configs_check(&cfg, n, names, values, got, sizeof(got)), err);
    if (msg)
        assert_string_equal(got, msg);
}

static void group_configs_are_checked_as_kafka_does(void **state)
{
    (void)state;
    expect_group(KC_ERR_NONE, NULL, "consumer.session.timeout.ms", "50000",
                 "consumer.heartbeat.interval.ms", " 6000 ", "streams.num.standby.replicas", "2",
                 "share.auto.offset.reset", "by_duration:PT1H30M", "share.isolation.level",
                 "read_committed", NULL);
    expect_group(KC_ERR_INVALID_CONFIG, "Unknown group config name: nope", "nope", "1", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "Invalid value abc for configuration consumer.session.timeout.ms: Not a "
                 "number of type INT",
                 "consumer.session.timeout.ms", "abc", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "Invalid value 0 for configuration consumer.session.timeout.ms: Value must be "
                 "at least 1",
                 "consumer.session.timeout.ms", "0", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.",
                 "consumer.session.timeout.ms", "5000", NULL);
    /* The heartbeat bound is checked first, as GroupConfig.validateValues does. */
    expect_group(KC_ERR_INVALID_CONFIG,
                 "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.",
                 "consumer.session.timeout.ms", "5000", "consumer.heartbeat.interval.ms",
                 "50000", NULL);
    expect_group(KC_ERR_INVALID_CONFIG, "streams.num.standby.replicas must be less than or equal to 2",
                 "streams.num.standby.replicas", "3", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "streams.task.offset.interval.ms must be greater than or equal to 15000",
                 "streams.task.offset.interval.ms", "1", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "streams.rack.aware.assignment.tags must not contain duplicate tag keys.",
                 "streams.rack.aware.assignment.tags", "zone ,zone", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "streams.assignor.name 'foo' is not a registered task assignor. Registered "
                 "assignors are: [sticky].",
                 "streams.assignor.name", "foo", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "Invalid value foo for configuration share.isolation.level: String must be one "
                 "of: read_committed, read_uncommitted",
                 "share.isolation.level", "foo", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "Invalid value by_duration:-PT1H for configuration share.auto.offset.reset: "
                 "Invalid value `by_duration:-PT1H` for configuration share.auto.offset.reset. "
                 "The value must be either 'earliest', 'latest' or of the format "
                 "'by_duration:<PnDTnHnMn.nS>'.",
                 "share.auto.offset.reset", "by_duration:-PT1H", NULL);
    expect_group(KC_ERR_INVALID_CONFIG,
                 "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'",
                 "errors.deadletterqueue.topic.name", "__x", NULL);
    /* Session timeout above the heartbeat interval, either one being the broker's. */
    cfg.group_consumer_min_session_timeout_ms = 1000;
    expect_group(KC_ERR_INVALID_CONFIG,
                 "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms",
                 "consumer.session.timeout.ms", "5000", NULL);
    expect_group(KC_ERR_NONE, NULL, "consumer.session.timeout.ms", "5001", NULL);
}

static void group_config_table_matches_describe_order(void **state)
{
    (void)state;
    size_t n = 0;
    while (kc_group_config_describe_at(n))
        n++;
    assert_int_equal(n, kc_group_config_ndefs);
    /* Internal configs first, as AbstractConfig.originals come first. */
    for (size_t i = 0; i < n; i++)
        if (!kc_group_config_describe_at(i)->internal)
            for (size_t j = i; j < n; j++)
                assert_false(kc_group_config_describe_at(j)->internal);
}

static void expect_topic(int16_t err, const char *msg, size_t n, const char *const *pairs)
{
    kc_str_t names[8], values[8];
    for (size_t i = 0; i < n; i++) {
        names[i] = kc_str(pairs[2 * i]);
        values[i] = kc_str(pairs[2 * i + 1]);
    }
    char got[1024] = "";
    assert_int_equal(kc_topic_configs_check(n, names, values, got, sizeof(got)), err);
    if (msg)
        assert_string_equal(got, msg);
}

static void topic_configs_are_checked_as_a_whole(void **state)
{
    (void)state;
    const char *lag[] = {"min.compaction.lag.ms", "10", "max.compaction.lag.ms", "5"};
    expect_topic(KC_ERR_INVALID_CONFIG,
                 "conflict topic config setting min.compaction.lag.ms (10) > "
                 "max.compaction.lag.ms (5)",
                 2, lag);
    const char *empty[] = {"cleanup.policy", "compact,,delete"};
    expect_topic(KC_ERR_INVALID_CONFIG, "Configuration 'cleanup.policy' values must not be empty.",
                 1, empty);
    const char *none[] = {"cleanup.policy", ""};
    expect_topic(KC_ERR_NONE, NULL, 1, none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(group_configs_are_checked_as_kafka_does, setup, teardown),
        cmocka_unit_test(group_config_table_matches_describe_order),
        cmocka_unit_test(topic_configs_are_checked_as_a_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
