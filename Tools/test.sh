#!/usr/bin/env bash
# The whole test suite: set-up, format lint, module boundaries (Tools/check-imports.py), warnings-as-errors build,
# every test, 9 s of every fuzz target (Tools/fuzz.sh: fails on any crash), then the scenario catalog: 5 runs in
# which every scenario must pass and the runs must agree (Tools/determinism.sh), once over HTTP/1.1 and HTTP/2 (squall
# run --http-matrix), and at both protocols once under two CPU hogs and once on one core (Tools/load-check.sh), the
# version matrix (Tools/interop-matrix.sh: every scenario at every interop
# version it applies to, `final` included), the cut sweep (Tools/cut-sweep.sh: cuts at 10 to 90 % of creations resumed in the
# same three conditions, and its negative control), a newcomer's scenarios judged as they predicted
# (Tools/newcomer-check.py), the docs checked against the binary (Tools/docs-check.py: README.md and docs/ links and
# anchors, every squall command's options, every scenario example validated, the README's quick starts run), the
# catalog's HTML report opened in headless Chromium and checked against its
# JSON report (Tools/report-browser-check.py), HAR files read back by haralyzer (Tools/har-check.py), the proxy's dashboard driven against a live upload
# (Tools/dashboard-browser-check.py), 50 schedules of `squall explore` (every invariant must hold), 60 s of the
# proxy's memory soak (Tools/soak.py: RSS flat within 10 %, descriptors and threads flat); last,
# Examples/SampleExtension built as a user's package, its sample extension
# passing the catalog and each buggy variant failing it with its verdict (Tools/example-check.sh). It fails when any
# catalog scenario fails. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage says how long it took; the last lines list them all (also when a stage fails).
stage_name="set-up"
stage_started=$SECONDS
stage_times=()
stage() {
    stage_times+=("$(printf '%5d s  %s' $((SECONDS - stage_started)) "$stage_name")")
    stage_name="$1"
    stage_started=$SECONDS
    echo "== $1"
}
report_times() {
    local status=$?
    stage_times+=("$(printf '%5d s  %s' $((SECONDS - stage_started)) "$stage_name")")
    echo "== stage times (total $SECONDS s, exit $status)"
    printf '%s\n' "${stage_times[@]}"
}
trap report_times EXIT

Tools/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"

stage "format lint"
swift format lint --strict --recursive Package.swift Sources Tests Tools Examples/SampleExtension/Package.swift Examples/SampleExtension/Sources

stage "module boundaries: declared imports, layers, pure targets (and the checker's own negative controls)"
Tools/check-imports.py --self-test
Tools/check-imports.py

stage "build (warnings are errors) and test"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build

stage "fuzzing: every target of Tests/Fuzz for 9 s from its seed corpus (instrumented build in .build-fuzz)"
Tools/fuzz.sh --seconds 9

stage "the scenario catalog, run 5 times: every scenario passes, reports follow their schema, the runs agree"
Tools/determinism.sh .build/debug/squall

stage "the scenario catalog over HTTP/1.1 and HTTP/2: every scenario at both (squall run --http-matrix), all passing or skipped with why"
.build/debug/squall run --http-matrix

stage "the scenario catalog under load, at both protocols: two CPU hogs, then one core"
Tools/load-check.sh .build/debug/squall

stage "the version matrix: every scenario at every interop version it applies to (3 to 10, final), all passing"
Tools/interop-matrix.sh .build/debug/squall
stage "the cut sweep: RSTs and network switches at 10 to 90 % of creations, each resumed idle, under hogs, on one core"
Tools/cut-sweep.sh .build/debug/squall

stage "scenarios of other authors (Tests/Scenarios/newcomer-N), each judged as its author predicted"
Tools/newcomer-check.py --self-test
Tools/newcomer-check.py .build/debug/squall

stage "the docs: README.md and docs/ links, every squall command's options, every scenario example validated, the quick starts run"
Tools/docs-check.py --self-test
Tools/docs-check.py .build/debug/squall

stage "the HTML report in headless Chromium: rows, a failing scenario's chart and expectations, dark mode"
Tools/report-browser-check.py .build/debug/squall

stage "HAR: a debug bundle's, squall transcript to-har's and squall proxy --har's archives read back by haralyzer"
Tools/har-check.py .build/debug/squall

stage "the proxy's live dashboard in headless Chromium: a rule added, a reset fired on a live upload, resumed"
Tools/dashboard-browser-check.py .build/debug/squall

stage "squall explore: 50 random fault schedules (seed 1), every invariant must hold"
.build/debug/squall explore --count 50 --seed 1 --jobs 2 --shrink-budget 1m

stage "the proxy's memory under load: 60 s of 20 workers uploading 1 MiB each, a rule changed every 3 s; flat within 10 %"
Tools/soak.py --self-test
Tools/soak.py .build/debug/squall --seconds 60 --transcript-memory 1MiB

stage "your own extension: Examples/SampleExtension built as a package of its own, run over the catalog"
Tools/example-check.sh
