import HTTPExchange
import HTTPWire

/// The server role of HTTP/1.1: the input is what a client sends (request heads, Content-Length and chunked
/// bodies, trailers, pipelined requests). Checked:
///
/// - `HTTP1Parser(role: .server)` gives the same events and error fed whole or cut in pieces (limits and cuts
///   derived from the input), never more content bytes than it was fed, an error offset inside the input;
/// - every request head it reads serializes (`HTTP1Serializer`) and reads back the same;
/// - `HTTPServerStream` over the same bytes in other pieces reads the same requests and bodies, and fails exactly
///   when the parser does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPServer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var choices = DerivedChoices(bytes)
    let limits = HTTPLimits.fuzzed(&choices)
    let parser = HTTP1Parser(role: .server, limits: limits)
    let whole = HTTPOutcome.run(parser, [bytes[...]])
    let split = HTTPOutcome.run(parser, choices.chunks(bytes, maxChunk: 1 + choices.number(below: 64)))
    invariant(split == whole, "split \(split) vs whole \(whole)")
    whole.checkBounds(inputCount: bytes.count)
    for head in whole.requestHeads { checkRoundTrip(head) }
    checkServerStream(bytes, limits: limits, against: whole, choices: &choices)
    return 0
}

private func checkRoundTrip(_ head: RequestHead) {
    let serialized: [UInt8]
    do {
        serialized = try HTTP1Serializer.serialize(head)
    } catch {
        invariant(false, "a parsed head does not serialize: \(error) for \(head)")
        return
    }
    var parser = HTTP1Parser(role: .server, limits: .roomy)
    let events = try? parser.feed(serialized)
    let reread = events?.compactMap { event -> RequestHead? in
        if case .requestHead(let head) = event { head } else { nil }
    }
    invariant(
        reread?.count == 1 && HTTPOutcome.part(reread![0]) == HTTPOutcome.part(head),
        "\(head) reads back as \(String(describing: reread))")
}

/// Reads every request with `HTTPServerStream` (heads, then each whole body) and compares with the parser's.
private func checkServerStream(
    _ bytes: [UInt8], limits: HTTPLimits, against whole: HTTPOutcome, choices: inout DerivedChoices
) {
    let stream = MemoryStream(choices.chunks(bytes, maxChunk: 1 + choices.number(below: 512)))
    let server = HTTPServerStream(stream: stream, limits: limits, bufferSize: 1 + choices.number(below: 1024))
    let wait = Duration.seconds(3600)
    var parts: [HTTPOutcome.Part] = []
    var failed = false
    do {
        var next = try server.firstHead(by: .now + wait)
        while let head = next {
            parts.append(HTTPOutcome.part(head))
            let body = try server.collectBody(of: head, limit: .max, timeout: wait)
            if !body.isEmpty { parts.append(.body(body)) }
            next = try server.nextHead(idleTimeout: wait, headTimeout: wait)
        }
    } catch {
        failed = true
    }
    let expected = whole.parts.filter { if case .end = $0 { false } else { true } }
    invariant(failed == (whole.error != nil), "the stream failed: \(failed), the parser: \(whole)")
    invariant(
        failed ? expected.starts(with: parts) : parts == expected,
        "the stream read \(parts), the parser \(expected)")
}
