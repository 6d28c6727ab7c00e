# SPDX-License-Identifier: Apache-2.0
"""The flush policy: Kafka's log.flush.* properties and flush.messages / flush.ms.

Commits are not flushed to the disk unless the policy says so; the admin
endpoint's kcoord_lmdb_flushes_total counts the flushes. With Kafka's
defaults no produce and no offset commit flushes. With
log.flush.interval.messages=3 a partition flushes on its third unflushed
record (and not before), the coordinator's offset commits count the same
way, and a topic created with flush.messages=1 flushes on every produce while
another topic keeps the broker default. With log.flush.interval.ms=300 and a
100 ms scheduler, one produce is flushed by the scheduler. Unflushed records
survive SIGKILL either way (they are in the page cache).
"""

import re
import socket

from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, run, wait_for

DEADLINE_S = 60


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def flushes(admin):
    m = re.search(r"^kcoord_lmdb_flushes_total (\d+)$", admin.metrics(), re.M)
    assert m, "kcoord_lmdb_flushes_total missing from /metrics"
    return int(m.group(1))


def create_topic(bootstrap, name, config=None):
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.create_topics([NewTopic(name, 1, 1, config=config or {})])
    fs[name].result(DEADLINE_S)


def produce_one(conn, topic, value=b"v"):
    err, base = kw.produce_v7(conn, topic, 0, kw.record_batch([value]), acks=1)
    assert err == 0, err
    return base


def start(name, extra):
    port = free_port()
    overrides = {"admin.listeners": "http://127.0.0.1:%d" % port}
    overrides.update(extra)
    return Kcoord(name, overrides), Admin(port)


def defaults_never_flush():
    k, admin = start("flush-default", {})
    with k:
        create_topic(k.bootstrap, "t")
        with kw.Conn(k.port) as c:
            for i in range(20):
                assert produce_one(c, "t", b"%d" % i) == i
            r = kw.offset_commit(c, "g", {"t": {0: (20, "")}})
            assert r["errors"] == {("t", 0): 0}, r
        assert flushes(admin) == 0
        # Not flushed, yet a killed process loses nothing.
        k.kill()
        k.start()
        with kw.Conn(k.port) as c:
            assert produce_one(c, "t") == 20
            r = kw.offset_fetch(c, "g", {"t": [0]})
            assert r["offsets"][("t", 0)][0] == 20, r


def message_count():
    k, admin = start("flush-messages", {"log.flush.interval.messages": "3"})
    with k:
        create_topic(k.bootstrap, "t")
        create_topic(k.bootstrap, "every", {"flush.messages": "1"})
        with kw.Conn(k.port) as c:
            f0 = flushes(admin)
            produce_one(c, "t")
            produce_one(c, "t")
            assert flushes(admin) == f0
            produce_one(c, "t")  # the third unflushed record of t-0
            assert flushes(admin) == f0 + 1
            produce_one(c, "t")
            assert flushes(admin) == f0 + 1
            # A batch of three records reaches the count at once.
            err, _ = kw.produce_v7(c, "t", 0, kw.record_batch([b"a", b"b", b"c"]))
            assert err == 0
            assert flushes(admin) == f0 + 2
            # The topic override wins over the broker default.
            produce_one(c, "every")
            assert flushes(admin) == f0 + 3
            produce_one(c, "every")
            assert flushes(admin) == f0 + 4
            # Offset commits are records of the coordinator's log.
            for i in range(2):
                r = kw.offset_commit(c, "g", {"t": {0: (i, "")}})
                assert r["errors"] == {("t", 0): 0}, r
            assert flushes(admin) == f0 + 4
            kw.offset_commit(c, "g", {"t": {0: (2, "")}})
            assert flushes(admin) == f0 + 5


def scheduled():
    k, admin = start("flush-ms", {"log.flush.interval.ms": "300",
                                  "log.flush.scheduler.interval.ms": "100"})
    with k:
        create_topic(k.bootstrap, "t")
        f0 = flushes(admin)
        with kw.Conn(k.port) as c:
            produce_one(c, "t")
        wait_for(lambda: flushes(admin) > f0, DEADLINE_S, "a scheduled flush")


def main():
    defaults_never_flush()
    message_count()
    scheduled()


if __name__ == "__main__":
    run(main)
