# SPDX-License-Identifier: Apache-2.0
"""sarama (Go) end to end: a 2-member consumer group (sarama/group.go), on
kcoord and on the reference Kafka 4.4.0.

Builds sarama/group.go in module mode against the sarama release pinned in
sarama/go.mod and sarama/go.sum (downloaded through the Go module proxy into
a module cache in the build directory), then runs the program on a fresh
kcoord and on one reference broker for the whole file: it creates a
4-partition topic, produces, checks that both members get partitions, that
every record is consumed once and committed, that the group is Stable with
two members, that the remaining member takes over after the other leaves,
and that the group ends Empty. It runs with the group members speaking the
newest protocol sarama knows (Kafka 4.3.1) and Kafka 2.2's, on both
brokers, and the oldest one its consumer groups support (Kafka 0.10.2:
JoinGroup v1, SyncGroup v0, OffsetCommit v2, Fetch v3) on kcoord only:
Kafka 4 no longer serves those versions, kcoord still does.
"""

import os
import shutil
import subprocess
import sys

from kcoord_harness import DEFAULT_OVERRIDES, HERE, Kcoord, run
from kcoord_harness import go_build as harness_go_build

sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import reference_kafka  # noqa: E402

BUILD_DEADLINE_S = 600
RUN_DEADLINE_S = 400
# The group members' protocol generations, and whether Kafka 4.4 serves it.
VERSIONS = (("4.3.1", True), ("2.2.0", True), ("0.10.2.0", False))


def go_build(work):
    return harness_go_build(os.path.join(HERE, "sarama"), work, 'sarama-group', BUILD_DEADLINE_S)


def run_group(exe, bootstrap, version, name, broker):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCOORD_")}
    proc = subprocess.run([exe, "-version", version, "-name", name, bootstrap], env=env,
                          timeout=RUN_DEADLINE_S, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.decode("utf-8", "replace")
    print(out, end="")
    assert proc.returncode == 0, ("sarama-group -version %s on %s exited with status %d"
                                  % (version, broker, proc.returncode))
    assert "sarama: OK" in out, "sarama-group -version %s on %s did not report success" % (
        version, broker)


def main():
    if shutil.which("go") is None:
        raise AssertionError("go is not installed")
    work = os.path.join(os.environ.get("KC_TEST_WORK", os.getcwd()), "sarama-build")
    exe = go_build(work)
    ref = reference_kafka.ReferenceKafka("sarama", DEFAULT_OVERRIDES)
    ref.start()
    try:
        for version, on_kafka in VERSIONS:
            name = "sarama-" + version.replace(".", "-")
            print("sarama group members speaking Kafka %s, on kcoord" % version)
            with Kcoord("sarama") as k:
                run_group(exe, k.bootstrap, version, name, "kcoord")
            if on_kafka:
                print("sarama group members speaking Kafka %s, on Kafka" % version)
                run_group(exe, ref.bootstrap, version, name, "Kafka")
    except BaseException:
        sys.stderr.write(ref.log_tail())
        raise
    finally:
        ref.cleanup()


if __name__ == "__main__":
    run(main)
