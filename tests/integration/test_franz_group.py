# SPDX-License-Identifier: Apache-2.0
"""franz-go (kgo) consumer groups on kcoord and on the reference Kafka 4.4.0
(franz/group.go), comparing what the client sees.

Builds franz/group.go in module mode against the versions pinned in
franz/go.mod and franz/go.sum (downloaded through the Go module proxy into a
module cache in the build directory), then runs it twice on each broker: a
classic group (kgo's range balancer) and a KIP-848 consumer group
(kgo.ServerSideBalancer: ConsumerGroupHeartbeat, the broker's assignor).
Each run: member A alone commits; B joins (two partitions each); both
commit; B leaves and A resumes at B's commits; A leaves. What it prints
(commits, the group as DescribeGroups and ConsumerGroupDescribe give it,
the committed offsets, every offset each partition delivered) must be
equal on both brokers. One reference broker serves the file.
"""

import json
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
SRC = os.path.join(HERE, "franz")

# The group settings of both brokers: the harness's short ones, KIP-848
# heartbeats every half second, no topic created by a fetch.
SETTINGS = dict(DEFAULT_OVERRIDES)
SETTINGS.update({
    "group.consumer.heartbeat.interval.ms": "500",
    "auto.create.topics.enable": "false",
})


def go_build(work):
    return harness_go_build(SRC, work, 'franz-group', BUILD_DEADLINE_S)


def observe(exe, bootstrap, protocol, tag):
    proc = subprocess.run([exe, "-protocol", protocol, bootstrap, tag],
                          timeout=RUN_DEADLINE_S, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == 0 and "franz: OK" in out, (
        "franz-group -protocol %s on %s failed (status %d):\n%s"
        % (protocol, bootstrap, proc.returncode, out))
    line = [ln for ln in out.splitlines() if ln.startswith("franz: {")][0]
    return json.loads(line[len("franz: "):])


def expect(obs, protocol):
    """What the story means whichever broker ran it."""
    every = [str(p) for p in range(4)]
    assert obs["A alone commits"] == {p: 5 for p in every}, obs
    assert obs["A and B commit"] == {p: 8 for p in every}, obs
    assert obs["listed with A and B"] == {p: 8 for p in every}, obs
    assert obs["A alone again commits"] == {p: 10 for p in every}, obs
    assert obs["listed empty"] == {p: 10 for p in every}, obs
    assert obs["delivered"] == {p: list(range(10)) for p in every}, obs
    view = "ConsumerGroupDescribe" if protocol == "consumer" else "DescribeGroups"
    members = obs["described with A and B"][view]["members"]
    assert [m.split(":")[:2] for m in members] == [["A", "2"], ["B", "2"]], obs


def main():
    if shutil.which("go") is None:
        raise AssertionError("go is not installed")
    work = os.path.join(os.environ.get("KC_TEST_WORK", os.getcwd()), "franz-build")
    exe = go_build(work)
    ref = reference_kafka.ReferenceKafka("franz", SETTINGS)
    ref.start()
    try:
        for protocol in ("classic", "consumer"):
            tag = "franz-" + protocol
            print("franz-go group, %s protocol" % protocol)
            with Kcoord(tag, SETTINGS) as k:
                mine = observe(exe, k.bootstrap, protocol, tag)
            theirs = observe(exe, ref.bootstrap, protocol, tag)
            for key in sorted(theirs):
                print("  %s: %s" % (key, json.dumps(theirs[key], sort_keys=True)))
                assert mine.get(key) == theirs[key], (
                    "%s, %s: kcoord %r, Kafka %r" % (protocol, key, mine.get(key), theirs[key]))
            assert mine == theirs
            expect(theirs, protocol)
    except BaseException:
        sys.stderr.write(ref.log_tail())
        raise
    finally:
        ref.cleanup()


if __name__ == "__main__":
    run(main)
