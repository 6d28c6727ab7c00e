# SPDX-License-Identifier: Apache-2.0
"""KafkaJS end to end: a 2-member consumer group (kafkajs/group.js).

Installs the pinned kafkajs from kafkajs/package-lock.json with `npm ci`
into the build directory (reused while the lock file is unchanged), starts
kcoord and runs the Node script, which creates a 4-partition topic, produces,
checks that both members get partitions, that every record is consumed once
and committed, and that the remaining member takes over after the other
leaves.
"""

import os
import shutil
import subprocess

from kcoord_harness import HERE, Kcoord, run

NPM_DEADLINE_S = 600
NODE_DEADLINE_S = 400


def npm_install(work):
    """`npm ci` of the committed lock file into work/; skipped when work/
    already holds an install of the same lock file."""
    src = os.path.join(HERE, "kafkajs")
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


def node_env():
    """Installs kafkajs if needed; returns the environment to run node in."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise AssertionError("%s is not installed (scripts/deps.sh all installs it)" % tool)
    work = os.path.join(os.environ.get("KC_TEST_WORK", os.getcwd()), "kafkajs-modules")
    npm_install(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCOORD_")}
    env["NODE_PATH"] = os.path.join(work, "node_modules")
    env["KAFKAJS_NO_PARTITIONER_WARNING"] = "1"  # records name their partition
    return env


def main():
    env = node_env()
    with Kcoord("kafkajs") as k:
        proc = subprocess.run(["node", os.path.join(HERE, "kafkajs", "group.js"), k.bootstrap],
                              env=env, timeout=NODE_DEADLINE_S, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.stdout.decode("utf-8", "replace")
        print(out, end="")
        assert proc.returncode == 0, "group.js exited with status %d" % proc.returncode
        assert "kafkajs: OK" in out, "group.js did not report success"


if __name__ == "__main__":
    run(main)
