import Glibc

/// An exclusive advisory lock (`flock`) on a journal folder's `.lock` file, held while a `JobJournal` is open,
/// so two clients never write one journal. The kernel drops it when the process ends, even by kill -9.
final class JournalLock {
    static let fileName = ".lock"

    private let fd: Int32

    /// Takes the lock on `folder`, or throws `journalInUse` when another open journal holds it.
    init(folder: String) throws(JobJournalError) {
        let path = folder + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system("open", path: path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let failure =
                errno == EWOULDBLOCK
                ? JobJournalError(.journalInUse, path: folder, "the job journal \(folder) is open in another client")
                : JobJournalError.system("flock", path: path)
            close(fd)
            throw failure
        }
        self.fd = fd
    }

    deinit {
        close(fd)
    }
}
