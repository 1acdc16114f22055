import SquallNet

/// A deterministic byte sequence of any length: the byte at each offset depends only on the seed and the
/// offset, so a sender and a far-end `PatternChecker` agree without sharing a buffer.
///
/// Bytes are produced and checked eight at a time (SplitMix64 of the word index), fast enough for 64 MiB
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

    /// Writes the first `count` bytes to `stream` in chunks of `chunkSize`.
    public func send(
        _ count: Int64, to stream: any ByteStream, chunkSize: Int = 64 * 1024, deadline: ContinuousClock.Instant?
    ) throws {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 8)
        defer { chunk.deallocate() }
        var offset: Int64 = 0
        while offset < count {
            let length = Int(min(Int64(chunkSize), count - offset))
            let part = UnsafeMutableRawBufferPointer(rebasing: chunk[..<length])
            fill(part, offset: offset)
            try stream.writeAll(UnsafeRawBufferPointer(part), deadline: deadline)
            offset += Int64(length)
        }
    }
}

/// Checks a received stream against a `BytePattern`, chunk by chunk, as it arrives.
public struct PatternChecker: Sendable {
    public let pattern: BytePattern
    /// Bytes checked so far.
    public private(set) var count: Int64 = 0
    /// The offset of the first byte that differed from the pattern, if any.
    public private(set) var firstMismatch: Int64?

    public init(pattern: BytePattern) {
        self.pattern = pattern
    }

    /// Whether exactly `expected` bytes arrived and all matched.
    public func matches(count expected: Int64) -> Bool {
        firstMismatch == nil && count == expected
    }

    /// Checks the next chunk of the stream.
    public mutating func check(_ chunk: UnsafeRawBufferPointer) {
        defer { count += Int64(chunk.count) }
        guard firstMismatch == nil else { return }
        var index = 0
        while index < chunk.count, (count + Int64(index)) & 7 != 0 {
            guard checkByte(chunk, index) else { return }
            index += 1
        }
        while index + 8 <= chunk.count {
            let expected = pattern.word((count + Int64(index)) >> 3).littleEndian
            if chunk.loadUnaligned(fromByteOffset: index, as: UInt64.self) != expected { break }
            index += 8
        }
        while index < chunk.count {
            guard checkByte(chunk, index) else { return }
            index += 1
        }
    }

    /// Reads `stream` to its end, checking every byte; returns the checker.
    public static func receive(
        _ pattern: BytePattern, from stream: any ByteStream, deadline: ContinuousClock.Instant?
    ) throws -> PatternChecker {
        var checker = PatternChecker(pattern: pattern)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { chunk.deallocate() }
        while true {
            let received = try stream.readSome(into: chunk, deadline: deadline)
            if received == 0 { return checker }
            checker.check(UnsafeRawBufferPointer(rebasing: chunk[..<received]))
        }
    }

    private mutating func checkByte(_ chunk: UnsafeRawBufferPointer, _ index: Int) -> Bool {
        let offset = count + Int64(index)
        guard chunk[index] == pattern.byte(at: offset) else {
            firstMismatch = offset
            return false
        }
        return true
    }
}
