import Capture
import FaultEngine
import HTTPWire
import ProxyFlow
import SquallNet
import TLSKit

/// Where the proxy forwards to: `http://host:port`, `https://host:port`, or (tcp mode) `host:port`.
public struct UpstreamTarget: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    public var tls: Bool

    public init(host: String, port: UInt16, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// Parses an upstream URL (a path is ignored) or a bare `host:port`; IPv6 literals go in brackets.
    public init(parsing text: String) throws(ChaosProxyError) {
        var rest = Substring(text)
        var tls = false
        var defaultPort: UInt16?
        if let range = rest.range(of: "://") {
            switch rest[..<range.lowerBound].lowercased() {
            case "http": defaultPort = 80
            case "https":
                defaultPort = 443
                tls = true
            default: throw ChaosProxyError(.badUpstream, "upstream \(text): the scheme must be http or https")
            }
            rest = rest[range.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        let (host, portText) = HTTPAuthority.split(rest)
        guard !host.isEmpty else { throw ChaosProxyError(.badUpstream, "upstream \(text): no host") }
        let port = portText.flatMap { UInt16($0) } ?? defaultPort
        guard let port, port > 0 else {
            throw ChaosProxyError(.badUpstream, "upstream \(text): needs a port (1…65535) or an http(s) scheme")
        }
        self.init(host: String(host), port: port, tls: tls)
    }

    public var description: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "https" : "http")://\(bracketed):\(port)"
    }

    /// How an absolute URL on this upstream may begin, lower-cased: `scheme://host:port`, and `scheme://host` when
    /// the port is the scheme's default.
    public var origins: Set<String> {
        let full = description.lowercased()
        guard port == (tls ? 443 : 80) else { return [full] }
        return [full, String(full.dropLast(":\(port)".count))]
    }
}

/// How a `ChaosProxy` listens, forwards and injects faults. Defaults: http mode, plain upstream verified
/// against the system roots when TLS, no key log, no transcript file, seed 0, no rules.
public struct ChaosProxyConfiguration: Sendable {
    /// The address to listen on (port 0 picks one).
    public var listen: SocketAddress
    public var upstream: UpstreamTarget
    /// The CA that mints the client-facing leaf per SNI; nil listens in plain TCP.
    public var authority: CertificateAuthority?
    /// Which upstream certificates are accepted (https upstreams).
    public var upstreamTrust: TLSTrust = .systemDefault
    public var mode: ConnectionFlow.Mode = .http
    /// TLS secrets of both legs in NSS key log format.
    public var keyLog: KeyLog?
    /// A file to write the transcript to as JSON Lines (created or truncated).
    public var transcriptPath: String?
    /// A file to write the transcript to as an HTTP Archive (HAR 1.2; created or truncated): an entry per
    /// exchange once its connection closed, the rest and the archive's end at `stop()` (`HARRecorder`).
    public var harPath: String?
    /// The most bytes of transcript events kept in memory (by `TranscriptEvent.footprint`): past it the oldest are
    /// dropped from memory and counted (the `transcriptPath` file keeps them all). Default 8 MiB, tens of thousands
    /// of events, so that a proxy left running under load stays flat; nil keeps every event (the harness, whose
    /// verdicts read the whole transcript of a bounded scenario).
    public var transcriptMemory: Int? = ChaosProxyConfiguration.defaultTranscriptMemory
    /// `transcriptMemory`'s default: 8 MiB.
    public static let defaultTranscriptMemory = 8 << 20
    public var seed: UInt64 = 0
    public var rules: [FaultRule] = []
    /// Bytes a lane may hold before the proxy stops reading its source (backpressure).
    public var laneCapacity = 256 * 1024
    /// What every listener of the proxy (the main one and the Toxiproxy-compatible ones) allows its clients
    /// (`--head-timeout`, `--idle-timeout`, `--max-connections`). Default `ChaosProxyConfiguration.defaultLimits`.
    /// The head timeout counts from the accept, the client's TLS handshake included, until the first request head is
    /// whole (tcp mode: the first byte); past it the client gets 408 (tcp mode: the connection closes), and a later
    /// head has as long from its first byte. The idle timeout closes an http connection that sat between requests
    /// that long. One connection over the limit is shed (a 503 in http mode).
    public var limits = ChaosProxyConfiguration.defaultLimits
    /// tcp mode: connect the upstream as soon as a client is accepted (`--upstream-at-accept`), for protocols whose
    /// server speaks first; idle clients then hold upstream connections. The Toxiproxy-compatible listeners always
    /// do. Default false: on the client's first byte.
    public var upstreamAtAccept = false
    /// Whether clients may speak HTTP/2 (`--http2 on`; http mode only): offered by ALPN (`h2` before `http/1.1`) over
    /// TLS, taken with prior knowledge over cleartext. Each stream is proxied as an exchange of its own, its faults,
    /// gate and transcript those of a connection (`HTTP2Front`); `upstreamHTTP2` says how they go upstream. Default
    /// false.
    public var http2 = false
    /// Whether an HTTP/2 client's streams go upstream over one HTTP/2 connection (h2 to h2, `HTTP2Back`) or each as
    /// an HTTP/1.1 exchange of its own (h2 to h1) (`--upstream-http2`). Default `auto`: HTTP/2 when an https upstream
    /// chooses `h2` in ALPN.
    public var upstreamHTTP2 = UpstreamHTTP2.auto
    /// The interop versions the upstream serves resumably, when known (a scenario's reference server, a server
    /// profile): a fault at an upload offset of a creation at another version fires at once instead of waiting for a
    /// 104 that will not come (`Announcement`). Default nil: every version may be announced.
    public var upstreamInterop: Set<Int>?
    /// A pcap file of both legs' plaintext as synthesized TCP/IPv4 (created or truncated; flushed as it is
    /// written). Default nil: none.
    public var decryptedCapturePath: String?
    /// Makes the decrypted capture a flight recorder within these limits: kept in memory per connection, written
    /// when the proxy stops unless `ChaosProxy.keepDecryptedCapture(false)` was said (see `DecryptedCapture`).
    /// Default nil: written as the traffic flows.
    public var decryptedCaptureRecorder: FlightRecorderLimits?
    /// A pcap file of the real, encrypted loopback traffic of the listener's and the upstream's ports (live
    /// capture; needs root or CAP_NET_RAW, else `ChaosProxy.captureProblems` says so). Default nil: none.
    public var wireCapturePath: String?
    /// The device the wire capture listens on. Default `lo`.
    public var wireCaptureDevice = "lo"
    /// Called (on the connection's thread, so it must return promptly) when a rule of the main listener meets a
    /// request it cannot fire in: a percentage on an upload whose length the proxy never learned. The transcript
    /// records it too (`fault_unresolved`); `squall proxy` prints a line on stderr. Default nil.
    public var onUnresolvedFault: (@Sendable (UnresolvedFault) -> Void)?

    /// The proxy's limits unless told otherwise: a first head (or byte) within 10 s of the accept, as the reference
    /// server; 90 s idle, longer than the reference server's 60 s, so that in front of a server it is the server's own
    /// idle close that clients see, and the proxy's closes only connections whose upstream never does; 4096
    /// connections at once: each costs a thread and about 100 KiB (the bench's 1,000 held connections: 101 MiB), and
    /// at most three descriptors, so 12,288 of a `ulimit -n` of 20000.
    public static let defaultLimits = ListenerLimits(
        headTimeout: .seconds(10), idleTimeout: .seconds(90), maximumConnections: 4096)

    public init(listen: SocketAddress, upstream: UpstreamTarget) {
        self.listen = listen
        self.upstream = upstream
    }
}

/// Why the proxy could not start or do what was asked.
public struct ChaosProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The upstream URL or address is not usable.
        case badUpstream
        /// A listen address is not usable (not loopback where required, or the bind failed).
        case badListen
        /// The transcript file cannot be written, or its bound in memory is not positive.
        case transcriptFile
        /// The decrypted capture file cannot be written.
        case captureFile
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }
}
