# SPDX-License-Identifier: Apache-2.0
"""Classic groups: DescribeGroups states at every version, static-member
replacement in the middle of a rebalance, leader and follower corner cases."""

from conformance import scenario
import helpers as h
import h_classic as k


@scenario("classic.describe.states_all_versions",
          "DescribeGroups at every version of a classic group through its states: unknown, "
          "CompletingRebalance, Stable (metadata and assignment shown), PreparingRebalance, "
          "Empty after the last member left; an empty group id", api="DescribeGroups")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    k.describe(ctx, a, g, version=v)
    r = k.join(ctx, a, g)
    aid, gen = r["MemberId"], r["GenerationId"]
    k.describe(ctx, a, g, version=v)
    k.sync(ctx, a, g, gen, aid, [(aid, b"\x00\x01a")])
    k.describe(ctx, a, g, version=v)
    bid = k.new_member_id(ctx, b, g)
    hj = k.send_join(ctx, b, g, bid)
    k.await_state(ctx, a, g, "PreparingRebalance")
    k.describe(ctx, a, g, version=v)
    a.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, aid))
    rb = b.wait(hj)
    k.leave(ctx, a, g, [(aid, None), (rb["MemberId"], None)])
    k.describe(ctx, a, g, version=v)
    k.describe(ctx, a, "", version=v)


@scenario("classic.static.replace_during_rebalance",
          "A static follower replaced (empty member id, same instance) while the leader's "
          "rejoin holds the group in PreparingRebalance: the new member id joins the "
          "generation, the old one is fenced", api="JoinGroup", versions=(5, None), restartable=True)
def _(ctx):
    a, b, b2 = ctx.client("a"), ctx.client("b"), ctx.client("b2")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    ctx.restart_point()
    hj = a.send("JoinGroup", v, k.join_body(v, g, aid, instance_id="ia"))
    k.await_state(ctx, b, g, "PreparingRebalance")
    r = b2.call("JoinGroup", v, k.join_body(v, g, "", instance_id="ib"))
    a.wait(hj)
    k.heartbeat(ctx, b, g, gen, bid, instance_id="ib")
    k.describe(ctx, a, g)


@scenario("classic.static.replace_awaiting_join",
          "A static follower whose JoinGroup is waiting in a rebalance is replaced by a new "
          "member id for its instance: the waiting JoinGroup is answered FENCED_INSTANCE_ID, "
          "the rebalance completes with the new id", api="JoinGroup", versions=(5, None))
def _(ctx):
    a, b, b2 = ctx.client("a"), ctx.client("b"), ctx.client("b2")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib")
    sub = [("range", h.subscription_v0(["t", "u"]))]
    hb = b.send("JoinGroup", v, k.join_body(v, g, bid, sub, instance_id="ib"))
    k.await_state(ctx, a, g, "PreparingRebalance")
    hb2 = b2.send("JoinGroup", v, k.join_body(v, g, "", instance_id="ib"))
    b.wait(hb)
    k.heartbeat(ctx, a, g, gen, aid, instance_id="ia")
    a.call("JoinGroup", v, k.join_body(v, g, aid, instance_id="ia"))
    b2.wait(hb2)
    k.describe(ctx, a, g)


@scenario("classic.static.replace_awaiting_sync",
          "A static follower whose SyncGroup waits for the leader is replaced by a new member "
          "id for its instance: the waiting SyncGroup is answered FENCED_INSTANCE_ID; what the "
          "leader's SyncGroup and the new member then see", api="SyncGroup", versions=(3, None))
def _(ctx):
    a, b, b2 = ctx.client("a"), ctx.client("b"), ctx.client("b2")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g, instance_id="ia")
    ra, rb = k.add_second_member(ctx, a, b, g, aid, a_instance="ia", b_instance="ib")
    gen, bid = ra["GenerationId"], rb["MemberId"]
    hs = k.send_sync(ctx, b, g, gen, bid, v=v, instance_id="ib")
    k.heartbeat(ctx, a, g, gen, aid, instance_id="ia")
    r2 = b2.call("JoinGroup", k.top(ctx, "JoinGroup"),
                 k.join_body(k.top(ctx, "JoinGroup"), g, "", instance_id="ib"))
    b.wait(hs)
    k.describe(ctx, a, g)
    k.sync(ctx, a, g, gen, aid, [(aid, b"a"), (bid, b"b")], v=v, instance_id="ia")
    k.describe(ctx, a, g)
    k.heartbeat(ctx, b2, g, r2["GenerationId"], r2["MemberId"], instance_id="ib")


@scenario("classic.static.leave_old_versions",
          "LeaveGroup v0-2 naming a static member by its member id: it leaves like a dynamic "
          "member", api="LeaveGroup", versions=(None, 2))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, instance_id="i1")
    k.leave(ctx, c, g, [(mid, None)], v=ctx.version)
    k.describe(ctx, c, g)


@scenario("classic.static.unusual_instance_ids",
          "JoinGroup v5+ with an empty or slash-containing group.instance.id: the broker takes "
          "it as given (only clients validate it)", api="JoinGroup", versions=(5, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    k.stable_member(ctx, c, g, ctx.version, instance_id="")
    k.describe(ctx, c, g)
    g2 = ctx.group("slash")
    k.stable_member(ctx, c, g2, ctx.version, instance_id="a/b c")
    k.describe(ctx, c, g2)


@scenario("classic.sync.assignment_extras",
          "The leader's SyncGroup names an unknown member and one member twice: what each "
          "member then receives", api="SyncGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g)
    ra, rb = k.add_second_member(ctx, a, b, g, aid)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    k.sync(ctx, a, g, gen, aid, [(aid, b"first"), ("nobody", b"x"), (bid, b"b"), (aid, b"second")],
           v=v)
    k.sync(ctx, b, g, gen, bid, v=v)
    k.describe(ctx, a, g)


@scenario("classic.join.unparseable_metadata",
          "JoinGroup of consumer-protocol members whose metadata is not a valid "
          "ConsumerProtocolSubscription: accepted, the bytes kept and shown as given",
          api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    k.stable_member(ctx, c, g, ctx.version, protocols=[("range", b"\xff\x01garbage")])
    k.describe(ctx, c, g)
    g2 = ctx.group("empty")
    k.stable_member(ctx, c, g2, ctx.version, protocols=[("range", b"")])
    k.describe(ctx, c, g2)


@scenario("classic.join.validation_order",
          "JoinGroup with an empty group id and an invalid session timeout: INVALID_GROUP_ID "
          "comes first; the error answers echo the member id", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, "", "m-1", session=1))
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, ctx.group(), "m-1", session=1))
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, ctx.group(), "m-1",
                                                 protocol_type=""))


@scenario("classic.sync.after_session_expiry",
          "SyncGroup and JoinGroup of a member whose session (1000 ms) expired in a Stable "
          "group: UNKNOWN_MEMBER_ID", api="SyncGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, session=1000)
    k.await_state(ctx, c, g, "Empty")
    k.sync(ctx, c, g, gen, mid, v=ctx.version)
    c.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, mid))
    k.describe(ctx, c, g)


@scenario("classic.leave.during_completing_rebalance",
          "A follower leaves after the join completed but before the leader's SyncGroup: a "
          "new rebalance starts and the leader's SyncGroup gets REBALANCE_IN_PROGRESS",
          api="LeaveGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, _ = k.stable_member(ctx, a, g)
    ra, rb = k.add_second_member(ctx, a, b, g, aid)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    k.leave(ctx, b, g, [(bid, None)], v=ctx.version)
    k.sync(ctx, a, g, gen, aid, [(aid, b"a"), (bid, b"b")])
    k.describe(ctx, a, g)


@scenario("classic.join.rejoin_completing_rebalance",
          "During CompletingRebalance: the follower rejoining with the same metadata gets the "
          "generation again; the leader rejoining with changed metadata starts a rebalance and "
          "the follower's waiting SyncGroup gets REBALANCE_IN_PROGRESS", api="JoinGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g, v)
    ra, rb = k.add_second_member(ctx, a, b, g, aid, v)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    b.call("JoinGroup", v, k.join_body(v, g, bid))
    hs = k.send_sync(ctx, b, g, gen, bid)
    hj = a.send("JoinGroup", v, k.join_body(v, g, aid, [("range", h.subscription_v0(["t", "u"]))]))
    b.wait(hs)
    b.call("JoinGroup", v, k.join_body(v, g, bid))
    a.wait(hj)
    k.describe(ctx, a, g)


@scenario("classic.timer.session_expiry_during_rebalance",
          "The leader rejoins while the follower (SessionTimeoutMs 1000) stays silent: the "
          "follower's session expires and the leader's waiting JoinGroup completes the next "
          "generation alone", api="JoinGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g, v)
    bid = k.new_member_id(ctx, b, g, v, session=1000) if v >= 4 else ""
    hb = b.send("JoinGroup", v, k.join_body(v, g, bid, session=1000))
    k.await_state(ctx, a, g, "PreparingRebalance")
    ra = a.call("JoinGroup", v, k.join_body(v, g, aid))
    b.wait(hb)
    gen = ra["GenerationId"]
    k.sync(ctx, a, g, gen, aid, [(aid, b"a")])
    hj = a.send("JoinGroup", v, k.join_body(v, g, aid, [("range", h.subscription_v0(["u"]))]))
    a.wait(hj)
    k.describe(ctx, a, g)


@scenario("classic.timer.rebalance_timeout_static",
          "A static follower that does not rejoin within the rebalance timeout (3000 ms) is "
          "removed like a dynamic one; its instance id can then join again as a new member",
          api="JoinGroup", versions=(5, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, a_instance="ia", b_instance="ib",
                                       rebalance=3000)
    hj = a.send("JoinGroup", v, k.join_body(v, g, aid, instance_id="ia", rebalance=3000))
    a.wait(hj)
    k.describe(ctx, a, g)
    k.heartbeat(ctx, b, g, gen, bid, instance_id="ib")
    hb = b.send("JoinGroup", v, k.join_body(v, g, bid, instance_id="ib", rebalance=3000))
    b.wait(hb)


@scenario("classic.timer.session_expiry_static",
          "A static member whose session (1000 ms) expires is removed: the group becomes "
          "Empty, and the instance id rejoining gets a new member id", api="JoinGroup",
          versions=(5, None), restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, ctx.version, instance_id="i1", session=1000)
    ctx.restart_point()
    k.await_state(ctx, c, g, "Empty")
    k.describe(ctx, c, g)
    k.heartbeat(ctx, c, g, gen, mid, instance_id="i1")
    r = c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", instance_id="i1"))
    ctx.note("a new member id", r["MemberId"] != mid)


@scenario("classic.join.pending_member_sync_heartbeat",
          "JoinGroup v4+: a member id handed out by MEMBER_ID_REQUIRED but not yet joined "
          "with is unknown to Heartbeat and SyncGroup", api="JoinGroup", versions=(4, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, gen = k.stable_member(ctx, a, g)
    pid = k.new_member_id(ctx, b, g, ctx.version)
    k.heartbeat(ctx, b, g, gen, pid)
    k.sync(ctx, b, g, gen, pid)
    k.describe(ctx, a, g)


@scenario("classic.join.empty_group_takes_new_protocol_type",
          "A group left Empty accepts a member of another protocol type and protocol; the "
          "group's protocol type changes", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, ctx.version)
    k.leave(ctx, c, g, [(mid, None)])
    v = ctx.version
    body = k.join_body(v, g, "", [("mine", b"\x01\x02")], protocol_type="connect")
    r = c.call("JoinGroup", v, body)
    if r["ErrorCode"] == 79:
        body["MemberId"] = r["MemberId"]
        r = c.call("JoinGroup", v, body)
    k.sync(ctx, c, g, r["GenerationId"], r["MemberId"], [(r["MemberId"], b"x")],
           protocol_type="connect", protocol_name="mine")
    k.describe(ctx, c, g)


@scenario("classic.join.new_member_during_completing_rebalance",
          "A new member joining while the group waits for the leader's SyncGroup starts a new "
          "rebalance: the follower's waiting SyncGroup gets REBALANCE_IN_PROGRESS",
          api="JoinGroup")
def _(ctx):
    a, b, c = ctx.client("a"), ctx.client("b"), ctx.client("c")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g, v)
    ra, rb = k.add_second_member(ctx, a, b, g, aid, v)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    hs = k.send_sync(ctx, b, g, gen, bid)
    cid = k.new_member_id(ctx, c, g, v) if v >= 4 else ""
    hc = k.send_join(ctx, c, g, cid, v)
    b.wait(hs)
    k.describe(ctx, a, g)
    k.heartbeat(ctx, a, g, gen, aid)
    hb = b.send("JoinGroup", v, k.join_body(v, g, bid))
    a.call("JoinGroup", v, k.join_body(v, g, aid))
    b.wait(hb)
    c.wait(hc)
