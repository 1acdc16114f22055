import Foundation
import Synchronization
import UploadClient
import UploadJobs

/// The shared photo library as the upload extension sees it: job changes in change blocks, the library's assets
/// and their persistent changes, authorization and the extension's enabled flag.
///
/// It reaches the system that hosts the extension (`PhotosExtensionHost`) from the extension's own calls (a
/// task-local binding, so that several hosts can run in one process); used anywhere else it stops the program
/// with a message saying so, rather than answering as if a library were there.
public final class PHPhotoLibrary: Sendable {
    private static let instance = PHPhotoLibrary()

    private init() {}

    public static func shared() -> PHPhotoLibrary { instance }

    /// Always `.authorized` under Squall: the host was given the files it uploads (model choice, as
    /// `DefaultUploadPolicy`).
    public static func requestAuthorization(for accessLevel: PHAccessLevel) async -> PHAuthorizationStatus {
        .authorized
    }

    public static func authorizationStatus(for accessLevel: PHAccessLevel) -> PHAuthorizationStatus {
        .authorized
    }

    /// Whether the system calls the extension (kept durably by the host).
    public var uploadJobExtensionEnabled: Bool {
        bound("uploadJobExtensionEnabled").enabled
    }

    /// Enables or disables the extension (sign-out); while disabled the host does not call `processJobs()`.
    public func setUploadJobExtensionEnabled(_ enabled: Bool) throws {
        try bound("setUploadJobExtensionEnabled(_:)").setEnabled(enabled)
    }

    /// Runs `changeBlock` as one atomic change block: every change request made in it lands, or none does and
    /// this throws the first refusal (`PHPhotosError.limitExceeded` when a creation or retry passes the in-flight
    /// limit).
    public func performChanges(_ changeBlock: @escaping () -> Void) async throws {
        try performChangesAndWait(changeBlock)
    }

    /// `performChanges` for synchronous code.
    public func performChangesAndWait(_ changeBlock: () -> Void) throws {
        let binding = bound("performChanges")
        let context = binding.context("performChanges")
        var conduct: [ExtensionConduct] = []
        // A block begun after willTerminate() returned: the invocation should have stopped before it.
        let begunAfterTermination = binding.isTerminated
        let changes: [JobChange]
        do {
            changes = try context.performChanges { block in
                try withUnsafeMutablePointer(to: &block) { pointer in
                    let transaction = ChangeTransaction(block: pointer, binding: binding)
                    ChangeTransaction.$current.withValue(transaction) { changeBlock() }
                    if let refusal = transaction.close() { throw refusal }
                    conduct = transaction.conduct
                }
            }
        } catch let error as JobStoreError {
            throw PHPhotosError(error)
        }
        if begunAfterTermination, let first = changes.first {
            conduct.append(
                ExtensionConduct(
                    .changedAfterWillTerminate, job: first.jobID,
                    detail: changes.map(Self.describe).joined(separator: ", ")))
        }
        binding.record(conduct)
        binding.noteGone(
            changes.compactMap { change in
                switch change {
                case .acknowledged(let id), .cancelled(let id): id
                default: nil
                }
            })
    }

    /// `created job-9`, `acknowledged job-3`: a change an extension's block made, in words.
    private static func describe(_ change: JobChange) -> String {
        switch change {
        case .created(let job): "created \(job.localID)"
        case .retried(let id, _): "retried \(id)"
        case .acknowledged(let id): "acknowledged \(id)"
        case .cancelled(let id): "cancelled \(id)"
        case .started(let id), .succeeded(let id, _, _), .failed(let id, _, _, _), .recorded(let id, _):
            "changed \(id)"
        }
    }

    /// What changed in the library since `token`: one change holding every asset inserted or updated since.
    /// Throws `PHPhotosError.persistentChangeTokenExpired` when the history no longer reaches back to `token`.
    public func fetchPersistentChanges(since token: PHPersistentChangeToken) throws -> PHPersistentChangeFetchResult {
        let binding = bound("fetchPersistentChanges(since:)")
        do {
            let changes = try binding.assets.changes(since: token.token)
            return PHPersistentChangeFetchResult([PHPersistentChange(changes)])
        } catch let error as AssetLibraryError {
            throw PHPhotosError(error)
        }
    }

    /// The token for the library as it is now.
    public var currentChangeToken: PHPersistentChangeToken {
        let binding = bound("currentChangeToken")
        // A full fetch cannot expire.
        let changes = try? binding.assets.changes(since: nil)
        guard let token = changes?.token else {
            preconditionFailure("SquallPhotos: the asset library could not list its assets")
        }
        return PHPersistentChangeToken(token)
    }

    func bound(_ call: String) -> LibraryBinding {
        guard let binding = LibraryBinding.current else {
            preconditionFailure(
                "SquallPhotos: \(call) outside the extension's processJobs() or willTerminate(); the library is "
                    + "there for the extension that a PhotosExtensionHost runs")
        }
        return binding
    }
}

/// The access an app asks for.
public enum PHAccessLevel: Sendable, Hashable {
    case addOnly
    case readWrite
}

/// The answer to an authorization request.
public enum PHAuthorizationStatus: Sendable, Hashable {
    case notDetermined
    case restricted
    case denied
    case authorized
    case limited
}
