#!/usr/bin/env python3
"""A bounded loopback soak of the chaos proxy: does its memory stay flat under load? (issue 37)

    Tools/soak.py --self-test
    Tools/soak.py SQUALL [--seconds S] [--workers N] [--size BYTES] [--window S] [--fault-every S]
                         [--transcript-memory SIZE] [--max-growth PERCENT] [--out DIR]
                         [--bursts K [--burst-connections N]]

What a user leaving `squall proxy` running for a day of testing does, shortened:

    N workers ──TLS──▶ squall proxy --ca … --api … ──▶ squall server (temporary store)
                      ▲ a fault added and the previous one removed every --fault-every seconds (control API)

Each worker uploads --size bytes (default 1 MiB) as a resumable creation (interop 6: the server's 104, then its
201) on a new TLS connection, again and again, until --seconds (default 60) have passed. At the end of every
--window seconds (default 60, or 10 for runs under 5 minutes) a row goes to soak.csv: the window's uploads and
errors, the proxy's RSS (MiB), open descriptors and threads (from /proc), the p50 and p99 upload time (ms), and
the in-memory transcript's events and MiB (from its /metrics), and the server's store (MiB; the server keeps a completed
upload for 1 s, `--retention 1s`, and the soak stops should its store pass 4 GiB); soak.svg charts RSS, descriptors, threads and p99
per window, in --out (without it, the CSV is printed and both are removed).

--transcript-memory is passed to the proxy (default: the proxy's own, 8 MiB). The test command's 60-second run
gives 1MiB, so that the in-memory transcript, bounded and tested on its own, is full within the first window and
whatever else grows with traffic shows.

With --bursts K, after the soak the proxy meets K bursts of N connections (default 2000) held at once, each a TLS
creation of 64 KiB, and the proxy's RSS once it holds none again goes to bursts.csv: what a burst leaves behind (a
measurement, not a check; a failed upload of a burst still fails the run).

Fails (exit 1) when an upload or rule change failed, when the last windows' RSS (the median of up to three) is more
than --max-growth percent (default 10) above the first window's, or when, once the workers stopped and the proxy holds
no connection, it has more descriptors or threads than idle before they started (two of slack). `--self-test` shows
each of these checks failing on made-up figures (and flat ones passing) and exits. Exit 2 on bad usage or when the proxy or server could not start. Bounded: it stops
by itself at --seconds plus at most 30 s for the workers' last uploads, and every process it started is stopped.
Loopback only.
"""

import argparse
import asyncio
import os
import resource
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

SELF = "soak.py"
# The most the server's store may hold before the soak stops (a disk filling up is a failure, not a result).
STORE_LIMIT_MIB = 4096


def fail_usage(message):
    print(f"{SELF}: {message}", file=sys.stderr)
    sys.exit(2)


class StartFailure(Exception):
    pass


def read_line(process, what, errors):
    line = process.stdout.readline()
    if not line:
        process.wait()
        with open(errors) as file:
            raise StartFailure(f"{what} ended (exit {process.returncode}) before it was ready: {file.read().strip()}")
    return line.strip()


class Proxy:
    """The server and the proxy in front of it, started in `folder` (their stderr in files there); `stop` ends
    both. A start that fails stops what it started and raises `StartFailure`."""

    def __init__(self, squall, folder, transcript_memory):
        self.processes = []
        try:
            self.start(squall, folder, transcript_memory)
        except BaseException:
            self.stop()
            raise

    def spawn(self, arguments, errors):
        # stdout carries only the ready lines; stderr goes to a file, so that neither pipe can fill and block.
        with open(errors, "w") as file:
            process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=file, text=True)
        self.processes.insert(0, process)
        return process

    def start(self, squall, folder, transcript_memory):
        server_errors, proxy_errors = f"{folder}/server.err", f"{folder}/proxy.err"
        # A second of retention: the server removes each completed upload within about two seconds, so the store
        # holds a few hundred MiB, not every upload of the run (a 30-minute run uploads some 200 GiB).
        server = self.spawn(
            [squall, "server", "--listen", "127.0.0.1:0", "--retention", "1s", "--max-connections", "4096"],
            server_errors,
        )
        upstream = read_line(server, "squall server", server_errors)
        self.store = read_line(server, "squall server", server_errors)
        ca = subprocess.run([squall, "ca", "init", "--dir", f"{folder}/ca"], capture_output=True, text=True)
        if ca.returncode != 0:
            raise StartFailure(f"squall ca init failed: {ca.stderr.strip()}")
        self.proxy = self.spawn(
            [squall, "proxy", "--upstream", upstream, "--ca", f"{folder}/ca", "--api", "127.0.0.1:0"]
            + (["--transcript-memory", transcript_memory] if transcript_memory else []),
            proxy_errors,
        )
        self.url = read_line(self.proxy, "squall proxy", proxy_errors)
        self.api = read_line(self.proxy, "squall proxy", proxy_errors)
        self.ca = read_line(self.proxy, "squall proxy", proxy_errors)
        host, port = self.url.removeprefix("https://").rsplit(":", 1)
        self.address = (host, int(port))

    def stop(self):
        """Stops the proxy, then the server (SIGTERM, SIGKILL after 20 s)."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def read_head(stream):
    """One response head from a file-like socket: (status, {lowercased name: value})."""
    status_line = stream.readline(65536)
    if not status_line:
        raise ConnectionError("the connection closed before a response")
    parts = status_line.split(b" ", 2)
    status = int(parts[1])
    fields = {}
    while True:
        line = stream.readline(65536)
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        fields[name.strip().lower().decode()] = value.strip().decode()
    return status, fields


def upload(address, context, body):
    """One resumable creation on a new TLS connection; returns the seconds it took. Raises on any failure."""
    started = time.monotonic()
    with socket.create_connection(address, timeout=30) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            head = (
                "POST /upload HTTP/1.1\r\nHost: localhost\r\nUpload-Draft-Interop-Version: 6\r\n"
                f"Upload-Complete: ?1\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            tls.sendall(head.encode() + body)
            stream = tls.makefile("rb")
            while True:
                status, fields = read_head(stream)
                if status >= 200:
                    break
            length = int(fields.get("content-length", "0"))
            if length:
                stream.read(length)
            if status != 201:
                raise ConnectionError(f"answered {status}")
    return time.monotonic() - started


async def burst_upload(proxy, context, body, gate):
    """One connection of a burst: connected and handshaken first, then (once `gate` opens) a creation of `body`."""
    reader, writer = await asyncio.open_connection(*proxy.address, ssl=context, server_hostname="localhost")
    try:
        await gate.wait()
        writer.write(
            (
                "POST /upload HTTP/1.1\r\nHost: localhost\r\nUpload-Draft-Interop-Version: 6\r\n"
                f"Upload-Complete: ?1\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body
        )
        await writer.drain()
        while True:
            status = int((await reader.readline()).split(b" ", 2)[1])
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if status >= 200:
                break
        await reader.readexactly(length)
        if status != 201:
            raise ConnectionError(f"answered {status}")
    finally:
        writer.close()


async def burst(proxy, context, connections, body):
    """`connections` held at once: all connect and finish their TLS handshake, then all upload; returns the errors."""
    gate = asyncio.Event()
    tasks = [asyncio.create_task(burst_upload(proxy, context, body, gate)) for _ in range(connections)]
    await asyncio.sleep(0)
    gate.set()
    return [result for result in await asyncio.gather(*tasks, return_exceptions=True) if result is not None]


def bursts(arguments, proxy, out):
    """After the soak: --bursts bursts of --burst-connections connections, each followed by the proxy's RSS once it
    holds none again, into bursts.csv. A measurement of what a burst leaves behind, not a check."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, arguments.burst_connections * 2 + 256)), hard))
    context = ssl.create_default_context(cafile=proxy.ca)
    body = os.urandom(64 * 1024)
    failed = 0
    with open(f"{out}/bursts.csv", "w") as csv:
        csv.write("burst,connections,errors,rss_mib\n")
        for number in range(1, arguments.bursts + 1):
            errors = asyncio.run(burst(proxy, context, arguments.burst_connections, body))
            failed += len(errors)
            rss = settle(proxy)[0]
            csv.write(f"{number},{arguments.burst_connections},{len(errors)},{rss:.1f}\n")
            print(f"burst {number}: {arguments.burst_connections} connections, {len(errors)} errors, RSS after "
                  f"{rss:.1f} MiB" + (f" (e.g. {errors[0]!r})" if errors else ""), flush=True)
    return failed


def proc_figures(pid):
    """(RSS in MiB, open descriptors, threads) of `pid`."""
    rss = threads = 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd")), threads


def metrics(api):
    """The proxy's /metrics, as {name: number} (labelled lines keep their labels in the name)."""
    text = urllib.request.urlopen(f"{api}/metrics", timeout=10).read().decode()
    figures = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            figures[name] = int(value)
    return figures


def settle(proxy):
    """Waits (at most 30 s) until the proxy holds no connection; its (RSS, descriptors, threads) then."""
    deadline = time.monotonic() + 30
    while metrics(proxy.api).get("squall_proxy_connections_open", 0) > 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    return proc_figures(proxy.proxy.pid)


def judge(rows, idle_before, idle_after, max_growth):
    """What is wrong with a soak's figures: the RSS of the last windows (their median, up to three) more than
    `max_growth` percent above the first window's; more descriptors or threads once idle again than idle before
    (two of slack: the control API's own connection). Pure, so that --self-test can show it failing."""
    first = rows[0]["rss_mib"]
    tail = sorted(row["rss_mib"] for row in rows[-3:])
    last = tail[len(tail) // 2]
    growth = (last - first) / first * 100
    problems = []
    if growth > max_growth:
        problems.append(f"RSS grew {growth:.1f} % (first window {first} MiB, last windows {last} MiB)")
    if idle_after[1] > idle_before[1] + 2:
        problems.append(f"descriptors grew from {idle_before[1]} to {idle_after[1]} (idle before and after)")
    if idle_after[2] > idle_before[2] + 2:
        problems.append(f"threads grew from {idle_before[2]} to {idle_after[2]} (idle before and after)")
    return growth, problems


def self_test():
    """The checks' negative controls: growing RSS, a descriptor leak and a thread leak each fail; flat passes."""
    flat = [{"rss_mib": value} for value in (60.0, 62.0, 61.0, 61.5, 60.5, 62.5)]
    growing = [{"rss_mib": 60.0 + 2.0 * index} for index in range(6)]
    idle = (50.0, 40, 10)
    cases = [
        ("flat", judge(flat, idle, idle, 10.0)[1], 0),
        ("RSS growing 2 MiB a window", judge(growing, idle, idle, 10.0)[1], 1),
        ("a descriptor leak", judge(flat, idle, (50.0, 43, 10), 10.0)[1], 1),
        ("a thread leak", judge(flat, idle, (50.0, 40, 13), 10.0)[1], 1),
    ]
    wrong = [name for name, problems, expected in cases if len(problems) != expected]
    for name, problems, _ in cases:
        print(f"self-test {name}: {'; '.join(problems) or 'no problem'}")
    if wrong:
        print(f"{SELF}: self-test judged wrongly: {', '.join(wrong)}", file=sys.stderr)
        return 1
    return 0


def folder_mib(path):
    """The MiB of the files below `path` (0 when it is gone)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total / (1 << 20)


def percentile(values, fraction):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def churn_faults(api, stop, every, counts):
    """Adds a fault and removes the previous one every `every` seconds, until `stop` is set."""
    previous = None
    number = 0
    while not stop.wait(every):
        number += 1
        name = f"soak-churn-{number}"
        # A rule that never matches an upload: the churn changes the rule set under load, it breaks nothing.
        rule = f'{{"name": "{name}", "match": {{"method": "DELETE"}}, "action": "reset"}}'
        request = urllib.request.Request(
            f"{api}/squall/faults", data=rule.encode(), method="POST", headers={"Content-Type": "application/json"}
        )
        urllib.request.urlopen(request, timeout=10).read()
        if previous:
            urllib.request.urlopen(
                urllib.request.Request(f"{api}/squall/faults/{previous}", method="DELETE"), timeout=10
            ).read()
        previous = name
        counts["changes"] += 1


def svg(rows, path, title, window):
    """Four small line charts (RSS, descriptors, threads, p99) over the windows, in one self-contained SVG."""
    charts = [("rss_mib", "RSS (MiB)"), ("fds", "descriptors"), ("threads", "threads"), ("p99_ms", "p99 upload (ms)")]
    width, height, pad = 360, 180, 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * width}" height="{2 * height + 30}" '
        'font-family="sans-serif" font-size="11">',
        f'<text x="8" y="18" font-size="14">{title}</text>',
    ]
    for index, (key, label) in enumerate(charts):
        ox, oy = (index % 2) * width, 30 + (index // 2) * height
        values = [row[key] for row in rows]
        top = max(values + [1]) * 1.1
        parts.append(f'<text x="{ox + pad}" y="{oy + 14}">{label}, max {max(values + [0]):.1f}</text>')
        parts.append(
            f'<rect x="{ox + pad}" y="{oy + 20}" width="{width - 2 * pad}" height="{height - 60}" '
            'fill="none" stroke="#999"/>'
        )
        points = []
        for number, value in enumerate(values):
            x = ox + pad + (width - 2 * pad) * (number / max(1, len(values) - 1))
            y = oy + 20 + (height - 60) * (1 - value / top)
            points.append(f"{x:.1f},{y:.1f}")
        parts.append(f'<polyline fill="none" stroke="#1f6feb" stroke-width="2" points="{" ".join(points)}"/>')
        parts.append(f'<text x="{ox + pad}" y="{oy + height - 24}">window 1 … {len(values)} ({window} s each)</text>')
        parts.append(f'<text x="{ox + 4}" y="{oy + 28}">{top:.0f}</text><text x="{ox + 4}" y="{oy + height - 40}">0</text>')
    parts.append("</svg>")
    with open(path, "w") as file:
        file.write("\n".join(parts) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("squall", nargs="?")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--workers", type=int, default=20)
    parser.add_argument("--size", type=int, default=1 << 20)
    parser.add_argument("--window", type=int)
    parser.add_argument("--fault-every", type=float, default=3.0)
    parser.add_argument("--max-growth", type=float, default=10.0)
    parser.add_argument("--transcript-memory")
    parser.add_argument("--bursts", type=int, default=0)
    parser.add_argument("--burst-connections", type=int, default=2000)
    parser.add_argument("--out")
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    if not arguments.squall:
        fail_usage("the squall binary to run is required (e.g. .build/debug/squall)")
    if not (os.path.isfile(arguments.squall) and os.access(arguments.squall, os.X_OK)):
        fail_usage(f"no squall binary at {arguments.squall} (build it first: swift build --product squall)")
    if arguments.seconds < 10 or arguments.seconds > 4 * 3600:
        fail_usage(f"--seconds must be from 10 to 14400, not {arguments.seconds}")
    if not 1 <= arguments.workers <= 200:
        fail_usage(f"--workers must be from 1 to 200, not {arguments.workers}")
    if not 0 <= arguments.bursts <= 100 or not 1 <= arguments.burst_connections <= 4000:
        fail_usage("--bursts must be from 0 to 100 and --burst-connections from 1 to 4000")
    window = arguments.window or (60 if arguments.seconds >= 300 else 10)
    if window < 1 or window * 2 > arguments.seconds:
        fail_usage(f"--window must be at least 1 s and at most half of --seconds, not {window}")
    # SIGTERM unwinds like Ctrl-C: the `finally` below stops the proxy and server, and the folder goes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="squall-soak-run.") as folder:
        # Without --out, the CSV and SVG go to the run's folder, removed at the end (the CSV is printed).
        out = arguments.out or folder
        os.makedirs(out, exist_ok=True)
        try:
            proxy = Proxy(arguments.squall, folder, arguments.transcript_memory)
        except StartFailure as failure:
            fail_usage(str(failure))
        try:
            return soak(arguments, proxy, window, out)
        finally:
            proxy.stop()
            if not arguments.out and os.path.exists(f"{out}/soak.csv"):
                with open(f"{out}/soak.csv") as csv:
                    print(csv.read(), end="")


def soak(arguments, proxy, window, out):
    context = ssl.create_default_context(cafile=proxy.ca)
    body = os.urandom(arguments.size)
    stop = threading.Event()
    lock = threading.Lock()
    durations = []  # (finish time, seconds) of the current window
    counts = {"uploads": 0, "errors": 0, "changes": 0}
    errors = []

    def worker():
        while not stop.is_set():
            try:
                took = upload(proxy.address, context, body)
                with lock:
                    durations.append(took)
                    counts["uploads"] += 1
            except Exception as error:  # noqa: BLE001 - every failure is counted and reported
                with lock:
                    counts["errors"] += 1
                    if len(errors) < 5:
                        errors.append(repr(error))

    def churn():
        try:
            churn_faults(proxy.api, stop, arguments.fault_every, counts)
        except Exception as error:  # noqa: BLE001
            with lock:
                counts["errors"] += 1
                errors.append(f"fault churn: {error!r}")

    idle_before = settle(proxy)
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(arguments.workers)]
    threads.append(threading.Thread(target=churn, daemon=True))
    for thread in threads:
        thread.start()

    pid = proxy.proxy.pid
    rows = []
    started = time.monotonic()
    last = dict(counts)
    with open(f"{out}/soak.csv", "w") as csv:
        csv.write("window,end_s,uploads,errors,rss_mib,fds,threads,p50_ms,p99_ms,transcript_events,transcript_mib,store_mib\n")
        for number in range(1, arguments.seconds // window + 1):
            end = started + number * window
            while time.monotonic() < end:
                time.sleep(min(1.0, max(0.0, end - time.monotonic())))
                if proxy.proxy.poll() is not None:
                    print(f"{SELF}: the proxy exited ({proxy.proxy.returncode})", file=sys.stderr)
                    stop.set()
                    return 1
            rss, fds, thread_count = proc_figures(pid)
            figures = metrics(proxy.api)
            events = figures.get("squall_proxy_transcript_events", 0)
            transcript_mib = figures.get("squall_proxy_transcript_bytes", 0) / (1 << 20)
            with lock:
                taken, durations[:] = list(durations), []
                now = dict(counts)
            row = {
                "window": number,
                "end_s": round(time.monotonic() - started),
                "uploads": now["uploads"] - last["uploads"],
                "errors": now["errors"] - last["errors"],
                "rss_mib": round(rss, 1),
                "fds": fds,
                "threads": thread_count,
                "p50_ms": round(percentile(taken, 0.5) * 1000, 1),
                "p99_ms": round(percentile(taken, 0.99) * 1000, 1),
                "transcript_events": events,
                "transcript_mib": round(transcript_mib, 1),
                "store_mib": round(folder_mib(proxy.store)),
            }
            last = now
            rows.append(row)
            if row["store_mib"] > STORE_LIMIT_MIB:
                print(f"{SELF}: the server's store holds {row['store_mib']} MiB (its retention is 1 s)", file=sys.stderr)
                stop.set()
                return 1
            csv.write(",".join(str(row[key]) for key in row) + "\n")
            csv.flush()
            print(
                f"window {number}: {row['uploads']} uploads, {row['errors']} errors, RSS {row['rss_mib']} MiB, "
                f"{fds} fds, {thread_count} threads, p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms, transcript {events} "
                f"events ({row['transcript_mib']} MiB), store {row['store_mib']} MiB",
                flush=True,
            )
    stop.set()
    for thread in threads:
        thread.join(timeout=30)

    idle_after = settle(proxy)
    title = (
        f"squall proxy soak: {arguments.workers} workers × {arguments.size} B, {arguments.seconds} s, "
        f"{counts['uploads']} uploads, {counts['errors']} errors"
    )
    svg(rows, f"{out}/soak.svg", title, window)
    growth, problems = judge(rows, idle_before, idle_after, arguments.max_growth)
    print(
        f"{counts['uploads']} uploads, {counts['errors']} errors, {counts['changes']} rule changes; RSS first window "
        f"{rows[0]['rss_mib']} MiB, last {rows[-1]['rss_mib']} MiB ({growth:+.1f} % by the last windows' median); "
        f"idle before → after: fds {idle_before[1]} → {idle_after[1]}, threads {idle_before[2]} → {idle_after[2]}, "
        f"RSS {idle_before[0]:.1f} → {idle_after[0]:.1f} MiB; {out}/soak.csv, {out}/soak.svg"
    )
    if arguments.bursts:
        failed = bursts(arguments, proxy, out)
        if failed:
            problems.append(f"{failed} uploads of the bursts failed")
    if counts["errors"]:
        problems.append(f"{counts['errors']} uploads or rule changes failed, e.g. {'; '.join(errors)}")
    if counts["uploads"] == 0:
        problems.append("no upload finished")
    for problem in problems:
        print(f"{SELF}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
