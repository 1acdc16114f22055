/// An ordered, immutable list of fetched objects. As in PhotoKit it is not a `Sequence`: enumerate it by index
/// (`for i in 0..<result.count { let job = result.object(at: i) }`).
public final class PHFetchResult<ObjectType: AnyObject & Sendable>: Sendable {
    private let objects: [ObjectType]

    init(_ objects: [ObjectType]) {
        self.objects = objects
    }

    public var count: Int { objects.count }

    /// The object at `index` (0 ..< `count`; any other index traps, as PhotoKit's range exception).
    public func object(at index: Int) -> ObjectType {
        precondition(objects.indices.contains(index), "PHFetchResult.object(at: \(index)): out of 0..<\(count)")
        return objects[index]
    }

    public subscript(index: Int) -> ObjectType { object(at: index) }

    public var firstObject: ObjectType? { objects.first }
    public var lastObject: ObjectType? { objects.last }

    public func contains(_ object: ObjectType) -> Bool {
        objects.contains { $0 === object }
    }
}

/// Options for a fetch. Squall's fetches take none (sort descriptors and predicates are absent from the facade);
/// `nil` and `PHFetchOptions()` fetch the same.
public final class PHFetchOptions: Sendable {
    public init() {}
}
