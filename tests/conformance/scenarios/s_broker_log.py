# SPDX-License-Identifier: Apache-2.0
"""ListOffsets and Fetch over the small partition log: empty and non-empty
partitions, special timestamps, unknown topics and partitions, isolation
levels, leader epochs; Produce to a compacted topic and what a clean leaves."""

from conformance import scenario
import h_broker as hb

EARLIEST, LATEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING = (
    -2, -1, -3, -4, -5, -6)
SPECIAL = [EARLIEST, LATEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING]
T0 = 1700000000000  # the create time kafka_wire.record_batch gives its records


def list_offsets(c, ctx, topic, partitions_ts, **kw):
    return c.call("ListOffsets", ctx.version,
                  hb.list_offsets_body(ctx.version, topic, partitions_ts, **kw))


@scenario("broker.list_offsets.empty_partition",
          "ListOffsets at every version on an empty partition: earliest, latest, max "
          "timestamp, local log start, latest tiered, earliest pending upload and plain "
          "timestamps, one request each", api="ListOffsets")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    for ts in SPECIAL + [0, T0, -7]:
        list_offsets(c, ctx, t, [(0, ts)])


@scenario("broker.list_offsets.non_empty",
          "ListOffsets at every version on a partition holding two batches of different create "
          "times: earliest, latest, max timestamp, local log start, timestamps before, at, "
          "between and after the records", api="ListOffsets")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a", b"b", b"c"], record=True)
    hb.produce(ctx, c, t, 0, [b"d", b"e"], ts=T0 + 5000, record=True)
    for ts in SPECIAL + [0, T0, T0 + 1, T0 + 5000, T0 + 5001, -7]:
        list_offsets(c, ctx, t, [(0, ts)])


@scenario("broker.list_offsets.several_partitions",
          "ListOffsets at every version for several partitions of a topic in one request "
          "(one of them with records), a partition listed twice, and a second topic",
          api="ListOffsets")
def _(ctx):
    c = ctx.client()
    t, u = ctx.topic("a"), ctx.topic("b")
    hb.create_topic(ctx, c, t, partitions=3)
    hb.create_topic(ctx, c, u)
    hb.produce(ctx, c, t, 1, [b"x"])
    list_offsets(c, ctx, t, [(0, LATEST), (1, LATEST), (2, EARLIEST)])
    list_offsets(c, ctx, t, [(1, LATEST), (1, EARLIEST), (2, LATEST)])
    body = hb.list_offsets_body(ctx.version, t, [(1, LATEST)])
    body["Topics"].append(hb.list_offsets_body(ctx.version, u, [(0, LATEST)])["Topics"][0])
    c.call("ListOffsets", ctx.version, body)
    # Enough partitions for Kafka's map of them to grow its table.
    w = ctx.topic("c")
    hb.create_topic(ctx, c, w, partitions=14)
    list_offsets(c, ctx, w, [(p, LATEST) for p in range(14)])


@scenario("broker.list_offsets.unknown",
          "ListOffsets at every version for a topic that does not exist, a partition beyond "
          "the topic's and a negative partition: UNKNOWN_TOPIC_OR_PARTITION",
          api="ListOffsets")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    list_offsets(c, ctx, ctx.topic("missing"), [(0, LATEST)])
    list_offsets(c, ctx, t, [(1, LATEST), (-1, EARLIEST)])
    list_offsets(c, ctx, t, [(5, LATEST), (0, LATEST)])


@scenario("broker.list_offsets.isolation_level",
          "ListOffsets v2+ with READ_COMMITTED and READ_UNCOMMITTED: latest is the last stable "
          "offset, the same as the high watermark without transactions", api="ListOffsets",
          versions=(2, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a", b"b"])
    for iso in (0, 1):
        for ts in (LATEST, EARLIEST, MAX_TIMESTAMP, T0):
            list_offsets(c, ctx, t, [(0, ts)], isolation=iso)
    list_offsets(c, ctx, t, [(0, LATEST)], isolation=2)


@scenario("broker.list_offsets.leader_epoch",
          "ListOffsets v4+ with CurrentLeaderEpoch: -1 skips the check, the current epoch 0 "
          "passes, a newer epoch is UNKNOWN_LEADER_EPOCH", api="ListOffsets", versions=(4, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a"])
    for epoch in (-1, 0, 1, 7, -2):
        list_offsets(c, ctx, t, [(0, LATEST)], leader_epoch=epoch)
        list_offsets(c, ctx, t, [(0, EARLIEST)], leader_epoch=epoch)


# ---------------------------------------------------------------- Fetch

def fetch(c, ctx, topic, tid, parts, **kw):
    return c.call("Fetch", ctx.version, hb.fetch_body(ctx.version, topic, tid, parts, **kw))


@scenario("broker.fetch.empty_log",
          "Fetch at every version with MaxWaitMs 0 from offset 0 of an empty partition (by "
          "topic id from v13): no records, high watermark and log start 0, no session",
          api="Fetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, partitions=2)
    fetch(c, ctx, t, tid, [(0, 0), (1, 0)])
    fetch(c, ctx, t, tid, [(0, 0)], isolation=1)


@scenario("broker.fetch.isolation_invalid",
          "Fetch v4+ with an IsolationLevel that is neither 0 nor 1: FetchRequest's error "
          "response, UNKNOWN_SERVER_ERROR at the top and, before v13, in every partition",
          api="Fetch", versions=(4, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, partitions=2)
    fetch(c, ctx, t, tid, [(0, 0), (1, 0)], isolation=2)


@scenario("broker.fetch.records",
          "Fetch at every version with MaxWaitMs 0 of two produced batches: the batches as "
          "stored (offsets, leader epoch, CRC), from the start, from the second batch, from the "
          "high watermark (nothing) and beyond it (OFFSET_OUT_OF_RANGE)", api="Fetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a", b"b", b"c"])
    hb.produce(ctx, c, t, 0, [b"dd"], ts=T0 + 5000)
    fetch(c, ctx, t, tid, [(0, 0)])
    fetch(c, ctx, t, tid, [(0, 3)])
    fetch(c, ctx, t, tid, [(0, 4)])
    fetch(c, ctx, t, tid, [(0, 5)])
    fetch(c, ctx, t, tid, [(0, 1)], isolation=1)
    fetch(c, ctx, t, tid, [(0, 9)], isolation=1)
    fetch(c, ctx, t, tid, [(0, -1)])


@scenario("broker.fetch.unknown",
          "Fetch at every version with MaxWaitMs 0 for a topic that does not exist (by name, "
          "or by id from v13: UNKNOWN_TOPIC_ID) and a partition beyond the topic's",
          api="Fetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t)
    fetch(c, ctx, ctx.topic("missing"), b"\x05" * 16, [(0, 0)])
    fetch(c, ctx, t, tid, [(3, 0)])
    fetch(c, ctx, t, tid, [(0, 0), (3, 0)])
    # Partitions refused before reading come after the ones read.
    fetch(c, ctx, t, tid, [(3, 0), (0, 0), (-1, 0)], isolation=1)
    # Topics too: a known one, an unknown one, another known one.
    u = ctx.topic("u")
    uid = hb.create_topic(ctx, c, u)
    body = hb.fetch_body(ctx.version, t, tid, [(0, 0)])
    body["Topics"].append(hb.fetch_body(ctx.version, ctx.topic("missing"), b"\x06" * 16,
                                        [(0, 0)])["Topics"][0])
    body["Topics"].append(hb.fetch_body(ctx.version, u, uid, [(0, 0)])["Topics"][0])
    c.call("Fetch", ctx.version, body)


@scenario("broker.fetch.max_bytes",
          "Fetch at every version with MaxWaitMs 0 and small byte limits: a partition limit "
          "below the first batch still returns it (v3+ semantics), a response limit leaves "
          "later partitions empty", api="Fetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, partitions=2)
    hb.produce(ctx, c, t, 0, [b"x" * 100, b"y" * 100])
    hb.produce(ctx, c, t, 0, [b"z" * 100])
    hb.produce(ctx, c, t, 1, [b"w" * 100])
    body = hb.fetch_body(ctx.version, t, tid, [(0, 0), (1, 0)])
    for p in body["Topics"][0]["Partitions"]:
        p["PartitionMaxBytes"] = 10
    c.call("Fetch", ctx.version, body)
    body = hb.fetch_body(ctx.version, t, tid, [(0, 0), (1, 0)])
    body["MaxBytes"] = 10
    c.call("Fetch", ctx.version, body)
    body = hb.fetch_body(ctx.version, t, tid, [(1, 0), (0, 0)])
    body["MaxBytes"] = 300
    c.call("Fetch", ctx.version, body)


@scenario("broker.fetch.isolation_level",
          "Fetch v4+ with MaxWaitMs 0 and an isolation level that is neither READ_UNCOMMITTED "
          "nor READ_COMMITTED", api="Fetch", versions=(4, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a"])
    fetch(c, ctx, t, tid, [(0, 0)], isolation=2)


def masked_session(r):
    """A Fetch response with its (random) session id reduced to whether it is set."""
    if r is None:
        return None
    out = dict(r)
    out["SessionId"] = "set" if r.get("SessionId") else r.get("SessionId")
    return out


@scenario("broker.fetch.session",
          "Fetch v7+ with MaxWaitMs 0 and a fetch session (KIP-227): a full fetch opens one, "
          "an incremental fetch answers only partitions with news, a wrong epoch is "
          "INVALID_FETCH_SESSION_EPOCH, an unknown id FETCH_SESSION_ID_NOT_FOUND, epoch -1 "
          "closes it", api="Fetch", versions=(7, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, partitions=2)
    hb.produce(ctx, c, t, 0, [b"a"])
    body = hb.fetch_body(ctx.version, t, tid, [(0, 0), (1, 0)])
    body.update(SessionId=0, SessionEpoch=0)
    r = c.call("Fetch", ctx.version, body, record=False)
    ctx.note("full fetch", masked_session(r))
    sid = r["SessionId"]
    if not sid:
        return

    def incremental(epoch, parts=(), session=None):
        b = hb.fetch_body(ctx.version, t, tid, list(parts))
        if not parts:
            b["Topics"] = []
        b.update(SessionId=sid if session is None else session, SessionEpoch=epoch)
        return masked_session(c.call("Fetch", ctx.version, b, record=False))
    ctx.note("incremental, epoch 1, nothing new", incremental(1))
    hb.produce(ctx, c, t, 1, [b"b"])
    ctx.note("incremental, epoch 2, partition 1 has a record", incremental(2))
    ctx.note("incremental, epoch 3, partition 0 moved on", incremental(3, [(0, 1)]))
    ctx.note("wrong epoch", incremental(9))
    ctx.note("unknown session", incremental(1, session=sid ^ 0x5a5a5a5a or 1))
    ctx.note("close (epoch -1)", incremental(-1))
    ctx.note("closed session", incremental(4))


@scenario("broker.list_offsets.after_delete_records",
          "ListOffsets at every version after DeleteRecords moved the log start offset into "
          "the second of three batches: earliest is the new log start (leader epoch 0), "
          "timestamps before it find the first record still there, latest and max "
          "timestamp are unchanged", api="ListOffsets")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a", b"b"])
    hb.produce(ctx, c, t, 0, [b"c", b"d"], ts=T0 + 1000)
    hb.produce(ctx, c, t, 0, [b"e"], ts=T0 + 2000)
    lo, hi = ctx.api_range("DeleteRecords")
    c.call("DeleteRecords", hi, {"Topics": [{"Name": t, "Partitions": [
        {"PartitionIndex": 0, "Offset": 3}]}], "TimeoutMs": 30000})
    for ts in (EARLIEST, LATEST, MAX_TIMESTAMP, EARLIEST_LOCAL, 0, T0, T0 + 1000, T0 + 2000):
        list_offsets(c, ctx, t, [(0, ts)])


@scenario("broker.fetch.after_delete_records",
          "Fetch at every version with MaxWaitMs 0 after DeleteRecords: below the log start "
          "offset is OFFSET_OUT_OF_RANGE, at it the batch holding it is returned with the new "
          "log start offset", api="Fetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a", b"b"])
    hb.produce(ctx, c, t, 0, [b"c", b"d"], ts=T0 + 1000)
    lo, hi = ctx.api_range("DeleteRecords")
    c.call("DeleteRecords", hi, {"Topics": [{"Name": t, "Partitions": [
        {"PartitionIndex": 0, "Offset": 3}]}], "TimeoutMs": 30000}, record=False)
    fetch(c, ctx, t, tid, [(0, 0)])
    fetch(c, ctx, t, tid, [(0, 3)])
    fetch(c, ctx, t, tid, [(0, 2)])


@scenario("broker.log.survives_restart",
          "A topic with records, then (in the restart run) kcoord killed and restarted: "
          "Metadata, ListOffsets and Fetch answer the same, the topic id included (the "
          "current leader epochs two on per restart)",
          restartable=True)
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, partitions=2)
    hb.produce(ctx, c, t, 1, [b"a", b"b"])
    ctx.restart_point()
    # A restart moves every partition two leader epochs on, as Kafka's
    # restarts do (broker.leader_epoch.restarts); the current epochs are
    # compared less that.
    mv = hb.top_version(ctx, "Metadata")
    r = c.call("Metadata", mv, hb.metadata_body(mv, [t]), record=False)
    for p in r["Topics"][0]["Partitions"]:
        p["LeaderEpoch"] -= 2 * ctx.restarts
    ctx.note("Metadata, leader epochs less 2 per restart", r)
    ctx.note("same topic id", r["Topics"][0]["TopicId"] == tid)
    lv = hb.top_version(ctx, "ListOffsets")
    r = c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(0, LATEST), (1, LATEST)]),
               record=False)
    for p in r["Topics"][0]["Partitions"]:
        if "LeaderEpoch" in p:
            p["LeaderEpoch"] -= 2 * ctx.restarts
    ctx.note("ListOffsets latest, leader epochs less 2 per restart", r)
    c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(1, MAX_TIMESTAMP)]))
    fv = hb.top_version(ctx, "Fetch")
    c.call("Fetch", fv, hb.fetch_body(fv, t, tid, [(1, 0)]))


@scenario("broker.fetch.leader_epoch",
          "Fetch v9+ with MaxWaitMs 0 and CurrentLeaderEpoch -1, 0, 1 (newer: "
          "UNKNOWN_LEADER_EPOCH), -2 (negative: no check) and, from v12, a "
          "LastFetchedEpoch of 0 (beyond the log end: a diverging epoch) and a newer one "
          "(OFFSET_OUT_OF_RANGE)",
          api="Fetch", versions=(9, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a", b"b"])
    for epoch in (-1, 0, 1, -2):
        body = hb.fetch_body(ctx.version, t, tid, [(0, 1)])
        body["Topics"][0]["Partitions"][0]["CurrentLeaderEpoch"] = epoch
        c.call("Fetch", ctx.version, body)
    if ctx.version >= 12:
        for last, off in ((0, 1), (3, 1), (0, 2), (0, 5)):
            body = hb.fetch_body(ctx.version, t, tid, [(0, off)])
            body["Topics"][0]["Partitions"][0]["LastFetchedEpoch"] = last
            c.call("Fetch", ctx.version, body)


@scenario("broker.list_offsets.compressed_batch",
          "ListOffsets v7+ on a gzip batch whose records have create times out of order: max "
          "timestamp names the record holding it, a search by timestamp the first record at or "
          "after it", api="ListOffsets", versions=(7, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    hb.produce_raw(ctx, c, t, 0, hb.gzip_batch([0, 10, 5]))
    for ts in (MAX_TIMESTAMP, T0, T0 + 1, T0 + 6, T0 + 10, T0 + 11):
        list_offsets(c, ctx, t, [(0, ts)])


def produce_body(ctx, topic, tid, batch, version):
    t = {"PartitionData": [{"Index": 0, "Records": batch}]}
    if version >= 13:
        t["TopicId"] = tid
    else:
        t["Name"] = topic
    return {"Acks": -1, "TimeoutMs": 30000, "TopicData": [t]}


@scenario("broker.produce.compacted_topic_key_required",
          "Produce at every version to a topic with cleanup.policy=compact: a batch of records "
          "without a key, and one whose second, fourth and fifth records have none, are refused "
          "whole with INVALID_RECORD, a record error naming each keyless record and (v8+) the "
          "message showing the first three; records with keys, a tombstone among them, are "
          "appended", api="Produce", versions=(3, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, configs={"cleanup.policy": "compact"})
    v = ctx.version
    c.call("Produce", v, produce_body(ctx, t, tid, hb.kafka_wire.record_batch(
        [b"a", b"b", b"c"]), v))
    c.call("Produce", v, produce_body(ctx, t, tid, hb.kafka_wire.record_batch(
        [b"a", b"b", b"c", b"d", b"e"], keys=[b"k", None, b"k", None, None]), v))
    c.call("Produce", v, produce_body(ctx, t, tid, hb.kafka_wire.record_batch(
        [b"v", None], keys=[b"k1", b"k2"]), v))
    lv = hb.top_version(ctx, "ListOffsets")
    c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(0, LATEST)]))


@scenario("broker.log.compacted_after_clean",
          "A compacted topic with segment.ms=1 and min.cleanable.dirty.ratio=0.01, five batches "
          "created a second apart (each rolls a segment): once the cleaner has run, Fetch from "
          "offset 0 returns the latest record of each key in the cleaned segments at its "
          "original offset, in batches that keep their base and last offsets, and the active "
          "segment untouched; a fetch ends with the segment of its first batch (the cleaned "
          "segments merged into one), a fetch inside a gap gets the next batch; the log start "
          "offset and the high watermark are as before", profile="compaction")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, configs={"cleanup.policy": "compact", "segment.ms": "1",
                                              "min.cleanable.dirty.ratio": "0.01"})
    batches = [([b"a", b"b", b"c"], [b"a0", b"b0", b"c0"]),   # 0-2
               ([b"a", b"a"], [b"a1", b"a2"]),                 # 3-4
               ([b"b", b"d"], [b"b1", b"d0"]),                 # 5-6
               ([b"a"], [b"a3"]),                              # 7
               ([b"c", b"b"], [b"c1", b"b2"])]                 # 8-9, the active segment
    for i, (keys, values) in enumerate(batches):
        hb.produce_raw(ctx, c, t, 0, hb.kafka_wire.record_batch(values, keys=keys,
                                                                ts=T0 + i * 1000))
    fv = hb.top_version(ctx, "Fetch")

    def cleaned():
        offsets, at = [], 0
        while at is not None and at < 10:
            r = c.call("Fetch", fv, hb.fetch_body(fv, t, tid, [(0, at)]), record=False)
            got, at = hb.batch_offsets(r["Responses"][0]["Partitions"][0]["Records"] or b"",
                                       next_offset=True)
            offsets += got
        return offsets == [2, 5, 6, 7, 8, 9]
    ctx.wait_until(cleaned, "the cleaner to compact %s-0" % t)
    for at in (0, 3, 8):
        c.call("Fetch", fv, hb.fetch_body(fv, t, tid, [(0, at)]))
    lv = hb.top_version(ctx, "ListOffsets")
    c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(0, EARLIEST), (0, LATEST)]))
