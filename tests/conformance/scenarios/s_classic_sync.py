# SPDX-License-Identifier: Apache-2.0
"""Classic SyncGroup and Heartbeat."""

from conformance import scenario
import h_classic as k


@scenario("classic.sync.follower_before_leader",
          "SyncGroup from a follower before the leader's waits; the leader's assignments "
          "answer both, each with its own bytes", api="SyncGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g)
    ra, rb = k.add_second_member(ctx, a, b, g, aid)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    hs = k.send_sync(ctx, b, g, gen, bid, v=v)
    k.await_state(ctx, a, g, "CompletingRebalance")
    k.sync(ctx, a, g, gen, aid, [(aid, b"\x00\x01leader"), (bid, b"\x00\x01follower")], v=v)
    b.wait(hs)
    k.describe(ctx, a, g)


@scenario("classic.sync.leader_omits_member",
          "The leader's SyncGroup assigns nothing to a follower: the follower gets an empty "
          "assignment, the group is Stable", api="SyncGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, _ = k.stable_member(ctx, a, g)
    ra, rb = k.add_second_member(ctx, a, b, g, aid)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    k.sync(ctx, a, g, gen, aid, [(aid, b"\x00\x01x")], v=v)
    k.sync(ctx, b, g, gen, bid, v=v)
    k.describe(ctx, a, g)


@scenario("classic.sync.illegal_generation",
          "SyncGroup with a generation other than the group's: ILLEGAL_GENERATION",
          api="SyncGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    k.sync(ctx, c, g, gen + 1, mid, v=ctx.version)
    k.sync(ctx, c, g, gen - 1, mid, v=ctx.version)
    k.sync(ctx, c, g, -1, mid, v=ctx.version)


@scenario("classic.sync.unknown_member",
          "SyncGroup from an unknown member id of an existing group, and to a group that does "
          "not exist: UNKNOWN_MEMBER_ID", api="SyncGroup")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    k.sync(ctx, c, g, gen, "nobody", v=ctx.version)
    k.sync(ctx, c, ctx.group("missing"), 1, "nobody", v=ctx.version)


@scenario("classic.sync.invalid_group_id",
          "SyncGroup with an empty group id: INVALID_GROUP_ID", api="SyncGroup")
def _(ctx):
    c = ctx.client()
    k.sync(ctx, c, "", 1, "m", v=ctx.version)


@scenario("classic.sync.resend_when_stable",
          "SyncGroup again from a member of a Stable group: its current assignment again",
          api="SyncGroup", restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, assignment=b"\x00\x01abc")
    k.sync(ctx, c, g, gen, mid, v=ctx.version)
    ctx.restart_point()
    k.sync(ctx, c, g, gen, mid, v=ctx.version)
    k.heartbeat(ctx, c, g, gen, mid)
    k.describe(ctx, c, g)


@scenario("classic.sync.during_rebalance",
          "SyncGroup while the group prepares a rebalance: REBALANCE_IN_PROGRESS",
          api="SyncGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, gen = k.stable_member(ctx, a, g)
    bid = k.new_member_id(ctx, b, g) if k.top(ctx, "JoinGroup") >= 4 else ""
    hj = k.send_join(ctx, b, g, bid)
    k.await_state(ctx, a, g, "PreparingRebalance")
    k.sync(ctx, a, g, gen, aid, [(aid, b"")], v=ctx.version)
    a.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, aid))
    b.wait(hj)


@scenario("classic.sync.protocol_mismatch",
          "SyncGroup v5 naming a ProtocolType or ProtocolName other than the group's: "
          "INCONSISTENT_GROUP_PROTOCOL; the right ones (or nulls) are accepted (KIP-559)",
          api="SyncGroup", versions=(5, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    v = ctx.version
    r = k.join(ctx, c, g)
    mid, gen = r["MemberId"], r["GenerationId"]
    k.sync(ctx, c, g, gen, mid, [(mid, b"\x00")], v=v, protocol_type="connect",
           protocol_name="range")
    k.sync(ctx, c, g, gen, mid, [(mid, b"\x00")], v=v, protocol_type="consumer",
           protocol_name="roundrobin")
    k.sync(ctx, c, g, gen, mid, [(mid, b"\x00")], v=v, protocol_type=None,
           protocol_name="roundrobin")
    k.sync(ctx, c, g, gen, mid, [(mid, b"\x00")], v=v, protocol_type="connect",
           protocol_name=None)
    k.describe(ctx, c, g)
    k.sync(ctx, c, g, gen, mid, [(mid, b"\x00")], v=v, protocol_type="consumer",
           protocol_name="range")
    k.sync(ctx, c, g, gen, mid, v=v, protocol_type=None, protocol_name=None)


@scenario("classic.sync.protocol_fields_in_response",
          "SyncGroup v5 answers carry the group's ProtocolType and ProtocolName, for the leader "
          "and a follower; JoinGroup v7+ answers carry them too", api="JoinGroup",
          versions=(7, None))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g, ctx.version)
    k.sync(ctx, b, g, gen, bid, v=k.top(ctx, "SyncGroup"), protocol_type="consumer",
           protocol_name="range")


@scenario("classic.heartbeat.stable",
          "Heartbeat of the members of a Stable group: no error, at every version",
          api="Heartbeat", restartable=True)
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g)
    k.heartbeat(ctx, a, g, gen, aid, v=ctx.version)
    ctx.restart_point()
    k.heartbeat(ctx, b, g, gen, bid, v=ctx.version)
    k.heartbeat(ctx, a, g, gen, aid, v=ctx.version)
    k.describe(ctx, a, g)


@scenario("classic.heartbeat.rebalance_in_progress",
          "Heartbeat during PreparingRebalance: REBALANCE_IN_PROGRESS; during "
          "CompletingRebalance (joined, not synced): no error", api="Heartbeat")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, gen = k.stable_member(ctx, a, g)
    bid = k.new_member_id(ctx, b, g) if k.top(ctx, "JoinGroup") >= 4 else ""
    hj = k.send_join(ctx, b, g, bid)
    k.await_state(ctx, a, g, "PreparingRebalance")
    k.heartbeat(ctx, a, g, gen, aid, v=ctx.version)
    ra = a.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, aid))
    rb = b.wait(hj)
    k.heartbeat(ctx, a, g, ra["GenerationId"], aid, v=ctx.version)
    k.heartbeat(ctx, b, g, ra["GenerationId"], rb["MemberId"], v=ctx.version)
    k.heartbeat(ctx, b, g, gen, rb["MemberId"], v=ctx.version)


@scenario("classic.heartbeat.illegal_generation",
          "Heartbeat of a Stable group's member with another generation: ILLEGAL_GENERATION",
          api="Heartbeat")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    k.heartbeat(ctx, c, g, gen + 1, mid, v=ctx.version)
    k.heartbeat(ctx, c, g, 0, mid, v=ctx.version)
    k.heartbeat(ctx, c, g, -1, mid, v=ctx.version)


@scenario("classic.heartbeat.unknown_member",
          "Heartbeat of an unknown member, to an unknown group, to an Empty group, and with "
          "an empty group id: UNKNOWN_MEMBER_ID or INVALID_GROUP_ID", api="Heartbeat")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    k.heartbeat(ctx, c, g, gen, "nobody", v=ctx.version)
    k.heartbeat(ctx, c, ctx.group("missing"), 1, "nobody", v=ctx.version)
    k.heartbeat(ctx, c, "", 1, "nobody", v=ctx.version)
    k.leave(ctx, c, g, [(mid, None)])
    k.heartbeat(ctx, c, g, gen, mid, v=ctx.version)


@scenario("classic.heartbeat.completing_rebalance_wrong_generation",
          "Heartbeat during CompletingRebalance with the previous generation: "
          "ILLEGAL_GENERATION", api="Heartbeat")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = k.join(ctx, c, g)
    k.heartbeat(ctx, c, g, r["GenerationId"] - 1, r["MemberId"], v=ctx.version)
    k.heartbeat(ctx, c, g, r["GenerationId"], r["MemberId"], v=ctx.version)
    k.describe(ctx, c, g)
