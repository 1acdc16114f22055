import Glibc

/// Writes to an open file descriptor, for every file Squall appends to or replaces (logs, transcripts, archives,
/// durable records).
public enum FileDescriptor {
    /// Writes all of `bytes` at the descriptor's position, retrying after a signal (EINTR) and after a short
    /// write; false on any other error or a write of nothing, with `errno` set by the failed call.
    @discardableResult
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
