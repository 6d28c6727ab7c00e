# SPDX-License-Identifier: Apache-2.0
"""Coordinator deadlines are kept to the millisecond.

A classic member heartbeats; its session deadline is then at most the time
the answer arrived plus its session timeout. A heartbeat sent 1 ms after
that is answered UNKNOWN_MEMBER_ID: the member's session has expired, even
when the request reaches kcoord in the same loop iteration as the deadline
(the due timers fire before any request is handled). Several rounds, since a
timer served a few milliseconds late (the coarse clock) lets most of them
through. /metrics then counts the firings in its timer lateness histogram.

The wait before the late heartbeat is the subject of the test, a deadline
on the wire, not a wait for some state to be reached.
"""

import time

import kafka_wire as kw
from admin_client import Admin, parse_prometheus
from kcoord_harness import Kcoord, free_port, run

SESSION_MS = 1000
ROUNDS = 10
LATENESS = "kcoord_coordinator_timer_lateness_seconds"


def sleep_until(t):
    while time.time() < t:
        time.sleep(t - time.time())


def lateness_count(admin):
    fams = parse_prometheus(admin.metrics())
    return [v for n, _, v in fams[LATENESS]["samples"] if n == LATENESS + "_count"][0]


def main():
    admin_port = free_port()
    with Kcoord("timer_deadlines", {"group.initial.rebalance.delay.ms": "0",
                                    "admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        admin = Admin(admin_port)
        fired_before = lateness_count(admin)
        answers = []
        for i in range(ROUNDS):
            group = "deadline-%d" % i
            with kw.Conn(k.port) as c:
                j = kw.join_dynamic(c, group, session_timeout_ms=SESSION_MS,
                                    rebalance_timeout_ms=SESSION_MS)
                assert j["error_code"] == 0, j
                gen, member = j["generation_id"], j["member_id"]
                s = kw.sync_group(c, group, gen, member, [(member, b"")])
                assert s["error_code"] == 0, s
                hb = kw.heartbeat(c, group, gen, member)
                answered = time.time()
                assert hb["error_code"] == 0, hb
                sleep_until(answered + (SESSION_MS + 1) / 1000.0)
                answers.append(kw.heartbeat(c, group, gen, member)["error_code"])
        assert answers == [kw.UNKNOWN_MEMBER_ID] * ROUNDS, answers
        fired = lateness_count(admin) - fired_before
        assert fired >= ROUNDS, (fired, ROUNDS)
        print("%d heartbeats 1 ms past the session deadline: UNKNOWN_MEMBER_ID; "
              "%d timer firings counted" % (ROUNDS, fired))


if __name__ == "__main__":
    run(main)
