# SPDX-License-Identifier: Apache-2.0
"""kafka-python and confluent-kafka: produce, then consume in a 3-member group
with synchronous commits; one member leaves mid-way; every message exactly once.

For each client library, on its own 3-partition topic and group:
1. three members (one thread each: a consumer only rejoins from inside poll)
   subscribe while the topic is empty and the test waits until their
   assignments are disjoint and cover every partition;
2. the library's producer sends the first half of the messages (acks=all,
   values carry a per-message id); the members consume them, committing
   synchronously what each poll returned (kafka-python: after every poll with
   records; confluent-kafka: each message, explicitly, polled one at a time);
3. once the first half is consumed and committed, one member leaves the group
   (close sends LeaveGroup); the test waits until the two others own every
   partition again;
4. the producer sends the second half; the two members consume it.
Every id must have been consumed exactly once across members, and the
group's committed offsets must equal the log end offsets.
"""

import threading

from confluent_kafka import Consumer, Producer, TopicPartition as CkTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer, KafkaProducer

from kcoord_harness import Kcoord, run, wait_for

PARTITIONS = 3
HALF = 150
DEADLINE_S = 120


class Member(threading.Thread):
    """One group member polling on its own thread; records what it consumed."""

    def __init__(self, kind, idx, bootstrap, topic, group):
        super().__init__(name="%s-member-%d" % (kind, idx), daemon=True)
        self.kind = kind
        self.idx = idx
        self.bootstrap = bootstrap
        self.topic = topic
        self.group = group
        self.assignment = frozenset()
        self.seen = []
        self.lock = threading.Lock()
        self.stop_flag = threading.Event()
        self.error = None

    def run(self):
        try:
            if self.kind == "kafka-python":
                self.run_kafka_python()
            else:
                self.run_confluent()
        except Exception as e:  # reported by the main thread
            self.error = e

    def take(self, values):
        with self.lock:
            self.seen.extend(values)

    def run_kafka_python(self):
        c = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=self.group,
                          client_id="kp-member-%d" % self.idx, enable_auto_commit=False,
                          auto_offset_reset="earliest", session_timeout_ms=10000,
                          heartbeat_interval_ms=500, request_timeout_ms=30000,
                          api_version_auto_timeout_ms=30000)
        c.subscribe([self.topic])
        try:
            while not self.stop_flag.is_set():
                batches = c.poll(timeout_ms=100)
                self.assignment = frozenset(tp.partition for tp in c.assignment())
                values = [m.value.decode() for msgs in batches.values() for m in msgs]
                if values:
                    c.commit()  # synchronous; raises if the group moved on
                    self.take(values)
        finally:
            c.close(autocommit=False)

    def run_confluent(self):
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": self.group,
                      "client.id": "ck-member-%d" % self.idx, "enable.auto.commit": False,
                      "auto.offset.reset": "earliest", "session.timeout.ms": 10000,
                      "heartbeat.interval.ms": 500})
        c.subscribe([self.topic])
        try:
            while not self.stop_flag.is_set():
                # One message per poll: a revocation is served by a poll that
                # returns no message, so the message just returned is still
                # owned, and its explicit synchronous commit uses this generation.
                m = c.poll(0.1)
                self.assignment = frozenset(tp.partition for tp in c.assignment())
                if m is None:
                    continue
                if m.error():
                    assert not m.error().fatal(), m.error()
                    continue
                c.commit(message=m, asynchronous=False)
                self.take([m.value().decode()])
        finally:
            c.close()


def produce(kind, bootstrap, topic, values):
    if kind == "kafka-python":
        p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5,
                          api_version_auto_timeout_ms=30000)
        futures = [p.send(topic, key=v.encode(), value=v.encode()) for v in values]
        for f in futures:
            f.get(timeout=DEADLINE_S)
        p.close()
        return
    failed = []
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    for v in values:
        p.produce(topic, key=v.encode(), value=v.encode(),
                  on_delivery=lambda err, msg: err and failed.append(err))
        p.poll(0)
    assert p.flush(DEADLINE_S) == 0, "messages not delivered"
    assert not failed, failed[:5]


def check_errors(members):
    for m in members:
        if m.error is not None:
            raise AssertionError("%s failed: %r" % (m.name, m.error))


def covers_all(members):
    """Every member owns something and the assignments partition the topic."""
    check_errors(members)
    owned = [m.assignment for m in members]
    union = frozenset().union(*owned)
    return (union == frozenset(range(PARTITIONS)) and all(owned) and
            sum(len(a) for a in owned) == PARTITIONS)


def consumed(members):
    check_errors(members)
    out = []
    for m in members:
        with m.lock:
            out.extend(m.seen)
    return out


def scenario(kind, bootstrap, admin):
    topic = "eo-%s" % kind
    group = "eo-group-%s" % kind
    admin.create_topics([NewTopic(topic, num_partitions=PARTITIONS, replication_factor=1)],
                        operation_timeout=30)[topic].result(timeout=DEADLINE_S)
    members = [Member(kind, i, bootstrap, topic, group) for i in range(3)]
    for m in members:
        m.start()
    try:
        wait_for(lambda: covers_all(members), DEADLINE_S, "%s: 3 members own every partition" % kind,
                 state=lambda: [sorted(m.assignment) for m in members])
        first = ["%s-%d" % (kind, i) for i in range(HALF)]
        second = ["%s-%d" % (kind, i) for i in range(HALF, 2 * HALF)]
        produce(kind, bootstrap, topic, first)
        wait_for(lambda: len(consumed(members)) >= len(first), DEADLINE_S,
                 "%s: first half consumed" % kind, state=lambda: len(consumed(members)))
        assert sorted(consumed(members)) == sorted(first), kind

        leaver = members[2]
        leaver.stop_flag.set()
        leaver.join(DEADLINE_S)
        assert not leaver.is_alive(), "%s: the leaving member did not close" % kind
        check_errors([leaver])
        stayers = members[:2]
        wait_for(lambda: covers_all(stayers), DEADLINE_S,
                 "%s: 2 members own every partition after the leave" % kind,
                 state=lambda: [sorted(m.assignment) for m in stayers])

        produce(kind, bootstrap, topic, second)
        wait_for(lambda: len(consumed(members)) >= 2 * HALF, DEADLINE_S,
                 "%s: second half consumed" % kind, state=lambda: len(consumed(members)))
        seen = consumed(members)
        assert len(seen) == len(set(seen)), "%s: duplicates: %d of %d" % (
            kind, len(seen) - len(set(seen)), len(seen))
        assert sorted(seen) == sorted(first + second), kind
        assert leaver.seen, "%s: the leaver consumed nothing before leaving: %r" % (
            kind, [(sorted(m.assignment), len(m.seen)) for m in members])
    finally:
        for m in members:
            m.stop_flag.set()
        for m in members:
            m.join(DEADLINE_S)
    check_errors(members)

    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    tps = [CkTopicPartition(topic, p) for p in range(PARTITIONS)]
    committed = probe.committed(tps, timeout=30)
    total = 0
    for tp in committed:
        lo, hi = probe.get_watermark_offsets(CkTopicPartition(topic, tp.partition), timeout=30)
        assert tp.offset == hi, (kind, tp.partition, tp.offset, hi)
        total += hi
    probe.close()
    assert total == 2 * HALF, (kind, total)


def main():
    with Kcoord("group-exactly-once") as k:
        admin = AdminClient({"bootstrap.servers": k.bootstrap})
        scenario("kafka-python", k.bootstrap, admin)
        scenario("confluent-kafka", k.bootstrap, admin)


if __name__ == "__main__":
    run(main)
