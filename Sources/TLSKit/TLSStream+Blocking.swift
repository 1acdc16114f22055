import Glibc
import SquallNet

/// Blocking conveniences for clients, tools and tests: each completes the handshake within a timeout.
extension TLSStream {
    /// Opens a TCP connection to `address` and completes a client handshake. `serverName` defaults to
    /// the address's host (an IP literal then, verified against the certificate's IP SANs).
    ///
    /// Throws `NetError` when TCP fails, `TLSError` when TLS does.
    public static func connect(
        to address: SocketAddress, context: TLSContext, serverName: String? = nil, timeout: Duration = .seconds(10)
    ) throws -> TLSStream {
        let socket = try TCPConnector.connect(to: address, timeout: timeout)
        let stream = try TLSStream(socket: socket, context: context, serverName: serverName ?? address.host)
        try stream.handshake(timeout: timeout)
        return stream
    }

    /// Completes a server handshake on an accepted socket (create it on the thread that will use it).
    public static func accept(socket: Socket, context: TLSContext, timeout: Duration = .seconds(10)) throws -> TLSStream
    {
        let stream = try TLSStream(socket: socket, context: context)
        try stream.handshake(timeout: timeout)
        return stream
    }

    /// Drives the handshake to its end, polling the socket, and fails with `.timeout` after `timeout`.
    /// The socket's blocking mode is the same afterwards as before.
    public func handshake(timeout: Duration) throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let flags = fcntl(socket.fd, F_GETFL)
        let wasBlocking = flags >= 0 && flags & O_NONBLOCK == 0
        if wasBlocking { try socket.setNonBlocking(true) }
        defer { if wasBlocking { try? socket.setNonBlocking(false) } }
        while case .wouldBlock(let interest) = try handshake() {
            try TLSStream.wait(on: socket.fd, for: interest, until: deadline)
        }
    }

    /// Polls `fd` until it has `interest`, failing with `.timeout` at `deadline`.
    static func wait(on fd: Int32, for interest: IOInterest, until deadline: ContinuousClock.Instant) throws {
        var events: Int16 = 0
        if interest.contains(.read) { events |= Int16(POLLIN) }
        if interest.contains(.write) { events |= Int16(POLLOUT) }
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TLSError(.timeout, "the TLS handshake did not finish in time") }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: remaining.milliseconds))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw TLSError.system(.io, "poll") }
        }
    }
}
