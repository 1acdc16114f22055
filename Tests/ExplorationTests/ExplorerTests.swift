import Exploration
import Foundation
import Harness
import Scenario
import SquallCore
import SquallNet
import Synchronization
import TestSupport
import Testing

/// `Explorer` end to end: a short campaign against the reference server and client holds every invariant; a
/// defective client is caught within 200 schedules and its violation shrunk to at most 2 faults, written as a
/// scenario file that validates and reproduces it.
@Suite(.serialized)
struct ExplorerTests {
    /// The `squall` built beside the tests, for the child processes of kill and restart events.
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("squall").path
    }

    /// Runs `options`' campaign until its first violation has been shrunk (the campaign is long only when nothing
    /// is found), and returns it.
    static func firstViolation(_ options: ExploreOptions) -> ExploreOutcome? {
        var options = options
        let stop = ProcessStop(command: "explore")
        options.runner.stop = stop
        let found = Mutex<ExploreOutcome?>(nil)
        let summary = Explorer.run(options) { progress in
            // A violation that does not reproduce is written unshrunk; the controls look for one that does.
            if progress.last.shrunk?.confirmed == true, found.withLock({ $0 == nil }) {
                found.withLock { $0 = progress.last }
                stop.request(.interrupt)
            }
        }
        return found.withLock { $0 } ?? summary.violations.first
    }

    static func options(seed: UInt64, count: Int) -> ExploreOptions {
        var options = ExploreOptions()
        options.seed = seed
        options.count = count
        // One at a time: the suites around it in `swift test` have timing of their own to keep.
        options.jobs = 1
        options.runner.squallBinary = binary
        // The shrink's steps, so that a control that shrinks too little says where it stuck.
        options.shrinkLog = { line in FileHandle.standardError.write(Data("explore seed \(seed): \(line)\n".utf8)) }
        return options
    }

    @Test func aShortCampaignAgainstTheReferenceServerAndClientHoldsEveryInvariant() {
        var options = Self.options(seed: 1, count: 12)
        options.shrinkBudget = .seconds(30)
        let summary = Explorer.run(options)
        #expect(summary.outcomes.count == 12)
        for outcome in summary.violations {
            let failed = outcome.result.verdicts.filter { $0.status == .failed }
            Issue.record("\(outcome.name): \(failed.map { "\($0.key): \($0.observed) \($0.evidence)" })")
        }
    }

    /// Negative control (c): a client that restarts an append from byte 0 instead of the server's offset. Explored
    /// by the kill campaign, whose server restarts force a resumption at an exact point of an upload (the run holds
    /// the upload there); in the random campaign a resumption often hangs on a race between the server's 104 and a
    /// cut (sliced or delayed downstream), which no shrink can confirm step by step.
    @Test func aClientThatResumesFromZeroIsFoundAndShrunkToAtMostTwoFaults() throws {
        let out = try TLSFixtures.TemporaryDirectory()
        var options = Self.options(seed: 5, count: 200)
        options.campaign = .kills
        options.out = out.path
        options.shrinkBudget = .seconds(180)
        options.runner.clientResumesFromZero = true
        options.timeBudget = .seconds(600)
        let outcome = try #require(Self.firstViolation(options), "no violation in 200 schedules")
        let shrunk = try #require(outcome.shrunk)
        #expect(shrunk.violated.contains("appends-at-server-offset"), "\(shrunk.violated)")
        #expect(shrunk.to.faults <= 2, "shrunk to \(shrunk.to.faults) faults")
        let file = try #require(shrunk.file)
        let loaded = try ScenarioFiles.loadFile(file).get()
        #expect(loaded.expect.map(\.key).contains("appends-at-server-offset"))
        // Re-running the file reproduces the violation, every time; without the defect it passes.
        var runner = ScenarioRunOptions(squallBinary: Self.binary)
        runner.clientResumesFromZero = true
        for run in 1...3 {
            let verdicts = ScenarioRunner.run(loaded, options: runner).verdicts
            #expect(
                verdicts.contains { $0.key == "appends-at-server-offset" && $0.status == .failed },
                "run \(run) of the shrunk file did not reproduce the violation")
        }
        let clean = ScenarioRunner.run(loaded, options: ScenarioRunOptions(squallBinary: Self.binary))
        #expect(clean.verdicts.first { $0.key == "appends-at-server-offset" }?.status == .passed)
    }

    @Test func aShardRunsItsPartOfTheCampaign() {
        var options = ExploreOptions()
        options.count = 10
        options.shard = (2, 3)
        #expect(options.indices == [1, 4, 7])
    }
}

extension ExplorerTests {
    /// Negative control (a): a server that reports an offset beyond what it stored (and goes on from there).
    @Test func aServerReportingAnOffsetBeyondWhatItStoredIsFoundAndShrunk() throws {
        let out = try TLSFixtures.TemporaryDirectory()
        var options = Self.options(seed: 9, count: 200)
        options.out = out.path
        options.shrinkBudget = .seconds(180)
        options.runner.serverReportsOffsetBeyondStored = 1
        let outcome = try #require(Self.firstViolation(options), "no violation in 200 schedules")
        let shrunk = try #require(outcome.shrunk)
        #expect(shrunk.violated.contains("acknowledged-bytes-kept"), "\(shrunk.violated)")
        #expect(shrunk.to.faults <= 2, "shrunk to \(shrunk.to.faults) faults")
    }
}

extension ExplorerTests {
    /// Negative control (b): a server that forgets its uploads across a restart.
    @Test func aServerThatForgetsUploadsAcrossARestartIsFoundAndShrunk() throws {
        let out = try TLSFixtures.TemporaryDirectory()
        var options = Self.options(seed: 13, count: 200)
        options.out = out.path
        options.shrinkBudget = .seconds(180)
        options.runner.serverForgetsUploadsOnRestart = true
        let outcome = try #require(Self.firstViolation(options), "no violation in 200 schedules")
        let shrunk = try #require(outcome.shrunk)
        #expect(
            !Set(shrunk.violated).isDisjoint(with: ["acknowledged-bytes-kept", "no-job-lost"]), "\(shrunk.violated)")
        #expect(shrunk.to.faults <= 2, "shrunk to \(shrunk.to.faults) faults")
        let events = shrunk.document["events"].map { "\($0)" } ?? ""
        #expect(events.contains("restart-server"), "the restart is what makes it forget: \(events)")
    }
}
