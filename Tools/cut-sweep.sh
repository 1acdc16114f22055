#!/usr/bin/env bash
# The cut sweep (issue 26): creations cut before the client could resume them are what a phone never meets, so a cut
# or a progress event at an upload offset waits for the server's 104 (the announcement) and every one resumes.
# Written as a newcomer writes scenarios from the docs, with no pacing fault: an RST at 10, 30, 50, 70 and 90 % of
# interop-8 creations of 256 KiB, 1 MiB and 8 MiB (a `reset` fault at-offset), and the same points as a
# `switch-network` event at-progress; each must resume from the server's offset, never start over. The 30 scenarios
# run idle, then under two busy CPU hogs, then pinned to one core; every one must pass in all three (the test command
# runs this). The negative control runs the same 30 with "announcement": "before" (the cut lands before the client
# has the 104, on purpose): every one must fail, its evidence naming the cut before the announcement. Prints one line
# per run; exit 1 on the first that does not come out so, with its failures.
#
#   Tools/cut-sweep.sh [SQUALL_BINARY]     default .build/debug/squall (built by the caller)
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=load-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/load-lib.sh"

squall="${1:-.build/debug/squall}"
require_load_tools "$squall"
load_work=$(mktemp -d "${TMPDIR:-/tmp}/squall-cut-sweep.XXXXXX")
work="$load_work"
trap 'stop_hogs; rm -rf "$load_work"' EXIT
mkdir -p "$work/sweep"

# The scenarios, as docs/scenarios.md's "Writing scenarios" teaches them.
for size in 256KiB 1MiB 8MiB; do
    for point in 10 30 50 70 90; do
        name="sweep-reset-${size,,}-$point"
        cat >"$work/sweep/$name.json" <<SCENARIO
{
  "name": "$name",
  "description": "An RST at $point % of a $size interop-8 creation: the client resumes from the server's offset.",
  "seed": $point,
  "timeout": "20s",
  "client": {"interop": 8},
  "assets": [{"name": "video", "size": "$size"}],
  "faults": [{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "$point%"}, "action": "reset", "times": 1}],
  "expect": {
    "jobs": {"succeeded": "all", "failed": 0}, "resumptions": 1, "restarts-from-zero": 0,
    "server-offset-at-cut": true, "appends-at-server-offset": true, "server-objects-intact": true
  }
}
SCENARIO
        name="sweep-switch-${size,,}-$point"
        cat >"$work/sweep/$name.json" <<SCENARIO
{
  "name": "$name",
  "description": "A network switch at $point % of a $size interop-8 creation: the client resumes from the server's offset.",
  "seed": $point,
  "timeout": "20s",
  "client": {"interop": 8},
  "assets": [{"name": "video", "size": "$size"}],
  "events": [{"event": "switch-network", "at-progress": "$point%", "asset": "video"}],
  "expect": {
    "jobs": {"succeeded": "all", "failed": 0}, "resumptions": 1, "restarts-from-zero": 0,
    "appends-at-server-offset": true, "server-objects-intact": true
  }
}
SCENARIO
    done
done

run_under "cut sweep" idle "$work/sweep" "$squall"
start_hogs
run_under "cut sweep" "with $(nproc) CPU hogs" "$work/sweep" "$squall"
stop_hogs
run_under "cut sweep" "on one core (taskset -c 0)" "$work/sweep" taskset -c 0 "$squall"

# The negative control: the same scenarios asking for the cut before the announcement ("announcement": "before")
# must all fail (the client never learns the upload, so it starts over), each naming the cause.
mkdir -p "$work/control"
for file in "$work/sweep"/*.json; do
    sed -e 's/"at-offset": "\([0-9]*%\)"}/"at-offset": "\1", "announcement": "before"}/' \
        -e 's/"asset": "video"}\]/"asset": "video", "announcement": "before"}]/' "$file" >"$work/control/${file##*/}"
done
status=0
"$squall" run "$work/control" >"$work/control.out" 2>&1 || status=$?
failed=$(grep -c '^FAIL ' "$work/control.out" || true)
named=$(grep -c "before the client had the server's 104 announcing the upload" "$work/control.out" || true)
echo "cut sweep, negative control (\"announcement\": \"before\"): $(tail -n 1 "$work/control.out")"
if ((status != 1 || failed != 30 || named < 30)); then
    echo "cut-sweep.sh: the negative control should fail all 30 scenarios, each naming the cut before the 104" \
        "(exit $status, $failed failed, $named lines naming it):" >&2
    grep -v '^PASS ' "$work/control.out" | head -n 40 >&2 || true
    exit 1
fi
