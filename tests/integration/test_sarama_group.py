# SPDX-License-Identifier: Apache-2.0
"""sarama (Go) end to end: a 2-member consumer group (sarama/group.go).

Builds sarama/group.go with Debian's Go and Debian's sarama package, offline
(GOPATH mode over /usr/share/gocode, no module downloads), into the build
directory, starts kcoord and runs the program, which creates a 4-partition
topic, produces, checks that both members get partitions, that every record
is consumed once and committed, and that the remaining member takes over
after the other leaves. It runs twice, on a fresh kcoord each time: with the
group members speaking the newest protocol sarama knows (Kafka 2.2) and the
oldest one its consumer groups support (Kafka 0.10.2: JoinGroup v1, SyncGroup
v0, OffsetCommit v2, Fetch v3).
"""

import os
import shutil
import subprocess

from kcoord_harness import HERE, Kcoord, run

BUILD_DEADLINE_S = 600
RUN_DEADLINE_S = 400


def go_build(work):
    """Builds the test program into work/; returns its path."""
    os.makedirs(work, exist_ok=True)
    exe = os.path.join(work, "sarama-group")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GO")}
    env.update({
        "GO111MODULE": "off",
        "GOPATH": "/usr/share/gocode",
        "GOCACHE": os.path.join(work, "go-cache"),
        "GOFLAGS": "",
        "GOENV": "off",  # no need for a HOME
        "GOPROXY": "off",
        "CGO_ENABLED": "1",
        # Debian's zstd binding calls a function newer zstd marks deprecated.
        "CGO_CFLAGS": "-g -O2 -Wno-deprecated-declarations",
    })
    subprocess.run(["go", "build", "-o", exe, os.path.join(HERE, "sarama", "group.go")],
                   env=env, check=True, timeout=BUILD_DEADLINE_S, stdin=subprocess.DEVNULL)
    return exe


def main():
    if shutil.which("go") is None:
        raise AssertionError("go is not installed (scripts/deps.sh all installs golang-go)")
    work = os.path.join(os.environ.get("KC_TEST_WORK", os.getcwd()), "sarama-build")
    exe = go_build(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCOORD_")}
    for version in ("2.2.0", "0.10.2.0"):
        print("sarama group members speaking Kafka %s" % version)
        with Kcoord("sarama") as k:
            proc = subprocess.run([exe, "-version", version, k.bootstrap], env=env,
                                  timeout=RUN_DEADLINE_S, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out = proc.stdout.decode("utf-8", "replace")
            print(out, end="")
            assert proc.returncode == 0, ("sarama-group -version %s exited with status %d"
                                          % (version, proc.returncode))
            assert "sarama: OK" in out, "sarama-group -version %s did not report success" % version


if __name__ == "__main__":
    run(main)
