import HTTPWire
import ProxyTranscript
import ResumableUpload

/// Judges, from the proxy's transcript, every answer the server gave against the resumable-upload draft at the
/// request's interop version (`ServerConformance`), and what its answers say across exchanges
/// (`UploadOffsetHistory`, fed in wire order): the `server-conformance` verdict.
///
/// The transcript keeps what the server sent (response heads as they arrived, before a fault rewrote or stripped
/// them) and, when a `rewrite-header` changed a request, what the server got (`requestForwarded`). Answers the
/// proxy gave itself (`proxyAnswered`: a `respond` or `expire-auth` fault, a 502) are not the server's and are
/// not judged. An exchange a fault cut before its final response is judged on what arrived.
struct ServerConformanceCheck {
    /// Each deviation's rule and evidence line: `conn 2 #1 POST /upload → 201: completion-field: …`.
    private(set) var problems: [(rule: ConformanceDeviation.Rule, line: String)] = []
    /// The exchanges judged.
    private(set) var judged = 0

    private struct Open {
        var exchange: ServerExchange
        var connection: Int
        var number: Int
        var answeredByProxy = false
        /// The `Location` of a creation's first 104.
        var location: String?
        /// The request's upload start and resource path, once known (for the bytes it delivered).
        var start: Int64?
    }

    private var open: [ExchangeKey: Open] = [:]
    private var history = UploadOffsetHistory()
    /// The interop versions the server serves resumably, when the run knows them (`RunObservation.servedInterop`).
    private let served: Set<Int>?

    init(_ transcript: Transcript, served: Set<Int>? = nil) {
        self.served = served
        for event in transcript.events { observe(event) }
        for key in open.keys.sorted(by: { ($0.connection, $0.exchange) < ($1.connection, $1.exchange) }) {
            finish(key)
        }
    }

    private mutating func observe(_ event: TranscriptEvent) {
        guard let number = event.kind.exchange else { return }
        let key = ExchangeKey(connection: event.connection, exchange: number)
        switch event.kind {
        case .requestHead(_, let head):
            open[key] = Open(
                exchange: ServerExchange(request: head, response: nil, bodyBytes: 0), connection: event.connection,
                number: number, start: UploadRequestFacts(head).start)
        case .requestForwarded(_, let head):
            open[key]?.exchange.request = head
            open[key]?.start = UploadRequestFacts(head).start
        case .requestBody(_, _, let length, _):
            guard var state = open[key] else { return }
            state.exchange.bodyBytes = (state.exchange.bodyBytes ?? 0) + length
            open[key] = state
            deliver(state)
        case .interimResponse(_, let head):
            guard var state = open[key] else { return }
            state.exchange.interims.append(head)
            if head.status == 104, state.location == nil { state.location = head.fields["Location"] }
            open[key] = state
            deliver(state)
            acknowledge(head, in: state)
        case .proxyAnswered:
            open[key]?.answeredByProxy = true
        case .finalResponse(_, let head):
            guard var state = open[key] else { return }
            if !state.answeredByProxy {
                state.exchange.response = head
                open[key] = state
                acknowledge(head, in: state)
            }
            finish(key)
        default:
            break
        }
    }

    /// The bytes the request delivered so far, to the resource it addresses (once known).
    private mutating func deliver(_ state: Open) {
        guard let start = state.start, let path = resource(of: state) else { return }
        history.delivered(path: path, through: start + (state.exchange.bodyBytes ?? 0))
    }

    private func resource(of state: Open) -> String? {
        switch state.exchange.request.method {
        case .patch: UploadRequest.path(of: state.exchange.request.target)
        case .post, .put: state.location.map { UploadRequest.path(of: $0) }
        default: nil
        }
    }

    private mutating func acknowledge(_ head: ResponseHead, in state: Open) {
        guard
            let (path, offset) = ServerConformance.acknowledgement(
                request: state.exchange.request, response: head, creationLocation: state.location)
        else { return }
        let source = "\(head.status)"
        for deviation in history.acknowledged(path: path, offset: offset, by: "a \(source)") {
            problems.append((deviation.rule, line(state, head.status, deviation)))
        }
    }

    private mutating func finish(_ key: ExchangeKey) {
        guard let state = open.removeValue(forKey: key) else { return }
        if state.answeredByProxy && state.exchange.interims.isEmpty { return }
        judged += 1
        for deviation in ServerConformance.check(state.exchange, served: served) {
            problems.append((deviation.rule, line(state, state.exchange.response?.status, deviation)))
        }
    }

    private func line(_ state: Open, _ status: Int?, _ deviation: ConformanceDeviation) -> String {
        let request = Evidence.request(state.exchange.request, connection: state.connection, exchange: state.number)
        return "\(request) → \(status.map(String.init) ?? "no final response"): \(deviation)"
    }
}
