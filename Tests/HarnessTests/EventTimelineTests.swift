import FaultEngine
import Foundation
import Scenario
import Testing

@testable import Harness

/// Events are part of what a scenario proves: the run lasts until each has played, the timeline says when and
/// what it did, and one that cannot play fails the scenario with a verdict that says why (negative controls).
@Suite struct EventTimelineTests {
    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    /// Monitoring mode: the two photos are done long before 300 ms; the run waits for the event, the added
    /// assets wake the extension, and all five are uploaded.
    @Test func anEventAfterTheClientSettledStillPlaysAndItsAssetsAreUploaded() throws {
        let event = ScenarioEvent(
            action: .addAssets(AssetSpec(name: "late", size: 4096, count: 3)), trigger: .time(.milliseconds(300)))
        let scenario = Scenario(
            name: "late-assets", description: "assets added after the first batch finished", seed: 11,
            timeout: .seconds(10), assets: [AssetSpec(name: "photo", size: 8192, count: 2)], events: [event],
            expect: [.jobs(state: "succeeded", .exactly(5)), .requests(method: "POST", .exactly(5))])
        let result = ScenarioRunner.run(scenario)
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed }) \(result.error ?? "")")
        let record = try #require(result.eventTimeline.first)
        #expect(record.played)
        #expect(try #require(record.runMicroseconds) >= 300_000)
        #expect(record.proxyMicroseconds != nil)
        #expect(record.did.joined().contains("added late-1 (4096 bytes), late-2 (4096 bytes), late-3 (4096 bytes)"))
    }

    /// Negative control: an event after the timeout can never play; the run ends when the client settles (not at
    /// the timeout) and fails on the event, naming when the client settled and when the run would time out.
    @Test func aTimeEventBeyondTheTimeoutFailsTheScenarioAndSaysWhy() throws {
        let event = ScenarioEvent(
            action: .addAssets(AssetSpec(name: "never", size: 1024)), trigger: .time(.seconds(20)))
        let scenario = Scenario(
            name: "event-too-late", description: "an event after the timeout", seed: 12, timeout: .seconds(10),
            assets: [AssetSpec(name: "doc", size: 2048)], events: [event], expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(scenario)
        #expect(!result.passed)
        #expect(result.duration < .seconds(10), "the run waited for the timeout instead of ending when settled")
        let verdict = try #require(result.verdicts.first { $0.key == "event.0.add-assets" })
        #expect(verdict.status == .failed)
        let evidence = verdict.evidence.joined()
        #expect(evidence.contains("event add-assets at 20s never played: the client settled at "), "\(evidence)")
        #expect(evidence.contains("and the run times out at 10 s"), "\(evidence)")
        #expect(!result.verdicts.contains { $0.key == "timeout" })
        #expect(result.eventTimeline.first?.played == false)
    }

    /// Negative control: a progress event the upload never reaches (the job fails at the 40 % cut, with no
    /// resume and no retry) fails the scenario and says how far the upload got.
    @Test func aProgressEventTheUploadNeverReachesFailsTheScenarioAndSaysHowFarItGot() throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset"}"#)
        var client = ClientSpec()
        client.resumeAttempts = 0
        client.retryLimit = 0
        let event = ScenarioEvent(
            action: .switchNetwork, trigger: .progress(.fraction(numerator: 70, denominator: 100), asset: "video"))
        let scenario = Scenario(
            name: "progress-never-reached", description: "the upload stops at 40 %", seed: 13,
            timeout: .seconds(10), client: client, assets: [AssetSpec(name: "video", size: 1 << 20)],
            faults: [cut], events: [event], expect: [.jobs(state: "failed", .all)])
        let result = ScenarioRunner.run(scenario)
        #expect(!result.passed)
        let verdict = try #require(result.verdicts.first { $0.key == "event.0.switch-network" })
        let evidence = verdict.evidence.joined()
        #expect(evidence.contains("event switch-network at-progress 70% of video never played"), "\(evidence)")
        // The proxy forwards the body up to the cut at 419,430 of 1,048,576 bytes: 39 %.
        #expect(evidence.contains("the upload never got past 39 % (byte 419430 of 1048576)"), "\(evidence)")
        #expect(result.verdicts.first { $0.key == "jobs.failed" }?.status == .passed)
    }

    /// `network-up` at 0 ms, after a `network-down` at 30 % of the upload: the up is not due before the down has
    /// played, so the network comes back and the upload finishes, however long 30 % takes on this machine.
    @Test func anUndoWaitsForWhatItUndoes() throws {
        let result = ScenarioRunner.run(Self.networkDownAndUp(upFirst: false))
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed }) \(result.error ?? "")")
        let down = try #require(result.eventTimeline.first { $0.event == "network-down" })
        let up = try #require(result.eventTimeline.first { $0.event == "network-up" })
        #expect(down.played && up.played)
        #expect(try #require(up.runMicroseconds) >= (try #require(down.runMicroseconds)))
    }

    /// Negative control: listed before the down, the up does not wait; it plays at once, undoing nothing, and the
    /// network stays down from 30 % on: the upload never finishes.
    @Test func anUndoListedBeforeWhatItUndoesDoesNotWait() throws {
        let result = ScenarioRunner.run(Self.networkDownAndUp(upFirst: true))
        #expect(!result.passed)
        #expect(result.verdicts.first { $0.key == "jobs.succeeded" }?.status == .failed)
        let down = try #require(result.eventTimeline.first { $0.event == "network-down" })
        let up = try #require(result.eventTimeline.first { $0.event == "network-up" })
        #expect(try #require(up.runMicroseconds) < (try #require(down.runMicroseconds)))
    }

    /// A relaunch at a progress point waits for the client to have stopped: the upload is not held there (held, it
    /// could never finish, the client never settle, and the run would last until its timeout).
    @Test func aRelaunchAtAProgressPointIsNotHeld() throws {
        let relaunch = ScenarioEvent(
            action: .relaunchClient, trigger: .progress(.fraction(numerator: 50, denominator: 100), asset: "video"))
        let scenario = Scenario(
            name: "relaunch-at-progress", description: "a relaunch once the upload passed half", seed: 15,
            timeout: .seconds(20), assets: [AssetSpec(name: "video", size: 1 << 20)], events: [relaunch],
            expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(scenario)
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed }) \(result.error ?? "")")
        #expect(result.eventTimeline.first?.played == true)
        #expect(result.duration < .seconds(10), "the run lasted \(result.duration)")
    }

    static func networkDownAndUp(upFirst: Bool) -> Scenario {
        let down = ScenarioEvent(
            action: .networkDown, trigger: .progress(.fraction(numerator: 30, denominator: 100), asset: "video"))
        let up = ScenarioEvent(action: .networkUp, trigger: .time(.zero))
        return Scenario(
            name: "down-then-up", description: "network-up at 0 ms after a network-down at 30 %", seed: 14,
            timeout: .seconds(5), assets: [AssetSpec(name: "video", size: 1 << 20)],
            events: upFirst ? [up, down] : [down, up], expect: [.jobs(state: "succeeded", .all)])
    }

    /// A progress event plays, and the timeline says which connections it reset.
    @Test func aPlayedEventSaysWhatItDid() throws {
        let slow = try Self.rule(
            #"{"name": "slow", "action": "bandwidth", "rate": "4MiB", "direction": "upstream", "optional": true}"#)
        let event = ScenarioEvent(
            action: .switchNetwork, trigger: .progress(.fraction(numerator: 50, denominator: 100), asset: "video"))
        let scenario = Scenario(
            name: "switch-mid-upload", description: "a network switch at half way", seed: 14, timeout: .seconds(10),
            assets: [AssetSpec(name: "video", size: 1 << 20)], faults: [slow], events: [event],
            expect: [.jobs(state: "succeeded", .all), .resumptions(.range(min: 1, max: nil))])
        let result = ScenarioRunner.run(scenario)
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed }) \(result.error ?? "")")
        let record = try #require(result.eventTimeline.first)
        #expect(record.played)
        #expect(record.did.first?.hasPrefix("reset connections ") == true, "\(record.did)")
    }
}
