import Capture
import ControlAPI
import FaultEngine
import ProxyFlow
import ProxyTranscript
import SquallNet
import Synchronization
import TLSKit

/// The chaos proxy: a listener that terminates TLS with leaves the local CA mints per SNI (or takes plain TCP),
/// forwards to one upstream (TLS or plain), parses HTTP/1.1 both ways in http mode, fires the fault rules, and
/// records a transcript. It also hosts the listeners of Toxiproxy-compatible proxies created through the
/// control API (tcp mode, plain), and is the control API's `ProxyRuntime`.
///
/// ```swift
/// var configuration = ChaosProxyConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"),
///                                             upstream: try UpstreamTarget(parsing: "http://127.0.0.1:8080"))
/// configuration.authority = try CertificateAuthority.loadOrCreate(directory: caDirectory)
/// configuration.rules = [try FaultRule(name: "cut", trigger: .atOffset(.percent(40)), action: .reset)]
/// let proxy = try ChaosProxy(configuration: configuration)   // proxy.url: https://127.0.0.1:PORT
/// ```
public final class ChaosProxy: ProxyRuntime, Sendable {
    public static let mainListenerName = "main"
    public let configuration: ChaosProxyConfiguration
    private let shared: ProxyShared
    private let main: ProxyListener
    private let toxiproxyListeners = Mutex<[String: ProxyListener]>([:])
    private let ruleSource = Mutex<ControlAPIHandler?>(nil)
    private let stopped = Atomic<Bool>(false)
    /// The live capture of the loopback traffic, when asked for and permitted.
    private let wire: LiveCapture?
    /// Why the live capture asked for did not start.
    private let wireProblem: String?
    /// What went wrong while it ran (a write error, packets the kernel dropped), known once it stopped.
    private let wireStopProblem = Mutex<String?>(nil)

    public init(configuration: ChaosProxyConfiguration) throws {
        if let memory = configuration.transcriptMemory, memory <= 0 {
            throw ChaosProxyError(.transcriptFile, "transcriptMemory must be more than 0 bytes, not \(memory)")
        }
        self.configuration = configuration
        let capture: DecryptedCapture?
        do {
            capture = try configuration.decryptedCapturePath.map { path throws(CaptureError) in
                try DecryptedCapture(path: path, recorder: configuration.decryptedCaptureRecorder)
            }
        } catch {
            throw ChaosProxyError(.captureFile, "cannot write the decrypted capture: \(error)")
        }
        let (origin, startedAt) = (ContinuousClock.now, WallClock.unixMicroseconds())
        let shared = ProxyShared(
            transcript: try TranscriptStore(
                byteCap: configuration.transcriptMemory, path: configuration.transcriptPath,
                harPath: configuration.harPath, startedAt: startedAt),
            origin: origin, laneCapacity: configuration.laneCapacity, capture: capture)
        self.shared = shared
        var settings = ListenerSettings(
            name: Self.mainListenerName, upstream: configuration.upstream, mode: configuration.mode,
            seed: configuration.seed, limits: configuration.limits)
        settings.upstreamAtAccept = configuration.upstreamAtAccept
        settings.upstreamInterop = configuration.upstreamInterop
        settings.http2 = configuration.http2 && configuration.mode == .http
        settings.upstreamHTTP2 = configuration.upstreamHTTP2
        if let authority = configuration.authority {
            let fallbackName = configuration.listen.host
            var server = TLSServerConfiguration { serverName in try authority.leaf(for: serverName ?? fallbackName) }
            server.keyLog = configuration.keyLog
            if settings.http2 { server.alpn = ["h2", "http/1.1"] }
            settings.clientTLS = try TLSContext(server: server)
        }
        if configuration.upstream.tls {
            var client = TLSClientConfiguration(trust: configuration.upstreamTrust)
            client.keyLog = configuration.keyLog
            settings.upstreamTLS = try TLSContext(client: client)
            if settings.http2 && configuration.upstreamHTTP2 != .off {
                client.alpn = ["h2", "http/1.1"]
                settings.upstreamTLSOfferingHTTP2 = try TLSContext(client: client)
            }
        }
        let engine = EngineBox(
            rules: configuration.rules, seed: configuration.seed, metrics: shared.counters,
            onUnresolved: configuration.onUnresolvedFault)
        self.main = try ProxyListener(address: configuration.listen, settings: settings, engine: engine, shared: shared)
        (wire, wireProblem) = Self.startWireCapture(configuration, listening: main.address.port)
    }

    /// Starts the live capture of the listener's port and a loopback upstream's; a capture that cannot start is a
    /// problem to report, not a reason to refuse to proxy.
    private static func startWireCapture(
        _ configuration: ChaosProxyConfiguration, listening port: UInt16
    ) -> (LiveCapture?, String?) {
        guard let path = configuration.wireCapturePath else { return (nil, nil) }
        var ports = [port]
        if let upstream = try? SocketAddress(host: configuration.upstream.host, port: configuration.upstream.port),
            upstream.isLoopback
        {
            ports.append(configuration.upstream.port)
        }
        do {
            let capture = try LiveCapture.start(
                device: configuration.wireCaptureDevice, filter: LiveCapture.filter(ports: ports), path: path)
            return (capture, nil)
        } catch {
            return (nil, "wire capture: \(error)")
        }
    }

    deinit {
        stop()
    }

    /// The bound listen address (the real port when 0 was asked for).
    public var address: SocketAddress { main.address }

    /// The URL clients use: `https://` with a CA, `http://` without.
    public var url: String {
        let host = address.host.contains(":") ? "[\(address.host)]" : address.host
        return "\(configuration.authority == nil ? "http" : "https")://\(host):\(address.port)"
    }

    /// A copy of the transcript's kept events.
    public var transcript: Transcript { shared.transcript.transcript }

    /// The proxy's clock: the time since it started, on which the transcript's events are stamped.
    public var now: Duration { shared.now }

    /// Waits (at most `timeout`) until `condition` holds for the transcript; the harness's readiness signal.
    public func waitForTranscript(timeout: Duration, until condition: (Transcript) -> Bool) -> Bool {
        shared.transcript.wait(until: condition, timeout: timeout)
    }

    /// Wakes `waitForTranscript` callers so they check their condition again (it looks at more than the
    /// transcript, e.g. whether a client finished).
    public func wakeTranscriptWaiters() {
        shared.transcript.wakeWaiters()
    }

    /// The main listener's non-optional rules that have not fired.
    public var neverFired: [String] { main.engine.neverFired }

    /// For the rules in `neverFired` that met a request they could not fire in, why (by rule name): `"70% of an
    /// upload whose length the proxy never learned (PATCH /upload/7)"`, the last such request's.
    public var neverFiredReasons: [String: String] { main.engine.neverFiredReasons }

    /// Stops every listener and connection, then flushes and closes the transcript file. Idempotent.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        main.stop()
        let listeners = toxiproxyListeners.withLock { listeners in
            defer { listeners = [:] }
            return Array(listeners.values)
        }
        for listener in listeners { listener.stop() }
        shared.transcript.close()
        shared.capture?.close()
        if let counts = wire?.stop() {
            var problems: [String] = []
            if let error = counts.error { problems.append("\(error)") }
            if counts.dropped > 0 { problems.append("the kernel dropped \(counts.dropped) packets") }
            if !problems.isEmpty {
                wireStopProblem.withLock { $0 = "wire capture: " + problems.joined(separator: "; ") }
            }
        }
    }

    /// Whether a flight-recording decrypted capture is written when the proxy stops (the default) or dropped.
    public func keepDecryptedCapture(_ keep: Bool) {
        shared.capture?.keep(keep)
    }

    /// What went wrong with the captures: the wire capture that could not start (e.g. not permitted), a write
    /// that failed. Empty when every capture asked for works (or none was asked for).
    public var captureProblems: [String] {
        var problems: [String] = []
        if let problem = wireProblem { problems.append(problem) }
        if let problem = wireStopProblem.withLock({ $0 }) { problems.append(problem) }
        if let error = shared.capture?.firstError { problems.append("decrypted capture: \(error)") }
        return problems
    }

    /// Takes the Toxiproxy-compatible proxies' toxics from `handler`; call `toxiproxyRulesChanged` from its
    /// `onChange`.
    public func useToxiproxyRules(from handler: ControlAPIHandler) {
        ruleSource.withLock { $0 = handler }
        toxiproxyRulesChanged()
    }

    /// Re-reads every Toxiproxy-compatible proxy's rules; live connections get new toxics and lose removed ones.
    public func toxiproxyRulesChanged() {
        guard let handler = ruleSource.withLock({ $0 }) else { return }
        for listener in toxiproxyListeners.withLock({ Array($0.values) }) {
            update(listener, rules: handler.rules(for: listener.settings.name))
        }
    }

    private func update(_ listener: ProxyListener, rules: [FaultRule]) {
        let change = listener.engine.replaceRules(rules, time: shared.now)
        for handle in shared.registry.all(listener: listener.settings.name) { handle.send(.rulesChanged(change)) }
    }

    // MARK: ProxyRuntime

    public func liveConnections() -> [LiveConnection] {
        shared.registry.all().map(\.live)
    }

    public func faultRules() -> [FaultRule] {
        main.engine.rules
    }

    public func faultStatuses() -> [FaultRuleStatus] {
        main.engine.statuses
    }

    public func addFaultRules(_ rules: [FaultRule]) throws(ControlAPIError) {
        try changeMainRules { (current: [FaultRule]) throws(ControlAPIError) -> [FaultRule] in
            var names = Set(current.map(\.name))
            for rule in rules where !names.insert(rule.name).inserted {
                throw ControlAPIError(.alreadyExists, "a fault named \(rule.name) exists")
            }
            return current + rules
        }
    }

    public func removeFaultRule(named name: String) throws(ControlAPIError) {
        try changeMainRules { (current: [FaultRule]) throws(ControlAPIError) -> [FaultRule] in
            guard current.contains(where: { $0.name == name }) else {
                throw ControlAPIError(.notFound, "no fault named \(name)")
            }
            return current.filter { $0.name != name }
        }
    }

    public func replaceFaultRules(_ rules: [FaultRule], seed: UInt64?) {
        guard let seed else {
            changeMainRules { _ in rules }
            return
        }
        let change = main.engine.restart(rules: rules, seed: seed, time: shared.now)
        for handle in shared.registry.all(listener: main.settings.name) { handle.send(.rulesChanged(change)) }
    }

    /// Changes the main listener's rules in one locked step, then tells its live connections.
    private func changeMainRules<E: Error>(_ change: ([FaultRule]) throws(E) -> [FaultRule]) throws(E) {
        let change = try main.engine.updateRules(time: shared.now, change)
        for handle in shared.registry.all(listener: main.settings.name) { handle.send(.rulesChanged(change)) }
    }

    public func fire(
        _ action: FaultAction, direction: FaultDirection, on connection: Int, name: String
    ) throws(ControlAPIError) {
        guard let handle = shared.registry.handle(connection) else {
            throw ControlAPIError(.notFound, "no live connection \(connection)")
        }
        switch action {
        case .respond, .expireAuth:
            guard handle.mode == ConnectionFlow.Mode.http.rawValue else {
                throw ControlAPIError(.badRequest, "\(action.name) needs an http-mode connection; \(connection) is tcp")
            }
        default:
            guard action.isConnectionAction else {
                throw ControlAPIError(
                    .badRequest, "\(action.name) acts on a response; add it as a fault rule instead of firing it")
            }
        }
        let decision = FaultDecision(
            rule: name, connection: connection, action: action, direction: direction, time: shared.now)
        shared.counters.countFired([decision])
        handle.send(.fire(decision))
    }

    /// Resets live connection `connection` at once (RSTs on both legs once the server acknowledged what was written
    /// to it, nothing more written, the client's leg not waited for: its client is gone), as
    /// no fault: the transcript records its close, the fault timeline nothing. False when it is gone.
    @discardableResult
    public func reset(connection: Int) -> Bool {
        guard let handle = shared.registry.handle(connection) else { return false }
        handle.send(.reset)
        return true
    }

    public func transcriptLines(from: Int) -> (lines: String, next: Int) {
        shared.transcript.lines(from: from)
    }

    public func waitForTranscriptLines(from: Int, timeout: Duration) -> (lines: String, next: Int) {
        _ = shared.transcript.wait(forAppendedBeyond: from, timeout: timeout)
        return shared.transcript.lines(from: from, limit: Self.eventStreamBatch)
    }

    /// The most transcript lines one wake-up of an event stream formats and sends; a reader far behind catches up
    /// in batches.
    static let eventStreamBatch = 4096

    public func metrics() -> ProxyMetrics {
        var metrics = shared.counters.snapshot { self.shared.registry.all() }
        let running =
            stopped.load(ordering: .acquiring) ? [] : [main] + toxiproxyListeners.withLock { Array($0.values) }
        metrics.connectionsShed += running.reduce(0) { $0 + Int64($1.shedConnections) }
        (metrics.transcriptEvents, metrics.transcriptBytes, metrics.transcriptDropped) = shared.transcript.size
        return metrics
    }

    public func startListener(proxy name: String, listen: String, upstream: String) throws(ControlAPIError) -> String {
        stopListener(proxy: name)
        do {
            let address = try SocketAddress(parsing: listen)
            guard address.isLoopback else {
                throw ChaosProxyError(.badListen, "listen \(listen): only loopback addresses are allowed")
            }
            let target = try UpstreamTarget(parsing: upstream)
            // Toxiproxy connects its upstream at the accept; its users proxy protocols whose server speaks first.
            var settings = ListenerSettings(
                name: name, upstream: UpstreamTarget(host: target.host, port: target.port, tls: false), mode: .tcp,
                seed: configuration.seed, limits: configuration.limits)
            settings.upstreamAtAccept = true
            let rules = ruleSource.withLock { $0 }?.rules(for: name) ?? []
            let engine = EngineBox(rules: rules, seed: configuration.seed, metrics: shared.counters)
            let listener = try ProxyListener(address: address, settings: settings, engine: engine, shared: shared)
            toxiproxyListeners.withLock { $0[name] = listener }
            return listener.address.description
        } catch let error as ChaosProxyError {
            throw ControlAPIError(.badRequest, error.detail)
        } catch {
            throw ControlAPIError(.badRequest, "listen \(listen): \(error)")
        }
    }

    public func stopListener(proxy name: String) {
        toxiproxyListeners.withLock { $0.removeValue(forKey: name) }?.stop()
    }
}
