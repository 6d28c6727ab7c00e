# SPDX-License-Identifier: Apache-2.0
"""Broker settings of the conformance suite, given to kcoord and to Kafka
with the same values (Kafka's property names; kcoord reads the same ones).

A scenario names its profile; each profile used in a run starts one kcoord
and one Kafka. Properties not listed keep each broker's default, which is
Kafka's default for every property kcoord has.

`offsets.topic.num.partitions=1` is Kafka-only: kcoord's group coordinator
is one partition, so Kafka gets one too (ListGroups order and coordinator
load follow from it).
"""

COMMON = {
    # Kafka's default is 3000 ms; scenarios of the initial delay use their own.
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "group.max.session.timeout.ms": "1800000",
    "auto.create.topics.enable": "false",
    "num.partitions": "1",
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
    # Metadata creates the topics it is asked for (Kafka's default).
    "auto_create": dict(COMMON, **{"auto.create.topics.enable": "true"}),
    # Kafka's default initial rebalance delay (3 s).
    "initial_delay": dict(COMMON, **{"group.initial.rebalance.delay.ms": "3000"}),
}

# Settings only Kafka takes (kcoord has no such property).
KAFKA_ONLY = {
    "offsets.topic.num.partitions": "1",
}
