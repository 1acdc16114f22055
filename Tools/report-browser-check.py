#!/usr/bin/env python3
"""Opens `squall run --html` reports in headless Chromium (Debian's chromium and chromium-driver, driven through
selenium from PyPI; Tools/setup.sh installs them) and checks what a person would look at.

    Tools/report-browser-check.py [SQUALL_BINARY] [--screenshot FILE]

It runs the catalog plus one scenario made to fail (`browser-check-failing`: the catalog's interop-3-reset-resume
expecting 2 resumptions instead of 1) with --html and --json, opens the page and checks, against the JSON report:

- the page loads with no error in the browser's console, and its summary counts every scenario;
- every scenario has its row, with its outcome, and the failing one comes first;
- the failing scenario's chart has its fault markers (rule, action, offset as in the fault timeline) and the
  client's resume point at the offset of the cut (where the server said it had the bytes up to);
- the bytes forwarded to the server (written to its socket, at wire time) end at the cut's offset, and in
  cancellation-halfway, whose creation a bandwidth fault paces, they rise as a slope (5 points or more, 40 px wide);
- its failing expectation shows the expected and observed values of the JSON report;
- the charts are drawn (the SVG has a size) and the page renders in dark mode too.

Negative controls (run first): the same checks against pages with the fault markers removed, with a resume point
moved, with a script error, without the forwarded lines, with a forwarded line ending past the cut, and with the
forwarded lines drawn vertical, must fail. Exit 0 when every check passed, 1 otherwise.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from selenium.webdriver.common.by import By

from chromium import browser, console_errors, take_screenshot_argument

FAILING = "browser-check-failing"
# A catalog scenario whose creation is paced (bandwidth 2MiB/s upstream): what reached the server rises as a slope.
PACED = "cancellation-halfway"


class CheckFailed(Exception):
    pass


def check(driver, page, report):
    """Raises CheckFailed naming the first thing the page gets wrong."""
    driver.get("file://" + page)
    errors = console_errors(driver)
    if errors:
        raise CheckFailed(f"the browser's console has errors: {errors}")
    scenarios = report["scenarios"]
    summary = driver.find_element(By.ID, "summary").text
    if not summary.startswith(f"{len(scenarios)} scenarios:"):
        raise CheckFailed(f"the summary does not count {len(scenarios)} scenarios: {summary!r}")
    rows = driver.find_elements(By.CSS_SELECTOR, "#scenarios tbody tr")
    seen = {row.get_attribute("data-scenario"): row.get_attribute("data-outcome") for row in rows}
    for scenario in scenarios:
        outcome = "flaky" if scenario["flaky"] else scenario["outcome"]
        if seen.get(scenario["name"]) != outcome:
            raise CheckFailed(f"row of {scenario['name']}: {seen.get(scenario['name'])!r}, expected {outcome!r}")
    if rows and rows[0].get_attribute("data-scenario") != FAILING:
        raise CheckFailed(f"the first row is {rows[0].get_attribute('data-scenario')}, not the failing scenario")

    failing = next(s for s in scenarios if s["name"] == FAILING)
    run = failing["runs"][failing["representativeRun"] - 1]
    section = driver.find_element(By.ID, "s-" + FAILING)
    charts = section.find_elements(By.CSS_SELECTOR, "svg.chart")
    if not charts or charts[0].size["height"] < 100:
        raise CheckFailed("the failing scenario's chart is not drawn")
    cuts = [f for f in run["faultTimeline"] if f["action"] == "reset" and f["offset"] is not None]
    if not cuts:
        raise CheckFailed("the failing scenario's JSON report has no reset at an offset (the check needs one)")
    for fault in cuts:
        marks = section.find_elements(
            By.CSS_SELECTOR, f'g.fault[data-rule="{fault["rule"]}"][data-action="reset"][data-offset="{fault["offset"]}"]')
        if not marks:
            raise CheckFailed(f"no fault marker for {fault['rule']} at offset {fault['offset']}")
    resumes = [int(g.get_attribute("data-offset")) for g in section.find_elements(By.CSS_SELECTOR, "g.resume")]
    cut_offsets = {f["offset"] for f in cuts}
    if not resumes or not set(resumes) <= cut_offsets:
        raise CheckFailed(f"resume points at {resumes}, expected at the cut's offset {sorted(cut_offsets)}")
    acknowledged = {int(g.get_attribute("data-offset")) for g in section.find_elements(
        By.CSS_SELECTOR, 'g.ack[data-kind^="HEAD"]')}
    if not set(resumes) <= acknowledged:
        raise CheckFailed(f"resume points at {resumes}, but the HEADs acknowledged {sorted(acknowledged)}")
    # What reached the server: the cut request's line of forwarded bytes ends at the cut (the server got exactly those).
    forwarded = [int(line.get_attribute("data-last"))
                 for line in section.find_elements(By.CSS_SELECTOR, "polyline.forwarded")]
    if not cut_offsets <= set(forwarded):
        raise CheckFailed(f"the bytes forwarded to the server end at {forwarded}, expected one line ending at each "
                          f"cut's offset {sorted(cut_offsets)}")
    paced = driver.find_element(By.ID, "s-" + PACED)
    lines = paced.find_elements(By.CSS_SELECTOR, 'polyline.forwarded[data-method="POST"]')
    xs = [float(point.split(",")[0]) for line in lines for point in line.get_attribute("points").split()]
    if len(set(xs)) < 5 or max(xs) - min(xs) < 40:
        raise CheckFailed(f"{PACED}: the paced creation's forwarded bytes do not rise as a slope (x: {sorted(set(xs))})")
    for verdict in (v for v in run["verdicts"] if v["status"] == "failed"):
        row = section.find_element(By.CSS_SELECTOR, f'table.verdicts tr[data-key="{verdict["key"]}"]')
        expected = row.find_element(By.CSS_SELECTOR, "td.expected").text
        observed = row.find_element(By.CSS_SELECTOR, "td.observed").text
        if (expected, observed) != (verdict["expected"], verdict["observed"]):
            raise CheckFailed(f"{verdict['key']}: the page says {expected!r} / {observed!r}, the report "
                              f"{verdict['expected']!r} / {verdict['observed']!r}")


def mutated(page, folder, name, change):
    text = open(page, encoding="utf-8").read()
    changed = change(text)
    if changed == text:
        raise SystemExit(f"report-browser-check: the negative control {name} changed nothing")
    path = os.path.join(folder, name + ".html")
    with open(path, "w", encoding="utf-8") as file:
        file.write(changed)
    return path


def main():
    arguments = sys.argv[1:]
    screenshot = take_screenshot_argument(arguments)
    squall = arguments[0] if arguments else ".build/debug/squall"
    work = tempfile.mkdtemp(prefix="squall-browser-check.")
    try:
        scenario = json.load(open("Scenarios/interop-3-reset-resume.json"))
        scenario["name"] = FAILING
        scenario["description"] = "interop-3-reset-resume expecting one resumption too many, so that it fails."
        scenario["expect"]["resumptions"] = scenario["expect"]["resumptions"] + 1
        extra = os.path.join(work, FAILING + ".json")
        json.dump(scenario, open(extra, "w"), indent=2)
        page = os.path.join(work, "report.html")
        report_path = os.path.join(work, "report.json")
        run = subprocess.run([squall, "run", "Scenarios", extra, "--html", page, "--json", report_path],
                             capture_output=True, text=True)
        if run.returncode != 1 or not os.path.exists(page):
            print(run.stdout[-3000:], run.stderr[-3000:], sep="\n", file=sys.stderr)
            raise SystemExit(f"report-browser-check: expected exactly the made-up scenario to fail (exit 1), got "
                             f"{run.returncode}")
        report = json.load(open(report_path))
        failed = [s["name"] for s in report["scenarios"] if s["outcome"] != "passed" and s["outcome"] != "skipped"]
        if failed != [FAILING]:
            raise SystemExit(f"report-browser-check: the failing scenarios are {failed}, expected [{FAILING}]")
        size = os.path.getsize(page)
        print(f"report-browser-check: {run.stdout.strip().splitlines()[-1]}")
        if size >= 5 * 1024 * 1024:
            raise SystemExit(f"report-browser-check: the report is {size} bytes, over 5 MB")

        controls = {
            "no-fault-markers": lambda t: re.sub(r'<g class="fault"[^>]*>.*?</g>', "", t),
            "resume-moved": lambda t: re.sub(r'(<g class="resume" data-offset=")(\d+)',
                                             lambda m: m.group(1) + str(int(m.group(2)) + 1), t),
            "script-error": lambda t: t.replace("</body>", "<script>undefinedFunction()</script></body>"),
            "no-forwarded-lines": lambda t: re.sub(r'<polyline class="forwarded"[^>]*>.*?</polyline>', "", t),
            "forwarded-past-the-cut": lambda t: re.sub(r'(<polyline class="forwarded"[^>]*data-last=")(\d+)',
                                                       lambda m: m.group(1) + str(int(m.group(2)) + 1), t),
            "forwarded-vertical": lambda t: re.sub(
                r'(<polyline class="forwarded"[^>]*points=")([^"]*)',
                lambda m: m.group(1) + " ".join("100.0," + p.split(",")[1] for p in m.group(2).split()), t),
        }
        driver = browser()
        try:
            for name, change in controls.items():
                try:
                    check(driver, mutated(page, work, name, change), report)
                except CheckFailed as failure:
                    print(f"report-browser-check: negative control {name} fails as it must: {failure}")
                else:
                    raise SystemExit(f"report-browser-check: negative control {name} passed the checks")
            check(driver, page, report)
            if screenshot:
                driver.get("file://" + page + "#s-" + FAILING)
                driver.save_screenshot(screenshot)
        finally:
            driver.quit()
        dark = browser(dark=True)
        try:
            check(dark, page, report)
            scheme = dark.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
            background = dark.execute_script("return getComputedStyle(document.body).backgroundColor")
            if scheme and background in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"):
                raise SystemExit(f"report-browser-check: dark mode is on but the page is white ({background})")
            if screenshot:
                dark.get("file://" + page + "#s-" + FAILING)
                dark.save_screenshot(screenshot.replace(".png", "-dark.png"))
        finally:
            dark.quit()
        print(f"report-browser-check: {len(report['scenarios'])} rows, the failing scenario's chart, faults, resume "
              f"point, forwarded bytes (ending at the cut; {PACED}'s paced creation a slope) and expectations as the JSON "
              f"report says; {size // 1024} KiB; {len(controls)} negative controls failed")
    except CheckFailed as failure:
        print(f"report-browser-check: {failure}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
