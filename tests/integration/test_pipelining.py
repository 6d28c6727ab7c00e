# SPDX-License-Identifier: Apache-2.0
"""Pipelined requests behind a parked JoinGroup come back in order.

Member A forms a group. Members B and C each send, in one write on their
own connection, a JoinGroup (parked: the rebalance waits for A) followed by
a second request that only makes sense after the join completed:

  B: JoinGroup, then Heartbeat at the new generation
     -> NONE (CompletingRebalance); had kcoord processed it while the join was
        parked it would have answered REBALANCE_IN_PROGRESS or ILLEGAL_GENERATION
  C: JoinGroup, then OffsetCommit at the new generation
     -> REBALANCE_IN_PROGRESS on every partition (CompletingRebalance refuses
        commits), then ApiVersions v3 (flexible request, header v0 response)

Nothing may come back on B or C before A rejoins; afterwards the responses
arrive in request order with matching correlation ids.
"""

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "pipe-topic"
GROUP = "pipe-group"
DEADLINE_S = 60
PROTOCOLS = (("range", b"meta"),)
TIMEOUTS = {"session_timeout_ms": 60000, "rebalance_timeout_ms": 60000}


def main():
    with Kcoord("pipelining") as k:
        ca = kw.Conn(k.port)
        res = kw.create_topics(ca, {TOPIC: 2})
        assert res["topics"] == {TOPIC: (0, None)}, res

        ja = kw.join_dynamic(ca, GROUP, protocols=PROTOCOLS, **TIMEOUTS)
        assert ja["error_code"] == 0, ja
        a_id, gen1 = ja["member_id"], ja["generation_id"]
        sa = kw.sync_group(ca, GROUP, gen1, a_id, [(a_id, b"A1")])
        assert sa["error_code"] == 0 and sa["assignment"] == b"A1", sa

        # B and C get their member ids (MEMBER_ID_REQUIRED is answered at once).
        cb, cc = kw.Conn(k.port), kw.Conn(k.port)
        b_first = kw.join_group(cb, GROUP, "", protocols=PROTOCOLS, **TIMEOUTS)
        c_first = kw.join_group(cc, GROUP, "", protocols=PROTOCOLS, **TIMEOUTS)
        assert b_first["error_code"] == kw.MEMBER_ID_REQUIRED, b_first
        assert c_first["error_code"] == kw.MEMBER_ID_REQUIRED, c_first
        b_id, c_id = b_first["member_id"], c_first["member_id"]
        gen2 = gen1 + 1

        b_join, b_join_bytes = cb.encode(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(
            GROUP, b_id, protocols=PROTOCOLS, **TIMEOUTS))
        b_hb, b_hb_bytes = cb.encode(kw.API_HEARTBEAT, 3, kw.heartbeat_v3_body(GROUP, gen2, b_id))
        cb.sock.sendall(b_join_bytes + b_hb_bytes)

        c_join, c_join_bytes = cc.encode(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(
            GROUP, c_id, protocols=PROTOCOLS, **TIMEOUTS))
        c_oc, c_oc_bytes = cc.encode(kw.API_OFFSET_COMMIT, 7, kw.offset_commit_v7_body(
            GROUP, {TOPIC: {0: (10, None), 1: (11, None)}}, generation_id=gen2, member_id=c_id))
        c_av, c_av_bytes = cc.encode(kw.API_API_VERSIONS, 3, kw.api_versions_body(3),
                                     flexible=True)
        cc.sock.sendall(c_join_bytes + c_oc_bytes + c_av_bytes)

        # Wait until kcoord has taken both joins: the group is rebalancing with
        # A, B and C as members.
        ctl = kw.Conn(k.port)

        def rebalancing_with_three():
            g = kw.describe_groups(ctl, [GROUP])["groups"][0]
            return g["state"] == "PreparingRebalance" and \
                sorted(m["member_id"] for m in g["members"]) == sorted([a_id, b_id, c_id])
        wait_for(rebalancing_with_three, DEADLINE_S, "PreparingRebalance with members A, B, C")

        # Both joins are parked, so nothing at all is answered on B or C.
        assert not cb.readable_within(0.3), "B got a response while its JoinGroup is parked"
        assert not cc.readable_within(0.3), "C got a response while its JoinGroup is parked"

        # A's heartbeat learns of the rebalance; its rejoin completes it.
        hb = kw.heartbeat(ca, GROUP, gen1, a_id)
        assert hb["error_code"] == kw.REBALANCE_IN_PROGRESS, hb
        ja2 = kw.join_group(ca, GROUP, a_id, protocols=PROTOCOLS, **TIMEOUTS)
        assert ja2["error_code"] == 0 and ja2["generation_id"] == gen2, ja2
        assert ja2["leader"] == a_id, ja2
        assert sorted(m["member_id"] for m in ja2["members"]) == sorted([a_id, b_id, c_id]), ja2

        # B: JoinGroup response, then the heartbeat's, in order.
        corr, r = cb.recv()
        assert corr == b_join, (corr, b_join)
        jb = kw.decode_join_group_v5(r)
        assert jb["error_code"] == 0 and jb["generation_id"] == gen2, jb
        assert jb["member_id"] == b_id and jb["leader"] == a_id and jb["members"] == [], jb
        corr, r = cb.recv()
        assert corr == b_hb, (corr, b_hb)
        assert kw.decode_heartbeat_v3(r)["error_code"] == 0, "B heartbeat after join"

        # C: JoinGroup, OffsetCommit (refused while CompletingRebalance), ApiVersions.
        corr, r = cc.recv()
        assert corr == c_join, (corr, c_join)
        jc = kw.decode_join_group_v5(r)
        assert jc["error_code"] == 0 and jc["generation_id"] == gen2, jc
        assert jc["member_id"] == c_id and jc["members"] == [], jc
        corr, r = cc.recv()
        assert corr == c_oc, (corr, c_oc)
        oc = kw.decode_offset_commit_v7(r)
        assert oc["errors"] == {(TOPIC, 0): kw.REBALANCE_IN_PROGRESS,
                                (TOPIC, 1): kw.REBALANCE_IN_PROGRESS}, oc
        corr, r = cc.recv(flexible_header=False)
        assert corr == c_av, (corr, c_av)
        av = kw.decode_api_versions(r, 3)
        assert av["error_code"] == 0 and kw.API_JOIN_GROUP in av["api_keys"], av

        # Finish the rebalance: followers' syncs wait for the leader's.
        sb_corr = cb.send(kw.API_SYNC_GROUP, 3, kw.sync_group_v3_body(GROUP, gen2, b_id))
        sc_corr = cc.send(kw.API_SYNC_GROUP, 3, kw.sync_group_v3_body(GROUP, gen2, c_id))
        sa = kw.sync_group(ca, GROUP, gen2, a_id,
                           [(a_id, b"A2"), (b_id, b"B2"), (c_id, b"C2")])
        assert sa["error_code"] == 0 and sa["assignment"] == b"A2", sa
        corr, r = cb.recv()
        assert corr == sb_corr, (corr, sb_corr)
        sb = kw.decode_sync_group_v3(r)
        assert sb["error_code"] == 0 and sb["assignment"] == b"B2", sb
        corr, r = cc.recv()
        assert corr == sc_corr, (corr, sc_corr)
        sc = kw.decode_sync_group_v3(r)
        assert sc["error_code"] == 0 and sc["assignment"] == b"C2", sc

        # Stable now: C's commit at the new generation is accepted.
        oc = kw.offset_commit(cc, GROUP, {TOPIC: {0: (10, None), 1: (11, None)}},
                              generation_id=gen2, member_id=c_id)
        assert oc["errors"] == {(TOPIC, 0): 0, (TOPIC, 1): 0}, oc
        g = kw.describe_groups(ctl, [GROUP])["groups"][0]
        assert g["state"] == "Stable" and len(g["members"]) == 3, g

        for c in (ca, cb, cc, ctl):
            c.close()


if __name__ == "__main__":
    run(main)
