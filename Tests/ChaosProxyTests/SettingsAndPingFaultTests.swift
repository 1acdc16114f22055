import ChaosProxy
import FaultEngine
import HTTP2Wire
import TestSupport
import Testing

/// `settings` sends the client new `SETTINGS` mid-connection, which hold from then on; `ping-timeout` leaves the
/// client's `PING`s unacknowledged while the connection flows. Each fires on the request to `/first`; the negative
/// controls run the same steps without the rule.
@Suite struct SettingsAndPingFaultTests {
    private static let upload = [("Upload-Draft-Interop-Version", "8"), ("Upload-Complete", "?1")]

    private static func client(rule: String?) throws -> (ProxyFixture, HTTP2Client) {
        let rules = try rule.map { [try FaultRule.parse($0)] } ?? []
        let fixture = try ProxyFixture(rules: rules, tls: true) { $0.http2 = true }
        let client = try HTTP2Client(url: fixture.proxy.url, authority: fixture.authority)
        let first = try client.open(.get, "/first", [], end: true)
        #expect(try client.finish(first).final != nil)
        return (fixture, client)
    }

    @Test(arguments: [true, false])
    func newSettingsReachTheClientAndAnUploadKeepsToThem(fault: Bool) throws {
        let rule = #"""
            {"name": "one-at-a-time", "match": {"path": "/first"}, "action": "settings",
             "settings": {"max-concurrent-streams": 1, "initial-window-size": 16384}}
            """#
        let (fixture, client) = try Self.client(rule: fault ? rule : nil)
        #expect(client.session.peerSetting(.maxConcurrentStreams) == (fault ? 1 : 100))
        #expect(client.session.peerSetting(.initialWindowSize) == (fault ? 16384 : 1 << 20))
        // An upload of 256 KiB goes through a 16 KiB window, reopened as the proxy forwards it.
        let stream = try client.open(.post, "/upload", Self.upload)
        client.send([UInt8](repeating: 9, count: 256 << 10), on: stream, end: true)
        #expect(try client.finish(stream).final?.status == 200)
        #expect(fixture.server.uploads().first?.durableOffset == 256 << 10)
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).map(\.rule) == (fault ? ["one-at-a-time"] : []))
    }

    /// A `PING` sent after the fault gets no acknowledgement while a later exchange completes; without the rule the
    /// acknowledgement comes before that exchange's response.
    @Test(arguments: [true, false])
    func pingsGoUnacknowledgedWhileTheConnectionFlows(fault: Bool) throws {
        let rule = #"{"name": "no-pong", "match": {"path": "/first"}, "action": "ping-timeout"}"#
        let (fixture, client) = try Self.client(rule: fault ? rule : nil)
        defer { withExtendedLifetime(fixture) {} }
        client.session.ping()
        let second = try client.open(.get, "/second", [], end: true)
        #expect(try client.finish(second).final != nil)
        #expect(client.pingsAcknowledged == (fault ? 0 : 1))
    }

    /// With a `duration`, the acknowledgement is held while it lasts (an exchange completes meanwhile) and comes once
    /// it is over.
    @Test func aHeldPingIsAcknowledgedAfterTheDuration() throws {
        let rule = #"{"name": "slow-pong", "match": {"path": "/first"}, "action": "ping-timeout", "duration": "3s"}"#
        let (fixture, client) = try Self.client(rule: rule)
        defer { withExtendedLifetime(fixture) {} }
        client.session.ping()
        let second = try client.open(.get, "/second", [], end: true)
        #expect(try client.finish(second).final != nil)
        #expect(client.pingsAcknowledged == 0)
        // It comes (else `run` gives up after its patience and the test fails).
        try client.run { $0.pingsAcknowledged == 1 }
    }
}
