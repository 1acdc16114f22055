import SquallNet

/// The bounds of `ByteStream.drainBeforeClose`.
public enum ByteStreamDrain {
    /// Most bytes read and dropped. Default 1 MiB.
    public static let defaultMaxBytes = 1 << 20
    /// Longest the drain waits, the write side's shutdown included. Default 2 s.
    public static let defaultTimeout: Duration = .seconds(2)
}

extension ByteStream {
    /// Ends the write side, then reads and drops what the peer still sends, at most `maxBytes` and for at most
    /// `timeout`, so that closing with unread bytes does not reset the connection before the peer has read the last
    /// response (a lingering close, RFC 9112 §9.6). Never throws: a failure just ends the drain.
    public func drainBeforeClose(
        maxBytes: Int = ByteStreamDrain.defaultMaxBytes, timeout: Duration = ByteStreamDrain.defaultTimeout,
        buffer: UnsafeMutableRawBufferPointer? = nil
    ) {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let scratch = buffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 8)
        defer { if buffer == nil { scratch.deallocate() } }
        do {
            try shutdownWrite(deadline: deadline)
            var total = 0
            while total < maxBytes {
                let count = try readSome(into: scratch, deadline: deadline)
                if count == 0 { return }
                total += count
            }
        } catch {
            return
        }
    }
}
