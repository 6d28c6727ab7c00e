# SPDX-License-Identifier: Apache-2.0
"""SASL on the raw wire, against Kafka's SaslServerAuthenticator.

Credentials come from a file made with `kcoord scram-credential` (salted,
no password in it). On a SASL_PLAINTEXT listener:
- a request other than ApiVersions/SaslHandshake before authentication
  closes the connection, logged; ApiVersions is answered once;
- an unknown mechanism: UNSUPPORTED_SASL_MECHANISM with the enabled list,
  then the connection is closed;
- PLAIN through SaslAuthenticate v0, v1 and v2; SCRAM-SHA-256 and -512
  through SaslAuthenticate and as raw tokens after SaslHandshake v0;
- a wrong password: SASL_AUTHENTICATION_FAILED with Kafka's message, a
  "Failed authentication" log line, the connection closed;
- after authentication SaslHandshake / SaslAuthenticate get
  ILLEGAL_SASL_STATE (no re-authentication without a session lifetime);
- KIP-368 with connections.max.reauth.ms: SessionLifetimeMs in the response,
  re-authentication on the same connection, another user refused, and a
  request after the session expired closes the connection.
"""

import os
import shutil
import subprocess
import tempfile
import time

import kafka_wire
import sasl_wire as sw
from kcoord_harness import Kcoord, free_port, run, wait_for

PASSWORDS = {"alice": "alice-secret", "bob": "bob-secret"}


def make_credentials(binary, path):
    lines = []
    for user, mechs in (("alice", []), ("bob", ["--mechanism", "SCRAM-SHA-512"])):
        out = subprocess.run([binary, "scram-credential"] + mechs + ["--iterations", "4096", user],
                             input=PASSWORDS[user] + "\n", capture_output=True, text=True,
                             check=True).stdout
        lines.append(out)
    text = "# kcoord SASL credentials\n" + "".join(lines)
    assert "secret" not in text, text
    with open(path, "w") as f:
        f.write(text)
    return text


def metadata_ok(c):
    c.send(kafka_wire.API_METADATA, 1, kafka_wire.metadata_v1_body([]))
    _, r = c.recv()
    return kafka_wire.decode_metadata_v1(r)


def check_exchanges(k, sasl_port):
    # Metadata before authentication: closed and logged.
    off = k.stderr_size()
    with kafka_wire.Conn(sasl_port) as c:
        c.send(kafka_wire.API_METADATA, 1, kafka_wire.metadata_v1_body([]))
        assert c.wait_closed(30)
    text = wait_for(lambda: (lambda t: t if "during SASL handshake" in t else "")(
        k.stderr_since(off)), 30, "the closed connection logged")
    assert "Unexpected Kafka request of type METADATA during SASL handshake." in text, text

    # ApiVersions then an unknown mechanism.
    with kafka_wire.Conn(sasl_port) as c:
        resp = c.call(lambda: c.send(kafka_wire.API_API_VERSIONS, 0,
                                     kafka_wire.api_versions_body(0)),
                      lambda: c.recv())
        av = kafka_wire.decode_api_versions(resp, 0)
        assert av["error_code"] == 0
        assert av["api_keys"][17] == (0, 1) and av["api_keys"][36] == (0, 2), av
        err, mechs = sw.handshake(c, "GSSAPI")
        assert err == sw.UNSUPPORTED_SASL_MECHANISM, err
        assert mechs == ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"], mechs
        assert c.wait_closed(30)

    # PLAIN through SaslAuthenticate v0, v1, v2.
    for v in (0, 1, 2):
        with kafka_wire.Conn(sasl_port) as c:
            err, _ = sw.handshake(c, "PLAIN", 1)
            assert err == 0
            r = sw.authenticate(c, sw.plain_token("alice", PASSWORDS["alice"]), v)
            assert r["error_code"] == 0, r
            assert r["auth_bytes"] == b""
            assert r["session_lifetime_ms"] == (0 if v else None), r
            assert metadata_ok(c)["brokers"][0]["port"] == sasl_port
            # Authenticated: another exchange is an illegal state (KafkaApis).
            err, mechs = sw.handshake(c, "PLAIN", 1)
            assert err == sw.ILLEGAL_SASL_STATE and mechs == [], (err, mechs)
            r = sw.authenticate(c, b"x", v)
            assert r["error_code"] == sw.ILLEGAL_SASL_STATE
            assert r["error_message"] == ("SaslAuthenticate request received after "
                                          "successful authentication"), r

    # SCRAM through SaslAuthenticate, both hashes.
    for mech, user in (("SCRAM-SHA-256", "alice"), ("SCRAM-SHA-512", "alice"),
                       ("SCRAM-SHA-512", "bob")):
        with kafka_wire.Conn(sasl_port) as c:
            r = sw.scram_login(c, mech, user, PASSWORDS[user], 2)
            assert r["error_code"] == 0, (mech, user, r)
            metadata_ok(c)

    # Raw tokens after SaslHandshake v0 (as kafka-python sends them).
    with kafka_wire.Conn(sasl_port) as c:
        assert sw.handshake(c, "SCRAM-SHA-256", 0)[0] == 0
        s = sw.Scram("SCRAM-SHA-256", "alice", PASSWORDS["alice"])
        sw.send_raw(c, s.first())
        sw.send_raw(c, s.final(sw.recv_raw(c)))
        s.check_server_final(sw.recv_raw(c))
        metadata_ok(c)
    with kafka_wire.Conn(sasl_port) as c:
        assert sw.handshake(c, "PLAIN", 0)[0] == 0
        sw.send_raw(c, sw.plain_token("bob", PASSWORDS["bob"]))
        assert sw.recv_raw(c) == b""  # success is an empty token
        metadata_ok(c)
    # A wrong password as a raw token: no Kafka framing, just closed.
    with kafka_wire.Conn(sasl_port) as c:
        assert sw.handshake(c, "PLAIN", 0)[0] == 0
        sw.send_raw(c, sw.plain_token("bob", "nope"))
        assert c.wait_closed(30)

    # Malformed tokens: Kafka's messages, closed; a truncated request: closed.
    for mech, token, message in (
            ("PLAIN", b"alice\0secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 2"),
            ("PLAIN", b"bob\0alice\0" + PASSWORDS["alice"].encode(),
             "Authentication failed: Client requested an authorization id that is different "
             "from username"),
            ("PLAIN", b"\0\0x", "Authentication failed: username not specified"),
            ("SCRAM-SHA-256", b"\xff\x00garbage",
             "Authentication failed during authentication due to invalid credentials with SASL "
             "mechanism SCRAM-SHA-256")):
        with kafka_wire.Conn(sasl_port) as c:
            assert sw.handshake(c, mech, 1)[0] == 0
            r = sw.authenticate(c, token, 2)
            assert r["error_code"] == sw.SASL_AUTHENTICATION_FAILED, r
            assert r["error_message"] == message, r
            assert c.wait_closed(30)
    with kafka_wire.Conn(sasl_port) as c:
        assert sw.handshake(c, "PLAIN", 1)[0] == 0
        c.send(sw.API_SASL_AUTHENTICATE, 1, b"\x00\x00\x01")  # bytes length 256, 1 byte
        assert c.wait_closed(30)
    # A Kafka request in place of SaslAuthenticate: its own error response
    # carrying ILLEGAL_SASL_STATE, then closed.
    with kafka_wire.Conn(sasl_port) as c:
        assert sw.handshake(c, "PLAIN", 1)[0] == 0
        c.send(kafka_wire.API_FIND_COORDINATOR, 1, kafka_wire.find_coordinator_body("g"))
        _, r = c.recv()
        assert r.i32() == 0 and r.i16() == sw.ILLEGAL_SASL_STATE
        assert c.wait_closed(30)

    # Wrong passwords through SaslAuthenticate: Kafka's messages, logged, closed.
    cases = (
        ("PLAIN", "alice", "Authentication failed: Invalid username or password"),
        ("SCRAM-SHA-256", "alice", "Authentication failed during authentication due to invalid "
                                   "credentials with SASL mechanism SCRAM-SHA-256"),
        ("SCRAM-SHA-256", "bob", "Authentication failed during authentication due to invalid "
                                 "credentials with SASL mechanism SCRAM-SHA-256"),
        ("SCRAM-SHA-512", "mallory", "Authentication failed during authentication due to "
                                     "invalid credentials with SASL mechanism SCRAM-SHA-512"),
    )
    for mech, user, message in cases:
        off = k.stderr_size()
        with kafka_wire.Conn(sasl_port) as c:
            t0 = time.monotonic()
            if mech == "PLAIN":
                assert sw.handshake(c, "PLAIN", 1)[0] == 0
                r = sw.authenticate(c, sw.plain_token(user, "wrong-password"), 1)
            else:
                r = sw.scram_login(c, mech, user, "wrong-password", 1)
            # connection.failed.authentication.delay.ms is 300 in this test.
            assert time.monotonic() - t0 >= 0.25
            assert r["error_code"] == sw.SASL_AUTHENTICATION_FAILED, r
            assert r["error_message"] == message, r
            assert c.wait_closed(30)
        text = wait_for(lambda: (lambda t: t if "Failed authentication" in t else "")(
            k.stderr_since(off)), 30, "the failure logged")
        assert "Failed authentication with /127.0.0.1" in text and user in text, text


def check_reauthentication(binary, creds):
    sasl_port = free_port()
    k = Kcoord("sasl-reauth")
    k.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d" % (k.port, sasl_port),
        "sasl.credentials.file": creds, "connections.max.reauth.ms": "3000"})
    with k:
        with kafka_wire.Conn(sasl_port) as c:
            r = sw.scram_login(c, "SCRAM-SHA-512", "alice", PASSWORDS["alice"], 1)
            assert r["error_code"] == 0 and r["session_lifetime_ms"] == 3000, r
            t_auth = time.monotonic()
            metadata_ok(c)
            # Re-authenticate within the session (at least a second after the start).
            wait_for(lambda: time.monotonic() - t_auth > 1.2, 10, "a second to pass")
            r = sw.scram_login(c, "SCRAM-SHA-512", "alice", PASSWORDS["alice"], 2)
            assert r["error_code"] == 0 and r["session_lifetime_ms"] == 3000, r
            t_auth = time.monotonic()
            metadata_ok(c)
            # Let this session expire: the next request closes the connection.
            wait_for(lambda: time.monotonic() - t_auth > 3.5, 10, "the session to expire")
            off = k.stderr_size()
            c.send(kafka_wire.API_METADATA, 1, kafka_wire.metadata_v1_body([]))
            assert c.wait_closed(30)
            wait_for(lambda: "SASL session expired" in k.stderr_since(off), 30,
                     "the expiry logged")
        # Re-authentication as another principal is refused.
        with kafka_wire.Conn(sasl_port) as c:
            assert sw.scram_login(c, "SCRAM-SHA-512", "alice", PASSWORDS["alice"], 2)[
                "error_code"] == 0
            r = sw.scram_login(c, "SCRAM-SHA-512", "bob", PASSWORDS["bob"], 2)
            assert r["error_code"] == sw.SASL_AUTHENTICATION_FAILED, r
            assert r["error_message"] == ("Cannot change principals during re-authentication "
                                          "from User.alice: User.bob"), r
            assert c.wait_closed(30)


def main():
    tmp = tempfile.mkdtemp(prefix="kcoord-sasl-")
    try:
        k = Kcoord("sasl-wire")
        creds = os.path.join(tmp, "credentials")
        make_credentials(k.binary, creds)
        sasl_port = free_port()
        k.overrides.update({
            "listeners": "PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d"
                         % (k.port, sasl_port),
            "sasl.credentials.file": creds,
            "connection.failed.authentication.delay.ms": "300"})
        with k:
            # Requests on the PLAINTEXT listener need no authentication.
            with kafka_wire.Conn(k.port) as c:
                metadata_ok(c)
                err, _ = sw.handshake(c, "PLAIN", 1)
                assert err == sw.ILLEGAL_SASL_STATE
            check_exchanges(k, sasl_port)
        check_reauthentication(k.binary, creds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run(main)
