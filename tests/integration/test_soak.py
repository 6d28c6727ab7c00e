# SPDX-License-Identifier: Apache-2.0
"""Soak: many classic-group clients churning while kcoord is killed and restarted.

Raw-protocol clients (one thread each, loopback only) join one of several
groups, sync, commit offsets with their generation, heartbeat, rejoin on a
rebalance, then leave or just drop the connection, and start over, for a
bounded time. Meanwhile kcoord is SIGKILLed and restarted at random (seeded)
moments. Pass criteria, checked after the churn:

- no acknowledged offset commit is lost: for every (group, partition) the
  committed offset lies between the last acknowledged and the last
  attempted commit (a commit whose answer was lost in a kill may or may not
  have been made durable);
- no group is stuck: once the clients are gone every group reaches Empty
  (members that vanished without leaving expire by their session timeout).

The default run is sized for a loaded 2-core machine; KC_TEST_EXTENDED=1
(set by `./scripts/test --extended`) runs more clients, longer, with more
kills. KC_TEST_SOAK_SEED replays a run.
"""

import os
import random
import threading
import time

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

EXTENDED = os.environ.get("KC_TEST_EXTENDED") == "1"
CLIENTS = 400 if EXTENDED else 120
GROUPS = 20 if EXTENDED else 8
DURATION_S = 120 if EXTENDED else 40
KILLS = 8 if EXTENDED else 3
SEED = int(os.environ.get("KC_TEST_SOAK_SEED", "20261130"))
TOPIC = "soak"
SESSION_MS = 3000
REBALANCE_MS = 6000
DEADLINE_S = 120
REBALANCE_IN_PROGRESS = 27


def leave_group(conn, group, member_id):
    """LeaveGroup v1; returns the error code."""
    corr = conn.send(13, 1, kw.Writer().string(group).string(member_id).getvalue())
    got, r = conn.recv()
    assert got == corr, (got, corr)
    r.i32()
    return r.i16()


class Ledger:
    """Per (group, partition): last attempted and last acknowledged offset."""

    def __init__(self):
        self.lock = threading.Lock()
        self.attempted = {}
        self.acked = {}

    def attempt(self, key, offset):
        with self.lock:
            self.attempted[key] = max(self.attempted.get(key, -1), offset)

    def ack(self, key, offset):
        with self.lock:
            self.acked[key] = max(self.acked.get(key, -1), offset)


class Client(threading.Thread):
    def __init__(self, k, idx, ledger, stop, rng_seed):
        super().__init__(daemon=True)
        self.k = k
        self.group = "soak-%d" % (idx % GROUPS)
        self.partition = idx // GROUPS  # its own partition: offsets only grow
        self.key = (self.group, self.partition)
        self.ledger = ledger
        self.stop = stop
        self.rng = random.Random(rng_seed)
        self.next_offset = 1
        self.commits_acked = 0
        self.errors = []

    def session(self, conn):
        kw_args = {"session_timeout_ms": SESSION_MS, "rebalance_timeout_ms": REBALANCE_MS}
        j = kw.join_dynamic(conn, self.group, **kw_args)
        member = j["member_id"]
        while not self.stop.is_set():
            if j["error_code"] != 0:
                return
            gen = j["generation_id"]
            assignments = [(m["member_id"], b"") for m in j["members"]] if j["leader"] == member else []
            s = kw.sync_group(conn, self.group, gen, member, assignments=assignments)
            if s["error_code"] == REBALANCE_IN_PROGRESS:
                j = kw.join_group(conn, self.group, member, **kw_args)
                continue
            if s["error_code"] != 0:
                return
            rejoin = False
            for _ in range(self.rng.randint(3, 10)):
                if self.stop.is_set():
                    break
                off = self.next_offset
                self.next_offset += 1
                self.ledger.attempt(self.key, off)
                res = kw.offset_commit(conn, self.group, {TOPIC: {self.partition: (off, "")}},
                                       generation_id=gen, member_id=member)
                if res["errors"].get((TOPIC, self.partition)) == 0:
                    self.ledger.ack(self.key, off)
                    self.commits_acked += 1
                hb = kw.heartbeat(conn, self.group, gen, member)
                if hb["error_code"] == REBALANCE_IN_PROGRESS:
                    rejoin = True
                    break
                if hb["error_code"] != 0:
                    return
                time.sleep(self.rng.uniform(0.05, 0.4))
            if not rejoin:
                if self.rng.random() < 0.7:
                    leave_group(conn, self.group, member)
                return  # else the connection just drops: the session expires
            j = kw.join_group(conn, self.group, member, **kw_args)

    def run(self):
        while not self.stop.is_set():
            try:
                with kw.Conn(self.k.port, timeout=REBALANCE_MS / 1000 + 20) as conn:
                    self.session(conn)
            except (OSError, kw.ConnectionClosed, kw.DecodeError, TimeoutError):
                pass  # kcoord was killed, or is restarting
            except Exception as e:  # a protocol surprise is a failure
                self.errors.append(repr(e))
                return
            time.sleep(self.rng.uniform(0.05, 0.5))


def group_states(k, groups):
    with kw.Conn(k.port, timeout=30) as c:
        d = kw.describe_groups(c, groups)
    return {g["group_id"]: (g["error_code"], g["state"]) for g in d["groups"]}


def main():
    rng = random.Random(SEED)
    print("soak: %d clients, %d groups, %d s, %d kills, seed %d"
          % (CLIENTS, GROUPS, DURATION_S, KILLS, SEED))
    overrides = {"group.min.session.timeout.ms": "1000"}
    with Kcoord("soak", overrides=overrides) as k:
        with kw.Conn(k.port) as c:
            assert kw.create_topics(c, {TOPIC: CLIENTS // GROUPS + 1})["topics"][TOPIC][0] == 0
        ledger = Ledger()
        stop = threading.Event()
        clients = [Client(k, i, ledger, stop, rng.random()) for i in range(CLIENTS)]
        for cl in clients:
            cl.start()
        kill_times = sorted(rng.uniform(0.15, 0.85) * DURATION_S for _ in range(KILLS))
        t0 = time.monotonic()
        for at in kill_times:
            time.sleep(max(0.0, at - (time.monotonic() - t0)))
            k.kill()
            time.sleep(rng.uniform(0.0, 1.0))
            k.start()
        time.sleep(max(0.0, DURATION_S - (time.monotonic() - t0)))
        stop.set()
        for cl in clients:
            cl.join(timeout=DEADLINE_S)
            assert not cl.is_alive(), "a client thread did not stop"
        errors = [e for cl in clients for e in cl.errors]
        assert not errors, errors[:5]
        acked = sum(cl.commits_acked for cl in clients)
        print("soak: %d commits acknowledged" % acked)
        assert acked >= CLIENTS, "too little happened to prove anything: %d commits" % acked

        # One more kill: what was acknowledged must survive it too.
        k.kill()
        k.start()
        groups = sorted({cl.group for cl in clients})
        with kw.Conn(k.port, timeout=30) as c:
            for g in groups:
                parts = sorted(p for (grp, p) in ledger.attempted if grp == g)
                got = kw.offset_fetch(c, g, {TOPIC: parts})["offsets"]
                for p in parts:
                    committed = got[(TOPIC, p)][0]
                    low = ledger.acked.get((g, p), -1)
                    high = ledger.attempted[(g, p)]
                    assert low <= committed <= high, \
                        "group %s partition %d: committed %d, acknowledged %d, attempted %d" \
                        % (g, p, committed, low, high)

        def all_empty():
            states = group_states(k, groups)
            return all(err == 0 and state == "Empty" for err, state in states.values())
        wait_for(all_empty, DEADLINE_S, "every group to become Empty",
                 state=lambda: group_states(k, groups))


if __name__ == "__main__":
    run(main)
