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
"""

import kafka_wire as kw
from kcoord_harness import Kcoord, run

TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 1, 4, 5
LONG_MAX = "9223372036854775807"
# Kafka 3.9's LogConfig names.
ALL_NAMES = sorted([
    "cleanup.policy", "compression.gzip.level", "compression.lz4.level", "compression.type",
    "compression.zstd.level", "delete.retention.ms", "file.delete.delay.ms", "flush.messages",
    "flush.ms", "follower.replication.throttled.replicas", "index.interval.bytes",
    "leader.replication.throttled.replicas", "local.retention.bytes", "local.retention.ms",
    "max.compaction.lag.ms", "max.message.bytes", "message.downconversion.enable",
    "message.format.version", "message.timestamp.after.max.ms",
    "message.timestamp.before.max.ms", "message.timestamp.difference.max.ms",
    "message.timestamp.type", "min.cleanable.dirty.ratio", "min.compaction.lag.ms",
    "min.insync.replicas", "preallocate", "remote.log.copy.disable",
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
            assert c["flush.ms"][1:4] == (LONG_MAX, False, STATIC_BROKER_CONFIG), c
            # LogConfig defaults.
            for name, value in [("compression.type", "producer"), ("segment.bytes", "1073741824"),
                                ("min.insync.replicas", "1"), ("min.cleanable.dirty.ratio", "0.5"),
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
            assert c["retention.ms"][1:4] == ("604800000", False, STATIC_BROKER_CONFIG), c
            bad = res["cfg-bad"]
            assert bad["error_code"] == 40, bad  # INVALID_CONFIG
            assert bad["configs"] == [] and bad["num_partitions"] == -1, bad
            assert bad["replication_factor"] == -1, bad


if __name__ == "__main__":
    run(main)
