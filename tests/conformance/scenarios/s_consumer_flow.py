# SPDX-License-Identifier: Apache-2.0
"""Consumer groups over time: members leaving, rebalance timeouts, topics
growing, member metadata changes, classic members' own APIs."""

from conformance import scenario
import h_consumer as hc
import helpers as h

API = hc.API


def _settle(ctx, clients, g, members, epoch, owned, rounds):
    """Heartbeats every member `rounds` times (recorded), each reporting
    what it owns, as a real consumer would."""
    for _ in range(rounds):
        for i, m in enumerate(members):
            if m not in epoch:
                continue
            r = hc.hb(ctx, clients[i], g, m, epoch[m], TopicPartitions=owned[m])
            if r is None or r["ErrorCode"] != 0:
                continue
            epoch[m] = r["MemberEpoch"]
            if r.get("Assignment") is not None:
                owned[m] = hc.owned(r)


def _leave_flow(ctx, assignor, partitions, subs):
    members = [hc.M1, hc.M2, hc.M3][:len(subs)]
    clients = [ctx.client("m%d" % (i + 1)) for i in range(len(members))]
    g = ctx.group()
    hc.create_topics(ctx, clients[0], [(ctx.topic(), partitions)])
    epoch, owned = {}, {}
    for i, m in enumerate(members):
        r = hc.join(ctx, clients[i], g, m, [ctx.topic()] if subs[i] else [],
                    ServerAssignor=assignor)
        epoch[m], owned[m] = r["MemberEpoch"], hc.owned(r) or []
    _settle(ctx, clients, g, members, epoch, owned, 3)
    # The first member leaves; the others take its partitions.
    hc.hb(ctx, clients[0], g, members[0], -1)
    del epoch[members[0]]
    _settle(ctx, clients, g, members, epoch, owned, 2)
    hc.describe(ctx, clients[1], [g])


@scenario("consumer.flow.uniform.member_leaves",
          "ConsumerGroupHeartbeat v1: three members of a uniform group on a topic of 8 "
          "partitions settle, then one leaves and the other two take its partitions "
          "(heartbeat answers and describe after)", api=API, versions=(1, None))
def _(ctx):
    _leave_flow(ctx, "uniform", 8, [True, True, True])


@scenario("consumer.flow.range.member_leaves",
          "ConsumerGroupHeartbeat v1: three members of a range group on a topic of 8 "
          "partitions settle, then one leaves and the ranges are recomputed", api=API,
          versions=(1, None))
def _(ctx):
    _leave_flow(ctx, "range", 8, [True, True, True])


@scenario("consumer.flow.uniform.heterogeneous_leave",
          "ConsumerGroupHeartbeat v1: a uniform group where one member subscribes to nothing "
          "(heterogeneous): the balanced assignment after the first subscriber leaves",
          api=API, versions=(1, None))
def _(ctx):
    _leave_flow(ctx, "uniform", 7, [True, False, True])


@scenario("consumer.flow.rebalance_timeout",
          "ConsumerGroupHeartbeat v1: a member asked to revoke that does not within its "
          "RebalanceTimeoutMs (1 s) is fenced; its next heartbeat is UNKNOWN_MEMBER_ID and the "
          "other member gets every partition", api=API, versions=(1, None))
def _(ctx):
    c1, c2 = ctx.client("m1"), ctx.client("m2")
    g, t = ctx.group(), ctx.topic()
    tid = hc.create_topics(ctx, c1, [(t, 2)])[t]
    r1 = hc.join(ctx, c1, g, hc.M1, [t], RebalanceTimeoutMs=1000)
    hc.hb(ctx, c1, g, hc.M1, r1["MemberEpoch"], TopicPartitions=hc.owned(r1))
    r2 = hc.join(ctx, c2, g, hc.M2, [t])
    # M1 learns it must revoke; the rebalance timeout starts.
    hc.hb(ctx, c1, g, hc.M1, r1["MemberEpoch"],
          TopicPartitions=[{"TopicId": tid, "Partitions": [0, 1]}])
    ctx.wait_until(lambda: len(hc.describe(ctx, c2, [g], record=False)["Groups"][0]["Members"])
                   == 1, "the rebalance timeout to fence the first member")
    hc.hb(ctx, c1, g, hc.M1, r1["MemberEpoch"],
          TopicPartitions=[{"TopicId": tid, "Partitions": [0, 1]}])
    r2 = hc.hb(ctx, c2, g, hc.M2, r2["MemberEpoch"], TopicPartitions=[])
    hc.describe(ctx, c2, [g])


@scenario("consumer.flow.partitions_added",
          "ConsumerGroupHeartbeat v1: partitions added to a subscribed topic (CreatePartitions) "
          "bump the group epoch at the next heartbeat and are assigned", api=API,
          versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    r = hc.join(ctx, c, g, hc.M1, [t])
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    owned = hc.owned(r) if r.get("Assignment") else None
    v = ctx.api_range("CreatePartitions")[1]
    c.call("CreatePartitions", v, {"Topics": [{"Name": t, "Count": 4, "Assignments": None}],
                                   "TimeoutMs": 30000, "ValidateOnly": False}, record=False)
    hc.wait_topics(ctx, c, [(t, 4)])
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=owned)
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.describe(ctx, c, [g])


@scenario("consumer.flow.member_metadata_change",
          "ConsumerGroupHeartbeat: a steady member changing its RackId, its rebalance timeout "
          "and its client id keeps its epoch (no subscription change); describe shows the "
          "new values", api=API)
def _(ctx):
    c = ctx.client(client_id="first-client")
    g = ctx.group()
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [], RackId="rack-a")
    m = r["MemberId"]
    c2 = ctx.client(client_id="second-client")
    hc.hb(ctx, c2, g, m, r["MemberEpoch"], RackId="rack-b", RebalanceTimeoutMs=9000)
    hc.describe(ctx, c2, [g])


@scenario("consumer.flow.same_subscription_again",
          "ConsumerGroupHeartbeat: resending the same subscribed topic names (another order) "
          "does not bump the group epoch", api=API)
def _(ctx):
    c = ctx.client()
    g, a, b = ctx.group(), ctx.topic("a"), ctx.topic("b")
    hc.create_topics(ctx, c, [(a, 1), (b, 1)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [a, b], record=False)
    m = r["MemberId"]
    ctx.note("join epoch", r["MemberEpoch"])
    r2 = hc.hb(ctx, c, g, m, r["MemberEpoch"], SubscribedTopicNames=[b, a], record=False)
    ctx.note("epoch after the same names", r2["MemberEpoch"])
    ctx.note("group epoch", hc.group_epoch(ctx, c, g))


@scenario("consumer.classic.leave_group",
          "LeaveGroup of a classic member in a consumer group removes it and bumps the group "
          "epoch; the consumer-protocol member's next heartbeat gets the partitions",
          api=API, versions=(1, None))
def _(ctx):
    c, k = ctx.client("consumer"), ctx.client("classic")
    g, t, u = ctx.group(), ctx.topic(), ctx.topic("u")
    hc.create_topics(ctx, c, [(t, 2), (u, 1)])
    r = hc.join(ctx, c, g, hc.M1, [t])
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    jv = ctx.api_range("JoinGroup")[1]
    j = k.call("JoinGroup", jv, h.join_body(jv, g, "", protocols=[("range", h.subscription_v0([u]))]))
    j = k.call("JoinGroup", jv, h.join_body(jv, g, j["MemberId"],
                                            protocols=[("range", h.subscription_v0([u]))]))
    hc.describe_sorted(ctx, c, [g])
    lv = ctx.api_range("LeaveGroup")[1]
    k.call("LeaveGroup", lv, {"GroupId": g, "Members": [
        {"MemberId": j["MemberId"], "GroupInstanceId": None, "Reason": None}]})
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.describe(ctx, c, [g])


@scenario("consumer.session.static_member_expires",
          "A static member that left with epoch -2 and is not replaced is removed when its "
          "session (2 s in this profile) expires; its instance id is then free", api=API,
          versions=(1, None), profile="consumer_session")
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    hc.join(ctx, c, g, hc.M1, [t], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, -2, InstanceId="inst-1")
    hc.describe(ctx, c, [g])
    ctx.wait_until(lambda: not hc.describe(ctx, c, [g], record=False)["Groups"][0]["Members"],
                   "the static member's session to expire")
    hc.describe(ctx, c, [g])
    hc.join(ctx, c, g, hc.M2, [t], InstanceId="inst-1")


@scenario("consumer.flow.preferred_assignor",
          "ConsumerGroupHeartbeat v1: the group's assignor is the one most members name "
          "(range by two of three), bumping the group epoch when the preference changes; "
          "a tie (one each) and members naming none; the same after a restart", api=API,
          versions=(1, None), restartable=True)
def _(ctx):
    c = ctx.client()
    g, g2, t = ctx.group(), ctx.group("tie"), ctx.topic()
    hc.create_topics(ctx, c, [(t, 3)])
    hc.join(ctx, c, g, hc.M1, [t], ServerAssignor="range")
    hc.join(ctx, c, g, hc.M2, [t], ServerAssignor="uniform")
    hc.describe(ctx, c, [g])
    hc.join(ctx, c, g, hc.M3, [t], ServerAssignor="range")
    hc.describe(ctx, c, [g])
    hc.hb(ctx, c, g, hc.M1, -1)
    hc.describe(ctx, c, [g])
    hc.join(ctx, c, g2, hc.M1, [t], ServerAssignor="uniform")
    hc.join(ctx, c, g2, hc.M2, [t], ServerAssignor="range")
    hc.join(ctx, c, g2, hc.M3, [t])
    hc.describe(ctx, c, [g2])
    ctx.restart_point()
    hc.describe(ctx, c, [g, g2])


@scenario("consumer.flow.static_rejoin_same_id",
          "ConsumerGroupHeartbeat v1: a static member rejoining (epoch 0) with its own member "
          "id and instance id while active", api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    r = hc.join(ctx, c, g, hc.M1, [t], InstanceId="inst-1")
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.join(ctx, c, g, hc.M1, [t], InstanceId="inst-1")
    hc.describe(ctx, c, [g])


@scenario("consumer.flow.owned_unknown_topic",
          "ConsumerGroupHeartbeat: a steady heartbeat reporting partitions of a topic id the "
          "group does not know, and partitions it does not own", api=API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    tid = hc.create_topics(ctx, c, [(t, 2)])[t]
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    m, e = r["MemberId"], r["MemberEpoch"]
    hc.hb(ctx, c, g, m, e, TopicPartitions=[{"TopicId": b"\x07" * 16, "Partitions": [0]}])
    hc.hb(ctx, c, g, m, e, TopicPartitions=[{"TopicId": tid, "Partitions": [0, 1, 5]}])
    hc.hb(ctx, c, g, m, e, TopicPartitions=hc.owned(r))


@scenario("consumer.flow.full_request_gets_assignment",
          "ConsumerGroupHeartbeat: a steady heartbeat that repeats every field (a full "
          "request: rebalance timeout, subscription, owned partitions) gets its assignment "
          "again; one with only some of them does not", api=API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    m, e = r["MemberId"], r["MemberEpoch"]
    hc.hb(ctx, c, g, m, e, RebalanceTimeoutMs=30000, SubscribedTopicNames=[t],
          TopicPartitions=hc.owned(r))
    hc.hb(ctx, c, g, m, e, RebalanceTimeoutMs=30000, SubscribedTopicNames=[t])
    hc.hb(ctx, c, g, m, e, SubscribedTopicNames=[t], TopicPartitions=hc.owned(r))


@scenario("consumer.classic.member_session_expires",
          "A classic member (JoinGroup session timeout 1 s) in a consumer group that stops "
          "heartbeating is removed when its session expires, bumping the group epoch; the "
          "consumer-protocol member stays", api=API, versions=(1, None))
def _(ctx):
    c, k = ctx.client("consumer"), ctx.client("classic")
    g, t, u = ctx.group(), ctx.topic(), ctx.topic("u")
    hc.create_topics(ctx, c, [(t, 1), (u, 1)])
    r = hc.join(ctx, c, g, hc.M1, [t])
    jv = ctx.api_range("JoinGroup")[1]
    j = k.call("JoinGroup", jv, h.join_body(jv, g, "", session_timeout_ms=1000,
                                            protocols=[("range", h.subscription_v0([u]))]))
    k.call("JoinGroup", jv, h.join_body(jv, g, j["MemberId"], session_timeout_ms=1000,
                                        protocols=[("range", h.subscription_v0([u]))]))
    hc.describe_sorted(ctx, c, [g])
    ctx.wait_until(lambda: len(hc.describe(ctx, c, [g], record=False)["Groups"][0]["Members"])
                   == 1, "the classic member's session to expire")
    hc.describe(ctx, c, [g])
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"])


@scenario("consumer.classic.empty_classic_group_replaced",
          "ConsumerGroupHeartbeat joining a classic group whose members all left: the empty "
          "classic group gives way to a new consumer group", api=API, versions=(1, None))
def _(ctx):
    c, k = ctx.client("consumer"), ctx.client("classic")
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    jv = ctx.api_range("JoinGroup")[1]
    j = k.call("JoinGroup", jv, h.join_body(jv, g, "", protocols=[("range", h.subscription_v0([t]))]))
    j = k.call("JoinGroup", jv, h.join_body(jv, g, j["MemberId"],
                                            protocols=[("range", h.subscription_v0([t]))]))
    lv = ctx.api_range("LeaveGroup")[1]
    k.call("LeaveGroup", lv, {"GroupId": g, "Members": [
        {"MemberId": j["MemberId"], "GroupInstanceId": None, "Reason": None}]})
    dv = ctx.api_range("DescribeGroups")[1]
    c.call("DescribeGroups", dv, {"Groups": [g], "IncludeAuthorizedOperations": False})
    hc.join(ctx, c, g, hc.M1, [t])
    hc.describe(ctx, c, [g])


@scenario("consumer.flow.topic_deleted",
          "ConsumerGroupHeartbeat v1: a subscribed topic deleted (DeleteTopics) leaves the "
          "member's assignment at the next heartbeat, with a new group epoch", api=API,
          versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t, u = ctx.group(), ctx.topic(), ctx.topic("u")
    hc.create_topics(ctx, c, [(t, 2), (u, 1)])
    r = hc.join(ctx, c, g, hc.M1, [t, u], record=False)
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r), record=False)
    v = ctx.api_range("DeleteTopics")[1]
    body = {"TimeoutMs": 30000}
    if v >= 6:
        body["Topics"] = [{"Name": t, "TopicId": bytes(16)}]
    else:
        body["TopicNames"] = [t]
    c.call("DeleteTopics", v, body, record=False)
    mv = ctx.api_range("Metadata")[1]
    hv = ctx.api_range(API)[1]

    def gone():
        m = c.call("Metadata", min(mv, 12), {"Topics": [{"Name": t, "TopicId": bytes(16)}],
                                            "AllowAutoTopicCreation": False,
                                            "IncludeTopicAuthorizedOperations": False},
                   record=False)
        if m["Topics"][0]["ErrorCode"] == 0:
            return False
        # And the group coordinator no longer assigns it (a probe group).
        p = c.call(API, hv, {"GroupId": ctx.group("probe"), "MemberId": "probe",
                             "MemberEpoch": 0, "RebalanceTimeoutMs": 1000,
                             "SubscribedTopicNames": [t], "TopicPartitions": []},
                   record=False)
        return not (p.get("Assignment") or {}).get("TopicPartitions")
    ctx.wait_until(gone, "the topic to be deleted")
    r2 = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r) or None)
    hc.hb(ctx, c, g, hc.M1, r2["MemberEpoch"], TopicPartitions=hc.owned(r2) or None)
    hc.describe(ctx, c, [g])


@scenario("consumer.classic.join_wrong_protocol_type",
          "JoinGroup into a consumer group with a protocol type other than consumer is "
          "INCONSISTENT_GROUP_PROTOCOL; with protocol type consumer but a protocol the "
          "group does not know, the member joins", api=API, versions=(1, None))
def _(ctx):
    c, k = ctx.client("consumer"), ctx.client("classic")
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    hc.join(ctx, c, g, hc.M1, [t])
    jv = ctx.api_range("JoinGroup")[1]
    k.call("JoinGroup", jv, h.join_body(jv, g, "", protocol_type="connect",
                                        protocols=[("range", h.subscription_v0([t]))]))
    k.call("JoinGroup", jv, h.join_body(jv, g, "", protocols=[("sticky", b"\x00\x01")]))
