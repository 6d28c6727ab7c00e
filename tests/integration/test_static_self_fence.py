# SPDX-License-Identifier: Apache-2.0
"""The static-member self-fence race, driven on the wire with the stall fault.

Group G has static members S (inst-s) and U (inst-u), Stable. A new static
member T joins, so G is PreparingRebalance and waits for S and U to rejoin.

Race (S lost its member id and rejoins with an unknown one):
  1. the admin endpoint stalls the coordinator;
  2. on connection A, S sends a Heartbeat (old member id) and, in the same
     write, a JoinGroup with an unknown member id; kcoord reads the heartbeat
     and queues it, and does not read A again (one request in flight), so the
     JoinGroup stays unread in the socket;
  3. S gives up on A and sends the same JoinGroup on connection B; it is read
     and queued behind the heartbeat;
  4. the stall is cleared: the heartbeat is answered REBALANCE_IN_PROGRESS;
     B's join replaces S's member id (static replacement) and waits for U;
     A, unmuted, is read again: its abandoned join replaces the member id once
     more, and B's pending join is answered FENCED_INSTANCE_ID with B's id;
  5. U rejoins: the abandoned join on A gets the new generation.

Fix (the client keeps its member id when it sent no LeaveGroup): the same
sequence with both joins carrying the old member id never fences. B's
pending join is superseded by A's (Kafka keeps only the newest future of a
member and never answers the older one); after the rebalance, S's retried
join on B is answered with the new generation and its own member id.
"""

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for

DEADLINE_S = 60
FENCED_INSTANCE_ID = 82
# Every JoinGroup's timeouts, longer than any step, and its protocol: a real
# consumer subscription, which a Java member leading the group can read
# (test_java_classic_consumer plays the race with one).
JOIN_ARGS = {"session_timeout_ms": 120000, "rebalance_timeout_ms": 120000,
             "protocols": (("range", kw.consumer_subscription_v0(["fence-topic"])),)}


def join(conn, group, member_id, inst):
    return kw.join_group(conn, group, member_id, group_instance_id=inst, **JOIN_ARGS)


def stable_group(k, group):
    """S and U Stable at a generation; T joining, so PreparingRebalance. Returns
    (s member id, generation, u conn, u id, t conn)."""
    cs, cu, ct = kw.Conn(k.port), kw.Conn(k.port), kw.Conn(k.port)
    js = join(cs, group, "", "inst-s")
    assert js["error_code"] == 0, js
    s_id, gen = js["member_id"], js["generation_id"]
    assert kw.sync_group(cs, group, gen, s_id, [(s_id, b"")], group_instance_id="inst-s")[
        "error_code"] == 0
    # U joins: the rebalance waits for S, whose heartbeat learns of it.
    u_corr = cu.send(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(
        group, "", group_instance_id="inst-u", **JOIN_ARGS))
    wait_for(lambda: kw.heartbeat(cs, group, gen, s_id, group_instance_id="inst-s")[
        "error_code"] == kw.REBALANCE_IN_PROGRESS, DEADLINE_S, "rebalance for U")
    js = join(cs, group, s_id, "inst-s")
    got, r = cu.recv()
    ju = kw.decode_join_group_v5(r)
    assert got == u_corr and ju["error_code"] == 0 and js["error_code"] == 0, (ju, js)
    gen, u_id = js["generation_id"], ju["member_id"]
    assert kw.sync_group(cs, group, gen, s_id, [(s_id, b""), (u_id, b"")],
                         group_instance_id="inst-s")["error_code"] == 0
    assert kw.sync_group(cu, group, gen, u_id, group_instance_id="inst-u")["error_code"] == 0
    # T joins: PreparingRebalance, waiting for S and U.
    t_corr = ct.send(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(
        group, "", group_instance_id="inst-t", **JOIN_ARGS))
    cs.close()
    return s_id, gen, cu, u_id, ct, t_corr


def stall_and_race(k, admin, group, s_id, gen, a_join_id, b_join_id):
    admin.add_fault(type="stall", duration_ms=120000)
    ca, cb = kw.Conn(k.port), kw.Conn(k.port)
    hb_corr, hb = ca.encode(kw.API_HEARTBEAT, 3, kw.heartbeat_v3_body(
        group, gen, s_id, group_instance_id="inst-s"))
    aj_corr, aj = ca.encode(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(
        group, a_join_id, group_instance_id="inst-s", **JOIN_ARGS))
    ca.sock.sendall(hb + aj)
    wait_for(lambda: admin.faults()["stall_queue"] == 1, DEADLINE_S, "A's heartbeat queued")
    bj_corr = cb.send(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(
        group, b_join_id, group_instance_id="inst-s", **JOIN_ARGS))
    wait_for(lambda: admin.faults()["stall_queue"] == 2, DEADLINE_S, "B's join queued")
    assert not ca.readable_within(0.2) and not cb.readable_within(0.2)
    assert admin.clear_faults()["cleared"] == 1
    got, r = ca.recv()
    assert got == hb_corr, (got, hb_corr)
    assert kw.decode_heartbeat_v3(r)["error_code"] == kw.REBALANCE_IN_PROGRESS
    return ca, cb, aj_corr, bj_corr


def member(admin, group, inst):
    g = admin.group(group)
    ms = [m for m in g["members"] if m["group_instance_id"] == inst]
    assert len(ms) == 1, g
    return g, ms[0]


def rejoin_u_and_finish(group, cu, u_id, ct, t_corr):
    ju = join(cu, group, u_id, "inst-u")
    assert ju["error_code"] == 0, ju
    got, r = ct.recv()
    assert got == t_corr and kw.decode_join_group_v5(r)["error_code"] == 0
    return ju["generation_id"]


def main():
    admin_port = free_port()
    with Kcoord("static_self_fence",
                {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        admin = Admin(admin_port)

        # ---- the race: S rejoins with an unknown member id on A and on B ----
        group = "fence-group"
        s_id, gen, cu, u_id, ct, t_corr = stable_group(k, group)
        ca, cb, aj_corr, bj_corr = stall_and_race(k, admin, group, s_id, gen, "", "")
        got, r = cb.recv()
        jb = kw.decode_join_group_v5(r)
        assert got == bj_corr, (got, bj_corr)
        assert jb["error_code"] == FENCED_INSTANCE_ID, jb
        assert jb["generation_id"] == -1 and jb["leader"] == "" and jb["members"] == [], jb
        b_id = jb["member_id"]
        assert b_id not in ("", s_id), jb
        g, m = member(admin, group, "inst-s")
        assert g["state"] == "PreparingRebalance" and m["awaiting_join"], g
        a_id = m["member_id"]
        assert a_id not in (s_id, b_id), (a_id, s_id, b_id)
        gen2 = rejoin_u_and_finish(group, cu, u_id, ct, t_corr)
        got, r = ca.recv()
        ja = kw.decode_join_group_v5(r)
        assert got == aj_corr and ja["error_code"] == 0, ja
        assert ja["member_id"] == a_id and ja["generation_id"] == gen2, (ja, a_id, gen2)
        # The client on B holds a fenced member id: its SyncGroup is fenced too.
        sb = kw.sync_group(cb, group, gen2, b_id, group_instance_id="inst-s")
        assert sb["error_code"] == FENCED_INSTANCE_ID, sb
        # Each fence and transition is one log line naming the group, the
        # member ids, the instance id, the generation and the reason.
        log = k.stderr_text()
        for line in (
                "[GroupId %s] Static member %s with group instance id inst-s is fenced in "
                "generation %d: member %s replaced it; its pending JoinGroup is answered "
                "FENCED_INSTANCE_ID." % (group, b_id, gen, a_id),
                "[GroupId %s] Request memberId=%s for static member with groupInstanceId=inst-s "
                "is fenced by existing memberId=%s during operation sync-group (generation %d)"
                % (group, b_id, a_id, gen2),
                "Group %s transitioned from PreparingRebalance to CompletingRebalance in "
                "generation %d: every member has rejoined." % (group, gen2)):
            assert line in log, line
        for c in (ca, cb, cu, ct):
            c.close()

        # ---- the fix: both joins keep the member id S already had ----
        group = "fix-group"
        s_id, gen, cu, u_id, ct, t_corr = stable_group(k, group)
        ca, cb, aj_corr, bj_corr = stall_and_race(k, admin, group, s_id, gen, s_id, s_id)
        g, m = member(admin, group, "inst-s")
        assert m["member_id"] == s_id and m["awaiting_join"], g
        assert not cb.readable_within(0.3), "B's join must wait for the rebalance"
        gen2 = rejoin_u_and_finish(group, cu, u_id, ct, t_corr)
        got, r = ca.recv()
        ja = kw.decode_join_group_v5(r)
        assert got == aj_corr and ja["error_code"] == 0 and ja["member_id"] == s_id, ja
        # B's join was superseded by A's and is never answered; the client
        # retries it on B and gets the generation, with its member id intact.
        assert not cb.readable_within(0.3), "a superseded join is not answered"
        cb2 = kw.Conn(k.port)
        jb = join(cb2, group, s_id, "inst-s")
        assert jb["error_code"] == 0 and jb["member_id"] == s_id, jb
        assert jb["generation_id"] == gen2, (jb, gen2)
        g, m = member(admin, group, "inst-s")
        assert m["member_id"] == s_id, g
        assert "fault" in k.stderr_text() and "queued" in k.stderr_text()
        assert "[GroupId %s] Static member %s" % (group, s_id) not in k.stderr_text(), \
            "keeping the member id must not fence anything"


if __name__ == "__main__":
    run(main)
