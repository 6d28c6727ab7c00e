# SPDX-License-Identifier: Apache-2.0
"""KafkaJS across a broker restart (kafkajs/group.js --restart).

Two KafkaJS members consume and commit; kcoord is then stopped (SIGTERM) and
started again on the same data directory and port. The group and its offsets
are replayed, and the members must carry on: records produced after the
restart are consumed exactly once, from the committed offsets, and the group
is Stable with both members again before one leaves and the other takes over.
"""

import os
import queue
import subprocess
import threading

from kcoord_harness import HERE, Kcoord, run
from test_kafkajs_group import NODE_DEADLINE_S, node_env

MARK_DEADLINE_S = 200


def main():
    env = node_env()
    with Kcoord("kafkajs-restart") as k:
        proc = subprocess.Popen(["node", os.path.join(HERE, "kafkajs", "group.js"),
                                 k.bootstrap, "--restart"],
                                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        lines = queue.Queue()
        output = []

        def pump():
            for raw in proc.stdout:
                line = raw.decode("utf-8", "replace")
                output.append(line)
                lines.put(line)
            lines.put(None)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            while True:
                line = lines.get(timeout=MARK_DEADLINE_S)
                assert line is not None, "group.js ended before asking for the restart"
                if line.strip() == "kafkajs: restart now":
                    break
            k.restart()
            proc.stdin.write(b"restarted\n")
            proc.stdin.flush()
            rc = proc.wait(timeout=NODE_DEADLINE_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            reader.join(timeout=30)
            print("".join(output), end="")
        assert rc == 0, "group.js exited with status %d" % rc
        assert any(l.strip() == "kafkajs: OK" for l in output), "group.js did not report success"


if __name__ == "__main__":
    run(main)
