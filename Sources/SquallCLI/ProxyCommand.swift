import ChaosProxy
import ControlAPI
import FaultEngine
import Foundation
import ProxyFlow
import SquallNet
import TLSKit

/// `squall proxy`: runs the chaos proxy (and optionally its control API) until SIGINT or SIGTERM.
enum ProxyCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["proxy"],
        summary: "Run the TLS-terminating chaos proxy in front of an upstream until SIGINT or SIGTERM.",
        usage: "--upstream URL [--listen ADDR] [--ca DIR | --plain] [--mode http|tcp] [--api ADDR] ...",
        options: [
            .value("--upstream", "URL", help: "Where to forward: http://HOST:PORT, https://HOST:PORT (required)."),
            .value("--listen", "ADDR", help: "Address to listen on. Default 127.0.0.1:0 (a free port)."),
            .value("--ca", "DIR", help: "The CA minting leaves per SNI (default: $SQUALL_CA_DIR, else ~/.squall/ca)."),
            .flag("--plain", help: "Accept plain TCP from clients instead of TLS (no CA)."),
            .value("--upstream-ca", "FILE", help: "Verify an https upstream against these CA certificates (PEM)."),
            .flag("--upstream-insecure", help: "Accept any upstream certificate (tests only)."),
            .value("--mode", "http|tcp", help: "Parse HTTP/1.1 (all faults) or pass opaque bytes. Default http."),
            .flag(
                "--upstream-at-accept",
                help: "tcp mode: connect upstream at the accept, for protocols whose server speaks first."),
            .value(
                "--http2", "on|off",
                help:
                    "Let clients speak HTTP/2 (ALPN h2; prior knowledge with --plain), each stream proxied on its own. "
                    + "Default on in http mode."),
            .value(
                "--upstream-http2", "auto|on|off",
                help:
                    "How an HTTP/2 client's streams go upstream: over one HTTP/2 connection when an https upstream "
                    + "chooses h2 in ALPN (auto, the default), also with prior knowledge over http (on), or each as "
                    + "an HTTP/1.1 exchange of its own (off)."),
            .value(
                "--api", "ADDR",
                help:
                    "Serve the control API and dashboard here, e.g. 127.0.0.1:8474 (off loopback only with --api-token)."
            ),
            .value("--api-token", "T", help: "Require 'Authorization: Bearer T' on the control API (needs --api)."),
            .value("--scenario", "FILE", help: "Load the faults (and seed) of a scenario file."),
            .value("--seed", "N", help: "Seed for probabilities, jitter and slices (default: the scenario's, else 0)."),
            .value("--keylog", "FILE", help: "Append both legs' TLS secrets in NSS key log format."),
            .value("--transcript", "FILE", help: "Write the transcript as JSON Lines (flushed on exit)."),
            .value(
                "--har", "FILE",
                help: "Write the exchanges as an HTTP Archive (HAR 1.2; 104s in _interimResponses), ended on exit."),
            .value(
                "--transcript-memory", "SIZE",
                help: "Keep at most SIZE of the newest transcript events in memory (the API's). Default 8MiB."
            ),
            .value("--pcap", "FILE", help: "Write both legs' plaintext as a pcap (TCP/IPv4; opens without a key)."),
            .value(
                "--pcap-wire", "FILE",
                help: "Capture the real loopback traffic of the proxy's and upstream's ports (root or CAP_NET_RAW)."),
        ] + ListenerLimitsOption.specs(defaults: ChaosProxyConfiguration.defaultLimits)
            + ListenerLimitsOption.specs(
                prefix: "--api-", listener: "Control API", defaults: ControlServer.defaultLimits),
        discussion: """
            Prints the proxy's URL on the first line of stdout, the control API's URL on the second when --api is
            given, then the path of the CA certificate clients must trust (unless --plain). The control API serves
            Toxiproxy's API (/proxies, /populate, /reset, /version, toxics) and Squall's own under /squall/
            (connections, faults, fire, scenario, transcript) and /metrics; 'squall fault' is its command-line
            client. A fault that meets a request it cannot fire in (a percentage of an upload whose length the
            proxy never learned) is reported at once on stderr (and in the transcript as fault_unresolved). On
            SIGINT or SIGTERM the proxy stops, flushes the transcript and lists on stderr the faults that never fired
            (with the reason, when one is known). The capture files are flushed as they are written, so a crash leaves them
            readable: open --pcap with 'tshark -r FILE -Y http', and --pcap-wire with '-o tls.keylog_file:KEYLOG'
            (give --keylog too). When live capture is not permitted, a one-line message says so on stderr and
            the proxy runs on (the --pcap capture still works). In memory (what /squall/transcript and
            /squall/events serve), the proxy keeps the newest transcript events within --transcript-memory and
            counts the older ones it dropped; the --transcript file keeps every event. The --har file gets an
            entry per exchange once its connection closed and the rest on exit ('squall transcript to-har' makes
            one from a --transcript file).

            Limits (every proxy listener, the Toxiproxy ones included): the upstream is connected only once a
            client's bytes make a request (http mode: a whole request head; tcp mode: a first byte), so idle
            clients cost no upstream connection; in tcp mode --upstream-at-accept connects at the accept instead,
            for protocols whose server speaks first, as the Toxiproxy listeners always do. A client's first request head must be whole within
            --head-timeout of the accept, its TLS handshake included (tcp mode: its first byte), else 408 (tcp
            mode: the connection closes; an unfinished TLS handshake closes without a byte); a later head has as
            long from its first byte. An http connection idle between requests for --idle-timeout closes. A
            connection over --max-connections gets 503 with Connection: close (tcp mode: closed at once). The
            control API has its own limits (--api-head-timeout, --api-idle-timeout, --api-max-connections).
            """,
        stopsOnSignal: true
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        var configuration = try makeConfiguration(arguments, environment: context.environment)
        let apiAddress = try apiAddress(arguments)
        let apiLimits = try apiLimits(arguments)
        let console = context.console
        configuration.onUnresolvedFault = { fault in console.printError("squall proxy: \(unresolvedLine(fault))") }
        let proxy = try ChaosProxy(configuration: configuration)
        var api: ControlServer?
        if let address = apiAddress {
            let proxyReference = WeakProxy(proxy)
            var apiConfiguration = ControlAPIConfiguration(token: arguments["--api-token"])
            apiConfiguration.device = configuration.authority.map {
                DeviceProfile(certificatePEM: $0.certificatePEM, fingerprint: $0.fingerprintSHA256, subject: $0.subject)
            }
            let handler = ControlAPIHandler(configuration: apiConfiguration) { _ in
                proxyReference.proxy?.toxiproxyRulesChanged()
            }
            handler.attach(proxy)
            proxy.useToxiproxyRules(from: handler)
            api = try ControlServer(address: address, handler: handler, limits: apiLimits)
        }
        let startProblems = proxy.captureProblems
        for problem in startProblems { context.console.printError("squall proxy: \(problem)") }
        context.console.print(proxy.url)
        if let api { context.console.print("http://\(api.address)") }
        if let authority = configuration.authority {
            context.console.print(authority.certificatePath)
            if let warning = authority.keyExposure { context.console.printError("squall proxy: warning: \(warning)") }
        }
        context.stop.waitUntilRequested()
        api?.stop()
        let silent = proxy.neverFired
        let reasons = proxy.neverFiredReasons
        proxy.stop()
        for problem in proxy.captureProblems where !startProblems.contains(problem) {
            context.console.printError("squall proxy: \(problem)")
        }
        if !silent.isEmpty {
            let names = silent.map { name in reasons[name].map { "\(name) (\($0))" } ?? name }
            context.console.printError("squall proxy: faults that never fired: \(names.joined(separator: ", "))")
        }
        context.stop.noteStopped(
            "the proxy at \(proxy.url)" + (api.map { " and its control API at http://\($0.address)" } ?? ""))
        for flag in ["--transcript", "--har", "--pcap", "--pcap-wire", "--keylog"] {
            if let file = arguments[flag] { context.stop.noteKept("\(flag) \(file)") }
        }
        return 0
    }

    /// The stderr line for a rule that met a request it cannot fire in.
    static func unresolvedLine(_ fault: UnresolvedFault) -> String {
        "fault \(fault.rule) cannot fire on connection \(fault.connection): \(fault.reason)"
    }

    /// The proxy configuration the flags describe; a bad flag is a `UsageError`, a bad scenario file an error
    /// naming the file and the JSON path.
    static func makeConfiguration(
        _ arguments: ParsedArguments, environment: [String: String]
    ) throws -> ChaosProxyConfiguration {
        guard let upstreamText = arguments["--upstream"] else {
            throw UsageError("--upstream URL is required", command: path)
        }
        let upstream: UpstreamTarget
        do {
            upstream = try UpstreamTarget(parsing: upstreamText)
        } catch {
            throw UsageError("--upstream: \(error.detail)", command: path)
        }
        let listenText = arguments["--listen"] ?? "127.0.0.1:0"
        guard let listen = try? SocketAddress(parsing: listenText) else {
            throw UsageError("--listen must be HOST:PORT such as 127.0.0.1:8443, not '\(listenText)'", command: path)
        }
        var configuration = ChaosProxyConfiguration(listen: listen, upstream: upstream)
        if arguments.has("--plain") {
            if arguments["--ca"] != nil { throw UsageError("--ca and --plain exclude each other", command: path) }
        } else {
            let directory =
                try arguments["--ca"].map { directory throws(UsageError) in
                    try CAFolderOption.check(directory, option: "--ca", command: path)
                } ?? defaultCADirectory(environment)
            configuration.authority = try CertificateAuthority.loadOrCreate(directory: directory)
        }
        configuration.upstreamTrust = try upstreamTrust(arguments, upstream: upstream)
        switch arguments["--mode"] {
        case nil, "http": configuration.mode = .http
        case "tcp": configuration.mode = .tcp
        case let other?: throw UsageError("--mode must be http or tcp, not '\(other)'", command: path)
        }
        if arguments.has("--upstream-at-accept") {
            guard configuration.mode == .tcp else {
                throw UsageError(
                    "--upstream-at-accept needs --mode tcp (in http mode the upstream is connected for a request)",
                    command: path)
            }
            configuration.upstreamAtAccept = true
        }
        switch arguments["--http2"] {
        case nil: configuration.http2 = configuration.mode == .http
        case "off": configuration.http2 = false
        case "on":
            guard configuration.mode == .http else {
                throw UsageError("--http2 needs --mode http (tcp mode passes bytes, whatever they are)", command: path)
            }
            configuration.http2 = true
        case let other?: throw UsageError("--http2 must be on or off, not '\(other)'", command: path)
        }
        if let choice = arguments["--upstream-http2"] {
            guard let chosen = UpstreamHTTP2(rawValue: choice) else {
                throw UsageError("--upstream-http2 must be auto, on or off, not '\(choice)'", command: path)
            }
            guard configuration.http2 || chosen == .off else {
                throw UsageError(
                    "--upstream-http2 \(choice) needs clients that may speak HTTP/2 (--http2 on, --mode http)",
                    command: path)
            }
            configuration.upstreamHTTP2 = chosen
        }
        if let file = arguments["--scenario"] {
            let scenario = try loadScenario(file)
            configuration.rules = scenario.faults
            configuration.seed = scenario.seed ?? 0
        }
        if let seedText = arguments["--seed"] {
            guard let seed = UInt64(seedText) else {
                throw UsageError("--seed must be a whole number from 0 to 2^64-1, not '\(seedText)'", command: path)
            }
            configuration.seed = seed
        }
        if let keyLog = arguments["--keylog"] { configuration.keyLog = try KeyLog(path: keyLog) }
        configuration.transcriptPath = arguments["--transcript"]
        configuration.harPath = arguments["--har"]
        if let memory = arguments["--transcript-memory"] {
            let bytes = try ByteSizeOption.parse(memory, option: "--transcript-memory", command: path)
            guard bytes > 0 else {
                throw UsageError("--transcript-memory must be more than 0 bytes, not '\(memory)'", command: path)
            }
            configuration.transcriptMemory = bytes
        }
        for flag in ["--pcap", "--pcap-wire"] where arguments[flag] == "-" {
            throw UsageError("\(flag) needs a file: standard output carries the proxy's URLs", command: path)
        }
        configuration.limits = try ListenerLimitsOption.parse(
            arguments, defaults: ChaosProxyConfiguration.defaultLimits, command: path)
        configuration.decryptedCapturePath = arguments["--pcap"]
        configuration.wireCapturePath = arguments["--pcap-wire"]
        return configuration
    }

    private static var path: [String] { spec.path }

    private static func upstreamTrust(_ arguments: ParsedArguments, upstream: UpstreamTarget) throws(UsageError)
        -> TLSTrust
    {
        let file = arguments["--upstream-ca"]
        let insecure = arguments.has("--upstream-insecure")
        if file != nil || insecure, !upstream.tls {
            throw UsageError("--upstream-ca and --upstream-insecure need an https:// upstream", command: path)
        }
        if file != nil, insecure {
            throw UsageError("--upstream-ca and --upstream-insecure exclude each other", command: path)
        }
        if let file { return .caFile(try CAFileOption.check(file, option: "--upstream-ca", command: path)) }
        return insecure ? .insecure : .systemDefault
    }

    /// The control API's limits (`--api-head-timeout`, `--api-idle-timeout`, `--api-max-connections`).
    static func apiLimits(_ arguments: ParsedArguments) throws(UsageError) -> ListenerLimits {
        try ListenerLimitsOption.parse(
            arguments, prefix: "--api-", defaults: ControlServer.defaultLimits, command: path)
    }

    private static func apiAddress(_ arguments: ParsedArguments) throws(UsageError) -> SocketAddress? {
        guard let text = arguments["--api"] else {
            let apiFlags = ["--api-token", "--api-head-timeout", "--api-idle-timeout", "--api-max-connections"]
            if let flag = apiFlags.first(where: { arguments[$0] != nil }) {
                throw UsageError("\(flag) needs --api", command: path)
            }
            return nil
        }
        guard let address = try? SocketAddress(parsing: text) else {
            throw UsageError("--api must be HOST:PORT such as 127.0.0.1:8474, not '\(text)'", command: path)
        }
        // Off loopback (a phone fetching the CA, a dashboard on another machine) only behind a token: the server's
        // own rule, said here in the command's terms.
        guard ControlServer.refusal(of: address, tokenRequired: arguments["--api-token"] != nil) == nil else {
            throw UsageError(
                "--api \(text) is not a loopback address: anyone on that network could steer the proxy; add "
                    + "--api-token T (the dashboard asks for it), or listen on 127.0.0.1", command: path)
        }
        return address
    }

    /// Reads a scenario file's faults and seed.
    static func loadScenario(_ file: String) throws -> ScenarioFaults {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure("--scenario \(file): cannot read the file")
        }
        do {
            return try ScenarioFaults.parse(Array(data))
        } catch {
            throw CommandFailure("--scenario \(file): \(error.detail)")
        }
    }
}

/// Lets the control API's change callback reach the proxy without keeping it alive.
private final class WeakProxy: Sendable {
    private struct Box: @unchecked Sendable {
        weak var proxy: ChaosProxy?
    }

    private let box: Box

    init(_ proxy: ChaosProxy) {
        box = Box(proxy: proxy)
    }

    var proxy: ChaosProxy? { box.proxy }
}
