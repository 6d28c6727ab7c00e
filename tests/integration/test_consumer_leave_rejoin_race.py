# SPDX-License-Identifier: Apache-2.0
"""The leave/rejoin heartbeat race of the KIP-848 consumer protocol.

A consumer that leaves sends a ConsumerGroupHeartbeat with member epoch -1
and may start rejoining before the answer to that leave arrives. The test
orders the two with faults, on the raw wire, and checks that kcoord answers
each heartbeat as Kafka's GroupMetadataManager does (docs/walkthroughs.md:
"The leave/rejoin heartbeat race (KIP-848), step by step").

1. Members N and M are in group G.
2. A delay fault holds back the next ConsumerGroupHeartbeat response. M
   sends its leave (epoch -1) on connection A: kcoord removes M at once and
   answers NONE with epoch -1, but the answer is held. M rejoins on
   connection B with epoch 0 and the same member id: it is a new member to
   the coordinator and gets a new member epoch and an assignment. Only then
   does the leave's answer reach A. The late answer does not undo the rejoin:
   M is in the group with its new epoch.
3. A stall queues three heartbeats in read order: M's leave (epoch -1) on A;
   on B a joining heartbeat that still carries epoch -1 (what a client sends
   when it rejoins with the epoch the leave left behind); on C a v0 joining
   heartbeat with epoch -1 and no member id. When the stall ends, the leave
   is answered NONE; B's heartbeat is a leave of a member that is already
   gone: UNKNOWN_MEMBER_ID "Member M is not a member of group G."; C's is
   refused before the group is touched: INVALID_REQUEST "MemberId can't be
   empty.". M then rejoins properly with epoch 0.
"""

import uuid

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for

TOPIC = "lr-topic"
GROUP = "lr-group"
INVALID_REQUEST = 42


def hb_body(version, member_id, epoch, joining):
    extra = {}
    if joining:
        extra = {"rebalance_timeout_ms": 60000, "topic_names": [TOPIC], "owned": []}
    return kw.consumer_group_heartbeat_body(version, GROUP, member_id, epoch, **extra)


def send_hb(conn, version, member_id, epoch, joining=False):
    return conn.send(kw.API_CONSUMER_GROUP_HEARTBEAT, version,
                     hb_body(version, member_id, epoch, joining), flexible=True)


def recv_hb(conn, corr):
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    return kw.decode_consumer_group_heartbeat(r)


def hb(conn, member_id, epoch, joining=False, version=1):
    return recv_hb(conn, send_hb(conn, version, member_id, epoch, joining))


def describe(conn):
    return kw.consumer_group_describe(conn, [GROUP])["groups"][GROUP]


def main():
    admin_port = free_port()
    with Kcoord("consumer_leave_rejoin_race",
                {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        admin = Admin(admin_port)
        a, b, c = kw.Conn(k.port), kw.Conn(k.port), kw.Conn(k.port)
        assert kw.create_topics(a, {TOPIC: 2})["topics"] == {TOPIC: (0, None)}
        n_id, m_id = str(uuid.uuid4()), str(uuid.uuid4())
        n = hb(c, n_id, 0, joining=True)
        assert n["error_code"] == 0 and n["member_epoch"] >= 1, n
        m = hb(a, m_id, 0, joining=True)
        assert m["error_code"] == 0 and m["member_epoch"] > n["member_epoch"], m
        first_epoch = m["member_epoch"]

        # 2. The leave's answer arrives after the rejoin was answered.
        admin.add_fault(type="delay", api_key=kw.API_CONSUMER_GROUP_HEARTBEAT, delay_ms=5000,
                        count=1)
        leave_corr = send_hb(a, 1, m_id, -1)
        # The delay fault is used up when the leave's answer is held back:
        # the leave has been handled.
        wait_for(lambda: admin.faults()["faults"] == [], 30, "the leave handled, answer held")
        assert m_id not in describe(c)["members"], "the leave must remove M at once"
        rejoin = hb(b, m_id, 0, joining=True)
        assert rejoin["error_code"] == 0 and rejoin["member_id"] == m_id, rejoin
        assert rejoin["member_epoch"] > first_epoch, rejoin
        assert rejoin["assignment"] is not None, rejoin
        assert not a.readable_within(0), "the leave's answer must still be held"
        leave = recv_hb(a, leave_corr)
        assert (leave["error_code"], leave["member_id"], leave["member_epoch"]) == \
            (0, m_id, -1), leave
        g = describe(c)
        assert g["members"][m_id]["member_epoch"] == rejoin["member_epoch"], g

        # 3. A joining heartbeat that carries epoch -1, read after the leave.
        admin.add_fault(type="stall", duration_ms=600000)
        leave_corr = send_hb(a, 1, m_id, -1)
        wait_for(lambda: admin.faults()["stall_queue"] == 1, 30, "the leave queued")
        bad_corr = send_hb(b, 1, m_id, -1, joining=True)
        wait_for(lambda: admin.faults()["stall_queue"] == 2, 30, "the joining -1 queued")
        v0_corr = send_hb(c, 0, "", -1, joining=True)
        wait_for(lambda: admin.faults()["stall_queue"] == 3, 30, "the v0 joining -1 queued")
        assert admin.json("DELETE", "/v1/faults")["cleared"] == 1
        leave = recv_hb(a, leave_corr)
        assert (leave["error_code"], leave["member_id"], leave["member_epoch"]) == \
            (0, m_id, -1), leave
        bad = recv_hb(b, bad_corr)
        assert bad["error_code"] == kw.UNKNOWN_MEMBER_ID, bad
        assert bad["error_message"] == "Member %s is not a member of group %s." % (m_id, GROUP), bad
        assert bad["assignment"] is None, bad
        v0 = recv_hb(c, v0_corr)
        assert (v0["error_code"], v0["error_message"]) == \
            (INVALID_REQUEST, "MemberId can't be empty."), v0
        assert m_id not in describe(c)["members"]

        again = hb(b, m_id, 0, joining=True)
        assert again["error_code"] == 0 and again["member_epoch"] > rejoin["member_epoch"], again
        g = describe(c)
        assert set(g["members"]) == {n_id, m_id}, g
        assert g["members"][m_id]["member_epoch"] == again["member_epoch"], g


if __name__ == "__main__":
    run(main)
