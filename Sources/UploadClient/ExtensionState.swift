import Foundation
import Glibc
import UploadJobs

/// What the extension remembers between invocations and relaunches (the app's own storage, not the system's
/// job store): the outcome of every asset it is done with. Saved durably before the job is acknowledged, since
/// after acknowledgement the job's record is gone.
public struct ExtensionState: Codable, Sendable, Equatable {
    /// Uploaded assets and the server's id for each (`x-server-resource-id`; empty when the server sent none).
    public var uploaded: [String: String] = [:]
    /// Assets given up on, with the error of their last attempt.
    public var failed: [String: JobError] = [:]

    public init() {}

    /// Whether the asset needs no new job.
    func isDone(_ assetID: String) -> Bool {
        uploaded[assetID] != nil || failed[assetID] != nil
    }
}

/// `ExtensionState` in a JSON file, replaced atomically and durably (temp file, fsync, rename, folder fsync).
final class ExtensionStateFile: Sendable {
    let path: String

    init(path: String) {
        self.path = path
    }

    /// The saved state; a fresh one when the file does not exist. A file that cannot be decoded is an error
    /// naming it (never silently replaced).
    func load() throws -> ExtensionState {
        guard let data = FileManager.default.contents(atPath: path) else { return ExtensionState() }
        do {
            return try JSONDecoder().decode(ExtensionState.self, from: data)
        } catch {
            throw AssetError("the extension state \(path) cannot be read: \(error)")
        }
    }

    func save(_ state: ExtensionState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = [UInt8](try encoder.encode(state))
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AssetError("cannot write \(temporary): errno \(errno)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(fd)
                throw AssetError("cannot write \(temporary): errno \(errno)")
            }
            written += count
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else { throw AssetError("cannot replace \(path): errno \(errno)") }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
