import SquallNet
import TLSKit

/// `relay-tls-to`: a standalone TLS terminator, the TLS upstream endpoint of `Tools/bench-proxy.sh` in front of a
/// plain sink (`TLSEndpoints.terminator`: the client's bytes to their end, then the upstream's back).
///
/// The server identity is a leaf of the CA in `--ca` (created when missing) for the SNI host asked for, or for
/// `localhost` when the client sends none. Each client's handshake, then a plain connection to `--upstream`.
/// ```
/// squall-bench sink --listen 127.0.0.1:0                                   # → sink listening=127.0.0.1:S
/// squall-bench relay-tls-to --listen 127.0.0.1:0 --upstream 127.0.0.1:S --ca DIR  # → relay-tls-to listening=…
/// squall-bench source-tls --to 127.0.0.1:R --bytes 1GiB --ca-file DIR/ca.pem
/// ```
enum RelayTLSToCommand: BenchCommand {
    static let name = "relay-tls-to"
    static let usage = "--listen ADDR --upstream ADDR --ca DIR [--connections N]"
    static let summary =
        "terminates TLS (CA leaf per SNI host) and forwards each connection in plain to the upstream; prints "
        + "'relay-tls-to listening=ADDR', then one line per connection"

    static func run(_ options: BenchOptions) throws {
        let upstream = try options.address("upstream")
        let authority = try CertificateAuthority.loadOrCreate(directory: options.string("ca"))
        let context = try TLSEndpoints.serverContext(authority: authority)
        let outcomes = ResultBox<Result<TLSForwarded, BenchError>>()
        let relay = try TLSEndpoints.terminator(on: options.address("listen"), to: upstream, context: context) {
            outcomes.put($0)
        }
        BenchMain.emit("\(name) listening=\(relay.address)")
        try serve(connections: options.count("connections")) {
            switch try outcomes.take(seconds: .max) {
            case .success(let forwarded): BenchMain.emit("\(name) \(forwarded)")
            case .failure(let error): BenchMain.emit("\(name) failed \(error)")
            }
        }
        relay.stop()
    }
}
