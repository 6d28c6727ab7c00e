# SPDX-License-Identifier: Apache-2.0
"""Dynamic group configs acting on a running KIP-848 consumer group.

Two raw ConsumerGroupHeartbeat members join a group whose broker settings
give a 1 s heartbeat interval and a 6 s session. IncrementalAlterConfigs
then gives the group consumer.heartbeat.interval.ms=700 and
consumer.session.timeout.ms=2000: as in Kafka (GroupMetadataManager reads
consumerGroupHeartbeatIntervalMs(groupId) and re-arms the session timer
with consumerGroupSessionTimeoutMs(groupId) on every heartbeat), the next
heartbeat of each member carries the new interval, and a member that then
stops heartbeating is removed after the group's 2 s, well before the
broker's 6 s. The configs are durable: after a restart DescribeConfigs
shows them as GROUP_CONFIG and the surviving member is still told 700 ms.
Deleting them brings back the broker's interval.
"""

import time
import uuid

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

TOPIC = "gcfg-t"
GROUP = "gcfg-group"
GROUP_CONFIG_SOURCE = 8

SETTINGS = {
    "group.consumer.heartbeat.interval.ms": "1000",
    "group.consumer.session.timeout.ms": "6000",
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.min.heartbeat.interval.ms": "500",
}


def heartbeat(conn, member, epoch, **extra):
    r = kw.consumer_group_heartbeat(conn, 1, GROUP, member, epoch, **extra)
    assert r["error_code"] == kw.NONE, r
    return r


def members(port):
    with kw.Conn(port) as c:
        g = kw.consumer_group_describe(c, [GROUP])["groups"][GROUP]
    return sorted(g["members"])


def main():
    with Kcoord("group-configs", SETTINGS) as k:
        with kw.Conn(k.port) as c:
            kw.create_topics(c, {TOPIC: 2})
        a, b = str(uuid.uuid4()), str(uuid.uuid4())
        ca, cb = kw.Conn(k.port), kw.Conn(k.port)
        ra = heartbeat(ca, a, 0, rebalance_timeout_ms=30000, topic_names=[TOPIC], owned=[])
        rb = heartbeat(cb, b, 0, rebalance_timeout_ms=30000, topic_names=[TOPIC], owned=[])
        assert ra["heartbeat_interval_ms"] == 1000, ra
        assert rb["heartbeat_interval_ms"] == 1000, rb

        with kw.Conn(k.port) as c:
            res = kw.incremental_alter_configs(c, [(kw.CONFIG_RESOURCE_GROUP, GROUP, [
                ("consumer.heartbeat.interval.ms", kw.CONFIG_SET, "700"),
                ("consumer.session.timeout.ms", kw.CONFIG_SET, "2000")])])
            assert res[0]["error_code"] == kw.NONE, res
            # Outside the broker's bounds: refused, nothing changes.
            res = kw.incremental_alter_configs(c, [(kw.CONFIG_RESOURCE_GROUP, GROUP, [
                ("consumer.session.timeout.ms", kw.CONFIG_SET, "500")])])
            assert res[0]["error_code"] == kw.INVALID_CONFIG, res

        ra = heartbeat(ca, a, ra["member_epoch"])
        rb = heartbeat(cb, b, rb["member_epoch"])
        assert ra["heartbeat_interval_ms"] == 700, ra
        assert rb["heartbeat_interval_ms"] == 700, rb

        # b stops; a goes on at its interval. b's session (armed with the
        # group's 2 s at its last heartbeat) ends long before the broker's 6 s.
        stopped = time.monotonic()
        gone = None
        while time.monotonic() - stopped < 5.5:
            ra = heartbeat(ca, a, ra["member_epoch"])
            if b not in members(k.port):
                gone = time.monotonic() - stopped
                break
            time.sleep(0.2)
        assert gone is not None, "b still a member 5.5 s after its last heartbeat"
        assert 1.5 <= gone <= 4.0, gone
        cb.close()

        ca.close()
        k.restart()
        with kw.Conn(k.port) as c:
            code, cfgs = kw.describe_configs(c, kw.CONFIG_RESOURCE_GROUP, GROUP,
                                             ["consumer.heartbeat.interval.ms",
                                              "consumer.session.timeout.ms"])
            assert code == kw.NONE, code
            assert cfgs["consumer.heartbeat.interval.ms"] == ("700", GROUP_CONFIG_SOURCE), cfgs
            assert cfgs["consumer.session.timeout.ms"] == ("2000", GROUP_CONFIG_SOURCE), cfgs
        ca = kw.Conn(k.port)

        def beat():
            try:
                return kw.consumer_group_heartbeat(ca, 1, GROUP, a, ra["member_epoch"])
            except Exception:
                return None
        r = wait_for(lambda: (lambda x: x if x and x["error_code"] == kw.NONE else None)(beat()),
                     10, "a heartbeat after the restart")
        assert r["heartbeat_interval_ms"] == 700, r

        with kw.Conn(k.port) as c:
            res = kw.incremental_alter_configs(c, [(kw.CONFIG_RESOURCE_GROUP, GROUP, [
                ("consumer.heartbeat.interval.ms", kw.CONFIG_DELETE, None)])])
            assert res[0]["error_code"] == kw.NONE, res
        r = heartbeat(ca, a, r["member_epoch"])
        assert r["heartbeat_interval_ms"] == 1000, r
        ca.close()


if __name__ == "__main__":
    run(main)
