# SPDX-License-Identifier: Apache-2.0
"""Log compaction of a cleanup.policy=compact topic, read back by real clients.

kafka-python's admin client creates a compacted topic with small segments
(segment.ms=100: the producer's record timestamps, 150 ms apart, roll a
segment at every step), min.cleanable.dirty.ratio=0.01 and
delete.retention.ms=2000; the cleaner looks every 100 ms
(log.cleaner.backoff.ms). A record without a key is refused with
INVALID_RECORD. An idempotent confluent-kafka producer writes many values
for a few keys and a tombstone, then kcoord is killed with SIGKILL and
started again, the cleaner possibly half way through. The test waits (on a
condition) until every value that a later one of its key replaced is gone
from the cleanable part of the log, then checks with a confluent-kafka and
a kafka-python consumer: the latest value of each key at the offset its
delivery report gave, the earlier ones gone, the log start offset 0 and the
high watermark unchanged, the tombstone still there; the same after another
SIGKILL. Then, the tombstone's delete.retention.ms past and new records
making the log dirty again, the tombstone goes too.
"""

import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from kafka import KafkaConsumer
from kafka import TopicPartition as KTopicPartition
from kafka.admin import KafkaAdminClient, NewTopic

from kcoord_harness import Kcoord, run, wait_for

TOPIC = "changelog"
KEYS = [b"k%d" % i for i in range(5)]
ROUNDS = 40          # values per key
STEP_MS = 150        # between the timestamps of successive rounds: > segment.ms
DEADLINE_S = 120


class Writer:
    """An idempotent producer whose delivery reports say where each record went."""

    def __init__(self, bootstrap):
        self.p = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                           "enable.idempotence": True, "linger.ms": 5})
        self.offsets = []  # (offset, key, value) acknowledged
        self.errors = []

    def send(self, key, value, ts):
        def report(err, msg):
            if err:
                self.errors.append(err)
            else:
                self.offsets.append((msg.offset(), msg.key(), msg.value()))
        self.p.produce(TOPIC, key=key, value=value, partition=0, timestamp=ts,
                       on_delivery=report)

    def flush(self):
        assert self.p.flush(DEADLINE_S) == 0
        errors, self.errors = self.errors, []
        return errors


def read_confluent(bootstrap):
    """Every record of the partition, through librdkafka; with the watermarks."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "enable.partition.eof": True})
    try:
        low, high = c.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=30)
        c.assign([TopicPartition(TOPIC, 0, 0)])
        out = []
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            m = c.poll(1.0)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    break
                raise AssertionError(m.error())
            out.append((m.offset(), m.key(), m.value()))
        return low, high, out
    finally:
        c.close()


def read_kafka_python(bootstrap, high):
    c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                      consumer_timeout_ms=5000)
    try:
        tp = KTopicPartition(TOPIC, 0)
        c.assign([tp])
        c.seek(tp, 0)
        out = []
        deadline = time.monotonic() + DEADLINE_S
        while (not out or out[-1][0] < high - 1) and time.monotonic() < deadline:
            for batch in c.poll(timeout_ms=1000).values():
                out += [(m.offset, m.key, m.value) for m in batch]
        assert c.beginning_offsets([tp])[tp] == 0
        return out
    finally:
        c.close()


def expected(acked, upto):
    """The latest record of each key among the acknowledged offsets below upto."""
    latest = {}
    for off, key, value in sorted(acked):
        if off < upto:
            latest[key] = (off, key, value)
    return sorted(latest.values())


def main():
    overrides = {"log.cleaner.backoff.ms": "100"}
    with Kcoord("log-compaction", overrides) as k:
        admin = KafkaAdminClient(bootstrap_servers=k.bootstrap, request_timeout_ms=30000)
        admin.create_topics([NewTopic(TOPIC, 1, 1, topic_configs={
            "cleanup.policy": "compact", "segment.ms": "100",
            "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "2000"})])
        admin.close()
        w = Writer(k.bootstrap)
        # A record without a key: refused, nothing appended.
        w.send(None, b"no key", int(time.time() * 1000))
        errors = w.flush()
        assert [e.code() for e in errors] == [KafkaError.INVALID_RECORD], errors

        # Rounds of a value for every key, their timestamps STEP_MS apart, an
        # hour back (within message.timestamp.before.max.ms).
        t0 = int(time.time() * 1000) - 3600 * 1000
        for r in range(ROUNDS):
            for key in KEYS:
                w.send(key, b"%s=%d" % (key, r), t0 + r * STEP_MS)
            w.flush()
        tomb_ts = t0 + ROUNDS * STEP_MS
        w.send(KEYS[1], None, tomb_ts)  # k1 deleted
        assert w.flush() == []
        # A later record rolls the segment holding the tombstone: all before it is cleanable.
        w.send(b"tail", b"t0", tomb_ts + STEP_MS)
        assert w.flush() == []
        acked = sorted(w.offsets)
        total = len(KEYS) * ROUNDS + 2
        assert [o for o, _, _ in acked] == list(range(total)), acked[:5]
        tail_offset = total - 1
        want = expected(acked, tail_offset)
        assert want[-1] == (tail_offset - 1, KEYS[1], None)  # the tombstone, kept for now

        # Killed at once: a clean may be under way; what was acknowledged stays.
        k.kill()
        k.start()

        def compacted():
            low, high, got = read_confluent(k.bootstrap)
            return (low, high, got) if [r for r in got if r[0] < tail_offset] == want else None
        low, high, got = wait_for(compacted, DEADLINE_S, "the log compacted",
                                  state=lambda: read_confluent(k.bootstrap)[2][:12])
        assert (low, high) == (0, total), (low, high)
        assert got[-1] == (tail_offset, b"tail", b"t0")
        # kafka-python reads the same records across the gaps.
        kp = read_kafka_python(k.bootstrap, high)
        assert kp == got, (kp, got)
        assert "cleaned %s-0" % TOPIC in k.stderr_text()

        # Another SIGKILL: the compacted log is what comes back.
        k.kill()
        k.start()
        assert read_confluent(k.bootstrap) == (low, high, got)

        # The tombstone's horizon (delete.retention.ms after the clean that
        # first kept it) passes; new rolled segments make the log dirty, and
        # the clean after the horizon drops the tombstone.
        w = Writer(k.bootstrap)
        step = [0]

        def tombstone_gone():
            step[0] += 1
            w.send(b"tail", b"t%d" % step[0], tomb_ts + (1 + step[0]) * STEP_MS)
            assert w.flush() == []
            _, _, now = read_confluent(k.bootstrap)
            return now if not any(r[0] == tail_offset - 1 for r in now) else None
        now = wait_for(tombstone_gone, DEADLINE_S, "the tombstone removed", interval=0.3)
        kept = [r for r in now if r[0] < tail_offset]
        assert kept == [r for r in want if r[2] is not None], kept
        assert not any(r[1] == KEYS[1] for r in now), now
        assert read_confluent(k.bootstrap)[0] == 0  # the log start offset never moved


if __name__ == "__main__":
    run(main)
