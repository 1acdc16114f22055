/// The one strict JSON reader: RFC 8259 exactly (no comments, no trailing commas, no leading zeros, no lone
/// surrogates, valid UTF-8), one value per document, objects without duplicate keys, a bounded depth. Every
/// refusal is a `JSONError` with the JSON path, the line and column, and what to write instead.
///
/// ```swift
/// let value = try JSONValue.parse(Array(#"{"faults": [{"rate": "64KiB"}]}"#.utf8))
/// // {"a": 1, "a": 2}  →  a (line 1, column 10): the key "a" appears twice in this object; keep one
/// ```
extension JSONValue {
    /// How strict a format is beyond RFC 8259.
    public struct ParseOptions: Sendable {
        /// The deepest nesting of arrays and objects allowed.
        public var maxDepth: Int
        /// Whether only integers that fit in `Int64` are numbers (a fraction or exponent is a syntax error).
        public var integersOnly: Bool

        public init(maxDepth: Int = 64, integersOnly: Bool = false) {
            self.maxDepth = maxDepth
            self.integersOnly = integersOnly
        }
    }

    /// The one value `bytes` hold (whitespace around it allowed).
    public static func parse(_ bytes: [UInt8], options: ParseOptions = ParseOptions()) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes, options: options)
        return try parser.parseDocument()
    }

    /// The one value `text` holds.
    public static func parse(_ text: String, options: ParseOptions = ParseOptions()) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), options: options)
    }
}

/// A parsed document with the line and column where each of its values starts, so that an error found in the
/// tree (a wrong type, an unknown key, a bad unit) names its place in the text like a syntax error does.
public struct JSONDocument: Sendable {
    /// A 1-based line and column (in UTF-8 bytes).
    public struct Position: Sendable, Hashable {
        public var line: Int
        public var column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    public let value: JSONValue
    private let positions: [String: Position]

    /// Parses `bytes` as `JSONValue.parse` does, keeping every value's position.
    public init(parsing bytes: [UInt8], options: JSONValue.ParseOptions = .init()) throws(JSONError) {
        var parser = JSONParser(bytes, options: options, recordsPositions: true)
        value = try parser.parseDocument()
        positions = parser.positions.mapValues { Position(line: $0.line, column: $0.column) }
    }

    /// Where the value at `path` starts, or its nearest enclosing value (a missing key's object); nil for an
    /// empty document path that was never recorded.
    public func position(of path: String) -> Position? {
        var path = Substring(path)
        while true {
            if let position = positions[String(path)] { return position }
            guard !path.isEmpty else { return nil }
            let cut = path.lastIndex { $0 == "." || $0 == "[" } ?? path.startIndex
            path = path[..<cut]
        }
    }

}

/// A recursive-descent parser over UTF-8 bytes that keeps the path it is at, for errors.
private struct JSONParser {
    private enum Step {
        case key(String)
        case index(Int)
    }

    let bytes: [UInt8]
    let options: JSONValue.ParseOptions
    let recordsPositions: Bool
    var index = 0
    /// The line `index` is on and the offset that line starts at (newlines only occur in whitespace: a string
    /// holding a raw one is refused).
    private var line = 1
    private var lineStart = 0
    private var steps: [Step] = []
    /// Where each value starts, by path, when `recordsPositions`.
    private(set) var positions: [String: (line: Int, column: Int)] = [:]

    init(_ bytes: [UInt8], options: JSONValue.ParseOptions, recordsPositions: Bool = false) {
        self.bytes = bytes
        self.options = options
        self.recordsPositions = recordsPositions
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw syntax("unexpected bytes after the value; a document holds one value") }
        return value
    }

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        skipWhitespace()
        if recordsPositions { positions[renderedPath()] = (line, index - lineStart + 1) }
        guard let byte = peek() else { throw syntax("unexpected end of the text; a value is missing") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard steps.count < options.maxDepth else {
                throw syntax("nested more than \(options.maxDepth) deep")
            }
            return byte == UInt8(ascii: "{") ? try parseObject() : try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default:
            throw syntax(Self.unexpected(byte, at: index, in: bytes))
        }
    }

    /// Why `byte` cannot start a value: a byte order mark or a byte outside ASCII (an encoding other than UTF-8, or
    /// text outside a string) said as such, any other character as unexpected.
    static func unexpected(_ byte: UInt8, at index: Int, in bytes: [UInt8]) -> String {
        if index == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return "a UTF-8 byte order mark; save the file as UTF-8 without one"
        }
        if index == 0 && (bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])) {
            return "a UTF-16 byte order mark; save the file as UTF-8"
        }
        if byte >= 0x80 {
            return "a byte outside ASCII (0x\(String(byte, radix: 16, uppercase: true))) where a value must start; "
                + "text belongs in a string, and the file must be UTF-8"
        }
        return "unexpected character; expected a value (object, array, string, number, true, false, null)"
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        if try consumeClosing(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw syntax("expected a key in double quotes") }
            let keyStart = index
            let key = try parseString()
            guard members[key] == nil else {
                steps.append(.key(key))
                throw error(.duplicateKey, at: keyStart, "the key \"\(key)\" appears twice in this object; keep one")
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            steps.append(.key(key))
            members[key] = try parseValue()
            steps.removeLast()
        } while try separator(closing: UInt8(ascii: "}"))
        return .object(members)
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        if try consumeClosing(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            steps.append(.index(elements.count))
            elements.append(try parseValue())
            steps.removeLast()
        } while try separator(closing: UInt8(ascii: "]"))
        return .array(elements)
    }

    /// After an element: true on `,` (another follows), false on `closing` (consumed).
    private mutating func separator(closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        if peek() == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            if peek() == closing { throw syntax("a comma before '\(Character(Unicode.Scalar(closing)))'; remove it") }
            return true
        }
        try expect(closing)
        return false
    }

    private mutating func consumeClosing(_ closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard peek() == closing else { return false }
        index += 1
        return true
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        skipDigits()
        guard index > digitsStart else { throw syntax("expected digits") }
        guard bytes[digitsStart] != UInt8(ascii: "0") || index == digitsStart + 1 else {
            throw syntax("a number with a leading zero")
        }
        var isWhole = true
        if peek() == UInt8(ascii: ".") {
            isWhole = false
            index += 1
            let fractionStart = index
            skipDigits()
            guard index > fractionStart else { throw syntax("expected digits after the decimal point") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isWhole = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            skipDigits()
            guard index > exponentStart else { throw syntax("expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if options.integersOnly {
            guard isWhole else { throw syntax("only integers are allowed here", at: start) }
            guard let value = Int64(text) else { throw syntax("an integer outside the 64-bit range", at: start) }
            return .integer(value)
        }
        if isWhole, let value = Int64(text) { return .integer(value) }
        if isWhole, let value = UInt64(text) { return .largeInteger(value) }
        guard let value = Double(text), value.isFinite else {
            throw syntax("a number too large for 64 bits", at: start)
        }
        if value == value.rounded(), let exact = Int64(exactly: value) { return .integer(exact) }
        return .number(value)
    }

    private mutating func skipDigits() {
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
    }

    /// A string literal (RFC 8259 §7), the opening quote at `index`.
    private mutating func parseString() throws(JSONError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        while true {
            guard let byte = peek() else { throw syntax("unterminated string; close it with '\"'") }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                try appendRun(from: runStart, to: &scalars)
                index += 1
                if byte == UInt8(ascii: "\"") { return String(scalars) }
                scalars.append(try parseEscape())
                runStart = index
            case 0x00..<0x20:
                throw syntax("an unescaped control character in a string; write it as \\n, \\t or \\u00XX")
            default: index += 1
            }
        }
    }

    /// Appends the unescaped bytes `runStart..<index`, which must be valid UTF-8.
    private func appendRun(from runStart: Int, to scalars: inout String.UnicodeScalarView) throws(JSONError) {
        guard let run = String(validating: bytes[runStart..<index], as: UTF8.self) else {
            throw syntax("invalid UTF-8 in a string", at: runStart)
        }
        scalars.append(contentsOf: run.unicodeScalars)
    }

    /// The escape after a backslash: one of `"\/bfnrt` or `uXXXX` (a surrogate pair as two).
    private mutating func parseEscape() throws(JSONError) -> Unicode.Scalar {
        guard let byte = peek() else { throw syntax("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): return try parseUnicodeEscape()
        default:
            throw syntax("an unknown escape; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", at: index - 2)
        }
    }

    private mutating func parseUnicodeEscape() throws(JSONError) -> Unicode.Scalar {
        let start = index - 2
        let first = try hexQuad()
        var value = first
        if (0xD800..<0xDC00).contains(first) {
            guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw syntax("a high surrogate without its low surrogate", at: start)
            }
            index += 2
            let second = try hexQuad()
            guard (0xDC00..<0xE000).contains(second) else {
                throw syntax("a high surrogate without its low surrogate", at: start)
            }
            value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(value) else { throw syntax("a lone low surrogate", at: start) }
        return scalar
    }

    private mutating func hexQuad() throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Self.hexValue(byte) else {
                throw syntax("a \\u escape without four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { expected in
            bytes.count - index >= count && zip(bytes[index..<index + count], expected).allSatisfy { $0 == $1 }
        }
        guard matches else { throw syntax("unexpected character; expected a value (did you mean \(word)?)") }
        index += count
        return value
    }

    private mutating func expect(_ byte: UInt8) throws(JSONError) {
        guard peek() == byte else { throw syntax("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
            if byte == 0x0A {
                line += 1
                lineStart = index
            }
        }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private func syntax(_ detail: String, at offset: Int? = nil) -> JSONError {
        error(.syntax, at: offset ?? index, detail)
    }

    /// An error at byte `offset`, with the line and column it falls on and the path the parser is at.
    private func error(_ code: JSONError.Code, at offset: Int, _ detail: String) -> JSONError {
        var line = 1
        var lineStart = 0
        for (position, byte) in bytes[..<min(offset, bytes.count)].enumerated() where byte == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return JSONError(code, path: renderedPath(shortened: true), line: line, column: offset - lineStart + 1, detail)
    }

    /// The path the parser is at: `faults[2].rate`. `shortened` keeps a deep path readable in an error: its first
    /// four steps, `…`, and its last two.
    private func renderedPath(shortened: Bool = false) -> String {
        var shown = steps[...]
        var elided = false
        if shortened && steps.count > 8 {
            shown = steps[..<4] + steps[(steps.count - 2)...]
            elided = true
        }
        var path = ""
        for (count, step) in shown.enumerated() {
            if elided && count == 4 { path += "…" }
            switch step {
            case .key(let key): path = JSONPath.key(path, key)
            case .index(let position): path = JSONPath.index(path, position)
            }
        }
        return path
    }
}
