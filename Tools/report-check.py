#!/usr/bin/env python3
"""Checks `squall run --json` reports (issue 13).

    report-check.py --schema SCHEMA REPORT...          each report validates against SCHEMA (draft 2020-12)
    report-check.py --schema SCHEMA --same REPORT...   and the reports agree: every scenario's outcome, verdicts
                                                       (key, status) and distinct fault firings (rule, action,
                                                       offset) are the same in every report

Exit 0 when all holds, 1 with the first problem otherwise, 2 for a usage mistake.
"""
import json
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("report-check.py: needs Python's jsonschema (Tools/setup.sh installs it)", file=sys.stderr)
    sys.exit(2)


def digest(report):
    """scenario name -> (outcome, verdicts, timeline) of every run of it."""
    result = {}
    for scenario in report["scenarios"]:
        runs = []
        for run in scenario["runs"]:
            verdicts = [(v["key"], v["status"]) for v in run["verdicts"]]
            # Concurrent transfers connect in either order (so connection ids may swap), and a rule firing per
            # interim response (strip-interim) fires once per progress 104, whose count follows the server's
            # write timing: the timeline is compared as the sorted set of distinct (rule, action, offset).
            timeline = sorted({
                (f["rule"], f["action"], -1 if f["offset"] is None else f["offset"]) for f in run["faultTimeline"]})
            runs.append((run["outcome"], verdicts, timeline))
        result[scenario["name"]] = runs
    return result


def main(arguments):
    if len(arguments) < 3 or arguments[0] != "--schema":
        print(__doc__, file=sys.stderr)
        return 2
    schema_path, rest = arguments[1], arguments[2:]
    same = rest[:1] == ["--same"]
    paths = rest[1:] if same else rest
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    with open(schema_path) as handle:
        schema = json.load(handle)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    reports = []
    for path in paths:
        with open(path) as handle:
            report = json.load(handle)
        errors = sorted(validator.iter_errors(report), key=lambda error: list(error.absolute_path))
        if errors:
            print(f"report-check: {path} does not follow {schema_path}:")
            for error in errors[:10]:
                print(f"  {error.json_path}: {error.message[:300]}")
            return 1
        reports.append((path, report))
    print(f"report-check: {len(reports)} reports follow {schema_path}")
    if not same:
        return 0
    first_path, first = reports[0][0], digest(reports[0][1])
    for path, report in reports[1:]:
        other = digest(report)
        for name in sorted(set(first) | set(other)):
            if first.get(name) != other.get(name):
                print(f"determinism: scenario {name} differs between {first_path} and {path}:")
                print(f"  {first_path}: {first.get(name)}")
                print(f"  {path}: {other.get(name)}")
                return 1
    print(f"determinism: {len(first)} scenarios gave identical verdicts and fault timelines in {len(reports)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
