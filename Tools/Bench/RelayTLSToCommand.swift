import SquallNet
import TLSKit

/// `relay-tls-to`: a standalone TLS-terminating relay (the chaos proxy's data path), so `Tools/bench.sh` can
/// compare it with nginx's stream `ssl` termination in front of the same sink.
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
    static let usage = "--listen ADDR --upstream ADDR --ca DIR [--buffer-size N] [--connections N]"
    static let summary =
        "terminates TLS (CA leaf per SNI host) and relays each connection in plain to the upstream; prints "
        + "'relay-tls-to listening=ADDR', then one report line per connection"

    static func run(_ options: BenchOptions) throws {
        let upstream = try options.address("upstream")
        let authority = try CertificateAuthority.loadOrCreate(directory: options.string("ca"))
        let context = try TLSEndpoints.serverContext(authority: authority)
        let configuration = RelayConfiguration(bufferSize: Int(try options.bytes("buffer-size", default: 256 * 1024)))
        let outcomes = ResultBox<Result<TLSRelayed, BenchError>>()
        let relay = try TLSEndpoints.relay(
            on: options.address("listen"), to: upstream, context: context, configuration: configuration
        ) { outcomes.put($0) }
        BenchMain.emit("\(name) listening=\(relay.address)")
        try serve(connections: options.count("connections")) {
            switch try outcomes.take(seconds: .max) {
            case .success(let relayed): BenchMain.emit("\(name) \(relayed)")
            case .failure(let error): BenchMain.emit("\(name) failed \(error)")
            }
        }
        relay.stop()
    }
}
