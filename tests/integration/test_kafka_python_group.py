# SPDX-License-Identifier: Apache-2.0
"""kafka-python end to end: a 3-member consumer group on a 4-partition topic.

Three KafkaConsumers (each on its own thread, since a kafka-python consumer
only rejoins from inside poll) must end up with disjoint assignments covering
all four partitions. Each commits explicit offsets; after a restart of kcoord
on the same data directory a fresh consumer reads them back, and the admin
client's list / describe / delete of consumer groups agree with the state.
"""

import queue
import threading

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import NewTopic
from kafka.structs import OffsetAndMetadata

from kcoord_harness import Kcoord, run, wait_for

TOPIC = "kp-orders"
GROUP = "kp-group"
PARTITIONS = 4
DEADLINE_S = 90


def committed_offset(p):
    return 1000 + 7 * p


def committed_metadata(p):
    return "meta-p%d" % p


class ConsumerThread(threading.Thread):
    """Owns one KafkaConsumer (not thread-safe): polls it, publishes its
    assignment, runs commands (commit) the main thread queues, closes it."""

    def __init__(self, idx, bootstrap):
        super().__init__(name="consumer-%d" % idx, daemon=True)
        self.idx = idx
        self.bootstrap = bootstrap
        self.assignment = frozenset()
        self.commands = queue.Queue()
        self.results = queue.Queue()
        self.stop_flag = threading.Event()
        self.error = None

    def run(self):
        try:
            c = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=GROUP,
                              client_id="kp-consumer-%d" % self.idx,
                              enable_auto_commit=False, auto_offset_reset="earliest",
                              session_timeout_ms=10000, heartbeat_interval_ms=500,
                              request_timeout_ms=30000, api_version_auto_timeout_ms=30000)
            c.subscribe([TOPIC])
            while not self.stop_flag.is_set():
                c.poll(timeout_ms=100)
                self.assignment = frozenset(tp.partition for tp in c.assignment())
                try:
                    cmd = self.commands.get_nowait()
                except queue.Empty:
                    continue
                try:
                    offsets = {TopicPartition(TOPIC, p):
                               OffsetAndMetadata(committed_offset(p), committed_metadata(p))
                               for p in cmd}
                    c.commit(offsets)
                    self.results.put(("ok", sorted(cmd)))
                except Exception as e:  # reported to the main thread, which retries
                    self.results.put(("error", repr(e)))
            c.close(autocommit=False)
        except Exception as e:
            self.error = e
            raise


def stable_assignment(threads):
    """True when every consumer has a non-empty assignment, the assignments
    are disjoint and together cover every partition."""
    seen = [t.assignment for t in threads]
    if any(not a for a in seen):
        return False
    union = frozenset().union(*seen)
    return union == frozenset(range(PARTITIONS)) and sum(len(a) for a in seen) == PARTITIONS


def main():
    with Kcoord("kafka-python") as k:
        admin = KafkaAdminClient(bootstrap_servers=k.bootstrap, client_id="kp-admin",
                                 request_timeout_ms=30000, api_version_auto_timeout_ms=30000)
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)], timeout_ms=30000)

        threads = [ConsumerThread(i, k.bootstrap) for i in range(3)]
        for t in threads:
            t.start()

        def check_threads():
            for t in threads:
                if t.error is not None:
                    raise AssertionError("consumer %d failed: %r" % (t.idx, t.error))

        def assigned():
            check_threads()
            return stable_assignment(threads)
        wait_for(assigned, DEADLINE_S, "three disjoint assignments covering %d partitions"
                 % PARTITIONS)
        print("assignments:", [sorted(t.assignment) for t in threads])

        # Describe while the group is stable: three members, consumer protocol.
        def described_stable():
            g = admin.describe_consumer_groups([GROUP])[0]
            return g if g.state == "Stable" and len(g.members) == 3 else None
        g = wait_for(described_stable, DEADLINE_S, "DescribeGroups to show Stable with 3 members")
        assert g.group == GROUP, g
        assert g.protocol_type == "consumer", g
        assert g.protocol in ("range", "roundrobin"), g
        assert sorted(m.client_id for m in g.members) == \
            ["kp-consumer-0", "kp-consumer-1", "kp-consumer-2"], g.members
        # In Stable, DescribeGroups carries each member's assignment bytes
        # (kafka-python decodes them as ConsumerProtocolMemberAssignment).
        described = {}
        for m in g.members:
            parts = set()
            for topic, plist in m.member_assignment.assignment:
                assert topic == TOPIC, m
                parts.update(plist)
            described[m.client_id] = frozenset(parts)
        assert sorted(p for s in described.values() for p in s) == list(range(PARTITIONS)), \
            described
        assert set(described.values()) == set(t.assignment for t in threads), \
            (described, [t.assignment for t in threads])

        listed = dict(admin.list_consumer_groups())
        assert listed.get(GROUP) == "consumer", listed

        # Each member commits the partitions it owns; a commit racing a
        # rebalance may fail, so retry until every partition is committed.
        pending = set(range(PARTITIONS))

        def commit_all():
            check_threads()
            wait_for(assigned, DEADLINE_S, "a stable assignment before committing")
            for t in threads:
                mine = sorted(t.assignment & pending)
                if mine:
                    t.commands.put(mine)
                    status, detail = t.results.get(timeout=DEADLINE_S)
                    if status == "ok":
                        pending.difference_update(detail)
                    else:
                        print("commit by consumer %d failed (will retry): %s" % (t.idx, detail))
            return not pending
        wait_for(commit_all, DEADLINE_S, "every partition committed", interval=0.2)

        for t in threads:
            t.stop_flag.set()
        for t in threads:
            t.join(DEADLINE_S)
            assert not t.is_alive(), "consumer %d did not close" % t.idx
            check_threads()

        # Every member left on close: the group is Empty but keeps its offsets.
        def described_empty():
            g2 = admin.describe_consumer_groups([GROUP])[0]
            return g2 if g2.state == "Empty" else None
        g = wait_for(described_empty, DEADLINE_S, "the group to be Empty after close")
        assert g.members == [], g
        admin.close()

        k.restart()

        # A new member of the group reads the committed offsets back.
        c = KafkaConsumer(bootstrap_servers=k.bootstrap, group_id=GROUP,
                          client_id="kp-reader", enable_auto_commit=False,
                          request_timeout_ms=30000, api_version_auto_timeout_ms=30000)

        def read_back():
            return {p: c.committed(TopicPartition(TOPIC, p), metadata=True)
                    for p in range(PARTITIONS)}
        got = wait_for(lambda: (lambda d: d if None not in d.values() else None)(read_back()),
                       DEADLINE_S, "committed offsets after restart")
        got = {p: (om.offset, om.metadata) for p, om in got.items()}
        assert got == {p: (committed_offset(p), committed_metadata(p))
                       for p in range(PARTITIONS)}, got
        c.close(autocommit=False)

        admin = KafkaAdminClient(bootstrap_servers=k.bootstrap, client_id="kp-admin-2",
                                 request_timeout_ms=30000, api_version_auto_timeout_ms=30000)
        offsets = admin.list_consumer_group_offsets(GROUP)
        want = {TopicPartition(TOPIC, p): (committed_offset(p), committed_metadata(p))
                for p in range(PARTITIONS)}
        assert {tp: (om.offset, om.metadata) for tp, om in offsets.items()} == want, offsets

        listed = dict(admin.list_consumer_groups())
        assert listed.get(GROUP) == "consumer", listed
        g = admin.describe_consumer_groups([GROUP])[0]
        assert g.state == "Empty" and g.members == [] and g.protocol_type == "consumer", g

        result = admin.delete_consumer_groups([GROUP])
        assert len(result) == 1 and result[0][0] == GROUP, result
        assert result[0][1].errno == 0, result

        listed = dict(admin.list_consumer_groups())
        assert GROUP not in listed, listed
        g = admin.describe_consumer_groups([GROUP])[0]
        assert g.state == "Dead" and g.members == [], g
        assert admin.list_consumer_group_offsets(GROUP) == {}, "offsets survived DeleteGroups"
        admin.close()


if __name__ == "__main__":
    run(main)
