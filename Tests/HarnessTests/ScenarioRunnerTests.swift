import FaultEngine
import Foundation
import Scenario
import Testing

@testable import Harness

/// The runner end to end on loopback: server, proxy and client in-process, faults and events played.
@Suite struct ScenarioRunnerTests {
    static func rule(_ json: String) throws -> FaultRule {
        try JSONDecoder().decode(FaultRule.self, from: Data(json.utf8))
    }

    @Test func aResetAtFortyPercentIsResumedAndTheUploadCompletes() throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset", "times": 1}"#
        )
        let scenario = Scenario(
            name: "reset-then-resume", description: "a reset at 40 % is resumed", seed: 3,
            assets: [AssetSpec(name: "photo", size: 1 << 20)], faults: [cut],
            expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(scenario)
        #expect(result.error == nil)
        #expect(result.faultTimeline.map(\.rule) == ["cut"])
        #expect(result.faultTimeline.first?.offset == 419_430)
        let ledger = try #require(result.ledgerJSON)
        #expect(ledger.contains("succeeded"))
    }

    @Test func switchingNetworksMidUploadResetsAndTheClientRecovers() throws {
        let slow = try Self.rule(
            #"{"name": "slow", "action": "bandwidth", "rate": "2MiB", "direction": "upstream", "optional": true}"#)
        let scenario = Scenario(
            name: "switch-network", description: "wifi to cellular at 30 %", seed: 4,
            assets: [AssetSpec(name: "video", size: 2 << 20)], faults: [slow],
            events: [
                ScenarioEvent(
                    action: .switchNetwork, trigger: .progress(.fraction(numerator: 30, denominator: 100), asset: nil))
            ],
            expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(scenario)
        #expect(result.error == nil)
        #expect(result.faultTimeline.contains { $0.rule == "squall-switch-network" })
    }
}
