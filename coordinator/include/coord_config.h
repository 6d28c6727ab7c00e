/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator's settings (kc_coord_config_t) and the one
 * declaration of the broker properties that set them (KC_COORD_PROPERTIES).
 *
 * The coordinator owns the declaration, as Kafka's group-coordinator module
 * owns GroupCoordinatorConfig (its properties' names, defaults, bounds and
 * docs) and the broker's configuration takes them in. Two readers expand it:
 * kc_coord_config_defaults (coord.c), for the coordinator's unit tests,
 * benches and fuzz targets, which have no configuration source; and conf/,
 * which turns each row into a row of its property table and a field of
 * kc_config_t and fills kc_coord_config_t from them (kc_config_coord).
 * This header needs libc only, so conf/ includes it without linking the
 * coordinator, and the coordinator stays free of conf/'s parser.
 */
#ifndef KC_COORD_CONFIG_H
#define KC_COORD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* group.consumer.migration.policy (Kafka's ConsumerGroupMigrationPolicy):
 * which conversions of a non-empty group between the classic and the
 * consumer protocol are allowed. */
typedef enum {
    KC_MIGRATION_DISABLED = 0,
    KC_MIGRATION_UPGRADE = 1,       /* classic -> consumer only */
    KC_MIGRATION_DOWNGRADE = 2,     /* consumer -> classic only */
    KC_MIGRATION_BIDIRECTIONAL = 3, /* both (Kafka's default) */
} kc_migration_policy_t;

/*
 * Coordinator settings: each field is set by the property that names it in
 * KC_COORD_PROPERTIES below, which also gives its default (Kafka's), its
 * bounds and its unit. Times in ms, sizes in members or bytes.
 */
typedef struct {
    int32_t group_initial_rebalance_delay_ms;
    int32_t group_min_session_timeout_ms;
    int32_t group_max_session_timeout_ms;
    int32_t group_max_size;
    int32_t group_new_member_join_timeout_ms; /* a constant in Kafka */
    int64_t offsets_retention_ms;             /* property in minutes */
    int64_t offsets_retention_check_interval_ms;
    int32_t offset_metadata_max_bytes;
    /* The __consumer_offsets partitions of the Kafka coordinator whose
     * answers' order kcoord follows (a group belongs to abs(hash(group id))
     * % n; ListGroups, DescribeGroups and DeleteGroups go partition by
     * partition). */
    int32_t offsets_topic_num_partitions;
    /* The transaction coordinator (txn.h) */
    int32_t transaction_max_timeout_ms;
    int32_t transactional_id_expiration_ms;
    int32_t transaction_abort_interval_ms;
    int32_t transaction_remove_interval_ms;
    /* The __transaction_state partitions whose order ListTransactions
     * follows (kc_txn_config_t.num_partitions). */
    int32_t transaction_state_log_num_partitions;
    /* KIP-848 consumer groups */
    int32_t group_consumer_heartbeat_interval_ms;
    int32_t group_consumer_session_timeout_ms;
    int32_t group_consumer_max_size;
    /* Server assignor names in preference order, the first is the default;
     * static strings ("uniform", "range"), borrowed. */
    const char *group_consumer_assignors[2];
    int group_consumer_nassignors;
    /* The resolved topics of subscription regexes are refreshed at least
     * this often, and no sooner than the min interval (kcoord's name for
     * Kafka's constant REGEX_BATCH_REFRESH_MIN_INTERVAL_MS) after the last. */
    int32_t group_consumer_regex_refresh_interval_ms;
    int32_t group_consumer_regex_refresh_min_interval_ms;
    kc_migration_policy_t group_consumer_migration_policy;
    /* KIP-1071 streams groups */
    int32_t group_streams_session_timeout_ms;
    int32_t group_streams_heartbeat_interval_ms;
    int32_t group_streams_max_size;
    int32_t group_streams_num_standby_replicas;
    int32_t group_streams_initial_rebalance_delay_ms;
    int32_t group_streams_assignment_interval_ms;
    int32_t group_streams_task_offset_interval_ms;
    int64_t group_streams_acceptable_recovery_lag;
    /* kcoord's own (KAFKA-20870's proposed fix): a heartbeat with the
     * member's previous epoch and all three owned-task lists null is
     * accepted when the member's last full report is contained in its
     * assignment (Kafka fences it). */
    bool group_streams_accept_null_owned_tasks_on_previous_epoch;
} kc_coord_config_t;

/* offsets.retention.minutes is given in minutes and kept in ms. */
#define KC_COORD_MS_PER_MINUTE 60000

/*
 * The group coordinator's properties, in the order the property table (and
 * so --help) lists them: KC_COORD_PROPERTIES(X) calls
 * X(kind, name, default, min, max, field, doc) once for each.
 *   kind     how the value reaches field:
 *            INT, LONG, BOOL  an int32, int64 or true/false, as is;
 *            MINUTES          an int32 count of minutes, into an int64 in ms;
 *            ASSIGNORS        a list of assignor names, into the assignor
 *                             array and its count (kc_coord_config_set_assignors);
 *            MIGRATION        a policy name (kc_coord_config_set_migration);
 *            BOUND            an int32 bound of another property, read only
 *                             by the start-up checks (kc_config_validate):
 *                             field names kc_config_t's field, and
 *                             kc_coord_config_t has none.
 *   name     Kafka's property name, or kcoord's own;
 *   default  the text a properties file would hold (Kafka's default where
 *            Kafka has the property);
 *   min, max the inclusive range of an integer (in the property's unit);
 *   field    the kc_coord_config_t field set (conf/ keeps the value in a
 *            kc_config_t field of the same name);
 *   doc      one line for --help.
 * Adding a coordinator property is one row here and its field above.
 */
#define KC_COORD_PROPERTIES(X)                                                                    \
    X(INT, "group.initial.rebalance.delay.ms", "3000", 0, INT32_MAX,                              \
      group_initial_rebalance_delay_ms,                                                           \
      "Delay before the first rebalance of an empty classic group")                               \
    X(INT, "group.min.session.timeout.ms", "6000", 0, INT32_MAX, group_min_session_timeout_ms,    \
      "Smallest session timeout a member may ask for")                                            \
    X(INT, "group.max.session.timeout.ms", "1800000", 0, INT32_MAX, group_max_session_timeout_ms, \
      "Largest session timeout a member may ask for")                                             \
    X(INT, "group.max.size", "2147483647", 1, INT32_MAX, group_max_size,                          \
      "Maximum members of one group")                                                             \
    X(INT, "group.classic.new.member.join.timeout.ms", "300000", 0, INT32_MAX,                    \
      group_new_member_join_timeout_ms,                                                           \
      "How long a new classic member may take to rejoin (a constant in Kafka)")                   \
    X(INT, "group.consumer.heartbeat.interval.ms", "5000", 1, INT32_MAX,                          \
      group_consumer_heartbeat_interval_ms,                                                       \
      "Heartbeat interval given to consumer-protocol (KIP-848) members")                          \
    X(INT, "group.consumer.session.timeout.ms", "45000", 1, INT32_MAX,                            \
      group_consumer_session_timeout_ms, "Session timeout of consumer-protocol (KIP-848) members") \
    X(BOUND, "group.consumer.min.session.timeout.ms", "45000", 1, INT32_MAX,                      \
      group_consumer_min_session_timeout_ms, "Smallest allowed group.consumer.session.timeout.ms") \
    X(BOUND, "group.consumer.max.session.timeout.ms", "60000", 1, INT32_MAX,                      \
      group_consumer_max_session_timeout_ms, "Largest allowed group.consumer.session.timeout.ms") \
    X(BOUND, "group.consumer.min.heartbeat.interval.ms", "5000", 1, INT32_MAX,                    \
      group_consumer_min_heartbeat_interval_ms,                                                   \
      "Smallest allowed group.consumer.heartbeat.interval.ms")                                    \
    X(BOUND, "group.consumer.max.heartbeat.interval.ms", "15000", 1, INT32_MAX,                   \
      group_consumer_max_heartbeat_interval_ms,                                                   \
      "Largest allowed group.consumer.heartbeat.interval.ms")                                     \
    X(INT, "group.consumer.max.size", "2147483647", 1, INT32_MAX, group_consumer_max_size,        \
      "Maximum members of one consumer-protocol group")                                           \
    X(ASSIGNORS, "group.consumer.assignors", "uniform,range", 0, 0, group_consumer_assignors,     \
      "Server-side assignors of consumer groups; the first is the default")                       \
    X(INT, "group.consumer.regex.refresh.interval.ms", "600000", 1, INT32_MAX,                    \
      group_consumer_regex_refresh_interval_ms,                                                   \
      "Longest time before the topics of a consumer group's subscription regexes are resolved "   \
      "again")                                                                                    \
    X(INT, "group.consumer.regex.refresh.min.interval.ms", "10000", 0, INT32_MAX,                 \
      group_consumer_regex_refresh_min_interval_ms,                                               \
      "Shortest time between two resolutions of a consumer group's regexes (a constant in "       \
      "Kafka)")                                                                                   \
    X(MIGRATION, "group.consumer.migration.policy", "bidirectional", 0, 0,                        \
      group_consumer_migration_policy,                                                            \
      "Conversion between classic and consumer groups: disabled, upgrade, downgrade, "            \
      "bidirectional")                                                                            \
    X(INT, "group.streams.session.timeout.ms", "45000", 1, INT32_MAX,                             \
      group_streams_session_timeout_ms, "Session timeout of streams-protocol (KIP-1071) members") \
    X(INT, "group.streams.heartbeat.interval.ms", "5000", 1, INT32_MAX,                           \
      group_streams_heartbeat_interval_ms, "Heartbeat interval given to streams-protocol members") \
    X(BOUND, "group.streams.min.session.timeout.ms", "45000", 1, INT32_MAX,                       \
      group_streams_min_session_timeout_ms, "Smallest allowed group.streams.session.timeout.ms")  \
    X(BOUND, "group.streams.max.session.timeout.ms", "60000", 1, INT32_MAX,                       \
      group_streams_max_session_timeout_ms, "Largest allowed group.streams.session.timeout.ms")   \
    X(BOUND, "group.streams.min.heartbeat.interval.ms", "5000", 1, INT32_MAX,                     \
      group_streams_min_heartbeat_interval_ms,                                                    \
      "Smallest allowed group.streams.heartbeat.interval.ms")                                     \
    X(BOUND, "group.streams.max.heartbeat.interval.ms", "15000", 1, INT32_MAX,                    \
      group_streams_max_heartbeat_interval_ms,                                                    \
      "Largest allowed group.streams.heartbeat.interval.ms")                                      \
    X(INT, "group.streams.max.size", "2147483647", 1, INT32_MAX, group_streams_max_size,          \
      "Maximum members of one streams group")                                                     \
    X(INT, "group.streams.num.standby.replicas", "0", 0, 2, group_streams_num_standby_replicas,   \
      "Standby replicas of each stateful task (at most group.streams.max.standby.replicas = 2)")  \
    X(INT, "group.streams.initial.rebalance.delay.ms", "3000", 0, INT32_MAX,                      \
      group_streams_initial_rebalance_delay_ms,                                                   \
      "How long the first assignment of a new streams group waits for more members")              \
    X(INT, "group.streams.assignment.interval.ms", "1000", 0, INT32_MAX,                          \
      group_streams_assignment_interval_ms,                                                       \
      "Least time between two target assignments of a streams group")                             \
    X(INT, "group.streams.task.offset.interval.ms", "60000", 1, INT32_MAX,                        \
      group_streams_task_offset_interval_ms,                                                      \
      "How often streams members report their task offsets")                                      \
    X(LONG, "group.streams.acceptable.recovery.lag", "10000", 0, INT64_MAX,                       \
      group_streams_acceptable_recovery_lag,                                                      \
      "Lag under which a streams member counts as caught up on a task")                           \
    X(BOOL, "group.streams.kcoord.accept.null.owned.tasks.on.previous.epoch", "false", 0, 0,      \
      group_streams_accept_null_owned_tasks_on_previous_epoch,                                    \
      "kcoord only (KAFKA-20870): accept a streams heartbeat with the previous member epoch and " \
      "null owned-task lists when the member's last full report is contained in its assignment")  \
    X(MINUTES, "offsets.retention.minutes", "10080", 1, INT32_MAX, offsets_retention_ms,          \
      "Committed offsets of an empty group expire after this")                                    \
    X(LONG, "offsets.retention.check.interval.ms", "600000", 1, INT64_MAX,                        \
      offsets_retention_check_interval_ms, "How often expired offsets are looked for")            \
    X(INT, "offset.metadata.max.bytes", "4096", 0, INT32_MAX, offset_metadata_max_bytes,          \
      "Longest metadata string an offset commit may carry")                                       \
    X(INT, "offsets.topic.num.partitions", "50", 1, 1000000, offsets_topic_num_partitions,        \
      "Partitions of Kafka's __consumer_offsets whose order of groups kcoord's answers follow "   \
      "(ListGroups, DescribeGroups, DeleteGroups)")                                             \
    X(INT, "transaction.max.timeout.ms", "900000", 1, INT32_MAX, transaction_max_timeout_ms,      \
      "Longest transaction timeout a producer may ask for")                                      \
    X(INT, "transactional.id.expiration.ms", "604800000", 1, INT32_MAX,                          \
      transactional_id_expiration_ms,                                                             \
      "A transactional id idle this long outside a transaction is forgotten")                    \
    X(INT, "transaction.abort.timed.out.transaction.cleanup.interval.ms", "10000", 1, INT32_MAX, \
      transaction_abort_interval_ms, "How often transactions past their timeout are aborted")    \
    X(INT, "transaction.remove.expired.transaction.cleanup.interval.ms", "3600000", 1,            \
      INT32_MAX, transaction_remove_interval_ms, "How often expired transactional ids are removed") \
    X(INT, "transaction.state.log.num.partitions", "50", 1, 1000000,                              \
      transaction_state_log_num_partitions,                                                       \
      "Partitions of Kafka's __transaction_state whose order of transactional ids kcoord's "      \
      "answers follow (ListTransactions)")

/*
 * One entry of group.consumer.assignors (len bytes at s): kcoord's assignor
 * name ("uniform" or "range", static strings) for its short name or Kafka's
 * class name; NULL when unknown.
 */
static inline const char *kc_coord_assignor_name(const char *s, size_t len)
{
    static const struct {
        const char *alias, *name;
    } names[] = {
        {"uniform", "uniform"},
        {"range", "range"},
        {"org.apache.kafka.coordinator.group.assignor.UniformAssignor", "uniform"},
        {"org.apache.kafka.coordinator.group.assignor.RangeAssignor", "range"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i].alias) == len && strncmp(s, names[i].alias, len) == 0)
            return names[i].name;
    return NULL;
}

/*
 * Parses group.consumer.assignors: comma-separated entries, spaces around
 * them and empty ones ignored, a repeated assignor kept once. Writes the
 * names (static strings) to out in order, at most max; returns how many
 * there are, or -1 when an entry names no assignor.
 */
static inline int kc_coord_assignors_parse(const char *text, const char **out, int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *start = p;
        while (*p && *p != ',')
            p++;
        size_t len = (size_t)(p - start);
        while (len && start[len - 1] == ' ')
            len--;
        if (!len)
            continue;
        const char *name = kc_coord_assignor_name(start, len);
        if (!name)
            return -1;
        bool dup = false;
        for (int i = 0; i < n; i++)
            dup = dup || strcmp(out[i], name) == 0;
        if (!dup && n < max)
            out[n++] = name;
    }
    return n;
}

/* group.consumer.migration.policy: Kafka's names, case-insensitive, in the
 * order of kc_migration_policy_t; -1 for another text. */
static inline int kc_coord_migration_policy_parse(const char *text)
{
    static const char *const names[] = {"disabled", "upgrade", "downgrade", "bidirectional"};
    for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
        if (strcasecmp(text, names[i]) == 0)
            return i;
    return -1;
}

/* Sets the assignors (kind ASSIGNORS) from the property's text; a text
 * that names none, which conf/ refuses, leaves them as they are. */
static inline void kc_coord_config_set_assignors(kc_coord_config_t *cfg, const char *text)
{
    const char *names[2];
    int n = kc_coord_assignors_parse(text, names, 2);
    if (n <= 0)
        return;
    for (int i = 0; i < n; i++)
        cfg->group_consumer_assignors[i] = names[i];
    cfg->group_consumer_nassignors = n;
}

/* Sets the policy (kind MIGRATION) from the property's text; another text,
 * which conf/ refuses, leaves it as it is. */
static inline void kc_coord_config_set_migration(kc_coord_config_t *cfg, const char *text)
{
    int p = kc_coord_migration_policy_parse(text);
    if (p >= 0)
        cfg->group_consumer_migration_policy = (kc_migration_policy_t)p;
}

#endif
