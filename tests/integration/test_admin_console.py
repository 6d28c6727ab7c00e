# SPDX-License-Identifier: Apache-2.0
"""The console's static files on the admin endpoint (no browser).

- GET / and GET /index.html serve the page, /console.js and /console.css
  its script and style, each with its Content-Type, Cache-Control:
  no-cache, a strong ETag (the same for / and /index.html), nosniff and a
  content security policy that allows only this origin;
- If-None-Match with the ETag answers 304 with no body;
- the page loads nothing from another origin;
- the JSON API is unchanged around it: an unknown path is still a JSON
  404, POST / is not the console, /v1/health still answers;
- HEAD answers as GET without the body (same Content-Length; the next
  request on the connection is read right), for an event stream too;
  OPTIONS answers 204 with the resource's Allow (OPTIONS *: the server's),
  404 for no resource;
- the Kafka listener does not serve the console;
- each member of the group view (classic, consumer, streams) carries its
  session deadline: session_remaining_ms within the session timeout and
  agreeing with session_deadline_ms and the wall clock, going down while
  the member is silent and back up after its heartbeat;
- a streams group carries the topology-description store's epochs: -1
  and -1 before any push, -2 (uncertain) while the test store holds a
  push, the pushed epoch once it answered.
"""

import http.client
import json
import os
import re
import socket
import time

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for
from test_topology_description_streams import SOURCE, Member, recv_push, send_push

DEADLINE_S = 60


def get(port, path, method="GET", headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    h = {k.lower(): v for k, v in r.getheaders()}
    c.close()
    return r.status, h, body


def head_and_options(admin_port, page, etag):
    c = http.client.HTTPConnection("127.0.0.1", admin_port, timeout=30)
    for path, ctype in (("/", "text/html; charset=utf-8"), ("/v1/groups", "application/json"),
                        ("/metrics", "text/plain; version=0.0.4")):
        c.request("HEAD", path)
        r = c.getresponse()
        assert r.status == 200 and r.getheader("Content-Type") == ctype, (path, r.status)
        assert r.read() == b"", path
        n = int(r.getheader("Content-Length"))
        if path == "/":
            assert n == len(page) and r.getheader("ETag") == etag, (n, r.getheaders())
        else:
            assert n > 0, (path, n)
        # Were a body sent, this next answer on the connection would not parse.
        c.request("GET", "/v1/health")
        r = c.getresponse()
        assert r.status == 200 and json.loads(r.read())["status"] == "ok", path
    c.request("HEAD", "/v1/events", headers={"Accept": "text/event-stream"})
    r = c.getresponse()
    assert r.status == 200 and r.getheader("Content-Type") == "text/event-stream", r.status
    assert r.read() == b""
    c.request("HEAD", "/nope")
    r = c.getresponse()
    assert r.status == 404 and r.read() == b"", r.status
    c.close()
    for path, allow in (("/", "GET, HEAD, OPTIONS"), ("/v1/groups/g", "GET, HEAD, OPTIONS"),
                        ("/v1/faults", "GET, HEAD, POST, DELETE, OPTIONS"),
                        ("/v1/faults/3", "DELETE, OPTIONS"),
                        ("*", "GET, HEAD, POST, DELETE, OPTIONS")):
        st, h, body = get(admin_port, path, method="OPTIONS")
        assert st == 204 and h["allow"] == allow and body == b"", (path, st, h, body)
    st, h, body = get(admin_port, "/nope", method="OPTIONS")
    assert st == 404 and json.loads(body) == {"error": "no such endpoint"}, (st, body)


def member_session(admin, group, member_id):
    (m,) = [m for m in admin.group(group)["members"] if m["member_id"] == member_id]
    return m["session_remaining_ms"], m["session_deadline_ms"]


def check_session(admin, group, member_id, timeout_ms, beat):
    """The member's session deadline: within timeout_ms, matching the wall
    clock, going down while it is silent, pushed back by beat()."""
    left, deadline = member_session(admin, group, member_id)
    now = time.time() * 1000
    assert 0 < left <= timeout_ms, (group, left, timeout_ms)
    assert abs(deadline - (now + left)) < 5000, (group, deadline, now, left)
    lower = wait_for(lambda: (lambda s: s if s[0] < left - 300 else None)(
        member_session(admin, group, member_id)), DEADLINE_S, group + ": the session going down")
    beat()
    after = member_session(admin, group, member_id)
    assert after[0] > lower[0] and after[1] > deadline, (group, lower, after)


def topology_view(admin, c):
    """A streams group's view carries the topology its member sent."""
    subs = [{"id": "0", "source_topics": [SOURCE], "repartition_sink_topics": ["tv-app-rep"]},
            {"id": "1",
             "repartition_source_topics": [("tv-app-rep", 0)],
             "changelog_topics": [("tv-app-store-changelog", 0)]}]
    r = kw.streams_group_heartbeat(c, "tv-streams", "tv-member", 0, topology=(3, subs),
                                   process_id="tv-process", rebalance_timeout_ms=30000,
                                   active=set(), standby=set(), warmup=set())
    assert r["error_code"] == 0, r
    topo = admin.group("tv-streams")["topology"]
    assert topo == {"epoch": 3, "subtopologies": [
        {"subtopology_id": "0", "source_topics": [SOURCE], "source_topic_regex": [],
         "repartition_source_topics": [], "repartition_sink_topics": ["tv-app-rep"],
         "state_changelog_topics": []},
        {"subtopology_id": "1", "source_topics": [], "source_topic_regex": [],
         "repartition_source_topics": [{"name": "tv-app-rep", "partitions": 0}],
         "repartition_sink_topics": [], "state_changelog_topics": [
             {"name": "tv-app-store-changelog", "partitions": 0}]}]}, topo
    assert "topology" not in admin.group("sd-consumer"), "a consumer group has no topology"


def session_deadlines(k, admin):
    session = 20000
    with kw.Conn(k.port) as c:
        j = kw.join_dynamic(c, "sd-classic", session_timeout_ms=session)
        assert j["error_code"] == 0, j
        mid, gen = j["member_id"], j["generation_id"]
        assert kw.sync_group(c, "sd-classic", gen, mid, [(mid, b"")])["error_code"] == 0

        def classic_beat():
            r = kw.heartbeat(c, "sd-classic", gen, mid)
            assert r["error_code"] == 0, r
        check_session(admin, "sd-classic", mid, session, classic_beat)

        def consumer_beat(epoch):
            r = kw.consumer_group_heartbeat(c, 1, "sd-consumer", "sd-member", epoch, owned=[],
                                            topic_names=[SOURCE], rebalance_timeout_ms=30000)
            assert r["error_code"] == 0, r
            return r["member_epoch"]
        epoch = consumer_beat(0)
        check_session(admin, "sd-consumer", "sd-member", 45000, lambda: consumer_beat(epoch))

        m = Member(k, "sd-streams", "a")
        m.heartbeat(c)
        topology_view(admin, c)
        check_session(admin, "sd-streams", m.member_id, 45000, lambda: m.heartbeat(c))


def description_epochs(admin_port):
    """-1/-1, then -2 while the test store holds the push, then the epoch."""
    overrides = {"admin.listeners": "http://127.0.0.1:%d" % admin_port,
                 "group.streams.topology.description.plugin": os.environ["KC_TEST_TOPOLOGY_STORE"]}
    with Kcoord("admin_console_tds", overrides, env={"KC_TEST_STORE_SET": "hang:10000*1"}) as k:
        admin = Admin(admin_port)
        with kw.Conn(k.port) as c:
            assert kw.create_topics(c, {SOURCE: 2})["topics"][SOURCE][0] == 0
            m = Member(k, "tds-console", "a")
            assert m.heartbeat(c)["topology_description_required"] is True
            epochs = lambda: (lambda g: (g["stored_description_topology_epoch"],
                                         g["failed_description_topology_epoch"]))(
                admin.group("tds-console"))
            assert epochs() == (-1, -1), epochs()
            corr = send_push(c, "tds-console", m.member_id)
            wait_for(lambda: epochs() == (-2, -1), DEADLINE_S, "the stored epoch uncertain",
                     state=epochs)
            assert recv_push(c, corr) == (0, None)
            wait_for(lambda: epochs() == (1, -1), DEADLINE_S, "the stored epoch 1", state=epochs)


def main():
    admin_port = free_port()
    with Kcoord("admin_console", {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        st, h, page = get(admin_port, "/")
        assert st == 200, st
        assert h["content-type"] == "text/html; charset=utf-8", h
        assert h["cache-control"] == "no-cache", h
        assert re.fullmatch(r'"[0-9a-f]{16}"', h["etag"]), h
        assert h["x-content-type-options"] == "nosniff", h
        csp = h["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp \
            and "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp, csp
        assert b"<title>kcoord console</title>" in page, page[:200]
        # Only relative or same-origin references: nothing from a CDN.
        assert not re.search(rb'(src|href)="(https?:)?//', page), page
        st2, h2, page2 = get(admin_port, "/index.html")
        assert st2 == 200 and page2 == page and h2["etag"] == h["etag"], (st2, h2)

        st, h304, body = get(admin_port, "/", headers={"If-None-Match": h["etag"]})
        assert st == 304 and body == b"", (st, body)
        assert h304["etag"] == h["etag"], h304
        st, _, body = get(admin_port, "/", headers={"If-None-Match": '"0000000000000000"'})
        assert st == 200 and body == page, st
        st, _, body = get(admin_port, "/", headers={"If-None-Match": "*"})
        assert st == 304 and body == b"", st

        for path, ctype, marker in (("/console.js", "text/javascript; charset=utf-8", b"EventSource"),
                                    ("/console.css", "text/css; charset=utf-8", b"timeline")):
            st, ha, body = get(admin_port, path)
            assert st == 200 and ha["content-type"] == ctype, (path, st, ha)
            assert ha["cache-control"] == "no-cache" and ha["etag"] != h["etag"], ha
            assert marker in body, path
            assert int(ha["content-length"]) == len(body), ha
            assert path.encode() in page, "the page does not load %s" % path
            # (the SVG namespace name is a name, not a load)
            rest = body.replace(b"http://www.w3.org/2000/svg", b"")
            assert b"http://" not in rest and b"https://" not in rest, \
                "%s refers to another origin" % path

        st, h404, body = get(admin_port, "/nope.html")
        assert st == 404 and h404["content-type"] == "application/json", (st, h404)
        assert json.loads(body) == {"error": "no such endpoint"}, body
        st, _, body = get(admin_port, "/", method="POST")
        assert st == 404 and json.loads(body) == {"error": "no such endpoint"}, (st, body)
        st, _, body = get(admin_port, "/v1/health")
        assert st == 200 and json.loads(body)["status"] == "ok", body
        head_and_options(admin_port, page, h["etag"])

        # The Kafka listener speaks Kafka only.
        s = socket.create_connection(("127.0.0.1", k.port), timeout=30)
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        s.settimeout(30)
        try:
            got = s.recv(100)
        except OSError:
            got = b""
        s.close()
        assert not got.startswith(b"HTTP/"), got
        with kw.Conn(k.port) as c:
            assert kw.api_versions(c, 0)["error_code"] == 0
            assert kw.create_topics(c, {SOURCE: 2})["topics"][SOURCE][0] == 0
        session_deadlines(k, Admin(admin_port))
    description_epochs(free_port())


if __name__ == "__main__":
    run(main)
