/// One JSON object at `path`, read key by key with the typed readers of `JSONValue`: absent keys read as nil,
/// present ones must have the right type and unit.
///
/// ```swift
/// let fields = try JSONFieldReader(value, path: "faults[0]", expected: "a fault object")
/// try fields.rejectUnknownKeys(["name", "action", "rate"], context: "a \"bandwidth\" fault")
/// let rate = try fields.require(try fields.size("rate"), "rate", expected: "bytes/s")
/// ```
public struct JSONFieldReader: Sendable {
    public let members: [String: JSONValue]
    public let path: String

    /// The object `value` holds; a wrong-type error naming `expected` otherwise.
    public init(_ value: JSONValue, path: String, expected: String) throws(JSONError) {
        guard case .object(let members) = value else { throw value.wrongType(path, expected) }
        self.members = members
        self.path = path
    }

    /// The object's keys, sorted so errors do not depend on the document's order.
    public var keys: [String] { members.keys.sorted() }

    public var isEmpty: Bool { members.isEmpty }

    public subscript(key: String) -> JSONValue? { members[key] }

    public func has(_ key: String) -> Bool { members[key] != nil }

    public func isNull(_ key: String) -> Bool { members[key] == .null }

    /// The path of `key` inside this object.
    public func path(_ key: String) -> String { JSONPath.key(path, key) }

    /// One error for each key outside `allowed`, in sorted order.
    public func unknownKeys(_ allowed: [String], context: String) -> [JSONError] {
        let known = Set(allowed)
        return keys.filter { !known.contains($0) }.map { key in
            JSONError(
                .unknownKey, path: path(key),
                "unknown key in \(context); expected one of: \(allowed.joined(separator: ", "))")
        }
    }

    /// Fails on the first key (in sorted order) outside `allowed`.
    public func rejectUnknownKeys(_ allowed: [String], context: String) throws(JSONError) {
        if let first = unknownKeys(allowed, context: context).first { throw first }
    }

    /// `value`, or a missing-key error for `key`.
    public func require<T>(_ value: T?, _ key: String, expected: String) throws(JSONError) -> T {
        guard let value else { throw JSONError(.missingKey, path: path(key), "missing; expected \(expected)") }
        return value
    }

    /// The value of `key` read by `read` with its path; nil when the key is absent.
    public func read<T, Failure: Error>(
        _ key: String, _ read: (JSONValue, String) throws(Failure) -> T
    ) throws(Failure) -> T? {
        guard let value = members[key] else { return nil }
        return try read(value, path(key))
    }

    public func string(_ key: String) throws(JSONError) -> String? {
        try read(key) { value, path throws(JSONError) in try value.string(at: path) }
    }

    public func bool(_ key: String) throws(JSONError) -> Bool? {
        try read(key) { value, path throws(JSONError) in try value.bool(at: path) }
    }

    /// A whole number that fits in `Int`.
    public func int(_ key: String) throws(JSONError) -> Int? {
        try read(key) { value, path throws(JSONError) in
            Int(try value.integer(at: path, in: Int64(Int.min)...Int64(Int.max)))
        }
    }

    public func integer(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(JSONError) -> Int64?
    {
        try read(key) { value, path throws(JSONError) in try value.integer(at: path, in: range) }
    }

    public func unsignedInteger(_ key: String) throws(JSONError) -> UInt64? {
        try read(key) { value, path throws(JSONError) in try value.unsignedInteger(at: path) }
    }

    public func double(_ key: String) throws(JSONError) -> Double? {
        try read(key) { value, path throws(JSONError) in try value.double(at: path) }
    }

    public func duration(_ key: String) throws(JSONError) -> Duration? {
        try read(key) { value, path throws(JSONError) in try value.duration(at: path) }
    }

    public func size(_ key: String) throws(JSONError) -> Int64? {
        try read(key) { value, path throws(JSONError) in try value.size(at: path) }
    }

    /// The object at `key`.
    public func object(_ key: String, expected: String) throws(JSONError) -> JSONFieldReader? {
        try read(key) { value, path throws(JSONError) in try JSONFieldReader(value, path: path, expected: expected) }
    }

    /// An object of string values, sorted by key.
    public func stringMap(_ key: String) throws(JSONError) -> [(key: String, value: String)]? {
        guard let object = try object(key, expected: "an object of string values") else { return nil }
        var pairs: [(key: String, value: String)] = []
        for name in object.keys { pairs.append((name, try object.members[name]!.string(at: object.path(name)))) }
        return pairs
    }
}
