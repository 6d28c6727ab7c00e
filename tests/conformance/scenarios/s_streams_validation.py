# SPDX-License-Identifier: Apache-2.0
"""StreamsGroupHeartbeat request validation: the INVALID_REQUEST and
STREAMS_INVALID_TOPOLOGY answers and their messages, unknown groups and
members, wrong member epochs, groups of another type."""

from conformance import ScenarioError, scenario
import h_streams as s

API = "StreamsGroupHeartbeat"
P = "streams"


def topo1(ctx, label="in"):
    return s.topology([s.subtopology("0", source=[ctx.topic(label)])])


@scenario("streams.validate.empty_ids",
          "StreamsGroupHeartbeat: an empty MemberId, GroupId, InstanceId or RackId is "
          "INVALID_REQUEST with the field's message, checked in that order",
          api=API, profile=P)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    t = topo1(ctx)
    v = ctx.version
    c.call(API, v, s.hb(g, "", 0, topo=t))
    c.call(API, v, s.hb("", "m1", 0, topo=t))
    c.call(API, v, s.hb("", "", 0, topo=t))
    c.call(API, v, s.hb(g, "m1", 0, topo=t, instance_id=""))
    c.call(API, v, s.hb(g, "m1", 0, topo=t, rack_id=""))
    c.call(API, v, s.hb(g, "m1", 0, topo=t, instance_id="", rack_id=""))
    # Empty ids on a heartbeat and a leave, not only on a join.
    c.call(API, v, s.hb(g, "", 3))
    c.call(API, v, s.hb(g, "", -1))


@scenario("streams.validate.join_fields",
          "StreamsGroupHeartbeat join (epoch 0): RebalanceTimeoutMs -1, non-empty or null "
          "ActiveTasks/StandbyTasks/WarmupTasks, and a null Topology are INVALID_REQUEST with "
          "their messages, in Kafka's order",
          api=API, profile=P)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    t = topo1(ctx)
    v = ctx.version
    some = {"0": [0]}
    c.call(API, v, s.hb(g, "m1", 0, topo=t, rebalance_timeout_ms=-1))
    c.call(API, v, s.hb(g, "m1", 0, topo=t, active=some))
    c.call(API, v, s.hb(g, "m1", 0, topo=t, standby=some))
    c.call(API, v, s.hb(g, "m1", 0, topo=t, warmup=some))
    c.call(API, v, s.hb(g, "m1", 0, topo=None))
    # Null task lists on a join: all null passes the join checks (then the
    # group is joined), one null among non-null ones does not.
    c.call(API, v, s.hb(g, "m1", 0, topo=t, active=[], standby=None, warmup=[]))
    c.call(API, v, s.hb(g, "m1", 0, topo=t, active=[], standby=[], warmup=None))
    # Rebalance timeout -1 and a missing topology together: the timeout wins.
    c.call(API, v, s.hb(g, "m1", 0, topo=None, rebalance_timeout_ms=-1))
    # Nothing of the above created the group.
    c.call("StreamsGroupDescribe", s.describe_version(ctx),
           {"GroupIds": [g], "IncludeAuthorizedOperations": False})


@scenario("streams.validate.epochs_and_lists",
          "StreamsGroupHeartbeat: MemberEpoch below -2 is INVALID_REQUEST with the epoch in the "
          "message; -2 needs an InstanceId; one null task list among non-null ones, and a "
          "Topology outside a join, are INVALID_REQUEST",
          api=API, profile=P)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    t = topo1(ctx)
    v = ctx.version
    c.call(API, v, s.hb(g, "m1", -3))
    c.call(API, v, s.hb(g, "m1", -100))
    c.call(API, v, s.hb(g, "m1", -2))
    c.call(API, v, s.hb(g, "m1", 1, active={}, standby=None, warmup=None))
    c.call(API, v, s.hb(g, "m1", 1, active=None, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m1", 1, active={}, standby={}, warmup=None))
    c.call(API, v, s.hb(g, "m1", 1, topo=t))
    c.call(API, v, s.hb(g, "m1", -1, topo=t))
    c.call(API, v, s.hb(g, "m1", -2, topo=t, instance_id="i1"))


@scenario("streams.validate.topology",
          "StreamsGroupHeartbeat join: a changelog topic with a partition count is "
          "STREAMS_INVALID_TOPOLOGY, a source topic regex is INVALID_REQUEST (not supported), "
          "internal Kafka topics and invalid topic names are STREAMS_INVALID_TOPOLOGY, each with "
          "its message",
          api=API, profile=P)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    v = ctx.version
    src = ctx.topic("in")
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=[src], changelog=[s.topic_info(ctx.topic("cl"), partitions=3)])])))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=[src], regex=["in.*"])])))
    # The regex check comes before the other request checks.
    c.call(API, v, s.hb(g, "", 0, topo=s.topology([s.subtopology("0", regex=["x"])]),
                        rebalance_timeout_ms=-1))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=[src, "__consumer_offsets"])])))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=[src], repartition_sink=["__transaction_state"])])))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=["bad topic", src, "a/b"])])))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=[src], changelog=[s.topic_info("x" * 250)])])))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=[src], repartition_source=[s.topic_info(".")])])))
    # An internal topic and an invalid name together: the internal one is reported.
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([s.subtopology(
        "0", source=["..", "__consumer_offsets"])])))
    c.call("StreamsGroupDescribe", s.describe_version(ctx),
           {"GroupIds": [g], "IncludeAuthorizedOperations": False})


@scenario("streams.validate.unknown_group_and_member",
          "StreamsGroupHeartbeat with epoch > 0 or a leave on an unknown group is "
          "GROUP_ID_NOT_FOUND; an unknown member of a live group is UNKNOWN_MEMBER_ID, on "
          "heartbeat, leave and static leave",
          api=API, profile=P)
def _(ctx):
    c = ctx.client()
    setup = ctx.client("setup")
    g = ctx.group()
    v = ctx.version
    s.create_topics(ctx, setup, {ctx.topic("in"): 2})
    c.call(API, v, s.hb(g, "m1", 1, active={}, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m1", -1))
    c.call(API, v, s.hb(g, "m1", -2, instance_id="i1"))
    c.call(API, v, s.hb(g, "m1", 0, topo=topo1(ctx)))
    c.call(API, v, s.hb(g, "m2", 1, active={}, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m2", 1))
    c.call(API, v, s.hb(g, "m2", -1))
    c.call(API, v, s.hb(g, "m2", -2, instance_id="i2"))


@scenario("streams.validate.member_epoch",
          "StreamsGroupHeartbeat: a member heartbeating with an epoch ahead of its own, or an "
          "older one with owned tasks, is FENCED_MEMBER_EPOCH; a rejoin with epoch 0 keeps its "
          "assignment",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    s.create_topics(ctx, setup, {ctx.topic("in"): 2})
    m = s.Member(ctx, g, "m1", topo1(ctx), version=ctx.version)
    m.join()
    m.heartbeat()
    c = m.c
    v = ctx.version
    c.call(API, v, s.hb(g, "m1", m.epoch + 1, active=m.active, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m1", m.epoch + 5))
    c.call(API, v, s.hb(g, "m1", m.epoch - 1, active=m.active, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m1", m.epoch - 1))
    # The member is not fenced by these: its own epoch still works.
    m.heartbeat()
    m.join()
    m.heartbeat()


@scenario("streams.validate.owned_tasks",
          "StreamsGroupHeartbeat: owned tasks of an unknown subtopology or a partition beyond "
          "the subtopology's task count are INVALID_REQUEST with Kafka's message",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    s.create_topics(ctx, setup, {ctx.topic("in"): 2})
    m = s.Member(ctx, g, "m1", topo1(ctx), version=ctx.version)
    m.join()
    c = m.c
    v = ctx.version
    c.call(API, v, s.hb(g, "m1", m.epoch, active={"9": [0]}, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m1", m.epoch, active={"0": [0, 1, 2]}, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m1", m.epoch, active={"0": [0, 1]}, standby={"0": [-1]}, warmup={}))
    c.call(API, v, s.hb(g, "m1", m.epoch, active={"0": [0, 1]}, standby={}, warmup={"x": [5]}))
    m.heartbeat()
    s.describe(c, s.describe_version(ctx), [g])


@scenario("streams.validate.wrong_group_type",
          "StreamsGroupHeartbeat on a consumer group or a non-empty classic group is "
          "GROUP_ID_NOT_FOUND (not a streams group); a join on an empty classic group made "
          "by an offset commit converts it to a streams group",
          api=API, profile=P)
def _(ctx):
    c = ctx.client()
    setup = ctx.client("setup")
    v = ctx.version
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 1})
    cg = ctx.group("consumer")
    cv = ctx.api_range("ConsumerGroupHeartbeat")[1]
    setup.call("ConsumerGroupHeartbeat", cv,
               {"GroupId": cg, "MemberId": "c1", "MemberEpoch": 0, "RebalanceTimeoutMs": 30000,
                "SubscribedTopicNames": [src], "TopicPartitions": []}, record=False)
    c.call(API, v, s.hb(cg, "m1", 0, topo=topo1(ctx)))
    c.call(API, v, s.hb(cg, "m1", 1, active={}, standby={}, warmup={}))
    c.call(API, v, s.hb(cg, "c1", -1))
    # An empty classic group (offsets only).
    eg = ctx.group("classic")
    ov = ctx.api_range("OffsetCommit")[1]
    body = {"GroupId": eg, "GenerationIdOrMemberEpoch": -1, "MemberId": "",
            "GroupInstanceId": None,
            "Topics": [{"Name": src, "Partitions": [{"PartitionIndex": 0,
                                                     "CommittedOffset": 5,
                                                     "CommittedLeaderEpoch": -1,
                                                     "CommittedMetadata": ""}]}]}
    r = setup.call("OffsetCommit", min(ov, 9), body, record=False)
    if r["Topics"][0]["Partitions"][0]["ErrorCode"] != 0:
        raise ScenarioError("OffsetCommit failed: %r" % (r,))
    c.call(API, v, s.hb(eg, "m1", 1, active={}, standby={}, warmup={}))
    c.call(API, v, s.hb(eg, "m1", 0, topo=topo1(ctx)))
    s.describe(c, s.describe_version(ctx), [eg, cg])


@scenario("streams.validate.duplicate_subtopologies",
          "StreamsGroupHeartbeat join: two subtopologies with one id fail the heartbeat as "
          "Kafka's does, creating no group; a topic read by two subtopologies is accepted",
          api=API, profile=P)
def _(ctx):
    c = ctx.client()
    setup = ctx.client("setup")
    g = ctx.group()
    v = ctx.version
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([
        s.subtopology("0", source=[src]), s.subtopology("0", source=[ctx.topic("other")])])))
    c.call("StreamsGroupDescribe", s.describe_version(ctx),
           {"GroupIds": [g], "IncludeAuthorizedOperations": False})
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([
        s.subtopology("0", source=[src]), s.subtopology("1", source=[src])])))


def offs(*entries):
    """TaskOffset list from (subtopology id, partition, offset) triples."""
    return [{"SubtopologyId": sid, "Partition": p, "Offset": o} for sid, p, o in entries]


@scenario("streams.validate.task_offsets_duplicate",
          "StreamsGroupHeartbeat: a (subtopology, partition) given twice in TaskOffsets or "
          "TaskEndOffsets is INVALID_REQUEST naming the first repeat, the task offsets checked "
          "before the end offsets and after the owned tasks and the member epoch; nothing of "
          "the refused heartbeat is kept, and a refused join makes no member or group",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    s.create_topics(ctx, setup, {ctx.topic("in"): 2})
    m = s.Member(ctx, g, "m1", topo1(ctx), version=ctx.version)
    m.join()
    m.heartbeat()
    c = m.c
    v = ctx.version
    dv = s.describe_version(ctx)
    good = offs(("0", 1, 10), ("0", 0, 20))
    m.heartbeat(TaskOffsets=good, TaskEndOffsets=offs(("0", 0, 30), ("0", 1, 40)))
    # The same partition of two subtopologies is no repeat.
    m.heartbeat(TaskOffsets=offs(("1", 0, 1), ("0", 0, 2)), TaskEndOffsets=None)
    s.describe(c, dv, [g])
    # Repeats: the first one in request order is named.
    m.heartbeat(TaskOffsets=offs(("0", 1, 1), ("0", 0, 2), ("0", 0, 3), ("0", 1, 4)))
    m.heartbeat(TaskOffsets=offs(("0", 1, 1), ("1", 1, 2), ("0", 1, 1)))
    m.heartbeat(TaskOffsets=None, TaskEndOffsets=offs(("0", 1, 1), ("0", 1, 1)))
    m.heartbeat(TaskOffsets=[], TaskEndOffsets=offs(("x", 7, 1), ("x", 7, 2)))
    m.heartbeat(TaskOffsets=offs(("0", 0, 1), ("0", 0, 1)),
                TaskEndOffsets=offs(("0", 1, 1), ("0", 1, 1)))
    # Nothing of the refused heartbeats was taken.
    s.describe(c, dv, [g])
    # The owned tasks and the member epoch are checked first.
    dup = offs(("0", 0, 1), ("0", 0, 2))
    c.call(API, v, s.hb(g, "m1", m.epoch, active={"9": [0]}, standby={}, warmup={},
                        TaskOffsets=dup))
    c.call(API, v, s.hb(g, "m1", m.epoch + 1, TaskOffsets=dup))
    # A refused join of a new member, and of a new group.
    c.call(API, v, s.hb(g, "m2", 0, topo=topo1(ctx), TaskEndOffsets=dup))
    g2 = ctx.group("other")
    c.call(API, v, s.hb(g2, "m1", 0, topo=topo1(ctx), TaskOffsets=dup))
    s.describe(c, dv, [g, g2])
