#!/usr/bin/env bash
# The catalog under load (issue 13): the whole scenario catalog, at both protocols (`--http-matrix`: HTTP/1.1 and
# HTTP/2, issue 41), must pass every scenario
#   1. with two busy CPU hogs, one per core of this 2-core machine (one per core wherever it runs), and
#   2. pinned to one core (taskset -c 0).
# Each run's report must validate against Scenarios/report.schema.json. Exit 1 on the first failing run, with its
# console output. The test command (Tools/test.sh) runs it once.
#
#   Tools/load-check.sh [SQUALL_BINARY]     default .build/debug/squall (built by the caller)
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=load-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/load-lib.sh"

squall="${1:-.build/debug/squall}"
# The catalog to run; another folder only for the gate's own negative-control test.
catalog="${SQUALL_CATALOG:-Scenarios}"
require_load_tools "$squall"
load_work=$(mktemp -d "${TMPDIR:-/tmp}/squall-load.XXXXXX")
trap 'stop_hogs; rm -rf "$load_work"' EXIT

# catalog LABEL COMMAND...: one catalog run; fails the script when a scenario fails or its report breaks its schema.
catalog() {
    local label="$1"
    shift
    run_under "load check" "$label" "$catalog" "$@" --http-matrix
    python3 Tools/report-check.py --schema Scenarios/report.schema.json "$load_work/$label.json" >/dev/null
}

start_hogs
catalog "with $(nproc) CPU hogs" "$squall"
stop_hogs

catalog "on one core (taskset -c 0)" taskset -c 0 "$squall"
