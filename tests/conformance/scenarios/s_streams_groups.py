# SPDX-License-Identifier: Apache-2.0
"""Streams groups (KIP-1071) seen through the other group APIs: offset
commits and fetches checked against streams member epochs, DeleteGroups,
and the consumer and classic protocols meeting a streams group."""

from conformance import scenario
import helpers as h
import h_streams as s

P = "streams"


def commit_body(group, topic, member_id, epoch, offset=10):
    return {"GroupId": group, "GenerationIdOrMemberEpoch": epoch, "MemberId": member_id,
            "GroupInstanceId": None,
            "Topics": [{"Name": topic, "Partitions": [{"PartitionIndex": 0, "CommittedOffset": offset,
                                                       "CommittedLeaderEpoch": -1,
                                                       "CommittedMetadata": "m"}]}]}


@scenario("streams.offsets.member_epoch",
          "OffsetCommit v9 and OffsetFetch v9 for a streams group: the member's epoch commits, "
          "an older or newer epoch is STALE_MEMBER_EPOCH or FENCED, an unknown member "
          "UNKNOWN_MEMBER_ID, an admin commit (empty member, epoch -1) of a non-empty group is "
          "refused; the fetch with the member epoch sees the offset",
          profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    m = s.Member(ctx, g, "m1", s.topology([s.subtopology("0", source=[src])]))
    m.join()
    m.heartbeat()
    c = ctx.client()
    ov = min(ctx.api_range("OffsetCommit")[1], 9)
    c.call("OffsetCommit", ov, commit_body(g, src, "m1", m.epoch))
    c.call("OffsetCommit", ov, commit_body(g, src, "m1", m.epoch - 1))
    c.call("OffsetCommit", ov, commit_body(g, src, "m1", m.epoch + 1))
    c.call("OffsetCommit", ov, commit_body(g, src, "nobody", m.epoch))
    c.call("OffsetCommit", ov, commit_body(g, src, "", -1))
    fv = min(ctx.api_range("OffsetFetch")[1], 9)
    for member, epoch in (("m1", m.epoch), ("m1", m.epoch + 1), ("nobody", 1), (None, -1)):
        c.call("OffsetFetch", fv, {"Groups": [{"GroupId": g, "MemberId": member,
                                               "MemberEpoch": epoch,
                                               "Topics": [{"Name": src, "PartitionIndexes": [0]}]}],
                                   "RequireStable": False})


def commit_parts(group, topic, member_id, epoch, parts):
    """An OffsetCommit v9 body of partitions parts [(partition, offset)] of topic."""
    return {"GroupId": group, "GenerationIdOrMemberEpoch": epoch, "MemberId": member_id,
            "GroupInstanceId": None,
            "Topics": [{"Name": topic, "Partitions": [
                {"PartitionIndex": p, "CommittedOffset": o, "CommittedLeaderEpoch": -1,
                 "CommittedMetadata": ""} for p, o in parts]}]}


@scenario("streams.offsets.assignment_epochs",
          "OffsetCommit v9 for a streams group with a member epoch older than the member's "
          "(KIP-1251, per task as Kafka 4.4): a source partition whose active task the member "
          "holds since that epoch commits, also while it revokes the task; a task revoked, "
          "assigned at a later epoch, a topic outside the topology or an epoch older than the "
          "assignment answer STALE_MEMBER_EPOCH for the whole commit",
          profile=P, restartable=True)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src, other = ctx.topic("in"), ctx.topic("other")
    s.create_topics(ctx, setup, {src: 4, other: 1})
    topo = s.topology([s.subtopology("0", source=[src])])
    m1 = s.Member(ctx, g, "m1", topo)
    m1.join()
    m1.settle()
    e1 = m1.epoch
    ctx.note("m1 tasks", m1.active)
    # m2 joins: m1 gives tasks up and moves on to a later epoch; what it
    # keeps stays assigned at e1, m2's tasks are assigned at m2's epoch.
    m2 = s.Member(ctx, g, "m2", topo)
    m2.join()
    m1.settle([m2])
    ctx.note("after m2", {"m1": m1.active, "m2": m2.active, "later": m1.epoch > e1})
    kept = m1.active.get("0", [])
    gone = [p for p in range(4) if p not in kept]
    c = ctx.client()
    ov = min(ctx.api_range("OffsetCommit")[1], 9)
    c.call("OffsetCommit", ov, commit_parts(g, src, "m1", e1, [(p, 10 + p) for p in kept]))
    c.call("OffsetCommit", ov, commit_parts(g, src, "m1", e1, [(gone[0], 20)]))
    c.call("OffsetCommit", ov, commit_parts(g, src, "m1", e1, [(kept[0], 30), (gone[0], 31)]))
    c.call("OffsetCommit", ov, commit_parts(g, src, "m1", e1 - 1, [(kept[0], 40)]))
    c.call("OffsetCommit", ov, commit_parts(g, src, "m2", m2.epoch - 1, [(gone[0], 50)]))
    c.call("OffsetCommit", ov, commit_parts(g, other, "m1", e1, [(0, 60)]))
    c.call("OffsetCommit", ov, commit_parts(g, other, "m1", m1.epoch, [(0, 61)]))
    ctx.restart_point()
    c.call("OffsetCommit", ov, commit_parts(g, src, "m1", e1, [(p, 70 + p) for p in kept]))
    # m3 joins: whoever gives a task up commits it with its old epoch while
    # it revokes it.
    m3 = s.Member(ctx, g, "m3", topo)
    m3.join()
    for m in (m1, m2):
        held = m.active.get("0", [])
        m.heartbeat()
        ctx.note("%s now" % m.member_id, m.active)
        c.call("OffsetCommit", ov, commit_parts(g, src, m.member_id, e1,
                                                [(p, 80 + p) for p in held]))
    fv = min(ctx.api_range("OffsetFetch")[1], 9)
    c.call("OffsetFetch", fv, {"Groups": [{"GroupId": g, "MemberId": None, "MemberEpoch": -1,
                                           "Topics": [{"Name": src,
                                                       "PartitionIndexes": [0, 1, 2, 3]}]}],
                               "RequireStable": False})


@scenario("streams.delete_groups",
          "DeleteGroups at every version of a streams group: NON_EMPTY_GROUP while it has "
          "members, deleted once the last member left (with its offsets); describe then finds "
          "no group and a new join starts over at epoch 2",
          api="DeleteGroups", profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 1})
    t = s.topology([s.subtopology("0", source=[src])])
    m = s.Member(ctx, g, "m1", t)
    m.join()
    c = ctx.client()
    ov = min(ctx.api_range("OffsetCommit")[1], 9)
    c.call("OffsetCommit", ov, commit_body(g, src, "m1", m.epoch), record=False)
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g]})
    m.leave()
    # One group per request: the order of several results follows how each
    # broker spreads groups over __consumer_offsets partitions.
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [g]})
    c.call("DeleteGroups", ctx.version, {"GroupsNames": [ctx.group("nope")]})
    dv = s.describe_version(ctx)
    s.describe(c, dv, [g])
    c.call("OffsetFetch", min(ctx.api_range("OffsetFetch")[1], 9),
           {"Groups": [{"GroupId": g, "MemberId": None, "MemberEpoch": -1,
                        "Topics": [{"Name": src, "PartitionIndexes": [0]}]}],
            "RequireStable": False})
    m2 = s.Member(ctx, g, "m2", t)
    m2.join()


@scenario("streams.other_protocols",
          "A streams group meets the other protocols: ConsumerGroupHeartbeat is "
          "GROUP_ID_NOT_FOUND (not a consumer group), a classic JoinGroup of a new member is "
          "refused while the streams group has members and, once it is empty, turns it into an "
          "empty classic group that a streams join takes over again",
          profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 1})
    m = s.Member(ctx, g, "m1", s.topology([s.subtopology("0", source=[src])]))
    m.join()
    c = ctx.client()
    cv = ctx.api_range("ConsumerGroupHeartbeat")[1]
    c.call("ConsumerGroupHeartbeat", cv,
           {"GroupId": g, "MemberId": "c1", "MemberEpoch": 0, "RebalanceTimeoutMs": 30000,
            "SubscribedTopicNames": [src], "TopicPartitions": []})
    jv = ctx.api_range("JoinGroup")[1]
    c.call("JoinGroup", jv, h.join_body(jv, g, "", protocols=[("range", h.subscription_v0([src]))]))
    m.leave()
    r = c.call("JoinGroup", jv, h.join_body(jv, g, "",
                                            protocols=[("range", h.subscription_v0([src]))]))
    if r and r.get("MemberId"):
        # The join turned the empty group into a classic one (an empty one
        # again), which a streams join takes over. A describe in between
        # is left out: Kafka reads the last committed state, which may not
        # hold the conversion yet.
        m.c.call("StreamsGroupHeartbeat", s.hb_version(ctx),
                 s.hb(g, "m9", 0, topo=s.topology([s.subtopology("0", source=[src])])))
