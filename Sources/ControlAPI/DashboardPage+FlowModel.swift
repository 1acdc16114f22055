extension DashboardPage {
    /// The dashboard's model of the transcript stream: a flow per request (connection + exchange) with its status,
    /// interims, interop version, body bytes, time and raw lines, and an upload per resource (the creation's Location,
    /// then the HEADs and PATCHes to that path) with its forwarded offsets, the server's Upload-Offset answers and the
    /// faults on its connections. Forwarded offsets come from `request_written` (`upload_through`, else the request's
    /// `Upload-Offset` plus `through`) when the proxy writes it, else from `request_body` (`upload_offset` + `length`).
    /// Unknown events are kept as raw lines of their exchange; everything is bounded (500 flows, 12 uploads).
    static let flowModelScript = #"""
        // The transcript read as flows: one per request (connection + exchange), and the uploads they belong to
        // (grouped by the resource's path, from the creation's Location on). Events only change this model and mark
        // what changed; the page draws at most every 250 ms (`schedule`).
        const FLOW_ROWS = 500, FLOW_LINES = 400, UPLOADS_KEPT = 12, SEGMENT_POINTS = 600, MARKS_KEPT = 200;
        const flows = new Map();          // "conn/exchange" -> flow, oldest first
        const running = {};               // conn -> the keys of its flows without a final response yet
        const latest = {};                // conn -> the key of its newest flow
        const uploads = new Map();        // upload key -> upload, oldest first
        const uploadsByPath = new Map();  // the resource's path -> upload
        const dirty = {flows: new Set(), gone: new Set(), uploads: new Set(), detail: false};
        let lastT = 0;                    // the newest t_us read (the proxy's clock)
        let lastSeen = 0;                 // performance.now() when it was read
        let selected = null;              // the key of the flow whose lines the detail panel shows
        function field(fields, name) {
          const lower = name.toLowerCase();
          const pair = (fields || []).find((f) => String(f[0]).toLowerCase() === lower);
          return pair ? pair[1] : null;
        }
        function numberField(fields, name) {
          const value = field(fields, name);
          return value !== null && /^[0-9]+$/.test(value.trim()) ? Number(value) : null;
        }
        function pathOf(target) {
          try { return new URL(target, "http://squall.invalid/").pathname; } catch (e) { return target; }
        }
        function newUpload(key, label, t) {
          const upload = {key, label, length: null, segments: [], acks: [], faults: [], first: t, last: t};
          uploads.set(key, upload);
          for (const [old, gone] of uploads) {
            if (uploads.size <= UPLOADS_KEPT) break;
            uploads.delete(old);
            for (const [path, held] of uploadsByPath) if (held === gone) uploadsByPath.delete(path);
          }
          return upload;
        }
        // The upload a request belongs to: the one at its path, else a new one for a creation (POST or PUT with an
        // upload field) or for a HEAD or PATCH to a path not seen yet (a page opened mid-upload); null for any other
        // request.
        function uploadFor(flow, fields) {
          const path = pathOf(flow.target);
          const known = uploadsByPath.get(path);
          if (known && uploads.has(known.key)) return known;
          const resumable = ["Upload-Draft-Interop-Version", "Upload-Complete", "Upload-Incomplete", "Upload-Offset"]
            .some((name) => field(fields, name) !== null);
          if (!resumable) return null;
          if (flow.method === "POST" || flow.method === "PUT") {
            return newUpload(flow.key, flow.method + " " + path + " (connection " + flow.conn + ")", flow.start);
          }
          if (flow.method !== "HEAD" && flow.method !== "PATCH") return null;
          const upload = newUpload("path " + path, path, flow.start);
          uploadsByPath.set(path, upload);
          return upload;
        }
        function touch(flow) {
          dirty.flows.add(flow.key);
          if (flow.key === selected) dirty.detail = true;
          if (flow.upload) {
            if (flow.upload.last < lastT) flow.upload.last = lastT;
            dirty.uploads.add(flow.upload.key);
          }
        }
        // Keeps a raw line for the detail panel: every line but body ranges past the first FLOW_LINES (those are
        // counted).
        function keep(flow, text, always) {
          if (always || flow.lines.length < FLOW_LINES) flow.lines.push(text); else flow.omitted += 1;
        }
        function thin(points) {
          if (points.length <= SEGMENT_POINTS) return;
          const last = points[points.length - 1];
          const kept = points.filter((point, index) => index % 2 === 0);
          if (kept[kept.length - 1] !== last) kept.push(last);
          points.splice(0, points.length, ...kept);
        }
        function bound(list) {
          if (list.length > MARKS_KEPT) list.splice(0, list.length - MARKS_KEPT);
        }
        // The server's word on an upload in a response's fields: its length, an acknowledged offset, its Location.
        function answered(flow, fields, what) {
          const upload = flow.upload;
          if (!upload) return;
          const length = numberField(fields, "Upload-Length");
          if (length !== null) upload.length = length;
          const offset = numberField(fields, "Upload-Offset");
          if (offset !== null) {
            upload.acks.push({t: lastT, offset, what: flow.method + " " + what});
            bound(upload.acks);
          }
          const location = field(fields, "Location");
          if (location) {
            const path = pathOf(location);
            uploadsByPath.set(path, upload);
            upload.label = path;
          }
        }
        // Where a body range took the upload: its own upload offset, else the request's Upload-Offset plus the range.
        function reached(flow, uploadOffset, through) {
          if (uploadOffset !== null && uploadOffset !== undefined) return uploadOffset;
          return flow.base === null ? null : flow.base + through;
        }
        function progressed(flow, points, offset) {
          if (offset === null) return;
          flow.reached = offset;
          if (flow.segment) {
            points.push([lastT, offset]);
            thin(points);
          }
        }
        // The flows a line without an exchange (a fault, a close) belongs to: those running on its connection, else the
        // connection's newest.
        function flowsOn(conn) {
          const keys = running[conn] && running[conn].length ? running[conn] : (latest[conn] ? [latest[conn]] : []);
          return keys.map((key) => flows.get(key)).filter((flow) => flow);
        }
        const handlers = {
          request(e, text) {
            const key = e.conn + "/" + e.exchange;
            const flow = {key, conn: e.conn, exchange: e.exchange, method: e.method, target: e.target,
              interop: field(e.fields, "Upload-Draft-Interop-Version") || "", status: null, interims: {}, cut: false,
              sent: 0, received: 0, start: e.t_us, end: null, lines: [], omitted: 0, written: false, reached: null,
              base: null, upload: null, segment: null};
            const offset = numberField(e.fields, "Upload-Offset");
            flow.base = offset !== null ? offset : (e.method === "POST" || e.method === "PUT" ? 0 : null);
            flows.set(key, flow);
            (running[e.conn] || (running[e.conn] = [])).push(key);
            latest[e.conn] = key;
            keep(flow, text, true);
            flow.upload = uploadFor(flow, e.fields);
            if (flow.upload) {
              const length = numberField(e.fields, "Upload-Length");
              if (length !== null) flow.upload.length = length;
              if (e.method !== "HEAD" && flow.base !== null) {
                flow.segment = {start: [e.t_us, flow.base], body: [], written: [], exchange: key};
                flow.upload.segments.push(flow.segment);
              }
            }
            for (const [old, gone] of flows) {
              if (flows.size <= FLOW_ROWS) break;
              flows.delete(old);
              dirty.gone.add(old);
              if (running[gone.conn]) running[gone.conn] = running[gone.conn].filter((k) => k !== old);
            }
            touch(flow);
          },
          request_body(e, text, flow) {
            keep(flow, text, false);
            if (flow.written) return;
            flow.sent = Math.max(flow.sent, e.offset + e.length);
            const known = e.upload_offset === null || e.upload_offset === undefined ? null : e.upload_offset + e.length;
            progressed(flow, flow.segment && flow.segment.body, reached(flow, known, e.offset + e.length));
            touch(flow);
          },
          request_written(e, text, flow) {
            keep(flow, text, false);
            flow.written = true;
            flow.sent = e.through;
            progressed(flow, flow.segment && flow.segment.written, reached(flow, e.upload_through, e.through));
            touch(flow);
          },
          interim(e, text, flow) {
            keep(flow, text, true);
            flow.interims[e.status] = (flow.interims[e.status] || 0) + 1;
            answered(flow, e.fields, String(e.status));
            touch(flow);
          },
          response(e, text, flow) {
            keep(flow, text, true);
            flow.status = e.status;
            flow.end = e.t_us;
            if (running[e.conn]) running[e.conn] = running[e.conn].filter((key) => key !== flow.key);
            answered(flow, e.fields, String(e.status));
            touch(flow);
          },
          response_body(e, text, flow) {
            keep(flow, text, false);
            flow.received = Math.max(flow.received, e.offset + e.length);
            touch(flow);
          },
          fault(e, text) {
            for (const flow of flowsOn(e.conn)) {
              keep(flow, text, true);
              if (flow.upload && !flow.upload.faults.some((mark) => mark.text === text)) {
                flow.upload.faults.push({t: e.t_us, rule: e.rule, action: e.action, text});
                bound(flow.upload.faults);
              }
              touch(flow);
            }
          },
          close(e, text) {
            for (const flow of flowsOn(e.conn)) {
              keep(flow, text, true);
              if (flow.status === null && !flow.cut) {
                flow.cut = true;
                flow.end = e.t_us;
              }
              touch(flow);
            }
            running[e.conn] = [];
          },
        };
        // One transcript line from the event stream. Lines of kinds the page does not know (and the file-only `start`)
        // are kept with their exchange's lines when they name one, and otherwise only in the raw events.
        function onTranscriptLine(text) {
          let e = null;
          try { e = JSON.parse(text); } catch (error) { return; }
          if (!e || typeof e.t_us !== "number") return;
          if (e.t_us >= lastT) { lastT = e.t_us; lastSeen = performance.now(); }
          const flow = e.exchange === undefined ? null : flows.get(e.conn + "/" + e.exchange);
          const handler = handlers[e.event];
          if (handler && (flow || e.event === "request" || e.exchange === undefined)) {
            handler(e, text, flow);
          } else if (flow) {
            keep(flow, text, !e.event.startsWith("request_body"));
            touch(flow);
          }
        }
        // The proxy's clock now, as far as the page can tell: the newest event's time and the time since it was read.
        function proxyNow() {
          return lastT + (performance.now() - lastSeen) * 1000;
        }
        """#
}
