# SPDX-License-Identifier: Apache-2.0
"""Every acknowledged record survives SIGKILL, and so does producer state.

An idempotent confluent-kafka producer writes to a 2-partition topic with
acks=all; right after the last delivery report kcoord is killed with
SIGKILL and started again on the same data directory. A consumer must then
read every acknowledged value exactly once, the log end offsets must equal
the acknowledged count, and a new idempotent producer must keep appending
after the old records (new producer id, offsets continue). A raw Produce
retry of an already acknowledged idempotent batch after the restart must be
answered with its original offset and not appended twice.
"""

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "restart-topic"
PARTITIONS = 2
N = 400
DEADLINE_S = 120


def batch(values, producer_id, epoch, base_seq):
    return kw.record_batch(values, producer_id, epoch, base_seq)


def call(conn, api_key, version, body):
    corr = conn.send(api_key, version, body)
    got, r = conn.recv()
    assert got == corr, (got, corr)
    return r


def raw_produce(conn, partition, records):
    """Produce v7, acks=-1; returns (error_code, base_offset)."""
    return kw.produce_v7(conn, TOPIC, partition, records, acks=-1)


def init_producer_id(conn):
    r = call(conn, 22, 1, kw.Writer().string(None).i32(60000).getvalue())
    r.i32()
    err, pid, epoch = r.i16(), r.i64(), r.i16()
    assert err == 0, err
    return pid, epoch


def produce_idempotent(bootstrap, values):
    acked = []

    def on_delivery(err, msg):
        assert err is None, err
        acked.append(msg.value().decode())

    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                  "linger.ms": 2})
    for i, v in enumerate(values):
        p.produce(TOPIC, key=str(i).encode(), value=v.encode(), on_delivery=on_delivery)
        p.poll(0)
    assert p.flush(DEADLINE_S) == 0
    return acked


def read_all(bootstrap, want):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "restart-reader-%d" % want,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([TOPIC])
    seen = []

    def more():
        for msg in c.consume(num_messages=1000, timeout=0.05):
            if not msg.error():
                seen.append(msg.value().decode())
        return len(seen) >= want

    wait_for(more, DEADLINE_S, "records read back", state=lambda: (len(seen), want))
    c.close()
    return seen


def end_offsets(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "restart-probe"})
    out = [c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30)[1]
           for p in range(PARTITIONS)]
    c.close()
    return out


def main():
    with Kcoord("produce-restart") as k:
        admin = AdminClient({"bootstrap.servers": k.bootstrap})
        admin.create_topics([NewTopic(TOPIC, num_partitions=PARTITIONS, replication_factor=1)],
                            operation_timeout=30)[TOPIC].result(timeout=DEADLINE_S)
        first = produce_idempotent(k.bootstrap, ["before-%d" % i for i in range(N)])
        # A raw idempotent producer (id from InitProducerId) writes one batch.
        with kw.Conn(k.port) as conn:
            pid, epoch = init_producer_id(conn)
            assert pid >= 0 and epoch == 0, (pid, epoch)
            raw = batch([b"raw-0", b"raw-1"], pid, epoch, 0)
            err, raw_base = raw_produce(conn, 0, raw)
            assert err == 0, err
        k.kill()
        k.start()
        offs = end_offsets(k.bootstrap)
        assert sum(offs) == N + 2, offs
        seen = read_all(k.bootstrap, N + 2)
        assert sorted(seen) == sorted(first + ["raw-0", "raw-1"]), len(seen)
        with kw.Conn(k.port) as conn:
            # The retry is recognised from the persisted producer state.
            assert raw_produce(conn, 0, raw) == (0, raw_base)
            # A gap in the sequence is refused.
            assert raw_produce(conn, 0, batch([b"gap"], pid, epoch, 5))[0] == 45
            # The next sequence is accepted at the log end.
            err, base = raw_produce(conn, 0, batch([b"raw-2"], pid, epoch, 2))
            assert (err, base) == (0, offs[0]), (err, base, offs)
        second = produce_idempotent(k.bootstrap, ["after-%d" % i for i in range(N)])
        assert sum(end_offsets(k.bootstrap)) == 2 * N + 3
        seen = read_all(k.bootstrap, 2 * N + 3)
        assert sorted(seen) == sorted(first + second + ["raw-0", "raw-1", "raw-2"]), len(seen)


if __name__ == "__main__":
    run(main)
