# SPDX-License-Identifier: Apache-2.0
"""Streams groups (KIP-1071): StreamsGroupDescribe of unknown, wrong-type
and live groups, the DescribeGroups and ListGroups views of a streams
group, endpoints for interactive queries, the initial rebalance delay,
topologies Kafka cannot configure."""

from conformance import ScenarioError, scenario
import h_streams as s

API = "StreamsGroupHeartbeat"
P = "streams"


def make_consumer_group(ctx, c, group, topic):
    cv = ctx.api_range("ConsumerGroupHeartbeat")[1]
    r = c.call("ConsumerGroupHeartbeat", cv,
               {"GroupId": group, "MemberId": "c1", "MemberEpoch": 0, "RebalanceTimeoutMs": 30000,
                "SubscribedTopicNames": [topic], "TopicPartitions": []}, record=False)
    if r["ErrorCode"] != 0:
        raise ScenarioError("ConsumerGroupHeartbeat: %r" % (r,))


def make_simple_group(ctx, c, group, topic):
    body = {"GroupId": group, "GenerationIdOrMemberEpoch": -1, "MemberId": "",
            "GroupInstanceId": None,
            "Topics": [{"Name": topic, "Partitions": [{"PartitionIndex": 0, "CommittedOffset": 5,
                                                       "CommittedLeaderEpoch": -1,
                                                       "CommittedMetadata": ""}]}]}
    ov = min(ctx.api_range("OffsetCommit")[1], 9)
    r = c.call("OffsetCommit", ov, body, record=False)
    if r["Topics"][0]["Partitions"][0]["ErrorCode"] != 0:
        raise ScenarioError("OffsetCommit: %r" % (r,))


@scenario("streams.describe.unknown_and_wrong_type",
          "StreamsGroupDescribe at every version: unknown groups, an empty group id, a "
          "consumer group and a classic group are GROUP_ID_NOT_FOUND with Kafka's messages; "
          "a live streams group in the same request is described, with authorized operations "
          "when asked",
          api="StreamsGroupDescribe", profile=P)
def _(ctx):
    setup = ctx.client("setup")
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 1})
    cg, eg, sg = ctx.group("consumer"), ctx.group("classic"), ctx.group("streams")
    make_consumer_group(ctx, setup, cg, src)
    make_simple_group(ctx, setup, eg, src)
    m = s.Member(ctx, sg, "m1", s.topology([s.subtopology("0", source=[src])]))
    m.join(record=False)
    c = ctx.client()
    v = ctx.version
    c.call("StreamsGroupDescribe", v, {"GroupIds": [ctx.group("nope")],
                                       "IncludeAuthorizedOperations": False})
    c.call("StreamsGroupDescribe", v, {"GroupIds": [ctx.group("nope"), cg, eg, sg, ""],
                                       "IncludeAuthorizedOperations": False})
    c.call("StreamsGroupDescribe", v, {"GroupIds": [sg, sg], "IncludeAuthorizedOperations": True})
    c.call("StreamsGroupDescribe", v, {"GroupIds": [], "IncludeAuthorizedOperations": False})


@scenario("streams.describe.live_group",
          "StreamsGroupDescribe at every version of a group with a stateful topology and two "
          "members with endpoints, tags, racks and instance ids, mid-reconciliation and "
          "settled: states, epochs, member fields, assignment and target assignment",
          api="StreamsGroupDescribe", profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {src: 3})
    t = s.topology([s.subtopology("0", source=[src],
                                  changelog=[s.topic_info(cl, configs={"cleanup.policy": "compact"})])])
    m1 = s.Member(ctx, g, "m1", t, instance_id="inst-1", endpoint=("host-a", 8080))
    m2 = s.Member(ctx, g, "m2", t, endpoint=("host-b", 9090))
    m1.join(record=False, RackId="rack-1", ClientTags=[{"Key": "zone", "Value": "z1"}])
    s.wait_topics(ctx, setup, [cl])
    m1.heartbeat(record=False)
    c = ctx.client()
    v = ctx.version
    c.call("StreamsGroupDescribe", v, {"GroupIds": [g], "IncludeAuthorizedOperations": False})
    m2.join(record=False)
    c.call("StreamsGroupDescribe", v, {"GroupIds": [g], "IncludeAuthorizedOperations": False})
    m1.heartbeat(record=False)
    c.call("StreamsGroupDescribe", v, {"GroupIds": [g], "IncludeAuthorizedOperations": False})
    for _ in range(3):
        m1.heartbeat(record=False)
        m2.heartbeat(record=False)
    c.call("StreamsGroupDescribe", v, {"GroupIds": [g], "IncludeAuthorizedOperations": True})


@scenario("streams.describe.other_apis",
          "DescribeGroups and ListGroups views of a streams group at every version: "
          "DescribeGroups of a streams group, ListGroups with and without type and state "
          "filters (only this case's groups noted), ConsumerGroupDescribe of a streams group",
          profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    m = s.Member(ctx, g, "m1", s.topology([s.subtopology("0", source=[src])]))
    m.join(record=False)
    empty = ctx.group("empty")
    e = s.Member(ctx, empty, "e1", s.topology([s.subtopology("0", source=[src])]))
    e.join(record=False)
    e.leave(record=False)
    c = ctx.client()
    lo, hi = ctx.api_range("DescribeGroups")
    for v in range(lo, hi + 1):
        body = {"Groups": [g, empty]}
        if v >= 3:
            body["IncludeAuthorizedOperations"] = False
        c.call("DescribeGroups", v, body)
    mine = ctx.slug + "."
    lo, hi = ctx.api_range("ListGroups")
    for v in range(lo, hi + 1):
        for filters in ({}, {"TypesFilter": ["streams"]}, {"TypesFilter": ["consumer", "classic"]},
                        {"StatesFilter": ["Empty"]}, {"StatesFilter": ["stable", "NotReady"]}):
            if "TypesFilter" in filters and v < 5:
                continue
            if "StatesFilter" in filters and v < 4:
                continue
            r = c.call("ListGroups", v, dict({"StatesFilter": [], "TypesFilter": []}, **filters)
                       if v >= 4 else {}, record=False)
            # Only this case's groups; the probe groups of the topic setup
            # depend on timing.
            groups = sorted((x for x in r["Groups"] if x["GroupId"].startswith(mine)
                             and not x["GroupId"].startswith(mine + "probe-")),
                            key=lambda x: x["GroupId"])
            ctx.note("ListGroups v%d %s: error %d" % (v, sorted(filters.items()), r["ErrorCode"]),
                     groups)
    rng = ctx.api_range("ConsumerGroupDescribe")
    if rng:
        c.call("ConsumerGroupDescribe", rng[1], {"GroupIds": [g],
                                                 "IncludeAuthorizedOperations": False})


@scenario("streams.endpoints",
          "StreamsGroupHeartbeat: members with UserEndpoints get PartitionsByUserEndpoint "
          "(active and standby partitions of the source topics per endpoint) when their "
          "EndpointInformationEpoch is behind the group's, and none when it is current; a "
          "changed endpoint bumps the endpoint epoch",
          api=API, profile="streams_standby")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    a, b = ctx.topic("a"), ctx.topic("b")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {a: 2, b: 2})
    t = s.topology([s.subtopology("0", source=[a, b], changelog=[cl])])
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version, endpoint=("host-a", 1111))
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version, endpoint=("host-b", 2222))
    m1.join()
    s.wait_topics(ctx, setup, [cl])
    m1.heartbeat()
    m2.join()
    for _ in range(3):
        m1.heartbeat()
        m2.heartbeat()
    ep = m1.last["EndpointInformationEpoch"]
    m1.heartbeat(EndpointInformationEpoch=ep)
    m1.heartbeat(EndpointInformationEpoch=0)
    m2.heartbeat(EndpointInformationEpoch=ep, UserEndpoint={"Host": "host-c", "Port": 3333})
    m1.heartbeat(EndpointInformationEpoch=ep)
    m3 = s.Member(ctx, g, "m3", t, version=ctx.version)
    m3.join()


@scenario("streams.initial_delay",
          "StreamsGroupHeartbeat with group.streams.initial.rebalance.delay.ms=1000: the first "
          "member of a new group gets status ASSIGNMENT_DELAYED and no tasks at epoch 1; after "
          "the delay its heartbeat gets the tasks; a member joining later is not delayed",
          api=API, profile="streams_delay")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = s.topology([s.subtopology("0", source=[src])])
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m1.join()
    dv = s.describe_version(ctx)
    s.describe(m1.c, dv, [g])

    def assigned():
        r = s.describe(m1.c, dv, [g], record=False)
        return r["Groups"][0]["AssignmentEpoch"] > 1
    ctx.wait_until(assigned, "the delayed first assignment")
    s.describe(m1.c, dv, [g])
    m1.heartbeat()
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m2.join()
    m1.heartbeat()
    m2.heartbeat()


@scenario("streams.topology.unconfigurable",
          "StreamsGroupHeartbeat join: a repartition source topic nothing writes to, a loop of "
          "repartition topics, and a subtopology without source topics are "
          "STREAMS_INVALID_TOPOLOGY with Kafka's messages, and no group is created",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    r1, r2 = ctx.topic("r1"), ctx.topic("r2")
    s.create_topics(ctx, setup, {src: 2})
    c = ctx.client()
    v = ctx.version
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([
        s.subtopology("0", source=[src]),
        s.subtopology("1", repartition_source=[r1])])))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([
        s.subtopology("0", repartition_source=[r1], repartition_sink=[r2]),
        s.subtopology("1", repartition_source=[r2], repartition_sink=[r1])])))
    c.call(API, v, s.hb(g, "m1", 0, topo=s.topology([
        s.subtopology("0", source=[src]), s.subtopology("1")])))
    s.describe(c, s.describe_version(ctx), [g])


@scenario("streams.topology_description.update_without_store",
          "StreamsGroupTopologyDescriptionUpdate (API 93, KIP-1331) on a broker without a "
          "topology-description store: the answers for an unknown group, an unknown member, "
          "a stale and the current topology epoch; heartbeats never ask for a push "
          "(TopologyDescriptionRequired false) and StreamsGroupDescribe v1 with "
          "IncludeTopologyDescription reports the status Kafka does",
          api="StreamsGroupTopologyDescriptionUpdate", profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 1})
    m = s.Member(ctx, g, "m1", s.topology([s.subtopology("0", source=[src])], epoch=3))
    m.join()
    c = ctx.client()
    v = ctx.version
    desc = {"Subtopologies": [{"SubtopologyId": "0", "Nodes": [
        {"Name": "KSTREAM-SOURCE-0000000000", "NodeType": 0, "SourceTopics": [src],
         "SinkTopic": None, "Stores": [], "Successors": []}]}], "GlobalStores": []}
    api = "StreamsGroupTopologyDescriptionUpdate"
    c.call(api, v, {"GroupId": ctx.group("nope"), "MemberId": "m1", "TopologyEpoch": 3,
                    "TopologyDescription": desc})
    c.call(api, v, {"GroupId": g, "MemberId": "nobody", "TopologyEpoch": 3,
                    "TopologyDescription": desc})
    c.call(api, v, {"GroupId": g, "MemberId": "m1", "TopologyEpoch": 2,
                    "TopologyDescription": desc})
    c.call(api, v, {"GroupId": g, "MemberId": "m1", "TopologyEpoch": 3,
                    "TopologyDescription": desc})
    m.heartbeat()
    dv = s.describe_version(ctx)
    if dv >= 1:
        c.call("StreamsGroupDescribe", dv, {"GroupIds": [g], "IncludeAuthorizedOperations": False,
                                            "IncludeTopologyDescription": True})


def offs(*entries):
    """TaskOffset list from (subtopology id, partition, offset) triples."""
    return [{"SubtopologyId": sid, "Partition": p, "Offset": o} for sid, p, o in entries]


@scenario("streams.describe.task_offsets",
          "StreamsGroupDescribe: each member's last reported TaskOffsets and TaskEndOffsets, "
          "sorted by subtopology id then partition; a null list keeps the last one, an empty "
          "one clears it, each list on its own; offsets sent with the join that creates the "
          "group, and those of a removed member, are gone; a static member rejoining "
          "under its member id after -2, and under a new one",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = s.topology([s.subtopology("0", source=[src])])
    dv = s.describe_version(ctx)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m1.join(TaskOffsets=offs(("0", 0, 5)), TaskEndOffsets=offs(("0", 0, 6)))
    s.describe(m1.c, dv, [g])
    m1.heartbeat(TaskOffsets=offs(("2", 1, 7), ("10", 0, 8), ("0", 3, 9), ("1", -1, -1),
                                  ("0", 0, 1 << 40), ("10", -5, 0)),
                 TaskEndOffsets=offs(("0", 1, 100), ("0", 0, 200)))
    s.describe(m1.c, dv, [g])
    m1.heartbeat(TaskOffsets=None, TaskEndOffsets=offs(("0", 0, 300)))
    s.describe(m1.c, dv, [g])
    m1.heartbeat(TaskOffsets=[], TaskEndOffsets=None)
    s.describe(m1.c, dv, [g])
    m1.heartbeat()
    s.describe(m1.c, dv, [g])
    # A member joining the existing group keeps what its join reported.
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m2.join(TaskOffsets=offs(("0", 1, 11)), TaskEndOffsets=[])
    s.describe(m1.c, dv, [g])
    # Removed with its leave; a rejoin under the same id starts empty.
    m2.leave()
    m2.join()
    s.describe(m1.c, dv, [g])
    # A static member: kept at -2, then rejoining under its own member id,
    # then under a new one.
    m3 = s.Member(ctx, g, "m3", t, version=ctx.version, instance_id="i3")
    m3.join(TaskOffsets=offs(("0", 0, 1)))
    m3.heartbeat(TaskOffsets=offs(("0", 0, 2)), TaskEndOffsets=offs(("0", 0, 3)))
    m3.leave(epoch=s.STATIC_LEAVE)
    s.describe(m1.c, dv, [g])
    m3.join(TaskOffsets=offs(("0", 1, 4)))
    s.describe(m1.c, dv, [g])
    m3.heartbeat(TaskOffsets=offs(("0", 0, 5)))
    m3.leave(epoch=s.STATIC_LEAVE)
    m4 = s.Member(ctx, g, "m4", t, version=ctx.version, instance_id="i3", client=m3.c)
    m4.join(TaskEndOffsets=offs(("0", 1, 6)))
    s.describe(m1.c, dv, [g])
