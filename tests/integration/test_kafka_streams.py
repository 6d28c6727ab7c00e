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
- the initial rebalance delay: a static member restarted while its group's
  streams.initial.rebalance.delay.ms (set with kafka-configs) runs ends
  with the same states, epochs and member on both brokers.
- compaction: the count store's changelog (1 MiB segments) is cleaned by
  the broker's log cleaner; an instance restored from what is left counts
  on exactly.

The reference broker starts once and every step runs on it after kcoord;
each broker has its own topics and groups, with the same names.
"""

import contextlib
import json
import os
import re
import shutil
import time

import streams_app as sa
from kcoord_harness import run, wait_for

WORK = os.environ.get("KC_TEST_WORK", "/tmp")
PARTITIONS = 4
STORE_EXIT = 86


def topics(app):
    return app + "-in", app + "-out"


def create_topics(broker, app):
    """Creates the input and output topics of a new application."""
    src, out = topics(app)
    sa.create_topics(broker, {src: PARTITIONS, out: PARTITIONS})
    return src, out


@contextlib.contextmanager
def application(broker, app):
    """The topics of a new application, and its Words."""
    src, out = create_topics(broker, app)
    words = sa.Words(broker, src, out)
    try:
        yield src, out, words
    finally:
        words.close()


def start_app(work, broker, app, names, configs=None):
    src, out = topics(app)
    apps = {n: sa.WordCount(work, broker, app, n, src, out, (configs or {}).get(n)).start()
            for n in names}
    for a in apps.values():
        a.wait_running()
    return apps


def lifecycle(work, broker):
    app = "wordcount"
    with application(broker, app) as (src, out, words):
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


def static_members(work, broker):
    app = "static"
    with application(broker, app) as (src, out, words):
        configs = {n: {"group.instance.id": "instance-" + n} for n in ("a", "b")}
        apps = start_app(work, broker, app, ["a", "b"], configs)
        before = sa.wait_stable(broker, app, ["a", "b"], PARTITIONS)
        words.produce(200, 1)
        assert words.wait_counted() == {}
        a0, b0 = sa.member_of(before, "a"), sa.member_of(before, "b")
        b_states = apps["b"].states()

        # A static member that closes stays in the group (epoch -2) with its
        # tasks until its session ends; it comes back within it.
        apps["a"].close()
        gone = sa.describe(broker, app)
        assert sa.member_of(gone, "a")["member_id"] == a0["member_id"], gone
        apps["a"].start()
        apps["a"].wait_running()
        after = sa.wait_stable(broker, app, ["a", "b"], PARTITIONS)
        a1, b1 = sa.member_of(after, "a"), sa.member_of(after, "b")
        assert a1["instance_id"] == a0["instance_id"]
        assert a1["assignment"] == a0["assignment"], (a0, a1)
        # The other member was not rebalanced: same member, epoch, tasks,
        # and its application never left RUNNING.
        assert (b1["member_id"], b1["member_epoch"], b1["assignment"]) == \
            (b0["member_id"], b0["member_epoch"], b0["assignment"]), (b0, b1)
        assert apps["b"].states() == b_states, (b_states, apps["b"].states())
        words.produce(200, 2)
        assert words.wait_counted() == {}
        print("%s: static member back as %s at epoch %d (was %s at %d)" % (
            broker.name, a1["member_id"], a1["member_epoch"], a0["member_id"], a0["member_epoch"]))
        for x in apps.values():
            x.close()


AVAILABLE = 3

# The topology description each broker served, compared at the end.
DESCRIPTIONS = {}


def wait_description(broker, app):
    seen = {}

    def available():
        g = sa.describe(broker, app, include_description=True)
        seen["g"] = g
        return g["error_code"] == 0 and g["topology_description_status"] == AVAILABLE
    wait_for(available, sa.DEADLINE_S, "the topology description of %s on %s" % (app, broker.name),
             interval=0.2, state=lambda: seen.get("g"))
    # The application id names its topics: the description with it replaced.
    return json.loads(json.dumps(seen["g"]["topology_description"]).replace(app, "<app>"))


def topology_description(work, broker):
    app = "described"
    create_topics(broker, app)
    apps = start_app(work, broker, app, ["a"])
    DESCRIPTIONS[broker.name] = wait_description(broker, app)
    apps["a"].close()
    if broker.name != "kcoord":
        return
    # The store call crashed after the -2 record committed (the store exits
    # before writing), then after it wrote (before the final record): the
    # restarted broker asks the application again, which pushes again.
    for point in ("exit-before", "exit-after"):
        app = "described-" + point
        src, out = create_topics(broker, app)
        broker.kill_restart({"KC_TEST_STORE_SET": point + "*1"})
        a = sa.WordCount(work, broker, app, "a", src, out).start()
        broker.wait_exit(STORE_EXIT, "the store to exit at its %s point" % point)
        broker.kill_restart()
        assert wait_description(broker, app) == DESCRIPTIONS["kcoord"], point
        a.wait_running()
        sets = [ln for ln in store_calls(broker) if ln.startswith("set %s " % app)]
        assert len(sets) == (2 if point == "exit-after" else 1), sets
        a.close()


def store_calls(broker):
    """The calls the test store completed (its calls.log)."""
    try:
        with open(os.path.join(broker.k.data_dir, "test-store", "calls.log")) as f:
            return f.read().split("\n")[:-1]
    except FileNotFoundError:
        return []


# kafka-streams-groups' output per broker and command line, compared at the end.
TOOL = {}
TOOL_COMMANDS = [
    ["--list"],
    ["--describe"],
    ["--describe", "--members"],
    ["--describe", "--members", "--verbose"],
    ["--describe", "--offsets"],
    ["--describe", "--offsets", "--verbose"],
    ["--describe", "--state"],
    ["--describe", "--state", "--verbose"],
]


def normalise_tool(broker, out):
    """What legitimately differs between two brokers: the port, generated
    ids (member ids, process ids), timings; and the column widths that
    follow from them. Rows are sorted (members come in each broker's
    order)."""
    out = out.replace(broker.bootstrap, "<broker>")
    out = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", out)
    out = re.sub(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])", "<member-id>", out)
    lines = [re.sub(r"\s+", " ", ln).strip() for ln in out.splitlines()]
    lines = [ln for ln in lines if ln]
    head = [ln for ln in lines if ln.startswith("GROUP ")]
    return head + sorted(ln for ln in lines if not ln.startswith("GROUP "))


def groups_tool(work, broker):
    app = "tool"
    with application(broker, app) as (src, out, words):
        # One after the other, so that the epochs do not depend on whether
        # b's join and the group's sight of its new internal topics fall
        # into one heartbeat or two.
        apps = start_app(work, broker, app, ["a"])
        sa.wait_stable(broker, app, ["a"], PARTITIONS)
        apps.update(start_app(work, broker, app, ["b"]))
        sa.wait_stable(broker, app, ["a", "b"], PARTITIONS)
        words.produce(200, 1)
        assert words.wait_counted() == {}
        # The committed offsets reach the input's end a commit interval later.
        committed = {}

        def caught_up():
            rc, text = sa.streams_groups_tool(broker, "--describe", "--offsets", "--group", app)
            committed["text"] = text
            rows = [ln.split() for ln in text.splitlines() if ln.startswith(app + " ")]
            return rc == 0 and rows and all(r[-1] == "0" for r in rows)
        wait_for(caught_up, sa.DEADLINE_S, "no lag on %s" % broker.name, interval=0.5,
                 state=lambda: committed.get("text"))
        got = TOOL.setdefault(broker.name, {})
        for args in TOOL_COMMANDS:
            rc, text = sa.streams_groups_tool(broker, *(args + ["--group", app]
                                                        if args != ["--list"] else args))
            got[" ".join(args)] = (rc, normalise_tool(broker, text))
        for x in apps.values():
            x.close()


# What the static member restarted inside the initial delay saw, per broker.
DELAYED = {}
DELAY_MS = 15000


def initial_delay(work, broker):
    """A static member that restarts while its new group's initial
    rebalance delay runs (the group's streams.initial.rebalance.delay.ms,
    set with kafka-configs, keeps the delay longer than a JVM restart)."""
    app = "delayed"
    with application(broker, app) as (src, out, words):
        rc, text = sa.config_tool(broker, "--entity-type", "groups", "--entity-name", app,
                                  "--alter", "--add-config",
                                  "streams.initial.rebalance.delay.ms=%d" % DELAY_MS)
        assert rc == 0, text
        configs = {"group.instance.id": "instance-a"}
        started = time.monotonic()
        a = sa.WordCount(work, broker, app, "a", src, out, configs).start()
        joined = wait_for(lambda: sa.describe(broker, app)["members"], sa.DEADLINE_S,
                          "a in group %s on %s" % (app, broker.name), interval=0.2)
        first = list(joined.values())[0]
        a.close()
        a.start()
        a.wait_running()
        running_s = time.monotonic() - started
        g = sa.wait_stable(broker, app, ["a"], PARTITIONS)
        m = sa.member_of(g, "a")
        print("%s: the restarted static member ran %.1f s after the first start" % (
            broker.name, running_s))
        DELAYED[broker.name] = {
            # The delay counts from the group's first join, after the start.
            "assigned after the delay": running_s >= DELAY_MS / 1000.0,
            "states": a.states(), "group epoch": g["group_epoch"],
            "member epoch": m["member_epoch"], "same member id": m["member_id"] == first["member_id"],
            "members": len(g["members"])}
        words.produce(100, 1)
        assert words.wait_counted() == {}
        a.close()


# Lines for the compaction step: every line counts "common" once, so the
# changelog partition of "common" gets one record per line, about 1.8 MiB.
COMPACTION_LINES = 80000


def compacted_changelog(work, broker):
    """The count store's changelog, created compacted with 1 MiB segments
    (the application's topic.* configs), is cleaned by the broker's log
    cleaner once a segment rolls: some of its records are gone below the
    high watermark. An instance killed and restarted with an empty state
    directory restores its counts from what the clean left, and they go on
    exactly."""
    app = "compacted"
    configs = {"topic.segment.bytes": "1048576", "topic.min.cleanable.dirty.ratio": "0.01"}
    with application(broker, app) as (src, out, words):
        a = start_app(work, broker, app, ["a"], {"a": configs})["a"]
        sa.wait_stable(broker, app, ["a"], PARTITIONS)
        words.produce(COMPACTION_LINES, 1)
        assert words.wait_counted() == {}
        changelog = app + "-counts-changelog"
        seen = {}

        def cleaned():
            seen["records"], seen["end"] = sa.count_records(broker, changelog)
            return seen["end"] - seen["records"] >= COMPACTION_LINES // 4
        # Kafka's cleaner looks for dirty logs every 15 s.
        wait_for(cleaned, sa.DEADLINE_S, "a clean of %s on %s" % (changelog, broker.name),
                 interval=1.0, state=lambda: seen)
        print("%s: the changelog keeps %d of its %d offsets" % (
            broker.name, seen["records"], seen["end"]))
        a.kill()
        words.mark_crash()
        shutil.rmtree(a.state_dir, ignore_errors=True)
        a.start()
        a.wait_running()
        words.produce(200, 2)
        words.wait_counted()
        assert not a.errors(), a.errors()
        a.close()


def run_on(broker_cls, tag):
    b = broker_cls(tag).start()
    # The state directories of an earlier run would be restored from.
    work = os.path.join(WORK, "kafka-streams-" + b.name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        for step in STEPS:
            if os.environ.get("KC_TEST_STREAMS_STEP") in (None, "", step.__name__):
                step(work, b)
    except BaseException:
        print("---- %s log tail" % b.name)
        print(b.logs()[-20000:])
        raise
    finally:
        b.cleanup()


# groups_tool before topology_description: kafka-streams-groups --list then
# shows the same groups on both brokers (kcoord runs two more after it).
STEPS = [lifecycle, static_members, groups_tool, topology_description, initial_delay,
         compacted_changelog]


def main():
    only = os.environ.get("KC_TEST_STREAMS_BROKER")
    if only in (None, "", "kcoord"):
        run_on(sa.KcoordBroker, "kcoord")
    if only in (None, "", "kafka"):
        run_on(sa.ReferenceBroker, "kafka")
    if "kcoord" in DESCRIPTIONS and "kafka" in DESCRIPTIONS:
        assert DESCRIPTIONS["kcoord"] == DESCRIPTIONS["kafka"], DESCRIPTIONS
    if "kcoord" in TOOL and "kafka" in TOOL:
        for args in TOOL["kafka"]:
            assert TOOL["kcoord"][args] == TOOL["kafka"][args], (
                "kafka-streams-groups %s:\nkcoord %s\nkafka %s"
                % (args, TOOL["kcoord"][args], TOOL["kafka"][args]))
    if "kcoord" in DELAYED and "kafka" in DELAYED:
        assert DELAYED["kcoord"] == DELAYED["kafka"], DELAYED
    if only:
        print(json.dumps({"descriptions": DESCRIPTIONS, "tool": TOOL, "delayed": DELAYED},
                         indent=1))


if __name__ == "__main__":
    run(main)
