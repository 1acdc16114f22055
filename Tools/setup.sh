#!/usr/bin/env bash
# Installs what Squall's build, tests and benchmarks need, when it is missing. Idempotent; fast when all is present.
#
#   Tools/setup.sh            build + test prerequisites
#   Tools/setup.sh --bench    also the benchmark peers (nginx's stream module)
#
# Exits non-zero with a message naming what could not be installed.
set -euo pipefail

# golang-go: Debian 12's Go 1.19, whose net/http accepts at most five 1xx responses per request; the interop test
# (Tests/Interop/go-upload) uploads through it to check that the reference server's progress 104s stay within that.
# chromium, chromium-driver: the HTML report opened in a real browser (Tools/report-browser-check.py, with selenium).
# libnghttp2-dev: HTTP/2 framing, HPACK and flow control (Sources/CNghttp2, under Sources/HTTP2Wire).
# libqrencode-dev: the QR codes `squall ca show --url` draws (Sources/QRCodes). zbar-tools: zbarimg reads them back
# (Tests/QRCodesTests/QRCodeTests.swift). nginx: an HTTP/2 upstream nobody here wrote, behind the proxy
# (Tests/ChaosProxyTests/NginxUpstreamHTTP2Tests.swift); the benchmarks also need its stream module.
packages=(pkg-config libssl-dev libpcap-dev libqrencode-dev libnghttp2-dev openssl curl tshark golang-go chromium chromium-driver zbar-tools nginx)
if [[ "${1:-}" == "--bench" ]]; then
    packages+=(libnginx-mod-stream)
elif [[ $# -gt 0 ]]; then
    echo "setup.sh: unknown argument '$1' (expected --bench or nothing)" >&2
    exit 2
fi

fail() {
    echo "setup.sh: $*" >&2
    exit 1
}

# The Swift toolchain is part of the machine image; say so clearly when it is not there.
if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null 2>&1 || fail "no Swift toolchain on PATH (Swift 6.x expected, e.g. /opt/swift/usr/bin)"

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]} > 0)); then
    echo "setup.sh: installing ${missing[*]}" >&2
    command -v apt-get >/dev/null 2>&1 || fail "apt-get not found; install by hand: ${missing[*]}"
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || fail "not root and no sudo; install by hand: ${missing[*]}"
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq >/dev/null || fail "apt-get update failed; cannot install ${missing[*]}"
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
        fail "apt-get install failed for: ${missing[*]}"
fi

pkg-config --exists openssl libpcap || fail "pkg-config cannot find openssl and libpcap after installing them"

# Python packages from PyPI the tests drive: toxiproxy-python (the control API's compatibility), junitparser (the
# JUnit report, read as CI systems do), jsonschema (Scenarios/schema.json against the scenario loader) and
# selenium (headless Chromium opening the HTML report).
command -v python3 >/dev/null 2>&1 || fail "no python3 on PATH (the compatibility and report tests need it)"

# pip_install PACKAGE IMPORT: installs PACKAGE unless `python3 -c IMPORT` already works.
pip_install() {
    local package="$1" check="$2"
    python3 -c "$check" >/dev/null 2>&1 && return 0
    echo "setup.sh: installing $package from PyPI" >&2
    python3 -m pip install --quiet --disable-pip-version-check "$package" >/dev/null 2>&1 ||
        python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "$package" ||
        fail "pip could not install $package"
    python3 -c "$check" >/dev/null 2>&1 || fail "$package installed but python3 cannot run: $check"
}
pip_install toxiproxy-python 'import toxiproxy'
pip_install junitparser 'import junitparser'
pip_install jsonschema 'from jsonschema import Draft202012Validator'
pip_install selenium 'from selenium import webdriver'
pip_install haralyzer 'from haralyzer import HarParser'
