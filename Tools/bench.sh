#!/usr/bin/env bash
# Throughput of Squall's TLS-terminating relay against nginx's stream `ssl` termination (issue 2), in one run
# on this machine, then the HTTP/1.1 request-head parsing rate on one core. Release build; loopback only;
# never part of the test suite.
#
#   Tools/bench.sh            BENCH_BYTES per transfer (default 1GiB), BENCH_ROUNDS rounds (default 3)
#   Tools/bench.sh --quick    64MiB, 1 round: a smoke test
#
#   source-tls ──TLS 1.3──▶ squall-bench relay-tls-to ─┐
#   source-tls ──TLS 1.3──▶ nginx stream ssl ──────────┼──plain──▶ squall-bench sink
#   source ──────plain────▶ squall-bench relay-to ─────┤
#   source ──────plain────▶ nginx stream ──────────────┘
#
# Both TLS servers present an EC P-256 leaf for `localhost` signed by the same throwaway CA; both relays use
# 256 KiB buffers and pass half-closes on, so every transfer is timed until the sink has read the last byte
# and closed. Each round runs every path once, the first path alternating between squall and nginx. Prints a
# table of MB/s (10^6 bytes/s): median [min–max], and the squall/nginx ratio of the medians.
set -euo pipefail
# shellcheck source=bench-lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/bench-lib.sh"
cd "$(dirname "$0")/.."

bytes="${BENCH_BYTES:-1GiB}"
rounds="${BENCH_ROUNDS:-3}"
if quick_requested "$@"; then
    bytes=64MiB
    rounds=1
fi
[[ "$bytes" =~ ^[0-9]+(KiB|MiB|GiB)?$ ]] || {
    echo "bench.sh: BENCH_BYTES '$bytes' is not a size (e.g. 1GiB, 64MiB)" >&2
    exit 2
}
check_range BENCH_ROUNDS "$rounds" 1 20
# Seconds one transfer may take before the run is abandoned.
transfer_timeout=600

Tools/setup.sh --bench
bench="$(build_release squall-bench)/squall-bench"
[[ -x "$bench" ]] || fail "no squall-bench at $bench"
stream_module=$(find /usr/lib/nginx/modules -name ngx_stream_module.so -print -quit 2>/dev/null || true)
[[ -n "$stream_module" ]] || fail "ngx_stream_module.so not found under /usr/lib/nginx/modules"

work=$(mktemp -d "${TMPDIR:-/tmp}/squall-bench.XXXXXX")
pids=()
transfer_pid=""
cleanup() {
    local pid
    for pid in ${transfer_pid:+"$transfer_pid"} "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME ARGS…: runs a squall-bench server in the background, output in $work/NAME.out.
start() {
    local name="$1"
    shift
    "$bench" "$@" >"$work/$name.out" 2>"$work/$name.err" &
    pids+=("$!")
}

# listening NAME: waits (at most 10 s) for NAME's `… listening=ADDR` line and prints ADDR.
listening() {
    local name="$1" attempt address
    for ((attempt = 0; attempt < 200; attempt++)); do
        address=$(sed -n 's/^.* listening=\([^ ]*\)$/\1/p' "$work/$name.out" | head -n 1)
        if [[ -n "$address" ]]; then
            echo "$address"
            return 0
        fi
        sleep 0.05
    done
    fail "$name did not start listening: $(cat "$work/$name.err")"
}

start sink sink --listen 127.0.0.1:0
sink=$(listening sink)
start squall-tls relay-tls-to --listen 127.0.0.1:0 --upstream "$sink" --ca "$work/ca"
squall_tls=$(listening squall-tls)
start squall-plain relay-to --listen 127.0.0.1:0 --upstream "$sink"
squall_plain=$(listening squall-plain)

# nginx cannot report a port 0 choice: ask the kernel for two free ports, release them, hand them to nginx.
read -r nginx_tls_port nginx_plain_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))
')
mkdir "$work/nginx"
"$bench" mint-leaf --ca "$work/ca" --host localhost --out "$work/nginx" >/dev/null
cat >"$work/nginx/nginx.conf" <<EOF
load_module $stream_module;
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log notice;
events {
    worker_connections 64;
}
stream {
    log_format session '\$server_port \$ssl_protocol \$ssl_cipher received=\$bytes_received time=\$session_time';
    access_log $work/nginx/access.log session;
    server {
        listen 127.0.0.1:$nginx_tls_port ssl;
        ssl_certificate $work/nginx/leaf.pem;
        ssl_certificate_key $work/nginx/leaf-key.pem;
        ssl_protocols TLSv1.3;
        proxy_pass $sink;
        proxy_buffer_size 256k;
        proxy_half_close on;
    }
    server {
        listen 127.0.0.1:$nginx_plain_port;
        proxy_pass $sink;
        proxy_buffer_size 256k;
        proxy_half_close on;
    }
}
EOF
nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" &
pids+=("$!")
# nginx writes its pid file once its listening sockets are bound.
for ((attempt = 0; attempt < 200; attempt++)); do
    [[ -s "$work/nginx/nginx.pid" ]] && break
    sleep 0.05
done
[[ -s "$work/nginx/nginx.pid" ]] || fail "nginx did not start: $(cat "$work/nginx/error.log" 2>/dev/null)"

declare -A targets=(
    [squall-tls]="$squall_tls" [nginx-tls]="127.0.0.1:$nginx_tls_port"
    [squall-plain]="$squall_plain" [nginx-plain]="127.0.0.1:$nginx_plain_port"
)
declare -A results=()
declare -A negotiated=()

# transfer PATH: sends $bytes through PATH once; records MB/s (and, for TLS, what the client negotiated).
# The client runs in the background so that a signal reaches the trap at once, not after the transfer.
transfer() {
    local path="$1" line
    local client=(source --to "${targets[$path]}" --bytes "$bytes")
    if [[ "$path" == *-tls ]]; then
        client=(source-tls --to "${targets[$path]}" --bytes "$bytes"
            --ca-file "$work/ca/ca.pem" --server-name localhost)
    fi
    timeout "$transfer_timeout" "$bench" "${client[@]}" >"$work/transfer.out" &
    transfer_pid=$!
    wait "$transfer_pid" || fail "$path transfer failed"
    transfer_pid=""
    line=$(<"$work/transfer.out")
    if [[ "$path" == *-tls ]]; then
        negotiated[$path]=$(sed -n 's/.*\(version=.*\)$/\1/p' <<<"$line")
    fi
    echo "  $path: $line" >&2
    results[$path]+="$(sed -n 's/.* mbps=\([0-9.]*\).*/\1/p' <<<"$line") "
}

# stats NUMBER…: prints "median min max", rounded.
stats() {
    printf '%s\n' "$@" | sort -g | awk '
        { value[NR] = $1 }
        END {
            median = NR % 2 ? value[(NR + 1) / 2] : (value[NR / 2] + value[NR / 2 + 1]) / 2
            printf "%.0f %.0f %.0f\n", median, value[1], value[NR]
        }'
}

echo "== $rounds round(s) of $bytes per path" >&2
for ((round = 1; round <= rounds; round++)); do
    echo "round $round" >&2
    if ((round % 2)); then order=(squall nginx); else order=(nginx squall); fi
    for kind in tls plain; do
        for server in "${order[@]}"; do
            transfer "$server-$kind"
        done
    done
done

echo
nginx_version=$(nginx -v 2>&1 | sed 's/^nginx version: //')
echo "squall vs nginx on $(nproc) CPUs, $nginx_version, $(openssl version | cut -d' ' -f1-2);" \
    "$bytes per transfer, $rounds round(s); MB/s = 10^6 bytes/s"
printf '%-34s %8s  %s\n' "path" "median" "[min-max]"
declare -A medians=()
for path in squall-tls nginx-tls squall-plain nginx-plain; do
    read -ra values <<<"${results[$path]}"
    read -r median low high < <(stats "${values[@]}")
    medians[$path]=$median
    case "$path" in
    squall-tls) label="TLS via squall relay-tls-to" ;;
    nginx-tls) label="TLS via nginx stream ssl" ;;
    squall-plain) label="plain via squall relay-to" ;;
    nginx-plain) label="plain via nginx stream" ;;
    esac
    printf '%-34s %8s  [%s-%s]\n' "$label" "$median" "$low" "$high"
done
for kind in tls plain; do
    awk -v s="${medians[squall-$kind]}" -v n="${medians[nginx-$kind]}" -v k="$kind" \
        'BEGIN { printf "ratio squall/nginx (%s): %.2f\n", k, (n > 0 ? s / n : 0) }'
done
echo "negotiated (client view): squall ${negotiated[squall-tls]}; nginx ${negotiated[nginx-tls]}"
# count: "N line" per distinct input line, joined by ";".
count() {
    sort | uniq -c | sed 's/^ *//' | paste -sd ';'
}
echo "squall relay-tls-to saw: $(grep -o 'version=.*' "$work/squall-tls.out" | count)"
nginx_saw=$(awk -v port="$nginx_tls_port" '$1 == port { print $2, $3 }' "$work/nginx/access.log" | count)
echo "nginx access log saw:    $nginx_saw"

echo
echo "== HTTP/1.1 request-head parsing on one core (HTTP1Parser, pipelined 200-byte PATCH heads)"
"$bench" parse-heads --rounds 5
