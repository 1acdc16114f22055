import HTTPWire
import ProxyTranscript
import ResumableUpload

/// Checks, from the proxy's transcript, that every append (PATCH) to an upload resource starts at the offset
/// the server last reported for it (draft-ietf-httpbis-resumable-upload §4.4 offset retrieval, §4.5 upload
/// append: a client resumes at the `Upload-Offset` of the HEAD response).
///
/// Walks the events in order. A HEAD's final response sets the resource's reported offset from its
/// `Upload-Offset`; a PATCH's 2xx final response moves it to its `Upload-Offset` (or, without one, to the
/// PATCH's offset plus the body bytes the server accepted), so chunked appends after a resume are judged too.
/// Only PATCHes to a resource after a HEAD to it are judged (and only their responses move the offset): before the
/// first offset retrieval the client's offset comes from its own creation request. The fields mean what
/// `ResumableUpload` says they mean (`UploadRequestFacts`, `UploadResponseFacts`), and resources are keyed by
/// `UploadRequest.path(of:)`.
struct AppendOffsetCheck {
    /// One judged PATCH whose `Upload-Offset` differed from the server's last reported offset.
    struct Mismatch: Equatable {
        var request: String
        var sent: Int64?
        var reported: Int64
        var reportedBy: String
    }

    /// The PATCHes judged (those following a HEAD on their resource).
    private(set) var judged = 0
    private(set) var mismatches: [Mismatch] = []

    private var requests: [ExchangeKey: RequestHead] = [:]
    private var bodyBytes: [ExchangeKey: Int64] = [:]
    /// The last offset the server reported per resource, and the request whose response reported it.
    private var reported: [String: (offset: Int64, by: String)] = [:]

    /// Judges every PATCH in `transcript`.
    init(_ transcript: Transcript) {
        for event in transcript.events {
            observe(event)
        }
    }

    private mutating func observe(_ event: TranscriptEvent) {
        switch event.kind {
        case .requestHead(let exchange, let head):
            let key = ExchangeKey(connection: event.connection, exchange: exchange)
            requests[key] = head
            if head.method == .patch { judge(head, key) }
        case .requestBody(let exchange, _, let length, _):
            bodyBytes[ExchangeKey(connection: event.connection, exchange: exchange), default: 0] += length
        case .finalResponse(let exchange, let response):
            record(response, ExchangeKey(connection: event.connection, exchange: exchange))
        default:
            break
        }
    }

    private mutating func judge(_ head: RequestHead, _ key: ExchangeKey) {
        guard let last = reported[Self.resource(head.target)] else { return }
        judged += 1
        let sent = UploadRequestFacts(head).start
        if sent != last.offset {
            let request = Evidence.request(head, connection: key.connection, exchange: key.exchange)
            mismatches.append(Mismatch(request: request, sent: sent, reported: last.offset, reportedBy: last.by))
        }
    }

    private mutating func record(_ response: ResponseHead, _ key: ExchangeKey) {
        guard let request = requests[key] else { return }
        let resource = Self.resource(request.target)
        let by = "conn \(key.connection) #\(key.exchange) \(request.method)"
        if request.method == .head, let offset = Self.offset(response) {
            reported[resource] = (offset, by)
        } else if request.method == .patch, reported[resource] != nil, (200..<300).contains(response.status),
            let offset = Self.offset(response)
                ?? UploadRequestFacts(request).start.map({ $0 + (bodyBytes[key] ?? 0) })
        {
            reported[resource] = (offset, by)
        }
    }

    /// The offset a response reports (`UploadResponseFacts.offset`: `Upload-Offset`, an sf-Integer).
    static func offset(_ response: ResponseHead) -> Int64? {
        UploadResponseFacts(response, requestVersion: nil).offset
    }

    /// The upload resource a request target or `Location` names (`UploadRequest.path(of:)`).
    static func resource(_ target: String) -> String {
        UploadRequest.path(of: target)
    }
}

/// A request on a connection: the connection id and the exchange number.
struct ExchangeKey: Hashable {
    var connection: Int
    var exchange: Int
}
