#!/usr/bin/env python3
"""Scenarios of other authors, judged as predicted (issue 26).

Each Tests/Scenarios/newcomer-N/ folder holds sixteen scenarios written by someone who had read only the README, then
one file (its "Writing scenarios" section, now in docs/scenarios.md, among the rest), each with its verdict predicted
before its first run, in
Tests/Scenarios/newcomer-N-predictions.json: {"name": {"outcome": "passed"|"failed", "failing": [keys], "why": ...}}.
This runs each folder with `squall run --repeat N --json` and checks every run of every scenario against its
prediction: the outcome, and for a predicted failure exactly the verdict keys that fail. Exit 1 naming each mismatch.

    Tools/newcomer-check.py [SQUALL_BINARY] [--repeat N]     default .build/debug/squall, 3 runs

--self-test runs the comparison on made-up reports (a mismatch of each kind must be found) and nothing else.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(ROOT, "Tests", "Scenarios")


def authors():
    """The newcomer folders and their predictions files, in name order."""
    names = sorted(n for n in os.listdir(SCENARIOS) if n.startswith("newcomer-") and not n.endswith(".json"))
    return [(os.path.join(SCENARIOS, n), os.path.join(SCENARIOS, n + "-predictions.json")) for n in names]


def mismatches(predictions, report):
    """Each run that differs from its scenario's prediction, in words; empty when all came out as predicted."""
    problems = []
    seen = set()
    for scenario in report["scenarios"]:
        name = scenario["name"]
        seen.add(name)
        predicted = predictions.get(name)
        if predicted is None:
            problems.append(f"{name}: no prediction")
            continue
        for run in scenario["runs"]:
            outcome = run["outcome"]
            failing = sorted(v["key"] for v in run["verdicts"] if v["status"] == "failed")
            expected = sorted(predicted.get("failing", []))
            if outcome != predicted["outcome"]:
                problems.append(
                    f"{name} run {run['run']}: {outcome} (failing {failing}), predicted {predicted['outcome']}")
            elif outcome == "failed" and failing != expected:
                problems.append(f"{name} run {run['run']}: failing {failing}, predicted {expected}")
    for name in sorted(set(predictions) - seen):
        problems.append(f"{name}: predicted but not run")
    return problems


def self_test():
    predictions = {"a": {"outcome": "passed"}, "b": {"outcome": "failed", "failing": ["fault.x"]}}

    def report(a_outcome, b_keys, names=("a", "b")):
        runs = {
            "a": [{"run": 1, "outcome": a_outcome, "verdicts": []}],
            "b": [{"run": 1, "outcome": "failed", "verdicts": [{"key": k, "status": "failed"} for k in b_keys]}],
        }
        return {"scenarios": [{"name": n, "runs": runs[n]} for n in names]}

    assert mismatches(predictions, report("passed", ["fault.x"])) == [], "a report as predicted"
    assert mismatches(predictions, report("failed", ["fault.x"])), "a wrong outcome"
    assert mismatches(predictions, report("passed", ["fault.x", "jobs.succeeded"])), "a failing key too many"
    assert mismatches(predictions, report("passed", ["fault.x"], names=("a",))), "a scenario not run"
    print("newcomer-check: self-test: each kind of mismatch is found")


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    squall = os.path.join(ROOT, ".build", "debug", "squall")
    repeat = 3
    rest = list(arguments)
    while rest:
        item = rest.pop(0)
        if item == "--repeat" and rest:
            repeat = int(rest.pop(0))
        elif not item.startswith("-"):
            squall = item
        else:
            sys.exit(f"newcomer-check: unknown argument {item!r} (expected SQUALL_BINARY, --repeat N or --self-test)")
    problems = []
    total = 0
    found = authors()
    if not found:
        sys.exit(f"newcomer-check: no newcomer-N folder in {SCENARIOS}")
    for folder, predictions_path in found:
        predictions = json.load(open(predictions_path))
        with tempfile.TemporaryDirectory(prefix="squall-newcomer-") as work:
            path = os.path.join(work, "report.json")
            run = subprocess.run(
                [squall, "run", folder, "--repeat", str(repeat), "--json", path], capture_output=True, text=True)
            if not os.path.exists(path):
                sys.exit(f"newcomer-check: squall run {folder} wrote no report (exit {run.returncode}):\n{run.stderr}")
            report = json.load(open(path))
        problems += [f"{os.path.basename(folder)}: {line}" for line in mismatches(predictions, report)]
        total += len(report["scenarios"])
    if problems:
        print(f"newcomer-check: {len(problems)} runs differ from their prediction:", file=sys.stderr)
        for line in problems:
            print("  " + line, file=sys.stderr)
        sys.exit(1)
    print(
        f"newcomer-check: {total} scenarios of {len(found)} other authors, {repeat} runs each, every one judged as "
        "predicted")


if __name__ == "__main__":
    main(sys.argv[1:])
