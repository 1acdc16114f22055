#!/usr/bin/env bash
# Builds Examples/SampleExtension as a user builds their own package (its own Package.swift, Squall by path), then:
#   - `sample-squall run Scenarios` (the seed's sample extension as the client's policy) must pass the whole catalog:
#     exit 0, no scenario failed, and every skip one of the documented reasons (the built-in policy's knobs);
#   - `buggy-squall run Scenarios` with each buggy variant (SAMPLE_VARIANT) must fail the catalog, with the verdict
#     that names the variant's fault among the failures (the negative controls).
# Run from a clean clone by CI (Tools/test.sh). Exit 1 on the first broken expectation, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

work=$(mktemp -d /tmp/squall-example-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

example=Examples/SampleExtension
echo "-- building $example (swift build in its own folder, as docs/extension.md says)"
(cd "$example" && swift build -Xswiftc -warnings-as-errors 2>&1 | grep -E "error|warning:|Build complete" || true)
bin="$example/.build/debug"
for product in sample-squall buggy-squall; do
    [[ -x "$bin/$product" ]] || { echo "example-check: $bin/$product was not built" >&2; exit 1; }
done

echo "-- $bin/sample-squall validate Scenarios"
"$bin/sample-squall" validate Scenarios

echo "-- $bin/sample-squall run Scenarios"
set +e
"$bin/sample-squall" run Scenarios --junit "$work/sample.xml" >"$work/sample.txt" 2>&1
status=$?
set -e
tail -n 1 "$work/sample.txt"
if [[ $status -ne 0 ]] || grep -q '^FAIL' "$work/sample.txt"; then
    echo "example-check: the sample extension failed the catalog (exit $status):" >&2
    grep -A 20 '^FAIL' "$work/sample.txt" >&2 || cat "$work/sample.txt" >&2
    exit 1
fi
if grep '^SKIP' "$work/sample.txt" | grep -v -e ': needs the built-in policy'; then
    echo "example-check: a scenario was skipped for a reason other than the documented ones (above)" >&2
    exit 1
fi
if [[ $(grep -c -E '^PASS (system-relaunch-kill-client|user-force-quit) ' "$work/sample.txt") -ne 2 ]]; then
    echo "example-check: the kill scenarios (child processes running the sample) did not both pass" >&2
    exit 1
fi

# Each variant, the verdict that must name its fault.
variants=(
    "never-acknowledges-failed-jobs extension.acknowledges-finished-jobs"
    "retries-bad-server-response extension.permanent-errors-not-retried"
    "ignores-will-terminate extension.stops-at-will-terminate"
    "acknowledges-before-reading-headers extension.reads-headers-before-acknowledging"
    "retries-401-with-stale-token extension.refreshes-auth-before-retrying"
)
for entry in "${variants[@]}"; do
    read -r variant key <<<"$entry"
    echo "-- SAMPLE_VARIANT=$variant $bin/buggy-squall run Scenarios (must fail with $key)"
    set +e
    SAMPLE_VARIANT="$variant" "$bin/buggy-squall" run Scenarios >"$work/$variant.txt" 2>&1
    status=$?
    set -e
    tail -n 1 "$work/$variant.txt"
    if [[ $status -ne 1 ]]; then
        echo "example-check: $variant: exit $status, expected 1 (the catalog fails)" >&2
        tail -n 30 "$work/$variant.txt" >&2
        exit 1
    fi
    if ! grep -q "✗ $key:" "$work/$variant.txt"; then
        echo "example-check: $variant: no failed $key verdict; the failures were:" >&2
        grep -E '^FAIL|✗' "$work/$variant.txt" | head -n 30 >&2
        exit 1
    fi
    echo "   scenarios failing $key: $(grep -c "✗ $key:" "$work/$variant.txt"); the first:"
    grep -m 1 -A 1 "✗ $key:" "$work/$variant.txt" | sed 's/^/   /'
done
echo "example-check: the sample passes the catalog; each buggy variant fails it with its verdict"
