import SquallNet
import TLSKit

/// `https-sink`: the TLS upstream of `Tools/bench-proxy.sh`'s upload comparisons, the same for squall and nginx.
///
/// Each connection completes a TLS handshake (the CA's leaf for the SNI name asked for, `localhost` without SNI) on
/// a thread of its own, then is answered as `proxy-responder` answers: every request's content is read to its end
/// and counted, never kept, and only then comes `200 OK` with the count as its content, so the client can check that
/// every byte arrived.
/// ```
/// squall-bench https-sink --listen 127.0.0.1:0 --ca DIR     # → https-sink listening=127.0.0.1:S
/// ```
enum HTTPSSinkCommand: BenchCommand {
    static let name = "https-sink"
    static let usage = "--listen ADDR --ca DIR"
    static let summary =
        "TLS HTTP/1.1 endpoint (leaves of the CA in DIR): reads every request's content, then answers 200 with its "
        + "byte count; prints 'https-sink listening=ADDR'; runs until SIGINT or SIGTERM"

    static func run(_ options: BenchOptions) throws {
        let signals = ProxySignals()
        let authority = try CertificateAuthority.loadOrCreate(directory: options.string("ca"))
        let context = try TLSEndpoints.serverContext(authority: authority)
        let loop = try AcceptLoop(
            address: options.address("listen"), configuration: AcceptLoopConfiguration(name: name)
        ) { socket in
            socket.setNoDelay()
            guard let stream = try? TLSStream.accept(socket: socket, context: context) else {
                socket.abort()
                return
            }
            ProxyResponderCommand.serve(stream)
        }
        BenchMain.emit("\(name) listening=\(loop.address)")
        signals.wait()
        loop.stop()
    }
}
