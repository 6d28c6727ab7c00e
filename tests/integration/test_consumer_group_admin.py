# SPDX-License-Identifier: Apache-2.0
"""KIP-848 consumer groups over the wire and in the admin views.

Two raw ConsumerGroupHeartbeat v1 members: "regex" subscribes with
SubscribedTopicRegex "cga-.*" (static, instance id "inst-r"), "names" with
the topic name cga-a. Topic "other" matches no subscription.

- A regex that does not compile is answered INVALID_REGULAR_EXPRESSION.
- The regex resolves after the join (the group epoch goes up on its own);
  the members converge: every partition of cga-a and cga-b owned once,
  nothing of "other".
- A topic created afterwards (cga-c) joins the regex member's assignment
  once the refresh is due.
- GET /v1/groups lists the group with type consumer and its epochs; GET
  /v1/groups/{id} shows each member's epochs, instance id, client id and
  host, subscription (names, regex) and decoded partitions by topic name,
  plus partitions_pending_revocation.
- /v1/events has member_joined, group_epoch_bumped and, once the names
  member stops heartbeating, session_expired; the log has the fence line
  and a consumer-group state transition line.
"""

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for

GROUP = "cga-group"
DEADLINE_S = 60
TOPICS = {"cga-a": 3, "cga-b": 2, "other": 1}


class Member:
    def __init__(self, port, member_id, **sub):
        self.conn = kw.Conn(port)
        self.member_id = member_id
        self.epoch = 0
        self.owned = set()
        self.sub = sub

    def heartbeat(self):
        extra = dict(self.sub, rebalance_timeout_ms=30000) if self.epoch == 0 else {}
        res = kw.consumer_group_heartbeat(self.conn, 1, GROUP, self.member_id, self.epoch,
                                          owned=sorted(self.owned), **extra)
        assert res["error_code"] == kw.NONE, res
        self.epoch = res["member_epoch"]
        if res["assignment"] is not None:
            self.owned = set(res["assignment"])
        return res


def main():
    admin_port = free_port()
    overrides = {
        "admin.listeners": "http://127.0.0.1:%d" % admin_port,
        "group.consumer.session.timeout.ms": "3000",
        "group.consumer.min.session.timeout.ms": "1000",
        "group.consumer.heartbeat.interval.ms": "500",
        "group.consumer.regex.refresh.min.interval.ms": "0",
    }
    with Kcoord("consumer-group-admin", overrides) as k:
        admin = Admin(admin_port)
        with kw.Conn(k.port) as c:
            res = kw.create_topics(c, TOPICS)
            assert res["topics"] == {t: (0, None) for t in TOPICS}, res

        # A bad regex: INVALID_REGULAR_EXPRESSION (128), nothing created.
        with kw.Conn(k.port) as c:
            bad = kw.consumer_group_heartbeat(c, 1, GROUP, "bad-member", 0,
                                              topic_regex="cga-[", rebalance_timeout_ms=30000,
                                              owned=[])
        assert bad["error_code"] == 128, bad
        assert "cga-[" in (bad["error_message"] or ""), bad
        assert admin.request("GET", "/v1/groups/" + GROUP)[0] == 404

        log_mark = k.stderr_size()
        rx = Member(k.port, "member-regex", topic_regex="cga-.*", instance_id="inst-r")
        names = Member(k.port, "member-names", topic_names=["cga-a"])
        members = [rx, names]

        def converged(expected_topics):
            for m in members:
                m.heartbeat()
            g = admin.group(GROUP)
            if g["state"] != "Stable":
                return None
            owned = {}
            for jm in g["members"]:
                for t, parts in jm["assigned_partitions"].items():
                    for p in parts:
                        assert (t, p) not in owned, ("owned twice", t, p, g)
                        owned[(t, p)] = jm["member_id"]
            want = {(t, p) for t in expected_topics for p in range(TOPICS.get(t, 2))}
            return g if set(owned) == want else None

        g = wait_for(lambda: converged(["cga-a", "cga-b"]), DEADLINE_S,
                     "the group to converge on cga-a and cga-b")
        assert g["type"] == "consumer" and g["protocol_type"] == "consumer", g
        assert g["group_epoch"] == g["assignment_epoch"] >= 2, g
        assert g["assignor"] == "uniform", g
        by_id = {m["member_id"]: m for m in g["members"]}
        jr, jn = by_id["member-regex"], by_id["member-names"]
        assert jr["instance_id"] == "inst-r" and jn["instance_id"] is None, g
        assert jr["subscribed_topic_regex"] == "cga-.*" and jr["subscribed_topic_names"] == [], jr
        assert jn["subscribed_topic_names"] == ["cga-a"] and jn["subscribed_topic_regex"] is None, jn
        for jm in (jr, jn):
            assert jm["member_epoch"] == g["group_epoch"], jm
            assert jm["state"] == "stable" and jm["partitions_pending_revocation"] == {}, jm
            assert jm["client_id"] == "kcoord-itest", jm
            assert jm["client_host"].startswith("/127.0.0.1"), jm
            assert jm["assigned_partitions"] == jm["target_assignment"], jm
        assert set(jn["assigned_partitions"]) <= {"cga-a"}, jn
        assert "cga-b" in jr["assigned_partitions"], jr
        listed = admin.json("GET", "/v1/groups")["groups"]
        (lg,) = [x for x in listed if x["group_id"] == GROUP]
        assert lg["type"] == "consumer" and lg["group_epoch"] == g["group_epoch"], lg

        # A new topic matching the regex joins the regex member's assignment.
        with kw.Conn(k.port) as c:
            res = kw.create_topics(c, {"cga-c": 2})
            assert res["topics"] == {"cga-c": (0, None)}, res
        g = wait_for(lambda: converged(["cga-a", "cga-b", "cga-c"]), DEADLINE_S,
                     "cga-c to be assigned")
        assert "cga-c" in {m["member_id"]: m for m in g["members"]}["member-regex"][
            "assigned_partitions"], g

        # The names member stops heartbeating: its session expires.
        def expired():
            rx.heartbeat()
            g2 = admin.group(GROUP)
            return g2 if [m["member_id"] for m in g2["members"]] == ["member-regex"] else None
        wait_for(expired, DEADLINE_S, "the session of member-names to expire")

        ev = admin.json("GET", "/v1/events")["events"]
        mine = [e for e in ev if e["group_id"] == GROUP]
        assert all(e["group_type"] == "consumer" for e in mine), mine
        joined = {e["member_id"] for e in mine if e["type"] == "member_joined"}
        assert joined == {"member-regex", "member-names"}, mine
        bumps = [e for e in mine if e["type"] == "group_epoch_bumped"]
        assert bumps and all(e["reason"] for e in bumps), mine
        assert [e["generation"] for e in bumps] == sorted(e["generation"] for e in bumps), bumps
        (exp,) = [e for e in mine if e["type"] == "session_expired"]
        assert exp["member_id"] == "member-names", exp

        log = k.stderr_since(log_mark)
        assert "Member member-names (instance id none, epoch" in log, log[-3000:]
        assert "fenced from the group because the member session expired" in log, log[-3000:]
        assert "[GroupId %s] Consumer group transitioned from" % GROUP in log, log[-3000:]
        assert "Scanned" in log and "cga-.*" in log, log[-3000:]
        for m in members:
            m.conn.close()


if __name__ == "__main__":
    run(main)
