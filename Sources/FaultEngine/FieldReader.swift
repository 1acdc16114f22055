import SquallCore

/// A coding key for any JSON object key, so unknown keys can be listed and rejected.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Strict reading of one JSON object: every wrong type, unknown key or bad unit becomes a `FaultError` naming
/// the coding path (`match.nth-request`, `[2].trigger.at-offset`) and what was expected.
struct FieldReader {
    private let container: KeyedDecodingContainer<AnyKey>
    private let codingPath: [any CodingKey]

    init(_ decoder: any Decoder, expected: String) throws {
        codingPath = decoder.codingPath
        do {
            container = try decoder.container(keyedBy: AnyKey.self)
        } catch {
            throw FaultError(.wrongType, path: Self.render(codingPath), "expected \(expected)")
        }
    }

    /// The object's keys, sorted so errors do not depend on the decoder's order.
    var keys: [String] { container.allKeys.map(\.stringValue).sorted() }

    /// Fails on the first key (in sorted order) outside `allowed`.
    func rejectUnknownKeys(allowed: Set<String>, context: String) throws {
        if let unknown = keys.first(where: { !allowed.contains($0) }) {
            let expected = allowed.sorted().joined(separator: ", ")
            throw FaultError(
                .unknownKey, path: path(unknown), "unknown key in \(context); expected one of: \(expected)")
        }
    }

    func has(_ key: String) -> Bool { container.contains(AnyKey(key)) }

    func isNull(_ key: String) -> Bool { (try? container.decodeNil(forKey: AnyKey(key))) ?? false }

    /// The coding path of `key` inside this object.
    func path(_ key: String) -> String { Self.render(codingPath + [AnyKey(key)]) }

    func require<T>(_ value: T?, _ key: String, expected: String) throws -> T {
        guard let value else { throw FaultError(.missingKey, path: path(key), "missing; expected \(expected)") }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, _ key: String, expected: String) throws -> T? {
        guard has(key) else { return nil }
        do {
            return try container.decode(type, forKey: AnyKey(key))
        } catch let error as FaultError {
            throw error
        } catch {
            // Any other error is the decoder's: a value of the wrong type (Foundation's JSONDecoder may throw its
            // own error type rather than DecodingError for a fraction where an integer belongs).
            throw FaultError(.wrongType, path: path(key), "expected \(expected)")
        }
    }

    func string(_ key: String) throws -> String? { try decode(String.self, key, expected: "a string") }

    func int(_ key: String) throws -> Int? { try decode(Int.self, key, expected: "a whole number") }

    func double(_ key: String) throws -> Double? { try decode(Double.self, key, expected: "a number") }

    func bool(_ key: String) throws -> Bool? { try decode(Bool.self, key, expected: "true or false") }

    /// A duration string such as `"250ms"`.
    func duration(_ key: String) throws -> Duration? {
        guard let text = try decode(String.self, key, expected: "a duration string such as \"250ms\"") else {
            return nil
        }
        return try DurationText.parse(text, path: path(key))
    }

    /// A size: a whole number of bytes, or a string with a unit (`"512KiB"`); never negative.
    func size(_ key: String) throws -> Int64? {
        guard has(key) else { return nil }
        let expected = "a size in bytes or a string such as \"512KiB\""
        if let bytes = try? container.decode(Int64.self, forKey: AnyKey(key)) {
            guard bytes >= 0 else { throw FaultError(.invalidSize, path: path(key), "\(bytes) is negative") }
            return bytes
        }
        let text = try require(try decode(String.self, key, expected: expected), key, expected: expected)
        do {
            return try ByteSize.parse(text)
        } catch {
            throw FaultError(.invalidSize, path: path(key), "\"\(text)\" is not \(expected)")
        }
    }

    /// An object of string values, sorted by key.
    func stringMap(_ key: String) throws -> [(key: String, value: String)]? {
        try decode([String: String].self, key, expected: "an object of string values")?.sorted { $0.key < $1.key }
    }

    static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
