import CSystem
import Glibc

/// Opens outgoing TCP connections with a bounded wait.
public enum TCPConnector {
    /// Connects to `address`, failing with `connectTimeout` when no answer comes within `timeout`.
    ///
    /// The returned socket is blocking, close-on-exec, with `TCP_NODELAY`.
    public static func connect(to address: SocketAddress, timeout: Duration = .seconds(10)) throws -> Socket {
        let socket = try Socket.tcp(family: address.family)
        try socket.setNonBlocking(true)
        let status = address.withSockAddr { Glibc.connect(socket.fd, $0, $1) }
        if status != 0 {
            guard errno == EINPROGRESS else { throw NetError.system(.connect, "connect \(address)") }
            guard try Poller.wait(socket.fd, for: .write, until: .now + timeout) else {
                throw NetError(.connectTimeout, "connect \(address): no answer within \(timeout)")
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else {
                throw NetError.system(.connect, "connect \(address)", errno: failure)
            }
        }
        try socket.setNonBlocking(false)
        socket.setNoDelay()
        return socket
    }

    /// Parses `HOST:PORT` and connects.
    public static func connect(_ text: String, timeout: Duration = .seconds(10)) throws -> Socket {
        try connect(to: SocketAddress(parsing: text), timeout: timeout)
    }
}

extension Duration {
    /// The whole milliseconds in this duration, rounded up, for `poll()` timeouts.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
