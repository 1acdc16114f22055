import StructuredFields
import Testing

struct ItemTests {
    private func parse(_ text: String) throws -> Item {
        try StructuredFieldParser.parseItem(text)
    }

    private func failure(_ text: String) -> StructuredFieldError? {
        do {
            _ = try StructuredFieldParser.parseItem(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func rfcExamplesOfEachBareItemType() throws {
        #expect(try parse("42") == Build.item(.integer(42)))
        #expect(try parse("4.5") == Build.item(Build.decimal(4500)))
        #expect(try parse("\"hello world\"") == Build.item(.string("hello world")))
        #expect(try parse("foo123/456") == Build.item(.token("foo123/456")))
        #expect(try parse("?1") == Build.item(.boolean(true)))
        let bytes = try parse(":cHJldGVuZCB0aGlzIGlzIGJpbmFyeSBjb250ZW50Lg==:")
        #expect(bytes == Build.item(.byteSequence(Array("pretend this is binary content.".utf8))))
    }

    @Test func rfcExampleOfAnItemWithParameters() throws {
        let item = try parse("5; foo=bar")
        #expect(item.bareItem == .integer(5))
        #expect(item.parameters.keys == ["foo"])
        #expect(item.parameters["foo"] == .token("bar"))
    }

    @Test func integersCoverTheFullRangeAndNegativeZero() throws {
        #expect(try parse("999999999999999").integer == 999_999_999_999_999)
        #expect(try parse("-999999999999999").integer == -999_999_999_999_999)
        #expect(try parse("-0").integer == 0)
        #expect(try parse("00042").integer == 42)
    }

    @Test func decimalsAreExactInThousandths() throws {
        #expect(try parse("123456789012.123").decimal == StructuredDecimal(thousandths: 123_456_789_012_123))
        #expect(try parse("-1.5").decimal == StructuredDecimal(thousandths: -1500))
        #expect(try parse("0.001").decimal == StructuredDecimal(thousandths: 1))
        #expect(try parse("1.50").decimal == StructuredDecimal(thousandths: 1500))
    }

    @Test func stringsUnescapeQuoteAndBackslash() throws {
        #expect(try parse(#""a\"b\\c""#).string == #"a"b\c"#)
        #expect(try parse(#""""#).string == "")
        #expect(try parse(#"" ~ ""#).string == " ~ ")
    }

    @Test func tokensMayUseEveryTcharColonAndSlash() throws {
        #expect(try parse("*").token == "*")
        #expect(try parse("Ab").token == "Ab")
        #expect(try parse("a!#$%&'*+-.^_`|~:/9").token == "a!#$%&'*+-.^_`|~:/9")
    }

    @Test func surroundingSpacesAreDiscardedButNotTabs() throws {
        #expect(try parse("   ?0  ").boolean == false)
        #expect(failure("\t1")?.code == .unexpectedCharacter)
        #expect(failure("1\t")?.code == .trailingCharacters)
    }

    @Test func parametersKeepFirstPositionAndLastValue() throws {
        let item = try parse("1;a=1;b=2;a=3; c")
        #expect(item.parameters.keys == ["a", "b", "c"])
        #expect(item.parameters["a"] == .integer(3))
        #expect(item.parameters["c"] == .boolean(true))
    }

    @Test func bytesAndSeveralLinesParseLikeText() throws {
        #expect(
            try StructuredFieldParser.parseItem(Array("7;x".utf8)) == Build.item(.integer(7), ["x": .boolean(true)]))
        #expect(try StructuredFieldParser.parseItem(lines: ["7"]).integer == 7)
        let empty = #expect(throws: StructuredFieldError.self) {
            try StructuredFieldParser.parseItem(lines: ["", "7"])
        }
        #expect(empty?.code == .unexpectedCharacter)
        let error = #expect(throws: StructuredFieldError.self) {
            try StructuredFieldParser.parseItem(lines: ["1", "2"])
        }
        #expect(error?.code == .trailingCharacters)
        #expect(error?.offset == 1)
    }

    @Test(arguments: [
        ("", StructuredFieldError.Code.emptyInput, 0),
        ("   ", .emptyInput, 3),
        ("1234567890123456", .integerOutOfRange, 0),
        ("-1234567890123456", .integerOutOfRange, 0),
        ("+1", .unexpectedCharacter, 0),
        ("-", .invalidInteger, 1),
        ("--1", .invalidInteger, 1),
        ("1.2345", .invalidDecimal, 5),
        ("1.", .invalidDecimal, 2),
        ("1.a", .invalidDecimal, 2),
        ("1234567890123.0", .decimalOutOfRange, 0),
        ("1.5.3", .trailingCharacters, 3),
        ("\"a\tb\"", .invalidString, 2),
        ("\"abc", .invalidString, 4),
        ("\"a\\", .invalidString, 3),
        ("\"\\a\"", .invalidString, 2),
        ("\"\\\t\"", .invalidString, 2),
        ("\"é\"", .invalidString, 1),
        ("\"a\"b", .trailingCharacters, 3),
        ("1abc", .trailingCharacters, 1),
        ("?2", .invalidBoolean, 1),
        ("?", .invalidBoolean, 1),
        (":aGVsbG8=", .invalidByteSequence, 0),
        (":aGV%bG8=:", .invalidByteSequence, 4),
        ("1;A=2", .invalidKey, 2),
        ("1;", .unexpectedEndOfInput, 2),
        ("1;a=", .unexpectedEndOfInput, 4),
        ("1 ;a", .trailingCharacters, 2),
        ("(1 2)", .unexpectedCharacter, 0),
        ("é", .unexpectedCharacter, 0),
    ])
    func invalidItemsFailWithTheirCodeAndOffset(input: String, code: StructuredFieldError.Code, offset: Int) {
        let error = failure(input)
        #expect(error?.code == code, "\(input)")
        #expect(error?.offset == offset, "\(input)")
    }
}
