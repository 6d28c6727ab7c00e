# SPDX-License-Identifier: Apache-2.0
"""Produce with real clients, consume back in a group, exactly once each.

Records are produced to a 3-partition topic by kcat, by a confluent-kafka
producer with acks=all and by an idempotent confluent-kafka producer
(enable.idempotence=true, which first asks for a producer id with
InitProducerId). A confluent-kafka consumer group of two members then reads
the topic from the beginning: every acknowledged value must arrive exactly
once, in produce order within each partition, and the log end offsets from
ListOffsets must add up to the number of records. A kafka-python consumer
(Fetch v4, ListOffsets v1) must read the same values.
"""

import subprocess

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kcoord_harness import Kcoord, run, wait_for

TOPIC = "produce-topic"
GROUP = "produce-group"
PARTITIONS = 3
N = 300
DEADLINE_S = 120


def produce_kcat(bootstrap, values):
    data = "".join("%s\n" % v for v in values).encode()
    subprocess.run(["kcat", "-P", "-b", bootstrap, "-t", TOPIC, "-X", "acks=all",
                    "-X", "partitioner=murmur2_random"],
                   input=data, check=True, timeout=DEADLINE_S)


def produce_confluent(bootstrap, values, idempotent):
    acked, failed = [], []

    def on_delivery(err, msg):
        (failed if err else acked).append((err, msg.value().decode() if msg.value() else None))

    p = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                  "enable.idempotence": idempotent, "linger.ms": 5,
                  "max.in.flight.requests.per.connection": 5})
    for i, v in enumerate(values):
        p.produce(TOPIC, key=str(i).encode(), value=v.encode(), on_delivery=on_delivery)
        p.poll(0)
    left = p.flush(DEADLINE_S)
    assert left == 0, "%d messages not delivered" % left
    assert not failed, failed[:5]
    assert sorted(v for _, v in acked) == sorted(values)


def consume_group(bootstrap, expected):
    members = [Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP,
                         "auto.offset.reset": "earliest", "enable.auto.commit": True,
                         "session.timeout.ms": 10000, "heartbeat.interval.ms": 500,
                         "client.id": "member-%d" % i}) for i in range(2)]
    for m in members:
        m.subscribe([TOPIC])
    seen = []
    by_partition = {}

    def poll_all():
        for m in members:
            for msg in m.consume(num_messages=1000, timeout=0.05):
                if msg.error():
                    assert not msg.error().fatal(), msg.error()
                    continue
                seen.append(msg.value().decode())
                by_partition.setdefault(msg.partition(), []).append(msg.offset())
        return len(seen) >= len(expected)

    wait_for(poll_all, DEADLINE_S, "every record consumed",
             state=lambda: (len(seen), len(expected)))
    for m in members:
        m.close()
    assert sorted(seen) == sorted(expected), (len(seen), len(set(seen)), len(expected))
    for p, offs in by_partition.items():
        assert offs == sorted(offs), (p, offs[:20])


def end_offsets(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "offsets-probe"})
    total = 0
    for p in range(PARTITIONS):
        lo, hi = c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30)
        assert lo == 0, (p, lo)
        total += hi
    c.close()
    return total


def consume_kafka_python(bootstrap, expected):
    from kafka import KafkaConsumer
    c = KafkaConsumer(TOPIC, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                      enable_auto_commit=False, group_id=None, consumer_timeout_ms=2000)
    seen = []

    def more():
        for msg in c:
            seen.append(msg.value.decode())
        return len(seen) >= len(expected)

    wait_for(more, DEADLINE_S, "kafka-python read everything",
             state=lambda: (len(seen), len(expected)))
    c.close()
    assert sorted(seen) == sorted(expected), (len(seen), len(expected))


def main():
    with Kcoord("produce-clients") as k:
        admin = AdminClient({"bootstrap.servers": k.bootstrap})
        admin.create_topics([NewTopic(TOPIC, num_partitions=PARTITIONS, replication_factor=1)],
                            operation_timeout=30)[TOPIC].result(timeout=DEADLINE_S)
        kcat_values = ["kcat-%d" % i for i in range(N)]
        plain_values = ["acks-all-%d" % i for i in range(N)]
        idem_values = ["idempotent-%d" % i for i in range(N)]
        produce_kcat(k.bootstrap, kcat_values)
        produce_confluent(k.bootstrap, plain_values, idempotent=False)
        produce_confluent(k.bootstrap, idem_values, idempotent=True)
        expected = kcat_values + plain_values + idem_values
        assert end_offsets(k.bootstrap) == len(expected)
        consume_group(k.bootstrap, expected)
        consume_kafka_python(k.bootstrap, expected)


if __name__ == "__main__":
    run(main)
