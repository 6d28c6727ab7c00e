# SPDX-License-Identifier: Apache-2.0
"""The LMDB map grows when it fills instead of failing writes.

kcoord starts with the smallest map it accepts (1 MiB) and no
lmdb.map.max.bytes. Produce (acks=all) and offset commits then write several
times the map's size: every one must succeed, a log line must name the
growth, /metrics and /v1/health must show the larger map, and after a
SIGKILL and restart every acknowledged record and offset must be there.
Then a restart with lmdb.map.max.bytes at the map's present size: writes
get Kafka's storage errors (NOT_COORDINATOR for a commit, KAFKA_STORAGE_ERROR
for a produce) and reads are still served.
"""

import kafka_wire as kw
from admin_client import Admin, parse_prometheus
from kcoord_harness import Kcoord, free_port, run, wait_for

TOPIC = "growth-topic"
GROUP = "growth-group"
MAP = 1 << 20
VALUE = b"v" * 2000
BATCHES = 100  # 100 x 20 records x 2000 bytes = 4 MB
PARTITIONS = 20
NOT_COORDINATOR = 16
KAFKA_STORAGE_ERROR = 56


def gauge(admin, name):
    fam = parse_prometheus(admin.metrics())[name]
    return fam["samples"][0][2]


def high_watermark(conn):
    res = kw.fetch_v4(conn, TOPIC, 0, 0)[(TOPIC, 0)]
    assert res["error_code"] == 0, res
    return res["high_watermark"]


def offsets(conn, rounds):
    out = {}
    for r in range(rounds):
        res = kw.offset_fetch(conn, "%s-%d" % (GROUP, r), None)
        if res["error_code"] == kw.COORDINATOR_LOAD_IN_PROGRESS:
            return None
        assert res["error_code"] == 0, res
        out.update({("%s-%d" % (GROUP, r),) + tp: v[0] for tp, v in res["offsets"].items()})
    return out


def main():
    admin_port = free_port()
    overrides = {"lmdb.map.size.bytes": str(MAP),
                 "admin.listeners": "http://127.0.0.1:%d" % admin_port}
    with Kcoord("map-growth", overrides=overrides) as k:
        admin = Admin(admin_port)
        conn = kw.Conn(k.port)
        assert kw.create_topics(conn, {TOPIC: PARTITIONS})["topics"] == {TOPIC: (0, None)}
        log_offset = k.stderr_size()
        acked = 0
        committed = {}
        for b in range(BATCHES):
            err, base = kw.produce_v7(conn, TOPIC, 0, kw.record_batch([VALUE] * 20), acks=-1)
            assert (err, base) == (0, acked), (b, err, base)
            acked += 20
            group = "%s-%d" % (GROUP, b % 10)
            offs = {TOPIC: {p: (b * 1000 + p, "m" * 500) for p in range(PARTITIONS)}}
            res = kw.offset_commit(conn, group, offs)
            assert set(res["errors"].values()) == {0}, (b, res)
            for p in range(PARTITIONS):
                committed[(group, TOPIC, p)] = b * 1000 + p
        k.wait_log_after(log_offset, what="a log line about the map's growth")
        assert "grew" in k.stderr_since(log_offset), k.stderr_since(log_offset)
        grown = gauge(admin, "kcoord_lmdb_map_size_bytes")
        assert grown >= 4 * MAP, grown
        assert gauge(admin, "kcoord_lmdb_map_grows_total") >= 1
        assert gauge(admin, "kcoord_lmdb_full") == 0
        assert gauge(admin, "kcoord_lmdb_used_bytes") > 4_000_000
        health = admin.json("GET", "/v1/health")["storage"]
        assert health["map_size_bytes"] == grown and not health["full"], health

        # Nothing acknowledged is lost across a SIGKILL.
        k.kill()
        k.start()
        conn = kw.Conn(k.port)
        assert high_watermark(conn) == acked
        got = wait_for(lambda: offsets(conn, 10), 60, "offsets after the restart")
        assert got == committed, (len(got), len(committed))

        # At lmdb.map.max.bytes the map stops growing: Kafka's storage errors,
        # reads still served.
        k.stop()
        k.overrides["lmdb.map.max.bytes"] = str(int(grown))
        k.overrides["lmdb.map.size.bytes"] = str(int(grown))
        k.start()
        conn = kw.Conn(k.port)
        failed = None
        for b in range(BATCHES, 20 * BATCHES):
            err, _ = kw.produce_v7(conn, TOPIC, 0, kw.record_batch([VALUE] * 20), acks=-1)
            if err:
                failed = err
                break
            acked += 20
        assert failed == KAFKA_STORAGE_ERROR, failed
        res = kw.offset_commit(conn, GROUP + "-late", {TOPIC: {0: (1, "m" * 500)}})
        assert set(res["errors"].values()) == {NOT_COORDINATOR}, res
        assert gauge(admin, "kcoord_lmdb_full") == 1
        assert high_watermark(conn) == acked
        got = wait_for(lambda: offsets(conn, 10), 60, "offsets at the maximum")
        assert got == committed, (len(got), len(committed))


if __name__ == "__main__":
    run(main)
