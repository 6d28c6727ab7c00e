# SPDX-License-Identifier: Apache-2.0
"""Request bodies and steps of the streams group (KIP-1071) scenarios."""

from conformance import ScenarioError
import helpers as h

JOIN = 0
LEAVE = -1
STATIC_LEAVE = -2

# StreamsGroupHeartbeatResponse status codes
STALE_TOPOLOGY = 0
MISSING_SOURCE_TOPICS = 1
INCORRECTLY_PARTITIONED_TOPICS = 2
MISSING_INTERNAL_TOPICS = 3
SHUTDOWN_APPLICATION = 4
ASSIGNMENT_DELAYED = 5


def topic_info(name, partitions=0, replication_factor=0, configs=None):
    return {"Name": name, "Partitions": partitions, "ReplicationFactor": replication_factor,
            "TopicConfigs": [{"Key": k, "Value": v} for k, v in (configs or {}).items()]}


def subtopology(sid, source=(), changelog=(), repartition_sink=(), repartition_source=(),
                copartition=(), regex=()):
    """One Subtopology; changelog and repartition_source are TopicInfo dicts
    (or names), copartition a list of (source indexes, repartition indexes)."""
    def infos(xs):
        return [x if isinstance(x, dict) else topic_info(x) for x in xs]
    return {"SubtopologyId": sid, "SourceTopics": list(source), "SourceTopicRegex": list(regex),
            "StateChangelogTopics": infos(changelog),
            "RepartitionSinkTopics": list(repartition_sink),
            "RepartitionSourceTopics": infos(repartition_source),
            "CopartitionGroups": [{"SourceTopics": list(s), "SourceTopicRegex": [],
                                   "RepartitionSourceTopics": list(r)} for s, r in copartition]}


def topology(subs, epoch=1):
    return {"Epoch": epoch, "Subtopologies": list(subs)}


def tasks(d):
    """{subtopology id: [partitions]} -> [TaskIds] (sorted by id)."""
    return [{"SubtopologyId": k, "Partitions": sorted(v)} for k, v in sorted(d.items())]


_D = object()  # "the join default" (None is an explicit null)


def hb(group, member_id, epoch, topo=None, rebalance_timeout_ms=_D, instance_id=None,
       rack_id=None, process_id=_D, active=_D, standby=_D, warmup=_D,
       endpoint=None, client_tags=None, shutdown=False, endpoint_epoch=0, **extra):
    """A StreamsGroupHeartbeat body. A join (epoch 0) gets the usual join
    fields unless given: rebalance timeout 30 s, process id "p-<member>",
    empty owned task lists; other epochs send -1 and nulls. active/standby/
    warmup: a dict (see `tasks`), a list of TaskIds, or None (null)."""
    join = epoch == JOIN
    if rebalance_timeout_ms is _D:
        rebalance_timeout_ms = 30000 if join else -1
    if process_id is _D:
        process_id = ("p-" + member_id) if join else None
    if active is _D:
        active = {} if join else None
    if standby is _D:
        standby = {} if join else None
    if warmup is _D:
        warmup = {} if join else None

    def tl(x):
        return tasks(x) if isinstance(x, dict) else x
    body = {"GroupId": group, "MemberId": member_id, "MemberEpoch": epoch,
            "EndpointInformationEpoch": endpoint_epoch, "InstanceId": instance_id,
            "RackId": rack_id,
            "RebalanceTimeoutMs": rebalance_timeout_ms,
            "Topology": topo, "ActiveTasks": tl(active), "StandbyTasks": tl(standby),
            "WarmupTasks": tl(warmup), "ProcessId": process_id,
            "UserEndpoint": None if endpoint is None else {"Host": endpoint[0], "Port": endpoint[1]},
            "ClientTags": None if client_tags is None
            else [{"Key": k, "Value": v} for k, v in client_tags.items()],
            "ShutdownApplication": shutdown}
    body.update(extra)
    return body


def hb_version(ctx):
    """The highest StreamsGroupHeartbeat version both brokers serve."""
    rng = ctx.api_range("StreamsGroupHeartbeat")
    if rng is None:
        raise ScenarioError("StreamsGroupHeartbeat is not served by both brokers")
    return rng[1]


def describe_version(ctx):
    rng = ctx.api_range("StreamsGroupDescribe")
    if rng is None:
        raise ScenarioError("StreamsGroupDescribe is not served by both brokers")
    return rng[1]


def create_topics(ctx, c, topics):
    """Creates topics {name: partitions} (unrecorded setup) with the
    broker's default replication factor; raises unless each one is created."""
    h.create_topics(ctx, c, topics, replication_factor=-1)
    wait_topics(ctx, c, topics)


def _metadata(ctx, c, names):
    mv = min(ctx.api_range("Metadata")[1], 12)
    m = c.call("Metadata", mv, {"Topics": [{"Name": n, "TopicId": bytes(16)} for n in names],
                                "AllowAutoTopicCreation": False,
                                "IncludeTopicAuthorizedOperations": False}, record=False)
    return {t["Name"]: t for t in m["Topics"]}


def partition_counts(ctx, c, names):
    """{name: partition count or the Metadata error code as "error N"}."""
    got = _metadata(ctx, c, names)
    return {n: (len(got[n]["Partitions"]) if got[n]["ErrorCode"] == 0
                else "error %d" % got[n]["ErrorCode"]) for n in names}


def wait_topics(ctx, c, topics):
    """Waits (unrecorded) until the topics (names, or {name: partitions})
    exist in Metadata and the group coordinator sees them."""
    want = topics if isinstance(topics, dict) else {n: None for n in topics}

    def ready():
        got = _metadata(ctx, c, want)
        return all(n in got and got[n]["ErrorCode"] == 0 and got[n]["Partitions"]
                   and (p is None or len(got[n]["Partitions"]) == p) for n, p in want.items())
    ctx.wait_until(ready, "topics %s in the metadata" % sorted(want))
    # The group coordinator learns of topics from its own metadata image,
    # a little after Metadata answers: a streams member of a probe group
    # sees them when its join reports no missing source topic.
    hv = hb_version(ctx)
    probe = {"n": 0}

    def seen():
        probe["n"] += 1
        g = ctx.group("probe-%d" % probe["n"])
        r = c.call("StreamsGroupHeartbeat", hv,
                   hb(g, "probe", JOIN, topo=topology([subtopology("0", source=sorted(want))])),
                   record=False)
        c.call("StreamsGroupHeartbeat", hv, hb(g, "probe", LEAVE), record=False)
        return r["ErrorCode"] == 0 and not any(
            st["StatusCode"] == MISSING_SOURCE_TOPICS for st in r["Status"] or [])
    ctx.wait_until(seen, "topics %s seen by the group coordinator" % sorted(want))


def describe(c, version, groups, include_ops=False, record=True):
    return c.call("StreamsGroupDescribe", version,
                  {"GroupIds": list(groups), "IncludeAuthorizedOperations": include_ops},
                  record=record)


class Member:
    """A streams member that adopts each assignment it is given and reports
    what it owns in full on every heartbeat."""

    def __init__(self, ctx, group, member_id, topo, version=None, instance_id=None,
                 process_id=None, endpoint=None, client=None, rebalance_timeout_ms=30000):
        self.ctx = ctx
        self.group = group
        self.member_id = member_id
        self.topo = topo
        self.version = hb_version(ctx) if version is None else version
        self.instance_id = instance_id
        self.process_id = process_id or ("p-" + member_id)
        self.endpoint = endpoint
        self.c = client or ctx.client(member_id)
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.epoch = 0
        self.active, self.standby, self.warmup = {}, {}, {}
        self.last = None

    def _adopt(self, r):
        self.last = r
        if r is None or r["ErrorCode"] != 0:
            return r
        self.epoch = r["MemberEpoch"]
        for field, attr in (("ActiveTasks", "active"), ("StandbyTasks", "standby"),
                            ("WarmupTasks", "warmup")):
            if r.get(field) is not None:
                setattr(self, attr, {t["SubtopologyId"]: list(t["Partitions"]) for t in r[field]})
        return r

    def join(self, record=True, **kw):
        body = hb(self.group, self.member_id, JOIN, topo=self.topo,
                  rebalance_timeout_ms=self.rebalance_timeout_ms,
                  instance_id=self.instance_id, process_id=self.process_id,
                  endpoint=self.endpoint)
        body.update(kw)
        self.epoch = 0
        self.active, self.standby, self.warmup = {}, {}, {}
        return self._adopt(self.c.call("StreamsGroupHeartbeat", self.version, body, record=record))

    def heartbeat(self, record=True, full=True, **kw):
        """A heartbeat at the member's epoch reporting its tasks (full=True)
        or nothing (null lists)."""
        body = hb(self.group, self.member_id, self.epoch, instance_id=self.instance_id,
                  active=self.active if full else None,
                  standby=self.standby if full else None,
                  warmup=self.warmup if full else None)
        body.update(kw)
        return self._adopt(self.c.call("StreamsGroupHeartbeat", self.version, body, record=record))

    def leave(self, record=True, epoch=LEAVE):
        body = hb(self.group, self.member_id, epoch, instance_id=self.instance_id)
        return self.c.call("StreamsGroupHeartbeat", self.version, body, record=record)

    def settle(self, others=(), what="the group to settle"):
        """Heartbeats this member and `others` (unrecorded) until none of them
        gets anything new: every member at the group's epoch with no
        change in its assignment."""
        members = [self] + list(others)

        def quiet():
            changed = False
            for m in members:
                before = (m.epoch, m.active, m.standby, m.warmup)
                r = m.heartbeat(record=False)
                if r is None or r["ErrorCode"] != 0:
                    raise ScenarioError("%s: heartbeat failed: %r" % (m.member_id, r))
                if (m.epoch, m.active, m.standby, m.warmup) != before:
                    changed = True
            epochs = {m.epoch for m in members}
            return not changed and len(epochs) == 1
        self.ctx.wait_until(quiet, what)
