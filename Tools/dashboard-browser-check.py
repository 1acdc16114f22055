#!/usr/bin/env python3
"""Drives the proxy's live dashboard in headless Chromium (Debian's chromium and chromium-driver, through selenium
from PyPI; Tools/setup.sh installs them), end to end against a live upload:

    Tools/dashboard-browser-check.py [SQUALL_BINARY] [--screenshot FILE]

1. starts `squall server` and `squall proxy --api 127.0.0.1:0 --api-token T` in front of it (loopback only);
2. opens the dashboard, which asks for the token; enters it;
3. adds a rule through the form (an upstream bandwidth limit, so that the upload takes a few seconds) and sees it
   in `squall fault list`; a rule with a mistake shows the loader's error with its JSON path;
4. starts `squall upload` through the proxy, waits until the page shows its connection with an upload offset,
   fires a reset on that connection from the page, and sees the upload resume in the page (a HEAD, then a PATCH
   from the offset the server kept) and `squall upload` finish with every byte;
5. fails when the page's status line or the browser's console shows an error.

Every wait is on what the page or a process shows, bounded (30 s each). Exit 0 when every check passed.
"""

import json
import os
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
                'return Array.from(document.querySelectorAll("#connections tbody tr"), (row) => '
                '[row.dataset.connection, row.cells[4].textContent, row.querySelector("td.offset").textContent]);')
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

        def resumed():
            """The offset the PATCH after the HEAD resumed from, as the page's transcript shows it."""
            events = []
            for line in driver.find_element(By.ID, "transcript").text.splitlines():
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
            head = next((e for e in events if e.get("event") == "request" and e.get("method") == "HEAD"), None)
            if head is None:
                return None
            patch = next((e for e in events if e.get("event") == "request" and e.get("method") == "PATCH"
                          and e["t_us"] > head["t_us"]), None)
            if patch is None:
                return None
            return next((e["upload_offset"] for e in events if e.get("event") == "request_body"
                         and e["conn"] == patch["conn"] and e["exchange"] == patch["exchange"]
                         and e.get("upload_offset") is not None), None)
        resumed_at = wait_for("the upload to resume in the page (a HEAD, then a PATCH)", resumed)
        if not 0 < resumed_at <= offset + 1024 * 1024:
            raise CheckFailed(f"the PATCH resumed from {resumed_at}, not from what was sent before the reset "
                              f"(the page showed {offset} then)")
        wait_for("the upload to finish", lambda: upload.poll() is not None, patience=60)
        out, err = upload.communicate()
        if upload.returncode != 0 or "1 of 1 files uploaded" not in out:
            raise CheckFailed(f"squall upload did not finish after the reset: {upload.returncode} {out} {err}")
        check_no_error(driver)
        if screenshot:
            driver.save_screenshot(screenshot)
        print(f"dashboard-browser-check: token asked and used; a bad rule showed {error!r}; slow-uplink added "
              f"and listed by squall fault list; a reset fired from the page on connection {connection} at "
              f"offset {offset}; the upload resumed (HEAD, then PATCH from {resumed_at}) and finished")
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
