# SPDX-License-Identifier: Apache-2.0
"""kcoord SIGKILLed in the middle of a transaction's commit and restarted on
its data directory, with confluent-kafka 1.7 (Debian's) and 2.16 (PyPI,
build-pyclients/): the transaction ends as Kafka ends it after a restart
of its transaction coordinator.

A producer process (this file, "producer" mode) writes RECORDS records to
"out" and sends the group's offsets of "in" in a transaction, then commits
when told. kcoord's admin faults hold its EndTxn without sleeps:
  1. a delay fault on EndTxn's response: the commit was handled (the
     fault applied to its response) when kcoord is killed. After the
     restart the producer's EndTxn again is answered as a retry of a
     completed commit: commit_transaction succeeds, the records are
     visible to read_committed, the group's offsets are the new ones;
  2. a stall: the EndTxn is queued unhandled when kcoord is killed, the
     producer lives on. The transaction is Ongoing after the restart and
     the producer's EndTxn commits it;
  3. a stall again, and the producer is killed with kcoord: the Ongoing
     transaction is aborted at its timeout after the restart (kcoord logs
     it): read_committed sees none of its records, read_uncommitted all,
     the group's offsets stay those of the last commit;
  4. the same with a long transaction timeout: after the restart the open
     transaction holds the last stable offsets where they were before;
  5. a new producer with the same transactional.id aborts it (its
     InitProducerId) and commits on.
A transaction's end is written in one storage commit on kcoord (its
PrepareCommit, markers and CompleteCommit), so no restart finds a prepared
transaction: a kill leaves it Ongoing or complete.
This file runs the Debian client under /usr/bin/python3, then itself under
the virtualenv's python for the PyPI one.
"""

import os
import subprocess
import sys

from admin_client import Admin, kill_with_request_queued, kill_with_response_held
from kcoord_harness import Kcoord, free_port, run, wait_for

import confluent_kafka
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

import test_transactions as tt

IN, OUT, GROUP, TXN_ID = "in-k", "out-k", "eos-k", "tx-k"
RECORDS = 10
DEADLINE_S = 120.0
END_TXN = 26
# The producer of step 3 may be aborted at its timeout; the others must not
# (a restart on a loaded machine takes seconds).
SHORT_TIMEOUT_MS, LONG_TIMEOUT_MS = 5000, 300000


def producer_main(bootstrap, tag, offset, timeout_ms):
    """The producer process: a transaction of RECORDS records "<tag>-i" and
    the group's offsets of every partition of IN at offset; prints "ready",
    commits on the line "commit" and prints "committed" or "error E"."""
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": TXN_ID,
                  "transaction.timeout.ms": timeout_ms})
    p.init_transactions(DEADLINE_S)
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP,
                  "enable.auto.commit": False})
    p.begin_transaction()
    for i in range(RECORDS):
        p.produce(OUT, value=("%s-%d" % (tag, i)).encode(), partition=i % tt.PARTITIONS)
    assert p.flush(DEADLINE_S) == 0
    p.send_offsets_to_transaction([TopicPartition(IN, q, offset) for q in range(tt.PARTITIONS)],
                                  c.consumer_group_metadata(), DEADLINE_S)
    print("ready", flush=True)
    assert sys.stdin.readline().strip() == "commit"
    while True:
        try:
            p.commit_transaction(DEADLINE_S)
            print("committed", flush=True)
            break
        except KafkaException as e:
            err = e.args[0]
            if not err.retriable():
                print("error %s" % err, flush=True)
                break
            # The outcome is unknown: the application calls it again.
            print("retry %s" % err, flush=True)
    c.close()


class ProducerProcess:
    def __init__(self, bootstrap, tag, offset, timeout_ms=LONG_TIMEOUT_MS):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "producer",
                                      bootstrap, tag, str(offset), str(timeout_ms)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        assert line == "ready\n", line

    def commit(self):
        self.proc.stdin.write(b"commit\n")
        self.proc.stdin.flush()

    def outcome(self):
        """The lines the producer printed after "ready"; it must exit 0."""
        out = self.proc.stdout.read().decode()
        assert self.proc.wait(timeout=DEADLINE_S) == 0, out
        return out.split()

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def offsets(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "enable.auto.commit": False})
    got = c.committed([TopicPartition(IN, q) for q in range(tt.PARTITIONS)], DEADLINE_S)
    c.close()
    return [tp.offset for tp in got]


def ends(bootstrap, isolation):
    """OUT's end offsets as ListOffsets gives them with the isolation level
    (read_committed: the last stable offsets)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "ends",
                  "isolation.level": isolation})
    got = [c.get_watermark_offsets(TopicPartition(OUT, q), timeout=DEADLINE_S, cached=False)[1]
           for q in range(tt.PARTITIONS)]
    c.close()
    return got


def values(bootstrap, isolation, expect_at_least):
    return sorted(v for _, v in tt.read_all(bootstrap, OUT, isolation, expect_at_least))


def tagged(*tags):
    return sorted("%s-%d" % (t, i) for t in tags for i in range(RECORDS))


def main_for_client():
    print("confluent-kafka %s (librdkafka %s)" % (tt.client_version(),
                                                confluent_kafka.libversion()[0]))
    admin_port = free_port()
    with Kcoord("txn_coordinator_kill", {
            "admin.listeners": "http://127.0.0.1:%d" % admin_port,
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500"}) as k:
        admin = Admin(admin_port)
        tt.create_topics(k.bootstrap, IN, OUT)
        p = ProducerProcess(k.bootstrap, "base", 5)
        p.commit()
        assert p.outcome() == ["committed"]

        # 1. Killed after the commit was handled, its response held.
        p = ProducerProcess(k.bootstrap, "handled", 10)
        kill_with_response_held(k, admin, END_TXN, p.commit)
        outcome = p.outcome()
        assert outcome[-1] == "committed", outcome
        # The producer's EndTxn again was answered by the restarted kcoord.
        assert sum(admin.requests_by_version("EndTxn").values()) >= 1
        print("1. handled, then killed: %s" % " ".join(outcome))
        assert values(k.bootstrap, "read_committed", 2 * RECORDS) == tagged("base", "handled")
        assert offsets(k.bootstrap) == [10, 10]

        # 2. Killed with the EndTxn queued unhandled; the producer retries.
        p = ProducerProcess(k.bootstrap, "queued", 15)
        kill_with_request_queued(k, admin, "EndTxn", p.commit)
        outcome = p.outcome()
        assert outcome[-1] == "committed", outcome
        assert sum(admin.requests_by_version("EndTxn").values()) >= 1
        print("2. queued, then killed: %s" % " ".join(outcome))
        assert values(k.bootstrap, "read_committed", 3 * RECORDS) == \
            tagged("base", "handled", "queued")
        assert offsets(k.bootstrap) == [15, 15]

        # 3. Killed with the EndTxn queued, the producer gone: aborted at
        #    its timeout.
        p = ProducerProcess(k.bootstrap, "abandoned", 20, SHORT_TIMEOUT_MS)
        before_kill = kill_with_request_queued(k, admin, "EndTxn", p.commit, p.kill)
        # On a slow machine the timeout may have passed before the stall.
        aborted = "Aborting the transaction of transactional id %s" % TXN_ID
        wait_for(lambda: aborted in before_kill + k.stderr_text(), DEADLINE_S,
                 "the transaction aborted at its timeout")
        assert values(k.bootstrap, "read_committed", 3 * RECORDS) == \
            tagged("base", "handled", "queued")
        assert values(k.bootstrap, "read_uncommitted", 4 * RECORDS) == \
            tagged("base", "handled", "queued", "abandoned")
        assert offsets(k.bootstrap) == [15, 15]

        # 4. The same with a long timeout: after the restart the open
        #    transaction holds the last stable offsets where they were.
        p = ProducerProcess(k.bootstrap, "fenced", 30)
        stable, high = ends(k.bootstrap, "read_committed"), ends(k.bootstrap, "read_uncommitted")
        assert [h - s for s, h in zip(stable, high)] == [RECORDS // tt.PARTITIONS] * tt.PARTITIONS
        kill_with_request_queued(k, admin, "EndTxn", p.commit, p.kill)
        assert ends(k.bootstrap, "read_committed") == stable
        assert ends(k.bootstrap, "read_uncommitted") == high

        # 5. A new producer with the transactional id aborts it and goes on.
        p = ProducerProcess(k.bootstrap, "after", 25)
        p.commit()
        assert p.outcome() == ["committed"]
        assert values(k.bootstrap, "read_committed", 4 * RECORDS) == \
            tagged("base", "handled", "queued", "after")
        assert values(k.bootstrap, "read_uncommitted", 6 * RECORDS) == \
            tagged("base", "handled", "queued", "abandoned", "fenced", "after")
        assert offsets(k.bootstrap) == [25, 25]
    print("commits interrupted by kcoord's SIGKILL end as Kafka ends them with confluent-kafka %s"
          % tt.client_version())


def main():
    main_for_client()
    if os.path.realpath(sys.prefix) != os.path.realpath(tt.VENV):
        if not os.access(tt.VENV_PYTHON, os.X_OK):
            raise AssertionError("%s is missing: run scripts/deps.sh all" % tt.VENV_PYTHON)
        subprocess.run([tt.VENV_PYTHON, os.path.abspath(__file__)], check=True, timeout=900)


if __name__ == "__main__":
    if sys.argv[1:2] == ["producer"]:
        producer_main(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        run(main)
