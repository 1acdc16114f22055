/// Writes one JSON object (RFC 8259) on one line, keys in the order they are added.
///
/// Strings are escaped per RFC 8259 §7: `"` and `\` get a backslash, the control characters U+0000…U+001F become
/// `\b`, `\f`, `\n`, `\r`, `\t` or `\u00XX`; everything else, non-ASCII included, passes through as UTF-8. Nil
/// values are written as `null`, so an event kind always has the same keys in the same order.
struct JSONObjectWriter {
    private var text = "{"
    private var isEmpty = true

    init() {}

    /// The object, closed.
    var line: String { text + "}" }

    mutating func add(_ key: String, _ value: String?) {
        addKey(key)
        if let value { Self.appendQuoted(value, to: &text) } else { text += "null" }
    }

    mutating func add(_ key: String, _ value: Int64?) {
        addKey(key)
        text += value.map { String($0) } ?? "null"
    }

    mutating func add(_ key: String, _ value: Int) {
        add(key, Int64(value))
    }

    /// `json`, a JSON value already written (an object, an array, a number, `true`), as it is.
    mutating func add(_ key: String, raw json: String) {
        addKey(key)
        text += json
    }

    /// A list of pairs as an array of two-string arrays: `[["Host","a"],["Accept","*/*"]]`.
    mutating func add(_ key: String, pairs: [(String, String)]) {
        addKey(key)
        text += "["
        for (index, pair) in pairs.enumerated() {
            if index > 0 { text += "," }
            text += "["
            Self.appendQuoted(pair.0, to: &text)
            text += ","
            Self.appendQuoted(pair.1, to: &text)
            text += "]"
        }
        text += "]"
    }

    private mutating func addKey(_ key: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        Self.appendQuoted(key, to: &text)
        text += ":"
    }

    /// Appends `string` as a JSON string literal.
    static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case "\u{00}"..."\u{1F}": text += "\\u00" + hexDigits(scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    private static func hexDigits(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 4)], digits[Int(value & 0xF)]])
    }
}
