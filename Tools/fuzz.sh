#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer: builds the fuzz targets of Tests/Fuzz/Targets (release, instrumented with
# -sanitize=fuzzer,address, in .build-fuzz so that .build is never touched) and runs each in turn, one process at a
# time, for a bounded time or number of runs.
#
#   Tools/fuzz.sh [--seconds N] [--runs N] [--merge] [--keep] [--build-only] [TARGET...]   (default: all, 10 s each)
#   Tools/fuzz.sh --list
#
# With both limits a run stops at the first one reached. Each run reads Tests/Fuzz/Corpus/TARGET as its seed (never
# written to) and Tests/Fuzz/Dictionaries/TARGET.dict when there is one; what it finds goes to a working corpus in a
# temporary folder. --merge then minimises the finds into the seed folder (only inputs that add coverage). Every
# input gets at most 10 s (-timeout) and the process 2 GiB (-rss_limit_mb). Exits non-zero when any target crashed,
# leaked, timed out or ran out of memory, naming the saved input; the temporary folder (logs, working corpora, crash
# artifacts) is kept then, or with --keep, and removed otherwise. With SQUALL_BUILD_LOCK set (a file, such as
# /tmp/squall-build.lock), every build holds that lock (flock), so that builds sharing a machine take turns.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

# Runs a build command under $SQUALL_BUILD_LOCK when it is set.
locked() {
    if [[ -n "${SQUALL_BUILD_LOCK:-}" ]]; then
        flock "$SQUALL_BUILD_LOCK" "$@"
    else
        "$@"
    fi
}

usage() {
    sed -n '6,7s/^# \{0,3\}//p' "$0" >&2
    exit "${1:-2}"
}

targets_dir=Tests/Fuzz/Targets
all_targets=()
for file in "$targets_dir"/*.swift; do
    name=$(basename "$file" .swift)
    all_targets+=("$name")
done

limit=()
merge=false
keep=false
build_only=false
targets=()
while (($# > 0)); do
    case "$1" in
    --seconds)
        [[ "${2:-}" =~ ^[0-9]+$ ]] || usage
        limit+=(-max_total_time="$2")
        shift 2
        ;;
    --runs)
        [[ "${2:-}" =~ ^[0-9]+$ ]] || usage
        limit+=(-runs="$2")
        shift 2
        ;;
    --merge)
        merge=true
        shift
        ;;
    --keep)
        keep=true
        shift
        ;;
    --build-only)
        build_only=true
        shift
        ;;
    --list)
        printf '%s\n' "${all_targets[@]}"
        exit 0
        ;;
    -h | --help) usage 0 ;;
    -*)
        echo "fuzz.sh: unknown option '$1'" >&2
        usage
        ;;
    *)
        [[ -f "$targets_dir/$1.swift" ]] || {
            echo "fuzz.sh: no target '$1' (targets: ${all_targets[*]})" >&2
            exit 2
        }
        targets+=("$1")
        shift
        ;;
    esac
done
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")
((${#limit[@]} > 0)) || limit=(-max_total_time=10)

# The library modules the targets import (their dependencies come along), built once, instrumented. TestSupport
# brings the shared test doubles (FakeRuntime, BudgetCell) and, with them, HTTPExchange, ControlAPI and TLSKit.
scratch=.build-fuzz
modules=(TestSupport Scenario ProxyFlow)
mkdir -p "$scratch"
echo "== building ${modules[*]} (release, -sanitize=fuzzer,address) in $scratch"
for module in "${modules[@]}"; do
    locked swift build -c release --scratch-path "$scratch" \
        --sanitize=fuzzer --sanitize=address --target "$module" >"$scratch/build.log" 2>&1 || {
        cat "$scratch/build.log" >&2
        echo "fuzz.sh: building $module failed" >&2
        exit 1
    }
done
release="$scratch/release"
objects=()
for module in "$release"/Modules/*.swiftmodule; do
    objects+=("$release/$(basename "$module" .swiftmodule).build"/*.o)
done

# Each target links its file, the shared support and every module's objects; rebuilt when any of them changed.
mkdir -p "$scratch/fuzzers"
support=(Tests/Fuzz/Support/*.swift)
for name in "${targets[@]}"; do
    binary="$scratch/fuzzers/$name"
    if [[ -x "$binary" ]] && [[ -z "$(find "$targets_dir/$name.swift" "${support[@]}" "${objects[@]}" \
        -newer "$binary" -print -quit)" ]]; then
        continue
    fi
    echo "== building fuzz target $name"
    locked swiftc -O -swift-version 6 -sanitize=fuzzer,address -parse-as-library -use-ld=lld \
        -module-name "Fuzz_${name//-/_}" -I "$release/Modules" \
        -Xcc -fmodule-map-file="$PWD/Sources/CSystem/module.modulemap" \
        -Xcc -fmodule-map-file="$PWD/Sources/COpenSSL/module.modulemap" \
        -Xcc -fmodule-map-file="$PWD/Sources/CNghttp2/module.modulemap" \
        "$targets_dir/$name.swift" "${support[@]}" "${objects[@]}" -o "$binary"
done
$build_only && exit 0

# A trap is libFuzzer's to report (it saves the input); Swift's own backtracer would trip AddressSanitizer.
# Allocation stacks cost a third of the time: rerun an input with ASAN_OPTIONS=malloc_context_size=30 to see them.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"
work=$(mktemp -d /tmp/squall-fuzz.XXXXXX)
failed=()
for name in "${targets[@]}"; do
    corpus="$work/$name/corpus"
    artifacts="$work/$name/artifacts"
    mkdir -p "$corpus" "$artifacts" "Tests/Fuzz/Corpus/$name"
    options=(-rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" "${limit[@]}")
    [[ -f "Tests/Fuzz/Dictionaries/$name.dict" ]] && options+=(-dict="Tests/Fuzz/Dictionaries/$name.dict")
    echo "== fuzzing $name (${limit[*]})"
    if "$scratch/fuzzers/$name" "${options[@]}" "$corpus" "Tests/Fuzz/Corpus/$name" >"$work/$name/log" 2>&1; then
        grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' \
            "$work/$name/log" || true
    else
        failed+=("$name")
        tail -n 40 "$work/$name/log"
        echo "fuzz.sh: $name FAILED; input saved in: $(ls -d "$artifacts"/* 2>/dev/null | tr '\n' ' ')" >&2
        echo "fuzz.sh: reproduce with $scratch/fuzzers/$name INPUT; log $work/$name/log" >&2
    fi
    if $merge; then
        "$scratch/fuzzers/$name" -merge=1 -rss_limit_mb=2048 -timeout=10 "Tests/Fuzz/Corpus/$name" "$corpus" \
            >"$work/$name/merge.log" 2>&1 || echo "fuzz.sh: merging $name failed; see $work/$name/merge.log" >&2
        grep -E '^MERGE-OUTER: [0-9]+ new files' "$work/$name/merge.log" || true
    fi
done

if ((${#failed[@]} > 0)); then
    echo "fuzz.sh: FAILED: ${failed[*]}; logs, working corpora and crash artifacts in $work" >&2
    exit 1
fi
if $keep; then
    echo "== logs and working corpora: $work"
else
    rm -rf "$work"
fi
