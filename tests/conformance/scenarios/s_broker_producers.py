# SPDX-License-Identifier: Apache-2.0
"""DescribeProducers: the producer states of partitions after idempotent
and transactional appends, in the order Kafka's producer state map lists
them; unknown, invalid and out-of-range topics and partitions."""

from conformance import scenario
import h_broker as hb
import kafka_wire
from s_broker import COORDINATOR_LOADING, wait_transaction_coordinator

T0 = 1700000000000


def describe(c, ctx, topics, record=True):
    """DescribeProducers of [(topic, [partitions])]."""
    body = {"Topics": [{"Name": t, "PartitionIndexes": ps} for t, ps in topics]}
    return c.call("DescribeProducers", ctx.version, body, record=record)


@scenario("broker.describe_producers.idempotent",
          "DescribeProducers at every version after idempotent batches of several producers "
          "(chosen ids, two of them in one slot of Kafka's map) into one partition: epochs, "
          "last sequences and timestamps, no coordinator epoch nor transaction; an empty "
          "partition, a partition the topic lacks, a topic listed twice",
          api="DescribeProducers")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t, partitions=2)
    for pid, epoch, n in ((4242, 3, 3), (7, 0, 1), (17, 1, 2), (33, 0, 1)):
        hb.produce_raw(ctx, c, t, 0, kafka_wire.record_batch(
            [b"v"] * n, producer_id=pid, epoch=epoch, base_seq=0, ts=T0 + pid))
    hb.produce_raw(ctx, c, t, 0, kafka_wire.record_batch(
        [b"w", b"x"], producer_id=4242, epoch=3, base_seq=3, ts=T0 + 9000))
    describe(c, ctx, [(t, [0, 1, 2, -1])])
    describe(c, ctx, [(t, [1]), (t, [0])])


@scenario("broker.describe_producers.topic_errors",
          "DescribeProducers at every version for a topic that does not exist, an invalid "
          "name, an empty name and a partition list that is empty",
          api="DescribeProducers")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    describe(c, ctx, [(ctx.topic("missing"), [0, 3]), ("bad name!", [0]), ("", [0]),
                      ("x" * 250, [0]), (t, [])])


@scenario("broker.describe_producers.transaction",
          "DescribeProducers at every version while a transaction holds a partition (its "
          "start offset) and after its commit marker (no transaction, the marker's epoch and "
          "timestamp taken); producer ids compared as the transaction's own",
          api="DescribeProducers")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = ctx.group("txn")
    hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"before"])
    wait_transaction_coordinator(ctx, c, tid)
    iv = hb.top_version(ctx, "InitProducerId", 4)

    def init():
        r = c.call("InitProducerId", iv, {"TransactionalId": tid, "TransactionTimeoutMs": 60000,
                                          "ProducerId": -1, "ProducerEpoch": -1}, record=False)
        return None if r["ErrorCode"] in COORDINATOR_LOADING else r
    r = ctx.wait_until(init, "the transactional id's coordinator partition")
    pid, epoch = r["ProducerId"], r["ProducerEpoch"]
    # Transaction version 1 (AddPartitionsToTxn v3, Produce v11, EndTxn v4):
    # the epoch stays at the end.
    c.call("AddPartitionsToTxn", 3, {
        "V3AndBelowTransactionalId": tid, "V3AndBelowProducerId": pid,
        "V3AndBelowProducerEpoch": epoch,
        "V3AndBelowTopics": [{"Name": t, "Partitions": [0]}]}, record=False)
    batch = bytearray(kafka_wire.record_batch([b"a", b"b"], producer_id=pid, epoch=epoch,
                                              base_seq=0, ts=T0))
    batch[22] |= 0x10  # transactional
    batch[17:21] = kafka_wire.crc32c(bytes(batch[21:])).to_bytes(4, "big")
    r = c.call("Produce", 11, {"TransactionalId": tid, "Acks": -1, "TimeoutMs": 30000,
                               "TopicData": [{"Name": t, "PartitionData": [
                                   {"Index": 0, "Records": bytes(batch)}]}]}, record=False)
    ctx.note("transactional produce: ErrorCode, BaseOffset",
             [r["Responses"][0]["PartitionResponses"][0]["ErrorCode"],
              r["Responses"][0]["PartitionResponses"][0]["BaseOffset"]])

    def states():
        r = describe(c, ctx, [(t, [0])], record=False)
        p = r["Topics"][0]["Partitions"][0]
        return [p["ErrorCode"], [[s["ProducerId"] == pid, s["ProducerEpoch"], s["LastSequence"],
                                  s["CoordinatorEpoch"], s["CurrentTxnStartOffset"],
                                  s["LastTimestamp"] == T0]
                                 for s in p["ActiveProducers"]]]
    ctx.note("during the transaction", states())

    def ended():
        r = c.call("EndTxn", 4, {"TransactionalId": tid, "ProducerId": pid,
                                 "ProducerEpoch": epoch, "Committed": True}, record=False)
        return r if r["ErrorCode"] != 51 else None  # CONCURRENT_TRANSACTIONS: retried
    ctx.note("EndTxn", ctx.wait_until(ended, "the commit")["ErrorCode"])

    def after():
        st = states()
        # Kafka writes the marker after EndTxn answers: wait for it.
        return st if st[1] and st[1][0][4] == -1 else None
    ctx.note("after the commit marker", ctx.wait_until(after, "the commit marker"))
