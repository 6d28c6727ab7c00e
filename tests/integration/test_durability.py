# SPDX-License-Identifier: Apache-2.0
"""Durability: an acknowledged write survives SIGKILL.

A group is formed with raw JoinGroup/SyncGroup, then offsets are committed
with raw OffsetCommit requests (by the member, and by a simple consumer with
generation -1), many of them pipelined. Right after the last acknowledgement
kcoord is killed with SIGKILL and started again on the same data directory:
OffsetFetch must return every acknowledged offset, and the group must come
back Stable with the same member, protocol and generation (a heartbeat with
the old generation succeeds, one with the next generation is refused), and a
new member must not be handed the member id of one from before the restart.
"""

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "durable-topic"
PARTITIONS = 8
GROUP = "durable-group"
SIMPLE_GROUP = "durable-simple"
DEADLINE_S = 60
ROUNDS = 25


def retry_loading(fn, what):
    """Calls fn() until it stops answering COORDINATOR_LOAD_IN_PROGRESS."""
    def attempt():
        res = fn()
        return None if res.get("error_code") == kw.COORDINATOR_LOAD_IN_PROGRESS else res
    return wait_for(attempt, DEADLINE_S, what)


def main():
    with Kcoord("durability") as k:
        conn = kw.Conn(k.port)
        res = kw.create_topics(conn, {TOPIC: PARTITIONS})
        assert res["topics"] == {TOPIC: (0, None)}, res

        fc = kw.find_coordinator(conn, GROUP)
        assert fc["error_code"] == 0 and fc["node_id"] == 1, fc
        assert (fc["host"], fc["port"]) == ("127.0.0.1", k.port), fc

        join = kw.join_dynamic(conn, GROUP, session_timeout_ms=60000,
                               rebalance_timeout_ms=60000,
                               protocols=(("range", b"member-metadata"),))
        assert join["error_code"] == 0, join
        member_id = join["member_id"]
        generation = join["generation_id"]
        assert generation >= 1, join
        assert join["leader"] == member_id, join
        assert [m["member_id"] for m in join["members"]] == [member_id], join
        assert join["protocol_name"] == "range", join
        assignment = b"assignment-bytes"
        sync = kw.sync_group(conn, GROUP, generation, member_id, [(member_id, assignment)])
        assert sync == {"throttle_time_ms": 0, "error_code": 0, "assignment": assignment}, sync

        # Pipeline ROUNDS commits by the member; every one must be acknowledged.
        acked_member = {}
        corrs = []
        for r in range(ROUNDS):
            offsets = {TOPIC: {p: (r * 100 + p, "r%d" % r) for p in range(PARTITIONS)}}
            corr, data = conn.encode(kw.API_OFFSET_COMMIT, 7, kw.offset_commit_v7_body(
                GROUP, offsets, generation_id=generation, member_id=member_id))
            conn.sock.sendall(data)
            corrs.append((corr, offsets))
        for corr, offsets in corrs:
            got, rd = conn.recv()
            assert got == corr, (got, corr)
            res = kw.decode_offset_commit_v7(rd)
            assert res["errors"] == {(TOPIC, p): 0 for p in range(PARTITIONS)}, res
            for p, (off, meta) in offsets[TOPIC].items():
                acked_member[p] = (off, meta)

        # A simple consumer (no group membership) commits with generation -1.
        acked_simple = {}
        for p in range(PARTITIONS):
            res = kw.offset_commit(conn, SIMPLE_GROUP, {TOPIC: {p: (5000 + p, None)}})
            assert res["errors"] == {(TOPIC, p): 0}, res
            # Kafka stores a null metadata string as "" (NO_METADATA).
            acked_simple[p] = (5000 + p, "")
        conn.close()

        k.kill()
        k.start()

        conn = kw.Conn(k.port)
        for group, acked in ((GROUP, acked_member), (SIMPLE_GROUP, acked_simple)):
            res = retry_loading(lambda g=group: kw.offset_fetch(conn, g, {TOPIC: range(PARTITIONS)}),
                                "OffsetFetch after restart")
            assert res["error_code"] == 0, res
            got = {p: (v[0], v[2]) for (t, p), v in res["offsets"].items() if t == TOPIC}
            errs = {p: v[3] for (t, p), v in res["offsets"].items()}
            assert errs == {p: 0 for p in range(PARTITIONS)}, res
            assert got == acked, "group %s: fetched %r, acknowledged %r" % (group, got, acked)

            # Fetching every committed offset (null topic list) returns the same.
            res = kw.offset_fetch(conn, group, None)
            got = {p: (v[0], v[2]) for (t, p), v in res["offsets"].items() if t == TOPIC}
            assert got == acked, (group, res)

        def describe():
            return retry_loading(lambda: (lambda d: dict(d["groups"][0]))(
                kw.describe_groups(conn, [GROUP])), "DescribeGroups after restart")
        g = describe()
        assert g["error_code"] == 0, g
        assert g["state"] == "Stable", g
        assert g["protocol_type"] == "consumer" and g["protocol"] == "range", g
        assert [m["member_id"] for m in g["members"]] == [member_id], g
        assert g["members"][0]["metadata"] == b"member-metadata", g
        assert g["members"][0]["assignment"] == assignment, g

        # Same generation: the member's heartbeat at its generation is accepted
        # (the session timer restarts on load), the next generation is not.
        hb = kw.heartbeat(conn, GROUP, generation, member_id)
        assert hb["error_code"] == 0, hb
        hb = kw.heartbeat(conn, GROUP, generation + 1, member_id)
        assert hb["error_code"] == kw.ILLEGAL_GENERATION, hb

        # And the member can still commit at its generation.
        res = kw.offset_commit(conn, GROUP, {TOPIC: {0: (999999, "after")}},
                               generation_id=generation, member_id=member_id)
        assert res["errors"] == {(TOPIC, 0): 0}, res

        # A member id handed out after the restart must not repeat one handed
        # out before it (Kafka appends a random UUID to the client id).
        newcomer = kw.join_group(conn, GROUP, "", session_timeout_ms=60000,
                                 rebalance_timeout_ms=60000,
                                 protocols=(("range", b"member-metadata"),))
        assert newcomer["error_code"] == kw.MEMBER_ID_REQUIRED, newcomer
        assert newcomer["member_id"] != member_id, \
            "member id %s was handed out again after the restart" % member_id
        conn.close()


if __name__ == "__main__":
    run(main)
