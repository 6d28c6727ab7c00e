# SPDX-License-Identifier: Apache-2.0
"""OffsetFetch at every version: all topics, given topics with partitions
never committed, unknown groups, topics and topic ids, several groups in
one request, require_stable, consumer group member epochs."""

from conformance import scenario
import h_offsets as ho


def _setup(ctx, c, parts=(3, 2)):
    """Two topics and a simple group with offsets on some partitions."""
    ta, tb = ctx.topic("a"), ctx.topic("b")
    ids = ho.create_topics(ctx, c, {ta: parts[0], tb: parts[1]})
    g = ctx.group()
    ho.simple_commit(ctx, c, g, [(tb, [(1, 21, "b1")]), (ta, [(2, 12, "a2"), (0, 10, None)])],
                     ids=ids)
    return g, ta, tb, ids


@scenario("offsets.fetch.all_topics",
          "OffsetFetch v2+ with null topics answers every committed offset of the group, "
          "topics by name then partitions in order", api="OffsetFetch", versions=(2, None))
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    ho.fetch(ctx, c, ctx.version, g, None)


@scenario("offsets.fetch.given_topics",
          "OffsetFetch of given topics answers committed partitions and -1 without error for "
          "partitions never committed, beyond the topic's count, and topics never committed",
          api="OffsetFetch")
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    tc = ctx.topic("c")
    ids.update(ho.create_topics(ctx, c, {tc: 1}))
    ho.fetch(ctx, c, ctx.version, g, [(tb, [0, 1]), (ta, [2, 1, 0, 9]), (tc, [0])], ids=ids)


@scenario("offsets.fetch.unknown_topic_name",
          "OffsetFetch v1-9 of a topic that does not exist answers -1 for its partitions "
          "without error", api="OffsetFetch", versions=(None, 9))
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    ho.fetch(ctx, c, ctx.version, g, [(ctx.topic("missing"), [0, 3]), (ta, [0])])


@scenario("offsets.fetch.unknown_topic_id",
          "OffsetFetch v10 of an unknown topic id answers UNKNOWN_TOPIC_ID for its partitions, "
          "after the known topics", api="OffsetFetch", versions=(10, None))
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    ho.fetch(ctx, c, ctx.version, g, [(bytes(range(1, 17)), [0, 1]), (ta, [0, 2]),
                                      (bytes(16), [0])], ids=ids)


@scenario("offsets.fetch.unknown_group",
          "OffsetFetch for a group that does not exist answers -1 for the given partitions and "
          "no topics for null topics, without error", api="OffsetFetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    g = ctx.group("nobody")
    ho.fetch(ctx, c, ctx.version, g, [(t, [0, 1])], ids=ids)
    if ctx.version >= 2:
        ho.fetch(ctx, c, ctx.version, g, None)


@scenario("offsets.fetch.several_groups",
          "OffsetFetch v8+ for several groups in one request (all topics, given topics, an "
          "unknown group, the same group twice) answers each in request order",
          api="OffsetFetch", versions=(8, None))
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    g2 = ctx.group("second")
    ho.simple_commit(ctx, c, g2, [(ta, [(1, 101)])], ids=ids)
    c.call("OffsetFetch", ctx.version, ho.fetch_body(ctx.version, [
        (g2, None), (ctx.group("nobody"), [(ta, [0])]), (g, [(ta, [0, 1]), (tb, [1])]),
        (g2, [(ta, [1])]), (g, None)], ids=ids))


@scenario("offsets.fetch.require_stable",
          "OffsetFetch v7+ with RequireStable answers committed offsets as without it when no "
          "transactional offsets are pending",
          api="OffsetFetch", versions=(7, None))
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    ho.fetch(ctx, c, ctx.version, g, [(ta, [0, 1, 2])], ids=ids, require_stable=True)
    ho.fetch(ctx, c, ctx.version, g, None, require_stable=True)
    ho.fetch(ctx, c, ctx.version, ctx.group("nobody"), None, require_stable=True)


@scenario("offsets.fetch.classic_group",
          "OffsetFetch of a Stable classic group's offsets (committed by its member) answers "
          "them, also through null topics", api="OffsetFetch")
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 2})
    g = ctx.group()
    mid, gen = ho.classic_join(ctx, c, g, [t])
    cv = ho.top(ctx, "OffsetCommit")
    r = ho.commit(ctx, c, cv, g, [(t, [(1, 7, "c")])], ids=ids, generation=gen, member_id=mid,
                  record=False)
    ctx.note("commit error", r["Topics"][0]["Partitions"][0]["ErrorCode"])
    ho.fetch(ctx, c, ctx.version, g, [(t, [0, 1])], ids=ids)
    if ctx.version >= 2:
        ho.fetch(ctx, c, ctx.version, g, None)


@scenario("offsets.fetch.consumer_member_epoch",
          "OffsetFetch v9+ for a consumer group with the member's id and epoch answers its "
          "offsets; a wrong epoch answers STALE_MEMBER_EPOCH, an unknown member "
          "UNKNOWN_MEMBER_ID, no member id and epoch -1 the offsets",
          api="OffsetFetch", versions=(9, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid = ho.member_id("a")
    epoch = ho.cg_member(ctx, c, g, mid)
    cv = ho.top(ctx, "OffsetCommit")
    ho.commit(ctx, c, cv, g, [(t, [(0, 33)])], ids=ids, generation=epoch, member_id=mid,
              record=False)
    for m, e in ((mid, epoch), (mid, epoch + 1), (mid, epoch - 1), (ho.member_id("who"), epoch),
                 (None, -1), ("", -1), (mid, -1), (None, epoch)):
        ho.fetch_with_epoch(ctx, c, ctx.version, [(g, [(t, [0])], m, e)], epoch, ids=ids)
    ho.fetch_with_epoch(ctx, c, ctx.version, [(g, None, mid, epoch + 3), (g, None, mid, epoch),
                                              (ctx.group("nobody"), None, mid, epoch)],
                        epoch, ids=ids)


@scenario("offsets.fetch.consumer_group_old_versions",
          "OffsetFetch before v9 for a consumer group with members answers its offsets "
          "without member checks", api="OffsetFetch", versions=(None, 8))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    ids = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    mid = ho.member_id("a")
    epoch = ho.cg_member(ctx, c, g, mid)
    cv = ho.top(ctx, "OffsetCommit")
    ho.commit(ctx, c, cv, g, [(t, [(0, 44, "old")])], ids=ids, generation=epoch, member_id=mid,
              record=False)
    ho.fetch(ctx, c, ctx.version, g, [(t, [0])])
    if ctx.version >= 2:
        ho.fetch(ctx, c, ctx.version, g, None)


@scenario("offsets.fetch.restart",
          "Offsets of two groups, one a Stable classic group, read back by OffsetFetch at every "
          "version after the broker is killed and restarted", api="OffsetFetch",
          restartable=True)
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    g2 = ctx.group("classic")
    mid, gen = ho.classic_join(ctx, c, g2, [ta])
    cv = ho.top(ctx, "OffsetCommit")
    ho.commit(ctx, c, cv, g2, [(ta, [(0, 5, "cl")])], ids=ids, generation=gen, member_id=mid,
              record=False)
    ctx.restart_point()
    c2 = ctx.client()
    ho.fetch(ctx, c2, ctx.version, g, [(ta, [0, 1, 2]), (tb, [0, 1])], ids=ids)
    ho.fetch(ctx, c2, ctx.version, g2, [(ta, [0])], ids=ids)
    if ctx.version >= 2:
        ho.fetch(ctx, c2, ctx.version, g, None)


@scenario("offsets.fetch.deleted_topic",
          "OffsetFetch after the committed topic is deleted answers no offsets for it "
          "(by name, null topics)", api="OffsetFetch", versions=(2, None))
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    dv = ho.top(ctx, "DeleteTopics")
    body = {"TopicNames": [tb], "TimeoutMs": 30000} if dv < 6 else \
        {"Topics": [{"Name": tb}], "TimeoutMs": 30000}
    r = c.call("DeleteTopics", dv, body, record=False)
    if r is None or r["Responses"][0]["ErrorCode"] != 0:
        raise ho.ScenarioError("DeleteTopics failed: %r" % (r,))

    # By name (v9): from v10 a deleted topic's offsets are left out anyway.
    fv = min(ho.top(ctx, "OffsetFetch"), 9)

    def gone():
        r = c.call("OffsetFetch", fv, ho.fetch_body(fv, [(g, None)]), record=False)
        return len(r["Groups"][0]["Topics"]) == 1
    ctx.wait_until(gone, "the deleted topic's offsets to go")
    ho.fetch(ctx, c, ctx.version, g, None)


@scenario("offsets.fetch.empty_lists",
          "OffsetFetch with an empty topic list (not null) and a topic with no partitions "
          "answers no topics and the topic without partitions", api="OffsetFetch")
def _(ctx):
    c = ctx.client()
    g, ta, tb, ids = _setup(ctx, c)
    ho.fetch(ctx, c, ctx.version, g, [], ids=ids)
    ho.fetch(ctx, c, ctx.version, g, [(ta, []), (tb, [1])], ids=ids)


@scenario("offsets.fetch.all_topics_order",
          "OffsetFetch v2+ of all topics after commits to six topics and 20 partitions in a "
          "scrambled order, some deleted by OffsetDelete and committed again, lists topics and "
          "partitions in Kafka's table order", api="OffsetFetch", versions=(2, None))
def _(ctx):
    c = ctx.client()
    names = [ctx.topic("t%d" % i) for i in range(6)]
    ids = ho.create_topics(ctx, c, dict((n, 20 if i == 0 else 2) for i, n in enumerate(names)))
    g = ctx.group()
    parts = [7, 3, 19, 0, 12, 5, 16, 1, 9, 14, 2, 18, 6, 11, 4, 17, 8, 13, 10, 15]
    ho.simple_commit(ctx, c, g, [(names[0], [(p, 100 + p) for p in parts[:12]])], ids=ids)
    for n in (names[3], names[1], names[5], names[2], names[4]):
        ho.simple_commit(ctx, c, g, [(n, [(1, 1), (0, 0)])], ids=ids)
    ho.simple_commit(ctx, c, g, [(names[0], [(p, 200 + p) for p in parts[12:]])], ids=ids)
    r = c.call("OffsetDelete", 0, {"GroupId": g, "Topics": [
        {"Name": names[1], "Partitions": [{"PartitionIndex": 0}, {"PartitionIndex": 1}]},
        {"Name": names[0], "Partitions": [{"PartitionIndex": 3}, {"PartitionIndex": 12}]}]},
        record=False)
    ctx.note("OffsetDelete error", r["ErrorCode"])
    ho.simple_commit(ctx, c, g, [(names[1], [(0, 5)]), (names[0], [(12, 312)])], ids=ids)
    ho.fetch(ctx, c, ctx.version, g, None)


@scenario("offsets.fetch.recreated_topic",
          "After a topic is deleted (its offsets with it) and created again under a new id, "
          "OffsetCommit and OffsetFetch v10 with the old id answer UNKNOWN_TOPIC_ID and the new "
          "id has no offsets until committed", api="OffsetFetch", versions=(10, None))
def _(ctx):
    c = ctx.client()
    t = ctx.topic()
    old = ho.create_topics(ctx, c, {t: 1})
    g = ctx.group()
    cv = ho.top(ctx, "OffsetCommit")
    ho.commit(ctx, c, cv, g, [(t, [(0, 7)])], ids=old)
    dv = ho.top(ctx, "DeleteTopics")
    r = c.call("DeleteTopics", dv, {"Topics": [{"Name": t}], "TimeoutMs": 30000} if dv >= 6
               else {"TopicNames": [t], "TimeoutMs": 30000}, record=False)
    if r is None or r["Responses"][0]["ErrorCode"] != 0:
        raise ho.ScenarioError("DeleteTopics failed: %r" % (r,))

    def gone():
        r = c.call("OffsetFetch", 9, ho.fetch_body(9, [(g, None)]), record=False)
        return not r["Groups"][0]["Topics"]
    ctx.wait_until(gone, "the deleted topic's offsets to go")

    def recreate():
        r = c.call("CreateTopics", ho.top(ctx, "CreateTopics"), {
            "Topics": [{"Name": t, "NumPartitions": 1, "ReplicationFactor": 1}],
            "timeoutMs": 30000}, record=False)
        # The deletion may still be under way (TOPIC_ALREADY_EXISTS, 36).
        return r["Topics"][0]["ErrorCode"] == 0
    ctx.wait_until(recreate, "the topic to be created again")
    new = ho.wait_topics(ctx, c, {t: 1}, not_ids=old)
    ctx.note("topic ids differ", old[t] != new[t])
    ho.fetch(ctx, c, ctx.version, g, [(t, [0])], ids=old)
    ho.fetch(ctx, c, ctx.version, g, [(t, [0])], ids=new)
    ho.commit(ctx, c, cv, g, [(t, [(0, 8)])], ids=old)
    ho.commit(ctx, c, cv, g, [(t, [(0, 9)])], ids=new)
    ho.fetch(ctx, c, ctx.version, g, [(t, [0])], ids=new)
    ho.fetch(ctx, c, ctx.version, g, None)
