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
