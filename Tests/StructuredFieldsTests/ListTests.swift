import StructuredFields
import Testing

struct ListTests {
    private func parse(_ text: String) throws -> FieldList {
        try StructuredFieldParser.parseList(text)
    }

    @Test func rfcExampleOfTokens() throws {
        #expect(
            try parse("sugar, tea, rum") == [
                Build.member(.token("sugar")), Build.member(.token("tea")), Build.member(.token("rum")),
            ])
    }

    @Test func rfcExampleOfInnerListsIncludingAnEmptyOne() throws {
        let list = try parse(#"("foo" "bar"), ("baz"), ("bat" "one"), ()"#)
        let expected: FieldList = [
            Build.inner([Build.item(.string("foo")), Build.item(.string("bar"))]),
            Build.inner([Build.item(.string("baz"))]),
            Build.inner([Build.item(.string("bat")), Build.item(.string("one"))]),
            Build.inner([]),
        ]
        #expect(list == expected)
    }

    @Test func rfcExampleOfParametersOnInnerListsAndTheirItems() throws {
        let list = try parse(#"("foo"; a=1;b=2);lvl=5, ("bar" "baz");lvl=1"#)
        let expected: FieldList = [
            Build.inner([Build.item(.string("foo"), ["a": .integer(1), "b": .integer(2)])], ["lvl": .integer(5)]),
            Build.inner([Build.item(.string("bar")), Build.item(.string("baz"))], ["lvl": .integer(1)]),
        ]
        #expect(list == expected)
    }

    @Test func rfcExampleOfParameters() throws {
        let list = try parse(#"abc;a=1;b=2; cde_456, (ghi;jk=4 l);q="9";r=w"#)
        let expected: FieldList = [
            Build.member(.token("abc"), ["a": .integer(1), "b": .integer(2), "cde_456": .boolean(true)]),
            Build.inner(
                [Build.item(.token("ghi"), ["jk": .integer(4)]), Build.item(.token("l"))],
                ["q": .string("9"), "r": .token("w")]
            ),
        ]
        #expect(list == expected)
    }

    @Test func emptyInputIsTheEmptyList() throws {
        #expect(try parse("").isEmpty)
        #expect(try parse("   ").isEmpty)
    }

    @Test func optionalWhitespaceAroundCommasMayIncludeTabs() throws {
        #expect(
            try parse("1 ,\t2\t,  3") == [
                Build.member(.integer(1)), Build.member(.integer(2)), Build.member(.integer(3)),
            ])
    }

    @Test func innerListsAllowSeveralSpacesButNoTabs() throws {
        #expect(try parse("(  1   2 )") == [Build.inner([Build.item(.integer(1)), Build.item(.integer(2))])])
        let error = #expect(throws: StructuredFieldError.self) { try parse("(1\t2)") }
        #expect(error?.code == .unexpectedCharacter)
    }

    @Test func severalFieldLinesAreJoinedWithCommas() throws {
        let joined = try StructuredFieldParser.parseList(lines: ["a, b", "c"])
        #expect(joined == (try parse("a, b, c")))
        #expect(try StructuredFieldParser.parseList(lines: [String]()).isEmpty)
        let error = #expect(throws: StructuredFieldError.self) {
            try StructuredFieldParser.parseList(lines: ["a", ""])
        }
        #expect(error?.code == .trailingComma)
    }

    @Test func duplicateMembersAreKept() throws {
        #expect(try parse("1, 1").count == 2)
    }

    @Test(arguments: [
        ("1,", StructuredFieldError.Code.trailingComma, 2),
        ("a, b, ", .trailingComma, 6),
        (",1", .unexpectedCharacter, 0),
        ("1,,2", .unexpectedCharacter, 2),
        ("1 2", .unexpectedCharacter, 2),
        ("\t1", .unexpectedCharacter, 0),
        ("(1 2", .unexpectedEndOfInput, 4),
        ("(", .unexpectedEndOfInput, 1),
        ("(1,2)", .unexpectedCharacter, 2),
        ("(1)2", .unexpectedCharacter, 3),
        ("1;", .unexpectedEndOfInput, 2),
        ("(1);", .unexpectedEndOfInput, 4),
        ("a;B", .invalidKey, 2),
    ])
    func invalidListsFailWithTheirCodeAndOffset(input: String, code: StructuredFieldError.Code, offset: Int) {
        let error = #expect(throws: StructuredFieldError.self) { try parse(input) }
        #expect(error?.code == code, "\(input)")
        #expect(error?.offset == offset, "\(input)")
    }
}
