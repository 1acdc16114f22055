/// Completed heads: framing, interim responses, keep-alive and the expected-method queue (RFC 9112 §6.3, §9.3).
extension HTTP1Parser {
    /// Reports the head with `fields`, ended by the empty line at `offset`, and enters the state its framing calls
    /// for.
    mutating func completeHead(
        _ fields: HTTPFields, at offset: Int, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        let framing = section.framing
        switch section.startLine {
        case .request(let method, let target, let version):
            try framing.checkHost(version: version, at: offset)
            let bodyFraming = try framing.requestFraming(version: version, at: offset)
            keepAlive = framing.connection.persists(version: version)
            events.append(.requestHead(RequestHead(method: method, target: target, version: version, fields: fields)))
            beginContent(bodyFraming, into: &events)
        case .response(let version, let status, let reason):
            let response = ResponseHead(version: version, status: status, reason: reason, fields: fields)
            if response.isInformational && status != 101 {
                events.append(.responseHead(response))
                messageStart = lineStart
                beginSection(at: lineStart)
                return
            }
            let method = expectedMethods.isEmpty ? HTTPMethod.get : expectedMethods.removeFirst()
            let bodyFraming = try framing.responseFraming(
                status: status, requestMethod: method, version: version, at: offset)
            keepAlive = framing.connection.persists(version: version)
            events.append(.responseHead(response))
            beginContent(bodyFraming, into: &events)
        case .none:
            preconditionFailure("an empty line before the start line does not complete a head")
        }
    }

    private mutating func beginContent(_ framing: BodyFraming, into events: inout [HTTP1Event]) {
        switch framing {
        case .none, .contentLength(0):
            endMessage(trailers: HTTPFields(), nextAt: lineStart, into: &events)
            return
        case .contentLength(let length):
            state = .fixedBody(remaining: length)
        case .chunked:
            state = .chunkSize
        case .untilClose:
            keepAlive = false
            state = .untilClose
        case .tunnel:
            keepAlive = false
            events.append(.upgrade)
            state = .opaque
        }
        beginSection(at: lineStart)
    }
}
