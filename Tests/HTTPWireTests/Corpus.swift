import HTTPWire
import Testing

/// One valid byte stream of the test corpus and what the parser needs to read it.
struct CorpusEntry: Sendable, CustomTestStringConvertible {
    let name: String
    let role: HTTP1Parser.Role
    let bytes: [UInt8]
    /// Client role: the methods of the requests answered, in order.
    var methods: [HTTPMethod] = []
    /// Several messages in one stream (pipelining); left out of the truncation test, whose rule is per message.
    var isPipelined = false
    /// The connection's end completes the exchange once the final head is in (read until close, or upgrade).
    var endsWithConnection = false

    var testDescription: String { name }

    func parser(limits: HTTPLimits = HTTPLimits()) -> HTTP1Parser {
        var parser = HTTP1Parser(role: role, limits: limits)
        for method in methods { parser.expectResponse(to: method) }
        return parser
    }
}

/// The bytes of `text`, whose lines are written with `\r\n` explicitly.
func wire(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// Valid messages: RFC 9112 examples and resumable-upload traffic (draft-ietf-httpbis-resumable-upload).
enum Corpus {
    static let requests: [CorpusEntry] = [
        CorpusEntry(
            name: "origin-form GET (RFC 9112 §3.2.1)", role: .server,
            bytes: wire("GET /where?q=now HTTP/1.1\r\nHost: www.example.org\r\n\r\n")),
        CorpusEntry(
            name: "absolute-form GET (RFC 9112 §3.2.2)", role: .server,
            bytes: wire(
                "GET http://www.example.org/pub/WWW/TheProject.html HTTP/1.1\r\nHost: www.example.org\r\n\r\n")),
        CorpusEntry(
            name: "authority-form CONNECT (RFC 9112 §3.2.3)", role: .server,
            bytes: wire("CONNECT www.example.com:80 HTTP/1.1\r\nHost: www.example.com\r\n\r\n")),
        CorpusEntry(
            name: "asterisk-form OPTIONS (RFC 9112 §3.2.4)", role: .server,
            bytes: wire("OPTIONS * HTTP/1.1\r\nHost: www.example.org:8001\r\n\r\n")),
        CorpusEntry(
            name: "upload creation, interop 6, complete", role: .server,
            bytes: wire(
                "POST /uploads HTTP/1.1\r\nHost: upload.example.com\r\nUpload-Draft-Interop-Version: 6\r\n"
                    + "Upload-Complete: ?1\r\nContent-Type: application/octet-stream\r\nContent-Length: 11\r\n\r\n"
                    + "hello world")),
        CorpusEntry(
            name: "upload append PATCH", role: .server,
            bytes: wire(
                "PATCH /uploads/abc HTTP/1.1\r\nHost: upload.example.com\r\nContent-Type: application/partial-upload\r\n"
                    + "Upload-Offset: 11\r\nUpload-Complete: ?0\r\nContent-Length: 5\r\n"
                    + "Upload-Draft-Interop-Version: 6\r\n\r\n12345")),
        CorpusEntry(
            name: "chunked request with extensions and trailers (RFC 9112 §7.1)", role: .server,
            bytes: wire(
                "POST /uploads HTTP/1.1\r\nHost: upload.example.com\r\nTransfer-Encoding: chunked\r\n"
                    + "Trailer: Expires\r\n\r\n4\r\nWiki\r\n5;name=value;quoted=\"a \\\" b\"\r\npedia\r\n"
                    + "E ; last\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: Wed, 21 Oct 2015 07:28:00 GMT\r\n\r\n")),
        CorpusEntry(
            name: "HTTP/1.0 request without Host", role: .server,
            bytes: wire("GET / HTTP/1.0\r\nUser-Agent: test\r\n\r\n")),
        CorpusEntry(
            name: "HEAD offset retrieval", role: .server,
            bytes: wire("HEAD /uploads/abc HTTP/1.1\r\nHost: a\r\nUpload-Draft-Interop-Version: 6\r\n\r\n")),
        CorpusEntry(
            name: "identical Content-Length values", role: .server,
            bytes: wire("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\ncontent-length: 3\r\n\r\nabc")),
        CorpusEntry(
            name: "empty value, tabs and obs-text", role: .server,
            bytes: wire("GET / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\nX-Tabs:\t spaced \tvalue\t\r\n")
                + [0x58, 0x2D, 0x4F, 0x62, 0x73, 0x3A, 0x20, 0x63, 0xFF, 0xE9, 0x0D, 0x0A, 0x0D, 0x0A]),
        CorpusEntry(
            name: "pipelined GET, POST, DELETE", role: .server,
            bytes: wire(
                "GET /a HTTP/1.1\r\nHost: a\r\n\r\nPOST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody"
                    + "DELETE /uploads/abc HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
            isPipelined: true),
    ]

    static let responses: [CorpusEntry] = [
        CorpusEntry(
            name: "two 104s then 201 (upload creation)", role: .client,
            bytes: wire(
                "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Draft-Interop-Version: 6\r\n"
                    + "Location: https://upload.example.com/uploads/abc\r\n\r\n"
                    + "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Draft-Interop-Version: 6\r\n"
                    + "Upload-Offset: 5\r\n\r\n"
                    + "HTTP/1.1 201 Created\r\nLocation: https://upload.example.com/uploads/abc\r\n"
                    + "Upload-Offset: 11\r\nUpload-Complete: ?1\r\nContent-Length: 0\r\n\r\n"),
            methods: [.post]),
        CorpusEntry(
            name: "204 to HEAD (offset retrieval)", role: .client,
            bytes: wire(
                "HTTP/1.1 204 No Content\r\nUpload-Offset: 11\r\nUpload-Complete: ?0\r\nCache-Control: no-store\r\n\r\n"
            ),
            methods: [.head]),
        CorpusEntry(
            name: "200 to HEAD with Content-Length", role: .client,
            bytes: wire("HTTP/1.1 200 OK\r\nContent-Length: 1024\r\nContent-Type: text/plain\r\n\r\n"),
            methods: [.head]),
        CorpusEntry(
            name: "304 with Content-Length", role: .client,
            bytes: wire("HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nContent-Length: 100\r\n\r\n"),
            methods: [.get]),
        CorpusEntry(
            name: "chunked response with trailers", role: .client,
            bytes: wire(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n"
                    + "10\r\n1234567890abcdef\r\n0\r\nDigest: sha-256=abc\r\nServer-Timing: total;dur=1\r\n\r\n"),
            methods: [.get]),
        CorpusEntry(
            name: "409 with problem body", role: .client,
            bytes: wire(
                "HTTP/1.1 409 Conflict\r\nContent-Type: application/problem+json\r\nUpload-Offset: 7\r\n"
                    + "Content-Length: 49\r\n\r\n{\"type\":\"mismatching-upload-offset\",\"offset\":7}\n\n"),
            methods: [.patch]),
        CorpusEntry(
            name: "100 Continue then 200", role: .client,
            bytes: wire("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
            methods: [.put]),
        CorpusEntry(
            name: "read until close (HTTP/1.0)", role: .client,
            bytes: wire("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello until the connection closes"),
            methods: [.get], endsWithConnection: true),
        CorpusEntry(
            name: "gzip without chunked: read until close", role: .client,
            bytes: wire("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\ncompressed"),
            methods: [.get], endsWithConnection: true),
        CorpusEntry(
            name: "101 Switching Protocols then opaque bytes", role: .client,
            bytes: wire(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                    + "\u{1}opaque HTTP/1.1 200 OK\r\n\r\n"),
            methods: [.get], endsWithConnection: true),
        CorpusEntry(
            name: "200 to CONNECT then tunnel", role: .client,
            bytes: wire("HTTP/1.1 200 Connection Established\r\n\r\n\u{16}\u{3}\u{1}tls bytes"),
            methods: [.connect], endsWithConnection: true),
        CorpusEntry(
            name: "status line with empty reason", role: .client,
            bytes: wire("HTTP/1.1 200 \r\nContent-Length: 1\r\n\r\nx"), methods: [.get]),
        CorpusEntry(
            name: "status line without reason", role: .client,
            bytes: wire("HTTP/1.1 500\r\nContent-Length: 0\r\n\r\n"), methods: [.post]),
        CorpusEntry(
            name: "pipelined responses to GET, HEAD, DELETE", role: .client,
            bytes: wire(
                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"
                    + "HTTP/1.1 204 No Content\r\n\r\n"),
            methods: [.get, .head, .delete], isPipelined: true),
    ]

    static let all = requests + responses
}
