#!/usr/bin/env bash
# The cost of the decrypted capture (issues 7 and 14): one BENCH_CAPTURE_SIZE (default 1GiB) streaming POST
# through the chaos proxy (TLS listener, http mode) to proxy-responder, three ways, interleaved in the same run,
# BENCH_ROUNDS rounds (default 3): capture off; the flight recorder (`squall run --capture on-failure`: packets
# kept in memory per connection, dropped at the end as for a passing scenario); the streaming capture (`squall
# run --capture always`: written as the traffic flows). Each round's rates and ratios to off, the median ratios,
# the proxy's VmHWM and the proxy's CPU seconds per GiB for each way, and the capture file's size. Release
# build, loopback only, never part of the test suite. Exits 0 even when a target is missed (it is a report),
# non-zero only when a benchmark could not run.
#
#   Tools/bench-capture.sh          1GiB, 3 rounds
#   Tools/bench-capture.sh --quick  64MiB, 1 round: a smoke test
#
#   client ──TLS──▶ squall-bench proxy [--pcap-recorder FILE | --pcap FILE] ──plain──▶ proxy-responder
#
# Targets (issue 14): the flight recorder ≥ 0.9 of off, the streaming capture ≥ 0.6 of off; the proxy's VmHWM
# while streaming < 64 MiB (memory does not grow with the bytes captured). The streaming capture writes both
# legs, two bytes per byte proxied, in 1 MiB direct writes (O_DIRECT, past the page cache, where the file system
# allows it), so the file system's rate for such writes (measured too, with dd oflag=direct) bounds its ratio; the
# script prints that ceiling beside the result, and the page cache's rate for new data for comparison.
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
min_recorder_ratio=0.9
min_streaming_ratio=0.6
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

clock_ticks=$(getconf CLK_TCK)

# upload_through NAME [PROXY ARGS…]: one $size upload through a fresh proxy; sets last_rate (MB/s), last_hwm
# (the proxy's VmHWM in KiB) and last_cpu (the proxy's user + system CPU seconds per GiB, its whole life).
upload_through() {
    local name="$1" line ticks
    shift
    start "$name" proxy --listen 127.0.0.1:0 --upstream "http://$responder" --mode http --ca "$work/ca" "$@"
    line=$(client "$name-upload.out" proxy-upload --to "$(listening "$name")" --size "$size" --ca-file "$ca_file")
    last_hwm=$(status_kib "$name" VmHWM)
    ticks=$(sed 's/.*) //' "/proc/${pid_of[$name]}/stat" | awk '{ print $12 + $13 }')
    stop "$name"
    last_rate=$(field mbps "$line")
    last_cpu=$(awk -v t="$ticks" -v h="$clock_ticks" -v m="$(mebibytes "$size")" \
        'BEGIN { printf "%.2f", t / h * 1024 / m }')
}

ways=(off recorder streaming)
declare -A rates=() cpus=() ratios=() hwms=()
pcap_bytes=0
for ((round = 1; round <= rounds; round++)); do
    # The order turns each round, so that no way always follows the same one.
    order=("${ways[@]:round % 3}" "${ways[@]:0:round % 3}")
    declare -A rate=()
    for way in "${order[@]}"; do
        case "$way" in
            off) upload_through "off-$round" ;;
            recorder) upload_through "recorder-$round" --pcap-recorder "$work/recorder-$round.pcap" ;;
            streaming) upload_through "streaming-$round" --pcap "$work/streaming-$round.pcap" ;;
        esac
        rate[$way]=$last_rate
        rates[$way]+="$last_rate "
        cpus[$way]+="$last_cpu "
        ((last_hwm > ${hwms[$way]:-0})) && hwms[$way]=$last_hwm
    done
    # A passing run's flight recorder writes nothing (at most the pcap header).
    recorder_bytes=$(stat -c %s "$work/recorder-$round.pcap" 2>/dev/null || echo 0)
    ((recorder_bytes <= 4096)) || fail "the dropped flight recorder wrote $recorder_bytes bytes"
    pcap_bytes=$(stat -c %s "$work/streaming-$round.pcap")
    rm -f "$work/recorder-$round.pcap" "$work/streaming-$round.pcap"
    for way in recorder streaming; do ratios[$way]+="$(quotient "${rate[$way]}" "${rate[off]}") "; done
    read -ra recorder_ratios <<<"${ratios[recorder]}"
    read -ra streaming_ratios <<<"${ratios[streaming]}"
    echo "  round $round (order ${order[*]}): off ${rate[off]} MB/s, recorder ${rate[recorder]} MB/s" \
        "(ratio ${recorder_ratios[-1]}), streaming ${rate[streaming]} MB/s (ratio ${streaming_ratios[-1]})" >&2
    unset rate
done
stop responder
# The ceiling the file system sets: the capture writes both legs, two bytes per byte proxied, so the proxy cannot
# go faster than half the rate at which this folder takes them: 1 MiB direct writes, as the capture makes them
# (ordinary 64 KiB writes into the page cache, what it made before, for comparison; no fsync either way).
# dd_rate FLAGS…: MB/s of dd writing twice the upload's size of new data into the scratch folder with FLAGS.
dd_rate() {
    local line
    line=$(dd if=/dev/zero of="$work/disk-rate" "$@" 2>&1 | tail -1)
    rm -f "$work/disk-rate"
    awk -v b="$(($(mebibytes "$size") * 2 * 1048576))" -v line="$line" 'BEGIN {
        n = split(line, f, " "); for (i = 1; i < n; i++) if (f[i + 1] == "s,") s = f[i]; printf "%.1f", (s > 0 ? b / s / 1e6 : 0) }'
}
disk_mbps=$(dd_rate bs=1M count=$(($(mebibytes "$size") * 2)) oflag=direct)
cache_mbps=$(dd_rate bs=64K count=$(($(mebibytes "$size") * 32)))

declare -A medians=() cpu_medians=()
for way in "${ways[@]}"; do
    read -ra values <<<"${rates[$way]}"
    medians[$way]=$(median "${values[@]}")
    read -ra values <<<"${cpus[$way]}"
    cpu_medians[$way]=$(printf '%s\n' "${values[@]}" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }')
done
recorder_ratio=$(quotient "${medians[recorder]}" "${medians[off]}")
streaming_ratio=$(quotient "${medians[streaming]}" "${medians[off]}")
echo
echo "== capture cost ($size upload, $rounds round(s) interleaved; the streaming pcap of one upload is $pcap_bytes bytes)"
echo "capture off: ${medians[off]} MB/s (rounds ${rates[off]% }), proxy CPU ${cpu_medians[off]} s/GiB"
echo "flight recorder (dropped): ${medians[recorder]} MB/s (rounds ${rates[recorder]% }), proxy CPU" \
    "${cpu_medians[recorder]} s/GiB, ratio to off $recorder_ratio (rounds ${ratios[recorder]% }; target >=" \
    "$min_recorder_ratio): $(at_least "$recorder_ratio" "$min_recorder_ratio")"
echo "streaming capture: ${medians[streaming]} MB/s (rounds ${rates[streaming]% }), proxy CPU" \
    "${cpu_medians[streaming]} s/GiB, ratio to off $streaming_ratio (rounds ${ratios[streaming]% }; target >=" \
    "$min_streaming_ratio): $(at_least "$streaming_ratio" "$min_streaming_ratio")"
off_median=${medians[off]}
ceiling=$(awk -v d="$disk_mbps" -v o="$off_median" 'BEGIN { r = (o > 0 ? d / 2 / o : 0); printf "%.2f", (r > 1 ? 1 : r) }')
echo "file system: $disk_mbps MB/s for $(($(mebibytes "$size") * 2)) MiB in 1 MiB direct writes (dd oflag=direct)" \
    "in $work (page cache, 64 KiB writes: $cache_mbps MB/s); writing both legs caps the streaming ratio at $ceiling"
echo "capture memory: proxy VmHWM off $(kib_as_mib "${hwms[off]}") MiB, recorder $(kib_as_mib "${hwms[recorder]}")" \
    "MiB, streaming $(kib_as_mib "${hwms[streaming]}") MiB while capturing $size (streaming target <" \
    "$((max_hwm_kib / 1024)) MiB): $(below "${hwms[streaming]}" "$max_hwm_kib")"
