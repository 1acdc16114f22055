import FaultEngine
import HTTPWire
import ProxyTranscript
import ResumableUpload

extension ConnectionFlow {
    mutating func receivedRequestBytes(_ bytes: ArraySlice<UInt8>, at now: Duration, oracle: FaultOracle) {
        guard !toUpstream.isCut else {
            dropAfterCut(bytes, at: now, oracle: oracle)
            return
        }
        let events: [HTTP1Event]
        do {
            events = try requestParser.feed(bytes)
        } catch {
            answer(Self.proxyError(400, "squall proxy: malformed request: \(error)"), at: now, close: true)
            return
        }
        for event in events {
            switch event {
            case .requestHead(let head):
                requestHead(head, at: now, oracle: oracle)
            case .body(let slice):
                requestBody(slice, at: now, oracle: oracle)
            case .end(let trailers):
                if let request, request.chunked, !request.answeredLocally,
                    let last = try? HTTP1Serializer.lastChunk(
                        trailers: trailers)
                {
                    toUpstream.push(last[...], at: now)
                }
                request = nil
            case .upgrade:
                opaque = true
            case .opaque(let slice):
                toUpstream.push(slice, at: now)
            case .responseHead:
                break
            }
        }
    }

    /// Bytes read after the request lane was cut: the rest of a body in progress is recorded as dropped; anything
    /// after it (or unparsable) is dropped unrecorded.
    private mutating func dropAfterCut(_ bytes: ArraySlice<UInt8>, at now: Duration, oracle: FaultOracle) {
        guard request != nil, let events = try? requestParser.feed(bytes) else { return }
        for event in events {
            guard request != nil else { return }
            switch event {
            case .body(let slice): requestBody(slice, at: now, oracle: oracle)
            case .end: request = nil
            default: continue
            }
        }
    }

    private mutating func requestHead(_ head: RequestHead, at now: Duration, oracle: FaultOracle) {
        requests += 1
        let exchange = requests
        emit(.requestHead(exchange: exchange, head), at: now)
        var forwarded = head
        if let proto = forwardedProto, !head.fields.contains("Forwarded") {
            let host = head.fields["Host"].map { ";host=\"\($0)\"" } ?? ""
            forwarded.fields.append(name: "Forwarded", value: "proto=\(proto)\(host)")
        }
        var local: (response: FaultResponse, decision: FaultDecision)?
        var rewrites: [FaultDecision] = []
        for decision in oracle(.requestHead(connection: id, head: head, time: now)).decisions {
            switch decision.action {
            case .respond(let response):
                local = (response, decision)
            case .expireAuth(let challenge):
                local = (
                    FaultResponse(status: 401, fields: [FaultHeader(name: "WWW-Authenticate", value: challenge)]),
                    decision
                )
            case .rewriteHeader(let name, let value):
                rewrites.append(decision)
                Self.rewrite(&forwarded.fields, name: name, value: value)
            default:
                applyInStream(decision, toClientLane: false, at: now)
            }
        }
        let chunked = (try? BodyFraming(request: head)) == .chunked
        request = RequestProgress(
            exchange: exchange, upload: UploadRequestFacts(head), method: head.method, chunked: chunked,
            answeredLocally: local != nil)
        if let local {
            let through = answer(local.response, at: now, close: false)
            record(local.decision, at: now, wire: .after(.client, through: through))
            return
        }
        let bytes = (try? HTTP1Serializer.serialize(forwarded)) ?? (try? HTTP1Serializer.serialize(head)) ?? []
        toUpstream.push(bytes[...], at: now)
        for decision in rewrites { record(decision, at: now, wire: afterQueued(toClientLane: false)) }
        responseParser.expectResponse(to: head.method)
        unanswered.append((exchange, head.method))
    }

    /// Body bytes of the current request: asks the engine, forwards them up to the first cut or answer and
    /// records what was forwarded and what was dropped apart (`requestBody`, `requestBodyDropped`).
    private mutating func requestBody(_ slice: ArraySlice<UInt8>, at now: Duration, oracle: FaultOracle) {
        guard var progress = request, !slice.isEmpty else { return }
        let count = slice.count
        let uploadOffset = progress.upload.start.map { $0 + progress.bodyBytes }
        let bodyStart = progress.bodyBytes
        progress.bodyBytes += Int64(count)
        request = progress
        /// Records the chunk's bytes `from..<to` as forwarded or dropped.
        func recordBody(_ from: Int, _ to: Int, dropped: Bool) {
            guard to > from else { return }
            let offset = bodyStart + Int64(from)
            let upload = uploadOffset.map { $0 + Int64(from) }
            let length = Int64(to - from)
            emitBody(
                dropped
                    ? .requestBodyDropped(
                        exchange: progress.exchange, offset: offset, length: length, uploadOffset: upload)
                    : .requestBody(exchange: progress.exchange, offset: offset, length: length, uploadOffset: upload),
                at: now)
        }
        guard !progress.answeredLocally, !toUpstream.isCut else {
            recordBody(0, count, dropped: true)
            return
        }
        let event = FaultEvent.requestBody(
            connection: id, count: count, uploadOffset: uploadOffset, uploadLength: progress.upload.length, time: now)
        let outcome = oracle(event)
        for notice in outcome.unresolved {
            emit(.faultUnresolved(rule: notice.rule, exchange: progress.exchange, reason: notice.reason), at: now)
        }
        var position = 0
        for decision in outcome.decisions.sorted(by: { ($0.afterBytes ?? 0) < ($1.afterBytes ?? 0) }) {
            let cut = min(count, max(position, decision.afterBytes ?? 0))
            forwardRequestContent(slice.dropFirst(position).prefix(cut - position), chunked: progress.chunked, at: now)
            recordBody(position, cut, dropped: false)
            position = cut
            if case .respond(let response) = decision.action {
                request?.answeredLocally = true
                let through = answer(response, at: now, close: true)
                record(decision, at: now, wire: .after(.client, through: through))
                recordBody(position, count, dropped: true)
                return
            }
            applyInStream(decision, toClientLane: false, at: now)
            if toUpstream.isCut {
                recordBody(position, count, dropped: true)
                return
            }
        }
        forwardRequestContent(slice.dropFirst(position), chunked: progress.chunked, at: now)
        recordBody(position, count, dropped: false)
    }

    private mutating func forwardRequestContent(_ bytes: ArraySlice<UInt8>, chunked: Bool, at now: Duration) {
        guard !bytes.isEmpty else { return }
        toUpstream.push(chunked ? HTTP1Serializer.chunk(bytes)[...] : bytes, at: now)
    }

    mutating func receivedResponseBytes(_ bytes: ArraySlice<UInt8>, at now: Duration, oracle: FaultOracle) {
        guard !toClient.isCut else { return }
        do {
            handleResponseEvents(try responseParser.feed(bytes), at: now, oracle: oracle)
        } catch {
            answer(
                Self.proxyError(502, "squall proxy: malformed response from upstream: \(error)"), at: now, close: true)
        }
    }

    mutating func handleResponseEvents(_ events: [HTTP1Event], at now: Duration, oracle: FaultOracle) {
        for event in events where !toClient.isCut {
            switch event {
            case .responseHead(let head):
                responseHead(head, at: now, oracle: oracle)
            case .body(let slice):
                responseBody(slice, at: now, oracle: oracle)
            case .end(let trailers):
                if let response, response.chunked, let last = try? HTTP1Serializer.lastChunk(trailers: trailers) {
                    toClient.push(last[...], at: now)
                }
                response = nil
            case .upgrade:
                opaque = true
            case .opaque(let slice):
                toClient.push(slice, at: now)
            case .requestHead:
                break
            }
        }
    }

    private mutating func responseHead(_ head: ResponseHead, at now: Duration, oracle: FaultOracle) {
        let pending = unanswered.first ?? (exchange: requests, method: .get)
        let kind: TranscriptEvent.Kind =
            head.isInformational
            ? .interimResponse(exchange: pending.exchange, head) : .finalResponse(exchange: pending.exchange, head)
        emit(kind, at: now)
        if !head.isInformational, !unanswered.isEmpty { unanswered.removeFirst() }
        var forwarded = head
        var strip = false
        var rewrites: [FaultDecision] = []
        for decision in oracle(.responseHead(connection: id, head: head, time: now)).decisions {
            switch decision.action {
            case .stripInterim:
                record(decision, at: now, wire: .now)
                strip = true
            case .dropResponse:
                toClient.pushMarker(.close, at: now)
                record(decision, at: now, wire: .atEnd)
                return
            case .rewriteHeader(let name, let value):
                rewrites.append(decision)
                Self.rewrite(&forwarded.fields, name: name, value: value)
            default:
                applyInStream(decision, toClientLane: true, at: now)
            }
        }
        if !head.isInformational {
            let framing = try? BodyFraming(response: head, requestMethod: pending.method)
            response = ResponseProgress(exchange: pending.exchange, chunked: framing == .chunked)
        }
        guard !strip else { return }
        let bytes = (try? HTTP1Serializer.serialize(forwarded)) ?? (try? HTTP1Serializer.serialize(head)) ?? []
        toClient.push(bytes[...], at: now)
        for decision in rewrites { record(decision, at: now, wire: afterQueued(toClientLane: true)) }
    }

    private mutating func responseBody(_ slice: ArraySlice<UInt8>, at now: Duration, oracle: FaultOracle) {
        guard var progress = response, !slice.isEmpty else { return }
        let count = slice.count
        let kind = TranscriptEvent.Kind.responseBody(
            exchange: progress.exchange, offset: progress.bodyBytes, length: Int64(count))
        emitBody(kind, at: now)
        progress.bodyBytes += Int64(count)
        response = progress
        var position = 0
        let decisions = oracle(.responseBody(connection: id, count: count, time: now)).decisions
        for decision in decisions.sorted(by: { ($0.afterBytes ?? 0) < ($1.afterBytes ?? 0) }) {
            let cut = min(count, max(position, decision.afterBytes ?? 0))
            forwardResponseContent(slice.dropFirst(position).prefix(cut - position), chunked: progress.chunked, at: now)
            position = cut
            applyInStream(decision, toClientLane: true, at: now)
        }
        forwardResponseContent(slice.dropFirst(position), chunked: progress.chunked, at: now)
    }

    private mutating func forwardResponseContent(_ bytes: ArraySlice<UInt8>, chunked: Bool, at now: Duration) {
        guard !bytes.isEmpty else { return }
        toClient.push(chunked ? HTTP1Serializer.chunk(bytes)[...] : bytes, at: now)
    }

    /// Answers the current request from the proxy (a `respond`, `expire-auth`, or a proxy error): the response
    /// goes to the client after what is queued for it; with `close`, the connection closes after it. Returns the
    /// client lane's position after the answer's bytes (they reached the wire once it is carried out).
    @discardableResult
    mutating func answer(
        _ response: FaultResponse, at now: Duration, close: Bool, exchange: Int? = nil, method: HTTPMethod? = nil
    ) -> Int {
        var fields = HTTPFields()
        for field in response.fields { fields.append(name: field.name, value: field.value) }
        fields.set(String(response.body.utf8.count), for: "Content-Length")
        if close { fields.set("close", for: "Connection") }
        let head = ResponseHead(status: response.status, reason: Self.reason(response.status), fields: fields)
        emit(.finalResponse(exchange: exchange ?? request?.exchange ?? requests, head), at: now)
        var bytes = (try? HTTP1Serializer.serialize(head)) ?? []
        // The answer to a HEAD has no body (RFC 9110 §9.3.2).
        if (method ?? request?.method) != .head { bytes.append(contentsOf: response.body.utf8) }
        toClient.push(bytes[...], at: now)
        let through = toClient.appended
        if close {
            toClient.pushMarker(.close, at: now)
            toUpstream.stopInput()
        }
        return through
    }

    static func proxyError(_ status: Int, _ message: String) -> FaultResponse {
        FaultResponse(
            status: status, fields: [FaultHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: message + "\n")
    }

    static func rewrite(_ fields: inout HTTPFields, name: String, value: String?) {
        if let value { fields.set(value, for: name) } else { fields.remove(name) }
    }

    /// The RFC 9110 reason phrase for the statuses faults use; others get an empty phrase (allowed by RFC 9112).
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
