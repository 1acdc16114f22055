import ChaosProxy
import FaultEngine
import Foundation
import ProxyTranscript
import Scenario
import ScenarioOracle
import SquallNet
import Synchronization
import TLSKit
import UploadJobs

/// How the runner runs scenarios: the `squall` binary for child processes, an external upstream, a seed
/// override, and where to keep artifacts.
public struct ScenarioRunOptions: Sendable {
    /// The `squall` executable that kill events run as child processes (`squall server`, `squall upload`);
    /// scenarios with such events fail to start without it.
    public var squallBinary: String?
    /// Run against this server instead of the reference server (expectations needing its state are skipped).
    public var upstream: String?
    /// Replaces every scenario's seed.
    public var seed: UInt64?
    /// Keep each scenario's folder here as its debug bundle (`DebugBundle`: captures, key log, transcript, ledger,
    /// server log, report, beside the CA, store, journal and assets); nil captures nothing and removes the folder.
    public var keepFolder: String?

    public init(squallBinary: String? = nil, upstream: String? = nil, seed: UInt64? = nil, keepFolder: String? = nil) {
        self.squallBinary = squallBinary
        self.upstream = upstream
        self.seed = seed
        self.keepFolder = keepFolder
    }
}

/// Runs one scenario end to end: a fresh folder with a CA, the assets, the server (in-process, a child process,
/// or the user's), the chaos proxy with the scenario's faults, the client (in-process or a child process); plays
/// the events; stops at completion or the timeout; judges what was observed with `ScenarioOracle`; cleans up.
///
/// ```
///  client ──TLS──▶ ChaosProxy (faults, transcript) ──plain──▶ server      events: EventPlayer
///    └ ledger ─────────────┬──────────── transcript ───────────┴ uploads ──▶ ScenarioOracle ──▶ verdicts
/// ```
public enum ScenarioRunner {
    public static func run(_ scenario: Scenario, options: ScenarioRunOptions = ScenarioRunOptions()) -> ScenarioResult {
        let started = ContinuousClock.now
        var scenario = scenario
        if let seed = options.seed { scenario.seed = seed }
        let folder: String
        do {
            folder = try makeFolder(scenario.name, in: options.keepFolder)
        } catch {
            return failed(scenario, "\(error)", since: started)
        }
        defer { if options.keepFolder == nil { try? FileManager.default.removeItem(atPath: folder) } }
        var run: ScenarioRun?
        var result: ScenarioResult
        do {
            run = try ScenarioRun(scenario, folder: folder, options: options)
            let observation = try run!.play(started: started)
            result = ScenarioResult(
                name: scenario.name, file: scenario.file, description: scenario.description, seed: scenario.seed,
                duration: ContinuousClock.now - started, verdicts: ScenarioOracle.judge(scenario, observation),
                faultTimeline: timeline(observation.transcript), ledgerJSON: ledgerJSON(observation.ledger),
                error: run!.clientFailure)
        } catch {
            result = failed(scenario, "\(error)", since: started)
        }
        // Stopped before the bundle is written: the captures and logs are then complete and closed.
        run?.stop()
        if options.keepFolder != nil {
            result.bundle = folder
            result.notes = run?.proxy.captureProblems ?? []
            BundleFiles.write(result, into: folder)
        }
        return result
    }

    static func failed(_ scenario: Scenario, _ error: String, since started: ContinuousClock.Instant) -> ScenarioResult
    {
        ScenarioResult(
            name: scenario.name, file: scenario.file, description: scenario.description, seed: scenario.seed,
            duration: ContinuousClock.now - started, verdicts: [], error: error)
    }

    static func timeline(_ transcript: Transcript) -> [FaultFiring] {
        transcript.events.compactMap { event in
            guard case .faultFired(let fault) = event.kind else { return nil }
            return FaultFiring(
                timeMicroseconds: Int64(event.time / .microseconds(1)), rule: fault.rule, action: fault.action,
                connection: event.connection, offset: fault.offset)
        }
    }

    static func ledgerJSON(_ ledger: JobLedger) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(ledger)).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func makeFolder(_ name: String, in parent: String?) throws -> String {
        if let parent {
            let path = parent + "/" + name
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        }
        var template = Array((NSTemporaryDirectory() + "squall-run-\(name)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("cannot make a scenario folder") }
        return String(cString: made)
    }
}

/// The pieces of one run and its event loop.
struct ScenarioRun {
    static let networkDownRule = "squall-network-down"
    let scenario: Scenario
    let folder: String
    let server: ScenarioServer?
    let proxy: ChaosProxy
    let client: ScenarioClient
    var assets: [AssetDigest]
    var pending: [ScenarioEvent]
    var clientFailure: String?
    let progress = UploadProgressIndex()

    init(_ scenario: Scenario, folder: String, options: ScenarioRunOptions) throws {
        self.scenario = scenario
        self.folder = folder
        self.pending = scenario.events
        let authority = try CertificateAuthority.loadOrCreate(directory: folder + "/ca")
        assets = try AssetFiles.write(scenario.assets, seed: scenario.seed, into: folder + "/assets")
        let killsServer = scenario.events.contains { $0.action.killsServer }
        let killsClient = scenario.events.contains { $0.action.killsClient }
        if (killsServer || killsClient) && options.squallBinary == nil {
            throw HarnessError("this scenario kills a process: it needs the squall binary for child processes")
        }
        let upstreamURL = options.upstream ?? scenario.server.upstream
        server =
            upstreamURL == nil
            ? try ScenarioServer(
                spec: scenario.server, store: folder + "/store",
                log: options.keepFolder == nil ? nil : folder + "/" + DebugBundle.serverLog,
                asChildOf: killsServer ? options.squallBinary : nil)
            : nil
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"),
            upstream: try UpstreamTarget(parsing: upstreamURL ?? server?.url ?? ""))
        configuration.authority = authority
        configuration.rules = scenario.faults
        configuration.seed = scenario.seed
        if options.keepFolder != nil {
            configuration.transcriptPath = folder + "/" + DebugBundle.transcript
            configuration.decryptedCapturePath = folder + "/" + DebugBundle.decryptedCapture
            configuration.wireCapturePath = folder + "/" + DebugBundle.wireCapture
            configuration.keyLog = try KeyLog(path: folder + "/" + DebugBundle.keyLog)
        }
        proxy = try ChaosProxy(configuration: configuration)
        let target = ClientTarget(
            creationURL: proxy.url + "/upload", caFile: authority.certificatePath,
            tokenURL: scenario.server.tokenTTL == nil ? nil : proxy.url + "/_squall/token?principal=squall",
            journal: folder + "/journal")
        let proxyReference = proxy
        client = try ScenarioClient(
            spec: scenario.client, target: target, assetIDs: assets.map(\.assetID),
            asChildOf: killsClient ? options.squallBinary : nil,
            onEnd: { proxyReference.wakeTranscriptWaiters() })
    }

    /// Runs the client through its sessions while playing the events; returns what was observed.
    mutating func play(started: ContinuousClock.Instant) throws -> RunObservation {
        let deadline = started + scenario.timeout
        try client.start()
        var timedOut = false
        while true {
            fireDueEvents(started: started)
            if !client.isRunning {
                guard let relaunch = pending.first(where: { $0.action == .relaunchClient }) else { break }
                if isDue(relaunch, started: started) {
                    pending.removeAll { $0 == relaunch }
                    try client.start()
                    continue
                }
            }
            if ContinuousClock.now >= deadline {
                timedOut = true
                client.kill()
                waitForClientEnd()
                break
            }
            let next = nextTimeTrigger(started: started).map { min($0, deadline) } ?? deadline
            let progressEvents = pending.filter { if case .progress = $0.trigger { true } else { false } }
            let client = self.client
            let progress = self.progress
            _ = proxy.waitForTranscript(timeout: max(.zero, next - .now)) { transcript in
                !client.isRunning || progressEvents.contains { progress.reached($0, in: transcript) }
            }
        }
        clientFailure = client.failure
        let ledger = try client.ledger()
        return RunObservation(
            ledger: ledger, transcript: proxy.transcript, serverUploads: try server?.uploads(), assets: assets,
            processJobsResults: client.processJobsResults, peakInFlight: Self.peakInFlight(ledger),
            neverFired: proxy.neverFired.filter { !$0.hasPrefix("squall-") },
            wallTime: ContinuousClock.now - started, timedOut: timedOut)
    }

    func stop() {
        client.kill()
        waitForClientEnd()
        proxy.stop()
        server?.stop()
    }

    private func waitForClientEnd() {
        let client = self.client
        _ = proxy.waitForTranscript(timeout: .seconds(30)) { _ in !client.isRunning }
    }

    private func isDue(_ event: ScenarioEvent, started: ContinuousClock.Instant) -> Bool {
        switch event.trigger {
        case .time(let delay): ContinuousClock.now >= started + delay
        case .progress: progress.reached(event, in: proxy.transcript)
        }
    }

    private func nextTimeTrigger(started: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        pending.compactMap { event -> ContinuousClock.Instant? in
            if case .time(let delay) = event.trigger { return started + delay }
            return nil
        }.min()
    }

    /// Fires, in order, the pending events that are due (a relaunch waits for the client to have stopped).
    private mutating func fireDueEvents(started: ContinuousClock.Instant) {
        for event in pending where isDue(event, started: started) {
            if event.action == .relaunchClient { continue }
            pending.removeAll { $0 == event }
            apply(event.action)
        }
    }

    private mutating func apply(_ action: EventAction) {
        do {
            switch action {
            case .terminateClient: client.terminate()
            case .killClient, .forceQuit: client.kill()
            case .relaunchClient: try client.start()
            case .networkDown:
                let refuse = try FaultRule(name: Self.networkDownRule, action: .refuse, optional: true)
                try? proxy.addFaultRules([refuse])
                resetLiveConnections(name: "squall-network-down")
            case .networkUp: try? proxy.removeFaultRule(named: Self.networkDownRule)
            case .switchNetwork: resetLiveConnections(name: "squall-switch-network")
            case .restartServer: try server?.restart()
            case .expireTokens: try server?.expireTokens()
            case .disableExtension: try client.disableExtension()
            case .enableExtension: try client.enableExtension()
            case .addAssets(let spec):
                let added = try AssetFiles.write([spec], seed: scenario.seed, into: folder + "/assets")
                assets += added
                client.addAssets(added.map(\.assetID))
            case .expireChangeToken: client.expireChangeToken()
            }
        } catch {
            clientFailure = clientFailure ?? "event \(action.name) failed: \(error)"
        }
    }

    private func resetLiveConnections(name: String) {
        for connection in proxy.liveConnections() {
            try? proxy.fire(.reset, direction: .both, on: connection.id, name: name)
        }
    }

    /// The most jobs held at once (created, not yet acknowledged), from the ledger's times.
    static func peakInFlight(_ ledger: JobLedger) -> Int {
        var changes: [(JobTime, Int)] = []
        for job in ledger.all {
            guard let created = job.stateChanges.first?.time else { continue }
            changes.append((created, 1))
            if let acknowledged = job.acknowledgedAt { changes.append((acknowledged, -1)) }
        }
        var current = 0
        var peak = 0
        for change in changes.sorted(by: { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }) {
            current += change.1
            peak = max(peak, current)
        }
        return peak
    }
}
