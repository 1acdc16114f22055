#!/usr/bin/env bash
# The reference client's upload benchmark (issue 4), in one run on this machine: release build, loopback HTTP to
# one `squall server` (durability on); never part of the test suite.
#
#   Tools/bench-client.sh           one 1GiB file, BENCH_ROUNDS rounds (default 3) of curl then squall-bench transfer
#   Tools/bench-client.sh --quick   a 64MiB file, 1 round: a smoke test
#
#   Each round uploads the same file of BENCH_FILE_SIZE (default 1GiB; /dev/urandom, in the scratch folder) to the
#   same server twice: first `curl -s -o /dev/null -X POST -T FILE -H 'Upload-Draft-Interop-Version: 8'
#   -H 'Upload-Complete: ?1' URL/upload` (timed by curl's own time_total), then `squall-bench transfer` (the
#   UploadTransfer engine: preflight, one streaming interop 8 creation, 64 KiB chunks; timed from the preflight to
#   the final response). curl streams the file with -T; `--data-binary @FILE` would read it into memory first,
#   and curl 7.88 refuses that for files of 1 GiB and more ("out of memory").
#   PASS when the median transfer rate reaches 70 % of curl's median, and when the client's peak RSS (VmHWM, its
#   largest over the rounds) stays under 64 MiB. At the end `GET /_squall/uploads` must list every upload as
#   complete, at the file's length, with the file's SHA-256 (sha256sum, computed once).
#
# The scratch folder is made under $SQUALL_BENCH_DIR (default ${TMPDIR:-/tmp}) and removed at the end.
# Prints MB/s (10^6 bytes/s) and the verdicts; exits non-zero on any FAIL.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
}

file_size="${BENCH_FILE_SIZE:-1GiB}"
rounds="${BENCH_ROUNDS:-3}"
case "${1:-}" in
"") ;;
--quick)
    file_size=64MiB
    rounds=1
    ;;
-h | --help)
    usage
    exit 0
    ;;
*)
    echo "bench-client.sh: unknown argument '$1'" >&2
    usage >&2
    exit 2
    ;;
esac
[[ "$file_size" =~ ^[1-9][0-9]*(MiB|GiB)$ ]] || {
    echo "bench-client.sh: size '$file_size' must be whole MiB or GiB (e.g. 1GiB, 64MiB)" >&2
    exit 2
}
if ! [[ "$rounds" =~ ^[0-9]+$ ]] || ((rounds < 1 || rounds > 20)); then
    echo "bench-client.sh: BENCH_ROUNDS must be 1 to 20" >&2
    exit 2
fi
# Seconds any one step (making the file, an upload, the server's start or stop) may take before the run is abandoned.
step_timeout=600
# The thresholds issue 4 sets.
min_ratio=0.70
max_rss_kib=$((64 * 1024))

fail() {
    echo "bench-client.sh: $*" >&2
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
work=$(mktemp -d "$scratch_parent/squall-client-bench.XXXXXX")
server_pid=""
step_pid=""
cleanup() {
    [[ -n "$step_pid" ]] && kill -TERM "$step_pid" 2>/dev/null
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server: starts `squall server` on the store $work/store and waits for its URL (first stdout line) in $url;
# the server's pid is $server_pid. Reading the line is the readiness signal: no polling.
start_server() {
    local folder
    coproc SERVER { exec "$squall" server --store "$work/store" 2>"$work/server.err"; }
    # shellcheck disable=SC2153 # SERVER_PID is set by coproc
    server_pid=$SERVER_PID
    exec {server_out}<&"${SERVER[0]}"
    read -r -t 30 -u "$server_out" url || fail "squall server did not print its URL: $(cat "$work/server.err")"
    read -r -t 30 -u "$server_out" folder || fail "squall server did not print its store folder"
    [[ "$url" == http://* && "$folder" == "$work/store" ]] || fail "unexpected server output: '$url' '$folder'"
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

# step OUT COMMAND…: runs COMMAND in the background (so a signal reaches the trap at once) with a timeout; its
# stdout lands in OUT.
step() {
    local out="$1"
    shift
    timeout "$step_timeout" "$@" >"$out" &
    step_pid=$!
    local status=0
    wait "$step_pid" || status=$?
    step_pid=""
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
echo "squall client benchmark on $(nproc) CPUs; scratch $work on $filesystem ($fstype); MB/s = 10^6 bytes/s"
echo "curl: $(curl --version | head -n 1 | cut -d ' ' -f 1-2)"

file="$work/upload.bin"
bytes=$(($(mebibytes "$file_size") * 1024 * 1024))
step "$file" head -c "$bytes" /dev/urandom || fail "cannot write $bytes bytes to $file"
step "$work/sha256" sha256sum "$file" || fail "sha256sum failed"
sha256=$(cut -d ' ' -f 1 "$work/sha256")
echo "file: $file_size ($bytes bytes), sha256 $sha256"

start_server
echo "server: $url (store $work/store)"
echo
echo "== one $file_size upload with curl, then with squall-bench transfer, $rounds round(s)"
curl_rates=()
transfer_rates=()
peak_rss_kib=0
for ((round = 1; round <= rounds; round++)); do
    step "$work/curl.out" curl -s -o /dev/null -w '%{http_code} %{time_total} %{size_upload}\n' \
        -X POST -T "$file" -H 'Upload-Draft-Interop-Version: 8' -H 'Upload-Complete: ?1' "$url/upload" ||
        fail "curl failed (exit $?)"
    read -r code seconds sent <"$work/curl.out"
    [[ "$code" == 2?? && "$sent" == "$bytes" ]] || fail "curl: status $code, $sent of $bytes bytes sent"
    curl_rate=$(awk -v b="$bytes" -v s="$seconds" 'BEGIN { printf "%.1f", b / s / 1e6 }')
    curl_rates+=("$curl_rate")
    echo "  round $round curl: status=$code bytes=$sent seconds=$seconds mbps=$curl_rate"

    step "$work/transfer.out" "$bench" transfer --url "$url/upload" --file "$file" || fail "squall-bench transfer failed"
    line=$(<"$work/transfer.out")
    transfer_rates+=("$(field mbps "$line")")
    rss_kib=$(field vmhwm_kib "$line")
    if ((rss_kib > peak_rss_kib)); then peak_rss_kib=$rss_kib; fi
    echo "  round $round squall: $line"
done

step "$work/uploads.json" curl -s --fail "$url/_squall/uploads" || fail "GET /_squall/uploads failed"
records=$(grep -o '{[^{}]*}' "$work/uploads.json" | wc -l || true)
intact=$(grep -o '{[^{}]*}' "$work/uploads.json" | grep '"complete":true' | grep "\"offset\":${bytes}[,}]" |
    grep -c "\"sha256\":\"$sha256\"" || true)
stop_server

verdicts=()
curl_median=$(median "${curl_rates[@]}")
transfer_median=$(median "${transfer_rates[@]}")
ratio=$(awk -v t="$transfer_median" -v c="$curl_median" 'BEGIN { printf "%.2f", (c > 0 ? t / c : 0) }')
verdict=$(awk -v r="$ratio" -v m="$min_ratio" 'BEGIN { print (r >= m ? "PASS" : "FAIL") }')
verdicts+=("$verdict")
echo
printf '%-44s %8s MB/s  [%s]\n' "curl -X POST -T (median)" "$curl_median" "${curl_rates[*]}"
printf '%-44s %8s MB/s  [%s]\n' "squall-bench transfer (median)" "$transfer_median" "${transfer_rates[*]}"
echo "ratio transfer/curl: $ratio (target >= $min_ratio): $verdict"
if ((peak_rss_kib > 0 && peak_rss_kib < max_rss_kib)); then verdict=PASS; else verdict=FAIL; fi
verdicts+=("$verdict")
echo "client peak RSS (VmHWM): $(awk -v k="$peak_rss_kib" 'BEGIN { printf "%.1f", k / 1024 }') MiB" \
    "(target < $((max_rss_kib / 1024)) MiB): $verdict"
if ((records == 2 * rounds && intact == 2 * rounds)); then verdict=PASS; else verdict=FAIL; fi
verdicts+=("$verdict")
echo "intact (GET /_squall/uploads: complete, $bytes bytes, sha256): $intact of $((2 * rounds)) uploads," \
    "$records listed: $verdict"

[[ " ${verdicts[*]} " != *" FAIL "* ]] || exit 1
