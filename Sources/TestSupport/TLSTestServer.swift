import Dispatch
import Foundation
import SquallNet
import Synchronization
import TLSKit

/// A TLS server on 127.0.0.1 port 0 for tests. It is listening once `init` returns (connections queue
/// in the backlog), so `address` can be used at once. Each connection gets its own thread, which (by
/// default) completes the handshake, runs `handler`, closes the stream, and reports a `ServedConnection`
/// that `nextConnection(timeout:)` hands out in completion order.
public final class TLSTestServer: Sendable {
    /// How one connection went on the server side.
    public struct ServedConnection: Sendable {
        /// The handshake's result; nil when it failed (or was left to the handler).
        public let session: TLSSessionInfo?
        /// The error that ended the connection, if any.
        public let error: (any Error)?

        /// The TLS error code of `error`, if it is a `TLSError`.
        public var tlsErrorCode: TLSError.Code? { (error as? TLSError)?.code }
    }

    public let address: SocketAddress
    private let listener: TCPListener
    private let ledger = Ledger()

    /// Starts serving `context`. With `completesHandshake` false the handler gets a stream whose
    /// handshake has not started (to drive it non-blocking itself).
    public init(
        context: TLSContext, completesHandshake: Bool = true,
        handler: @escaping @Sendable (TLSStream) throws -> Void
    ) throws {
        let listener = try TCPListener(address: SocketAddress(parsing: "127.0.0.1:0"))
        self.listener = listener
        self.address = listener.address
        let ledger = self.ledger
        let thread = Thread {
            while let socket = try? listener.accept() {
                let connection = Thread {
                    ledger.record(serve(socket, context: context, completesHandshake: completesHandshake, handler))
                }
                connection.name = "TLSTestServer connection"
                connection.start()
            }
        }
        thread.name = "TLSTestServer accept \(address.port)"
        thread.start()
    }

    deinit {
        listener.close()
    }

    /// Waits for the next finished connection; nil after `timeout`.
    public func nextConnection(timeout: Duration = .seconds(10)) -> ServedConnection? {
        ledger.next(timeout: timeout)
    }

    /// Stops accepting; connections in progress finish on their own threads.
    public func close() {
        listener.close()
    }

    /// Finished connections in completion order, shared with the connection threads.
    private final class Ledger: Sendable {
        private let served = Mutex<[ServedConnection]>([])
        private let signal = DispatchSemaphore(value: 0)

        func record(_ connection: ServedConnection) {
            served.withLock { $0.append(connection) }
            signal.signal()
        }

        func next(timeout: Duration) -> ServedConnection? {
            let nanoseconds = Int(clamping: timeout.milliseconds * 1_000_000)
            guard signal.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return nil }
            return served.withLock { $0.removeFirst() }
        }
    }
}

/// Runs one connection on its own thread: handshake (unless left to the handler), handler, close.
private func serve(
    _ socket: Socket, context: TLSContext, completesHandshake: Bool, _ handler: (TLSStream) throws -> Void
) -> TLSTestServer.ServedConnection {
    var stream: TLSStream?
    do {
        let created = try TLSStream(socket: socket, context: context)
        stream = created
        if completesHandshake { try created.handshake(timeout: .seconds(10)) }
        try handler(created)
        created.close()
        return TLSTestServer.ServedConnection(session: created.session, error: nil)
    } catch {
        socket.close()
        return TLSTestServer.ServedConnection(session: stream?.session, error: error)
    }
}

extension TLSTestServer {
    /// Echoes every byte back until the client's end of stream, then closes with close_notify.
    /// Works on blocking and non-blocking streams.
    public static let echo: @Sendable (TLSStream) throws -> Void = { stream in
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            switch try buffer.withUnsafeMutableBytes({ try stream.read(into: $0) }) {
            case .done(let count): try ByteStreamDriver.writeAll(stream, Array(buffer[..<count]))
            case .wouldBlock(let interest): try ByteStreamDriver.wait(stream, interest, deadline)
            case .endOfStream: return try ByteStreamDriver.shutdownWrite(stream)
            }
        }
    }

    /// Reads one request head and answers `200 OK` with `body` and `Connection: close`.
    public static func httpResponder(body: String) -> @Sendable (TLSStream) throws -> Void {
        { stream in
            _ = try ByteStreamDriver.readUntil(stream, delimiter: Array("\r\n\r\n".utf8))
            let response =
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)"
            try ByteStreamDriver.writeAll(stream, Array(response.utf8))
            try ByteStreamDriver.shutdownWrite(stream)
        }
    }
}
