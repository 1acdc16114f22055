import Foundation
import Scenario
import ScenarioReports
import SquallNet

/// Which debug bundles a catalog run keeps (`squall run --capture`): none, the failing scenarios' only, or all.
public enum BundleCapture: String, Sendable, CaseIterable {
    case never
    case onFailure = "on-failure"
    case always
}

/// How `squall run` runs a catalog: which scenarios (name filter, then a shard), how many times each, which
/// bundles stay, and the options of each scenario's run. Defaults: every scenario once, no bundles.
public struct CatalogRunOptions: Sendable {
    /// Only scenarios whose name contains this. Default nil: all.
    public var filter: String?
    /// The I-th (from 1) of N parts: every N-th scenario by sorted name, from the I-th. Default nil: all.
    public var shard: (index: Int, count: Int)?
    /// Runs per scenario; more than one reports the scenarios whose verdicts differ as flaky. Default 1.
    public var repeats = 1
    /// Which bundles stay in `runner.keepFolder`. Default `.never`.
    public var capture = BundleCapture.never
    /// Each run's options; `keepFolder` is where bundles go (a `run-K` folder per repeat when `repeats` > 1).
    public var runner = ScenarioRunOptions()

    public init() {}
}

/// A catalog run, scenario by scenario: the selection, each scenario's repeats and flaky detection, the bundles
/// the capture mode does not want removed, the reports written. The CLI prints what comes out.
public enum CatalogRun {
    /// The scenarios to run: by name filter, then the shard (every N-th by sorted name, from the I-th).
    public static func select(_ scenarios: [Scenario], options: CatalogRunOptions) -> [Scenario] {
        let sorted = scenarios.filter { options.filter.map($0.name.contains) ?? true }.sorted { $0.name < $1.name }
        guard let shard = options.shard else { return sorted }
        return sorted.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }

    /// Runs `scenario` `options.repeats` times; flaky when the runs' verdicts (or outcomes) differ. Nil when the
    /// run was stopped (`runner.stop`) before every repeat was judged: a scenario cut short has no verdict.
    public static func run(_ scenario: Scenario, options: CatalogRunOptions) -> ScenarioRuns? {
        var runs: [ScenarioResult] = []
        for run in 1...options.repeats {
            var runner = options.runner
            runner.bundleCapture = options.capture
            // Each repeat keeps its own bundle (DIR/run-K/<name>), so a flaky run's is not overwritten.
            if options.repeats > 1 { runner.keepFolder = runner.keepFolder.map { $0 + "/run-\(run)" } }
            let result = ScenarioRunner.run(scenario, options: runner)
            if let stop = runner.stop, stop.isRequested {
                stop.noteStopped("scenario \(scenario.name)" + (options.repeats > 1 ? " (run \(run))" : ""))
                return nil
            }
            runs.append(discardBundle(of: result, capture: options.capture))
        }
        let flaky = Set(runs.map { $0.verdicts.map(\.status) + [$0.passed ? .passed : .failed] }).count > 1
        return ScenarioRuns(runs: runs, flaky: flaky)
    }

    /// Removes a bundle the capture mode does not want (a passing scenario's, on failure only); the result then
    /// names none.
    static func discardBundle(of result: ScenarioResult, capture: BundleCapture) -> ScenarioResult {
        guard let bundle = result.bundle, capture == .onFailure, result.passed else { return result }
        try? FileManager.default.removeItem(atPath: bundle)
        var kept = result
        kept.bundle = nil
        return kept
    }

    /// The runner's notes (e.g. a live capture not permitted), each once, in the order they first came.
    public static func notes(_ results: [ScenarioResult]) -> [String] {
        var noted: Set<String> = []
        return results.flatMap(\.notes).filter { noted.insert($0).inserted }
    }

    /// Whether the run passed: every scenario passed and none was flaky.
    public static func passed(_ groups: [ScenarioRuns]) -> Bool {
        groups.allSatisfy { $0.representative.passed && !$0.flaky }
    }

    /// Writes the `--json` report (every run), the JUnit report (each scenario's representative run) and the
    /// `--html` page (`HTMLReport`, told the run's seed and shard by `page`). After a stop they hold the scenarios
    /// that finished (of `total`), and the stop's line says so. Returns the HTML page's size and how long it took
    /// to render and write, when one was written.
    @discardableResult
    public static func writeReports(
        _ groups: [ScenarioRuns], elapsed: Duration, json: String?, junit: String?, html: String? = nil,
        page: HTMLReport.Context = HTMLReport.Context(), total: Int? = nil, stop: ProcessStop? = nil
    ) throws -> (bytes: Int, took: Duration)? {
        if let json {
            try JSONReport.render(groups, elapsed: elapsed).write(toFile: json, atomically: true, encoding: .utf8)
        }
        if let junit {
            try JUnitReport.render(groups.map(\.representative), suiteName: "squall").write(
                toFile: junit, atomically: true, encoding: .utf8)
        }
        var written: (bytes: Int, took: Duration)?
        if let html {
            let started = ContinuousClock.now
            var page = page
            page.elapsed = elapsed
            let text = HTMLReport.render(groups, context: page)
            try text.write(toFile: html, atomically: true, encoding: .utf8)
            written = (text.utf8.count, ContinuousClock.now - started)
        }
        guard let stop, stop.isRequested else { return written }
        let finished = "\(groups.count) of \(total ?? groups.count) scenarios"
        for file in [json, junit, html].compactMap({ $0 }) {
            stop.noteKept("the partial report \(file) (\(finished))")
        }
        return written
    }
}
