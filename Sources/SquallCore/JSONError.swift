/// Why a JSON document or one of its values was refused: a stable `code` to compare on, the JSON path
/// (`faults[2].rate`; empty for the whole document), the line and column when the mistake is in the text itself,
/// and a `detail` that says what was expected and what to write instead.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake it is.
    public enum Code: String, Sendable, Hashable {
        /// Not JSON (RFC 8259): a bad token, an unterminated string, bytes after the value, nesting too deep, …
        case syntax
        /// An object holds the same key twice.
        case duplicateKey
        /// A key the format does not define at that place.
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A value of the wrong JSON type.
        case wrongType
        /// A duration that is not in the grammar (`DurationText`).
        case invalidDuration
        /// A size that is not in the grammar (`ByteSize`).
        case invalidSize
        /// A value of the right type that is not allowed: out of range, not in a vocabulary, …
        case invalidValue
    }

    public var code: Code
    public var path: String
    /// The 1-based line and column (in UTF-8 bytes) of a mistake in the text; nil for one found in the tree.
    public var line: Int?
    public var column: Int?
    public var detail: String

    public init(_ code: Code, path: String, line: Int? = nil, column: Int? = nil, _ detail: String) {
        self.code = code
        self.path = path
        self.line = line
        self.column = column
        self.detail = detail
    }

    /// `line 3, column 14`, or nil when the error has no place in the text.
    public var position: String? {
        guard let line, let column else { return nil }
        return "line \(line), column \(column)"
    }

    /// `path (line L, column C): detail`, or `line L, column C: detail` at the top, leaving out what is unknown.
    public var description: String {
        switch (path.isEmpty, position) {
        case (true, nil): detail
        case (true, let position?): "\(position): \(detail)"
        case (false, nil): "\(path): \(detail)"
        case (false, let position?): "\(path) (\(position)): \(detail)"
        }
    }
}
