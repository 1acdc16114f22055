import Glibc

/// An exclusive advisory lock (`flock`) on a folder's `.lock` file, held for the object's life, so that two
/// processes (or two opens in one process) never write one folder: a store, a job journal. The kernel drops it
/// when the process ends, even by kill -9.
public final class FolderLock: Sendable {
    public static let fileName = ".lock"

    /// Why the lock was not taken.
    public enum Failure: Error, Equatable, Sendable {
        /// Another holder has it.
        case held
        /// `call` failed on the lock file with `errno`.
        case system(call: String, path: String, errno: Int32)
    }

    private let fd: Int32

    /// How long a lock found held is tried again before `.held` is reported: a lock released an instant ago can
    /// still be held by a copy of its descriptor in a child process another thread is starting (between fork and
    /// exec, before close-on-exec closes it), and a real second holder is reported after this wait.
    public static let heldWait: Duration = .milliseconds(500)

    /// Takes the lock on `folder`, waiting at most `heldWait` while another holder has it.
    public init(folder: String) throws(Failure) {
        let path = folder + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(call: "open", path: path, errno: errno) }
        let deadline = ContinuousClock.now + Self.heldWait
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure: Failure = errno == EWOULDBLOCK ? .held : .system(call: "flock", path: path, errno: errno)
            guard failure == .held, ContinuousClock.now < deadline else {
                close(fd)
                throw failure
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
        self.fd = fd
    }

    deinit {
        close(fd)
    }
}
