import SquallNet

/// A `ByteStream` over bytes in memory, for the blocking HTTP exchanges: reads hand out the pieces in order (a
/// piece larger than the buffer over several reads), then the end of the stream; writes are kept in `written`.
/// It always reports a byte buffered, so the blocking helpers never poll its descriptor (there is none).
final class MemoryStream: ByteStream {
    private var pieces: [ArraySlice<UInt8>]
    private var next = 0
    private(set) var written: [UInt8] = []

    init(_ pieces: [ArraySlice<UInt8>]) {
        self.pieces = pieces.filter { !$0.isEmpty }
    }

    var fileDescriptor: Int32 { -1 }

    var bufferedReadableCount: Int { 1 }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> IOOutcome {
        guard next < pieces.count, !buffer.isEmpty else { return .endOfStream }
        let piece = pieces[next]
        let count = min(buffer.count, piece.count)
        buffer.copyBytes(from: piece.prefix(count))
        if count == piece.count {
            next += 1
        } else {
            pieces[next] = piece.dropFirst(count)
        }
        return .done(count)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> IOOutcome {
        written.append(contentsOf: bytes)
        return .done(bytes.count)
    }

    func shutdownWrite() throws -> IOOutcome {
        .done(0)
    }

    func close() {}

    func abort() {}
}
