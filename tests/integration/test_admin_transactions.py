# SPDX-License-Identifier: Apache-2.0
"""The transaction views of the admin endpoint, driven by confluent-kafka
transactional producers:

- GET /v1/transactions (and `kcoord ctl transactions`, the same JSON) lists
  an Ongoing transaction with its producer, timeout, partitions, the group
  send_offsets_to_transaction gave it offsets of, and its age; after the
  commit the id is CompleteCommit, not open, with no partitions;
- kcoord_transactions_open counts the open ones; kcoord_transactions_committed_total
  and kcoord_transactions_aborted_total{reason} count the ends: an abort by the
  client, one by the coordinator after transaction.timeout.ms, one when a second
  producer with the same transactional.id fences the first;
- the event ring holds each step with the transactional id: begun, prepare
  commit/abort, committed/aborted (with the reason of an abort), timed out,
  producer fenced.
"""

import json
import os
import subprocess

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from admin_client import Admin, parse_prometheus
from kcoord_harness import Kcoord, free_port, run, wait_for

DEADLINE_S = 60
TOPIC = "view-out"
GROUP = "view-group"


def ctl(url, *args):
    p = subprocess.run([os.environ["KC_TEST_KCOORD_BIN"], "ctl", "--admin", url] + list(args),
                       capture_output=True, text=True, timeout=DEADLINE_S)
    return p.returncode, p.stdout


def producer(k, txn_id, timeout_ms=30000):
    p = Producer({"bootstrap.servers": k.bootstrap, "transactional.id": txn_id,
                  "transaction.timeout.ms": timeout_ms})
    p.init_transactions(DEADLINE_S)
    return p


def produce_open(p):
    """Begins a transaction holding both partitions of TOPIC."""
    p.begin_transaction()
    for part in (1, 0):
        p.produce(TOPIC, value=b"v", partition=part)
    assert p.flush(DEADLINE_S) == 0


def transaction(admin, txn_id):
    got = [t for t in admin.json("GET", "/v1/transactions")["transactions"]
           if t["transactional_id"] == txn_id]
    return got[0] if got else None


def metric(admin, family, **labels):
    fam = parse_prometheus(admin.metrics())[family]
    for _, lab, value in fam["samples"]:
        if lab == labels:
            return value
    raise AssertionError("no %s%r" % (family, labels))


def txn_events(admin, txn_id):
    return [(e["type"], e["reason"]) for e in admin.json("GET", "/v1/events")["events"]
            if e.get("transactional_id") == txn_id]


def main():
    admin_port = free_port()
    url = "http://127.0.0.1:%d" % admin_port
    overrides = {"admin.listeners": url,
                 "transaction.abort.timed.out.transaction.cleanup.interval.ms": 200}
    with Kcoord("admin_transactions", overrides) as k:
        admin = Admin(admin_port)
        ac = AdminClient({"bootstrap.servers": k.bootstrap})
        ac.create_topics([NewTopic(TOPIC, 2, 1)])[TOPIC].result(DEADLINE_S)
        assert admin.json("GET", "/v1/transactions") == {"open": 0, "transactions": []}
        assert metric(admin, "kcoord_transactions_open") == 0

        # An open transaction with records and offsets.
        a = producer(k, "view-a")
        produce_open(a)
        c = Consumer({"bootstrap.servers": k.bootstrap, "group.id": GROUP})
        a.send_offsets_to_transaction([TopicPartition(TOPIC, 0, 7)], c.consumer_group_metadata(),
                                      DEADLINE_S)
        view = admin.json("GET", "/v1/transactions")
        assert view["open"] == 1, view
        (t,) = view["transactions"]
        assert t["transactional_id"] == "view-a" and t["state"] == "Ongoing" and t["open"], t
        assert t["producer_id"] >= 0 and t["producer_epoch"] >= 0, t
        assert t["timeout_ms"] == 30000, t
        assert {"topic": TOPIC, "partition": 0} in t["partitions"], t
        assert {"topic": TOPIC, "partition": 1} in t["partitions"], t
        assert t["pending_offset_groups"] == [GROUP], t
        assert t["age_ms"] >= 0 and t["start_time_ms"] > 0, t
        rc, out = ctl(url, "transactions")
        assert rc == 0, (rc, out)
        via_ctl = json.loads(out)
        for x in (view, via_ctl):
            for tx in x["transactions"]:
                tx.pop("age_ms")
        assert via_ctl == view, (via_ctl, view)
        assert metric(admin, "kcoord_transactions_open") == 1

        a.commit_transaction(DEADLINE_S)
        t = transaction(admin, "view-a")
        assert t["state"] == "CompleteCommit" and not t["open"], t
        assert t["partitions"] == [] and t["pending_offset_groups"] == [] and t["age_ms"] is None, t
        assert metric(admin, "kcoord_transactions_open") == 0
        assert metric(admin, "kcoord_transactions_committed_total") == 1
        assert txn_events(admin, "view-a") == [
            ("transaction_begun", None), ("transaction_prepare_commit", None),
            ("transaction_committed", None)], txn_events(admin, "view-a")

        # Aborted by the client.
        b = producer(k, "view-b")
        produce_open(b)
        b.abort_transaction(DEADLINE_S)
        assert metric(admin, "kcoord_transactions_aborted_total", reason="client") == 1

        # Aborted by the coordinator past transaction.timeout.ms.
        slow = producer(k, "view-c", timeout_ms=1000)
        produce_open(slow)
        wait_for(lambda: transaction(admin, "view-c")["state"] == "CompleteAbort", DEADLINE_S,
                 "the timed-out transaction aborted", state=lambda: transaction(admin, "view-c"))
        assert metric(admin, "kcoord_transactions_aborted_total", reason="timed_out") == 1
        assert txn_events(admin, "view-c") == [
            ("transaction_begun", None), ("transaction_timed_out", None),
            ("transaction_prepare_abort", "timed_out"),
            ("transaction_aborted", "timed_out")], txn_events(admin, "view-c")

        # A second producer of the same id fences the first and aborts its transaction.
        d = producer(k, "view-d")
        produce_open(d)
        d2 = producer(k, "view-d")
        assert metric(admin, "kcoord_transactions_aborted_total", reason="producer_fenced") == 1
        assert txn_events(admin, "view-d") == [
            ("transaction_begun", None), ("producer_fenced", None),
            ("transaction_prepare_abort", "producer_fenced"),
            ("transaction_aborted", "producer_fenced")], txn_events(admin, "view-d")
        assert metric(admin, "kcoord_transactions_open") == 0
        assert metric(admin, "kcoord_transactions_committed_total") == 1
        assert metric(admin, "kcoord_transaction_events_total", event="transaction_begun") == 4
        ids = [x["transactional_id"] for x in admin.json("GET", "/v1/transactions")["transactions"]]
        assert ids == ["view-a", "view-b", "view-c", "view-d"], ids
        for p in (a, b, slow, d, d2):
            p.flush(1)
        c.close()


if __name__ == "__main__":
    run(main)
