# SPDX-License-Identifier: Apache-2.0
"""Transactions with Kafka's Java producer 4.4.0 (kafka-clients, the
reference classpath) on kcoord, which finalizes transaction.version 2: the
producer runs transactions version 2 (KIP-890), which kcoord's request
counters show (GET /metrics): EndTxn v5, Produce v12+ and TxnOffsetCommit
v5+ arrive, AddPartitionsToTxn and AddOffsetsToTxn never do.

One JVM (java/TxnCheck.java) runs, one after the other:
  - consume-transform-produce: a read_committed consumer of a group
    (group.protocol=consumer) and a transactional producer that sends the
    consumer's positions with sendOffsetsToTransaction(offsets,
    consumer.groupMetadata()) every 5 records; the group's committed
    offsets are the ends of the input and a read_committed reader sees
    every transformed record once;
  - an aborted transaction: invisible to read_committed, visible to
    read_uncommitted;
  - a zombie: a second producer with the same transactional.id fences the
    first, whose commit throws ProducerFencedException (and so does its
    next send); what the zombie sent is never committed.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "reference"))

import kafka_wire as kw  # noqa: E402
import reference_kafka  # noqa: E402
from admin_client import Admin, parse_prometheus  # noqa: E402
from kcoord_harness import Kcoord, free_port, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "java", "TxnCheck.java")
RECORDS = 20
DEADLINE_S = 600.0
FENCED = "org.apache.kafka.common.errors.ProducerFencedException"


def requests_by_version(metrics, api):
    """{version: count} of kcoord_requests_total for the API named api."""
    fam = parse_prometheus(metrics)["kcoord_requests_total"]
    return {int(lab["version"]): v for _, lab, v in fam["samples"] if lab["api"] == api}


def main():
    admin_port = free_port()
    with Kcoord("java_transactions",
                {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        with kw.Conn(k.port) as c:
            created = kw.create_topics(c, {"in-j": 2, "out-j": 2})["topics"]
            assert all(v[0] == 0 for v in created.values()), created
        p = subprocess.run([reference_kafka.java(), "-Xmx256m", "-XX:+UseSerialGC",
                            "-cp", reference_kafka.classpath(), PROGRAM,
                            k.bootstrap, "in-j", "out-j", "eos-j", "tx-j", str(RECORDS)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=DEADLINE_S)
        out = p.stdout.decode("utf-8", "replace")
        assert p.returncode == 0, "TxnCheck failed (%d):\n%s\n%s" % (
            p.returncode, out, p.stderr.decode("utf-8", "replace")[-6000:])
        seen = dict(line.split(" ", 1) if " " in line else (line, "")
                    for line in out.splitlines())
        print(out)

        transformed = sorted("t-v%d" % i for i in range(RECORDS))
        assert seen["ctp_commits"] == str(RECORDS // 5), seen
        assert seen["ctp_committed"] == "%d %d" % (RECORDS // 2, RECORDS // 2), seen
        assert seen["committed_values"].split() == transformed, seen
        assert seen["uncommitted_aborted"] == "5", seen
        assert seen["zombie_commit"] == FENCED, seen
        assert seen["zombie_send"] == FENCED, seen
        assert seen["final_values"].split() == sorted(transformed + ["after-zombie"]), seen

        metrics = Admin(admin_port).metrics()
        end_txn = requests_by_version(metrics, "EndTxn")
        produce = requests_by_version(metrics, "Produce")
        txn_offsets = requests_by_version(metrics, "TxnOffsetCommit")
        assert set(end_txn) == {5}, end_txn
        assert end_txn[5] >= RECORDS // 5 + 1, end_txn
        assert produce and min(produce) >= 12, produce
        assert txn_offsets and min(txn_offsets) >= 5, txn_offsets
        assert not requests_by_version(metrics, "AddPartitionsToTxn"), metrics
        assert not requests_by_version(metrics, "AddOffsetsToTxn"), metrics
        print("EndTxn %s, Produce %s, TxnOffsetCommit %s by version" % (end_txn, produce,
                                                                      txn_offsets))
    print("the Java producer 4.4 ran transactions version 2 as Kafka has them")


if __name__ == "__main__":
    run(main)
