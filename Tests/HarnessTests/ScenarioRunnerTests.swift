import FaultEngine
import Foundation
import Scenario
import Testing

@testable import Harness

/// The runner end to end on loopback: server, proxy and client in-process, faults and events played.
@Suite struct ScenarioRunnerTests {
    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    @Test func aResetAtFortyPercentIsResumedAndTheUploadCompletes() throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset", "times": 1}"#
        )
        // A slow uplink makes the client wait on its writes, so it has read the 104 before the cut.
        let slow = try Self.rule(
            #"{"name": "slow", "action": "bandwidth", "rate": "4MiB", "direction": "upstream", "optional": true}"#)
        let scenario = Scenario(
            name: "reset-then-resume", description: "a reset at 40 % is resumed", seed: 3,
            assets: [AssetSpec(name: "photo", size: 1 << 20)], faults: [cut, slow],
            expect: [
                .jobs(state: "succeeded", .all), .resumptions(.range(min: 1, max: nil)), .appendsAtServerOffset(true),
                .serverObjectsIntact(true), .serverResourceIDsRecorded(true), .acknowledgedOnce(true),
                .restartsFromZero(.exactly(0)),
            ])
        let result = ScenarioRunner.run(scenario)
        #expect(result.error == nil)
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed })")
        #expect(result.verdicts.count == 7)
        let cuts = result.faultTimeline.filter { $0.rule == "cut" }
        #expect(cuts.map(\.offset) == [419_430])
        let ledger = try #require(result.ledgerJSON)
        #expect(ledger.contains("succeeded"))
    }

    /// Negative control: a retry limit of 2 against a server that always answers 500 shows exactly 3 attempts,
    /// and an expectation of 4 fails.
    @Test func anExpectationThatDoesNotHoldFailsTheScenario() throws {
        let broken = try Self.rule(
            #"{"name": "broken", "match": {"method": "POST"}, "action": "respond", "status": 500}"#)
        var client = ClientSpec()
        client.retryLimit = 2
        client.permanentErrors = []
        let scenario = Scenario(
            name: "always-500", description: "a server that always fails", seed: 5, client: client,
            assets: [AssetSpec(name: "doc", size: 10_000)], faults: [broken],
            expect: [.attempts(.exactly(4)), .jobs(state: "failed", .all), .retryLimitRespected(true)])
        let result = ScenarioRunner.run(scenario)
        #expect(result.error == nil)
        #expect(!result.passed)
        let attempts = try #require(result.verdicts.first)
        #expect(attempts.status == .failed)
        #expect(attempts.observed.contains("3"), "\(attempts)")
        #expect(result.verdicts.dropFirst().allSatisfy { $0.status == .passed }, "\(result.verdicts)")
    }

    /// A declared fault that never fires fails its scenario.
    @Test func aFaultThatNeverFiresFailsTheScenario() throws {
        let never = try Self.rule(#"{"name": "never", "match": {"method": "DELETE"}, "action": "reset"}"#)
        let scenario = Scenario(
            name: "never-fires", description: "a fault for a request that never comes", seed: 6,
            assets: [AssetSpec(name: "doc", size: 1000)], faults: [never], expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(scenario)
        #expect(!result.passed)
        #expect(result.verdicts.contains { $0.key == "fault.never" && $0.status == .failed })
    }

    /// A run leaves no file behind, and no descriptor open on anything of its folder (other suites run in the same
    /// process at the same time, so the check looks at this run's files rather than at a count).
    @Test func aRunCleansUpItsFolderAndDescriptors() throws {
        let scenario = Scenario(
            name: "cleanup", description: "nothing left behind", seed: 7,
            assets: [AssetSpec(name: "doc", size: 1000)], expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(scenario)
        #expect(result.passed)
        let prefix = "squall-run-cleanup-"
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
            $0.hasPrefix(prefix)
        }
        #expect(leftovers.isEmpty)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }
        #expect(!open.contains { $0.contains(prefix) }, "\(open)")
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
