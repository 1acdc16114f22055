extension DashboardPage {
    /// The dashboard's views of `flowModelScript`: the flow list (newest first, rows updated in place), the selected
    /// flow's raw lines, the upload charts (inline SVG, the six newest uploads) and the raw events; drawn at most every
    /// 250 ms through requestAnimationFrame, so a busy transcript costs the browser a redraw a frame at most.
    static let flowViewScript = #"""
        // Drawing the flows, the selected flow's lines and the upload charts from the model, at most every 250 ms and
        // only while the tab is shown (requestAnimationFrame waits for it).
        const CHARTS = 6, WIDTH = 640, HEIGHT = 170, LEFT = 70, RIGHT = 12, TOP = 10, BOTTOM = 24;
        const SVG = "http://www.w3.org/2000/svg";
        const rows = new Map();  // flow key -> its row in #flows
        const raw = [];          // the transcript's last 300 lines, for the raw events view
        let drawPending = false;
        let lastDraw = 0;
        function schedule() {
          if (drawPending) return;
          drawPending = true;
          setTimeout(() => requestAnimationFrame(() => {
            drawPending = false;
            lastDraw = performance.now();
            draw();
          }), Math.max(0, lastDraw + 250 - performance.now()));
        }
        function seconds(us) {
          return (us / 1e6).toFixed(us < 1e7 ? 2 : 1) + " s";
        }
        function statusText(flow) {
          const interims = Object.keys(flow.interims).map((s) => s + "×" + flow.interims[s]).join(", ");
          const status = flow.status !== null ? String(flow.status) : (flow.cut ? "cut" : "—");
          return interims ? status + " (" + interims + ")" : status;
        }
        function flowRow(flow) {
          let row = rows.get(flow.key);
          if (!row) {
            row = document.createElement("tr");
            row.dataset.flow = flow.key;
            row.dataset.connection = flow.conn;
            row.dataset.exchange = flow.exchange;
            for (const name of ["flow", "method", "path", "status", "interop", "sent", "received", "time"]) {
              row.insertCell().className = name;
            }
            row.onclick = () => select(flow.key);
            rows.set(flow.key, row);
            $("flows").tBodies[0].prepend(row);
          }
          return row;
        }
        function drawFlow(flow) {
          const row = flowRow(flow);
          const text = [flow.conn + "·" + flow.exchange, flow.method, flow.target, statusText(flow), flow.interop,
            size(flow.sent), size(flow.received),
            flow.end !== null ? seconds(flow.end - flow.start)
              : "running " + seconds(Math.max(0, proxyNow() - flow.start))];
          text.forEach((value, index) => {
            if (row.cells[index].textContent !== value) row.cells[index].textContent = value;
          });
          row.classList.toggle("cut", flow.cut);
          row.classList.toggle("selected", flow.key === selected);
        }
        function select(key) {
          const before = rows.get(selected);
          if (before) before.classList.remove("selected");
          selected = key;
          dirty.detail = true;
          schedule();
        }
        function drawDetail() {
          const flow = flows.get(selected);
          $("flow-title").textContent = flow ? "connection " + flow.conn + ", exchange " + flow.exchange + ": " +
            flow.method + " " + flow.target : "(click a flow)";
          const more = flow && flow.omitted ? "\n(" + flow.omitted + " more body lines, not kept)" : "";
          $("flow-lines").textContent = flow ? flow.lines.join("\n") + more : "";
          const row = rows.get(selected);
          if (row) row.classList.add("selected");
        }
        function element(tag, attributes, parent) {
          const node = document.createElementNS(SVG, tag);
          for (const name in attributes) node.setAttribute(name, attributes[name]);
          if (parent) parent.appendChild(node);
          return node;
        }
        function label(text, attributes, parent) {
          element("text", attributes, parent).textContent = text;
        }
        // One upload's chart: x the proxy's time, y the upload offset; a line per request body (request_written's
        // upload_through when the proxy writes it, else request_body's), the server's Upload-Offset answers as dots,
        // the faults fired on its connections as vertical marks (the rule in a <title>).
        function drawChart(upload, figure) {
          const segments = upload.segments.map((segment) =>
            [segment.start].concat(segment.written.length ? segment.written : segment.body));
          const offsets = segments.flat().map((point) => point[1]).concat(upload.acks.map((ack) => ack.offset));
          const yMax = Math.max(upload.length || 0, ...offsets, 1);
          const t1 = Math.max(upload.last, upload.first + 1);
          const x = (t) => (LEFT + (t - upload.first) / (t1 - upload.first) * (WIDTH - LEFT - RIGHT)).toFixed(1);
          const y = (offset) => (HEIGHT - BOTTOM - offset / yMax * (HEIGHT - TOP - BOTTOM)).toFixed(1);
          const svg = element("svg", {viewBox: "0 0 " + WIDTH + " " + HEIGHT, role: "img", "data-y-max": yMax,
            "data-plot": [LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM].join(" ")});
          element("rect", {class: "frame", x: LEFT, y: TOP, width: WIDTH - LEFT - RIGHT, height: HEIGHT - TOP - BOTTOM},
            svg);
          label(size(yMax), {x: LEFT - 6, y: TOP + 10, "text-anchor": "end"}, svg);
          label("0", {x: LEFT - 6, y: HEIGHT - BOTTOM, "text-anchor": "end"}, svg);
          label("0 s", {x: LEFT, y: HEIGHT - 6}, svg);
          label(seconds(t1 - upload.first), {x: WIDTH - RIGHT, y: HEIGHT - 6, "text-anchor": "end"}, svg);
          for (const mark of upload.faults) {
            const g = element("g", {class: "fault"}, svg);
            element("title", {}, g).textContent = mark.rule + " (" + mark.action + ") at " + seconds(mark.t);
            element("line", {x1: x(mark.t), x2: x(mark.t), y1: TOP, y2: HEIGHT - BOTTOM}, g);
            label(mark.rule, {x: Number(x(mark.t)) + 3, y: TOP + 10, class: "fault-label"}, g);
          }
          const d = segments.filter((points) => points.length > 0)
            .map((points) => "M" + points.map((p) => x(p[0]) + " " + y(p[1])).join(" L")).join(" ");
          if (d) element("path", {class: "sent", d}, svg);
          for (const ack of upload.acks) {
            const dot = element("circle", {class: "ack", cx: x(ack.t), cy: y(ack.offset), r: 3}, svg);
            element("title", {}, dot).textContent = "Upload-Offset " + ack.offset + " (" + ack.what + ")";
          }
          const last = segments.length ? segments[segments.length - 1] : [];
          const reached = last.length ? last[last.length - 1][1] : 0;
          figure.querySelector("figcaption").textContent = upload.label + ": " + size(reached) + " of " +
            (upload.length === null ? "an unknown length" : size(upload.length)) + ", " + upload.segments.length +
            " request bodies, " + upload.faults.length + " faults";
          figure.replaceChild(svg, figure.querySelector("svg"));
        }
        function drawCharts() {
          const shown = Array.from(uploads.values()).slice(-CHARTS).reverse();
          const container = $("charts");
          const figures = new Map(Array.from(container.children, (figure) => [figure.dataset.upload, figure]));
          shown.forEach((upload, index) => {
            let figure = figures.get(upload.key);
            if (!figure) {
              figure = document.createElement("figure");
              figure.className = "chart";
              figure.dataset.upload = upload.key;
              figure.append(document.createElement("figcaption"), element("svg", {}));
              dirty.uploads.add(upload.key);
            }
            if (container.children[index] !== figure) container.insertBefore(figure, container.children[index] || null);
            if (dirty.uploads.has(upload.key)) drawChart(upload, figure);
          });
          while (container.children.length > shown.length) container.lastElementChild.remove();
          dirty.uploads.clear();
        }
        function draw() {
          for (const key of dirty.gone) {
            const row = rows.get(key);
            if (row) row.remove();
            rows.delete(key);
          }
          dirty.gone.clear();
          for (const keys of Object.values(running)) keys.forEach((key) => dirty.flows.add(key));
          for (const key of dirty.flows) {
            const flow = flows.get(key);
            if (flow) drawFlow(flow);
          }
          dirty.flows.clear();
          if (dirty.detail) drawDetail();
          dirty.detail = false;
          drawCharts();
          if ($("raw-events").open) {
            const pre = $("transcript");
            pre.textContent = raw.join("\n");
            pre.scrollTop = pre.scrollHeight;
          }
        }
        function onEvent(text, id) {
          if (id !== null) next = id + 1;  // the server's index: no line missed or repeated on a reconnect
          raw.push(text);
          if (raw.length > 300) raw.splice(0, raw.length - 300);
          onTranscriptLine(text);
        }
        """#
}
