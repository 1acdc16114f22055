import UploadClient

/// A point in the library's change history, to fetch what changed after it. `Codable`, to keep between
/// invocations (PhotoKit archives it with `NSSecureCoding`).
public struct PHPersistentChangeToken: Hashable, Sendable, Codable {
    let token: ChangeToken

    init(_ token: ChangeToken) {
        self.token = token
    }
}

/// The kinds of objects whose changes can be asked for.
public enum PHObjectType: Sendable, Hashable {
    case asset
    case assetCollection
    case collectionList
}

/// What `fetchPersistentChanges(since:)` found, a change at a time (a `Sequence`, as in PhotoKit).
public struct PHPersistentChangeFetchResult: Sequence, Sendable {
    private let changes: [PHPersistentChange]

    init(_ changes: [PHPersistentChange]) {
        self.changes = changes
    }

    public func makeIterator() -> IndexingIterator<[PHPersistentChange]> {
        changes.makeIterator()
    }
}

/// One change of the library's history, with the token after it.
public final class PHPersistentChange: Sendable {
    public let changeToken: PHPersistentChangeToken
    private let inserted: Set<String>
    private let updated: Set<String>

    init(_ changes: AssetChanges) {
        changeToken = PHPersistentChangeToken(changes.token)
        inserted = Set(changes.inserted)
        updated = Set(changes.updated)
    }

    /// The identifiers of the objects of `objectType` that this change inserted, updated or deleted (only assets
    /// change under Squall; its assets are never deleted).
    public func changeDetails(for objectType: PHObjectType) throws -> PHPersistentObjectChangeDetails {
        objectType == .asset
            ? PHPersistentObjectChangeDetails(objectType: objectType, inserted: inserted, updated: updated)
            : PHPersistentObjectChangeDetails(objectType: objectType, inserted: [], updated: [])
    }
}

/// The identifiers one change touched, by kind.
public final class PHPersistentObjectChangeDetails: Sendable {
    public let objectType: PHObjectType
    public let insertedLocalIdentifiers: Set<String>
    public let updatedLocalIdentifiers: Set<String>
    public let deletedLocalIdentifiers: Set<String>

    init(objectType: PHObjectType, inserted: Set<String>, updated: Set<String>) {
        self.objectType = objectType
        insertedLocalIdentifiers = inserted
        updatedLocalIdentifiers = updated
        deletedLocalIdentifiers = []
    }
}
