import Foundation
import Harness
import ResumableUpload
import Scenario
import ScenarioReports
import ServerCheck
import UploadClient

/// `squall check-server URL`: checks a live resumable-upload server's conformance and robustness, case by case at
/// each interop version, and reports a table per version (and JSON, JUnit).
enum CheckServerCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["check-server"],
        summary: "Check a resumable-upload server (its creation URL) against the draft, interop version by version.",
        usage:
            "URL [--interop LIST] [--profile FILE] [--token T] [--ca FILE] [--timeout D] [--json FILE] "
            + "[--junit FILE] | --list",
        options: [
            .value(
                "--interop", "LIST",
                help: "Interop versions to check, e.g. 6,8 or 3-10,final. Default: the profile's, else 3-10."),
            .value("--profile", "FILE", help: "The server's profile (versions, limits, retention, auth) as JSON."),
            .value("--token", "T", help: "A bearer token for every request (default: the profile's auth, if any)."),
            .value("--ca", "FILE", help: "The CA certificate (PEM) an https server's certificate chains to."),
            .value("--timeout", "D", help: "How long each case may take, e.g. 5s. Default 10s."),
            .value("--json", "FILE", help: "Write every case's result as JSON."),
            .value("--junit", "FILE", help: "Write a JUnit XML report: a testsuite per version, a testcase per case."),
            .flag("--list", help: "List the cases (name, interop versions, what each checks) and exit."),
        ],
        maxPositionals: 1,
        discussion: """
            URL is where the server creates uploads (POST), e.g. http://127.0.0.1:8080/upload for 'squall server';
            without it, the profile's url. For each interop version the check runs the draft's conformance cases
            (OPTIONS discovery, plain fallback without or with an unknown version, creations complete, partial,
            empty, cut short, with inconsistent lengths or past max-size, HEAD, PATCH at the right and wrong
            offsets, without or with a wrong Content-Type or offset, completing and after completion, DELETE) and
            robustness cases (a head in 1-byte writes and arriving slowly, a huge head), each on uploads of its
            own, every answer judged by the draft's rules at that version. Cases that need what a version does not
            define, or what the profile does not say the server has (max-size, completed uploads kept), are
            skipped with the reason. Each case fails rather than waits past --timeout. Prints a table per version
            and a summary. Exit status 0 when every case passed or was skipped, 1 when one failed, 2 for a usage
            mistake (an unreadable or invalid profile: each error is printed). Stopped by a signal, the case under
            way is cut short and left out, and the reports hold the cases that finished.
            """,
        stopsOnSignal: true
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let console = context.console
        if arguments.has("--list") {
            for line in ServerCheck.listing() { console.print(line) }
            return 0
        }
        let configuration: ServerCheckConfiguration
        do {
            configuration = try makeConfiguration(arguments)
        } catch let errors as ScenarioErrors {
            for error in errors.errors { console.printError("\(error)") }
            return 2
        }
        let width = ServerCheck.cases.map(\.name.count).max() ?? 0
        var version: Int?
        let started = ContinuousClock.now
        let results = try ServerCheck.run(configuration, stop: context.stop) { result in
            if result.version != version { console.print(ServerCheckReport.header(result.version)) }
            version = result.version
            console.print(ServerCheckReport.row(result, nameWidth: width, color: console.usesColor))
        }
        let elapsed = ContinuousClock.now - started
        try ServerCheck.writeReports(
            results, server: configuration.url, elapsed: elapsed, json: arguments["--json"], junit: arguments["--junit"]
        )
        console.print(ServerCheckReport.summary(results, elapsed: elapsed))
        if context.stop.isRequested {
            context.stop.noteStopped(
                "the check after \(results.count) of \(ServerCheck.caseCount(configuration)) cases")
            for flag in ["--json", "--junit"] {
                if let file = arguments[flag] { context.stop.noteKept("\(flag) \(file) (the finished cases)") }
            }
        }
        return ServerCheckResult.allPassed(results) ? 0 : 1
    }

    /// The configuration the arguments describe; a flag mistake is a `UsageError`, a bad profile `ScenarioErrors`.
    static func makeConfiguration(_ arguments: ParsedArguments) throws -> ServerCheckConfiguration {
        let profile: ServerProfile? =
            switch arguments["--profile"].map(ScenarioFiles.loadProfile) {
            case nil: nil
            case .success(let profile)?: profile
            case .failure(let errors)?: throw errors
            }
        guard let url = arguments.positionals.first ?? profile?.url else {
            throw UsageError("the server's creation URL is missing (squall check-server URL)", command: spec.path)
        }
        guard (try? HTTPURL(url)) != nil else {
            throw UsageError("the URL must be an http or https URL, not '\(url)'", command: spec.path)
        }
        var configuration = ServerCheckConfiguration(url: url)
        configuration.profile = profile
        configuration.versions = try arguments["--interop"].map { text throws(UsageError) in
            try InteropOption.list(text, command: spec.path)
        }
        configuration.token = arguments["--token"]
        if let ca = arguments["--ca"] {
            configuration.trustedCAFile = try CAFileOption.check(ca, option: "--ca", command: spec.path)
        }
        if let text = arguments["--timeout"] {
            let timeout = try DurationOption.parse(text, option: "--timeout", command: spec.path)
            guard timeout > .zero else {
                throw UsageError("--timeout must be above 0, not '\(text)'", command: spec.path)
            }
            configuration.caseTimeout = timeout
        }
        return configuration
    }

}
