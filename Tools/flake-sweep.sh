#!/usr/bin/env bash
# Runs the whole `swift test` suite again and again under load, to find the tests whose verdict depends on the
# machine's speed: N runs under two CPU hogs (a busy loop on every core), then M runs pinned to one core
# (`taskset -c 0`), and a table of every test that failed at least once (test, failures out of runs, where and why
# it failed first), with each run's log kept.
#
#   Tools/flake-sweep.sh [--hogs N] [--one-core M] [--run-timeout SECONDS] [--deadline MINUTES] [--out DIR]
#
# Defaults: 10 runs under hogs, 3 on one core, 20 minutes a run, 240 minutes in all (a run not started by then is
# skipped and the table says so). It does not build: run `swift build --build-tests` first. A run that times out or
# ends without a summary counts as a failure of "(the run itself)". Exits 1 when any test failed, 2 on bad usage.
# CI does not run it (3 to 7 minutes a run on a 2-core machine); the closing notes of issue 37 give its table.
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/load-lib.sh

hog_runs=10
core_runs=3
run_timeout=1200
deadline_minutes=240
out=""
while (($# > 0)); do
    [[ $# -ge 2 ]] || {
        echo "flake-sweep.sh: $1 needs a value (see the comment at the top of Tools/flake-sweep.sh)" >&2
        exit 2
    }
    case "$1" in
    --hogs) hog_runs="$2" ;;
    --one-core) core_runs="$2" ;;
    --run-timeout) run_timeout="$2" ;;
    --deadline) deadline_minutes="$2" ;;
    --out) out="$2" ;;
    *)
        echo "flake-sweep.sh: unknown argument '$1' (see the comment at the top of Tools/flake-sweep.sh)" >&2
        exit 2
        ;;
    esac
    shift 2
done
for number in "$hog_runs" "$core_runs" "$run_timeout" "$deadline_minutes"; do
    [[ "$number" =~ ^[0-9]+$ ]] || {
        echo "flake-sweep.sh: '$number' is not a whole number" >&2
        exit 2
    }
done
command -v taskset >/dev/null 2>&1 || {
    echo "flake-sweep.sh: taskset is missing (Debian's util-linux has it)" >&2
    exit 2
}
export PATH="/opt/swift/usr/bin:$PATH"
out="${out:-$(mktemp -d "${TMPDIR:-/tmp}/flake-sweep.XXXXXX")}"
mkdir -p "$out"
# A run goes in the background and is waited for, so that SIGINT and SIGTERM stop it (its whole process group:
# timeout, swift test and the test processes) at once, not after it ended.
run_pid=""
stop_run() {
    [[ -z "$run_pid" ]] || kill -TERM -- "-$run_pid" 2>/dev/null || true
}
trap 'stop_run; stop_hogs' EXIT
trap 'stop_run; stop_hogs; exit 130' INT TERM

deadline=$((SECONDS + deadline_minutes * 60))
failures="$out/failures.tsv" # condition, run, test, location and message
: >"$failures"
runs=0
skipped=0

# one_run CONDITION INDEX COMMAND...: runs the suite, records each failing test once per run.
one_run() {
    local condition="$1" index="$2"
    shift 2
    local log="$out/$condition-$index.log" status=0 started=$SECONDS
    if ((SECONDS >= deadline)); then
        skipped=$((skipped + 1))
        echo "$condition run $index: skipped (the ${deadline_minutes}-minute deadline passed)"
        return
    fi
    setsid timeout --kill-after=30 "$run_timeout" "$@" swift test --skip-build >"$log" 2>&1 &
    run_pid=$!
    wait "$run_pid" || status=$?
    run_pid=""
    runs=$((runs + 1))
    local before
    before=$(wc -l <"$failures")
    # Swift Testing, once per issue: "✘ Test name() recorded an issue at File.swift:12:9: Expectation failed: …",
    # "✘ Test name(x:) recorded an issue with 1 argument x → 5 at File.swift:3:1: …", "✘ Suite S recorded an issue: …"
    # (no location).
    grep -aE '^✘ (Test|Suite) .* recorded an issue' "$log" |
        sed -E -e 's/ recorded an issue with .* at ([^ ]+\.swift:[0-9]+:[0-9]+): / recorded an issue at \1: /' \
            -e 's/^✘ (Test|Suite) (.*) recorded an issue( at ([^ ]+))?: (.*)$/\2\t\4\t\5/' |
        awk -F'\t' -v c="$condition" -v r="$index" '!seen[$1]++ { print c "\t" r "\t" $1 "\t" $2 "\t" $3 }' \
            >>"$failures" || true # no failing test: grep finds nothing
    if ! grep -aq '^[✔✘] Test run with ' "$log"; then
        printf '%s\t%s\t(the run itself)\t-\texit %s without a summary (timeout or crash), see %s\n' \
            "$condition" "$index" "$status" "$log" >>"$failures"
    elif ((status != 0)) && (($(wc -l <"$failures") == before)); then
        printf '%s\t%s\t(the run itself)\t-\texit %s with no failing test found in %s\n' \
            "$condition" "$index" "$status" "$log" >>"$failures"
    fi
    echo "$condition run $index: exit $status in $((SECONDS - started)) s, $(grep -a '^[✔✘] Test run with ' "$log" |
        tail -n 1 | cut -c 5- || true)"
}

for ((index = 1; index <= hog_runs; index++)); do
    start_hogs
    one_run hogs "$index"
    stop_hogs
done
for ((index = 1; index <= core_runs; index++)); do
    one_run one-core "$index" taskset -c 0
done

echo
echo "flake sweep: $runs runs ($hog_runs under two hogs, $core_runs on one core; $skipped skipped), logs in $out"
if [[ ! -s "$failures" ]]; then
    echo "no test failed"
    exit 0
fi
printf '%-60s %-10s %s\n' "test" "failures" "first failure"
awk -F'\t' -v total="$runs" '
    { count[$3]++; if (!($3 in first)) first[$3] = $1 " run " $2 ": " $4 ": " substr($5, 1, 160) }
    END { for (t in count) printf "%-60s %-10s %s\n", t, count[t] "/" total, first[t] }' "$failures" | sort
exit 1
