/// A deterministic byte sequence of any length: the byte at each offset depends only on the seed and the
/// offset, so a sender and a checker agree without sharing a buffer.
///
/// Bytes are produced eight at a time (SplitMix64 of the word index), fast enough for 64 MiB
/// transfers in a debug build.
public struct BytePattern: Sendable, Hashable {
    public let seed: UInt64

    public init(seed: UInt64 = 1) {
        self.seed = seed
    }

    /// The eight bytes at offsets `8 * index ..< 8 * index + 8`, as a little-endian word.
    public func word(_ index: Int64) -> UInt64 {
        var mixed = seed &+ UInt64(bitPattern: index) &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// The byte at `offset`.
    public func byte(at offset: Int64) -> UInt8 {
        UInt8(truncatingIfNeeded: word(offset >> 3) >> UInt64((offset & 7) * 8))
    }

    /// Fills `buffer` with the bytes at `offset ..< offset + buffer.count`.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer, offset: Int64) {
        var index = 0
        while index < buffer.count, (offset + Int64(index)) & 7 != 0 {
            buffer[index] = byte(at: offset + Int64(index))
            index += 1
        }
        while index + 8 <= buffer.count {
            let value = word((offset + Int64(index)) >> 3).littleEndian
            buffer.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < buffer.count {
            buffer[index] = byte(at: offset + Int64(index))
            index += 1
        }
    }

    /// The first `count` bytes as an array (for small messages).
    public func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { fill($0, offset: 0) }
        return bytes
    }
}
