import Dispatch
import Glibc
import HTTPWire
import SquallNet
import TestSupport

/// Two connected non-blocking loopback streams: `client` connected to `server` through a listener on 127.0.0.1,
/// port 0 (ready once `init` returns).
struct StreamPair {
    let client: PlainStream
    let server: PlainStream

    init() throws {
        let listener = try TCPListener(address: SocketAddress(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let socket = try TCPConnector.connect(to: listener.address)
        let accepted = try listener.accept()
        try socket.setNonBlocking(true)
        try accepted.setNonBlocking(true)
        client = PlainStream(socket: socket)
        server = PlainStream(socket: accepted)
    }

    /// Writes `text` from the client side.
    func clientSends(_ text: String) throws {
        try client.writeAll(Array(text.utf8), deadline: .now + .seconds(10))
    }
}

/// Runs `body` on another thread; `wait()` returns its result.
final class Background<Value: Sendable>: Sendable {
    private let result = Mailbox<Result<Value, any Error>>()

    init(_ body: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [result] in result.put(Result { try body() }) }
    }

    func wait() throws -> Value {
        guard let outcome = result.take(timeout: .seconds(20)) else { throw NetError(.timeout, "background") }
        return try outcome.get()
    }
}

/// A temporary file holding `bytes`, open for reading; removed by `close()`.
struct TemporaryFile {
    let descriptor: Int32

    init(_ bytes: [UInt8]) {
        var template = Array("/tmp/httpexchange-XXXXXX".utf8CString)
        descriptor = mkstemp(&template)
        unlink(template)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    func close() {
        Glibc.close(descriptor)
    }
}

/// A stream handed to one other thread, which alone uses it until `Background.wait()`.
struct Handed: @unchecked Sendable {
    let stream: PlainStream
}
