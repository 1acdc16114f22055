#!/usr/bin/env bash
# The whole test suite: set-up, format lint, warnings-as-errors build, every test, and the determinism check of
# the scenario catalog (Tools/determinism.sh). CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"

echo "== format lint"
swift format lint --strict --recursive Package.swift Sources Tests Tools

echo "== build (warnings are errors) and test"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build

echo "== determinism: the scenario catalog, run 5 times, gives the same verdicts and fault timelines"
Tools/determinism.sh .build/debug/squall
