/// A failure to parse, serialize or read a Structured Field Value (RFC 8941); compare on `code`.
public struct StructuredFieldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; stable across releases, so callers and tests may switch on it.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// An Item was expected but the field value is empty or only spaces (§4.2.3).
        case emptyInput
        /// The input ended where more was required: a value after `=`, a key after `;`, a closing `)`.
        case unexpectedEndOfInput
        /// A character that cannot appear at this place: a value may not start with it, or a `,` was expected.
        case unexpectedCharacter
        /// A complete value was parsed but characters other than spaces follow it (§4.2 step 6).
        case trailingCharacters
        /// A List or Dictionary ends with a `,` (§4.2.1, §4.2.2).
        case trailingComma
        /// A key does not start with lcalpha or `*`, or holds a character outside §3.1.2.
        case invalidKey
        /// A `-` not followed by a digit (§4.2.4).
        case invalidInteger
        /// An Integer with more than 15 digits, or outside ±999,999,999,999,999 when serialized (§3.3.1).
        case integerOutOfRange
        /// A Decimal ending in `.` or with more than 3 fractional digits (§4.2.4).
        case invalidDecimal
        /// A Decimal with more than 12 integer digits (§3.3.2).
        case decimalOutOfRange
        /// A String with a bad escape, a non-printable character, or no closing quote (§3.3.3).
        case invalidString
        /// A Token that is empty or has a character outside §3.3.4 (serialization only; parsing stops at one).
        case invalidToken
        /// A Byte Sequence with no closing `:`, a character outside base64, or bad padding (§3.3.5).
        case invalidByteSequence
        /// A `?` not followed by `0` or `1` (§3.3.6).
        case invalidBoolean
        /// A typed accessor found a member of another type: see `key`, `expected` and `actual`.
        case wrongType
    }

    /// What went wrong.
    public let code: Code
    /// A human explanation, for logs and messages; not stable.
    public let detail: String
    /// The byte offset in the (combined) field value where parsing failed; nil for serialization and accessors.
    public let offset: Int?
    /// For `wrongType` from a Dictionary or Parameters accessor: the member's key.
    public let key: String?
    /// For `wrongType`: the type the caller asked for.
    public let expected: ValueKind?
    /// For `wrongType`: the type found.
    public let actual: ValueKind?

    /// Creates an error; only `code` and `detail` are needed outside `wrongType`.
    public init(
        code: Code,
        detail: String,
        offset: Int? = nil,
        key: String? = nil,
        expected: ValueKind? = nil,
        actual: ValueKind? = nil
    ) {
        self.code = code
        self.detail = detail
        self.offset = offset
        self.key = key
        self.expected = expected
        self.actual = actual
    }

    /// A `wrongType` error: the caller asked for `expected` but the value is `actual`.
    public static func wrongType(expected: ValueKind, actual: ValueKind, key: String? = nil) -> Self {
        let subject = key.map { "member \"\($0)\"" } ?? "value"
        return Self(
            code: .wrongType,
            detail: "\(subject) is \(actual), expected \(expected)",
            key: key,
            expected: expected,
            actual: actual
        )
    }

    public var description: String {
        let place = offset.map { " at offset \($0)" } ?? ""
        return "\(code.rawValue)\(place): \(detail)"
    }
}
