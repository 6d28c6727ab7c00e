# SPDX-License-Identifier: Apache-2.0
"""confluent-kafka (librdkafka) static membership (KIP-345).

Two static members share a 2-partition topic. One closes: a static member
does not send LeaveGroup on close, so the broker keeps its slot until the
session timeout. A new consumer with the same group.instance.id rejoins
well within that timeout: it must get the same partitions back, and the
other member must see no rebalance at all (no revoke or assign callback).
"""

import time

from confluent_kafka import Consumer, TopicPartition  # noqa: F401
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "static-topic"
GROUP = "static-group"
DEADLINE_S = 90
SESSION_TIMEOUT_MS = 30000
HEARTBEAT_MS = 300


class Member:
    """A librdkafka consumer recording its rebalance callbacks."""

    def __init__(self, bootstrap, instance_id, label):
        self.label = label
        self.events = []
        self.assignment = None
        self.c = Consumer({
            "bootstrap.servers": bootstrap,
            "group.id": GROUP,
            "group.instance.id": instance_id,
            "client.id": label,
            "session.timeout.ms": SESSION_TIMEOUT_MS,
            "heartbeat.interval.ms": HEARTBEAT_MS,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "partition.assignment.strategy": "range",
            "topic.metadata.refresh.interval.ms": 2000,
        })
        self.c.subscribe([TOPIC], on_assign=self.on_assign, on_revoke=self.on_revoke)

    def on_assign(self, consumer, partitions):
        self.events.append(("assign", sorted(p.partition for p in partitions)))
        self.assignment = sorted(p.partition for p in partitions)

    def on_revoke(self, consumer, partitions):
        self.events.append(("revoke", sorted(p.partition for p in partitions)))
        self.assignment = None

    def poll(self):
        msg = self.c.poll(0.05)
        if msg is not None and msg.error():
            # Only fatal errors matter here; transient ones are logged.
            err = msg.error()
            if err.fatal():
                raise AssertionError("%s: fatal error %s" % (self.label, err))
            print("%s: %s" % (self.label, err))


def describe(port):
    with kafka_wire.Conn(port) as conn:
        return kafka_wire.describe_groups(conn, [GROUP])["groups"][0]


def main():
    with Kcoord("confluent-static") as k:
        admin = AdminClient({"bootstrap.servers": k.bootstrap})
        fut = admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=1)],
                                  operation_timeout=30)[TOPIC]
        fut.result(timeout=DEADLINE_S)
        wait_for(lambda: len(admin.list_topics(TOPIC, timeout=10).topics[TOPIC].partitions) == 2,
                 DEADLINE_S, "the new topic in Metadata")

        a = Member(k.bootstrap, "static-a", "member-a")
        b = Member(k.bootstrap, "static-b", "member-b")

        def both_assigned():
            a.poll()
            b.poll()
            if not a.assignment or not b.assignment:
                return False
            return sorted(a.assignment + b.assignment) == [0, 1]
        wait_for(both_assigned, DEADLINE_S, "both static members assigned one partition each",
                 interval=0, state=lambda: (a.events, b.events))
        a_parts = list(a.assignment)
        b_parts = list(b.assignment)

        def group_stable():
            a.poll()
            b.poll()
            g = describe(k.port)
            return g if g["state"] == "Stable" and len(g["members"]) == 2 else None
        g = wait_for(group_stable, DEADLINE_S, "group Stable with 2 members", interval=0,
                     state=lambda: describe(k.port))
        before = {m["group_instance_id"]: m["member_id"] for m in g["members"]}
        assert set(before) == {"static-a", "static-b"}, g

        b_events = list(b.events)

        # Static member a closes: no LeaveGroup, so the group keeps its slot.
        close_started = time.monotonic()
        a.c.close()

        g = describe(k.port)
        assert g["state"] == "Stable" and len(g["members"]) == 2, \
            "closing a static member must not remove it: %r" % (g,)

        a2 = Member(k.bootstrap, "static-a", "member-a2")

        def a2_assigned():
            a2.poll()
            b.poll()
            return a2.assignment is not None
        wait_for(a2_assigned, DEADLINE_S, "the replacement static member to get its assignment",
                 interval=0, state=lambda: (a2.events, b.events, describe(k.port)))
        assert time.monotonic() - close_started < SESSION_TIMEOUT_MS / 1000.0, \
            "rejoin took longer than the session timeout; the test proves nothing"
        assert a2.assignment == a_parts, (a2.assignment, a_parts)

        # Keep b heartbeating for several intervals: a rebalance would reach
        # it as REBALANCE_IN_PROGRESS and a revoke callback.
        observe_until = time.monotonic() + 10 * HEARTBEAT_MS / 1000.0
        while time.monotonic() < observe_until:
            a2.poll()
            b.poll()
        assert b.events == b_events, "member b saw a rebalance: %r -> %r" % (b_events, b.events)
        assert b.assignment == b_parts, (b.assignment, b_parts)

        g = describe(k.port)
        assert g["state"] == "Stable" and len(g["members"]) == 2, g
        after = {m["group_instance_id"]: m["member_id"] for m in g["members"]}
        assert after["static-b"] == before["static-b"], (before, after)
        assert after["static-a"] != before["static-a"], \
            "the rejoining static member must get a new member id: %r" % (after,)

        a2.c.close()
        b.c.close()


if __name__ == "__main__":
    run(main)
