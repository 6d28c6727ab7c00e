# SPDX-License-Identifier: Apache-2.0
"""Connection limits and slow clients.

- max.connections: at the limit kcoord stops accepting; a further client's
  connection waits in the backlog unanswered until another one closes, then
  it is served (Kafka's Acceptor waits for a connection slot).
- max.connections.per.ip: a connection beyond it is closed at once;
  max.connections.per.ip.overrides gives one address (127.0.0.2, a second
  loopback source address) a higher count.
- Slowloris: hundreds of clients each announce a 50 MB request and trickle
  one byte per second; kcoord's memory does not follow the announced sizes
  and a normal client is served throughout.
- connections.max.idle.ms: a client that stops in the middle of a request
  is disconnected once the connection has been idle that long.
"""

import os
import socket
import struct
import time

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

DEADLINE_S = 60
SLOW_CLIENTS = 200
ANNOUNCED = 50 * 1024 * 1024


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def answers(conn):
    return kw.api_versions(conn, 0)["error_code"] == 0


def connect_from(port, source):
    return kw.Conn(port, timeout=DEADLINE_S, source=source)


def max_connections():
    with Kcoord("max-connections", overrides={"max.connections": "3"}) as k:
        offset = k.stderr_size()
        conns = [kw.Conn(k.port) for _ in range(3)]
        for c in conns:
            assert answers(c)
        wait_for(lambda: "max.connections (3) reached" in k.stderr_since(offset), DEADLINE_S,
                 "kcoord to stop accepting at max.connections")
        waiting = kw.Conn(k.port)  # completes in the kernel backlog
        corr = waiting.send(kw.API_API_VERSIONS, 0, kw.api_versions_body(0))
        assert not waiting.readable_within(1.0), "a connection beyond max.connections was served"
        for c in conns:
            assert answers(c)  # the accepted ones are still served
        conns.pop().close()
        got, _ = waiting.recv()  # served once a slot is free
        assert got == corr
        for c in conns + [waiting]:
            c.close()


def max_connections_per_ip():
    overrides = {"max.connections.per.ip": "2",
                 "max.connections.per.ip.overrides": "127.0.0.2:3"}
    with Kcoord("max-connections-per-ip", overrides=overrides) as k:
        for source, allowed in (("127.0.0.1", 2), ("127.0.0.2", 3)):
            offset = k.stderr_size()
            conns = [connect_from(k.port, source) for _ in range(allowed)]
            for c in conns:
                assert answers(c)
            extra = connect_from(k.port, source)
            assert extra.wait_closed(DEADLINE_S), "connection %d from %s not closed" % (
                allowed + 1, source)
            wait_for(lambda: "max.connections.per.ip (%d) reached" % allowed
                     in k.stderr_since(offset), DEADLINE_S, "the rejection to be logged")
            for c in conns:
                assert answers(c)
            for c in conns + [extra]:
                c.close()
            # Closing frees the slots: a new connection is served again.
            wait_for(lambda: (lambda c: (answers(c), c.close())[0])(connect_from(k.port, source)),
                     DEADLINE_S, "a slot to be free again")


def slowloris():
    with Kcoord("slowloris", overrides={"connections.max.idle.ms": "3000"}) as k:
        pid = k.proc.pid
        normal = kw.Conn(k.port)
        assert answers(normal)
        before = rss_kib(pid)
        slow = []
        for _ in range(SLOW_CLIENTS):
            s = socket.create_connection(("127.0.0.1", k.port), timeout=DEADLINE_S)
            s.sendall(struct.pack(">i", ANNOUNCED))
            slow.append(s)
        # A client that stops in the middle of its request: idle, then closed.
        stalled = kw.Conn(k.port)
        stalled.sock.sendall(struct.pack(">i", 100) + b"\x00\x12")
        # Ten rounds of one byte per slow client per second; the normal client
        # must be answered within a generous deadline in every round.
        worst = 0.0
        for _ in range(10):
            round_start = time.monotonic()
            for s in slow:
                s.sendall(b"x")
            t0 = time.monotonic()
            assert answers(normal)
            md = kw.metadata_v1(normal)
            assert md["brokers"], md
            worst = max(worst, time.monotonic() - t0)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - round_start)))
        assert worst < 10.0, worst
        grown = rss_kib(pid) - before
        # 200 x 50 MB announced; each connection may hold one 64 KiB read
        # buffer, so the growth stays far below even 1% of what was announced.
        assert grown < 64 * 1024, "RSS grew by %d KiB" % grown
        assert stalled.wait_closed(DEADLINE_S), "a stalled partial request was not disconnected"
        # The slow clients kept sending, so they are not idle: still connected.
        for s in slow:
            s.sendall(b"x")
        assert answers(normal)
        for s in slow:
            s.close()
        stalled.close()
        normal.close()


def main():
    max_connections()
    max_connections_per_ip()
    slowloris()


if __name__ == "__main__":
    run(main)
