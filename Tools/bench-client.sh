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
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

file_size="${BENCH_FILE_SIZE:-1GiB}"
rounds="${BENCH_ROUNDS:-3}"
if quick_requested "$@"; then
    file_size=64MiB
    rounds=1
fi
check_mebibytes "$file_size" "1GiB, 64MiB"
check_range BENCH_ROUNDS "$rounds" 1 20
# The thresholds issue 4 sets.
min_ratio=0.70
max_rss_kib=$((64 * 1024))

bin=$(build_squall_and_bench)
squall="$bin/squall"
bench="$bin/squall-bench"

work=$(scratch_folder squall-client-bench)
remove_at_exit "$work"

echo "squall client benchmark on $(nproc) CPUs; scratch $work on $(filesystem_of "$work"); MB/s = 10^6 bytes/s"
echo "curl: $(curl --version | head -n 1 | cut -d ' ' -f 1-2)"

file="$work/upload.bin"
bytes=$(($(mebibytes "$file_size") * 1024 * 1024))
step "$file" head -c "$bytes" /dev/urandom || fail "cannot write $bytes bytes to $file"
step "$work/sha256" sha256sum "$file" || fail "sha256sum failed"
sha256=$(cut -d ' ' -f 1 "$work/sha256")
echo "file: $file_size ($bytes bytes), sha256 $sha256"

start_server "$squall" "$work/store"
echo "server: $server_url (store $work/store)"
echo
echo "== one $file_size upload with curl, then with squall-bench transfer, $rounds round(s)"
curl_rates=()
transfer_rates=()
peak_rss_kib=0
for ((round = 1; round <= rounds; round++)); do
    step "$work/curl.out" curl -s -o /dev/null -w '%{http_code} %{time_total} %{size_upload}\n' \
        -X POST -T "$file" -H 'Upload-Draft-Interop-Version: 8' -H 'Upload-Complete: ?1' "$server_url/upload" ||
        fail "curl failed (exit $?)"
    read -r code seconds sent <"$work/curl.out"
    [[ "$code" == 2?? && "$sent" == "$bytes" ]] || fail "curl: status $code, $sent of $bytes bytes sent"
    curl_rate=$(awk -v b="$bytes" -v s="$seconds" 'BEGIN { printf "%.1f", b / s / 1e6 }')
    curl_rates+=("$curl_rate")
    echo "  round $round curl: status=$code bytes=$sent seconds=$seconds mbps=$curl_rate"

    step "$work/transfer.out" "$bench" transfer --url "$server_url/upload" --file "$file" ||
        fail "squall-bench transfer failed"
    line=$(<"$work/transfer.out")
    transfer_rates+=("$(field mbps "$line")")
    rss_kib=$(field vmhwm_kib "$line")
    if ((rss_kib > peak_rss_kib)); then peak_rss_kib=$rss_kib; fi
    echo "  round $round squall: $line"
done

step "$work/uploads.json" curl -s --fail "$server_url/_squall/uploads" || fail "GET /_squall/uploads failed"
records=$(grep -o '{[^{}]*}' "$work/uploads.json" | wc -l || true)
intact=$(grep -o '{[^{}]*}' "$work/uploads.json" | grep '"complete":true' | grep "\"offset\":${bytes}[,}]" |
    grep -c "\"sha256\":\"$sha256\"" || true)
stop_server

verdicts=()
curl_median=$(median "${curl_rates[@]}")
transfer_median=$(median "${transfer_rates[@]}")
ratio=$(quotient "$transfer_median" "$curl_median")
verdict=$(at_least "$ratio" "$min_ratio")
verdicts+=("$verdict")
echo
rate_row "curl -X POST -T (median)" "$curl_median" "${curl_rates[*]}"
rate_row "squall-bench transfer (median)" "$transfer_median" "${transfer_rates[*]}"
echo "ratio transfer/curl: $ratio (target >= $min_ratio): $verdict"
if ((peak_rss_kib > 0 && peak_rss_kib < max_rss_kib)); then verdict=PASS; else verdict=FAIL; fi
verdicts+=("$verdict")
echo "client peak RSS (VmHWM): $(kib_as_mib "$peak_rss_kib") MiB" \
    "(target < $((max_rss_kib / 1024)) MiB): $verdict"
if ((records == 2 * rounds && intact == 2 * rounds)); then verdict=PASS; else verdict=FAIL; fi
verdicts+=("$verdict")
echo "intact (GET /_squall/uploads: complete, $bytes bytes, sha256): $intact of $((2 * rounds)) uploads," \
    "$records listed: $verdict"

exit_on_fail "${verdicts[@]}"
