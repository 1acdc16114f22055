import HTTPExchange
import HTTPWire

/// The client role of HTTP/1.1: the input is what a server answers (interim 1xx heads, final heads, Content-Length,
/// chunked and read-until-close bodies, upgrades), to requests whose methods are derived from the input. Checked:
///
/// - `HTTP1Parser(role: .client)` gives the same events and error fed whole or cut in pieces, never more content
///   or opaque bytes than it was fed, an error offset inside the input;
/// - every response head it reads serializes (`HTTP1Serializer`) and reads back the same;
/// - `HTTPClientStream.readResponses` over the same bytes in other pieces returns the first exchange as the parser
///   reads it (interims, final head, body), and fails exactly when the parser fails inside that exchange.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPClient(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var choices = DerivedChoices(bytes)
    let limits = HTTPLimits.fuzzed(&choices)
    let choosable: [HTTPMethod] = [.get, .head, .connect, .post, .patch]
    let methods = (0...choices.number(below: 3)).map { _ in choosable[choices.number(below: choosable.count)] }
    var parser = HTTP1Parser(role: .client, limits: limits)
    for method in methods { parser.expectResponse(to: method) }
    let whole = HTTPOutcome.run(parser, [bytes[...]])
    let split = HTTPOutcome.run(parser, choices.chunks(bytes, maxChunk: 1 + choices.number(below: 64)))
    invariant(split == whole, "split \(split) vs whole \(whole)")
    whole.checkBounds(inputCount: bytes.count)
    // The framing fields of an answer to HEAD or CONNECT are not checked (RFC 9112 §6.3); the serializer checks
    // them as for GET.
    let framed = !methods.contains(.head) && !methods.contains(.connect)
    for head in whole.responseHeads { checkRoundTrip(head, framed: framed) }
    checkClientStream(bytes, limits: limits, method: methods[0], choices: &choices)
    return 0
}

private func checkRoundTrip(_ head: ResponseHead, framed: Bool) {
    let serialized: [UInt8]
    do {
        serialized = try HTTP1Serializer.serialize(head)
    } catch {
        invariant(!framed, "a parsed head does not serialize: \(error) for \(head)")
        return
    }
    var parser = HTTP1Parser(role: .client, limits: .roomy)
    let events = try? parser.feed(serialized)
    let reread = events?.compactMap { event -> ResponseHead? in
        if case .responseHead(let head) = event { head } else { nil }
    }
    invariant(
        reread?.count == 1 && HTTPOutcome.part(reread![0]) == HTTPOutcome.part(head),
        "\(head) reads back as \(String(describing: reread))")
}

/// The first exchange as the parser reads it: interim heads, then the final head and its content, up to its end.
private struct FirstExchange: Equatable {
    var interims: [HTTPOutcome.Part] = []
    var final: HTTPOutcome.Part?
    var body: [UInt8] = []
    var ended = false

    init(_ outcome: HTTPOutcome) {
        for part in outcome.parts {
            switch part {
            case .response(_, let status, _, _) where final == nil && (100...199).contains(status) && status != 101:
                if interims.count < HTTPResponse.interimLimit { interims.append(part) }
            case .response where final == nil:
                final = part
            case .body(let bytes) where final != nil:
                body = bytes
            case .end where final != nil:
                ended = true
                return
            default:
                return
            }
        }
    }

    init(_ response: HTTPResponse) {
        interims = response.interims.map(HTTPOutcome.part)
        final = HTTPOutcome.part(response.head)
        body = response.body
        ended = true
    }
}

/// Reads the first exchange with `HTTPClientStream` and compares with the parser's reading of it alone.
private func checkClientStream(
    _ bytes: [UInt8], limits: HTTPLimits, method: HTTPMethod, choices: inout DerivedChoices
) {
    var parser = HTTP1Parser(role: .client, limits: limits)
    parser.expectResponse(to: method)
    let expected = FirstExchange(HTTPOutcome.run(parser, [bytes[...]]))
    let client = HTTPClientStream(
        stream: MemoryStream(choices.chunks(bytes, maxChunk: 1 + choices.number(below: 512))), limits: limits)
    let read: FirstExchange?
    do {
        read = FirstExchange(
            try client.readResponses(to: method, progressTimeout: .seconds(3600), bodyLimit: .keepFirst(.max)))
    } catch {
        read = nil
    }
    if let read {
        invariant(read == expected, "the stream read \(read), the parser \(expected)")
    } else {
        invariant(!expected.ended || expected.final == nil, "the stream failed, the parser read \(expected)")
    }
}
