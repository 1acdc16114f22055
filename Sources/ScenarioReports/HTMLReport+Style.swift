/// The page's fixed text: the key to the charts and the style sheet (light and dark).
extension HTMLReport {
    /// How to read the charts, once per page.
    static let key = """
        <p id="key" class="key"><span class="swatch sent"></span>bytes the client sent, as the proxy read them \
        <span class="swatch forwarded"></span>bytes forwarded to the server, as they were written to its socket \
        (a bandwidth or latency fault shows as a slope) \
        <span class="swatch ack"></span>offsets the server acknowledged (104, HEAD, final, 409) \
        <span class="swatch resume"></span>where the client resumed, from which offset \
        <span class="swatch fault"></span>a fault, at the time it reached the wire \
        <span class="swatch event"></span>an event; below each plot, each request as a span with its method and \
        status</p>

        """

    static let style = """
        :root{--fg:#1b1f24;--bg:#ffffff;--muted:#57606a;--line:#d0d7de;--pass:#1a7f37;--fail:#cf222e;\
        --skip:#9a6700;--sent:#0969da;--fwd:#bc4c00;--ack:#1a7f37;--fault:#cf222e;--event:#8250df;--span:#eaeef2}
        @media (prefers-color-scheme: dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;\
        --pass:#3fb950;--fail:#f85149;--skip:#d29922;--sent:#4493f8;--fwd:#f0883e;--ack:#3fb950;--fault:#f85149;--event:#a371f7;\
        --span:#21262d}}
        body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1000px;\
        padding:0 16px 48px}
        h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-top:1px solid var(--line);padding-top:16px}
        table{border-collapse:collapse;width:100%;margin:8px 0}th,td{text-align:left;vertical-align:top;\
        padding:4px 8px;border-bottom:1px solid var(--line)}caption{text-align:left;font-weight:600;padding:4px 0}
        .facts{display:flex;flex-wrap:wrap;gap:8px 24px;margin:0}.facts dt{color:var(--muted);font-size:12px}\
        .facts dd{margin:0;font-weight:600}
        .summary.failed{color:var(--fail);font-weight:600}.summary.passed{color:var(--pass);font-weight:600}
        .badge{font-size:12px;padding:1px 6px;border-radius:8px;border:1px solid currentColor}
        .badge.passed{color:var(--pass)}.badge.failed{color:var(--fail)}.badge.skipped,.badge.flaky{color:var(--skip)}
        .meta{color:var(--muted)}.error,.skip{color:var(--fail)}ul{margin:0;padding-left:18px}
        figure{margin:16px 0}figcaption{color:var(--muted);font-size:13px}
        svg.chart{max-width:100%;height:auto;color:var(--fg)}
        .axes rect{fill:none;stroke:var(--line)}.axes text,.chart text{fill:var(--muted);font-size:11px}
        .sent{fill:none;stroke:var(--sent);stroke-width:2}.forwarded{fill:none;stroke:var(--fwd);stroke-width:2;\
        stroke-dasharray:6 3}.ack circle{fill:var(--ack)}
        .resume path{fill:var(--sent)}.resume text{fill:var(--sent)}
        .fault line{stroke:var(--fault);stroke-dasharray:4 3}.fault path{fill:var(--fault)}.fault text{fill:var(--fault)}
        .event line{stroke:var(--event);stroke-width:1.5}.event text{fill:var(--event)}
        .request rect{fill:var(--span);stroke:var(--line)}.request text{fill:var(--fg)}
        .key{color:var(--muted);font-size:13px}.swatch{display:inline-block;width:14px;height:3px;\
        vertical-align:middle;margin:0 4px 0 10px}.swatch.sent{background:var(--sent)}.swatch.forwarded{background:var(--fwd)}.swatch.ack{height:8px;\
        width:8px;border-radius:4px;background:var(--ack)}.swatch.resume{background:var(--sent);height:8px;width:6px}\
        .swatch.fault{border-top:2px dashed var(--fault);height:0}.swatch.event{background:var(--event)}
        """
}
