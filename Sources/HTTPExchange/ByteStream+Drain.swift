import SquallNet

extension ByteStream {
    /// Ends the write side, then reads and drops what the peer still sends, at most `maxBytes` (default 1 MiB) and
    /// for at most `timeout` (default 2 s, the shutdown included), so that closing with unread bytes does not reset the connection before the peer has read the last
    /// response (a lingering close, RFC 9112 §9.6). Never throws: a failure just ends the drain.
    public func drainBeforeClose(
        maxBytes: Int = 1 << 20, timeout: Duration = .seconds(2), buffer: UnsafeMutableRawBufferPointer? = nil
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
