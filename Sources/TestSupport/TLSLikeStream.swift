import CSystem
import Glibc
import SquallNet

/// A `ByteStream` over a plain socket that answers the way a TLS stream can, to prove that code written
/// against `ByteStream` (the blocking conveniences, the proxy) copes with `TLSStream` without needing certificates:
///
/// - it reads ahead up to `readAhead` bytes from the socket but hands out at most `pieceSize` per read, so
///   bytes wait in `bufferedReadableCount` while the socket itself is no longer readable (like decrypted
///   records held by OpenSSL);
/// - every `readWantsWriteEvery`-th read returns `.wouldBlock(.write)` (like a read during a key update);
/// - every `writeWantsReadEvery`-th write returns `.wouldBlock(.read)` when the socket has bytes to read (like a
///   write waiting for a handshake message that is arriving); the next write goes through;
/// - every `writeReadsAheadEvery`-th write first pulls what the socket has into the read-ahead buffer (like a
///   write that had to read records and kept the application data it found), so a reader already waiting
///   for readability would wait forever unless it looks at `bufferedReadableCount`.
///
/// The socket is switched to non-blocking.
public final class TLSLikeStream: ByteStream {
    private let plain: PlainStream
    private let pieceSize: Int
    private let readWantsWriteEvery: Int
    private let writeWantsReadEvery: Int
    private let writeReadsAheadEvery: Int
    private let readAhead: UnsafeMutableRawBufferPointer
    private var readAheadStart = 0
    private var readAheadEnd = 0
    private var readAheadEnded = false
    private var reads = 0
    private var writes = 0

    public init(
        socket: Socket, pieceSize: Int = 1000, readAhead: Int = 16 * 1024, readWantsWriteEvery: Int = 5,
        writeWantsReadEvery: Int = 7, writeReadsAheadEvery: Int = 3
    ) throws {
        try socket.setNonBlocking(true)
        self.plain = PlainStream(socket: socket)
        self.pieceSize = pieceSize
        self.readWantsWriteEvery = readWantsWriteEvery
        self.writeWantsReadEvery = writeWantsReadEvery
        self.writeReadsAheadEvery = writeReadsAheadEvery
        self.readAhead = .allocate(byteCount: readAhead, alignment: 8)
    }

    deinit {
        readAhead.deallocate()
    }

    public var fileDescriptor: Int32 { plain.fileDescriptor }

    public var bufferedReadableCount: Int { readAheadEnd - readAheadStart }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> IOOutcome {
        reads += 1
        if reads % readWantsWriteEvery == 0 { return .wouldBlock(.write) }
        if bufferedReadableCount == 0 {
            if readAheadEnded { return .endOfStream }
            let outcome = try fillReadAhead()
            guard case .done = outcome else { return outcome }
        }
        let count = min(pieceSize, buffer.count, bufferedReadableCount)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: readAhead[readAheadStart..<(readAheadStart + count)]))
        readAheadStart += count
        return .done(count)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws -> IOOutcome {
        writes += 1
        if writes % writeWantsReadEvery == 0, socketIsReadable { return .wouldBlock(.read) }
        if writes % writeReadsAheadEvery == 0, bufferedReadableCount == 0, !readAheadEnded {
            _ = try fillReadAhead()
        }
        return try plain.write(UnsafeRawBufferPointer(rebasing: bytes.prefix(pieceSize * 4)))
    }

    public func shutdownWrite() throws -> IOOutcome {
        try plain.shutdownWrite()
    }

    public func close() {
        plain.close()
    }

    public func abort() {
        plain.abort()
    }

    /// Reads what the socket has into the empty read-ahead buffer.
    private func fillReadAhead() throws -> IOOutcome {
        readAheadStart = 0
        readAheadEnd = 0
        let outcome = try plain.read(into: readAhead)
        switch outcome {
        case .done(let count): readAheadEnd = count
        case .endOfStream: readAheadEnded = true
        case .wouldBlock: break
        }
        return outcome
    }

    private var socketIsReadable: Bool {
        var entry = pollfd(fd: plain.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }
}
