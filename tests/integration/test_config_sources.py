# SPDX-License-Identifier: Apache-2.0
"""Configuration sources end to end: KCOORD_* environment variables set
properties (as the container image relies on), --override wins over the
environment, and an unknown KCOORD_* variable stops kcoord at start-up.

The session-timeout bounds are observable on the wire: JoinGroup with a
session timeout outside [group.min.session.timeout.ms,
group.max.session.timeout.ms] gets INVALID_SESSION_TIMEOUT before anything
else is looked at; inside them a new member gets MEMBER_ID_REQUIRED.
"""

import subprocess

import kafka_wire as kw
from kcoord_harness import Kcoord, run

INVALID_SESSION_TIMEOUT = 26


def join_error(port, session_timeout_ms):
    with kw.Conn(port) as c:
        return kw.join_group(c, "cfg-group", "", session_timeout_ms=session_timeout_ms,
                             rebalance_timeout_ms=60000)["error_code"]


def main():
    env = {
        "KCOORD_GROUP_MIN_SESSION_TIMEOUT_MS": "20000",
        "KCOORD_GROUP_MAX_SESSION_TIMEOUT_MS": "25000",
    }
    overrides = {
        "group.min.session.timeout.ms": None,      # let the environment decide
        "group.max.session.timeout.ms": "40000",   # the override beats the environment
    }
    with Kcoord("config-sources", overrides=overrides, env=env) as k:
        assert join_error(k.port, 19999) == INVALID_SESSION_TIMEOUT
        assert join_error(k.port, 20000) == kw.MEMBER_ID_REQUIRED
        assert join_error(k.port, 30000) == kw.MEMBER_ID_REQUIRED
        assert join_error(k.port, 40000) == kw.MEMBER_ID_REQUIRED
        assert join_error(k.port, 40001) == INVALID_SESSION_TIMEOUT

    # An unknown KCOORD_* variable is a configuration error: kcoord exits
    # non-zero without listening.
    probe = Kcoord("config-unknown-env", env={"KCOORD_NO_SUCH_PROPERTY": "1"})
    try:
        p = subprocess.run(probe.command(), env=dict(probe.extra_env, PATH="/usr/bin:/bin"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        assert p.returncode != 0, "kcoord started despite an unknown KCOORD_* variable"
        assert "KCOORD_NO_SUCH_PROPERTY" in err, err
        print("unknown variable -> exit %d: %s" % (p.returncode, err.strip().splitlines()[-1]))
    finally:
        probe.cleanup()


if __name__ == "__main__":
    run(main)
