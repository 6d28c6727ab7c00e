# SPDX-License-Identifier: Apache-2.0
"""kcat produces, then consumes with a balanced consumer group (-G).

Forty keyed lines go to a 2-partition topic with `kcat -P -K:` (the keys
spread them over both partitions, deterministically);
`kcat -G` joins a group, is assigned both partitions, reads to the end (-e)
and exits. Every line must come back exactly once, and the group's
committed offsets must reach the end of both partitions.
"""

import subprocess

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "kcat-group-topic"
GROUP = "kcat-group"
LINES = [b"line-%02d" % i for i in range(40)]
DEADLINE_S = 90


def main():
    with Kcoord("kcat-group") as k:
        conn = kw.Conn(k.port)
        assert kw.create_topics(conn, {TOPIC: 2})["topics"] == {TOPIC: (0, None)}
        keyed = b"".join(b"key-%02d:%s\n" % (i, line) for i, line in enumerate(LINES))
        subprocess.run(["kcat", "-b", k.bootstrap, "-P", "-t", TOPIC, "-K:"],
                       input=keyed, check=True, timeout=DEADLINE_S)

        out = subprocess.run(["kcat", "-b", k.bootstrap, "-G", GROUP, "-o", "beginning", "-e",
                              "-f", "%p %s\n", TOPIC],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True,
                             timeout=DEADLINE_S)
        got = [line.split(b" ", 1) for line in out.stdout.splitlines() if line]
        values = sorted(v for _, v in got)
        assert values == sorted(LINES), (out.stdout, out.stderr)
        partitions = {int(p) for p, _ in got}
        assert partitions == {0, 1}, "the keys landed in one partition only: %r" % got

        def committed_to_end():
            res = kw.offset_fetch(conn, GROUP, None)
            offs = {tp[1]: v[0] for tp, v in res["offsets"].items()}
            counts = {p: sum(1 for q, _ in got if int(q) == p) for p in (0, 1)}
            return offs == counts
        wait_for(committed_to_end, DEADLINE_S, "the group's offsets at the end of both partitions",
                 state=lambda: kw.offset_fetch(conn, GROUP, None))


if __name__ == "__main__":
    run(main)
