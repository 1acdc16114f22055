import FaultEngine
import SquallCore

/// The scalar readers of scenario files: each takes a value and its path and returns the model's value or a
/// `ScenarioError` saying what was expected and what was found.
extension JSONValue {
    static let sizeExpected = "a size: whole bytes or a string such as \"512KiB\", \"8MiB\", \"1GB\""
    static let durationExpected = "a duration string such as \"250ms\", \"2s\", \"1m\""

    static func string(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        guard case .string(let text) = value else { throw wrongType(value, path, "a string") }
        return text
    }

    static func bool(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Bool {
        guard case .bool(let flag) = value else { throw wrongType(value, path, "true or false") }
        return flag
    }

    /// A whole number within `range`.
    static func integer(
        _ value: JSONValue, _ path: String, in range: ClosedRange<Int64>
    ) throws(ScenarioError) -> Int64 {
        let expected =
            range.upperBound == .max
            ? "a whole number ≥ \(range.lowerBound)" : "a whole number in \(range.lowerBound)…\(range.upperBound)"
        guard case .integer(let number) = value else { throw wrongType(value, path, expected) }
        guard range.contains(number) else {
            throw ScenarioError(.invalidValue, path: path, "expected \(expected), found \(number)")
        }
        return number
    }

    /// A reader of whole numbers within `range`, as `Int`.
    static func int(in range: ClosedRange<Int64>) -> (JSONValue, String) throws(ScenarioError) -> Int {
        { value, path throws(ScenarioError) in Int(try integer(value, path, in: range)) }
    }

    /// A duration string (`"250ms"`, `"2s"`, `"1m"`).
    static func duration(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Duration {
        guard case .string(let text) = value else { throw wrongType(value, path, durationExpected) }
        do {
            return try DurationText.parse(text, path: path)
        } catch {
            throw ScenarioError(.invalidValue, path: path, "expected \(durationExpected), found \"\(text)\"")
        }
    }

    /// A size: whole bytes (never negative) or a string with a unit.
    static func size(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Int64 {
        switch value {
        case .integer(let bytes) where bytes < 0:
            throw ScenarioError(.invalidValue, path: path, "expected \(sizeExpected), found the negative size \(bytes)")
        case .integer(let bytes):
            return bytes
        case .string(let text):
            guard let bytes = try? ByteSize.parse(text) else {
                throw ScenarioError(.invalidValue, path: path, "expected \(sizeExpected), found \"\(text)\"")
            }
            return bytes
        default:
            throw wrongType(value, path, sizeExpected)
        }
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
        ScenarioError(.wrongType, path: path, "expected \(expected), found \(value.summary)")
    }
}
