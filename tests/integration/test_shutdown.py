# SPDX-License-Identifier: Apache-2.0
"""Graceful shutdown on SIGTERM, and one kcoord per data directory.

With a long-poll Fetch parked on an empty partition and a JoinGroup parked
in a rebalance, SIGTERM makes kcoord stop accepting, answer both (the Fetch
with what is readable, no records; the JoinGroup NOT_COORDINATOR, as from a
coordinator that resigned), and exit 0; the offsets it acknowledged are
there after a restart. A second kcoord started on the data directory of a
running one refuses to start and says why.
"""

import os
import signal
import subprocess

import kafka_wire as kw
from kcoord_harness import Kcoord, free_port, run

DEADLINE_S = 60
TOPIC = "shutdown-topic"
GROUP = "shutdown-group"
NOT_COORDINATOR = 16
API_FETCH = 1


def fetch_v4_body(topic, partition, offset, max_wait_ms):
    w = kw.Writer().i32(-1).i32(max_wait_ms).i32(1).i32(1024 * 1024).i8(0)
    w.array([topic], lambda ww, t: ww.string(t).array(
        [partition], lambda w3, p: w3.i32(p).i64(offset).i32(1024 * 1024)))
    return w.getvalue()


def decode_fetch_v4(r):
    r.i32()  # throttle

    def part(rr):
        p = rr.i32()
        err = rr.i16()
        rr.i64()
        rr.i64()
        rr.array(lambda r3: (r3.i64(), r3.i64()))
        records = rr.bytes_()
        return p, err, records

    return r.array(lambda rr: (rr.string(), rr.array(part)))


def main():
    with Kcoord("shutdown") as k:
        with kw.Conn(k.port) as c:
            assert kw.create_topics(c, {TOPIC: 1})["topics"][TOPIC][0] == 0
            res = kw.offset_commit(c, GROUP, {TOPIC: {0: (42, "before")}})
            assert res["errors"] == {(TOPIC, 0): 0}, res

        # A stable one-member group; a second member's join then waits for
        # the first to rejoin (rebalance timeout of a minute): it is parked.
        a = kw.Conn(k.port)
        ja = kw.join_dynamic(a, GROUP, rebalance_timeout_ms=60000)
        assert ja["error_code"] == 0, ja
        sa = kw.sync_group(a, GROUP, ja["generation_id"], ja["member_id"],
                           assignments=[(ja["member_id"], b"")])
        assert sa["error_code"] == 0, sa
        b = kw.Conn(k.port)
        first = kw.join_group(b, GROUP, "", rebalance_timeout_ms=60000)
        assert first["error_code"] == kw.MEMBER_ID_REQUIRED, first
        join_corr = b.send(kw.API_JOIN_GROUP, 5,
                           kw.join_group_v5_body(GROUP, first["member_id"],
                                                 rebalance_timeout_ms=60000))
        # A Fetch that would wait 60 s for data that never comes.
        f = kw.Conn(k.port)
        fetch_corr = f.send(API_FETCH, 4, fetch_v4_body(TOPIC, 0, 0, 60000))
        assert not b.readable_within(0.5) and not f.readable_within(0.5), \
            "the join and the fetch should be parked"

        k.proc.send_signal(signal.SIGTERM)
        got, r = f.recv(timeout=DEADLINE_S)
        assert got == fetch_corr
        (name, parts), = decode_fetch_v4(r)
        assert name == TOPIC and parts in ([(0, 0, None)], [(0, 0, b"")]), parts
        got, r = b.recv(timeout=DEADLINE_S)
        assert got == join_corr
        jb = kw.decode_join_group_v5(r)
        assert jb["error_code"] == NOT_COORDINATOR, jb
        assert f.wait_closed(DEADLINE_S) and b.wait_closed(DEADLINE_S)
        rc = k.proc.wait(timeout=DEADLINE_S)
        k.proc = None
        assert rc == 0, rc
        log = k.stderr_text()
        assert "answered 1 parked fetches and 1 parked group requests" in log, log[-2000:]
        for s in (a, b, f):
            s.close()

        k.start()
        with kw.Conn(k.port) as c:
            off = kw.offset_fetch(c, GROUP, {TOPIC: [0]})["offsets"][(TOPIC, 0)]
            assert off[0] == 42 and off[2] == "before", off

        # A second kcoord on the same data directory refuses to start.
        second = subprocess.run(
            [k.binary, "--override", "listeners=PLAINTEXT://127.0.0.1:%d" % free_port(),
             "--override", "log.dirs=%s" % k.data_dir],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=DEADLINE_S, env={x: v for x, v in os.environ.items()
                                     if not x.startswith("KCOORD_")})
        out = second.stdout.decode("utf-8", "replace")
        assert second.returncode != 0, out
        assert "is in use by another kcoord (pid %d)" % k.proc.pid in out, out
        # The first one is unharmed.
        with kw.Conn(k.port) as c:
            assert kw.api_versions(c, 0)["error_code"] == 0


if __name__ == "__main__":
    run(main)
