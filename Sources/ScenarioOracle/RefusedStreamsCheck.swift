import HTTP2Wire
import HTTPWire
import ProxyTranscript

/// Checks, from the proxy's transcript, that every request of an HTTP/2 stream the proxy refused (`RST_STREAM`
/// `REFUSED_STREAM`: above a `GOAWAY`'s last stream, so never processed) was sent again by the client and answered:
/// a later request with the same method, target and upload fields (`Upload-Offset`, `Upload-Length`,
/// `Content-Length`) on another connection, with a final response. A refusal is the server's promise that it did
/// nothing with the request; a client that drops the request, or fails its job over it, breaks the upload for
/// nothing.
///
/// With nothing refused there is nothing to judge, and that is a problem too: the scenario meant a refusal to
/// happen.
struct RefusedStreamsCheck {
    /// The refused requests judged.
    private(set) var refused = 0
    /// One line per refused request not sent again, or one saying none was refused.
    private(set) var problems: [String] = []

    private struct Request {
        var head: RequestHead
        var connection: Int
        var exchange: Int
        var time: Duration
        var answered = false
    }

    /// The front records a stream's reset as it happens, and the stream's own events (its request) as its relay
    /// writes them, so a reset line may come before its request's: a refusal is matched to its connection's request
    /// after the pass, and "sent again" is judged by time.
    init(_ transcript: Transcript) {
        var requests: [Request] = []
        var latest: [Int: Int] = [:]
        var refusals: [(connection: Int, time: Duration)] = []
        for event in transcript.events {
            switch event.kind {
            case .requestHead(let exchange, let head):
                latest[event.connection] = requests.count
                requests.append(
                    Request(head: head, connection: event.connection, exchange: exchange, time: event.time))
            case .finalResponse:
                if let position = latest[event.connection] { requests[position].answered = true }
            case .streamReset(.proxy, let code) where code == HTTP2ErrorCode.refusedStream.rawValue:
                refusals.append((event.connection, event.time))
            default:
                continue
            }
        }
        let judged = refusals.compactMap { refusal in latest[refusal.connection].map { (requests[$0], refusal.time) } }
        refused = judged.count
        guard !judged.isEmpty else {
            problems = ["no HTTP/2 stream was refused (REFUSED_STREAM): nothing showed a refused request sent again"]
            return
        }
        for (original, time) in judged {
            let again = requests.first { later in
                later.time > time && later.connection != original.connection && Self.same(later.head, original.head)
            }
            let what = Evidence.request(original.head, connection: original.connection, exchange: original.exchange)
            guard let again else {
                problems.append("\(what) was refused (REFUSED_STREAM) and never sent again")
                continue
            }
            if !again.answered {
                let retry = Evidence.request(again.head, connection: again.connection, exchange: again.exchange)
                problems.append("\(what) was refused and sent again as \(retry), which got no final response")
            }
        }
    }

    /// Whether `a` and `b` are the same request of an upload: method, target and upload fields.
    private static func same(_ a: RequestHead, _ b: RequestHead) -> Bool {
        guard a.method == b.method, a.target == b.target else { return false }
        return ["Upload-Offset", "Upload-Length", "Content-Length"].allSatisfy { a.fields[$0] == b.fields[$0] }
    }
}
