# SPDX-License-Identifier: Apache-2.0
"""The differential conformance suite: scenarios run against kcoord and
against Apache Kafka 4.4.0, their transcripts compared field by field.

A scenario is a function of a `Ctx`, registered with `@scenario`:

    @scenario("classic.join.member_id_required", covers="JoinGroup v4+: an
              unknown member joining with an empty member id gets
              MEMBER_ID_REQUIRED and a member id", api="JoinGroup", versions=(4, None))
    def _(ctx):
        c = ctx.client()
        r = c.call("JoinGroup", ctx.version, {"GroupId": ctx.group(), ...})

Every `call` (and every `send`/`wait` pair of a request that parks) adds
the request and its decoded response to the scenario's transcript, on both
brokers. A scenario with `api=` and `versions=` runs once per version of
that API in the range that both brokers serve (`ctx.version`); one without
runs once. Names from `ctx.group()`/`ctx.topic()` are unique per scenario
and the same on both brokers, which start empty for each run.

The transcripts are normalised (`normalise`) and compared (`diff`); a
difference passes only when tests/conformance/allowlist.json lists it with
its reason. `restartable=True` scenarios run a third time against a kcoord
that is SIGKILLed and restarted at each `ctx.restart_point()`; that
transcript must equal the first kcoord one.

Nothing here sleeps to wait for a broker: `ctx.wait_until` polls a
condition with unrecorded requests until it holds or a generous deadline
passes.
"""

import fnmatch
import json
import os
import re
import socket
import struct
import sys
import threading
import time

import kafka_messages

HERE = os.path.dirname(os.path.abspath(__file__))

# Both brokers fail a step that takes longer than this (a parked JoinGroup
# waits for its rebalance; a loaded machine is slow).
CALL_TIMEOUT_S = 60.0
WAIT_TIMEOUT_S = 60.0


class ScenarioError(AssertionError):
    """A scenario could not run as written (the scenario's fault or a broker
    that does not answer); reported as a failure of that scenario."""


# ---------------------------------------------------------------- registry

class Scenario:
    def __init__(self, sid, fn, covers, api, versions, profile, restartable):
        self.id = sid
        self.fn = fn
        self.covers = covers
        self.api = api
        self.versions = versions
        self.profile = profile
        self.restartable = restartable

    def cases(self, both_ranges):
        """[(case id, version or None)] for the versions both brokers serve."""
        if self.api is None:
            return [(self.id, None)]
        rng = both_ranges.get(self.api)
        if rng is None:
            return []
        lo, hi = rng
        want_lo, want_hi = self.versions if self.versions else (None, None)
        if want_lo is not None:
            lo = max(lo, want_lo)
        if want_hi is not None:
            hi = min(hi, want_hi)
        return [("%s@v%d" % (self.id, v), v) for v in range(lo, hi + 1)]


SCENARIOS = []


def scenario(sid, covers, api=None, versions=None, profile="default", restartable=False):
    """Registers a scenario. sid: dotted id, unique ("classic.join.static_
    replacement"). covers: one sentence naming what it checks. api/versions:
    run once per version of `api` in [lo, hi] (None = no bound) that both
    brokers serve. profile: the broker settings it needs (profiles.py)."""
    def deco(fn):
        if any(s.id == sid for s in SCENARIOS):
            raise ValueError("duplicate scenario id %s" % sid)
        SCENARIOS.append(Scenario(sid, fn, covers, api, versions, profile, restartable))
        return fn
    return deco


# ---------------------------------------------------------------- clients

class Closed(Exception):
    pass


class Client:
    """One connection to one broker. Requests are encoded from Kafka's specs;
    responses decoded the same way. Connects lazily, so a restart point only
    needs the socket dropped."""

    def __init__(self, ctx, label, client_id):
        self.ctx = ctx
        self.label = label
        self.client_id = client_id
        self.sock = None
        self.corr = 0
        self.pending = {}  # correlation id -> (api, version, transcript entry)
        self.buffered = {}  # correlation id -> payload read while waiting for another

    def _connect(self):
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.ctx.broker.port), timeout=10)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def drop(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        self.pending.clear()
        self.buffered.clear()

    close = drop

    def _send(self, api, version, body):
        specs = self.ctx.specs
        key = specs.api_key(api)
        self._connect()
        self.corr += 1
        payload = (specs.encode_request_header(key, version, self.corr, self.client_id)
                   + specs.encode_request(key, version, body))
        try:
            self.sock.sendall(struct.pack(">i", len(payload)) + payload)
        except OSError as e:
            raise Closed(str(e))
        return self.corr

    def _exact(self, n, deadline):
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer within the deadline")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(n - len(buf))
            except socket.timeout:
                continue
            except OSError as e:
                raise Closed(str(e))
            if not chunk:
                raise Closed("closed by the broker")
            buf += chunk
        return buf

    def _recv(self, corr, timeout):
        if corr in self.buffered:
            return self.buffered.pop(corr)
        deadline = time.monotonic() + timeout
        while True:
            size = struct.unpack(">i", self._exact(4, deadline))[0]
            frame = self._exact(size, deadline)
            got = struct.unpack(">i", frame[:4])[0]
            if got == corr:
                return frame[4:]
            self.buffered[got] = frame[4:]

    def send(self, api, version, body, record=True):
        """Sends a request without waiting; returns a handle for `wait`.
        The transcript keeps the request at the position of the send."""
        entry = self.ctx._record_request(self, api, version, body) if record else None
        try:
            corr = self._send(api, version, body)
        except Closed as e:
            if entry is not None:
                entry["response"] = {"_closed": True}
            raise ScenarioError("%s: connection closed on send (%s)" % (self.label, e))
        return (corr, api, version, entry)

    def wait(self, handle, timeout=CALL_TIMEOUT_S):
        corr, api, version, entry = handle
        try:
            payload = self._recv(corr, timeout)
        except Closed:
            if entry is not None:
                entry["response"] = {"_closed": True}
            self.drop()
            return None
        resp = self.ctx.specs.decode_response(api, version, payload)
        if entry is not None:
            entry["response"] = resp
        return resp

    def call(self, api, version, body, record=True, timeout=CALL_TIMEOUT_S):
        """Sends one request and returns its decoded response (None if the
        broker closed the connection, which the transcript records)."""
        return self.wait(self.send(api, version, body, record=record), timeout)

    def ready(self, handle, timeout):
        """True when the response to `handle` arrives within timeout (it is
        then kept for `wait`). A parked request is seen as not ready."""
        corr = handle[0]
        if corr in self.buffered:
            return True
        try:
            self.buffered[corr] = self._recv(corr, timeout)
            return True
        except TimeoutError:
            return False


# ---------------------------------------------------------------- brokers

class Broker:
    """One side of a run: kind ("kcoord" or "kafka"), port, the version
    ranges it serves, how the restart run restarts it (kcoord only), and
    how a scenario restarts it on both sides (relaunch(kill): SIGTERM, or
    SIGKILL with kill, then a start on the same data)."""

    def __init__(self, kind, port, restart=None, relaunch=None):
        self.kind = kind
        self.port = port
        self.restart = restart
        self.relaunch = relaunch
        self.ranges = {}


# ---------------------------------------------------------------- context

class Ctx:
    def __init__(self, sc, version, broker, specs, restart_run=False):
        self.scenario = sc
        self.version = version
        self.broker = broker
        self.specs = specs
        self.restart_run = restart_run
        self.transcript = []
        self.clients = []
        self.notes = []
        self.restarts = 0
        self.slug = sc.id if version is None else "%s.v%d" % (sc.id, version)

    # names -------------------------------------------------------------
    def group(self, label="g"):
        return "%s.%s" % (self.slug, label)

    def topic(self, label="t"):
        # Topic names allow [a-zA-Z0-9._-] and at most 249 characters.
        return re.sub(r"[^a-zA-Z0-9._-]", "_", "%s.%s" % (self.slug, label))[:200]

    # connections ---------------------------------------------------------
    def client(self, label=None, client_id="kcoord-conformance"):
        c = Client(self, label or "c%d" % (len(self.clients) + 1), client_id)
        self.clients.append(c)
        return c

    def _record_request(self, client, api, version, body):
        entry = {"step": len(self.transcript) + 1, "conn": client.label,
                 "api": self.specs.api_name(self.specs.api_key(api)), "version": version,
                 "request": body, "response": None}
        self.transcript.append(entry)
        return entry

    def note(self, text, value=None):
        """Adds a fact the scenario computed (compared like a response)."""
        self.transcript.append({"step": len(self.transcript) + 1, "note": text, "value": value})

    def api_range(self, api):
        """The version range of `api` both brokers serve, or None."""
        return self.ranges.get(api)

    # waiting ------------------------------------------------------------
    def wait_until(self, cond, what, timeout=WAIT_TIMEOUT_S, interval=0.05):
        """Polls cond() until it returns a truthy value (returned). Requests
        made inside should pass record=False."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            try:
                v = cond()
                if v:
                    return v
            except (ScenarioError, Closed, TimeoutError) as e:
                last = e
            if time.monotonic() >= deadline:
                raise ScenarioError("timed out after %.0fs waiting for %s on %s%s"
                                    % (timeout, what, self.broker.kind,
                                       " (last: %r)" % (last,) if last else ""))
            time.sleep(interval)

    def restart_broker(self, kill=False):
        """Restarts the broker of this run, kcoord and Kafka alike: a
        SIGTERM (kill: a SIGKILL), then a start on the same data directory
        and port, waiting until it is ready. Only in a profile of
        profiles.SERIAL, whose cases run one at a time. Connections are
        dropped (they reconnect lazily)."""
        if self.broker.relaunch is None or self.restart_run:
            raise ScenarioError("restart_broker outside a run that can restart its broker")
        for c in self.clients:
            c.drop()
        self.broker.relaunch(kill)

    def restart_point(self):
        """A step boundary where the restart run SIGKILLs and restarts
        kcoord; a no-op in the other runs. Parked requests must not span it."""
        if not self.restart_run:
            return
        for c in self.clients:
            c.drop()
        self.broker.restart()
        self.restarts += 1


# ---------------------------------------------------------------- normalising

UUID36 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
UUID22 = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])")
# Fields whose strings hold ids a broker generates.
ID_FIELDS = re.compile(r"(MemberId|LeaderId|Leader|MemberIds|TransactionalId|ProcessId)$")
TIME_FIELDS = re.compile(r"(Timestamp|TimestampMs|LastUpdate|CommitTimestamp|StartTimeMs)$")
# Fields holding producer ids, which each broker allocates in its own order.
PRODUCER_ID_FIELDS = re.compile(r"ProducerIds?(Filters)?$")


class Normaliser:
    """Maps broker-generated values to numbered placeholders that keep their
    shape: a UUID inside a string becomes <uuid36:N>, a 22-character Kafka
    Uuid in an id field <uuid22:N>, a topic id <topic-id:N>; the numbering is
    per transcript in order of first appearance, so "the same id again" is
    still compared. A producer id becomes <producer-id:N> the same way. The
    broker's own port becomes <port>, timestamps <timestamp>."""

    def __init__(self, port):
        self.port = port
        self.ids = {}

    def _id(self, kind, value):
        key = (kind, value)
        if key not in self.ids:
            self.ids[key] = "<%s:%d>" % (kind, sum(1 for k in self.ids if k[0] == kind) + 1)
        return self.ids[key]

    def string(self, s, field):
        s = UUID36.sub(lambda m: self._id("uuid36", m.group(0)), s)
        if field and ID_FIELDS.search(field):
            s = UUID22.sub(lambda m: self._id("uuid22", m.group(0)), s)
        else:
            # A generated id already seen in an id field, quoted in a message.
            for m in set(UUID22.findall(s)):
                if ("uuid22", m) in self.ids:
                    s = s.replace(m, self.ids[("uuid22", m)])
        return s

    def value(self, v, field=None):
        if isinstance(v, dict):
            return {k: self.value(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, field) for x in v]
        if isinstance(v, str):
            return self.string(v, field)
        if isinstance(v, (bytes, bytearray)):
            if field and field.endswith("Id") and len(v) == 16:
                return "<topic-id:zero>" if not any(v) else self._id("topic-id", bytes(v))
            return "0x" + bytes(v).hex()
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, int):
            if field == "Port" and v == self.port:
                return "<port>"
            if field and TIME_FIELDS.search(field) and v > 10 ** 12:
                return "<timestamp>"
            if field and PRODUCER_ID_FIELDS.search(field) and v >= 0:
                return self._id("producer-id", v)
            return v
        return v


# Responses whose member lists follow a hash map of generated member ids (a
# classic group's members): their order differs between two brokers as the
# ids do, so they are compared sorted by normalised member id.
UNORDERED_MEMBERS = {"JoinGroup", "DescribeGroups"}


def _sort_members(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if (k == "Members" and isinstance(x, list)
                    and all(isinstance(m, dict) and "MemberId" in m for m in x)):
                x.sort(key=lambda m: str(m["MemberId"]))
            _sort_members(x)
    elif isinstance(v, list):
        for x in v:
            _sort_members(x)


def _without_members(v):
    if isinstance(v, dict):
        return {k: _without_members(x) for k, x in v.items() if k != "Members"}
    if isinstance(v, list):
        return [_without_members(x) for x in v]
    return v


def normalise(transcript, port):
    n = Normaliser(port)
    # Number the ids first as met outside those member lists, so that an
    # id first seen in one does not take its number from the list's order.
    for e in transcript:
        if e.get("api") in UNORDERED_MEMBERS and isinstance(e.get("response"), dict):
            n.value(dict(e, response=_without_members(e["response"])))
        else:
            n.value(e)
    out = [n.value(e) for e in transcript]
    for e in out:
        if e.get("api") in UNORDERED_MEMBERS and isinstance(e.get("response"), dict):
            _sort_members(e["response"])
    return out


def diff(a, b, path=""):
    """[(path, a value, b value)] where the normalised transcripts differ."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a.keys()) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                out.append(("%s.%s" % (path, k), a.get(k, "<absent>"), b.get(k, "<absent>")))
            else:
                out += diff(a[k], b[k], "%s.%s" % (path, k))
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                out.append(("%s[%d]" % (path, i), a[i] if i < len(a) else "<absent>",
                            b[i] if i < len(b) else "<absent>"))
            else:
                out += diff(a[i], b[i], "%s[%d]" % (path, i))
    elif a != b or type(a) is not type(b):
        out.append((path, a, b))
    return out


# ---------------------------------------------------------------- allowlist

class Allowlist:
    """tests/conformance/allowlist.json: a list of {"scenario": glob over case
    ids, "path": regex over difference paths, "reason": why the difference
    is deliberate}. An entry with "open": true is a known kcoord difference
    not fixed yet (docs/conformance.md lists those apart). An entry that
    matches nothing in a full run is reported as stale."""

    def __init__(self, path=os.path.join(HERE, "allowlist.json")):
        with open(path, encoding="utf-8") as f:
            self.entries = json.load(f)
        for e in self.entries:
            if not e.get("reason") or not e.get("scenario") or not e.get("path"):
                raise ValueError("allowlist entry without scenario, path or reason: %r" % (e,))
            e["_re"] = re.compile(e["path"])
            e["_used"] = 0

    def match(self, case_id, path):
        for e in self.entries:
            if fnmatch.fnmatchcase(case_id, e["scenario"]) and e["_re"].search(path):
                e["_used"] += 1
                return e
        return None


# ---------------------------------------------------------------- running

def run_case(sc, version, broker, specs, ranges, restart_run=False):
    """Runs one case against one broker; returns (transcript, error text)."""
    ctx = Ctx(sc, version, broker, specs, restart_run)
    ctx.ranges = ranges
    err = None
    try:
        sc.fn(ctx)
    except ScenarioError as e:
        err = str(e)
    except kafka_messages.CodecError as e:
        err = "decoding failed: %s" % e
    except Exception as e:  # a scenario bug or a broker that stopped answering
        import traceback
        err = "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc(limit=4))
    finally:
        for c in ctx.clients:
            c.drop()
    return ctx.transcript, err


def versions_served(port, specs):
    """{api name: (lo, hi)} from an ApiVersions v3 answer."""
    c = Client(type("C", (), {"broker": Broker("x", port), "specs": specs,
                              "_record_request": None})(), "versions", "kcoord-conformance")
    try:
        r = c.call("ApiVersions", 3, {"ClientSoftwareName": "kcoord-conformance",
                                      "ClientSoftwareVersion": "1"}, record=False)
    finally:
        c.drop()
    out = {}
    for k in r["ApiKeys"]:
        out[specs.api_name(k["ApiKey"])] = (k["MinVersion"], k["MaxVersion"])
    return out


def intersect(a, b):
    out = {}
    for api, (lo, hi) in a.items():
        if api in b:
            lo2, hi2 = b[api]
            if max(lo, lo2) <= min(hi, hi2):
                out[api] = (max(lo, lo2), min(hi, hi2))
    return out


def load_scenarios():
    import importlib
    d = os.path.join(HERE, "scenarios")
    sys.path.insert(0, d)
    for name in sorted(os.listdir(d)):
        if name.startswith("s_") and name.endswith(".py"):
            importlib.import_module(name[:-3])
    return SCENARIOS
