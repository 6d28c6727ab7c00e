# SPDX-License-Identifier: Apache-2.0
"""Kafka 4.4's Java Admin client and command-line tools against kcoord and
the reference Kafka 4.4.0, for test_java_admin.py and
test_consumer_groups_tool.py.

- `kcoord()`, `reference()`: the two brokers with the same settings;
  `create_topics()` waits until both would see the topics.
- `admin_check()`, `Hold`: java/AdminCheck.java, compiled once with javac
  against the reference classpath, run to completion or held in the
  background.
- `tool()`: a command-line tool of kafka-tools 4.4.0.
- `compare()`: two outputs, line by line, with a readable difference.
"""

import difflib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))

import kafka_wire as kw  # noqa: E402
import reference_kafka  # noqa: E402
from kcoord_harness import Kcoord, wait_for  # noqa: E402

SOURCE = os.path.join(HERE, "java", "AdminCheck.java")
DEADLINE_S = 180.0

# Both brokers: kcoord's test defaults, on Kafka too, and no initial delay
# for streams groups.
SETTINGS = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "500",
    "group.max.session.timeout.ms": "300000",
    "group.consumer.min.heartbeat.interval.ms": "100",
    "group.streams.min.heartbeat.interval.ms": "100",
    "group.streams.min.session.timeout.ms": "1000",
    "group.streams.initial.rebalance.delay.ms": "0",
    # The reference broker's own setting (tests/reference), named on kcoord too.
    "log.flush.interval.messages": "9223372036854775807",
}


class _Kcoord(Kcoord):
    """kcoord without conf/kcoord.conf: that file names every property with
    its default, which DescribeConfigs would then report as static broker
    configs where Kafka, with only SETTINGS in its server.properties,
    reports defaults."""

    def command(self):
        cmd = super().command()
        if "--config" in cmd:
            i = cmd.index("--config")
            del cmd[i:i + 2]
        return cmd


def kcoord(tag):
    return _Kcoord("java-%s" % tag, SETTINGS)


def create_topics(port, topics):
    """topics: {name: partitions}; waits until Metadata gives each partition
    its leader (Kafka's coordinator sees a topic once the broker's metadata
    has it)."""
    with kw.Conn(port) as c:
        created = kw.create_topics(c, topics)["topics"]
        assert all(v[0] == 0 for v in created.values()), created

        def led():
            md = kw.metadata_v1(c, list(topics))["topics"]
            return all(md[t]["error_code"] == 0 and len(md[t]["partitions"]) == n
                       and all(p["leader"] >= 0 for p in md[t]["partitions"])
                       for t, n in topics.items())
        wait_for(led, DEADLINE_S, "the topics %s led" % sorted(topics))


def reference(tag):
    return reference_kafka.ReferenceKafka("java-%s" % tag, SETTINGS)


_compiled = {}


def classes_dir():
    """Compiles AdminCheck.java (once per run) into the work directory."""
    if "dir" not in _compiled:
        out = os.path.join(os.environ["KC_TEST_WORK"], "java-admin-classes")
        os.makedirs(out, exist_ok=True)
        javac = os.path.join(os.path.dirname(reference_kafka.java()), "javac")
        p = subprocess.run([javac, "-Xlint:all", "-Werror", "-d", out, "-cp",
                            reference_kafka.classpath(), SOURCE],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        assert p.returncode == 0, "javac failed:\n" + p.stdout.decode("utf-8", "replace")
        _compiled["dir"] = out
    return _compiled["dir"]


# Short-lived JVMs: the client compiler only, the serial collector.
JVM = ["-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]


def _command(args):
    return [reference_kafka.java()] + JVM + [
        "-Dlog4j.configuration=file:" + quiet_log4j(),
        "-cp", classes_dir() + ":" + reference_kafka.classpath(), "AdminCheck"] + \
        [str(a) for a in args]


def tool(main_class, bootstrap, args):
    """One of Kafka's command-line tools (kafka-tools 4.4.0) run through its
    main class, its own logging off: (exit code, output)."""
    cmd = [reference_kafka.java()] + JVM + [
        "-Dlog4j.configuration=file:" + quiet_log4j(), "-cp", reference_kafka.classpath(),
        main_class, "--bootstrap-server", bootstrap] + list(args)
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=DEADLINE_S)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def admin_check(*args):
    """Runs one AdminCheck command to its end; returns its output lines."""
    p = subprocess.run(_command(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=DEADLINE_S)
    out = p.stdout.decode("utf-8", "replace")
    assert p.returncode == 0, "%s failed (%d):\n%s\n%s" % (
        args[0], p.returncode, out, p.stderr.decode("utf-8", "replace")[-3000:])
    return out.rstrip("\n").split("\n")


class Hold:
    """AdminCheck hold: a consumer kept in its group until close()."""

    def __init__(self, bootstrap, group, topic, protocol, instance="-"):
        self.group = group
        self.proc = subprocess.Popen(_command(["hold", bootstrap, group, topic, protocol,
                                               instance]),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)

    def wait_assigned(self):
        """Waits until the consumer owns its partitions and committed."""
        line = self.proc.stdout.readline().decode("utf-8", "replace")
        if not line.startswith("assigned "):
            self.proc.kill()
            raise AssertionError("hold of %s: %r %s" % (self.group, line,
                                 self.proc.stderr.read().decode("utf-8", "replace")[-3000:]))

    def close(self):
        self.proc.stdin.close()
        rest = self.proc.stdout.read().decode("utf-8", "replace")
        assert self.proc.wait(timeout=DEADLINE_S) == 0 and "closed" in rest, rest


def quiet_log4j():
    path = os.path.join(os.environ["KC_TEST_WORK"], "java-admin-log4j.properties")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("log4j.rootLogger=OFF\n")
    return path


def compare(what, kcoord_lines, kafka_lines):
    """Asserts kcoord's lines equal Kafka's, showing the difference."""
    if kcoord_lines != kafka_lines:
        diff = "\n".join(difflib.unified_diff(kafka_lines, kcoord_lines, "kafka", "kcoord",
                                              lineterm=""))
        raise AssertionError("%s: kcoord differs from Kafka 4.4:\n%s" % (what, diff))
