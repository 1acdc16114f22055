import Glibc
import HTTPExchange
import HTTPWire
import SquallNet
import TestSupport
import Testing

/// The server role: heads within limits and a deadline, Content-Length and chunked bodies streamed, the named
/// errors, responses written.
struct HTTPServerStreamTests {
    static let patience: Duration = .seconds(10)

    /// Every body part of the current request until its end, joined.
    static func body(_ server: HTTPServerStream) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while case .data(let part) = try server.nextBodyPart(timeout: patience) { bytes += part }
        return bytes
    }

    @Test func contentLengthAndChunkedBodiesStreamOnOneKeptAliveConnection() throws {
        let pair = try StreamPair()
        let server = HTTPServerStream(stream: pair.server, bufferSize: 4)
        try pair.clientSends("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789")
        try pair.clientSends(
            "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        let first = try #require(try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience))
        #expect(first.method == .put && first.target == "/a")
        #expect(try Self.body(server) == Array("0123456789".utf8))
        let second = try #require(try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience))
        #expect(second.target == "/b")
        #expect(try Self.body(server) == Array("abcde".utf8))
        #expect(server.keepAlive)
    }

    @Test func aHeadOverTheLimitsIsMalformedNamingTheLimit() throws {
        let pair = try StreamPair()
        let server = HTTPServerStream(stream: pair.server, limits: HTTPLimits(maxHeadSize: 64))
        try pair.clientSends("GET / HTTP/1.1\r\nHost: x\r\nX-Long: \(String(repeating: "v", count: 100))\r\n\r\n")
        let error = #expect(throws: HTTPExchangeError.self) {
            try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience)
        }
        #expect(error?.code == .malformed && error?.wireError?.code == .headTooLarge)
        #expect(error?.reason == "malformed")
    }

    @Test func aStartedHeadMustCompleteWithinTheHeadDeadline() throws {
        let pair = try StreamPair()
        let server = HTTPServerStream(stream: pair.server)
        try pair.clientSends("GET / HTTP/1.1\r\nHost:")
        let error = #expect(throws: HTTPExchangeError.self) {
            try server.nextHead(idleTimeout: Self.patience, headTimeout: .milliseconds(50))
        }
        #expect(error?.code == .headTimeout)
    }

    @Test func silenceOrACloseBeforeAnyHeadIsTheEndOfTheConnection() throws {
        let pair = try StreamPair()
        let server = HTTPServerStream(stream: pair.server)
        #expect(try server.nextHead(idleTimeout: .milliseconds(20), headTimeout: Self.patience) == nil)
        try pair.client.shutdownWrite(deadline: nil)
        #expect(try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience) == nil)
    }

    /// Found by fuzzing (Tools/fuzz.sh http-server): the start of the next head read with the previous request is
    /// a started head, which a close cuts (it was the end of the connection) and the head timeout bounds (it had
    /// the idle timeout); empty lines before a head and then a close are still the end of the connection.
    @Test func aHeadBegunInThePreviousRequestsReadIsAStartedHead() throws {
        let closed = try StreamPair()
        let server = HTTPServerStream(stream: closed.server)
        try closed.clientSends("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b")
        try closed.client.shutdownWrite(deadline: nil)
        #expect(try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience)?.target == "/a")
        let cut = #expect(throws: HTTPExchangeError.self) {
            try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience)
        }
        #expect(cut?.code == .closed)

        let slow = try StreamPair()
        let slowServer = HTTPServerStream(stream: slow.server)
        try slow.clientSends("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b")
        #expect(try slowServer.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience)?.target == "/a")
        let late = #expect(throws: HTTPExchangeError.self) {
            try slowServer.nextHead(idleTimeout: Self.patience, headTimeout: .milliseconds(50))
        }
        #expect(late?.code == .headTimeout)

        let blank = try StreamPair()
        try blank.clientSends("\r\n")
        try blank.client.shutdownWrite(deadline: nil)
        #expect(try HTTPServerStream(stream: blank.server).firstHead(by: .now + Self.patience) == nil)
    }

    /// The first head's deadline is fixed (counted from the accept by the caller): silence until it is late, and a
    /// first byte that comes late does not move it; a close before any byte is the end of the connection.
    @Test func theFirstHeadMustBeWholeByItsDeadlineHoweverLateItsFirstByte() throws {
        let silent = try StreamPair()
        let error = #expect(throws: HTTPExchangeError.self) {
            try HTTPServerStream(stream: silent.server).firstHead(by: .now + .milliseconds(50))
        }
        #expect(error?.code == .headTimeout)

        let late = try StreamPair()
        let server = HTTPServerStream(stream: late.server)
        let deadline = ContinuousClock.now + .milliseconds(400)
        // The first byte 250 ms in, then one every 100 ms: from the first byte, the head would have until 650 ms.
        let client = Handed(stream: late.client)
        let trickle = Background {
            for byte in Array("GET / ".utf8) {
                // The client's pause before each byte, watching the server: it answers nothing meanwhile.
                let pause: Duration = byte == UInt8(ascii: "G") ? .milliseconds(250) : .milliseconds(100)
                guard client.stream.staysSilent(for: pause) else { return }
                try client.stream.writeAll([byte], deadline: .now + Self.patience)
            }
        }
        let cut = #expect(throws: HTTPExchangeError.self) { try server.firstHead(by: deadline) }
        #expect(cut?.code == .headTimeout)
        #expect(ContinuousClock.now - deadline < .milliseconds(200))
        _ = try? trickle.wait()

        let gone = try StreamPair()
        try gone.client.shutdownWrite(deadline: nil)
        #expect(try HTTPServerStream(stream: gone.server).firstHead(by: .now + Self.patience) == nil)
    }

    @Test func aCloseInsideABodyIsClosedWithReasonEOF() throws {
        let pair = try StreamPair()
        let server = HTTPServerStream(stream: pair.server)
        try pair.clientSends("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234")
        try pair.client.shutdownWrite(deadline: nil)
        _ = try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience)
        let error = #expect(throws: HTTPExchangeError.self) { try Self.body(server) }
        #expect(error?.code == .closed && error?.reason == "eof")
    }

    @Test func collectBodyRefusesADeclaredOrAChunkedBodyOverItsLimit() throws {
        let pair = try StreamPair()
        let server = HTTPServerStream(stream: pair.server)
        try pair.clientSends("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n012345678")
        let declared = try #require(try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience))
        #expect(throws: HTTPExchangeError.self) {
            try server.collectBody(of: declared, limit: 8, timeout: Self.patience)
        }
        let other = try StreamPair()
        let chunkedServer = HTTPServerStream(stream: other.server)
        try other.clientSends(
            "PUT / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n4\r\n5678\r\n0\r\n\r\n")
        let chunked = try #require(try chunkedServer.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience))
        let error = #expect(throws: HTTPExchangeError.self) {
            try chunkedServer.collectBody(of: chunked, limit: 8, timeout: Self.patience)
        }
        #expect(error?.code == .bodyTooLarge)
    }

    @Test func collectBodyAnswersExpectContinueAndReturnsTheBody() throws {
        let pair = try StreamPair()
        let server = HTTPServerStream(stream: pair.server)
        try pair.clientSends("PUT / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc")
        let head = try #require(try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience))
        #expect(try server.collectBody(of: head, limit: 8, timeout: Self.patience) == Array("abc".utf8))
        try server.send(ResponseHead(status: 204, reason: "No Content"), timeout: Self.patience)
        var buffer = [UInt8](repeating: 0, count: 256)
        var received = ""
        while !received.hasSuffix("204 No Content\r\n\r\n") {
            let count = try buffer.withUnsafeMutableBytes {
                try pair.client.readSome(into: $0, deadline: .now + Self.patience)
            }
            received += String(decoding: buffer[..<count], as: UTF8.self)
        }
        #expect(received == "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
    }
}
