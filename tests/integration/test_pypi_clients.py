# SPDX-License-Identifier: Apache-2.0
"""confluent-kafka 2.16 and kafka-python 3 from PyPI, each in a consumer
group on kcoord and on the reference Kafka 4.4.0, comparing what the
clients see.

The clients come from tests/integration/pyclients/requirements.txt (pinned
with their hashes), installed by scripts/deps.sh into build-pyclients/, a
virtualenv of its own beside Debian's packages; this file re-executes itself
with that virtualenv's python. confluent-kafka's wheel carries a librdkafka
that speaks the KIP-848 consumer protocol (Debian's does not).

One reference broker serves the whole file; each step has its own topic and
group. A step (confluent-kafka with group.protocol=consumer, confluent-kafka
with group.protocol=classic, kafka-python's classic group) runs the same
story on both brokers:
  - member A joins alone and gets the four partitions, consumes what was
    produced and commits it (the offsets its commit reports);
  - member B joins: two partitions each, B starting at A's commits;
  - more records, each member commits its own; the group as the admin
    client describes it (type, state, assignor, members and their sizes)
    and the offsets it lists;
  - B leaves: A holds the four again, resumes at B's commits, commits;
  - A leaves: the group described empty, its offsets kept.
The observations (assignment sizes, committed offsets, every offset each
partition delivered, duplicates included) must be equal on both brokers,
and are also checked against what the story means.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(SOURCE_ROOT, "build-pyclients")
VENV_PYTHON = os.path.join(VENV, "bin", "python")

if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
    if not os.access(VENV_PYTHON, os.X_OK):
        sys.stderr.write("%s is missing: run scripts/deps.sh all\n" % VENV)
        sys.exit(1)
    os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])

import faulthandler  # noqa: E402
import queue  # noqa: E402
import threading  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "reference"))

import confluent_kafka  # noqa: E402
import kafka  # noqa: E402
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, Producer  # noqa: E402
from confluent_kafka import TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from kafka.structs import OffsetAndMetadata  # noqa: E402

import reference_kafka  # noqa: E402
from kcoord_harness import DEFAULT_OVERRIDES, Kcoord, run, wait_for  # noqa: E402

PARTITIONS = 4
DEADLINE_S = 120.0

# The group settings of both brokers: the harness's short ones, KIP-848
# heartbeats every half second, no topic created by a fetch.
SETTINGS = dict(DEFAULT_OVERRIDES)
SETTINGS.update({
    "group.consumer.heartbeat.interval.ms": "500",
    "auto.create.topics.enable": "false",
})


class ConfluentMember:
    """A confluent-kafka Consumer; protocol: "consumer" or "classic"."""

    def __init__(self, bootstrap, group, topic, name, protocol):
        conf = {"bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
                "enable.auto.commit": False, "auto.offset.reset": "earliest",
                "group.protocol": protocol}
        if protocol == "classic":
            conf.update({"session.timeout.ms": 10000, "heartbeat.interval.ms": 500,
                         "partition.assignment.strategy": "range"})
        self.c = Consumer(conf)
        self.c.subscribe([topic])

    def poll(self):
        """[(partition, offset)] of the records one poll delivered."""
        out = []
        for m in self.c.consume(num_messages=100, timeout=0.1):
            if m.error() is None:
                out.append((m.partition(), m.offset()))
        return out

    def assignment(self):
        return frozenset(tp.partition for tp in self.c.assignment())

    def commit(self):
        """Commits the positions; returns {partition: offset} as committed."""
        return {tp.partition: tp.offset for tp in self.c.commit(asynchronous=False)}

    def close(self):
        self.c.close()


class KafkaPythonMember:
    """A kafka-python KafkaConsumer (classic protocol, range assignor)."""

    def __init__(self, bootstrap, group, topic, name, protocol):
        assert protocol == "classic"
        self.c = kafka.KafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                                     client_id=name, enable_auto_commit=False,
                                     auto_offset_reset="earliest",
                                     # kafka-python heartbeats from a Python thread,
                                     # which a loaded machine can starve for seconds:
                                     # a long session keeps the story about the group.
                                     session_timeout_ms=30000, heartbeat_interval_ms=500,
                                     partition_assignment_strategy=[
                                         kafka.coordinator.assignors.range
                                         .RangePartitionAssignor])
        # The topic's metadata before the first join: a leader that joins
        # without it assigns nothing and re-joins at once when it arrives,
        # and kafka-python 3.0.12 then sometimes never handles the second
        # SyncGroup's answer, on kcoord and on Kafka alike (a client bug).
        wait_for(lambda: len(self.c.partitions_for_topic(topic)) == PARTITIONS, DEADLINE_S,
                 "kafka-python's metadata of %s" % topic)
        self.c.subscribe([topic])

    def poll(self):
        out = []
        for records in self.c.poll(timeout_ms=100).values():
            out.extend((r.partition, r.offset) for r in records)
        return out

    def assignment(self):
        return frozenset(tp.partition for tp in self.c.assignment())

    def commit(self):
        offsets = {tp: OffsetAndMetadata(self.c.position(tp), "", -1)
                   for tp in self.c.assignment()}
        self.c.commit(offsets)
        return {tp.partition: om.offset for tp, om in offsets.items()}

    def close(self):
        self.c.close()


class MemberThread(threading.Thread):
    """Owns one member (clients are polled from one thread, and a classic
    member rejoins only from inside poll): polls it, publishes its
    assignment and what it delivered, runs the commits the test asks for."""

    def __init__(self, kind, bootstrap, group, topic, name, protocol):
        super().__init__(name=name, daemon=True)
        self.args = (bootstrap, group, topic, name, protocol)
        self.kind = kind
        self.assigned = frozenset()
        self.delivered = []
        self.lock = threading.Lock()
        self.commands = queue.Queue()
        self.results = queue.Queue()
        self.stop = threading.Event()
        self.error = None
        self.start()

    def run(self):
        try:
            m = self.kind(*self.args)
            try:
                pending = False
                while not self.stop.is_set():
                    got = m.poll()
                    assigned = m.assignment()
                    with self.lock:
                        self.delivered.extend(got)
                        self.assigned = assigned
                    if not pending:
                        try:
                            self.commands.get_nowait()
                        except queue.Empty:
                            continue
                    try:
                        self.results.put(m.commit())
                        pending = False
                    except kafka.errors.RebalanceInProgressError:
                        # kafka-python refuses to commit while it means to
                        # rejoin (a metadata change it noticed, on either
                        # broker): the next poll rejoins, then it commits.
                        pending = True
            finally:
                m.close()
        except BaseException as e:  # reported by the test's checks
            self.error = e
            self.results.put(e)

    def commit(self):
        self.commands.put("commit")
        r = self.results.get(timeout=DEADLINE_S)
        if isinstance(r, BaseException):
            raise r
        return r

    def leave(self):
        self.stop.set()
        self.join(DEADLINE_S)
        assert not self.is_alive(), "%s did not close" % self.name
        if self.error is not None:
            raise self.error

    def snapshot(self):
        if self.error is not None:
            raise self.error
        with self.lock:
            return self.assigned, list(self.delivered)


def produce(bootstrap, topic, start, count):
    """count records to each partition (values name partition and offset)."""
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for part in range(PARTITIONS):
        for i in range(start, start + count):
            p.produce(topic, value=b"p%d-%d" % (part, i), partition=part)
    assert p.flush(DEADLINE_S) == 0, "records left unacknowledged"


def delivered_through(members, end):
    """True once every partition delivered offsets up to end - 1."""
    seen = {}
    for m in members:
        for part, off in m.snapshot()[1]:
            seen[part] = max(seen.get(part, -1), off)
    return all(seen.get(part) == end - 1 for part in range(PARTITIONS))


def describe(admin, group):
    d = admin.describe_consumer_groups([group])[group].result(timeout=DEADLINE_S)
    return {
        "type": str(d.type),
        "state": str(d.state),
        "assignor": d.partition_assignor,
        "members": sorted((m.client_id, len(m.assignment.topic_partitions))
                          for m in d.members),
    }


def listed_group(admin, group):
    """The group as ListGroups gives it: (type, state), or None."""
    r = admin.list_consumer_groups(request_timeout=DEADLINE_S).result(timeout=DEADLINE_S)
    for g in r.valid:
        if g.group_id == group:
            return [str(g.type), str(g.state), g.is_simple_consumer_group]
    return None


def listed_offsets(admin, group):
    req = [ConsumerGroupTopicPartitions(group)]
    r = admin.list_consumer_group_offsets(req)[group].result(timeout=DEADLINE_S)
    return {tp.partition: tp.offset for tp in r.topic_partitions}


def story(bootstrap, kind, protocol, tag):
    """One step on one broker; returns what the clients observed."""
    topic, group = "%s-topic" % tag, "%s-group" % tag
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(timeout=DEADLINE_S)
    produce(bootstrap, topic, 0, 5)
    obs = {}
    a = MemberThread(kind, bootstrap, group, topic, "A", protocol)
    members = [a]
    b = None
    try:
        wait_for(lambda: a.snapshot()[0] == frozenset(range(PARTITIONS))
                 and delivered_through([a], 5), DEADLINE_S,
                 "A alone holding every partition, delivering 5 records each",
                 state=a.snapshot)
        obs["A alone commits"] = a.commit()

        b = MemberThread(kind, bootstrap, group, topic, "B", protocol)
        members.append(b)

        def shared():
            sa, sb = a.snapshot()[0], b.snapshot()[0]
            return len(sa) == 2 and len(sb) == 2 and sa | sb == frozenset(range(PARTITIONS))
        wait_for(shared, DEADLINE_S, "A and B holding two partitions each",
                 state=lambda: (a.snapshot()[0], b.snapshot()[0]))
        produce(bootstrap, topic, 5, 3)
        wait_for(lambda: delivered_through(members, 8), DEADLINE_S,
                 "8 records of each partition delivered")
        commits = {}
        for m in members:
            c = m.commit()
            assert set(c) == m.snapshot()[0], "a commit beyond the member's assignment: %r" % c
            commits.update(c)
        obs["A and B commit"] = commits
        obs["described with A and B"] = describe(admin, group)
        obs["ListGroups with A and B"] = listed_group(admin, group)
        obs["listed with A and B"] = listed_offsets(admin, group)

        b.leave()
        members.remove(b)
        wait_for(lambda: a.snapshot()[0] == frozenset(range(PARTITIONS)), DEADLINE_S,
                 "A holding every partition again after B left", state=a.snapshot)
        produce(bootstrap, topic, 8, 2)
        wait_for(lambda: delivered_through([a], 10), DEADLINE_S,
                 "10 records of each partition delivered")
        obs["A alone again commits"] = a.commit()
        obs["described with A"] = describe(admin, group)

        delivered = {}
        for m in (a, b):
            for part, off in m.snapshot()[1]:
                delivered.setdefault(part, []).append(off)
        obs["delivered"] = {part: sorted(offs) for part, offs in delivered.items()}
        a.leave()
        members.remove(a)
        obs["described empty"] = wait_for(
            lambda: (lambda d: d if d["state"] == "ConsumerGroupState.EMPTY" else None)(
                describe(admin, group)), DEADLINE_S, "the group empty once A left")
        obs["listed empty"] = listed_offsets(admin, group)
        obs["ListGroups empty"] = listed_group(admin, group)
    except AssertionError:
        faulthandler.dump_traceback(all_threads=True)  # where a client hangs
        raise
    finally:
        for m in members:
            m.stop.set()
        for m in members:
            m.join(DEADLINE_S)
    return obs


def expect(obs, protocol):
    """What the story means whichever broker ran it."""
    every = set(range(PARTITIONS))
    assert obs["A alone commits"] == {p: 5 for p in every}, obs
    assert obs["A and B commit"] == {p: 8 for p in every}, obs
    assert obs["listed with A and B"] == {p: 8 for p in every}, obs
    assert obs["A alone again commits"] == {p: 10 for p in every}, obs
    assert obs["listed empty"] == {p: 10 for p in every}, obs
    # Commits made before every hand-over: nothing delivered twice.
    assert obs["delivered"] == {p: list(range(10)) for p in every}, obs
    assert obs["described with A and B"]["members"] == [("A", 2), ("B", 2)], obs
    assert obs["described with A"]["members"] == [("A", 4)], obs
    assert obs["described empty"]["members"] == [], obs
    want_type = "ConsumerGroupType.CONSUMER" if protocol == "consumer" else \
        "ConsumerGroupType.CLASSIC"
    assert obs["described with A and B"]["type"] == want_type, obs


STEPS = [
    ("confluent-consumer", ConfluentMember, "consumer"),
    ("confluent-classic", ConfluentMember, "classic"),
    ("kafka-python-classic", KafkaPythonMember, "classic"),
]


def main():
    print("confluent-kafka %s (librdkafka %s), kafka-python %s"
          % (confluent_kafka.version(), confluent_kafka.libversion()[0], kafka.__version__))
    assert confluent_kafka.version().startswith("2.16"), confluent_kafka.version()
    assert kafka.__version__.startswith("3."), kafka.__version__
    only = os.environ.get("KC_TEST_STEP")
    steps = [s for s in STEPS if not only or s[0] == only]
    ref = reference_kafka.ReferenceKafka("pypi-clients", SETTINGS)
    ref.start()
    try:
        for tag, kind, protocol in steps:
            print("step %s" % tag)
            with Kcoord("pypi-" + tag, SETTINGS) as k:
                mine = story(k.bootstrap, kind, protocol, tag)
            theirs = story(ref.bootstrap, kind, protocol, tag)
            for key in theirs:
                print("  %s: %r" % (key, theirs[key]))
                assert mine.get(key) == theirs[key], (
                    "%s, %s: kcoord %r, Kafka %r" % (tag, key, mine.get(key), theirs[key]))
            assert mine == theirs
            expect(theirs, protocol)
    except BaseException:
        sys.stderr.write(ref.log_tail())
        raise
    finally:
        ref.cleanup()


if __name__ == "__main__":
    run(main)
