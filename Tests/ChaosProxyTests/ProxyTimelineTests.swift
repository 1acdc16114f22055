import ChaosProxy
import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing

/// Faults in time: the same seed and traffic give the same timeline, delayed triggers fire on their own, and
/// rules changing under load neither block nor damage the data path.
@Suite struct ProxyTimelineTests {
    /// Ten requests over one connection through a proxy with a probabilistic rule; the fired faults by exchange.
    static func timeline(seed: UInt64) throws -> [Int] {
        let flaky = try ProxyFaultTests.rule(
            #"{"name": "flaky", "match": {"method": "GET"}, "action": "respond", "status": 500, "probability": 0.5}"#)
        let fixture = try ProxyFixture(rules: [flaky], seed: seed)
        let stream = try fixture.connect()
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        var statuses: [Int] = []
        for _ in 0..<10 { statuses.append(WireExchange.send(head, over: stream).final?.status ?? 0) }
        stream.close()
        return statuses
    }

    @Test func aSeedReplayedGivesTheSameFaultTimeline() throws {
        let first = try Self.timeline(seed: 21)
        #expect(try Self.timeline(seed: 21) == first)
        #expect(first.contains(500) && first.contains(200))
        let others = try [22, 23, 24].map { try Self.timeline(seed: UInt64($0)) }
        #expect(others.contains { $0 != first })
    }

    @Test func aDelayedCloseFiresWithoutTraffic() throws {
        let later = try ProxyFaultTests.rule(#"{"name": "later", "trigger": {"after": "100ms"}, "action": "close"}"#)
        let fixture = try ProxyFixture(rules: [later])
        let stream = try fixture.connect()
        let start = ContinuousClock.now
        var outcome = WireOutcome()
        WireExchange.read(.get, from: stream, into: &outcome, deadline: .now + .seconds(20))
        stream.close()
        #expect(outcome.failure == "end of stream")
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        ProxyFaultTests.waitForCloses(fixture.proxy)
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).map(\.rule) == ["later"])
    }

    @Test func rulesChangingUnderLoadNeitherBlockNorDamageTheData() throws {
        let fixture = try ProxyFixture()
        let body = ProxyForwardingTests.body(4 << 20, seed: 5)
        let stream = try fixture.connect()
        let proxy = fixture.proxy
        let churn = Thread {
            for round in 0..<300 {
                let rule = try? FaultRule(
                    name: "noise-\(round)", match: FaultMatch(method: .delete), action: .reset, optional: true)
                try? proxy.addFaultRules(rule.map { [$0] } ?? [])
                if round > 0 { try? proxy.removeFaultRule(named: "noise-\(round - 1)") }
            }
        }
        churn.start()
        let outcome = WireExchange.send(
            ProxyForwardingTests.creation(length: body.count), body: body,
            segments: ProxyForwardingTests.segments(seed: 5, total: body.count), over: stream)
        stream.close()
        #expect(outcome.final?.status == 201)
        #expect(fixture.server.uploads().first?.sha256 == MessageDigest.hex(of: body))
    }
}
