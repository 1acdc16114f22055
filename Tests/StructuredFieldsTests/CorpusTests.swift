import StructuredFields
import Testing

/// A table of valid and invalid field values in the spirit of the public structured-field test corpus,
/// with round trips: parse, serialize to the canonical form, parse again to the same value.
struct CorpusTests {
    typealias FieldType = ParsedField.FieldType

    static let valid: [(FieldType, String, String)] = [
        (.item, "42", "42"),
        (.item, "-0", "0"),
        (.item, "00042", "42"),
        (.item, "-42", "-42"),
        (.item, "999999999999999", "999999999999999"),
        (.item, "-999999999999999", "-999999999999999"),
        (.item, "  42  ", "42"),
        (.item, "4.5", "4.5"),
        (.item, "1.50", "1.5"),
        (.item, "1.000", "1.0"),
        (.item, "001.100", "1.1"),
        (.item, "-0.0", "0.0"),
        (.item, "-1.5", "-1.5"),
        (.item, "123456789012.123", "123456789012.123"),
        (.item, "0.001", "0.001"),
        (.item, #""hello world""#, #""hello world""#),
        (.item, #""""#, #""""#),
        (.item, #""a\"b\\c""#, #""a\"b\\c""#),
        (.item, "foo123/456", "foo123/456"),
        (.item, "*", "*"),
        (.item, "Ab:c/d", "Ab:c/d"),
        (.item, ":cHJldGVuZCB0aGlzIGlzIGJpbmFyeSBjb250ZW50Lg==:", ":cHJldGVuZCB0aGlzIGlzIGJpbmFyeSBjb250ZW50Lg==:"),
        (.item, "::", "::"),
        (.item, ":aGVsbG8:", ":aGVsbG8=:"),
        (.item, "?1", "?1"),
        (.item, "?0", "?0"),
        (.item, "1;a", "1;a"),
        (.item, "1;a=?1", "1;a"),
        (.item, "1;a=?0", "1;a=?0"),
        (.item, "1; a=2", "1;a=2"),
        (.item, "1;a=1;b=2;a=3", "1;a=3;b=2"),
        (.item, #""x";*k=tok"#, #""x";*k=tok"#),
        (.item, "tok;q=0.50;raw=:AA==:", "tok;q=0.5;raw=:AA==:"),
        (.item, "5; foo=bar", "5;foo=bar"),
        (.list, "sugar, tea, rum", "sugar, tea, rum"),
        (.list, "", ""),
        (.list, "   ", ""),
        (.list, "1,2", "1, 2"),
        (.list, "1 ,\t2", "1, 2"),
        (.list, "1\t,\t2", "1, 2"),
        (.list, "a;x=1 , b", "a;x=1, b"),
        (.list, #"("foo" "bar"), ("baz"), ("bat" "one"), ()"#, #"("foo" "bar"), ("baz"), ("bat" "one"), ()"#),
        (.list, "()", "()"),
        (.list, "(  1  2 )", "(1 2)"),
        (.list, "(1);a=2", "(1);a=2"),
        (.list, "(1;a 2)", "(1;a 2)"),
        (.list, #"("foo"; a=1;b=2);lvl=5, ("bar" "baz");lvl=1"#, #"("foo";a=1;b=2);lvl=5, ("bar" "baz");lvl=1"#),
        (.list, #"abc;a=1;b=2; cde_456, (ghi;jk=4 l);q="9";r=w"#, #"abc;a=1;b=2;cde_456, (ghi;jk=4 l);q="9";r=w"#),
        (.list, "1, 1", "1, 1"),
        (.list, "a\t", "a"),
        (.dictionary, #"en="Applepie", da=:w4ZibGV0w6ZydGUK:"#, #"en="Applepie", da=:w4ZibGV0w6ZydGUK:"#),
        (.dictionary, "a=?0, b, c; foo=bar", "a=?0, b, c;foo=bar"),
        (.dictionary, "rating=1.5, feelings=(joy sadness)", "rating=1.5, feelings=(joy sadness)"),
        (.dictionary, "a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid", "a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid"),
        (.dictionary, "a=?1", "a"),
        (.dictionary, "a=?1;x=1", "a;x=1"),
        (.dictionary, "a=1, b=2, a=3", "a=3, b=2"),
        (.dictionary, "*=1, a-b_c.d*=2", "*=1, a-b_c.d*=2"),
        (.dictionary, "a=1 ,\tb=2", "a=1, b=2"),
        (.dictionary, "", ""),
        (.dictionary, " a=1\t", "a=1"),
        (.dictionary, "a=(), b=(?1)", "a=(), b=(?1)"),
        (.dictionary, "max-size=1073741824, min-size=0", "max-size=1073741824, min-size=0"),
    ]

    static let invalid: [(FieldType, String, StructuredFieldError.Code)] = [
        (.item, "", .emptyInput),
        (.item, "1234567890123456", .integerOutOfRange),
        (.item, "+1", .unexpectedCharacter),
        (.item, "1.2345", .invalidDecimal),
        (.item, "1.", .invalidDecimal),
        (.item, "1234567890123.5", .decimalOutOfRange),
        (.item, "\"tab\there\"", .invalidString),
        (.item, "\"unterminated", .invalidString),
        (.item, #""bad \a escape""#, .invalidString),
        (.item, "1token", .trailingCharacters),
        (.item, "?2", .invalidBoolean),
        (.item, ":aGVsbG8!:", .invalidByteSequence),
        (.item, "1;Key=1", .invalidKey),
        (.item, "a b", .trailingCharacters),
        (.list, "a, b,", .trailingComma),
        (.list, "a,\t", .trailingComma),
        (.list, "\ta", .unexpectedCharacter),
        (.list, "(a\tb)", .unexpectedCharacter),
        (.list, "(a", .unexpectedEndOfInput),
        (.list, "a b", .unexpectedCharacter),
        (.dictionary, "Key=1", .invalidKey),
        (.dictionary, "a=1,", .trailingComma),
        (.dictionary, "a=1;", .unexpectedEndOfInput),
        (.dictionary, "a=1 ;b", .unexpectedCharacter),
        (.item, "1\t", .trailingCharacters),
    ]

    @Test(arguments: valid)
    func validValuesSerializeCanonicallyAndRoundTrip(type: FieldType, input: String, canonical: String) throws {
        let parsed = try ParsedField.parse(input, as: type)
        #expect(try parsed.serialized() == canonical)
        let reparsed = try ParsedField.parse(canonical, as: type)
        #expect(reparsed == parsed)
        #expect(try reparsed.serialized() == canonical)
    }

    @Test(arguments: invalid)
    func invalidValuesFailWithTheirCode(type: FieldType, input: String, code: StructuredFieldError.Code) {
        let error = #expect(throws: StructuredFieldError.self) { try ParsedField.parse(input, as: type) }
        #expect(error?.code == code)
        if let offset = error?.offset {
            #expect((0...input.utf8.count).contains(offset))
        }
    }
}
