/// The live dashboard the control API serves at `/`: one page, its CSS and script inline (nothing fetched from
/// elsewhere), that drives the native endpoints as any client would:
///
/// - live connections (`GET /squall/connections`, every second) with their bytes, upstream rate and the upload
///   offset their last request body reached (from the transcript stream);
/// - the fault rules and how often each fired (`GET /squall/faults`), each with a button that removes it
///   (`DELETE /squall/faults/{name}`);
/// - a form that adds a rule in the scenario vocabulary (`POST /squall/faults`: the same loader, so an error names
///   its JSON path), and one that fires an action on a chosen connection (`POST /squall/connections/{id}/fire`);
/// - the transcript as it grows (`GET /squall/events`, server-sent events, read with `fetch` so that the token
///   goes in a header).
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
        <th>upload offset</th><th>up</th><th>rate</th><th>down</th><th>requests</th></tr></thead><tbody></tbody></table>
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
        <h2>Transcript <small>(live: <code>curl -N /squall/events</code>)</small></h2>
        <pre id="transcript"></pre>
        </section>
        </main>
        <script>\(script)</script>
        </body>
        </html>

        """
    }

    private static let style = """
        :root{--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--bad:#cf222e;--good:#1a7f37}
        @media (prefers-color-scheme: dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;\
        --bad:#f85149;--good:#3fb950}}
        body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1100px;\
        padding:0 16px 48px}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid var(--line)}
        textarea{width:100%;font:12px ui-monospace,monospace;color:var(--fg);background:var(--bg)}
        input{color:var(--fg);background:var(--bg)}
        #status.error,.result.error{color:var(--bad)}.result.ok{color:var(--good)}#status{color:var(--muted)}
        pre{max-height:360px;overflow:auto;font:12px ui-monospace,monospace;border:1px solid var(--line);padding:8px}
        """

    private static let script = """
        "use strict";
        const $ = (id) => document.getElementById(id);
        const uploads = {};   // connection id -> {offset, request}
        const previous = {};  // connection id -> [time, bytesUpstream]
        let next = 0;
        function auth() {
          const token = sessionStorage.getItem("squall-token");
          return token ? {"Authorization": "Bearer " + token} : {};
        }
        function status(text, bad) {
          $("status").textContent = text;
          $("status").className = bad ? "error" : "";
        }
        async function api(method, path, body) {
          const headers = Object.assign({}, auth(), body ? {"Content-Type": "application/json"} : {});
          const response = await fetch(path, {method, headers, body});
          const text = await response.text();
          let value = null;
          try { value = text ? JSON.parse(text) : null; } catch (e) { value = null; }
          if (response.status === 401) {
            $("token-form").hidden = false;
            throw new Error("this API needs its token: enter it above");
          }
          if (!response.ok) throw new Error((value && value.error) || (response.status + " " + text));
          return value;
        }
        function cell(row, text) {
          const td = document.createElement("td");
          td.textContent = text;
          row.appendChild(td);
          return td;
        }
        function size(bytes) {
          if (bytes >= 1048576) return (bytes / 1048576).toFixed(1) + " MiB";
          if (bytes >= 1024) return (bytes / 1024).toFixed(1) + " KiB";
          return bytes + " B";
        }
        function showConnections(list) {
          const body = $("connections").tBodies[0];
          body.replaceChildren();
          const now = performance.now();
          for (const c of list) {
            const row = body.insertRow();
            row.dataset.connection = c.id;
            const upload = uploads[c.id] || {};
            const before = previous[c.id];
            const rate = before && now > before[0] ? (c.bytesUpstream - before[1]) * 1000 / (now - before[0]) : 0;
            previous[c.id] = [now, c.bytesUpstream];
            cell(row, c.id); cell(row, c.proxy); cell(row, c.client); cell(row, c.age.toFixed(1) + " s");
            cell(row, upload.request || "");
            const offset = cell(row, upload.offset === undefined ? "" : String(upload.offset));
            offset.className = "offset";
            cell(row, size(c.bytesUpstream)); cell(row, size(Math.max(0, rate)) + "/s");
            cell(row, size(c.bytesDownstream)); cell(row, c.requests);
          }
        }
        function showFaults(list) {
          const body = $("faults").tBodies[0];
          body.replaceChildren();
          for (const f of list) {
            const row = body.insertRow();
            row.dataset.rule = f.name;
            cell(row, f.name); cell(row, f.action); cell(row, JSON.stringify(f.trigger || "on-match"));
            const fired = cell(row, f.fired); fired.className = "fired";
            cell(row, f.state + (f.reason ? ": " + f.reason : ""));
            const button = document.createElement("button");
            button.textContent = "Remove";
            button.className = "remove";
            button.dataset.rule = f.name;
            button.onclick = async () => {
              try { await api("DELETE", "/squall/faults/" + encodeURIComponent(f.name)); await refresh(); }
              catch (e) { status("removing " + f.name + ": " + e.message, true); }
            };
            row.insertCell().appendChild(button);
          }
        }
        async function refresh() {
          const [connections, faults] = await Promise.all([api("GET", "/squall/connections"),
                                                           api("GET", "/squall/faults")]);
          showConnections(connections);
          showFaults(faults);
          status(connections.length + " connections, " + faults.length + " rules, transcript " + next + " lines");
        }
        const shown = [];  // the transcript's last 300 lines, drawn once per chunk read
        function onEvent(text, id) {
          if (id !== null) next = id + 1;  // the server's index: no line missed or repeated on a reconnect
          shown.push(text);
          if (shown.length > 300) shown.splice(0, shown.length - 300);
          let event = null;
          try { event = JSON.parse(text); } catch (e) { return; }
          const upload = uploads[event.conn] || (uploads[event.conn] = {});
          if (event.event === "request") upload.request = event.method + " " + event.target;
          if (event.event === "request_body" && event.upload_offset !== null && event.upload_offset !== undefined) {
            upload.offset = event.upload_offset + event.length;
          }
        }
        function drawTranscript() {
          const pre = $("transcript");
          pre.textContent = shown.join("\\n");
          pre.scrollTop = pre.scrollHeight;
        }
        async function stream() {
          for (;;) {
            try {
              const response = await fetch("/squall/events?from=" + next, {headers: auth()});
              if (!response.ok) throw new Error(response.status === 401 ? "needs the token" : "HTTP " + response.status);
              const reader = response.body.getReader();
              const decoder = new TextDecoder();
              let buffer = "";
              for (;;) {
                const {value, done} = await reader.read();
                if (done) break;
                buffer += decoder.decode(value, {stream: true});
                let end;
                let any = false;
                while ((end = buffer.indexOf("\\n\\n")) >= 0) {
                  const chunk = buffer.slice(0, end);
                  buffer = buffer.slice(end + 2);
                  let id = null;
                  for (const line of chunk.split("\\n")) {
                    if (line.startsWith("id: ")) id = Number(line.slice(4));
                    if (line.startsWith("data: ")) { onEvent(line.slice(6), id); any = true; }
                  }
                }
                if (any) drawTranscript();
              }
            } catch (e) {
              status("transcript stream: " + e.message, true);
            }
            await new Promise((done) => setTimeout(done, 1000));
          }
        }
        let started = false;
        function start() {
          if (started) return;
          started = true;
          setInterval(() => refresh().catch((e) => status(e.message, true)), 1000);
          refresh().catch((e) => status(e.message, true));
          stream();
        }
        $("token-form").onsubmit = (event) => {
          event.preventDefault();
          sessionStorage.setItem("squall-token", $("token").value);
          if (started) refresh().catch((e) => status(e.message, true));
          start();
        };
        $("rule-form").onsubmit = async (event) => {
          event.preventDefault();
          const result = $("rule-result");
          try {
            const added = await api("POST", "/squall/faults", $("rule-json").value);
            result.textContent = "added " + (Array.isArray(added) ? added.map((r) => r.name).join(", ") : added.name);
            result.className = "result ok";
            await refresh();
          } catch (e) {
            result.textContent = e.message;
            result.className = "result error";
          }
        };
        $("fire-form").onsubmit = async (event) => {
          event.preventDefault();
          const result = $("fire-result");
          try {
            const action = $("fire-action").value;
            const fired = await api("POST", "/squall/connections/" + $("fire-connection").value + "/fire", action);
            result.textContent = "fired " + JSON.parse(action).action + " (rule " + fired.fired + ") on connection " +
              fired.connection;
            result.className = "result ok";
          } catch (e) {
            result.textContent = e.message;
            result.className = "result error";
          }
        };
        // With a token required and none given yet, nothing is fetched (every request would be a 401) until the form
        // is sent.
        if (document.body.dataset.tokenRequired === "true" && !sessionStorage.getItem("squall-token")) {
          status("this API needs its token: enter it above");
        } else {
          start();
        }
        """
}
