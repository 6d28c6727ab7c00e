# SPDX-License-Identifier: Apache-2.0
"""Classic static membership (KIP-345) and KIP-814 SkipAssignment."""

from conformance import scenario
import helpers as h
import h_classic as k


@scenario("classic.static.join",
          "JoinGroup v5+ with a group.instance.id: a static member with an empty member id "
          "is given its id at once (no MEMBER_ID_REQUIRED) and leads generation 1; "
          "DescribeGroups shows its instance id", api="JoinGroup", versions=(5, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", instance_id="i1"))
    k.sync(ctx, c, g, r["GenerationId"], r["MemberId"], [(r["MemberId"], b"\x00\x01a")],
           instance_id="i1")
    k.describe(ctx, c, g)
    k.heartbeat(ctx, c, g, r["GenerationId"], r["MemberId"], instance_id="i1")


@scenario("classic.static.replace_follower",
          "A static follower rejoining with an empty member id replaces its old member id in "
          "a Stable group without a rebalance; the old id is fenced (FENCED_INSTANCE_ID on "
          "Heartbeat, SyncGroup, JoinGroup)", api="JoinGroup", versions=(5, None),
          restartable=True)
def _(ctx):
    a, b, b2 = ctx.client("a"), ctx.client("b"), ctx.client("b2")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    ctx.restart_point()
    r = b2.call("JoinGroup", v, k.join_body(v, g, "", instance_id="ib"))
    nid = r["MemberId"]
    ctx.note("the new member id differs from the old", nid != bid)
    k.describe(ctx, a, g)
    k.heartbeat(ctx, b, g, gen, bid, instance_id="ib")
    k.sync(ctx, b, g, gen, bid, instance_id="ib")
    b.call("JoinGroup", v, k.join_body(v, g, bid, instance_id="ib"))
    ctx.restart_point()
    k.heartbeat(ctx, b2, g, r["GenerationId"], nid, instance_id="ib")
    k.sync(ctx, b2, g, r["GenerationId"], nid, instance_id="ib")
    k.heartbeat(ctx, a, g, gen, aid, instance_id="ia")
    k.describe(ctx, a, g)


@scenario("classic.static.replace_leader_skip_assignment",
          "KIP-814: a static leader rejoining with an empty member id in a Stable group gets "
          "the current generation, the member list and SkipAssignment (v9); below v9 Kafka's "
          "answer for the old-version leader", api="JoinGroup", versions=(5, None), restartable=True)
def _(ctx):
    a, a2, b = ctx.client("a"), ctx.client("a2"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    ctx.restart_point()
    r = a2.call("JoinGroup", v, k.join_body(v, g, "", instance_id="ia"))
    k.describe(ctx, a2, g)
    k.heartbeat(ctx, b, g, gen, bid, instance_id="ib")
    k.heartbeat(ctx, a, g, gen, aid, instance_id="ia")
    k.heartbeat(ctx, a2, g, r["GenerationId"], r["MemberId"], instance_id="ia")


@scenario("classic.static.replace_changed_protocols",
          "A static follower rejoining with an empty member id and different subscription "
          "metadata (same selected protocol) in a Stable group replaces its old id without a "
          "rebalance; DescribeGroups shows the new metadata", api="JoinGroup",
          versions=(5, None))
def _(ctx):
    a, b, b2 = ctx.client("a"), ctx.client("b"), ctx.client("b2")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    sub = [("range", h.subscription_v0(["t", "u"])), ("roundrobin", h.subscription_v0(["t"]))]
    r = b2.call("JoinGroup", v, k.join_body(v, g, "", sub, instance_id="ib"))
    k.describe(ctx, a, g)
    k.heartbeat(ctx, a, g, gen, aid, instance_id="ia")
    k.sync(ctx, b2, g, r["GenerationId"], r["MemberId"], instance_id="ib")


@scenario("classic.static.unknown_member_id_with_instance",
          "JoinGroup with a known group.instance.id and a member id that is not the instance's: "
          "FENCED_INSTANCE_ID", api="JoinGroup", versions=(5, None), restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    k.stable_member(ctx, c, g, ctx.version, instance_id="i1")
    ctx.restart_point()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "someone-else", instance_id="i1"))
    k.describe(ctx, c, g)


@scenario("classic.static.unknown_instance_with_member_id",
          "JoinGroup with an unknown group.instance.id and a made-up member id: "
          "UNKNOWN_MEMBER_ID", api="JoinGroup", versions=(5, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    k.stable_member(ctx, c, g, ctx.version, instance_id="i1")
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "someone-else", instance_id="i2"))


@scenario("classic.static.rejoin_known_id",
          "A static member rejoining with its own member id and unchanged metadata in a Stable "
          "group: the follower gets the current generation, the leader starts a rebalance",
          api="JoinGroup", versions=(5, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    b.call("JoinGroup", v, k.join_body(v, g, bid, instance_id="ib"))
    hj = a.send("JoinGroup", v, k.join_body(v, g, aid, instance_id="ia"))
    k.await_state(ctx, b, g, "PreparingRebalance")
    b.call("JoinGroup", v, k.join_body(v, g, bid, instance_id="ib"))
    a.wait(hj)
    k.describe(ctx, a, g)


@scenario("classic.static.leave_batch",
          "LeaveGroup v3+ of static members by instance id: a matching member id leaves, an "
          "empty member id leaves by instance, a wrong member id is FENCED_INSTANCE_ID, an "
          "unknown instance UNKNOWN_MEMBER_ID, per member", api="LeaveGroup", versions=(3, None), restartable=True)
def _(ctx):
    cs = [ctx.client("m%d" % i) for i in range(3)]
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, cs[0], cs[1], g, a_instance="ia", b_instance="ib")
    ctx.restart_point()
    k.leave(ctx, cs[2], g, [("wrong-id", "ia"), ("", "nobody")], v=ctx.version)
    k.describe(ctx, cs[2], g)
    k.leave(ctx, cs[2], g, [(aid, "ia", "shutting down"), ("", "ib")], v=ctx.version)
    k.describe(ctx, cs[2], g)


@scenario("classic.static.leave_then_rejoin",
          "A static member that left by LeaveGroup rejoins with its instance id: a new member "
          "id and a rebalance to a new generation", api="JoinGroup", versions=(5, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    k.leave(ctx, b, g, [(bid, "ib")])
    k.describe(ctx, a, g)
    hj = b.send("JoinGroup", v, k.join_body(v, g, "", instance_id="ib"))
    k.await_members(ctx, a, g, 2)
    k.heartbeat(ctx, a, g, gen, aid, instance_id="ia")
    a.call("JoinGroup", v, k.join_body(v, g, aid, instance_id="ia"))
    b.wait(hj)
    k.describe(ctx, a, g)


@scenario("classic.static.fenced_leave_single",
          "LeaveGroup of a static member through its old, replaced member id (v3+, by member "
          "id and instance id): FENCED_INSTANCE_ID for that member, the new member stays",
          api="LeaveGroup", versions=(3, None))
def _(ctx):
    a, a2 = ctx.client("a"), ctx.client("a2")
    g = ctx.group()
    aid, gen = k.stable_member(ctx, a, g, instance_id="ia")
    a2.call("JoinGroup", k.top(ctx, "JoinGroup"),
            k.join_body(k.top(ctx, "JoinGroup"), g, "", instance_id="ia"))
    k.leave(ctx, a, g, [(aid, "ia")], v=ctx.version)
    k.describe(ctx, a, g)


@scenario("classic.static.sync_heartbeat_instance_mismatch",
          "SyncGroup and Heartbeat v3+ from a dynamic member naming a group.instance.id, and "
          "from a static member naming another one", api="Heartbeat", versions=(3, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, gen = k.stable_member(ctx, a, g, instance_id="ia")
    k.heartbeat(ctx, a, g, gen, aid, v=ctx.version, instance_id="ib")
    k.heartbeat(ctx, a, g, gen, aid, v=ctx.version, instance_id=None)
    k.sync(ctx, a, g, gen, aid, instance_id="ib")
    g2 = ctx.group("dyn")
    did, gen2 = k.stable_member(ctx, b, g2)
    k.heartbeat(ctx, b, g2, gen2, did, v=ctx.version, instance_id="ix")
