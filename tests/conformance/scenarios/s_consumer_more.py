# SPDX-License-Identifier: Apache-2.0
"""Consumer groups: regex subscriptions, classic members and conversions,
session expiry."""

import re

from conformance import scenario
import h_consumer as hc

API = hc.API


def _regex_for(ctx, label):
    return re.escape(ctx.topic(label)).replace("\\_", "_") + ".*"


INVALID_REGEXES = ["(unclosed", "[abc", "abc)", "a**", "*a", "x{2,1}", "a\\", "(?=x)y",
                   "(a)\\1", "[z-a]", "\\p{Foo}", "(?<name", "x{1001}", "a++", "\\Q",
                   # Valid in RE2, or not, where PCRE2 thinks otherwise.
                   "(?i)abc", "a{2,}", "[[:alpha:]]+", "[[:foo:]]", "\\pL", "\\p{Greek}",
                   "(?P<n>x)", "a{,3}", "x*?", "(?x)a", "(?>a)", "[a-]", "[]a]", "\\Z", "\\e",
                   "\\08", "(?<=a)b", "\\x{41}", "[\\d-z]", "a|*", "()+", "(|a)*", "(?i",
                   "a{1000}", "x{2}{3}", "\\C", "[a", "(?P=n)", "(?i-)x", "\\k<n>"]


@scenario("consumer.regex.invalid",
          "ConsumerGroupHeartbeat v1: an invalid SubscribedTopicRegex is "
          "INVALID_REGULAR_EXPRESSION with RE2/J's description of the error, for a list of "
          "syntax errors and constructs RE2/J does not support (lookaround, backreference, "
          "possessive)", api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    for i, rx in enumerate(INVALID_REGEXES):
        hc.hb(ctx, c, ctx.group("g%d" % i), hc.M1, 0, SubscribedTopicRegex=rx)


@scenario("consumer.regex.join_resolves",
          "ConsumerGroupHeartbeat v1: joining with a regex answers before it is resolved "
          "(empty assignment); once resolved the group epoch is bumped and the next "
          "heartbeat gets the matching topics; a restart keeps the resolution", api=API,
          versions=(1, None), restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hc.create_topics(ctx, c, [(ctx.topic("x1"), 2)])
    r = hc.join(ctx, c, g, hc.M1, None, SubscribedTopicRegex=_regex_for(ctx, "x"))
    ctx.wait_until(lambda: hc.group_epoch(ctx, c, g) > r["MemberEpoch"], "the regex resolution")
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=[])
    ctx.restart_point()
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.describe(ctx, c, [g])


@scenario("consumer.regex.no_match",
          "ConsumerGroupHeartbeat v1: a regex matching no topic leaves the member with an "
          "empty assignment", api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = hc.join(ctx, c, g, hc.M1, None, SubscribedTopicRegex=_regex_for(ctx, "none"))
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=[])


@scenario("consumer.regex.new_topic",
          "ConsumerGroupHeartbeat v1: a topic created later that matches the group's regex "
          "is picked up by a refresh (Kafka refreshes at most every 10 s, a constant), "
          "bumping the group epoch", api=API, versions=(1, None))
def _(ctx):
    c, probe = ctx.client("m1"), ctx.client("probe")
    g = ctx.group()
    hc.create_topics(ctx, c, [(ctx.topic("x1"), 1)])
    r = hc.join(ctx, c, g, hc.M1, None, SubscribedTopicRegex=_regex_for(ctx, "x"))
    ctx.wait_until(lambda: hc.group_epoch(ctx, c, g) > r["MemberEpoch"], "the regex resolution")
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=[])
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    owned = hc.owned(r) or []
    epoch = r["MemberEpoch"]
    hc.create_topics(ctx, c, [(ctx.topic("x2"), 1)])
    # A second member subscribed to nothing heartbeats (unrecorded) to let
    # the group refresh its regexes; the first one's answers stay recorded.
    pj = hc.join(ctx, probe, g, "member-probe", [], record=False)
    state = {"e": pj["MemberEpoch"]}

    def refreshed():
        pr = hc.hb(ctx, probe, g, "member-probe", state["e"], record=False,
                   TopicPartitions=[])
        if pr and pr["ErrorCode"] == 0:
            state["e"] = pr["MemberEpoch"]
        return hc.group_epoch(ctx, c, g) > epoch
    ctx.wait_until(refreshed, "the refresh picking up the new topic", timeout=45)
    d = hc.describe(ctx, c, [g], record=False)["Groups"][0]
    ctx.note("group epoch moved by", d["GroupEpoch"] - epoch)
    r = hc.hb(ctx, c, g, hc.M1, epoch, TopicPartitions=owned, record=False)
    ctx.note("member epoch moved by", r["MemberEpoch"] - epoch)
    ctx.note("partitions", sorted(len(t["Partitions"]) for t in (r.get("Assignment") or {})
                                  .get("TopicPartitions", [])))


@scenario("consumer.classic.join_consumer_group",
          "JoinGroup (protocol type consumer) into a consumer group: the classic member (on "
          "another topic, so that the assignment does not depend on its generated id) joins "
          "with its generation as member epoch; ConsumerGroupDescribe shows MemberType 0 "
          "for it (v1)", api=hc.DESCRIBE)
def _(ctx):
    c, k = ctx.client("consumer"), ctx.client("classic")
    g, t, u = ctx.group(), ctx.topic(), ctx.topic("u")
    hc.create_topics(ctx, c, [(t, 2), (u, 1)])
    hv = ctx.api_range(API)[1]
    c.call(API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 0,
                     "RebalanceTimeoutMs": 5000, "SubscribedTopicNames": [t],
                     "TopicPartitions": []})
    jv = ctx.api_range("JoinGroup")[1]
    r = hc.classic_join(ctx, k, g, "", [u], version=jv)
    hd = k.send("JoinGroup", jv, __import__("helpers").join_body(
        jv, g, r["MemberId"], protocols=[("range", __import__("helpers").subscription_v0([u]))]))
    k.wait(hd)
    hc.describe_sorted(ctx, c, [g], version=ctx.version)


@scenario("consumer.classic.upgrade_and_downgrade",
          "A classic group with a consumer-protocol member: a ConsumerGroupHeartbeat join "
          "upgrades it to a consumer group; when that member leaves, the group goes back to "
          "classic (DescribeGroups/ConsumerGroupDescribe around each step)", api=API,
          versions=(1, None))
def _(ctx):
    import helpers as h
    c, k = ctx.client("consumer"), ctx.client("classic")
    g, t, u = ctx.group(), ctx.topic(), ctx.topic("u")
    hc.create_topics(ctx, c, [(t, 2), (u, 1)])
    jv = ctx.api_range("JoinGroup")[1]
    r = hc.classic_join(ctx, k, g, "", [u], version=jv)
    r = k.call("JoinGroup", jv, h.join_body(jv, g, r["MemberId"],
                                           protocols=[("range", h.subscription_v0([u]))]))
    mid = r["MemberId"]
    dv = ctx.api_range("DescribeGroups")[1]
    sv = ctx.api_range("SyncGroup")[1]
    k.call("SyncGroup", sv, {"GroupId": g, "GenerationId": r["GenerationId"], "MemberId": mid,
                             "GroupInstanceId": None, "ProtocolType": "consumer",
                             "ProtocolName": "range", "Assignments": [
                                 {"MemberId": mid, "Assignment": b""}]})
    hc.describe(ctx, c, [g])
    hc.join(ctx, c, g, hc.M1, [t])
    hc.describe_sorted(ctx, c, [g])
    hc.hb(ctx, c, g, hc.M1, -1)
    c.call("DescribeGroups", dv, {"Groups": [g], "IncludeAuthorizedOperations": False})
    hc.describe(ctx, c, [g])


@scenario("consumer.session.expiry",
          "A consumer-protocol member that stops heartbeating is removed after "
          "group.consumer.session.timeout.ms (2 s in this profile): the group epoch is bumped "
          "and the member's next heartbeat is UNKNOWN_MEMBER_ID", api=API, versions=(1, None),
          profile="consumer_session")
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 1)])
    r = hc.join(ctx, c, g, hc.M1, [t])
    ctx.wait_until(lambda: not hc.describe(ctx, c, [g], record=False)["Groups"][0]["Members"],
                   "the session to expire")
    hc.describe(ctx, c, [g])
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"])
    hc.join(ctx, c, g, hc.M1, [t])


@scenario("consumer.session.heartbeat_interval",
          "ConsumerGroupHeartbeat answers carry group.consumer.heartbeat.interval.ms from the "
          "broker's settings (1 s in this profile)", api=API, profile="consumer_session")
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = hc.join(ctx, c, g, hc.mid(ctx, hc.M1), [])
    hc.hb(ctx, c, g, r["MemberId"], r["MemberEpoch"])


@scenario("consumer.describe.member_order",
          "ConsumerGroupDescribe lists a group's members in Kafka's order (its timeline hash "
          "table's), here three members subscribed to nothing, also after a restart",
          api=hc.DESCRIBE, restartable=True)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hv = ctx.api_range(API)[1]
    for m in ("m-a", "m-b", "m-c"):
        c.call(API, hv, {"GroupId": g, "MemberId": m, "MemberEpoch": 0,
                         "RebalanceTimeoutMs": 5000, "SubscribedTopicNames": [],
                         "TopicPartitions": []}, record=False)
    hc.describe(ctx, c, [g], version=ctx.version)
    ctx.restart_point()
    hc.describe(ctx, c, [g], version=ctx.version)


@scenario("consumer.regex.switch_to_names",
          "ConsumerGroupHeartbeat v1: a member subscribed by regex switches to topic names "
          "(clearing the regex with \"\"): the group epoch is bumped at once and the "
          "resolution is dropped", api=API, versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, x1, n1 = ctx.group(), ctx.topic("x1"), ctx.topic("n1")
    hc.create_topics(ctx, c, [(x1, 1), (n1, 1)])
    r = hc.join(ctx, c, g, hc.M1, None, SubscribedTopicRegex=_regex_for(ctx, "x"))
    ctx.wait_until(lambda: hc.group_epoch(ctx, c, g) > r["MemberEpoch"], "the regex resolution")
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=[])
    r = hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r),
              SubscribedTopicRegex="", SubscribedTopicNames=[n1])
    hc.hb(ctx, c, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r) or [])
    hc.describe(ctx, c, [g])


@scenario("consumer.regex.shared_by_two_members",
          "ConsumerGroupHeartbeat v1: a second member joining with a regex already resolved "
          "bumps the group epoch at once (no new resolution)", api=API, versions=(1, None))
def _(ctx):
    c1, c2 = ctx.client("m1"), ctx.client("m2")
    g, x1 = ctx.group(), ctx.topic("x1")
    hc.create_topics(ctx, c1, [(x1, 2)])
    rx = _regex_for(ctx, "x")
    r = hc.join(ctx, c1, g, hc.M1, None, SubscribedTopicRegex=rx)
    ctx.wait_until(lambda: hc.group_epoch(ctx, c1, g) > r["MemberEpoch"], "the regex resolution")
    r = hc.hb(ctx, c1, g, hc.M1, r["MemberEpoch"], TopicPartitions=[])
    r = hc.hb(ctx, c1, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    r2 = hc.join(ctx, c2, g, hc.M2, None, SubscribedTopicRegex=rx)
    hc.hb(ctx, c1, g, hc.M1, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.describe(ctx, c1, [g])


@scenario("consumer.describe.member_order_two",
          "ConsumerGroupDescribe of two members (m-a then m-c, and m-b then m-d): the order "
          "of Kafka's member table, whose size follows every put of a member (an update "
          "too), not only the additions", api=hc.DESCRIBE)
def _(ctx):
    c = ctx.client()
    hv = ctx.api_range(API)[1]
    for label, ids in (("ac", ("m-a", "m-c")), ("bd", ("m-b", "m-d"))):
        g = ctx.group(label)
        for m in ids:
            c.call(API, hv, {"GroupId": g, "MemberId": m, "MemberEpoch": 0,
                             "RebalanceTimeoutMs": 5000, "SubscribedTopicNames": [],
                             "TopicPartitions": []}, record=False)
        hc.describe(ctx, c, [g], version=ctx.version)
