/// A parsed JSON value (RFC 8259), as much of JSON as a transcript line uses: numbers must be integers that fit
/// in 64 bits, and an object keeps its members in order (duplicates included, for the reader to reject).
indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case string(String)
    case array([JSONValue])
    case object([Member])

    struct Member: Equatable {
        var key: String
        var value: JSONValue
    }

    /// The JSON type's name, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses `text`, which must hold exactly one value (whitespace around it allowed).
    init(parsing text: String) throws(TranscriptParseError) {
        var parser = JSONParser(Array(text.utf8))
        self = try parser.parseDocument()
    }
}

/// A recursive-descent JSON parser over UTF-8 bytes, nesting at most `maxDepth` deep.
private struct JSONParser {
    static let maxDepth = 16
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(TranscriptParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw syntax("trailing bytes after the value") }
        return value
    }

    private mutating func parseValue() throws(TranscriptParseError) -> JSONValue {
        skipWhitespace()
        guard let byte = peek() else { throw syntax("unexpected end of line") }
        switch byte {
        case UInt8(ascii: "{"): return try nested { (parser) throws(TranscriptParseError) in try parser.parseObject() }
        case UInt8(ascii: "["): return try nested { (parser) throws(TranscriptParseError) in try parser.parseArray() }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try parseInteger())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: throw syntax("unexpected character")
        }
    }

    private mutating func nested(
        _ body: (inout JSONParser) throws(TranscriptParseError) -> JSONValue
    ) throws(TranscriptParseError) -> JSONValue {
        depth += 1
        guard depth <= Self.maxDepth else { throw syntax("nested more than \(Self.maxDepth) deep") }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func parseObject() throws(TranscriptParseError) -> JSONValue {
        index += 1
        var members: [JSONValue.Member] = []
        if try consumeClosing(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw syntax("expected a key") }
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            members.append(JSONValue.Member(key: key, value: try parseValue()))
        } while try separator(closing: UInt8(ascii: "}"))
        return .object(members)
    }

    private mutating func parseArray() throws(TranscriptParseError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        if try consumeClosing(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try parseValue())
        } while try separator(closing: UInt8(ascii: "]"))
        return .array(elements)
    }

    /// After an element: true on `,` (another follows), false on `closing` (consumed).
    private mutating func separator(closing: UInt8) throws(TranscriptParseError) -> Bool {
        skipWhitespace()
        if peek() == UInt8(ascii: ",") {
            index += 1
            return true
        }
        try expect(closing)
        return false
    }

    private mutating func consumeClosing(_ closing: UInt8) throws(TranscriptParseError) -> Bool {
        skipWhitespace()
        guard peek() == closing else { return false }
        index += 1
        return true
    }

    private mutating func parseInteger() throws(TranscriptParseError) -> Int64 {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        guard index > digitsStart else { throw syntax("expected digits") }
        guard bytes[digitsStart] != UInt8(ascii: "0") || index == digitsStart + 1 else {
            throw syntax("a number with a leading zero")
        }
        if let byte = peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            throw syntax("only integers are allowed")
        }
        guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw syntax("an integer outside the 64-bit range")
        }
        return value
    }

    /// A string literal (RFC 8259 §7), the opening quote at `index`.
    private mutating func parseString() throws(TranscriptParseError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        while true {
            guard let byte = peek() else { throw syntax("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                try appendRun(from: runStart, to: &scalars)
                index += 1
                if byte == UInt8(ascii: "\"") { return String(scalars) }
                scalars.append(try parseEscape())
                runStart = index
            case 0x00..<0x20: throw syntax("an unescaped control character in a string")
            default: index += 1
            }
        }
    }

    /// Appends the unescaped bytes `runStart..<index`, which must be valid UTF-8.
    private func appendRun(
        from runStart: Int, to scalars: inout String.UnicodeScalarView
    ) throws(TranscriptParseError) {
        guard let run = String(validating: bytes[runStart..<index], as: UTF8.self) else {
            throw syntax("invalid UTF-8 in a string")
        }
        scalars.append(contentsOf: run.unicodeScalars)
    }

    /// The escape after a backslash: one of `"\/bfnrt` or `uXXXX` (a surrogate pair as two).
    private mutating func parseEscape() throws(TranscriptParseError) -> Unicode.Scalar {
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
        default: throw syntax("an unknown escape")
        }
    }

    private mutating func parseUnicodeEscape() throws(TranscriptParseError) -> Unicode.Scalar {
        let first = try hexQuad()
        var value = first
        if (0xD800..<0xDC00).contains(first) {
            guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw syntax("a high surrogate without its low surrogate")
            }
            index += 2
            let second = try hexQuad()
            guard (0xDC00..<0xE000).contains(second) else { throw syntax("a high surrogate without its low one") }
            value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(value) else { throw syntax("a lone low surrogate") }
        return scalar
    }

    private mutating func hexQuad() throws(TranscriptParseError) -> UInt32 {
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

    private mutating func literal(_ word: String, _ value: JSONValue) throws(TranscriptParseError) -> JSONValue {
        let word = Array(word.utf8)
        guard bytes.count - index >= word.count, Array(bytes[index..<index + word.count]) == word else {
            throw syntax("unexpected character")
        }
        index += word.count
        return value
    }

    private mutating func expect(_ byte: UInt8) throws(TranscriptParseError) {
        guard peek() == byte else { throw syntax("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private func syntax(_ detail: String) -> TranscriptParseError {
        TranscriptParseError(.syntax, key: "", "\(detail) at byte \(index)")
    }
}
