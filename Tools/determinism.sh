#!/usr/bin/env bash
# Determinism check (issue 6): runs the whole scenario catalog DETERMINISM_RUNS times (default 5) with each
# scenario's own seed and compares the runs: every scenario's verdicts (key and status) and its fault timeline
# (the distinct firings: rule, action, offset; times, connection ids and how often one rule repeats are left out) must be identical in every run. Exit 0 when they are, 1 with the
# first difference otherwise. It also fails when the runs leave a scenario folder behind in the temporary
# folder. The test command (Tools/test.sh) runs it.
#
#   Tools/determinism.sh [SQUALL_BINARY]     default .build/debug/squall (built by the caller)
set -euo pipefail
cd "$(dirname "$0")/.."

squall="${1:-.build/debug/squall}"
runs="${DETERMINISM_RUNS:-5}"
[[ -x "$squall" ]] || {
    echo "determinism.sh: no squall binary at $squall (build it first: swift build --product squall)" >&2
    exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/squall-determinism.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The runs get a temporary folder of their own, which must be empty again afterwards.
mkdir "$work/tmp"

for ((run = 1; run <= runs; run++)); do
    # The exit status says whether scenarios passed; determinism is judged from the reports either way.
    TMPDIR="$work/tmp" "$squall" run Scenarios --json "$work/run-$run.json" >"$work/run-$run.out" 2>&1 || true
    [[ -s "$work/run-$run.json" ]] || {
        echo "determinism.sh: run $run wrote no report:" >&2
        cat "$work/run-$run.out" >&2
        exit 1
    }
done

if [[ -n "$(ls -A "$work/tmp")" ]]; then
    echo "determinism.sh: the runs left files behind in their temporary folder:" >&2
    ls -A "$work/tmp" >&2
    exit 1
fi

python3 - "$work" "$runs" <<'PY'
import json, sys

folder, runs = sys.argv[1], int(sys.argv[2])

def digest(path):
    report = json.load(open(path))
    result = {}
    for scenario in report["scenarios"]:
        verdicts = [(v["key"], v["status"]) for v in scenario["verdicts"]]
        # Concurrent transfers connect in either order (so connection ids may swap), and a rule firing per
        # interim response (strip-interim) fires once per progress 104, whose count follows the server's write
        # timing: the timeline is compared as the sorted set of distinct (rule, action, offset) firings.
        timeline = sorted({
            (f["rule"], f["action"], -1 if f["offset"] is None else f["offset"]) for f in scenario["faultTimeline"]})
        result[scenario["name"]] = (scenario["outcome"], verdicts, timeline)
    return result

first = digest(f"{folder}/run-1.json")
for run in range(2, runs + 1):
    other = digest(f"{folder}/run-{run}.json")
    for name in sorted(set(first) | set(other)):
        if first.get(name) != other.get(name):
            print(f"determinism: scenario {name} differs between run 1 and run {run}:")
            print(f"  run 1:    {first.get(name)}")
            print(f"  run {run}: {other.get(name)}")
            sys.exit(1)
print(f"determinism: {len(first)} scenarios gave identical verdicts and fault timelines in {runs} runs")
PY
