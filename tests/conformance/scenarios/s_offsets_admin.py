# SPDX-License-Identifier: Apache-2.0
"""Group administration: OffsetDelete, DescribeGroups, ListGroups and
DeleteGroups over classic, consumer (KIP-848) and simple groups."""

from conformance import scenario
import h_offsets as ho


def _delete_offsets(c, g, topics):
    """OffsetDelete v0; topics: [(name, [partitions])]."""
    return c.call("OffsetDelete", 0, {"GroupId": g, "Topics": [
        {"Name": n, "Partitions": [{"PartitionIndex": p} for p in ps]} for n, ps in topics]})


def _list(ctx, c, version, states=None, types=None):
    """ListGroups, recorded as this case's groups sorted by id (other cases'
    groups come and go meanwhile, and their number moves Kafka's table
    order; offsets.list.table_order compares the order itself)."""
    body = {}
    if version >= 4:
        body["StatesFilter"] = states or []
    if version >= 5:
        body["TypesFilter"] = types or []
    r = c.call("ListGroups", version, body, record=False)
    if r is None:
        raise ho.ScenarioError("ListGroups: connection closed")
    ctx.note("ListGroups v%d states=%s types=%s: error %d" % (version, states, types,
                                                            r["ErrorCode"]),
             sorted(ho.mine(ctx, r["Groups"]), key=lambda g: g["GroupId"]))


# ---------------------------------------------------------------- OffsetDelete

@scenario("offsets.delete.group_not_found",
          "OffsetDelete for a group that does not exist answers GROUP_ID_NOT_FOUND with no "
          "topics", api="OffsetDelete")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    _delete_offsets(c, ctx.group("nobody"), [(t, [0])])


@scenario("offsets.delete.empty_group",
          "OffsetDelete on an empty simple group removes the given offsets (OffsetFetch then "
          "answers -1) and answers partitions without offsets without error",
          api="OffsetDelete")
def _(ctx):
    c = ctx.client()
    ta, tb = ctx.topic("a"), ctx.topic("b")
    ids = ho.create_topics(ctx, c, {ta: 2, tb: 1})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(ta, [(0, 1), (1, 2)]), (tb, [(0, 3)])], ids=ids)
    _delete_offsets(c, g, [(ta, [0]), (tb, [0])])
    fv = ho.top(ctx, "OffsetFetch")
    ho.fetch(ctx, c, fv, g, [(ta, [0, 1]), (tb, [0])], ids=ids)
    _delete_offsets(c, g, [(ta, [0, 1]), (tb, [0])])
    ho.fetch(ctx, c, fv, g, None)
    dv = ho.top(ctx, "DescribeGroups")
    c.call("DescribeGroups", dv, {"Groups": [g]})


@scenario("offsets.delete.unknown_topic",
          "OffsetDelete of unknown topics and partitions beyond the count answers "
          "UNKNOWN_TOPIC_OR_PARTITION for them, the known ones in the same request succeed",
          api="OffsetDelete")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(t, [(0, 1), (1, 2)])], ids=ids)
    _delete_offsets(c, g, [(ctx.topic("missing"), [0]), (t, [5, 0, -1]), (t, [1])])
    ho.fetch(ctx, c, ho.top(ctx, "OffsetFetch"), g, None)


@scenario("offsets.delete.classic_subscribed",
          "OffsetDelete on a Stable classic consumer group answers GROUP_SUBSCRIBED_TO_TOPIC "
          "for topics its members subscribe to and deletes the others' offsets",
          api="OffsetDelete")
def _(ctx):
    c = ctx.client()
    ta, tb = ctx.topic("a"), ctx.topic("b")
    ids = ho.create_topics(ctx, c, {ta: 1, tb: 1})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(ta, [(0, 1)]), (tb, [(0, 2)])], ids=ids)
    ho.classic_join(ctx, c, g, [ta])
    _delete_offsets(c, g, [(ta, [0]), (tb, [0])])
    ho.fetch(ctx, c, ho.top(ctx, "OffsetFetch"), g, None)


@scenario("offsets.delete.non_empty_group",
          "OffsetDelete on a Stable classic group of another protocol type than consumer "
          "answers NON_EMPTY_GROUP; after its member leaves, the offsets are deleted",
          api="OffsetDelete")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(t, [(0, 1)])], ids=ids)
    mid, gen = ho.classic_join(ctx, c, g, [t], protocol_type="connect",
                               protocols=[("default", b"\x00\x01")])
    _delete_offsets(c, g, [(t, [0])])
    ho.leave(ctx, c, g, mid)
    _delete_offsets(c, g, [(t, [0])])


@scenario("offsets.delete.consumer_group",
          "OffsetDelete on a consumer group (KIP-848) with a member answers "
          "GROUP_SUBSCRIBED_TO_TOPIC for its subscribed topic and deletes an unsubscribed "
          "topic's offsets", api="OffsetDelete")
def _(ctx):
    c = ctx.client()
    ta, tb = ctx.topic("a"), ctx.topic("b")
    ids = ho.create_topics(ctx, c, {ta: 1, tb: 1})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(ta, [(0, 1)]), (tb, [(0, 2)])], ids=ids)
    ho.cg_join(ctx, c, g, ho.member_id("a"), [ta])
    _delete_offsets(c, g, [(ta, [0]), (tb, [0])])
    ho.fetch(ctx, c, ho.top(ctx, "OffsetFetch"), g, None)


# ---------------------------------------------------------------- DescribeGroups

@scenario("offsets.describe.unknown",
          "DescribeGroups of unknown groups answers Dead without error before v6 and "
          "GROUP_ID_NOT_FOUND with a message from v6, in request order",
          api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    body = {"Groups": [ctx.group("x"), ctx.group("y"), ctx.group("x")]}
    if ctx.version >= 3:
        body["IncludeAuthorizedOperations"] = True
    c.call("DescribeGroups", ctx.version, body)
    c.call("DescribeGroups", ctx.version, {"Groups": []})


@scenario("offsets.describe.empty_groups",
          "DescribeGroups of a simple group made by offsets (Empty, no protocol type) and of "
          "a classic group its member left (Empty, protocol type kept)",
          api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g1, g2 = ctx.group("simple"), ctx.group("left")
    ho.simple_commit(ctx, c, g1, [(t, [(0, 1)])], ids=ids)
    mid, _ = ho.classic_join(ctx, c, g2, [t])
    ho.leave(ctx, c, g2, mid)
    c.call("DescribeGroups", ctx.version, {"Groups": [g1, g2]})


@scenario("offsets.describe.stable",
          "DescribeGroups of a Stable classic group answers its protocol, members with their "
          "metadata and assignment", api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.classic_join(ctx, c, g, [t])
    c.call("DescribeGroups", ctx.version, {"Groups": [g]})


@scenario("offsets.describe.completing_rebalance",
          "DescribeGroups of a classic group awaiting its SyncGroup answers "
          "CompletingRebalance with members but no protocol data or metadata",
          api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.classic_join_only(ctx, c, g, [t])
    c.call("DescribeGroups", ctx.version, {"Groups": [g]})


@scenario("offsets.describe.dead",
          "DescribeGroups of a group deleted by DeleteGroups answers as for an unknown group",
          api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(t, [(0, 1)])], ids=ids)
    c.call("DeleteGroups", ho.top(ctx, "DeleteGroups"), {"GroupsNames": [g]})
    c.call("DescribeGroups", ctx.version, {"Groups": [g]})


@scenario("offsets.describe.consumer_group",
          "DescribeGroups of a consumer group (KIP-848), with a member and emptied, answers as "
          "Kafka's classic describe does for a group of another type",
          api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid = ho.member_id("a")
    ho.cg_member(ctx, c, g, mid)
    c.call("DescribeGroups", ctx.version, {"Groups": [g, ctx.group("nobody")]})
    ho.cg_leave(ctx, c, g, mid)
    c.call("DescribeGroups", ctx.version, {"Groups": [g]})


@scenario("offsets.describe.mixed_batch",
          "DescribeGroups of a Stable, an Empty, an unknown and a consumer group in one "
          "request answers each in request order", api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    gs, ge, gc = ctx.group("stable"), ctx.group("empty"), ctx.group("consumer")
    ho.classic_join(ctx, c, gs, [t])
    ho.simple_commit(ctx, c, ge, [(t, [(0, 1)])], ids=ids)
    ho.cg_member(ctx, c, gc, ho.member_id("a"))
    c.call("DescribeGroups", ctx.version,
           {"Groups": [gc, ctx.group("unknown"), gs, ge]})


# ---------------------------------------------------------------- ListGroups

def _mixed_groups(ctx, c):
    """A Stable classic group, a simple group, a CompletingRebalance classic
    group and a consumer group (Stable) of this case."""
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    ho.classic_join(ctx, c, ctx.group("classic-stable"), [t])
    ho.simple_commit(ctx, c, ctx.group("simple"), [(t, [(0, 1)])], ids=ids)
    ho.classic_join_only(ctx, c, ctx.group("classic-completing"), [t])
    ho.cg_member(ctx, c, ctx.group("consumer"), ho.member_id("a"))
    # A consumer group emptied by its member's leave.
    g = ctx.group("consumer-empty")
    mid = ho.member_id("b")
    ho.cg_join(ctx, c, g, mid, [])
    ho.cg_leave(ctx, c, g, mid)


@scenario("offsets.list.mixed",
          "ListGroups at every version lists classic, simple and consumer groups with their "
          "protocol types (and states from v4, types from v5)", api="ListGroups")
def _(ctx):
    c = ctx.client()
    _mixed_groups(ctx, c)
    _list(ctx, c, ctx.version)


@scenario("offsets.list.states_filter",
          "ListGroups v4+ with StatesFilter (case-insensitive, trimmed; unknown states match "
          "nothing) lists only the groups in those states", api="ListGroups",
          versions=(4, None))
def _(ctx):
    c = ctx.client()
    _mixed_groups(ctx, c)
    for states in (["Stable"], ["empty", " COMPLETINGREBALANCE "], ["Dead"], ["bogus"],
                   ["Empty", "Stable", "PreparingRebalance", "Assigning", "Reconciling"]):
        _list(ctx, c, ctx.version, states=states)


@scenario("offsets.list.types_filter",
          "ListGroups v5 with TypesFilter (classic, consumer, case-insensitive; unknown types "
          "match nothing) combined with StatesFilter", api="ListGroups", versions=(5, None))
def _(ctx):
    c = ctx.client()
    _mixed_groups(ctx, c)
    for types, states in ((["classic"], None), (["Consumer"], None), (["classic", "consumer"], None),
                          (["share"], None), (["bogus"], None), (["consumer"], ["Empty"]),
                          (["CLASSIC"], ["Empty", "Stable"])):
        _list(ctx, c, ctx.version, states=states, types=types)


@scenario("offsets.list.table_order",
          "ListGroups at every version lists groups in Kafka's order (its coordinator's groups "
          "table with one __consumer_offsets partition) as groups of every type are added "
          "and deleted; alone in its profile so that no other case adds groups",
          profile="listing")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    lo, hi = ctx.api_range("ListGroups")

    def list_all(**kw):
        for v in range(lo, hi + 1):
            body = {}
            if v >= 4:
                body["StatesFilter"] = kw.get("states", [])
            if v >= 5:
                body["TypesFilter"] = kw.get("types", [])
            c.call("ListGroups", v, body)
    names = ["g%02d" % i for i in range(14)]
    for n in names[:5]:
        ho.simple_commit(ctx, c, ctx.group(n), [(t, [(0, 1)])], ids=ids)
    list_all()
    ho.classic_join(ctx, c, ctx.group(names[5]), [t])
    for i, n in enumerate(names[6:10]):
        ho.cg_join(ctx, c, ctx.group(n), ho.member_id("m%d" % i), [])
    list_all()
    c.call("DeleteGroups", ho.top(ctx, "DeleteGroups"),
           {"GroupsNames": [ctx.group(names[1]), ctx.group(names[3])]})
    for n in names[10:]:
        ho.simple_commit(ctx, c, ctx.group(n), [(t, [(0, 1)])], ids=ids)
    ho.simple_commit(ctx, c, ctx.group(names[1]), [(t, [(0, 2)])], ids=ids)
    list_all()
    list_all(states=["Empty"], types=["classic"])


# ---------------------------------------------------------------- DeleteGroups

@scenario("offsets.delete_groups.unknown",
          "DeleteGroups of unknown group ids answers GROUP_ID_NOT_FOUND for each, duplicates "
          "answered once", api="DeleteGroups")
def _(ctx):
    c = ctx.client()
    c.call("DeleteGroups", ctx.version,
           {"GroupsNames": [ctx.group("x"), ctx.group("y"), ctx.group("x")]})
    c.call("DeleteGroups", ctx.version, {"GroupsNames": []})


@scenario("offsets.delete_groups.empty",
          "DeleteGroups of an empty simple group and of an emptied classic group deletes them "
          "and their offsets (OffsetFetch then answers -1, a second delete GROUP_ID_NOT_FOUND)",
          api="DeleteGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g1, g2 = ctx.group("simple"), ctx.group("left")
    ho.simple_commit(ctx, c, g1, [(t, [(0, 1)])], ids=ids)
    mid, gen = ho.classic_join(ctx, c, g2, [t])
    cv = ho.top(ctx, "OffsetCommit")
    ho.commit(ctx, c, cv, g2, [(t, [(0, 9)])], ids=ids, generation=gen, member_id=mid,
              record=False)
    ho.leave(ctx, c, g2, mid)
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g1, g2]})
    fv = ho.top(ctx, "OffsetFetch")
    ho.fetch(ctx, c, fv, g1, [(t, [0])], ids=ids)
    ho.fetch(ctx, c, fv, g2, None)
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g2]})


@scenario("offsets.delete_groups.non_empty",
          "DeleteGroups of a Stable classic group, a CompletingRebalance one and a consumer "
          "group with a member answers NON_EMPTY_GROUP and keeps them",
          api="DeleteGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    gs, gj, gc = ctx.group("stable"), ctx.group("joined"), ctx.group("consumer")
    ho.classic_join(ctx, c, gs, [t])
    ho.classic_join_only(ctx, c, gj, [t])
    ho.cg_member(ctx, c, gc, ho.member_id("a"))
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [gs, gj, gc]})
    c.call("DescribeGroups", ho.top(ctx, "DescribeGroups"), {"Groups": [gs, gj]})


@scenario("offsets.delete_groups.consumer_group",
          "DeleteGroups of an empty consumer group (its member left) deletes it with its "
          "offsets", api="DeleteGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid = ho.member_id("a")
    epoch = ho.cg_member(ctx, c, g, mid)
    cv = ho.top(ctx, "OffsetCommit")
    ho.commit(ctx, c, cv, g, [(t, [(0, 9)])], ids=ids, generation=epoch, member_id=mid,
              record=False)
    ho.cg_leave(ctx, c, g, mid)
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g]})
    ho.fetch(ctx, c, ho.top(ctx, "OffsetFetch"), g, None)
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g]})


@scenario("offsets.delete_groups.batch",
          "DeleteGroups of an unknown, an empty, a non-empty and an empty consumer group in "
          "one request answers each in request order and deletes only the empty ones",
          api="DeleteGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    ge, gs, gc = ctx.group("empty"), ctx.group("stable"), ctx.group("consumer")
    ho.simple_commit(ctx, c, ge, [(t, [(0, 1)])], ids=ids)
    ho.classic_join(ctx, c, gs, [t])
    mid = ho.member_id("a")
    ho.cg_join(ctx, c, gc, mid, [])
    ho.cg_leave(ctx, c, gc, mid)
    c.call("DeleteGroups", ctx.version,
           {"GroupsNames": [ctx.group("unknown"), gs, ge, gc, ge]})
    _list(ctx, c, ho.top(ctx, "ListGroups"))


# ---------------------------------------------------------------- more states and edges

def _describe_by_client(ctx, c, version, g):
    """DescribeGroups of one group, noted with its members sorted by client
    id: Kafka lists members in the order of a HashMap of their ids, which
    hold random UUIDs, so two brokers' orders differ by chance."""
    r = c.call("DescribeGroups", version, {"Groups": [g]}, record=False)
    for d in r["Groups"]:
        d["Members"] = sorted(d["Members"], key=lambda m: m["ClientId"])
    ctx.note("DescribeGroups v%d, members by client id" % version, r)


def _preparing_rebalance(ctx, c, t):
    """A Stable classic group whose second member's join parks: the group is
    PreparingRebalance until the first member rejoins. Returns (group,
    first member id, generation, a function completing the rebalance)."""
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t])
    c2 = ctx.client("c2", client_id="kcoord-conformance-2")
    jv = ho.top(ctx, "JoinGroup")
    body = ho.h.join_body(jv, g, "", protocols=[("range", ho.h.subscription_v0([t]))],
                          session_timeout_ms=ho.SESSION_MS, rebalance_timeout_ms=ho.SESSION_MS)
    r = c2.call("JoinGroup", jv, body, record=False)
    if r is not None and r["ErrorCode"] == 79:
        body["MemberId"] = r["MemberId"]
    parked = c2.send("JoinGroup", jv, body, record=False)

    def preparing():
        d = c.call("DescribeGroups", ho.top(ctx, "DescribeGroups"), {"Groups": [g]},
                   record=False)
        return d["Groups"][0]["GroupState"] == "PreparingRebalance"
    ctx.wait_until(preparing, "the group to prepare a rebalance")

    def finish():
        rebody = ho.h.join_body(jv, g, mid, protocols=[("range", ho.h.subscription_v0([t]))],
                                session_timeout_ms=ho.SESSION_MS,
                                rebalance_timeout_ms=ho.SESSION_MS)
        a = c.call("JoinGroup", jv, rebody, record=False)
        b = c2.wait(parked)
        ctx.note("rebalance completed", [a["ErrorCode"], b["ErrorCode"],
                                         a["GenerationId"] - gen, b["GenerationId"] - gen])
    return g, mid, gen, finish


@scenario("offsets.describe.preparing_rebalance",
          "DescribeGroups of a classic group whose new member's JoinGroup is parked answers "
          "PreparingRebalance with its members and no protocol data", api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    g, mid, gen, finish = _preparing_rebalance(ctx, c, t)
    _describe_by_client(ctx, c, ctx.version, g)
    finish()
    _describe_by_client(ctx, c, ctx.version, g)


@scenario("offsets.commit.classic_preparing_rebalance",
          "OffsetCommit by a member of a PreparingRebalance classic group with its (old) "
          "generation commits; DeleteGroups answers NON_EMPTY_GROUP and OffsetDelete "
          "GROUP_SUBSCRIBED_TO_TOPIC meanwhile", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g, mid, gen, finish = _preparing_rebalance(ctx, c, t)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 17, "prep")])], ids=ids, generation=gen,
              member_id=mid)
    c.call("DeleteGroups", ho.top(ctx, "DeleteGroups"), {"GroupsNames": [g]})
    _delete_offsets(c, g, [(t, [0])])
    _list(ctx, c, ho.top(ctx, "ListGroups"))
    finish()
    ho.fetch(ctx, c, ho.top(ctx, "OffsetFetch"), g, [(t, [0])], ids=ids)


@scenario("offsets.describe.authorized_operations",
          "DescribeGroups v3+ with IncludeAuthorizedOperations for a Stable and an Empty group "
          "(no authorizer: every group operation)", api="DescribeGroups", versions=(3, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g1, g2 = ctx.group("stable"), ctx.group("simple")
    ho.classic_join(ctx, c, g1, [t])
    ho.simple_commit(ctx, c, g2, [(t, [(0, 1)])], ids=ids)
    c.call("DescribeGroups", ctx.version, {"Groups": [g1, g2], "IncludeAuthorizedOperations": True})
    c.call("DescribeGroups", ctx.version, {"Groups": [g1], "IncludeAuthorizedOperations": False})


@scenario("offsets.delete.consumer_group_empty",
          "OffsetDelete on a consumer group its member left deletes the offsets of its former "
          "subscription", api="OffsetDelete")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(t, [(0, 1)])], ids=ids)
    mid = ho.member_id("a")
    ho.cg_join(ctx, c, g, mid, [t])
    ho.cg_leave(ctx, c, g, mid)
    _delete_offsets(c, g, [(t, [0])])
    ho.fetch(ctx, c, ho.top(ctx, "OffsetFetch"), g, None)


# The empty group id is one group for every case: no scenario creates it
# (a commit with generation -1 would), so that it stays unknown.

@scenario("offsets.empty_group_id.commit",
          "OffsetCommit for the empty group id with a generation (the group does not exist) "
          "and to an unknown topic only", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    ho.commit(ctx, c, ctx.version, "", [(t, [(0, 1)])], ids=ids, generation=1, member_id="m")
    if ctx.version < 10:
        ho.commit(ctx, c, ctx.version, "", [(ctx.topic("missing"), [(0, 1)])])


@scenario("offsets.empty_group_id.fetch",
          "OffsetFetch for the empty group id (alone, and beside another group from v8)",
          api="OffsetFetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    ho.fetch(ctx, c, ctx.version, "", [(t, [0])], ids=ids)
    if ctx.version >= 8:
        c.call("OffsetFetch", ctx.version, ho.fetch_body(ctx.version, [
            ("", [(t, [0])]), (ctx.group("other"), [(t, [0])])], ids=ids))


@scenario("offsets.empty_group_id.admin",
          "DescribeGroups, DeleteGroups and OffsetDelete of the empty group id, alone and in a "
          "batch with another group", api="DescribeGroups")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    c.call("DescribeGroups", ctx.version, {"Groups": ["", ctx.group("x")]})
    c.call("DeleteGroups", ho.top(ctx, "DeleteGroups"), {"GroupsNames": ["", ctx.group("x")]})
    _delete_offsets(c, "", [(t, [0])])


# ---------------------------------------------------------------- retention

@scenario("offsets.retention.expire",
          "Offsets expire offsets.retention.minutes (1, Kafka's least: the scenario waits a "
          "minute) after their commit for a simple group, after the group emptied for a classic "
          "group, never while a Stable classic group subscribes; a group left without offsets "
          "is deleted", profile="retention")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    gs, gl, gk = ctx.group("simple"), ctx.group("left"), ctx.group("stable")
    cv = ho.top(ctx, "OffsetCommit")
    ho.simple_commit(ctx, c, gs, [(t, [(0, 1), (1, 2)])], ids=ids)
    mid, gen = ho.classic_join(ctx, c, gl, [t])
    ho.commit(ctx, c, cv, gl, [(t, [(0, 3)])], ids=ids, generation=gen, member_id=mid,
              record=False)
    ho.leave(ctx, c, gl, mid)
    c2 = ctx.client("c2")
    mk, genk = ho.classic_join(ctx, c2, gk, [t])
    ho.commit(ctx, c2, cv, gk, [(t, [(0, 4)])], ids=ids, generation=genk, member_id=mk,
              record=False)
    fv = ho.top(ctx, "OffsetFetch")

    def expired():
        r = c.call("OffsetFetch", fv, ho.fetch_body(fv, [(gs, None), (gl, None)]),
                   record=False)
        return all(not g["Topics"] for g in r["Groups"])
    ctx.wait_until(expired, "the offsets to expire", timeout=180, interval=0.5)
    # Keep the Stable member alive past the expiry (session 120 s).
    hv = ho.top(ctx, "Heartbeat")
    hb = {"GroupId": gk, "GenerationId": genk, "MemberId": mk}
    if hv >= 3:
        hb["GroupInstanceId"] = None
    c2.call("Heartbeat", hv, hb, record=False)
    c.call("OffsetFetch", fv, ho.fetch_body(fv, [(gs, None), (gl, None), (gk, None)]))
    c.call("DescribeGroups", ho.top(ctx, "DescribeGroups"), {"Groups": [gs, gl]})
    _list(ctx, c, ho.top(ctx, "ListGroups"))


@scenario("offsets.retention.explicit",
          "OffsetCommit v2-4 with RetentionTimeMs (2 s): the offsets expire then for a simple "
          "group (which is deleted) and for a Stable classic group's unsubscribed topic, not "
          "for its subscribed one", api="OffsetCommit", versions=(None, 4), profile="retention")
def _(ctx):
    c = ctx.client()
    ta, tb = ctx.topic("a"), ctx.topic("b")
    ho.create_topics(ctx, c, {ta: 1, tb: 1})
    gs, gk = ctx.group("simple"), ctx.group("stable")
    ho.commit(ctx, c, ctx.version, gs, [(ta, [(0, 1)])], retention_ms=2000)
    mid, gen = ho.classic_join(ctx, c, gk, [ta])
    ho.commit(ctx, c, ctx.version, gk, [(ta, [(0, 2)]), (tb, [(0, 3)])], retention_ms=2000,
              generation=gen, member_id=mid)
    fv = ho.top(ctx, "OffsetFetch")

    def expired():
        r = c.call("OffsetFetch", fv, ho.fetch_body(fv, [(gs, None), (gk, None)]),
                   record=False)
        return not r["Groups"][0]["Topics"] and len(r["Groups"][1]["Topics"]) == 1
    ctx.wait_until(expired, "the offsets to expire", timeout=120, interval=0.2)
    c.call("OffsetFetch", fv, ho.fetch_body(fv, [(gs, None), (gk, None)]))
    c.call("DescribeGroups", ho.top(ctx, "DescribeGroups"), {"Groups": [gs]})
