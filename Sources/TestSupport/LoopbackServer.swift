import SquallNet

/// Loopback servers for tests, on port 0 of a loopback host; each is ready when the call returns (its
/// `address` has the bound port). Handlers run on their own threads and give up after `patience`.
public enum LoopbackServer {
    /// How long a server connection waits for its peer before giving up.
    public static let patience: Duration = .seconds(20)

    /// Starts an `AcceptLoop` on `host`, port 0.
    public static func start(
        host: String = "127.0.0.1", configuration: AcceptLoopConfiguration = AcceptLoopConfiguration(),
        handler: @escaping @Sendable (Socket) -> Void
    ) throws -> AcceptLoop {
        try AcceptLoop(address: SocketAddress(host: host, port: 0), configuration: configuration, handler: handler)
    }

    /// Echoes every byte back until the peer ends its stream, then ends its own.
    public static func echo(host: String = "127.0.0.1") throws -> AcceptLoop {
        try start(host: host) { socket in
            let stream = PlainStream(socket: socket)
            let deadline = ContinuousClock.now + patience
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
            defer { chunk.deallocate() }
            do {
                while true {
                    let count = try stream.readSome(into: chunk, deadline: deadline)
                    if count == 0 { break }
                    try stream.writeAll(UnsafeRawBufferPointer(rebasing: chunk[..<count]), deadline: deadline)
                }
                try stream.shutdownWrite(deadline: deadline)
                stream.close()
            } catch {
                stream.abort()
            }
        }
    }
}
