# SPDX-License-Identifier: Apache-2.0
"""CreateTopics: creation, validate-only, defaults, invalid partition counts,
replication factors and names, existing topics, configs (v5+)."""

from conformance import scenario
import h_broker as hb


def topic(name, partitions=1, rf=1, configs=None, assignments=None):
    return {"Name": name, "NumPartitions": partitions, "ReplicationFactor": rf,
            "Assignments": [{"PartitionIndex": p, "BrokerIds": ids}
                            for p, ids in (assignments or [])],
            "Configs": [{"Name": k, "Value": v} for k, v in (configs or [])]}


def create(c, version, topics, validate_only=False, record=True):
    return c.call("CreateTopics", version, {"Topics": topics, "timeoutMs": 30000,
                                            "validateOnly": validate_only}, record=record)


@scenario("broker.create_topics.basic",
          "CreateTopics at every version: two topics of 1 and 3 partitions are created (v5+: "
          "with their partition count, replication factor and every config with its source; "
          "v7: the topic id), then served by Metadata", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    a, b = ctx.topic("a"), ctx.topic("b")
    create(c, ctx.version, [topic(a), topic(b, 3)])
    hb.wait_topic(ctx, c, a, 1)
    hb.wait_topic(ctx, c, b, 3)
    c.call("Metadata", hb.top_version(ctx, "Metadata", 9),
           hb.metadata_body(9, [a, b]))


@scenario("broker.create_topics.validate_only",
          "CreateTopics at every version with validateOnly: the same answer as a creation, "
          "nothing created; errors are still reported", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    a = ctx.topic("a")
    create(c, ctx.version, [topic(a, 2), topic(ctx.topic("bad"), 0)], validate_only=True)
    c.call("Metadata", 9, hb.metadata_body(9, [a]))
    hb.create_topic(ctx, c, a)
    create(c, ctx.version, [topic(a)], validate_only=True)


@scenario("broker.create_topics.defaults",
          "CreateTopics v4+ with NumPartitions and ReplicationFactor -1: the broker's "
          "num.partitions and default.replication.factor apply", api="CreateTopics",
          versions=(4, None))
def _(ctx):
    c = ctx.client()
    a, b, d = ctx.topic("a"), ctx.topic("b"), ctx.topic("c")
    create(c, ctx.version, [topic(a, -1, -1), topic(b, 2, -1), topic(d, -1, 1)])


@scenario("broker.create_topics.invalid_partitions",
          "CreateTopics at every version with 0, -2 and a huge partition count: "
          "INVALID_PARTITIONS and Kafka's message", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    create(c, ctx.version, [topic(ctx.topic("zero"), 0), topic(ctx.topic("neg"), -2)])
    # More than 10000 partitions in one request fails every topic of it.
    create(c, ctx.version, [topic(ctx.topic("big"), 6000), topic(ctx.topic("big2"), 5000),
                            topic(ctx.topic("zero2"), 0)])
    if ctx.version < 4:
        create(c, ctx.version, [topic(ctx.topic("minus1"), -1)])


@scenario("broker.create_topics.invalid_replication_factor",
          "CreateTopics at every version with replication factors 0, -2 and 3 on one broker: "
          "INVALID_REPLICATION_FACTOR and Kafka's messages", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    create(c, ctx.version, [topic(ctx.topic("zero"), 1, 0), topic(ctx.topic("neg"), 1, -2),
                            topic(ctx.topic("three"), 1, 3)])
    if ctx.version < 4:
        create(c, ctx.version, [topic(ctx.topic("minus1"), 1, -1)])


@scenario("broker.create_topics.already_exists",
          "CreateTopics at every version for a topic that exists: TOPIC_ALREADY_EXISTS with "
          "its message, also with validateOnly and other settings", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    a = ctx.topic()
    hb.create_topic(ctx, c, a, partitions=2)
    create(c, ctx.version, [topic(a)])
    create(c, ctx.version, [topic(a, 5)], validate_only=True)
    create(c, ctx.version, [topic(a, 0, 0)])


@scenario("broker.create_topics.invalid_names",
          "CreateTopics at every version for names that are not valid topic names (empty, "
          "'.', '..', a space, a slash, 250 characters, non-ASCII): INVALID_TOPIC_EXCEPTION "
          "and the message of each", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    names = ["", ".", "..", "a b", "a/b", "x" * 250, "caf\u00e9", "t\ttab"]
    create(c, ctx.version, [topic(n) for n in names])


@scenario("broker.create_topics.internal_names",
          "CreateTopics at every version for __consumer_offsets and __cluster_metadata, and "
          "names that only differ from an existing one by '.' against '_' (both ways; in one "
          "request they do not collide)", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    create(c, ctx.version, [topic("__consumer_offsets"), topic("__cluster_metadata")])
    a = ctx.topic("x.y")
    hb.create_topic(ctx, c, a)
    create(c, ctx.version, [topic(a.replace("x.y", "x_y"))])
    b = ctx.topic("p_q")
    hb.create_topic(ctx, c, b)
    create(c, ctx.version, [topic(b.replace("p_q", "p.q")), topic(b.replace("p_q", "p-q"))])
    create(c, ctx.version, [topic(ctx.topic("m.n")), topic(ctx.topic("m_n"))])


@scenario("broker.create_topics.duplicates",
          "CreateTopics at every version with one name listed twice beside a valid topic: "
          "the name answered once with INVALID_REQUEST, the other topic created",
          api="CreateTopics")
def _(ctx):
    c = ctx.client()
    d, ok = ctx.topic("dup"), ctx.topic("ok")
    create(c, ctx.version, [topic(d), topic(ok), topic(d, 2)])
    names = ["dup-%s" % x for x in ("zeta", "alpha", "m", "q")]
    create(c, ctx.version, [topic(n) for n in names + names + [names[0], ctx.topic("ok2")]])


@scenario("broker.create_topics.assignments",
          "CreateTopics at every version with a manual replica assignment: one replica on "
          "node 1 per partition works; an unknown broker, partitions not from 0, a "
          "replication factor set beside assignments fail", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    create(c, ctx.version, [topic(ctx.topic("ok"), -1, -1, assignments=[(0, [1]), (1, [1])])])
    create(c, ctx.version, [topic(ctx.topic("unknown"), -1, -1, assignments=[(0, [2])])])
    create(c, ctx.version, [topic(ctx.topic("gap"), -1, -1, assignments=[(1, [1])])])
    create(c, ctx.version, [topic(ctx.topic("both"), 1, 1, assignments=[(0, [1])])])
    create(c, ctx.version, [topic(ctx.topic("empty"), -1, -1, assignments=[(0, [])])])
    create(c, ctx.version, [topic(ctx.topic("twice"), -1, -1, assignments=[(0, [1, 1])])])
    create(c, ctx.version, [topic(ctx.topic("np"), 2, -1, assignments=[(0, [1])])])
    create(c, ctx.version, [topic(ctx.topic("samepart"), -1, -1,
                                  assignments=[(0, [1]), (0, [1])])])
    create(c, ctx.version, [topic(ctx.topic("order"), -1, -1, assignments=[(1, [1]), (0, [1])])])


@scenario("broker.create_topics.configs",
          "CreateTopics at every version with topic configs: valid ones (v5+: shown with "
          "source TOPIC_CONFIG among the defaults), an unknown name, an invalid value, a null "
          "value", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    create(c, ctx.version, [topic(ctx.topic("ok"), 1, 1, configs=[
        ("cleanup.policy", "compact"), ("retention.ms", "3600000"),
        ("max.message.bytes", "2000000")])])
    create(c, ctx.version, [topic(ctx.topic("unknown"), 1, 1, configs=[("no.such.config", "1")])])
    create(c, ctx.version, [topic(ctx.topic("badvalue"), 1, 1,
                                  configs=[("retention.ms", "soon")])])
    create(c, ctx.version, [topic(ctx.topic("badpolicy"), 1, 1,
                                  configs=[("cleanup.policy", "shred")])])
    create(c, ctx.version, [topic(ctx.topic("null"), 1, 1, configs=[("retention.ms", None)])])
    create(c, ctx.version, [topic(ctx.topic("nulls"), 1, 1, configs=[
        ("no.such.config", "1"), ("retention.ms", None), ("segment.ms", None)])])
    # A config error is reported before a placement error.
    create(c, ctx.version, [topic(ctx.topic("both"), 0, 1, configs=[("retention.ms", "x")])])
    create(c, ctx.version, [topic(ctx.topic("new"), 1, 1, configs=[
        ("max.decompressed.message.bytes", "0"), ("errors.deadletterqueue.group.enable", "true")])])
    create(c, ctx.version, [topic(ctx.topic("new2"), 1, 1, configs=[
        ("remote.copy.lag.ms", "-2")])])


@scenario("broker.create_topics.removed_configs",
          "CreateTopics at every version with configs Kafka 4 removed "
          "(message.format.version, message.downconversion.enable)", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    create(c, ctx.version, [topic(ctx.topic("mfv"), 1, 1,
                                  configs=[("message.format.version", "3.0-IV1")])])
    create(c, ctx.version, [topic(ctx.topic("mde"), 1, 1,
                                  configs=[("message.downconversion.enable", "true")])])


@scenario("broker.create_topics.empty",
          "CreateTopics at every version with no topics: an empty answer", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    create(c, ctx.version, [])


@scenario("broker.create_topics.timeout",
          "CreateTopics at every version with timeoutMs 0 and -1: Kafka's controller gets a "
          "deadline already passed, every listed topic (a duplicate too) is REQUEST_TIMED_OUT "
          "and nothing is created", api="CreateTopics")
def _(ctx):
    c = ctx.client()
    for ms in (0, -1):
        t = ctx.topic("t%d" % ms)
        c.call("CreateTopics", ctx.version, {"Topics": [topic(t), topic(t, 2), topic("a b")],
                                             "timeoutMs": ms, "validateOnly": ms == -1})
    c.call("Metadata", 9, hb.metadata_body(9, [ctx.topic("t0"), ctx.topic("t-1")]))


CONFIG_VALUES = [
    ("segment.bytes", "100"), ("segment.bytes", "1048576"), ("segment.ms", "0"),
    ("compression.type", "fast"), ("compression.type", "zstd"), ("compression.gzip.level", "10"),
    ("compression.lz4.level", "18"), ("compression.zstd.level", "23"),
    ("min.cleanable.dirty.ratio", "2"), ("min.cleanable.dirty.ratio", "x"),
    ("message.timestamp.type", "Never"), ("message.timestamp.type", "LogAppendTime"),
    ("cleanup.policy", "compact,delete"), ("cleanup.policy", ""), ("retention.ms", "-2"),
    ("retention.bytes", "-5"), ("min.insync.replicas", "0"), ("max.message.bytes", "-1"),
    ("preallocate", "yes"), ("unclean.leader.election.enable", "TRUE"),
    ("local.retention.ms", "-3"), ("max.compaction.lag.ms", "0"), ("segment.index.bytes", "3"),
    ("leader.replication.throttled.replicas", "0:1"), ("leader.replication.throttled.replicas", "*"),
    ("leader.replication.throttled.replicas", "x"), ("remote.storage.enable", "true"),
    ("retention.ms", "99999999999999999999"), ("flush.messages", "0"),
    ("follower.replication.throttled.replicas", "0:1, 2:x"),
    ("follower.replication.throttled.replicas", " 0:1 ,1:1"), ("remote.storage.enable", " TRUE "),
    ("compression.zstd.level", "-131073"), ("compression.lz4.level", "0"),
    ("max.decompressed.message.bytes", "2147483640"), ("min.cleanable.dirty.ratio", "-0.5"),
]


@scenario("broker.create_topics.config_values",
          "CreateTopics v5+ with one topic config value each, valid and invalid, with validateOnly: "
          "INVALID_CONFIG and Kafka's message, or the value accepted",
          api="CreateTopics", versions=(5, None))
def _(ctx):
    c = ctx.client()
    for i, (name, value) in enumerate(CONFIG_VALUES):
        r = create(c, ctx.version, [topic(ctx.topic("c%d" % i), 1, 1, configs=[(name, value)])],
                   validate_only=True, record=False)
        t = r["Topics"][0]
        ctx.note("%s=%r" % (name, value), [t["ErrorCode"], t["ErrorMessage"],
                                            [x["Value"] for x in t.get("Configs") or []
                                             if x["Name"] == name]])
