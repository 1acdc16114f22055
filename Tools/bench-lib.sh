# shellcheck shell=bash
# What the benchmark scripts share: argument checks, the release build, the scratch folder and its cleanup, one
# `squall server` at a time, timed steps and the arithmetic of the verdicts. Sourced, never run:
#
#   source "$(dirname "$0")/bench-lib.sh"
#
# Messages name the script that sourced this file (${0##*/}). Functions take what they need as arguments; the
# only globals are the running server (server_pid, server_url, its stdout fd server_out) and the running step
# (step_pid), so that the exit trap can stop them, and the time limit of a step (step_timeout).

server_pid=""
server_url=""
step_pid=""
# Seconds any one step (making a file, dd, an upload, a benchmark client) may take before the run is abandoned.
step_timeout=600

# usage: the calling script's header comment (the lines after the shebang up to the first line not a comment).
usage() {
    awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'
}

# fail MESSAGE…: prints the message, prefixed with the script's name, to stderr and exits 1.
fail() {
    echo "${0##*/}: $*" >&2
    exit 1
}

# quick_requested [ARGUMENT]: true for --quick, false for no argument; prints the usage and exits 0 for -h or
# --help; exits 2 on anything else.
quick_requested() {
    case "${1:-}" in
    "") return 1 ;;
    --quick) return 0 ;;
    -h | --help)
        usage
        exit 0
        ;;
    *)
        echo "${0##*/}: unknown argument '$1'" >&2
        usage >&2
        exit 2
        ;;
    esac
}

# check_range NAME VALUE LOW HIGH: exits 2 unless VALUE is a whole number from LOW to HIGH.
check_range() {
    local name="$1" value="$2" low="$3" high="$4"
    if ! [[ "$value" =~ ^[0-9]+$ ]] || ((value < low || value > high)); then
        echo "${0##*/}: $name must be $low to $high" >&2
        exit 2
    fi
}

# check_mebibytes SIZE EXAMPLES: exits 2 unless SIZE is whole MiB or GiB; EXAMPLES go into the message.
check_mebibytes() {
    [[ "$1" =~ ^[1-9][0-9]*(MiB|GiB)$ ]] || {
        echo "${0##*/}: size '$1' must be whole MiB or GiB (e.g. $2)" >&2
        exit 2
    }
}

# mebibytes SIZE: the size (whole MiB or GiB) in MiB.
mebibytes() {
    local number="${1%?iB}"
    case "$1" in
    *GiB) echo $((number * 1024)) ;;
    *MiB) echo "$number" ;;
    esac
}

# build_release PRODUCT…: builds each product in release mode (progress on stderr) and prints the bin folder.
build_release() {
    local product
    export PATH="/opt/swift/usr/bin:$PATH"
    for product in "$@"; do
        echo "== swift build -c release --product $product" >&2
        swift build -c release --product "$product" >&2 || return
    done
    swift build -c release --show-bin-path
}

# build_squall_and_bench: runs Tools/setup.sh, builds squall and squall-bench in release mode, fails unless both are
# there, and prints their folder.
build_squall_and_bench() {
    local bin
    Tools/setup.sh >&2 || return
    bin=$(build_release squall squall-bench) || return
    [[ -x "$bin/squall" && -x "$bin/squall-bench" ]] || fail "no squall or squall-bench in $bin"
    echo "$bin"
}

# scratch_folder NAME: makes a fresh folder NAME.XXXXXX under $SQUALL_BENCH_DIR (default ${TMPDIR:-/tmp}) and
# prints its path.
scratch_folder() {
    local parent="${SQUALL_BENCH_DIR:-${TMPDIR:-/tmp}}"
    mkdir -p "$parent" && mktemp -d "$parent/$1.XXXXXX"
}

# remove_at_exit FOLDER: at exit, stops the running step and server, then removes FOLDER; SIGINT and SIGTERM exit
# with 130 (and so run the same cleanup).
remove_at_exit() {
    # shellcheck disable=SC2064 # the folder is fixed now, quoted by printf
    trap "clean_up $(printf '%q' "$1")" EXIT
    trap 'exit 130' INT TERM
}

# clean_up FOLDER: what remove_at_exit runs.
clean_up() {
    [[ -n "$step_pid" ]] && kill -TERM "$step_pid" 2>/dev/null
    stop_server
    rm -rf "$1"
}

# filesystem_of FOLDER: "DEVICE (TYPE)" of the filesystem holding FOLDER.
filesystem_of() {
    local device type
    device=$(df -P "$1" | awk 'NR == 2 { print $1 }')
    type=$(df -PT "$1" | awk 'NR == 2 { print $2 }')
    echo "$device ($type)"
}

# start_server SQUALL STORE [FLAG…]: starts `SQUALL server --store STORE FLAG…` (stderr in STORE.err) and waits for
# its URL (first stdout line) in $server_url; its pid is $server_pid. Reading the line is the readiness signal:
# no polling.
start_server() {
    local squall="$1" store="$2" folder
    shift 2
    coproc SERVER { exec "$squall" server --store "$store" "$@" 2>"$store.err"; }
    # shellcheck disable=SC2153 # SERVER_PID is set by coproc
    server_pid=$SERVER_PID
    exec {server_out}<&"${SERVER[0]}"
    read -r -t 30 -u "$server_out" server_url || fail "squall server did not print its URL: $(cat "$store.err")"
    read -r -t 30 -u "$server_out" folder || fail "squall server did not print its store folder"
    [[ "$server_url" == http://* && "$folder" == "$store" ]] ||
        fail "unexpected server output: '$server_url' '$folder'"
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

# step OUT COMMAND…: runs COMMAND in the background (so a signal reaches the trap at once), killed after
# $step_timeout seconds; its stdout lands in OUT; returns its status.
step() {
    local out="$1" status=0
    shift
    timeout "$step_timeout" "$@" >"$out" &
    step_pid=$!
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

# quotient NUMERATOR DENOMINATOR: the quotient, two decimals; 0.00 when DENOMINATOR is not positive.
quotient() {
    awk -v n="$1" -v d="$2" 'BEGIN { printf "%.2f", (d > 0 ? n / d : 0) }'
}

# at_least VALUE MINIMUM: PASS when VALUE >= MINIMUM, else FAIL.
at_least() {
    awk -v v="$1" -v m="$2" 'BEGIN { print (v >= m ? "PASS" : "FAIL") }'
}

# rate_row LABEL MEDIAN RATES: one table row, "LABEL  MEDIAN MB/s  [RATES]".
rate_row() {
    printf '%-44s %8s MB/s  [%s]\n' "$1" "$2" "$3"
}

# kib_as_mib KIB: KIB in MiB, one decimal.
kib_as_mib() {
    awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}

# exit_on_fail VERDICT…: exits 1 when any verdict is FAIL.
exit_on_fail() {
    [[ " $* " != *" FAIL "* ]] || exit 1
}
