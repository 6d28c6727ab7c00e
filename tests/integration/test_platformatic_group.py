# SPDX-License-Identifier: Apache-2.0
"""@platformatic/kafka end to end over the KIP-848 consumer protocol
(platformatic/group.mjs): three members with groupProtocol 'consumer'
(ConsumerGroupHeartbeat, server-side uniform assignor) share a 6-partition
topic, two partitions each, no partition held twice, every record
consumed; after one member leaves the two others hold three each.

Installs the pinned client from platformatic/package-lock.json with `npm ci`
into the build directory (reused while the lock file is unchanged). The
package is an ES module, which NODE_PATH does not reach, so the script runs
from a copy next to the installed node_modules.
"""

import os
import shutil
import subprocess

from kcoord_harness import HERE, Kcoord, run

NPM_DEADLINE_S = 600
NODE_DEADLINE_S = 400
SRC = os.path.join(HERE, "platformatic")


def npm_ci(work):
    """`npm ci` of the committed lock file into work/; skipped when work/
    already holds an install of the same lock file."""
    with open(os.path.join(SRC, "package-lock.json"), "rb") as f:
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
        shutil.copyfile(os.path.join(SRC, name), os.path.join(work, name))
    env = dict(os.environ)
    env["npm_config_cache"] = os.path.join(work, "npm-cache")
    env["npm_config_update_notifier"] = "false"
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                   cwd=work, env=env, check=True, timeout=NPM_DEADLINE_S,
                   stdin=subprocess.DEVNULL)
    with open(stamp, "wb") as f:
        f.write(lock)


def main():
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise AssertionError("%s is not installed (scripts/deps.sh all installs it)" % tool)
    work = os.path.join(os.environ.get("KC_TEST_WORK", os.getcwd()), "platformatic-modules")
    npm_ci(work)
    script = os.path.join(work, "group.mjs")
    shutil.copyfile(os.path.join(SRC, "group.mjs"), script)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCOORD_")}
    with Kcoord("platformatic", {"group.consumer.heartbeat.interval.ms": "500"}) as k:
        proc = subprocess.run(["node", script, k.bootstrap], env=env, cwd=work,
                              timeout=NODE_DEADLINE_S, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.stdout.decode("utf-8", "replace")
        print(out, end="")
        assert proc.returncode == 0, "group.mjs exited with status %d" % proc.returncode
        assert "platformatic: OK" in out, "group.mjs did not report success"
        log = k.stderr_text()
        joins = log.count("joins the consumer group using the consumer protocol")
        assert joins == 3, "expected 3 KIP-848 joins in the broker log, saw %d" % joins


if __name__ == "__main__":
    run(main)
