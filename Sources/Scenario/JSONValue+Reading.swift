import FaultEngine
import SquallCore

/// The scalar readers of scenario files: SquallCore's typed readers with their errors as `ScenarioError`s, each
/// taking a value and its path and returning the model's value or what was expected and what was found.
extension JSONValue {
    static func string(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        try scenario { () throws(JSONError) in try value.string(at: path) }
    }

    static func bool(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Bool {
        try scenario { () throws(JSONError) in try value.bool(at: path) }
    }

    /// A whole number within `range`.
    static func integer(
        _ value: JSONValue, _ path: String, in range: ClosedRange<Int64>
    ) throws(ScenarioError) -> Int64 {
        try scenario { () throws(JSONError) in try value.integer(at: path, in: range) }
    }

    /// A reader of whole numbers within `range`, as `Int`.
    static func int(in range: ClosedRange<Int64>) -> (JSONValue, String) throws(ScenarioError) -> Int {
        { value, path throws(ScenarioError) in Int(try integer(value, path, in: range)) }
    }

    /// A duration string (`"250ms"`, `"2s"`, `"1m"`, `"1d"`; see `DurationText`).
    static func duration(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Duration {
        try scenario { () throws(JSONError) in try value.duration(at: path) }
    }

    /// A size: whole bytes (never negative) or a string with a unit (see `ByteSize`).
    static func size(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Int64 {
        try scenario { () throws(JSONError) in try value.size(at: path) }
    }

    /// A position inside an upload: a percentage (`"40%"`) or a size.
    static func position(_ value: JSONValue, _ path: String) throws(ScenarioError) -> UploadPosition {
        let expected = "a percentage such as \"40%\" or a size"
        guard case .string(let text) = value else { return .bytes(try size(value, path)) }
        do {
            return try UploadPosition.parse(text, path: path)
        } catch {
            throw ScenarioError(.invalidValue, path: path, "expected \(expected), found \"\(text)\"")
        }
    }

    /// A name from `vocabulary`.
    static func name(
        _ value: JSONValue, _ path: String, in vocabulary: [String], what: String
    ) throws(ScenarioError) -> String {
        let text = try string(value, path)
        guard vocabulary.contains(text) else { throw unknownName(text, path, what: what, vocabulary: vocabulary) }
        return text
    }

    static func unknownName(_ text: String, _ path: String, what: String, vocabulary: [String]) -> ScenarioError {
        ScenarioError(
            .unknownName, path: path,
            "unknown \(what) \"\(text)\"; expected one of: \(vocabulary.joined(separator: ", "))")
    }

    static func wrongType(_ value: JSONValue, _ path: String, _ expected: String) -> ScenarioError {
        ScenarioError(value.wrongType(path, expected))
    }

    private static func scenario<T>(_ read: () throws(JSONError) -> T) throws(ScenarioError) -> T {
        do {
            return try read()
        } catch {
            throw ScenarioError(error)
        }
    }
}

extension ScenarioError {
    /// The scenario error for a mistake SquallCore's JSON reader found: the same path, line and column.
    init(_ error: JSONError) {
        let code: Code =
            switch error.code {
            case .syntax: .unreadable
            case .duplicateKey: .duplicate
            case .unknownKey: .unknownKey
            case .missingKey: .missingKey
            case .wrongType: .wrongType
            case .invalidDuration, .invalidSize, .invalidValue: .invalidValue
            }
        let detail = error.code == .syntax ? "not valid JSON: \(error.detail)" : error.detail
        self.init(code, path: error.path, line: error.line, column: error.column, detail)
    }
}
