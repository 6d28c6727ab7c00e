# SPDX-License-Identifier: Apache-2.0
"""KIP-814 end to end on the raw wire: a restarted static leader gets
SkipAssignment, and a partition change it notices makes it rebalance.

Two static members L (inst-l) and F (inst-f) form group G on a 2-partition
topic with JoinGroup v9 / SyncGroup v5; L is the leader and assigns with the
range rule. L "restarts": a new connection sends JoinGroup v9 with an empty
member id and inst-l within the session timeout. As Kafka, the coordinator
replaces L's member id without a rebalance and answers the new id as leader,
with the member list and SkipAssignment=true; the group stays Stable (F's
heartbeat gets NONE, the old id is fenced). CreatePartitions raises the topic
to 4 partitions and Metadata shows 4 at once. L, which watches metadata,
rejoins with an updated subscription: the group rebalances (F's heartbeat
gets REBALANCE_IN_PROGRESS), both rejoin into the next generation, and L's
new assignment covers the 4 partitions.
"""

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

DEADLINE_S = 60
TOPIC = "kip814-topic"
GROUP = "kip814-group"
TIMEOUTS = {"session_timeout_ms": 120000, "rebalance_timeout_ms": 120000}


def protocols(user_data=b""):
    return (("range", kw.consumer_subscription_v0([TOPIC], user_data)),)


def range_assignment(member_ids, partitions):
    """Kafka's range rule for one topic: members sorted, the first ones get
    one extra partition when the count does not divide."""
    members = sorted(member_ids)
    per, extra = divmod(partitions, len(members))
    out, start = {}, 0
    for i, m in enumerate(members):
        n = per + (1 if i < extra else 0)
        out[m] = {TOPIC: list(range(start, start + n))}
        start += n
    return out


def leader_sync(conn, gen, leader_id, inst, plan):
    assignments = [(m, kw.consumer_assignment_v0(p)) for m, p in sorted(plan.items())]
    return kw.sync_group_v5(conn, GROUP, gen, leader_id, assignments,
                            group_instance_id=inst)


def main():
    with Kcoord("kip814_static_leader") as k:
        admin = kw.Conn(k.port)
        created = kw.create_topics(admin, {TOPIC: 2})
        assert created["topics"][TOPIC][0] == kw.NONE, created

        # ---- L and F form the group (L first, so L leads) ----
        cl, cf = kw.Conn(k.port), kw.Conn(k.port)
        jl = kw.join_group_v9(cl, GROUP, "", group_instance_id="inst-l",
                              protocols=protocols(), **TIMEOUTS)
        assert jl["error_code"] == kw.NONE, jl
        l_id, gen = jl["member_id"], jl["generation_id"]
        assert jl["leader"] == l_id and not jl["skip_assignment"], jl
        plan = range_assignment([l_id], 2)
        assert leader_sync(cl, gen, l_id, "inst-l", plan)["error_code"] == kw.NONE
        # F joins: the rebalance waits for L, who learns of it by heartbeat.
        f_corr = cf.send(kw.API_JOIN_GROUP, 9, kw.join_group_v9_body(
            GROUP, "", group_instance_id="inst-f", protocols=protocols(), **TIMEOUTS),
            flexible=True)
        wait_for(lambda: kw.heartbeat(cl, GROUP, gen, l_id, group_instance_id="inst-l")[
            "error_code"] == kw.REBALANCE_IN_PROGRESS, DEADLINE_S, "rebalance for F")
        jl = kw.join_group_v9(cl, GROUP, l_id, group_instance_id="inst-l",
                              protocols=protocols(), **TIMEOUTS)
        got, r = cf.recv(flexible_header=True)
        jf = kw.decode_join_group_v9(r)
        assert got == f_corr and jf["error_code"] == kw.NONE, jf
        assert jl["error_code"] == kw.NONE and jl["leader"] == l_id, jl
        gen, f_id = jl["generation_id"], jf["member_id"]
        assert jf["generation_id"] == gen and jf["leader"] == l_id and jf["members"] == [], jf
        assert {m["member_id"] for m in jl["members"]} == {l_id, f_id}, jl
        plan = range_assignment([l_id, f_id], 2)
        sl = leader_sync(cl, gen, l_id, "inst-l", plan)
        sf = kw.sync_group_v5(cf, GROUP, gen, f_id, group_instance_id="inst-f")
        assert sl["error_code"] == kw.NONE and sf["error_code"] == kw.NONE, (sl, sf)
        assert (sl["protocol_type"], sl["protocol_name"]) == ("consumer", "range"), sl
        assert kw.decode_consumer_assignment(sl["assignment"]) == plan[l_id], sl
        assert kw.decode_consumer_assignment(sf["assignment"]) == plan[f_id], sf
        f_parts = plan[f_id]

        # ---- L restarts: new connection, empty member id, same instance id ----
        cl.close()
        cl = kw.Conn(k.port)
        jr = kw.join_group_v9(cl, GROUP, "", group_instance_id="inst-l",
                              protocols=protocols(), **TIMEOUTS)
        assert jr["error_code"] == kw.NONE, jr
        new_l = jr["member_id"]
        assert new_l and new_l != l_id, (jr, l_id)
        assert jr["generation_id"] == gen, (jr, gen)
        assert jr["leader"] == new_l and jr["skip_assignment"] is True, jr
        assert (jr["protocol_type"], jr["protocol_name"]) == ("consumer", "range"), jr
        members = {m["member_id"]: m for m in jr["members"]}
        assert set(members) == {new_l, f_id}, jr
        assert members[new_l]["group_instance_id"] == "inst-l", jr
        assert members[f_id]["group_instance_id"] == "inst-f", jr
        for m in members.values():
            assert kw.decode_consumer_subscription(m["metadata"])["topics"] == [TOPIC], m
        # No rebalance: F's heartbeat is NONE; the replaced id is fenced.
        hf = kw.heartbeat(cf, GROUP, gen, f_id, group_instance_id="inst-f")
        assert hf["error_code"] == kw.NONE, hf
        old = kw.Conn(k.port)
        ho = kw.heartbeat(old, GROUP, gen, l_id, group_instance_id="inst-l")
        assert ho["error_code"] == kw.FENCED_INSTANCE_ID, ho
        old.close()
        # Told to skip the assignment, L syncs with none and keeps its own.
        sr = kw.sync_group_v5(cl, GROUP, gen, new_l, group_instance_id="inst-l")
        assert sr["error_code"] == kw.NONE, sr
        assert kw.decode_consumer_assignment(sr["assignment"]) == plan[l_id], sr
        assert kw.heartbeat(cf, GROUP, gen, f_id, group_instance_id="inst-f")[
            "error_code"] == kw.NONE

        # ---- the topic grows to 4 partitions; Metadata shows it at once ----
        cp = kw.create_partitions(admin, {TOPIC: 4})
        assert cp["results"] == {TOPIC: (kw.NONE, None)}, cp
        md = kw.metadata_v1(admin, [TOPIC])
        t = md["topics"][TOPIC]
        assert t["error_code"] == kw.NONE, md
        assert sorted(p["partition"] for p in t["partitions"]) == [0, 1, 2, 3], md
        assert all(p["error_code"] == kw.NONE for p in t["partitions"]), md

        # ---- L notices and rejoins with updated subscription metadata ----
        l_corr = cl.send(kw.API_JOIN_GROUP, 9, kw.join_group_v9_body(
            GROUP, new_l, group_instance_id="inst-l", protocols=protocols(b"4"),
            reason="metadata changed", **TIMEOUTS), flexible=True)
        wait_for(lambda: kw.heartbeat(cf, GROUP, gen, f_id, group_instance_id="inst-f")[
            "error_code"] == kw.REBALANCE_IN_PROGRESS, DEADLINE_S, "rebalance for L's rejoin")
        assert not cl.readable_within(0.2), "L's join must wait for F"
        jf = kw.join_group_v9(cf, GROUP, f_id, group_instance_id="inst-f",
                              protocols=protocols(), **TIMEOUTS)
        got, r = cl.recv(flexible_header=True)
        jl = kw.decode_join_group_v9(r)
        assert got == l_corr and jl["error_code"] == kw.NONE, jl
        assert jf["error_code"] == kw.NONE, jf
        gen2 = jl["generation_id"]
        assert gen2 == gen + 1 and jf["generation_id"] == gen2, (jl, jf, gen)
        assert jl["member_id"] == new_l and jl["leader"] == new_l, jl
        assert jl["skip_assignment"] is False and jf["skip_assignment"] is False, (jl, jf)
        assert jf["leader"] == new_l and jf["members"] == [], jf
        members = {m["member_id"]: m for m in jl["members"]}
        assert set(members) == {new_l, f_id}, jl
        assert members[new_l]["metadata"] == protocols(b"4")[0][1], jl
        plan = range_assignment([new_l, f_id], 4)
        sl = leader_sync(cl, gen2, new_l, "inst-l", plan)
        sf = kw.sync_group_v5(cf, GROUP, gen2, f_id, group_instance_id="inst-f")
        assert sl["error_code"] == kw.NONE and sf["error_code"] == kw.NONE, (sl, sf)
        got_l = kw.decode_consumer_assignment(sl["assignment"])
        got_f = kw.decode_consumer_assignment(sf["assignment"])
        assert got_l == plan[new_l] and got_f == plan[f_id], (got_l, got_f, plan)
        assert sorted(got_l[TOPIC] + got_f[TOPIC]) == [0, 1, 2, 3], (got_l, got_f)
        assert got_f != f_parts, "F's share moved with the new partitions"
        for c in (cl, cf):
            assert kw.heartbeat(c, GROUP, gen2, new_l if c is cl else f_id,
                                group_instance_id="inst-l" if c is cl else "inst-f")[
                "error_code"] == kw.NONE
        for c in (cl, cf, admin):
            c.close()


if __name__ == "__main__":
    run(main)
