# SPDX-License-Identifier: Apache-2.0
"""kcat -L: kcoord is listed as broker 1 at its advertised host:port, with
the topics it holds and every partition led by node 1."""

import json
import shutil
import subprocess

import kafka_wire
from kcoord_harness import Kcoord, run

TOPICS = {"kcat-a": 3, "kcat-b": 1}
DEADLINE_S = 60


def kcat(*args):
    exe = shutil.which("kcat") or shutil.which("kafkacat")
    assert exe, "kcat is not installed (scripts/deps.sh installs it)"
    p = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=DEADLINE_S)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 0, "kcat %s failed (%d):\n%s\n%s" % (args, p.returncode, out, err)
    return out


def main():
    with Kcoord("kcat") as k:
        with kafka_wire.Conn(k.port) as conn:
            res = kafka_wire.create_topics(conn, TOPICS)
        assert res["topics"] == {t: (0, None) for t in TOPICS}, res

        addr = "127.0.0.1:%d" % k.port
        text = kcat("-b", addr, "-L", "-m", "30")
        print(text)
        assert "broker 1 at %s" % addr in text, text
        for t, n in TOPICS.items():
            assert 'topic "%s" with %d partitions:' % (t, n) in text, text

        meta = json.loads(kcat("-b", addr, "-L", "-J", "-m", "30"))
        assert meta["brokers"] == [{"id": 1, "name": addr}], meta["brokers"]
        topics = {t["topic"]: t for t in meta["topics"]}
        for t, n in TOPICS.items():
            assert t in topics, (t, sorted(topics))
            parts = sorted(topics[t]["partitions"], key=lambda p: p["partition"])
            assert [p["partition"] for p in parts] == list(range(n)), parts
            for p in parts:
                assert p["leader"] == 1, p
                assert [r["id"] for r in p["replicas"]] == [1], p
                assert [r["id"] for r in p["isrs"]] == [1], p
        # kcoord is a plain broker: no internal topic shows up as a user topic.
        assert set(topics) - set(TOPICS) <= {"__consumer_offsets"}, sorted(topics)


if __name__ == "__main__":
    run(main)
