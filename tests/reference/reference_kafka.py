# SPDX-License-Identifier: Apache-2.0
"""Apache Kafka 4.4.0 as the reference broker of tests and benchmarks.

The broker comes from Maven Central: `pom.xml` beside this file names
kafka_2.13, kafka-clients, kafka-streams and kafka-tools 4.4.0, and
`classpath()` asks Maven for the resolved jars (offline once the local
Maven repository holds them). `ReferenceKafka` then

  - writes a `server.properties` for one combined broker+controller (KRaft)
    on two free loopback ports, with the group settings the caller gives,
  - formats its storage directory with Kafka's StorageTool (`--standalone`),
  - starts `kafka.Kafka` and waits until it answers ApiVersions and its
    group coordinator answers FindCoordinator (a real request each time,
    never a sleep),
  - records the time from exec to ready and the broker's RSS,
  - and at the end stops it (SIGTERM, then SIGKILL after a deadline) and
    removes its directory.

Used as:

    with ReferenceKafka("name", {"group.max.size": "3"}) as ref:
        ref.port, ref.bootstrap, ref.ready_s, ref.rss_kib()

Kafka's own defaults apply to every property not given; the settings the
conformance suite gives both brokers are in tests/conformance/profiles.py.
"""

import hashlib
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
POM = os.path.join(HERE, "pom.xml")
KAFKA_VERSION = "4.4.0"

# Generous: the first JVM start on a loaded 2-core machine is slow.
START_DEADLINE_S = 180.0
STOP_DEADLINE_S = 60.0

# The broker's heap: Kafka's scripts give 1 GiB; a test broker needs less.
HEAP = os.environ.get("KC_REFERENCE_HEAP", "-Xms256m -Xmx768m")

# Settings every reference broker needs to run as a single node.
SINGLE_NODE = {
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "default.replication.factor": "1",
    "min.insync.replicas": "1",
    "num.network.threads": "2",
    "num.io.threads": "4",
    "log.flush.interval.messages": "9223372036854775807",
}


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    d = os.path.join(base, "kcoord")
    os.makedirs(d, exist_ok=True)
    return d


def classpath():
    """The reference's classpath (a ':'-joined list of jar paths).

    Cached per content of pom.xml; Maven runs offline first and goes to
    Maven Central only when the local repository lacks a jar. Raises
    RuntimeError with Maven's output when it cannot resolve."""
    cp = os.environ.get("KC_REFERENCE_CLASSPATH")
    if cp:
        return cp
    with open(POM, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    cache = os.path.join(_cache_dir(), "reference-%s.classpath" % digest)
    try:
        with open(cache, encoding="utf-8") as f:
            cp = f.read().strip()
        if cp and all(os.path.exists(p) for p in cp.split(":")):
            return cp
    except OSError:
        pass
    out = cache + ".tmp"
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError("Maven (mvn) is not installed: run scripts/deps.sh all")
    last = None
    for offline in (True, False):
        cmd = [mvn, "-B", "-q", "-f", POM, "dependency:build-classpath",
               "-Dmdep.outputFile=" + out]
        if offline:
            cmd.insert(1, "-o")
        else:
            sys.stderr.write("reference: downloading Kafka %s and its dependencies with Maven"
                             " (about 150 MB into the local Maven repository, once)\n"
                             % KAFKA_VERSION)
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=1800)
        if p.returncode == 0:
            with open(out, encoding="utf-8") as f:
                cp = f.read().strip()
            os.replace(out, cache)
            return cp
        last = p.stdout.decode("utf-8", "replace")
    raise RuntimeError("Maven could not resolve Kafka %s:\n%s" % (KAFKA_VERSION, last[-4000:]))


def jar(name_prefix):
    """Path of the first classpath jar whose file name starts with name_prefix
    (e.g. "kafka-clients-")."""
    for p in classpath().split(":"):
        if os.path.basename(p).startswith(name_prefix):
            return p
    raise RuntimeError("no %s*.jar on the reference classpath" % name_prefix)


def java():
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    j = shutil.which("java")
    if j is None:
        raise RuntimeError("no java on PATH: run scripts/deps.sh all")
    return j


def random_cluster_id():
    """A cluster id as Kafka's Uuid prints one: 16 random bytes in URL-safe
    base64 without padding."""
    import base64
    return base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")


def _send_recv(sock, api_key, version, body, header_version, deadline):
    """One request on a raw socket; returns the response bytes after the
    correlation id (and, for header v1, its empty tag buffer)."""
    client = b"kcoord-reference"
    hdr = struct.pack(">hhih", api_key, version, 1, len(client)) + client
    if header_version >= 2:
        hdr += b"\x00"
    msg = hdr + body
    sock.sendall(struct.pack(">i", len(msg)) + msg)

    def exact(n):
        buf = b""
        while len(buf) < n:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("closed")
            buf += chunk
        return buf
    size = struct.unpack(">i", exact(4))[0]
    return exact(size)[4:]


def _coordinator_ready(port, deadline):
    """True when ApiVersions v0 answers without error and FindCoordinator v1
    for a group finds the coordinator (which makes Kafka create and load
    __consumer_offsets first)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        r = _send_recv(s, 18, 0, b"", 1, deadline)
        if struct.unpack(">h", r[:2])[0] != 0:
            return False
        key = b"kcoord-reference-ready"
        r = _send_recv(s, 10, 1, struct.pack(">h", len(key)) + key + b"\x00", 1, deadline)
        # throttle_time_ms int32, error_code int16
        if struct.unpack(">h", r[4:6])[0] != 0:
            return False
        # DescribeGroups v0 answers COORDINATOR_LOAD_IN_PROGRESS for a group
        # until the coordinator has loaded its partition.
        r = _send_recv(s, 15, 0, struct.pack(">ih", 1, len(key)) + key, 1, deadline)
        # groups array count int32, then the first group's error_code
        return struct.unpack(">h", r[4:6])[0] == 0


class ReferenceKafka:
    """One Kafka 4.4.0 broker+controller on free loopback ports.

    settings: properties for server.properties (group settings and the like)
    on top of SINGLE_NODE; node_id and cluster_id default to kcoord's
    defaults (1 and kcoord's cluster id) so both brokers name themselves
    alike."""

    def __init__(self, name, settings=None, node_id=1, cluster_id="a2Nvb3JkLWNsdXN0ZXItMQ",
                 directory=None):
        self.name = name
        self.settings = dict(settings or {})
        self.node_id = node_id
        self.cluster_id = cluster_id
        # directory: an existing directory to use (the caller removes it);
        # default a temporary one that cleanup() removes.
        self.tmp = directory or tempfile.mkdtemp(prefix="kcoord-reference-%s-" % name)
        self.port = free_port()
        self.controller_port = free_port()
        self.proc = None
        self.ready_s = None
        self.log_path = os.path.join(self.tmp, "kafka.log")
        self.keep = False

    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    def properties(self):
        props = {
            "process.roles": "broker,controller",
            "node.id": str(self.node_id),
            "controller.quorum.bootstrap.servers": "127.0.0.1:%d" % self.controller_port,
            "listeners": "PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d"
                         % (self.port, self.controller_port),
            "advertised.listeners": "PLAINTEXT://127.0.0.1:%d" % self.port,
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": os.path.join(self.tmp, "data"),
        }
        props.update(SINGLE_NODE)
        props.update(self.settings)
        return props

    def _write_files(self):
        self.config_path = os.path.join(self.tmp, "server.properties")
        with open(self.config_path, "w", encoding="utf-8") as f:
            for k, v in sorted(self.properties().items()):
                f.write("%s=%s\n" % (k, v))
        self.log4j_path = os.path.join(self.tmp, "log4j.properties")
        with open(self.log4j_path, "w", encoding="utf-8") as f:
            f.write("log4j.rootLogger=%s, file\n"
                    "log4j.appender.file=org.apache.log4j.FileAppender\n"
                    "log4j.appender.file.File=%s\n"
                    "log4j.appender.file.layout=org.apache.log4j.PatternLayout\n"
                    "log4j.appender.file.layout.ConversionPattern=[%%d] %%p %%m (%%c)%%n\n"
                    "log4j.logger.kafka=INFO\n"
                    "log4j.logger.org.apache.kafka=INFO\n"
                    % (os.environ.get("KC_REFERENCE_LOG_LEVEL", "INFO"),
                       os.path.join(self.tmp, "server.log")))

    def _jvm(self, main, *args):
        return [java()] + HEAP.split() + [
            "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true",
            "-Dlog4j.configuration=file:" + self.log4j_path,
            "-cp", classpath(), main] + list(args)

    def prepare(self):
        """Writes server.properties and formats the storage (a JVM of its
        own, timed in self.format_s); then command() starts the broker."""
        self._write_files()
        t0 = time.monotonic()
        fmt = subprocess.run(self._jvm("kafka.tools.StorageTool", "format", "--standalone",
                                       "-t", self.cluster_id, "-c", self.config_path),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=START_DEADLINE_S)
        if fmt.returncode != 0:
            raise RuntimeError("kafka-storage format failed:\n"
                               + fmt.stdout.decode("utf-8", "replace"))
        self.format_s = time.monotonic() - t0

    def command(self):
        """The broker's command line (java ... kafka.Kafka server.properties),
        to run in self.tmp once prepare() has formatted the storage."""
        return self._jvm("kafka.Kafka", self.config_path)

    def start(self):
        assert self.proc is None
        self.prepare()
        return self._launch("wb")

    def kill(self):
        """SIGKILL (the whole process group): no chance to flush anything."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.proc = None

    def restart_after_kill(self):
        """Starts the broker again on its storage (formatted already) and
        ports, and waits until it is ready, as start() does."""
        assert self.proc is None
        return self._launch("ab")

    def restart(self, kill=False):
        """Stops the broker (SIGTERM, a controlled shutdown; kill: SIGKILL)
        and starts it again on the same directory and ports, as an operator
        restarts a broker; waits until it is ready as start() does."""
        if kill:
            self.kill()
        self.stop()
        return self._launch("ab")

    def _launch(self, log_mode):
        log = open(self.log_path, log_mode)
        t1 = time.monotonic()
        try:
            self.proc = subprocess.Popen(self.command(),
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         cwd=self.tmp, start_new_session=True)
        finally:
            log.close()
        deadline = t1 + START_DEADLINE_S
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("Kafka exited with status %d during start-up:\n%s"
                                   % (self.proc.returncode, self.log_tail()))
            try:
                if _coordinator_ready(self.port, deadline):
                    break
            except (OSError, ConnectionError, struct.error):
                pass
            if time.monotonic() >= deadline:
                raise RuntimeError("Kafka was not ready within %.0fs:\n%s"
                                   % (START_DEADLINE_S, self.log_tail()))
            time.sleep(0.1)
        self.ready_s = time.monotonic() - t1
        return self

    def rss_kib(self):
        """The broker JVM's resident set in KiB (VmRSS), or None."""
        try:
            with open("/proc/%d/status" % self.proc.pid, encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except (OSError, AttributeError):
            return None
        return None

    def log_tail(self, n=6000):
        out = []
        for p in (self.log_path, os.path.join(self.tmp, "server.log")):
            try:
                with open(p, "rb") as f:
                    out.append(f.read()[-n:].decode("utf-8", "replace"))
            except OSError:
                pass
        return "\n".join(out)

    def stop(self):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=STOP_DEADLINE_S)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            self.kill()
        self.proc = None

    def cleanup(self):
        self.stop()
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            sys.stderr.write(self.log_tail())
            self.cleanup()
            raise

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and os.environ.get("KC_TEST_SHOW_LOGS"):
            sys.stderr.write(self.log_tail())
        self.cleanup()
        return False


if __name__ == "__main__":
    if sys.argv[1:] == ["--classpath"]:
        # Resolves (downloading on the first run) and prints the classpath.
        print(classpath())
        sys.exit(0)
    if sys.argv[1:2] == ["--prepare"] and len(sys.argv) >= 3:
        # `--prepare DIR [KEY=VALUE...]`, for a program that starts and times
        # the broker itself (bench/kcoord_bench.c): writes server.properties
        # into the existing directory DIR with the given settings, formats the
        # storage and prints "port N", "format_s SECONDS", then the broker's
        # command line, one argument a line, to run with DIR as working
        # directory. Stopping the broker and removing DIR are the caller's.
        settings = {}
        for kv in sys.argv[3:]:
            k, sep, v = kv.partition("=")
            if not sep or not k:
                sys.exit("reference: not KEY=VALUE: %s" % kv)
            settings[k] = v
        ref = ReferenceKafka("prepared", settings, directory=os.path.abspath(sys.argv[2]))
        try:
            ref.prepare()
            argv = ref.command()
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            sys.exit("reference: %s" % e)
        if any("\n" in a for a in argv):
            sys.exit("reference: an argument of the command line holds a newline")
        sys.stdout.write("port %d\nformat_s %.3f\n%s\n" % (ref.port, ref.format_s, "\n".join(argv)))
        sys.exit(0)
    # `python3 tests/reference/reference_kafka.py` starts one broker, prints
    # its port, start-to-ready time and RSS, and runs until interrupted.
    with ReferenceKafka("manual") as ref:
        print("Kafka %s on %s: ready in %.2f s, RSS %s KiB" %
              (KAFKA_VERSION, ref.bootstrap, ref.ready_s, ref.rss_kib()), flush=True)
        try:
            while ref.proc.poll() is None:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
