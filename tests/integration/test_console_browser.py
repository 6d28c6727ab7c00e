# SPDX-License-Identifier: Apache-2.0
"""The console end to end in headless Chromium (console/console_e2e.js).

Installs the pinned playwright-core from console/package-lock.json with
`npm ci` into the build directory (reused while the lock file is
unchanged) and drives Debian's chromium with it. kcoord runs with its
admin endpoint; the test makes a 4-partition topic with records in it and
a group whose id is markup, and a consumer (KIP-848) group of two raw
members, the first of which does not heartbeat again, so that half of its
partitions stay pending revocation and the second's target is not yet
owned, and a streams (KIP-1071) group of one raw member that owns every
task of its one subtopology, and a classic group whose group, client and
member ids and topic name are about 250 characters long, with committed
offsets. Then the Node script checks those grids and the layout, and
with real kcat
consumers, checks that the console shows the group forming (members,
state, assignment grid), a killed member's session expiry and the
rebalance that follows, and a JoinGroup error fault added from the form
failing the next JoinGroup on the timeline. On failure the script leaves
a screenshot in the work directory (console-browser/ in the build tree).
"""

import os
import shutil
import subprocess
import uuid

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import HERE, Kcoord, free_port, run, wait_for

NPM_DEADLINE_S = 600
NODE_DEADLINE_S = 600
TOPIC = "console-orders"
GROUP = "console-group"
CG_GROUP = "console-cg"
ST_GROUP = "console-streams"
ODD_GROUP = '<img src=x onerror="document.title=1">&amp;<b>bold</b>'
# Client-chosen names as long as a client may make them (a topic name: 249).
LONG_GROUP = "long-group-" + "g" * 239
LONG_CLIENT = "long-client-" + "c" * 238
LONG_TOPIC = "long-topic-" + "t" * 238
CHROMIUM = "/usr/bin/chromium"


def npm_install(work):
    """`npm ci` of the committed lock file into work/; skipped when work/
    already holds an install of the same lock file."""
    src = os.path.join(HERE, "console")
    with open(os.path.join(src, "package-lock.json"), "rb") as f:
        lock = f.read()
    stamp = os.path.join(work, "node_modules", ".kcoord-lock")
    try:
        with open(stamp, "rb") as f:
            if f.read() == lock:
                return
    except OSError:
        pass
    os.makedirs(work, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(os.path.join(src, name), os.path.join(work, name))
    env = dict(os.environ)
    env["npm_config_cache"] = os.path.join(work, "npm-cache")  # no need for a HOME
    env["npm_config_update_notifier"] = "false"
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                   cwd=work, env=env, check=True, timeout=NPM_DEADLINE_S,
                   stdin=subprocess.DEVNULL)
    with open(stamp, "wb") as f:
        f.write(lock)


def consumer_group_pending(c):
    """CG_GROUP: cg-member-1 takes every partition of TOPIC and acknowledges
    them; cg-member-2 joins, and its half stays with cg-member-1, pending
    revocation, since cg-member-1 sends nothing more."""
    def hb(member_id, epoch, owned, **kw_):
        res = kw.consumer_group_heartbeat(c, 1, CG_GROUP, member_id, epoch, owned=sorted(owned),
                                          **kw_)
        assert res["error_code"] == kw.NONE, res
        return res
    sub = dict(topic_names=[TOPIC], rebalance_timeout_ms=300000)
    r1 = hb("cg-member-1", 0, [], **sub)
    owned = r1["assignment"]
    assert owned is not None and len(owned) == 4, r1
    hb("cg-member-1", r1["member_epoch"], owned)
    r2 = hb("cg-member-2", 0, [], **sub)
    assert not r2["assignment"], r2


def long_ids_group(port):
    """LONG_GROUP: one member of client id LONG_CLIENT (its member id is
    longer still) owning the 2 partitions of LONG_TOPIC, with offsets
    committed and a long commit metadata."""
    with kw.Conn(port, client_id=LONG_CLIENT) as c:
        assert kw.create_topics(c, {LONG_TOPIC: 2})["topics"] == {LONG_TOPIC: (0, None)}
        j = kw.join_dynamic(c, LONG_GROUP, session_timeout_ms=300000)
        assert j["error_code"] == 0, j
        mid, gen = j["member_id"], j["generation_id"]
        a = kw.consumer_assignment_v0({LONG_TOPIC: [0, 1]})
        assert kw.sync_group(c, LONG_GROUP, gen, mid, [(mid, a)])["error_code"] == 0
        res = kw.offset_commit(c, LONG_GROUP, {LONG_TOPIC: {0: (0, "m" * 250), 1: (0, "")}},
                               generation_id=gen, member_id=mid)
        assert set(res["errors"].values()) == {0}, res


def streams_group_stable(port, admin_port):
    """ST_GROUP: one member of a topology reading TOPIC, heartbeating until
    the group is Stable with its 4 active tasks acknowledged."""
    admin = Admin(admin_port)
    member_id, process_id = str(uuid.uuid4()), str(uuid.uuid4())
    state = {"epoch": 0, "active": set()}
    with kw.Conn(port) as c:
        def stable():
            args = dict(process_id=process_id, user_endpoint=("localhost", 40001),
                        active=state["active"], standby=set(), warmup=set())
            if state["epoch"] == 0:
                args.update(topology=(1, [{"id": "0", "source_topics": [TOPIC]}]),
                            rebalance_timeout_ms=300000)
            r = kw.streams_group_heartbeat(c, ST_GROUP, member_id, state["epoch"], **args)
            assert r["error_code"] == 0, r
            state["epoch"] = r["member_epoch"]
            if r["active"] is not None:
                state["active"] = r["active"]
            g = admin.group(ST_GROUP)
            return g["state"] == "Stable" and len(state["active"]) == 4 and \
                g["members"][0]["member_epoch"] == g["assignment_epoch"]
        wait_for(stable, 90, "the streams group Stable", interval=0.2,
                 state=lambda: admin.group(ST_GROUP))


def main():
    for tool in ("node", "npm", "kcat"):
        if shutil.which(tool) is None:
            raise AssertionError("%s is not installed (scripts/deps.sh all installs it)" % tool)
    if not os.access(CHROMIUM, os.X_OK):
        raise AssertionError("%s is not installed (scripts/deps.sh all installs chromium)"
                             % CHROMIUM)
    base = os.path.join(os.environ.get("KC_TEST_WORK", os.getcwd()), "console-browser")
    modules = os.path.join(base, "modules")
    npm_install(modules)
    shots = os.path.join(base, "work")
    shutil.rmtree(shots, ignore_errors=True)
    os.makedirs(shots)
    admin_port = free_port()
    admin = "http://127.0.0.1:%d" % admin_port
    overrides = {"admin.listeners": admin,
                 # The first consumer-group member must keep its partitions
                 # pending revocation for the whole check.
                 "group.consumer.session.timeout.ms": "60000",
                 "group.streams.session.timeout.ms": "60000",
                 "group.streams.initial.rebalance.delay.ms": "0"}
    with Kcoord("console", overrides) as k:
        with kw.Conn(k.port) as c:
            assert kw.create_topics(c, {TOPIC: 4})["topics"] == {TOPIC: (0, None)}
            for p in range(4):
                res = kw.produce_v2(c, TOPIC, p, [b"record-%d-%d" % (p, i) for i in range(5)])
                assert res[(TOPIC, p)][0] == 0, res
            j = kw.join_dynamic(c, ODD_GROUP)
            assert j["error_code"] == 0, j
            s = kw.sync_group(c, ODD_GROUP, j["generation_id"], j["member_id"],
                              [(j["member_id"], b"")])
            assert s["error_code"] == 0, s
            consumer_group_pending(c)
        streams_group_stable(k.port, admin_port)
        long_ids_group(k.port)
        env = {k: v for k, v in os.environ.items() if not k.startswith("KCOORD_")}
        env["NODE_PATH"] = os.path.join(modules, "node_modules")
        env["KC_CHROMIUM"] = CHROMIUM
        env["HOME"] = shots  # Chromium's profile and crash dumps stay in the work directory
        proc = subprocess.run(["node", os.path.join(HERE, "console", "console_e2e.js"), admin,
                               k.bootstrap, TOPIC, GROUP, ODD_GROUP, CG_GROUP, ST_GROUP, LONG_GROUP,
                               shots],
                              env=env, timeout=NODE_DEADLINE_S, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=shots)
        out = proc.stdout.decode("utf-8", "replace")
        print(out, end="")
        assert proc.returncode == 0, "console_e2e.js exited with status %d (screenshots in %s)" \
            % (proc.returncode, shots)
        assert "console-e2e: OK" in out, "console_e2e.js did not report success"


if __name__ == "__main__":
    run(main)
