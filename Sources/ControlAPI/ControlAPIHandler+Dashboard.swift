import HTTPWire

/// What a person and a phone get from the control API:
///
/// | method and path | reply | token |
/// |---|---|---|
/// | `GET /` | the live dashboard (`DashboardPage`), which asks for the token when the API has one | not needed |
/// | `GET /ca.pem` | the proxy's CA certificate (`application/x-pem-file`); 404 for a plain proxy | not needed |
/// | `GET /ca.mobileconfig` | an Apple configuration profile installing it (`DeviceProfile`) | not needed |
/// | `GET /squall/events?from=N` | the transcript as server-sent events, one `data:` line per transcript line, from index N, as it grows, in batches at most five a second (`curl -N`) | needed |
///
/// The page and the CA are public: the page holds no data (it fetches the native endpoints with the token), and a
/// phone's browser downloading the profile sends no `Authorization`.
public struct ControlAPIResponse: Sendable {
    public var head: ResponseHead
    public var body: [UInt8]
    /// Set for `GET /squall/events`: the transcript index the stream starts from. The head has no length; the
    /// server writes `events(from:wait:)` until the peer goes.
    public var eventStreamFrom: Int?
}

extension ControlAPIHandler {
    /// The paths served without the token.
    static func isPublic(_ head: RequestHead) -> Bool {
        ["/", "/ca.pem", "/ca.mobileconfig"].contains(RequestTarget(head.target).path)
    }

    /// `GET /`, `/ca.pem`, `/ca.mobileconfig`; nil for any other path.
    func dashboardRoute(_ target: RequestTarget, _ method: HTTPMethod) throws(ControlAPIError) -> ControlAPIReply? {
        switch target.path {
        case "/":
            try allow(method, [.get])
            return ControlAPIReply(
                text: DashboardPage.html(tokenRequired: configuration.token != nil),
                contentType: "text/html; charset=utf-8")
        case "/ca.pem":
            try allow(method, [.get])
            guard let device = configuration.device else {
                throw ControlAPIError(.notFound, "no CA: the proxy runs with --plain")
            }
            return ControlAPIReply(
                text: device.certificatePEM, contentType: "application/x-pem-file",
                fields: ["Content-Disposition": "attachment; filename=\"squall-ca.pem\""])
        case "/ca.mobileconfig":
            try allow(method, [.get])
            guard let profile = configuration.device?.mobileconfig else {
                throw ControlAPIError(.notFound, "no CA: the proxy runs with --plain")
            }
            return ControlAPIReply(
                text: profile, contentType: "application/x-apple-aspen-config",
                fields: ["Content-Disposition": "attachment; filename=\"squall-ca.mobileconfig\""])
        default:
            return nil
        }
    }

    /// `GET /squall/events`: the head of the stream (its body comes from `events(from:wait:)`), from `?from=N`,
    /// else after the `Last-Event-ID` an `EventSource` sends when it reconnects, else from 0.
    func eventStream(_ head: RequestHead, _ target: RequestTarget) throws(ControlAPIError) -> ControlAPIReply {
        try allow(head.method, [.get])
        guard runtime != nil else { throw ControlAPIError(.notFound, "no endpoint \(target.path): no proxy attached") }
        var from = head.fields["Last-Event-ID"].flatMap { Int($0) }.map { $0 + 1 } ?? 0
        if let text = target.queryValue("from") {
            guard let index = Int(text), index >= 0 else {
                throw ControlAPIError(.badRequest, "from must be a transcript index (0 or more), not '\(text)'")
            }
            from = index
        }
        var reply = ControlAPIReply(
            text: "", contentType: "text/event-stream",
            fields: ["Cache-Control": "no-cache", "Connection": "close"])
        reply.eventStreamFrom = from
        return reply
    }

    /// The transcript lines from index `from` as server-sent events (`id: INDEX`, `data: LINE` and a blank line
    /// each: the index is the line's place in the transcript, so a reader that asks again from the last id + 1, or
    /// reconnects with `Last-Event-ID`, neither misses nor repeats one, even when older lines were dropped), waiting
    /// up to `wait` for one when there is none yet; the text is empty when none came, and the index to ask for
    /// next. Nil once no proxy is attached (the stream ends).
    public func events(from: Int, wait: Duration) -> (text: String, next: Int)? {
        guard let runtime else { return nil }
        let (lines, next) = runtime.waitForTranscriptLines(from: from, timeout: wait)
        let split = lines.split(separator: "\n", omittingEmptySubsequences: true)
        var text = ""
        for (offset, line) in split.enumerated() {
            text += "id: \(next - split.count + offset)\ndata: " + line + "\n\n"
        }
        return (text, next)
    }
}
