/// The live dashboard the control API serves at `/`: one page, its CSS and script inline (nothing fetched from
/// elsewhere), that drives the native endpoints as any client would:
///
/// - live connections (`GET /squall/connections`, every second): each row one poll's sample (bytes each way, the
///   offset the connection's newest request body had reached in the transcript), rates the change between two
///   samples over the proxy's own clock (`controlScript`);
/// - the flows, one row per request (connection + exchange) read from the transcript stream: method, path, status
///   (with its interims), interop version, body bytes each way and time; a click shows that exchange's raw lines
///   (`flowModelScript`, `flowViewScript`);
/// - a chart per recent upload resource: the offset forwarded over time, the server's `Upload-Offset` answers as
///   dots and the faults fired on its connections as marks (inline SVG, redrawn at most every 250 ms);
/// - the fault rules and how often each fired (`GET /squall/faults`), each with a button that removes it
///   (`DELETE /squall/faults/{name}`);
/// - a form that adds a rule in the scenario vocabulary (`POST /squall/faults`: the same loader, so an error names
///   its JSON path), and one that fires an action on a chosen connection (`POST /squall/connections/{id}/fire`);
/// - the raw transcript lines, collapsed (`GET /squall/events`, server-sent events, read with `fetch` so that the
///   token goes in a header).
///
/// With `--api-token` the page asks for the token and keeps it in the tab's session storage. Errors show in the
/// status line (`#status`), never only in the console.
enum DashboardPage {
    static func html(tokenRequired: Bool) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Squall proxy</title>
        <link rel="icon" href="data:,">
        <style>\(style)</style>
        </head>
        <body data-token-required="\(tokenRequired)">
        <header>
        <h1>Squall proxy</h1>
        <p id="status" role="status">connecting…</p>
        <form id="token-form"\(tokenRequired ? "" : " hidden")>
        <label>API token <input id="token" type="password" autocomplete="off"></label>
        <button id="save-token" type="submit">Use token</button>
        </form>
        </header>
        <main>
        <section>
        <h2>Connections</h2>
        <table id="connections"><thead><tr><th>id</th><th>proxy</th><th>client</th><th>age</th><th>last request</th>\
        <th>upload offset</th><th>offset rate</th><th>up</th><th>up rate</th><th>down</th><th>requests</th></tr>\
        </thead><tbody></tbody></table>
        </section>
        <section>
        <h2>Flows <small>(newest first; click one for its transcript lines)</small></h2>
        <div class="scroll"><table id="flows"><thead><tr><th>conn·ex</th><th>method</th><th>path</th><th>status</th>\
        <th>interop</th><th>body up</th><th>body down</th><th>time</th></tr></thead><tbody></tbody></table></div>
        <h3 id="flow-title">(click a flow)</h3>
        <pre id="flow-lines"></pre>
        </section>
        <section>
        <h2>Uploads <small>(offset over time; dots: the server's Upload-Offset; red: faults)</small></h2>
        <div id="charts"></div>
        </section>
        <section>
        <h2>Fault rules</h2>
        <table id="faults"><thead><tr><th>name</th><th>action</th><th>trigger</th><th>fired</th><th>state</th><th></th>\
        </tr></thead><tbody></tbody></table>
        <form id="rule-form">
        <label for="rule-json">Add a rule (a fault of a scenario file)</label>
        <textarea id="rule-json" rows="3" spellcheck="false">{"name": "cut-at-half", "match": {"method": "PATCH"}, \
        "trigger": {"at-offset": "50%"}, "action": "reset", "times": 1}</textarea>
        <button id="add-rule" type="submit">Add rule</button>
        <p id="rule-result" class="result"></p>
        </form>
        </section>
        <section>
        <h2>Fire an action now</h2>
        <form id="fire-form">
        <label>Connection <input id="fire-connection" type="number" min="1" required></label>
        <label for="fire-action">Action</label>
        <textarea id="fire-action" rows="1" spellcheck="false">{"action": "reset"}</textarea>
        <button id="fire" type="submit">Fire</button>
        <p id="fire-result" class="result"></p>
        </form>
        </section>
        <section>
        <details id="raw-events"><summary>Raw events <small>(the last 300; live: <code>curl -N /squall/events</code>)\
        </small></summary><pre id="transcript"></pre></details>
        </section>
        </main>
        <script>\(script)</script>
        </body>
        </html>

        """
    }

    private static let style = """
        :root{--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--bad:#cf222e;--good:#1a7f37;--accent:#0969da;\
        --pick:#ddf4ff}
        @media (prefers-color-scheme: dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;\
        --bad:#f85149;--good:#3fb950;--accent:#4493f8;--pick:#12263f}}
        body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1100px;\
        padding:0 16px 48px}
        table{border-collapse:collapse;width:100%}
        th,td{text-align:left;padding:3px 8px;border-bottom:1px solid var(--line)}
        textarea{width:100%;font:12px ui-monospace,monospace;color:var(--fg);background:var(--bg)}
        input{color:var(--fg);background:var(--bg)}
        #status.error,.result.error{color:var(--bad)}.result.ok{color:var(--good)}#status{color:var(--muted)}
        pre{max-height:360px;overflow:auto;font:12px ui-monospace,monospace;border:1px solid var(--line);padding:8px}
        .scroll{max-height:420px;overflow:auto}.scroll thead th{position:sticky;top:0;background:var(--bg)}
        #flows td{font:12px ui-monospace,monospace;white-space:nowrap}
        #flows td.path{white-space:normal;word-break:break-all}#flows tbody tr{cursor:pointer}
        #flows tr.selected{background:var(--pick)}#flows tr.cut td.status{color:var(--bad)}
        h3{font-size:13px;margin:12px 0 4px}
        #charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:12px}
        figure{margin:0}figcaption{font-size:12px;color:var(--muted);word-break:break-all}
        svg{width:100%;height:auto}svg text{font-size:11px;fill:var(--muted)}.frame{fill:none;stroke:var(--line)}
        path.sent{fill:none;stroke:var(--accent);stroke-width:1.5}circle.ack{fill:var(--good)}
        .fault line{stroke:var(--bad);stroke-width:1.5;stroke-dasharray:4 3}svg text.fault-label{fill:var(--bad)}
        """

    /// The page's script: the transcript's model first (the others read it), its views, then the polls and forms.
    static var script: String { flowModelScript + "\n" + flowViewScript + "\n" + controlScript }
}
