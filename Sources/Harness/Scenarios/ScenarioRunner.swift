import ChaosProxy
import Foundation
import ProxyTranscript
import Scenario
import ScenarioOracle
import SquallCore
import SquallNet
import SquallPhotos
import UploadClient
import UploadJobs

/// How the runner runs scenarios: the `squall` binary for child processes, an external upstream, a seed
/// override, and where to keep artifacts.
public struct ScenarioRunOptions: Sendable {
    /// The `squall` executable that kill events run as child processes (`squall server`, `squall upload`);
    /// scenarios with such events fail to start without it.
    public var squallBinary: String?
    /// Run against this server instead of the reference server (expectations needing its state are skipped unless
    /// the profile gives a way to read it).
    public var upstream: String?
    /// What the upstream serves and allows (`--server-profile`); a scenario's inline profile wins. Without one the
    /// runner knows nothing of the server, and scenarios that need to are skipped.
    public var profile: ServerProfile?
    /// Replaces every scenario's seed.
    public var seed: UInt64?
    /// Keep each scenario's folder here as its debug bundle (`DebugBundle`: captures, key log, transcript, ledger,
    /// server log, report, beside the CA, store, journal and assets); nil captures nothing and removes the folder.
    public var keepFolder: String?
    /// Which bundles the caller keeps. With `.onFailure` the decrypted capture is a flight recorder (kept in memory
    /// per connection, see `DecryptedCapture`) written only for a scenario that does not pass, so that a passing
    /// run's capture never touches the disk; otherwise it is written as the traffic flows. Default `.always`.
    public var bundleCapture = BundleCapture.always
    /// The command's stop (`squall run`'s SIGINT or SIGTERM): the scenario under way ends early without being
    /// judged, its child processes are stopped and its folder removed (kept, as a bundle, with `keepFolder`).
    public var stop: ProcessStop?
    /// The app's extension the client runs in place of its built-in policy (`Squall.main(extension:urlBase:)`);
    /// the scenario's policy knobs (`permanent-errors`, `refresh-auth`) are then the extension's own business.
    public var clientExtension: HostedExtension?
    /// Told every event of the in-process client's upload system (transfers started, progress, finalising,
    /// ended): `squall run`'s progress line on a terminal. Child clients report nothing here.
    public var transferObserver: (@Sendable (UploadSystemEvent) -> Void)?
    /// A defect, for negative controls only: the in-process client appends from byte 0 after an offset retrieval
    /// instead of from the server's offset (`TransferConfiguration.resumesFromZero`). Default false.
    public var clientResumesFromZero = false
    /// A defect, for negative controls only: the in-process reference server reports this many bytes beyond what
    /// it stored at each offset retrieval of an incomplete upload
    /// (`UploadProtocolConfiguration.defectOffsetBeyondStored`). Default 0: none.
    public var serverReportsOffsetBeyondStored: Int64 = 0
    /// A defect, for negative controls only: the reference server run as a child (scenarios that restart it)
    /// deletes its uploads at each start, losing them across `restart-server` (`--defect-forget-uploads`).
    public var serverForgetsUploadsOnRestart = false

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
        let protocolNeeds = ScenarioNeeds.unmetProtocol(scenario)
        guard protocolNeeds.isEmpty else { return skipped(scenario, needs: protocolNeeds, since: started) }
        if options.clientExtension != nil {
            let unmet = ScenarioNeeds.builtInPolicy(scenario)
            guard unmet.isEmpty else { return skipped(scenario, needs: unmet, since: started) }
        }
        if options.upstream ?? scenario.server.upstream != nil {
            let profile = scenario.server.profile ?? options.profile ?? ServerProfile()
            let unmet = ScenarioNeeds.unmet(scenario, profile: profile)
            guard unmet.isEmpty else { return skipped(scenario, needs: unmet, since: started) }
            scenario.client.interop = ScenarioNeeds.clientInterop(scenario, profile: profile)
            // Against the user's server its answers are judged against the draft unless the scenario says otherwise.
            if !scenario.expect.contains(where: { if case .serverConformance = $0 { true } else { false } }) {
                scenario.expect.append(.serverConformance(true, allowed: []))
            }
        }
        let folder: String
        let temporary: TemporaryFolder?
        do {
            (folder, temporary) = try makeFolder(
                scenario.name, in: options.keepFolder, stop: options.stop,
                holding: options.upstream ?? scenario.server.upstream == nil
                    ? "CA key, store, journal and assets" : "CA key, journal and assets")
        } catch {
            return failed(scenario, "\(error)", since: started)
        }
        var run: ScenarioRun?
        var result: ScenarioResult
        var marks: [ContinuousClock.Instant] = []
        do {
            run = try ScenarioRun(scenario, folder: folder, options: options)
            marks.append(.now)
            let observation = try run!.play(started: started)
            marks.append(.now)
            let verdicts = assumptions(run!, ScenarioOracle.judge(scenario, observation))
            marks.append(.now)
            result = ScenarioResult(
                name: scenario.name, file: scenario.file, description: scenario.description, seed: scenario.seed,
                duration: ContinuousClock.now - started,
                verdicts: verdicts,
                faultTimeline: timeline(observation.transcript), ledgerJSON: ledgerJSON(observation.ledger),
                error: run!.clientFailure)
            result.eventTimeline = observation.events
            result.uploadTimelines = UploadTimelines.build(observation.transcript)
            if let reason = run!.unannouncedAuth(observation) { result.skipReason = reason }
        } catch {
            result = failed(scenario, "\(error)", since: started)
        }
        // A passing scenario's flight-recorded capture is dropped, not written (see `bundleCapture`).
        if options.bundleCapture == .onFailure { run?.proxy.keepDecryptedCapture(!result.passed) }
        // Stopped before the bundle is written: the captures and logs are then complete and closed.
        run?.stop()
        if options.keepFolder != nil {
            result.bundle = folder
            result.notes = run?.proxy.captureProblems ?? []
            BundleFiles.write(result, into: folder)
            if options.stop?.isRequested == true { options.stop?.noteKept("the stopped scenario's bundle \(folder)") }
        }
        temporary?.remove()
        if marks.count == 3 {
            // Setup until the client started, the run (and gathering what it left), the oracle, the rest.
            result.phases = ScenarioPhases(
                setup: marks[0] - started, run: marks[1] - marks[0], judge: marks[2] - marks[1],
                teardown: ContinuousClock.now - marks[2])
        }
        return result
    }

    /// Against an outside server, the verdicts of the scenario's expectations say what they take from its profile
    /// on trust: that a completed upload stays answerable when the scenario loses a final response.
    static func assumptions(_ run: ScenarioRun, _ verdicts: [Verdict]) -> [Verdict] {
        guard let outside = run.outside, let retention = outside.profile.retention,
            ScenarioNeeds.needsRetention(run.scenario)
        else { return verdicts }
        let line =
            "assumes completed uploads stay answerable for \(DurationText.format(retention) ?? "\(retention)") after "
            + "their final response (the profile's retention)"
        let keys = Set(run.scenario.expect.map(\.key))
        return verdicts.map { verdict in
            var verdict = verdict
            if keys.contains(verdict.key) { verdict.evidence.append(line) }
            return verdict
        }
    }

    /// A scenario not run because the outside server cannot give what it needs.
    static func skipped(_ scenario: Scenario, needs: [String], since started: ContinuousClock.Instant) -> ScenarioResult
    {
        var result = ScenarioResult(
            name: scenario.name, file: scenario.file, description: scenario.description, seed: scenario.seed,
            duration: ContinuousClock.now - started, verdicts: [])
        result.skipReason = "needs " + needs.joined(separator: "; ")
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
            var firing = FaultFiring(
                timeMicroseconds: microseconds(event.time), rule: fault.rule, action: fault.action,
                connection: event.connection, offset: fault.offset)
            firing.decidedMicroseconds = fault.decided.map(microseconds)
            return firing
        }
    }

    /// `duration` in whole microseconds, as the timelines give times.
    static func microseconds(_ duration: Duration) -> Int64 {
        Int64(duration / .microseconds(1))
    }

    static func ledgerJSON(_ ledger: JobLedger) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(ledger)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The scenario's folder: `parent/name` (a bundle), or a temporary folder removed after the run.
    private static func makeFolder(
        _ name: String, in parent: String?, stop: ProcessStop?, holding: String
    ) throws -> (String, TemporaryFolder?) {
        if let parent {
            let path = parent + "/" + name
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return (path, nil)
        }
        let folder = try TemporaryFolder(
            prefix: "squall-run-\(name)-", what: "scenario \(name)'s \(holding)", stop: stop)
        return (folder.path, folder)
    }
}
