# SPDX-License-Identifier: Apache-2.0
"""OffsetCommit at every version: simple groups, classic members, consumer
group members, unknown topics, partitions and topic ids, metadata limits."""

from conformance import scenario
import h_consumer as hc
import h_offsets as ho


def _fetch_back(ctx, c, g, topics, ids):
    """Reads the offsets back with the top OffsetFetch version."""
    fv = ho.top(ctx, "OffsetFetch")
    ho.fetch(ctx, c, fv, g, topics, ids=ids)


@scenario("offsets.commit.simple_group",
          "OffsetCommit with generation -1 and an empty member id creates a simple group and "
          "commits offsets, metadata and leader epochs that OffsetFetch reads back",
          api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 3})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 10, "m0", 4), (2, 12, None), (1, 0, "")])],
              ids=ids)
    _fetch_back(ctx, c, g, [(t, [0, 1, 2])], ids)
    # A second commit overwrites one partition.
    ho.commit(ctx, c, ctx.version, g, [(t, [(1, 99, "again")])], ids=ids)
    _fetch_back(ctx, c, g, [(t, [0, 1, 2])], ids)


@scenario("offsets.commit.restart",
          "Offsets committed by a simple group at every OffsetCommit version survive a kill "
          "and restart of the broker", api="OffsetCommit", restartable=True)
def _(ctx):
    c = ctx.client()
    t1, t2 = ctx.topic("a"), ctx.topic("b")
    ids = ho.create_topics(ctx, c, {t1: 2, t2: 1})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t1, [(0, 5, "five"), (1, 6)]), (t2, [(0, 7, None, 3)])],
              ids=ids)
    ctx.restart_point()
    c2 = ctx.client()
    fv = ho.top(ctx, "OffsetFetch")
    ho.fetch(ctx, c2, fv, g, [(t1, [0, 1]), (t2, [0])], ids=ids)
    ho.fetch(ctx, c2, fv, g, None)


@scenario("offsets.commit.unknown_topic",
          "OffsetCommit v2-9 to a topic that does not exist answers UNKNOWN_TOPIC_OR_PARTITION "
          "for its partitions while the known topic's partitions commit",
          api="OffsetCommit", versions=(None, 9))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(ctx.topic("missing"), [(0, 1), (1, 2)]),
                                       (t, [(0, 3)])])
    # Only unknown topics: the coordinator is not asked, no group is made.
    g2 = ctx.group("only-missing")
    ho.commit(ctx, c, ctx.version, g2, [(ctx.topic("missing"), [(0, 1)])])
    dv = ho.top(ctx, "DescribeGroups")
    c.call("DescribeGroups", dv, {"Groups": [g, g2]})


@scenario("offsets.commit.unknown_partition",
          "OffsetCommit to partitions beyond the topic's count or negative answers "
          "UNKNOWN_TOPIC_OR_PARTITION per partition, the others commit", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 1), (2, 2), (-1, 3), (1, 4), (7, 5)])], ids=ids)
    _fetch_back(ctx, c, g, [(t, [0, 1, 2])], ids)


@scenario("offsets.commit.unknown_topic_id",
          "OffsetCommit v10 with an unknown topic id or the zero id answers UNKNOWN_TOPIC_ID "
          "for those topics while a known id commits",
          api="OffsetCommit", versions=(10, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    unknown = bytes(range(1, 17))
    ho.commit(ctx, c, ctx.version, g, [(unknown, [(0, 1), (1, 1)]), (t, [(0, 2)]),
                                       (bytes(16), [(0, 3)])], ids=ids)
    ho.commit(ctx, c, ctx.version, ctx.group("only-unknown"), [(unknown, [(0, 1)])])
    _fetch_back(ctx, c, g, [(t, [0])], ids)


@scenario("offsets.commit.metadata_too_large",
          "OffsetCommit with metadata over offset.metadata.max.bytes (4096) answers "
          "OFFSET_METADATA_TOO_LARGE for that partition; 4096 characters and null commit",
          api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 3})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 1, "x" * 4097), (1, 2, "y" * 4096),
                                            (2, 3, None)])], ids=ids)
    fv = ho.top(ctx, "OffsetFetch")
    r = ho.fetch(ctx, c, fv, g, [(t, [0, 1, 2])], ids=ids)
    ctx.note("metadata lengths", [len(p["Metadata"] or "") for p in
                                  r["Groups"][0]["Topics"][0]["Partitions"]])


@scenario("offsets.commit.metadata_multibyte",
          "OffsetCommit metadata is limited in characters, not bytes: 4096 two-byte "
          "characters commit, 4097 are OFFSET_METADATA_TOO_LARGE",
          api="OffsetCommit", versions=(8, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 1, "\u00e9" * 4096), (1, 2, "\u00e9" * 4097)])],
              ids=ids)


@scenario("offsets.commit.duplicate_partitions",
          "OffsetCommit naming the same topic twice and a partition twice answers every "
          "entry and keeps the last offset", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 1), (0, 2)]), (t, [(1, 3), (0, 4)])], ids=ids)
    _fetch_back(ctx, c, g, [(t, [0, 1])], ids)


@scenario("offsets.commit.retention_time",
          "OffsetCommit v2-4 with RetentionTimeMs set commits the offsets as usual",
          api="OffsetCommit", versions=(None, 4))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 42, "r")])], retention_ms=3600000)
    _fetch_back(ctx, c, g, [(t, [0])], None)


@scenario("offsets.commit.unknown_group_with_generation",
          "OffsetCommit with a generation >= 0 for a group that does not exist answers "
          "ILLEGAL_GENERATION before v9 and GROUP_ID_NOT_FOUND from v9", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 1)])], ids=ids, generation=3, member_id="who")
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 1)])], ids=ids, generation=-1, member_id="who")
    _fetch_back(ctx, c, g, [(t, [0])], ids)


@scenario("offsets.commit.classic_member",
          "OffsetCommit by a Stable classic group's member with its generation and member id "
          "commits; generation -1 with an empty member id on the non-empty group is "
          "UNKNOWN_MEMBER_ID", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t])
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 11, "mine")])], ids=ids, generation=gen,
              member_id=mid)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 12)])], ids=ids)
    _fetch_back(ctx, c, g, [(t, [0])], ids)


@scenario("offsets.commit.classic_illegal_generation",
          "OffsetCommit by a classic member with a wrong generation (older, newer, -1) "
          "answers ILLEGAL_GENERATION", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t])
    for bad in (gen + 1, gen - 1, -1):
        ho.commit(ctx, c, ctx.version, g, [(t, [(0, 5)])], ids=ids, generation=bad, member_id=mid)
    _fetch_back(ctx, c, g, [(t, [0])], ids)


@scenario("offsets.commit.classic_unknown_member",
          "OffsetCommit to a Stable classic group with an unknown member id (right or wrong "
          "generation) answers UNKNOWN_MEMBER_ID", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t])
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 5)])], ids=ids, generation=gen,
              member_id="kcoord-conformance-stranger")
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 5)])], ids=ids, generation=gen + 7,
              member_id="stranger")
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 5)])], ids=ids, generation=-1,
              member_id="stranger")


@scenario("offsets.commit.classic_completing_rebalance",
          "OffsetCommit by a classic member whose group awaits its SyncGroup "
          "(CompletingRebalance) answers REBALANCE_IN_PROGRESS; a wrong generation still "
          "answers ILLEGAL_GENERATION", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid, gen = ho.classic_join_only(ctx, c, g, [t])
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 5)])], ids=ids, generation=gen, member_id=mid)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 5)])], ids=ids, generation=gen + 1, member_id=mid)


@scenario("offsets.commit.classic_empty_group",
          "OffsetCommit with generation -1 to a classic group emptied by LeaveGroup commits; "
          "the departed member's id and generation answer UNKNOWN_MEMBER_ID",
          api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t])
    ho.leave(ctx, c, g, mid)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 5)])], ids=ids, generation=gen, member_id=mid)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 6)])], ids=ids)
    _fetch_back(ctx, c, g, [(t, [0])], ids)


@scenario("offsets.commit.static_member",
          "OffsetCommit v7+ by a static classic member: its instance id commits, another "
          "member id with that instance id answers FENCED_INSTANCE_ID, an unknown instance id "
          "UNKNOWN_MEMBER_ID", api="OffsetCommit", versions=(7, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t], instance_id="inst-1")
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 1)])], ids=ids, generation=gen, member_id=mid,
              instance_id="inst-1")
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 2)])], ids=ids, generation=gen,
              member_id="other-member", instance_id="inst-1")
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 3)])], ids=ids, generation=gen, member_id=mid,
              instance_id="inst-2")
    _fetch_back(ctx, c, g, [(t, [0])], ids)


@scenario("offsets.commit.consumer_member",
          "OffsetCommit v9+ by a consumer group member (KIP-848) with its current member "
          "epoch commits; before v9 such a member gets UNSUPPORTED_VERSION",
          api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    g = ctx.group()
    mid = ho.member_id("a")
    epoch = ho.cg_member(ctx, c, g, mid)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 10), (1, 20, "cg")])], epoch, epoch,
                         mid, ids=ids)
    _fetch_back(ctx, c, g, [(t, [0, 1])], ids)


@scenario("offsets.commit.consumer_stale_epoch",
          "OffsetCommit v9+ by a consumer group member with a newer member epoch answers "
          "STALE_MEMBER_EPOCH, as does an older epoch for a partition it is not assigned",
          api="OffsetCommit", versions=(9, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid = ho.member_id("a")
    epoch = ho.cg_member(ctx, c, g, mid)
    for value in (epoch + 1, epoch + 5, epoch - 1):
        ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 10)])], epoch, value, mid,
                             ids=ids)
    _fetch_back(ctx, c, g, [(t, [0])], ids)


def _range_hb(ctx, c, g, mid, epoch, topics=None, owned=None):
    """A ConsumerGroupHeartbeat with the range assignor (contiguous ranges in
    member id order, so that who gives up what is plain); topics on a join,
    owned: [(topic id, [partitions])] or None. Recorded."""
    v = ho.top(ctx, "ConsumerGroupHeartbeat")
    body = {"GroupId": g, "MemberId": mid, "MemberEpoch": epoch}
    if topics is not None:
        body.update({"RebalanceTimeoutMs": ho.SESSION_MS, "SubscribedTopicNames": topics,
                     "ServerAssignor": "range", "TopicPartitions": []})
    if owned is not None:
        body["TopicPartitions"] = [{"TopicId": t, "Partitions": p} for t, p in owned]
    r = c.call("ConsumerGroupHeartbeat", v, body)
    if r is None or r["ErrorCode"] != 0:
        raise ho.ScenarioError("ConsumerGroupHeartbeat: %r" % (r,))
    return r


@scenario("offsets.commit.consumer_assignment_epochs",
          "OffsetCommit v9+ with a member epoch older than the member's (KIP-1251): a "
          "partition still assigned since that epoch commits, also while being revoked; a "
          "revoked partition, one assigned at a later epoch or an epoch older than the "
          "assignment answer STALE_MEMBER_EPOCH for the whole commit, a partition with too "
          "large metadata aside; the epochs survive a restart",
          api="OffsetCommit", versions=(9, None), restartable=True)
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    # Members subscribe: the group coordinator must see the topic first.
    ids = hc.create_topics(ctx, c, [(t, 4)])
    tid = ids[t]
    g = ctx.group()
    a, z, first = ho.member_id("a"), ho.member_id("z"), ho.member_id("0")
    # a gets the four partitions at epoch e1.
    r = _range_hb(ctx, c, g, a, 0, topics=[t])
    e1 = r["MemberEpoch"]
    _range_hb(ctx, c, g, a, e1, owned=[(tid, [0, 1, 2, 3])])
    # z joins: a gives up 2 and 3, then takes the new epoch e2 keeping 0
    # and 1 (assigned at e1); z gets 2 and 3 at e2.
    cz = ctx.client("z")
    r = _range_hb(ctx, cz, g, z, 0, topics=[t])
    e2 = r["MemberEpoch"]
    _range_hb(ctx, c, g, a, e1, owned=[(tid, [0, 1, 2, 3])])
    _range_hb(ctx, c, g, a, e1, owned=[(tid, [0, 1])])
    _range_hb(ctx, cz, g, z, e2, owned=[])
    _range_hb(ctx, cz, g, z, e2, owned=[(tid, [2, 3])])
    ctx.note("epochs", {"e2 - e1": e2 - e1})
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 10), (1, 11)])], e2, e1, a, ids=ids)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(2, 12)])], e2, e1, a, ids=ids)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 13), (2, 14)])], e2, e1, a, ids=ids)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 15)])], e2, e1 - 1, a, ids=ids)
    ho.commit_with_epoch(ctx, cz, ctx.version, g, [(t, [(2, 16)])], e2, e1, z, ids=ids)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 17), (2, 18, "x" * 5000)])], e2, e1,
                         a, ids=ids)
    ctx.restart_point()
    # A third member sorting first takes 0 and 1: a revokes them (still at
    # e2) and commits them with e1 meanwhile.
    c0 = ctx.client("first")
    _range_hb(ctx, c0, g, first, 0, topics=[t])
    r = _range_hb(ctx, c, g, a, e2, owned=[(tid, [0, 1])])
    ctx.note("a revoking", {"epoch is e2": r["MemberEpoch"] == e2})
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 19), (1, 20)])], e2, e1, a, ids=ids)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 21)])], e2, e1 - 1, a, ids=ids)
    _fetch_back(ctx, c, g, [(t, [0, 1, 2, 3])], ids)


@scenario("offsets.commit.consumer_unknown_member",
          "OffsetCommit to a consumer group with members from an unknown member id, or with "
          "epoch -1 and an empty member id, answers UNKNOWN_MEMBER_ID; after the last member "
          "leaves, epoch -1 commits and the departed member is unknown",
          api="OffsetCommit", versions=(9, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid = ho.member_id("a")
    epoch = ho.cg_member(ctx, c, g, mid)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 10)])], epoch, epoch,
                         ho.member_id("stranger"), ids=ids)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 11)])], ids=ids)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 11)])], ids=ids, member_id=mid)
    ho.cg_leave(ctx, c, g, mid)
    ho.commit(ctx, c, ctx.version, g, [(t, [(0, 12)])], ids=ids)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 13)])], epoch, epoch, mid, ids=ids)
    _fetch_back(ctx, c, g, [(t, [0])], ids)


@scenario("offsets.commit.empty_topics",
          "OffsetCommit with no topics, and with a topic without partitions, answers "
          "without committing or creating a group", api="OffsetCommit")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    ho.commit(ctx, c, ctx.version, g, [], ids=ids)
    ho.commit(ctx, c, ctx.version, g, [(t, [])], ids=ids)
    c.call("DescribeGroups", ho.top(ctx, "DescribeGroups"), {"Groups": [g]})


@scenario("offsets.commit.consumer_group_classic_member",
          "OffsetCommit by a classic-protocol member of a consumer group (KIP-848 interop): "
          "its generation commits, a newer or older one answers ILLEGAL_GENERATION, a "
          "consumer-protocol member beside it commits with its epoch", api="OffsetCommit",
          versions=(9, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid = ho.member_id("a")
    epoch = ho.cg_member(ctx, c, g, mid)
    c2 = ctx.client("c2")
    jv = ho.top(ctx, "JoinGroup")
    body = ho.h.join_body(jv, g, "", protocols=[("range", ho.h.subscription_v0([ctx.topic("none")]))],
                          session_timeout_ms=ho.SESSION_MS, rebalance_timeout_ms=ho.SESSION_MS)
    r = c2.call("JoinGroup", jv, body, record=False)
    if r is not None and r["ErrorCode"] == 79:
        body["MemberId"] = r["MemberId"]
        r = c2.call("JoinGroup", jv, body, record=False)
    ctx.note("classic join error", r["ErrorCode"])
    cmid, cgen = r["MemberId"], r["GenerationId"]
    s = ho.sync(ctx, c2, g, cmid, cgen, "consumer", r.get("ProtocolName") or "range", [])
    ctx.note("classic sync error", s["ErrorCode"])
    for value in (cgen, cgen + 1, cgen - 1):
        ho.commit_with_epoch(ctx, c2, ctx.version, g, [(t, [(0, 50 + value - cgen)])], cgen,
                             value, cmid, ids=ids)
    ho.commit_with_epoch(ctx, c, ctx.version, g, [(t, [(0, 60)])], epoch, epoch, mid, ids=ids)
    ho.fetch(ctx, c, ho.top(ctx, "OffsetFetch"), g, [(t, [0])], ids=ids)
