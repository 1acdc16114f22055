/// Blocking conveniences for clients and tests: each call waits with `poll()` on the interest the stream
/// reports, up to an optional deadline, and a missed deadline throws `NetError.Code.timeout`.
///
/// Deadlines are exact on non-blocking sockets (`Socket.setNonBlocking(true)`). On a blocking socket reads
/// still honour them (they poll before reading), but a large write can wait inside the kernel.
extension ByteStream {
    /// Writes every byte of `bytes`, waiting whenever the stream would block.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant? = nil) throws {
        var offset = 0
        while offset < bytes.count {
            switch try write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .done(let count) where count > 0:
                offset += count
            case .done:
                try waitUntilReady(for: .write, deadline: deadline, doing: "write")
            case .wouldBlock(let interest):
                try waitUntilReady(for: interest, deadline: deadline, doing: "write")
            case .endOfStream:
                throw NetError(.closed, "write: the stream has ended")
            }
        }
    }

    /// Writes every byte of `bytes`, waiting whenever the stream would block.
    public func writeAll(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws {
        try bytes.withUnsafeBytes { try writeAll($0, deadline: deadline) }
    }

    /// Reads at least one byte into `buffer` and returns the count, or 0 at the end of the stream.
    public func readSome(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant? = nil) throws
        -> Int
    {
        precondition(!buffer.isEmpty, "readSome needs room for at least one byte")
        var interest: IOInterest? = deadline == nil ? nil : .read
        while true {
            if let interest, bufferedReadableCount == 0 {
                try waitUntilReady(for: interest, deadline: deadline, doing: "read")
            }
            switch try read(into: buffer) {
            case .done(let count) where count > 0: return count
            case .done: interest = .read
            case .wouldBlock(let wanted): interest = wanted
            case .endOfStream: return 0
            }
        }
    }

    /// Reads until the end of the stream; more than `limit` bytes is an error (`NetError.Code.read`).
    public func readToEnd(limit: Int, deadline: ContinuousClock.Instant? = nil) throws -> [UInt8] {
        var collected: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = try readSome(into: chunk, deadline: deadline)
            if count == 0 { return collected }
            guard collected.count + count <= limit else {
                throw NetError(.read, "more than \(limit) bytes before the end of the stream")
            }
            collected.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
        }
    }

    /// Ends the write side (`shutdownWrite()`), waiting while it would block (a TLS close_notify).
    public func shutdownWrite(deadline: ContinuousClock.Instant?) throws {
        while case .wouldBlock(let interest) = try shutdownWrite() {
            try waitUntilReady(for: interest, deadline: deadline, doing: "shutdown")
        }
    }

    private func waitUntilReady(for interest: IOInterest, deadline: ContinuousClock.Instant?, doing what: String)
        throws
    {
        guard try Poller.wait(fileDescriptor, for: pollInterest(for: interest), until: deadline) else {
            throw NetError(.timeout, "\(what): deadline passed while waiting for the socket")
        }
    }
}
