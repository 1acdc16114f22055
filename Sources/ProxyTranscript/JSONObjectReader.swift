import SquallCore

/// Reads the members of one JSON object line with SquallCore's strict reader and typed field reader, throwing
/// errors that name the key.
///
/// Every key an event kind defines must be present (`null` stands for an absent optional value), and no other key
/// may be: the format is written with a fixed key set per kind, so anything else is a mistake worth reporting.
/// Numbers are integers only, and lines nest at most 16 deep.
struct JSONObjectReader {
    static let options = JSONValue.ParseOptions(maxDepth: 16, integersOnly: true)
    private let fields: JSONFieldReader

    init(line: String) throws(TranscriptParseError) {
        let value = try Self.transcript { () throws(JSONError) in try JSONValue.parse(line, options: Self.options) }
        guard case .object = value else {
            throw TranscriptParseError(.syntax, key: "", "the line is not a JSON object")
        }
        fields = try Self.transcript { () throws(JSONError) in
            try JSONFieldReader(value, path: "", expected: "a JSON object")
        }
    }

    /// Throws for the first key (in sorted order) that `keys` does not list.
    func requireOnly(_ keys: [String]) throws(TranscriptParseError) {
        if let extra = Set(fields.keys).subtracting(keys).sorted().first {
            throw TranscriptParseError(.unknownKey, key: extra, "not a key of this event kind")
        }
    }

    func string(_ key: String) throws(TranscriptParseError) -> String {
        try present(key) { () throws(JSONError) in try fields.string(key) }
    }

    func optionalString(_ key: String) throws(TranscriptParseError) -> String? {
        try nullable(key) { () throws(JSONError) in try fields.string(key) }
    }

    func integer(_ key: String) throws(TranscriptParseError) -> Int64 {
        try present(key) { () throws(JSONError) in try fields.integer(key) }
    }

    func optionalInteger(_ key: String) throws(TranscriptParseError) -> Int64? {
        try nullable(key) { () throws(JSONError) in try fields.integer(key) }
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
        let expected = "an array of [name, value] pairs"
        let elements = try present(key) { () throws(JSONError) in
            try fields.read(key) { value, path throws(JSONError) in try value.elements(at: path, expected: expected) }
        }
        var pairs: [(String, String)] = []
        for element in elements {
            guard case .array(let pair) = element, pair.count == 2, case .string(let name) = pair[0],
                case .string(let value) = pair[1]
            else { throw Self.transcriptError(element.wrongType(key, expected)) }
            pairs.append((name, value))
        }
        return pairs
    }

    /// The value `read` returns for a key that must be present and not null.
    private func present<T>(_ key: String, _ read: () throws(JSONError) -> T?) throws(TranscriptParseError) -> T {
        guard fields.has(key) else { throw TranscriptParseError(.missingKey, key: key, "required") }
        guard let value = try Self.transcript(read) else {
            throw TranscriptParseError(.wrongType, key: key, "expected a value, found null")
        }
        return value
    }

    /// Nil for `null`, else the value `read` returns; the key must be present.
    private func nullable<T>(_ key: String, _ read: () throws(JSONError) -> T?) throws(TranscriptParseError) -> T? {
        guard fields.has(key) else { throw TranscriptParseError(.missingKey, key: key, "required") }
        return fields.isNull(key) ? nil : try Self.transcript(read)
    }

    private static func transcript<T>(_ read: () throws(JSONError) -> T) throws(TranscriptParseError) -> T {
        do {
            return try read()
        } catch {
            throw transcriptError(error)
        }
    }

    /// The transcript error for a JSON error: its key is the top-level key the path starts with.
    private static func transcriptError(_ error: JSONError) -> TranscriptParseError {
        let key = String(error.path.prefix { $0 != "." && $0 != "[" })
        let detail = error.position.map { "\(error.detail) at \($0)" } ?? error.detail
        switch error.code {
        case .syntax: return TranscriptParseError(.syntax, key: "", detail)
        case .duplicateKey: return TranscriptParseError(.unknownKey, key: key, "the key appears twice")
        case .unknownKey: return TranscriptParseError(.unknownKey, key: key, detail)
        case .missingKey: return TranscriptParseError(.missingKey, key: key, detail)
        case .wrongType: return TranscriptParseError(.wrongType, key: key, detail)
        case .invalidDuration, .invalidSize, .invalidValue: return TranscriptParseError(.invalidValue, key: key, detail)
        }
    }
}
