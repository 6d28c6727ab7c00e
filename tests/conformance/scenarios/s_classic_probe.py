# SPDX-License-Identifier: Apache-2.0
"""Classic groups: client ids in member ids, member identities that name
nothing, a Stable group's leader sending SyncGroup again, long group ids,
a full group, authorized operations, the leader removed by the rebalance
timeout and a follower by the sync deadline."""

from conformance import scenario
import helpers as h
import h_classic as k


@scenario("classic.join.client_id_forms",
          "The member id is the client id, a dash and a UUID (the instance id for a static "
          "member): for a null, an empty and a non-ASCII client id; DescribeGroups shows them",
          api="JoinGroup")
def _(ctx):
    v = ctx.version
    for n, cid in enumerate([None, "", "cl i/ent-\u00fc"]):
        c = ctx.client("c%d" % n, client_id=cid)
        g = ctx.group("g%d" % n)
        k.stable_member(ctx, c, g, v)
        k.describe(ctx, c, g)
    if v >= 5:
        c = ctx.client("s", client_id="cid")
        g = ctx.group("static")
        k.stable_member(ctx, c, g, v, instance_id="inst")
        k.describe(ctx, c, g)


@scenario("classic.leave.entries_naming_nothing",
          "LeaveGroup v3+ entries with an empty member id and no instance id, and Heartbeat "
          "v3+ with a known instance id and an empty member id", api="LeaveGroup",
          versions=(3, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g, instance_id="i1")
    k.leave(ctx, c, g, [("", None), ("", "")], v=ctx.version)
    k.heartbeat(ctx, c, g, gen, "", instance_id="i1")
    k.sync(ctx, c, g, gen, "", instance_id="i1")
    k.describe(ctx, c, g)


@scenario("classic.sync.leader_resends_other_assignment",
          "The leader of a Stable group sends SyncGroup again with other assignments: it gets "
          "its current assignment and nothing changes", api="SyncGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, bid, gen = k.two_member_group(ctx, a, b, g)
    k.sync(ctx, a, g, gen, aid, [(aid, b"new-a"), (bid, b"new-b")], v=ctx.version)
    k.sync(ctx, b, g, gen, bid, v=ctx.version)
    k.describe(ctx, a, g)


@scenario("classic.join.long_and_unicode_group_ids",
          "Classic groups whose ids are long (600 and 5000 characters) or non-ASCII: joined, "
          "synced, described and left like any other", api="JoinGroup", restartable=True)
def _(ctx):
    v = ctx.version
    c = ctx.client()
    groups = [ctx.group("x" * 600), ctx.group("y" * 5000), ctx.group("gr\u00fcppe \u7ec4")]
    ids = []
    for g in groups:
        ids.append(k.stable_member(ctx, c, g, v))
        k.describe(ctx, c, g)
    ctx.restart_point()
    for g, (mid, gen) in zip(groups, ids):
        k.heartbeat(ctx, c, g, gen, mid)
        k.describe(ctx, c, g)
        k.leave(ctx, c, g, [(mid, None)])
    ctx.restart_point()
    for g in groups:
        k.describe(ctx, c, g)


@scenario("classic.static.replace_in_full_group",
          "group.max.size=3: a static member of a full Stable group rejoining with an empty "
          "member id (a replacement) is refused with GROUP_MAX_SIZE_REACHED as a new member "
          "would be; with its known member id it is accepted", api="JoinGroup",
          versions=(5, None), profile="limits")
def _(ctx):
    cs = [ctx.client("m%d" % i) for i in range(4)]
    g = ctx.group()
    v = ctx.version
    aid, gen = k.stable_member(ctx, cs[0], g, v, instance_id="i0")
    h1 = cs[1].send("JoinGroup", v, k.join_body(v, g, "", instance_id="i1"))
    k.await_state(ctx, cs[0], g, "PreparingRebalance")
    h2 = cs[2].send("JoinGroup", v, k.join_body(v, g, "", instance_id="i2"))
    k.await_members(ctx, cs[0], g, 3)
    r0 = cs[0].call("JoinGroup", v, k.join_body(v, g, aid, instance_id="i0"))
    r1, r2 = cs[1].wait(h1), cs[2].wait(h2)
    gen = r0["GenerationId"]
    s1 = k.send_sync(ctx, cs[1], g, gen, r1["MemberId"], instance_id="i1")
    s2 = k.send_sync(ctx, cs[2], g, gen, r2["MemberId"], instance_id="i2")
    k.sync(ctx, cs[0], g, gen, aid, [(aid, b"a"), (r1["MemberId"], b"b"), (r2["MemberId"], b"c")],
           instance_id="i0")
    cs[1].wait(s1)
    cs[2].wait(s2)
    cs[3].call("JoinGroup", v, k.join_body(v, g, "", instance_id="i2"))
    k.describe(ctx, cs[0], g)
    cs[2].call("JoinGroup", v, k.join_body(v, g, r2["MemberId"], instance_id="i2"))
    k.heartbeat(ctx, cs[2], g, gen, r2["MemberId"], instance_id="i2")


@scenario("classic.describe.authorized_operations",
          "DescribeGroups v3+ with IncludeAuthorizedOperations on a broker without an "
          "authorizer: the operations reported for a Stable classic group and an unknown one",
          api="DescribeGroups", versions=(3, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    k.stable_member(ctx, c, g)
    for gid in (g, ctx.group("missing")):
        c.call("DescribeGroups", ctx.version,
               {"Groups": [gid], "IncludeAuthorizedOperations": True})


@scenario("classic.timer.rebalance_timeout_leader_removed",
          "A follower's rejoin with changed metadata starts a rebalance the leader does not "
          "join within the rebalance timeout (3000 ms): the leader is removed and the "
          "follower leads the next generation", api="JoinGroup", restartable=True)
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    v = ctx.version
    aid, bid, gen = k.two_member_group(ctx, a, b, g, v, rebalance=3000)
    ctx.restart_point()
    b.call("JoinGroup", v, k.join_body(v, g, bid, [("range", h.subscription_v0(["t", "u"]))],
                                       rebalance=3000))
    k.describe(ctx, b, g)
    k.heartbeat(ctx, a, g, gen, aid)


@scenario("classic.timer.sync_timeout_follower",
          "The leader syncs but a follower never does: when the rebalance timeout (3000 ms) "
          "passes the follower is removed and a new rebalance starts, seen by the leader's "
          "heartbeat", api="SyncGroup")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g = ctx.group()
    aid, _ = k.stable_member(ctx, a, g, rebalance=3000)
    ra, rb = k.add_second_member(ctx, a, b, g, aid, rebalance=3000)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    k.sync(ctx, a, g, gen, aid, [(aid, b"a"), (bid, b"b")], v=ctx.version)
    k.describe(ctx, a, g)

    def removed():
        r = k.heartbeat(ctx, a, g, gen, aid, record=False)
        return r["ErrorCode"] != 0
    ctx.wait_until(removed, "the follower's sync deadline")
    k.heartbeat(ctx, a, g, gen, aid)
    k.describe(ctx, a, g)
    k.sync(ctx, b, g, gen, bid, v=ctx.version)


def listed(ctx, c, v, prefix, states=None, types=None):
    body = {}
    if v >= 4:
        body["StatesFilter"] = states or []
    if v >= 5:
        body["TypesFilter"] = types or []
    r = c.call("ListGroups", v, body, record=False)
    mine = sorted((x for x in r["Groups"] if x["GroupId"].startswith(prefix)),
                  key=lambda x: x["GroupId"])
    return {"ErrorCode": r["ErrorCode"], "Groups": mine}


@scenario("classic.list.states_and_types",
          "ListGroups of this case's classic groups (other cases' groups left out): their "
          "protocol types, states (v4+) and type (v5+), filtered by state and by type "
          "(case-insensitive)", api="ListGroups")
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    v = ctx.version
    pre = ctx.group("")
    gs, ge, gc = ctx.group("stable"), ctx.group("empty"), ctx.group("completing")
    k.stable_member(ctx, a, gs)
    mid, _ = k.stable_member(ctx, a, ge)
    k.leave(ctx, a, ge, [(mid, None)])
    k.join(ctx, b, gc)
    ctx.note("all", listed(ctx, a, v, pre))
    if v >= 4:
        ctx.note("stable", listed(ctx, a, v, pre, states=["Stable"]))
        ctx.note("empty or completing, any case",
                 listed(ctx, a, v, pre, states=["empty", "COMPLETINGREBALANCE"]))
        ctx.note("unknown state", listed(ctx, a, v, pre, states=["Nope"]))
    if v >= 5:
        ctx.note("classic", listed(ctx, a, v, pre, types=["Classic"]))
        ctx.note("consumer", listed(ctx, a, v, pre, types=["consumer"]))


@scenario("classic.delete.then_rejoin",
          "DeleteGroups of a classic group with a member: NON_EMPTY_GROUP; once Empty it is "
          "deleted, DescribeGroups no longer finds it, and a new member starts again at "
          "generation 1", api="DeleteGroups")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    mid, gen = k.stable_member(ctx, c, g)
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g]})
    k.leave(ctx, c, g, [(mid, None)])
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g]})
    k.describe(ctx, c, g)
    k.heartbeat(ctx, c, g, gen, mid)
    k.join(ctx, c, g)
    k.describe(ctx, c, g)
