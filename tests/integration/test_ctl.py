# SPDX-License-Identifier: Apache-2.0
"""`kcoord ctl` against a running kcoord's admin endpoint.

- health answers 0 while the endpoint is up and 2 against a closed port;
- groups, group ID, faults, fault-add, fault-clear [ID] and metrics print the
  endpoint's bodies and exit 0 on 2xx, 1 on an HTTP error (unknown group,
  bad fault spec, unknown fault id);
- metrics count the group's join and its rebalance;
- bad usage exits 1 (also `events --follow` with a bad since, answered 400),
  --help exits 0.
"""

import json
import os
import subprocess

import kafka_wire as kw
from admin_client import Admin
from kcoord_harness import Kcoord, free_port, run

GROUP = "ctl-group"


def ctl(url, *args):
    p = subprocess.run([os.environ["KC_TEST_KCOORD_BIN"], "ctl", "--admin", url] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def main():
    admin_port = free_port()
    url = "http://127.0.0.1:%d" % admin_port
    with Kcoord("ctl", {"admin.listeners": url}) as k:
        rc, out, _ = ctl(url, "health")
        assert rc == 0 and json.loads(out)["status"] == "ok", (rc, out)

        c = kw.Conn(k.port)
        j = kw.join_group(c, GROUP, "", group_instance_id="i1")
        assert j["error_code"] == 0, j

        rc, out, _ = ctl(url, "groups")
        assert rc == 0, (rc, out)
        assert GROUP in [g["group_id"] for g in json.loads(out)["groups"]], out
        rc, out, _ = ctl(url, "group", GROUP)
        assert rc == 0 and json.loads(out)["group_id"] == GROUP, (rc, out)
        rc, out, err = ctl(url, "group", "no such group")
        assert rc == 1 and "error" in json.loads(out), (rc, out, err)

        rc, out, _ = ctl(url, "fault-add", json.dumps({"type": "delay", "delay_ms": 5,
                                                        "api_key": kw.API_HEARTBEAT,
                                                        "count": 3}))
        assert rc == 0, (rc, out)
        fid = json.loads(out)["id"]
        rc, out, _ = ctl(url, "fault-add", json.dumps({"type": "error", "api_key": 12,
                                                        "error_code": 15}))
        assert rc == 0, (rc, out)
        rc, out, _ = ctl(url, "fault-add", '{"type":"bogus"}')
        assert rc == 1 and "error" in json.loads(out), (rc, out)
        rc, out, _ = ctl(url, "faults")
        assert rc == 0 and len(json.loads(out)["faults"]) == 2, (rc, out)
        rc, out, _ = ctl(url, "fault-clear", str(fid))
        assert rc == 0 and json.loads(out)["cleared"] == 1, (rc, out)
        rc, out, _ = ctl(url, "fault-clear", str(fid))
        assert rc == 1, (rc, out)
        rc, out, _ = ctl(url, "fault-clear")
        assert rc == 0 and json.loads(out)["cleared"] == 1, (rc, out)
        assert Admin(admin_port).faults()["faults"] == []

        rc, out, _ = ctl(url, "metrics")
        assert rc == 0 and "kcoord_requests_total{api=\"JoinGroup\"" in out, (rc, out)
        # The join above: one member joined, one rebalance started and completed.
        for line in ('kcoord_group_events_total{event="member_joined"} 1',
                     'kcoord_group_events_total{event="rebalance_started"} 1',
                     'kcoord_group_events_total{event="rebalance_completed"} 1',
                     'kcoord_rebalances_total 1', 'kcoord_rebalance_seconds_count 1',
                     'kcoord_rebalance_seconds_bucket{le="+Inf"} 1'):
            assert line + "\n" in out, (line, out)

        assert ctl(url, "bogus")[0] == 1
        assert ctl(url, "group")[0] == 1
        assert ctl(url, "groups", "x")[0] == 1
        assert ctl(url, "events", "--follow", "1", "2")[0] == 1
        rc, out, _ = ctl(url, "events", "--follow", "x")
        assert rc == 1 and "error" in json.loads(out), (rc, out)
        rc, out, _ = ctl(url, "--help")
        assert rc == 0 and "fault-add" in out and "events --follow" in out, (rc, out)

    # Nothing listens there any more (and the port stays closed: kcoord is gone).
    closed = "http://127.0.0.1:%d" % free_port()
    rc, _, err = ctl(closed, "health")
    # The error names the setting that turns the endpoint on.
    assert rc == 2 and "admin.listeners" in err, (rc, err)
    assert ctl(closed, "groups")[0] == 2


if __name__ == "__main__":
    run(main)
