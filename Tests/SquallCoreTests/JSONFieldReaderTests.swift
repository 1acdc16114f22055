import SquallCore
import Testing

struct JSONFieldReaderTests {
    private func reader(_ text: String, path: String = "fault") throws -> JSONFieldReader {
        try JSONFieldReader(try JSONValue.parse(text), path: path, expected: "a fault object")
    }

    private func failure(_ body: () throws(JSONError) -> Void) -> JSONError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func readsTypedValuesAndLeavesAbsentKeysNil() throws {
        let fields = try reader(
            #"{"name": "a", "on": true, "n": 3, "p": 0.5, "after": "1d", "rate": "64KiB", "seed": 18446744073709551615}"#
        )
        #expect(try fields.string("name") == "a")
        #expect(try fields.bool("on") == true)
        #expect(try fields.int("n") == 3)
        #expect(try fields.double("p") == 0.5)
        #expect(try fields.duration("after") == .seconds(86_400))
        #expect(try fields.size("rate") == 65_536)
        #expect(try fields.unsignedInteger("seed") == .max)
        #expect(try fields.string("missing") == nil)
    }

    @Test func wrongTypesNameThePathWhatWasExpectedAndWhatWasFound() throws {
        let fields = try reader(#"{"name": 5}"#)
        let found = failure { () throws(JSONError) in _ = try fields.string("name") }
        #expect(found == JSONError(.wrongType, path: "fault.name", "expected a string, found the number 5"))
    }

    @Test func badDurationsAndSizesAreNamedErrorsWithTheUnits() throws {
        let fields = try reader(#"{"after": "5w", "rate": "12XB", "bytes": -1, "delay": "250"}"#)
        let duration = failure { () throws(JSONError) in _ = try fields.duration("after") }
        #expect(duration?.code == .invalidDuration)
        #expect(duration?.path == "fault.after")
        #expect(duration?.detail.contains(#"the unit "w" is not one of us, ms, s, m, h, d"#) == true)
        let missingUnit = failure { () throws(JSONError) in _ = try fields.duration("delay") }
        #expect(missingUnit?.code == .invalidDuration)
        let size = failure { () throws(JSONError) in _ = try fields.size("rate") }
        #expect(size?.code == .invalidSize)
        #expect(size?.detail.contains("KiB, MiB, GiB, TiB") == true)
        let negative = failure { () throws(JSONError) in _ = try fields.size("bytes") }
        #expect(negative?.code == .invalidSize)
        #expect(negative?.detail.contains("negative size -1") == true)
    }

    @Test func unknownKeysAreListedInSortedOrder() throws {
        let fields = try reader(#"{"name": "a", "zeta": 1, "colour": "red"}"#)
        let unknown = fields.unknownKeys(["name"], context: "a fault")
        #expect(unknown.map(\.path) == ["fault.colour", "fault.zeta"])
        #expect(unknown.first?.detail == "unknown key in a fault; expected one of: name")
        let first = failure { () throws(JSONError) in try fields.rejectUnknownKeys(["name"], context: "a fault") }
        #expect(first?.code == .unknownKey)
        #expect(first?.path == "fault.colour")
    }

    @Test func requireNamesTheMissingKey() throws {
        let fields = try reader("{}", path: "")
        let found = failure { () throws(JSONError) in
            _ = try fields.require(try fields.string("name"), "name", expected: "a name")
        }
        #expect(found == JSONError(.missingKey, path: "name", "missing; expected a name"))
    }

    @Test func integersOutsideTheirRangeAreInvalidValues() throws {
        let fields = try reader(#"{"n": 9, "seed": -1}"#)
        let range = failure { () throws(JSONError) in _ = try fields.integer("n", in: 3...8) }
        #expect(range == JSONError(.invalidValue, path: "fault.n", "expected a whole number in 3…8, found 9"))
        let seed = failure { () throws(JSONError) in _ = try fields.unsignedInteger("seed") }
        #expect(seed?.code == .wrongType)
    }
}
