import HTTPWire
import TestSupport
import Testing

/// One malformed stream and the error code it must be rejected with.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let role: HTTP1Parser.Role
    let bytes: [UInt8]
    let code: HTTPWireError.Code
    var limits = HTTPLimits()

    var testDescription: String { name }

    init(_ name: String, _ text: String, _ code: HTTPWireError.Code, role: HTTP1Parser.Role = .server) {
        self.init(name, wire(text), code, role: role)
    }

    init(_ name: String, _ bytes: [UInt8], _ code: HTTPWireError.Code, role: HTTP1Parser.Role = .server) {
        self.name = name
        self.role = role
        self.bytes = bytes
        self.code = code
    }

    func with(_ limits: HTTPLimits) -> MalformedCase {
        var copy = self
        copy.limits = limits
        return copy
    }
}

/// Malformed input is rejected with the expected code, whole or one byte at a time, never crashing or looping;
/// the parser then stays failed.
struct MalformedInputTests {
    private static let head = "POST / HTTP/1.1\r\nHost: a\r\n"
    private static let chunked = head + "Transfer-Encoding: chunked\r\n\r\n"

    static let fieldCases: [MalformedCase] = [
        MalformedCase("obs-fold", head + "X: a\r\n b\r\n\r\n", .obsoleteLineFolding),
        MalformedCase("whitespace after the start line", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", .obsoleteLineFolding),
        MalformedCase("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", .whitespaceBeforeColon),
        MalformedCase("tab before colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", .whitespaceBeforeColon),
        MalformedCase("space inside a name", head + "Upload Offset: 1\r\n\r\n", .invalidFieldName),
        MalformedCase("parenthesis in a name", head + "X(y): 1\r\n\r\n", .invalidFieldName),
        MalformedCase("empty name", head + ": 1\r\n\r\n", .invalidFieldName),
        MalformedCase("no colon", head + "Upload-Offset\r\n\r\n", .invalidFieldName),
        MalformedCase(
            "non-ASCII name", wire(head) + [0xC3, 0xA9, 0x3A, 0x20, 0x31] + wire("\r\n\r\n"), .invalidFieldName),
        MalformedCase("CR in a value", head + "X: a\rb\r\n\r\n", .bareCarriageReturn),
        MalformedCase("CR before CRLF", head + "X: a\r\r\n\r\n", .bareCarriageReturn),
        MalformedCase("NUL in a value", head + "X: a\u{0}b\r\n\r\n", .invalidFieldValue),
        MalformedCase("control byte in a value", head + "X: a\u{1}b\r\n\r\n", .invalidFieldValue),
        MalformedCase("DEL in a value", head + "X: a\u{7F}\r\n\r\n", .invalidFieldValue),
        MalformedCase("bare LF ending a field line", head + "X: a\n\r\n", .bareLineFeed),
        MalformedCase("bare LF ending the request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", .bareLineFeed),
        MalformedCase("bare LF ending the head", head + "\n", .bareLineFeed),
        MalformedCase("missing Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", .missingHost),
        MalformedCase("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .duplicateHost),
    ]

    static let startLineCases: [MalformedCase] = [
        MalformedCase("token-less method", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidMethod),
        MalformedCase("leading space", " GET / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidMethod),
        MalformedCase("HTTP/0.9 request", "GET /\r\n\r\n", .invalidVersion),
        MalformedCase("two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        MalformedCase("space in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        MalformedCase("fragment in target", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        MalformedCase("asterisk with GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        MalformedCase("origin-form CONNECT", "CONNECT /a HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        MalformedCase("scheme-less target", "GET example.com HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        MalformedCase("CR in target", "GET /a\rb HTTP/1.1\r\nHost: a\r\n\r\n", .bareCarriageReturn),
        MalformedCase("lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", .invalidVersion),
        MalformedCase("two-digit major", "GET / HTTP/11.1\r\nHost: a\r\n\r\n", .invalidVersion),
        MalformedCase("three-part version", "GET / HTTP/1.1.1\r\nHost: a\r\n\r\n", .invalidVersion),
        MalformedCase("version without minor", "GET / HTTP/1\r\nHost: a\r\n\r\n", .invalidVersion),
        MalformedCase("letter in version", "GET / HTTP/1.x\r\nHost: a\r\n\r\n", .invalidVersion),
        MalformedCase("trailing space after version", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", .invalidVersion),
        MalformedCase("HTTP/2.0 request", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .unsupportedVersion),
        MalformedCase("HTTP/0.9 version", "GET / HTTP/0.9\r\n\r\n", .unsupportedVersion),
        MalformedCase("status 99", "HTTP/1.1 99 Low\r\n\r\n", .invalidStatus, role: .client),
        MalformedCase("status 099", "HTTP/1.1 099 Low\r\n\r\n", .invalidStatus, role: .client),
        MalformedCase("status 1000", "HTTP/1.1 1000 High\r\n\r\n", .invalidStatus, role: .client),
        MalformedCase("status 2xx", "HTTP/1.1 2xx OK\r\n\r\n", .invalidStatus, role: .client),
        MalformedCase("status 20", "HTTP/1.1 20\r\n\r\n", .invalidStatus, role: .client),
        MalformedCase("response version HTTP/1.1x", "HTTP/1.1x 200 OK\r\n\r\n", .invalidVersion, role: .client),
        MalformedCase("response version HTTP/2", "HTTP/2 200 OK\r\n\r\n", .invalidVersion, role: .client),
        MalformedCase("response version HTTP/3.0", "HTTP/3.0 200 OK\r\n\r\n", .unsupportedVersion, role: .client),
        MalformedCase("empty line before a status line", "\r\nHTTP/1.1 200 OK\r\n\r\n", .invalidVersion, role: .client),
        MalformedCase("control byte in reason", "HTTP/1.1 200 O\u{1}K\r\n\r\n", .invalidReason, role: .client),
        MalformedCase("CR in reason", "HTTP/1.1 200 O\rK\r\n\r\n", .bareCarriageReturn, role: .client),
    ]

    static let framingCases: [MalformedCase] = [
        MalformedCase(
            "Content-Length and Transfer-Encoding",
            head + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            .contentLengthWithTransferEncoding),
        MalformedCase(
            "Transfer-Encoding then Content-Length",
            head + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", .contentLengthWithTransferEncoding),
        MalformedCase(
            "response with both",
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            .contentLengthWithTransferEncoding, role: .client),
        MalformedCase(
            "request coding not ending in chunked", head + "Transfer-Encoding: gzip\r\n\r\n",
            .unsupportedTransferEncoding),
        MalformedCase(
            "coding after chunked", head + "Transfer-Encoding: chunked, gzip\r\n\r\n",
            .unsupportedTransferEncoding),
        MalformedCase(
            "chunked in two fields then gzip",
            head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferEncoding),
        MalformedCase(
            "chunked twice", head + "Transfer-Encoding: chunked, chunked\r\n\r\n", .unsupportedTransferEncoding),
        MalformedCase("unknown coding", head + "Transfer-Encoding: foo, chunked\r\n\r\n", .unsupportedTransferEncoding),
        // A known coding before chunked: nothing here decodes it, so it is refused (501), not stored coded.
        MalformedCase(
            "gzip then chunked", head + "Transfer-Encoding: gzip, CHUNKED\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            .unsupportedTransferEncoding),
        MalformedCase(
            "coding with parameter", head + "Transfer-Encoding: chunked;q=1\r\n\r\n",
            .unsupportedTransferEncoding),
        MalformedCase("empty Transfer-Encoding", head + "Transfer-Encoding:\r\n\r\n", .unsupportedTransferEncoding),
        MalformedCase("identity coding", head + "Transfer-Encoding: identity\r\n\r\n", .unsupportedTransferEncoding),
        MalformedCase(
            "Transfer-Encoding in HTTP/1.0",
            "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .transferEncodingInHTTP10),
        MalformedCase(
            "Transfer-Encoding in an HTTP/1.0 response",
            "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", .transferEncodingInHTTP10, role: .client),
        MalformedCase(
            "two Content-Length values", head + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
            .conflictingContentLength),
        MalformedCase("Content-Length list", head + "Content-Length: 5, 6\r\n\r\n", .conflictingContentLength),
        MalformedCase("Content-Length +5", head + "Content-Length: +5\r\n\r\n", .invalidContentLength),
        MalformedCase("Content-Length -5", head + "Content-Length: -5\r\n\r\n", .invalidContentLength),
        MalformedCase("Content-Length with inner space", head + "Content-Length: 1 0\r\n\r\n", .invalidContentLength),
        MalformedCase("Content-Length in hex", head + "Content-Length: 0x10\r\n\r\n", .invalidContentLength),
        MalformedCase("Content-Length 1e3", head + "Content-Length: 1e3\r\n\r\n", .invalidContentLength),
        MalformedCase("empty Content-Length", head + "Content-Length:\r\n\r\n", .invalidContentLength),
        MalformedCase(
            "Content-Length list with an empty element", head + "Content-Length: 5,,5\r\n\r\n",
            .invalidContentLength),
        MalformedCase(
            "Content-Length above Int64", head + "Content-Length: 9223372036854775808\r\n\r\n",
            .invalidContentLength),
        MalformedCase(
            "Content-Length far above Int64", head + "Content-Length: 99999999999999999999999\r\n\r\n",
            .invalidContentLength),
    ]

    static let chunkCases: [MalformedCase] = [
        MalformedCase("negative chunk size", chunked + "-5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        MalformedCase("0x chunk size", chunked + "0x5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        MalformedCase("empty chunk size", chunked + "\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        MalformedCase("space before chunk size", chunked + " 5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        MalformedCase("junk after chunk size", chunked + "5x\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        MalformedCase("trailing space after chunk size", chunked + "5 \r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        MalformedCase("chunk size above Int64", chunked + "8000000000000000\r\n", .chunkSizeOverflow),
        MalformedCase("chunk size of 17 hex digits", chunked + "FFFFFFFFFFFFFFFFF\r\n", .chunkSizeOverflow),
        MalformedCase("chunk extension without name", chunked + "5;\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
        MalformedCase("chunk extension without value", chunked + "5;a=\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
        MalformedCase(
            "unterminated quoted extension", chunked + "5;a=\"b\r\nhello\r\n0\r\n\r\n",
            .invalidChunkExtension),
        MalformedCase("junk after chunk data", chunked + "5\r\nhelloXX\r\n0\r\n\r\n", .invalidChunkTerminator),
        MalformedCase("CR then junk after chunk data", chunked + "5\r\nhello\rX0\r\n\r\n", .bareCarriageReturn),
        MalformedCase("bare LF after chunk data", chunked + "5\r\nhello\n0\r\n\r\n", .bareLineFeed),
        MalformedCase("obs-fold in trailers", chunked + "0\r\nX: a\r\n b\r\n\r\n", .obsoleteLineFolding),
        MalformedCase("NUL in a trailer", chunked + "0\r\nX: \u{0}\r\n\r\n", .invalidFieldValue),
        MalformedCase("bare LF in trailers", chunked + "0\r\nX: a\n\r\n", .bareLineFeed),
    ]

    static let limitCases: [MalformedCase] = [
        MalformedCase("head too large", head + "X: " + String(repeating: "a", count: 200) + "\r\n\r\n", .headTooLarge)
            .with(HTTPLimits(maxHeadSize: 128)),
        MalformedCase("too many fields", head + String(repeating: "X: 1\r\n", count: 4) + "\r\n", .tooManyFields)
            .with(HTTPLimits(maxFieldCount: 4)),
        MalformedCase(
            "request line too long", "GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\n\r\n",
            .startLineTooLong
        ).with(HTTPLimits(maxLineLength: 64)),
        MalformedCase("endless request line", "GET /" + String(repeating: "a", count: 100), .startLineTooLong)
            .with(HTTPLimits(maxLineLength: 64)),
        MalformedCase(
            "field line too long", head + "X: " + String(repeating: "a", count: 100) + "\r\n\r\n",
            .fieldLineTooLong
        ).with(HTTPLimits(maxLineLength: 64)),
        MalformedCase("endless empty lines", String(repeating: "\r\n", count: 100), .headTooLarge)
            .with(HTTPLimits(maxHeadSize: 128)),
        MalformedCase(
            "chunk extensions too long", chunked + "5;" + String(repeating: "a", count: 100) + "\r\n",
            .chunkLineTooLong
        ).with(HTTPLimits(maxChunkLineLength: 64)),
        MalformedCase("endless chunk size", chunked + String(repeating: "0", count: 100), .chunkLineTooLong)
            .with(HTTPLimits(maxChunkLineLength: 64)),
        MalformedCase(
            "trailers too large", chunked + "0\r\n" + String(repeating: "X: 1234567890\r\n", count: 20),
            .trailersTooLarge
        ).with(HTTPLimits(maxTrailerSize: 128)),
        MalformedCase(
            "too many trailer fields", chunked + "0\r\n" + String(repeating: "X: 1\r\n", count: 3) + "\r\n",
            .tooManyFields
        ).with(HTTPLimits(maxFieldCount: 2)),
    ]

    static let all = fieldCases + startLineCases + framingCases + chunkCases + limitCases

    private func parser(_ malformed: MalformedCase) -> HTTP1Parser {
        var parser = HTTP1Parser(role: malformed.role, limits: malformed.limits)
        parser.expectResponse(to: .get)
        return parser
    }

    @Test(arguments: all)
    func rejectsWithTheExpectedCode(_ malformed: MalformedCase) {
        let whole = Harness.run(parser(malformed), [malformed.bytes], finishing: false)
        #expect(whole.error?.code == malformed.code, "\(whole)")
        let offset = whole.error?.offset ?? -1
        #expect((0...malformed.bytes.count).contains(offset), "offset \(offset)")
    }

    @Test(arguments: all)
    func rejectsAlikeOneByteAtATime(_ malformed: MalformedCase) {
        let whole = Harness.run(parser(malformed), [malformed.bytes], finishing: false)
        let bytewise = Harness.run(parser(malformed), ByteSplits.oneByteAtATime(malformed.bytes), finishing: false)
        #expect(bytewise == whole, "\(bytewise)")
        #expect(bytewise.error?.code == malformed.code)
    }

    @Test(arguments: all)
    func staysFailedAfterAnError(_ malformed: MalformedCase) {
        var parser = parser(malformed)
        var events: [HTTP1Event] = []
        let first = #expect(throws: HTTPWireError.self) { try parser.feed(malformed.bytes[...], into: &events) }
        let again = #expect(throws: HTTPWireError.self) { try parser.feed(wire("GET / HTTP/1.1\r\n")) }
        let atFinish = #expect(throws: HTTPWireError.self) { try parser.finish() }
        #expect(again == first)
        #expect(atFinish == first)
    }

    @Test func rejectsBytesAfterFinish() throws {
        var parser = HTTP1Parser(role: .server)
        _ = try parser.finish()
        let error = #expect(throws: HTTPWireError.self) { try parser.feed(wire("GET")) }
        #expect(error?.code == .dataAfterFinish)
    }

    @Test func limitsAreInclusive() throws {
        let request = wire("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        var exact = HTTP1Parser(role: .server, limits: HTTPLimits(maxHeadSize: request.count, maxLineLength: 16))
        #expect(try exact.feed(request).count == 2)
        var short = HTTP1Parser(role: .server, limits: HTTPLimits(maxHeadSize: request.count - 1))
        let error = #expect(throws: HTTPWireError.self) { try short.feed(request) }
        #expect(error?.code == .headTooLarge)
    }
}
