import Capture
import ChaosProxy
import FaultEngine
import Foundation
import ProxyTranscript
import Scenario
import ScenarioOracle
import SquallCore
import SquallNet
import TLSKit
import UploadJobs

/// The pieces of one run and its event loop.
///
/// The run lasts until every event has played and the client has settled (no session running, or the system
/// monitoring the library with nothing to do), or until the timeout. `at` is measured on the run's clock, from
/// the moment the client's first session starts (the CA, assets, server and proxy are ready by then). An event
/// that cannot play any more (the client settled and nothing pending can wake it before the timeout, or the
/// timeout came first) is recorded with the reason, and the oracle fails the scenario on it.
struct ScenarioRun {
    static let networkDownRule = "squall-network-down"
    /// The reference server's token endpoint.
    static let tokenPath = "/_squall/token"
    let scenario: Scenario
    let folder: String
    let server: ScenarioServer?
    /// The user's server, when the run is against one.
    let outside: OutsideServer?
    let proxy: ChaosProxy
    let client: ScenarioClient
    var assets: [AssetDigest]
    /// The events still to play, with their index in the scenario.
    var pending: [(index: Int, event: ScenarioEvent)]
    var records: [EventRecord]
    var clientFailure: String?
    let progress = UploadProgressIndex()
    /// When the client's first session started: the origin of `at`.
    var origin = ContinuousClock.now
    /// The command's stop: `play` ends early when it is asked for.
    let runStop: ProcessStop?
    /// The client runs the app's extension: its conduct is judged too.
    let hostsExtension: Bool

    init(_ scenario: Scenario, folder: String, options: ScenarioRunOptions) throws {
        self.scenario = scenario
        self.folder = folder
        self.runStop = options.stop
        self.hostsExtension = options.clientExtension != nil
        self.pending = scenario.events.enumerated().map { ($0.offset, $0.element) }
        self.records = scenario.events.enumerated().map {
            EventRecord(index: $0.offset, event: $0.element.action.name, trigger: $0.element.trigger.text)
        }
        let upstreamURL = options.upstream ?? scenario.server.upstream
        // Before anything is written: room for every asset (added ones too) and the reference server's copies.
        let (copies, overflow) = scenario.assetBytes.multipliedReportingOverflow(by: 2)
        try AssetFiles.ensureSpace(
            upstreamURL == nil ? (overflow ? .max : copies) : scenario.assetBytes, in: folder,
            for: upstreamURL == nil ? "the scenario's assets and the server's copy of them" : "the scenario's assets")
        let authority = try CertificateAuthority.loadOrCreate(directory: folder + "/ca")
        assets = try AssetFiles.write(scenario.assets, seed: scenario.seed, into: folder + "/assets", stop: runStop)
        let killsServer = scenario.events.contains { $0.action.killsServer }
        let killsClient = scenario.events.contains { $0.action.killsClient }
        if (killsServer || killsClient) && options.squallBinary == nil {
            throw HarnessError("this scenario kills a process: it needs the squall binary for child processes")
        }
        let runStop = runStop
        outside = upstreamURL.map {
            OutsideServer(
                url: $0, profile: scenario.server.profile ?? options.profile ?? ServerProfile(), caFile: nil,
                stop: runStop)
        }
        server =
            upstreamURL == nil
            ? try ScenarioServer(
                spec: scenario.server, store: folder + "/store",
                log: options.keepFolder == nil ? nil : folder + "/" + DebugBundle.serverLog,
                asChildOf: killsServer ? options.squallBinary : nil, stop: runStop,
                defectOffsetBeyondStored: options.serverReportsOffsetBeyondStored,
                defectForgetsUploads: options.serverForgetsUploadsOnRestart)
            : nil
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"),
            upstream: try UpstreamTarget(parsing: upstreamURL ?? server?.url ?? ""))
        configuration.authority = authority
        configuration.rules = scenario.faults + (try Self.holds(for: scenario.events))
        configuration.seed = scenario.seed
        configuration.upstreamInterop = Self.servedInterop(scenario, outside: outside)
        // A verdict reads the whole transcript: a scenario is bounded by its own limits, so keep every event.
        configuration.transcriptMemory = nil
        if options.keepFolder != nil {
            configuration.transcriptPath = folder + "/" + DebugBundle.transcript
            configuration.decryptedCapturePath = folder + "/" + DebugBundle.decryptedCapture
            if options.bundleCapture == .onFailure { configuration.decryptedCaptureRecorder = FlightRecorderLimits() }
            configuration.wireCapturePath = folder + "/" + DebugBundle.wireCapture
            configuration.keyLog = try KeyLog(path: folder + "/" + DebugBundle.keyLog)
        }
        proxy = try ChaosProxy(configuration: configuration)
        let proxyURL = proxy.url
        let ownTokens = scenario.server.tokenTTL.map { _ in
            TokenRecipe.endpoint(TokenRequest(url: proxyURL + ScenarioRun.tokenPath + "?principal=squall"))
        }
        let target = ClientTarget(
            creationURL: proxyURL + (outside?.creationPath ?? "/upload"), caFile: authority.certificatePath,
            tokens: outside.map {
                $0.tokenRecipe(proxyURL: proxyURL, throughProxy: ScenarioNeeds.involvesAuth(scenario))
            } ?? ownTokens, journal: folder + "/journal")
        let proxyReference = proxy
        client = try ScenarioClient(
            spec: scenario.client, target: target, assetIDs: assets.map(\.assetID),
            asChildOf: killsClient ? options.squallBinary : nil, hosted: options.clientExtension,
            resumesFromZero: options.clientResumesFromZero,
            terminateAtJobs: Set(
                scenario.events.compactMap { if case .jobsCreated(let count) = $0.trigger { count } else { nil } }),
            stop: runStop, transferObserver: options.transferObserver,
            onEnd: { proxyReference.wakeTranscriptWaiters() })
    }

    /// The interop versions the run's server serves resumably, as far as the run knows them: the reference server's
    /// (none when it is not resumable), or what the outside server's profile says (nil when it says nothing).
    static func servedInterop(_ scenario: Scenario, outside: OutsideServer?) -> Set<Int>? {
        guard let outside else { return scenario.server.resumable ? Set(scenario.server.interop) : [] }
        if outside.profile.resumable == false { return [] }
        return outside.profile.interop.isEmpty ? nil : Set(outside.profile.interop)
    }

    /// Against an outside server whose profile names no auth: when the server itself answered 401 (not a fault) the
    /// scenario could not be judged (the client had no token to send), and says what it needs.
    func unannouncedAuth(_ observation: RunObservation) -> String? {
        guard let outside, outside.profile.auth == nil else { return nil }
        for connection in observation.transcript.connections {
            for exchange in observation.transcript.exchanges(connection: connection)
            where exchange.response?.status == 401 && !exchange.answeredByProxy {
                let request = exchange.request.map { "\($0.method) \($0.target)" } ?? "a request"
                return "needs bearer-token auth: the server answered 401 to \(request) (a profile's \"auth\")"
            }
        }
        return nil
    }

    /// Runs the client through its sessions while playing the events; returns what was observed.
    mutating func play(started: ContinuousClock.Instant) throws -> RunObservation {
        let deadline = started + scenario.timeout
        let proxy = self.proxy
        let registration = runStop?.whenRequested { proxy.wakeTranscriptWaiters() }
        defer { if let registration { runStop?.withdraw(registration) } }
        try client.start()
        origin = .now
        var timedOut = false
        while true {
            if let signal = runStop?.signal {
                // Not judged: the client stops as it would on willTerminate (a child got SIGTERM from the stop).
                client.finish()
                client.terminate()
                waitForClientEnd()
                throw HarnessError("stopped by \(signal.name) before it was judged")
            }
            fireDueEvents()
            // A relaunch waits for the session to stop; a session that has settled (monitoring the library with
            // nothing to do) is ended for it.
            if let relaunch = pending.first(where: { $0.event.action == .relaunchClient }), isDue(relaunch),
                client.isSettled
            {
                client.finish()
                waitForClientEnd()
                try client.start()
                played(relaunch.index, did: [client.sessionDescription])
                continue
            }
            let settled = client.isSettled
            if settled, !canStillPlay(before: deadline) {
                recordNeverPlayed(because: settledReason())
                break
            }
            if ContinuousClock.now >= deadline {
                timedOut = !settled
                recordNeverPlayed(because: "the run timed out at \(Self.text(scenario.timeout)) before it played")
                break
            }
            let next =
                [nextTimeTrigger(), nextRecordingBound()].compactMap { $0 }.min().map { min($0, deadline) }
                ?? deadline
            // What wakes the wait: a held progress point reached (for an event that stops the client, once the client
            // also journaled the upload it was told of), the client settling (when it had not yet: a settled client
            // waiting for a timed event would wake it at once, again and again), a stop.
            let progressEvents = pending.filter { Self.holdsTheUpload($0.event) }
            let client = self.client
            let stop = runStop
            let wasSettled = settled
            let run = self
            _ = proxy.waitForTranscript(timeout: max(.zero, next - .now)) { transcript in
                (!wasSettled && client.isSettled) || stop?.isRequested == true
                    || progressEvents.contains { run.progressDue($0, in: transcript) }
            }
        }
        client.finish()
        if timedOut { client.kill() }
        waitForClientEnd()
        clientFailure = clientFailure ?? client.failure
        let ledger = try client.ledger()
        let serverUploads = try server?.uploads() ?? outside?.uploads(of: ledger.all)
        var observation = RunObservation(
            ledger: ledger, transcript: proxy.transcript, serverUploads: serverUploads, assets: assets,
            processJobsResults: client.processJobsResults, peakInFlight: Self.peakInFlight(ledger),
            neverFired: proxy.neverFired.filter { !$0.hasPrefix("squall-") },
            wallTime: ContinuousClock.now - started, timedOut: timedOut, events: records)
        observation.neverFiredReasons = proxy.neverFiredReasons
        observation.proxyOrigin = proxy.url
        observation.servedInterop = Self.servedInterop(scenario, outside: outside)
        observation.tokenPath =
            outside.map { $0.tokenPath(proxyURL: proxy.url, throughProxy: ScenarioNeeds.involvesAuth(scenario)) }
            ?? Self.tokenPath
        if hostsExtension { observation.extensionConduct = try client.extensionConduct() }
        if serverUploads == nil, outside != nil {
            observation.noServerState = "no server introspection: the profile has no \"introspection\""
        }
        return observation
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

    private func isDue(_ item: (index: Int, event: ScenarioEvent)) -> Bool {
        switch item.event.trigger {
        case .time(let delay): ContinuousClock.now >= origin + delay && !waitsForWhatItUndoes(item)
        case .progress:
            Self.holdsTheUpload(item.event)
                ? progressDue(item, in: proxy.transcript) : progress.reached(item.event, in: proxy.transcript)
        case .jobsCreated(let count): client.terminatedAtJob(count) != nil
        }
    }

    private func nextTimeTrigger() -> ContinuousClock.Instant? {
        pending.compactMap { item -> ContinuousClock.Instant? in
            if case .time(let delay) = item.event.trigger, !waitsForWhatItUndoes(item) { return origin + delay }
            return nil
        }.min()
    }

    /// `network-up` and `enable-extension` undo an earlier `network-down` or `disable-extension` of the file: while
    /// that one has not played (a progress point a loaded machine has not reached yet), the undo is not due,
    /// whatever its time says. Played first, it would undo nothing, and the network would then stay down.
    private func waitsForWhatItUndoes(_ item: (index: Int, event: ScenarioEvent)) -> Bool {
        let undone: EventAction
        switch item.event.action {
        case .networkUp: undone = .networkDown
        case .enableExtension: undone = .disableExtension
        default: return false
        }
        return pending.contains { $0.index < item.index && $0.event.action == undone }
    }

    /// With the client settled, whether a pending event can still play: nothing more moves by itself, so only a
    /// time-triggered event before the deadline (which may wake the client and so reach a progress trigger).
    private func canStillPlay(before deadline: ContinuousClock.Instant) -> Bool {
        nextTimeTrigger().map { $0 < deadline } ?? false
    }

    /// Why the pending events never played once the client settled.
    private func settledReason() -> String {
        let settledAt = Self.text(ContinuousClock.now - origin)
        return "the client settled at \(settledAt) and the run times out at \(Self.text(scenario.timeout))"
    }

    /// Marks every pending event as never played: progress triggers say how far the upload got.
    private mutating func recordNeverPlayed(because reason: String) {
        for item in pending {
            var why = reason
            if case .progress(_, let asset, _) = item.event.trigger {
                why = progress.furthest(of: asset, in: proxy.transcript) + "; " + reason
            }
            records[item.index].notPlayed = why
            releaseHold(item.index)
        }
        pending.removeAll()
    }

    /// Fires, in order, the pending events that are due (a relaunch waits for the client to have stopped).
    private mutating func fireDueEvents() {
        for item in pending where item.event.action != .relaunchClient && isDue(item) {
            if case .jobsCreated(let count) = item.event.trigger {
                // The client did it, inside the extension's invocation.
                played(item.index, did: [client.terminatedAtJob(count) ?? ""])
            } else {
                played(item.index, did: apply(item.event.action))
            }
        }
    }

    /// Takes the event out of `pending` and stamps its record with both clocks and what it did.
    private mutating func played(_ index: Int, did: [String]) {
        pending.removeAll { $0.index == index }
        records[index].runMicroseconds = ScenarioRunner.microseconds(ContinuousClock.now - origin)
        records[index].proxyMicroseconds = ScenarioRunner.microseconds(proxy.now)
        records[index].did = did
        releaseHold(index)
    }

    /// Does what the event says; returns what it did, for the timeline.
    private mutating func apply(_ action: EventAction) -> [String] {
        do {
            switch action {
            case .terminateClient: return [client.terminate()]
            case .killClient, .forceQuit: return [client.kill()]
            case .relaunchClient:
                try client.start()
                return [client.sessionDescription]
            case .networkDown:
                let refuse = try FaultRule(name: Self.networkDownRule, action: .refuse, optional: true)
                try? proxy.addFaultRules([refuse])
                return ["new connections refused", resetLiveConnections(name: "squall-network-down")]
            case .networkUp:
                try? proxy.removeFaultRule(named: Self.networkDownRule)
                return ["new connections accepted again"]
            case .switchNetwork: return [resetLiveConnections(name: "squall-switch-network")]
            case .restartServer:
                if let outside { return try outside.restart() }
                return try server?.restart() ?? []
            case .expireTokens:
                if let outside { return [try outside.expireTokens()] }
                try server?.expireTokens()
                return ["every token issued so far expired"]
            case .disableExtension:
                try client.disableExtension()
                return ["the upload extension disabled"]
            case .enableExtension:
                try client.enableExtension()
                return ["the upload extension enabled"]
            case .addAssets(let spec):
                let added = try AssetFiles.write([spec], seed: scenario.seed, into: folder + "/assets")
                assets += added
                client.addAssets(added.map(\.assetID))
                let sizes = added.map { "\($0.name) (\($0.size) bytes)" }
                return ["added " + sizes.joined(separator: ", ") + " to the library"]
            case .expireChangeToken:
                client.expireChangeToken()
                return ["the library's persistent change token expired"]
            }
        } catch {
            clientFailure = clientFailure ?? "event \(action.name) failed: \(error)"
            return ["failed: \(error)"]
        }
    }

    /// Resets every live connection; says which.
    private func resetLiveConnections(name: String) -> String {
        let ids = proxy.liveConnections().map(\.id)
        for id in ids {
            try? proxy.fire(.reset, direction: .both, on: id, name: name)
        }
        return ids.isEmpty
            ? "no live connection to reset" : "reset connections " + ids.map(String.init).joined(separator: ", ")
    }

    /// `71 ms`, `5 s`, `1.5 s`: a duration as the never-played reasons say it.
    static func text(_ duration: Duration) -> String {
        let milliseconds = Int64(duration / .milliseconds(1))
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(Double(milliseconds) / 1000) s"
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
