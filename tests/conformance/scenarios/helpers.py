# SPDX-License-Identifier: Apache-2.0
"""Request bodies and steps the scenarios share."""

import struct

from conformance import ScenarioError


def top_version(ctx, api, cap=None):
    """The newest version of api both brokers serve (at most cap, but not
    under the lowest both serve); ScenarioError when one does not serve it."""
    rng = ctx.api_range(api)
    if rng is None:
        raise ScenarioError("%s is not served by both brokers" % api)
    lo, hi = rng
    return hi if cap is None else max(lo, min(hi, cap))


def create_topics(ctx, c, topics, replication_factor=1, configs=None, record=False):
    """Creates topics {name: partitions} with one CreateTopics request
    (unrecorded unless record), each with the configs {name: value};
    ScenarioError unless every one is created."""
    body = {"Topics": [{"Name": n, "NumPartitions": p, "ReplicationFactor": replication_factor,
                        "Configs": [{"Name": k, "Value": x} for k, x in (configs or {}).items()]}
                       for n, p in topics.items()],
            "timeoutMs": 30000}
    r = c.call("CreateTopics", top_version(ctx, "CreateTopics"), body, record=record)
    if r is None:
        raise ScenarioError("CreateTopics: connection closed")
    for t in r["Topics"]:
        if t["ErrorCode"] != 0:
            raise ScenarioError("CreateTopics %s: error %d %s"
                                % (t["Name"], t["ErrorCode"], t.get("ErrorMessage")))


def wait_topics_led(ctx, c, topics, not_ids=None):
    """{name: topic id} once Metadata (unrecorded) shows every topic of
    {name: partitions} with all its partitions and a leader for each (and,
    for a topic created again, an id other than its old one in not_ids).
    Kafka's broker learns of a new topic shortly after CreateTopics answers."""
    mv = top_version(ctx, "Metadata", 12)

    def ready():
        m = c.call("Metadata", mv, {"Topics": [{"Name": n} for n in topics],
                                    "AllowAutoTopicCreation": False}, record=False)
        ids = {}
        for t in m["Topics"]:
            if t["ErrorCode"] != 0 or len(t["Partitions"]) != topics.get(t["Name"], -1):
                return None
            if any(p["ErrorCode"] != 0 or p["LeaderId"] < 0 for p in t["Partitions"]):
                return None
            if not_ids and not_ids.get(t["Name"]) == t["TopicId"]:
                return None
            ids[t["Name"]] = t["TopicId"]
        return ids if len(ids) == len(topics) else None
    return ctx.wait_until(ready, "topics %s in Metadata" % ", ".join(sorted(topics)))


def subscription_v0(topics, user_data=b""):
    """ConsumerProtocolSubscription v0 bytes (the classic consumer's metadata)."""
    out = struct.pack(">h", 0) + struct.pack(">i", len(topics))
    for t in topics:
        b = t.encode()
        out += struct.pack(">h", len(b)) + b
    return out + struct.pack(">i", len(user_data)) + user_data


def join_body(version, group, member_id, protocols=None, instance_id=None,
              session_timeout_ms=30000, rebalance_timeout_ms=30000,
              protocol_type="consumer", reason=None):
    """A JoinGroup request body; protocols: [(name, metadata bytes)]."""
    if protocols is None:
        protocols = [("range", subscription_v0(["t"]))]
    body = {"GroupId": group, "SessionTimeoutMs": session_timeout_ms,
            "RebalanceTimeoutMs": rebalance_timeout_ms, "MemberId": member_id,
            "GroupInstanceId": instance_id, "ProtocolType": protocol_type,
            "Protocols": [{"Name": n, "Metadata": m} for n, m in protocols]}
    if version >= 8:
        body["Reason"] = reason
    return body
