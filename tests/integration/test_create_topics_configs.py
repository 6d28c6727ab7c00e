# SPDX-License-Identifier: Apache-2.0
"""CreateTopics v5+ answers with the created topic's configs.

As Kafka's controller does (ReplicationControlManager.createTopic), each
created topic's result carries NumPartitions, ReplicationFactor and every
topic config of LogConfig, sorted by name, with its effective value, read-only
false and its source: TOPIC_CONFIG (1) for the request's configs,
STATIC_BROKER_CONFIG (4) for a broker property given to kcoord,
DEFAULT_CONFIG (5) for LogConfig's defaults. validate_only answers the same
without creating the topic; a failed topic gets an empty config list and
NumPartitions / ReplicationFactor -1. Checked with the raw wire client at v5
and v7 (which adds the topic id).

Values are checked as LogConfig does (type, lower bound, accepted words:
INVALID_CONFIG with ConfigDef's reason), and the configs the log acts on
apply per topic: a topic's max.message.bytes refuses a batch the broker's
limit allows (MESSAGE_TOO_LARGE), and on a message.timestamp.type=
LogAppendTime topic a librdkafka consumer sees the broker's append time. A
topic whose cleanup.policy is compact only refuses DeleteRecords with
POLICY_VIOLATION (Partition.deleteRecordsOnLeader).
"""

import time

from confluent_kafka import Consumer, Producer, TopicPartition, TIMESTAMP_LOG_APPEND_TIME

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 1, 4, 5
LONG_MAX = "9223372036854775807"
# Kafka 4.4's LogConfig names.
ALL_NAMES = sorted([
    "cleanup.policy", "compression.gzip.level", "compression.lz4.level", "compression.type",
    "compression.zstd.level", "delete.retention.ms", "errors.deadletterqueue.group.enable",
    "file.delete.delay.ms", "flush.messages",
    "flush.ms", "follower.replication.throttled.replicas", "index.interval.bytes",
    "leader.replication.throttled.replicas", "local.retention.bytes", "local.retention.ms",
    "max.compaction.lag.ms", "max.decompressed.message.bytes", "max.message.bytes",
    "message.timestamp.after.max.ms", "message.timestamp.before.max.ms",
    "message.timestamp.type", "min.cleanable.dirty.ratio", "min.compaction.lag.ms",
    "min.insync.replicas", "preallocate", "remote.copy.lag.bytes", "remote.copy.lag.ms",
    "remote.log.copy.disable",
    "remote.log.delete.on.disable", "remote.storage.enable", "retention.bytes", "retention.ms",
    "segment.bytes", "segment.index.bytes", "segment.jitter.ms", "segment.ms",
    "unclean.leader.election.enable"])


def create_topics(conn, version, topics, validate_only=False):
    """topics: [(name, partitions, {config: value})]; returns {name: result dict}."""
    def topic(w, t):
        name, parts, configs = t
        w.compact_string(name).i32(parts).i16(-1).compact_array([], None)
        w.compact_array(sorted(configs.items()),
                        lambda ww, c: ww.compact_string(c[0]).compact_string(c[1]).no_tags())
        w.no_tags()
    body = (kw.Writer().compact_array(topics, topic).i32(30000).boolean(validate_only)
            .no_tags().getvalue())
    corr = conn.send(kw.API_CREATE_TOPICS, version, body, flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()  # throttle

    def result(rr):
        out = {"name": rr.compact_string()}
        if version >= 7:
            out["topic_id"] = rr.uuid()
        out["error_code"] = rr.i16()
        out["error_message"] = rr.compact_string()
        out["num_partitions"] = rr.i32()
        out["replication_factor"] = rr.i16()

        def config(r3):
            c = (r3.compact_string(), r3.compact_string(), r3.boolean(), r3.i8(), r3.boolean())
            r3.skip_tags()
            return c
        out["configs"] = rr.compact_array(config)
        rr.skip_tags()
        return out
    results = r.compact_array(result)
    r.skip_tags()
    return {x["name"]: x for x in results}


def delete_records(conn, topic, offset):
    """DeleteRecords v0 of partition 0; returns (error code, low watermark)."""
    w = kw.Writer().i32(1).string(topic).i32(1).i32(0).i64(offset).i32(30000)
    corr = conn.send(21, 0, w.getvalue())
    got, r = conn.recv()
    assert got == corr
    r.i32()  # throttle
    assert r.i32() == 1 and r.string() == topic and r.i32() == 1 and r.i32() == 0
    low = r.i64()
    return r.i16(), low


def check_created(res, partitions, overrides):
    assert res["error_code"] == 0, res
    assert res["num_partitions"] == partitions and res["replication_factor"] == 1, res
    configs = res["configs"]
    assert [c[0] for c in configs] == ALL_NAMES, configs
    by_name = {c[0]: c for c in configs}
    for c in configs:
        assert c[2] is False and c[4] is False, c  # not read-only, not sensitive
    for name, value in overrides.items():
        assert by_name[name][1:4] == (value, False, TOPIC_CONFIG), by_name[name]
    return by_name


def main():
    with Kcoord("create-topics-configs", {"log.retention.bytes": "12345"}) as k:
        with kw.Conn(k.port) as conn:
            res = create_topics(conn, 5, [("cfg-a", 3, {"retention.ms": "1000",
                                                        "flush.messages": "5",
                                                        "cleanup.policy": "delete"})])
            c = check_created(res["cfg-a"], 3, {"retention.ms": "1000", "flush.messages": "5",
                                                "cleanup.policy": "delete"})
            # Broker properties given to kcoord (the command line, the sample file).
            assert c["retention.bytes"][1:4] == ("12345", False, STATIC_BROKER_CONFIG), c
            assert c["max.message.bytes"][1:4] == ("1048588", False, STATIC_BROKER_CONFIG), c
            # The sample file sets log.flush.scheduler.interval.ms, not
            # log.flush.interval.ms: Kafka drops the synonyms before the
            # topic config's own broker property, so the source is the default.
            assert c["flush.ms"][1:4] == (LONG_MAX, False, DEFAULT_CONFIG), c
            # The sample file names log.segment.bytes and log.cleaner.min.cleanable.ratio.
            assert c["segment.bytes"][1:4] == ("1073741824", False, STATIC_BROKER_CONFIG), c
            assert c["min.cleanable.dirty.ratio"][1:4] == ("0.5", False, STATIC_BROKER_CONFIG), c
            # LogConfig defaults.
            for name, value in [("compression.type", "producer"),
                                ("min.insync.replicas", "1"),
                                ("message.timestamp.type", "CreateTime"),
                                ("leader.replication.throttled.replicas", ""),
                                ("local.retention.ms", "-2"),
                                ("unclean.leader.election.enable", "false")]:
                assert c[name][1:4] == (value, False, DEFAULT_CONFIG), c[name]

            # v7 adds the topic id; validate_only answers the same and creates nothing.
            res = create_topics(conn, 7, [("cfg-b", 1, {})], validate_only=True)
            check_created(res["cfg-b"], 1, {})
            res = create_topics(conn, 7, [("cfg-b", 2, {"retention.bytes": "77"}),
                                          ("cfg-bad", 1, {"no.such.config": "1"})])
            assert res["cfg-b"]["topic_id"] != bytes(16)
            c = check_created(res["cfg-b"], 2, {"retention.bytes": "77"})
            # log.retention.hours is set, log.retention.ms is not: as flush.ms above.
            assert c["retention.ms"][1:4] == ("604800000", False, DEFAULT_CONFIG), c
            bad = res["cfg-bad"]
            assert bad["error_code"] == 40, bad  # INVALID_CONFIG
            assert bad["configs"] == [] and bad["num_partitions"] == -1, bad
            assert bad["replication_factor"] == -1, bad

            # LogConfig's validation.
            for name, value, reason in [
                    ("flush.messages", "0", "Value must be at least 1"),
                    ("retention.ms", "soon", "Not a number of type LONG"),
                    ("segment.bytes", "3000000000", "Not a number of type INT"),
                    ("preallocate", "yes", "Expected value to be either true or false"),
                    ("message.timestamp.type", "Now", "String must be one of: CreateTime, "
                                                      "LogAppendTime"),
                    ("cleanup.policy", "delete,shred", "String must be one of: compact, delete"),
                    ("min.cleanable.dirty.ratio", "2", "Value must be no more than 1")]:
                res = create_topics(conn, 5, [("cfg-c", 1, {name: value})])["cfg-c"]
                assert res["error_code"] == 40, (name, res)
                # ValidList names the entry; a DOUBLE is shown as Java prints it.
                shown = {"cleanup.policy": "shred", "min.cleanable.dirty.ratio": "2.0"}.get(
                    name, value)
                assert res["error_message"] == "Invalid value %s for configuration %s: %s" % (
                    shown, name, reason), res
            res = create_topics(conn, 5, [("cfg-c", 1, {"retention.ms": " 5000 ",
                                                        "preallocate": "TRUE"})])["cfg-c"]
            assert res["error_code"] == 0, res

            # Per-topic configs the log acts on.
            res = create_topics(conn, 5, [("small", 1, {"max.message.bytes": "300"}),
                                          ("appendtime", 1,
                                           {"message.timestamp.type": "LogAppendTime"})])
            assert res["small"]["error_code"] == 0 and res["appendtime"]["error_code"] == 0
            batch = kw.record_batch([b"x" * 100] * 3)
            assert len(batch) > 300
            assert kw.produce_v7(conn, "small", 0, batch)[0] == 10  # MESSAGE_TOO_LARGE
            assert kw.produce_v7(conn, "cfg-c", 0, batch)[0] == 0

            res = create_topics(conn, 5, [("compacted", 1, {"cleanup.policy": "compact"})])
            assert res["compacted"]["error_code"] == 0, res
            # A compacted topic refuses records without a key (INVALID_RECORD).
            assert kw.produce_v7(conn, "compacted", 0, batch)[0] == 87
            keyed = kw.record_batch([b"x", None], keys=[b"k", b"k"])
            assert kw.produce_v7(conn, "compacted", 0, keyed) == (0, 0)
            assert delete_records(conn, "compacted", 1) == (44, -1)  # POLICY_VIOLATION
            assert delete_records(conn, "cfg-c", 1) == (0, 1)

        before = int(time.time() * 1000)
        p = Producer({"bootstrap.servers": k.bootstrap, "linger.ms": 0})
        p.produce("appendtime", value=b"t", timestamp=1000)
        assert p.flush(60) == 0
        c = Consumer({"bootstrap.servers": k.bootstrap, "group.id": "ts"})
        c.assign([TopicPartition("appendtime", 0, 0)])
        got = []
        wait_for(lambda: (lambda m: m is not None and not m.error() and got.append(m))(
            c.poll(0.2)) or got, 60, "the LogAppendTime record")
        c.close()
        ts_type, ts = got[0].timestamp()
        assert ts_type == TIMESTAMP_LOG_APPEND_TIME, got[0].timestamp()
        assert before <= ts <= int(time.time() * 1000), (before, ts)


if __name__ == "__main__":
    run(main)
