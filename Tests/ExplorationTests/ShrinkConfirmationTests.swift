import Exploration
import Harness
import SquallCore
import Synchronization
import Testing

/// The shrink starts only from a violation that reproduces: a schedule that violated once and not again in two of
/// three more runs is kept as found and says so, instead of spending the budget on steps that cannot be confirmed.
/// The judge is a stand-in (`ExploreOptions.shrinkJudge`), so what each run shows is fixed.
@Suite struct ShrinkConfirmationTests {
    static let schedule = ScheduleGenerator(seed: 1).schedule(3)

    static func options(_ judge: @escaping @Sendable (JSONValue) -> [String]) -> ExploreOptions {
        var options = ExploreOptions()
        options.shrinkJudge = judge
        return options
    }

    @Test func aViolationThatDoesNotReproduceIsKeptAsFoundAndSaysSo() {
        let runs = Atomic(0)
        let shrunk = Explorer.shrink(
            Self.schedule, violating: ["no-job-lost"],
            options: Self.options { _ in
                runs.add(1, ordering: .relaxed)
                return []
            })
        // Two misses and two of three can no longer be reached: no third run.
        #expect(!shrunk.confirmed && shrunk.steps == 0 && shrunk.runs == 2 && runs.load(ordering: .relaxed) == 2)
        #expect(shrunk.to == shrunk.from, "not shrunk")
        guard case .string(let description)? = shrunk.document["description"] else {
            Issue.record("no description")
            return
        }
        #expect(description.contains("not shrunk") && description.contains("hangs on a race"), "\(description)")
    }

    /// The control: the same schedule, violating every time, is confirmed and shrunk to nothing.
    @Test func aViolationThatReproducesIsShrunk() {
        let shrunk = Explorer.shrink(
            Self.schedule, violating: ["no-job-lost"], options: Self.options { _ in ["no-job-lost"] })
        #expect(shrunk.confirmed && shrunk.steps > 0 && shrunk.violated == ["no-job-lost"])
        #expect(shrunk.from.faults + shrunk.from.events > 0 && shrunk.to.faults == 0 && shrunk.to.events == 0)
    }

    /// Two of three is enough: a violation that misses one run in three is confirmed.
    @Test func aViolationThatMissesOneRunInThreeIsConfirmed() {
        let runs = Atomic(0)
        let shrunk = Explorer.shrink(
            Self.schedule, violating: ["no-job-lost"],
            options: Self.options { _ in
                runs.add(1, ordering: .relaxed).oldValue == 0 ? [] : ["no-job-lost"]
            })
        #expect(shrunk.confirmed)
    }
}
