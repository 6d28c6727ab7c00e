# SPDX-License-Identifier: Apache-2.0
"""Streams groups (KIP-1071): task assignment to several members (active
and standby tasks, compared exactly), revocation, rebalance timeout,
static members, leaving."""

from conformance import ScenarioError, scenario
import h_streams as s

API = "StreamsGroupHeartbeat"
P = "streams"


def rounds(members, n):
    """n recorded rounds: each member heartbeats once per round, in order,
    reporting what it owns."""
    for _ in range(n):
        for m in members:
            m.heartbeat()


def stateless(ctx, src):
    return s.topology([s.subtopology("0", source=[src])])


@scenario("streams.assign.two_members",
          "StreamsGroupHeartbeat: a second member joining a group of one gets its tasks "
          "only after the first revokes them (UNREVOKED, then the new epoch), each step's "
          "epochs and task lists as Kafka's; describe shows the Stable group",
          api=API, profile=P, restartable=True)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 4})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m1.join()
    m2.join()
    m2.heartbeat()
    s.describe(m1.c, s.describe_version(ctx), [g])
    ctx.restart_point()
    m1.heartbeat()
    m2.heartbeat()
    m1.heartbeat()
    m2.heartbeat()
    ctx.restart_point()
    rounds([m1, m2], 2)
    s.describe(m1.c, s.describe_version(ctx), [g])


@scenario("streams.assign.three_members_and_leave",
          "StreamsGroupHeartbeat: three members share six tasks as Kafka's sticky assignor "
          "does; when one leaves (-1) its tasks go to the others, the rest stay",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 6})
    t = stateless(ctx, src)
    ms = [s.Member(ctx, g, "m%d" % i, t, version=ctx.version) for i in (1, 2, 3)]
    for m in ms:
        m.join()
    rounds(ms, 3)
    s.describe(ms[0].c, s.describe_version(ctx), [g])
    ms[1].leave()
    rounds([ms[0], ms[2]], 2)
    ms[1].leave()
    s.describe(ms[0].c, s.describe_version(ctx), [g])


@scenario("streams.assign.subtopologies",
          "StreamsGroupHeartbeat: three subtopologies with 3, 2 and 1 tasks over two "
          "members, then a third member: the assignment of every step as Kafka's",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    a, b, c = ctx.topic("a"), ctx.topic("b"), ctx.topic("c")
    s.create_topics(ctx, setup, {a: 3, b: 2, c: 1})
    t = s.topology([s.subtopology("sub-a", source=[a]), s.subtopology("sub-b", source=[b]),
                    s.subtopology("sub-c", source=[c])])
    m1 = s.Member(ctx, g, "alpha", t, version=ctx.version)
    m2 = s.Member(ctx, g, "beta", t, version=ctx.version)
    m1.join()
    m2.join()
    rounds([m1, m2], 3)
    m3 = s.Member(ctx, g, "gamma", t, version=ctx.version)
    m3.join()
    rounds([m1, m2, m3], 3)
    s.describe(m1.c, s.describe_version(ctx), [g])


@scenario("streams.assign.same_process",
          "StreamsGroupHeartbeat: two members of one process and one of another share the "
          "tasks by process load, as Kafka's sticky assignor",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 5})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version, process_id="proc-a")
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version, process_id="proc-a")
    m3 = s.Member(ctx, g, "m3", t, version=ctx.version, process_id="proc-b")
    for m in (m1, m2, m3):
        m.join()
    rounds([m1, m2, m3], 3)
    s.describe(m1.c, s.describe_version(ctx), [g])


@scenario("streams.assign.standby",
          "StreamsGroupHeartbeat with num.standby.replicas=1: a stateful subtopology's tasks "
          "get a standby on the other process, none on the process holding the active task; "
          "a stateless subtopology gets none; members of one process get no standbys",
          api=API, profile="streams_standby")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src, other = ctx.topic("in"), ctx.topic("other")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {src: 3, other: 2})
    t = s.topology([s.subtopology("0", source=[src], changelog=[cl]),
                    s.subtopology("1", source=[other])])
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m1.join()
    s.wait_topics(ctx, setup, [cl])
    m1.heartbeat()
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m2.join()
    rounds([m1, m2], 3)
    s.describe(m1.c, s.describe_version(ctx), [g])
    # A second group whose members share one process: no standby.
    g2 = ctx.group("one-process")
    n1 = s.Member(ctx, g2, "n1", t, version=ctx.version, process_id="shared")
    n2 = s.Member(ctx, g2, "n2", t, version=ctx.version, process_id="shared")
    n1.join()
    n2.join()
    rounds([n1, n2], 2)


@scenario("streams.assign.standby_promotion",
          "StreamsGroupHeartbeat with num.standby.replicas=1: when the member holding the "
          "active tasks leaves, the member with their standbys takes them over as active",
          api=API, profile="streams_standby")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {src: 2})
    t = s.topology([s.subtopology("0", source=[src], changelog=[cl])])
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m1.join()
    s.wait_topics(ctx, setup, [cl])
    m1.heartbeat()
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m2.join()
    rounds([m1, m2], 3)
    m1.leave()
    rounds([m2], 2)
    m3 = s.Member(ctx, g, "m3", t, version=ctx.version)
    m3.join()
    rounds([m2, m3], 3)
    s.describe(m2.c, s.describe_version(ctx), [g])


@scenario("streams.assign.revocation_pending",
          "StreamsGroupHeartbeat: a member that keeps reporting tasks it must revoke stays "
          "at its epoch and the new owner does not get them; null task lists do not count "
          "as a revocation; once released the new owner gets them",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m1.join()
    m2.join()
    c = m1.c
    v = ctx.version
    everything = {"0": [0, 1]}
    c.call(API, v, s.hb(g, "m1", m1.epoch, active=everything, standby={}, warmup={}))
    m2.heartbeat()
    c.call(API, v, s.hb(g, "m1", m1.epoch, active=everything, standby={}, warmup={}))
    c.call(API, v, s.hb(g, "m1", m1.epoch))
    m2.heartbeat()
    s.describe(c, s.describe_version(ctx), [g])
    r = c.call(API, v, s.hb(g, "m1", m1.epoch, active={"0": [0]}, standby={}, warmup={}))
    m1._adopt(r)
    m2.heartbeat()
    m1.heartbeat()
    s.describe(c, s.describe_version(ctx), [g])


@scenario("streams.assign.rebalance_timeout",
          "StreamsGroupHeartbeat: a member that does not revoke within its RebalanceTimeoutMs "
          "(1 s, the member's own value) is removed from the group; its next heartbeat is "
          "UNKNOWN_MEMBER_ID and the other member gets the tasks",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version, rebalance_timeout_ms=1000)
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m1.join()
    m2.join()
    c = m1.c
    c.call(API, ctx.version, s.hb(g, "m1", m1.epoch, active={"0": [0, 1]}, standby={}, warmup={}))
    dv = s.describe_version(ctx)

    def gone():
        r = s.describe(m2.c, dv, [g], record=False)
        return len(r["Groups"][0]["Members"]) == 1
    ctx.wait_until(gone, "the member that did not revoke to be removed")
    c.call(API, ctx.version, s.hb(g, "m1", m1.epoch, active={"0": [0, 1]}, standby={}, warmup={}))
    m2.heartbeat()
    m2.heartbeat()
    s.describe(m2.c, dv, [g])


@scenario("streams.static.rejoin",
          "StreamsGroupHeartbeat: a static member leaving with -2 stays in the group at epoch "
          "-2 with its tasks; rejoining under a new member id with the same InstanceId takes "
          "over its tasks without a new group epoch; describe shows each step",
          api=API, profile=P, restartable=True)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 4})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version, instance_id="inst-1")
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m1.join()
    m2.join()
    rounds([m1, m2], 3)
    m1.leave(epoch=s.STATIC_LEAVE)
    dv = s.describe_version(ctx)
    s.describe(m2.c, dv, [g])
    ctx.restart_point()
    m2.heartbeat()
    m1b = s.Member(ctx, g, "m1-again", t, version=ctx.version, instance_id="inst-1")
    m1b.join()
    m1b.heartbeat()
    s.describe(m2.c, dv, [g])
    # The old member id is gone.
    m1.c.call(API, ctx.version, s.hb(g, "m1", 0, topo=t, instance_id="inst-1"))
    m1.c.call(API, ctx.version, s.hb(g, "m1", m1.epoch, instance_id="inst-1"))


@scenario("streams.static.instance_rules",
          "StreamsGroupHeartbeat: joining with the InstanceId of an active static member is "
          "UNRELEASED_INSTANCE_ID; a heartbeat or leave naming the instance with another "
          "member id is FENCED_INSTANCE_ID; an unknown instance is UNKNOWN_MEMBER_ID; a static "
          "member leaving with -1 is removed",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version, instance_id="inst-1")
    m1.join()
    c = ctx.client("other")
    v = ctx.version
    c.call(API, v, s.hb(g, "m9", 0, topo=t, instance_id="inst-1"))
    c.call(API, v, s.hb(g, "m9", m1.epoch, instance_id="inst-1"))
    c.call(API, v, s.hb(g, "m9", s.LEAVE, instance_id="inst-1"))
    c.call(API, v, s.hb(g, "m9", s.STATIC_LEAVE, instance_id="inst-1"))
    c.call(API, v, s.hb(g, "m1", m1.epoch, instance_id="inst-2"))
    c.call(API, v, s.hb(g, "m1", s.STATIC_LEAVE, instance_id="inst-2"))
    m1.heartbeat()
    m1.leave()
    s.describe(c, s.describe_version(ctx), [g])
    m1.heartbeat()


@scenario("streams.leave.last_member",
          "StreamsGroupHeartbeat: the last member leaving (-1) leaves an Empty group that keeps "
          "its epochs and topology; a second leave is UNKNOWN_MEMBER_ID; a new member joins "
          "the empty group with the stored topology",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m1.join()
    m1.heartbeat()
    m1.leave()
    m1.leave()
    dv = s.describe_version(ctx)
    s.describe(m1.c, dv, [g])
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m2.join()
    m2.heartbeat()
    s.describe(m1.c, dv, [g])


@scenario("streams.group_max_size",
          "StreamsGroupHeartbeat with group.streams.max.size=4: a fifth member is "
          "GROUP_MAX_SIZE_REACHED with Kafka's message; a known member rejoining is not",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = stateless(ctx, src)
    ms = [s.Member(ctx, g, "m%d" % i, t, version=ctx.version) for i in range(1, 6)]
    for m in ms:
        m.join()
    ms[0].join()
    ms[0].leave()
    ms[4].join()


@scenario("streams.session_timeout",
          "StreamsGroupHeartbeat with group.streams.session.timeout.ms=3000 (Kafka's minimum "
          "lowered for the test): a member that stops heartbeating is removed when its session "
          "expires, the remaining member gets its tasks; the expired member's heartbeat is "
          "UNKNOWN_MEMBER_ID and it can join again",
          api=API, profile="streams_session")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 4})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m1.join()
    m2.join()
    rounds([m1, m2], 2)
    dv = s.describe_version(ctx)

    def m2_gone_and_m1_settled():
        before = (m1.epoch, m1.active)
        m1.heartbeat(record=False)
        r = s.describe(m1.c, dv, [g], record=False)
        grp = r["Groups"][0]
        return (len(grp["Members"]) == 1 and grp["GroupState"] == "Stable"
                and (m1.epoch, m1.active) == before)
    ctx.wait_until(m2_gone_and_m1_settled, "the silent member's session to expire")
    m1.heartbeat()
    s.describe(m1.c, dv, [g])
    m2.heartbeat()
    m2.join()
    rounds([m1, m2], 2)


@scenario("streams.assign.task_offsets",
          "StreamsGroupHeartbeat: members reporting TaskOffsets and TaskEndOffsets of a "
          "stateful subtopology (the new member far behind on the tasks it is to take over); "
          "the assignment, warm-up tasks included, of every step as Kafka's; describe shows "
          "the reported offsets",
          api=API, profile="streams_standby")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {src: 2})
    t = s.topology([s.subtopology("0", source=[src], changelog=[cl])])
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version)
    m1.join()
    s.wait_topics(ctx, setup, [cl])
    ends = [{"SubtopologyId": "0", "Partition": p, "Offset": 500000} for p in (0, 1)]
    m1.heartbeat(TaskOffsets=[{"SubtopologyId": "0", "Partition": p, "Offset": 500000}
                              for p in (0, 1)], TaskEndOffsets=ends)
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m2.join(TaskOffsets=[], TaskEndOffsets=ends)
    for _ in range(3):
        m1.heartbeat()
        m2.heartbeat()
    s.describe(m1.c, s.describe_version(ctx), [g])
    m2.heartbeat(TaskOffsets=[{"SubtopologyId": "0", "Partition": p, "Offset": 500000}
                              for p in (0, 1)], TaskEndOffsets=ends)
    for _ in range(3):
        m1.heartbeat()
        m2.heartbeat()
    s.describe(m1.c, s.describe_version(ctx), [g])


@scenario("streams.static.expires_at_minus_two",
          "StreamsGroupHeartbeat with a 3 s session: a static member that left with -2 and "
          "does not come back is removed when its session expires; its tasks go to the other "
          "member and its instance id can join again as a new member",
          api=API, profile="streams_session")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 2})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version, instance_id="inst-1")
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version)
    m1.join()
    m2.join()
    rounds([m1, m2], 2)
    m1.leave(epoch=s.STATIC_LEAVE)
    dv = s.describe_version(ctx)

    def expired_and_settled():
        before = (m2.epoch, m2.active)
        m2.heartbeat(record=False)
        grp = s.describe(m2.c, dv, [g], record=False)["Groups"][0]
        return (len(grp["Members"]) == 1 and grp["GroupState"] == "Stable"
                and (m2.epoch, m2.active) == before)
    ctx.wait_until(expired_and_settled, "the static member's session to expire")
    m2.heartbeat()
    s.describe(m2.c, dv, [g])
    m3 = s.Member(ctx, g, "m3", t, version=ctx.version, instance_id="inst-1")
    m3.join()
    rounds([m2, m3], 2)


@scenario("streams.assign.standby_mixed_processes",
          "StreamsGroupHeartbeat with num.standby.replicas=1: four members on three processes "
          "share a stateful (4 tasks) and a stateless (3 tasks) subtopology, then one process's "
          "member leaves; every step's active and standby tasks as Kafka's sticky assignor",
          api=API, profile="streams_standby")
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    a, b = ctx.topic("a"), ctx.topic("b")
    cl = ctx.topic("store-changelog")
    s.create_topics(ctx, setup, {a: 4, b: 3})
    t = s.topology([s.subtopology("stateful", source=[a], changelog=[cl]),
                    s.subtopology("stateless", source=[b])])
    ms = [s.Member(ctx, g, "m1", t, version=ctx.version, process_id="proc-x"),
          s.Member(ctx, g, "m2", t, version=ctx.version, process_id="proc-x"),
          s.Member(ctx, g, "m3", t, version=ctx.version, process_id="proc-y"),
          s.Member(ctx, g, "m4", t, version=ctx.version, process_id="proc-z")]
    ms[0].join()
    s.wait_topics(ctx, setup, [cl])
    for m in ms[1:]:
        m.join()
    rounds(ms, 4)
    s.describe(ms[0].c, s.describe_version(ctx), [g])
    ms[2].leave()
    rest = [ms[0], ms[1], ms[3]]
    rounds(rest, 3)
    s.describe(ms[0].c, s.describe_version(ctx), [g])


@scenario("streams.assign.restarted_member",
          "StreamsGroupHeartbeat: a dynamic member that restarts under a new member id with the "
          "same process id while its old id is still in the group; the assignment of every step "
          "until the old id leaves, as Kafka's",
          api=API, profile=P)
def _(ctx):
    setup = ctx.client("setup")
    g = ctx.group()
    src = ctx.topic("in")
    s.create_topics(ctx, setup, {src: 4})
    t = stateless(ctx, src)
    m1 = s.Member(ctx, g, "m1", t, version=ctx.version, process_id="proc-1")
    m2 = s.Member(ctx, g, "m2", t, version=ctx.version, process_id="proc-2")
    m1.join()
    m2.join()
    rounds([m1, m2], 3)
    m1b = s.Member(ctx, g, "m1-restarted", t, version=ctx.version, process_id="proc-1")
    m1b.join()
    rounds([m2, m1b], 2)
    m1.leave()
    rounds([m2, m1b], 3)
    s.describe(m2.c, s.describe_version(ctx), [g])
