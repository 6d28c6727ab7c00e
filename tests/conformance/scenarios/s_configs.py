# SPDX-License-Identifier: Apache-2.0
"""Dynamic configs: IncrementalAlterConfigs and AlterConfigs of topics,
groups, the broker and its root logger; DescribeConfigs of groups; group
configs acting on consumer and streams groups, surviving a restart and the
group's deletion."""

from conformance import scenario
import h_broker as hb
import h_consumer as hc
import h_streams as hs

TOPIC, BROKER, BROKER_LOGGER, GROUP = 2, 4, 8, 32
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3

# The group configs both brokers describe alike: every non-internal one but
# consumer.assignment.interval.ms, which the suite sets on Kafka only
# (profiles.KAFKA_ONLY), in Kafka's order of them.
GROUP_KEYS = [
    "consumer.session.timeout.ms", "streams.assignor.name",
    "errors.deadletterqueue.copy.record.enable", "share.auto.offset.reset",
    "streams.rack.aware.assignment.tags", "share.renew.acknowledge.enable",
    "streams.initial.rebalance.delay.ms", "share.session.timeout.ms",
    "streams.assignment.interval.ms", "share.heartbeat.interval.ms",
    "streams.heartbeat.interval.ms", "share.delivery.count.limit",
    "errors.deadletterqueue.topic.name", "consumer.heartbeat.interval.ms",
    "share.record.lock.duration.ms", "share.assignment.interval.ms", "share.isolation.level",
    "streams.session.timeout.ms", "share.partition.max.record.locks",
    "streams.num.standby.replicas",
]


# Every group config, the internal ones included.
ALL_GROUP_KEYS = GROUP_KEYS + [
    "consumer.assignment.interval.ms", "consumer.assignor.offload.enable",
    "share.assignor.offload.enable", "streams.assignor.offload.enable",
    "streams.task.offset.interval.ms", "streams.num.warmup.replicas",
    "streams.acceptable.recovery.lag"]


def settled(c):
    """Waits (unrecorded) until c's broker has applied the config changes
    its controller committed. Kafka answers IncrementalAlterConfigs and
    AlterConfigs once the controller has committed the change; the broker
    that serves DescribeConfigs and hosts the group coordinator applies it
    a moment later, from the same ordered metadata log as a topic created
    after it: once Metadata shows that topic, the change is in."""
    ctx = c.ctx
    ctx.settle_topics = getattr(ctx, "settle_topics", 0) + 1
    hb.create_topic(ctx, c, ctx.topic("settle%d" % ctx.settle_topics))


def _changed(r, validate_only):
    return r is not None and not validate_only and any(
        x["ErrorCode"] == 0 for x in r["Responses"])


def iac(c, version, resources, validate_only=False, record=True):
    """IncrementalAlterConfigs of resources [(type, name, [(config, op, value)])];
    when a resource changed, returns once the broker applied it (settled)."""
    r = c.call("IncrementalAlterConfigs", version, {
        "Resources": [{"ResourceType": t, "ResourceName": n,
                       "Configs": [{"Name": k, "ConfigOperation": o, "Value": v}
                                   for k, o, v in cfgs]}
                      for t, n, cfgs in resources],
        "ValidateOnly": validate_only}, record=record)
    if _changed(r, validate_only):
        settled(c)
    return r


def alter(c, version, resources, validate_only=False, record=True):
    """AlterConfigs of resources [(type, name, [(config, value)])], settled as iac."""
    r = c.call("AlterConfigs", version, {
        "Resources": [{"ResourceType": t, "ResourceName": n,
                       "Configs": [{"Name": k, "Value": v} for k, v in cfgs]}
                      for t, n, cfgs in resources],
        "ValidateOnly": validate_only}, record=record)
    if _changed(r, validate_only):
        settled(c)
    return r


def describe(ctx, c, rtype, name, keys, version=None, synonyms=True, docs=False):
    v = hb.top_version(ctx, "DescribeConfigs") if version is None else version
    body = {"Resources": [{"ResourceType": rtype, "ResourceName": name,
                           "ConfigurationKeys": keys}]}
    if v >= 1:
        body["IncludeSynonyms"] = synonyms
    if v >= 3:
        body["IncludeDocumentation"] = docs
    return c.call("DescribeConfigs", v, body)


def iac_top(ctx):
    return hb.top_version(ctx, "IncrementalAlterConfigs")


TOPIC_KEYS = ["cleanup.policy", "retention.ms", "max.message.bytes", "segment.bytes"]


@scenario("configs.iac.topic_ops",
          "IncrementalAlterConfigs at every version on a topic: SET, APPEND to and SUBTRACT "
          "from cleanup.policy (from its default), DELETE, an empty list, each change seen "
          "by DescribeConfigs with its source", api="IncrementalAlterConfigs")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    iac(c, ctx.version, [(TOPIC, t, [("retention.ms", SET, "1000"),
                                     ("cleanup.policy", APPEND, "compact"),
                                     ("max.message.bytes", SET, " 2000 ")])])
    describe(ctx, c, TOPIC, t, TOPIC_KEYS)
    iac(c, ctx.version, [(TOPIC, t, [("retention.ms", DELETE, None),
                                     ("cleanup.policy", SUBTRACT, "delete,compact")])])
    describe(ctx, c, TOPIC, t, TOPIC_KEYS)
    iac(c, ctx.version, [(TOPIC, t, [("cleanup.policy", APPEND, "delete,delete")])])
    iac(c, ctx.version, [(TOPIC, t, [("cleanup.policy", SET, "")])])
    describe(ctx, c, TOPIC, t, TOPIC_KEYS)
    # Deleting what is not set, or a name no topic config has, changes nothing.
    iac(c, ctx.version, [(TOPIC, t, [("segment.bytes", DELETE, None), ("nope", DELETE, None)])])
    describe(ctx, c, TOPIC, t, TOPIC_KEYS)


@scenario("configs.iac.topic_errors",
          "IncrementalAlterConfigs at every version: an unknown topic config, bad values "
          "with Kafka's messages, APPEND to a non-list, null values, a key twice, a resource "
          "twice, an empty and an invalid topic name, an unknown topic, empty list entries, "
          "min.compaction.lag.ms above max.compaction.lag.ms; nothing changes",
          api="IncrementalAlterConfigs")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    v = ctx.version
    iac(c, v, [(TOPIC, t, [("nope", SET, "1")])])
    iac(c, v, [(TOPIC, t, [("retention.ms", SET, "abc")])])
    iac(c, v, [(TOPIC, t, [("retention.ms", SET, "-5")])])
    iac(c, v, [(TOPIC, t, [("cleanup.policy", SET, "compact,nope")])])
    iac(c, v, [(TOPIC, t, [("cleanup.policy", APPEND, "compact,,delete")])])
    iac(c, v, [(TOPIC, t, [("retention.ms", APPEND, "1")])])
    iac(c, v, [(TOPIC, t, [("nope", SUBTRACT, "x")])])
    iac(c, v, [(TOPIC, t, [("retention.ms", SET, None), ("segment.ms", APPEND, None)])])
    iac(c, v, [(TOPIC, t, [("retention.ms", SET, "1"), ("retention.ms", DELETE, None)])])
    iac(c, v, [(TOPIC, t, [("retention.ms", SET, "1")]), (TOPIC, t, [])])
    iac(c, v, [(TOPIC, "", [("retention.ms", SET, "1")])])
    iac(c, v, [(TOPIC, "bad/name", [("retention.ms", SET, "1")])])
    iac(c, v, [(TOPIC, ctx.topic("missing"), [("retention.ms", SET, "1")])])
    iac(c, v, [(TOPIC, ctx.topic("missing"), [("retention.ms", SET, "x")])])
    iac(c, v, [(TOPIC, t, [("min.compaction.lag.ms", SET, "10"),
                           ("max.compaction.lag.ms", SET, "5")])])
    iac(c, v, [(TOPIC, t, [("remote.storage.enable", SET, "true")])])
    describe(ctx, c, TOPIC, t, TOPIC_KEYS)


@scenario("configs.iac.validate_only",
          "IncrementalAlterConfigs at every version with ValidateOnly: valid changes of a "
          "topic and a group answer NONE and change nothing, invalid ones their error",
          api="IncrementalAlterConfigs")
def _(ctx):
    c = ctx.client()
    t, g = ctx.topic(), ctx.group()
    hb.create_topic(ctx, c, t)
    iac(c, ctx.version, [(TOPIC, t, [("retention.ms", SET, "1000")]),
                         (GROUP, g, [("consumer.heartbeat.interval.ms", SET, "6000")]),
                         (GROUP, ctx.group("bad"), [("consumer.heartbeat.interval.ms", SET,
                                                     "60000")])],
        validate_only=True)
    describe(ctx, c, TOPIC, t, ["retention.ms"])
    describe(ctx, c, GROUP, g, ["consumer.heartbeat.interval.ms"])


@scenario("configs.iac.unknown_operation",
          "IncrementalAlterConfigs at every version with an unknown operation: the "
          "controller's whole part of the request fails (UNKNOWN_SERVER_ERROR for each of "
          "its resources), a broker resource keeps its own answer", api="IncrementalAlterConfigs")
def _(ctx):
    c = ctx.client()
    t, g = ctx.topic(), ctx.group()
    hb.create_topic(ctx, c, t)
    iac(c, ctx.version, [(TOPIC, t, [("retention.ms", 5, "1")]),
                         (GROUP, g, [("consumer.heartbeat.interval.ms", SET, "6000")]),
                         (BROKER, "1", [("num.partitions", 7, "2")])])
    describe(ctx, c, GROUP, g, ["consumer.heartbeat.interval.ms"])


@scenario("configs.iac.group_set_delete",
          "IncrementalAlterConfigs at every version on a group that does not exist: SET "
          "(values trimmed and shown parsed), another SET, DELETE, each seen by "
          "DescribeConfigs (GROUP_CONFIG source, the broker default as synonym)",
          api="IncrementalAlterConfigs")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    v = ctx.version
    iac(c, v, [(GROUP, g, [("consumer.session.timeout.ms", SET, " 50000 "),
                           ("consumer.heartbeat.interval.ms", SET, "6000"),
                           ("streams.num.standby.replicas", SET, "1"),
                           ("share.renew.acknowledge.enable", SET, "FALSE"),
                           ("streams.rack.aware.assignment.tags", SET, "zone , rack")])])
    describe(ctx, c, GROUP, g, GROUP_KEYS)
    iac(c, v, [(GROUP, g, [("consumer.heartbeat.interval.ms", SET, "7000"),
                           ("streams.num.standby.replicas", DELETE, None),
                           ("share.isolation.level", SET, "read_committed")])])
    describe(ctx, c, GROUP, g, GROUP_KEYS)
    iac(c, v, [(GROUP, g, [("consumer.session.timeout.ms", DELETE, None),
                           ("consumer.heartbeat.interval.ms", DELETE, None),
                           ("share.renew.acknowledge.enable", DELETE, None),
                           ("streams.rack.aware.assignment.tags", DELETE, None),
                           ("share.isolation.level", DELETE, None)])])
    describe(ctx, c, GROUP, g, GROUP_KEYS)


@scenario("configs.iac.group_errors",
          "IncrementalAlterConfigs at every version on a group: unknown names, values that "
          "do not parse or are below ConfigDef's bound, values outside the broker's "
          "group.*.min/max bounds, a session timeout not above the heartbeat interval, "
          "duplicate rack tags, an unregistered assignor, bad share values, a DLQ topic "
          "name starting with __, APPEND, an empty group name; nothing changes",
          api="IncrementalAlterConfigs")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    v = ctx.version
    for cfg in [("nope", SET, "1"),
                ("consumer.session.timeout.ms", SET, "abc"),
                ("consumer.session.timeout.ms", SET, "0"),
                ("consumer.session.timeout.ms", SET, "5000"),
                ("consumer.session.timeout.ms", SET, "99999999999"),
                ("consumer.heartbeat.interval.ms", SET, "50000"),
                ("streams.session.timeout.ms", SET, "1000"),
                ("streams.heartbeat.interval.ms", SET, "4999"),
                ("streams.num.standby.replicas", SET, "3"),
                ("streams.num.standby.replicas", SET, "-1"),
                ("streams.rack.aware.assignment.tags", SET, "a, a"),
                ("streams.rack.aware.assignment.tags", APPEND, "a"),
                ("streams.assignor.name", SET, "foo"),
                ("streams.task.offset.interval.ms", SET, "1"),
                ("streams.num.warmup.replicas", SET, "21"),
                ("share.auto.offset.reset", SET, "foo"),
                ("share.auto.offset.reset", SET, "by_duration:-PT1H"),
                ("share.isolation.level", SET, "foo"),
                ("share.record.lock.duration.ms", SET, "10"),
                ("share.record.lock.duration.ms", SET, "10000"),
                ("share.delivery.count.limit", SET, "11"),
                ("errors.deadletterqueue.topic.name", SET, "__dlq"),
                ("errors.deadletterqueue.copy.record.enable", SET, "maybe"),
                ("consumer.session.timeout.ms", APPEND, "1")]:
        iac(c, v, [(GROUP, g, [cfg])])
    iac(c, v, [(GROUP, g, [("consumer.heartbeat.interval.ms", SET, "14000"),
                           ("consumer.session.timeout.ms", SET, "45000")])])
    iac(c, v, [(GROUP, g, [("share.auto.offset.reset", SET, "by_duration:PT1H"),
                           ("share.isolation.level", SET, "read_committed"),
                           ("streams.assignor.name", SET, "sticky")])])
    iac(c, v, [(GROUP, "", [("consumer.session.timeout.ms", SET, "50000")])])
    iac(c, v, [(GROUP, g, [("consumer.session.timeout.ms", SET, None)])])
    describe(ctx, c, GROUP, g, GROUP_KEYS)


@scenario("configs.iac.broker",
          "IncrementalAlterConfigs at every version on the broker and its loggers: a static "
          "property, another node id, a node id that is no number, an unknown operation, "
          "APPEND to an unknown and to a non-list property, DELETE; the root logger's level "
          "(validate only), a bad level, deleting it, APPEND, an unknown logger, another "
          "node; an unknown resource type", api="IncrementalAlterConfigs")
def _(ctx):
    c = ctx.client()
    v = ctx.version
    for name, cfgs in [("1", [("num.partitions", SET, "3"),
                              ("auto.create.topics.enable", SET, "true")]),
                       ("2", [("num.partitions", SET, "3")]),
                       ("x", [("num.partitions", SET, "3")]),
                       ("1", [("num.partitions", 9, "3")]),
                       ("1", [("foo.bar", APPEND, "3")]),
                       ("1", [("num.partitions", APPEND, "3")]),
                       ("1", [("num.partitions", DELETE, None)]),
                       ("", [("num.partitions", SET, "3")])]:
        iac(c, v, [(BROKER, name, cfgs)], validate_only=True)
    for name, cfgs in [("1", [("root", SET, "INFO")]),
                       ("1", [("root", SET, "BLAH")]),
                       ("1", [("root", DELETE, None)]),
                       ("1", [("root", APPEND, "x")]),
                       ("1", [("kafka.nope", SET, "INFO")]),
                       ("2", [("root", SET, "INFO")]),
                       ("", [("root", SET, "INFO")])]:
        iac(c, v, [(BROKER_LOGGER, name, cfgs)], validate_only=True)
    iac(c, v, [(99, "x", [("a", SET, "b")]), (1, "x", [])])


@scenario("configs.alter.legacy",
          "AlterConfigs at every version: a topic's configs replaced as a whole (those not "
          "named are removed), a null value, an unknown topic, a group's configs, the "
          "broker's static property, BROKER_LOGGER (not an AlterConfigs resource), "
          "validate only", api="AlterConfigs")
def _(ctx):
    c = ctx.client()
    t, g = ctx.topic(), ctx.group()
    hb.create_topic(ctx, c, t, configs={"segment.ms": "100000"})
    v = ctx.version
    alter(c, v, [(TOPIC, t, [("retention.ms", "5000"), ("cleanup.policy", "compact")])])
    describe(ctx, c, TOPIC, t, ["retention.ms", "cleanup.policy", "segment.ms"])
    alter(c, v, [(TOPIC, t, [("retention.ms", None)])])
    alter(c, v, [(TOPIC, t, [("retention.ms", "x")])])
    alter(c, v, [(TOPIC, ctx.topic("missing"), [("retention.ms", "5000")])])
    alter(c, v, [(GROUP, g, [("consumer.session.timeout.ms", "50000")])])
    alter(c, v, [(GROUP, g, [("consumer.heartbeat.interval.ms", "6000")])], validate_only=True)
    describe(ctx, c, GROUP, g, ["consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"])
    alter(c, v, [(TOPIC, t, [])])
    describe(ctx, c, TOPIC, t, ["retention.ms", "cleanup.policy", "segment.ms"])
    alter(c, v, [(BROKER, "1", [("num.partitions", "5")]), (BROKER_LOGGER, "1", [("root", "INFO")])],
          validate_only=True)
    alter(c, v, [(BROKER, "1", [])], validate_only=True)
    alter(c, v, [(BROKER, "7", [])], validate_only=True)


@scenario("configs.describe.group",
          "DescribeConfigs at every version of a group without configs and of one with "
          "some: values, sources, synonyms (v1+), types and documentation (v3+); an empty "
          "group name", api="DescribeConfigs")
def _(ctx):
    c = ctx.client()
    g, h = ctx.group(), ctx.group("set")
    iac(c, iac_top(ctx), [(GROUP, h, [("streams.num.standby.replicas", SET, "2"),
                                      ("errors.deadletterqueue.topic.name", SET, "dlq")])],
        record=False)
    describe(ctx, c, GROUP, g, GROUP_KEYS, version=ctx.version, docs=True)
    describe(ctx, c, GROUP, h, GROUP_KEYS, version=ctx.version, docs=False)
    describe(ctx, c, GROUP, h, ["streams.num.standby.replicas", "nope"], version=ctx.version,
             synonyms=False, docs=True)
    describe(ctx, c, GROUP, "", None, version=ctx.version)


@scenario("configs.describe.group_all",
          "DescribeConfigs at the newest version of every config of a group: the internal "
          "ones it sets come first, then the others in Kafka's order", api="DescribeConfigs",
          versions=(4, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    iac(c, iac_top(ctx), [(GROUP, g, [("streams.num.warmup.replicas", SET, "3"),
                                      ("consumer.session.timeout.ms", SET, "50000")])],
        record=False)
    # Every config but the two the suite sets on Kafka's broker only
    # (profiles.KAFKA_ONLY), which Kafka then lists with their static value.
    keys = [k for k in ALL_GROUP_KEYS if k not in ("consumer.assignment.interval.ms",
                                                   "consumer.assignor.offload.enable")]
    describe(ctx, c, GROUP, g, keys, version=ctx.version, docs=True)


@scenario("configs.group.consumer_heartbeat_interval",
          "ConsumerGroupHeartbeat at every version: a group's consumer.heartbeat.interval.ms "
          "set before the group exists is given to its member; a change is given at the "
          "next heartbeat; deleting it brings back the broker's", api=hc.API)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    av = iac_top(ctx)
    iac(c, av, [(GROUP, g, [("consumer.heartbeat.interval.ms", SET, "6000")])])
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [t])
    m, e = r["MemberId"], r["MemberEpoch"]
    iac(c, av, [(GROUP, g, [("consumer.heartbeat.interval.ms", SET, "7000"),
                            ("consumer.session.timeout.ms", SET, "50000")])])
    # Kafka's brokers learn of a change from the metadata log a moment after
    # the controller answers; kcoord at once.
    def interval_is(ms):
        return lambda: hc.hb(ctx, c, g, m, e, record=False)["HeartbeatIntervalMs"] == ms
    ctx.wait_until(interval_is(7000), "the new interval to reach the group coordinator")
    hc.hb(ctx, c, g, m, e, TopicPartitions=hc.owned(r))
    iac(c, av, [(GROUP, g, [("consumer.heartbeat.interval.ms", DELETE, None)])])
    ctx.wait_until(interval_is(5000), "the deletion to reach the group coordinator")
    hc.hb(ctx, c, g, m, e)


@scenario("configs.group.streams_heartbeat_interval",
          "StreamsGroupHeartbeat at every version: a group's streams.heartbeat.interval.ms "
          "reaches its members at the next heartbeat, and its streams.num.standby.replicas "
          "takes effect in the next assignment (a new group epoch)",
          api="StreamsGroupHeartbeat", profile="streams")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    hs.create_topics(ctx, setup, {src: 2})
    topo = hs.topology([hs.subtopology("0", source=[src])])
    m1 = hs.Member(ctx, g, "m1", topo, version=ctx.version)
    m1.join()
    m1.heartbeat()
    av = iac_top(ctx)
    iac(setup, av, [(GROUP, g, [("streams.heartbeat.interval.ms", SET, "6000"),
                                ("streams.num.standby.replicas", SET, "1")])])
    # Kafka's brokers learn of the change from the metadata log a moment later.
    ctx.wait_until(lambda: hs.describe(setup, hs.describe_version(ctx), [g], record=False)
                   is not None and m1.heartbeat(record=False)["HeartbeatIntervalMs"] == 6000,
                   "the new interval to reach the group coordinator")
    m1.heartbeat()
    m1.heartbeat()
    hs.describe(setup, hs.describe_version(ctx), [g])


@scenario("configs.group.survives_delete",
          "DescribeConfigs after DeleteGroups: a group's configs are not removed with the "
          "group", api="IncrementalAlterConfigs", versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    iac(c, ctx.version, [(GROUP, g, [("consumer.session.timeout.ms", SET, "50000")])])
    hb.create_topic(ctx, c, t)
    c.call("OffsetCommit", 8, {"GroupId": g, "GenerationIdOrMemberEpoch": -1, "MemberId": "",
                               "GroupInstanceId": None, "Topics": [
                                   {"Name": t, "Partitions": [{"PartitionIndex": 0,
                                                               "CommittedOffset": 1,
                                                               "CommittedLeaderEpoch": -1,
                                                               "CommittedMetadata": ""}]}]})
    c.call("DeleteGroups", 2, {"GroupsNames": [g]})
    describe(ctx, c, GROUP, g, ["consumer.session.timeout.ms"])


@scenario("configs.restart",
          "Topic and group configs set with IncrementalAlterConfigs are durable: after a "
          "restart DescribeConfigs shows them", api="IncrementalAlterConfigs",
          versions=(1, None), restartable=True)
def _(ctx):
    c = ctx.client()
    t, g = ctx.topic(), ctx.group()
    hb.create_topic(ctx, c, t)
    iac(c, ctx.version, [(TOPIC, t, [("retention.ms", SET, "1000")]),
                         (GROUP, g, [("consumer.session.timeout.ms", SET, "50000")])])
    ctx.restart_point()
    c = ctx.client("after")
    describe(ctx, c, TOPIC, t, ["retention.ms"])
    describe(ctx, c, GROUP, g, ["consumer.session.timeout.ms"])
