# SPDX-License-Identifier: Apache-2.0
"""KIP-1071 streams groups in the admin views, the event timeline and the
group metrics.

Two raw StreamsGroupHeartbeat members ("a" static with instance id
"inst-a", "b" dynamic), each its own process with a user endpoint, run one
stateful subtopology reading a 4-partition topic with one standby replica
(group.streams.num.standby.replicas=1). Once the group is Stable:

- GET /v1/groups/{id} shows type streams, the group, assignment and
  topology epochs, the assignor, and per member its ids, process, user
  endpoint, epochs, state and active/standby/warm-up tasks by subtopology,
  which match the tasks each member got in its heartbeat responses; a
  committed offset shows its lag against the partition's end.
- GET /v1/groups lists it with its lag total; /metrics counts it under
  kcoord_groups{type="streams",state="Stable"}.
- b stops heartbeating: its session expires; a leaves (epoch -1); the group
  is deleted (DeleteGroups). /v1/events has member_joined for both,
  group_epoch_bumped (increasing, with a reason), session_expired for b,
  member_removed for a and group_deleted, and the view answers 404.
"""

import uuid

import kafka_wire as kw
from admin_client import Admin, parse_prometheus
from kcoord_harness import Kcoord, free_port, run, wait_for

GROUP = "sga-app"
SOURCE = "sga-in"
CHANGELOG = "sga-app-store-changelog"
NPART = 4
DEADLINE_S = 90
TOPOLOGY = (1, [{"id": "0", "source_topics": [SOURCE],
                 "changelog_topics": [(CHANGELOG, 0)]}])


def by_sub(tasks):
    """{(sub, p)} -> {"sub": [p...]} as the admin view prints task sets."""
    out = {}
    for sub, p in sorted(tasks):
        out.setdefault(sub, []).append(p)
    return out


class Member:
    def __init__(self, port, name, endpoint_port, instance_id=None):
        self.conn = kw.Conn(port)
        self.name = name
        self.instance_id = instance_id
        self.member_id = str(uuid.uuid4())
        self.process_id = str(uuid.uuid4())
        self.endpoint = ("localhost", endpoint_port)
        self.epoch = 0
        self.active, self.standby, self.warmup = set(), set(), set()

    def heartbeat(self, epoch=None):
        epoch = self.epoch if epoch is None else epoch
        args = dict(instance_id=self.instance_id, process_id=self.process_id,
                    user_endpoint=self.endpoint)
        if epoch == 0:
            # A joining member owns nothing: three empty lists (null is refused).
            args.update(topology=TOPOLOGY, rebalance_timeout_ms=30000,
                        active=set(), standby=set(), warmup=set())
        elif epoch > 0:
            args.update(active=self.active, standby=self.standby, warmup=self.warmup)
        r = kw.streams_group_heartbeat(self.conn, GROUP, self.member_id, epoch, **args)
        assert r["error_code"] == 0, (self.name, r)
        self.epoch = r["member_epoch"]
        if r["active"] is not None:
            self.active, self.standby, self.warmup = r["active"], r["standby"], r["warmup"]
        return r


def main():
    admin_port = free_port()
    overrides = {
        "admin.listeners": "http://127.0.0.1:%d" % admin_port,
        "group.streams.initial.rebalance.delay.ms": "0",
        "group.streams.assignment.interval.ms": "0",
        "group.streams.heartbeat.interval.ms": "500",
        "group.streams.session.timeout.ms": "3000",
        "group.streams.num.standby.replicas": "1",
    }
    with Kcoord("streams-group-admin", overrides) as k:
        admin = Admin(admin_port)
        with kw.Conn(k.port) as c:
            assert kw.create_topics(c, {SOURCE: NPART})["topics"][SOURCE][0] == 0
            assert kw.produce_v2(c, SOURCE, 0, [b"x", b"y", b"z"])[(SOURCE, 0)][0] == 0
        assert admin.request("GET", "/v1/groups/" + GROUP)[0] == 404

        a = Member(k.port, "a", 40001, instance_id="inst-a")
        b = Member(k.port, "b", 40002)
        members = [a, b]

        def stable():
            for m in members:
                m.heartbeat()
            g = admin.group(GROUP)
            ok = (g["state"] == "Stable" and len(g["members"]) == 2
                  and all(jm["member_epoch"] == g["assignment_epoch"] for jm in g["members"])
                  and all(m.epoch == g["assignment_epoch"] for m in members))
            return g if ok else None
        g = wait_for(stable, DEADLINE_S, "the streams group to be Stable")

        assert g["type"] == "streams" and g["protocol_type"] == "streams", g
        assert g["assignor"] == "sticky" and g["topology_epoch"] == 1, g
        assert g["group_epoch"] == g["assignment_epoch"] >= 2, g
        by_id = {jm["member_id"]: jm for jm in g["members"]}
        assert set(by_id) == {a.member_id, b.member_id}, g
        actives = set()
        for m in members:
            jm = by_id[m.member_id]
            assert jm["instance_id"] == m.instance_id and jm["rack_id"] is None, jm
            assert jm["process_id"] == m.process_id, jm
            assert jm["user_endpoint"] == {"host": "localhost", "port": m.endpoint[1]}, jm
            assert jm["client_id"] == "kcoord-itest", jm
            assert jm["client_host"].startswith("/127.0.0.1"), jm
            assert jm["state"] == "stable" and jm["topology_epoch"] == 1, jm
            assert jm["rebalance_timeout_ms"] == 30000, jm
            assert jm["member_epoch"] == m.epoch, (jm, m.epoch)
            want = {"active": by_sub(m.active), "standby": by_sub(m.standby),
                    "warmup": by_sub(m.warmup)}
            assert jm["assigned_tasks"] == want, (jm, want)
            assert jm["target_assignment"] == want, jm
            assert jm["tasks_pending_revocation"] == {"active": {}, "standby": {},
                                                      "warmup": {}}, jm
            actives |= m.active
            # One standby replica: each member stands by for the other's tasks.
            other = b if m is a else a
            assert m.standby == other.active, (m.name, m.standby, other.active)
        assert actives == {("0", p) for p in range(NPART)}, actives
        assert a.active and b.active, (a.active, b.active)

        # Offsets and lag, as for the other group types.
        with kw.Conn(k.port) as c:
            assert kw.offset_commit_v9(c, GROUP, {(SOURCE, 0): 1}, a.epoch,
                                       a.member_id) == {(SOURCE, 0): 0}
        g = admin.group(GROUP)
        assert g["committed_partitions"] == 1 and g["lag_total"] == 2, g
        (off,) = g["offsets"]
        assert (off["topic"], off["partition"], off["offset"], off["log_end_offset"],
                off["lag"]) == (SOURCE, 0, 1, 3, 2), off
        listed = admin.json("GET", "/v1/groups")["groups"]
        (lg,) = [x for x in listed if x["group_id"] == GROUP]
        assert lg["type"] == "streams" and lg["lag_total"] == 2 and "offsets" not in lg, lg
        assert lg["group_epoch"] == g["group_epoch"], lg

        fam = parse_prometheus(admin.metrics())["kcoord_groups"]
        counts = {(lb["type"], lb["state"]): v for _, lb, v in fam["samples"]}
        assert counts[("streams", "Stable")] == 1, counts
        assert counts[("streams", "NotReady")] == 0, counts
        assert counts[("classic", "Stable")] == 0, counts

        # b stops heartbeating: its session expires; then a leaves.
        def b_gone():
            a.heartbeat()
            g2 = admin.group(GROUP)
            return g2 if [jm["member_id"] for jm in g2["members"]] == [a.member_id] else None
        wait_for(b_gone, DEADLINE_S, "the session of b to expire")
        r = a.heartbeat(epoch=-1)
        assert r["member_epoch"] == -1, r
        g = admin.group(GROUP)
        assert g["state"] == "Empty" and g["members"] == [], g
        with kw.Conn(k.port) as c:
            assert kw.delete_groups_v2(c, [GROUP]) == {GROUP: 0}
        assert admin.request("GET", "/v1/groups/" + GROUP)[0] == 404

        ev = admin.json("GET", "/v1/events")["events"]
        mine = [e for e in ev if e["group_id"] == GROUP]
        # group_deleted included: the event comes before the group goes.
        assert all(e["group_type"] == "streams" for e in mine), mine
        joined = [e["member_id"] for e in mine if e["type"] == "member_joined"]
        assert sorted(joined) == sorted([a.member_id, b.member_id]), mine
        bumps = [e for e in mine if e["type"] == "group_epoch_bumped"]
        assert len(bumps) >= 4 and all(e["reason"] for e in bumps), bumps
        gens = [e["generation"] for e in bumps]
        assert gens == sorted(set(gens)), bumps
        (exp,) = [e for e in mine if e["type"] == "session_expired"]
        assert exp["member_id"] == b.member_id and exp["reason"], exp
        (rem,) = [e for e in mine if e["type"] == "member_removed"]
        assert rem["member_id"] == a.member_id and "left" in rem["reason"], rem
        (dele,) = [e for e in mine if e["type"] == "group_deleted"]
        assert dele["reason"] == "DeleteGroups" and dele["member_id"] is None, dele
        assert dele["generation"] == bumps[-1]["generation"], (dele, bumps)
        order = [e["type"] for e in mine]
        assert order.index("session_expired") < order.index("member_removed") < \
            order.index("group_deleted"), order
        assert not any(e["type"].startswith("rebalance_") for e in mine), mine
        for m in members:
            m.conn.close()
        print("streams group view, lag, metrics and %d events checked" % len(mine))


if __name__ == "__main__":
    run(main)
