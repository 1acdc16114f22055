/// Why a JSON Lines transcript line was rejected: a stable `code` to compare on, the key it concerns (empty for
/// a syntax error outside any key), and a human `detail`.
public struct TranscriptParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake the line holds.
    public enum Code: String, Sendable, Hashable {
        /// The line is not one JSON object (RFC 8259): bad token, unterminated string, trailing bytes, …
        case syntax
        /// A key the event kind does not define, or a key given twice.
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A value of the wrong JSON type.
        case wrongType
        /// A value of the right type but out of range: an unknown `event` or enum name, a negative length, …
        case invalidValue
    }

    public var code: Code
    /// The key the mistake is at (`t_us`, `fields`, …).
    public var key: String
    public var detail: String

    public init(_ code: Code, key: String, _ detail: String) {
        self.code = code
        self.key = key
        self.detail = detail
    }

    public var description: String {
        key.isEmpty ? "\(code.rawValue): \(detail)" : "\(code.rawValue) at key '\(key)': \(detail)"
    }
}
