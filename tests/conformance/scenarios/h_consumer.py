# SPDX-License-Identifier: Apache-2.0
"""Steps of the KIP-848 consumer group scenarios: topics, heartbeats,
describes."""

import helpers as h

API = "ConsumerGroupHeartbeat"
DESCRIBE = "ConsumerGroupDescribe"

# Client-generated member ids (ConsumerGroupHeartbeat v1, KIP-1082). Fixed
# strings keep Kafka's assignors (which walk members in hash order)
# deterministic, and the same on both brokers.
M1 = "member-one"
M2 = "member-two"
M3 = "member-three"


_version = h.top_version


def create_topics(ctx, c, topics):
    """Creates [(name, partitions)] (unrecorded) and waits until Metadata
    shows every one with all its partitions; returns {name: topic id}."""
    h.create_topics(ctx, c, dict(topics))
    return wait_topics(ctx, c, topics)


def wait_topics(ctx, c, topics):
    want = dict(topics)
    ids = h.wait_topics_led(ctx, c, want)
    # Kafka's group coordinator learns of a topic from its metadata image a
    # moment after Metadata shows it: a probe group (unrecorded) waits until
    # its assignor sees every partition.
    hv = ctx.api_range(API)[1]
    probe = ctx.group("probe-%d" % len(ctx.transcript))

    def assigned():
        r = c.call(API, hv, {"GroupId": probe, "MemberId": "probe", "MemberEpoch": 0,
                             "RebalanceTimeoutMs": 1000, "SubscribedTopicNames": list(want),
                             "TopicPartitions": []}, record=False)
        a = (r or {}).get("Assignment") or {"TopicPartitions": []}
        return sum(len(t["Partitions"]) for t in a["TopicPartitions"]) == sum(want.values())
    ctx.wait_until(assigned, "the group coordinator to see topics %s" % sorted(want))
    c.call(API, hv, {"GroupId": probe, "MemberId": "probe", "MemberEpoch": -1}, record=False)
    return ids


def hb_body(ctx, group, member_id, epoch, **kw):
    """A ConsumerGroupHeartbeat body at ctx.version; a join (epoch 0) gets a
    rebalance timeout, an empty owned list and no subscription unless
    given. Fields named in kw override (None included)."""
    body = {"GroupId": group, "MemberId": member_id, "MemberEpoch": epoch}
    if epoch == 0:
        body.update({"RebalanceTimeoutMs": 30000, "TopicPartitions": []})
    body.update(kw)
    if ctx.version == 0 and body.get("SubscribedTopicRegex") is None:
        body.pop("SubscribedTopicRegex", None)
    return body


def hb(ctx, c, group, member_id, epoch, record=True, **kw):
    return c.call(API, ctx.version, hb_body(ctx, group, member_id, epoch, **kw), record=record)


def join(ctx, c, group, member_id, topics=None, record=True, **kw):
    """Joins with epoch 0 subscribed to `topics` (names); v0 with an empty
    member id lets the broker choose one. Returns the response."""
    if topics is not None:
        kw.setdefault("SubscribedTopicNames", topics)
    return hb(ctx, c, group, member_id, 0, record=record, **kw)


def mid(ctx, label):
    """The member id a scenario uses: client-chosen from v1, broker-chosen
    (empty on join) in v0."""
    return label if ctx.version >= 1 else ""


def owned(resp):
    """The TopicPartitions list to send back for a response's assignment."""
    a = resp.get("Assignment") if resp else None
    if a is None:
        return None
    return [{"TopicId": t["TopicId"], "Partitions": list(t["Partitions"])}
            for t in a["TopicPartitions"]]


def describe(ctx, c, groups, include_ops=False, record=True, version=None):
    v = version if version is not None else _version(ctx, DESCRIBE)
    return c.call(DESCRIBE, v, {"GroupIds": groups, "IncludeAuthorizedOperations": include_ops},
                  record=record)


def group_epoch(ctx, c, group):
    r = describe(ctx, c, [group], record=False)
    return r["Groups"][0]["GroupEpoch"]


def classic_join(ctx, c, group, member_id, topics, version=None, protocols=None, **kw):
    v = version if version is not None else _version(ctx, "JoinGroup")
    if protocols is None:
        protocols = [("range", h.subscription_v0(topics))]
    return c.call("JoinGroup", v, h.join_body(v, group, member_id, protocols=protocols, **kw))


def describe_sorted(ctx, c, groups, version=None):
    """ConsumerGroupDescribe recorded as a note with each group's members
    sorted by MemberType, then epoch: for groups with broker-generated member
    ids (classic members), whose order in Kafka's answer follows the hash of
    a random id."""
    r = describe(ctx, c, groups, record=False, version=version)
    out = []
    for g in r["Groups"]:
        g = dict(g)
        g["Members"] = sorted(g["Members"], key=lambda m: (m.get("MemberType", -1),
                                                           m["MemberEpoch"], m["MemberId"]))
        out.append(g)
    ctx.note("ConsumerGroupDescribe, members sorted", out)
    return r
