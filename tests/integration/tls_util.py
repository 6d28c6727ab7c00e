# SPDX-License-Identifier: Apache-2.0
"""Test certificates made at test time with the openssl command: a CA, a
server certificate for 127.0.0.1/localhost and client certificates, each
with its PEM key store (private key followed by the certificate chain, as
Kafka's ssl.keystore.type=PEM reads it). Nothing here is kept after a test.
"""

import os
import socket
import ssl
import subprocess

import kafka_wire


def _openssl(*args, cwd):
    subprocess.run(("openssl",) + args, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


class Pki:
    """Files under dir: ca.pem, and for each issued name NAME.key, NAME.pem
    (certificate) and NAME-keystore.pem (key + certificate + CA)."""

    def __init__(self, dir):
        self.dir = dir
        os.makedirs(dir, exist_ok=True)
        self.ca = os.path.join(dir, "ca.pem")
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                 "-subj", "/O=kcoord test/CN=kcoord test CA", cwd=dir)

    def issue(self, name, subject, server=True):
        """Issues a certificate signed by the CA; returns its key store path."""
        d = self.dir
        ext = os.path.join(d, name + ".ext")
        with open(ext, "w") as f:
            if server:
                f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                        "extendedKeyUsage=serverAuth\n")
            else:
                f.write("extendedKeyUsage=clientAuth\n")
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                 "-keyout", name + ".key", "-out", name + ".csr", "-subj", subject, cwd=d)
        _openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-days", "2", "-extfile", name + ".ext",
                 "-out", name + ".pem", cwd=d)
        ks = os.path.join(d, name + "-keystore.pem")
        with open(ks, "w") as out:
            for part in (name + ".key", name + ".pem", "ca.pem"):
                with open(os.path.join(d, part)) as f:
                    out.write(f.read())
        return ks

    def path(self, name):
        return os.path.join(self.dir, name)

    def client_context(self, cert=None):
        """A TLS client context trusting the CA, optionally with a client certificate."""
        ctx = ssl.create_default_context(cafile=self.ca)
        if cert:
            ctx.load_cert_chain(self.path(cert + ".pem"), self.path(cert + ".key"))
        return ctx


def tls_conn(port, ctx, timeout=30.0):
    """A kafka_wire.Conn whose socket speaks TLS (handshake done)."""
    c = kafka_wire.Conn(port, timeout=timeout)
    c.sock = ctx.wrap_socket(c.sock, server_hostname="127.0.0.1")
    return c


def peer_certificate_subject(port, ctx):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        with ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
            cert = t.getpeercert()
            return dict(x[0] for x in cert["subject"])
