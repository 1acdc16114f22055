import ChaosProxy
import FaultEngine
import Foundation
import ProxyFlow
import SquallNet
import TLSKit

/// `proxy`: runs the chaos proxy in process until SIGINT or SIGTERM, so `Tools/bench-proxy.sh` can time it and
/// read its memory from `/proc/PID/status`.
///
/// ```
/// squall-bench proxy --listen 127.0.0.1:0 --upstream https://localhost:T --ca DIR --upstream-ca DIR/ca.pem \
///     --mode tcp                                    # → proxy url=https://127.0.0.1:P listening=127.0.0.1:P
/// squall-bench proxy --listen 127.0.0.1:0 --upstream 127.0.0.1:F --mode tcp \
///     --fault '{"name": "slow", "action": "bandwidth", "rate": "1MiB", "direction": "downstream"}'
/// ```
/// `--fault` takes one fault object of the scenario vocabulary or an array of them (`BenchOptions` keeps one
/// value per option, so several faults go in one array).
enum ProxyCommand: BenchCommand {
    static let name = "proxy"
    static let usage =
        "--listen ADDR --upstream URL|HOST:PORT [--ca DIR] [--upstream-ca FILE] [--mode tcp|http] [--fault JSON] "
        + "[--pcap FILE | --pcap-recorder FILE]"
    static let summary =
        "runs a ChaosProxy (TLS listener with --ca, upstream verified against --upstream-ca) until SIGINT or "
        + "SIGTERM; prints 'proxy url=URL listening=ADDR'"

    static func run(_ options: BenchOptions) throws {
        let configuration = try makeConfiguration(options)
        let signals = ProxySignals()
        let proxy = try ChaosProxy(configuration: configuration)
        BenchMain.emit("\(name) url=\(proxy.url) listening=\(proxy.address)")
        signals.wait()
        // A flight recorder's packets are dropped, as for a passing scenario (`squall run --capture on-failure`).
        if (try? options.string("pcap-recorder")) != nil { proxy.keepDecryptedCapture(false) }
        proxy.stop()
    }

    /// The proxy configuration the options describe.
    static func makeConfiguration(_ options: BenchOptions) throws -> ChaosProxyConfiguration {
        var configuration = ChaosProxyConfiguration(
            listen: try options.address("listen"), upstream: try UpstreamTarget(parsing: options.string("upstream")))
        let mode = options.string("mode", default: "http")
        guard let flowMode = ConnectionFlow.Mode(rawValue: mode) else {
            throw BenchError("--mode must be tcp or http, not '\(mode)'")
        }
        configuration.mode = flowMode
        if let directory = try? options.string("ca") {
            configuration.authority = try CertificateAuthority.loadOrCreate(directory: directory)
        }
        if let file = try? options.string("upstream-ca") {
            configuration.upstreamTrust = .caFile(file)
        }
        configuration.decryptedCapturePath = try? options.string("pcap")
        // The default FlightRecorderLimits (8 MiB a connection, 256 MiB in all), named by inference: the
        // benchmarks do not import Capture.
        if let file = try? options.string("pcap-recorder") {
            configuration.decryptedCapturePath = file
            configuration.decryptedCaptureRecorder = .some(.init())
        }
        if let json = try? options.string("fault") {
            configuration.rules = try faults(json)
        }
        return configuration
    }

    /// Reads one fault object or an array of them.
    static func faults(_ json: String) throws -> [FaultRule] {
        let trimmed = json.drop { $0 == " " || $0 == "\n" || $0 == "\t" }
        do {
            if trimmed.hasPrefix("[") { return try FaultRule.parseList(json) }
            return [try FaultRule.parse(json)]
        } catch {
            throw BenchError("--fault: \(error)")
        }
    }
}
