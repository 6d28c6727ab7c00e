# SPDX-License-Identifier: Apache-2.0
"""Faults on every API, each answered in its API's own response shape.

- error faults on broker APIs: Metadata (the requested topic carries the
  code, no brokers, no partitions), Produce with count=2 (every partition:
  the code, base offset -1; the third produce is stored at offset 0), Fetch
  v4 (every partition: the code, high watermark -1, no records),
  FindCoordinator v1 (no node), ApiVersions UNSUPPORTED_VERSION (only
  ApiVersions' own range, as KIP-511);
- an OffsetCommit error fault narrowed to one client id hits only that client;
- a close fault for Metadata narrowed to one client id closes only its
  connection, without an answer;
- a stall queues requests of three connections (CreateTopics, then
  CreatePartitions of the same topic, then Metadata of it) and, when
  cleared, handles them in read order: all three succeed and Metadata sees
  the new partitions;
- a stall window that ends by itself answers the queued request then; a
  delay fault holds a Metadata response back; coordinator windows of
  COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR
  hit group APIs (not Metadata) and end by themselves;
- a confluent-kafka producer given NOT_LEADER_OR_FOLLOWER twice retries and
  delivers;
- every fault is logged when set, hit and cleared, and the injected codes
  show in kcoord_errors_total.
"""

import re
import time

from confluent_kafka import Producer

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run, wait_for

TOPIC = "fa-topic"


def main():
    admin_port = free_port()
    with Kcoord("faults_all_apis", {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        admin = Admin(admin_port)
        c = kw.Conn(k.port)
        assert kw.create_topics(c, {TOPIC: 2})["topics"] == {TOPIC: (0, None)}

        # Metadata: the topic carries the code.
        admin.add_fault(type="error", api_key=kw.API_METADATA, error_code=5)
        md = kw.metadata_v1(c, [TOPIC])
        assert md["brokers"] == [] and md["topics"][TOPIC]["error_code"] == 5, md
        assert md["topics"][TOPIC]["partitions"] == [], md
        md = kw.metadata_v1(c, [TOPIC])
        assert md["topics"][TOPIC]["error_code"] == 0 and len(md["brokers"]) == 1, md

        # Produce: the next two requests, on every partition.
        f = admin.add_fault(type="error", api_key=kw.API_PRODUCE, error_code=6, count=2)
        assert f["remaining"] == 2, f
        for _ in range(2):
            assert kw.produce_v2(c, TOPIC, 1, [b"a", b"b"]) == {(TOPIC, 1): (6, -1)}
        assert admin.faults()["faults"] == []
        assert kw.produce_v2(c, TOPIC, 1, [b"a", b"b"]) == {(TOPIC, 1): (0, 0)}

        # Fetch v4: every partition, no records.
        admin.add_fault(type="error", api_key=kw.API_FETCH, error_code=6)
        fe = kw.fetch_v4(c, TOPIC, 1, 0)
        assert fe == {(TOPIC, 1): {"error_code": 6, "high_watermark": -1,
                                   "records_bytes": 0}}, fe
        fe = kw.fetch_v4(c, TOPIC, 1, 0)
        assert fe[(TOPIC, 1)]["error_code"] == 0 and fe[(TOPIC, 1)]["high_watermark"] == 2, fe
        assert fe[(TOPIC, 1)]["records_bytes"] > 0, fe

        # FindCoordinator v1: no node.
        admin.add_fault(type="error", api_key=kw.API_FIND_COORDINATOR, error_code=15)
        fc = kw.find_coordinator(c, "g")
        assert (fc["error_code"], fc["node_id"], fc["host"], fc["port"]) == (15, -1, "", -1), fc
        assert fc["error_message"] == "The coordinator is not available.", fc

        # ApiVersions: UNSUPPORTED_VERSION lists only ApiVersions.
        admin.add_fault(type="error", api_key=kw.API_API_VERSIONS, error_code=35)
        av = kw.api_versions(c, 0)
        assert av["error_code"] == 35 and list(av["api_keys"]) == [kw.API_API_VERSIONS], av
        assert kw.api_versions(c, 0)["error_code"] == 0

        # OffsetCommit narrowed to one client id.
        admin.add_fault(type="error", api_key=kw.API_OFFSET_COMMIT, error_code=16,
                        client_id="victim")
        bystander = kw.Conn(k.port, client_id="bystander")
        victim = kw.Conn(k.port, client_id="victim")
        oc = kw.offset_commit(bystander, "fa-group", {TOPIC: {0: (1, "")}})
        assert oc["errors"] == {(TOPIC, 0): 0}, oc
        oc = kw.offset_commit(victim, "fa-group", {TOPIC: {0: (2, ""), 1: (3, "")}})
        assert oc["errors"] == {(TOPIC, 0): 16, (TOPIC, 1): 16}, oc

        # Close after reading the next Metadata of one client id.
        admin.add_fault(type="close", api_key=kw.API_METADATA, client_id="victim")
        assert kw.metadata_v1(bystander, [TOPIC])["topics"][TOPIC]["error_code"] == 0
        victim.send(kw.API_METADATA, 1, kw.metadata_v1_body([TOPIC]))
        assert victim.wait_closed(30), "the close fault must close the victim's connection"
        assert admin.faults()["faults"] == []

        # Stall: three connections queue, then drain in read order.
        admin.add_fault(type="stall", duration_ms=600000)
        conns = [kw.Conn(k.port) for _ in range(3)]
        conns[0].send(kw.API_CREATE_TOPICS, 4, kw.create_topics_v4_body({"fa-stalled": 1}))
        wait_for(lambda: admin.faults()["stall_queue"] == 1, 30, "CreateTopics queued")
        conns[1].send(kw.API_CREATE_PARTITIONS, 1, kw.create_partitions_v1_body({"fa-stalled": 3}))
        wait_for(lambda: admin.faults()["stall_queue"] == 2, 30, "CreatePartitions queued")
        conns[2].send(kw.API_METADATA, 1, kw.metadata_v1_body(["fa-stalled"]))
        wait_for(lambda: admin.faults()["stall_queue"] == 3, 30, "Metadata queued")
        assert not any(x.readable_within(0.2) for x in conns), "answered during the stall"
        off = k.stderr_size()
        assert admin.json("DELETE", "/v1/faults")["cleared"] == 1
        _, r = conns[0].recv()
        assert kw.decode_create_topics_v4(r)["topics"] == {"fa-stalled": (0, None)}
        _, r = conns[1].recv()
        assert kw.decode_create_partitions_v1(r)["results"] == {"fa-stalled": (0, None)}
        _, r = conns[2].recv()
        md = kw.decode_metadata_v1(r)
        assert len(md["topics"]["fa-stalled"]["partitions"]) == 3, md
        assert "handling 3 queued requests in read order" in k.stderr_since(off)

        text = admin.metrics()
        for api, key, code, n in (("Metadata", 3, 5, 1), ("Produce", 0, 6, 2), ("Fetch", 1, 6, 1),
                                  ("FindCoordinator", 10, 15, 1), ("ApiVersions", 18, 35, 1),
                                  ("OffsetCommit", 8, 16, 2)):
            line = 'kcoord_errors_total{api="%s",api_key="%d",code="%d"} %d' % (api, key, code, n)
            assert line in text, (line, [x for x in text.splitlines() if "errors" in x])

        # A stall window that ends by itself: the queued request is answered
        # only then.
        t0 = time.monotonic()
        admin.add_fault(type="stall", duration_ms=1500)
        md = kw.metadata_v1(c, [TOPIC])
        assert md["topics"][TOPIC]["error_code"] == 0 and time.monotonic() - t0 >= 1.4, md
        assert re.search(r"cleared fault \d+ \(stall .*its window ended", k.stderr_text())

        # Round-trip delay on a broker API.
        admin.add_fault(type="delay", api_key=kw.API_METADATA, delay_ms=500, count=1)
        t0 = time.monotonic()
        assert kw.metadata_v1(c, [TOPIC])["topics"][TOPIC]["error_code"] == 0
        assert time.monotonic() - t0 >= 0.49

        # Coordinator windows: each code, for group APIs only, until the window ends.
        for code in (14, 15, 16):
            admin.add_fault(type="coordinator", error_code=code, duration_ms=2000)
            oc = kw.offset_commit(c, "fa-window", {TOPIC: {0: (1, "")}})
            assert oc["errors"] == {(TOPIC, 0): code}, (code, oc)
            assert kw.metadata_v1(c, [TOPIC])["topics"][TOPIC]["error_code"] == 0
            wait_for(lambda: kw.offset_commit(c, "fa-window", {TOPIC: {0: (1, "")}})[
                "errors"] == {(TOPIC, 0): 0}, 60, "the window of %d to end" % code)
            wait_for(lambda: admin.faults()["faults"] == [], 60, "the window cleared")

        # A real producer (librdkafka) gets NOT_LEADER_OR_FOLLOWER twice,
        # refreshes its metadata, retries and delivers.
        admin.add_fault(type="error", api_key=kw.API_PRODUCE, error_code=6, count=2)
        p = Producer({"bootstrap.servers": k.bootstrap, "acks": "all", "linger.ms": 0})
        errors = []
        p.produce(TOPIC, value=b"retried", partition=0,
                  on_delivery=lambda e, m: errors.append(e) if e else None)
        assert p.flush(60) == 0 and not errors, errors
        assert admin.faults()["faults"] == []
        fe = kw.fetch_v4(c, TOPIC, 0, 0)
        assert fe[(TOPIC, 0)]["high_watermark"] == 1, fe

        log = k.stderr_text()
        for kind, api in (("error", 3), ("error", 0), ("error", 1), ("error", 10), ("error", 18),
                          ("error", 8), ("close", 3)):
            for what in ("set", "hit", "cleared"):
                pat = r"%s fault \d+ \(%s api_key=%d " % (what, kind, api)
                assert re.search(pat, log), pat
        assert re.search(r"set fault \d+ \(stall ", log) and \
            re.search(r"cleared fault \d+ \(stall .*cleared by the admin endpoint", log)


if __name__ == "__main__":
    run(main)
