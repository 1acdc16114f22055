import FaultEngine
import HTTP2Wire
import HTTPWire

extension TranscriptEvent {
    /// Reads one line written by `jsonLine()`: all of the kind's keys must be present and no others; errors name
    /// the key (`TranscriptParseError`). `t_us` becomes the event's time in whole microseconds.
    public init(jsonLine line: String) throws(TranscriptParseError) {
        let reader = try JSONObjectReader(line: line)
        let event = try reader.string("event")
        guard let keys = Self.keys[event] else {
            throw TranscriptParseError(.invalidValue, key: "event", "'\(event)' is not an event kind")
        }
        try reader.requireOnly(["t_us", "conn", "event"] + keys)
        self.init(
            time: .microseconds(try reader.integer("t_us")), connection: try reader.int("conn"),
            kind: try Kind(event: event, reader: reader))
    }

    /// Each kind's keys after `t_us`, `conn` and `event`, in line order.
    static let keys: [String: [String]] = [
        "start": ["unix_us"],
        "open": ["client", "listener"],
        "tls": ["leg", "sni", "alpn", "version", "cipher"],
        "tls_failed": ["leg", "reason"],
        "request": ["exchange", "method", "target", "version", "fields"],
        "request_body": ["exchange", "offset", "length", "upload_offset"],
        "request_body_dropped": ["exchange", "offset", "length", "upload_offset"],
        "request_written": ["exchange", "through", "upload_through"],
        "request_forwarded": ["exchange", "method", "target", "version", "fields"],
        "interim": ["exchange", "version", "status", "reason", "fields"],
        "proxy_answer": ["exchange"],
        "location_rewritten": ["exchange", "from", "to"],
        "response": ["exchange", "version", "status", "reason", "fields"],
        "response_body": ["exchange", "offset", "length"],
        "close": ["side", "kind"],
        "fault": ["rule", "action", "direction", "offset", "decided_us"],
        "fault_unresolved": ["rule", "exchange", "reason"],
        "announcement_wait": ["exchange", "rule", "upload_offset"],
        "announcement_wait_end": ["exchange", "outcome"],
        "announcement_withheld": ["exchange", "rule"],
        "client_announcement": ["exchange", "location", "outcome", "rule"],
        "stream_reset": ["side", "code"],
        "goaway": ["last_stream", "code"],
        "h2_stream": ["parent", "stream"],
    ]
}

extension TranscriptEvent.Kind {
    fileprivate init(event: String, reader: JSONObjectReader) throws(TranscriptParseError) {
        switch event {
        case "start":
            self = .started(unixMicroseconds: try reader.integer("unix_us"))
        case "open":
            self = .opened(client: try reader.string("client"), listener: try reader.string("listener"))
        case "tls":
            let session = TLSSession(
                serverName: try reader.optionalString("sni"), alpn: try reader.optionalString("alpn"),
                version: try reader.string("version"), cipher: try reader.string("cipher"))
            self = .tlsEstablished(leg: try reader.name("leg", as: TLSLeg.self), session)
        case "tls_failed":
            self = .tlsFailed(leg: try reader.name("leg", as: TLSLeg.self), reason: try reader.string("reason"))
        case "request":
            self = .requestHead(exchange: try reader.int("exchange", minimum: 1), try Self.requestHead(reader))
        case "request_body":
            self = .requestBody(
                exchange: try reader.int("exchange", minimum: 1), offset: try reader.count("offset"),
                length: try reader.count("length"), uploadOffset: try Self.optionalCount("upload_offset", reader))
        case "request_body_dropped":
            self = .requestBodyDropped(
                exchange: try reader.int("exchange", minimum: 1), offset: try reader.count("offset"),
                length: try reader.count("length"), uploadOffset: try Self.optionalCount("upload_offset", reader))
        case "request_written":
            self = .requestWritten(
                exchange: try reader.int("exchange", minimum: 1), through: try reader.count("through"),
                uploadThrough: try Self.optionalCount("upload_through", reader))
        case "request_forwarded":
            self = .requestForwarded(exchange: try reader.int("exchange", minimum: 1), try Self.requestHead(reader))
        case "proxy_answer":
            self = .proxyAnswered(exchange: try reader.int("exchange", minimum: 1))
        case "location_rewritten":
            self = .locationRewritten(
                exchange: try reader.int("exchange", minimum: 1), from: try reader.string("from"),
                to: try reader.string("to"))
        case "interim":
            self = .interimResponse(exchange: try reader.int("exchange", minimum: 1), try Self.responseHead(reader))
        case "response":
            self = .finalResponse(exchange: try reader.int("exchange", minimum: 1), try Self.responseHead(reader))
        case "response_body":
            self = .responseBody(
                exchange: try reader.int("exchange", minimum: 1), offset: try reader.count("offset"),
                length: try reader.count("length"))
        case "close":
            self = .closed(
                side: try reader.name("side", as: CloseSide.self), kind: try reader.name("kind", as: CloseKind.self))
        case "stream_reset":
            self = .streamReset(
                side: try reader.name("side", as: CloseSide.self), code: try Self.http2Code(reader))
        case "h2_stream":
            self = .http2Stream(
                connection: try reader.int("parent", minimum: 1),
                stream: Int32(clamping: try reader.int("stream", minimum: 1)))
        case "goaway":
            self = .goaway(
                lastStream: Int32(try reader.int("last_stream", minimum: 0)), code: try Self.http2Code(reader))
        case "fault_unresolved":
            self = .faultUnresolved(
                rule: try reader.string("rule"), exchange: try reader.int("exchange", minimum: 1),
                reason: try reader.string("reason"))
        case "announcement_wait":
            self = .announcementAwaited(
                exchange: try reader.int("exchange", minimum: 1), rule: try reader.string("rule"),
                uploadOffset: try Self.optionalCount("upload_offset", reader))
        case "announcement_wait_end":
            self = .announcementWaitEnded(
                exchange: try reader.int("exchange", minimum: 1),
                outcome: try reader.name("outcome", as: AnnouncementWaitEnd.self))
        case "announcement_withheld":
            self = .announcementWithheld(
                exchange: try reader.int("exchange", minimum: 1), rule: try reader.string("rule"))
        case "client_announcement":
            self = .clientAnnouncement(
                exchange: try reader.int("exchange", minimum: 1), location: try reader.string("location"),
                outcome: try Self.announcementOutcome(reader))
        default:
            self = .faultFired(try Self.fault(reader))
        }
    }

    /// A `client_announcement`'s outcome: a rule with `withheld` and `stripped`, none with the others.
    private static func announcementOutcome(
        _ reader: JSONObjectReader
    ) throws(TranscriptParseError) -> ClientAnnouncementOutcome {
        let name = try reader.string("outcome")
        let rule = try reader.optionalString("rule")
        switch (name, rule) {
        case ("written", nil): return .written
        case ("unwritten", nil): return .unwritten
        case ("withheld", let rule?): return .withheld(rule: rule)
        case ("stripped", let rule?): return .stripped(rule: rule)
        default:
            let names = "written, unwritten (rule null), withheld, stripped (with a rule)"
            throw TranscriptParseError(
                .invalidValue, key: "outcome", "'\(name)' with rule \(rule ?? "null") is not one of \(names)")
        }
    }

    private static func requestHead(_ reader: JSONObjectReader) throws(TranscriptParseError) -> RequestHead {
        RequestHead(
            method: HTTPMethod(rawValue: try reader.string("method")), target: try reader.string("target"),
            version: try version(reader), fields: try fields(reader))
    }

    private static func responseHead(_ reader: JSONObjectReader) throws(TranscriptParseError) -> ResponseHead {
        let status = try reader.int("status")
        guard (100...999).contains(status) else {
            throw TranscriptParseError(.invalidValue, key: "status", "\(status) is not a three-digit status")
        }
        return ResponseHead(
            version: try version(reader), status: status, reason: try reader.string("reason"),
            fields: try fields(reader))
    }

    private static func fault(_ reader: JSONObjectReader) throws(TranscriptParseError) -> FiredFault {
        let direction = try reader.string("direction")
        guard let parsed = FaultDirection(rawValue: direction) else {
            throw TranscriptParseError(
                .invalidValue, key: "direction", "'\(direction)' is not one of upstream, downstream, both")
        }
        return FiredFault(
            rule: try reader.string("rule"), action: try reader.string("action"), direction: parsed,
            offset: try reader.optionalInteger("offset"),
            decided: try Self.optionalCount("decided_us", reader).map { .microseconds($0) })
    }

    /// `HTTP/D.D` (RFC 9112 §2.3), or `HTTP/2` (a request that came over an HTTP/2 stream).
    private static func version(_ reader: JSONObjectReader) throws(TranscriptParseError) -> HTTPVersion {
        let text = try reader.string("version")
        if text == HTTPVersion.http2.description { return .http2 }
        let bytes = Array(text.utf8)
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard bytes.count == 8, text.hasPrefix("HTTP/"), bytes[6] == UInt8(ascii: "."), digits.contains(bytes[5]),
            digits.contains(bytes[7])
        else { throw TranscriptParseError(.invalidValue, key: "version", "'\(text)' is not HTTP/D.D or HTTP/2") }
        let major = Int(bytes[5] - UInt8(ascii: "0"))
        let minor = Int(bytes[7] - UInt8(ascii: "0"))
        return HTTPVersion(major: major, minor: minor)
    }

    private static func fields(_ reader: JSONObjectReader) throws(TranscriptParseError) -> HTTPFields {
        HTTPFields(try reader.pairs("fields").map { HTTPField(name: $0.0, value: $0.1) })
    }

    /// An HTTP/2 error code, by name (`REFUSED_STREAM`) or number (`0x7`), at `code`.
    private static func http2Code(_ reader: JSONObjectReader) throws(TranscriptParseError) -> UInt32 {
        let text = try reader.string("code")
        guard let code = HTTP2ErrorCode(name: text) else {
            throw TranscriptParseError(.invalidValue, key: "code", "'\(text)' is no HTTP/2 error code")
        }
        return code.rawValue
    }

    private static func optionalCount(_ key: String, _ reader: JSONObjectReader) throws(TranscriptParseError) -> Int64?
    {
        guard try reader.optionalInteger(key) != nil else { return nil }
        return try reader.count(key)
    }
}
