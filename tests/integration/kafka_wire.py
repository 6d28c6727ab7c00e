# SPDX-License-Identifier: Apache-2.0
"""A tiny hand-written Kafka protocol client for tests that need exact bytes.

Encodes a few requests at fixed versions with struct and decodes their
responses into dicts. Field layouts follow the Kafka message schemas; only
the versions used by the integration tests are implemented:

  ApiVersions v0 and v3, FindCoordinator v1, JoinGroup v5, SyncGroup v3,
  Heartbeat v3, OffsetCommit v7, OffsetFetch v5, DescribeGroups v4,
  CreateTopics v4, ConsumerGroupHeartbeat v0-1, ConsumerGroupDescribe v0-1,
  JoinGroup v9, SyncGroup v5, Metadata v1, CreatePartitions v1, and the
  consumer protocol's Subscription/Assignment v0 payloads.

Nothing here is clever on purpose: the point is to see the wire exactly.
"""

import select
import socket
import struct
import time
import zlib

API_PRODUCE = 0
API_FETCH = 1
API_LIST_OFFSETS = 2
API_METADATA = 3
API_OFFSET_COMMIT = 8
API_OFFSET_FETCH = 9
API_FIND_COORDINATOR = 10
API_JOIN_GROUP = 11
API_HEARTBEAT = 12
API_SYNC_GROUP = 14
API_DESCRIBE_GROUPS = 15
API_API_VERSIONS = 18
API_CREATE_TOPICS = 19
API_CREATE_PARTITIONS = 37
API_CONSUMER_GROUP_HEARTBEAT = 68
API_CONSUMER_GROUP_DESCRIBE = 69
API_LIST_GROUPS = 16
API_STREAMS_GROUP_HEARTBEAT = 88
API_STREAMS_GROUP_DESCRIBE = 89

# Kafka error codes used by the tests.
NONE = 0
INVALID_CONFIG = 40
UNKNOWN_TOPIC_OR_PARTITION = 3
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
ILLEGAL_GENERATION = 22
UNKNOWN_MEMBER_ID = 25
REBALANCE_IN_PROGRESS = 27
UNSUPPORTED_VERSION = 35
TOPIC_ALREADY_EXISTS = 36
MEMBER_ID_REQUIRED = 79
FENCED_INSTANCE_ID = 82
FENCED_MEMBER_EPOCH = 110
UNRELEASED_INSTANCE_ID = 111
UNSUPPORTED_ASSIGNOR = 112
STALE_MEMBER_EPOCH = 113


class Writer:
    """Big-endian encoder for the classic (non-flexible) and compact types."""

    def __init__(self):
        self.parts = []

    def raw(self, b):
        self.parts.append(bytes(b))
        return self

    def i8(self, v):
        return self.raw(struct.pack(">b", v))

    def i16(self, v):
        return self.raw(struct.pack(">h", v))

    def i32(self, v):
        return self.raw(struct.pack(">i", v))

    def i64(self, v):
        return self.raw(struct.pack(">q", v))

    def boolean(self, v):
        return self.i8(1 if v else 0)

    def string(self, s):
        """Classic string: int16 length; None writes -1 (nullable)."""
        if s is None:
            return self.i16(-1)
        b = s.encode("utf-8")
        return self.i16(len(b)).raw(b)

    def bytes_(self, b):
        if b is None:
            return self.i32(-1)
        return self.i32(len(b)).raw(b)

    def array(self, items, fn):
        """Classic array: int32 count; None writes -1 (nullable)."""
        if items is None:
            return self.i32(-1)
        self.i32(len(items))
        for it in items:
            fn(self, it)
        return self

    def uvarint(self, v):
        out = bytearray()
        while True:
            byte = v & 0x7F
            v >>= 7
            if v:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                return self.raw(out)

    def compact_string(self, s):
        if s is None:
            return self.uvarint(0)
        b = s.encode("utf-8")
        return self.uvarint(len(b) + 1).raw(b)

    def compact_bytes(self, b):
        if b is None:
            return self.uvarint(0)
        return self.uvarint(len(b) + 1).raw(b)

    def no_tags(self):
        return self.uvarint(0)

    def compact_array(self, items, fn):
        """Compact array: uvarint count + 1; None writes 0 (nullable)."""
        if items is None:
            return self.uvarint(0)
        self.uvarint(len(items) + 1)
        for it in items:
            fn(self, it)
        return self

    def uuid(self, b):
        if len(b) != 16:
            raise ValueError("a uuid is 16 bytes")
        return self.raw(b)

    def getvalue(self):
        return b"".join(self.parts)


class DecodeError(Exception):
    pass


class Reader:
    """Bounds-checked big-endian decoder."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise DecodeError("need %d bytes at %d of %d" % (n, self.pos, len(self.data)))
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def i64(self):
        return struct.unpack(">q", self.take(8))[0]

    def boolean(self):
        return self.i8() != 0

    def string(self):
        n = self.i16()
        if n < 0:
            return None
        return self.take(n).decode("utf-8")

    def bytes_(self):
        n = self.i32()
        if n < 0:
            return None
        return self.take(n)

    def array(self, fn):
        n = self.i32()
        if n < 0:
            return None
        if n > len(self.data) - self.pos:
            raise DecodeError("array count %d exceeds remaining bytes" % n)
        return [fn(self) for _ in range(n)]

    def uvarint(self):
        v = 0
        shift = 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7
            if shift > 63:
                raise DecodeError("uvarint too long")

    def compact_string(self):
        n = self.uvarint()
        if n == 0:
            return None
        return self.take(n - 1).decode("utf-8")

    def compact_bytes(self):
        n = self.uvarint()
        if n == 0:
            return None
        return self.take(n - 1)

    def compact_array(self, fn):
        n = self.uvarint()
        if n == 0:
            return None
        return [fn(self) for _ in range(n - 1)]

    def uuid(self):
        return self.take(16)

    def skip_tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())

    def remaining(self):
        return len(self.data) - self.pos


def request_header(api_key, api_version, correlation_id, client_id="kcoord-itest",
                   flexible=False):
    """Request header v1 (v2 when flexible: adds an empty tagged-field section)."""
    w = Writer().i16(api_key).i16(api_version).i32(correlation_id).string(client_id)
    if flexible:
        w.no_tags()
    return w.getvalue()


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


class ConnectionClosed(Exception):
    pass


class Conn:
    """One TCP connection to the broker; requests may be pipelined."""

    def __init__(self, port, host="127.0.0.1", timeout=30.0, client_id="kcoord-itest",
                 source=None):
        """source: local address to connect from (e.g. a second loopback address)."""
        self.sock = socket.create_connection((host, port), timeout=timeout,
                                             source_address=(source, 0) if source else None)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.next_corr = 1
        self.client_id = client_id

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def encode(self, api_key, version, body, flexible=False, correlation_id=None):
        """Returns (correlation_id, framed bytes) without sending."""
        if correlation_id is None:
            correlation_id = self.next_corr
            self.next_corr += 1
        hdr = request_header(api_key, version, correlation_id, client_id=self.client_id,
                             flexible=flexible)
        return correlation_id, frame(hdr + body)

    def send(self, api_key, version, body, flexible=False):
        corr, data = self.encode(api_key, version, body, flexible)
        self.sock.sendall(data)
        return corr

    def recv_exact(self, n, deadline):
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("timed out waiting for %d bytes (got %d)" % (n, len(buf)))
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(n - len(buf))
            except socket.timeout:
                continue
            except ConnectionResetError as e:
                raise ConnectionClosed("connection reset") from e
            if not chunk:
                raise ConnectionClosed("connection closed by broker after %d of %d bytes"
                                       % (len(buf), n))
            buf += chunk
        return bytes(buf)

    def recv_frame(self, timeout=None):
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        size = struct.unpack(">i", self.recv_exact(4, deadline))[0]
        if size < 4 or size > 64 * 1024 * 1024:
            raise DecodeError("bad response size %d" % size)
        return self.recv_exact(size, deadline)

    def recv(self, flexible_header=False, timeout=None):
        """Reads one response; returns (correlation_id, Reader over the body)."""
        r = Reader(self.recv_frame(timeout))
        corr = r.i32()
        if flexible_header:
            r.skip_tags()
        return corr, r

    def readable_within(self, seconds):
        """True if the socket has bytes (or EOF) to read within `seconds`."""
        rl, _, _ = select.select([self.sock], [], [], seconds)
        return bool(rl)

    def wait_closed(self, timeout):
        """True if the broker closes the connection within timeout (s)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except (ConnectionResetError, BrokenPipeError):
                return True
            if not chunk:
                return True
        return False

    # ---- typed requests: each send_* returns the correlation id, each
    # ---- read_* reads and decodes the matching response.

    def call(self, send_fn, read_fn, *args, **kwargs):
        corr = send_fn(*args, **kwargs)
        got, resp = read_fn()
        if got != corr:
            raise DecodeError("correlation id %d, expected %d" % (got, corr))
        return resp


# ---- body encoders -------------------------------------------------------

def api_versions_body(version):
    if version >= 3:
        return (Writer().compact_string("kcoord-itest").compact_string("1.0")
                .no_tags().getvalue())
    return b""


def decode_api_versions(r, version):
    """Decodes an ApiVersions response body at `version` (v0..v3+)."""
    out = {"error_code": r.i16()}
    if version >= 3:
        def key3(rr):
            k = (rr.i16(), rr.i16(), rr.i16())
            rr.skip_tags()
            return k
        keys = r.compact_array(key3)
    else:
        keys = r.array(lambda rr: (rr.i16(), rr.i16(), rr.i16()))
    out["api_keys"] = {k: (lo, hi) for k, lo, hi in (keys or [])}
    out["api_keys_list"] = keys
    if version >= 1:
        out["throttle_time_ms"] = r.i32()
    if version >= 3:
        r.skip_tags()
    return out


def find_coordinator_body(key, key_type=0):
    return Writer().string(key).i8(key_type).getvalue()


def decode_find_coordinator_v1(r):
    return {"throttle_time_ms": r.i32(), "error_code": r.i16(), "error_message": r.string(),
            "node_id": r.i32(), "host": r.string(), "port": r.i32()}


def join_group_v5_body(group, member_id, session_timeout_ms=30000,
                       rebalance_timeout_ms=30000, group_instance_id=None,
                       protocol_type="consumer", protocols=(("range", b"\x00\x01"),)):
    w = (Writer().string(group).i32(session_timeout_ms).i32(rebalance_timeout_ms)
         .string(member_id).string(group_instance_id).string(protocol_type))
    w.array(list(protocols), lambda ww, p: ww.string(p[0]).bytes_(p[1]))
    return w.getvalue()


def decode_join_group_v5(r):
    out = {"throttle_time_ms": r.i32(), "error_code": r.i16(), "generation_id": r.i32(),
           "protocol_name": r.string(), "leader": r.string(), "member_id": r.string()}
    out["members"] = r.array(lambda rr: {"member_id": rr.string(),
                                         "group_instance_id": rr.string(),
                                         "metadata": rr.bytes_()})
    return out


def join_group_v9_body(group, member_id, session_timeout_ms=30000,
                       rebalance_timeout_ms=30000, group_instance_id=None,
                       protocol_type="consumer", protocols=(("range", b"\x00\x01"),),
                       reason=None):
    w = (Writer().compact_string(group).i32(session_timeout_ms).i32(rebalance_timeout_ms)
         .compact_string(member_id).compact_string(group_instance_id)
         .compact_string(protocol_type))

    def proto(ww, p):
        ww.compact_string(p[0]).compact_bytes(p[1]).no_tags()
    w.compact_array(list(protocols), proto)
    return w.compact_string(reason).no_tags().getvalue()


def decode_join_group_v9(r):
    out = {"throttle_time_ms": r.i32(), "error_code": r.i16(), "generation_id": r.i32(),
           "protocol_type": r.compact_string(), "protocol_name": r.compact_string(),
           "leader": r.compact_string(), "skip_assignment": r.boolean(),
           "member_id": r.compact_string()}

    def member(rr):
        m = {"member_id": rr.compact_string(), "group_instance_id": rr.compact_string(),
             "metadata": rr.compact_bytes()}
        rr.skip_tags()
        return m
    out["members"] = r.compact_array(member)
    r.skip_tags()
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return out


def sync_group_v5_body(group, generation_id, member_id, assignments=(),
                       group_instance_id=None, protocol_type="consumer",
                       protocol_name="range"):
    w = (Writer().compact_string(group).i32(generation_id).compact_string(member_id)
         .compact_string(group_instance_id).compact_string(protocol_type)
         .compact_string(protocol_name))

    def assignment(ww, a):
        ww.compact_string(a[0]).compact_bytes(a[1]).no_tags()
    w.compact_array(list(assignments), assignment)
    return w.no_tags().getvalue()


def decode_sync_group_v5(r):
    out = {"throttle_time_ms": r.i32(), "error_code": r.i16(),
           "protocol_type": r.compact_string(), "protocol_name": r.compact_string(),
           "assignment": r.compact_bytes()}
    r.skip_tags()
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return out


def metadata_v1_body(topics=None):
    """topics: None asks for every topic (v1+)."""
    return Writer().array(None if topics is None else list(topics),
                          lambda ww, t: ww.string(t)).getvalue()


def decode_metadata_v1(r):
    brokers = r.array(lambda rr: {"node_id": rr.i32(), "host": rr.string(),
                                  "port": rr.i32(), "rack": rr.string()})
    controller = r.i32()

    def partition(rr):
        return {"error_code": rr.i16(), "partition": rr.i32(), "leader": rr.i32(),
                "replicas": rr.array(lambda r3: r3.i32()),
                "isr": rr.array(lambda r3: r3.i32())}

    def topic(rr):
        return {"error_code": rr.i16(), "name": rr.string(), "is_internal": rr.boolean(),
                "partitions": rr.array(partition)}
    topics = r.array(topic)
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return {"brokers": brokers, "controller_id": controller,
            "topics": {t["name"]: t for t in topics}}


def message_set_v1(values, timestamp_ms=0):
    """An uncompressed magic 1 message set (offsets 0..n-1, null keys)."""
    out = b""
    for i, v in enumerate(values):
        body = struct.pack(">bbq", 1, 0, timestamp_ms) + struct.pack(">i", -1) + \
            struct.pack(">i", len(v)) + v
        msg = struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF) + body
        out += struct.pack(">qi", i, len(msg)) + msg
    return out


def produce_v2_body(topic, partition, message_set, acks=-1, timeout_ms=30000):
    w = Writer().i16(acks).i32(timeout_ms)
    w.array([topic], lambda ww, t: ww.string(t).array(
        [partition], lambda w3, p: w3.i32(p).bytes_(message_set)))
    return w.getvalue()


def decode_produce_v2(r):
    """{(topic, partition): (error_code, base_offset)}."""
    out = {}

    def topic(rr):
        name = rr.string()

        def part(r3):
            p, err, base = r3.i32(), r3.i16(), r3.i64()
            r3.i64()  # log append time
            out[(name, p)] = (err, base)
        rr.array(part)
    r.array(topic)
    r.i32()  # throttle time
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return out


def fetch_v4_body(topic, partition, offset, max_wait_ms=0, max_bytes=1 << 20):
    w = Writer().i32(-1).i32(max_wait_ms).i32(0).i32(max_bytes).i8(0)
    w.array([topic], lambda ww, t: ww.string(t).array(
        [partition], lambda w3, p: w3.i32(p).i64(offset).i32(max_bytes)))
    return w.getvalue()


def decode_fetch_v4(r):
    """{(topic, partition): {error_code, high_watermark, records_bytes}}."""
    r.i32()  # throttle time
    out = {}

    def topic(rr):
        name = rr.string()

        def part(r3):
            p, err, hwm, lso = r3.i32(), r3.i16(), r3.i64(), r3.i64()
            r3.array(lambda r4: (r4.i64(), r4.i64()))  # aborted transactions
            recs = r3.bytes_()
            out[(name, p)] = {"error_code": err, "high_watermark": hwm,
                              "records_bytes": len(recs or b"")}
        rr.array(part)
    r.array(topic)
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return out


def produce_v2(conn, topic, partition, values):
    corr = conn.send(API_PRODUCE, 2, produce_v2_body(topic, partition, message_set_v1(values)))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_produce_v2(r)


def fetch_v4(conn, topic, partition, offset):
    corr = conn.send(API_FETCH, 4, fetch_v4_body(topic, partition, offset))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_fetch_v4(r)


def create_partitions_v1_body(counts, timeout_ms=30000, validate_only=False):
    """counts: {topic: new total partition count}; broker-chosen replicas."""
    def topic(ww, item):
        ww.string(item[0]).i32(item[1]).array(None, None)
    return (Writer().array(sorted(counts.items()), topic).i32(timeout_ms)
            .boolean(validate_only).getvalue())


def decode_create_partitions_v1(r):
    throttle = r.i32()
    results = r.array(lambda rr: (rr.string(), rr.i16(), rr.string()))
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return {"throttle_time_ms": throttle,
            "results": {name: (err, msg) for name, err, msg in results}}


def consumer_subscription_v0(topics, user_data=b""):
    """ConsumerProtocolSubscription v0: the JoinGroup protocol metadata."""
    return (Writer().i16(0).array(list(topics), lambda ww, t: ww.string(t))
            .bytes_(user_data).getvalue())


def decode_consumer_subscription(data):
    r = Reader(data)
    return {"version": r.i16(), "topics": r.array(lambda rr: rr.string())}


def consumer_assignment_v0(partitions, user_data=b""):
    """ConsumerProtocolAssignment v0; partitions: {topic: [partition, ...]}."""
    def tp(ww, item):
        ww.string(item[0]).array(sorted(item[1]), lambda w3, p: w3.i32(p))
    return (Writer().i16(0).array(sorted(partitions.items()), tp)
            .bytes_(user_data).getvalue())


def decode_consumer_assignment(data):
    """Returns {topic: sorted partitions}."""
    r = Reader(data)
    r.i16()
    tps = r.array(lambda rr: (rr.string(), rr.array(lambda r3: r3.i32())))
    return {t: sorted(ps) for t, ps in tps}


def sync_group_v3_body(group, generation_id, member_id, assignments=(),
                       group_instance_id=None):
    w = (Writer().string(group).i32(generation_id).string(member_id)
         .string(group_instance_id))
    w.array(list(assignments), lambda ww, a: ww.string(a[0]).bytes_(a[1]))
    return w.getvalue()


def decode_sync_group_v3(r):
    return {"throttle_time_ms": r.i32(), "error_code": r.i16(), "assignment": r.bytes_()}


def heartbeat_v3_body(group, generation_id, member_id, group_instance_id=None):
    return (Writer().string(group).i32(generation_id).string(member_id)
            .string(group_instance_id).getvalue())


def decode_heartbeat_v3(r):
    return {"throttle_time_ms": r.i32(), "error_code": r.i16()}


def offset_commit_v7_body(group, offsets, generation_id=-1, member_id="",
                          group_instance_id=None):
    """offsets: {topic: {partition: (offset, metadata)}}"""
    w = (Writer().string(group).i32(generation_id).string(member_id)
         .string(group_instance_id))

    def part(ww, item):
        p, (off, meta) = item
        ww.i32(p).i64(off).i32(-1).string(meta)

    def topic(ww, item):
        name, parts = item
        ww.string(name).array(sorted(parts.items()), part)

    w.array(sorted(offsets.items()), topic)
    return w.getvalue()


def decode_offset_commit_v7(r):
    """Returns {"throttle_time_ms", "errors": {(topic, partition): error_code}}."""
    throttle = r.i32()
    errors = {}

    def topic(rr):
        name = rr.string()
        for p, err in rr.array(lambda r3: (r3.i32(), r3.i16())):
            errors[(name, p)] = err
    r.array(topic)
    return {"throttle_time_ms": throttle, "errors": errors}


def offset_fetch_v5_body(group, topics=None):
    """topics: {topic: [partitions]} or None for every committed offset."""
    w = Writer().string(group)
    if topics is None:
        w.array(None, None)
    else:
        w.array(sorted(topics.items()),
                lambda ww, t: ww.string(t[0]).array(list(t[1]), lambda w3, p: w3.i32(p)))
    return w.getvalue()


def decode_offset_fetch_v5(r):
    """Returns {"offsets": {(topic, p): (offset, leader_epoch, metadata, error)}, ...}."""
    throttle = r.i32()
    offsets = {}

    def topic(rr):
        name = rr.string()

        def part(r3):
            p = r3.i32()
            offsets[(name, p)] = (r3.i64(), r3.i32(), r3.string(), r3.i16())
        rr.array(part)
    r.array(topic)
    return {"throttle_time_ms": throttle, "offsets": offsets, "error_code": r.i16()}


def describe_groups_v4_body(groups):
    return Writer().array(list(groups), lambda w, g: w.string(g)).boolean(False).getvalue()


def decode_describe_groups_v4(r):
    throttle = r.i32()

    def member(rr):
        return {"member_id": rr.string(), "group_instance_id": rr.string(),
                "client_id": rr.string(), "client_host": rr.string(),
                "metadata": rr.bytes_(), "assignment": rr.bytes_()}

    def group(rr):
        return {"error_code": rr.i16(), "group_id": rr.string(), "state": rr.string(),
                "protocol_type": rr.string(), "protocol": rr.string(),
                "members": rr.array(member), "authorized_operations": rr.i32()}
    return {"throttle_time_ms": throttle, "groups": r.array(group)}


def create_topics_v4_body(topics, timeout_ms=30000):
    """topics: {name: num_partitions}"""
    def topic(w, item):
        name, n = item
        w.string(name).i32(n).i16(1).array([], None).array([], None)
    return Writer().array(sorted(topics.items()), topic).i32(timeout_ms).boolean(False).getvalue()


def decode_create_topics_v4(r):
    throttle = r.i32()
    topics = r.array(lambda rr: (rr.string(), rr.i16(), rr.string()))
    return {"throttle_time_ms": throttle,
            "topics": {name: (err, msg) for name, err, msg in topics}}


def consumer_group_heartbeat_body(version, group, member_id, member_epoch,
                                  instance_id=None, rack_id=None,
                                  rebalance_timeout_ms=-1, topic_names=None,
                                  topic_regex=None, server_assignor=None,
                                  owned=None):
    """ConsumerGroupHeartbeat v0-1 (always flexible). owned: None (field not
    sent) or an iterable of (topic_id bytes, partition), the partitions the
    member owns. topic_regex exists from v1 only."""
    w = (Writer().compact_string(group).compact_string(member_id).i32(member_epoch)
         .compact_string(instance_id).compact_string(rack_id).i32(rebalance_timeout_ms)
         .compact_array(None if topic_names is None else list(topic_names),
                        lambda ww, n: ww.compact_string(n)))
    if version >= 1:
        w.compact_string(topic_regex)
    elif topic_regex is not None:
        raise ValueError("SubscribedTopicRegex needs v1")
    w.compact_string(server_assignor)
    if owned is None:
        w.uvarint(0)
    else:
        by_topic = {}
        for tid, p in owned:
            by_topic.setdefault(tid, []).append(p)

        def tp(ww, item):
            ww.uuid(item[0]).compact_array(sorted(item[1]), lambda w3, p: w3.i32(p))
            ww.no_tags()
        w.compact_array(sorted(by_topic.items()), tp)
    return w.no_tags().getvalue()


def _decode_topic_partitions(r, with_name=False):
    def tp(rr):
        tid = rr.uuid()
        name = rr.compact_string() if with_name else None
        parts = rr.compact_array(lambda r3: r3.i32()) or []
        rr.skip_tags()
        return tid, name, parts
    return r.compact_array(tp) or []


def decode_consumer_group_heartbeat(r):
    """Response v0-1. assignment: None when the field is null (unchanged),
    else a set of (topic_id bytes, partition)."""
    out = {"throttle_time_ms": r.i32(), "error_code": r.i16(),
           "error_message": r.compact_string(), "member_id": r.compact_string(),
           "member_epoch": r.i32(), "heartbeat_interval_ms": r.i32()}
    present = r.i8()
    if present == -1:
        out["assignment"] = None
    elif present == 1:
        out["assignment"] = {(tid, p) for tid, _, parts in _decode_topic_partitions(r)
                             for p in parts}
        r.skip_tags()
    else:
        raise DecodeError("bad nullable struct marker %d" % present)
    r.skip_tags()
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return out


def consumer_group_describe_body(groups, include_authorized_operations=False):
    return (Writer().compact_array(list(groups), lambda ww, g: ww.compact_string(g))
            .boolean(include_authorized_operations).no_tags().getvalue())


def decode_consumer_group_describe(r, version):
    """Response v0-1 as {"groups": {group_id: {...}}}; member assignments are
    sets of (topic_id bytes, partition), plus topic_names {topic_id: name}."""
    names = {}

    def assignment(rr):
        out = set()
        for tid, name, parts in _decode_topic_partitions(rr, with_name=True):
            names[tid] = name
            out.update((tid, p) for p in parts)
        rr.skip_tags()
        return out

    def member(rr):
        m = {"member_id": rr.compact_string(), "instance_id": rr.compact_string(),
             "rack_id": rr.compact_string(), "member_epoch": rr.i32(),
             "client_id": rr.compact_string(), "client_host": rr.compact_string(),
             "subscribed_topic_names": rr.compact_array(lambda r3: r3.compact_string()),
             "subscribed_topic_regex": rr.compact_string(),
             "assignment": assignment(rr), "target_assignment": assignment(rr)}
        if version >= 1:
            m["member_type"] = rr.i8()
        rr.skip_tags()
        return m

    def group(rr):
        g = {"error_code": rr.i16(), "error_message": rr.compact_string(),
             "group_id": rr.compact_string(), "group_state": rr.compact_string(),
             "group_epoch": rr.i32(), "assignment_epoch": rr.i32(),
             "assignor_name": rr.compact_string()}
        g["members"] = {m["member_id"]: m for m in (rr.compact_array(member) or [])}
        g["authorized_operations"] = rr.i32()
        rr.skip_tags()
        return g

    throttle = r.i32()
    groups = r.compact_array(group) or []
    r.skip_tags()
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return {"throttle_time_ms": throttle, "groups": {g["group_id"]: g for g in groups},
            "topic_names": names}


# ---- convenience wrappers: one request, one response -----------------------

def api_versions(conn, version=0):
    corr = conn.send(API_API_VERSIONS, version, api_versions_body(version),
                     flexible=version >= 3)
    got, r = conn.recv(flexible_header=False)  # ApiVersions responses use header v0
    assert got == corr, (got, corr)
    return decode_api_versions(r, version)


def find_coordinator(conn, group):
    corr = conn.send(API_FIND_COORDINATOR, 1, find_coordinator_body(group))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_find_coordinator_v1(r)


def join_group(conn, group, member_id="", **kw):
    corr = conn.send(API_JOIN_GROUP, 5, join_group_v5_body(group, member_id, **kw))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_join_group_v5(r)


def sync_group(conn, group, generation_id, member_id, assignments=(), **kw):
    corr = conn.send(API_SYNC_GROUP, 3,
                     sync_group_v3_body(group, generation_id, member_id, assignments, **kw))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_sync_group_v3(r)


def join_group_v9(conn, group, member_id="", **kw):
    corr = conn.send(API_JOIN_GROUP, 9, join_group_v9_body(group, member_id, **kw),
                     flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return decode_join_group_v9(r)


def sync_group_v5(conn, group, generation_id, member_id, assignments=(), **kw):
    corr = conn.send(API_SYNC_GROUP, 5,
                     sync_group_v5_body(group, generation_id, member_id, assignments, **kw),
                     flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return decode_sync_group_v5(r)


def metadata_v1(conn, topics=None):
    corr = conn.send(API_METADATA, 1, metadata_v1_body(topics))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_metadata_v1(r)


def create_partitions(conn, counts, **kw):
    corr = conn.send(API_CREATE_PARTITIONS, 1, create_partitions_v1_body(counts, **kw))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_create_partitions_v1(r)


def heartbeat(conn, group, generation_id, member_id, **kw):
    corr = conn.send(API_HEARTBEAT, 3, heartbeat_v3_body(group, generation_id, member_id, **kw))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_heartbeat_v3(r)


def offset_commit(conn, group, offsets, **kw):
    corr = conn.send(API_OFFSET_COMMIT, 7, offset_commit_v7_body(group, offsets, **kw))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_offset_commit_v7(r)


def offset_fetch(conn, group, topics=None):
    corr = conn.send(API_OFFSET_FETCH, 5, offset_fetch_v5_body(group, topics))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_offset_fetch_v5(r)


def describe_groups(conn, groups):
    corr = conn.send(API_DESCRIBE_GROUPS, 4, describe_groups_v4_body(groups))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_describe_groups_v4(r)


def create_topics(conn, topics):
    corr = conn.send(API_CREATE_TOPICS, 4, create_topics_v4_body(topics))
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return decode_create_topics_v4(r)


def join_dynamic(conn, group, **kw):
    """JoinGroup v5 as a new dynamic member: first join gets MEMBER_ID_REQUIRED
    with the member id, the second join (with it) is the real one. Returns the
    response of the second join (it may be parked until the rebalance ends)."""
    first = join_group(conn, group, "", **kw)
    if first["error_code"] != MEMBER_ID_REQUIRED:
        raise AssertionError("first JoinGroup v5 with empty member id: expected "
                             "MEMBER_ID_REQUIRED (79), got %r" % (first,))
    if not first["member_id"]:
        raise AssertionError("MEMBER_ID_REQUIRED without a member id: %r" % (first,))
    return join_group(conn, group, first["member_id"], **kw)


def consumer_group_heartbeat(conn, version, group, member_id, member_epoch, **kw):
    corr = conn.send(API_CONSUMER_GROUP_HEARTBEAT, version,
                     consumer_group_heartbeat_body(version, group, member_id,
                                                   member_epoch, **kw),
                     flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return decode_consumer_group_heartbeat(r)


def consumer_group_describe(conn, groups, version=1):
    corr = conn.send(API_CONSUMER_GROUP_DESCRIBE, version,
                     consumer_group_describe_body(groups), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return decode_consumer_group_describe(r, version)


def crc32c(data):
    """CRC-32C (Castagnoli), bit by bit: the checksum of magic 2 record batches."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def zigzag_varint(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def record_batch(values, producer_id=-1, epoch=-1, base_seq=-1, ts=1700000000000, keys=None,
                 transactional=False):
    """One uncompressed magic 2 batch, base offset 0: records of null keys,
    or of keys[i] (bytes or None); a value None is a tombstone. With
    transactional, the batch's transactional attribute bit (0x10) is set."""
    recs = b""
    for i, v in enumerate(values):
        k = keys[i] if keys else None
        key = zigzag_varint(-1) if k is None else zigzag_varint(len(k)) + k
        val = zigzag_varint(-1) if v is None else zigzag_varint(len(v)) + v
        body = b"\x00" + zigzag_varint(0) + zigzag_varint(i) + key + val + zigzag_varint(0)
        recs += zigzag_varint(len(body)) + body
    after_crc = struct.pack(">hiqqqhii", 0x10 if transactional else 0, len(values) - 1, ts, ts,
                            producer_id, epoch,
                            base_seq, len(values)) + recs
    head = struct.pack(">qiib", 0, 4 + 1 + 4 + len(after_crc), -1, 2)
    return head + struct.pack(">I", crc32c(after_crc)) + after_crc


def produce_v7(conn, topic, partition, records, acks=1):
    """Produce v7 of one partition; returns (error_code, base_offset)."""
    w = Writer().string(None).i16(acks).i32(30000).i32(1).string(topic).i32(1).i32(partition)
    w.i32(len(records)).raw(records)
    corr = conn.send(API_PRODUCE, 7, w.getvalue())
    got, r = conn.recv()
    assert got == corr, (got, corr)
    assert r.i32() == 1 and r.string() == topic and r.i32() == 1 and r.i32() == partition
    return r.i16(), r.i64()
# ---- KIP-1071 streams groups ------------------------------------------------


def _kv(w, kv):
    w.compact_string(kv[0]).compact_string(kv[1]).no_tags()


def _topic_info(w, t):
    """t: (name, partitions) or (name, partitions, replication_factor, {configs})."""
    name, parts = t[0], t[1]
    rf = t[2] if len(t) > 2 else 0
    cfgs = sorted((t[3] if len(t) > 3 else {}).items())
    w.compact_string(name).i32(parts).i16(rf).compact_array(cfgs, _kv).no_tags()


def _subtopology(w, sub):
    """sub: dict with id, source_topics, and optionally changelog_topics
    [(name, 0)], repartition_sink_topics [name], repartition_source_topics
    [(name, partitions)], copartition_groups [([source idx], [], [repartition idx])]."""
    w.compact_string(sub["id"])
    w.compact_array(list(sub.get("source_topics", [])), lambda ww, n: ww.compact_string(n))
    w.compact_array(list(sub.get("source_topic_regex", [])), lambda ww, n: ww.compact_string(n))
    w.compact_array(list(sub.get("changelog_topics", [])), _topic_info)
    w.compact_array(list(sub.get("repartition_sink_topics", [])), lambda ww, n: ww.compact_string(n))
    w.compact_array(list(sub.get("repartition_source_topics", [])), _topic_info)
    def cpg(ww, g):
        for idx in g:
            ww.compact_array(list(idx), lambda w3, i: w3.i16(i))
        ww.no_tags()
    # copartition groups: (source topic indexes, regex indexes, repartition source indexes)
    w.compact_array(list(sub.get("copartition_groups", [])), cpg)
    w.no_tags()


def _task_ids(w, item):
    w.compact_string(item[0]).compact_array(sorted(item[1]), lambda ww, p: ww.i32(p)).no_tags()


def _tasks_field(w, tasks):
    """tasks: None (null) or an iterable of (subtopology id, partition)."""
    if tasks is None:
        w.compact_array(None, None)
        return
    by_sub = {}
    for sub, p in tasks:
        by_sub.setdefault(sub, []).append(p)
    w.compact_array(sorted(by_sub.items()), _task_ids)


def streams_group_heartbeat_body(group, member_id, member_epoch, endpoint_epoch=0,
                                 instance_id=None, rack_id=None, rebalance_timeout_ms=-1,
                                 topology=None, active=None, standby=None, warmup=None,
                                 process_id=None, user_endpoint=None, client_tags=None,
                                 shutdown_application=False):
    """StreamsGroupHeartbeat v0-1 (always flexible; v1 has the same body).
    topology: None or (epoch, [subtopology dict]); active/standby/warmup:
    None (null, "unchanged") or sets of (subtopology id, partition)."""
    w = (Writer().compact_string(group).compact_string(member_id).i32(member_epoch)
         .i32(endpoint_epoch).compact_string(instance_id).compact_string(rack_id)
         .i32(rebalance_timeout_ms))
    if topology is None:
        w.i8(-1)
    else:
        w.i8(1).i32(topology[0]).compact_array(list(topology[1]), _subtopology).no_tags()
    _tasks_field(w, active)
    _tasks_field(w, standby)
    _tasks_field(w, warmup)
    w.compact_string(process_id)
    if user_endpoint is None:
        w.i8(-1)
    else:
        w.i8(1).compact_string(user_endpoint[0]).raw(struct.pack(">H", user_endpoint[1])).no_tags()
    w.compact_array(None if client_tags is None else sorted(client_tags.items()), _kv)
    w.compact_array(None, None)  # task offsets
    w.compact_array(None, None)  # task end offsets
    w.boolean(shutdown_application)
    return w.no_tags().getvalue()


def _decode_task_ids(r):
    def one(rr):
        sub = rr.compact_string()
        parts = rr.compact_array(lambda r3: r3.i32()) or []
        rr.skip_tags()
        return [(sub, p) for p in parts]
    items = r.compact_array(one)
    if items is None:
        return None
    return {t for lst in items for t in lst}


def decode_streams_group_heartbeat(r, version):
    """Response v0-1; active/standby/warmup: None when null (unchanged),
    else sets of (subtopology id, partition); status: [(code, detail)];
    endpoints: None or {(host, port): (active [(topic, [partitions])], standby ...)}."""
    out = {"throttle_time_ms": r.i32(), "error_code": r.i16(),
           "error_message": r.compact_string(), "member_id": r.compact_string(),
           "member_epoch": r.i32(), "heartbeat_interval_ms": r.i32()}
    if version == 0:
        out["acceptable_recovery_lag"] = r.i32()
    out["task_offset_interval_ms"] = r.i32()
    if version >= 1:
        out["acceptable_recovery_lag"] = r.i64()

    def status(rr):
        code, detail = rr.i8(), rr.compact_string()
        rr.skip_tags()
        return code, detail
    out["status"] = r.compact_array(status)
    out["active"] = _decode_task_ids(r)
    out["standby"] = _decode_task_ids(r)
    out["warmup"] = _decode_task_ids(r)
    if version >= 1:
        out["topology_description_required"] = r.boolean()
    out["endpoint_information_epoch"] = r.i32()

    def tps(rr):
        def tp(r3):
            topic = r3.compact_string()
            parts = r3.compact_array(lambda r4: r4.i32()) or []
            r3.skip_tags()
            return topic, parts
        return rr.compact_array(tp) or []

    def endpoint(rr):
        host, port = rr.compact_string(), rr.i16() & 0xFFFF
        rr.skip_tags()
        act, sb = tps(rr), tps(rr)
        rr.skip_tags()
        return (host, port), (act, sb)
    eps = r.compact_array(endpoint)
    out["endpoints"] = None if eps is None else dict(eps)
    r.skip_tags()
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return out


def streams_group_heartbeat(conn, group, member_id, member_epoch, version=1, **kw):
    corr = conn.send(API_STREAMS_GROUP_HEARTBEAT, version,
                     streams_group_heartbeat_body(group, member_id, member_epoch, **kw),
                     flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return decode_streams_group_heartbeat(r, version)


def _decode_topology_description(r):
    """KIP-1331 TopologyDescription (the non-null struct after its marker):
    {"subtopologies": [{"id", "nodes": [node]}], "global_stores": [(source, processor)]},
    node = {"name", "type", "source_topics", "sink_topic", "stores", "successors"}."""
    def strs(rr):
        return rr.compact_array(lambda r3: r3.compact_string()) or []

    def node(rr):
        n = {"name": rr.compact_string(), "type": rr.i8(), "source_topics": strs(rr),
             "sink_topic": rr.compact_string(), "stores": strs(rr), "successors": strs(rr)}
        rr.skip_tags()
        return n

    def sub(rr):
        v = {"id": rr.compact_string(), "nodes": rr.compact_array(node) or []}
        rr.skip_tags()
        return v

    def glob(rr):
        v = (node(rr), node(rr))
        rr.skip_tags()
        return v
    d = {"subtopologies": r.compact_array(sub) or [], "global_stores": r.compact_array(glob) or []}
    r.skip_tags()
    return d


def decode_streams_group_describe(r, version):
    """Response v0-1 as {"groups": {group_id: {...}}}; member assignments as
    {"active": set, "standby": set, "warmup": set}."""
    throttle = r.i32()

    def strs(rr):
        return rr.compact_array(lambda r3: r3.compact_string()) or []

    def topic_info(rr):
        name, parts, rf = rr.compact_string(), rr.i32(), rr.i16()
        rr.compact_array(lambda r3: (r3.compact_string(), r3.compact_string(), r3.skip_tags()))
        rr.skip_tags()
        return name, parts, rf

    def subtopology(rr):
        sub = {"id": rr.compact_string(), "source_topics": strs(rr),
               "repartition_sink_topics": strs(rr),
               "changelog_topics": rr.compact_array(topic_info) or [],
               "repartition_source_topics": rr.compact_array(topic_info) or []}
        rr.skip_tags()
        return sub

    def assignment(rr):
        a = {"active": _decode_task_ids(rr), "standby": _decode_task_ids(rr),
             "warmup": _decode_task_ids(rr)}
        rr.skip_tags()
        return a

    def task_offset(rr):
        v = (rr.compact_string(), rr.i32(), rr.i64())
        rr.skip_tags()
        return v

    def member(rr):
        m = {"member_id": rr.compact_string(), "member_epoch": rr.i32(),
             "instance_id": rr.compact_string(), "rack_id": rr.compact_string(),
             "client_id": rr.compact_string(), "client_host": rr.compact_string(),
             "topology_epoch": rr.i32(), "process_id": rr.compact_string()}
        if rr.i8() == 1:
            m["user_endpoint"] = (rr.compact_string(), rr.i16() & 0xFFFF)
            rr.skip_tags()
        else:
            m["user_endpoint"] = None
        m["client_tags"] = rr.compact_array(
            lambda r3: (r3.compact_string(), r3.compact_string(), r3.skip_tags())[:2])
        m["task_offsets"] = rr.compact_array(task_offset)
        m["task_end_offsets"] = rr.compact_array(task_offset)
        m["assignment"] = assignment(rr)
        m["target_assignment"] = assignment(rr)
        m["is_classic"] = rr.boolean()
        rr.skip_tags()
        return m

    def group(rr):
        g = {"error_code": rr.i16(), "error_message": rr.compact_string(),
             "group_id": rr.compact_string(), "group_state": rr.compact_string(),
             "group_epoch": rr.i32(), "assignment_epoch": rr.i32()}
        if rr.i8() == 1:
            epoch = rr.i32()
            subs = rr.compact_array(subtopology)
            rr.skip_tags()
            g["topology"] = {"epoch": epoch, "subtopologies": subs}
        else:
            g["topology"] = None
        g["members"] = {m["member_id"]: m for m in (rr.compact_array(member) or [])}
        g["authorized_operations"] = rr.i32()
        if version >= 1:
            g["topology_description"] = (_decode_topology_description(rr) if rr.i8() == 1
                                         else None)
            g["topology_description_status"] = rr.i8()
            g["assignor_name"] = rr.compact_string()
        rr.skip_tags()
        return g
    groups = r.compact_array(group) or []
    r.skip_tags()
    if r.remaining():
        raise DecodeError("%d trailing bytes" % r.remaining())
    return {"throttle_time_ms": throttle, "groups": {g["group_id"]: g for g in groups}}


def streams_group_describe(conn, groups, version=1, include_topology_description=False):
    w = Writer().compact_array(list(groups), lambda ww, g: ww.compact_string(g)).boolean(False)
    if version >= 1:
        w.boolean(include_topology_description)
    corr = conn.send(API_STREAMS_GROUP_DESCRIBE, version, w.no_tags().getvalue(), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return decode_streams_group_describe(r, version)


def list_groups_v5(conn, states=(), types=()):
    """ListGroups v5 (flexible): [(group_id, protocol_type, state, type)]."""
    body = (Writer().compact_array(list(states), lambda ww, s: ww.compact_string(s))
            .compact_array(list(types), lambda ww, s: ww.compact_string(s)).no_tags().getvalue())
    corr = conn.send(API_LIST_GROUPS, 5, body, flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    r.i32()
    err = r.i16()

    def one(rr):
        v = (rr.compact_string(), rr.compact_string(), rr.compact_string(), rr.compact_string())
        rr.skip_tags()
        return v
    groups = r.compact_array(one) or []
    r.skip_tags()
    return err, groups


API_DELETE_GROUPS = 42


def offset_commit_v9(conn, group, offsets, member_epoch, member_id):
    """OffsetCommit v9 (flexible, KIP-848 epochs). offsets: {(topic, partition):
    offset}. Returns {(topic, partition): error_code}."""
    by_topic = {}
    for (t, p), off in offsets.items():
        by_topic.setdefault(t, []).append((p, off))

    def part(ww, item):
        ww.i32(item[0]).i64(item[1]).i32(-1).compact_string(None).no_tags()

    def topic(ww, item):
        ww.compact_string(item[0]).compact_array(sorted(item[1]), part).no_tags()
    body = (Writer().compact_string(group).i32(member_epoch).compact_string(member_id)
            .compact_string(None).compact_array(sorted(by_topic.items()), topic)
            .no_tags().getvalue())
    corr = conn.send(API_OFFSET_COMMIT, 9, body, flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    r.i32()
    errors = {}

    def rtopic(rr):
        name = rr.compact_string()

        def rpart(r3):
            p, err = r3.i32(), r3.i16()
            r3.skip_tags()
            errors[(name, p)] = err
        rr.compact_array(rpart)
        rr.skip_tags()
    r.compact_array(rtopic)
    return errors


def delete_groups_v2(conn, groups):
    """DeleteGroups v2 (flexible): {group_id: error_code}."""
    body = (Writer().compact_array(list(groups), lambda ww, g: ww.compact_string(g))
            .no_tags().getvalue())
    corr = conn.send(API_DELETE_GROUPS, 2, body, flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    r.i32()

    def one(rr):
        v = (rr.compact_string(), rr.i16())
        rr.skip_tags()
        return v
    return dict(r.compact_array(one) or [])


def delete_groups_v3(conn, groups):
    """DeleteGroups v3 (flexible, per-group ErrorMessage, KIP-1331):
    {group_id: (error_code, error_message)}."""
    body = (Writer().compact_array(list(groups), lambda ww, g: ww.compact_string(g))
            .no_tags().getvalue())
    corr = conn.send(API_DELETE_GROUPS, 3, body, flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    r.i32()

    def one(rr):
        v = (rr.compact_string(), rr.i16(), rr.compact_string())
        rr.skip_tags()
        return v
    return {g: (code, msg) for g, code, msg in (r.compact_array(one) or [])}


# ---- dynamic configs (IncrementalAlterConfigs v1, DescribeConfigs v4) ----

API_DESCRIBE_CONFIGS = 32
API_INCREMENTAL_ALTER_CONFIGS = 44
CONFIG_RESOURCE_TOPIC = 2
CONFIG_RESOURCE_GROUP = 32
CONFIG_SET, CONFIG_DELETE, CONFIG_APPEND, CONFIG_SUBTRACT = 0, 1, 2, 3


def incremental_alter_configs_v1_body(resources, validate_only=False):
    """resources: [(resource type, name, [(config, operation, value or None)])]."""
    def config(w, c):
        w.compact_string(c[0]).i8(c[1]).compact_string(c[2]).no_tags()

    def resource(w, r):
        w.i8(r[0]).compact_string(r[1]).compact_array(r[2], config).no_tags()
    return (Writer().compact_array(resources, resource).boolean(validate_only)
            .no_tags().getvalue())


def decode_incremental_alter_configs_v1(r):
    r.i32()  # throttle

    def resp(rr):
        out = {"error_code": rr.i16(), "error_message": rr.compact_string(),
               "resource_type": rr.i8(), "resource_name": rr.compact_string()}
        rr.skip_tags()
        return out
    return r.compact_array(resp) or []


def incremental_alter_configs(conn, resources, validate_only=False):
    """IncrementalAlterConfigs v1; returns the per-resource answers in request order."""
    corr = conn.send(API_INCREMENTAL_ALTER_CONFIGS, 1,
                     incremental_alter_configs_v1_body(resources, validate_only),
                     flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return decode_incremental_alter_configs_v1(r)


def describe_configs(conn, rtype, name, keys=None):
    """DescribeConfigs v4 of one resource: (error code, {name: (value, source)})."""
    w = Writer()
    w.compact_array([(rtype, name, keys)], lambda ww, x: ww.i8(x[0]).compact_string(x[1])
                    .compact_array(x[2], lambda w3, k: w3.compact_string(k)).no_tags())
    body = w.boolean(False).boolean(False).no_tags().getvalue()
    corr = conn.send(API_DESCRIBE_CONFIGS, 4, body, flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    r.i32()

    def entry(rr):
        name, value = rr.compact_string(), rr.compact_string()
        rr.boolean()  # read only
        source = rr.i8()
        rr.boolean()  # sensitive
        rr.compact_array(lambda r3: (r3.compact_string(), r3.compact_string(), r3.i8(),
                                     r3.skip_tags()))
        rr.i8()  # type
        rr.compact_string()  # documentation
        rr.skip_tags()
        return name, (value, source)

    def result(rr):
        code = rr.i16()
        rr.compact_string()
        rr.i8()
        rr.compact_string()
        configs = dict(rr.compact_array(entry) or [])
        rr.skip_tags()
        return code, configs
    return (r.compact_array(result) or [])[0]


# ---- reading records back -------------------------------------------------

def _uvarint(r):
    shift = out = 0
    while True:
        b = r.read(1)[0]
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out
        shift += 7


def _varint(r):
    n = _uvarint(r)
    return (n >> 1) ^ -(n & 1)


class _Bytes:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def read(self, n):
        out = self.data[self.pos:self.pos + n]
        if len(out) != n:
            raise DecodeError("short record batch")
        self.pos += n
        return out


def decode_record_batches(data):
    """[(offset, value bytes)] of the magic 2 batches in a Fetch's records; a
    batch cut at the end of the response is ignored."""
    out = []
    pos = 0
    while pos + 12 <= len(data):
        base, length = struct.unpack_from(">qi", data, pos)
        if pos + 12 + length > len(data):
            break
        b = _Bytes(data[pos + 12:pos + 12 + length])
        _epoch, magic = struct.unpack(">ib", b.read(5))
        assert magic == 2, magic
        b.read(4 + 2 + 4 + 8 + 8 + 8 + 2 + 4)  # crc .. base sequence
        count = struct.unpack(">i", b.read(4))[0]
        for _ in range(count):
            _varint(b)  # length
            b.read(1)
            _varint(b)  # timestamp delta
            delta = _varint(b)
            klen = _varint(b)
            if klen > 0:
                b.read(klen)
            vlen = _varint(b)
            value = b.read(vlen) if vlen >= 0 else None
            for _ in range(_uvarint(b)):
                b.read(_varint(b))
                hv = _varint(b)
                if hv > 0:
                    b.read(hv)
            out.append((base + delta, value))
        pos += 12 + length
    return out


def fetch_records(conn, topic, partition, offset):
    """Fetch v4 from `offset` to the log end of one partition: returns
    ([(offset, value bytes)], high watermark)."""
    out = []
    while True:
        corr = conn.send(API_FETCH, 4, fetch_v4_body(topic, partition, offset))
        got, r = conn.recv()
        assert got == corr
        r.i32()
        r.i32()  # one topic
        r.string()
        r.i32()  # one partition
        p, err, hwm, _lso = r.i32(), r.i16(), r.i64(), r.i64()
        assert p == partition and err == 0, (p, err)
        r.array(lambda r4: (r4.i64(), r4.i64()))
        recs = [x for x in decode_record_batches(r.bytes_() or b"") if x[0] >= offset]
        out.extend(recs)
        if recs:
            offset = recs[-1][0] + 1
        if offset >= hwm:
            return out, hwm
        assert recs, "no progress reading partition %d at %d (hwm %d)" % (partition, offset, hwm)
