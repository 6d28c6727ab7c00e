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
- --describe of the live groups: the offsets (default), --members,
  --members --verbose, --state, --state --verbose, --offsets --verbose;
  a missing group;
- --reset-offsets --to-earliest, --to-offset, --shift-by, each --dry-run
  then --execute, on the empty group; a reset of the live classic group
  (refused while it is active); --describe --offsets of the reset group;
- --delete-offsets of a partition of the empty group and of the live
  group's subscribed topic (refused);
- --delete of the live group (refused), of the empty group and of a missing
  one; --list after.

kafka-streams-groups is compared in test_kafka_streams.py. It needs what
the conformance suite needs: a JDK and Kafka's jars (Maven).
"""

import os
import re
import threading
import time

import java_tools as jt
import streams_app
from kcoord_harness import run

MAIN = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# A KIP-848 member id: a Uuid in URL-safe base64, 22 characters.
MEMBER_ID = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])")


def produce(broker, topic, partitions, per_partition):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all"})
    errors = []
    for part in range(partitions):
        for i in range(per_partition):
            p.produce(topic, value=b"v%d" % i, partition=part,
                      on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert p.flush(jt.DEADLINE_S) == 0 and not errors, errors


def normalise(broker, out):
    out = out.replace(broker.bootstrap, "BROKER")
    out = UUID.sub("UUID", out)
    out = MEMBER_ID.sub("MEMBER-ID", out)
    return [" ".join(line.split()) for line in out.rstrip("\n").split("\n")]


def tool(broker, args):
    rc, out = streams_app._tool(MAIN, broker, args)
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

        commands = [
            ["--list"],
            ["--list", "--state"],
            ["--list", "--type", "consumer"],
            ["--describe", "--group", classic],
            ["--describe", "--group", classic, "--members", "--verbose"],
            ["--describe", "--group", classic, "--state", "--verbose"],
            ["--describe", "--group", consumer],
            ["--describe", "--group", consumer, "--members"],
            ["--describe", "--group", consumer, "--members", "--verbose"],
            ["--describe", "--group", consumer, "--state"],
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
            ["--reset-offsets", "--group", classic, "--topic", t3, "--to-earliest", "--execute"],
            ["--describe", "--group", reset, "--offsets"],
            ["--delete-offsets", "--group", reset, "--topic", t3 + ":0"],
            ["--delete-offsets", "--group", classic, "--topic", t3],
            ["--describe", "--group", reset],
            ["--delete", "--group", classic],
            ["--delete", "--group", reset],
            ["--delete", "--group", missing],
            ["--list"],
        ]
        t0 = time.monotonic()
        kafka_out, kcoord_out = [], []
        for args in commands:
            got = on_both(brokers, args)
            kafka_out += ["$ " + " ".join(args)] + got["kafka"]
            kcoord_out += ["$ " + " ".join(args)] + got["kcoord"]
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
        for h in holds:
            h.close()
        holds = []
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
