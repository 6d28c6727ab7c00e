# SPDX-License-Identifier: Apache-2.0
"""Real clients over SASL, as issue 7 asks.

One kcoord with a PLAINTEXT, a SASL_SSL and a SASL_PLAINTEXT listener and a
credentials file made with `kcoord scram-credential`:
- kafka-python and confluent-kafka produce and consume in a group over
  SASL_SSL with SCRAM-SHA-256 and with SCRAM-SHA-512 (kafka-python sends
  SaslHandshake v0 and raw tokens, librdkafka SaslHandshake v1 and
  SaslAuthenticate);
- both over SASL_PLAINTEXT with PLAIN;
- a wrong password is refused (each client reports the failure) and logged;
- kcat -X security.protocol=SASL_SSL produces and reads back.
"""

import os
import shutil
import subprocess
import tempfile

from kcoord_harness import Kcoord, free_port, run, wait_for
from secure_clients import confluent_auth_error, confluent_roundtrip, kafka_python_roundtrip
from tls_util import Pki

USER, PASSWORD = "alice", "alice-secret"


def kcat(*args, stdin=None):
    exe = shutil.which("kcat") or shutil.which("kafkacat")
    assert exe, "kcat is not installed (scripts/deps.sh installs it)"
    p = subprocess.run([exe] + list(args), input=stdin, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, "kcat %s failed (%d):\n%s\n%s" % (args, p.returncode, p.stdout,
                                                                p.stderr)
    return p.stdout


def main():
    tmp = tempfile.mkdtemp(prefix="kcoord-sasl-clients-")
    try:
        pki = Pki(os.path.join(tmp, "pki"))
        ks = pki.issue("server", "/O=kcoord test/CN=localhost")
        k = Kcoord("sasl-clients")
        creds = os.path.join(tmp, "credentials")
        out = subprocess.run([k.binary, "scram-credential", "--password", PASSWORD, USER],
                             capture_output=True, text=True, check=True).stdout
        with open(creds, "w") as f:
            f.write(out)
        sasl_ssl, sasl_plain = free_port(), free_port()
        k.overrides.update({
            "listeners": "PLAINTEXT://127.0.0.1:%d,SASL_SSL://127.0.0.1:%d,"
                         "SASL_PLAINTEXT://127.0.0.1:%d" % (k.port, sasl_ssl, sasl_plain),
            "ssl.keystore.location": ks,
            "sasl.credentials.file": creds,
        })
        with k:
            ssl_boot = "127.0.0.1:%d" % sasl_ssl
            plain_boot = "127.0.0.1:%d" % sasl_plain
            for mech in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
                kafka_python_roundtrip(ssl_boot, security_protocol="SASL_SSL", ssl_cafile=pki.ca,
                                       sasl_mechanism=mech, sasl_plain_username=USER,
                                       sasl_plain_password=PASSWORD)
                confluent_roundtrip(ssl_boot, {
                    "security.protocol": "SASL_SSL", "ssl.ca.location": pki.ca,
                    "sasl.mechanisms": mech, "sasl.username": USER, "sasl.password": PASSWORD})
            kafka_python_roundtrip(plain_boot, security_protocol="SASL_PLAINTEXT",
                                   sasl_mechanism="PLAIN", sasl_plain_username=USER,
                                   sasl_plain_password=PASSWORD)
            confluent_roundtrip(plain_boot, {
                "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
                "sasl.username": USER, "sasl.password": PASSWORD})

            # A wrong password: refused, reported by the client, logged by kcoord.
            off = k.stderr_size()
            err = confluent_auth_error(ssl_boot, {
                "security.protocol": "SASL_SSL", "ssl.ca.location": pki.ca,
                "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": USER,
                "sasl.password": "not-the-password"})
            assert "Authentication failed" in str(err), err
            wait_for(lambda: "Failed authentication" in k.stderr_since(off), 30,
                     "the failure logged")
            from kafka import KafkaProducer
            from kafka.errors import KafkaError
            off = k.stderr_size()
            try:
                KafkaProducer(bootstrap_servers=plain_boot, security_protocol="SASL_PLAINTEXT",
                              sasl_mechanism="PLAIN", sasl_plain_username=USER,
                              sasl_plain_password="not-the-password",
                              api_version_auto_timeout_ms=10000).close()
                raise AssertionError("kafka-python connected with a wrong password")
            except KafkaError:
                pass
            text = wait_for(lambda: (lambda t: t if "Failed authentication" in t else "")(
                k.stderr_since(off)), 30, "the failure logged")
            assert "Invalid username or password" in text, text

            # kcat over SASL_SSL.
            sec = ["-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanisms=SCRAM-SHA-512",
                   "-X", "sasl.username=" + USER, "-X", "sasl.password=" + PASSWORD,
                   "-X", "ssl.ca.location=" + pki.ca]
            lines = ["line-%d" % i for i in range(10)]
            kcat("-b", ssl_boot, *sec, "-P", "-t", "kcat-sasl", stdin="\n".join(lines) + "\n")
            got = kcat("-b", ssl_boot, *sec, "-C", "-t", "kcat-sasl", "-o", "beginning", "-e",
                       "-c", "10", "-q")
            assert got.split() == lines, got
            meta = kcat("-b", ssl_boot, *sec, "-L", "-t", "kcat-sasl")
            assert "127.0.0.1:%d" % sasl_ssl in meta, meta
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run(main)
