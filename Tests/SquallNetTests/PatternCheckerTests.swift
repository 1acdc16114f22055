import TestSupport
import Testing

/// The relay tests trust `PatternChecker` to notice damage; these prove it does.
struct PatternCheckerTests {
    @Test func acceptsThePatternWhateverTheChunking() {
        let pattern = BytePattern(seed: 5)
        let bytes = pattern.bytes(10_000)
        for splitting in ByteSplits.randomSplittings(bytes, count: 20, maxChunk: 700) {
            var checker = PatternChecker(pattern: pattern)
            for chunk in splitting { chunk.withUnsafeBytes { checker.check($0) } }
            #expect(checker.matches(count: 10_000))
        }
    }

    @Test func findsTheFirstCorruptedByte() {
        let pattern = BytePattern(seed: 9)
        var bytes = pattern.bytes(1000)
        bytes[777] ^= 0x01
        bytes[901] ^= 0x80
        var checker = PatternChecker(pattern: pattern)
        bytes.withUnsafeBytes { all in
            checker.check(UnsafeRawBufferPointer(rebasing: all[..<333]))
            checker.check(UnsafeRawBufferPointer(rebasing: all[333...]))
        }
        #expect(checker.firstMismatch == 777)
        #expect(checker.count == 1000)
        #expect(!checker.matches(count: 1000))
    }

    @Test func aShortOrLongStreamDoesNotMatch() {
        let pattern = BytePattern(seed: 2)
        var checker = PatternChecker(pattern: pattern)
        pattern.bytes(99).withUnsafeBytes { checker.check($0) }
        #expect(!checker.matches(count: 100))
        #expect(!checker.matches(count: 98))
        #expect(checker.matches(count: 99))
    }

    @Test func seedsAndOffsetsGiveDifferentBytes() {
        let pattern = BytePattern(seed: 1)
        #expect(pattern.bytes(64) != BytePattern(seed: 2).bytes(64))
        var shifted = [UInt8](repeating: 0, count: 64)
        shifted.withUnsafeMutableBytes { pattern.fill($0, offset: 3) }
        #expect(Array(pattern.bytes(67)[3...]) == shifted)
        #expect(Array(pattern.bytes(64)) != shifted)
    }
}
