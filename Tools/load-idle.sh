#!/usr/bin/env bash
# Idle and slow peers against the chaos proxy (issue 16, item 1): do they starve real uploads? Release build,
# loopback only, bounded in connections and time, never part of Tools/test.sh. It exits 0 when every upload
# completed within 2x its unloaded time, 1 when one did not (or failed), 2 on a usage mistake.
#
#   Tools/load-idle.sh           1,000 idle + 300 slowloris connections, 20 uploads of 5 MiB
#   Tools/load-idle.sh --quick   100 idle + 30 slowloris connections, 5 uploads: a smoke test of the script
#
#   curl ──TLS──▶ squall proxy (TLS listener, http mode, default limits) ──▶ squall server (plain, default limits)
#   squall-bench idle-load ──TLS──▶ the same proxy: LOAD_IDLE connections that complete their TLS handshake and send
#       nothing, LOAD_SLOW that send a request head that never ends, one byte a second; each one the proxy ends
#       (its 408 at the head timeout, a 503 over the limit, a close) is opened again at once, so they stay held.
#       They first connect spread over 10 s (the proxy's head timeout), so that their reconnections come steadily
#       (about 130 a second) rather than all in the same second, and the load runs at the lowest priority (nice 19):
#       an attacker's clients run on their own machines, not on the CPUs the measured path needs. The proxy's own
#       cost of every connection (its TLS handshake, thread, 408) is at full priority, as in production.
#
#   1. LOAD_UPLOADS (default 20) uploads of one 5 MiB file, unloaded (after one more to warm up): each is `curl -T`
#      (an interop 8 creation, `Upload-Complete: ?1`, a new TLS connection), timed by curl's time_total; one starts
#      every 600 ms, so that 20 span 12 s, more than the proxy's 10 s head timeout: loaded, they meet a round of the
#      load's reconnections (the slots start together, so the proxy cuts and they reopen in bursts).
#   2. The load starts; once every connection is open ("ready") and as many were reopened ("steady": the proxy's
#      timeouts are cutting them, so the churn of new connections is part of the load), the same uploads again.
#   3. Each upload's time loaded against its own unloaded time; the proxy's and the server's VmRSS and VmHWM while
#      loaded, their threads, the TCP connections the server held while only the load was on (none: idle clients
#      cost the proxy no upstream connection), what the load saw (408s, 503s, closes), and PASS when every upload
#      completed within 2x its unloaded time, FAIL otherwise. Every upload is checked intact in the server's store.
#
# LOAD_IDLE (default 1000), LOAD_SLOW (300), LOAD_UPLOADS (20) and LOAD_SECONDS (the load's time bound, default 300)
# change the run; BENCH_BIN=DIR runs the squall and squall-bench in DIR instead of a fresh release build. The
# scratch folder (CA, the server's store, the file, logs) is made under $SQUALL_BENCH_DIR (default /dev/shm when it
# is writable, else ${TMPDIR:-/tmp}) and removed at the end, with every process the script started: the store is in
# memory by default, so that the disk's fdatasync times (which vary 2 to 4 times from one upload to the next on a
# virtual disk) do not drown what is measured, the connections' cost.
set -euo pipefail
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

idle="${LOAD_IDLE:-1000}"
slow="${LOAD_SLOW:-300}"
uploads="${LOAD_UPLOADS:-20}"
seconds="${LOAD_SECONDS:-300}"
if quick_requested "$@"; then
    idle=100
    slow=30
    uploads=5
fi
check_range LOAD_IDLE "$idle" 1 3000
check_range LOAD_SLOW "$slow" 1 1000
check_range LOAD_UPLOADS "$uploads" 1 100
check_range LOAD_SECONDS "$seconds" 30 1800
step_timeout=180

Tools/setup.sh >&2
bin="${BENCH_BIN:-}"
[[ -n "$bin" ]] || bin=$(build_release squall squall-bench)
squall="$bin/squall"
bench="$bin/squall-bench"
[[ -x "$squall" && -x "$bench" ]] || fail "no squall or squall-bench in $bin"

[[ -z "${SQUALL_BENCH_DIR:-}" && -w /dev/shm ]] && export SQUALL_BENCH_DIR=/dev/shm
work=$(scratch_folder squall-load-idle)
# shellcheck source=bench-processes.sh source-path=SCRIPTDIR
source Tools/bench-processes.sh
trap 'stop_server; cleanup' EXIT

echo "idle and slow peers against squall proxy on $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
    "$idle idle + $slow slowloris connections, $uploads uploads of 5 MiB; store on $(filesystem_of "$work")"

start_server "$squall" "$work/store"
: >"$work/proxy.out"
"$squall" proxy --listen 127.0.0.1:0 --upstream "$server_url" --ca "$work/ca" --api 127.0.0.1:0 \
    >"$work/proxy.out" 2>"$work/proxy.err" &
pid_of[proxy]=$!
# The proxy prints its URL, its control API's and its CA certificate's path: the third line means it is ready.
for ((attempt = 0; attempt < 200; attempt++)); do
    [[ $(wc -l <"$work/proxy.out") -ge 3 ]] && break
    kill -0 "${pid_of[proxy]}" 2>/dev/null || break
    sleep 0.05
done
proxy_url=$(sed -n 1p "$work/proxy.out")
api_url=$(sed -n 2p "$work/proxy.out")
ca_file=$(sed -n 3p "$work/proxy.out")
[[ "$proxy_url" == https://*:* && -s "$ca_file" ]] || fail "squall proxy did not start: $(cat "$work/proxy.err")"
proxy_address=${proxy_url#https://}
head -c $((5 << 20)) /dev/urandom >"$work/upload.bin"

# paced_uploads ARRAY: LOAD_UPLOADS uploads, one starting every 600 ms; their times go into the array ARRAY.
paced_uploads() {
    local -n times="$1"
    local index started elapsed
    times=()
    for ((index = 0; index < uploads; index++)); do
        started=$(date +%s%N)
        times+=("$(upload_time)")
        elapsed=$((($(date +%s%N) - started) / 1000000))
        ((elapsed >= 600)) || sleep "0.$(printf '%03d' $((600 - elapsed)))"
    done
}

# upload_time: one 5 MiB upload through the proxy; prints curl's time_total. Fails unless the answer is 200.
upload_time() {
    local line
    step "$work/curl.out" curl -sS --http1.1 --max-time 120 -X POST -T "$work/upload.bin" -H 'Expect:' \
        -H 'Upload-Draft-Interop-Version: 8' -H 'Upload-Complete: ?1' --cacert "$ca_file" -o "$work/answer" \
        -w '%{http_code} %{time_total}\n' "$proxy_url/upload" || fail "curl failed: $(cat "$work/curl.out")"
    line=$(cat "$work/curl.out")
    [[ "$line" == "200 "* ]] || fail "upload answered '$line': $(cat "$work/answer")"
    echo "${line#200 }"
}

# memory NAME PID: "NAME VmRSS X MiB (VmHWM Y MiB, N threads)" from /proc/PID/status.
memory() {
    awk -v name="$1" '
        $1 == "VmRSS:" { rss = $2 } $1 == "VmHWM:" { hwm = $2 } $1 == "Threads:" { threads = $2 }
        END { printf "%s VmRSS %.1f MiB (VmHWM %.1f MiB, %d threads)", name, rss / 1024, hwm / 1024, threads }
    ' "/proc/$2/status"
}

# cpu_ticks PID: user + system time of a process (every thread), in clock ticks.
cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# upstream_connections: established TCP connections to the server's port (the proxy's upstream legs).
upstream_connections() {
    ss -Htn state established "( dport = :${server_url##*:} )" | wc -l
}

# spread SECONDS…: "median M s, max X s", three decimals.
spread() {
    printf '%s\n' "$@" | sort -g | awk '
        { value[NR] = $1 }
        END { printf "median %.3f s, max %.3f s", NR % 2 ? value[(NR + 1) / 2] : (value[NR / 2] + value[NR / 2 + 1]) / 2, value[NR] }'
}

echo "== 1. $uploads uploads unloaded (after one to warm up)"
upload_time >/dev/null
paced_uploads unloaded
echo "  ${unloaded[*]}"

echo "== 2. the load: $idle idle + $slow one-byte-a-second connections (at most ${seconds}s)"
: >"$work/load.out"
nice -n 19 "$bench" idle-load --to "$proxy_address" --ca-file "$ca_file" --server-name 127.0.0.1 --idle "$idle" \
    --slow "$slow" --ramp 10 --seconds "$seconds" >"$work/load.out" 2>"$work/load.err" &
pid_of[load]=$!
echo "  $(await load connections 120)"
echo "  $(await load reopened 120)"
held_upstream=$(upstream_connections)
echo "== 3. the same $uploads uploads under the load"
proxy_ticks=$(cpu_ticks "${pid_of[proxy]}")
load_ticks=$(cpu_ticks "${pid_of[load]}")
loaded_started=$(date +%s%N)
paced_uploads loaded
loaded_span=$(quotient $(($(date +%s%N) - loaded_started)) 1000000000)
proxy_ticks=$(($(cpu_ticks "${pid_of[proxy]}") - proxy_ticks))
load_ticks=$(($(cpu_ticks "${pid_of[load]}") - load_ticks))
echo "  ${loaded[*]}"
proxy_memory=$(memory "proxy" "${pid_of[proxy]}")
server_memory=$(memory "server" "$server_pid")
open=$(curl -s "$api_url/metrics" | awk '$1 == "squall_proxy_connections_open" { print $2 }')
stop load
summary=$(grep -m 1 ' opened=' "$work/load.out" || true)
[[ -n "$summary" ]] || fail "idle-load printed no summary: $(cat "$work/load.err")"

echo
echo "== results"
verdict=PASS
for ((index = 0; index < uploads; index++)); do
    ratio=$(quotient "${loaded[index]}" "${unloaded[index]}")
    mark=$(awk -v r="$ratio" 'BEGIN { print (r <= 2 ? "ok" : "over 2x") }')
    [[ "$mark" == ok ]] || verdict=FAIL
    printf 'upload %2d: unloaded %6.3f s, loaded %6.3f s, ratio %s %s\n' $((index + 1)) "${unloaded[index]}" \
        "${loaded[index]}" "$ratio" "$mark"
done
echo "unloaded: $(spread "${unloaded[@]}"); loaded: $(spread "${loaded[@]}")"
echo "load: ${summary#idle-load }"
echo "while loaded: $proxy_memory; $server_memory"
echo "while loaded: proxy connections open $open; the server's TCP connections under the load alone: $held_upstream"
ticks=$(getconf CLK_TCK)
echo "CPU during the ${loaded_span} s of the loaded round: proxy $(quotient "$proxy_ticks" "$ticks") s," \
    "idle-load $(quotient "$load_ticks" "$ticks") s"
listing=$(curl -s "$server_url/_squall/uploads")
intact=$(grep -o '"complete":true[^}]*"offset":5242880' <<<"$listing" | wc -l)
echo "uploads intact in the store: $intact of $((2 * uploads + 1))"
((intact == 2 * uploads + 1)) || verdict=FAIL
echo "every upload within 2x its unloaded time: $verdict"
exit_on_fail "$verdict"
