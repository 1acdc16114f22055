import Foundation
import Glibc
import SquallNet
import TLSKit

/// POSIX file helpers for the store: durable atomic replacement, exact writes at an offset, folder syncs.
enum StoreFiles {
    /// The suffix of a file being written by `writeAtomically`; such files are leftovers after a crash.
    static let temporarySuffix = DurableFile.temporarySuffix

    /// Creates `path` and any missing parents; an existing folder is left as it is.
    static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw UploadStoreError(.io, path: path, "cannot create folder \(path): \(error)")
        }
    }

    /// A fresh, empty folder under the system's temporary folder.
    static func makeTemporaryDirectory() throws -> String {
        var template = Array(
            (NSTemporaryDirectory() as NSString).appendingPathComponent("squall-store-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw UploadStoreError.system("mkdtemp", path: NSTemporaryDirectory())
        }
        return String(cString: made)
    }

    /// The names in a folder, sorted.
    static func names(in folder: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            throw UploadStoreError(.io, path: folder, "cannot list \(folder): \(error)")
        }
    }

    /// Whether `path` is a folder.
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The size of the file at `path`, or `nil` when there is none.
    static func size(_ path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    /// Reads a whole (small) file.
    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UploadStoreError(.io, path: path, "cannot read \(path)")
        }
        return [UInt8](data)
    }

    /// Replaces `path` with `bytes` durably (`DurableFile.replace`).
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644, synced: Bool = true) throws {
        do {
            try DurableFile.replace(path, with: bytes, mode: mode, synced: synced)
        } catch {
            throw UploadStoreError.system(error.call, path: error.path, errno: error.errno)
        }
    }

    /// Makes the file at `path` durable.
    static func syncFile(_ path: String) throws {
        do {
            try DurableFile.syncFile(path)
        } catch {
            throw UploadStoreError.system(error.call, path: error.path, errno: error.errno)
        }
    }

    /// Writes all of `bytes` at `offset` (retrying short writes and EINTR).
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int64, path: String) throws {
        var done = 0
        while done < bytes.count {
            let count = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw UploadStoreError.system("write", path: path)
            }
            done += count
        }
    }

    /// Makes the folder's entries (creations, renames, removals) durable.
    static func syncFolder(_ folder: String) throws {
        do {
            try DurableFile.syncFolder(folder)
        } catch {
            throw UploadStoreError.system(error.call, path: error.path, errno: error.errno)
        }
    }

    /// Removes a file or folder tree; a missing one is not an error.
    static func remove(_ path: String) throws {
        guard access(path, F_OK) == 0 else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw UploadStoreError(.io, path: path, "cannot remove \(path): \(error)")
        }
    }

    /// The lowercase hex SHA-256 of the first `length` bytes of a file, streamed in chunks.
    static func sha256(of path: String, length: Int64, chunkSize: Int) throws -> String {
        MessageDigest.hexString(try digests(of: path, length: length, chunkSize: chunkSize, [.sha256])[0])
    }

    /// The digests of the first `length` bytes of a file with each of `algorithms`, in one read, streamed in
    /// chunks.
    static func digests(
        of path: String, length: Int64, chunkSize: Int, _ algorithms: [MessageDigest.Algorithm]
    ) throws -> [[UInt8]] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw UploadStoreError.system("open", path: path) }
        defer { close(fd) }
        let hashes = algorithms.map(MessageDigest.init)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 8)
        defer { chunk.deallocate() }
        var offset: Int64 = 0
        while offset < length {
            let wanted = Int(min(Int64(chunkSize), length - offset))
            let count = pread(fd, chunk.baseAddress, wanted, off_t(offset))
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw UploadStoreError.system("read", path: path) }
            if count == 0 { throw UploadStoreError(.corruptData, path: path, "\(path) ends at \(offset) of \(length)") }
            for hash in hashes { hash.update(UnsafeRawBufferPointer(rebasing: chunk[..<count])) }
            offset += Int64(count)
        }
        return hashes.map { $0.finalize() }
    }

}

extension StoreFiles {
    /// Creates an empty file at `path` (failing if one exists) and makes it durable.
    static func createEmpty(_ path: String, synced: Bool = true) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw UploadStoreError.system("create", path: path) }
        defer { close(fd) }
        if synced, fsync(fd) != 0 { throw UploadStoreError.system("fsync", path: path) }
    }
}
