# SPDX-License-Identifier: Apache-2.0
"""GET /v1/events: the admin endpoint's ring of coordinator events.

- a classic group formed with the raw client (join_dynamic, sync_group)
  shows member_joined, rebalance_started and rebalance_completed with the
  group id and type, the member id and the generation; seqs increase from 1;
- ?since=SEQ returns only later events; next_seq is the next event's seq;
  a bad since is refused with 400; `kcoord ctl events SINCE` pages too;
- with admin.events.max=3 older events fall out: dropped counts them and
  the oldest kept seq is dropped + 1;
- a static member replaced by a new member of its group instance id
  (classic and consumer groups) is member_removed, the reason naming the
  member that fenced it;
- a classic group whose last member's session expires completes its
  rebalance to Empty: rebalance_completed with the reason, no rebalance
  left open.
"""

import json
import os
import subprocess

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for

GROUP = "events-group"


def form_group(port, group):
    c = kw.Conn(port)
    j = kw.join_dynamic(c, group)
    assert j["error_code"] == 0, j
    mid, gen = j["member_id"], j["generation_id"]
    s = kw.sync_group(c, group, gen, mid, [(mid, b"")])
    assert s["error_code"] == 0, s
    c.close()
    return mid, gen


def static_replaced(port, admin):
    """Each group's old static member fenced, by the new member's id."""
    with kw.Conn(port) as c1, kw.Conn(port) as c2:
        old = kw.join_group(c1, "events-static", group_instance_id="i-1")
        assert old["error_code"] == 0, old
        assert kw.sync_group(c1, "events-static", old["generation_id"], old["member_id"],
                             [(old["member_id"], b"")])["error_code"] == 0
        new = kw.join_group(c2, "events-static", group_instance_id="i-1")
        assert new["error_code"] == 0 and new["member_id"] != old["member_id"], new
        olds = {"events-static": old["member_id"]}
        news = {"events-static": new["member_id"]}
        # A consumer group's static member leaves for a while (epoch -2)
        # and a new member takes its instance id.
        for conn, mid, epoch in ((c1, "cg-old", 0), (c1, "cg-old", -2), (c2, "cg-new", 0)):
            r = kw.consumer_group_heartbeat(conn, 1, "events-static-cg", mid, epoch,
                                            instance_id="i-1", topic_names=["t"],
                                            rebalance_timeout_ms=30000, owned=[])
            assert r["error_code"] == 0, r
        olds["events-static-cg"], news["events-static-cg"] = "cg-old", "cg-new"
    removed = {e["group_id"]: e for e in admin.json("GET", "/v1/events")["events"]
               if e["type"] == "member_removed" and e["group_id"] in olds}
    for g, mid in olds.items():
        e = removed.get(g)
        assert e and e["member_id"] == mid and news[g] in e["reason"] \
            and e["reason"].startswith("fenced"), (g, e)


def emptied(port, admin):
    """The last member's session expires: the rebalance completes, to Empty."""
    with kw.Conn(port) as c:
        j = kw.join_dynamic(c, "events-emptied", session_timeout_ms=6000)
        assert j["error_code"] == 0, j
        assert kw.sync_group(c, "events-emptied", j["generation_id"], j["member_id"],
                             [(j["member_id"], b"")])["error_code"] == 0

    def kinds():
        return [(e["type"], e["reason"]) for e in admin.json("GET", "/v1/events")["events"]
                if e["group_id"] == "events-emptied"]
    wait_for(lambda: ("rebalance_completed", "no member is left: the group is Empty") in kinds(),
             120, "the emptied group's rebalance completed", state=kinds)
    ev = kinds()
    assert [k for k, _ in ev][-3:] == ["member_removed", "rebalance_started",
                                       "rebalance_completed"], ev
    assert admin.group("events-emptied")["state"] == "Empty"


def main():
    admin_port = free_port()
    url = "http://127.0.0.1:%d" % admin_port
    with Kcoord("admin_events", {"admin.listeners": url}) as k:
        admin = Admin(admin_port)
        assert admin.json("GET", "/v1/events") == {"events": [], "next_seq": 1, "dropped": 0}
        mid, gen = form_group(k.port, GROUP)
        r = admin.json("GET", "/v1/events")
        ev = r["events"]
        assert [e["seq"] for e in ev] == list(range(1, len(ev) + 1)), r
        assert r["next_seq"] == len(ev) + 1 and r["dropped"] == 0, r
        by_type = {}
        for e in ev:
            assert set(e) == {"seq", "time_ms", "type", "group_id", "group_type", "member_id",
                              "generation", "duration_ms", "reason"}, e
            assert e["group_id"] == GROUP and e["group_type"] == "classic" and e["time_ms"] > 0, e
            by_type.setdefault(e["type"], []).append(e)
        (joined,) = by_type["member_joined"]
        assert joined["member_id"] == mid, joined
        (started,) = by_type["rebalance_started"]
        (done,) = by_type["rebalance_completed"]
        assert done["generation"] == gen and done["duration_ms"] >= 0, done
        assert started["seq"] < done["seq"], ev

        # since paging.
        last = r["next_seq"] - 1
        assert admin.json("GET", "/v1/events?since=%d" % last)["events"] == []
        assert [e["seq"] for e in admin.json("GET", "/v1/events?since=%d" % (last - 1))["events"]] \
            == [last]
        assert admin.json("GET", "/v1/events?since=0")["events"] == ev
        for bad in ("x", "-1", ""):
            assert admin.request("GET", "/v1/events?since=" + bad)[0] == 400, bad
        mid2, gen2 = form_group(k.port, GROUP + "-2")
        r2 = admin.json("GET", "/v1/events?since=%d" % last)
        assert r2["events"] and all(e["seq"] > last and e["group_id"] == GROUP + "-2"
                                    for e in r2["events"]), r2
        assert any(e["type"] == "rebalance_completed" and e["generation"] == gen2
                   for e in r2["events"]), r2

        p = subprocess.run([os.environ["KC_TEST_KCOORD_BIN"], "ctl", "--admin", url, "events",
                            str(last)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        assert p.returncode == 0, (p.returncode, p.stderr)
        assert json.loads(p.stdout)["events"] == r2["events"], p.stdout
        static_replaced(k.port, admin)
        emptied(k.port, admin)

    # The ring bound.
    admin_port = free_port()
    with Kcoord("admin_events_bound", {"admin.listeners": "http://127.0.0.1:%d" % admin_port,
                                       "admin.events.max": "3"}) as k:
        admin = Admin(admin_port)
        for i in range(3):
            form_group(k.port, "bound-%d" % i)
        r = admin.json("GET", "/v1/events")
        total = r["next_seq"] - 1
        assert total >= 9, r
        assert len(r["events"]) == 3 and r["dropped"] == total - 3, r
        assert [e["seq"] for e in r["events"]] == [r["dropped"] + 1, r["dropped"] + 2,
                                                   r["dropped"] + 3], r
        assert r["events"][-1]["group_id"] == "bound-2", r
        # since older than the ring: what is kept.
        assert admin.json("GET", "/v1/events?since=1")["events"] == r["events"]


if __name__ == "__main__":
    run(main)
