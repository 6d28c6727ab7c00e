# SPDX-License-Identifier: Apache-2.0
"""GET /metrics: valid Prometheus text with every metric the endpoint promises.

After a classic group forms, rebalances once more, commits offsets and gets
an UNKNOWN_MEMBER_ID heartbeat, the exposition parses strictly (see
admin_client.parse_prometheus: TYPE before samples, one block per family, no
repeated series, cumulative histograms) and shows:

- requests by API and version, errors by API and code (NONE counted too, as
  Kafka's ErrorsPerSec does);
- rebalances and the rebalance duration histogram, group counts by type
  (classic, and a KIP-848 consumer group) and state;
- open connections, bytes in and out, the LMDB commit latency histogram;
- and the log has one line per state transition, naming the generation, the
  member and the reason.
"""

import uuid

import kafka_wire as kw
from admin_client import Admin, parse_prometheus
from kcoord_harness import Kcoord, free_port, run, wait_for

GROUP = "metrics-group"


def sample(fams, family, name=None, **labels):
    want = {k: str(v) for k, v in labels.items()}
    hits = [v for n, lab, v in fams[family]["samples"]
            if n == (name or family) and all(lab.get(k) == x for k, x in want.items())]
    assert len(hits) == 1, (family, name, labels, fams[family]["samples"])
    return hits[0]


def main():
    admin_port = free_port()
    with Kcoord("admin_metrics", {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        admin = Admin(admin_port)
        before = parse_prometheus(admin.metrics())
        c = kw.Conn(k.port)
        c2 = kw.Conn(k.port)
        assert kw.create_topics(c, {"metrics-topic": 1})["topics"]["metrics-topic"][0] == 0
        j = kw.join_dynamic(c, GROUP)
        mid, gen = j["member_id"], j["generation_id"]
        assert kw.sync_group(c, GROUP, gen, mid, [(mid, b"")])["error_code"] == 0
        # A second rebalance: the same member rejoins.
        j = kw.join_group(c, GROUP, mid)
        assert j["error_code"] == 0 and j["generation_id"] == gen + 1, j
        gen = j["generation_id"]
        assert kw.sync_group(c, GROUP, gen, mid, [(mid, b"")])["error_code"] == 0
        oc = kw.offset_commit(c, GROUP, {"metrics-topic": {0: (5, "")}}, generation_id=gen,
                              member_id=mid)
        assert oc["errors"] == {("metrics-topic", 0): 0}, oc
        assert kw.heartbeat(c2, GROUP, gen, "nobody")["error_code"] == kw.UNKNOWN_MEMBER_ID

        # A KIP-848 consumer group with one member.
        cg = kw.consumer_group_heartbeat(c2, 1, "metrics-cg", str(uuid.uuid4()), 0,
                                         rebalance_timeout_ms=60000, topic_names=["metrics-topic"],
                                         owned=[])
        assert cg["error_code"] == 0, cg

        fams = parse_prometheus(admin.metrics())
        types = {name: f["type"] for name, f in fams.items()}
        for name, t in (("kcoord_requests_total", "counter"), ("kcoord_errors_total", "counter"),
                        ("kcoord_rebalances_total", "counter"),
                        ("kcoord_rebalance_seconds", "histogram"), ("kcoord_groups", "gauge"),
                        ("kcoord_connections", "gauge"), ("kcoord_bytes_in_total", "counter"),
                        ("kcoord_bytes_out_total", "counter"),
                        ("kcoord_lmdb_commit_seconds", "histogram"),
                        ("kcoord_group_events_total", "counter"),
                        ("kcoord_event_streams", "gauge")):
            assert types.get(name) == t, (name, types.get(name))
            assert fams[name]["help"], name

        assert sample(fams, "kcoord_requests_total", api="JoinGroup", api_key=11, version=5) == 3
        assert sample(fams, "kcoord_requests_total", api="Heartbeat", api_key=12, version=3) == 1
        assert sample(fams, "kcoord_errors_total", api="Heartbeat", api_key=12,
                      code=kw.UNKNOWN_MEMBER_ID) == 1
        assert sample(fams, "kcoord_errors_total", api="JoinGroup", api_key=11,
                      code=kw.MEMBER_ID_REQUIRED) == 1
        assert sample(fams, "kcoord_errors_total", api="JoinGroup", api_key=11, code=0) == 2
        assert sample(fams, "kcoord_errors_total", api="OffsetCommit", api_key=8, code=0) == 1
        assert sample(fams, "kcoord_rebalances_total") == 2
        assert sample(fams, "kcoord_rebalance_seconds", "kcoord_rebalance_seconds_count") == 2
        assert sample(fams, "kcoord_groups", type="classic", state="Stable") == 1
        assert sample(fams, "kcoord_groups", type="classic", state="Empty") == 0
        consumer = {lab["state"]: v for n, lab, v in fams["kcoord_groups"]["samples"]
                    if lab["type"] == "consumer"}
        assert set(consumer) == {"Empty", "Assigning", "Reconciling", "Stable", "Dead"}, consumer
        assert sum(consumer.values()) == 1 and consumer["Empty"] == 0, consumer
        wait_for(lambda: sample(parse_prometheus(admin.metrics()), "kcoord_connections") == 2,
                 30, "two open connections")
        assert sample(fams, "kcoord_bytes_in_total") > sample(before, "kcoord_bytes_in_total")
        assert sample(fams, "kcoord_bytes_out_total") > sample(before, "kcoord_bytes_out_total")
        # The topic, the group's records and the offset: at least three commits.
        assert sample(fams, "kcoord_lmdb_commit_seconds", "kcoord_lmdb_commit_seconds_count") >= 3
        assert sample(fams, "kcoord_lmdb_commit_seconds", "kcoord_lmdb_commit_seconds_sum") > 0
        # The transitions the group went through, one log line each.
        log = k.stderr_text()
        line = ("Group %s transitioned from CompletingRebalance to Stable in generation %d "
                "(member %s, group instance id null): the leader sent the assignment."
                % (GROUP, gen, mid))
        assert line in log, line
        prep = [x for x in log.splitlines() if "Group %s transitioned from Stable to "
                "PreparingRebalance in generation %d: " % (GROUP, gen - 1) in x]
        assert len(prep) == 1 and mid in prep[0], prep
        c.close()
        c2.close()
        wait_for(lambda: sample(parse_prometheus(admin.metrics()), "kcoord_connections") == 0,
                 30, "connections closed")


if __name__ == "__main__":
    run(main)
