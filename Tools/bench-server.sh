#!/usr/bin/env bash
# The reference upload server's two benchmarks (issue 3), in one run on this machine: release build, loopback
# HTTP, durability on; never part of the test suite.
#
#   Tools/bench-server.sh           1GiB upload vs dd, BENCH_ROUNDS rounds (default 3); 200 x 5MiB uploads
#   Tools/bench-server.sh --quick   64MiB upload vs dd, 1 round; 20 x 5MiB uploads: a smoke test
#
#   1. One upload of BENCH_UPLOAD_SIZE (default 1GiB) in one streaming creation request (squall-bench upload)
#      against `dd if=/dev/zero bs=1M conv=fsync` of the same size, both into one scratch folder (same disk).
#      Each round runs dd, then the upload on a fresh server. PASS when the median upload reaches 50 % of
#      the median dd rate.
#   2. BENCH_UPLOADS (default 200) concurrent uploads of BENCH_UPLOADS_SIZE (default 5MiB), one connection
#      each, to one fresh server (squall-bench uploads): PASS when every one is intact (final response and
#      /_squall/uploads: complete, right offset, SHA-256 of the bytes sent) and the server's peak RSS (VmHWM)
#      stays under 200 MiB.
#
# The scratch folder is made under $SQUALL_BENCH_DIR (default ${TMPDIR:-/tmp}) and removed at the end.
# BENCH_SERVER_ARGS adds flags to every `squall server` (e.g. "--progress-interval 16MiB"); default none.
# Prints MB/s (10^6 bytes/s) and the verdicts; exits non-zero on any FAIL.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
}

upload_size="${BENCH_UPLOAD_SIZE:-1GiB}"
rounds="${BENCH_ROUNDS:-3}"
uploads="${BENCH_UPLOADS:-200}"
uploads_size="${BENCH_UPLOADS_SIZE:-5MiB}"
read -ra server_args <<<"${BENCH_SERVER_ARGS:-}"
case "${1:-}" in
"") ;;
--quick)
    upload_size=64MiB
    rounds=1
    uploads=20
    ;;
-h | --help)
    usage
    exit 0
    ;;
*)
    echo "bench-server.sh: unknown argument '$1'" >&2
    usage >&2
    exit 2
    ;;
esac
for size in "$upload_size" "$uploads_size"; do
    [[ "$size" =~ ^[1-9][0-9]*(MiB|GiB)$ ]] || {
        echo "bench-server.sh: size '$size' must be whole MiB or GiB (e.g. 1GiB, 5MiB)" >&2
        exit 2
    }
done
if ! [[ "$rounds" =~ ^[0-9]+$ ]] || ((rounds < 1 || rounds > 20)); then
    echo "bench-server.sh: BENCH_ROUNDS must be 1 to 20" >&2
    exit 2
fi
if ! [[ "$uploads" =~ ^[0-9]+$ ]] || ((uploads < 1 || uploads > 1000)); then
    echo "bench-server.sh: BENCH_UPLOADS must be 1 to 1000" >&2
    exit 2
fi
# Seconds any one step (dd, a benchmark client, a server's start or stop) may take before the run is abandoned.
step_timeout=600
# The thresholds issue 3 sets.
min_ratio=0.50
max_rss_kib=$((200 * 1024))

fail() {
    echo "bench-server.sh: $*" >&2
    exit 1
}

# mebibytes SIZE: the size (whole MiB or GiB) in MiB.
mebibytes() {
    local number="${1%?iB}"
    case "$1" in
    *GiB) echo $((number * 1024)) ;;
    *MiB) echo "$number" ;;
    esac
}

Tools/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"
for product in squall squall-bench; do
    echo "== swift build -c release --product $product" >&2
    swift build -c release --product "$product" >&2
done
bin="$(swift build -c release --show-bin-path)"
squall="$bin/squall"
bench="$bin/squall-bench"
[[ -x "$squall" && -x "$bench" ]] || fail "no squall or squall-bench in $bin"

scratch_parent="${SQUALL_BENCH_DIR:-${TMPDIR:-/tmp}}"
mkdir -p "$scratch_parent"
work=$(mktemp -d "$scratch_parent/squall-server-bench.XXXXXX")
server_pid=""
client_pid=""
cleanup() {
    [[ -n "$client_pid" ]] && kill -TERM "$client_pid" 2>/dev/null
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server NAME: starts `squall server` on a fresh store $work/NAME and waits for its URL (first stdout line)
# in $url; the server's pid is $server_pid. Reading the line is the readiness signal: no polling.
start_server() {
    local name="$1" folder
    coproc SERVER { exec "$squall" server --store "$work/$name" "${server_args[@]}" 2>"$work/$name.err"; }
    # shellcheck disable=SC2153 # SERVER_PID is set by coproc
    server_pid=$SERVER_PID
    exec {server_out}<&"${SERVER[0]}"
    read -r -t 30 -u "$server_out" url || fail "squall server did not print its URL: $(cat "$work/$name.err")"
    read -r -t 30 -u "$server_out" folder || fail "squall server did not print its store folder"
    [[ "$url" == http://* && "$folder" == "$work/$name" ]] || fail "unexpected server output: '$url' '$folder'"
}

# stop_server: SIGTERM, then waits (bounded) for the exit; SIGKILL if it does not come.
stop_server() {
    [[ -n "$server_pid" ]] || return 0
    kill -TERM "$server_pid" 2>/dev/null || true
    timeout 30 tail --pid="$server_pid" -f /dev/null || kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    exec {server_out}<&-
    server_pid=""
}

# client ARGS…: runs squall-bench ARGS in the background (so a signal reaches the trap at once) with a timeout;
# its stdout lands in $work/client.out.
client() {
    timeout "$step_timeout" "$bench" "$@" >"$work/client.out" &
    client_pid=$!
    local status=0
    wait "$client_pid" || status=$?
    client_pid=""
    return "$status"
}

# field NAME LINE: the value of `NAME=value` in a result line.
field() {
    sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}

# median NUMBER…: the median, one decimal.
median() {
    printf '%s\n' "$@" | sort -g | awk '
        { value[NR] = $1 }
        END { printf "%.1f\n", NR % 2 ? value[(NR + 1) / 2] : (value[NR / 2] + value[NR / 2 + 1]) / 2 }'
}

filesystem=$(df -P "$work" | awk 'NR == 2 { print $1 }')
fstype=$(df -PT "$work" | awk 'NR == 2 { print $2 }')
echo "squall server benchmarks on $(nproc) CPUs; scratch $work on $filesystem ($fstype); MB/s = 10^6 bytes/s"
echo "squall server flags: ${server_args[*]:-(defaults)}"
verdicts=()

echo
echo "== 1. one $upload_size upload vs dd conv=fsync of $upload_size, $rounds round(s)"
dd_rates=()
upload_rates=()
count=$(mebibytes "$upload_size")
for ((round = 1; round <= rounds; round++)); do
    LC_ALL=C timeout "$step_timeout" dd if=/dev/zero of="$work/dd.bin" bs=1M count="$count" conv=fsync 2>"$work/dd.err" ||
        fail "dd failed: $(cat "$work/dd.err")"
    rm -f "$work/dd.bin"
    dd_rate=$(awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "copied,") printf "%.1f\n", $1 / $(i + 1) / 1e6 }' \
        "$work/dd.err")
    [[ -n "$dd_rate" ]] || fail "cannot read dd's output: $(cat "$work/dd.err")"
    dd_rates+=("$dd_rate")
    echo "  round $round dd: $(tail -n 1 "$work/dd.err")"

    start_server "store-$round"
    client upload --url "$url" --size "$upload_size" --seed "$round" || fail "upload failed"
    line=$(<"$work/client.out")
    stop_server
    rm -rf "$work/store-$round"
    upload_rates+=("$(field mbps "$line")")
    echo "  round $round squall: $line"
done
dd_median=$(median "${dd_rates[@]}")
upload_median=$(median "${upload_rates[@]}")
ratio=$(awk -v u="$upload_median" -v d="$dd_median" 'BEGIN { printf "%.2f", (d > 0 ? u / d : 0) }')
verdict=$(awk -v r="$ratio" -v m="$min_ratio" 'BEGIN { print (r >= m ? "PASS" : "FAIL") }')
verdicts+=("$verdict")
printf '%-44s %8s MB/s  [%s]\n' "dd bs=1M conv=fsync (median)" "$dd_median" "${dd_rates[*]}"
printf '%-44s %8s MB/s  [%s]\n' "squall server, one upload (median)" "$upload_median" "${upload_rates[*]}"
echo "ratio upload/dd: $ratio (target >= $min_ratio): $verdict"

echo
echo "== 2. $uploads concurrent uploads of $uploads_size to one server"
start_server store-many
status=0
client uploads --url "$url" --count "$uploads" --size "$uploads_size" || status=$?
line=$(<"$work/client.out")
rss_kib=$(awk '/^VmHWM:/ { print $2 }' "/proc/$server_pid/status" 2>/dev/null || true)
[[ -n "$rss_kib" ]] || fail "cannot read VmHWM of the server (pid $server_pid): did it exit? $(cat "$work/store-many.err")"
stop_server
echo "  $line"
intact=$(field intact "$line")
if ((status == 0)) && [[ "$intact" == "$uploads" ]]; then verdict=PASS; else verdict=FAIL; fi
verdicts+=("$verdict")
echo "intact: ${intact:-0} of $uploads: $verdict"
echo "wall time: $(field seconds "$line") s; aggregate: $(field mbps "$line") MB/s"
if ((rss_kib < max_rss_kib)); then verdict=PASS; else verdict=FAIL; fi
verdicts+=("$verdict")
echo "server peak RSS (VmHWM): $(awk -v k="$rss_kib" 'BEGIN { printf "%.1f", k / 1024 }') MiB" \
    "(target < $((max_rss_kib / 1024)) MiB): $verdict"

[[ " ${verdicts[*]} " != *" FAIL "* ]] || exit 1
