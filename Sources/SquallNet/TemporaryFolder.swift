import Foundation
import Glibc
import Synchronization

/// A fresh folder under the temporary folder (`$TMPDIR`, else `/tmp`) that a command makes for itself and removes
/// when it ends, however it ends: `remove()` on its way out (a `defer` covers a failed start as much as a clean
/// end). With a `ProcessStop`, a removal after a stop is named in the stop's line, and a second signal, which
/// exits without removing anything, names the folder as left.
public final class TemporaryFolder: Sendable {
    /// The folder's path, e.g. `/tmp/squall-store-Ab12Cd`.
    public let path: String
    private let stop: ProcessStop?
    private let registration: ProcessStop.Registration?
    private let removed = Atomic<Bool>(false)

    /// Makes `$TMPDIR/<prefix>XXXXXX` (mode 0700); `what` says what it holds (`temporary store`).
    public init(prefix: String, what: String, stop: ProcessStop?) throws(NetError) {
        let parent = NSTemporaryDirectory()
        var template = Array((parent as NSString).appendingPathComponent(prefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw NetError.system(.folder, "mkdtemp in \(parent)") }
        path = String(cString: made)
        self.stop = stop
        registration = stop?.track(folder: path, what: what)
    }

    /// Removes the folder and everything in it. Only the first call does anything.
    public func remove() {
        guard !removed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? FileManager.default.removeItem(atPath: path)
        if let stop, let registration { stop.folderRemoved(registration) }
    }
}
