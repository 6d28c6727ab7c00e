# SPDX-License-Identifier: Apache-2.0
"""kafka-consumer-groups (ConsumerGroupCommand of kafka-tools 4.4.0) on
kcoord and on Kafka 4.4.0: the same commands print the same output.

Both brokers run side by side with the same topics (3 partitions and 1,
four records a partition) and the same groups, named after this run: a
classic group with one member and a consumer-protocol group with one
member (java/AdminCheck.java `hold`, each having committed offset P+1 of
partition P), and a group without members that --reset-offsets makes.
Each command runs on both brokers at once, and its exit code and output
(member ids and the broker's address replaced by names, runs of spaces
collapsed) must be Kafka's:

- --list, with --state and with --type consumer;
- --describe of the live groups: the offsets (default), --members
  --verbose, --state (--verbose), --offsets --verbose; a missing group;
- --reset-offsets --to-earliest, --to-offset, --shift-by, each --dry-run
  then --execute, on the empty group; --to-datetime (before every
  record), --to-latest, --to-current --export; a reset of
  each live group (refused while it is active); --list --state Empty;
  --describe --offsets of the reset group;
- --delete-offsets of a partition of the empty group and of the live
  groups' subscribed topics (refused);
- --delete of a live group (refused), of the empty group and of a missing
  one;
- once both members left: --describe --state --verbose of the empty
  groups, a --shift-by reset of the consumer group,
  --delete of both at once, --list.

kafka-streams-groups is compared in test_kafka_streams.py. It needs what
the conformance suite needs: a JDK and Kafka's jars (Maven).
"""

import os
import re
import threading
import time

import java_tools as jt
import kafka_wire as kw
from kcoord_harness import run

MAIN = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
# The random part of a classic member id (client id, "-", a UUID).
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def produce(broker, topic, partitions, per_partition):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all"})
    errors = []
    for part in range(partitions):
        for i in range(per_partition):
            p.produce(topic, value=b"v%d" % i, partition=part,
                      on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert p.flush(jt.DEADLINE_S) == 0 and not errors, errors


def member_ids(broker, group):
    """The member ids of a consumer-protocol group (ConsumerGroupDescribe)."""
    with kw.Conn(broker.port) as c:
        return list(kw.consumer_group_describe(c, [group])["groups"][group]["members"])


def normalise(broker, out):
    out = out.replace(broker.bootstrap, "BROKER")
    out = UUID.sub("UUID", out)
    for m in broker.member_ids:
        out = out.replace(m, "MEMBER-ID")
    return [" ".join(line.split()) for line in out.rstrip("\n").split("\n")]


def tool(broker, args):
    rc, out = jt.tool(MAIN, broker.bootstrap, args)
    return ["exit %d" % rc] + normalise(broker, out)


def on_both(brokers, args):
    """Runs one command on both brokers at once; returns {name: lines}."""
    got = {}

    def one(name, b):
        got[name] = tool(b, args)
    threads = [threading.Thread(target=one, args=(n, b)) for n, b in brokers.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return got


def main():
    p = "cg%d" % (os.getpid() % 100000)
    t3, t1 = p + "-t3", p + "-t1"
    classic, consumer, reset, missing = p + "-classic", p + "-consumer", p + "-reset", p + "-missing"
    jt.classes_dir()
    ref = jt.reference("groups-tool")
    k = jt.kcoord("groups-tool")
    holds = []
    try:
        ref.start()
        k.start()
        brokers = {"kafka": ref, "kcoord": k}
        for b in brokers.values():
            jt.create_topics(b.port, {t3: 3, t1: 1})
            produce(b, t3, 3, 4)
            produce(b, t1, 1, 4)
            holds.append(jt.Hold(b.bootstrap, classic, t3, "classic"))
            holds.append(jt.Hold(b.bootstrap, consumer, t1, "consumer"))
        for h in holds:
            h.wait_assigned()
        for b in brokers.values():
            b.member_ids = member_ids(b, consumer)
            assert len(b.member_ids) == 1, b.member_ids

        commands = [
            ["--list"],
            ["--list", "--state"],
            ["--list", "--type", "consumer"],
            ["--describe", "--group", classic],
            ["--describe", "--group", classic, "--members", "--verbose"],
            ["--describe", "--group", classic, "--state", "--verbose"],
            ["--describe", "--group", consumer],
            ["--describe", "--group", consumer, "--members", "--verbose"],
            ["--describe", "--group", consumer, "--state", "--verbose"],
            ["--describe", "--group", consumer, "--offsets", "--verbose"],
            ["--describe", "--group", missing],
        ]
        for mode in ("--dry-run", "--execute"):
            commands.append(["--reset-offsets", "--group", reset, "--topic", t3, "--to-earliest", mode])
        for mode in ("--dry-run", "--execute"):
            commands.append(["--reset-offsets", "--group", reset, "--all-topics", "--to-offset", "3",
                             mode])
        for mode in ("--dry-run", "--execute"):
            commands.append(["--reset-offsets", "--group", reset, "--topic", t3 + ":1,2",
                             "--shift-by", "-2", mode])
        commands += [
            ["--reset-offsets", "--group", reset, "--topic", t3, "--to-datetime",
             "2000-01-01T00:00:00.000", "--dry-run"],
            ["--reset-offsets", "--group", reset, "--topic", t3 + ":0", "--to-latest", "--execute"],
            ["--reset-offsets", "--group", reset, "--all-topics", "--to-current", "--export",
             "--dry-run"],
            ["--reset-offsets", "--group", classic, "--topic", t3, "--to-earliest", "--execute"],
            ["--reset-offsets", "--group", consumer, "--topic", t1, "--to-offset", "0", "--execute"],
            ["--list", "--state", "Empty"],
            ["--describe", "--group", reset, "--offsets"],
            ["--delete-offsets", "--group", reset, "--topic", t3 + ":0"],
            ["--delete-offsets", "--group", classic, "--topic", t3],
            ["--delete-offsets", "--group", consumer, "--topic", t1],
            ["--describe", "--group", reset],
            ["--delete", "--group", classic],
            ["--delete", "--group", reset],
            ["--delete", "--group", missing],
        ]
        # Then the members leave (both dynamic): the groups are Empty.
        after_leave = [
            ["--describe", "--group", classic, "--state", "--verbose"],
            ["--describe", "--group", consumer, "--state", "--verbose"],
            ["--reset-offsets", "--group", consumer, "--topic", t1, "--shift-by", "2", "--execute"],
            ["--delete", "--group", classic, "--group", consumer],
            ["--list"],
        ]
        t0 = time.monotonic()
        kafka_out, kcoord_out = [], []
        for args in commands + [None] + after_leave:
            if args is None:
                for h in holds:
                    h.close()
                holds = []
                continue
            got = on_both(brokers, args)
            kafka_out += ["$ " + " ".join(args)] + got["kafka"]
            kcoord_out += ["$ " + " ".join(args)] + got["kcoord"]
        commands += after_leave
        print("%d commands on both brokers in %.1f s; Kafka's output:" % (
            len(commands), time.monotonic() - t0))
        print("\n".join(kafka_out))
        jt.compare("kafka-consumer-groups", kcoord_out, kafka_out)
        # The commands must have reached the groups.
        joined = "\n".join(kafka_out)
        for must in (classic + " " + t3 + " 2 3 4 1", "MEMBER-ID", "Stable", "inactive",
                     reset + " " + t3 + " 1 1", "Deletion of requested consumer groups ('%s') was "
                     "successful." % reset):
            assert must in joined, (must, joined)
    finally:
        for h in holds:
            h.proc.kill()
        ref.cleanup()
        k.stop()
        k.check_sanitizers()
        k.cleanup()
    print("kafka-consumer-groups: %d commands alike" % len(commands))


if __name__ == "__main__":
    run(main)
