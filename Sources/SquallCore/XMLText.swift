/// Text inside an XML document (JUnit reports, Apple configuration profiles): `&`, `<`, `>` escaped, and characters
/// XML 1.0 forbids (§2.2) replaced by U+FFFD, so that any string makes a well-formed document.
public enum XMLText {
    /// Character data: `&`, `<`, `>` escaped, and characters XML 1.0 forbids (§2.2) replaced by U+FFFD.
    public static func text(_ value: String) -> String {
        escape(value, attribute: false)
    }

    /// An attribute value in double quotes: also `"`, `'` and whitespace escaped so they survive normalization.
    public static func attribute(_ value: String) -> String {
        escape(value, attribute: true)
    }

    private static func escape(_ value: String, attribute: Bool) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"" where attribute: escaped += "&quot;"
            case "'" where attribute: escaped += "&apos;"
            case "\n" where attribute: escaped += "&#10;"
            case "\r": escaped += "&#13;"
            case "\t" where attribute: escaped += "&#9;"
            case _ where !allowed(scalar): escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// XML 1.0 `Char` (§2.2): tab, newline, carriage return, and U+0020 on, less U+FFFE and U+FFFF.
    private static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
