/// The typed readers of single values: each takes the value's JSON path and returns the model's value or a
/// `JSONError` naming the path, what was expected and what was found.
extension JSONValue {
    /// What a size looks like, for messages.
    public static let sizeExpected = "a size: whole bytes or a string such as \"512KiB\", \"8MiB\", \"1GB\""
    /// What a duration looks like, for messages.
    public static let durationExpected = "a duration string such as \"250ms\", \"2s\", \"1m\", \"1d\""

    public func string(at path: String) throws(JSONError) -> String {
        guard case .string(let text) = self else { throw wrongType(path, "a string") }
        return text
    }

    public func bool(at path: String) throws(JSONError) -> Bool {
        guard case .bool(let flag) = self else { throw wrongType(path, "true or false") }
        return flag
    }

    /// A whole number within `range`.
    public func integer(at path: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(JSONError)
        -> Int64
    {
        let expected =
            range == Int64.min...Int64.max
            ? "a whole number"
            : range.upperBound == .max
                ? "a whole number ≥ \(range.lowerBound)" : "a whole number in \(range.lowerBound)…\(range.upperBound)"
        guard case .integer(let number) = self else { throw wrongType(path, expected) }
        guard range.contains(number) else {
            throw JSONError(.invalidValue, path: path, "expected \(expected), found \(number)")
        }
        return number
    }

    /// A whole number from 0 to `UInt64.max` (a seed).
    public func unsignedInteger(at path: String) throws(JSONError) -> UInt64 {
        switch self {
        case .integer(let number) where number >= 0: return UInt64(number)
        case .largeInteger(let number): return number
        default: throw wrongType(path, "a whole number from 0 to 18446744073709551615")
        }
    }

    /// Any number.
    public func double(at path: String) throws(JSONError) -> Double {
        switch self {
        case .integer(let number): return Double(number)
        case .largeInteger(let number): return Double(number)
        case .number(let number): return number
        default: throw wrongType(path, "a number")
        }
    }

    /// A duration string in `DurationText`'s grammar (`"250ms"`, `"2s"`, `"1d"`).
    public func duration(at path: String) throws(JSONError) -> Duration {
        guard case .string(let text) = self else { throw wrongType(path, Self.durationExpected) }
        do {
            return try DurationText.parse(text)
        } catch {
            throw JSONError(
                .invalidDuration, path: path, "expected \(Self.durationExpected), found \"\(text)\": \(error.reason)")
        }
    }

    /// A size: whole bytes (never negative) or a string in `ByteSize`'s grammar (`"512KiB"`).
    public func size(at path: String) throws(JSONError) -> Int64 {
        switch self {
        case .integer(let bytes) where bytes < 0:
            throw JSONError(
                .invalidSize, path: path, "expected \(Self.sizeExpected), found the negative size \(bytes)")
        case .integer(let bytes):
            return bytes
        case .string(let text):
            do {
                return try ByteSize.parse(text)
            } catch {
                throw JSONError(
                    .invalidSize, path: path, "expected \(Self.sizeExpected), found \"\(text)\": \(error.reason)")
            }
        default:
            throw wrongType(path, Self.sizeExpected)
        }
    }

    /// The elements of an array.
    public func elements(at path: String, expected: String = "an array") throws(JSONError) -> [JSONValue] {
        guard case .array(let elements) = self else { throw wrongType(path, expected) }
        return elements
    }

    /// The wrong-type error for this value at `path`: "expected …, found …".
    public func wrongType(_ path: String, _ expected: String) -> JSONError {
        JSONError(.wrongType, path: path, "expected \(expected), found \(summary)")
    }
}
