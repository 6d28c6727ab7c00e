# SPDX-License-Identifier: Apache-2.0
"""Kafka Streams 4.4.0 with processing.guarantee=exactly_once_v2 on kcoord:
the word count of streams/WordCount.java (group.protocol=streams; its
tasks' producers run transactions, the repartition and changelog topics
and the consumed offsets commit with the output).

Two instances a and b split the tasks; lines are produced continuously
while b is SIGKILLed in the middle of its processing (its counts for the
newest lines are in the output, lines it has not processed yet are still
coming, and a fault keeps its last transaction from ending). a takes
b's tasks once b's session has ended and kcoord has aborted b's open
transactions at their timeout; b then comes back on its state directory.
Then kcoord is SIGKILLed under both while lines keep coming and restarted
on its data. Every word's counts read with read_committed are exactly 1,
2, ..., its count in the input, after each step: no count is lost, none is
repeated, the last is exact.
"""

import os
import re
import shutil
import threading

import streams_app as sa
from admin_client import Admin
from kcoord_harness import free_port, run, wait_for

WORK = os.environ.get("KC_TEST_WORK", "/tmp")
PARTITIONS = 4
APP = "wordcount-eos"
EOS = {"processing.guarantee": "exactly_once_v2"}
# Kafka's default is 10 s: the check for a transaction past its timeout (b's
# open ones, after the kill) runs every second here.
BROKER_SETTINGS = {"transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000"}
END_TXN, LOAD_IN_PROGRESS = 26, 14


class Feeder:
    """Produces batches of 20 lines into words until stopped, a batch at
    most every 50 ms (the instances keep up on a loaded machine)."""

    def __init__(self, words, seed):
        self.words, self.seed = words, seed
        self.stop_ev = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            while not self.stop_ev.wait(0.05):
                self.words.produce(20, self.seed)
                self.seed += 1
        except BaseException as e:
            self.error = e

    def stop(self):
        self.stop_ev.set()
        self.thread.join(sa.DEADLINE_S)
        assert not self.thread.is_alive() and self.error is None, self.error


def exact(words):
    """Every word's counts in the output are 1..its input count, in order."""
    extra = words.wait_counted()
    assert extra == {}, extra
    wrong = {w: words.history[w] for w, c in words.expected.items()
             if words.history[w] != list(range(1, c + 1))}
    assert not wrong, "counts lost or repeated: %s" % {w: h[-10:] for w, h in wrong.items()}


def main():
    work = os.path.join(WORK, "kafka-streams-eos")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    broker = sa.KcoordBroker("eos")
    admin_port = free_port()
    broker.k.overrides.update(BROKER_SETTINGS)
    broker.k.overrides["admin.listeners"] = "http://127.0.0.1:%d" % admin_port
    broker.start()
    admin = Admin(admin_port)
    apps = {}
    try:
        src, out = APP + "-in", APP + "-out"
        sa.create_topics(broker, {src: PARTITIONS, out: PARTITIONS})
        words = sa.Words(broker, src, out)
        # Also what is not committed yet: the instances' progress.
        dirty = sa.Words(broker, src, out, isolation="read_uncommitted")
        for n in ("a", "b"):
            apps[n] = sa.WordCount(work, broker, APP, n, src, out, EOS).start()
        for a in apps.values():
            a.wait_running()
        sa.wait_stable(broker, APP, ["a", "b"], PARTITIONS)
        words.produce(200, 1)
        exact(words)

        # b dies while lines keep coming, in a transaction: once the output
        # shows counts of lines produced after the feeding began (b and a
        # are processing), kcoord answers b's EndTxn with a retriable error
        # until b is killed, so b's last transaction holds records.
        before = sum(words.expected.values())
        feeder = Feeder(words, 2)

        def processing():
            dirty._read()
            return sum(dirty.latest.values()) > before + 200
        wait_for(processing, sa.DEADLINE_S, "the instances processing the new lines")
        fault = admin.add_fault(type="error", api_key=END_TXN, error_code=LOAD_IN_PROGRESS,
                                count=1000000, client_id="b-StreamThread-1-producer")
        wait_for(lambda: admin.faults()["faults"][0]["hits"] > 0, sa.DEADLINE_S,
                 "b's EndTxn held")
        apps["b"].kill()
        admin.clear_faults()
        killed_at = words.lines
        # a goes on alone (after b's session and b's transactions' timeout).
        wait_for(lambda: words.lines >= killed_at + 200, sa.DEADLINE_S, "more lines produced")
        feeder.stop()
        sa.wait_stable(broker, APP, ["a"], PARTITIONS)
        exact(words)
        # b's transaction, and no other, was aborted at its timeout.
        aborted = re.findall(r"Aborting the transaction of transactional id (\S+) ",
                             broker.logs())
        assert len(aborted) == 1 and aborted[0].startswith(APP + "-"), aborted
        print("after the kill of b: %d lines counted exactly" % words.lines)

        # b comes back on its state directory; the two split the tasks again.
        apps["b"].start()
        apps["b"].wait_running()
        sa.wait_stable(broker, APP, ["a", "b"], PARTITIONS)
        words.produce(200, 1000)
        exact(words)

        # kcoord dies under the two while lines keep coming, and restarts on
        # its data: their open transactions end (committed on their EndTxn
        # or aborted) and the counts go on exactly.
        before = sum(words.expected.values())
        feeder = Feeder(words, 2000)
        wait_for(processing, sa.DEADLINE_S, "the instances processing the new lines")
        broker.kill_restart()
        killed_at = words.lines
        wait_for(lambda: words.lines >= killed_at + 200, sa.DEADLINE_S, "more lines produced")
        feeder.stop()
        exact(words)
        sa.wait_stable(broker, APP, ["a", "b"], PARTITIONS)
        print("after the kill of kcoord: %d lines counted exactly" % words.lines)
        for a in apps.values():
            assert not a.errors(), a.errors()
        for name in list(apps):
            apps.pop(name).close()
        words.close()
        dirty.close()
        print("%d lines, %d words counted exactly once across the kill"
              % (words.lines, sum(words.expected.values())))
    except BaseException:
        for a in apps.values():
            print("---- %s log tail\n%s" % (a.name, a.log_tail()))
        print("---- kcoord log tail\n%s" % broker.logs()[-20000:])
        raise
    finally:
        for a in apps.values():
            if a.proc is not None:
                a.kill()
        broker.cleanup()


if __name__ == "__main__":
    run(main)
