import Dispatch
import Exploration
import Foundation
import Scenario
import SquallCore
import SquallNet
import Synchronization

/// What `squall explore` runs: a seeded campaign of random schedules, its part of it, in how many threads, for how
/// long, against which server, and where violations go.
public struct ExploreOptions: Sendable {
    public var seed: UInt64 = 1
    /// What the schedules are made of (`--campaign`).
    public var campaign = ScheduleGenerator.Campaign.random
    /// Every asset this size (`--asset-size`, for benchmarks); nil draws sizes.
    public var assetSize: Int64?
    /// Schedules in the whole campaign (every shard together).
    public var count = 100
    /// This machine's part: the schedules `i` with `i % shard.of == shard.index - 1` (`--shard I/N`).
    public var shard = (index: 1, of: 1)
    /// Schedules run at once, each with its own ports and folders.
    public var jobs = 1
    /// No schedule is started after this long (those under way finish; their violations are shrunk).
    public var timeBudget: Duration?
    /// How long the shrinking of one violation may take (its runs), after which the smallest so far is kept.
    public var shrinkBudget: Duration = .seconds(120)
    /// Where each violation's shrunk scenario file (`<name>.json`) and its debug bundle (`<name>/`) go.
    public var out: String?
    /// The runner's settings for every schedule (`upstream`, `profile`, the `squall` binary for kill events, the
    /// stop).
    public var runner = ScenarioRunOptions()
    /// Told each shrink step: the candidate tried and what its runs showed (`--shrink-log`).
    public var shrinkLog: (@Sendable (String) -> Void)?
    /// Stands in for running a schedule while shrinking: the invariants a document violates (tests of the shrink
    /// itself); nil runs it.
    public var shrinkJudge: (@Sendable (JSONValue) -> [String])?

    public init() {}

    /// The indices of this shard's schedules, in order.
    public var indices: [Int] {
        (0..<count).filter { $0 % shard.of == shard.index - 1 }
    }
}

/// One schedule's outcome.
public struct ExploreOutcome: Sendable {
    public var index: Int
    public var name: String
    /// The invariants it violated (failed verdict keys of `ScheduleInvariants.keys`); empty when it held them all.
    public var violated: [String]
    /// The run, for reports (its verdicts judged against the invariants only).
    public var result: ScenarioResult
    /// For a violation: the shrunk schedule, as written, and what the shrink did.
    public var shrunk: ShrunkSchedule?
}

/// A violating schedule brought down to one that still violates.
public struct ShrunkSchedule: Sendable {
    public var document: JSONValue
    /// The invariants the shrunk schedule violates (a subset of the original's).
    public var violated: [String]
    /// Runs made while shrinking, and the steps kept.
    public var runs: Int
    public var steps: Int
    /// Faults and events before and after.
    public var from: (faults: Int, events: Int)
    public var to: (faults: Int, events: Int)
    /// The scenario file written (`--out`), and its debug bundle.
    public var file: String?
    public var bundle: String?
    /// Why the file could not be written, when it could not.
    public var writeError: String?
    /// The shrink budget ran out before no smaller schedule violated.
    public var budgetSpent: Bool
    /// Whether the found schedule violated again in two of at most three more runs before the shrink. When it did
    /// not, the violation hangs on a race no step could confirm: the schedule is written as found, not shrunk.
    public var confirmed = true
}

/// Progress, after each schedule.
public struct ExploreProgress: Sendable {
    public var done: Int
    public var total: Int
    public var violations: Int
    public var elapsed: Duration
    /// The schedule that just finished.
    public var last: ExploreOutcome
}

/// How a campaign ended.
public struct ExploreSummary: Sendable {
    public var outcomes: [ExploreOutcome]
    /// Schedules of this shard not started (the time budget, or a stop).
    public var notRun: Int
    public var elapsed: Duration
    public var violations: [ExploreOutcome] { outcomes.filter { !$0.violated.isEmpty } }
}

/// `squall explore`: runs a campaign's schedules (`ScheduleGenerator`) through the scenario runner, each judged by
/// the invariants of `ScheduleInvariants` (and only by them: a fault that never fired or an event that never
/// played is not a violation, since random triggers may not be reached); shrinks each violation
/// (`ScheduleShrinker`), re-running every candidate and keeping the first that violates one of the same invariants
/// and then again in two of at most three more runs; writes the shrunk schedule as a scenario file whose `expect` is the violated
/// invariants, with its debug bundle.
public enum Explorer {
    public static func run(
        _ options: ExploreOptions, progress: @escaping @Sendable (ExploreProgress) -> Void = { _ in }
    ) -> ExploreSummary {
        let generator = ScheduleGenerator(
            seed: options.seed, outsideServer: options.runner.upstream != nil, campaign: options.campaign,
            assetSize: options.assetSize)
        let indices = options.indices
        let next = Atomic<Int>(0)
        let outcomes = Mutex<[ExploreOutcome]>([])
        let started = ContinuousClock.now
        let deadline = options.timeBudget.map { started + $0 }
        let group = DispatchGroup()
        for _ in 0..<max(1, options.jobs) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                while true {
                    if options.runner.stop?.isRequested == true { return }
                    if let deadline, ContinuousClock.now >= deadline { return }
                    let position = next.add(1, ordering: .relaxed).oldValue
                    guard position < indices.count else { return }
                    let index = indices[position]
                    let outcome = explore(index, generator: generator, options: options)
                    let (done, violations) = outcomes.withLock { list in
                        list.append(outcome)
                        return (list.count, list.count { !$0.violated.isEmpty })
                    }
                    progress(
                        ExploreProgress(
                            done: done, total: indices.count, violations: violations,
                            elapsed: ContinuousClock.now - started, last: outcome))
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        group.wait()
        let finished = outcomes.withLock { $0 }.sorted { $0.index < $1.index }
        return ExploreSummary(
            outcomes: finished, notRun: indices.count - finished.count, elapsed: ContinuousClock.now - started)
    }

    /// Runs schedule `index`; shrinks it when it violates an invariant.
    static func explore(_ index: Int, generator: ScheduleGenerator, options: ExploreOptions) -> ExploreOutcome {
        let document = generator.schedule(index)
        let (result, violated) = judge(document, options: options.runner)
        var outcome = ExploreOutcome(
            index: index, name: generator.name(index), violated: violated, result: result, shrunk: nil)
        if !violated.isEmpty {
            outcome.shrunk = shrink(document, violating: violated, options: options)
        }
        return outcome
    }

    /// Runs `document` and returns its result with the invariants it violated.
    static func judge(_ document: JSONValue, options: ScenarioRunOptions, keeping folder: String? = nil)
        -> (ScenarioResult, [String])
    {
        let name: String
        if case .string(let text)? = document["name"] { name = text } else { name = "schedule" }
        let text = JSONText.document(document, keyOrder: ScheduleGenerator.keyOrder)
        let scenario: Scenario
        switch ScenarioLoader.load(Array(text.utf8), file: name + ".json") {
        case .success(let loaded): scenario = loaded
        case .failure(let errors):
            // A generator or shrinker defect: reported as a violation of its own, never dropped.
            var result = ScenarioResult(
                name: name, file: nil, description: "", seed: 0, duration: .zero, verdicts: [], faultTimeline: [],
                ledgerJSON: nil, error: "the generated schedule does not load: \(errors)")
            result.verdicts = [
                Verdict(
                    key: "schedule-loads", status: .failed, expected: "a valid scenario",
                    observed: "\(errors.errors.count) errors", evidence: errors.errors.map(\.description))
            ]
            return (result, ["schedule-loads"])
        }
        var runOptions = options
        runOptions.keepFolder = folder
        if folder != nil { runOptions.bundleCapture = .always }
        var result = ScenarioRunner.run(scenario, options: runOptions)
        // Judged by the invariants alone: an optional fault's or an event's fate is not a violation.
        result.verdicts = result.verdicts.filter { ScheduleInvariants.keys.contains($0.key) }
        var violated = result.verdicts.filter { $0.status == .failed }.map(\.key)
        if let error = result.error, result.skipReason == nil, violated.isEmpty, options.stop?.isRequested != true {
            result.verdicts.append(
                Verdict(key: "run-error", status: .failed, expected: "the run completes", observed: error))
            violated = ["run-error"]
        }
        return (result, violated)
    }

    /// Shrinks `document` while it violates one of `violated`, within the shrink budget; writes it with `--out`.
    public static func shrink(_ document: JSONValue, violating violated: [String], options: ExploreOptions)
        -> ShrunkSchedule
    {
        let deadline = ContinuousClock.now + options.shrinkBudget
        var current = document
        var target = Set(violated)
        var runs = 0
        var steps = 0
        var budgetSpent = false
        let log = options.shrinkLog
        log?("shrinking \(target.sorted().joined(separator: ", ")): \(JSONText.compact(document))")
        // The schedule as found must violate again before any step is tried: a violation that does not is written
        // as found, marked unconfirmed, instead of spending the budget on candidates that cannot be confirmed.
        let confirmed = reproduces(document, violating: target, options: options, runs: &runs)
        if let confirmed {
            target = confirmed
        } else {
            log?("  the schedule as found did not violate again in two of three runs: written as found")
        }
        search: while confirmed != nil {
            for candidate in ScheduleShrinker.candidates(current) {
                if ContinuousClock.now >= deadline || options.runner.stop?.isRequested == true {
                    budgetSpent = true
                    break search
                }
                runs += 1
                let first = Set(violations(of: candidate, options: options)).intersection(target)
                guard !first.isEmpty else {
                    log?("  no violation: \(Self.changes(from: current, to: candidate))")
                    continue
                }
                guard let again = reproduces(candidate, violating: first, options: options, runs: &runs) else {
                    log?("  violated once, not confirmed: \(Self.changes(from: current, to: candidate))")
                    continue
                }
                log?("  kept (3 violations): \(Self.changes(from: current, to: candidate))")
                current = candidate
                target = again
                steps += 1
                continue search
            }
            break
        }
        // The written file expects exactly the invariants it violates.
        guard case .object(var members) = current else { return unshrunk(document, violated) }
        let name: String
        if case .string(let text)? = members["name"] { name = text } else { name = "schedule" }
        let violates = target.sorted().joined(separator: ", ")
        members["description"] = .string(
            confirmed == nil
                ? "Found by squall explore --seed \(options.seed), not shrunk: it violated \(violates) once and not "
                    + "again in two of three more runs (it hangs on a race)."
                : "Found by squall explore --seed \(options.seed) and shrunk in \(steps) steps: violates \(violates).")
        members["expect"] = .object(
            Dictionary(
                uniqueKeysWithValues: target.filter { $0 != "timeout" && $0 != "run-error" }.map { ($0, .bool(true)) }))
        if case .object(let expect)? = members["expect"], expect.isEmpty {
            // A timeout or a run error alone: the file still needs an expectation; the invariants hold it.
            members["expect"] = ScheduleInvariants.expectations(for: .object(members))
        }
        let shrunk = JSONValue.object(members)
        var result = ShrunkSchedule(
            document: shrunk, violated: target.sorted(), runs: runs, steps: steps,
            from: ScheduleShrinker.size(document), to: ScheduleShrinker.size(shrunk), file: nil, bundle: nil,
            budgetSpent: budgetSpent, confirmed: confirmed != nil)
        if let out = options.out {
            let file = out + "/" + name + ".json"
            do {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                try JSONText.document(shrunk, keyOrder: ScheduleGenerator.keyOrder).write(
                    toFile: file, atomically: true, encoding: .utf8)
                result.file = file
                _ = judge(shrunk, options: options.runner, keeping: out + "/" + name)
                result.bundle = out + "/" + name
            } catch {
                result.file = nil
                result.writeError = "\(file) could not be written: \(error)"
            }
        }
        return result
    }

    /// Whether `document` violates one of `violated` in two of at most three more runs (a violation that hangs on a
    /// race, a cut before or after a 104, may miss one run): the invariants it violated in both, or nil.
    private static func reproduces(
        _ document: JSONValue, violating violated: Set<String>, options: ExploreOptions, runs: inout Int
    ) -> Set<String>? {
        var confirmed: [Set<String>] = []
        var missed = 0
        // Stops as soon as two of three can no longer be reached, or the run is being stopped.
        while confirmed.count < 2, missed < 2, options.runner.stop?.isRequested != true {
            runs += 1
            let again = Set(violations(of: document, options: options)).intersection(violated)
            if again.isEmpty { missed += 1 } else { confirmed.append(again) }
        }
        return confirmed.count == 2 ? confirmed[0].union(confirmed[1]) : nil
    }

    private static func violations(of document: JSONValue, options: ExploreOptions) -> [String] {
        options.shrinkJudge?(document) ?? judge(document, options: options.runner).1
    }

    /// The members a shrink candidate changed, compactly, for the shrink log.
    static func changes(from current: JSONValue, to candidate: JSONValue) -> String {
        guard case .object(let before) = current, case .object(let after) = candidate else {
            return JSONText.compact(candidate)
        }
        let keys = Set(before.keys).union(after.keys).sorted().filter { before[$0] != after[$0] }
        return keys.map { "\($0): " + (after[$0].map { JSONText.compact($0) } ?? "(removed)") }.joined(separator: "; ")
    }

    private static func unshrunk(_ document: JSONValue, _ violated: [String]) -> ShrunkSchedule {
        ShrunkSchedule(
            document: document, violated: violated, runs: 0, steps: 0, from: ScheduleShrinker.size(document),
            to: ScheduleShrinker.size(document), file: nil, bundle: nil, budgetSpent: false)
    }
}
