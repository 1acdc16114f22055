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
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

upload_size="${BENCH_UPLOAD_SIZE:-1GiB}"
rounds="${BENCH_ROUNDS:-3}"
uploads="${BENCH_UPLOADS:-200}"
uploads_size="${BENCH_UPLOADS_SIZE:-5MiB}"
read -ra server_args <<<"${BENCH_SERVER_ARGS:-}"
if quick_requested "$@"; then
    upload_size=64MiB
    rounds=1
    uploads=20
fi
for size in "$upload_size" "$uploads_size"; do
    check_mebibytes "$size" "1GiB, 5MiB"
done
check_range BENCH_ROUNDS "$rounds" 1 20
check_range BENCH_UPLOADS "$uploads" 1 1000
# The thresholds issue 3 sets.
min_ratio=0.50
max_rss_kib=$((200 * 1024))

bin=$(build_squall_and_bench)
squall="$bin/squall"
bench="$bin/squall-bench"

work=$(scratch_folder squall-server-bench)
remove_at_exit "$work"

# client ARGS…: runs squall-bench ARGS as a step; its stdout lands in $work/client.out.
client() {
    step "$work/client.out" "$bench" "$@"
}

echo "squall server benchmarks on $(nproc) CPUs; scratch $work on $(filesystem_of "$work"); MB/s = 10^6 bytes/s"
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

    start_server "$squall" "$work/store-$round" "${server_args[@]}"
    client upload --url "$server_url" --size "$upload_size" --seed "$round" || fail "upload failed"
    line=$(<"$work/client.out")
    stop_server
    rm -rf "$work/store-$round"
    upload_rates+=("$(field mbps "$line")")
    echo "  round $round squall: $line"
done
dd_median=$(median "${dd_rates[@]}")
upload_median=$(median "${upload_rates[@]}")
ratio=$(quotient "$upload_median" "$dd_median")
verdict=$(at_least "$ratio" "$min_ratio")
verdicts+=("$verdict")
rate_row "dd bs=1M conv=fsync (median)" "$dd_median" "${dd_rates[*]}"
rate_row "squall server, one upload (median)" "$upload_median" "${upload_rates[*]}"
echo "ratio upload/dd: $ratio (target >= $min_ratio): $verdict"

echo
echo "== 2. $uploads concurrent uploads of $uploads_size to one server"
start_server "$squall" "$work/store-many" "${server_args[@]}"
status=0
client uploads --url "$server_url" --count "$uploads" --size "$uploads_size" || status=$?
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
echo "server peak RSS (VmHWM): $(kib_as_mib "$rss_kib") MiB" \
    "(target < $((max_rss_kib / 1024)) MiB): $verdict"

exit_on_fail "${verdicts[@]}"
