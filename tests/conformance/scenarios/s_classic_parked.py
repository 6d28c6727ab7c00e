# SPDX-License-Identifier: Apache-2.0
"""Classic groups: requests that meet a member's parked JoinGroup or
SyncGroup (a second connection of the same member, a LeaveGroup), and
protocol changes of existing members."""

from conformance import scenario
import helpers as h
import h_classic as k


@scenario("classic.parked.duplicate_join",
          "A member whose JoinGroup waits in a rebalance sends another JoinGroup on a second "
          "connection: the second is answered when the rebalance completes, the first not at all",
          api="JoinGroup")
def _(ctx):
    a, a2, b = ctx.client("a"), ctx.client("a2"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v)
    h1 = a.send("JoinGroup", v, k.join_body(v, g, aid))
    k.await_state(ctx, b, g, "PreparingRebalance")
    h2 = a2.send("JoinGroup", v, k.join_body(v, g, aid))
    k.heartbeat(ctx, a2, g, gen, aid)
    hb = b.send("JoinGroup", v, k.join_body(v, g, bid))
    a2.wait(h2)
    b.wait(hb)
    k.describe(ctx, b, g)
    # The first connection's JoinGroup is left unanswered once the second replaced it.
    ctx.note("the first JoinGroup answered", a.ready(h1, 1.0))


@scenario("classic.parked.leave_with_parked_join",
          "LeaveGroup of a member whose JoinGroup waits in a rebalance: the waiting JoinGroup "
          "is answered UNKNOWN_MEMBER_ID and the others complete the generation",
          api="LeaveGroup")
def _(ctx):
    a, b, b2 = ctx.client("a"), ctx.client("b"), ctx.client("b2")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g)
    hb = b.send("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(
        k.top(ctx, "JoinGroup"), g, bid, [("range", h.subscription_v0(["t", "u"]))]))
    k.await_state(ctx, a, g, "PreparingRebalance")
    k.leave(ctx, b2, g, [(bid, None)], v=ctx.version)
    b.wait(hb)
    a.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, aid))
    k.describe(ctx, a, g)


@scenario("classic.parked.leave_with_parked_sync",
          "LeaveGroup of a follower whose SyncGroup waits for the leader: a rebalance starts, "
          "the leader's SyncGroup gets REBALANCE_IN_PROGRESS", api="LeaveGroup")
def _(ctx):
    a, b, b2 = ctx.client("a"), ctx.client("b"), ctx.client("b2")
    g = ctx.group()
    aid, _ = k.stable_member(ctx, a, g)
    ra, rb = k.add_second_member(ctx, a, b, g, aid)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    hs = k.send_sync(ctx, b, g, gen, bid)
    k.heartbeat(ctx, a, g, gen, aid)
    k.leave(ctx, b2, g, [(bid, None)], v=ctx.version)
    k.sync(ctx, a, g, gen, aid, [(aid, b"a"), (bid, b"b")])
    k.describe(ctx, a, g)
    # Whether the waiting SyncGroup is answered depends, on Kafka, on which of
    # it and the LeaveGroup its request threads took first: not recorded.
    del hs


@scenario("classic.join.existing_member_changes_protocols",
          "The only member of a Stable group rejoining with protocols the group does not "
          "support (roundrobin for a range group), and with another protocol type",
          api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    v = ctx.version
    mid, gen = k.stable_member(ctx, c, g, v)
    c.call("JoinGroup", v, k.join_body(v, g, mid, k.RR))
    c.call("JoinGroup", v, k.join_body(v, g, mid, protocol_type="connect"))
    k.describe(ctx, c, g)
    c.call("JoinGroup", v, k.join_body(v, g, mid, k.RR + k.RANGE))
    k.describe(ctx, c, g)


@scenario("classic.describe.static_all_versions",
          "DescribeGroups at every version of a Stable group with a static and a dynamic "
          "member: GroupInstanceId from v4", api="DescribeGroups")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    k.two_member_group(ctx, a, b, g, a_instance="ia")
    k.describe(ctx, a, g, version=ctx.version)


@scenario("classic.static.replace_leader_awaiting_join",
          "A static leader whose JoinGroup waits in a rebalance is replaced by a new member id "
          "for its instance: the waiting JoinGroup gets FENCED_INSTANCE_ID and the new id leads "
          "the generation", api="JoinGroup", versions=(5, None))
def _(ctx):
    a, a2, b = ctx.client("a"), ctx.client("a2"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    ha = a.send("JoinGroup", v, k.join_body(v, g, aid, instance_id="ia"))
    k.await_state(ctx, b, g, "PreparingRebalance")
    ha2 = a2.send("JoinGroup", v, k.join_body(v, g, "", instance_id="ia"))
    a.wait(ha)
    k.heartbeat(ctx, b, g, gen, bid, instance_id="ib")
    b.call("JoinGroup", v, k.join_body(v, g, bid, instance_id="ib"))
    a2.wait(ha2)
    k.describe(ctx, b, g)


@scenario("classic.static.replace_leader_completing_rebalance",
          "A static leader replaced by a new member id while the group waits for its "
          "SyncGroup (CompletingRebalance): what the new member and the old leader see", api="JoinGroup", versions=(5, None))
def _(ctx):
    a, a2, b = ctx.client("a"), ctx.client("a2"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g, v, instance_id="ia")
    ra, rb = k.add_second_member(ctx, a, b, g, aid, v, a_instance="ia", b_instance="ib")
    gen, bid = ra["GenerationId"], rb["MemberId"]
    hs = k.send_sync(ctx, b, g, gen, bid, instance_id="ib")
    k.heartbeat(ctx, a, g, gen, aid, instance_id="ia")
    r = a2.call("JoinGroup", v, k.join_body(v, g, "", instance_id="ia"))
    k.describe(ctx, b, g)
    k.sync(ctx, a, g, gen, aid, [(aid, b"a"), (bid, b"b")], instance_id="ia")
    if r["ErrorCode"] == 0 and r["GenerationId"] == gen:
        k.sync(ctx, a2, g, gen, r["MemberId"], [(r["MemberId"], b"a"), (bid, b"b")],
               instance_id="ia")
    del hs  # answered or not as Kafka's request threads order it with the join
    k.describe(ctx, b, g)
