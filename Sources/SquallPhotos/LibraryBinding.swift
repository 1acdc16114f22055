import Foundation
import SquallNet
import Synchronization
import UploadClient
import UploadJobs

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `PHPhotoLibrary.shared()` reaches while a `PhotosExtensionHost` runs: the assets, the invocation's
/// context (job fetches and change blocks exist only during `processJobs()`), the enabled flag and how a
/// destination the extension names becomes the one the system sends to.
final class LibraryBinding: Sendable {
    /// The binding of the extension call under way (and of the tasks it starts).
    @TaskLocal static var current: LibraryBinding?

    let assets: any AssetLibrary
    let destinations: DestinationRule
    /// The run's bearer tokens for the server under test, which `SquallCredentials` hands the extension; nil when
    /// the run has none.
    let tokens: (any TokenSource)?
    /// The host's folder (the system's journal folder): the enabled flag, the conduct log and the app group
    /// containers live there; nil keeps the flag in memory and records no conduct.
    let folder: String?
    private let state: Mutex<State>

    private struct State {
        var context: ExtensionContext?
        var enabled: Bool
        /// Jobs whose `responseHeaderFields` the extension read in this invocation.
        var headersRead: Set<JobID> = []
        /// `willTerminate()` returned for the instance whose invocation may still be running.
        var terminated = false
        /// Jobs acknowledged or cancelled through this host: their records are gone.
        var gone: Set<JobID> = []
    }

    init(
        assets: any AssetLibrary, destinations: DestinationRule, folder: String?, tokens: (any TokenSource)? = nil
    ) throws {
        self.assets = assets
        self.destinations = destinations
        self.tokens = tokens
        self.folder = folder
        var enabled = true
        if let path = folder.map({ $0 + "/extension-enabled.json" }),
            let data = FileManager.default.contents(atPath: path)
        {
            enabled = try JSONDecoder().decode(EnabledFile.self, from: data).uploadJobExtensionEnabled
        }
        state = Mutex(State(context: nil, enabled: enabled))
    }

    var enabled: Bool { state.withLock { $0.enabled } }

    func setEnabled(_ enabled: Bool) throws {
        if let folder {
            let data = try JSONEncoder().encode(EnabledFile(uploadJobExtensionEnabled: enabled))
            try DurableFile.replace(folder + "/extension-enabled.json", with: [UInt8](data))
        }
        state.withLock { $0.enabled = enabled }
    }

    /// The invocation under way's context; `call` outside an invocation stops the program, naming it.
    func context(_ call: String) -> ExtensionContext {
        guard let context = state.withLock({ $0.context }) else {
            preconditionFailure(
                "SquallPhotos: \(call) outside processJobs(); the system lets an extension see and change its jobs "
                    + "only while it processes them")
        }
        return context
    }

    /// An invocation begins; `fresh` when it is a new instance's first (a terminated one's changes are over).
    func enter(_ context: ExtensionContext, fresh: Bool) {
        state.withLock {
            $0.context = context
            $0.headersRead = []
            if fresh { $0.terminated = false }
        }
    }

    func leave() {
        state.withLock { $0.context = nil }
    }

    /// `willTerminate()` returned: changes the running invocation commits from now on are conduct to record.
    func markTerminated() {
        state.withLock { $0.terminated = true }
    }

    var isTerminated: Bool { state.withLock { $0.terminated } }

    /// The extension read `job`'s response header fields.
    func noteHeadersRead(_ job: JobID) {
        state.withLock { _ = $0.headersRead.insert(job) }
    }

    /// Jobs that left the store in a committed change block: a snapshot of one no longer has its response.
    func noteGone(_ jobs: [JobID]) {
        state.withLock { $0.gone.formUnion(jobs) }
    }

    func isGone(_ job: JobID) -> Bool {
        state.withLock { $0.gone.contains(job) }
    }

    func headersWereRead(_ job: JobID) -> Bool {
        state.withLock { $0.headersRead.contains(job) }
    }

    /// Appends `records` to the conduct log (`ExtensionConduct.fileName` in the folder), one JSON line each.
    func record(_ records: [ExtensionConduct]) {
        guard let folder, !records.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var bytes: [UInt8] = []
        for record in records {
            guard let line = try? encoder.encode(record) else { continue }
            bytes += line + [0x0A]
        }
        PrivateFile.append(bytes, to: folder + "/" + ExtensionConduct.fileName)
    }

    private struct EnabledFile: Codable {
        var uploadJobExtensionEnabled: Bool
    }
}

/// How the URL of a destination the extension builds becomes the one the system uploads to. On a phone, the
/// extension's `BackgroundUploadURLBase` (Info.plist) is where it may send; under Squall it names the server the
/// extension was written for (`https://api.example.com`), and its URLs are sent to the server under test instead:
/// the base is replaced with `target`, the rest of the URL kept. A URL outside the base is refused, as the
/// system's network access validation refuses it.
public struct DestinationRule: Sendable, Hashable {
    /// The extension's `BackgroundUploadURLBase`, e.g. `https://api.example.com`.
    public var base: String
    /// What replaces it, e.g. `https://127.0.0.1:40123` (the proxy in front of the server under test).
    public var target: String

    public init(base: String, target: String) {
        self.base = base
        self.target = target
    }

    /// The destination for `request`, or a refusal naming the URL and the base.
    func destination(for request: URLRequest) throws(PHPhotosError) -> UploadDestination {
        guard let url = request.url?.absoluteString else {
            throw PHPhotosError(.invalidParameter, "the destination request has no URL")
        }
        let base = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard url == base || url.hasPrefix(base + "/") || url.hasPrefix(base + "?") else {
            throw PHPhotosError(
                .invalidParameter, "the destination \(url) is outside the extension's BackgroundUploadURLBase \(base)")
        }
        let target = target.hasSuffix("/") ? String(target.dropLast()) : target
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            HeaderField($0.key, $0.value)
        }
        return UploadDestination(
            method: request.httpMethod ?? "POST", url: target + url.dropFirst(base.count), headerFields: fields)
    }
}
