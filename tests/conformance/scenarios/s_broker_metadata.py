# SPDX-License-Identifier: Apache-2.0
"""Metadata: topics by name and by id, every topic, unknown and invalid
names, authorized operations, the cluster id, controller and broker list."""

from conformance import scenario
import h_broker as hb


@scenario("broker.metadata.topic_by_name",
          "Metadata at every version for a topic by name: brokers, cluster id, controller id, "
          "the topic's id (v10+), partitions with leader, epoch, replicas, ISR and offline "
          "replicas", api="Metadata")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t, partitions=3)
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t]))


@scenario("broker.metadata.unknown_topic",
          "Metadata at every version for a topic that does not exist, auto-creation disabled "
          "on the broker (and allowed or not by the request from v4): "
          "UNKNOWN_TOPIC_OR_PARTITION, no partitions, nothing created", api="Metadata")
def _(ctx):
    c = ctx.client()
    t = ctx.topic("missing")
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t], auto_create=True))
    if ctx.version >= 4:
        c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t], auto_create=False))
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t]))


@scenario("broker.metadata.mixed_topics",
          "Metadata at every version for a known and an unknown topic, one name twice: each "
          "answered once, in the order Kafka answers", api="Metadata")
def _(ctx):
    c = ctx.client()
    a = ctx.topic("a")
    hb.create_topic(ctx, c, a)
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [a, ctx.topic("missing"), a]))
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [ctx.topic("missing"), a]))
    b = ctx.topic("b")
    hb.create_topic(ctx, c, b)
    c.call("Metadata", ctx.version, hb.metadata_body(
        ctx.version, [ctx.topic("m1"), b, ctx.topic("m2"), a]))
    # Unknown topics come in the order of Kafka's hash set of the names.
    c.call("Metadata", ctx.version, hb.metadata_body(
        ctx.version, ["zeta", "alpha", "m", "b" * 40]))


@scenario("broker.metadata.invalid_names",
          "Metadata at every version for names that are not valid topic names (empty, '.', "
          "'..', a space, a slash, 250 characters): the error each gets", api="Metadata")
def _(ctx):
    c = ctx.client()
    for name in ("", ".", "..", "a b", "a/b", "x" * 250, "caf\u00e9"):
        c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [name], auto_create=True))


@scenario("broker.metadata.no_topics",
          "Metadata v1+ with an empty topic list: the brokers, cluster id and controller id "
          "and no topics", api="Metadata", versions=(1, None))
def _(ctx):
    c = ctx.client()
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, []))


@scenario("broker.metadata.all_topics",
          "Metadata at every version for every topic (an empty list at v0, null from v1): "
          "the scenario's own topics are listed with their partitions (others are left out "
          "of the transcript, as other cases run at the same time)", api="Metadata")
def _(ctx):
    c = ctx.client()
    mine = [ctx.topic("a"), ctx.topic("b")]
    hb.create_topic(ctx, c, mine[0], partitions=2)
    hb.create_topic(ctx, c, mine[1], partitions=1)
    r = c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, None), record=False)
    ctx.note("ErrorCode", r.get("ErrorCode"))
    ctx.note("Brokers", r["Brokers"])
    ctx.note("ClusterId, ControllerId", [r.get("ClusterId"), r.get("ControllerId")])
    ctx.note("the scenario's topics, by name",
             sorted((t for t in r["Topics"] if t["Name"] in mine), key=lambda t: t["Name"]))
    ctx.note("every listed topic has a name and no error",
             all(t["Name"] and t["ErrorCode"] == 0 for t in r["Topics"]))


@scenario("broker.metadata.internal_topic",
          "Metadata at every version for __consumer_offsets by name", api="Metadata")
def _(ctx):
    c = ctx.client()
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, ["__consumer_offsets"]))


@scenario("broker.metadata.authorized_operations",
          "Metadata v8+ with IncludeTopicAuthorizedOperations true and false (and "
          "IncludeClusterAuthorizedOperations at v8-10), without an authorizer: the operation "
          "bits of a known topic, the unset marker otherwise", api="Metadata", versions=(8, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    for topic_ops, cluster_ops in ((True, False), (False, False), (True, True), (False, True)):
        if cluster_ops and ctx.version > 10:
            continue
        c.call("Metadata", ctx.version,
               hb.metadata_body(ctx.version, [t, ctx.topic("missing")], topic_ops=topic_ops,
                                cluster_ops=cluster_ops))


@scenario("broker.metadata.topic_ids",
          "Metadata v12+ by topic id: a known id is answered with its name and partitions, "
          "an unknown id UNKNOWN_TOPIC_ID with a null name, the zero id too; a name and an id "
          "in one request", api="Metadata", versions=(12, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t, partitions=2)
    t2 = ctx.topic("b")
    tid2 = hb.create_topic(ctx, c, t2)

    def by(topics, ops=False):
        body = hb.metadata_body(ctx.version, [], topic_ops=ops)
        body["Topics"] = topics
        c.call("Metadata", ctx.version, body)
    by([{"Name": None, "TopicId": tid}])
    by([{"Name": None, "TopicId": b"\x01" * 16}])
    by([{"Name": None, "TopicId": bytes(16)}])
    # Once one id is given, names are ignored.
    by([{"Name": t}, {"Name": None, "TopicId": b"\x02" * 16}])
    by([{"Name": None, "TopicId": b"\x03" * 16}, {"Name": None, "TopicId": tid2},
        {"Name": None, "TopicId": tid}, {"Name": None, "TopicId": tid2}], ops=True)
    # A null name without any id fails the whole request.
    by([{"Name": t}, {"Name": None, "TopicId": bytes(16)}])


@scenario("broker.metadata.topic_id_before_v12",
          "Metadata v10-11 with a null topic name or a topic id: the whole request fails "
          "with INVALID_REQUEST, as KafkaApis answers it", api="Metadata", versions=(10, 11))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t)
    for topics in ([{"Name": None}], [{"Name": t, "TopicId": tid}],
                   [{"Name": t}, {"Name": None, "TopicId": tid}]):
        body = hb.metadata_body(ctx.version, [])
        body["Topics"] = topics
        c.call("Metadata", ctx.version, body)
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t]))


@scenario("broker.metadata.topic_id_v10",
          "Metadata v10-11 for a topic by name: the topic id in the answer is the one "
          "CreateTopics returned", api="Metadata", versions=(10, 11))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    tid = hb.create_topic(ctx, c, t)
    r = c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t]))
    ctx.note("same topic id", r["Topics"][0]["TopicId"] == tid)


@scenario("broker.metadata.after_delete",
          "Metadata at every version for a topic deleted after it was created: "
          "UNKNOWN_TOPIC_OR_PARTITION once the deletion is applied", api="Metadata")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    hb.create_topic(ctx, c, t)
    lo, hi = ctx.api_range("DeleteTopics")
    dv = min(hi, 5)
    c.call("DeleteTopics", dv, {"TopicNames": [t], "TimeoutMs": 30000})

    def gone():
        r = c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t]), record=False)
        return r["Topics"][0]["ErrorCode"] == 3
    ctx.wait_until(gone, "the deletion of %s" % t)
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t]))


@scenario("broker.metadata.auto_create",
          "Metadata at every version with auto.create.topics.enable: an unknown topic is "
          "answered LEADER_NOT_AVAILABLE and created with num.partitions, an invalid name "
          "INVALID_TOPIC_EXCEPTION and not created; from v4 AllowAutoTopicCreation false "
          "only reports UNKNOWN_TOPIC_OR_PARTITION", api="Metadata", profile="auto_create")
def _(ctx):
    c = ctx.client()
    t = ctx.topic("auto")
    if ctx.version >= 4:
        c.call("Metadata", ctx.version,
               hb.metadata_body(ctx.version, [ctx.topic("kept")], auto_create=False))
    c.call("Metadata", ctx.version,
           hb.metadata_body(ctx.version, [t, "bad name", ".."], auto_create=True))
    hb.wait_topic(ctx, c, t, 1)
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [t], auto_create=True))


@scenario("broker.metadata.auto_create_all_topics",
          "Metadata at every version for every topic with auto.create.topics.enable: creates "
          "nothing; a topic asked for by name beside known ones is created",
          api="Metadata", profile="auto_create")
def _(ctx):
    c = ctx.client()
    a = ctx.topic("a")
    hb.create_topic(ctx, c, a)
    r = c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, None, auto_create=True),
               record=False)
    ctx.note("the scenario's topics listed", sorted(x["Name"] for x in r["Topics"]
                                                   if x["Name"].startswith(ctx.topic(""))))
    b = ctx.topic("b")
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, [a, b], auto_create=True))
    hb.wait_topic(ctx, c, b, 1)


@scenario("broker.metadata.many_topics",
          "Metadata v1+ for seven known and three unknown topics in one request: the order "
          "Kafka answers them in beyond four names (its hash sets)", api="Metadata",
          versions=(1, None))
def _(ctx):
    c = ctx.client()
    known = [ctx.topic("k%d" % i) for i in range(7)]
    for k in known:
        hb.create_topic(ctx, c, k)
    missing = [ctx.topic("m%d" % i) for i in range(3)]
    names = [known[0], missing[0], known[1], known[2], missing[1], known[3], known[4],
             known[5], missing[2], known[6]]
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, names))
    c.call("Metadata", ctx.version, hb.metadata_body(ctx.version, names[:5]))
