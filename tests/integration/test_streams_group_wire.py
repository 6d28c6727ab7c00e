# SPDX-License-Identifier: Apache-2.0
"""KIP-1071 streams group over the raw protocol: three members, a leave, a
static member restarting, and a broker restart.

Raw StreamsGroupHeartbeat clients behave as Kafka Streams members do: they
report the active, standby and warm-up tasks they own (all three lists, as
KAFKA-20870 requires) and adopt each assignment a response carries. After
every response the test checks that no task is active on two members.

The first member's topology (one stateful subtopology reading a 6-partition
topic) needs a changelog topic that does not exist: the first responses
carry status MISSING_INTERNAL_TOPICS, kcoord creates the topic in its own
log with the task count as partition count (seen through Metadata), and the
group then becomes ready. Two more members join (one static), the group
converges to Stable with the tasks spread 2/2/2, a dynamic member leaves,
the static member restarts (leave with -2, rejoin under a new member id and
the same instance id: it gets its tasks back), kcoord restarts and the group
comes back with the same epochs. ListGroups shows the group with type
"streams"; OffsetCommit v9 checks the member epoch; DeleteGroups refuses the
non-empty group and deletes it once every member left.
"""

import uuid

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

GROUP = "sgw-app"
SOURCE = "sgw-in"
CHANGELOG = "sgw-app-store-changelog"
NPART = 6
DEADLINE_S = 90
TOPOLOGY = (1, [{"id": "0", "source_topics": [SOURCE],
                 "changelog_topics": [(CHANGELOG, 0)]}])
OVERRIDES = {
    "group.streams.initial.rebalance.delay.ms": "0",
    "group.streams.assignment.interval.ms": "0",
    "group.streams.heartbeat.interval.ms": "500",
}

MISSING_INTERNAL_TOPICS = 3
STALE_MEMBER_EPOCH = 113
NON_EMPTY_GROUP = 68


class Member:
    def __init__(self, kc, name, instance_id=None):
        self.kc = kc
        self.name = name
        self.instance_id = instance_id
        self.member_id = str(uuid.uuid4())
        self.process_id = str(uuid.uuid4())
        self.epoch = 0
        self.active, self.standby, self.warmup = set(), set(), set()
        self.left = False
        self.conn = None

    def connection(self):
        if self.conn is None:
            self.conn = kw.Conn(self.kc.port)
        return self.conn

    def drop_connection(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def heartbeat(self, epoch=None, **extra):
        epoch = self.epoch if epoch is None else epoch
        args = dict(instance_id=self.instance_id, process_id=self.process_id,
                    user_endpoint=("localhost", 40000 + len(self.name)))
        if epoch == 0:
            # A joining member owns nothing: three empty lists (null is refused).
            args.update(topology=TOPOLOGY, rebalance_timeout_ms=30000,
                        active=set(), standby=set(), warmup=set())
        elif epoch > 0:
            args.update(active=self.active, standby=self.standby, warmup=self.warmup)
        args.update(extra)
        return kw.streams_group_heartbeat(self.connection(), GROUP, self.member_id, epoch, **args)

    def apply(self, r):
        assert r["error_code"] == 0, (self.name, r)
        self.epoch = r["member_epoch"]
        if r["active"] is not None:
            self.active, self.standby, self.warmup = r["active"], r["standby"], r["warmup"]


class Group:
    def __init__(self, kc):
        self.kc = kc
        self.members = []
        self.heartbeats = 0

    def live(self):
        return [m for m in self.members if not m.left]

    def check_disjoint(self, context):
        seen = {}
        for m in self.live():
            for t in m.active:
                if t in seen:
                    raise AssertionError("%s: task %r active on %s and %s"
                                         % (context, t, seen[t], m.name))
                seen[t] = m.name

    def beat(self, m, **extra):
        r = m.heartbeat(**extra)
        m.apply(r)
        self.heartbeats += 1
        self.check_disjoint("after a heartbeat of %s" % m.name)
        return r

    def join(self, name, instance_id=None):
        m = Member(self.kc, name, instance_id)
        self.members.append(m)
        r = self.beat(m, epoch=0)
        return m, r

    def describe(self):
        with kw.Conn(self.kc.port) as c:
            return kw.streams_group_describe(c, [GROUP])["groups"][GROUP]

    def converge(self, what):
        def stable():
            for m in self.live():
                self.beat(m)
            g = self.describe()
            ok = (g["group_state"] == "Stable"
                  and all(g["members"][m.member_id]["member_epoch"] == g["assignment_epoch"]
                          for m in self.live()))
            return g if ok else None
        return wait_for(stable, DEADLINE_S, what)


def main():
    with Kcoord("streams-group-wire", overrides=OVERRIDES) as k:
        with kw.Conn(k.port) as c:
            assert kw.create_topics(c, {SOURCE: NPART})["topics"][SOURCE][0] == 0
        grp = Group(k)
        a, r = grp.join("a")
        codes = [s[0] for s in r["status"]]
        assert MISSING_INTERNAL_TOPICS in codes, r
        detail = dict(r["status"])[MISSING_INTERNAL_TOPICS]
        assert detail == "Internal topics are missing: %s" % CHANGELOG, detail
        assert r["active"] == set(), r
        assert grp.describe()["group_state"] == "NotReady"

        # kcoord created the changelog topic with one partition per task.
        def created():
            with kw.Conn(k.port) as c:
                md = kw.metadata_v1(c, [CHANGELOG])
            t = md["topics"].get(CHANGELOG)
            return t is not None and t["error_code"] == 0 and len(t["partitions"]) == NPART
        wait_for(created, DEADLINE_S, "the changelog topic")
        g = grp.converge("one member with every task")
        assert len(a.active) == NPART, a.active
        assert g["topology"]["epoch"] == 1, g

        b, _ = grp.join("b")
        c_, _ = grp.join("c", instance_id="instance-c")
        g = grp.converge("three members")
        assert sorted(len(m.active) for m in grp.live()) == [2, 2, 2]
        assert set().union(*(m.active for m in grp.live())) == {("0", p) for p in range(NPART)}

        with kw.Conn(k.port) as c:
            err, groups = kw.list_groups_v5(c, types=["streams"])
        assert err == 0 and (GROUP, "streams", "Stable", "streams") in groups, groups
        # One log line per state transition, naming the group and its epochs.
        log = k.stderr_text()
        for before, after in (("Empty", "NotReady"), ("NotReady", "Stable"),
                              ("Reconciling", "Stable")):
            assert "[GroupId %s] Streams group transitioned from %s to %s" % (
                GROUP, before, after) in log, (before, after)

        # OffsetCommit: the member epoch is checked (v9+ only for streams
        # members). An older epoch passes for a task the member holds since
        # then (KIP-1251): a kept two of the tasks it got at its first epoch,
        # two joins ago; not for a task it does not hold.
        mine = min(p for _, p in a.active)
        other = min(p for p in range(NPART) if ("0", p) not in a.active)
        with kw.Conn(k.port) as c:
            ok = kw.offset_commit_v9(c, GROUP, {(SOURCE, mine): 5}, a.epoch, a.member_id)
            kept = kw.offset_commit_v9(c, GROUP, {(SOURCE, mine): 6}, a.epoch - 1, a.member_id)
            stale = kw.offset_commit_v9(c, GROUP, {(SOURCE, other): 7}, a.epoch - 1,
                                        a.member_id)
            newer = kw.offset_commit_v9(c, GROUP, {(SOURCE, mine): 8}, a.epoch + 1, a.member_id)
        assert ok == {(SOURCE, mine): 0}, ok
        assert kept == {(SOURCE, mine): 0}, kept
        assert stale == {(SOURCE, other): STALE_MEMBER_EPOCH}, stale
        assert newer == {(SOURCE, mine): STALE_MEMBER_EPOCH}, newer

        # A dynamic member leaves; its tasks move.
        r = b.heartbeat(epoch=-1)
        assert r["error_code"] == 0 and r["member_epoch"] == -1, r
        b.left = True
        grp.converge("two members after the leave")
        assert sorted(len(m.active) for m in grp.live()) == [3, 3]

        # The static member restarts: -2, then a new member id, same instance.
        had = set(c_.active)
        r = c_.heartbeat(epoch=-2)
        assert r["error_code"] == 0 and r["member_epoch"] == -2, r
        old_id = c_.member_id
        c_.drop_connection()
        c_.member_id = str(uuid.uuid4())
        c_.active, c_.standby, c_.warmup = set(), set(), set()
        r = c_.heartbeat(epoch=0)
        c_.apply(r)
        assert c_.active == had, (had, r)
        g = grp.converge("after the static restart")
        assert old_id not in g["members"] and c_.member_id in g["members"], g
        assert g["members"][c_.member_id]["instance_id"] == "instance-c"
        with kw.Conn(k.port) as c:
            d = kw.streams_group_describe(c, [GROUP], include_topology_description=True)
            classic = kw.describe_groups(c, [GROUP])
        # No description store here: NOT_STORED (1); the classic API does not
        # see the group (v4: Dead, no error).
        assert d["groups"][GROUP]["topology_description_status"] == 1, d
        assert d["groups"][GROUP]["assignor_name"] == "sticky", d
        assert grp.describe()["topology_description_status"] == 0
        assert [(x["error_code"], x["state"]) for x in classic["groups"]] == [(0, "Dead")], classic

        # kcoord restarts: the same epochs come back.
        before = grp.describe()
        k.kill()
        for m in grp.members:
            m.drop_connection()
        k.start()

        def described():
            g2 = grp.describe()
            return None if g2["error_code"] == kw.COORDINATOR_LOAD_IN_PROGRESS else g2
        after = wait_for(described, DEADLINE_S, "StreamsGroupDescribe after restart")
        for key in ("group_state", "group_epoch", "assignment_epoch"):
            assert after[key] == before[key], (key, before, after)
        for mid, m in before["members"].items():
            assert after["members"][mid]["member_epoch"] == m["member_epoch"]
            assert after["members"][mid]["assignment"] == m["assignment"]
        grp.converge("after the broker restart")

        # DeleteGroups: refused while members remain.
        with kw.Conn(k.port) as c:
            res = kw.delete_groups_v2(c, [GROUP])
        assert res[GROUP] == NON_EMPTY_GROUP, res
        for m in grp.live():
            m.heartbeat(epoch=-1)
            m.left = True
        with kw.Conn(k.port) as c:
            res = kw.delete_groups_v2(c, [GROUP])
            assert res[GROUP] == 0, res
            assert kw.streams_group_describe(c, [GROUP])["groups"][GROUP]["error_code"] == 69
        print("three members, a leave, a static restart and a broker restart; %d heartbeats "
              "checked" % grp.heartbeats)


if __name__ == "__main__":
    run(main)
