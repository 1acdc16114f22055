import Glibc
import HTTPWire
import SquallNet
import TLSKit
import TestSupport
import Testing
import UploadServer

/// The server's `ListenerLimits`: the first head's deadline counts from the accept (a silent peer, a late first byte
/// and an unfinished TLS handshake included), kept-alive connections close when idle, and a connection over the limit
/// gets 503 instead of waiting unseen. Timings are loose: each bound is far from the behaviour it rules out.
@Suite struct UploadServerLimitsTests {
    static func fixture(
        _ transport: ServerFixture.Transport = .http, head: Duration = .seconds(10), idle: Duration = .seconds(60),
        connections: Int = 1024
    ) throws -> ServerFixture {
        try ServerFixture(transport: transport) { configuration in
            configuration.limits = ListenerLimits(headTimeout: head, idleTimeout: idle, maximumConnections: connections)
        }
    }

    @Test(arguments: ServerFixture.Transport.allCases)
    func aConnectionThatSendsNothingGets408AtTheHeadTimeout(transport: ServerFixture.Transport) throws {
        let fixture = try Self.fixture(transport, head: .milliseconds(500))
        let started = ContinuousClock.now
        let client = try fixture.client()
        defer { client.close() }
        client.expectAnyResponse()
        #expect(try client.readResponse().status == 408)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(5))
        #expect(client.serverClosed())
    }

    /// The first byte 700 ms in: the head is still due 1 s after the accept, not 1 s after that byte.
    @Test func aFirstByteThatComesLateIsCutAtTheSameDeadline() throws {
        let fixture = try Self.fixture(head: .seconds(1))
        let started = ContinuousClock.now
        let client = try fixture.client()
        defer { client.close() }
        // The server says nothing while the client is silent for 700 ms.
        #expect(client.stream.staysSilent(for: .milliseconds(700)))
        try client.send(bytes: Array("POST /upload HTTP/1.1\r\n".utf8))
        client.expectAnyResponse()
        #expect(try client.readResponse().status == 408)
        #expect(ContinuousClock.now - started < .milliseconds(1500))
    }

    @Test func aTLSHandshakeThatNeverFinishesIsClosedWithoutAByte() throws {
        let fixture = try Self.fixture(.https, head: .milliseconds(300))
        let address = try SocketAddress(parsing: String(fixture.server.url.split(separator: "/").last!))
        let started = ContinuousClock.now
        let stream = PlainStream(socket: try TCPConnector.connect(to: address))
        defer { stream.close() }
        let bytes = try? stream.readToEnd(limit: 1024, deadline: .now + .seconds(10))
        #expect(bytes == nil || bytes == [])
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aKeptAliveConnectionIdleBetweenRequestsIsClosedQuietly() throws {
        let fixture = try Self.fixture(idle: .milliseconds(400))
        let client = try fixture.client()
        defer { client.close() }
        #expect(try client.request(.get, "/_squall/uploads").status == 200)
        let answered = ContinuousClock.now
        #expect(client.serverClosed())
        let elapsed = ContinuousClock.now - answered
        #expect(elapsed >= .milliseconds(350) && elapsed < .seconds(5))
    }

    @Test func theConnectionOverTheLimitGets503SayingWhyAndWhichFlagRaisesIt() throws {
        let fixture = try Self.fixture(connections: 2)
        // Two kept-alive connections, each answered once: both are being served.
        let served = try (0..<2).map { _ in try fixture.client() }
        defer { for client in served { client.close() } }
        for client in served { #expect(try client.request(.get, "/_squall/uploads").status == 200) }
        let extra = try fixture.client()
        defer { extra.close() }
        let refused = try extra.request(.get, "/_squall/uploads")
        #expect(refused.status == 503)
        #expect(refused["Connection"] == "close")
        #expect(refused["Retry-After"] == "1")
        let text = String(decoding: refused.body, as: UTF8.self)
        #expect(text.contains("2 connections are open") && text.contains("--max-connections"))
        #expect(extra.serverClosed())
    }
}
