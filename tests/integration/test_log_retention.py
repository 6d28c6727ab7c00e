# SPDX-License-Identifier: Apache-2.0
"""Retention, DeleteRecords, DescribeConfigs and incremental fetch sessions.

kafka-python's admin client describes a topic's configs (a topic override
with source TOPIC_CONFIG, a broker property from the configuration file with
STATIC_BROKER_CONFIG, a built-in default with DEFAULT_CONFIG) and the
broker's; an unknown topic config name fails CreateTopics with
INVALID_CONFIG. DeleteRecords (raw client, v0 and v2) moves the low
watermark and answers OFFSET_OUT_OF_RANGE beyond the high watermark. A
librdkafka consumer, which fetches with incremental sessions, reads three
partitions across several produce bursts with no loss and no duplicate. A
topic with retention.ms=1000 loses its old batches on a 200 ms check
interval.
"""

import time

from confluent_kafka import Consumer, Producer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
from kafka.errors import InvalidConfigurationError

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

DEADLINE_S = 60


def produce(bootstrap, topic, values, partition=None):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 0})
    errors = []
    for v in values:
        kwargs = {} if partition is None else {"partition": partition}
        p.produce(topic, value=v, on_delivery=lambda e, m: errors.append(e) if e else None,
                  **kwargs)
    assert p.flush(DEADLINE_S) == 0
    assert not errors, errors


def low_high(bootstrap, topic, partition):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
    finally:
        c.close()


def delete_records(port, version, topic, partition, offset):
    """DeleteRecords through the raw client; returns (low watermark, error code)."""
    flexible = version >= 2
    w = kw.Writer()
    if flexible:
        w.uvarint(2).compact_string(topic).uvarint(2).i32(partition).i64(offset).no_tags()
        w.no_tags().i32(30000).no_tags()
    else:
        w.i32(1).string(topic).i32(1).i32(partition).i64(offset).i32(30000)
    with kw.Conn(port) as c:
        c.send(21, version, w.getvalue(), flexible=flexible)
        _, r = c.recv(flexible_header=flexible)
        r.i32()  # throttle
        if flexible:
            assert r.uvarint() == 2
            assert r.compact_string() == topic
            assert r.uvarint() == 2
        else:
            assert r.i32() == 1
            assert r.string() == topic
            assert r.i32() == 1
        assert r.i32() == partition
        low, err = r.i64(), r.i16()
        return low, err


def configs_of(admin, rtype, name):
    resp = admin.describe_configs([ConfigResource(rtype, name)])
    out = {}
    for res in resp[0].resources:
        err, _msg, _t, _n, entries = res[0], res[1], res[2], res[3], res[4]
        assert err == 0, res
        for e in entries:
            out[e[0]] = e
    return out


def check_configs(k):
    admin = KafkaAdminClient(bootstrap_servers=k.bootstrap, request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic("cfg", 1, 1, topic_configs={"retention.ms": "86400000"})])
        try:
            admin.create_topics([NewTopic("bad-cfg", 1, 1, topic_configs={"no.such": "1"})])
            raise AssertionError("an unknown topic config must be rejected")
        except InvalidConfigurationError:
            pass
        topic = configs_of(admin, ConfigResourceType.TOPIC, "cfg")
        # (name, value, read_only, source, sensitive, synonyms) in v1+.
        assert topic["retention.ms"][1] == "86400000", topic["retention.ms"]
        assert topic["retention.ms"][3] == 1, topic["retention.ms"]  # TOPIC_CONFIG
        assert topic["retention.bytes"][1] == "-1", topic["retention.bytes"]
        # The sample configuration file names log.retention.bytes: a static broker config.
        assert topic["retention.bytes"][3] == 4, topic["retention.bytes"]
        # log.cleanup.policy and log.segment.bytes are in the sample file too.
        assert topic["cleanup.policy"][1:4] == ("delete", False, 4), topic["cleanup.policy"]
        # Every topic config of Kafka 4.4's LogConfig.
        assert len(topic) == 37, sorted(topic)
        assert topic["segment.bytes"][1:4] == ("1073741824", False, 4), topic["segment.bytes"]
        assert topic["delete.retention.ms"][1:4] == ("86400000", False, 4)
        assert topic["compression.type"][1:4] == ("producer", False, 5)
        assert topic["flush.messages"][1:4] == ("9223372036854775807", False, 4)
        broker = configs_of(admin, ConfigResourceType.BROKER, "1")
        assert broker["log.retention.hours"][1] == "168", broker["log.retention.hours"]
        assert broker["log.retention.check.interval.ms"][1] == "200"
        assert broker["log.retention.check.interval.ms"][3] == 4  # STATIC_BROKER_CONFIG
        assert broker["log.flush.interval.messages"][1:4] == ("9223372036854775807", False, 4)
        assert broker["log.flush.interval.ms"][1] is None, broker["log.flush.interval.ms"]
    finally:
        admin.close()


def check_delete_records(k):
    produce(k.bootstrap, "purge", [b"v%d" % i for i in range(10)], partition=0)
    assert low_high(k.bootstrap, "purge", 0) == (0, 10)
    assert delete_records(k.port, 0, "purge", 0, 4) == (4, 0)
    assert low_high(k.bootstrap, "purge", 0) == (4, 10)
    assert delete_records(k.port, 2, "purge", 0, 11) == (-1, 1)  # OFFSET_OUT_OF_RANGE
    assert delete_records(k.port, 2, "purge", 0, 2) == (4, 0)  # never moves back
    assert delete_records(k.port, 1, "purge", 0, -1) == (10, 0)  # -1: high watermark
    assert delete_records(k.port, 1, "nope", 0, 0) == (-1, 3)
    k.restart()
    assert low_high(k.bootstrap, "purge", 0) == (10, 10)


def check_sessions(k):
    topic = "sessions"
    admin = KafkaAdminClient(bootstrap_servers=k.bootstrap, request_timeout_ms=30000)
    admin.create_topics([NewTopic(topic, 3, 1)])
    admin.close()
    c = Consumer({"bootstrap.servers": k.bootstrap, "group.id": "sess", "auto.offset.reset":
                  "earliest", "fetch.wait.max.ms": 100, "enable.auto.commit": False})
    c.subscribe([topic])
    seen = []
    sent = []
    for burst in range(5):
        values = [b"b%d-%d" % (burst, i) for i in range(30)]
        for part in range(3):
            produce(k.bootstrap, topic, values[part::3], partition=part)
        sent += values

        def all_seen():
            m = c.poll(0.2)
            if m is not None and not m.error():
                seen.append(m.value())
            return len(seen) >= len(sent)
        wait_for(all_seen, DEADLINE_S, "burst %d consumed" % burst,
                 state=lambda: "%d of %d" % (len(seen), len(sent)))
    # No duplicate arrives late.
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        m = c.poll(0.1)
        if m is not None and not m.error():
            seen.append(m.value())
    c.close()
    assert sorted(seen) == sorted(sent), (len(seen), len(sent))


def check_retention(k):
    admin = KafkaAdminClient(bootstrap_servers=k.bootstrap, request_timeout_ms=30000)
    admin.create_topics([NewTopic("short", 1, 1, topic_configs={"retention.ms": "1000"})])
    admin.close()
    produce(k.bootstrap, "short", [b"old%d" % i for i in range(5)], partition=0)
    # Appended; on a slow machine retention may already have removed them.
    lo, hi = low_high(k.bootstrap, "short", 0)
    assert hi == 5 and lo in (0, 5), (lo, hi)
    wait_for(lambda: low_high(k.bootstrap, "short", 0) == (5, 5), DEADLINE_S,
             "retention to remove the old batches",
             state=lambda: low_high(k.bootstrap, "short", 0))
    produce(k.bootstrap, "short", [b"new"], partition=0)
    lo, hi = low_high(k.bootstrap, "short", 0)
    assert hi == 6 and lo in (5, 6), (lo, hi)


def main():
    with Kcoord("log-retention", overrides={"log.retention.check.interval.ms": "200"}) as k:
        check_configs(k)
        check_delete_records(k)
        check_sessions(k)
        check_retention(k)


if __name__ == "__main__":
    run(main)
