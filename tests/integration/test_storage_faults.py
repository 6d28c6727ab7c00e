# SPDX-License-Identifier: Apache-2.0
"""Storage faults: one write or flush of the LMDB data file fails on purpose.

kcoord runs with the kc_faultfs LD_PRELOAD shim (tests/plugins/kc_faultfs.c)
and a flush per commit (log.flush.interval.messages=1), so that every commit
goes through each point of LMDB's commit path: the data pages (writev or
pwrite), the meta page (a small pwrite into the first two pages: the commit
point) and the flush (fdatasync). Once kcoord is serving, the test arms the
shim for one point and one way of failing (EIO, ENOSPC, a short write) and
sends an offset commit of several partitions, then arms it again and sends an
idempotent produce (acks=-1). Then:

- a failed data page write: the OffsetCommit is answered NOT_COORDINATOR
  and the Produce KAFKA_STORAGE_ERROR, Kafka's errors for a failed append;
  kcoord keeps serving (reads return what was acknowledged before, and new
  writes succeed: the shim fails one call only);
- a failed meta page write (after which LMDB refuses every transaction) or
  a failed flush: kcoord stops with status 1 and says why, as Kafka halts
  when its last log directory fails; the request gets the error or its
  connection closes, never an acknowledgement; the test starts kcoord
  again (with the shim) and finds the failed commit's offsets all there or
  all absent (never some of them);

the producer's retry of the failed batch (same sequence) is appended once,
and in every case, after SIGKILL and a restart without the shim, every
acknowledged offset and record is there, the failed commit's offsets are all
there or all absent (never some of them), the log holds no record twice, and
kcoord serves writes again. Last, with the default kind of policy (a flush
on the log.flush.interval.ms schedule, after the answers), a failed
scheduled flush stops kcoord too, and the acknowledged commit is there
after the restart.
"""

import os

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "faults-log"
OFFSETS_TOPIC = "faults-in"
PARTS = 4
GROUP = "faults-group"
DEADLINE_S = 60
NOT_COORDINATOR = 16
KAFKA_STORAGE_ERROR = 56

# (point, mode, nth): nth 2 fails a commit's second data write, after its
# first went through.
CASES = [
    ("data", "eio", 1), ("data", "enospc", 1), ("data", "short", 1), ("data", "eio", 2),
    ("meta", "eio", 1), ("meta", "enospc", 1), ("meta", "short", 1),
    ("sync", "eio", 1),
]


def init_producer_id(conn):
    corr = conn.send(22, 1, kw.Writer().string(None).i32(60000).getvalue())
    got, r = conn.recv()
    assert got == corr
    r.i32()
    err, pid, epoch = r.i16(), r.i64(), r.i16()
    assert err == 0, err
    return pid, epoch


def commit(conn, values):
    res = kw.offset_commit(conn, GROUP, {OFFSETS_TOPIC: {p: (v, "") for p, v in values.items()}})
    return set(res["errors"].values())


def committed(conn):
    def fetch():
        res = kw.offset_fetch(conn, GROUP, {OFFSETS_TOPIC: range(PARTS)})
        if res["error_code"] != 0:
            return None
        return {p: res["offsets"][(OFFSETS_TOPIC, p)][0] for p in range(PARTS)}
    return wait_for(fetch, DEADLINE_S, "OffsetFetch")


def log_values(conn):
    """The values in partition 0 of the log, in offset order."""
    recs, _ = kw.fetch_records(conn, TOPIC, 0, 0)
    return [v for _, v in recs]


class Faults:
    def __init__(self, k):
        self.arm_path = os.path.join(k.tmp, "faultfs.arm")

    def arm(self, point, mode, nth=1):
        tmp = self.arm_path + ".tmp"
        with open(tmp, "w") as f:
            f.write("%s %s %d\n" % (point, mode, nth))
        os.rename(tmp, self.arm_path)

    def fired(self):
        p = self.arm_path + ".fired"
        if os.path.exists(p):
            os.unlink(p)
            return True
        return False


def with_shim(k, faults, shim):
    asan = os.environ.get("ASAN_OPTIONS", "")
    k.extra_env = {"LD_PRELOAD": shim, "KC_FAULTFS_ARM": faults.arm_path,
                   # The shim comes before the sanitizer runtime in the load order.
                   "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}


def halted(k, name):
    """After a failed meta page or flush: kcoord stops by itself, status 1,
    saying why."""
    rc = k.proc.wait(timeout=DEADLINE_S)
    k.proc = None
    assert rc == 1, (name, rc)
    assert "stopping the broker" in k.stderr_text(), k.stderr_text()[-2000:]


def run_case(point, mode, nth, shim):
    name = "%s-%s-%d" % (point, mode, nth)
    k = Kcoord("faults-" + name, overrides={"log.flush.interval.messages": "1"})
    faults = Faults(k)
    with_shim(k, faults, shim)
    halts = 0
    with k:
        conn = kw.Conn(k.port, timeout=DEADLINE_S)
        assert kw.create_topics(conn, {TOPIC: 1, OFFSETS_TOPIC: PARTS})["topics"] == \
            {TOPIC: (0, None), OFFSETS_TOPIC: (0, None)}
        pid, epoch = init_producer_id(conn)
        seq = 0
        acked_values = []

        before = {p: 100 + p for p in range(PARTS)}
        assert commit(conn, before) == {0}
        err, base = kw.produce_v7(conn, TOPIC, 0, kw.record_batch(
            [b"before-0", b"before-1"], pid, epoch, seq), acks=-1)
        assert (err, base) == (0, 0), (err, base)
        seq += 2
        acked_values += [b"before-0", b"before-1"]
        acked = dict(before)

        # The offset commit meets the fault.
        log_at = k.stderr_size()
        faults.arm(point, mode, nth)
        attempt = {p: 200 + p for p in range(PARTS)}
        try:
            errors = commit(conn, attempt)
        except (kw.ConnectionClosed, OSError):
            errors = None  # kcoord stopped before answering
        assert faults.fired(), "the %s fault did not fire on the offset commit" % name
        if point in ("meta", "sync"):
            # The commit point itself failed (LMDB refuses every later
            # transaction), or the flush did: kcoord stops; the answer, if
            # any, is the error.
            assert errors in (None, {NOT_COORDINATOR}), (name, errors)
            halted(k, name)
            halts += 1
            k.start()
            conn = kw.Conn(k.port, timeout=DEADLINE_S)
            got = committed(conn)
            # All or nothing of the failed commit.
            assert got in (before, attempt), (name, got)
            acked = got
        else:
            assert errors == {NOT_COORDINATOR}, (name, errors)
        if point == "data":
            logged = k.wait_log_after(log_at, what="a log line about the failure")
            assert "failed" in logged, logged

        # The produce meets it too.
        faults.arm(point, mode, nth)
        values = [b"during-0", b"during-1", b"during-2"]
        batch = kw.record_batch(values, pid, epoch, seq)
        try:
            err, base = kw.produce_v7(conn, TOPIC, 0, batch, acks=-1)
        except (kw.ConnectionClosed, OSError):
            err = base = None
        assert faults.fired(), "the %s fault did not fire on the produce" % name
        if point in ("meta", "sync"):
            assert err in (None, KAFKA_STORAGE_ERROR), (name, err)
            halted(k, name)
            halts += 1
            k.start()
        else:
            assert err == KAFKA_STORAGE_ERROR, (name, err)
        conn.close()
        conn = kw.Conn(k.port, timeout=DEADLINE_S)
        # kcoord serves: reads see exactly what was acknowledged, and the
        # producer's retry of a failed batch (same sequence) is appended once.
        assert committed(conn) == acked, (name, committed(conn), acked)
        got = log_values(conn)
        assert got in (acked_values, acked_values + values), (name, got)
        err, base = kw.produce_v7(conn, TOPIC, 0, batch, acks=-1)
        assert (err, base) == (0, 2), (name, err, base)
        acked_values += values
        seq += 3
        assert log_values(conn) == acked_values, (name, log_values(conn))
        after = {p: 300 + p for p in range(PARTS)}
        assert commit(conn, after) == {0}, name
        acked = after
        conn.close()

        # SIGKILL, and start again without the shim.
        k.kill()
        k.extra_env = {}
        k.start()
        conn = kw.Conn(k.port, timeout=DEADLINE_S)
        assert committed(conn) == acked, (name, committed(conn), acked)
        assert log_values(conn) == acked_values, (name, log_values(conn), acked_values)
        assert commit(conn, {p: 400 + p for p in range(PARTS)}) == {0}
        err, base = kw.produce_v7(conn, TOPIC, 0, kw.record_batch([b"again"], pid, epoch, seq),
                                  acks=-1)
        assert (err, base) == (0, len(acked_values)), (name, err, base)
        conn.close()
    print("storage faults: %s: %s; nothing acknowledged lost, nothing doubled"
          % (name, "the client got the error, kcoord kept serving" if point == "data" else
             "kcoord stopped (%d times), the data reopened at the last complete commit"
             % halts))


def scheduled_flush_case(shim):
    """The default policy flushes on a schedule, after the writes were
    acknowledged: a failed scheduled flush stops kcoord too, and the
    acknowledged writes are there after the restart."""
    k = Kcoord("faults-sync-scheduled", overrides={"log.flush.interval.ms": "200",
                                                   "log.flush.scheduler.interval.ms": "50"})
    faults = Faults(k)
    with_shim(k, faults, shim)
    with k:
        conn = kw.Conn(k.port, timeout=DEADLINE_S)
        assert kw.create_topics(conn, {OFFSETS_TOPIC: PARTS})["topics"] == \
            {OFFSETS_TOPIC: (0, None)}
        wait_for(lambda: kw.offset_fetch(conn, GROUP, None)["error_code"] == 0, DEADLINE_S,
                 "the coordinator to answer")
        faults.arm("sync", "eio", 1)
        attempt = {p: 500 + p for p in range(PARTS)}
        try:
            # The policy does not flush before answering; the topic's flush
            # may still come first on a slow machine, and stop kcoord.
            answered = commit(conn, attempt) == {0}
        except (kw.ConnectionClosed, OSError):
            answered = False
        conn.close()
        wait_for(faults.fired, DEADLINE_S, "the scheduled flush to meet the fault")
        halted(k, "sync-scheduled")
        k.extra_env = {}
        k.start()
        conn = kw.Conn(k.port, timeout=DEADLINE_S)
        got = committed(conn)
        if answered:
            assert got == attempt, (got, attempt)
        else:
            assert got in (attempt, {p: -1 for p in range(PARTS)}), got
        conn.close()
    print("storage faults: sync-scheduled: kcoord stopped, %s"
          % ("the acknowledged commit is there" if answered else
             "the flush failed before the commit was answered"))


def main():
    shim = os.environ.get("KC_TEST_FAULTFS")
    assert shim and os.path.exists(shim), "KC_TEST_FAULTFS must name the built kc_faultfs.so"
    for point, mode, nth in CASES:
        run_case(point, mode, nth, shim)
    scheduled_flush_case(shim)


if __name__ == "__main__":
    run(main)
