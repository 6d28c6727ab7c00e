# SPDX-License-Identifier: Apache-2.0
"""Kill cycles: kcoord is SIGKILLed and restarted many times under a mixed load,
and after every restart each acknowledged write must be there exactly once.

One thread of raw-protocol clients (deterministic for a seed) drives, in
every cycle:

- an idempotent producer (InitProducerId once, then Produce v7 acks=-1 with
  per-partition sequences), pipelining several batches at a time; a batch
  whose answer was lost in a kill is sent again after the restart with the
  same sequence, as a real idempotent producer retries it;
- offset commits: by a simple consumer (generation -1), by a classic group
  member at its generation, and by a KIP-848 member at its member epoch;
- a classic group of two members (JoinGroup/SyncGroup/Heartbeat) that
  rebalances now and then;
- a KIP-848 consumer group (ConsumerGroupHeartbeat) of two members, one of
  which leaves and rejoins under a new member id now and then;
- a KIP-1071 streams group (StreamsGroupHeartbeat) of one member of a
  stateless topology.

The kill point varies with the cycle: right after an acknowledged commit, in
the middle of a pipelined burst of produces and commits (some answers read,
some not), while a classic rebalance is open (one member's JoinGroup waiting
for the other), and with a consumer group or a streams group heartbeat in
flight.

After every restart:

- records: every acknowledged batch is read back with Fetch at its
  acknowledged offsets; the log holds no value twice and nothing that was
  never sent; a retried in-flight batch ends up in the log exactly once;
- offsets: OffsetFetch returns, for every (group, partition), the last
  acknowledged offset, or a later one only if a later commit was in flight;
- groups: the admin API's /v1/groups/{id} shows the classic group with the
  generation and members the clients last saw (the next generation only if
  a rebalance's joins were all in flight), and the consumer group with the
  members the clients last saw at the member epochs they last saw (a later
  epoch only for a member whose heartbeat was in flight), and the streams
  member at the epoch it last saw (or later, likewise).

The default run makes 100 cycles, or fewer (at least 20) when 50 s of wall
time are spent first (KC_TEST_KILL_BUDGET_S; 0 = no budget);
KC_TEST_EXTENDED=1 (`./scripts/test --extended`) runs 1,000 cycles with no
budget. KC_TEST_KILL_CYCLES overrides the count, KC_TEST_KILL_SEED replays a
run (the seed is printed first).
"""

import os
import random
import time
import uuid

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for

EXTENDED = os.environ.get("KC_TEST_EXTENDED") == "1"
CYCLES = int(os.environ.get("KC_TEST_KILL_CYCLES", "1000" if EXTENDED else "100"))
# The default run stops early (after at least MIN_CYCLES) when its wall-time
# budget is spent, so that a loaded machine keeps it near a minute.
BUDGET_S = float(os.environ.get("KC_TEST_KILL_BUDGET_S", "0" if EXTENDED else "50"))
MIN_CYCLES = 20
SEED = int(os.environ.get("KC_TEST_KILL_SEED", str(int(time.time()) % 1000000)))
LOG_TOPIC = "kills-log"
LOG_PARTITIONS = 3
OFFSET_TOPIC = "kills-in"
OFFSET_PARTITIONS = 4
SIMPLE_GROUP = "kills-simple"
CLASSIC_GROUP = "kills-classic"
CONSUMER_GROUP = "kills-consumer"
DEADLINE_S = 60
STREAMS_GROUP = "kills-streams"
STREAMS_TOPOLOGY = (1, [{"id": "0", "source_topics": [OFFSET_TOPIC]}])
KILL_POINTS = ("after_commit", "mid_burst", "rebalance_open", "consumer_inflight",
               "streams_inflight")

API_INIT_PRODUCER_ID = 22
RETRIABLE_PRODUCE = {6, 7, 14, 15, 16}  # NOT_LEADER, REQUEST_TIMED_OUT, loading...


class Stats:
    def __init__(self):
        self.records = self.batches = self.commits = self.transitions = 0
        self.retried = 0


class Producer:
    """An idempotent producer: one producer id, a sequence per partition."""

    def __init__(self):
        self.pid = self.epoch = None
        self.seq = [0] * LOG_PARTITIONS
        self.acked = {}  # value -> (partition, offset)
        self.sent = set()  # every value ever sent
        self.inflight = []  # [(partition, batch bytes, values)] in send order

    def init(self, conn):
        corr = conn.send(API_INIT_PRODUCER_ID, 1, kw.Writer().string(None).i32(60000).getvalue())
        got, r = conn.recv()
        assert got == corr
        r.i32()
        err, self.pid, self.epoch = r.i16(), r.i64(), r.i16()
        assert err == 0, err

    def make(self, partition, values):
        batch = kw.record_batch(values, self.pid, self.epoch, self.seq[partition])
        self.seq[partition] += len(values)
        self.sent.update(values)
        return (partition, batch, values)

    @staticmethod
    def send(conn, item):
        partition, batch, _ = item
        w = Writer7(partition, batch)
        return conn.send(kw.API_PRODUCE, 7, w)

    @staticmethod
    def read(conn, corr, item):
        got, r = conn.recv()
        assert got == corr, (got, corr)
        assert r.i32() == 1 and r.string() == LOG_TOPIC and r.i32() == 1
        assert r.i32() == item[0]
        return r.i16(), r.i64()

    def acknowledge(self, item, err, base, stats):
        assert err == 0, "produce of %r failed with %d" % (item[2][:1], err)
        for i, v in enumerate(item[2]):
            assert v not in self.acked, "value %r acknowledged twice" % v
            self.acked[v] = (item[0], base + i)
        stats.batches += 1
        stats.records += len(item[2])

    def retry_inflight(self, conn, stats):
        """After a restart: the batches whose answers were lost, again, in order."""
        for item in self.inflight:
            def attempt():
                corr = self.send(conn, item)
                err, base = self.read(conn, corr, item)
                return None if err in RETRIABLE_PRODUCE else (err, base)
            err, base = wait_for(attempt, DEADLINE_S, "the retried produce")
            self.acknowledge(item, err, base, stats)
            stats.retried += 1
        self.inflight = []


def Writer7(partition, batch):
    w = kw.Writer().string(None).i16(-1).i32(30000).i32(1).string(LOG_TOPIC).i32(1)
    w.i32(partition).i32(len(batch)).raw(batch)
    return w.getvalue()


class Offsets:
    """Per (group, partition): the last acknowledged offset and the highest
    attempted one whose answer is unknown."""

    def __init__(self):
        self.acked = {}
        self.pending = {}
        self.next = 1

    def value(self):
        self.next += 1
        return self.next

    def attempt(self, key, off):
        self.pending[key] = max(self.pending.get(key, -1), off)

    def ack(self, key, off, stats):
        self.acked[key] = max(self.acked.get(key, -1), off)
        stats.commits += 1

    def settle(self):
        """At a kill: what was pending stays possible, nothing more."""
        self.possible = dict(self.pending)


class Classic:
    """Two classic members, each on its own connection."""

    def __init__(self):
        self.members = []  # member ids
        self.conns = {}
        self.generation = -1
        self.join_inflight = False  # every member's JoinGroup sent, no answer read

    def connect(self, port):
        for m in list(self.conns):
            self.conns[m].close()
        self.conns = {}

    def conn(self, port, m):
        if m not in self.conns:
            self.conns[m] = kw.Conn(port, timeout=DEADLINE_S)
        return self.conns[m]


JOIN_ARGS = {"session_timeout_ms": 120000, "rebalance_timeout_ms": 30000,
             "protocols": (("range", kw.consumer_subscription_v0([OFFSET_TOPIC])),)}


def classic_rejoin(port, cl, stats, admin):
    """Every member joins again, the leader syncs; returns once the group is
    Stable at a new generation. The first member's JoinGroup opens the
    rebalance (a follower's rejoin in Stable just gets the current generation
    back), so the others are sent once the group shows it."""
    corrs = {}
    for i, m in enumerate(cl.members):
        c = cl.conn(port, m)
        corrs[m] = c.send(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(CLASSIC_GROUP, m, **JOIN_ARGS))
        if i == 0:
            wait_for(lambda: admin.group(CLASSIC_GROUP)["state"] == "PreparingRebalance",
                     DEADLINE_S, "the rebalance to open")
    joins = {}
    for m in cl.members:
        got, r = cl.conns[m].recv()
        assert got == corrs[m]
        joins[m] = kw.decode_join_group_v5(r)
        assert joins[m]["error_code"] == 0, joins[m]
    gens = {j["generation_id"] for j in joins.values()}
    assert len(gens) == 1, joins
    gen = gens.pop()
    leader = next(iter(joins.values()))["leader"]
    scorr = {}
    for m in sorted(cl.members, key=lambda x: x == leader):  # the leader last
        assign = [(x, x.encode()) for x in cl.members] if m == leader else []
        scorr[m] = cl.conns[m].send(kw.API_SYNC_GROUP, 3,
                                    kw.sync_group_v3_body(CLASSIC_GROUP, gen, m, assign))
    for m in cl.members:
        got, r = cl.conns[m].recv()
        assert got == scorr[m]
        s = kw.decode_sync_group_v3(r)
        assert s["error_code"] == 0 and s["assignment"] == m.encode(), s
    cl.generation = gen
    cl.members.sort(key=lambda x: x != leader)  # the leader first next time
    stats.transitions += 1


class ConsumerMember:
    def __init__(self):
        self.member_id = str(uuid.uuid4())
        self.epoch = 0
        self.owned = set()
        self.acked_epoch = None  # the epoch its last answered heartbeat gave
        self.inflight = False
        self.joined = False


def cg_heartbeat_body(m, epoch=None):
    epoch = m.epoch if epoch is None else epoch
    if epoch == 0:
        return kw.consumer_group_heartbeat_body(1, CONSUMER_GROUP, m.member_id, 0,
                                                rebalance_timeout_ms=30000,
                                                topic_names=[OFFSET_TOPIC],
                                                server_assignor="uniform", owned=[])
    return kw.consumer_group_heartbeat_body(1, CONSUMER_GROUP, m.member_id, epoch,
                                            owned=sorted(m.owned) if epoch > 0 else None)


def cg_answer(m, resp, stats):
    assert resp["error_code"] == 0, resp
    if resp["member_epoch"] != m.epoch:
        stats.transitions += 1
    m.epoch = resp["member_epoch"]
    m.acked_epoch = m.epoch
    m.joined = m.epoch > 0
    if resp["assignment"] is not None:
        m.owned = resp["assignment"]
    m.inflight = False


def cg_call(conn, m, stats, epoch=None):
    corr = conn.send(kw.API_CONSUMER_GROUP_HEARTBEAT, 1, cg_heartbeat_body(m, epoch), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    resp = kw.decode_consumer_group_heartbeat(r)
    if epoch == -1:
        assert resp["error_code"] == 0, resp
        return resp
    cg_answer(m, resp, stats)
    return resp


class StreamsMember:
    """One KIP-1071 member of a stateless topology reading OFFSET_TOPIC."""

    def __init__(self):
        self.member_id = str(uuid.uuid4())
        self.process_id = str(uuid.uuid4())
        self.epoch = 0
        self.tasks = (set(), set(), set())
        self.acked_epoch = None
        self.inflight = False

    def body(self):
        args = dict(process_id=self.process_id, active=self.tasks[0], standby=self.tasks[1],
                    warmup=self.tasks[2])
        if self.epoch == 0:
            args.update(topology=STREAMS_TOPOLOGY, rebalance_timeout_ms=30000)
        return kw.streams_group_heartbeat_body(STREAMS_GROUP, self.member_id, self.epoch, **args)

    def send(self, conn):
        return conn.send(kw.API_STREAMS_GROUP_HEARTBEAT, 1, self.body(), flexible=True)

    def call(self, conn, stats):
        corr = self.send(conn)
        got, r = conn.recv(flexible_header=True)
        assert got == corr
        resp = kw.decode_streams_group_heartbeat(r, 1)
        assert resp["error_code"] == 0, resp
        if resp["member_epoch"] != self.epoch:
            stats.transitions += 1
        self.epoch = self.acked_epoch = resp["member_epoch"]
        if resp["active"] is not None:
            self.tasks = (resp["active"], resp["standby"], resp["warmup"])


class World:
    def __init__(self, k, admin_port, rng):
        self.k = k
        self.admin = Admin(admin_port)
        self.rng = rng
        self.stats = Stats()
        self.prod = Producer()
        self.offs = Offsets()
        self.classic = Classic()
        self.cms = [ConsumerMember(), ConsumerMember()]
        self.sm = StreamsMember()
        self.left = []  # consumer members whose leave was in flight at a kill
        self.verified = [0] * LOG_PARTITIONS
        self.log = [dict() for _ in range(LOG_PARTITIONS)]  # offset -> value seen
        self.kill_points = {p: 0 for p in KILL_POINTS}

    # ---- setup ----
    def setup(self, conn):
        assert kw.create_topics(conn, {LOG_TOPIC: LOG_PARTITIONS})["topics"][LOG_TOPIC][0] == 0
        assert kw.create_topics(conn, {OFFSET_TOPIC: OFFSET_PARTITIONS})["topics"][OFFSET_TOPIC][0] == 0
        self.prod.init(conn)
        cl = self.classic
        c1 = cl.conn(self.k.port, "a")
        first = kw.join_group(c1, CLASSIC_GROUP, "", **JOIN_ARGS)
        a = first["member_id"]
        cl.conns[a] = cl.conns.pop("a")
        # a forms generation 1 alone, then b joins (b's JoinGroup first, so
        # the rebalance waits for a's) and both form the next generation.
        j = kw.join_group(c1, CLASSIC_GROUP, a, **JOIN_ARGS)
        assert j["error_code"] == 0 and j["leader"] == a, j
        s = kw.sync_group(c1, CLASSIC_GROUP, j["generation_id"], a, [(a, a.encode())])
        assert s["error_code"] == 0, s
        c2 = cl.conn(self.k.port, "b")
        first = kw.join_group(c2, CLASSIC_GROUP, "", **JOIN_ARGS)
        b = first["member_id"]
        cl.conns[b] = cl.conns.pop("b")
        cl.members = [b, a]
        classic_rejoin(self.k.port, cl, self.stats, self.admin)

    # ---- after a restart ----
    def check_offsets(self, conn):
        groups = {}
        for (g, p) in set(self.offs.acked) | set(self.offs.pending):
            groups.setdefault(g, []).append(p)
        for g, parts in groups.items():
            res = wait_for(lambda: (lambda x: x if x["error_code"] == 0 else None)(
                kw.offset_fetch(conn, g, {OFFSET_TOPIC: sorted(parts)})), DEADLINE_S,
                "OffsetFetch of %s" % g)
            for p in parts:
                got = res["offsets"][(OFFSET_TOPIC, p)][0]
                acked = self.offs.acked.get((g, p), -1)
                pending = self.offs.pending.get((g, p), -1)
                ok = got == acked or (pending > acked and acked < got <= pending)
                assert ok, ("offset of %s/%d: committed %d, acknowledged %d, in flight up to %d"
                            % (g, p, got, acked, pending))
                self.offs.acked[(g, p)] = got  # what is durable now
        self.offs.pending = {}

    def check_log(self, conn):
        for p in range(LOG_PARTITIONS):
            recs, hwm = kw.fetch_records(conn, LOG_TOPIC, p, self.verified[p])
            for off, v in recs:
                assert off not in self.log[p] or self.log[p][off] == v, \
                    "partition %d offset %d changed from %r to %r" % (p, off, self.log[p][off], v)
                self.log[p][off] = v
            self.verified[p] = hwm
        seen = {}
        for p in range(LOG_PARTITIONS):
            for off, v in self.log[p].items():
                assert v not in seen, "value %s is in the log twice: %r and %r" \
                    % (v, seen[v], (p, off))
                assert v in self.prod.sent, "value %s was never sent" % v
                seen[v] = (p, off)
        for v, where in self.prod.acked.items():
            assert seen.get(v) == where, "acknowledged value %s at %r, found at %r" \
                % (v, where, seen.get(v))

    def check_groups(self):
        cl = self.classic
        g = wait_for(lambda: (lambda x: x if x.get("state") not in (None, "Dead") else None)(
            self.admin.group(CLASSIC_GROUP)), DEADLINE_S, "the classic group")
        members = sorted(m["member_id"] for m in g["members"])
        assert members == sorted(cl.members), (g, cl.members)
        gens = {cl.generation, cl.generation + 1} if cl.join_inflight else {cl.generation}
        assert g["generation_id"] in gens, "classic generation %d, clients saw %d (%s)" \
            % (g["generation_id"], cl.generation, "rebalance in flight" if cl.join_inflight else "")
        if g["generation_id"] != cl.generation:
            cl.generation = g["generation_id"]
        cl.join_inflight = False

        cg = self.admin.group(CONSUMER_GROUP)
        got = {m["member_id"]: m["member_epoch"] for m in cg["members"]}
        for m in self.cms:
            if m.joined and not m.inflight:
                assert got.get(m.member_id) == m.acked_epoch, \
                    "member %s: epoch %r after restart, last seen %r" \
                    % (m.member_id, got.get(m.member_id), m.acked_epoch)
            elif m.joined:
                assert m.member_id in got and got[m.member_id] >= m.acked_epoch, (got, m.acked_epoch)
            elif m.member_id in got:  # a join whose answer was lost
                assert m.inflight, (got, m.member_id)
        for old in self.left:  # a leave whose answer was lost: either way
            got.pop(old, None)
        expected = {m.member_id for m in self.cms if m.joined}
        present = set(got)
        sm = self.sm
        if sm.acked_epoch is not None:
            sg = self.admin.group(STREAMS_GROUP)
            got = {m["member_id"]: m["member_epoch"] for m in sg["members"]}
            if sm.inflight:
                assert got.get(sm.member_id, -1) >= sm.acked_epoch, (got, sm.acked_epoch)
            else:
                assert got.get(sm.member_id) == sm.acked_epoch, \
                    "streams member: epoch %r after restart, last seen %r" \
                    % (got.get(sm.member_id), sm.acked_epoch)
            sm.epoch = got[sm.member_id]
            sm.inflight = False
        assert expected <= present <= expected | {m.member_id for m in self.cms}, \
            (present, expected, self.left, [(m.member_id, m.joined, m.inflight) for m in self.cms])

    def after_restart(self):
        conn = kw.Conn(self.k.port, timeout=DEADLINE_S)
        self.check_log(conn)
        self.prod.retry_inflight(conn, self.stats)
        self.check_offsets(conn)
        self.check_groups()
        self.classic.connect(self.k.port)
        # Consumer members carry on from what is durable: a member the group
        # knows continues at its epoch there, one it does not joins again.
        cg = {m["member_id"]: m for m in self.admin.group(CONSUMER_GROUP)["members"]}
        ccg = kw.Conn(self.k.port, timeout=DEADLINE_S)
        for old in self.left:  # a leave whose answer was lost is sent again
            if old in cg:
                kw.consumer_group_heartbeat(ccg, 1, CONSUMER_GROUP, old, -1)
                del cg[old]
        ccg.close()
        for m in self.cms:
            if m.member_id in cg:
                m.epoch = cg[m.member_id]["member_epoch"]
                m.joined = True
            else:
                m.epoch, m.owned, m.joined = 0, set(), False
            m.inflight = False
        self.left = []
        conn.close()

    # ---- one cycle of load, ending at the kill point ----
    def commit(self, conn, group, key_p, **kw_args):
        off = self.offs.value()
        self.offs.attempt((group, key_p), off)
        res = kw.offset_commit(conn, group, {OFFSET_TOPIC: {key_p: (off, "")}}, **kw_args)
        err = res["errors"][(OFFSET_TOPIC, key_p)]
        assert err == 0, (group, err)
        self.offs.ack((group, key_p), off, self.stats)
        del self.offs.pending[(group, key_p)]

    def cycle(self, point):
        rng, port, cl = self.rng, self.k.port, self.classic
        conn = kw.Conn(port, timeout=DEADLINE_S)
        ccg = kw.Conn(port, timeout=DEADLINE_S)
        # Groups: heartbeats, rebalances now and then.
        for m in cl.members:
            hb = kw.heartbeat(cl.conn(port, m), CLASSIC_GROUP, cl.generation, m)
            assert hb["error_code"] in (0, kw.REBALANCE_IN_PROGRESS), hb
        if rng.random() < 0.3 or any(
                kw.heartbeat(cl.conns[m], CLASSIC_GROUP, cl.generation, m)["error_code"]
                for m in cl.members):
            classic_rejoin(port, cl, self.stats, self.admin)
        for m in self.cms:
            for _ in range(3):  # join, then reconcile to a stable epoch
                cg_call(ccg, m, self.stats)
        for _ in range(2):
            self.sm.call(ccg, self.stats)
        if rng.random() < 0.2:
            m = self.cms[1]  # leaves; a new member takes its place
            r = cg_call(ccg, m, self.stats, epoch=-1)
            gm = [x["member_id"] for x in self.admin.group(CONSUMER_GROUP)["members"]]
            assert m.member_id not in gm, (r, gm, m.member_id, m.epoch)
            self.cms[1] = ConsumerMember()
            self.stats.transitions += 1
            cg_call(ccg, self.cms[1], self.stats)
        # Acknowledged writes.
        for _ in range(rng.randint(1, 4)):
            item = self.prod.make(rng.randrange(LOG_PARTITIONS),
                                  [("v%d-%d" % (len(self.prod.sent), i)).encode()
                                   for i in range(rng.randint(1, 5))])
            err, base = Producer.read(conn, Producer.send(conn, item), item)
            self.prod.acknowledge(item, err, base, self.stats)
        self.commit(conn, SIMPLE_GROUP, rng.randrange(OFFSET_PARTITIONS))
        a = cl.members[0]
        self.commit(cl.conns[a], CLASSIC_GROUP, rng.randrange(OFFSET_PARTITIONS),
                    generation_id=cl.generation, member_id=a)
        m = self.cms[0]
        off = self.offs.value()
        key = (CONSUMER_GROUP, rng.randrange(OFFSET_PARTITIONS))
        self.offs.attempt(key, off)
        errs = kw.offset_commit_v9(ccg, CONSUMER_GROUP, {(OFFSET_TOPIC, key[1]): off},
                                   m.epoch, m.member_id)
        assert errs == {(OFFSET_TOPIC, key[1]): 0}, errs
        self.offs.ack(key, off, self.stats)
        del self.offs.pending[key]

        # The kill point.
        if point == "after_commit":
            self.commit(conn, SIMPLE_GROUP, rng.randrange(OFFSET_PARTITIONS))
        elif point == "mid_burst":
            sent = []
            for _ in range(rng.randint(2, 5)):
                if rng.random() < 0.6:
                    item = self.prod.make(rng.randrange(LOG_PARTITIONS),
                                          [("v%d-%d" % (len(self.prod.sent), i)).encode()
                                           for i in range(rng.randint(1, 5))])
                    self.prod.inflight.append(item)
                    sent.append(("p", Producer.send(conn, item), item))
                else:
                    p, off = rng.randrange(OFFSET_PARTITIONS), self.offs.value()
                    self.offs.attempt((SIMPLE_GROUP, p), off)
                    corr = conn.send(kw.API_OFFSET_COMMIT, 7, kw.offset_commit_v7_body(
                        SIMPLE_GROUP, {OFFSET_TOPIC: {p: (off, "")}}))
                    sent.append(("c", corr, (p, off)))
            for kind, corr, what in sent[:rng.randint(0, len(sent))]:
                if kind == "p":
                    err, base = Producer.read(conn, corr, what)
                    self.prod.acknowledge(what, err, base, self.stats)
                    self.prod.inflight.remove(what)
                else:
                    got, r = conn.recv()
                    assert got == corr
                    res = kw.decode_offset_commit_v7(r)
                    assert res["errors"] == {(OFFSET_TOPIC, what[0]): 0}, res
                    # A later commit of the same key may still be in flight.
                    self.offs.ack((SIMPLE_GROUP, what[0]), what[1], self.stats)
        elif point == "rebalance_open":
            # One member asks to rejoin: the rebalance waits for the other.
            a, b = cl.members  # the leader's JoinGroup opens the rebalance
            cl.conns[a].send(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(CLASSIC_GROUP, a, **JOIN_ARGS))
            wait_for(lambda: self.admin.group(CLASSIC_GROUP)["state"] == "PreparingRebalance",
                     DEADLINE_S, "the rebalance to open")
            if rng.random() < 0.5:
                cl.conns[b].send(kw.API_JOIN_GROUP, 5,
                                 kw.join_group_v5_body(CLASSIC_GROUP, b, **JOIN_ARGS))
                cl.join_inflight = True
        elif point == "consumer_inflight":
            if rng.random() < 0.5:
                m = self.cms[1]
                self.left.append(m.member_id)
                ccg.send(kw.API_CONSUMER_GROUP_HEARTBEAT, 1, cg_heartbeat_body(m, -1), flexible=True)
                self.cms[1] = m = ConsumerMember()
            else:
                m = self.cms[0]
            m.inflight = True
            ccg.send(kw.API_CONSUMER_GROUP_HEARTBEAT, 1, cg_heartbeat_body(m), flexible=True)
        elif point == "streams_inflight":
            self.sm.inflight = True
            self.sm.send(ccg)
        self.kill_points[point] += 1
        self.k.kill()
        for c in (conn, ccg):
            c.close()
        for m in list(cl.conns):
            cl.conns.pop(m).close()


def main():
    rng = random.Random(SEED)
    print("kill cycles: %d cycles, seed %d (KC_TEST_KILL_SEED replays it)" % (CYCLES, SEED))
    admin_port = free_port()
    overrides = {"admin.listeners": "http://127.0.0.1:%d" % admin_port,
                 "group.consumer.session.timeout.ms": "120000",
                 "group.consumer.max.session.timeout.ms": "120000",
                 "group.streams.session.timeout.ms": "120000",
                 "group.streams.max.session.timeout.ms": "120000",
                 "group.streams.initial.rebalance.delay.ms": "0",
                 "group.streams.assignment.interval.ms": "0"}
    with Kcoord("kill-cycles", overrides=overrides) as k:
        w = World(k, admin_port, rng)
        with kw.Conn(k.port, timeout=DEADLINE_S) as conn:
            w.setup(conn)
        t0 = time.monotonic()
        done = 0
        for i in range(CYCLES):
            if BUDGET_S and i >= MIN_CYCLES and time.monotonic() - t0 > BUDGET_S:
                break
            point = KILL_POINTS[i % len(KILL_POINTS)] if i < len(KILL_POINTS) \
                else rng.choice(KILL_POINTS)
            try:
                w.cycle(point)
                k.start()
                w.after_restart()
            except BaseException:
                print("kill cycles: failed in cycle %d (kill point %s), seed %d"
                      % (i + 1, point, SEED))
                raise
            done += 1
        elapsed = time.monotonic() - t0
        s = w.stats
        print("kill cycles: %d cycles in %.1f s (%.2f cycles/s), kill points %s"
              % (done, elapsed, done / elapsed, w.kill_points))
        print("kill cycles: acknowledged writes checked: %d records in %d batches "
              "(%d retried after a kill), %d offset commits, %d group transitions; losses: 0"
              % (s.records, s.batches, s.retried, s.commits, s.transitions))
        assert s.records > 0 and s.commits > 0 and s.transitions > 0
        # The streams member took part: it has an epoch and its tasks.
        assert w.sm.acked_epoch and len(w.sm.tasks[0]) == OFFSET_PARTITIONS, \
            (w.sm.acked_epoch, w.sm.tasks)


if __name__ == "__main__":
    run(main)
