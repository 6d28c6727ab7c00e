# SPDX-License-Identifier: Apache-2.0
"""Broker settings of the conformance suite, given to kcoord and to Kafka
with the same values (Kafka's property names; kcoord reads the same ones).

A scenario names its profile; each profile used in a run starts one kcoord
and one Kafka. Properties not listed keep each broker's default, which is
Kafka's default for every property kcoord has.

`offsets.topic.num.partitions=1` goes to both: kcoord's group coordinator
is one coordinator, so Kafka gets one partition (coordinator load follows
from it), and kcoord orders the groups of ListGroups, DescribeGroups and
DeleteGroups as a Kafka coordinator with that many partitions does.
"""

COMMON = {
    # Kafka's default is 3000 ms; scenarios of the initial delay use their own.
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "group.max.session.timeout.ms": "1800000",
    "auto.create.topics.enable": "false",
    "num.partitions": "1",
    "offsets.topic.num.partitions": "1",
    # The reference broker sets it for a single node; kcoord gets it too, so
    # that flush.messages is a static setting on both.
    "log.flush.interval.messages": "9223372036854775807",
}

PROFILES = {
    "default": dict(COMMON),
    # group.max.size and its consumer/streams counterparts.
    "limits": dict(COMMON, **{
        "group.max.size": "3",
        "group.consumer.max.size": "3",
        "group.streams.max.size": "3",
    }),
    # A short consumer-group session (KIP-848 members expire in 2 s).
    "consumer_session": dict(COMMON, **{
        "group.consumer.session.timeout.ms": "2000",
        "group.consumer.min.session.timeout.ms": "1000",
        "group.consumer.heartbeat.interval.ms": "1000",
        "group.consumer.min.heartbeat.interval.ms": "1000",
    }),
    # Metadata creates the topics it is asked for (Kafka's default).
    "auto_create": dict(COMMON, **{"auto.create.topics.enable": "true"}),
    # Kafka's default initial rebalance delay (3 s).
    "initial_delay": dict(COMMON, **{"group.initial.rebalance.delay.ms": "3000"}),
    # Offsets expire a minute after their commit (Kafka's shortest
    # offsets.retention.minutes), looked for every second.
    "retention": dict(COMMON, **{
        "offsets.retention.minutes": "1",
        "offsets.retention.check.interval.ms": "1000",
    }),
    # The default settings for offsets.list.table_order alone: ListGroups'
    # order depends on every group in the coordinator, so no other case may
    # add groups while it runs.
    "listing": dict(COMMON),
    # Streams groups assign at once: no initial delay, no assignment interval.
    "streams": dict(COMMON, **{
        "group.streams.initial.rebalance.delay.ms": "0",
        "group.streams.assignment.interval.ms": "0",
        "group.streams.max.size": "4",
    }),
    # One standby replica per stateful task.
    "streams_standby": dict(COMMON, **{
        "group.streams.initial.rebalance.delay.ms": "0",
        "group.streams.assignment.interval.ms": "0",
        "group.streams.num.standby.replicas": "1",
    }),
    # Short streams sessions, under the default minimums (45 s and 5 s).
    "streams_session": dict(COMMON, **{
        "group.streams.initial.rebalance.delay.ms": "0",
        "group.streams.assignment.interval.ms": "0",
        "group.streams.session.timeout.ms": "3000",
        "group.streams.heartbeat.interval.ms": "1000",
        "group.streams.min.session.timeout.ms": "1000",
        "group.streams.min.heartbeat.interval.ms": "100",
    }),
    # The log cleaner looks for dirty compacted partitions every 100 ms
    # (Kafka's default is 15 s).
    "compaction": dict(COMMON, **{"log.cleaner.backoff.ms": "100"}),
    # The default settings, for scenarios that restart both brokers.
    "broker_restarts": dict(COMMON),
    # The default settings, for transaction scenarios no other case may run
    # beside: Kafka verifies the partitions of concurrent transactional
    # Produce requests in one request to the coordinator and translates all
    # their errors as the first of them asks (by its Produce version).
    "transactions_alone": dict(COMMON),
    # A short initial delay of streams groups (Kafka's default is 3 s).
    "streams_delay": dict(COMMON, **{
        "group.streams.initial.rebalance.delay.ms": "1000",
        "group.streams.assignment.interval.ms": "0",
    }),
}

# Profiles whose cases run one at a time: scenarios that restart both
# brokers (ctx.restart_broker), so that a restart interrupts no other case,
# and those whose answers another case running beside would change.
SERIAL = ("broker_restarts", "transactions_alone")

# Settings only Kafka takes (kcoord has no such property).
KAFKA_ONLY = {
    # kcoord computes a consumer group's target assignment at once, in the
    # heartbeat that needs it; Kafka 4.4 waits for an assignment interval
    # (1 s) and computes it on a background thread, which makes epochs and
    # assignments depend on timing. These make Kafka assign as kcoord does.
    "group.consumer.assignment.interval.ms": "0",
    "group.consumer.assignor.offload.enable": "false",
}

# Settings only Kafka takes, for one profile.
KAFKA_ONLY_PROFILE = {
}
