# SPDX-License-Identifier: Apache-2.0
"""Faults on the transaction APIs, with a confluent-kafka transactional
producer that must ride them out, and raw requests for the views:

- error faults, one request each: InitProducerId COORDINATOR_LOAD_IN_PROGRESS,
  AddPartitionsToTxn and AddOffsetsToTxn COORDINATOR_NOT_AVAILABLE,
  TxnOffsetCommit COORDINATOR_LOAD_IN_PROGRESS, EndTxn CONCURRENT_TRANSACTIONS:
  the client retries, the transaction commits, its records are read
  committed and its offsets are the group's;
- a coordinator window (NOT_COORDINATOR for EndTxn) that ends by itself:
  the commit waits it out;
- error faults on DescribeTransactions, ListTransactions and
  DescribeProducers answer the code in each API's shape;
- every injected code shows in kcoord_errors_total.
"""

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for

DEADLINE_S = 60
TOPIC = "ft-out"
GROUP = "ft-group"
API_INIT_PRODUCER_ID, API_ADD_PARTITIONS_TO_TXN, API_ADD_OFFSETS_TO_TXN = 22, 24, 25
API_END_TXN, API_TXN_OFFSET_COMMIT = 26, 28
API_DESCRIBE_PRODUCERS, API_DESCRIBE_TRANSACTIONS, API_LIST_TRANSACTIONS = 61, 65, 66


def committed_values(k):
    c = Consumer({"bootstrap.servers": k.bootstrap, "group.id": "ft-reader",
                  "isolation.level": "read_committed", "auto.offset.reset": "earliest",
                  "enable.partition.eof": True})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    got = []

    def done():
        m = c.poll(0.2)
        if m is not None and not m.error():
            got.append(m.value())
        return m is not None and m.error() is not None and len(got) >= 2
    wait_for(done, DEADLINE_S, "the committed records")
    c.close()
    return got


def flexible_call(c, api, body):
    corr = c.send(api, 0, body, flexible=True)
    got, r = c.recv(flexible_header=True)
    assert got == corr
    r.i32()  # throttle time
    return r


def describe_producers(c, body):
    """DescribeProducers v0 of one topic: (name, [(partition, error_code, producer ids)])."""
    r = flexible_call(c, API_DESCRIBE_PRODUCERS, body)

    def part(rr):
        idx, err = rr.i32(), rr.i16()
        rr.compact_string()
        prods = rr.compact_array(lambda r3: (r3.i64(), r3.i32(), r3.i32(), r3.i64(),
                                             r3.i32(), r3.i64(), r3.skip_tags())[0])
        rr.skip_tags()
        return idx, err, prods
    ((name, parts),) = r.compact_array(lambda rr: (rr.compact_string(), rr.compact_array(part),
                                                   rr.skip_tags())[:2])
    return name, parts


def main():
    admin_port = free_port()
    with Kcoord("faults_transactions",
                {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        admin = Admin(admin_port)
        ac = AdminClient({"bootstrap.servers": k.bootstrap})
        ac.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(DEADLINE_S)

        injected = [(API_INIT_PRODUCER_ID, 14), (API_ADD_PARTITIONS_TO_TXN, 15),
                    (API_ADD_OFFSETS_TO_TXN, 15), (API_TXN_OFFSET_COMMIT, 14),
                    (API_END_TXN, 51)]
        for api, code in injected:
            admin.add_fault(type="error", api_key=api, error_code=code)
        p = Producer({"bootstrap.servers": k.bootstrap, "transactional.id": "ft-tx"})
        p.init_transactions(DEADLINE_S)
        p.begin_transaction()
        p.produce(TOPIC, value=b"one", partition=0)
        p.produce(TOPIC, value=b"two", partition=0)
        assert p.flush(DEADLINE_S) == 0
        group = Consumer({"bootstrap.servers": k.bootstrap, "group.id": GROUP})
        p.send_offsets_to_transaction([TopicPartition(TOPIC, 0, 2)],
                                      group.consumer_group_metadata(), DEADLINE_S)
        p.commit_transaction(DEADLINE_S)
        assert admin.faults()["faults"] == [], admin.faults()
        assert committed_values(k) == [b"one", b"two"]
        (tp,) = group.committed([TopicPartition(TOPIC, 0)], DEADLINE_S)
        assert tp.offset == 2, tp

        # A coordinator window on EndTxn: the commit waits it out.
        admin.add_fault(type="coordinator", api_key=API_END_TXN, error_code=16, duration_ms=1500)
        p.begin_transaction()
        p.produce(TOPIC, value=b"three", partition=0)
        p.commit_transaction(DEADLINE_S)
        assert admin.faults()["faults"] == [], admin.faults()
        group.close()

        with kw.Conn(k.port) as c:
            # DescribeTransactions: every id carries the code.
            admin.add_fault(type="error", api_key=API_DESCRIBE_TRANSACTIONS, error_code=15)
            body = kw.Writer().compact_array(["ft-tx", "other"], lambda w, s: w.compact_string(s))
            r = flexible_call(c, API_DESCRIBE_TRANSACTIONS, body.no_tags().getvalue())

            def state(rr):
                err, tid = rr.i16(), rr.compact_string()
                rr.compact_string(), rr.i32(), rr.i64(), rr.i64(), rr.i16()
                rr.compact_array(lambda r3: (r3.compact_string(),
                                             r3.compact_array(lambda r4: r4.i32()),
                                             r3.skip_tags()))
                rr.skip_tags()
                return err, tid
            assert r.compact_array(state) == [(15, "ft-tx"), (15, "other")]
            # ListTransactions: the top-level code, nothing listed.
            admin.add_fault(type="error", api_key=API_LIST_TRANSACTIONS, error_code=15)
            body = kw.Writer().compact_array([], None).compact_array([], None).no_tags()
            r = flexible_call(c, API_LIST_TRANSACTIONS, body.getvalue())
            assert r.i16() == 15
            assert r.compact_array(lambda rr: rr.compact_string()) == []
            assert r.compact_array(lambda rr: rr) == []
            # DescribeProducers: every partition carries the code.
            admin.add_fault(type="error", api_key=API_DESCRIBE_PRODUCERS, error_code=6)
            body = kw.Writer().compact_array([TOPIC], lambda w, t: w.compact_string(t).compact_array(
                [0, 1], lambda w2, q: w2.i32(q)).no_tags()).no_tags()
            name, parts = describe_producers(c, body.getvalue())
            assert name == TOPIC and parts == [(0, 6, []), (1, 6, [])], (name, parts)
            # Without the fault the same request answers normally.
            name, parts = describe_producers(c, body.getvalue())
            assert parts[0][1] == 0 and len(parts[0][2]) == 1, parts
            assert parts[1][:2] == (1, 3), parts  # UNKNOWN_TOPIC_OR_PARTITION

        text = admin.metrics()
        for api, key, code in (("InitProducerId", 22, 14), ("AddPartitionsToTxn", 24, 15),
                               ("AddOffsetsToTxn", 25, 15), ("TxnOffsetCommit", 28, 14),
                               ("EndTxn", 26, 51), ("EndTxn", 26, 16),
                               ("DescribeTransactions", 65, 15), ("ListTransactions", 66, 15),
                               ("DescribeProducers", 61, 6)):
            prefix = 'kcoord_errors_total{api="%s",api_key="%d",code="%d"} ' % (api, key, code)
            assert prefix in text, (prefix, [x for x in text.splitlines() if api in x])


if __name__ == "__main__":
    run(main)
