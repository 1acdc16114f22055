# shellcheck shell=bash
# What the scripts that run scenarios under load share (Tools/load-check.sh, Tools/cut-sweep.sh): the checks of
# their tools, busy CPU hogs, and one run of a scenario folder under a condition. Sourced, never run:
#
#   source "$(dirname "$0")/load-lib.sh"
#
# Messages name the script that sourced this file (${0##*/}). The globals are the hogs' pids (hogs), so that the
# exit trap can stop them, and the scratch folder the runs write to (load_work).

hogs=()
load_work=""

# require_load_tools SQUALL: exits 2 unless SQUALL is an executable and taskset is there.
require_load_tools() {
    [[ -x "$1" ]] || {
        echo "${0##*/}: no squall binary at $1 (build it first: swift build --product squall)" >&2
        exit 2
    }
    command -v taskset >/dev/null 2>&1 || {
        echo "${0##*/}: taskset is missing (Debian's util-linux has it)" >&2
        exit 2
    }
}

# start_hogs: a busy loop with no output on every core; they end with the script (stop_hogs in its trap) at the
# latest.
start_hogs() {
    local core
    for ((core = 0; core < $(nproc); core++)); do
        (while :; do :; done) &
        hogs+=($!)
    done
}

# stop_hogs: SIGKILL (a SIGTERM that the calling process ignores stays ignored in its children), then waits.
stop_hogs() {
    ((${#hogs[@]} == 0)) || kill -KILL "${hogs[@]}" 2>/dev/null || true
    ((${#hogs[@]} == 0)) || wait "${hogs[@]}" 2>/dev/null || true
    hogs=()
}

# run_under NAME LABEL FOLDER COMMAND... [-- RUN FLAGS...]: `COMMAND run FOLDER --json` into $load_work/LABEL.json,
# printing "NAME, LABEL: <the run's last line>"; on a failing scenario, the failures on stderr and exit 1. Flags after
# the command that start with `--` go to `squall run` (`--http-matrix`).
run_under() {
    local name="$1" label="$2" folder="$3"
    shift 3
    local command=() flags=()
    for word in "$@"; do
        if [[ "$word" == --* ]]; then flags+=("$word"); else command+=("$word"); fi
    done
    local status=0
    "${command[@]}" run "$folder" --json "$load_work/$label.json" "${flags[@]}" >"$load_work/$label.out" 2>&1 \
        || status=$?
    echo "$name, $label: $(tail -n 1 "$load_work/$label.out")"
    if ((status != 0)); then
        echo "${0##*/}: $name failed $label (exit $status):" >&2
        grep -v '^PASS ' "$load_work/$label.out" >&2 || true
        exit 1
    fi
}
