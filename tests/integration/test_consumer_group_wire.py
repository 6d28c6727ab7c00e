# SPDX-License-Identifier: Apache-2.0
"""KIP-848 consumer group over the raw protocol: scale 1 -> 5 -> 1, restart.

Raw ConsumerGroupHeartbeat clients (one v0 member whose id the broker
generates, the rest v1 with client-generated member ids) subscribe to three
topics. Each client behaves as a KIP-848 consumer does: it reports the
partitions it owns, and whenever a response carries an assignment it adopts
it at once (revoking what is gone, taking what is new). After every single
heartbeat response the test checks that no partition is owned by two
members: the broker may hand a partition out only after its previous owner
reported it revoked.

The group scales out from one member to five; right after the new members
joined, while the first member still owns every partition (the group is
Reconciling), kcoord is killed and started again on the same data. The
group must come back with the same group epoch, assignment epoch, member
epochs, current and target assignments, and the members carry on with their
epochs. The group then converges (Stable, every member at the assignment
epoch, every partition assigned once), scales back in to one member, and
converges again with that member owning every partition.
"""

import time
import uuid

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPICS = {"cgw-a": 4, "cgw-b": 6, "cgw-c": 3}
GROUP = "cgw-group"
DEADLINE_S = 90


class Member:
    """One raw KIP-848 consumer: member id, epoch and owned partitions."""

    def __init__(self, kc, version, name):
        self.kc = kc
        self.version = version
        self.name = name
        self.member_id = str(uuid.uuid4()) if version >= 1 else ""
        self.epoch = 0
        self.owned = set()
        self.conn = None
        self.left = False

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
        return kw.consumer_group_heartbeat(self.connection(), self.version, GROUP,
                                           self.member_id, epoch,
                                           owned=sorted(self.owned), **extra)


class Group:
    """The test's view of the group: its members and the ownership check."""

    def __init__(self, kc):
        self.kc = kc
        self.members = []
        self.heartbeats = 0

    def active(self):
        return [m for m in self.members if not m.left]

    def check_disjoint(self, context):
        seen = {}
        for m in self.active():
            for tp in m.owned:
                if tp in seen:
                    raise AssertionError(
                        "%s: partition %s:%d owned by %s and %s at once"
                        % (context, tp[0].hex(), tp[1], seen[tp], m.name))
                seen[tp] = m.name

    def apply(self, m, res, what):
        self.heartbeats += 1
        if res["error_code"] != kw.NONE:
            raise AssertionError("%s of %s: %r" % (what, m.name, res))
        if m.version >= 1 and m.member_id:
            assert res["member_id"] == m.member_id, (m.member_id, res)
        m.member_id = res["member_id"]
        assert m.member_id, res
        assert res["heartbeat_interval_ms"] > 0, res
        assert res["member_epoch"] >= m.epoch, (m.name, m.epoch, res)
        m.epoch = res["member_epoch"]
        if res["assignment"] is not None:
            m.owned = set(res["assignment"])
        self.check_disjoint("after %s of %s (epoch %d)" % (what, m.name, m.epoch))

    def join(self, version):
        m = Member(self.kc, version, "member-%d" % len(self.members))
        self.members.append(m)
        res = m.heartbeat(epoch=0, rebalance_timeout_ms=60000,
                          topic_names=sorted(TOPICS), server_assignor="uniform")
        self.apply(m, res, "join")
        assert m.epoch > 0, res
        return m

    def leave(self, m):
        res = m.heartbeat(epoch=-1)
        self.heartbeats += 1
        assert res["error_code"] == kw.NONE, res
        assert res["member_epoch"] == -1, res
        assert res["member_id"] == m.member_id, res
        m.owned = set()
        m.left = True
        m.drop_connection()

    def round(self):
        for m in self.active():
            self.apply(m, m.heartbeat(), "heartbeat")

    def describe(self):
        with kw.Conn(self.kc.port) as c:
            res = kw.consumer_group_describe(c, [GROUP])
        g = res["groups"][GROUP]
        return g, res["topic_names"]

    def converged(self):
        """Describe shows the group Stable and fully reconciled, and it agrees
        with what the clients believe they own."""
        g, names = self.describe()
        if g["error_code"] != kw.NONE:
            raise AssertionError("ConsumerGroupDescribe: %r" % (g,))
        if g["group_state"] != "Stable" or g["group_epoch"] != g["assignment_epoch"]:
            return None
        active = self.active()
        if sorted(g["members"]) != sorted(m.member_id for m in active):
            raise AssertionError("members %r, expected %r"
                                 % (sorted(g["members"]), [m.member_id for m in active]))
        for m in active:
            dm = g["members"][m.member_id]
            if dm["member_epoch"] != g["assignment_epoch"] or m.epoch != dm["member_epoch"]:
                return None
            if dm["assignment"] != dm["target_assignment"] or dm["assignment"] != m.owned:
                return None
        ids = {name: tid for tid, name in names.items()}
        expected = {(ids.get(t), p) for t, n in TOPICS.items() for p in range(n)}
        owned = set().union(*(m.owned for m in active))
        if owned != expected:
            return None
        return g

    def converge(self, what):
        # A loop of our own, not wait_for: an ownership violation raised by
        # a heartbeat must fail the test at once, not be retried.
        deadline = time.monotonic() + DEADLINE_S
        while True:
            g = self.converged()
            if g is not None:
                break
            if time.monotonic() >= deadline:
                raise AssertionError("timed out after %ds waiting for %s; last described: %r"
                                     % (DEADLINE_S, what, self.describe()[0]))
            self.round()
        # Stable means stable: another round changes no epoch and sends no
        # assignment (it is only sent when it changes).
        for m in self.active():
            before = m.epoch
            res = m.heartbeat()
            self.apply(m, res, "heartbeat after convergence")
            assert res["member_epoch"] == before and res["assignment"] is None, (m.name, res)
        return g


def snapshot(g):
    return {"group_state": g["group_state"], "group_epoch": g["group_epoch"],
            "assignment_epoch": g["assignment_epoch"],
            "members": {mid: (m["member_epoch"], sorted(m["assignment"]),
                              sorted(m["target_assignment"]),
                              tuple(m["subscribed_topic_names"] or ()))
                        for mid, m in g["members"].items()}}


def main():
    with Kcoord("consumer-group-wire") as k:
        with kw.Conn(k.port) as c:
            res = kw.create_topics(c, TOPICS)
            assert res["topics"] == {t: (0, None) for t in TOPICS}, res

        grp = Group(k)
        first = grp.join(0)
        g = grp.converge("a single member owning every partition")
        assert len(first.owned) == sum(TOPICS.values()), first.owned
        assert g["assignor_name"] == "uniform", g

        # Scale out to five members; the first still owns everything, so the
        # new ones get nothing yet and the group is Reconciling.
        for _ in range(4):
            m = grp.join(1)
            assert m.owned == set(), (m.name, m.owned)
        before, _ = grp.describe()
        assert before["group_state"] == "Reconciling", before
        assert before["group_epoch"] == before["assignment_epoch"], before
        assert before["members"][first.member_id]["assignment"] == first.owned, before
        assert (before["members"][first.member_id]["target_assignment"]
                < first.owned), before

        # Restart mid-reconciliation: the same epochs and assignments come back.
        k.kill()
        for m in grp.members:
            m.drop_connection()
        k.start()

        def described():
            g2, _ = grp.describe()
            return None if g2["error_code"] == kw.COORDINATOR_LOAD_IN_PROGRESS else g2
        after = wait_for(described, DEADLINE_S, "ConsumerGroupDescribe after restart")
        assert snapshot(after) == snapshot(before), (snapshot(before), snapshot(after))

        g = grp.converge("five members after the restart")
        assert len(grp.active()) == 5
        sizes = sorted(len(m.owned) for m in grp.active())
        assert sizes[-1] - sizes[0] <= 1, sizes  # uniform spreads 13 partitions 3,3,3,2,2
        assert g["group_epoch"] == before["group_epoch"], (g, before)

        # Scale back in, one leave per round; ownership stays exclusive.
        for m in grp.active()[1:]:
            grp.leave(m)
            grp.round()
        grp.converge("one member again")
        assert grp.active() == [first]
        assert len(first.owned) == sum(TOPICS.values()), first.owned
        print("converged 1 -> 5 -> 1 with a restart; %d heartbeats checked" % grp.heartbeats)


if __name__ == "__main__":
    run(main)
