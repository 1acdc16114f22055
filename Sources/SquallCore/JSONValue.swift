/// A JSON document as a tree (RFC 8259), as Squall's one strict reader (`JSONValue.parse`) returns it: scenario
/// files, fault definitions, control-API bodies and transcript lines are all read through it.
///
/// Numbers keep the distinction JSON Schema makes and stay exact where Squall needs them to: an `integer` is any
/// number with no fractional part that fits in `Int64` (`3`, `3.0`, `1e3`; byte sizes and offsets), a
/// `largeInteger` is a whole number above `Int64.max` that fits in `UInt64` (seeds), every other number is a
/// `number`. Objects never hold a key twice: the reader rejects the document instead.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case largeInteger(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What the value is, for "found …" in messages.
    public var summary: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "the number \(value)"
        case .largeInteger(let value): "the number \(value)"
        case .number(let value): "the number \(value)"
        case .string(let value): "the string \"\(value)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value of `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The value at a dotted path with array indices, as a user names a place in an answer (`access_token`,
    /// `data.token`, `tokens[0].value`); nil when it is not there.
    public func value(atPath path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            var name = Substring(part)
            var indices: [Int] = []
            while name.hasSuffix("]"), let open = name.lastIndex(of: "["),
                let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)])
            {
                indices.insert(index, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { current = current?[String(name)] }
            for index in indices {
                guard case .array(let items)? = current, items.indices.contains(index) else { return nil }
                current = items[index]
            }
        }
        return current
    }
}

extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .null: try single.encodeNil()
        case .bool(let value): try single.encode(value)
        case .integer(let value): try single.encode(value)
        case .largeInteger(let value): try single.encode(value)
        case .number(let value): try single.encode(value)
        case .string(let value): try single.encode(value)
        case .array(let value): try single.encode(value)
        case .object(let value): try single.encode(value)
        }
    }
}

/// JSON paths as every error message writes them: `faults[2].rate`, `client.retry-limit`, empty for the document.
public enum JSONPath {
    /// `path.key`, or `key` at the top.
    public static func key(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// `path[index]`.
    public static func index(_ path: String, _ index: Int) -> String { "\(path)[\(index)]" }
}
