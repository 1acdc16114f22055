#!/usr/bin/env bash
# The version matrix (issue 39): every catalog scenario at every interop version it applies to
# (`squall run --interop-matrix`: the versions its server serves and `final`; a scenario tied to a version keeps
# it), in four shards side by side (the runs wait on loopback more than they compute). Fails (exit 1) when any variant fails, naming it; prints each
# shard's table of verdicts (a row per scenario, a column per version).
#
#   Tools/interop-matrix.sh [SQUALL_BINARY]     default .build/debug/squall (built by the caller)
set -euo pipefail
cd "$(dirname "$0")/.."
squall="${1:-.build/debug/squall}"
[[ -x "$squall" ]] || {
    echo "interop-matrix.sh: no squall binary at $squall (build it first: swift build --product squall)" >&2
    exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/squall-matrix.XXXXXX")
trap 'rm -rf "$work"' EXIT
pids=()
shards=4
for ((shard = 1; shard <= shards; shard++)); do
    "$squall" run --interop-matrix --shard "$shard/$shards" >"$work/shard-$shard.log" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
for ((shard = 1; shard <= shards; shard++)); do
    echo "-- shard $shard/$shards"
    grep -v '^PASS ' "$work/shard-$shard.log" || true
done
if ((status != 0)); then
    echo "interop-matrix.sh: a variant failed (FAIL lines above)" >&2
    exit 1
fi
echo "interop-matrix.sh: every variant passed"
