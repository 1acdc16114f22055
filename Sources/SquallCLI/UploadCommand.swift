import FaultEngine
import Foundation
import Harness
import ResumableUpload
import Scenario
import SquallCore
import SquallNet
import SquallPhotos
import UploadClient
import UploadJobs

/// `squall upload`: the reference client (the system half, the seed's default extension policy and the transfer
/// engine) uploading files to a creation URL.
enum UploadCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["upload"],
        summary: "Upload files or folders with the reference client (PhotoKit job model, resumable uploads).",
        usage: "--to URL [--ca FILE] [--interop N] [--retry-limit N] [--inflight-limit N] [--append-size SIZE] "
            + "[--token T | --token-url URL [--token-method M] [--token-body B] [--token-content-type T] "
            + "[--token-header 'NAME: VALUE'] [--token-path PATH] | --token-command CMD] [--server-profile FILE] "
            + "[--journal DIR] [--production] [--resume-attempts N] [--backoff D] "
            + "[--backoff-limit D] [--connect-timeout D] [--read-timeout D] [--http h2|http/1.1|auto] "
            + "[--permanent-errors LIST] "
            + "[--no-refresh-auth] [--events] FILE|DIR...",
        options: [
            .value("--to", "URL", help: "The creation URL, e.g. http://127.0.0.1:8080/upload (required)."),
            .value("--ca", "FILE", help: "PEM file of the CAs to trust for https (e.g. the local CA's ca.pem)."),
            .value(
                "--interop", "N",
                help: "Interop version 3 to 10, final (no version field), or none for plain uploads. Default 8."),
            .value("--retry-limit", "N", help: "Retries per job after its first attempt. Default 3."),
            .value("--inflight-limit", "N", help: "Most jobs held at once. Default 16."),
            .value("--append-size", "SIZE", help: "Most bytes per request (split into appends). Default: whole file."),
            .value("--token", "T", help: "A bearer token sent on every request."),
            .value(
                "--token-url", "URL",
                help: "Get bearer tokens from this URL (POST; OAuth token response), refreshed after a 401."),
            .value("--token-method", "M", help: "The token request's method. Default POST."),
            .value("--token-body", "B", help: "The token request's body. Default: empty."),
            .value("--token-content-type", "T", help: "The token request body's Content-Type."),
            .value(
                "--token-header", "'NAME: VALUE'",
                help: "One more field of the token request (an API key); may be given more than once."),
            .value(
                "--token-path", "PATH",
                help: "Where the token is in the JSON answer: access_token (default), data.token, tokens[0].value."),
            .value(
                "--token-command", "CMD",
                help: "Get bearer tokens from the output of this shell command, run again to refresh."),
            .value(
                "--server-profile", "FILE",
                help: "The server's profile (JSON): the newest interop version it serves and how to get a token, "
                    + "unless --interop or a token flag say otherwise."),
            .value(
                "--journal", "DIR",
                help: "Keep the job journal here; rerunning after a crash continues. Default: a temporary one."),
            .flag(
                "--production",
                help: "Runtime limit, backoff between invocations, full backoffs (default: developer mode)."),
            .value("--resume-attempts", "N", help: "Automatic resumes per transfer after a 104. Default 5."),
            .value(
                "--backoff", "D",
                help: "Wait before the first resume or job retry, doubling after (at most 1s in developer mode). "
                    + "Default 1s."),
            .value("--backoff-limit", "D", help: "The longest wait before a resume or job retry. Default 30s."),
            .value("--connect-timeout", "D", help: "Connecting (and TLS) gives up after D. Default 10s."),
            .value(
                "--read-timeout", "D",
                help: "A request with no byte from the server for D times out (a token endpoint's too). Default 60s."),
            .value(
                "--http", "h2|http/1.1|auto",
                help: "HTTP/2 (uploads multiplexed on one connection), HTTP/1.1, or auto: h2 when the server chooses "
                    + "it in ALPN. Default http/1.1."),
            .value(
                "--permanent-errors", "LIST",
                help: "Job errors acknowledged, not retried: comma-separated names, or 'none'. "
                    + "Default badServerResponse,userAuthenticationRequired."),
            .flag("--no-refresh-auth", help: "Give up on a 401 instead of retrying with a refreshed token."),
            .flag(
                "--events",
                help:
                    "Also print a JSON line on stdout for each upload resource journaled (for a harness: squall run's "
                    + "child clients)."),
        ],
        maxPositionals: Int.max,
        discussion: """
            Each file becomes an upload job (folders are walked recursively). The client preflights the server
            with OPTIONS, creates each upload with the interop version's fields, resumes by itself after an
            interruption when the server announced the upload with a 104 (a refused or reset connection while
            resuming is one more attempt), and retries failed jobs up to the retry limit, waiting a backoff
            before each resume and each retry. Progress shows as a bar on a terminal and as plain lines
            otherwise; a summary per file follows. Exit status 0 only when every file was uploaded. With
            --journal, running the same command again after a crash or Ctrl-C continues where it stopped: jobs in
            flight resume from the server's offset, uploaded files are not sent again; without it the journal is a
            temporary folder, removed when the command ends.
            """,
        stopsOnSignal: true
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let options = try UploadOptions(arguments, stop: context.stop)
        let assets: [UploadAsset]
        do {
            assets = try UploadAsset.collect(arguments.positionals)
        } catch let error as AssetError {
            throw UsageError(error.description, command: spec.path)
        }
        let stop = context.stop
        let temporary =
            try options.journal == nil
            ? TemporaryFolder(prefix: "squall-upload-", what: "temporary journal", stop: stop) : nil
        defer { temporary?.remove() }
        let journal = options.journal ?? temporary!.path
        let client = try Client(assets: assets, options: options, journal: journal, hosted: context.clientExtension)
        let progress = UploadProgress(console: context.console, assets: assets, done: client.finished)
        let events = arguments.has("--events")
        let system = try UploadSystem(
            journalFolder: journal, configuration: options.system, extension: client.handler,
            observer: { event in
                progress.handle(event)
                if events, let line = ClientEventLine.line(event) { context.console.print(line) }
                // With a kept journal, the invocations are logged beside it (a harness running this as a child
                // reads them: `InvocationLog`).
                if case .invocation(_, let result) = event, options.journal != nil {
                    InvocationLog.append(result, folder: journal)
                }
            })
        defer { system.close() }
        let registration = stop.whenRequested { system.terminate() }
        defer { stop.withdraw(registration) }
        let summary = try system.run()
        progress.finish()
        let outcomes = client.outcomes(system.ledger)
        let status = report(assets, outcomes, summary, context.console)
        if stop.isRequested {
            let uploaded = assets.filter { outcomes.uploaded[$0.id] != nil }.count
            stop.noteStopped("the upload of \(assets.count) file\(assets.count == 1 ? "" : "s") (\(uploaded) uploaded)")
            if let kept = options.journal { stop.noteKept("the journal \(kept) (the same command continues)") }
        }
        return status
    }

    /// Prints a line per file and the totals; 0 when every file was uploaded.
    private static func report(
        _ assets: [UploadAsset], _ outcomes: ExtensionState, _ summary: UploadSystemSummary, _ console: Console
    ) -> Int32 {
        var uploaded = 0
        for asset in assets {
            if let id = outcomes.uploaded[asset.id] {
                uploaded += 1
                let server = id.isEmpty ? "" : "  server id \(id)"
                console.print("\(console.styled("uploaded", .green))  \(asset.path)  \(asset.size) bytes\(server)")
            } else if let error = outcomes.failed[asset.id] {
                console.print("\(console.styled("failed", .red))    \(asset.path)  \(error.rawValue)")
            } else {
                console.print("\(console.styled("unfinished", .red)) \(asset.path)")
            }
        }
        console.print("upload: \(uploaded) of \(assets.count) files uploaded")
        if let reason = summary.stoppedEarly { console.printError("squall upload: stopped early: \(reason)") }
        return uploaded == assets.count ? 0 : 1
    }
}

/// What runs the client's side: the built-in policy with the flags' settings, or the app's extension
/// (`Squall.main(extension:urlBase:)`), whose outcomes are read from the ledger since it keeps its own records.
private struct Client {
    let handler: any UploadExtension
    private let policy: DefaultUploadPolicy?

    init(assets: [UploadAsset], options: UploadOptions, journal: String, hosted: HostedExtension?) throws {
        if let hosted {
            handler = try hosted.host(
                assets: MutableAssetLibrary(assetIDs: assets.map(\.id)), uploadURL: options.url, journal: journal,
                tokens: options.tokens)
            policy = nil
        } else {
            let policy = try DefaultUploadPolicy(
                assets: assets.map(\.id),
                destination: UploadDestinationTemplate(url: options.url, tokens: options.tokens),
                statePath: journal + "/extension.json", configuration: options.policy)
            handler = policy
            self.policy = policy
        }
    }

    /// The assets already done before this run (the built-in policy's records; an extension's are its own).
    var finished: Set<String> {
        guard let outcomes = policy?.outcomes else { return [] }
        return Set(outcomes.uploaded.keys).union(outcomes.failed.keys)
    }

    /// Each asset's outcome: the policy's records, or the ledger's (a succeeded job with its server id, a failed
    /// one with its error; the latest job of an asset decides).
    func outcomes(_ ledger: JobLedger) -> ExtensionState {
        if let policy { return policy.outcomes }
        var outcomes = ExtensionState()
        for history in ledger.all {
            switch history.state {
            case .succeeded:
                outcomes.uploaded[history.assetID] = history.serverResourceID ?? ""
                outcomes.failed[history.assetID] = nil
            case .failed:
                outcomes.failed[history.assetID] = history.errors.last ?? .badServerResponse
                outcomes.uploaded[history.assetID] = nil
            default: break
            }
        }
        return outcomes
    }
}

/// The flags of `squall upload` as configuration values; each mistake is a `UsageError` naming the flag.
struct UploadOptions {
    var url: String
    var tokens: (any TokenSource)?
    var journal: String?
    var system: UploadSystemConfiguration
    var policy: UploadPolicyConfiguration

    init(_ arguments: ParsedArguments, stop: ProcessStop? = nil) throws(UsageError) {
        let path = UploadCommand.spec.path
        guard let url = arguments["--to"] else { throw UsageError("--to URL is required", command: path) }
        guard (try? HTTPURL(url)) != nil else {
            throw UsageError(
                "--to must be an http or https URL such as http://127.0.0.1:8080/upload, not '\(url)'", command: path)
        }
        guard !arguments.positionals.isEmpty else { throw UsageError("name at least one FILE or DIR", command: path) }
        self.url = url
        let ca = try arguments["--ca"].map { path throws(UsageError) in
            try CAFileOption.check(path, option: "--ca", command: UploadCommand.spec.path)
        }
        var transfer = TransferConfiguration(trustedCAFile: ca)
        if let text = arguments["--interop"] { transfer.interopVersion = try InteropOption.one(text, command: path) }
        if let text = arguments["--append-size"] {
            let size = try ByteSizeOption.parse(text, option: "--append-size", command: path)
            guard size > 0 else { throw UsageError("--append-size must be above 0", command: path) }
            transfer.appendSize = Int64(size)
        }
        var jobs = JobStoreConfiguration()
        jobs.retryLimit = try Self.count(arguments, "--retry-limit", minimum: 0) ?? jobs.retryLimit
        jobs.inFlightLimit = try Self.count(arguments, "--inflight-limit", minimum: 1) ?? jobs.inFlightLimit
        let profile = try Self.profile(arguments)
        tokens = try Self.tokens(arguments, profile: profile, stop: stop)
        if arguments["--interop"] == nil, let newest = profile?.newestInterop {
            transfer.interopVersion = InteropVersion(rawValue: newest)
        }
        journal = arguments["--journal"]
        let production = arguments.has("--production")
        transfer.developerMode = !production
        try Self.readTiming(arguments, into: &transfer)
        system = UploadSystemConfiguration(jobs: jobs, transfer: transfer, developerMode: !production)
        policy = UploadPolicyConfiguration(refreshAuthentication: !arguments.has("--no-refresh-auth"))
        if let list = arguments["--permanent-errors"] { policy.permanentErrors = try Self.jobErrors(list) }
    }

    /// `--server-profile FILE`, read strictly; its mistakes are printed as the loader words them.
    private static func profile(_ arguments: ParsedArguments) throws(UsageError) -> ServerProfile? {
        guard let file = arguments["--server-profile"] else { return nil }
        switch ScenarioFiles.loadProfile(file) {
        case .success(let profile): return profile
        case .failure(let errors): throw UsageError(errors.description, command: UploadCommand.spec.path)
        }
    }

    /// The token source the flags name (one of `--token`, `--token-url`, `--token-command`), else the profile's.
    private static func tokens(
        _ arguments: ParsedArguments, profile: ServerProfile?, stop: ProcessStop?
    ) throws(UsageError) -> (any TokenSource)? {
        let path = UploadCommand.spec.path
        let given = ["--token", "--token-url", "--token-command"].filter { arguments[$0] != nil }
        guard given.count <= 1 else {
            throw UsageError("\(given.joined(separator: ", ")) exclude each other: name one", command: path)
        }
        let details = ["--token-method", "--token-body", "--token-content-type", "--token-header", "--token-path"]
        if let detail = details.first(where: { arguments[$0] != nil }), arguments["--token-url"] == nil {
            throw UsageError("\(detail) shapes the request of --token-url, which is missing", command: path)
        }
        // A silent token endpoint holds the client no longer than a silent upload server (--read-timeout).
        let timeout = try duration(arguments, "--read-timeout") ?? .seconds(10)
        if let token = arguments["--token"] { return StaticToken(token) }
        if let command = arguments["--token-command"] {
            return CommandToken(arguments: ["sh", "-c", command], stop: stop)
        }
        guard let url = arguments["--token-url"] else {
            return profile?.auth.map {
                TokenSources.source($0, trustedCAFile: arguments["--ca"], timeout: timeout, stop: stop)
            }
        }
        guard (try? HTTPURL(url)) != nil else {
            throw UsageError("--token-url must be an http or https URL, not '\(url)'", command: path)
        }
        var request = TokenRequest(url: url)
        request.method = arguments["--token-method"] ?? request.method
        request.body = arguments["--token-body"] ?? request.body
        request.contentType = arguments["--token-content-type"]
        request.tokenPath = arguments["--token-path"] ?? request.tokenPath
        for header in arguments.all("--token-header") {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw UsageError("--token-header must be 'NAME: VALUE', not '\(header)'", command: path)
            }
            request.headers[String(header[..<colon])] = header[header.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return TokenEndpoint(request: request, trustedCAFile: arguments["--ca"], timeout: timeout)
    }

    /// The resume attempts, backoff and timeouts of a transfer.
    private static func readTiming(
        _ arguments: ParsedArguments, into transfer: inout TransferConfiguration
    ) throws(UsageError) {
        transfer.maximumResumeAttempts =
            try count(arguments, "--resume-attempts", minimum: 0) ?? transfer.maximumResumeAttempts
        transfer.backoffBase = try duration(arguments, "--backoff") ?? transfer.backoffBase
        transfer.backoffLimit = try duration(arguments, "--backoff-limit") ?? transfer.backoffLimit
        transfer.connectTimeout = try duration(arguments, "--connect-timeout") ?? transfer.connectTimeout
        transfer.readTimeout = try duration(arguments, "--read-timeout") ?? transfer.readTimeout
        if let text = arguments["--http"] {
            guard let choice = HTTPChoice(rawValue: text) else {
                throw UsageError(
                    "--http must be h2, http/1.1 or auto, not '\(text)'", command: UploadCommand.spec.path)
            }
            transfer.http = choice
        }
    }

    private static func duration(_ arguments: ParsedArguments, _ option: String) throws(UsageError) -> Duration? {
        try arguments[option].map { text throws(UsageError) in
            try DurationOption.parse(text, option: option, command: UploadCommand.spec.path)
        }
    }

    /// `none`, or comma-separated job error names (`badServerResponse,timedOut`).
    private static func jobErrors(_ list: String) throws(UsageError) -> Set<JobError> {
        guard list != "none" else { return [] }
        var errors: Set<JobError> = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let error = JobError(rawValue: String(name)) else {
                let known = JobError.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError(
                    "--permanent-errors: unknown job error '\(name)' (expected 'none' or names among \(known))",
                    command: UploadCommand.spec.path)
            }
            errors.insert(error)
        }
        return errors
    }

    private static func count(_ arguments: ParsedArguments, _ option: String, minimum: Int) throws(UsageError) -> Int? {
        guard let text = arguments[option] else { return nil }
        guard let value = Int(text), value >= minimum else {
            throw UsageError(
                "\(option) must be a whole number of at least \(minimum), not '\(text)'",
                command: UploadCommand.spec.path)
        }
        return value
    }
}
