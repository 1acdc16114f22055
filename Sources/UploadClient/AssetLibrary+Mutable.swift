import Synchronization

/// A library that changes while the client runs, for tests and the scenario harness (`add-assets`,
/// `expire-change-token`): assets are added or updated, and every token issued so far can be expired at once,
/// as when the system prunes its change history.
///
/// Its history is a log of changes; a token is a position in the log within the current generation.
/// `expireChangeTokens()` starts a new generation: every older token is refused with
/// `persistentChangeTokenExpired`, and a full fetch then lists every asset. Thread-safe.
public final class MutableAssetLibrary: AssetLibrary {
    private enum Change {
        case inserted(String)
        case updated(String)
    }

    private struct History {
        var log: [Change] = []
        var assets: [String] = []
        var known: Set<String> = []
        var generation = 0
    }

    /// The library's name in its tokens: a token with another name is expired.
    public let name: String
    private let history = Mutex(History())

    /// A library named `name` holding `assetIDs` (a history of their insertions).
    public init(name: String = "library", assetIDs: [String] = []) {
        self.name = name
        add(assetIDs)
    }

    /// Every asset, in the order added.
    public var assetIDs: [String] {
        history.withLock { $0.assets }
    }

    /// Adds assets; an id the library already holds is recorded as an update of it.
    public func add(_ ids: [String]) {
        history.withLock { history in
            for id in ids {
                if history.known.insert(id).inserted {
                    history.assets.append(id)
                    history.log.append(.inserted(id))
                } else {
                    history.log.append(.updated(id))
                }
            }
        }
    }

    /// Records a change to assets the library holds (ids it does not hold are ignored).
    public func update(_ ids: [String]) {
        history.withLock { history in
            history.log += ids.filter(history.known.contains).map(Change.updated)
        }
    }

    /// Expires every token issued so far (the harness's `expire-change-token` event).
    public func expireChangeTokens() {
        history.withLock { $0.generation += 1 }
    }

    public func changes(since token: ChangeToken?) throws -> AssetChanges {
        try history.withLock { history in
            let now = ChangeToken(library: name, generation: history.generation, position: history.log.count)
            guard let token else { return AssetChanges(inserted: history.assets, token: now) }
            guard token.library == name, token.generation == history.generation, token.position <= now.position
            else {
                throw AssetLibraryError(
                    .persistentChangeTokenExpired,
                    "\(name) has no history since the token (generation \(token.generation), position "
                        + "\(token.position)); its generation is \(history.generation)")
            }
            return Self.summarize(history.log[token.position...], token: now)
        }
    }

    /// Inserted and updated ids of `changes`, each once; an asset inserted in the window is only inserted.
    private static func summarize(_ changes: ArraySlice<Change>, token: ChangeToken) -> AssetChanges {
        var inserted: [String] = []
        var updated: [String] = []
        var seen = Set<String>()
        for change in changes {
            switch change {
            case .inserted(let id) where seen.insert(id).inserted:
                inserted.append(id)
            case .updated(let id) where seen.insert(id).inserted:
                updated.append(id)
            default:
                break
            }
        }
        return AssetChanges(inserted: inserted, updated: updated, token: token)
    }
}
