#!/usr/bin/env bash
# The catalog under load (issue 13): the whole scenario catalog must pass every scenario
#   1. with two busy CPU hogs, one per core of this 2-core machine (one per core wherever it runs), and
#   2. pinned to one core (taskset -c 0).
# Each run's report must validate against Scenarios/report.schema.json. Exit 1 on the first failing run, with its
# console output. The test command (Tools/test.sh) runs it once.
#
#   Tools/load-check.sh [SQUALL_BINARY]     default .build/debug/squall (built by the caller)
set -euo pipefail
cd "$(dirname "$0")/.."

squall="${1:-.build/debug/squall}"
# The catalog to run; another folder only for the gate's own negative-control test.
catalog="${SQUALL_CATALOG:-Scenarios}"
[[ -x "$squall" ]] || {
    echo "load-check.sh: no squall binary at $squall (build it first: swift build --product squall)" >&2
    exit 2
}
command -v taskset >/dev/null 2>&1 || {
    echo "load-check.sh: taskset is missing (Debian's util-linux has it)" >&2
    exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/squall-load.XXXXXX")
hogs=()
stop_hogs() {
    # SIGKILL: a SIGTERM that the calling process ignores stays ignored in its children.
    ((${#hogs[@]} == 0)) || kill -KILL "${hogs[@]}" 2>/dev/null || true
    ((${#hogs[@]} == 0)) || wait "${hogs[@]}" 2>/dev/null || true
    hogs=()
}
trap 'stop_hogs; rm -rf "$work"' EXIT

# catalog LABEL COMMAND...: one catalog run; fails the script when a scenario fails.
catalog() {
    local label="$1"
    shift
    local status=0
    "$@" run "$catalog" --json "$work/$label.json" >"$work/$label.out" 2>&1 || status=$?
    echo "load check, $label: $(tail -n 1 "$work/$label.out")"
    if ((status != 0)); then
        echo "load-check.sh: the catalog failed $label (exit $status):" >&2
        grep -v '^PASS ' "$work/$label.out" >&2 || true
        exit 1
    fi
    python3 Tools/report-check.py --schema Scenarios/report.schema.json "$work/$label.json" >/dev/null
}

# Busy loops with no output, one per core; they end with the script (trap) at the latest.
for ((core = 0; core < $(nproc); core++)); do
    (while :; do :; done) &
    hogs+=($!)
done
catalog "with $(nproc) CPU hogs" "$squall"
stop_hogs

catalog "on one core (taskset -c 0)" taskset -c 0 "$squall"
