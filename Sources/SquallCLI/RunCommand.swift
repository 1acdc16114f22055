import Foundation
import Harness
import Scenario
import ScenarioReports
import SquallNet

/// `squall run`: runs scenario files (default `Scenarios/`) against the embedded reference server (or
/// `--upstream`), with reports; `--smoke` runs the built-in end-to-end smoke check instead.
enum RunCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["run"],
        summary: "Run scenario files (default Scenarios/) through the chaos proxy and judge what happened.",
        usage: "[PATH...] [--filter TEXT] [--seed N] [--repeat N] [--shard I/N] [--upstream URL] [--junit FILE] ...",
        options: [
            .value("--filter", "TEXT", help: "Run only scenarios whose name contains TEXT."),
            .value("--seed", "N", help: "Replace every scenario's seed."),
            .value("--repeat", "N", help: "Run each scenario N times; report scenarios whose verdict varies."),
            .value("--shard", "I/N", help: "Run the I-th of N deterministic parts of the catalog (1 ≤ I ≤ N)."),
            .value("--upstream", "URL", help: "Run against this server; expectations on its state are skipped."),
            .value("--junit", "FILE", help: "Write a JUnit XML report (one testcase per scenario)."),
            .value("--json", "FILE", help: "Write the full results as JSON (verdicts, fault timeline, ledgers)."),
            .value("--out", "DIR", help: "Write debug bundles here, a folder per scenario (pcaps, keylog, logs)."),
            .value(
                "--capture", "MODE", help: "Keep bundles never, on-failure (default with --out) or always."),
            .flag("--smoke", help: "Run the built-in smoke check instead (with --size, --seed, --interop, --keep)."),
            .value("--size", "SIZE", help: "Smoke check: upload body size. Default 8MiB."),
            .value("--interop", "N", help: "Smoke check: the interop version the client sends (3 to 8). Default 6."),
            .value("--keep", "DIR", help: "Smoke check: keep the CA and the TLS key log in DIR."),
        ],
        maxPositionals: Int.max,
        discussion: """
            Each scenario starts the reference server, the chaos proxy and the reference client on loopback
            ports with a fresh CA and store, plays its faults and events, and judges its expectations from the
            client's ledger, the proxy's transcript and the server's state. One line per scenario (PASS or FAIL
            and its time); each failure lists the unmet expectations with expected vs observed and the evidence.
            Exit status 0 only when every scenario passed (and, with --repeat, every run agreed); 1 otherwise; 2
            for a usage mistake or an invalid scenario file (every error is listed, as by 'squall validate').
            With --out DIR each failed scenario (every scenario with --capture always) leaves a debug bundle in
            DIR/<name>/: decrypted.pcap (both legs' plaintext, no key needed), wire.pcap (the real loopback
            traffic, when live capture is permitted) with keylog.txt, transcript.jsonl, ledger.json, server.log,
            report.json and a README.txt; the console prints where it is and the tshark command that opens it.
            """
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        if arguments.has("--smoke") { return try SmokeRun.run(arguments, context: context) }
        let options = try RunOptions(arguments)
        let (loaded, errors) = ScenarioLoader.loadCatalog(
            paths: arguments.positionals.isEmpty ? ["Scenarios"] : arguments.positionals)
        guard errors.isEmpty else {
            for error in errors { context.console.printError("\(error)") }
            context.console.printError("squall run: \(errors.count) errors in the scenario files; nothing was run")
            return 2
        }
        let scenarios = options.select(loaded)
        guard !scenarios.isEmpty else {
            context.console.printError("squall run: no scenario matches")
            return 1
        }
        let started = ContinuousClock.now
        var groups: [ScenarioRuns] = []
        for (index, scenario) in scenarios.enumerated() {
            var runs: [ScenarioResult] = []
            for run in 1...options.repeats {
                var runner = options.runner
                // Each repeat keeps its own bundle (DIR/run-K/<name>), so a flaky run's is not overwritten.
                if options.repeats > 1 { runner.keepFolder = runner.keepFolder.map { $0 + "/run-\(run)" } }
                runs.append(options.discardBundle(of: ScenarioRunner.run(scenario, options: runner)))
            }
            let flaky = Set(runs.map { $0.verdicts.map(\.status) + [$0.passed ? .passed : .failed] }).count > 1
            let group = ScenarioRuns(runs: runs, flaky: flaky)
            groups.append(group)
            // The first failing run speaks for the scenario (its bundle is the one worth opening).
            let result = group.representative
            context.console.print(ConsoleReport.line(for: result, color: context.console.usesColor))
            for line in ConsoleReport.failureDetails(for: result) { context.console.print("    " + line) }
            if context.console.isTerminal, index + 1 < scenarios.count {
                context.console.redraw(
                    ConsoleReport.progress(done: index + 1, total: scenarios.count, elapsed: .now - started))
            }
        }
        let results = groups.map(\.representative)
        let flaky = groups.filter(\.flaky).map { $0.representative.name }
        if context.console.isTerminal { context.console.redraw("") }
        let elapsed = ContinuousClock.now - started
        try options.writeReports(groups, elapsed: elapsed)
        // Runner notes (e.g. a live capture not permitted) once each, not once per scenario.
        var noted: Set<String> = []
        for note in results.flatMap(\.notes) where noted.insert(note).inserted {
            context.console.printError("squall run: note: \(note)")
        }
        context.console.print(ConsoleReport.summary(results, elapsed: elapsed))
        for name in flaky { context.console.print("FLAKY \(name): the verdicts differed between runs") }
        return results.allSatisfy(\.passed) && flaky.isEmpty ? 0 : 1
    }
}

/// The flags of `squall run` as values; each mistake is a `UsageError` naming the flag.
struct RunOptions {
    var filter: String?
    var repeats = 1
    var shard: (index: Int, count: Int)?
    var junit: String?
    var json: String?
    var capture = "never"
    var runner = ScenarioRunOptions()

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let path = RunCommand.spec.path
        filter = arguments["--filter"]
        runner.seed = try arguments["--seed"].map(Self.seed)
        if let text = arguments["--repeat"] {
            guard let count = Int(text), (1...100).contains(count) else {
                throw UsageError("--repeat must be a count from 1 to 100, not '\(text)'", command: path)
            }
            repeats = count
        }
        if let text = arguments["--shard"] {
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
                throw UsageError("--shard must be I/N with 1 ≤ I ≤ N, such as 2/4, not '\(text)'", command: path)
            }
            shard = (parts[0], parts[1])
        }
        runner.upstream = arguments["--upstream"]
        junit = arguments["--junit"]
        json = arguments["--json"]
        runner.keepFolder = arguments["--out"]
        if runner.keepFolder != nil { capture = "on-failure" }
        if let mode = arguments["--capture"] {
            guard ["never", "on-failure", "always"].contains(mode) else {
                throw UsageError("--capture must be never, on-failure or always, not '\(mode)'", command: path)
            }
            guard runner.keepFolder != nil || mode == "never" else {
                throw UsageError("--capture \(mode) needs --out DIR", command: path)
            }
            capture = mode
        }
        if capture == "never" { runner.keepFolder = nil }
        runner.squallBinary = Self.executablePath()
    }

    /// A `--seed` value: a whole number from 0 to 2^64-1.
    static func seed(_ text: String) throws(UsageError) -> UInt64 {
        guard let seed = UInt64(text) else {
            throw UsageError(
                "--seed must be a whole number from 0 to 2^64-1, not '\(text)'", command: RunCommand.spec.path)
        }
        return seed
    }

    /// The scenarios to run: by name filter, then the shard (every N-th by sorted name, from the I-th).
    func select(_ scenarios: [Scenario]) -> [Scenario] {
        let sorted = scenarios.filter { filter.map($0.name.contains) ?? true }.sorted { $0.name < $1.name }
        guard let shard else { return sorted }
        return sorted.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }

    /// Removes a bundle the capture mode does not want (a passing scenario's, on failure only); the result then
    /// names none.
    func discardBundle(of result: ScenarioResult) -> ScenarioResult {
        guard let bundle = result.bundle, capture == "on-failure", result.passed else { return result }
        try? FileManager.default.removeItem(atPath: bundle)
        var kept = result
        kept.bundle = nil
        return kept
    }

    func writeReports(_ groups: [ScenarioRuns], elapsed: Duration) throws {
        if let json {
            try JSONReport.render(groups, elapsed: elapsed).write(toFile: json, atomically: true, encoding: .utf8)
        }
        if let junit {
            try JUnitReport.render(groups.map(\.representative), suiteName: "squall").write(
                toFile: junit, atomically: true, encoding: .utf8)
        }
    }

    /// This process's executable, for the child processes of kill events.
    static func executablePath() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }
}
