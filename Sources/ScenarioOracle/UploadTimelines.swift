import HTTPWire
import ProxyTranscript
import ResumableUpload
import Scenario

/// Each asset's uploads as the HTML report draws them (`UploadTimeline`), read from the proxy's transcript.
///
/// A request belongs to an upload when it carries upload content or names an upload: a creation (a POST or PUT
/// with `X-Filename`, an interop version, a body, or a `Location` in its answer), and the HEAD, PATCH and DELETE
/// requests to the resource a creation announced. A token request's empty POST, or an OPTIONS, belongs to none.
/// Requests are grouped by asset (the creation's `X-Filename`; a resource no creation announced stands alone).
public enum UploadTimelines {
    /// The most points of sent bytes kept per request; more are thinned evenly (the last always kept).
    static let sentPoints = 48

    public static func build(_ transcript: Transcript) -> [UploadTimeline] {
        var builder = Builder()
        for event in transcript.events {
            builder.observe(event)
        }
        return builder.timelines()
    }

    private struct Exchange {
        var connection: Int
        var number: Int
        var head: RequestHead
        var facts: UploadRequestFacts
        var start: Int64
        var end: Int64
        var status: Int?
        var answeredByProxy = false
        var resource: String?
        var sent: [OffsetMark] = []
        var forwarded: [OffsetMark] = []
        var carriesBody = false
    }

    private struct Builder {
        var order: [ExchangeKey] = []
        var exchanges: [ExchangeKey: Exchange] = [:]
        /// The asset each resource belongs to (from its creation's `X-Filename`).
        var assetOfResource: [String: String] = [:]
        var acknowledged: [ExchangeKey: [OffsetMark]] = [:]

        mutating func observe(_ event: TranscriptEvent) {
            let time = Self.microseconds(event.time)
            switch event.kind {
            case .requestHead(let number, let head):
                let key = ExchangeKey(connection: event.connection, exchange: number)
                order.append(key)
                exchanges[key] = Exchange(
                    connection: event.connection, number: number, head: head, facts: UploadRequestFacts(head),
                    start: time, end: time,
                    resource: Self.targetsResource(head) ? UploadRequest.path(of: head.target) : nil)
            case .requestBody(let number, _, let length, let upload):
                update(event.connection, number, time) { exchange in
                    exchange.carriesBody = exchange.carriesBody || length > 0
                    if let upload {
                        exchange.sent.append(OffsetMark(microseconds: time, offset: upload + length, label: "sent"))
                    }
                }
            case .requestWritten(let number, _, let upload?):
                update(event.connection, number, time) { exchange in
                    exchange.forwarded.append(OffsetMark(microseconds: time, offset: upload, label: "forwarded"))
                }
            case .proxyAnswered(let number):
                update(event.connection, number, time) { $0.answeredByProxy = true }
            case .interimResponse(let number, let response):
                answer(event.connection, number, response, time, interim: true)
            case .finalResponse(let number, let response):
                answer(event.connection, number, response, time, interim: false)
            case .closed:
                // An exchange with no final response ends when its connection does.
                for key in order where key.connection == event.connection {
                    if var exchange = exchanges[key], exchange.status == nil {
                        exchange.end = max(exchange.end, time)
                        exchanges[key] = exchange
                    }
                }
            default:
                break
            }
        }

        private mutating func update(
            _ connection: Int, _ number: Int, _ time: Int64, _ change: (inout Exchange) -> Void
        ) {
            let key = ExchangeKey(connection: connection, exchange: number)
            guard var exchange = exchanges[key] else { return }
            change(&exchange)
            exchange.end = max(exchange.end, time)
            exchanges[key] = exchange
        }

        private mutating func answer(
            _ connection: Int, _ number: Int, _ response: ResponseHead, _ time: Int64, interim: Bool
        ) {
            let key = ExchangeKey(connection: connection, exchange: number)
            guard var exchange = exchanges[key] else { return }
            let facts = UploadResponseFacts(response, requestVersion: exchange.facts.version)
            if let location = facts.resourcePath, !exchange.answeredByProxy {
                exchange.resource = location
                if let asset = exchange.head.fields["X-Filename"] { assetOfResource[location] = asset }
            }
            if !interim { exchange.status = response.status }
            exchange.end = max(exchange.end, time)
            exchanges[key] = exchange
            // What the server acknowledged (the proxy's own answers are not the server's).
            let states =
                interim ? response.status == 104 : (200..<300).contains(response.status) || response.status == 409
            guard states, !exchange.answeredByProxy, let offset = facts.offset else { return }
            let what = interim ? "104" : "\(exchange.head.method.rawValue) \(response.status)"
            acknowledged[key, default: []].append(OffsetMark(microseconds: time, offset: offset, label: what))
        }

        /// Whether the request's target is an upload resource (HEAD, PATCH, DELETE).
        private static func targetsResource(_ head: RequestHead) -> Bool {
            head.method == .head || head.method == .patch || head.method == .delete
        }

        private static func isUpload(_ exchange: Exchange) -> Bool {
            switch exchange.head.method {
            case .post, .put:
                exchange.head.fields["X-Filename"] != nil || exchange.facts.version != nil || exchange.carriesBody
                    || exchange.resource != nil
            case .head, .patch, .delete: true
            default: false
            }
        }

        func timelines() -> [UploadTimeline] {
            var byName: [String: UploadTimeline] = [:]
            var names: [String] = []
            for key in order {
                guard let exchange = exchanges[key], Self.isUpload(exchange) else { continue }
                let name =
                    exchange.head.fields["X-Filename"] ?? exchange.resource.flatMap { assetOfResource[$0] }
                    ?? exchange.resource ?? UploadRequest.path(of: exchange.head.target)
                if byName[name] == nil {
                    byName[name] = UploadTimeline(name: name)
                    names.append(name)
                }
                var timeline = byName[name]!
                if let resource = exchange.resource, !timeline.resources.contains(resource) {
                    timeline.resources.append(resource)
                }
                timeline.length = timeline.length ?? exchange.facts.length
                timeline.requests.append(
                    RequestSpan(
                        connection: exchange.connection, exchange: exchange.number,
                        method: exchange.head.method.rawValue, status: exchange.status,
                        answeredByProxy: exchange.answeredByProxy, startMicroseconds: exchange.start,
                        endMicroseconds: exchange.end, startOffset: exchange.facts.start,
                        sent: Self.thinned(exchange.sent), forwarded: Self.thinned(exchange.forwarded)))
                timeline.acknowledged += acknowledged[key] ?? []
                let method = exchange.head.method
                if method == .patch, let start = exchange.facts.start {
                    timeline.resumes.append(
                        OffsetMark(microseconds: exchange.start, offset: start, label: "resumed at \(start)"))
                } else if method == .post || method == .put, let resource = exchange.resource,
                    timeline.resources.count > 1, timeline.resources.last == resource
                {
                    // A new upload resource for an asset that had one: the client started over.
                    timeline.resumes.append(
                        OffsetMark(microseconds: exchange.start, offset: 0, label: "started over at 0"))
                }
                byName[name] = timeline
            }
            return names.compactMap { byName[$0] }
        }

        /// At most `sentPoints` points, evenly chosen, the last always kept.
        static func thinned(_ points: [OffsetMark]) -> [OffsetMark] {
            guard points.count > UploadTimelines.sentPoints else { return points }
            let step = Double(points.count - 1) / Double(UploadTimelines.sentPoints - 1)
            return (0..<UploadTimelines.sentPoints).map { points[Int((Double($0) * step).rounded())] }
        }

        static func microseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        }
    }
}
