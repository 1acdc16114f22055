import CSystem
import Glibc
import Synchronization

/// Owns one TCP socket descriptor and closes it exactly once (on `close()`, `abort()` or deinit).
///
/// A socket is used by one thread at a time; `shutdown` is the one call that may come from another
/// thread (to wake a blocked `accept` or `poll`).
public final class Socket: @unchecked Sendable {
    private let descriptor: Mutex<Int32>

    /// Takes ownership of an open descriptor.
    public init(adopting fd: Int32) {
        self.descriptor = Mutex(fd)
    }

    deinit {
        close()
    }

    /// The descriptor, or -1 once closed.
    public var fd: Int32 {
        descriptor.withLock { $0 }
    }

    /// Creates a TCP socket of the address's family with close-on-exec set.
    public static func tcp(family: Int32) throws -> Socket {
        let fd = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NetError.system(.socket, "socket") }
        return Socket(adopting: fd)
    }

    /// Two connected stream sockets of the local domain (`socketpair(2)`, close-on-exec): what one end writes, the
    /// other reads, as over TCP. `bufferSize`, when given, is each end's send and receive buffer (`SO_SNDBUF`,
    /// `SO_RCVBUF`): how much one write can hand over before the reader takes it.
    public static func pair(bufferSize: Int? = nil) throws -> (Socket, Socket) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw NetError.system(.socket, "socketpair")
        }
        let ends = (Socket(adopting: fds[0]), Socket(adopting: fds[1]))
        if let bufferSize {
            for end in [ends.0, ends.1] {
                try end.setOption(level: SOL_SOCKET, name: SO_SNDBUF, value: Int32(bufferSize))
                try end.setOption(level: SOL_SOCKET, name: SO_RCVBUF, value: Int32(bufferSize))
            }
        }
        return ends
    }

    /// Switches `O_NONBLOCK` on or off.
    public func setNonBlocking(_ on: Bool) throws {
        try Socket.setNonBlocking(fd, on)
    }

    /// Switches `O_NONBLOCK` on or off for any descriptor (a `ByteStream` only exposes its descriptor).
    public static func setNonBlocking(_ fd: Int32, _ on: Bool) throws {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { throw NetError.system(.socket, "fcntl(F_GETFL)") }
        let updated = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        guard fcntl(fd, F_SETFL, updated) == 0 else { throw NetError.system(.socket, "fcntl(F_SETFL)") }
    }

    /// Disables Nagle's algorithm (`TCP_NODELAY`).
    public func setNoDelay() {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sets an integer socket option, e.g. `SO_SNDBUF`.
    public func setOption(level: Int32, name: Int32, value: Int32) throws {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw NetError.system(.socket, "setsockopt(\(name))")
        }
    }

    /// The address this socket is bound to.
    public func localAddress() throws -> SocketAddress {
        try address(getsockname, "getsockname")
    }

    /// The address of the connected peer.
    public func peerAddress() throws -> SocketAddress {
        try address(getpeername, "getpeername")
    }

    /// Whether the peer has ended the connection (its FIN or RST has arrived), whatever is still unread: a
    /// `poll` that does not wait, for POLLRDHUP, POLLHUP or POLLERR.
    public var peerHasClosed: Bool {
        // POLLRDHUP (0x2000, a GNU extension the Glibc module does not export): the peer shut down its writing.
        let readHangUp: Int16 = 0x2000
        var entry = pollfd(fd: fd, events: Int16(POLLIN) | readHangUp, revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & (readHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
    }

    /// Half-closes or fully shuts down the connection without releasing the descriptor.
    public func shutdown(reading: Bool = false, writing: Bool = true) {
        let how: Int32
        switch (reading, writing) {
        case (true, true): how = Int32(SHUT_RDWR)
        case (true, false): how = Int32(SHUT_RD)
        case (false, true): how = Int32(SHUT_WR)
        case (false, false): return
        }
        _ = Glibc.shutdown(fd, how)
    }

    /// Closes the descriptor (a FIN to the peer when nothing is unread). Safe to call more than once.
    public func close() {
        let fd = descriptor.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Copies the first bytes waiting to be read into `buffer` without taking them (`MSG_PEEK`), waiting until some
    /// are there or `deadline`; 0 when the peer closed, nil when the deadline passed first.
    public func peek(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) throws -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
            if count >= 0 { return count }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw NetError.system(.read, "recv")
            }
            guard try Poller.wait(fd, for: .read, until: deadline) else { return nil }
        }
    }

    /// Closes with `SO_LINGER` 0, so the kernel sends a TCP RST instead of a FIN.
    public func abort() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    private typealias NameCall = (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?) -> Int32

    private func address(_ call: NameCall, _ name: String) throws -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) }
        }
        guard status == 0 else { throw NetError.system(.socket, name) }
        return SocketAddress(storage: storage)
    }
}
