# SPDX-License-Identifier: Apache-2.0
"""Listeners by name and TLS.

- PLAINTEXT, SSL and a custom-named listener (mapped to SSL through
  listener.security.protocol.map) at once; Metadata and FindCoordinator
  answer with the advertised address of the listener the request came in on.
- Exact framing over TLS: requests pipelined into one TLS write are answered
  one at a time, in order (decrypted bytes of the next request wait in
  OpenSSL's buffer while a request is in flight).
- A non-TLS client on the SSL port fails the handshake, logged.
- ssl.enabled.protocols=TLSv1.3 refuses a TLS 1.2-only client.
- ssl.client.auth=required: no certificate is refused; with one the
  principal is the certificate's subject DN; a SASL_SSL listener asks for
  none (Kafka applies the broker-wide setting to SSL listeners only).
- SIGHUP reloads the key store: new connections get the new certificate,
  an established one keeps working.
- kafka-python and confluent-kafka produce and consume in a group over SSL.
"""

import os
import shutil
import signal
import ssl
import tempfile

import kafka_wire
from kcoord_harness import Kcoord, free_port, run, wait_for
from secure_clients import confluent_roundtrip, kafka_python_roundtrip
from tls_util import Pki, peer_certificate_subject, tls_conn


def metadata_broker(conn):
    resp = conn.call(lambda: conn.send(kafka_wire.API_METADATA, 1, kafka_wire.metadata_v1_body([])),
                     lambda: conn.recv())
    md = kafka_wire.decode_metadata_v1(resp)
    assert len(md["brokers"]) == 1, md
    return md["brokers"][0]["host"], md["brokers"][0]["port"]


def coordinator_address(conn):
    resp = conn.call(lambda: conn.send(kafka_wire.API_FIND_COORDINATOR, 1,
                                       kafka_wire.find_coordinator_body("g")),
                     lambda: conn.recv())
    fc = kafka_wire.decode_find_coordinator_v1(resp)
    assert fc["error_code"] == 0, fc
    return fc["host"], fc["port"]


def check_listeners_and_framing(pki, ks):
    plain, ssl_port, client_port = free_port(), free_port(), free_port()
    overrides = {
        "listeners": "PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d,CLIENT://127.0.0.1:%d"
                     % (plain, ssl_port, client_port),
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,CLIENT:SSL",
        "advertised.listeners": "PLAINTEXT://127.0.0.1:%d,SSL://localhost:%d" % (plain, ssl_port),
        "ssl.keystore.location": ks,
        "log.level": "debug",
    }
    k = Kcoord("tls-listeners", overrides=overrides)
    k.port = plain
    with k:
        ctx = pki.client_context()
        with kafka_wire.Conn(plain) as c:
            assert metadata_broker(c) == ("127.0.0.1", plain)
            assert coordinator_address(c) == ("127.0.0.1", plain)
        with tls_conn(ssl_port, ctx) as c:
            assert metadata_broker(c) == ("localhost", ssl_port)
            assert coordinator_address(c) == ("localhost", ssl_port)
        # Not advertised: the listener's own address.
        with tls_conn(client_port, ctx) as c:
            assert metadata_broker(c) == ("127.0.0.1", client_port)

        # Pipelined requests in one TLS write: each answered, in order.
        with tls_conn(ssl_port, ctx) as c:
            frames, corrs = b"", []
            for i in range(6):
                if i % 2:
                    corr, data = c.encode(kafka_wire.API_METADATA, 1,
                                          kafka_wire.metadata_v1_body([]))
                else:
                    corr, data = c.encode(kafka_wire.API_API_VERSIONS, 0,
                                          kafka_wire.api_versions_body(0))
                frames += data
                corrs.append(corr)
            c.sock.sendall(frames)
            for corr in corrs:
                got, _ = c.recv()
                assert got == corr, (got, corr)
            # A request split over several TLS records is still one request.
            corr, data = c.encode(kafka_wire.API_API_VERSIONS, 0, kafka_wire.api_versions_body(0))
            for b in data:
                c.sock.sendall(bytes([b]))
            got, _ = c.recv()
            assert got == corr

        # Plain bytes on the SSL port: the handshake fails, the broker logs it.
        off = k.stderr_size()
        with kafka_wire.Conn(ssl_port) as c:
            c.send(kafka_wire.API_API_VERSIONS, 0, kafka_wire.api_versions_body(0))
            assert c.wait_closed(30)
        wait_for(lambda: "SSL handshake failed" in k.stderr_since(off), 30,
                 "the failed handshake logged")

        kafka_python_roundtrip("127.0.0.1:%d" % ssl_port, security_protocol="SSL",
                               ssl_cafile=pki.ca)
        confluent_roundtrip("127.0.0.1:%d" % ssl_port,
                            {"security.protocol": "SSL", "ssl.ca.location": pki.ca})


def check_tls13_only(pki, ks):
    ssl_port = free_port()
    k = Kcoord("tls13", overrides={})
    k.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d" % (k.port, ssl_port),
        "ssl.keystore.location": ks, "ssl.enabled.protocols": "TLSv1.3"})
    with k:
        ctx = pki.client_context()
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
        try:
            tls_conn(ssl_port, ctx).close()
            raise AssertionError("a TLS 1.2 client was accepted")
        except (ssl.SSLError, ConnectionError):
            pass
        ctx = pki.client_context()
        with tls_conn(ssl_port, ctx) as c:
            assert c.sock.version() == "TLSv1.3"
            assert metadata_broker(c)[1] == ssl_port


def check_client_auth(pki, ks):
    pki.issue("client1", "/O=kcoord test/OU=itest/CN=client1", server=False)
    ssl_port, sasl_ssl_port = free_port(), free_port()
    k = Kcoord("tls-client-auth", overrides={})
    k.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d,SASL_SSL://127.0.0.1:%d"
                     % (k.port, ssl_port, sasl_ssl_port),
        "ssl.keystore.location": ks, "ssl.client.auth": "required",
        "ssl.truststore.location": pki.ca, "log.level": "debug"})
    with k:
        # Without a certificate: TLS 1.3 lets the client finish first, so
        # the refusal shows on the first read or as a closed connection.
        refused = False
        try:
            with tls_conn(ssl_port, pki.client_context()) as c:
                c.send(kafka_wire.API_API_VERSIONS, 0, kafka_wire.api_versions_body(0))
                c.recv(timeout=30)
        except (ssl.SSLError, ConnectionError, kafka_wire.ConnectionClosed, OSError):
            refused = True
        assert refused, "a client without a certificate was served"
        off = k.stderr_size()
        with tls_conn(ssl_port, pki.client_context("client1")) as c:
            assert metadata_broker(c)[1] == ssl_port
        text = wait_for(lambda: (lambda t: t if "principal User:" in t else "")(
            k.stderr_since(off)), 30, "the handshake's debug line")
        assert "principal User:CN=client1,OU=itest,O=kcoord test" in text, text
        # As Kafka, the broker-wide ssl.client.auth is not applied to SASL_SSL
        # listeners: no certificate needed there (SASL authenticates).
        with tls_conn(sasl_ssl_port, pki.client_context()) as c:
            resp = c.call(lambda: c.send(kafka_wire.API_API_VERSIONS, 0,
                                         kafka_wire.api_versions_body(0)),
                          lambda: c.recv())
            assert kafka_wire.decode_api_versions(resp, 0)["error_code"] == 0
        assert "ssl.client.auth applies to SSL listeners only" in k.stderr_text()


def check_sighup_reload(pki, tmp):
    ks = os.path.join(tmp, "live-keystore.pem")
    shutil.copy(pki.issue("server-a", "/O=kcoord test/CN=server-a"), ks)
    ssl_port = free_port()
    k = Kcoord("tls-reload", overrides={})
    k.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d" % (k.port, ssl_port),
        "ssl.keystore.location": ks})
    with k:
        ctx = pki.client_context()
        assert peer_certificate_subject(ssl_port, ctx)["commonName"] == "server-a"
        old = tls_conn(ssl_port, ctx)
        shutil.copy(pki.issue("server-b", "/O=kcoord test/CN=server-b"), ks + ".new")
        os.replace(ks + ".new", ks)
        off = k.stderr_size()
        k.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "reloaded" in k.stderr_since(off), 30, "the reload logged")
        assert peer_certificate_subject(ssl_port, ctx)["commonName"] == "server-b"
        # The connection made before the reload still works.
        assert metadata_broker(old)[1] == ssl_port
        old.close()
        # A broken key store is refused and the current one kept.
        with open(ks, "w") as f:
            f.write("not a key store\n")
        off = k.stderr_size()
        k.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "TLS reload failed" in k.stderr_since(off), 30, "the failed reload")
        assert peer_certificate_subject(ssl_port, ctx)["commonName"] == "server-b"


def check_bad_start(pki):
    # A listener name the map does not know, and an SSL listener without a key store.
    for extra, what in ((dict(listeners="PLAINTEXT://127.0.0.1:%d,CLIENT://127.0.0.1:%d"),
                         "no security protocol defined for listener CLIENT"),
                        (dict(listeners="PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d"),
                         "ssl.keystore.location")):
        k = Kcoord("tls-bad-start")
        k.overrides["listeners"] = extra["listeners"] % (k.port, free_port())
        try:
            k.start()
            raise AssertionError("kcoord started with " + what)
        except RuntimeError:
            k.proc.wait()
            k.proc = None
            assert what in k.stderr_text(), k.stderr_text()
        finally:
            k.cleanup()


def main():
    tmp = tempfile.mkdtemp(prefix="kcoord-tls-")
    try:
        pki = Pki(os.path.join(tmp, "pki"))
        ks = pki.issue("server", "/O=kcoord test/CN=localhost")
        check_listeners_and_framing(pki, ks)
        check_tls13_only(pki, ks)
        check_client_auth(pki, ks)
        check_sighup_reload(pki, tmp)
        check_bad_start(pki)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run(main)
