# SPDX-License-Identifier: Apache-2.0
"""Leader epochs: OffsetForLeaderEpoch at every version, its refusals, and
(profile broker_restarts) what restarts of the only broker do to the
epochs that Metadata, OffsetForLeaderEpoch, ListOffsets and Fetch report
and that produced batches carry."""

from conformance import scenario
import h_broker as hb

EARLIEST, LATEST, MAX_TIMESTAMP = -2, -1, -3
UNKNOWN_TOPIC_OR_PARTITION = 3


def ofle_body(partitions, topic, replica_id=-1):
    """An OffsetForLeaderEpoch request for one topic; partitions:
    [(partition, current leader epoch, leader epoch)]. ReplicaId and
    CurrentLeaderEpoch are ignorable: versions without them drop them."""
    return {"ReplicaId": replica_id,
            "Topics": [{"Topic": topic,
                        "Partitions": [{"Partition": p, "CurrentLeaderEpoch": ce,
                                        "LeaderEpoch": e} for p, ce, e in partitions]}]}


def ofle(c, ctx, version, topic, partitions, record=True, **kw):
    return c.call("OffsetForLeaderEpoch", version, ofle_body(partitions, topic, **kw),
                  record=record)


def each_version(ctx, api):
    lo, hi = ctx.api_range(api)
    return range(lo, hi + 1)


@scenario("broker.offset_for_leader_epoch.epochs",
          "OffsetForLeaderEpoch at every version on a partition at epoch 0 holding two "
          "batches and on an empty one: the current epoch ends at the log end, an undefined "
          "(-1), negative or newer epoch has no end offset (-1, -1)",
          api="OffsetForLeaderEpoch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t, partitions=2)
    hb.produce(ctx, c, t, 0, [b"a", b"b"])
    hb.produce(ctx, c, t, 0, [b"c"])
    ofle(c, ctx, ctx.version, t, [(0, -1, e) for e in (-1, 0, 1, 5, -2)] +
         [(1, -1, e) for e in (0, 1, -1)])


@scenario("broker.offset_for_leader_epoch.current_leader_epoch",
          "OffsetForLeaderEpoch v2+ with CurrentLeaderEpoch: -1 asks for no check, the "
          "current epoch 0 passes, a newer one is UNKNOWN_LEADER_EPOCH, and any other "
          "negative value (-2, -3) is FENCED_LEADER_EPOCH", api="OffsetForLeaderEpoch",
          versions=(2, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    hb.produce(ctx, c, t, 0, [b"a"])
    ofle(c, ctx, ctx.version, t, [(0, ce, 0) for ce in (-1, 0, 1, 7, -2, -3)])
    ofle(c, ctx, ctx.version, t, [(0, 1, 5), (0, -2, -1)])


@scenario("broker.offset_for_leader_epoch.unknown",
          "OffsetForLeaderEpoch at every version for a topic that does not exist, an invalid "
          "topic name, the empty name, a partition beyond the topic's and a negative one: "
          "UNKNOWN_TOPIC_OR_PARTITION with no epoch and no end offset",
          api="OffsetForLeaderEpoch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    ofle(c, ctx, ctx.version, ctx.topic("missing"), [(0, -1, 0)])
    ofle(c, ctx, ctx.version, "not a topic!", [(0, -1, 0)])
    ofle(c, ctx, ctx.version, "", [(0, -1, 0)])
    ofle(c, ctx, ctx.version, t, [(1, -1, 0), (-1, -1, 0), (0, -1, 0), (2147483647, -1, 0)])


@scenario("broker.offset_for_leader_epoch.shape",
          "OffsetForLeaderEpoch at every version: no topics, a topic without partitions, the "
          "same topic listed twice and around an unknown one (each answered where it stands), "
          "and from v3 the replica ids of a consumer (-1), a debug consumer (-2) and a "
          "follower (1, 5), which change nothing", api="OffsetForLeaderEpoch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t, partitions=2)
    hb.produce(ctx, c, t, 1, [b"a"])
    c.call("OffsetForLeaderEpoch", ctx.version, {"ReplicaId": -1, "Topics": []})
    c.call("OffsetForLeaderEpoch", ctx.version,
           {"ReplicaId": -1, "Topics": [{"Topic": t, "Partitions": []}]})
    one = ofle_body([(0, -1, 0)], t)["Topics"][0]
    two = ofle_body([(1, -1, 0), (0, 0, 0)], t)["Topics"][0]
    missing = ofle_body([(0, -1, 0)], ctx.topic("missing"))["Topics"][0]
    c.call("OffsetForLeaderEpoch", ctx.version,
           {"ReplicaId": -1, "Topics": [one, missing, two, {"Topic": t, "Partitions": []}]})
    if ctx.version >= 3:
        for rid in (-1, -2, 1, 5):
            ofle(c, ctx, ctx.version, t, [(0, -1, 0), (1, -1, 0), (1, -1, 1)], replica_id=rid)


# ---------------------------------------------------------------- restarts

def led(ctx, c, t, partitions):
    """Waits (unrecorded) until t's partitions are led and served again after
    a restart: Kafka's controller hands the leadership back a little after
    the broker answers."""
    hb.wait_topic(ctx, c, t, partitions)


def epochs_everywhere(ctx, c, t, tid, label, max_timestamp=True):
    """Everything that reports a leader epoch, recorded: Metadata, the end
    offset of every epoch up to 6 at every OffsetForLeaderEpoch version,
    ListOffsets' earliest, latest and (unless max_timestamp is false) max
    timestamp, and the records of a Fetch (their batches'
    PartitionLeaderEpoch)."""
    mv = hb.top_version(ctx, "Metadata")
    c.call("Metadata", mv, hb.metadata_body(mv, [t]))
    for v in each_version(ctx, "OffsetForLeaderEpoch"):
        ofle(c, ctx, v, t, [(0, -1, e) for e in range(-1, 7)] + [(1, -1, 0), (1, -1, 2)])
    lv = hb.top_version(ctx, "ListOffsets")
    c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(0, EARLIEST), (1, EARLIEST)]))
    c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(0, LATEST), (1, LATEST)]))
    if max_timestamp:
        c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(0, MAX_TIMESTAMP)]))
    fv = hb.top_version(ctx, "Fetch")
    c.call("Fetch", fv, hb.fetch_body(fv, t, tid, [(0, 0)]))
    ctx.note("checked: " + label)


@scenario("broker.leader_epoch.restarts",
          "The only broker restarted after a clean stop and after a SIGKILL, a record produced "
          "between them or not: every partition comes back two leader epochs on, the new epoch "
          "starting at the log end; Metadata, OffsetForLeaderEpoch at every version, "
          "ListOffsets, Fetch (the batches' epochs, CurrentLeaderEpoch fencing, "
          "LastFetchedEpoch divergence) and the fencing of ListOffsets and "
          "OffsetForLeaderEpoch follow; DeleteRecords cuts the epochs; a new partition starts "
          "at epoch 0", profile="broker_restarts")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, partitions=2)
    hb.produce(ctx, c, t, 0, [b"a", b"b"])
    epochs_everywhere(ctx, c, t, tid, "epoch 0")

    ctx.restart_broker()
    led(ctx, c, t, 2)
    epochs_everywhere(ctx, c, t, tid, "after a clean restart")
    lv = hb.top_version(ctx, "ListOffsets")
    for ce in (0, 1, 2, 3, -2):
        c.call("ListOffsets", lv, hb.list_offsets_body(lv, t, [(0, LATEST)], leader_epoch=ce))
    for v in each_version(ctx, "OffsetForLeaderEpoch"):
        if v >= 2:
            ofle(c, ctx, v, t, [(0, ce, 0) for ce in (0, 1, 2, 3, -2)])
    hb.produce(ctx, c, t, 0, [b"c"])
    epochs_everywhere(ctx, c, t, tid, "a record at epoch 2")

    ctx.restart_broker(kill=True)
    led(ctx, c, t, 2)
    epochs_everywhere(ctx, c, t, tid, "after a SIGKILL")
    ctx.restart_broker()
    led(ctx, c, t, 2)
    epochs_everywhere(ctx, c, t, tid, "after a second restart with nothing produced")
    hb.produce(ctx, c, t, 0, [b"d"])

    fv = hb.top_version(ctx, "Fetch")
    for ce, last, off in ((0, -1, 3), (6, -1, 3), (7, -1, 3), (-1, 0, 1), (-1, 0, 3),
                          (-1, 2, 3), (-1, 2, 4), (-1, 3, 4), (-1, 6, 4), (-1, 6, 5),
                          (-1, 7, 3)):
        body = hb.fetch_body(fv, t, tid, [(0, off)])
        body["Topics"][0]["Partitions"][0]["CurrentLeaderEpoch"] = ce
        if fv >= 12:
            body["Topics"][0]["Partitions"][0]["LastFetchedEpoch"] = last
        c.call("Fetch", fv, body)

    for upto in (1, 2, 3):
        c.call("DeleteRecords", hb.top_version(ctx, "DeleteRecords"),
               {"Topics": [{"Name": t, "Partitions": [{"PartitionIndex": 0, "Offset": upto}]}],
                "TimeoutMs": 30000})
        # Not the max timestamp once a whole batch is below the log start:
        # kcoord deletes such batches at once, Kafka keeps the segment and
        # may still name a deleted record (all records here share one time).
        epochs_everywhere(ctx, c, t, tid, "records deleted up to %d" % upto,
                          max_timestamp=upto < 2)
    body = hb.fetch_body(fv, t, tid, [(0, 2)])
    if fv >= 12:
        body["Topics"][0]["Partitions"][0]["LastFetchedEpoch"] = 0
    c.call("Fetch", fv, body)

    cv = hb.top_version(ctx, "CreatePartitions")
    c.call("CreatePartitions", cv, {"Topics": [{"Name": t, "Count": 3, "Assignments": None}],
                                    "TimeoutMs": 30000, "ValidateOnly": False}, record=False)
    led(ctx, c, t, 3)
    mv = hb.top_version(ctx, "Metadata")
    c.call("Metadata", mv, hb.metadata_body(mv, [t]))
    for v in each_version(ctx, "OffsetForLeaderEpoch"):
        ofle(c, ctx, v, t, [(2, -1, 0), (2, -1, 6), (0, -1, 6)])
