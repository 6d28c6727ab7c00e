# SPDX-License-Identifier: Apache-2.0
"""The admin endpoint: error, close and delay faults, group views, metrics.

- an error fault for Heartbeat, limited to one group, answers the next
  heartbeat of that group COORDINATOR_NOT_AVAILABLE and then clears itself;
- an error fault for OffsetCommit puts its code on every requested
  partition; a coordinator window answers every group API
  COORDINATOR_LOAD_IN_PROGRESS (DescribeGroups per group) until deleted;
- a close fault for SyncGroup closes the connection without an answer;
- a delay fault holds responses back for its delay;
- GET /v1/groups/{id} shows the group, its member and the decoded
  consumer-protocol assignment and committed offsets with their log end
  offset and lag (totals in GET /v1/groups too); GET /metrics counts the
  requests by API and version; bad fault specs are refused with 400.
"""

import json
import struct
import time

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run

TOPIC = "admin-topic"
GROUP = "admin-group"


def consumer_assignment(parts):
    """ConsumerProtocolAssignment v0: topics with partitions, null user data."""
    out = struct.pack(">hi", 0, 1) + struct.pack(">h", len(TOPIC)) + TOPIC.encode()
    out += struct.pack(">i", len(parts)) + b"".join(struct.pack(">i", p) for p in parts)
    return out + struct.pack(">i", -1)


def main():
    admin_port = free_port()
    with Kcoord("admin_endpoint",
                {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        admin = Admin(admin_port)
        c = kw.Conn(k.port)
        assert kw.create_topics(c, {TOPIC: 2})["topics"] == {TOPIC: (0, None)}
        j = kw.join_group(c, GROUP, "", group_instance_id="i1")
        assert j["error_code"] == 0, j
        mid, gen = j["member_id"], j["generation_id"]
        s = kw.sync_group(c, GROUP, gen, mid, [(mid, consumer_assignment([0, 1]))],
                          group_instance_id="i1")
        assert s["error_code"] == 0, s
        oc = kw.offset_commit(c, GROUP, {TOPIC: {0: (42, "meta")}}, generation_id=gen,
                              member_id=mid)
        assert oc, oc

        # Group view.
        g = admin.group(GROUP)
        assert g["type"] == "classic" and g["state"] == "Stable", g
        assert g["generation_id"] == gen and g["leader_id"] == mid, g
        assert g["protocol_type"] == "consumer" and g["protocol_name"] == "range", g
        (m,) = g["members"]
        assert m["member_id"] == mid and m["group_instance_id"] == "i1", m
        assert m["client_id"] == "kcoord-itest" and m["client_host"] == "/127.0.0.1", m
        assert m["assignment"] == {"version": 0, "partitions": {TOPIC: [0, 1]},
                                   "user_data_bytes": 0}, m
        assert [(o["topic"], o["partition"], o["offset"], o["metadata"]) for o in g["offsets"]] \
            == [(TOPIC, 0, 42, "meta")], g
        assert GROUP in [x["group_id"] for x in admin.json("GET", "/v1/groups")["groups"]]
        assert admin.request("GET", "/v1/groups/nope")[0] == 404

        # A window of 0 ms has ended when it is set: the answer names the
        # fault made (the next id) and nothing stays in force.
        for spec in ({"type": "stall", "duration_ms": 0},
                     {"type": "error", "api_key": kw.API_HEARTBEAT, "error_code": 15,
                      "duration_ms": 0}):
            gone = admin.add_fault(**spec)
            assert admin.faults()["faults"] == [], (spec, admin.faults())
            nxt = admin.add_fault(type="delay", delay_ms=1, count=1)
            assert nxt["id"] == gone["id"] + 1, (gone, nxt)
            admin.clear_faults()
        # Error fault, for one group only, next request only.
        f = admin.add_fault(type="error", api_key=kw.API_HEARTBEAT, error_code=15,
                            group_id=GROUP)
        assert f["remaining"] == 1 and f["type"] == "error", f
        other = kw.heartbeat(c, "other-group", 0, "x")
        assert other["error_code"] != 15, other
        hb = kw.heartbeat(c, GROUP, gen, mid, group_instance_id="i1")
        assert hb["error_code"] == kw.COORDINATOR_NOT_AVAILABLE, hb
        assert admin.faults()["faults"] == []
        hb = kw.heartbeat(c, GROUP, gen, mid, group_instance_id="i1")
        assert hb["error_code"] == 0, hb

        # Error fault on a per-partition response: every partition carries it.
        admin.add_fault(type="error", api_key=kw.API_OFFSET_COMMIT, error_code=27)
        oc = kw.offset_commit(c, GROUP, {TOPIC: {0: (43, ""), 1: (7, "")}},
                              generation_id=gen, member_id=mid)
        assert oc["errors"] == {(TOPIC, 0): 27, (TOPIC, 1): 27}, oc

        # Coordinator window: every group API answers LOAD_IN_PROGRESS until cleared.
        f = admin.add_fault(type="coordinator", error_code=14, duration_ms=600000)
        assert f["type"] == "coordinator" and f["error_code"] == 14, f
        hb = kw.heartbeat(c, GROUP, gen, mid, group_instance_id="i1")
        assert hb["error_code"] == kw.COORDINATOR_LOAD_IN_PROGRESS, hb
        oc = kw.offset_commit(c, GROUP, {TOPIC: {1: (8, "")}}, generation_id=gen, member_id=mid)
        assert oc["errors"] == {(TOPIC, 1): 14}, oc
        dg = kw.describe_groups(c, [GROUP, "other"])
        assert [(x["group_id"], x["error_code"], x["state"]) for x in dg["groups"]] == \
            [(GROUP, 14, ""), ("other", 14, "")], dg
        assert kw.offset_fetch(c, GROUP)["error_code"] == 14
        assert admin.json("DELETE", "/v1/faults")["cleared"] == 1
        hb = kw.heartbeat(c, GROUP, gen, mid, group_instance_id="i1")
        assert hb["error_code"] == 0, hb
        assert [(o["topic"], o["partition"], o["offset"]) for o in admin.group(GROUP)["offsets"]]\
            == [(TOPIC, 0, 42)], "faulted commits must not be stored"

        # Lag: the partition's high watermark minus the committed offset.
        g = admin.group(GROUP)
        assert (g["offsets"][0]["log_end_offset"], g["offsets"][0]["lag"]) == (0, 0), g
        assert kw.produce_v2(c, TOPIC, 0, [b"x"] * 50) == {(TOPIC, 0): (0, 0)}
        g = admin.group(GROUP)
        assert (g["offsets"][0]["log_end_offset"], g["offsets"][0]["lag"]) == (50, 8), g
        assert (g["committed_partitions"], g["lag_total"]) == (1, 8), g
        oc = kw.offset_commit(c, GROUP, {TOPIC: {1: (0, "")}}, generation_id=gen, member_id=mid)
        assert oc["errors"] == {(TOPIC, 1): 0}, oc
        assert kw.produce_v2(c, TOPIC, 1, [b"y"] * 5) == {(TOPIC, 1): (0, 0)}
        g = admin.group(GROUP)
        assert [(o["partition"], o["log_end_offset"], o["lag"]) for o in g["offsets"]] == \
            [(0, 50, 8), (1, 5, 5)], g
        (listed,) = [x for x in admin.json("GET", "/v1/groups")["groups"]
                     if x["group_id"] == GROUP]
        assert (listed["committed_partitions"], listed["lag_total"]) == (2, 13), listed
        assert "offsets" not in listed, listed

        # Bad specs.
        assert admin.request("POST", "/v1/faults", {"type": "bogus"})[0] == 400
        assert admin.request("POST", "/v1/faults", {"type": "coordinator",
                                                    "error_code": 27,
                                                    "duration_ms": 10})[0] == 400
        assert admin.request("POST", "/v1/faults", {"type": "error", "api_key": 50,
                                                    "error_code": 15})[0] == 400
        assert admin.request("POST", "/v1/faults", {"type": "stall"})[0] == 400
        status, _ = admin.request("POST", "/v1/faults", None)
        assert status == 400
        # A misspelt field would widen the fault unseen ("group" for
        # group_id: every group's JoinGroup): refused, naming it.
        status, text = admin.request("POST", "/v1/faults", {"type": "error", "api_key": 11,
                                                            "error_code": 15, "group": GROUP})
        assert status == 400 and 'unknown field "group"' in json.loads(text)["error"], text
        assert admin.faults()["faults"] == [], admin.faults()

        # Delay fault.
        admin.add_fault(type="delay", delay_ms=400, api_key=kw.API_HEARTBEAT, count=1)
        t0 = time.monotonic()
        hb = kw.heartbeat(c, GROUP, gen, mid, group_instance_id="i1")
        assert hb["error_code"] == 0 and time.monotonic() - t0 >= 0.39, hb

        # Close fault.
        admin.add_fault(type="close", api_key=kw.API_SYNC_GROUP)
        c.send(kw.API_SYNC_GROUP, 3, kw.sync_group_v3_body(GROUP, gen, mid,
                                                           group_instance_id="i1"))
        assert c.wait_closed(30), "the close fault must close the connection"

        text = admin.metrics()
        assert 'kcoord_requests_total{api="JoinGroup",api_key="11",version="5"} 1' in text, text
        assert 'kcoord_groups{type="classic",state="Stable"} 1' in text, text
        assert "kcoord_lmdb_commit_seconds_count" in text and "kcoord_bytes_in_total" in text
        log = k.stderr_text()
        for what in ("set fault", "hit fault", "cleared fault"):
            assert what in log, what


if __name__ == "__main__":
    run(main)
