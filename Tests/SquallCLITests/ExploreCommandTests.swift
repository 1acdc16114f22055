import Exploration
import Foundation
import SquallCore
import Testing

@testable import SquallCLI

/// `squall explore`'s flags: each mistake names the flag and exits 2; a tiny campaign runs, prints its seed, its
/// summary and the cost per schedule, and exits 0 when no invariant was violated.
struct ExploreCommandTests {
    func squall(_ arguments: [String]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        return (status, console.standardOutput, console.standardError)
    }

    @Test(arguments: [
        (["--count", "0"], "--count must be a count from 1 to 1000000, not '0'"),
        (["--seed", "-3"], "--seed must be a whole number from 0 to 2^64-1, not '-3'"),
        (["--jobs", "99"], "--jobs must be a count from 1 to 64, not '99'"),
        (["--shard", "3/2"], "--shard must be I/N with 1 ≤ I ≤ N, such as 2/4, not '3/2'"),
        (["--time-budget", "soon"], "--time-budget must be a duration such as 250ms, 2s or 1d, not 'soon'"),
        (["--campaign", "chaos"], "--campaign must be random or kills, not 'chaos'"),
        (["--asset-size", "0"], "--asset-size must be above 0"),
    ])
    func aMistakeNamesItsFlag(arguments: [String], message: String) {
        let (status, _, error) = squall(["explore"] + arguments)
        #expect(status == 2)
        #expect(error.contains(message), "\(error)")
    }

    /// In process the `squall` binary is this test runner, so the campaign is one schedule with no kill or restart
    /// (their child processes need the real binary; `ExplorerTests` runs those).
    @Test func aTinyCampaignRunsAndSaysWhatItCost() throws {
        let seed = try #require(
            (1...200).first { seed in
                let events = "\(ScheduleGenerator(seed: UInt64(seed)).schedule(0)["events"] ?? .null)"
                return !["kill-client", "force-quit", "restart-server"].contains { events.contains($0) }
            })
        let (status, output, error) = squall(["explore", "--count", "2", "--seed", "\(seed)", "--shard", "1/2"])
        #expect(error.contains("squall explore: seed \(seed), 1 of 2 schedules, shard 1/2, 1 at once"), "\(error)")
        #expect(output.contains("1 schedules, 0 violations in"), "\(output)")
        #expect(output.contains("per schedule (mean of 1): setup"), "\(output)")
        #expect(status == 0, "\(output)\(error)")
    }
}
