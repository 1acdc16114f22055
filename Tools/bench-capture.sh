#!/usr/bin/env bash
# The cost of the decrypted capture (issue 7): one BENCH_CAPTURE_SIZE (default 1GiB) streaming POST through the
# chaos proxy (TLS listener, http mode) to proxy-responder, with the capture off and on, alternating, in the
# same run, BENCH_ROUNDS rounds (default 3); the median rates, their ratio, the proxy's VmHWM while capturing,
# and the capture file's size. Release build, loopback only, never part of the test suite. Exits 0 even when a
# target is missed (it is a report), non-zero only when a benchmark could not run.
#
#   Tools/bench-capture.sh          1GiB, 3 rounds
#   Tools/bench-capture.sh --quick  64MiB, 1 round: a smoke test
#
#   client ──TLS──▶ squall-bench proxy [--pcap FILE] ──plain──▶ proxy-responder
#
# Targets: throughput with capture ≥ 75 % of throughput without (capture costs at most 25 %); the proxy's VmHWM
# while capturing < 64 MiB (writing streams: memory does not grow with the bytes captured). The capture writes
# both legs, two bytes per byte proxied, so the file system's rate for new data (measured too, with dd) bounds
# the ratio; the script prints that ceiling beside the result.
set -euo pipefail
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

size="${BENCH_CAPTURE_SIZE:-1GiB}"
rounds="${BENCH_ROUNDS:-3}"
if quick_requested "$@"; then
    size=64MiB
    rounds=1
fi
check_mebibytes "$size" "1GiB, 64MiB"
check_range BENCH_ROUNDS "$rounds" 1 20
min_ratio=0.75
max_hwm_kib=$((64 * 1024))

Tools/setup.sh
bench="$(build_release squall-bench)/squall-bench"
[[ -x "$bench" ]] || fail "no squall-bench at $bench"
work=$(scratch_folder squall-capture-bench)
# shellcheck source=bench-processes.sh source-path=SCRIPTDIR
source Tools/bench-processes.sh

ca_file="$work/ca/ca.pem"
"$bench" mint-leaf --ca "$work/ca" --host localhost --out "$work/leaf" >/dev/null
start responder proxy-responder --listen 127.0.0.1:0
responder=$(listening responder)

# upload_through NAME [PROXY ARGS…]: one $size upload through a fresh proxy; sets last_rate (MB/s) and last_hwm
# (the proxy's VmHWM in KiB).
upload_through() {
    local name="$1" line
    shift
    start "$name" proxy --listen 127.0.0.1:0 --upstream "http://$responder" --mode http --ca "$work/ca" "$@"
    line=$(client "$name-upload.out" proxy-upload --to "$(listening "$name")" --size "$size" --ca-file "$ca_file")
    last_hwm=$(status_kib "$name" VmHWM)
    stop "$name"
    last_rate=$(field mbps "$line")
}

off=()
on=()
hwm_kib=0
pcap_bytes=0
for ((round = 1; round <= rounds; round++)); do
    upload_through "plain-$round"
    off+=("$last_rate")
    upload_through "capture-$round" --pcap "$work/capture-$round.pcap"
    on+=("$last_rate")
    hwm=$last_hwm
    ((hwm > hwm_kib)) && hwm_kib=$hwm
    pcap_bytes=$(stat -c %s "$work/capture-$round.pcap")
    rm -f "$work/capture-$round.pcap"
    echo "  round $round: capture off ${off[-1]} MB/s, on ${on[-1]} MB/s, VmHWM $(kib_as_mib "$hwm") MiB" >&2
done
stop responder
# The ceiling the file system sets: the capture writes both legs, two bytes per byte proxied, so the proxy cannot
# go faster than half the rate at which this folder takes new data (measured as the capture writes: 64 KiB
# writes into the page cache, no fsync).
disk_line=$(dd if=/dev/zero of="$work/disk-rate" bs=64K count=$(($(mebibytes "$size") * 32)) 2>&1 | tail -1)
rm -f "$work/disk-rate"
disk_mbps=$(awk -v b="$(($(mebibytes "$size") * 2 * 1048576))" -v line="$disk_line" 'BEGIN {
    n = split(line, f, " "); for (i = 1; i < n; i++) if (f[i + 1] == "s,") s = f[i]; printf "%.1f", (s > 0 ? b / s / 1e6 : 0) }')

off_median=$(median "${off[@]}")
on_median=$(median "${on[@]}")
ratio=$(quotient "$on_median" "$off_median")
echo
echo "== capture cost ($size upload, $rounds round(s); the pcap of one upload is $pcap_bytes bytes)"
echo "capture: off $off_median MB/s, on $on_median MB/s, ratio $ratio (target >= $min_ratio):" \
    "$(at_least "$ratio" "$min_ratio")"
ceiling=$(awk -v d="$disk_mbps" -v o="$off_median" 'BEGIN { r = (o > 0 ? d / 2 / o : 0); printf "%.2f", (r > 1 ? 1 : r) }')
echo "file system: $disk_mbps MB/s for $(($(mebibytes "$size") * 2)) MiB of new data (dd, 64 KiB writes) in $work;" \
    "writing both legs caps the ratio at $ceiling"
echo "capture memory: proxy VmHWM $(kib_as_mib "$hwm_kib") MiB while capturing $size" \
    "(target < $((max_hwm_kib / 1024)) MiB): $(below "$hwm_kib" "$max_hwm_kib")"
