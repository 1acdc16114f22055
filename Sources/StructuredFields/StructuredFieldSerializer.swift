/// Serializes Structured Field Values to their canonical text (RFC 8941 §4.1).
///
/// Every function fails with a typed error instead of emitting a value a parser would reject: Integers
/// beyond 15 digits (`integerOutOfRange`), Decimals beyond 12 integer digits (`decimalOutOfRange`), Strings
/// with characters outside %x20-7E (`invalidString`), malformed Tokens (`invalidToken`) and keys
/// (`invalidKey`). The output is canonical: `1.50` comes out as `1.5`, a Dictionary member `a=?1` as `a`.
public enum StructuredFieldSerializer {
    /// Serializing an Item (§4.1.3), e.g. `?1` or `"text";lang=en`.
    public static func serialize(_ item: Item) throws(StructuredFieldError) -> String {
        try serialized(item)
    }

    /// Serializing a List (§4.1.1); an empty List gives the empty string (do not send the field then).
    public static func serialize(_ list: FieldList) throws(StructuredFieldError) -> String {
        try serialized(list)
    }

    /// Serializing a Dictionary (§4.1.2); an empty Dictionary gives the empty string.
    public static func serialize(_ dictionary: FieldDictionary) throws(StructuredFieldError) -> String {
        try serialized(dictionary)
    }

    private static func serialized(_ value: some FieldWritable) throws(StructuredFieldError) -> String {
        var writer = FieldWriter()
        try value.write(to: &writer)
        return writer.output
    }
}
