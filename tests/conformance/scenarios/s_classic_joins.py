# SPDX-License-Identifier: Apache-2.0
"""Classic JoinGroup: new and old member-id paths, validation, protocol
selection, rejoins, group states."""

from conformance import scenario
import helpers as h
import h_classic as k


@scenario("classic.join.old_version_new_member",
          "JoinGroup below v4: a new member with an empty member id is given its id and "
          "joins at once as leader of generation 1; SyncGroup makes the group Stable",
          api="JoinGroup", versions=(None, 3))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, ""))
    k.describe(ctx, c, g)
    k.sync(ctx, c, g, r["GenerationId"], r["MemberId"], [(r["MemberId"], b"\x00\x01a")])
    k.describe(ctx, c, g)


@scenario("classic.join.states_through_describe",
          "DescribeGroups after each step of a two-member classic group: Empty (unknown), "
          "CompletingRebalance after the join, Stable after sync, PreparingRebalance while a "
          "second member waits, CompletingRebalance and Stable at generation 2",
          api="JoinGroup", restartable=True)
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    k.describe(ctx, a, g)
    r = k.join(ctx, a, g, ctx.version)
    aid = r["MemberId"]
    k.describe(ctx, a, g)
    k.sync(ctx, a, g, r["GenerationId"], aid, [(aid, b"\x00\x01a")])
    k.describe(ctx, a, g)
    ctx.restart_point()
    k.heartbeat(ctx, a, g, r["GenerationId"], aid)
    k.describe(ctx, a, g)
    bid = ""
    if ctx.version >= 4:
        bid = k.new_member_id(ctx, b, g, ctx.version)
    hb = k.send_join(ctx, b, g, bid, ctx.version)
    k.await_state(ctx, a, g, "PreparingRebalance")
    k.describe(ctx, a, g)
    k.heartbeat(ctx, a, g, r["GenerationId"], aid)
    ra = a.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, aid))
    rb = b.wait(hb)
    k.describe(ctx, a, g)
    gen = ra["GenerationId"]
    hs = k.send_sync(ctx, b, g, gen, rb["MemberId"])
    k.sync(ctx, a, g, gen, aid, [(aid, b"\x00\x01a"), (rb["MemberId"], b"\x00\x01b")])
    b.wait(hs)
    k.describe(ctx, a, g)
    ctx.restart_point()
    k.heartbeat(ctx, a, g, gen, aid)
    k.heartbeat(ctx, b, g, gen, rb["MemberId"])
    k.describe(ctx, a, g)


@scenario("classic.join.unknown_member_new_group",
          "JoinGroup with a member id the coordinator never gave, to a group that does not "
          "exist: UNKNOWN_MEMBER_ID", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "not-a-member"))
    k.describe(ctx, c, g)


@scenario("classic.join.unknown_member_existing_group",
          "JoinGroup with an unknown member id to a Stable group: UNKNOWN_MEMBER_ID, the "
          "group unchanged", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    k.stable_member(ctx, c, g, ctx.version)
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "not-a-member"))
    k.describe(ctx, c, g)


@scenario("classic.join.session_timeout_below_min",
          "JoinGroup with a session timeout below group.min.session.timeout.ms (999 < 1000): "
          "INVALID_SESSION_TIMEOUT", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", session=999))
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", session=-1))
    k.describe(ctx, c, g)


@scenario("classic.join.session_timeout_above_max",
          "JoinGroup with a session timeout above group.max.session.timeout.ms: "
          "INVALID_SESSION_TIMEOUT; exactly the bounds are accepted", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", session=1800001))
    k.join(ctx, c, g, ctx.version, session=1800000)
    k.join(ctx, ctx.client(), ctx.group("min"), ctx.version, session=1000)


@scenario("classic.join.invalid_group_id",
          "JoinGroup with an empty group id: INVALID_GROUP_ID, for a new and for a "
          "known-looking member id", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, "", ""))
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, "", "some-member"))


@scenario("classic.join.empty_protocol_type",
          "JoinGroup of a first member with an empty protocol type or an empty protocol "
          "list: INCONSISTENT_GROUP_PROTOCOL, no group is created", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", protocol_type=""))
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", protocols=[]))
    k.describe(ctx, c, g)


@scenario("classic.join.protocol_type_mismatch",
          "JoinGroup of a new member whose protocol type differs from the group's: "
          "INCONSISTENT_GROUP_PROTOCOL", api="JoinGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    k.stable_member(ctx, a, g, ctx.version)
    b.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", protocol_type="connect"))
    k.describe(ctx, a, g)


@scenario("classic.join.no_common_protocol",
          "JoinGroup of a new member sharing no protocol with the group's members "
          "(roundrobin vs range): INCONSISTENT_GROUP_PROTOCOL", api="JoinGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    k.stable_member(ctx, a, g, ctx.version)
    b.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, "", protocols=k.RR))
    k.describe(ctx, a, g)


@scenario("classic.join.protocol_selection_votes",
          "Protocol selection over three members with different preference lists: only "
          "protocols all support are candidates and the most voted first choice wins "
          "(the leader's JoinGroup lists every member's metadata for it)",
          api="JoinGroup", versions=(4, None))
def _(ctx):
    a, b, c = ctx.client("a"), ctx.client("b"), ctx.client("c")
    g = ctx.group()
    v = ctx.version
    sub = h.subscription_v0(["t"])
    pa = [("range", sub), ("roundrobin", sub), ("sticky", sub)]
    pb = [("roundrobin", sub), ("range", sub)]
    pc = [("sticky", sub), ("roundrobin", sub), ("range", sub)]
    aid, gen = k.stable_member(ctx, a, g, v, protocols=pa)
    bid = k.new_member_id(ctx, b, g, v, pb)
    cid = k.new_member_id(ctx, c, g, v, pc)
    hb = k.send_join(ctx, b, g, bid, v, pb)
    k.await_state(ctx, a, g, "PreparingRebalance")
    hc = k.send_join(ctx, c, g, cid, v, pc)
    k.await_members(ctx, a, g, 3)
    a.call("JoinGroup", v, k.join_body(v, g, aid, pa))
    b.wait(hb)
    c.wait(hc)
    k.describe(ctx, a, g)


@scenario("classic.join.protocol_selection_tie",
          "Protocol selection when two members vote for different protocols (range vs "
          "roundrobin, one vote each): the tie is broken as Kafka breaks it",
          api="JoinGroup", versions=(4, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    sub = h.subscription_v0(["t"])
    pa = [("range", sub), ("roundrobin", sub)]
    pb = [("roundrobin", sub), ("range", sub)]
    aid, gen = k.stable_member(ctx, a, g, v, protocols=pa)
    bid = k.new_member_id(ctx, b, g, v, pb)
    hb = k.send_join(ctx, b, g, bid, v, pb)
    k.await_state(ctx, a, g, "PreparingRebalance")
    a.call("JoinGroup", v, k.join_body(v, g, aid, pa))
    b.wait(hb)
    k.describe(ctx, a, g)


@scenario("classic.join.follower_rejoin_same_metadata",
          "A follower of a Stable group rejoining with unchanged protocols gets the current "
          "generation back at once, no rebalance; the leader rejoining starts one",
          api="JoinGroup", restartable=True)
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g, ctx.version)
    ctx.restart_point()
    b.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, bid))
    k.describe(ctx, a, g)
    hj = a.send("JoinGroup", ctx.version, k.join_body(ctx.version, g, aid))
    k.await_state(ctx, b, g, "PreparingRebalance")
    k.heartbeat(ctx, b, g, gen, bid)
    b.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, bid))
    a.wait(hj)


@scenario("classic.join.follower_rejoin_changed_metadata",
          "A follower of a Stable group rejoining with changed subscription metadata starts "
          "a rebalance; the leader sees the new metadata in generation 3",
          api="JoinGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g, ctx.version)
    hj = b.send("JoinGroup", ctx.version, k.join_body(
        ctx.version, g, bid, [("range", h.subscription_v0(["t", "u"]))]))
    k.await_state(ctx, a, g, "PreparingRebalance")
    k.heartbeat(ctx, a, g, gen, aid)
    a.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, aid))
    b.wait(hj)
    k.describe(ctx, a, g)


@scenario("classic.join.pending_member_joins_twice",
          "JoinGroup v4+: two MEMBER_ID_REQUIRED rounds give two distinct member ids; "
          "joining with the second makes it the leader, the first stays pending",
          api="JoinGroup", versions=(4, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, ""))
    r2 = c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, ""))
    c.call("JoinGroup", ctx.version, k.join_body(ctx.version, g, r2["MemberId"]))
    k.describe(ctx, c, g)


@scenario("classic.join.reason",
          "JoinGroup v8+ with a Reason: accepted, answered as without one",
          api="JoinGroup", versions=(8, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    k.join(ctx, c, g, ctx.version, reason="rebalance needed: metadata changed")
    k.describe(ctx, c, g)


@scenario("classic.join.empty_group_rejoin_after_leave",
          "A group whose only member left is Empty; a new member joining it starts "
          "generation 2 (the generation is kept)", api="JoinGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, ctx.version)
    k.leave(ctx, c, g, [(mid, None)])
    k.describe(ctx, c, g)
    k.join(ctx, c, g, ctx.version)
    k.describe(ctx, c, g)


@scenario("classic.join.group_max_size",
          "group.max.size=3: a new member joining a CompletingRebalance or Stable group of "
          "three gets GROUP_MAX_SIZE_REACHED; during a rebalance new members are accepted "
          "while fewer than three are awaiting the join, then a fourth new member and "
          "rejoining old members are refused (and removed), and the rebalance completes "
          "with the three awaiting ones (rebalance timeout 5000 ms)",
          api="JoinGroup", profile="limits")
def _(ctx):
    cs = [ctx.client("m%d" % i) for i in range(6)]
    g = ctx.group()
    v = ctx.version
    rt = 5000
    aid, gen = k.stable_member(ctx, cs[0], g, v, rebalance=rt)
    ids = [k.new_member_id(ctx, c, g, v, rebalance=rt) if v >= 4 else "" for c in cs[1:3]]
    h1 = k.send_join(ctx, cs[1], g, ids[0], v, rebalance=rt)
    k.await_state(ctx, cs[0], g, "PreparingRebalance")
    h2 = k.send_join(ctx, cs[2], g, ids[1], v, rebalance=rt)
    k.await_members(ctx, cs[0], g, 3)
    r0 = cs[0].call("JoinGroup", v, k.join_body(v, g, aid, rebalance=rt))
    r1, r2 = cs[1].wait(h1), cs[2].wait(h2)
    gen = r0["GenerationId"]
    m1, m2 = r1["MemberId"], r2["MemberId"]
    cs[3].call("JoinGroup", v, k.join_body(v, g, "", rebalance=rt))
    k.describe(ctx, cs[0], g)
    s1 = k.send_sync(ctx, cs[1], g, gen, m1)
    s2 = k.send_sync(ctx, cs[2], g, gen, m2)
    k.sync(ctx, cs[0], g, gen, aid, [(aid, b"a"), (m1, b"b"), (m2, b"c")])
    cs[1].wait(s1)
    cs[2].wait(s2)
    cs[3].call("JoinGroup", v, k.join_body(v, g, "", rebalance=rt))
    # The leader rejoins: one member awaiting; two new members fill the group.
    h0 = k.send_join(ctx, cs[0], g, aid, v, rebalance=rt)
    k.await_state(ctx, cs[1], g, "PreparingRebalance")
    hs = []
    for n, c in enumerate(cs[3:5]):
        mid = k.new_member_id(ctx, c, g, v, rebalance=rt) if v >= 4 else ""
        hs.append(k.send_join(ctx, c, g, mid, v, rebalance=rt))
        k.await_members(ctx, cs[1], g, 4 + n)
    cs[5].call("JoinGroup", v, k.join_body(v, g, "", rebalance=rt))
    cs[1].call("JoinGroup", v, k.join_body(v, g, m1, rebalance=rt))
    cs[2].call("JoinGroup", v, k.join_body(v, g, m2, rebalance=rt))
    cs[0].wait(h0)
    for c, hd in zip(cs[3:5], hs):
        c.wait(hd)
    k.describe(ctx, cs[1], g)
