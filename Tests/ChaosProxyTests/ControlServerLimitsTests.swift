import ChaosProxy
import ControlAPI
import SquallNet
import Testing

/// The control API's `ListenerLimits`: a silent connection gets 408 at the head timeout, an idle kept-alive one
/// closes, one over the limit gets 503.
@Suite struct ControlServerLimitsTests {
    typealias Connection = ControlServerTests.Connection

    static func server(head: Duration = .seconds(10), idle: Duration = .seconds(60), connections: Int = 64) throws
        -> ControlServer
    {
        try ControlServer(
            address: try ControlServerTests.loopback(), handler: ControlAPIHandler(),
            limits: ListenerLimits(headTimeout: head, idleTimeout: idle, maximumConnections: connections))
    }

    @Test func aConnectionThatSendsNothingGets408AtTheHeadTimeout() throws {
        let server = try Self.server(head: .milliseconds(300))
        defer { server.stop() }
        let started = ContinuousClock.now
        let connection = try Connection(server.address)
        connection.expect("GET")
        let answer = try connection.response()
        #expect(answer.head.status == 408)
        #expect(answer.head.fields["Connection"] == "close")
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(try connection.isClosedByServer())
    }

    @Test func aKeptAliveConnectionIdleBetweenRequestsIsClosed() throws {
        let server = try Self.server(idle: .milliseconds(300))
        defer { server.stop() }
        let connection = try Connection(server.address)
        try connection.request("GET", "/version")
        #expect(try connection.response().head.status == 200)
        #expect(try connection.isClosedByServer())
    }

    @Test func theConnectionOverTheLimitGets503() throws {
        let server = try Self.server(connections: 1)
        defer { server.stop() }
        let first = try Connection(server.address)
        try first.request("GET", "/version")
        #expect(try first.response().head.status == 200)
        let second = try Connection(server.address)
        try second.request("GET", "/version")
        let refused = try second.response()
        #expect(refused.head.status == 503)
        #expect(refused.head.fields["Connection"] == "close")
        #expect(refused.text.contains("--api-max-connections"))
    }
}
