# SPDX-License-Identifier: Apache-2.0
"""Classic LeaveGroup (v0-2 one member, v3+ a batch) and the timer-driven
paths: session expiry, rebalance timeout, sync timeout."""

from conformance import scenario
import helpers as h
import h_classic as k


@scenario("classic.leave.single_member",
          "LeaveGroup of a group's only member: no error, the group becomes Empty with its "
          "generation kept", api="LeaveGroup", restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    ctx.restart_point()
    k.leave(ctx, c, g, [(mid, None, "closing")], v=ctx.version)
    k.describe(ctx, c, g)
    ctx.restart_point()
    k.describe(ctx, c, g)
    k.heartbeat(ctx, c, g, gen, mid)


@scenario("classic.leave.unknown_member",
          "LeaveGroup of an unknown member id of an existing group, of a group that does not "
          "exist, and with an empty group id", api="LeaveGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    k.leave(ctx, c, g, [("nobody", None)], v=ctx.version)
    k.leave(ctx, c, ctx.group("missing"), [("nobody", None)], v=ctx.version)
    k.leave(ctx, c, "", [("nobody", None)], v=ctx.version)
    k.describe(ctx, c, g)


@scenario("classic.leave.follower_triggers_rebalance",
          "A follower's LeaveGroup starts a rebalance: the leader's heartbeat sees "
          "REBALANCE_IN_PROGRESS and its rejoin forms the next generation alone",
          api="LeaveGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g)
    k.leave(ctx, b, g, [(bid, None)], v=ctx.version)
    k.describe(ctx, a, g)
    k.heartbeat(ctx, a, g, gen, aid)
    a.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, aid))
    k.describe(ctx, a, g)


@scenario("classic.leave.leader_while_follower_waits",
          "The leader leaves while a rebalance waits for it: the joined follower completes "
          "the generation as its new leader", api="LeaveGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g)
    hj = b.send("JoinGroup", k.top(ctx, "JoinGroup"),
                k.join_body(k.top(ctx, "JoinGroup"), g, bid, [("range", h.subscription_v0(["t", "u"]))]))
    k.await_state(ctx, a, g, "PreparingRebalance")
    k.leave(ctx, a, g, [(aid, None)], v=ctx.version)
    b.wait(hj)
    k.describe(ctx, a, g)


@scenario("classic.leave.batch",
          "LeaveGroup v3+ with several members: each known member leaves, an unknown one gets "
          "UNKNOWN_MEMBER_ID in its entry, the top-level error stays NONE", api="LeaveGroup",
          versions=(3, None), restartable=True)
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g)
    ctx.restart_point()
    k.leave(ctx, a, g, [(aid, None, "r1"), ("nobody", None), (bid, None)], v=ctx.version)
    k.describe(ctx, a, g)
    k.leave(ctx, a, g, [(aid, None)], v=ctx.version)


@scenario("classic.leave.empty_batch_and_duplicates",
          "LeaveGroup v3+ with no members, and naming the same member twice", api="LeaveGroup",
          versions=(3, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    c.call("LeaveGroup", ctx.version, {"GroupId": g, "Members": []})
    k.leave(ctx, c, g, [(mid, None), (mid, None)], v=ctx.version)
    k.describe(ctx, c, g)


@scenario("classic.leave.pending_member",
          "LeaveGroup v3+ of a member id handed out by MEMBER_ID_REQUIRED but never joined "
          "with: no error, and that id can no longer join", api="LeaveGroup", versions=(3, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, gen = k.stable_member(ctx, a, g)
    pid = k.new_member_id(ctx, b, g)
    k.leave(ctx, b, g, [(pid, None)], v=ctx.version)
    b.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, pid))
    k.describe(ctx, a, g)


@scenario("classic.timer.session_expiry_last_member",
          "The only member of a group stops heartbeating (SessionTimeoutMs 1000): it is "
          "removed and the group becomes Empty; its heartbeat then gets UNKNOWN_MEMBER_ID",
          api="JoinGroup", restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, ctx.version, session=1000)
    ctx.restart_point()
    k.await_state(ctx, c, g, "Empty")
    k.describe(ctx, c, g)
    k.heartbeat(ctx, c, g, gen, mid)


@scenario("classic.timer.session_expiry_follower",
          "A follower with a 1000 ms session stops heartbeating: it is removed, the leader's "
          "heartbeat then gets REBALANCE_IN_PROGRESS and its rejoin makes the next generation",
          api="Heartbeat", restartable=True)
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = k.top(ctx, "JoinGroup")
    aid, gen = k.stable_member(ctx, a, g)
    bid = k.new_member_id(ctx, b, g, session=1000) if v >= 4 else ""
    hj = b.send("JoinGroup", v, k.join_body(v, g, bid, session=1000))
    k.await_state(ctx, a, g, "PreparingRebalance")
    ra = a.call("JoinGroup", v, k.join_body(v, g, aid))
    rb = b.wait(hj)
    gen2 = ra["GenerationId"]
    k.sync(ctx, a, g, gen2, aid, [(aid, b"a"), (rb["MemberId"], b"b")])
    k.sync(ctx, b, g, gen2, rb["MemberId"])
    ctx.restart_point()

    def expired():
        r = k.heartbeat(ctx, a, g, gen2, aid, v=ctx.version, record=False)
        return r["ErrorCode"] == 27
    ctx.wait_until(expired, "the follower's session to expire")
    k.heartbeat(ctx, a, g, gen2, aid, v=ctx.version)
    k.describe(ctx, a, g)
    a.call("JoinGroup", v, k.join_body(v, g, aid))
    k.heartbeat(ctx, b, g, gen2, rb["MemberId"], v=ctx.version)


@scenario("classic.timer.rebalance_timeout",
          "A member that does not rejoin within the rebalance timeout (3000 ms) is removed: "
          "the waiting leader's JoinGroup completes without it", api="JoinGroup", restartable=True)
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, rebalance=3000)
    ctx.restart_point()
    hj = a.send("JoinGroup", v, k.join_body(v, g, aid, rebalance=3000))
    a.wait(hj)
    k.describe(ctx, a, g)
    k.heartbeat(ctx, b, g, gen, bid)


@scenario("classic.timer.sync_timeout",
          "The leader does not send SyncGroup within the rebalance timeout (3000 ms): the "
          "follower's waiting SyncGroup gets REBALANCE_IN_PROGRESS and the leader is removed",
          api="SyncGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = k.top(ctx, "JoinGroup")
    aid, _ = k.stable_member(ctx, a, g, rebalance=3000)
    ra, rb = k.add_second_member(ctx, a, b, g, aid, rebalance=3000)
    hs = k.send_sync(ctx, b, g, ra["GenerationId"], rb["MemberId"], v=ctx.version)
    b.wait(hs)
    k.describe(ctx, b, g)
    k.heartbeat(ctx, a, g, ra["GenerationId"], aid)
