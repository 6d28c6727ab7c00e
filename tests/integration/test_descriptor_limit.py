# SPDX-License-Identifier: Apache-2.0
"""Running out of file descriptors must not spin the broker.

kcoord is started with a limit of 64 open files, then a client opens many
more connections than that. accept() fails with EMFILE: kcoord must log the
failure, stop accepting for a while instead of retrying in a busy loop (a
loop would write the same warning millions of times a second), and serve
new connections again once the client has closed its sockets. Connections
it accepted before keep being answered throughout.
"""

import socket

import kafka_wire as kw
from kcoord_harness import Kcoord, run, wait_for

LIMIT = 64
EXTRA = 150
DEADLINE_S = 60


class LimitedKcoord(Kcoord):
    def command(self):
        return ["prlimit", "--nofile=%d:%d" % (LIMIT, LIMIT), "--"] + super().command()


def main():
    with LimitedKcoord("descriptor-limit") as k:
        control = kw.Conn(k.port)
        assert kw.api_versions(control, 0)["error_code"] == 0
        offset = k.stderr_size()

        socks = []
        for _ in range(EXTRA):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(DEADLINE_S)
            s.connect(("127.0.0.1", k.port))  # completes in the kernel backlog
            socks.append(s)

        wait_for(lambda: "Too many open files" in k.stderr_since(offset), DEADLINE_S,
                 "kcoord to log the failed accept")
        # The connection accepted before the limit was hit still works.
        assert kw.api_versions(control, 0)["error_code"] == 0

        for s in socks:
            s.close()

        def fresh_connection_answers():
            with kw.Conn(k.port, timeout=5) as c:
                return kw.api_versions(c, 0)["error_code"] == 0
        wait_for(fresh_connection_answers, DEADLINE_S, "a new connection to be served again")

        failures = k.stderr_since(offset).count("Too many open files")
        # One warning per pause (1 s each); a busy loop logs millions.
        assert 1 <= failures <= 2 * DEADLINE_S, failures
        assert kw.api_versions(control, 0)["error_code"] == 0


if __name__ == "__main__":
    run(main)
