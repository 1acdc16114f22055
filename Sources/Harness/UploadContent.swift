import SquallCore

/// The bytes of a test upload, derived from a seed: the same seed and length give the same bytes, so a
/// sender and a checker agree without either holding the whole body.
public struct UploadContent: Sendable {
    public let seed: UInt64
    public let length: Int

    public init(seed: UInt64, length: Int) {
        self.seed = seed
        self.length = length
    }

    /// Calls `body` with consecutive chunks of `chunkSize` bytes (the last one shorter) until `length` bytes
    /// have been given. The bytes are the generator's 64-bit words, little-endian, whatever the chunk size.
    public func forEachChunk(size chunkSize: Int = 64 * 1024, _ body: ([UInt8]) throws -> Void) rethrows {
        precondition(chunkSize > 0 && chunkSize % 8 == 0, "chunk size must be a positive multiple of 8")
        var generator = SeededGenerator(seed: seed)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var remaining = length
        while remaining > 0 {
            let count = min(chunkSize, remaining)
            if count < chunk.count { chunk.removeLast(chunk.count - count) }
            chunk.withUnsafeMutableBytes { raw in
                var offset = 0
                while offset < count {
                    let word = generator.next().littleEndian
                    let take = min(8, count - offset)
                    withUnsafeBytes(of: word) {
                        raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take)
                    }
                    offset += take
                }
            }
            try body(chunk)
            remaining -= count
        }
    }
}
