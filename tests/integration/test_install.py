# SPDX-License-Identifier: Apache-2.0
"""`meson install` into a scratch DESTDIR: the binary, the sample
configuration and the systemd unit land where they belong, the unit names
the installed binary and configuration and passes `systemd-analyze verify`
(when systemd-analyze exists) with a low exposure score, and the installed
binary serves with the installed configuration.
"""

import os
import re
import shutil
import subprocess
import tempfile

import kafka_wire as kw
from kcoord_harness import Kcoord, run

BUILD_ROOT = os.path.dirname(os.path.dirname(os.environ["KC_TEST_WORK"]))


class InstalledKcoord(Kcoord):
    def __init__(self, binary, conf):
        super().__init__("installed", binary=binary)
        self.conf = conf

    def command(self):
        return [self.binary, "--config", self.conf,
                "--override", "listeners=PLAINTEXT://127.0.0.1:%d" % self.port,
                "--override", "log.dirs=%s" % self.data_dir]


def main():
    dest = tempfile.mkdtemp(prefix="kcoord-install-")
    try:
        out = subprocess.run(["meson", "install", "-C", BUILD_ROOT, "--no-rebuild",
                              "--destdir", dest], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=300)
        assert out.returncode == 0, out.stdout.decode()
        intro = subprocess.run(["meson", "introspect", BUILD_ROOT, "--buildoptions"],
                               stdout=subprocess.PIPE, check=True, timeout=60).stdout.decode()
        prefix = re.search(r'"name": "prefix", "value": "([^"]+)"', intro).group(1)
        root = dest + prefix
        binary = os.path.join(root, "bin", "kcoord")
        conf = os.path.join(root, "etc", "kcoord", "kcoord.conf")
        unit = os.path.join(root, "lib", "systemd", "system", "kcoord.service")
        for p in (binary, conf, unit):
            assert os.path.isfile(p), "%s not installed; installed: %r" % (
                p, [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs])
        assert os.access(binary, os.X_OK)
        text = open(unit).read()
        exec_start = re.search(r"^ExecStart=(\S+) --config (\S+)", text, re.M)
        assert exec_start, text
        assert exec_start.group(1) == prefix + "/bin/kcoord", exec_start.group(1)
        assert exec_start.group(2) == prefix + "/etc/kcoord/kcoord.conf", exec_start.group(2)
        for hardening in ("DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict",
                          "StateDirectory=kcoord", "SystemCallFilter=@system-service"):
            assert hardening in text, hardening

        analyze = shutil.which("systemd-analyze")
        if analyze:
            local = os.path.join(dest, "kcoord.service")
            with open(local, "w") as f:
                f.write(text.replace(prefix + "/bin/kcoord", binary))
            v = subprocess.run([analyze, "verify", local], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
            msgs = v.stdout.decode()
            assert v.returncode == 0 and "kcoord.service" not in msgs, msgs
            s = subprocess.run([analyze, "security", "--offline=yes", local],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
            m = re.search(r"Overall exposure level for kcoord.service: ([0-9.]+)",
                          s.stdout.decode())
            if m:  # older systemd-analyze has no offline mode
                assert float(m.group(1)) <= 2.0, s.stdout.decode()[-1500:]

        with InstalledKcoord(binary, conf) as k:
            with kw.Conn(k.port) as c:
                assert kw.metadata_v1(c)["brokers"]
    finally:
        shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    run(main)
