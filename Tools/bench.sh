#!/usr/bin/env bash
# The HTTP/1.1 request-head parsing rate on one core (`squall-bench parse-heads`: pipelined 209-byte resumable
# upload PATCH heads fed to HTTP1Parser). Release build; never part of the test suite. The proxy, server, client
# and capture have their own scripts (Tools/bench-proxy.sh, bench-server.sh, bench-client.sh, bench-capture.sh).
#
#   Tools/bench.sh            BENCH_ROUNDS rounds (default 5)
#   Tools/bench.sh --quick    1 round: a smoke test
set -euo pipefail
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

rounds="${BENCH_ROUNDS:-5}"
if quick_requested "$@"; then
    rounds=1
fi
check_range BENCH_ROUNDS "$rounds" 1 20

Tools/setup.sh
bench="$(build_release squall-bench)/squall-bench"
[[ -x "$bench" ]] || fail "no squall-bench at $bench"

echo "== HTTP/1.1 request-head parsing on one core (HTTP1Parser, pipelined 200-byte PATCH heads)"
"$bench" parse-heads --rounds "$rounds"
