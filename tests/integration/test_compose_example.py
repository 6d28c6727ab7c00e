# SPDX-License-Identifier: Apache-2.0
"""The docker-compose.yml example, run without Docker.

The services' settings and commands are read from docker-compose.yml and
run on this machine with "kcoord:9092" pointing at a local kcoord: the
KCOORD_* environment of the kcoord service is accepted, the health check
command answers, the producer's shell pipeline writes keyed lines, and the
two kcat consumers of the sample group both receive records and end up
sharing the 4 partitions, each partition with one of them.
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import yaml

import kafka_wire as kw
from kcoord_harness import SOURCE_ROOT, Kcoord, free_port, run, wait_for

DEADLINE_S = 90


def substitute(arg, bootstrap):
    # Compose's $$ is a literal $ for the shell.
    return arg.replace("kcoord:9092", bootstrap).replace("$$", "$")


def main():
    with open(os.path.join(SOURCE_ROOT, "docker-compose.yml")) as f:
        compose = yaml.safe_load(f)
    svc = compose["services"]
    env = {k: str(v) for k, v in svc["kcoord"]["environment"].items()}
    assert env["KCOORD_ADVERTISED_LISTENERS"] == "PLAINTEXT://kcoord:9092"
    admin_port = free_port()
    k = Kcoord("compose-example", overrides={"group.initial.rebalance.delay.ms": None,
                                               "admin.listeners":
                                               "http://127.0.0.1:%d" % admin_port})
    env["KCOORD_ADVERTISED_LISTENERS"] = "PLAINTEXT://127.0.0.1:%d" % k.port
    k.extra_env = env
    procs = []
    tmp = tempfile.mkdtemp(prefix="kcoord-compose-")
    try:
        with k:
            # The health check of the kcoord service.
            hc = svc["kcoord"]["healthcheck"]["test"]
            assert hc[0] == "CMD" and hc[1] == "kcoord", hc
            cmd = [k.binary] + [a.replace("9644", str(admin_port)) for a in hc[2:]]
            assert subprocess.run(cmd, stdout=subprocess.DEVNULL, timeout=30).returncode == 0

            outs = []
            for name in ("producer", "consumer-1", "consumer-2"):
                assert svc[name]["entrypoint"] == ["sh", "-c"], name
                script = substitute(" ".join(svc[name]["command"]), k.bootstrap)
                # One line every 50 ms instead of every second: same pipeline, faster test.
                script = script.replace("sleep 1", "sleep 0.05")
                out = open(os.path.join(tmp, name + ".out"), "w+b")
                if name != "producer":
                    outs.append(out)
                procs.append(subprocess.Popen(["sh", "-c", script], stdin=subprocess.DEVNULL,
                                              stdout=out, stderr=subprocess.DEVNULL,
                                              start_new_session=True))

            def partitions_seen_since(out, pos):
                out.flush()
                with open(out.name, "rb") as f:
                    f.seek(pos)
                    lines = f.read().decode("utf-8", "replace").splitlines()
                line_re = re.compile(r"^(\d+) \d+ key\d message \d+$")
                return {int(m.group(1)) for m in map(line_re.match, lines) if m}

            def both_members():
                with kw.Conn(k.port) as c:
                    g = kw.describe_groups(c, ["demo-group"])["groups"][0]
                return g["state"] == "Stable" and len(g["members"]) == 2
            wait_for(both_members, DEADLINE_S, "both consumers in a Stable demo-group")
            # Once the group is stable, new records reach both consumers,
            # each partition at one of them.
            marks = [os.path.getsize(o.name) for o in outs]

            def shared():
                seen = [partitions_seen_since(o, m) for o, m in zip(outs, marks)]
                return (seen[0] and seen[1] and not (seen[0] & seen[1])
                        and seen[0] | seen[1] == {0, 1, 2, 3})
            wait_for(shared, DEADLINE_S, "the two consumers to share the 4 partitions",
                     state=lambda: [partitions_seen_since(o, m) for o, m in zip(outs, marks)])
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run(main)
