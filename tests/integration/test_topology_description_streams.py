# SPDX-License-Identifier: Apache-2.0
"""KIP-1331 topology descriptions of real KIP-1071 streams groups, over the
raw protocol, against the kcoord binary with the test store
(tests/plugins/test_topology_store.c) loaded as its plugin.

- A member joining with StreamsGroupHeartbeat v1 is asked for the
  description (TopologyDescriptionRequired), not again inside the back-off
  window; its push (API 93) is validated against the real group (unknown
  member, wrong topology epoch), stored, and served back by
  StreamsGroupDescribe v1 (AVAILABLE, the pushed nodes); v0 and a describe
  without IncludeTopologyDescription do not ask the store.
- Every operation that touches the store (a push, the cleanup of an expired
  empty group, DeleteGroups, the conversion to classic on a classic
  JoinGroup) is crashed at every point: before its -2 commits (SIGKILL
  first), after it (the store exits before writing), after the store call
  (the store exits after writing) and after the final commit (SIGKILL after
  the answer). After each restart the group converges: the member is asked
  to push again and the store and the epoch agree (describe serves the
  description only then), or the delete runs again and the group goes.
- A store delete that fails: DeleteGroups v3 answers GROUP_DELETION_FAILED
  with a message (v2 UNKNOWN_SERVER_ERROR) and keeps the group; a classic
  JoinGroup answers REBALANCE_IN_PROGRESS, keeps the streams group, and
  does not call the store again inside its back-off.
- The race of a push and the cleanup's delete through the real broker: the
  store holds the set (hang step), the member leaves, the cleanup deletes
  meanwhile; the set then completes after the delete, the group is left at
  -2 and the next cleanup cycle deletes again: nothing leaks.
"""

import os

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

API_UPDATE = 93
SOURCE = "tds-in"
TOPOLOGY = (1, [{"id": "0", "source_topics": [SOURCE]}])
DEADLINE_S = 60

NOT_REQUESTED, NOT_STORED, AVAILABLE = 0, 1, 3
GROUP_ID_NOT_FOUND = 69
UNKNOWN_MEMBER_ID = 25
INVALID_REQUEST = 42
REBALANCE_IN_PROGRESS = 27
MEMBER_ID_REQUIRED = 79
GROUP_DELETION_FAILED = 134
UNKNOWN_SERVER_ERROR = -1
STORE_EXIT = 86
DELETE_FAILED_MSG = "Topology description plugin failed to delete the topology."


def push_body(group, member, epoch):
    w = kw.Writer().compact_string(group).compact_string(member).i32(epoch)
    w.uvarint(2)                                   # Subtopologies: 1
    w.compact_string("0")                          #   SubtopologyId
    w.uvarint(3)                                   #   Nodes: 2
    w.compact_string("KSTREAM-SOURCE-0000000000")  #     Name
    w.i8(1)                                        #     NodeType: source
    w.uvarint(2).compact_string(SOURCE)            #     SourceTopics
    w.uvarint(0)                                   #     SinkTopic: null
    w.uvarint(1)                                   #     Stores: none
    w.uvarint(2).compact_string("KSTREAM-PEEK-0000000001")  # Successors
    w.no_tags()
    w.compact_string("KSTREAM-PEEK-0000000001")    #     Name
    w.i8(2)                                        #     NodeType: processor
    w.uvarint(1)                                   #     SourceTopics: none
    w.uvarint(0)                                   #     SinkTopic: null
    w.uvarint(2).compact_string("store-a")         #     Stores
    w.uvarint(1)                                   #     Successors: none
    w.no_tags()
    w.no_tags()                                    #   (subtopology tags)
    w.uvarint(1)                                   # GlobalStores: none
    w.no_tags()                                    # (description tags)
    w.no_tags()                                    # (request tags)
    return w.getvalue()


def send_push(conn, group, member, epoch=1):
    return conn.send(API_UPDATE, 0, push_body(group, member, epoch), flexible=True)


def recv_push(conn, corr):
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    r.i32()
    code = r.i16()
    message = r.compact_string()
    r.skip_tags()
    return code, message


def push(conn, group, member, epoch=1):
    return recv_push(conn, send_push(conn, group, member, epoch))


def store_dir(k):
    return os.path.join(k.data_dir, "test-store")


def store_epoch(k, group):
    """The epoch the test store holds for group, or None."""
    path = os.path.join(store_dir(k), "g-" + group.encode().hex())
    try:
        with open(path, "rb") as f:
            return int(f.readline())
    except FileNotFoundError:
        return None


def calls(k):
    try:
        with open(os.path.join(store_dir(k), "calls.log")) as f:
            return f.read().split("\n")[:-1]
    except FileNotFoundError:
        return []


def describe(conn, group, version=1, include=True):
    return kw.streams_group_describe(conn, [group], version=version,
                                     include_topology_description=include)["groups"][group]


class Member:
    def __init__(self, k, group, name):
        self.k, self.group = k, group
        self.member_id = "%s-%s" % (group, name)
        self.epoch = 0
        self.active = set()

    def heartbeat(self, conn, version=1):
        kwargs = {}
        if self.epoch == 0:
            kwargs.update(topology=TOPOLOGY, process_id=self.member_id, rebalance_timeout_ms=30000,
                          active=set(), standby=set(), warmup=set())
        else:
            kwargs.update(active=self.active, standby=set(), warmup=set())
        r = kw.streams_group_heartbeat(conn, self.group, self.member_id, self.epoch,
                                       version=version, **kwargs)
        assert r["error_code"] == 0, r
        self.epoch = r["member_epoch"]
        if r["active"] is not None:
            self.active = r["active"]
        return r

    def leave(self, conn):
        r = kw.streams_group_heartbeat(conn, self.group, self.member_id, -1)
        assert r["error_code"] == 0, r


def start(k, env=None):
    k.extra_env = dict(env or {})
    k.start()
    with kw.Conn(k.port) as c:
        t = kw.create_topics(c, {SOURCE: 2})["topics"][SOURCE][0]
        assert t in (0, 36), t  # created, or TOPIC_ALREADY_EXISTS after a restart


def died(k):
    """kcoord exited by the test store's crash step."""
    rc = k.proc.wait(timeout=DEADLINE_S)
    assert rc == STORE_EXIT, rc
    k.proc = None


def solicited(k, m):
    """One heartbeat: whether the member is asked to push (a restart clears the window)."""
    with kw.Conn(k.port) as c:
        return m.heartbeat(c)["topology_description_required"]


def joined_and_pushed(k, group):
    """A member joins and pushes epoch 1; returns the member."""
    m = Member(k, group, "a")
    with kw.Conn(k.port) as c:
        assert m.heartbeat(c)["topology_description_required"] is True
        assert push(c, group, m.member_id) == (0, None)
    assert store_epoch(k, group) == 1
    return m


def check_available(k, group):
    with kw.Conn(k.port) as c:
        d = describe(c, group)
    assert d["error_code"] == 0, d
    assert d["topology_description_status"] == AVAILABLE, d
    nodes = d["topology_description"]["subtopologies"][0]["nodes"]
    assert [n["name"] for n in nodes] == ["KSTREAM-SOURCE-0000000000",
                                         "KSTREAM-PEEK-0000000001"], nodes
    assert nodes[0]["source_topics"] == [SOURCE] and nodes[1]["stores"] == ["store-a"], nodes


# ---- the happy path ----------------------------------------------------------------

def happy_path(overrides):
    k = Kcoord("tds-happy", overrides=overrides)
    try:
        start(k)
        g = "tds-app"
        m = Member(k, g, "a")
        with kw.Conn(k.port) as c:
            r = m.heartbeat(c)
            assert r["topology_description_required"] is True, r
            # Inside the back-off window: not asked again.
            assert m.heartbeat(c)["topology_description_required"] is False
            d = describe(c, g)
            assert d["topology_description_status"] == NOT_STORED and \
                d["topology_description"] is None, d
            # Pushes validated against the real group.
            assert push(c, g, "stranger") == (
                UNKNOWN_MEMBER_ID, "Member stranger is not a member of group %s." % g)
            assert push(c, g, m.member_id, 2) == (
                INVALID_REQUEST,
                "Topology epoch 2 does not match the group's current topology epoch 1.")
            assert store_epoch(k, g) is None and calls(k) == []
            assert push(c, g, m.member_id) == (0, None)
            assert store_epoch(k, g) == 1
            assert calls(k) == ["set %s 1" % g]
            assert describe(c, g, include=False)["topology_description_status"] == NOT_REQUESTED
            assert describe(c, g, version=0)["group_state"] != ""
            assert calls(k) == ["set %s 1" % g], "describe without the flag asked the store"
        check_available(k, g)
        assert calls(k)[-1] == "get %s 1" % g
        # The stored epoch survives a restart (record 17, tagged field 2).
        k.stop()
        start(k)
        assert solicited(k, m) is False
        check_available(k, g)
    except BaseException:
        k.keep = True
        k.dump_logs()
        raise
    finally:
        k.stop(expect_clean=False)
        if not k.keep:
            k.cleanup()


# ---- crashes ---------------------------------------------------------------------------

def crash_push(overrides):
    """A push crashed at each point converges on restart: asked again, then stored."""
    k = Kcoord("tds-crash-push", overrides=overrides)
    try:
        start(k)
        points = ["before", "exit-before", "exit-after", "after-final"]
        for point in points:
            g = "tds-push-%s" % point
            m = Member(k, g, "a")
            with kw.Conn(k.port) as c:
                assert m.heartbeat(c)["topology_description_required"] is True
            if point == "before":
                k.kill()                      # before the -2 commit: nothing happened
                start(k)
            elif point == "after-final":
                with kw.Conn(k.port) as c:
                    assert push(c, g, m.member_id) == (0, None)
                k.kill()                      # after the final commit
                start(k)
                assert solicited(k, m) is False
                check_available(k, g)
                continue
            else:
                k.stop()
                start(k, {"KC_TEST_STORE_SET": point})
                with kw.Conn(k.port) as c:
                    corr = send_push(c, g, m.member_id)
                    try:
                        recv_push(c, corr)
                        raise AssertionError("kcoord answered a push it should have died in")
                    except (kw.ConnectionClosed, OSError):
                        pass
                died(k)
                assert store_epoch(k, g) == (1 if point == "exit-after" else None)
                start(k)
            # Converges: -2 (or -1) reads as not stored; asked again; the push ends at 1.
            assert solicited(k, m) is True, point
            with kw.Conn(k.port) as c:
                assert describe(c, g)["topology_description_status"] == NOT_STORED, point
                assert push(c, g, m.member_id) == (0, None)
            assert store_epoch(k, g) == 1
            check_available(k, g)
    except BaseException:
        k.keep = True
        k.dump_logs()
        raise
    finally:
        k.stop(expect_clean=False)
        if not k.keep:
            k.cleanup()


def group_gone(k, g):
    with kw.Conn(k.port) as c:
        d = describe(c, g)
    return d["error_code"] == GROUP_ID_NOT_FOUND


def crash_cleanup(overrides):
    """The cleanup of an expired empty group crashed at each point: after the
    restart the cycle deletes again, the group expires, the store is empty."""
    ov = dict(overrides)
    ov["offsets.retention.check.interval.ms"] = "300"
    k = Kcoord("tds-crash-cleanup", overrides=ov)
    try:
        start(k)
        for point in ["before", "exit-before", "exit-after", "after-final"]:
            g = "tds-clean-%s" % point
            k.stop()
            # "before": no cycle runs (default interval) until the SIGKILL.
            k.overrides["offsets.retention.check.interval.ms"] = \
                "600000" if point == "before" else "300"
            start(k, {"KC_TEST_STORE_DELETE": point} if point.startswith("exit") else None)
            m = joined_and_pushed(k, g)
            with kw.Conn(k.port) as c:
                m.leave(c)                 # empty, no offsets: the cycle picks it up
            if point == "before":
                k.kill()
                assert store_epoch(k, g) == 1
                k.overrides["offsets.retention.check.interval.ms"] = "300"
                start(k)
            elif point == "after-final":
                wait_for(lambda: group_gone(k, g), DEADLINE_S, "group %s expired" % g)
                k.kill()
                start(k)
            else:
                died(k)
                assert store_epoch(k, g) == (None if point == "exit-after" else 1)
                start(k)
            wait_for(lambda: group_gone(k, g), DEADLINE_S, "group %s expired" % g)
            assert store_epoch(k, g) is None
            assert calls(k)[-1] == "delete %s" % g or point == "after-final", calls(k)
    except BaseException:
        k.keep = True
        k.dump_logs()
        raise
    finally:
        k.stop(expect_clean=False)
        if not k.keep:
            k.cleanup()


def empty_pushed_group(k, g):
    m = joined_and_pushed(k, g)
    with kw.Conn(k.port) as c:
        m.leave(c)
    return m


def crash_delete_groups(overrides):
    k = Kcoord("tds-crash-delete", overrides=overrides)
    try:
        start(k)
        # A failing store: GROUP_DELETION_FAILED with its message, the group kept.
        k.stop()
        start(k, {"KC_TEST_STORE_DELETE": "transient"})
        g = "tds-del-fail"
        empty_pushed_group(k, g)
        with kw.Conn(k.port) as c:
            assert kw.delete_groups_v3(c, [g]) == {g: (GROUP_DELETION_FAILED, DELETE_FAILED_MSG)}
            assert kw.delete_groups_v2(c, [g]) == {g: UNKNOWN_SERVER_ERROR}
            d = describe(c, g)
            assert d["error_code"] == 0 and d["group_state"] == "Empty", d
            assert d["topology_description_status"] == NOT_STORED, d  # at -2
        k.stop()
        start(k)
        with kw.Conn(k.port) as c:
            assert kw.delete_groups_v3(c, [g]) == {g: (0, None)}
        assert store_epoch(k, g) is None and group_gone(k, g)
        # Crashes.
        for point in ["before", "exit-before", "exit-after", "after-final"]:
            g = "tds-del-%s" % point
            k.stop()
            start(k, {"KC_TEST_STORE_DELETE": point} if point.startswith("exit") else None)
            empty_pushed_group(k, g)
            if point == "before":
                k.kill()
                start(k)
            elif point == "after-final":
                with kw.Conn(k.port) as c:
                    assert kw.delete_groups_v3(c, [g]) == {g: (0, None)}
                k.kill()
                start(k)
                assert group_gone(k, g) and store_epoch(k, g) is None
                continue
            else:
                with kw.Conn(k.port) as c:
                    try:
                        kw.delete_groups_v3(c, [g])
                        raise AssertionError("kcoord answered a delete it should have died in")
                    except (kw.ConnectionClosed, OSError):
                        pass
                died(k)
                start(k)
                with kw.Conn(k.port) as c:
                    # Still a streams group, at -2: describe does not serve it.
                    assert describe(c, g)["topology_description_status"] == NOT_STORED
            with kw.Conn(k.port) as c:
                assert kw.delete_groups_v3(c, [g]) == {g: (0, None)}, point
            assert group_gone(k, g) and store_epoch(k, g) is None, point
    except BaseException:
        k.keep = True
        k.dump_logs()
        raise
    finally:
        k.stop(expect_clean=False)
        if not k.keep:
            k.cleanup()


def classic_join(k, g):
    with kw.Conn(k.port) as c:
        return kw.join_group(c, g)["error_code"]


def is_streams(k, g):
    with kw.Conn(k.port) as c:
        d = describe(c, g)
    return d["error_code"] == 0


def crash_conversion(overrides):
    k = Kcoord("tds-crash-convert", overrides=overrides)
    try:
        start(k)
        # A failing store: REBALANCE_IN_PROGRESS, the group stays a streams group
        # at -2, and the immediate retry does not reach the store (back-off).
        k.stop()
        start(k, {"KC_TEST_STORE_DELETE": "transient"})
        g = "tds-conv-fail"
        empty_pushed_group(k, g)
        assert classic_join(k, g) == REBALANCE_IN_PROGRESS
        n = len(calls(k))
        assert classic_join(k, g) == REBALANCE_IN_PROGRESS
        assert len(calls(k)) == n, "the throttled conversion called the store"
        assert is_streams(k, g)
        k.stop()
        start(k)
        assert classic_join(k, g) == MEMBER_ID_REQUIRED
        assert not is_streams(k, g) and store_epoch(k, g) is None
        for point in ["before", "exit-before", "exit-after", "after-final"]:
            g = "tds-conv-%s" % point
            k.stop()
            start(k, {"KC_TEST_STORE_DELETE": point} if point.startswith("exit") else None)
            empty_pushed_group(k, g)
            if point == "before":
                k.kill()
                start(k)
            elif point == "after-final":
                assert classic_join(k, g) == MEMBER_ID_REQUIRED
                k.kill()
                start(k)
                assert not is_streams(k, g) and store_epoch(k, g) is None
                continue
            else:
                try:
                    classic_join(k, g)
                    raise AssertionError("kcoord answered a join it should have died in")
                except (kw.ConnectionClosed, OSError):
                    pass
                died(k)
                start(k)
                assert is_streams(k, g), point
            assert classic_join(k, g) == MEMBER_ID_REQUIRED, point
            assert not is_streams(k, g) and store_epoch(k, g) is None, point
    except BaseException:
        k.keep = True
        k.dump_logs()
        raise
    finally:
        k.stop(expect_clean=False)
        if not k.keep:
            k.cleanup()


def race_push_cleanup(overrides):
    """The set is held in the store while the member leaves and the cleanup
    deletes; the set lands after the delete. The group ends at -2 and the
    next cycle deletes again."""
    ov = dict(overrides)
    ov["offsets.retention.check.interval.ms"] = "200"
    ov["group.streams.topology.description.plugin.threads"] = "2"
    k = Kcoord("tds-race", overrides=ov)
    try:
        start(k, {"KC_TEST_STORE_SET": "hang:5000*1"})
        g = "tds-race"
        m = Member(k, g, "a")
        with kw.Conn(k.port) as c, kw.Conn(k.port) as c2:
            assert m.heartbeat(c)["topology_description_required"] is True
            corr = send_push(c, g, m.member_id)
            m.leave(c2)
            # The cleanup's delete runs while the set hangs.
            wait_for(lambda: "delete %s" % g in calls(k), DEADLINE_S, "the cleanup's delete")
            assert recv_push(c, corr) == (0, None)
        wait_for(lambda: group_gone(k, g), DEADLINE_S, "group %s expired" % g)
        log = calls(k)
        first_delete = log.index("delete %s" % g)
        set_at = log.index("set %s 1" % g)
        assert first_delete < set_at, log
        assert "delete %s" % g in log[set_at + 1:], log  # deleted again after the late set
        assert store_epoch(k, g) is None
    except BaseException:
        k.keep = True
        k.dump_logs()
        raise
    finally:
        k.stop(expect_clean=False)
        if not k.keep:
            k.cleanup()


def main():
    overrides = {
        "group.streams.topology.description.plugin": os.environ["KC_TEST_TOPOLOGY_STORE"],
        "group.streams.initial.rebalance.delay.ms": "0",
        "group.streams.assignment.interval.ms": "0",
    }
    happy_path(overrides)
    crash_push(overrides)
    crash_cleanup(overrides)
    crash_delete_groups(overrides)
    crash_conversion(overrides)
    race_push_cleanup(overrides)


if __name__ == "__main__":
    run(main)
