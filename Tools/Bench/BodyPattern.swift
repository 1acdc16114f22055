import SquallCore

/// The content of one benchmark upload: a block of seeded random bytes repeated to the upload's length, so a
/// body of any size costs one block of memory and every seed gives different bytes (and a different SHA-256).
final class BodyPattern {
    /// The block's size: 256 KiB, the chunk the other benchmarks write.
    static let blockSize = 256 * 1024

    /// The upload's length in bytes.
    let length: Int64
    private let block: UnsafeMutableRawBufferPointer

    init(length: Int64, seed: UInt64, blockSize: Int = BodyPattern.blockSize) {
        self.length = length
        self.block = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        var generator = SeededGenerator(seed: seed)
        var index = 0
        while index < blockSize {
            var word = generator.next()
            for _ in 0..<min(8, blockSize - index) {
                block[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }

    deinit {
        block.deallocate()
    }

    /// The bytes from `offset` on, up to the end of the block or of the body (empty at the end of the body).
    func bytes(from offset: Int64) -> UnsafeRawBufferPointer {
        let start = Int(offset % Int64(block.count))
        let count = Int(min(Int64(block.count - start), length - offset))
        return UnsafeRawBufferPointer(rebasing: block[start..<start + max(count, 0)])
    }
}
