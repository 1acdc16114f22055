import CSystem
import Glibc
import Synchronization

/// A listening TCP socket bound to one address; port 0 asks the kernel for a free port, which
/// `address` then reports.
///
/// `accept()` blocks the calling thread (give it a thread of its own); `close()` from any thread wakes it
/// with `NetError.Code.listenerClosed`.
///
/// `close()` shuts the socket down at once (which wakes a blocked `accept`) but releases the descriptor only
/// when no thread is inside `accept()`, so a racing `accept` can never reach a reused descriptor number.
public final class TCPListener: Sendable {
    /// The bound address, with the real port when port 0 was asked for.
    public let address: SocketAddress
    private let socket: Socket
    private let usage = Mutex(Usage())

    /// How many threads are inside `accept()`, and whether `close()` was called.
    private struct Usage {
        var acceptors = 0
        var closing = false
    }

    /// Binds and listens. `SO_REUSEADDR` is set so restarts on a fixed port do not wait for TIME_WAIT.
    public init(address: SocketAddress, backlog: Int32 = 512) throws {
        let socket = try Socket.tcp(family: address.family)
        var one: Int32 = 1
        _ = setsockopt(socket.fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if address.family == AF_INET6 {
            _ = setsockopt(socket.fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = address.withSockAddr { bind(socket.fd, $0, $1) }
        guard bound == 0 else { throw NetError.system(.bind, "bind \(address)") }
        guard listen(socket.fd, backlog) == 0 else { throw NetError.system(.listen, "listen \(address)") }
        self.socket = socket
        self.address = try socket.localAddress()
    }

    /// Parses `HOST:PORT` and binds it.
    public convenience init(_ text: String) throws {
        try self.init(address: SocketAddress(parsing: text))
    }

    /// Waits for the next connection. The accepted socket is blocking, close-on-exec, with `TCP_NODELAY`.
    public func accept() throws -> Socket {
        let listening = usage.withLock { usage -> Int32 in
            guard !usage.closing else { return -1 }
            usage.acceptors += 1
            return socket.fd
        }
        guard listening >= 0 else { throw NetError(.listenerClosed, "listener on \(address) is closed") }
        defer { leaveAccept() }
        while true {
            let fd = accept4(listening, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            if fd >= 0 {
                let accepted = Socket(adopting: fd)
                accepted.setNoDelay()
                return accepted
            }
            let error = errno
            switch error {
            case EINTR, ECONNABORTED:
                continue
            case EINVAL, EBADF:
                throw NetError(.listenerClosed, errno: error, "listener on \(address) is closed")
            default:
                throw NetError.system(.accept, "accept on \(address)", errno: error)
            }
        }
    }

    /// Stops listening; a thread blocked in `accept()` returns with `listenerClosed`. Safe to call more than once.
    public func close() {
        let idle = usage.withLock { usage -> Bool in
            guard !usage.closing else { return false }
            usage.closing = true
            // A shut-down listening socket fails every accept(), blocked or future, with EINVAL. Done under
            // the lock so that a returning acceptor cannot release the descriptor in between.
            socket.shutdown(reading: true, writing: true)
            return usage.acceptors == 0
        }
        if idle { socket.close() }
    }

    private func leaveAccept() {
        let last = usage.withLock { usage -> Bool in
            usage.acceptors -= 1
            return usage.closing && usage.acceptors == 0
        }
        if last { socket.close() }
    }
}
