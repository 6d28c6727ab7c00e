#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages kcoord needs that are missing on this machine.
#   scripts/deps.sh build   what building needs
#   scripts/deps.sh all     build + what the unit and integration tests need (default):
#                           clang for the second compiler build, valgrind for the
#                           memcheck run of the unit tests
#   scripts/deps.sh fuzz    all + libFuzzer's runtime (./scripts/test --extended)
# Checks with dpkg-query first; runs apt-get only when something is missing.
# When not root and something is missing, prints the apt-get command and fails.
# all and fuzz also make the virtualenv of the Python clients from PyPI
# (build-pyclients/, from tests/integration/pyclients/requirements.txt).
set -euo pipefail

BUILD_PKGS=(gcc meson ninja-build pkg-config libevent-dev liblmdb-dev libssl-dev
            libcmocka-dev libjansson-dev zlib1g-dev libsnappy-dev liblz4-dev libxxhash-dev
            libpcre2-dev python3)
TEST_PKGS=(python3-kafka python3-confluent-kafka python3-snappy python3-lz4 python3-xxhash
           kcat librdkafka-dev procps iproute2 openssl python3-yaml
           golang-go python3-venv chromium clang valgrind)
# The console's browser test drives Debian's chromium with playwright-core
# (npm ci of its lock file into the build directory, as for KafkaJS).
# KafkaJS runs on Node.js; a node that did not come from Debian's package
# (one that bundles npm) is accepted as it is.
NODE_CMDS=(node:nodejs npm:npm)
# The reference broker of the conformance suite (Kafka 4.4.0) runs on a JDK
# (17 or newer) and is resolved by Maven; a JDK or Maven that did not come
# from Debian's packages is accepted as it is.
JAVA_CMDS=(java:openjdk-17-jdk-headless mvn:maven)
FUZZ_PKGS=(libclang-rt-dev)

what="${1:-all}"
case "$what" in
    build) want=("${BUILD_PKGS[@]}") ;;
    all) want=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
    fuzz) want=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}" "${FUZZ_PKGS[@]}") ;;
    *) echo "usage: $0 [build|all|fuzz]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
    status="$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)"
    if [ "$status" != "installed" ]; then
        missing+=("$p")
    fi
done
if [ "$what" != build ]; then
    for pair in "${NODE_CMDS[@]}" "${JAVA_CMDS[@]}"; do
        if ! command -v "${pair%%:*}" >/dev/null 2>&1; then
            missing+=("${pair#*:}")
        fi
    done
fi

# Kafka 4.4.0's jars (tests/reference/pom.xml) in the local Maven
# repository: downloaded once (about 150 MB), offline afterwards.
reference_jars() {
    if [ "$what" != build ]; then
        python3 "$(dirname "$0")/../tests/reference/reference_kafka.py" --classpath >/dev/null
    fi
}

# confluent-kafka and kafka-python from PyPI, pinned with their hashes in
# tests/integration/pyclients/requirements.txt, in a virtualenv of Debian's
# python3 (build-pyclients/), made again when that file changes.
py_clients() {
    if [ "$what" = build ]; then
        return
    fi
    local root req venv
    root="$(cd "$(dirname "$0")/.." && pwd)"
    req="$root/tests/integration/pyclients/requirements.txt"
    venv="$root/build-pyclients"
    if cmp -s "$req" "$venv/requirements.txt"; then
        return
    fi
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input \
        --require-hashes --only-binary :all: -r "$req"
    cp "$req" "$venv/requirements.txt"
}

# franz-go and sarama want Go 1.26 (their go.mod files). A go of 1.21 or
# newer fetches that toolchain from the Go module proxy by itself
# (GOTOOLCHAIN=auto); an older one (Debian 12's golang-go is 1.19) cannot.
go_check() {
    if [ "$what" = build ] || ! command -v go >/dev/null 2>&1; then
        return
    fi
    local v
    v="$(go env GOVERSION 2>/dev/null || echo unknown)"
    case "$v" in
        go1.2[1-9]*|go1.[3-9][0-9]*|go[2-9]*) return ;;
    esac
    echo "deps: the Go clients need Go 1.21 or newer in PATH (found $v)." >&2
    echo "deps: install one from https://go.dev/dl/ and put it first in PATH, e.g.:" >&2
    echo "  curl -fsSL https://go.dev/dl/go1.26.8.linux-amd64.tar.gz | tar -C /usr/local -xz" \
         "&& export PATH=/usr/local/go/bin:\$PATH" >&2
    exit 1
}

if [ "${#missing[@]}" -eq 0 ]; then
    go_check
    reference_jars
    py_clients
    exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages: ${missing[*]}" >&2
    echo "deps: run as root:" >&2
    echo "  $cmd" >&2
    exit 1
fi

echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
go_check
reference_jars
py_clients
