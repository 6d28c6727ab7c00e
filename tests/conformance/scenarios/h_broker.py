# SPDX-License-Identifier: Apache-2.0
"""Steps the broker scenarios share: topics made ready, records produced.

Kafka applies a created topic to its broker's metadata cache and replica
manager a little after CreateTopics answers, so a setup step waits (with
unrecorded requests) until the topic is served before a scenario records
anything that depends on it.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "integration"))
import kafka_wire  # noqa: E402

import helpers

NONE = 0


top_version = helpers.top_version


def create_topic(ctx, c, name, partitions=1, configs=None, record=False):
    """Creates a topic and waits until Metadata shows it with a leader on
    every partition and every partition answers ListOffsets. Returns its
    topic id (16 bytes)."""
    helpers.create_topics(ctx, c, {name: partitions}, configs=configs, record=record)
    return wait_topic(ctx, c, name, partitions)


def wait_topic(ctx, c, name, partitions):
    tid = helpers.wait_topics_led(ctx, c, {name: partitions})[name]
    # The metadata cache learns of the topic before the replica manager leads
    # its partitions: wait until every partition answers ListOffsets.
    lv = top_version(ctx, "ListOffsets")

    def served():
        r = c.call("ListOffsets", lv, list_offsets_body(
            lv, name, [(p, -1) for p in range(partitions)]), record=False)
        return all(p["ErrorCode"] == NONE for t in r["Topics"] for p in t["Partitions"])
    ctx.wait_until(served, "partitions of %s led" % name)
    return tid


def produce(ctx, c, topic, partition, values, ts=1700000000000, record=False):
    """Appends one batch of null-key records created at ts to a partition,
    retrying while the new partition's leader is not yet in place. Returns
    the base offset."""
    v = top_version(ctx, "Produce", 12)  # by name
    batch = kafka_wire.record_batch(values, ts=ts)
    body = {"Acks": -1, "TimeoutMs": 30000,
            "TopicData": [{"Name": topic, "PartitionData": [{"Index": partition,
                                                             "Records": batch}]}]}

    def done():
        r = c.call("Produce", v, body, record=False)
        p = r["Responses"][0]["PartitionResponses"][0]
        if p["ErrorCode"] != NONE:
            return None
        return {"BaseOffset": p["BaseOffset"]}
    out = ctx.wait_until(done, "produce to %s-%d" % (topic, partition))
    if record:
        ctx.note("produced to %s-%d at base offset" % (topic, partition), out["BaseOffset"])
    return out["BaseOffset"]


def metadata_body(version, names, auto_create=False, topic_ops=False, cluster_ops=False):
    """A Metadata request for names (None: every topic)."""
    if names is None:
        topics = [] if version == 0 else None
    else:
        topics = [{"Name": n} for n in names]
    body = {"Topics": topics}
    if version >= 4:
        body["AllowAutoTopicCreation"] = auto_create
    if version >= 8:
        body["IncludeTopicAuthorizedOperations"] = topic_ops
        if version <= 10:
            body["IncludeClusterAuthorizedOperations"] = cluster_ops
    return body


def list_offsets_body(version, topic, partitions_ts, isolation=0, leader_epoch=-1):
    """partitions_ts: [(partition, timestamp)]."""
    parts = []
    for p, ts in partitions_ts:
        d = {"PartitionIndex": p, "Timestamp": ts}
        if version >= 4:
            d["CurrentLeaderEpoch"] = leader_epoch
        parts.append(d)
    body = {"ReplicaId": -1, "Topics": [{"Name": topic, "Partitions": parts}]}
    if version >= 2:
        body["IsolationLevel"] = isolation
    if version >= 10:
        body["TimeoutMs"] = 30000
    return body


def fetch_body(version, topic, topic_id, partitions, isolation=0, max_wait_ms=0, min_bytes=1):
    """A sessionless Fetch; partitions: [(partition, fetch offset)]."""
    parts = []
    for p, off in partitions:
        d = {"Partition": p, "FetchOffset": off, "PartitionMaxBytes": 1048576}
        parts.append(d)
    t = {"Partitions": parts}
    if version >= 13:
        t["TopicId"] = topic_id
    else:
        t["Topic"] = topic
    body = {"MaxWaitMs": max_wait_ms, "MinBytes": min_bytes, "MaxBytes": 52428800,
            "IsolationLevel": isolation, "Topics": [t]}
    if version < 15:
        body["ReplicaId"] = -1
    return body


def gzip_batch(ts_deltas, ts0=1700000000000):
    """One gzip-compressed magic 2 batch of null-key records whose create
    times are ts0 + each delta; base offset 0."""
    import gzip
    import struct
    zz = kafka_wire.zigzag_varint
    recs = b""
    for i, d in enumerate(ts_deltas):
        v = b"v%d" % i
        body = b"\x00" + zz(d) + zz(i) + zz(-1) + zz(len(v)) + v + zz(0)
        recs += zz(len(body)) + body
    packed = gzip.compress(recs, mtime=0)
    n = len(ts_deltas)
    after_crc = struct.pack(">hiqqqhii", 1, n - 1, ts0, ts0 + max(ts_deltas), -1, -1, -1,
                            n) + packed
    head = struct.pack(">qiib", 0, 4 + 1 + 4 + len(after_crc), -1, 2)
    return head + struct.pack(">I", kafka_wire.crc32c(after_crc)) + after_crc


def produce_raw(ctx, c, topic, partition, batch):
    """Appends a prepared batch, as produce() does."""
    v = top_version(ctx, "Produce", 12)
    body = {"Acks": -1, "TimeoutMs": 30000,
            "TopicData": [{"Name": topic, "PartitionData": [{"Index": partition,
                                                             "Records": batch}]}]}

    def done():
        r = c.call("Produce", v, body, record=False)
        p = r["Responses"][0]["PartitionResponses"][0]
        return p if p["ErrorCode"] == NONE else None
    return ctx.wait_until(done, "produce to %s-%d" % (topic, partition))["BaseOffset"]


def batch_offsets(records, next_offset=False):
    """The offsets of the records in fetched uncompressed magic 2 batches
    (with next_offset, and the offset after the last batch, or None)."""
    import struct
    out = []
    pos = 0
    while pos + 61 <= len(records):
        base, length = struct.unpack_from(">qi", records, pos)
        count, = struct.unpack_from(">i", records, pos + 57)
        p = pos + 61
        for _ in range(count):
            n, p = _varint(records, p)
            q = p + 1                  # attributes
            _, q = _varint(records, q)  # timestamp delta
            delta, q = _varint(records, q)
            out.append(base + delta)
            p += n
        last = base + struct.unpack_from(">i", records, pos + 23)[0]
        pos += 12 + length
    if next_offset:
        return out, (last + 1 if pos else None)
    return out


def _varint(b, p):
    u = shift = 0
    while True:
        x = b[p]
        p += 1
        u |= (x & 0x7f) << shift
        if not x & 0x80:
            return (u >> 1) ^ -(u & 1), p
        shift += 7
