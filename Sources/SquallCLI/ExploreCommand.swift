import Exploration
import Foundation
import Harness
import Scenario
import ScenarioReports
import SquallCore

/// `squall explore`: random fault schedules judged by invariants; each violation shrunk to a scenario file.
enum ExploreCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["explore"],
        summary: "Run random fault schedules, judge invariants, shrink each violation to a scenario file.",
        usage:
            "[--count N] [--seed S] [--time-budget DURATION] [--jobs K] [--shard I/N] [--upstream URL] "
            + "[--server-profile FILE] [--out DIR] [--junit FILE] [--shrink-budget DURATION] [--shrink-log] [--campaign random|kills] "
            + "[--asset-size SIZE]",
        options: [
            .value("--count", "N", help: "Schedules in the campaign (every shard together). Default 100."),
            .value("--seed", "S", help: "The campaign's seed (0 to 2^64-1); the same seed gives the same schedules."),
            .value("--time-budget", "DURATION", help: "Start no schedule after this long (e.g. 10m)."),
            .value("--jobs", "K", help: "Schedules run at once, each with its own ports and folders. Default 1."),
            .value("--shard", "I/N", help: "Run the I-th of N disjoint parts of the campaign (1 ≤ I ≤ N)."),
            .value(
                "--upstream", "URL",
                help: "Explore against this server; invariants needing its state then judge the client's side."),
            .value("--server-profile", "FILE", help: "What the --upstream server serves and allows (JSON)."),
            .value("--out", "DIR", help: "Write each violation's shrunk scenario (NAME.json) and bundle (NAME/)."),
            .value("--junit", "FILE", help: "Write a JUnit XML report (one testcase per schedule)."),
            .value("--shrink-budget", "DURATION", help: "Longest shrink of one violation. Default 2m."),
            .flag("--shrink-log", help: "Print each shrink step to stderr: the change tried and what its runs showed."),
            .value(
                "--campaign", "random|kills",
                help: "random (default): the whole vocabulary; kills: the server or the client killed mid-upload."),
            .value("--asset-size", "SIZE", help: "Every asset this size (for benchmarks). Default: drawn."),
        ],
        discussion: """
            Schedule i of the campaign is drawn from the seed and i alone: 1 to 4 faults of the whole vocabulary
            (every connection and HTTP action, with triggers at offsets, times, ordinals, windows and
            probabilities; all optional), 0 to 3 events (stops with their relaunch, kills, server restarts,
            network down and up, network switches, token expiry, added assets), 1 to 3 assets from bytes to a
            few MiB, an interop version (3 to 10 or none) and client settings. Each is run as a scenario and judged
            by the invariants that apply to it (docs/explore.md "Invariants"): no job acknowledged twice, the retry limit
            respected, no job lost, no acknowledged byte lost, every append at the server's offset, no duplicate
            or corrupt object where a second copy cannot be legitimate, and the run ending before its timeout.
            A violating schedule is shrunk (events, faults and assets dropped, triggers moved earlier, counts
            halved; each step confirmed in two of three re-runs) and written to --out as a scenario file whose expect holds the
            violated invariants, with its debug bundle; `squall run DIR/NAME.json` reproduces it. With --upstream,
            server restarts and token expiry are not drawn and the server's objects are judged only with a
            profile's introspection. --campaign kills draws only kills: even schedules kill the server with
            SIGKILL at a random point of an upload (it restarts from its store), odd ones kill the client at a
            random moment (it relaunches from its journal); the summary counts the kills that happened. The
            summary gives the mean time per schedule by phase (setup, run, judge, teardown) and the rate.
            A progress bar on a terminal; otherwise a line per violation and per tenth.
            Exit status 0 when no invariant was violated, 1 otherwise, 2 for a usage mistake.
            """,
        stopsOnSignal: true
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        var options = try parse(arguments)
        options.runner.stop = context.stop
        options.runner.clientExtension = context.clientExtension
        options.runner.squallBinary = RunOptions.executablePath()
        let console = context.console
        let shardText = options.shard.of > 1 ? ", shard \(options.shard.index)/\(options.shard.of)" : ""
        console.printError(
            "squall explore: seed \(options.seed), \(options.indices.count) of \(options.count) schedules"
                + "\(shardText), \(options.jobs) at once")
        let tenth = max(1, options.indices.count / 10)
        let summary = Explorer.run(options) { progress in
            if let shrunk = progress.last.shrunk {
                if console.isTerminal { console.redraw("") }
                console.print(Self.violationLine(progress.last, shrunk))
            }
            if console.isTerminal {
                console.redraw(Self.bar(progress))
            } else if progress.done % tenth == 0 || progress.done == progress.total {
                console.print(Self.plainProgress(progress))
            }
        }
        if console.isTerminal { console.redraw("") }
        if let junit = arguments["--junit"] {
            try JUnitReport.render(summary.outcomes.map(\.result), suiteName: "squall explore").write(
                toFile: junit, atomically: true, encoding: .utf8)
        }
        let violations = summary.violations.count
        var line =
            "\(summary.outcomes.count) schedules, \(violations) violation\(violations == 1 ? "" : "s") in "
            + "\(ReportText.seconds(summary.elapsed, digits: 1))s"
        if summary.notRun > 0 {
            line +=
                "; \(summary.notRun) not run ("
                + (context.stop.isRequested ? "stopped" : "the time budget was spent") + ")"
        }
        console.print(line)
        if let phases = Self.phases(summary) { console.print(phases) }
        if options.campaign == .kills { console.print(Self.kills(summary)) }
        return violations == 0 ? 0 : 1
    }

    /// `per schedule (mean of 50): setup 120 ms, run 640 ms, judge 3 ms, teardown 40 ms; 2.31 schedules/s`
    static func phases(_ summary: ExploreSummary) -> String? {
        let all = summary.outcomes.compactMap(\.result.phases)
        guard !all.isEmpty else { return nil }
        func mean(_ part: (ScenarioPhases) -> Duration) -> String {
            let total = all.reduce(Duration.zero) { $0 + part($1) }
            return "\(Int64((total / all.count) / .milliseconds(1))) ms"
        }
        let seconds = Double(summary.elapsed / .milliseconds(1)) / 1000
        let rate = seconds > 0 ? String(format: "%.2f", Double(summary.outcomes.count) / seconds) : "-"
        return "per schedule (mean of \(all.count)): setup \(mean(\.setup)), run \(mean(\.run)), "
            + "judge \(mean(\.judge)), teardown \(mean(\.teardown)); \(rate) schedules/s"
    }

    /// `kills that happened: server 98 of 100, client 91 of 100`
    static func kills(_ summary: ExploreSummary) -> String {
        var server = (played: 0, drawn: 0)
        var client = (played: 0, drawn: 0)
        for outcome in summary.outcomes {
            for record in outcome.result.eventTimeline {
                switch record.event {
                case "restart-server":
                    server.drawn += 1
                    if record.played { server.played += 1 }
                case "kill-client", "force-quit":
                    client.drawn += 1
                    if record.played && record.did.contains(where: { $0.hasPrefix("SIGKILL") }) { client.played += 1 }
                default: break
                }
            }
        }
        return "kills that happened: server \(server.played) of \(server.drawn), client \(client.played) of "
            + "\(client.drawn) (the others came after the upload was done)"
    }

    static func violationLine(_ outcome: ExploreOutcome, _ shrunk: ShrunkSchedule) -> String {
        var line = "VIOLATION \(outcome.name): \(outcome.violated.joined(separator: ", ")); "
        if shrunk.confirmed {
            line +=
                "shrunk in \(shrunk.steps) steps (\(shrunk.runs) runs) from \(shrunk.from.faults) faults and "
                + "\(shrunk.from.events) events to \(shrunk.to.faults) and \(shrunk.to.events)"
            if shrunk.budgetSpent { line += " (shrink budget spent)" }
        } else {
            line += "not shrunk: it did not violate again in two of three more runs (it hangs on a race)"
        }
        if let file = shrunk.file { line += ": \(file)" }
        if let error = shrunk.writeError { line += "; \(error)" }
        return line
    }

    /// `[#####-----] 120/1000 2.1/s 0 violations ETA 7m`
    static func bar(_ progress: ExploreProgress) -> String {
        let width = 24
        let filled = progress.total > 0 ? progress.done * width / progress.total : width
        let seconds =
            Double(progress.elapsed.components.seconds)
            + Double(progress.elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(progress.done) / seconds : 0
        let left = rate > 0 ? Int(Double(progress.total - progress.done) / rate) : 0
        let eta = left >= 60 ? "\(left / 60)m\(left % 60)s" : "\(left)s"
        let rateText = String(format: "%.1f", rate)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + "\(progress.done)/\(progress.total) \(rateText)/s \(progress.violations) violations ETA \(eta)"
    }

    static func plainProgress(_ progress: ExploreProgress) -> String {
        "explored \(progress.done)/\(progress.total): \(progress.violations) violations, "
            + "\(ReportText.seconds(progress.elapsed, digits: 1))s"
    }

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> ExploreOptions {
        let path = spec.path
        var options = ExploreOptions()
        if let text = arguments["--count"] {
            guard let count = Int(text), (1...1_000_000).contains(count) else {
                throw UsageError("--count must be a count from 1 to 1000000, not '\(text)'", command: path)
            }
            options.count = count
        }
        if let text = arguments["--seed"] {
            guard let seed = UInt64(text) else {
                throw UsageError("--seed must be a whole number from 0 to 2^64-1, not '\(text)'", command: path)
            }
            options.seed = seed
        } else {
            var random = SystemRandomNumberGenerator()
            options.seed = random.next() >> 16
        }
        if let text = arguments["--jobs"] {
            guard let jobs = Int(text), (1...64).contains(jobs) else {
                throw UsageError("--jobs must be a count from 1 to 64, not '\(text)'", command: path)
            }
            options.jobs = jobs
        }
        if let text = arguments["--shard"] {
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
                throw UsageError("--shard must be I/N with 1 ≤ I ≤ N, such as 2/4, not '\(text)'", command: path)
            }
            options.shard = (parts[0], parts[1])
        }
        if let text = arguments["--time-budget"] {
            options.timeBudget = try DurationOption.parse(text, option: "--time-budget", command: path)
        }
        if let text = arguments["--shrink-budget"] {
            options.shrinkBudget = try DurationOption.parse(text, option: "--shrink-budget", command: path)
        }
        options.runner.upstream = arguments["--upstream"]
        if let file = arguments["--server-profile"] {
            switch ScenarioFiles.loadProfile(file) {
            case .success(let profile): options.runner.profile = profile
            case .failure(let errors): throw UsageError(errors.description, command: path)
            }
            if options.runner.upstream == nil { options.runner.upstream = options.runner.profile?.url }
            guard options.runner.upstream != nil else {
                throw UsageError("--server-profile needs --upstream URL, or a \"url\" in the profile", command: path)
            }
        }
        options.out = arguments["--out"]
        if arguments.has("--shrink-log") {
            options.shrinkLog = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        if let text = arguments["--campaign"] {
            guard let campaign = ScheduleGenerator.Campaign(rawValue: text) else {
                throw UsageError("--campaign must be random or kills, not '\(text)'", command: path)
            }
            options.campaign = campaign
        }
        if let text = arguments["--asset-size"] {
            let size = try ByteSizeOption.parse(text, option: "--asset-size", command: path)
            guard size > 0 else { throw UsageError("--asset-size must be above 0", command: path) }
            options.assetSize = Int64(size)
        }
        return options
    }
}
