#!/usr/bin/env bash
# The catalog gate (issue 13): runs the whole scenario catalog DETERMINISM_RUNS times (default 5) with each
# scenario's own seed, and fails (exit 1) when
#   - any scenario failed in any run (the failures are printed, with each run's console output kept),
#   - a report does not validate against Scenarios/report.schema.json (Python's jsonschema, draft 2020-12),
#   - the runs disagree: every scenario's verdicts (key and status) and its fault timeline (the distinct
#     firings: rule, action, offset; times, connection ids and how often one rule repeats are left out) must be
#     identical in every run,
#   - the runs leave anything behind in their temporary folder.
# The test command (Tools/test.sh) runs it; Tools/load-check.sh runs the catalog under load.
#
#   Tools/determinism.sh [SQUALL_BINARY]     default .build/debug/squall (built by the caller)
set -euo pipefail
cd "$(dirname "$0")/.."

squall="${1:-.build/debug/squall}"
# The catalog to run; another folder only for the gate's own negative-control test.
catalog="${SQUALL_CATALOG:-Scenarios}"
runs="${DETERMINISM_RUNS:-5}"
[[ -x "$squall" ]] || {
    echo "determinism.sh: no squall binary at $squall (build it first: swift build --product squall)" >&2
    exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/squall-determinism.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The runs get a temporary folder of their own, which must be empty again afterwards.
mkdir "$work/tmp"

failed_runs=0
for ((run = 1; run <= runs; run++)); do
    status=0
    TMPDIR="$work/tmp" "$squall" run "$catalog" --json "$work/run-$run.json" >"$work/run-$run.out" 2>&1 || status=$?
    [[ -s "$work/run-$run.json" ]] || {
        echo "determinism.sh: run $run wrote no report:" >&2
        cat "$work/run-$run.out" >&2
        exit 1
    }
    echo "catalog run $run/$runs: $(tail -n 1 "$work/run-$run.out")"
    if ((status != 0)); then
        failed_runs=$((failed_runs + 1))
        echo "determinism.sh: catalog run $run failed (exit $status):" >&2
        grep -v '^PASS ' "$work/run-$run.out" >&2 || true
    fi
done

if [[ -n "$(ls -A "$work/tmp")" ]]; then
    echo "determinism.sh: the runs left files behind in their temporary folder:" >&2
    ls -A "$work/tmp" >&2
    exit 1
fi

python3 Tools/report-check.py --schema Scenarios/report.schema.json --same "$work"/run-*.json

if ((failed_runs > 0)); then
    echo "determinism.sh: $failed_runs of $runs catalog runs had failing scenarios" >&2
    exit 1
fi
echo "determinism: every scenario passed in all $runs runs"
