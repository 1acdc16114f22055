import Glibc

/// Files that hold secrets or private traffic (TLS key logs, captures, transcripts): mode 0600. `open` gives a
/// mode only to a file it creates, so an existing regular file that others may read is made 0600 as well; a
/// device or a pipe (`/dev/null`, a FIFO a tool reads from) keeps its mode.
public enum PrivateFile {
    /// Opens `path` with `flags` (`O_CREAT` and `O_CLOEXEC` added), mode 0600; -1 with `errno` set on failure.
    public static func open(_ path: String, flags: Int32) -> Int32 {
        let descriptor = Glibc.open(path, flags | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { restrict(descriptor) }
        return descriptor
    }

    /// Appends `bytes` to `path` (created 0600 when missing) in `O_APPEND` writes, so that lines from several
    /// writers never overwrite each other; false when the file could not be opened or written.
    @discardableResult
    public static func append(_ bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, flags: O_WRONLY | O_APPEND)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return FileDescriptor.writeAll(bytes, to: descriptor)
    }

    /// Makes the regular file open as `descriptor` readable and writable by its owner only.
    public static func restrict(_ descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 != 0 else {
            return
        }
        _ = fchmod(descriptor, 0o600)
    }
}
