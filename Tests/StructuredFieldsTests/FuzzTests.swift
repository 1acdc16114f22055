import StructuredFields
import TestSupport
import Testing

/// Seeded random inputs: parsing never crashes and gives either a value that round-trips or a typed
/// parse error; random well-formed values survive serialize → parse unchanged.
struct FuzzTests {
    private static let alphabet: [String] = [
        "a", "b", "z", "A", "Z", "0", "1", "9", "-", ".", "*", "_", "/", ":", ";", "=", ",", "(", ")", "\"",
        "\\", "?", "+", " ", "  ", "\t", "%", "~", "é", "\u{7F}", "\n", "aGk=", "12.5", "?1", "(1 2)", "a=1",
    ]

    @Test func randomTextEitherRoundTripsOrFailsWithAParseError() throws {
        var generator = SeededGenerator(seed: 0x5F5F_1234)
        var parsedCount = 0
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...16, using: &generator)
            let input = (0..<length).map { _ in Self.alphabet.randomElement(using: &generator)! }.joined()
            for type in ParsedField.FieldType.allCases {
                parsedCount += try check(input, as: type) ? 1 : 0
            }
        }
        #expect(parsedCount > 500)
    }

    @Test func randomBytesNeverCrashTheParser() throws {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            for type in ParsedField.FieldType.allCases {
                do {
                    let value = try ParsedField.parse(bytes, as: type)
                    #expect(try ParsedField.parse(value.serialized(), as: type) == value)
                } catch {
                    #expect(error.code != .wrongType)
                    #expect((0...bytes.count).contains(error.offset ?? -1))
                }
            }
        }
    }

    @Test func randomValuesSurviveSerializeAndParse() throws {
        var random = RandomValues(seed: 7)
        for _ in 0..<1_000 {
            let list = FieldList(random.repeated(0...4) { $0.member() })
            let dictionary = FieldDictionary(random.repeated(0...4) { ($0.key(), $0.member()) })
            let item = random.item()
            #expect(try StructuredFieldParser.parseList(StructuredFieldSerializer.serialize(list)) == list)
            #expect(
                try StructuredFieldParser.parseDictionary(StructuredFieldSerializer.serialize(dictionary)) == dictionary
            )
            #expect(try StructuredFieldParser.parseItem(StructuredFieldSerializer.serialize(item)) == item)
        }
    }

    /// Returns whether `input` parsed; records an issue unless it round-trips or fails with a parse error.
    private func check(_ input: String, as type: ParsedField.FieldType) throws -> Bool {
        let value: ParsedField
        do {
            value = try ParsedField.parse(input, as: type)
        } catch {
            #expect(error.code != .wrongType, "\(input)")
            #expect((0...input.utf8.count).contains(error.offset ?? -1), "\(input)")
            return false
        }
        let canonical = try value.serialized()
        #expect(try ParsedField.parse(canonical, as: type) == value, "\(input)")
        return true
    }
}

/// Builds random well-formed Structured Field values from a seeded generator.
private struct RandomValues {
    private static let largest: Int64 = 999_999_999_999_999
    private var generator: SeededGenerator

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    /// `make` called a random number of times within `counts`.
    mutating func repeated<Value>(_ counts: ClosedRange<Int>, _ make: (inout Self) -> Value) -> [Value] {
        (0..<Int.random(in: counts, using: &generator)).map { _ in make(&self) }
    }

    mutating func key() -> String {
        text(first: "abcxyz*", rest: "az09_-.*")
    }

    mutating func bareItem() -> BareItem {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: .integer(Int64.random(in: -Self.largest...Self.largest, using: &generator))
        case 1:
            .decimal(StructuredDecimal(thousandths: Int64.random(in: -Self.largest...Self.largest, using: &generator)))
        case 2: .string(String(decoding: bytes(in: 0x20...0x7E), as: UTF8.self))
        case 3: .token(text(first: "Tt*", rest: "a9!#:/~"))
        case 4: .byteSequence(bytes(in: 0...255))
        default: .boolean(Bool.random(using: &generator))
        }
    }

    mutating func item() -> Item {
        Item(bareItem(), parameters: parameters())
    }

    mutating func member() -> ItemOrInnerList {
        if Bool.random(using: &generator) { return .item(item()) }
        let items = repeated(0...3) { $0.item() }
        return .innerList(InnerList(items, parameters: parameters()))
    }

    private mutating func parameters() -> Parameters {
        Parameters(repeated(0...2) { ($0.key(), $0.bareItem()) })
    }

    private mutating func text(first: String, rest: String) -> String {
        let head = first.randomElement(using: &generator)!
        let tail = repeated(0...4) { rest.randomElement(using: &$0.generator)! }
        return String(head) + String(tail)
    }

    private mutating func bytes(in range: ClosedRange<UInt8>) -> [UInt8] {
        repeated(0...8) { UInt8.random(in: range, using: &$0.generator) }
    }
}
