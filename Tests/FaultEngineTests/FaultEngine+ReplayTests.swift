import FaultEngine
import HTTPWire
import TestSupport
import Testing

struct FaultEngineReplayTests {
    /// 64 connections, each with one PATCH and a body crossing 50 %; the decisions' timeline as text.
    private func timeline(seed: UInt64, rules: [FaultRule]) -> [String] {
        var engine = FaultReplay(rules: rules, seed: seed)
        var lines: [String] = []
        for id in 1...64 {
            let time = Duration.milliseconds(id * 10)
            var decisions = engine.handle(.connectionOpened(connection: id, nth: id, time: time))
            decisions += engine.handle(.requestHead(connection: id, head: patchHead(offset: 0), time: time))
            decisions += engine.handle(
                .requestBody(connection: id, count: 100, uploadOffset: 0, uploadLength: 100, time: time))
            lines += decisions.map { "\($0.rule)@\($0.connection):\($0.afterBytes ?? -1)" }
            _ = engine.handle(.connectionClosed(connection: id, time: time))
        }
        return lines
    }

    private func coinRules() throws -> [FaultRule] {
        [
            try FaultRule(
                name: "coin", trigger: .atOffset(.fraction(numerator: 50, denominator: 100)), action: .reset,
                probability: 0.5),
            try FaultRule(name: "slow", action: .latency(.milliseconds(5), jitter: .zero), probability: 0.5),
        ]
    }

    @Test func theSameSeedGivesTheSameDecisions() throws {
        let first = timeline(seed: 42, rules: try coinRules())
        #expect(first == timeline(seed: 42, rules: try coinRules()))
        #expect(first.contains { $0.hasPrefix("coin@") && $0.hasSuffix(":50") })
        #expect(first.count > 10 && first.count < 118)
    }

    @Test func aDifferentSeedGivesDifferentDecisions() throws {
        #expect(timeline(seed: 42, rules: try coinRules()) != timeline(seed: 43, rules: try coinRules()))
    }

    @Test func addingARuleDoesNotChangeAnotherRulesDraws() throws {
        let alone = timeline(seed: 9, rules: try coinRules()).filter { $0.hasPrefix("coin@") }
        let extra = try FaultRule(name: "extra", action: .close, probability: 0.3)
        let together = timeline(seed: 9, rules: [extra] + (try coinRules())).filter { $0.hasPrefix("coin@") }
        #expect(alone == together)
    }

    @Test func certainAndImpossibleProbabilities() throws {
        let never = try FaultRule(name: "never", action: .close, probability: 0)
        let always = try FaultRule(name: "always", action: .close)
        let lines = timeline(seed: 1, rules: [never, always])
        #expect(lines.count == 64)
        #expect(lines.allSatisfy { $0.hasPrefix("always@") })
    }
}
