# SPDX-License-Identifier: Apache-2.0
"""kafka-transactions (TransactionsCommand of kafka-tools 4.4.0) on kcoord
and on Kafka 4.4.0: the same transactional ids in the same states list and
describe alike.

confluent-kafka producers create 30 transactional ids: 14 that Kafka keeps
in one __transaction_state partition (its table of ids resizes from 16
bins to 32 past 12 entries) and 16 spread over others, one after the
other; of these some commit a transaction, some abort one, some keep one
open (Ongoing, on two partitions) and the rest stay Empty. Then, on each
broker, `list`, `list --transactional-id-pattern`, `list
--duration-filter` and `describe` of an Ongoing, a committed and an
unknown id print the same (the start times and durations of transactions
normalised): ListTransactions answers the ids in Kafka's order, partition
by partition and in each partition's table order.
"""

import re

import java_tools as jt
from confluent_kafka import Producer
from kcoord_harness import run

TOOL = "org.apache.kafka.tools.TransactionsCommand"
TOPIC = "txn-tool"
DEADLINE_S = 120.0


def java_hash(s):
    """String.hashCode of an ASCII string."""
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def partition_of(tid):
    h = java_hash(tid)
    return (0 if h == -(1 << 31) else abs(h)) % 50


def ids():
    """14 ids of one partition, then 16 of other partitions, interleaved."""
    same = [t for t in ("tx-%d" % i for i in range(2000)) if partition_of(t) == 3][:14]
    others = [t for t in ("other-%d" % i for i in range(100)) if partition_of(t) != 3][:16]
    out = []
    for i in range(max(len(same), len(others))):
        out += same[i:i + 1] + others[i:i + 1]
    return out


def populate(bootstrap):
    """Each id in a state by its position; returns the producers kept open."""
    kept = []
    for i, tid in enumerate(ids()):
        p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid,
                      "transaction.timeout.ms": 900000})
        p.init_transactions(DEADLINE_S)
        kind = i % 4
        if kind == 0:
            continue  # Empty
        p.begin_transaction()
        p.produce(TOPIC, value=tid.encode(), partition=i % 2)
        if kind == 1:
            p.commit_transaction(DEADLINE_S)
        elif kind == 2:
            p.flush(DEADLINE_S)
            p.abort_transaction(DEADLINE_S)
        else:
            p.produce(TOPIC, value=tid.encode(), partition=(i + 1) % 2)
            assert p.flush(DEADLINE_S) == 0
            kept.append(p)  # Ongoing
    return kept


def normalise(out):
    """The columns without their padding (the widths follow the longest
    value), the start time and duration of describe replaced."""
    lines = []
    for line in out.rstrip("\n").split("\n"):
        cols = [c.rstrip() for c in line.split("\t")]
        if len(cols) > 7 and re.fullmatch(r"\d+", cols[6]):
            cols[6], cols[7] = "START", "DURATION"
        lines.append("\t".join(cols))
    return lines


def tool_run(broker):
    jt.create_topics(broker.port, {TOPIC: 2})
    kept = populate(broker.bootstrap)
    tids = ids()
    lines = []
    for args in (["list"], ["list", "--transactional-id-pattern", "tx-.*"],
                 ["list", "--duration-filter", "0"],
                 ["describe", "--transactional-id", tids[3]],
                 ["describe", "--transactional-id", tids[1]],
                 ["describe", "--transactional-id", "no-such-id"]):
        rc, out = jt.tool(TOOL, broker.bootstrap, args)
        lines.append("== %s: %d" % (" ".join(args), rc))
        lines += normalise(out)
    for p in kept:
        p.abort_transaction(DEADLINE_S)
    return lines


def main():
    ref = jt.reference("transactions")
    try:
        ref.start()
        kafka_lines = tool_run(ref)
    finally:
        ref.cleanup()
    print("\n".join(kafka_lines))
    with jt.kcoord("transactions") as k:
        kcoord_lines = tool_run(k)
    jt.compare("kafka-transactions", kcoord_lines, kafka_lines)
    joined = "\n".join(kafka_lines)
    for state in ("Ongoing", "CompleteCommit", "CompleteAbort", "Empty"):
        assert state in joined, state
    print("kafka-transactions: %d lines alike" % len(kcoord_lines))


if __name__ == "__main__":
    run(main)
