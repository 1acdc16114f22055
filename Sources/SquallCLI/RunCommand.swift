import Foundation
import Harness
import Scenario
import ScenarioReports

/// `squall run`: runs scenario files (default `Scenarios/`) against the embedded reference server (or
/// `--upstream`), with reports.
enum RunCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["run"],
        summary: "Run scenario files (default Scenarios/) through the chaos proxy and judge what happened.",
        usage:
            "[PATH...] [--filter TEXT] [--http-matrix] [--seed N] [--repeat N] [--shard I/N] [--upstream URL] [--server-profile FILE] "
            + "[--junit FILE] ...",
        options: [
            .value("--filter", "TEXT", help: "Run only scenarios whose name contains TEXT."),
            .flag(
                "--interop-matrix",
                help: "Run each scenario at every interop version it applies to; end with a table of verdicts."),
            .flag(
                "--http-matrix",
                help: "Run each scenario over HTTP/1.1 and over HTTP/2 (name@h2), unless it names its client.http."),
            .value("--seed", "N", help: "Replace every scenario's seed."),
            .value("--repeat", "N", help: "Run each scenario N times; report scenarios whose verdict varies."),
            .value("--shard", "I/N", help: "Run the I-th of N deterministic parts of the catalog (1 ≤ I ≤ N)."),
            .value(
                "--upstream", "URL",
                help: "Run against this server (its creation URL); scenarios it cannot meet are skipped with why."),
            .value(
                "--server-profile", "FILE",
                help: "What the --upstream server serves and allows (JSON, Scenarios/server-profile.schema.json)."),
            .value("--junit", "FILE", help: "Write a JUnit XML report (one testcase per scenario)."),
            .value("--json", "FILE", help: "Write the full results as JSON (verdicts, fault timeline, ledgers)."),
            .value("--html", "FILE", help: "Write a self-contained HTML report: summary, failures, upload charts."),
            .value("--out", "DIR", help: "Write debug bundles here, a folder per scenario (pcaps, keylog, logs)."),
            .value(
                "--capture", "MODE", help: "Keep bundles never, on-failure (default with --out) or always."),
        ] + ScenarioLimitOptions.options,
        maxPositionals: Int.max,
        discussion: """
            With --http-matrix each scenario runs as it is and at the other protocol (name@h2, or name@http1.1
            for a scenario that names client.http h2); one that cannot apply there is skipped with its reason.
            With --interop-matrix each scenario runs at every interop version it applies to (the versions its
            server serves, 'final' included when listed; a scenario that names its client.interop keeps it) as
            name@version, and a table of verdicts, a row per scenario and a column per version, closes the run.
            Each scenario starts the reference server, the chaos proxy and the reference client on loopback
            ports with a fresh CA and store, plays its faults and events, and judges its expectations from the
            client's ledger, the proxy's transcript and the server's state. One line per scenario (PASS or FAIL
            and its time); each failure lists the unmet expectations with expected vs observed and the evidence.
            Exit status 0 only when no scenario failed (and, with --repeat, every run agreed); 1 otherwise; 2
            for a usage mistake or an invalid scenario or profile file (every error is listed, as by 'squall
            validate'); a scenario over a limit (asset size, asset bytes or files, faults, events, timeout) is an
            error naming the flag that raises it. Against --upstream, a scenario that needs what the server's
            profile does not give (auth, a size limit, a restart, retention, an interop version) is reported 'SKIP
            name: needs …', never run; the server's answers are judged against the draft (server-conformance).
            With --out DIR each failed scenario (every scenario with --capture always) leaves a debug bundle in
            DIR/<name>/: decrypted.pcap (both legs' plaintext, no key needed), wire.pcap (the real loopback
            traffic, when live capture is permitted) with keylog.txt, transcript.jsonl, ledger.json, server.log,
            report.json and a README.txt; the console prints where it is and the tshark command that opens it.
            Stopped by a signal, the scenario under way is not judged: its child processes are stopped, its folder
            (CA key, store, journal, assets) removed, or kept as a bundle with --out; the reports hold the scenarios
            that finished.
            """,
        stopsOnSignal: true
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        var options = try RunOptions(arguments)
        options.catalog.runner.stop = context.stop
        options.catalog.runner.clientExtension = context.clientExtension
        let (loaded, errors) = ScenarioFiles.loadCatalog(
            paths: arguments.positionals.isEmpty ? ["Scenarios"] : arguments.positionals, limits: options.limits)
        guard errors.isEmpty else {
            for error in errors { context.console.printError("\(error)") }
            context.console.printError("squall run: \(errors.count) errors in the scenario files; nothing was run")
            return 2
        }
        var scenarios = CatalogRun.select(loaded, options: options.catalog)
        if options.interopMatrix {
            scenarios = InteropMatrix.expand(scenarios, profile: options.catalog.runner.profile)
        }
        if options.httpMatrix { scenarios = HTTPMatrix.expand(scenarios) }
        guard !scenarios.isEmpty else {
            context.console.printError("squall run: no scenario matches")
            return 1
        }
        if let hosted = context.clientExtension {
            context.console.printError(
                "squall run: the client runs the extension \(hosted.name) (BackgroundUploadURLBase \(hosted.urlBase))")
        }
        let started = ContinuousClock.now
        var groups: [ScenarioRuns] = []
        for (index, scenario) in scenarios.enumerated() {
            var catalog = options.catalog
            if context.console.isTerminal {
                // The scenario's transfers on the redrawn line: bar, bytes, rate, time left, finalising.
                let progress = UploadProgress(
                    console: context.console, assets: [],
                    prefix: "[\(index + 1)/\(scenarios.count)] \(scenario.name)  ", explains: false)
                catalog.runner.transferObserver = { progress.handle($0) }
            }
            guard let group = CatalogRun.run(scenario, options: catalog) else { break }
            groups.append(group)
            // The first failing run speaks for the scenario (its bundle is the one worth opening).
            let result = group.representative
            // The progress line gives way to the scenario's verdict line.
            if context.console.isTerminal { context.console.redraw("") }
            context.console.print(ConsoleReport.line(for: result, color: context.console.usesColor))
            for line in ConsoleReport.failureDetails(for: result) { context.console.print("    " + line) }
            if context.console.isTerminal, index + 1 < scenarios.count {
                context.console.redraw(
                    ConsoleReport.progress(done: index + 1, total: scenarios.count, elapsed: .now - started))
            }
        }
        let results = groups.map(\.representative)
        if context.console.isTerminal { context.console.redraw("") }
        let elapsed = ContinuousClock.now - started
        let page = HTMLReport.Context(
            seed: options.catalog.runner.seed, shard: options.catalog.shard.map { ($0.index, $0.count) })
        let html = try CatalogRun.writeReports(
            groups, elapsed: elapsed, json: options.json, junit: options.junit, html: options.html, page: page,
            total: scenarios.count, stop: context.stop)
        // Runner notes (e.g. a live capture not permitted) once each, not once per scenario.
        for note in CatalogRun.notes(results) { context.console.printError("squall run: note: \(note)") }
        if options.interopMatrix { for line in InteropMatrixTable.lines(results) { context.console.print(line) } }
        context.console.print(ConsoleReport.summary(results, elapsed: elapsed))
        if let file = options.html, let html {
            let milliseconds =
                html.took.components.seconds * 1000 + html.took.components.attoseconds / 1_000_000_000_000_000
            context.console.print("report: \(file) (\(html.bytes / 1024) KiB, written in \(milliseconds) ms)")
        }
        for group in groups where group.flaky {
            context.console.print("FLAKY \(group.representative.name): the verdicts differed between runs")
        }
        return CatalogRun.passed(groups) ? 0 : 1
    }
}

/// The flags of `squall run` as values; each mistake is a `UsageError` naming the flag.
struct RunOptions {
    var junit: String?
    var json: String?
    var html: String?
    var catalog = CatalogRunOptions()
    var limits: ScenarioLimits
    /// `--interop-matrix`: every scenario at every version it applies to (`InteropMatrix`).
    var interopMatrix = false
    /// `--http-matrix`: every scenario over HTTP/1.1 and HTTP/2 (`HTTPMatrix`).
    var httpMatrix = false

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let path = RunCommand.spec.path
        limits = try ScenarioLimitOptions.parse(arguments, command: path)
        catalog.filter = arguments["--filter"]
        interopMatrix = arguments.has("--interop-matrix")
        httpMatrix = arguments.has("--http-matrix")
        catalog.runner.seed = try arguments["--seed"].map(Self.seed)
        if let text = arguments["--repeat"] {
            guard let count = Int(text), (1...100).contains(count) else {
                throw UsageError("--repeat must be a count from 1 to 100, not '\(text)'", command: path)
            }
            catalog.repeats = count
        }
        if let text = arguments["--shard"] {
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
                throw UsageError("--shard must be I/N with 1 ≤ I ≤ N, such as 2/4, not '\(text)'", command: path)
            }
            catalog.shard = (parts[0], parts[1])
        }
        catalog.runner.upstream = arguments["--upstream"]
        if let file = arguments["--server-profile"] {
            switch ScenarioFiles.loadProfile(file) {
            case .success(let profile): catalog.runner.profile = profile
            case .failure(let errors): throw UsageError(errors.description, command: path)
            }
            if catalog.runner.upstream == nil, let url = catalog.runner.profile?.url { catalog.runner.upstream = url }
            guard catalog.runner.upstream != nil else {
                throw UsageError("--server-profile needs --upstream URL, or a \"url\" in the profile", command: path)
            }
        }
        junit = arguments["--junit"]
        json = arguments["--json"]
        html = arguments["--html"]
        catalog.runner.keepFolder = arguments["--out"]
        if catalog.runner.keepFolder != nil { catalog.capture = .onFailure }
        if let mode = arguments["--capture"] {
            guard let capture = BundleCapture(rawValue: mode) else {
                throw UsageError("--capture must be never, on-failure or always, not '\(mode)'", command: path)
            }
            guard catalog.runner.keepFolder != nil || capture == .never else {
                throw UsageError("--capture \(mode) needs --out DIR", command: path)
            }
            catalog.capture = capture
        }
        if catalog.capture == .never { catalog.runner.keepFolder = nil }
        catalog.runner.squallBinary = Self.executablePath()
    }

    /// A `--seed` value: a whole number from 0 to 2^64-1.
    static func seed(_ text: String) throws(UsageError) -> UInt64 {
        guard let seed = UInt64(text) else {
            throw UsageError(
                "--seed must be a whole number from 0 to 2^64-1, not '\(text)'", command: RunCommand.spec.path)
        }
        return seed
    }

    /// This process's executable, for the child processes of kill events.
    static func executablePath() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }
}
