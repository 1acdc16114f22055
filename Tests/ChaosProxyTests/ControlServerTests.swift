import ChaosProxy
import ControlAPI
import Foundation
import HTTPWire
import SquallNet
import Testing

/// `ControlServer` over 127.0.0.1:0 with plain sockets: keep-alive, the token, the body limit, bad HTTP.
struct ControlServerTests {
    /// A response read off the wire.
    struct Response {
        var head: ResponseHead
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A raw client connection: writes bytes as given, reads responses with `HTTP1Parser(role: .client)`.
    final class Connection {
        let stream: PlainStream
        private var parser = HTTP1Parser(role: .client)
        private var events: [HTTP1Event] = []

        init(_ address: SocketAddress) throws {
            stream = PlainStream(socket: try TCPConnector.connect(to: address))
            try stream.socket.setNonBlocking(true)
        }

        deinit { stream.close() }

        func send(_ text: String) throws {
            try stream.writeAll(Array(text.utf8), deadline: .now + .seconds(10))
        }

        /// Tells the response parser that a request with `method` was sent.
        func expect(_ method: String) {
            parser.expectResponse(to: HTTPMethod(rawValue: method))
        }

        func request(_ method: String, _ target: String, _ fields: [String] = [], body: String = "") throws {
            expect(method)
            let lines =
                ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1"] + fields
                + (body.isEmpty ? [] : ["Content-Length: \(body.utf8.count)"])
            try send(lines.joined(separator: "\r\n") + "\r\n\r\n" + body)
        }

        /// The next complete response (interim ones included).
        func response() throws -> Response {
            var head: ResponseHead?
            var body: [UInt8] = []
            while true {
                while !events.isEmpty {
                    switch events.removeFirst() {
                    case .responseHead(let received) where received.isInformational:
                        return Response(head: received, body: [])
                    case .responseHead(let received): head = received
                    case .body(let bytes): body += bytes
                    case .end: return Response(head: try #require(head), body: body)
                    default: continue
                    }
                }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = try buffer.withUnsafeMutableBytes {
                    try stream.readSome(into: $0, deadline: .now + .seconds(10))
                }
                events += count == 0 ? try parser.finish() : try parser.feed(buffer[..<count])
                if count == 0 && events.isEmpty { throw NetError(.closed, "closed before a response") }
            }
        }

        /// Whether the server closed: the next read finds the end of the stream.
        func isClosedByServer() throws -> Bool {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = try buffer.withUnsafeMutableBytes {
                try stream.readSome(into: $0, deadline: .now + .seconds(10))
            }
            return count == 0
        }
    }

    static func loopback() throws -> SocketAddress { try SocketAddress(parsing: "127.0.0.1:0") }

    @Test func aNonLoopbackAddressIsRefused() throws {
        let address = try SocketAddress(parsing: "0.0.0.0:0")
        #expect(
            throws: ControlServerError(
                .notLoopback,
                "the control API listens on loopback only (127.0.0.1 or ::1) unless it has a token, not 0.0.0.0:0")
        ) {
            try ControlServer(address: address, handler: ControlAPIHandler())
        }
    }

    /// With a token, any address is allowed (a phone on the network reaches the CA profile and the dashboard asks
    /// for the token); checked on the rule itself, so that no test binds an address off loopback.
    @Test func aNonLoopbackAddressIsAllowedWithAToken() throws {
        for text in ["0.0.0.0:8474", "192.168.1.20:8474", "[::]:8474"] {
            let address = try SocketAddress(parsing: text)
            #expect(ControlServer.refusal(of: address, tokenRequired: true) == nil, "\(text)")
            #expect(ControlServer.refusal(of: address, tokenRequired: false) != nil, "\(text)")
        }
        for text in ["127.0.0.1:0", "127.0.0.2:0", "[::1]:0"] {
            #expect(ControlServer.refusal(of: try SocketAddress(parsing: text), tokenRequired: false) == nil)
        }
    }

    @Test func itBindsAnEphemeralPortAndStops() throws {
        let server = try ControlServer(address: try Self.loopback(), handler: ControlAPIHandler())
        #expect(server.address.port != 0)
        #expect(server.address.host == "127.0.0.1")
        server.stop()
        #expect(throws: NetError.self) { try Connection(server.address) }
    }

    @Test func requestsShareAKeptAliveConnection() throws {
        let server = try ControlServer(address: try Self.loopback(), handler: ControlAPIHandler())
        defer { server.stop() }
        let connection = try Connection(server.address)
        try connection.request("GET", "/version")
        let first = try connection.response()
        #expect(first.head.status == 200)
        #expect(first.text == #"{"version":"2.9.0"}"#)
        try connection.request("POST", "/proxies", body: #"{"name": "db", "upstream": "127.0.0.1:9000"}"#)
        #expect(try connection.response().head.status == 201)
        try connection.request("GET", "/proxies/db", ["Connection: close"])
        let last = try connection.response()
        #expect(last.head.status == 200)
        #expect(last.head.fields["Connection"] == "close")
        #expect(try connection.isClosedByServer())
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try ControlServer(address: try Self.loopback(), handler: ControlAPIHandler())
        defer { server.stop() }
        let connection = try Connection(server.address)
        connection.expect("GET")
        connection.expect("DELETE")
        try connection.send(
            "GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nDELETE /proxies/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let responses = [try connection.response(), try connection.response()]
        #expect(responses.map(\.head.status) == [200, 404])
    }

    @Test func theTokenIsRequired() throws {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(token: "s3cret"))
        let server = try ControlServer(address: try Self.loopback(), handler: handler)
        defer { server.stop() }
        let connection = try Connection(server.address)
        try connection.request("GET", "/proxies")
        let refused = try connection.response()
        #expect(refused.head.status == 401)
        #expect(refused.head.fields["WWW-Authenticate"] == #"Bearer realm="squall""#)
        try connection.request("GET", "/proxies", ["Authorization: Bearer s3cret"])
        #expect(try connection.response().head.status == 200)
    }

    @Test func malformedHTTPIs400AndCloses() throws {
        let handler = ControlAPIHandler()
        let server = try ControlServer(address: try Self.loopback(), handler: handler)
        defer { server.stop() }
        let connection = try Connection(server.address)
        try connection.send("GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Field: x\r\n\r\n")
        let reply = try connection.response()
        #expect(reply.head.status == 400)
        #expect(reply.head.fields["Connection"] == "close")
        #expect(reply.text.contains("malformed HTTP request"))
        #expect(try connection.isClosedByServer())
        #expect(handler.generation == 0)
    }

    @Test(arguments: [false, true])
    func aBodyOverTheLimitIs413AndChangesNothing(chunked: Bool) throws {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(maxBodyBytes: 40))
        let server = try ControlServer(address: try Self.loopback(), handler: handler)
        defer { server.stop() }
        let connection = try Connection(server.address)
        let body = #"{"name": "db", "upstream": "127.0.0.1:9000", "enabled": true}"#
        let framing =
            chunked
            ? "Transfer-Encoding: chunked\r\n\r\n\(String(body.utf8.count, radix: 16))\r\n\(body)\r\n0\r\n\r\n"
            : "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        try connection.send("POST /proxies HTTP/1.1\r\nHost: 127.0.0.1\r\n" + framing)
        let reply = try connection.response()
        #expect(reply.head.status == 413)
        #expect(reply.text.contains("request body over 40 bytes"))
        #expect(try connection.isClosedByServer())
        #expect(handler.proxies.isEmpty)
    }

    @Test func expectContinueGetsAnInterimResponse() throws {
        let server = try ControlServer(address: try Self.loopback(), handler: ControlAPIHandler())
        defer { server.stop() }
        let connection = try Connection(server.address)
        let body = #"{"name": "db", "upstream": "127.0.0.1:9000"}"#
        connection.expect("POST")
        try connection.send(
            "POST /proxies HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        )
        #expect(try connection.response().head.status == 100)
        try connection.send(body)
        #expect(try connection.response().head.status == 201)
    }
}
