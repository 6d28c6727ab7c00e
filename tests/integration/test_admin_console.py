# SPDX-License-Identifier: Apache-2.0
"""The console's static files on the admin endpoint (no browser).

- GET / and GET /index.html serve the page, /console.js and /console.css
  its script and style, each with its Content-Type, Cache-Control:
  no-cache, a strong ETag (the same for / and /index.html), nosniff and a
  content security policy that allows only this origin;
- If-None-Match with the ETag answers 304 with no body;
- the page loads nothing from another origin;
- the JSON API is unchanged around it: an unknown path is still a JSON
  404, POST / is not the console, /v1/health still answers;
- the Kafka listener does not serve the console.
"""

import http.client
import json
import re
import socket

import kafka_wire as kw
from kcoord_harness import Kcoord, free_port, run


def get(port, path, method="GET", headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    h = {k.lower(): v for k, v in r.getheaders()}
    c.close()
    return r.status, h, body


def main():
    admin_port = free_port()
    with Kcoord("admin_console", {"admin.listeners": "http://127.0.0.1:%d" % admin_port}) as k:
        st, h, page = get(admin_port, "/")
        assert st == 200, st
        assert h["content-type"] == "text/html; charset=utf-8", h
        assert h["cache-control"] == "no-cache", h
        assert re.fullmatch(r'"[0-9a-f]{16}"', h["etag"]), h
        assert h["x-content-type-options"] == "nosniff", h
        csp = h["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp \
            and "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp, csp
        assert b"<title>kcoord console</title>" in page, page[:200]
        # Only relative or same-origin references: nothing from a CDN.
        assert not re.search(rb'(src|href)="(https?:)?//', page), page
        st2, h2, page2 = get(admin_port, "/index.html")
        assert st2 == 200 and page2 == page and h2["etag"] == h["etag"], (st2, h2)

        st, h304, body = get(admin_port, "/", headers={"If-None-Match": h["etag"]})
        assert st == 304 and body == b"", (st, body)
        assert h304["etag"] == h["etag"], h304
        st, _, body = get(admin_port, "/", headers={"If-None-Match": '"0000000000000000"'})
        assert st == 200 and body == page, st
        st, _, body = get(admin_port, "/", headers={"If-None-Match": "*"})
        assert st == 304 and body == b"", st

        for path, ctype, marker in (("/console.js", "text/javascript; charset=utf-8", b"EventSource"),
                                    ("/console.css", "text/css; charset=utf-8", b"timeline")):
            st, ha, body = get(admin_port, path)
            assert st == 200 and ha["content-type"] == ctype, (path, st, ha)
            assert ha["cache-control"] == "no-cache" and ha["etag"] != h["etag"], ha
            assert marker in body, path
            assert int(ha["content-length"]) == len(body), ha
            assert path.encode() in page, "the page does not load %s" % path
            # (the SVG namespace name is a name, not a load)
            rest = body.replace(b"http://www.w3.org/2000/svg", b"")
            assert b"http://" not in rest and b"https://" not in rest, \
                "%s refers to another origin" % path

        st, h404, body = get(admin_port, "/nope.html")
        assert st == 404 and h404["content-type"] == "application/json", (st, h404)
        assert json.loads(body) == {"error": "no such endpoint"}, body
        st, _, body = get(admin_port, "/", method="POST")
        assert st == 404 and json.loads(body) == {"error": "no such endpoint"}, (st, body)
        st, _, body = get(admin_port, "/v1/health")
        assert st == 200 and json.loads(body)["status"] == "ok", body

        # The Kafka listener speaks Kafka only.
        s = socket.create_connection(("127.0.0.1", k.port), timeout=30)
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        s.settimeout(30)
        try:
            got = s.recv(100)
        except OSError:
            got = b""
        s.close()
        assert not got.startswith(b"HTTP/"), got
        with kw.Conn(k.port) as c:
            assert kw.api_versions(c, 0)["error_code"] == 0


if __name__ == "__main__":
    run(main)
