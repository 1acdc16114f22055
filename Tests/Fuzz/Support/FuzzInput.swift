import SquallCore

/// A fuzzer's input read as a sequence of choices and byte runs, for targets that drive a state machine with
/// operations rather than parse one document. Past the end every choice is 0 and every run empty, so any input,
/// however short, is a complete program.
struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<count` from the next byte.
    mutating func choice(_ count: Int) -> Int {
        Int(byte()) % count
    }

    /// Whether the next byte is odd.
    mutating func flag() -> Bool {
        byte() & 1 == 1
    }

    /// A run of bytes whose length is the next byte (fewer at the end of the input).
    mutating func run() -> ArraySlice<UInt8> {
        let count = min(Int(byte()), bytes.count - min(index, bytes.count))
        defer { index += count }
        return bytes[index..<(index + count)]
    }
}

/// The bytes a fuzzer's entry point was given, as an array.
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the fuzzer with `message` when an invariant does not hold: libFuzzer saves the input as a crash.
func invariant(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant: \(message())") }
}

/// Choices derived from the input's own bytes (FNV-1a), so that a document-shaped input (an HTTP stream, a JSON
/// file) stays exactly the document and still gets its own splits and options, the same on every run.
struct DerivedChoices {
    var generator: SeededGenerator

    init(_ bytes: [UInt8]) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        generator = SeededGenerator(seed: hash)
    }

    mutating func number(below count: Int) -> Int {
        Int.random(in: 0..<count, using: &generator)
    }

    mutating func flag() -> Bool {
        Bool.random(using: &generator)
    }

    /// `bytes` cut into pieces of 1 to `maxChunk` bytes (one piece when empty).
    mutating func chunks(_ bytes: [UInt8], maxChunk: Int) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...maxChunk, using: &generator))
            pieces.append(bytes[start..<end])
            start = end
        }
        return pieces.isEmpty ? [bytes[...]] : pieces
    }
}
