/// Reads the members of one JSON object line, throwing errors that name the key.
///
/// Every key an event kind defines must be present (`null` stands for an absent optional value), and no other key
/// may be: the format is written with a fixed key set per kind, so anything else is a mistake worth reporting.
struct JSONObjectReader {
    private let members: [String: JSONValue]

    init(line: String) throws(TranscriptParseError) {
        guard case .object(let list) = try JSONValue(parsing: line) else {
            throw TranscriptParseError(.syntax, key: "", "the line is not a JSON object")
        }
        var members: [String: JSONValue] = [:]
        for member in list {
            guard members.updateValue(member.value, forKey: member.key) == nil else {
                throw TranscriptParseError(.unknownKey, key: member.key, "the key appears twice")
            }
        }
        self.members = members
    }

    /// Throws for the first key (in sorted order) that `keys` does not list.
    func requireOnly(_ keys: [String]) throws(TranscriptParseError) {
        if let extra = Set(members.keys).subtracting(keys).sorted().first {
            throw TranscriptParseError(.unknownKey, key: extra, "not a key of this event kind")
        }
    }

    func string(_ key: String) throws(TranscriptParseError) -> String {
        guard let value = try optionalString(key) else { throw wrongType(key, "a string", found: .null) }
        return value
    }

    func optionalString(_ key: String) throws(TranscriptParseError) -> String? {
        switch try value(key) {
        case .null: return nil
        case .string(let string): return string
        case let other: throw wrongType(key, "a string or null", found: other)
        }
    }

    func integer(_ key: String) throws(TranscriptParseError) -> Int64 {
        guard let value = try optionalInteger(key) else { throw wrongType(key, "an integer", found: .null) }
        return value
    }

    func optionalInteger(_ key: String) throws(TranscriptParseError) -> Int64? {
        switch try value(key) {
        case .null: return nil
        case .integer(let integer): return integer
        case let other: throw wrongType(key, "an integer or null", found: other)
        }
    }

    /// An integer of at least `minimum` that fits in `Int`.
    func int(_ key: String, minimum: Int = .min) throws(TranscriptParseError) -> Int {
        let value = try integer(key)
        guard let int = Int(exactly: value), int >= minimum else {
            throw TranscriptParseError(.invalidValue, key: key, "\(value) is below \(minimum) or too large")
        }
        return int
    }

    /// An integer of at least zero.
    func count(_ key: String) throws(TranscriptParseError) -> Int64 {
        let value = try integer(key)
        guard value >= 0 else { throw TranscriptParseError(.invalidValue, key: key, "\(value) is negative") }
        return value
    }

    /// A string naming one of the enum's cases.
    func name<Name: RawRepresentable & CaseIterable>(
        _ key: String, as type: Name.Type
    ) throws(TranscriptParseError) -> Name where Name.RawValue == String {
        let text = try string(key)
        guard let value = Name(rawValue: text) else {
            let names = Name.allCases.map(\.rawValue).joined(separator: ", ")
            throw TranscriptParseError(.invalidValue, key: key, "'\(text)' is not one of \(names)")
        }
        return value
    }

    /// An array of two-string arrays: `[["Host","a"],["Accept","*/*"]]`.
    func pairs(_ key: String) throws(TranscriptParseError) -> [(String, String)] {
        guard case .array(let elements) = try value(key) else {
            throw wrongType(key, "an array of [name, value] pairs", found: try value(key))
        }
        var pairs: [(String, String)] = []
        for element in elements {
            guard case .array(let pair) = element, pair.count == 2, case .string(let name) = pair[0],
                case .string(let value) = pair[1]
            else { throw wrongType(key, "an array of [name, value] pairs", found: element) }
            pairs.append((name, value))
        }
        return pairs
    }

    private func value(_ key: String) throws(TranscriptParseError) -> JSONValue {
        guard let value = members[key] else { throw TranscriptParseError(.missingKey, key: key, "required") }
        return value
    }

    private func wrongType(_ key: String, _ expected: String, found: JSONValue) -> TranscriptParseError {
        TranscriptParseError(.wrongType, key: key, "expected \(expected), found \(found.typeName)")
    }
}
