import Dispatch
import SquallNet
import Synchronization

/// The two ends of every plain benchmark: a source that pushes N bytes and a sink that counts them.
///
/// The source writes N bytes, ends its stream, and waits for the sink's end of stream, so its time covers
/// every byte reaching the sink (through whatever sits in between).
enum PlainEndpoints {
    /// The read and write chunk: 256 KiB.
    static let chunkSize = 256 * 1024

    /// Connects to `address`, sends `count` bytes and waits until the far end has closed.
    static func push(_ count: Int64, to address: SocketAddress) throws -> Throughput {
        let clock = ContinuousClock()
        let started = clock.now
        let stream = PlainStream(socket: try TCPConnector.connect(to: address))
        try send(count, to: stream)
        try stream.shutdownWrite(deadline: nil)
        _ = try drain(stream)
        let duration = clock.now - started
        stream.close()
        return Throughput(bytes: count, duration: duration)
    }

    /// Writes `count` bytes of a fixed filler to `stream`, a chunk at a time.
    static func send(_ count: Int64, to stream: some ByteStream) throws {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        for index in 0..<chunk.count { chunk[index] = UInt8(truncatingIfNeeded: index &* 31) }
        var sent: Int64 = 0
        while sent < count {
            let length = Int(min(Int64(chunkSize), count - sent))
            try stream.writeAll(UnsafeRawBufferPointer(rebasing: chunk[..<length]))
            sent += Int64(length)
        }
    }

    /// Reads `stream` to its end and returns how many bytes came.
    static func drain(_ stream: some ByteStream) throws -> Int64 {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        var received: Int64 = 0
        while true {
            let count = try stream.readSome(into: chunk)
            if count == 0 { return received }
            received += Int64(count)
        }
    }

    /// Starts a sink on `address`: each connection is read to its end, then closed, and `finished` gets its
    /// byte count and time (or -1 when it failed).
    static func sink(
        on address: SocketAddress, finished: @escaping @Sendable (Throughput) -> Void
    ) throws -> AcceptLoop {
        try AcceptLoop(address: address, configuration: AcceptLoopConfiguration(name: "sink")) { socket in
            let stream = PlainStream(socket: socket)
            let clock = ContinuousClock()
            let started = clock.now
            let received = (try? drain(stream)) ?? -1
            stream.close()
            finished(Throughput(bytes: received, duration: clock.now - started))
        }
    }
}

/// Collects results posted from connection threads; the main thread waits for them.
final class ResultBox<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func put(_ value: Value) {
        values.withLock { $0.append(value) }
        arrived.signal()
    }

    /// Waits for the next value, at most `seconds`.
    func take(seconds: Int = 600) throws -> Value {
        guard arrived.wait(timeout: .now() + .seconds(seconds)) == .success else {
            throw BenchError("no result within \(seconds) s")
        }
        return values.withLock { $0.removeFirst() }
    }
}
