# SPDX-License-Identifier: Apache-2.0
"""CreatePartitions and DeleteTopics through confluent-kafka's AdminClient.

Growing a topic is visible in Metadata at once and the new partition takes
records; shrinking it is INVALID_PARTITIONS. Deleting a topic removes its
records and the group offsets committed on it: a topic created again under
the same name starts empty, and the group has no offset for it.
"""

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from kcoord_harness import Kcoord, run

TOPIC = "admin-topic"
GROUP = "admin-group"
DEADLINE_S = 60


def produce(bootstrap, partition, n):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    errors = []
    for i in range(n):
        p.produce(TOPIC, value=b"x%d" % i, partition=partition,
                  on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert p.flush(DEADLINE_S) == 0
    assert not errors, errors


def watermarks(bootstrap, partition):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
    w = c.get_watermark_offsets(TopicPartition(TOPIC, partition), timeout=30)
    c.close()
    return w


def main():
    with Kcoord("produce-admin") as k:
        admin = AdminClient({"bootstrap.servers": k.bootstrap})
        admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1)],
                            operation_timeout=30)[TOPIC].result(timeout=DEADLINE_S)
        admin.create_partitions([NewPartitions(TOPIC, 3)])[TOPIC].result(timeout=DEADLINE_S)
        md = admin.list_topics(TOPIC, timeout=10)
        assert sorted(md.topics[TOPIC].partitions) == [0, 1, 2], md.topics[TOPIC].partitions
        try:
            admin.create_partitions([NewPartitions(TOPIC, 2)])[TOPIC].result(timeout=DEADLINE_S)
            raise AssertionError("shrinking a topic must fail")
        except Exception as e:  # KafkaException carrying the KafkaError
            err = e.args[0]
            assert err.code() == KafkaError.INVALID_PARTITIONS, err
        produce(k.bootstrap, 2, 5)
        assert watermarks(k.bootstrap, 2) == (0, 5)

        c = Consumer({"bootstrap.servers": k.bootstrap, "group.id": GROUP,
                      "enable.auto.commit": False})
        c.commit(offsets=[TopicPartition(TOPIC, 2, 4)], asynchronous=False)
        assert c.committed([TopicPartition(TOPIC, 2)], timeout=30)[0].offset == 4

        admin.delete_topics([TOPIC], operation_timeout=30)[TOPIC].result(timeout=DEADLINE_S)
        assert TOPIC not in admin.list_topics(timeout=10).topics
        admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=1)],
                            operation_timeout=30)[TOPIC].result(timeout=DEADLINE_S)
        assert watermarks(k.bootstrap, 2) == (0, 0)
        assert c.committed([TopicPartition(TOPIC, 2)], timeout=30)[0].offset < 0
        c.close()
        k.kill()
        k.start()
        assert watermarks(k.bootstrap, 2) == (0, 0)


if __name__ == "__main__":
    run(main)
