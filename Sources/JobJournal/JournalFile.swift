import Glibc
import SquallNet

/// An open file of the journal folder (the log, a snapshot being read or written), closed on deinit.
///
/// Reads and writes are positioned (`pread`/`pwrite`), retry EINTR and short counts, and report failures as
/// `JobJournalError` naming the file.
final class JournalFile {
    let path: String
    private let fd: Int32

    /// Opens `path` with `flags` (`O_CLOEXEC` is added), creating it with mode 0644 when `O_CREAT` is given.
    init(_ path: String, flags: Int32) throws(JobJournalError) {
        let fd = open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system("open", path: path) }
        self.path = path
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// The file's current size.
    func size() throws(JobJournalError) -> Int64 {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .system("fstat", path: path) }
        return Int64(status.st_size)
    }

    /// Exactly `count` bytes from `offset` (the caller knows they exist).
    func read(at offset: Int64, count: Int) throws(JobJournalError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw got < 0
                    ? .system("read", path: path)
                    : JobJournalError(.io, path: path, "\(path) ended at \(offset + Int64(done)) while reading")
            }
            done += got
        }
        return bytes
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int64) throws(JobJournalError) {
        var done = 0
        while done < bytes.count {
            let put = bytes.withUnsafeBytes {
                pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if put < 0 && errno == EINTR { continue }
            guard put > 0 else { throw .system("write", path: path) }
            done += put
        }
    }

    /// Makes everything written so far durable.
    func sync() throws(JobJournalError) {
        guard fsync(fd) == 0 else { throw .system("fsync", path: path) }
    }

    /// Cuts the file to `length` bytes and makes that durable.
    func truncate(to length: Int64) throws(JobJournalError) {
        guard ftruncate(fd, off_t(length)) == 0 else { throw .system("ftruncate", path: path) }
        try sync()
    }

    /// Whether every byte from `offset` to `end` is zero (read in bounded chunks).
    func isZero(from offset: Int64, to end: Int64) throws(JobJournalError) -> Bool {
        var position = offset
        while position < end {
            let chunk = try read(at: position, count: Int(min(end - position, 64 << 10)))
            guard chunk.allSatisfy({ $0 == 0 }) else { return false }
            position += Int64(chunk.count)
        }
        return true
    }
}

/// Folder-level helpers: durable atomic replacement, folder syncs, removal.
enum JournalFolder {
    /// Replaces `path` with `bytes` durably (`DurableFile.replace`).
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(JobJournalError) {
        do {
            try DurableFile.replace(path, with: bytes)
        } catch {
            throw .system(error.call, path: error.path, errno: error.errno)
        }
    }

    /// Makes the folder's entries (creations, renames, removals) durable.
    static func sync(_ folder: String) throws(JobJournalError) {
        do {
            try DurableFile.syncFolder(folder)
        } catch {
            throw .system(error.call, path: error.path, errno: error.errno)
        }
    }

    /// Creates `folder` when it does not exist (its parent must).
    static func make(_ folder: String) throws(JobJournalError) {
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw .system("mkdir", path: folder) }
    }

    /// Whether `path` exists.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Removes the file at `path`.
    static func remove(_ path: String) throws(JobJournalError) {
        guard unlink(path) == 0 else { throw .system("unlink", path: path) }
    }
}
