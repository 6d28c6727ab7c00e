# SPDX-License-Identifier: Apache-2.0
"""Classic groups as OffsetCommit sees them: a simple group made by a
commit outside any generation, then joined; a member's commit checked
against the group's generation, state and static identities."""

from conformance import scenario
import h_classic as k
import helpers as h


def create_topic(ctx, c, topic):
    # OffsetCommit checks the topic against the broker's metadata, which
    # learns of it a moment after CreateTopics answers.
    h.create_topics(ctx, c, {topic: 1})
    h.wait_topics_led(ctx, c, {topic: 1})


def commit(ctx, c, v, group, topic, gen=-1, member_id="", instance_id=None, offset=5):
    body = {"GroupId": group, "GenerationIdOrMemberEpoch": gen, "MemberId": member_id,
            "Topics": [{"Name": topic, "Partitions": [{"PartitionIndex": 0,
                                                       "CommittedOffset": offset,
                                                       "CommittedMetadata": ""}]}]}
    if v >= 7:
        body["GroupInstanceId"] = instance_id
    return c.call("OffsetCommit", v, body)


@scenario("classic.offsets.simple_group_then_join",
          "An OffsetCommit outside any generation makes an Empty group without protocol type; "
          "a classic member then joins it and leads generation 1", api="OffsetCommit",
          versions=(2, 9))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    create_topic(ctx, c, t)
    commit(ctx, c, ctx.version, g, t)
    k.describe(ctx, c, g)
    k.stable_member(ctx, c, g)
    k.describe(ctx, c, g)


@scenario("classic.offsets.member_commit_validation",
          "OffsetCommit by a classic member: accepted at its Stable generation; "
          "ILLEGAL_GENERATION with another one; UNKNOWN_MEMBER_ID for an unknown member; "
          "REBALANCE_IN_PROGRESS while the group prepares a rebalance and during "
          "CompletingRebalance", api="OffsetCommit", versions=(2, 9))
def _(ctx):
    a, b = ctx.client("a"), ctx.client("b")
    g, t = ctx.group(), ctx.topic()
    v = ctx.version
    create_topic(ctx, a, t)
    aid, gen = k.stable_member(ctx, a, g)
    commit(ctx, a, v, g, t, gen, aid)
    commit(ctx, a, v, g, t, gen + 1, aid)
    commit(ctx, a, v, g, t, gen, "nobody")
    bid = k.new_member_id(ctx, b, g)
    hj = k.send_join(ctx, b, g, bid)
    k.await_state(ctx, a, g, "PreparingRebalance")
    commit(ctx, a, v, g, t, gen, aid)
    ra = a.call("JoinGroup", k.top(ctx, "JoinGroup"), k.join_body(k.top(ctx, "JoinGroup"), g, aid))
    b.wait(hj)
    commit(ctx, a, v, g, t, ra["GenerationId"], aid)
    commit(ctx, a, v, g, t, gen, aid)


@scenario("classic.offsets.static_member_commit",
          "OffsetCommit v7+ by a static classic member: accepted with its instance id, "
          "FENCED_INSTANCE_ID through the replaced member id", api="OffsetCommit",
          versions=(7, 9))
def _(ctx):
    a, a2 = ctx.client("a"), ctx.client("a2")
    g, t = ctx.group(), ctx.topic()
    v = ctx.version
    create_topic(ctx, a, t)
    aid, gen = k.stable_member(ctx, a, g, instance_id="ia")
    commit(ctx, a, v, g, t, gen, aid, "ia")
    commit(ctx, a, v, g, t, gen, aid, None)
    r = a2.call("JoinGroup", k.top(ctx, "JoinGroup"),
                k.join_body(k.top(ctx, "JoinGroup"), g, "", instance_id="ia"))
    commit(ctx, a, v, g, t, gen, aid, "ia")
    commit(ctx, a2, v, g, t, r["GenerationId"], r["MemberId"], "ia")
    commit(ctx, a, v, g, t, gen, "", "ib")
