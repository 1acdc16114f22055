import SquallNet

/// Plain byte pumps of the benchmarks: N bytes of filler written to a stream, a stream read to its end.
enum PlainEndpoints {
    /// The read and write chunk: 256 KiB.
    static let chunkSize = 256 * 1024

    /// Writes `count` bytes of a fixed filler to `stream`, a chunk at a time.
    static func send(_ count: Int64, to stream: some ByteStream) throws {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        for index in 0..<chunk.count { chunk[index] = UInt8(truncatingIfNeeded: index &* 31) }
        var sent: Int64 = 0
        while sent < count {
            let length = Int(min(Int64(chunkSize), count - sent))
            try stream.writeAll(UnsafeRawBufferPointer(rebasing: chunk[..<length]))
            sent += Int64(length)
        }
    }

    /// Reads `stream` to its end and returns how many bytes came.
    static func drain(_ stream: some ByteStream) throws -> Int64 {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        var received: Int64 = 0
        while true {
            let count = try stream.readSome(into: chunk)
            if count == 0 { return received }
            received += Int64(count)
        }
    }
}
