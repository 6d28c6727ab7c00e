# SPDX-License-Identifier: Apache-2.0
"""A tiny client for kcoord's admin HTTP endpoint (stdlib only)."""

import json
import urllib.error
import urllib.request


class Admin:
    def __init__(self, port, host="127.0.0.1"):
        self.base = "http://%s:%d" % (host, port)

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def json(self, method, path, body=None, expect=200):
        status, text = self.request(method, path, body)
        assert status == expect, (method, path, status, text)
        return json.loads(text)

    def add_fault(self, **spec):
        return self.json("POST", "/v1/faults", spec, expect=201)

    def faults(self):
        return self.json("GET", "/v1/faults")

    def clear_faults(self):
        return self.json("DELETE", "/v1/faults")

    def group(self, group_id):
        return self.json("GET", "/v1/groups/" + urllib.request.quote(group_id, safe=""))

    def metrics(self):
        status, text = self.request("GET", "/metrics")
        assert status == 200, (status, text)
        return text

    def requests_by_version(self, api):
        """{version: count} of the requests of the API named api (as
        kcoord_requests_total names it) handled since kcoord started."""
        fam = parse_prometheus(self.metrics())["kcoord_requests_total"]
        return {int(lab["version"]): v for _, lab, v in fam["samples"] if lab["api"] == api}


HELD_DEADLINE_S = 120.0


def kill_with_response_held(k, admin, api_key, start):
    """SIGKILLs and restarts k (a kcoord_harness.Kcoord) once the next
    request of api_key that start() makes it send was handled, its
    response delayed (a delay fault) and so never sent."""
    from kcoord_harness import wait_for
    admin.add_fault(type="delay", api_key=api_key, delay_ms=600000, count=1)
    start()
    wait_for(lambda: not admin.faults()["faults"], HELD_DEADLINE_S, "API %d handled" % api_key)
    k.kill()
    k.start()


def kill_with_request_queued(k, admin, api_name, start, before_kill=None):
    """SIGKILLs and restarts k once a request of the API named api_name
    that start() makes it send is queued unhandled by a stall; calls
    before_kill() just before the kill. Returns what k logged from start()
    to the kill."""
    from kcoord_harness import wait_for
    admin.add_fault(type="stall", duration_ms=600000)
    at = k.stderr_size()
    start()
    wait_for(lambda: "%s request from connection" % api_name in k.stderr_since(at),
             HELD_DEADLINE_S, "the %s queued" % api_name)
    if before_kill:
        before_kill()
    logged = k.stderr_since(at)
    k.kill()
    k.start()
    return logged


_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"'


def parse_prometheus(text):
    """Parses the Prometheus text exposition format (version 0.0.4) strictly.

    Returns {family: {"type", "help", "samples": [(name, {label: value}, float)]}}.
    Raises AssertionError on anything the format does not allow: a sample
    before its family's TYPE or outside it, a family split in two, a repeated
    series, a bad name, label or value, histogram buckets that are not
    cumulative or whose +Inf bucket differs from _count."""
    import math
    import re
    families, order, seen = {}, [], set()
    current = None
    assert text.endswith("\n"), "the exposition must end with a newline"
    for n, line in enumerate(text.split("\n")[:-1], 1):
        where = "line %d: %r" % (n, line)
        if line.startswith("#"):
            m = re.fullmatch(r"# (HELP|TYPE) (%s) (.*)" % _NAME, line)
            assert m, where
            kind, name, rest = m.groups()
            fam = families.setdefault(name, {"type": None, "help": None, "samples": []})
            if name not in order:
                order.append(name)
            assert not fam["samples"], "%s: %s after the family's samples" % (where, kind)
            if kind == "TYPE":
                assert fam["type"] is None, "%s: second TYPE" % where
                assert rest in ("counter", "gauge", "histogram", "summary", "untyped"), where
                fam["type"] = rest
            else:
                assert fam["help"] is None, "%s: second HELP" % where
                fam["help"] = rest
            current = name
            continue
        assert line.strip(), "%s: empty line" % where
        m = re.fullmatch(r"(%s)(?:\{(.*)\})? (\S+)(?: -?\d+)?" % _NAME, line)
        assert m, where
        name, labels_text, value = m.groups()
        labels = {}
        if labels_text:
            pos = 0
            while pos < len(labels_text):
                lm = re.compile(_LABEL).match(labels_text, pos)
                assert lm, "%s: bad label at %d" % (where, pos)
                assert lm.group(1) not in labels, "%s: repeated label" % where
                labels[lm.group(1)] = lm.group(2)
                pos = lm.end()
                if pos < len(labels_text):
                    assert labels_text[pos] == ",", where
                    pos += 1
        v = float(value)  # accepts +Inf, -Inf, NaN
        assert current is not None, "%s: sample before any TYPE" % where
        fam = families[current]
        base = current
        if fam["type"] == "histogram":
            assert name in (base + "_bucket", base + "_sum", base + "_count"), where
        elif fam["type"] == "summary":
            assert name in (base, base + "_sum", base + "_count"), where
        else:
            assert name == base, "%s: outside family %s" % (where, base)
        key = (name, tuple(sorted(labels.items())))
        assert key not in seen, "%s: repeated series" % where
        seen.add(key)
        assert not math.isnan(v) or fam["type"] in ("gauge", "untyped"), where
        fam["samples"].append((name, labels, v))
    for name, fam in families.items():
        assert fam["type"] is not None, "%s has no TYPE" % name
        if fam["type"] == "counter":
            assert all(v >= 0 for _, _, v in fam["samples"]), name
        if fam["type"] == "histogram":
            series = {}
            for sname, labels, v in fam["samples"]:
                rest = tuple(sorted((k, x) for k, x in labels.items() if k != "le"))
                series.setdefault(rest, {"buckets": [], "sum": None, "count": None})
                if sname.endswith("_bucket"):
                    series[rest]["buckets"].append((float(labels["le"]), v))
                elif sname.endswith("_sum"):
                    series[rest]["sum"] = v
                else:
                    series[rest]["count"] = v
            for rest, h in series.items():
                b = h["buckets"]
                assert b and b[-1][0] == math.inf, "%s: no +Inf bucket" % name
                assert [x for x, _ in b] == sorted(x for x, _ in b), "%s: le not sorted" % name
                assert all(b[i][1] <= b[i + 1][1] for i in range(len(b) - 1)), \
                    "%s: buckets not cumulative" % name
                assert h["count"] == b[-1][1] and h["sum"] is not None, name
    return families
