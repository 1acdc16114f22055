import FaultEngine
import HTTPWire

/// The proxy answering for the server: a fault's `answer` (`respond`, `expire-auth`), and the proxy's own errors (a
/// 400, the head timeout's 408, the gateway's 502).
extension ConnectionFlow {
    /// Answers for the server when a request waits for its final response and none was forwarded yet (then the
    /// connection closes after the answer); otherwise an answer would corrupt the framing, and the connection
    /// just closes. Returns when the answer (or the close) reaches the wire.
    mutating func answerIfAwaited(_ response: FaultResponse, at now: Duration) -> WireMoment {
        let awaiting = (request != nil || !unanswered.isEmpty) && self.response == nil && !toClient.isCut
        if awaiting, mode == .http {
            return .after(.client, through: answer(response, at: now, close: true))
        }
        toClient.pushMarker(.close, at: now)
        return .atEnd
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
        let head = ResponseHead(
            status: response.status, reason: ResponseHead.standardReason(for: response.status), fields: fields)
        let answered = exchange ?? request?.exchange ?? requests
        emit(.proxyAnswered(exchange: answered), at: now)
        emit(.finalResponse(exchange: answered, head), at: now)
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
}
