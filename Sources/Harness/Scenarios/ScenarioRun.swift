import Capture
import ChaosProxy
import FaultEngine
import ProxyTranscript
import Scenario
import ScenarioOracle
import SquallCore
import SquallNet
import TLSKit
import UploadJobs

/// The pieces of one run: the folder, the server, the proxy and the client, and the events' records.
///
/// The run lasts until every event has played and the client has settled (no session running, or the system
/// monitoring the library with nothing to do), or until the timeout. `play` (`ScenarioRun+Play`) does what its
/// `EventScheduler` says, which decides on the proxy's clock when each event is due; `at` is measured from the
/// moment the client's first session starts (the CA, assets, server and proxy are ready by then). An event that
/// cannot play any more (the client settled and nothing pending can wake it before the timeout, or the timeout
/// came first) is recorded with the reason, and the oracle fails the scenario on it.
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
    var records: [EventRecord]
    var clientFailure: String?
    let progress = UploadProgressIndex()
    /// The command's stop: `play` ends early when it is asked for.
    let runStop: ProcessStop?
    /// The client runs the app's extension: its conduct is judged too.
    let hostsExtension: Bool

    init(_ scenario: Scenario, folder: String, options: ScenarioRunOptions) throws {
        self.scenario = scenario
        self.folder = folder
        self.runStop = options.stop
        self.hostsExtension = options.clientExtension != nil
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
        // The client's leg speaks what the scenario's client does: h2 offered in ALPN unless it is HTTP/1.1 only.
        configuration.http2 = scenario.client.http != "http/1.1"
        // The reference server speaks HTTP/2 with prior knowledge: the streams go to it over one HTTP/2 connection,
        // as the phone's would. An outside server does when it chooses h2 in ALPN.
        configuration.upstreamHTTP2 = upstreamURL == nil ? .on : .auto
        // A verdict reads the whole transcript: a scenario is bounded by its own limits, so keep every event.
        configuration.transcriptMemory = nil
        if options.keepFolder != nil {
            configuration.transcriptPath = folder + "/" + DebugBundle.transcript
            configuration.harPath = folder + "/" + DebugBundle.har
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

    func stop() {
        client.kill()
        waitForClientEnd()
        proxy.stop()
        server?.stop()
    }

    /// Waits, at most 30 s, for the client's session to end.
    func waitForClientEnd() {
        let client = self.client
        _ = proxy.waitForTranscript(timeout: .seconds(30)) { _ in !client.isRunning }
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
