# SPDX-License-Identifier: Apache-2.0
"""Kafka's Java KafkaConsumer 4.4.0 with group.protocol=classic, on kcoord
and on the reference Kafka 4.4.0, compared step by step.

One JVM (java/ClassicGroup.java, compiled once with javac against the
reference classpath) hosts the consumers, a producer and an admin client
for each broker. Each step has its own group and topic; what the clients
see (the partitions each member is given and revoked, the generations, the
offsets fetched and committed) is normalised to member names and compared
between the two brokers, and with the split Kafka's assignors make:

1. range, then cooperative-sticky: three dynamic members c1, c2, c3 join a
   7-partition topic one after the other. Range: every callback (assigned,
   revoked, with its generation) is the same on both brokers and the split
   is Kafka's (0-2, 3-4, 5-6 by member id). Cooperative-sticky: each
   member's callbacks come in the same generations on both, the split is
   3-2-2 and c3 gets exactly the two partitions revoked cooperatively the
   generation before (which two follows the members' hash order, which
   varies from run to run on either broker). Each member commits the end
   of its partitions with commitSync and listConsumerGroupOffsets reads
   them back.
2. the broker is SIGKILLed while three paced members consume and commit,
   kept down until each member's commitSync has failed, and restarted
   (kcoord: Kcoord.kill()/start(); Kafka: ReferenceKafka.kill()/
   restart_after_kill()): every commit acknowledged before the kill is
   there after the restart, no member is given or loses partitions across
   it on kcoord (on Kafka, a Metadata answer without the topic's partitions
   just after its start may make the members rebalance back to the same
   partitions), and a new member of the group starts each partition at the
   committed offset.
3. static members s1, s2, s3 (range): s3 closes (no LeaveGroup) and comes
   back with the same group.instance.id inside its session: it owns its
   partitions again in the same generation, and s1 and s2 see no callback.
4. KIP-814: the static leader s1 restarts the same way (it is told to skip
   the assignment and keeps its partitions); the topic then grows from 6
   to 9 partitions (Admin.createPartitions) and the group rebalances: the
   leader notices from its metadata and the new partitions are assigned.
5. kcoord only (the stall fault is kcoord's, Kafka has nothing like it):
   the static-member self-fence of docs/walkthroughs.md with a real Java
   consumer as the member whose JoinGroup is fenced: poll() throws
   FencedInstanceIdException once, the next poll() joins again (no member
   id, the same group.instance.id), fences the abandoned join in its turn
   and the Java member ends in the new generation as its leader.

It needs what the conformance suite needs: a JDK and Kafka's jars (Maven).
"""

import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "reference"))

import kafka_wire as kw  # noqa: E402
import reference_kafka  # noqa: E402
import test_static_self_fence as fence  # noqa: E402
from admin_client import Admin  # noqa: E402
from kcoord_harness import Kcoord, free_port, run, wait_for  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "java", "ClassicGroup.java")
DEADLINE_S = 120.0
# Both brokers: no initial rebalance delay (kcoord's test default), so a
# first member's group forms at once on both.
GROUP_SETTINGS = {"group.initial.rebalance.delay.ms": "0"}


def compile_program(work):
    out = os.path.join(work, "java-classic-classes")
    os.makedirs(out, exist_ok=True)
    javac = os.path.join(os.path.dirname(reference_kafka.java()), "javac")
    p = subprocess.run([javac, "-Xlint:all", "-Werror", "-d", out, "-cp",
                        reference_kafka.classpath(), SOURCE],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    assert p.returncode == 0, "javac failed:\n" + p.stdout.decode("utf-8", "replace")
    return out


class Jvm:
    """The ClassicGroup program: commands in, event lines out."""

    def __init__(self, work, classes, tag):
        self.stderr_path = os.path.join(work, "java-classic-%s.log" % tag)
        log4j = os.path.join(work, "java-classic-log4j.properties")
        with open(log4j, "w", encoding="utf-8") as f:
            f.write("log4j.rootLogger=INFO, err\n"
                    "log4j.appender.err=org.apache.log4j.ConsoleAppender\n"
                    "log4j.appender.err.Target=System.err\n"
                    "log4j.appender.err.layout=org.apache.log4j.PatternLayout\n"
                    "log4j.appender.err.layout.ConversionPattern=[%d] %p %m (%c)%n\n")
        self.lines = []
        self.cond = threading.Condition()
        err = open(self.stderr_path, "wb")
        try:
            self.proc = subprocess.Popen(
                [reference_kafka.java(), "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
                 "-Dlog4j.configuration=file:" + log4j,
                 "-cp", classes + ":" + reference_kafka.classpath(), "ClassicGroup"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                start_new_session=True)
        finally:
            err.close()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            with self.cond:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.cond.notify_all()

    def send(self, *words):
        self.proc.stdin.write((" ".join(str(w) for w in words) + "\n").encode())
        self.proc.stdin.flush()

    def mark(self):
        with self.cond:
            return len(self.lines)

    def since(self, mark=0):
        with self.cond:
            return list(self.lines[mark:])

    def log_tail(self, n=8000):
        with open(self.stderr_path, "rb") as f:
            return "\n".join(self.since()[-60:]) + "\n--- stderr ---\n" + \
                f.read()[-n:].decode("utf-8", "replace")

    def wait(self, cond, what, mark=0):
        """Waits until cond(lines since mark) is truthy; returns it."""
        def check():
            assert self.proc.poll() is None, "the JVM exited"
            errors = [ln for ln in self.since(mark) if ln.startswith("error ")]
            assert not errors, errors
            return cond(self.since(mark))
        return wait_for(check, DEADLINE_S, what, interval=0.1, state=self.log_tail)

    def call(self, *words):
        """Sends a command answered by one line starting with its first word
        (produce, offsets, partitions); returns that line's words."""
        m = self.mark()
        self.send(*words)
        reply = {"produce": "produced"}.get(words[0], words[0])
        return self.wait(lambda ls: next(((ln.split()[1:],) for ln in ls
                                          if ln.split()[0] == reply), None),
                         "the answer to %s" % words[0], m)[0]

    def quit(self):
        self.send("quit")
        assert self.proc.wait(timeout=DEADLINE_S) == 0, self.log_tail()


def events(lines, name=None, kinds=("assigned", "revoked", "lost")):
    """(name, kind, generation, partitions) of the callbacks in lines."""
    out = []
    for ln in lines:
        w = ln.split()
        if len(w) == 4 and w[1] in kinds and (name is None or w[0] == name):
            out.append((w[0], w[1], int(w[2]), w[3]))
    return out


def per_member(evs):
    """Each member's callbacks in its order (the members' threads
    interleave differently from run to run)."""
    out = {}
    for name, kind, gen, parts in evs:
        out.setdefault(name, []).append((kind, gen, parts))
    return out


def owned(lines):
    """Each member's latest 'owns' line: {name: (generation, partitions)}."""
    cur = {}
    for ln in lines:
        w = ln.split()
        if len(w) == 4 and w[1] == "owns":
            cur[w[0]] = (int(w[2]), w[3])
    return cur


def parse_offsets(words):
    return {int(k): int(v) for k, v in (kv.split("=") for kv in words[0].split(","))} \
        if words and words[0] else {}


def commits(lines, name):
    """The latest acknowledged commit of each partition by member name."""
    got = {}
    for ln in lines:
        w = ln.split()
        if len(w) == 3 and w[0] == name and w[1] == "committed":
            got.update(parse_offsets(w[2:]))
    return got


def split(n, names):
    """Kafka's range split of n partitions over members sorted by name."""
    per, extra = divmod(n, len(names))
    out, start = {}, 0
    for i, m in enumerate(sorted(names)):
        k = per + (1 if i < extra else 0)
        out[m] = ",".join(str(p) for p in range(start, start + k)) or "-"
        start += k
    return out


class Broker:
    """kcoord or Kafka as the steps see it: kill() is a SIGKILL, restart()
    starts it again on its data and ports and waits until it serves."""

    def __init__(self, bootstrap, port, kill, restart, admin=None):
        self.bootstrap, self.port = bootstrap, port
        self.kill, self.restart = kill, restart
        self.admin = admin  # kcoord's admin endpoint, which names the leader

    def leader_instance(self, group):
        """The group instance id of the group's leader (kcoord only: Kafka's
        DescribeGroups does not name the leader), or None on Kafka."""
        if self.admin is None:
            return None
        g = self.admin.group(group)
        return next(m["group_instance_id"] for m in g["members"]
                    if m["member_id"] == g["leader_id"])

    def create_topic(self, topic, partitions):
        """Creates the topic and waits until Metadata gives every partition
        a leader (Kafka's broker learns of a new topic from its controller
        a moment after CreateTopics answers)."""
        with kw.Conn(self.port) as c:
            assert kw.create_topics(c, {topic: partitions})["topics"][topic][0] == 0

            def led():
                t = kw.metadata_v1(c, [topic])["topics"][topic]
                return t["error_code"] == 0 and len(t["partitions"]) == partitions and all(
                    p["error_code"] == 0 and p["leader"] >= 0 for p in t["partitions"])
            wait_for(led, DEADLINE_S, "the leaders of %s" % topic)


def wait_stable(jvm, names, partitions, mark, what):
    """Waits until every member owns its share in one generation, together
    all the partitions once; returns {name: (generation, partitions)}."""
    def stable(lines):
        cur = owned(lines)
        if set(cur) != set(names) or len({g for g, _ in cur.values()}) != 1:
            return None
        got = [p for _, ps in cur.values() if ps != "-" for p in ps.split(",")]
        return cur if sorted(int(p) for p in got) == list(range(partitions)) else None
    return jvm.wait(stable, what, mark)


def step_assignors(jvm, b):
    """Three dynamic members join one by one, for each assignor; returns
    what the clients saw, normalised, for the comparison."""
    seen = {}
    for assignor in ("range", "cooperative-sticky"):
        topic, group = "t-%s" % assignor, "g-%s" % assignor
        b.create_topic(topic, 7)
        jvm.call("produce", b.bootstrap, topic, 7, 20)
        mark = jvm.mark()
        names = []
        for name in ("c1", "c2", "c3"):
            names.append(name)
            jvm.send("consumer", name, b.bootstrap, group, topic, assignor, "-", 0, "now")
            cur = wait_stable(jvm, names, 7, mark, "%s: %s in the group" % (assignor, name))
        evs = events(jvm.since(mark))
        if assignor == "range":
            assert {n: ps for n, (_, ps) in cur.items()} == split(7, names), cur
            final = {n: ps for n, (_, ps) in cur.items()}
            callbacks = per_member(evs)
        else:
            # Which partitions the sticky assignor moves depends on the order
            # of the members in the leader's JoinGroup response, which is a
            # hash order on both brokers: compare what does not depend on it.
            # Two partitions move to c3, revoked first (cooperatively, in the
            # generation before the one that gives them to c3), the others
            # stay where they were.
            sizes = sorted(len(ps.split(",")) for _, ps in cur.values())
            assert sizes == [2, 2, 3], cur
            gen = cur["c3"][0]
            moved = sorted(int(p) for _, kind, g, ps in evs if kind == "revoked" and g == gen - 1
                           for p in ps.split(","))
            assert len(moved) == 2 and cur["c3"][1] == ",".join(map(str, moved)), (evs, cur)
            final = sizes
            callbacks = {n: [(k, g) for k, g, _ in e if k == "assigned"]
                         for n, e in per_member(evs).items()}
        # Every member commits the end of each of its partitions.
        jvm.wait(lambda ls: all(
            set(commits(ls, n)) >= {int(p) for p in cur[n][1].split(",")} and
            all(v == 20 for p, v in commits(ls, n).items()
                if str(p) in cur[n][1].split(",")) for n in names),
            "%s: commits at the end" % assignor, mark)
        offs = parse_offsets(jvm.call("offsets", b.bootstrap, group))
        assert offs == {p: 20 for p in range(7)}, offs
        # The callbacks up to here (closing members rebalance the others at
        # times that differ from run to run).
        seen[assignor] = {"callbacks": callbacks, "final": final,
                          "generation": {n: g for n, (g, _) in cur.items()}}
        for name in names:
            jvm.send("close", name)
        jvm.wait(lambda ls: sum(ln.endswith(" closed") for ln in ls) == 3, "closed", mark)
    return seen


def step_kill(jvm, b):
    """The broker SIGKILLed and restarted under three committing members."""
    topic, group, n = "t-kill", "g-kill", 500
    b.create_topic(topic, 6)
    jvm.call("produce", b.bootstrap, topic, 6, n)
    mark = jvm.mark()
    names = ["k1", "k2", "k3"]
    for name in names:
        jvm.send("consumer", name, b.bootstrap, group, topic, "range", "-", 100, "now")
    wait_stable(jvm, names, 6, mark, "three members")
    jvm.wait(lambda ls: all(any(v > 0 for v in commits(ls, nm).values()) for nm in names),
             "every member committed", mark)
    killed = jvm.mark()
    b.kill()
    # Every member's commit fails while the broker is down: all its
    # acknowledged commits were printed before that failure.
    jvm.wait(lambda ls: all(any(ln.startswith(nm + " commit-failed") for ln in ls)
                            for nm in names), "a failed commit of each member", killed)
    b.restart()
    acked = {}
    lines = jvm.since(mark)
    for nm in names:
        upto = next(i for i, ln in enumerate(lines)
                    if i >= killed - mark and ln.startswith(nm + " commit-failed"))
        acked.update({p: max(v, acked.get(p, 0))
                      for p, v in commits(lines[:upto], nm).items()})
    assert len(acked) == 6 and min(acked.values()) < n, acked
    after = jvm.mark()
    jvm.wait(lambda ls: all(commits(ls, nm) for nm in names), "commits after the restart",
             after)
    offs = parse_offsets(jvm.call("offsets", b.bootstrap, group))
    assert all(offs.get(p, -1) >= v for p, v in acked.items()), (acked, offs)
    # The group came back as it was: no member was given or lost partitions
    # across the restart.
    across = per_member(events(jvm.since(killed)))
    for nm in names:
        jvm.send("close", nm)
    jvm.wait(lambda ls: sum(ln.endswith(" closed") for ln in ls) == 3, "closed", after)
    final = parse_offsets(jvm.call("offsets", b.bootstrap, group))
    assert all(final[p] >= offs[p] for p in offs), (offs, final)
    left = {p for p, v in final.items() if v < n}
    assert left, "the members were paced to be mid-way when closed: %r" % (final,)
    # A new member resumes every partition at its committed offset.
    m2 = jvm.mark()
    jvm.send("consumer", "k4", b.bootstrap, group, topic, "range", "-", 0, "now")
    fetched = jvm.wait(lambda ls: (lambda f: f if set(f) >= left else None)(
        {int(w[2]): int(w[3]) for w in (ln.split() for ln in ls)
         if w[:2] == ["k4", "fetched"]}), "k4 fetching", m2)
    assert all(fetched[p] == final[p] for p in left), (fetched, final)
    jvm.wait(lambda ls: commits(ls, "k4") == {p: n for p in range(6)}, "k4 at the end", m2)
    jvm.send("close", "k4")
    jvm.wait(lambda ls: any(ln == "k4 closed" for ln in ls), "k4 closed", m2)
    return {"acked_partitions": sorted(acked), "callbacks_across_restart": across}


def step_static(jvm, b):
    """Static members: a follower, then the leader, restarted; KIP-814."""
    topic, group = "t-static", "g-static"
    b.create_topic(topic, 6)
    jvm.call("produce", b.bootstrap, topic, 6, 10)
    mark = jvm.mark()
    names = ["s1", "s2", "s3"]
    for name in names:
        jvm.send("consumer", name, b.bootstrap, group, topic, "range", "inst-" + name, 0, "now")
        before = wait_stable(jvm, names[:names.index(name) + 1], 6, mark, "%s joined" % name)
    assert {n: ps for n, (_, ps) in before.items()} == split(6, names), before
    gen = before["s1"][0]
    seen = {"before": {n: ps for n, (_, ps) in before.items()}}

    # ---- s3 restarts with its group.instance.id ----
    jvm.send("close", "s3")
    jvm.wait(lambda ls: "s3 closed" in ls, "s3 closed", mark)
    m3 = jvm.mark()
    jvm.send("consumer", "s3", b.bootstrap, group, topic, "range", "inst-s3", 0, "now")
    back = jvm.wait(lambda ls: owned(ls).get("s3"), "s3 back", m3)
    assert back == before["s3"], (back, before)
    for n in ("s1", "s2"):
        jvm.send("state", n)
    states = jvm.wait(lambda ls: (lambda s: s if len(s) == 2 else None)(
        {w[0]: (int(w[2]), w[4]) for w in (ln.split() for ln in ls) if w[1:2] == ["state"]}),
        "states", m3)
    assert states == {n: before[n] for n in ("s1", "s2")}, (states, before)
    assert events(jvm.since(m3), "s1") == [] and events(jvm.since(m3), "s2") == [], \
        jvm.since(m3)
    seen["follower_restart"] = {"s3": back[1], "events": per_member(events(jvm.since(m3))),
                                "same_generation": back[0] == gen}

    # ---- KIP-814: s1 (the leader, it joined first) restarts ----
    assert b.leader_instance(group) in ("inst-s1", None)
    jvm.send("close", "s1")
    jvm.wait(lambda ls: "s1 closed" in ls, "s1 closed", m3)
    m1 = jvm.mark()
    jvm.send("consumer", "s1", b.bootstrap, group, topic, "range", "inst-s1", 0, "now")
    back = jvm.wait(lambda ls: owned(ls).get("s1"), "s1 back", m1)
    assert back == before["s1"], (back, before)
    assert b.leader_instance(group) in ("inst-s1", None)
    jvm.call("partitions", b.bootstrap, topic, 9)
    after = wait_stable(jvm, names, 9, m1, "the 9 partitions assigned")
    assert {n: ps for n, (_, ps) in after.items()} == split(9, names), after
    assert after["s1"][0] > gen, (after, gen)
    seen["leader_restart"] = {"s1": back[1], "after": {n: ps for n, (_, ps) in after.items()},
                              "events": per_member(events(jvm.since(m1)))}
    for n in names:
        jvm.send("close", n)
    jvm.wait(lambda ls: sum(ln.endswith(" closed") for ln in ls) == 3, "closed", m1)
    return seen


def step_self_fence(jvm, k, admin):
    """kcoord only: the static self-fence with the Java consumer as S's
    new incarnation, whose pending JoinGroup is fenced."""
    group = "fence-java"
    with kw.Conn(k.port) as c:
        assert kw.create_topics(c, {"t-fence": 1})["topics"]["t-fence"][0] == 0
    s_id, gen, cu, u_id, ct, t_corr = fence.stable_group(k, group)
    mark = jvm.mark()
    # The Java consumer inst-s, restarted: it knows no member id. It finds
    # its coordinator before the stall.
    jvm.send("consumer", "js", k.bootstrap, group, "t-fence", "range", "inst-s", 0, "wait")
    jvm.wait(lambda ls: "js coordinator" in ls, "js found its coordinator", mark)
    admin.add_fault(type="stall", duration_ms=120000)
    # A: the old incarnation's heartbeat and, behind it, a join with an
    # unknown member id, left in the socket.
    ca = kw.Conn(k.port)
    hb_corr, hb = ca.encode(kw.API_HEARTBEAT, 3, kw.heartbeat_v3_body(
        group, gen, s_id, group_instance_id="inst-s"))
    aj_corr, aj = ca.encode(kw.API_JOIN_GROUP, 5, kw.join_group_v5_body(
        group, "", group_instance_id="inst-s", **fence.JOIN_ARGS))
    ca.sock.sendall(hb + aj)
    wait_for(lambda: admin.faults()["stall_queue"] == 1, DEADLINE_S, "A's heartbeat queued")
    # B: the Java consumer subscribes; its JoinGroup is read and queued.
    log_at = k.stderr_size()
    jvm.send("go", "js")
    wait_for(lambda: "stalled: JoinGroup request" in k.stderr_since(log_at), DEADLINE_S,
             "the Java JoinGroup queued", state=lambda: k.stderr_since(log_at))
    assert admin.clear_faults()["cleared"] == 1
    got, r = ca.recv()
    assert got == hb_corr and kw.decode_heartbeat_v3(r)["error_code"] == kw.REBALANCE_IN_PROGRESS
    # The abandoned join replaced the Java member, whose join is fenced:
    # poll() throws FencedInstanceIdException, once.
    err = jvm.wait(lambda ls: next((ln for ln in ls if ln.startswith("js poll-error")), None),
                   "js fenced", mark)
    assert err.split()[2] == "org.apache.kafka.common.errors.FencedInstanceIdException", err
    # The next poll() joins again, with no member id and inst-s: it replaces
    # the member the abandoned join made, whose join is fenced in its turn.
    got, r = ca.recv()
    ja = kw.decode_join_group_v5(r)
    assert got == aj_corr and ja["error_code"] == fence.FENCED_INSTANCE_ID, ja
    assert ja["generation_id"] == -1 and ja["members"] == [], ja
    gen2 = fence.rejoin_u_and_finish(group, cu, u_id, ct, t_corr)
    # The Java member ends in the new generation as inst-s, and leads it.
    jvm.wait(lambda ls: owned(ls).get("js", (0,))[0] == gen2, "js in generation %d" % gen2,
             mark)
    jvm.send("state", "js")
    state = jvm.wait(lambda ls: next((ln.split() for ln in ls if ln.startswith("js state")),
                                     None), "js state", mark)
    g, m = fence.member(admin, group, "inst-s")
    assert m["member_id"] == state[3] and g["leader_id"] == state[3], (g, state)
    assert g["generation_id"] == gen2 and g["state"] == "Stable", g
    assert sum(ln.startswith("js poll-error") for ln in jvm.since(mark)) == 1, jvm.since(mark)
    log = k.stderr_text()
    fenced = [ln for ln in log.split("\n") if "[GroupId %s] Static member" % group in ln
              and "its pending JoinGroup is answered FENCED_INSTANCE_ID" in ln]
    assert len(fenced) == 2 and ja["member_id"] in fenced[1], fenced
    jvm.send("close", "js")
    jvm.wait(lambda ls: "js closed" in ls, "js closed", mark)
    for c in (ca, cu, ct):
        c.close()


def main():
    work = os.environ.get("KC_TEST_WORK") or os.getcwd()
    classes = compile_program(work)
    results = {}
    admin_port = free_port()
    with Kcoord("java_classic", dict(GROUP_SETTINGS, **{
            "admin.listeners": "http://127.0.0.1:%d" % admin_port})) as k:
        jvm = Jvm(work, classes, "kcoord")
        try:
            b = Broker(k.bootstrap, k.port, k.kill, k.start, Admin(admin_port))
            results["kcoord"] = {"assignors": step_assignors(jvm, b),
                                 "kill": step_kill(jvm, b),
                                 "static": step_static(jvm, b)}
            # Across the restart kcoord's group goes on as it was: no callback.
            across = results["kcoord"]["kill"].pop("callbacks_across_restart")
            assert across == {}, across
            step_self_fence(jvm, k, Admin(admin_port))
            jvm.quit()
        except BaseException:
            sys.stderr.write(jvm.log_tail())
            raise
        finally:
            if jvm.proc.poll() is None:
                jvm.proc.kill()
    with reference_kafka.ReferenceKafka("java_classic", GROUP_SETTINGS) as ref:
        jvm = Jvm(work, classes, "kafka")
        try:
            b = Broker(ref.bootstrap, ref.port, ref.kill, ref.restart_after_kill)
            results["kafka"] = {"assignors": step_assignors(jvm, b),
                                "kill": step_kill(jvm, b),
                                "static": step_static(jvm, b)}
            jvm.quit()
        except BaseException:
            sys.stderr.write(jvm.log_tail())
            raise
        finally:
            if jvm.proc.poll() is None:
                jvm.proc.kill()
    # A Kafka broker just restarted may first answer Metadata with the topic
    # but none of its partitions; the members then see the subscription's
    # metadata change and rebalance, each getting its own partitions back.
    for nm, evs in results["kafka"]["kill"].pop("callbacks_across_restart").items():
        assert evs[-1][0] == "assigned" and all(e[2] == evs[0][2] for e in evs), (nm, evs)
    for part in ("assignors", "kill", "static"):
        assert results["kcoord"][part] == results["kafka"][part], \
            (part, results["kcoord"][part], results["kafka"][part])
    print("the Java classic consumer saw the same on kcoord and on Kafka 4.4.0: %r"
          % (results["kafka"],))


if __name__ == "__main__":
    run(main)
