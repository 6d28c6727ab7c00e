# SPDX-License-Identifier: Apache-2.0
"""Kafka 4.4's Java Admin client on kcoord and on Kafka 4.4.0: the same
calls on both brokers print the same results.

java/AdminCheck.java (`admin`) runs every call on groups and topics named
after this run, each result printed as text with member ids, topic ids,
the broker's address and the client's host replaced by names. Before it
runs, the test creates two topics (3 partitions and 1) and a streams group
with one member of raw StreamsGroupHeartbeats (one subtopology reading the
3-partition topic), heartbeating in the background while the program runs.
The program then:

- produces to both topics; a static classic member (3 partitions) and a
  static consumer-protocol member (1 partition) join their groups and
  commit; a consumer-protocol member and then a classic-protocol member
  join a fourth group (KIP-848's mixed group), polled until it is Stable
  with both at its epoch; alterConsumerGroupOffsets makes an empty group;
- listGroups without filter, forConsumerGroups, forStreamsGroups, by type
  (classic, consumer, streams), by state (Stable, Empty, Dead), by type and
  state, by protocol type;
- describeConsumerGroups of the six groups (the classic one, the consumer
  one, the mixed one, the empty one, the streams one, one that does not
  exist);
  describeStreamsGroups of the streams group, the classic one and the
  missing one;
- listConsumerGroupOffsets (of whole groups and of chosen partitions);
  alterConsumerGroupOffsets of the empty group, of a missing topic, and of
  the live groups (refused, the streams one too); deleteConsumerGroupOffsets
  of a partition with an offset and one without, of the subscribed topics
  of the live groups (refused) and of a missing group;
- deleteConsumerGroups of the live groups (refused); both members close,
  staying in their groups as static members do, and the mixed group's
  members leave; removeMembersFromConsumerGroup by instance id (known,
  unknown, missing group); describe again; deleteConsumerGroups of all
  six; listGroups after;
- describeCluster and describeTopics with authorized operations;
  incrementalAlterConfigs of the topic (set, append, delete, an unknown
  name, a bad value, a missing topic, validate only) and of the consumer
  group (set, delete, out of range, an unknown name), then describeConfigs
  of both, of an untouched topic and group with synonyms, of a missing
  topic.

kcoord's lines must equal Kafka's. It needs what the conformance suite
needs: a JDK and Kafka's jars (Maven).
"""

import os
import re
import threading
import time
import uuid

import java_tools as jt
import kafka_wire as kw
from kcoord_harness import run, wait_for


MISSING_SOURCE_TOPICS = 1


class StreamsMember(threading.Thread):
    """One member of a streams group over raw StreamsGroupHeartbeat,
    heartbeating every 500 ms and adopting its assignments until stop()."""

    def __init__(self, port, group, source):
        super().__init__(daemon=True)
        self.port, self.group = port, group
        self.topology = (1, [{"id": "0", "source_topics": [source]}])
        self.member_id = str(uuid.uuid4())
        self.epoch = 0
        self.active = set()
        self.stopping = threading.Event()
        self.error = None
        self.lock = threading.Lock()

    def beat(self, conn):
        # No user endpoint: Kafka 4.4 fails the heartbeat of a member with
        # one (UNKNOWN_SERVER_ERROR) while its topology waits for a topic.
        args = dict(process_id="process-1", active=self.active, standby=set(), warmup=set())
        if self.epoch == 0:
            args.update(topology=self.topology, rebalance_timeout_ms=30000)
        r = kw.streams_group_heartbeat(conn, self.group, self.member_id, self.epoch, **args)
        assert r["error_code"] == 0, r
        with self.lock:
            self.epoch = r["member_epoch"]
            if r["active"] is not None:
                self.active = r["active"]
        return r

    def join_group(self, conn):
        """The first heartbeat, in a group whose history is only this join:
        Kafka's coordinator may learn of a just created topic after its
        broker's Metadata does; a join that found the source topic missing
        (status MISSING_SOURCE_TOPICS, which bumps the group epoch once more
        when the topic appears) leaves, the group is deleted and the member
        joins again."""
        deadline = time.monotonic() + jt.DEADLINE_S
        while True:
            r = self.beat(conn)
            if not any(code == MISSING_SOURCE_TOPICS for code, _ in r["status"] or []):
                return
            assert time.monotonic() < deadline, r
            kw.streams_group_heartbeat(conn, self.group, self.member_id, -1)
            assert kw.delete_groups_v2(conn, [self.group]) == {self.group: 0}
            self.member_id, self.epoch, self.active = str(uuid.uuid4()), 0, set()
            time.sleep(0.1)  # pacing of the retry, not a wait for a condition

    def run(self):
        try:
            with kw.Conn(self.port) as conn:
                self.join_group(conn)
                while not self.stopping.is_set():
                    self.beat(conn)
                    self.stopping.wait(0.5)
        except BaseException as e:  # reported by owns()
            self.error = e

    def owns(self, n):
        with self.lock:
            return self.error is not None or len(self.active) == n

    def stop(self):
        self.stopping.set()
        self.join(30)


def admin_run(broker, prefix):
    jt.create_topics(broker.port, {prefix + "-t3": 3, prefix + "-t1": 1})
    member = StreamsMember(broker.port, prefix + "-streams", prefix + "-t3")
    member.start()
    try:
        wait_for(lambda: member.owns(3), jt.DEADLINE_S, "the streams member owning 3 tasks")
        assert member.error is None, member.error
        with kw.Conn(broker.port) as c:
            def stable():
                g = kw.streams_group_describe(c, [prefix + "-streams"])["groups"][prefix + "-streams"]
                return g["group_state"] == "Stable"
            wait_for(stable, jt.DEADLINE_S, "the streams group Stable")
        return jt.admin_check("admin", broker.bootstrap, prefix)
    finally:
        member.stop()


# Differences docs/conformance.md lists as deliberate, in the words the
# Admin client prints them: (a pattern of Kafka's text, kcoord's text).
DELIBERATE = [
    # kcoord does not serve DescribeTopicPartitions: the client describes
    # topics with Metadata, which has no eligible leader replicas.
    (re.escape(", elr=, lastKnownElr=)"), ", elr=N/A, lastKnownElr=N/A)"),
    # Kafka's storage format writes min.insync.replicas as a cluster-wide
    # dynamic default (and the reference's server.properties names it):
    # kcoord has LogConfig's default alone, and no synonyms for it.
    (r" min\.insync\.replicas=1 source=DYNAMIC_DEFAULT_BROKER_CONFIG (.*) synonyms=\[.*\]$",
     r" min.insync.replicas=1 source=DEFAULT_CONFIG \1 synonyms=[]"),
]


def main():
    prefix = "ja%d" % (os.getpid() % 100000)
    jt.classes_dir()
    ref = jt.reference("admin")
    try:
        ref.start()
        t0 = time.monotonic()
        kafka_lines = admin_run(ref, prefix)
        print("Kafka 4.4: %d lines in %.1f s:" % (len(kafka_lines), time.monotonic() - t0))
        print("\n".join(kafka_lines))
    finally:
        ref.cleanup()
    with jt.kcoord("admin") as k:
        kcoord_lines = admin_run(k, prefix)
    expected = []
    for line in kafka_lines:
        for theirs, ours in DELIBERATE:
            line = re.sub(theirs, ours, line)
        expected.append(line)
    jt.compare("Admin client", kcoord_lines, expected)
    # The results must say something: the calls reached the groups.
    joined = "\n".join(kafka_lines)
    for must in ("groupState=Stable", "GroupNotEmptyException", "MEMBER-%s-classic" % prefix,
                 "GroupSubscribedToTopicException", "consumer.session.timeout.ms=50000"):
        assert must in joined, must
    print("Admin client: %d results alike" % len(kcoord_lines))


if __name__ == "__main__":
    run(main)
