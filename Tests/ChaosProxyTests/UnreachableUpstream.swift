import ChaosProxy
import SquallNet

/// An upstream nobody listens on: a loopback port bound and released at once.
enum UnreachableUpstream {
    static func target() throws -> UpstreamTarget {
        let unused = try TCPListener(address: SocketAddress(parsing: "127.0.0.1:0"))
        let port = unused.address.port
        unused.close()
        return UpstreamTarget(host: "127.0.0.1", port: port, tls: false)
    }
}
