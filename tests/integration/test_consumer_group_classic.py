# SPDX-License-Identifier: Apache-2.0
"""Classic and KIP-848 members in one group: upgrade, interop, downgrade.

Two kafka-python consumers (the classic protocol: JoinGroup, SyncGroup,
Heartbeat) form a classic group on a 6-partition topic. Then raw-protocol
ConsumerGroupHeartbeat members join the same group id:

1. the first one converts the classic group into a consumer group (online
   upgrade, group.consumer.migration.policy=bidirectional, the default); the
   kafka-python consumers stay in it as classic members, told to join again
   by REBALANCE_IN_PROGRESS and given their partitions by the server-side
   assignor through SyncGroup;
2. a second raw member joins, the group converges again;
3. kcoord is killed and started again: the converted group comes back from
   its records with the same epochs, member types and assignments, and the
   members carry on;
4. both raw members leave; with only classic members left the group is
   converted back into a classic group (online downgrade), which the
   kafka-python consumers rebalance as usual.

The test tracks what each member owns: a kafka-python consumer through its
rebalance listener (revoked before it joins again, assigned after SyncGroup),
a raw member by adopting every assignment a heartbeat answer carries. After
every raw heartbeat and while waiting, no partition may be owned by two
members; each phase ends when the broker's view is stable and every
partition is owned exactly once. The broker's log must name each conversion
in Kafka's words.

librdkafka's KIP-848 consumer (group.protocol=consumer) would be the real
client for the consumer-protocol side, but Debian's librdkafka (2.0.2)
predates it (librdkafka supports it from 2.4 as early access), hence the raw
members.
"""

import threading
import time
import uuid

from kafka import ConsumerRebalanceListener, KafkaConsumer

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "cgc-orders"
GROUP = "cgc-group"
PARTITIONS = 6
DEADLINE_S = 90
GROUP_ID_NOT_FOUND = 69


class Owner:
    """What one member owns, as a set of partition numbers, behind a lock."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self.owned = frozenset()

    def get(self):
        with self.lock:
            return self.owned

    def set(self, parts):
        with self.lock:
            self.owned = frozenset(parts)


class Listener(ConsumerRebalanceListener):
    def __init__(self, owner):
        self.owner = owner

    def on_partitions_revoked(self, revoked):
        self.owner.set(())

    def on_partitions_assigned(self, assigned):
        self.owner.set(tp.partition for tp in assigned)


class ClassicConsumer(threading.Thread):
    """A kafka-python consumer polling on its own thread (it only rejoins
    from inside poll)."""

    def __init__(self, idx, bootstrap):
        super().__init__(name="classic-%d" % idx, daemon=True)
        self.idx = idx
        self.bootstrap = bootstrap
        self.owner = Owner("classic-%d" % idx)
        self.stop_flag = threading.Event()
        self.error = None

    def run(self):
        try:
            c = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=GROUP,
                              client_id="cgc-classic-%d" % self.idx,
                              enable_auto_commit=False, auto_offset_reset="earliest",
                              session_timeout_ms=10000, heartbeat_interval_ms=200,
                              request_timeout_ms=30000, api_version_auto_timeout_ms=30000)
            c.subscribe([TOPIC], listener=Listener(self.owner))
            while not self.stop_flag.is_set():
                c.poll(timeout_ms=100)
            c.close(autocommit=False)
        except Exception as e:
            self.error = e
            raise


class RawMember:
    """A KIP-848 member over the raw protocol (ConsumerGroupHeartbeat v1)."""

    def __init__(self, port, name, topic_id):
        self.port = port
        self.name = name
        self.topic_id = topic_id
        self.member_id = str(uuid.uuid4())
        self.epoch = 0
        self.owner = Owner(name)
        self.conn = kw.Conn(port)
        self.left = False

    def heartbeat(self, **extra):
        owned = [(self.topic_id, p) for p in sorted(self.owner.get())]
        res = kw.consumer_group_heartbeat(self.conn, 1, GROUP, self.member_id, self.epoch,
                                          owned=owned, **extra)
        if res["error_code"] != kw.NONE:
            raise AssertionError("heartbeat of %s: %r" % (self.name, res))
        self.epoch = res["member_epoch"]
        if res["assignment"] is not None:
            for tid, _ in res["assignment"]:
                self.topic_id = self.topic_id or tid
                assert tid == self.topic_id, res
            self.owner.set(p for _, p in res["assignment"])
        return res

    def join(self):
        return self.heartbeat(rebalance_timeout_ms=60000, topic_names=[TOPIC])

    def leave(self):
        res = kw.consumer_group_heartbeat(self.conn, 1, GROUP, self.member_id, -1)
        assert res["error_code"] == kw.NONE and res["member_epoch"] == -1, res
        self.owner.set(())
        self.left = True
        self.conn.close()


def describe_consumer(port):
    with kw.Conn(port) as c:
        return kw.consumer_group_describe(c, [GROUP])["groups"][GROUP]


def describe_classic(port):
    with kw.Conn(port) as c:
        return kw.describe_groups(c, [GROUP])["groups"][0]


class Scene:
    def __init__(self, k):
        self.k = k
        self.classic = []
        self.raw = []
        self.checks = 0

    def owners(self):
        return [c.owner for c in self.classic] + [r.owner for r in self.raw if not r.left]

    def check(self, context):
        for c in self.classic:
            if c.error is not None:
                raise AssertionError("kafka-python consumer %d failed: %r" % (c.idx, c.error))
        seen = {}
        for o in self.owners():
            for p in o.get():
                if p in seen:
                    raise AssertionError("%s: partition %d owned by %s and %s at once"
                                         % (context, p, seen[p], o.name))
                seen[p] = o.name
        self.checks += 1
        return seen

    def all_owned_once(self):
        seen = self.check("ownership")
        return sorted(seen) == list(range(PARTITIONS))

    def round(self, what):
        for r in self.raw:
            if not r.left:
                r.heartbeat()
                self.check("%s, after a heartbeat of %s" % (what, r.name))

    def converge(self, what, stable):
        """Heartbeats the raw members until stable() holds and every
        partition is owned once; an ownership violation fails at once."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            self.round(what)
            if self.all_owned_once() and stable():
                return
            if time.monotonic() >= deadline:
                raise AssertionError("timed out after %ds waiting for %s; owners %r"
                                     % (DEADLINE_S, what,
                                        [(o.name, sorted(o.get())) for o in self.owners()]))
            time.sleep(0.1)

    def consumer_group_stable(self, nclassic, nraw):
        g = describe_consumer(self.k.port)
        if g["error_code"] != kw.NONE or g["group_state"] != "Stable":
            return False
        types = sorted(m["member_type"] for m in g["members"].values())
        if types != [0] * nclassic + [1] * nraw:
            return False
        # The broker's view agrees with what the members believe they own.
        described = sorted(sorted(p for _, p in m["assignment"]) for m in g["members"].values())
        believed = sorted(sorted(o.get()) for o in self.owners())
        return described == believed

    def classic_group_stable(self, n):
        g = describe_classic(self.k.port)
        return g["error_code"] == kw.NONE and g["state"] == "Stable" and len(g["members"]) == n


def log_text(k):
    text = ""
    for path in k.stderr_paths:
        with open(path, "rb") as f:
            text += f.read().decode("utf-8", "replace")
    return text


def main():
    with Kcoord("consumer-group-classic",
                overrides={"group.consumer.heartbeat.interval.ms": "200"}) as k:
        with kw.Conn(k.port) as c:
            res = kw.create_topics(c, {TOPIC: PARTITIONS})
            assert res["topics"] == {TOPIC: (0, None)}, res
        scene = Scene(k)

        # A classic group of two kafka-python consumers.
        scene.classic = [ClassicConsumer(i, k.bootstrap) for i in range(2)]
        for c in scene.classic:
            c.start()
        scene.converge("the classic group", lambda: scene.classic_group_stable(2))
        g = describe_classic(k.port)
        assert g["protocol_type"] == "consumer", g

        # The first ConsumerGroupHeartbeat member upgrades the group.
        first = RawMember(k.port, "raw-0", None)
        res = first.join()
        assert res["member_epoch"] > 0, res
        g = describe_consumer(k.port)
        assert g["error_code"] == kw.NONE, g
        assert sorted(m["member_type"] for m in g["members"].values()) == [0, 0, 1], g
        # The classic members kept their partitions through the conversion.
        topic_id = next(tid for m in g["members"].values() for tid, _ in m["assignment"])
        first.topic_id = topic_id
        scene.raw.append(first)
        wait_for(lambda: "Converted the classic group to a consumer group." in log_text(k),
                 DEADLINE_S, "the upgrade in the broker's log")
        gone = describe_classic(k.port)
        assert gone["state"] == "Dead" and gone["members"] == [], gone
        scene.converge("the upgraded group of 2 classic + 1 consumer members",
                       lambda: scene.consumer_group_stable(2, 1))
        assert all(o.get() for o in scene.owners()), [sorted(o.get()) for o in scene.owners()]

        # Another consumer-protocol member.
        second = RawMember(k.port, "raw-1", topic_id)
        second.join()
        scene.raw.append(second)
        scene.converge("2 classic + 2 consumer members", lambda: scene.consumer_group_stable(2, 2))
        print("mixed group:", [(o.name, sorted(o.get())) for o in scene.owners()])

        # A crash and restart: the converted group comes back from its
        # records, classic members included, with the same epochs.
        before = describe_consumer(k.port)
        k.kill()
        k.start()
        for r in scene.raw:
            r.conn.close()
            r.conn = kw.Conn(k.port)

        def reloaded():
            g2 = describe_consumer(k.port)
            return None if g2["error_code"] == kw.COORDINATOR_LOAD_IN_PROGRESS else g2
        after = wait_for(reloaded, DEADLINE_S, "ConsumerGroupDescribe after the restart")
        assert after["group_epoch"] == before["group_epoch"], (before, after)
        assert {mid: (m["member_epoch"], m["member_type"], sorted(m["assignment"]))
                for mid, m in after["members"].items()} == \
            {mid: (m["member_epoch"], m["member_type"], sorted(m["assignment"]))
             for mid, m in before["members"].items()}, (before, after)
        scene.converge("the mixed group after a restart",
                       lambda: scene.consumer_group_stable(2, 2))

        # The consumer-protocol members leave: the group goes back to classic.
        first.leave()
        scene.round("after the first leave")
        assert describe_consumer(k.port)["error_code"] == kw.NONE
        second.leave()
        wait_for(lambda: "Converted the consumer group to a classic group." in log_text(k),
                 DEADLINE_S, "the downgrade in the broker's log")
        g = describe_consumer(k.port)
        assert g["error_code"] == GROUP_ID_NOT_FOUND, g
        scene.converge("the downgraded classic group", lambda: scene.classic_group_stable(2))
        g = describe_classic(k.port)
        assert g["protocol_type"] == "consumer" and len(g["members"]) == 2, g
        assert sorted(len(o.get()) for o in scene.owners()) == [3, 3], \
            [sorted(o.get()) for o in scene.owners()]

        for c in scene.classic:
            c.stop_flag.set()
        for c in scene.classic:
            c.join(DEADLINE_S)
            assert not c.is_alive(), "consumer %d did not close" % c.idx
        print("classic -> consumer -> classic with kafka-python members; %d ownership checks"
              % scene.checks)


if __name__ == "__main__":
    run(main)
