# SPDX-License-Identifier: Apache-2.0
"""Kafka's Java consumer validates its committed positions with
OffsetForLeaderEpoch once kcoord's leader epochs have moved on.

Kafka 4.4's own clients (the reference classpath, tests/reference) run as
the single-file program java/LeaderEpochCheck.java. Five records are
produced at leader epoch 0; kcoord restarts, which moves the partition two
epochs on (as a restart of Kafka's only broker does), and five more are
produced at epoch 2. Then:

- a classic-protocol consumer of a group whose committed offset is 3 at
  epoch 0 (auto.offset.reset=none, so any reset fails it) asks
  OffsetForLeaderEpoch for epoch 0, learns it ends at 5, and reads on from
  3 with nothing lost;
- a KIP-848 consumer of a group whose committed offset is 7 at epoch 0 (an
  offset epoch 0 never reached) learns the same end, detects the
  truncation and, with auto.offset.reset=earliest, starts at 5, the first
  offset known to diverge, not at the log start;
- kcoord's /metrics counts the OffsetForLeaderEpoch requests.

It needs what the conformance suite needs: a JDK and Kafka's jars (Maven).
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "reference"))

import kafka_wire as kw  # noqa: E402
import reference_kafka  # noqa: E402
from admin_client import Admin, parse_prometheus  # noqa: E402
from kcoord_harness import Kcoord, free_port, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "java", "LeaderEpochCheck.java")
TOPIC = "epochs"


def java_client(classpath, *args):
    """Runs one LeaderEpochCheck command; returns its output lines."""
    p = subprocess.run([reference_kafka.java(), "-Xmx256m", "-cp", classpath, PROGRAM] +
                       [str(a) for a in args], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
    out = p.stdout.decode("utf-8", "replace")
    assert p.returncode == 0, "%s failed (%d):\n%s\n%s" % (
        args[0], p.returncode, out, p.stderr.decode("utf-8", "replace")[-3000:])
    return out.split("\n")


def field(lines, key):
    for line in lines:
        if line.startswith(key + " "):
            return line.split()[1:]
    raise AssertionError("no %r line in %r" % (key, lines))


def main():
    classpath = reference_kafka.classpath()
    admin_port = free_port()
    with Kcoord("java_leader_epoch",
                {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        with kw.Conn(k.port) as c:
            assert kw.create_topics(c, {TOPIC: 1})["topics"][TOPIC][0] == 0
        java_client(classpath, "produce", k.bootstrap, TOPIC, 5)
        k.restart()
        java_client(classpath, "produce", k.bootstrap, TOPIC, 5)
        java_client(classpath, "commit", k.bootstrap, "resumes", TOPIC, 3, 0)
        java_client(classpath, "commit", k.bootstrap, "truncated", TOPIC, 7, 0)

        out = java_client(classpath, "consume", k.bootstrap, "resumes", TOPIC, "none", "classic")
        assert field(out, "first") == ["3", "0"], out
        out = java_client(classpath, "consume", k.bootstrap, "truncated", TOPIC, "earliest",
                          "consumer")
        assert field(out, "first") == ["5", "2"], out

        fams = parse_prometheus(Admin(admin_port).metrics())
        asked = sum(v for n, lab, v in fams["kcoord_requests_total"]["samples"]
                    if lab.get("api") == "OffsetForLeaderEpoch")
        assert asked >= 2, fams["kcoord_requests_total"]["samples"]
    print("java consumers validated their positions after the epoch change")


if __name__ == "__main__":
    run(main)
