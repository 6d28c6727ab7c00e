# SPDX-License-Identifier: Apache-2.0
"""GET /v1/events as server-sent events, and `kcoord ctl events --follow`.

- `Accept: text/event-stream` (or `?stream=1`) opens a stream: first the kept
  events above `since` / `Last-Event-ID`, then each new event as it happens,
  as `id: SEQ`, `event: TYPE`, `data: JSON` frames whose JSON equals what the
  polling GET returns;
- a client that closes its stream is cleaned up (kcoord_event_streams goes
  back down, a log line says so);
- a client that stops reading is disconnected once
  admin.events.stream.max.bytes is unsent, with a log line, while a reading
  stream goes on receiving every event;
- `kcoord ctl events --follow` prints one JSON event per line as they happen.
"""

import json
import os
import re
import socket
import subprocess
import time

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for


def form_group(port, group):
    c = kw.Conn(port)
    j = kw.join_dynamic(c, group)
    assert j["error_code"] == 0, j
    s = kw.sync_group(c, group, j["generation_id"], j["member_id"], [(j["member_id"], b"")])
    assert s["error_code"] == 0, s
    c.close()


class Stream:
    """A raw HTTP/1.0 event-stream client (no chunked framing to undo)."""

    def __init__(self, port, path="/v1/events", headers=(), rcvbuf=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect(("127.0.0.1", port))
        req = "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n" % path
        for h in headers:
            req += h + "\r\n"
        self.sock.sendall((req + "\r\n").encode())
        self.buf = b""
        self.head = None

    def _fill(self, timeout):
        self.sock.settimeout(timeout)
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("stream closed")
        self.buf += data

    def headers(self, timeout=30):
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buf:
            self._fill(max(0.1, deadline - time.monotonic()))
        self.head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return self.head.decode()

    def event(self, timeout=30):
        """The next event frame as a dict of its fields (comments skipped)."""
        if self.head is None:
            self.headers(timeout)
        deadline = time.monotonic() + timeout
        while True:
            while b"\n\n" not in self.buf:
                self._fill(max(0.1, deadline - time.monotonic()))
            frame, self.buf = self.buf.split(b"\n\n", 1)
            fields = {}
            for line in frame.decode().split("\n"):
                if line.startswith(":"):
                    continue
                k, _, v = line.partition(": ")
                fields[k] = v
            if fields:
                return fields

    def close(self):
        self.sock.close()


def gauge(admin, name):
    m = re.search(r"^%s (\d+)$" % name, admin.metrics(), re.M)
    assert m, name
    return int(m.group(1))


def main():
    admin_port = free_port()
    url = "http://127.0.0.1:%d" % admin_port
    with Kcoord("admin_stream", {"admin.listeners": url,
                                 "admin.events.stream.max.bytes": "65536"}) as k:
        admin = Admin(admin_port)
        form_group(k.port, "s-1")
        polled = admin.json("GET", "/v1/events")["events"]
        assert polled, polled

        # Backlog, then live events, each frame the polled JSON.
        a = Stream(admin_port, headers=["Accept: text/event-stream"])
        head = a.headers()
        assert head.startswith("HTTP/1.0 200") or head.startswith("HTTP/1.1 200"), head
        assert "text/event-stream" in head, head
        for e in polled:
            f = a.event()
            assert f["id"] == str(e["seq"]) and f["event"] == e["type"], (f, e)
            assert json.loads(f["data"]) == e, (f, e)
        # ?stream=1 with Last-Event-ID: only what follows that id.
        b = Stream(admin_port, "/v1/events?stream=1",
                   ["Last-Event-ID: %d" % polled[-2]["seq"]])
        f = b.event()
        assert json.loads(f["data"]) == polled[-1], f
        # A Last-Event-ID this run has not reached (a client of the run
        # before a restart): everything kept, from the first.
        c = Stream(admin_port, "/v1/events?stream=1",
                   ["Last-Event-ID: %d" % (polled[-1]["seq"] + 1000)])
        assert json.loads(c.event()["data"]) == polled[0]
        c.close()
        stale = admin.json("GET", "/v1/events?since=%d" % (polled[-1]["seq"] + 1000))["events"]
        assert stale == polled, stale
        wait_for(lambda: gauge(admin, "kcoord_event_streams") == 2, 30, "two streams")

        follow = subprocess.Popen([os.environ["KC_TEST_KCOORD_BIN"], "ctl", "--admin", url,
                                   "events", "--follow", str(polled[-1]["seq"])],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_for(lambda: gauge(admin, "kcoord_event_streams") == 3, 30, "ctl following")

        form_group(k.port, "s-2")
        new = admin.json("GET", "/v1/events?since=%d" % polled[-1]["seq"])["events"]
        assert new and all(e["group_id"] == "s-2" for e in new), new
        for e in new:
            assert json.loads(a.event()["data"]) == e
            assert json.loads(b.event()["data"]) == e
            line = follow.stdout.readline()
            assert json.loads(line) == e, line

        # A client that goes away is cleaned up.
        off = k.stderr_size()
        b.close()
        wait_for(lambda: gauge(admin, "kcoord_event_streams") == 2, 30, "closed stream removed")
        assert re.search(r"event stream \d+ to 127\.0\.0\.1:\d+ closed: the client went away", k.stderr_since(off)), \
            k.stderr_since(off)
        follow.terminate()
        follow.wait(timeout=30)
        wait_for(lambda: gauge(admin, "kcoord_event_streams") == 1, 30, "ctl stream removed")

        # A client that never reads is cut at admin.events.stream.max.bytes;
        # the reading stream a sees every event meanwhile.
        slow = Stream(admin_port, headers=["Accept: text/event-stream"], rcvbuf=1024)
        slow.headers()
        wait_for(lambda: gauge(admin, "kcoord_event_streams") == 2, 30, "slow stream open")
        off = k.stderr_size()
        seen = admin.json("GET", "/v1/events")["next_seq"] - 1
        deadline = time.monotonic() + 240
        i = 0
        while "is not reading" not in k.stderr_since(off):
            assert time.monotonic() < deadline, "the slow stream was never cut"
            for _ in range(20):
                form_group(k.port, "flood-%d" % i)
                i += 1
            last = admin.json("GET", "/v1/events")["next_seq"] - 1
            while seen < last:
                f = a.event()
                seen += 1
                assert f["id"] == str(seen), (f, seen)
        log = k.stderr_since(off)
        assert re.search(r"event stream \d+ to 127\.0\.0\.1:\d+ is not reading: \d+ bytes unsent "
                         r"\(admin\.events\.stream\.max\.bytes=65536\), disconnecting it", log), log
        wait_for(lambda: gauge(admin, "kcoord_event_streams") == 1, 30, "slow stream removed",
                 state=lambda: (gauge(admin, "kcoord_event_streams"), re.findall(r".*event stream.*", k.stderr_text())))
        assert gauge(admin, "kcoord_event_streams_cut_total") == 1
        slow.close()
        form_group(k.port, "after-cut")
        last = admin.json("GET", "/v1/events")["next_seq"] - 1
        while seen < last:
            f = a.event()
            seen += 1
            assert f["id"] == str(seen), (f, seen)
        a.close()
        wait_for(lambda: gauge(admin, "kcoord_event_streams") == 0, 30, "every stream removed")

        assert admin.request("GET", "/v1/events?stream=maybe")[0] == 400


if __name__ == "__main__":
    run(main)
