import Glibc

/// Durable file replacement for everything Squall keeps on disk (store records, journal snapshots, the
/// extension's state): the new content is written to `path.tmp`, fsynced, renamed over `path`, and the folder is
/// fsynced, so a crash at any moment leaves either the old file or the new one, never a mix.
public enum DurableFile {
    /// The suffix of the temporary file; one left behind by a crash can be removed.
    public static let temporarySuffix = ".tmp"

    /// A system call that failed, with its `errno`.
    public struct Failure: Error, Equatable, Sendable {
        public var call: String
        public var path: String
        public var errno: Int32
    }

    /// Replaces `path` with `bytes` durably; a new file gets `mode` (less the umask). With `synced` false nothing is
    /// fsynced: the replacement is still atomic, and survives the process (not the machine) until `syncFile` and
    /// `syncFolder` make it durable.
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t = 0o644, synced: Bool = true
    ) throws(Failure) {
        let temporary = path + temporarySuffix
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(call: "create", path: temporary, errno: errno) }
        guard FileDescriptor.writeAll(bytes, to: fd) else { return try abandon(fd, temporary, "write") }
        if synced, fsync(fd) != 0 { return try abandon(fd, temporary, "fsync") }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = Failure(call: "rename", path: temporary, errno: errno)
            unlink(temporary)
            throw failure
        }
        if synced { try syncFolder(parent(of: path)) }
    }

    /// Makes the file at `path` durable (fsync).
    public static func syncFile(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(call: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(call: "fsync", path: path, errno: errno) }
    }

    /// Makes the folder's entries (creations, renames, removals) durable.
    public static func syncFolder(_ folder: String) throws(Failure) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(call: "open", path: folder, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(call: "fsync", path: folder, errno: errno) }
    }

    /// The folder that holds `path` (`.` for a bare name, `/` for a file at the root).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func abandon(_ fd: Int32, _ temporary: String, _ call: String) throws(Failure) {
        let failure = Failure(call: call, path: temporary, errno: errno)
        close(fd)
        unlink(temporary)
        throw failure
    }
}
