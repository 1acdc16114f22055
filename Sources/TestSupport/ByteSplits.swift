/// Ways to cut a message into chunks, for feeding incremental parsers: every parser must give the same
/// result whatever the chunking.
public enum ByteSplits {
    /// One chunk per byte.
    public static func oneByteAtATime(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.map { [$0] }
    }

    /// Random cut points drawn from `seed`; chunks may be empty, as a socket read may return few bytes.
    public static func random(_ bytes: [UInt8], seed: UInt64, maxChunk: Int = 64) -> [[UInt8]] {
        var generator = SeededGenerator(seed: seed)
        var chunks: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let length = Int.random(in: 0...max(1, maxChunk), using: &generator)
            let end = min(bytes.count, index + length)
            chunks.append(Array(bytes[index..<end]))
            index = end
        }
        return chunks
    }

    /// `count` different random splittings, seeds 1 through `count`.
    public static func randomSplittings(_ bytes: [UInt8], count: Int = 200, maxChunk: Int = 64) -> [[[UInt8]]] {
        (1...count).map { random(bytes, seed: UInt64($0), maxChunk: maxChunk) }
    }

    /// Every proper prefix of the message (its truncations), shortest first.
    public static func truncations(_ bytes: [UInt8]) -> [[UInt8]] {
        (0..<bytes.count).map { Array(bytes[..<$0]) }
    }
}
