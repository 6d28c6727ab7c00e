# SPDX-License-Identifier: Apache-2.0
"""ConsumerGroupHeartbeat: join, steady heartbeats, leave, epochs, fencing."""

from conformance import ScenarioError, scenario
import h_consumer as hc

API = hc.API


@scenario("consumer.member.join_single",
          "ConsumerGroupHeartbeat: a first member joins (epoch 0) and gets member epoch 1, "
          "the heartbeat interval and every partition of its topic; a steady heartbeat "
          "returns no assignment", api=API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 3)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    m = r["MemberId"]
    hc.hb(ctx, c, g, m, r["MemberEpoch"])
    hc.hb(ctx, c, g, m, r["MemberEpoch"], TopicPartitions=hc.owned(r))


@scenario("consumer.member.v0_generated_id",
          "ConsumerGroupHeartbeat v0: a member joining with an empty member id gets one "
          "from the broker and heartbeats with it", api=API, versions=(0, 0))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    r = hc.join(ctx, c, g, "", [t])
    ctx.note("member id length", len(r["MemberId"] or ""))
    hc.hb(ctx, c, g, r["MemberId"], 1, TopicPartitions=hc.owned(r))


@scenario("consumer.member.v0_client_id",
          "ConsumerGroupHeartbeat v0: a member may also join with a member id of its own",
          api=API, versions=(0, 0))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    hc.join(ctx, c, g, "my-own-member-id", [t])


@scenario("consumer.member.join_unknown_topic",
          "ConsumerGroupHeartbeat: subscribing to a topic that does not exist joins with an "
          "empty assignment", api=API)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [ctx.topic("missing")])
    hc.hb(ctx, c, g, r["MemberId"], r["MemberEpoch"])
    hc.describe(ctx, c, [g])


@scenario("consumer.member.join_empty_subscription",
          "ConsumerGroupHeartbeat: a member subscribed to an empty topic list is a member "
          "with an empty assignment (the group needs no epoch bump, so no group epoch record: "
          "a restart keeps epoch 1)", api=API, restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [])
    ctx.restart_point()
    hc.describe(ctx, c, [g])


@scenario("consumer.member.leave",
          "ConsumerGroupHeartbeat: leaving with epoch -1 answers MemberEpoch -1; the group "
          "is then empty with a bumped group epoch", api=API, restartable=True)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    ctx.restart_point()
    hc.hb(ctx, c, g, r["MemberId"], -1)
    ctx.restart_point()
    hc.describe(ctx, c, [g])


@scenario("consumer.member.leave_unknown",
          "ConsumerGroupHeartbeat: leaving (epoch -1) with an unknown member id, in an "
          "existing group and in an unknown group", api=API)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [])
    hc.hb(ctx, c, g, "not-a-member", -1)
    hc.hb(ctx, c, ctx.group("none"), "not-a-member", -1)


@scenario("consumer.member.unknown_member",
          "ConsumerGroupHeartbeat: a heartbeat with a positive epoch from an unknown member "
          "is UNKNOWN_MEMBER_ID", api=API)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [])
    hc.hb(ctx, c, g, "not-a-member", 1)


@scenario("consumer.member.fenced_epoch",
          "ConsumerGroupHeartbeat: an epoch above the member's, and one below it, are "
          "FENCED_MEMBER_EPOCH", api=API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    m = r["MemberId"]
    hc.hb(ctx, c, g, m, 5)
    # A second subscription change moves the member to epoch 2.
    r2 = hc.hb(ctx, c, g, m, 1, SubscribedTopicNames=[t, ctx.topic("other")])
    hc.hb(ctx, c, g, m, 1)
    hc.hb(ctx, c, g, m, 1, TopicPartitions=hc.owned(r))
    hc.hb(ctx, c, g, m, r2["MemberEpoch"])


@scenario("consumer.member.rejoin_epoch_zero",
          "ConsumerGroupHeartbeat: a member that rejoins with epoch 0 keeps its id and gets "
          "its assignment again at the current epoch", api=API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    hc.join(ctx, c, g, r["MemberId"], [t])
    hc.describe(ctx, c, [g])


@scenario("consumer.member.subscription_change",
          "ConsumerGroupHeartbeat: changing the subscribed topics bumps the group epoch and "
          "moves the member to it with the new assignment", api=API)
def _(ctx):
    c = ctx.client()
    g, t1, t2 = ctx.group(), ctx.topic("a"), ctx.topic("b")
    hc.create_topics(ctx, c, [(t1, 1), (t2, 2)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t1])
    m = r["MemberId"]
    r = hc.hb(ctx, c, g, m, 1, SubscribedTopicNames=[t2])
    hc.hb(ctx, c, g, m, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.describe(ctx, c, [g])


@scenario("consumer.member.wrong_group_type",
          "ConsumerGroupHeartbeat into a classic group with members is GROUP_ID_NOT_FOUND "
          "'Group ... is not a consumer group.'", api=API)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = hc.classic_join(ctx, c, g, "", ["t"])
    hc.classic_join(ctx, c, g, r["MemberId"], ["t"], protocol_type="other")
    hc.join(ctx, c, g, hc.mid(ctx, hc.M1), ["t"])


@scenario("consumer.member.group_max_size",
          "ConsumerGroupHeartbeat: a member joining a group at group.consumer.max.size is "
          "GROUP_MAX_SIZE_REACHED", api=API, versions=(1, None), profile="limits")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    for m in ("m-a", "m-b", "m-c", "m-d"):
        hc.join(ctx, c, g, m, [])
    hc.describe(ctx, c, [g])


@scenario("consumer.member.assignor_choice",
          "ConsumerGroupHeartbeat: the group's assignor follows the members' ServerAssignor "
          "(range chosen by the only member; describe shows it)", api=API)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [], ServerAssignor="range")
    hc.describe(ctx, c, [g])
    g2 = ctx.group("default")
    hc.join(ctx, c, g2, hc.mid(ctx, hc.M1), [])
    hc.describe(ctx, c, [g2])


@scenario("consumer.member.leave_classic_group",
          "ConsumerGroupHeartbeat leaving (epoch -1, and -2 with an instance id) a classic "
          "group with members is GROUP_ID_NOT_FOUND 'Group ... is not a consumer group.'",
          api=API)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = hc.classic_join(ctx, c, g, "", ["t"])
    hc.classic_join(ctx, c, g, r["MemberId"], ["t"], protocol_type="other")
    hc.hb(ctx, c, g, "member-x", -1)
    hc.hb(ctx, c, g, "member-x", -2, InstanceId="inst")
    hc.hb(ctx, c, g, "member-x", 3)


@scenario("consumer.member.group_max_size_static_replacement",
          "ConsumerGroupHeartbeat: in a group at group.consumer.max.size, a new member id "
          "replacing a static member that left with epoch -2 is accepted, a rejoin of a "
          "known member too, a new member is not", api=API, versions=(1, None),
          profile="limits")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    for i, m in enumerate(("m-a", "m-b", "m-c")):
        hc.join(ctx, c, g, m, [], InstanceId="inst-%d" % i)
    hc.hb(ctx, c, g, "m-c", -2, InstanceId="inst-2")
    hc.join(ctx, c, g, "m-new", [], InstanceId="inst-2")
    hc.join(ctx, c, g, "m-a", [], InstanceId="inst-0")
    hc.join(ctx, c, g, "m-other", [], InstanceId="inst-9")
    hc.join(ctx, c, g, "m-dynamic", [])
    hc.describe(ctx, c, [g])


def _streams_group(ctx, c, g, t):
    """A streams group of one member (unrecorded): a topology of one
    subtopology reading topic t."""
    v = ctx.api_range("StreamsGroupHeartbeat")
    if v is None:
        return False
    r = c.call("StreamsGroupHeartbeat", v[1], {
        "GroupId": g, "MemberId": "streams-member", "MemberEpoch": 0,
        "EndpointInformationEpoch": 0, "RebalanceTimeoutMs": 30000,
        "Topology": {"Epoch": 0, "Subtopologies": [{
            "SubtopologyId": "0", "SourceTopics": [t], "SourceTopicRegex": [],
            "StateChangelogTopics": [], "RepartitionSinkTopics": [],
            "RepartitionSourceTopics": [], "CopartitionGroups": []}]},
        "ActiveTasks": [], "StandbyTasks": [], "WarmupTasks": [],
        "ProcessId": "process-1", "ClientTags": [], "TaskOffsets": [], "TaskEndOffsets": []},
        record=False)
    if r["ErrorCode"] != 0:
        raise ScenarioError("the streams group was not created: %r" % (r,))
    return True


@scenario("consumer.member.streams_group",
          "ConsumerGroupHeartbeat (join, heartbeat, leave) and ConsumerGroupDescribe naming a "
          "streams group are GROUP_ID_NOT_FOUND 'Group ... is not a consumer group.'", api=API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    if not _streams_group(ctx, c, g, t):
        return
    hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    hc.hb(ctx, c, g, "member-x", 2)
    hc.hb(ctx, c, g, "member-x", -1)
    hc.describe(ctx, c, [g])
