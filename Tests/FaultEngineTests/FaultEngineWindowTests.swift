import FaultEngine
import TestSupport
import Testing

@Suite struct FaultEngineWindowTests {
    /// A per-connection window rule reaches a connection opened before the window (at its start, with its end).
    @Test func windowReachesLiveConnection() throws {
        let rule = try FaultRule(
            name: "outage", trigger: .window(from: .seconds(1), until: .seconds(2)),
            action: .stall(duration: nil, thenClose: false))
        var engine = FaultReplay(rules: [rule], seed: 1)
        var decisions = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        #expect(decisions.isEmpty)
        #expect(engine.nextDue(on: 1) == .seconds(1))
        decisions += engine.tick(time: .milliseconds(1500))
        #expect(decisions.count == 1)
        #expect(decisions.first?.time == .milliseconds(1500))
        #expect(decisions.first?.expires == .seconds(2))
        #expect(engine.nextDue(on: 1) == nil)
    }
}
