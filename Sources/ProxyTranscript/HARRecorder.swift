import HTTPWire
import SquallCore

/// The transcript as an HTTP Archive (HAR 1.2), built as the events come: each request and what answered it is one
/// entry, written once its connection has closed, so that memory holds only the open connections' exchanges.
///
/// The file is `prologue`, the entries joined by commas, then `epilogue`. An entry has HAR's fields (dates from the
/// `started` event's wall clock, else from 1970-01-01; times in milliseconds; bodies by size only, since the
/// transcript keeps no body bytes) and Squall's own, prefixed `_` as HAR allows:
/// - `_interimResponses`: every 1xx the server sent, in order: `status`, `statusText`, `httpVersion`, `headers`
///   and `time`, the milliseconds from the entry's start;
/// - `_faults`: each fault that reached the wire while the request was the connection's latest: `rule`, `action`,
///   `direction`, `offset` (the upload offset, or null) and `time`;
/// - `_connection` and `_exchange`: the transcript's connection id and the request's number on it;
/// - `_proxyAnswered`: the proxy answered instead of the server (`respond`, `expire-auth`, a 400, a 502);
/// - `_forwardedHeaders`: the request's header fields as the server got them, when a fault rewrote them;
/// - `_droppedBodySize`: request body bytes read from the client and not forwarded;
/// - `_uploadRanges`: the upload's byte ranges the forwarded body covered, `[start, end)`;
/// - `_error`: why there is no final response (status 0), e.g. `connection reset (RST) by the proxy`.
///
/// ```swift
/// var recorder = HARRecorder()
/// var entries: [String] = []
/// for event in transcript.events { entries += recorder.add(event) }
/// let har = HARRecorder.prologue(version: "1.0") + (entries + recorder.finish()).joined(separator: ",") + HARRecorder.epilogue
/// ```
public struct HARRecorder: Sendable {
    /// The wall clock of the proxy's start, in microseconds since 1970 (`TranscriptEvent.Kind.started`).
    public private(set) var startedAt: Int64
    private var connections: [Int: Connection] = [:]

    /// A recorder dating times since the proxy's start from `startedAt` (Unix microseconds) until a `started`
    /// event says otherwise.
    public init(startedAt: Int64 = 0) {
        self.startedAt = startedAt
    }

    /// The text before the first entry.
    public static func prologue(version: String) -> String {
        "{\"log\":{\"version\":\"1.2\",\"creator\":{\"name\":\"squall\",\"version\":\(JSONText.quoted(version))},"
            + "\"pages\":[],\"entries\":[\n"
    }

    /// The text after the last entry.
    public static let epilogue = "\n]}}\n"

    /// Takes the next transcript event; returns the entries it completed (those of a connection that closed), each
    /// a JSON object on one line.
    public mutating func add(_ event: TranscriptEvent) -> [String] {
        // In whole microseconds, as JSON Lines keep them: the archive of a transcript file read back is the same.
        var event = event
        event.time = .microseconds(TranscriptEvent.microseconds(event.time))
        let id = event.connection
        switch event.kind {
        case .started(let unixMicroseconds):
            startedAt = unixMicroseconds
        case .opened(_, let listener):
            connections[id] = Connection(listener: listener)
        case .tlsEstablished(.client, _):
            connections[id, default: Connection()].scheme = "https"
        case .closed(let side, let kind):
            guard var connection = connections.removeValue(forKey: id) else { return [] }
            connection.end = (event.time, side, kind)
            return entries(of: id, connection)
        case .faultFired(let fault):
            guard let latest = connections[id]?.latest else { return [] }
            connections[id]?.exchanges[latest]?.faults.append((event.time, fault))
        default:
            guard let number = event.kind.exchange else { return [] }
            connections[id, default: Connection()].record(event, exchange: number)
        }
        return []
    }

    /// The entries of the connections still open, as they stand: call once, after the last event.
    public mutating func finish() -> [String] {
        let open = connections.sorted { $0.key < $1.key }
        connections = [:]
        return open.flatMap { entries(of: $0.key, $0.value) }
    }

    private func entries(of id: Int, _ connection: Connection) -> [String] {
        connection.exchanges.sorted { $0.key < $1.key }.compactMap { number, exchange in
            exchange.request.map { entry(id, number, $0, exchange, connection) }
        }
    }
}

extension HARRecorder {
    /// One connection's state while it is open.
    struct Connection: Sendable {
        var listener = ""
        var scheme = "http"
        var exchanges: [Int: Exchange] = [:]
        /// The request the connection is on: faults are charged to it.
        var latest: Int?
        var end: (time: Duration, side: CloseSide, kind: CloseKind)?

        mutating func record(_ event: TranscriptEvent, exchange number: Int) {
            var exchange = exchanges[number] ?? Exchange()
            let time = event.time
            switch event.kind {
            case .requestHead(_, let head):
                exchange.request = (time, head)
                latest = number
            case .requestForwarded(_, let head): exchange.forwarded = head
            case .requestBody(_, _, let length, let uploadOffset):
                exchange.sent = time
                exchange.bodySize += length
                if let uploadOffset { exchange.uploadRanges.append(uploadOffset..<uploadOffset + length) }
            case .requestBodyDropped(_, _, let length, _): exchange.droppedBodySize += length
            case .interimResponse(_, let head): exchange.interims.append((time, head))
            case .proxyAnswered: exchange.answeredByProxy = true
            case .finalResponse(_, let head): exchange.response = (time, head)
            case .responseBody(_, _, let length):
                exchange.received = time
                exchange.responseSize += length
            default: return
            }
            exchanges[number] = exchange
        }
    }

    /// One request and what answered it.
    struct Exchange: Sendable {
        var request: (time: Duration, head: RequestHead)?
        var forwarded: RequestHead?
        /// When the last request body bytes were forwarded, and when the last response body bytes came.
        var sent: Duration?
        var received: Duration?
        var bodySize: Int64 = 0
        var droppedBodySize: Int64 = 0
        var responseSize: Int64 = 0
        var uploadRanges: [Range<Int64>] = []
        var interims: [(time: Duration, head: ResponseHead)] = []
        var response: (time: Duration, head: ResponseHead)?
        var answeredByProxy = false
        var faults: [(time: Duration, fault: FiredFault)] = []
    }

    private func entry(
        _ id: Int, _ number: Int, _ request: (time: Duration, head: RequestHead), _ exchange: Exchange,
        _ connection: Connection
    ) -> String {
        let start = request.time
        let sendEnd = max(exchange.sent ?? start, start)
        let responded = exchange.response?.time ?? connection.end?.time ?? sendEnd
        let waitEnd = max(responded, sendEnd)
        let receiveEnd = exchange.response == nil ? waitEnd : max(exchange.received ?? waitEnd, waitEnd)
        let (send, wait, receive) = (sendEnd - start, waitEnd - sendEnd, receiveEnd - waitEnd)
        var writer = JSONObjectWriter()
        writer.add(
            "startedDateTime", UTCTimestamp.text(unixMicroseconds: startedAt + TranscriptEvent.microseconds(start)))
        writer.add("time", raw: Self.milliseconds(send + wait + receive))
        writer.add("request", raw: requestObject(request.head, exchange, connection))
        writer.add("response", raw: responseObject(exchange))
        writer.add("cache", raw: "{}")
        writer.add(
            "timings",
            raw: "{\"blocked\":-1,\"dns\":-1,\"connect\":-1,\"ssl\":-1,\"send\":\(Self.milliseconds(send)),"
                + "\"wait\":\(Self.milliseconds(wait)),\"receive\":\(Self.milliseconds(receive))}")
        writer.add("connection", String(id))
        writer.add("_connection", id)
        writer.add("_exchange", number)
        writer.add("_proxyAnswered", raw: exchange.answeredByProxy ? "true" : "false")
        writer.add("_droppedBodySize", exchange.droppedBodySize)
        writer.add(
            "_uploadRanges",
            raw: "["
                + TranscriptExchange.merge(exchange.uploadRanges).map { "[\($0.lowerBound),\($0.upperBound)]" }
                .joined(separator: ",") + "]")
        writer.add(
            "_interimResponses", raw: "[" + exchange.interims.map { interim(start, $0) }.joined(separator: ",") + "]")
        writer.add("_faults", raw: "[" + exchange.faults.map { fault(start, $0) }.joined(separator: ",") + "]")
        if let forwarded = exchange.forwarded { writer.add("_forwardedHeaders", raw: Self.headers(forwarded.fields)) }
        if exchange.response == nil { writer.add("_error", Self.error(connection.end, exchange.faults.last?.fault)) }
        return writer.line
    }

    private func requestObject(_ head: RequestHead, _ exchange: Exchange, _ connection: Connection) -> String {
        var writer = JSONObjectWriter()
        writer.add("method", head.method.rawValue)
        writer.add("url", Self.url(head, scheme: connection.scheme, listener: connection.listener))
        writer.add("httpVersion", head.version.description)
        writer.add("cookies", raw: "[]")
        writer.add("headers", raw: Self.headers(head.fields))
        writer.add("queryString", raw: Self.queryString(head.target))
        writer.add("headersSize", -1)
        writer.add("bodySize", exchange.bodySize)
        return writer.line
    }

    private func responseObject(_ exchange: Exchange) -> String {
        var writer = JSONObjectWriter()
        let head = exchange.response?.head
        writer.add("status", head?.status ?? 0)
        writer.add("statusText", head?.reason ?? "")
        writer.add("httpVersion", head?.version.description ?? "")
        writer.add("cookies", raw: "[]")
        writer.add("headers", raw: Self.headers(head?.fields ?? [:]))
        let mimeType = head?.fields["Content-Type"] ?? "x-unknown"
        writer.add("content", raw: "{\"size\":\(exchange.responseSize),\"mimeType\":\(JSONText.quoted(mimeType))}")
        let redirect = head.flatMap { (300..<400).contains($0.status) ? $0.fields["Location"] : nil }
        writer.add("redirectURL", redirect ?? "")
        writer.add("headersSize", -1)
        writer.add("bodySize", head == nil ? -1 : exchange.responseSize)
        return writer.line
    }

    private func interim(_ start: Duration, _ interim: (time: Duration, head: ResponseHead)) -> String {
        var writer = JSONObjectWriter()
        writer.add("status", interim.head.status)
        writer.add("statusText", interim.head.reason)
        writer.add("httpVersion", interim.head.version.description)
        writer.add("headers", raw: Self.headers(interim.head.fields))
        writer.add("time", raw: Self.milliseconds(interim.time - start))
        return writer.line
    }

    private func fault(_ start: Duration, _ fired: (time: Duration, fault: FiredFault)) -> String {
        var writer = JSONObjectWriter()
        writer.add("rule", fired.fault.rule)
        writer.add("action", fired.fault.action)
        writer.add("direction", fired.fault.direction.rawValue)
        writer.add("offset", fired.fault.offset)
        writer.add("time", raw: Self.milliseconds(fired.time - start))
        return writer.line
    }

    /// A duration in milliseconds with three decimals (`12.345`, `-0.500`), as HAR's times are.
    public static func milliseconds(_ duration: Duration) -> String {
        let microseconds = TranscriptEvent.microseconds(duration)
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        return sign + String(magnitude / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    static func headers(_ fields: HTTPFields) -> String {
        "["
            + fields.map { "{\"name\":\(JSONText.quoted($0.name)),\"value\":\(JSONText.quoted($0.value))}" }
            .joined(separator: ",") + "]"
    }

    /// The request's URL: its target when absolute, else the client's scheme, `Host` (or the listener's address)
    /// and the target.
    static func url(_ head: RequestHead, scheme: String, listener: String) -> String {
        if head.target.contains("://") { return head.target }
        let host = head.fields["Host"] ?? listener
        return "\(scheme)://\(host)\(head.target.hasPrefix("/") ? head.target : "/" + head.target)"
    }

    /// The target's query as HAR's name and value pairs, as written (not percent-decoded).
    static func queryString(_ target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return "[]" }
        let query = target[target.index(after: mark)...].split(separator: "#", maxSplits: 1).first ?? ""
        let pairs = query.split(separator: "&").map { part -> String in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = pieces.count > 1 ? String(pieces[1]) : ""
            return "{\"name\":\(JSONText.quoted(String(pieces[0]))),\"value\":\(JSONText.quoted(value))}"
        }
        return "[" + pairs.joined(separator: ",") + "]"
    }

    /// Why an exchange has no final response.
    static func error(_ end: (time: Duration, side: CloseSide, kind: CloseKind)?, _ fault: FiredFault?) -> String {
        guard let end else { return "no response: the connection was still open when the transcript ended" }
        let how = end.kind == .rst ? "reset (RST)" : "closed (FIN)"
        let cause = fault.map { " (fault \($0.rule): \($0.action))" } ?? ""
        return "no response: the connection was \(how) by the \(end.side.rawValue)\(cause)"
    }
}
