# SPDX-License-Identifier: Apache-2.0
"""ConsumerGroupHeartbeat request validation: each rule and its message."""

from conformance import scenario
import h_consumer as hc

API = hc.API


def _one(sid, covers, versions=None, **body):
    def run(ctx):
        c = ctx.client()
        b = dict(body)
        group = b.pop("GroupId", None)
        member = b.pop("MemberId", "member-x")
        epoch = b.pop("MemberEpoch", 0)
        hc.hb(ctx, c, ctx.group() if group is None else group, member, epoch, **b)
    scenario(sid, covers, api=API, versions=versions)(run)


_one("consumer.validate.empty_group_id",
     "ConsumerGroupHeartbeat: an empty GroupId is INVALID_REQUEST 'GroupId can't be empty.'",
     GroupId="", SubscribedTopicNames=["t"])
_one("consumer.validate.empty_member_id_join_v1",
     "ConsumerGroupHeartbeat v1+ (KIP-1082): joining with an empty MemberId is INVALID_REQUEST",
     versions=(1, None), MemberId="", SubscribedTopicNames=["t"])
_one("consumer.validate.empty_member_id_epoch",
     "ConsumerGroupHeartbeat: an empty MemberId with a positive epoch is INVALID_REQUEST",
     MemberId="", MemberEpoch=3)
_one("consumer.validate.empty_member_id_leave",
     "ConsumerGroupHeartbeat: leaving (epoch -1) with an empty MemberId is INVALID_REQUEST",
     MemberId="", MemberEpoch=-1)
_one("consumer.validate.empty_member_id_before_group",
     "ConsumerGroupHeartbeat: an empty MemberId (epoch 2) is reported before an empty GroupId",
     GroupId="", MemberId="", MemberEpoch=2)
_one("consumer.validate.empty_instance_id",
     "ConsumerGroupHeartbeat: an empty InstanceId is INVALID_REQUEST 'InstanceId can't be empty.'",
     InstanceId="", SubscribedTopicNames=["t"])
_one("consumer.validate.empty_rack_id",
     "ConsumerGroupHeartbeat: an empty RackId is INVALID_REQUEST 'RackId can't be empty.'",
     RackId="", SubscribedTopicNames=["t"])
_one("consumer.validate.join_without_rebalance_timeout",
     "ConsumerGroupHeartbeat: joining with RebalanceTimeoutMs -1 is INVALID_REQUEST",
     RebalanceTimeoutMs=-1, SubscribedTopicNames=["t"])
_one("consumer.validate.join_null_owned",
     "ConsumerGroupHeartbeat: joining with null TopicPartitions is INVALID_REQUEST "
     "'TopicPartitions must be empty when (re-)joining.'",
     TopicPartitions=None, SubscribedTopicNames=["t"])
_one("consumer.validate.join_owned_partitions",
     "ConsumerGroupHeartbeat: joining with owned partitions is INVALID_REQUEST",
     TopicPartitions=[{"TopicId": b"\x01" * 16, "Partitions": [0]}], SubscribedTopicNames=["t"])
_one("consumer.validate.join_without_subscription",
     "ConsumerGroupHeartbeat: joining with neither SubscribedTopicNames nor a regex is "
     "INVALID_REQUEST", SubscribedTopicNames=None)
_one("consumer.validate.static_leave_without_instance",
     "ConsumerGroupHeartbeat: epoch -2 without an InstanceId is INVALID_REQUEST "
     "'InstanceId can't be null.'", MemberEpoch=-2)
_one("consumer.validate.epoch_below_minus_two",
     "ConsumerGroupHeartbeat: a MemberEpoch below -2 is INVALID_REQUEST 'MemberEpoch is invalid.'",
     MemberEpoch=-3)
_one("consumer.validate.unsupported_assignor",
     "ConsumerGroupHeartbeat: an unknown ServerAssignor is UNSUPPORTED_ASSIGNOR naming the "
     "supported assignors", ServerAssignor="sticky", SubscribedTopicNames=["t"])
_one("consumer.validate.rule_order",
     "ConsumerGroupHeartbeat: of several invalid fields (rebalance timeout, owned list, "
     "assignor) the rebalance timeout is reported first",
     RebalanceTimeoutMs=-1, TopicPartitions=None, ServerAssignor="nope",
     SubscribedTopicNames=None)
_one("consumer.validate.unknown_group_epoch",
     "ConsumerGroupHeartbeat: a positive epoch for a group that does not exist is "
     "GROUP_ID_NOT_FOUND", MemberEpoch=4)
_one("consumer.validate.empty_regex_join",
     "ConsumerGroupHeartbeat v1+: joining with an empty regex and no names is accepted "
     "(a member subscribed to nothing)", versions=(1, None),
     SubscribedTopicNames=None, SubscribedTopicRegex="")
