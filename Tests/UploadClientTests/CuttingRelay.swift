import Dispatch
import Foundation
import SquallNet
import Synchronization
import TestSupport

/// A loopback TCP relay in front of `upstream` that cuts its first connection in the middle of a request body:
/// once `cutAfter` bytes went to the server and a 104 came back, it ends the server's side (FIN: the body is
/// interrupted there), lets the server's last bytes and FIN through to the client, and discards what the client
/// still sends. Later connections are relayed whole. One thread per direction.
final class CuttingRelay: Sendable {
    let address: SocketAddress
    private let loop: AcceptLoop

    init(upstream: SocketAddress, cutAfter: Int64) throws {
        let cutDone = Mutex(false)
        loop = try LoopbackServer.start { client in
            guard let server = try? TCPConnector.connect(to: upstream, timeout: .seconds(5)) else {
                return client.close()
            }
            let limit = cutDone.withLock { done in
                defer { done = true }
                return done ? nil : cutAfter
            }
            let interimSeen = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            let back = Thread {
                CuttingRelay.copy(from: server, to: client, limit: nil) { chunk in
                    if chunk.contains("HTTP/1.1 104") { interimSeen.signal() }
                }
                client.shutdown(writing: true)
                finished.signal()
            }
            back.start()
            if CuttingRelay.copy(from: client, to: server, limit: limit) {
                _ = interimSeen.wait(timeout: .now() + 20)
                server.shutdown(writing: true)
                CuttingRelay.copy(from: client, to: nil, limit: nil)
            } else {
                server.shutdown(writing: true)
            }
            _ = finished.wait(timeout: .now() + 20)
            client.close()
            server.close()
        }
        address = loop.address
    }

    func stop() {
        loop.stop()
        _ = loop.waitUntilIdle(timeout: .seconds(20))
    }

    /// Copies until the end of `source` (true) or until `limit` bytes went (false); a nil `destination`
    /// discards. `inspect` sees each chunk as text.
    @discardableResult
    static func copy(
        from source: Socket, to destination: Socket?, limit: Int64?, inspect: (String) -> Void = { _ in }
    ) -> Bool {
        let input = PlainStream(socket: source)
        let output = destination.map { PlainStream(socket: $0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        var copied: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let room = Int(min(Int64(buffer.count), (limit ?? Int64.max) - copied))
            if room == 0 { return true }
            let window = UnsafeMutableRawBufferPointer(rebasing: buffer[..<room])
            guard let count = try? input.readSome(into: window, deadline: deadline), count > 0 else { return false }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            inspect(String(decoding: chunk, as: UTF8.self))
            if let output, (try? output.writeAll(chunk, deadline: deadline)) == nil { return false }
            copied += Int64(count)
        }
    }
}
