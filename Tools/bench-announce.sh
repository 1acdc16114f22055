#!/usr/bin/env bash
# How soon the reference server announces a creation (issue 26): the time from a creation's request head to the
# 104 that carries its Location, p50 and p99, direct and through `squall proxy`, idle and under two CPU hogs, in
# interleaved rounds in one run. Until that 104 a client cannot resume, so a cut before it starts the upload over.
#
#   Tools/bench-announce.sh           BENCH_ROUNDS rounds (default 3) of BENCH_COUNT creations (default 200) each
#   Tools/bench-announce.sh --quick   1 round of 20 creations: a smoke test
#
# Each creation is interop 8 with Upload-Complete: ?1 and a BENCH_SIZE body (default 8MiB), streamed as a client
# streams it on a connection of its own, and reset once the 104 arrives (squall-bench announce). The server and the
# proxy (plain HTTP: no TLS on either leg) run in their own processes on loopback, release builds. BENCH_BEFORE=DIR
# also runs the squall binary in DIR (an earlier build) in the same rounds, so that before and after are measured on
# the same machine at the same time. Prints one line per measurement with the bytes the client had pushed by the
# 104; never part of the test suite.
set -euo pipefail
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

rounds="${BENCH_ROUNDS:-3}"
count="${BENCH_COUNT:-200}"
size="${BENCH_SIZE:-8MiB}"
if quick_requested "$@"; then
    rounds=1
    count=20
fi
check_range BENCH_ROUNDS "$rounds" 1 20
check_range BENCH_COUNT "$count" 1 5000
check_mebibytes "$size" "8MiB, 1GiB"

bin=$(build_squall_and_bench)
bench="$bin/squall-bench"
builds=("after:$bin/squall")
if [[ -n "${BENCH_BEFORE:-}" ]]; then
    [[ -x "$BENCH_BEFORE/squall" ]] || fail "BENCH_BEFORE=$BENCH_BEFORE has no squall binary"
    builds=("before:$BENCH_BEFORE/squall" "${builds[@]}")
fi

work=$(scratch_folder squall-announce-bench)
proxy_pid=""
hogs=()
stop_hogs() {
    ((${#hogs[@]} == 0)) || kill -KILL "${hogs[@]}" 2>/dev/null || true
    ((${#hogs[@]} == 0)) || wait "${hogs[@]}" 2>/dev/null || true
    hogs=()
}
stop_proxy() {
    [[ -n "$proxy_pid" ]] || return 0
    kill -TERM "$proxy_pid" 2>/dev/null || true
    wait "$proxy_pid" 2>/dev/null || true
    proxy_pid=""
}
trap 'stop_hogs; stop_proxy; clean_up "$work"' EXIT
trap 'exit 130' INT TERM

# measure LABEL SQUALL LOAD: one measurement of $count creations against a fresh server of SQUALL, direct and
# through its proxy, under LOAD (idle or hogs).
measure() {
    local label="$1" squall="$2" load="$3" store proxy_url line route url
    store="$work/store-$label-$load-$RANDOM"
    mkdir -p "$store"
    start_server "$squall" "$store"
    # The proxy's first stdout line is its URL; a FIFO carries it (bash runs one coproc at a time: the server's).
    mkfifo "$store.proxy.out"
    "$squall" proxy --plain --upstream "$server_url" >"$store.proxy.out" 2>"$store.proxy.err" &
    proxy_pid=$!
    exec {proxy_out}<"$store.proxy.out"
    read -r -t 30 -u "$proxy_out" proxy_url || fail "squall proxy did not print its URL: $(cat "$store.proxy.err")"
    if [[ "$load" == hogs ]]; then
        for ((core = 0; core < 2; core++)); do
            (while :; do :; done) &
            hogs+=($!)
        done
    fi
    for route in direct proxy; do
        url="$server_url"
        [[ "$route" == proxy ]] && url="$proxy_url"
        step "$work/out" "$bench" announce --url "$url" --count "$count" --size "$size" ||
            fail "squall-bench announce failed ($label, $route, $load)"
        line=$(cat "$work/out")
        printf '%-7s %-7s %-6s p50 %6s us  p99 %6s us  max %6s us  pushed by the 104: p50 %s, p99 %s bytes\n' \
            "$label" "$route" "$load" "$(field p50_us "$line")" "$(field p99_us "$line")" "$(field max_us "$line")" \
            "$(field sent_p50 "$line")" "$(field sent_p99 "$line")"
    done
    stop_hogs
    stop_proxy
    exec {proxy_out}<&-
    stop_server
    rm -rf "$store" "$store.proxy.out" "$store.proxy.err" "$store.err"
}

echo "creation head → 104 on $(nproc) CPUs: $count creations of $size per measurement, $rounds rounds"
for ((round = 1; round <= rounds; round++)); do
    echo "round $round"
    for load in idle hogs; do
        for build in "${builds[@]}"; do
            measure "${build%%:*}" "${build#*:}" "$load"
        done
    done
done
