#!/usr/bin/env python3
"""Squall's HAR files read back by a HAR reader nobody here wrote: haralyzer from PyPI (Tools/setup.sh installs it).

    Tools/har-check.py [SQUALL_BINARY]          default .build/debug/squall
    Tools/har-check.py --self-test              the negative controls only

Three HAR files, each opened with haralyzer's HarParser and HarEntry (dates parsed, timings read) and checked:

1. A debug bundle's transcript.har (`squall run Scenarios/reset-mid-creation.json --capture always --out DIR`):
   the creation (POST) has status 0, an `_error` naming the reset, the fault `cut-at-40` in `_faults`, and its
   104s in `_interimResponses` (the first with the `Location` the client resumed at); then a HEAD and a PATCH of
   that Location, the PATCH answered 2xx; every entry's `time` is the sum of its timings, and its date today's.
2. `squall transcript to-har` of the bundle's transcript.jsonl: the same entries as 1.
3. `squall proxy --plain --har FILE` in front of `squall server`, curl uploading through it: the archive is whole
   after SIGINT, its creation entry has a 2xx status and the server's 104 in `_interimResponses`.

Negative controls (--self-test, and first in every run): an archive without the 104s, one whose creation has a
status, one with a timing that does not add up and one with a broken date (haralyzer reads no date) must each fail the checks. Exit 0 when everything passed, 1 naming the first problem.
"""

import copy
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile

from haralyzer import HarParser
from haralyzer.assets import HarEntry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class CheckFailed(Exception):
    pass


def entries(har):
    """The archive's entries through haralyzer: HarParser reads the log, HarEntry each entry (its date parsed)."""
    parser = HarParser(har)
    if parser.version != "1.2" or parser.creator.get("name") != "squall":
        raise CheckFailed(f"log.version {parser.version!r}, creator {parser.creator!r}")
    read = []
    for raw in har["log"]["entries"]:
        try:
            entry = HarEntry(raw)
            started = entry.startTime
        except Exception as error:  # haralyzer raises whatever its date parser raises
            raise CheckFailed(f"haralyzer cannot read an entry: {error!r}")
        if started is None:
            raise CheckFailed(f"haralyzer cannot read the date {raw.get('startedDateTime')!r}")
        read.append((entry, started, raw))
    return read


def check_timings(read):
    today = datetime.datetime.now(datetime.timezone.utc)
    for entry, started, raw in read:
        timings = entry.timings
        total = sum(value for value in timings.values() if value >= 0)
        if abs(total - entry.time) > 0.002:
            raise CheckFailed(f"{entry.request.method} {entry.url}: time {entry.time} is not its timings' sum {total}")
        if abs((started - today).total_seconds()) > 86400:
            raise CheckFailed(f"{entry.request.method} {entry.url}: started {started}, not today")


def check_reset_creation(har):
    """The bundle's archive of reset-mid-creation (see the docstring)."""
    read = entries(har)
    check_timings(read)
    methods = [entry.request.method for entry, _, _ in read]
    if "POST" not in methods:
        raise CheckFailed(f"no creation among {methods}")
    post, _, raw = next(item for item in read if item[0].request.method == "POST")
    if post.status != 0 or "reset" not in raw.get("_error", ""):
        raise CheckFailed(f"the cut creation: status {post.status}, _error {raw.get('_error')!r}")
    if not any(f["rule"] == "cut-at-40" and f["action"] == "reset" for f in raw["_faults"]):
        raise CheckFailed(f"the creation's _faults lack cut-at-40: {raw['_faults']}")
    interims = raw["_interimResponses"]
    if not interims or any(i["status"] != 104 for i in interims):
        raise CheckFailed(f"the creation's _interimResponses are not its 104s: {interims}")
    location = next((h["value"] for h in interims[0]["headers"] if h["name"].lower() == "location"), None)
    if location is None:
        raise CheckFailed(f"the first 104 has no Location: {interims[0]}")
    later = [(entry.request.method, entry.url, entry.status) for entry, _, _ in read[methods.index("POST") + 1:]]
    resumed = [item for item in later if item[1].endswith(location)]
    if [method for method, _, _ in resumed][:2] != ["HEAD", "PATCH"] or not 200 <= resumed[1][2] < 300:
        raise CheckFailed(f"after the cut, not a HEAD then a 2xx PATCH of {location}: {later}")


def check_live_creation(har):
    """The archive squall proxy --har wrote of curl's creation."""
    read = entries(har)
    check_timings(read)
    posts = [(entry, raw) for entry, _, raw in read if entry.request.method == "POST"]
    if len(posts) != 1:
        raise CheckFailed(f"{len(posts)} creations, expected 1")
    entry, raw = posts[0]
    if not 200 <= entry.status < 300 or not any(i["status"] == 104 for i in raw["_interimResponses"]):
        raise CheckFailed(f"creation: status {entry.status}, interims {raw['_interimResponses']}")
    if entry.request.bodySize != 300000:
        raise CheckFailed(f"creation: request bodySize {entry.request.bodySize}, expected 300000")


def must_fail(name, check, har):
    try:
        check(har)
    except CheckFailed:
        return
    raise CheckFailed(f"negative control '{name}' passed the checks")


def negative_controls(har):
    """Each defect of a good archive (that of check 1) must fail."""
    post = next(i for i, e in enumerate(har["log"]["entries"]) if e["request"]["method"] == "POST")
    defects = {}
    no_104 = copy.deepcopy(har)
    no_104["log"]["entries"][post]["_interimResponses"] = []
    defects["no 104s"] = no_104
    answered = copy.deepcopy(har)
    answered["log"]["entries"][post]["response"]["status"] = 201
    defects["an answered creation"] = answered
    timing = copy.deepcopy(har)
    timing["log"]["entries"][0]["timings"]["wait"] += 5
    defects["timings that do not add up"] = timing
    date = copy.deepcopy(har)
    date["log"]["entries"][0]["startedDateTime"] = "yesterday at noon"
    defects["a broken date"] = date
    for name, defect in defects.items():
        must_fail(name, check_reset_creation, defect)


def run(command, **options):
    return subprocess.run(command, capture_output=True, text=True, timeout=120, **options)


def bundle_archives(squall, folder):
    out = os.path.join(folder, "bundle")
    result = run([squall, "run", os.path.join(ROOT, "Scenarios", "reset-mid-creation.json"),
                  "--capture", "always", "--out", out])
    if result.returncode != 0:
        raise CheckFailed(f"squall run failed: {result.stdout}{result.stderr}")
    bundle = os.path.join(out, "reset-mid-creation")
    with open(os.path.join(bundle, "transcript.har")) as file:
        har = json.load(file)
    converted = run([squall, "transcript", "to-har", os.path.join(bundle, "transcript.jsonl")])
    if converted.returncode != 0:
        raise CheckFailed(f"squall transcript to-har failed: {converted.stderr}")
    return har, json.loads(converted.stdout)


def live_archive(squall, folder):
    """squall server, squall proxy --har in front of it, curl's creation through the proxy, then SIGINT."""
    server = subprocess.Popen([squall, "server"], stdout=subprocess.PIPE, text=True)
    proxy = None
    try:
        upstream = server.stdout.readline().strip()
        har_path = os.path.join(folder, "live.har")
        proxy = subprocess.Popen([squall, "proxy", "--plain", "--upstream", upstream, "--har", har_path],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        url = proxy.stdout.readline().strip()
        body = os.path.join(folder, "body.bin")
        with open(body, "wb") as file:
            file.write(os.urandom(300000))
        curl = run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Upload-Draft-Interop-Version: 8",
                    "-H", "Upload-Complete: ?1", "--data-binary", "@" + body, url + "/upload"])
        if not curl.stdout.startswith("2"):
            raise CheckFailed(f"curl through the proxy: {curl.stdout} {curl.stderr}")
        proxy.send_signal(signal.SIGINT)
        proxy.wait(timeout=30)
        with open(har_path) as file:
            return json.load(file)
    finally:
        for process in (proxy, server):
            if process and process.poll() is None:
                process.send_signal(signal.SIGINT)
                process.wait(timeout=30)


def main():
    arguments = sys.argv[1:]
    self_test = arguments == ["--self-test"]
    squall = os.path.abspath(arguments[0] if arguments and not self_test else os.path.join(ROOT, ".build/debug/squall"))
    try:
        with tempfile.TemporaryDirectory() as folder:
            bundle, converted = bundle_archives(squall, folder)
            negative_controls(bundle)
            print("har-check: 4 negative controls failed the checks, as they must", flush=True)
            if self_test:
                return 0
            check_reset_creation(bundle)
            if converted["log"]["entries"] != bundle["log"]["entries"]:
                raise CheckFailed("squall transcript to-har gives other entries than the bundle's transcript.har")
            live = live_archive(squall, folder)
            check_live_creation(live)
            print(f"har-check: bundle ({len(bundle['log']['entries'])} entries), to-har (the same) and "
                  f"squall proxy --har ({len(live['log']['entries'])} entries) read by haralyzer; all checks pass")
    except CheckFailed as problem:
        print(f"har-check: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
