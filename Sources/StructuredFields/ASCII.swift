/// The ASCII bytes and character classes RFC 8941 uses, shared by the parser and the serializer.
enum ASCII {
    static let tab = UInt8(ascii: "\t")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")
    static let asterisk = UInt8(ascii: "*")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let dot = UInt8(ascii: ".")
    static let slash = UInt8(ascii: "/")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let equals = UInt8(ascii: "=")
    static let question = UInt8(ascii: "?")
    static let backslash = UInt8(ascii: "\\")

    /// `c` as a readable fragment for error details: `'a'` for printable characters, `0x09` otherwise.
    static func describe(_ byte: UInt8) -> String {
        isPrintable(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16, uppercase: true)
    }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    static func isLowercaseAlpha(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }

    static func isAlpha(_ byte: UInt8) -> Bool { isLowercaseAlpha(byte) || (0x41...0x5A).contains(byte) }

    /// VCHAR or SP (%x20-7E): the characters a String may hold (§3.3.3).
    static func isPrintable(_ byte: UInt8) -> Bool { (0x20...0x7E).contains(byte) }

    /// The first character of a key (§3.1.2): lcalpha or `*`.
    static func isKeyStart(_ byte: UInt8) -> Bool { isLowercaseAlpha(byte) || byte == asterisk }

    /// A later character of a key (§3.1.2): lcalpha, DIGIT, `_`, `-`, `.` or `*`.
    static func isKeyCharacter(_ byte: UInt8) -> Bool {
        isLowercaseAlpha(byte) || isDigit(byte) || "_-.*".utf8.contains(byte)
    }

    /// The first character of a Token (§3.3.4): ALPHA or `*`.
    static func isTokenStart(_ byte: UInt8) -> Bool { isAlpha(byte) || byte == asterisk }

    /// A later character of a Token (§3.3.4): tchar (RFC 9110 §5.6.2), `:` or `/`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || "!#$%&'*+-.^_`|~:/".utf8.contains(byte)
    }
}
