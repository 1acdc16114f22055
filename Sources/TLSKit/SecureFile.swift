import Glibc

/// Small POSIX file helpers for key material: exact modes, and atomic replacement (temp file, fsync,
/// rename, fsync of the folder) so a crash never leaves half a key behind.
enum SecureFile {
    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Creates `path` and any missing parents with `mode`; an existing folder is left as it is.
    static func makeDirectory(_ path: String, mode: mode_t) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw TLSError.system(.io, "mkdir \(prefix)")
            }
            prefix += "/"
        }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw TLSError(.io, "\(path) exists and is not a folder")
        }
    }

    /// Reads a whole (small) file as UTF-8 text.
    static func readText(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TLSError.system(.io, "open \(path)") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw TLSError.system(.io, "read \(path)")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces `path` with `text` atomically, the new file having exactly `mode` (whatever the umask).
    static func writeAtomically(_ text: String, to path: String, mode: mode_t) throws {
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw TLSError.system(.io, "create \(temporary)") }
        do {
            guard fchmod(fd, mode) == 0 else { throw TLSError.system(.io, "fchmod \(temporary)") }
            try writeAll(Array(text.utf8), to: fd, path: temporary)
            guard fsync(fd) == 0 else { throw TLSError.system(.io, "fsync \(temporary)") }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = TLSError.system(.io, "rename \(temporary) to \(path)")
            unlink(temporary)
            throw failure
        }
        syncFolder(of: path)
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TLSError.system(.io, "write \(path)")
            }
            offset += count
        }
    }

    /// Makes a rename durable by syncing the folder that holds it (best effort).
    private static func syncFolder(of path: String) {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let fd = open(folder.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
