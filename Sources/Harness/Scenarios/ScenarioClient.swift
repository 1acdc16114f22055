import Foundation
import Glibc
import JobJournal
import ResumableUpload
import Scenario
import SquallCore
import SquallNet
import SquallPhotos
import Synchronization
import UploadClient
import UploadJobs

/// Where and how the client uploads: the proxy's creation URL, the CA to trust, how to get tokens.
struct ClientTarget: Sendable {
    var creationURL: String
    var caFile: String
    var tokens: TokenRecipe?
    var journal: String
}

/// The reference client a scenario drives, in sessions (a relaunch starts a new one from the same journal):
/// in-process (`UploadSystem` with `DefaultUploadPolicy`), or a child `squall upload` process when an event
/// kills it (`kill-client`, `force-quit`), so that the journal's claims are tested against a real SIGKILL.
final class ScenarioClient: @unchecked Sendable {
    private let spec: ClientSpec
    private let target: ClientTarget
    private let binary: String?
    private let library: MutableAssetLibrary
    private let policy: DefaultUploadPolicy?
    /// The app's extension in place of `policy`, when the run was given one (`HostedExtension`).
    private let host: PhotosExtensionHost?
    private let state = Mutex(SessionState())
    private var assetIDs: [String]
    private let onEnd: @Sendable () -> Void
    /// The paths of the upload resources the client's sessions have put in the journal (told by an in-process
    /// system's observer, or a child's `--events` lines); each one added calls `onEnd` too, to wake the run.
    private let recorded = Mutex<Set<String>>([])
    /// The run's stop, which stops a child client too.
    private let stop: ProcessStop?

    private struct SessionState {
        var system: UploadSystem?
        var child: ChildProcess?
        var running = false
        var results: [String] = []
        var failure: String?
        /// Jobs the in-process sessions created so far, for `at-jobs-created` events.
        var created = 0
        /// The `at-jobs-created` counts that terminated a session, with what was done.
        var terminatedAtJobs: [Int: String] = [:]
    }
    /// The counts of the scenario's `at-jobs-created` events: the session is terminated inside the extension's
    /// invocation when the change block creating that job of the run commits.
    private let terminateAtJobs: Set<Int>
    /// The negative control's defect (`ScenarioRunOptions.clientResumesFromZero`), in-process sessions only.
    private let resumesFromZero: Bool
    /// Told every event of an in-process session's upload system (`ScenarioRunOptions.transferObserver`).
    private let transferObserver: (@Sendable (UploadSystemEvent) -> Void)?

    init(
        spec: ClientSpec, target: ClientTarget, assetIDs: [String], asChildOf binary: String?,
        hosted: HostedExtension? = nil, resumesFromZero: Bool = false, terminateAtJobs: Set<Int> = [],
        stop: ProcessStop? = nil, transferObserver: (@Sendable (UploadSystemEvent) -> Void)? = nil,
        onEnd: @escaping @Sendable () -> Void
    ) throws {
        self.stop = stop
        self.transferObserver = transferObserver
        self.spec = spec
        self.target = target
        self.binary = binary
        self.assetIDs = assetIDs
        self.onEnd = onEnd
        self.library = MutableAssetLibrary(assetIDs: assetIDs)
        self.terminateAtJobs = terminateAtJobs
        self.resumesFromZero = resumesFromZero
        // A silent token endpoint holds the client no longer than a silent upload server (the read timeout).
        let tokens = target.tokens.map {
            TokenSources.source($0, trustedCAFile: target.caFile, timeout: spec.readTimeout, stop: stop)
        }
        if binary == nil, let hosted {
            host = try hosted.host(
                assets: library, uploadURL: target.creationURL, journal: target.journal, tokens: tokens)
            policy = nil
        } else if binary == nil {
            host = nil
            var configuration = UploadPolicyConfiguration(refreshAuthentication: spec.refreshAuth)
            configuration.permanentErrors = Set(spec.permanentErrors.compactMap(JobError.init(rawValue:)))
            policy = try DefaultUploadPolicy(
                library: library, destination: UploadDestinationTemplate(url: target.creationURL, tokens: tokens),
                statePath: target.journal + "/extension.json", configuration: configuration)
        } else {
            host = nil
            policy = nil
        }
    }

    /// Whether a session is running.
    var isRunning: Bool { state.withLock { $0.running } }

    /// Whether the client has settled: no session runs, or the in-process session's system is monitoring the
    /// library with nothing held and nothing running (it would do nothing more until the library changes).
    var isSettled: Bool {
        state.withLock { !$0.running || ($0.system?.isSettled ?? false) }
    }

    /// Ends a monitoring session once it has settled (its `run` returns); a child process ends by itself.
    func finish() {
        state.withLock { $0.system }?.finishMonitoring()
    }

    /// The child's pid, when a child session runs.
    private var childPID: Int32? {
        state.withLock { $0.child.map(\.pid) }
    }

    /// What the `at-jobs-created` event for `count` did, once it happened.
    func terminatedAtJob(_ count: Int) -> String? {
        state.withLock { $0.terminatedAtJobs[count] }
    }

    /// Each `processJobs()` result so far: the in-process sessions', and a child's from its `InvocationLog`.
    var processJobsResults: [String] {
        state.withLock { $0.results } + (binary == nil ? [] : InvocationLog.read(folder: target.journal))
    }

    /// The first error a session ended with, if any.
    var failure: String? { state.withLock { $0.failure } }

    /// Starts a session (the first run, or a relaunch); returns at once.
    func start() throws {
        try state.withLock { (session: inout SessionState) throws in
            guard !session.running else { return }
            session.running = true
            if let binary {
                session.child = try spawn(binary)
            } else {
                session.system = try makeSystem()
            }
        }
        let (system, child) = state.withLock { ($0.system, $0.child) }
        let thread = Thread { [self] in
            if let system {
                do {
                    _ = try system.run()
                } catch {
                    state.withLock { $0.failure = $0.failure ?? "\(error)" }
                }
                system.close()
            } else if let child {
                child.waitUntilExit()
            }
            state.withLock {
                $0.running = false
                $0.system = nil
                $0.child = nil
            }
            onEnd()
        }
        thread.start()
    }

    /// `willTerminate`, then the session stops (a child gets SIGTERM, which does the same); says what it did.
    @discardableResult
    func terminate() -> String {
        let (system, child) = state.withLock { ($0.system, $0.child) }
        system?.terminate()
        if let child, child.isRunning {
            Glibc.kill(child.pid, SIGTERM)
            return "SIGTERM to client pid \(child.pid)"
        }
        return system == nil ? "no client session was running" : "willTerminate, then the in-process session stopped"
    }

    /// SIGKILL to the child client; an in-process client can only be terminated. Says what it did.
    @discardableResult
    func kill() -> String {
        let (system, child) = state.withLock { ($0.system, $0.child) }
        var did = "no client session was running"
        if let child, child.isRunning {
            Glibc.kill(child.pid, SIGKILL)
            did = "SIGKILL to client pid \(child.pid)"
        }
        if let system {
            system.terminate()
            did = "the in-process session terminated"
        }
        return did
    }

    /// What `start()` began, for the event timeline.
    var sessionDescription: String {
        childPID.map { "client relaunched from its journal as pid \($0)" }
            ?? "client relaunched in process from its journal"
    }

    func disableExtension() throws {
        try policy?.disable()
        try host?.setEnabled(false)
    }

    func enableExtension() throws {
        try policy?.enable(authorized: true)
        try host?.setEnabled(true)
    }
    func expireChangeToken() { library.expireChangeTokens() }

    /// New assets in the library; a monitoring session's extension is woken (a child's library is fixed at
    /// launch: it sees them only when relaunched).
    func addAssets(_ ids: [String]) {
        assetIDs += ids
        library.add(ids)
        state.withLock { $0.system }?.libraryChanged()
    }

    /// Whether a session put the upload resource at `path` (its `Location`'s path) in the journal: a client stopped
    /// after that resumes the upload when relaunched.
    func hasRecorded(uploadResource path: String) -> Bool {
        recorded.withLock { $0.contains(path) }
    }

    private func noteRecorded(_ location: String) {
        recorded.withLock { _ = $0.insert(UploadRequest.path(of: location)) }
        onEnd()
    }

    /// Reads a child's stdout until it closes: its `--events` lines say which upload resources it journaled.
    private func readEvents(from pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        let thread = Thread { [self] in
            var pending: [UInt8] = []
            while case let data = handle.availableData, !data.isEmpty {
                pending += data
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if let location = ClientEventLine.uploadResource(in: line) { noteRecorded(location) }
                }
            }
            try? handle.close()
        }
        thread.start()
    }

    /// The ledger in the journal (open it once no session runs).
    func ledger() throws -> JobLedger {
        let journal = try JobJournal(folder: target.journal, store: jobStoreConfiguration)
        defer { journal.close() }
        return journal.ledger
    }

    /// What the app's extension did that a verdict judges, from the conduct log its host keeps in the journal
    /// folder (every session's, a child process's too); empty when it logged nothing.
    func extensionConduct() throws -> [ExtensionConduct] {
        let path = target.journal + "/" + ExtensionConduct.fileName
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        return try data.split(separator: 0x0A).enumerated().map { index, line in
            do {
                return try decoder.decode(ExtensionConduct.self, from: Data(line))
            } catch {
                throw HarnessError("\(path): line \(index + 1) is not an extension conduct record: \(error)")
            }
        }
    }

    private var jobStoreConfiguration: JobStoreConfiguration {
        JobStoreConfiguration(inFlightLimit: spec.inflightLimit, retryLimit: spec.retryLimit)
    }

    private func makeSystem() throws -> UploadSystem {
        guard let handler: any UploadExtension = host ?? policy else { throw HarnessError("no in-process policy") }
        var transfer = TransferConfiguration(
            interopVersion: spec.interop.flatMap(InteropVersion.init(rawValue:)), appendSize: spec.appendSize,
            maximumResumeAttempts: spec.resumeAttempts, backoffBase: .milliseconds(50),
            backoffLimit: .milliseconds(500), developerMode: spec.developerMode, connectTimeout: .seconds(5),
            readTimeout: spec.readTimeout, trustedCAFile: target.caFile)
        transfer.resumesFromZero = resumesFromZero
        transfer.http = HTTPChoice(rawValue: spec.http) ?? .http1
        var configuration = UploadSystemConfiguration(
            jobs: jobStoreConfiguration, transfer: transfer, developerMode: spec.developerMode,
            invocationRuntimeLimit: .seconds(5), invocationBackoff: .milliseconds(20),
            invocationBackoffLimit: .milliseconds(200), idleInvocationLimit: 50)
        // The system keeps monitoring the library after the extension completes: an added asset wakes it.
        configuration.monitorsLibrary = true
        return try UploadSystem(
            journalFolder: target.journal, configuration: configuration, extension: handler,
            observer: { [self] event in
                transferObserver?(event)
                switch event {
                case .uploadResourceAnnounced(_, let location): noteRecorded(location)
                case .invocation(_, let result): state.withLock { $0.results.append(result.rawValue) }
                case .settled: onEnd()
                case .jobCreated(let id):
                    // On the extension's thread, before its performChanges returns: willTerminate lands inside
                    // the invocation.
                    let (count, system) = state.withLock { state in
                        state.created += 1
                        return (state.created, state.system)
                    }
                    if terminateAtJobs.contains(count), let system {
                        system.terminate()
                        state.withLock {
                            $0.terminatedAtJobs[count] =
                                "willTerminate inside processJobs() after the block creating \(id) (job \(count) of "
                                + "the run), then the in-process session stopped"
                        }
                        onEnd()
                    }
                default: break
                }
            })
    }

    /// The flags of `squall upload` that get tokens as `recipe` says.
    static func tokenArguments(_ recipe: TokenRecipe) -> [String] {
        switch recipe {
        case .fixed(let token): return ["--token", token]
        case .command(let arguments):
            return ["--token-command", arguments.map(shellQuoted).joined(separator: " ")]
        case .endpoint(let request):
            var flags = [
                "--token-url", request.url, "--token-method", request.method, "--token-path", request.tokenPath,
            ]
            if !request.body.isEmpty { flags += ["--token-body", request.body] }
            if let type = request.contentType { flags += ["--token-content-type", type] }
            for name in request.headers.keys.sorted() {
                flags += ["--token-header", "\(name): \(request.headers[name]!)"]
            }
            return flags
        }
    }

    /// `text` in single quotes for `/bin/sh`, each quote in it closed, escaped and reopened.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `duration` in whole microseconds, as `squall upload` reads it.
    private static func durationText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)us"
    }

    private func spawn(_ binary: String) throws -> ChildProcess {
        var arguments = [
            "upload", "--journal", target.journal, "--to", target.creationURL, "--ca", target.caFile, "--interop",
            spec.interop.map(InteropVersion.word) ?? "none", "--retry-limit", String(spec.retryLimit),
            "--inflight-limit",
            String(spec.inflightLimit),
        ]
        if let size = spec.appendSize { arguments += ["--append-size", String(size)] }
        arguments += target.tokens.map(Self.tokenArguments) ?? []
        if !spec.developerMode { arguments.append("--production") }
        // The same transfer and policy settings as an in-process session (`makeSystem`, `init`).
        arguments += [
            "--resume-attempts", String(spec.resumeAttempts), "--backoff", "50ms", "--backoff-limit", "500ms",
            "--connect-timeout", "5s", "--read-timeout", Self.durationText(spec.readTimeout), "--http", spec.http,
            "--permanent-errors",
            spec.permanentErrors.isEmpty ? "none" : spec.permanentErrors.joined(separator: ","),
        ]
        if !spec.refreshAuth { arguments.append("--no-refresh-auth") }
        arguments.append("--events")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + assetIDs
        let events = Pipe()
        process.standardOutput = events
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let child = try ChildProcess(process, what: "squall upload", stop: stop)
        try? events.fileHandleForWriting.close()
        readEvents(from: events)
        return child
    }
}
