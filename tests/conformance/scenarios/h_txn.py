# SPDX-License-Identifier: Apache-2.0
"""Steps the transaction scenarios share: the transaction coordinator made
ready, producer ids, transactional batches, request bodies of the
transaction APIs by version, and what a Fetch returned, summed up.

Kafka completes a transaction after EndTxn answers (its markers are
written afterwards; until then the transaction is PrepareCommit or
PrepareAbort and a new step of the same producer gets
CONCURRENT_TRANSACTIONS), so `wait_complete` waits, unrecorded, until
DescribeTransactions shows the transaction ended before a scenario records
its next step.
"""

import struct

from conformance import ScenarioError
import h_broker as hb
import helpers as h

NONE = 0
CONCURRENT_TRANSACTIONS = 51
# Retriable answers while Kafka's transaction coordinator loads a partition.
COORDINATOR_LOADING = (14, 15, 16)
TIMEOUT_MS = 60000
ENDED = ("Empty", "CompleteCommit", "CompleteAbort")


def find_body(version, key_type, keys):
    """A FindCoordinator body; before v4 only keys[0]."""
    if version >= 4:
        return {"KeyType": key_type, "CoordinatorKeys": keys}
    body = {"Key": keys[0]}
    if version >= 1:
        body["KeyType"] = key_type
    return body


def wait_transaction_coordinator(ctx, c, tid, version=None):
    """Kafka creates its transaction state topic on the first TRANSACTION
    lookup and answers COORDINATOR_NOT_AVAILABLE until it is loaded."""
    v = version if version is not None else ctx.api_range("FindCoordinator")[1]

    def up():
        r = c.call("FindCoordinator", v, find_body(v, 1, [tid]), record=False)
        err = r["Coordinators"][0]["ErrorCode"] if v >= 4 else r["ErrorCode"]
        return err == 0
    ctx.wait_until(up, "the transaction coordinator")


def describe(ctx, c, tids, record=True):
    return c.call("DescribeTransactions", 0, {"TransactionalIds": list(tids)}, record=record)


def wait_ready(ctx, c, tid):
    """Waits until the coordinator of tid answers, has loaded the partition
    of the transaction log that holds it and has producer ids to give
    (Kafka's broker answers COORDINATOR_LOAD_IN_PROGRESS until its first
    block of ids arrives from the controller); unrecorded."""
    wait_transaction_coordinator(ctx, c, tid)
    v = h.top_version(ctx, "InitProducerId")

    def ids():
        r = c.call("InitProducerId", v, init_body(v, None), record=False)
        return r["ErrorCode"] == NONE
    ctx.wait_until(ids, "producer ids")

    def loaded():
        r = describe(ctx, c, [tid], record=False)
        return r["TransactionStates"][0]["ErrorCode"] not in COORDINATOR_LOADING
    ctx.wait_until(loaded, "the transaction log partition of %s" % tid)


def wait_complete(ctx, c, tid):
    """Waits until tid's transaction has ended (its markers written):
    DescribeTransactions shows Empty, CompleteCommit or CompleteAbort."""
    def ended():
        r = describe(ctx, c, [tid], record=False)
        return r["TransactionStates"][0]["TransactionState"] in ENDED
    ctx.wait_until(ended, "the transaction of %s to complete" % tid)


def init_body(version, tid, timeout_ms=TIMEOUT_MS, pid=-1, epoch=-1):
    body = {"TransactionalId": tid, "TransactionTimeoutMs": timeout_ms}
    if version >= 3:
        body.update(ProducerId=pid, ProducerEpoch=epoch)
    return body


def init(ctx, c, tid, version=None, record=False, **kw):
    """InitProducerId for tid once its coordinator is ready, retried while
    an earlier transaction of tid completes; returns (producer id, epoch)."""
    v = version if version is not None else h.top_version(ctx, "InitProducerId")
    wait_ready(ctx, c, tid)

    def go():
        r = c.call("InitProducerId", v, init_body(v, tid, **kw), record=False)
        if r["ErrorCode"] in COORDINATOR_LOADING + (CONCURRENT_TRANSACTIONS,):
            return None
        if r["ErrorCode"] != NONE:
            raise ScenarioError("InitProducerId %s: error %d" % (tid, r["ErrorCode"]))
        return r
    r = ctx.wait_until(go, "InitProducerId of %s" % tid)
    if record:
        ctx.note("InitProducerId of %s: ErrorCode, ProducerId, ProducerEpoch" % tid,
                 {"ErrorCode": r["ErrorCode"], "ProducerId": r["ProducerId"],
                  "ProducerEpoch": r["ProducerEpoch"]})
    return r["ProducerId"], r["ProducerEpoch"]


def topics_field(parts):
    """[{Name, Partitions}] of {topic: [partitions]}."""
    return [{"Name": t, "Partitions": list(ps)} for t, ps in parts.items()]


def add_partitions_body(version, tid, pid, epoch, parts, verify_only=False):
    """AddPartitionsToTxn of one transaction; parts: {topic: [partitions]}."""
    if version <= 3:
        return {"V3AndBelowTransactionalId": tid, "V3AndBelowProducerId": pid,
                "V3AndBelowProducerEpoch": epoch, "V3AndBelowTopics": topics_field(parts)}
    return {"Transactions": [add_partitions_txn(tid, pid, epoch, parts, verify_only)]}


def add_partitions_txn(tid, pid, epoch, parts, verify_only=False):
    """One transaction of a batched (v4+) AddPartitionsToTxn."""
    return {"TransactionalId": tid, "ProducerId": pid, "ProducerEpoch": epoch,
            "VerifyOnly": verify_only, "Topics": topics_field(parts)}


def add_partitions(ctx, c, tid, pid, epoch, parts, version=None, record=True):
    """A client's AddPartitionsToTxn (v3 at most); ScenarioError unless
    every partition is added when unrecorded."""
    v = version if version is not None else h.top_version(ctx, "AddPartitionsToTxn", 3)
    r = c.call("AddPartitionsToTxn", v, add_partitions_body(v, tid, pid, epoch, parts),
               record=record)
    if not record:
        errs = [p["PartitionErrorCode"] for t in r["ResultsByTopicV3AndBelow"]
                for p in t["ResultsByPartition"]]
        if any(errs):
            raise ScenarioError("AddPartitionsToTxn %s: errors %r" % (tid, errs))
    return r


def end_body(tid, pid, epoch, commit):
    return {"TransactionalId": tid, "ProducerId": pid, "ProducerEpoch": epoch,
            "Committed": commit}


def end(ctx, c, tid, pid, epoch, commit, version=None, record=True, wait=True):
    """EndTxn, then (wait) until the transaction has completed; returns
    the response."""
    v = version if version is not None else h.top_version(ctx, "EndTxn")
    r = c.call("EndTxn", v, end_body(tid, pid, epoch, commit), record=record)
    if not record and r["ErrorCode"] != NONE:
        raise ScenarioError("EndTxn %s: error %d" % (tid, r["ErrorCode"]))
    if wait:
        wait_complete(ctx, c, tid)
    return r


# Kafka rolls a segment when its first batch was created longer than
# segment.ms ago, and a Fetch reads one segment: the fixed create times of
# the batches (2023) would put each in a segment of its own.
TOPIC_CONFIGS = {"segment.ms": str(2 ** 63 - 1)}


def create_topic(ctx, c, name, partitions):
    """A topic whose segments do not roll by time; returns its id."""
    return hb.create_topic(ctx, c, name, partitions, configs=TOPIC_CONFIGS)


def batch(values, pid, epoch, seq):
    """A transactional batch of null-key records."""
    return hb.kafka_wire.record_batch(values, producer_id=pid, epoch=epoch, base_seq=seq,
                                      transactional=True)


def produce_body(version, tid, topic, partition, records, topic_id=None):
    """A Produce of one batch to one partition (by topic id from v13)."""
    t = {"PartitionData": [{"Index": partition, "Records": records}]}
    if version >= 13:
        t["TopicId"] = topic_id
    else:
        t["Name"] = topic
    return {"TransactionalId": tid, "Acks": -1, "TimeoutMs": 30000, "TopicData": [t]}


def produce(ctx, c, tid, topic, partition, records, version=None, topic_id=None, record=True):
    """A transactional Produce (v12 by default: implicitly added to the
    transaction); returns the partition's response, which must be NONE
    when unrecorded. Recorded as a note with the batch decoded: its bytes
    hold the producer id."""
    v = version if version is not None else h.top_version(ctx, "Produce", 12)
    r = c.call("Produce", v, produce_body(v, tid, topic, partition, records, topic_id),
               record=False)
    p = r["Responses"][0]["PartitionResponses"][0]
    if record:
        ctx.note("Produce v%d of %s to %s-%d" % (v, tid, topic, partition),
                 {"Batches": batches(records), "Response": r})
    elif p["ErrorCode"] != NONE:
        raise ScenarioError("Produce %s to %s-%d: error %d" % (tid, topic, partition,
                                                              p["ErrorCode"]))
    return p


def txn_offset_commit_body(version, tid, group, pid, epoch, offsets, generation=-1,
                           member_id="", instance_id=None, ids=None):
    """A TxnOffsetCommit; offsets: [(topic, [(partition, offset)])]; from v6
    topics go by id (ids: {name: id})."""
    topics = []
    for t, ps in offsets:
        d = {"Partitions": [{"PartitionIndex": p, "CommittedOffset": o, "CommittedMetadata": ""}
                            for p, o in ps]}
        if version >= 6:
            d["TopicId"] = ids[t]
        else:
            d["Name"] = t
        topics.append(d)
    body = {"TransactionalId": tid, "GroupId": group, "ProducerId": pid, "ProducerEpoch": epoch,
            "Topics": topics}
    if version >= 3:
        body.update(GenerationIdOrMemberEpoch=generation, MemberId=member_id,
                    GroupInstanceId=instance_id)
    return body


def add_offsets(ctx, c, tid, pid, epoch, group, version=None, record=True):
    v = version if version is not None else h.top_version(ctx, "AddOffsetsToTxn")
    r = c.call("AddOffsetsToTxn", v, {"TransactionalId": tid, "ProducerId": pid,
                                      "ProducerEpoch": epoch, "GroupId": group}, record=record)
    if not record and r["ErrorCode"] != NONE:
        raise ScenarioError("AddOffsetsToTxn %s: error %d" % (tid, r["ErrorCode"]))
    return r


def committed_txn(ctx, c, tid, pid, epoch, topic, partition, values, seq=0, commit=True):
    """One transaction of a single batch, ended (commit or abort) and
    completed, all unrecorded; returns the producer epoch afterwards (EndTxn
    v5 bumps it)."""
    produce(ctx, c, tid, topic, partition, batch(values, pid, epoch, seq), record=False)
    r = end(ctx, c, tid, pid, epoch, commit, record=False)
    return r.get("ProducerEpoch", -1) if r.get("ProducerEpoch", -1) >= 0 else epoch


# ---------------------------------------------------------------- Fetch summary

def batches(records):
    """The batches of a fetched record set: offsets, producer, flags, and
    the values (or the control record type: 0 ABORT, 1 COMMIT)."""
    out = []
    pos = 0
    while pos + 61 <= len(records):
        base, length = struct.unpack_from(">qi", records, pos)
        (leader_epoch, magic, _crc, attrs, last_delta, _t0, _t1, pid, epoch, seq,
         count) = struct.unpack_from(">ibIhiqqqhii", records, pos + 12)
        p = pos + 61
        values = []
        for _ in range(count):
            n, p = hb._varint(records, p)
            q = p + 1
            _, q = hb._varint(records, q)  # timestamp delta
            _, q = hb._varint(records, q)  # offset delta
            klen, q = hb._varint(records, q)
            key = records[q:q + klen] if klen >= 0 else None
            q += max(klen, 0)
            vlen, q = hb._varint(records, q)
            value = records[q:q + vlen] if vlen >= 0 else None
            if attrs & 0x20:
                values.append({"control": struct.unpack(">hh", key)[1] if key else None})
            else:
                values.append(value.decode("latin-1") if value is not None else None)
            p += n
        out.append({"BaseOffset": base, "LastOffsetDelta": last_delta,
                    "PartitionLeaderEpoch": leader_epoch, "Magic": magic,
                    "Transactional": bool(attrs & 0x10), "Control": bool(attrs & 0x20),
                    "ProducerId": pid, "ProducerEpoch": epoch, "BaseSequence": seq,
                    "Records": values})
        pos += 12 + length
    return out


def fetch_note(ctx, c, version, topic, topic_id, parts, isolation, what=""):
    """A Fetch (unrecorded: its record bytes hold producer ids) noted as
    each partition's fields with its batches decoded."""
    r = c.call("Fetch", version, hb.fetch_body(version, topic, topic_id, parts,
                                               isolation=isolation), record=False)
    out = {"ErrorCode": r.get("ErrorCode", 0), "Partitions": []}
    for t in r["Responses"]:
        for p in t["Partitions"]:
            d = {k: p.get(k) for k in ("PartitionIndex", "ErrorCode", "HighWatermark",
                                       "LastStableOffset", "LogStartOffset",
                                       "AbortedTransactions")}
            d["Batches"] = batches(p["Records"] or b"")
            out["Partitions"].append(d)
    ctx.note("Fetch v%d %s isolation %d%s" % (version, topic, isolation,
                                              " (%s)" % what if what else ""), out)
    return out
