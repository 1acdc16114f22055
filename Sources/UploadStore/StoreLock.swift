import Glibc

/// An exclusive advisory lock (`flock`) on a store folder's `.lock` file, held while a `FileUploadStore` is
/// open, so two servers never write one store. The kernel drops it when the process ends, even by kill -9.
final class StoreLock: Sendable {
    static let fileName = ".lock"

    private let fd: Int32

    /// Takes the lock on `directory`, or throws `storeInUse` when another open store holds it.
    init(directory: String) throws {
        let path = directory + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw UploadStoreError.system("open", path: path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let failure =
                errno == EWOULDBLOCK
                ? UploadStoreError(.storeInUse, path: directory, "\(directory) is open in another store")
                : UploadStoreError.system("flock", path: path)
            close(fd)
            throw failure
        }
        self.fd = fd
    }

    deinit {
        close(fd)
    }
}
