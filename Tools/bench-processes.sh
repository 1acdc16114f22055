#!/usr/bin/env bash
# Background processes for the benchmark scripts that run squall-bench commands side by side (bench-proxy.sh,
# bench-capture.sh). Source it after setting `bench` (the squall-bench binary) and `work` (the scratch folder,
# removed by the EXIT trap this file sets); `step_pid` comes from bench-lib.sh's `step`.

declare -A pid_of=()
# More folders to remove at exit (bench-proxy.sh's tmpfs store).
cleanup_also=()
cleanup() {
    local pid
    [[ -n "$step_pid" ]] && kill -TERM "$step_pid" 2>/dev/null
    for pid in "${pid_of[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pid_of[@]}"; do
        timeout 10 tail --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$work" "${cleanup_also[@]}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME ARGS…: runs `squall-bench ARGS…` in the background, output in $work/NAME.out and NAME.err.
start() {
    local name="$1"
    shift
    : >"$work/$name.out"
    "$bench" "$@" >"$work/$name.out" 2>"$work/$name.err" &
    pid_of[$name]=$!
}

# stop NAME: SIGTERM to a process `start` began, then waits (bounded) for it.
stop() {
    local pid="${pid_of[$1]}"
    kill -TERM "$pid" 2>/dev/null || true
    timeout 30 tail --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    unset "pid_of[$1]"
}

# await NAME KEY SECONDS: waits (at most SECONDS) for NAME's first output line with ` KEY=`; prints that line.
# Fails with NAME's stderr when the process exits or the time runs out first.
await() {
    local name="$1" key="$2" attempt line
    for ((attempt = 0; attempt < $3 * 20; attempt++)); do
        line=$(grep -m 1 " $key=" "$work/$name.out" || true)
        if [[ -n "$line" ]]; then
            echo "$line"
            return 0
        fi
        kill -0 "${pid_of[$name]}" 2>/dev/null || break
        sleep 0.05
    done
    fail "$name printed no $key=: $(cat "$work/$name.err")"
}

# listening NAME: NAME's listening address.
listening() {
    field listening "$(await "$1" listening 10)"
}

# status_kib NAME FIELD: a field of /proc/PID/status of NAME, in KiB (VmRSS, VmHWM) or as a count (Threads).
status_kib() {
    local value
    value=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/${pid_of[$1]}/status" 2>/dev/null || true)
    [[ -n "$value" ]] || fail "cannot read $2 of $1 (pid ${pid_of[$1]}): $(cat "$work/$1.err")"
    echo "$value"
}

# client OUT ARGS…: runs `squall-bench ARGS…` as a bounded step; its result line lands in $work/OUT.
client() {
    local out="$1"
    shift
    step "$work/$out" "$bench" "$@" || fail "squall-bench $1 failed: $(cat "$work/$out")"
    cat "$work/$out"
}

# below VALUE LIMIT: PASS when VALUE < LIMIT, else FAIL.
below() {
    awk -v v="$1" -v l="$2" 'BEGIN { print (v < l ? "PASS" : "FAIL") }'
}
