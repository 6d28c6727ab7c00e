# SPDX-License-Identifier: Apache-2.0
"""SASL on the raw wire for tests: SaslHandshake v0-1, SaslAuthenticate
v0-2, raw length-framed tokens (after a v0 handshake), and a SCRAM client
(RFC 5802) written from the RFC, independent of kcoord's code."""

import base64
import hashlib
import hmac
import os
import struct
import time

from kafka_wire import Reader, Writer, DecodeError

API_SASL_HANDSHAKE = 17
API_SASL_AUTHENTICATE = 36
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
SASL_AUTHENTICATION_FAILED = 58


def handshake(conn, mechanism, version=1):
    """Returns (error_code, [mechanisms])."""
    corr = conn.send(API_SASL_HANDSHAKE, version, Writer().string(mechanism).getvalue())
    got, r = conn.recv()
    if got != corr:
        raise DecodeError("correlation id %d, expected %d" % (got, corr))
    err = r.i16()
    mechs = r.array(lambda rr: rr.string())
    return err, mechs


def authenticate(conn, token, version=2):
    """SaslAuthenticate; returns a dict of the response."""
    flexible = version >= 2
    w = Writer()
    if flexible:
        w.compact_bytes(token).no_tags()
    else:
        w.bytes_(token)
    corr = conn.send(API_SASL_AUTHENTICATE, version, w.getvalue(), flexible=flexible)
    got, r = conn.recv(flexible_header=flexible)
    if got != corr:
        raise DecodeError("correlation id %d, expected %d" % (got, corr))
    out = {"error_code": r.i16()}
    if flexible:
        out["error_message"] = r.compact_string()
        out["auth_bytes"] = r.compact_bytes()
    else:
        out["error_message"] = r.string()
        out["auth_bytes"] = r.bytes_()
    out["session_lifetime_ms"] = r.i64() if version >= 1 else None
    if flexible:
        r.skip_tags()
    return out


def send_raw(conn, token):
    conn.sock.sendall(struct.pack(">i", len(token)) + token)


def recv_raw(conn, timeout=30.0):
    """One raw length-framed token (may be empty)."""
    deadline = time.monotonic() + timeout
    size = struct.unpack(">i", conn.recv_exact(4, deadline))[0]
    return conn.recv_exact(size, deadline) if size else b""


def plain_token(user, password, authzid=""):
    return ("%s\0%s\0%s" % (authzid, user, password)).encode()


class Scram:
    def __init__(self, mechanism, user, password):
        self.hash = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}[mechanism]
        self.user = user
        self.password = password
        self.nonce = base64.b64encode(os.urandom(18)).decode()
        self.bare = "n=%s,r=%s" % (user.replace("=", "=3D").replace(",", "=2C"), self.nonce)

    def first(self):
        return ("n,," + self.bare).encode()

    def final(self, server_first):
        sf = server_first.decode()
        attrs = dict(kv.split("=", 1) for kv in sf.split(","))
        assert attrs["r"].startswith(self.nonce), sf
        salt = base64.b64decode(attrs["s"])
        salted = hashlib.pbkdf2_hmac(self.hash().name, self.password.encode(), salt,
                                     int(attrs["i"]))
        client_key = hmac.new(salted, b"Client Key", self.hash).digest()
        stored = self.hash(client_key).digest()
        without_proof = "c=biws,r=" + attrs["r"]
        auth_message = ",".join((self.bare, sf, without_proof)).encode()
        sig = hmac.new(stored, auth_message, self.hash).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        server_key = hmac.new(salted, b"Server Key", self.hash).digest()
        self.expected_v = base64.b64encode(
            hmac.new(server_key, auth_message, self.hash).digest()).decode()
        return (without_proof + ",p=" + base64.b64encode(proof).decode()).encode()

    def check_server_final(self, server_final):
        assert server_final.decode() == "v=" + self.expected_v, server_final


def scram_login(conn, mechanism, user, password, version=2):
    """Handshake v1 then SaslAuthenticate at version; returns the last response."""
    err, _ = handshake(conn, mechanism, 1)
    assert err == 0, err
    s = Scram(mechanism, user, password)
    r = authenticate(conn, s.first(), version)
    if r["error_code"]:
        return r
    r = authenticate(conn, s.final(r["auth_bytes"]), version)
    if r["error_code"] == 0:
        s.check_server_final(r["auth_bytes"])
    return r
