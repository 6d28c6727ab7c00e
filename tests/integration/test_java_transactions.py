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
    next send); what the zombie sent is never committed;
  - a transaction past its timeout (3 s, the check every 500 ms): once
    kcoord has aborted it, the producer's commit throws what Kafka 4.4.0's
    answer makes it throw (InvalidTxnStateException), and it is fatal.

A second JVM (TxnCheck commits) has a producer whose requests kcoord's
admin faults hold while kcoord is SIGKILLed and restarted on its data:
once with a transaction's first Produce appended and its response delayed
(the producer sends the batch again, which is not appended twice), once
with the commit handled and its response delayed (the producer's
EndTxn again, with the epoch the commit bumped, is answered as a retry),
once with the EndTxn queued unhandled by a stall (the transaction is
Ongoing after the restart and the EndTxn again commits it). Every commit
returns, the next transaction of the same producer commits, and the
group's offsets and the read_committed records are those of every
transaction.
"""

import os
import queue
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "reference"))

import kafka_wire as kw  # noqa: E402
import reference_kafka  # noqa: E402
from admin_client import Admin, kill_with_request_queued, kill_with_response_held  # noqa: E402
from kcoord_harness import Kcoord, free_port, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "java", "TxnCheck.java")
RECORDS = 20
DEADLINE_S = 600.0
FENCED = "org.apache.kafka.common.errors.ProducerFencedException"
PRODUCE, END_TXN = 0, 26


def java(*args, **kw_):
    return subprocess.Popen([reference_kafka.java(), "-Xmx256m", "-XX:+UseSerialGC",
                             "-cp", reference_kafka.classpath(), PROGRAM] +
                            [str(a) for a in args], stdout=subprocess.PIPE, **kw_)


class Commits:
    """TxnCheck commits: its output lines, read as they come."""

    def __init__(self, bootstrap, tags, stderr_path):
        with open(stderr_path, "wb") as err:
            self.proc = java(bootstrap, "commits", "in-j", "out-kill-j", "kill-j", "tx-kill-j",
                             RECORDS, *tags, stdin=subprocess.PIPE, stderr=err)
        self.stderr_path = stderr_path
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def expect(self, line):
        try:
            got = self.lines.get(timeout=DEADLINE_S)
        except queue.Empty:
            got = "nothing"
        if got is None or not got.startswith(line):
            with open(self.stderr_path, "rb") as f:
                tail = f.read()[-6000:].decode("utf-8", "replace")
            raise AssertionError("TxnCheck commits: %r instead of %r\n%s" % (got, line, tail))
        return got

    def tell(self, word):
        self.proc.stdin.write(word.encode() + b"\n")
        self.proc.stdin.flush()


def kill_in_commits(k, admin):
    """The commits of a producer held by a fault while kcoord is killed."""
    tags = ["base", "produced", "handled", "queued", "after"]
    j = Commits(k.bootstrap, tags, os.path.join(k.tmp, "txncheck-commits.log"))
    j.tell("send")
    j.expect("ready base")
    j.tell("commit")
    j.expect("committed base")

    # The first Produce of the transaction appended, its response held.
    kill_with_response_held(k, admin, PRODUCE, lambda: j.tell("send"))
    j.expect("ready produced")
    j.tell("commit")
    j.expect("committed produced")

    j.tell("send")
    j.expect("ready handled")
    kill_with_response_held(k, admin, END_TXN, lambda: j.tell("commit"))
    j.expect("committed handled")
    # The producer's EndTxn again was answered by the restarted kcoord.
    assert admin.requests_by_version("EndTxn") == {5: 1}

    j.tell("send")
    j.expect("ready queued")
    kill_with_request_queued(k, admin, "EndTxn", lambda: j.tell("commit"))
    j.expect("committed queued")
    assert admin.requests_by_version("EndTxn") == {5: 1}

    j.tell("send")
    j.expect("ready after")
    j.tell("commit")
    j.expect("committed after")
    j.expect("offsets %d %d" % (5 * len(tags), 5 * len(tags)))
    values = j.expect("values ").split()[1:]
    assert values == sorted("%s-%d" % (t, i) for t in tags for i in range(RECORDS)), values
    assert j.proc.wait(timeout=DEADLINE_S) == 0
    assert admin.requests_by_version("EndTxn") == {5: 2}


def main():
    admin_port = free_port()
    with Kcoord("java_transactions",
                {"admin.listeners": "http://127.0.0.1:%d" % admin_port,
                 "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500"}) as k:
        with kw.Conn(k.port) as c:
            created = kw.create_topics(c, {"in-j": 2, "out-j": 2, "out-j-timeout": 2,
                                           "out-kill-j": 2})["topics"]
            assert all(v[0] == 0 for v in created.values()), created
        p = java(k.bootstrap, "in-j", "out-j", "eos-j", "tx-j", RECORDS,
                 stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stdout, stderr = p.communicate(timeout=DEADLINE_S)
        out = stdout.decode("utf-8", "replace")
        assert p.returncode == 0, "TxnCheck failed (%d):\n%s\n%s" % (
            p.returncode, out, stderr.decode("utf-8", "replace")[-6000:])
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
        # What Kafka 4.4.0 answers a producer whose transaction it aborted
        # at its timeout (bumping its epoch): the commit is in the wrong
        # state, which the producer takes as fatal.
        assert seen["timeout_commit"] == "org.apache.kafka.common.errors.InvalidTxnStateException"
        assert seen["timeout_abort"] == "org.apache.kafka.common.KafkaException", seen
        assert seen["timeout_next"] == "org.apache.kafka.common.KafkaException", seen
        assert seen["timeout_values"] == "", seen

        admin = Admin(admin_port)
        end_txn = admin.requests_by_version("EndTxn")
        produce = admin.requests_by_version("Produce")
        txn_offsets = admin.requests_by_version("TxnOffsetCommit")
        assert set(end_txn) == {5}, end_txn
        assert end_txn[5] >= RECORDS // 5 + 1, end_txn
        assert produce and min(produce) >= 12, produce
        assert txn_offsets and min(txn_offsets) >= 5, txn_offsets
        assert not admin.requests_by_version("AddPartitionsToTxn")
        assert not admin.requests_by_version("AddOffsetsToTxn")
        print("EndTxn %s, Produce %s, TxnOffsetCommit %s by version" % (end_txn, produce,
                                                                      txn_offsets))
        kill_in_commits(k, admin)
        print("commits held across kcoord's SIGKILL completed")
    print("the Java producer 4.4 ran transactions version 2 as Kafka has them")


if __name__ == "__main__":
    run(main)
