#!/usr/bin/env bash
# squall explore's benchmark (issue 18), release build, loopback only, never part of the test suite: schedules per
# second with every asset 256 KiB on this machine, with --jobs 1 and --jobs 2 in interleaved rounds (the same seed
# each round, so the same schedules), and the cost per schedule broken down (setup, run, judge, teardown) as
# explore's summary gives it. Target: at least 10 schedules/s with --jobs 2.
#
#   Tools/bench-explore.sh           Tools/bench-explore.sh --quick (1 round of 20 schedules)
set -euo pipefail
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

rounds="${BENCH_ROUNDS:-3}"
count="${BENCH_SCHEDULES:-40}"
if quick_requested "$@"; then rounds=1; count=20; fi
check_range BENCH_ROUNDS "$rounds" 1 20
check_range BENCH_SCHEDULES "$count" 1 1000

Tools/setup.sh
bin=$(build_release squall)
squall="$bin/squall"
work=$(mktemp -d "${TMPDIR:-/tmp}/squall-bench-explore.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== $rounds rounds of $count schedules (seed 1, 256 KiB assets), --jobs 1 then --jobs 2"
for round in $(seq "$rounds"); do
    for jobs in 1 2; do
        "$squall" explore --count "$count" --seed 1 --jobs "$jobs" --asset-size 256KiB --shrink-budget 1s \
            >"$work/round-$round-$jobs.out" 2>&1 || true
        summary=$(grep '^per schedule' "$work/round-$round-$jobs.out" || echo "no summary")
        violations=$(grep -E '^[0-9]+ schedules' "$work/round-$round-$jobs.out" || echo "?")
        echo "round $round, --jobs $jobs: $violations; $summary"
    done
    one=$(grep -o '[0-9.]* schedules/s' "$work/round-$round-1.out" | cut -d' ' -f1)
    two=$(grep -o '[0-9.]* schedules/s' "$work/round-$round-2.out" | cut -d' ' -f1)
    python3 -c "print(f'round $round: --jobs 2 / --jobs 1 = {$two / $one:.2f}; target 10/s with --jobs 2: ' + ('PASS' if $two >= 10 else 'FAIL'))"
done
