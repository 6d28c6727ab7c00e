# SPDX-License-Identifier: Apache-2.0
"""Streams groups (KIP-1071): joining with a topology, the topology
statuses (missing source and internal topics, incorrect partitioning,
stale topology, shutdown), topology epoch rules."""

from conformance import scenario
import h_streams as s

API = "StreamsGroupHeartbeat"
P = "streams"


@scenario("streams.join.single_member",
          "StreamsGroupHeartbeat: a first member joins with a stateless topology over a "
          "3-partition topic, gets the three active tasks at epoch 2; a heartbeat with the "
          "same tasks gets no task lists; StreamsGroupDescribe shows the Stable group",
          api=API, profile=P, restartable=True)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 3})
    m = s.Member(ctx, g, "m1", s.topology([s.subtopology("0", source=[src])]), version=ctx.version)
    m.join()
    m.heartbeat()
    m.heartbeat(full=False)
    ctx.restart_point()
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])


@scenario("streams.join.missing_source_topics",
          "StreamsGroupHeartbeat: a topology whose source topics do not exist gives status "
          "MISSING_SOURCE_TOPICS naming them and no tasks, state NotReady; once the topics "
          "exist the next heartbeat gets the tasks",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    a, b = ctx.topic("a"), ctx.topic("b")
    s.create_topics(ctx, setup, {a: 2})
    topo = s.topology([s.subtopology("0", source=[a]), s.subtopology("1", source=[b, ctx.topic("c")])])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])
    s.create_topics(ctx, setup, {b: 2, ctx.topic("c"): 2})
    m.heartbeat()
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])


@scenario("streams.join.missing_internal_topics",
          "StreamsGroupHeartbeat: a topology with a changelog topic and a repartition topic "
          "that do not exist gives status MISSING_INTERNAL_TOPICS and no tasks; the broker "
          "creates them (changelog with the subtopology's task count, repartition with the "
          "upstream partition count) and a later heartbeat gets all tasks",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    rep = ctx.topic("repartition")
    cl0 = ctx.topic("store0-changelog")
    cl1 = ctx.topic("store1-changelog")
    s.create_topics(ctx, setup, {src: 3})
    topo = s.topology([
        s.subtopology("0", source=[src], changelog=[cl0], repartition_sink=[rep]),
        s.subtopology("1", repartition_source=[rep], changelog=[cl1]),
    ])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()
    s.wait_topics(ctx, setup, [rep, cl0, cl1])
    ctx.note("internal topic partitions", s.partition_counts(ctx, setup, [rep, cl0, cl1]))
    m.heartbeat()
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])


@scenario("streams.join.internal_topic_configs",
          "StreamsGroupHeartbeat: the internal topics are created with the TopicConfigs of "
          "the topology (as Kafka Streams sends them for a changelog and a repartition topic, "
          "and a user topic.* setting); DescribeConfigs shows them as topic configs",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    rep = ctx.topic("repartition")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {src: 2})
    topo = s.topology([
        s.subtopology("0", source=[src], repartition_sink=[rep]),
        s.subtopology("1", repartition_source=[s.topic_info(rep, configs={
            "cleanup.policy": "delete", "retention.ms": "-1", "segment.bytes": "52428800",
            "message.timestamp.type": "CreateTime"})],
            changelog=[s.topic_info(cl, configs={
                "cleanup.policy": "compact", "message.timestamp.type": "CreateTime",
                "max.message.bytes": "2000000"})]),
    ])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()
    s.wait_topics(ctx, setup, [rep, cl])
    # Every config's value, and which are the topic's own (source
    # TOPIC_CONFIG). The sources of the others are the brokers' (Kafka's
    # controller keeps a cluster default of min.insync.replicas, kcoord has
    # no dynamic broker configs), and the order of the list is
    # DescribeConfigs' own: neither is this scenario's subject.
    r = setup.call("DescribeConfigs", 1, {
        "Resources": [{"ResourceType": 2, "ResourceName": t, "ConfigurationKeys": None}
                      for t in (rep, cl)],
        "IncludeSynonyms": False}, record=False)
    ctx.note("internal topic configs", {
        res["ResourceName"]: {"values": sorted((c["Name"], c["Value"]) for c in res["Configs"]),
                              "topic configs": sorted(c["Name"] for c in res["Configs"]
                                                      if c["ConfigSource"] == 1)}
        for res in r["Results"]})


@scenario("streams.join.internal_topic_creation_failed",
          "StreamsGroupHeartbeat: internal topics the broker refuses to create (a changelog "
          "config value that is no number, a repartition topic replicated more times than "
          "there are brokers) stay missing, and the next heartbeats name each refusal in the "
          "MISSING_INTERNAL_TOPICS detail (Kafka keeps the errors for two heartbeat intervals)",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    rep = ctx.topic("repartition")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {src: 2})
    topo = s.topology([
        s.subtopology("0", source=[src], repartition_sink=[rep]),
        s.subtopology("1", repartition_source=[s.topic_info(rep, replication_factor=3)],
                      changelog=[s.topic_info(cl, configs={"retention.ms": "abc"})]),
    ])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()

    def refused():
        r = m.heartbeat(record=False)
        return r is not None and any("; Creation failed: " in (st["StatusDetail"] or "")
                                     for st in r["Status"] or [])
    ctx.wait_until(refused, "the creation errors in the heartbeat's status")
    m.heartbeat()
    ctx.note("missing after the heartbeats", s.partition_counts(ctx, setup, [rep, cl]))


@scenario("streams.join.repartition_partitions",
          "StreamsGroupHeartbeat: a repartition source topic with a fixed partition count is "
          "created with that count; its subtopology gets that many tasks",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    rep = ctx.topic("repartition")
    s.create_topics(ctx, setup, {src: 2})
    topo = s.topology([
        s.subtopology("0", source=[src], repartition_sink=[rep]),
        s.subtopology("1", repartition_source=[s.topic_info(rep, partitions=5)]),
    ])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()
    s.wait_topics(ctx, setup, [rep])
    ctx.note("repartition partitions", s.partition_counts(ctx, setup, [rep]))
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])


@scenario("streams.join.incorrectly_partitioned",
          "StreamsGroupHeartbeat: a copartition group of two source topics with different "
          "partition counts gives status INCORRECTLY_PARTITIONED_TOPICS with Kafka's detail, "
          "no tasks, state NotReady",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    a, b = ctx.topic("a"), ctx.topic("b")
    s.create_topics(ctx, setup, {a: 2, b: 3})
    topo = s.topology([s.subtopology("0", source=[a, b], copartition=[([0, 1], [])])])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])


@scenario("streams.join.copartitioned_repartition",
          "StreamsGroupHeartbeat: a repartition source topic without a partition count in a "
          "copartition group with a source topic is created with the source topic's count",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src, other = ctx.topic("in"), ctx.topic("other")
    rep = ctx.topic("repartition")
    s.create_topics(ctx, setup, {src: 2, other: 4})
    topo = s.topology([
        s.subtopology("0", source=[src], repartition_sink=[rep]),
        s.subtopology("1", source=[other], repartition_source=[rep], copartition=[([0], [0])]),
    ])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()
    s.wait_topics(ctx, setup, [rep])
    ctx.note("repartition partitions", s.partition_counts(ctx, setup, [rep]))
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])


@scenario("streams.join.topology_epochs",
          "StreamsGroupHeartbeat: a member joining with a lower topology epoch gets status "
          "STALE_TOPOLOGY (and a TopologyEpoch of its own in describe); a higher epoch or a "
          "different topology at the same epoch is INVALID_REQUEST (topology updates are not "
          "supported)",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    sub = s.subtopology("0", source=[src])
    m1 = s.Member(ctx, g, "m1", s.topology([sub], epoch=3), version=ctx.version)
    m1.join()
    m2 = s.Member(ctx, g, "m2", s.topology([sub], epoch=2), version=ctx.version)
    m2.join()
    m2.heartbeat()
    m3 = s.Member(ctx, g, "m3", s.topology([sub], epoch=4), version=ctx.version)
    m3.join()
    m4 = s.Member(ctx, g, "m4", s.topology([s.subtopology("0", source=[src, ctx.topic("x")])],
                                           epoch=3), version=ctx.version)
    m4.join()
    m5 = s.Member(ctx, g, "m5", s.topology([s.subtopology("1", source=[src])], epoch=2),
                  version=ctx.version)
    m5.join()
    m1.heartbeat()
    s.describe(m1.c, s.describe_version(ctx), [g])


@scenario("streams.join.shutdown_application",
          "StreamsGroupHeartbeat: a member asking ShutdownApplication makes every member's "
          "heartbeat carry status SHUTDOWN_APPLICATION naming it, including a member that "
          "joins afterwards; the status stays after the requester leaves",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    topo = s.topology([s.subtopology("0", source=[src])])
    m1 = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m2 = s.Member(ctx, g, "m2", topo, version=ctx.version)
    m1.join()
    m2.join()
    m1.heartbeat(ShutdownApplication=True)
    m2.heartbeat()
    m1.heartbeat()
    m3 = s.Member(ctx, g, "m3", topo, version=ctx.version)
    m3.join()
    m1.leave()
    m2.heartbeat()


@scenario("streams.join.shutdown_on_leave",
          "StreamsGroupHeartbeat: a leave (-1) with ShutdownApplication sets the shutdown "
          "request of the group; the remaining member's heartbeat carries SHUTDOWN_APPLICATION",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    topo = s.topology([s.subtopology("0", source=[src])])
    m1 = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m2 = s.Member(ctx, g, "m2", topo, version=ctx.version)
    m1.join()
    m2.join()
    m1.c.call(API, ctx.version, s.hb(g, "m1", s.LEAVE, shutdown=True))
    m2.heartbeat()


@scenario("streams.join.rejoin_and_rebalance_timeout",
          "StreamsGroupHeartbeat: a member rejoining with epoch 0 keeps its member id and "
          "tasks; a heartbeat that changes only RebalanceTimeoutMs, RackId or ClientTags "
          "bumps the group epoch as Kafka does; describe shows the new values",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    topo = s.topology([s.subtopology("0", source=[src])])
    m = s.Member(ctx, g, "m1", topo, version=ctx.version)
    m.join()
    m.heartbeat()
    m.heartbeat(RebalanceTimeoutMs=45000)
    m.heartbeat(RackId="rack-a")
    m.heartbeat(RackId="rack-a")
    m.heartbeat(ClientTags=[{"Key": "zone", "Value": "z1"}])
    m.heartbeat(ProcessId="p-other")
    m.join()
    m.heartbeat()
    s.describe(m.c, s.describe_version(ctx), [g])
