# SPDX-License-Identifier: Apache-2.0
"""Static members of consumer groups (InstanceId)."""

from conformance import scenario
import h_consumer as hc

API = hc.API


@scenario("consumer.static.join",
          "ConsumerGroupHeartbeat: a static member joins with an InstanceId; describe shows "
          "it", api=API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t], InstanceId="inst-1", RackId="rack-a")
    hc.hb(ctx, c, g, r["MemberId"], 1, TopicPartitions=hc.owned(r))
    hc.describe(ctx, c, [g])


@scenario("consumer.static.replace",
          "ConsumerGroupHeartbeat: a static member leaves with epoch -2 (kept in the group "
          "with epoch -2), a new member id with the same InstanceId replaces it and takes its "
          "epoch and assignment without a new group epoch", api=API, restartable=True)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t], InstanceId="inst-1")
    hc.hb(ctx, c, g, r["MemberId"], -2, InstanceId="inst-1")
    ctx.restart_point()
    hc.describe(ctx, c, [g])
    r2 = hc.join(ctx, c, g, hc.mid(ctx, hc.M2), [t], InstanceId="inst-1")
    ctx.restart_point()
    hc.hb(ctx, c, g, r2["MemberId"], r2["MemberEpoch"], TopicPartitions=hc.owned(r2))
    hc.describe(ctx, c, [g])
    # The replaced member id is gone.
    hc.hb(ctx, c, g, r["MemberId"], 1)


@scenario("consumer.static.unreleased_instance_id",
          "ConsumerGroupHeartbeat: a second member joining with the InstanceId of an active "
          "static member is UNRELEASED_INSTANCE_ID", api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hc.join(ctx, c, g, hc.M1, [], InstanceId="inst-1")
    hc.join(ctx, c, g, hc.M2, [], InstanceId="inst-1")


@scenario("consumer.static.fenced_instance_id",
          "ConsumerGroupHeartbeat: leaving (epoch -2 and -1) with an InstanceId owned by "
          "another member id is FENCED_INSTANCE_ID; an unknown InstanceId is UNKNOWN_MEMBER_ID",
          api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hc.join(ctx, c, g, hc.M1, [], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M2, -2, InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M2, -1, InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M2, -2, InstanceId="inst-unknown")
    hc.hb(ctx, c, g, hc.M1, 1, InstanceId="inst-1")


@scenario("consumer.static.leave_for_good",
          "ConsumerGroupHeartbeat: a static member leaving with epoch -1 is removed, bumping "
          "the group epoch; its InstanceId can be taken by a new member", api=API,
          versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    hc.join(ctx, c, g, hc.M1, [t], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, -1, InstanceId="inst-1")
    hc.describe(ctx, c, [g])
    hc.join(ctx, c, g, hc.M2, [t], InstanceId="inst-1")


@scenario("consumer.static.rejoin_changed_subscription",
          "ConsumerGroupHeartbeat: a static member replaced with a different subscription "
          "bumps the group epoch", api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t1, t2 = ctx.group(), ctx.topic("a"), ctx.topic("b")
    hc.create_topics(ctx, c, [(t1, 1), (t2, 1)])
    hc.join(ctx, c, g, hc.M1, [t1], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, -2, InstanceId="inst-1")
    r = hc.join(ctx, c, g, hc.M2, [t2], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M2, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.describe(ctx, c, [g])


@scenario("consumer.static.heartbeat_without_instance_id",
          "ConsumerGroupHeartbeat v1: a static member's steady heartbeat may leave InstanceId "
          "out (unchanged); leaving with epoch -1 without it removes the member by its id",
          api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    r = hc.join(ctx, c, g, hc.M1, [t], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.hb(ctx, c, g, hc.M1, -1)
    hc.describe(ctx, c, [g])
    hc.join(ctx, c, g, hc.M2, [t], InstanceId="inst-1")


@scenario("consumer.static.leave_twice",
          "ConsumerGroupHeartbeat v1: a static member leaving with epoch -2 twice, then "
          "heartbeating with its old epoch", api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = hc.join(ctx, c, g, hc.M1, [], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, -2, InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, -2, InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], InstanceId="inst-1")
    hc.describe(ctx, c, [g])
