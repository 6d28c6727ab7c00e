# SPDX-License-Identifier: Apache-2.0
"""Kafka's Java KafkaConsumer 4.4.0 with group.protocol=consumer (KIP-848)
on kcoord and on the reference Kafka 4.4.0, compared.

Each scenario of java/ConsumerProtocolCheck.java (compiled once with javac
against the reference classpath) runs in one JVM against each broker, its
consumers threads sharing one ownership ledger fed by their
ConsumerRebalanceListeners. What a scenario observes prints as RESULT lines
free of ids, hosts and ports; they must be the same on both brokers, and
they must say what Kafka is known to do (checked below), so that a
scenario where both brokers went wrong fails too:

- assignors: `uniform` and `range` (group.remote.assignor) on two topics,
  one to three members and one leaving, on the same and on different
  subscriptions; range exactly (as a function of the member ids' order),
  uniform by its balance and stickiness; the group's assignor when its
  members ask for different ones; an unknown assignor's error;
- scale: one, three, one consumer on 8 partitions (uniform, then range),
  never a partition with two owners, every partition owned at each step;
- regex: SubscriptionPattern (resolved by the coordinator) and Pattern
  (resolved by the client) pick up a topic Admin creates meanwhile, share
  a group with a member subscribed by name, and let the topic go once it
  is deleted;
- static: a static member closed and back within its session gets its
  partitions back, the other member's epoch and assignment untouched;
  while it is away its partitions stay reserved for it when its partner
  leaves and a newcomer joins;
- commit: commitSync in onPartitionsRevoked when a member joins and when
  it closes, before every poll while a member joins, and for a partition
  another member holds; where the next owner starts reading;
- mixed: a classic member and a consumer-protocol member in one group
  (online upgrade, then downgrade when the latter leaves), and a static
  classic member restarted next to a consumer-protocol one.

Group and member epochs are compared as values where only consumer-protocol
members take part; with a classic member Kafka bumps the group epoch once
more or not depending on how the classic JoinGroups and the other member's
heartbeats interleave, so there the test compares whether the epochs
settled together and how they moved.

It needs what the conformance suite needs: a JDK and Kafka's jars (Maven).
"""

import concurrent.futures
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "reference"))

import reference_kafka  # noqa: E402
from kcoord_harness import DEFAULT_OVERRIDES, Kcoord, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "java", "ConsumerProtocolCheck.java")
SCENARIOS = ["assignors", "scale", "regex", "static", "commit", "mixed"]

# Both brokers: kcoord's test settings, consumer-group heartbeats every
# half second, no topic created by a Metadata request.
SETTINGS = dict(DEFAULT_OVERRIDES)
SETTINGS.update({
    "group.consumer.heartbeat.interval.ms": "500",
    "auto.create.topics.enable": "false",
})


def compile_program(work):
    """Compiles the program into work/java-consumer-classes, next to a
    log4j configuration sending the clients' INFO logs to stderr; returns
    that directory."""
    out = os.path.join(work, "java-consumer-classes")
    os.makedirs(out, exist_ok=True)
    javac = os.path.join(os.path.dirname(reference_kafka.java()), "javac")
    p = subprocess.run([javac, "-Xlint:all", "-Werror", "-d", out, "-cp",
                        reference_kafka.classpath(), SOURCE],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    assert p.returncode == 0, "javac failed:\n" + p.stdout.decode("utf-8", "replace")
    with open(os.path.join(out, "log4j.properties"), "w", encoding="utf-8") as f:
        f.write("log4j.rootLogger=INFO, err\n"
                "log4j.appender.err=org.apache.log4j.ConsoleAppender\n"
                "log4j.appender.err.Target=System.err\n"
                "log4j.appender.err.layout=org.apache.log4j.PatternLayout\n"
                "log4j.appender.err.layout.ConversionPattern=[%d] %p [%t] %m (%c)%n\n")
    return out


def scenario(classes, work, broker, bootstrap, name):
    """Runs one scenario against one broker (its clients' logs in
    work/java-consumer-BROKER-NAME.log); returns its RESULT lines as
    {key: value}."""
    log = os.path.join(work, "java-consumer-%s-%s.log" % (broker, name))
    with open(log, "wb") as err:
        p = subprocess.run([reference_kafka.java(), "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
                            "-Dlog4j.configuration=file:" + os.path.join(classes,
                                                                         "log4j.properties"),
                            "-cp", classes + ":" + reference_kafka.classpath(),
                            "ConsumerProtocolCheck", name, bootstrap, "jc-" + name],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                           timeout=300)
    out = p.stdout.decode("utf-8", "replace").split("\n")

    def tail():
        with open(log, "rb") as f:
            return f.read()[-6000:].decode("utf-8", "replace")
    violations = [ln for ln in out if ln.startswith("VIOLATION ")]
    assert not violations, "%s on %s: %s" % (name, broker, violations)
    assert p.returncode == 0, "%s on %s failed (%d):\n%s\n%s" % (
        name, broker, p.returncode, "\n".join(out), tail())
    results = {}
    for ln in out:
        if ln.startswith("RESULT "):
            _, key, value = ln.split(" ", 2)
            results[key] = value
    print("%s on %s: %s" % (name, broker, results))
    return results


def tps(topic, n):
    return ",".join("%s-%d" % (topic, i) for i in range(n))


# What Kafka 4.4 is known to do, on top of kcoord and Kafka agreeing.
EXPECTED = {
    "assignors": {
        "uniform.1.assignor": "uniform", "uniform.1.counts": "[9]",
        "uniform.2.counts": "[4, 5]", "uniform.2.sticky": "true",
        "uniform.3.counts": "[3, 3, 3]", "uniform.3.sticky": "true",
        "uniform.2.shrunk.counts": "[4, 5]", "uniform.2.shrunk.sticky": "true",
        "range.1.assignor": "range",
        "range.1.by_member_id": "[%s,%s]" % (tps("jc-assignors-x", 6), tps("jc-assignors-y", 3)),
        "range.2.by_member_id": "[jc-assignors-x-0,jc-assignors-x-1,jc-assignors-x-2,"
                                "jc-assignors-y-0,jc-assignors-y-1] "
                                "[jc-assignors-x-3,jc-assignors-x-4,jc-assignors-x-5,"
                                "jc-assignors-y-2]",
        "votes.1": "range", "votes.3": "uniform",
        "unknown_assignor": "UnsupportedAssignorException: ServerAssignor nope is not "
                            "supported. Supported assignors: uniform, range.",
        "hetero.uniform.3": "h0:x3y0 h1:x0y3 h2:x3y0",
        "hetero.range.3": "[jc-assignors-x-0,jc-assignors-x-1,jc-assignors-x-2] "
                          "[jc-assignors-x-3,jc-assignors-x-4,jc-assignors-x-5] | "
                          "[jc-assignors-y-0,jc-assignors-y-1] [jc-assignors-y-2]",
        "range.3.by_member_id": "[jc-assignors-x-0,jc-assignors-x-1,jc-assignors-y-0] "
                                "[jc-assignors-x-2,jc-assignors-x-3,jc-assignors-y-1] "
                                "[jc-assignors-x-4,jc-assignors-x-5,jc-assignors-y-2]",
    },
    "scale": {
        "one.counts": "[8]", "three.counts": "[2, 3, 3]",
        "one_again.owned": "[%s]" % tps("T-t", 8), "records_seen": "16",
        "range.one.counts": "[8]", "range.three.counts": "[2, 3, 3]",
        "range.one_again.owned": "[%s]" % tps("T-t", 8), "range.records_seen": "16",
    },
    "regex": {
        "before": "[{0}] [{0}]".format(tps("jc-regex-rx-a", 2)),
        "after": "[{0},{1}] [{0},{1}]".format(tps("jc-regex-rx-a", 2), tps("jc-regex-rx-b", 3)),
        "read": "[{0}] [{0}]".format(tps("jc-regex-rx-b", 3)),
        "with_named": "regex:[%s] named:[%s]" % (tps("jc-regex-rx-b", 3),
                                                 tps("jc-regex-rx-a", 2)),
        "deleted": "[{0}] [{0}]".format(tps("jc-regex-rx-a", 2)),
        "invalid_regex": "InvalidRegularExpression: Invalid RE2J SubscriptionPattern provided in "
                         "the call to subscribe. SubscribedTopicRegex `(unclosed` is not a valid "
                         "regular expression: missing closing ).",
    },
    "static": {
        "split": "[{0}-0,{0}-1,{0}-2] [{0}-3,{0}-4,{0}-5]".format("jc-static-t"), "back.same_partitions": "true",
        "same_instance_id": "UnreleasedInstanceIdException: Static member <id> with instance id "
                            "i0 cannot join the group because the instance id is owned by <id> "
                            "member.",
        "closed.s1_assignment_kept": "true",
        "away.newcomer": "3 of 6 (target 3), 2 members, Reconciling, kept for s: true",
        "away.back": "true [3, 3]",
        "other.epoch_unchanged": "true", "other.generation_unchanged": "true",
        "other.assignment_unchanged": "true", "other.callbacks": "[]",
    },
    "commit": {
        "c1.first_offsets": "[5, 5]",
        "join.commits": "[c0:2:ok]", "join.commits_before_polls": "[ok]",
        "committed_after_join": "[5, 5, 5, 5]", "foreign_commit": "ok [1, 5, 5, 5]",
        "close.commits": "[c1:2:ok]", "committed_after_close": "[5, 5, 6, 6]",
    },
    "mixed": {
        "eager.first.type": "Classic", "eager.mixed.type": "Consumer",
        "eager.mixed.counts": "[2, 2]", "eager.mixed.upgraded": "Optional[false] Optional[true]",
        "eager.mixed.commits": "[classic:4:ok]", "eager.after.type": "Classic",
        "eager.after.owned": "[%s]" % tps("jc-mixed-eager-t", 4),
        "coop.first.type": "Classic", "coop.mixed.type": "Consumer",
        "coop.mixed.counts": "[2, 2]", "coop.mixed.commits": "[classic:2:ok]",
        "coop.after.type": "Classic", "coop.after.assignor": "cooperative-sticky",
        "coop.after.owned": "[%s]" % tps("jc-mixed-coop-t", 4),
        "late.first.type": "Consumer", "late.mixed.type": "Consumer",
        "late.mixed.counts": "[2, 2]", "late.mixed.upgraded": "Optional[false] Optional[true]",
        "late.after.type": "Classic", "late.after.owned": "[%s]" % tps("jc-mixed-late-t", 4),
        "static.split": "[2, 2]", "static.closed.members": "2",
        "static.back.same_partitions": "true", "static.other.unchanged": "true",
        "static.epochs_aligned": "true", "static.back.epochs_unchanged": "true",
        "eager.mixed.epochs_aligned": "true", "coop.mixed.epochs_aligned": "true",
        "late.mixed.epochs_aligned": "true",
        "static.other.callbacks": "[]",
    },
}


def main():
    work = os.environ.get("KC_TEST_WORK") or os.getcwd()
    got = {"kcoord": {}, "kafka": {}}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        compiled = pool.submit(compile_program, work)  # while the reference starts
        with Kcoord("java_consumer_protocol", SETTINGS) as k, \
                reference_kafka.ReferenceKafka("java-consumer", SETTINGS) as ref:
            classes = compiled.result()
            # each scenario on both brokers at once: the two runs share nothing
            for name in SCENARIOS:
                runs = {broker: pool.submit(scenario, classes, work, broker, bootstrap, name)
                        for broker, bootstrap in (("kcoord", k.bootstrap),
                                                  ("kafka", ref.bootstrap))}
                for broker, run_ in runs.items():
                    got[broker][name] = run_.result()

    failures = []
    for name in SCENARIOS:
        kc, kafka = got["kcoord"][name], got["kafka"][name]
        for key in sorted(set(kc) | set(kafka)):
            if kc.get(key) != kafka.get(key):
                failures.append("%s %s: kcoord %r, Kafka %r" % (name, key, kc.get(key),
                                                                kafka.get(key)))
        for key, value in EXPECTED[name].items():
            if kafka.get(key) != value:
                failures.append("%s %s: Kafka gave %r, expected %r" % (name, key,
                                                                       kafka.get(key), value))
    assert not failures, "\n".join(failures)
    print("the Java consumer saw the same groups on kcoord and on Kafka 4.4")


if __name__ == "__main__":
    run(main)
