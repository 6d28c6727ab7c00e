# SPDX-License-Identifier: Apache-2.0
"""Transactions: InitProducerId with a transactional id, AddPartitionsToTxn,
AddOffsetsToTxn, TxnOffsetCommit, EndTxn, transactional Produce, what
READ_COMMITTED Fetch and ListOffsets see, DescribeTransactions,
ListTransactions and OffsetFetch's RequireStable.

Producer ids are numbered by the normaliser (<producer-id:N>). Where a
transaction ends, the next recorded step waits (unrecorded) until the
transaction has completed on the broker (h_txn.wait_complete)."""

from conformance import scenario
import h_broker as hb
import h_offsets as ho
import h_txn as ht
import helpers as h


def _topic(ctx, c, partitions=2, label="t"):
    t = ctx.topic(label)
    return t, ht.create_topic(ctx, c, t, partitions)


def _producer(ctx, c, partitions):
    """A topic of the case and its id, a transactional id with its producer
    id and epoch."""
    t, t_id = _topic(ctx, c, partitions)
    tid = ctx.group("txn")
    pid, epoch = ht.init(ctx, c, tid)
    return t, t_id, tid, pid, epoch


# ---------------------------------------------------------------- InitProducerId

@scenario("txn.init_producer_id.new_and_bump",
          "InitProducerId at every version for a new transactional id: a producer id at epoch "
          "0; again: the same id at epoch 1; from v3 the producer's own id and epoch (recovery) "
          "bump the epoch, an older epoch and another producer id are refused",
          api="InitProducerId")
def _(ctx):
    c = ctx.client()
    tid = ctx.group("txn")
    ht.wait_ready(ctx, c, tid)
    r = c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid))
    pid, epoch = r["ProducerId"], r["ProducerEpoch"]
    r = c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid))
    if ctx.version >= 3:
        epoch = r["ProducerEpoch"]
        r = c.call("InitProducerId", ctx.version,
                   ht.init_body(ctx.version, tid, pid=pid, epoch=epoch))
        c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid, pid=pid, epoch=epoch))
        c.call("InitProducerId", ctx.version,
               ht.init_body(ctx.version, tid, pid=pid + 100000, epoch=0))
        c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid, pid=pid, epoch=-1))
    # The same transactional id given another timeout.
    c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid, timeout_ms=30000))


@scenario("txn.init_producer_id.invalid_timeout",
          "InitProducerId at every version with a transaction timeout of 0, negative or over "
          "transaction.max.timeout.ms (900000): INVALID_TRANSACTION_TIMEOUT, for a new and a "
          "known transactional id", api="InitProducerId")
def _(ctx):
    c = ctx.client()
    tid = ctx.group("txn")
    ht.wait_ready(ctx, c, tid)
    for ms in (0, -1, 900001, 2147483647):
        c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid, timeout_ms=ms))
    ht.init(ctx, c, tid)
    for ms in (0, 900001):
        c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid, timeout_ms=ms))
    c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid, timeout_ms=900000))


@scenario("txn.init_producer_id.ongoing",
          "InitProducerId at every version while a transaction of the id is ongoing: "
          "CONCURRENT_TRANSACTIONS while the coordinator aborts it, then a new epoch; the old "
          "epoch's EndTxn and Produce are fenced; READ_COMMITTED sees the batch aborted",
          api="InitProducerId")
def _(ctx):
    c = ctx.client()
    t, t_id, tid, pid, epoch = _producer(ctx, c, 1)
    ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0]}, record=False)
    ht.produce(ctx, c, tid, t, 0, ht.batch([b"a", b"b"], pid, epoch, 0), version=11,
               record=False)
    c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid))
    ht.wait_complete(ctx, c, tid)
    r = c.call("InitProducerId", ctx.version, ht.init_body(ctx.version, tid))
    ctx.note("epochs after the old one", r["ProducerEpoch"] - epoch)
    ev = h.top_version(ctx, "EndTxn")
    for v in sorted({0, 1, 2, ev}):
        c.call("EndTxn", v, ht.end_body(tid, pid, epoch, True))
    ht.produce(ctx, c, tid, t, 0, ht.batch([b"c"], pid, epoch, 2), version=11)
    fv = h.top_version(ctx, "Fetch")
    ht.fetch_note(ctx, c, fv, t, t_id, [(0, 0)], 1)


# ---------------------------------------------------------------- AddPartitionsToTxn

@scenario("txn.add_partitions.client",
          "AddPartitionsToTxn v0-3 (a producer's): partitions of a known topic added (again: "
          "the same), an unknown topic or partition fails the request with "
          "OPERATION_NOT_ATTEMPTED for the others, an old epoch, an unknown producer id and "
          "an unknown transactional id are refused", api="AddPartitionsToTxn", versions=(0, 3))
def _(ctx):
    c = ctx.client()
    t, _, tid, pid, epoch = _producer(ctx, c, 2)
    pid, epoch = ht.init(ctx, c, tid)
    v = ctx.version
    ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0], ctx.topic("nope"): [0]}, version=v)
    ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0, 7]}, version=v)
    ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0]}, version=v)
    ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0, 1]}, version=v)
    ht.add_partitions(ctx, c, tid, pid, epoch - 1, {t: [1]}, version=v)
    ht.add_partitions(ctx, c, tid, pid + 100000, epoch, {t: [1]}, version=v)
    ht.add_partitions(ctx, c, ctx.group("unknown"), pid, epoch, {t: [1]}, version=v)
    ht.describe(ctx, c, [tid])


@scenario("txn.add_partitions.batched",
          "AddPartitionsToTxn v4+ (between brokers): two transactions in one request, each "
          "answered apart; VerifyOnly of partitions added, not added and of an id without a "
          "transaction", api="AddPartitionsToTxn", versions=(4, None))
def _(ctx):
    c = ctx.client()
    t, _ = _topic(ctx, c, 2)
    a, b = ctx.group("a"), ctx.group("b")
    pa, ea = ht.init(ctx, c, a)
    pb, eb = ht.init(ctx, c, b)
    ht.wait_ready(ctx, c, ctx.group("none"))
    ht.add_partitions(ctx, c, a, pa, ea, {t: [0]}, record=False)
    c.call("AddPartitionsToTxn", ctx.version, {"Transactions": [
        ht.add_partitions_txn(a, pa, ea, {t: [0]}, verify_only=True),
        ht.add_partitions_txn(b, pb, eb, {t: [1]}, verify_only=True)]})
    c.call("AddPartitionsToTxn", ctx.version, {"Transactions": [
        ht.add_partitions_txn(a, pa, ea, {t: [0, 1]}, verify_only=True)]})
    c.call("AddPartitionsToTxn", ctx.version, {"Transactions": [
        ht.add_partitions_txn(ctx.group("none"), 123456, 0, {t: [0]}, verify_only=True)]})
    c.call("AddPartitionsToTxn", ctx.version, {"Transactions": [
        ht.add_partitions_txn(a, pa, ea - 1, {t: [0]}, verify_only=True),
        ht.add_partitions_txn(b, pb, eb, {t: [0], ctx.topic("nope"): [0]})]})
    c.call("AddPartitionsToTxn", ctx.version, {"Transactions": [
        ht.add_partitions_txn(b, pb, eb, {t: [0, 1]})]})
    ht.describe(ctx, c, [a, b])


# ---------------------------------------------------------------- AddOffsetsToTxn

@scenario("txn.add_offsets",
          "AddOffsetsToTxn at every version: a group added to a new and to an ongoing "
          "transaction (again: the same), an old epoch, another producer id, an unknown "
          "transactional id, an empty group id", api="AddOffsetsToTxn")
def _(ctx):
    c = ctx.client()
    t, _, tid, pid, epoch = _producer(ctx, c, 1)
    g = ctx.group()
    v = ctx.version
    ht.add_offsets(ctx, c, tid, pid, epoch, g, version=v)
    ht.add_offsets(ctx, c, tid, pid, epoch, g, version=v)
    ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0]}, record=False)
    ht.add_offsets(ctx, c, tid, pid, epoch, ctx.group("other"), version=v)
    ht.add_offsets(ctx, c, tid, pid, epoch - 1, g, version=v)
    ht.add_offsets(ctx, c, tid, pid + 100000, epoch, g, version=v)
    ht.add_offsets(ctx, c, ctx.group("unknown"), pid, epoch, g, version=v)
    ht.add_offsets(ctx, c, tid, pid, epoch, "", version=v)
    ht.describe(ctx, c, [tid])


# ---------------------------------------------------------------- TxnOffsetCommit

def _offsets_setup(ctx, c):
    t, t_id, tid, pid, epoch = _producer(ctx, c, 2)
    return t, {t: t_id}, tid, pid, epoch


@scenario("txn.offset_commit.simple",
          "TxnOffsetCommit at every version for a group without members: pending until the "
          "commit (OffsetFetch with RequireStable: UNSTABLE_OFFSET_COMMIT; without: the "
          "committed offset), visible after it; an abort drops them; without AddOffsetsToTxn, "
          "an old epoch, an unknown topic", api="TxnOffsetCommit")
def _(ctx):
    c = ctx.client()
    t, ids, tid, pid, epoch = _offsets_setup(ctx, c)
    g = ctx.group()
    v = ctx.version
    fv = h.top_version(ctx, "OffsetFetch")
    ho.simple_commit(ctx, c, g, [(t, [(1, 3)])], ids=ids)
    ht.add_offsets(ctx, c, tid, pid, epoch, g, record=False)
    c.call("TxnOffsetCommit", v, ht.txn_offset_commit_body(v, tid, g, pid, epoch,
                                                           [(t, [(0, 10), (1, 11)])], ids=ids))
    c.call("TxnOffsetCommit", v, ht.txn_offset_commit_body(v, tid, g, pid, epoch - 1,
                                                           [(t, [(0, 12)])], ids=ids))
    if v < 6:
        c.call("TxnOffsetCommit", v, ht.txn_offset_commit_body(
            v, tid, g, pid, epoch, [(ctx.topic("nope"), [(0, 1)])], ids=ids))
    ho.fetch(ctx, c, fv, g, [(t, [0, 1])], ids=ids, require_stable=True)
    ho.fetch(ctx, c, fv, g, [(t, [0, 1])], ids=ids)
    r = ht.end(ctx, c, tid, pid, epoch, True)
    ho.fetch(ctx, c, fv, g, [(t, [0, 1])], ids=ids, require_stable=True)
    epoch = r.get("ProducerEpoch", -1) if r.get("ProducerEpoch", -1) >= 0 else epoch
    # A second transaction, aborted.
    ht.add_offsets(ctx, c, tid, pid, epoch, g, record=False)
    c.call("TxnOffsetCommit", v, ht.txn_offset_commit_body(v, tid, g, pid, epoch,
                                                           [(t, [(0, 20)])], ids=ids))
    ht.end(ctx, c, tid, pid, epoch, False)
    ho.fetch(ctx, c, fv, g, [(t, [0, 1])], ids=ids, require_stable=True)
    # A group the transaction has not added.
    g2 = ctx.group("g2")
    c.call("TxnOffsetCommit", v, ht.txn_offset_commit_body(v, tid, g2, pid, epoch,
                                                           [(t, [(0, 5)])], ids=ids))


@scenario("txn.offset_commit.classic_group",
          "TxnOffsetCommit v3+ for a Stable classic group: its member at its generation "
          "commits; a wrong generation, an unknown member, generation -1 with the member, and "
          "a group instance id the member has not", api="TxnOffsetCommit", versions=(3, None))
def _(ctx):
    c = ctx.client()
    t, ids, tid, pid, epoch = _offsets_setup(ctx, c)
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t])
    ht.add_offsets(ctx, c, tid, pid, epoch, g, record=False)
    v = ctx.version
    for gen_, mid_, inst in ((gen, mid, None), (gen + 1, mid, None), (gen - 1, mid, None),
                             (gen, "unknown-member", None), (-1, mid, None), (-1, "", None),
                             (gen, mid, "instance")):
        r = c.call("TxnOffsetCommit", v, ht.txn_offset_commit_body(
            v, tid, g, pid, epoch, [(t, [(0, 10)])], generation=gen_, member_id=mid_,
            instance_id=inst, ids=ids), record=False)
        ctx.note("generation %s, member %s, instance %s" % (
            "the group's" if gen_ == gen else gen_ - gen if gen_ >= 0 else gen_,
            "the member" if mid_ == mid else repr(mid_), inst), r)
    ht.end(ctx, c, tid, pid, epoch, True)
    ho.fetch(ctx, c, h.top_version(ctx, "OffsetFetch"), g, [(t, [0])], ids=ids)


@scenario("txn.offset_commit.consumer_group",
          "TxnOffsetCommit v3+ for a consumer group: its member at its epoch commits; an "
          "older and a newer epoch, an unknown member, epoch -1", api="TxnOffsetCommit",
          versions=(3, None))
def _(ctx):
    c = ctx.client()
    t, ids, tid, pid, epoch = _offsets_setup(ctx, c)
    g = ctx.group()
    mid = ho.member_id("txn")
    me = ho.cg_member(ctx, c, g, mid)
    ht.add_offsets(ctx, c, tid, pid, epoch, g, record=False)
    v = ctx.version
    for e, m in ((me, mid), (me - 1, mid), (me + 1, mid), (me, ho.member_id("other")),
                 (-1, mid), (-1, "")):
        r = c.call("TxnOffsetCommit", v, ht.txn_offset_commit_body(
            v, tid, g, pid, epoch, [(t, [(1, 20)])], generation=e, member_id=m, ids=ids),
            record=False)
        ctx.note("epoch %s, member %s" % (ho.epoch_label(e, me),
                                          "the member" if m == mid else repr(m)), r)
    ht.end(ctx, c, tid, pid, epoch, True)
    ho.fetch(ctx, c, h.top_version(ctx, "OffsetFetch"), g, [(t, [1])], ids=ids)


# ---------------------------------------------------------------- EndTxn

@scenario("txn.end_txn",
          "EndTxn at every version: commit and abort of a transaction with a batch (v5: a "
          "new epoch in the answer), the same EndTxn again once complete, the other outcome "
          "after it, EndTxn without a transaction, an old epoch, another producer id, an "
          "unknown transactional id", api="EndTxn")
def _(ctx):
    c = ctx.client()
    t, t_id, tid, pid, epoch = _producer(ctx, c, 1)
    v = ctx.version
    c.call("EndTxn", v, ht.end_body(tid, pid, epoch, True))
    seq = 0
    for commit in (True, False):
        ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0]}, record=False)
        ht.produce(ctx, c, tid, t, 0, ht.batch([b"x"], pid, epoch, seq), version=11,
                   record=False)
        seq += 1
        r = ht.end(ctx, c, tid, pid, epoch, commit, version=v)
        old = epoch
        if v >= 5 and r["ErrorCode"] == ht.NONE:
            epoch, seq = r["ProducerEpoch"], 0
        c.call("EndTxn", v, ht.end_body(tid, pid, old, commit))
        c.call("EndTxn", v, ht.end_body(tid, pid, old, not commit))
        ht.describe(ctx, c, [tid])
    c.call("EndTxn", v, ht.end_body(tid, pid, epoch - 2 if v >= 5 else epoch - 1, True))
    c.call("EndTxn", v, ht.end_body(tid, pid + 100000, epoch, True))
    c.call("EndTxn", v, ht.end_body(ctx.group("unknown"), pid, epoch, True))
    ht.fetch_note(ctx, c, h.top_version(ctx, "Fetch"), t, t_id, [(0, 0)], 1)


# ---------------------------------------------------------------- Produce

@scenario("txn.produce",
          "Transactional Produce v3+: before v12 a partition added first, from v12 added by "
          "the Produce; sequences in order, a duplicate, a gap, an old epoch, an unknown "
          "transactional id, a non-transactional batch with a transactional id",
          api="Produce", versions=(3, None))
def _(ctx):
    c = ctx.client()
    t, t_id, tid, pid, epoch = _producer(ctx, c, 2)
    v = ctx.version

    def prod(p, recs, who=tid):
        return ht.produce(ctx, c, who, t, p, recs, version=v, topic_id=t_id)
    if v < 12:
        ht.add_partitions(ctx, c, tid, pid, epoch, {t: [0]}, record=False)
    prod(0, ht.batch([b"a"], pid, epoch, 0))
    prod(0, ht.batch([b"b", b"c"], pid, epoch, 1))
    prod(0, ht.batch([b"b", b"c"], pid, epoch, 1))
    prod(0, ht.batch([b"d"], pid, epoch, 7))
    prod(0, ht.batch([b"e"], pid, epoch - 1, 3))
    prod(1, ht.batch([b"f"], pid, epoch, 0), who=ctx.group("unknown"))
    prod(1, hb.kafka_wire.record_batch([b"g"], producer_id=pid, epoch=epoch, base_seq=0))
    ht.describe(ctx, c, [tid])
    ht.end(ctx, c, tid, pid, epoch, True)
    fv = h.top_version(ctx, "Fetch")
    ht.fetch_note(ctx, c, fv, t, t_id, [(0, 0), (1, 0)], 1)


@scenario("txn.produce.not_added",
          "Transactional Produce v3-11 to a partition not added to the transaction: "
          "INVALID_TXN_STATE (with its message from v8), TRANSACTION_ABORTABLE from v11; "
          "nothing appended", api="Produce", versions=(3, 11), profile="transactions_alone")
def _(ctx):
    c = ctx.client()
    t, t_id, tid, pid, epoch = _producer(ctx, c, 1)
    ht.produce(ctx, c, tid, t, 0, ht.batch([b"a"], pid, epoch, 0), version=ctx.version)
    ht.describe(ctx, c, [tid])
    ht.fetch_note(ctx, c, h.top_version(ctx, "Fetch"), t, t_id, [(0, 0)], 0)


# ---------------------------------------------------------------- reading

def _three_txns(ctx, c):
    """A topic of one partition holding a committed, an aborted and an
    ongoing transaction of two producers, with a plain batch between."""
    t, t_id = _topic(ctx, c, 1)
    a, b = ctx.group("a"), ctx.group("b")
    pa, ea = ht.init(ctx, c, a)
    pb, eb = ht.init(ctx, c, b)
    ea = ht.committed_txn(ctx, c, a, pa, ea, t, 0, [b"a1", b"a2"])
    hb.produce(ctx, c, t, 0, [b"plain"])
    eb = ht.committed_txn(ctx, c, b, pb, eb, t, 0, [b"b1"], commit=False)
    ht.produce(ctx, c, a, t, 0, ht.batch([b"a3"], pa, ea, 0), record=False)
    ht.produce(ctx, c, b, t, 0, ht.batch([b"b2"], pb, eb, 0), record=False)
    ht.end(ctx, c, b, pb, eb, True, record=False)
    return t, t_id, a, pa, ea


@scenario("txn.fetch.read_committed",
          "Fetch v4+ of a partition with committed, aborted and ongoing transactions: "
          "READ_UNCOMMITTED returns every batch up to the high watermark, READ_COMMITTED up to "
          "the last stable offset with the aborted transactions; from offsets inside; after "
          "the ongoing one commits", api="Fetch", versions=(4, None))
def _(ctx):
    c = ctx.client()
    t, t_id, a, pa, ea = _three_txns(ctx, c)
    v = ctx.version
    for iso in (0, 1):
        ht.fetch_note(ctx, c, v, t, t_id, [(0, 0)], iso)
    ht.fetch_note(ctx, c, v, t, t_id, [(0, 4)], 1)
    ht.fetch_note(ctx, c, v, t, t_id, [(0, 7)], 1)
    ht.end(ctx, c, a, pa, ea, True, record=False)
    ht.fetch_note(ctx, c, v, t, t_id, [(0, 0)], 1, "after the commit")


@scenario("txn.list_offsets.read_committed",
          "ListOffsets v2+ of a partition with an ongoing transaction: LATEST is the high "
          "watermark with READ_UNCOMMITTED, the last stable offset with READ_COMMITTED; "
          "after the commit the same", api="ListOffsets", versions=(2, None))
def _(ctx):
    c = ctx.client()
    t, t_id, a, pa, ea = _three_txns(ctx, c)
    v = ctx.version

    # Not MAX_TIMESTAMP: the markers carry the broker's clock, and which of
    # them holds the largest timestamp depends on when each was written.
    def lo():
        for iso in (0, 1):
            for ts in (-1, -2):
                c.call("ListOffsets", v, hb.list_offsets_body(v, t, [(0, ts)], isolation=iso))
    lo()
    ht.end(ctx, c, a, pa, ea, True, record=False)
    lo()


# ---------------------------------------------------------------- describing and listing

@scenario("txn.describe_transactions",
          "DescribeTransactions of ids Empty, Ongoing (partitions of two topics), "
          "CompleteCommit, CompleteAbort, unknown, twice the same, and none")
def _(ctx):
    c = ctx.client()
    t, _ = _topic(ctx, c, 2)
    t2, _ = _topic(ctx, c, 1, "t2")
    ids = [ctx.group(x) for x in ("empty", "ongoing", "committed", "aborted")]
    pe = {x: ht.init(ctx, c, x) for x in ids}
    pid, epoch = pe[ids[1]]
    ht.add_partitions(ctx, c, ids[1], pid, epoch, {t: [1, 0], t2: [0]}, record=False)
    for x, commit in ((ids[2], True), (ids[3], False)):
        ht.committed_txn(ctx, c, x, pe[x][0], pe[x][1], t, 0, [b"v"], commit=commit)
    ht.wait_ready(ctx, c, ctx.group("unknown"))
    ht.describe(ctx, c, ids + [ctx.group("unknown"), ids[0]])
    ht.describe(ctx, c, [])


@scenario("txn.list_transactions",
          "ListTransactions at every version, narrowed to this case's producers: by producer "
          "id, by state (an unknown state named back), from v1 by duration, from v2 by "
          "transactional id pattern (an invalid pattern)", api="ListTransactions")
def _(ctx):
    c = ctx.client()
    t, _ = _topic(ctx, c, 1)
    ids = [ctx.group(x) for x in ("empty", "ongoing", "committed")]
    pe = {x: ht.init(ctx, c, x) for x in ids}
    pid, epoch = pe[ids[1]]
    ht.add_partitions(ctx, c, ids[1], pid, epoch, {t: [0]}, record=False)
    ht.committed_txn(ctx, c, ids[2], pe[ids[2]][0], pe[ids[2]][1], t, 0, [b"v"])
    pids = sorted(p for p, _ in pe.values())
    v = ctx.version

    def lt(states=(), producers=pids, **kw):
        body = {"StateFilters": list(states), "ProducerIdFilters": list(producers)}
        if v >= 2 and "TransactionalIdPattern" not in kw:
            body["TransactionalIdPattern"] = "^" + ctx.group("").replace(".", "\\.")
        body.update(kw)
        r = c.call("ListTransactions", v, body, record=False)
        if r is not None:
            r = dict(r, TransactionStates=sorted(r["TransactionStates"],
                                                 key=lambda s: s["TransactionalId"]))
        ctx.note("ListTransactions v%d %r" % (v, {k: x for k, x in body.items()
                                                   if k != "ProducerIdFilters"}), r)
    lt()
    lt(states=["Ongoing"])
    lt(states=["CompleteCommit", "Empty"])
    lt(states=["Ongoing", "NoSuchState"])
    lt(producers=pids[:1])
    if v >= 1:
        # Transactions that began longer than 0 ms ago: all three, once a
        # millisecond has passed since the last one began.
        def all_three():
            r = c.call("ListTransactions", v, {"StateFilters": [], "ProducerIdFilters": pids,
                                               "DurationFilter": 0}, record=False)
            return len(r["TransactionStates"]) == 3
        ctx.wait_until(all_three, "a millisecond since the transactions began")
        lt(DurationFilter=0)
        lt(DurationFilter=3600000)
    if v >= 2:
        lt(TransactionalIdPattern="[")
        lt(TransactionalIdPattern=ctx.group("ongoing").replace(".", "\\."))


@scenario("txn.offset_fetch.require_stable",
          "OffsetFetch v7+ of a group with transactional offsets pending: RequireStable "
          "answers UNSTABLE_OFFSET_COMMIT for the pending partitions (the whole group from "
          "v8), without it the committed offsets; after the commit the new offsets",
          api="OffsetFetch", versions=(7, None))
def _(ctx):
    c = ctx.client()
    t, ids, tid, pid, epoch = _offsets_setup(ctx, c)
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(t, [(0, 1), (1, 2)])], ids=ids)
    ht.add_offsets(ctx, c, tid, pid, epoch, g, record=False)
    cv = h.top_version(ctx, "TxnOffsetCommit")
    r = c.call("TxnOffsetCommit", cv, ht.txn_offset_commit_body(cv, tid, g, pid, epoch,
                                                             [(t, [(1, 20)])], ids=ids),
               record=False)
    ctx.note("TxnOffsetCommit", r)
    v = ctx.version
    for stable in (True, False):
        ho.fetch(ctx, c, v, g, [(t, [0, 1])], ids=ids, require_stable=stable)
        ho.fetch(ctx, c, v, g, None, require_stable=stable)
    ht.end(ctx, c, tid, pid, epoch, True, record=False)
    ho.fetch(ctx, c, v, g, [(t, [0, 1])], ids=ids, require_stable=True)
