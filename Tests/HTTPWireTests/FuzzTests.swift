import HTTPWire
import TestSupport
import Testing

/// Seeded mutations of the corpus: the parser never crashes or loops, and however the mutated stream is cut, it
/// gives the same events and the same error.
struct FuzzTests {
    /// Bytes that matter to the grammar, chosen more often than others.
    private static let interesting: [UInt8] = [0x0D, 0x0A, 0x3A, 0x20, 0x09, 0x3B, 0x2C, 0x22, 0x30, 0x61, 0x00, 0xFF]

    private static func mutate(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let byte =
                Bool.random(using: &generator)
                ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            let index = Int.random(in: 0..<max(1, bytes.count), using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0 where !bytes.isEmpty: bytes[index] = byte
            case 1: bytes.insert(byte, at: min(index, bytes.count))
            default: if !bytes.isEmpty { bytes.remove(at: index) }
            }
        }
        return bytes
    }

    @Test func mutatedStreamsParseTheSameHoweverCut() {
        var generator = SeededGenerator(seed: 0x5EED)
        var errors = 0
        for iteration in 0..<2_000 {
            let entry = Corpus.all.randomElement(using: &generator)!
            let bytes = Self.mutate(entry.bytes, using: &generator)
            let whole = Harness.run(entry, [bytes])
            let split = Harness.run(entry, ByteSplits.random(bytes, seed: UInt64(iteration), maxChunk: 16))
            #expect(split == whole, "iteration \(iteration), \(entry.name): \(split) vs \(whole)")
            if let error = whole.error {
                errors += 1
                #expect((0...bytes.count).contains(error.offset), "iteration \(iteration): \(error)")
            }
        }
        // The mutations must reach the error paths, or this test proves little.
        #expect(errors > 500)
    }

    @Test func randomBytesNeverCrash() {
        var generator = SeededGenerator(seed: 42)
        for iteration in 0..<300 {
            let bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
                Self.interesting.randomElement(using: &generator)!
            }
            for role in [HTTP1Parser.Role.server, .client] {
                let whole = Harness.run(HTTP1Parser(role: role), [bytes])
                #expect(Harness.run(HTTP1Parser(role: role), ByteSplits.oneByteAtATime(bytes)) == whole, "\(iteration)")
            }
        }
    }

    @Test(arguments: Corpus.all)
    func tightLimitsFailAlikeHoweverCut(_ entry: CorpusEntry) {
        let tight = HTTPLimits(
            maxHeadSize: 150, maxFieldCount: 4, maxLineLength: 40, maxChunkLineLength: 12, maxTrailerSize: 30)
        let whole = Harness.run(entry.parser(limits: tight), [entry.bytes])
        #expect(Harness.run(entry.parser(limits: tight), ByteSplits.oneByteAtATime(entry.bytes)) == whole)
        for seed in 1...20 {
            let chunks = ByteSplits.random(entry.bytes, seed: UInt64(seed), maxChunk: 24)
            #expect(Harness.run(entry.parser(limits: tight), chunks) == whole, "seed \(seed)")
        }
    }
}
