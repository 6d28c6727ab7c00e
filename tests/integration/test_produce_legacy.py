# SPDX-License-Identifier: Apache-2.0
"""Produce v0 and v2 with the old message formats (magic 0 and 1).

Kafka 4 no longer serves Produce v0-2; Kafka 3.9 did, converting the
message sets of old clients to the log's format. kcoord serves them the
same way. A raw Produce v0 with a magic-0 message set and a Produce v2 with
a magic-1 set are acknowledged with their base offsets, kafka-python reads
every message back (converted to magic-2 batches), gzip-compressed magic-0 and
magic-1 sets (a wrapper message whose value is the gzip stream of an inner
set) are decompressed and stored as gzip magic-2 batches that kafka-python
reads back. kafka-python as a 0.9 client (Produce v1, magic 0) and as a 0.10
client (Produce v2, magic 1) sends snappy (xerial framing) and lz4 sets (for
magic 0 with the broken frame header checksum of KAFKA-3160, for magic 1 with
the content size in the frame header); each is stored as one magic-2 batch
of the producer's codec (a raw Fetch shows the codec) that kafka-python and
librdkafka read back. A wrapper whose value is not snappy data, and a
message whose CRC-32 is wrong, are refused with CORRUPT_MESSAGE on their
partition without closing the connection.

Bounds (a second broker, message.max.bytes=10000): as in Kafka, a gzip set
that inflates far beyond message.max.bytes is accepted when its converted
batch fits, and refused with MESSAGE_TOO_LARGE when the converted batch does
not; a set that inflates beyond legacy.decompression.max.bytes is refused
with MESSAGE_TOO_LARGE and a log line.
"""

import os
import struct
import zlib

from confluent_kafka import Consumer as RdConsumer, TopicPartition as RdTopicPartition
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "legacy-topic"
CORRUPT_MESSAGE = 2
MESSAGE_TOO_LARGE = 10
GZIP, SNAPPY, LZ4 = 1, 2, 3
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


def old_client_produce(bootstrap, api_version, codec, values):
    """kafka-python speaking as an old client: (0, 9) sends magic 0 with
    Produce v1, (0, 10) magic 1 with Produce v2, compressed with codec."""
    p = KafkaProducer(bootstrap_servers=bootstrap, api_version=api_version,
                      compression_type=codec, linger_ms=50, acks=1)
    futures = [p.send(TOPIC, value=v, key=b"o", partition=0) for v in values]
    p.flush(DEADLINE_S)
    offsets = [f.get(DEADLINE_S).offset for f in futures]
    p.close()
    return offsets


def stored_codecs(port):
    """Raw Fetch v4 of the partition from offset 0: [(base offset, codec)] of its batches."""
    w = kw.Writer().i32(-1).i32(0).i32(1).i32(10 << 20).i8(0)
    w.array([TOPIC], lambda ww, t: ww.string(t).array(
        [0], lambda w3, p: w3.i32(p).i64(0).i32(10 << 20)))
    with kw.Conn(port) as c:
        corr = c.send(1, 4, w.getvalue())
        got, r = c.recv()
        assert got == corr
        r.i32()  # throttle
        assert r.i32() == 1 and r.string() == TOPIC and r.i32() == 1
        assert r.i32() == 0 and r.i16() == 0
        r.i64(), r.i64()  # high watermark, last stable offset
        r.array(lambda rr: (rr.i64(), rr.i64()))  # aborted transactions
        data = r.bytes_()
    out, pos = [], 0
    while pos + 61 <= len(data):
        base, size = struct.unpack_from(">qi", data, pos)
        if pos + 12 + size > len(data):
            break
        assert data[pos + 16] == 2
        attrs = struct.unpack_from(">h", data, pos + 21)[0]
        out.append((base, attrs & 7))
        pos += 12 + size
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
        assert err == CORRUPT_MESSAGE, err

        # Old clients with snappy and lz4: offsets 10 onwards, one batch each.
        old = [((0, 9), "snappy"), ((0, 9), "lz4"), ((0, 10), "snappy"), ((0, 10), "lz4")]
        next_offset = 10
        for api_version, codec in old:
            values = [b"%s-%d%d-%d" % (codec.encode(), api_version[0], api_version[1], i)
                      for i in range(3)]
            offsets = old_client_produce(k.bootstrap, api_version, codec, values)
            assert offsets == list(range(next_offset, next_offset + 3)), (api_version, codec,
                                                                          offsets)
            next_offset += 3
        assert stored_codecs(k.port) == [
            (0, 0), (3, 0), (5, GZIP), (7, GZIP),
            (10, SNAPPY), (13, LZ4), (16, SNAPPY), (19, LZ4)], stored_codecs(k.port)
        old_values = [b"%s-%d%d-%d" % (c.encode(), a[0], a[1], i) for a, c in old
                      for i in range(3)]

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
            return len(seen) >= 22
        wait_for(all_read, DEADLINE_S, "the 22 converted messages")
        consumer.close()
        assert [r.value for r in seen] == [b"v0-0", b"v0-1", b"v0-2", b"v1-0", b"v1-1",
                                           b"gz0-0", b"gz0-1", b"gz1-0", b"gz1-1",
                                           b"gz1-2"] + old_values, seen
        assert [r.offset for r in seen] == list(range(22)), seen
        assert [r.key for r in seen[10:]] == [b"o"] * 12, seen
        assert [r.key for r in seen[:10]] == [None] * 3 + [b"k"] * 2 + [None] * 2 + [b"g"] * 3, seen
        assert [r.timestamp for r in seen[3:5]] == [1700000000000, 1700000000001], seen
        assert [r.timestamp for r in seen[7:10]] == [1700000001000 + i for i in range(3)], seen

        # librdkafka decodes the recompressed snappy (xerial) and lz4 batches too.
        rd = RdConsumer({"bootstrap.servers": k.bootstrap, "group.id": "legacy-rd",
                         "enable.auto.commit": False, "check.crcs": True})
        rd.assign([RdTopicPartition(TOPIC, 0, 10)])
        got = []

        def rd_read():
            m = rd.poll(0.2)
            if m is not None and not m.error():
                got.append(m.value())
            return len(got) >= 12
        wait_for(rd_read, DEADLINE_S, "librdkafka reading the snappy and lz4 batches")
        rd.close()
        assert got == old_values, got



def bounds():
    with Kcoord("produce-legacy-bounds", {"message.max.bytes": "10000",
                                          "legacy.decompression.max.bytes": "200000"}) as k:
        conn = kw.Conn(k.port)
        assert kw.create_topics(conn, {TOPIC: 1})["topics"] == {TOPIC: (0, None)}
        zeros = bytes(1000)
        # 100 KB inflated, a few hundred bytes recompressed: Kafka accepts it.
        small = gzip_set(1, [legacy_message(1, zeros, offset=i, timestamp=1) for i in range(100)], timestamp=1)
        assert len(small) < 10000
        assert produce(conn, 2, 0, small) == {(TOPIC, 0): (0, 0)}
        # Incompressible values: the converted batch exceeds message.max.bytes.
        noise = gzip_set(1, [legacy_message(1, os.urandom(1000), offset=i, timestamp=1)
                             for i in range(12)], timestamp=1)
        assert produce(conn, 2, 0, noise)[(TOPIC, 0)][0] == MESSAGE_TOO_LARGE
        # Beyond kcoord's decompression bound.
        off = k.stderr_size()
        bomb = gzip_set(1, [legacy_message(1, zeros, offset=i, timestamp=1) for i in range(300)], timestamp=1)
        assert len(bomb) < 10000
        assert produce(conn, 2, 0, bomb)[(TOPIC, 0)][0] == MESSAGE_TOO_LARGE
        k.wait_log_after(off, what="the legacy.decompression.max.bytes log line")
        assert "legacy.decompression.max.bytes" in k.stderr_since(off)
        assert produce(conn, 2, 0, small) == {(TOPIC, 0): (0, 100)}
        conn.close()


if __name__ == "__main__":
    run(lambda: (main(), bounds()))
