# SPDX-License-Identifier: Apache-2.0
"""Transactions with real clients: confluent-kafka 1.7 (Debian's, on
librdkafka 2.0.2) and 2.16 (from PyPI, in build-pyclients/).

For each client, on a kcoord of its own:
  - consume-transform-produce: a read_committed consumer of a group reads
    "in", a transactional producer writes each record transformed to "out"
    and sends the consumer's positions with send_offsets_to_transaction,
    committing every few records; a read_committed reader of "out" then
    sees every record exactly once, and the group's committed offsets are
    the ends of "in";
  - an aborted transaction: invisible to a read_committed reader of "out",
    visible to a read_uncommitted one;
  - a zombie: a second producer with the same transactional.id fences the
    first, whose commit then fails as fenced;
  - kcoord SIGKILLed and restarted after a commit: the committed records
    and offsets are there, and the transactional id goes on.
This file runs the Debian client under /usr/bin/python3, then itself under
the virtualenv's python for the PyPI one.
"""

import os
import subprocess
import sys
import time

from kcoord_harness import Kcoord, run

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(SOURCE_ROOT, "build-pyclients")
VENV_PYTHON = os.path.join(VENV, "bin", "python")

import confluent_kafka  # noqa: E402
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

PARTITIONS = 2
RECORDS = 20
DEADLINE_S = 120.0


def client_version():
    v = confluent_kafka.version()
    return v[0] if isinstance(v, tuple) else v


def create_topics(bootstrap, *names):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for name, f in admin.create_topics([NewTopic(n, PARTITIONS, 1) for n in names]).items():
        f.result(timeout=DEADLINE_S)


def read_all(bootstrap, topic, isolation, expect_at_least):
    """Every record of topic from the start, as (partition, value), read
    with the isolation level given until expect_at_least are in and the
    reader reached the end of every partition."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader-%s" % time.time(),
                  "enable.auto.commit": False, "isolation.level": isolation,
                  "enable.partition.eof": True, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    out, eof = [], set()
    deadline = time.time() + DEADLINE_S
    while time.time() < deadline:
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error():
            if m.error().code() == confluent_kafka.KafkaError._PARTITION_EOF:
                eof.add(m.partition())
                if len(eof) == PARTITIONS and len(out) >= expect_at_least:
                    break
                continue
            raise KafkaException(m.error())
        eof.discard(m.partition())
        out.append((m.partition(), m.value().decode()))
    c.close()
    assert len(out) >= expect_at_least, (topic, isolation, out)
    return out


def txn_producer(bootstrap, txn_id):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
                  "transaction.timeout.ms": 60000})
    p.init_transactions(DEADLINE_S)
    return p


def transform(bootstrap, tag):
    """Consume-transform-produce from in-<tag> to out-<tag>, committing every 5 records."""
    src, dst, group = "in-" + tag, "out-" + tag, "eos-" + tag
    plain = Producer({"bootstrap.servers": bootstrap})
    for i in range(RECORDS):
        plain.produce(src, value=b"v%d" % i, partition=i % PARTITIONS)
    assert plain.flush(DEADLINE_S) == 0
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                  "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
    c.subscribe([src])
    p = txn_producer(bootstrap, "tx-" + tag)
    done, pending = 0, 0
    deadline = time.time() + DEADLINE_S
    p.begin_transaction()
    while done < RECORDS and time.time() < deadline:
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        p.produce(dst, value=b"t-" + m.value(), partition=m.partition())
        done += 1
        pending += 1
        if pending == 5:
            p.send_offsets_to_transaction(c.position(c.assignment()),
                                          c.consumer_group_metadata(), DEADLINE_S)
            p.commit_transaction(DEADLINE_S)
            pending = 0
            if done < RECORDS:
                p.begin_transaction()
    assert done == RECORDS and pending == 0, (done, pending)
    committed = c.committed([TopicPartition(src, q) for q in range(PARTITIONS)], DEADLINE_S)
    c.close()
    assert sorted(tp.offset for tp in committed) == [RECORDS // PARTITIONS] * PARTITIONS, committed
    got = read_all(bootstrap, dst, "read_committed", RECORDS)
    assert sorted(v for _, v in got) == sorted("t-v%d" % i for i in range(RECORDS)), got
    return p


def main_for_client():
    print("confluent-kafka %s (librdkafka %s)" % (client_version(),
                                                confluent_kafka.libversion()[0]))
    with Kcoord("transactions") as k:
        tag = "a"
        create_topics(k.bootstrap, "in-" + tag, "out-" + tag)
        p = transform(k.bootstrap, tag)

        # An aborted transaction: read_committed does not see it.
        p.begin_transaction()
        for i in range(5):
            p.produce("out-" + tag, value=b"aborted-%d" % i, partition=i % PARTITIONS)
        p.flush(DEADLINE_S)
        p.abort_transaction(DEADLINE_S)
        committed = read_all(k.bootstrap, "out-" + tag, "read_committed", RECORDS)
        assert len(committed) == RECORDS and not any("aborted" in v for _, v in committed), \
            committed
        uncommitted = read_all(k.bootstrap, "out-" + tag, "read_uncommitted", RECORDS + 5)
        assert sum("aborted" in v for _, v in uncommitted) == 5, uncommitted

        # A zombie: the same transactional.id again fences the first producer.
        p.begin_transaction()
        p.produce("out-" + tag, value=b"zombie", partition=0)
        p.flush(DEADLINE_S)
        p2 = txn_producer(k.bootstrap, "tx-" + tag)
        try:
            p.commit_transaction(DEADLINE_S)
            raise AssertionError("the fenced producer committed")
        except KafkaException as e:
            err = e.args[0]
            assert err.fatal() or err.txn_requires_abort(), err
            print("zombie: %s" % err)

        # A restart after a commit: everything committed is there.
        p2.begin_transaction()
        p2.produce("out-" + tag, value=b"after-zombie", partition=1)
        p2.commit_transaction(DEADLINE_S)
        k.kill()
        k.start()
        got = read_all(k.bootstrap, "out-" + tag, "read_committed", RECORDS + 1)
        values = [v for _, v in got]
        assert values.count("after-zombie") == 1 and "zombie" not in values, values
        p3 = txn_producer(k.bootstrap, "tx-" + tag)
        p3.begin_transaction()
        p3.produce("out-" + tag, value=b"after-restart", partition=0)
        p3.commit_transaction(DEADLINE_S)
        got = read_all(k.bootstrap, "out-" + tag, "read_committed", RECORDS + 2)
        assert [v for _, v in got].count("after-restart") == 1, got
    print("transactions as Kafka has them with confluent-kafka %s" % client_version())


def main():
    main_for_client()
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        if not os.access(VENV_PYTHON, os.X_OK):
            raise AssertionError("%s is missing: run scripts/deps.sh all" % VENV_PYTHON)
        subprocess.run([VENV_PYTHON, os.path.abspath(__file__)], check=True, timeout=900)


if __name__ == "__main__":
    run(main)
