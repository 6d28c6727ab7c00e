# SPDX-License-Identifier: Apache-2.0
"""Kafka Streams 4.4.0 applications for the integration tests, and the two
brokers they run against: kcoord, and the reference Kafka 4.4.0 of the
conformance suite.

- `Broker`: kcoord (`KcoordBroker`, started by kcoord_harness) or Kafka
  (`ReferenceBroker`, tests/reference/reference_kafka.py), with the same
  group settings; both can be SIGKILLed and restarted on their data.
- `WordCount`: one instance of streams/WordCount.java (compiled once with
  javac against the reference classpath), its stdout read into its state
  changes.
- `Words`: the input (a produced line is counted once acknowledged) and the
  output (the latest count per word) of one application, read with
  confluent-kafka (librdkafka).
- `describe()`: the group as StreamsGroupDescribe gives it (raw protocol).
"""

import collections
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))

import reference_kafka  # noqa: E402
import kafka_wire as kw  # noqa: E402
from kcoord_harness import Kcoord, wait_for  # noqa: E402

SOURCE = os.path.join(HERE, "streams", "WordCount.java")

# Generous: a JVM start, a rebalance and a restore on a loaded 2-core machine.
DEADLINE_S = 120.0

# The group settings both brokers run with: Kafka's defaults, but sessions
# of 20 s (a killed instance leaves in a test's time) and heartbeats every
# second. The initial rebalance delay keeps Kafka's default, 3 s.
SESSION_MS = 20000
GROUP_SETTINGS = {
    "group.streams.session.timeout.ms": str(SESSION_MS),
    "group.streams.min.session.timeout.ms": "1000",
    "group.streams.heartbeat.interval.ms": "1000",
    "group.streams.min.heartbeat.interval.ms": "100",
    "auto.create.topics.enable": "false",
}


class KcoordBroker:
    """kcoord with GROUP_SETTINGS and the test topology-description store."""
    name = "kcoord"

    def __init__(self, tag):
        ov = dict(GROUP_SETTINGS)
        ov["group.streams.topology.description.plugin"] = os.environ["KC_TEST_TOPOLOGY_STORE"]
        self.k = Kcoord("streams-%s" % tag, ov)

    def start(self):
        self.k.start()
        return self

    @property
    def bootstrap(self):
        return self.k.bootstrap

    @property
    def port(self):
        return self.k.port

    def kill_restart(self, env=None):
        """SIGKILL, then start again on the same data (env: the store's
        misbehaviour for the new process, KC_TEST_STORE_*)."""
        self.k.kill()
        self.k.extra_env = dict(env or {})
        self.k.start()

    def alive(self):
        return self.k.proc is not None and self.k.proc.poll() is None

    def wait_exit(self, code, what):
        wait_for(lambda: self.k.proc.poll() is not None, DEADLINE_S, what)
        rc = self.k.proc.returncode
        self.k.proc = None
        assert rc == code, "kcoord exited with %s, expected %s" % (rc, code)

    def cleanup(self):
        self.k.stop()
        self.k.check_sanitizers()
        self.k.cleanup()

    def logs(self):
        return self.k.stderr_text()


class ReferenceBroker:
    """Kafka 4.4.0 with GROUP_SETTINGS and its in-memory topology-description
    plugin."""
    name = "kafka"

    def __init__(self, tag):
        settings = dict(GROUP_SETTINGS)
        settings["group.streams.topology.description.plugin.class"] = \
            "org.apache.kafka.server.streams.InMemoryTopologyDescriptionPlugin"
        self.r = reference_kafka.ReferenceKafka("streams-%s" % tag, settings)

    def start(self):
        self.r.start()
        return self

    @property
    def bootstrap(self):
        return self.r.bootstrap

    @property
    def port(self):
        return self.r.port

    def kill_restart(self, env=None):
        assert not env
        self.r.kill()
        self.r.restart_after_kill()

    def cleanup(self):
        self.r.cleanup()

    def logs(self):
        return self.r.log_tail(20000)


_compiled = {}


def classes_dir(work):
    """Compiles WordCount.java (once per run) into work/streams-classes."""
    if "dir" not in _compiled:
        out = os.path.join(work, "streams-classes")
        os.makedirs(out, exist_ok=True)
        javac = os.path.join(os.path.dirname(reference_kafka.java()), "javac")
        p = subprocess.run([javac, "-Xlint:all", "-Werror", "-d", out, "-cp",
                            reference_kafka.classpath(), SOURCE],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        assert p.returncode == 0, "javac failed:\n" + p.stdout.decode("utf-8", "replace")
        _compiled["dir"] = out
    return _compiled["dir"]


class WordCount:
    """One instance of the word count. configs: Streams configs on top of
    the application's (application.id, bootstrap.servers, state.dir,
    client.id are given here)."""

    def __init__(self, work, broker, app_id, name, input_topic, output_topic, configs=None):
        self.work, self.broker, self.name = work, broker, name
        self.state_dir = os.path.join(work, "state", app_id, name)
        self.configs = {"application.id": app_id, "client.id": name,
                        "state.dir": self.state_dir, "input": input_topic,
                        "output": output_topic}
        self.configs.update(configs or {})
        self.proc = None
        self.lines = []
        self.cond = threading.Condition()
        self.starts = 0

    def start(self):
        assert self.proc is None
        self.starts += 1
        self.configs["bootstrap.servers"] = self.broker.bootstrap
        log4j = os.path.join(self.work, "streams-log4j.properties")
        if not os.path.exists(log4j):
            with open(log4j, "w", encoding="utf-8") as f:
                f.write("log4j.rootLogger=INFO, err\n"
                        "log4j.appender.err=org.apache.log4j.ConsoleAppender\n"
                        "log4j.appender.err.Target=System.err\n"
                        "log4j.appender.err.layout=org.apache.log4j.PatternLayout\n"
                        "log4j.appender.err.layout.ConversionPattern=[%d] %p %m (%c)%n\n")
        self.stderr_path = os.path.join(self.work, "streams-%s-%s-%d.log" % (
            self.broker.name, self.name, self.starts))
        cmd = [reference_kafka.java(), "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
               "-Dlog4j.configuration=file:" + log4j,
               "-cp", classes_dir(self.work) + ":" + reference_kafka.classpath(), "WordCount"]
        cmd += ["%s=%s" % kv for kv in sorted(self.configs.items())]
        with self.cond:
            self.lines = []
        err = open(self.stderr_path, "wb")
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, start_new_session=True)
        finally:
            err.close()
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        return self

    def _read(self, proc):
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.cond:
                if proc is self.proc:
                    self.lines.append(line)
                self.cond.notify_all()

    def states(self):
        with self.cond:
            return [ln.split()[2] for ln in self.lines if ln.startswith("STATE ")]

    def state(self):
        states = self.states()
        return states[-1] if states else "CREATED"

    def errors(self):
        with self.cond:
            return [ln for ln in self.lines if ln.startswith("ERROR ")]

    def wait_running(self):
        wait_for(lambda: self._alive() and self.state() == "RUNNING", DEADLINE_S,
                 "%s RUNNING on %s" % (self.name, self.broker.name), state=self.log_tail)

    def _alive(self):
        if self.proc.poll() is not None:
            raise AssertionError("%s exited with %d:\n%s" % (self.name, self.proc.returncode,
                                                            self.log_tail()))
        return True

    def close(self):
        """Closes the application (KafkaStreams.close: a dynamic member leaves
        the group, a static one stays until its session ends)."""
        self.proc.stdin.write(b"close\n")
        self.proc.stdin.flush()
        rc = self.proc.wait(timeout=DEADLINE_S)
        assert rc == 0, "%s exited with %d:\n%s" % (self.name, rc, self.log_tail())
        self.proc = None

    def kill(self):
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc = None

    def log_tail(self, n=6000):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""


def admin(broker):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def create_topics(broker, topics):
    """topics: {name: partitions}; waits until each is created."""
    from confluent_kafka.admin import NewTopic
    a = admin(broker)  # the futures fail once the client is gone
    fs = a.create_topics([NewTopic(t, p, 1) for t, p in topics.items()])
    for f in fs.values():
        f.result(timeout=DEADLINE_S)


VOCABULARY = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
              "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"]


class Words:
    """The input and the output of one word count application.

    expected: every word's count over the acknowledged input lines;
    isolation: the output reader's isolation.level (librdkafka's default,
    read_committed, unless given). allowed:
    how far a count may exceed it, which is at-least-once's doing only
    across a crash: the words of every line produced before the last crash
    (mark_crash) may be counted twice."""

    def __init__(self, broker, input_topic, output_topic, isolation="read_committed"):
        from confluent_kafka import Consumer, Producer, TopicPartition
        self.broker = broker
        self.input, self.output = input_topic, output_topic
        self.producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all",
                                  "enable.idempotence": True, "linger.ms": 5})
        self.consumer = Consumer({"bootstrap.servers": broker.bootstrap,
                                  "group.id": "reader-" + output_topic,
                                  "enable.auto.commit": False,
                                  "isolation.level": isolation,
                                  "auto.offset.reset": "earliest"})
        self.TopicPartition = TopicPartition
        self.expected = collections.Counter()
        self.allowed = collections.Counter()
        self.latest = {}
        # Every count read per word, in the order of the output.
        self.history = collections.defaultdict(list)
        self.lines = 0
        self.assigned = False

    def produce(self, n, seed):
        """Produces n lines (deterministic for the seed), all acknowledged."""
        acked = []

        def report(err, msg):
            assert err is None, err
            acked.append(msg.value().decode())
        for i in range(n):
            k = self.lines + i
            words = [VOCABULARY[(k * 7 + seed) % len(VOCABULARY)],
                     VOCABULARY[(k * 3 + 2 * seed) % len(VOCABULARY)], "common"]
            self.producer.produce(self.input, key=str(k).encode(), value=" ".join(words).encode(),
                                  on_delivery=report)
            self.producer.poll(0)
        remaining = self.producer.flush(DEADLINE_S)
        assert remaining == 0 and len(acked) == n, (remaining, len(acked), n)
        for line in acked:
            self.expected.update(line.split())
        self.lines += n

    def mark_crash(self):
        self.allowed = collections.Counter(self.expected)

    def _read(self):
        if not self.assigned:
            md = self.consumer.list_topics(self.output, timeout=DEADLINE_S)
            parts = sorted(md.topics[self.output].partitions)
            self.consumer.assign([self.TopicPartition(self.output, p, 0) for p in parts])
            self.parts = parts
            self.assigned = True
        while True:
            msgs = self.consumer.consume(1000, timeout=0.2)
            for m in msgs:
                if m.error():
                    continue
                word, count = m.key().decode(), struct.unpack(">q", m.value())[0]
                self.latest[word] = count
                self.history[word].append(count)
            if not msgs:
                return

    def wait_counted(self):
        """Waits until every word's count reached its expected count, then
        checks that none is above it by more than allowed."""
        def counted():
            self._read()
            return all(self.latest.get(w, 0) >= c for w, c in self.expected.items())
        wait_for(counted, DEADLINE_S, "the counts of %d lines on %s" % (self.lines, self.broker.name),
                 state=lambda: {w: (self.latest.get(w), c) for w, c in self.expected.items()
                                if self.latest.get(w, 0) < c})
        self._read()
        over = {w: (self.latest[w], c, self.allowed[w]) for w, c in self.expected.items()
                if self.latest[w] > c + self.allowed[w]}
        assert not over, "counted more than at-least-once allows (count, expected, allowed): %s" % over
        unknown = set(self.latest) - set(self.expected)
        assert not unknown, unknown
        return {w: self.latest[w] - c for w, c in self.expected.items() if self.latest[w] > c}

    def close(self):
        self.consumer.close()


def count_records(broker, topic):
    """Reads every partition of topic from its start to its high watermark:
    (records read, the sum of the high watermarks)."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "count-" + topic,
                  "enable.auto.commit": False})
    try:
        md = c.list_topics(topic, timeout=DEADLINE_S)
        parts = sorted(md.topics[topic].partitions)
        ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=DEADLINE_S)[1]
                for p in parts}
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts if ends[p] > 0])
        records, pos = 0, {p: 0 for p in parts}
        deadline = time.monotonic() + DEADLINE_S
        while any(pos[p] < ends[p] for p in parts):
            assert time.monotonic() < deadline, ("reading %s" % topic, pos, ends)
            for m in c.consume(10000, timeout=0.5):
                if m.error():
                    continue
                records += 1
                pos[m.partition()] = m.offset() + 1
            # A partition whose last batches were cleaned away ends below
            # its high watermark: its position says where it is.
            for tp in c.position([TopicPartition(topic, p) for p in parts if ends[p] > 0]):
                if tp.offset >= 0:
                    pos[tp.partition] = max(pos[tp.partition], tp.offset)
        return records, sum(ends.values())
    finally:
        c.close()


def describe(broker, group, include_description=False):
    with kw.Conn(broker.port, timeout=30.0) as c:
        return kw.streams_group_describe(c, [group], version=1,
                                         include_topology_description=include_description)["groups"][group]


def all_tasks(partitions, subtopologies=("0", "1")):
    return {(s, p) for s in subtopologies for p in range(partitions)}


def wait_stable(broker, group, clients, partitions):
    """Waits until the group is Stable with exactly these clients (client
    ids) as members, each one's assignment its target, the active tasks
    split among them and each owning at least one; returns the group."""
    seen = {}

    def stable():
        g = describe(broker, group)
        seen["g"] = g
        if g["error_code"] != 0 or g["group_state"] != "Stable":
            return False
        members = list(g["members"].values())
        if sorted(client_of(m) for m in members) != sorted(clients):
            return False
        owned = []
        for m in members:
            if m["assignment"] != m["target_assignment"] or not m["assignment"]["active"]:
                return False
            owned += list(m["assignment"]["active"])
        return sorted(owned) == sorted(all_tasks(partitions))
    wait_for(stable, DEADLINE_S, "group %s Stable with %s on %s" % (group, clients, broker.name),
             state=lambda: seen.get("g"))
    return seen["g"]


def client_of(member):
    """The application's client.id of a member (its consumer's client id
    is "<client.id>-StreamThread-N-consumer")."""
    return member["client_id"].rsplit("-StreamThread", 1)[0]


def member_of(g, client):
    for m in g["members"].values():
        if client_of(m) == client:
            return m
    raise AssertionError("no member of client %s in %s" % (client, g))


def _tool(main_class, broker, args):
    # The tools' own logging off: their output is what they print.
    quiet = os.path.join(tempfile.gettempdir(), "kcoord-tools-log4j.properties")
    if not os.path.exists(quiet):
        with open(quiet, "w", encoding="utf-8") as f:
            f.write("log4j.rootLogger=OFF\n")
    cmd = [reference_kafka.java(), "-Xmx256m", "-Dlog4j.configuration=file:" + quiet,
           "-cp", reference_kafka.classpath(), main_class,
           "--bootstrap-server", broker.bootstrap] + list(args)
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=DEADLINE_S)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def streams_groups_tool(broker, *args):
    """kafka-streams-groups (StreamsGroupCommand of kafka-tools 4.4.0): its
    exit code and output."""
    return _tool("org.apache.kafka.tools.streams.StreamsGroupCommand", broker, args)


def config_tool(broker, *args):
    """kafka-configs (ConfigCommand of kafka-tools 4.4.0): its exit code and
    output."""
    return _tool("org.apache.kafka.tools.ConfigCommand", broker, args)
