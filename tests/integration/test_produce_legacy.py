# SPDX-License-Identifier: Apache-2.0
"""Produce v0 and v2 with the old message formats (magic 0 and 1).

Kafka 4 no longer serves Produce v0-2; Kafka 3.9 did, converting the
message sets of old clients to the log's format. kcoord serves them the
same way. A raw Produce v0 with a magic-0 message set and a Produce v2 with
a magic-1 set are acknowledged with their base offsets, kafka-python reads
every message back (converted to magic-2 batches), gzip-compressed magic-0 and
magic-1 sets (a wrapper message whose value is the gzip stream of an inner
set) are decompressed and stored as gzip magic-2 batches that kafka-python
reads back, a snappy wrapper is refused with UNSUPPORTED_COMPRESSION_TYPE, and
a message whose CRC-32
is wrong is refused with CORRUPT_MESSAGE on its partition without closing
the connection.
"""

import struct
import zlib

from kafka import KafkaConsumer, TopicPartition

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "legacy-topic"
CORRUPT_MESSAGE = 2
UNSUPPORTED_COMPRESSION_TYPE = 76
GZIP, SNAPPY = 1, 2
DEADLINE_S = 60


def legacy_message(magic, value, key=None, timestamp=None, corrupt=False, attrs=0, offset=0):
    """One entry of a message set: offset, size, then the message."""
    body = struct.pack(">bb", magic, attrs)
    if magic == 1:
        body += struct.pack(">q", timestamp)
    for field in (key, value):
        body += struct.pack(">i", -1) if field is None else struct.pack(">i", len(field)) + field
    crc = zlib.crc32(body) & 0xFFFFFFFF
    if corrupt:
        crc ^= 1
    msg = struct.pack(">I", crc) + body
    return struct.pack(">qi", offset, len(msg)) + msg


def gzip_set(magic, inner, timestamp=None):
    """A gzip wrapper message over the inner entries (list of bytes)."""
    stream = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
    value = stream.compress(b"".join(inner)) + stream.flush()
    return legacy_message(magic, value, timestamp=timestamp, attrs=GZIP,
                          offset=len(inner) - 1 if magic == 1 else 0)


def produce(conn, version, partition, message_set):
    """Produce v0-2 body: acks, timeout, [topic [partition message_set]]."""
    w = kw.Writer().i16(-1).i32(30000)
    w.array([TOPIC], lambda ww, t: ww.string(t).array(
        [partition], lambda w3, p: w3.i32(p).bytes_(message_set)))
    corr = conn.send(kw.API_PRODUCE, version, w.getvalue())
    got, r = conn.recv()
    assert got == corr, (got, corr)
    out = {}

    def topic(rr):
        name = rr.string()

        def part(r3):
            p, err, base = r3.i32(), r3.i16(), r3.i64()
            if version >= 2:
                r3.i64()  # log append time
            out[(name, p)] = (err, base)
        rr.array(part)
    r.array(topic)
    if version >= 1:
        r.i32()  # throttle time
    return out


def main():
    with Kcoord("produce-legacy") as k:
        conn = kw.Conn(k.port)
        assert kw.create_topics(conn, {TOPIC: 1})["topics"] == {TOPIC: (0, None)}

        v0_set = b"".join(legacy_message(0, b"v0-%d" % i) for i in range(3))
        assert produce(conn, 0, 0, v0_set) == {(TOPIC, 0): (0, 0)}
        v1_set = b"".join(legacy_message(1, b"v1-%d" % i, key=b"k", timestamp=1700000000000 + i)
                          for i in range(2))
        assert produce(conn, 2, 0, v1_set) == {(TOPIC, 0): (0, 3)}

        # gzip magic 0 (absolute inner offsets) with Produce v0
        gz0 = gzip_set(0, [legacy_message(0, b"gz0-%d" % i, offset=100 + i) for i in range(2)])
        assert produce(conn, 0, 0, gz0) == {(TOPIC, 0): (0, 5)}
        # gzip magic 1 (relative inner offsets) with Produce v2
        gz1 = gzip_set(1, [legacy_message(1, b"gz1-%d" % i, key=b"g", offset=i,
                                          timestamp=1700000001000 + i) for i in range(3)],
                       timestamp=1700000001002)
        assert produce(conn, 2, 0, gz1) == {(TOPIC, 0): (0, 7)}
        snappy = legacy_message(1, b"not really snappy", timestamp=1, attrs=SNAPPY)
        err, _ = produce(conn, 2, 0, snappy)[(TOPIC, 0)]
        assert err == UNSUPPORTED_COMPRESSION_TYPE, err

        bad = legacy_message(0, b"bad", corrupt=True)
        err, _ = produce(conn, 0, 0, bad)[(TOPIC, 0)]
        assert err == CORRUPT_MESSAGE, err
        # The connection stays usable after a refused partition.
        assert kw.api_versions(conn, 0)["error_code"] == 0

        consumer = KafkaConsumer(bootstrap_servers=k.bootstrap, enable_auto_commit=False,
                                 check_crcs=True)
        tp = TopicPartition(TOPIC, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        seen = []

        def all_read():
            for records in consumer.poll(timeout_ms=200).values():
                seen.extend(records)
            return len(seen) >= 10
        wait_for(all_read, DEADLINE_S, "the ten converted messages")
        consumer.close()
        assert [r.value for r in seen] == [b"v0-0", b"v0-1", b"v0-2", b"v1-0", b"v1-1",
                                           b"gz0-0", b"gz0-1", b"gz1-0", b"gz1-1", b"gz1-2"], seen
        assert [r.offset for r in seen] == list(range(10)), seen
        assert [r.key for r in seen] == [None] * 3 + [b"k"] * 2 + [None] * 2 + [b"g"] * 3, seen
        assert [r.timestamp for r in seen[3:5]] == [1700000000000, 1700000000001], seen
        assert [r.timestamp for r in seen[7:]] == [1700000001000 + i for i in range(3)], seen


if __name__ == "__main__":
    run(main)
