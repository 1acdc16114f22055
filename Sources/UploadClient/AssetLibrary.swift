/// Where the extension finds the assets to upload, with persistent change tracking (PhotoKit
/// `PHPhotoLibrary.fetchPersistentChanges(since:)` and `PHPersistentChangeToken`).
///
/// `changes(since: nil)` is a full fetch: every asset the library holds, as inserted, and the token for now.
/// `changes(since: token)` gives what was inserted or updated after `token` was issued, and the token for now.
/// When the library can no longer tell (its history was pruned past `token`, or `token` is another library's),
/// it throws `AssetLibraryError` with code `persistentChangeTokenExpired`; the caller discards the token and
/// re-syncs with a full fetch.
public protocol AssetLibrary: Sendable {
    func changes(since token: ChangeToken?) throws -> AssetChanges
}

/// A point in one library's change history (PhotoKit `PHPersistentChangeToken`): opaque to the policy, which only
/// stores it (it is `Codable`, kept in `ExtensionState`) and hands it back.
public struct ChangeToken: Hashable, Sendable, Codable {
    /// The library that issued it.
    public var library: String
    /// The library's history generation when it was issued; expiring tokens starts a new generation.
    public var generation: Int
    /// How many changes the history held when it was issued.
    public var position: Int

    public init(library: String, generation: Int, position: Int) {
        self.library = library
        self.generation = generation
        self.position = position
    }
}

/// What changed in a library since a token (PhotoKit `PHPersistentChange` with its object changes, reduced to
/// asset ids), and the token to ask from next time.
public struct AssetChanges: Sendable, Equatable {
    /// Assets added since the token (every asset for a full fetch), in the order they were added, each once.
    public var inserted: [String]
    /// Assets present at the token and changed since, each once and never also in `inserted`.
    public var updated: [String]
    /// The token for the library as these changes leave it.
    public var token: ChangeToken

    public init(inserted: [String], updated: [String] = [], token: ChangeToken) {
        self.inserted = inserted
        self.updated = updated
        self.token = token
    }
}

/// A change-tracking request the library refused.
public struct AssetLibraryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable identity of a refusal.
    public enum Code: String, Sendable, Codable {
        /// The library cannot list the changes since the token (PhotoKit
        /// `PHPhotosError.persistentChangeTokenExpired`): discard it and fetch everything again.
        case persistentChangeTokenExpired
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}

/// The library the CLI uploads from: a fixed list of asset ids (the files given), which never changes.
///
/// Its history has no changes, so a token it issued stays valid for ever. Its name is a fingerprint of the list
/// (model choice): a token another list issued (the same journal reused with other files) is expired, so the
/// policy re-syncs with a full fetch of this list.
public struct FileAssetLibrary: AssetLibrary {
    /// The asset ids, each once, in the order given.
    public let assetIDs: [String]
    /// The library's name in its tokens: a 64-bit FNV-1a fingerprint of the ids.
    public let name: String

    public init(assetIDs: [String]) {
        var seen = Set<String>()
        self.assetIDs = assetIDs.filter { seen.insert($0).inserted }
        self.name = "files-" + Self.fingerprint(self.assetIDs)
    }

    public func changes(since token: ChangeToken?) throws -> AssetChanges {
        let now = ChangeToken(library: name, generation: 0, position: 0)
        guard let token else { return AssetChanges(inserted: assetIDs, token: now) }
        guard token == now else {
            throw AssetLibraryError(.persistentChangeTokenExpired, "the token was not issued by \(name)")
        }
        return AssetChanges(inserted: [], token: now)
    }

    /// FNV-1a (64 bits) over the ids, each followed by a zero byte, as 16 hex digits.
    static func fingerprint(_ ids: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for id in ids {
            for byte in id.utf8 + [0] {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
