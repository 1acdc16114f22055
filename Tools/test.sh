#!/usr/bin/env bash
# The whole test suite: set-up, format lint, warnings-as-errors build, and every test. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"

echo "== format lint"
swift format lint --strict --recursive Package.swift Sources Tests Tools

echo "== build (warnings are errors) and test"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build
