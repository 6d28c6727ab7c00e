# SPDX-License-Identifier: Apache-2.0
"""Server-side assignors (uniform, range) and reconciliation of consumer
groups. Member ids are client-chosen (v1) so that both brokers, and
Kafka's hash-ordered assignors, see the same members."""

from conformance import scenario
import h_consumer as hc

API = hc.API


def canon(resp, names):
    """A heartbeat response with its assignment by topic name, sorted (Kafka
    orders the topics of an assignment by a hash of random topic ids)."""
    out = {k: v for k, v in resp.items() if k not in ("Assignment", "ThrottleTimeMs")}
    a = resp.get("Assignment")
    if a is not None:
        out["Assignment"] = sorted((names[bytes(t["TopicId"])], list(t["Partitions"]))
                                   for t in a["TopicPartitions"])
    return out


def canon_describe(resp, names):
    out = []
    for g in resp["Groups"]:
        d = {k: v for k, v in g.items() if k != "Members"}
        d["Members"] = []
        for m in sorted(g["Members"], key=lambda m: m["MemberId"]):
            mm = {k: v for k, v in m.items() if k not in ("Assignment", "TargetAssignment")}
            for k in ("Assignment", "TargetAssignment"):
                mm[k] = sorted((t["TopicName"], list(t["Partitions"]))
                               for t in m[k]["TopicPartitions"])
            d["Members"].append(mm)
        out.append(d)
    return out


def _two_members(ctx, assignor, partitions, static):
    c1, c2 = ctx.client("m1"), ctx.client("m2")
    g, t = ctx.group(), ctx.topic()
    tid = hc.create_topics(ctx, c1, [(t, partitions)])[t]
    extra1 = {"ServerAssignor": assignor}
    extra2 = {"ServerAssignor": assignor}
    if static:
        extra1["InstanceId"], extra2["InstanceId"] = "inst-1", "inst-2"
    r1 = hc.join(ctx, c1, g, hc.M1, [t], **extra1)
    r1 = hc.hb(ctx, c1, g, hc.M1, 1, TopicPartitions=hc.owned(r1))
    r2 = hc.join(ctx, c2, g, hc.M2, [t], **extra2)
    # The first member still owns everything: it is asked to revoke.
    full = [{"TopicId": tid, "Partitions": list(range(partitions))}]
    r1 = hc.hb(ctx, c1, g, hc.M1, 1, TopicPartitions=full)
    hc.describe(ctx, c1, [g])
    # The second member cannot get partitions still owned by the first.
    hc.hb(ctx, c2, g, hc.M2, r2["MemberEpoch"], TopicPartitions=[])
    r1 = hc.hb(ctx, c1, g, hc.M1, 1, TopicPartitions=hc.owned(r1))
    hc.hb(ctx, c1, g, hc.M1, r1["MemberEpoch"], TopicPartitions=hc.owned(r1) or None)
    r2 = hc.hb(ctx, c2, g, hc.M2, r2["MemberEpoch"], TopicPartitions=[])
    hc.hb(ctx, c2, g, hc.M2, r2["MemberEpoch"], TopicPartitions=hc.owned(r2))
    hc.describe(ctx, c1, [g])


for _assignor in ("uniform", "range"):
    for _static in (False, True):
        for _parts in (4, 3):
            def _mk(assignor=_assignor, static=_static, parts=_parts):
                kind = "static" if static else "dynamic"
                scenario("consumer.assign.%s.%s_two_members_p%d" % (assignor, kind, parts),
                         "ConsumerGroupHeartbeat v1: the %s assignor with two %s members on a "
                         "topic of %d partitions; the second join makes the first revoke before "
                         "the second gets the released partitions (Assignment, MemberEpoch, "
                         "HeartbeatIntervalMs, describe's assignments and target assignments)"
                         % (assignor, kind, parts),
                         api=API, versions=(1, None), restartable=(parts == 4 and not static))(
                    lambda ctx: _two_members(ctx, assignor, parts, static))
            _mk()


MEMBERS = [hc.M1, hc.M2, hc.M3, "member-four", "member-five"]


def _three_members(ctx, assignor, topics, subs, instances=None):
    """Members join one after the other, acknowledging each assignment;
    records canonical (sorted by topic name) responses. instances: the
    members' group instance ids (None for a dynamic member)."""
    clients = [ctx.client("m%d" % (i + 1)) for i in range(len(subs))]
    g = ctx.group()
    names = {}
    ids = hc.create_topics(ctx, clients[0], [(ctx.topic(n), p) for n, p in topics])
    for n, tid in ids.items():
        names[bytes(tid)] = n
    members = MEMBERS[:len(subs)]
    epoch, owned = {}, {}
    for i, (m, sub) in enumerate(zip(members, subs)):
        extra = {"InstanceId": instances[i]} if instances and instances[i] else {}
        r = hc.join(ctx, clients[i], g, m, [ctx.topic(n) for n in sub], record=False,
                    ServerAssignor=assignor, **extra)
        ctx.note("join %s" % m, canon(r, names))
        epoch[m], owned[m] = r["MemberEpoch"], hc.owned(r) or []
    # Each member heartbeats what it owns; revocations come first, then the
    # released partitions, so four rounds settle every case here.
    for rnd in range(len(subs) + 1):
        for i, m in enumerate(members):
            r = hc.hb(ctx, clients[i], g, m, epoch[m], record=False, TopicPartitions=owned[m])
            ctx.note("round %d %s" % (rnd, m), canon(r, names))
            epoch[m] = r["MemberEpoch"]
            if r.get("Assignment") is not None:
                owned[m] = hc.owned(r)
    d = hc.describe(ctx, clients[0], [g], record=False)
    ctx.note("describe", canon_describe(d, names))


@scenario("consumer.assign.uniform.three_members",
          "ConsumerGroupHeartbeat v1: the uniform assignor spreading a topic of 7 partitions "
          "over three members joining one after the other, through reconciliation (which "
          "member keeps which partitions follows Kafka's member order)", api=API,
          versions=(1, None))
def _(ctx):
    _three_members(ctx, "uniform", [("a", 7)], [["a"]] * 3)


@scenario("consumer.assign.uniform.heterogeneous",
          "ConsumerGroupHeartbeat v1: the uniform assignor with different subscriptions "
          "(heterogeneous builder): two members on a topic of 5 partitions and one "
          "subscribed to nothing", api=API, versions=(1, None))
def _(ctx):
    _three_members(ctx, "uniform", [("a", 5)], [["a"], [], ["a"]])


@scenario("consumer.assign.range.co_partitioned",
          "ConsumerGroupHeartbeat v1: the range assignor gives two members the same ranges of "
          "two co-partitioned topics", api=API, versions=(1, None))
def _(ctx):
    _three_members(ctx, "range", [("a", 3), ("b", 3)], [["a", "b"], ["a", "b"]])


@scenario("consumer.assign.range.static_instance_order",
          "ConsumerGroupHeartbeat v1: the range assignor orders static members by group "
          "instance id, before dynamic ones: a topic of 7 partitions over a dynamic member "
          "and two static ones whose instance ids sort against their member ids", api=API,
          versions=(1, None))
def _(ctx):
    _three_members(ctx, "range", [("a", 7)], [["a"]] * 3, [None, "inst-b", "inst-a"])


@scenario("consumer.assign.range.heterogeneous",
          "ConsumerGroupHeartbeat v1: the range assignor with members subscribed to "
          "different topics", api=API, versions=(1, None))
def _(ctx):
    _three_members(ctx, "range", [("a", 4), ("b", 2)], [["a"], ["a", "b"], ["b"]])


@scenario("consumer.epochs.members_leave",
          "ConsumerGroupHeartbeat: group and member epochs as two members leave one after "
          "the other, and the empty group's epochs after the last one left", api=API,
          versions=(1, None))
def _(ctx):
    c = ctx.client()
    g, t = ctx.group(), ctx.topic()
    hc.create_topics(ctx, c, [(t, 2)])
    hc.join(ctx, c, g, hc.M1, [t])
    hc.join(ctx, c, g, hc.M2, [t])
    hc.describe(ctx, c, [g])
    hc.hb(ctx, c, g, hc.M1, -1)
    hc.describe(ctx, c, [g])
    r = hc.hb(ctx, c, g, hc.M2, 2, TopicPartitions=[])
    hc.hb(ctx, c, g, hc.M2, r["MemberEpoch"], TopicPartitions=hc.owned(r))
    hc.hb(ctx, c, g, hc.M2, -1)
    hc.describe(ctx, c, [g])
    hc.join(ctx, c, g, hc.M1, [t])


@scenario("consumer.assign.uniform.five_members",
          "ConsumerGroupHeartbeat v1: the uniform assignor with five members on one topic of "
          "12 partitions (Kafka's member order decides who gets the extra partitions)",
          api=API, versions=(1, None))
def _(ctx):
    _three_members(ctx, "uniform", [("a", 12)], [["a"]] * 5)


@scenario("consumer.assign.range.five_members",
          "ConsumerGroupHeartbeat v1: the range assignor with five members on one topic of "
          "12 partitions", api=API, versions=(1, None))
def _(ctx):
    _three_members(ctx, "range", [("a", 12)], [["a"]] * 5)


@scenario("consumer.assign.uniform.missing_topic_is_heterogeneous",
          "ConsumerGroupHeartbeat v1: members subscribed to [a, a topic that does not exist] "
          "and [a] make a heterogeneous group for Kafka's uniform assignor, which deals the "
          "partitions round-robin", api=API, versions=(1, None))
def _(ctx):
    _three_members(ctx, "uniform", [("a", 5)], [["a", "missing"], ["a"]])


def _regex_members(ctx, regexes_or_names):
    clients = [ctx.client("m%d" % (i + 1)) for i in range(len(regexes_or_names))]
    g = ctx.group()
    a = ctx.topic("a")
    hc.create_topics(ctx, clients[0], [(a, 5)])
    names = {bytes(hc.wait_topics(ctx, clients[0], [(a, 5)])[a]): "a"}
    epoch, owned = {}, {}
    resolved = False
    for i, sub in enumerate(regexes_or_names):
        m = MEMBERS[i]
        if sub == "regex":
            r = hc.join(ctx, clients[i], g, m, None, record=False,
                        SubscribedTopicRegex=a.replace(".", "\\.") + "$")
            if not resolved:
                # The first member of a regex waits for its resolution, so
                # that the epochs that follow do not depend on timing.
                before = r["MemberEpoch"]
                ctx.wait_until(lambda: hc.group_epoch(ctx, clients[0], g) > before,
                               "the regex resolution")
                resolved = True
        else:
            r = hc.join(ctx, clients[i], g, m, [a], record=False)
        ctx.note("join %s" % m, canon(r, names))
        epoch[m], owned[m] = r["MemberEpoch"], hc.owned(r) or []
    for rnd in range(len(regexes_or_names) + 2):
        for i in range(len(regexes_or_names)):
            m = MEMBERS[i]
            r = hc.hb(ctx, clients[i], g, m, epoch[m], record=False, TopicPartitions=owned[m])
            ctx.note("round %d %s" % (rnd, m), canon(r, names))
            epoch[m] = r["MemberEpoch"]
            if r.get("Assignment") is not None:
                owned[m] = hc.owned(r)
    d = hc.describe(ctx, clients[0], [g], record=False)
    ctx.note("describe", canon_describe(d, names))


@scenario("consumer.assign.uniform.regex_homogeneous",
          "ConsumerGroupHeartbeat v1: two members subscribed with the same regex are a "
          "homogeneous group for the uniform assignor", api=API, versions=(1, None))
def _(ctx):
    _regex_members(ctx, ["regex", "regex"])


@scenario("consumer.assign.uniform.regex_and_names",
          "ConsumerGroupHeartbeat v1: one member subscribed with a regex and one by name to "
          "the same topic are a heterogeneous group for the uniform assignor", api=API,
          versions=(1, None))
def _(ctx):
    _regex_members(ctx, ["regex", "names"])


@scenario("consumer.assign.uniform.many_partitions",
          "ConsumerGroupHeartbeat v1: two members of a uniform group on a topic of 40 "
          "partitions: the order of the partitions in each answer's assignment", api=API,
          versions=(1, None))
def _(ctx):
    c1, c2 = ctx.client("m1"), ctx.client("m2")
    g, t = ctx.group(), ctx.topic()
    tid = hc.create_topics(ctx, c1, [(t, 40)])[t]
    r1 = hc.join(ctx, c1, g, hc.M1, [t])
    r1 = hc.hb(ctx, c1, g, hc.M1, r1["MemberEpoch"], TopicPartitions=hc.owned(r1))
    r2 = hc.join(ctx, c2, g, hc.M2, [t])
    full = [{"TopicId": tid, "Partitions": list(range(40))}]
    r1 = hc.hb(ctx, c1, g, hc.M1, 2, TopicPartitions=full)
    r1 = hc.hb(ctx, c1, g, hc.M1, 2, TopicPartitions=hc.owned(r1))
    r2 = hc.hb(ctx, c2, g, hc.M2, r2["MemberEpoch"], TopicPartitions=[])
    hc.describe(ctx, c1, [g])
