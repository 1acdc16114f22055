extension DashboardPage {
    /// The dashboard's calls to the control API: the token, the polls of connections and rules (each connection row
    /// computed from one sample), the rule and fire forms, and the event stream's reader (`fetch`, so that the token
    /// goes in a header; on a reconnect it asks from the last id + 1).
    static let controlScript = #"""
        "use strict";
        const $ = (id) => document.getElementById(id);
        const samples = {};  // connection id -> its previous sample (see `sample`)
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
        // A connection's figures at one poll of /squall/connections: the poll's age and bytes, and the offset its
        // newest request body had reached (from the transcript) when that answer arrived. Rates are the change since
        // the connection's previous sample over the change in age (the proxy's clock), so every figure in a row comes
        // from the same two samples.
        function sample(c) {
          const flow = flows.get(latest[c.id]);
          const now = {age: c.age, up: c.bytesUpstream, down: c.bytesDownstream, flow: flow ? flow.key : null,
            offset: flow ? flow.reached : null};
          const before = samples[c.id];
          samples[c.id] = now;
          const span = before ? now.age - before.age : 0;
          const rate = (from, to) => span > 0 && from !== null && to !== null ? Math.max(0, (to - from) / span) : null;
          return Object.assign({}, now, {request: flow ? flow.method + " " + flow.target : "",
            upRate: before ? rate(before.up, now.up) : null,
            offsetRate: before && before.flow === now.flow ? rate(before.offset, now.offset) : null});
        }
        function showConnections(list) {
          const body = $("connections").tBodies[0];
          body.replaceChildren();
          for (const c of list) {
            const row = body.insertRow();
            row.dataset.connection = c.id;
            const s = sample(c);
            const perSecond = (rate) => rate === null ? "" : size(rate) + "/s";
            cell(row, c.id); cell(row, c.proxy); cell(row, c.client); cell(row, c.age.toFixed(1) + " s");
            cell(row, s.request).className = "request";
            cell(row, s.offset === null ? "" : String(s.offset)).className = "offset";
            cell(row, perSecond(s.offsetRate)).className = "offset-rate";
            cell(row, size(s.up)); cell(row, perSecond(s.upRate)).className = "rate";
            cell(row, size(s.down)); cell(row, c.requests);
          }
          for (const id in samples) if (!list.some((c) => String(c.id) === id)) delete samples[id];
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
          schedule();  // the running flows' times go on between events
          status(connections.length + " connections, " + faults.length + " rules, " + flows.size +
            " flows, transcript " + next + " lines");
        }
        async function stream() {
          for (;;) {
            try {
              const response = await fetch("/squall/events?from=" + next, {headers: auth()});
              if (!response.ok) {
                throw new Error(response.status === 401 ? "needs the token" : "HTTP " + response.status);
              }
              const reader = response.body.getReader();
              const decoder = new TextDecoder();
              let buffer = "";
              for (;;) {
                const {value, done} = await reader.read();
                if (done) break;
                buffer += decoder.decode(value, {stream: true});
                let end;
                let any = false;
                while ((end = buffer.indexOf("\n\n")) >= 0) {
                  const chunk = buffer.slice(0, end);
                  buffer = buffer.slice(end + 2);
                  let id = null;
                  for (const line of chunk.split("\n")) {
                    if (line.startsWith("id: ")) id = Number(line.slice(4));
                    if (line.startsWith("data: ")) { onEvent(line.slice(6), id); any = true; }
                  }
                }
                if (any) schedule();
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
        $("raw-events").ontoggle = () => schedule();
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
        // With a token required and none given yet, nothing is fetched (every request would be a 401) until the form is
        // sent.
        if (document.body.dataset.tokenRequired === "true" && !sessionStorage.getItem("squall-token")) {
          status("this API needs its token: enter it above");
        } else {
          start();
        }
        """#
}
