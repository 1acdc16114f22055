#!/usr/bin/env python3
"""What an open dashboard and a person changing faults do to a proxy's control API, for Tools/bench-proxy.sh:

    Tools/bench-dashboard.py API_URL [--changes-per-second N] [--match-path PATH] [--page yes]

Until SIGTERM or SIGINT, on loopback only:
- reads the transcript's event stream (`GET /squall/events`, server-sent events), as the page does;
- asks for `/squall/connections` and `/squall/faults` once a second, as the page does;
- N times a second (default 2) adds a fault rule or removes the one it added, alternately: a reset at 100 GiB of
  the upload matching PATH (default `/upload`), so that the proxy's fault engine holds a changing rule for the
  request in flight without the rule ever firing;
- with `--page yes`, also opens the dashboard itself in headless Chromium (Tools/chromium.py: its own event stream,
  polls, flow list and charts, in a browser on the same machine) and, at the end, reads how many flows it drew.

Prints `ready` once the page (when asked for) has loaded and the load has begun, so that a benchmark measures only
while it runs. Then, at the end, prints one line: `changes=… change_p50_ms=… change_max_ms=… polls=… events=… errors=…` (and `page_flows=…`
with `--page yes`), where a change's time is from sending the request to reading the answer. Exits non-zero when
any request failed or the page showed an error.
"""

import http.client
import json
import os
import signal
import sys
import threading
import time
import urllib.parse


def failed(what):
    """Counts a failed request and says which it was."""
    COUNTS["errors"] += 1
    print(f"bench-dashboard: {what}", file=sys.stderr, flush=True)


COUNTS = {"events": 0, "errors": 0, "polls": 0}


def connection(api):
    return http.client.HTTPConnection(api.hostname, api.port, timeout=30)


def stream_events(api, counts, stop):
    """Reads `/squall/events` and counts its `data:` lines until `stop` is set."""
    while not stop.is_set():
        try:
            link = connection(api)
            link.request("GET", "/squall/events?from=0")
            response = link.getresponse()
            if response.status != 200:
                failed(f"GET /squall/events: {response.status}")
                return
            while not stop.is_set():
                line = response.fp.readline()
                if not line:
                    break
                if line.startswith(b"data: "):
                    counts["events"] += 1
        except OSError as error:
            if not stop.is_set():
                failed(f"the event stream: {error}")
            return


def open_page(api_url):
    """The dashboard open in headless Chromium, loaded (its status line says how many connections it polled)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from chromium import browser  # selenium and Debian's chromium: only needed with --page
    driver = browser(size="1200,1000")
    driver.execute_cdp_cmd("Performance.enable", {})
    driver.get(api_url.rstrip("/") + "/")
    deadline = time.monotonic() + 30
    while "connections" not in driver.execute_script('return document.getElementById("status").textContent;'):
        if time.monotonic() > deadline:
            driver.quit()
            raise SystemExit("bench-dashboard: the page did not load within 30 s")
        time.sleep(0.1)
    return driver


def close_page(driver):
    """` page_flows=N page_script_ms=… page_task_ms=…`: what the page drew, and the time its renderer spent running
    script and in all its tasks (layout and paint included) since it opened (Chromium's Performance.getMetrics);
    closes it. A page showing an error counts as a failed request."""
    try:
        flows, status, bad = driver.execute_script(
            'const s = document.getElementById("status");'
            'return [document.querySelectorAll("#flows tbody tr").length, s.textContent, s.className === "error"];')
        if bad:
            failed(f"the page shows an error: {status}")
        metrics = {m["name"]: m["value"] for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
        return (f" page_flows={flows} page_script_ms={metrics.get('ScriptDuration', 0) * 1000:.0f}"
                f" page_task_ms={metrics.get('TaskDuration', 0) * 1000:.0f}")
    finally:
        driver.quit()


def main():
    arguments = sys.argv[1:]
    if not arguments or arguments[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    api = urllib.parse.urlsplit(arguments[0])
    if api.hostname not in ("127.0.0.1", "localhost", "::1"):
        print(f"bench-dashboard: {arguments[0]} is not a loopback address", file=sys.stderr)
        return 2
    options = dict(zip(arguments[1::2], arguments[2::2]))
    changes_per_second = float(options.get("--changes-per-second", "2"))
    match_path = options.get("--match-path", "/upload")

    page = open_page(arguments[0]) if options.get("--page") == "yes" else None
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    counts = COUNTS
    reader = threading.Thread(target=stream_events, args=(api, counts, stop), daemon=True)
    reader.start()
    print("ready", flush=True)

    link = connection(api)
    rule = json.dumps({"name": "bench-churn", "match": {"path": match_path}, "trigger": {"at-offset": "100GiB"},
                       "action": "reset"})
    change_times = []
    added = False
    next_change = time.monotonic()
    next_poll = time.monotonic()
    while not stop.is_set():
        now = time.monotonic()
        if now >= next_poll:
            for path in ("/squall/connections", "/squall/faults"):
                link.request("GET", path)
                response = link.getresponse()
                response.read()
                if response.status != 200:
                    failed(f"GET {path}: {response.status}")
            counts["polls"] += 1
            next_poll += 1
        if now >= next_change:
            started = time.monotonic()
            if added:
                link.request("DELETE", "/squall/faults/bench-churn")
            else:
                link.request("POST", "/squall/faults", body=rule, headers={"Content-Type": "application/json"})
            response = link.getresponse()
            response.read()
            change_times.append(time.monotonic() - started)
            if response.status not in (200, 201, 204):
                failed(f"{'DELETE' if added else 'POST'} /squall/faults: {response.status}")
            added = not added
            next_change += 1 / changes_per_second
        stop.wait(max(0.0, min(next_change, next_poll) - time.monotonic()))

    if added:
        # Leave the proxy as found: the next run adds the same rule.
        link.request("DELETE", "/squall/faults/bench-churn")
        response = link.getresponse()
        response.read()
        if response.status not in (200, 204):
            failed(f"DELETE /squall/faults/bench-churn at the end: {response.status}")
    page_summary = close_page(page) if page else ""
    change_times.sort()
    p50 = change_times[len(change_times) // 2] * 1000 if change_times else 0
    worst = change_times[-1] * 1000 if change_times else 0
    print(f"changes={len(change_times)} change_p50_ms={p50:.2f} change_max_ms={worst:.2f} polls={counts['polls']} "
          f"events={counts['events']} errors={counts['errors']}{page_summary}", flush=True)
    return 1 if counts["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
