# SPDX-License-Identifier: Apache-2.0
"""ConsumerGroupDescribe."""

from conformance import scenario
import h_consumer as hc

DESCRIBE = hc.DESCRIBE


@scenario("consumer.describe.unknown_group",
          "ConsumerGroupDescribe of a group that does not exist is GROUP_ID_NOT_FOUND with "
          "its message, per group of a batch", api=DESCRIBE)
def _(ctx):
    c = ctx.client()
    hc.describe(ctx, c, [ctx.group("a"), ctx.group("b")], version=ctx.version)


@scenario("consumer.describe.empty_list_and_empty_id",
          "ConsumerGroupDescribe with no group ids, and with an empty group id", api=DESCRIBE)
def _(ctx):
    c = ctx.client()
    hc.describe(ctx, c, [], version=ctx.version)
    hc.describe(ctx, c, [""], version=ctx.version)


@scenario("consumer.describe.classic_group",
          "ConsumerGroupDescribe of a classic group is GROUP_ID_NOT_FOUND 'Group ... is not a "
          "consumer group.'", api=DESCRIBE)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = hc.classic_join(ctx, c, g, "", ["t"])
    hc.classic_join(ctx, c, g, r["MemberId"], ["t"], protocol_type="other")
    hc.describe(ctx, c, [g], version=ctx.version)


@scenario("consumer.describe.live_group",
          "ConsumerGroupDescribe of a stable group: state, epochs, assignor, members with "
          "client id and host, rack, instance id, subscriptions, assignment and target "
          "assignment, MemberType from v1; mixed with an unknown group", api=DESCRIBE)
def _(ctx):
    c = ctx.client(client_id="describe-client")
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    hv = ctx.api_range(hc.API)[1]
    r = c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 0,
                            "InstanceId": "inst", "RackId": "rack", "RebalanceTimeoutMs": 5000,
                            "SubscribedTopicNames": [t], "TopicPartitions": []})
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 1,
                        "TopicPartitions": hc.owned(r)})
    hc.describe(ctx, c, [g, ctx.group("none")], version=ctx.version)


@scenario("consumer.describe.reconciling_group",
          "ConsumerGroupDescribe while a member still has partitions to revoke: the "
          "Reconciling state, the assignment epoch and each member's current and target "
          "assignment", api=DESCRIBE)
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    tid = hc.create_topics(ctx, c, [(t, 2)])[t]
    hv = ctx.api_range(hc.API)[1]
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 0,
                        "RebalanceTimeoutMs": 5000, "SubscribedTopicNames": [t],
                        "TopicPartitions": []})
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M2, "MemberEpoch": 0,
                        "RebalanceTimeoutMs": 5000, "SubscribedTopicNames": [t],
                        "TopicPartitions": []})
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 1,
                        "TopicPartitions": [{"TopicId": tid, "Partitions": [0, 1]}]})
    hc.describe(ctx, c, [g], version=ctx.version)


@scenario("consumer.describe.authorized_operations",
          "ConsumerGroupDescribe with IncludeAuthorizedOperations: the group operations "
          "bitfield without an authorizer; without it the field keeps its default",
          api=DESCRIBE)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hv = ctx.api_range(hc.API)[1]
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 0,
                        "RebalanceTimeoutMs": 5000, "SubscribedTopicNames": [],
                        "TopicPartitions": []})
    hc.describe(ctx, c, [g], include_ops=True, version=ctx.version)
    hc.describe(ctx, c, [g, ctx.group("none")], include_ops=True, version=ctx.version)
    hc.describe(ctx, c, [g], include_ops=False, version=ctx.version)


@scenario("consumer.describe.empty_group",
          "ConsumerGroupDescribe of a consumer group whose last member left: Empty state "
          "and its epochs", api=DESCRIBE)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hv = ctx.api_range(hc.API)[1]
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 0,
                        "RebalanceTimeoutMs": 5000, "SubscribedTopicNames": [],
                        "TopicPartitions": []})
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": -1})
    hc.describe(ctx, c, [g], version=ctx.version)


@scenario("consumer.describe.regex_member",
          "ConsumerGroupDescribe of a member subscribed with a regex shows "
          "SubscribedTopicRegex and no topic names", api=DESCRIBE)
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    hv = ctx.api_range(hc.API)[1]
    if hv < 1:
        return
    c.call(hc.API, hv, {"GroupId": g, "MemberId": hc.M1, "MemberEpoch": 0,
                        "RebalanceTimeoutMs": 5000, "SubscribedTopicRegex": "nomatch-.*",
                        "TopicPartitions": []})
    hc.describe(ctx, c, [g], version=ctx.version)
