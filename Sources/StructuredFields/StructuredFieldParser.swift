/// Parses Structured Field Values (RFC 8941 §4.2) into Items, Lists and Dictionaries.
///
/// Each parse follows §4.2 exactly: leading and trailing SP are discarded, OWS (SP or HTAB) is allowed only
/// around the commas of Lists and Dictionaries, and anything left over fails with `trailingCharacters`.
/// Input is bytes or text; a field sent as several field lines is parsed as their values joined by `, `
/// (§4.2 step 1), and error offsets then count in that joined value.
///
/// ```swift
/// let limit = try StructuredFieldParser.parseDictionary("max-size=1073741824, min-size=0")
/// let maxSize = try limit.integer("max-size")   // 1_073_741_824
/// ```
public enum StructuredFieldParser {
    /// Parses an Item, e.g. `Upload-Offset: 123`. Empty input fails with `emptyInput`.
    public static func parseItem(_ field: some StringProtocol) throws(StructuredFieldError) -> Item {
        try parseItem(Array(field.utf8))
    }

    /// Parses an Item from the field value's bytes.
    public static func parseItem(_ bytes: some Collection<UInt8>) throws(StructuredFieldError) -> Item {
        var reader = FieldReader(Array(bytes))
        reader.skipSpaces()
        if reader.isAtEnd { throw reader.failure(.emptyInput, "an Item cannot be empty") }
        let item = try reader.readItem()
        try reader.expectEnd()
        return item
    }

    /// Parses an Item sent as several field lines (which then fails unless all but one are empty).
    public static func parseItem(lines: some Sequence<some StringProtocol>) throws(StructuredFieldError) -> Item {
        try parseItem(joined(lines))
    }

    /// Parses a List, e.g. `sugar, tea, rum`; empty input is the empty List.
    public static func parseList(_ field: some StringProtocol) throws(StructuredFieldError) -> FieldList {
        try parseList(Array(field.utf8))
    }

    /// Parses a List from the field value's bytes.
    public static func parseList(_ bytes: some Collection<UInt8>) throws(StructuredFieldError) -> FieldList {
        var reader = FieldReader(Array(bytes))
        reader.skipSpaces()
        let list = try reader.readList()
        try reader.expectEnd()
        return list
    }

    /// Parses a List sent as several field lines.
    public static func parseList(lines: some Sequence<some StringProtocol>) throws(StructuredFieldError) -> FieldList {
        try parseList(joined(lines))
    }

    /// Parses a Dictionary, e.g. `max-size=1000, min-size=0`; empty input is the empty Dictionary.
    public static func parseDictionary(_ field: some StringProtocol) throws(StructuredFieldError) -> FieldDictionary {
        try parseDictionary(Array(field.utf8))
    }

    /// Parses a Dictionary from the field value's bytes.
    public static func parseDictionary(
        _ bytes: some Collection<UInt8>
    ) throws(StructuredFieldError) -> FieldDictionary {
        var reader = FieldReader(Array(bytes))
        reader.skipSpaces()
        let dictionary = try reader.readDictionary()
        try reader.expectEnd()
        return dictionary
    }

    /// Parses a Dictionary sent as several field lines; a key repeated across lines keeps its first position.
    public static func parseDictionary(
        lines: some Sequence<some StringProtocol>
    ) throws(StructuredFieldError) -> FieldDictionary {
        try parseDictionary(joined(lines))
    }

    private static func joined(_ lines: some Sequence<some StringProtocol>) -> [UInt8] {
        var bytes: [UInt8] = []
        for (position, line) in lines.enumerated() {
            if position > 0 { bytes += ", ".utf8 }
            bytes += line.utf8
        }
        return bytes
    }
}
