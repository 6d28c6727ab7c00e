# SPDX-License-Identifier: Apache-2.0
"""A full disk: the LMDB map fills up while offsets are being committed.

kcoord runs with the smallest map it accepts, which may not grow
(lmdb.map.max.bytes). Offset commits with large
metadata, each round for a new group (a commit for the same key replaces the
older record), are sent until one fails. The failed commit must carry the error
Kafka's coordinator gives for a failed log append on a storage error
(NOT_COORDINATOR, so clients look the coordinator up again and retry), a
log line must say what happened, reads must keep working and return every
acknowledged offset, and a restart must bring every acknowledged offset
back: nothing acknowledged is lost and nothing is corrupted.
"""

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "full-topic"
PARTITIONS = 50
GROUP = "full-group"
NOT_COORDINATOR = 16
METADATA = "m" * 4000
MAX_ROUNDS = 200


def group(r):
    return "%s-%d" % (GROUP, r)


def fetch_all(conn, rounds):
    """{(group, topic, partition): offset} of every group committed to, or
    None while the coordinator is loading."""
    out = {}
    for r in range(rounds):
        res = kw.offset_fetch(conn, group(r), None)
        if res["error_code"] == kw.COORDINATOR_LOAD_IN_PROGRESS:
            return None
        assert res["error_code"] == 0, res
        out.update({(group(r),) + tp: v[0] for tp, v in res["offsets"].items()})
    return out


def main():
    with Kcoord("disk-full", overrides={"lmdb.map.size.bytes": "1048576",
                                         "lmdb.map.max.bytes": "1048576"}) as k:
        conn = kw.Conn(k.port)
        assert kw.create_topics(conn, {TOPIC: PARTITIONS})["topics"] == {TOPIC: (0, None)}

        acked = {}
        failure = None
        log_offset = k.stderr_size()
        for r in range(MAX_ROUNDS):
            offsets = {TOPIC: {p: (r * 1000 + p, METADATA) for p in range(PARTITIONS)}}
            res = kw.offset_commit(conn, group(r), offsets)
            errors = set(res["errors"].values())
            assert len(res["errors"]) == PARTITIONS, res
            if errors == {0}:
                for (t, p), _ in res["errors"].items():
                    acked[(group(r), t, p)] = r * 1000 + p
                continue
            failure = (r, errors)
            break
        assert failure is not None, "the map never filled up in %d rounds" % MAX_ROUNDS
        assert failure[1] == {NOT_COORDINATOR}, failure
        assert acked, "the first commit already failed; the test proves nothing"
        k.wait_log_after(log_offset, what="a log line about the full map")
        logged = k.stderr_since(log_offset).lower()
        assert "full" in logged or "space" in logged, logged

        # Reads keep working and see exactly the acknowledged offsets.
        fresh = kw.Conn(k.port)
        rounds = failure[0] + 1
        got = wait_for(lambda: fetch_all(fresh, rounds), 60,
                       "OffsetFetch to answer after the failure")
        assert got == acked, (len(got), len(acked))

        # Nothing acknowledged is lost across a restart.
        k.kill()
        k.start()
        after = kw.Conn(k.port)
        got = wait_for(lambda: fetch_all(after, rounds), 60, "offsets after restart")
        assert got == acked, (len(got), len(acked))


if __name__ == "__main__":
    run(main)
