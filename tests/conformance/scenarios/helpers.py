# SPDX-License-Identifier: Apache-2.0
"""Request bodies and steps the scenarios share."""

import struct


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
