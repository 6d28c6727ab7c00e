# SPDX-License-Identifier: Apache-2.0
"""Starts, stops and restarts a kcoord process for an integration test.

The broker listens on a free loopback port with its data in a temporary
directory and short coordinator timeouts. Its stderr goes to a file that is
printed when a test fails. Readiness is detected by sending ApiVersions on
a raw socket until one is answered; nothing here sleeps for a fixed time.

Tests use it as:

    with Kcoord("name") as k:
        ... k.port, k.bootstrap ...
        k.restart()               # SIGTERM, start again on the same data dir
        k.kill(); k.start()       # SIGKILL, then start again

Set KC_TEST_SHOW_LOGS=1 to print kcoord's stderr after passing tests too.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import kafka_wire

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))

# Generous: a loaded 2-core machine running sanitizer builds is slow.
START_DEADLINE_S = 60.0
STOP_DEADLINE_S = 30.0

# Coordinator settings that keep tests fast; each is a Kafka property.
DEFAULT_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "500",
    "group.max.session.timeout.ms": "300000",
    # Lower bounds under the short consumer and streams intervals tests set.
    "group.consumer.min.heartbeat.interval.ms": "100",
    "group.streams.min.heartbeat.interval.ms": "100",
    "group.streams.min.session.timeout.ms": "1000",
}


def free_port():
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(cond, timeout, what, interval=0.05, state=None):
    """Polls cond() until it returns a truthy value; returns that value.
    Raises AssertionError naming `what` when the deadline passes; state(),
    when given, describes what was seen last, for the failure message."""
    deadline = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            v = cond()
            if v:
                return v
        except Exception as e:  # keep polling; report the last failure
            last_exc = e
        if time.monotonic() >= deadline:
            msg = "timed out after %.0fs waiting for %s" % (timeout, what)
            if last_exc is not None:
                msg += " (last error: %r)" % (last_exc,)
            if state is not None:
                try:
                    msg += "; last seen: %r" % (state(),)
                except Exception as e:
                    msg += "; state unavailable: %r" % (e,)
            raise AssertionError(msg)
        time.sleep(interval)


class Kcoord:
    def __init__(self, name, overrides=None, binary=None, env=None):
        """overrides: extra --override properties; a value of None drops one
        of DEFAULT_OVERRIDES. env: extra environment for kcoord (KCOORD_*
        properties)."""
        self.name = name
        self.binary = binary or os.environ.get("KC_TEST_KCOORD_BIN")
        if not self.binary or not os.access(self.binary, os.X_OK):
            raise RuntimeError("KC_TEST_KCOORD_BIN must name the built kcoord executable (got %r)"
                               % (self.binary,))
        self.tmp = tempfile.mkdtemp(prefix="kcoord-itest-%s-" % name)
        self.data_dir = os.path.join(self.tmp, "data")
        os.makedirs(self.data_dir)
        self.port = free_port()
        self.overrides = dict(DEFAULT_OVERRIDES)
        for k, v in (overrides or {}).items():
            if v is None:
                self.overrides.pop(k, None)
            else:
                self.overrides[k] = v
        self.extra_env = dict(env or {})
        self.proc = None
        self.starts = 0
        self.stderr_path = None
        self.stderr_paths = []
        self.keep = False

    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    def command(self):
        cmd = [self.binary]
        conf = os.path.join(SOURCE_ROOT, "conf", "kcoord.conf")
        if os.path.exists(conf):
            cmd += ["--config", conf]
        opts = dict(self.overrides)
        # A test may give several listeners; the first must then be the
        # PLAINTEXT one on self.port, which readiness is checked on.
        opts.setdefault("listeners", "PLAINTEXT://127.0.0.1:%d" % self.port)
        opts["log.dirs"] = self.data_dir
        for k, v in opts.items():
            cmd += ["--override", "%s=%s" % (k, v)]
        return cmd

    def start(self):
        assert self.proc is None, "already running"
        self.starts += 1
        self.stderr_path = os.path.join(self.tmp, "kcoord-%d.stderr" % self.starts)
        self.stderr_paths.append(self.stderr_path)
        err = open(self.stderr_path, "wb")
        try:
            # kcoord reads KCOORD_* variables as properties and rejects unknown
            # ones: a variable of the user's shell must not change the test.
            env = {k: v for k, v in os.environ.items() if not k.startswith("KCOORD_")}
            env.update(self.extra_env)
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                         stdout=err, stderr=err, cwd=self.tmp, env=env)
        finally:
            err.close()
        self.wait_ready()
        return self

    def wait_ready(self):
        def answered():
            if self.proc.poll() is not None:
                raise RuntimeError("kcoord exited with status %d during start-up"
                                   % self.proc.returncode)
            try:
                with kafka_wire.Conn(self.port, timeout=5.0) as c:
                    return kafka_wire.api_versions(c, 0)["error_code"] == 0
            except (OSError, kafka_wire.ConnectionClosed, kafka_wire.DecodeError):
                return False
        deadline = time.monotonic() + START_DEADLINE_S
        while True:
            if answered():
                return
            if time.monotonic() >= deadline:
                raise AssertionError("kcoord did not answer ApiVersions on port %d within %.0fs"
                                     % (self.port, START_DEADLINE_S))
            time.sleep(0.05)

    def stop(self, expect_clean=True):
        """SIGTERM and wait; a clean stop must exit 0 (sanitizer reports
        and leaks make it non-zero)."""
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=STOP_DEADLINE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            raise AssertionError("kcoord did not exit within %.0fs of SIGTERM" % STOP_DEADLINE_S)
        self.proc = None
        if expect_clean and rc != 0:
            raise AssertionError("kcoord exited with status %d after SIGTERM" % rc)
        return rc

    def kill(self):
        """SIGKILL: no chance to flush anything."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop()
        return self.start()

    def stderr_text(self, which=-1):
        try:
            with open(self.stderr_paths[which], "rb") as f:
                return f.read().decode("utf-8", "replace")
        except (IndexError, OSError):
            return ""

    def stderr_size(self):
        try:
            return os.path.getsize(self.stderr_path)
        except OSError:
            return 0

    def stderr_since(self, offset):
        with open(self.stderr_path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")

    def wait_log_after(self, offset, timeout=10.0, what="a log line"):
        """Waits until kcoord wrote at least one full new line after byte `offset`
        of its current stderr file; returns the new text."""
        return wait_for(lambda: (lambda t: t if "\n" in t else "")(self.stderr_since(offset)),
                        timeout, what)

    SANITIZER_MARKERS = ("runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                         "WARNING: AddressSanitizer")

    def check_sanitizers(self):
        """Fails if any run of kcoord printed a sanitizer report (UBSan may
        report and carry on, so the exit status alone is not enough)."""
        for i in range(len(self.stderr_paths)):
            text = self.stderr_text(i)
            for marker in self.SANITIZER_MARKERS:
                if marker in text:
                    raise AssertionError("kcoord run %d printed a sanitizer report (%s)"
                                         % (i + 1, marker))

    def dump_logs(self, out=sys.stderr):
        for p in self.stderr_paths:
            out.write("----- %s -----\n" % os.path.basename(p))
            try:
                with open(p, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if len(data) > 200000:
                out.write("[... %d bytes cut ...]\n" % (len(data) - 200000))
                data = data[-200000:]
            out.write(data.decode("utf-8", "replace"))
            out.write("\n")
        out.flush()

    def cleanup(self):
        if self.proc is not None:
            self.kill()
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.dump_logs()
            self.cleanup()
            raise

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                if self.proc is not None:
                    self.stop()
                self.check_sanitizers()
        except BaseException:
            self.dump_logs()
            self.cleanup()
            raise
        if exc_type is not None or os.environ.get("KC_TEST_SHOW_LOGS"):
            self.dump_logs()
        self.cleanup()
        return False



def go_build(src, work, name, timeout=600):
    """Builds the Go program in src into work/name with the modules its
    go.mod and go.sum pin (verified, nothing resolved anew; the module
    cache inside work, removable with it); returns the program's path."""
    os.makedirs(work, exist_ok=True)
    exe = os.path.join(work, name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GO")}
    env.update({
        "GO111MODULE": "on",
        "GOMODCACHE": os.path.join(work, "go-mod"),
        "GOCACHE": os.path.join(work, "go-cache"),
        "GOPATH": os.path.join(work, "go-path"),
        "GOFLAGS": "-mod=readonly -modcacherw",
        "GOENV": "off",  # no need for a HOME
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "0",
    })
    subprocess.run(["go", "build", "-o", exe, "."], cwd=src, env=env, check=True,
                   timeout=timeout, stdin=subprocess.DEVNULL)
    return exe

def run(main):
    """Runs a test's main(); prints the traceback and exits 1 on failure."""
    try:
        main()
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        sys.exit(1)
    print("OK")
    sys.exit(0)
