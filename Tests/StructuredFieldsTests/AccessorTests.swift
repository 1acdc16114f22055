import StructuredFields
import Testing

struct AccessorTests {
    @Test func propertiesReturnTheValueOnlyForTheirOwnType() throws {
        let item = try StructuredFieldParser.parseItem("42")
        #expect(item.integer == 42)
        #expect(item.decimal == nil)
        #expect(item.string == nil)
        #expect(item.token == nil)
        #expect(item.byteSequence == nil)
        #expect(item.boolean == nil)
        #expect(item.kind == .integer)
        #expect(BareItem.token("t").token == "t")
        #expect(BareItem.string("t").token == nil)
    }

    @Test func throwingAccessorsNameExpectedAndActualTypes() throws {
        let item = try StructuredFieldParser.parseItem(#""12""#)
        #expect(try item.asString() == "12")
        let error = #expect(throws: StructuredFieldError.self) { try item.asInteger() }
        #expect(error?.code == .wrongType)
        #expect(error?.expected == .integer)
        #expect(error?.actual == .string)
        #expect(error?.key == nil)
        #expect(error?.detail == "value is String, expected Integer")
    }

    @Test func eachThrowingAccessorReturnsItsType() throws {
        #expect(try BareItem.integer(1).asInteger() == 1)
        #expect(try Build.decimal(1).asDecimal() == StructuredDecimal(thousandths: 1))
        #expect(try BareItem.token("a").asToken() == "a")
        #expect(try BareItem.byteSequence([1]).asByteSequence() == [1])
        #expect(try BareItem.boolean(false).asBoolean() == false)
        #expect(throws: StructuredFieldError.self) { try BareItem.boolean(false).asByteSequence() }
    }

    @Test func dictionaryAccessorsReturnNilWhenAbsentAndThrowWhenMistyped() throws {
        let dictionary = try StructuredFieldParser.parseDictionary(#"max-size="big", min-size=0, flag, list=(1 2)"#)
        #expect(try dictionary.integer("min-size") == 0)
        #expect(try dictionary.integer("absent") == nil)
        #expect(try dictionary.boolean("flag") == true)
        #expect(try dictionary.innerList("list")?.items.count == 2)
        let error = #expect(throws: StructuredFieldError.self) { try dictionary.integer("max-size") }
        #expect(error?.code == .wrongType)
        #expect(error?.key == "max-size")
        #expect(error?.expected == .integer)
        #expect(error?.actual == .string)
        #expect(error?.detail == #"member "max-size" is String, expected Integer"#)
        let listError = #expect(throws: StructuredFieldError.self) { try dictionary.string("list") }
        #expect(listError?.actual == .innerList)
        let itemError = #expect(throws: StructuredFieldError.self) { try dictionary.innerList("flag") }
        #expect(itemError?.expected == .innerList)
        #expect(itemError?.actual == .boolean)
    }

    @Test func parameterAccessorsWorkTheSameWay() throws {
        let item = try StructuredFieldParser.parseItem(#"tok;q=0.5;lang="en";raw=:AQI=:;t=x"#)
        #expect(try item.parameters.decimal("q") == StructuredDecimal(thousandths: 500))
        #expect(try item.parameters.string("lang") == "en")
        #expect(try item.parameters.byteSequence("raw") == [1, 2])
        #expect(try item.parameters.token("t") == "x")
        #expect(try item.parameters.token("none") == nil)
        let error = #expect(throws: StructuredFieldError.self) { try item.parameters.boolean("q") }
        #expect(error?.key == "q")
        #expect(error?.actual == .decimal)
    }

    @Test func membersExposeItemInnerListAndParameters() throws {
        let list = try StructuredFieldParser.parseList("a;x=1, (b);y=2")
        #expect(list[0].item?.token == "a")
        #expect(list[0].innerList == nil)
        #expect(list[0].parameters.keys == ["x"])
        #expect(list[1].item == nil)
        #expect(try list[1].asInnerList().items == [Build.item(.token("b"))])
        #expect(list[1].parameters["y"] == .integer(2))
        #expect(list[1].kind == .innerList)
        #expect(list[1].token == nil)
        let error = #expect(throws: StructuredFieldError.self) { try list[0].asInnerList() }
        #expect(error?.expected == .innerList)
        #expect(error?.actual == .token)
    }

    @Test func parametersIterateInOrder() throws {
        let parameters = try StructuredFieldParser.parseItem("1;b=2;a=1").parameters
        #expect(parameters.map(\.key) == ["b", "a"])
        #expect(parameters.map(\.value) == [.integer(2), .integer(1)])
        #expect(parameters[0].key == "b")
    }

    @Test func errorDescriptionNamesCodeOffsetAndDetail() {
        let error = #expect(throws: StructuredFieldError.self) { try StructuredFieldParser.parseItem("?2") }
        #expect(error?.description == "invalidBoolean at offset 1: '?' must be followed by '0' or '1'")
    }
}
