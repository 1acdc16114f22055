import Foundation
import SquallNet
import UploadJobs

/// What the extension remembers between invocations and relaunches (the app's own storage, not the system's
/// job store): the outcome of every asset it is done with, the assets still to upload, the library's change
/// token and whether the extension is enabled. Saved durably before the job is acknowledged, since after
/// acknowledgement the job's record is gone.
///
/// Keys missing from a saved file take their defaults, so a file written before a field existed still loads.
public struct ExtensionState: Codable, Sendable, Equatable {
    /// Uploaded assets and the server's id for each (`x-server-resource-id`; empty when the server sent none).
    public var uploaded: [String: String] = [:]
    /// Assets given up on, with the error of their last attempt.
    public var failed: [String: JobError] = [:]
    /// Assets the library reported that are neither uploaded nor given up on, in the order reported: the work
    /// left (some may have a job held in the store).
    public var queued: [String] = []
    /// The library's change token after the last changes read, or nil: the next read is a full fetch.
    public var changeToken: ChangeToken?
    /// Whether the extension processes uploads (PhotoKit `uploadJobExtensionEnabled`). Default true (model
    /// choice: the CLI's host app is authorized to read the files it was given).
    public var enabled = true

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uploaded = try container.decodeIfPresent([String: String].self, forKey: .uploaded) ?? [:]
        failed = try container.decodeIfPresent([String: JobError].self, forKey: .failed) ?? [:]
        queued = try container.decodeIfPresent([String].self, forKey: .queued) ?? []
        changeToken = try container.decodeIfPresent(ChangeToken.self, forKey: .changeToken)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
    }

    private enum CodingKeys: String, CodingKey {
        case uploaded, failed, queued, changeToken, enabled
    }

    /// Whether the asset needs no new job.
    func isDone(_ assetID: String) -> Bool {
        uploaded[assetID] != nil || failed[assetID] != nil
    }

    /// Takes in changes read from the library. A full fetch (`fullFetch`) replaces the queue with the fetched
    /// assets not done (an asset gone from the library is no longer work); otherwise inserted and updated assets
    /// not done and not queued join the end of the queue. Done assets are never queued again (model choice: an
    /// update of an uploaded asset is not uploaded again, since the server keeps no replacements).
    mutating func take(_ changes: AssetChanges, fullFetch: Bool) {
        if fullFetch { queued = [] }
        var known = Set(queued)
        for id in changes.inserted + changes.updated where !isDone(id) && known.insert(id).inserted {
            queued.append(id)
        }
        changeToken = changes.token
    }

    /// Records an uploaded asset and takes it off the queue.
    mutating func recordUploaded(_ assetID: String, resourceID: String) {
        uploaded[assetID] = resourceID
        queued.removeAll { $0 == assetID }
    }

    /// Records an asset given up on and takes it off the queue.
    mutating func recordFailed(_ assetID: String, error: JobError) {
        failed[assetID] = error
        queued.removeAll { $0 == assetID }
    }
}

/// `ExtensionState` in a JSON file, replaced atomically and durably (`DurableFile`).
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
        do {
            try DurableFile.replace(path, with: [UInt8](try encoder.encode(state)))
        } catch let error as DurableFile.Failure {
            throw AssetError("cannot replace \(path): \(error.call) \(error.path) failed with errno \(error.errno)")
        }
    }
}
