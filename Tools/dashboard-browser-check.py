#!/usr/bin/env python3
"""Drives the proxy's live dashboard in headless Chromium (Debian's chromium and chromium-driver, through selenium
from PyPI; Tools/setup.sh installs them), end to end against a live upload:

    Tools/dashboard-browser-check.py [SQUALL_BINARY] [--screenshot FILE]

1. starts `squall server` and `squall proxy --api 127.0.0.1:0 --api-token T` in front of it (loopback only);
2. opens the dashboard, which asks for the token; enters it;
3. adds a rule through the form (an upstream bandwidth limit, so that the upload takes a few seconds) and sees it
   in `squall fault list`; a rule with a mistake shows the loader's error with its JSON path;
4. starts `squall upload` through the proxy, waits until the page shows its connection with an upload offset,
   fires a reset on that connection from the page, and sees the upload resume in the page's flow list (the POST
   cut after its 104, a HEAD answered 204, then a PATCH from the offset the server kept, each with interop
   version 8) and `squall upload` finish with every byte;
5. clicks the PATCH's row and finds its raw lines in the detail panel (its `request` line, with that method,
   target, connection and exchange); finds the upload's chart, its line's last point at the upload's length and a
   mark for the reset with the rule's name in its <title>;
6. negative controls: the same checks run against the page with a flow's status altered, with the chart's fault
   marks removed and with the line's last point moved back to the reset must each fail, naming what is wrong;
7. fails when the page's status line or the browser's console shows an error.

Every wait is on what the page or a process shows, bounded (30 s each). Exit 0 when every check passed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from chromium import browser, console_errors, take_screenshot_argument

TOKEN = "dashboard-check-token"
PATIENCE = 30


class CheckFailed(Exception):
    pass


def wait_for(what, condition, patience=PATIENCE):
    """Polls `condition` (the page's state, a process's output) until it returns something truthy."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            value = condition()
        except StaleElementReferenceException:
            value = None  # the page redrew what was being read: look again
        if value:
            return value
        time.sleep(0.1)
    raise CheckFailed(f"timed out after {patience} s waiting for {what}")


def start(arguments, lines):
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    read = [process.stdout.readline().strip() for _ in range(lines)]
    if not all(read):
        raise CheckFailed(f"{arguments[1]} did not start: {process.stderr.read()[-2000:]}")
    return process, read


def check_no_error(driver):
    status = driver.find_element(By.ID, "status")
    if "error" in (status.get_attribute("class") or ""):
        raise CheckFailed(f"the page shows an error: {status.text}")
    errors = console_errors(driver)
    if errors:
        raise CheckFailed(f"the browser's console has errors: {errors}")


# One read of what the page shows (the page redraws in place; one script sees one state): the flow rows, the
# detail panel and the charts.
SNAPSHOT = """
const text = (node) => node ? node.textContent : null;
return {
  flows: Array.from(document.querySelectorAll("#flows tbody tr"), (row) => ({
    conn: Number(row.dataset.connection), exchange: Number(row.dataset.exchange), key: row.dataset.flow,
    method: text(row.querySelector("td.method")), path: text(row.querySelector("td.path")),
    status: text(row.querySelector("td.status")), interop: text(row.querySelector("td.interop"))})),
  title: text(document.getElementById("flow-title")),
  lines: text(document.getElementById("flow-lines")),
  charts: Array.from(document.querySelectorAll("#charts figure"), (figure) => {
    const svg = figure.querySelector("svg");
    const path = svg.querySelector("path.sent");
    return {caption: text(figure.querySelector("figcaption")), yMax: Number(svg.dataset.yMax),
            plot: (svg.dataset.plot || "").split(" ").map(Number), d: path ? path.getAttribute("d") : "",
            faults: Array.from(svg.querySelectorAll("g.fault"), (mark) => ({
              title: text(mark.querySelector("title")), line: !!mark.querySelector("line")}))};
  }),
};
"""


def resumed_flows(state, connections):
    """The POST cut by the reset, the HEAD after it and the PATCH after that on `connections`, as the flow list
    shows them (newest first, so reversed here); None until all three are there with their final statuses."""
    flows = [f for f in reversed(state["flows"]) if f["conn"] in connections]
    post = next((f for f in flows if f["method"] == "POST" and f["status"].startswith("cut")), None)
    head = next((f for f in flows if f["method"] == "HEAD" and f["status"] == "204"), None)
    if post is None or head is None:
        return None
    patch = next((f for f in flows[flows.index(head):] if f["method"] == "PATCH" and f["path"] == head["path"]
                  and f["status"][:1] == "2"), None)
    return (post, head, patch) if patch else None


def dashboard_failures(driver, expected):
    """What the page gets wrong about the upload that was reset and resumed (an empty list when nothing):
    `expected` has the PATCH's flow key, the upload's path and length and the fired rule's name."""
    state = driver.execute_script(SNAPSHOT)
    failures = []
    flows = resumed_flows(state, expected["connections"])
    if flows is None:
        failures.append(f"the flow list lacks the cut POST (with its 104s), a HEAD answered 204 and a PATCH answered 2xx: "
                        f"{[(f['method'], f['status']) for f in state['flows']]}")
    else:
        post, head, patch = flows
        if "104×" not in post["status"]:
            failures.append(f"the POST's status does not note its 104: {post['status']!r}")
        if patch["key"] != expected["patch"]:
            failures.append(f"the PATCH row is {patch['key']}, not {expected['patch']}")
        for flow in flows:
            if flow["interop"] != "8":
                failures.append(f"the {flow['method']} row's interop version is {flow['interop']!r}, not 8")
    conn, exchange = (int(part) for part in expected["patch"].split("/"))
    requests = [json.loads(line) for line in (state["lines"] or "").splitlines() if '"event":"request"' in line]
    if not any(r["conn"] == conn and r["exchange"] == exchange and r["method"] == "PATCH"
               and r["target"] == expected["path"] for r in requests):
        failures.append(f"the detail panel does not show the PATCH's request line: {state['title']!r} "
                        f"{(state['lines'] or '')[:300]!r}")
    chart = next((c for c in state["charts"] if (c["caption"] or "").startswith(expected["path"] + ":")), None)
    if chart is None:
        failures.append(f"no chart for {expected['path']}: {[c['caption'] for c in state['charts']]}")
        return failures
    points = [float(number) for number in re.findall(r"-?[0-9.]+", chart["d"])]
    left, top, right, bottom = chart["plot"] if len(chart["plot"]) == 4 else (0, 0, 0, 0)
    if len(points) < 4 or bottom <= top:
        failures.append(f"the chart has no line: {chart['d'][:200]!r}")
    else:
        last = (bottom - points[-1]) / (bottom - top) * chart["yMax"]
        if abs(last - expected["length"]) > chart["yMax"] / 500:
            failures.append(f"the chart's line ends at offset {last:.0f}, not at the upload's length "
                            f"{expected['length']}")
    if not any(mark["line"] and expected["rule"] in (mark["title"] or "") for mark in chart["faults"]):
        failures.append(f"the chart has no mark for the reset {expected['rule']!r}: {chart['faults']}")
    return failures


def check_negative_controls(driver, expected):
    """Each control breaks one thing on the page through JS, sees `dashboard_failures` name it, and puts the page
    back (a check that cannot fail is not a check)."""
    controls = [
        ("a flow's status altered", "a PATCH answered 2xx",
         'const cell = document.querySelector(`#flows tr[data-flow="${arguments[0]}"] td.status`);'
         'const before = cell.textContent; cell.textContent = "503";'
         'return () => { cell.textContent = before; };'),
        ("the chart's fault marks removed", "no mark for the reset",
         'const marks = Array.from(document.querySelectorAll("#charts g.fault"), (m) => [m, m.parentNode]);'
         'marks.forEach(([m]) => m.remove());'
         'return () => marks.forEach(([m, parent]) => parent.appendChild(m));'),
        ("the line's last point moved back to the reset", "line ends at offset",
         'const path = Array.from(document.querySelectorAll("#charts path.sent")).find((p) => '
         'p.closest("figure").querySelector("figcaption").textContent.startsWith(arguments[1] + ":"));'
         'const before = path.getAttribute("d"); const cut = before.lastIndexOf(" M");'
         'path.setAttribute("d", before.slice(0, cut)); return () => path.setAttribute("d", before);'),
    ]
    shown = []
    for name, expected_failure, script in controls:
        driver.execute_script(f"window.squallUndo = (() => {{ {script} }})();", expected["patch"], expected["path"])
        failures = dashboard_failures(driver, expected)
        driver.execute_script("window.squallUndo();")
        if not any(expected_failure in failure for failure in failures):
            raise CheckFailed(f"negative control {name!r}: the checks did not fail on it ({failures})")
        shown.append(name)
    if dashboard_failures(driver, expected):
        raise CheckFailed(f"the page did not come back after the controls: {dashboard_failures(driver, expected)}")
    return shown


FALLBACK_CONNECTION = 900001


def check_request_body_fallback(driver):
    """A proxy that does not write `request_written` (one built before it): feeds the page's model a reset and
    resumed upload with only `request_body` ranges, on connection ids no live connection has, and runs the same
    checks on what the page draws (the PATCH's row clicked as a person would)."""
    first, second = FALLBACK_CONNECTION, FALLBACK_CONNECTION + 1
    t = driver.execute_script("return lastT;") + 1000
    interop = ["Upload-Draft-Interop-Version", "8"]
    events = [
        {"conn": first, "event": "request", "exchange": 1, "method": "POST", "target": "/upload",
         "version": "HTTP/1.1", "fields": [interop, ["Upload-Complete", "?1"], ["Upload-Length", "1000"]]},
        {"conn": first, "event": "interim", "exchange": 1, "version": "HTTP/1.1", "status": 104,
         "reason": "Upload Resumption Supported", "fields": [interop, ["Location", "https://127.0.0.1:1/upload/fb"]]},
        {"conn": first, "event": "request_body", "exchange": 1, "offset": 0, "length": 600, "upload_offset": 0},
        {"conn": first, "event": "fault", "rule": "cut-fallback", "action": "reset", "direction": "both",
         "offset": 600, "decided_us": None},
        {"conn": first, "event": "close", "side": "proxy", "kind": "rst"},
        {"conn": second, "event": "request", "exchange": 1, "method": "HEAD", "target": "/upload/fb",
         "version": "HTTP/1.1", "fields": [interop]},
        {"conn": second, "event": "response", "exchange": 1, "version": "HTTP/1.1", "status": 204,
         "reason": "No Content", "fields": [interop, ["Upload-Offset", "600"], ["Upload-Length", "1000"]]},
        {"conn": second, "event": "request", "exchange": 2, "method": "PATCH", "target": "/upload/fb",
         "version": "HTTP/1.1", "fields": [interop, ["Upload-Offset", "600"], ["Upload-Complete", "?1"]]},
        {"conn": second, "event": "request_body", "exchange": 2, "offset": 0, "length": 250, "upload_offset": 600},
        {"conn": second, "event": "request_body", "exchange": 2, "offset": 250, "length": 150, "upload_offset": None},
        {"conn": second, "event": "response", "exchange": 2, "version": "HTTP/1.1", "status": 204,
         "reason": "No Content", "fields": [interop, ["Upload-Offset", "1000"]]},
    ]
    lines = [json.dumps({"t_us": t + 1000 * index, **event}, separators=(",", ":"))
             for index, event in enumerate(events)]
    driver.execute_script("arguments[0].forEach(onTranscriptLine); schedule();", lines)
    patch = f"{second}/2"
    wait_for("the fallback upload's PATCH row",
             lambda: driver.find_elements(By.CSS_SELECTOR, f'#flows tr[data-flow="{patch}"]'))
    driver.find_element(By.CSS_SELECTOR, f'#flows tr[data-flow="{patch}"]').click()
    expected = {"patch": patch, "path": "/upload/fb", "length": 1000, "rule": "cut-fallback",
                "connections": range(first, second + 1)}
    try:
        wait_for("the fallback upload drawn from request_body", lambda: not dashboard_failures(driver, expected),
                 patience=10)
    except CheckFailed:
        raise CheckFailed("from request_body alone: " + "; ".join(dashboard_failures(driver, expected)))


def main():
    arguments = sys.argv[1:]
    screenshot = take_screenshot_argument(arguments)
    squall = os.path.abspath(arguments[0] if arguments else ".build/debug/squall")
    work = tempfile.mkdtemp(prefix="squall-dashboard-check.")
    processes = []
    driver = None
    try:
        subprocess.run([squall, "ca", "init", "--dir", os.path.join(work, "ca")], check=True, capture_output=True)
        server, (server_url,) = start([squall, "server", "--store", os.path.join(work, "store")], 1)
        processes.append(server)
        proxy, (proxy_url, api_url, ca) = start(
            [squall, "proxy", "--upstream", server_url, "--ca", os.path.join(work, "ca"), "--api", "127.0.0.1:0",
             "--api-token", TOKEN], 3)
        processes.append(proxy)
        driver = browser(size="1200,1000")
        driver.get(api_url + "/")
        wait_for("the page to ask for the token",
                 lambda: driver.find_element(By.ID, "token-form").is_displayed())
        driver.find_element(By.ID, "token").send_keys(TOKEN)
        driver.find_element(By.ID, "save-token").click()
        wait_for("the page to load with the token",
                 lambda: "connections" in driver.find_element(By.ID, "status").text)

        # A rule with a mistake: the loader's error, with its JSON path, on the page.
        rule = driver.find_element(By.ID, "rule-json")
        rule.clear()
        rule.send_keys('{"name": "bad", "action": "bandwidth", "rate": "0"}')
        driver.find_element(By.ID, "add-rule").click()
        error = wait_for("the form's error", lambda: driver.find_element(By.ID, "rule-result").text)
        if "rate" not in error:
            raise CheckFailed(f"the form's error does not name the JSON path: {error!r}")
        # The browser logs the refused POST (400) as a console error; that one is expected, any other is not.
        unexpected = [entry for entry in console_errors(driver)
                      if not ("/squall/faults" in entry["message"] and "status of 400" in entry["message"])]
        if unexpected:
            raise CheckFailed(f"the browser's console has errors: {unexpected}")
        # A good rule: slow the uplink so that the upload lasts long enough to be cut from the page.
        rule.clear()
        rule.send_keys('{"name": "slow-uplink", "action": "bandwidth", "rate": "1MiB", "direction": "upstream"}')
        driver.find_element(By.ID, "add-rule").click()
        wait_for("the rule in the table",
                 lambda: driver.find_elements(By.CSS_SELECTOR, '#faults tr[data-rule="slow-uplink"]'))
        listed = subprocess.run([squall, "fault", "list", "--api", api_url, "--api-token", TOKEN],
                                capture_output=True, text=True)
        if "slow-uplink" not in listed.stdout:
            raise CheckFailed(f"squall fault list does not show the rule: {listed.stdout} {listed.stderr}")
        check_no_error(driver)

        # A live upload through the proxy, cut from the page.
        content = os.path.join(work, "video.mov")
        with open(content, "wb") as file:
            file.write(os.urandom(6 * 1024 * 1024))
        upload = subprocess.Popen(
            [squall, "upload", "--to", proxy_url + "/upload", "--ca", ca, "--interop", "8", "--backoff", "100ms",
             "--read-timeout", "20s", content], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(upload)

        def uploading_connection():
            # Read in one script: the page rebuilds the table every second, so elements found one call earlier
            # may be gone by the next.
            rows = driver.execute_script(
                'return Array.from(document.querySelectorAll("#connections tbody tr"), (row) => [row.dataset.connection,'
                ' row.querySelector("td.request").textContent, row.querySelector("td.offset").textContent]);')
            for connection, request, offset in rows:
                if request.startswith("POST") and offset and int(offset) > 512 * 1024:
                    return connection, int(offset)
            return None
        connection, offset = wait_for("the upload's connection with an offset past 512 KiB", uploading_connection)
        field = driver.find_element(By.ID, "fire-connection")
        field.clear()
        field.send_keys(connection)
        action = driver.find_element(By.ID, "fire-action")
        action.clear()
        action.send_keys('{"action": "reset"}')
        driver.find_element(By.ID, "fire").click()
        fired = wait_for("the fire result", lambda: driver.find_element(By.ID, "fire-result").text)
        if not fired.startswith("fired reset"):
            raise CheckFailed(f"firing the reset failed: {fired}")

        rule_name = re.search(r"\(rule (.+?)\)", fired).group(1)

        def resumed():
            """The reset POST, the HEAD and the PATCH as the flow list shows them."""
            return resumed_flows(driver.execute_script(SNAPSHOT), range(1, FALLBACK_CONNECTION))
        post, head, patch = wait_for("the upload to resume in the flow list (a HEAD, then a PATCH)", resumed)
        driver.find_element(By.CSS_SELECTOR, f'#flows tr[data-flow="{patch["key"]}"]').click()
        lines = wait_for("the PATCH's lines in the detail panel",
                         lambda: '"method":"PATCH"' in driver.find_element(By.ID, "flow-lines").text
                         and driver.find_element(By.ID, "flow-lines").text)
        request = next(json.loads(line) for line in lines.splitlines() if '"event":"request"' in line)
        resumed_at = int(next(value for name, value in request["fields"] if name.lower() == "upload-offset"))
        if not 0 < resumed_at <= offset + 1024 * 1024:
            raise CheckFailed(f"the PATCH resumed from {resumed_at}, not from what was sent before the reset "
                              f"(the page showed {offset} then)")
        wait_for("the upload to finish", lambda: upload.poll() is not None, patience=60)
        out, err = upload.communicate()
        if upload.returncode != 0 or "1 of 1 files uploaded" not in out:
            raise CheckFailed(f"squall upload did not finish after the reset: {upload.returncode} {out} {err}")
        expected = {"patch": patch["key"], "path": patch["path"], "length": os.path.getsize(content),
                    "rule": rule_name, "connections": range(1, FALLBACK_CONNECTION)}
        # The chart and rows redraw at most every 250 ms: wait for the last events to be drawn.
        try:
            wait_for("the flow list, detail panel and chart to show the resumed upload",
                     lambda: not dashboard_failures(driver, expected), patience=10)
        except CheckFailed:
            raise CheckFailed("; ".join(dashboard_failures(driver, expected)))
        controls = check_negative_controls(driver, expected)
        check_no_error(driver)
        if screenshot:
            driver.save_screenshot(screenshot)
        check_request_body_fallback(driver)
        check_no_error(driver)
        print(f"dashboard-browser-check: token asked and used; a bad rule showed {error!r}; slow-uplink added "
              f"and listed by squall fault list; a reset fired from the page on connection {connection} at "
              f"offset {offset}; the flow list showed the POST {post['status']}, HEAD {head['status']}, PATCH "
              f"{patch['status']} from {resumed_at} (interop 8) and the upload finished; the PATCH's row showed its "
              f"lines; the chart of {patch['path']} reached {expected['length']} with a mark for {rule_name}; "
              f"negative controls failed as they should: {', '.join(controls)}; a transcript without request_written "
              f"(a proxy before it) drew the same from request_body")
        return 0
    except CheckFailed as failure:
        print(f"dashboard-browser-check: {failure}", file=sys.stderr)
        if driver and screenshot:
            driver.save_screenshot(screenshot)
        return 1
    finally:
        if driver:
            driver.quit()
        for process in reversed(processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
