# SPDX-License-Identifier: Apache-2.0
"""Steps and request bodies of the offsets and group administration
scenarios (s_offsets*.py): topics, classic members, consumer group
members, and OffsetCommit/OffsetFetch bodies for any version.

Set-up steps (topics, joins) are not recorded: they belong to other
areas, and a scenario fails with ScenarioError when one does not succeed.
"""

from conformance import ScenarioError
import helpers as h

SESSION_MS = 120000


def top(ctx, api):
    """The highest version of api both brokers serve."""
    return h.top_version(ctx, api)


def _check(r, what, code=0):
    if r is None:
        raise ScenarioError("%s: connection closed" % what)
    if r.get("ErrorCode", 0) != code:
        raise ScenarioError("%s: error %s (%r)" % (what, r.get("ErrorCode"), r))
    return r


def create_topics(ctx, c, topics):
    """Creates {name: partitions}; returns {name: topic id} once Metadata
    shows every topic with all its partitions led.

    Consumer group members here subscribe to no topic, or only where their
    epoch is not recorded: Kafka's group coordinator learns of a new topic
    later than its Metadata answers do and may bump a subscribed group's
    epoch again afterwards, so epochs and assignments of members subscribed
    to new topics depend on timing."""
    h.create_topics(ctx, c, topics)
    return h.wait_topics_led(ctx, c, topics)


wait_topics = h.wait_topics_led


# ---------------------------------------------------------------- OffsetCommit

def commit_body(version, group, topics, generation=-1, member_id="", instance_id=None,
                retention_ms=-1, ids=None):
    """An OffsetCommit body. topics: [(name, [(partition, offset[, metadata[,
    leader epoch]])])]; from v10 topics go by id (ids: {name: id}, a name
    missing from ids or given as bytes is used as the id itself)."""
    body = {"GroupId": group, "GenerationIdOrMemberEpoch": generation, "MemberId": member_id}
    if version >= 7:
        body["GroupInstanceId"] = instance_id
    if 2 <= version <= 4:
        body["RetentionTimeMs"] = retention_ms
    out = []
    for name, parts in topics:
        t = {}
        if version >= 10:
            if isinstance(name, (bytes, bytearray)):
                t["TopicId"] = bytes(name)
            else:
                t["TopicId"] = (ids or {}).get(name, bytes(16))
        else:
            t["Name"] = name
        t["Partitions"] = []
        for p in parts:
            part = {"PartitionIndex": p[0], "CommittedOffset": p[1],
                    "CommittedMetadata": p[2] if len(p) > 2 else ""}
            if version >= 6:
                part["CommittedLeaderEpoch"] = p[3] if len(p) > 3 else -1
            t["Partitions"].append(part)
        out.append(t)
    body["Topics"] = out
    return body


def fetch_body(version, groups, require_stable=False, ids=None):
    """An OffsetFetch body. groups: [(group, topics or None[, member id,
    member epoch])], topics: [(name, [partitions])]; before v8 only one
    group. From v10 topics go by id as in commit_body."""
    def topics_of(ts):
        if ts is None:
            return None
        out = []
        for name, parts in ts:
            t = {"PartitionIndexes": list(parts)}
            if version >= 10:
                if isinstance(name, (bytes, bytearray)):
                    t["TopicId"] = bytes(name)
                else:
                    t["TopicId"] = (ids or {}).get(name, bytes(16))
            else:
                t["Name"] = name
            out.append(t)
        return out
    body = {}
    if version >= 7:
        body["RequireStable"] = require_stable
    if version >= 8:
        gs = []
        for g in groups:
            d = {"GroupId": g[0], "Topics": topics_of(g[1])}
            if version >= 9 and len(g) > 2:
                d["MemberId"] = g[2]
                d["MemberEpoch"] = g[3]
            gs.append(d)
        body["Groups"] = gs
        return body
    if len(groups) != 1:
        raise ScenarioError("OffsetFetch v%d takes one group" % version)
    g = groups[0]
    body["GroupId"] = g[0]
    ts = topics_of(g[1])
    if ts is None and version < 2:
        raise ScenarioError("OffsetFetch v%d cannot ask for all topics" % version)
    body["Topics"] = ts
    return body


def fetch(ctx, c, version, group, topics, ids=None, **kw):
    return c.call("OffsetFetch", version, fetch_body(version, [(group, topics)], ids=ids, **kw))


def commit(ctx, c, version, group, topics, ids=None, record=True, **kw):
    return c.call("OffsetCommit", version, commit_body(version, group, topics, ids=ids, **kw),
                  record=record)


def simple_commit(ctx, c, group, topics, ids=None):
    """An unrecorded commit of a simple group at the top version (set-up)."""
    v = top(ctx, "OffsetCommit")
    r = c.call("OffsetCommit", v, commit_body(v, group, topics, ids=ids), record=False)
    if r is None:
        raise ScenarioError("OffsetCommit: connection closed")
    for t in r["Topics"]:
        for p in t["Partitions"]:
            if p["ErrorCode"] != 0:
                raise ScenarioError("set-up OffsetCommit: error %d" % p["ErrorCode"])
    return r


# ---------------------------------------------------------------- classic members

def classic_join(ctx, c, group, topics, protocol_type="consumer", protocols=None,
                 instance_id=None):
    """One classic member joins an empty group and syncs: returns (member id,
    generation). The group is then Stable with this member as leader."""
    jv = top(ctx, "JoinGroup")
    if protocols is None:
        protocols = [("range", h.subscription_v0(topics))]
    body = h.join_body(jv, group, "", protocols=protocols, instance_id=instance_id,
                       session_timeout_ms=SESSION_MS, rebalance_timeout_ms=SESSION_MS,
                       protocol_type=protocol_type)
    r = c.call("JoinGroup", jv, body, record=False)
    if r is None:
        raise ScenarioError("JoinGroup: connection closed")
    if r["ErrorCode"] == 79:  # MEMBER_ID_REQUIRED
        body["MemberId"] = r["MemberId"]
        r = c.call("JoinGroup", jv, body, record=False)
    _check(r, "JoinGroup")
    mid, gen = r["MemberId"], r["GenerationId"]
    sync(ctx, c, group, mid, gen, protocol_type, r.get("ProtocolName") or "range",
         [(mid, b"")], instance_id=instance_id)
    return mid, gen


def classic_join_only(ctx, c, group, topics, protocol_type="consumer"):
    """One classic member joins an empty group without syncing: returns
    (member id, generation); the group is CompletingRebalance."""
    jv = top(ctx, "JoinGroup")
    body = h.join_body(jv, group, "", protocols=[("range", h.subscription_v0(topics))],
                       session_timeout_ms=SESSION_MS, rebalance_timeout_ms=SESSION_MS,
                       protocol_type=protocol_type)
    r = c.call("JoinGroup", jv, body, record=False)
    if r is not None and r["ErrorCode"] == 79:
        body["MemberId"] = r["MemberId"]
        r = c.call("JoinGroup", jv, body, record=False)
    _check(r, "JoinGroup")
    return r["MemberId"], r["GenerationId"]


def sync(ctx, c, group, member_id, generation, protocol_type, protocol_name, assignments,
         instance_id=None):
    sv = top(ctx, "SyncGroup")
    body = {"GroupId": group, "GenerationId": generation, "MemberId": member_id,
            "Assignments": [{"MemberId": m, "Assignment": a} for m, a in assignments]}
    if sv >= 3:
        body["GroupInstanceId"] = instance_id
    if sv >= 5:
        body["ProtocolType"] = protocol_type
        body["ProtocolName"] = protocol_name
    return _check(c.call("SyncGroup", sv, body, record=False), "SyncGroup")


def leave(ctx, c, group, member_id):
    lv = top(ctx, "LeaveGroup")
    if lv >= 3:
        body = {"GroupId": group, "Members": [{"MemberId": member_id}]}
    else:
        body = {"GroupId": group, "MemberId": member_id}
    return _check(c.call("LeaveGroup", lv, body, record=False), "LeaveGroup")


# ---------------------------------------------------------------- consumer groups

def member_id(label):
    """A client-made member id of 22 characters (as a Kafka Uuid prints)."""
    s = ("kcoordconf" + label + "x" * 22)[:22]
    return s


def cg_join(ctx, c, group, mid, topics, record=False):
    """A consumer-protocol member joins (epoch 0); returns the response."""
    v = top(ctx, "ConsumerGroupHeartbeat")
    body = {"GroupId": group, "MemberId": mid, "MemberEpoch": 0, "RebalanceTimeoutMs": SESSION_MS,
            "SubscribedTopicNames": list(topics), "TopicPartitions": []}
    r = c.call("ConsumerGroupHeartbeat", v, body, record=record)
    return _check(r, "ConsumerGroupHeartbeat")


def cg_heartbeat(ctx, c, group, mid, epoch, owned=None, record=False):
    """A steady heartbeat; owned: [(topic id, [partitions])] or None."""
    v = top(ctx, "ConsumerGroupHeartbeat")
    body = {"GroupId": group, "MemberId": mid, "MemberEpoch": epoch}
    if owned is not None:
        body["TopicPartitions"] = [{"TopicId": t, "Partitions": p} for t, p in owned]
    return _check(c.call("ConsumerGroupHeartbeat", v, body, record=record),
                  "ConsumerGroupHeartbeat")


def cg_leave(ctx, c, group, mid):
    v = top(ctx, "ConsumerGroupHeartbeat")
    return _check(c.call("ConsumerGroupHeartbeat", v,
                         {"GroupId": group, "MemberId": mid, "MemberEpoch": -1}, record=False),
                  "ConsumerGroupHeartbeat leave")


def owned_of(resp):
    """The assignment of a heartbeat response as [(topic id, partitions)]."""
    a = resp.get("Assignment")
    if not a:
        return None
    return [(t["TopicId"], sorted(t["Partitions"])) for t in a["TopicPartitions"]]


def cg_member(ctx, c, group, mid, topics=()):
    """A consumer-protocol member joins (by default subscribed to nothing,
    so that it is at once Stable at the group epoch); returns its epoch."""
    r = cg_join(ctx, c, group, mid, topics)
    return cg_heartbeat(ctx, c, group, mid, r["MemberEpoch"], owned=[])["MemberEpoch"]


def epoch_label(value, epoch):
    """How a request's epoch relates to the member's (epochs themselves are
    the consumer group area's; here only the relation matters)."""
    if value == epoch:
        return "member epoch"
    if value < 0:
        return value
    return "member epoch %+d" % (value - epoch)


def commit_with_epoch(ctx, c, version, group, topics, epoch, value, mid, ids=None):
    """An OffsetCommit with member epoch `value`, noted with the epoch as
    its relation to the member's `epoch` (the request itself unrecorded)."""
    body = commit_body(version, group, topics, generation=value, member_id=mid, ids=ids)
    r = c.call("OffsetCommit", version, body, record=False)
    body["GenerationIdOrMemberEpoch"] = epoch_label(value, epoch)
    ctx.note("OffsetCommit v%d" % version, {"request": body, "response": r})
    return r


def fetch_with_epoch(ctx, c, version, groups, epoch, ids=None):
    """An OffsetFetch v9+ whose groups carry member epochs, noted as
    commit_with_epoch notes."""
    body = fetch_body(version, groups, ids=ids)
    r = c.call("OffsetFetch", version, body, record=False)
    for g in body["Groups"]:
        if "MemberEpoch" in g:
            g["MemberEpoch"] = epoch_label(g["MemberEpoch"], epoch)
    ctx.note("OffsetFetch v%d" % version, {"request": body, "response": r})
    return r


def mine(ctx, groups):
    """ListGroups entries of this case's groups (others run at the same time)."""
    prefix = ctx.group("")
    return [g for g in groups if g["GroupId"].startswith(prefix)]
