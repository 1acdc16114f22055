#!/usr/bin/env bash
# The scenario harness's benchmarks (issue 6), release build, loopback only, never part of the test suite:
#   1. the whole catalog (Scenarios/) once: wall time (target: at most 90 s on this 2-core machine);
#   2. the per-scenario set-up and tear-down overhead (server, proxy, client, CA): a one-byte scenario run
#      BENCH_OVERHEAD_RUNS times (default 20) with --repeat; the mean time per run (target: at most 150 ms).
#
#   Tools/bench-catalog.sh           Tools/bench-catalog.sh --quick (5 overhead runs)
set -euo pipefail
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

runs="${BENCH_OVERHEAD_RUNS:-20}"
if quick_requested "$@"; then runs=5; fi
check_range BENCH_OVERHEAD_RUNS "$runs" 1 100

Tools/setup.sh
bin=$(build_release squall)
squall="$bin/squall"
work=$(mktemp -d "${TMPDIR:-/tmp}/squall-bench-catalog.XXXXXX")
trap 'rm -rf "$work"' EXIT

count=$(find Scenarios -name '*.json' ! -name schema.json | wc -l)
echo "== 1. the catalog: $count scenarios, once"
start=$(date +%s.%N)
status=0
"$squall" run Scenarios >"$work/catalog.out" 2>&1 || status=$?
end=$(date +%s.%N)
tail -n 1 "$work/catalog.out"
catalog=$(python3 -c "print(f'{$end - $start:.1f}')")
verdict=$(python3 -c "print('PASS' if $end - $start <= 90 else 'FAIL')")
echo "catalog: $count scenarios in $catalog s wall, exit status $status (target <= 90 s): $verdict"

echo "== 2. per-scenario overhead: a one-byte upload, $runs runs"
cat >"$work/overhead.json" <<'JSON'
{"name": "overhead", "description": "one byte, no fault: the cost of a scenario's set-up and tear-down",
 "assets": [{"name": "byte", "size": 1}], "expect": {"jobs": {"succeeded": "all"}}}
JSON
start=$(date +%s.%N)
"$squall" run "$work/overhead.json" --repeat "$runs" >"$work/overhead.out" 2>&1 || fail "the overhead scenario failed: $(cat "$work/overhead.out")"
end=$(date +%s.%N)
each=$(python3 -c "print(f'{($end - $start) * 1000 / $runs:.0f}')")
verdict=$(python3 -c "print('PASS' if ($end - $start) * 1000 / $runs <= 150 else 'FAIL')")
echo "overhead: $each ms per scenario (server, proxy, client, CA; $runs runs) (target <= 150 ms): $verdict"
