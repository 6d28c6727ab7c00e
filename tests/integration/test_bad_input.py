# SPDX-License-Identifier: Apache-2.0
"""Malformed and unsupported requests on the wire.

Each case runs on its own connection and must get Kafka's treatment:

  negative frame size            connection closed
  frame above the size limit     connection closed
  body shorter than its schema   connection closed
  frame cut short, then EOF      connection closed
  unknown API key                connection closed
  ApiVersions v99                answered: header v0, v0 body with
                                 UNSUPPORTED_VERSION and the ApiVersions range;
                                 the connection stays usable
  JoinGroup at version 99        connection closed

kcoord must log a line for each case it closes (except the client's own
EOF), and a second connection opened before the
first case must keep answering ApiVersions throughout.

A STRING that is not UTF-8 is read as Kafka reads it (Java's UTF-8
decoder, each ill-formed sequence one U+FFFD): OffsetCommits for group ids
FF FE and FE FF commit to one group, which ListGroups and the admin view
name U+FFFD U+FFFD, as Kafka 4.4 answers.
"""

import struct

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run

CLOSE_DEADLINE_S = 20.0
LOG_DEADLINE_S = 10.0


def check_control(conn):
    res = kw.api_versions(conn, 0)
    assert res["error_code"] == 0, res
    assert kw.API_JOIN_GROUP in res["api_keys"], res


def expect_closed(k, what, payload, half_close=False):
    offset = k.stderr_size()
    with kw.Conn(k.port) as c:
        c.sock.sendall(payload)
        if half_close:
            c.sock.shutdown(1)  # SHUT_WR: the broker sees EOF mid-frame
        assert c.wait_closed(CLOSE_DEADLINE_S), "%s: connection not closed" % what
    if half_close:
        # The client went away: Kafka only notes that at debug level, so no
        # log line is required here.
        print("%s -> closed" % what)
        return
    logged = k.wait_log_after(offset, LOG_DEADLINE_S, "a log line about %s" % what)
    print("%s -> closed; log: %s" % (what, logged.strip().splitlines()[-1]))


def not_utf8_group_ids(k, admin):
    with kw.Conn(k.port) as c:
        assert kw.create_topics(c, {"utf8-t": 1})["topics"]["utf8-t"][0] == 0
        for gid, offset in ((b"\xff\xfe", 5), (b"\xfe\xff", 7)):
            body = kw.offset_commit_v7_body("XX", {"utf8-t": {0: (offset, "")}})
            assert body[:4] == b"\x00\x02XX"
            c.send(kw.API_OFFSET_COMMIT, 7, b"\x00\x02" + gid + body[4:])
            _, r = c.recv()
            assert kw.decode_offset_commit_v7(r)["errors"] == {("utf8-t", 0): 0}
        err, groups = kw.list_groups_v5(c)
        groups = [g for g in groups if g[0].startswith("\ufffd")]
        assert groups == [("\ufffd\ufffd", "", "Empty", "classic")], groups
    g = admin.group("\ufffd\ufffd")
    assert g["group_id"] == "\ufffd\ufffd", g
    assert [(o["topic"], o["offset"]) for o in g["offsets"]] == [("utf8-t", 7)], g


def main():
    admin_port = free_port()
    with Kcoord("bad-input", {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        control = kw.Conn(k.port)
        check_control(control)

        expect_closed(k, "negative frame size", struct.pack(">i", -2) + b"\x00" * 16)
        check_control(control)

        expect_closed(k, "oversize frame", struct.pack(">i", 0x7FFFFFF0) + b"\x00" * 64)
        check_control(control)

        # JoinGroup v5 whose body stops in the middle of the member id.
        body = kw.join_group_v5_body("g", "")[:9]
        hdr = kw.request_header(kw.API_JOIN_GROUP, 5, 7)
        expect_closed(k, "truncated JoinGroup body", kw.frame(hdr + body))
        check_control(control)

        # A frame announcing 100 bytes, of which 10 arrive before EOF.
        expect_closed(k, "frame cut short", struct.pack(">i", 100) + b"\x00\x12\x00\x00" +
                      b"\x00" * 6, half_close=True)
        check_control(control)

        hdr = kw.request_header(32000, 0, 9)
        expect_closed(k, "unknown API key", kw.frame(hdr))
        check_control(control)

        # ApiVersions v99: header v2 (flexible), body not parsed, v0 answer.
        with kw.Conn(k.port) as c:
            hdr = kw.request_header(kw.API_API_VERSIONS, 99, 4242, flexible=True)
            c.sock.sendall(kw.frame(hdr + b"\x7f\xff future body \x00"))
            corr, r = c.recv(flexible_header=False)
            assert corr == 4242, corr
            res = kw.decode_api_versions(r, 0)
            assert r.remaining() == 0, "trailing bytes after the v0 body: %d" % r.remaining()
            assert res["error_code"] == kw.UNSUPPORTED_VERSION, res
            assert len(res["api_keys_list"]) == 1, res
            key, lo, hi = res["api_keys_list"][0]
            assert key == kw.API_API_VERSIONS and lo == 0 and hi >= 3, res
            # The connection stays open: the client retries at the broker's max.
            res = kw.api_versions(c, hi if hi <= 3 else 3)
            assert res["error_code"] == 0, res
            assert res["api_keys"][kw.API_API_VERSIONS] == (lo, hi), res
        # Newer clients send a higher ApiVersions first as a matter of course,
        # so this normal negotiation step needs no log line at info level.
        print("ApiVersions v99 -> answered")
        check_control(control)

        body = kw.join_group_v5_body("g", "")
        hdr = kw.request_header(kw.API_JOIN_GROUP, 99, 11, flexible=True)
        expect_closed(k, "JoinGroup v99", kw.frame(hdr + body))
        check_control(control)

        # The control connection also still does group work.
        fc = kw.find_coordinator(control, "after-bad-input")
        assert fc["error_code"] == 0 and fc["node_id"] == 1, fc
        control.close()
        not_utf8_group_ids(k, Admin(admin_port))


if __name__ == "__main__":
    run(main)
